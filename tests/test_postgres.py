"""The SQL engine on a real PostgreSQL server (Debian's postgresql, started on loopback for the session).

Under CI=true a missing server fails the suite; elsewhere it skips with the command to install it.
"""

import dataclasses
import glob
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

from scoring import RunsValidationError, load_runs, score_runs
from scoring.contract.limits import DEFAULT_LIMITS
from scoring.engines.sql_engine import load_postgres_runs, score_postgres
from scoring.load import database
from scoring.load.database import ConnectFailed, ConnectionSpec, SourceRefused, operator_connection, parse_viewer_url
from tests.helpers import (
    EDGE_CSV,
    ROOT,
    SAMPLE,
    TINY_LATENCY_CSV,
    assert_same_report,
    free_port,
    many_problems_csv,
)

# One server per test process: under xdist every postgres test runs on one worker (one group).
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]


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
    port = free_port()
    _as_postgres([f"{bindir}/initdb", "-D", data, "-U", "scorer", "--auth=scram-sha-256", f"--pwfile={pwfile}",
                  "-E", "UTF8", "--locale=C.UTF-8"])
    # The postmaster runs in the foreground as our child and is told to die with us (PR_SET_PDEATHSIG
    # through setpriv), so a killed or crashed test run never leaves a server behind.
    with open(os.path.join(base, "log"), "wb") as log:
        server = subprocess.Popen(
            _as_postgres_command([f"{bindir}/postgres", "-D", data, "-p", str(port), "-k", sockets,
                                  "-c", "listen_addresses=127.0.0.1"]),
            stdout=subprocess.DEVNULL, stderr=log)
    url = f"postgresql://scorer:{password}@127.0.0.1:{port}/postgres"
    try:
        _wait_for(url, server)
        yield {"url": url, "password": password, "port": port, "sockets": sockets, "pid": server.pid}
    finally:
        server.terminate()  # SIGTERM: PostgreSQL's "smart" shutdown; the sessions are closed by now
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(base, ignore_errors=True)


def _as_postgres_command(cmd: list[str]) -> list[str]:
    """``cmd`` run as the postgres user (initdb and postgres refuse root), dying with this process."""
    if os.geteuid() != 0:
        return ["setpriv", "--pdeathsig", "KILL", "--"] + cmd
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--pdeathsig", "KILL", "--"] + cmd


def _wait_for(url: str, server: subprocess.Popen, seconds: float = 60) -> None:
    import time

    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the test PostgreSQL server did not start") from None
            time.sleep(0.2)


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


def test_postgres_tiny_and_huge_latencies_give_the_same_report(postgres, tmp_path):
    _load(postgres["url"], "tiny_runs", TINY_LATENCY_CSV)
    path = tmp_path / "tiny.csv"
    path.write_text(TINY_LATENCY_CSV)
    doc = json.loads(score_postgres(postgres["url"], "tiny_runs").to_json_text())
    assert_same_report(doc, json.loads(score_runs(load_runs(path).runs).to_json_text()))
    assert {a["agent_id"]: a["headline"]["score"] for a in doc["agents"]}["tiny"] == 80.67


def test_ids_written_several_ways_get_the_pandas_engines_warning(postgres):
    from tests.spellings import SPELT_APART_CSV, SPELT_APART_WARNINGS

    _load(postgres["url"], "spelt_runs", SPELT_APART_CSV)
    assert list(score_postgres(postgres["url"], "spelt_runs").warnings) == SPELT_APART_WARNINGS


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


def test_the_app_reads_a_postgres_table_without_showing_credentials(postgres, monkeypatch):
    _load(postgres["url"], "runs", SAMPLE.read_text())
    at = _read_url_in_the_app(postgres["url"], "runs", monkeypatch)
    assert not at.exception
    text = _all_text(at)
    assert "PostgreSQL: runs @ 127.0.0.1" in text and "2,796 runs" in text
    assert postgres["password"] not in text and "scorer:" not in text
    leaderboard = next(d.value for d in at.dataframe if "Flags" in getattr(d.value, "columns", []))
    assert list(leaderboard["Agent"][:2]) == ["steady-pro", "swift-lite"]


def test_the_app_shows_a_refusal_for_a_missing_table(postgres, monkeypatch):
    at = _read_url_in_the_app(postgres["url"], "missing_table", monkeypatch)
    assert not at.exception
    assert any("was refused" in e.value for e in at.error)
    assert postgres["password"] not in _all_text(at)


# --------------------------------------------------------------------------- issue 11: database sources


def test_the_test_server_dies_with_the_process_that_started_it(postgres):
    """The fixture's guarantee, checked on a throwaway server started and orphaned by a child process."""
    bindir = _bindir()
    tmp_path = Path(tempfile.mkdtemp(prefix="scoring-pg-orphan-", dir="/tmp"))  # reachable by the postgres user
    os.chmod(tmp_path, 0o777)
    if os.geteuid() == 0:
        shutil.chown(tmp_path, "postgres")
    data = tmp_path / "data"
    _as_postgres([f"{bindir}/initdb", "-D", str(data), "-U", "scorer", "--auth=trust"])
    port = free_port()
    command = _as_postgres_command([f"{bindir}/postgres", "-D", str(data), "-p", str(port), "-k", str(tmp_path),
                                    "-c", "listen_addresses=127.0.0.1"])
    starter = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen({command!r})\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(600)\n")], stdout=subprocess.PIPE, text=True)
    pid = int(starter.stdout.readline())
    _wait_for(f"postgresql://scorer@127.0.0.1:{port}/postgres", starter)
    starter.kill()  # SIGKILL: no cleanup code of the starter runs
    starter.wait()
    for _ in range(100):
        if not os.path.exists(f"/proc/{pid}") or "zombie" in Path(f"/proc/{pid}/status").read_text().lower():
            break
        import time

        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{pid}") or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    shutil.rmtree(tmp_path, ignore_errors=True)


def _app_with(env: dict, secrets: dict | None = None, monkeypatch=None):
    from streamlit.testing.v1 import AppTest

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if secrets:
        at.secrets.update(secrets)
    return at.run()


def _operator_secrets(postgres, tables=("runs",)) -> dict:
    return {"connections": {"platform": {"host": "127.0.0.1", "port": postgres["port"], "database": "postgres",
                                         "username": "scorer", "password": postgres["password"],
                                         "tables": list(tables)}}}


def test_a_viewer_picks_an_operator_connection_and_an_allowed_table(postgres, monkeypatch):
    _load(postgres["url"], "runs", SAMPLE.read_text())
    _load(postgres["url"], "secret_runs", SAMPLE.read_text())
    at = _app_with({}, _operator_secrets(postgres), monkeypatch)
    at.radio(key="source_kind").set_value("PostgreSQL table").run()
    assert at.selectbox(key="db_connection").options == ["platform"]  # no URL field: the operator did not allow it
    assert at.selectbox(key="db_table").options == ["runs"]  # secret_runs is not on the allow-list
    assert not at.text_input
    at.button(key="db_read").click().run()
    text = _all_text(at)
    assert not at.exception and "PostgreSQL: runs @ platform" in text and "2,796 runs" in text
    assert postgres["password"] not in text


def test_a_connection_the_operator_points_elsewhere_is_read_again_not_served_from_the_cache(postgres, monkeypatch):
    """The dataset cache is shared by every session of the server process: a read of connection "platform" while
    it pointed at a closed port (a refusal) must not answer for "platform" once it points at a live server. (In
    one CI run another test's refused "platform" was served to this suite's read.)"""
    _load(postgres["url"], "runs", SAMPLE.read_text())
    closed = _operator_secrets(postgres)
    closed["connections"]["platform"]["port"] = free_port()
    at = _app_with({}, closed, monkeypatch)
    at.radio(key="source_kind").set_value("PostgreSQL table").run()
    at.button(key="db_read").click().run()
    assert "could not connect to the database" in _all_text(at)
    at = _app_with({}, _operator_secrets(postgres), monkeypatch)
    at.radio(key="source_kind").set_value("PostgreSQL table").run()
    at.button(key="db_read").click().run()
    text = _all_text(at)
    assert not at.exception and "PostgreSQL: runs @ platform" in text and "2,796 runs" in text


def test_a_database_that_could_not_be_reached_is_asked_again_after_a_while(postgres, monkeypatch):
    """A failed connection is kept for a while only (every rerun would otherwise wait for the connect timeout);
    once that while has passed, the same read reaches the database that is back."""
    import time

    import psycopg

    from explorer import data

    _load(postgres["url"], "runs", SAMPLE.read_text())
    role, password = f"reader_{secrets.token_hex(4)}", secrets.token_hex(8)
    with psycopg.connect(postgres["url"], autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'not-{password}'")  # the operator's password fails
        conn.execute(f"GRANT SELECT ON runs TO {role}")
    config = _operator_secrets(postgres)
    config["connections"]["platform"].update(username=role, password=password)
    at = _app_with({}, config, monkeypatch)
    at.radio(key="source_kind").set_value("PostgreSQL table").run()
    at.button(key="db_read").click().run()
    assert "could not connect to the database" in _all_text(at)
    with psycopg.connect(postgres["url"], autocommit=True) as conn:
        conn.execute(f"ALTER ROLE {role} PASSWORD '{password}'")  # the database accepts the operator now
    assert "could not connect to the database" in _all_text(at.run())  # within the while: not asked again
    cache = data._cache()
    assert cache.idle_seconds > data.RETRY_SECONDS + 1  # what passes below is the retry's while, not idleness
    monkeypatch.setattr(cache, "clock", lambda: time.monotonic() + data.RETRY_SECONDS + 1)  # once it has passed
    text = _all_text(at.run())
    assert not at.exception and "PostgreSQL: runs @ platform" in text and "2,796 runs" in text


def test_reading_the_table_again_shows_the_runs_added_since_and_other_sessions_keep_their_read(postgres,
                                                                                                  monkeypatch):
    """A platform's table grows during the day: "Read the table" reads it again (a new dataset, so nothing cached
    for the earlier read answers for it); a session that read it earlier keeps its numbers until its own click."""
    import psycopg

    table = f"growing_{secrets.token_hex(4)}"
    _load(postgres["url"], table, SAMPLE.read_text())
    config = _operator_secrets(postgres, tables=(table,))

    def read(at):
        at.radio(key="source_kind").set_value("PostgreSQL table").run()
        at.button(key="db_read").click().run()
        return _all_text(at)

    first = _app_with({}, config, monkeypatch)
    assert "2,796 runs" in read(first)
    with psycopg.connect(postgres["url"], autocommit=True) as conn:  # two more runs of an agent already there
        conn.execute(f"INSERT INTO {table} SELECT run_id || '-again', agent_id, task_id, status, success, "
                     f"latency_ms, cost_usd, steps, finished_at FROM {table} ORDER BY run_id LIMIT 2")
    second = _app_with({}, config, monkeypatch)
    assert "2,798 runs" in read(second)
    assert "2,796 runs" in _all_text(first.run())  # the first session's view does not change under it
    assert "2,798 runs" in read(first)  # until its own click


def test_without_configuration_there_is_no_database_source(monkeypatch):
    monkeypatch.delenv("EXPLORER_ALLOW_DATABASE_URL", raising=False)
    at = _app_with({}, None, monkeypatch)
    assert at.radio(key="source_kind").options == ["Sample data", "Upload a file"]


def _read_url_in_the_app(url: str, table: str, monkeypatch):
    # The test server is on this machine: a viewer may name it only because the operator lists it.
    at = _app_with({"EXPLORER_ALLOW_DATABASE_URL": "true", "EXPLORER_DATABASE_URL_HOSTS": "127.0.0.1"}, None,
                   monkeypatch)
    at.radio(key="source_kind").set_value("PostgreSQL table").run()
    at.selectbox(key="db_connection").set_value("Another database (URL)").run()
    at.text_input[0].input(url)
    at.text_input[1].input(table)
    return at.button[0].click().run()


def test_a_keylog_file_is_never_written_through_a_viewer_url(postgres, tmp_path, monkeypatch):
    keylog = tmp_path / "keys.log"
    at = _read_url_in_the_app(postgres["url"] + f"?sslmode=require&sslnegotiation=direct&sslkeylogfile={keylog}",
                              "runs", monkeypatch)
    assert not at.exception
    assert any("sslkeylogfile" in e.value for e in at.error)
    assert not keylog.exists()
    assert at.session_state["dataset"].is_sample


def test_a_unix_socket_with_trust_authentication_is_not_reachable(postgres, monkeypatch):
    # The test server listens on a socket directory too; a viewer must not reach it that way.
    at = _read_url_in_the_app(f"postgresql://scorer@/postgres?host={postgres['sockets']}", "runs", monkeypatch)
    assert any("host" in e.value for e in at.error) and at.session_state["dataset"].is_sample


def test_a_viewer_url_reads_a_table_when_the_operator_allows_it(postgres, monkeypatch):
    _load(postgres["url"], "runs", SAMPLE.read_text())
    at = _read_url_in_the_app(postgres["url"], "runs", monkeypatch)
    text = _all_text(at)
    assert not at.exception and "2,796 runs" in text and postgres["password"] not in text
    # The dataset's digest is no plain hash of the URL, whose password it would let anyone who sees it test offline.
    import hashlib

    assert at.session_state["dataset"].digest != hashlib.sha256(f"url\n{postgres['url']}\nruns".encode()).hexdigest()


LOCAL = ("127.0.0.1",)  # the operator's host list naming the test server (loopback is refused otherwise)


def test_every_connection_failure_gives_the_same_message(postgres, monkeypatch):
    """No oracle: a closed port, a port that is not PostgreSQL, a wrong password and a missing database
    read alike, so the error text cannot scan ports or probe accounts."""
    import threading

    from scoring.engines.sql_engine import load_postgres_runs
    from scoring.load import database
    from scoring.load.database import ConnectFailed, parse_viewer_url

    monkeypatch.setattr(database, "CONNECT_TIMEOUT_S", 3)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def chatter():  # an open port speaking something else
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
                conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")
                conn.close()
            except OSError:
                pass

    thread = threading.Thread(target=chatter, daemon=True)
    thread.start()
    try:
        urls = [f"postgresql://scorer:x@127.0.0.1:{free_port()}/postgres",
                f"postgresql://scorer:x@127.0.0.1:{listener.getsockname()[1]}/postgres",
                postgres["url"].replace(postgres["password"], "wrong"),
                postgres["url"].rsplit("/", 1)[0] + "/no_such_database"]
        messages = set()
        for url in urls:
            with pytest.raises(ConnectFailed) as info:
                load_postgres_runs(parse_viewer_url(url, LOCAL), "runs")
            messages.add(str(info.value))
        assert messages == {"could not connect to the database (the server log has the details)"}
    finally:
        stop.set()
        thread.join()
        listener.close()


def test_a_table_over_the_row_limit_is_refused_while_it_is_read(postgres):
    from scoring.contract.limits import Limits
    from scoring.engines.sql_engine import load_postgres_runs
    from scoring.load.database import parse_viewer_url

    _load(postgres["url"], "runs", SAMPLE.read_text())
    with pytest.raises(RunsValidationError, match="more rows than the limit of 1,000"):
        load_postgres_runs(parse_viewer_url(postgres["url"], LOCAL), "runs", limits=Limits(max_rows=1_000))
    with pytest.raises(RunsValidationError, match=r"memory budget of 50\.0 KB"):
        load_postgres_runs(parse_viewer_url(postgres["url"], LOCAL), "runs", limits=Limits(max_memory=50_000))


def test_text_that_is_not_a_number_gets_a_validation_report_from_the_sql_engine(postgres):
    import psycopg

    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS text_runs")
        cur.execute("""CREATE TABLE text_runs (run_id text, agent_id text, task_id text, status text, success text,
                       latency_ms text, cost_usd text, steps text, finished_at text)""")
        cur.execute("""INSERT INTO text_runs VALUES
            ('r1', 'a', 't', 'completed', 'true', '1000', '0.01', '3', '2026-07-01T00:00:00Z'),
            ('r2', 'a', 't', 'completed', 'true', 'abc', '0.01', '3', 'yesterday'),
            ('r3', 'a', 't', 'completed', 'true', '1000', '0.01', 'x', '2026-07-01T00:02:00Z')""")
    with pytest.raises(RunsValidationError) as info:
        score_postgres(postgres["url"], "text_runs")
    found = {(p.row, p.column, p.reason) for p in info.value.problems}
    assert {(None, "latency_ms", "not a number"), (None, "steps", "not a number")} <= found
    assert any(c == "finished_at" and "ISO-8601" in r for _, c, r in found)


def _postgres_micros(url: str, spellings: list[str]) -> list[int | None]:
    import psycopg

    from scoring.engines.sql_engine import POSTGRES

    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute("SET TimeZone = 'America/Los_Angeles'")  # a naive spelling is UTC whatever the session zone
        cur.execute("CREATE TEMP TABLE spellings (i integer, t text)")
        cur.executemany("INSERT INTO spellings VALUES (%s, %s)", list(enumerate(spellings)))
        cur.execute(f"SELECT (extract(epoch FROM {POSTGRES.timestamp('t')}) * 1000000)::bigint "
                    "FROM spellings ORDER BY i")
        return [r[0] for r in cur.fetchall()]


def test_every_listed_spelling_reads_as_the_grammar_reads_it(postgres):
    """docs/schema.md, "Timestamps": the reference reader (schema.timestamp_micros), as in pandas and DuckDB."""
    from scoring.contract.schema import timestamp_micros
    from tests.spellings import TIMESTAMP_SPELLINGS

    assert _postgres_micros(postgres["url"], TIMESTAMP_SPELLINGS) == [timestamp_micros(s) for s in TIMESTAMP_SPELLINGS]


def test_made_up_spellings_read_as_the_grammar_reads_them(postgres):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from scoring.contract.schema import timestamp_micros
    from tests.spellings import timestamp_spellings

    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(timestamp_spellings(), min_size=50, max_size=300))
    def check(spellings: list[str]) -> None:
        assert _postgres_micros(postgres["url"], spellings) == [timestamp_micros(s) for s in spellings]

    check()


def test_every_listed_spelling_is_refused_as_the_pandas_engine_refuses_it(postgres, tmp_path):
    """A table (no row numbers) is refused with the same cells and codes as the same rows in a file."""
    import psycopg

    from tests.spellings import TIMESTAMP_SPELLINGS, timestamp_runs_csv

    text = timestamp_runs_csv(TIMESTAMP_SPELLINGS)
    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS spelling_runs")
        cur.execute("""CREATE TABLE spelling_runs (run_id text, agent_id text, task_id text, status text,
                       success text, latency_ms text, cost_usd text, steps text, finished_at text)""")
        with cur.copy("COPY spelling_runs FROM STDIN WITH (FORMAT csv, HEADER true)") as copy:
            copy.write(text)
    path = tmp_path / "spellings.csv"
    path.write_text(text)
    with pytest.raises(RunsValidationError) as sql_info:
        score_postgres(postgres["url"], "spelling_runs")
    with pytest.raises(RunsValidationError) as pandas_info:
        load_runs(path)
    assert sorted((p.column, p.value, p.code) for p in sql_info.value.problems) == \
        sorted((p.column, p.value, p.code) for p in pandas_info.value.problems)


def test_words_with_a_character_past_ascii_are_refused_as_the_pandas_engine_refuses_them(postgres, tmp_path):
    # SPEC 1's words are case-insensitive in A-Z only ("FAİLED" is no status, "İnf" no number), whatever the
    # database's own lower() makes of them; the same words in other ASCII cases are read.
    import psycopg

    from tests.spellings import files, non_ascii_word_rows

    rows, expected = non_ascii_word_rows()
    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS word_runs")
        cur.execute("""CREATE TABLE word_runs (run_id text, agent_id text, task_id text, status text,
                       success text, latency_ms text, cost_usd text, steps text, finished_at text)""")
        with cur.copy("COPY word_runs FROM STDIN WITH (FORMAT csv, HEADER true)") as copy:
            copy.write(files(rows)["x.csv"].decode())
    with pytest.raises(RunsValidationError) as info:
        score_postgres(postgres["url"], "word_runs")
    assert sorted((p.column, p.value, p.code) for p in info.value.problems) == sorted(e[1:] for e in expected)


def test_pass_through_columns_change_no_number_and_are_refused_alike(postgres):
    import psycopg

    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS extra_runs")
        cur.execute("""CREATE TABLE extra_runs (run_id text, agent_id text, task_id text, status text,
                       success boolean, latency_ms double precision, cost_usd double precision,
                       finished_at timestamptz, trial integer, seed bigint, input_tokens text)""")
        cur.execute("""INSERT INTO extra_runs VALUES
            ('r1', 'a', 't', 'completed', true, 10, 0.1, '2026-07-01T00:00:00Z', 0, 863145, '42224'),
            ('r2', 'a', 't', 'completed', false, 12, 0.2, '2026-07-01T00:01:00Z', 1, NULL, NULL)""")
    plain = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,finished_at\n" \
            "r1,a,t,completed,true,10,0.1,2026-07-01T00:00:00Z\nr2,a,t,completed,false,12,0.2,2026-07-01T00:01:00Z\n"
    assert_same_report(json.loads(score_postgres(postgres["url"], "extra_runs").to_json_text()),
                       json.loads(score_runs(load_runs(plain.encode(), name="p.csv").runs).to_json_text()))
    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("UPDATE extra_runs SET trial = -1, input_tokens = '2.5' WHERE run_id = 'r2'")
    with pytest.raises(RunsValidationError) as info:
        score_postgres(postgres["url"], "extra_runs")
    assert {(p.column, p.code) for p in info.value.problems} == {("trial", "negative"), ("input_tokens", "not_whole")}


def test_a_pass_through_value_of_2_63_or_more_is_refused_alike(postgres, tmp_path):
    import psycopg

    # bigint 2^63 - 1 reads as the double 2^63; text 1e20 is a whole number: both too large for a 64-bit integer
    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS huge_runs")
        cur.execute("""CREATE TABLE huge_runs (run_id text, agent_id text, task_id text, status text,
                       success boolean, latency_ms double precision, cost_usd double precision,
                       finished_at timestamptz, seed bigint, input_tokens text)""")
        cur.execute("""INSERT INTO huge_runs VALUES
            ('r1', 'a', 't', 'completed', true, 10, 0.1, '2026-07-01T00:00:00Z', 9223372036854775807, '5'),
            ('r2', 'a', 't', 'completed', false, 12, 0.2, '2026-07-01T00:01:00Z', 9223372036854774784,
             '100000000000000000000')""")
    with pytest.raises(RunsValidationError) as info:
        score_postgres(postgres["url"], "huge_runs")
    assert sorted((p.column, p.code) for p in info.value.problems) == [  # a table's rows have no order: no row
        ("input_tokens", "too_large"), ("seed", "too_large")]
    path = tmp_path / "huge.csv"
    path.write_text("run_id,agent_id,task_id,status,success,latency_ms,cost_usd,seed,input_tokens\n"
                    "r1,a,t,completed,true,10,0.1,9223372036854775807,5\n"
                    "r2,a,t,completed,false,12,0.2,9223372036854774784,100000000000000000000\n")
    with pytest.raises(RunsValidationError) as pandas_info:
        load_runs(path)
    assert sorted((p.row, p.column, p.code) for p in pandas_info.value.problems) == [
        (1, "seed", "too_large"), (2, "input_tokens", "too_large")]


def test_a_refusal_counts_every_problem_and_invalid_row_as_the_pandas_engine_does(postgres, tmp_path):
    # More rows of each rule than a refusal lists, repeated ids that also break a rule: the same problems as pandas.
    # A table has no row order, so no id has a first row: each repeated id keeps one row without another problem and
    # its other rows are invalid (the file's first rows of dup0 and dup2 also break a rule: two more invalid rows).
    import psycopg

    path = many_problems_csv(tmp_path / "many.csv")
    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS many_runs")
        cur.execute("""CREATE TABLE many_runs (run_id text, agent_id text, task_id text, status text,
                       success boolean, latency_ms double precision, cost_usd double precision,
                       finished_at timestamptz)""")
        columns = "run_id, agent_id, task_id, status, success, latency_ms, cost_usd"
        with cur.copy(f"COPY many_runs ({columns}) FROM STDIN WITH (FORMAT csv, HEADER true)") as copy:
            copy.write(path.read_text())
    with pytest.raises(RunsValidationError) as pandas_info:
        load_runs(path)
    with pytest.raises(RunsValidationError) as info:
        score_postgres(postgres["url"], "many_runs")
    found = (info.value.total, info.value.invalid_rows, info.value.rows_read)
    assert (pandas_info.value.total, pandas_info.value.invalid_rows) == (538, 459)
    assert found == (538, 459 - 2, 900)


def test_the_work_limits_are_refused_as_the_pandas_engine_refuses_them(postgres):
    # An id past max_id_chars, then more agents or tasks than allowed, in the pandas loader's words (before
    # 2026-12-06 the SQL engine scored them). A table has no row order: the first such id in text order, no row.
    import psycopg

    from scoring.contract.limits import Limits

    rows = [("r1", "a", "t"), ("r" * 1_001, "a", "t"), ("r3", "x" * 1_002, "t"), ("r4", "b", "y" * 1_003),
            ("r5", "b", "z" * 1_004)]
    with psycopg.connect(postgres["url"]) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS limit_runs")
        cur.execute("""CREATE TABLE limit_runs (run_id text, agent_id text, task_id text, status text,
                       success boolean, latency_ms double precision, cost_usd double precision,
                       finished_at timestamptz)""")
        cur.executemany("INSERT INTO limit_runs VALUES (%s, %s, %s, 'completed', true, 1, 0.01, "
                        "'2026-07-01T00:00:00Z')", rows)
    said = [(p.row, p.column, p.value, p.reason) for p in pytest.raises(
        RunsValidationError, score_postgres, postgres["url"], "limit_runs").value.problems]
    assert said == [(None, column, value[:61], f"an id of {len(value):,} characters, more than the limit of 1,000 "
                     "(max_id_chars)") for column, value in (("run_id", "r" * 1_001), ("agent_id", "x" * 1_002),
                                                              ("task_id", "y" * 1_003))]
    for limits, words in ((Limits(max_agents=2, max_id_chars=2_000), "the input has 3 agents, more than the limit of "
                                                                      "2 (max_agents)"),
                          (Limits(max_tasks=2, max_id_chars=2_000), "the input has 3 tasks, more than the limit of 2 "
                                                                     "(max_tasks)")):
        error = pytest.raises(RunsValidationError, score_postgres, postgres["url"], "limit_runs", limits=limits).value
        assert [p.reason for p in error.problems] == [words]
    score_postgres(postgres["url"], "limit_runs", limits=Limits(max_agents=3, max_tasks=3, max_id_chars=2_000))


# ------------------------------------------------------------ found by a security and correctness audit (2026-12-04)


def _spec(pg) -> ConnectionSpec:
    return ConnectionSpec("127.0.0.1", pg["port"], "postgres", "scorer", pg["password"], trusted=True)


def _own_non_loopback_addresses() -> list[str]:
    """This machine's interface addresses other than loopback (found without sending a packet)."""
    found = set()
    for family, probe in ((socket.AF_INET, "192.0.2.254"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                found.add(s.getsockname()[0])
        except OSError:
            pass
    return sorted(a for a in found if not a.startswith("127.") and a != "::1")


def test_viewer_url_cannot_name_this_server_by_its_interface_address(monkeypatch):
    """README: 'Without a host list a viewer cannot name this server's own addresses'. Only loopback was
    refused: the address of eth0 (or any other interface) reached a database listening on all interfaces."""
    addresses = _own_non_loopback_addresses()
    if not addresses:
        pytest.skip("this machine has no non-loopback address")
    import psycopg

    reached = []
    monkeypatch.setattr(psycopg, "connect", lambda **kw: reached.append(kw) or pytest.fail("connected"))
    monkeypatch.setattr(database, "answer_after", lambda *a, **k: None)
    for address in addresses:
        host = f"[{address}]" if ":" in address else address
        with pytest.raises((SourceRefused, ConnectFailed)):
            database.connect(parse_viewer_url(f"postgresql://u:p@{host}:5432/db"))
    assert reached == []


def test_operator_options_keep_the_statement_timeout_and_read_only_default(postgres):
    """An operator's libpq ``options`` (e.g. a search_path, a common setting) replaced the explorer's own
    ``-c statement_timeout=60000 -c default_transaction_read_only=on``; load_postgres_runs sets no
    statement_timeout of its own, so the app's reads ran with no statement timeout at all."""
    connection = operator_connection("p", {"host": "127.0.0.1", "port": postgres["port"], "database": "postgres",
                                           "username": "scorer", "password": postgres["password"],
                                           "tables": ["runs"], "options": "-c search_path=public"})
    conn = database.connect(connection.spec)
    try:
        timeout, read_only, path = conn.execute("SELECT current_setting('statement_timeout'), current_setting("
                                                "'default_transaction_read_only'), current_setting('search_path')"
                                                ).fetchone()
    finally:
        conn.close()
    assert (timeout, read_only, path) == ("1min", "on", "public")


def test_memory_budget_counts_array_and_json_cells(postgres):
    """fetch_rows counted every value that is not str/bytes as 8 bytes: an int[] or jsonb cell of millions of
    elements (hundreds of MB once decoded) passed a 20 MB budget."""
    import psycopg

    with psycopg.connect(postgres["url"], autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS audit_array_runs")
        conn.execute("""CREATE TABLE audit_array_runs AS SELECT 'r' || g AS run_id, 'a' AS agent_id, 't' AS task_id,
                        'completed' AS status, true AS success, 1.0::float8 AS latency_ms, 0.1::float8 AS cost_usd,
                        1 AS steps, now() AS finished_at,
                        (SELECT array_agg(x) FROM generate_series(1, 1000000) x) AS blob
                        FROM generate_series(1, 3) g""")
    limits = dataclasses.replace(DEFAULT_LIMITS, max_memory=20_000_000)
    with pytest.raises(RunsValidationError, match="memory budget"):
        load_postgres_runs(_spec(postgres), "audit_array_runs", limits=limits)


def test_real_column_scores_the_same_in_the_cli_and_the_explorer(postgres):
    """A ``real`` (float4) cost column: the explorer (load_postgres_runs, psycopg reads 0.1) and a CSV export
    (0.1) gave avg_cost_usd 0.1, while score_postgres (``--db``, ``--engine sql``) widened the float4 to
    double (0.10000000149011612): two reports of one table."""
    import psycopg

    with psycopg.connect(postgres["url"], autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS audit_real_runs")
        conn.execute("""CREATE TABLE audit_real_runs AS SELECT 'r' || g AS run_id, 'a' || (g % 2) AS agent_id,
                        't' || (g % 3) AS task_id, 'completed' AS status, (g % 2 = 0) AS success,
                        (g * 1.5)::float8 AS latency_ms, 0.1::real AS cost_usd, 1 AS steps,
                        timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute' AS finished_at
                        FROM generate_series(1, 12) g""")
    explorer_doc = json.loads(score_runs(load_postgres_runs(_spec(postgres), "audit_real_runs").runs).to_json_text())
    cli_doc = json.loads(score_postgres(postgres["url"], "audit_real_runs").to_json_text())
    assert cli_doc == explorer_doc


def test_a_view_that_tries_to_write_as_it_is_read_is_refused_in_words_and_writes_nothing(postgres):
    # The read-only transaction stopped the write, but --engine sql showed psycopg's ReadOnlySqlTransaction as a
    # traceback where load_postgres_runs refused in words (PostgreSQL audit).
    import psycopg

    with psycopg.connect(postgres["url"], autocommit=True) as conn:
        conn.execute("DROP VIEW IF EXISTS audit_writing_runs")
        conn.execute("DROP TABLE IF EXISTS audit_log")
        conn.execute("CREATE TABLE audit_log (n int)")
        conn.execute("""CREATE OR REPLACE FUNCTION audit_note(x text) RETURNS text LANGUAGE plpgsql VOLATILE AS
                        $$ BEGIN INSERT INTO audit_log VALUES (1); RETURN x; END $$""")
        conn.execute("""CREATE VIEW audit_writing_runs AS SELECT audit_note('r' || g) AS run_id, 'a' AS agent_id,
                        't' AS task_id, 'completed' AS status, true AS success, 1.0::float8 AS latency_ms,
                        0.1::float8 AS cost_usd, timestamptz '2026-01-01 00:00:00+00' AS finished_at
                        FROM generate_series(1, 3) g""")
        conn.execute("GRANT SELECT ON audit_writing_runs, audit_log TO scorer")
    with pytest.raises(RunsValidationError, match="PostgreSQL could not read the table"):
        score_postgres(postgres["url"], "audit_writing_runs")
    with psycopg.connect(postgres["url"]) as conn:
        assert conn.execute("SELECT count(*) FROM audit_log").fetchone() == (0,)
