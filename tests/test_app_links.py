"""Links: the app's URL carries the view, across pages and into a fresh session (AppTest through app.py)."""

from __future__ import annotations

import hashlib

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import EDGE_CSV

TIMEOUT = 60


def app(**params: str | list[str]) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"views/{page}.py")
    at.run()
    assert not at.exception, at.exception
    return at


def warnings(at: AppTest) -> str:
    return "\n".join(w.value for w in at.warning)


def link_text(at: AppTest) -> str:
    return "\n".join(c.value for c in at.sidebar.code)


def test_headline_reads_the_agent_from_the_link():
    at = go(app(agent="crashy-runner"), "headline")
    assert at.selectbox(key="headline_agent").value == "crashy-runner"
    assert "agent=crashy-runner" in link_text(at)


def test_the_agent_is_shared_by_the_pages_and_kept_after_leaving():
    at = go(app(), "headline")
    at.selectbox(key="headline_agent").set_value("newcomer").run()
    go(at, "leaderboard")
    go(at, "uncertainty")
    assert at.selectbox(key="sensitivity_agent").value == "newcomer"
    go(at, "headline")
    assert at.selectbox(key="headline_agent").value == "newcomer"
    assert at.query_params["agent"] == "newcomer"


AXES = ("correctness", "latency", "cost", "tool_efficiency", "robustness")


def sliders(at: AppTest) -> list[int]:
    return [at.slider(key=f"weight_{a}").value for a in AXES]


def test_radar_weights_survive_another_page_and_reach_the_url():
    at = go(app(), "radar")
    at.slider(key="weight_correctness").set_value(60).run()
    assert at.query_params["w_correctness"] == "60" and at.query_params["w_cost"] == "20"
    go(at, "headline")
    assert at.query_params["w_correctness"] == "60"  # every page's link carries the whole view
    assert "w_correctness=60&w_latency=20&w_cost=20" in link_text(at)
    go(at, "radar")
    assert at.slider(key="weight_correctness").value == 60


def test_the_radar_reset_puts_the_sliders_and_the_link_back_to_the_defaults():
    # The reset button reruns only the weights' part and the link (views/radar.py): the sliders must still show the
    # defaults (a value a callback writes does not reach the browser after st.rerun; state.reseed) and the link
    # must drop the weights.
    at = go(app(), "radar")
    at.slider(key="weight_correctness").set_value(60).run()
    at.slider(key="weight_cost").set_value(0).run()
    assert sliders(at) == [60, 20, 0, 20, 20] and "w_correctness=60" in link_text(at)
    next(b for b in at.button if b.label == "Reset weights").click().run()
    assert not at.exception, at.exception
    assert sliders(at) == [20, 20, 20, 20, 20]
    assert "w_" not in link_text(at) and "w_correctness" not in at.query_params
    assert "Correctness 20.0%" in "\n".join(c.value for c in at.caption)


def test_a_link_opens_the_radar_with_its_weights_and_agents():
    at = go(app(w_latency="50", w_cost="50", w_correctness="0", w_tool_efficiency="0", w_robustness="0",
                agents=["null-pointer", "newcomer"]), "radar")
    assert sliders(at) == [0, 50, 50, 0, 0]
    assert at.multiselect(key="radar_agents").value == ["null-pointer", "newcomer"]
    assert not at.warning and not [i for i in at.info if i.icon == ":material/link:"]  # no note: read as written


def test_an_old_positional_weights_link_opens_with_a_note():
    at = go(app(weights="0,50,50,0,0"), "radar")
    assert sliders(at) == [0, 50, 50, 0, 0]
    notes = "\n".join(i.value for i in at.info).replace("\\", "")
    assert "older form: read as correctness 0%, latency 50%, cost 50%" in notes
    assert at.query_params["w_latency"] == "50" and "weights" not in at.query_params  # rewritten by name


def test_a_view_built_on_several_pages_is_in_the_link_of_any_page():
    at = go(app(), "headline")
    at.selectbox(key="headline_agent").set_value("crashy-runner").run()
    go(at, "radar")
    at.slider(key="weight_correctness").set_value(60).run()
    go(at, "leaderboard")
    at.toggle(key="leaderboard_intervals").set_value(True).run()
    go(at, "compare")
    assert (at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value) == \
        ("crashy-runner", "blackbox-api")  # the agent in focus and the one above it
    at.selectbox(key="compare_b").set_value("null-pointer").run()
    at.number_input(key="compare_seed").set_value(7).run()
    shown = {"A minus B": at.metric[2].value}
    for page in ("compare", "methodology", "tasks", "headline"):
        go(at, page)
        link = link_text(at)
        for part in ("agent=crashy-runner", "versus=null-pointer", "w_correctness=60", "intervals=1", "seed=7",
                     "agents=crashy-runner&agents=blackbox-api&agents=deep-thinker"):
            assert part in link, (page, part, link)
    params = dict(p.split("=") for p in link.split("?", 1)[1].split("&") if not p.startswith("agents="))
    params["agents"] = ["crashy-runner", "blackbox-api", "deep-thinker"]
    fresh = go(app(**params), "compare")  # a fresh session opening the link
    assert (fresh.selectbox(key="compare_a").value, fresh.selectbox(key="compare_b").value) == \
        ("crashy-runner", "null-pointer")
    assert fresh.number_input(key="compare_seed").value == 7
    assert fresh.metric[2].value == shown["A minus B"]
    go(fresh, "radar")
    assert sliders(fresh)[0] == 60
    assert fresh.multiselect(key="radar_agents").value == ["crashy-runner", "blackbox-api", "deep-thinker"]
    go(fresh, "leaderboard")
    assert fresh.toggle(key="leaderboard_intervals").value is True
    go(fresh, "headline")
    assert fresh.selectbox(key="headline_agent").value == "crashy-runner"
    assert not fresh.warning


def link_params(link: str) -> dict[str, str | list[str]]:
    """The query parameters of a copied link, a repeated one as a list (as a fresh session receives them)."""
    params: dict[str, list[str]] = {}
    for part in link.split("?", 1)[1].split("&"):
        name, value = part.split("=", 1)
        params.setdefault(name, []).append(value.replace("+", " "))
    return {k: v[0] if len(v) == 1 else v for k, v in params.items()}


def test_score_over_time_keeps_its_default_agents_in_the_link_when_the_radar_agent_is_chosen():
    """The top three were charted but never written down: choosing the radar's agent (the agent in focus) gave a
    link that charted that agent alone (a reviewer's fresh viewer, 2026-12-06)."""
    at = go(go(app(), "leaderboard"), "over_time")  # (AppTest's first switch to over_time opens the home page)
    shown = at.multiselect(key="over_time_agents").value
    assert shown == ["steady-pro", "swift-lite", "blackbox-api"]
    at.selectbox(key="over_time_radar_agent").set_value("swift-lite").run()
    link = link_text(at)
    assert "timeline=steady-pro&timeline=swift-lite&timeline=blackbox-api" in link and "agent=swift-lite" in link
    fresh = go(go(app(**link_params(link)), "leaderboard"), "over_time")
    assert fresh.multiselect(key="over_time_agents").value == shown
    assert fresh.selectbox(key="over_time_radar_agent").value == "swift-lite"


def test_the_runs_pages_link_carries_the_agent_in_focus_as_focus():
    """On the Runs page `agent` is its filter, so its link left the agent in focus out: a fresh viewer's Headline
    page opened on #1 (a reviewer, 2026-12-06). It travels there as `focus`, beside the filter."""
    at = go(go(app(agent="old-reliable"), "headline"), "runs")
    link = link_text(at)
    assert "/runs?" in link and "focus=old-reliable" in link, link
    fresh = go(go(app(**link_params(link)), "runs"), "headline")
    assert fresh.selectbox(key="headline_agent").value == "old-reliable"
    # A filter of two agents beside it: both travel, each under its own name
    filtered = go(app(agent=["null-pointer", "two-speed"], focus="old-reliable"), "runs")
    link = link_text(filtered)
    assert "agent=null-pointer&agent=two-speed" in link and "focus=old-reliable" in link, link
    assert go(filtered, "headline").selectbox(key="headline_agent").value == "old-reliable"


def test_another_pages_link_carries_the_runs_filter_and_the_runs_page_opens_on_it():
    """A link copied on the Headline page left the Runs page's filter out: whoever opened it saw every run there
    (a reviewer's fresh viewer, 2026-12-06). It travels as runs.<name> until the Runs page takes it."""
    at = go(app(status=["failed", "timeout"], task=["task-01", "task-02"]), "runs")
    assert at.multiselect(key="runs_statuses").value == ["failed", "timeout"]
    link = link_text(go(at, "headline"))
    assert "runs.task=task-01&runs.task=task-02&runs.status=failed&runs.status=timeout" in link, link
    fresh = go(go(app(**link_params(link)), "headline"), "leaderboard")
    assert "runs.status=failed" in link_text(fresh)  # carried on every page until the Runs page takes it
    assert not [w for w in warnings(fresh).splitlines() if "runs." in w]  # no notice: a parameter it reads
    go(fresh, "runs")
    assert fresh.multiselect(key="runs_statuses").value == ["failed", "timeout"]
    assert fresh.multiselect(key="runs_tasks").value == ["task-01", "task-02"]
    own = link_text(fresh)
    assert "status=failed&status=timeout" in own and "runs.status" not in own, own


def test_each_pages_own_controls_reach_the_link_and_a_fresh_session():
    # Repeatability: the curve's agents, the per-task level, the agent compared with tau2-bench's reading.
    at = go(app(), "repeatability")
    at.multiselect(key="curve_agents").set_value(["swift-lite", "crashy-runner"]).run()
    at.radio(key="task_k").set_value(5).run()
    # Score over time: its agents, the radar's agent (the agent in focus), pass^k's k (the same level).
    go(at, "over_time")
    at.multiselect(key="over_time_agents").set_value(["steady-pro", "blackbox-api"]).run()
    at.selectbox(key="over_time_radar_agent").set_value("blackbox-api").run()
    # Runs: one agent's runs, costliest first; the sandbox: rank moves in the leaderboard's order.
    go(at, "sandbox")
    at.toggle(key="largest_first").set_value(False).run()
    link = link_text(at)
    for part in ("curve=swift-lite&curve=crashy-runner", "level=5", "timeline=steady-pro&timeline=blackbox-api",
                 "agent=blackbox-api", "largest=0"):
        assert part in link, (part, link)
    fresh = go(app(**link_params(link)), "repeatability")
    assert fresh.multiselect(key="curve_agents").value == ["swift-lite", "crashy-runner"]
    assert fresh.radio(key="task_k").value == 5
    go(fresh, "over_time")
    assert fresh.multiselect(key="over_time_agents").value == ["steady-pro", "blackbox-api"]
    assert fresh.selectbox(key="over_time_radar_agent").value == "blackbox-api"
    assert fresh.segmented_control(key="over_time_k").value == 5
    go(fresh, "sandbox")
    assert fresh.toggle(key="largest_first").value is False
    # The leaderboard opens with the agent in focus selected: its panel is the view the link was made of.
    go(fresh, "leaderboard")
    assert "#3 blackbox\\-api: 76.30" in [h.value for h in fresh.subheader]
    assert not fresh.warning


def test_the_runs_pages_order_is_in_its_link():
    at = go(app(agent="swift-lite"), "runs")
    at.radio(key="runs_order").set_value("costliest").run()
    link = link_text(at)
    assert "order=costliest" in link and "agent=swift-lite" in link
    fresh = go(app(**link_params(link)), "runs")
    assert fresh.radio(key="runs_order").value == "costliest"
    def runs_table(session: AppTest):
        return next(d.value for d in session.dataframe if "Points if removed" in d.value.columns)

    assert runs_table(fresh).equals(runs_table(at))


def test_a_link_cut_to_its_limits_says_so_once_and_quotes_a_long_value_short():
    at = go(app(agents=["steady-pro"] * 12), "radar")  # read twice: its settings now, its agents once data is shown
    assert warnings(at).count("given 12 times; only the first 10 are read") == 1
    at = go(app(task="x" * 400), "runs")  # the Runs page's own filter
    assert "task 'xxx" in warnings(at) and "x" * 100 not in warnings(at)


def test_every_radar_weight_at_zero_says_why_there_is_no_profile_score():
    at = go(app(w_correctness="0", w_latency="0", w_cost="0", w_tool_efficiency="0", w_robustness="0"), "radar")
    assert any("Every weight is 0: there is no profile score" in i.value for i in at.info)
    at.slider(key="weight_cost").set_value(20).run()
    assert not any("Every weight is 0" in i.value for i in at.info)


def test_a_scorecard_opened_on_another_page_reaches_the_radar():
    at = go(app(scorecard="speed-first"), "headline")
    assert "not a setting" not in warnings(at)
    assert "scorecard=speed-first" in link_text(at)
    go(at, "radar")
    assert "Active scorecard: **speed\\-first**" in "\n".join(s.value for s in at.success)
    go(at, "tasks")
    assert "scorecard=speed-first" in link_text(at)  # in force: every page's link carries it


def test_sandbox_edits_survive_another_page_and_open_from_a_link():
    at = go(app(), "sandbox")
    at.number_input(key="success_weight_0").set_value(0.3).run()
    at.number_input(key="cost_weight_0").set_value(0.4).run()
    assert at.query_params["policy.success_weight"] == "0.3"
    go(at, "leaderboard")
    go(at, "sandbox")
    assert at.number_input(key="success_weight_0").value == 0.3
    fresh = go(app(**{"policy.success_weight": "0.3", "policy.cost_weight": "0.4"}), "sandbox")
    assert fresh.number_input(key="success_weight_0").value == 0.3
    assert fresh.number_input(key="cost_weight_0").value == 0.4
    assert "+sandbox-" in "\n".join(i.value for i in fresh.info)


def test_a_linked_sandbox_constant_is_shown_as_the_policy_holds_it():
    """A reviewer's link: 0.404 and 0.004 were shown "0.40" and "0.00" beside "edited", while 0.404 and 0.004 ruled."""
    at = go(app(**{"policy.success_weight": "0.404", "policy.execution_weight": "0.296",
                   "policy.neutral_consistency": "0.004"}), "sandbox")
    boxes = {k: at.number_input(key=f"{k}_0") for k in ("success_weight", "execution_weight", "neutral_consistency",
                                                        "cost_weight")}
    assert {k: (b.value, b.proto.format) for k, b in boxes.items()} == {
        "success_weight": (0.404, "%.3f"), "execution_weight": (0.296, "%.3f"), "neutral_consistency": (0.004, "%.3f"),
        "cost_weight": (0.3, "%.2f")}


def test_a_hostile_linked_constant_past_twelve_decimals_is_shown_with_every_digit():
    at = go(app(**{"policy.neutral_consistency": "1e-300", "policy.success_weight": "0.4000000000001",
                   "policy.execution_weight": "0.2999999999999"}), "sandbox")
    shown = {k: at.number_input(key=f"{k}_0").proto.format for k in ("neutral_consistency", "success_weight")}
    assert shown == {"neutral_consistency": "%.1e", "success_weight": "%.12e"}  # was 0.000000000000, 0.400000000000
    assert at.number_input(key="neutral_consistency_0").value == 1e-300


def test_the_leaderboard_link_carries_the_intervals_toggle_and_bootstrap_settings():
    at = go(app(intervals="1", replicates="200", seed="7"), "leaderboard")
    assert at.toggle(key="leaderboard_intervals").value is True
    assert "200 bootstrap replicates" in "\n".join(c.value for c in at.caption) and "(seed 7)" in \
        "\n".join(c.value for c in at.caption)
    go(at, "uncertainty")
    assert (at.number_input(key="replicates").value, at.number_input(key="seed").value) == (200, 7)


def test_the_leaderboard_link_carries_the_score_badge_agent():
    # A reviewer chose swift-lite in "Score badge for": the link said /?intervals=1 alone, and opened with the
    # badge of steady-pro (the first ranked), the one default left out of the link.
    at = go(app(), "leaderboard")
    assert at.selectbox(key="badge_agent_leaderboard").value == "steady-pro" and "badge" not in at.query_params
    at.selectbox(key="badge_agent_leaderboard").set_value("swift-lite")
    at.run()
    assert at.query_params["badge"] == "swift-lite"
    fresh = go(app(badge="swift-lite"), "leaderboard")
    assert fresh.selectbox(key="badge_agent_leaderboard").value == "swift-lite"
    assert any("canonical headline score** of swift-lite" in c.value.replace("\\", "") for c in fresh.caption)


def test_hostile_parameters_give_a_clear_notice_never_a_traceback():
    at = go(app(agent="<img src=x onerror=alert(1)>", weights="1e999,,", seed="-5", replicates="9" * 600,
                intervals="maybe", data="db:../../etc/passwd", colour="red",
                **{"policy.success_weight": "NaN", "policy.radar_window": "-1"}), "headline")
    shown = warnings(at)
    text = shown.replace("\\", "")  # markdown escapes removed: the text a reader sees
    for expected in ("is not an agent of the dataset shown", "weights: must be 5 whole numbers",
                     "seed: must be a whole number", "replicates: a value longer than", "intervals: must be 1 or 0",
                     "is not a connection and table this deployment offers", "colour: not a setting",
                     "policy.success_weight: must be a number", "policy.radar_window"):
        assert expected in text, expected
    assert "<img" not in shown.replace("\\<img", "")  # escaped before it reached markdown
    assert at.selectbox(key="headline_agent").value == "steady-pro"  # the default, not the refused agent


def test_an_agent_kept_from_another_dataset_stays_out_of_the_link_until_that_dataset_is_back():
    at = go(app(agent="crashy-runner"), "leaderboard")
    assert "agent=crashy-runner" in link_text(at)
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("edge.csv", EDGE_CSV, "text/csv")).run()  # it has no crashy-runner
    assert not at.exception and any(c.value.startswith("Uploaded\\: edge") for c in at.sidebar.caption)
    assert "agent=" not in link_text(at) and "agent" not in at.query_params
    assert not warnings(at)
    at.radio(key="source_kind").set_value("Sample data").run()
    assert "agent=crashy-runner" in link_text(at)  # the focus was kept for it


def test_a_runs_link_made_on_an_upload_keeps_its_filter_until_that_file_is_shown():
    """A reviewer's room: the filter of a Runs link made on an upload was judged against the sample shown while the
    link waited ("agent 'healthy' is not in this data"), cut from the URL, and gone once the file was uploaded."""
    sha = hashlib.sha256(EDGE_CSV).hexdigest()[:16]
    at = go(app(data="upload", sha=sha, agent="healthy", task="t1"), "runs")
    assert any("This link's filter waits for its file" in i.value for i in at.info)
    assert not warnings(at)  # nothing judged against the sample
    assert (at.query_params["agent"], at.query_params["task"]) == ("healthy", "t1")  # kept while it waits
    assert "agent=healthy&task=t1" in link_text(at)
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("edge.csv", EDGE_CSV, "text/csv")).run()
    assert not at.exception
    assert (at.multiselect(key="runs_agents").value, at.multiselect(key="runs_tasks").value) == (["healthy"], ["t1"])
    assert not any("waits for its file" in i.value for i in at.info) and not warnings(at)


def test_a_runs_link_past_its_bounds_says_what_it_left_out():
    at = go(app(task=[f"t{i:05d}" for i in range(300)], agent=["x" * 600, "steady-pro"]), "runs")
    said = warnings(at).replace("\\", "")  # markdown escapes dropped
    assert "agent: a value longer than 500 characters" in said and "task: 100 values past the first 200" in said
    assert "and 197 more values are not in this data" in said and len(said) < 1_000  # not every value listed
    assert at.multiselect(key="runs_agents").value == ["steady-pro"]


def test_a_link_to_an_upload_waits_for_that_file():
    at = go(app(data="upload", sha="0123456789abcdef", agent="someone"), "headline")
    assert "sha256 starts with `0123456789abcdef`" in "\n".join(i.value for i in at.info)
    assert "someone" not in warnings(at)  # the agent is judged once the expected file is shown
    # While it waits, the page's URL and link keep the upload and the agent (a reload or a copy loses neither)
    assert (at.query_params["data"], at.query_params["sha"], at.query_params["agent"]) == (
        "upload", "0123456789abcdef", "someone")
    assert "data=upload&sha=0123456789abcdef" in link_text(at) and "agent=someone" in link_text(at)


def test_a_link_to_an_upload_with_nothing_else_says_so_and_keeps_it():
    """Before, a link naming only its upload opened on the sample without a word, and its URL lost the upload."""
    at = go(app(data="import", sha="0123456789abcdef"), "leaderboard")
    assert "sha256 starts with `0123456789abcdef`" in "\n".join(i.value for i in at.info)
    assert "the table with its saved mapping (JSON)" in "\n".join(i.value for i in at.info)  # how it was read
    assert (at.query_params["data"], at.query_params["sha"]) == ("import", "0123456789abcdef")
    go(at, "headline")  # every page says so and keeps it until the file is uploaded
    assert "sha256 starts with `0123456789abcdef`" in "\n".join(i.value for i in at.info)
    assert "data=import&sha=0123456789abcdef" in link_text(at)


def test_balance_weights_scales_the_headline_weights_to_1_and_keeps_them_in_the_link():
    at = go(app(), "sandbox")
    at.number_input(key="success_weight_0").set_value(0.5).run()
    assert "must sum to 1" in "\n".join(e.value for e in at.error)
    at.button(key="balance_weights").click().run()
    values = [at.number_input(key=f"{n}_1").value for n in ("success_weight", "execution_weight", "cost_weight")]
    assert values == [0.46, 0.27, 0.27]
    assert not at.error
    assert at.query_params["policy.success_weight"] == "0.46"


def test_a_scorecard_link_is_the_radar_pages_own_and_stays_in_its_link():
    at = go(app(scorecard="speed-first"), "radar")
    assert "not a setting" not in warnings(at)
    assert at.query_params["scorecard"] == "speed-first"
    assert "scorecard=speed-first" in link_text(at)
    weights = [at.query_params[f"w_{a}"] for a in AXES]  # the sliders the scorecard set, kept when it is left
    go(at, "headline")
    go(at, "radar")
    assert [at.query_params[f"w_{a}"] for a in AXES] == weights


def test_the_link_is_offered_even_when_the_page_stops_early():
    at = go(app(), "sandbox")
    at.number_input(key="success_weight_0").set_value(0.5).run()  # refused: the page stops at the error
    assert "must sum to 1" in "\n".join(e.value for e in at.error)
    assert link_text(at).endswith("/sandbox")
    assert [b.label for b in at.sidebar.get("download_button")][:1] == ["Review pack (HTML)"]


def test_no_page_ends_with_st_stop():
    # The sidebar's link and pack are drawn after the page (app.py): a page that called st.stop() would leave the
    # meeting without a link. Pages end early with explorer.pages.end_page(), which the test above exercises.
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    stopping = [str(path.relative_to(root)) for path in [root / "app.py", *sorted((root / "views").glob("*.py")),
                                                         *sorted((root / "explorer").glob("*.py"))]
                if "st.stop()" in path.read_text(encoding="utf-8").replace("``st.stop()``", "")]
    assert stopping == ["explorer/pages.py"], stopping  # end_page() itself, for a page run on its own


def test_the_sandbox_receipts_policy_is_in_the_link_and_a_link_restores_it():
    """The receipt under the sandbox's policy was not in the link: it opened on the canonical receipt."""
    at = go(app(**{"policy.success_weight": "0.5", "policy.cost_weight": "0.2"}), "sandbox")
    assert at.radio(key="receipt_policy").value == "canonical" and "receipt=" not in link_text(at)
    at.radio(key="receipt_policy").set_value("sandbox").run()
    assert at.query_params["receipt"] == "sandbox" and "receipt=sandbox" in link_text(at)
    def receipt(test: AppTest) -> str:  # the receipt shown, without the time it was made
        return "\n".join(line for e in test.get("markdown") if e.proto.body.startswith("# Score receipt")
                         for line in e.proto.body.splitlines() if not line.startswith("- Made:"))

    shown = receipt(at)
    assert "**sandbox policy, not canonical**" in shown, shown[:300]  # the sandbox's receipt
    restored = go(app(**{"policy.success_weight": "0.5", "policy.cost_weight": "0.2", "receipt": "sandbox"}),
                  "sandbox")
    assert restored.radio(key="receipt_policy").value == "sandbox"
    assert receipt(restored) == shown
    refused = go(app(receipt="both"), "sandbox")  # a value not offered: refused in words, the default shown
    assert "receipt\\: must be one of canonical, sandbox, got 'both'" in warnings(refused)
    assert refused.radio(key="receipt_policy").value == "canonical"


@pytest.mark.parametrize("page", ["repeatability", "over_time"])
def test_a_linked_level_the_page_does_not_offer_is_said_and_the_link_follows_what_is_shown(page):
    """level=2 parses (1 to 1,000) but the levels are 1, 3 and 5: the page showed pass^1 without a word and its link
    kept level=2."""
    at = go(go(app(level="2"), "leaderboard"), page)  # (AppTest opens a first switch to over_time on the home page)
    said = "\n".join(c.value for c in at.caption).replace("\\", "")
    assert "The level asked for, pass^2, is not offered here (only pass^1, pass^3, pass^5): pass^1 is shown." in said
    assert "level" not in at.query_params and "level=" not in link_text(at)  # pass^1, the default
    # ... and selected (Score over time's control showed no level selected under the words "pass^1 is shown")
    shown = at.radio(key="task_k") if page == "repeatability" else at.get("button_group")[0]
    assert shown.value in (1, [1]), shown.value
    kept = go(go(app(level="3"), "leaderboard"), page)  # an offered level: no word, kept
    assert "is not offered here" not in "\n".join(c.value for c in kept.caption)
    assert kept.query_params["level"] == "3"


BAD = (b"run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n"
       b"r1,a,t,completed,true,100,0.01\nr2,a,t,completed,true,abc,0.01\nr3,a,t,completed,false,120,0.02\n")


def test_a_link_made_after_excluding_the_invalid_rows_brings_the_exclusion_back():
    """A newcomer's review: a link made after "Exclude the invalid rows" said only "upload that file"; uploaded, the
    file was refused again, and the view came back only after a second click."""
    at = go(app(), "leaderboard")
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("bad.csv", BAD, "text/csv")).run()
    (exclude,) = [b for b in at.button if b.key == "exclude_invalid"]
    exclude.click().run()
    go(at, "headline")
    sha = hashlib.sha256(BAD).hexdigest()[:16]
    assert f"data=upload&sha={sha}&exclude=invalid" in link_text(at)
    assert (at.query_params["sha"], at.query_params["exclude"]) == (sha, "invalid")

    fresh = go(app(data="upload", sha=sha, exclude="invalid", agent="a"), "headline")  # a viewer opens the link
    said = "\n".join(i.value for i in fresh.info)
    assert "its invalid rows are then excluded, as they were when the link was made" in said
    assert not warnings(fresh)  # exclude is read, not "not a setting"
    assert "exclude=invalid" in link_text(fresh) and fresh.query_params["exclude"] == "invalid"  # kept while waiting
    fresh.radio(key="source_kind").set_value("Upload a file").run()
    fresh.file_uploader(key="upload").set_value(("bad.csv", BAD, "text/csv")).run()
    assert not fresh.exception and not fresh.error  # not refused: excluded as the link says
    assert fresh.session_state["dataset"].exclude_invalid
    assert any("1 excluded row" in c.value for c in fresh.sidebar.caption), [c.value for c in fresh.sidebar.caption]
    assert "exclude=invalid" in link_text(fresh)

    # Another file (not the link's) is read as it is: refused, the exclusion offered, not applied.
    other = go(app(data="upload", sha=sha, exclude="invalid"), "leaderboard")
    other.radio(key="source_kind").set_value("Upload a file").run()
    other.file_uploader(key="upload").set_value(("other.csv", BAD + b"r4,a,t,completed,maybe,1,0.1\n",
                                                 "text/csv")).run()
    assert other.error and not other.session_state["dataset"].exclude_invalid


def test_a_links_exclude_must_say_invalid():
    at = go(app(exclude="rows"), "leaderboard")
    assert "exclude: must be invalid, got 'rows'; ignored" in warnings(at).replace("\\", "")
    assert "exclude" not in link_text(at)


def test_back_restores_the_settings_of_the_url_it_goes_back_to():
    """A reviewer moved the Correctness slider twice and picked two agents, then pressed Back: the URL and the view
    stayed as they were, three presses in a row (every run wrote the view over the URL the browser restored)."""
    at = go(app(), "radar")
    at.slider(key="weight_correctness").set_value(40).run()
    before = {k: at.query_params[k] for k in at.query_params}
    at.slider(key="weight_correctness").set_value(60).run()
    assert at.query_params["w_correctness"] == "60"
    at.query_params.clear()  # Back: the browser restores the URL of the 40
    for name, value in before.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    assert at.slider(key="weight_correctness").value == 40 and at.query_params["w_correctness"] == "40"
    go(at, "headline")
    at.selectbox(key="headline_agent").set_value("two-speed").run()
    at.selectbox(key="headline_agent").set_value("premium-max").run()
    at.query_params["agent"] = "two-speed"  # Back once
    at.run()
    assert at.selectbox(key="headline_agent").value == "two-speed" and at.query_params["agent"] == "two-speed"
    at.query_params["agent"] = "premium-max"  # Forward
    at.run()
    assert at.selectbox(key="headline_agent").value == "premium-max"
    del at.query_params["w_correctness"]  # Back to a URL from before the slider moved: its default again
    at.run()
    assert "w_correctness" not in at.query_params and at.query_params["agent"] == "premium-max"
    go(at, "radar")
    assert at.slider(key="weight_correctness").value == 20


def test_a_page_opened_from_the_sidebar_keeps_the_view():
    """An empty URL is a page opened from the sidebar, not history: the view stays (the follow must not reset it)."""
    at = go(app(), "radar")
    at.slider(key="weight_correctness").set_value(60).run()
    at.query_params.clear()
    go(at, "headline")
    assert at.query_params["w_correctness"] == "60"


def test_a_headline_link_with_a_task_ticked_opens_with_that_task_ticked():
    """A reviewer ticked task-07 of deep-thinker on the Headline page and shared the link (runs.task=task-07&
    runs.agent=deep-thinker&agent=deep-thinker): the fresh viewer saw no row ticked and "Select a task"."""
    at = go(app(**{"runs.task": "task-07", "runs.agent": "deep-thinker", "agent": "deep-thinker"}), "headline")
    assert not any("Select a task" in c.value for c in at.caption)
    labels = " ".join(str(getattr(p, "label", "")) for p in at.get("page_link"))
    assert "Open its runs on task task\\-07" in labels, labels  # Markdown-escaped
    at = go(app(**{"runs.task": "task-07", "runs.agent": "swift-lite", "agent": "deep-thinker"}), "headline")
    assert any("Select a task" in c.value for c in at.caption)  # another agent's task: nothing ticked


def test_the_link_of_a_refused_upload_says_its_file_was_refused():
    """A reviewer's refused upload still offered a link asking for that file, without a word that it was refused."""
    at = go(app(), "headline")
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("broken.csv", b"run_id,agent_id\nr1,a\n", "text/csv")).run()
    assert not at.exception
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "data=upload&sha=" in link_text(at)
    assert "That file was refused here: with it, they see the same refusal." in said
    at.file_uploader(key="upload").set_value(("edge.csv", EDGE_CSV, "text/csv")).run()
    assert "That file was refused" not in " ".join(c.value for c in at.sidebar.caption)
