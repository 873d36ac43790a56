"""An independent oracle for SPEC 3 (headline composite), 4 (fitness radar: window, axes, default profile) and
5 (pass^k at the public levels 1, 3, 5), checked against the package's report on random and hand-made run sets.

Every engine shares one compute step (``*_from_aggregates``), so an engine-against-engine test cannot catch a
mistake in that step. The oracle below is written from the text of SPEC.md alone: it reads no module under
``scoring/measures/``, ``scoring/engines/`` or ``scoring/analysis/``, and it hard-codes the SPEC constants instead
of reading the policy object. It works row by row on the input records, with exact arithmetic
(``fractions.Fraction``, ``math.comb``) wherever the SPEC's formula is rational, so its numbers are the SPEC's
numbers, not a second float computation that happens to make the same rounding choices.

The package is reached only through its public entry points, ``runs_from_records`` and ``score_runs(...).to_json()``
(the SPEC 6 document).

How numbers are compared:

- counts, booleans and nulls: equal;
- unrounded values (``success_rate``, ``avg_latency_ms``, ``consistency``, the p50s, pass^k, ...): relative
  tolerance 1e-12 (the package's float arithmetic is a few ulps from the exact value at most), plus an absolute
  1e-13 for the 0-1 factors, where a value near 0 (a latency just under the last anchor, a consistency just above
  the clamp) makes a few ulps of an intermediate a large *relative* difference;
- rounded values (``score``, each radar axis, ``profile_score``): equal to ``round(exact, 2)``, except when the
  exact value lies within ``HALF_WAY_SLACK`` of a half-way point (x.xx5): then the package's float arithmetic may
  land on either side of it (and SPEC does not say how a tie rounds), so either neighbour is accepted
  (:func:`allowed_roundings`).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import runs_from_records, score_runs

# --------------------------------------------------------------------------- SPEC constants, hard-coded

POLICY_VERSION = "2026-07-zero-success-v1"


def _anchors(*pairs: tuple[str, str]) -> tuple[tuple[Fraction, Fraction], ...]:
    return tuple((Fraction(x), Fraction(score)) for x, score in pairs)


# SPEC 2 (the decimal text of the table, read exactly)
LATENCY_ANCHORS = _anchors(("500", "1.00"), ("2000", "0.80"), ("5000", "0.50"), ("10000", "0.00"))
COST_ANCHORS = _anchors(("0.001", "1.00"), ("0.01", "0.80"), ("0.05", "0.50"), ("0.1", "0.20"), ("0.2", "0.00"))
STEP_ANCHORS = _anchors(("2", "1.00"), ("5", "0.80"), ("10", "0.50"), ("20", "0.20"), ("40", "0.00"))

# SPEC 3
SUCCESS_WEIGHT, EXECUTION_WEIGHT, COST_WEIGHT = Fraction("0.40"), Fraction("0.30"), Fraction("0.30")
LATENCY_SHARE, CONSISTENCY_SHARE = Fraction("0.5"), Fraction("0.5")
CONSISTENCY_MIN_LATENCIES = 5
NEUTRAL_CONSISTENCY = Fraction("0.5")
DECIMALS = 2

# SPEC 4
WINDOW = 100
RADAR_LATENCY_MIN = 5
ROBUSTNESS_MIN_OUTCOMES = 2
RADAR_AXES = ("correctness", "latency", "cost", "tool_efficiency", "robustness")
DEFAULT_AXIS_WEIGHT = Fraction("0.20")

# SPEC 5
PASS_K_MIN_OUTCOMES = 3
LEVELS = (1, 3, 5)

# SPEC 1
TERMINAL = ("completed", "failed", "timeout")
STATUSES = TERMINAL + ("queued", "running", "cancelled")

# Comparison tolerances (see the module docstring)
REL_TOL = 1e-12
FACTOR_ABS_TOL = 1e-13
HALF_WAY_SLACK = 1e-9


# --------------------------------------------------------------------------- the oracle

@dataclass(frozen=True)
class Row:
    position: int  # file order (0 = first row)
    run_id: str
    agent_id: str
    task_id: str
    status: str
    success: bool | None
    latency: Fraction | None
    cost: Fraction | None
    steps: Fraction | None
    finished_at: datetime | None


def _number(value: Any) -> Fraction | None:
    return None if value is None else Fraction(value)


def _instant(text: str | None) -> datetime | None:
    if text is None:
        return None
    parsed = datetime.fromisoformat(text)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed  # no zone is UTC


def read_rows(records: list[dict[str, Any]]) -> list[Row]:
    """The records as the oracle reads them (only values the generators below produce)."""
    rows = []
    for position, record in enumerate(records):
        status = record["status"].strip().lower()
        assert status in STATUSES
        rows.append(Row(position, record["run_id"].strip(), record["agent_id"].strip(), record["task_id"].strip(),
                        status, record["success"], _number(record["latency_ms"]), _number(record["cost_usd"]),
                        _number(record.get("steps")), _instant(record.get("finished_at"))))
    return rows


def anchored(x: Fraction, anchors: tuple[tuple[Fraction, Fraction], ...]) -> Fraction:
    """SPEC 2: straight lines between consecutive anchors, clamped to the end anchors' scores."""
    if x <= anchors[0][0]:
        return anchors[0][1]
    for (x0, s0), (x1, s1) in zip(anchors, anchors[1:]):
        if x <= x1:
            return s0 + (s1 - s0) * (x - x0) / (x1 - x0)
    return anchors[-1][1]


def mean(values: list[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values)


def median(values: list[Fraction]) -> Fraction:
    """SPEC 4: the ordinary median (mean of the two middle values for an even count)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def consistency_of(latencies: list[Fraction]) -> float:
    """clamp(1 - pstdev/mean, 0, 1), 1.0 when the mean is 0. The ratio pstdev/mean is sqrt(var/mean^2), with
    var/mean^2 exact: one rounding before the square root."""
    m = mean(latencies)
    if m == 0:
        return 1.0
    variance = mean([(x - m) ** 2 for x in latencies])
    ratio = math.sqrt(float(variance / (m * m)))
    return min(1.0, max(0.0, 1.0 - ratio))


def oracle_headline(rows: list[Row]) -> dict[str, Any]:
    """SPEC 3 for one agent's rows. Unrounded numbers are Fractions (or floats where a square root is taken);
    ``score`` is the exact value before rounding (the comparison rounds it)."""
    cohort = [row for row in rows if row.status == "completed"]
    completed = len(cohort)
    successful = 0
    for row in cohort:
        if row.success is True:
            successful += 1
    if completed == 0:
        return {"score": None, "completed_runs": 0, "successful_runs": 0, "success_rate": None,
                "avg_latency_ms": None, "latency_score": None, "consistency": None, "consistency_neutral": None,
                "execution_score": None, "avg_cost_usd": None, "cost_score": None, "zero_success_floor": False}
    success_rate = Fraction(successful, completed)
    latencies = [row.latency for row in cohort if row.latency is not None]
    costs = [row.cost for row in cohort if row.cost is not None]
    avg_latency = mean(latencies) if latencies else None
    latency_score = anchored(avg_latency, LATENCY_ANCHORS) if avg_latency is not None else Fraction(0)
    avg_cost = mean(costs) if costs else None
    cost_score = anchored(avg_cost, COST_ANCHORS) if avg_cost is not None else Fraction(0)
    if len(latencies) >= CONSISTENCY_MIN_LATENCIES:
        consistency: Fraction | float = consistency_of(latencies)
        neutral = False
    else:
        consistency, neutral = NEUTRAL_CONSISTENCY, True
    execution = LATENCY_SHARE * latency_score + CONSISTENCY_SHARE * Fraction(consistency)
    floor = successful == 0
    score = Fraction(0) if floor else 100 * (SUCCESS_WEIGHT * success_rate + EXECUTION_WEIGHT * execution
                                             + COST_WEIGHT * cost_score)
    return {"score": score, "completed_runs": completed, "successful_runs": successful,
            "success_rate": success_rate, "avg_latency_ms": avg_latency, "latency_score": latency_score,
            "consistency": consistency, "consistency_neutral": neutral, "execution_score": execution,
            "avg_cost_usd": avg_cost, "cost_score": cost_score, "zero_success_floor": floor}


def radar_window(rows: list[Row], has_finished_at: bool) -> list[Row]:
    """SPEC 4: terminal runs, newest first by (finished_at desc, run_id desc as text), an empty finished_at the
    oldest; without the finished_at column, file order (a later row is newer); the first WINDOW."""
    terminal = [row for row in rows if row.status in TERMINAL]
    if has_finished_at:
        oldest = datetime.min.replace(tzinfo=UTC)
        key = lambda row: (row.finished_at is not None, row.finished_at or oldest, row.run_id)
    else:
        key = lambda row: row.position
    return sorted(terminal, key=key, reverse=True)[:WINDOW]


def oracle_radar(rows: list[Row], has_finished_at: bool) -> dict[str, Any]:
    """SPEC 4 for one agent's rows; axes and the profile are exact (unrounded) values or None."""
    window = radar_window(rows, has_finished_at)
    known = [row for row in window if row.success is not None]
    axes: dict[str, Fraction | None] = dict.fromkeys(RADAR_AXES)
    if known:
        axes["correctness"] = 100 * Fraction(sum(1 for row in known if row.success), len(known))
    latencies = [row.latency for row in window if row.latency is not None]
    p50_latency = median(latencies) if latencies else None
    if len(latencies) >= RADAR_LATENCY_MIN:
        axes["latency"] = 100 * anchored(p50_latency, LATENCY_ANCHORS)
    costs = [row.cost for row in window if row.cost is not None]
    p50_cost = median(costs) if costs else None
    if costs:
        axes["cost"] = 100 * anchored(p50_cost, COST_ANCHORS)
    steps = [row.steps for row in window if row.steps is not None]
    p50_steps = median(steps) if steps else None
    if any(value != 0 for value in steps):
        axes["tool_efficiency"] = 100 * anchored(p50_steps, STEP_ANCHORS)
    by_task: dict[str, list[bool]] = defaultdict(list)
    for row in known:
        by_task[row.task_id].append(row.success)
    kept = [outcomes for outcomes in by_task.values() if len(outcomes) >= ROBUSTNESS_MIN_OUTCOMES]
    if kept:
        reliabilities = []
        for outcomes in kept:
            p = Fraction(sum(outcomes), len(outcomes))
            reliabilities.append(1 - 4 * p * (1 - p))
        axes["robustness"] = 100 * mean(reliabilities)
    available = {axis: value for axis, value in axes.items() if value is not None}
    total_weight = DEFAULT_AXIS_WEIGHT * len(available)
    if available and total_weight != 0:
        profile = sum((DEFAULT_AXIS_WEIGHT * value for value in available.values()), Fraction(0)) / total_weight
        weights = dict.fromkeys(available, DEFAULT_AXIS_WEIGHT / total_weight)
    else:
        profile, weights = None, {}
    return {"window_runs": len(window), "axes": axes, "p50_latency_ms": p50_latency, "p50_cost_usd": p50_cost,
            "p50_steps": p50_steps, "robustness_tasks": len(kept), "weights": weights, "profile_score": profile}


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """SPEC 5: C(c, k) / C(n, k) if c >= k, else 0."""
    return Fraction(math.comb(c, k), math.comb(n, k)) if c >= k else Fraction(0)


def oracle_repeatability(rows: list[Row]) -> dict[str, Any]:
    """SPEC 5 for one agent's rows: every terminal run with a known outcome, no window."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # task -> [n, c]
    for row in rows:
        if row.status in TERMINAL and row.success is not None:
            counts[row.task_id][0] += 1
            counts[row.task_id][1] += 1 if row.success else 0
    qualifying = [(n, c) for n, c in counts.values() if n >= PASS_K_MIN_OUTCOMES]
    below_min = sum(1 for n, _ in counts.values() if n < PASS_K_MIN_OUTCOMES)
    pass_k = None
    if qualifying:
        pass_k = {str(k): mean([pass_hat_k(n, c, k) for n, c in qualifying]) for k in LEVELS}
    return {"qualifying_tasks": len(qualifying), "pass_k": pass_k,
            "tasks_below_k": {str(k): sum(1 for n, _ in qualifying if n < k) for k in LEVELS},
            "tasks_below_min_outcomes": below_min}


def oracle_flags(rows: list[Row], headline: dict[str, Any]) -> dict[str, bool]:
    """The SPEC 6 flag codes whose condition SPEC 3 states (present or absent)."""
    cohort = [row for row in rows if row.status == "completed"]
    ranked = bool(cohort)
    return {"unranked": not ranked,
            "zero_success_floor": headline["zero_success_floor"],
            "neutral_consistency": ranked and headline["consistency_neutral"],
            "no_latency_recorded": ranked and all(row.latency is None for row in cohort),
            "no_cost_recorded": ranked and all(row.cost is None for row in cohort),
            "no_outcome_recorded": ranked and all(row.success is None for row in cohort)}


def oracle_left_out(rows: list[Row]) -> dict[str, Any]:
    left = [row for row in rows if row.status in ("failed", "timeout")]
    return {"runs": len(left), "by_status": {status: sum(1 for row in left if row.status == status)
                                             for status in ("failed", "timeout")}}


def oracle_report(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per agent (in first-seen order): headline, radar, repeatability, flags, left_out."""
    has_finished_at = any("finished_at" in record for record in records)
    rows = read_rows(records)
    by_agent: dict[str, list[Row]] = {}
    for row in rows:
        by_agent.setdefault(row.agent_id, []).append(row)
    report = {}
    for agent, agent_rows in by_agent.items():
        headline = oracle_headline(agent_rows)
        report[agent] = {"headline": headline, "radar": oracle_radar(agent_rows, has_finished_at),
                         "repeatability": oracle_repeatability(agent_rows),
                         "flags": oracle_flags(agent_rows, headline), "left_out": oracle_left_out(agent_rows)}
    return report


# --------------------------------------------------------------------------- comparing

def allowed_roundings(exact: Fraction | float) -> set[float]:
    """round(exact, 2), or both neighbours when exact is within HALF_WAY_SLACK of a half-way point (x.xx5).

    Why: the package computes in floats, a few ulps from the exact value, and SPEC's inputs make exact half-way
    values easy to reach (a robustness mean of exactly 21.125, a correctness of 100 * 1/32 = 3.125). On such a
    point the ulps decide the side: with the slack set to 0 this test fails on a robustness axis whose exact value
    is 21.125 and whose package value is 21.13 (its float sum lands a hair above the tie), while on an exact float
    tie (3.125, 15.625) the package rounds half to even like Python's round. Both sides are a faithful rounding of
    SPEC's formula. Everywhere else (|exact - tie| > 1e-9, far more than any float error on a 0-100 value) the
    rounded value is fully determined and must be equal."""
    x = float(exact)
    return {round(x - HALF_WAY_SLACK, DECIMALS), round(x + HALF_WAY_SLACK, DECIMALS)}


def assert_rounded(got: Any, exact: Fraction | float | None, where: str) -> None:
    if exact is None:
        assert got is None, (where, got)
        return
    assert isinstance(got, float) and math.isfinite(got), (where, got)
    allowed = allowed_roundings(exact)
    assert got in allowed, (where, "package", got, "oracle", sorted(allowed), "exact", float(exact))


def assert_close(got: Any, exact: Fraction | float | None, where: str, *, factor: bool = False) -> None:
    if exact is None:
        assert got is None, (where, got)
        return
    assert isinstance(got, (int, float)) and not isinstance(got, bool) and math.isfinite(got), (where, got)
    assert math.isclose(got, float(exact), rel_tol=REL_TOL, abs_tol=FACTOR_ABS_TOL if factor else 0.0), (
        where, "package", got, "oracle", float(exact))


def assert_equal(got: Any, expected: Any, where: str) -> None:
    assert type(got) is type(expected) and got == expected, (where, "package", got, "oracle", expected)


HEADLINE_COUNTS = ("completed_runs", "successful_runs")
HEADLINE_FLAGS = ("consistency_neutral", "zero_success_floor")
HEADLINE_FACTORS = ("success_rate", "latency_score", "consistency", "execution_score", "cost_score")
HEADLINE_MEASURES = ("avg_latency_ms", "avg_cost_usd")


def compare_agent(got: dict[str, Any], expected: dict[str, Any], agent: str) -> None:
    headline, exp_headline = got["headline"], expected["headline"]
    assert_rounded(headline["score"], exp_headline["score"], f"{agent}.headline.score")
    for key in HEADLINE_COUNTS + HEADLINE_FLAGS:
        assert_equal(headline[key], exp_headline[key], f"{agent}.headline.{key}")
    for key in HEADLINE_FACTORS:
        assert_close(headline[key], exp_headline[key], f"{agent}.headline.{key}", factor=True)
    for key in HEADLINE_MEASURES:
        assert_close(headline[key], exp_headline[key], f"{agent}.headline.{key}")
    flags = set(headline["flags"])
    for code, present in expected["flags"].items():
        assert (code in flags) == present, (f"{agent}.headline.flags", code, "expected" if present else "absent",
                                            sorted(flags))
    left_out = headline["left_out"]
    assert_equal(left_out["runs"], expected["left_out"]["runs"], f"{agent}.headline.left_out.runs")
    assert_equal(dict(left_out["by_status"]), expected["left_out"]["by_status"], f"{agent}.left_out.by_status")
    assert_equal(headline["completed_runs"] + left_out["runs"],
                 exp_headline["completed_runs"] + expected["left_out"]["runs"], f"{agent}.terminal runs")

    radar, exp_radar = got["radar"], expected["radar"]
    assert_equal(radar["window_runs"], exp_radar["window_runs"], f"{agent}.radar.window_runs")
    assert_equal(radar["robustness_tasks"], exp_radar["robustness_tasks"], f"{agent}.radar.robustness_tasks")
    assert list(radar["axes"]) == list(RADAR_AXES), (agent, list(radar["axes"]))
    for axis in RADAR_AXES:
        assert_rounded(radar["axes"][axis], exp_radar["axes"][axis], f"{agent}.radar.axes.{axis}")
    for key in ("p50_latency_ms", "p50_cost_usd", "p50_steps"):
        assert_close(radar[key], exp_radar[key], f"{agent}.radar.{key}")
    assert set(radar["weights"]) == set(exp_radar["weights"]), (f"{agent}.radar.weights", radar["weights"])
    for axis, weight in exp_radar["weights"].items():
        assert_close(radar["weights"][axis], weight, f"{agent}.radar.weights.{axis}", factor=True)
    assert_rounded(radar["profile_score"], exp_radar["profile_score"], f"{agent}.radar.profile_score")

    repeat, exp_repeat = got["repeatability"], expected["repeatability"]
    assert_equal(repeat["qualifying_tasks"], exp_repeat["qualifying_tasks"], f"{agent}.repeatability.qualifying")
    if exp_repeat["pass_k"] is None:
        assert repeat["pass_k"] is None, (f"{agent}.repeatability.pass_k", repeat["pass_k"])
    else:
        assert isinstance(repeat["pass_k"], dict) and set(repeat["pass_k"]) == {str(k) for k in LEVELS}, (
            f"{agent}.repeatability.pass_k", repeat["pass_k"])
        for level, value in exp_repeat["pass_k"].items():
            assert_close(repeat["pass_k"][level], value, f"{agent}.repeatability.pass_k.{level}", factor=True)
    assert_equal(dict(repeat["tasks_below_k"]), exp_repeat["tasks_below_k"], f"{agent}.repeatability.tasks_below_k")
    assert_equal(repeat["tasks_below_min_outcomes"], exp_repeat["tasks_below_min_outcomes"],
                 f"{agent}.repeatability.tasks_below_min_outcomes")


def ranked_order(scores: dict[str, float | None]) -> list[str]:
    """SPEC 3: the ranked agents by score descending, then agent_id ascending (as text). Unranked agents come
    after them; SPEC does not order them among themselves, so the caller compares them as a set."""
    return sorted((agent for agent, score in scores.items() if score is not None),
                  key=lambda agent: (-scores[agent], agent))


def check(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Score ``records`` with the package and with the oracle; every compared field must agree."""
    document = score_runs(runs_from_records(records)).to_json()
    expected = oracle_report(records)
    assert document["policy_version"] == POLICY_VERSION
    got = {agent["agent_id"]: agent for agent in document["agents"]}
    assert len(got) == len(document["agents"]), "an agent listed twice"
    assert set(got) == set(expected), (sorted(got), sorted(expected))
    for agent, exp in expected.items():
        compare_agent(got[agent], exp, agent)
    # Leaderboard: order by the rounded scores. Each package score was checked above to be the oracle's (or, on a
    # half-way point, one of its two neighbours), so sorting by the package's scores is the oracle's order. The
    # unranked agents (oracle: no completed run) must all come after the ranked ones.
    scores = {agent: got[agent]["headline"]["score"] for agent in got}
    order = [agent["agent_id"] for agent in document["agents"]]
    ranked = ranked_order(scores)
    assert order[:len(ranked)] == ranked, ("leaderboard", order, ranked)
    unranked = {agent for agent in expected if expected[agent]["headline"]["score"] is None}
    assert set(order[len(ranked):]) == unranked, ("unranked last", order, unranked)
    return document


# --------------------------------------------------------------------------- generators

AGENT_POOL = ["a", "b", "B", "a10", "a9", "é", "ｚ", "𝔸"]  # case, digits as text, non-ASCII, beyond the BMP
TASK_POOL = ["t1", "t2", "T3", "t10", "x"]
RUN_ID_ALPHABET = "09aAzZ_-éｚ𝔸"  # text order: "9" < "A" < "Z" < "_" < "a" < "z" < "é" < "ｚ" < "𝔸"

STATUS = st.sampled_from(["completed"] * 4 + ["failed", "timeout", "queued", "running", "cancelled"]
                         + ["Completed", " COMPLETED ", "Failed", " timeout", "QUEUED"])
SUCCESS = st.sampled_from([True, True, False, None])
# Straddling the anchors (500/2000/5000/10000 ms, 0.001/0.01/0.05/0.1/0.2 USD, 2/5/10/20/40 steps), zeros, small
# ints and a few random floats. Random floats stay above 1e-3 ms and 1e-6 USD: SPEC does not specify float
# underflow (a mean or a squared deviation of 1e-300 values), and the oracle is exact.
_LATENCY_POOL = st.sampled_from([0, 0.0, 1, 250, 499.5, 500, 500.5, 1000, 1999, 2000, 2001.25, 3500, 4999, 5000,
                                 5000.5, 7500, 9999.9, 10000, 10001, 60000])
_COST_POOL = st.sampled_from([0, 0.0, 0.0005, 0.001, 0.0011, 0.005, 0.0099, 0.01, 0.0101, 0.03, 0.05, 0.0500001, 0.07,
                              0.1, 0.15, 0.2, 0.2000001, 0.25, 1])
# one_of picks a branch uniformly: a repeated branch is a weight. In some run sets every latency comes from a
# narrow band (TIGHT_LATENCY), so a cohort's spread is below its mean and consistency lies strictly between 0 and 1;
# elsewhere the spread is wide and consistency is often clamped to 0.
LATENCY = st.one_of(st.none(), _LATENCY_POOL, _LATENCY_POOL, st.floats(400, 12000), st.floats(1e-3, 1e5))
TIGHT_LATENCY = st.one_of(st.none(), st.floats(900, 1400), st.floats(900, 1400), st.sampled_from([1000, 1250, 1400]))
COST = st.one_of(st.none(), _COST_POOL, _COST_POOL, st.floats(0.0005, 0.25), st.floats(0.0005, 0.25),
                 st.floats(1e-6, 1.0))
STEPS = st.one_of(st.none(), st.sampled_from([0, 0, 1, 2, 3, 4.0, 5, 7, 10, 15, 20, 30, 40, 41, 100]),
                  st.integers(0, 60))
# Several spellings of one instant (10:00 UTC on 2026-07-01) make ties between different texts.
FINISHED_AT = st.sampled_from([
    None, None,
    "2026-07-01T10:00:00Z", "2026-07-01T12:00:00+02:00", "2026-07-01 10:00:00", "2026-07-01T09:30-00:30",
    "2026-07-02T00:00:00+14:00",
    "2026-07-01T10:00:00.000001Z", "2026-06-30T23:59:59.999999Z", "2026-07-01", "2026-07-03T08:00:00Z",
])
RUN_IDS = st.text(alphabet=RUN_ID_ALPHABET, min_size=1, max_size=4)


@st.composite
def run_sets(draw: st.DrawFn, with_finished_at: bool, dense: bool = False) -> list[dict[str, Any]]:
    """1-4 agents, 1-5 tasks, 0-40 runs with unique run_ids. ``dense``: 1-2 agents and tasks and 10-40 runs, so
    that consistency gates, robustness tasks and qualifying pass^k tasks are reached more often."""
    most = 2 if dense else None
    agents = draw(st.lists(st.sampled_from(AGENT_POOL), min_size=1, max_size=most or 4, unique=True))
    tasks = draw(st.lists(st.sampled_from(TASK_POOL), min_size=1, max_size=most or 5, unique=True))
    size = draw(st.integers(10 if dense else 0, 40))  # drawn first: a list strategy's sizes are mostly small
    run_ids = draw(st.lists(RUN_IDS, min_size=size, max_size=size, unique=True))
    with_steps = draw(st.booleans())
    latency = draw(st.sampled_from([LATENCY, TIGHT_LATENCY]))
    pick_agent, pick_task = st.sampled_from(agents), st.sampled_from(tasks)
    records = []
    for run_id in run_ids:
        record = {"run_id": run_id, "agent_id": draw(pick_agent), "task_id": draw(pick_task),
                  "status": draw(STATUS), "success": draw(SUCCESS), "latency_ms": draw(latency),
                  "cost_usd": draw(COST)}
        if with_steps:
            record["steps"] = draw(STEPS)
        if with_finished_at:
            record["finished_at"] = draw(FINISHED_AT)
        records.append(record)
    return records


ORACLE_SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                           suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@ORACLE_SETTINGS
@given(run_sets(with_finished_at=True))
def test_package_matches_the_oracle_with_finished_at(records):
    check(records)


@ORACLE_SETTINGS
@given(run_sets(with_finished_at=False))
def test_package_matches_the_oracle_in_file_order(records):
    check(records)


@ORACLE_SETTINGS
@given(st.booleans().flatmap(lambda with_finished_at: run_sets(with_finished_at, dense=True)))
def test_package_matches_the_oracle_on_dense_run_sets(records):
    check(records)


def big_run_set(seed: int, with_finished_at: bool) -> list[dict[str, Any]]:
    """A deterministic run set where one agent has 101-180 terminal runs, so the window cut decides the radar:
    older runs (early in the file, early in time) fail more, cost more and take longer than newer ones."""
    rng = random.Random(seed)
    instants = [f"2026-07-{day:02d}T{hour:02d}:00:00Z" for day in range(1, 8) for hour in (0, 12)]
    records = []
    count = rng.randint(101, 180)
    for i in range(count + rng.randint(0, 30)):
        agent = "big" if i < count else rng.choice(["small", "other"])
        old = i < count // 3
        record = {"run_id": f"r{rng.randint(0, 10**6)}-{i}", "agent_id": agent, "task_id": rng.choice(TASK_POOL),
                  "status": rng.choice(["completed"] * 5 + ["failed", "timeout"] + ["queued"] * (agent != "big")),
                  "success": rng.random() < (0.3 if old else 0.8) if rng.random() > 0.1 else None,
                  "latency_ms": rng.choice([None, 9000.0, 12000, rng.uniform(5000, 20000)]) if old
                  else rng.choice([None, 400, 1500.5, rng.uniform(100, 3000)]),
                  "cost_usd": rng.choice([None, 0.15, rng.uniform(0.05, 0.5)]) if old
                  else rng.choice([None, 0.002, rng.uniform(0.001, 0.02)]),
                  "steps": rng.choice([None, 30, 50]) if old else rng.choice([None, 0, 3, 6])}
        if with_finished_at:
            if rng.random() < 0.05:
                record["finished_at"] = None
            else:  # mostly increasing with the row, with ties and some out-of-order rows
                index = min(len(instants) - 1, i * len(instants) // count)
                if rng.random() < 0.2:
                    index = rng.randrange(len(instants))
                record["finished_at"] = instants[index]
        records.append(record)
    return records


def test_package_matches_the_oracle_when_the_window_cuts():
    for seed in range(8):
        records = big_run_set(seed, with_finished_at=seed % 2 == 0)
        document = check(records)
        big = next(agent for agent in document["agents"] if agent["agent_id"] == "big")
        assert big["radar"]["window_runs"] == WINDOW
        assert big["headline"]["completed_runs"] + big["headline"]["left_out"]["runs"] > WINDOW


# --------------------------------------------------------------------------- hand-worked examples

def agents_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {agent["agent_id"]: agent for agent in document["agents"]}


def close(got: Any, expected: float) -> bool:
    return isinstance(got, float) and math.isclose(got, expected, rel_tol=REL_TOL, abs_tol=FACTOR_ABS_TOL)


def rec(run_id: str, agent: str, task: str, status: str, success: bool | None, latency: float | None = None,
        cost: float | None = None, steps: int | None = None, minute: int | None = None) -> dict[str, Any]:
    return {"run_id": run_id, "agent_id": agent, "task_id": task, "status": status, "success": success,
            "latency_ms": latency, "cost_usd": cost, "steps": steps,
            "finished_at": None if minute is None else f"2026-07-01T10:{minute:02d}:00Z"}


def test_hand_worked_headline_radar_and_pass_k():
    records = [
        rec("a1", "a", "t1", "completed", True, 1000, 0.02, 4, 1),
        rec("a2", "a", "t1", "completed", True, 1500, 0.04, 4, 2),
        rec("a3", "a", "t1", "completed", True, 1000, None, 6, 3),
        rec("a4", "a", "t2", "completed", False, 1500, None, 6, 4),
        rec("a5", "a", "t2", "completed", True, 1000, 0.02, None, 5),
        rec("a6", "a", "t2", "completed", True, 1500, 0.04, None, 6),
        rec("a7", "a", "t3", "completed", True, 1000, None, None, 7),
        rec("a8", "a", "t3", "completed", None, 1500, None, None, 8),
        rec("a9", "a", "t3", "failed", None, None, 0.5, None, 9),
        rec("a10", "a", "t3", "timeout", False, 30000, None, None, 10),
        rec("a11", "a", "t1", "queued", None, None, None, None, None),
    ]
    document = check(records)
    a = agents_of(document)["a"]
    h = a["headline"]
    # Headline cohort: a1-a8 (8 completed), successes a1 a2 a3 a5 a6 a7 = 6 (a8's unknown counts below only)
    # -> success_rate 6/8 = 0.75. Latencies 4 x 1000 and 4 x 1500: mean 1250, pstdev 250 (every deviation is
    # 250) -> consistency 1 - 250/1250 = 0.8; latency_score(1250) = 1 - 0.2 * 750/1500 = 0.9;
    # execution = 0.5 * 0.9 + 0.5 * 0.8 = 0.85. Costs 0.02 0.04 0.02 0.04: mean 0.03 ->
    # cost_score = 0.8 - 0.3 * 0.02/0.04 = 0.65. score = 100 * (0.4*0.75 + 0.3*0.85 + 0.3*0.65) = 75.0.
    assert (h["completed_runs"], h["successful_runs"]) == (8, 6)
    assert close(h["success_rate"], 0.75) and close(h["avg_latency_ms"], 1250.0)
    assert close(h["latency_score"], 0.9) and close(h["consistency"], 0.8) and h["consistency_neutral"] is False
    assert close(h["execution_score"], 0.85) and close(h["avg_cost_usd"], 0.03) and close(h["cost_score"], 0.65)
    assert h["score"] == 75.0 and h["zero_success_floor"] is False
    assert h["left_out"]["runs"] == 2 and h["left_out"]["by_status"] == {"failed": 1, "timeout": 1}
    r = a["radar"]
    # Window: the 10 terminal runs a1-a10 (a11 is queued). correctness: known outcomes a1-a7 and a10 (8), 6
    # successes -> 75.0. Latencies: 4 x 1000, 4 x 1500, 30000 -> p50 1500 -> 100 * (1 - 0.2 * 1000/1500) = 86.67.
    # Costs 0.02 0.02 0.04 0.04 0.5 -> p50 0.04 -> 100 * (0.8 - 0.3 * 0.03/0.04) = 57.5. Steps 4 4 6 6 -> p50 5
    # -> 80.0. Robustness: t1 (3/3, r = 1), t2 (2/3, r = 1 - 4 * 2/9 = 1/9), t3 (a7 true, a10 false: 1/2, r = 0)
    # -> 100 * (10/9)/3 = 37.04. Profile: (75 + 260/3 + 57.5 + 80 + 1000/27)/5 = 67.2407... -> 67.24.
    assert r["window_runs"] == 10 and r["robustness_tasks"] == 3
    assert r["axes"] == {"correctness": 75.0, "latency": 86.67, "cost": 57.5, "tool_efficiency": 80.0,
                         "robustness": 37.04}
    assert (r["p50_latency_ms"], r["p50_cost_usd"], r["p50_steps"]) == (1500.0, 0.04, 5.0)
    assert r["profile_score"] == 67.24
    p = a["repeatability"]
    # Outcomes (terminal, known, no window): t1 n=3 c=3; t2 n=3 c=2; t3 n=2 (a7, a10) does not qualify.
    # pass^1 = (1 + 2/3)/2 = 5/6; pass^3 = (C(3,3)/C(3,3) + 0)/2 = 0.5; pass^5 = 0 (both have n = 3 < 5).
    assert p["qualifying_tasks"] == 2 and p["tasks_below_min_outcomes"] == 1
    assert close(p["pass_k"]["1"], 5 / 6) and close(p["pass_k"]["3"], 0.5) and p["pass_k"]["5"] == 0.0
    assert p["tasks_below_k"] == {"1": 0, "3": 0, "5": 2}


def test_hand_worked_floor_unranked_and_leaderboard_ties():
    records = [
        # b: 2 completed, no success (one false, one unknown) -> zero-success floor: score 0.0 whatever the
        # factors are: success_rate 0, latency 100 -> 1.0, 1 latency < 5 -> neutral 0.5, execution 0.75, no cost.
        rec("b1", "b", "t1", "completed", False, 100, None),
        rec("b2", "b", "t1", "completed", None, None, None),
        # c: no completed run -> unranked, every factor null; its failed run is still in its radar window.
        rec("c1", "c", "t1", "failed", False, 700, 0.001, 2, 5),
        rec("c2", "c", "t1", "queued", None),
        rec("c3", "c", "t1", "cancelled", True, 10, 0.0),
        # D and d: one completed success at 500 ms and $0.001: 100 * (0.4 + 0.3 * 0.75 + 0.3 * 1) = 92.5 each;
        # the tie goes to agent_id ascending as text: "D" < "d".
        rec("d1", "d", "t1", "completed", True, 500, 0.001),
        rec("D1", "D", "t1", "completed", True, 500, 0.001),
    ]
    document = check(records)
    assert [agent["agent_id"] for agent in document["agents"]] == ["D", "d", "b", "c"]
    agents = agents_of(document)
    b = agents["b"]["headline"]
    assert b["score"] == 0.0 and b["zero_success_floor"] is True and b["success_rate"] == 0.0
    assert close(b["execution_score"], 0.75) and b["consistency_neutral"] is True and b["cost_score"] == 0.0
    assert {"zero_success_floor", "neutral_consistency", "no_cost_recorded"} <= set(b["flags"])
    c = agents["c"]
    assert c["headline"]["score"] is None and c["headline"]["completed_runs"] == 0
    assert all(c["headline"][key] is None for key in HEADLINE_FACTORS + HEADLINE_MEASURES)
    assert "unranked" in c["headline"]["flags"]
    # c's window: c1 only -> correctness 0.0, latency null (1 < 5 latencies), cost 100 * 1.0, steps 2 -> 100.0.
    assert c["radar"]["window_runs"] == 1
    assert c["radar"]["axes"] == {"correctness": 0.0, "latency": None, "cost": 100.0, "tool_efficiency": 100.0,
                                  "robustness": None}
    assert c["radar"]["p50_latency_ms"] == 700.0 and c["radar"]["profile_score"] == 66.67  # (0 + 100 + 100)/3
    assert agents["D"]["headline"]["score"] == agents["d"]["headline"]["score"] == 92.5


def test_hand_worked_window_in_file_order():
    # No finished_at column: a later row is newer. 130 completed runs of w: the 30 oldest (first) rows fail, at
    # 20000 ms and $1; the 100 newest succeed at 500 ms, $0.001, 2 steps, alternating tasks t1/t2.
    old = [{"run_id": f"o{i:03d}", "agent_id": "w", "task_id": f"t{1 + i % 2}", "status": "completed",
            "success": False, "latency_ms": 20000, "cost_usd": 1.0, "steps": 50} for i in range(30)]
    new = [{"run_id": f"n{i:03d}", "agent_id": "w", "task_id": f"t{1 + i % 2}", "status": "completed",
            "success": True, "latency_ms": 500, "cost_usd": 0.001, "steps": 2} for i in range(100)]
    document = check(old + new)
    w = agents_of(document)["w"]
    # Window = the 100 newest rows: every axis 100.0 (robustness: t1 and t2 always solved) -> profile 100.0.
    assert w["radar"]["window_runs"] == 100
    assert w["radar"]["axes"] == dict.fromkeys(RADAR_AXES, 100.0) and w["radar"]["profile_score"] == 100.0
    h = w["headline"]
    # Headline (all 130): success 100/130; mean latency (30*20000 + 100*500)/130 = 5000 -> 0.5; pstdev 8215.8 >
    # mean -> consistency clamps to 0; execution 0.25; mean cost 30.1/130 = 0.2315 > 0.2 -> 0.
    # score = 100 * (0.4 * 10/13 + 0.3 * 0.25) = 30.769... + 7.5 = 38.27.
    assert close(h["success_rate"], 100 / 130) and close(h["avg_latency_ms"], 5000.0)
    assert close(h["latency_score"], 0.5) and h["consistency"] == 0.0 and close(h["execution_score"], 0.25)
    assert h["cost_score"] == 0.0 and h["score"] == 38.27
    # pass^k over all terminal outcomes: t1 and t2 each n = 65, c = 50.
    p = w["repeatability"]["pass_k"]
    for k in LEVELS:
        assert close(p[str(k)], math.comb(50, k) / math.comb(65, k))


def test_hand_worked_window_ties_and_empty_finished_at():
    # 102 completed runs r1..r102 of t, all at one instant (10:00 UTC) in three spellings: the tie is broken by
    # run_id descending as text, so the window's 100 are all but the two smallest texts, "r1" and "r10" (not r1 and
    # r2, as numbers would have it). r1 and r10 fail, the rest succeed. A failed run "zzz" with an empty
    # finished_at (and the largest run_id) sorts as the oldest, so it is cut too; and a file order reading would
    # have taken it (last row) as the newest.
    spellings = ["2026-07-01T10:00:00Z", "2026-07-01T12:00:00+02:00", "2026-07-01 10:00:00"]
    records = [{"run_id": f"r{i}", "agent_id": "t", "task_id": "x", "status": "completed",
                "success": i not in (1, 10), "latency_ms": None, "cost_usd": None,
                "finished_at": spellings[i % 3]} for i in range(1, 103)]
    records.append({"run_id": "zzz", "agent_id": "t", "task_id": "x", "status": "failed", "success": False,
                    "latency_ms": None, "cost_usd": None, "finished_at": None})
    document = check(records)
    t = agents_of(document)["t"]
    assert t["radar"]["window_runs"] == 100
    # correctness 100 (r2..r9, r11..r102 all succeed); robustness: task x 100/100 -> r = 1 -> 100.0.
    assert t["radar"]["axes"]["correctness"] == 100.0 and t["radar"]["axes"]["robustness"] == 100.0
    assert t["radar"]["profile_score"] == 100.0
    # Headline: 102 completed, 100 successes, no latency or cost: latency_score 0 and cost_score 0, neutral 0.5;
    # score = 100 * (0.4 * 100/102 + 0.3 * 0.25) = 39.2157 + 7.5 = 46.72.
    h = t["headline"]
    assert h["score"] == 46.72 and h["latency_score"] == 0.0 and h["cost_score"] == 0.0
    assert {"no_latency_recorded", "no_cost_recorded", "neutral_consistency"} <= set(h["flags"])
    # pass^k: one task, n = 103 (zzz's outcome is known and terminal), c = 100.
    p = t["repeatability"]["pass_k"]
    for k in LEVELS:
        assert close(p[str(k)], math.comb(100, k) / math.comb(103, k))
