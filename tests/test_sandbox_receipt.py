"""Issue 6: sandbox policies (validation, labels, JSON), rank-change diff, score receipts and verify."""

import copy
import io
import json
import random
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scoring import CANONICAL_POLICY, load_runs, runs_from_records, score_runs
from scoring.analysis.sandbox import (
    PolicyError,
    is_sandbox,
    largest_moves_first,
    policy_from_dict,
    policy_json,
    policy_to_dict,
    rank_diff,
)
from scoring.outputs.receipt import build_receipt, receipt_json, receipt_markdown, runs_hash, verify
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"


def edited(**changes):
    d = policy_to_dict(CANONICAL_POLICY)
    for path, value in changes.items():
        target = d
        *parents, last = path.split("__")
        for p in parents:
            target = target[p]
        if last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value
    return d


def refused_fields(d) -> dict[str, str]:
    with pytest.raises(PolicyError) as info:
        policy_from_dict(d)
    return {e.field: e.message for e in info.value.errors}


@pytest.mark.parametrize("changes, field, words", [
    ({"cost_anchors__xs__2": 0.005}, "cost_anchors.xs[2]", "greater than the anchor before it"),
    ({"latency_anchors__xs__1": 500.0}, "latency_anchors.xs[1]", "greater than the anchor before it"),
    ({"latency_anchors__scores__1": 1.2}, "latency_anchors.scores[1]", "[0, 1]"),
    ({"steps_anchors__scores__0": -0.1}, "steps_anchors.scores[0]", "[0, 1]"),
    ({"success_weight": 0.5}, "success_weight + execution_weight + cost_weight", "sum to 1"),
    ({"radar_window": -5}, "radar_window", "negative"),
    ({"cost_weight": -0.1, "success_weight": 0.8}, "cost_weight", "negative"),
    ({"latency_anchors__xs__0": -1.0}, "latency_anchors.xs[0]", ">= 0"),
    ({"neutral_consistency": 1.5}, "neutral_consistency", "[0, 1]"),
    ({"consistency_min_latencies": 2.5}, "consistency_min_latencies", "whole number"),
    ({"consistency_min_latencies": 0}, "consistency_min_latencies", "at least 1"),
    ({"pass_k_min_outcomes": "three"}, "pass_k_min_outcomes", "finite number"),
])
def test_each_invalid_edit_is_refused_naming_the_field(changes, field, words):
    errors = refused_fields(edited(**changes))
    assert field in errors, errors
    assert words in errors[field]


def test_a_sandbox_policy_carries_a_derived_label_and_round_trips_as_json():
    sandbox = policy_from_dict(edited(success_weight=0.5, execution_weight=0.25, cost_weight=0.25))
    assert sandbox.version.startswith("2026-07-zero-success-v1+sandbox-") and is_sandbox(sandbox)
    again = policy_from_dict(json.loads(policy_json(sandbox)))
    assert again == sandbox  # same constants, same label, even through its own JSON
    other = policy_from_dict(edited(radar_window=50))
    assert other.version != sandbox.version
    assert not is_sandbox(CANONICAL_POLICY)


def test_the_canonical_policy_is_untouched_by_sandbox_edits():
    before = policy_to_dict(CANONICAL_POLICY)
    policy_from_dict(edited(success_weight=0.2, execution_weight=0.4, cost_weight=0.4))
    assert policy_to_dict(CANONICAL_POLICY) == before


def _sample():
    loaded = load_runs(SAMPLE)
    return loaded.runs, score_runs(loaded.runs)


def test_rank_diff_shows_moves_deltas_and_gate_crossings():
    runs, canonical = _sample()
    sandbox = score_runs(runs, policy_from_dict(edited(success_weight=0.8, execution_weight=0.1, cost_weight=0.1,
                                                       consistency_min_latencies=4)))
    diff = rank_diff(canonical, sandbox).set_index("Agent")
    # swift-lite (56% success, fast and cheap) falls; deep-thinker (88%, slow) climbs.
    assert diff.loc["swift-lite", "Rank move"] < 0 < diff.loc["deep-thinker", "Rank move"]
    assert diff.loc["deep-thinker", "Score delta"] == round(
        sandbox.agent("deep-thinker").headline.score - canonical.agent("deep-thinker").headline.score, 2)
    # newcomer has 3 recorded latencies: still below a gate of 4.
    assert diff.loc["newcomer", "Crossings"] == ""
    gate = score_runs(runs, policy_from_dict(edited(consistency_min_latencies=3)))
    assert rank_diff(canonical, gate).set_index("Agent").loc["newcomer", "Crossings"] == "consistency gate now met"
    ordered = largest_moves_first(rank_diff(canonical, sandbox))
    moves = ordered["Rank move"].abs().tolist()
    assert moves == sorted(moves, reverse=True)
    # Unedited, every move is 0: the leaderboard's order, not the alphabet's (a reviewer's reading).
    same = largest_moves_first(rank_diff(canonical, score_runs(runs, policy_from_dict(edited()))))
    assert same["Agent"].tolist() == [a.agent_id for a in canonical.agents]


def _encode(records, name):
    if name.endswith(".csv"):
        return pd.DataFrame(records).to_csv(index=False).encode()
    if name.endswith(".json"):
        return json.dumps(records).encode()
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(records), sink)
    return sink.getvalue()


@pytest.mark.parametrize("name", ["x.csv", "x.json", "x.parquet"])
def test_runs_hash_is_stable_across_row_order_and_format(name):
    runs, _ = _sample()
    reference = runs_hash(runs[runs["agent_id"] == "swift-lite"])
    records = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False).to_dict("records")
    random.Random(5).shuffle(records)
    other = load_runs(_encode(records, name), name=name).runs
    assert runs_hash(other[other["agent_id"] == "swift-lite"]) == reference


def test_runs_hash_changes_when_a_value_changes():
    rows = [{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed", "success": True,
             "latency_ms": 1000, "cost_usd": 0.01, "finished_at": "2026-07-01T00:00:00Z"}]
    a = runs_hash(runs_from_records(rows))
    b = runs_hash(runs_from_records([dict(rows[0], latency_ms=1000.5)]))
    assert a != b


def _receipt(agent="swift-lite", policy=CANONICAL_POLICY):
    runs, _ = _sample()
    report = score_runs(runs, policy)
    return build_receipt(report.agent(agent), runs[runs["agent_id"] == agent]), runs


def test_a_receipt_verifies_against_its_runs():
    receipt, runs = _receipt()
    assert verify(json.loads(receipt_json(receipt)), runs) == []


def test_verify_names_the_first_altered_value_of_the_receipt():
    receipt, runs = _receipt()
    altered = copy.deepcopy(receipt)
    altered["headline"]["score"] = 12.34
    assert verify(altered, runs)[0].startswith("headline.score: receipt 12.34, recomputed 79.65")
    altered = copy.deepcopy(receipt)
    altered["radar"]["axes"]["robustness"] = 1.0
    assert verify(altered, runs)[0].startswith("radar.axes.robustness")


def test_verify_names_altered_input_data():
    receipt, runs = _receipt()
    data = runs.copy()
    i = data.index[data["agent_id"] == "swift-lite"][0]
    data.loc[i, "latency_ms"] = data.loc[i, "latency_ms"] + 5000
    problems = verify(receipt, data)
    assert problems[0].startswith("input.sha256")
    assert any(p.startswith("headline.avg_latency_ms") for p in problems)


def test_verify_refuses_a_receipt_whose_policy_constants_were_altered():
    receipt, runs = _receipt()
    altered = copy.deepcopy(receipt)
    altered["policy"]["cost_weight"] = 0.35
    assert verify(altered, runs)[0].startswith("policy.cost_weight")


def test_a_sandbox_receipt_verifies_and_says_sandbox():
    sandbox = policy_from_dict(edited(radar_window=50))
    receipt, runs = _receipt("old-reliable", sandbox)
    assert verify(receipt, runs) == []
    assert "sandbox policy, not canonical" in receipt_markdown(receipt)
    assert receipt["radar"]["window_runs"] == 50


def test_receipt_markdown_shows_names_as_code():
    rows = [{"run_id": "r1", "agent_id": "<b>x</b> `tick`", "task_id": "t", "status": "completed",
             "success": True, "latency_ms": 1000, "cost_usd": 0.01}]
    runs = runs_from_records(rows)
    report = score_runs(runs)
    text = receipt_markdown(build_receipt(report.agents[0], runs))
    assert "`<b>x</b> 'tick'`" in text


def test_cli_verify_exit_codes(tmp_path):
    receipt, _ = _receipt()
    good = tmp_path / "receipt.json"
    good.write_text(receipt_json(receipt))
    ok = scoring_cli("verify", good, SAMPLE)
    assert ok.returncode == 0 and "reproduces" in ok.stdout
    receipt["headline"]["success_rate"] = 0.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(receipt))
    out = scoring_cli("verify", bad, SAMPLE)
    assert out.returncode == 1 and "headline.success_rate" in out.stderr and "Traceback" not in out.stderr


def test_cli_verify_says_whether_the_inputs_are_the_receipts_dataset(tmp_path):
    """The dataset block is where a receipt was made, not part of what reproduces: verify said "reproduces" with an
    edited sha256 and no word about it (a reviewer, 2026-12-06). It now says on stderr whether the inputs' sha256
    is the receipt's; the exit status is still the agent's runs'."""
    made = scoring_cli("receipt", SAMPLE, "swift-lite")
    path = tmp_path / "receipt.json"
    path.write_text(made.stdout)
    same = scoring_cli("verify", path, SAMPLE)
    sha = json.loads(made.stdout)["dataset"]["sha256"]
    assert same.returncode == 0 and f"dataset: the inputs' sha256 is the receipt's ({sha[:16]}...)" in same.stderr
    edited = json.loads(made.stdout)
    edited["dataset"]["sha256"] = "0" * 64
    path.write_text(json.dumps(edited))
    other = scoring_cli("verify", path, SAMPLE)
    assert other.returncode == 0 and "reproduces: swift-lite" in other.stdout
    assert f"dataset: not the receipt's (the inputs' sha256 is {sha[:16]}..., the receipt names 0000000000000000...)" \
        in other.stderr, other.stderr
