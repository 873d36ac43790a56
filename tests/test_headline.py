"""SPEC 3: the headline composite, hand-worked.

Reminders used in the comments below (SPEC 2 / SPEC 3):
    latency anchors 500->1.0, 2000->0.8, 5000->0.5, 10000->0.0
    cost anchors    0.001->1.0, 0.01->0.8, 0.05->0.5, 0.1->0.2, 0.2->0.0
    execution = 0.5 * latency_score + 0.5 * consistency
    score     = round(100 * (0.40 * success_rate + 0.30 * execution + 0.30 * cost_score), 2)
"""

import math

import pytest

from scoring import composite, headline_scores, runs_from_records, score_runs
from tests.helpers import run

TOL = 1e-9




def headline(records, agent="a"):
    return headline_scores(runs_from_records(records))[agent]


# --------------------------------------------------------------------------- success rate


def test_success_rate_counts_null_outcome_in_denominator_not_numerator():
    h = headline([
        run("r1", success=True, latency=500, cost=0.001),
        run("r2", success=True, latency=500, cost=0.001),
        run("r3", success=None, latency=500, cost=0.001),
        run("r4", success=False, latency=500, cost=0.001),
    ])
    # 2 successes / 4 completed (the null outcome is in the denominator only)
    assert h.completed_runs == 4
    assert h.successful_runs == 2
    assert h.success_rate == pytest.approx(0.5, abs=TOL)


def test_only_completed_runs_enter_the_headline_cohort():
    h = headline([
        run("c1", success=True, latency=1000, cost=0.01),
        run("c2", success=False, latency=1000, cost=0.01),
        # failed / timeout runs with success=true (and very different latency/cost) must not count
        run("f1", status="failed", success=True, latency=9000, cost=0.2),
        run("f2", status="failed", success=True, latency=9000, cost=0.2),
        run("f3", status="timeout", success=True, latency=9000, cost=0.2),
        run("q1", status="queued", success=True, latency=9000, cost=0.2),
        run("x1", status="cancelled", success=True, latency=9000, cost=0.2),
    ])
    assert h.completed_runs == 2
    assert h.successful_runs == 1
    assert h.success_rate == pytest.approx(0.5, abs=TOL)
    assert h.avg_latency_ms == pytest.approx(1000.0, abs=TOL)
    assert h.avg_cost_usd == pytest.approx(0.01, abs=TOL)
    # latency_score(1000) = 1 - 0.2 * 500/1500 = 0.9333333; consistency neutral 0.5 (2 latencies)
    # execution = 0.5 * 0.9333333 + 0.25 = 0.7166667; cost_score(0.01) = 0.8
    # score = 100 * (0.4*0.5 + 0.3*0.7166667 + 0.3*0.8) = 20 + 21.5 + 24 = 65.5
    assert h.score == 65.5


def test_status_spelling_is_case_and_space_insensitive_for_the_cohort():
    h = headline([
        run("r1", status=" Completed ", success=True, latency=500, cost=0.001),
        run("r2", status="COMPLETED", success=False, latency=500, cost=0.001),
    ])
    assert h.completed_runs == 2
    assert h.successful_runs == 1


# --------------------------------------------------------------------------- consistency gate


def test_four_latencies_give_neutral_consistency():
    h = headline([run(f"r{i}", latency=lat, cost=0.001) for i, lat in enumerate([1000, 2000, 3000, 4000])])
    assert h.consistency == 0.5
    assert h.consistency_neutral is True
    # avg 2500 -> latency_score = 0.8 - 0.3 * 500/3000 = 0.75
    assert h.avg_latency_ms == pytest.approx(2500.0, abs=TOL)
    assert h.latency_score == pytest.approx(0.75, abs=TOL)
    # execution = 0.5*0.75 + 0.5*0.5 = 0.625; score = 100*(0.4 + 0.3*0.625 + 0.3*1) = 88.75
    assert h.execution_score == pytest.approx(0.625, abs=TOL)
    assert h.score == 88.75


def test_five_latencies_give_population_stdev_consistency():
    h = headline([run(f"r{i}", latency=lat, cost=0.001) for i, lat in enumerate([1000, 2000, 3000, 4000, 5000])])
    # mean 3000; deviations -2000,-1000,0,1000,2000; pstdev = sqrt((4+1+0+1+4)e6 / 5) = sqrt(2e6) = 1414.2136
    # consistency = 1 - 1414.2136/3000 = 0.5285955  (the sample stdev would give 1 - 1581.14/3000 = 0.4729)
    expected = 1 - math.sqrt(2e6) / 3000
    assert h.consistency_neutral is False
    assert h.consistency == pytest.approx(expected, abs=TOL)
    assert h.consistency == pytest.approx(0.5285954792, abs=1e-9)
    # latency_score(3000) = 0.8 - 0.3 * 1000/3000 = 0.7; execution = 0.35 + 0.5*0.5285955 = 0.6142977
    assert h.execution_score == pytest.approx(0.5 * 0.7 + 0.5 * expected, abs=TOL)
    # score = 100*(0.4 + 0.3*0.6142977 + 0.3) = 40 + 18.428932 + 30 = 88.428932 -> 88.43
    assert h.score == 88.43


def test_completed_run_without_latency_does_not_count_toward_the_gate():
    # five completed runs, but only four recorded a latency -> still neutral
    h = headline([run(f"r{i}", latency=lat, cost=0.001) for i, lat in enumerate([1000, 2000, 3000, 4000, None])])
    assert h.completed_runs == 5
    assert h.consistency == 0.5
    assert h.consistency_neutral is True
    assert h.avg_latency_ms == pytest.approx(2500.0, abs=TOL)  # mean of the 4 non-null latencies


def test_latencies_of_non_completed_runs_do_not_count_toward_the_gate():
    records = [run(f"c{i}", latency=lat, cost=0.001) for i, lat in enumerate([1000, 2000, 3000, 4000])]
    records += [run("f1", status="failed", latency=1000), run("t1", status="timeout", latency=1000)]
    h = headline(records)
    assert h.consistency_neutral is True
    assert h.consistency == 0.5


def test_consistency_clamps_at_zero_for_very_dispersed_latencies():
    h = headline([run(f"r{i}", latency=lat, cost=0.001) for i, lat in enumerate([0, 0, 0, 0, 10000])])
    # mean 2000; pstdev = sqrt((4*2000^2 + 8000^2)/5) = sqrt(80e6/5) = 4000; 1 - 4000/2000 = -1 -> clamp 0
    assert h.consistency_neutral is False
    assert h.consistency == 0.0
    # latency_score(2000) = 0.8; execution = 0.4
    assert h.execution_score == pytest.approx(0.4, abs=TOL)


def test_consistency_is_one_when_mean_latency_is_zero():
    h = headline([run(f"r{i}", latency=0, cost=0.001) for i in range(5)])
    assert h.consistency_neutral is False
    assert h.consistency == 1.0
    # latency_score(0) = 1.0 (clamp); execution = 1.0; score = 100*(0.4+0.3+0.3) = 100.0
    assert h.execution_score == pytest.approx(1.0, abs=TOL)
    assert h.score == 100.0


# --------------------------------------------------------------------------- missing latency / cost


def test_no_latency_recorded_gives_latency_score_zero_and_a_flag():
    h = headline([run(f"r{i}", latency=None, cost=0.001) for i in range(3)])
    assert h.avg_latency_ms is None
    assert h.latency_score == 0.0
    assert any("latency" in f.lower() for f in h.flags)
    # no latency -> 0 latencies < 5 -> neutral 0.5; execution = 0 + 0.25
    # score = 100*(0.4 + 0.3*0.25 + 0.3*1.0) = 40 + 7.5 + 30 = 77.5
    assert h.consistency == 0.5
    assert h.score == 77.5


def test_no_cost_recorded_gives_cost_score_zero_and_a_flag():
    h = headline([run(f"r{i}", latency=500, cost=None) for i in range(3)])
    assert h.avg_cost_usd is None
    assert h.cost_score == 0.0
    assert any("cost" in f.lower() for f in h.flags)
    # execution = 0.5*1.0 + 0.5*0.5 = 0.75; score = 100*(0.4 + 0.225 + 0) = 62.5
    assert h.score == 62.5


def test_recorded_latency_and_cost_raise_no_missing_data_flag():
    h = headline([run(f"r{i}", latency=500, cost=0.001) for i in range(5)])
    assert not any("latency" in f.lower() or "cost" in f.lower() for f in h.flags)


# --------------------------------------------------------------------------- zero-success floor


def test_zero_success_floor_sets_score_to_exactly_zero():
    h = headline([run("r1", success=False, latency=500, cost=0.001),
                  run("r2", success=False, latency=500, cost=0.001)])
    # without the floor: 100*(0 + 0.3*0.75 + 0.3*1.0) = 52.5; the floor overrides it
    assert h.score == 0.0
    assert isinstance(h.score, float)
    assert h.zero_success_floor is True
    assert "zero" in " ".join(h.flags).lower()


def test_zero_success_floor_applies_when_every_outcome_is_unknown():
    h = headline([run("r1", success=None, latency=500, cost=0.001),
                  run("r2", success=None, latency=500, cost=0.001)])
    assert h.successful_runs == 0
    assert h.score == 0.0
    assert h.zero_success_floor is True


def test_one_success_lifts_the_zero_success_floor():
    h = headline([run("r1", success=True, latency=500, cost=0.001),
                  run("r2", success=False, latency=500, cost=0.001)])
    # 100*(0.4*0.5 + 0.3*(0.5*1.0 + 0.5*0.5) + 0.3*1.0) = 20 + 22.5 + 30 = 72.5
    assert h.zero_success_floor is False
    assert h.score == 72.5


# --------------------------------------------------------------------------- rounding


def test_score_is_rounded_down_to_two_decimals():
    h = headline([run("r1", success=True, latency=500, cost=0.001),
                  run("r2", success=False, latency=500, cost=0.001),
                  run("r3", success=False, latency=500, cost=0.001)])
    # 100*(0.4/3 + 0.3*0.75 + 0.3) = 13.3333 + 22.5 + 30 = 65.8333 -> 65.83
    assert h.score == 65.83
    assert h.success_rate == pytest.approx(1 / 3, abs=TOL)  # unrounded factor keeps full precision


def test_score_is_rounded_up_to_two_decimals():
    h = headline([run("r1", success=True, latency=500, cost=0.001),
                  run("r2", success=True, latency=500, cost=0.001),
                  run("r3", success=False, latency=500, cost=0.001)])
    # 100*(0.8/3 + 0.225 + 0.3) = 26.6667 + 52.5 = 79.1667 -> 79.17
    assert h.score == 79.17


# --------------------------------------------------------------------------- unranked


UNRANKED_FACTORS = ("score", "success_rate", "avg_latency_ms", "latency_score", "consistency",
                    "consistency_neutral", "execution_score", "avg_cost_usd", "cost_score")


def test_agent_with_only_failed_and_timeout_runs_is_unranked_with_every_factor_null():
    h = headline([run("f1", status="failed", success=True, latency=500, cost=0.001),
                  run("f2", status="timeout", success=False, latency=700, cost=0.002)])
    assert h.completed_runs == 0
    for name in UNRANKED_FACTORS:
        assert getattr(h, name) is None, name
    assert h.zero_success_floor is not True  # the floor needs completed_runs > 0


def test_agent_with_only_non_terminal_runs_is_unranked():
    h = headline([run("q", status="queued"), run("g", status="running"), run("x", status="cancelled")])
    assert h.completed_runs == 0
    for name in UNRANKED_FACTORS:
        assert getattr(h, name) is None, name


# --------------------------------------------------------------------------- leaderboard order


def test_leaderboard_orders_by_score_desc_then_agent_id_asc_with_unranked_last():
    records = [
        # 'e': zero-success floor -> 0.0, still ranked
        run("e1", "e", success=False, latency=500, cost=0.001),
        # 'a9' and 'a10' tie at 72.5 (see test_one_success_lifts_the_zero_success_floor);
        # text order puts 'a10' before 'a9'. 'a9' is listed first in the file on purpose.
        run("a9-1", "a9", success=True, latency=500, cost=0.001),
        run("a9-2", "a9", success=False, latency=500, cost=0.001),
        run("a10-1", "a10", success=True, latency=500, cost=0.001),
        run("a10-2", "a10", success=False, latency=500, cost=0.001),
        # 'b': only failed runs -> unranked
        run("b1", "b", status="failed", success=True, latency=500, cost=0.001),
        # 'c': 100*(0.4 + 0.3*0.75 + 0.3) = 92.5
        run("c1", "c", success=True, latency=500, cost=0.001),
        # 'aa': only queued -> unranked
        run("aa1", "aa", status="queued"),
    ]
    report = score_runs(runs_from_records(records))
    order = [a.agent_id for a in report.agents]
    assert order[:4] == ["c", "a10", "a9", "e"]
    assert set(order[4:]) == {"aa", "b"}
    scores = {a.agent_id: a.headline.score for a in report.agents}
    assert scores == {"c": 92.5, "a10": 72.5, "a9": 72.5, "e": 0.0, "aa": None, "b": None}
    assert [a.rank for a in report.agents][:4] == [1, 2, 3, 4]
    assert [a.rank for a in report.agents][4:] == [None, None]


# --------------------------------------------------------------------------- the SPEC 6 example


def spec6_headline_records():
    """12 completed runs, 9 successful; latencies 6 x 1638 and 6 x 1962; cost 0.02 each.

    Plus failed runs with success=true and other latency/cost, which must not count.
    """
    records = []
    for i in range(12):
        records.append(run(f"c{i:02d}", success=i < 9, latency=1638 if i % 2 else 1962, cost=0.02))
    for i in range(3):
        records.append(run(f"f{i}", status="failed", success=True, latency=100, cost=0.5))
    return records


def test_spec6_example_headline_numbers_are_reproduced():
    h = headline(spec6_headline_records())
    # success_rate = 9/12 = 0.75
    # mean latency = (6*1638 + 6*1962)/12 = 21600/12 = 1800; every deviation is +-162 -> pstdev 162
    # latency_score(1800) = 1 - 0.2 * 1300/1500 = 0.8266667
    # consistency = 1 - 162/1800 = 0.91
    # execution = (0.8266667 + 0.91)/2 = 0.8683333
    # cost_score(0.02) = 0.8 - 0.3 * 0.01/0.04 = 0.725
    # score = 100*(0.4*0.75 + 0.3*0.8683333 + 0.3*0.725) = 30 + 26.05 + 21.75 = 77.8
    assert h.completed_runs == 12
    assert h.successful_runs == 9
    assert h.success_rate == pytest.approx(0.75, abs=TOL)
    assert h.avg_latency_ms == pytest.approx(1800.0, abs=TOL)
    assert h.latency_score == pytest.approx(1 - 0.2 * 1300 / 1500, abs=TOL)
    assert h.consistency == pytest.approx(0.91, abs=TOL)
    assert h.consistency_neutral is False
    assert h.execution_score == pytest.approx((1 - 0.2 * 1300 / 1500 + 0.91) / 2, abs=TOL)
    assert h.avg_cost_usd == pytest.approx(0.02, abs=TOL)
    assert h.cost_score == pytest.approx(0.725, abs=TOL)
    assert h.zero_success_floor is False
    assert h.score == 77.8


def test_composite_of_the_unrounded_spec6_factors_is_77_8():
    # The SPEC's "0.868" is the execution score shown to 3 decimals; the exact one is 0.8683333.
    execution = (1 - 0.2 * 1300 / 1500 + 0.91) / 2
    assert round(composite(0.75, execution, 0.725), 2) == 77.8
    # With the rounded 0.868 the sum is 30 + 26.04 + 21.75 = 77.79 (so 77.8 needs the unrounded factor).
    assert round(composite(0.75, 0.868, 0.725), 2) == 77.79


# --------------------------------------------------------------------------- the vectorized rounding

def _half_way_cases(decimals: int) -> list[float]:
    """Doubles at, just below and just above every half-way point k + 0.5 units of the last decimal."""
    import numpy as np

    out = []
    for k in range(0, 10_001, 7):
        half = (k + 0.5) / 10 ** decimals
        out += [half, float(np.nextafter(half, 0)), float(np.nextafter(half, 200)), k / 10 ** decimals]
    return out


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, 6])
def test_final_scores_round_exactly_as_final_score_at_every_half_way_point(decimals):
    import dataclasses

    import numpy as np

    from scoring.contract.policy import CANONICAL_POLICY
    from scoring.measures.headline import final_score, final_scores

    policy = dataclasses.replace(CANONICAL_POLICY, score_decimals=decimals)
    values = np.array(_half_way_cases(decimals) + [0.125, 2.675, 1.005, 0.285, 1e17, 2.0 ** 53 + 2, 99.995, 12.345])
    floors = np.zeros(len(values), dtype=bool)
    floors[::11] = True
    got = final_scores(values, floors, policy)
    want = [final_score(v, f, policy) for v, f in zip(values.tolist(), floors.tolist())]
    assert [float(g).hex() for g in got] == [float(w).hex() for w in want]


def test_final_scores_property_equal_to_final_score():
    import dataclasses

    import numpy as np
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from scoring.contract.policy import CANONICAL_POLICY
    from scoring.measures.headline import final_score, final_scores

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.floats(min_value=-1e20, max_value=1e20, allow_nan=False), min_size=1, max_size=30),
           st.integers(0, 6))
    def check(values, decimals):
        policy = dataclasses.replace(CANONICAL_POLICY, score_decimals=decimals)
        got = final_scores(np.array(values), np.zeros(len(values), dtype=bool), policy)
        assert [float(g).hex() for g in got] == [final_score(v, False, policy).hex() for v in values]

    check()


def test_the_consistency_sentence_keeps_the_spreads_digits_as_the_gate_box_does():
    """A newcomer read "1 - 71 ms/1,446 ms = 0.9512" in the sentence and "1 − 70.58 ms ÷ 1,446 ms" in the box."""
    from scoring import load_runs, score_runs
    from tests.helpers import SAMPLE

    headline = score_runs(load_runs(SAMPLE).runs).agent("steady-pro").headline
    (sentence,) = [f.render() for f in headline.explain() if f.template.startswith("Consistency")]
    assert "1 - 70.58 ms/1,446 ms = 0.9512" in sentence, sentence


def test_tiny_latencies_keep_their_spread():
    """A reviewer's file: four latencies of 1e-200 ms and one of 5e-200. Mean 1.8e-200; deviations -0.8 (x4) and
    3.2 (x1e-200): squares 4 * 0.64 + 10.24 = 12.8, / 5 = 2.56 (x1e-400), pstdev 1.6e-200, consistency 1 - 1.6/1.8 =
    1/9; execution (1 + 1/9) / 2 = 5/9; score 40 + 30 * 5/9 + 30 * 0.8 = 80.67 (cost 0.01: 0.8). The squares
    (about 1e-400) are below the smallest double: unscaled they vanished, and consistency read 1.0 (score 94.00)."""
    rows = [{"run_id": f"r{i}", "agent_id": "s", "task_id": "t", "status": "completed", "success": "true",
             "latency_ms": "5e-200" if i == 4 else "1e-200", "cost_usd": "0.01"} for i in range(5)]
    h = score_runs(runs_from_records(rows)).agent("s").headline
    assert h.latency_pstdev_ms == pytest.approx(1.6e-200, rel=1e-15)
    assert h.consistency == pytest.approx(1 / 9, abs=1e-15) and h.score == 80.67
