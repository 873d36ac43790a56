"""SPEC 2 read backwards: ``Anchors.inverse(score)``, the values an anchor map sends to at least a score."""

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scoring.contract.policy import CANONICAL_POLICY, Anchors

LATENCY = CANONICAL_POLICY.latency_anchors
COST = CANONICAL_POLICY.cost_anchors


@pytest.mark.parametrize(("score", "high"), [
    (1.0, 500.0),  # the first anchor: 1.0 up to 500 ms
    (0.9, 1250.0),  # halfway from 500 (1.0) to 2000 (0.8)
    (0.8, 2000.0),
    (0.65, 3500.0),  # halfway from 2000 (0.8) to 5000 (0.5)
    (0.5, 5000.0),
    (0.25, 7500.0),  # halfway from 5000 (0.5) to 10000 (0.0)
])
def test_latency_inverse_by_hand(score, high):
    ((low, end),) = LATENCY.inverse(score)
    assert low == 0.0
    assert end == pytest.approx(high, rel=1e-12)
    assert LATENCY(end) >= score
    assert LATENCY(end * (1 + 1e-9)) < score  # just beyond the end the score is not reached


@pytest.mark.parametrize(("score", "high"), [(1.0, 0.001), (0.8, 0.01), (0.65, 0.03), (0.2, 0.1), (0.1, 0.15)])
def test_cost_inverse_by_hand(score, high):
    ((low, end),) = COST.inverse(score)
    assert (low, end) == (0.0, pytest.approx(high, rel=1e-12))
    assert COST(end) >= score


def test_limits_of_the_inverse():
    assert LATENCY.inverse(1.0000001) == ()  # above the best score: nothing reaches it
    assert LATENCY.inverse(0.0) == ((0.0, math.inf),)  # everything reaches the lowest score
    assert COST.inverse(-1.0) == ((0.0, math.inf),)


def test_anchors_that_rise_and_fall_give_several_intervals():
    anchors = Anchors("x", (1.0, 2.0, 3.0, 4.0), (0.0, 1.0, 0.2, 0.9), "x")
    # 0.5 is crossed rising on [1, 2] at 1.5, falling on [2, 3] at 2.625, rising on [3, 4] at 3 + 0.3/0.7.
    (a, b), (c, d) = anchors.inverse(0.5)
    assert (a, b) == (pytest.approx(1.5), pytest.approx(2.625))
    assert (c, d) == (pytest.approx(3 + 0.3 / 0.7), math.inf)
    assert anchors.inverse(0.1) == ((pytest.approx(1.1), math.inf),)  # the dip to 0.2 stays above 0.1


def test_a_first_anchor_above_zero_extends_its_score_down_to_zero():
    anchors = Anchors("x", (10.0, 20.0), (0.2, 1.0), "x")  # rising: 0.2 below 10
    assert anchors.inverse(0.2) == ((0.0, math.inf),)
    assert anchors.inverse(0.6) == ((pytest.approx(15.0), math.inf),)


@st.composite
def anchor_maps(draw):
    n = draw(st.integers(2, 6))
    steps = draw(st.lists(st.floats(0.01, 1000), min_size=n, max_size=n))
    xs = [math.fsum(steps[: i + 1]) for i in range(n)]
    scores = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    return Anchors("x", tuple(xs), tuple(scores), "x")


@settings(max_examples=200, deadline=None)
@given(anchor_maps(), st.floats(0, 1), st.lists(st.floats(0, 8000), min_size=1, max_size=30))
# A score near the smallest doubles: 64 doubles inward did not reach it (a fresh clone's run, 2026-12-06)
@example(Anchors("x", (1.0, 2.0, 3.0, 4.0, 5.0, 58.0), (0.0, 0.0, 0.0, 0.0, 1.1125369292536007e-308, 0.0), "x"),
         2.2250738585e-313, [0.0])
def test_inverse_is_exactly_the_set_reaching_the_score(anchors, score, probes):
    intervals = anchors.inverse(score)
    for low, high in intervals:
        assert 0 <= low <= high
        assert anchors(low) >= score and (math.isinf(high) or anchors(high) >= score)  # every end reaches it
    for (_, high), (low, _) in zip(intervals, intervals[1:]):
        assert high < low  # disjoint, increasing
    for x in probes:
        inside = any(low <= x <= high for low, high in intervals)
        value = anchors(x)
        if inside:
            assert value >= score - 1e-12
        elif value >= score + 1e-9:  # clearly reaching the score: must be inside, up to a rounding of an end
            assert any(low * (1 - 1e-12) - 1e-12 <= x <= high * (1 + 1e-12) + 1e-12 for low, high in intervals)
