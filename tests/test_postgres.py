"""The SQL engine on a real PostgreSQL server (Debian's postgresql, started on loopback for the session).

Under CI=true a missing server fails the suite; elsewhere it skips with the command to install it.
"""

import glob
import io
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from scoring import load_runs, score_runs
from scoring.sql_engine import score_postgres
from tests.test_sql_engine import EDGE_CSV, assert_same_report

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"


def _bindir() -> str | None:
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    return dirs[-1] if dirs and os.path.exists(os.path.join(dirs[-1], "initdb")) else None


def _as_postgres(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    if os.geteuid() == 0:  # initdb refuses to run as root
        cmd = ["runuser", "-u", "postgres", "--"] + cmd
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="session")
def postgres():
    bindir = _bindir()
    if bindir is None:
        message = "PostgreSQL server binaries not found: run `bash scripts/ensure-test-deps`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    base = tempfile.mkdtemp(prefix="scoring-pg-", dir="/tmp")
    os.chmod(base, 0o777)
    data, sockets = os.path.join(base, "data"), os.path.join(base, "sock")
    os.makedirs(sockets)
    os.chmod(sockets, 0o777)
    password = secrets.token_hex(12)
    pwfile = os.path.join(base, "pw")
    Path(pwfile).write_text(password + "\n")
    os.chmod(pwfile, 0o644)
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _as_postgres([f"{bindir}/initdb", "-D", data, "-U", "scorer", "--auth=scram-sha-256", f"--pwfile={pwfile}",
                  "-E", "UTF8", "--locale=C.UTF-8"])
    _as_postgres([f"{bindir}/pg_ctl", "-D", data, "-w", "-l", os.path.join(base, "log"), "-o",
                  f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1", "start"])
    try:
        yield {"url": f"postgresql://scorer:{password}@127.0.0.1:{port}/postgres", "password": password}
    finally:
        _as_postgres([f"{bindir}/pg_ctl", "-D", data, "-m", "fast", "stop"])
        shutil.rmtree(base, ignore_errors=True)


def _load(url: str, table: str, csv_text: str) -> None:
    import psycopg

    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute(f"""CREATE TABLE {table} (run_id text, agent_id text, task_id text, status text,
                        success boolean, latency_ms double precision, cost_usd double precision,
                        steps integer, finished_at timestamptz)""")
        with cur.copy(f"COPY {table} FROM STDIN WITH (FORMAT csv, HEADER true)") as copy:
            copy.write(csv_text)


def test_postgres_table_gives_the_same_report_as_pandas(postgres):
    _load(postgres["url"], "runs", SAMPLE.read_text())
    sql_doc = json.loads(score_postgres(postgres["url"], "runs").to_json_text())
    pandas_doc = json.loads(score_runs(load_runs(SAMPLE).runs).to_json_text())
    assert_same_report(sql_doc, pandas_doc)


def test_postgres_edge_cases_give_the_same_report(postgres, tmp_path):
    _load(postgres["url"], "edge_runs", EDGE_CSV)
    path = tmp_path / "edge.csv"
    path.write_text(EDGE_CSV)
    assert_same_report(json.loads(score_postgres(postgres["url"], "edge_runs").to_json_text()),
                       json.loads(score_runs(load_runs(path).runs).to_json_text()))


def test_postgres_session_is_read_only(postgres):
    import psycopg

    _load(postgres["url"], "runs", SAMPLE.read_text())
    score_postgres(postgres["url"], "runs")
    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM runs")
        assert cur.fetchone()[0] == 2796


def test_credentials_never_appear_in_errors_or_output(postgres):
    wrong = postgres["url"].replace(postgres["password"], "not-the-password-" + postgres["password"][:4])
    out = subprocess.run([sys.executable, "-m", "scoring", "report", "--db", wrong, "--table", "runs"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    assert "not-the-password" not in out.stderr + out.stdout and postgres["password"] not in out.stderr
    assert "Traceback" not in out.stderr
    missing = subprocess.run([sys.executable, "-m", "scoring", "report", "--db", postgres["url"], "--table",
                              "no_such_table"], capture_output=True, text=True, cwd=ROOT)
    assert missing.returncode == 2 and "no_such_table" in missing.stderr
    assert postgres["password"] not in missing.stderr + missing.stdout


def test_cli_scores_a_postgres_table(postgres):
    _load(postgres["url"], "runs", SAMPLE.read_text())
    out = subprocess.run([sys.executable, "-m", "scoring", "report", "--db", postgres["url"], "--table", "runs"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    assert json.loads(out.stdout)["agents"][0]["agent_id"] == "steady-pro"


def _all_text(at) -> str:
    parts = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader", "metric",
                 "code", "exception"):
        for element in getattr(at, kind):
            parts.append(str(getattr(element, "value", "")) + str(getattr(element, "label", "")))
    for frame in at.dataframe:
        parts.append(frame.value.to_string() if hasattr(frame.value, "to_string") else str(frame.value))
    return "\n".join(parts).replace("\\", "")  # markdown escapes removed: the text a person reads


def _read_table_in_the_app(url: str, table: str):
    """The app's entry with the sidebar's PostgreSQL source filled in and submitted."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.radio(key="source_kind").set_value("PostgreSQL table").run()
    at.text_input[0].input(url)
    at.text_input[1].input(table)
    return at.button[0].click().run()


def test_the_app_reads_a_postgres_table_without_showing_credentials(postgres):
    _load(postgres["url"], "runs", SAMPLE.read_text())
    at = _read_table_in_the_app(postgres["url"], "runs")
    assert not at.exception
    text = _all_text(at)
    assert "PostgreSQL: runs @ 127.0.0.1" in text and "2,796 runs" in text
    assert postgres["password"] not in text and "scorer:" not in text
    leaderboard = next(d.value for d in at.dataframe if "Flags" in getattr(d.value, "columns", []))
    assert list(leaderboard["Agent"][:2]) == ["steady-pro", "swift-lite"]


def test_the_app_shows_a_refusal_for_a_missing_table(postgres):
    at = _read_table_in_the_app(postgres["url"], "missing_table")
    assert not at.exception
    assert any("was refused" in e.value for e in at.error)
    assert postgres["password"] not in _all_text(at)
