"""The runs schema (SPEC 1) and the reasons a run is refused: one home for both.

Every reader of runs uses this module: the pandas loader (``scoring.load.runs``), the SQL engines
(``scoring.engines.sql_engine``) and the harness importers. A validation problem carries a
:class:`Reason` (a stable code) and its message text, so a report reads the same whichever engine
found it, and a program can match the code rather than the words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
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
# Explorer-defined optional columns (docs/schema.md, "Pass-through columns"): what a harness records per run
# that SPEC 1 has no column for. Validated like ``steps`` (a whole number >= 0, or empty), kept in the
# canonical frame, shown on the Runs page and in its download; no measure reads them (SPEC's formulas do not
# change) and the SQL engines only validate them.
PASS_THROUGH: tuple[Column, ...] = (
    Column("trial", "count", False, "the harness's trial or attempt number (tau2-bench trial, terminal-bench attempt)"),
    Column("epoch", "count", False, "Inspect AI's sample epoch"),
    Column("seed", "count", False, "the run's random seed (tau2-bench seed); exact up to 2^53"),
    Column("input_tokens", "count", False, "input (prompt) tokens the run used"),
    Column("output_tokens", "count", False, "output (completion) tokens the run used"),
)
PASS_THROUGH_COLUMNS = tuple(c.name for c in PASS_THROUGH)
# A pass-through value is kept as a 64-bit integer: it is read as the nearest double (exact up to 2^53), which
# must be below 2^63 (Reason.TOO_LARGE): a larger one would wrap to a negative number.
PASS_THROUGH_LIMIT = 2.0**63
COLUMN_BY_NAME = {c.name: c for c in COLUMNS}
REQUIRED_COLUMNS = tuple(c.name for c in COLUMNS if c.required)
OPTIONAL_COLUMNS = tuple(c.name for c in COLUMNS if not c.required)
ID_COLUMNS = tuple(c.name for c in COLUMNS if c.kind == "id")
NUMBER_COLUMNS = tuple(c.name for c in COLUMNS if c.kind in ("number", "count"))
SPEC_COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
CANONICAL_COLUMNS = SPEC_COLUMNS + ("source_row",)  # then any PASS_THROUGH_COLUMNS the input has
READ_COLUMNS = SPEC_COLUMNS + PASS_THROUGH_COLUMNS  # the columns a CSV or Parquet file is read for

# The statuses, named: Python code outside this module writes these names, never the words (a test checks).
QUEUED, RUNNING, COMPLETED = "queued", "running", "completed"
FAILED, TIMEOUT, CANCELLED = "failed", "timeout", "cancelled"
STATUSES = (QUEUED, RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED)
TERMINAL_STATUSES = (COMPLETED, FAILED, TIMEOUT)  # a run that ended; the others enter no measure
NOT_TERMINAL_STATUSES = tuple(s for s in STATUSES if s not in TERMINAL_STATUSES)
HEADLINE_STATUSES = (COMPLETED,)  # the headline cohort (SPEC 3): completed runs; see _groups.headline_cohort
# SPEC 1's words (these statuses, outcomes, and the non-finite spellings a number refuses) are read case-insensitively
# in the ASCII letters A-Z only: a text with a character past ASCII is none of them. (Explorer-defined: SPEC 1 says
# "case-insensitive" of ASCII words; Unicode lower-casing maps a capital dotted I to "i" in Arrow and DuckDB, to "i"
# and a combining dot in Python and Spark, and in PostgreSQL as the database's locale has it, so "FAİLED" was a failed
# run in pandas and DuckDB, refused by Spark, and either in PostgreSQL.)
TRUE_TOKENS = frozenset({"true", "1", "1.0", "yes", "pass"})
FALSE_TOKENS = frozenset({"false", "0", "0.0", "no", "fail"})
NONFINITE_TOKENS = frozenset({"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"})
# Spellings a text cell must have to be read as a number (the SQL engines test it; pandas and Arrow parse
# numbers the same way).
NUMBER_PATTERN = "[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?"
# The one timestamp grammar (docs/schema.md, "Timestamps"), written once and used by every engine in its own
# regular-expression dialect (Python, RE2, PostgreSQL, Java: only [0-9], groups, ?, | and {n,m}). An RFC 3339
# profile: date; then T, t or one space and hh:mm, hh:mm:ss or hh:mm:ss.f (1 to 9 digits); then Z, z, +hh:mm,
# +hhmm or +hh (or -; hh at most 14), or nothing (UTC). The capturing groups, in order, are TIMESTAMP_GROUPS. Beyond the
# pattern: the year is 0001 or later, the day exists in its month, and the instant in UTC lies in
# [TIMESTAMP_MIN, TIMESTAMP_MAX]. Fraction digits after the sixth are dropped (truncated toward the past).
TIMESTAMP_PATTERN = ("([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
                     "(?:[Tt ]([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9])(?:[.]([0-9]{1,9}))?)?"
                     "(?:[Zz]|([+-](?:0[0-9]|1[0-4]))(?::?([0-5][0-9]))?)?)?")
# At most nine groups: DuckDB's regexp_extract numbers no more.
TIMESTAMP_GROUPS = ("year", "month", "day", "hour", "minute", "second", "fraction", "offset_hours", "offset_minutes")
# The common spellings, a subset of the grammar that an engine with a TRY_CAST may cast as they are (years
# 1000-2999, so that no offset takes the instant out of range; seconds; at most six fraction digits; a zone
# as Z or +hh:mm, or none, then cast as UTC): every other spelling is rewritten from its parts first.
TIMESTAMP_PLAIN_PATTERN = ("[12][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[T ]([01][0-9]|2[0-3]):[0-5][0-9]"
                           ":[0-5][0-9]([.][0-9]{1,6})?")
TIMESTAMP_PLAIN_ZONE = "(Z|[+-](0[0-9]|1[0-4]):[0-5][0-9])"
FRACTION_DIGITS = 6  # microseconds: the digits every engine keeps
TIMESTAMP_MIN, TIMESTAMP_MAX = "0001-01-01T00:00:00.000000+00:00", "9999-12-31T23:59:59.999999+00:00"
ISO_8601_PATTERN = TIMESTAMP_PATTERN  # the name it had before the grammar was pinned down
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)
_EPOCH_ORDINAL = 719163  # date(1970, 1, 1).toordinal()
# What surrounds a cell and is ignored: the characters Python's str.strip() removes (c.isspace()). Every
# engine strips exactly these; a test keeps the list equal to Python's.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
              "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def days_in_month(year: int, month: int) -> int:
    """The days of a month in the proleptic Gregorian calendar (every engine's calendar).

    >>> days_in_month(2024, 2), days_in_month(1900, 2), days_in_month(2000, 2), days_in_month(2026, 4)
    (29, 28, 29, 30)
    """
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else 28 if month == 2 else 30 if month in (4, 6, 9, 11) else 31


def timestamp_micros(text: str) -> int | None:
    """The instant a timestamp cell spells, in microseconds since 1970-01-01T00:00:00Z; None if it is not
    spelled by the grammar (TIMESTAMP_PATTERN and its three rules). The reference every engine is tested
    against; surrounding whitespace (WHITESPACE) is ignored.

    Examples
    --------
    >>> timestamp_micros("1970-01-01T00:00:01Z"), timestamp_micros("1970-01-01 05:30+05:30")
    (1000000, 0)
    >>> timestamp_micros("1969-12-31T23:59:59.9999999Z")  # the seventh digit is dropped: earlier, never later
    -1
    >>> [timestamp_micros(t) for t in ("2026-07-01T24:00:00", "2026-02-30", "2026-07-01T05", "20260701")]
    [None, None, None, None]
    """
    match = _TIMESTAMP.fullmatch(text.strip(WHITESPACE))
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, off_h, off_m = match.groups(default="")
    if int(year) < 1 or int(day) > days_in_month(int(year), int(month)):
        return None
    days = date(int(year), int(month), int(day)).toordinal() - _EPOCH_ORDINAL
    seconds = ((days * 24 + int(hour or 0)) * 60 + int(minute or 0)) * 60 + int(second or 0)
    offset = (abs(int(off_h or 0)) * 60 + int(off_m or 0)) * 60 * (-1 if off_h.startswith("-") else 1)
    micros = (seconds - offset) * 1_000_000 + int(fraction[:FRACTION_DIGITS].ljust(FRACTION_DIGITS, "0"))
    low = (date(1, 1, 1).toordinal() - _EPOCH_ORDINAL) * 86_400_000_000
    high = (date(9999, 12, 31).toordinal() + 1 - _EPOCH_ORDINAL) * 86_400_000_000 - 1
    return micros if low <= micros <= high else None


def look_alike_warnings(names: Iterable[str], what: str = "agent") -> list[str]:
    r"""A warning for ids that read alike but are distinct (explorer-defined; SPEC 1 compares ids as text, so they
    are scored apart): equal once compatibility forms are folded (NFKC), case is folded and format characters
    (zero-width spaces, bidi controls) are dropped. Each id is quoted as Python writes it, so the difference shows.

    >>> print(look_alike_warnings(["gpt-4", "gpt-4​", "GPT-4", "claude"])[0])  # doctest: +ELLIPSIS
    3 agent ids read alike but are scored apart (...): 'GPT-4', 'gpt-4', 'gpt-4​'
    """
    groups: dict[str, list[str]] = {}
    for name in names:
        key = "".join(ch for ch in unicodedata.normalize("NFKC", name) if unicodedata.category(ch) != "Cf").casefold()
        groups.setdefault(key, []).append(name)
    return [f"{len(group)} {what} ids read alike but are scored apart (they differ only in case, invisible or "
            f"compatibility characters): " + ", ".join(_quoted(n) for n in sorted(group)[:5])
            + (f" and {len(group) - 5:,} more" if len(group) > 5 else "")
            for group in groups.values() if len(group) > 1][:10]


SPELLINGS_SHOWN = 5  # ids a spelling warning names (the rest counted; explorer-defined)


@dataclass(frozen=True)
class Spelt:
    """An id the file writes more than one way, the ways differing only in surrounding whitespace (WHITESPACE):
    ``ways`` distinct spellings, the ``first`` and ``last`` in text (code point) order."""

    id: str
    ways: int
    first: str
    last: str


def spelt_apart(values: Iterable[str]) -> tuple[list[Spelt], int]:
    """From the distinct texts of an id column as written: the first SPELLINGS_SHOWN ids (in text order) written
    more than one way, and how many ids are. An id of whitespace alone is refused elsewhere (a missing value).

    >>> spelt_apart(["gpt-4", "gpt-4 ", " gpt-4", "claude", "claude"])
    ([Spelt(id='gpt-4', ways=3, first=' gpt-4', last='gpt-4 ')], 1)
    """
    groups: dict[str, set[str]] = {}
    for value in values:
        trimmed = value.strip(WHITESPACE)
        if trimmed:
            groups.setdefault(trimmed, set()).add(value)
    found = sorted(k for k, ways in groups.items() if len(ways) > 1)
    return [Spelt(k, len(groups[k]), min(groups[k]), max(groups[k])) for k in found[:SPELLINGS_SHOWN]], len(found)


def spelling_warnings(found: Sequence[Spelt], total: int, what: str = "agent") -> list[str]:
    """A warning for ids written several ways that trimming scores as one (explorer-defined: ids are compared
    once surrounding whitespace is trimmed, so the rows of 'gpt-4' and 'gpt-4 ' are one agent's). Each spelling
    is quoted as Python writes it, so the whitespace shows.

    >>> import textwrap
    >>> for line in textwrap.wrap(spelling_warnings([Spelt("gpt-4", 2, "gpt-4", "gpt-4 ")], 1)[0], 100):
    ...     print(line)
    agent id 'gpt-4' is written 2 ways that differ only in surrounding whitespace ('gpt-4', 'gpt-4 '),
    and they are scored as one agent (surrounding whitespace is trimmed)
    """
    if not total:
        return []

    def ways(s: Spelt, counted: bool = True) -> str:
        if s.ways == 2:
            return f"({_quoted(s.first)}, {_quoted(s.last)})"
        return f"({f'{s.ways:,} ways, ' if counted else ''}from {_quoted(s.first)} to {_quoted(s.last)})"

    if total == 1 and len(found) == 1:
        s = found[0]
        return [f"{what} id {_quoted(s.id)} is written {s.ways:,} ways that differ only in surrounding whitespace "
                f"{ways(s, counted=False)}, and they are scored as one {what} (surrounding whitespace is trimmed)"]
    named = ", ".join(f"{_quoted(s.id)} {ways(s)}" for s in found)
    more = f" and {total - len(found):,} more" if total > len(found) else ""
    return [f"{total:,} {what} ids are each written several ways that differ only in surrounding whitespace, and "
            f"each is scored as one {what} (surrounding whitespace is trimmed): {named}{more}"]


def _quoted(name: str) -> str:
    r"""``name`` as Python writes it, a combining mark written as its escape too: repr draws 'cafe\u0301' as 'café',
    beside 'café' itself in the same warning (a reviewer's two ids that read alike and looked alike).

    >>> _quoted("cafe\u0301"), _quoted("caf\u00e9")
    ("'cafe\\u0301'", "'café'")
    """
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch).startswith("M") else ch for ch in repr(name))


def normalize_column_name(name: object) -> str:
    """Header spelling is forgiving: 'Run ID', ' run-id ' and 'RUN_ID' all name ``run_id``.

    Examples
    --------
    >>> normalize_column_name(" Latency-MS ")
    'latency_ms'
    """
    return re.sub(r"[\s\-]+", "_", str(name).strip()).lower()


FIRST_SEEN = "; first seen at row {row}"  # a duplicate run_id's ``where``: the row that gave that id first


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
    DUPLICATE_RUN_ID = "duplicate run_id{where}"  # where: FIRST_SEEN when rows are numbered
    UNKNOWN_STATUS = "unknown status; expected one of " + ", ".join(STATUSES)
    NOT_AN_OUTCOME = "not a recognised outcome; expected true/false, 1/0, yes/no, pass/fail or empty"
    NOT_A_NUMBER = "not a number"
    NOT_FINITE = "not a finite number"
    NEGATIVE = "negative; must be 0 or more"
    NOT_WHOLE = "not a whole number"
    TOO_LARGE = "too large; must be below 2^63 (9223372036854775808)"  # a pass-through value (PASS_THROUGH_LIMIT)
    NOT_A_TIMESTAMP = "not an ISO-8601 timestamp (e.g. 2026-07-01T12:00:00Z)"
    NESTED = "a nested or binary value is not allowed here"
    NOT_AN_OBJECT = "a run must be a JSON object"
    NOT_JSON = "not valid JSON: {detail}"
    NESTED_TOO_DEEP = "not a run: it nests {depth} levels deep, more than the limit of {limit} (max_json_depth)"
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
