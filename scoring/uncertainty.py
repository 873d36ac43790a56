"""Is the difference real? Bootstrap intervals, tie groups, Pareto frontiers and sensitivity.

None of these changes a canonical number; they are views beside it. Bootstraps use a fixed
seed (per agent, derived from the seed and the agent id, so an agent's interval does not depend
on which other agents are in the file) and are vectorized over replicates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ._groups import MEAN_SCALE_AT, MEAN_SCALE_BY, SPREAD_SCALE_AT, SPREAD_SCALE_BY, agent_groups
from .headline import Headline, HeadlineAggregates, composite_arrays, final_score
from .policy import CANONICAL_POLICY, Policy
from .repeatability import pass_hat_k_array
from .report import AgentReport, Report

DEFAULT_REPLICATES = 1000
DEFAULT_SEED = 20260701
DEFAULT_CONFIDENCE = 0.95
_MAX_CELLS = 4_000_000  # replicates x runs per chunk: bounds memory for very large agents


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


def _resample_counts(rng: np.random.Generator, replicates: int, n: int) -> np.ndarray:
    """How often each of n runs is drawn in each replicate (rows sum to n)."""
    draws = rng.integers(0, n, size=(replicates, n))
    flat = (np.arange(replicates)[:, None] * n + draws).ravel()
    return np.bincount(flat, minlength=replicates * n).reshape(replicates, n).astype(np.float64)


def headline_replicates(success: np.ndarray, latency: np.ndarray, cost: np.ndarray, *, replicates: int,
                        rng: np.random.Generator, policy: Policy = CANONICAL_POLICY) -> np.ndarray:
    """Headline scores of ``replicates`` bootstrap resamples of one agent's completed runs."""
    n = len(success)
    has_lat, has_cost = ~np.isnan(latency), ~np.isnan(cost)
    lat, cst = np.where(has_lat, latency, 0.0), np.where(has_cost, cost, 0.0)
    # Huge values are scaled by a power of two (as the headline's own sums are) so no sum overflows.
    lat_shift = SPREAD_SCALE_BY if lat.max(initial=0.0) >= 2.0 ** SPREAD_SCALE_AT else 0
    cost_shift = MEAN_SCALE_BY if cst.max(initial=0.0) >= 2.0 ** MEAN_SCALE_AT else 0
    lat, cst = np.ldexp(lat, -lat_shift), np.ldexp(cst, -cost_shift)
    # Every quantity the headline reads is a sum over runs: resample weights times columns.
    columns = np.stack([success.astype(float), has_lat, lat, lat * lat, has_cost, cst], axis=1)
    chunk = max(1, _MAX_CELLS // max(n, 1))
    sums = np.concatenate([_resample_counts(rng, min(chunk, replicates - start), n) @ columns
                           for start in range(0, replicates, chunk)])
    s, m, sl, sl2, mc, sc = sums.T
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(m > 0, sl / m, np.nan)
        var = np.where(m > 0, np.maximum(sl2 / m - mean * mean, 0.0), np.nan)
        cost_mean = np.where(mc > 0, sc / mc, np.nan)
    stats = HeadlineAggregates(np.full(len(s), n), s, m, np.ldexp(mean, lat_shift), np.ldexp(np.sqrt(var), lat_shift),
                               mc, np.ldexp(cost_mean, cost_shift))
    f = composite_arrays(stats, policy)
    # The canonical rounding (Python's round of the double), not numpy's: intervals of the same numbers.
    return np.array([final_score(w, floor, policy) for w, floor in zip(f["weighted_score"], f["zero_success_floor"])])


def pass_k_replicates(n: np.ndarray, c: np.ndarray, levels, *, replicates: int,
                      rng: np.random.Generator) -> dict[int, np.ndarray]:
    """Mean pass^k over tasks for bootstrap resamples of the outcomes within each task.

    Resampling a task's n outcomes with replacement draws its success count from
    Binomial(n, c / n); one resample serves every level k.
    """
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    resampled = rng.binomial(n[None, :], (c / n)[None, :], size=(replicates, len(n)))
    # Exact pass^k for every (n, c') a task can take, then a lookup per replicate.
    width = int(n.max()) + 1
    grid_n = np.repeat(n, width)
    grid_c = np.tile(np.arange(width), len(n))
    valid = grid_c <= grid_n
    out = {}
    for k in levels:
        table = np.zeros(len(n) * width)
        table[valid] = pass_hat_k_array(grid_n[valid], grid_c[valid], k)
        out[k] = table.reshape(len(n), width)[np.arange(len(n))[None, :], resampled].mean(axis=1)
    return out


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


def bootstrap_intervals(runs: pd.DataFrame, report: Report, *, replicates: int = DEFAULT_REPLICATES,
                        seed: int = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE) -> Intervals:
    """95% (by default) bootstrap intervals for every agent's headline score and pass^k levels."""
    if replicates < 1:
        raise ValueError("replicates must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    policy = report.policy
    groups = agent_groups(runs)
    latency = runs["latency_ms"].to_numpy(dtype=float)
    cost = runs["cost_usd"].to_numpy(dtype=float)
    bounds = np.append(groups.starts, len(runs))
    slices = {a: slice(int(bounds[i]), int(bounds[i + 1])) for i, a in enumerate(groups.agents)}
    headline_iv: dict[str, Interval | None] = {}
    pass_iv: dict[str, dict[int, Interval] | None] = {}
    for agent in report.agents:
        h = agent.headline
        if h.ranked:
            rows = slices[agent.agent_id]
            mask = groups.completed[rows]
            scores = headline_replicates(groups.succeeded[rows][mask], latency[rows][mask], cost[rows][mask],
                                         replicates=replicates, rng=_agent_rng(seed, agent.agent_id, 0),
                                         policy=policy)
            headline_iv[agent.agent_id] = percentile_interval(scores, float(h.score or 0.0), confidence)
        else:
            headline_iv[agent.agent_id] = None
        rep = agent.repeatability
        if rep.pass_k is None:
            pass_iv[agent.agent_id] = None
            continue
        tasks = rep.tasks[rep.tasks["qualifies"]]
        n, c = tasks["n"].to_numpy(np.int64), tasks["c"].to_numpy(np.int64)
        draws = pass_k_replicates(n, c, rep.levels, replicates=replicates,
                                  rng=_agent_rng(seed, agent.agent_id, 1))
        pass_iv[agent.agent_id] = {k: percentile_interval(draws[k], rep.pass_k[k], confidence)
                                   for k in rep.levels}
    ties = tie_groups([(a.agent_id, headline_iv[a.agent_id]) for a in report.agents])
    agents = {a.agent_id: AgentIntervals(a.agent_id, headline_iv[a.agent_id], pass_iv[a.agent_id],
                                         ties.get(a.agent_id)) for a in report.agents}
    return Intervals(replicates, seed, confidence, agents)


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
