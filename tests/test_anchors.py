"""SPEC 2: normalization anchors (piecewise linear between anchors, clamped outside).

Every expected value below is worked by hand from the SPEC 2 table:
    score(x) = s_i + (x - x_i) / (x_{i+1} - x_i) * (s_{i+1} - s_i)   for x_i <= x <= x_{i+1}
"""

import pytest

from scoring import CANONICAL_POLICY

LAT = CANONICAL_POLICY.latency_anchors
COST = CANONICAL_POLICY.cost_anchors
STEPS = CANONICAL_POLICY.steps_anchors

TOL = 1e-12


# --------------------------------------------------------------------------- the tables themselves


def test_anchor_tables_match_spec_2():
    assert tuple(LAT.xs) == (500, 2000, 5000, 10000)
    assert tuple(LAT.scores) == (1.0, 0.8, 0.5, 0.0)
    assert tuple(COST.xs) == (0.001, 0.01, 0.05, 0.1, 0.2)
    assert tuple(COST.scores) == (1.0, 0.8, 0.5, 0.2, 0.0)
    assert tuple(STEPS.xs) == (2, 5, 10, 20, 40)
    assert tuple(STEPS.scores) == (1.0, 0.8, 0.5, 0.2, 0.0)


def test_steps_anchors_are_labelled_explorer_defined_and_latency_cost_published():
    # SPEC preamble: explorer-defined constants must be labelled as such.
    provenance = CANONICAL_POLICY.provenance
    assert provenance["steps_anchors"] == "explorer-defined"
    assert provenance["latency_anchors"] == "published"
    assert provenance["cost_anchors"] == "published"


# --------------------------------------------------------------------------- every anchor value


@pytest.mark.parametrize("x, expected", [(500, 1.0), (2000, 0.8), (5000, 0.5), (10000, 0.0)])
def test_latency_anchor_values_map_to_their_score(x, expected):
    assert LAT(x) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("x, expected", [(0.001, 1.0), (0.01, 0.8), (0.05, 0.5), (0.1, 0.2), (0.2, 0.0)])
def test_cost_anchor_values_map_to_their_score(x, expected):
    assert COST(x) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("x, expected", [(2, 1.0), (5, 0.8), (10, 0.5), (20, 0.2), (40, 0.0)])
def test_steps_anchor_values_map_to_their_score(x, expected):
    assert STEPS(x) == pytest.approx(expected, abs=TOL)


# --------------------------------------------------------------------------- strictly between anchors


@pytest.mark.parametrize(
    "x, expected",
    [
        (1250, 0.9),  # midpoint 500..2000: (1.0 + 0.8) / 2
        (1000, 1.0 - 0.2 * 500 / 1500),  # 1/3 of the way: 0.933333...
        (1800, 1.0 - 0.2 * 1300 / 1500),  # 0.826666... (the SPEC 6 example's latency score)
        (3500, 0.65),  # midpoint 2000..5000: (0.8 + 0.5) / 2
        (3000, 0.8 - 0.3 * 1000 / 3000),  # 0.7
        (7500, 0.25),  # midpoint 5000..10000: (0.5 + 0.0) / 2
        (9000, 0.5 - 0.5 * 4000 / 5000),  # 0.1
    ],
)
def test_latency_between_anchors_is_linear(x, expected):
    assert LAT(x) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize(
    "x, expected",
    [
        (0.0055, 0.9),  # midpoint 0.001..0.01
        (0.02, 0.8 - 0.3 * 0.01 / 0.04),  # 0.725 (the SPEC 6 example's cost score)
        (0.03, 0.65),  # midpoint 0.01..0.05
        (0.075, 0.35),  # midpoint 0.05..0.1: (0.5 + 0.2) / 2
        (0.15, 0.1),  # midpoint 0.1..0.2: (0.2 + 0.0) / 2
        (0.12, 0.2 - 0.2 * 0.02 / 0.1),  # 0.16
    ],
)
def test_cost_between_anchors_is_linear(x, expected):
    assert COST(x) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize(
    "x, expected",
    [
        (3, 1.0 - 0.2 * 1 / 3),  # 0.933333...
        (3.5, 0.9),  # midpoint 2..5
        (6, 0.8 - 0.3 * 1 / 5),  # 0.74
        (7.5, 0.65),  # midpoint 5..10
        (12, 0.5 - 0.3 * 2 / 10),  # 0.44
        (15, 0.35),  # midpoint 10..20
        (30, 0.1),  # midpoint 20..40
    ],
)
def test_steps_between_anchors_is_linear(x, expected):
    assert STEPS(x) == pytest.approx(expected, abs=TOL)


# --------------------------------------------------------------------------- clamps


@pytest.mark.parametrize("x", [0, 1, 499, 499.999])
def test_latency_below_first_anchor_takes_first_score(x):
    assert LAT(x) == pytest.approx(1.0, abs=TOL)


@pytest.mark.parametrize("x", [10000.001, 10001, 60_000, 1e12])
def test_latency_above_last_anchor_takes_last_score(x):
    assert LAT(x) == pytest.approx(0.0, abs=TOL)


@pytest.mark.parametrize("x", [0, 0.0001, 0.000999])
def test_cost_below_first_anchor_takes_first_score(x):
    assert COST(x) == pytest.approx(1.0, abs=TOL)


@pytest.mark.parametrize("x", [0.2000001, 0.3, 5.0, 1e9])
def test_cost_above_last_anchor_takes_last_score(x):
    assert COST(x) == pytest.approx(0.0, abs=TOL)


@pytest.mark.parametrize("x", [0, 1, 1.999])
def test_steps_below_first_anchor_takes_first_score(x):
    assert STEPS(x) == pytest.approx(1.0, abs=TOL)


@pytest.mark.parametrize("x", [40.001, 41, 1000, 10**9])
def test_steps_above_last_anchor_takes_last_score(x):
    assert STEPS(x) == pytest.approx(0.0, abs=TOL)


def test_anchor_scores_stay_within_0_and_1_on_a_sweep():
    # Clamped piecewise-linear with scores in [0, 1] can never leave [0, 1].
    for anchors, top in ((LAT, 20_000), (COST, 0.4), (STEPS, 80)):
        for i in range(401):
            v = anchors(top * i / 400)
            assert 0.0 <= v <= 1.0
