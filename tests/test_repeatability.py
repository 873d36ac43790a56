"""SPEC 5: repeatability pass^k, hand-worked.

    pass^k(n, c) = C(c, k) / C(n, k) if c >= k else 0
"""

from fractions import Fraction
from math import comb

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scoring import pass_hat_k, repeatability, runs_from_records, score_runs, task_outcomes
from scoring.measures.repeatability import mean_pass_hat_k
from tests.helpers import run

TOL = 1e-12




def rep(records, agent="a"):
    return repeatability(runs_from_records(records))[agent]


def outcomes(task, successes, failures, **kw):
    return ([run(f"{task}-s{i}", task=task, success=True, **kw) for i in range(successes)]
            + [run(f"{task}-f{i}", task=task, success=False, **kw) for i in range(failures)])


# --------------------------------------------------------------------------- pass_hat_k by hand


@pytest.mark.parametrize(
    "n, c, k, expected",
    [
        (5, 4, 3, 0.4),  # C(4,3)/C(5,3) = 4/10
        (3, 3, 3, 1.0),  # C(3,3)/C(3,3)
        (3, 3, 5, 0.0),  # n < k: c < k -> 0
        (5, 2, 3, 0.0),  # c < k -> 0
        (5, 5, 5, 1.0),
        (6, 3, 3, 0.05),  # 1/C(6,3) = 1/20
        (10, 7, 1, 0.7),  # pass^1 = c/n
        (4, 0, 1, 0.0),
        (10, 8, 5, float(Fraction(56, 252))),  # C(8,5)=56, C(10,5)=252 -> 0.2222...
        (60, 59, 5, float(Fraction(55, 60))),  # c = n-1: C(n-1,k)/C(n,k) = (n-k)/n = 55/60
        (8, 6, 3, float(Fraction(20, 56))),  # C(6,3)=20, C(8,3)=56 -> 0.357142...
    ],
)
def test_pass_hat_k_hand_values(n, c, k, expected):
    assert pass_hat_k(n, c, k) == pytest.approx(expected, abs=TOL)


def test_pass_hat_k_is_exact_for_large_counts():
    # C(999, 5)/C(1000, 5) = 995/1000 exactly
    assert pass_hat_k(1000, 999, 5) == 0.995
    # C(500, 3)/C(1000, 3) = (500*499*498)/(1000*999*998)
    assert pass_hat_k(1000, 500, 3) == float(Fraction(500 * 499 * 498, 1000 * 999 * 998))


# --------------------------------------------------------------------------- aggregation


def test_tasks_with_fewer_than_three_outcomes_are_excluded():
    records = outcomes("two", 2, 0) + outcomes("three", 0, 3)
    r = rep(records)
    # only 'three' qualifies (n=3, c=0): pass^k = 0 for every k.
    # Including 'two' (n=2, c=2, pass^1 = 1) would make pass^1 = 0.5.
    assert r.qualifying_tasks == 1
    assert r.excluded_tasks == 1
    assert r.pass_k == {1: 0.0, 3: 0.0, 5: 0.0}


def test_aggregate_is_the_unweighted_mean_over_tasks():
    records = outcomes("easy", 50, 0) + outcomes("hard", 1, 2)
    r = rep(records)
    # easy: n=50, c=50 -> 1, 1, 1.   hard: n=3, c=1 -> pass^1 = 1/3, pass^3 = 0, pass^5 = 0
    # mean: pass^1 = (1 + 1/3)/2 = 2/3; pass^3 = 1/2; pass^5 = 1/2   (pooled pass^1 would be 51/53)
    assert r.qualifying_tasks == 2
    assert r.pass_k[1] == pytest.approx(2 / 3, abs=TOL)
    assert r.pass_k[3] == pytest.approx(0.5, abs=TOL)
    assert r.pass_k[5] == pytest.approx(0.5, abs=TOL)


def test_mixed_tasks_aggregate():
    records = outcomes("p", 4, 1) + outcomes("q", 3, 3) + outcomes("s", 8, 0)
    r = rep(records)
    # p: n=5,c=4 -> pass^1 = 0.8, pass^3 = 4/10 = 0.4, pass^5 = 0 (c<k)
    # q: n=6,c=3 -> pass^1 = 0.5, pass^3 = 1/20 = 0.05, pass^5 = 0
    # s: n=8,c=8 -> 1, 1, 1
    # means: (0.8+0.5+1)/3 = 2.3/3 = 0.766667; (0.4+0.05+1)/3 = 1.45/3 = 0.483333; 1/3
    assert r.pass_k[1] == pytest.approx(2.3 / 3, abs=TOL)
    assert r.pass_k[3] == pytest.approx(1.45 / 3, abs=TOL)
    assert r.pass_k[5] == pytest.approx(1 / 3, abs=TOL)


def test_only_terminal_runs_with_known_outcomes_count():
    records = outcomes("t", 2, 0)  # 2 completed successes
    records += [run("f1", task="t", status="failed", success=False),
                run("to1", task="t", status="timeout", success=False)]  # terminal, known
    records += [run("q1", task="t", status="queued", success=False),
                run("g1", task="t", status="running", success=False),
                run("x1", task="t", status="cancelled", success=True)]  # non-terminal
    records += [run("u1", task="t", success=None), run("u2", task="t", status="failed", success=None)]  # unknown
    # n = 4 (2 completed + failed + timeout), c = 2 -> pass^1 = 0.5, pass^3 = 0 (c<k), pass^5 = 0
    table = task_outcomes(runs_from_records(records))
    row = table[(table["agent_id"] == "a") & (table["task_id"] == "t")].iloc[0]
    assert (int(row["n"]), int(row["c"])) == (4, 2)
    r = rep(records)
    assert r.qualifying_tasks == 1
    assert r.pass_k == {1: pytest.approx(0.5, abs=TOL), 3: 0.0, 5: 0.0}


def test_repeatability_has_no_window():
    # 150 terminal runs of one task; the oldest 50 fail. The radar window would see only the 100 newest;
    # pass^k reads all of them: pass^1 = 100/150 = 2/3.
    records = [dict(run(f"r{i:03d}", success=i >= 50), finished_at=f"2026-07-01T00:{i // 60:02d}:{i % 60:02d}Z")
               for i in range(150)]
    r = rep(records)
    assert r.pass_k[1] == pytest.approx(2 / 3, abs=TOL)
    # pass^3 = C(100,3)/C(150,3) = (100*99*98)/(150*149*148)
    assert r.pass_k[3] == pytest.approx(100 * 99 * 98 / (150 * 149 * 148), abs=TOL)


def test_pass_k_is_null_and_qualifying_tasks_zero_when_no_task_qualifies():
    records = outcomes("x", 1, 1) + outcomes("y", 1, 0) + [run("u1", task="z", success=None)]
    r = rep(records)
    assert r.pass_k is None
    assert r.qualifying_tasks == 0


def test_pass_k_is_null_for_an_agent_with_only_non_terminal_runs():
    records = [run("q1", status="queued"), run("q2", status="running"), run("q3", status="cancelled")]
    r = rep(records)
    assert r.pass_k is None
    assert r.qualifying_tasks == 0


def test_agents_are_measured_separately():
    records = outcomes("t", 3, 0) + [dict(r, agent_id="b", run_id="b-" + r["run_id"]) for r in outcomes("t", 0, 3)]
    runs = runs_from_records(records)
    out = repeatability(runs)
    assert out["a"].pass_k == {1: 1.0, 3: 1.0, 5: 0.0}  # n=3 < 5 -> pass^5 = 0
    assert out["b"].pass_k == {1: 0.0, 3: 0.0, 5: 0.0}


def test_curve_starts_with_pass_1():
    r = rep(outcomes("p", 4, 1))
    # n=5, c=4: pass^1 = 0.8, pass^2 = C(4,2)/C(5,2) = 6/10, pass^3 = 0.4, pass^4 = 1/5, pass^5 = 0
    curve = r.curve()
    assert curve == {1: pytest.approx(0.8), 2: pytest.approx(0.6), 3: pytest.approx(0.4),
                     4: pytest.approx(0.2), 5: 0.0}


# --------------------------------------------------------------------------- any levels, n < k, tau2 reading


def test_any_levels_use_the_same_rule_and_count_the_tasks_with_fewer_than_k_outcomes():
    # four tasks of 4 trials (tau2-bench's usual design): pass^5 is 0 for each under the published rule
    records = outcomes("a", 4, 0) + outcomes("b", 3, 1) + outcomes("c", 2, 2) + outcomes("d", 0, 4)
    r = repeatability(runs_from_records(records), levels=[1, 2, 3, 4, 5])["a"]
    # per task pass^2: a 1, b C(3,2)/C(4,2) = 1/2, c 1/6, d 0 -> mean 5/12
    assert r.pass_k[2] == pytest.approx((1 + 0.5 + 1 / 6 + 0) / 4, abs=TOL)
    assert r.pass_k[4] == pytest.approx(0.25, abs=TOL) and r.pass_k[5] == 0.0
    assert r.tasks_below_k == {1: 0, 2: 0, 3: 0, 4: 0, 5: 4}
    assert r.to_json()["tasks_below_k"] == {"1": 0, "2": 0, "3": 0, "4": 0, "5": 4}


def test_the_tau2_reading_stops_at_the_smallest_trial_count_and_keeps_every_task():
    # 'short' has 2 outcomes: the published rule excludes it (n < 3); tau2 keeps it and stops at k = 2.
    records = outcomes("short", 2, 0) + outcomes("long", 3, 1)
    r = rep(records)
    assert r.qualifying_tasks == 1 and r.pass_k[1] == 0.75
    tau2 = r.tau2_reading()
    assert tau2.max_k == 2 and tau2.tasks == 2
    assert tau2.pass_k == {1: pytest.approx((1 + 0.75) / 2), 2: pytest.approx((1 + 0.5) / 2)}


@pytest.mark.parametrize("levels", [[], [0], [1, 1], list(range(1, 12)), [101], [True]])
def test_levels_are_bounded(levels):
    with pytest.raises(ValueError, match="levels"):
        repeatability(runs_from_records(outcomes("t", 3, 0)), levels=levels)


# ------------------------------------------------------------------ the mean over tasks, exact (SPEC 5)

def test_the_mean_over_tasks_is_the_exact_rational_rounded_once():
    """A reviewer's file (2026-12-06): task A 3 of 3, task B 5 of 7. pass^1 = (1 + 5/7) / 2 = 6/7 and
    pass^3 = (1 + C(5,3)/C(7,3)) / 2 = (1 + 10/35) / 2 = 9/14; the doubles summed gave each one unit off."""
    rows = [{"run_id": f"a{i}", "agent_id": "x", "task_id": "A", "status": "completed", "success": "true",
             "latency_ms": "100", "cost_usd": "0.01"} for i in range(3)]
    rows += [{"run_id": f"b{i}", "agent_id": "x", "task_id": "B", "status": "completed" if i % 2 else "failed",
              "success": "true" if i < 5 else "false", "latency_ms": "100", "cost_usd": "0.01"} for i in range(7)]
    report = score_runs(runs_from_records(rows))
    pass_k = report.agent("x").repeatability.pass_k
    assert pass_k == {1: float(Fraction(6, 7)), 3: float(Fraction(9, 14)), 5: float(Fraction(1, 42))}
    assert pass_k[1] == 0.8571428571428571 and pass_k[3] == 0.6428571428571429  # not ...572, ...428
    assert pass_k[5] == float(Fraction(1, 2) * Fraction(comb(5, 5), comb(7, 5)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(3, 40), st.integers(0, 40)), min_size=1, max_size=60), st.integers(1, 12))
@example([(n, n - 1) for n in range(60, 101)], 30)  # C(100, 30) alone is past 64 bits: Python's integers
@example([(3, 3), (7, 5)], 1)  # the hand-worked file above
def test_mean_pass_hat_k_is_the_correctly_rounded_exact_mean(tasks, k):
    tasks = [(n, min(c, n)) for n, c in tasks]
    n, c = zip(*tasks)

    def term(nn: int, cc: int) -> Fraction:  # SPEC 5: C(c, k) / C(n, k) if c >= k, else 0
        return Fraction(comb(cc, k), comb(nn, k)) if cc >= k else Fraction(0)

    exact = sum((term(nn, cc) for nn, cc in tasks), Fraction(0)) / len(tasks)
    assert mean_pass_hat_k(n, c, k)[0] == float(exact)
    # Per group, the same as each group alone.
    group = [i % 3 for i in range(len(tasks))]
    out = mean_pass_hat_k(n, c, k, group, 4)
    for g in range(4):
        mine = [t for t, gg in zip(tasks, group) if gg == g]
        want = (sum((term(nn, cc) for nn, cc in mine), Fraction(0)) / len(mine)) if mine else 0
        assert out[g] == float(want)
