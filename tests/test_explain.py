"""Issue 15, scoring.analysis.explain: points lost, overtake, influence and accounting, by hand and against re-scoring.

Reminders (SPEC 2 / SPEC 3):
    latency anchors 500->1.0, 2000->0.8, 5000->0.5, 10000->0.0
    cost anchors    0.001->1.0, 0.01->0.8, 0.05->0.5, 0.1->0.2, 0.2->0.0
    score = round(100 * (0.40 * success_rate + 0.30 * (0.5 * latency_score + 0.5 * consistency)
                         + 0.30 * cost_score), 2); 0 on the zero-success floor
"""

import csv
import json
import math
from functools import cache, partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import headline_scores, leaderboard_order, load_runs, runs_from_records, score_runs
from scoring.analysis.explain import (
    COMPONENTS,
    accounting,
    explain,
    influence,
    note,
    overtake,
    points_lost,
    remove_runs,
    smallest_weighted_for,
)
from scoring.cli.commands import main
from scoring.contract.rounding import TIE_WINDOW, published_round
from scoring.measures._exact import CohortColumns, ExactColumns, rounded_stats
from tests import helpers
from tests.helpers import run_tables, scoring_cli

SAMPLE = "sample_data/runs.csv"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(SETTINGS, max_examples=30)  # each example re-scores several tables
# Influence against re-scoring: the counts, success rates and averages agree to the bit; the spread does not
# always (see scoring.measures._exact), so the weighted scores agree to about 1e-13, well inside this.
TOL = 1e-9


# Runs here are timed, priced and finished on 1 July unless a test says otherwise.
run = partial(helpers.run, latency=1000.0, cost=0.01, day=1)


@cache
def sample():
    runs = load_runs(SAMPLE).runs
    return runs, score_runs(runs)


def same_published_score(score, expected, weighted):
    """Equal, or the weighted score sits within TOL of a rounding midpoint (where 1e-13 may round either way)."""
    return score == expected or abs(weighted * 100 - math.floor(weighted * 100) - 0.5) < TOL * 100


# --------------------------------------------------------------------------- points lost


def test_components_by_hand():
    # 4 runs, 3 successes, latency 1000 (score 0.9333), neutral consistency (4 < 5 latencies), cost 0.01 (0.8)
    h = headline_scores(runs_from_records([run(f"r{i}", success=i < 3) for i in range(4)]))["a"]
    p = points_lost(h)
    got = {c.name: (c.earned, c.max, c.lost) for c in p.components}
    assert got["success"] == pytest.approx((30.0, 40.0, 10.0))
    assert got["latency"] == pytest.approx((15 * (1 - 0.2 * 500 / 1500), 15.0, 15 * 0.2 * 500 / 1500))
    assert got["consistency"] == pytest.approx((7.5, 15.0, 7.5))
    assert got["cost"] == pytest.approx((24.0, 30.0, 6.0))
    assert (p.score, p.floor) == (75.5, 0.0)


def check_identities(p):
    earned = math.fsum(c.earned for c in p.components)
    assert earned == pytest.approx(p.weighted_score, abs=TOL)  # sum of earned = the unrounded weighted score
    assert p.weighted_score + p.floor + p.rounding == p.score  # exactly, in doubles
    assert math.fsum(c.max for c in p.components) == pytest.approx(100.0, abs=1e-12)
    for c in p.components:
        assert c.earned + c.lost == pytest.approx(c.max, abs=1e-12)
    assert p.score + math.fsum(c.lost for c in p.components) - p.floor - p.rounding == pytest.approx(100.0, abs=TOL)
    assert abs(p.rounding) <= 0.005 + 1e-12
    assert (p.floor == -p.weighted_score) == p.zero_success_floor or p.weighted_score == 0


def test_components_sum_as_documented_on_the_sample():
    _, report = sample()
    for agent in report.agents:
        check_identities(points_lost(agent.headline))


def test_the_zero_success_floor_is_its_own_negative_line():
    h = headline_scores(runs_from_records([run(f"r{i}", success=False) for i in range(3)]))["a"]
    p = points_lost(h)
    assert p.zero_success_floor and p.score == 0.0 and p.rounding == 0.0
    # latency 0.9333 and consistency 0.5 give execution 0.71667; cost 0.8: 21.5 + 24 = 45.5 points taken away
    assert p.weighted_score == pytest.approx(45.5) and p.floor == -p.weighted_score
    check_identities(p)


def test_an_unranked_agent_has_no_components():
    h = headline_scores(runs_from_records([run("f", status="failed")]))["a"]
    assert points_lost(h) is None


@FEWER
@given(run_tables(min_size=1))
def test_components_sum_as_documented_on_random_tables(rows):
    for h in headline_scores(runs_from_records(rows)).values():
        p = points_lost(h)
        assert (p is None) == (not h.ranked)
        if p is not None:
            check_identities(p)


# --------------------------------------------------------------------------- overtake


def test_smallest_weighted_for_is_the_rounding_threshold():
    # The published rounding (a computed half read as the half, then to even): targets of odd and even last digit.
    for target in (0.01, 0.02, 57.84, 65.5, 76.31, 76.32, 99.99, 100.0):
        w = smallest_weighted_for(target, 2)
        assert published_round(w, 2) >= target > published_round(math.nextafter(w, -math.inf), 2)
        half = target - 0.005  # within the tie window below an even target, above it below an odd one
        even = round(target * 100) % 2 == 0
        assert (w < half) == even and abs(w - half) == pytest.approx(TIE_WINDOW, rel=1e-3)


def tie_table(other):
    """Agent "b" scores 65.5 (1 of 2 successful); ``other`` has 1 of 4 successful (55.5), the same latency and cost."""
    return [run("b1", "b"), run("b2", "b", success=False)] + \
        [run(f"{other}{i}", other, success=i == 0) for i in range(4)]


def test_a_smaller_id_needs_only_an_equal_score():
    report = score_runs(runs_from_records(tie_table("a")))
    assert [(x.agent_id, x.headline.score) for x in report.agents] == [("b", 65.5), ("a", 55.5)]
    o = overtake(report, "a")
    assert (o.above, o.equal_suffices, o.target_score, o.points_needed) == ("b", True, 65.5, 10.0)
    success = o.change("success")
    # one flip: 2 of 4 = 0.5, exactly b's 65.5, and "a" sorts first; two added successes: 3 of 6 = 0.5
    assert (success.runs_flipped, success.runs_added) == (1, 2)
    flipped = score_runs(runs_from_records(tie_table("a")[:3] + [run("a1", "a")] + tie_table("a")[4:]))
    assert [(x.agent_id, x.headline.score) for x in flipped.agents] == [("a", 65.5), ("b", 65.5)]


def test_a_larger_id_needs_a_strictly_higher_rounded_score():
    report = score_runs(runs_from_records(tie_table("c")))
    o = overtake(report, "c")
    assert (o.above, o.equal_suffices, o.target_score) == ("b", False, 65.51)
    success = o.change("success")
    # one flip gives 65.5, a tie "b" keeps (b < c); two flips give 3 of 4 = 75.5. Added: 4 of 7 = 68.36
    assert (success.runs_flipped, success.runs_added) == (2, 3)
    one = tie_table("c")
    one[3] = run("c1", "c")
    assert [x.agent_id for x in score_runs(runs_from_records(one)).agents] == ["b", "c"]


def test_the_leader_and_the_unranked_have_no_overtake():
    rows = tie_table("a") + [run("u", "u", status="failed")]
    report = score_runs(runs_from_records(rows))
    assert overtake(report, "b") is None and overtake(report, "u") is None


def test_components_that_cannot_reach_say_why():
    # "b": six successes at 2000 ms (0.8) and $0.01 (0.8), consistency 1: 40 + 27 + 24 = 91.
    # "a": 1 of 4 successful at 500 ms and $0.001 (both 1.0), 4 latencies (neutral): 10 + 22.5 + 30 = 62.5.
    rows = [run(f"b{i}", "b", latency=2000, cost=0.01) for i in range(6)] + \
        [run(f"a{i}", "a", success=i == 0, latency=500, cost=0.001) for i in range(4)]
    o = overtake(score_runs(runs_from_records(rows)), "a")
    latency, consistency, cost = o.change("latency"), o.change("consistency"), o.change("cost")
    assert not latency.reachable and "above the best the anchors give (1.0000)" in str(latency.fact)
    assert not consistency.reachable and "neutral 0.5 until 5 latencies are recorded (4 now)" in str(consistency.fact)
    assert not cost.reachable and "above the best" in str(cost.fact)
    # Success: "a" sorts first, so 91.00 is enough, reached from 90.995 by rounding: 0.25 + (90.995 - 62.5) / 40
    # = 0.962375. Three flips (4 of 4) give 92.5; added runs need (1 + k) / (4 + k) >= 0.962375: k = 76.
    assert o.target_score == 91.0 and o.weighted_needed == pytest.approx(90.995)
    success = o.change("success")
    assert success.factor_needed == pytest.approx(0.962375) and success.runs_flipped == 3
    assert success.runs_added == 76


def test_a_gap_no_component_can_close():
    rows = [run(f"b{i}", "b", latency=500, cost=0.001) for i in range(6)] + \
        [run(f"a{i}", "a", success=i == 0, latency=500, cost=0.001) for i in range(4)]
    o = overtake(score_runs(runs_from_records(rows)), "a")  # b scores 100; a's consistency is stuck at 0.5
    assert not any(c.reachable for c in o.changes)
    assert "above 100%" in str(o.change("success").fact)


def test_on_the_floor_only_success_can_overtake():
    rows = [run(f"b{i}", "b", success=i == 0) for i in range(10)] + [run(f"a{i}", "a", success=False) for i in range(6)]
    o = overtake(score_runs(runs_from_records(rows)), "a")
    assert o.change("success").runs_flipped == 1  # b scores 49.5; one success in six: 6.67 + 45.5 = 52.17
    for name in ("latency", "consistency", "cost"):
        assert not o.change(name).reachable and "zero-success floor" in str(o.change(name).fact)


def test_under_a_zero_success_weight_one_success_still_lifts_the_floor_and_overtakes():
    # A sandbox policy may weigh success 0 (the validator accepts it): the success rate then moves nothing, but an
    # agent on the zero-success floor scores 0 until one completed run succeeds. It was told "not reachable: its
    # weight is 0" while one flipped run puts it first (found by an audit that re-scored the flipped runs).
    from scoring.contract.policy import policy_from_dict

    policy = policy_from_dict({"success_weight": 0.0, "execution_weight": 0.5, "cost_weight": 0.5})

    def rows(b_successes: int) -> list[dict]:
        return ([run(f"a{i}", "a", success=i == 0, latency=9000.0, cost=0.15) for i in range(4)]
                + [run(f"b{i}", "b", success=i < b_successes, latency=600.0, cost=0.002) for i in range(4)])

    report = score_runs(runs_from_records(rows(0)), policy)
    assert [a.agent_id for a in report.agents] == ["a", "b"] and report.agent("b").headline.zero_success_floor
    change = overtake(report, "b").change("success")
    assert change.reachable and change.runs_flipped == 1 and change.runs_added == 1
    assert str(change.fact).startswith("The success rate has no weight, but a successful completed run lifts")
    lifted = score_runs(runs_from_records(rows(1)), policy)  # the change, applied and re-scored
    assert lifted.agents[0].agent_id == "b"
    # Off the floor, a zero weight still leaves the success rate nothing to do.
    assert not overtake(lifted, "a").change("success").reachable


def changed_rows(rows, agent, change, h, scale=1.0):
    """The data with one component's change applied (``scale`` moves the target value, to test minimality)."""
    rows = [dict(r) for r in rows]
    mine = [r for r in rows if r["agent_id"] == agent and r["status"].strip().lower() == "completed"]
    if change.component == "success":
        return rows, mine
    if change.component == "latency":
        ratio = change.value_needed * scale / change.value_now
        for r in mine:
            if r["latency_ms"] is not None:
                r["latency_ms"] = r["latency_ms"] * ratio
    elif change.component == "consistency":  # deviations from the mean shrunk: same mean, smaller spread
        f = change.pstdev_needed_ms * scale / h.latency_pstdev_ms
        for r in mine:
            if r["latency_ms"] is not None:
                r["latency_ms"] = h.avg_latency_ms + (r["latency_ms"] - h.avg_latency_ms) * f
    else:
        ratio = change.value_needed * scale / change.value_now
        for r in mine:
            if r["cost_usd"] is not None:
                r["cost_usd"] = r["cost_usd"] * ratio
    return rows, mine


def flipped(rows, agent, k):
    rows = [dict(r) for r in rows]
    for r in rows:
        if k and r["agent_id"] == agent and r["status"].strip().lower() == "completed" and r["success"] is not True:
            r["success"], k = True, k - 1
    return rows


def added(rows, agent, k):
    return rows + [{"run_id": f"added-{i}", "agent_id": agent, "task_id": "t-added", "status": "completed",
                    "success": True, "latency_ms": None, "cost_usd": None, "finished_at": None} for i in range(k)]


def ahead(rows, agent, above):
    order = leaderboard_order(headline_scores(runs_from_records(rows)))
    return order.index(agent) < order.index(above)


def check_overtake(rows, report, agent, *, minimal=True):
    o = overtake(report, agent)
    if o is None:
        return
    h = report.agent(agent).headline
    for change in o.changes:
        if not change.reachable:
            continue
        if change.component == "success":
            if change.runs_flipped is not None:
                assert ahead(flipped(rows, agent, change.runs_flipped), agent, o.above)
                assert not ahead(flipped(rows, agent, change.runs_flipped - 1), agent, o.above)
            if change.runs_added is not None:
                assert ahead(added(rows, agent, change.runs_added), agent, o.above)
                assert not ahead(added(rows, agent, change.runs_added - 1), agent, o.above)
            continue
        new, _ = changed_rows(rows, agent, change, h)
        rescored = headline_scores(runs_from_records(new))[agent]
        # Re-averaging changed data can move the average by a rounding: the threshold is then met to 1e-9.
        assert ahead(new, agent, o.above) or rescored.weighted_score >= o.weighted_needed - TOL
        if minimal:  # a little less change does not reach
            worse = 1.001 if change.component != "cost" or change.value_needed < change.value_now else 0.999
            less, _ = changed_rows(rows, agent, change, h, scale=worse)
            assert not ahead(less, agent, o.above)


def sample_rows():
    """The sample as records (to change and re-score)."""
    with open(SAMPLE, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for r in rows:
        r["success"] = {"true": True, "false": False, "": None}[r["success"]]
        for column in ("latency_ms", "cost_usd", "steps"):
            r[column] = float(r[column]) if r[column] else None
        r["finished_at"] = r["finished_at"] or None
    return rows


@pytest.mark.parametrize("agent", ["swift-lite", "crashy-runner", "newcomer", "null-pointer", "two-speed"])
def test_the_overtake_change_applied_to_the_data_reaches_the_gap(agent):
    rows = sample_rows()
    check_overtake(rows, score_runs(runs_from_records(rows)), agent)


@settings(FEWER, max_examples=20)
@given(run_tables(min_size=2))
def test_the_overtake_change_reaches_the_gap_on_random_tables(rows):
    report = score_runs(runs_from_records(rows))
    for agent in report.agents:
        check_overtake(rows, report, agent.agent_id, minimal=False)


# --------------------------------------------------------------------------- influence


def gate_rows():
    # SPEC 3 hand-worked (tests/test_headline.py): latencies 1000..5000, cost 0.001, all successful -> 88.43
    return [run(f"r{i}", latency=lat, cost=0.001) for i, lat in enumerate([1000, 2000, 3000, 4000, 5000])] + \
        [run("f", status="failed", success=None, latency=None, cost=None)]


def test_removing_a_run_crosses_the_five_latency_gate():
    runs = runs_from_records(gate_rows())
    inf = influence(runs, "a").runs.set_index("run_id")
    w = 100 * (0.4 + 0.3 * (0.5 * 0.7 + 0.5 * (1 - math.sqrt(2e6) / 3000)) + 0.3)
    # Without the 5000 ms run: four latencies, mean 2500 -> 0.75, consistency neutral 0.5 -> 88.75
    assert inf.loc["r4", "points_if_removed"] == pytest.approx(88.75 - w, abs=1e-12)
    assert inf.loc["r4", "score_if_removed"] == 88.75 and inf.loc["r4", "crosses_gate"]
    # Without the 1000 ms run: mean 3500 -> 0.65; execution 0.575 -> 87.25
    assert inf.loc["r0", "points_if_removed"] == pytest.approx(87.25 - w, abs=1e-12)
    assert inf.loc["r0", "crosses_gate"] and not inf.loc["r0", "hits_floor"]
    # The failed run is not in the headline's cohort: exactly nothing changes.
    assert inf.loc["f", "points_if_removed"] == 0.0 and inf.loc["f", "score_change"] == 0.0
    assert not inf.loc["f", "in_headline"] and not inf.loc["f", "crosses_gate"]
    assert str(note(inf.loc["f"].to_dict())) == "not completed: the headline reads completed runs only"
    assert "neutral 0.5" in str(note(inf.loc["r4"].to_dict()))


def test_removing_the_last_success_hits_the_zero_success_floor():
    rows = [run("s"), run("x1", success=False), run("x2", success=None)]
    inf = influence(runs_from_records(rows), "a").runs.set_index("run_id")
    # With: 1/3 success, latency 0.9333 (1000 ms), neutral consistency, cost 0.8: 13.33 + 21.5 + 24 = 58.83
    # Without "s": 0 successes -> floor; the weighted formula gives 21.5 + 24 = 45.5
    assert inf.loc["s", "points_if_removed"] == pytest.approx(45.5 - (40 / 3 + 45.5), abs=1e-12)
    assert inf.loc["s", "hits_floor"] and inf.loc["s", "score_if_removed"] == 0.0
    assert inf.loc["s", "score_change"] == -58.83
    # Removing a failure raises the rate to 1/2: +6.67 points
    assert inf.loc["x1", "points_if_removed"] == pytest.approx(20 - 40 / 3, abs=1e-12)
    assert not inf.loc["x1", "hits_floor"]


def test_removing_the_last_completed_run_leaves_the_agent_unranked():
    rows = [run("only"), run("f", status="timeout", success=False)]
    inf = influence(runs_from_records(rows), "a")
    r = inf.runs.set_index("run_id")
    assert math.isnan(r.loc["only", "points_if_removed"]) and r.loc["only", "leaves_unranked"]
    assert inf.to_json()["runs"][0]["points_if_removed"] is None  # null in JSON, never NaN
    assert r.loc["f", "points_if_removed"] == 0.0
    task = inf.tasks.set_index("task_id").loc["t"]
    assert task["runs"] == 2 and task["completed"] == 1 and task["leaves_unranked"]


def test_an_unranked_agent_has_null_influence():
    inf = influence(runs_from_records([run("f", status="failed")]), "a")
    assert inf.runs["points_if_removed"].isna().all() and inf.score is None


def naive_points(values, drop):
    """The textbook reverse update in doubles, for contrast (removing one value ``drop``)."""
    n, mean = len(values), math.fsum(values) / len(values)
    m2 = math.fsum((x - mean) ** 2 for x in values)
    new_mean = mean - (drop - mean) / (n - 1)
    new_m2 = max(m2 - (drop - mean) ** 2 * n / (n - 1), 0.0)
    return new_mean, math.sqrt(new_m2 / (n - 1))


SPREAD = [0.0, 0.001, 0.002, 0.003, 0.004]


@pytest.mark.parametrize(("latencies", "textbook_misses"), [
    ([1000.0] * 5 + [20000.0], False),  # five equal latencies left: consistency exactly 1
    ([0.0] * 5 + [5.0], False),  # a mean of exactly 0 left: consistency 1 by SPEC 3
    (SPREAD + [1e6], True),  # the textbook update is 10.6 points off
    ([1 + x for x in SPREAD] + [1e6], True),  # 0.05 points off
    ([1234.5, 1234.6, 1234.7, 1234.8, 1234.9, 98765.4], True),  # 3e-9 points off
])
def test_removing_an_outlier_is_exact_where_the_textbook_update_cancels(latencies, textbook_misses):
    rows = [run(f"r{i}", latency=x) for i, x in enumerate(latencies)]
    outlier = f"r{len(latencies) - 1}"
    runs = runs_from_records(rows)
    got = influence(runs, "a").runs.set_index("run_id").loc[outlier, "points_if_removed"]
    before = headline_scores(runs)["a"]
    after = headline_scores(runs_from_records(rows[:-1]))["a"]
    expected = after.weighted_score - before.weighted_score
    assert got == pytest.approx(expected, abs=1e-12)
    # The textbook reverse update in doubles: its new spread is a difference of nearly equal numbers.
    mean, pstdev = naive_points(latencies, latencies[-1])
    naive = 1.0 if mean == 0 else min(max(1 - pstdev / mean, 0.0), 1.0)
    assert (abs(15 * (naive - after.consistency)) > TOL) == textbook_misses


def test_exact_statistics_agree_with_the_headline():
    rows = [run(f"r{i}", latency=x, cost=c) for i, (x, c) in
            enumerate([(0.1, 0.3), (0.2, 0.1), (0.3, 0.2), (1e6, 1e-9), (123.456, 0.0), (5e-324, 0.5)])]
    runs = runs_from_records(rows)
    h = headline_scores(runs)["a"]
    cols = ExactColumns.of(runs["success"].to_numpy(dtype=bool), runs["latency_ms"].to_numpy(dtype=float),
                           runs["cost_usd"].to_numpy(dtype=float))
    stats = rounded_stats([cols.total()])
    assert float(stats.latency_mean[0]) == h.avg_latency_ms  # correctly rounded sum / count: to the bit
    assert float(stats.cost_mean[0]) == h.avg_cost_usd
    assert float(stats.latency_pstdev[0]) == pytest.approx(h.latency_pstdev_ms, rel=1e-15)
    left = CohortColumns.of([cols.total()]).left_from(cols.total())
    assert left == CohortColumns([0], [0], [0], [0], [0], [0], [0], cols.latency_shift, cols.cost_shift)


def expected_removal(rows, agent, removed_ids):
    """Re-score the table without the runs: the agent's headline after (None when it has no run left)."""
    rest = [r for r in rows if r["run_id"] not in removed_ids]
    if not any(r["agent_id"] == agent for r in rest):
        return None
    return score_runs(runs_from_records(rest)).agent(agent).headline


def check_removal(before, after, points, score, hits_floor, crosses_gate, leaves_unranked):
    if after is None or not after.ranked or not before.ranked:
        assert (points is None or math.isnan(points)) and leaves_unranked
        return
    assert not leaves_unranked
    assert points == pytest.approx(after.weighted_score - before.weighted_score, abs=TOL)
    assert same_published_score(score, after.score, after.weighted_score)
    assert hits_floor == (after.zero_success_floor and not before.zero_success_floor)
    assert crosses_gate == (before.latency_runs >= 5 > after.latency_runs)


@SETTINGS
@given(run_tables(min_size=1), st.data())
def test_points_if_removed_equals_rescoring_without_those_runs(rows, data):
    runs = runs_from_records(rows)
    heads = {a.agent_id: a.headline for a in score_runs(runs).agents}
    agent = data.draw(st.sampled_from(sorted(heads)))
    mine = [r["run_id"] for r in rows if r["agent_id"] == agent]
    chosen = data.draw(st.lists(st.sampled_from(mine), unique=True))
    r = remove_runs(runs, agent, chosen)
    assert r.runs == len(chosen)
    check_removal(heads[agent], expected_removal(rows, agent, set(chosen)), r.points_if_removed,
                  r.score_if_removed, r.hits_floor, r.crosses_gate, r.leaves_unranked)


@FEWER
@given(run_tables(min_size=1), st.data())
def test_influence_tables_equal_rescoring(rows, data):
    runs = runs_from_records(rows)
    heads = headline_scores(runs)
    agent = data.draw(st.sampled_from(sorted(heads)))
    inf = influence(runs, agent)
    for t in inf.tasks.to_dict("records"):
        ids = {r["run_id"] for r in rows if r["agent_id"] == agent and r["task_id"] == t["task_id"]}
        assert t["runs"] == len(ids)
        check_removal(heads[agent], expected_removal(rows, agent, ids), t["points_if_removed"],
                      t["score_if_removed"], t["hits_floor"], t["crosses_gate"], t["leaves_unranked"])
    picked = data.draw(st.lists(st.sampled_from(list(inf.runs["run_id"])), unique=True, max_size=3))
    for row in inf.runs[inf.runs["run_id"].isin(picked)].to_dict("records"):
        check_removal(heads[agent], expected_removal(rows, agent, {row["run_id"]}), row["points_if_removed"],
                      row["score_if_removed"], row["hits_floor"], row["crosses_gate"], row["leaves_unranked"])
        if not row["in_headline"] and heads[agent].ranked:
            assert row["points_if_removed"] == 0.0  # exactly: a run outside the cohort changes nothing


def test_influence_orders_the_costliest_first():
    _, report = sample()
    runs, _ = sample()
    inf = influence(runs, "crashy-runner", headline=report.agent("crashy-runner").headline)
    points = inf.tasks["points_if_removed"].to_numpy()
    assert (points[:-1] >= points[1:]).all()
    assert (inf.costliest_runs(20)["points_if_removed"] > 0).all()
    top = inf.most_influential_runs(20)["points_if_removed"].abs().to_numpy()
    assert len(top) == 20 and (top[:-1] >= top[1:]).all()
    # every failed, timed-out, running or cancelled run: 0.0 (59 + 29 + 1 + 1)
    outside = inf.runs[~inf.runs["in_headline"]]
    assert len(outside) == 90 and (outside["points_if_removed"] == 0.0).all()


def test_the_influence_words_of_one_run_not_completed_say_it():
    """'1 run is not completed: removing one changes nothing' read oddly; one run is 'it'."""
    from scoring import runs_from_records

    rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed" if i else "failed",
             "success": bool(i % 2), "latency_ms": 1000.0, "cost_usd": 0.01} for i in range(4)]
    words = [str(f) for f in influence(runs_from_records(rows), "a").facts()]
    assert "1 run is not completed: removing it changes nothing (0.0 points), as the headline reads completed runs " \
           "only." in words, words
    rows[1]["status"] = "timeout"
    words = [str(f) for f in influence(runs_from_records(rows), "a").facts()]
    assert any(w.startswith("2 runs are not completed: removing one changes nothing") for w in words), words


# --------------------------------------------------------------------------- accounting


def test_crashy_runner_is_fully_accounted_for():
    runs, report = sample()
    acc = accounting(runs)["crashy-runner"]
    assert acc.statuses == {"queued": 0, "running": 1, "completed": 262, "failed": 59, "timeout": 29, "cancelled": 1}
    assert acc.total_runs == 352 == sum(acc.statuses.values())
    assert acc.headline_runs == report.agent("crashy-runner").headline.completed_runs
    assert acc.headline_runs + sum(acc.headline_ignored.values()) == acc.total_runs
    text = " ".join(str(f) for f in acc.facts())
    for phrase in ("59 failed", "29 timed out", "1 running", "1 cancelled", "ignores 88 failed or timed-out",
                   "reads 100 of 350 terminal runs"):
        assert phrase in text


@FEWER
@given(run_tables(min_size=1))
def test_accounting_counts_sum_and_match_the_measures(rows):
    runs = runs_from_records(rows)
    report = score_runs(runs)
    for agent_id, acc in accounting(runs).items():
        agent = report.agent(agent_id)
        mine = [r for r in rows if r["agent_id"] == agent_id]
        assert sum(acc.statuses.values()) == acc.total_runs == len(mine)
        assert acc.unknown_outcomes == sum(r["success"] is None for r in mine)
        assert acc.headline_runs == agent.headline.completed_runs
        assert acc.radar_window_runs == agent.radar.window_runs
        tasks = agent.repeatability.tasks
        assert acc.pass_k_outcomes == int(tasks["n"].sum())
        assert acc.pass_k_qualifying_tasks == agent.repeatability.qualifying_tasks
        assert acc.pass_k_qualifying_outcomes == int(tasks.loc[tasks["qualifies"], "n"].sum())
        assert acc.pass_k_outcomes + acc.pass_k_unknown_outcomes == acc.terminal_runs
        json.dumps(acc.to_json(), allow_nan=False)


# --------------------------------------------------------------------------- one agent, and the CLI


def test_explain_bundles_everything_as_json():
    runs, report = sample()
    doc = explain(runs, "swift-lite", report).to_json()
    assert [c["name"] for c in doc["components"]] == list(COMPONENTS)
    assert doc["rank"] == 2 and doc["overtake"]["above"] == "steady-pro"
    assert len(doc["runs"]) == 20 and {"task_id", "points_if_removed"} <= set(doc["tasks"][0])
    json.dumps(doc, allow_nan=False)
    with pytest.raises(KeyError):
        explain(runs, "nobody", report)


def test_cli_explain_json(capsys):
    assert main(["explain", SAMPLE, "crashy-runner", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert math.fsum(c["earned"] for c in doc["components"]) == pytest.approx(doc["weighted_score"], abs=TOL)
    assert all(c["earned"] + c["lost"] == pytest.approx(c["max"]) for c in doc["components"])
    assert doc["overtake"]["above"] == "blackbox-api" and doc["overtake"]["target_score"] == 76.31
    assert {c["component"] for c in doc["overtake"]["changes"]} == set(COMPONENTS)
    assert len(doc["runs"]) == 20 and all({"run_id", "points_if_removed"} <= set(r) for r in doc["runs"])
    assert doc["accounting"]["statuses"]["failed"] == 59 and doc["accounting"]["total_runs"] == 352


def test_cli_explain_table_accounts_for_every_run(capsys):
    assert main(["explain", SAMPLE, "crashy-runner", "--format", "table", "--top", "5"]) == 0
    out = capsys.readouterr().out
    assert "crashy-runner: headline 74.67, rank 4 of 10" in out
    assert "352 runs: 262 completed, 59 failed, 29 timed out, 0 queued, 1 running, 1 cancelled" in out
    assert "To overtake blackbox-api (76.30) the score must reach 76.31" in out
    assert "nan" not in out.lower() and "None" not in out


def test_cli_explain_refuses_an_unknown_agent_and_a_bad_file(tmp_path):
    unknown = scoring_cli("explain", SAMPLE, "nobody")
    assert unknown.returncode == 2 and "no agent 'nobody'" in unknown.stderr and "Traceback" not in unknown.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("run_id,agent_id\nr1,a\n")
    refused = scoring_cli("explain", bad, "a", "--format", "table")
    assert refused.returncode == 2 and "refused" in refused.stderr and "Traceback" not in refused.stderr


def test_explain_reads_latencies_whose_spread_is_past_the_largest_double():
    """A reviewer's file (2026-12-06): latencies of 0, 1e160 and 2e160 ms. The score was fine; explain, the
    influence of tasks and the removal of runs raised OverflowError (their exact spread divided two integers whose
    quotient, about 1e320, is past the largest double)."""
    rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": f"t{i % 2}", "status": "completed", "success": "true",
             "latency_ms": f"{i % 3}e160", "cost_usd": "0.01"} for i in range(6)]
    runs = runs_from_records(rows)
    report = score_runs(runs)
    e = explain(runs, "a", report)
    assert e.points is not None and e.points.score == report.agent("a").headline.score
    assert e.influence is not None and str(e)  # every part, the influence of each task too, computed and said
    assert math.isfinite(report.agent("a").headline.latency_pstdev_ms)


def test_the_costliest_task_sentence_gives_its_points_as_the_table_beside_it():
    """A newcomer read "would gain 0.73 points" beside the table's "+0.728" for the same task."""
    found = explain(load_runs(SAMPLE).runs, "deep-thinker").influence
    top = found.costliest_tasks(1).iloc[0]
    said = " ".join(f.render() for f in found.facts())
    assert f"Task {top['task_id']} costs the most" in said
    assert f"would gain {top['points_if_removed']:.3f} points" in said


def test_cli_explain_says_the_harness_s_own_reading_and_why_it_differs(tmp_path, capsys):
    """`report` put a harness's own reading beside the canonical score; `explain`, asked why an imported agent
    scores what it scores, did not (a reviewer, 2026-12-06). Task 1: three successes and an errored run, which the
    canonical headline leaves out and tau2-bench counts as reward 0."""
    sims = [("1", "user_stop", 1.0, 0.01)] * 3 + [("1", "too_many_errors", 0.0, 0.01), ("2", "user_stop", 0.0, 0.01)]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(helpers.tau2_results(sims, num_trials=4)))
    assert main(["report", str(path)]) == 0
    agent = json.loads(capsys.readouterr().out)["agents"][0]
    assert main(["explain", str(path), agent["agent_id"]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["harness"] == agent["harness"] and doc["harness"]["success_rate"] == 0.6  # 3 of 5, the error a 0
    reading = next(n for n in doc["notes"] if n.startswith("tau2-bench's own reading"))
    assert "success (reward 1) 60.00%" in reading
    assert any(n.startswith("1 of 5 terminal runs left out of the headline") and "beside it, tau2-bench reads every "
               "simulation but an infrastructure error" in n for n in doc["notes"])  # why the two differ
    assert main(["explain", str(path), agent["agent_id"], "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert "\nNotes\n" in table and reading in table
    assert main(["explain", SAMPLE, "steady-pro"]) == 0  # a runs file: no harness, no reading
    doc = json.loads(capsys.readouterr().out)
    assert "harness" not in doc and not any("own reading" in n for n in doc["notes"])
