"""Issue 11: a stranger with the link, or a stranger's file, cannot write files, reach other hosts or
exhaust the server. Each test reproduces one attack from the issue and pins the refusal.

The database attacks that need a running server are in test_postgres.py.
"""

from __future__ import annotations

import functools
import json
import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from explorer.cache import BoundedCache
from explorer.settings import read_settings
from scoring import CANONICAL_POLICY, RunsValidationError, load_runs, score_runs
from scoring.contract.limits import DEFAULT_LIMITS, Limits, format_size, parse_size
from scoring.contract.policy import PolicyError, load_policy, policy_to_dict
from scoring.contract.safejson import JsonRefused, load_json
from scoring.load.database import ConnectionSpec, SourceRefused, operator_connection, parse_viewer_url
from scoring.load.runs import check_work
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at"


# Peak resident memory of the process itself: VmHWM starts afresh at exec (ru_maxrss would carry the
# peak of the pytest process that forked it).
PEAK = """
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""

def python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (so its peak memory is its own)."""
    return subprocess.run([sys.executable, "-c", PEAK + textwrap.dedent(code), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout)


# --------------------------------------------------------------------------- database URLs from viewers


@pytest.mark.parametrize("url, named", [
    ("postgresql://u:p@db.example.com/x?sslmode=require&sslnegotiation=direct&sslkeylogfile=/tmp/keys",
     "sslkeylogfile"),
    ("postgresql://u:p@db.example.com/x?sslrootcert=/etc/passwd", "sslrootcert"),
    ("postgresql://u:p@db.example.com/x?sslkey=/root/.ssh/id_rsa", "sslkey"),
    ("postgresql://u@db.example.com/x?passfile=/root/.pgpass", "passfile"),
    ("postgresql://u@db.example.com/x?service=prod", "service"),
    ("postgresql://u@db.example.com/x?host=/var/run/postgresql", "host"),
    ("postgresql://u@db.example.com/x?options=-c%20log_statement%3Dall", "options"),
])
def test_a_viewer_url_with_any_libpq_option_is_refused_naming_it(url, named):
    with pytest.raises(SourceRefused, match=named):
        parse_viewer_url(url)


@pytest.mark.parametrize("url", [
    "postgresql://u@%2Fvar%2Frun%2Fpostgresql/x",  # a unix socket directory, percent-encoded
    "postgresql://u@/x",  # no host: libpq's default unix socket
    "postgresql://u@host1,host2/x",  # several hosts
    "host=/var/run/postgresql dbname=x",  # a key=value connection string
    "postgresql://u@[::1]:99999/x",  # a port out of range
])
def test_a_viewer_url_must_name_one_network_host(url):
    with pytest.raises(SourceRefused):
        parse_viewer_url(url)


def test_a_plain_viewer_url_gives_only_the_five_fields_and_reads_no_server_file():
    spec = parse_viewer_url("postgresql://scorer:s%40cret@db.example.com:6543/platform")
    assert (spec.host, spec.port, spec.database, spec.user, spec.password) == (
        "db.example.com", 6543, "platform", "scorer", "s@cret")
    kwargs = spec.connect_kwargs()
    assert kwargs["passfile"].startswith("/nonexistent")  # the server's ~/.pgpass is never read for a viewer
    assert kwargs["connect_timeout"] == 10 and "statement_timeout" in kwargs["options"]
    assert "sslkeylogfile" not in kwargs and "sslrootcert" not in kwargs
    assert "s@cret" not in repr(spec)


def test_the_operator_can_limit_viewer_urls_to_some_hosts():
    parse_viewer_url("postgresql://u@db.example.com/x", ("db.example.com",))
    with pytest.raises(SourceRefused, match="not one this deployment allows"):
        parse_viewer_url("postgresql://u@127.0.0.1:22/x", ("db.example.com",))


def test_viewer_urls_are_off_unless_the_operator_turns_them_on():
    assert not read_settings({}, {}).allow_database_url
    assert not read_settings({}, {}).database_source
    on = read_settings({"EXPLORER_ALLOW_DATABASE_URL": "1", "EXPLORER_DATABASE_URL_HOSTS": "a.example, b.example"},
                       {})
    assert on.allow_database_url and on.database_url_hosts == ("a.example", "b.example")


def test_operator_connections_come_from_secrets_with_a_table_allow_list():
    secrets = {"connections": {"platform": {"host": "db", "port": 5432, "database": "p", "username": "u",
                                            "password": "pw", "tables": ["runs", "archive.runs"],
                                            "sslmode": "verify-full"},
                               "broken": {"host": "db"}}}
    s = read_settings({}, secrets)
    (platform,) = s.connections
    assert platform.tables == ("runs", "archive.runs") and platform.spec.trusted
    assert platform.spec.connect_kwargs()["sslmode"] == "verify-full"  # the operator's options are used
    assert any("broken" in p and "tables" in p for p in s.problems)
    with pytest.raises(SourceRefused, match="tables"):
        operator_connection("x", {"host": "db", "tables": ["runs; drop table runs"]})


def test_settings_from_the_environment_win_over_secrets():
    s = read_settings({"EXPLORER_MAX_MEMORY": "2GB", "EXPLORER_MAX_ROWS": "10"}, {"explorer": {"max_memory": "5GB"}})
    assert s.limits.max_memory == 2 * 10**9 and s.limits.max_rows == 10
    bad = read_settings({"EXPLORER_MAX_MEMORY": "lots"}, {})
    assert bad.limits.max_memory == Limits().max_memory and "EXPLORER_MAX_MEMORY" in bad.problems[0]


def test_the_upload_budget_is_the_operators():
    assert read_settings({}, {}).upload_memory == 2 * 10**9
    assert read_settings({}, {"explorer": {"upload_memory": "500MB"}}).upload_memory == 5 * 10**8
    both = read_settings({"EXPLORER_UPLOAD_MEMORY": "1GB"}, {"explorer": {"upload_memory": "5GB"}})
    assert both.upload_memory == 10**9  # the environment wins
    bad = read_settings({"EXPLORER_UPLOAD_MEMORY": "lots"}, {})
    assert bad.upload_memory == 2 * 10**9 and "EXPLORER_UPLOAD_MEMORY / upload_memory" in bad.problems[0]


def test_the_workers_at_once_are_the_cores_unless_the_operator_says_otherwise():
    import os

    from explorer.settings import usable_cores

    assert usable_cores() == len(os.sched_getaffinity(0)) >= 1  # the cores it may run on (a container's cpuset)
    assert read_settings({}, {}).max_workers == usable_cores()
    assert read_settings({"EXPLORER_MAX_WORKERS": "3"}, {"explorer": {"max_workers": 8}}).max_workers == 3
    assert read_settings({}, {"explorer": {"max_workers": 8}}).max_workers == 8
    for bad in ("0", "-1", "two", "1.5"):
        s = read_settings({"EXPLORER_MAX_WORKERS": bad}, {})
        assert s.max_workers == usable_cores() and "EXPLORER_MAX_WORKERS" in s.problems[0], bad


# --------------------------------------------------------------------------- decompression bombs and shapes

BOMB = """
import resource, sys, time
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
n, path = int(sys.argv[1]), sys.argv[2]
idx = pa.array(np.zeros(n, dtype=np.int32))
one = lambda v: pa.DictionaryArray.from_arrays(idx, pa.array([v]))
pq.write_table(pa.table({"run_id": one("x" * 2000), "agent_id": one("a"), "task_id": one("t"),
                         "status": one("completed"), "success": pa.array(np.ones(n, dtype=bool)),
                         "latency_ms": pa.array(np.ones(n)), "cost_usd": pa.array(np.ones(n))}),
               path, compression="zstd")
"""

LOAD = """
import sys
from scoring import RunsValidationError, load_runs
try:
    load_runs(sys.argv[1])
    print("LOADED")
except RunsValidationError as e:
    print(e.report())
print("PEAK_MB", peak_mb())
"""


def test_a_parquet_decompression_bomb_is_refused_with_little_memory(tmp_path):
    path = tmp_path / "bomb.parquet"
    python(BOMB, "4900000", str(path)).check_returncode()
    assert path.stat().st_size < 10 * 2**20  # a few MB on disk, about 9.8 GB once decoded
    out = python(LOAD, str(path))
    assert "memory budget" in out.stdout and "LOADED" not in out.stdout, out.stdout + out.stderr
    peak = float(out.stdout.split("PEAK_MB")[1])
    assert peak < 1024, f"peak resident memory {peak:.0f} MB while refusing a bomb (budget 1 GB)"


def test_a_parquet_bomb_in_an_ignored_column_is_never_decoded(tmp_path):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 2_000_000
    bomb = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array(["x" * 2000]))
    ids = pa.array([f"r{i}" for i in range(n)])
    pq.write_table(pa.table({"run_id": ids, "agent_id": pa.array(["a"] * n), "task_id": pa.array(["t"] * n),
                             "status": pa.array(["completed"] * n), "success": pa.array([True] * n),
                             "latency_ms": pa.array(np.ones(n)), "cost_usd": pa.array(np.ones(n)),
                             "notes": bomb}), tmp_path / "x.parquet")
    runs = load_runs(tmp_path / "x.parquet").runs
    assert len(runs) == n and "notes" not in runs.columns


def test_parquet_footer_limits_refuse_before_reading(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({f"c{i}": [1] for i in range(50)}), tmp_path / "wide.parquet")
    error = pytest.raises(RunsValidationError, load_runs, tmp_path / "wide.parquet",
                          limits=Limits(max_columns=20)).value
    assert "50 columns, more than the limit of 20" in error.problems[0].reason


def test_a_csv_with_two_million_columns_is_refused_before_parsing():
    out = python("""
        from scoring import RunsValidationError, load_runs
        data = ("," * 2_000_000 + "\\n" + "x\\n").encode()
        try:
            load_runs(data, name="wide.csv")
        except RunsValidationError as e:
            print(e.problems[0].reason)
        print("PEAK_MB", peak_mb())
    """)
    assert "the header has 2,000,001 columns, more than the limit of 1,000" in out.stdout, out.stderr
    assert float(out.stdout.split("PEAK_MB")[1]) < 600


def test_a_line_longer_than_the_limit_is_refused_before_parsing():
    data = f"{HEADER}\nr1,{'a' * 2000},t,completed,true,1,0.01,,\n".encode()
    error = pytest.raises(RunsValidationError, load_runs, data, name="x.csv",
                          limits=Limits(max_line_bytes=1000)).value
    assert "a line is 2.0 KB long, more than the limit of 1.0 KB" in error.problems[0].reason
    load_runs(data, name="x.csv")  # within the default limit it loads


def test_text_larger_than_the_memory_budget_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text(HEADER + "\n" + "r,a,t,completed,true,1,0.01,,\n" * 100)
    error = pytest.raises(RunsValidationError, load_runs, path, limits=Limits(max_memory=500)).value
    assert "more than the memory budget of 500 bytes" in error.problems[0].reason


@pytest.mark.parametrize("name, data", [
    ("deep.json", b"[" * 100_000 + b"]" * 100_000),
    ("deep.json", b'{"runs": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"),
    ("deep.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n"),
])
def test_deeply_nested_json_gets_a_refusal_not_an_error_screen(name, data):
    """Refused in the nesting limit's words with both numbers (a JSON file as a file, a JSON Lines line by its row;
    until 2026-12-06 a JSON file said "nested more than 64 levels deep" while 65-989 levels were read)."""
    error = pytest.raises(RunsValidationError, load_runs, data, name=name).value
    assert re.search(r"nests \d+ levels deep, more than the limit of 64 \(max_json_depth\)", error.report()), \
        error.report()


def test_json_with_more_keys_than_columns_allowed_is_refused():
    record = {f"k{i}": 1 for i in range(2_000)}
    error = pytest.raises(RunsValidationError, load_runs, json.dumps([record]).encode(), name="x.json").value
    assert "2,000 distinct keys, more than the limit of 1,000 columns" in error.problems[0].reason


def test_a_file_of_invalid_rows_keeps_a_bounded_report():
    rows = "\n".join(f"r{i},a,t,bogus,true,1,0.01,," for i in range(30_000))
    error = pytest.raises(RunsValidationError, load_runs, f"{HEADER}\n{rows}\n".encode(), name="x.csv").value
    assert error.total == 30_000 and error.invalid_rows == 30_000
    assert len(error.problems) == 10_000 and error.problems[-1].row == 10_000  # the first ones, in row order
    assert "30,000 problem(s) in 30,000 of 30,000 row(s)" in error.report()
    loaded = load_runs(f"{HEADER}\n{rows}\nok,a,t,completed,true,1,0.01,,\n".encode(), name="x.csv",
                       exclude_invalid=True)
    assert loaded.excluded_rows == 30_000 and list(loaded.runs["run_id"]) == ["ok"]


def test_a_line_of_only_commas_does_not_switch_off_the_short_line_check():
    data = f"{HEADER}\n,,,,,,,,\nr2,a,t,completed\nr3,a,t,completed,true,1,0.01,,\n".encode()
    error = pytest.raises(RunsValidationError, load_runs, data, name="x.csv").value
    reasons = {(p.row, p.reason) for p in error.problems}
    assert (2, "the line has 4 field(s); the header has 9") in reasons
    assert any(row == 1 and "missing value" in reason for row, reason in reasons)


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"])
def test_a_line_separator_inside_a_cell_neither_splits_a_row_nor_switches_off_the_short_line_check(separator):
    """str.splitlines breaks at these; the CSV reader and JSON Lines do not. A valid JSON Lines file with one raw
    in a string (json.dumps(ensure_ascii=False) writes U+2028 so) was refused with rows that do not exist, and a
    CSV cell holding one made the short-line check count other lines and skip itself."""
    record = {"run_id": "r1", "agent_id": "a", "task_id": f"t{separator}x", "status": "completed", "success": True,
              "latency_ms": 10, "cost_usd": 0.1}
    lines = [json.dumps(record, ensure_ascii=False), json.dumps({**record, "run_id": "r2", "task_id": "t"})]
    loaded = load_runs(("\r\n".join(lines) + "\n").encode(), name="r.jsonl")
    assert dict(zip(loaded.runs["run_id"], loaded.runs["task_id"])) == {"r1": f"t{separator}x", "r2": "t"}
    data = f"{HEADER}\nr1,a,t{separator}x,completed,true,1,0.01,,\nr2,a,t,completed\n".encode()
    error = pytest.raises(RunsValidationError, load_runs, data, name="x.csv").value
    assert {(p.row, p.reason) for p in error.problems} == {(2, "the line has 4 field(s); the header has 9")}


@pytest.mark.parametrize("name", ["r.jsonl", "r.json"])
def test_a_number_past_pythons_digit_limit_is_refused_at_its_row_and_column_as_not_finite(name):
    """Before, JSON Lines listed seven missing columns for a record that had every one, then Python's advice to
    raise sys.set_int_max_str_digits; a JSON array refused the whole file with that advice."""
    record = ('{"run_id":"r1","agent_id":"a","task_id":"t","status":"completed","success":true,'
              '"latency_ms":1' + "0" * 5000 + ',"cost_usd":0.1}')
    error = pytest.raises(RunsValidationError, load_runs, (record if name.endswith("l") else f"[{record}]").encode(),
                          name=name).value
    [problem] = error.problems
    assert (problem.row, problem.column, problem.reason) == (1, "latency_ms", "not a finite number")
    assert problem.value == "1" + "0" * 5000  # quoted as written, as a CSV's cell is (it read 'inf')
    assert "set_int_max_str_digits" not in error.report()


def test_json_lines_of_which_none_is_json_are_refused_by_their_lines_alone():
    """No record read: the columns cannot be judged (before, every required column was also said missing) and no
    row can be excluded to rescue the file (before, the report offered it)."""
    error = pytest.raises(RunsValidationError, load_runs, b"{not json\n[1,\n", name="r.jsonl").value
    assert [(p.row, p.code) for p in error.problems] == [(1, "not_json"), (2, "not_json")]
    assert not error.excludable and "can be excluded" not in error.report()


def test_an_id_longer_than_max_id_chars_is_refused_naming_its_column_length_and_start():
    """A 10 MB agent id in a 60 MB file took the app's server past 1 GB (every page, chart and widget repeats an
    id); each id column is bounded (explorer-defined, max_id_chars, 1,000 characters by default)."""
    data = (f"{HEADER}\nr1,{'x' * 2_000},t,completed,true,1,0.01,,\n"
            f"{'r' * 1_000},a,{'y' * 1_001},completed,true,1,0.01,,\n").encode()
    error = pytest.raises(RunsValidationError, check_work, load_runs(data, name="x.csv"), DEFAULT_LIMITS).value
    assert [(p.column, p.reason) for p in error.problems] == [
        ("agent_id", "an id of 2,000 characters, more than the limit of 1,000 (max_id_chars)"),
        ("task_id", "an id of 1,001 characters, more than the limit of 1,000 (max_id_chars)")]  # run_id: 1,000
    assert error.problems[0].value == "x" * 61 and not error.excludable
    assert [p.row for p in error.problems] == [1, 2]  # each longest id's first row, as SPEC 1 names a value's row
    assert check_work(load_runs(data, name="x.csv"), Limits(max_id_chars=2_000)).runs["agent_id"].str.len().max() \
        == 2_000  # the operator's setting


# --------------------------------------------------------------------------- bounded policies


def _policy_json(**changes) -> str:
    return json.dumps({**policy_to_dict(CANONICAL_POLICY), **changes})


@pytest.mark.parametrize("changes, field, words", [
    ({"pass_k_levels": list(range(1, 10_001))}, "pass_k_levels", "at most 10 levels"),
    ({"pass_k_levels": [1, 3, 1000]}, "pass_k_levels[2]", "at most 100"),
    ({"pass_k_levels": [1, 3, 3]}, "pass_k_levels", "each level once"),
    ({"score_decimals": 10**6}, "score_decimals", "at most 6"),
    ({"radar_window": 10**9}, "radar_window", "at most 100,000"),
    ({"latency_anchors": {"xs": list(range(30)), "scores": [0.5] * 30}}, "latency_anchors", "at most 20 anchors"),
    ({"version": ["x"]}, "version", "text"),
    ({"radar_windw": 50}, "radar_windw", "not a policy constant"),
])
def test_policy_constants_have_bounds(changes, field, words):
    error = pytest.raises(PolicyError, load_policy, _policy_json(**changes)).value
    found = {e.field: e.message for e in error.errors}
    assert field in found and words in found[field], found


@pytest.mark.parametrize("text, field", [
    ('{"radar_window": 1' + "0" * 400 + "}", "radar_window"),
    ('{"radar_window": 1e400}', "radar_window"),
    ('{"radar_window": NaN}', "policy"),
    ("[" * 10_000 + "]" * 10_000, "policy"),
    ('"just text"', "policy"),
])
def test_a_crafted_policy_file_is_refused_naming_the_place(text, field):
    error = pytest.raises(PolicyError, load_policy, text, what="policy").value
    assert error.errors[0].field == field, error.errors


def test_cli_report_scores_under_a_policy_file_and_labels_it(tmp_path):
    path = tmp_path / "sandbox.json"
    path.write_text(_policy_json(radar_window=50))
    out = scoring_cli("report", SAMPLE, "--policy", path, cwd=ROOT)
    out.check_returncode()
    doc = json.loads(out.stdout)
    assert doc["policy_version"].startswith("2026-07-zero-success-v1+sandbox-")
    assert max(a["radar"]["window_runs"] for a in doc["agents"]) == 50
    path.write_text(_policy_json(pass_k_levels=list(range(1, 10_001))))
    bad = scoring_cli("report", SAMPLE, "--policy", path, cwd=ROOT)
    assert bad.returncode == 2 and "pass_k_levels: at most 10 levels" in bad.stderr and "Traceback" not in bad.stderr


def test_cli_limits_are_options(tmp_path):
    out = subprocess.run([sys.executable, "-m", "scoring", "report", str(SAMPLE), "--max-rows", "100"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "is more than the limit of 100 (max_rows)" in out.stderr
    out = subprocess.run([sys.executable, "-m", "scoring", "report", str(SAMPLE), "--max-memory", "1KB"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "memory budget of 1.0 KB" in out.stderr


# --------------------------------------------------------------------------- verify never crashes or hangs


@functools.cache
def _receipt_text() -> str:
    out = scoring_cli("receipt", SAMPLE, "swift-lite", cwd=ROOT)
    out.check_returncode()
    return out.stdout


def _receipt() -> dict:
    return json.loads(_receipt_text())  # a fresh copy for each crafted change


def _without(d: dict, key: str) -> dict:
    return {k: v for k, v in d.items() if k != key}


CRAFTED = {
    "missing policy": (lambda r: _without(r, "policy"), "policy: must be an object, got nothing"),
    "policy as a list": (lambda r: {**r, "policy": [1, 2]}, "policy: must be an object, got a list"),
    "agent_id as a list": (lambda r: {**r, "agent_id": ["a"]}, "agent_id: must be text, got a list"),
    "agent_id as an object": (lambda r: {**r, "agent_id": {"a": 1}}, "agent_id: must be text, got an object"),
    "a 10^400 number": (lambda r: {**r, "headline": {**r["headline"], "score": 10**400}},
                        "headline.score: the whole number is too large"),
    "20,000 pass^k levels": (lambda r: {**r, "policy_version": "x+sandbox-0",
                                        "policy": {**r["policy"], "pass_k_levels": list(range(1, 20_001))}},
                             "policy.pass_k_levels: at most 10 levels"),
    "not an object": (lambda r: [r], "receipt: must be a JSON object, got a list"),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_a_crafted_receipt_exits_2_naming_the_field(tmp_path, case):
    change, words = CRAFTED[case]
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(change(_receipt())))
    out = scoring_cli("verify", path, SAMPLE, cwd=ROOT)
    assert out.returncode == 2, out.stderr
    assert words in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_a_deeply_nested_receipt_exits_2(tmp_path):
    path = tmp_path / "receipt.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    out = subprocess.run([sys.executable, "-m", "scoring", "verify", str(path), str(SAMPLE)],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 2 and "nested more than 16 levels" in out.stderr, out.stderr


# --------------------------------------------------------------------------- memory held by the server


def test_the_dataset_cache_is_bounded_by_size():
    cache: BoundedCache = BoundedCache(max_bytes=100, idle_seconds=60)
    for key in "abcd":
        cache.get_or_compute(key, key.upper, lambda v: 40)
    assert len(cache) == 2 and cache.total_bytes == 80  # the two least recently used were dropped
    calls = []
    assert cache.get_or_compute("d", lambda: calls.append(1) or "again", lambda v: 40) == "D" and not calls
    assert cache.get_or_compute("huge", lambda: "H", lambda v: 1_000) == "H"
    assert "huge" not in cache._entries  # larger than the whole budget: never held


def test_the_dataset_cache_drops_idle_entries():
    now = [0.0]
    cache: BoundedCache = BoundedCache(max_bytes=1_000, idle_seconds=10, clock=lambda: now[0])
    cache.get_or_compute("a", lambda: 1, lambda v: 1)
    now[0] = 5.0
    cache.get_or_compute("b", lambda: 2, lambda v: 1)
    now[0] = 12.0
    cache.trim()
    assert list(cache._entries) == ["b"]


def test_a_value_given_a_life_is_computed_again_once_it_has_passed():
    now = [0.0]
    cache: BoundedCache = BoundedCache(max_bytes=1_000, idle_seconds=600, clock=lambda: now[0])
    calls = []

    def compute():
        calls.append(1)
        return f"attempt {len(calls)}"

    def life(value):
        return 30.0 if value == "attempt 1" else None

    assert cache.get_or_compute("db", compute, lambda v: 1, life) == "attempt 1"
    now[0] = 29.0
    assert cache.get_or_compute("db", compute, lambda v: 1, life) == "attempt 1"  # still within its life
    now[0] = 30.0
    assert cache.get_or_compute("db", compute, lambda v: 1, life) == "attempt 2"  # asked again
    now[0] = 500.0
    assert cache.get_or_compute("db", compute, lambda v: 1, life) == "attempt 2" and len(calls) == 2  # no life


def test_the_dataset_cache_computes_a_key_once_for_concurrent_sessions():
    import threading
    import time

    cache: BoundedCache = BoundedCache(max_bytes=1_000, idle_seconds=60)
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return "v"

    threads = [threading.Thread(target=cache.get_or_compute, args=("k", slow, lambda v: 1)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1


def test_a_client_clear_cache_message_does_not_drop_the_datasets():
    from streamlit.testing.v1 import AppTest

    import explorer.data
    import explorer.pages

    at = AppTest.from_file(str(explorer.pages.PAGE_BY_NAME["leaderboard"].path), default_timeout=60).run()
    assert not at.exception and explorer.data._DATASETS is not None
    held = len(explorer.data._DATASETS)
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()  # what AppSession does for a client's clear_cache message
    assert len(explorer.data._DATASETS) == held >= 1


# --------------------------------------------------------------------------- small helpers


def test_sizes_parse_and_print():
    assert parse_size("1GB") == 10**9 and parse_size("2GiB") == 2 * 2**30 and parse_size(5) == 5
    for bad in ("", "lots", "-1GB", "1XB", 0):
        with pytest.raises(ValueError):
            parse_size(bad)
    assert format_size(1_500_000) == "1.5 MB" and format_size(12) == "12 bytes"


def test_the_bounded_json_reader_names_the_place():
    with pytest.raises(JsonRefused, match=r"at a\[1\]\.b: not a finite number"):
        load_json('{"a": [0, {"b": 1e999}]}')
    with pytest.raises(JsonRefused, match="more than the 10 bytes allowed"):
        load_json('{"a": 12345678}', max_bytes=10)
    with pytest.raises(JsonRefused, match="nested more than 3 levels"):
        load_json("[[[[1]]]]", max_depth=3)
    with pytest.raises(JsonRefused, match="not allowed"):
        load_json("[NaN]")
    assert load_json(b"\xef\xbb\xbf[1]") == [1]


def test_connection_spec_never_shows_its_password():
    spec = ConnectionSpec("db", password="hunter2")
    assert "hunter2" not in repr(spec) and spec.location() == "db:5432/postgres"


@pytest.mark.parametrize("weights", ["correctness=1e308,cost=1e308", "correctness=5e-324", "latency=1e7"])
def test_weights_that_would_overflow_or_vanish_are_refused(weights):
    out = scoring_cli("report", SAMPLE, "--weights", weights, cwd=ROOT)
    assert out.returncode == 2 and "must be 0 or a number from 1e-06 to 1e+06" in out.stderr, out.stderr


# --------------------------------------------------------------------------- huge values that are still valid


def test_values_near_the_largest_double_give_finite_reports_in_every_engine(tmp_path):
    """SPEC 1 accepts any finite number >= 0: a sum of such values must not overflow into inf or NaN
    (a NaN score broke the JSON). Scaled sums keep every number finite and the engines equal."""
    from scoring.engines.sql_engine import score_file_sql

    path = tmp_path / "huge.csv"
    rows = [f"r{i},a,t{i % 2},completed,{'true' if i % 3 else 'false'},{v},{c},,2026-07-01T00:00:0{i}Z"
            for i, (v, c) in enumerate([("1.7976931348623157e308", "1e308"), ("1.5e308", "1.2e308"),
                                        ("1e308", "5e307"), ("1", "0.01"), ("8e307", "1.7e308"),
                                        ("1.7e308", "1e-320")])]
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    report = score_runs(load_runs(path).runs)
    h = report.agent("a").headline
    assert h.score is not None and math.isfinite(h.score) and math.isfinite(h.avg_latency_ms)
    assert h.avg_latency_ms == pytest.approx(math.fsum(x / 6 for x in (1.7976931348623157e308, 1.5e308, 1e308, 1,
                                                                         8e307, 1.7e308)), rel=1e-15)
    assert math.isfinite(h.latency_pstdev_ms) and 0 < h.latency_pstdev_ms < 1e308
    assert report.agent("a").radar.p50_latency_ms == 1e308 / 2 + 1.5e308 / 2  # a / 2 + b / 2: no overflow
    text = report.to_json_text()  # no NaN, no Infinity
    assert score_file_sql(path).to_json_text() == text
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-m", "scoring", "report", str(path),
                          "--intervals"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr  # the bootstrap sums do not overflow either


def test_a_connection_fingerprint_cannot_be_tested_against_password_guesses():
    """Digests derived from a connection's fingerprint reach the screen (a dataset's digest): it is keyed by a
    secret of the server process, so a guessed password cannot be checked against it offline."""
    import hashlib
    import json
    import subprocess
    import sys

    from scoring.load.database import ConnectionSpec

    spec = ConnectionSpec("db", 5432, "platform", "scorer", "winter2026", trusted=True)
    fields = [spec.host, spec.port, spec.database, spec.user, spec.password, [], True, False]
    assert spec.fingerprint() != hashlib.sha256(json.dumps(fields).encode()).hexdigest()
    elsewhere = subprocess.run([sys.executable, "-c", "from scoring.load.database import ConnectionSpec; print("
                                "ConnectionSpec('db', 5432, 'platform', 'scorer', 'winter2026', trusted=True)"
                                ".fingerprint())"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert elsewhere.returncode == 0 and elsewhere.stdout.strip() != spec.fingerprint()  # another process's key


def test_reading_a_table_stops_at_a_wall_clock_limit_as_well():
    # Each batch is within the statement timeout, and the worker counts CPU time only: a view that sleeps a little
    # on every row held a worker for 130 s over 30,000 rows (PostgreSQL audit), hours at the row limit.
    from scoring.load.database import SourceTooLarge, fetch_rows

    now = [0.0]

    class SlowCursor:
        def fetchmany(self, n: int) -> list[tuple]:
            now[0] += 40.0  # every batch comes back 40 s later
            return [("r", 1)] * n

    rows = fetch_rows(SlowCursor(), max_rows=10**9, max_bytes=10**12, batch=10, max_seconds=100.0,
                      clock=lambda: now[0])
    assert len(next(rows)) == 10 and len(next(rows)) == 10  # 40 and 80 s in
    with pytest.raises(SourceTooLarge, match="reading the table took more than 100 s"):
        next(rows)


def test_left_out_costs_past_the_largest_double_are_said_so_not_called_unrecorded(tmp_path):
    """Left-out runs whose recorded costs sum past the largest double (each cost valid on its own): the total is
    null in the JSON of every engine (no double holds it, as SPEC 6 has undefined fields), and the words say why,
    never that they recorded no cost; nothing warns on the way."""
    from scoring.engines.sql_engine import score_file_sql

    path = tmp_path / "left_out.csv"
    rows = [f"r{i},a,t,completed,true,1000,0.5,,2026-07-01T00:00:0{i}Z" for i in range(2)]
    rows += [f"r{i},a,t,timeout,false,1000,1.5e308,,2026-07-01T00:00:0{i}Z" for i in range(2, 4)]
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    h = score_runs(load_runs(path).runs).agent("a").headline
    assert h.left_out.to_json() == {"runs": 2, "by_status": {"failed": 0, "timeout": 2}, "cost_usd": None}
    words = h.left_out_words()
    assert "recorded no cost" not in words and "the 2 costs they recorded add up to more than the largest" in words
    assert h.left_out_spend_share is None  # never 0% of a spend no double holds
    from scoring.measures.report import unseen_reading

    loaded = load_runs(path).runs
    assert unseen_reading(loaded, score_runs(loaded))["left_out_spend_share"].isna().all()
    assert json.loads(score_file_sql(path).to_json_text()) == json.loads(score_runs(load_runs(path).runs)
                                                                         .to_json_text())
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-m", "scoring", "report", str(path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and "RuntimeWarning" not in out.stderr, out.stderr
    assert json.loads(out.stdout)["agents"][0]["headline"]["left_out"]["cost_usd"] is None
    # One left-out cost near the largest double with an ordinary completed spend: a share, never "0.0%" of an
    # infinite spend.
    one = tmp_path / "one.csv"
    one.write_text(HEADER + "\n" + "\n".join(rows[:3]) + "\n")
    assert "(100.0% of the recorded spend)" in score_runs(load_runs(one).runs).agent("a").headline.left_out_words()


def test_a_huge_left_out_cost_reads_in_powers_of_ten_in_the_headlines_words():
    """The left-out runs' cost is money like any other: fmt.usd spells it (1e300 in powers of ten, not 301 digits)."""
    from scoring import runs_from_records

    rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": status, "success": True,
             "latency_ms": 1.0, "cost_usd": cost, "finished_at": f"2026-07-01T00:00:0{i}Z"}
            for i, (status, cost) in enumerate([("completed", 0.5), ("timeout", 1e300), ("failed", 0.25)])]
    words = score_runs(runs_from_records(rows)).agent("a").headline.left_out_words()
    assert words.endswith("; they cost $1.0000e+300 (100.0% of the recorded spend)"), words


SURROGATE_RECORD = ('{"run_id":"r1","agent_id":"a","task_id":"t","status":"completed","success":true,'
                    '"latency_ms":1,"cost_usd":0.5}')


@pytest.mark.parametrize("name", ["r.json", "r.jsonl"])
@pytest.mark.parametrize("edit, refused", [
    (('"agent_id":"a"', '"agent_id":"a\\ud800"'), ("agent_id", "a\\xed\\xa0\\x80")),
    (('"status":"completed"', '"status":"completed\\udfff"'), ("status", "completed\\xed\\xbf\\xbf")),
    (('"latency_ms":1', '"latency_ms":"1\\ud800"'), ("latency_ms", "1\\xed\\xa0\\x80")),
    (('"cost_usd":0.5', '"cost_usd":0.5,"note":"\\udc00"'), None),  # a column no score reads: scored
    (('"cost_usd":0.5', '"cost_usd":0.5,"\\ud800x":1'), None),
    (('"agent_id":"a"', '"agent_id":"\\ud83d\\ude00"'), None),  # a pair of escapes is one character: 😀
])
def test_a_lone_surrogate_escape_in_json_is_refused_at_its_row_and_column(name, edit, refused):
    """A reviewer's 116-byte file: "a\\ud800" (JSON's escape of half a UTF-16 pair, no character) stopped the command
    line with a bare UnicodeEncodeError (exit 1) and replaced the app's page with Streamlit's error."""
    record = SURROGATE_RECORD.replace(*edit)
    second = SURROGATE_RECORD.replace('"r1"', '"r2"')
    data = ("\n".join([record, second]) if name.endswith("l") else f"[{record},{second}]").encode()
    if refused is None:
        loaded = load_runs(data, name=name)
        assert len(loaded.runs) == 2
        return
    error = pytest.raises(RunsValidationError, load_runs, data, name=name).value
    assert [(p.row, p.column, p.value, p.code) for p in error.problems] == [(1, *refused, "nested")]
    assert error.excludable
    assert len(load_runs(data, name=name, exclude_invalid=True).runs) == 1


def test_the_command_line_refuses_a_lone_surrogate_with_exit_2_and_words(tmp_path):
    path = tmp_path / "surrogate.json"
    path.write_text("[" + SURROGATE_RECORD.replace('"agent_id":"a"', '"agent_id":"a\\ud800"') + "]")
    out = scoring_cli("report", path, cwd=ROOT)
    assert out.returncode == 2, out.stderr
    assert "row 1, column 'agent_id'" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("text, where", [('{"a": ["ok", "x\\ud800"]}', "a[1]"), ('{"a": {"\\udc00b": 1}}', "a"),
                                         ('"\\ud800"', "")])
def test_small_documents_refuse_a_lone_surrogate_naming_its_place(text, where):
    """A mapping's separator of "\\udc00" was accepted and stopped the read later with a bare UnicodeEncodeError."""
    with pytest.raises(JsonRefused) as info:
        load_json(text, what="mapping")
    assert info.value.where == where and "lone UTF-16 surrogate" in info.value.reason
    assert load_json('{"a": "\\ud83d\\ude00"}') == {"a": "😀"}  # a pair is one character


def test_a_key_given_twice_is_refused_in_a_policy_a_mapping_and_prices(tmp_path):
    """A reviewer's policy added "success_weight": 0.1 at its end: read silently as the last value, it put
    swift-lite (92.10) above steady-pro; a mapping naming run_id twice and prices naming a model twice did the same."""
    from scoring.cli.shared import Refused, read_prices
    from scoring.load.importers.mapping import MappingError, mapping_from_json

    text = json.dumps(policy_to_dict(CANONICAL_POLICY))
    doubled = text[:-1] + ', "success_weight": 0.1}'
    with pytest.raises(PolicyError, match="the key 'success_weight' is given more than once"):
        load_policy(doubled)
    with pytest.raises(MappingError, match="the key 'run_id' is given more than once"):
        mapping_from_json('{"mapping_version": 1, "columns": {"run_id": "id", "run_id": "task"}}')
    prices = tmp_path / "prices.json"
    prices.write_text('{"m": {"input": 3, "output": 15}, "m": {"input": 0, "output": 0}}')
    with pytest.raises(Refused, match="the key 'm' is given more than once"):
        read_prices(str(prices))
    prices.write_text('{"m": {"input": 3, "output": 15, "extra": 1}}')
    with pytest.raises(Refused, match="unknown field 'extra'"):
        read_prices(str(prices))
    prices.write_text('{"m": {"input": 3, "output": 15}}')
    assert read_prices(str(prices)) == {"m": (3.0, 15.0)}
