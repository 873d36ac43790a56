"""Files that ship inside the package (package data): the sample runs, the example Team Scorecards and the
published methodology.

They are found from the ``scoring`` package itself (``importlib.resources``), so they are the same files in a
clone (where ``scoring/contract/data/`` links to ``sample_data/`` and ``docs/``) and in an installed wheel (where the
build copied their content), wherever the module that asks for them lives.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DATA_DIR = Path(str(files("scoring.contract").joinpath("data")))
SAMPLE_RUNS = DATA_DIR / "runs.csv"
SCORECARDS_DIR = DATA_DIR / "scorecards"
PUBLISHED_METHODOLOGY = DATA_DIR / "published-methodology.md"
