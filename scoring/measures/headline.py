"""Headline composite (SPEC 3): the canonical 0-100 ranking score.

Cohort: every ``completed`` run of the agent, with no window.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from scoring.contract import format as fmt
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.rounding import TIE_WINDOW, published_round
from scoring.contract.schema import COMPLETED, TERMINAL_STATUSES
from scoring.measures._groups import (
    SPREAD_SCALE_AT,
    SPREAD_TINY_BELOW,
    AgentGroups,
    agent_groups,
    optional,
    safe_divide,
    spread_shift,
)
from scoring.measures.facts import Fact

# pandas is imported by the functions that build or read a frame: a report from an engine's aggregates
# (--engine sql) never loads it.
if TYPE_CHECKING:
    import pandas as pd

Number = TypeVar("Number", float, np.ndarray)  # the composite is the same formula on scalars and arrays

# Terminal statuses outside the headline cohort (SPEC 3: completed runs only), in the schema's order.
LEFT_OUT_STATUSES = tuple(s for s in TERMINAL_STATUSES if s != COMPLETED)
STATUS_WORDS = {"timeout": "timed out"}  # a status in a sentence ("29 timed out", never "29 timeout")
# The stable flag codes of ``headline.flags`` (SPEC 6) and their words on screen, in display order.
FLAG_WORDS = {
    "unranked": "unranked",
    "no_outcome_recorded": "no outcome recorded",
    "zero_success_floor": "zero-success floor",
    "neutral_consistency": "neutral consistency",
    "no_latency_recorded": "no latency recorded",
    "no_cost_recorded": "no cost recorded",
}


@dataclass(frozen=True)
class LeftOut:
    """An agent's terminal runs outside the headline cohort (SPEC 6 ``headline.left_out``).

    ``cost_usd`` sums the recorded costs of those runs (None when none of them recorded one).

    Examples
    --------
    >>> LeftOut.of({"failed": 0, "timeout": 1}, 5.58, 1).to_json()
    {'runs': 1, 'by_status': {'failed': 0, 'timeout': 1}, 'cost_usd': 5.58}
    """

    status_counts: tuple[tuple[str, int], ...] = tuple((s, 0) for s in LEFT_OUT_STATUSES)
    cost_usd: float | None = None
    cost_runs: int = 0

    @classmethod
    def of(cls, by_status: Mapping[str, int], cost_usd: float | None, cost_runs: int) -> LeftOut:
        counts = tuple((s, int(by_status.get(s, 0))) for s in LEFT_OUT_STATUSES)
        return cls(counts, cost_usd if cost_runs else None, int(cost_runs))

    @property
    def by_status(self) -> dict[str, int]:
        return dict(self.status_counts)

    @property
    def runs(self) -> int:
        return sum(n for _, n in self.status_counts)

    def to_json(self) -> dict:
        return {"runs": self.runs, "by_status": self.by_status, "cost_usd": self.cost_usd}


@dataclass(frozen=True)
class HeadlineAccounting:
    """Per agent (arrays indexed by agent): what the headline leaves out and how many completed runs
    have a known outcome. Every engine computes it from the same rows (SPEC 6 accounting fields)."""

    by_status: Mapping[str, np.ndarray]  # left-out status -> runs per agent
    left_out_cost: np.ndarray  # summed recorded cost of the left-out runs (0 where none)
    left_out_cost_runs: np.ndarray
    known_outcomes: np.ndarray  # completed runs whose success is not null

    def left_out(self, i: int) -> LeftOut:
        cost = float(self.left_out_cost[i])
        return LeftOut.of({s: int(v[i]) for s, v in self.by_status.items()},
                          cost if np.isfinite(cost) else None, int(self.left_out_cost_runs[i]))


def headline_accounting(runs: pd.DataFrame, groups: AgentGroups) -> HeadlineAccounting:
    """The accounting step of the pandas engine (see :class:`HeadlineAccounting`)."""
    status = runs["status"]
    left = groups.terminal & ~groups.completed
    cost = runs["cost_usd"].to_numpy(dtype=float)
    has_cost = left & ~np.isnan(cost)
    return HeadlineAccounting(
        by_status={s: groups.count((status == s).to_numpy(dtype=bool)) for s in LEFT_OUT_STATUSES},
        left_out_cost=groups.exact_total(has_cost, np.where(has_cost, cost, 0.0)),
        left_out_cost_runs=groups.count(has_cost),
        known_outcomes=groups.count(groups.completed & groups.known))


@dataclass(frozen=True)
class Headline:
    """One agent's headline composite with every intermediate value (SPEC 3)."""

    agent_id: str
    score: float | None
    completed_runs: int
    successful_runs: int
    success_rate: float | None
    latency_runs: int
    avg_latency_ms: float | None
    latency_score: float | None
    latency_pstdev_ms: float | None
    consistency: float | None
    consistency_neutral: bool | None
    execution_score: float | None
    cost_runs: int
    avg_cost_usd: float | None
    cost_score: float | None
    zero_success_floor: bool
    weighted_score: float | None
    policy: Policy
    left_out: LeftOut = field(default_factory=LeftOut)
    known_outcomes: int | None = None  # completed runs with a known outcome (None: not counted)

    @property
    def ranked(self) -> bool:
        return self.score is not None

    @property
    def terminal_runs(self) -> int:
        """Completed runs plus the terminal runs the headline leaves out."""
        return self.completed_runs + self.left_out.runs

    @property
    def no_outcome(self) -> bool:
        """Every completed run's outcome is unknown: a score of 0 would measure nothing."""
        return self.completed_runs > 0 and self.known_outcomes == 0

    @property
    def flag_codes(self) -> tuple[str, ...]:
        """The stable codes of SPEC 6 ``headline.flags`` (see :data:`FLAG_WORDS`)."""
        if not self.ranked:
            return ("unranked",)
        out = []
        if self.no_outcome:
            out.append("no_outcome_recorded")
        if self.zero_success_floor:
            out.append("zero_success_floor")
        if self.consistency_neutral:
            out.append("neutral_consistency")
        if self.latency_runs == 0:
            out.append("no_latency_recorded")
        if self.cost_runs == 0:
            out.append("no_cost_recorded")
        return tuple(out)

    def left_out_words(self) -> str | None:
        """What the headline leaves out, in words (None when it sees every terminal run).

        Examples
        --------
        >>> from scoring import runs_from_records, score_runs
        >>> rows = [{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed", "success": True,
        ...          "latency_ms": 1, "cost_usd": 0.5},
        ...         {"run_id": "r2", "agent_id": "a", "task_id": "t", "status": "timeout", "success": False,
        ...          "latency_ms": 1, "cost_usd": 5.58}]
        >>> words = score_runs(runs_from_records(rows)).agents[0].headline.left_out_words()
        >>> words.split(": ")[0]
        '1 of 2 terminal runs left out of the headline by the published rule (completed runs only)'
        >>> words.split(": ")[1]
        '1 timed out; they cost $5.58 (91.8% of the recorded spend)'
        """
        lo = self.left_out
        if not lo.runs:
            return None
        parts = ", ".join(f"{n:,} {STATUS_WORDS.get(status, status)}" for status, n in lo.status_counts if n)
        text = (f"{lo.runs:,} of {self.terminal_runs:,} terminal runs left out of the headline by the published "
                f"rule (completed runs only): {parts}")
        if lo.cost_usd is None and lo.cost_runs:  # (null in the JSON: no double holds the sum)
            return text + (f"; the {lo.cost_runs:,} costs they recorded add up to more than the largest number a "
                           "double holds (about 1.8e308), so their total is not given")
        if lo.cost_usd is None:
            return text + "; they recorded no cost"
        share = self.left_out_spend_share
        share_words = "" if share is None else f" ({100 * share:.1f}% of the recorded spend)"
        return text + f"; they cost {fmt.usd(lo.cost_usd)}{share_words}"  # money spelt once (fmt.usd)

    @property
    def left_out_spend_share(self) -> float | None:
        """The left-out runs' share of the recorded spend (theirs and the completed runs'); None where they recorded
        no cost (their cost is unknown: no share of it can be told, as the cost beside it is none), where nothing
        was spent, or where a total is past the largest double."""
        lo = self.left_out
        if lo.cost_usd is None:
            return None
        spend = (lo.cost_usd or 0.0) + (self.avg_cost_usd or 0.0) * self.cost_runs
        return (lo.cost_usd or 0.0) / spend if 0 < spend < math.inf else None

    @property
    def flags(self) -> tuple[str, ...]:
        """Short labels for the leaderboard: unranked, no outcome, floor, neutral consistency, missing data."""
        return tuple(FLAG_WORDS[c] for c in self.flag_codes)

    @classmethod
    def unranked(cls, agent_id: str, policy: Policy) -> Headline:
        """An agent with no completed run: no score, every factor undefined (SPEC 3)."""
        return cls(agent_id=agent_id, score=None, completed_runs=0, successful_runs=0, success_rate=None,
                   latency_runs=0, avg_latency_ms=None, latency_score=None, latency_pstdev_ms=None, consistency=None,
                   consistency_neutral=None, execution_score=None, cost_runs=0, avg_cost_usd=None, cost_score=None,
                   zero_success_floor=False, weighted_score=None, policy=policy)

    def contributions(self) -> dict[str, float] | None:
        """Points each component adds to the unfloored score (they sum to ``weighted_score``)."""
        if self.success_rate is None or self.execution_score is None or self.cost_score is None:
            return None  # unranked
        p = self.policy
        return {
            "success": 100 * p.success_weight * self.success_rate,
            "execution": 100 * p.execution_weight * self.execution_score,
            "cost": 100 * p.cost_weight * self.cost_score,
        }

    def explain(self) -> list[Fact]:
        """The score in sentences a reviewer can read beside it (rendered by the formatter)."""
        p = self.policy
        if not self.ranked:
            return [Fact("No completed run: the agent has no headline score (unranked), and every factor is "
                         "undefined.")]
        v = {**self.to_json(), "latency_runs": self.latency_runs, "cost_runs": self.cost_runs,
             "pstdev": self.latency_pstdev_ms, "weighted": self.weighted_score,
             "gate": p.consistency_min_latencies, "neutral": p.neutral_consistency}
        facts = [Fact("Success rate {success_rate:pct2}: {successful_runs:count} successful of {completed_runs:count} "
                      "completed runs (runs with an unknown outcome count as not successful).", v)]
        if self.latency_runs:
            facts.append(Fact("Average latency {avg_latency_ms:ms} over {latency_runs:count} runs maps to a latency "
                              "score of {latency_score:factor} on the published anchors.", v))
        else:
            facts.append(Fact("No completed run recorded a latency: the latency score is 0 (data-quality flag)."))
        if self.consistency_neutral:
            facts.append(Fact("{latency_runs:count|recorded latency|recorded latencies}, fewer than the {gate:count} "
                              "needed: consistency takes the neutral factor {neutral:number}.", v))
        else:
            facts.append(Fact("Consistency 1 - pstdev/mean = 1 - {pstdev:ms_fine}/{avg_latency_ms:ms_fine} = "
                              "{consistency:factor} (clamped to 0-1) over {latency_runs:count} latencies.", v))
        if self.cost_runs:
            facts.append(Fact("Average cost {avg_cost_usd:usd} over {cost_runs:count} runs maps to a cost score of "
                              "{cost_score:factor} on the published anchors.", v))
        else:
            facts.append(Fact("No completed run recorded a cost: the cost score is 0 (data-quality flag)."))
        if self.zero_success_floor:
            # the formula's own result, rounded as published (the worked formula's "round(...) = X" beside it)
            v["formula"] = published_round(float(self.weighted_score or 0.0), p.score_decimals)
            facts.append(Fact("Zero-success floor: no completed run succeeded, so the score is 0 whatever the other "
                              "factors (the weighted formula alone would give {formula:score}).", v))
        return facts

    def to_json(self) -> dict:
        """The SPEC 6 ``headline`` object."""
        return {
            "score": self.score,
            "completed_runs": self.completed_runs,
            "successful_runs": self.successful_runs,
            "success_rate": self.success_rate,
            "avg_latency_ms": self.avg_latency_ms,
            "latency_score": self.latency_score,
            "consistency": self.consistency,
            "consistency_neutral": self.consistency_neutral,
            "execution_score": self.execution_score,
            "avg_cost_usd": self.avg_cost_usd,
            "cost_score": self.cost_score,
            "zero_success_floor": self.zero_success_floor,
            "left_out": self.left_out.to_json(),
            "flags": list(self.flag_codes),
        }


def composite(success_rate: Number, execution_score: Number, cost_score: Number,
              policy: Policy = CANONICAL_POLICY) -> Number:
    """The unrounded weighted composite on 0-100 (before the zero-success floor).

    Examples
    --------
    >>> round(composite(0.75, 0.8683333333333334, 0.725), 2)  # SPEC 6: execution (0.82667 + 0.91) / 2
    77.8
    """
    return 100 * (policy.success_weight * success_rate + policy.execution_weight * execution_score
                  + policy.cost_weight * cost_score)


@dataclass(frozen=True)
class HeadlineAggregates:
    """What the headline reads from each agent's completed-run cohort (the contract of every engine).

    Arrays indexed by agent (or scalars). Means are correctly rounded (sum equal to ``math.fsum``);
    ``latency_pstdev`` is sqrt(fsum((x - latency_mean)^2) / latency_runs), so engines agree to the bit.
    """

    completed_runs: np.ndarray
    successful_runs: np.ndarray
    latency_runs: np.ndarray
    latency_mean: np.ndarray
    latency_pstdev: np.ndarray
    cost_runs: np.ndarray
    cost_mean: np.ndarray

    @classmethod
    def of(cls, headline: Headline) -> HeadlineAggregates:
        """The stats behind one agent's headline (for what-if recomputation)."""
        nan = float("nan")
        return cls(*(np.asarray(v, dtype=float) for v in (
            headline.completed_runs, headline.successful_runs, headline.latency_runs,
            nan if headline.avg_latency_ms is None else headline.avg_latency_ms,
            nan if headline.latency_pstdev_ms is None else headline.latency_pstdev_ms,
            headline.cost_runs, nan if headline.avg_cost_usd is None else headline.avg_cost_usd)))


def composite_arrays(stats: HeadlineAggregates, policy: Policy = CANONICAL_POLICY) -> dict[str, np.ndarray]:
    """Every headline factor from cohort stats, element-wise (SPEC 3), before rounding.

    The one implementation of the formula: the per-agent scores, the bootstrap and the
    sensitivity figures all call it. Float operations match Python's scalar arithmetic.
    """
    completed = np.asarray(stats.completed_runs, dtype=float)
    successes = np.asarray(stats.successful_runs, dtype=float)
    latency_runs = np.asarray(stats.latency_runs, dtype=float)
    mean = np.asarray(stats.latency_mean, dtype=float)
    pstdev = np.asarray(stats.latency_pstdev, dtype=float)
    success_rate = safe_divide(successes, completed)
    latency_score = np.where(latency_runs > 0, policy.latency_anchors(np.nan_to_num(mean)), 0.0)
    cost_score = np.where(np.asarray(stats.cost_runs) > 0,
                          policy.cost_anchors(np.nan_to_num(np.asarray(stats.cost_mean, dtype=float))), 0.0)
    neutral = latency_runs < policy.consistency_min_latencies
    measured = np.where(mean == 0, 1.0, np.clip(1.0 - safe_divide(pstdev, mean), 0.0, 1.0))
    consistency = np.where(neutral, policy.neutral_consistency, measured)
    share = policy.latency_share_of_execution
    execution = share * latency_score + (1 - share) * consistency
    weighted = composite(success_rate, execution, cost_score, policy)
    return {
        "success_rate": success_rate, "latency_score": latency_score, "consistency": consistency,
        "consistency_neutral": neutral, "execution_score": execution, "cost_score": cost_score,
        "weighted_score": weighted, "zero_success_floor": (completed > 0) & (successes == 0),
        "ranked": completed > 0,
    }


def final_score(weighted: Number, floor: bool, policy: Policy = CANONICAL_POLICY) -> float:
    """The published score: the zero-success floor, else the weighted composite rounded as published
    (:func:`~scoring.contract.rounding.published_round`: Python's round, a computed half read as the half)."""
    return 0.0 if floor else published_round(float(weighted), policy.score_decimals)


def final_scores(weighted: np.ndarray, floor: np.ndarray, policy: Policy = CANONICAL_POLICY) -> np.ndarray:
    """:func:`final_score` over arrays, equal to it element by element.

    Python's ``round(x, d)`` rounds the exact binary value of x to d decimals (half to even) and
    returns the double nearest that decimal. With y = x * 10**d, the integer r = rint(y) is that
    decimal's numerator unless y lies within the multiplication's error of a half-way point, and
    r / 10**d (one correctly rounded division of exact integers) is the double nearest it. Values
    near a half-way point (within the published rounding's TIE_WINDOW too), and any too large for
    the shortcut, are rounded one by one by :func:`published_round`.
    """
    weighted = np.asarray(weighted, dtype=np.float64)
    scale = 10.0 ** policy.score_decimals
    y = weighted * scale
    out = np.rint(y) / scale
    # The product's error is at most half a unit in its last place: a margin of four units decides.
    margin = np.maximum(4 * np.spacing(np.abs(y)), 2 * TIE_WINDOW * scale)
    doubtful = ~(np.abs(np.abs(y - np.trunc(y)) - 0.5) > margin) | ~(np.abs(y) < 2.0 ** 52)
    for i in np.flatnonzero(doubtful):
        out[i] = published_round(float(weighted[i]), policy.score_decimals)
    return np.where(np.asarray(floor, dtype=bool), 0.0, out)


def headline_aggregates(runs: pd.DataFrame, groups: AgentGroups) -> HeadlineAggregates:
    """The aggregate step: per-agent sufficient statistics of the completed-run cohort (SPEC 3)."""
    completed = groups.completed
    latency = runs["latency_ms"].to_numpy(dtype=float)
    has_latency = completed & ~np.isnan(latency)
    n_latency, mean_latency = groups.mean(has_latency, latency)
    # Two-pass population standard deviation (no cancellation), its sum correctly rounded like the means;
    # an agent with huge latencies has its deviations scaled so that their squares stay finite, one with tiny
    # latencies so that their squares keep their digits (spread_shift). Almost always neither: no pass for it.
    with np.errstate(invalid="ignore"):  # NaN (no latency) compares False
        unusual = bool(((latency >= 2.0 ** SPREAD_SCALE_AT) | ((latency > 0) & (latency < 2.0 ** -SPREAD_TINY_BELOW)))
                       .any()) if len(latency) else False
    if unusual:
        scale = spread_shift(groups.largest(has_latency, latency))
    else:
        scale = np.zeros(groups.size, dtype=np.int64)
    deviation = np.where(has_latency, latency - mean_latency[groups.codes], 0.0)
    if scale.any():  # almost never: no per-row ldexp of zero (two temporaries of every row fewer)
        deviation = np.ldexp(deviation, -scale[groups.codes])
    spread = safe_divide(groups.exact_total(has_latency, deviation * deviation), n_latency)
    pstdev = np.ldexp(np.sqrt(spread), scale)
    cost = runs["cost_usd"].to_numpy(dtype=float)
    n_cost, mean_cost = groups.mean(completed & ~np.isnan(cost), cost)
    return HeadlineAggregates(groups.count(completed), groups.count(completed & groups.succeeded), n_latency,
                              mean_latency, pstdev, n_cost, mean_cost)


def headline_from_aggregates(agents: tuple[str, ...] | list[str], stats: HeadlineAggregates,
                             policy: Policy = CANONICAL_POLICY,
                             accounting: HeadlineAccounting | None = None) -> dict[str, Headline]:
    """The compute step: headline results from per-agent aggregates (any engine's)."""
    f = composite_arrays(stats, policy)
    out: dict[str, Headline] = {}
    for i, agent in enumerate(agents):
        completed_runs = int(stats.completed_runs[i])
        extra: dict = {} if accounting is None else {
            "left_out": accounting.left_out(i), "known_outcomes": int(accounting.known_outcomes[i])}
        if completed_runs == 0:
            out[agent] = dataclasses.replace(Headline.unranked(agent, policy), **extra)
            continue
        floor = bool(f["zero_success_floor"][i])
        out[agent] = Headline(
            agent_id=agent,
            score=final_score(f["weighted_score"][i], floor, policy),
            completed_runs=completed_runs,
            successful_runs=int(stats.successful_runs[i]),
            success_rate=float(f["success_rate"][i]),
            latency_runs=int(stats.latency_runs[i]),
            avg_latency_ms=optional(stats.latency_mean[i]),
            latency_score=float(f["latency_score"][i]),
            latency_pstdev_ms=optional(stats.latency_pstdev[i]),
            consistency=float(f["consistency"][i]),
            consistency_neutral=bool(f["consistency_neutral"][i]),
            execution_score=float(f["execution_score"][i]),
            cost_runs=int(stats.cost_runs[i]),
            avg_cost_usd=optional(stats.cost_mean[i]),
            cost_score=float(f["cost_score"][i]),
            zero_success_floor=floor,
            weighted_score=float(f["weighted_score"][i]),
            policy=policy,
            **extra,
        )
    return out


def headline_scores(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                    groups: AgentGroups | None = None) -> dict[str, Headline]:
    """Headline composite for every agent of a canonical runs frame, keyed by agent_id (SPEC 3)."""
    groups = groups or agent_groups(runs)
    return headline_from_aggregates(groups.agents, headline_aggregates(runs, groups), policy,
                                    headline_accounting(runs, groups))


def leaderboard_order(headlines: dict[str, Headline]) -> list[str]:
    """Score descending, then agent_id ascending; unranked agents last (SPEC 3)."""
    ranked = sorted((h for h in headlines.values() if h.score is not None),
                    key=lambda h: (-float(h.score or 0.0), h.agent_id))
    unranked = sorted(a for a, h in headlines.items() if not h.ranked)
    return [h.agent_id for h in ranked] + unranked
