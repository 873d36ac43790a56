"""Issue 22: one importer outcome rule. How a harness run's status and verdict become the runs table's ``success``
(SPEC 7: failed -> empty unless the harness judges failed runs; no verdict -> unknown unless the harness counts it
as a failure) lives in :func:`scoring.load.importers._base.run_success`, and every importer calls it."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from helpers import tau2_results, terminal_bench_run
from hypothesis import given
from hypothesis import strategies as st

from scoring.contract.schema import COMPLETED, FAILED, STATUSES, TIMEOUT
from scoring.load.importers import import_file, mapping_from_json
from scoring.load.importers._base import run_success
from scoring.load.importers.inspect_log import _sample_row
from scoring.load.importers.tau2 import read_tau2
from scoring.load.importers.taubench import read_taubench

IMPORTERS = Path(__file__).resolve().parents[1] / "scoring" / "load" / "importers"


# --------------------------------------------------------------------------- the rule, by hand


@pytest.mark.parametrize(("status", "verdict", "options", "success"), [
    (COMPLETED, True, {}, True),
    (COMPLETED, False, {}, False),
    (TIMEOUT, True, {}, True),  # a timeout is judged as it ended
    (TIMEOUT, False, {}, False),
    (COMPLETED, None, {}, None),  # no verdict: unknown outcome
    (TIMEOUT, None, {}, None),
    (FAILED, True, {}, None),  # an errored run's value is no judgement (tau2, tau-bench)
    (FAILED, False, {}, None),  # tau-bench's reward 0.0 of an error: empty, not a failure
    (FAILED, True, {"judges_failed": True}, True),  # Inspect's score_on_error, terminal-bench's tests
    (FAILED, False, {"judges_failed": True}, False),
    (FAILED, None, {"judges_failed": True}, None),  # Inspect: a failed sample without a score
    (FAILED, None, {"judges_failed": True, "unknown": False}, False),  # terminal-bench: null is_resolved
    (COMPLETED, None, {"unknown": False}, False),
    (FAILED, None, {"unknown": False}, None),  # failed comes first: no outcome at all
    (None, True, {}, True),  # a status the importer could not read (its problem is reported) keeps the verdict
    ("cancelled", None, {}, None),
])
def test_the_outcome_rule_by_hand(status, verdict, options, success):
    assert run_success(status, verdict, **options) is success


@given(st.sampled_from([*STATUSES, None]), st.sampled_from([True, False, None]), st.booleans(),
       st.sampled_from([False, None]))
def test_the_outcome_is_the_verdict_or_empty_and_a_failed_run_is_judged_only_by_a_harness_that_judges_it(
        status, verdict, judges_failed, unknown):
    success = run_success(status, verdict, judges_failed=judges_failed, unknown=unknown)
    if status == FAILED and not judges_failed:
        assert success is None
    else:
        assert success is (unknown if verdict is None else verdict)


# --------------------------------------------------------------------------- every importer follows it


def test_tau2_follows_the_rule():
    doc = tau2_results([("1", "user_stop", 1.0, 0.1), ("1", "agent_stop", 0.9999995, 0.1), ("1", "max_steps", 0.5, 0.1),
                        ("1", "too_many_errors", 1.0, 0.1), ("1", "user_stop", None, 0.1)], 5)
    raw = read_tau2(doc, "t.json").raw
    assert list(raw["status"]) == [COMPLETED, COMPLETED, TIMEOUT, FAILED, COMPLETED]
    assert list(raw["success"].astype(object).where(raw["success"].notna(), None)) == [True, True, False, None, None]


def test_tau_bench_follows_the_rule():
    def result(trial: int, reward: float, error: str | None = None) -> dict:
        return {"task_id": 0, "trial": trial, "reward": reward, "traj": [],
                "info": {} if error is None else {"error": error, "traceback": "..."}}

    raw = read_taubench([result(0, 1.0), result(1, 0.0), result(2, 1.0, "boom"), result(3, 0.0, "boom")], "x.json").raw
    assert list(raw["status"]) == [COMPLETED, COMPLETED, FAILED, FAILED]
    assert list(raw["success"].astype(object).where(raw["success"].notna(), None)) == [True, False, None, None]


def test_terminal_bench_follows_the_rule(tmp_path):
    path = terminal_bench_run(tmp_path, "run", [("a", True, "none"), ("a", None, "agent_timeout"),
                                               ("a", True, "parse_error"), ("a", None, "unknown_agent_error")])
    raw = import_file(path).raw
    assert list(raw["status"]) == [COMPLETED, TIMEOUT, FAILED, FAILED]
    assert list(raw["success"]) == [True, False, True, False]  # judged whatever the agent did; null -> unresolved


def test_inspect_follows_the_rule():
    def sample(error: str | None, limit: str | None, value: object) -> SimpleNamespace:
        scores = None if value is None else {"match": SimpleNamespace(value=value)}
        return SimpleNamespace(error=error, limit=limit, scores=scores, model_usage={}, messages=[], id=1, epoch=1,
                               completed_at=None, total_time=None)

    counts = dict.fromkeys(("unscored", "nan_score", "partial", "failed_scored", "some_cost", "naive"), 0)
    rows = [_sample_row(s, "r", "a", "match", counts) for s in (
        sample(None, None, "C"), sample(None, "time", "I"), sample(None, None, "P"), sample(None, None, None),
        sample("boom", None, "C"), sample("boom", None, None))]
    assert [r["status"] for r in rows] == [COMPLETED, TIMEOUT, COMPLETED, COMPLETED, FAILED, FAILED]
    assert [r["success"] for r in rows] == [True, False, None, None, True, None]  # score_on_error is kept
    assert counts["failed_scored"] == 1 and counts["unscored"] == 1 and counts["partial"] == 1


@pytest.mark.parametrize(("empty", "expected"), [("unknown", None), ("false", False)])
def test_a_mapped_tables_empty_cell_follows_the_rule(tmp_path, empty, expected):
    (tmp_path / "t.csv").write_text("id,agent,task,state,score\n"
                                    "1,a,t,completed,1\n2,a,t,failed,0.5\n3,a,t,completed,\n")
    mapping = mapping_from_json(json.dumps({
        "mapping_version": 1, "columns": {"run_id": "id", "agent_id": "agent", "task_id": "task", "status": "state",
                                          "success": "score"},
        "success": {"threshold": 1.0, "tolerance": 1e-6, "empty": empty}}).encode())
    success = import_file(tmp_path / "t.csv", mapping=mapping).raw["success"]
    # the table's own verdict for every status (a failed row's 0.5 is a failure), the empty cell by the rule
    assert list(success[:2]) == [True, False]
    assert (pd.isna(success[2]) if expected is None else success[2] is expected)


@pytest.mark.parametrize("module", ["tau2", "taubench", "inspect_log", "terminal_bench", "mapping"])
def test_every_importer_calls_the_one_rule(module):
    tree = ast.parse((IMPORTERS / f"{module}.py").read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "run_success"]
    assert calls, f"scoring/load/importers/{module}.py decides success without run_success"
