"""Receipts say which dataset they were made on and when; verify re-checks the agent's runs, not those labels."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from scoring import load_runs, score_runs
from scoring.outputs import downloads
from scoring.outputs.receipt import build_receipt, receipt_markdown, receipt_problems, verify
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"


@pytest.fixture(scope="module")
def runs():
    return load_runs(SAMPLE).runs


@pytest.fixture(scope="module")
def receipt(runs):
    report = score_runs(runs)
    dataset = downloads.DatasetInfo("runs.csv", downloads.file_sha256(SAMPLE), len(runs))
    return build_receipt(report.agent("swift-lite"), runs[runs["agent_id"] == "swift-lite"],
                         dataset=dataset.to_json(), generated_at="2026-11-30T12:00:00Z")


def test_a_receipt_names_its_dataset_and_date(receipt):
    assert receipt["dataset"]["name"] == "runs.csv"
    assert receipt["dataset"]["sha256"] == downloads.file_sha256(SAMPLE)
    assert receipt["generated_at"] == "2026-11-30T12:00:00Z"
    text = receipt_markdown(receipt)
    assert f"sha256 `{downloads.file_sha256(SAMPLE)}`" in text and "2026-11-30T12:00:00Z" in text


def test_a_receipt_with_its_dataset_still_verifies(receipt, runs):
    assert verify(receipt, runs) == []


def test_the_dataset_labels_must_have_their_shape(receipt):
    for key, bad, expected in (("dataset", "runs.csv", "dataset: must be an object, got text"),
                               ("generated_at", 5, "generated_at: must be text")):
        broken = {**copy.deepcopy(receipt), key: bad}
        assert any(expected in str(p) for p in receipt_problems(broken)), key


def test_a_receipt_without_dataset_labels_is_still_valid(receipt, runs):
    old = {k: v for k, v in receipt.items() if k not in ("dataset", "generated_at")}
    assert receipt_problems(old) == [] and verify(old, runs) == []


def test_the_cli_receipt_names_the_runs_file_by_its_sha256():
    out = scoring_cli("receipt", SAMPLE, "swift-lite", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["dataset"]["name"] == "runs.csv" and doc["dataset"]["sha256"] == downloads.file_sha256(SAMPLE)


def test_the_cli_names_one_harness_file_by_its_bytes_and_a_tagged_one_by_the_import_digest(capsys):
    """One identity per dataset: the app, the badge and the links name one harness file by its bytes' sha256; the
    CLI's receipt and pack name it the same way. A tag changes the agent ids, so the import digest names it."""
    from scoring.cli import commands

    harness = ROOT / "tests" / "fixtures" / "tau-bench" / "sonnet-retail.json"
    sha = downloads.file_sha256(harness)

    def dataset(*extra: str) -> dict:
        assert commands.main(["report", str(harness), "--format", "json", *extra]) == 0
        agent = json.loads(capsys.readouterr().out)["agents"][0]["agent_id"]
        assert commands.main(["receipt", str(harness), agent, *extra]) == 0
        return json.loads(capsys.readouterr().out)["dataset"]

    plain = dataset()
    assert (plain["sha256"], plain["sha256_of"], plain["kind"]) == (sha, "file bytes", "import")
    tagged = dataset("--experiment", "v2")
    assert tagged["sha256"] == downloads.import_digest([harness.name], [sha], ["v2"], None) != sha
    assert tagged["sha256_of"] == "import of the files"
