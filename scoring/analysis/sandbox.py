"""What-if policies for methodology review: edit constants, validate them, compare leaderboards.

The canonical policy never changes. A sandbox policy is another ``Policy`` value whose version
label carries ``+sandbox-<hash of its constants>``, so every number computed with it says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

# The policy's field table, its one validator and its JSON form live in scoring.contract.policy; they are
# re-exported here because a sandbox is where they are used.
from scoring.contract.policy import (
    CANONICAL_POLICY,
    FIELDS,
    HEADLINE_WEIGHTS,
    SANDBOX_MARK,
    FieldError,
    Policy,
    PolicyError,
    constants_hash,
    load_policy,
    policy_from_dict,
    policy_json,
    policy_to_dict,
)
from scoring.measures.report import Report

__all__ = ["FIELDS", "FieldError", "PolicyError", "balance_weights", "changed_constants", "constants_hash",
           "is_sandbox", "largest_moves_first", "load_policy", "policy_from_dict", "policy_json", "policy_to_dict",
           "rank_diff"]


def is_sandbox(policy: Policy) -> bool:
    return SANDBOX_MARK in policy.version


def changed_constants(edited: Mapping[str, Any], base: Policy = CANONICAL_POLICY) -> dict[str, Any]:
    """The constants of ``edited`` (a policy's plain dict, :func:`policy_to_dict`) that differ from ``base``'s.

    Examples
    --------
    >>> changed_constants({**policy_to_dict(CANONICAL_POLICY), "success_weight": 0.5, "cost_weight": 0.2})
    {'success_weight': 0.5, 'cost_weight': 0.2}
    """
    canonical = policy_to_dict(base)
    return {f.name: edited[f.name] for f in FIELDS if f.name in edited and edited[f.name] != canonical[f.name]}


def balance_weights(weights: Mapping[str, float], decimals: int = 2) -> dict[str, float]:
    """The three headline weights scaled to sum to 1, each rounded to ``decimals`` (the sandbox's "balance").

    Proportions are kept as closely as rounding allows (largest remainder), so the rounded weights sum
    to exactly 1. All three at 0 cannot be scaled: ValueError.

    Examples
    --------
    >>> balance_weights({"success_weight": 0.5, "execution_weight": 0.3, "cost_weight": 0.3})
    {'success_weight': 0.46, 'execution_weight': 0.27, 'cost_weight': 0.27}
    """
    values = [float(weights[name]) for name in HEADLINE_WEIGHTS]
    if any(not math.isfinite(v) or v < 0 for v in values):
        raise ValueError("each headline weight must be a finite number >= 0")
    total = math.fsum(values)
    if total == 0:
        raise ValueError("the three headline weights are all 0: there are no proportions to keep")
    unit = 10**decimals
    exact = [v / total * unit for v in values]
    whole = [math.floor(e) for e in exact]
    # Hand the units rounding left over to the largest remainders (ties: the first weight).
    for i in sorted(range(3), key=lambda i: (-(exact[i] - whole[i]), i))[:unit - sum(whole)]:
        whole[i] += 1
    return {name: w / unit for name, w in zip(HEADLINE_WEIGHTS, whole)}


def rank_diff(canonical: Report, sandbox: Report) -> pd.DataFrame:
    """Canonical and sandbox leaderboards side by side: rank moves, score deltas, floor and gate crossings.

    ``Rank move`` is positive when the agent climbs under the sandbox policy.
    """
    rows = []
    for a in canonical.agents:
        b = sandbox.agent(a.agent_id)
        ha, hb = a.headline, b.headline
        move = None if a.rank is None or b.rank is None else a.rank - b.rank
        delta = None if ha.score is None or hb.score is None else round(hb.score - ha.score,
                                                                        sandbox.policy.score_decimals)
        crossings = []
        if ha.zero_success_floor != hb.zero_success_floor:
            crossings.append("zero-success floor " + ("now applies" if hb.zero_success_floor else "lifted"))
        if ha.consistency_neutral != hb.consistency_neutral and ha.ranked:
            crossings.append("consistency gate " + ("no longer met" if hb.consistency_neutral else "now met"))
        rows.append({"Agent": a.agent_id, "Canonical rank": a.rank, "Sandbox rank": b.rank, "Rank move": move,
                     "Canonical score": ha.score, "Sandbox score": hb.score, "Score delta": delta,
                     "Crossings": ", ".join(crossings)})
    frame = pd.DataFrame(rows)
    for column in ("Canonical rank", "Sandbox rank", "Rank move"):
        frame[column] = frame[column].astype("Int64")
    for column in ("Canonical score", "Sandbox score", "Score delta"):
        frame[column] = frame[column].astype("Float64")
    return frame


def largest_moves_first(diff: pd.DataFrame) -> pd.DataFrame:
    """The rank changes, the largest rank move first, then the largest score change; equal moves in leaderboard
    order (canonical rank, unranked last), so an unedited sandbox lists the leaderboard, not the alphabet."""
    key = diff["Rank move"].abs().fillna(-1).astype(float) * 1e6 + diff["Score delta"].abs().fillna(0).astype(float)
    rank = diff["Canonical rank"].astype("Float64").fillna(float("inf")).astype(float)
    return diff.assign(_key=key, _rank=rank).sort_values(["_key", "_rank", "Agent"], ascending=[False, True, True]) \
        .drop(columns=["_key", "_rank"]).reset_index(drop=True)
