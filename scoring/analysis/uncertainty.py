"""Is the difference real? Bootstrap intervals, tie groups, Pareto frontiers and sensitivity.

None of these changes a canonical number; they are views beside it. Bootstraps use a fixed
seed (per agent, derived from the seed and the agent id, so an agent's interval does not depend
on which other agents are in the file) and are vectorized over replicates.
"""

from __future__ import annotations

import bisect
import hashlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.measures._groups import MEAN_SCALE_AT, MEAN_SCALE_BY, agent_groups, spread_shift
from scoring.measures.headline import Headline, HeadlineAggregates, composite_arrays, final_score, final_scores
from scoring.measures.repeatability import pass_hat_k_array
from scoring.measures.report import AgentReport, Report

DEFAULT_REPLICATES = 1000
DEFAULT_SEED = 20260701
DEFAULT_CONFIDENCE = 0.95
_MAX_CELLS = 4_000_000  # replicates x runs per chunk: bounds memory for very large agents
# Draws gathered and summed at a time: 2^15 draws gather 1 MB of records (32 bytes each), which stays near the
# 512 KB second-level cache; 2^17 (4 MB) was measured slower on 2 shared EPYC cores (2026-12-02, 1,600 runs x
# 1,000 replicates: 29 ms -> 21 ms; 300 runs: 7.4 -> 2.1 ms). The block size never changes a sum (each row is
# one matrix-vector product, whichever block it is in).
_BLOCK_CELLS = 1 << 15
_COUNT_BITS = 17  # bits per count when the three counts share one column


@dataclass(frozen=True)
class Interval:
    """A bootstrap percentile interval, widened if needed so that it contains its point estimate."""

    low: float
    high: float
    point: float
    widened: bool = False

    def to_json(self) -> dict:
        return {"low": self.low, "high": self.high}


def percentile_interval(replicates: np.ndarray, point: float, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """The central ``confidence`` percentile interval of ``replicates``, containing ``point``.

    A percentile interval can miss its point estimate when the bootstrap distribution is
    lopsided (for example at the zero-success floor); it is then widened to the point and
    marked ``widened``.
    """
    alpha = (1 - confidence) / 2
    low, high = (float(v) for v in np.quantile(replicates, [alpha, 1 - alpha]))
    widened = point < low or point > high
    return Interval(min(low, point), max(high, point), point, widened)


def _agent_rng(seed: int, agent_id: str, stream: int) -> np.random.Generator:
    digest = int.from_bytes(hashlib.sha256(agent_id.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng([seed, digest, stream])


def _draws(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """``rows`` x ``n`` run indices drawn uniformly with replacement, in the narrowest integer type
    (16-bit draws for up to 65,536 runs: half the random bits and half the memory of 32-bit ones)."""
    dtype = np.uint16 if n <= 1 << 16 else np.uint32 if n <= 1 << 32 else np.int64
    return rng.integers(0, n, size=(rows, n), dtype=dtype)


def resampled_sums(rng: np.random.Generator, columns: list[np.ndarray], replicates: int) -> np.ndarray:
    """Sums of each column over ``replicates`` bootstrap resamples of its n rows (replicates x columns).

    The draws are made in chunks of at most _MAX_CELLS indices (bounded memory). Each block of
    _BLOCK_CELLS draws gathers whole rows (all columns at once, as one fixed-size record) and sums
    them with one matrix product; the block stays in the processor's cache.
    """
    n, width = len(columns[0]), len(columns)
    records = np.ascontiguousarray(np.stack(columns, axis=1), dtype=np.float64).view(f"V{8 * width}").ravel()
    ones = np.ones(n)
    out = np.empty((replicates, width))
    chunk = max(1, _MAX_CELLS // max(n, 1))
    block = max(1, _BLOCK_CELLS // max(n, 1))
    for start in range(0, replicates, chunk):
        draws = _draws(rng, min(chunk, replicates - start), n)
        for first in range(0, len(draws), block):
            part = draws[first:first + block].astype(np.intp)  # a take with narrow indices is far slower
            gathered = np.take(records, part).view(np.float64).reshape(len(part), n, width)
            out[start + first:start + first + len(part)] = ones @ gathered
    return out


def headline_replicates(success: np.ndarray, latency: np.ndarray, cost: np.ndarray, *, replicates: int,
                        rng: np.random.Generator, policy: Policy = CANONICAL_POLICY) -> np.ndarray:
    """Headline scores of ``replicates`` bootstrap resamples of one agent's completed runs."""
    n = len(success)
    # Huge values are scaled by a power of two (as the headline's own sums are) so no sum overflows.
    has_lat, has_cost, lat, cst, lat_shift, cost_shift = _scaled(latency, cost)
    # Every quantity the headline reads is a sum over runs. The three counts share one column of
    # whole numbers (17 bits each: every partial sum stays below 2**53, so it is exact) while n < 2**17.
    flags = [success.astype(np.float64), has_lat.astype(np.float64), has_cost.astype(np.float64)]
    if n < 1 << _COUNT_BITS:
        packed = flags[0] + np.ldexp(flags[1], _COUNT_BITS) + np.ldexp(flags[2], 2 * _COUNT_BITS)
        sums = resampled_sums(rng, [packed, lat, lat * lat, cst], replicates)
        total = sums[:, 0].astype(np.int64)
        mask = (1 << _COUNT_BITS) - 1
        s, m, mc = total & mask, (total >> _COUNT_BITS) & mask, total >> (2 * _COUNT_BITS)
        sl, sl2, sc = sums[:, 1], sums[:, 2], sums[:, 3]
    else:
        sums = resampled_sums(rng, [*flags, lat, lat * lat, cst], replicates)
        s, m, mc, sl, sl2, sc = (sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3], sums[:, 4], sums[:, 5])
    return _scores_from_sums(np.full(len(s), n, dtype=float), s, m, sl, sl2, mc, sc, lat_shift, cost_shift, policy)


def _scores_from_sums(n: ArrayLike, s: ArrayLike, m: ArrayLike, sl: np.ndarray, sl2: np.ndarray,
                      mc: ArrayLike, sc: np.ndarray, lat_shift: int, cost_shift: int, policy: Policy) -> np.ndarray:
    """Headline scores from per-replicate sums over completed runs (NaN where a replicate has none)."""
    n, s, m, mc = (np.asarray(v, dtype=float) for v in (n, s, m, mc))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(m > 0, sl / m, np.nan)
        var = np.where(m > 0, np.maximum(sl2 / m - mean * mean, 0.0), np.nan)
        cost_mean = np.where(mc > 0, sc / mc, np.nan)
    stats = HeadlineAggregates(n, s, m, np.ldexp(mean, lat_shift), np.ldexp(np.sqrt(var), lat_shift),
                               mc, np.ldexp(cost_mean, cost_shift))
    with np.errstate(invalid="ignore", divide="ignore"):
        f = composite_arrays(stats, policy)
    # The canonical rounding (Python's round of the double), not numpy's: intervals of the same numbers.
    scores = final_scores(np.where(n > 0, f["weighted_score"], 0.0), f["zero_success_floor"], policy)
    return np.where(n > 0, scores, np.nan)


def _scaled(latency: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """(has latency, has cost, latency, cost): missing values as 0, huge ones scaled by a power of two."""
    has_lat, has_cost = ~np.isnan(latency), ~np.isnan(cost)
    lat, cst = np.where(has_lat, latency, 0.0), np.where(has_cost, cost, 0.0)
    lat_shift = int(spread_shift(np.array([lat.max(initial=0.0)]))[0])  # huge latencies down, tiny ones up
    cost_shift = MEAN_SCALE_BY if cst.max(initial=0.0) >= 2.0 ** MEAN_SCALE_AT else 0
    return has_lat, has_cost, np.ldexp(lat, -lat_shift), np.ldexp(cst, -cost_shift), lat_shift, cost_shift


@dataclass(frozen=True)
class CompletedRuns:
    """One agent's completed runs as the headline reads them: task index, outcome, latency, cost."""

    task: np.ndarray  # int: the run's task, an index into the tasks both agents are resampled over
    success: np.ndarray
    latency: np.ndarray
    cost: np.ndarray


def paired_headline_replicates(a: CompletedRuns, b: CompletedRuns, tasks: int, *, replicates: int,
                               rng: np.random.Generator,
                               policy: Policy = CANONICAL_POLICY) -> tuple[np.ndarray, np.ndarray]:
    """Headline scores of two agents over ``replicates`` resamples of their tasks (a paired bootstrap).

    Each replicate draws ``tasks`` tasks with replacement from the tasks either agent completed a run
    on, and both agents keep all their completed runs on each drawn task, once per draw; a replicate in
    which an agent has no completed run gives it NaN (unranked). Sums per task are taken once, so a
    replicate costs a product of its task counts with those sums.
    """
    per_agent = []
    for runs in (a, b):
        has_lat, has_cost, lat, cst, lat_shift, cost_shift = _scaled(runs.latency, runs.cost)
        columns = [np.ones(len(runs.task)), runs.success.astype(float), has_lat.astype(float), lat, lat * lat,
                   has_cost.astype(float), cst]
        sums = np.stack([np.bincount(runs.task, weights=c, minlength=tasks) for c in columns], axis=1)
        per_agent.append((sums, lat_shift, cost_shift))
    out = (np.empty(replicates), np.empty(replicates))
    chunk = max(1, _MAX_CELLS // max(tasks, 1))
    for start in range(0, replicates, chunk):
        rows = min(chunk, replicates - start)
        draws = rng.integers(0, tasks, size=(rows, tasks))
        counts = np.bincount((draws + tasks * np.arange(rows)[:, None]).ravel(),
                             minlength=rows * tasks).reshape(rows, tasks).astype(float)
        for (sums, lat_shift, cost_shift), scores in zip(per_agent, out):
            n, s, m, sl, sl2, mc, sc = (counts @ sums).T
            scores[start:start + rows] = _scores_from_sums(n, s, m, sl, sl2, mc, sc, lat_shift, cost_shift, policy)
    return out


def pass_k_replicates(n: np.ndarray, c: np.ndarray, levels: Sequence[int], *, replicates: int,
                      rng: np.random.Generator) -> dict[int, np.ndarray]:
    """Mean pass^k over tasks for bootstrap resamples of the outcomes within each task.

    Resampling a task's n outcomes with replacement draws its success count from
    Binomial(n, c / n); one resample serves every level k. The counts are drawn by inverting the
    binomial distribution function at one uniform draw per task and replicate (one search over
    every task's distribution at once, rather than a binomial sampler per cell).
    """
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    tasks = len(n)
    # Exact pass^k for every count 0..n of every task, then one lookup per replicate and task.
    offsets = np.concatenate(([0], np.cumsum(n + 1)[:-1]))
    rows = {k: np.concatenate([_pass_row(int(t), k) for t in n]) for k in levels}
    inverse = _binomial_inverse(n, c)
    out = {k: np.empty(replicates) for k in levels}
    # Replicates in chunks of at most _MAX_CELLS draws (replicates x tasks), as the headline's bootstrap: one
    # dense array of every draw took about 30 bytes a cell, 3.3 GB for one agent of 20,000 tasks at 5,000
    # replicates, in the app's server. The uniform draws come in the same order, so the result is the same.
    step = max(1, _MAX_CELLS // max(tasks, 1))
    for start in range(0, replicates, step):
        stop = min(replicates, start + step)
        cells = _binomial_counts_at(inverse, rng.random((stop - start, tasks)))
        cells += offsets[None, :]
        for k in levels:
            out[k][start:stop] = rows[k][cells].mean(axis=1)
        del cells
    return out


@lru_cache(maxsize=4096)
def _pass_row(n: int, k: int) -> np.ndarray:
    """pass^k of a task with n outcomes for each success count 0..n (exact, then one double each)."""
    row = pass_hat_k_array(np.full(n + 1, n), np.arange(n + 1), k)
    row.flags.writeable = False
    return row


def _binomial_counts(n: np.ndarray, c: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Binomial(n_t, c_t / n_t) counts at the uniform draws (replicates x tasks), by inversion:
    the count is the number of j < n_t whose distribution function F_t(j) is at most the draw."""
    return _binomial_counts_at(_binomial_inverse(n, c), uniform)


def _binomial_inverse(n: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every task's distribution function, shifted by its index into one sorted array, and each task's start in
    it: what :func:`_binomial_counts_at` searches (made once for every chunk of draws)."""
    p = c / n
    j = np.arange(int(n.sum())) - np.repeat(np.concatenate(([0], np.cumsum(n)[:-1])), n)  # 0..n_t-1 per task
    nn, pp = np.repeat(n, n), np.repeat(p, n)
    log_factorial = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, int(n.max(initial=0)) + 1)))))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pmf = (log_factorial[nn] - log_factorial[j] - log_factorial[nn - j]
                   + np.where(j > 0, j * np.log(pp), 0.0) + np.where(nn > j, (nn - j) * np.log1p(-pp), 0.0))
    pmf = np.exp(log_pmf)
    # F_t(j) for j = 0..n_t - 1, each task shifted by its index t so one sorted array holds them all.
    cdf = np.cumsum(pmf)
    starts = np.concatenate(([0], np.cumsum(n)[:-1]))
    before = np.concatenate(([0.0], cdf))[starts]
    task = np.repeat(np.arange(len(n)), n)
    shifted = task + np.minimum(cdf - np.repeat(before, n), 1.0)
    shifted = np.maximum.accumulate(shifted)  # rounding can never make it decrease
    return shifted, starts


def _binomial_counts_at(inverse: tuple[np.ndarray, np.ndarray], uniform: np.ndarray) -> np.ndarray:
    """The counts at the uniform draws (replicates x tasks; the draws are overwritten, to hold one copy less)."""
    shifted, starts = inverse
    uniform += np.arange(uniform.shape[1])[None, :]  # each task's draw, shifted into its own interval
    found = np.searchsorted(shifted, uniform.ravel(), side="right").reshape(uniform.shape)
    found -= starts[None, :]
    return found


@dataclass(frozen=True)
class AgentIntervals:
    agent_id: str
    headline: Interval | None
    pass_k: dict[int, Interval] | None
    tie_group: int | None

    def to_json(self) -> dict:
        return {
            "headline": None if self.headline is None else self.headline.to_json(),
            "pass_k": None if self.pass_k is None else {str(k): v.to_json() for k, v in self.pass_k.items()},
            "tie_group": self.tie_group,
        }


@dataclass(frozen=True)
class Intervals:
    replicates: int
    seed: int
    confidence: float
    agents: dict[str, AgentIntervals] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"replicates": self.replicates, "seed": self.seed, "confidence": self.confidence}


def tie_groups(ordered: list[tuple[str, Interval | None]]) -> dict[str, int]:
    """Walk the leaderboard: an agent joins the current group while its upper bound reaches the lower
    bound of the group's first agent, else it starts the next group. Unranked agents get none."""
    groups: dict[str, int] = {}
    group, first_low = 0, None
    for agent, interval in ordered:
        if interval is None:
            continue
        if first_low is None or interval.high < first_low:
            group += 1
            first_low = interval.low
        groups[agent] = group
    return groups


@dataclass(frozen=True)
class Covered:
    """The leaderboard positions (1-based, first and last) whose scores lie inside one agent's interval, and the
    tie groups of those agents other than its own."""

    first: int
    last: int
    other_groups: tuple[int, ...]


def covered_ranks(ordered: Sequence[tuple[str, float, Interval, int]]) -> dict[str, Covered]:
    """Per agent of ``ordered`` (agent, score, interval, tie group, in leaderboard order: scores not increasing),
    the positions whose scores its interval covers: a run of positions, as the scores are sorted (found by
    bisection, so 10,000 agents cost no square). The walk of :func:`tie_groups` puts each agent in one group; an
    interval as wide as a newcomer's (0 to 84) covers the scores of five groups, which the group alone hides.

    >>> rows = [("a", 90.0, Interval(88, 92, 90), 1), ("b", 80.0, Interval(0, 85, 80), 2),
    ...         ("c", 70.0, Interval(68, 72, 70), 3)]
    >>> covered_ranks(rows)["b"], covered_ranks(rows)["a"]
    (Covered(first=2, last=3, other_groups=(3,)), Covered(first=1, last=1, other_groups=()))
    """
    descending = [-score for _, score, _, _ in ordered]  # ascending, for bisect
    out = {}
    for agent, _, interval, group in ordered:
        first = bisect.bisect_left(descending, -interval.high)  # the first score <= high
        last = bisect.bisect_right(descending, -interval.low)  # past the last score >= low
        others = sorted({g for _, _, _, g in ordered[first:last]} - {group})
        out[agent] = Covered(first + 1, max(first + 1, last), tuple(others))
    return out


def bootstrap_threads() -> int:
    """Threads the bootstrap spreads its agents over: the cores this process may run on, at most 8.
    The draws, gathers and products release the interpreter lock, so agents on two threads take about
    1.6x less time on two cores (2026-12-03: 60 agents of 2,000 runs x 1,000 replicates, 1.40 -> 0.87 s)."""
    return max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def bootstrap_intervals(runs: pd.DataFrame, report: Report, *, replicates: int = DEFAULT_REPLICATES,
                        seed: int = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE,
                        progress: Callable[[int, int], None] | None = None, threads: int | None = None) -> Intervals:
    """95% (by default) bootstrap intervals for every agent's headline score and pass^k levels.

    Each agent has its own seeded stream, so the intervals do not depend on how many ``threads`` share
    the agents (default: ``bootstrap_threads()``). ``progress(done, total)`` is called on the calling
    thread as each agent finishes, in leaderboard order.
    """
    if replicates < 1:
        raise ValueError("replicates must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    threads = bootstrap_threads() if threads is None else threads
    if threads < 1:
        raise ValueError("threads must be at least 1")
    policy = report.policy
    groups = agent_groups(runs)
    latency = runs["latency_ms"].to_numpy(dtype=float)
    cost = runs["cost_usd"].to_numpy(dtype=float)
    bounds = np.append(groups.starts, len(runs))
    slices = {a: slice(int(bounds[i]), int(bounds[i + 1])) for i, a in enumerate(groups.agents)}

    def one(agent: AgentReport) -> tuple[Interval | None, dict[int, Interval] | None]:
        h = agent.headline
        headline = None
        if h.ranked:
            rows = slices[agent.agent_id]
            mask = groups.completed[rows]
            scores = headline_replicates(groups.succeeded[rows][mask], latency[rows][mask], cost[rows][mask],
                                         replicates=replicates, rng=_agent_rng(seed, agent.agent_id, 0),
                                         policy=policy)
            headline = percentile_interval(scores, float(h.score or 0.0), confidence)
        rep = agent.repeatability
        if rep.pass_k is None:
            return headline, None
        tasks = rep.tasks[rep.tasks["qualifies"]]
        n, c = tasks["n"].to_numpy(np.int64), tasks["c"].to_numpy(np.int64)
        draws = pass_k_replicates(n, c, rep.levels, replicates=replicates, rng=_agent_rng(seed, agent.agent_id, 1))
        return headline, {k: percentile_interval(draws[k], rep.pass_k[k], confidence) for k in rep.levels}

    results: dict[str, tuple[Interval | None, dict[int, Interval] | None]] = {}
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="bootstrap") as pool:
        # At most twice as many agents in flight as threads: memory stays bounded by the threads' draws.
        pending = iter(report.agents)
        queue = [(a, pool.submit(one, a)) for a in _take(pending, 2 * threads)]
        done = 0
        while queue:
            agent, future = queue.pop(0)
            results[agent.agent_id] = future.result()
            queue.extend((a, pool.submit(one, a)) for a in _take(pending, 1))
            done += 1
            if progress is not None:
                progress(done, len(report.agents))
    ties = tie_groups([(a.agent_id, results[a.agent_id][0]) for a in report.agents])
    agents = {a.agent_id: AgentIntervals(a.agent_id, *results[a.agent_id], ties.get(a.agent_id))
              for a in report.agents}
    return Intervals(replicates, seed, confidence, agents)


def _take(items: Iterator[AgentReport], count: int) -> list[AgentReport]:
    return [item for _, item in zip(range(count), items)]


def pareto_frontier(points: Mapping[str, tuple[float, float]]) -> set[str]:
    """Agents not dominated on (x lower is better, y higher is better).

    An agent is dominated when another has x <= and y >= with at least one strict.
    """
    names = list(points)
    if not names:
        return set()
    xy = np.array([points[n] for n in names], dtype=float)
    x, y = xy[:, 0], xy[:, 1]
    no_worse = (x[None, :] <= x[:, None]) & (y[None, :] >= y[:, None])
    better = (x[None, :] < x[:, None]) | (y[None, :] > y[:, None])
    dominated: list[bool] = np.asarray((no_worse & better).any(axis=1)).tolist()
    return {n for n, d in zip(names, dominated) if not d}


def frontier_points(report: Report, x: str) -> dict[str, tuple[float, float]]:
    """(average cost or latency, success rate) for ranked agents with that average recorded."""
    attr = {"cost": "avg_cost_usd", "latency": "avg_latency_ms"}[x]
    return {a.agent_id: (float(getattr(a.headline, attr)), float(a.headline.success_rate)) for a in report.agents
            if a.headline.success_rate is not None and getattr(a.headline, attr) is not None}


@dataclass(frozen=True)
class WhatIf:
    """A headline recomputed under one change: the new score and the points gained (rounded scores)."""

    change: str
    score: float | None
    points: float | None
    weighted_delta: float | None


@dataclass(frozen=True)
class Sensitivity:
    agent_id: str
    score: float | None
    what_ifs: tuple[WhatIf, ...]
    runs_to_consistency_gate: int
    outcomes_to_pass_k: dict[str, int]
    top_level: int

    @property
    def total_outcomes_to_pass_k(self) -> int:
        return sum(self.outcomes_to_pass_k.values())


def _what_if(change: str, current: Headline, stats: HeadlineAggregates, policy: Policy) -> WhatIf:
    f = composite_arrays(stats, policy)
    if not bool(f["ranked"]):
        return WhatIf(change, None, None, None)
    score = final_score(f["weighted_score"], bool(f["zero_success_floor"]), policy)
    if current.score is None or current.weighted_score is None:  # unranked now
        return WhatIf(change, score, None, None)
    return WhatIf(change, score, round(score - current.score, policy.score_decimals),
                  float(f["weighted_score"]) - current.weighted_score)


def sensitivity(agent: AgentReport, policy: Policy | None = None) -> Sensitivity:
    """Exact what-ifs from the policy's piecewise maps for one agent.

    - 10% lower average latency: every latency scaled by 0.9, so the mean and the spread scale
      and consistency (a ratio) is unchanged; only the latency anchor moves.
    - 10% lower average cost: the cost anchor at 0.9 x the average.
    - one more successful completed run, at the agent's average latency and cost (so the averages
      stay; the spread shrinks by sqrt(m / (m + 1)) and the gate count grows by one).
    """
    h = agent.headline
    policy = policy or h.policy
    stats = HeadlineAggregates.of(h)
    m = float(stats.latency_runs)
    lower_latency = replace(stats, latency_mean=stats.latency_mean * 0.9, latency_pstdev=stats.latency_pstdev * 0.9)
    lower_cost = replace(stats, cost_mean=stats.cost_mean * 0.9)
    more = replace(
        stats, completed_runs=stats.completed_runs + 1, successful_runs=stats.successful_runs + 1,
        latency_runs=stats.latency_runs + (1 if m > 0 else 0),
        latency_pstdev=stats.latency_pstdev * np.sqrt(m / (m + 1)) if m > 0 else stats.latency_pstdev,
        cost_runs=stats.cost_runs + (1 if stats.cost_runs > 0 else 0))
    what_ifs = (
        _what_if("10% lower average latency", h, lower_latency, policy),
        _what_if("10% lower average cost", h, lower_cost, policy),
        _what_if("one more successful completed run", h, more, policy),
    )
    top = max(policy.pass_k_levels)
    need = max(top, policy.pass_k_min_outcomes)
    tasks = agent.repeatability.tasks
    outcomes = {str(t): max(0, need - int(n)) for t, n in zip(tasks["task_id"], tasks["n"]) if int(n) < need}
    return Sensitivity(agent.agent_id, h.score, what_ifs,
                       max(0, policy.consistency_min_latencies - h.latency_runs), outcomes, top)
