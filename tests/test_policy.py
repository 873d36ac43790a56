"""The policy object: provenance on every constant, and the published numbers match the published page.

Like the platform's own contract test, this reads the published methodology (a copy lives in
docs/published-methodology.md) and fails if the policy drifts from it.
"""

import dataclasses
import re
from pathlib import Path

import pytest

from scoring import CANONICAL_POLICY, Anchors, headline_scores, runs_from_records
from scoring.outputs.methodology import rules

PUBLISHED_PAGE = (Path(__file__).resolve().parents[1] / "docs" / "published-methodology.md").read_text()


def published_table(title: str) -> list[tuple[str, float]]:
    """Rows of the markdown table under a '#### <title>' heading: (first cell, score)."""
    section = PUBLISHED_PAGE.split(f"#### {title}", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in section.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append((cells[0], float(cells[1])))
    return rows


def number(cell: str) -> float:
    return float(re.sub(r"[^0-9.]", "", cell))


def test_latency_anchors_match_the_published_page():
    rows = published_table("Latency anchors")
    assert CANONICAL_POLICY.latency_anchors.xs == tuple(number(x) for x, _ in rows)
    assert CANONICAL_POLICY.latency_anchors.scores == tuple(s / 100 for _, s in rows)
    assert CANONICAL_POLICY.provenance["latency_anchors"] == "published"


def test_cost_anchors_match_the_published_page():
    rows = published_table("Cost anchors")
    assert CANONICAL_POLICY.cost_anchors.xs == tuple(number(x) for x, _ in rows)
    assert CANONICAL_POLICY.cost_anchors.scores == tuple(s / 100 for _, s in rows)


def test_snapshot_numbers_match_the_published_page():
    p = CANONICAL_POLICY
    assert f"Policy version: `{p.version}`" in PUBLISHED_PAGE
    assert (f"Composite: {p.success_weight:.0%} success + {p.execution_weight:.0%} execution consistency/latency "
            f"+ {p.cost_weight:.0%} cost") in PUBLISHED_PAGE
    assert f"Consistency requires {p.consistency_min_latencies} completed runs" in PUBLISHED_PAGE
    assert (f"latest {p.radar_window} terminal runs; {p.radar_weights['correctness']:.0%} default weight per "
            "available axis") in PUBLISHED_PAGE
    assert ("Repeatability: " + ", ".join(f"pass^{k}" for k in p.pass_k_levels)
            + f"; at least {p.pass_k_min_outcomes} outcomes per task") in PUBLISHED_PAGE


def test_every_constant_has_a_provenance_and_a_meaning():
    constants = CANONICAL_POLICY.constants()
    assert {c.provenance for c in constants} == {"published", "explorer-defined"}
    assert all(c.meaning for c in constants)
    explorer = {c.name for c in constants if c.provenance == "explorer-defined"}
    assert explorer == {"latency_share_of_execution", "neutral_consistency"}
    assert CANONICAL_POLICY.provenance["steps_anchors"] == "explorer-defined"


def test_every_rule_is_labelled():
    assert all(r.provenance in ("published", "explorer-defined") for r in rules(CANONICAL_POLICY))


@pytest.mark.parametrize("xs, scores, message", [
    ((1.0,), (1.0,), "at least two"),
    ((1.0, 1.0), (1.0, 0.0), "strictly increasing"),
    ((2.0, 1.0), (1.0, 0.0), "strictly increasing"),
    ((1.0, 2.0), (1.5, 0.0), r"\[0, 1\]"),
])
def test_anchors_refuse_invalid_definitions(xs, scores, message):
    with pytest.raises(ValueError, match=message):
        Anchors("x", xs, scores, "u")


def test_headline_weights_must_sum_to_one():
    with pytest.raises(ValueError, match="sum to 1"):
        dataclasses.replace(CANONICAL_POLICY, success_weight=0.5)


def test_policy_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CANONICAL_POLICY.radar_window = 5  # type: ignore[misc]


def test_another_policy_is_just_another_value():
    runs = runs_from_records([
        {"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed", "success": i % 2 == 0,
         "latency_ms": 1000, "cost_usd": 0.01} for i in range(6)])
    sandbox = dataclasses.replace(CANONICAL_POLICY, success_weight=0.6, cost_weight=0.1)
    canonical, other = headline_scores(runs)["a"], headline_scores(runs, sandbox)["a"]
    # success 0.5, latency 1000 -> 1 - 0.2*500/1500 = 0.93333, consistency 1 (no spread), cost 0.8
    # execution = 0.5*0.93333 + 0.5*1 = 0.966667; canonical 0.2 + 0.29 + 0.24 = 0.73; sandbox 0.3 + 0.29 + 0.08
    assert canonical.score == round(100 * (0.4 * 0.5 + 0.3 * 0.9666666666666667 + 0.3 * 0.8), 2) == 73.0
    assert other.score == round(100 * (0.6 * 0.5 + 0.3 * 0.9666666666666667 + 0.1 * 0.8), 2) == 67.0
