"""The Streamlit pages, rendered headless with ``streamlit.testing.v1.AppTest``.

Each page file is run on its own (it falls back to the sample data, or reads a dataset seeded into
session state exactly as ``explorer.data.use_upload`` stores it); the upload flow goes through the
``app.py`` entry point and its real file uploader.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import explorer.data
import explorer.pages
from explorer import format as fmt
from scoring import CANONICAL_POLICY, RADAR_AXES, Anchors, load_runs, score_runs
from scoring.contract.policy import EXPLORER, PUBLISHED
from scoring.outputs.methodology import rules
from tests.apptest_helpers import (
    BAD_CELL,
    BAD_CSV,
    EDGE_AGENTS,
    EDGE_CSV,
    HEADER,
    HTML_AGENT,
    PAGES,
    TIMEOUT,
    assert_clean,
    dataframe,
    display_frame,
    leaks,
    page,
    plotly_array,
    plotly_specs,
    run,
    show_upload,
    texts,
)

ROOT = Path(__file__).resolve().parents[1]


def edge_report():
    return score_runs(load_runs(EDGE_CSV, name="edge.csv").runs)


def test_edge_dataset_covers_the_cases_it_claims():
    report = edge_report()
    assert {a.agent_id for a in report.agents} == set(EDGE_AGENTS)
    h = {a.agent_id: a.headline for a in report.agents}
    assert not h["only-failed"].ranked and h["only-failed"].flags == ("unranked",)
    assert h["zero-success"].zero_success_floor and h["zero-success"].score == 0.0
    assert h["few-runs"].completed_runs < 5 and h["few-runs"].consistency_neutral
    assert h["no-steps-no-cost"].cost_runs == 0 and "no cost recorded" in h["no-steps-no-cost"].flags
    assert report.agent("no-steps-no-cost").radar.axes["tool_efficiency"] is None
    assert h["no-finished-at"].latency_runs == 0 and "no latency recorded" in h["no-finished-at"].flags
    assert h["single-run"].completed_runs == 1
    assert not h["healthy"].consistency_neutral and report.agent("healthy").repeatability.pass_k is not None


# --------------------------------------------------------------------------- every page renders


@pytest.mark.parametrize("name", list(PAGES))
def test_page_renders_on_the_sample_data(name):
    at = run(page(name))
    assert at.title[0].value
    assert_clean(at, f"{name} (sample)")


@pytest.mark.parametrize("name", list(PAGES))
def test_page_renders_on_an_edge_case_upload(name):
    at = run(page(name, EDGE_CSV))
    assert at.session_state["dataset"].name == "edge.csv"  # not silently replaced by the sample
    assert_clean(at, f"{name} (edge upload)")


def test_leaderboard_flags_on_the_edge_case_upload():
    at = run(page("leaderboard", EDGE_CSV))
    table = dataframe(at, "leaderboard")
    values, shown = table.value, display_frame(table)
    assert list(values["Agent"]) == [a.agent_id for a in edge_report().agents]
    flags = dict(zip(values["Agent"], values["Flags"]))
    assert flags["only-failed"] == "unranked"
    assert "zero-success floor" in flags["zero-success"]
    assert "neutral consistency" in flags["few-runs"]
    assert "no cost recorded" in flags["no-steps-no-cost"]
    assert "no latency recorded" in flags["no-finished-at"]
    # The unranked agent is last; its undefined cells show a dash, never None/nan/<NA>.
    last = shown.iloc[-1]
    assert last["Agent"] == "only-failed"
    for column in ("Rank", "Score", "Success rate", "Execution", "Avg latency (ms)", "Consistency",
                   "Cost score", "Avg cost (USD)"):
        assert last[column] == fmt.DASH, (column, last[column])
    assert shown.set_index("Agent").loc["zero-success", "Score"] == "0.00"
    assert shown.set_index("Agent").loc["no-steps-no-cost", "Avg cost (USD)"] == fmt.DASH


def test_leaderboard_formatted_cells_on_the_sample():
    at = run(page("leaderboard"))
    shown = display_frame(dataframe(at, "leaderboard")).set_index("Agent")
    report = score_runs(load_runs(ROOT / "sample_data" / "runs.csv").runs)
    for a in report.agents:
        assert shown.loc[a.agent_id, "Score"] == fmt.score(a.headline.score)
        assert shown.loc[a.agent_id, "Avg latency (ms)"] == fmt.ms(a.headline.avg_latency_ms)
    assert shown.loc["null-pointer", "Flags"] == "zero-success floor"
    assert shown.loc["newcomer", "Flags"] == "neutral consistency"


def test_headline_page_renders_every_edge_agent():
    at = run(page("headline", EDGE_CSV))
    for agent in EDGE_AGENTS:
        at.selectbox(key="headline_agent").set_value(agent)
        run(at)
        assert_clean(at, f"headline page, agent {agent!r}")
        if agent == "only-failed":
            assert any("unranked" in i.body for i in at.info) and not at.metric
        else:
            assert at.metric[0].label == "Headline score"


def test_repeatability_page_every_agent_and_level_on_the_edge_upload():
    at = run(page("repeatability", EDGE_CSV))
    # Agents without a qualifying task are named once, escaped.
    assert any("No qualifying task" in c.value for c in at.caption)
    for agent in at.selectbox(key="task_agent").options:
        for level in ("pass^1", "pass^3", "pass^5"):
            at.selectbox(key="task_agent").set_value(agent)
            at.radio(key="task_k").set_value(int(level.split("^")[1]))
            run(at)
            assert_clean(at, f"repeatability page, {agent} {level}")


def test_repeatability_page_with_no_qualifying_task_says_so_instead_of_an_empty_curve():
    """Before: an empty chart with axes, and an agent picker saying "No options to select"."""
    rows = [f"r{i},a,t{i},completed,true,1000,0.01,1,2026-01-0{i + 1}T00:00:00Z" for i in range(2)]
    at = run(page("repeatability", (HEADER + "\n" + "\n".join(rows) + "\n").encode(), upload_name="two.csv"))
    assert any("No curve to draw: no agent has a task with at least 3 outcomes" in i.body for i in at.info)
    assert not [c for c in at.get("plotly_chart") if "pass^k" in c.proto.spec and "curve" in c.proto.spec.lower()]
    assert not at.multiselect


def test_repeatability_page_draws_the_leaderboards_first_agents_of_many_and_says_so():
    """A reviewer's file of 2,500 agents, nearly all without a qualifying task: the page never drew (an annotation
    added one by one per agent, 12 minutes and a busy core). The bars show the leaderboard's first agents; the
    table below still lists every one."""
    from explorer.charts import CHART_MAX_AGENTS

    many = CHART_MAX_AGENTS + 25
    rows = [f"r{i},agent-{i:03d},t,completed,{'true' if i % 2 else 'false'},1000,0.01,1,2026-01-01T00:00:00Z"
            for i in range(many)]
    at = run(page("repeatability", (HEADER + "\n" + "\n".join(rows) + "\n").encode(), upload_name="many.csv"))
    assert_clean(at, "repeatability page, many agents")
    (bars,) = [s for s in plotly_specs(at) if s["data"] and s["data"][0]["type"] == "bar"
               and "pass^" in s["data"][0]["name"]]
    assert len(bars["data"][0]["x"]) == CHART_MAX_AGENTS
    assert len(bars["layout"]["annotations"]) == CHART_MAX_AGENTS  # each "no qualifying task"
    assert any(f"first {CHART_MAX_AGENTS} of {many} agents are drawn" in c.value for c in at.caption)
    assert len(dataframe(at, "pass_k_summary").value) == many


def test_the_interval_table_says_which_ranks_each_interval_covers_and_where_it_reaches_past_its_group():
    # A reviewer read newcomer's tie group 4 as meaningful, though its interval (0.00-84.23) covers the scores of
    # ranks 2 to 10: the walk puts it in one group, and the page said nothing more.
    at = run(page("uncertainty"))
    (table,) = [d.value.set_index("Agent") for d in at.dataframe if "Covers ranks" in d.value.columns]
    assert table.loc["steady-pro", "Covers ranks"] == "1" and table.loc["newcomer", "Covers ranks"] == "2–10"
    (said,) = [c.value.replace("\\", "") for c in at.caption if "Intervals that cover the scores" in c.value]
    assert "newcomer (tie group 4): its interval 0.00–84.23 covers the scores of ranks 2–10, in tie groups 2, 3, " \
           "4, 5, 6" in said
    assert "steady-pro" not in said and "swift-lite" not in said


def test_the_leaderboard_with_intervals_says_where_an_interval_reaches_past_its_tie_group():
    # The reviewer read the tie groups on the Leaderboard too: the same words are under its table there.
    at = run(page("leaderboard"))
    at.toggle(key="leaderboard_intervals").set_value(True)
    run(at)
    (said,) = [c.value.replace("\\", "") for c in at.caption if "Intervals that cover the scores" in c.value]
    assert "newcomer (tie group 4): its interval 0.00–84.23 covers the scores of ranks 2–10" in said
    at.toggle(key="leaderboard_intervals").set_value(False)
    run(at)
    assert not [c for c in at.caption if "Intervals that cover the scores" in c.value]


def test_the_interval_chart_draws_the_leaderboards_first_agents_of_many_and_says_so():
    """A reviewer's 500 agents drew an interval chart 19,000 px tall (38 px a row); the table lists them all."""
    from explorer.charts import CHART_MAX_AGENTS

    many = CHART_MAX_AGENTS + 10
    rows = [f"r{i}-{j},agent-{i:03d},t{j},completed,{'true' if (i + j) % 3 else 'false'},{1000 + 10 * i},0.01,1,"
            f"2026-01-01T00:00:0{j}Z" for i in range(many) for j in range(3)]
    at = run(page("uncertainty", (HEADER + "\n" + "\n".join(rows) + "\n").encode(), upload_name="many.csv"))
    assert_clean(at, "uncertainty page, many agents")
    (chart,) = [s for s in plotly_specs(at)
                if s["layout"].get("title", {}).get("text", "").startswith("Headline scores")]
    assert len({y for t in chart["data"] for y in t.get("y", [])}) == CHART_MAX_AGENTS
    assert any(f"first {CHART_MAX_AGENTS} of {many} agents are drawn" in c.value for c in at.caption)


def test_leaderboard_says_the_first_notes_of_many_and_where_the_rest_are():
    """A reviewer's 2,500 agents made 3,700 bullets (15,000 px) before the downloads."""
    from explorer.tables import NOTES_SHOWN

    many = NOTES_SHOWN + 20  # each agent: no cost recorded, and no pass^k (one outcome): two notes
    rows = [f"r{i},agent-{i:03d},t,completed,true,1000,,1,2026-01-01T00:00:00Z" for i in range(many)]
    at = run(page("leaderboard", (HEADER + "\n" + "\n".join(rows) + "\n").encode(), upload_name="many.csv"))
    assert_clean(at, "leaderboard, many notes")
    (bullets,) = [m.value for m in at.markdown if m.value.startswith("- **agent")]
    assert bullets.count("\n- **") + 1 == NOTES_SHOWN
    assert any(f"The first {NOTES_SHOWN} of {2 * many} notes are shown" in c.value
               and f"the rest, for {many - NOTES_SHOWN // 2} agent(s)" in c.value for c in at.caption)


def test_radar_page_with_every_edge_agent_on_the_radar():
    at = run(page("radar", EDGE_CSV))
    at.multiselect(key="radar_agents").set_value(EDGE_AGENTS)
    run(at)
    assert_clean(at, "radar page, every agent chosen")
    (spec,) = [s for s in plotly_specs(at) if s["data"] and s["data"][0]["type"] == "scatterpolar"]
    assert len(spec["data"]) == len(EDGE_AGENTS)
    names = {t["name"] for t in spec["data"]}
    assert HTML_AGENT not in names and "&lt;script&gt;alert(1)&lt;/script&gt;" in names


# --------------------------------------------------------------------------- ui.table


def _table_app():
    import pandas as pd

    from explorer import format as fmt
    from explorer import ui

    frame = pd.DataFrame({
        "Name": ["a", "b", "c"],
        "Score": pd.array([86.955, None, 12.5], dtype="Float64"),
        "Plain float": [0.5, float("nan"), 1.0],
        "Rank": pd.array([1, None, 3], dtype="Int64"),
        "Cost": [0.0123, None, 2.5],
        "Flag": [True, False, True],
    })
    ui.table(frame, {"Cost": fmt.usd}, key="probe")


def test_ui_table_formats_missing_values_as_a_dash():
    at = AppTest.from_function(_table_app, default_timeout=TIMEOUT)
    run(at)
    el = dataframe(at, "probe")
    shown = display_frame(el)
    assert shown is not None, "ui.table should send a Styler with display values"
    assert shown["Score"].tolist() == [f"{86.955:.2f}", fmt.DASH, "12.50"]
    assert shown["Plain float"].tolist() == ["0.50", fmt.DASH, "1.00"]
    assert shown["Rank"].tolist() == ["1", fmt.DASH, "3"]
    assert shown["Cost"].tolist() == ["$0.0123", fmt.DASH, "$2.50"]
    assert shown["Flag"].tolist() == ["yes", "no", "yes"]
    # The values underneath stay numeric, so a click on a header sorts numbers, not text.
    assert pd.api.types.is_float_dtype(el.value["Score"]) and pd.api.types.is_integer_dtype(el.value["Rank"])


def _big_table_app():
    import pandas as pd
    import streamlit as st

    from explorer import ui

    # A reviewer's file of 50,000 tasks: 300,000 cells, past the 262,144 Streamlit styles (an error in place of
    # the rest of the page).
    frame = pd.DataFrame({"Task": [f"t{i:05d}" for i in range(50_000)], **{f"c{j}": 0.5 for j in range(5)}})
    ui.table(frame, key="probe_big")
    st.write("after the table")


def test_ui_table_past_its_cells_draws_its_first_rows_and_says_so():
    from explorer.ui import TABLE_MAX_CELLS

    at = AppTest.from_function(_big_table_app, default_timeout=TIMEOUT)
    run(at)
    assert not at.exception, at.exception
    (table,) = at.dataframe
    assert len(table.value) == TABLE_MAX_CELLS // 6 and table.value["Task"].iloc[0] == "t00000"
    assert any(f"The first {TABLE_MAX_CELLS // 6:,} of 50,000 rows are shown" in c.value for c in at.caption)
    assert any("after the table" in m.value for m in at.markdown)  # the page goes on


# --------------------------------------------------------------------------- radar: weights


def _ranking(at: AppTest) -> pd.DataFrame:
    return dataframe(at, "profile_ranking").value


def _headline_columns(frame: pd.DataFrame) -> dict:
    return {r["Agent"]: (r["Headline score"], r["Headline rank"]) for _, r in frame.iterrows()}


def test_radar_sliders_move_profile_scores_never_the_headline():
    at = run(page("radar"))
    assert [at.slider(key=f"weight_{axis}").value for axis in RADAR_AXES] == [20] * len(RADAR_AXES)
    before = _ranking(at)

    at.slider(key="weight_correctness").set_value(100)
    run(at)
    at.slider(key="weight_tool_efficiency").set_value(0)
    run(at)
    after = _ranking(at)

    assert list(after["Agent"]) != list(before["Agent"]), "profile order should follow the weights"
    profile_before = dict(zip(before["Agent"], before["Profile score"]))
    profile_after = dict(zip(after["Agent"], after["Profile score"]))
    assert profile_before != profile_after
    assert _headline_columns(after) == _headline_columns(before), "viewer weights moved a headline value"
    assert list(after["Profile rank"]) == list(range(1, len(after) + 1))
    report = score_runs(load_runs(ROOT / "sample_data" / "runs.csv").runs)
    weights = {**CANONICAL_POLICY.radar_weights, "correctness": 1.0, "tool_efficiency": 0.0}
    for agent, score in profile_after.items():
        assert score == pytest.approx(report.agent(agent).radar.profile(weights).score)

    reset = [b for b in at.button if b.label == "Reset weights"]
    assert len(reset) == 1
    reset[0].click()
    run(at)
    assert [at.slider(key=f"weight_{axis}").value for axis in RADAR_AXES] == [20] * len(RADAR_AXES)
    restored = _ranking(at)
    assert dict(zip(restored["Agent"], restored["Profile score"])) == profile_before
    assert list(restored["Agent"]) == list(before["Agent"])
    assert _headline_columns(restored) == _headline_columns(before)


# --------------------------------------------------------------------------- upload flow via app.py


def test_the_sidebar_names_a_whole_file_refusal_and_counts_in_words():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    run(at)
    at.radio(key="source_kind").set_value("Upload a file")
    run(at)
    at.file_uploader(key="upload").set_value(("no-cost.csv", b"run_id,agent_id,task_id,status,success,latency_ms\n"
                                              b"r1,a,t,completed,true,10\n", "text/csv"))
    run(at)
    captions = [c.value.replace("\\", "") for c in at.sidebar.caption]
    assert any("no-cost.csv — refused (the file as a whole)" in c for c in captions), captions
    at.file_uploader(key="upload").set_value(("one.csv", b"run_id,agent_id,task_id,status,success,latency_ms,cost_usd"
                                              b"\nr1,a,t,completed,true,10,0.1\n", "text/csv"))
    run(at)
    captions = [c.value.replace("\\", "") for c in at.sidebar.caption]
    assert any("one.csv · 1 run · 1 agent · 0 excluded rows" in c for c in captions), captions


def test_a_bad_upload_shows_the_report_and_can_exclude_the_invalid_rows():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    run(at)
    assert at.radio(key="source_kind").value == "Sample data"
    assert at.title[0].value == "Leaderboard"

    at.radio(key="source_kind").set_value("Upload a file")
    run(at)
    assert any("No file chosen yet" in c.value for c in at.sidebar.caption)
    assert at.session_state["dataset"].is_sample

    at.file_uploader(key="upload").set_value(("bad.csv", BAD_CSV, "text/csv"))
    run(at)
    assert at.radio(key="source_kind").value == "Upload a file"
    assert at.session_state["dataset"].name == "bad.csv"
    (error,) = at.error
    assert "'bad.csv' was refused" in error.body.replace("\\", "") and "3 problems found" in error.body
    (problems,) = at.dataframe
    table = problems.value
    assert list(table.columns) == ["row", "line", "column", "value", "reason", "code"]  # the reason's stable code too
    assert table["row"].tolist() == [2, 3, 5]
    assert table["column"].tolist() == ["status", "latency_ms", "success"]
    assert "unknown status" in table["reason"][0] and "negative" in table["reason"][1]
    assert table["code"].tolist() == ["unknown_status", "negative", "not_an_outcome"]
    assert not at.metric, "nothing may be scored while the file is refused"
    (exclude,) = [b for b in at.button if b.key == "exclude_invalid"]
    assert exclude.label == "Exclude the 3 invalid rows of 6 and score the rest"
    assert any("refused" in c.value for c in at.sidebar.caption)
    assert_clean(at, "refused upload")

    exclude.click()
    run(at)
    assert at.session_state["dataset"].exclude_invalid
    assert not at.error
    (warning,) = at.warning
    assert warning.body.startswith("3 invalid rows of 6 were excluded")
    board = dataframe(at, "leaderboard").value
    assert sorted(board["Agent"]) == ["agent-a", "agent-b"]
    assert board.set_index("Agent").loc["agent-a", "Completed runs"] == 2
    assert at.metric[0].value == "3"  # runs scored
    assert any("3 excluded rows" in c.value.replace("\\", "") for c in at.sidebar.caption)
    assert_clean(at, "after excluding the invalid rows")

    # A rerun keeps the choice; switching back to the sample drops the upload.
    run(at)
    assert at.warning and at.session_state["dataset"].exclude_invalid
    at.radio(key="source_kind").set_value("Sample data")
    run(at)
    assert at.session_state["dataset"].is_sample and not at.warning
    assert "upload_file" not in at.session_state


def test_a_file_level_problem_cannot_be_excluded():
    data = b"run_id,agent_id,task_id\nr1,a,t1\n"  # required columns missing
    at = run(page("leaderboard", data, upload_name="cols.csv"))
    assert "'cols.csv' was refused" in at.error[0].body.replace("\\", "")
    assert not [b for b in at.button if b.key == "exclude_invalid"]
    assert any("whole file" in c.value for c in at.caption)


ALL_INVALID = (b"run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n"
               b"r1,,t1,completed,true,-50,0.01\nr2,a,t1,done,true,5,0.01\n")


SCORED_PAGES = ("leaderboard", "headline", "radar", "repeatability", "uncertainty", "tasks", "compare", "over_time",
                 "runs", "sandbox")  # every page that draws the scores (views/*: require_scores)


@pytest.mark.parametrize("name", SCORED_PAGES)
def test_a_file_of_invalid_rows_only_offers_no_exclusion_and_no_page_draws_an_empty_dataset(name):
    """A reviewer excluded the only invalid row of a file: the dataset had no run left, and five pages stopped on
    an exception (KeyError in the leaderboard's accounting, the headline's agent, pass^1, the uncertainty's and
    the sandbox's ranks). Excluding every row is now no remedy on offer; a session that asked for it anyway (a
    link, an earlier click) sees the refusal, never a page of nothing."""
    path = PAGES.get(name) or next(p.path for p in explorer.pages.PAGES if p.name == name)
    assert "require_scores" in Path(path).read_text()
    for exclude in (False, True):
        at = show_upload(AppTest.from_file(str(path), default_timeout=TIMEOUT), ALL_INVALID, "bad.csv")
        at.session_state["dataset"] = dataclasses.replace(at.session_state["dataset"], exclude_invalid=exclude)
        run(at)
        assert any("'bad.csv' was refused" in e.body.replace("\\", "") for e in at.error), (name, exclude)
        assert not [b for b in at.button if b.key == "exclude_invalid"], (name, exclude)
        assert any("Every row of the file is invalid" in c.value for c in at.caption), (name, exclude)
        assert not at.metric and not plotly_specs(at), (name, exclude)


def test_a_dataset_left_with_no_run_is_refused_before_any_page_draws_it(monkeypatch):
    """Whatever path leaves a dataset of no runs (the loader refuses excluding every row; an import's parts could
    still), the pages see a refusal saying so, never an empty report."""
    loaded = load_runs(BAD_CSV, name="bad.csv", exclude_invalid=True)
    empty = dataclasses.replace(loaded, runs=loaded.runs.iloc[:0])
    dataset = explorer.data.Dataset(name="bad.csv", digest="d", kind="upload", exclude_invalid=True)
    monkeypatch.setattr(explorer.data, "_compute",
                        lambda *_: explorer.data.Scored(empty, score_runs(loaded.runs)))
    result = explorer.data._scored_and_warmed(dataset)
    assert isinstance(result, explorer.data.Refused) and not result.error.excludable
    assert [p.reason for p in result.error.problems] == ["excluding the 3 invalid rows leaves no run to score"]


def test_refusal_on_every_page_when_seeded():
    for name in ("leaderboard", "headline", "radar", "repeatability"):
        at = run(page(name, BAD_CSV, upload_name="bad.csv"))
        assert "was refused" in at.error[0].body, name
        assert [b.label for b in at.button if b.key == "exclude_invalid"] == [
            "Exclude the 3 invalid rows of 6 and score the rest"], name


# --------------------------------------------------------------------------- headline page


def test_headline_zero_success_agent_shows_the_floor():
    at = run(page("headline"))
    at.selectbox(key="headline_agent").set_value("null-pointer")
    run(at)
    floor = [e.body for e in at.error if "Zero-success floor applies" in e.body]
    assert len(floor) == 1
    assert at.metric[0].value == "0.00"
    spec = plotly_specs(at)[0]
    waterfall = spec["data"][0]
    assert waterfall["type"] == "waterfall"
    assert "Zero-success floor" in waterfall["x"]
    assert sum(waterfall["y"][:-1]) == pytest.approx(0.0, abs=1e-9) and waterfall["y"][-1] == 0.0
    assert any("zero-success floor → 0.00" in c.value for c in at.code)


def test_headline_says_which_weights_are_published_and_which_the_explorer_decided():
    # A reviewer read "Latency score (max 15)" and "Consistency (max 15)" on this page with no word that the 50/50
    # split of execution (and the consistency formula, its neutral 0.5) is the explorer's, not the platform's.
    at = run(page("headline"))
    said = " ".join(c.value for c in at.caption)
    assert "Weights 0.4 success, 0.3 execution, 0.3 cost: published." in said
    assert "Execution split 0.5 latency score, 0.5 consistency: explorer-defined." in said
    assert "neutral 0.5: explorer-defined" in said
    (execution,) = [m for m in at.metric if m.label == "Execution score"]
    assert execution.help.endswith("(the split is explorer-defined)")


def test_headline_newcomer_shows_neutral_consistency():
    at = run(page("headline"))
    at.selectbox(key="headline_agent").set_value("newcomer")
    run(at)
    gate = [i.body for i in at.info if "Gate not met" in i.body]
    assert len(gate) == 1 and "3 recorded latencies, 5 needed" in gate[0]
    assert f"neutral factor {CANONICAL_POLICY.neutral_consistency:g}" in gate[0]
    assert not at.success and not at.error
    consistency = [m for m in at.metric if m.label == "Consistency"]
    assert consistency[0].value == fmt.factor(CANONICAL_POLICY.neutral_consistency)


def test_headline_contributions_sum_to_the_score():
    report = score_runs(load_runs(ROOT / "sample_data" / "runs.csv").runs)
    at = run(page("headline"))
    for agent in ("steady-pro", "premium-max"):
        at.selectbox(key="headline_agent").set_value(agent)
        run(at)
        h = report.agent(agent).headline
        waterfall = plotly_specs(at)[0]["data"][0]
        parts, total = waterfall["y"][:3], waterfall["y"][3]
        assert waterfall["measure"] == ["relative"] * 3 + ["total"]
        assert total == h.score
        assert abs(sum(parts) - h.score) <= 0.5 * 10 ** -CANONICAL_POLICY.score_decimals + 1e-9
        assert at.metric[0].value == fmt.score(h.score)
        assert any(s.body.startswith("Gate met") for s in at.success)


# --------------------------------------------------------------------------- methodology contract

BADGE = {PUBLISHED: ":blue-badge[published]", EXPLORER: ":orange-badge[explorer-defined]"}
FORMULA = re.compile(
    r"score = round\(100 × \((?P<s>[\d.]+) × success_rate \+ (?P<e>[\d.]+) × execution_score \+ "
    r"(?P<c>[\d.]+) × cost_score\), (?P<d>\d+)\)\s*\n"
    r"execution_score = (?P<share>[\d.]+) × latency_score \+ (?P<rest>[\d.]+) × consistency")


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-12)


def _number(text: str) -> float:
    return float(re.sub(r"[^\d.eE+-]", "", text.replace(" steps", "").replace(" ms", "")))


def _sections(at: AppTest) -> dict[str, list[str]]:
    """The markdown shown under each top-level header, in page order."""
    out: dict[str, list[str]] = {}
    current = None
    for node in at.main.children.values():
        if node.type == "header":
            current = node.value
        elif node.type == "markdown" and current is not None:
            out.setdefault(current, []).append(node.value)
    return out


def methodology_differences(at: AppTest, policy) -> list[str]:
    """Where the rendered methodology page disagrees with ``policy`` (empty when they agree)."""
    diffs: list[str] = []

    # Constants: one row per policy constant, with its value, provenance and meaning; nothing else.
    shown = dataframe(at, "constants").value.set_index("Constant")
    expected = {c.name: c for c in policy.constants()}
    for name in sorted(set(shown.index) ^ set(expected)):
        diffs.append(f"constant {name}: only on the {'page' if name in shown.index else 'policy'}")
    for name, c in expected.items():
        if name not in shown.index:
            continue
        row = shown.loc[name]
        text = row["Value"]
        if isinstance(c.value, tuple):
            ok = [v.strip() for v in text.split(",")] == [str(v) for v in c.value]
        else:
            ok = _close(float(text), float(c.value))
        if not ok:
            diffs.append(f"constant {name}: page shows {text!r}, policy has {c.value!r}")
        if row["Provenance"] != c.provenance:
            diffs.append(f"constant {name}: page says {row['Provenance']}, policy says {c.provenance}")
        if row["Meaning"] != c.meaning:
            diffs.append(f"constant {name}: meaning differs")

    # Anchors: each table lists the policy's positions and scores (0-100), in order; each curve plots them.
    specs = {el.proto.id: json.loads(el.proto.spec) for el in at.get("plotly_chart")}
    headings = [m.value for m in at.markdown]
    for field in ("latency_anchors", "cost_anchors", "steps_anchors"):
        anchors, provenance = getattr(policy, field), policy.provenance[field]
        position_column = anchors.name  # each position carries its unit ("500 ms"), the header does not repeat it
        tables = [d.value for d in at.dataframe if position_column in d.value.columns]
        if len(tables) != 1:
            diffs.append(f"anchors {anchors.name}: no table with a column {position_column!r}")
            continue
        frame = tables[0]
        if list(frame.columns) != [position_column, "Score (0–100)"]:
            diffs.append(f"anchors {anchors.name}: columns {list(frame.columns)}")
            continue
        xs = [_number(v) for v in frame[position_column]]
        scores = [float(v) for v in frame["Score (0–100)"]]
        if len(xs) != len(anchors.xs) or not all(map(_close, xs, anchors.xs)):
            diffs.append(f"anchors {anchors.name}: page positions {xs}, policy {list(anchors.xs)}")
        if len(scores) != len(anchors.scores) or not all(_close(s, 100 * p) for s, p in zip(scores, anchors.scores)):
            diffs.append(f"anchors {anchors.name}: page scores {scores}, policy {[100 * s for s in anchors.scores]}")
        if f"**{anchors.name}** {BADGE[provenance]}" not in headings:
            diffs.append(f"anchors {anchors.name}: provenance badge is not {provenance}")
        curve = [s for i, s in specs.items() if i.endswith(f"anchor_curve_{anchors.name}")]
        points = [t for t in (curve[0]["data"] if curve else []) if t.get("name") == "anchors"]
        if len(points) != 1:
            diffs.append(f"anchors {anchors.name}: no anchor curve")
        else:
            px, py = plotly_array(points[0]["x"]), plotly_array(points[0]["y"])
            if not (len(px) == len(anchors.xs) and all(map(_close, px, anchors.xs))
                    and all(_close(a, 100 * b) for a, b in zip(py, anchors.scores))):
                diffs.append(f"anchors {anchors.name}: curve points {px}, {py}")

    # The formula block: the policy's weights, rounding and execution split.
    codes = [c.value for c in at.code if "score = round(" in c.value]
    match = FORMULA.search(codes[0]) if len(codes) == 1 else None
    if match is None:
        diffs.append("formula: no headline/execution formula block")
    else:
        for group, value in (("s", policy.success_weight), ("e", policy.execution_weight), ("c", policy.cost_weight),
                             ("d", policy.score_decimals), ("share", policy.latency_share_of_execution),
                             ("rest", 1 - policy.latency_share_of_execution)):
            if not _close(float(match[group]), float(value)):
                diffs.append(f"formula: {group} is {match[group]} on the page, {value} in the policy")

    # Rules: each section lists exactly the policy's rules, with their provenance badges.
    sections = _sections(at)
    for section in ("Headline composite", "Fitness radar", "Repeatability"):
        lines = [line for md in sections.get(f"Rules: {section.lower()}", []) for line in md.splitlines()]
        shown_rules = [line.replace("\\$", "$") for line in lines]
        wanted = [f"- {BADGE[r.provenance]} {r.statement}" for r in rules(policy) if r.section == section]
        for rule in wanted:
            if rule not in shown_rules:
                diffs.append(f"rule ({section}) not on the page: {rule}")
        for line in shown_rules:
            if line not in wanted:
                diffs.append(f"rule ({section}) on the page only: {line}")
    return diffs


# With --dist loadgroup (Makefile) the module's tests run on one xdist process:
# the methodology page's AppTest run (a module fixture) runs once, on one process.
pytestmark = pytest.mark.xdist_group("app_pages")


@pytest.fixture(scope="module")
def methodology_page():
    at = AppTest.from_file(str(PAGES["methodology"]), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def test_methodology_page_agrees_with_the_policy(methodology_page):
    assert methodology_differences(methodology_page, CANONICAL_POLICY) == []


def test_methodology_page_shows_every_constant_with_value_and_provenance(methodology_page):
    shown = display_frame(dataframe(methodology_page, "constants")).set_index("Constant")
    for c in CANONICAL_POLICY.constants():
        assert shown.loc[c.name, "Provenance"] == c.provenance
        value = shown.loc[c.name, "Value"]
        assert value == (", ".join(map(str, c.value)) if isinstance(c.value, tuple) else f"{c.value:g}")


def test_methodology_formula_block_contains_the_weights(methodology_page):
    (block,) = [c.value for c in methodology_page.code if "score = round(" in c.value]
    p = CANONICAL_POLICY
    for weight, term in ((p.success_weight, "success_rate"), (p.execution_weight, "execution_score"),
                         (p.cost_weight, "cost_score")):
        assert f"{weight:g} × {term}" in block


MODIFIED = {
    "weights": (dict(success_weight=0.5, execution_weight=0.2), ["constant success_weight", "formula", "rule"]),
    "latency anchor": (dict(latency_anchors=Anchors("latency_ms", (400.0, 2000.0, 5000.0, 10000.0),
                                                    (1.0, 0.8, 0.5, 0.0), "ms")),
                       ["anchors latency_ms"]),
    "steps anchor score": (dict(steps_anchors=Anchors("steps", (2.0, 5.0, 10.0, 20.0, 40.0),
                                                      (1.0, 0.75, 0.5, 0.2, 0.0), "steps")),
                           ["anchors steps"]),
    "execution split": (dict(latency_share_of_execution=0.6), ["formula", "constant latency_share_of_execution"]),
    "neutral consistency": (dict(neutral_consistency=0.4), ["constant neutral_consistency", "rule"]),
    "pass^k gate": (dict(pass_k_min_outcomes=4), ["constant pass_k_min_outcomes", "rule (Repeatability)"]),
    "pass^k levels": (dict(pass_k_levels=(1, 2, 5)), ["constant pass_k_levels"]),
    "provenance": (dict(provenance={**CANONICAL_POLICY.provenance, "neutral_consistency": PUBLISHED}),
                   ["constant neutral_consistency: page says explorer-defined"]),
}


@pytest.mark.parametrize("change", list(MODIFIED))
def test_methodology_comparison_catches_a_changed_policy(methodology_page, change):
    fields, expected = MODIFIED[change]
    modified = dataclasses.replace(CANONICAL_POLICY, **fields)
    diffs = methodology_differences(methodology_page, modified)
    assert diffs, f"a policy with a different {change} should not match the page"
    for prefix in expected:
        assert any(d.startswith(prefix) for d in diffs), (prefix, diffs)


# --------------------------------------------------------------------------- the checks themselves


def _leaky_app():
    import pandas as pd
    import streamlit as st

    st.metric("Score", str(None))
    st.caption(f"average {float('nan')} ms")
    st.dataframe(pd.DataFrame({"x": [1.0, None]}).style.format("{}"))


def test_the_screen_check_catches_leaked_values():
    at = run(AppTest.from_function(_leaky_app, default_timeout=TIMEOUT))
    found = [kind for kind, text in texts(at) if leaks(text)]
    assert sorted(found) == ["caption", "metric"]
    with pytest.raises(AssertionError, match="raw values"):
        assert_clean(at, "leaky")
    shown = display_frame(at.dataframe[0])
    assert set(shown["x"]) & BAD_CELL
    assert leaks("None of the 6 completed runs succeeded") == []
    assert leaks("Headline(agent_id='a')") and leaks("<scoring.measures.report.Report object at 0x7f>")


@pytest.mark.parametrize(("agent", "fixes", "runs", "chart"), [
    ("healthy", "All 3 task fixes.", "**The 3 runs that cost the most**", True),
    ("few-runs", "The one task fix.", "**The 1 run that costs the most**", True),
    ("single-run", None, "**No run costs points:**", False),
])
def test_headline_counts_what_it_lists_and_charts_only_tasks_with_a_score_without_them(agent, fixes, runs, chart):
    """Before, the captions counted what the page meant to show, not what it had: "The first 10 of 6 task fixes",
    "The 12 runs that cost the most" over 7 rows; and an agent whose every task removal leaves no completed run
    drew an empty chart under "The 10 costliest tasks" beside a table padded with blank rows."""
    at = run(page("headline", EDGE_CSV))
    at.selectbox(key="headline_agent").set_value(agent)
    run(at)
    shown = [t for _, t in texts(at)]
    assert (fixes is None) == (not any("task fix" in t and "A fixed failed" in t for t in shown))
    assert fixes is None or any(t.startswith(fixes) for t in shown), shown
    assert not any(" of " in t and "task fixes" in t and "first" in t for t in shown)
    assert any(t.startswith(runs) for t in shown), shown
    titles = [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]
    assert any(t.startswith("Points gained without each task's runs") for t in titles) == chart, titles
    assert chart or any("No task to chart" in i.body for i in at.info)


def test_the_frontiers_say_why_an_axis_has_no_point_and_name_the_agents_not_drawn():
    """A newcomer's review: with no cost recorded (tau-bench), the cost frontier was an empty chart, unexplained."""
    rows = [f"r{i},{a},t{i % 3},completed,{str(i % 2 == 0).lower()},{1000 + i},,1,2026-01-0{i % 9 + 1}T00:00:00Z"
            for i, a in enumerate(["a", "b"] * 4)]
    at = run(page("uncertainty", (HEADER + "\n" + "\n".join(rows) + "\n").encode(), upload_name="no-cost.csv"))
    assert any("No cost frontier: no agent recorded a cost" in i.body for i in at.info)
    assert len([c for c in at.get("plotly_chart") if "frontier" in c.proto.id or "Success rate against average latency"
                in c.proto.spec]) >= 1
    edge = run(page("uncertainty", EDGE_CSV))  # some agents without a cost: named under the chart
    assert any(c.value.startswith("Not drawn (") for c in edge.caption)


def test_the_consistency_formula_keeps_the_digits_of_a_small_spread():
    """A newcomer's review: '1 − 0 ms ÷ 1,000 ms = 0.9998' (a spread of 0.2 ms written as 0 ms)."""
    rows = [f"r{i},a,t{i % 2},completed,true,{1000 + (0.4 if i % 2 else 0)},0.01,1,2026-01-01T00:00:0{i}Z"
            for i in range(6)]
    at = run(page("headline", (HEADER + "\n" + "\n".join(rows) + "\n").encode(), upload_name="steady.csv"))
    [met] = [s.body for s in at.success if s.body.startswith("Gate met")]
    assert "1 − 0.20 ms ÷ 1,000 ms = 0.9998." in met, met
    assert [m.value for m in at.metric if m.label == "Latency spread (pstdev)"] == ["0.20 ms"]


def test_an_agent_that_leaves_nothing_out_shows_no_cost_and_no_share_left_out():
    """A newcomer's review: 'Cost left out —' and 'Share of spend left out —' beside 'Share of runs left out 0.00%'."""
    from explorer import tables
    from scoring import SAMPLE_RUNS, load_runs, score_runs

    runs = load_runs(SAMPLE_RUNS).runs
    frame = tables.unseen_table(runs, score_runs(runs)).set_index("Agent")
    assert frame.loc["steady-pro", "Left out"] == 0
    assert frame.loc["steady-pro", ["Cost left out (USD)", "Share of spend left out"]].tolist() == [0.0, 0.0]
    assert frame.loc["crashy-runner", "Cost left out (USD)"] == pytest.approx(0.47559)  # the rest unchanged


def test_the_task_matrix_orders_numbered_tasks_by_their_number():
    """A newcomer's review of tau2 files (task ids are numbers): the rows read 11, 13, 17, 23, 24, 29, 3, 31."""
    rows = [f"r{t}-{i},a,{t},completed,true,1000,0.01,1,2026-01-01T00:00:00Z" for t in ("11", "3", "2", "t10", "t9")
            for i in range(2)]
    at = run(page("tasks", (HEADER + "\n" + "\n".join(rows) + "\n").encode(), upload_name="numbered.csv"))
    [heatmap] = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Heatmap" in c.proto.spec
                 or '"heatmap"' in c.proto.spec]
    assert heatmap["data"][0]["y"] == ["2", "3", "11", "t9", "t10"]


def test_the_per_task_pass_k_reads_as_a_percentage_as_the_agents_mean_beside_it_does():
    """A newcomer read a task's 0.7500 under an agent's 86.16%: the same quantity, two scales."""
    at = run(page("repeatability"))
    at.selectbox(key="task_agent").set_value("steady-pro")
    run(at)
    shown = display_frame(dataframe(at, "task_table"))
    qualifying = shown[shown["Qualifies"] == "yes"]
    assert len(qualifying), shown.head()
    for k in (1, 3, 5):
        assert qualifying[f"pass^{k}"].str.fullmatch(r"\d{1,3}\.\d{2}%").all(), qualifying[f"pass^{k}"].head()
    assert qualifying.iloc[0][["pass^1", "pass^3", "pass^5"]].tolist() == ["75.00%", "25.00%", "0.00%"]  # 3 of 4
    summary = display_frame(dataframe(at, "pass_k_summary")).set_index("Agent")
    assert summary.loc["steady-pro", "pass^1"] == "86.16%"


def test_the_headline_pages_anchor_maps_read_0_to_1_as_the_factors_beside_them():
    at = run(page("headline"))
    titles = {}
    for spec in plotly_specs(at):
        text = spec["layout"].get("title", {}).get("text", "")
        if text.startswith(("Latency: average", "Cost: average")):
            titles[text.split(":")[0]] = (text, spec["layout"]["yaxis"]["title"]["text"])
    assert set(titles) == {"Latency", "Cost"}
    for title, axis in titles.values():
        assert re.search(r"→ [01]\.\d{4}$", title) and axis == "score (0–1)", (title, axis)
