"""The fitness radar's axes (SPEC 4): one record per axis, the only place an axis is defined.

An :class:`Axis` says what the axis is called, the rule in words (with its provenance, for the
methodology page), how its 0-100 value is computed from the window aggregates (vectorized over
agents; NaN where the window lacks evidence) and why an agent has that value or none. The radar,
its chart, the sliders, the profile weights, the CSV columns and the receipts all iterate over
:data:`AXES`; adding an axis means adding a record here (and, if it reads something new, a field
of ``RadarAggregates`` with its aggregate in each engine).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from scoring.contract.policy import RADAR_AXIS_NAMES, Policy
from scoring.measures._groups import optional, safe_divide
from scoring.measures.facts import Fact


@dataclass(frozen=True)
class RadarAggregates:
    """Per-agent window aggregates the radar reads (arrays indexed by agent code), from any engine.

    Per (agent, task) with known outcomes in the window, sorted by agent code then task_id as text:
    ``task_agent`` (agent code), ``task_n`` (known outcomes) and ``task_c`` (successes).
    """

    n_window: np.ndarray
    n_known: np.ndarray
    n_success: np.ndarray
    n_lat: np.ndarray
    p50_lat: np.ndarray
    n_cost: np.ndarray
    p50_cost: np.ndarray
    n_steps: np.ndarray
    p50_steps: np.ndarray
    nonzero_steps: np.ndarray
    task_agent: np.ndarray
    task_n: np.ndarray
    task_c: np.ndarray


Provenance = Literal["published", "explorer-defined"]
Values = Callable[["RadarAggregates", "Policy"], np.ndarray]
Reasons = Callable[["RadarAggregates", "Policy"], list[Fact]]


@dataclass(frozen=True)
class Axis:
    """One radar axis."""

    name: str
    label: str
    rules: tuple[tuple[Callable[[Policy], str], Provenance], ...]
    value: Values  # 0-100 per agent, NaN where the axis is unavailable
    reasons: Reasons  # per agent, why it has its value (or none)


# --------------------------------------------------------------------------- correctness


def _correctness(agg: RadarAggregates, policy: Policy) -> np.ndarray:
    return 100 * safe_divide(agg.n_success.astype(float), agg.n_known.astype(float))


def _per_agent(reason: Callable[[RadarAggregates, int, Policy], Fact]) -> Reasons:
    """A reason for one agent, made into the reasons of every agent."""
    return lambda agg, policy: [reason(agg, i, policy) for i in range(len(agg.n_window))]


def _correctness_reason(agg: RadarAggregates, i: int, policy: Policy) -> Fact:
    if agg.n_known[i]:
        return Fact("{s:count} successes of {k:count} known outcomes in the window",
                    {"s": agg.n_success[i], "k": agg.n_known[i]})
    if agg.n_window[i] == 0:
        return Fact("no terminal run in the window")
    return Fact("no known outcome among the {n:count} window runs", {"n": agg.n_window[i]})


# --------------------------------------------------------------------------- latency


def _latency(agg: RadarAggregates, policy: Policy) -> np.ndarray:
    value = 100 * policy.latency_anchors(np.nan_to_num(agg.p50_lat))
    return np.where(agg.n_lat >= policy.radar_latency_min_runs, value, np.nan)


def _latency_reason(agg: RadarAggregates, i: int, policy: Policy) -> Fact:
    values = {"p50": optional(agg.p50_lat[i]), "n": agg.n_lat[i], "need": policy.radar_latency_min_runs}
    if agg.n_lat[i] >= policy.radar_latency_min_runs:
        return Fact("median latency {p50:ms} over {n:count} runs", values)
    if agg.n_lat[i]:
        return Fact("latency suppressed: {n:count|run|runs} with a latency, {need:count} needed; raw median {p50:ms}",
                    values)
    return Fact("latency suppressed: no run with a latency, {need:count} needed", values)


# --------------------------------------------------------------------------- cost


def _cost(agg: RadarAggregates, policy: Policy) -> np.ndarray:
    return np.where(agg.n_cost > 0, 100 * policy.cost_anchors(np.nan_to_num(agg.p50_cost)), np.nan)


def _cost_reason(agg: RadarAggregates, i: int, policy: Policy) -> Fact:
    if agg.n_cost[i]:
        return Fact("median cost {p50:usd} over {n:count} runs", {"p50": optional(agg.p50_cost[i]), "n": agg.n_cost[i]})
    return Fact("no cost recorded in the window")


# --------------------------------------------------------------------------- tool efficiency


def _tool_efficiency(agg: RadarAggregates, policy: Policy) -> np.ndarray:
    return np.where(agg.nonzero_steps > 0, 100 * policy.steps_anchors(np.nan_to_num(agg.p50_steps)), np.nan)


def _tool_efficiency_reason(agg: RadarAggregates, i: int, policy: Policy) -> Fact:
    if agg.nonzero_steps[i]:
        return Fact("median {p50:steps} over {n:count} runs", {"p50": optional(agg.p50_steps[i]), "n": agg.n_steps[i]})
    if agg.n_steps[i]:
        return Fact("every recorded step count is 0: no tool axis")
    return Fact("no steps recorded in the window")


# --------------------------------------------------------------------------- robustness


def _robust_tasks(agg: RadarAggregates, policy: Policy) -> tuple[np.ndarray, np.ndarray]:
    """Per agent: the kept tasks (enough known outcomes) and the sum of r = 1 - 4p(1-p) over them."""
    kept = agg.task_n >= policy.robustness_min_outcomes
    p = agg.task_c[kept] / agg.task_n[kept]
    agents = agg.task_agent[kept]
    size = len(agg.n_window)
    return np.bincount(agents, minlength=size), np.bincount(agents, weights=1 - 4 * p * (1 - p), minlength=size)


def _robustness(agg: RadarAggregates, policy: Policy) -> np.ndarray:
    tasks, total = _robust_tasks(agg, policy)
    return 100 * safe_divide(total, tasks.astype(float))


def _robustness_reasons(agg: RadarAggregates, policy: Policy) -> list[Fact]:
    need = policy.robustness_min_outcomes
    return [Fact("mean of 1 - 4p(1-p) over {tasks:count|task|tasks} with at least {need:count} known outcomes",
                 {"tasks": int(n), "need": need}) if n else
            Fact("no task with at least {need:count} known outcomes in the window", {"need": need})
            for n in _robust_tasks(agg, policy)[0]]


def robustness_tasks(agg: RadarAggregates, policy: Policy) -> np.ndarray:
    """Tasks kept by the robustness axis, per agent (reported as ``robustness_tasks``)."""
    return _robust_tasks(agg, policy)[0]


AXES: tuple[Axis, ...] = (
    Axis("correctness", "Correctness",
         ((lambda p: "Correctness = successes ÷ known outcomes in the window.", "published"),),
         _correctness, _per_agent(_correctness_reason)),
    Axis("latency", "Latency",
         ((lambda p: f"Latency = latency anchors(median latency); suppressed below {p.radar_latency_min_runs} "
                     "recorded latencies, the raw median still shown.", "published"),),
         _latency, _per_agent(_latency_reason)),
    Axis("cost", "Cost",
         ((lambda p: "Cost = cost anchors(median cost); unavailable without a recorded cost.", "published"),),
         _cost, _per_agent(_cost_reason)),
    Axis("tool_efficiency", "Tool efficiency",
         ((lambda p: "Tool efficiency = steps anchors(median steps); unavailable when no step is recorded or every "
                     "recorded count is 0.", "published"),
          (lambda p: "The steps anchors themselves.", "explorer-defined")),
         _tool_efficiency, _per_agent(_tool_efficiency_reason)),
    Axis("robustness", "Robustness",
         ((lambda p: f"Robustness: tasks with at least {p.robustness_min_outcomes} known outcomes; per task p = "
                     "success share and r = 1 − 4p(1 − p) (1 when always or never solved, 0 at 50/50); the axis "
                     "is the mean r.", "explorer-defined"),),
         _robustness, _robustness_reasons),
)
AXIS_BY_NAME = {a.name: a for a in AXES}
RADAR_AXES: tuple[str, ...] = tuple(a.name for a in AXES)
if RADAR_AXES != RADAR_AXIS_NAMES:  # the policy names the axes it weighs (policy.py sits below this module)
    raise ImportError(f"the axes {RADAR_AXES} differ from policy.RADAR_AXIS_NAMES {RADAR_AXIS_NAMES}")
AXIS_LABELS: dict[str, str] = {a.name: a.label for a in AXES}
