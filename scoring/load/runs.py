"""Loading and validating runs (SPEC 1): one loader, one validator.

Every input format is read into a raw table of text-or-typed cells, then one
validator turns it into the canonical runs frame or a report naming every
problem (row, column, value, reason). Nothing is dropped silently: invalid rows
are either refused (the default) or excluded on explicit request and counted.

The canonical frame has the columns of :data:`CANONICAL_COLUMNS` and is sorted
by ``agent_id`` ascending, then newest first (``finished_at`` descending with an
empty value oldest, then ``run_id`` descending as text; without a
``finished_at`` column, later file rows are newer). That order makes every
measure independent of the input's row order.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import mmap
import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import itemgetter
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import ArrayLike
from pandas.api import types as ptypes

from scoring.contract.limits import (
    DEFAULT_LIMITS,
    Limits,
    column_limit_refusal,
    format_size,
    row_limit_refusal,
    special_file,
    special_file_reason,
)
from scoring.contract.problems import (  # noqa: F401 - MAX_PROBLEMS_*: the refusal's bounds, read here too
    MAX_PROBLEMS_KEPT,
    MAX_PROBLEMS_LISTED,
    Problem,
    RunsValidationError,
    _show,
)
from scoring.contract.safejson import (
    LONE_SURROGATE,
    SURROGATE_ESCAPE,
    decode_error_words,
    json_depth,
    nesting,
    object_noting_repeats,
    parse_int,
    repeated_keys,
    too_deep,
)
from scoring.contract.schema import (
    FALSE_TOKENS,
    ID_COLUMNS,
    NONFINITE_TOKENS,
    NUMBER_COLUMNS,
    NUMBER_PATTERN,
    PASS_THROUGH_COLUMNS,
    PASS_THROUGH_LIMIT,
    READ_COLUMNS,
    REQUIRED_COLUMNS,
    STATUSES,
    TRUE_TOKENS,
    Reason,
    look_alike_warnings,
    normalize_column_name,
    spelling_warnings,
    spelt_apart,
)
from scoring.load import arrow_runs
from scoring.load.csv_header import nul_byte

FORMATS = {".csv": "csv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
           ".pq": "parquet"}
DEFAULT_MAX_ROWS = DEFAULT_LIMITS.max_rows
@dataclass(frozen=True)
class LoadedRuns:
    """A validated runs table and what happened while loading it."""

    runs: pd.DataFrame
    source: str
    format: str
    rows_read: int
    excluded_rows: int = 0
    excluded_problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)
    # Per agent imported from a harness, the harness's own reading (scoring.load.importers.reading.HarnessReading).
    harness: Mapping[str, Any] = field(default_factory=dict)
    estimated_cost: tuple[str, ...] = ()  # agents whose cost was estimated from tokens (--prices)

    @property
    def has_finished_at(self) -> bool:
        return bool(self.runs.attrs.get("has_finished_at", False))


def check_work(loaded: LoadedRuns, limits: Limits) -> LoadedRuns:
    """Refuse validated runs with more agents than ``limits`` allow, an id longer than max_id_chars, or more
    tasks (scoring works per agent and task; every page repeats an id), in that order, as every engine does.

    Every untrusted input passes here between validation and scoring; the refusal names the limit and
    both numbers.
    """
    from scoring.contract.limits import count_error

    runs = loaded.runs

    def refuse_count(column: str, what: str, limit: int, setting: str) -> None:
        ids = runs[column]
        count = len(ids.cat.categories) if isinstance(ids.dtype, pd.CategoricalDtype) else int(ids.nunique())
        reason = count_error(count, what, limit, setting)
        if reason is not None:
            raise RunsValidationError([Problem.of(Reason.FILE, None, column, detail=reason)], source=loaded.source,
                                      rows_read=loaded.rows_read, can_exclude=False)

    # The agents, the ids' lengths, the tasks: the order every engine checks them in (Spark counts the tasks last)
    refuse_count("agent_id", "agents", limits.max_agents, "max_agents")
    long_ids = _long_ids(runs, limits.max_id_chars)
    if long_ids:
        raise RunsValidationError(long_ids, source=loaded.source, rows_read=loaded.rows_read, can_exclude=False)
    refuse_count("task_id", "tasks", limits.max_tasks, "max_tasks")
    return loaded


def _long_ids(runs: pd.DataFrame, limit: int) -> list[Problem]:
    """The id columns holding an id longer than ``limit`` characters: one problem each, at the first row (in the
    file) that gives such an id, naming that id's length and its start, as every engine names it. A 10 MB agent
    id in a 60 MB file took the app's server past 1 GB, every page and chart repeating it (explorer-defined bound:
    ``max_id_chars``)."""
    problems = []
    for column in ID_COLUMNS:
        ids = runs[column]
        values = pd.Series(ids.cat.categories if isinstance(ids.dtype, pd.CategoricalDtype) else ids).astype("str")
        long = values[values.str.len() > limit]
        if not len(long):
            continue
        # The runs are in the canonical order here, not the file's: the first row is the least source_row (SPEC 1
        # names a refused value's row; a reviewer's 5,000,000-character id had none)
        row, value = None, str(long.iloc[0])
        if "source_row" in runs:
            found = runs.loc[ids.astype("str").isin(set(long)).to_numpy(), ["source_row", column]]
            found = found.dropna(subset=["source_row"])
            if len(found):
                first = found.iloc[int(found["source_row"].to_numpy().argmin())]
                row, value = int(first["source_row"]), str(first[column])
        problems.append(Problem.long_id(row, column, value, limit))
    return problems


# --------------------------------------------------------------------------- reading


def detect_format(name: str) -> str:
    """The format named by a file's extension, or ValueError naming the accepted ones."""
    suffix = Path(name).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"unsupported file type {suffix or '(none)'!r} for {name!r}; expected one of "
            + ", ".join(sorted(FORMATS))
        )
    return FORMATS[suffix]


def _marked_encoding(head: bytes) -> str | None:
    """The encoding a byte order mark at the start of ``head`` names (its codec reads the mark off), or None."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # before UTF-16's, whose mark starts it
        return "utf-32"
    return "utf-16" if head.startswith((b"\xff\xfe", b"\xfe\xff")) else None


def decode_text(data: bytes) -> tuple[str, list[str]]:
    """Decode bytes as UTF-8 (with or without BOM), UTF-16 or UTF-32 (BOM); fall back to Latin-1 with a warning."""
    marked = _marked_encoding(data[:4])
    if marked == "utf-8-sig":
        return data[3:].decode("utf-8", errors="strict"), []
    if marked in ("utf-16", "utf-32"):
        try:
            return data.decode(marked), []
        except UnicodeDecodeError as exc:
            name = marked.upper()
            raise _file_problem(f"the file starts with a {name} mark but is not valid {name} ({exc.reason})") from None
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        bad_line = data[:exc.start].count(b"\n") + 1
        where = f"line {bad_line:,}, byte {exc.start + 1:,}: 0x{data[exc.start]:02X}"
        utf8 = _UTF8_SEQUENCE.search(data)
        if utf8 is not None:  # UTF-8 text beside bytes that are not: Latin-1 would rewrite every accented id
            line = data[:utf8.start()].count(b"\n") + 1
            raise _file_problem(f"the file mixes encodings: {where} is not UTF-8, while line {line:,} holds UTF-8 "
                                "text; read as Latin-1, every accented id of its UTF-8 lines would change (café "
                                "would read cafÃ©). Save the file as UTF-8") from None
        return data.decode("latin-1"), [f"The file is not valid UTF-8 ({where}); it was read as Latin-1."]


# A character past ASCII as UTF-8 writes it: in a file that is not valid UTF-8, the sign of a second encoding.
_UTF8_SEQUENCE = re.compile(rb"[\xC2-\xDF][\x80-\xBF]|[\xE0-\xEF][\x80-\xBF]{2}|[\xF0-\xF4][\x80-\xBF]{3}")


class _Structural:
    """Records that are wrong as a whole (a short CSV line, a JSON Lines line that is not JSON): every
    row number, and the first MAX_PROBLEMS_KEPT of them in words."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.problems: list[Problem] = []

    def add(self, row: int, value: str | None, reason: Reason, column: str | None = None, **fields: Any) -> None:
        self.rows.append(row)
        if len(self.problems) < MAX_PROBLEMS_KEPT:
            self.problems.append(Problem.of(reason, row, column, value, **fields))


def _file_problem(detail: str, column: str | None = None) -> RunsValidationError:
    return RunsValidationError([Problem.of(Reason.FILE, None, column, detail=detail)])


def _read_csv(text: str) -> tuple[pd.DataFrame, np.ndarray, _Structural]:
    if not text.strip():
        raise _file_problem("the file is empty")
    try:
        raw = pd.read_csv(
            io.StringIO(text), dtype=str, keep_default_na=False, header=None, skip_blank_lines=True
        )
    except (pd.errors.ParserError, ValueError):
        raise _file_problem(_unreadable_csv(text)) from None  # our own words: pandas' text names its tokenizer
    header = [str(h) for h in raw.iloc[0].tolist()]
    body = raw.iloc[1:].reset_index(drop=True)
    body.columns = range(body.shape[1])
    # pandas pads a short line with empty cells; a short line is refused instead (nothing is guessed).
    fields = _fields_per_record(text)
    problems = _Structural()
    if len(fields) - 1 == len(body):  # records that cannot be aligned are left to validation
        for i, k in enumerate(fields[1:], start=1):
            if k < len(header):
                problems.add(i, None, Reason.SHORT_LINE, fields=k, header=len(header))
    return _with_header(body.fillna(""), header), np.arange(1, len(body) + 1), problems


class _Lines:
    """The lines of a text for a csv.reader, the last one read kept: whether a record is blank depends on
    its characters as written (``""`` and an empty line both read as one empty field)."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.last = ""

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        self.last = next(self._lines)
        return self.last


def _is_row(fields: list[str], line: str) -> bool:
    """Whether a record a csv.reader read from ``line`` (its last line) is a row, as the CSV readers count rows:
    only a line of nothing but spaces and tabs is blank, as pandas' skip_blank_lines has it (Arrow skips empty
    lines and refuses any other such line, which sends the file to pandas). A line ``""`` or ``" "`` is a row."""
    return len(fields) > 1 or bool(line.rstrip("\r\n").strip(" \t"))


def _unreadable_csv(text: str) -> str:
    """Why the CSV reader gave up, in our words: the first record with more fields than the header (the file line
    it starts on, as a person counts lines, and its row: the n-th record after the header), or a quote never
    closed (the record that opens it runs to the end of the file)."""
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
    lines = _Lines(io.StringIO(text))
    reader = csv.reader(lines)
    header: int | None = None
    row, start, last = 0, 1, "the header (line 1)"
    try:
        for fields in reader:
            if _is_row(fields, lines.last):  # a blank line is skipped, as the reader does
                if header is None:
                    header = len(fields)
                else:
                    row += 1
                    if len(fields) > header:
                        return (f"line {start} (row {row}) has {len(fields)} fields where the header has {header}: "
                                "a comma too many, or a cell holding a comma without quotes around it")
                    last = f"line {start} (row {row})"
            start = reader.line_num + 1
    except csv.Error as error:
        return f"not readable as CSV from line {start} (row {row + 1}): {error}"
    if text.count('"') % 2:
        return f"a quote opened on {last} is never closed: everything after it would be one cell"
    return "not readable as CSV: a record could not be split into cells"


def csv_record_lines(data: bytes, rows: Collection[int]) -> dict[int, int]:
    """The file line (from 1, the header's line, as a person counts them) each of ``rows`` starts on: a row is
    the n-th record after the header, blank lines skipped as the readers skip them, a quoted cell over several
    lines counted whole. Read again only for a refused file's problem rows.

    >>> csv_record_lines(b'h,v\\n\\nr1,1\\n"r\\n2",2\\nr3,3\\n', {1, 2, 3})
    {1: 3, 2: 4, 3: 6}
    """
    if not rows:
        return {}
    try:
        text, _ = decode_text(data)
    except RunsValidationError:
        return {}
    return _record_lines(_Lines(io.StringIO(text)), rows)


# A file the SQL engine refused: its problem rows' lines are read off the file for rows up to this one (a pass of
# Python's csv reader, about a second per million rows); a row further on is said without its line.
LINES_UP_TO_ROW = 5_000_000


def csv_file_record_lines(path: Path, rows: Collection[int], up_to_row: int = LINES_UP_TO_ROW) -> dict[int, int]:
    """:func:`csv_record_lines` of a file on disk, read a line at a time (the SQL engine reads files of any size,
    out of core): the rows up to ``up_to_row``, the file decoded as :func:`decode_text` decodes it (a byte order
    mark, else UTF-8, else Latin-1)."""
    wanted = {r for r in rows if r <= up_to_row}
    if not wanted:
        return {}
    with open(path, "rb") as raw:
        encoding = _marked_encoding(raw.read(4)) or "utf-8"
    for attempt in (encoding, "latin-1"):
        try:
            # newline="\n": lines end at \n only, kept as written, as io.StringIO gives them to csv_record_lines.
            with open(path, encoding=attempt, newline="\n") as text:
                return _record_lines(_Lines(text), wanted)
        except UnicodeError:
            if attempt != "utf-8":
                return {}
    return {}


def _record_lines(lines: _Lines, rows: Collection[int]) -> dict[int, int]:
    """The file line each of ``rows`` starts on, reading ``lines`` (the whole file's, the header first) only as
    far as the last of them."""
    wanted, found = set(rows), dict[int, int]()
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
    reader = csv.reader(lines)
    row, start, last = -1, 1, max(wanted)  # row -1: the header is still to come
    try:
        for fields in reader:
            if _is_row(fields, lines.last):
                row += 1
                if row in wanted:
                    found[row] = start
                if row >= last:
                    break
            start = reader.line_num + 1
    except csv.Error:
        pass
    return found


_CSV_LINE_END = re.compile(r"\r\n?|\n")


def _fields_per_record(text: str) -> list[int]:
    """Fields of each non-blank CSV record; a plain comma count when no cell is quoted (the common case)."""
    if '"' not in text:
        # A blank line is skipped (as the reader skips it); a line of commas is a record of empty cells.
        # Lines end as the CSV reader ends them (\n, \r\n, \r), not as str.splitlines does: it also breaks at
        # U+2028, U+0085 and other characters a cell may hold, and the short-line check was then skipped.
        return [line.count(",") + 1 for line in _CSV_LINE_END.split(text) if line.strip(" \t")]
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))  # pandas read it: so may the counter
    lines = _Lines(io.StringIO(text))
    try:
        return [len(r) for r in csv.reader(lines) if _is_row(r, lines.last)]
    except csv.Error as exc:
        raise _file_problem(f"not readable as CSV: {exc}") from None




def _check_text_shape(data: bytes | mmap.mmap, fmt: str, limits: Limits) -> int:
    """Refuse a text file before decoding it: a line longer than allowed, or (CSV) too many columns.

    SPEC 1 has nine columns and a run is a short record: a 2,000,000-column header or a 200 MB
    line is an attack on the parser's memory, not data. Returns the newlines counted on the way (the row
    bound's count).
    """
    # Binary content (an image, an archive, random bytes renamed .csv) would reach the reader as Latin-1 and fail
    # in its words ("new-line character seen in unquoted field"); one stray NUL would end up inside an id. A NUL
    # byte anywhere says what it is (before, only in the first 8 KiB: a later one became part of an id).
    nul = nul_byte(data)
    if nul is not None:
        raise _file_problem(f"a NUL byte at {nul}, which no text holds (binary content?): a {fmt.upper()} runs file "
                            "is UTF-8 text")
    longest, newlines = _longest_line(data)
    if longest > limits.max_line_bytes:
        raise _file_problem(f"a line is {format_size(longest)} long, more than the limit of "
                            f"{format_size(limits.max_line_bytes)}; refused before reading")
    if fmt != "csv":
        return newlines
    end = data.find(b"\n")
    first = data[:len(data) if end < 0 else end]  # bytes, from bytes or a memory map
    columns = first.count(b",") + 1  # an upper bound; exact unless a quoted header name holds a comma
    if columns > limits.max_columns and b'"' in first:
        columns = len(next(csv.reader([first.decode("latin-1")]), []))
    if columns > limits.max_columns:
        raise _file_problem(column_limit_refusal(columns, limits.max_columns, "header"))
    return newlines


def _longest_line(data: bytes | mmap.mmap, chunk: int = 1 << 18) -> tuple[int, int]:
    """(bytes in the longest line, newlines), from the newline positions (numpy, 256 KiB at a time: no copy of
    the lines and a few MB of positions whatever the file holds; the row bound reads the count, so the text is
    scanned once for both)."""
    longest, line_start, newlines = 0, 0, 0
    for offset in range(0, len(data), chunk):
        block = np.frombuffer(data, dtype=np.uint8, count=min(chunk, len(data) - offset), offset=offset)
        ends = np.flatnonzero(block == 10)  # positions in the block
        if len(ends):
            newlines += len(ends)
            between = int(np.diff(ends).max()) - 1 if len(ends) > 1 else 0  # lines that start in the block
            longest = max(longest, offset + int(ends[0]) - line_start, between)
            line_start = offset + int(ends[-1]) + 1
    return max(longest, len(data) - line_start), newlines


def _with_header(body: pd.DataFrame, header: list[str]) -> pd.DataFrame:
    names = [normalize_column_name(h) for h in header]
    seen: dict[str, str] = {}
    for original, name in zip(header, names):
        if name in seen:
            raise RunsValidationError([Problem.of(Reason.DUPLICATE_COLUMN, None, name, first=seen[name],
                                                  second=original, name=name)])
        seen[name] = original
    body.columns = names
    return body


class _RecordColumns:
    """JSON records gathered as they are read: each record's values are kept as one tuple, in a block of the
    records before it that gave the same keys in the same order, and the record itself is let go, so a JSON
    Lines file's records are never all held as dicts (a dict and its own key texts cost about 1 KB a run beside
    its values). :meth:`frame` turns each block's tuples into columns at once and builds the frame
    ``pd.DataFrame.from_records`` would build from the same records (a key a record lacks is NaN there, as in
    from_records; a test compares the two on any records). A record that is no object, or that repeats a key, is
    refused by its row (its values dropped), and more distinct keys than ``limits.max_columns`` refuse the file
    once every record is read, naming their number."""

    def __init__(self, problems: _Structural, limits: Limits = DEFAULT_LIMITS, outer: int | None = 0):
        self.problems, self.limits = problems, limits
        # The levels of the document around each record (a JSON Lines record: 0; an array's: 1; {"runs": [...]}'s:
        # 2): the nesting limit (max_json_depth) counts the whole document, as a harness's file is counted. None:
        # records that were never JSON text (runs_from_records), to which no nesting limit applies.
        self.outer = outer
        self.keys: dict[str, None] = {}  # every key, in the order a record first gave it
        self.blocks: list[tuple[tuple[str, ...], list[tuple[Any, ...]]]] = []  # (keys, each record's values)
        self.rows: list[int] = []
        self.not_objects: list[tuple[int, str]] = []  # (row, preview): said before the repeated keys, row by row
        self.repeats: list[tuple[int, str]] = []  # (row, key)

    def add(self, record: object, row: int) -> None:
        self.rows.append(row)
        if not isinstance(record, dict):
            self.not_objects.append((row, _preview(record)))
            record = {}
        elif repeated_keys(record):
            # As a file that names a column twice, for this record: refused by its row, its columns kept (a file
            # whose every record repeats a key is not a file without columns).
            self.repeats += [(row, key) for key in repeated_keys(record)]
        keys = tuple(record)
        if not self.blocks or self.blocks[-1][0] != keys:
            self.keys.update(dict.fromkeys(keys))
            if len(self.keys) > self.limits.max_columns:  # refused in frame(): no value (nor key order) kept past it
                self.blocks.append(((), []))
                return
            self.blocks.append((keys, []))
        elif len(self.keys) > self.limits.max_columns:
            return
        self.blocks[-1][1].append(tuple(record.values()))

    def frame(self) -> tuple[pd.DataFrame, np.ndarray, _Structural]:
        if len(self.keys) > self.limits.max_columns:  # one column per distinct key: none is built
            raise _file_problem(f"the runs have {len(self.keys):,} distinct keys, more than the limit of "
                                f"{self.limits.max_columns:,} columns")
        for row, preview in self.not_objects:
            self.problems.add(row, preview, Reason.NOT_AN_OBJECT)
        for row, key in self.repeats:
            self.problems.add(row, key, Reason.DUPLICATE_COLUMN, first=key, second=key, name=key)
        columns: dict[str, list[Any]] = {key: [] for key in self.keys}
        start = 0  # the first row of the block
        self.blocks.reverse()  # taken from the end, each let go once its values are in the columns
        while self.blocks:
            keys, values = self.blocks.pop()
            for j, key in enumerate(keys):  # one column at a time, in C (zip(*values): 3.5x the time)
                column = columns[key]
                if len(column) < start:  # the rows since this key was last given lack it: NaN, as from_records
                    column.extend([np.nan] * (start - len(column)))
                column.extend(map(itemgetter(j), values))
            start += len(values)
            del values
        n = len(self.rows)
        for column in columns.values():
            column.extend([np.nan] * (n - len(column)))
        index = pd.RangeIndex(n)
        # index= keeps one row per record even when the records have no keys at all.
        frame = (pd.DataFrame({key: pd.Series(columns.pop(key), index=index) for key in list(columns)}, index=index)
                 if n else pd.DataFrame(columns=list(REQUIRED_COLUMNS)))
        self._refuse_deep_records(frame)
        rows = np.asarray(self.rows, dtype=np.int64)  # whole numbers when there is no record too
        return _with_header(frame, [str(c) for c in frame.columns]), rows, self.problems

    def _refuse_deep_records(self, frame: pd.DataFrame) -> None:
        """Refuse by its row each record that nests deeper than max_json_depth, counting the document around it
        (its deepest value's column named): a list or object value can only be in a column of objects, and only a
        column whose cells' types include a container is looked through cell by cell."""
        if self.outer is None:
            return
        limit = self.limits.max_json_depth
        deep: dict[int, tuple[str, int]] = {}  # position -> (column, depth) of its deepest value past the limit
        for name in frame.columns:
            if frame[name].dtype != object:
                continue
            values = frame[name].to_numpy()
            if not any(issubclass(kind, (dict, list)) for kind in {*map(type, values)}):  # the types, at C speed
                continue
            for i, value in enumerate(values):
                if isinstance(value, (dict, list)):
                    depth = self.outer + 1 + nesting(value)  # the record's object, then the value's levels
                    if depth > limit and depth > deep.get(i, ("", 0))[1]:
                        deep[i] = (str(name), depth)
        for i in sorted(deep):
            self.problems.add(self.rows[i], None, Reason.NESTED_TOO_DEEP, deep[i][0], depth=deep[i][1], limit=limit)


def _records_frame(records: list, rows: np.ndarray, problems: _Structural,
                   limits: Limits = DEFAULT_LIMITS, outer: int | None = 1) -> tuple:
    """The frame of in-memory records (each let go from ``records`` as it is gathered: a JSON array's dicts
    are freed as their columns grow), numbered by ``rows``; ``outer``: the levels of the document around each."""
    columns = _RecordColumns(problems, limits, outer)
    for i in range(len(records)):
        record, records[i] = records[i], None
        columns.add(record, int(rows[i]))
    return columns.frame()


def _preview(value: object) -> str:
    return json.dumps(value, default=str)[:200]


def _json_value(text: str) -> object:
    """json.loads with NaN / Infinity kept as text (validation refuses them as non-finite numbers), and so a decimal
    past the largest double (``1e999``) and a whole number past Python's digit limit for ``int()``: refused quoting
    the file's text, not 'inf'; and an object
    that repeats a key marked (``safejson.RepeatedKeys``: the record is refused as a CSV header naming a column
    twice is, never read with one of its values dropped)."""
    if text.startswith("\ufeff"):  # as json.loads says it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    # One decoder for every line of a JSON Lines file (json.loads builds one a call: 500,000 lines, 0.7 s).
    return _DECODERS[bool(SURROGATE_ESCAPE.search(text))].decode(text)



def _with_lone_surrogates_as_bytes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    r"""``object_noting_repeats``, with a text holding a lone UTF-16 surrogate (``"a\ud800"``, no character: no
    Unicode text can hold it) as its bytes, which the loader refuses as it refuses any bytes that are not UTF-8 text
    (its row, its column, the value shown escaped), and a key holding one spelled with that escape. Before, such
    a text stopped the whole read with a bare ``UnicodeEncodeError`` (exit 1, the app's error page).

    >>> _with_lone_surrogates_as_bytes([("agent_id", "a\ud800"), ("n\udc00", "ok")])
    {'agent_id': b'a\xed\xa0\x80', 'n\\xed\\xb0\\x80': 'ok'}
    """
    def bytes_of(text: str) -> bytes:
        return text.encode("utf-8", "surrogatepass")

    return object_noting_repeats([
        (bytes_of(k).decode("utf-8", "backslashreplace") if LONE_SURROGATE.search(k) else k,
         bytes_of(v) if isinstance(v, str) and LONE_SURROGATE.search(v) else v) for k, v in pairs])


class NotFinite:
    """A cell that was no finite number: JSON's ``NaN``/``Infinity`` literal or a floating-point NaN, read as its
    text (``str``) wherever a cell is read as text. A number column refuses that text as not finite; an id column
    refuses the cell too, where a text "NaN" is an id. Not a ``str``: a column of them stays one of objects, where
    pandas would turn a ``str`` subclass into a plain string."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"NotFinite({self.text!r})"


def _int_or_text(text: str) -> int | str:
    """A JSON whole number as an int, or its text past the digit limit (``safejson.parse_int`` reads it as
    infinity): a number column refuses it as not finite quoting the digits, as a CSV's cell; an id reads as its
    digits, as any whole-number id does.

    >>> _int_or_text("12"), _int_or_text("9" * 5000) == "9" * 5000
    (12, True)
    """
    if len(text) <= 640:  # within any digit limit Python allows (640 at least): int() at once, no second call
        return int(text)
    value = parse_int(text)
    return value if isinstance(value, int) else text


def _finite_or_text(text: str) -> float | str:
    """A JSON decimal as a double, or its text where no double holds it.

    >>> _finite_or_text("1e999"), _finite_or_text("2.5")
    ('1e999', 2.5)
    """
    value = float(text)
    return value if math.isfinite(value) else text


# json.loads's decoders of _json_value: without and with a lone UTF-16 surrogate escape in the text.
_DECODERS = {surrogates: json.JSONDecoder(
    parse_constant=NotFinite, parse_int=_int_or_text, parse_float=_finite_or_text,
    object_pairs_hook=_with_lone_surrogates_as_bytes if surrogates else object_noting_repeats)
    for surrogates in (False, True)}


def _read_json(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[pd.DataFrame, np.ndarray, _Structural]:
    if not text.strip():
        raise _file_problem("the file is empty")
    try:
        doc = _json_value(text)
    except json.JSONDecodeError as exc:
        raise _file_problem(f"not valid JSON: {decode_error_words(exc)}") from None
    except RecursionError:  # deeper than Python's parser goes: measured on the text, which is refused
        depth = json_depth(text.encode("utf-8", "surrogatepass"))
        raise _file_problem(too_deep(depth, limits.max_json_depth)) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python reads
        raise _file_problem(f"not valid JSON: {exc}") from None
    if isinstance(doc, dict) and "runs" in repeated_keys(doc):  # json keeps the last: the rest would be lost
        raise _file_problem('the object gives "runs" more than once: a reader could see either list, so none is read')
    outer = 1  # the array around each record
    if isinstance(doc, dict) and isinstance(doc.get("runs"), list):
        # The object's other values are no run's: past the nesting limit, the file is refused for them.
        rest = nesting({key: value for key, value in doc.items() if key != "runs"})
        if rest > limits.max_json_depth:
            raise _file_problem(too_deep(rest, limits.max_json_depth))
        doc, outer = doc["runs"], 2
    if not isinstance(doc, list):
        raise _file_problem('expected a JSON array of runs or an object {"runs": [...]}')
    if len(doc) > limits.max_rows:
        raise _too_many_rows(len(doc), limits)
    return _records_frame(doc, np.arange(1, len(doc) + 1), _Structural(), limits, outer)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    r"""(number, line) of each line of ``text`` as ``text.split("\n")`` gives them, one at a time (no list of
    every line beside the text).

    >>> list(_lines("a\nb\n")), list(_lines(""))
    ([(1, 'a'), (2, 'b'), (3, '')], [(1, '')])
    """
    start, number = 0, 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        number += 1
        yield number, text[start:end]
        start = end + 1


def _read_jsonl(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[pd.DataFrame, np.ndarray, _Structural]:
    problems = _Structural()
    columns = _RecordColumns(problems, limits, outer=0)  # each line its own document
    # JSON Lines end at \n (a \r before it is JSON whitespace); str.splitlines also breaks at U+2028, U+2029,
    # U+0085 and more, which json.dumps(ensure_ascii=False) writes raw inside strings: a valid file was refused.
    for number, line in _lines(text):
        if not line.strip():
            continue
        try:
            record = _json_value(line)
        except json.JSONDecodeError as exc:
            problems.add(number, line[:200], Reason.NOT_JSON, detail=exc.msg)
            record = {}
        except RecursionError:  # deeper than Python's parser goes: measured on the line's text
            depth = json_depth(line.encode("utf-8", "surrogatepass"))
            problems.add(number, line[:200], Reason.NESTED_TOO_DEEP, depth=depth, limit=limits.max_json_depth)
            record = {}
        except ValueError as exc:
            problems.add(number, line[:200], Reason.NOT_JSON, detail=exc)
            record = {}
        columns.add(record, number)
    if not columns.rows:
        raise _file_problem("the file is empty")
    if len(problems.rows) == len(columns.rows):  # no line is JSON: no column can be judged, nor any row kept
        raise RunsValidationError(problems.problems, rows_read=len(columns.rows), total=len(problems.rows),
                                  invalid_rows=len(problems.rows), can_exclude=False)
    return columns.frame()


def _too_many_rows(rows: int, limits: Limits, *, about: bool = False) -> RunsValidationError:
    return _file_problem(row_limit_refusal(rows, limits.max_rows, about=about, before_reading=True))


def _parquet_plan(parquet: Any, limits: Limits, wanted: Collection[str] = READ_COLUMNS) -> list[str]:
    """The columns to read from a Parquet file, after checking its metadata against the limits.

    Only the SPEC 1 and pass-through columns are read (other columns are ignored, so nothing hidden in them is
    ever decoded). Row count, column count and the uncompressed size of the chosen columns come
    from the footer, before any page is decompressed.
    """
    meta = parquet.metadata
    if meta.num_rows > limits.max_rows:
        raise _too_many_rows(meta.num_rows, limits)
    if meta.num_columns > limits.max_columns:
        raise _file_problem(column_limit_refusal(meta.num_columns, limits.max_columns))
    names = parquet.schema_arrow.names
    chosen = [n for n in names if normalize_column_name(n) in wanted]
    # Leaf columns (a nested column has several) whose top-level field is one of the chosen ones.
    leaves = [i for i in range(meta.num_columns) if parquet.schema.column(i).path.split(".")[0] in chosen]
    size = sum(meta.row_group(g).column(i).total_uncompressed_size
               for g in range(meta.num_row_groups) for i in leaves)
    _check_decoded(size, limits, "its columns need")
    return chosen


def _check_decoded(size: int, limits: Limits, what: str = "the runs need") -> None:
    if size > limits.max_memory:
        raise _file_problem(f"{what} {format_size(size)} decoded, more than the memory budget of "
                            f"{format_size(limits.max_memory)}; refused before reading it all")


def _decoded_size(column: pa.Array | pa.ChunkedArray) -> int:
    """Bytes a column takes once decoded: a dictionary-encoded text column counts every row's text."""
    if isinstance(column, pa.ChunkedArray):
        return sum(_decoded_size(chunk) for chunk in column.chunks)
    if pa.types.is_dictionary(column.type):
        values = column.dictionary
        per_value = (pc.binary_length(values) if pa.types.is_string(values.type) or pa.types.is_binary(values.type)
                     or pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
                     else None)
        if per_value is None:
            return column.nbytes
        lengths = pc.take(pc.fill_null(per_value, 0), column.indices)
        return int(pc.sum(lengths).as_py() or 0) + 8 * len(column)
    return column.nbytes


_ROWS_PER_READ = 1 << 20  # row groups read together, up to this many rows (a group larger than it alone)


def _row_group_batches(rows: list[int], most: int = _ROWS_PER_READ) -> list[list[int]]:
    """Consecutive row groups (their rows given) read as one: groups of a row each were read one Python call
    apiece (50,000 of them took 35 s of CPU), and each would stay a chunk of every column the checks read.

    >>> _row_group_batches([10, 10, 10, 5], most=20)
    [[0, 1], [2, 3]]
    >>> _row_group_batches([30, 1, 30], most=20)
    [[0], [1], [2]]
    """
    batches: list[list[int]] = []
    total = 0
    for group, n in enumerate(rows):
        if batches and total + n <= most:
            batches[-1].append(group)
            total += n
        else:
            batches.append([group])
            total = n
    return batches


def _read_parquet(source: Any, limits: Limits = DEFAULT_LIMITS, wanted: Collection[str] = ()) -> pa.Table:
    """Read a Parquet file within the memory budget: footer checks first, then batch by batch.

    Text columns the file dictionary-encodes are read as dictionaries, so a column that repeats one
    long string (a few kilobytes on disk, gigabytes decoded) is measured from its dictionary and
    refused before it is ever expanded. The table keeps them encoded (ids are validated on their
    distinct values, and only the checks that need the text expand it); the
    column names are normalized (SPEC 1 spellings), and a duplicate name is refused.
    """
    import pyarrow.parquet as pq

    try:
        probe = pq.ParquetFile(source)
        chosen = _parquet_plan(probe, limits, wanted or READ_COLUMNS)
        # Dictionary-encoded text is the decompression bomb: read it as a dictionary, so its decoded size is
        # known before it is expanded. Plain-encoded text is as large as the footer says (checked above).
        meta = probe.metadata

        def encoded(j: int) -> bool:  # whether a row group dictionary-encodes leaf column j (the first usually says)
            return any("DICTIONARY" in e for g in range(meta.num_row_groups)
                       for e in meta.row_group(g).column(j).encodings)

        leaf = {meta.schema.column(j).path: j for j in range(meta.num_columns)}
        text = [f.name for f in probe.schema_arrow if f.name in chosen and (
            pa.types.is_string(f.type) or pa.types.is_large_string(f.type) or pa.types.is_binary(f.type)
            or pa.types.is_large_binary(f.type)) and f.name in leaf and encoded(leaf[f.name])]
        # The footer parsed once: a file of many row groups has a large one (50,000 groups of a row: 45 MB on disk,
        # about 400 MB parsed).
        parquet = pq.ParquetFile(source, read_dictionary=text, metadata=meta) if text else probe
        batches, decoded, read = [], 0, 0
        # A batch of row groups at a time: text stays dictionary-encoded until its decoded size is known.
        for groups in _row_group_batches([meta.row_group(g).num_rows for g in range(meta.num_row_groups)]):
            batch = parquet.read_row_groups(groups, columns=chosen).combine_chunks()
            decoded += sum(_decoded_size(c) for c in batch.columns)
            read += batch.num_rows
            if decoded > limits.max_memory:
                raise _file_problem(f"the first {read:,} of {probe.metadata.num_rows:,} rows already take "
                                    f"{format_size(decoded)} decoded, more than the memory budget of "
                                    f"{format_size(limits.max_memory)}; refused before reading the rest")
            batches.append(batch)
        # Within the budget. Encoded text stays encoded (the checks work on its distinct values); the
        # batches' dictionaries are unified into one per column.
        table = (pa.concat_tables(batches).unify_dictionaries() if batches
                 else parquet.schema_arrow.empty_table().select(chosen))
        del batches  # the row groups stay chunks of the table: the checks read them in turn, nothing is combined
    except RunsValidationError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise _file_problem(f"not readable as Parquet: {exc}") from None
    names = [str(c) for c in table.column_names]
    _with_header(pd.DataFrame(columns=range(len(names))), names)  # refuses a duplicate column name
    return _dates_as_instants(_utf8_or_bytes(table).rename_columns([normalize_column_name(n) for n in names]))


def _dates_as_instants(table: pa.Table) -> pa.Table:
    """``table`` with a date ``finished_at`` as the instant of its midnight in UTC (a timestamp in seconds), as the
    SQL engines read a DATE: a day past the grammar's years (a date32 holds the year 5,000,000) is then refused at
    its row as a typed timestamp is, where Python's date stopped the whole file without a row ("year 10000 is out
    of range")."""
    if "finished_at" not in table.column_names:
        return table
    column = table.column("finished_at")
    if not pa.types.is_date(column.type):
        return table
    unit = "s" if pa.types.is_date32(column.type) else "ms"
    return table.set_column(table.column_names.index("finished_at"), "finished_at",
                            column.cast(pa.timestamp(unit)))


def _utf8_or_bytes(table: pa.Table) -> pa.Table:
    """``table`` with each text column that holds bytes that are not UTF-8 read as bytes, as a binary column is.

    Parquet's string type promises UTF-8 and its writers do not all keep the promise: such a column stopped every
    check with Arrow's "Invalid UTF8 sequence". Read as bytes, each bad cell is refused at its row and column
    (``nested``, shown escaped) and each good one reads as its text. Arrow's validation of every text column, about
    25 ms at 1,000,000 runs (a dictionary-encoded one on its distinct values).
    """
    for i, typed in enumerate(table.schema):
        kind = typed.type.value_type if pa.types.is_dictionary(typed.type) else typed.type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            continue
        column = table.column(i)
        try:
            for chunk in column.chunks:
                (chunk.dictionary if pa.types.is_dictionary(typed.type) else chunk).validate(full=True)
        except pa.ArrowInvalid:
            as_bytes = pa.large_binary() if pa.types.is_large_string(kind) else pa.binary()
            if pa.types.is_dictionary(typed.type):
                chunks = [pa.DictionaryArray.from_arrays(c.indices, c.dictionary.view(as_bytes)) for c in column.chunks]
                kind = pa.dictionary(typed.type.index_type, as_bytes)
            else:
                chunks, kind = [c.view(as_bytes) for c in column.chunks], as_bytes
            table = table.set_column(i, typed.with_type(kind), pa.chunked_array(chunks, type=kind))
    return table


def _legacy_series(column: pa.Array) -> pd.Series:
    """One Arrow column as the per-cell parsers read it: text expanded, a floating NaN as the text 'NaN'
    (so that it is refused as non-finite rather than read as an empty cell, which a Parquet null is)."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_timestamp(column.type) and arrow_runs.typed_outside_the_grammar(column).any():
        # A value no microsecond timestamp holds (the year 318,857): each cell as text, that one refused at its row.
        return pd.Series(arrow_runs.timestamp_texts(column), dtype=object)
    try:
        series = column.to_pandas()
    except (pa.ArrowException, ValueError, TypeError, UnicodeDecodeError) as exc:
        raise _file_problem(f"not readable as runs: {exc}") from None
    if pa.types.is_floating(column.type):
        nan = pc.fill_null(pc.is_nan(column), False).to_numpy(zero_copy_only=False)
        if nan.any():
            series = series.astype(object)
            series[nan] = NotFinite("NaN")
    return series


def _legacy_frame(table: pa.Table) -> pd.DataFrame:
    """The whole table as the per-cell parsers read it (for the generic column mapping)."""
    return pd.DataFrame({name: _legacy_series(arrow_runs.column_arrays(table)[name]) for name in table.column_names})


@dataclass(frozen=True)
class RawRuns:
    """A runs file as read, before validation: its table (columns under their SPEC 1 names), the source
    row of each record, the records refused as a whole (the first few in words, every row number) and
    the reader's warnings."""

    rows: np.ndarray | None  # None for a table Arrow read whole, whose record i is row i + 1 (file_rows())
    problems: tuple[Problem, ...]
    problem_rows: tuple[int, ...]
    warnings: tuple[str, ...]
    format: str
    table: pa.Table | None = None  # a CSV or Parquet file Arrow read: the fast path
    cells: pd.DataFrame | None = None  # any other file, read cell by cell

    @property
    def frame(self) -> pd.DataFrame:
        """The table as a pandas frame of cells (for a column mapping applied before validation)."""
        return self.cells if self.cells is not None else _legacy_frame(self.table)

    def __len__(self) -> int:
        if self.rows is not None:
            return len(self.rows)
        return len(self.table) if self.table is not None else 0

    def file_rows(self) -> np.ndarray:
        """The file row of each record (1-based), made here where ``rows`` is None."""
        return self.rows if self.rows is not None else np.arange(1, len(self) + 1)

    def validate(self, source: str, *, exclude_invalid: bool = False) -> LoadedRuns:
        """The one validator (SPEC 1) on this table."""
        if self.table is not None:
            return validate_table(self.table, source=source, format=self.format, exclude_invalid=exclude_invalid,
                                  warnings=list(self.warnings))
        return validate_runs(self.cells, rows=self.rows, source=source, format=self.format,
                             exclude_invalid=exclude_invalid, prior_problems=list(self.problems),
                             prior_rows=self.problem_rows, warnings=list(self.warnings))


def read_runs(source: str | Path | bytes | BinaryIO, *, name: str | None = None, format: str | None = None,
              limits: Limits = DEFAULT_LIMITS, columns: Collection[str] = ()) -> RawRuns:
    """Read a runs file (CSV, JSON, JSON Lines or Parquet) within ``limits``, without validating it.

    The reading half of :func:`load_runs`, for readers that map columns before validation (the
    importers' generic mapping). ``columns`` (normalized names) are the columns a Parquet file is read
    for, the SPEC 1 and pass-through columns by default: nothing else is ever decoded. Raises RunsValidationError for a
    file that cannot be read at all or that exceeds a limit.
    """
    path = Path(source) if isinstance(source, (str, Path)) else None
    name = name or (path.name if path else None) or "input"
    special = special_file(path) if path is not None else None
    if special:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=special_file_reason(path, special))], source=name)
    try:
        fmt = format or detect_format(name)
    except ValueError as exc:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=str(exc))], source=name) from None
    try:
        warnings: list[str] = []
        table: pa.Table | None = None
        if fmt == "parquet":
            table = _read_parquet(str(path) if path else _binary(source), limits, columns)
        elif fmt == "csv" and path is not None and (table := _read_csv_file(path, limits, columns)) is not None:
            pass  # Arrow read the file itself, checked first through a memory map: its bytes were never held
        else:
            data = _read_bytes(path, source, limits)
            _check_rows(data, fmt, limits, _check_text_shape(data, fmt, limits))
            if fmt == "csv":  # Arrow reads a well-formed file; anything odd is read as text, cell by cell
                table = arrow_runs.read_csv_table(data, columns or READ_COLUMNS)
            if table is None:
                text, warnings = decode_text(data)
                del data
                if fmt == "csv":
                    raw, rows, problems = _read_csv(text)
                elif fmt == "json":
                    raw, rows, problems = _read_json(text, limits)
                else:
                    raw, rows, problems = _read_jsonl(text, limits)
    except RunsValidationError as exc:  # the file named, the reader's counts kept
        raise RunsValidationError(exc.problems, source=name, rows_read=exc.rows_read, total=exc.total,
                                  invalid_rows=exc.invalid_rows, can_exclude=exc.excludable) from None
    count = len(table) if table is not None else len(raw)
    if count == 0:
        raise RunsValidationError([Problem.of(Reason.FILE, detail="the file has no runs")], source=name)
    if count > limits.max_rows:
        raise RunsValidationError([_too_many_rows(count, limits).problems[0]], source=name)
    if table is not None:
        return RawRuns(None, (), (), tuple(warnings), fmt, table=table)
    return RawRuns(np.asarray(rows), tuple(problems.problems), tuple(problems.rows), tuple(warnings), fmt, cells=raw)


def load_runs(
    source: str | Path | bytes | BinaryIO,
    *,
    name: str | None = None,
    format: str | None = None,
    exclude_invalid: bool = False,
    max_rows: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> LoadedRuns:
    """Load a runs file (CSV, JSON, JSON Lines or Parquet) into the canonical frame.

    Parameters
    ----------
    source : path, bytes or binary file
    name : str, optional
        Display name; its extension picks the format when ``format`` is not given.
    format : {"csv", "json", "jsonl", "parquet"}, optional
    exclude_invalid : bool
        Drop invalid rows instead of refusing the file; the count is reported.
    max_rows : int, optional
        Shorthand for ``limits.max_rows``.
    limits : Limits
        Rows, decoded memory, columns, line length and JSON depth allowed; checked before parsing.

    Raises
    ------
    RunsValidationError
        Listing every problem found (row, column, value, reason), or the limit a file exceeds.
    """
    if max_rows is not None:
        limits = replace(limits, max_rows=max_rows)
    path = Path(source) if isinstance(source, (str, Path)) else None
    name = name or (path.name if path else None) or "input"
    raw = read_runs(source, name=name, format=format, limits=limits)
    fmt = raw.format
    try:
        if raw.table is None:
            return raw.validate(name, exclude_invalid=exclude_invalid)
        finish = checked_table(raw.table, source=name, format=fmt, exclude_invalid=exclude_invalid,
                               warnings=list(raw.warnings))
        # The canonical frame is built from the checked columns alone: the file's Arrow table (and the memory
        # Arrow's allocator kept from reading it) is given back first, so the two never peak together.
        del raw
        pa.default_memory_pool().release_unused()
        return finish()
    except RunsValidationError as error:
        data = path.read_bytes() if path is not None else source if isinstance(source, bytes) else None
        if fmt != "csv" or data is None:
            raise
        raise error.with_lines(csv_record_lines(data, error.problem_rows)) \
            from None


def _binary(source: Any) -> io.BytesIO:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(source)
    return source


def _read_csv_file(path: Path, limits: Limits, columns: Collection[str]) -> pa.Table | None:
    """A CSV file on disk read by Arrow from the file itself (None: read its bytes, as for an upload).

    The bounds on lines, columns and rows are checked on a read-only memory map of the file, whose pages are
    given back when it is closed, and Arrow then reads the same open file: at 10,000,000 runs the 843 MB of
    text are never held beside the table. UTF-16 files (and any file Arrow does not read) take the text reader.
    """
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size == 0 or _marked_encoding(file.read(4)) in ("utf-16", "utf-32"):
                return None
            _check_decoded(size, limits, "its text needs")
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                _check_rows(data, "csv", limits, _check_text_shape(data, "csv", limits))
                end = data.find(b"\n")
                head, quoted = data[:size if end < 0 else end + 1], data.find(b'"') >= 0
            file.seek(0)
            table = arrow_runs.read_csv_table(head, columns or READ_COLUMNS, source=file, quoted=quoted)
    except RunsValidationError:  # a bound the checks refused: said as for an upload
        raise
    except (OSError, ValueError) as exc:  # unreadable, or a file mmap refuses
        raise _file_problem(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    pa.default_memory_pool().release_unused()  # the reader's blocks: 1.2 GB kept by the allocator at 10M runs
    return table


def _read_bytes(path: Path | None, source: Any, limits: Limits) -> bytes:
    """The file's bytes, refused first when the text alone would exceed the memory budget."""
    if path is not None:
        try:
            size = path.stat().st_size
            if size > limits.max_memory:
                _check_decoded(size, limits, "its text needs")
            return path.read_bytes()
        except OSError as exc:
            raise _file_problem(f"cannot read {path}: {exc.strerror}") from None
    data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else source.read()
    _check_decoded(len(data), limits, "its text needs")
    return data


def _check_rows(data: bytes | mmap.mmap, fmt: str, limits: Limits, newlines: int | None = None) -> None:
    """Refuse a file with too many rows before parsing it (a cheap upper bound, not a full read). ``newlines``
    is the count :func:`_check_text_shape` found, when it was asked first."""
    if fmt not in ("csv", "jsonl"):
        return
    rows = ((_newlines(data) if newlines is None else newlines) + (0 if data[-1:] == b"\n" else 1)
            - (1 if fmt == "csv" else 0))
    if isinstance(data, bytes) and data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # (a mapped file is never UTF-16)
        rows = data.count(b"\n\x00") + data.count(b"\x00\n")  # UTF-16: count encoded newlines
    if rows > limits.max_rows:
        raise _too_many_rows(rows, limits, about=True)


def _newlines(data: bytes | mmap.mmap, chunk: int = 1 << 24) -> int:
    """Newline bytes in ``data`` (bytes count them; a memory map, which has no count, chunk by chunk)."""
    if isinstance(data, bytes):
        return data.count(b"\n")
    return sum(int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8, count=min(chunk, len(data) - offset),
                                                  offset=offset) == 10))
               for offset in range(0, len(data), chunk))


def runs_from_records(records: Iterable[dict], *, exclude_invalid: bool = False) -> pd.DataFrame:
    """Validate in-memory records (dicts with the SPEC 1 columns) into the canonical frame.

    Records whose columns each hold one plain type (text, booleans, small whole numbers or floats, and
    None) are validated as an Arrow table by :func:`validate_table`, whose checks accept exactly what the
    per-cell parsers accept; anything else, and any record set those checks refuse, is validated cell by
    cell, so a refusal's report is always the per-cell one (a test compares the two paths)."""
    records = list(records)
    table = _plain_records_table(records)
    if table is not None:
        try:
            return validate_table(table, source="records", format="records").runs
        except RunsValidationError:
            pass  # the per-cell validator reports it (or excludes the rows, on request)
    return _runs_from_records_by_cell(records, exclude_invalid=exclude_invalid)


_EXACT_2_53 = 2**53
_PLAIN_TYPES = (str, bool, int, float)


def _plain_records_table(records: list, limits: Limits = DEFAULT_LIMITS) -> pa.Table | None:
    """The records as an Arrow table of the columns the validator reads, when every record is a dict with text
    keys and every such column holds one plain type (str, bool, int within 2^53, or float; None and NaN are
    empty cells, as pandas reads them), else None (the per-cell path reads them)."""
    if not records or any(type(r) is not dict for r in records):
        return None
    keys: dict[Any, None] = {}
    for record in records:
        keys.update(dict.fromkeys(record))
    if len(keys) > limits.max_columns or any(type(k) is not str for k in keys):
        return None
    names = [normalize_column_name(k) for k in keys]
    if len(set(names)) != len(names):
        return None  # the per-cell path refuses the duplicate column
    arrays, wanted = [], []
    for key, name in zip(keys, names):
        if name not in READ_COLUMNS:
            continue  # neither validator reads it
        values = [r.get(key) for r in records]
        kinds = {type(v) for v in values} - {type(None)}
        if len(kinds) > 1 or not kinds <= set(_PLAIN_TYPES):
            return None
        kind = next(iter(kinds), str)
        if kind is int and any(abs(v) > _EXACT_2_53 for v in values if v is not None):
            return None
        try:
            arrays.append(pa.array(values, type={str: pa.string(), bool: pa.bool_(), int: pa.int64(),
                                                 float: pa.float64()}[kind], from_pandas=True))
        except (pa.ArrowException, ValueError, TypeError, UnicodeError):
            return None  # e.g. a lone surrogate in a text cell
        wanted.append(name)
    return pa.table(arrays, names=wanted)


def _runs_from_records_by_cell(records: list, *, exclude_invalid: bool = False) -> pd.DataFrame:
    """:func:`runs_from_records` cell by cell (the reference the Arrow path is compared with)."""
    # A copy: _records_frame lets each record go from the list it is given, and the caller's list is the caller's.
    raw, rows, problems = _records_frame(list(records), np.arange(1, len(records) + 1), _Structural(), outer=None)
    return validate_runs(raw, rows=rows, source="records", format="records",
                         exclude_invalid=exclude_invalid, prior_problems=problems.problems,
                         prior_rows=problems.rows).runs


# --------------------------------------------------------------------------- validation


def _cell_text(v: object) -> str | None:
    if v is None or isinstance(v, str):
        return v
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, bytes):
        return v.decode("utf-8")  # undecodable bytes were masked by _nested
    return str(v)


def _text(col: pd.Series) -> pd.Series:
    """Cells as stripped text with missing/blank cells as NA."""
    if ptypes.is_bool_dtype(col):
        out = col.map({True: "true", False: "false"})
    elif col.dtype == object:
        out = col.map(_cell_text)
    else:
        out = col
    out = out.astype("str").str.strip()
    return out.mask(out == "")


def _ascii_lower(text: pd.Series) -> pd.Series:
    """Text with its letters A-Z lower-cased, as SPEC 1's words are read (schema.py, beside TRUE_TOKENS); a text with
    a character past ASCII kept as it is, so that it names no word. (str.lower alone maps "FAİLED" to "failed" on
    Arrow's strings and to "fai̇led" on Python's.)"""
    return text.str.lower().where(text.str.isascii(), text)


def _nested(col: pd.Series) -> pd.Series:
    """Cells that are not a scalar: a JSON object or list, or bytes that are not UTF-8 text."""
    if col.dtype != object:
        return pd.Series(False, index=col.index)
    return col.map(lambda v: isinstance(v, (dict, list, tuple, np.ndarray)) or (
        isinstance(v, bytes) and not _utf8(v))).astype(bool)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


class _Collector:
    """Cell problems: every bad row in a mask, the first MAX_PROBLEMS_KEPT of each rule in words.

    Rows already refused as a whole (``skip``) get no cell problems of their own.
    """

    def __init__(self, rows: np.ndarray | None, skip: np.ndarray):
        self.rows, self.skip = rows, skip  # rows None: record i is row i + 1
        self.bad = skip.copy()
        self.total = 0
        self.problems: list[Problem] = []

    def add(self, mask: ArrayLike, column: str, values: pd.Series, reason: Reason, **fields: Any) -> None:
        """Record ``reason`` for the rows in ``mask``; a field given as a function is called with the row index."""
        idx = np.flatnonzero(np.asarray(mask, dtype=bool) & ~self.skip)
        if not len(idx):
            return
        self.bad[idx] = True
        self.total += len(idx)
        # Rows ascend within a rule, so the first problems of the sorted report are among these.
        for i in idx[:MAX_PROBLEMS_KEPT]:
            value = values.iloc[i]
            if isinstance(value, bytes):  # shown, not decoded: it may not be text
                value = value.decode("utf-8", "backslashreplace")
            text = None if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)
            values_i = {k: (v(i) if callable(v) else v) for k, v in fields.items()}
            row = int(i) + 1 if self.rows is None else int(self.rows[i])
            self.problems.append(Problem.of(reason, row, column, text, **values_i))


def _parse_ids(raw: pd.Series, column: str, out: _Collector) -> pd.Series:
    nested = _nested(raw)
    text = _text(raw.mask(nested))
    out.add(nested, column, raw, Reason.NESTED)
    out.add(text.isna() & ~nested, column, text, Reason.MISSING_VALUE)
    # A floating NaN or infinity, or JSON's NaN/Infinity literal, is no id (a text "NaN" is one): refused, never an
    # agent named "NaN" (the SQL engine read the same Parquet NaN as "nan").
    spelled = text.notna() & _ascii_lower(text).isin(NONFINITE_TOKENS)
    if spelled.any():  # only those cells are looked at again (a column of a million ids spells none)
        not_finite = pd.Series(False, index=raw.index)
        not_finite[spelled] = raw[spelled].map(lambda v: isinstance(v, NotFinite) or (
            isinstance(v, float) and not math.isfinite(v))).astype(bool)
        out.add(not_finite, column, text, Reason.NOT_FINITE)
    return text


def _spellings(raw: pd.Series) -> list[str]:
    """The distinct texts of a raw id column as written (schema.spelt_apart reads them); none for a column of
    numbers or booleans, which no whitespace surrounds."""
    if ptypes.is_bool_dtype(raw) or ptypes.is_numeric_dtype(raw):
        return []
    values = pd.unique(raw.mask(_nested(raw)).dropna().to_numpy(dtype=object))  # a nested cell is refused
    return list({t for t in map(_cell_text, values) if t is not None})


def _parse_status(raw: pd.Series, out: _Collector) -> pd.Series:
    nested = _nested(raw)
    text = _text(raw.mask(nested))
    status = _ascii_lower(text)
    out.add(nested, "status", raw, Reason.NESTED)  # it read "missing value", the cell given
    out.add(text.isna() & ~nested, "status", text, Reason.MISSING_VALUE)
    out.add(text.notna() & ~status.isin(STATUSES), "status", text, Reason.UNKNOWN_STATUS)
    return status


def _parse_success(raw: pd.Series, out: _Collector) -> pd.Series:
    if ptypes.is_bool_dtype(raw):
        return raw.astype("boolean")
    if ptypes.is_numeric_dtype(raw):
        values = raw.astype("float64")
        bad = values.notna() & ~values.isin([0.0, 1.0])
        out.add(bad, "success", values, Reason.NOT_AN_OUTCOME)
        return _booleans(values == 1.0, values == 0.0, raw.index)
    nested = _nested(raw)
    shown = _text(raw.mask(nested))
    text = _ascii_lower(shown)
    is_true, is_false = text.isin(TRUE_TOKENS), text.isin(FALSE_TOKENS)
    out.add(nested, "success", raw, Reason.NESTED)
    out.add(text.notna() & ~is_true & ~is_false, "success", shown, Reason.NOT_AN_OUTCOME)
    return _booleans(is_true, is_false, raw.index)


def _booleans(is_true: pd.Series, is_false: pd.Series, index: pd.Index) -> pd.Series:
    t, f = is_true.to_numpy(dtype=bool), is_false.to_numpy(dtype=bool)
    return pd.Series(pd.arrays.BooleanArray(t, ~(t | f)), index=index)


def _numbers(text: pd.Series) -> pd.Series:
    """The cells' doubles, NA where a cell is no number. A whole number of over 4,300 digits is no number to
    pandas (Python's limit on int()); it is read here as float() and the SQL engines read it: past the largest
    double, so not finite, never 'not a number'. Only the cells pandas left unread are looked at again."""
    values = pd.to_numeric(text, errors="coerce").astype("float64")
    missed = text.notna() & values.isna()
    if missed.any():
        spelled = text[missed]
        numbers = spelled[spelled.str.fullmatch(NUMBER_PATTERN)]
        if len(numbers):
            values = values.copy()
            values.loc[numbers.index] = numbers.map(float).astype("float64")
    return values


def _parse_number(raw: pd.Series, column: str, out: _Collector, *, integer: bool = False,
                  below: float | None = None) -> pd.Series:
    if ptypes.is_numeric_dtype(raw) and not ptypes.is_bool_dtype(raw):
        values = raw.astype("float64")
        shown = values
        nonfinite = pd.Series(np.isinf(values.to_numpy()), index=raw.index)
        unparsed = pd.Series(False, index=raw.index)
    else:
        nested = _nested(raw)
        text = _text(raw.mask(nested))
        out.add(nested, column, raw, Reason.NESTED)
        values = _numbers(text)
        token = _ascii_lower(text).isin(NONFINITE_TOKENS)
        nonfinite = token | np.isinf(values)
        unparsed = text.notna() & values.isna() & ~token
        shown = text
    out.add(unparsed, column, shown, Reason.NOT_A_NUMBER)
    out.add(nonfinite, column, shown, Reason.NOT_FINITE)
    finite = values.where(~nonfinite)
    negative = finite < 0
    out.add(negative, column, shown, Reason.NEGATIVE)
    bad = nonfinite | unparsed | negative
    if integer:
        fractional = ~bad & finite.notna() & (finite % 1 != 0)
        out.add(fractional, column, shown, Reason.NOT_WHOLE)
        bad = bad | fractional
    if below is not None:  # a pass-through value, kept as a 64-bit integer
        too_large = ~bad & (finite >= below)
        out.add(too_large, column, shown, Reason.TOO_LARGE)
        bad = bad | too_large
    return finite.where(~bad) + 0.0  # -0 is zero: never a '-0.0' in the report


def _parse_timestamps(raw: pd.Series, out: _Collector) -> pd.Series:
    if ptypes.is_datetime64_any_dtype(raw):
        ts = raw if getattr(raw.dt, "tz", None) is not None else raw.dt.tz_localize("UTC")
        return ts.dt.tz_convert("UTC").astype("datetime64[us, UTC]")
    nested = _nested(raw)
    text = _text(raw.mask(nested))
    out.add(nested, "finished_at", raw, Reason.NESTED)
    micros = arrow_runs.grammar_timestamps(pa.array(text, type=pa.string(), from_pandas=True))
    out.add(text.notna() & (micros == arrow_runs.NAT), "finished_at", text, Reason.NOT_A_TIMESTAMP)
    return pd.Series(micros, index=raw.index).astype("datetime64[us]").dt.tz_localize("UTC")


def validate_runs(
    raw: pd.DataFrame,
    *,
    rows: np.ndarray | None = None,
    source: str = "input",
    format: str = "frame",
    exclude_invalid: bool = False,
    prior_problems: list[Problem] | None = None,
    prior_rows: Sequence[int] | np.ndarray | None = None,
    warnings: list[str] | None = None,
) -> LoadedRuns:
    """Validate a raw table (columns named as in SPEC 1) into the canonical runs frame, cell by cell.

    ``prior_problems`` are problems a reader found with whole records (their rows get no cell
    problems); ``prior_rows`` lists every such row when the reader kept only the first problems.
    """
    raw = raw.reset_index(drop=True)
    rows = np.arange(1, len(raw) + 1) if rows is None else np.asarray(rows)
    prior = list(prior_problems or [])
    structural_rows = [p.row for p in prior if p.row is not None] if prior_rows is None else prior_rows
    warnings = list(warnings or [])
    require_columns(raw.columns, len(raw), source, prior, len(structural_rows))
    out = _Collector(rows, np.isin(rows, np.asarray(structural_rows, dtype=np.int64)))
    run_id = _parse_ids(raw["run_id"], "run_id", out)
    agents = _parse_ids(raw["agent_id"], "agent_id", out)
    tasks = _parse_ids(raw["task_id"], "task_id", out)
    status = _parse_status(raw["status"], out)
    success = _parse_success(raw["success"], out)
    numbers = {c: _parse_number(raw[c], c, out, integer=c == "steps").to_numpy(dtype=float) if c in raw.columns
               else np.full(len(raw), np.nan) for c in NUMBER_COLUMNS}
    finished = (pd.DatetimeIndex(_parse_timestamps(raw["finished_at"], out)).asi8
                if "finished_at" in raw.columns else None)
    extras = {c: _parse_number(raw[c], c, out, integer=True, below=PASS_THROUGH_LIMIT).to_numpy(dtype=float)
              for c in PASS_THROUGH_COLUMNS if c in raw.columns}
    _check_duplicates(run_id, rows, out)
    columns = _columns_from_cells(run_id, agents, tasks, status, success, numbers, finished, rows)
    columns.extras = extras
    spelt = {c: _spellings(raw[c]) for c in ("agent_id", "task_id")}
    return _finish(out, prior, max(len(prior), len(structural_rows)), columns, rows_read=len(raw), source=source,
                   format=format, exclude_invalid=exclude_invalid, warnings=warnings, spellings=spelt)


_CHECKS_IN_THREADS_FROM = 10_000  # rows


def validate_table(table: pa.Table, *, source: str = "input", format: str = "table", exclude_invalid: bool = False,
                   warnings: list[str] | None = None) -> LoadedRuns:
    """Validate an Arrow table (columns named as in SPEC 1) into the canonical runs frame.

    Each column is checked with Arrow kernels (ids on their distinct values); a column with anything
    those checks do not accept as plainly valid is parsed cell by cell instead, by the parsers
    :func:`validate_runs` uses, so the validation report is the same whichever path a file takes.
    """
    return checked_table(table, source=source, format=format, exclude_invalid=exclude_invalid, warnings=warnings)()


def checked_table(table: pa.Table, *, source: str = "input", format: str = "table", exclude_invalid: bool = False,
                  warnings: list[str] | None = None) -> Callable[[], LoadedRuns]:
    """:func:`validate_table` in two steps: the checks now, and a function that refuses (or excludes) and builds
    the canonical frame, which holds no reference to ``table`` (its caller can free the table in between)."""
    n = len(table)
    rows = None  # record i is row i + 1 (Columns.rows)
    require_columns(table.column_names, n, source, [], 0)
    cols = arrow_runs.column_arrays(table)
    out = _Collector(rows, np.zeros(n, dtype=bool))
    fast = arrow_runs

    def cells(name: str) -> pd.Series:
        return _legacy_series(cols[name])

    def run_ids_and_duplicates(column: pa.Array) -> tuple[pa.Array | None, bool]:
        ids = fast.run_ids(column)
        return ids, ids is not None and fast.has_duplicates(ids)

    # The fast checks are Arrow kernels that run without the GIL: all of them at once, on two threads.
    # The per-cell parsers then run in the validator's column order for any column the checks did not
    # accept, so the report lists each row's problems in the same order as ever.
    checks: dict[str, Callable[[], Any]] = {
        "run_id": lambda: run_ids_and_duplicates(cols["run_id"]),
        "agent_id": lambda: fast.ids(cols["agent_id"]),
        "task_id": lambda: fast.ids(cols["task_id"]),
        "status": lambda: fast.statuses(cols["status"]),
        "success": lambda: fast.outcomes(cols["success"]),
        **{c: functools.partial(fast.numbers, cols[c], whole=c == "steps") for c in NUMBER_COLUMNS if c in cols},
        **({"finished_at": lambda: fast.timestamps(cols["finished_at"])} if "finished_at" in cols else {}),
        **{c: functools.partial(fast.numbers, cols[c], whole=True, below=PASS_THROUGH_LIMIT)
           for c in PASS_THROUGH_COLUMNS if c in cols},
    }
    # A small table: starting the threads would cost more than the checks.
    found = arrow_runs.run_all(checks, threads=n > _CHECKS_IN_THREADS_FROM, name="runs-check")

    run_id, duplicated = found["run_id"]
    parsed_run_id = None if run_id is not None else _parse_ids(cells("run_id"), "run_id", out)
    agents, tasks = (found[c] or _ids_from_cells(_parse_ids(cells(c), c, out)) for c in ("agent_id", "task_id"))
    status = found["status"]
    if status is None:
        status = _status_codes(_parse_status(cells("status"), out))
    success = found["success"]
    if success is None:
        success = _parse_success(cells("success"), out).array
    numbers = {}
    for c in NUMBER_COLUMNS:
        if c not in cols:
            numbers[c] = np.full(n, np.nan)
            continue
        numbers[c] = (found[c] if found[c] is not None
                      else _parse_number(cells(c), c, out, integer=c == "steps").to_numpy(dtype=float))
    finished = None
    if "finished_at" in cols:
        finished = found["finished_at"]
        if finished is None:
            finished = pd.DatetimeIndex(_parse_timestamps(cells("finished_at"), out)).asi8
    extras = {c: found[c] if found[c] is not None else _parse_number(
        cells(c), c, out, integer=True, below=PASS_THROUGH_LIMIT).to_numpy(dtype=float)
        for c in PASS_THROUGH_COLUMNS if c in cols}
    # Duplicates last, as the cell-by-cell validator finds them (the report lists a row's problems in that order).
    if parsed_run_id is None and run_id is not None and duplicated:
        parsed_run_id = pd.Series(run_id.to_pandas(), dtype="str")
    if parsed_run_id is not None:
        _check_duplicates(parsed_run_id, np.arange(1, n + 1), out)
        run_id = pa.array(parsed_run_id.astype(object).where(parsed_run_id.notna(), None), type=pa.string())
    columns = arrow_runs.Columns(run_id, agents[0], agents[1], tasks[0], tasks[1], status, success,
                                 numbers["latency_ms"], numbers["cost_usd"], numbers["steps"], finished, rows,
                                 extras)
    spelt = {c: fast.spellings(cols[c]) for c in ("agent_id", "task_id")}
    return functools.partial(_finish, out, [], 0, columns, rows_read=n, source=source, format=format,
                             exclude_invalid=exclude_invalid, warnings=list(warnings or []), spellings=spelt)


def require_columns(columns: Collection[str], rows_read: int, source: str, prior: list[Problem],
                     prior_total: int) -> None:
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:  # the records that could not be read at all say why, too (e.g. every JSON Lines line broken)
        raise RunsValidationError([Problem.of(Reason.MISSING_COLUMN, None, c) for c in missing] + prior,
                                  rows_read=rows_read, source=source, total=len(missing) + prior_total)


def _check_duplicates(run_id: pd.Series, rows: np.ndarray, out: _Collector) -> None:
    """A repeated run_id: every later occurrence is a problem naming the first (SPEC 1)."""
    duplicated = run_id.duplicated(keep="first") & run_id.notna()
    if duplicated.any():
        first_row = pd.Series(rows, index=run_id.index).groupby(run_id).transform("first")
        out.add(duplicated, "run_id", run_id, Reason.DUPLICATE_RUN_ID,
                first_row=lambda i: int(first_row.iloc[i]))


def _ids_from_cells(parsed: pd.Series) -> tuple[np.ndarray, list[str]]:
    """(codes, names in text order) of a parsed id column; a missing id gets code -1 (its row is refused)."""
    codes, names = pd.factorize(parsed, sort=True)
    return codes.astype(np.int32), [str(v) for v in names]


def _status_codes(parsed: pd.Series) -> np.ndarray:
    known = parsed.where(parsed.isin(STATUSES))  # an unknown status is already a problem of its row
    return pd.Categorical(known, categories=list(STATUSES)).codes.astype(np.int8)


def _columns_from_cells(run_id: pd.Series, agents: pd.Series, tasks: pd.Series, status: pd.Series,
                        success: pd.Series, numbers: dict[str, np.ndarray], finished: np.ndarray | None,
                        rows: np.ndarray) -> arrow_runs.Columns:
    agent_codes, agent_names = _ids_from_cells(agents)
    task_codes, task_names = _ids_from_cells(tasks)
    return arrow_runs.Columns(pa.array(run_id.astype(object).where(run_id.notna(), None), type=pa.string()),
                              agent_codes, agent_names, task_codes, task_names, _status_codes(status),
                              success.astype("boolean").array, numbers["latency_ms"], numbers["cost_usd"],
                              numbers["steps"], finished, rows)


def _finish(out: _Collector, prior: list[Problem], prior_total: int, columns: arrow_runs.Columns, *,
            rows_read: int, source: str, format: str, exclude_invalid: bool, warnings: list[str],
            spellings: Mapping[str, list[str]] | None = None) -> LoadedRuns:
    """Refuse (or exclude, on request) what the parsers found, then build the canonical frame. ``spellings``: the
    distinct texts of the id columns as written, where trimming may have made two of them one id."""
    problems = sorted(prior + out.problems, key=lambda p: (p.row if p.row is not None else -1))
    problems = problems[:MAX_PROBLEMS_KEPT]
    total = prior_total + out.total
    excluded = 0
    if total:
        error = RunsValidationError(problems, rows_read=rows_read, source=source, total=total,
                                    invalid_rows=int(out.bad.sum()))
        if not (exclude_invalid and error.excludable):
            raise error
        excluded = int(out.bad.sum())
        columns = columns.take(~out.bad)
    if columns.finished_us is None and rows_read:
        warnings.append("No finished_at column: file order is used for the radar window (a later row is newer).")
    warnings += look_alike_warnings(columns.agents)
    for column, what in (("agent_id", "agent"), ("task_id", "task")):
        warnings += spelling_warnings(*spelt_apart((spellings or {}).get(column, [])), what)
    return LoadedRuns(runs=arrow_runs.canonical_frame(columns), source=source, format=format, rows_read=rows_read,
                      excluded_rows=excluded, excluded_problems=tuple(problems), warnings=tuple(warnings))
