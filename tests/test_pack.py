"""The review pack (explorer.pack), the download naming (scoring.outputs.downloads) and `python -m scoring pack`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from explorer import pack
from scoring import CANONICAL_POLICY, load_runs, runs_from_records, score_runs
from scoring.analysis.uncertainty import bootstrap_intervals
from scoring.contract.policy import policy_from_dict, policy_json, policy_to_dict
from scoring.outputs import downloads
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
SANDBOX = policy_from_dict({**policy_to_dict(CANONICAL_POLICY), "success_weight": 0.3, "cost_weight": 0.4})


@pytest.fixture(scope="module")
def runs():
    return load_runs(SAMPLE).runs


@pytest.fixture(scope="module")
def report(runs):
    return score_runs(runs)


@pytest.fixture(scope="module")
def dataset(runs):
    return downloads.DatasetInfo("runs.csv", downloads.file_sha256(SAMPLE), len(runs))


@pytest.fixture(scope="module")
def document(runs, report, dataset):
    intervals = bootstrap_intervals(runs, report, replicates=50, seed=1)
    return pack.build_pack(report, dataset, intervals=intervals, sandbox=score_runs(runs, SANDBOX),
                           view=pack.PackView(agent="newcomer", link="http://x/headline?agent=newcomer",
                                              generated_at="2026-11-30T12:00:00Z"))


# --------------------------------------------------------------------------- the pack


def test_the_pack_names_every_agent_and_score(document, report):
    for agent in report.agents:
        assert agent.agent_id in document
        assert f"{agent.headline.score:.2f}" in document


def test_the_pack_names_its_dataset_policy_date_and_link(document, dataset):
    for fact in (dataset.sha256, "runs.csv", "2,796", CANONICAL_POLICY.version, SANDBOX.version,
                 "2026-11-30T12:00:00Z", "http://x/headline?agent=newcomer"):
        assert fact in document, fact


def test_the_pack_has_every_section_and_chart(document):
    for anchor in ("leaderboard", "intervals", "decomposition", "radar", "repeatability", "sandbox", "methodology",
                   "glossary"):
        assert f'<section id="{anchor}">' in document
    assert pack.figure_count(document) == 5  # intervals, contributions, radar, pass^k, rank moves


def test_the_intervals_section_says_where_an_interval_reaches_past_its_tie_group(document):
    # As the app's pages say it: a tie group alone hid newcomer's interval of 0 to 84 (a reviewer's reading).
    assert "Intervals that cover the scores of other groups: " in document
    assert "newcomer (tie group 4): its interval 12.54–84.23 covers the scores of ranks 2–9" in document


def test_the_leaderboard_says_how_each_factor_is_shown(document):
    # The success rate as a percentage, the other factors on 0-1 (it said "percentages" of them all).
    assert "The success rate is shown as a percentage; execution, consistency and the cost score on their 0–1 scale" \
        in document and "percentages of their 0–1 scale" not in document


def test_the_pack_is_self_contained(document):
    assert "Plotly" in document and len(document) > 3_000_000  # plotly.js embedded
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"?https?:", document)


def test_the_sandbox_section_lists_the_changed_constants_and_rank_changes(document):
    section = document.split('<section id="sandbox">')[1].split("</section>")[0]
    assert "success_weight" in section and "cost_weight" in section and "execution_weight" not in section
    assert "Rank move" in section and "Crossings" in section


def test_without_intervals_or_sandbox_the_pack_says_so(report, dataset):
    document = pack.build_pack(report, dataset)
    assert "Bootstrap intervals were not computed for this pack." in document
    assert '<section id="sandbox">' not in document


def test_agent_ids_are_escaped_in_the_pack():
    hostile = "<img src=x onerror=alert(1)>"
    runs = runs_from_records([{"run_id": f"r{i}", "agent_id": hostile, "task_id": "t", "status": "completed",
                               "success": i % 2 == 0, "latency_ms": 900.0, "cost_usd": 0.01} for i in range(6)])
    document = pack.build_pack(score_runs(runs), downloads.DatasetInfo("<b>x</b>.csv", "0" * 64, len(runs)))
    html_part = document.split("</script>", 1)[1]  # plotly.js itself aside
    assert "<img src=x" not in html_part and "<b>x</b>" not in html_part
    assert "&lt;img src=x onerror=alert(1)&gt;" in html_part


# --------------------------------------------------------------------------- download naming


def test_file_names_say_what_agent_policy_and_dataset(dataset):
    name = downloads.file_name("receipt", dataset, CANONICAL_POLICY.version, "json", agent="swift-lite")
    assert name == f"receipt_swift-lite_{CANONICAL_POLICY.version}_{dataset.sha256[:12]}.json"
    assert downloads.file_name("receipt", dataset, SANDBOX.version, "json", agent="swift-lite") != name
    assert downloads.file_name("receipt", dataset, CANONICAL_POLICY.version, "json", agent="steady-pro") != name


def test_slugs_never_collide_and_never_escape_a_directory():
    names = ["a/b", "a b", "a:b", "../../etc/passwd", "ágent", "", "x" * 300]
    slugs = [downloads.slug(n) for n in names]
    assert len(set(slugs)) == len(slugs)
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", s) and not s.startswith(".") and len(s) <= 60 for s in slugs)
    assert downloads.slug("swift-lite") == "swift-lite"


def test_report_json_and_csv_carry_dataset_policy_and_date(report, dataset, runs):
    doc = json.loads(downloads.report_json(report, dataset, generated_at="2026-11-30T12:00:00Z"))
    assert doc["dataset"]["sha256"] == dataset.sha256 and doc["dataset"]["runs"] == len(runs)
    assert doc["generated_at"] == "2026-11-30T12:00:00Z" and doc["policy_version"] == CANONICAL_POLICY.version
    intervals = bootstrap_intervals(runs, report, replicates=20, seed=3)
    doc = json.loads(downloads.report_json(report, dataset, intervals=intervals))
    assert doc["bootstrap"]["replicates"] == 20 and "intervals" in doc["agents"][0]
    frame = pd.read_csv(__import__("io").StringIO(downloads.report_csv(report, dataset, intervals=intervals)))
    assert set(frame["dataset_sha256"]) == {dataset.sha256}
    assert set(frame["policy_version"]) == {CANONICAL_POLICY.version}
    assert {"headline_low", "headline_high", "tie_group"} <= set(frame.columns)


def test_the_rank_change_csv_names_both_policies_and_the_changes(report, runs, dataset):
    from scoring.analysis.sandbox import rank_diff

    diff = rank_diff(report, score_runs(runs, SANDBOX))
    text = downloads.rank_changes_csv(diff, CANONICAL_POLICY.version, SANDBOX.version, dataset,
                                      {"success_weight": 0.3, "cost_weight": 0.4})
    frame = pd.read_csv(__import__("io").StringIO(text))
    assert len(frame) == len(report.agents)
    assert set(frame["sandbox_policy"]) == {SANDBOX.version} and set(frame["canonical_policy"]) == {
        CANONICAL_POLICY.version}
    assert json.loads(frame["changed_constants"][0]) == {"cost_weight": 0.4, "success_weight": 0.3}


def test_a_table_is_hashed_by_its_content_in_run_id_order(runs):
    shuffled = runs.sample(frac=1.0, random_state=4).reset_index(drop=True)
    assert downloads.runs_sha256(shuffled) == downloads.runs_sha256(runs)
    assert downloads.runs_sha256(runs.iloc[1:]) != downloads.runs_sha256(runs)


# --------------------------------------------------------------------------- the CLI


def cli(*args: str) -> subprocess.CompletedProcess:
    return scoring_cli(*args, cwd=ROOT)


def test_cli_pack_writes_the_html_pack(tmp_path, report):
    policy = tmp_path / "policy.json"
    policy.write_text(policy_json(SANDBOX))
    out = tmp_path / "review.html"
    result = cli("pack", str(SAMPLE), "--policy", str(policy), "--replicates", "50", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "pack: wrote" in result.stderr
    document = out.read_text()
    assert downloads.file_sha256(SAMPLE) in document and SANDBOX.version in document
    assert all(a.agent_id in document for a in report.agents)
    assert "python -m scoring pack" in document  # how to rebuild it


@pytest.mark.parametrize(("args", "expected"), [
    (["-o", "review.docx"], "-o: the pack is written as .html or .pdf"),
    (["-o", "OUT.html", "--radar", "ghost"], "--radar: no agent 'ghost'"),
    (["-o", "OUT.html", "--replicates", "0"], "--replicates: must be from 1 to 100,000"),
    (["-o", "OUT.pdf", "--chromium", "/nonexistent/chromium"], "/nonexistent/chromium (from --chromium) is not a file"),
    (["-o", "/nonexistent/dir/review.html", "--no-intervals"], "pack: cannot write /nonexistent/dir/review.html"),
])
def test_cli_pack_refuses_bad_options_with_a_clear_message(tmp_path, args, expected):
    args = [a.replace("OUT", str(tmp_path / "review")) for a in args]
    result = cli("pack", str(SAMPLE), *args)
    assert result.returncode != 0
    assert expected in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(pack.find_chromium() is None, reason="no Chromium to print a PDF")
def test_cli_pack_prints_a_pdf(tmp_path):
    out = tmp_path / "review.pdf"
    result = cli("pack", str(SAMPLE), "--no-intervals", "-o", str(out))
    assert result.returncode == 0, result.stderr
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and len(re.findall(rb"/Type\s*/Page\b", data)) >= 3


def test_the_apps_chromium_lookup_follows_the_environment(monkeypatch, tmp_path):
    """The app's lookup is kept, but per value of $EXPLORER_CHROMIUM and $PATH: changing either is seen."""
    fake = tmp_path / "my-chromium"
    fake.write_text("")
    monkeypatch.setenv(pack.CHROMIUM_ENV, str(fake))
    assert pack.chromium_for_the_app() == str(fake) == pack.find_chromium()
    monkeypatch.setenv(pack.CHROMIUM_ENV, str(tmp_path / "missing"))
    assert pack.chromium_for_the_app() is None
    monkeypatch.delenv(pack.CHROMIUM_ENV)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "chromium").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "chromium").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert pack.chromium_for_the_app() == str(tmp_path / "bin" / "chromium") == pack.find_chromium()
