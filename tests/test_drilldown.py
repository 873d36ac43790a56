"""Issue 15, scoring.analysis.drilldown: the runs behind every number, tasks by agents, scores over time, two agents."""

import io
import json
import math
from functools import cache, partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import load_runs, runs_from_records, score_runs
from scoring.analysis.drilldown import (
    MAX_DAYS,
    TooManyDays,
    compare,
    runs_csv,
    runs_view,
    score_over_time,
    task_matrix,
)
from scoring.analysis.explain import points_lost
from scoring.contract.policy import policy_from_dict
from tests import helpers
from tests.helpers import HOSTILE_SPAN_CSV, run_tables

SAMPLE = "sample_data/runs.csv"
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMALL_WINDOW = policy_from_dict({"radar_window": 3})  # windows smaller than the random tables


# Runs here are timed, priced, finished on 1 July and without steps unless a test says otherwise.
run = partial(helpers.run, latency=1000.0, cost=0.01, day=1, steps=None)


@cache
def sample():
    runs = load_runs(SAMPLE).runs
    return runs, score_runs(runs)


def missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def same(a, b, tol=0.0):
    """Both undefined, or equal (within ``tol``)."""
    if missing(a) or missing(b):
        return missing(a) and missing(b)
    return abs(a - b) <= tol


# pass^k over time is the report's mean over qualifying tasks summed in another order (see _pass_k_days).
PASS_K_TOL = 1e-12


# --------------------------------------------------------------------------- runs view


@SETTINGS
@given(run_tables(min_size=1))
def test_cohort_flags_are_the_rows_each_measure_reads(rows):
    runs = runs_from_records(rows)
    report = score_runs(runs, SMALL_WINDOW)
    view = runs_view(runs, policy=SMALL_WINDOW)
    assert len(view) == len(rows)
    for agent in report.agents:
        mine = view[view["agent_id"] == agent.agent_id]
        completed = mine[mine["in_headline"]]
        assert len(completed) == agent.headline.completed_runs
        assert int(completed["success"].fillna(False).sum()) == agent.headline.successful_runs
        # The window rows alone, scored again, give the same radar: they are the rows it reads.
        window = [r for r in rows if r["run_id"] in set(mine.loc[mine["in_radar_window"], "run_id"])]
        assert len(window) == agent.radar.window_runs
        if window:
            alone = score_runs(runs_from_records(window), SMALL_WINDOW).agent(agent.agent_id).radar
            assert alone.raw_axes == agent.radar.raw_axes and alone.window_runs == agent.radar.window_runs
        # pass^k: per task, the flagged outcomes are n and c of the repeatability table.
        outcomes = mine[mine["in_pass_k"]]
        counts = outcomes.groupby(outcomes["task_id"].astype(str), observed=True)["success"].agg(["size", "sum"])
        tasks = agent.repeatability.tasks
        assert dict(zip(tasks["task_id"], zip(tasks["n"], tasks["c"]))) == \
            {t: (int(n), int(c)) for t, (n, c) in counts.iterrows()}


def test_runs_view_filters():
    runs, _ = sample()
    crashy = runs_view(runs, agents=["crashy-runner"])
    assert len(crashy) == 352 and crashy["in_radar_window"].sum() == 100
    failed = runs_view(runs, agents=["crashy-runner"], statuses=["failed", "timeout"])
    assert len(failed) == 88 and not failed["in_headline"].any()
    unknown = runs_view(runs, agents=["crashy-runner"], outcomes=["unknown"])
    assert len(unknown) == 73 and unknown["success"].isna().all()
    both = runs_view(runs, agents=["crashy-runner"], cohorts=["headline", "radar_window"])
    assert both["in_headline"].all() and both["in_radar_window"].all() and len(both) < 100
    task = runs_view(runs, tasks=["task-22"], agents=["crashy-runner"])
    assert list(task["status"].astype(str)) == ["cancelled"]  # its only run: in no cohort
    assert not task[["in_headline", "in_radar_window", "in_pass_k"]].any(axis=None)
    with pytest.raises(ValueError, match="unknown status 'done'"):
        runs_view(runs, statuses=["done"])
    with pytest.raises(ValueError, match="unknown cohort"):
        runs_view(runs, cohorts=["window"])


def test_runs_csv_neutralizes_formula_cells():
    rows = [run("=1+1", agent="@evil", task="+cmd"), run("-2", agent="@evil", task="-x")]  # ids are stripped
    text = runs_csv(runs_view(runs_from_records(rows)))
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert set(frame["run_id"]) == {"'=1+1", "'-2"} and set(frame["agent_id"]) == {"'@evil"}
    assert set(frame["task_id"]) == {"'+cmd", "'-x"}
    assert {"in_headline", "in_radar_window", "in_pass_k"} <= set(frame.columns)


# --------------------------------------------------------------------------- task x agent matrix


@SETTINGS
@given(run_tables(min_size=1))
def test_matrix_counts_are_the_measures_counts(rows):
    runs = runs_from_records(rows)
    report = score_runs(runs)
    matrix = task_matrix(runs)
    assert int(matrix["runs"].sum()) == len(rows)
    assert not matrix.duplicated(["task_id", "agent_id"]).any()
    for agent in report.agents:
        mine = matrix[matrix["agent_id"] == agent.agent_id]
        tasks = agent.repeatability.tasks
        with_outcomes = mine[mine["outcomes"] > 0]
        assert dict(zip(with_outcomes["task_id"], zip(with_outcomes["outcomes"], with_outcomes["successes"]))) == \
            dict(zip(tasks["task_id"], zip(tasks["n"], tasks["c"])))
        assert int(mine["completed"].sum()) == agent.headline.completed_runs
        assert int(mine["completed_successes"].sum()) == agent.headline.successful_runs
        rates = mine["success_rate"].dropna()
        assert ((rates >= 0) & (rates <= 1)).all()


# --------------------------------------------------------------------------- score over time


def test_the_last_day_equals_the_full_report_on_the_sample():
    runs, report = sample()
    over = score_over_time(runs)
    assert over.has_dates and len(over.days) == 42  # 2026-06-01 to 2026-07-12
    assert sum(over.undated_runs.values()) == 6
    last = over.frame[over.frame["day"] == over.days[-1]].set_index("agent_id")
    for agent in report.agents:
        row = last.loc[agent.agent_id]
        assert row["score"] == agent.headline.score
        assert row["weighted_score"] == pytest.approx(agent.headline.weighted_score, abs=1e-9)
        assert row["completed_runs"] == agent.headline.completed_runs
        assert all(same(row[a], v) for a, v in agent.radar.axes.items())
        assert same(row["profile_score"], agent.radar.profile().score)
        assert row["window_runs"] == agent.radar.window_runs
        assert row["qualifying_tasks"] == agent.repeatability.qualifying_tasks
        for k in (1, 3, 5):
            expected = None if agent.repeatability.pass_k is None else agent.repeatability.pass_k[k]
            assert same(row[f"pass^{k}"], expected, PASS_K_TOL)


def as_of(rows, day):
    """The runs finished by the end of ``day`` (1-based day of July), undated runs included (SPEC 1: oldest)."""
    return [r for r in rows if r["finished_at"] is None or int(r["finished_at"][8:10]) <= day]


def test_the_last_day_keeps_a_tiny_spread_as_the_report_does():
    """Found by hypothesis (2026-12-06): latencies of 5e-165 ms and 0 have a variance (about 1e-330) below the
    smallest double. The report scales them (spread_shift); the score over time rounded the variance to a double
    before its root: consistency 1 (70.00) where the report says 0 (55.00)."""
    rows = [{"run_id": f"r{i}", "agent_id": "c", "task_id": "t1", "status": "completed", "success": True,
             "latency_ms": 5.023333447509835e-165 if i == 0 else 0.0, "cost_usd": None, "steps": None,
             "finished_at": f"2026-07-0{1 + i % 2}T00:00:00Z"} for i in range(6)]
    report = score_runs(runs_from_records(rows), SMALL_WINDOW).agent("c").headline
    assert report.consistency == 0.0 and report.score == 55.0
    last = score_over_time(runs_from_records(rows), SMALL_WINDOW).frame.iloc[-1]
    assert last["score"] == report.score and last["weighted_score"] == pytest.approx(report.weighted_score, abs=1e-9)


@SETTINGS
@given(run_tables(min_size=1))
def test_every_day_equals_rescoring_the_runs_finished_by_then(rows):
    runs = runs_from_records(rows)
    over = score_over_time(runs, SMALL_WINDOW)
    dated = sorted({int(r["finished_at"][8:10]) for r in rows if r["finished_at"]})
    if not dated:
        assert not over.has_dates and over.frame.empty
        return
    assert [d.day for d in over.days] == list(range(dated[0], dated[-1] + 1))
    for day in over.days:
        prefix = as_of(rows, day.day)
        report = score_runs(runs_from_records(prefix), SMALL_WINDOW) if prefix else None
        today = over.frame[over.frame["day"] == day].set_index("agent_id")
        for agent_id, row in today.iterrows():
            agent = None
            if report is not None and any(a.agent_id == agent_id for a in report.agents):
                agent = report.agent(agent_id)
            if agent is None or not agent.headline.ranked:
                assert missing(row["score"]) and row["completed_runs"] == 0
            else:
                assert row["weighted_score"] == pytest.approx(agent.headline.weighted_score, abs=1e-9)
                assert row["score"] == agent.headline.score or abs(
                    row["weighted_score"] * 100 % 1 - 0.5) < 1e-7  # a rounding midpoint
                assert bool(row["zero_success_floor"]) == agent.headline.zero_success_floor
                assert bool(row["consistency_neutral"]) == agent.headline.consistency_neutral
            if agent is None:
                assert row["window_runs"] == 0 and row["qualifying_tasks"] == 0
                continue
            assert row["window_runs"] == agent.radar.window_runs
            assert all(same(row[a], v) for a, v in agent.radar.axes.items())
            assert same(row["profile_score"], agent.radar.profile().score)
            assert row["qualifying_tasks"] == agent.repeatability.qualifying_tasks
            pass_k = agent.repeatability.pass_k
            assert all(same(row[f"pass^{k}"], None if pass_k is None else pass_k[k], PASS_K_TOL) for k in (1, 3, 5))


def test_floor_and_gate_switches_are_marked():
    rows = [run("f1", success=False, day=1), run("f2", success=False, day=1),  # day 1: completed, none successful
            run("s1", day=2),  # day 2: a success lifts the floor
            run("x1", day=2, status="failed", success=None, latency=None),  # not completed: no effect
            run("l1", day=4), run("l2", day=4)]  # day 4: the fifth latency (2 + 1 + 2): consistency measured
    over = score_over_time(runs_from_records(rows))
    a = over.agent("a").set_index(over.agent("a")["day"].dt.day)
    assert list(a.index) == [1, 2, 3, 4]
    assert a.loc[1, "zero_success_floor"] and a.loc[1, "floor_switched"] and a.loc[1, "score"] == 0.0
    assert not a.loc[2, "zero_success_floor"] and a.loc[2, "floor_switched"]
    assert not a.loc[3, "floor_switched"] and not a.loc[3, "gate_switched"]  # a day with no run: unchanged
    assert a.loc[3, "score"] == a.loc[2, "score"]
    assert a.loc[4, "gate_switched"] and not a.loc[4, "consistency_neutral"] and a.loc[4, "latency_runs"] == 5
    text = [str(f) for f in over.facts()]
    assert "2026-07-01: a is on the zero-success floor (2 completed runs, none successful)." in text
    assert "2026-07-02: a leaves the zero-success floor (a first successful completed run)." in text
    assert any(t.startswith("2026-07-04: a reaches the consistency gate (5 recorded latencies; the gate needs 5)")
               for t in text)
    assert list(over.switches()["day"].dt.day) == [1, 2, 4]


def test_undated_runs_count_from_the_first_day():
    rows = [run("u", day=None), run("d", agent="b", day=3), run("e", day=5, success=False)]
    over = score_over_time(runs_from_records(rows))
    a = over.agent("a")
    assert list(a["completed_runs"]) == [1, 1, 2] and a["score"].notna().all()
    assert over.undated_runs == {"a": 1}
    assert "1 run has no finished_at" in str(over.facts()[0])
    assert "they count" not in str(over.facts()[0])  # one run is not "they" (a reviewer's wording note)


def test_runs_spanning_more_days_than_scored_are_refused_before_any_work_with_the_first_and_last_named():
    loaded = load_runs(io.BytesIO(HOSTILE_SPAN_CSV.encode()), name="span.csv")
    assert score_runs(loaded.runs).agents  # every other measure reads these runs as usual
    with pytest.raises(TooManyDays) as refused:
        score_over_time(loaded.runs)
    assert str(refused.value) == (
        "the runs span 3,652,059 UTC days, from run 'ra00' finished 0001-01-01T00:00:00+00:00 to run 'ra01' "
        "finished 9999-12-31T23:59:59.999999+00:00; the scores over time are drawn for at most 3,660 days (about "
        "ten years; explorer-defined)")


def test_the_most_days_scored_is_max_days_and_one_more_is_refused():
    start = pd.Timestamp("2020-01-01T12:00:00Z")
    for days, ok in ((MAX_DAYS, True), (MAX_DAYS + 1, False)):
        last = (start + pd.Timedelta(days=days - 1)).isoformat()
        rows = [run("first", finished_at=start.isoformat()), run("last", agent="b", finished_at=last),
                run("undated")]  # a run without finished_at is not a day
        if ok:
            over = score_over_time(runs_from_records(rows))
            assert len(over.days) == MAX_DAYS and over.frame["day"].nunique() == MAX_DAYS
        else:
            with pytest.raises(TooManyDays, match=f"span {MAX_DAYS + 1:,} UTC days, from run 'first'"):
                score_over_time(runs_from_records(rows))


def test_no_finished_at_column_means_no_series():
    rows = [{k: v for k, v in run("r").items() if k != "finished_at"}]
    over = score_over_time(runs_from_records(rows))
    assert not over.has_dates and over.frame.empty
    dated = score_over_time(runs_from_records([run("r")]))
    assert list(over.frame.columns) == list(dated.frame.columns)  # the same columns for a page, empty
    assert "No finished_at dates" in str(over.facts()[0])
    json.dumps(over.to_json(), allow_nan=False)


def test_over_time_json_has_no_nan():
    runs, _ = sample()
    doc = score_over_time(runs, agents=["newcomer", "null-pointer"]).to_json()
    json.dumps(doc, allow_nan=False)
    assert {r["agent_id"] for r in doc["rows"]} == {"newcomer", "null-pointer"}


# --------------------------------------------------------------------------- compare


def test_compare_two_agents_on_the_sample():
    runs, report = sample()
    c = compare(runs, "swift-lite", "crashy-runner", replicates=200)
    assert c.score_delta == round(79.65 - 74.67, 2)
    pa, pb = (points_lost(report.agent(x).headline) for x in ("swift-lite", "crashy-runner"))
    for row in c.components.to_dict("records"):
        assert row["difference"] == pytest.approx(pa.component(row["name"]).earned - pb.component(row["name"]).earned)
    assert c.components["difference"].sum() == pytest.approx(pa.weighted_score - pb.weighted_score)
    assert c.interval.low <= c.score_delta <= c.interval.high
    assert (c.tasks["difference"] == c.tasks["success_rate_a"] - c.tasks["success_rate_b"]).all()
    assert set(c.tasks["task_id"]).isdisjoint(c.tasks_only_a + c.tasks_only_b)
    json.dumps(c.to_json(), allow_nan=False)
    # A difference of two rates is in percentage points, signed, as the tasks table says it (it said "35.82%")
    said = next(str(f) for f in c.facts() if "tasks both attempted" in str(f))
    mean = c.tasks["difference"].mean()
    assert f"differs by {100 * mean:+.2f} pp on average (swift-lite minus crashy-runner)" in said, said


def test_compare_is_deterministic_for_a_seed():
    runs, _ = sample()
    first = compare(runs, "two-speed", "old-reliable", replicates=300, seed=11)
    again = compare(runs, "two-speed", "old-reliable", replicates=300, seed=11)
    other = compare(runs, "two-speed", "old-reliable", replicates=300, seed=12)
    assert (first.interval, first.share_a_ahead) == (again.interval, again.share_a_ahead)
    assert first.interval != other.interval


def test_compare_without_the_bootstrap_keeps_every_other_part_and_has_no_interval():
    runs, _ = sample()
    full = compare(runs, "swift-lite", "crashy-runner", replicates=200, seed=3)
    bare = compare(runs, "swift-lite", "crashy-runner", replicates=200, seed=3, bootstrap=False)
    assert (bare.interval, bare.share_a_ahead, bare.independent_interval) == (None, None, None)
    pd.testing.assert_frame_equal(bare.components, full.components)
    pd.testing.assert_frame_equal(bare.tasks, full.tasks)
    same = ("score_a", "score_b", "score_delta", "solved_only_by_a", "solved_only_by_b", "tasks_only_a", "tasks_only_b")
    assert [getattr(bare, f) for f in same] == [getattr(full, f) for f in same]


def _comparison_parts(c):
    return (c.interval, c.share_a_ahead, c.independent_interval, c.undefined_replicates, c.score_delta,
            c.components.to_dict("list"), c.tasks.to_dict("list"), c.solved_only_by_a, c.tasks_only_b)


def test_the_app_s_comparison_runs_in_a_worker_with_the_same_numbers():
    # The app bootstraps the difference in a worker under the deployment's limits (explorer.untrusted.compare),
    # sending only the two agents' runs: the same comparison as in process over every run.
    from explorer import untrusted
    from scoring.contract.limits import Limits

    runs, report = sample()
    here = compare(runs, "two-speed", "old-reliable", report.policy, replicates=300, seed=5)
    there = untrusted.compare(runs, "two-speed", "old-reliable", report.policy, 300, 5, Limits())
    assert _comparison_parts(there) == _comparison_parts(here) and here.interval is not None


def test_a_comparison_past_the_cpu_limit_is_stopped_with_what_to_do():
    # Two agents of 200,000 runs each at 5,000 replicates: about 50 s of CPU in process (two of 500,000 took 120 s);
    # the worker is stopped at the deployment's 1 s of CPU.
    from explorer import untrusted
    from scoring.contract.limits import Limits

    n = 400_000
    runs = runs_from_records([{"run_id": f"r{i}", "agent_id": f"a{i % 2}", "task_id": f"t{i % 1000}",
                               "status": "completed", "success": bool(i % 3), "latency_ms": 1000.0 + i % 997,
                               "cost_usd": 0.01} for i in range(n)])
    with pytest.raises(untrusted.BootstrapStopped) as stopped:
        untrusted.compare(runs, "a0", "a1", score_runs(runs).policy, 5000, 1, Limits(max_cpu_seconds=1))
    assert str(stopped.value) == ("The bootstrap of 5,000 replicates of a0 against a1 (400,000 runs) took more than "
                                  "the limit of 1 s of CPU time (EXPLORER_MAX_CPU_SECONDS) and was stopped: fewer "
                                  "replicates take proportionally less.")


def test_compare_by_hand():
    rows = [run("a1", "a", task="t1"), run("a2", "a", task="t1", success=False), run("a3", "a", task="t2"),
            run("a4", "a", task="t3", success=False),
            run("b1", "b", task="t1", success=False), run("b2", "b", task="t2", success=False),
            run("b3", "b", task="t3"), run("b4", "b", task="t4")]
    c = compare(runs_from_records(rows), "a", "b", replicates=50)
    assert list(c.tasks["task_id"]) == ["t1", "t2", "t3"]
    assert list(c.tasks["difference"]) == [0.5, 1.0, -1.0]
    assert (c.solved_only_by_a, c.solved_only_by_b) == (("t1", "t2"), ("t3",))
    assert (c.tasks_only_a, c.tasks_only_b) == ((), ("t4",))
    assert c.mean_task_difference == pytest.approx(0.5 / 3)


def test_compare_of_two_agents_sharing_no_task_says_pairing_removes_nothing():
    """A newcomer's review of two real tau2 runs on different tasks: 'Pairing by task removes what the two share'
    beside a wide interval, with nothing shared."""
    rows = [run(f"a{i}", "a", task=f"t{i}") for i in range(4)] + [run(f"b{i}", "b", task=f"u{i}", success=i % 2 == 0)
                                                                  for i in range(4)]
    c = compare(runs_from_records(rows), "a", "b", replicates=50)
    words = [str(f) for f in c.facts()]
    assert c.tasks.empty and any("share no task with a known outcome, so pairing by task removes nothing" in w
                                 for w in words), words
    assert any(w.startswith("Paired bootstrap 95% interval of the difference") for w in words), words  # not 95.00%
    shared = compare(runs_from_records(rows + [run("b9", "b", task="t0")]), "a", "b", replicates=50)
    assert not any("share no task" in str(f) for f in shared.facts())


def test_compare_with_an_unranked_agent_has_no_interval():
    rows = [run("a1", "a"), run("b1", "b", status="failed")]
    c = compare(runs_from_records(rows), "a", "b", replicates=20)
    assert c.interval is None and c.score_delta is None and c.components["difference"].isna().all()
    with pytest.raises(KeyError):
        compare(runs_from_records(rows), "a", "nobody")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_tables(min_size=2), st.integers(0, 2**31))
def test_compare_interval_contains_the_difference(rows, seed):
    runs = runs_from_records(rows)
    agents = sorted({r["agent_id"] for r in rows})
    if len(agents) < 2:
        return
    c = compare(runs, agents[0], agents[1], replicates=40, seed=seed)
    if c.interval is not None:
        assert c.interval.low <= c.score_delta <= c.interval.high
        assert np.isfinite([c.interval.low, c.interval.high]).all()


def test_compare_pairs_by_task_so_identical_agents_differ_by_exactly_zero():
    """Two agents with the same runs: every paired replicate draws the same tasks for both, so the
    difference is 0 in each and the interval is [0, 0]; resampled independently it is not."""
    runs, _ = sample()
    twin = runs[runs["agent_id"] == "swift-lite"].assign(agent_id="twin", run_id=lambda f: "twin-" + f["run_id"])
    both = runs_from_records(pd.concat([runs[runs["agent_id"] == "swift-lite"], twin]).to_dict("records"))
    c = compare(both, "swift-lite", "twin", replicates=300)
    assert c.score_delta == 0.0
    assert (c.interval.low, c.interval.high) == (0.0, 0.0)
    assert c.share_a_ahead == 0.0 and c.undefined_replicates == 0
    assert c.independent_interval.low < 0 < c.independent_interval.high


def test_each_paired_replicate_is_the_headline_of_the_tasks_it_drew():
    """Replay the draws: a replicate's scores equal re-scoring both agents on the drawn tasks (each drawn task's
    completed runs repeated once per draw), and a replicate with no completed run of one agent is unranked."""
    from scoring.analysis.uncertainty import CompletedRuns, paired_headline_replicates
    from scoring.measures.headline import headline_scores

    rows = [run("a1", "a", task="t1", latency=800.0, cost=0.004), run("a2", "a", task="t1", success=False,
                                                                     latency=2600.0, cost=0.02),
            run("a3", "a", task="t2", latency=1200.0, cost=0.01), run("a4", "a", task="t3", status="failed"),
            run("b1", "b", task="t2", success=False, latency=3000.0, cost=0.05),
            run("b2", "b", task="t3", latency=900.0, cost=0.002), run("b3", "b", task="t3", latency=1900.0, cost=0.0)]
    runs = runs_from_records(rows)
    tasks = ["t1", "t2", "t3"]  # the tasks either agent completed a run on
    completed = runs[runs["status"] == "completed"]

    def of(agent):
        mine = completed[completed["agent_id"] == agent]
        return CompletedRuns(np.array([tasks.index(t) for t in mine["task_id"].astype(str)]),
                             mine["success"].to_numpy(dtype=bool), mine["latency_ms"].to_numpy(dtype=float),
                             mine["cost_usd"].to_numpy(dtype=float))

    got_a, got_b = paired_headline_replicates(of("a"), of("b"), 3, replicates=40, rng=np.random.default_rng(5))
    draws = np.random.default_rng(5).integers(0, 3, size=(40, 3))
    for i, drawn in enumerate(draws):
        resampled = pd.concat([completed[completed["task_id"].astype(str) == tasks[t]].assign(
            run_id=lambda f, j=j: f["run_id"].astype(str) + f"-{j}") for j, t in enumerate(drawn)])
        for agent, got in (("a", got_a[i]), ("b", got_b[i])):
            mine = resampled[resampled["agent_id"] == agent]
            if mine.empty:
                assert np.isnan(got)
            else:
                expected = headline_scores(runs_from_records(mine.to_dict("records")))[agent].score
                assert got == pytest.approx(expected, abs=1e-9), (i, agent, drawn)
    assert np.isnan(got_b).any() and not np.isnan(got_a).all()  # some draws miss every task of b


def test_compare_leaves_out_replicates_where_one_agent_has_no_completed_run():
    rows = [run("a1", "a", task="t1"), run("a2", "a", task="t2", success=False),
            run("b1", "b", task="t3", latency=2000.0)]
    c = compare(runs_from_records(rows), "a", "b", replicates=200, seed=3)
    assert 0 < c.undefined_replicates < 200
    assert any("left out" in str(f) for f in c.facts())
    assert c.to_json()["bootstrap"]["undefined_replicates"] == c.undefined_replicates
