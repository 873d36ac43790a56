"""The work limits (agents, tasks, an id's characters) are the same refusal in every engine: the pandas loader's
check_work, the SQL engine's (DuckDB here; PostgreSQL and Spark in their own files) and the command line's
options, which reach every engine. Before 2026-12-06 the SQL engine scored a 2,000-character agent id the pandas
engine refuses, and ignored --max-agents, --max-tasks and --max-id-chars."""

import re
import subprocess
import sys

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from scoring import RunsValidationError, load_runs
from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.engines.sql_engine import score_file_sql
from scoring.load.runs import check_work
from tests.helpers import ROOT
from tests.hostile_files import runs_csv

HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,finished_at"


def _csv(tmp_path, rows, name="runs.csv"):
    """A runs CSV of (run_id, agent_id, task_id) rows, each finished a minute after the one before (the canonical
    order, newest first, is then the file's reversed)."""
    lines = [HEADER] + [f"{r},{a},{t},completed,true,100,0.01,2026-07-01T00:{i:02d}:00Z"
                        for i, (r, a, t) in enumerate(rows)]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _pandas_refusal(path, limits=DEFAULT_LIMITS):
    return pytest.raises(RunsValidationError, check_work, load_runs(path), limits).value


def _sql_refusal(path, limits=DEFAULT_LIMITS):
    return pytest.raises(RunsValidationError, score_file_sql, path, limits=limits).value


def _said(error):
    return [(p.row, p.column, p.value, p.reason) for p in error.problems]


def test_the_pandas_engine_names_the_first_row_in_the_file_not_in_the_canonical_order(tmp_path):
    # The runs are ordered newest first when checked; the file's first row with the long id is row 1 (it said 3).
    long = "a" * 2_000
    path = _csv(tmp_path, [("r1", long, "t"), ("r2", long, "t"), ("r3", long, "t"), ("r4", "b", "t")])
    assert [p.row for p in _pandas_refusal(path).problems] == [1]


def test_the_first_row_past_the_limit_is_named_with_its_own_id_s_length(tmp_path):
    # Row 2's id is longer, but row 1 comes first: both engines name row 1 and its 1,500 characters.
    path = _csv(tmp_path, [("r1", "a" * 1_500, "t"), ("r2", "b" * 3_000, "t"), ("r3", "c", "t")])
    expected = [(1, "agent_id", "a" * 61, "an id of 1,500 characters, more than the limit of 1,000 (max_id_chars)")]
    assert _said(_pandas_refusal(path)) == expected
    assert _said(_sql_refusal(path)) == expected


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_sql_engine_refuses_long_ids_as_the_pandas_engine_does(tmp_path, suffix):
    # One long id per column on rows 2, 3 and 4; a 1,000-character id and one padded with spaces are within it.
    rows = [("r1", "a", "t" * 1_000), ("r" * 1_001, "a", "t"), ("r3", "x" * 1_002, "t"), ("r4", "a", "y" * 1_003),
            ("r5", "   " + "z" * 1_000 + "  ", "t")]
    path = _csv(tmp_path, rows)
    if suffix == ".parquet":
        parquet = tmp_path / "runs.parquet"
        pq.write_table(pa.csv.read_csv(path, convert_options=pa.csv.ConvertOptions(
            column_types={"success": pa.string(), "finished_at": pa.string()})), parquet)
        path = parquet
    pandas_error, sql_error = _pandas_refusal(path), _sql_refusal(path)
    assert [(p.row, p.column, p.reason) for p in sql_error.problems] == [
        (2, "run_id", "an id of 1,001 characters, more than the limit of 1,000 (max_id_chars)"),
        (3, "agent_id", "an id of 1,002 characters, more than the limit of 1,000 (max_id_chars)"),
        (4, "task_id", "an id of 1,003 characters, more than the limit of 1,000 (max_id_chars)")]
    assert _said(sql_error) == _said(pandas_error)
    assert (sql_error.rows_read, sql_error.excludable) == (5, False)
    score_file_sql(path, limits=Limits(max_id_chars=1_003))  # the operator's setting: the same file is scored


class _Queries:
    """duckdb.connect with every statement of the connection recorded."""

    def __init__(self, monkeypatch):
        import duckdb

        self.seen, connect = [], duckdb.connect
        recorder = self

        class Recorded:
            def __init__(self, con):
                self._con = con

            def execute(self, query, *args):
                recorder.seen.append(query)
                return self._con.execute(query, *args)

            def __getattr__(self, name):
                return getattr(self._con, name)

        monkeypatch.setattr(duckdb, "connect", lambda *a, **k: Recorded(connect(*a, **k)))


def test_a_parquet_dictionary_of_one_long_agent_id_is_refused_before_the_runs_are_read_row_by_row(tmp_path,
                                                                                                   monkeypatch):
    """A Parquet dictionary holds a long id once, and every row repeats it: 20,000 rows of a 50,000-character
    agent id are 0.4 MB on disk and 1 GB of text a row at a time (a reviewer's 1.9 MB file: 200 GB, which took the
    SQL engine to the worker's memory cap). The ids are measured on the file's own values first: past the memory
    budget (here 100 MB), the file is refused before the runs are normalized."""
    queries = _Queries(monkeypatch)
    agent = pa.DictionaryArray.from_arrays(pa.array([0] * 20_000, pa.int32()), pa.array(["x" * 50_000]))
    table = pa.table({"run_id": [f"r{i}" for i in range(20_000)], "agent_id": agent,  # one value, held once
                      "task_id": ["t"] * 20_000, "status": ["completed"] * 20_000, "success": [True] * 20_000,
                      "latency_ms": [1.0] * 20_000, "cost_usd": [0.01] * 20_000})
    path = tmp_path / "bomb.parquet"
    pq.write_table(table, path, use_dictionary=True, compression="zstd")
    assert path.stat().st_size < 2_000_000
    error = _sql_refusal(path, Limits(max_memory=10**8))
    assert _said(error) == [(1, "agent_id", "x" * 61,
                             "an id of 50,000 characters, more than the limit of 1,000 (max_id_chars)")]
    assert error.rows_read == 20_000
    assert not any("runs_normalized" in q for q in queries.seen)  # refused before a row was normalized


def test_a_parquet_dictionary_of_one_long_status_is_refused_before_a_row_is_read(tmp_path, monkeypatch):
    """The same bomb in a column that is no id (a reviewer's 200,000-character status in 300,000 rows, 0.4 MB on
    disk, took the SQL engine to the worker's memory cap; the pandas engine refuses it against its memory budget):
    any text column read is measured alike, and refused past the budget in words."""
    queries = _Queries(monkeypatch)

    def written(n):
        status = pa.DictionaryArray.from_arrays(pa.array([0] * n, pa.int32()), pa.array(["s" * 50_000]))
        table = pa.table({"run_id": [f"r{i}" for i in range(n)], "agent_id": ["a"] * n, "task_id": ["t"] * n,
                          "status": status, "success": [True] * n, "latency_ms": [1.0] * n, "cost_usd": [0.01] * n})
        pq.write_table(table, path := tmp_path / f"status-{n}.parquet")
        return path

    error = _sql_refusal(written(20_000), Limits(max_memory=10**8))
    assert _said(error) == [(None, "status", None, "values of up to 50,000 bytes in 20,000 rows take up to 1.0 GB "
                                                   "decoded, more than the memory budget of 100.0 MB; refused before "
                                                   "reading a row")]
    assert not any("runs_normalized" in q for q in queries.seen)
    # Within the budget (10 MB here): read, and the status refused row by row as unknown
    scored = _sql_refusal(written(200), Limits(max_memory=10**8))
    assert {p.code for p in scored.problems} == {"unknown_status"}


def test_a_lowered_id_limit_bounds_ids_never_the_other_text_columns(tmp_path):
    """--max-id-chars bounds ids: a Parquet file whose finished_at texts (20 bytes) pass 12 is scored, not refused
    past the memory budget as a text column too long (a reviewer: at --max-id-chars 20 a legitimate file above
    74M rows would have been)."""
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.csv.read_csv(_csv(tmp_path, [("r1", "a", "t"), ("r2", "b", "t")]), convert_options=pa.csv.
                                   ConvertOptions(column_types={"success": pa.string(), "finished_at": pa.string()})),
                   path)
    limits = Limits(max_id_chars=12, max_memory=10)  # finished_at: 20 bytes a row
    assert [a.agent_id for a in score_file_sql(path, limits=limits).agents] == \
        [a.agent_id for a in score_file_sql(path).agents]


def test_below_the_memory_budget_the_rows_are_validated_before_the_ids_are_measured(tmp_path):
    """The pandas engine's order (a reviewer, 2026-12-06): a Parquet file with a 1,001-character agent id and an
    unknown status is refused for the status, and one with three agents past --max-agents 2 for the agents; a list
    column of ids is refused as nested, never measured as an id (its text, '[aaa...]', was 'an id of 1,003
    characters')."""
    rows = [("r1", "x", "t"), ("r2", "a" * 1_001, "t"), ("r3", "y", "t2")]
    table = pa.csv.read_csv(_csv(tmp_path, rows), convert_options=pa.csv.ConvertOptions(
        column_types={"success": pa.string(), "finished_at": pa.string()}))
    for name, changed, limits, code in (
            ("status", table.set_column(3, "status", pa.array(["bogus", "completed", "completed"])), DEFAULT_LIMITS,
             "unknown_status"),
            ("agents", table, Limits(max_agents=2), "file"),
            ("nested", table.set_column(1, "agent_id", pa.array([["a" * 1_001], ["b"], ["c"]])), DEFAULT_LIMITS,
             "nested")):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(changed, path)
        with pytest.raises(RunsValidationError) as pandas_info:
            check_work(load_runs(path), limits)  # a list column: refused by the loader itself
        pandas_error = pandas_info.value
        sql_error = _sql_refusal(path, limits)
        assert [(p.row, p.column, p.code, p.reason) for p in sql_error.problems] == \
            [(p.row, p.column, p.code, p.reason) for p in pandas_error.problems], name
        assert {p.code for p in sql_error.problems} == {code}, name


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_sql_engine_bounds_agents_and_tasks_as_the_pandas_engine_does(tmp_path, suffix):
    path = tmp_path / "many.csv"
    path.write_bytes(runs_csv(agents=30, tasks=7, runs_per_agent=2))
    if suffix == ".parquet":
        parquet = tmp_path / "many.parquet"
        pq.write_table(pa.csv.read_csv(path), parquet)
        path = parquet
    score_file_sql(path, limits=Limits(max_agents=30, max_tasks=7))
    for limits, words in ((Limits(max_agents=20), "the input has 30 agents, more than the limit of 20 (max_agents)"),
                          (Limits(max_tasks=6), "the input has 7 tasks, more than the limit of 6 (max_tasks)")):
        pandas_error, sql_error = _pandas_refusal(path, limits), _sql_refusal(path, limits)
        assert _said(sql_error) == _said(pandas_error)
        assert [p.reason for p in sql_error.problems] == [words]


def test_too_many_agents_are_refused_off_the_counts_per_task_without_a_row_per_agent(tmp_path, monkeypatch):
    """A reviewer's file of 1.5M agents was refused past max_agents only after every agent's row of the pass had
    come to Python (30.8 s, 1.93 GB): DuckDB counts them on its stored counts per agent and task."""
    path = tmp_path / "many.csv"
    path.write_bytes(runs_csv(agents=30, tasks=7, runs_per_agent=2))
    queries = _Queries(monkeypatch)
    error = _sql_refusal(path, Limits(max_agents=20))
    assert [p.reason for p in error.problems] == ["the input has 30 agents, more than the limit of 20 (max_agents)"]
    assert not any(re.search(r"FROM run_groups\s+GROUP BY agent_id", q) for q in queries.seen)
    assert any("COUNT(DISTINCT agent_id)" in q and "run_groups" in q for q in queries.seen)


def test_the_command_line_s_limits_reach_the_sql_engine(tmp_path):
    path = _csv(tmp_path, [("r1", "a" * 2_000, "t"), ("r2", "b", "t")])
    command = [sys.executable, "-m", "scoring", "report", str(path), "--engine", "sql", "--format", "table"]
    refused = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert refused.returncode == 2
    assert "an id of 2,000 characters, more than the limit of 1,000 (max_id_chars)" in refused.stderr
    scored = subprocess.run([*command, "--max-id-chars", "2000"], capture_output=True, text=True, cwd=ROOT)
    assert scored.returncode == 0, scored.stderr
    refused = subprocess.run([*command, "--max-id-chars", "2000", "--max-agents", "1"], capture_output=True,
                             text=True, cwd=ROOT)
    assert refused.returncode == 2 and "the input has 2 agents, more than the limit of 1 (max_agents)" in refused.stderr


def test_spark_s_plan_checks_the_limits_with_no_scan_of_its_own(tmp_path, monkeypatch):
    """Spark's query plan, run by DuckDB (tests/helpers.py's spark_plan) with the run_ids' hashes read
    whole as Spark reads them: the longest task id comes with the pass per agent, whether a run_id is too long with
    the hashes, and the tasks are counted with the spread. The same refusals as the pandas engine, and no query
    reads the runs for the limits alone (a Spark report reads them four times: test_spark_engine.py)."""
    from scoring.engines import sql_engine
    from tests.helpers import spark_plan

    queries = []
    made = sql_engine.SqlScorer.__init__

    def init(self, execute, *args, **kwargs):
        def logged(query):
            queries.append(query)
            return execute(query)

        def read_bigints(query):  # as spark_engine._bigints_reader reads them: values, NULLs, any true flag
            rows = logged(query)[1]
            values = [r[0] for r in rows if r[0] is not None]
            return values, len(rows) - len(values), *([any(r[1] for r in rows)] if len(rows[0]) > 1 else [])

        made(self, logged, *args, **kwargs)
        self.read_bigints = read_bigints

    monkeypatch.setattr(sql_engine.SqlScorer, "__init__", init)
    long = _csv(tmp_path, [("r1", "a", "t"), ("r" * 1_001, "a", "t"), ("r3", "b", "y" * 1_002)], "long.csv")
    many = tmp_path / "many.csv"
    many.write_bytes(runs_csv(agents=3, tasks=2, runs_per_agent=2))
    with spark_plan():
        assert _said(_sql_refusal(long)) == _said(_pandas_refusal(long))
        assert [p.row for p in _sql_refusal(long).problems] == [2, 3]
        queries.clear()
        for limits, words in ((Limits(max_agents=2), "the input has 3 agents, more than the limit of 2 (max_agents)"),
                              (Limits(max_tasks=1), "the input has 2 tasks, more than the limit of 1 (max_tasks)")):
            assert [p.reason for p in _sql_refusal(many, limits).problems] == [words]
        score_file_sql(many, limits=Limits(max_agents=3, max_tasks=2))
        # No agent with a latency mean, so no spread: the tasks are counted with repeatability's counts (a reviewer)
        unmeasured = tmp_path / "unmeasured.csv"
        unmeasured.write_text(HEADER + "\n" + "".join(f"r{i},a,{t},failed,false,,0.01,\n" for i, t in enumerate("xyz")))
        said = [p.reason for p in _sql_refusal(unmeasured, Limits(max_tasks=1)).problems]
        assert said == ["the input has 3 tasks, more than the limit of 1 (max_tasks)"]
        assert said == [p.reason for p in _pandas_refusal(unmeasured, Limits(max_tasks=1)).problems]
    assert any("length(run_id) > 1000" in q for q in queries)  # read with the hashes
    assert not any(re.search(r"MAX\(length\(run_id\)\)|COUNT\(DISTINCT task_id\)", q) for q in queries)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_file_of_a_header_alone_has_no_runs_in_both_engines(tmp_path, suffix):
    """The totals read off DuckDB's counts per agent and task are NULL for a file of no row: the CSV raised a
    TypeError and the Parquet file was scored as an empty leaderboard, before the pandas engine's refusal was kept."""
    columns = HEADER.split(",")
    path = tmp_path / f"empty{suffix}"
    if suffix == ".csv":
        path.write_text(HEADER + "\n")
    else:
        pq.write_table(pa.table({c: pa.array([], pa.string()) for c in columns}), path)
    said = [(p.column, p.reason) for p in _sql_refusal(path).problems]
    assert said == [(None, "the file has no runs")]
    assert said == [(p.column, p.reason) for p in pytest.raises(RunsValidationError, load_runs, path).value.problems]


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_file_of_more_columns_than_the_limit_is_refused_by_both_engines_before_reading(tmp_path, suffix):
    """A reviewer's 789 KB CSV of 100,009 columns held the SQL engine's worker 63 s at 1.1 GB, until the CPU limit
    stopped it (the pandas engine refuses more than max_columns from the header before reading a row); a Parquet
    file of 20,007 columns was scored. Both engines now say the same, and a lowered limit counts for both."""
    extra = [f"x{i}" for i in range(1_001 - len(HEADER.split(",")))]
    path = tmp_path / f"wide.{suffix}"
    columns = {name: ["v"] for name in HEADER.split(",") + extra}
    if suffix == "csv":
        path.write_text(",".join(columns) + "\n" + ",".join(["r1", "a", "t", "completed", "true", "100", "0.01",
                                                             "2026-07-01T00:00:00Z"] + ["1"] * len(extra)) + "\n")
    else:
        pq.write_table(pa.table(columns), path)
    said = "the header has" if suffix == "csv" else "the file has"
    expected = [(None, None, None, f"{said} 1,001 columns, more than the limit of 1,000; refused before reading")]
    assert _said(pytest.raises(RunsValidationError, load_runs, path).value) == expected
    assert _said(_sql_refusal(path)) == expected
    lowered = Limits(max_columns=8)
    narrow = _csv(tmp_path, [("r1", "a", "t")])  # 8 columns: within a limit of 8, one past 7
    score_file_sql(narrow, limits=lowered)
    assert _said(_sql_refusal(_add_column(narrow), lowered)) == [
        (None, None, None, "the header has 9 columns, more than the limit of 8; refused before reading")]


def _add_column(path):
    lines = path.read_text().splitlines()
    wider = path.with_name("wider.csv")
    wider.write_text("\n".join([lines[0] + ",extra"] + [line + ",1" for line in lines[1:]]) + "\n")
    return wider


def test_a_line_past_the_pandas_engines_limit_is_refused_by_the_sql_engine_in_those_words(tmp_path):
    """A reviewer's CSV with a 50 MB line: the SQL engine said DuckDB's "CSV Error on Line: 1" and then "the pandas
    engine reports the row", where the pandas engine refuses the file for the line's length and names no row."""
    path = tmp_path / "long.csv"
    path.write_text(HEADER + "\nr1,a,t,completed,true,100,0.01,2026-07-01T00:00:00Z\n"
                    + "r2," + "a" * (17 << 20) + ",t,completed,true,100,0.01,2026-07-01T00:01:00Z\n")
    (pandas,) = pytest.raises(RunsValidationError, load_runs, path).value.problems
    assert "more than the limit of" in pandas.reason and pandas.row is None
    (sql,) = _sql_refusal(path).problems
    assert sql.reason.endswith(f"the pandas engine refuses it too: {pandas.reason}")
    assert "reports the row" not in sql.reason
