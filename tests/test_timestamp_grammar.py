"""One timestamp grammar (docs/schema.md, "Timestamps"), read alike by every engine: the reference reader
(schema.timestamp_micros) on hand-worked examples, then the pandas engine (per cell, Arrow CSV and Parquet)
and DuckDB against it, row for row and reason for reason, on a fixed list and on hypothesis-made spellings.
PostgreSQL and Spark run the same lists in test_postgres.py and test_spark_engine.py."""

from __future__ import annotations

import io
import json

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RunsValidationError, load_runs
from scoring.contract.schema import SPEC_COLUMNS, TIMESTAMP_GROUPS, TIMESTAMP_PATTERN, timestamp_micros
from scoring.engines.sql_engine import DUCKDB, score_file_sql
from scoring.load.arrow_runs import NAT, grammar_timestamps
from tests.spellings import TIMESTAMP_SPELLINGS, timestamp_runs_csv, timestamp_spellings

S = 1_000_000
DAY = 86_400 * S
# (spelling, microseconds since 1970-01-01T00:00:00Z or None), worked by hand.
WORKED = [
    ("1970-01-01", 0),
    ("1970-01-01T00:00:01Z", S),
    ("1970-01-01 00:00:01z", S),
    ("1970-01-01t00:01", 60 * S),  # minutes without seconds
    ("1970-01-02T05:30:00+05:30", DAY),  # 05:30 at +05:30 is midnight UTC
    ("1970-01-02T05:30:00+0530", DAY),
    ("1970-01-01T16:00:00-08", DAY),  # 16:00 eight hours behind UTC is midnight UTC
    ("1970-01-01T00:00:00-00:30", 30 * 60 * S),  # "-00": the minutes take the sign
    ("1970-01-01T00:00:00.5", S // 2),
    ("1970-01-01T00:00:00.1234567Z", 123456),  # the seventh digit is dropped
    ("1970-01-01T00:00:00.123456999Z", 123456),  # never rounded up
    ("1969-12-31T23:59:59.9999999Z", -1),  # dropping a digit moves earlier, before 1970 too
    ("2000-03-01", (365 * 30 + 7 + 31 + 29) * DAY),  # 2000 is a leap year (divisible by 400)
    ("2000-02-29T00:00:00Z", (365 * 30 + 7 + 31 + 28) * DAY),
    (" \u30001970-01-01\t", 0),  # what Python's str.strip() removes is ignored
    ("0001-01-01T00:00:00Z", -62135596800 * S),  # the first instant of the range
    ("9999-12-31T23:59:59.999999Z", 253402300800 * S - 1),  # the last
    # Refused: not in the pattern.
    ("2026-07-01T05", None), ("2026-07-01T05Z", None), ("20260101T053000Z", None), ("2026-07-01Z", None),
    ("2026-07-01T10:30:45 +05:30", None), ("2026-07-01T10:30:45 Z", None), ("2026-07-01T10:30:45+05:3", None),
    ("2026-07-01T10:30:45+15:00", None), ("2026-07-01T10:30:45.1234567891Z", None),
    ("2026-07-01T10:30:45,5Z", None), ("2026-07-01T24:00:00", None), ("2026-07-01T23:59:60Z", None),
    ("2026-07-01 12:00:00 PST", None), ("yesterday", None), ("١٩٧٠-01-01", None), ("2026-07-01T", None),
    # Refused by the three rules after the pattern.
    ("0000-01-01", None), ("2026-02-29", None), ("2100-02-29", None), ("2026-04-31", None),
    ("0001-01-01T00:00:00+00:01", None), ("9999-12-31T23:59:59-00:01", None),
]


@pytest.mark.parametrize("spelling, micros", WORKED)
def test_the_reference_reader_on_hand_worked_examples(spelling, micros):
    assert timestamp_micros(spelling) == micros


def test_the_grammar_has_at_most_nine_groups_named_in_order():
    import re

    assert re.compile(TIMESTAMP_PATTERN).groups == len(TIMESTAMP_GROUPS) <= 9  # DuckDB numbers nine at most


def _arrow(spellings: list[str]) -> list[int | None]:
    got = grammar_timestamps(pa.array([s.strip() or None for s in spellings], pa.string()))
    return [None if v == NAT else int(v) for v in got]


def _duckdb(spellings: list[str]) -> list[int | None]:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'America/Los_Angeles'")  # a naive spelling is UTC whatever the session zone
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(spellings)))
    rows = con.execute(f"SELECT epoch_us({DUCKDB.timestamp('s')}) FROM t ORDER BY i").fetchall()
    return [r[0] for r in rows]


def test_every_listed_spelling_reads_alike_in_the_arrow_reader_and_duckdb():
    expected = [timestamp_micros(s) for s in TIMESTAMP_SPELLINGS]
    assert _arrow(TIMESTAMP_SPELLINGS) == expected
    assert _duckdb(TIMESTAMP_SPELLINGS) == expected
    assert 0 < sum(v is None for v in expected) < len(expected)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(timestamp_spellings(), min_size=50, max_size=200))
def test_made_up_spellings_read_alike_in_the_arrow_reader_and_duckdb(spellings):
    expected = [timestamp_micros(s) for s in spellings]
    assert _arrow(spellings) == expected
    assert _duckdb(spellings) == expected


def _files(spellings: list[str]) -> dict[str, bytes]:
    """The spellings as a runs CSV, JSON (text cells) and Parquet (text columns)."""
    text = timestamp_runs_csv(spellings)
    rows = [[f"r{i}", "a", "t", "completed", "true", "1000", "0.01", "3", s] for i, s in enumerate(spellings)]
    sink = io.BytesIO()
    pq.write_table(pa.table({c: pa.array([r[j] for r in rows], pa.string()) for j, c in enumerate(SPEC_COLUMNS)}),
                   sink)
    return {"x.csv": text.encode(), "x.json": json.dumps([dict(zip(SPEC_COLUMNS, r)) for r in rows]).encode(),
            "x.parquet": sink.getvalue()}


def _refused(load, *args, **kwargs) -> list[tuple[int | None, str, str]]:
    try:
        load(*args, **kwargs)
    except RunsValidationError as error:
        return sorted(((p.row, p.column, p.code) for p in error.problems), key=str)
    return []


def _check_engines(spellings: list[str], tmp_path) -> None:
    expected = sorted(((i + 1, "finished_at", "not_a_timestamp") for i, s in enumerate(spellings)
                       if s.strip() and timestamp_micros(s) is None), key=str)
    for name, data in _files(spellings).items():
        assert _refused(load_runs, data, name=name) == expected, name
        path = tmp_path / name
        path.write_bytes(data)
        if name != "x.json":  # the SQL engine reads CSV and Parquet
            assert _refused(score_file_sql, path) == expected, name
    # The accepted rows: every path keeps the reference's instant.
    good = [s for s in spellings if timestamp_micros(s) is not None or not s.strip()] or ["1970-01-01"]
    for name, data in _files(good).items():
        runs = load_runs(data, name=name).runs
        assert str(runs["finished_at"].dtype) == "datetime64[us, UTC]"
        got = dict(zip(runs["source_row"], pd.DatetimeIndex(runs["finished_at"]).asi8))
        assert [None if got[i + 1] == NAT else int(got[i + 1]) for i in range(len(good))] == \
            [timestamp_micros(s) for s in good], name


def test_every_listed_spelling_is_refused_or_kept_alike_by_the_pandas_and_sql_engines(tmp_path):
    _check_engines(TIMESTAMP_SPELLINGS, tmp_path)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(timestamp_spellings(), min_size=1, max_size=60))
def test_made_up_spellings_are_refused_or_kept_alike_by_the_pandas_and_sql_engines(tmp_path, spellings):
    _check_engines(spellings, tmp_path)


@settings(max_examples=40, deadline=None)
@given(st.lists(timestamp_spellings(), min_size=1, max_size=40))
def test_the_arrow_shortcut_for_common_spellings_reads_as_the_grammar(spellings):
    """A column of common spellings only (schema.TIMESTAMP_PLAIN_PATTERN) is cast by Arrow directly: the same
    instants, or None (then the per-cell parser reports) exactly when one cell is not in the grammar."""
    import re

    from scoring.load.arrow_runs import _PLAIN, timestamps

    plain = [s.strip() for s in spellings if re.search(_PLAIN, s.strip())] or ["2026-07-01T00:00:00Z"]
    expected = [timestamp_micros(s) for s in plain]
    got = timestamps(pa.array(plain, pa.string()))
    assert (None if got is None else [int(v) for v in got]) == (None if None in expected else expected)
