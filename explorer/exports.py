"""Downloads: the report as CSV, safe to open in a spreadsheet (the neutralization lives in scoring)."""

from __future__ import annotations

from scoring import Report
from scoring.report import FORMULA_PREFIXES, neutralize_cell

neutralize = neutralize_cell
__all__ = ["FORMULA_PREFIXES", "neutralize", "report_csv"]


def report_csv(report: Report) -> str:
    return report.to_csv_text()
