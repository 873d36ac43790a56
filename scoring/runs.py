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
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

REQUIRED_COLUMNS = ("run_id", "agent_id", "task_id", "status", "success", "latency_ms", "cost_usd")
OPTIONAL_COLUMNS = ("steps", "finished_at")
CANONICAL_COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS + ("source_row",)
STATUSES = ("queued", "running", "completed", "failed", "timeout", "cancelled")
TERMINAL_STATUSES = ("completed", "failed", "timeout")
TRUE_TOKENS = frozenset({"true", "1", "1.0", "yes", "pass"})
FALSE_TOKENS = frozenset({"false", "0", "0.0", "no", "fail"})
NONFINITE_TOKENS = frozenset({"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"})
FORMATS = {".csv": "csv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet", ".pq": "parquet"}
DEFAULT_MAX_ROWS = 5_000_000
MAX_PROBLEMS_LISTED = 1000


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

    def message(self) -> str:
        where = [] if self.row is None else [f"row {self.row}"]
        if self.column is not None:
            where.append(f"column '{self.column}'")
        if self.value is not None:
            where.append(f"value {_show(self.value)}")
        return (", ".join(where) + ": " if where else "") + self.reason


class RunsValidationError(ValueError):
    """A runs file was refused. ``problems`` lists every reason; see :meth:`report`."""

    def __init__(self, problems: list[Problem], *, rows_read: int = 0, source: str = "input",
                 can_exclude: bool = True):
        self.problems = problems
        self.rows_read = rows_read
        self.source = source
        self.invalid_rows = len({p.row for p in problems if p.row is not None})
        # Only row-level problems can be excluded; a file-level one refuses the file.
        self.excludable = can_exclude and all(p.row is not None for p in problems)
        super().__init__(self.report())

    def report(self) -> str:
        head = f"{self.source}: refused, {len(self.problems)} problem(s)"
        if self.invalid_rows and self.rows_read:
            head += f" in {self.invalid_rows} of {self.rows_read} row(s)"
        lines = [head] + [f"  - {p.message()}" for p in self.problems[:MAX_PROBLEMS_LISTED]]
        if len(self.problems) > MAX_PROBLEMS_LISTED:
            lines.append(f"  ... and {len(self.problems) - MAX_PROBLEMS_LISTED} more")
        if self.excludable and self.invalid_rows:
            lines.append(f"The {self.invalid_rows} invalid row(s) can be excluded explicitly (--exclude-invalid).")
        return "\n".join(lines)

    def table(self) -> pd.DataFrame:
        """The problems as a table (row, column, value, reason) for display."""
        return pd.DataFrame(
            {
                "row": pd.array([p.row for p in self.problems], dtype="Int64"),
                "column": [p.column or "" for p in self.problems],
                "value": [_show(p.value) if p.value is not None else "" for p in self.problems],
                "reason": [p.reason for p in self.problems],
            }
        )


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

    @property
    def has_finished_at(self) -> bool:
        return bool(self.runs.attrs.get("has_finished_at", False))


def _show(value: str, limit: int = 60) -> str:
    text = value if len(value) <= limit else value[: limit - 1] + "…"
    return repr(text)


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


def decode_text(data: bytes) -> tuple[str, list[str]]:
    """Decode bytes as UTF-8 (with or without BOM) or UTF-16 (BOM); fall back to Latin-1 with a warning."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), []
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), []
        except UnicodeDecodeError as exc:
            raise _file_problem(f"the file starts with a UTF-16 mark but is not valid UTF-16 ({exc.reason})")
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        return data.decode("latin-1"), ["The file is not valid UTF-8; it was read as Latin-1."]


def _file_problem(reason: str, column: str | None = None) -> RunsValidationError:
    return RunsValidationError([Problem(None, column, None, reason)])


def _read_csv(text: str) -> tuple[pd.DataFrame, np.ndarray, list[Problem]]:
    if not text.strip():
        raise _file_problem("the file is empty")
    try:
        raw = pd.read_csv(
            io.StringIO(text), dtype=str, keep_default_na=False, header=None, skip_blank_lines=True
        )
    except (pd.errors.ParserError, ValueError) as exc:
        raise _file_problem(f"not readable as CSV: {exc}".strip()) from None
    header = [str(h) for h in raw.iloc[0].tolist()]
    body = raw.iloc[1:].reset_index(drop=True)
    body.columns = range(body.shape[1])
    # pandas pads a short line with empty cells; a short line is refused instead (nothing is guessed).
    fields = _fields_per_record(text)
    problems = [Problem(i, None, None, f"the line has {k} field(s); the header has {len(header)}")
                for i, k in enumerate(fields[1:], start=1) if k < len(header)] \
        if len(fields) - 1 == len(body) else []  # records that cannot be aligned are left to validation
    return _with_header(body.fillna(""), header), np.arange(1, len(body) + 1), problems


def _fields_per_record(text: str) -> list[int]:
    """Fields of each non-blank CSV record; a plain comma count when no cell is quoted (the common case)."""
    if '"' not in text:
        return [line.count(",") + 1 for line in text.splitlines() if line.strip(" \t,")]
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))  # pandas read it: so may the counter
    try:
        return [len(r) for r in csv.reader(io.StringIO(text)) if r and any(c.strip() for c in r)]
    except csv.Error as exc:
        raise _file_problem(f"not readable as CSV: {exc}") from None


def _with_header(body: pd.DataFrame, header: list[str]) -> pd.DataFrame:
    names = [normalize_column_name(h) for h in header]
    seen: dict[str, str] = {}
    for original, name in zip(header, names):
        if name in seen:
            raise _file_problem(
                f"duplicate column: {seen[name]!r} and {original!r} both name {name!r}", column=name
            )
        seen[name] = original
    body.columns = names
    return body


def normalize_column_name(name: object) -> str:
    """Header spelling is forgiving: 'Run ID', ' run-id ' and 'RUN_ID' all name ``run_id``."""
    return re.sub(r"[\s\-]+", "_", str(name).strip()).lower()


def _records_frame(records: list, rows: np.ndarray, problems: list[Problem]) -> tuple:
    bad = {i for i, r in enumerate(records) if not isinstance(r, dict)}
    for i in sorted(bad):
        problems.append(Problem(int(rows[i]), None, _preview(records[i]), "a run must be a JSON object"))
    clean = [{} if i in bad else r for i, r in enumerate(records)]
    # index= keeps one row per record even when the records have no keys at all.
    frame = (pd.DataFrame.from_records(clean, index=pd.RangeIndex(len(clean))) if clean
             else pd.DataFrame(columns=list(REQUIRED_COLUMNS)))
    header = [str(c) for c in frame.columns]
    frame = _with_header(frame, header)
    return frame, rows, problems


def _preview(value: object) -> str:
    return json.dumps(value, default=str)[:200]


def _read_json(text: str) -> tuple[pd.DataFrame, np.ndarray, list[Problem]]:
    if not text.strip():
        raise _file_problem("the file is empty")
    try:
        # NaN / Infinity literals stay text, so validation refuses them as non-finite numbers.
        doc = json.loads(text, parse_constant=str)
    except json.JSONDecodeError as exc:
        raise _file_problem(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if isinstance(doc, dict) and isinstance(doc.get("runs"), list):
        doc = doc["runs"]
    if not isinstance(doc, list):
        raise _file_problem('expected a JSON array of runs or an object {"runs": [...]}')
    return _records_frame(doc, np.arange(1, len(doc) + 1), [])


def _read_jsonl(text: str) -> tuple[pd.DataFrame, np.ndarray, list[Problem]]:
    records, rows, problems = [], [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line, parse_constant=str))
        except json.JSONDecodeError as exc:
            problems.append(Problem(number, None, line[:200], f"not valid JSON: {exc.msg}"))
            records.append({})
        rows.append(number)
    if not records:
        raise _file_problem("the file is empty")
    return _records_frame(records, np.asarray(rows), problems)


def _read_parquet(data: bytes) -> tuple[pd.DataFrame, np.ndarray, list[Problem]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise _file_problem(f"not readable as Parquet: {exc}") from None
    import pyarrow.compute as pc

    # pandas reads a Parquet null in a float column as NaN: find the real NaN values first, so
    # that they are refused as non-finite instead of passing as empty cells.
    nan_masks = {}
    for i, field in enumerate(table.schema):
        if pa.types.is_floating(field.type):
            mask = pc.fill_null(pc.is_nan(table.column(i)), False).to_numpy(zero_copy_only=False)
            if mask.any():
                nan_masks[i] = mask
    try:
        frame = table.to_pandas()
    except (pa.ArrowException, ValueError, TypeError, UnicodeDecodeError) as exc:
        raise _file_problem(f"not readable as runs: {exc}") from None
    for i, mask in nan_masks.items():
        column = frame.iloc[:, i].astype(object)
        column[mask] = "NaN"
        frame.isetitem(i, column)
    frame = _with_header(frame, [str(c) for c in frame.columns])
    return frame, np.arange(1, len(frame) + 1), []


def load_runs(
    source: str | Path | bytes | BinaryIO,
    *,
    name: str | None = None,
    format: str | None = None,
    exclude_invalid: bool = False,
    max_rows: int = DEFAULT_MAX_ROWS,
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
    max_rows : int
        Refuse files with more rows than this before scoring them.

    Raises
    ------
    RunsValidationError
        Listing every problem found (row, column, value, reason).
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = name or path.name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RunsValidationError([Problem(None, None, None, f"cannot read {path}: {exc.strerror}")],
                                      source=name) from None
    elif isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        data = source.read()
    name = name or "input"
    try:
        fmt = format or detect_format(name)
    except ValueError as exc:
        raise RunsValidationError([Problem(None, None, None, str(exc))], source=name) from None
    _check_size(data, fmt, max_rows, name)
    try:
        warnings: list[str] = []
        if fmt == "parquet":
            raw, rows, problems = _read_parquet(data)
        else:
            text, warnings = decode_text(data)
            reader = {"csv": _read_csv, "json": _read_json, "jsonl": _read_jsonl}[fmt]
            raw, rows, problems = reader(text)
    except RunsValidationError as exc:
        raise RunsValidationError(exc.problems, source=name) from None
    if len(raw) == 0:
        raise RunsValidationError([Problem(None, None, None, "the file has no runs")], source=name)
    if len(raw) > max_rows:
        raise RunsValidationError(
            [Problem(None, None, None, f"{len(raw):,} rows is more than this explorer is set up to hold ({max_rows:,})")],
            source=name,
        )
    return validate_runs(raw, rows=rows, source=name, format=fmt, exclude_invalid=exclude_invalid,
                         prior_problems=problems, warnings=warnings)


def _check_size(data: bytes, fmt: str, max_rows: int, name: str) -> None:
    """Refuse a file with too many rows before parsing it (a cheap upper bound, not a full read)."""
    if fmt in ("csv", "jsonl"):
        rows = data.count(b"\n") + (0 if data.endswith(b"\n") else 1) - (1 if fmt == "csv" else 0)
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            rows = data.count(b"\n\x00") + data.count(b"\x00\n")  # UTF-16: count encoded newlines
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            rows = pq.ParquetFile(io.BytesIO(data)).metadata.num_rows
        except Exception:  # unreadable: the reader reports it properly
            return
    else:
        return
    if rows > max_rows:
        raise RunsValidationError(
            [Problem(None, None, None, f"about {rows:,} rows is more than this explorer is set up to hold "
                                       f"({max_rows:,}); refused before reading")], source=name)


def runs_from_records(records: Iterable[dict], *, exclude_invalid: bool = False) -> pd.DataFrame:
    """Validate in-memory records (dicts with the SPEC 1 columns) into the canonical frame."""
    records = list(records)
    raw, rows, problems = _records_frame(records, np.arange(1, len(records) + 1), [])
    return validate_runs(raw, rows=rows, source="records", format="records",
                         exclude_invalid=exclude_invalid, prior_problems=problems).runs


# --------------------------------------------------------------------------- validation


def _cell_text(v):
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
    def __init__(self, rows: np.ndarray):
        self.rows = rows
        self.problems: list[Problem] = []

    def add(self, mask, column: str, values: pd.Series, reason) -> None:
        idx = np.flatnonzero(np.asarray(mask, dtype=bool))
        for i in idx:
            value = values.iloc[i]
            if isinstance(value, bytes):  # shown, not decoded: it may not be text
                value = value.decode("utf-8", "backslashreplace")
            text = None if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)
            self.problems.append(
                Problem(int(self.rows[i]), column, text, reason(i) if callable(reason) else reason)
            )


def _parse_ids(raw: pd.Series, column: str, out: _Collector) -> pd.Series:
    nested = _nested(raw)
    text = _text(raw.mask(nested))
    out.add(nested, column, raw, "a nested or binary value is not allowed here")
    out.add(text.isna() & ~nested, column, text, "missing value; this column is required")
    return text


def _parse_status(raw: pd.Series, out: _Collector) -> pd.Series:
    text = _text(raw.mask(_nested(raw)))
    status = text.str.lower()
    out.add(text.isna(), "status", text, "missing value; this column is required")
    out.add(text.notna() & ~status.isin(STATUSES), "status", text,
            "unknown status; expected one of " + ", ".join(STATUSES))
    return status


def _parse_success(raw: pd.Series, out: _Collector) -> pd.Series:
    if ptypes.is_bool_dtype(raw):
        return raw.astype("boolean")
    if ptypes.is_numeric_dtype(raw):
        values = raw.astype("float64")
        bad = values.notna() & ~values.isin([0.0, 1.0])
        out.add(bad, "success", values, "not a recognised outcome; expected true/false, 1/0, yes/no, pass/fail or empty")
        return _booleans(values == 1.0, values == 0.0, raw.index)
    nested = _nested(raw)
    shown = _text(raw.mask(nested))
    text = shown.str.lower()
    is_true, is_false = text.isin(TRUE_TOKENS), text.isin(FALSE_TOKENS)
    out.add(nested, "success", raw, "a nested or binary value is not allowed here")
    out.add(text.notna() & ~is_true & ~is_false, "success", shown,
            "not a recognised outcome; expected true/false, 1/0, yes/no, pass/fail or empty")
    return _booleans(is_true, is_false, raw.index)


def _booleans(is_true: pd.Series, is_false: pd.Series, index: pd.Index) -> pd.Series:
    t, f = is_true.to_numpy(dtype=bool), is_false.to_numpy(dtype=bool)
    return pd.Series(pd.arrays.BooleanArray(t, ~(t | f)), index=index)


def _parse_number(raw: pd.Series, column: str, out: _Collector, *, integer: bool = False) -> pd.Series:
    if ptypes.is_numeric_dtype(raw) and not ptypes.is_bool_dtype(raw):
        values = raw.astype("float64")
        shown = values
        nonfinite = pd.Series(np.isinf(values.to_numpy()), index=raw.index)
        unparsed = pd.Series(False, index=raw.index)
    else:
        nested = _nested(raw)
        text = _text(raw.mask(nested))
        out.add(nested, column, raw, "a nested or binary value is not allowed here")
        values = pd.to_numeric(text, errors="coerce").astype("float64")
        token = text.str.lower().isin(NONFINITE_TOKENS)
        nonfinite = token | np.isinf(values)
        unparsed = text.notna() & values.isna() & ~token
        shown = text
    out.add(unparsed, column, shown, "not a number")
    out.add(nonfinite, column, shown, "not a finite number")
    finite = values.where(~nonfinite)
    negative = finite < 0
    out.add(negative, column, shown, "negative; must be 0 or more")
    bad = nonfinite | unparsed | negative
    if integer:
        fractional = ~bad & finite.notna() & (finite % 1 != 0)
        out.add(fractional, column, shown, "not a whole number of steps")
        bad = bad | fractional
    return finite.where(~bad)


def _parse_timestamps(raw: pd.Series, out: _Collector) -> pd.Series:
    if ptypes.is_datetime64_any_dtype(raw):
        ts = raw if getattr(raw.dt, "tz", None) is not None else raw.dt.tz_localize("UTC")
        return ts.dt.tz_convert("UTC").astype("datetime64[us, UTC]")
    nested = _nested(raw)
    text = _text(raw.mask(nested))
    out.add(nested, "finished_at", raw, "a nested or binary value is not allowed here")
    parsed = pd.to_datetime(text, utc=True, format="ISO8601", errors="coerce")
    out.add(text.notna() & parsed.isna(), "finished_at", text,
            "not an ISO-8601 timestamp (e.g. 2026-07-01T12:00:00Z)")
    return parsed.astype("datetime64[us, UTC]")


def validate_runs(
    raw: pd.DataFrame,
    *,
    rows: np.ndarray | None = None,
    source: str = "input",
    format: str = "frame",
    exclude_invalid: bool = False,
    prior_problems: list[Problem] | None = None,
    warnings: list[str] | None = None,
) -> LoadedRuns:
    """Validate a raw table (columns named as in SPEC 1) into the canonical runs frame."""
    raw = raw.reset_index(drop=True)
    rows = np.arange(1, len(raw) + 1) if rows is None else np.asarray(rows)
    warnings = list(warnings or [])
    missing = [c for c in REQUIRED_COLUMNS if c not in raw.columns]
    if missing:
        raise RunsValidationError(
            [Problem(None, c, None, "required column is missing") for c in missing],
            rows_read=len(raw), source=source,
        )
    out = _Collector(rows)
    frame = pd.DataFrame(index=raw.index)
    for column in ("run_id", "agent_id", "task_id"):
        frame[column] = _parse_ids(raw[column], column, out)
    frame["status"] = _parse_status(raw["status"], out)
    frame["success"] = _parse_success(raw["success"], out)
    frame["latency_ms"] = _parse_number(raw["latency_ms"], "latency_ms", out)
    frame["cost_usd"] = _parse_number(raw["cost_usd"], "cost_usd", out)
    if "steps" in raw.columns:
        frame["steps"] = _parse_number(raw["steps"], "steps", out, integer=True)
    else:
        frame["steps"] = np.nan
    has_finished_at = "finished_at" in raw.columns
    if has_finished_at:
        frame["finished_at"] = _parse_timestamps(raw["finished_at"], out)
    else:
        frame["finished_at"] = pd.Series(pd.NaT, index=raw.index, dtype="datetime64[us, UTC]")
        if len(raw):
            warnings.append("No finished_at column: file order is used for the radar window (a later row is newer).")
    duplicated = frame["run_id"].duplicated(keep="first") & frame["run_id"].notna()
    if duplicated.any():
        first_row = pd.Series(rows, index=raw.index).groupby(frame["run_id"]).transform("first")
        out.add(duplicated, "run_id", frame["run_id"],
                lambda i: f"duplicate run_id; first seen at row {first_row.iloc[i]}")
    frame["source_row"] = rows.astype("int64")

    problems = list(prior_problems or [])
    structural = {p.row for p in problems}
    problems += [p for p in out.problems if p.row not in structural]
    problems.sort(key=lambda p: (p.row if p.row is not None else -1))
    excluded = 0
    if problems:
        error = RunsValidationError(problems, rows_read=len(raw), source=source)
        if not (exclude_invalid and error.excludable):
            raise error
        bad_rows = np.isin(rows, [p.row for p in problems])
        excluded = int(bad_rows.sum())
        frame = frame.loc[~bad_rows]
    runs = canonical_order(frame, has_finished_at)
    return LoadedRuns(runs=runs, source=source, format=format, rows_read=len(raw), excluded_rows=excluded,
                      excluded_problems=tuple(problems), warnings=tuple(warnings))


def canonical_order(frame: pd.DataFrame, has_finished_at: bool) -> pd.DataFrame:
    """Sort by agent, then newest first (SPEC 4's window order); index 0..n-1."""
    agent_rank = pd.factorize(frame["agent_id"], sort=True)[0]
    if has_finished_at:
        run_rank = pd.factorize(frame["run_id"], sort=True)[0]
        ts = pd.DatetimeIndex(frame["finished_at"]).asi8
        # NaT is int64 min: with descending order it sorts as the oldest (SPEC 1).
        order = np.lexsort((-run_rank, _newest_first(ts), agent_rank))
    else:
        order = np.lexsort((-frame["source_row"].to_numpy(), agent_rank))
    runs = frame.iloc[order].reset_index(drop=True)
    runs["success"] = runs["success"].astype("boolean")
    runs["status"] = pd.Categorical(runs["status"], categories=list(STATUSES))
    # Tasks as categories in text order: the measures group by their codes without re-hashing text.
    runs["task_id"] = pd.Categorical(runs["task_id"], categories=sorted(runs["task_id"].unique()))
    runs.attrs["has_finished_at"] = has_finished_at
    return runs[list(CANONICAL_COLUMNS)]


def _newest_first(ts: np.ndarray) -> np.ndarray:
    """Ascending key for newest-first order; NaT (int64 min) sorts as the oldest (SPEC 1)."""
    nat = ts == np.iinfo(np.int64).min
    return np.where(nat, np.iinfo(np.int64).max, -np.where(nat, 0, ts))
