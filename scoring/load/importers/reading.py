"""Each harness's own reading of its file (SPEC 6 ``agents[i].harness``), by its published rules.

An importer keeps, per source record, what its harness's metrics read (:class:`Trial`); after the
files are combined, :func:`harness_readings` pools each agent's trials and computes the numbers the
harness itself prints for them. These are readings beside the canonical score, never part of it:

- **tau2-bench** (``tau2.metrics.agent_metrics.compute_metrics``): simulations other than
  ``infrastructure_error``; success when the reward is within 1e-6 of 1 (a missing reward is no
  success); ``pass_hat_k`` for k = 1 to the smallest of ``info.num_trials`` and the fewest
  simulations of any task, averaged over tasks; ``avg_agent_cost`` the mean recorded ``agent_cost``.
- **tau-bench** (``tau_bench.run.display_metrics``): every result; the mean reward; pass^k for
  k = 1 to the number of distinct trial numbers, C(c, k) / C(trials, k) averaged over tasks. Each results
  file is one tau-bench run (trials numbered from 0): pooled files add their trial counts per task.
- **Inspect AI** (``accuracy()`` after the log's first epoch reducer, ``eval.config.epochs_reducer``;
  ``mean`` when the log names none): per sample, its scored epochs reduced by Inspect's rule for that
  reducer (``inspect_ai/scorer/_reducer/reducer.py``: ``mean``, ``median``, ``mode``, ``majority``, ``max``,
  ``at_least_k``, ``pass_at_k``, ``pass_k_k``, each at its default threshold 1.0; an empty reducer list
  scores every epoch alone), then the mean of ``value_to_float`` over the samples whose reduced score is
  not NaN. Errored samples carry no score and are not counted. Any other reducer (a custom one, or
  ``collect``) is not reproduced: the reading is then the mean, and says so (``reducer_note``). No pass^k
  (Inspect computes none).
- **terminal-bench** (``BenchmarkResults.accuracy`` and ``pass_at_k``, terminal-bench 0.2.18): resolved /
  trials, a null ``is_resolved`` unresolved; its pass@k for the k it prints (2, 4, 8, ... up to the fewest
  attempts of any task, then 5 and 10 when every task has that many; none for one attempt), in ``detail``.
  No pass^k: terminal-bench computes none (pass@k is at least one success in k attempts, pass^k all k). The
  reading held pass^k by tau2's estimator until 2026-12-05, shown where the harness's own numbers are: a number
  terminal-bench never printed, beside the 75 % pass@5 it did print.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb, fsum, isfinite, isnan

import numpy as np

HARNESS_NAMES = {"tau2": "tau2-bench", "tau-bench": "tau-bench", "inspect": "Inspect",
                 "terminal-bench": "terminal-bench"}
# What each harness's own success figure reads, in words, where the published rule reads completed runs only: the
# reason the two differ (the notes beside a leaderboard say it). Inspect's is its accuracy, a mean over samples.
HARNESS_RULES = {
    "tau2-bench": "reads every simulation but an infrastructure error, one that ended in an error or at its step "
                  "limit as a failure (reward 0)",
    "tau-bench": "reads every trial, an errored one as a failure (reward 0)",
    "Inspect": "reads scored epochs only, reduces each sample's epochs to one score by its epoch reducer, counts "
               "partial credit at its value and averages over samples",
    "terminal-bench": "reads every trial, an unresolved or unparsed one as a failure",
}


@dataclass(frozen=True)
class Trial:
    """One source record as its harness's metrics read it.

    ``counted``: the harness's metrics include it (tau2 drops infrastructure errors, Inspect unscored
    samples). ``value``: the harness's per-record value (a reward, Inspect's ``value_to_float``, 1/0
    for resolved). ``success``: the harness's success test on it. ``trial``: the trial/attempt/epoch
    number when the harness uses it. ``raw``: Inspect's score value as its counting reducers (``mode``,
    ``majority``) compare it (a hashable scalar; the float otherwise).
    """

    agent_id: str
    task_id: str
    counted: bool
    success: bool
    value: float | None = None
    cost_usd: float | None = None
    trial: int | None = None
    expected_trials: int | None = None  # tau2's info.num_trials
    raw: Hashable = None


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
    """The mean as a harness takes it (a sum, then a division); exactly where the sum passes the largest double
    (two costs of 1e308: an OverflowError before) and None where it is not a number at all.

    >>> _mean([1e308, 1e308]), _mean([0.5, 1.0]), _mean([]), _mean([float("inf")])
    (1e+308, 0.75, None, None)
    """
    if not values or not all(isfinite(v) for v in values):
        return None
    try:
        return fsum(values) / len(values)
    except OverflowError:
        return float(sum(map(Fraction, values), Fraction(0)) / len(values))


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


def taubench_reading(trials: Sequence[Trial], runs: Sequence[Sequence[Trial]] | None = None) -> HarnessReading:
    """tau-bench's ``display_metrics``; ``runs``: the pooled agent's trials per results file (default: one file).

    Within a file, a task's trials are the file's distinct trial numbers (``num_trials``), as tau-bench counts
    them. tau-bench numbers every run's trials from 0, so pooled files add their trial counts per task: two
    runs of trials 0..3 are 8 trials of a task they both ran, and files split by task range keep 4.
    """
    n: dict[str, int] = defaultdict(int)
    c: dict[str, int] = defaultdict(int)
    for run in (runs if runs is not None else [trials]):
        num_trials = len({t.trial for t in run})
        for task in {t.task_id for t in run}:
            n[task] += num_trials
        for t in run:
            c[t.task_id] += t.success
    max_k = min(n.values(), default=0)
    pass_k = {k: fsum(pass_hat(n[task], c[task], k) for task in n) / len(n) for k in range(1, max_k + 1)}
    rewards = [t.value for t in trials if t.value is not None]
    return HarnessReading("tau-bench", _mean([float(t.success) for t in trials]), pass_k, None, len(trials),
                          {"avg_reward": _mean(rewards)})


UNREDUCED = "(unreduced)"  # an Inspect log whose epochs_reducer is an empty list: every epoch scored alone
_NAN = float("nan")


def inspect_reducer_rule(name: str | None) -> tuple[str, int] | None:
    """Inspect's reducer log name as (rule, k); None for a reducer not reproduced here (custom, ``collect``).

    Inspect logs a reducer with a ``k`` parameter as ``name_k`` (``reducer_log_name``).

    Examples
    --------
    >>> inspect_reducer_rule(None), inspect_reducer_rule("at_least_2"), inspect_reducer_rule("pass_k_3")
    (('mean', 0), ('at_least', 2), ('pass_k', 3))
    >>> inspect_reducer_rule("my_vote") is None
    True
    """
    if name is None:
        return "mean", 0
    if name in ("mean", "median", "mode", "majority", "max", UNREDUCED):
        return name, 0
    match = re.fullmatch(r"(at_least|pass_at|pass_k)_(\d+)", name)
    return (match.group(1), int(match.group(2))) if match else None


def inspect_reduce(rule: str, k: int, epochs: Sequence[Trial]) -> float:
    """One sample's scored epochs reduced as Inspect's reducer ``rule`` reduces them, as ``value_to_float``
    reads the result; NaN when Inspect's reduced score is unscored (the sample then leaves the accuracy).

    Examples
    --------
    >>> e = [Trial("a", "s", True, v == 1.0, value=v, raw=r) for v, r in ((1.0, "C"), (0.0, "I"), (1.0, "C"))]
    >>> [inspect_reduce(rule, k, e) for rule, k in (("max", 0), ("mode", 0), ("at_least", 2), ("pass_k", 2))]
    [1.0, 1.0, 1.0, 0.3333333333333333]
    """
    scored = [t for t in epochs if t.value is not None and not isnan(t.value)]
    if not scored:
        return _NAN
    values = [float(t.value) for t in scored]  # type: ignore[arg-type]
    correct = sum(v >= 1.0 for v in values)
    if rule == "median":
        return statistics.median(values)
    if rule == "max":
        return max(values)
    if rule in ("mode", "majority"):
        key, count = Counter(t.raw for t in scored).most_common(1)[0]
        if rule == "majority" and not count * 2 > len(epochs):  # unscored epochs count toward the total
            return _NAN
        return next(float(t.value) for t in scored if t.raw == key)  # type: ignore[arg-type]
    if rule == "at_least":
        return 1.0 if correct >= k else 0.0
    if rule == "pass_at":
        if len(values) < k:
            return _NAN
        return pass_at(len(values), correct, k)
    if rule == "pass_k":
        return _NAN if len(values) < k else comb(correct, k) / comb(len(values), k)
    return statistics.mean(values)


def inspect_reading(trials: Sequence[Trial], scorer: str | None, reducer: str | None = None) -> HarnessReading:
    """Inspect's ``accuracy()`` of the chosen scorer after the log's first epoch reducer (None: ``mean``)."""
    scored = [t for t in trials if t.counted and t.value is not None]
    rule = inspect_reducer_rule(reducer)
    detail: dict[str, object] = {"scorer": scorer, "reducer": reducer or "mean"}
    if rule is None:
        detail["reducer"] = "mean"
        detail["reducer_note"] = (f"the log's epoch reducer {reducer!r} is not one this reading reproduces: "
                                  "its accuracy is read after the mean reducer instead")
        rule = ("mean", 0)
    per_sample: dict[str, list[Trial]] = defaultdict(list)
    for t in scored:
        per_sample[t.task_id].append(t)
    if rule[0] == UNREDUCED:
        reduced = [float(t.value) for t in scored]  # type: ignore[arg-type]
    else:
        reduced = [inspect_reduce(rule[0], rule[1], epochs) for epochs in per_sample.values()]
    reduced = [v for v in reduced if not isnan(v)]
    accuracy = _mean(reduced) if scorer is not None and reduced else None
    runs = sum(not isnan(t.value) for t in scored)  # type: ignore[arg-type]  # scored epochs (NaN: unscored)
    detail["samples"] = len(reduced)  # what the accuracy is a mean over (a reviewer read "over 19 runs")
    return HarnessReading("Inspect", accuracy, {}, None, runs, detail)


def terminal_bench_reading(trials: Sequence[Trial]) -> HarnessReading:
    tasks = _per_task(trials)
    fewest = min((n for n, _ in tasks.values()), default=0)
    pass_at_k = {str(k): float(np.mean([pass_at(n, c, k) for n, c in tasks.values() if n >= k]))
                 for k in terminal_bench_k_values(fewest)}
    accuracy = sum(t.success for t in trials) / len(trials) if trials else None
    return HarnessReading("terminal-bench", accuracy, {}, None, len(trials), {"pass_at_k": pass_at_k})


def harness_readings(groups: Iterable[tuple[str, str, str | None, str | None, Sequence[Trial]]]
                     ) -> dict[str, HarnessReading]:
    """Per agent, its harness's reading: ``groups`` yields (kind, agent_id, Inspect scorer, Inspect epoch
    reducer, trials); an agent's trials are pooled across groups (its first group's scorer and reducer)."""
    pooled: dict[tuple[str, str], list[Trial]] = defaultdict(list)
    per_file: dict[tuple[str, str], list[Sequence[Trial]]] = defaultdict(list)
    scorers: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for kind, agent, scorer, reducer, trials in groups:
        pooled[(kind, agent)].extend(trials)
        per_file[(kind, agent)].append(trials)
        scorers.setdefault((kind, agent), (scorer, reducer))
    out: dict[str, HarnessReading] = {}
    for (kind, agent), trials in sorted(pooled.items()):
        if kind == "tau2":
            reading = tau2_reading(trials)
        elif kind == "tau-bench":
            reading = taubench_reading(trials, per_file[(kind, agent)])
        elif kind == "inspect":
            reading = inspect_reading(trials, *scorers[(kind, agent)])
        elif kind == "terminal-bench":
            reading = terminal_bench_reading(trials)
        else:
            continue
        files = len(per_file[(kind, agent)])
        # Several files of one agent read as one: a figure the harness itself never printed (it reads a run at a
        # time), said so beside it (explorer-defined).
        out[agent] = reading if files == 1 else replace(reading, detail={**reading.detail, "pooled_files": files})
    return out
