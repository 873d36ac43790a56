"""Issue 21: no file can take the room down. Untrusted input is read in a worker under a resident-memory
and CPU-time limit; archives are unpacked counting the bytes they really produce; agents, tasks and
events per sample are bounded. Every refusal names the limit and both numbers, without a traceback.

The hostile files are generated small (``tests/hostile_files.py``) and the limits set small, so the
tests take seconds.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path

import pandas as pd
import pytest
from hostile_files import PROBE, bomb_eval, deep_eval, eval_with_member, events_eval, runs_csv, sample_member

from scoring.cli import commands as cli
from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.load.importers import import_file
from scoring.load.runs import Problem, RunsValidationError, check_work, load_runs
from scoring.load.worker import LimitExceeded, run_limited

ROOT = Path(__file__).resolve().parents[1]
SMALL = Limits(max_memory=5_000_000, max_events=1_000)
MB = 10**6


def refusal(data: bytes, name: str, limits: Limits = DEFAULT_LIMITS, kind: str | None = None) -> str:
    with pytest.raises(RunsValidationError) as info:
        import_file(data, name, limits=limits, kind=kind)
    return info.value.report()


# --------------------------------------------------------------------------- archives (.eval)


def test_a_zip_whose_directory_lies_is_refused_as_soon_as_it_passes_the_size_it_declares():
    """Refused on the bytes it really produces, once they pass what its directory declares: one step of the
    inflater (1 MiB at most), never the whole budget (a reviewer's 120 KB bomb took 17 s of CPU refused at 2 GB)."""
    from scoring.load.importers._base import _INFLATE

    data = bomb_eval(20 * MB)  # says 2,000 bytes; inflates to 20 MB
    assert len(data) < 100_000
    for limits in (SMALL, DEFAULT_LIMITS):
        text = refusal(data, "bomb.eval", limits)
        found = re.search(r"samples/easy_epoch_1\.json inflates to more than the 2,000 bytes its directory declares "
                          r"\(([\d,]+) bytes unpacked when the read stopped\): refused", text)
        assert found, text
        assert 2_000 < int(found.group(1).replace(",", "")) <= 2_000 + _INFLATE


def test_an_archive_that_unpacks_past_the_budget_stops_at_the_budget():
    """Honest sizes past the budget, unpacked without the .eval directory's check before: stopped at the budget."""
    from scoring.load.importers._base import check_archive

    data = eval_with_member("samples/easy_epoch_1.json", b" " * (20 * MB))
    with pytest.raises(RunsValidationError) as info:
        check_archive(data, "big.eval", SMALL, json_members=lambda name: None)
    text = info.value.report()
    assert re.search(r"unpacking stopped at 5\.\d MB, more than the limit of 5\.0 MB \(max_memory\)", text), text
    assert re.search(r"samples/easy_epoch_1\.json alone gave \d\.\d MB where its directory says 20\.0 MB", text), text


def test_a_lying_member_within_the_budget_is_refused_too():
    text = refusal(bomb_eval(200_000), "lie.eval")
    assert "inflates to more than the 2,000 bytes its directory declares" in text
    short = refusal(bomb_eval(1_000), "short.eval")  # ends short of what it declares: refused at its end
    assert "inflates to 1,000 bytes, not the 2,000 its directory declares" in short, short


def test_an_honest_member_of_whitespace_is_refused_as_holding_no_json_value():
    """A member that truthfully declares what it unpacks to (blanks deflate about 1000x) is read to its end, within
    the budget, and refused in words a person reads: yajl says "premature EOF" of an empty text and of a cut one."""
    member = sample_member()
    text = refusal(eval_with_member(member, b" \n\t" * 700_000), "blank.eval")
    assert f"{member}: refused" in text and \
        "- not valid JSON (it holds no JSON value: it is empty or only whitespace)" in text, text
    assert "premature EOF" not in text
    cut = refusal(eval_with_member(member, b'  {"id": 1, "events": ["unclosed'), "cut.eval")
    assert "- not valid JSON (it ends before the document is complete: an object, list or text is never " \
        "closed)" in cut, cut


def test_the_json_scan_reads_a_mebibyte_at_a_time():
    """yajl lexes a token that spans its reads again from its start at each read, so a long text costs its length
    times its reads: 64 KiB reads took a 40 MB text 4.1 s, 1 MiB reads 0.36 s (bench/bench_budget.py: a 100 MB text
    in a .eval, 33.0 -> 2.8 s). The memory is still one read at a time."""
    import io

    from scoring.load.importers._base import scan_json

    sizes: list[int] = []

    class Recorded(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            sizes.append(size if size is not None else -1)
            return super().read(size)

    stream = Recorded(b'{"id": "' + b"a" * (3 << 20) + b'"}')
    scan_json(stream, "long.json", DEFAULT_LIMITS)
    assert sizes and min(sizes) == 1 << 20, sizes


def test_nesting_inside_an_eval_member_is_bounded():
    text = refusal(deep_eval(5_000), "deep.eval")
    assert "samples/" in text
    assert "nests 65 levels deep (and may go deeper), more than the limit of 64 (max_json_depth)" in text


def test_events_per_sample_are_bounded_with_both_numbers():
    text = refusal(events_eval(1_500), "events.eval", SMALL)
    assert "a sample has 1,500 events, more than the limit of 1,000 (max_events)" in text


def test_counting_events_stops_at_twice_the_limit():
    text = refusal(events_eval(2_500), "events.eval", SMALL)
    assert "a sample has more than 2,000 events, more than the limit of 1,000 (max_events)" in text


def test_events_at_the_limit_pass_the_scan():
    text = refusal(events_eval(1_000), "events.eval", SMALL)  # refused later: the sample is not a real one
    assert "max_events" not in text and "not readable as an Inspect log" in text


def test_a_json_log_counts_events_too():
    body = b'{"eval": {}, "samples": [{"id": 1, "events": [' + b",".join([b"{}"] * 1_001) + b"]}]}"
    assert "a sample has 1,001 events, more than the limit of 1,000" in refusal(body, "log.json", SMALL, "inspect")


# --------------------------------------------------------------------------- agents, tasks, every real file


def test_agents_and_tasks_per_dataset_are_bounded():
    loaded = load_runs(runs_csv(agents=30, tasks=7, runs_per_agent=2), name="many.csv")
    assert check_work(loaded, Limits(max_agents=30, max_tasks=7)) is loaded
    with pytest.raises(RunsValidationError, match=r"30 agents, more than the limit of 20 \(max_agents\)"):
        check_work(loaded, Limits(max_agents=20))
    with pytest.raises(RunsValidationError, match=r"7 tasks, more than the limit of 6 \(max_tasks\)"):
        check_work(loaded, Limits(max_tasks=6))


def _real_files() -> list[Path]:
    fixtures = ROOT / "tests" / "fixtures"
    files = [*sorted((fixtures / "tau2").glob("*.json")), fixtures / "tau2" / "grok-3-folder",
             *sorted((fixtures / "tau-bench").glob("*.json")), PROBE, ROOT / "sample_data" / "runs.csv"]
    shared = Path("/work/shared/data/tau2")
    return files + sorted(shared.glob("*.json"))


@pytest.mark.parametrize("path", _real_files(), ids=lambda p: p.name)
def test_the_default_limits_let_every_real_file_through(path: Path):
    loaded = import_file(path, limits=DEFAULT_LIMITS).validate(exclude_invalid=True)
    assert check_work(loaded, DEFAULT_LIMITS) is loaded and len(loaded.runs)


# --------------------------------------------------------------------------- the worker


def _allocate(n: int) -> int:
    block = bytearray(n)
    for i in range(0, n, 4096):
        block[i] = 1
    return len(block)


def _above_this_process(extra: int, method: str) -> int:
    """A memory limit ``extra`` above where a worker starts: a forked child's resident memory starts at this test
    process's own (the pages it shares are resident in it too), and a test process that ran other tests first may
    hold several hundred MB; a fork-server worker starts small."""
    from scoring.load.worker import rss

    return (rss(os.getpid()) if method == "fork" else 0) + extra


def _spin() -> None:
    while True:
        pass


def _refuse() -> None:
    raise RunsValidationError([Problem(3, "agent_id", "x", "bad")], source="f.csv", rows_read=9)


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"a": ["x" * 10] * 1000, "b": range(1000)})


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_a_worker_past_its_memory_limit_is_stopped_and_the_next_one_works(method: str):
    limit = _above_this_process(250 * MB, method)
    with pytest.raises(LimitExceeded) as info:
        run_limited(_allocate, (600 * MB,), max_rss=limit, max_cpu=60, what="big.csv", method=method)
    assert info.value.limit == "memory" and info.value.reached > info.value.allowed == limit
    assert str(info.value).startswith("reading big.csv took ")
    assert f"of resident memory, more than the limit of {limit / 1e6:,.0f} MB; the work was stopped" in str(info.value)
    assert run_limited(_allocate, (MB,), max_rss=limit, max_cpu=60, method=method) == MB


def test_a_worker_past_its_cpu_limit_is_stopped():
    with pytest.raises(LimitExceeded) as info:
        run_limited(_spin, (), max_rss=_above_this_process(500 * MB, "fork"), max_cpu=1, method="fork")
    assert info.value.limit == "cpu" and info.value.reached > 1
    assert "s of CPU time, more than the limit of 1 s" in str(info.value)


def test_a_worker_stopped_by_its_own_cpu_backstop_is_said_to_be_past_the_cpu_limit(monkeypatch):
    """On a loaded machine the parent did not see the worker pass its limit before the kernel's RLIMIT_CPU
    stopped it (SIGXCPU): the refusal read "ended without an answer (signal 24)". The parent here sees nothing."""
    import scoring.load.worker as worker

    monkeypatch.setattr(worker, "tree_usage", lambda pid: (0, 0.0))
    with pytest.raises(LimitExceeded) as info:
        run_limited(_spin, (), max_rss=_above_this_process(500 * MB, "fork"), max_cpu=1, method="fork")
    assert info.value.limit == "cpu" and info.value.reached >= worker.cpu_backstop(1)
    assert "s of CPU time, more than the limit of 1 s" in str(info.value)


def _stay(folder: str, pause: float) -> int:
    """A worker's stay: its start and end on the machine's monotonic clock, in a file of its own."""
    import time

    start = time.monotonic()
    time.sleep(pause)
    Path(folder, str(os.getpid())).write_text(f"{start} {time.monotonic()}")
    return os.getpid()


def test_a_server_process_runs_at_most_its_workers_at_once(monkeypatch, tmp_path):
    # explorer.untrusted runs every upload and bootstrap in a worker; at most Settings.max_workers at once in one
    # server process (each may hold the budget + the overhead), the others waiting: three requests at the same moment
    # with one slot, three stays one after the other.
    import threading

    from explorer import untrusted

    slots = untrusted._Slots()
    slots.allow(1)
    monkeypatch.setattr(untrusted, "SLOTS", slots)
    asked = [threading.Thread(target=untrusted.run, args=(_stay, (str(tmp_path), 0.5), Limits(), "x"))
             for _ in range(3)]
    for thread in asked:
        thread.start()
    for thread in asked:
        thread.join(120)
    stays = sorted(tuple(map(float, f.read_text().split())) for f in tmp_path.iterdir())
    assert len(stays) == 3 and all(first[1] <= second[0] for first, second in zip(stays, stays[1:])), stays


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_a_refusal_and_a_frame_come_back_whole(method: str):
    with pytest.raises(RunsValidationError) as info:
        run_limited(_refuse, (), max_rss=_above_this_process(500 * MB, method), max_cpu=60, method=method)
    assert info.value.problems == [Problem(3, "agent_id", "x", "bad")] and info.value.rows_read == 9
    frame = run_limited(_frame, (), max_rss=_above_this_process(500 * MB, method), max_cpu=60, method=method)
    frame.loc[0, "b"] = 5  # writable: pandas may write into what comes back
    assert frame["b"].sum() == sum(range(1000)) + 5


def _encode_surrogate() -> None:
    "a\ud800".encode("utf-8")


def test_a_builtin_error_comes_back_with_its_words():
    """A UnicodeEncodeError came back from the worker with none of its words (its message lives in C fields that
    BaseException.__init__ does not set): the command line printed a bare 'UnicodeEncodeError'."""
    with pytest.raises(UnicodeEncodeError) as info:
        run_limited(_encode_surrogate, (), max_rss=_above_this_process(500 * MB, "fork"), max_cpu=60, method="fork")
    assert "can't encode character '\\ud800' in position 1" in str(info.value)


def test_a_worker_does_not_run_the_servers_main_script(tmp_path, monkeypatch):
    """In the Streamlit server ``__main__`` is the app script being run; multiprocessing would have every fork-server
    worker run that file first (the whole app in bare mode, ~0.6 s of CPU and 160 MB per upload)."""
    import types

    marker = tmp_path / "ran"
    script = tmp_path / "page.py"
    script.write_text(f"open({str(marker)!r}, 'w').write(__name__)\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert run_limited(len, ("abc",), max_rss=500 * MB, max_cpu=60, method="forkserver") == 3
    assert not marker.exists(), marker.read_text()


# --------------------------------------------------------------------------- the CLI


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["report", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_the_cli_refuses_a_lying_eval(tmp_path):
    # A process of its own: a worker forked from this test process would start at this process's resident memory,
    # which after other tests can pass the 355 MB that --max-memory 5MB allows the worker.
    import subprocess

    path = tmp_path / "bomb.eval"
    path.write_bytes(bomb_eval(20 * MB))
    done = subprocess.run([sys.executable, "-m", "scoring", "report", str(path), "--max-memory", "5MB"],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert done.returncode == 2 and not done.stdout and "Traceback" not in done.stderr
    # Refused as soon as the member passes the 2,000 bytes it declares, before the 5 MB budget
    assert "inflates to more than the 2,000 bytes its directory declares" in done.stderr, done.stderr


def test_the_cli_refuses_too_many_agents_events_and_nesting(capsys, tmp_path):
    (tmp_path / "many.csv").write_bytes(runs_csv(agents=30))
    code, _, err = _cli(capsys, str(tmp_path / "many.csv"), "--max-agents", "20")
    assert code == 2 and "30 agents, more than the limit of 20 (max_agents)" in err
    (tmp_path / "events.eval").write_bytes(events_eval(1_500))
    code, _, err = _cli(capsys, str(tmp_path / "events.eval"), "--max-events", "1000")
    assert code == 2 and "a sample has 1,500 events, more than the limit of 1,000 (max_events)" in err
    (tmp_path / "deep.eval").write_bytes(deep_eval(5_000))
    code, _, err = _cli(capsys, str(tmp_path / "deep.eval"))
    assert code == 2 and "more than the limit of 64 (max_json_depth)" in err


def test_the_cli_stops_its_worker_past_the_cpu_limit(capsys, monkeypatch):
    monkeypatch.setattr("scoring.cli.report.run_report", lambda *args: _spin())  # the worker is forked: it runs this
    code, out, err = _cli(capsys, "sample_data/runs.csv", "--max-cpu-seconds", "1")
    assert code == 2 and not out
    assert "s of CPU time, more than the limit of 1 s (--max-cpu-seconds); the work was stopped" in err


def test_the_cli_stops_its_worker_past_the_memory_limit(capsys, monkeypatch):
    monkeypatch.setattr("scoring.cli.report.run_report", lambda *args: _allocate(800 * MB))
    code, out, err = _cli(capsys, "sample_data/runs.csv", "--max-memory", "1MB")
    assert code == 2 and not out
    assert "of resident memory, more than the limit of 351 MB (--max-memory 1.0 MB + 350.0 MB" in err


def test_the_cli_still_scores_within_the_limits(capsys):
    code, out, _ = _cli(capsys, "sample_data/runs.csv", "--format", "csv", "--max-cpu-seconds", "60")
    assert code == 0 and out.startswith("rank,agent_id,headline_score,") and len(out.splitlines()) > 3


def test_limits_refuse_nonsense():
    with pytest.raises(ValueError, match="max_events must be a whole number of at least 1"):
        dataclasses.replace(DEFAULT_LIMITS, max_events=0)


# --------------------------------------------------------------------------- viewer URLs


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1", "[::ffff:127.0.0.1]",
                                  "[::ffff:7f00:1]", "[::1]", "localhost", "LocalHost", "0.0.0.0", "0",
                                  "169.254.169.254", "2852039166"])
def test_a_viewer_url_cannot_reach_this_server_in_any_spelling(host: str):
    from scoring.load.database import SourceRefused, parse_viewer_url

    with pytest.raises(SourceRefused, match="this server or its own network"):
        parse_viewer_url(f"postgresql://u:p@{host}:5432/x")


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "127.1", "[::ffff:127.0.0.1]"])
def test_the_allow_list_compares_addresses_not_spellings(host: str):
    from scoring.load.database import SourceRefused, parse_viewer_url

    spec = parse_viewer_url(f"postgresql://u:p@{host}:5432/x", ("127.0.0.1",))
    assert spec.host == "127.0.0.1" and not spec.guarded
    with pytest.raises(SourceRefused, match="not one this deployment allows"):
        parse_viewer_url(f"postgresql://u:p@{host}:5432/x", ("db.example.com",))
    assert parse_viewer_url("postgresql://u@DB.Example.COM/x", ("db.example.com.",)).host == "db.example.com"


def test_a_name_that_resolves_to_this_server_is_refused_at_connect(monkeypatch):
    from scoring.load import database

    monkeypatch.setattr(database.socket, "getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("127.0.0.2", 5432))])
    waits: list[float] = []
    monkeypatch.setattr(database, "answer_after", lambda start, seconds: waits.append(seconds))
    spec = database.parse_viewer_url("postgresql://u:p@rebind.example.com/x")
    assert spec.guarded
    with pytest.raises(database.ConnectFailed):
        database.connect(spec)
    assert waits == [database.CONNECT_TIMEOUT_S]


def test_a_failed_connection_answers_after_the_same_delay_whatever_the_reason():
    from scoring.load.database import answer_after

    for failed_after in (0.2, 4.0, 9.9):  # a refused port, a wrong password, a filtered port
        slept: list[float] = []
        answer_after(100.0, 10, clock=lambda t=100.0 + failed_after: t, sleep=slept.append)
        assert sum(slept) + failed_after == pytest.approx(10)
    slept = []
    answer_after(100.0, 10, clock=lambda: 111.0, sleep=slept.append)  # already past: no wait
    assert slept == []
