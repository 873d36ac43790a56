"""Fitness radar (SPEC 4): the diagnostic axes (scoring.measures.axes) over the latest terminal runs.

Viewer weights only recombine the axes into a profile score; nothing here
reads or changes a headline score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.rounding import published_round
from scoring.measures._groups import AgentGroups, agent_groups, optional
from scoring.measures.axes import (  # RadarAggregates: importable here too
    AXES,
    RADAR_AXES,
    RadarAggregates,
    robustness_tasks,
)
from scoring.measures.facts import Fact

# pandas is imported by the functions that build or read a frame: a report from an engine's aggregates
# (--engine sql) never loads it.
if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Radar:
    """One agent's radar: axes on 0-100 (``None`` when the window lacks evidence) and why."""

    agent_id: str
    window_runs: int
    raw_axes: dict[str, float | None]
    reasons: dict[str, Fact]
    known_outcomes: int
    successes: int
    latency_values: int
    p50_latency_ms: float | None
    cost_values: int
    p50_cost_usd: float | None
    step_values: int
    p50_steps: float | None
    robustness_tasks: int
    policy: Policy = field(repr=False)

    @property
    def axes(self) -> dict[str, float | None]:
        """Axes rounded as published (2 decimals; scoring.contract.rounding)."""
        d = self.policy.score_decimals
        return {a: None if v is None else published_round(v, d) for a, v in self.raw_axes.items()}

    def profile(self, weights: Mapping[str, float] | None = None) -> Profile:
        return profile_score(self.raw_axes, weights, self.policy)

    def to_json(self, weights: Mapping[str, float] | None = None) -> dict:
        """The SPEC 6 ``radar`` object."""
        profile = self.profile(weights)
        return {
            "window_runs": self.window_runs,
            "axes": self.axes,
            "p50_latency_ms": self.p50_latency_ms,
            "p50_cost_usd": self.p50_cost_usd,
            "p50_steps": self.p50_steps,
            "robustness_tasks": self.robustness_tasks,
            "weights": profile.weights,
            "profile_score": profile.score,
        }


MIN_WEIGHT, MAX_WEIGHT = 1e-6, 1e6


@dataclass(frozen=True)
class Profile:
    """A profile score and the renormalized weights over the available axes."""

    score: float | None
    weights: dict[str, float]


def check_weights(weights: Mapping[str, float] | None, policy: Policy = CANONICAL_POLICY) -> dict[str, float]:
    """Viewer weights for every axis; axes not named keep their default weight.

    Raises ValueError naming the axis for an unknown axis, or a weight that is not 0 or between
    1e-6 and 1e6 (weights are relative: beyond that range their sum overflows or loses every digit).
    """
    full = policy.radar_weights
    for axis, weight in (weights or {}).items():
        if axis not in full:
            raise ValueError(f"unknown radar axis {axis!r}; expected one of {', '.join(RADAR_AXES)}")
        weight = float(weight)
        if not np.isfinite(weight) or weight < 0 or (weight != 0 and not MIN_WEIGHT <= weight <= MAX_WEIGHT):
            raise ValueError(f"weight for {axis!r} must be 0 or a number from {MIN_WEIGHT:g} to {MAX_WEIGHT:g}, "
                             f"got {weight:g}")
        full[axis] = weight
    return full


def profile_score(raw_axes: Mapping[str, float | None], weights: Mapping[str, float] | None = None,
                  policy: Policy = CANONICAL_POLICY) -> Profile:
    """Weighted mean of the available axes with weights renormalized to sum 1 (SPEC 4).

    Examples
    --------
    >>> profile_score({"correctness": 80.0, "latency": None, "cost": 60.0,
    ...                "tool_efficiency": None, "robustness": None}).score
    70.0
    """
    full = check_weights(weights, policy)
    values = {a: float(v) for a in RADAR_AXES if (v := raw_axes.get(a)) is not None}
    available = {a: full[a] for a in values}
    total = sum(available.values())
    if not available or total == 0:
        return Profile(None, dict.fromkeys(available, 0.0) if available else {})
    normalized = {a: w / total for a, w in available.items()}
    score = sum(w * values[a] for a, w in available.items()) / total
    return Profile(published_round(score, policy.score_decimals), normalized)


def window_positions(groups: AgentGroups, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices selected by ``mask`` and each one's 0-based position within its agent, newest first."""
    idx = np.flatnonzero(mask)
    codes = groups.codes[idx]
    starts = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=groups.size))[:-1]))
    return idx, np.arange(len(idx)) - starts[codes]


_WINDOW_LOOP_UP_TO = 4096  # agents: up to this many, each agent's slice is read on its own (below)


def window_rows(groups: AgentGroups, policy: Policy = CANONICAL_POLICY) -> np.ndarray:
    """Row indices of each agent's latest ``policy.radar_window`` terminal runs (SPEC 4).

    The frame is sorted by agent, newest first: an agent's window is the first terminal rows of its slice. For a
    few thousand agents, each slice is read on its own (10,000,000 runs: 0.13 -> 0.02 s, without the four
    row-long temporaries of window_positions); for more, window_positions numbers every terminal row at once."""
    if groups.size > _WINDOW_LOOP_UP_TO:
        idx, position = window_positions(groups, groups.terminal)
        return idx[position < policy.radar_window]
    ends = np.append(groups.starts[1:], len(groups.codes)).tolist()
    parts = [start + np.flatnonzero(groups.terminal[start:end])[:policy.radar_window]
             for start, end in zip(groups.starts.tolist(), ends)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)


def _medians(values: np.ndarray, codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(count, median) of non-null values per agent code; median NaN where the count is 0."""
    import pandas as pd

    ok = ~np.isnan(values)
    medians = pd.Series(values[ok]).groupby(codes[ok]).median().reindex(range(size)).to_numpy(dtype=float, copy=True)
    overflowed = np.flatnonzero(np.isinf(medians))  # (a + b) / 2 of two values near the largest double
    for i in overflowed:
        middle = np.sort(values[ok][codes[ok] == i])
        medians[i] = middle_value(middle)
    return np.bincount(codes[ok], minlength=size), medians


def middle_value(ordered: Sequence[float] | np.ndarray) -> float:
    """The median of sorted values: the middle one, or the mean of the two middle ones, (a + b) / 2, as
    pandas computes it; a / 2 + b / 2 where a + b would overflow (every engine uses this rule)."""
    n = len(ordered)
    a, b = float(ordered[(n - 1) // 2]), float(ordered[n // 2])
    middle = (a + b) / 2
    return middle if np.isfinite(middle) else a / 2 + b / 2


def radar_aggregates(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                     groups: AgentGroups | None = None) -> RadarAggregates:
    """The aggregate step of the radar on a canonical runs frame (SPEC 4 window)."""
    import pandas as pd

    groups = groups or agent_groups(runs)
    rows = window_rows(groups, policy)
    size, codes = groups.size, groups.codes[rows]
    known, succeeded = groups.known[rows], groups.succeeded[rows]
    n_lat, p50_lat = _medians(runs["latency_ms"].to_numpy(dtype=float)[rows], codes, size)
    n_cost, p50_cost = _medians(runs["cost_usd"].to_numpy(dtype=float)[rows], codes, size)
    steps = runs["steps"].to_numpy(dtype=float)[rows]
    n_steps, p50_steps = _medians(steps, codes, size)
    tasks = runs["task_id"]
    task_codes = (tasks.cat.codes.to_numpy()[rows[known]] if isinstance(tasks.dtype, pd.CategoricalDtype)
                  else pd.factorize(tasks.take(rows[known]), sort=True)[0])
    # Sorted by agent, then task as text (the categories' order): the contract's order, the same in every engine.
    per_task = pd.DataFrame({"agent": codes[known], "task": task_codes, "success": succeeded[known]})
    per_task = per_task.groupby(["agent", "task"], sort=True)["success"].agg(["size", "sum"])
    return RadarAggregates(
        n_window=np.bincount(codes, minlength=size),
        n_known=np.bincount(codes[known], minlength=size),
        n_success=np.bincount(codes[known & succeeded], minlength=size),
        n_lat=n_lat, p50_lat=p50_lat, n_cost=n_cost, p50_cost=p50_cost, n_steps=n_steps, p50_steps=p50_steps,
        nonzero_steps=np.bincount(codes[steps > 0], minlength=size),
        task_agent=per_task.index.get_level_values("agent").to_numpy(dtype=np.int64),
        task_n=per_task["size"].to_numpy(dtype=np.int64),
        task_c=per_task["sum"].to_numpy(dtype=np.int64),
    )


def fitness_radar(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                  groups: AgentGroups | None = None) -> dict[str, Radar]:
    """The radar axes for every agent of a canonical runs frame, keyed by agent_id (SPEC 4)."""
    groups = groups or agent_groups(runs)
    return radar_from_aggregates(groups.agents, radar_aggregates(runs, policy, groups), policy)


def radar_from_aggregates(agents: Sequence[str], agg: RadarAggregates,
                          policy: Policy = CANONICAL_POLICY) -> dict[str, Radar]:
    """The compute step: every axis of the registry, its value (or null) and why, per agent (SPEC 4)."""
    values = {axis.name: axis.value(agg, policy) for axis in AXES}
    reasons = {axis.name: axis.reasons(agg, policy) for axis in AXES}
    tasks = robustness_tasks(agg, policy)
    out: dict[str, Radar] = {}
    for i, agent in enumerate(agents):
        out[agent] = Radar(
            agent_id=agent, window_runs=int(agg.n_window[i]),
            raw_axes={name: optional(v[i]) for name, v in values.items()},
            reasons={name: facts[i] for name, facts in reasons.items()},
            known_outcomes=int(agg.n_known[i]), successes=int(agg.n_success[i]),
            latency_values=int(agg.n_lat[i]), p50_latency_ms=optional(agg.p50_lat[i]),
            cost_values=int(agg.n_cost[i]), p50_cost_usd=optional(agg.p50_cost[i]),
            step_values=int(agg.n_steps[i]), p50_steps=optional(agg.p50_steps[i]),
            robustness_tasks=int(tasks[i]), policy=policy)
    return out
