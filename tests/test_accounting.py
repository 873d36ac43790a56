"""Every run accounted for (SPEC 6 accounting fields): left_out, flags, tasks_below_min_outcomes."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import runs_from_records, score_runs
from scoring.contract.schema import STATUSES, TERMINAL_STATUSES

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(i, agent="a", task="t1", status="completed", success=True, cost=0.01, latency=1000.0):
    return {"run_id": f"r{i}", "agent_id": agent, "task_id": task, "status": status, "success": success,
            "latency_ms": latency, "cost_usd": cost}


# Built once (a strategy built inside the draw is validated again at every draw); the draws are the same.
_AGENTS, _TASKS = st.sampled_from(["a", "b", "c"]), st.sampled_from(["t1", "t2", "t3"])
_STATUSES, _OUTCOMES = st.sampled_from(list(STATUSES)), st.sampled_from([True, False, None])
_COSTS = st.one_of(st.none(), st.floats(0, 10, allow_nan=False))


@st.composite
def run_tables(draw):
    n = draw(st.integers(0, 50))
    return [run(i, draw(_AGENTS), draw(_TASKS), draw(_STATUSES), draw(_OUTCOMES), draw(_COSTS)) for i in range(n)]


@SETTINGS
@given(run_tables())
def test_completed_plus_left_out_is_every_terminal_run(rows):
    report = score_runs(runs_from_records(rows))
    for agent in report.agents:
        mine = [r for r in rows if r["agent_id"] == agent.agent_id]
        terminal = [r for r in mine if r["status"] in TERMINAL_STATUSES]
        h = agent.headline
        doc = h.to_json()
        assert doc["completed_runs"] + doc["left_out"]["runs"] == len(terminal)
        assert sum(doc["left_out"]["by_status"].values()) == doc["left_out"]["runs"]
        for status, count in doc["left_out"]["by_status"].items():
            assert status in TERMINAL_STATUSES and status != "completed"
            assert count == sum(r["status"] == status for r in mine)
        costs = [r["cost_usd"] for r in terminal if r["status"] != "completed" and r["cost_usd"] is not None]
        if costs:
            assert doc["left_out"]["cost_usd"] == math.fsum(costs)  # correctly rounded, like every mean
        else:
            assert doc["left_out"]["cost_usd"] is None
        completed = [r for r in mine if r["status"] == "completed"]
        no_outcome = bool(completed) and all(r["success"] is None for r in completed)
        assert ("no_outcome_recorded" in doc["flags"]) == no_outcome
        assert ("unranked" in doc["flags"]) == (not completed)


def test_a_timeout_left_out_is_counted_with_its_cost():
    # The grok-3 case in miniature: one run hit max_steps (timeout) and cost most of the spend.
    rows = [run(i, success=i < 2, cost=0.25) for i in range(4)] + [run(9, status="timeout", success=False, cost=5.58)]
    h = score_runs(runs_from_records(rows)).agents[0].headline
    assert h.completed_runs == 4 and h.success_rate == 0.5
    assert h.left_out.to_json() == {"runs": 1, "by_status": {"failed": 0, "timeout": 1}, "cost_usd": 5.58}
    assert h.terminal_runs == 5


def test_left_out_runs_that_recorded_no_cost_have_no_share_of_the_spend_either():
    """Before, the table beside the leaderboard said "Cost left out —" and "Share of spend left out 0.00%" on one
    row: the share of a cost nobody recorded cannot be told. One recorded at 0 is a share of 0."""
    rows = [run(i, cost=0.25) for i in range(4)] + [run(9, status="failed", success=False, cost=None)]
    h = score_runs(runs_from_records(rows)).agents[0].headline
    assert h.left_out.runs == 1 and h.left_out.cost_usd is None and h.left_out_spend_share is None
    assert h.left_out_words().endswith("; they recorded no cost")
    rows[-1]["cost_usd"] = 0.0
    h = score_runs(runs_from_records(rows)).agents[0].headline
    assert h.left_out.cost_usd == 0.0 and h.left_out_spend_share == 0.0


def test_no_outcome_recorded_is_flagged_never_a_plain_zero():
    rows = [run(i, success=None) for i in range(3)]
    h = score_runs(runs_from_records(rows)).agents[0].headline
    assert h.score == 0.0 and h.zero_success_floor  # the published rule is unchanged
    assert h.flag_codes[0] == "no_outcome_recorded" and h.flags[0] == "no outcome recorded"
    # one known outcome is a measurement: no flag
    rows[0]["success"] = False
    assert "no_outcome_recorded" not in score_runs(runs_from_records(rows)).agents[0].headline.flag_codes


@pytest.mark.parametrize("trials, below, reason", [
    (1, 2, "2 tasks have 2 outcomes or fewer"),
    (2, 2, "2 tasks have 2 outcomes or fewer"),
    (3, 0, None),
])
def test_a_missing_pass_k_says_why(trials, below, reason):
    rows = [run(f"{t}-{i}", task=t) for t in ("t1", "t2") for i in range(trials)]
    rep = score_runs(runs_from_records(rows), levels=(1, 2)).agents[0].repeatability
    assert rep.to_json()["tasks_below_min_outcomes"] == below
    if reason is None:
        assert rep.pass_k is not None and rep.missing_reason() is None
    else:
        assert rep.pass_k is None and reason in rep.missing_reason()


def test_no_known_outcome_at_all_says_so():
    rep = score_runs(runs_from_records([run(1, success=None)])).agents[0].repeatability
    assert rep.tasks_below_min_outcomes == 0
    assert rep.missing_reason() == "no pass^k: no terminal run with a known outcome"


@pytest.mark.parametrize(("latencies", "gate", "radar"), [
    (3, "3 recorded latencies, fewer than the 5 needed: consistency takes the neutral factor 0.5.",
     "latency suppressed: 3 runs with a latency, 5 needed; raw median 1,000 ms"),
    (1, "1 recorded latency, fewer than the 5 needed: consistency takes the neutral factor 0.5.",
     "latency suppressed: 1 run with a latency, 5 needed; raw median 1,000 ms"),
    (0, "0 recorded latencies, fewer than the 5 needed: consistency takes the neutral factor 0.5.",
     "latency suppressed: no run with a latency, 5 needed"),
])
def test_the_gates_say_what_was_recorded_against_what_is_needed(latencies, gate, radar):
    """Before: 'Only 0 of the 5 recorded latencies needed' and 'latency suppressed: 0 of 5 runs needed'."""
    rows = [run(i, latency=1000.0 if i < latencies else None) for i in range(4)]
    a = score_runs(runs_from_records(rows)).agents[0]
    assert gate in [str(f) for f in a.headline.explain()]
    assert str(a.radar.reasons["latency"]) == radar
