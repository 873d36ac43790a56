"""``methodology``: the published methodology the scores follow (Markdown) on stdout."""

from __future__ import annotations

import argparse

from scoring.cli.shared import write_stdout
from scoring.contract.limits import Limits
from scoring.contract.resources import PUBLISHED_METHODOLOGY


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``methodology`` on the command line's subcommands."""
    methodology = sub.add_parser("methodology", help="print the published methodology the scores follow (Markdown)")
    methodology.set_defaults(run=run_methodology)
    return methodology


def run_methodology(args: argparse.Namespace, limits: Limits) -> int:
    return write_stdout(PUBLISHED_METHODOLOGY.read_text(encoding="utf-8"))
