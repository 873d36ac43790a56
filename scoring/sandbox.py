"""What-if policies for methodology review: edit constants, validate them, compare leaderboards.

The canonical policy never changes. A sandbox policy is another ``Policy`` value whose version
label carries ``+sandbox-<hash of its constants>``, so every number computed with it says so.
"""

from __future__ import annotations

import pandas as pd

# The policy's field table, its one validator and its JSON form live in scoring.policy; they are
# re-exported here because a sandbox is where they are used.
from .policy import (
    FIELDS,
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
from .report import Report

__all__ = ["FIELDS", "FieldError", "PolicyError", "constants_hash", "is_sandbox", "largest_moves_first",
           "load_policy", "policy_from_dict", "policy_json", "policy_to_dict", "rank_diff"]



def is_sandbox(policy: Policy) -> bool:
    return SANDBOX_MARK in policy.version


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
    key = diff["Rank move"].abs().fillna(-1).astype(float) * 1e6 + diff["Score delta"].abs().fillna(0).astype(float)
    return diff.assign(_key=key).sort_values(["_key", "Agent"], ascending=[False, True]).drop(columns="_key") \
        .reset_index(drop=True)
