"""Team Scorecards: the file format (one test per refusal), the examples, and the published promise that
scorecard weights change only the diagnostic profile and its ordering, never a headline number or rank."""

import json
import math
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import CANONICAL_POLICY, RADAR_AXES, load_runs, runs_from_records, score_runs
from scoring.analysis.scorecard import (
    EXAMPLES_DIR,
    LINK_DEFAULT_NAME,
    LINK_MAX_CHARS,
    MAX_SCORECARD_BYTES,
    Scorecard,
    ScorecardError,
    apply_scorecard,
    load_scorecards,
    profile_ranking,
    read_scorecard,
    scorecard_file_name,
    scorecard_from_json,
    scorecard_from_link,
    scorecard_link_params,
    scorecard_to_json,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
VALID = {"name": "ops team", "description": "Correct and cheap.",
         "weights": {"correctness": 0.6, "latency": 0.0, "cost": 0.4, "tool_efficiency": 0.0, "robustness": 0.0}}


@cache
def sample_runs():
    return load_runs(SAMPLE).runs


def doc(**changes):
    """VALID with top-level fields replaced (``None`` removes one) or weights edited via ``w_<axis>``."""
    d = json.loads(json.dumps(VALID))
    for key, value in changes.items():
        if key.startswith("w_"):
            d["weights"][key[2:]] = value
        elif value is None:
            del d[key]
        else:
            d[key] = value
    return json.dumps(d)


def refused(text) -> dict[str, str]:
    with pytest.raises(ScorecardError) as info:
        scorecard_from_json(text)
    return {e.field: e.message for e in info.value.errors}


# --- Round trip and the canonical file form ----------------------------------------------------

def test_round_trip():
    card = scorecard_from_json(doc())
    text = scorecard_to_json(card)
    assert scorecard_from_json(text) == card
    assert scorecard_to_json(scorecard_from_json(text)) == text
    assert list(json.loads(text)) == sorted(json.loads(text))  # sorted keys: a stable file


def test_axes_not_named_weigh_zero_and_are_written_out():
    card = scorecard_from_json('{"name": "cost", "description": "", "weights": {"cost": 0.5}}')
    assert card.weights == {"correctness": 0.0, "latency": 0.0, "cost": 0.5, "tool_efficiency": 0.0,
                            "robustness": 0.0}
    assert set(json.loads(scorecard_to_json(card))["weights"]) == set(RADAR_AXES)


def test_bytes_with_a_bom_and_non_ascii_text_round_trip():
    card = Scorecard("équipe 漢字 🙂", "Qualité d'abord.", {"correctness": 1})
    data = "\ufeff".encode() + scorecard_to_json(card).encode("utf-8")
    assert scorecard_from_json(data) == card


printable = st.characters(exclude_categories=("Cc", "Cs", "Cf", "Co", "Cn", "Zl", "Zp", "Zs")) | st.just(" ")
weights_st = st.dictionaries(st.sampled_from(RADAR_AXES), st.just(0.0) | st.floats(0.001, 1.0),
                             min_size=1).filter(lambda w: any(v > 0 for v in w.values()))
cards = st.builds(Scorecard, st.text(printable, min_size=1, max_size=80).filter(lambda s: s.strip() == s),
                  st.text(printable, max_size=500), weights_st)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(cards)
def test_any_valid_scorecard_round_trips(card):
    assert scorecard_from_json(scorecard_to_json(card)) == card
    assert scorecard_from_json(scorecard_to_json(card).encode("utf-8")) == card


# --- Every refusal names its field (one test per rule) -----------------------------------------

@pytest.mark.parametrize("text, field, words", [
    ("[1, 2]", "scorecard", "must be a JSON object"),
    ("{", "scorecard", "not valid JSON"),
    (b"\xff\xfe{}", "scorecard", "not UTF-8"),
    (doc(name="x" * MAX_SCORECARD_BYTES), "scorecard", "bytes allowed"),
    ('{"name": "n", "description": "", "weights": {"cost": NaN}}', "scorecard", "not allowed"),
    ('{"name": "n", "description": "", "weights": {"cost": 1e400}}', "weights.cost", "not a finite number"),
    (doc(owner="me"), "owner", "unknown field"),
    (doc(name=None), "name", "is required"),
    (doc(description=None), "description", "is required"),
    (doc(weights=None), "weights", "is required"),
    (doc(name=5), "name", "must be text, got 5"),
    (doc(name=""), "name", "must be 1-80 characters, got 0"),
    (doc(name="n" * 81), "name", "must be 1-80 characters, got 81"),
    (doc(name="bell\x07"), "name", "character 5 is U+0007"),
    (doc(name="lone \ud800"), "name", 'the text "lone \\ud800" holds a lone UTF-16 surrogate'),
    (doc(name="rtl\u202eevil"), "name", "U+202E"),
    (doc(name=" padded"), "name", "must not start or end with a space"),
    (doc(description=["x"]), "description", "must be text"),
    (doc(description="d" * 501), "description", "must be 0-500 characters, got 501"),
    (doc(description="two\nlines"), "description", "U+000A"),
    (doc(weights=[0.2, 0.8]), "weights", "must be an object"),
    (doc(w_speed=0.5), "weights.speed", "unknown radar axis 'speed'; the axes are " + ", ".join(RADAR_AXES)),
    (doc(w_latency=-1), "weights.latency", "must be a finite number >= 0, got -1"),
    (doc(w_cost="0.4"), "weights.cost", "must be a finite number >= 0, got '0.4'"),
    (doc(w_cost=True), "weights.cost", "must be a finite number >= 0, got True"),
    (doc(w_cost=1.5), "weights.cost", "must be at most 1"),
    (doc(w_cost=1e-9), "weights.cost", "must be 0 or at least 0.001"),
    (doc(w_cost=0, w_correctness=0), "weights", "at least one axis needs a positive weight"),
    (doc(weights={}), "weights", "at least one axis needs a positive weight"),
    ('{"name": "n", "description": "", "weights": {"cost": 0.1, "cost": 0.9}}', "weights.cost",
     "is given more than once"),
    ('{"name": "a", "name": "b", "description": "", "weights": {"cost": 1}}', "name", "is given more than once"),
])
def test_each_refusal_names_its_field(text, field, words):
    errors = refused(text)
    assert field in errors, errors
    assert words in errors[field]


def test_the_message_reads_as_the_sliders_do():
    with pytest.raises(ScorecardError) as info:
        scorecard_from_json(doc(w_latency=-1))
    assert str(info.value) == "weights.latency: must be a finite number >= 0, got -1"
    assert [(e.field, e.message) for e in info.value.errors] == [
        ("weights.latency", "must be a finite number >= 0, got -1")]


def test_every_problem_is_reported_at_once():
    errors = refused(json.dumps({"name": "", "description": 3, "weights": {"speed": 1, "cost": -2}, "x": 1}))
    assert set(errors) == {"x", "name", "description", "weights.speed", "weights.cost"}


def test_a_missing_field_does_not_hide_the_others_problems():
    errors = refused(json.dumps({"name": "", "weights": {"latency": -1}}))
    assert errors == {"name": "must be 1-80 characters, got 0", "description": "is required",
                      "weights.latency": "must be a finite number >= 0, got -1"}


def test_direct_construction_is_validated_the_same_way():
    with pytest.raises(ScorecardError) as info:
        Scorecard("", "ok", {"latency": float("nan")})
    assert {e.field for e in info.value.errors} == {"name", "weights.latency"}


def test_long_refused_values_are_not_echoed_whole():
    message = refused(doc(w_cost="y" * 10_000))["weights.cost"]
    assert len(message) < 100


def test_reading_a_file_reads_a_bounded_prefix(tmp_path):
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (10 * MAX_SCORECARD_BYTES) + doc().encode())
    with pytest.raises(ScorecardError, match="bytes allowed"):
        read_scorecard(path)


# --- The shipped examples ----------------------------------------------------------------------

def test_example_scorecards_load_and_are_in_canonical_form():
    cards = load_scorecards()
    assert [c.name for c in cards] == ["balanced", "cost-conscious", "reliability-first", "speed-first"]
    for card in cards:
        path = EXAMPLES_DIR / f"{card.name}.json"
        assert path.read_text(encoding="utf-8") == scorecard_to_json(card)  # what the writer writes
        assert card.description.endswith(".") and 20 < len(card.description) <= 200
        assert abs(sum(card.weights.values()) - 1.0) < 1e-9  # shares that read as percentages


def test_balanced_is_the_published_default():
    balanced = read_scorecard(EXAMPLES_DIR / "balanced.json")
    assert balanced.weights == CANONICAL_POLICY.radar_weights
    report = score_runs(sample_runs())
    rows = {r.agent_id: r for r in apply_scorecard(report, balanced).rows}
    for agent in report.agents:
        assert rows[agent.agent_id].profile_score == agent.radar.profile().score


# --- Applying a scorecard: the headline never moves --------------------------------------------

def without_profile(report_json):
    for agent in report_json["agents"]:
        del agent["radar"]["weights"], agent["radar"]["profile_score"]
    return report_json


@SETTINGS
@given(cards)
def test_a_scorecard_changes_only_profile_scores_and_ranks(card):
    runs = sample_runs()
    canonical = score_runs(runs)
    before = canonical.to_json_text()
    ranking = apply_scorecard(canonical, card)
    assert canonical.to_json_text() == before  # applying reads the report, never changes it
    # The full report under the team's weights differs from the canonical one only in the profile.
    weighted = score_runs(runs, weights=card.weights)
    assert without_profile(weighted.to_json()) == without_profile(canonical.to_json())
    assert [a.rank for a in weighted.agents] == [a.rank for a in canonical.agents]
    # Each row carries the canonical headline score and rank, and the weighted profile.
    by_agent = {a.agent_id: a for a in canonical.agents}
    for row in ranking.rows:
        agent = by_agent[row.agent_id]
        assert (row.headline_score, row.headline_rank) == (agent.headline.score, agent.rank)
        assert row.profile_score == weighted.agent(row.agent_id).radar.to_json(card.weights)["profile_score"]
    scores = [r.profile_score for r in ranking.rows if r.profile_score is not None]
    assert scores == sorted(scores, reverse=True)
    assert [r.profile_rank for r in ranking.rows] == [i + 1 if r.profile_score is not None else None
                                                      for i, r in enumerate(ranking.rows)]


def hand_worked_runs():
    # a: 4 completed runs of one task, 3 successes, cost $0.01 each, no steps.
    #    correctness 75; latency null (4 of 5 latencies); cost anchors(0.01) = 0.8 -> 80;
    #    tool efficiency null; robustness: p = 3/4, 1 - 4p(1-p) = 0.25 -> 25.
    # b: 5 successes at 500 ms and $0.001: latency 100, cost 100, correctness 100, robustness 100.
    rows = [{"run_id": f"a{i}", "agent_id": "a", "task_id": "t1", "status": "completed", "success": i != 3,
             "latency_ms": 1000.0, "cost_usd": 0.01} for i in range(4)]
    rows += [{"run_id": f"b{i}", "agent_id": "b", "task_id": "t1", "status": "completed", "success": True,
              "latency_ms": 500.0, "cost_usd": 0.001} for i in range(5)]
    return runs_from_records(rows)


def test_renormalization_over_available_axes_by_hand():
    report = score_runs(hand_worked_runs())
    assert report.agent("a").radar.axes == {"correctness": 75.0, "latency": None, "cost": 80.0,
                                            "tool_efficiency": None, "robustness": 25.0}
    card = Scorecard("hand", "", {"correctness": 0.5, "latency": 0.3, "cost": 0.2})
    row = {r.agent_id: r for r in apply_scorecard(report, card).rows}["a"]
    # latency (0.3) is unavailable for a: the rest renormalize over 0.5 + 0.2 (+ robustness 0).
    assert row.profile_score == round((0.5 * 75 + 0.2 * 80) / 0.7, 2) == 76.43
    assert row.weights == pytest.approx({"correctness": 5 / 7, "cost": 2 / 7, "robustness": 0.0})


def test_weight_only_on_an_unavailable_axis_gives_no_profile_score():
    report = score_runs(hand_worked_runs())
    rows = apply_scorecard(report, Scorecard("latency only", "", {"latency": 1})).rows
    assert [(r.agent_id, r.profile_score, r.profile_rank) for r in rows] == [("b", 100.0, 1), ("a", None, None)]
    a = rows[1]
    assert (a.headline_score, a.headline_rank) == (report.agent("a").headline.score, report.agent("a").rank)
    assert a.headline_score is not None  # the headline is still there, unchanged


def test_a_scorecard_does_not_fall_back_to_default_weights():
    report = score_runs(hand_worked_runs())
    rows = {r.agent_id: r for r in apply_scorecard(report, Scorecard("cost", "", {"cost": 1})).rows}
    assert rows["a"].profile_score == 80.0  # the cost axis alone, not a 20%-each blend
    # Plain viewer weights keep the documented slider behaviour: unnamed axes take the default.
    assert {r.agent_id: r for r in profile_ranking(report, {"cost": 1})}["a"].profile_score != 80.0


def test_equal_profile_scores_rank_by_agent_id():
    rows = [{"run_id": f"{a}{i}", "agent_id": a, "task_id": "t", "status": "completed", "success": True,
             "latency_ms": 800.0, "cost_usd": 0.002} for a in ("zeta", "alpha") for i in range(3)]
    ranking = apply_scorecard(score_runs(runs_from_records(rows)), Scorecard("c", "", {"correctness": 1}))
    assert [(r.agent_id, r.profile_rank) for r in ranking.rows] == [("alpha", 1), ("zeta", 2)]


def test_ranking_json_is_plain_and_complete():
    report = score_runs(hand_worked_runs())
    card = Scorecard("hand", "Why.", {"correctness": 1})
    out = apply_scorecard(report, card).to_json()
    assert out["policy_version"] == CANONICAL_POLICY.version
    assert out["scorecard"] == json.loads(scorecard_to_json(card))
    assert [a["agent_id"] for a in out["agents"]] == ["b", "a"]
    assert set(out["agents"][0]) == {"agent_id", "profile_rank", "profile_score", "weights", "headline_rank",
                                     "headline_score"}
    json.dumps(out, allow_nan=False)


# --- A scorecard in a link: hostile text, bounded and validated ---------------------------------

SHIPPED = load_scorecards()


def link_refused(params) -> dict[str, str]:
    with pytest.raises(ScorecardError) as info:
        scorecard_from_link(params, SHIPPED)
    return {e.field: e.message for e in info.value.errors}


def test_a_link_names_a_shipped_scorecard():
    card = scorecard_from_link({"scorecard": ["speed-first"]}, SHIPPED)
    assert card == read_scorecard(EXAMPLES_DIR / "speed-first.json")
    assert scorecard_link_params(card, SHIPPED) == {"scorecard": "speed-first"}


def test_a_link_without_scorecard_parameters_names_none():
    assert scorecard_from_link({}, SHIPPED) is None
    assert scorecard_from_link({"other": ["x"], "scorecard": []}, SHIPPED) is None


def test_link_weights_read_like_a_file():
    card = scorecard_from_link({"scorecard_weights": ["cost:0.4, correctness:0.6"], "scorecard_name": ["ops team"]})
    assert card == Scorecard("ops team", "", VALID["weights"])  # axes not named weigh 0, as in a file
    assert scorecard_from_link({"scorecard_weights": ["latency:1"]}).name == LINK_DEFAULT_NAME


def test_a_custom_card_goes_into_the_link_by_its_weights_even_with_a_shipped_name():
    balanced = read_scorecard(EXAMPLES_DIR / "balanced.json")
    impostor = Scorecard("balanced", balanced.description, {"cost": 1})
    params = scorecard_link_params(impostor, SHIPPED)
    assert params == {"scorecard_weights": "cost:1.0", "scorecard_name": "balanced"}
    assert scorecard_from_link({k: [v] for k, v in params.items()}, SHIPPED).weights["cost"] == 1.0


@SETTINGS
@given(cards)
def test_any_scorecard_travels_through_its_link_with_exact_weights(card):
    params = {k: [v] for k, v in scorecard_link_params(card, SHIPPED).items()}
    assert all(len(v[0]) <= LINK_MAX_CHARS for v in params.values())
    back = scorecard_from_link(params, SHIPPED)
    assert (back.name, back.weights) == (card.name, card.weights)  # floats compared exactly


@pytest.mark.parametrize("params, field, words", [
    ({"scorecard": ["fastest"]}, "scorecard", "no shipped scorecard is named 'fastest'; the shipped ones are "
                                              "balanced, cost-conscious, reliability-first, speed-first"),
    ({"scorecard": ["balanced", "speed-first"]}, "scorecard", "is given more than once"),
    ({"scorecard": ["x" * 301]}, "scorecard", "at most 300 characters, got 301"),
    ({"scorecard": ["balanced"], "scorecard_weights": ["cost:1"]}, "scorecard", "give it alone"),
    ({"scorecard_name": ["ops"]}, "scorecard_weights", "is required with scorecard_name"),
    ({"scorecard_weights": ["cost"]}, "scorecard_weights", "expected axis:weight, got 'cost'"),
    ({"scorecard_weights": [",".join(f"cost:{i}" for i in range(6))]}, "scorecard_weights", "at most 5"),
    ({"scorecard_weights": ["cost:0.5,cost:0.5"]}, "weights.cost", "is given more than once"),
    ({"scorecard_weights": ["cost:-1"]}, "weights.cost", "must be a finite number >= 0, got -1"),
    ({"scorecard_weights": ["cost:-"]}, "weights.cost", "must be a number such as 0.25, got '-'"),
    ({"scorecard_weights": ["cost:nan"]}, "weights.cost", "must be a number"),
    ({"scorecard_weights": ["cost:inf"]}, "weights.cost", "must be a number"),
    ({"scorecard_weights": ["cost:0x10"]}, "weights.cost", "must be a number"),
    ({"scorecard_weights": ["cost:1e400"]}, "weights.cost", "must be a finite number >= 0, got inf"),
    ({"scorecard_weights": ["cost:2"]}, "weights.cost", "must be at most 1"),
    ({"scorecard_weights": ["cost:0.0001"]}, "weights.cost", "must be 0 or at least 0.001"),
    ({"scorecard_weights": ["cost:0,latency:0"]}, "weights", "at least one axis needs a positive weight"),
    ({"scorecard_weights": ["<script>:1"]}, "weights.<script>", "unknown radar axis '<script>'"),
    ({"scorecard_weights": ["cost:1"], "scorecard_name": ["bad\x00name"]}, "name", "U+0000"),
    ({"scorecard_weights": ["cost:1"], "scorecard_name": [""]}, "name", "must be 1-80 characters, got 0"),
])
def test_each_link_refusal_names_its_parameter_or_field(params, field, words):
    errors = link_refused(params)
    assert field in errors, errors
    assert words in errors[field]


def test_a_link_reports_every_refused_weight_at_once():
    assert set(link_refused({"scorecard_weights": ["speed:1,cost:-1,latency:x"]})) == {
        "weights.speed", "weights.cost", "weights.latency"}


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["scorecard", "scorecard_weights", "scorecard_name", "other"]),
                       st.lists(st.text(st.characters(exclude_categories=()), max_size=400)
                                | st.lists(st.sampled_from(["cost", "latency", ":", ",", "0.5", "1e9", "-", ".",
                                                            "speed-first", "\x00", "<", " "]),
                                           max_size=30).map("".join), max_size=3)))
def test_no_link_raises_anything_but_a_named_refusal(params):
    try:
        card = scorecard_from_link(params, SHIPPED)
    except ScorecardError as exc:
        assert exc.errors and all(e.field and e.message for e in exc.errors)
        assert all(len(e.message) < 300 for e in exc.errors)  # a long parameter is never echoed whole
    else:
        assert card is None or isinstance(card, Scorecard)


@pytest.mark.parametrize("name, expected", [
    ("ops team", "scorecard-ops-team.json"),
    ("Équipe Qualité", "scorecard-equipe-qualite.json"),
    ("../../etc/passwd", "scorecard-etc-passwd.json"),
])
def test_scorecard_file_names_are_safe(name, expected):
    assert scorecard_file_name(Scorecard(name, "", {"cost": 1})) == expected


def test_a_name_with_nothing_safe_still_gets_a_distinct_file_name():
    a = scorecard_file_name(Scorecard("漢字", "", {"cost": 1}))
    b = scorecard_file_name(Scorecard("字漢", "", {"cost": 1}))
    assert a != b and re.fullmatch(r"scorecard-team-[0-9a-f]{8}\.json", a)


def test_a_scorecards_shares_add_up_to_one_whatever_its_weights_add_up_to():
    card = Scorecard("heavy", "", {"correctness": 0.4, "cost": 0.6, "robustness": 0.3})  # 1.3 in all
    assert card.shares() == pytest.approx({"correctness": 0.4 / 1.3, "latency": 0.0, "cost": 0.6 / 1.3,
                                           "tool_efficiency": 0.0, "robustness": 0.3 / 1.3})
    assert math.fsum(card.shares().values()) == pytest.approx(1.0)
    assert card.shares_text() == ("correctness 30.8%, cost 46.2%, robustness 23.1% (weights given as 0.4, 0.6, 0.3, "
                                  "adding up to 1.3: renormalized)")
    assert Scorecard("one", "", {"correctness": 0.3, "cost": 0.7}).shares_text() == "correctness 30.0%, cost 70.0%"
