"""The view state a link carries: every query parameter read as hostile input (explorer.state, no Streamlit)."""

from __future__ import annotations

import pytest

from explorer import state
from scoring import CANONICAL_POLICY
from scoring.contract.policy import FIELDS, policy_from_dict, policy_to_dict

AGENTS = ["steady-pro", "swift-lite", "crashy-runner"]


def test_a_good_link_sets_every_piece_of_state():
    parsed = state.parse({"agent": "swift-lite", "versus": "steady-pro", "agents": ["steady-pro", "crashy-runner"],
                          "w_correctness": "60", "w_latency": "10", "w_cost": "10", "w_tool_efficiency": "10",
                          "w_robustness": "10", "intervals": "1", "replicates": "500", "seed": "7",
                          "policy.success_weight": "0.3", "policy.cost_weight": "0.4"}, AGENTS)
    assert parsed.notices == [] and parsed.notes == []
    assert parsed.values == {"agent": "swift-lite", "versus": "steady-pro", "agents": ["steady-pro", "crashy-runner"],
                             "weights": (60, 10, 10, 10, 10), "intervals": True, "replicates": 500, "seed": 7,
                             "policy": {"success_weight": 0.3, "cost_weight": 0.4}}


VIEW = {"agent": "crashy-runner", "versus": "swift-lite", "agents": ["swift-lite"], "weights": (20, 0, 40, 20, 20),
        "intervals": True, "replicates": 2000, "seed": 123, "level": 3, "curve": ["swift-lite", "steady-pro"],
        "tau2": "steady-pro", "timeline": ["crashy-runner"], "order": "costliest", "largest": False,
        "policy": {"success_weight": 0.5, "cost_weight": 0.2,
                   "latency_anchors": {"xs": [400.0, 2000.0, 5000.0, 10000.0], "scores": [1.0, 0.8, 0.5, 0.0]}}}


@pytest.mark.parametrize("page", ["leaderboard", "headline", "radar", "uncertainty", "sandbox", "compare", "tasks",
                                  "methodology"])
def test_every_pages_link_carries_the_whole_view(page):
    encoded = state.encode(VIEW, page)
    parsed = state.parse(encoded, AGENTS, page=page)
    assert parsed.notices == [] and parsed.notes == []
    assert parsed.values == VIEW


def test_a_link_names_only_the_agents_of_the_data_it_shows():
    """The state keeps agents chosen on another dataset (they are back when it is); the link leaves them out."""
    encoded = state.encode(VIEW, "radar", agents={"swift-lite"})
    assert (encoded["versus"], encoded["agents"], encoded["curve"]) == ("swift-lite", ["swift-lite"], ["swift-lite"])
    assert not {"agent", "tau2", "timeline"} & set(encoded)  # crashy-runner and steady-pro are not shown
    assert state.parse(encoded, {"swift-lite"}, page="radar").notices == []  # so it opens without a notice
    assert state.encode(VIEW, "radar", agents=set(AGENTS)) == state.encode(VIEW, "radar")


def test_the_runs_pages_link_leaves_its_agent_filter_alone():
    encoded = state.encode(VIEW, "runs")
    assert "agent" not in encoded  # the Runs page's own `agent` is its filter
    assert state.parse(encoded, AGENTS, page="runs").values == {k: v for k, v in VIEW.items() if k != "agent"}


def test_weights_are_written_by_axis_name():
    encoded = state.encode({"weights": (60, 20, 20, 20, 20)}, "headline")
    assert encoded == {"w_correctness": "60", "w_latency": "20", "w_cost": "20", "w_tool_efficiency": "20",
                       "w_robustness": "20"}
    assert "weights" not in encoded
    assert state.encode({"weights": [20, 20, 20, 20, 20]}, "radar") == {}  # the default, as a list or a tuple


def test_weights_by_name_need_not_name_every_axis():
    parsed = state.parse({"w_cost": "50"}, AGENTS)
    assert parsed.values == {"weights": (20, 20, 50, 20, 20)} and parsed.notices == []


def test_an_old_positional_weights_link_still_reads_with_a_note():
    parsed = state.parse({"weights": "30,20,20,20,20"}, AGENTS)
    assert parsed.values == {"weights": (30, 20, 20, 20, 20)} and parsed.notices == []
    assert len(parsed.notes) == 1
    assert "correctness 30%, latency 20%, cost 20%, tool_efficiency 20%, robustness 20%" in parsed.notes[0]
    assert "w_correctness" in parsed.notes[0]


def test_named_weights_win_over_positional_ones():
    parsed = state.parse({"weights": "30,20,20,20,20", "w_correctness": "50"}, AGENTS)
    assert parsed.values == {"weights": (50, 20, 20, 20, 20)}
    assert "both given" in parsed.notes[0]


def test_defaults_are_left_out_of_a_link():
    defaults = {k.name: k.default for k in state.KEYS}
    for page in ("leaderboard", "radar", "sandbox", "runs"):
        assert state.encode(defaults, page) == {}


def test_a_policy_equal_to_the_canonical_one_is_not_a_change():
    canonical = policy_to_dict(CANONICAL_POLICY)
    parsed = state.parse({"policy.success_weight": str(canonical["success_weight"])}, AGENTS)
    assert "policy" not in parsed.values and parsed.notices == []


def test_a_constant_out_of_its_bounds_is_refused_once_not_again_in_a_sum():
    """success_weight=2 was refused for its range and then for a sum counting the value already refused (a reviewer's
    link, 2026-12-06): one notice. A sum still off without it is said on its own."""
    assert state.parse({"policy.success_weight": "2"}, AGENTS).notices == [
        "policy.success_weight: must lie in [0, 1], got 2.0; ignored"]
    both = state.parse({"policy.success_weight": "2", "policy.cost_weight": "0.5"}, AGENTS)
    assert both.values == {} and len(both.notices) == 2 and "must sum to 1, got 1.2" in both.notices[1]


@pytest.mark.parametrize(("params", "expected"), [
    ({"agent": "nobody"}, "agent: 'nobody' is not an agent of the dataset shown; ignored"),
    ({"agent": "<script>alert(1)</script>"}, "is not an agent of the dataset shown"),
    ({"weights": "60,10,10"}, "weights: must be 5 whole numbers separated by commas"),
    ({"weights": "61,10,10,10,10"}, "weights: must be 5 whole numbers from 0 to 100 in steps of 5"),
    ({"weights": "-5,10,10,10,10"}, "weights: must be 5 whole numbers"),
    ({"weights": "nan,10,10,10,10"}, "weights: must be 5 whole numbers"),
    ({"weights": "1e308,10,10,10,10"}, "weights: must be 5 whole numbers"),
    ({"w_correctness": "61"}, "w_correctness: must be a whole number from 0 to 100 in steps of 5, got '61'"),
    ({"w_cost": "-5"}, "w_cost: must be a whole number from 0 to 100"),
    ({"w_cost": "nan"}, "w_cost: must be a whole number"),
    ({"w_speed": "10"}, "w_speed: not a radar axis (the axes are correctness, latency, cost"),
    ({"intervals": "maybe"}, "intervals: must be 1 or 0, got 'maybe'"),
    ({"replicates": "99"}, "replicates: must be a whole number from 100 to 5,000, got '99'"),
    ({"replicates": "9" * 400}, "replicates: must be a whole number from 100 to 5,000"),
    ({"seed": "-1"}, "seed: must be a whole number from 0 to 2,147,483,647, got '-1'"),
    ({"seed": "0x10"}, "seed: must be a whole number"),
    ({"agents": AGENTS + ["ghost"]}, "agents: 'ghost' not an agent of the dataset shown"),
    ({"colour": "red"}, "colour: not a setting this explorer reads; ignored"),
    ({"policy.nope": "1"}, "policy.nope: not a policy constant; ignored"),
    ({"policy.success_weight": "abc"}, "policy.success_weight: must be a number, got 'abc'; ignored"),
    ({"policy.success_weight": "inf"}, "policy.success_weight: must be a number"),
    ({"policy.success_weight": "0.9"}, "must sum to 1"),
    ({"policy.latency_anchors": "1:2:3"}, "policy.latency_anchors: must be position:score pairs"),
    ({"policy.pass_k_levels": ",".join(["1"] * 500)}, "policy.pass_k_levels"),
])
def test_a_bad_parameter_is_ignored_with_a_specific_notice(params, expected):
    parsed = state.parse(params, AGENTS)
    assert parsed.values == {}
    assert len(parsed.notices) >= 1
    assert expected in " ".join(parsed.notices)


def test_one_bad_parameter_does_not_spoil_the_others():
    parsed = state.parse({"agent": "swift-lite", "seed": "x", "w_robustness": "100", "w_correctness": "0",
                          "w_latency": "0", "w_cost": "0", "w_tool_efficiency": "0", "w_speed": "5"}, AGENTS)
    assert parsed.values == {"agent": "swift-lite", "weights": (0, 0, 0, 0, 100)}
    assert [n.split(":")[0] for n in parsed.notices] == ["seed", "w_speed"]


def test_an_invalid_sandbox_constant_is_dropped_and_the_valid_ones_kept():
    parsed = state.parse({"policy.success_weight": "0.3", "policy.cost_weight": "0.4",
                          "policy.radar_window": "-3"}, AGENTS)
    assert parsed.values["policy"] == {"success_weight": 0.3, "cost_weight": 0.4}
    assert any(n.startswith("policy.radar_window") for n in parsed.notices)
    policy_from_dict({**policy_to_dict(CANONICAL_POLICY), **parsed.values["policy"]})  # the policy is valid


def test_a_link_is_bounded_before_anything_is_read():
    many = {f"p{i}": "x" for i in range(5000)}
    parsed = state.parse(many, AGENTS)
    assert f"only the first {state.MAX_PARAMS} are read" in parsed.notices[0]
    assert len(parsed.notices) <= state.MAX_PARAMS + 1
    long_value = state.parse({"agent": "a" * 100_000}, AGENTS)
    assert long_value.values == {}
    assert f"longer than {state.MAX_VALUE_CHARS} characters" in long_value.notices[0]
    assert all(len(n) < 400 for n in long_value.notices)  # a refused value is quoted shortened
    repeated = state.parse({"agents": ["steady-pro"] * 1000}, AGENTS)
    assert repeated.values == {"agents": ["steady-pro"]}
    assert f"only the first {state.MAX_REPEATS} are read" in repeated.notices[0]
    long_name = state.parse({"x" * 1000: "1"}, AGENTS)
    assert long_name.values == {} and "longer than 100 characters" in long_name.notices[0]


def test_a_link_past_the_parameter_limit_is_not_counted_past_it():
    # The app's reader takes one parameter more than it reads (a hostile link is never read whole), so the notice
    # cannot say how many there were: it said "the link has 41 parameters" of a link of 60.
    parsed = state.parse({f"p{i}": "x" for i in range(state.MAX_PARAMS + 1)}, AGENTS)
    assert parsed.notices[0] == (f"the link has more than {state.MAX_PARAMS} parameters; only the first "
                                 f"{state.MAX_PARAMS} are read")


def test_streamlit_and_source_parameters_are_not_reported_as_unknown():
    parsed = state.parse({"embed": "true", "data": "upload", "sha": "0" * 16}, AGENTS)
    assert parsed.notices == [] and parsed.values == {}


def test_only_limits_what_is_read():
    parsed = state.parse({"agent": "swift-lite", "seed": "5"}, (), only=["seed"])
    assert parsed.values == {"seed": 5} and parsed.notices == []


def test_every_policy_constant_survives_a_link():
    values = policy_to_dict(CANONICAL_POLICY)
    for spec in FIELDS:
        text = state.policy_value_text(spec, values[spec.name])
        assert state.policy_value(spec, text) == values[spec.name] or \
            list(state.policy_value(spec, text)) == list(values[spec.name])


# --------------------------------------------------------------------------- the data source


def test_the_sample_is_the_default_source():
    assert state.parse_source({}, {}) == (state.Source(), [])


def test_a_repeated_data_source_says_the_first_is_used():
    """data=upload&sha=...&data=sample used the first without a word, where every other parameter says so."""
    source, notices = state.parse_source({"data": ["upload", "sample"], "sha": "0123456789abcdef"}, {})
    assert source == state.Source("upload", sha="0123456789abcdef")
    assert notices == ["data: given 2 times; the first is used"]
    assert state.encode_source("sample") == {}


def test_an_upload_is_named_by_its_hash_prefix():
    sha = "ab" * 32
    params = state.encode_source("upload", sha256=sha)
    assert params == {"data": "upload", "sha": sha[:state.SHA_CHARS]}
    source, notices = state.parse_source(params, {})
    assert notices == [] and source.kind == "upload" and source.waits_for_data and sha.startswith(source.sha)


def test_a_dataset_read_with_its_invalid_rows_excluded_says_so_in_its_link():
    sha = "cd" * 32
    for kind, given in (("upload", {"sha256": sha}), ("import", {"sha256": sha}),
                        ("connection", {"connection": "warehouse", "table": "runs"})):
        params = state.encode_source(kind, excluded=True, **given)
        assert params["exclude"] == "invalid"
        source, notices = state.parse_source(params, {"warehouse": ["runs"]})
        assert notices == [] and source.kind == kind and source.excluded
        assert "exclude" not in state.encode_source(kind, **given)  # not excluded: not said
    assert state.encode_source("sample", excluded=True) == {}  # the sample has no invalid row
    source, notices = state.parse_source({"exclude": "invalid"}, {})  # a hand-written link on the sample
    assert source == state.Source() and notices == ["exclude: the sample data has no invalid row to exclude; ignored"]
    source, notices = state.parse_source({"data": "upload", "sha": sha[:16], "exclude": "yes"}, {})
    assert not source.excluded and notices == ["exclude: must be invalid, got 'yes'; ignored"]


def test_a_viewers_own_database_url_is_never_put_in_a_link():
    params = state.encode_source("url", connection="postgresql://u:secret@h/db", table="runs")
    assert params == {"data": "url"}
    assert "secret" not in str(params)
    source, notices = state.parse_source(params, {})
    assert source == state.Source() and "cannot name" in notices[0]


def test_an_operators_connection_must_exist():
    connections = {"prod": ["runs", "runs_2026"]}
    params = state.encode_source("connection", connection="prod", table="runs_2026")
    assert params == {"data": "db:prod/runs_2026"}
    source, notices = state.parse_source(params, connections)
    assert (source.kind, source.connection, source.table, notices) == ("connection", "prod", "runs_2026", [])
    for bad in ("db:prod/secret_table", "db:other/runs", "db:../../etc/passwd", "db:prod/runs;drop"):
        source, notices = state.parse_source({"data": bad}, connections)
        assert source == state.Source() and "not a connection and table this deployment offers" in notices[0]


def test_a_notice_quotes_bidi_and_invisible_characters_escaped():
    """A right-to-left override in a link reversed the notice's own words; a zero-width space made a refused value
    read as a real agent's name (a reviewer's hostile links)."""
    parsed = state.parse({"agent": "\u202esteady-pro", "versus": "steady-pro\u200b", "\u202eagent\u2066": "x"},
                         AGENTS)
    words = " | ".join(parsed.notices)
    assert "\u202e" not in words and "\u200b" not in words and "\u2066" not in words  # none raw
    assert "'\\u202esteady-pro'" in words and "'steady-pro\\u200b'" in words and "\\u202eagent\\u2066" in words


@pytest.mark.parametrize(("params", "expected"), [
    ({"data": "upload"}, "the link gives no sha"),
    ({"data": "upload", "sha": "xyz"}, "sha: must be 16 hex digits"),
    ({"data": "ftp://x"}, "data: must be sample, upload, import or db:<connection>/<table>"),
])
def test_a_bad_source_falls_back_to_the_sample_with_a_notice(params, expected):
    source, notices = state.parse_source(params, {})
    assert source == state.Source() and expected in notices[0]


def test_the_radars_default_agents_follow_the_focus():
    from explorer.tables import agent_to_overtake, focus_and_neighbours

    board = ["steady-pro", "swift-lite", "blackbox-api", "crashy-runner", "deep-thinker"]
    assert focus_and_neighbours(board, "crashy-runner") == ["crashy-runner", "blackbox-api", "deep-thinker"]
    assert focus_and_neighbours(board, "steady-pro") == ["steady-pro", "swift-lite", "blackbox-api"]
    assert focus_and_neighbours(board, "deep-thinker") == ["deep-thinker", "crashy-runner", "blackbox-api"]
    assert focus_and_neighbours(board, None) == board[:3] == focus_and_neighbours(board, "ghost")
    assert focus_and_neighbours(board[:2], "swift-lite") == ["swift-lite", "steady-pro"]
    assert agent_to_overtake(board, "crashy-runner") == "blackbox-api"
    assert agent_to_overtake(board, "steady-pro") == "swift-lite"  # the first has no one above: the next one


def test_a_pages_own_parameters_are_left_to_it():
    runs_link = {"agent": ["a", "b"], "task": "t1", "status": "failed", "seed": "5"}
    parsed = state.parse(runs_link, ["a", "b"], page="runs")
    assert parsed.values == {"seed": 5} and parsed.notices == []
    scorecard = state.parse({"scorecard": "speed-first", "scorecard_weights": "correctness:1"}, [], page="radar")
    assert scorecard.notices == [] and scorecard.values == {}


def test_a_links_exclusion_reaches_only_the_dataset_it_names(monkeypatch):
    """A reviewer's case: a link's exclude=invalid on db:ops/runs excluded the rows of another table read after."""
    from types import SimpleNamespace

    sha = "ef" * 32
    for source, shown, applies in (
            (state.Source("connection", connection="ops", table="runs", excluded=True), ((), "ops", "runs"), True),
            (state.Source("connection", connection="ops", table="runs", excluded=True), ((), "ops", "other"), False),
            (state.Source("connection", connection="ops", table="runs", excluded=True), (("x" * 64,), None, None),
             False),
            (state.Source("upload", sha=sha[:16], excluded=True), ((sha,), None, None), True),
            (state.Source("upload", sha=sha[:16], excluded=True), (("0" * 64,), None, None), False),
            (state.Source("upload", sha=sha[:16]), ((sha,), None, None), False)):
        session = {state.LINK: state.Link(source, {}, [])}
        monkeypatch.setattr(state, "_st", lambda session=session: SimpleNamespace(session_state=session))
        assert state.excludes_invalid_rows(*shown) is applies, (source, shown)


def test_the_fullest_view_s_link_is_read_whole():
    """Every setting a view can hold fits the parameters a link is read for, on every page: a sandbox with every
    constant changed, the radar's weights, Compare's datasets, a scorecard, the Runs filter, an upload's source and
    Streamlit's own. At 40 such a link was cut with a notice and the view not restored (it writes 53 names)."""
    from explorer.pages import PAGES

    policy = {"success_weight": 0.5, "execution_weight": 0.25, "cost_weight": 0.25, "latency_share_of_execution": 0.6,
              "consistency_min_latencies": 6, "neutral_consistency": 0.4, "score_decimals": 3,
              "latency_anchors": {"xs": [400.0, 2000.0, 5000.0, 10000.0], "scores": [1.0, 0.8, 0.5, 0.0]},
              "cost_anchors": {"xs": [0.002, 0.01, 0.05, 0.1, 0.2], "scores": [1.0, 0.8, 0.5, 0.2, 0.0]},
              "steps_anchors": {"xs": [3.0, 5.0, 10.0, 20.0, 40.0], "scores": [1.0, 0.8, 0.5, 0.2, 0.0]},
              "radar_window": 50, "radar_latency_min_runs": 4, "robustness_min_outcomes": 3,
              "default_radar_weights": {"correctness": 0.4, "latency": 0.15, "cost": 0.15, "tool_efficiency": 0.15,
                                        "robustness": 0.15},
              "pass_k_levels": [1, 2, 3], "pass_k_min_outcomes": 4}
    assert set(policy) == {f.name for f in FIELDS}
    fullest = {"agent": "steady-pro", "versus": "swift-lite", "agents": AGENTS, "weights": (40, 15, 15, 15, 15),
               "intervals": True, "badge": "swift-lite", "replicates": 2000, "seed": 7, "policy": policy,
               "compare": "datasets",
               "baseline": "upload:0123456789abcdef", "new": "import:fedcba9876543210",
               "pair": [("steady-pro", "swift-lite")], "level": 3, "curve": AGENTS[:2], "tau2": "crashy-runner",
               "timeline": AGENTS[1:], "order": "costliest", "largest": False, "receipt": "sandbox"}
    assert set(fullest) == {k.name for k in state.KEYS}
    sizes = []
    for page in PAGES:
        own = state.PAGE_PARAMS.get(page.name, frozenset())
        carried = {name: "x" for names in state.PAGE_PARAMS.values() for name in names if name not in own}
        link = {"data": "upload", "sha": "0" * 16, "exclude": "invalid", "embed": "true", "embed_options": "x",
                **state.encode(fullest, page.name), **dict.fromkeys(own, "x"),
                **{(state.RUNS_FILTER_PREFIX + k if k in state.PAGE_PARAMS["runs"] else k): v
                   for k, v in carried.items()}}
        sizes.append(len(link))
        names = {param: name for name, param in state.PAGE_ALIASES.get(page.name, {}).items()}  # as the app reads
        parsed = state.parse({names.get(k, k): v for k, v in link.items() if k not in own}, AGENTS)
        assert not any("parameters; only the first" in n for n in parsed.notices), (page.name, len(link))
        assert state.encode(parsed.values, page.name) == state.encode(fullest, page.name), page.name
    assert max(sizes) == state.MAX_PARAMS == 53  # the bound is the fullest view, no more
