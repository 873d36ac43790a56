"""Invariants of the three measures, checked on random run tables (hypothesis)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RADAR_AXES, pass_hat_k, runs_from_records, score_runs
from tests.helpers import run_tables

# Weights the explorer accepts: 0, or relative weights from 1e-6 to 1e6 (check_weights refuses the rest).
weights_st = st.fixed_dictionaries({a: st.one_of(st.just(0.0), st.floats(1e-6, 10)) for a in RADAR_AXES})
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def in_range(value, low, high):
    return value is None or low <= value <= high


@SETTINGS
@given(run_tables(), weights_st)
def test_every_score_is_in_bounds(rows, weights):
    report = score_runs(runs_from_records(rows), weights=weights)
    for agent in report.agents:
        h = agent.headline.to_json()
        assert in_range(h["score"], 0, 100)
        for factor in ("success_rate", "latency_score", "consistency", "execution_score", "cost_score"):
            assert in_range(h[factor], 0, 1)
        radar = agent.radar.to_json(weights)
        assert all(in_range(v, 0, 100) for v in radar["axes"].values())
        assert in_range(radar["profile_score"], 0, 100)
        assert radar["window_runs"] <= 100
        pass_k = agent.repeatability.pass_k or {}
        assert all(0 <= v <= 1 for v in pass_k.values())


@SETTINGS
@given(run_tables(), st.randoms(use_true_random=False))
def test_shuffling_rows_changes_nothing(rows, rnd):
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    a = score_runs(runs_from_records(rows)).to_json_text()
    b = score_runs(runs_from_records(shuffled)).to_json_text()
    assert a == b


@SETTINGS
@given(run_tables(), weights_st)
def test_viewer_weights_never_change_a_headline(rows, weights):
    runs = runs_from_records(rows)
    default = score_runs(runs)
    weighted = score_runs(runs, weights=weights)
    assert [a.agent_id for a in default.agents] == [a.agent_id for a in weighted.agents]
    assert [a.headline.to_json() for a in default.agents] == [a.headline.to_json() for a in weighted.agents]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))), st.integers(1, 45))
def test_pass_hat_k_is_non_increasing_in_k(nc, k):
    n, c = nc
    assert pass_hat_k(n, c, k + 1) <= pass_hat_k(n, c, k)


@SETTINGS
@given(run_tables(min_size=1))
def test_agent_pass_k_curve_is_non_increasing(rows):
    for agent in score_runs(runs_from_records(rows)).agents:
        values = list(agent.repeatability.curve().values())
        assert all(b <= a for a, b in zip(values, values[1:]))


@SETTINGS
@given(run_tables(), st.sampled_from(["a", "b", "c"]))
def test_one_more_successful_completed_run_never_lowers_the_success_rate(rows, agent):
    before = score_runs(runs_from_records(rows))
    extra = rows + [{"run_id": "extra", "agent_id": agent, "task_id": "t1", "status": "completed",
                     "success": True, "latency_ms": None, "cost_usd": None}]
    after = score_runs(runs_from_records(extra)).agent(agent).headline
    old = before.agent(agent).headline.success_rate if agent in {a.agent_id for a in before.agents} else None
    assert after.success_rate is not None and after.success_rate >= (old or 0.0)
    assert not after.zero_success_floor


@SETTINGS
@given(run_tables())
def test_report_json_never_contains_nan(rows):
    text = score_runs(runs_from_records(rows)).to_json_text()
    json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(AssertionError(c)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=300)
       | st.lists(st.sampled_from([0.1, 0.2, 0.3, 1e-300, 1e6, 123.456]), min_size=1, max_size=500))
def test_average_latency_is_the_correctly_rounded_sum_over_the_count(values):
    import math

    rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed", "success": True,
             "latency_ms": v, "cost_usd": None} for i, v in enumerate(values)]
    headline = score_runs(runs_from_records(rows)).agents[0].headline
    assert headline.avg_latency_ms == math.fsum(values) / len(values)


def test_exact_totals_equal_fsum_over_long_and_adversarial_segments():
    """Per-agent sums over segments from 1 to 5,000 rows (blocks of 32 in order, then pairwise): each equals
    math.fsum of the agent's values, including values spread over 60 binary orders and near-halfway sums."""
    import math

    import numpy as np

    from scoring.measures._groups import AgentGroups

    rng = np.random.default_rng(7)
    for trial in range(6):
        sizes = rng.integers(1, 5000, size=12)
        codes = np.repeat(np.arange(len(sizes)), sizes)
        values = np.ldexp(rng.random(len(codes)), rng.integers(-30, 30, size=len(codes)))
        if trial % 2:  # many copies of values whose sum lies near a rounding midpoint of the double
            values = np.where(rng.random(len(codes)) < 0.5, 1.0 + 2.0 ** -52, 2.0 ** -53)
        mask = rng.random(len(codes)) < 0.9
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        groups = AgentGroups(agents=tuple(map(str, range(len(sizes)))), codes=codes, completed=mask,
                             terminal=mask, known=mask, succeeded=mask, starts=starts)
        got = groups.exact_total(mask, values)
        for i, (start, size) in enumerate(zip(starts, sizes)):
            chunk = values[start:start + size][mask[start:start + size]]
            assert got[i] == math.fsum(chunk.tolist()), (trial, i, size)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 2048])
def test_the_pairwise_sums_chunk_by_chunk_are_those_of_the_whole_column_bit_for_bit(chunk, monkeypatch):
    """The first level's blocks summed a chunk at a time (each chunk masked and widened on its own) give the
    extended-precision sums of the whole widened column, bit for bit: segments of 1 to 300 rows, so chunks end
    inside an agent and between agents, and a column of one row per agent (no level at all)."""
    import numpy as np

    from scoring.measures import _groups

    rng = np.random.default_rng(11)
    monkeypatch.setattr(_groups, "_CHUNK_BLOCKS", chunk)
    for sizes in (rng.integers(1, 300, size=40), np.ones(5, dtype=np.int64)):
        codes = np.repeat(np.arange(len(sizes)), sizes)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        values = np.ldexp(rng.random(len(codes)), rng.integers(-40, 40, size=len(codes)))
        mask = rng.random(len(codes)) < 0.8
        levels = _groups._pairwise_levels(codes, starts)
        whole = np.where(mask, values, 0.0).astype(np.longdouble)  # the sums as they were taken before
        for first in levels:
            whole = np.add.reduceat(whole, first)
        got = _groups._pairwise_segment_sums(mask, values, levels)
        assert got.dtype == np.longdouble and np.array_equal(got, whole)


def test_an_exact_midpoint_hidden_below_extended_precision_is_rounded_as_fsum_rounds_it():
    """1 + 2^-52 followed by 2^12 values of 2^-65: the exact total is the midpoint 1 + 2^-52 + 2^-53, which
    rounds to even (1 + 2^-51); each tiny value is below half a unit of 1 in extended precision, so an
    extended sum that adds them to the 1 one at a time misses the midpoint. The total must be fsum's."""
    import math

    import numpy as np

    from scoring.measures._groups import AgentGroups

    values = np.concatenate(([1.0 + 2.0 ** -52], np.full(2 ** 12, 2.0 ** -65)))
    mask = np.ones(len(values), dtype=bool)
    groups = AgentGroups(agents=("a",), codes=np.zeros(len(values), dtype=np.int64), completed=mask, terminal=mask,
                         known=mask, succeeded=mask, starts=np.array([0]))
    expected = math.fsum(values.tolist())
    assert expected == 1.0 + 2.0 ** -51
    assert groups.exact_total(mask, values)[0] == expected


@SETTINGS
@given(st.lists(st.sampled_from(["completed", "failed", "timeout", "queued", None]), max_size=40),
       st.sets(st.sampled_from(["completed", "failed", "timeout", "running"])))
def test_a_status_lookup_on_codes_is_pandas_isin(values, names):
    import pandas as pd

    from scoring.measures._groups import status_in

    categorical = pd.Series(pd.Categorical(values, categories=["completed", "failed", "queued", "timeout"]))
    expected = categorical.isin(sorted(names)).to_numpy(dtype=bool)
    assert status_in(categorical, tuple(sorted(names))).tolist() == expected.tolist()
    assert status_in(pd.Series(values, dtype=object), tuple(sorted(names))).tolist() == expected.tolist()
