"""Downloads: the report as CSV, safe to open in a spreadsheet."""

from __future__ import annotations

import pandas as pd

from scoring import Report

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralize(value: object) -> object:
    """Prefix a text cell that a spreadsheet would run as a formula with a quote (OWASP CSV injection)."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def report_csv(report: Report) -> str:
    frame = report.to_frame()
    for column in frame.columns:
        if frame[column].dtype == object or pd.api.types.is_string_dtype(frame[column]):
            frame[column] = frame[column].map(neutralize)
    return frame.to_csv(index=False)
