"""Headline composite (SPEC 3): the canonical 0-100 ranking score.

Cohort: every ``completed`` run of the agent, with no window.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._groups import AgentGroups, agent_groups, optional, safe_divide
from .policy import CANONICAL_POLICY, Policy


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

    @property
    def ranked(self) -> bool:
        return self.score is not None

    @property
    def flags(self) -> tuple[str, ...]:
        """Short labels for the leaderboard: unranked, floor, neutral consistency, missing data."""
        if not self.ranked:
            return ("unranked",)
        out = []
        if self.zero_success_floor:
            out.append("zero-success floor")
        if self.consistency_neutral:
            out.append("neutral consistency")
        if self.latency_runs == 0:
            out.append("no latency recorded")
        if self.cost_runs == 0:
            out.append("no cost recorded")
        return tuple(out)

    def contributions(self) -> dict[str, float] | None:
        """Points each component adds to the unfloored score (they sum to ``weighted_score``)."""
        if not self.ranked:
            return None
        p = self.policy
        return {
            "success": 100 * p.success_weight * self.success_rate,
            "execution": 100 * p.execution_weight * self.execution_score,
            "cost": 100 * p.cost_weight * self.cost_score,
        }

    def explain(self) -> list[str]:
        """Plain-language sentences a reviewer can read beside the score."""
        p = self.policy
        if not self.ranked:
            return ["No completed run: the agent has no headline score (unranked), and every factor is undefined."]
        lines = [
            f"Success rate {self.success_rate:.2%}: {self.successful_runs} successful of "
            f"{self.completed_runs} completed runs (runs with an unknown outcome count as not successful)."
        ]
        if self.latency_runs:
            lines.append(f"Average latency {self.avg_latency_ms:,.1f} ms over {self.latency_runs} runs maps to a "
                         f"latency score of {self.latency_score:.4f} on the published anchors.")
        else:
            lines.append("No completed run recorded a latency: the latency score is 0 (data-quality flag).")
        if self.consistency_neutral:
            lines.append(f"Only {self.latency_runs} of the {p.consistency_min_latencies} recorded latencies needed: "
                         f"consistency takes the neutral factor {p.neutral_consistency}.")
        else:
            lines.append(f"Consistency 1 - pstdev/mean = 1 - {self.latency_pstdev_ms:,.1f}/{self.avg_latency_ms:,.1f} "
                         f"= {self.consistency:.4f} (clamped to 0-1) over {self.latency_runs} latencies.")
        if self.cost_runs:
            lines.append(f"Average cost ${self.avg_cost_usd:,.4f} over {self.cost_runs} runs maps to a cost score "
                         f"of {self.cost_score:.4f} on the published anchors.")
        else:
            lines.append("No completed run recorded a cost: the cost score is 0 (data-quality flag).")
        if self.zero_success_floor:
            lines.append(f"Zero-success floor: no completed run succeeded, so the score is 0 whatever the other "
                         f"factors (the weighted formula alone would give {self.weighted_score:.2f}).")
        return lines

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
        }


def composite(success_rate: float, execution_score: float, cost_score: float, policy: Policy = CANONICAL_POLICY) -> float:
    """The unrounded weighted composite on 0-100 (before the zero-success floor).

    Examples
    --------
    >>> round(composite(0.75, 0.8683333333333334, 0.725), 2)  # SPEC 6: execution (0.82667 + 0.91) / 2
    77.8
    """
    return 100 * (policy.success_weight * success_rate + policy.execution_weight * execution_score
                  + policy.cost_weight * cost_score)


def consistency_factor(pstdev: float, mean: float) -> float:
    """clamp(1 - pstdev/mean, 0, 1); 1.0 when the mean latency is 0 (SPEC 3, explorer-defined form)."""
    if mean == 0:
        return 1.0
    return min(1.0, max(0.0, 1.0 - pstdev / mean))


@dataclass(frozen=True)
class CohortStats:
    """What the headline reads from a completed-run cohort (scalars or equal-shape arrays)."""

    completed_runs: np.ndarray
    successful_runs: np.ndarray
    latency_runs: np.ndarray
    latency_mean: np.ndarray
    latency_pstdev: np.ndarray
    cost_runs: np.ndarray
    cost_mean: np.ndarray

    @classmethod
    def of(cls, headline: "Headline") -> "CohortStats":
        """The stats behind one agent's headline (for what-if recomputation)."""
        nan = float("nan")
        return cls(*(np.asarray(v, dtype=float) for v in (
            headline.completed_runs, headline.successful_runs, headline.latency_runs,
            nan if headline.avg_latency_ms is None else headline.avg_latency_ms,
            nan if headline.latency_pstdev_ms is None else headline.latency_pstdev_ms,
            headline.cost_runs, nan if headline.avg_cost_usd is None else headline.avg_cost_usd)))


def composite_arrays(stats: CohortStats, policy: Policy = CANONICAL_POLICY) -> dict[str, np.ndarray]:
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


def final_score(weighted: float, floor: bool, policy: Policy = CANONICAL_POLICY) -> float:
    """The published score: the zero-success floor, else the weighted composite rounded (Python round)."""
    return 0.0 if floor else round(float(weighted), policy.score_decimals)


def cohort_stats(runs: pd.DataFrame, groups: AgentGroups) -> CohortStats:
    """Per-agent sufficient statistics of the completed-run cohort (the aggregate step)."""
    completed = groups.completed
    latency = runs["latency_ms"].to_numpy(dtype=float)
    has_latency = completed & ~np.isnan(latency)
    n_latency, mean_latency = groups.mean(has_latency, latency)
    # Two-pass population standard deviation: no cancellation from sum of squares.
    deviation = np.where(has_latency, latency - mean_latency[groups.codes], 0.0)
    pstdev = np.sqrt(safe_divide(groups.total(has_latency, deviation**2), n_latency))
    cost = runs["cost_usd"].to_numpy(dtype=float)
    n_cost, mean_cost = groups.mean(completed & ~np.isnan(cost), cost)
    return CohortStats(groups.count(completed), groups.count(completed & groups.succeeded), n_latency,
                       mean_latency, pstdev, n_cost, mean_cost)


def headline_from_stats(agents: tuple[str, ...] | list[str], stats: CohortStats,
                        policy: Policy = CANONICAL_POLICY) -> dict[str, Headline]:
    """Headline results from per-agent cohort stats (the compute step; any engine's aggregates)."""
    f = composite_arrays(stats, policy)
    out: dict[str, Headline] = {}
    for i, agent in enumerate(agents):
        completed_runs = int(stats.completed_runs[i])
        if completed_runs == 0:
            out[agent] = Headline(agent, None, 0, 0, None, 0, None, None, None, None, None, None, 0,
                                  None, None, False, None, policy)
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
        )
    return out


def headline_scores(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                    groups: AgentGroups | None = None) -> dict[str, Headline]:
    """Headline composite for every agent of a canonical runs frame, keyed by agent_id (SPEC 3)."""
    groups = groups or agent_groups(runs)
    return headline_from_stats(groups.agents, cohort_stats(runs, groups), policy)


def leaderboard_order(headlines: dict[str, Headline]) -> list[str]:
    """Score descending, then agent_id ascending; unranked agents last (SPEC 3)."""
    ranked = sorted((h for h in headlines.values() if h.ranked), key=lambda h: (-h.score, h.agent_id))
    unranked = sorted(a for a, h in headlines.items() if not h.ranked)
    return [h.agent_id for h in ranked] + unranked
