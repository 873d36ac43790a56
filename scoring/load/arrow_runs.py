"""The fast path of the runs loader: CSV and Parquet read and validated with Arrow (SPEC 1).

A well-formed file never goes through Python object cells: Arrow reads it (CSV columns as text,
Parquet as typed columns with text dictionary-encoded), each column is checked and converted with
Arrow compute kernels (ids and statuses on their distinct values) chunk by chunk as Arrow read it (a
CSV's blocks, a Parquet file's row groups: never combined into a copy first), and the canonical order
is one integer sort (large files: a radix sort by agent, then each agent's times). The rules
themselves live in ``scoring.load.runs``: whenever a column has anything the fast checks do not
accept as plainly valid, that column (and only it) is handed to the same per-cell parser the other
formats use, so a refused file gets exactly the report it always got.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from scoring.contract.schema import (
    CANONICAL_COLUMNS,
    FALSE_TOKENS,
    FRACTION_DIGITS,
    PASS_THROUGH_COLUMNS,
    SPEC_COLUMNS,
    STATUSES,
    TIMESTAMP_GROUPS,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    TIMESTAMP_PATTERN,
    TIMESTAMP_PLAIN_PATTERN,
    TIMESTAMP_PLAIN_ZONE,
    TRUE_TOKENS,
    WHITESPACE,
    normalize_column_name,
    timestamp_micros,
)
from scoring.load.csv_header import csv_header

NAT = np.iinfo(np.int64).min
# A column as Arrow read it: one array, or (a CSV read in blocks, a Parquet file's row groups) a chunked array.
# The checks read chunked text chunk by chunk rather than combining it first: combining copies the whole column
# into fresh memory, the slowest memory on these machines (bench/bench_fresh_memory.py).
Column: TypeAlias = "pa.Array | pa.ChunkedArray"


def chunks_of(column: Column) -> list[pa.Array]:
    """A column's arrays: its chunks, or itself."""
    return column.chunks if isinstance(column, pa.ChunkedArray) else [column]


def _named_groups(pattern: str, names: tuple[str, ...]) -> str:
    """``pattern`` with its capturing groups named, in order (Arrow's extract_regex needs names)."""
    pieces, found = pattern.split("("), iter(names)
    return pieces[0] + "".join(("(" if piece.startswith("?") else f"(?P<{next(found)}>") + piece
                               for piece in pieces[1:])


PLAIN_TIMESTAMP = "^(?:" + TIMESTAMP_PATTERN + ")$"  # the grammar, anchored (the name older callers import)
_PLAIN = "^(?:" + TIMESTAMP_PLAIN_PATTERN + TIMESTAMP_PLAIN_ZONE + "?)$"
_NAMED_TIMESTAMP = "^(?:" + _named_groups(TIMESTAMP_PATTERN, TIMESTAMP_GROUPS) + ")$"
_MICROS_PER_DAY = 86_400_000_000
_LOWEST_US, _HIGHEST_US = timestamp_micros(TIMESTAMP_MIN), timestamp_micros(TIMESTAMP_MAX)


@dataclass
class Columns:
    """Validated runs in file order, as codes and numbers (the form the canonical frame is built from)."""

    run_id: Column  # text
    agent_codes: np.ndarray
    agents: list[str]  # in text order: agent_codes index into it
    task_codes: np.ndarray
    tasks: list[str]
    status_codes: np.ndarray  # index into STATUSES
    success: pd.arrays.BooleanArray
    latency_ms: np.ndarray  # the numbers may be read-only views of the table's buffers (numbers()): read, never written
    cost_usd: np.ndarray
    steps: np.ndarray
    finished_us: np.ndarray | None  # microseconds since the epoch, UTC; NAT for empty; None without the column
    # The file row of each run; None where run i is row i + 1 (a table read whole): no array of 8 bytes a run is
    # made for it (fresh memory is slow on these machines, docs/measurements.md) and source_row is the order + 1.
    rows: np.ndarray | None
    # The pass-through columns the input has (schema.PASS_THROUGH_COLUMNS), validated whole numbers; NaN empty.
    extras: dict[str, np.ndarray] = field(default_factory=dict)

    def take(self, keep: np.ndarray) -> Columns:
        """The rows ``keep`` selects; agents and tasks that no kept row names are dropped."""
        idx = np.flatnonzero(keep)
        rows = idx + 1 if self.rows is None else self.rows[idx]
        agent_codes, agents = _compact(self.agent_codes[idx], self.agents)
        task_codes, tasks = _compact(self.task_codes[idx], self.tasks)
        return replace(self, run_id=self.run_id.take(pa.array(idx)), agent_codes=agent_codes, agents=agents,
                       task_codes=task_codes, tasks=tasks, status_codes=self.status_codes[idx],
                       success=self.success[idx], latency_ms=self.latency_ms[idx], cost_usd=self.cost_usd[idx],
                       steps=self.steps[idx],
                       finished_us=None if self.finished_us is None else self.finished_us[idx], rows=rows,
                       extras={name: values[idx] for name, values in self.extras.items()})


def _compact(codes: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """Codes renumbered over the names still used (in their order)."""
    used = np.zeros(len(names), dtype=bool)
    used[codes] = True
    new = np.cumsum(used) - 1
    return new[codes].astype(np.int32), [n for n, u in zip(names, used) if u]


# --------------------------------------------------------------------------- reading


def read_csv_table(data: bytes, columns: Collection[str] = SPEC_COLUMNS, *, source: Any = None,
                   quoted: bool | None = None) -> pa.Table | None:
    """A well-formed UTF-8 CSV as an Arrow table of text columns (those named in ``columns``), or None.

    None sends the file to the text reader, which reports ragged lines, odd encodings and the
    like row by row. Empty lines are skipped by both readers, so row numbers agree. ``data`` is the
    file's bytes, or with ``source`` (an open file Arrow reads instead) its header line and ``quoted``
    (whether any byte of the file is a double quote).
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    names = csv_header(data)
    if names is None:
        return None
    normalized = [normalize_column_name(n) for n in names]
    if len(set(normalized)) != len(normalized):  # the text reader reports the duplicate column
        return None
    import pyarrow.csv as pcsv

    wanted = [n for n, norm in zip(names, normalized) if norm in columns]
    try:
        table = pcsv.read_csv(
            io.BytesIO(data) if source is None else source,
            read_options=pcsv.ReadOptions(use_threads=True),
            parse_options=pcsv.ParseOptions(delimiter=",", quote_char='"', double_quote=True, escape_char=False,
                                            newlines_in_values=b'"' in data if quoted is None else quoted),
            convert_options=pcsv.ConvertOptions(column_types=dict.fromkeys(wanted, pa.string()),
                                                include_columns=wanted, strings_can_be_null=False,
                                                null_values=[], quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None
    if table.column_names != wanted:
        return None
    return table.rename_columns([normalize_column_name(n) for n in wanted])


# --------------------------------------------------------------------------- column checks


def _combined(column: Column) -> pa.Array:
    """One array; a single chunk is used as it is (``combine_chunks`` would copy it)."""
    if not isinstance(column, pa.ChunkedArray):
        return column
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _trimmed_text(column: Column) -> Column | None:
    """Text cells stripped as Python strips them, empty -> null; None for a column that is not text."""
    if pa.types.is_dictionary(column.type) and _is_text(column.type.value_type):
        column = column.cast(column.type.value_type)
    elif pa.types.is_integer(column.type):
        column = column.cast(pa.string())  # an integer id reads as its digits, as str(5) does
    if not _is_text(column.type):
        return None
    if _as_read(column):
        return column
    trimmed = pc.utf8_trim(column, characters=WHITESPACE)
    return pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, trimmed.type), trimmed)


# Bytes that may begin or end a whitespace character (WHITESPACE): its ASCII ones, and every byte past ASCII (each
# character past ASCII is bytes of 0x80 and more in UTF-8).
_EDGE_BYTES = np.zeros(256, dtype=bool)
_EDGE_BYTES[[ord(c) for c in WHITESPACE if ord(c) < 0x80]] = True
_EDGE_BYTES[0x80:] = True
# Cells a column-wide check looks at a time: its temporaries stay small and are reused, where temporaries the size
# of the column are fresh memory on these machines (bench/bench_fresh_memory.py).
CELLS_AT_A_TIME = 1 << 16


def _text_buffers(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A text array's (offsets: len + 1 of them, from its own offset; bytes), as numpy views of its buffers."""
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32, count=len(values) + 1, offset=4 * values.offset)
    data = values.buffers()[2]
    return offsets, np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)


def _as_read(column: Column) -> bool:
    """Whether no cell of a text column needs trimming or is empty: no present cell is empty, and none begins or
    ends with a byte of _EDGE_BYTES. Then _trimmed_text keeps the column as it is rather than making two copies
    of it (trimmed, then empty as null), each fresh memory the size of the column. False where unsure."""
    if not pa.types.is_string(column.type):
        return False  # large_string: 64-bit offsets; the general path
    return all(_chunk_as_read(values) for values in chunks_of(column))


def _chunk_as_read(values: pa.Array) -> bool:
    offsets, data = _text_buffers(values)
    valid = np.asarray(pc.is_valid(values), dtype=bool) if values.null_count else None
    for i in range(0, len(values), CELLS_AT_A_TIME):
        j = min(i + CELLS_AT_A_TIME, len(values))
        starts, ends = offsets[i:j], offsets[i + 1:j + 1]
        if valid is not None:
            starts, ends = starts[valid[i:j]], ends[valid[i:j]]
        if not (ends > starts).all():
            return False  # an empty cell: read as missing
        if _EDGE_BYTES[data[starts]].any() or _EDGE_BYTES[data[ends - 1]].any():
            return False
    return True


def _no_nulls(column: pa.Array) -> bool:
    return column.null_count == 0


def ids(column: Column) -> tuple[np.ndarray, list[str]] | None:
    """(code per row, distinct values in text order) for a clean id column, else None."""
    found = _id_map(column)
    if found is None:
        return None
    mapping, names, encoded = found
    return _gathered(mapping, encoded), names


def _id_map(column: Column) -> tuple[np.ndarray, list[str], Column] | None:
    """For a clean id column: the code (into the distinct values in text order) of each entry of a dictionary, those
    values, and the column encoded in that dictionary; None for a column the per-cell parser must read. The rows'
    codes are then one gather of the column's indices (:func:`_gathered`), whatever the maps composed on the way."""
    found = _encoded_ids(column) if pa.types.is_dictionary(column.type) else None
    if found is None:
        values = _trimmed_text(column)
        if values is None or not _no_nulls(values):
            return None
        encoded = _one_dictionary(pc.dictionary_encode(values))
        entry_codes, distinct = None, _dictionary_of(encoded)
    else:
        entry_codes, distinct, encoded = found
    order = pc.array_sort_indices(distinct).to_numpy()  # UTF-8 byte order = Python's text order
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    if entry_codes is not None:  # (no row at all: every entry unused, no distinct value, nothing to gather)
        rank = rank[entry_codes] if len(rank) else rank
    return rank, distinct.take(pa.array(order)).to_pylist(), encoded


def _one_dictionary(column: Column) -> Column:
    """A dictionary-encoded column whose chunks all share one dictionary: as it is when they do (dictionary_encode's
    chunks and a Parquet file's unified row groups do), else combined, which unifies them."""
    if isinstance(column, pa.ChunkedArray) and column.num_chunks != 1:
        first = column.chunk(0).dictionary if column.num_chunks else None
        if first is None or not all(c.dictionary.equals(first) for c in column.chunks[1:]):
            return _combined(column)
    return column


def _dictionary_of(column: Column) -> pa.Array:
    """The one dictionary of a column :func:`_one_dictionary` returned."""
    return column.dictionary if isinstance(column, pa.Array) else column.chunk(0).dictionary


def _gathered(mapping: np.ndarray, encoded: Column) -> np.ndarray:
    """``mapping`` read at each row's dictionary index (no row is null), chunk by chunk into one array."""
    out = np.empty(len(encoded), dtype=mapping.dtype)
    at = 0
    for chunk in chunks_of(encoded):
        out[at:at + len(chunk)] = mapping[chunk.indices.to_numpy(zero_copy_only=False)]
        at += len(chunk)
    return out


def _encoded_ids(column: Column) -> tuple[np.ndarray, pa.Array, Column] | None:
    """(the distinct value's code of each dictionary entry, the distinct values, the column) of a dictionary-encoded
    id column, worked on its dictionary alone: entries equal once stripped are merged, and entries no row uses
    are dropped."""
    if not _is_text(column.type.value_type) or column.null_count:
        return None
    column = _one_dictionary(column)
    dictionary = _dictionary_of(column)
    values = _trimmed_text(dictionary)
    if values is None or not _no_nulls(values):
        return None  # an empty entry, perhaps unused: the plain path decides
    merged = pc.dictionary_encode(values)
    entry_codes = merged.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    rows_per_entry = sum((np.bincount(c.indices.to_numpy(zero_copy_only=False), minlength=len(dictionary))
                          for c in chunks_of(column)), np.zeros(len(dictionary), dtype=np.int64))
    used = np.zeros(len(merged.dictionary), dtype=bool)
    used[entry_codes[rows_per_entry > 0]] = True
    if used.all():
        return entry_codes, merged.dictionary, column
    renumber = (np.cumsum(used) - 1).astype(np.int32)  # an unused entry's code is never read
    return renumber[entry_codes], merged.dictionary.filter(pa.array(used)), column


def spellings(column: Column) -> list[str]:
    """The distinct texts of an id column as written, where some cell has surrounding whitespace (or may have:
    _as_read); none where no cell has, or the column is not text (schema.spelt_apart reads them). A dictionary
    column is read on its dictionary (an unused entry is a spelling no row has, dropped)."""
    if pa.types.is_dictionary(column.type):
        if not _is_text(column.type.value_type):
            return []
        column = _one_dictionary(column)
        dictionary = _dictionary_of(column)
        if _as_read(dictionary):
            return []
        used = np.zeros(len(dictionary), dtype=bool)
        for chunk in chunks_of(column):
            indices = chunk.indices.to_numpy(zero_copy_only=False)
            if chunk.null_count:
                indices = indices[np.asarray(pc.is_valid(chunk), dtype=bool)]
            used[indices] = True
        return [v for v in dictionary.filter(pa.array(used)).to_pylist() if v is not None]
    if not _is_text(column.type) or _as_read(column):
        return []
    return [v for v in pc.unique(column).to_pylist() if v is not None]


def run_ids(column: Column) -> Column | None:
    """The run_id column stripped, when no cell is empty (duplicates are checked separately)."""
    values = _trimmed_text(column)
    return values if values is not None and _no_nulls(values) else None


def statuses(column: Column) -> np.ndarray | None:
    """Codes into STATUSES when every cell names one (ASCII, any case, spaces ignored), else None."""
    found = _id_map(column)
    if found is None:
        return None
    mapping, names, encoded = found
    lowered = [n.lower() if n.isascii() else None for n in names]
    if any(n not in STATUSES for n in lowered):
        return None
    return _gathered(np.array([STATUSES.index(n) for n in lowered], dtype=np.int8)[mapping], encoded)


def outcomes(column: Column) -> pd.arrays.BooleanArray | None:
    """The success column when every cell is a recognised outcome or empty, else None."""
    if pa.types.is_boolean(column.type):
        known = ~np.asarray(pc.is_null(column), dtype=bool)
        return pd.arrays.BooleanArray(np.asarray(pc.fill_null(column, False), dtype=bool), ~known)
    if pa.types.is_integer(column.type) or pa.types.is_floating(column.type):
        known = np.asarray(pc.is_valid(column), dtype=bool)
        numbers = np.asarray(pc.fill_null(column.cast(pa.float64(), safe=False), 0.0), dtype=float)  # as numbers()
        if not np.isin(numbers[known], (0.0, 1.0)).all():  # a NaN too: only an empty cell is unknown
            return None
        return pd.arrays.BooleanArray(numbers == 1.0, ~known)
    text = _trimmed_text(column)
    if text is None:
        return None
    encoded = _combined(pc.dictionary_encode(text))
    words = [w.lower() if w.isascii() else None for w in encoded.dictionary.to_pylist()]
    if any(w not in TRUE_TOKENS and w not in FALSE_TOKENS for w in words):
        return None
    truth = np.array([w in TRUE_TOKENS for w in words] or [False])
    codes = np.asarray(pc.fill_null(encoded.indices, 0), dtype=np.int64)
    return pd.arrays.BooleanArray(truth[codes], np.asarray(pc.is_null(encoded.indices), dtype=bool))


def numbers(column: Column, *, whole: bool = False, below: float | None = None) -> np.ndarray | None:
    """Finite numbers >= 0 (whole ones for steps; below ``below`` when given) with NaN for empty, else None."""
    if pa.types.is_integer(column.type) or pa.types.is_floating(column.type) or pa.types.is_decimal(column.type):
        # Unchecked: a whole number above 2^53 becomes its nearest double, as the CSV path reads it
        # (docs/schema.md, "Pass-through columns"); Arrow's checked cast refuses it with an exception.
        # A decimal by way of its digits: Arrow's cast of a decimal to a double is not correctly rounded (a
        # reviewer's decimal128(38, 18) costs were a unit in the last place off for 5-55% of values), its text is
        # read as any CSV cell is, to the nearest double.
        floats = column.cast(pa.string()).cast(pa.float64()) if pa.types.is_decimal(column.type) else column.cast(
            pa.float64(), safe=False)
    else:
        values = _trimmed_text(column)
        if values is None:
            return None
        try:
            floats = pc.cast(values, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
    out = np.asarray(pc.fill_null(floats, np.nan), dtype=float)
    present = out if not floats.null_count else out[np.asarray(pc.is_valid(floats), dtype=bool)]
    if not len(present):
        return out + 0.0
    # The least and the greatest say it all (no temporary the size of the column): a NaN makes both NaN, and
    # NaN compares false.
    least, greatest = present.min(), present.max()
    if not (least >= 0 and greatest < np.inf) or (below is not None and not greatest < below):
        return None
    if whole and not pa.types.is_integer(column.type) and not all(
            (present[i:i + CELLS_AT_A_TIME] % 1 == 0).all() for i in range(0, len(present), CELLS_AT_A_TIME)):
        return None
    # -0 is zero, as in the per-cell parser; there is none unless zero is the least value.
    return out + 0.0 if least == 0 else out


_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def typed_outside_the_grammar(column: Column) -> np.ndarray:
    """Per cell of a timestamp column, whether its instant lies outside the grammar's 0001-01-01 to 9999-12-31
    (UTC): a typed value may (10^13 s is the year 318,857), and no microsecond timestamp holds it."""
    raw = np.asarray(pc.fill_null(column.cast(pa.int64()), 0))  # the stored value in its unit, from the epoch
    per_second = _PER_SECOND[column.type.unit]
    if per_second > 1_000_000:  # nanoseconds: every int64 lies within 1677-2262
        return np.zeros(len(raw), dtype=bool)
    factor = 1_000_000 // per_second
    assert _LOWEST_US is not None and _HIGHEST_US is not None  # the grammar's own bounds, read by it
    low, high = -(-_LOWEST_US // factor), _HIGHEST_US // factor  # the whole units within the range
    return (raw < low) | (raw > high)


def _utc_micros(column: Column, outside: np.ndarray) -> np.ndarray:
    """A timestamp column's instants as microseconds since the epoch in UTC (a value without a zone is UTC: its
    stored number is its wall-clock time read as UTC), NAT for an empty cell and for one ``outside`` the grammar.
    A nanosecond value keeps its first six digits of the second, later ones dropped (floor: 1969-12-31T23:59:59
    .999999999 is ...59.999999), as the grammar reads the same instant written as text (pandas writes Parquet
    in nanoseconds; Arrow's safe cast refused such a file with a traceback, an unsafe one rounds toward zero)."""
    raw = np.asarray(pc.fill_null(column.cast(pa.int64()), 0))
    per_second = _PER_SECOND[column.type.unit]
    micros = raw // (per_second // 1_000_000) if per_second > 1_000_000 else raw * (1_000_000 // per_second)
    micros[~np.asarray(pc.is_valid(column), dtype=bool) | outside] = NAT
    return micros


def timestamp_texts(column: Column) -> list[str | None]:
    """A timestamp column as text the grammar reads: ISO 8601 in UTC, and a value outside its range as its stored
    number and unit (refused, shown as written: "10000000000000 s from 1970-01-01T00:00:00Z")."""
    outside = typed_outside_the_grammar(column)
    raw = column.cast(pa.int64()).to_pylist()
    unit = column.type.unit
    micros = _utc_micros(column, outside)
    stamps = pa.array(micros, mask=micros == NAT).cast(pa.timestamp("us", tz="UTC"))
    # %S writes the seconds with the microseconds: 2026-07-01T12:00:00.250000Z.
    texts = pc.strftime(stamps, "%Y-%m-%dT%H:%M:%SZ").to_pylist()
    return [None if r is None else f"{r} {unit} from 1970-01-01T00:00:00Z" if far else t
            for r, far, t in zip(raw, outside, texts)]


def timestamps(column: Column) -> np.ndarray | None:
    """Microseconds since the epoch in UTC (a value without a zone is UTC), NAT for empty, else None."""
    if pa.types.is_timestamp(column.type):
        outside = typed_outside_the_grammar(column)
        if outside.any():
            return None  # the per-cell parser refuses each such value at its row
        return _utc_micros(column, outside)
    values = _trimmed_text(column)
    if values is None:
        return None
    if _every_cell_is_plain_utc(values):  # the common spelling, checked on the bytes: no regular expression
        try:
            stamps = pc.cast(values, pa.timestamp("us", tz="UTC"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None  # a date or time out of range (the 30th of February): the per-cell parser says which
        micros = np.asarray(pc.fill_null(stamps.cast(pa.int64()), NAT))
        return None if (micros[micros != NAT] < _LOWEST_US).any() else micros  # year 0000: not in the grammar
    present = values.drop_null()
    if len(present) and pc.all(pc.match_substring_regex(present, _PLAIN)).as_py():
        # The common spellings (schema.TIMESTAMP_PLAIN_PATTERN), which Arrow's cast reads as the grammar
        # does; a day that does not exist fails the cast, and the per-cell parser says which.
        naive = pc.invert(pc.match_substring_regex(values, "(Z|[+-][0-9]{2}:[0-9]{2})$"))  # no zone: UTC
        try:
            stamps = pc.cast(pc.if_else(naive, pc.binary_join_element_wise(values, "Z", ""), values),
                             pa.timestamp("us", tz="UTC"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        return np.asarray(pc.fill_null(stamps.cast(pa.int64()), NAT))
    micros = grammar_timestamps(values)
    return micros if (micros[np.asarray(pc.is_valid(values), dtype=bool)] != NAT).all() else None


def grammar_timestamps(values: Column) -> np.ndarray:
    """Microseconds since the epoch (UTC) of trimmed text cells read by the one timestamp grammar
    (schema.TIMESTAMP_PATTERN and its rules, as schema.timestamp_micros reads one cell); NAT for an
    empty cell and for a cell the grammar refuses."""
    parts = pc.extract_regex(_combined(values), _NAMED_TIMESTAMP)
    matched = np.asarray(pc.is_valid(parts), dtype=bool)

    def number(name: str, digits: int = 0, start: int = 0) -> np.ndarray:
        field = pc.utf8_slice_codeunits(pc.fill_null(parts.field(name), ""), start)
        if digits:  # the fraction: its first digits, padded with zeros (later digits are dropped)
            field = pc.utf8_rpad(pc.utf8_slice_codeunits(field, 0, digits), digits, "0")
        field = pc.if_else(pc.equal(field, ""), "0", field)
        return np.asarray(field.cast(pa.int64()), dtype=np.int64)

    year, month, day = number("year"), number("month"), number("day")
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    month_days = np.where(month == 2, 28 + leap, np.where(np.isin(month, (4, 6, 9, 11)), 30, 31))
    # Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    # The offset's hours carry its sign ("+05", "-00"); its minutes take that sign.
    sign = np.where(np.asarray(pc.starts_with(pc.fill_null(parts.field("offset_hours"), ""), "-"), dtype=bool), -1, 1)
    offset_s = sign * (number("offset_hours", start=1) * 60 + number("offset_minutes")) * 60
    seconds = ((days * 24 + number("hour")) * 60 + number("minute")) * 60 + number("second") - offset_s
    micros = seconds * 1_000_000 + number("fraction", FRACTION_DIGITS)
    good = matched & (year >= 1) & (day <= month_days) & (micros >= _LOWEST_US) & (micros <= _HIGHEST_US)
    return np.where(good, micros, NAT)


# YYYY-MM-DDThh:mm:ssZ byte by byte: the lowest byte allowed and how far above it (digits 0-9, else one byte).
_PLAIN_UTC_LOW = np.frombuffer(b"0000-00-00T00:00:00Z", dtype=np.uint8)
_PLAIN_UTC_SPAN = np.where(np.frombuffer(b"0000-00-00T00:00:00Z", dtype=np.uint8) == ord("0"), 9, 0).astype(np.uint8)


def _every_cell_is_plain_utc(column: Column, block: int = CELLS_AT_A_TIME) -> bool:
    """Whether every non-empty cell is exactly ``YYYY-MM-DDThh:mm:ssZ`` (20 ASCII bytes: digits, and
    '-', 'T', ':', 'Z' in their places), the spelling Arrow and pandas read alike (no regular expression).

    Compared ``block`` cells at a time: the whole column at once made two temporaries of 20 bytes a cell, and
    memory that large is fresh on these machines (bench/bench_fresh_memory.py): 1M cells 0.05-0.10 s at once,
    0.02 s in blocks (2026-12-04)."""
    if not pa.types.is_string(column.type) or len(column) == 0:
        return False
    counts = [_plain_utc_cells(values, block) for values in chunks_of(column)]
    return None not in counts and any(counts)  # and at least one cell to read


def _plain_utc_cells(values: pa.Array, block: int) -> int | None:
    """The present cells of one array when each is plain UTC (see above), else None."""
    offsets, data = _text_buffers(values)
    lengths = np.diff(offsets)
    present = np.asarray(pc.is_valid(values), dtype=bool)
    if not (lengths[present] == 20).all():
        return None
    cells = int(np.count_nonzero(present))
    if not cells:
        return 0
    if cells * 20 == offsets[-1] - offsets[0] and len(data) >= offsets[-1]:
        matrix = data[offsets[0]:offsets[-1]].reshape(-1, 20)  # every cell present and 20 bytes: one matrix
        blocks = (matrix[i:i + block] for i in range(0, cells, block))
    else:
        starts = offsets[:-1][present].astype(np.int64)
        blocks = (data[starts[i:i + block, None] + np.arange(20)] for i in range(0, cells, block))
    # uint8 wraps: a byte below the lowest allowed fails too
    return cells if all(bool(((part - _PLAIN_UTC_LOW) <= _PLAIN_UTC_SPAN).all()) for part in blocks) else None


# run_ids of up to 64 bytes (a UUID is 36) are compared by a 64-bit hash of one fixed-width copy first; wider ones,
# or a hash that repeats, by Arrow's exact unique. 1,000,000 UUIDs: 0.16 s unique, 0.07 s hashed (2026-12-04).
_HASHED_WORDS = 8
_MIX_1, _MIX_2, _GOLDEN = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)


def has_duplicates(run_id: Column) -> bool:
    """Whether a value repeats (the rows and the first occurrences are found only if so).

    Equal values have equal 64-bit hashes, so when no hash repeats no value does: the hashes are sorted
    (a vectorized sort of integers rather than a hash table of strings: in the bench's 1,000,000-run load
    0.25 -> 0.08 s, at 10,000,000 runs, whose table outgrows the caches, 2.5 -> 1.2 s; 2026-12-03).
    Any repeated hash, a value wider than 64 bytes or one Arrow cannot pad to a fixed width (multi-byte
    text) is settled by Arrow's own exact ``unique``.
    """
    hashes = _fixed_width_hashes(run_id)
    if hashes is not None:
        ordered = np.sort(hashes)
        if not (ordered[1:] == ordered[:-1]).any():
            return False
    return len(pc.unique(run_id)) != len(run_id)


def _fixed_width_hashes(values: Column, chunk: int = CELLS_AT_A_TIME) -> np.ndarray | None:
    """A 64-bit hash of each value from its bytes padded to a multiple of 8 (None when it cannot be done cheaply).
    The value's length is hashed too, so a value and the same with trailing NULs hash apart. Padded ``chunk``
    values at a time: the padded copies stay in the caches and never take more than a few megabytes beside
    the hashes (10,000,000 run_ids: 1.28 s in one piece, 0.87 s in pieces of 65,536; 2026-12-03)."""
    if len(values) < 2 or values.null_count:
        return None
    lengths = pc.binary_length(values)
    words = max(1, -(-int(pc.max(lengths).as_py() or 0) // 8))
    if words > _HASHED_WORDS:
        return None
    hashed = np.empty(len(values), dtype=np.uint64)
    # Pieces of ``chunk`` values, whatever the column's chunks: a piece across several small chunks (a CSV's blocks)
    # is joined, a copy the size of the piece that stays in the caches.
    for start in range(0, len(values), chunk):
        part = _combined(values.slice(start, chunk))
        try:  # utf8_rpad counts characters: multi-byte text comes out wider and the cast refuses it
            fixed = pc.utf8_rpad(part, width=8 * words, padding="\0").cast(pa.binary(8 * words))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            return None
        matrix = np.frombuffer(fixed.buffers()[1], dtype=np.uint64)
        matrix = matrix[fixed.offset * words:(fixed.offset + len(fixed)) * words].reshape(-1, words)
        h = _combined(lengths.slice(start, len(part))).to_numpy(zero_copy_only=False).astype(np.uint64)
        for k in range(words):  # splitmix64's finalizer after each word: a wrapping multiply-xorshift mix
            h ^= matrix[:, k]
            h *= _GOLDEN
            h ^= h >> np.uint64(30)
            h *= _MIX_1
            h ^= h >> np.uint64(27)
            h *= _MIX_2
            h ^= h >> np.uint64(31)
        hashed[start:start + len(h)] = h
    return hashed


# --------------------------------------------------------------------------- the canonical frame


def run_all(calls: dict[str, Callable[[], Any]], *, threads: bool, name: str) -> dict[str, Any]:
    """Each call's result by name: on two threads when ``threads`` (for work that releases the interpreter
    lock: Arrow kernels, numpy gathers and sorts), else one after the other."""
    if not threads:
        return {key: call() for key, call in calls.items()}
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix=name) as pool:
        futures = {key: pool.submit(call) for key, call in calls.items()}
        return {key: future.result() for key, future in futures.items()}


_GATHER_IN_THREADS_FROM = 100_000  # rows: below, starting two threads costs more than it saves


def canonical_frame(cols: Columns) -> pd.DataFrame:
    """The canonical runs frame: sorted by agent, then newest first (SPEC 4's window order)."""
    order = canonical_order(cols.agent_codes, cols.finished_us, cols.rows, cols.run_id)
    take = pa.array(order)
    # The gathers release the interpreter lock: two threads gather the columns (at 10,000,000 runs each one
    # is a random read of 10,000,000 cells, about 0.2 s).
    gathers: dict[str, Callable[[], Any]] = {
        "run_id": lambda: cols.run_id.take(take),
        "agent_id": lambda: cols.agent_codes[order],
        "task_id": lambda: cols.task_codes[order],
        "status": lambda: cols.status_codes[order],
        "success": lambda: cols.success[order],
        "latency_ms": lambda: cols.latency_ms[order],
        "cost_usd": lambda: cols.cost_usd[order],
        "steps": lambda: cols.steps[order],
        "finished_at": lambda: None if cols.finished_us is None else cols.finished_us[order],
        "source_row": lambda: order + 1 if cols.rows is None else cols.rows[order].astype(np.int64, copy=False),
    }
    got = run_all(gathers, threads=len(order) >= _GATHER_IN_THREADS_FROM, name="canonical-frame")
    finished = (pd.Series(pd.array(np.full(len(order), NAT, dtype=np.int64).view("datetime64[us]")))
                if got["finished_at"] is None else pd.Series(got.pop("finished_at").view("datetime64[us]")))
    columns = {
        "run_id": pd.Series(pd.array(got.pop("run_id"), dtype=pd.StringDtype("pyarrow", na_value=np.nan))),
        "agent_id": pd.Categorical.from_codes(got.pop("agent_id"), categories=pd.Index(cols.agents, dtype="str")),
        "task_id": pd.Categorical.from_codes(got.pop("task_id"), categories=pd.Index(cols.tasks, dtype="str")),
        "status": pd.Categorical.from_codes(got.pop("status"), categories=list(STATUSES)),
        "success": pd.Series(got.pop("success")),
        "latency_ms": got.pop("latency_ms"),
        "cost_usd": got.pop("cost_usd"),
        "steps": got.pop("steps"),
        "finished_at": finished.dt.tz_localize("UTC"),
        "source_row": got.pop("source_row"),
    }
    # Every column is gathered fresh above: the frame takes them as they are (a dict's default is to copy each
    # one, and to copy the numbers again into one block), in CANONICAL_COLUMNS order (no reordering copy).
    frame = pd.DataFrame({name: columns.pop(name) for name in CANONICAL_COLUMNS}, copy=False)
    frame.attrs["has_finished_at"] = cols.finished_us is not None
    for name in PASS_THROUGH_COLUMNS:  # explorer-defined, after the canonical ones; no measure reads them
        if name in cols.extras:
            frame[name] = pd.array(cols.extras[name][order], dtype="Float64").astype("Int64")
    return frame


def canonical_order(agent_codes: np.ndarray, finished_us: np.ndarray | None, rows: np.ndarray | None,
                    run_id: Column) -> np.ndarray:
    """Row order: agent (text order) ascending, then finished_at descending with an empty one oldest,
    then run_id descending as text, compared only where agent and time tie; without a finished_at
    column, a later file row is newer (SPEC 1, SPEC 4). ``rows``: each run's file row (None: run i is row i + 1)."""
    if finished_us is None:
        if rows is None:
            age = np.arange(len(agent_codes) - 1, -1, -1, dtype=np.int64)  # the last row is the newest
        else:
            age = rows.max(initial=0) - rows.astype(np.int64)
    else:
        valid = finished_us != NAT
        if valid.all():  # the usual case: no copy of the recorded times, no choice per row
            age = finished_us.max(initial=0) - finished_us
        else:
            recorded = finished_us[valid]
            newest = recorded.max(initial=0)
            span = newest - recorded.min(initial=0)
            # Older is larger; an empty timestamp is older than every recorded one.
            age = np.where(valid, newest - finished_us, span + 1)
    ties = finished_us is not None  # file rows never tie
    bucketed = _bucketed_order(agent_codes, age, ties) if len(age) >= _BUCKETS_FROM else None
    if bucketed is not None:
        order, tied = bucketed
    else:
        order, tied = _sorted_order(agent_codes.astype(np.int64), age, ties)
    # Ties on (agent, time): newest first means run_id descending, compared as text.
    if tied is not None and tied.any():
        order = _break_ties(order, tied, run_id)
    return order


def _sorted_order(agents: np.ndarray, age: np.ndarray, ties: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The rows by agent, then age, in one sort of the whole column (and with ``ties``, which neighbours tie)."""
    span_bits = int(age.max(initial=0)).bit_length()
    agent_bits = int(agents.max(initial=0)).bit_length()
    if span_bits + agent_bits <= 62:  # one integer key: a single sort
        key = (agents << span_bits) | age
        # Not a stable sort: keys tie only on (agent, time), and those ties are ordered by run_id below
        # (run ids are unique by then); without a finished_at column every key is distinct.
        order = np.argsort(key)
        return order, _repeats(key[order]) if ties else None
    order = np.lexsort((age, agents))
    return order, _repeats(agents[order]) & _repeats(age[order]) if ties else None


def _repeats(values: np.ndarray) -> np.ndarray:
    """Whether each value but the last equals the next."""
    return values[1:] == values[:-1]


_BUCKETS_FROM = 2_000_000  # runs: below, one sort of the whole key is faster (1M: 0.11 s against 0.12 s; 10M: 2.07
# against 1.64 s bucketed, 2026-12-03)
_ROWS_PER_AGENT = 256  # fewer on average: a Python-level sort per agent would cost more than it saves


def _bucketed_order(agent_codes: np.ndarray, age: np.ndarray,
                    ties: bool) -> tuple[np.ndarray, np.ndarray | None] | None:
    """The rows by agent, then age, as one sort of (agent, age) orders them up to ties: the rows bucketed by
    agent with a radix sort (numpy's stable sort of 16-bit codes), then each agent's ages sorted, the agents
    shared between two threads (the sorts release the interpreter lock; each agent's rows fit the caches).
    With ``ties``, also whether each sorted row has the next one's agent and age (found agent by agent, where
    the ages are in the caches: no key of the whole column is made). None when the agents are too many or too
    small for a sort each to pay (one global sort then)."""
    agents = int(agent_codes.max(initial=0)) + 1
    if agents > 1 << 16 or agents * _ROWS_PER_AGENT > len(agent_codes):
        return None
    codes = agent_codes.astype(np.uint16)
    by_agent = np.argsort(codes, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=agents))))
    aged = age[by_agent]
    order = np.empty(len(by_agent), dtype=np.int64)
    tied = np.zeros(max(len(by_agent) - 1, 0), dtype=bool) if ties else None  # False across agents

    def sort(first: int, last: int) -> None:
        for a in range(first, last):
            start, end = int(bounds[a]), int(bounds[a + 1])
            within = np.argsort(aged[start:end])
            order[start:end] = by_agent[start:end][within]
            if tied is not None and end - start > 1:
                tied[start:end - 1] = _repeats(aged[start:end][within])

    middle = int(np.searchsorted(bounds, bounds[-1] // 2))  # about half the rows on each thread
    run_all({"first half": lambda: sort(0, middle), "second half": lambda: sort(middle, agents)}, threads=True,
            name="canonical-order")
    return order, tied


def _break_ties(order: np.ndarray, tied: np.ndarray, run_id: Column) -> np.ndarray:
    # A run of True in ``tied`` from j to k - 1 is one group of sorted positions j..k; found from the positions
    # that tie (few), never from a copy of the whole column.
    at = np.flatnonzero(tied)
    first = np.ones(len(at), dtype=bool)
    first[1:] = at[1:] != at[:-1] + 1
    last = np.ones(len(at), dtype=bool)
    last[:-1] = first[1:]
    starts, ends = at[first], at[last] + 1
    sizes = ends - starts + 1
    group = np.repeat(np.arange(len(starts)), sizes)
    members = np.repeat(starts, sizes) + (np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes))
    rows = order[members]
    table = pa.table({"group": group, "run_id": _combined(run_id.take(pa.array(rows)))})
    within = pc.sort_indices(table, sort_keys=[("group", "ascending"), ("run_id", "descending")]).to_numpy()
    out = order.copy()
    out[members] = rows[within]
    return out


def column_arrays(table: pa.Table) -> dict[str, Column]:
    """The table's columns for the checks, as read: the checks read a chunked column's chunks in turn."""
    return dict(zip(table.column_names, table.columns))

