"""Benchmark: loading and scoring 1,000,000 runs over 500 agents.

Prints medians (these machines are shared and noisy) and the ratio of the full
report to a plain ``groupby("agent_id")[["latency_ms", "cost_usd"]].mean()`` on
the same frame in the same process, plus the report's peak traced memory
against the frame's size. Nothing here is asserted: figures go in the README.

    python bench/bench_report.py [--runs 1000000] [--agents 500] [--repeat 5]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring import load_runs, score_runs


def generate(n_runs: int, n_agents: int, seed: int = 7) -> pd.DataFrame:
    """A synthetic runs table in SPEC 1 form (text-free of problems), vectorized."""
    rng = np.random.default_rng(seed)
    agent = rng.integers(0, n_agents, n_runs)
    status = rng.choice(np.array(["completed", "failed", "timeout", "cancelled", "running"]), n_runs,
                        p=[0.80, 0.10, 0.06, 0.02, 0.02])
    skill = rng.uniform(0.1, 0.95, n_agents)[agent]
    success = pd.arrays.BooleanArray(rng.random(n_runs) < skill, rng.random(n_runs) < 0.03)
    latency = np.where(rng.random(n_runs) < 0.02, np.nan, rng.lognormal(7.5, 0.6, n_runs).round(1))
    cost = rng.lognormal(-4.0, 0.8, n_runs).round(5)
    steps = rng.integers(0, 30, n_runs)
    start = np.datetime64("2026-06-01T00:00:00", "s")
    finished = (start + rng.integers(0, 60 * 86400, n_runs).astype("timedelta64[s]")).astype(str)
    return pd.DataFrame({
        "run_id": np.char.add("run-", np.arange(n_runs).astype(str)),
        "agent_id": np.char.add("agent-", agent.astype(str)),
        "task_id": np.char.add("task-", rng.integers(0, 200, n_runs).astype(str)),
        "status": status,
        "success": success,
        "latency_ms": latency,
        "cost_usd": cost,
        "steps": steps,
        "finished_at": np.char.add(finished, "Z"),
    })


T = TypeVar("T")


def median_time(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    times: list[float] = []
    result = fn()  # a first run, not timed: warms caches
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--agents", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-app", action="store_true", help="skip the radar-page rerun timing")
    parser.add_argument("--bootstrap-runs", type=int, default=100_000,
                        help="runs in the frame the bootstrap is timed on (default 100,000)")
    args = parser.parse_args()

    raw = generate(args.runs, args.agents)
    with tempfile.TemporaryDirectory() as tmp:
        csv_path, parquet_path = Path(tmp) / "runs.csv", Path(tmp) / "runs.parquet"
        raw.to_csv(csv_path, index=False)
        raw.to_parquet(parquet_path, index=False)
        print(f"{args.runs:,} runs, {args.agents} agents; CSV {csv_path.stat().st_size / 1e6:.0f} MB, "
              f"Parquet {parquet_path.stat().st_size / 1e6:.0f} MB")
        load_repeat = max(1, args.repeat // 2)
        t_csv, _ = median_time(lambda: load_runs(csv_path), load_repeat)
        t_parquet, loaded = median_time(lambda: load_runs(parquet_path), load_repeat)
        parquet_bytes = parquet_path.read_bytes()
    runs = loaded.runs
    print(f"load CSV:      median {t_csv:.2f} s  ({load_repeat} runs)")
    print(f"load Parquet:  median {t_parquet:.2f} s  ({load_repeat} runs)")

    t_base, _ = median_time(lambda: runs.groupby("agent_id")[["latency_ms", "cost_usd"]].mean(), args.repeat)
    t_report, report = median_time(lambda: score_runs(runs), args.repeat)
    t_json, _ = median_time(report.to_json_text, args.repeat)
    print(f"baseline groupby mean: median {t_base * 1000:.1f} ms")
    print(f"full report:           median {t_report * 1000:.1f} ms  (+ JSON text {t_json * 1000:.1f} ms)")
    print(f"ratio report / baseline: {t_report / t_base:.2f}x  (target < 5x)")

    frame_bytes = runs.memory_usage(deep=True).sum()
    tracemalloc.start()
    score_runs(runs)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"frame size {frame_bytes / 1e6:.0f} MB; report peak traced memory {peak / 1e6:.0f} MB "
          f"= {peak / frame_bytes:.2f}x the frame  (target < 3x)")

    weights = {"correctness": 0.4, "latency": 0.15, "cost": 0.15, "tool_efficiency": 0.1, "robustness": 0.2}
    t_profile, _ = median_time(lambda: [a.radar.profile(weights) for a in report.agents], args.repeat)
    print(f"weight change (recombine {len(report.agents)} profiles): median {t_profile * 1000:.1f} ms")
    bench_bootstrap(args.bootstrap_runs, args.agents)
    if not args.skip_app:
        bench_radar_page(parquet_bytes, args.repeat)


def bench_bootstrap(n_runs: int, n_agents: int) -> None:
    """Bootstrap intervals (1,000 replicates) for every agent: headline and pass^1/3/5."""
    from scoring import validate_runs
    from scoring.analysis.uncertainty import bootstrap_intervals

    runs = validate_runs(generate(n_runs, n_agents, seed=11)).runs
    report = score_runs(runs)
    t0 = time.perf_counter()
    bootstrap_intervals(runs, report, replicates=1000)
    print(f"bootstrap intervals, {n_agents} agents x 1,000 replicates over {n_runs:,} runs "
          f"({n_runs // n_agents} per agent): {time.perf_counter() - t0:.1f} s")


def bench_radar_page(data: bytes, repeat: int) -> None:
    """Rerun time of the radar page after a weight-slider change, with the runs uploaded (AppTest)."""
    import hashlib

    from streamlit.testing.v1 import AppTest

    from explorer.data import Dataset

    root = Path(__file__).resolve().parents[1]
    at = AppTest.from_file(str(root / "views" / "radar.py"), default_timeout=600)
    at.session_state["dataset"] = Dataset("bench.parquet", hashlib.sha256(data).hexdigest(), "upload")
    at.session_state["upload_file"] = io.BytesIO(data)  # as explorer.data.use_upload keeps the uploader's file
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    assert not at.exception, at.exception
    times = []
    for i in range(repeat):
        t0 = time.perf_counter()
        at.slider(key="weight_correctness").set_value(30 + 10 * (i % 5)).run()
        times.append(time.perf_counter() - t0)
    assert not at.exception, at.exception
    print(f"radar page, 1st run (load + score, then cached): {first:.2f} s")
    print(f"radar page rerun after a weight-slider change: median {statistics.median(times):.3f} s "
          f"over {repeat} changes  (target < 0.5 s)")


if __name__ == "__main__":
    main()
