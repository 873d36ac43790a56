"""Score receipts: everything needed to re-check one agent's numbers, and the check itself.

A receipt carries the policy's constants, a content hash of the agent's input runs, every
intermediate value and the final numbers. ``verify`` recomputes it from a runs file.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from scoring.analysis.sandbox import PolicyError, constants_hash, is_sandbox, policy_from_dict, policy_to_dict
from scoring.contract.format import one_line
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.safejson import JsonRefused, load_json
from scoring.measures.axes import RADAR_AXES
from scoring.measures.report import AgentReport, score_runs

RECEIPT_FORMAT = "scoring-receipt/1"
_HASHED = ("run_id", "agent_id", "task_id", "status", "success", "latency_ms", "cost_usd", "steps", "finished_at")


def runs_hash(agent_runs: pd.DataFrame) -> str:
    """sha256 of an agent's validated runs in canonical order and canonical text.

    The same runs give the same hash from any file format and any row order (when the file has
    ``finished_at``; without it, file order decides the radar window and so enters the hash).
    """
    digest = hashlib.sha256()
    has_finished_at = bool(agent_runs.attrs.get("has_finished_at", True))
    digest.update(b"finished_at column\n" if has_finished_at else b"file order\n")
    for row in agent_runs[list(_HASHED)].itertuples(index=False):
        values: list[object] = []
        for name, v in zip(_HASHED, row):
            if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and math.isnan(v)):
                values.append(None)
            elif name == "finished_at":
                values.append(v.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
            elif name == "success":
                values.append(bool(v))
            elif name in ("latency_ms", "cost_usd", "steps"):
                values.append(float(v))
            else:
                values.append(str(v))
        digest.update(json.dumps(values, separators=(",", ":")).encode("utf-8") + b"\n")
    return digest.hexdigest()


# Where a receipt was made (the dataset's name and sha256, the date): kept for the reader, never recomputed
# by ``verify`` (the runs file given to it may be named otherwise; its agent's runs are what is checked).
PROVENANCE_KEYS = ("dataset", "generated_at")


def build_receipt(agent: AgentReport, agent_runs: pd.DataFrame, *, dataset: Mapping[str, Any] | None = None,
                  generated_at: str | None = None) -> dict[str, Any]:
    """The receipt of one agent (use the runs frame the report was computed from, filtered to the agent).

    ``dataset`` (e.g. ``{"name": ..., "sha256": ...}``) and ``generated_at`` say where and when it was made.
    """
    h, r, p = agent.headline, agent.radar, agent.repeatability
    policy = h.policy
    profile = r.profile()
    tasks = p.tasks
    where = {**({"dataset": dict(dataset)} if dataset is not None else {}),
             **({"generated_at": generated_at} if generated_at is not None else {})}
    return {
        "format": RECEIPT_FORMAT,
        "policy_version": policy.version,
        "policy": policy_to_dict(policy),
        "policy_constants_sha256": constants_hash(policy_to_dict(policy)),
        "agent_id": agent.agent_id,
        **where,
        "input": {"runs": len(agent_runs), "sha256": runs_hash(agent_runs)},
        "headline": {
            **h.to_json(),
            "latency_runs": h.latency_runs, "latency_pstdev_ms": h.latency_pstdev_ms, "cost_runs": h.cost_runs,
            "weighted_score": h.weighted_score, "contributions": h.contributions(),
        },
        "radar": {
            "window_runs": r.window_runs, "known_outcomes": r.known_outcomes, "successes": r.successes,
            "latency_values": r.latency_values, "p50_latency_ms": r.p50_latency_ms,
            "cost_values": r.cost_values, "p50_cost_usd": r.p50_cost_usd,
            "step_values": r.step_values, "p50_steps": r.p50_steps, "robustness_tasks": r.robustness_tasks,
            "raw_axes": r.raw_axes, "axes": r.axes, "reasons": {a: str(fact) for a, fact in r.reasons.items()},
            "weights": profile.weights, "profile_score": profile.score,
        },
        "repeatability": {
            **p.to_json(), "excluded_tasks": p.excluded_tasks,
            "tasks": [{"task_id": str(t["task_id"]), "n": int(t["n"]), "c": int(t["c"]),
                       "qualifies": bool(t["qualifies"]),
                       **{f"pass^{k}": float(t[f"pass^{k}"]) for k in p.levels}}
                      for t in tasks.to_dict("records")],
        },
    }


def receipt_json(receipt: dict[str, Any]) -> str:
    return json.dumps(receipt, indent=2, allow_nan=False) + "\n"


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def receipt_markdown(receipt: dict[str, Any]) -> str:
    """A readable rendering of a receipt (values are code spans, so no name is read as markup)."""
    h, r, p = receipt["headline"], receipt["radar"], receipt["repeatability"]
    sandbox = "+sandbox-" in receipt["policy_version"]

    def code(v: Any) -> str:
        return "`" + one_line(_fmt(v)).replace("`", "'") + "`"

    lines = [
        f"# Score receipt for {code(receipt['agent_id'])}",
        "",
        f"- Policy: {code(receipt['policy_version'])}" + (" — **sandbox policy, not canonical**" if sandbox else ""),
        f"- Input: {code(receipt['input']['runs'])} runs, sha256 {code(receipt['input']['sha256'])}",
        *([f"- Dataset: {code(receipt['dataset'].get('name'))}, sha256 {code(receipt['dataset'].get('sha256'))}"]
          if isinstance(receipt.get("dataset"), dict) else []),
        *([f"- Made: {code(receipt['generated_at'])} (UTC)"] if receipt.get("generated_at") else []),
        "- Re-check: `python -m scoring verify RECEIPT.json RUNS_FILE`",
        "",
        "## Headline composite",
        "",
        "| value | |",
        "|---|---|",
    ]
    lines += [f"| {k} | {code(v)} |" for k, v in h.items() if k != "contributions"]
    if h.get("contributions"):
        lines += [f"| contribution: {k} | {code(v)} |" for k, v in h["contributions"].items()]
    lines += ["", "## Fitness radar", "", "| axis | value | why |", "|---|---|---|"]
    lines += [f"| {a} | {code(r['axes'][a])} | {r['reasons'][a]} |" for a in RADAR_AXES]
    lines += ["", f"Window {code(r['window_runs'])} runs; profile score {code(r['profile_score'])}.", "",
              "## Repeatability", "",
              f"Qualifying tasks {code(p['qualifying_tasks'])}, excluded {code(p['excluded_tasks'])}; "
              f"pass^k {code(json.dumps(p['pass_k']))}.", ""]
    return "\n".join(lines) + "\n"


MAX_RECEIPT_BYTES = 64_000_000  # a receipt lists every task of one agent: generous, but bounded


class ReceiptError(ValueError):
    """A receipt that cannot be checked at all (not a reproduction failure): names the field."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


_SHAPE = {"format": str, "policy_version": str, "agent_id": str, "policy": dict, "input": dict, "headline": dict,
          "radar": dict, "repeatability": dict}


def receipt_problems(receipt: Any) -> list[ReceiptError]:
    """Why ``receipt`` cannot be checked: a missing or mistyped field, a sandbox policy that is refused."""
    kinds = {str: "text", dict: "an object", list: "a list", int: "a number", float: "a number",
             bool: "true or false", type(None): "null"}
    if not isinstance(receipt, dict):
        return [ReceiptError("receipt", f"must be a JSON object, got {kinds.get(type(receipt), 'something else')}")]
    problems = [ReceiptError(k, f"must be {kinds[t]}, got "
                                f"{'nothing' if k not in receipt else kinds.get(type(receipt[k]), 'something else')}")
                for k, t in _SHAPE.items() if not isinstance(receipt.get(k), t)]
    problems += [ReceiptError(k, f"must be {kinds[t]}, got {kinds.get(type(receipt[k]), 'something else')}")
                 for k, t in (("dataset", dict), ("generated_at", str))
                 if k in receipt and not isinstance(receipt[k], t)]
    if problems:
        return problems
    if receipt["format"] != RECEIPT_FORMAT:
        return [ReceiptError("format", f"expected {RECEIPT_FORMAT!r}, got {receipt['format'][:60]!r}")]
    if receipt["policy_version"] != CANONICAL_POLICY.version:
        try:
            policy_from_dict(receipt["policy"])
        except PolicyError as exc:
            return [ReceiptError(f"policy.{e.field}", e.message) for e in exc.errors]
    return []


def parse_receipt(data: str | bytes) -> dict[str, Any]:
    """A receipt from its JSON, bounded (size, nesting, numbers) and checked field by field.

    Raises :class:`ReceiptError` naming the first field that makes it uncheckable.
    """
    try:
        receipt = load_json(data, what="receipt", max_bytes=MAX_RECEIPT_BYTES, max_depth=16,
                            unique_keys=True)
    except JsonRefused as exc:
        raise ReceiptError(exc.where or "receipt", exc.reason) from None
    problems = receipt_problems(receipt)
    if problems:
        raise problems[0]
    return receipt


def _policy_of(receipt: dict[str, Any]) -> Policy:
    if receipt["policy_version"] == CANONICAL_POLICY.version:
        return CANONICAL_POLICY
    return policy_from_dict(receipt["policy"])


def _differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in list(expected) + [k for k in actual if k not in expected]:
            where = f"{path}.{key}" if path else str(key)
            if key not in actual or key not in expected:
                out.append(f"{where}: present in only one of receipt and recomputation")
            else:
                out += _differences(expected[key], actual[key], where)
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: receipt has {len(expected)} items, recomputation {len(actual)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual)) for d in _differences(e, a, f"{path}[{i}]")]
    if isinstance(expected, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        if math.isclose(expected, actual, rel_tol=1e-12, abs_tol=1e-12):
            return []
    elif expected == actual and type(expected) is type(actual):
        return []
    elif isinstance(expected, int) and not isinstance(expected, bool) and isinstance(actual, float) \
            and float(expected) == actual:  # JSON wrote a whole float as an int
        return []
    return [f"{path}: receipt {json.dumps(expected)}, recomputed {json.dumps(actual)}"]


def verify(receipt: dict[str, Any], runs: pd.DataFrame) -> list[str]:
    """Every value where ``receipt`` and a recomputation from ``runs`` differ (empty: it reproduces).

    The first difference names the first value that does not reproduce, in receipt order.
    """
    malformed = receipt_problems(receipt)
    if malformed:
        return [str(p) for p in malformed]
    policy = _policy_of(receipt)
    agent_id = receipt["agent_id"]
    agent_runs = runs[runs["agent_id"] == agent_id]
    if agent_runs.empty:
        return [f"agent_id: no run of agent {agent_id!r} in the runs file"]
    agent_runs.attrs.update(runs.attrs)
    report = score_runs(agent_runs.reset_index(drop=True), policy)
    recomputed = build_receipt(report.agent(agent_id), agent_runs)
    problems = _differences({k: v for k, v in receipt.items() if k not in PROVENANCE_KEYS}, recomputed)
    if is_sandbox(policy) != ("+sandbox-" in str(receipt.get("policy_version"))):
        problems.insert(0, "policy_version: sandbox label does not match the constants")
    return problems
