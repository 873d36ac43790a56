"""The SQL engine gives the same report as the pandas engine: DuckDB here, PostgreSQL in test_postgres.py."""

import json
import math
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RunsValidationError, load_runs, score_runs
from scoring.contract.schema import WHITESPACE
from scoring.engines.sql_engine import LIMB_BITS, LIMB_LOW, LIMB_TOP, redact, score_file_sql
from tests.helpers import (
    EDGE_CSV,
    SAMPLE,
    TINY_LATENCY_CSV,
    assert_same_report,
    many_problems_csv,
    run_tables,
    spark_plan,
    write_parquet,
    xxhash_like,
)
from tests.helpers import REQUIRED_HEADER as HEADER


def both(path: Path):
    return (json.loads(score_file_sql(path).to_json_text()),
            json.loads(score_runs(load_runs(path).runs).to_json_text()))


def test_sample_csv_gives_the_same_report():
    assert_same_report(*both(SAMPLE))

@pytest.mark.parametrize("source", ["sample", "edge"])
def test_spark_s_query_plan_run_by_duckdb_gives_the_same_report(tmp_path, source):
    # Spark's choices (spark_plan) are the scorer's, not Spark's: DuckDB run with them gives the pandas engine's
    # report to the bit.
    path = SAMPLE
    if source == "edge":
        path = tmp_path / "edge.csv"
        path.write_text(EDGE_CSV)
    with spark_plan():
        assert_same_report(*both(path))


@pytest.mark.parametrize("hashes", ["distinct", "length % 3", "infra as floor"])
def test_the_spread_joins_on_the_agents_hashes_only_where_every_agent_s_differs(monkeypatch, tmp_path, hashes):
    # Spark joins each run to its agent's mean on xxhash64(agent_id) (Dialect.hashed_join) where no two agents share
    # a hash, on the text otherwise; the same report either way. "infra as floor": the agent with no mean (no
    # completed latency) shares its hash with one that has one.
    from scoring.engines.sql_engine import SqlScorer

    hash64 = {"distinct": xxhash_like, "length % 3": lambda e: f"CAST(length({e}) % 3 AS BIGINT)",
              "infra as floor": lambda e: xxhash_like(f"(CASE WHEN {e} = 'infra' THEN 'floor' ELSE {e} END)")}[hashes]
    joined_on = []
    deviations = SqlScorer._deviations

    def spied(self, means, runs, join):
        joined_on.append(means[1])
        return deviations(self, means, runs, join)

    monkeypatch.setattr(SqlScorer, "_deviations", spied)
    path = tmp_path / "edge.csv"
    path.write_text(EDGE_CSV)
    with spark_plan(hash64=hash64):
        assert_same_report(*both(path))
    assert joined_on == ["CAST(hash(r.agent_id) >> 1 AS BIGINT) = m.agent_key" if hashes == "distinct"
                         else "r.agent_id = m.agent_key"]


def test_sample_parquet_gives_the_same_report(tmp_path):
    frame = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    typed = load_runs(SAMPLE).runs.drop(columns="source_row")
    typed["status"] = typed["status"].astype(str)
    path = tmp_path / "runs.parquet"
    typed.to_parquet(path, index=False)
    assert len(frame) == len(typed)
    assert_same_report(*both(path))


def test_edge_case_file_gives_the_same_report(tmp_path):
    path = tmp_path / "edge.csv"
    path.write_text(EDGE_CSV)
    sql_doc, pandas_doc = both(path)
    assert_same_report(sql_doc, pandas_doc)
    agents = {a["agent_id"]: a for a in pandas_doc["agents"]}
    assert agents["floor"]["headline"]["zero_success_floor"] and agents["infra"]["headline"]["score"] is None
    assert agents["zero-steps"]["radar"]["axes"]["tool_efficiency"] is None


def test_tiny_and_huge_latencies_give_the_same_report(tmp_path):
    """Squared deviations of 1e-200 ms underflowed in every engine alike (consistency 1.0, not 1/9): both scale
    the deviations of an agent's tiny latencies up by the same power of two (spread_shift), as huge ones down."""
    path = tmp_path / "tiny.csv"
    path.write_text(TINY_LATENCY_CSV)
    sql_doc, pandas_doc = both(path)
    assert_same_report(sql_doc, pandas_doc)
    agents = {a["agent_id"]: a["headline"] for a in pandas_doc["agents"]}
    assert agents["tiny"]["score"] == 80.67 and abs(agents["tiny"]["consistency"] - 1 / 9) < 1e-15
    assert 0 < agents["subnormal"]["consistency"] < 1 and 0 < agents["huge"]["consistency"] < 1


def test_small_window_policy_uses_the_run_id_tie_break(tmp_path):
    import dataclasses

    from scoring import CANONICAL_POLICY

    path = tmp_path / "edge.csv"
    path.write_text(EDGE_CSV)
    policy = dataclasses.replace(CANONICAL_POLICY, radar_window=3)
    sql = json.loads(score_file_sql(path, policy).to_json_text())
    pandas = json.loads(score_runs(load_runs(path).runs, policy).to_json_text())
    assert_same_report(sql, pandas)
    ties = next(a for a in pandas["agents"] if a["agent_id"] == "ties")
    # r9, r8, r7 are the newest by run_id as text ('r9' > 'r11' > 'r10'); r9 and r7 succeed.
    assert ties["radar"]["axes"]["correctness"] == round(100 * 2 / 3, 2)


@pytest.mark.parametrize("plan", ["duckdb", "spark"])
def test_no_completed_latency_anywhere_gives_the_same_report(tmp_path, plan):
    # No agent has a mean latency, so there is no spread to take: Spark's plan then counts the tasks for pass^k in a
    # query of their own (they otherwise come with the spread's scan).
    rows = [f"r{i},{'ab'[i % 2]},t{i % 3},{('failed', 'timeout', 'completed')[i % 3]},{'true' if i % 4 else 'false'},"
            f"{'' if i % 3 == 2 else 1000 + i},0.01" for i in range(24)]
    path = tmp_path / "no_latency.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    with spark_plan(plan == "spark"):
        sql, pandas = both(path)
    assert_same_report(sql, pandas)
    assert all(a["headline"]["avg_latency_ms"] is None for a in pandas["agents"])
    assert all(a["repeatability"]["qualifying_tasks"] == 3 for a in pandas["agents"])


@pytest.mark.parametrize("plan", ["duckdb", "spark"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(run_tables(min_size=1, max_size=80))
def test_random_tables_give_the_same_report(tmp_path, plan, rows):
    # plan "spark": as test_spark_s_query_plan_run_by_duckdb_gives_the_same_report, on random tables.
    path = tmp_path / "random.parquet"
    write_parquet(rows, path)
    with spark_plan(plan == "spark"):
        assert_same_report(*both(path))


LINES_CSV = (HEADER + "\n\nr1,a,t1,completed,true,100,0.01\nr2,a,\"t\n2\",completed,true,100,0.01\n"
             "r3,a,t3,done,true,-5,0.01\n\nr4,b,t1,completed,maybe,100,0.01\n")


def test_the_sql_engine_says_each_refused_row_s_file_line_as_the_pandas_engine_does(tmp_path):
    # A blank line after the header and one later, a cell over two lines: row 3 is line 6, row 4 line 8. The SQL
    # engine's refusal says the same rows and lines, in the same words, as the pandas engine's.
    path = tmp_path / "lines.csv"
    path.write_text(LINES_CSV)
    with pytest.raises(RunsValidationError) as sql:
        score_file_sql(path)
    with pytest.raises(RunsValidationError) as pandas:
        load_runs(path)
    assert sql.value.lines == pandas.value.lines == {3: 6, 4: 8}
    said = [line for line in sql.value.report().splitlines() if line.startswith("  - ")]
    assert said == [line for line in pandas.value.report().splitlines() if line.startswith("  - ")]
    assert said[0].startswith("  - row 3 (line 6), column 'status', value 'done'")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "latin-1"])
def test_a_file_s_record_lines_are_read_a_line_at_a_time_as_from_its_bytes(tmp_path, encoding):
    # The SQL engine reads files of any size: the lines of its refused rows are read off the file, a line at a time,
    # decoded as the loader decodes bytes; the same lines as csv_record_lines finds in the bytes, up to a bound.
    from scoring.load.runs import csv_file_record_lines, csv_record_lines

    # Lines end in \n, \r\n and once a lone \r (a line of its own only where the bytes' reader makes it one).
    tail = "\r\n".join(f"x{i},a,t,completed,true,1,0" for i in range(5)) + "\rx5,a,t,completed,true,1,0\nx6,a,t"
    text = LINES_CSV.replace("r4,b", "r4,\u00e9") + tail + ",completed,true,1,0\n"
    path = tmp_path / "lines.csv"
    path.write_bytes(text.encode(encoding))
    rows = {1, 2, 3, 4, 6, 9, 10, 11}
    assert csv_file_record_lines(path, rows) == csv_record_lines(text.encode(encoding), rows)
    # Python's csv reader stops at the lone \r (a new line inside an unquoted cell): the rows after it keep no line.
    assert csv_file_record_lines(path, rows) == {1: 3, 2: 4, 3: 6, 4: 8, 6: 10}
    assert csv_file_record_lines(path, rows, up_to_row=4) == {1: 3, 2: 4, 3: 6, 4: 8}


def test_the_sql_engine_refuses_invalid_rows_with_row_numbers(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(EDGE_CSV.replace("w2,few,t1,completed", "w2,few,t1,done").replace(",2500,", ",-3,"))
    with pytest.raises(RunsValidationError) as info:
        score_file_sql(path)
    problems = {(p.row, p.column) for p in info.value.problems}
    # f0-f5, f9 are rows 1-7, w1 row 8, w2 row 9: the same numbering as the pandas loader.
    assert problems == {(9, "status"), (9, "latency_ms")}
    with pytest.raises(RunsValidationError) as pandas_info:
        load_runs(path)
    assert problems == {(p.row, p.column) for p in pandas_info.value.problems}


def test_the_sql_engine_reports_a_missing_column(tmp_path):
    path = tmp_path / "missing.csv"
    path.write_text(EDGE_CSV.replace("cost_usd,", "price,"))
    with pytest.raises(RunsValidationError, match="cost_usd"):
        score_file_sql(path)


def test_the_sql_engine_caps_its_memory_and_still_scores(tmp_path):
    report = score_file_sql(SAMPLE, memory_limit="64MB", temp_directory=str(tmp_path), threads=1)
    assert report.agents[0].agent_id == "steady-pro"


@pytest.mark.parametrize("text", [
    "postgresql://scorer:s3cret@db.internal:5432/runs",
    "connection to server failed: password=s3cret host=x",
    "postgres://scorer:s3cret@127.0.0.1/x",
])
def test_credentials_are_redacted(text):
    assert "s3cret" not in redact(text)


def test_naive_timestamps_are_utc_in_both_engines_whatever_the_host_zone(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        rows = ["naive,a,t0,completed,false,1000,0.01,3,2026-07-01T10:00:00"]
        rows += [f"r{i:03d},a,t0,completed,true,1000,0.01,3,2026-07-01T11:{i // 60:02d}:{i % 60:02d}Z"
                 for i in range(100)]
        path = tmp_path / "naive.csv"
        path.write_text(HEADER + ",steps,finished_at\n" + "\n".join(rows) + "\n")
        sql_doc, pandas_doc = both(path)
        assert_same_report(sql_doc, pandas_doc)
        # The naive run is 10:00 UTC, older than the 100 runs after it: outside the window.
        assert pandas_doc["agents"][0]["radar"]["axes"]["correctness"] == 100.0
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


@pytest.mark.parametrize("rows", [
    [f"r{i},a,t,completed,true,2050,0.1" for i in range(10)],  # exact decimal half: 72.925
    ["r1,a,t,completed,true,2050,0.1"],
    [f"r{i},a,t,completed,true,{1000 + i / 3:.12f},{0.1 + i / 7:.12f}" for i in range(40)],
])
def test_means_agree_to_the_last_bit_at_rounding_halves(tmp_path, rows):
    path = tmp_path / "half.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    sql_doc, pandas_doc = both(path)
    sql_h, pandas_h = sql_doc["agents"][0]["headline"], pandas_doc["agents"][0]["headline"]
    assert sql_h["avg_cost_usd"] == pandas_h["avg_cost_usd"] and sql_h["score"] == pandas_h["score"]


def test_the_sql_engine_refuses_nan_in_parquet(tmp_path):
    path = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"run_id": ["r1", "r2", "r3"], "agent_id": ["a"] * 3, "task_id": ["t"] * 3,
                             "status": ["completed"] * 3, "success": [True, False, None],
                             "latency_ms": [1000.0, float("nan"), 2000.0], "cost_usd": [0.01, 0.01, None]}), path)
    with pytest.raises(RunsValidationError) as info:
        score_file_sql(path)
    assert [(p.row, p.column, p.reason) for p in info.value.problems] == [(2, "latency_ms", "not a finite number")]


def test_negative_infinity_is_refused_as_not_finite_only_as_the_pandas_engine_refuses_it(tmp_path):
    text = tmp_path / "inf.csv"
    text.write_text(HEADER + "\nr1,a,t,completed,true,-inf,0.01\nr2,a,t,completed,true,1000,-Infinity\n")
    typed = tmp_path / "inf.parquet"
    pq.write_table(pa.table({"run_id": ["r1", "r2"], "agent_id": ["a"] * 2, "task_id": ["t"] * 2,
                             "status": ["completed"] * 2, "success": [True, True],
                             "latency_ms": [float("-inf"), 1000.0], "cost_usd": [0.01, float("-inf")]}), typed)
    for path in (text, typed):
        listed = []
        for load in (score_file_sql, load_runs):
            with pytest.raises(RunsValidationError) as info:
                load(path)
            listed.append([(p.row, p.column, p.code) for p in info.value.problems])
        assert listed[0] == listed[1] == [(1, "latency_ms", "not_finite"), (2, "cost_usd", "not_finite")], path


def test_whitespace_around_ids_status_and_outcomes_is_read_alike(tmp_path):
    path = tmp_path / "ws.csv"
    path.write_text(HEADER + "\nr1,a,t1,completed\t,\ttrue,1000,0.01\n r2,a ,t1 , Completed ,TRUE ,1500,0.02\n")
    assert_same_report(*both(path))
    dup = tmp_path / "dup.csv"
    dup.write_text(HEADER + "\nr1,a,t1,completed,true,1000,0.01\n r1 ,a,t1,completed,true,1000,0.01\n")
    for load in (score_file_sql, load_runs):
        with pytest.raises(RunsValidationError, match="duplicate run_id"):
            load(dup)


def test_duckdb_trims_text_as_python_strips_it():
    """DuckDB's trim (a regular expression, skipped where the first and last characters are printable ASCII)
    removes exactly the characters str.strip() removes: every pair of first and last characters among the
    whitespace, the edges of printable ASCII (! and ~) and their neighbours, and nothing, around a few middles."""
    import duckdb

    from scoring.engines.sql_engine import DUCKDB

    ends = ["", "a", "!", "~", "\x7f", "\x80", "\x01", "é", "𝒳", *WHITESPACE]
    texts = [left + middle + right for left in ends for right in ends for middle in ("", "x", " b\u3000c ")]
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, x VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(texts)))
    got = [x for _, x in con.execute(f"SELECT i, {DUCKDB.trimmed('x')} FROM t ORDER BY i").fetchall()]
    assert got == [t.strip(WHITESPACE) for t in texts]


@pytest.mark.parametrize("cell, column", [("1_000", "latency_ms"), ("0x10", "cost_usd"),
                                          ("2026-07-01 12:00:00 PST", "finished_at")])
def test_both_engines_refuse_the_same_malformed_cells(tmp_path, cell, column):
    values = {"latency_ms": "1000", "cost_usd": "0.01", "finished_at": "2026-07-01T12:00:00Z"}
    values[column] = cell
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + ",finished_at\n" + f"r1,a,t,completed,true,{values['latency_ms']},"
                    f"{values['cost_usd']},{values['finished_at']}\n")
    for load in (score_file_sql, load_runs):
        with pytest.raises(RunsValidationError) as info:
            load(path)
        assert [(p.row, p.column) for p in info.value.problems] == [(1, column)], load


@pytest.mark.parametrize("cell, code", [("9" * 4400, "not_finite"), ("-" + "9" * 5000, "not_finite"),
                                        ("1" + "0" * 5000 + "e-5000", None), ("9" * 4301 + "x", "not_a_number")])
def test_a_whole_number_past_pythons_4300_digits_is_read_as_the_sql_engine_reads_it(tmp_path, cell, code):
    """pandas read a whole number of over 4,300 digits as no number (Python's limit on int()), where DuckDB reads
    the same spelling as a double past the largest one: 'not a number' beside 'not a finite number'."""
    path = tmp_path / "long.csv"
    path.write_text(HEADER + f"\nr1,a,t,completed,true,{cell},0.01\nr2,a,t,completed,true,10,0.01\n")
    if code is None:  # a long spelling of 1.0: read alike, as 1 ms
        assert_same_report(*both(path))
        return
    codes = []
    for load in (score_file_sql, load_runs):
        with pytest.raises(RunsValidationError) as info:
            load(path)
        codes.append([(p.row, p.column, p.code) for p in info.value.problems])
    assert codes[0] == codes[1] == [(1, "latency_ms", code)]


def test_a_refusal_quotes_each_value_as_written_as_the_pandas_engine_does(tmp_path):
    # The SQL engine quoted an outcome lowered ('maybe' for 'Maybe') and a status untrimmed ('DONE ').
    path = tmp_path / "values.csv"
    path.write_text(HEADER + "\nr1,a,t,completed,Maybe,10,0.1\nr2,a,t,\u3000DONE ,true,10,0.1\n"
                             "r3,a,t,completed, NA ,10,0.1\nr4,a,t,,true,10,0.1\n")
    quoted = []
    for load in (score_file_sql, load_runs):
        with pytest.raises(RunsValidationError) as info:
            load(path)
        quoted.append([(p.row, p.column, p.value, p.code) for p in info.value.problems])
    assert quoted[0] == quoted[1] == [(1, "success", "Maybe", "not_an_outcome"),
                                      (2, "status", "DONE", "unknown_status"),
                                      (3, "success", "NA", "not_an_outcome"), (4, "status", None, "missing_value")]


def _duckdb_exact_sums(values_by_agent: dict[str, list[float]]) -> dict[str, float]:
    import duckdb

    from scoring.engines.sql_engine import DUCKDB, SqlScorer

    con = duckdb.connect()
    rows = [(agent, v) for agent, values in values_by_agent.items() for v in values]
    con.execute("CREATE TABLE xs (agent_id VARCHAR, v DOUBLE)")
    con.executemany("INSERT INTO xs VALUES (?, ?)", rows)

    def execute(query):
        cursor = con.execute(query)
        return [c[0] for c in cursor.description], cursor.fetchall()

    scorer = SqlScorer(execute, DUCKDB, "xs", has_finished_at=False, has_row_numbers=False)
    return scorer.exact_sums("v", "v IS NOT NULL", source="xs")


def test_exact_sums_at_powers_of_two_and_across_the_double_range():
    # Just below, at and just above 2^k for k from -1000 to 1000: where log2 rounds to k just below a power of
    # two, the exponent is one too large, and the mantissa must still be an exact integer.
    import math

    sets = {f"2^{k} to {side} x{copies}": [math.nextafter(2.0 ** k, side)] * copies
            for k in range(-1000, 1001, 3) for side, copies in ((0.0, 1), (math.inf, 1), (0.0, 3), (2.0 ** k, 5))}
    sets["spread"] = [float.fromhex(f"0x1.{i * 7919 % 2 ** 52:013x}p{i % 2000 - 1000}") for i in range(1, 500)]
    sets["many"] = [2.0 ** 21 - 1 / (i + 3) for i in range(3000)]  # mantissas whose sum passes 2^63
    sets["small"] = [math.nextafter(2.0 ** -1020, 1), 3.0]  # a tiny value: summed by math.fsum
    got = _duckdb_exact_sums(sets)
    assert got == {agent: math.fsum(values) for agent, values in sets.items()}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1e300, allow_nan=False, allow_infinity=False), min_size=1,
                max_size=40))
def test_exact_sums_are_fsum(values):
    import math

    assert _duckdb_exact_sums({"a": values}) == ({"a": math.fsum(values)} if any(values) else {})


@pytest.mark.parametrize("column", ["run_id", "agent_id", "task_id"])
def test_a_missing_id_alone_is_refused_by_both_engines(tmp_path, column):
    # The rules on run_id are counted by the duplicate check, the others by the pass per agent: either alone
    # refuses the file, with the same rows as the pandas loader.
    rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t"} for i in range(6)]
    rows[2][column], rows[4][column] = "", " \t "
    path = tmp_path / "missing.csv"
    path.write_text(HEADER + "\n" + "".join(f'{r["run_id"]},{r["agent_id"]},{r["task_id"]},completed,true,1000,0.01\n'
                                            for r in rows))
    for load in (score_file_sql, load_runs):
        with pytest.raises(RunsValidationError) as info:
            load(path)
        assert [(p.row, p.column) for p in info.value.problems] == [(3, column), (5, column)], load


@pytest.mark.parametrize("source", ["sample", "edge"])
def test_run_id_hashes_shared_with_the_empty_id_or_with_each_other_change_no_report(monkeypatch, tmp_path, source):
    # The duplicate check groups run_ids by a hash where the dialect has one, and reads a missing run_id off the
    # NULL group and the empty id's group. A hash that most ids share (with each other and with '') must change
    # nothing: a repeated hash is checked again on the ids, a shared empty-id group counts the rules exactly.
    from scoring.engines import sql_engine

    monkeypatch.setattr(sql_engine.DUCKDB, "hash64", lambda expr: f"CAST(length({expr}) % 3 AS BIGINT)",
                        raising=False)
    path = SAMPLE
    if source == "edge":
        path = tmp_path / "edge.csv"
        path.write_text(EDGE_CSV)
    sql, pandas = both(path)
    assert_same_report(sql, pandas)


def _limb_range_values():
    """Doubles within the exact sums' limbs (sql_engine.LIMB_LOW to LIMB_TOP: 53-bit mantissas at every exponent
    there, the top and bottom limbs' edges among them), and any double >= 0 besides (outside: summed per exponent)."""
    inside = st.builds(lambda m, e: math.ldexp(m, e), st.integers(1, 2 ** 53 - 1), st.integers(LIMB_LOW, LIMB_TOP - 53))
    edges = st.sampled_from([math.ldexp(1.0, LIMB_LOW), math.ldexp(2 ** 53 - 1, LIMB_TOP - 53),
                             math.ldexp(2 ** LIMB_BITS - 1, LIMB_LOW),
                             math.ldexp(2 ** LIMB_BITS - 1, LIMB_TOP - LIMB_BITS),
                             math.ldexp(1.0, LIMB_LOW - 1), math.ldexp(1.0, LIMB_TOP), 0.0])
    # Within the range, but with bits below its lowest limb.
    straddling = st.builds(lambda m, e: math.ldexp(m, e), st.integers(2 ** 52, 2 ** 53 - 1).map(lambda m: m | 1),
                           st.integers(LIMB_LOW - 52, LIMB_LOW - 1))
    return st.one_of(inside, inside, edges, straddling, st.floats(min_value=0.0, max_value=1e300, allow_nan=False))


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.lists(_limb_range_values(), min_size=1, max_size=40),
                       min_size=1))
def test_exact_sums_as_limbs_are_fsum_whatever_the_values(values):
    # SqlScorer's limb sums (Dialect.limb_sums; Spark's, run here on DuckDB): every agent's sum is math.fsum's, the
    # values within the limbs summed as limbs, an agent with a value outside them summed again per exponent.
    import duckdb

    from scoring.engines.sql_engine import DUCKDB, SqlScorer

    con = duckdb.connect()
    con.execute("CREATE TABLE t (agent_id VARCHAR, v DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [[a, v] for a, vs in values.items() for v in vs])
    queries = []

    def execute(query):
        queries.append(query)
        found = con.execute(query)
        return [c[0] for c in found.description], found.fetchall()

    scorer = SqlScorer(execute, DUCKDB, "t", has_finished_at=False, has_row_numbers=False)
    for limbs in (True, False):
        got = scorer.exact_sums_of([("v", "v IS NOT NULL")], limbs=limbs)[0]
        assert {a: got.get(a, 0.0) for a in values} == {a: math.fsum(vs) for a, vs in values.items()}, limbs
    # Values within the limbs need no sum per exponent.
    del queries[:]
    inside = all(2.0 ** LIMB_LOW <= v < 2.0 ** LIMB_TOP and
                 math.ldexp(v, -LIMB_LOW).is_integer() for vs in values.values() for v in vs if v > 0)
    scorer.exact_sums_of([("v", "v IS NOT NULL")], limbs=True)
    assert (len(queries) == 1) == inside


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["", "a", "b", "c", "dd", "eee", "r1", "r22"])),
                min_size=1, max_size=40),
       st.sampled_from(["xxhash", "length % 3", "constant"]))
def test_the_duplicate_check_on_hashes_read_whole_counts_as_the_grouped_count(ids, hash_kind):
    # SqlScorer._repeated_hashes (the hashes read whole and sorted in Python, as Spark does below HASHES_HERE rows)
    # gives the grouped count's three numbers, whatever the ids (NULL, empty, repeated) and however weak the hash
    # (ids sharing it with each other and with the empty id).
    import duckdb

    from scoring.engines import sql_engine
    from scoring.engines.sql_engine import DUCKDB, SqlScorer, validation_queries

    hash64 = {"xxhash": lambda e: f"CAST(hash({e}) >> 1 AS BIGINT)",
              "length % 3": lambda e: f"CAST(length({e}) % 3 AS BIGINT)",
              "constant": lambda e: "CAST(7 AS BIGINT)"}[hash_kind]
    con = duckdb.connect()
    con.execute("CREATE TABLE runs (run_id VARCHAR)")
    con.executemany("INSERT INTO runs VALUES (?)", [[i] for i in ids])

    def execute(query):
        found = con.execute(query)
        return [c[0] for c in found.description], found.fetchall()

    def read_bigints(query):
        column = con.sql(query).to_arrow_table().column(0)  # con.execute's would copy the rows once more
        return column.drop_null().to_numpy(), column.null_count

    counts = []
    for reader in (None, read_bigints):
        scorer = SqlScorer(execute, DUCKDB, "runs", has_finished_at=False, has_row_numbers=False)
        scorer.read_bigints = reader
        original = DUCKDB.hash64
        try:
            object.__setattr__(DUCKDB, "hash64", hash64)
            counts.append(scorer._repeated_run_ids(validation_queries(DUCKDB), len(ids)))
        finally:
            object.__setattr__(DUCKDB, "hash64", original)
    named = [i for i in ids if i]
    assert counts[0] == counts[1]
    # Repeats are counted on the ids themselves; the missing ids read off the hashes may count ids that hash like
    # the empty one (the rules are then counted row by row): never fewer than there are.
    assert counts[0][:2] == (len({i for i in named if named.count(i) > 1}), len(named) - len(set(named)))
    assert counts[0][2] >= len(ids) - len(named) and (hash_kind != "xxhash" or counts[0][2] == len(ids) - len(named))
    assert len(ids) <= sql_engine.HASHES_HERE


@pytest.mark.parametrize("hashed", [False, True])
def test_a_missing_or_repeated_id_is_refused_alike_whatever_the_hash(monkeypatch, tmp_path, hashed):
    from scoring.engines import sql_engine

    if hashed:
        monkeypatch.setattr(sql_engine.DUCKDB, "hash64", lambda expr: f"CAST(length({expr}) % 3 AS BIGINT)",
                            raising=False)
    ids = ["r0", "r1", " ", "r3", "r1", "abc"]  # " " is an empty id once trimmed (not a NULL, as "" is in CSV)
    path = tmp_path / "ids.csv"
    path.write_text(HEADER + "\n" + "".join(f"{rid},a,t,completed,true,1000,0.01\n" for rid in ids))
    with pytest.raises(RunsValidationError) as info:
        score_file_sql(path)
    assert [(p.row, p.column, p.code) for p in info.value.problems] == [(3, "run_id", "missing_value"),
                                                                         (5, "run_id", "duplicate_run_id")]
    # The row that gave the id first, as a number, and the same problem as the pandas engine's
    assert info.value.problems[1].first_row == 2
    with pytest.raises(RunsValidationError) as loaded:
        load_runs(path)
    assert loaded.value.problems == info.value.problems  # an id of spaces shown as none by both (it read '')


def test_a_rule_on_run_id_other_than_a_missing_id_is_counted_row_by_row(monkeypatch, tmp_path):
    # Only the missing-id rule is read off the duplicate check's groups; any other rule on run_id is counted
    # there row by row, and refuses its rows.
    from scoring.contract.schema import Reason
    from scoring.engines import sql_engine

    rules = sql_engine.validation_queries

    def with_a_length_rule(d, kinds=None):
        return [*rules(d, kinds), ("run_id", Reason.TOO_LARGE, "length(run_id) > 3", "run_id")]

    monkeypatch.setattr(sql_engine, "validation_queries", with_a_length_rule)
    path = tmp_path / "ids.csv"
    path.write_text(HEADER + "\n" + "".join(f"{rid},a,t,completed,true,1000,0.01\n" for rid in ("r0", "long1", "r2")))
    with pytest.raises(RunsValidationError) as info:
        score_file_sql(path)
    assert [(p.row, p.column, p.code) for p in info.value.problems] == [(2, "run_id", Reason.TOO_LARGE.code)]


@pytest.mark.parametrize("hashed", [False, True])
def test_a_refusal_counts_every_problem_and_invalid_row_as_the_pandas_engine_does(monkeypatch, tmp_path, hashed):
    # The SQL engines list the first rows of each rule, but count them all: the problems, and the rows with at least
    # one (a repeated id that also breaks a rule is one row), as the pandas loader counts them.
    from scoring.engines import sql_engine

    if hashed:
        monkeypatch.setattr(sql_engine.DUCKDB, "hash64", lambda expr: f"CAST(length({expr}) % 3 AS BIGINT)",
                            raising=False)
    path = many_problems_csv(tmp_path / "many.csv")
    refusals = []
    for load in (load_runs, score_file_sql):
        with pytest.raises(RunsValidationError) as info:
            load(path)
        refusals.append(info.value)
    pandas, sql = refusals
    assert (sql.total, sql.invalid_rows, sql.rows_read) == (pandas.total, pandas.invalid_rows, pandas.rows_read)
    assert (pandas.total, pandas.invalid_rows) == (295 + 225 + 18, 295 + 225 + 18 - 73 - 6)
    # Every problem is either listed or counted in a "more row(s) not listed" line: the text adds up to the total.
    head, *lines = sql.report().splitlines()
    assert head == f"many.csv: refused, {pandas.total:,} problem(s) in {pandas.invalid_rows:,} of 900 row(s)"
    listed = [line for line in lines if line.startswith("  - row ")]
    more = [int(m.group(1).replace(",", "")) for m in map(re.compile(r"([0-9,]+) more row\(s\) not listed").search,
                                                         lines) if m]
    assert len(listed) + sum(more) == pandas.total and not any(line.startswith("  ... and") for line in lines)


# ----------------------------------------------------------------- what DuckDB's reader lets through (audit)

PARITY_ROWS = ["r0,a,t1,completed,true,1000,0.01", "r1,a,t1,completed,true,1000,0.01"]


def refusal_codes(load, path) -> list[str]:
    with pytest.raises(RunsValidationError) as info:
        load(path)
    return [p.code for p in info.value.problems]


@pytest.mark.parametrize("second", ["latency_ms", "LATENCY_MS", "Latency MS"])
def test_a_csv_header_naming_a_column_twice_is_refused_by_both_engines(tmp_path, second):
    # DuckDB renames the second copy latency_ms_1, no SPEC 1 column: the engine scored the first and dropped it.
    path = tmp_path / "dup.csv"
    path.write_text(f"{HEADER},{second}\n" + "".join(f"{r},9000\n" for r in PARITY_ROWS))
    assert refusal_codes(load_runs, path) == refusal_codes(score_file_sql, path) == ["duplicate_column"]


@pytest.mark.parametrize("second", ["latency_ms", "LATENCY_MS"])
def test_a_parquet_file_naming_a_column_twice_is_refused_by_both_engines(tmp_path, second):
    table = pa.table({"run_id": ["r0", "r1"], "agent_id": ["a", "a"], "task_id": ["t1", "t1"],
                      "status": ["completed", "completed"], "success": [True, True],
                      "latency_ms": [1000.0, 1000.0], "cost_usd": [0.01, 0.01]})
    path = tmp_path / "dup.parquet"
    pq.write_table(table.append_column(second, pa.array([9000.0, 9000.0])), path)
    assert refusal_codes(load_runs, path) == refusal_codes(score_file_sql, path) == ["duplicate_column"]


@pytest.mark.parametrize("end", ["\n", "", "\r\n"])
def test_a_trailing_comma_on_the_last_line_is_refused_by_both_engines(tmp_path, end):
    # DuckDB drops an empty extra field of the last line only (one on an earlier line it refuses).
    path = tmp_path / "trailing.csv"
    path.write_text(HEADER + "\n" + PARITY_ROWS[0] + "\n" + PARITY_ROWS[1] + "," + end, newline="")
    assert refusal_codes(load_runs, path) == refusal_codes(score_file_sql, path) == ["file"]
    with pytest.raises(RunsValidationError, match="the last line has 8 fields where the header has 7"):
        score_file_sql(path)


def test_a_last_line_whose_last_cell_is_empty_or_quoted_across_lines_is_read_by_both(tmp_path):
    empty_cost = tmp_path / "empty-cost.csv"
    empty_cost.write_text(HEADER + "\n" + PARITY_ROWS[0] + "\nr1,a,t1,completed,true,1000,\n")
    quoted = tmp_path / "quoted.csv"  # the last cell spans lines and holds commas and quotes
    quoted.write_text(HEADER + "\n" + PARITY_ROWS[0] + '\nr1,a,"t1, the ""second""\nline,,",completed,true,1,0.1\n')
    for path in (empty_cost, quoted):
        assert_same_report(*both(path))


def test_a_header_line_past_a_mebibyte_is_refused_reading_only_that_much(tmp_path):
    path = tmp_path / "one-line.csv"
    path.write_bytes(b"run_id," + b"x" * (3 << 20))  # 3 MiB, no line break
    with pytest.raises(RunsValidationError, match="the header line is longer than 1 MiB"):
        score_file_sql(path)


def _typed_runs(path: Path, **columns) -> Path:
    base = {"run_id": pa.array(["r1", "r2", "r3"]), "agent_id": pa.array(["a", "a", "a"]),
            "task_id": pa.array(["t", "t", "t"]), "status": pa.array(["completed"] * 3),
            "success": pa.array([True, False, True]), "latency_ms": pa.array([10.0, 20.0, 30.0]),
            "cost_usd": pa.array([0.01, 0.02, 0.03])}
    pq.write_table(pa.table({**base, **columns}), path)
    return path


@pytest.mark.parametrize("column", ["agent_id", "status", "latency_ms"])
def test_text_that_is_not_utf8_in_a_parquet_string_column_is_refused_in_words_by_both_engines(tmp_path, column):
    """A reviewer's Parquet file whose string column held b'a\\xff' stopped both engines with a traceback (Arrow's
    "Invalid UTF8 sequence", DuckDB's "Invalid string encoding"): now the pandas engine refuses the cell at its row
    and column as bytes that are not text, and the SQL engine refuses the file in words."""
    good = {"agent_id": "a", "status": "completed", "latency_ms": "10"}[column]
    bad = pa.array([good.encode() + b"\xff", good.encode(), good.encode()], pa.binary()).view(pa.string())
    path = _typed_runs(tmp_path / "bad.parquet", **{column: bad})
    error = pytest.raises(RunsValidationError, load_runs, path).value
    assert [(p.row, p.column, p.code) for p in error.problems] == [(1, column, "nested")]
    assert error.problems[0].value == good + "\\xff"
    assert len(load_runs(path, exclude_invalid=True).runs) == 2
    error = pytest.raises(RunsValidationError, score_file_sql, path).value
    assert [p.code for p in error.problems] == ["file"] and "not valid UTF8" in error.problems[0].reason


def test_a_typed_timestamp_past_the_grammars_years_is_refused_at_its_row(tmp_path):
    """A reviewer's timestamp[s] of 10^13 s (the year 318,857) stopped both engines with a traceback; 10000-01-01
    was scored by both, where the same instant written as text is refused."""
    far = _typed_runs(tmp_path / "far.parquet",
                      finished_at=pa.array([10**13, 0, 1], pa.timestamp("s", tz="UTC")))
    error = pytest.raises(RunsValidationError, load_runs, far).value
    assert [(p.row, p.column, p.code, p.value) for p in error.problems] == [
        (1, "finished_at", "not_a_timestamp", "10000000000000000 ms from 1970-01-01T00:00:00Z")]
    assert len(load_runs(far, exclude_invalid=True).runs) == 2
    error = pytest.raises(RunsValidationError, score_file_sql, far).value
    assert [p.code for p in error.problems] == ["file"] and "pandas engine reports its row" in error.problems[0].reason
    edge = _typed_runs(tmp_path / "edge.parquet",
                       finished_at=pa.array([253402300800, 0, 1], pa.timestamp("s", tz="UTC")))
    for load in (load_runs, score_file_sql):
        error = pytest.raises(RunsValidationError, load, edge).value
        assert [(p.row, p.column, p.code) for p in error.problems] == [(1, "finished_at", "not_a_timestamp")], load
    last = _typed_runs(tmp_path / "last.parquet",
                       finished_at=pa.array([253402300799, 0, 1], pa.timestamp("s", tz="UTC")))
    assert_same_report(*both(last))  # 9999-12-31T23:59:59Z, the grammar's last second: read alike


@pytest.mark.parametrize("tz", ["UTC", None])
def test_a_nanosecond_timestamp_is_read_as_its_text_is_the_later_digits_dropped(tmp_path, tz):
    """A reviewer's Parquet file written by pandas (nanoseconds, its default unit) stopped the pandas engine with a
    traceback (Arrow's safe cast "would lose data"), and DuckDB's cast rounds (...0.000000600 read as ...0.000001).
    Both engines now read a nanosecond instant as its text is read: the seventh digit on dropped (floor, so
    1969-12-31T23:59:59.999999999 is ...59.999999). One agent's 101 terminal runs: the window drops the oldest,
    which only the floor decides here (b at 600 ns is older than a at 1,000 ns; rounded, the two tie)."""
    def runs(first: str, second: str, nanos: list[int]) -> dict:
        ids = [first, second] + [f"r{i:03}" for i in range(99)]
        return {"run_id": ids, "agent_id": ["x"] * 101, "task_id": ["t"] * 101, "status": ["completed"] * 101,
                "success": [True, False] + [True] * 99, "latency_ms": [10.0] * 101, "cost_usd": [0.01] * 101,
                "nanos": nanos}

    old = [1_000, 600] + [10**18 + 10**9 * i for i in range(99)]
    for first, second in (("a", "b"), ("b", "a")):
        for nanos in (old, [-1, -1_000] + old[2:]):  # and before 1970: -1 ns is -1 us, never 0
            frame = pd.DataFrame(runs(first, second, nanos))
            stamps = pa.array(frame.pop("nanos"), pa.timestamp("ns", tz=tz))
            typed = tmp_path / "typed.parquet"
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False).append_column("finished_at", stamps),
                           typed)
            text = tmp_path / "text.csv"
            frame["finished_at"] = pc.strftime(stamps.cast(pa.timestamp("ns", tz="UTC")), "%Y-%m-%dT%H:%M:%SZ")
            frame.to_csv(text, index=False)
            assert ".000000600Z" in text.read_text() or ".999999999Z" in text.read_text()
            expected = json.loads(score_runs(load_runs(text).runs).to_json_text())
            assert_same_report(*both(typed))
            assert_same_report(json.loads(score_file_sql(typed).to_json_text()), expected)


@pytest.mark.parametrize("precision, scale", [(18, 9), (38, 18)])
def test_a_decimal_column_is_read_to_the_nearest_double_as_its_digits_are(tmp_path, precision, scale):
    """A reviewer's decimal128(38, 18) costs: Arrow's cast of a decimal to a double is not correctly rounded, so the
    pandas engine read 0.263223550221963 as 0.26322355022196303, a unit in the last place off DuckDB, Python's
    float() and the same digits in a CSV (here 175 of 400 decimal(18, 9) values and 36 of decimal(38, 18))."""
    import decimal
    import random

    rng = random.Random(7)
    values = [decimal.Decimal(rng.randrange(10 ** (precision - 3))) / 10**scale for _ in range(400)]
    n = len(values)
    runs = {"run_id": [f"r{i}" for i in range(n)], "agent_id": [f"a{i}" for i in range(n)], "task_id": ["t"] * n,
            "status": ["completed"] * n, "success": [True] * n}
    typed = tmp_path / "decimal.parquet"
    pq.write_table(pa.table({**runs, "latency_ms": pa.array(values, pa.decimal128(precision, scale)),
                             "cost_usd": pa.array(values, pa.decimal128(precision, scale))}), typed)
    text = tmp_path / "decimal.csv"
    pd.DataFrame({**runs, "latency_ms": [str(v) for v in values], "cost_usd": [str(v) for v in values]}).to_csv(
        text, index=False)
    loaded = load_runs(typed).runs.set_index("run_id")
    assert [loaded.loc[f"r{i}", "cost_usd"] for i in range(n)] == [float(v) for v in values]
    expected = json.loads(score_runs(load_runs(text).runs).to_json_text())
    assert_same_report(*both(typed))
    assert_same_report(json.loads(score_runs(load_runs(typed).runs).to_json_text()), expected)


@pytest.mark.parametrize("days", [2_932_897, 459_097_007])  # 10000-01-01, and a day of the year 1,258,934
def test_a_date_past_the_grammars_years_is_refused_at_its_row_by_both_engines(tmp_path, days):
    """A reviewer's date32 finished_at: the pandas engine refused the whole file without a row or column ("year
    10000 is out of range": Python's date), and DuckDB scored the year 1,258,934 as no time at all (its cast to an
    instant gives NULL). A date is its midnight in UTC; one past the grammar is refused where it is."""
    path = _typed_runs(tmp_path / "dates.parquet", finished_at=pa.array([20_000, days, 20_001], pa.date32()))
    for load in (load_runs, score_file_sql):
        error = pytest.raises(RunsValidationError, load, path).value
        assert [(p.row, p.column, p.code) for p in error.problems] == [(2, "finished_at", "not_a_timestamp")], load
    assert load_runs(path, exclude_invalid=True).runs["run_id"].tolist() == ["r3", "r1"]
    inside = _typed_runs(tmp_path / "inside.parquet", finished_at=pa.array([20_000, 20_002, 20_001], pa.date32()))
    assert_same_report(*both(inside))


def test_list_and_struct_columns_are_refused_as_nested_by_both_engines(tmp_path):
    """A reviewer's file: the SQL engine scored list-typed ids as agents named '[a]' and '[a, b]' and read list
    latencies as no latency at all ("no latency recorded"), where the pandas engine refuses each value as nested."""
    lists = _typed_runs(tmp_path / "lists.parquet", agent_id=pa.array([["a"], ["a", "b"], []]),
                        latency_ms=pa.array([[1.0], None, [3.0]]))
    struct = _typed_runs(tmp_path / "struct.parquet", cost_usd=pa.array([{"usd": 0.1}, None, {"usd": 0.2}]))
    for path, expected in ((lists, [(1, "agent_id"), (1, "latency_ms"), (2, "agent_id"), (3, "agent_id"),
                                    (3, "latency_ms")]), (struct, [(1, "cost_usd"), (3, "cost_usd")])):
        for load in (load_runs, score_file_sql):
            error = pytest.raises(RunsValidationError, load, path).value
            assert sorted((p.row, p.column) for p in error.problems) == expected, (path.name, load)
            assert {p.code for p in error.problems} == {"nested"}, (path.name, load)


def test_a_binary_id_column_reads_as_its_utf8_text_in_both_engines(tmp_path):
    """The SQL engine named an agent 'caf\\xC3\\xA9' (DuckDB's cast of bytes) where the pandas engine read 'café',
    and scored an agent 'a\\xFF' from bytes that are no text, which the pandas engine refuses."""
    good = _typed_runs(tmp_path / "good.parquet", agent_id=pa.array(["café".encode(), b"x", b"x"], pa.binary()))
    assert_same_report(*both(good))
    assert {a["agent_id"] for a in json.loads(score_file_sql(good).to_json_text())["agents"]} == {"café", "x"}
    bad = _typed_runs(tmp_path / "bad.parquet", agent_id=pa.array([b"a\xff", b"x", b"x"], pa.binary()))
    assert [p.code for p in pytest.raises(RunsValidationError, load_runs, bad).value.problems] == ["nested"]
    error = pytest.raises(RunsValidationError, score_file_sql, bad).value
    assert [p.code for p in error.problems] == ["file"] and "invalid UTF8" in error.problems[0].reason


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_a_duration_latency_is_refused_by_both_engines_whatever_its_unit(tmp_path, unit):
    """DuckDB reads Arrow's duration as its bare integer: the same 2 seconds scored as 2 ms from a file in seconds
    and 2,000,000 ms from one in microseconds, where the pandas engine refuses each value."""
    path = _typed_runs(tmp_path / "d.parquet", latency_ms=pa.array([2 * {"s": 1, "ms": 10**3, "us": 10**6,
                                                                        "ns": 10**9}[unit]] * 3, pa.duration(unit)))
    error = pytest.raises(RunsValidationError, load_runs, path).value
    assert [(p.row, p.column) for p in error.problems] == [(1, "latency_ms"), (2, "latency_ms"), (3, "latency_ms")]
    error = pytest.raises(RunsValidationError, score_file_sql, path).value
    assert error.problems[0].reason.startswith(f"latency_ms ({unit}): a duration, not a number")
    plain = _typed_runs(tmp_path / "plain.parquet", latency_ms=pa.array([2000, 3000, 4000], pa.int64()))
    assert_same_report(*both(plain))  # a plain whole number of milliseconds: read alike


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_a_floating_id_that_is_not_finite_is_refused_by_both_engines(tmp_path, bad):
    """A reviewer's Parquet agent_id column of doubles: its NaN became an agent, 'NaN' in the pandas engine and 'nan'
    in the SQL engine, where docs/schema.md says a floating-point NaN is refused."""
    path = _typed_runs(tmp_path / "ids.parquet", agent_id=pa.array([bad, 1.0, 2.5]))
    for load in (load_runs, score_file_sql):
        error = pytest.raises(RunsValidationError, load, path).value
        assert [(p.row, p.column, p.code) for p in error.problems] == [(1, "agent_id", "not_finite")], load
    assert len(load_runs(path, exclude_invalid=True).runs) == 2


def test_a_text_id_spelled_nan_is_an_id_in_both_engines(tmp_path):
    path = tmp_path / "nan.csv"
    path.write_text(HEADER + "\nr1,NaN,t,completed,true,10,0.01\nr2,inf,t,completed,false,20,0.02\n")
    assert_same_report(*both(path))
    assert {a.agent_id for a in score_runs(load_runs(path).runs).agents} == {"NaN", "inf"}


def test_json_nan_and_infinity_literals_as_ids_are_refused():
    records = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed", "success": True,
                "latency_ms": 1, "cost_usd": 0.1} for i in range(3)]
    text = json.dumps(records).replace('"agent_id": "a"', '"agent_id": NaN', 1).replace(
        '"task_id": "t"', '"task_id": -Infinity', 1).replace('"run_id": "r2"', '"run_id": "NaN"')
    error = pytest.raises(RunsValidationError, load_runs, text.encode(), name="ids.json").value
    assert [(p.row, p.column, p.code, p.value) for p in error.problems] == [
        (1, "agent_id", "not_finite", "NaN"), (1, "task_id", "not_finite", "-Infinity")]  # the text "NaN" is an id


@pytest.mark.parametrize("line", [2, 400])
def test_a_nul_byte_anywhere_in_a_csv_is_refused_by_both_engines_in_the_same_words(tmp_path, line):
    """A reviewer's NUL inside an id: the pandas engine refused it in the first 8 KiB only, the SQL engine never
    (an agent 'a\\x001' in both past the first 8 KiB)."""
    rows = [f"r{i},a,t,completed,true,{i + 1},0.01" for i in range(500)]
    rows[line - 2] = rows[line - 2].replace(",a,", ",a\x001,")
    path = tmp_path / "nul.csv"
    path.write_bytes((HEADER + "\n" + "\n".join(rows) + "\n").encode())
    said = []
    for load in (load_runs, score_file_sql):
        error = pytest.raises(RunsValidationError, load, path).value
        said.append([(p.code, p.reason) for p in error.problems])
    assert said[0] == said[1] and f", line {line}, which no text holds" in said[0][0][1], said


def test_the_sql_engine_refuses_in_the_pandas_engines_words_or_says_it_reads_the_file(tmp_path):
    """A reviewer's CSV files: a space before a quote was read by DuckDB as a quoted "a,b" (an agent 'a,b') where
    Python's reader refuses the line; a field too many said only "Error when sniffing file"; and a Latin-1 file
    the pandas engine scores was refused with "the pandas engine reports the row"."""
    spaced = tmp_path / "spaced.csv"
    spaced.write_text(HEADER + '\nr1,a,t,completed,true,1,0.01\nr2, "a,b",t,completed,true,5,0.01\n')
    extra = tmp_path / "extra.csv"
    extra.write_text(HEADER + "\nr1,a,t,completed,true,1,0.01\nr2,a,t,completed,true,5,0.01,x\n"
                     "r3,a,t,completed,true,5,0.01\n")
    for path in (spaced, extra):
        said = []
        for load in (load_runs, score_file_sql):
            error = pytest.raises(RunsValidationError, load, path).value
            said.append([p.reason for p in error.problems])
        assert said[0] == said[1] and "line 3 (row 2) has 8 fields where the header has 7" in said[0][0], said
    latin = tmp_path / "latin.csv"
    latin.write_bytes((HEADER + "\nr1,caf\xe9,t,completed,true,1,0.01\n").encode("latin-1"))
    assert load_runs(latin).runs["agent_id"].tolist() == ["café"]
    error = pytest.raises(RunsValidationError, score_file_sql, latin).value
    assert "the pandas engine (the default) reads this file" in error.problems[0].reason
    quoted = tmp_path / "quoted.csv"  # a space before a quote inside a quoted cell: no refusal
    quoted.write_text(HEADER + '\nr1,"say ""hi""",t,completed,true,1,0.01\nr2,b,t,completed,false,2,0.02\n')
    assert_same_report(*both(quoted))


def test_a_file_mixing_utf8_and_latin1_is_refused_naming_both_lines(tmp_path):
    """A reviewer's file: five UTF-8 rows of agent 'café' and one written in Latin-1. Read whole as Latin-1, the five
    became 'cafÃ©' and the sixth 'café': one agent split in two, with only "it was read as Latin-1" to say so."""
    rows = [f"r{i},café,t,completed,true,{i + 1},0.01".encode() for i in range(5)]
    rows.append("r9,café,t,completed,true,9,0.01".encode("latin-1"))
    path = tmp_path / "mixed.csv"
    path.write_bytes(HEADER.encode() + b"\n" + b"\n".join(rows) + b"\n")
    for load in (load_runs, score_file_sql):
        error = pytest.raises(RunsValidationError, load, path).value
        assert [p.code for p in error.problems] == ["file"], load
        assert error.problems[0].reason.startswith("the file mixes encodings: line 7, byte ") and \
            "0xE9 is not UTF-8, while line 2 holds UTF-8 text" in error.problems[0].reason, load
    latin = tmp_path / "latin.csv"
    latin.write_bytes((HEADER + "\nr1,caf\xe9,t,completed,true,1,0.01\n").encode("latin-1"))
    loaded = load_runs(latin)
    assert loaded.runs["agent_id"].tolist() == ["café"]
    assert any(w.startswith("The file is not valid UTF-8 (line 2, byte ") for w in loaded.warnings), loaded.warnings


def test_words_with_a_character_past_ascii_are_refused_alike_by_both_engines(tmp_path):
    # SPEC 1's words are case-insensitive in A-Z only: "FAİLED" is no status (DuckDB's and Arrow's lower() made it
    # "failed"; Spark's "fai̇led"), "İnf" is no number; the same words in other ASCII cases are read.
    from tests.spellings import files, non_ascii_word_rows

    rows, expected = non_ascii_word_rows()
    for name, data in files(rows).items():
        path = tmp_path / name
        path.write_bytes(data)
        for load in (load_runs, score_file_sql) if name != "x.json" else (load_runs,):
            with pytest.raises(RunsValidationError) as info:
                load(path)
            assert [(p.row, p.column, p.value, p.code) for p in info.value.problems] == expected, (name, load)
    kept = [r for i, r in enumerate(rows) if i % 2 == 0]
    path = tmp_path / "kept.csv"
    path.write_bytes(files(kept)["x.csv"])
    assert_same_report(*both(path))
