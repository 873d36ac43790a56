"""`python -m scoring badge FILE AGENT` and `python -m scoring report FILE --scorecard team.json`: command line, exit
status, stdout and stderr (through ``scoring.cli.commands.main`` in this process; the first badge also in a real
subprocess, byte for byte the same), plus an in-process property over random scorecards."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import CANONICAL_POLICY, RADAR_AXES, load_runs, score_runs
from scoring.analysis.scorecard import EXAMPLES_DIR, Scorecard, apply_scorecard, read_scorecard, scorecard_to_json
from scoring.cli.commands import main
from scoring.outputs.badge import badge_file_name, badge_svg
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
SAMPLE_SHA = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
SPEED_FIRST = EXAMPLES_DIR / "speed-first.json"
VERSION = CANONICAL_POLICY.version


def cli(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return scoring_cli(*args, cwd=cwd, text=False)


def cli_process(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *map(str, args)], cwd=cwd, capture_output=True,
                          timeout=300)


def refused(result: subprocess.CompletedProcess) -> str:
    """The stderr of a refused command: exit status 2, nothing on stdout, no traceback."""
    err = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, err)
    assert result.stdout == b"" and "Traceback" not in err
    return err


@cache
def sample_report():
    return score_runs(load_runs(SAMPLE).runs)


# --- badge -------------------------------------------------------------------------------------

def test_badge_on_stdout_is_the_libraries_badge_with_the_exact_score():
    result = cli_process("badge", SAMPLE, "deep-thinker")
    assert result.returncode == 0, result.stderr.decode()
    agent = sample_report().agent("deep-thinker")
    assert result.stdout.decode("utf-8") == badge_svg(agent, policy_version=VERSION, dataset_sha256=SAMPLE_SHA)
    root = ET.fromstring(result.stdout)
    assert root.get("data-headline-score") == f"{agent.headline.score:.2f}" == "73.13"
    assert root.get("data-dataset-sha256") == SAMPLE_SHA and root.get("data-policy-version") == VERSION
    assert cli("badge", SAMPLE, "deep-thinker").stdout == result.stdout  # byte-identical for the same input


def test_a_badge_of_a_tau2_results_folder_names_the_folder_as_receipt_and_pack_do(tmp_path):
    """The CI recipe's RESULTS may be a tau2 results folder (docs/ci.md): the badge step reads it as report and
    diff do, and names the dataset as receipt, pack and the app name it (the import digest of the files read)."""
    folder = ROOT / "tests" / "fixtures" / "tau2" / "grok-3-folder"
    result = cli("badge", folder, "xai/grok-3@airline")
    assert result.returncode == 0, result.stderr.decode()
    root = ET.fromstring(result.stdout)
    receipt = json.loads(cli("receipt", folder, "xai/grok-3@airline").stdout)["dataset"]
    assert root.get("data-dataset-sha256") == receipt["sha256"] and receipt["sha256_of"] == "import of the files"
    report = json.loads(cli("report", folder).stdout)
    assert root.get("data-headline-score") == f"{report['agents'][0]['headline']['score']:.2f}"
    # A file the import does not read is no part of the dataset; a simulation that changes is.
    copy = tmp_path / "grok-3-folder"
    shutil.copytree(folder, copy)
    (copy / "notes.txt").write_text("a note\n")
    assert ET.fromstring(cli("badge", copy, "xai/grok-3@airline").stdout).get("data-dataset-sha256") == \
        receipt["sha256"]
    simulation = sorted((copy / "simulations").glob("*.json"))[0]
    simulation.write_text(simulation.read_text().replace('"reward": 1.0', '"reward": 0.0'))
    changed = ET.fromstring(cli("badge", copy, "xai/grok-3@airline").stdout).get("data-dataset-sha256")
    assert changed not in (receipt["sha256"], None)


def test_a_linked_simulations_folder_is_named_by_what_it_holds(tmp_path):
    """A reviewer's pair (2026-12-06): two folders sharing results.json, each a link to other simulations, scored
    26.51 and 0.00 under one sha256 (the walk left links out; the reader follows them)."""
    folder = ROOT / "tests" / "fixtures" / "tau2" / "grok-3-folder"
    shas = []
    for i, reward in enumerate(("1.0", "0.0")):
        sims = tmp_path / f"sims{i}"
        shutil.copytree(folder / "simulations", sims)
        for f in sims.glob("*.json"):
            f.write_text(f.read_text().replace('"reward": 1.0', f'"reward": {reward}'))
        linked = tmp_path / f"linked{i}"
        linked.mkdir()
        shutil.copy(folder / "results.json", linked / "results.json")
        (linked / "simulations").symlink_to(sims, target_is_directory=True)
        shas.append(ET.fromstring(cli("badge", linked, "xai/grok-3@airline").stdout).get("data-dataset-sha256"))
    assert shas[0] != shas[1] and None not in shas


def test_badge_to_a_file_and_into_a_folder(tmp_path):
    target = tmp_path / "badge.svg"
    result = cli("badge", SAMPLE, "null-pointer", "-o", target)
    assert result.returncode == 0 and result.stdout == b""
    assert str(target) in result.stderr.decode()
    root = ET.fromstring(target.read_bytes())
    assert root.get("data-zero-success-floor") == "true" and "zero-success floor" in target.read_text("utf-8")

    result = cli("badge", SAMPLE, "steady-pro", "-o", tmp_path)
    assert result.returncode == 0
    named = tmp_path / badge_file_name("steady-pro", VERSION, SAMPLE_SHA)
    assert named.name == f"badge-steady-pro-{VERSION}-{SAMPLE_SHA[:8]}.svg"
    assert ET.fromstring(named.read_bytes()).get("data-headline-score") == "86.96"


def test_badge_of_an_unranked_agent_says_so(tmp_path):
    runs = tmp_path / "runs.csv"
    runs.write_text("run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n"
                    "r1,ok,t,completed,true,900,0.002\nr2,waiting,t,queued,,,\n")
    result = cli("badge", runs, "waiting")
    assert result.returncode == 0
    root = ET.fromstring(result.stdout)
    assert root.get("data-headline-score") == "null" and ">unranked</text>" in result.stdout.decode()


def test_badge_of_a_harness_file_names_that_files_sha256():
    path = next((ROOT / "tests" / "fixtures" / "tau2").glob("*grok-3_user*.json"))
    result = cli("badge", path, "xai/grok-3@airline")
    assert result.returncode == 0, result.stderr.decode()
    root = ET.fromstring(result.stdout)
    assert root.get("data-dataset-sha256") == hashlib.sha256(path.read_bytes()).hexdigest()
    assert root.get("data-headline-score") == "26.51"  # as the README's tau2 example shows it


@pytest.mark.parametrize("args, words", [
    (("badge", SAMPLE, "steady-prox"), "no agent 'steady-prox' in " + str(SAMPLE) + " (did you mean 'steady-pro'?)"),
    (("badge", SAMPLE, "nobody-at-all"), "no agent 'nobody-at-all'"),
    (("badge", ROOT / "sample_data", "steady-pro"), "give one file or a tau2-bench results folder, not a folder of "
                                                    "several inputs"),
    # read first, as report reads it (so a pipe or a device is refused unopened): the loader's words
    (("badge", ROOT / "no-such-file.csv", "steady-pro"), f"cannot read {ROOT / 'no-such-file.csv'}: No such file"),
    (("badge", SAMPLE, "steady-pro", "-o", ROOT / "no-such-dir" / "b.svg"), "cannot write the badge"),
])
def test_badge_refusals(args, words):
    assert words in refused(cli(*args))


def test_badge_of_an_invalid_file_shows_the_validation_report(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("run_id,agent_id,task_id,status,success,latency_ms,cost_usd\nr1,a,t,done,true,1,0.1\n")
    assert "unknown status" in refused(cli("badge", bad, "a"))


# --- report --scorecard ------------------------------------------------------------------------

def report_json(*args) -> dict:
    result = cli("report", SAMPLE, *args)
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def headline_parts(doc: dict) -> list:
    return [(a["agent_id"], a["headline"], a["radar"]["axes"], a["repeatability"]) for a in doc["agents"]]


def test_report_with_a_scorecard_changes_only_profile_scores_and_ranks():
    plain, teamed = report_json(), report_json("--scorecard", SPEED_FIRST)
    card = read_scorecard(SPEED_FIRST)
    assert headline_parts(teamed) == headline_parts(plain)  # headline, axes and pass^k: same values, same order
    # The weights go the same way as --weights: the radar sections equal those of `--weights` with all five axes.
    weights = ",".join(f"{axis}={w!r}" for axis, w in card.weights.items())
    assert teamed["agents"] == report_json("--weights", weights)["agents"]
    assert [a["radar"]["profile_score"] for a in teamed["agents"]] != [a["radar"]["profile_score"]
                                                                       for a in plain["agents"]]
    block = teamed["scorecard"]
    assert list(teamed) == ["policy_version", "scorecard", "agents"]
    assert {k: block[k] for k in ("name", "description", "weights")} == json.loads(scorecard_to_json(card))
    ranking = apply_scorecard(sample_report(), card).rows
    assert block["profile_ranking"] == [
        {"profile_rank": r.profile_rank, "agent_id": r.agent_id, "profile_score": r.profile_score,
         "headline_rank": r.headline_rank, "headline_score": r.headline_score} for r in ranking]
    assert [r["agent_id"] for r in block["profile_ranking"]][:4] == ["steady-pro", "swift-lite", "blackbox-api",
                                                                     "premium-max"]


def test_report_table_with_a_scorecard_prints_the_teams_ranking():
    result = cli("report", SAMPLE, "--format", "table", "--scorecard", SPEED_FIRST)
    assert result.returncode == 0
    out = result.stdout.decode()
    assert "scorecard speed-first (correctness 30.0%, latency 50.0%, tool_efficiency 20.0%)" in out
    lines = out.split("profile ranking; the headline never moves\n")[1].splitlines()
    assert lines[0].split() == ["profile", "rank", "agent", "profile", "headline", "headline", "rank"]
    assert lines[4].split() == ["4", "premium-max", "75.57", "57.84", "9"]
    assert "scorecard: speed-first" in result.stderr.decode()


def test_scorecard_with_excluded_rows_and_intervals_keeps_every_addition(tmp_path):
    bad = tmp_path / "messy.csv"
    bad.write_text(SAMPLE.read_text() + "extra-1,steady-pro,t,done,true,1,0.1\n")
    doc = json.loads(cli("report", bad, "--exclude-invalid", "--scorecard", SPEED_FIRST).stdout)
    assert list(doc) == ["policy_version", "excluded_rows", "scorecard", "agents"] and doc["excluded_rows"] == 1
    doc = json.loads(cli("report", SAMPLE, "--intervals", "--replicates", "20", "--scorecard", SPEED_FIRST).stdout)
    assert list(doc) == ["policy_version", "scorecard", "agents", "bootstrap"]


def test_scorecard_on_the_sql_engine_gives_the_same_report():
    pandas = cli("report", SAMPLE, "--scorecard", SPEED_FIRST)
    sql = cli("report", SAMPLE, "--engine", "sql", "--scorecard", SPEED_FIRST)
    assert sql.returncode == 0, sql.stderr.decode()
    a, b = json.loads(pandas.stdout), json.loads(sql.stdout)
    assert a["scorecard"] == b["scorecard"]
    assert [x["radar"]["profile_score"] for x in a["agents"]] == [x["radar"]["profile_score"] for x in b["agents"]]


@pytest.mark.parametrize("content, words", [
    ('{"name": "t", "description": "", "weights": {"latency": -1}}',
     "  - weights.latency: must be a finite number >= 0, got -1"),
    ('{"name": "t", "description": "", "weights": {"speed": 1}}', "  - weights.speed: unknown radar axis 'speed'"),
    ('{"name": "t", "weights": {"cost": 1}}', "  - description: is required"),
    ('{"name": "t", "description": "", "weights": {"cost": 1}, "owner": "me"}', "  - owner: unknown field"),
    ("{not json", "  - scorecard: not valid JSON"),
    ('{"name": "' + "x" * 70_000 + '"}', "bytes allowed"),
])
def test_a_malformed_scorecard_exits_2_naming_the_field(tmp_path, content, words):
    path = tmp_path / "team.json"
    path.write_text(content)
    err = refused(cli("report", SAMPLE, "--scorecard", path))
    assert err.startswith(f"{path}: scorecard refused:\n") and words in err


def test_scorecard_refusals_before_any_scoring(tmp_path):
    assert "cannot read the scorecard (No such file or directory)" in refused(
        cli("report", SAMPLE, "--scorecard", tmp_path / "missing.json"))
    err = refused(cli("report", SAMPLE, "--scorecard", SPEED_FIRST, "--weights", "cost=1"))
    assert "--weights and --scorecard both set the radar weights" in err


# --- the property, through the command line's own code -------------------------------------------

weights_st = st.dictionaries(st.sampled_from(RADAR_AXES), st.just(0.0) | st.floats(0.001, 1.0),
                             min_size=1).filter(lambda w: any(v > 0 for v in w.values()))


@cache
def canonical_json_text() -> str:
    return score_runs(load_runs(SAMPLE).runs).to_json_text()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(weights_st)
def test_any_scorecard_through_the_cli_never_moves_a_headline(tmp_path, capsys, weights):
    card = Scorecard("random team", "", weights)
    path = tmp_path / "team.json"
    path.write_text(scorecard_to_json(card))
    capsys.readouterr()
    assert main(["report", str(SAMPLE), "--scorecard", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    plain = json.loads(canonical_json_text())
    assert headline_parts(doc) == headline_parts(plain)
    rows = {r.agent_id: r for r in apply_scorecard(sample_report(), card).rows}
    for agent, entry in zip(doc["agents"], doc["scorecard"]["profile_ranking"]):
        assert agent["radar"]["profile_score"] == rows[agent["agent_id"]].profile_score
        row = rows[entry["agent_id"]]
        assert (entry["profile_rank"], entry["headline_rank"]) == (row.profile_rank, row.headline_rank)
