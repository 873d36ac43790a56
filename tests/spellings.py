"""The loader's spelling lists: every way the rules allow a valid cell to be written, and cells that are not
valid, with ``files`` writing one table as CSV, JSON and Parquet text. The Arrow path, the SQL engines and Spark
are all checked against these lists (tests/test_arrow_path.py, tests/test_spark_engine.py)."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq

from scoring.schema import SPEC_COLUMNS

# Cells that are valid but spelled in every way the rules allow, and cells that are not valid.
NUMBERS = ["1", " 2 ", "1e3", ".5", "5.", "0", "-0", "0.1000000000000000055511151231257827", "1e-320",
           "3.14159265358979323846", "\u00a05", "+7", "1.7976931348623157e308", "0.30000000000000004", "",
           "9007199254740993", "1E+05", "00012", "\u20035\u3000"]
BAD_NUMBERS = ["nan", "inf", "-1", "abc", "1_000", "0x10", "1e309", "-inf", "Infinity", "١٢"]
STEPS = ["1", "2.0", "", "0", "-0", "1e1", " 3 ", "40"]
BAD_STEPS = ["2.5", "-3", "x"]
TIMES = ["2026-07-01T00:00:00Z", "2026-07-01T00:00:00", "2026-07-01 00:00:00+02:00", "2026-07-01T00:00:00.1Z",
         "2026-07-01", "", " 2026-07-01T00:00:00Z ", "2026-07-01T00:00:00.123456789Z", "2026-07-01T00:00:00-05:30",
         "2026-07-01T00:00:00.5", "2026-07-01T00:00:00+00:00", "2026-07-01T00:00:00.000001Z"]
BAD_TIMES = ["yesterday", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-07-01T24:00:00Z"]
IDS = ["a", " a", "a\u3000", "\x1fa", "é", "b", "a\u00a0", "𝒳", "a,b", 'q"q', "A", "a\x85", "1"]
STATUSES = ["completed", " Completed ", "FAILED", "timeout", "queued", "running", "cancelled"]
SUCCESS = ["true", "False", " 1.0", "0", "yes", "NO", "pass", "Fail", "", "1", "0.0"]
HEADER = list(SPEC_COLUMNS)


def cell_of(value: str) -> str:
    """A CSV cell, quoted when it holds a comma, a quote or a line break."""
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n\r') else value


def files(rows: list[list[str]]) -> dict[str, bytes]:
    """The same table as CSV, as JSON (every cell as text) and as Parquet (every column as text)."""
    text = ",".join(HEADER) + "\n" + "\n".join(",".join(cell_of(v) for v in r) for r in rows) + "\n"
    records = [dict(zip(HEADER, r)) for r in rows]
    sink = io.BytesIO()
    pq.write_table(pa.table({c: pa.array([r[i] for r in rows], pa.string()) for i, c in enumerate(HEADER)}), sink)
    return {"x.csv": text.encode(), "x.json": json.dumps(records).encode(), "x.parquet": sink.getvalue()}
