"""Each harness's own reading of its file (SPEC 6 ``agents[i].harness``), by its published rules.

An importer keeps, per source record, what its harness's metrics read (:class:`Trial`); after the
files are combined, :func:`harness_readings` pools each agent's trials and computes the numbers the
harness itself prints for them. These are readings beside the canonical score, never part of it:

- **tau2-bench** (``tau2.metrics.agent_metrics.compute_metrics``): simulations other than
  ``infrastructure_error``; success when the reward is within 1e-6 of 1 (a missing reward is no
  success); ``pass_hat_k`` for k = 1 to the smallest of ``info.num_trials`` and the fewest
  simulations of any task, averaged over tasks; ``avg_agent_cost`` the mean recorded ``agent_cost``.
- **tau-bench** (``tau_bench.run.display_metrics``): every result; the mean reward; pass^k for
  k = 1 to the number of distinct trial numbers, C(c, k) / C(trials, k) averaged over tasks.
- **Inspect AI** (``accuracy()`` after the default ``mean`` epoch reducer): per sample, the mean of
  ``value_to_float`` over its scored epochs, then the mean over samples; errored samples carry no
  score and are not counted. No pass^k (Inspect computes none).
- **terminal-bench** (``BenchmarkResults.accuracy`` and ``pass_at_k``, terminal-bench 0.2.18): resolved /
  trials, a null ``is_resolved`` unresolved; its pass@k for the k it prints (2, 4, 8, ... up to the fewest
  attempts of any task, then 5 and 10 when every task has that many; none for one attempt), and pass^k
  (tau2's estimator, explorer-defined: terminal-bench prints none) over the same repeated runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb, fsum

import numpy as np

HARNESS_NAMES = {"tau2": "tau2-bench", "tau-bench": "tau-bench", "inspect": "inspect",
                 "terminal-bench": "terminal-bench"}


@dataclass(frozen=True)
class Trial:
    """One source record as its harness's metrics read it.

    ``counted``: the harness's metrics include it (tau2 drops infrastructure errors, Inspect unscored
    samples). ``value``: the harness's per-record value (a reward, Inspect's ``value_to_float``, 1/0
    for resolved). ``success``: the harness's success test on it. ``trial``: the trial/attempt/epoch
    number when the harness uses it. ``sample``: Inspect's sample id (its epochs are reduced first).
    """

    agent_id: str
    task_id: str
    counted: bool
    success: bool
    value: float | None = None
    cost_usd: float | None = None
    trial: int | None = None
    expected_trials: int | None = None  # tau2's info.num_trials


@dataclass(frozen=True)
class HarnessReading:
    """An agent's numbers as its harness computes them (SPEC 6 ``harness``)."""

    name: str
    success_rate: float | None
    pass_k: dict[int, float]
    avg_cost_usd: float | None
    runs: int
    detail: dict[str, object] = field(default_factory=dict)  # e.g. avg_reward, pass_at_k, the scorer

    def to_json(self) -> dict:
        out: dict[str, object] = {"name": self.name, "success_rate": self.success_rate,
                                  "pass_k": {str(k): v for k, v in self.pass_k.items()},
                                  "avg_cost_usd": self.avg_cost_usd, "runs": self.runs}
        out.update(self.detail)
        return out


def pass_hat(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k), exactly rounded (tau2-bench's ``pass_hat_k``; 0 when c < k).

    Examples
    --------
    >>> pass_hat(4, 2, 2)
    0.16666666666666666
    """
    return float(Fraction(comb(c, k), comb(n, k)))


def pass_at(n: int, c: int, k: int) -> float:
    """terminal-bench's pass@k estimator, 1 - C(n - c, k) / C(n, k), in its own product form.

    Examples
    --------
    >>> round(pass_at(3, 1, 2), 12)  # 1 - C(2, 2) / C(3, 2)
    0.666666666667
    """
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def terminal_bench_k_values(min_attempts: int) -> list[int]:
    """The k terminal-bench prints pass@k for (``BenchmarkResults.pass_at_k``): the powers of two from 2 up to
    the fewest attempts of any task, then 5 and 10 when every task has that many, in that order.

    Examples
    --------
    >>> terminal_bench_k_values(1), terminal_bench_k_values(3), terminal_bench_k_values(10)
    ([], [2], [2, 4, 8, 5, 10])
    """
    if min_attempts < 1:
        return []
    k_values = sorted({2**i for i in range(1, int(np.log2(min_attempts)) + 1)})
    return k_values + [k for k in (5, 10) if min_attempts >= k]


def _mean(values: Sequence[float]) -> float | None:
    return fsum(values) / len(values) if values else None


def _per_task(trials: Iterable[Trial]) -> dict[str, tuple[int, int]]:
    n: dict[str, int] = defaultdict(int)
    c: dict[str, int] = defaultdict(int)
    for t in trials:
        n[t.task_id] += 1
        c[t.task_id] += t.success
    return {task: (n[task], c[task]) for task in n}


def tau2_reading(trials: Sequence[Trial]) -> HarnessReading:
    counted = [t for t in trials if t.counted]
    tasks = _per_task(counted)
    pass_k: dict[int, float] = {}
    if tasks:
        expected = max((t.expected_trials for t in counted if t.expected_trials), default=None)
        fewest = min(n for n, _ in tasks.values())
        max_k = fewest if expected is None else min(expected, fewest)
        pass_k = {k: fsum(pass_hat(n, c, k) for n, c in tasks.values()) / len(tasks) for k in range(1, max_k + 1)}
    rewards = [t.value for t in counted if t.value is not None]
    costs = [t.cost_usd for t in counted if t.cost_usd is not None]
    return HarnessReading("tau2-bench", _mean([float(t.success) for t in counted]), pass_k, _mean(costs),
                          len(counted), {"avg_reward": _mean(rewards)})


def taubench_reading(trials: Sequence[Trial]) -> HarnessReading:
    tasks = _per_task(trials)
    num_trials = len({t.trial for t in trials})
    pass_k = {k: fsum(pass_hat(num_trials, c, k) for _, c in tasks.values()) / len(tasks)
              for k in range(1, num_trials + 1)} if tasks else {}
    rewards = [t.value for t in trials if t.value is not None]
    return HarnessReading("tau-bench", _mean([float(t.success) for t in trials]), pass_k, None, len(trials),
                          {"avg_reward": _mean(rewards)})


def inspect_reading(trials: Sequence[Trial], scorer: str | None) -> HarnessReading:
    scored = [t for t in trials if t.counted and t.value is not None]
    per_sample: dict[str, list[float]] = defaultdict(list)
    for t in scored:
        per_sample[t.task_id].append(float(t.value))  # type: ignore[arg-type]
    accuracy = _mean([fsum(v) / len(v) for v in per_sample.values()]) if scorer is not None else None
    return HarnessReading("inspect", accuracy if per_sample else None, {}, None, len(scored), {"scorer": scorer})


def terminal_bench_reading(trials: Sequence[Trial]) -> HarnessReading:
    tasks = _per_task(trials)
    fewest = min((n for n, _ in tasks.values()), default=0)
    pass_k = {k: fsum(pass_hat(n, c, k) for n, c in tasks.values()) / len(tasks) for k in range(1, fewest + 1)}
    pass_at_k = {str(k): float(np.mean([pass_at(n, c, k) for n, c in tasks.values() if n >= k]))
                 for k in terminal_bench_k_values(fewest)}
    accuracy = sum(t.success for t in trials) / len(trials) if trials else None
    return HarnessReading("terminal-bench", accuracy, pass_k, None, len(trials), {"pass_at_k": pass_at_k})


def harness_readings(groups: Iterable[tuple[str, str, str | None, Sequence[Trial]]]) -> dict[str, HarnessReading]:
    """Per agent, its harness's reading: ``groups`` yields (kind, agent_id, Inspect scorer, trials)."""
    pooled: dict[tuple[str, str], list[Trial]] = defaultdict(list)
    scorers: dict[tuple[str, str], str | None] = {}
    for kind, agent, scorer, trials in groups:
        pooled[(kind, agent)].extend(trials)
        scorers[(kind, agent)] = scorer
    out: dict[str, HarnessReading] = {}
    for (kind, agent), trials in sorted(pooled.items()):
        if kind == "tau2":
            out[agent] = tau2_reading(trials)
        elif kind == "tau-bench":
            out[agent] = taubench_reading(trials)
        elif kind == "inspect":
            out[agent] = inspect_reading(trials, scorers[(kind, agent)])
        elif kind == "terminal-bench":
            out[agent] = terminal_bench_reading(trials)
    return out
