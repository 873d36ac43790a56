"""The runs schema (SPEC 1) and the reasons a run is refused: one home for both.

Every reader of runs uses this module: the pandas loader (``scoring.runs``), the SQL engines
(``scoring.sql_engine``) and the harness importers. A validation problem carries a
:class:`Reason` (a stable code) and its message text, so a report reads the same whichever engine
found it, and a program can match the code rather than the words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Literal

Kind = Literal["id", "status", "outcome", "number", "count", "timestamp"]


@dataclass(frozen=True)
class Column:
    """One column of the runs table (SPEC 1)."""

    name: str
    kind: Kind
    required: bool
    rule: str


COLUMNS: tuple[Column, ...] = (
    Column("run_id", "id", True, "unique across the file"),
    Column("agent_id", "id", True, "the agent being scored"),
    Column("task_id", "id", True, "the task the run attempted"),
    Column("status", "status", True, "queued, running, completed, failed, timeout or cancelled (any case)"),
    Column("success", "outcome", True, "true/false, 1/0, yes/no, pass/fail (any case); empty = unknown outcome"),
    Column("latency_ms", "number", True, "a number >= 0, or empty"),
    Column("cost_usd", "number", True, "a number >= 0, or empty"),
    Column("steps", "count", False, "a whole number >= 0, or empty; a missing column means no step data"),
    Column("finished_at", "timestamp", False, "ISO-8601; orders the radar window (newest first); empty is oldest"),
)
COLUMN_BY_NAME = {c.name: c for c in COLUMNS}
REQUIRED_COLUMNS = tuple(c.name for c in COLUMNS if c.required)
OPTIONAL_COLUMNS = tuple(c.name for c in COLUMNS if not c.required)
ID_COLUMNS = tuple(c.name for c in COLUMNS if c.kind == "id")
NUMBER_COLUMNS = tuple(c.name for c in COLUMNS if c.kind in ("number", "count"))
SPEC_COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
CANONICAL_COLUMNS = SPEC_COLUMNS + ("source_row",)

STATUSES = ("queued", "running", "completed", "failed", "timeout", "cancelled")
TERMINAL_STATUSES = ("completed", "failed", "timeout")
TRUE_TOKENS = frozenset({"true", "1", "1.0", "yes", "pass"})
FALSE_TOKENS = frozenset({"false", "0", "0.0", "no", "fail"})
NONFINITE_TOKENS = frozenset({"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"})
# Spellings a text cell must have to be read as a number or a timestamp (the SQL engines test these;
# pandas and Arrow parse them the same way).
NUMBER_PATTERN = "[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?"
ISO_8601_PATTERN = ("[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}(:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?)?"
                    " ?(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)?")
# What surrounds a cell and is ignored: the characters Python's str.strip() removes (c.isspace()). Every
# engine strips exactly these; a test keeps the list equal to Python's.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
              "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def normalize_column_name(name: object) -> str:
    """Header spelling is forgiving: 'Run ID', ' run-id ' and 'RUN_ID' all name ``run_id``.

    Examples
    --------
    >>> normalize_column_name(" Latency-MS ")
    'latency_ms'
    """
    return re.sub(r"[\s\-]+", "_", str(name).strip()).lower()


class Reason(Enum):
    """Why a value, a record or a file is refused: a stable code and its message ({} fields filled in).

    Examples
    --------
    >>> Reason.SHORT_LINE.code, Reason.SHORT_LINE.text(fields=4, header=9)
    ('short_line', 'the line has 4 field(s); the header has 9')
    """

    MISSING_COLUMN = "required column is missing"
    DUPLICATE_COLUMN = "duplicate column: {first!r} and {second!r} both name {name!r}"
    MISSING_VALUE = "missing value; this column is required"
    DUPLICATE_RUN_ID = "duplicate run_id{where}"  # where: "; first seen at row N" when rows are numbered
    UNKNOWN_STATUS = "unknown status; expected one of " + ", ".join(STATUSES)
    NOT_AN_OUTCOME = "not a recognised outcome; expected true/false, 1/0, yes/no, pass/fail or empty"
    NOT_A_NUMBER = "not a number"
    NOT_FINITE = "not a finite number"
    NEGATIVE = "negative; must be 0 or more"
    NOT_WHOLE = "not a whole number of steps"
    NOT_A_TIMESTAMP = "not an ISO-8601 timestamp (e.g. 2026-07-01T12:00:00Z)"
    NESTED = "a nested or binary value is not allowed here"
    NOT_AN_OBJECT = "a run must be a JSON object"
    NOT_JSON = "not valid JSON: {detail}"
    NESTED_TOO_DEEP = "not a run: nested too deeply"
    SHORT_LINE = "the line has {fields} field(s); the header has {header}"
    # Harness imports: a record the importer could not map (its place, then why), a mapping's missing column.
    RECORD = "{where}: {detail}"
    MAPPED_COLUMN_MISSING = "the mapping names source column {source!r}; the table has no such column (it has: {have})"
    # Whole-file problems: the detail says what (an empty file, a format error, a limit and its numbers).
    FILE = "{detail}"

    @property
    def code(self) -> str:
        return self.name.lower()

    def text(self, **fields: object) -> str:
        return self.value.format(**fields) if fields else self.value
