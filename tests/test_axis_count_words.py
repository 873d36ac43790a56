"""The number of radar axes is never written as a word in code or UI text: it follows from RADAR_AXES."""

from __future__ import annotations

import re
from pathlib import Path

from scoring import RADAR_AXES

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def test_no_source_writes_the_number_of_axes_as_a_word():
    count = WORDS[len(RADAR_AXES) - 1]
    pattern = re.compile(rf"\b{count}\b[\w\s-]{{0,20}}\baxes\b|\ball {count}\b", re.IGNORECASE)
    found = [f"{path.relative_to(ROOT)}:{n}" for folder in ("scoring", "explorer", "views")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    found += [f"app.py:{n}" for n, line in enumerate((ROOT / "app.py").read_text().splitlines(), 1)
              if pattern.search(line)]
    assert found == []
