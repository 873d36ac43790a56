"""Shared test data and checks: the run-record builder, the random run tables, the engines' edge file and the
bit-for-bit report comparison. Test modules import from here (or from ``tests/spellings.py``,
``tests/apptest_helpers.py``, ``tests/e2e/browser_helpers.py``), never from one another
(``tests/test_suite_layout.py`` checks it).

Nothing here imports streamlit, pyspark or playwright: a scoring test pays for none of them.
"""

from __future__ import annotations

import contextlib
import json
import socket
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
FIXTURES = ROOT / "tests" / "fixtures"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the system's pick), for a server a test starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- one run record

def run(run_id: str, agent: str = "a", *, task: str = "t", status: str = "completed", success: bool | None = True,
        latency: float | None = None, cost: float | None = None, day: int | None = None,
        **extra: Any) -> dict[str, Any]:
    """One run as ``runs_from_records`` reads it: completed and successful, with no latency and no cost
    unless said; ``day`` d sets ``finished_at`` to noon UTC on 2026-07-d; ``extra`` adds or overrides columns.

    A module whose runs are mostly timed and priced says so once, e.g.
    ``run = functools.partial(helpers.run, latency=1000.0, cost=0.01)``.
    """
    record: dict[str, Any] = {"run_id": run_id, "agent_id": agent, "task_id": task, "status": status,
                              "success": success, "latency_ms": latency, "cost_usd": cost}
    if day is not None:
        record["finished_at"] = f"2026-07-{day:02d}T12:00:00Z"
    record.update(extra)
    return record


# --------------------------------------------------------------------------- random run tables (hypothesis)

RUN_STATUSES = ["queued", "running", "completed", "failed", "timeout", "cancelled"]
RUN_TIMES = [None] + [f"2026-07-0{d}T00:00:00Z" for d in range(1, 4)]


# One strategy per column, built once: a strategy built inside the draw loop is validated again at every draw
# (a third of a property test's time went there); the draws, and so the tables, are the same.
_RUN_COLUMNS: dict[str, st.SearchStrategy[Any]] = {
    "agent_id": st.sampled_from(["a", "b", "c"]),
    "task_id": st.sampled_from(["t1", "t2", "t3", "t4"]),
    "status": st.sampled_from(RUN_STATUSES + ["completed"] * 3),
    "success": st.sampled_from([True, False, None]),
    "latency_ms": st.one_of(st.none(), st.floats(0, 20000, allow_nan=False), st.just(-0.0)),  # -0 reads as 0
    "cost_usd": st.one_of(st.none(), st.floats(0, 0.5, allow_nan=False), st.just(-0.0)),
    "steps": st.one_of(st.none(), st.integers(0, 60)),
    "finished_at": st.sampled_from(RUN_TIMES),
}


@st.composite
def run_tables(draw: st.DrawFn, min_size: int = 0, max_size: int = 60) -> list[dict[str, Any]]:
    """Run records over three agents and four tasks, every status (completed the most often), every outcome,
    missing and present latencies, costs, steps and times."""
    n = draw(st.integers(min_size, max_size))
    rows = []
    for i in range(n):
        row: dict[str, Any] = {"run_id": f"r{i}"}
        for column, strategy in _RUN_COLUMNS.items():  # in the column order above: the draws' order
            row[column] = draw(strategy)
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- engines: same report, to the bit

def assert_same_report(engine_doc: Any, pandas_doc: Any, path: str = "") -> None:
    """Same keys, same order, same nulls, and every number equal to the bit (the README's guarantee)."""
    if isinstance(pandas_doc, dict):
        assert isinstance(engine_doc, dict) and list(engine_doc) == list(pandas_doc), path
        for key in pandas_doc:
            assert_same_report(engine_doc[key], pandas_doc[key], f"{path}.{key}")
    elif isinstance(pandas_doc, list):
        assert isinstance(engine_doc, list) and len(engine_doc) == len(pandas_doc), path
        for i, (a, b) in enumerate(zip(engine_doc, pandas_doc)):
            assert_same_report(a, b, f"{path}[{i}]")
    elif isinstance(pandas_doc, float) and not isinstance(pandas_doc, bool):
        assert isinstance(engine_doc, (int, float)), path
        assert float(engine_doc).hex() == pandas_doc.hex(), (path, engine_doc, pandas_doc)
    else:
        assert engine_doc == pandas_doc, (path, engine_doc, pandas_doc)


# The seven columns every runs file must have (steps and finished_at are optional).
REQUIRED_HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd"

EDGE_ROWS = [
    # agent 'floor': completed runs, none successful; one unknown outcome
    *[f"f{i},floor,t1,completed,false,{900 + i * 10},0.004,3,2026-07-01T00:{i:02d}:00Z" for i in range(6)],
    "f9,floor,t1,completed,,950,0.004,3,2026-07-01T00:30:00Z",
    # agent 'few': 3 completed (neutral consistency), a failed and a timeout with empty latency
    "w1,few,t1,completed,true,1500,0.02,,2026-07-02T00:00:00Z",
    "w2,few,t1,completed,false,2500,0.03,,2026-07-02T00:01:00Z",
    "w3,few,t2,completed,true,,,,2026-07-02T00:02:00Z",
    "w4,few,t2,failed,,,,,2026-07-02T00:03:00Z",
    "w5,few,t2,timeout,false,,,,",
    # agent 'infra': only failed/timeout runs (unranked), plus non-terminal rows
    "i1,infra,t1,failed,false,100,0.001,1,2026-07-03T00:00:00Z",
    "i2,infra,t1,timeout,,,,,2026-07-03T00:01:00Z",
    "i3,infra,t1,queued,,,,,",
    "i4,infra,t1,cancelled,true,5,0.5,0,2026-07-03T00:02:00Z",
    # agent 'zero-steps': steps all 0 (tool axis null), clamps beyond the anchors
    *[f"z{i},zero-steps,t{i % 2},completed,{'true' if i % 3 else 'false'},{20000 if i % 2 else 100},"
      f"{0.5 if i % 2 else 0.0001},0,2026-07-04T00:00:{i:02d}Z" for i in range(8)],
    # agent 'ties': equal timestamps broken by run_id descending as text
    *[f"r{i},ties,t1,completed,{'true' if i % 2 else 'false'},{1000 + i},0.01,{i},2026-07-05T00:00:00Z"
      for i in range(12)],
    # agent 'minus-zero': '-0' is zero (never a -0.0 in the report); each median's middle value is a -0
    "m1,minus-zero,t1,completed,true,-0.0,-0,-0,2026-07-06T00:00:00Z",
    "m2,minus-zero,t1,completed,true,-0,-0.0,-0,2026-07-06T00:01:00Z",
    "m3,minus-zero,t1,completed,false,-0.0,-0.0,-0,2026-07-06T00:02:00Z",
]
# The engines' edge-case file: every engine must give the pandas engine's report on it, to the bit.
EDGE_CSV = (REQUIRED_HEADER + ",steps,finished_at\n" + "\n".join(EDGE_ROWS) + "\n")

# Latencies far below a millisecond's smallest sensible value, whose squared deviations fall below the smallest
# double: 'tiny' (hand-worked in tests/test_headline.py: consistency 1/9, score 80.67), 'subnormal' (latencies
# of a few units of the smallest double), 'huge' (scaled the other way), and 'plain' beside them.
TINY_LATENCY_CSV = (REQUIRED_HEADER + ",steps,finished_at\n" + "\n".join(
    f"{row},1,2026-07-01T00:00:{i:02d}Z" for i, row in enumerate(
        [f"t{i},tiny,t1,completed,true,1e-200,0.01" for i in range(4)] + ["t4,tiny,t1,completed,true,5e-200,0.01"]
        + [f"s{i},subnormal,t1,completed,true,{v},0.01" for i, v in enumerate(["5e-324", "1e-323", "5e-324",
                                                                              "2e-323", "1.5e-323", "1.5e-323"])]
        + [f"h{i},huge,t1,completed,{'true' if i % 2 else 'false'},{v},0.02" for i, v in enumerate(
            ["1e300", "3e300", "2e300", "1e300", "1.5e300"])]
        + [f"p{i},plain,t1,completed,true,{1000 + 100 * i},0.01" for i in range(5)])) + "\n")


def write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    """Run records as a typed Parquet file (booleans, doubles, integer steps, text times)."""
    table = pa.Table.from_pylist(rows, schema=pa.schema([
        ("run_id", pa.string()), ("agent_id", pa.string()), ("task_id", pa.string()), ("status", pa.string()),
        ("success", pa.bool_()), ("latency_ms", pa.float64()), ("cost_usd", pa.float64()),
        ("steps", pa.int64()), ("finished_at", pa.string())]))
    pq.write_table(table, path)


# Harness result files in their published formats (issue 23).


def tau2_results(sims: list[tuple[str, str, float | None, float | None]], num_trials: int,
                 llm: str = "xai/grok-3") -> dict:
    """A tau2-bench Results object; each simulation is (task_id, termination_reason, reward, agent_cost)."""
    simulations = []
    for i, (task, reason, reward, cost) in enumerate(sims):
        simulations.append({
            "id": f"sim-{i}", "task_id": task, "trial": i, "seed": 300 + i,
            "start_time": "2025-10-06T06:23:33.000000", "end_time": "2025-10-06T06:24:03.000000",
            "duration": 1.023, "termination_reason": reason, "agent_cost": cost, "user_cost": 0.5,
            "reward_info": None if reward is None else {"reward": reward}, "messages": [],
        })
    return {"timestamp": "2025-10-06T06:22:46", "tasks": [{"id": t} for t in sorted({s[0] for s in sims})],
            "info": {"num_trials": num_trials, "agent_info": {"llm": llm}, "user_info": {"llm": llm},
                     "environment_info": {"domain_name": "airline"}},
            "simulations": simulations}


def _pass_at_k(n: int, c: int, k: int) -> float:
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def terminal_bench_run(folder: Path, run: str, trials: list[tuple[str, bool | None, str]],
                       model: str | None = "anthropic/claude-x") -> Path:
    """A terminal-bench run folder (results.json + run_metadata.json); each trial is (task_id, is_resolved,
    failure_mode). The file's computed fields (accuracy, pass_at_k, n_resolved) are filled in by
    terminal-bench's own formulas (BenchmarkResults in terminal_bench/harness/models.py)."""
    folder = folder / run
    folder.mkdir(parents=True)
    results = []
    for j, (task, resolved, mode) in enumerate(trials):
        results.append({
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{run}/{task}/{j}")), "trial_name": f"{task}.1-of-1.{run}",
            "task_id": task, "instruction": "do it", "is_resolved": resolved, "failure_mode": mode,
            "parser_results": None, "recording_path": None, "total_input_tokens": 1000 * (j + 1),
            "total_output_tokens": 200, "trial_started_at": "2025-07-01T10:00:00.000000+00:00",
            "trial_ended_at": f"2025-07-01T10:00:0{j % 10}.023000+00:00",
        })
    per_task: dict[str, list[int]] = defaultdict(list)
    for r in results:
        per_task[r["task_id"]].append(1 if r["is_resolved"] else 0)
    fewest = min(len(v) for v in per_task.values())
    # BenchmarkResults.pass_at_k's k values (terminal-bench 0.2.18): powers of two from 2, then 5 and 10
    k_values = sorted({2**i for i in range(1, int(np.log2(fewest)) + 1)}) + [k for k in (5, 10) if fewest >= k]
    resolved = sum(1 for r in results if r["is_resolved"])
    doc = {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, run)), "results": results,
           "pass_at_k": {str(k): float(np.mean([_pass_at_k(len(v), sum(v), k) for v in per_task.values()
                                                if len(v) >= k])) for k in k_values},
           "n_resolved": resolved, "n_unresolved": len(results) - resolved,
           "resolved_ids": [r["task_id"] for r in results if r["is_resolved"]],
           "unresolved_ids": [r["task_id"] for r in results if not r["is_resolved"]],
           "accuracy": resolved / len(results)}
    (folder / "results.json").write_text(json.dumps(doc, indent=1))
    if model is not None:
        (folder / "run_metadata.json").write_text(json.dumps({"run_id": run, "agent_name": "terminus",
                                                              "model_name": model}))
    return folder / "results.json"


def run_inspect(task: Any, outputs: Any, log_dir: Path, **options: Any) -> Path:
    """Run an Inspect task on mockllm/model (offline; ``outputs`` is its custom_outputs) and return the log's path."""
    import warnings

    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    with warnings.catch_warnings():  # inspect_ai's own use of a deprecated tenacity argument
        warnings.simplefilter("ignore", DeprecationWarning)
        [log] = inspect_eval(task, model=model, fail_on_error=False, log_dir=str(log_dir), display="none", **options)
    assert log.status == "success"
    return Path(log.location)


# --------------------------------------------------------------------------- the sample with an agent made worse

def quarter_of_successes_lost(path: Path, agent: str = "steady-pro") -> Path:
    """The sample with every fourth successful run of ``agent`` turned into a failure, written to ``path``."""
    import pandas as pd

    raw = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    won = raw.index[(raw["agent_id"] == agent) & (raw["success"] == "true")]
    raw.loc[won[::4], "success"] = "false"
    raw.to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- the CLI, in this process

# A fresh interpreter's warning filters (what `python -m scoring` starts with): a warning the command raises is
# printed on its stderr, as in a subprocess, and not recorded by pytest or turned into an error by pytest.ini.
_FRESH_FILTERS = [("default", None, DeprecationWarning, "__main__", 0), ("ignore", None, DeprecationWarning, None, 0),
                  ("ignore", None, PendingDeprecationWarning, None, 0), ("ignore", None, ImportWarning, None, 0),
                  ("ignore", None, ResourceWarning, None, 0)]


def scoring_cli(*args: str | Path, cwd: Path | None = None, text: bool = True) -> Any:
    """``python -m scoring ARGS`` through ``scoring.cli.commands.main`` in this process, as a
    ``subprocess.CompletedProcess`` (returncode, stdout, stderr; bytes unless ``text``).

    For tests about what a command prints and returns, not about the process boundary: the interpreter's
    start-up (about 1.5 s of imports) is paid once, not per call. The untrusted work still runs in main's
    own limited worker. An exception main lets escape is raised here (a subprocess would print a traceback).
    Tests about the process itself (the imports it pays for, its environment, its warnings turned into
    errors by ``-W``) keep a real subprocess.
    """
    import contextlib
    import io
    import subprocess
    import sys
    import warnings

    from scoring.cli.commands import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(warnings.catch_warnings())
        warnings.filters[:] = list(_FRESH_FILTERS)
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help, or a usage error already printed on stderr
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
    stdout, stderr = out.getvalue(), err.getvalue()
    if text:
        return subprocess.CompletedProcess([sys.executable, "-m", "scoring", *argv], code, stdout, stderr)
    return subprocess.CompletedProcess([sys.executable, "-m", "scoring", *argv], code, stdout.encode(),
                                       stderr.encode())


def many_problems_csv(path: Path) -> Path:
    """900 runs: 300 share five run_ids (295 repeat an earlier one), 225 have a negative latency (73 of them also
    repeat an id: rows 0 and 12 are their ids' first), 18 an unknown status (6 of them repeat an id): more of each
    than a refusal lists one by one."""
    lines = []
    for i in range(900):
        rid = f"dup{i % 5}" if i % 3 == 0 else f"r{i}"
        status = "bogus" if i % 50 == 7 else "completed"
        latency = -5 if i % 4 == 0 else 100 + i
        lines.append(f"{rid},a{i % 4},t{i % 7},{status},true,{latency},0.01\n")
    path.write_text(REQUIRED_HEADER + "\n" + "".join(lines))
    return path


HOSTILE_SPAN_CSV = (  # 2 KB: runs at year 1, year 9999 and between; before, 3.65 million days (7.1 GB in the server)
    "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,finished_at\n"
    + "".join(f"r{a}{t}{k},{a},t{t},completed,{'true' if k % 2 else 'false'},{100 + k},0.01,{stamp}\n"
              for a in "ab" for t in range(3) for k, stamp in enumerate(
                  ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "1970-01-01T00:00:00Z",
                   "2026-01-01T00:00:00Z"])))


def xxhash_like(expr):
    return f"CAST(hash({expr}) >> 1 AS BIGINT)"  # a BIGINT hash as Spark's xxhash64 is


@contextlib.contextmanager
def spark_plan(on=True, hash64=xxhash_like):
    """DuckDB with Spark's choices (Dialect flags): sums as limbs in a pass per agent, the counts per task with the
    spread, a boolean column per status, the spread joined on the agents' hashes (``hash64``)."""
    from scoring.engines.sql_engine import DUCKDB

    choices = {"limb_sums": True, "status_flags": True, "hashed_join": True, "hash64": hash64} if on else {}
    saved = dict(vars(DUCKDB))
    try:
        vars(DUCKDB).update(choices)
        yield
    finally:
        vars(DUCKDB).clear()
        vars(DUCKDB).update(saved)
