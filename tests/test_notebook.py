"""The notebook API (issue 25): scoring.score on paths, lists, DataFrames and Arrow tables; the README example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import scoring
from scoring import RunsValidationError, load_runs, score_runs
from scoring.analysis.explain import explain

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
TAU_BENCH = ROOT / "tests" / "fixtures" / "tau-bench" / "sonnet-retail.json"


@pytest.fixture(scope="module")
def expected() -> pd.DataFrame:
    return score_runs(load_runs(SAMPLE).runs).to_frame()


def test_the_bundled_sample_is_the_clones_sample():
    assert scoring.SAMPLE_RUNS.read_bytes() == SAMPLE.read_bytes()


@pytest.mark.parametrize("form", ["str", "path", "list", "frame", "arrow"])
def test_every_form_of_data_gives_the_same_report(form, expected):
    data = {"str": lambda: str(SAMPLE), "path": lambda: SAMPLE, "list": lambda: [SAMPLE],
            "frame": lambda: pd.read_csv(SAMPLE), "arrow": lambda: pa.Table.from_pandas(pd.read_csv(SAMPLE))}[form]()
    report = scoring.score(data)
    pd.testing.assert_frame_equal(report.to_frame(), expected)


def test_harness_results_and_several_paths_are_imported(tmp_path):
    alone = scoring.score(TAU_BENCH)
    assert [a.agent_id for a in alone.agents] == ["sonnet-retail"]
    both = scoring.score([SAMPLE, TAU_BENCH])
    assert {a.agent_id for a in both.agents} == {a.agent_id for a in scoring.score(SAMPLE).agents} | {"sonnet-retail"}


def test_leaderboard_is_the_reports_order_with_numbers():
    report = scoring.score(SAMPLE)
    board = report.leaderboard()
    assert list(board.columns) == ["rank", "agent", "score", "success_rate", "execution", "cost", "completed_runs",
                                   "profile_score", "pass^1", "pass^3", "pass^5", "flags"]
    assert list(board["agent"]) == [a.agent_id for a in report.agents]
    assert board["score"].iloc[0] == report.agents[0].headline.score == 86.96
    assert len(board) == len(report.to_frame())


def test_explain_is_the_commands_explanation():
    report = scoring.score(SAMPLE)
    mine = report.agent("swift-lite").explain()
    theirs = explain(load_runs(SAMPLE).runs, "swift-lite")
    assert mine.to_json() == theirs.to_json()
    assert str(mine).startswith("swift-lite: headline 79.65, rank 2 of 10")
    assert "<pre>" in mine._repr_html_()


def test_explain_without_runs_says_how_to_get_them():
    report = score_runs(load_runs(SAMPLE).runs)
    with pytest.raises(ValueError, match=r"scoring\.score"):
        report.agent("swift-lite").explain()


def test_repr_html_is_escaped_and_readable():
    runs = pd.read_csv(SAMPLE)
    runs.loc[runs["agent_id"] == "newcomer", "agent_id"] = "<b>x</b>"
    report = scoring.score(runs)
    page = report._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "86.96" in page and "2026-07-zero-success-v1" in page
    assert "nan" not in page.lower().replace("finance", "")
    one = report.agent("<b>x</b>")._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in one and "<b>x</b>" not in one


def test_bad_data_is_refused_with_its_row_and_column():
    runs = pd.read_csv(SAMPLE)
    runs.loc[3, "status"] = "exploded"
    with pytest.raises(RunsValidationError) as error:
        scoring.score(runs)
    assert "row 4" in error.value.report() and "status" in error.value.report()
    with pytest.raises(TypeError, match="a path, a list of paths"):
        scoring.score([1, 2])  # type: ignore[list-item]


def test_a_sandbox_policy_by_path(tmp_path):
    from scoring.contract.policy import CANONICAL_POLICY, policy_to_dict

    doc = policy_to_dict(CANONICAL_POLICY)
    assert scoring.score(SAMPLE, policy=CANONICAL_POLICY).policy is CANONICAL_POLICY
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(doc))
    assert scoring.score(SAMPLE, policy=path).agents[0].headline.score == 86.96


def test_readme_example_runs(capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"<!-- notebook-example -->\n```python\n(.*?)```", text, re.S)
    assert code is not None
    exec(compile(code.group(1), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "steady-pro  86.96" in out and "To overtake steady-pro" in out
