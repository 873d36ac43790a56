"""The command line's compatibility surface: every name that ``scoring.cli.commands`` has exported, re-exported
from where it now lives (one module per subcommand, :mod:`scoring.cli.options` and :mod:`scoring.cli.shared` for
what several share, :mod:`scoring.cli.dispatch` for :func:`main` and :func:`build_parser`). New code imports
from those modules; this one holds no code of its own but the two registration helpers kept for old callers.
"""

from __future__ import annotations

import argparse

from scoring.cli import methodology, sample, serve
from scoring.cli.badge import run_badge
from scoring.cli.diff import add_parser as add_diff_command
from scoring.cli.diff import run_diff
from scoring.cli.dispatch import TRUSTED_COMMANDS, build_parser, main
from scoring.cli.explain import run_explain
from scoring.cli.methodology import run_methodology
from scoring.cli.options import KIND_ALIASES, kind_name, limits_from, parse_weights
from scoring.cli.pack import run_pack
from scoring.cli.receipt import run_receipt
from scoring.cli.report import intervals_json_text, parse_levels, run_report, scorecard_table_text, table_text
from scoring.cli.sample import run_sample
from scoring.cli.serve import run_serve, serve_command, streamlit_config_flags
from scoring.cli.shared import import_inputs, input_dataset, load_inputs, policy_from, read_prices
from scoring.cli.verify import run_verify

__all__ = [
    "KIND_ALIASES", "TRUSTED_COMMANDS", "add_console_commands", "add_diff_command", "build_parser",
    "import_inputs", "input_dataset", "intervals_json_text", "kind_name", "limits_from", "load_inputs", "main",
    "parse_levels", "parse_weights", "policy_from", "read_prices", "run_badge", "run_diff", "run_explain",
    "run_methodology", "run_pack", "run_receipt", "run_report", "run_sample", "run_serve", "run_verify",
    "scorecard_table_text", "serve_command", "streamlit_config_flags", "table_text",
]


def add_console_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``serve``, ``sample`` and ``methodology`` on the command line's subcommands."""
    for command in (serve, sample, methodology):
        command.add_parser(sub)
