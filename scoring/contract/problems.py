"""A refusal of untrusted runs, in words: the :class:`Problem` (row, column, value, reason) and the
:class:`RunsValidationError` that lists them. Every loader and engine raises these; they import no pandas, so an
engine that never builds a frame (``--engine sql``) never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scoring.contract.schema import FIRST_SEEN, Reason

if TYPE_CHECKING:
    import pandas as pd

MAX_PROBLEMS_LISTED = 1000  # in the text report
MAX_PROBLEMS_KEPT = 10_000  # as Problem objects: a file of 5,000,000 bad rows must not cost gigabytes to refuse


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file. ``row`` is None for file-level problems.

    Rows are numbered from 1: the first record of a JSON array or Parquet file,
    the first line after the header of a CSV, the line number of a JSON Lines file.
    """

    row: int | None
    column: str | None
    value: str | None
    reason: str
    code: str = ""  # a schema.Reason code: the same for the same rule whichever engine or importer found it
    unlisted: int = 0  # rows of this rule counted here, not listed one by one (the SQL engines list the first few)
    first_row: int | None = None  # a repeated run_id: the row that gave it first (said in ``reason`` too)

    @classmethod
    def of(cls, reason: Reason, row: int | None = None, column: str | None = None, value: str | None = None,
           *, first_row: int | None = None, **fields: object) -> Problem:
        """The problem ``reason`` (its text filled from ``fields``); ``first_row``, for a repeated run_id, the row
        that gave the id first: kept as a number and said in the text (``schema.FIRST_SEEN``)."""
        if first_row is not None:
            fields["where"] = FIRST_SEEN.format(row=first_row)
        return cls(row, column, value, reason.text(**fields), reason.code, first_row=first_row)

    @classmethod
    def long_id(cls, row: int | None, column: str, value: str, limit: int) -> Problem:
        """An id past ``max_id_chars`` (the work limits, every engine alike): its row, its start and its length.

        >>> Problem.long_id(3, "agent_id", "x" * 2_000, 1_000).reason
        'an id of 2,000 characters, more than the limit of 1,000 (max_id_chars)'
        """
        from scoring.contract.limits import long_id_detail

        return cls.of(Reason.FILE, row, column, value[:61], detail=long_id_detail(len(value), limit))

    @classmethod
    def not_listed(cls, reason: Reason, column: str, rows: int, **fields: object) -> Problem:
        """The ``rows`` more rows a rule refuses than a refusal lists, as one problem that stands for them."""
        return cls(None, column, None, f"{reason.text(**fields)}: {rows:,} more row(s) not listed", reason.code,
                   unlisted=rows)

    def message(self, line: int | None = None) -> str:
        """The problem in words; ``line``: the file line its row starts on (a CSV), said beside the row."""
        where = [] if self.row is None else [f"row {self.row}" + (f" (line {line})" if line is not None else "")]
        if self.column is not None:
            where.append(f"column '{self.column}'")
        if self.value is not None:
            where.append(f"value {_show(self.value)}")
        return (", ".join(where) + ": " if where else "") + self.reason + (f" [{self.code}]" if self.code else "")


class RunsValidationError(ValueError):
    """A runs file was refused. ``problems`` lists every reason; see :meth:`report`."""

    def __init__(self, problems: list[Problem], *, rows_read: int = 0, source: str = "input",
                 can_exclude: bool = True, total: int | None = None, invalid_rows: int | None = None):
        self.problems = problems  # the first MAX_PROBLEMS_KEPT, in row order
        self.total = len(problems) if total is None else total
        self.rows_read = rows_read
        self.source = source
        self.invalid_rows = len(self.problem_rows) if invalid_rows is None else invalid_rows
        # Every row read is invalid: excluding them would leave no run to score (refused as a file with no runs is).
        self.every_row_invalid = bool(rows_read) and self.invalid_rows >= rows_read
        # Only row-level problems can be excluded; a file-level one refuses the file.
        self.excludable = can_exclude and all(p.row is not None for p in problems) and not self.every_row_invalid
        # A CSV's rows are records after the header; a person counts the file's lines (row 57 may be line 58, or
        # further on after blank lines or cells over several lines): row -> line, when the loader could tell.
        self.lines: dict[int, int] = {}
        super().__init__(self.report())

    @property
    def problem_rows(self) -> set[int]:
        """The rows the listed problems name."""
        return {p.row for p in self.problems if p.row is not None}

    def with_lines(self, lines: Mapping[int, int]) -> RunsValidationError:
        """This refusal with the file line of each problem row (``csv_record_lines``) said beside the row."""
        self.lines = dict(lines)
        self.args = (self.report(),)
        return self

    def report(self) -> str:
        head = f"{self.source}: refused, {self.total:,} problem(s)"
        if self.invalid_rows and self.rows_read:
            head += f" in {self.invalid_rows:,} of {self.rows_read:,} row(s)"
        shown = self.problems[:MAX_PROBLEMS_LISTED]
        lines = [head] + [f"  - {p.message(self.lines.get(p.row) if p.row is not None else None)}" for p in shown]
        # A line may stand for more than one problem: the SQL engines' "N more row(s) not listed" for a rule.
        said = sum(p.unlisted or 1 for p in shown)
        if self.total > said:
            lines.append(f"  ... and {self.total - said:,} more")
        if self.excludable and self.invalid_rows:
            lines.append(f"The {self.invalid_rows:,} invalid row(s) can be excluded explicitly (--exclude-invalid).")
        elif self.every_row_invalid and all(p.row is not None for p in self.problems):
            every = "The only row is" if self.rows_read == 1 else f"All {self.rows_read:,} rows are"
            lines.append(f"{every} invalid: excluding them would leave no run to score.")
        return "\n".join(lines)

    def table(self) -> pd.DataFrame:
        """The problems as a table (row, its line in the file when known, column, value, reason, code)."""
        import pandas as pd  # a table is asked for by the app and the CLI's text, not by every refusal

        line = {"line": pd.array([self.lines.get(p.row) if p.row is not None else None for p in self.problems],
                                 dtype="Int64")} if self.lines else {}
        return pd.DataFrame(
            {
                "row": pd.array([p.row for p in self.problems], dtype="Int64"),
                **line,
                "column": [p.column or "" for p in self.problems],
                "value": [_show(p.value) if p.value is not None else "" for p in self.problems],
                "reason": [p.reason for p in self.problems],
                "code": [p.code for p in self.problems],
            }
        )


def _show(value: str, limit: int = 60) -> str:
    text = value if len(value) <= limit else value[: limit - 1] + "…"
    return repr(text)
