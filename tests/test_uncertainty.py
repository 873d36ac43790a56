"""Issue 5 views: bootstrap intervals, tie groups, Pareto frontiers and sensitivity."""

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import headline_scores, runs_from_records, score_runs
from scoring.analysis.uncertainty import (
    Interval,
    bootstrap_intervals,
    covered_ranks,
    frontier_points,
    pareto_frontier,
    percentile_interval,
    sensitivity,
    tie_groups,
)
from tests import helpers
from tests.helpers import run_tables, scoring_cli

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(i: int, agent: str = "a", **columns: Any) -> dict[str, Any]:
    """Run ``agent-i`` of task t1, timed, priced and finished i seconds after midnight on 1 July unless said."""
    return helpers.run(f"{agent}-{i}", agent, **{"task": "t1", "latency": 1000.0, "cost": 0.01, **columns},
                       finished_at=f"2026-07-01T00:{i // 60:02d}:{i % 60:02d}Z")


def scored(rows, **kwargs):
    runs = runs_from_records(rows)
    report = score_runs(runs)
    return runs, report, bootstrap_intervals(runs, report, **kwargs)


@SETTINGS
@given(run_tables(min_size=1))
def test_an_interval_always_contains_its_point_estimate(rows):
    _, report, intervals = scored(rows, replicates=60)
    for agent in report.agents:
        iv = intervals.agents[agent.agent_id]
        if agent.headline.ranked:
            assert iv.headline.low <= agent.headline.score <= iv.headline.high
        else:
            assert iv.headline is None and iv.tie_group is None
        for k, interval in (iv.pass_k or {}).items():
            assert interval.low <= agent.repeatability.pass_k[k] <= interval.high


def test_a_fully_deterministic_agent_gets_zero_width_intervals():
    rows = [run(i, task=f"t{i % 3}") for i in range(12)]
    _, report, intervals = scored(rows)
    iv = intervals.agents["a"]
    assert iv.headline.low == iv.headline.high == report.agents[0].headline.score
    # Each task has n = c = 4: pass^1 = pass^3 = 1, pass^5 = 0 (fewer than 5 successes), every one exact.
    assert {k: (v.low, v.high) for k, v in iv.pass_k.items()} == {1: (1.0, 1.0), 3: (1.0, 1.0), 5: (0.0, 0.0)}


def test_the_same_seed_gives_the_same_interval_and_another_seed_another():
    rows = [run(i, success=i % 3 != 0, latency=500.0 + 97 * i, task=f"t{i % 4}") for i in range(40)]
    _, _, first = scored(rows, seed=7)
    _, _, again = scored(rows, seed=7)
    _, _, other = scored(rows, seed=8)
    assert first.agents["a"] == again.agents["a"]
    assert first.agents["a"].headline != other.agents["a"].headline


def test_an_agents_interval_does_not_depend_on_the_other_agents():
    base = [run(i, success=i % 3 != 0, latency=500.0 + 97 * i) for i in range(30)]
    _, _, alone = scored(base, seed=3)
    _, _, crowd = scored(base + [run(i, agent="b", success=i % 2 == 0) for i in range(30)], seed=3)
    assert alone.agents["a"].headline == crowd.agents["a"].headline


def test_percentile_interval_is_widened_to_reach_the_point():
    iv = percentile_interval([5.0, 6.0, 7.0], point=0.0)
    assert (iv.low, iv.widened) == (0.0, True)


def test_tie_groups_walk_down_the_leaderboard():
    ordered = [("a", Interval(80, 90, 85)), ("b", Interval(70, 80, 75)),  # 80 reaches a's low 80: joins
               ("c", Interval(60, 79.9, 70)),  # 79.9 < 80: new group led by c (low 60)
               ("d", Interval(50, 60, 55)), ("u", None)]
    assert tie_groups(ordered) == {"a": 1, "b": 1, "c": 2, "d": 2}


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefgh"), st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=8))
def test_the_frontier_is_exactly_the_non_dominated_set(points):
    frontier = pareto_frontier(points)
    for name, (x, y) in points.items():
        dominated = any(ox <= x and oy >= y and (ox < x or oy > y) for o, (ox, oy) in points.items() if o != name)
        assert (name in frontier) == (not dominated)


def test_frontier_points_use_ranked_agents_with_the_average_recorded():
    rows = [run(i, agent="a") for i in range(3)] + [run(i, agent="b", cost=None) for i in range(3)]
    _, report, _ = scored(rows, replicates=10)
    assert set(frontier_points(report, "cost")) == {"a"}
    assert set(frontier_points(report, "latency")) == {"a", "b"}


def _agent_rows():
    return [run(i, success=i % 4 != 0, latency=700.0 + 131 * (i % 7), cost=0.004 + 0.003 * (i % 5),
                task=f"t{i % 5}") for i in range(23)] + [run(99, status="failed", success=False)]


def test_sensitivity_latency_and_cost_match_brute_force():
    rows = _agent_rows()
    report = score_runs(runs_from_records(rows))
    s = sensitivity(report.agents[0])
    h = report.agents[0].headline
    faster = headline_scores(runs_from_records(
        [dict(r, latency_ms=r["latency_ms"] * 0.9) if r["status"] == "completed" else r for r in rows]))["a"]
    cheaper = headline_scores(runs_from_records(
        [dict(r, cost_usd=r["cost_usd"] * 0.9) if r["status"] == "completed" else r for r in rows]))["a"]
    latency_if, cost_if, _ = s.what_ifs
    assert latency_if.weighted_delta == pytest.approx(faster.weighted_score - h.weighted_score, abs=1e-9)
    assert latency_if.score == faster.score and latency_if.points == round(faster.score - h.score, 2)
    assert cost_if.weighted_delta == pytest.approx(cheaper.weighted_score - h.weighted_score, abs=1e-9)
    assert cost_if.score == cheaper.score


def test_sensitivity_one_more_success_matches_brute_force():
    rows = _agent_rows()
    report = score_runs(runs_from_records(rows))
    h = report.agents[0].headline
    extra = run(500, success=True, latency=h.avg_latency_ms, cost=h.avg_cost_usd)
    brute = headline_scores(runs_from_records(rows + [extra]))["a"]
    more = sensitivity(report.agents[0]).what_ifs[2]
    assert more.weighted_delta == pytest.approx(brute.weighted_score - h.weighted_score, abs=1e-9)
    assert more.score == brute.score


def test_sensitivity_one_more_success_lifts_the_zero_success_floor():
    rows = [run(i, success=False) for i in range(6)]
    report = score_runs(runs_from_records(rows))
    more = sensitivity(report.agents[0]).what_ifs[2]
    brute = headline_scores(runs_from_records(rows + [run(50, success=True)]))["a"]
    assert report.agents[0].headline.score == 0.0 and more.score == brute.score > 0


def test_sensitivity_counts_runs_to_the_gate_and_outcomes_to_pass5():
    rows = [run(0, task="t1"), run(1, task="t1", latency=None), run(2, task="t2"), run(3, task="t2"),
            *[run(10 + i, task="t3") for i in range(6)]]
    report = score_runs(runs_from_records(rows))
    s = sensitivity(report.agents[0])
    # 9 of the 10 completed runs recorded a latency: gate (5) met.
    assert s.runs_to_consistency_gate == 0
    assert s.outcomes_to_pass_k == {"t1": 3, "t2": 3} and s.total_outcomes_to_pass_k == 6
    few = score_runs(runs_from_records(rows[:3]))
    assert sensitivity(few.agents[0]).runs_to_consistency_gate == 5 - 2


def test_cli_intervals_flag_adds_intervals_and_keeps_the_canonical_numbers(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(_agent_rows()))
    plain_run = scoring_cli("report", path)
    plain_run.check_returncode()
    plain = json.loads(plain_run.stdout)
    out_run = scoring_cli("report", path, "--intervals", "--replicates", "100")
    out_run.check_returncode()
    out = out_run.stdout
    doc = json.loads(out)
    assert doc["bootstrap"]["replicates"] == 100
    agent = doc["agents"][0]
    assert agent["intervals"]["headline"]["low"] <= agent["headline"]["score"] <= agent["intervals"]["headline"]["high"]
    assert agent["intervals"]["tie_group"] == 1
    del doc["bootstrap"], agent["intervals"]
    assert doc == plain


# --------------------------------------------------------------------------- the resampling machinery

def test_resampled_sums_equal_the_sums_of_the_drawn_rows():
    """The gathered-record sums are the sums over the very indices the generator draws."""

    from scoring.analysis.uncertainty import _draws, resampled_sums

    values = np.random.default_rng(0).random((3, 37))
    columns = [values[0], values[1] * 1e6, np.floor(values[2] * 5)]
    got = resampled_sums(np.random.default_rng(11), columns, 250)
    draws = _draws(np.random.default_rng(11), 250, 37).astype(np.intp)  # one chunk: the same stream
    want = np.stack([c[draws].sum(axis=1) for c in columns], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert np.array_equal(got[:, 2], want[:, 2])  # whole numbers: exact


def test_headline_replicates_counts_are_exact_in_the_packed_and_the_plain_layout(monkeypatch):
    """The three counts packed into one column decode to the same counts as three columns."""

    import scoring.analysis.uncertainty as u

    rng = np.random.default_rng(3)
    success = rng.random(300) < 0.6
    latency = np.where(rng.random(300) < 0.9, rng.random(300) * 5000, np.nan)
    cost = np.where(rng.random(300) < 0.8, rng.random(300) / 10, np.nan)
    packed = u.headline_replicates(success, latency, cost, replicates=200, rng=np.random.default_rng(5))
    monkeypatch.setattr(u, "_COUNT_BITS", 8)  # 300 runs no longer fit: three separate columns
    plain = u.headline_replicates(success, latency, cost, replicates=200, rng=np.random.default_rng(5))
    np.testing.assert_allclose(packed, plain, atol=0.011)  # the same draws; sums in another order
    assert (np.abs(packed - plain) <= 0.01 + 1e-9).all()


def test_binomial_counts_by_inversion_follow_the_binomial_distribution():
    """Counts drawn by inverting each task's binomial distribution: every count in 0..n, the
    degenerate tasks exact, and the frequencies within sampling error of Binomial(n, c / n)."""
    from math import comb

    from scoring.analysis.uncertainty import _binomial_counts

    n = np.array([3, 5, 10, 4, 7, 1])
    c = np.array([0, 5, 3, 2, 6, 1])
    draws = 40_000
    counts = _binomial_counts(n, c, np.random.default_rng(2).random((draws, len(n))))
    assert counts.min() >= 0 and (counts <= n).all()
    assert (counts[:, 0] == 0).all() and (counts[:, 1] == 5).all() and (counts[:, 5] == 1).all()
    for t in (2, 3, 4):
        p = c[t] / n[t]
        expected = np.array([comb(n[t], j) * p ** j * (1 - p) ** (n[t] - j) for j in range(n[t] + 1)])
        observed = np.bincount(counts[:, t], minlength=n[t] + 1) / draws
        # five standard errors of a frequency, at most 0.0125 at 40,000 draws
        assert np.all(np.abs(observed - expected) <= 5 * np.sqrt(expected * (1 - expected) / draws) + 1e-12), t


def test_progress_is_reported_once_per_agent():
    rows = [run(i, agent=a, success=(i + len(a)) % 3 != 0, latency=400.0 + 37 * i, task=f"t{i % 3}")
            for a in ("a", "bb", "ccc") for i in range(20)]
    calls = []
    _, _, with_progress = scored(rows, seed=4, replicates=300, progress=lambda done, total: calls.append((done, total)))
    _, _, without = scored(rows, seed=4, replicates=300)
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert with_progress.agents == without.agents


def test_the_intervals_do_not_depend_on_how_many_threads_share_the_agents():
    """Each agent draws from its own seeded stream: one thread or five give the same intervals to the bit, and
    progress is reported on the calling thread in leaderboard order."""
    import threading

    rows = [run(i, agent=f"agent-{a}", success=(i * (a + 1)) % 4 != 0, latency=300.0 + 41 * i + a,
                cost=0.002 * (i % 7) + 0.001 * a, task=f"t{i % 4}") for a in range(9) for i in range(24)]
    runs = runs_from_records(rows)
    report = score_runs(runs)
    caller, seen = threading.get_ident(), []

    def progress(done, total):
        seen.append((done, total, threading.get_ident()))

    serial = bootstrap_intervals(runs, report, replicates=200, seed=9, threads=1)
    threaded = bootstrap_intervals(runs, report, replicates=200, seed=9, threads=5, progress=progress)
    assert threaded.agents == serial.agents
    assert list(threaded.agents) == [a.agent_id for a in report.agents]
    assert seen == [(i, 9, caller) for i in range(1, 10)]
    with pytest.raises(ValueError, match="threads"):
        bootstrap_intervals(runs, report, replicates=10, threads=0)


def test_resampled_sums_do_not_depend_on_the_block_size(monkeypatch):
    """The gathered block is a cache-size choice only: every replicate's sums are the same bits at any size."""

    import scoring.analysis.uncertainty as u

    values = np.random.default_rng(1).random((4, 1_600)) * [[1.0], [5_000.0], [2.5e7], [0.1]]
    columns = list(values)
    got = {}
    for bits in (6, 12, 15, 17, 22):
        monkeypatch.setattr(u, "_BLOCK_CELLS", 1 << bits)
        got[bits] = u.resampled_sums(np.random.default_rng(9), columns, 300)
    assert all(np.array_equal(got[15], other) for other in got.values())


def test_the_pass_k_bootstrap_is_drawn_in_chunks_with_the_same_numbers(monkeypatch):
    # One dense (replicates x tasks) array of draws took about 30 bytes a cell in the app's server (3.3 GB for one
    # agent of 20,000 tasks at 5,000 replicates; resilience audit): the replicates now come in chunks of at most
    # _MAX_CELLS draws, in the same order, so the replicates are the same to the bit.
    import tracemalloc

    from scoring.analysis import uncertainty

    n, c = np.array([3, 5, 4, 7] * 50), np.array([1, 5, 0, 3] * 50)
    whole = uncertainty.pass_k_replicates(n, c, (1, 3), replicates=300, rng=np.random.default_rng(5))
    monkeypatch.setattr(uncertainty, "_MAX_CELLS", 1_000)  # 5 replicates a chunk
    chunked = uncertainty.pass_k_replicates(n, c, (1, 3), replicates=300, rng=np.random.default_rng(5))
    assert all(np.array_equal(whole[k], chunked[k]) for k in (1, 3))
    monkeypatch.undo()
    tasks, replicates = 10_000, 1_000  # 1e7 draws, 2.5 x _MAX_CELLS
    tracemalloc.start()
    uncertainty.pass_k_replicates(np.full(tasks, 3), np.full(tasks, 1), (1, 3, 5), replicates=replicates,
                                  rng=np.random.default_rng(1))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= 4 * 8 * uncertainty._MAX_CELLS, f"{peak / 1e6:,.0f} MB"  # a few arrays of one chunk


def test_the_app_s_bootstrap_runs_in_a_worker_with_the_same_intervals():
    # The app bootstraps in a worker under the deployment's limits (explorer.untrusted.bootstrap): the same
    # intervals as in process, to the bit.
    from explorer import untrusted
    from scoring import load_runs
    from scoring.contract.limits import Limits
    from scoring.contract.resources import SAMPLE_RUNS

    runs = load_runs(SAMPLE_RUNS).runs
    report = score_runs(runs)
    here = bootstrap_intervals(runs, report, replicates=300, seed=11)
    there = untrusted.bootstrap(runs, report, 300, 11, Limits())
    assert there.agents == here.agents and len(here.agents) == len(report.agents)


def test_a_bootstrap_past_the_cpu_limit_is_stopped_with_what_to_do():
    # 400,000 runs x 5,000 replicates is about 2 billion draws (several seconds of CPU on any machine here): the
    # worker is stopped at the deployment's 1 s of CPU, and the text says which limit, its setting and the remedy.
    from explorer import untrusted
    from scoring.contract.limits import Limits

    n = 400_000
    rows = [{"run_id": f"r{i}", "agent_id": f"a{i % 4}", "task_id": f"t{i % 1000}", "status": "completed",
             "success": bool(i % 3), "latency_ms": 1000.0 + i % 997, "cost_usd": 0.01 + (i % 13) / 1000}
            for i in range(n)]
    runs = runs_from_records(rows)
    report = score_runs(runs)
    with pytest.raises(untrusted.BootstrapStopped) as stopped:
        untrusted.bootstrap(runs, report, 5000, 1, Limits(max_cpu_seconds=1))
    assert str(stopped.value) == ("The bootstrap of 5,000 replicates over 400,000 runs took more than the limit of "
                                  "1 s of CPU time (EXPLORER_MAX_CPU_SECONDS) and was stopped: fewer replicates "
                                  "take proportionally less.")


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 50), st.floats(0, 50), st.integers(1, 4)), min_size=1,
                max_size=30))
def test_the_ranks_an_interval_covers_are_every_score_inside_it(rows):
    """covered_ranks (by bisection) against the brute force: every position whose score lies in the interval."""
    rows.sort(key=lambda r: -r[0])
    ordered = [(f"a{i}", score, Interval(max(0.0, score - down), min(100.0, score + up), score), group)
               for i, (score, down, up, group) in enumerate(rows)]
    covered = covered_ranks(ordered)
    for agent, _, interval, group in ordered:
        inside = [i + 1 for i, (_, s, _, _) in enumerate(ordered) if interval.low <= s <= interval.high]
        assert (covered[agent].first, covered[agent].last) == (inside[0], inside[-1])
        assert inside == list(range(inside[0], inside[-1] + 1))  # a run of positions: the scores are sorted
        others = sorted({g for _, s, _, g in ordered if interval.low <= s <= interval.high} - {group})
        assert covered[agent].other_groups == tuple(others)
