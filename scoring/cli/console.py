"""The console command (``agentscore``, installed with the package ``scoring-methodology-explorer``): every
subcommand of ``python -m scoring``, plus ``serve`` (the app), ``sample`` (the bundled sample runs) and
``methodology`` (the published methodology), each in its own module of :mod:`scoring.cli`.
"""

from __future__ import annotations

from scoring.cli.dispatch import main as cli_main
from scoring.cli.serve import serve_command, streamlit_config_flags

PROG = "agentscore"

__all__ = ["PROG", "main", "serve_command", "streamlit_config_flags"]


def main(argv: list[str] | None = None) -> int:
    """The ``agentscore`` console script."""
    return cli_main(argv, prog=PROG)
