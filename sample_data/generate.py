"""Synthetic sample runs for the Scoring Methodology Explorer (all data is made up).

Ten agents, each built to show one behaviour of the scoring methodology:

- swift-lite: fast (~600-900 ms) and cheap (~$0.002) but flaky — ~55% success, close to a coin flip on every task.
- deep-thinker: slow (~6-8 s) and accurate — ~90% success at ~$0.03 a run; fails mostly on the hardest tasks.
- premium-max: expensive (~$0.12-0.18 a run) with good success (~80%); joined mid-June.
- null-pointer: many completed runs, none successful (some outcomes unknown), always 0 steps — zero-success
  floor and no tool axis.
- newcomer: only 3 completed runs plus 2 failed ones in the last days — neutral consistency, no pass^k.
- blackbox-api: a good agent behind an opaque endpoint that never reports steps — no tool-efficiency axis.
- old-reliable: ~400 runs, ~90% success and fast for weeks, then its newest ~100 runs degrade (~40%, slower)
  — radar window vs all-completed headline.
- crashy-runner: decent agent on shaky infrastructure — failed and timeout rows (outcome and latency often
  missing) mixed into normal runs.
- steady-pro: well-rounded — good success, low cost, few steps and very consistent latency.
- two-speed: bimodal latency (~500 ms fast path or ~9 s slow path) — low consistency factor.

Across agents a few completed runs have an unknown outcome (empty ``success``) or a
missing latency/cost, and a handful of queued, running and cancelled runs are kept
(non-terminal: scored nowhere; queued and running rows have no ``finished_at``).

Runs are spread over 2026-06-01 .. 2026-07-12 (UTC) on 40 tasks (``task-01`` ..
``task-40``) with per-task difficulty. The output is deterministic: every random
draw comes from ``numpy.random.default_rng`` seeded with a fixed seed and the
agent's position, values are written with fixed formats, and rows are sorted by
``finished_at`` (empty last) then ``run_id``. ``run_id`` numbers follow that order.

Usage: ``python sample_data/generate.py [--out PATH]`` (default: ``runs.csv`` beside
this script).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

import numpy as np

SEED = 20260712
COLUMNS = ("run_id", "agent_id", "task_id", "status", "success", "latency_ms", "cost_usd", "steps", "finished_at")
N_TASKS = 40
START = datetime(2026, 6, 1, tzinfo=UTC)
END = datetime(2026, 7, 12, 23, 59, 59, tzinfo=UTC)
DEFAULT_OUT = Path(__file__).resolve().parent / "runs.csv"


def _profiles_from_doc(doc: str) -> dict[str, str]:
    """The ``- agent-id: description`` lines of the module docstring, in order."""
    profiles: dict[str, str] = {}
    for line in doc.splitlines():
        if line.startswith("- ") and ": " in line:
            agent_id, _, text = line[2:].partition(": ")
            profiles[agent_id.strip()] = text.strip()
    return profiles


#: agent_id -> one-line description of its profile (shown in the app).
PROFILES: dict[str, str] = _profiles_from_doc(__doc__ or "")


class Run(NamedTuple):
    agent_id: str
    task_id: str
    status: str
    success: bool | None
    latency_ms: float | None
    cost_usd: float | None
    steps: int | None
    finished_at: datetime | None
    order: int  # position within the agent, a deterministic tie-break


# --------------------------------------------------------------------------- helpers

def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _task_difficulty() -> np.ndarray:
    """Difficulty in (0, 1) per task; 0.5 is average."""
    return np.random.default_rng([SEED, 0]).beta(2.0, 2.0, size=N_TASKS)


def _task_id(index: int) -> str:
    return f"task-{index + 1:02d}"


def _times(rng: np.random.Generator, n: int, start: datetime, end: datetime) -> list[datetime]:
    """n sorted whole-second timestamps, uniformly spread over [start, end]."""
    span = int((end - start).total_seconds())
    offsets = np.sort(rng.integers(0, span + 1, size=n))
    return [start + timedelta(seconds=int(s)) for s in offsets]


def _success_probs(rng: np.random.Generator, difficulty: np.ndarray, base: float,
                   sensitivity: float, noise: float) -> np.ndarray:
    """Per-task success probability: logit(base) - sensitivity * (difficulty - 0.5) + noise."""
    shift = rng.normal(0.0, noise, size=N_TASKS) if noise > 0 else np.zeros(N_TASKS)
    return np.array([_sigmoid(_logit(base) - sensitivity * (d - 0.5) + s) for d, s in zip(difficulty, shift)])


def _task_subset(rng: np.random.Generator, k: int) -> np.ndarray:
    """k distinct task indices (sorted) the agent is evaluated on."""
    return np.sort(rng.choice(N_TASKS, size=k, replace=False))


def _outcome(rng: np.random.Generator, p: float, unknown: float) -> bool | None:
    """One completed run's outcome: unknown with probability ``unknown``, else success with probability p."""
    u_unknown, u_success = rng.random(), rng.random()  # always two draws, so the stream does not branch
    if u_unknown < unknown:
        return None
    return bool(u_success < p)


def _maybe(rng: np.random.Generator, value: float, missing: float) -> float | None:
    return None if rng.random() < missing else value


def _lognormal(rng: np.random.Generator, median: float, sigma: float) -> float:
    return float(median * math.exp(rng.normal(0.0, sigma)))


def _steps(rng: np.random.Generator, mean: float) -> int:
    return int(1 + rng.poisson(max(mean - 1.0, 0.0)))


# --------------------------------------------------------------------------- agents
# Each builder gets its own generator (seeded with SEED and the agent's position), so
# changing one agent never shifts another agent's draws.

def _standard(rng, difficulty, agent_id, *, n, tasks, base, sensitivity, noise, latency, cost,
              steps_mean, unknown=0.03, missing=0.01, start=START, end=END) -> list[Run]:
    """A plain agent: every run completed; latency/cost are callables of rng."""
    probs = _success_probs(rng, difficulty, base, sensitivity, noise)
    subset = _task_subset(rng, tasks)
    times = _times(rng, n, start, end)
    runs = []
    for i, at in enumerate(times):
        t = int(subset[rng.integers(0, len(subset))])
        success = _outcome(rng, probs[t], unknown)
        lat = _maybe(rng, latency(rng), missing)
        cst = _maybe(rng, cost(rng), missing)
        stp = None if steps_mean is None else _steps(rng, steps_mean)
        runs.append(Run(agent_id, _task_id(t), "completed", success, lat, cst, stp, at, i))
    return runs


def swift_lite(rng, difficulty):
    return _standard(rng, difficulty, "swift-lite", n=400, tasks=32, base=0.55, sensitivity=0.8, noise=0.25,
                     latency=lambda r: float(r.uniform(600, 900)),
                     cost=lambda r: _lognormal(r, 0.002, 0.15), steps_mean=2.5)


def deep_thinker(rng, difficulty):
    return _standard(rng, difficulty, "deep-thinker", n=260, tasks=26, base=0.95, sensitivity=7.0, noise=0.4,
                     latency=lambda r: float(r.uniform(6000, 8000)),
                     cost=lambda r: _lognormal(r, 0.03, 0.12), steps_mean=9.0)


def premium_max(rng, difficulty):
    return _standard(rng, difficulty, "premium-max", n=220, tasks=24, base=0.83, sensitivity=4.0, noise=0.4,
                     latency=lambda r: _lognormal(r, 3200, 0.2),
                     cost=lambda r: float(r.uniform(0.12, 0.18)), steps_mean=6.0,
                     start=datetime(2026, 6, 15, tzinfo=UTC))


def null_pointer(rng, difficulty):
    runs = _standard(rng, difficulty, "null-pointer", n=200, tasks=20, base=0.5, sensitivity=0.0, noise=0.0,
                     latency=lambda r: _lognormal(r, 1100, 0.15),
                     cost=lambda r: _lognormal(r, 0.004, 0.15), steps_mean=None, unknown=0.12,
                     end=datetime(2026, 7, 5, tzinfo=UTC))
    # Never a success: every known outcome is a failure; it never executes a step.
    return [Run(r.agent_id, r.task_id, r.status, None if r.success is None else False,
                r.latency_ms, r.cost_usd, 0, r.finished_at, r.order) for r in runs]


def newcomer(rng, difficulty):
    times = _times(rng, 5, datetime(2026, 7, 9, tzinfo=UTC), END)
    plan = [  # task, status, success, latency, cost, steps
        (3, "completed", True, 2100.0, 0.011, 5),
        (17, "failed", None, None, None, None),
        (22, "completed", False, 2600.0, 0.013, 7),
        (8, "failed", False, 450.0, 0.002, 1),
        (29, "completed", True, 1900.0, 0.010, 4),
    ]
    runs = []
    for i, ((t, status, success, lat, cst, stp), at) in enumerate(zip(plan, times)):
        jitter = float(rng.uniform(0.9, 1.1))
        runs.append(Run("newcomer", _task_id(t), status, success,
                        None if lat is None else lat * jitter, None if cst is None else cst * jitter,
                        stp, at, i))
    return runs


def blackbox_api(rng, difficulty):
    return _standard(rng, difficulty, "blackbox-api", n=300, tasks=30, base=0.8, sensitivity=4.0, noise=0.5,
                     latency=lambda r: _lognormal(r, 2400, 0.25),
                     cost=lambda r: _lognormal(r, 0.015, 0.2), steps_mean=None)


def old_reliable(rng, difficulty, n=400, degraded=100):
    probs_early = _success_probs(rng, difficulty, 0.92, 4.0, 0.3)
    probs_late = _success_probs(rng, difficulty, 0.40, 4.0, 0.3)
    subset = _task_subset(rng, 28)
    times = _times(rng, n, START, END)
    runs = []
    for i, at in enumerate(times):
        late = i >= n - degraded  # the newest `degraded` runs (all terminal) form the radar window
        t = int(subset[rng.integers(0, len(subset))])
        success = _outcome(rng, (probs_late if late else probs_early)[t], 0.03)
        lat = _maybe(rng, _lognormal(rng, 4800 if late else 1300, 0.2), 0.01)
        cst = _maybe(rng, _lognormal(rng, 0.012 if late else 0.007, 0.15), 0.01)
        stp = _steps(rng, 11.0 if late else 5.0)
        runs.append(Run("old-reliable", _task_id(t), "completed", success, lat, cst, stp, at, i))
    return runs


def crashy_runner(rng, difficulty, n=350):
    probs = _success_probs(rng, difficulty, 0.78, 4.0, 0.4)
    subset = _task_subset(rng, 30)
    times = _times(rng, n, START, END)
    runs = []
    for i, at in enumerate(times):
        t = int(subset[rng.integers(0, len(subset))])
        kind, u1, u2, u3 = rng.random(), rng.random(), rng.random(), rng.random()
        if kind < 0.16:  # infrastructure failure: crashed before or while running
            status = "failed"
            success = False if u1 < 0.3 else None
            lat = None if u2 < 0.5 else _lognormal(rng, 900, 0.6)
            cst = None if u3 < 0.5 else _lognormal(rng, 0.002, 0.5)
            stp = None if u2 < 0.5 else int(rng.integers(0, 4))
        elif kind < 0.26:  # hit the 60 s limit
            status = "timeout"
            success = False if u1 < 0.4 else None
            lat = None if u2 < 0.35 else 60000.0
            cst = None if u3 < 0.3 else _lognormal(rng, 0.02, 0.3)
            stp = None if u2 < 0.35 else int(rng.integers(8, 25))
        else:
            status = "completed"
            success = _outcome(rng, probs[t], 0.03)
            lat = _maybe(rng, _lognormal(rng, 2900, 0.3), 0.02)
            cst = _maybe(rng, _lognormal(rng, 0.009, 0.2), 0.02)
            stp = _steps(rng, 6.0)
        runs.append(Run("crashy-runner", _task_id(t), status, success, lat, cst, stp, at, i))
    return runs


def steady_pro(rng, difficulty):
    return _standard(rng, difficulty, "steady-pro", n=350, tasks=30, base=0.88, sensitivity=4.0, noise=0.3,
                     latency=lambda r: float(max(r.normal(1450, 70), 900)),
                     cost=lambda r: _lognormal(r, 0.006, 0.08), steps_mean=4.0)


def two_speed(rng, difficulty, n=300):
    probs = _success_probs(rng, difficulty, 0.75, 4.0, 0.4)
    subset = _task_subset(rng, 28)
    times = _times(rng, n, START, END)
    runs = []
    for i, at in enumerate(times):
        t = int(subset[rng.integers(0, len(subset))])
        success = _outcome(rng, probs[t], 0.03)
        slow = rng.random() < 0.5
        typical = float(max(rng.normal(9000, 500), 6000)) if slow else float(max(rng.normal(500, 60), 250))
        lat = _maybe(rng, typical, 0.01)
        cst = _maybe(rng, _lognormal(rng, 0.02 if slow else 0.004, 0.15), 0.01)
        stp = _steps(rng, 14.0 if slow else 3.0)
        runs.append(Run("two-speed", _task_id(t), "completed", success, lat, cst, stp, at, i))
    return runs


BUILDERS = (swift_lite, deep_thinker, premium_max, null_pointer, newcomer,
            blackbox_api, old_reliable, crashy_runner, steady_pro, two_speed)


def non_terminal(rng) -> list[Run]:
    """A few queued/running (no finished_at yet) and cancelled runs; scored nowhere."""
    rows = [  # agent, status, task
        ("steady-pro", "queued", 5), ("swift-lite", "queued", 12), ("two-speed", "queued", 30),
        ("crashy-runner", "running", 7), ("deep-thinker", "running", 19), ("old-reliable", "running", 2),
        ("swift-lite", "cancelled", 14), ("crashy-runner", "cancelled", 21), ("premium-max", "cancelled", 9),
        ("blackbox-api", "cancelled", 33), ("old-reliable", "cancelled", 26),
    ]
    cancel_times = _times(rng, sum(1 for _, s, _ in rows if s == "cancelled"), START, END)
    runs, k = [], 0
    for i, (agent, status, t) in enumerate(rows):
        if status == "cancelled":
            lat = float(rng.uniform(100, 4000))
            runs.append(Run(agent, _task_id(t), status, None, lat, None, None, cancel_times[k], 10_000 + i))
            k += 1
        else:
            runs.append(Run(agent, _task_id(t), status, None, None, None, None, None, 10_000 + i))
    return runs


# --------------------------------------------------------------------------- output

def build_runs() -> list[Run]:
    difficulty = _task_difficulty()
    runs: list[Run] = []
    for position, builder in enumerate(BUILDERS, start=1):
        runs.extend(builder(np.random.default_rng([SEED, position]), difficulty))
    runs.extend(non_terminal(np.random.default_rng([SEED, len(BUILDERS) + 1])))
    agent_rank = {builder_agent: i for i, builder_agent in enumerate(PROFILES)}
    # Chronological, empty finished_at last; ties broken by agent position then the agent's own order.
    runs.sort(key=lambda r: (r.finished_at is None, r.finished_at or START, agent_rank[r.agent_id], r.order))
    return runs


def _fmt_bool(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


def _fmt_latency(value: float | None) -> str:
    return "" if value is None else str(round(value))


def _fmt_cost(value: float | None) -> str:
    return "" if value is None else f"{value:.5f}"


def _fmt_steps(value: int | None) -> str:
    return "" if value is None else str(int(value))


def _fmt_time(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_csv(runs: list[Run], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(COLUMNS)
        for number, r in enumerate(runs, start=1):
            writer.writerow([f"run-{number:06d}", r.agent_id, r.task_id, r.status, _fmt_bool(r.success),
                             _fmt_latency(r.latency_ms), _fmt_cost(r.cost_usd), _fmt_steps(r.steps),
                             _fmt_time(r.finished_at)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the deterministic sample runs CSV.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output path (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if list(PROFILES) != [b.__name__.replace("_", "-") for b in BUILDERS]:
        raise SystemExit("generate.py: the docstring's agent list and BUILDERS disagree")
    runs = build_runs()
    write_csv(runs, args.out)
    print(f"wrote {len(runs)} runs for {len(PROFILES)} agents to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
