"""The vendor's question (issue 15): where an agent's headline points went, what it would take to
overtake the agent above, which tasks and runs cost points, and which runs each measure reads.

Nothing here changes a canonical number, and no formula is written twice: every score is computed
by :func:`scoring.measures.headline.composite_arrays` and :func:`scoring.measures.headline.final_score` from cohort
statistics, and a component's weight is read from the policy.

**Points lost** (:func:`points_lost`). The composite (SPEC 3) has four components, each a 0-1
factor times a maximum: success 100 * 0.40, latency 100 * 0.30 * 0.5, consistency 100 * 0.30 * 0.5,
cost 100 * 0.30 (the 50/50 split of execution is explorer-defined). For each,
``earned = max * factor`` and ``lost = max - earned``. The identities (tested):

- ``sum(earned) == weighted_score``, the unrounded composite (equal in real arithmetic; in doubles
  within 1e-9, the same products added in another order);
- ``score == weighted_score + floor + rounding`` exactly in doubles, where ``floor`` is
  ``-weighted_score`` when the zero-success floor applies (its own negative line) and 0 otherwise,
  and ``rounding`` is ``score - weighted_score`` (at most half a unit of the last decimal) when it
  does not, and 0 otherwise;
- ``earned + lost == max`` for each component and the maxima sum to 100, so
  ``score + sum(lost) - floor - rounding == 100``.

**Overtake** (:func:`overtake`). The agent above is the previous one in leaderboard order (score
descending, then ``agent_id`` ascending: SPEC 3). With its rounded score ``s``, this agent passes it
with a rounded score of at least ``s`` when its id sorts first (an equal score puts it ahead), and of
at least ``s`` plus one unit of the last decimal otherwise. For each component alone, the smallest
change that gets there, exact: the composite is checked on the changed statistics, never estimated.

**Influence** (:func:`influence`; any set of runs: :func:`remove_runs`). For each task and each run
of the agent: ``points_if_removed``, the agent's unrounded weighted score without those runs minus
with them, from the cohort's exact sufficient statistics (:mod:`scoring.measures._exact`; no re-scoring loop).
Only completed runs enter the headline, so removing any other run changes nothing (0.0). Null when
the agent has no completed run left (it would be unranked). The published score after the removal,
with the floor and the rounding, is beside it, and two flags make the rules visible: ``hits_floor``
(it removes the last successful completed run: the zero-success floor sets the score to 0) and
``crosses_gate`` (it leaves fewer latencies than the consistency gate: consistency becomes neutral).
Against re-scoring the table without those runs, the counts, success rates and averages agree to
the bit; the spread is computed exactly and rounded once, where re-scoring rounds each squared
deviation, so the weighted scores agree to about 1e-13, not always to the bit (tested to 1e-9).

**Accounting** (:func:`accounting`). Every run of the agent, by status and outcome, and which runs
each measure reads or ignores and why, as :class:`~scoring.measures.facts.Fact` sentences.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from scoring.contract import format as fmt
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.rounding import TIE_WINDOW, published_round
from scoring.contract.schema import COMPLETED, HEADLINE_STATUSES, NOT_TERMINAL_STATUSES, STATUSES, TERMINAL_STATUSES
from scoring.measures._exact import CohortColumns, CohortSums, ExactColumns
from scoring.measures._groups import AgentGroups, agent_groups, headline_cohort
from scoring.measures.facts import Fact
from scoring.measures.headline import (
    Headline,
    HeadlineAggregates,
    composite,
    composite_arrays,
    final_score,
    headline_scores,
)
from scoring.measures.radar import window_rows
from scoring.measures.repeatability import repeatability_aggregates
from scoring.measures.report import Report, score_runs

COMPONENTS = ("success", "latency", "consistency", "cost")
_FACTOR = {"success": "success_rate", "latency": "latency_score", "consistency": "consistency",
           "cost": "cost_score"}


def component_weights(policy: Policy = CANONICAL_POLICY) -> dict[str, float]:
    """Each component's share of the composite (SPEC 3): execution's weight split by the latency share.

    Examples
    --------
    >>> component_weights()
    {'success': 0.4, 'latency': 0.15, 'consistency': 0.15, 'cost': 0.3}
    """
    share = policy.latency_share_of_execution
    return {"success": policy.success_weight, "latency": policy.execution_weight * share,
            "consistency": policy.execution_weight * (1 - share), "cost": policy.cost_weight}


def _json(value: Any) -> Any:
    """A JSON value: NaN and pandas' missing values become null, numpy scalars plain numbers."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, np.generic):
        return _json(value.item())
    return value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _json(v) for k, v in row.items()} for row in frame.to_dict("records")]


# --------------------------------------------------------------------------- points lost


@dataclass(frozen=True)
class ComponentPoints:
    """One component of the composite: its 0-1 factor, and the points it earns and loses out of its maximum."""

    name: str
    factor: float
    weight: float
    earned: float
    max: float
    lost: float

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "factor": self.factor, "earned": self.earned, "max": self.max,
                "lost": self.lost}


@dataclass(frozen=True)
class PointsLost:
    """Where an agent's headline points went (see the module docstring for the identities).

    ``floor`` is ``-weighted_score`` on the zero-success floor (else 0.0); ``rounding`` is
    ``score - weighted_score`` off the floor (else 0.0); ``score == weighted_score + floor + rounding``.
    """

    agent_id: str
    score: float
    weighted_score: float
    components: tuple[ComponentPoints, ...]
    floor: float
    rounding: float
    zero_success_floor: bool
    policy: Policy = field(repr=False)

    @property
    def total_lost(self) -> float:
        """Points short of 100: ``sum(lost) - floor - rounding`` (up to the last bits)."""
        return 100.0 - self.score

    def component(self, name: str) -> ComponentPoints:
        return next(c for c in self.components if c.name == name)

    def facts(self) -> list[Fact]:
        out = [Fact("{name:text}: {earned:score} of {max:score} points ({lost:score} lost; factor {factor:factor}).",
                    c.to_json()) for c in self.components]
        v = {"weighted": self.weighted_score, "score": self.score, "rounding": self.rounding}
        if self.zero_success_floor:
            out.append(Fact("Zero-success floor: no completed run succeeded, so the {weighted:number} points the "
                            "formula gives are all taken away; the score is 0.", v))
        elif self.rounding:
            out.append(Fact("Rounding to the published decimals: {weighted:number} becomes {score:score}.", v))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "weighted_score": self.weighted_score,
                "components": [c.to_json() for c in self.components],
                "zero_success_floor": self.floor, "rounding": self.rounding, "total_lost": self.total_lost}


def points_lost(headline: Headline) -> PointsLost | None:
    """Per component, the points earned, the maximum and the points lost; None for an unranked agent.

    Examples
    --------
    >>> from scoring import headline_scores, runs_from_records
    >>> rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed",
    ...          "success": i < 3, "latency_ms": 1000.0, "cost_usd": 0.01} for i in range(4)]
    >>> p = points_lost(headline_scores(runs_from_records(rows))["a"])
    >>> [(c.name, round(c.earned, 4), c.max) for c in p.components]
    [('success', 30.0, 40.0), ('latency', 14.0, 15.0), ('consistency', 7.5, 15.0), ('cost', 24.0, 30.0)]
    >>> p.score, p.rounding
    (75.5, 0.0)
    """
    if not headline.ranked or headline.weighted_score is None or headline.score is None:
        return None
    weights = component_weights(headline.policy)
    components = []
    for name in COMPONENTS:
        factor = float(getattr(headline, _FACTOR[name]))
        top = 100 * weights[name]
        earned = top * factor
        components.append(ComponentPoints(name, factor, weights[name], earned, top, top - earned))
    w, score = headline.weighted_score, headline.score
    floor = -w if headline.zero_success_floor else 0.0
    rounding = 0.0 if headline.zero_success_floor else score - w
    return PointsLost(headline.agent_id, score, w, tuple(components), floor, rounding,
                      headline.zero_success_floor, headline.policy)


# --------------------------------------------------------------------------- overtake


def _evaluate(stats: HeadlineAggregates, policy: Policy) -> tuple[float, float]:
    """(unrounded weighted score, published score) of one cohort's statistics: the one formula."""
    f = composite_arrays(stats, policy)
    weighted = float(f["weighted_score"])
    return weighted, final_score(weighted, bool(f["zero_success_floor"]), policy)


def smallest_weighted_for(target: float, decimals: int) -> float:
    """The smallest double whose published rounding (scoring.contract.rounding) is at least ``target``.

    Examples
    --------
    >>> w = smallest_weighted_for(76.31, 2)  # 76.305 is a half-way point: to even, 76.30
    >>> published_round(w, 2), published_round(math.nextafter(w, 0), 2), w > 76.305
    (76.31, 76.3, True)
    >>> w = smallest_weighted_for(76.32, 2)  # 76.315 rounds to even, 76.32: so does a little less
    >>> published_round(w, 2), published_round(math.nextafter(w, 0), 2), w < 76.315
    (76.32, 76.31, True)
    """
    half = target - 0.5 * 10.0 ** -decimals
    # The half-way point below target rounds to target when target's last digit is even: the answer is then
    # the window's lower end, else just past its upper end. Either is within a few units of this start.
    up = round(target * 10.0 ** decimals) % 2 == 0
    w = half - TIE_WINDOW if up else half + TIE_WINDOW
    for _ in range(10_000):  # a few steps: the start is within a rounding of the answer
        if published_round(w, decimals) < target:
            break
        w = math.nextafter(w, -math.inf)
    for _ in range(10_000):
        if published_round(w, decimals) >= target:
            break
        w = math.nextafter(w, math.inf)
    return w


def _smallest_int(reaches: Callable[[int], bool], low: int, high: int) -> int | None:
    """The smallest k in [low, high] with ``reaches(k)`` (monotone), or None."""
    if low > high or not reaches(high):
        return None
    while low < high:
        mid = (low + high) // 2
        if reaches(mid):
            high = mid
        else:
            low = mid + 1
    return low


@dataclass(frozen=True)
class ComponentChange:
    """The smallest change of one component alone that overtakes the agent above, or why none does.

    ``factor_needed`` is the component's 0-1 factor needed; ``value_needed`` the quantity a vendor
    changes: the success rate, the average latency (ms), the consistency, the average cost (USD).
    For success, ``runs_flipped`` counts unsuccessful completed runs turned successful (the same
    completed runs) and ``runs_added`` successful completed runs added that leave every other factor
    as it is (in data: runs with no latency or cost recorded). For consistency, ``pstdev_needed_ms``
    is the latency spread needed at the same average. For latency, every latency is scaled by
    ``value_needed / value_now`` (so consistency, a ratio, is unchanged).
    """

    component: str
    reachable: bool
    factor_now: float
    factor_needed: float | None
    value_now: float | None
    value_needed: float | None
    fact: Fact
    runs_flipped: int | None = None
    runs_added: int | None = None
    pstdev_needed_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"component": self.component, "reachable": self.reachable, "factor_now": self.factor_now,
                "factor_needed": self.factor_needed, "value_now": self.value_now,
                "value_needed": self.value_needed, "runs_flipped": self.runs_flipped,
                "runs_added": self.runs_added, "pstdev_needed_ms": self.pstdev_needed_ms, "text": str(self.fact)}


@dataclass(frozen=True)
class Overtake:
    """What it takes to pass the next higher-ranked agent (SPEC 3 order), per component alone.

    ``equal_suffices`` is true when this agent's id sorts before the other's, so an equal rounded
    score puts it ahead; ``target_score`` is the rounded score needed, ``points_needed`` its distance
    from the current score, and ``weighted_needed`` the smallest unrounded composite rounding to it.
    """

    agent_id: str
    score: float
    weighted_score: float
    above: str
    above_score: float
    equal_suffices: bool
    target_score: float
    points_needed: float
    weighted_needed: float
    changes: tuple[ComponentChange, ...]

    def change(self, component: str) -> ComponentChange:
        return next(c for c in self.changes if c.component == component)

    def facts(self) -> list[Fact]:
        v = {"agent": self.agent_id, "above": self.above, "above_score": self.above_score,
             "target": self.target_score, "points": self.points_needed}
        rule = ("{agent:text} sorts before {above:text}, so an equal score is enough" if self.equal_suffices
                else "{above:text} sorts before {agent:text}, so an equal score is not enough (ties are broken "
                     "by agent_id)")
        head = Fact("To overtake {above:text} ({above_score:score}) the score must reach {target:score}, "
                    "{points:score} points more: " + rule + ".", v)
        return [head] + [c.fact for c in self.changes]

    def to_json(self) -> dict[str, Any]:
        return {"above": self.above, "above_score": self.above_score, "equal_suffices": self.equal_suffices,
                "target_score": self.target_score, "points_needed": self.points_needed,
                "weighted_needed": self.weighted_needed, "weighted_gap": self.weighted_needed - self.weighted_score,
                "changes": [c.to_json() for c in self.changes]}


def _nearest(intervals: Sequence[tuple[float, float]], value: float) -> tuple[float, float, float] | None:
    """The point of ``intervals`` nearest ``value``, with the interval it lies in."""
    best: tuple[float, float, float] | None = None
    for low, high in intervals:
        point = min(max(value, low), high)
        if best is None or abs(point - value) < abs(best[0] - value):
            best = (point, low, high)
    return best


def _nudged(value: float, inner: float, reaches: Callable[[float], bool]) -> float | None:
    """The double nearest ``value``, going toward ``inner``, that ``reaches`` (monotone there), or None.

    The inversion lands within a few roundings of the boundary; the search doubles its step toward
    ``inner`` until it reaches, then bisects back to the first double that does.

    Examples
    --------
    >>> _nudged(1.0, 2.0, lambda x: x >= 1.0 + 1e-15) == 1.0 + 1e-15  # 4 doubles away: the first that reaches
    True
    >>> _nudged(1.0, 2.0, lambda x: x >= 1.5), _nudged(1.0, 2.0, lambda x: x > 3.0)
    (1.5, None)
    """
    if reaches(value):
        return value
    sign = 1.0 if inner > value else -1.0
    failing, step = value, math.ulp(value)
    while True:
        candidate = value + sign * step
        if (candidate - inner) * sign >= 0:
            candidate = inner
        if math.isinf(candidate) or math.isnan(candidate):
            return None
        if reaches(candidate):
            break
        if candidate == inner:
            return None
        failing, step = candidate, step * 2
    while True:  # reaching at ``candidate``, not at ``failing``: bisect to adjacent doubles
        middle = failing + (candidate - failing) / 2
        if middle in (failing, candidate):
            return candidate
        if reaches(middle):
            candidate = middle
        else:
            failing = middle


def _success_change(h: Headline, stats: HeadlineAggregates, top: float, w_needed: float,
                    reaches: Callable[[HeadlineAggregates], bool]) -> ComponentChange:
    n, s = h.completed_runs, h.successful_runs
    rate = float(h.success_rate or 0.0)
    none = ComponentChange("success", False, rate, None, rate, None,
                           Fact("Not reachable by the success rate alone: its weight is 0."))
    weightless = top <= 0  # a policy may weigh success 0: then only lifting the zero-success floor counts
    if weightless and not h.zero_success_floor:
        return none
    needed: float | None = None
    if not weightless:
        # The continuous threshold: the composite is affine in the success rate (slope = the component's max).
        exec_score, cost_score = float(h.execution_score or 0.0), float(h.cost_score or 0.0)
        policy = h.policy
        guess = rate + (w_needed - float(h.weighted_score or 0.0)) / top
        needed = _nudged(guess, math.inf, lambda r: composite(r, exec_score, cost_score, policy) >= w_needed)
        needed = None if needed is None else max(needed, 0.0)

    def flipped(k: int) -> bool:
        return reaches(replace(stats, successful_runs=np.asarray(s + k, dtype=float)))

    def added(k: int) -> bool:
        return reaches(replace(stats, completed_runs=np.asarray(n + k, dtype=float),
                               successful_runs=np.asarray(s + k, dtype=float)))

    flips = _smallest_int(flipped, 1, n - s)
    adds = None
    high = 1
    while high < 2**62 and not added(high):
        high *= 2
    if high < 2**62:
        adds = _smallest_int(added, max(1, high // 2), high)
    v = {"need": needed, "now": rate, "flips": flips, "adds": adds, "n": n}  # counts of runs, hence "run(s)"
    if flips is None and adds is None:
        return ComponentChange("success", False, rate, needed, rate, needed, Fact(
            "Not reachable by the success rate alone: it would need a success rate of {need:pct2}, above 100%."
            if needed is not None and needed > 1 else
            "Not reachable by the success rate alone: even every completed run successful is not enough.", v))
    floor = " (and at least one success, which lifts the zero-success floor)" if h.zero_success_floor else ""
    ways = []
    if flips is not None:
        ways.append("{flips:count|more successful run|more successful runs} among the same "
                    "{n:count|completed run|completed runs}")
    if adds is not None:
        ways.append("{adds:count|more successful completed run|more successful completed runs} (with every other "
                    "factor unchanged)")
    text = ("The success rate has no weight, but a successful completed run lifts the zero-success floor: "
            if weightless else "Success rate at least {need:pct2} instead of {now:pct2}" + floor + ": ") + \
        ", or ".join(ways) + "."
    return ComponentChange("success", True, rate, needed, rate, needed, Fact(text, v), runs_flipped=flips,
                           runs_added=adds)


def _anchored_change(name: str, h: Headline, stats: HeadlineAggregates, top: float, w_needed: float,
                     reaches: Callable[[HeadlineAggregates], bool]) -> ComponentChange:
    """Latency or cost: the average needed, through the inverse of the anchors (SPEC 2)."""
    policy = h.policy
    latency = name == "latency"
    factor = float((h.latency_score if latency else h.cost_score) or 0.0)
    now = h.avg_latency_ms if latency else h.avg_cost_usd
    anchors = policy.latency_anchors if latency else policy.cost_anchors
    unit, label = ("ms", "average latency") if latency else ("usd", "average cost")
    v: dict[str, Any] = {"now": now, "factor": factor}
    if h.zero_success_floor:
        return ComponentChange(name, False, factor, None, now, None, Fact(
            f"Not reachable by the {label} alone: with no successful completed run the zero-success floor holds "
            "the score at 0."))
    if now is None:
        return ComponentChange(name, False, factor, None, None, None, Fact(
            f"Not reachable by the {label} alone: no completed run recorded a "
            f"{'latency' if latency else 'cost'} (the {name} score is 0)."))
    if top <= 0:
        return ComponentChange(name, False, factor, None, now, None, Fact(
            f"Not reachable by the {name} score alone: its weight is 0."))
    need_factor = factor + (w_needed - float(h.weighted_score or 0.0)) / top
    v["need_factor"], v["best"] = need_factor, max(anchors.scores)
    spot = _nearest(anchors.inverse(need_factor), now)
    if spot is None:
        return ComponentChange(name, False, factor, need_factor, now, None, Fact(
            f"Not reachable by the {name} score alone: it would need {{need_factor:factor}}, above the best the "
            "anchors give ({best:factor}).", v))
    point, low, high = spot
    inner = high if point == low else low

    def with_average(x: float) -> HeadlineAggregates:
        if latency:  # every latency scaled by x / now: the spread scales too, consistency is unchanged
            ratio = x / now if now else 0.0
            return replace(stats, latency_mean=np.asarray(x), latency_pstdev=stats.latency_pstdev * ratio)
        return replace(stats, cost_mean=np.asarray(x))

    value = _nudged(point, inner, lambda x: reaches(with_average(x)))
    if value is None:
        return ComponentChange(name, False, factor, need_factor, now, None, Fact(
            f"Not reachable by the {label} alone.", v))
    v["need"], v["reached"] = value, anchors(value)
    how = " (every latency scaled by the same factor, so consistency is unchanged)" if latency else ""
    return ComponentChange(name, True, factor, float(anchors(value)), now, value, Fact(
        f"{label.capitalize()} at most {{need:{unit}}} instead of {{now:{unit}}}{how}: a {name} score of "
        "{reached:factor} instead of {factor:factor}.", v))


def _consistency_change(h: Headline, stats: HeadlineAggregates, top: float, w_needed: float,
                        reaches: Callable[[HeadlineAggregates], bool]) -> ComponentChange:
    policy = h.policy
    now = float(h.consistency or 0.0)
    v: dict[str, Any] = {"now": now, "n": h.latency_runs, "gate": policy.consistency_min_latencies,
                         "neutral": policy.neutral_consistency, "pstdev": h.latency_pstdev_ms,
                         "mean": h.avg_latency_ms}
    if h.zero_success_floor:
        return ComponentChange("consistency", False, now, None, now, None, Fact(
            "Not reachable by consistency alone: with no successful completed run the zero-success floor holds "
            "the score at 0."))
    if h.consistency_neutral:
        return ComponentChange("consistency", False, now, None, now, None, Fact(
            "Not reachable by consistency alone: it is the neutral {neutral:number} until {gate:count} latencies "
            "are recorded ({n:count} now).", v))
    if top <= 0:
        return ComponentChange("consistency", False, now, None, now, None, Fact(
            "Not reachable by consistency alone: its weight is 0."))
    need = now + (w_needed - float(h.weighted_score or 0.0)) / top
    v["need"] = need
    mean = float(h.avg_latency_ms or 0.0)
    if need > 1 or mean == 0:
        return ComponentChange("consistency", False, now, need, now, None, Fact(
            "Not reachable by consistency alone: it would need {need:factor}, above its maximum of 1.", v))
    spread = max((1 - need) * mean, 0.0)
    value = _nudged(spread, 0.0, lambda p: reaches(replace(stats, latency_pstdev=np.asarray(p))))
    if value is None:
        return ComponentChange("consistency", False, now, need, now, None, Fact(
            "Not reachable by consistency alone.", v))
    reached = float(composite_arrays(replace(stats, latency_pstdev=np.asarray(value)), policy)["consistency"])
    v["reached"], v["spread"] = reached, value
    return ComponentChange("consistency", True, now, reached, now, reached, Fact(
        "Consistency at least {reached:factor} instead of {now:factor}: a latency spread (pstdev) of at most "
        "{spread:ms} instead of {pstdev:ms} at the same average {mean:ms}.", v), pstdev_needed_ms=value)


def overtake(report: Report, agent_id: str) -> Overtake | None:
    """What it takes to pass the next higher-ranked agent; None for the leader or an unranked agent.

    Raises KeyError for an agent not in the report.
    """
    agent = report.agent(agent_id)
    h = agent.headline
    if agent.rank is None or agent.rank == 1 or h.score is None or h.weighted_score is None:
        return None
    above = report.agents[agent.rank - 2].headline
    policy = report.policy
    decimals = policy.score_decimals
    above_score = float(above.score or 0.0)
    equal_suffices = agent_id < above.agent_id  # SPEC 3: ties on score go to the smaller agent_id
    target = above_score if equal_suffices else round(above_score + 10.0 ** -decimals, decimals)
    w_needed = smallest_weighted_for(target, decimals)
    stats = HeadlineAggregates.of(h)

    def reaches(changed: HeadlineAggregates) -> bool:
        return _evaluate(changed, policy)[1] >= target

    weights = component_weights(policy)
    changes = (
        _success_change(h, stats, 100 * weights["success"], w_needed, reaches),
        _anchored_change("latency", h, stats, 100 * weights["latency"], w_needed, reaches),
        _consistency_change(h, stats, 100 * weights["consistency"], w_needed, reaches),
        _anchored_change("cost", h, stats, 100 * weights["cost"], w_needed, reaches),
    )
    return Overtake(agent_id, h.score, h.weighted_score, above.agent_id, above_score, equal_suffices, target,
                    round(target - h.score, decimals), w_needed, changes)


# --------------------------------------------------------------------------- influence


@dataclass(frozen=True)
class Influence:
    """How many headline points an agent gains or loses if a task's runs, or one run, were removed.

    ``tasks`` (one row per task of the agent) and ``runs`` (one row per run) are sorted by
    ``points_if_removed`` descending (the runs that cost the most first; nulls last), then by id.
    Columns: the id (``task_id`` or ``run_id``), ``runs`` and ``completed`` removed (tasks), the run's
    ``task_id``, ``status``, ``success`` and ``in_headline`` (runs), then ``points_if_removed``
    (unrounded weighted score without minus with; NaN when the removal leaves the agent unranked),
    ``score_if_removed`` (the published score after the removal), ``score_change`` (its rounded
    difference), ``leaves_unranked``, ``hits_floor`` and ``crosses_gate``.
    """

    agent_id: str
    score: float | None
    weighted_score: float | None
    tasks: pd.DataFrame
    runs: pd.DataFrame
    policy: Policy = field(repr=False)

    def costliest_tasks(self, n: int = 5) -> pd.DataFrame:
        """The tasks whose removal gains the most points (those with a positive gain)."""
        return self.tasks[self.tasks["points_if_removed"] > 0].head(n)

    def costliest_runs(self, n: int = 20) -> pd.DataFrame:
        """The runs whose removal gains the most points (those with a positive gain)."""
        return self.runs[self.runs["points_if_removed"] > 0].head(n)

    def most_influential_runs(self, n: int = 20) -> pd.DataFrame:
        """The runs whose removal moves the weighted score most, either way (gates and floors first among equals)."""
        key = self.runs["points_if_removed"].abs().fillna(np.inf)
        order = np.lexsort((self.runs["run_id"].to_numpy(dtype=object).astype(str), -key.to_numpy()))
        return self.runs.iloc[order[:n]].reset_index(drop=True)

    def facts(self) -> list[Fact]:
        p = self.policy
        if self.score is None:
            return [Fact("No completed run: the agent has no headline score, so removing runs changes nothing "
                         "that can be measured.")]
        out = []
        ignored = int((~self.runs["in_headline"]).sum())
        if ignored:
            out.append(Fact("{n:count|run is|runs are} not completed: removing " + ("it" if ignored == 1 else "one")
                            + " changes nothing (0.0 points), as the headline reads completed runs only.",
                            {"n": ignored}))
        top = self.costliest_tasks(1)
        if len(top):
            row = top.iloc[0]
            out.append(Fact("Task {task:text} costs the most: without its {runs:count} runs the weighted score "
                            "would gain {points:gain} points.", {"task": row["task_id"], "runs": row["runs"],
                                                                   "points": row["points_if_removed"]}))
        gate = int(self.runs["crosses_gate"].sum())
        if gate:
            out.append(Fact("Removing any one of {n:count} runs would leave fewer than {gate:count} recorded "
                            "latencies: consistency would become the neutral {neutral:number}.",
                            {"n": gate, "gate": p.consistency_min_latencies, "neutral": p.neutral_consistency}))
        floor = self.runs[self.runs["hits_floor"]]
        if len(floor):
            out.append(Fact("Removing run {run:text} would remove the last successful completed run: the "
                            "zero-success floor would set the score to 0.", {"run": floor.iloc[0]["run_id"]}))
        unranked = self.runs[self.runs["leaves_unranked"]]
        if len(unranked):
            out.append(Fact("Removing run {run:text} would leave no completed run: the agent would be unranked.",
                            {"run": unranked.iloc[0]["run_id"]}))
        return out

    def to_json(self, top_runs: int | None = 20) -> dict[str, Any]:
        runs = self.runs if top_runs is None else self.most_influential_runs(top_runs)
        return {"tasks": _records(self.tasks), "runs": _records(runs)}


def note(row: pd.Series | dict, policy: Policy = CANONICAL_POLICY) -> Fact | None:
    """Why a removal row of :class:`Influence` is special, in words (None when it is not)."""
    if "in_headline" in row and not bool(row["in_headline"]):
        return Fact("not completed: the headline reads completed runs only")
    if COMPLETED in row and not int(row[COMPLETED]):  # a task row
        return Fact("no completed run: the headline reads completed runs only")
    if bool(row["leaves_unranked"]):
        return Fact("leaves no completed run: the agent would be unranked")
    parts = []
    if bool(row["hits_floor"]):
        parts.append("removes the last success: the zero-success floor sets the score to 0")
    if bool(row["crosses_gate"]):
        parts.append("leaves fewer than {gate:count} latencies: consistency becomes the neutral {neutral:number}")
    if not parts:
        return None
    return Fact("; ".join(parts), {"gate": policy.consistency_min_latencies, "neutral": policy.neutral_consistency})


def _removal_table(total: CohortSums, removed: CohortColumns, h: Headline, policy: Policy) -> pd.DataFrame:
    """The effect of removing each set of completed runs (exact statistics, the one formula)."""
    after = removed.left_from(total)
    f = composite_arrays(after.stats(), policy)
    gone, left = np.array(removed.completed, dtype=np.int64), np.array(after.completed, dtype=np.int64)
    weighted0, score0 = float(h.weighted_score or 0.0), float(h.score or 0.0)
    ranked = left > 0
    score = np.array([final_score(w, floor, policy) if r else np.nan for w, floor, r in
                      zip(f["weighted_score"].tolist(), f["zero_success_floor"].tolist(), ranked.tolist())])
    frame = pd.DataFrame({
        "points_if_removed": np.where(ranked, f["weighted_score"] - weighted0, np.nan),
        "score_if_removed": score,
        "score_change": [round(s - score0, policy.score_decimals) for s in score.tolist()],  # Python floats: fast
        "leaves_unranked": ~ranked,
        "hits_floor": ranked & (total.successes > 0) & (np.array(after.successes) == 0),
        "crosses_gate": ranked & (total.latency_runs >= policy.consistency_min_latencies)
                        & (np.array(after.latency_runs) < policy.consistency_min_latencies),
    })
    if total.completed == 0:  # unranked with or without these runs
        frame.loc[:, ["points_if_removed", "score_if_removed", "score_change"]] = np.nan
        frame["leaves_unranked"] = True
    else:  # nothing the headline reads removed: exactly nothing changes
        frame.loc[gone == 0, ["points_if_removed", "score_if_removed", "score_change"]] = (0.0, score0, 0.0)
    return frame


def _ordered(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    order = np.lexsort((frame[key].to_numpy(dtype=object).astype(str),
                        -frame["points_if_removed"].fillna(-np.inf).to_numpy()))
    return frame.iloc[order].reset_index(drop=True)


@dataclass(frozen=True)
class Removal:
    """The effect of removing a set of one agent's runs (the row of :class:`Influence`, for any set)."""

    agent_id: str
    runs: int
    completed: int
    points_if_removed: float | None
    score_if_removed: float | None
    score_change: float | None
    leaves_unranked: bool
    hits_floor: bool
    crosses_gate: bool

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("runs", "completed", "points_if_removed", "score_if_removed",
                                              "score_change", "leaves_unranked", "hits_floor", "crosses_gate")}


def _cohort(mine: pd.DataFrame) -> tuple[np.ndarray, ExactColumns]:
    """Which of an agent's rows are completed, and the exact columns of those."""
    completed, succeeded = headline_cohort(mine)
    return completed, ExactColumns.of(succeeded[completed], mine["latency_ms"].to_numpy(dtype=float)[completed],
                                      mine["cost_usd"].to_numpy(dtype=float)[completed])


def remove_runs(runs: pd.DataFrame, agent_id: str, run_ids: Sequence[str], policy: Policy = CANONICAL_POLICY,
                headline: Headline | None = None) -> Removal:
    """What removing the runs ``run_ids`` of one agent does to its headline (exact; ids of other agents ignored).

    Examples
    --------
    >>> from scoring import runs_from_records
    >>> rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed",
    ...          "success": i == 0, "latency_ms": 1000.0, "cost_usd": 0.01} for i in range(3)]
    >>> r = remove_runs(runs_from_records(rows), "a", ["r0"])  # the only success
    >>> r.hits_floor, r.score_if_removed, round(r.points_if_removed, 4)
    (True, 0.0, -13.3333)
    """
    mine = agent_rows(runs, agent_id)
    h = headline if headline is not None else headline_scores(mine, policy)[agent_id]
    completed, cols = _cohort(mine)
    chosen = mine["run_id"].astype(str).isin([str(r) for r in run_ids]).to_numpy(dtype=bool)
    position = np.cumsum(completed) - 1
    removed = cols.total([int(position[i]) for i in np.flatnonzero(chosen & completed)])
    row = _removal_table(cols.total(), CohortColumns.of([removed]), h, policy).iloc[0]
    nan = lambda v: None if math.isnan(v) else float(v)
    return Removal(agent_id, int(chosen.sum()), removed.completed, nan(row["points_if_removed"]),
                   nan(row["score_if_removed"]), nan(row["score_change"]), bool(row["leaves_unranked"]),
                   bool(row["hits_floor"]), bool(row["crosses_gate"]))


def agent_rows(runs: pd.DataFrame, agent_id: str) -> pd.DataFrame:
    """One agent's rows of a canonical runs frame (newest first); KeyError if it has none."""
    mask = (runs["agent_id"] == agent_id).to_numpy(dtype=bool)
    if not mask.any():
        raise KeyError(agent_id)
    return runs[mask]


def influence(runs: pd.DataFrame, agent_id: str, policy: Policy = CANONICAL_POLICY,
              headline: Headline | None = None) -> Influence:
    """Points gained or lost by removing each task's runs and each run of one agent (exact; no re-scoring).

    ``runs`` is a canonical runs frame (all agents, or the agent's rows); ``headline`` the agent's
    headline under ``policy`` when already computed. KeyError for an agent with no run.

    Examples
    --------
    >>> from scoring import runs_from_records
    >>> rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed",
    ...          "success": i != 0, "latency_ms": 1000.0, "cost_usd": 0.01} for i in range(4)]
    >>> rows.append({"run_id": "f", "agent_id": "a", "task_id": "t", "status": "failed", "success": None,
    ...              "latency_ms": None, "cost_usd": None})
    >>> inf = influence(runs_from_records(rows), "a")
    >>> inf.runs[["run_id", "points_if_removed"]].values.tolist()  # r0 failed its task: 40 * (3/3 - 3/4)
    [['r0', 10.0], ['f', 0.0], ['r1', -3.3333333333333286], ['r2', -3.3333333333333286], ['r3', -3.3333333333333286]]
    """
    mine = agent_rows(runs, agent_id)
    h = headline if headline is not None else headline_scores(mine, policy)[agent_id]
    status = mine["status"].astype(str).to_numpy()
    completed, cols = _cohort(mine)
    total = cols.total()
    # Runs: a completed run removes its own statistics; any other run removes nothing.
    removed = cols.singles().placed(completed)
    run_frame = pd.DataFrame({
        "run_id": mine["run_id"].astype(str).to_numpy(dtype=object),
        "task_id": mine["task_id"].astype(str).to_numpy(dtype=object),
        "status": status.astype(object),
        "success": mine["success"].to_numpy(dtype=object, na_value=None),
        "in_headline": completed,
    })
    run_frame = pd.concat([run_frame, _removal_table(total, removed, h, policy)], axis=1)
    # Tasks: every run of the task removed (only the completed ones change anything).
    task_codes, task_names = pd.factorize(mine["task_id"].astype(str), sort=True)
    size = len(task_names)
    by_task = cols.grouped(task_codes[completed].tolist(), size)
    task_frame = pd.DataFrame({
        "task_id": np.asarray(task_names, dtype=object),
        "runs": np.bincount(task_codes, minlength=size),
        "completed": np.bincount(task_codes[completed], minlength=size),
    })
    task_frame = pd.concat([task_frame, _removal_table(total, by_task, h, policy)], axis=1)
    return Influence(agent_id, h.score, h.weighted_score, _ordered(task_frame, "task_id"),
                     _ordered(run_frame, "run_id"), policy)


# --------------------------------------------------------------------------- accounting

_IGNORED_TERMINAL = tuple(s for s in TERMINAL_STATUSES if s not in HEADLINE_STATUSES)
_NOT_TERMINAL = NOT_TERMINAL_STATUSES


@dataclass(frozen=True)
class Accounting:
    """Every run of one agent: by status and outcome, and which runs each measure reads (SPEC 3-5).

    The statuses sum to ``total_runs``; the headline reads the completed runs, the radar the latest
    ``radar_window`` terminal runs, pass^k every terminal run with a known outcome.
    """

    agent_id: str
    total_runs: int
    statuses: dict[str, int]
    unknown_outcomes: int
    headline_runs: int
    headline_unknown_outcomes: int
    terminal_runs: int
    radar_window: int
    radar_window_runs: int
    pass_k_outcomes: int
    pass_k_unknown_outcomes: int
    pass_k_tasks: int
    pass_k_qualifying_tasks: int
    pass_k_qualifying_outcomes: int
    pass_k_min_outcomes: int

    @property
    def headline_ignored(self) -> dict[str, int]:
        """Runs the headline does not read, by status (the published rule: all completed runs, no other)."""
        return {s: self.statuses[s] for s in STATUSES if s not in HEADLINE_STATUSES}

    def facts(self) -> list[Fact]:
        v: dict[str, Any] = {**self.statuses, "total": self.total_runs, "unknown": self.unknown_outcomes,
                             "headline": self.headline_runs, "headline_unknown": self.headline_unknown_outcomes,
                             "terminal": self.terminal_runs, "window": self.radar_window,
                             "window_runs": self.radar_window_runs,
                             "outside": self.terminal_runs - self.radar_window_runs,
                             "failed_timeout": sum(self.statuses[s] for s in _IGNORED_TERMINAL),
                             "not_terminal": sum(self.statuses[s] for s in _NOT_TERMINAL),
                             "outcomes": self.pass_k_outcomes, "pass_unknown": self.pass_k_unknown_outcomes,
                             "tasks": self.pass_k_tasks, "qualifying": self.pass_k_qualifying_tasks,
                             "qualifying_outcomes": self.pass_k_qualifying_outcomes,
                             "min_outcomes": self.pass_k_min_outcomes}
        return [
            Fact("{total:count} runs: {completed:count} completed, {failed:count} failed, {timeout:count} timed out, "
                 "{queued:count} queued, {running:count} running, {cancelled:count} cancelled; {unknown:count} with "
                 "an unknown outcome.", v),
            Fact("Headline (all completed runs): reads {headline:count} runs, {headline_unknown:count} of them with an "
                 "unknown outcome (counted as not successful). It ignores {failed_timeout:count} failed or timed-out "
                 "runs (terminal but never completed: the published rule) and {not_terminal:count} queued, running "
                 "or cancelled runs (not terminal: they enter no measure).", v),
            Fact("Fitness radar (latest {window:count} terminal runs): reads {window_runs:count} of {terminal:count} "
                 "terminal runs; {outside:count} older ones fall outside the window.", v),
            Fact("Repeatability pass^k (terminal runs with a known outcome): reads {outcomes:count|outcome|outcomes} "
                 "on {tasks:count|task|tasks}; left out: {pass_unknown:count|terminal run|terminal runs} with an "
                 "unknown outcome. {qualifying:count|task has|tasks have} at least "
                 "{min_outcomes:count} outcomes and {qualifying:count|qualifies|qualify} "
                 "({qualifying_outcomes:count|outcome|outcomes}).", v),
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "total_runs": self.total_runs, "statuses": dict(self.statuses), "unknown_outcomes": self.unknown_outcomes,
            "headline": {"runs": self.headline_runs, "unknown_outcomes": self.headline_unknown_outcomes,
                         "ignored": self.headline_ignored},
            "radar": {"window": self.radar_window, "window_runs": self.radar_window_runs,
                      "terminal_runs": self.terminal_runs,
                      "outside_window": self.terminal_runs - self.radar_window_runs},
            "pass_k": {"outcomes": self.pass_k_outcomes, "unknown_outcomes": self.pass_k_unknown_outcomes,
                       "tasks": self.pass_k_tasks, "qualifying_tasks": self.pass_k_qualifying_tasks,
                       "qualifying_outcomes": self.pass_k_qualifying_outcomes},
            "facts": [str(f) for f in self.facts()],
        }


def accounting(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
               groups: AgentGroups | None = None) -> dict[str, Accounting]:
    """The run accounting of every agent of a canonical runs frame, keyed by agent_id."""
    groups = groups or agent_groups(runs)
    size = groups.size
    status = pd.Categorical(runs["status"], categories=list(STATUSES)).codes.astype(np.int64)
    by_status = np.bincount(groups.codes * len(STATUSES) + status,
                            minlength=size * len(STATUSES)).reshape(size, len(STATUSES))
    window = np.bincount(groups.codes[window_rows(groups, policy)], minlength=size)
    agg = repeatability_aggregates(runs, groups)
    qualifies = agg.n >= policy.pass_k_min_outcomes
    counts = {
        "total": np.bincount(groups.codes, minlength=size),
        "unknown": groups.count(~groups.known),
        "headline_unknown": groups.count(groups.completed & ~groups.known),
        "terminal": groups.count(groups.terminal),
        "outcomes": groups.count(groups.terminal & groups.known),
        "pass_unknown": groups.count(groups.terminal & ~groups.known),
        "tasks": np.bincount(agg.agent, minlength=size),
        "qualifying": np.bincount(agg.agent[qualifies], minlength=size),
        "qualifying_outcomes": np.bincount(agg.agent[qualifies], weights=agg.n[qualifies], minlength=size),
    }
    out = {}
    for i, agent in enumerate(groups.agents):
        c = {k: int(v[i]) for k, v in counts.items()}
        statuses = {s: int(by_status[i, j]) for j, s in enumerate(STATUSES)}
        out[agent] = Accounting(agent, c["total"], statuses, c["unknown"], sum(statuses[s] for s in HEADLINE_STATUSES),
                                c["headline_unknown"], c["terminal"], policy.radar_window, int(window[i]),
                                c["outcomes"], c["pass_unknown"], c["tasks"], c["qualifying"],
                                c["qualifying_outcomes"], policy.pass_k_min_outcomes)
    return out


# --------------------------------------------------------------------------- one agent, everything


@dataclass(frozen=True)
class Explanation:
    """Everything :mod:`scoring.analysis.explain` says about one agent: the CLI's ``explain`` and the app's page."""

    agent_id: str
    rank: int | None
    agents: int
    headline: Headline
    points: PointsLost | None
    overtake: Overtake | None
    influence: Influence
    accounting: Accounting
    policy: Policy = field(repr=False)
    # The agent's notes (AgentReport.notes): runs left out, an estimated cost, why pass^k is missing and, for an
    # agent imported from a harness, the harness's own reading and why it differs from the canonical score.
    notes: tuple[str, ...] = ()
    harness: Any = None  # scoring.load.importers.reading.HarnessReading, for an agent imported from a harness

    def __str__(self) -> str:
        """The CLI's table form (``explain --format table``)."""
        return explain_table_text(self)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(str(self))}</pre>"

    def to_json(self, top_runs: int = 20) -> dict[str, Any]:
        """The CLI's JSON: components, overtake, tasks, the ``top_runs`` most influential runs, accounting."""
        return {
            "policy_version": self.policy.version,
            "agent_id": self.agent_id,
            "rank": self.rank,
            "agents": self.agents,
            "score": self.headline.score,
            "weighted_score": self.headline.weighted_score,
            "points": None if self.points is None else self.points.to_json(),
            "components": [] if self.points is None else [c.to_json() for c in self.points.components],
            "overtake": None if self.overtake is None else self.overtake.to_json(),
            **self.influence.to_json(top_runs),
            "accounting": self.accounting.to_json(),
            "notes": list(self.notes),
            **({"harness": self.harness.to_json()} if self.harness is not None else {}),
        }


def explain(runs: pd.DataFrame, agent_id: str, report: Report | None = None,
            policy: Policy = CANONICAL_POLICY) -> Explanation:
    """Points lost, overtake, influence and accounting of one agent of a canonical runs frame.

    ``report`` is the frame's report when already computed (its policy is then used). KeyError for
    an agent not in the frame.
    """
    if report is None:
        report = score_runs(runs, policy)
    policy = report.policy
    agent = report.agent(agent_id)
    mine = agent_rows(runs, agent_id)
    return Explanation(agent_id, agent.rank, len(report.agents), agent.headline, points_lost(agent.headline),
                       overtake(report, agent_id), influence(mine, agent_id, policy, agent.headline),
                       accounting(mine, policy)[agent_id], policy, tuple(agent.notes()), agent.harness)


# --------------------------------------------------------------------------- the terminal form
# ``python -m scoring explain FILE AGENT --format table`` (numbers by scoring.contract.format).

POINT_DECIMALS = 4  # points earned and lost are unrounded: four decimals let a reader add them up


def _points(value: object) -> str:
    return fmt.score(value, POINT_DECIMALS)


def _table(frame: pd.DataFrame, formats: dict, text: tuple[str, ...] = ("component", "task_id", "run_id", "status",
                                                                        "note")) -> str:
    """Columns formatted by ``formats``; text left-aligned, numbers right-aligned; trailing spaces dropped."""
    cells = {column: [formats[column](v) for v in frame[column]] for column in formats}
    widths = {column: max([len(column)] + [len(v) for v in values]) for column, values in cells.items()}

    def line(values: dict[str, str]) -> str:
        parts = [values[c].ljust(widths[c]) if c in text else values[c].rjust(widths[c]) for c in formats]
        return "  ".join(parts).rstrip()

    rows = [line({c: c for c in formats})]
    rows += [line({c: cells[c][i] for c in formats}) for i in range(len(frame))]
    return "\n".join(rows)


def explain_table_text(explanation: Explanation, top_runs: int = 20) -> str:
    """Points, overtake, influence and accounting of one agent as plain text."""
    e, h = explanation, explanation.headline
    decimals = e.policy.score_decimals
    rank = "unranked" if e.rank is None else f"rank {fmt.count(e.rank)} of {fmt.count(e.agents)}"
    lines = [f"{fmt.text(e.agent_id)}: headline {fmt.score(h.score, decimals)}, {rank} (policy {e.policy.version})", ""]

    lines.append("Points by component")
    if e.points is None:
        lines.append("  unranked: no completed run, no component")
    else:
        p = e.points
        rows = [{"component": c.name, "factor": c.factor, "earned": c.earned, "max": c.max, "lost": c.lost}
                for c in p.components]
        rows.append({"component": "weighted score", "factor": None, "earned": p.weighted_score,
                     "max": sum(c.max for c in p.components), "lost": sum(c.lost for c in p.components)})
        if p.zero_success_floor:
            rows.append({"component": "zero-success floor", "factor": None, "earned": p.floor, "max": None,
                         "lost": -p.floor})
        else:
            rows.append({"component": "rounding", "factor": None, "earned": p.rounding, "max": None,
                         "lost": -p.rounding})
        rows.append({"component": "score", "factor": None, "earned": p.score, "max": 100.0, "lost": p.total_lost})
        lines.append(_table(pd.DataFrame(rows), {"component": fmt.text, "factor": fmt.factor, "earned": _points,
                                                "max": _points, "lost": _points}))
        lines.append("  earned sums to the weighted score; weighted score + floor or rounding = score; "
                     "score + lost = 100")
        lines += [f"  {fact}" for fact in p.facts()[len(p.components):]]
    lines.append("")

    lines.append("Overtake")
    if e.overtake is None:
        lines.append("  first on the leaderboard: no agent above" if e.rank == 1 else "  unranked: no score to raise")
    else:
        o = e.overtake
        lines.append(f"  {o.facts()[0]}")
        for change in o.changes:
            lines.append(f"  {change.component:<12} {change.fact}")
    lines.append("")

    influence = e.influence
    lines.append("Tasks: points if all the task's runs were removed (unrounded weighted score without minus with)")
    tasks = influence.tasks.assign(note=[_note(r, e) for r in influence.tasks.to_dict("records")])
    lines.append(_table(tasks, {"task_id": fmt.text, "runs": fmt.count, "completed": fmt.count,
                                "points_if_removed": _points, "score_if_removed": lambda v: fmt.score(v, decimals),
                                "note": fmt.text}))
    lines.append("")
    if top_runs > 0:
        lines.append(f"Runs: the {top_runs} most influential (points if the run alone were removed)")
        runs = influence.most_influential_runs(top_runs)
        runs = runs.assign(note=[_note(r, e) for r in runs.to_dict("records")])
        lines.append(_table(runs, {"run_id": fmt.text, "task_id": fmt.text, "status": fmt.text,
                                   "points_if_removed": _points,
                                   "score_if_removed": lambda v: fmt.score(v, decimals), "note": fmt.text}))
    else:
        lines.append("Runs")
    lines += [f"  {fact}" for fact in influence.facts()]
    lines.append("")

    lines.append("Accounting")
    lines += [f"  {fact}" for fact in e.accounting.facts()]
    if e.notes:  # the report's notes for this agent: a harness's own reading and why it differs among them
        lines += ["", "Notes"] + [f"  {fmt.text(n)}" for n in e.notes]
    return "\n".join(lines)


def _note(row: dict, e: Explanation) -> str:
    fact = note(row, e.policy)
    return "" if fact is None else str(fact)
