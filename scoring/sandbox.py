"""What-if policies for methodology review: edit constants, validate them, compare leaderboards.

The canonical policy never changes. A sandbox policy is another ``Policy`` value whose version
label carries ``+sandbox-<hash of its constants>``, so every number computed with it says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping

import pandas as pd

from .policy import CANONICAL_POLICY, Anchors, Policy
from .report import Report

ANCHOR_FIELDS = ("latency_anchors", "cost_anchors", "steps_anchors")
SCALAR_FIELDS = ("success_weight", "execution_weight", "cost_weight", "latency_share_of_execution",
                 "consistency_min_latencies", "neutral_consistency", "score_decimals", "radar_window",
                 "radar_latency_min_runs", "robustness_min_outcomes", "pass_k_min_outcomes")
INTEGER_FIELDS = ("consistency_min_latencies", "score_decimals", "radar_window", "radar_latency_min_runs",
                  "robustness_min_outcomes", "pass_k_min_outcomes")
SANDBOX_MARK = "+sandbox-"


@dataclass(frozen=True)
class FieldError:
    """One refused edit: the field (e.g. ``cost_anchors.xs[2]``) and why."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class PolicyError(ValueError):
    def __init__(self, errors: list[FieldError]):
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


def policy_to_dict(policy: Policy) -> dict[str, Any]:
    """Every constant as plain JSON values (the provenance labels are not constants and stay out)."""
    out: dict[str, Any] = {"version": policy.version}
    for name in SCALAR_FIELDS:
        out[name] = getattr(policy, name)
    for name in ANCHOR_FIELDS:
        a: Anchors = getattr(policy, name)
        out[name] = {"xs": list(a.xs), "scores": list(a.scores)}
    out["default_radar_weights"] = dict(policy.default_radar_weights)
    out["pass_k_levels"] = list(policy.pass_k_levels)
    return out


def constants_hash(policy_dict: Mapping[str, Any]) -> str:
    """A content hash of the constants (not the version label): equal constants, equal hash."""
    body = {k: v for k, v in policy_dict.items() if k != "version"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def is_sandbox(policy: Policy) -> bool:
    return SANDBOX_MARK in policy.version


def _number(d: Mapping[str, Any], field: str, errors: list[FieldError]) -> float | None:
    value = d.get(field)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        errors.append(FieldError(field, f"must be a finite number, got {value!r}"))
        return None
    if value < 0:
        errors.append(FieldError(field, f"must not be negative, got {value!r}"))
        return None
    if field in INTEGER_FIELDS and float(value) != int(value):
        errors.append(FieldError(field, f"must be a whole number, got {value!r}"))
        return None
    return value


def validate_policy_dict(d: Mapping[str, Any]) -> list[FieldError]:
    """Every reason an edited policy is refused, each naming its field."""
    errors: list[FieldError] = []
    values = {f: _number(d, f, errors) for f in SCALAR_FIELDS}
    weights = [values[f] for f in ("success_weight", "execution_weight", "cost_weight")]
    if all(w is not None for w in weights) and abs(sum(weights) - 1.0) > 1e-9:
        errors.append(FieldError("success_weight + execution_weight + cost_weight",
                                 f"must sum to 1, got {sum(weights):g}"))
    for field in ("latency_share_of_execution", "neutral_consistency"):
        if values[field] is not None and values[field] > 1:
            errors.append(FieldError(field, f"must lie in [0, 1], got {values[field]!r}"))
    for field in ("consistency_min_latencies", "radar_window", "pass_k_min_outcomes"):
        if values[field] is not None and values[field] < 1:
            errors.append(FieldError(field, f"must be at least 1, got {values[field]!r}"))
    for field in ANCHOR_FIELDS:
        anchors = d.get(field)
        if not isinstance(anchors, Mapping) or not isinstance(anchors.get("xs"), list) \
                or not isinstance(anchors.get("scores"), list):
            errors.append(FieldError(field, 'must be {"xs": [...], "scores": [...]}'))
            continue
        xs, scores = anchors["xs"], anchors["scores"]
        if len(xs) != len(scores) or len(xs) < 2:
            errors.append(FieldError(field, "needs at least two anchors, each with one score"))
            continue
        for i, (x, s) in enumerate(zip(xs, scores)):
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
                errors.append(FieldError(f"{field}.xs[{i}]", f"must be a finite number >= 0, got {x!r}"))
            elif i and isinstance(xs[i - 1], (int, float)) and x <= xs[i - 1]:
                errors.append(FieldError(f"{field}.xs[{i}]", f"must be greater than the anchor before it "
                                                             f"({xs[i - 1]!r}), got {x!r}"))
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
                errors.append(FieldError(f"{field}.scores[{i}]", f"must lie in [0, 1], got {s!r}"))
    weights_d = d.get("default_radar_weights", dict(CANONICAL_POLICY.default_radar_weights))
    if not isinstance(weights_d, Mapping) or set(weights_d) != set(CANONICAL_POLICY.radar_weights):
        errors.append(FieldError("default_radar_weights", "must give one weight per radar axis"))
    else:
        for axis, w in weights_d.items():
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
                errors.append(FieldError(f"default_radar_weights.{axis}", f"must be a number >= 0, got {w!r}"))
    levels = d.get("pass_k_levels", list(CANONICAL_POLICY.pass_k_levels))
    if not isinstance(levels, list) or not levels or any(
            isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in levels):
        errors.append(FieldError("pass_k_levels", f"must be a list of whole numbers >= 1, got {levels!r}"))
    return errors


def policy_from_dict(d: Mapping[str, Any], *, base: Policy = CANONICAL_POLICY) -> Policy:
    """A sandbox policy from edited constants; refused with every field error (PolicyError).

    The version becomes ``<base version>+sandbox-<first 8 hex of the constants hash>``.
    """
    d = dict(d)
    errors = validate_policy_dict(d)
    if errors:
        raise PolicyError(errors)
    base_version = str(d.get("version") or base.version).split(SANDBOX_MARK)[0]
    anchors = {f: dataclasses.replace(getattr(base, f), xs=tuple(float(x) for x in d[f]["xs"]),
                                      scores=tuple(float(s) for s in d[f]["scores"])) for f in ANCHOR_FIELDS}
    fields = {f: (int(d[f]) if f in INTEGER_FIELDS else float(d[f])) for f in SCALAR_FIELDS}
    weights = d.get("default_radar_weights", dict(base.default_radar_weights))
    candidate = dataclasses.replace(
        base, **fields, **anchors,
        default_radar_weights=tuple((a, float(weights[a])) for a in dict(base.default_radar_weights)),
        pass_k_levels=tuple(int(k) for k in d.get("pass_k_levels", base.pass_k_levels)),
        version=base_version)
    label = constants_hash(policy_to_dict(candidate))[:8]
    return dataclasses.replace(candidate, version=f"{base_version}{SANDBOX_MARK}{label}")


def policy_json(policy: Policy) -> str:
    return json.dumps(policy_to_dict(policy), indent=2) + "\n"


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
