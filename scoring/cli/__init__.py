"""The command line (`python -m scoring`): argument parsing and one function per subcommand.

May import: every scoring subpackage; the app's review pack only lazily, for the `pack` subcommand.
"""

from scoring.cli.commands import main

__all__ = ["main"]
