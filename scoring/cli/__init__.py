"""The command line (`python -m scoring`): a module per subcommand, `options` and `shared` for what several use,
`dispatch` (`main`, `build_parser`), and `commands`, the old names. May import every scoring subpackage; the app
(explorer.pack, explorer.pages) only lazily, inside `pack` and `serve`.
"""

from scoring.cli.dispatch import main

__all__ = ["main"]
