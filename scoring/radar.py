"""Fitness radar (SPEC 4): five diagnostic axes over the latest terminal runs.

Viewer weights only recombine the axes into a profile score; nothing here
reads or changes a headline score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from ._groups import AgentGroups, agent_groups, optional, outcome_arrays, status_mask
from .policy import CANONICAL_POLICY, RADAR_AXES, Policy
from .runs import TERMINAL_STATUSES


@dataclass(frozen=True)
class Radar:
    """One agent's radar: axes on 0-100 (``None`` when the window lacks evidence) and why."""

    agent_id: str
    window_runs: int
    raw_axes: dict[str, float | None]
    reasons: dict[str, str]
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
        """Axes rounded as published (2 decimals)."""
        d = self.policy.score_decimals
        return {a: None if v is None else round(v, d) for a, v in self.raw_axes.items()}

    @property
    def available_axes(self) -> list[str]:
        return [a for a in RADAR_AXES if self.raw_axes[a] is not None]

    def profile(self, weights: Mapping[str, float] | None = None) -> "Profile":
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


@dataclass(frozen=True)
class Profile:
    """A profile score and the renormalized weights over the available axes."""

    score: float | None
    weights: dict[str, float]


def check_weights(weights: Mapping[str, float] | None, policy: Policy = CANONICAL_POLICY) -> dict[str, float]:
    """Viewer weights for all five axes; axes not named keep their default weight.

    Raises ValueError naming the axis for an unknown axis or a negative or non-finite weight.
    """
    full = policy.radar_weights
    for axis, weight in (weights or {}).items():
        if axis not in full:
            raise ValueError(f"unknown radar axis {axis!r}; expected one of {', '.join(RADAR_AXES)}")
        weight = float(weight)
        if not np.isfinite(weight) or weight < 0:
            raise ValueError(f"weight for {axis!r} must be a finite number >= 0, got {weight}")
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
    available = {a: full[a] for a in RADAR_AXES if raw_axes.get(a) is not None}
    total = sum(available.values())
    if not available or total == 0:
        return Profile(None, {a: 0.0 for a in available} if available else {})
    normalized = {a: w / total for a, w in available.items()}
    score = sum(w * raw_axes[a] for a, w in available.items()) / total
    return Profile(round(score, policy.score_decimals), normalized)


def window_positions(groups: AgentGroups, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices selected by ``mask`` and each one's 0-based position within its agent, newest first."""
    idx = np.flatnonzero(mask)
    codes = groups.codes[idx]
    starts = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=groups.size))[:-1]))
    return idx, np.arange(len(idx)) - starts[codes]


def radar_window(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                 groups: AgentGroups | None = None) -> pd.DataFrame:
    """Each agent's latest ``policy.radar_window`` terminal runs (SPEC 4), newest first."""
    groups = groups or agent_groups(runs)
    idx, position = window_positions(groups, status_mask(runs, TERMINAL_STATUSES))
    return runs.take(idx[position < policy.radar_window])


def _median(values: pd.Series, agents: pd.Series) -> pd.DataFrame:
    ok = values.notna()
    grouped = values[ok].groupby(agents[ok], sort=False)
    return pd.DataFrame({"count": grouped.size(), "p50": grouped.median()})


def fitness_radar(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                  groups: AgentGroups | None = None) -> dict[str, Radar]:
    """The five radar axes for every agent of a canonical runs frame, keyed by agent_id (SPEC 4)."""
    groups = groups or agent_groups(runs)
    window = radar_window(runs, policy, groups)
    agents = window["agent_id"]
    window_runs = agents.value_counts(sort=False)
    known, succeeded = outcome_arrays(window)
    outcomes = pd.DataFrame({"agent_id": agents[known], "task_id": window["task_id"][known],
                             "success": succeeded[known].astype(float)})
    correct = outcomes.groupby("agent_id", sort=False)["success"].agg(["size", "sum"])
    latency = _median(window["latency_ms"], agents)
    cost = _median(window["cost_usd"], agents)
    steps = _median(window["steps"], agents)
    per_task = outcomes.groupby(["agent_id", "task_id"], sort=False)["success"].agg(["size", "mean"])
    per_task = per_task[per_task["size"] >= policy.robustness_min_outcomes]
    p = per_task["mean"]
    robust = (1 - 4 * p * (1 - p)).groupby(level="agent_id", sort=False).agg(["size", "mean"])

    def get(frame: pd.DataFrame, agent: str, column: str, default=np.nan):
        return frame.at[agent, column] if agent in frame.index else default

    out: dict[str, Radar] = {}
    for agent in groups.agents:
        reasons: dict[str, str] = {}
        axes: dict[str, float | None] = {}
        n_known, n_success = int(get(correct, agent, "size", 0)), int(get(correct, agent, "sum", 0))
        n_window = int(window_runs.get(agent, 0))
        if n_known:
            axes["correctness"] = 100 * n_success / n_known
            reasons["correctness"] = f"{n_success} successes of {n_known} known outcomes in the window"
        else:
            axes["correctness"] = None
            reasons["correctness"] = ("no terminal run in the window" if n_window == 0
                                      else f"no known outcome among the {n_window} window runs")
        n_lat, p50_lat = int(get(latency, agent, "count", 0)), optional(get(latency, agent, "p50"))
        need = policy.radar_latency_min_runs
        if n_lat >= need:
            axes["latency"] = 100 * policy.latency_anchors(p50_lat)
            reasons["latency"] = f"median latency {p50_lat:,.1f} ms over {n_lat} runs"
        else:
            axes["latency"] = None
            reasons["latency"] = (f"latency suppressed: {n_lat} of {need} runs needed"
                                  + (f"; raw median {p50_lat:,.0f} ms" if p50_lat is not None else ""))
        n_cost, p50_cost = int(get(cost, agent, "count", 0)), optional(get(cost, agent, "p50"))
        if n_cost:
            axes["cost"] = 100 * policy.cost_anchors(p50_cost)
            reasons["cost"] = f"median cost ${p50_cost:,.4f} over {n_cost} runs"
        else:
            axes["cost"] = None
            reasons["cost"] = "no cost recorded in the window"
        n_steps, p50_steps = int(get(steps, agent, "count", 0)), optional(get(steps, agent, "p50"))
        if n_steps and p50_steps is not None and _any_nonzero_steps(window, agent, n_steps, p50_steps):
            axes["tool_efficiency"] = 100 * policy.steps_anchors(p50_steps)
            reasons["tool_efficiency"] = f"median {p50_steps:g} steps over {n_steps} runs"
        else:
            axes["tool_efficiency"] = None
            reasons["tool_efficiency"] = ("no steps recorded in the window" if not n_steps
                                          else "every recorded step count is 0: no tool axis")
        n_tasks = int(get(robust, agent, "size", 0))
        if n_tasks:
            axes["robustness"] = 100 * float(get(robust, agent, "mean"))
            reasons["robustness"] = (f"mean of 1 - 4p(1-p) over {n_tasks} task(s) with at least "
                                     f"{policy.robustness_min_outcomes} known outcomes")
        else:
            axes["robustness"] = None
            reasons["robustness"] = (f"no task with at least {policy.robustness_min_outcomes} known outcomes "
                                     "in the window")
        out[agent] = Radar(agent, n_window, axes, reasons, n_known, n_success, n_lat, p50_lat, n_cost,
                           p50_cost, n_steps, p50_steps, n_tasks, policy)
    return out


def _any_nonzero_steps(window: pd.DataFrame, agent: str, n_steps: int, p50: float) -> bool:
    # A median above 0 proves a non-zero value; only a zero median needs a look at the values.
    if p50 > 0:
        return True
    steps = window.loc[window["agent_id"] == agent, "steps"]
    return bool((steps.fillna(0) > 0).any())
