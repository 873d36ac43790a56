"""Issue 15, scoring.analysis.fixes: what fixing a task's unsuccessful runs is worth, by hand and against re-scoring."""

from __future__ import annotations

import math
from functools import cache, partial

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from scoring import headline_scores, leaderboard_order, load_runs, runs_from_records, score_runs
from scoring.analysis.explain import influence
from scoring.analysis.fixes import KINDS, costliest, fixes
from tests import helpers
from tests.helpers import run_tables

SAMPLE = "sample_data/runs.csv"
TOL = 1e-9


# Runs here are timed and priced unless a test says otherwise.
run = partial(helpers.run, latency=1000.0, cost=0.01)


@cache
def sample_rows() -> tuple[dict, ...]:
    frame = load_runs(SAMPLE).runs
    out = []
    for r in frame.drop(columns=["source_row"]).to_dict("records"):
        r = {k: (None if v is pd.NA or (isinstance(v, float) and math.isnan(v)) or v is pd.NaT else v)
             for k, v in r.items()}
        r["finished_at"] = None if r["finished_at"] is None else r["finished_at"].isoformat()
        out.append({**r, "status": str(r["status"]), "agent_id": str(r["agent_id"]), "task_id": str(r["task_id"])})
    return tuple(out)


def applied(rows, agent: str, task: str, kind: str, report) -> list[dict]:
    """The runs with one fix made in the data, as the module docstring defines it."""
    h = report.agent(agent).headline
    out = []
    for r in rows:
        r = dict(r)
        if r["agent_id"] == agent and (task == "" or r["task_id"] == task):
            if r["status"] == "completed" and r["success"] is not True and kind in ("completed", "all"):
                r["success"] = True
            elif r["status"] in ("timeout", "failed") and kind in (r["status"], "all"):
                r.update(status="completed", success=True, latency_ms=h.avg_latency_ms, cost_usd=h.avg_cost_usd)
        out.append(r)
    return out


def check_against_rescoring(rows, agent: str, scored=None) -> int:
    """``scored``: (runs, report) of ``rows`` when the caller has them (one table checked for each of its agents)."""
    runs, report = scored or (runs_from_records(rows), None)
    report = score_runs(runs) if report is None else report
    f = fixes(runs, agent, report)
    # Only this agent's runs change: re-scoring it and the agent above is enough.
    rows = [r for r in rows if r["agent_id"] in (agent, f.above)]
    checked = 0
    for frame in (f.tasks, f.totals):
        for row in frame.itertuples(index=False):
            after = headline_scores(runs_from_records(applied(rows, agent, row.task_id, row.kind, report)))
            weighted = after[agent].weighted_score
            before = report.agent(agent).headline.weighted_score
            if before is None:
                assert math.isnan(row.points_if_fixed)
            else:
                assert row.points_if_fixed == pytest.approx(weighted - before, abs=TOL), row
            midpoint = abs(weighted * 100 - math.floor(weighted * 100) - 0.5) < TOL * 100
            assert row.score_if_fixed == after[agent].score or midpoint, (row, after[agent].score)
            if f.above is not None and not midpoint:
                order = leaderboard_order(after)
                assert bool(row.overtakes) == (order.index(agent) < order.index(f.above)), row
            checked += 1
    return checked


def test_by_hand():
    # t: 3 of 4 completed runs succeed; u: one timeout. 4 latencies: consistency neutral.
    rows = [run(f"r{i}", success=i < 3) for i in range(4)] + [
        run("x", task="u", status="timeout", success=None, latency=9000.0, cost=0.02),
        run("q", task="u", status="queued", success=None, latency=None, cost=None)]
    runs = runs_from_records(rows)
    f = fixes(runs, "a", score_runs(runs))
    assert f.score == 75.5  # 40 * 0.75 + 15 * 0.9333 + 15 * 0.5 + 30 * 0.8
    assert f.above is None and f.target_score is None  # alone: nobody to overtake
    table = f.tasks.set_index(["task_id", "kind"])
    # t: the failure succeeds: 40 * 1.0 + 14 + 7.5 + 24
    assert table.loc[("t", "completed"), "score_if_fixed"] == 85.5
    assert table.loc[("t", "completed"), "points_if_fixed"] == pytest.approx(10.0)
    # u: the timeout completes at the averages (1,000 ms, $0.01; its own 9,000 ms is not used): success 4/5,
    # five latencies now, all equal: consistency 1.0. 32 + 14 + 15 + 24 = 85.
    assert table.loc[("u", "timeout"), "score_if_fixed"] == 85.0
    assert table.loc[("u", "timeout"), "runs_changed"] == 1  # the queued run is not terminal: never fixed
    assert set(f.tasks["kind"]) == {"completed", "timeout"}  # "all" would repeat a single kind
    assert f.tasks["overtakes"].isna().all()
    totals = f.totals.set_index("kind")
    assert totals.loc["all", "runs_changed"] == 2 and totals.loc["all", "score_if_fixed"] == 93.0  # 40+14+15+24


def test_overtaking_fixes_come_first_smallest_first():
    # b: 6/10 successes, 77.00; a: 5 of 11 (t1 4/6, t2 1/4, t3 0/1), 71.18. Fixing t1 (2 runs) gives 78.45 and
    # t2 (3 runs) 82.09, both above b; t3 (1 run) gives 74.82, not enough.
    rows = ([run(f"b{i}", agent="b", success=i < 6) for i in range(10)]
            + [run(f"a{i}", task="t1", success=i < 4) for i in range(6)]
            + [run(f"c{i}", task="t2", success=i < 1) for i in range(4)] + [run("d", task="t3", success=False)])
    runs = runs_from_records(rows)
    report = score_runs(runs)
    assert [a.agent_id for a in report.agents] == ["b", "a"]
    f = fixes(runs, "a", report)
    assert f.above == "b"
    assert f.score == 71.18 and f.target_score == 77.0  # "a" sorts first: an equal score is enough
    assert f.tasks[["task_id", "runs_changed", "score_if_fixed", "overtakes"]].values.tolist() == [
        ["t1", 2, 78.45, True], ["t2", 3, 82.09, True], ["t3", 1, 74.82, False]]
    assert list(f.overtaking()["task_id"]) == ["t1", "t2"]
    assert str(f.facts()[0]).startswith("The smallest fix that alone overtakes b: on task t1, 2 runs")
    check_against_rescoring(rows, "a")


@pytest.mark.parametrize("agent", ["crashy-runner", "newcomer", "null-pointer", "steady-pro", "premium-max"])
def test_every_fix_equals_rescoring_the_fixed_data(agent):
    assert check_against_rescoring(list(sample_rows()), agent) > 0


def test_the_floor_lifted_by_a_fix():
    f = fixes(load_runs(SAMPLE).runs, "null-pointer", score_runs(load_runs(SAMPLE).runs))
    assert f.score == 0.0
    row = f.tasks.iloc[0]
    assert row["score_if_fixed"] > 50 and row["score_change"] == row["score_if_fixed"]
    assert row["points_if_fixed"] < 5  # the weighted score moves little: the floor lifted is most of it


def test_an_unranked_agent_becomes_ranked_by_a_fix():
    rows = [run("f1", status="failed", success=None, latency=None, cost=None),
            run("f2", task="u", status="timeout", success=False, latency=8000.0, cost=0.3)]
    runs = runs_from_records(rows)
    f = fixes(runs, "a", score_runs(runs))
    assert f.score is None and f.above is None
    # No completed run: no average to give the fixed runs, so no latency or cost: 40 + 15 * 0 + 15 * 0.5 + 0.
    assert set(f.tasks["score_if_fixed"]) == {47.5}
    assert f.tasks["points_if_fixed"].isna().all() and f.tasks["score_change"].isna().all()
    check_against_rescoring(rows, "a")


def test_json_and_facts_have_no_nan():
    runs = load_runs(SAMPLE).runs
    f = fixes(runs, "crashy-runner", score_runs(runs))
    text = str(f.to_json())
    assert "nan" not in text.lower() and "<NA>" not in text
    words = [str(x) for x in f.facts()]
    assert words[0] == "No single task's fix overtakes blackbox-api (76.31 needed)."
    assert any(w.startswith("If its 29 timed-out runs had completed successfully: 76.00") for w in words)
    assert set(f.tasks["kind"]) <= set(KINDS)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_tables(min_size=1, max_size=40))
def test_fixes_equal_rescoring_on_random_tables(rows):
    runs = runs_from_records(rows)
    scored = runs, score_runs(runs)  # the table as it is, scored once for all its agents
    for agent in sorted({r["agent_id"] for r in rows}):
        check_against_rescoring(rows, agent, scored)


# --------------------------------------------------------------------------- costliest, together


@pytest.mark.parametrize("agent", ["crashy-runner", "steady-pro", "newcomer"])
def test_costliest_tasks_and_runs_removed_together_equal_rescoring(agent):
    runs = load_runs(SAMPLE).runs
    report = score_runs(runs)
    h = report.agent(agent).headline
    found = influence(runs, agent, report.policy, h)
    c = costliest(runs, agent, found, report.policy, h)
    assert list(c.tasks) == list(found.costliest_tasks(3)["task_id"])
    assert list(c.runs) == list(found.costliest_runs(12)["run_id"])
    assert (found.tasks.set_index("task_id").loc[list(c.tasks), "points_if_removed"] > 0).all()
    for ids, removal in ((c.task_runs, c.task_removal), (c.runs, c.run_removal)):
        keep = ~(runs["agent_id"].eq(agent) & runs["run_id"].astype(str).isin(ids)).to_numpy()
        after = headline_scores(runs[keep])[agent]
        assert removal.runs == len(ids)
        assert removal.points_if_removed == pytest.approx(after.weighted_score - h.weighted_score, abs=TOL)
        assert removal.score_if_removed == after.score
    words = [str(f) for f in c.facts()]
    tasks = "costliest task" if len(c.tasks) == 1 else "costliest tasks"
    runs_word = "run" if len(c.task_runs) == 1 else "runs"
    expected = f"The {len(c.tasks)} {tasks} ({', '.join(c.tasks)}; {len(c.task_runs)} {runs_word}) cost"
    assert words[0].startswith(expected)


def test_crashy_runner_costliest_runs_reach_the_agent_above():
    runs = load_runs(SAMPLE).runs
    report = score_runs(runs)
    h = report.agent("crashy-runner").headline
    c = costliest(runs, "crashy-runner", influence(runs, "crashy-runner", report.policy, h), report.policy, h)
    assert str(c.facts()[1]) == ("The 12 costliest runs cost 1.64 points together (removed at once): without them "
                                 "the score would be 76.31.")
    assert "not the sum of each removed alone" in str(c.facts()[0]) or len(c.tasks) == 1


def test_nothing_costs_points_when_every_run_helps():
    rows = [run(f"r{i}", latency=1000.0) for i in range(6)]  # all successful, equal latencies: nothing to gain
    runs = runs_from_records(rows)
    report = score_runs(runs)
    c = costliest(runs, "a", influence(runs, "a"), report.policy)
    assert c.tasks == () and c.runs == () and c.task_removal is None
    assert [str(f) for f in c.facts()] == ["No task or run costs points: removing any of them would not raise the "
                                           "score."]
