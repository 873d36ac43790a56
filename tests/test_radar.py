"""SPEC 4: the fitness radar (window, five axes, profile score), hand-worked."""

import random
from datetime import UTC, datetime, timedelta

import pytest

from scoring import fitness_radar, load_runs, profile_score, runs_from_records
from tests.helpers import run

TOL = 1e-9
BASE = datetime(2026, 7, 1, tzinfo=UTC)
ALL_NULL = {"correctness": None, "latency": None, "cost": None, "tool_efficiency": None, "robustness": None}


def ts(minutes):
    return (BASE + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")




def radar(records, agent="a"):
    return fitness_radar(runs_from_records(records))[agent]


# --------------------------------------------------------------------------- the window


def test_window_is_the_100_newest_terminal_runs():
    # 150 terminal runs: the oldest 50 fail at 9000 ms, the newest 100 succeed at 1000 ms.
    records = [run(f"r{i:03d}", success=i >= 50, latency=9000 if i < 50 else 1000,
                   finished_at=ts(i)) for i in range(150)]
    random.Random(7).shuffle(records)  # file order must not matter when finished_at exists
    r = radar(records)
    assert r.window_runs == 100
    assert r.axes["correctness"] == 100.0
    assert r.p50_latency_ms == 1000.0


def test_window_mixes_terminal_statuses():
    # completed, failed and timeout are all terminal: 2 + 1 + 1 = 4 runs, 1 success among them
    records = [run("r1", success=True, finished_at=ts(1)), run("r2", success=False, finished_at=ts(2)),
               run("r3", status="failed", success=False, finished_at=ts(3)),
               run("r4", status="timeout", success=False, finished_at=ts(4))]
    r = radar(records)
    assert r.window_runs == 4
    assert r.axes["correctness"] == 25.0


def test_non_terminal_runs_never_enter_nor_take_window_slots():
    # exactly 100 terminal runs (oldest one is a failure) + 5 newer cancelled/queued/running runs.
    records = [run(f"t{i:03d}", success=i > 0, latency=1000, finished_at=ts(i)) for i in range(100)]
    for j, status in enumerate(["cancelled", "queued", "running", "cancelled", "queued"]):
        records.append(run(f"n{j}", status=status, success=False, latency=99_999, cost=5.0, finished_at=ts(1000 + j)))
    r = radar(records)
    # all 100 terminal runs are in the window: 99 successes / 100 outcomes
    assert r.window_runs == 100
    assert r.axes["correctness"] == 99.0
    assert r.p50_latency_ms == 1000.0
    assert r.p50_cost_usd is None  # only the non-terminal runs had a cost


def test_agent_with_only_non_terminal_runs_has_an_empty_window():
    r = radar([run("q", status="queued", latency=100, cost=0.01), run("x", status="cancelled")])
    assert r.window_runs == 0
    assert r.axes == ALL_NULL
    assert r.profile().score is None


def test_timestamp_tie_is_broken_by_run_id_descending_as_text():
    # 99 newer runs + two runs at the same oldest instant: 'r9' and 'r10'.
    # As text 'r9' > 'r10', so 'r9' is newer and takes the 100th slot; 'r10' (the failure) falls out.
    records = [run(f"x{i:03d}", success=True, finished_at=ts(10 + i)) for i in range(99)]
    records += [run("r10", success=False, finished_at=ts(0)), run("r9", success=True, finished_at=ts(0))]
    r = radar(records)
    assert r.window_runs == 100
    assert r.axes["correctness"] == 100.0  # numeric comparison (r10 newer) would give 99.0


def test_timestamp_tie_break_the_other_way_round():
    # same as above but now 'r9' is the failure: it is newer, so it stays in -> 99 / 100
    records = [run(f"x{i:03d}", success=True, finished_at=ts(10 + i)) for i in range(99)]
    records += [run("r10", success=True, finished_at=ts(0)), run("r9", success=False, finished_at=ts(0))]
    r = radar(records)
    assert r.axes["correctness"] == 99.0


def test_timestamps_with_offsets_are_ordered_by_instant():
    # '12:30+02:00' is 10:30Z, older than '11:00Z'. 99 runs after both, so only one of the two fits.
    records = [run(f"x{i:03d}", success=True, finished_at=ts(24 * 60 + i)) for i in range(99)]
    records += [run("zz", success=False, finished_at="2026-07-01T12:30:00+02:00"),
                run("aa", success=True, finished_at="2026-07-01T11:00:00Z")]
    r = radar(records)
    assert r.axes["correctness"] == 100.0  # 'zz' (text-largest, but oldest instant) falls out


@pytest.mark.parametrize("empty", ["", None])
def test_terminal_run_with_empty_finished_at_sorts_as_oldest(empty):
    # 100 dated successes + 1 undated failure, listed last in the file and with the text-largest run_id
    records = [run(f"r{i:03d}", success=True, finished_at=ts(i)) for i in range(100)]
    records.append(run("zzz", success=False, finished_at=empty))
    r = radar(records)
    assert r.window_runs == 100
    assert r.axes["correctness"] == 100.0


def test_without_finished_at_column_a_later_row_is_newer():
    # 101 rows, no finished_at key at all. Row 1 (oldest) is the failure and has the text-largest run_id.
    records = [run("r999", success=False)] + [run(f"r{i:03d}", success=True) for i in range(100)]
    r = radar(records)
    assert r.window_runs == 100
    assert r.axes["correctness"] == 100.0


def test_without_finished_at_column_the_last_row_is_in_the_window():
    # 101 rows; the failure is the last row (newest) but has the text-smallest run_id -> it is in.
    records = [run(f"r{i:03d}", success=True) for i in range(1, 101)] + [run("a000", success=False)]
    r = radar(records)
    assert r.window_runs == 100
    assert r.axes["correctness"] == 99.0  # 99 successes + the failure


def test_missing_finished_at_column_is_warned_about():
    data = b'[{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed",' \
           b' "success": true, "latency_ms": 1, "cost_usd": 0.01}]'
    loaded = load_runs(data, name="runs.json")
    assert any("finished_at" in w for w in loaded.warnings)


# --------------------------------------------------------------------------- correctness


def test_correctness_excludes_unknown_outcomes():
    r = radar([run("r1", success=True), run("r2", success=True), run("r3", success=False),
               run("r4", success=None), run("r5", status="failed", success=None)])
    # 2 successes / 3 known outcomes = 66.666... -> 66.67
    assert r.axes["correctness"] == 66.67
    assert r.raw_axes["correctness"] == pytest.approx(200 / 3, abs=TOL)


def test_correctness_is_null_without_any_known_outcome():
    r = radar([run("r1", success=None), run("r2", status="failed", success=None)])
    assert r.window_runs == 2
    assert r.axes["correctness"] is None


# --------------------------------------------------------------------------- latency


def test_latency_axis_is_null_with_four_latencies_but_p50_is_reported():
    r = radar([run(f"r{i}", latency=lat) for i, lat in enumerate([4000, 1000, 3000, 2000, None])])
    # 4 latencies < 5 -> axis null; median of 1000,2000,3000,4000 = (2000+3000)/2 = 2500
    assert r.axes["latency"] is None
    assert r.p50_latency_ms == 2500.0


def test_latency_axis_is_computed_with_five_latencies():
    r = radar([run(f"r{i}", latency=lat) for i, lat in enumerate([5000, 1000, 4000, 2000, 3000])])
    # median 3000 -> 100 * (0.8 - 0.3 * 1000/3000) = 70.0
    assert r.p50_latency_ms == 3000.0
    assert r.axes["latency"] == 70.0


def test_latency_p50_of_an_even_count_is_the_mean_of_the_middle_two():
    r = radar([run(f"r{i}", latency=lat) for i, lat in enumerate([9000, 100, 3000, 9999, 200, 1000])])
    # sorted 100,200,1000,3000,9000,9999 -> (1000+3000)/2 = 2000 -> 100 * 0.8 = 80.0
    assert r.p50_latency_ms == 2000.0
    assert r.axes["latency"] == 80.0


def test_latency_p50_is_null_without_any_latency():
    r = radar([run("r1", latency=None)])
    assert r.p50_latency_ms is None
    assert r.axes["latency"] is None


# --------------------------------------------------------------------------- cost


def test_cost_axis_is_null_when_no_cost_is_recorded():
    r = radar([run(f"r{i}", latency=1000, cost=None) for i in range(6)])
    assert r.axes["cost"] is None
    assert r.p50_cost_usd is None


def test_cost_axis_uses_the_median_cost_even_from_one_value():
    r = radar([run("r1", cost=0.03), run("r2", cost=None)])
    # p50 = 0.03 -> 100 * (0.8 - 0.3 * 0.02/0.04) = 65.0
    assert r.p50_cost_usd == pytest.approx(0.03, abs=TOL)
    assert r.axes["cost"] == 65.0


def test_cost_p50_of_an_even_count():
    r = radar([run(f"r{i}", cost=c) for i, c in enumerate([0.2, 0.01, 0.05, 0.001])])
    # sorted 0.001, 0.01, 0.05, 0.2 -> (0.01+0.05)/2 = 0.03 -> 65.0
    assert r.p50_cost_usd == pytest.approx(0.03, abs=TOL)
    assert r.axes["cost"] == 65.0


# --------------------------------------------------------------------------- tool efficiency


def test_tool_efficiency_is_null_when_steps_column_is_absent():
    r = radar([run("r1"), run("r2")])
    assert r.axes["tool_efficiency"] is None
    assert r.p50_steps is None


def test_tool_efficiency_is_null_when_every_step_is_null():
    r = radar([run("r1", steps=None), run("r2", steps="")])
    assert r.axes["tool_efficiency"] is None
    assert r.p50_steps is None


def test_tool_efficiency_is_null_when_every_step_is_zero_but_p50_steps_is_zero():
    r = radar([run("r1", steps=0), run("r2", steps=0), run("r3", steps=None)])
    assert r.axes["tool_efficiency"] is None
    assert r.p50_steps == 0


def test_tool_efficiency_is_computed_from_the_median_step_count():
    r = radar([run("r1", steps=12), run("r2", steps=3), run("r3", steps=7), run("r4", steps=5), run("r5", steps=None)])
    # sorted 3,5,7,12 -> (5+7)/2 = 6 -> 100 * (0.8 - 0.3 * 1/5) = 74.0
    assert r.p50_steps == 6
    assert r.axes["tool_efficiency"] == 74.0


def test_tool_efficiency_with_some_zero_steps_is_not_null():
    r = radar([run("r1", steps=0), run("r2", steps=0), run("r3", steps=5)])
    # not every value is 0 -> axis exists; median 0 -> clamp below 2 -> 100.0
    assert r.p50_steps == 0
    assert r.axes["tool_efficiency"] == 100.0


# --------------------------------------------------------------------------- robustness


def test_robustness_keeps_tasks_with_two_or_more_outcomes():
    records = [
        run("a1", task="one", success=True),  # 1 outcome -> excluded
        run("b1", task="two", success=True), run("b2", task="two", success=False),  # p=1/2 -> r=0
        run("c1", task="three", success=True), run("c2", task="three", success=True),
        run("c3", task="three", success=False),  # p=2/3 -> r = 1 - 4*(2/3)*(1/3) = 1/9
        run("d1", task="solid", success=True), run("d2", task="solid", success=True),
        run("d3", task="solid", status="failed", success=True),  # p=1 -> r=1
        # one known outcome + two unknown ones: still only 1 outcome -> excluded
        run("e1", task="unknowns", success=False), run("e2", task="unknowns", success=None),
        run("e3", task="unknowns", success=None),
    ]
    r = radar(records)
    # mean over kept tasks (two, three, solid) = (0 + 1/9 + 1)/3 = 10/27 = 0.370370 -> 37.04
    assert r.robustness_tasks == 3
    assert r.raw_axes["robustness"] == pytest.approx(100 * 10 / 27, abs=TOL)
    assert r.axes["robustness"] == 37.04


def test_robustness_of_always_and_never_solved_tasks_is_100():
    records = [run(f"s{i}", task="always", success=True) for i in range(3)]
    records += [run(f"f{i}", task="never", success=False) for i in range(2)]
    r = radar(records)
    # r = 1 - 4p(1-p) = 1 for p = 1 and for p = 0
    assert r.robustness_tasks == 2
    assert r.axes["robustness"] == 100.0


def test_robustness_is_null_when_no_task_has_two_outcomes():
    r = radar([run("r1", task="x", success=True), run("r2", task="y", success=False)])
    assert r.axes["robustness"] is None
    assert r.robustness_tasks == 0


# --------------------------------------------------------------------------- profile score


def test_profile_renormalizes_default_weights_over_available_axes():
    p = profile_score({**ALL_NULL, "correctness": 80.0, "cost": 60.0})
    # 0.2*80 + 0.2*60 over 0.4 = 70.0; weights 0.5 / 0.5
    assert p.score == 70.0
    assert p.weights == pytest.approx({"correctness": 0.5, "cost": 0.5})


def test_profile_with_custom_weights():
    p = profile_score({**ALL_NULL, "correctness": 80.0, "cost": 60.0, "latency": 10.0},
                      {"correctness": 3, "cost": 1, "latency": 0})
    # (3*80 + 1*60 + 0*10) / 4 = 75.0
    assert p.score == 75.0
    assert p.weights == pytest.approx({"correctness": 0.75, "cost": 0.25, "latency": 0.0})


def test_profile_weight_of_a_null_axis_is_dropped():
    # all the weight on a null axis: only correctness and cost remain, with weight 1 each
    p = profile_score({**ALL_NULL, "correctness": 80.0, "cost": 60.0},
                      {"latency": 10, "correctness": 1, "cost": 1, "tool_efficiency": 0, "robustness": 0})
    assert p.score == 70.0


def test_profile_is_null_when_every_available_weight_is_zero():
    weights = {"correctness": 0, "latency": 0, "cost": 0, "tool_efficiency": 0, "robustness": 0}
    assert profile_score({**ALL_NULL, "correctness": 80.0}, weights).score is None


def test_profile_is_null_when_available_weights_sum_to_zero_but_null_axes_have_weight():
    weights = {"correctness": 0, "latency": 1, "cost": 0, "tool_efficiency": 0, "robustness": 0}
    assert profile_score({**ALL_NULL, "correctness": 80.0}, weights).score is None


def test_profile_is_null_when_no_axis_is_available():
    assert profile_score(ALL_NULL).score is None


def test_profile_is_computed_from_unrounded_axes():
    # unrounded: (40.006 + 40.006 + 40.0)/3 = 40.004 -> 40.0
    # rounding the axes first would give (40.01 + 40.01 + 40.0)/3 = 40.00667 -> 40.01
    p = profile_score({**ALL_NULL, "correctness": 40.006, "cost": 40.006, "robustness": 40.0})
    assert p.score == 40.0


def test_radar_profile_from_a_dataset():
    records = [run("r1", task="t", success=True, cost=0.03), run("r2", task="t", success=True),
               run("r3", task="t", success=False)]
    r = radar(records)
    # correctness 200/3 = 66.6667; cost(0.03) = 65.0; robustness p=2/3 -> 100/9 = 11.1111
    # latency null (no latency), tool_efficiency null (no steps)
    # profile = (66.6667 + 65 + 11.1111)/3 = 142.7778/3 = 47.5926 -> 47.59
    assert r.axes == {"correctness": 66.67, "latency": None, "cost": 65.0, "tool_efficiency": None,
                      "robustness": 11.11}
    assert r.profile().score == 47.59
    # custom weights: correctness 1, robustness 1, others 0 -> (66.6667 + 11.1111)/2 = 38.8889 -> 38.89
    custom = {"correctness": 1, "latency": 0, "cost": 0, "tool_efficiency": 0, "robustness": 1}
    assert r.profile(custom).score == 38.89


def test_axes_are_rounded_to_two_decimals():
    r = radar([run("r1", success=True), run("r2", success=False), run("r3", success=False)])
    # 100/3 = 33.3333 -> 33.33
    assert r.axes["correctness"] == 33.33


@pytest.mark.parametrize("seed", range(4))
def test_the_window_read_agent_by_agent_is_the_window_numbered_at_once(seed, monkeypatch):
    """window_rows reads each agent's slice on its own up to a few thousand agents and numbers every terminal row
    at once past that: both give the same rows (agents with no terminal run, fewer than a window, and more)."""
    import numpy as np

    from scoring.measures import radar as radar_module
    from scoring.measures._groups import agent_groups

    rng = random.Random(seed)
    statuses = ["completed", "failed", "timeout", "queued", "running", "cancelled"]
    records = [run(f"r{i}", agent=f"a{rng.randrange(6)}", status=rng.choice(statuses),
                   finished_at=ts(rng.randrange(500))) for i in range(rng.randrange(0 if seed else 1200, 1500))]
    for i in range(3):  # one agent with no terminal run at all
        records.append(run(f"q{i}", agent="idle", status="queued", finished_at=ts(i)))
    groups = agent_groups(runs_from_records(records))
    per_agent = radar_module.window_rows(groups)
    monkeypatch.setattr(radar_module, "_WINDOW_LOOP_UP_TO", 0)
    at_once = radar_module.window_rows(groups)
    assert per_agent.dtype == at_once.dtype and np.array_equal(per_agent, at_once)
    assert len(per_agent) == sum(min(100, int(n)) for n in np.bincount(groups.codes[groups.terminal],
                                                                       minlength=groups.size))
