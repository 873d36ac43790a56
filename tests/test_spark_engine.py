"""The Spark engine gives the same report as the pandas engine, to the bit (pyspark in local mode).

One SparkSession for the whole run (local[2], one shuffle partition, no UI), whose time zone is
America/Los_Angeles: timestamps must be read in UTC anyway. Under CI=true a missing Java or pyspark
fails the suite; elsewhere it skips with the command that installs them. A Spark Connect server is
started from the pyspark package on 127.0.0.1 for the --spark-remote tests, and a standalone cluster
(a master and two workers, each its own JVM) for the --spark-master tests.
"""

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import CANONICAL_POLICY, RunsValidationError, load_runs, score_runs
from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.contract.schema import timestamp_micros
from tests.helpers import (
    EDGE_CSV,
    ROOT,
    SAMPLE,
    TINY_LATENCY_CSV,
    assert_same_report,
    free_port,
    many_problems_csv,
    run_tables,
    write_parquet,
)
from tests.helpers import REQUIRED_HEADER as HEADER
from tests.hostile_files import runs_csv
from tests.spellings import (
    BAD_NUMBERS,
    BAD_STEPS,
    BAD_TIMES,
    IDS,
    NON_ASCII_WORDS,
    NUMBERS,
    STATUSES,
    STEPS,
    SUCCESS,
    TIMES,
    TIMESTAMP_SPELLINGS,
    files,
    timestamp_runs_csv,
    timestamp_spellings,
)

# One Spark session per test process: under xdist the tests of the local session (and of the local Connect server)
# run on one worker, one group; the tests that start JVMs of their own (the command line's, the standalone
# cluster's) are a second group (``CLUSTER_GROUP``), free to run on the other worker at the same time. As one group
# they kept one worker busy for 7.5 of the suite's 8.3 minutes (2026-12-02, a quiet machine).
pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]
CLUSTER_GROUP = pytest.mark.xdist_group("cluster")

SESSION_ZONE = "America/Los_Angeles"
# Test-only speed-ups for tiny inputs on two cores: no adaptive re-planning, the JIT's quick tier only (a
# short-lived JVM spends most of its time compiling otherwise) and the serial collector (no concurrent GC threads:
# the sample's report through the CLI, 38 -> 35 s of the machine's CPU, twice each, 2026-12-02). Spark's own code
# generation stays on: the tests check the code path a user runs.
FAST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _missing(message: str):
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _needs_spark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        _missing("pyspark is not installed: pip install -r requirements-spark.txt")
    if shutil.which("java") is None:
        _missing("Java not found: run `bash scripts/ensure-test-deps` (Debian's openjdk-17-jre-headless)")


@pytest.fixture(scope="session")
def spark():
    _needs_spark()
    from scoring.engines.spark_engine import local_session

    warehouse = tempfile.mkdtemp(prefix="scoring-spark-warehouse-")
    session = local_session({"spark.master": "local[2]", "spark.sql.shuffle.partitions": "1",
                             "spark.sql.adaptive.enabled": "false", "spark.sql.session.timeZone": SESSION_ZONE,
                             "spark.sql.warehouse.dir": warehouse, "spark.driver.extraJavaOptions": FAST_JVM})
    try:
        yield session
    finally:
        session.stop()
        shutil.rmtree(warehouse, ignore_errors=True)


def spark_doc(path, spark, **options) -> dict:
    from scoring.engines.spark_engine import score_spark

    return json.loads(score_spark(path, spark=spark, **options).to_json_text())


def pandas_doc(path, policy=CANONICAL_POLICY) -> dict:
    return json.loads(score_runs(load_runs(path).runs, policy).to_json_text())


def both(path, spark):
    return spark_doc(path, spark), pandas_doc(path)


def _typed_sample(path: Path) -> None:
    typed = load_runs(SAMPLE).runs.drop(columns="source_row")
    typed["status"] = typed["status"].astype(str)
    typed.to_parquet(path, index=False)


# --------------------------------------------------------------------------- the same report


def test_sample_csv_gives_the_same_report(spark):
    spark.conf.set("spark.sql.ansi.enabled", "false")  # set to true while scoring, then put back
    try:
        assert_same_report(*both(SAMPLE, spark))
        assert spark.conf.get("spark.sql.ansi.enabled") == "false"
        assert spark.conf.get("spark.sql.session.timeZone") == SESSION_ZONE
        assert not [t for t in spark.catalog.listTables() if t.name.startswith("scoring_")]  # no view left behind
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_sample_parquet_gives_the_same_report(spark, tmp_path):
    path = tmp_path / "runs.parquet"
    _typed_sample(path)
    assert_same_report(*both(path, spark))


def test_edge_case_file_gives_the_same_report(spark, tmp_path):
    path = tmp_path / "edge.csv"
    path.write_text(EDGE_CSV)
    sql, pandas = both(path, spark)
    assert_same_report(sql, pandas)
    agents = {a["agent_id"]: a for a in pandas["agents"]}
    assert agents["floor"]["headline"]["zero_success_floor"] and agents["infra"]["headline"]["score"] is None


def test_tiny_and_huge_latencies_give_the_same_report(spark, tmp_path):
    path = tmp_path / "tiny.csv"
    path.write_text(TINY_LATENCY_CSV)
    sql, pandas = both(path, spark)
    assert_same_report(sql, pandas)
    assert {a["agent_id"]: a["headline"]["score"] for a in pandas["agents"]}["tiny"] == 80.67


def test_the_window_breaks_ties_on_run_id_in_code_point_order(spark, tmp_path):
    import dataclasses

    # Equal timestamps: r9 > r11 > r10 as text, and U+1F600 > U+FFFF by code point (not in UTF-16).
    rows = EDGE_CSV.splitlines()[1:] + [f"{rid},cp,t1,completed,{ok},1000,0.01,1,2026-07-06T00:00:00Z"
                                         for rid, ok in (("\U0001F600", "true"), ("\uffff", "false"),
                                                         ("é", "false"), ("z", "false"))]
    path = tmp_path / "ties.csv"
    path.write_text(EDGE_CSV.splitlines()[0] + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    policy = dataclasses.replace(CANONICAL_POLICY, radar_window=1)
    sql = spark_doc(path, spark, policy=policy)
    pandas = pandas_doc(path, policy)
    assert_same_report(sql, pandas)
    agents = {a["agent_id"]: a["radar"]["axes"]["correctness"] for a in pandas["agents"]}
    assert agents["ties"] == 100.0 and agents["cp"] == 100.0  # r9 and U+1F600 are the newest


def test_a_spark_before_4_2_gets_the_row_number_window_and_the_same_report(spark, tmp_path, monkeypatch):
    from scoring.engines import spark_engine

    assert [spark_engine._dialect(v).top_n for v in ("4.3.0", "4.2.0-preview", "4.1.1", "3.5.1-amzn-0", "?")] == \
        [True, True, False, False, True]
    monkeypatch.setattr(spark_engine, "_dialect", lambda version: spark_engine.SPARK_BEFORE_4_2)
    path = tmp_path / "edge.csv"
    path.write_text(EDGE_CSV)
    assert_same_report(*both(path, spark))


def _merged(tables: list[list[dict]]) -> list[dict]:
    """Several random tables as one: each keeps its own agents and run ids, so one Spark run checks all."""
    return [{**row, "run_id": f"{i}:{row['run_id']}", "agent_id": f"{i}:{row['agent_id']}"}
            for i, rows in enumerate(tables) for row in rows]


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(run_tables(min_size=1, max_size=80), min_size=8, max_size=8))
def test_random_tables_give_the_same_report(spark, tmp_path, tables):
    path = tmp_path / "random.parquet"
    write_parquet(_merged(tables), path)
    assert_same_report(*both(path, spark))


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(run_tables(min_size=1, max_size=80), min_size=8, max_size=8), st.integers(1, 4))
def test_random_tables_give_the_same_radar_with_windows_the_cutoff_estimates(spark, tmp_path, tables, window):
    # A window of 1-4 runs: most agents have more than CUTOFF_MARGIN windows of dated runs, so their window reads
    # only the runs after an estimated cutoff (and is taken again whole where the estimate left it short).
    import dataclasses

    path = tmp_path / "random.parquet"
    write_parquet(_merged(tables), path)
    policy = dataclasses.replace(CANONICAL_POLICY, radar_window=window)
    assert_same_report(spark_doc(path, spark, policy=policy), pandas_doc(path, policy))


def _dated_runs(path: Path, times: dict[str, list[str]]) -> None:
    rows = [f"{agent}-{i},{agent},t{i % 7},completed,{'true' if i % 3 else 'false'},{100 + i},0.01,{i % 4},{t}"
            for agent, stamps in times.items() for i, t in enumerate(stamps)]
    path.write_text(EDGE_CSV.splitlines()[0] + "\n" + "\n".join(rows) + "\n")


def _windows_asked(monkeypatch) -> list[dict[str, int]]:
    from scoring.engines.sql_engine import SqlScorer

    asked: list[dict[str, int]] = []
    window = SqlScorer._window

    def recorded(self, size, cutoffs):
        asked.append(dict(cutoffs))
        return window(self, size, cutoffs)

    monkeypatch.setattr(SqlScorer, "_window", recorded)
    return asked


def test_the_window_reads_only_the_runs_after_an_estimated_cutoff(spark, tmp_path, monkeypatch):
    # 500 runs an hour apart: the newest 200 are after the cutoff, which keeps a whole window of 100.
    even = [f"2026-03-{1 + h // 24:02d}T{h % 24:02d}:00:00Z" for h in range(500)]
    path = tmp_path / "even.csv"
    _dated_runs(path, {"even": even, "few": even[:150]})
    asked = _windows_asked(monkeypatch)
    assert_same_report(*both(path, spark))
    newest, oldest = timestamp_micros(even[-1]), timestamp_micros(even[0])
    assert asked == [{"even": newest - (newest - oldest) * 200 // 500}]  # "few": 150 runs, not 2 windows more


def test_an_agent_the_estimated_cutoff_leaves_short_is_taken_again_whole(spark, tmp_path, monkeypatch):
    # 400 runs in one January hour, then 50 spread over June: the estimate (evenly spread) keeps only June's 50.
    burst = [f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z" for i in range(400)]
    burst += [f"2026-06-{1 + i // 2:02d}T{12 * (i % 2):02d}:00:00Z" for i in range(50)]
    even = [f"2026-03-{1 + h // 24:02d}T{h % 24:02d}:00:00Z" for h in range(500)]
    path = tmp_path / "burst.csv"
    _dated_runs(path, {"burst": burst, "even": even})
    asked = _windows_asked(monkeypatch)
    sql, pandas = both(path, spark)
    assert_same_report(sql, pandas)
    assert [sorted(cutoffs) for cutoffs in asked] == [["burst", "even"], ["even"]]
    assert asked[1]["even"] == asked[0]["even"]  # the agent whose estimate held keeps it


def test_agents_without_a_cutoff_are_kept_by_name_whatever_their_names(spark, tmp_path, monkeypatch):
    # Each run is compared with the earliest cutoff first; agents with no cutoff (few runs, all older than it)
    # are kept by name, and their names travel into SQL literals: a quote, a backslash, SQL, non-ASCII.
    even = [f"2026-03-{1 + h // 24:02d}T{h % 24:02d}:00:00Z" for h in range(450)]
    old = [f"2026-01-01T00:{i:02d}:00Z" for i in range(30)]
    agents = {"o'brien": even, "back\\slash": old, "' OR 1=1 --": even, "ünï 'q'": old, "plain": old}
    path = tmp_path / "names.csv"
    _dated_runs(path, agents)
    asked = _windows_asked(monkeypatch)
    sql, pandas = both(path, spark)
    assert_same_report(sql, pandas)
    assert [sorted(cutoffs) for cutoffs in asked] == [["' OR 1=1 --", "o'brien"]]
    assert {a["agent_id"] for a in sql["agents"]} == set(agents)


def test_the_guarded_trim_strips_what_python_strips():
    from scoring.contract.schema import WHITESPACE
    from scoring.engines.spark_engine import WHITESPACE_BOUNDS

    low, high = WHITESPACE_BOUNDS
    # Spark compares text byte by byte (UTF-8): these bounds order as the characters do.
    assert all(c < low or c >= high for c in WHITESPACE) and low.encode() < high.encode()
    assert all((c < low or c >= high) == (c.encode() < low.encode() or c.encode() >= high.encode())
               for c in map(chr, range(0x3100)))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.none(), st.text(alphabet="a!~\x7f\x00é\u00a0\u2000\u3000 \t\x1f\x85x", max_size=6)),
                min_size=50, max_size=200))
def test_spark_trims_ids_as_python_strips_them(spark, texts):
    from scoring.engines.spark_engine import SPARK

    spark.createDataFrame([(t,) for t in texts], "t string").createOrReplaceTempView("scoring_test_texts")
    try:
        got = [r[0] for r in spark.sql(f"SELECT {SPARK.trimmed('t')} FROM scoring_test_texts").collect()]
    finally:
        spark.catalog.dropTempView("scoring_test_texts")
    assert got == [None if t is None else t.strip() for t in texts]


def test_means_agree_to_the_bit_at_rounding_halves_whatever_the_agent_id(spark, tmp_path):
    # Agents named with a quote, a backslash and non-ASCII letters: they travel into SQL literals.
    sets = {"o'brien": [f"{i},t,completed,true,2050,0.1" for i in range(10)],  # exact decimal half: 72.925
            "back\\slash": ["0,t,completed,true,2050,0.1"],
            "ünïcode 'q' \\n": [f"{i},t,completed,true,{1000 + i / 3:.12f},{0.1 + i / 7:.12f}" for i in range(40)]}
    lines = [f"r{a}{row.split(',', 1)[0]},\"{agent}\",{row.split(',', 1)[1]}"
             for a, (agent, rows) in enumerate(sets.items()) for row in rows]
    path = tmp_path / "half.csv"
    path.write_text(HEADER + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    sql, pandas = both(path, spark)
    assert_same_report(sql, pandas)
    assert {a["agent_id"] for a in sql["agents"]} == set(sets)


def test_sums_stay_exact_beyond_a_bigint_and_at_the_ends_of_the_double_range(spark, tmp_path):
    # "many": 3,000 latencies in [2^20, 2^21), mantissas near 2^53: their sum passes 2^63 (a BIGINT SUM
    # would fail under ANSI, or wrap without it). "huge": values near the largest double (the sums are
    # scaled). "tiny": subnormal and tiny values (summed by math.fsum).
    many = [(f"m{i}", "many", 2.0 ** 21 - 1 / (i + 3), 0.1 + i / 7) for i in range(3000)]
    huge = [(f"h{i}", "huge", v, c) for i, (v, c) in enumerate([(1.7976931348623157e308, 1e308), (1.5e308, 1.2e308),
                                                                 (1e308, 5e307), (1.0, 0.01), (8e307, 1.7e308)])]
    tiny = [(f"t{i}", "tiny", v, c) for i, (v, c) in enumerate([(5e-324, 1e-320), (1e-310, 2.5e-308), (1e-300, 0.5)])]
    rows = [{"run_id": rid, "agent_id": agent, "task_id": f"t{k % 7}", "status": "completed", "success": k % 3 > 0,
             "latency_ms": latency, "cost_usd": cost, "steps": 3, "finished_at": f"2026-07-01T00:{k % 60:02d}:00Z"}
            for k, (rid, agent, latency, cost) in enumerate(many + huge + tiny)]
    path = tmp_path / "sums.parquet"
    write_parquet(rows, path)
    sql, pandas = both(path, spark)
    assert_same_report(sql, pandas)
    assert {a["agent_id"] for a in sql["agents"]} == {"many", "huge", "tiny"}


def test_exact_sums_at_powers_of_two_and_across_the_double_range(spark):
    # Spark's log2 divides two logarithms: floor(log2(v)) is one off near some powers of two (both ways), and
    # each mantissa must still be an exact integer. Every sum is math.fsum's.
    import math

    from scoring.engines.spark_engine import SPARK, _settings
    from scoring.engines.sql_engine import SqlScorer

    sets = {f"2^{k} to {side} x{copies}": [math.nextafter(2.0 ** k, side)] * copies
            for k in range(-1000, 1001, 3) for side, copies in ((0.0, 1), (math.inf, 1), (0.0, 3), (2.0 ** k, 5))}
    sets["spread"] = [float.fromhex(f"0x1.{i * 7919 % 2 ** 52:013x}p{i % 2000 - 1000}") for i in range(1, 500)]
    sets["small"] = [math.nextafter(2.0 ** -1020, 1), 3.0]
    frame = spark.createDataFrame([(a, v) for a, values in sets.items() for v in values], "agent_id string, v double")
    frame.createOrReplaceTempView("scoring_test_sums")

    def execute(query):
        found = spark.sql(query)
        return list(found.columns), [tuple(r) for r in found.collect()]

    try:
        with _settings(spark):
            got = SqlScorer(execute, SPARK, "scoring_test_sums", has_finished_at=False,
                            has_row_numbers=False).exact_sums("v", "v IS NOT NULL")
    finally:
        spark.catalog.dropTempView("scoring_test_sums")
    assert got == {agent: math.fsum(values) for agent, values in sets.items()}


def test_the_integer_sum_is_exact_for_every_bigint_split_at_2_to_the_26(spark):
    # Spark.integer_sum splits each value into a shifted high part and a masked low part: their sums must give
    # the exact total for any BIGINT, negative ones (an arithmetic shift, a non-negative mask) and each side of
    # the split included, past what one BIGINT SUM holds.
    from scoring.engines.spark_engine import SPARK, _settings

    edges = [0, 1, -1, 2 ** 26 - 1, 2 ** 26, 2 ** 26 + 1, -(2 ** 26) - 1, -(2 ** 26), -(2 ** 26) + 1,
             2 ** 55 - 1, 2 ** 62, -(2 ** 62), 2 ** 63 - 1, -(2 ** 63)]
    groups = {"edges": edges, "past a bigint": [2 ** 62 + 12345] * 7, "below a bigint": [-(2 ** 62) - 999] * 7,
              "mixed": [(-1) ** i * (i * 2 ** 37 + i) for i in range(200)]}
    frame = spark.createDataFrame([(g, v) for g, values in groups.items() for v in values], "g string, m bigint")
    frame.createOrReplaceTempView("scoring_test_integer_sum")
    try:
        with _settings(spark):
            got = {g: int(total) for g, total in spark.sql(
                f"SELECT g, {SPARK.integer_sum('m')} FROM scoring_test_integer_sum GROUP BY g").collect()}
    finally:
        spark.catalog.dropTempView("scoring_test_integer_sum")
    assert got == {g: sum(values) for g, values in groups.items()}


def test_the_duplicate_check_alone_runs_without_a_partial_aggregation(spark, monkeypatch):
    from scoring.engines import spark_engine, sql_engine
    from scoring.engines.sql_engine import SqlScorer

    monkeypatch.setattr(sql_engine, "HASHES_HERE", 0)  # the engine's grouped count, as past 16M runs
    marker = "spark.scoring.test.many_groups"
    monkeypatch.setattr(spark_engine, "MANY_GROUPS", {**spark_engine.MANY_GROUPS, marker: "on"})
    seen = []
    rows = SqlScorer.rows
    monkeypatch.setattr(SqlScorer, "rows", lambda self, query: seen.append(
        (" ".join(query.split()), spark.conf.get(marker, None),
         spark.conf.get("spark.sql.execution.bypassPartialAggregation", None))) or rows(self, query))
    before = spark.conf.get("spark.sql.execution.bypassPartialAggregation", None)
    assert_same_report(*both(SAMPLE, spark))
    repeated = [s for s in seen if "WHERE n > 1" in s[0]]
    assert repeated and all(s[1:] == ("on", "true") for s in repeated)
    assert all(s[1] is None for s in seen if s not in repeated)
    assert spark.conf.get(marker, None) is None
    assert spark.conf.get("spark.sql.execution.bypassPartialAggregation", None) == before


def test_naive_timestamps_are_utc_whatever_the_session_time_zone(spark, tmp_path):
    assert spark.conf.get("spark.sql.session.timeZone") == SESSION_ZONE
    rows = ["naive,a,t0,completed,false,1000,0.01,3,2026-07-01T10:00:00"]
    rows += [f"r{i:03d},a,t0,completed,true,1000,0.01,3,2026-07-01T11:{i // 60:02d}:{i % 60:02d}Z" for i in range(100)]
    path = tmp_path / "naive.csv"
    path.write_text(HEADER + ",steps,finished_at\n" + "\n".join(rows) + "\n")
    sql, pandas = both(path, spark)
    assert_same_report(sql, pandas)
    # 10:00 UTC is older than the 100 runs after it (read in Los Angeles time it would be 17:00, the newest).
    assert sql["agents"][0]["radar"]["axes"]["correctness"] == 100.0


def _spark_micros(spark, spellings: list[str]) -> list[int | None]:
    from scoring.engines.spark_engine import SPARK

    frame = spark.createDataFrame([(i, s) for i, s in enumerate(spellings)], "i int, t string")
    frame.createOrReplaceTempView("spellings")
    try:
        rows = spark.sql(f"SELECT unix_micros({SPARK.timestamp('t')}) FROM spellings ORDER BY i").collect()
    finally:
        spark.catalog.dropTempView("spellings")
    return [r[0] for r in rows]


def test_every_listed_spelling_reads_as_the_grammar_reads_it(spark):
    """docs/schema.md, "Timestamps": the reference reader (schema.timestamp_micros), as in pandas and DuckDB."""
    assert _spark_micros(spark, TIMESTAMP_SPELLINGS) == [timestamp_micros(s) for s in TIMESTAMP_SPELLINGS]


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(st.lists(timestamp_spellings(), min_size=100, max_size=300))
def test_made_up_spellings_read_as_the_grammar_reads_them(spark, spellings):
    assert _spark_micros(spark, spellings) == [timestamp_micros(s) for s in spellings]


def test_every_listed_spelling_is_refused_or_kept_as_the_pandas_engine_does(spark, tmp_path):
    from scoring.engines.spark_engine import score_spark

    path = tmp_path / "spellings.csv"
    path.write_text(timestamp_runs_csv(TIMESTAMP_SPELLINGS))
    with pytest.raises(RunsValidationError) as spark_info:
        score_spark(path, spark=spark)
    with pytest.raises(RunsValidationError) as pandas_info:
        load_runs(path)
    assert sorted((p.row, p.column, p.value, p.code) for p in spark_info.value.problems) == \
        sorted((p.row, p.column, p.value, p.code) for p in pandas_info.value.problems)


# --------------------------------------------------------------------------- validation


def test_a_report_reads_the_runs_four_times(spark, monkeypatch):
    # The pass per agent (with the headline's sums as limbs), the run_ids' hashes (sorted here), the spread (as
    # limbs) with the counts per task, and the radar window: four reads of the runs for a valid file. (The spread
    # and the window in one scan: 10M runs, 12.5 s against 1.7 + 1.0 s; max_by's buffer takes the whole aggregate
    # off Spark's generated hash aggregate, and the window's cheap first comparison is lost.)
    import re as re_

    queries = []
    sql = spark.sql
    monkeypatch.setattr(spark, "sql", lambda query, *a, **k: queries.append(query) or sql(query, *a, **k))
    assert_same_report(*both(SAMPLE, spark))
    reads = [q for q in queries if re_.search(r"FROM `scoring_runs_[0-9a-f]+` AS (runs|r)\b", q)]
    assert len(reads) == 4, [" ".join(q.split())[:120] for q in reads]
    assert "latency_ms_limb_0" in reads[0] and "xxhash64(run_id)" in reads[1]
    assert "d2_limb_0" in reads[2] and "task_n" in reads[2] and "max_by(" in reads[3]


@pytest.mark.parametrize("hashes_here", [True, False])
def test_invalid_rows_are_refused_with_the_pandas_row_numbers(spark, tmp_path, monkeypatch, hashes_here):
    # hashes_here: the duplicate check sorts the run_ids' hashes in Python (below HASHES_HERE rows) or groups them
    # in Spark (past it); the same refusal either way.
    from scoring.engines import sql_engine
    from scoring.engines.spark_engine import score_spark

    if not hashes_here:
        monkeypatch.setattr(sql_engine, "HASHES_HERE", 0)
    path = tmp_path / "bad.csv"
    path.write_text(EDGE_CSV.replace("w2,few,t1,completed", "w2,few,t1,done").replace(",2500,", ",-3,")
                    .replace('i3,infra,t1,queued,,,,,', 'i3,infra,"t1\nsecond line",queued,,,,,')
                    .replace("z3,", " z1,"))
    with pytest.raises(RunsValidationError) as info:
        score_spark(path, spark=spark)
    with pytest.raises(RunsValidationError) as pandas_info:
        load_runs(path)
    found = {(p.row, p.column, p.code) for p in info.value.problems}
    # A quoted field holding a line break is one record: the rows after it keep their numbers.
    assert found == {(p.row, p.column, p.code) for p in pandas_info.value.problems}
    assert {(9, "status"), (9, "latency_ms")} <= {(r, c) for r, c, _ in found}
    assert (20, "run_id", "duplicate_run_id") in found


def test_a_refusal_counts_every_problem_and_invalid_row_as_the_pandas_engine_does(spark, tmp_path):
    # More rows of each rule than a refusal lists, repeated ids that also break a rule: the same totals as pandas
    # from a file (rows numbered). A table has no row order (rows named by run_id), so no id has a first row: each
    # repeated id keeps one row without another problem, and the file's first rows of dup0 and dup2, which break a
    # rule, are invalid too.
    from scoring.engines.spark_engine import score_spark

    path = many_problems_csv(tmp_path / "many.csv")
    with pytest.raises(RunsValidationError) as pandas_info:
        load_runs(path)
    expected = (pandas_info.value.total, pandas_info.value.invalid_rows, 900)
    assert expected == (538, 459, 900)
    with pytest.raises(RunsValidationError) as info:
        score_spark(path, spark=spark)
    assert (info.value.total, info.value.invalid_rows, info.value.rows_read) == expected
    from pyspark.sql import functions as F

    # A table has no file order: the window needs finished_at.
    (spark.read.options(header="true").csv(str(path)).withColumn("finished_at", F.lit("2026-07-01T00:00:00Z"))
     .createOrReplaceTempView("scoring_test_many"))
    try:
        with pytest.raises(RunsValidationError) as info:
            score_spark(table="scoring_test_many", spark=spark)
    finally:
        spark.catalog.dropTempView("scoring_test_many")
    assert (info.value.total, info.value.invalid_rows, info.value.rows_read) == (538, 459 - 2, 900)


def test_parquet_rows_are_numbered_from_the_file(spark, tmp_path):
    from scoring.engines.spark_engine import score_spark

    path = tmp_path / "nan.parquet"
    latency = [1000.0] * 2500
    latency[1234], latency[2222] = float("nan"), -1.0
    pq.write_table(pa.table({"run_id": [f"r{i}" for i in range(2500)], "agent_id": ["a"] * 2500,
                             "task_id": ["t"] * 2500, "status": ["completed"] * 2500, "success": [True] * 2500,
                             "latency_ms": latency, "cost_usd": [0.01] * 2500}), path, row_group_size=500)
    with pytest.raises(RunsValidationError) as info:
        score_spark(path, spark=spark)
    assert [(p.row, p.column, p.code) for p in info.value.problems] == [(1235, "latency_ms", "not_finite"),
                                                                       (2223, "latency_ms", "negative")]


def test_whitespace_around_ids_status_and_outcomes_is_read_alike(spark, tmp_path):
    from scoring.engines.spark_engine import score_spark

    path = tmp_path / "ws.csv"
    path.write_text(HEADER + "\nr1,a,t1,completed\t,\ttrue,1000,0.01\n r2,a ,t1 , Completed ,TRUE ,1500,0.02\n")
    assert_same_report(*both(path, spark))
    dup = tmp_path / "dup.csv"
    dup.write_text(HEADER + "\nr1,a,t1,completed,true,1000,0.01\n r1 ,a,t1,completed,true,1000,0.01\n")
    with pytest.raises(RunsValidationError, match="duplicate run_id; first seen at row 1"):
        score_spark(dup, spark=spark)


MALFORMED = [("1_000", "latency_ms"), ("0x10", "cost_usd"), ("1.5d", "latency_ms"), ("Infinity", "cost_usd"),
             ("2026-07-01 12:00:00 PST", "finished_at"), ("yesterday", "finished_at"), ("2026-07-01z", "finished_at")]


def test_the_work_limits_are_refused_as_the_pandas_engine_refuses_them(spark, tmp_path):
    # An id past max_id_chars (each column's at its first row), then more agents or tasks than allowed: the pandas
    # loader's check_work, in its words (before 2026-12-06 Spark scored them and took no limits).
    from scoring.engines.spark_engine import score_spark
    from scoring.load.runs import check_work

    path = tmp_path / "long.csv"
    path.write_text(HEADER + "\nr1,a,t,completed,true,1,0.01\n" + "r" * 1_001 + ",a,t,completed,true,1,0.01\n"
                    f"r3,{'x' * 1_002},t,completed,true,1,0.01\nr4,b,{'y' * 1_003},completed,true,1,0.01\n")
    said = [(p.row, p.column, p.value, p.reason) for p in pytest.raises(
        RunsValidationError, score_spark, path, spark=spark).value.problems]
    assert said == [(p.row, p.column, p.value, p.reason) for p in pytest.raises(
        RunsValidationError, check_work, load_runs(path), DEFAULT_LIMITS).value.problems]
    assert [(row, column) for row, column, *_ in said] == [(2, "run_id"), (3, "agent_id"), (4, "task_id")]
    # Characters, not bytes: ids of 1,000 two-byte characters are within the limit, one more is past it
    wide, ids = tmp_path / "wide.csv", ("\u00e9" * 1_000, "\u00fc" * 1_000)
    text = HEADER + "\nr1,a,t,completed,true,1,0.01\n{},a,{},completed,true,1,0.01\n"
    wide.write_text(text.format(*ids), encoding="utf-8")
    assert spark_doc(wide, spark) == pandas_doc(wide)
    for i, column in enumerate(("run_id", "task_id")):
        wide.write_text(text.format(*(v + v[0] if j == i else v for j, v in enumerate(ids))), encoding="utf-8")
        said = [(p.row, p.column, p.reason) for p in pytest.raises(
            RunsValidationError, score_spark, wide, spark=spark).value.problems]
        assert said == [(2, column, "an id of 1,001 characters, more than the limit of 1,000 (max_id_chars)")]
    many = tmp_path / "many.csv"
    many.write_bytes(runs_csv(agents=3, tasks=2, runs_per_agent=2))
    for limits, words in ((Limits(max_agents=2), "the input has 3 agents, more than the limit of 2 (max_agents)"),
                          (Limits(max_tasks=1), "the input has 2 tasks, more than the limit of 1 (max_tasks)")):
        error = pytest.raises(RunsValidationError, score_spark, many, spark=spark, limits=limits).value
        assert [p.reason for p in error.problems] == [words]
    assert spark_doc(many, spark, limits=Limits(max_agents=3, max_tasks=2)) == pandas_doc(many)
    # More columns than max_columns: refused from the schema, as the other engines refuse it (Spark scored a
    # reviewer's Parquet file of 20,007 columns).
    error = pytest.raises(RunsValidationError, score_spark, many, spark=spark, limits=Limits(max_columns=6)).value
    assert [p.reason for p in error.problems] == [
        f"the data has {len(many.read_text().splitlines()[0].split(','))} columns, more than the limit of 6; "
        "refused before reading"]


def test_a_missing_run_id_alone_is_refused_with_its_rows(spark, tmp_path):
    # The rules on run_id are counted by the duplicate check (the pass per agent does not read run_id).
    from scoring.engines.spark_engine import score_spark

    rows = [f"{'' if i == 2 else ' ' if i == 4 else f'r{i}'},a,t,completed,true,1000,0.01" for i in range(6)]
    path = tmp_path / "missing.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    for load in (lambda p: score_spark(p, spark=spark), load_runs):
        with pytest.raises(RunsValidationError) as info:
            load(path)
        assert [(p.row, p.column) for p in info.value.problems] == [(3, "run_id"), (5, "run_id")]


def test_both_engines_refuse_the_same_malformed_cells(spark, tmp_path):
    """Spark's casts read some of these (hex, '1.5d', 'yesterday', zone names); the spelling rules refuse them."""
    from scoring.engines.spark_engine import score_spark

    lines = []
    for i, (cell, column) in enumerate([("", "")] + MALFORMED):
        values = {"latency_ms": "1000", "cost_usd": "0.01", "finished_at": "2026-07-01T12:00:00Z", column: cell}
        lines.append(f"r{i},a,t,completed,true,{values['latency_ms']},{values['cost_usd']},{values['finished_at']}")
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + ",finished_at\n" + "\n".join(lines) + "\n")
    expected = [(i + 2, column) for i, (_, column) in enumerate(MALFORMED)]
    for load in (lambda p: score_spark(p, spark=spark), load_runs):
        with pytest.raises(RunsValidationError) as info:
            load(path)
        assert sorted((p.row, p.column) for p in info.value.problems) == expected, load


def test_every_spelling_the_rules_allow_and_unicode_whitespace_read_alike(spark, tmp_path):
    """The loader's spelling lists (tests/spellings.py): ids, numbers and times around which any
    character Python's str.strip() removes (schema.WHITESPACE) may stand, as CSV and as Parquet text."""
    rows = [[(f"r{i}", f"r{i} ", f"\u2003r{i}", f"\x85r{i}\u3000")[i % 4], IDS[i % len(IDS)],
             IDS[(5 * i) % len(IDS)], STATUSES[i % len(STATUSES)], SUCCESS[i % len(SUCCESS)],
             NUMBERS[i % len(NUMBERS)], NUMBERS[(3 * i) % len(NUMBERS)], STEPS[i % len(STEPS)], TIMES[i % len(TIMES)]]
            for i in range(300)]
    for name, data in files(rows).items():
        if name == "x.json":
            continue
        path = tmp_path / name
        path.write_bytes(data)
        assert_same_report(*both(path, spark), name)


def test_ids_written_several_ways_get_the_pandas_engines_warning(spark, tmp_path):
    from scoring.engines.spark_engine import score_spark
    from tests.spellings import SPELT_APART_CSV, SPELT_APART_WARNINGS

    path = tmp_path / "spelt.csv"
    path.write_text(SPELT_APART_CSV)
    assert list(score_spark(path, spark=spark).warnings) == SPELT_APART_WARNINGS


def test_invalid_cells_are_refused_row_for_row_as_the_pandas_engine_refuses_them(spark, tmp_path):
    from scoring.engines.spark_engine import score_spark

    good = ["r0", "a", "t", "completed", "true", "12.5", "0.01", "3", "2026-07-01T00:00:00Z"]
    bad = [(5, v) for v in BAD_NUMBERS] + [(6, v) for v in BAD_NUMBERS] + [(7, v) for v in BAD_STEPS] + \
        [(8, v) for v in BAD_TIMES] + [(3, "done"), (3, "İ"), (4, "maybe"), (4, "2")] + \
        [(column, v) for column, v, _ in NON_ASCII_WORDS]  # Spark's lower() read "FAİLED" as "fai̇led", pandas "failed"
    rows = [[f"r{i}"] + good[1:] for i in range(2 * len(bad))]
    for i, (column, value) in enumerate(bad):  # every other row, one bad cell each
        rows[2 * i + 1][column] = value
    for name, data in files(rows).items():
        if name == "x.json":
            continue
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(RunsValidationError) as spark_info:
            score_spark(path, spark=spark)
        with pytest.raises(RunsValidationError) as pandas_info:
            load_runs(path)
        listed = [[(p.row, p.column, p.value, p.code) for p in info.value.problems]
                  for info in (spark_info, pandas_info)]
        assert listed[0] == listed[1], name


@pytest.mark.parametrize("text, says", [
    (EDGE_CSV.replace("cost_usd,", "price,"), "cost_usd"),
    (EDGE_CSV.replace("run_id,agent_id", "run_id,Run ID"), "duplicate column"),
    (EDGE_CSV.replace("f1,floor,t1,completed,false,910,0.004,3,", "f1,floor,t1,completed,false,910,"),
     "MALFORMED_CSV_RECORD"),
    ("", "empty"),
])
def test_unreadable_files_are_refused_with_a_reason(spark, tmp_path, text, says):
    from scoring.engines.spark_engine import score_spark

    path = tmp_path / "file.csv"
    path.write_text(text)
    with pytest.raises(RunsValidationError, match=says) as info:
        score_spark(path, spark=spark)
    assert "at org.apache" not in str(info.value)


def test_other_formats_and_missing_files_are_refused(spark, tmp_path):
    from scoring.engines.spark_engine import score_spark

    (tmp_path / "runs.jsonl").write_text("{}\n")
    with pytest.raises(RunsValidationError, match=r"pandas engine for \.jsonl"):
        score_spark(tmp_path / "runs.jsonl", spark=spark)
    with pytest.raises(RunsValidationError, match="no such file"):
        score_spark(tmp_path / "absent.parquet", spark=spark)
    pq.write_table(pa.table({"run_id": ["r1"], "finished_at": pa.array([1], pa.timestamp("ns", "UTC"))}),
                   tmp_path / "ns.parquet")
    with pytest.raises(RunsValidationError, match="not readable as Parquet"):
        score_spark(tmp_path / "ns.parquet", spark=spark)


# --------------------------------------------------------------------------- several files and tables


def test_a_directory_of_part_files_gives_the_same_report(spark, tmp_path):
    frame = pd.read_parquet(_typed_parquet(tmp_path))
    parts = tmp_path / "runs"
    parts.mkdir()
    for i, start in enumerate(range(0, len(frame), 1000)):
        frame.iloc[start:start + 1000].to_parquet(parts / f"part-{i:05d}.parquet", index=False)
    assert_same_report(spark_doc(parts, spark), pandas_doc(SAMPLE))


def _typed_parquet(tmp_path: Path) -> Path:
    path = tmp_path / "typed.parquet"
    _typed_sample(path)
    return path


def _catalog_table(spark, name: str, path: Path) -> None:
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} USING parquet LOCATION '{path}'")


def test_a_catalog_table_gives_the_same_report(spark, tmp_path):
    _catalog_table(spark, "catalog_runs", _typed_parquet(tmp_path))
    from scoring.engines.spark_engine import score_spark

    doc = json.loads(score_spark(table="catalog_runs", spark=spark).to_json_text())
    assert_same_report(doc, pandas_doc(SAMPLE))


def test_a_table_names_invalid_rows_by_run_id(spark, tmp_path):
    from scoring.engines.spark_engine import score_spark

    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"run_id": ["r1", "r2", "r3", "r3"], "agent_id": ["a"] * 4, "task_id": ["t"] * 4,
                             "status": ["completed", "done", "completed", "failed"],
                             "success": [True, False, None, None], "latency_ms": [1000.0, -1.0, float("nan"), 5.0],
                             "cost_usd": [0.01] * 4, "finished_at": ["2026-07-01T00:00:00Z"] * 4}), path)
    _catalog_table(spark, "bad_runs", path)
    with pytest.raises(RunsValidationError) as info:
        score_spark(table="bad_runs", spark=spark)
    problems = [(p.row, p.column, p.value, p.reason) for p in info.value.problems]
    assert all(row is None for row, *_ in problems)
    assert (None, "status", "done", "unknown status; expected one of queued, running, completed, failed, timeout, "
                                    "cancelled (run_id 'r2')") in problems
    assert any(c == "latency_ms" and r.endswith("(run_id 'r3')") for _, c, _, r in problems)
    assert (None, "run_id", "r3", "duplicate run_id") in problems
    (tmp_path / "no_time").mkdir()
    pq.write_table(pa.table({"run_id": ["r1"], "agent_id": ["a"], "task_id": ["t"], "status": ["completed"],
                             "success": [True], "latency_ms": [1.0], "cost_usd": [0.01]}),
                   tmp_path / "no_time" / "part-0.parquet")
    _catalog_table(spark, "timeless_runs", tmp_path / "no_time")
    with pytest.raises(RunsValidationError, match="needs a finished_at column"):
        score_spark(table="timeless_runs", spark=spark)
    with pytest.raises(RunsValidationError, match="cannot read table no_such_table"):
        score_spark(table="no_such_table", spark=spark)


# --------------------------------------------------------------------------- the command line


def _cli(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", "report", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=1800)


@CLUSTER_GROUP
def test_the_cli_prints_the_pandas_json_from_spark_in_local_mode(tmp_path):
    """The command line's own local-mode session (no master given), on the typed Parquet file with a scorecard.
    A CSV file through the command line is the cluster test's (the sample and the edge cases, below); one JVM
    start here, not two (a JVM scoring the sample costs about 33 s of the machine's CPU, 2026-12-03)."""
    _needs_spark()
    parquet = _typed_parquet(tmp_path)
    env = {**os.environ, "PYSPARK_SUBMIT_ARGS": f'--driver-java-options "{FAST_JVM}" pyspark-shell'}
    card = ["--scorecard", str(ROOT / "sample_data" / "scorecards" / "speed-first.json")]
    out = _cli(parquet, "--engine", "spark", *card, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    assert out.stdout == _cli(SAMPLE, *card).stdout  # the very same text as the pandas engine prints


def test_cli_options_for_spark_are_checked_before_spark_starts(capsys):
    from scoring.cli.commands import main

    either = "either INPUT (a Parquet or CSV path) or --table"
    for args, says in [(["--engine", "spark"], either),
                       ([SAMPLE, "--engine", "spark", "--table", "t"], either),
                       ([SAMPLE, SAMPLE, "--engine", "spark"], "--engine spark reads one runs path or table"),
                       ([SAMPLE, "--engine", "spark", "--from", "tau2"], "harness imports"),
                       ([SAMPLE, "--spark-remote", "sc://localhost:1"], "--spark-remote needs --engine spark"),
                       ([SAMPLE, "--spark-master", "spark://localhost:1"], "--spark-master needs --engine spark"),
                       ([SAMPLE, "--engine", "spark", "--spark-master", "yarn", "--spark-remote", "sc://h:1"],
                        "give one"),
                       ([SAMPLE, "--table", "t"], "--table needs --db URL or --engine spark"),
                       (["--engine", "spark", "--db", "postgresql://x/y", "--table", "t"], "--db scores"),
                       ([SAMPLE, "--engine", "spark", "--intervals"], "need the pandas engine")]:
        try:  # refused by the parser, in this process or in the CLI's worker (which returns its exit status)
            code = main(["report", *map(str, args)])
        except SystemExit as exit_info:
            code = exit_info.code
        assert code == 2 and says in capsys.readouterr().err, args


# --------------------------------------------------------------------------- Spark Connect


def _spark_home() -> Path:
    _needs_spark()
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home())


def _classic_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a classic Spark process: without what an in-process Spark Connect
    session left set (pyspark would make a Connect session of every session after it)."""
    return {k: v for k, v in {**os.environ, **(extra or {})}.items()
            if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_LOCAL_REMOTE")}


@contextmanager
def _daemon(command: list[str], name: str, ready, env: dict[str, str] | None = None) -> Iterator[Path]:
    """A JVM started from the pyspark package, waited for until ``ready()`` is true (polled, at most ten
    minutes), stopped afterwards. It dies with this process (setpriv): a killed test run leaves none behind."""
    log = Path(tempfile.mkdtemp(prefix=f"scoring-spark-{name}-")) / "out.log"
    env = _classic_env(env)
    with open(log, "wb") as out:
        process = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "--"] + command, stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 600
        while not ready():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Spark {name} did not start:\n" + log.read_text()[-3000:])
            time.sleep(0.5)
        yield log.parent
    finally:
        process.terminate()  # SIGTERM: the JVM's shutdown hooks stop Spark
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(log.parent, ignore_errors=True)


def _listening(port: int):
    def ready() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False
    return ready


def _connect_server(master: str, *conf: str) -> Iterator[str]:
    """A Spark Connect server from the pyspark package on 127.0.0.1 only, driving ``master``."""
    submit = _spark_home() / "bin" / "spark-submit"
    if not list((submit.parent.parent / "jars").glob("spark-connect_*.jar")):
        _missing("this pyspark has no Spark Connect server jar")
    port = free_port()
    command = [str(submit), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--name", "Spark Connect server",  # the name sbin/start-connect-server.sh gives it
               "--master", master, "--driver-java-options", FAST_JVM,
               "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
               "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.ui.enabled=false",
               "--conf", "spark.sql.shuffle.partitions=1", "--conf", "spark.sql.adaptive.enabled=false",
               "--conf", f"spark.sql.session.timeZone={SESSION_ZONE}", *conf]
    with _daemon(command, "connect-server", _listening(port), env={"SPARK_LOCAL_IP": "127.0.0.1"}):
        yield f"sc://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def connect_url():
    """A Spark Connect server in local mode, stopped at the end."""
    yield from _connect_server("local[2]")


def test_the_cli_scores_through_spark_connect(connect_url, tmp_path):
    parquet = _typed_parquet(tmp_path)
    out = _cli(parquet, "--engine", "spark", "--spark-remote", connect_url)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == _cli(SAMPLE).stdout  # the same text: every number equal to the bit


def test_spark_connect_refusals_are_one_line(connect_url):
    from scoring.engines.spark_engine import score_spark

    with pytest.raises(RunsValidationError, match="PATH_NOT_FOUND"):
        score_spark(SAMPLE.parent / "no_such_runs.parquet", remote=connect_url)
    closed = f"sc://127.0.0.1:{free_port()}"
    with pytest.raises(ConnectionError, match=r"cannot connect to the Spark Connect server at 127\.0\.0\.1"):
        score_spark(SAMPLE, remote=closed)
    with pytest.raises(ValueError, match="sc://host"):
        score_spark(SAMPLE, remote="http://127.0.0.1:15002")


def test_a_connect_session_of_its_own_leaves_classic_sessions_working(spark, connect_url, tmp_path):
    # pyspark marks the process Connect-only when a Connect session is made; scoring through one of its own
    # must not leave that mark (a classic session then failed: SESSION_ALREADY_EXIST)
    from scoring.engines.spark_engine import CONNECT_MODE, score_spark

    score_spark(SAMPLE, remote=connect_url)
    assert CONNECT_MODE not in os.environ
    assert_same_report(*both(SAMPLE, spark))


# --------------------------------------------------------------------------- pass-through columns (docs/schema.md)

PASS_THROUGH_CSV = (HEADER + ",finished_at,trial,epoch,seed,input_tokens,output_tokens\n"
                    "r1,a,t1,completed,true,10,0.1,2026-07-01T00:00:00Z,0,1,863145,42224,512\n"
                    "r2,a,t1,completed,false,12,0.2,2026-07-01T00:01:00Z,1,2,,1000,\n"
                    "r3,b,t1,failed,,,,2026-07-01T00:02:00Z,2,,7,,\n")


def test_pass_through_columns_change_no_number(spark, tmp_path):
    path = tmp_path / "extra.csv"
    path.write_text(PASS_THROUGH_CSV)
    assert_same_report(*both(path, spark))


def test_pass_through_columns_are_refused_alike(spark, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(PASS_THROUGH_CSV.replace(",1,2,,1000,", ",1.5,2,,1000,").replace(",2,,7,,", ",-2,,x,,"))
    found = []
    for score in (lambda: spark_doc(path, spark), lambda: load_runs(path)):
        with pytest.raises(RunsValidationError) as refused:
            score()
        found.append(sorted((p.row, p.column, p.code) for p in refused.value.problems))
    assert found[0] == found[1] == [(2, "trial", "not_whole"), (3, "seed", "not_a_number"), (3, "trial", "negative")]


def test_a_pass_through_value_of_2_63_or_more_is_refused_alike(spark, tmp_path):
    path = tmp_path / "huge.csv"  # 2^63 - 1 reads as the double 2^63: too large for a 64-bit integer, as 1e20 is
    path.write_text(PASS_THROUGH_CSV.replace(",863145,", ",100000000000000000000,")
                    .replace(",7,,", ",9223372036854775807,,"))
    found = []
    for score in (lambda: spark_doc(path, spark), lambda: load_runs(path)):
        with pytest.raises(RunsValidationError) as refused:
            score()
        found.append(sorted((p.row, p.column, p.code) for p in refused.value.problems))
    assert found[0] == found[1] == [(1, "seed", "too_large"), (3, "seed", "too_large")]


def test_a_steps_count_past_2_63_scores_alike(spark, tmp_path):
    """steps has no upper limit: 1e20 is a whole number. Spark's floor() of it overflowed a BIGINT (ANSI), so the
    whole-number check of Spark's validation query failed the report where pandas scored the file."""
    path = tmp_path / "steps.csv"
    path.write_text(HEADER + ",steps\n" + "".join(f"r{i},a,t{i % 3},completed,true,{10 + i},0.1,{steps}\n"
                                                   for i, steps in enumerate(["1e20", "3", "2.5e19", "7"] * 2)))
    assert_same_report(*both(path, spark))


# --------------------------------------------------------------------------- a standalone cluster


# Each application on the test cluster: one executor of one core on each worker (spread out), small heaps.
# Generous heartbeat and network timeouts: on a starved machine an executor that misses its heartbeats is
# declared lost and its tasks rerun, again and again (seen at a load average of 40 on two cores).
CLUSTER_APP = ["--conf", "spark.cores.max=2", "--conf", "spark.executor.cores=1",
               "--conf", "spark.executor.memory=512m", "--conf", f"spark.executor.extraJavaOptions={FAST_JVM}",
               "--conf", "spark.executor.heartbeatInterval=60s", "--conf", "spark.network.timeout=900s"]
CLUSTER_ENV = {"SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": "256m",
               "SPARK_DAEMON_JAVA_OPTS": FAST_JVM,
               "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false"}  # no REST server on its fixed port 6066


@dataclass(frozen=True)
class Cluster:
    master: str  # spark://127.0.0.1:port
    ui: int  # the master's web UI port (its /json/ state)
    worker_uis: tuple[int, ...]


def _ui_state(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/", timeout=5) as response:
        return json.load(response)


def _alive_workers(port: int, n: int):
    def ready() -> bool:
        try:
            return sum(w["state"] == "ALIVE" for w in _ui_state(port)["workers"]) >= n
        except (OSError, ValueError, KeyError):
            return False
    return ready


@pytest.fixture(scope="session")
def cluster():
    """A Spark standalone master and two workers (three cores, 2 GB each) on 127.0.0.1, from the pyspark
    package, ready once the master lists both workers ALIVE; stopped at the end of the session."""
    spark_class = str(_spark_home() / "bin" / "spark-class")
    port, ui, worker_uis = free_port(), free_port(), (free_port(), free_port())
    master = f"spark://127.0.0.1:{port}"
    work = Path(tempfile.mkdtemp(prefix="scoring-spark-work-"))
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, work, ignore_errors=True)
        stack.enter_context(_daemon([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                     "--port", str(port), "--webui-port", str(ui)], "master",
                                    _alive_workers(ui, 0), env=CLUSTER_ENV))
        for i, worker_ui in enumerate(worker_uis):
            stack.enter_context(_daemon([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                         "--webui-port", str(worker_ui), "--cores", "3", "--memory", "2g",
                                         "--work-dir", str(work / f"worker-{i}"), master], f"worker-{i}",
                                        _alive_workers(ui, i + 1), env=CLUSTER_ENV))
        yield Cluster(master, ui, worker_uis)


def _ran_on_both_workers(cluster: Cluster, app_id: str) -> bool:
    """Whether each worker ran (or runs) an executor of the application."""
    def executors(state: dict) -> list[dict]:
        return state.get("executors", []) + state.get("finishedexecutors", [])
    return all(any(e.get("appid") == app_id for e in executors(_ui_state(port))) for port in cluster.worker_uis)


def _scoring_apps(cluster: Cluster) -> list[str]:
    state = _ui_state(cluster.ui)
    return [app["id"] for app in state.get("activeapps", []) + state.get("completedapps", [])
            if app.get("name") in ("scoring", "Spark Connect server")]


@CLUSTER_GROUP
def test_a_two_worker_cluster_scores_the_sample_as_pandas_does(cluster):
    """The command line as a classic driver of the cluster (``--spark-master``): the sample's CSV. The edge cases
    go through the same cluster by Spark Connect (the next test): each application here is three JVMs (the driver
    and an executor on each worker), about 70 s of the machine's CPU (2026-12-02)."""
    before = set(_scoring_apps(cluster))
    # The driver runs in the CLI's process; the two workers' executors read the file and run every task.
    env = _classic_env({**CLUSTER_ENV, "PYSPARK_SUBMIT_ARGS": f'--driver-java-options "{FAST_JVM}" '
                                                            f'{shlex.join(CLUSTER_APP)} pyspark-shell'})
    out = _cli(SAMPLE, "--engine", "spark", "--spark-master", cluster.master, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == _cli(SAMPLE).stdout  # byte for byte the pandas engine's JSON
    apps = [app for app in _scoring_apps(cluster) if app not in before]
    assert len(apps) == 1 and _ran_on_both_workers(cluster, apps[0]), apps


@pytest.fixture(scope="session")
def cluster_connect_url(cluster):
    """A Spark Connect server whose executors run on the two-worker cluster."""
    yield from _connect_server(cluster.master, *CLUSTER_APP)


@CLUSTER_GROUP
def test_spark_connect_served_by_the_cluster_gives_the_pandas_report(cluster, cluster_connect_url, tmp_path):
    """The sample (as typed Parquet) and the edge cases through a Connect server whose executors run on both
    workers: with the test above, the sample and the edge fixtures scored through the two-worker cluster."""
    parquet = _typed_parquet(tmp_path)
    edge = tmp_path / "edge.csv"
    edge.write_text(EDGE_CSV)
    for path, expected in ((parquet, SAMPLE), (edge, edge)):
        out = _cli(path, "--engine", "spark", "--spark-remote", cluster_connect_url)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout == _cli(expected).stdout, path
    server = [app for app in _scoring_apps(cluster) if app in {a["id"] for a in _ui_state(cluster.ui)["activeapps"]}]
    assert server and all(_ran_on_both_workers(cluster, app) for app in server)
