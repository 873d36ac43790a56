"""Issue 15 in the app: the Runs page, and the Leaderboard's selection and run accounting (AppTest).

A selection is carried to the Runs page in session state (``explorer.drill.FILTER_KEY``) and in the
link's query parameters; both ways are driven here. What the pages show is checked against the
scoring core on the same data.
"""

from __future__ import annotations

import pandas as pd
import pytest

import explorer.data
from explorer import drill, state, tables
from explorer import format as fmt
from scoring import load_runs, score_runs
from scoring.analysis.drilldown import runs_view
from scoring.analysis.explain import accounting, explain, remove_runs
from tests.apptest_helpers import (
    EDGE_AGENTS,
    EDGE_CSV,
    HTML_AGENT,
    assert_clean,
    page,
    plotly_array,
    plotly_specs,
    run,
    show_upload,
    stop_bootstraps,
)
from tests.helpers import HOSTILE_SPAN_CSV, SAMPLE


@pytest.fixture(scope="module")
def sample():
    runs = load_runs(SAMPLE).runs
    return runs, score_runs(runs)


def frame_with(at, column: str) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]
    return found[0]


def focused(name: str, agent: str):
    """Page ``name`` on the sample with ``agent`` in focus (a link's, or one chosen on another page)."""
    at = page(name)
    at.session_state[state.STORE] = {"agent": agent}
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


# --------------------------------------------------------------------------- the filter


def test_filter_round_trips_through_query_parameters():
    chosen = drill.RunsFilter(agents=("a", "b"), tasks=("t1",), statuses=("failed", "timeout"),
                              outcomes=("unknown",), cohorts=("radar_window",))
    again, ignored = drill.RunsFilter.from_query(chosen.to_query())
    assert again == chosen and ignored == []
    assert drill.RunsFilter().to_query() == {}


def test_a_filter_longer_than_a_link_holds_says_what_its_link_leaves_out():
    many = drill.RunsFilter(agents=("a",), tasks=tuple(f"t{i}" for i in range(250)))
    assert len(many.to_query()["task"]) == drill.MAX_QUERY_VALUES == 200
    assert many.cut_in_link() == ["the first 200 of the 250 tasks chosen"]  # shown on the Runs page
    assert drill.RunsFilter(tasks=("t1",)).cut_in_link() == []


def test_filter_from_query_ignores_unknown_values_and_says_so():
    got, ignored = drill.RunsFilter.from_query({"agent": ["a", "a", ""], "status": ["done", "failed"],
                                                "cohort": ["window"], "outcome": ["success"]})
    assert got == drill.RunsFilter(agents=("a",), statuses=("failed",), outcomes=("success",))
    assert ignored == ["unknown status 'done'", "unknown cohort 'window'"]


def test_filter_in_words():
    assert drill.RunsFilter().describe() == "every run"
    assert drill.RunsFilter(agents=("x",), tasks=("t",)).describe() == "x, task t"
    assert "and 2 more agents" in drill.RunsFilter(agents=tuple("abcde")).describe()
    assert drill.RunsFilter(cohorts=("headline",)).describe() == "in the headline cohort"


# --------------------------------------------------------------------------- the Runs page


def test_runs_page_shows_every_run_by_default(sample):
    runs, _ = sample
    at = run(page("runs"))
    assert metrics(at)["Runs shown"] == fmt.count(len(runs))
    table = frame_with(at, "Radar window")
    assert len(table) == min(len(runs), 1_000)
    assert "Points if removed" not in table.columns  # influence is shown for one agent only
    assert at.get("download_button")
    assert_clean(at, "runs page (every run)")


def test_runs_page_opens_on_the_selection(sample):
    runs, report = sample
    at = page("runs")
    at.session_state[drill.FILTER_KEY] = drill.RunsFilter(agents=("crashy-runner",), statuses=("timeout",))
    run(at)
    expected = runs_view(runs, agents=["crashy-runner"], statuses=["timeout"], policy=report.policy)
    table = frame_with(at, "Radar window")
    assert sorted(table["Run"]) == sorted(expected["run_id"].astype(str))
    assert set(table["Status"]) == {"timeout"} and not table["Headline"].any()
    assert at.multiselect(key=drill.WIDGET_KEYS["agents"]).value == ["crashy-runner"]
    assert at.multiselect(key=drill.WIDGET_KEYS["statuses"]).value == ["timeout"]
    # Timed-out runs are not completed: the headline does not read them, and the page says so.
    assert any("the headline does not read them" in c.value for c in at.caption)
    assert "Points if removed" in table.columns and (table["Points if removed"] == 0).all()
    assert_clean(at, "runs page (crashy-runner timeouts)")


def test_runs_page_states_what_the_shown_runs_cost(sample):
    runs, report = sample
    at = page("runs")
    at.session_state[drill.FILTER_KEY] = drill.RunsFilter(agents=("crashy-runner",), tasks=("task-35",))
    run(at)
    shown = frame_with(at, "Radar window")
    removal = remove_runs(runs, "crashy-runner", list(shown["Run"]), report.policy,
                          report.agent("crashy-runner").headline)
    words = " ".join(i.value for i in at.info)
    assert f"would be {fmt.score(removal.score_if_removed)} instead of 74.67" in words
    # In words either way ("what these runs cost, or add when negative" read badly: a reviewer's note)
    gain = removal.points_if_removed
    said = (f"these runs cost it {gain:.2f} points of its weighted score" if gain > 0
            else f"these runs add {-gain:.2f} points to its weighted score")
    assert said in words, words


def test_runs_page_reads_a_link(sample):
    runs, report = sample
    at = page("runs")
    at.query_params["agent"] = "premium-max"
    at.query_params["cohort"] = ["headline", "radar_window"]
    run(at)
    expected = runs_view(runs, agents=["premium-max"], cohorts=["headline", "radar_window"], policy=report.policy)
    assert metrics(at)["Runs shown"] == fmt.count(len(expected))
    assert at.multiselect(key=drill.WIDGET_KEYS["cohorts"]).value == ["headline", "radar_window"]


def test_runs_page_bad_link_values_are_named_not_raised():
    at = page("runs")
    at.query_params["agent"] = ["nobody", "swift-lite"]
    at.query_params["status"] = "done"
    run(at)
    warning = " ".join(w.value for w in at.warning)
    assert "status 'done'" in warning and "agent 'nobody' is not in this data" in warning
    assert at.multiselect(key=drill.WIDGET_KEYS["agents"]).value == ["swift-lite"]
    assert_clean(at, "runs page (bad link)")


def test_runs_page_nothing_matches():
    at = page("runs")
    at.session_state[drill.FILTER_KEY] = drill.RunsFilter(agents=("steady-pro",), statuses=("timeout",))
    run(at)
    assert any("No run matches" in i.value for i in at.info)
    assert not at.get("download_button")
    assert_clean(at, "runs page (no match)")


def test_runs_page_show_every_run_clears_the_filter(sample):
    runs, _ = sample
    at = page("runs")
    at.session_state[drill.FILTER_KEY] = drill.RunsFilter(agents=("newcomer",))
    run(at)
    assert metrics(at)["Runs shown"] == "5"
    at.button[0].click()
    run(at)
    assert metrics(at)["Runs shown"] == fmt.count(len(runs))
    assert at.multiselect(key=drill.WIDGET_KEYS["agents"]).value == []


def test_runs_page_costliest_first_orders_by_influence():
    at = page("runs")
    at.session_state[drill.FILTER_KEY] = drill.RunsFilter(agents=("crashy-runner",))
    run(at)
    at.radio(key="runs_order").set_value("costliest")
    run(at)
    points = frame_with(at, "Points if removed")["Points if removed"].astype(float)
    assert points.is_monotonic_decreasing and points.iloc[0] > 0


@pytest.mark.parametrize("agent", EDGE_AGENTS)
def test_runs_page_every_edge_agent(agent):
    at = page("runs", EDGE_CSV)
    at.session_state[drill.FILTER_KEY] = drill.RunsFilter(agents=(agent,))
    run(at)
    assert frame_with(at, "Radar window")["Agent"].eq(agent).all()
    assert_clean(at, f"runs page, agent {agent!r}")


# --------------------------------------------------------------------------- the Leaderboard


def select_row(at, row: int):
    at.session_state["leaderboard"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return run(at)


def test_leaderboard_accounting_table_is_the_core_accounting(sample):
    runs, report = sample
    at = run(page("leaderboard"))
    table = frame_with(at, "Headline ignores").set_index("Agent")
    counted = accounting(runs, report.policy)
    for a in report.agents:
        x = counted[a.agent_id]
        assert table.loc[a.agent_id, "Runs"] == x.total_runs
        assert table.loc[a.agent_id, "Headline reads"] == x.headline_runs == a.headline.completed_runs
        assert table.loc[a.agent_id, "Failed"] == x.statuses["failed"]
        assert table.loc[a.agent_id, "Radar window"] == x.radar_window_runs == a.radar.window_runs
    crashy = table.loc["crashy-runner"]
    assert (crashy["Failed"], crashy["Timed out"], crashy["Other statuses"]) == (59, 29, 2)
    words = " ".join(m.value for m in at.markdown)
    assert "the headline ignores 101 of 2,796 runs: 61 failed, 29 timed out" in words


def test_leaderboard_selected_row_explains_and_links_to_its_runs(sample):
    _, report = sample
    at = run(page("leaderboard"))
    row = [a.agent_id for a in report.agents].index("crashy-runner")
    select_row(at, row)
    assert at.subheader[0].value == "#4 crashy\\-runner: 74.67"
    words = " ".join(m.value for m in at.markdown)
    assert "352 runs: 262 completed, 59 failed, 29 timed out" in words
    assert "costliest task" in words and "To overtake" in words
    assert at.session_state[drill.FILTER_KEY] == drill.RunsFilter(agents=("crashy-runner",))
    assert at.session_state[state.STORE]["agent"] == "crashy-runner"
    assert_clean(at, "leaderboard, crashy-runner selected")


def test_leaderboard_row_unticked_takes_the_agent_out_of_focus_and_out_of_the_link(sample):
    _, report = sample
    at = run(page("leaderboard"))
    select_row(at, [a.agent_id for a in report.agents].index("crashy-runner"))
    assert at.session_state[state.STORE]["agent"] == "crashy-runner"
    assert state.encode(at.session_state[state.STORE], "leaderboard")["agent"] == "crashy-runner"
    at.session_state["leaderboard"] = {"selection": {"rows": [], "columns": [], "cells": []}}
    run(at)
    assert at.session_state[state.STORE]["agent"] is None
    assert "agent" not in state.encode(at.session_state[state.STORE], "leaderboard")  # its link: no row ticked
    assert at.subheader[0].value == "Which runs each measure reads"  # no selection panel
    run(at)  # and it stays so
    assert at.session_state[state.STORE]["agent"] is None
    assert_clean(at, "leaderboard, row unticked")


def test_leaderboard_keeps_a_focus_it_did_not_tick(sample):
    _, report = sample
    # A link's (or another page's) focus agent: its row is ticked when the table is first drawn, and stays in
    # focus through reruns with nothing done.
    at = run(focused("leaderboard", "crashy-runner"))
    run(at)
    assert at.session_state[state.STORE]["agent"] == "crashy-runner"
    assert at.subheader[0].value == "#4 crashy\\-runner: 74.67"
    # The row ticked here, then another agent chosen elsewhere (the Headline page) while the table's widget
    # has no row: the focus chosen elsewhere stays.
    at.session_state[state.STORE] = {**at.session_state[state.STORE], "agent": report.agents[0].agent_id}
    at.session_state["leaderboard"] = {"selection": {"rows": [], "columns": [], "cells": []}}
    run(at)
    assert at.session_state[state.STORE]["agent"] == report.agents[0].agent_id


def test_leaderboard_row_ticked_in_one_dataset_ticks_no_row_by_its_position_in_the_next(sample):
    _, report = sample
    at = run(page("leaderboard"))
    select_row(at, [a.agent_id for a in report.agents].index("crashy-runner"))
    run(show_upload(at, EDGE_CSV))
    # crashy-runner is not in the edge file: no row ticked, the focus where it was. (Streamlit keeps a table's
    # selection by position under its key: the fourth row, zero-steps, was ticked, and the focus moved to it.)
    assert at.subheader[0].value == "Which runs each measure reads"
    assert at.session_state[state.STORE]["agent"] == "crashy-runner"
    at.session_state["dataset"] = explorer.data.sample_dataset()
    run(at)  # back on the sample: the focus agent's row, ticked afresh
    assert at.subheader[0].value == "#4 crashy\\-runner: 74.67"
    assert_clean(at, "leaderboard, back on the sample")


@pytest.mark.parametrize("agent", EDGE_AGENTS)
def test_leaderboard_selection_every_edge_agent(agent):
    at = run(page("leaderboard", EDGE_CSV))
    order = [a.agent_id for a in score_runs(load_runs(EDGE_CSV, name="edge.csv").runs).agents]
    select_row(at, order.index(agent))
    headings = [s.value for s in at.subheader]
    # the selection's heading, then the accounting; then only the page's own sections
    assert headings[1] == "Which runs each measure reads", headings
    assert set(headings[2:]) <= {"What the numbers leave out, in words", "Beside it: each harness's own reading",
                                 "What the headline does not see (a reading, for reviewers)"}, headings
    heading = at.subheader[0].value
    assert heading.startswith(("#", fmt.plain(agent)))
    if agent == "only-failed":
        assert heading.endswith("unranked")
    if agent == HTML_AGENT:
        assert "<script>" not in heading
    assert_clean(at, f"leaderboard, {agent!r} selected")


# --------------------------------------------------------------------------- the Headline page


def test_headline_page_opens_on_the_agent_selected_on_the_leaderboard(sample):
    _, report = sample
    at = run(page("leaderboard"))
    select_row(at, [a.agent_id for a in report.agents].index("crashy-runner"))
    headline = page("headline")
    headline.session_state[state.STORE] = {"agent": at.session_state[state.STORE]["agent"]}
    run(headline)
    assert headline.selectbox(key="headline_agent").value == "crashy-runner"


def test_headline_page_shows_points_lost_overtake_and_costliest(sample):
    runs, report = sample
    at = run(focused("headline", "crashy-runner"))
    e = explain(runs, "crashy-runner", report)
    points = frame_with(at, "Lost").set_index("Component")
    assert float(points.loc["Headline score", "Lost"]) == pytest.approx(100 - 74.67)
    for c in e.points.components:
        assert float(points.loc[tables.COMPONENT_LABELS[c.name], "Lost"]) == pytest.approx(c.lost)
    headings = [s.value for s in at.subheader]
    assert "What overtaking blackbox\\-api takes" in headings
    words = " ".join(m.value for m in at.markdown).replace("\\", "")  # markdown escapes dropped
    assert "To overtake blackbox-api (76.30) the score must reach 76.31" in words
    assert "If its 29 timed-out runs had completed successfully" in words
    assert "It ignores 88 failed or timed-out runs" in words
    overtake = frame_with(at, "Reachable alone")
    assert len(overtake) == len(e.overtake.changes)
    tasks = frame_with(at, "Completed")
    assert list(tasks["Task"]) == list(e.influence.tasks["task_id"])
    costly = frame_with(at, "Run")
    assert list(costly["Run"]) == list(e.influence.costliest_runs(12)["run_id"])
    assert_clean(at, "headline page, crashy-runner")


def _sample_runs():
    runs = load_runs(SAMPLE).runs
    return runs


def test_headline_page_shows_the_agents_what_if_figures(sample):
    from scoring.analysis.uncertainty import sensitivity

    _, report = sample
    at = run(focused("headline", "crashy-runner"))
    assert "What if" in [s.value for s in at.subheader]
    s = sensitivity(report.agent("crashy-runner"))
    shown = metrics(at)
    for what in s.what_ifs:
        assert shown[what.change.capitalize()] == fmt.score(what.score)
    # crashy-runner's gate is met: said so, never "0 runs until the gate" (read as a gate still ahead).
    assert s.runs_to_consistency_gate == 0 and shown["Consistency gate"] == "Met"
    assert "More completed runs with a latency until the consistency gate" not in shown
    newcomer = metrics(run(focused("headline", "newcomer")))
    gate = sensitivity(report.agent("newcomer")).runs_to_consistency_gate
    assert gate > 0 and newcomer["More completed runs with a latency until the consistency gate"] == \
        f"{gate:,} {'run' if gate == 1 else 'runs'}"  # a count with its noun, never a bare number
    outcomes = s.total_outcomes_to_pass_k
    assert shown[f"More outcomes until every task has {s.top_level} (only then can pass^{s.top_level} be above 0 on "
                 "it)"] == f"{outcomes:,} {'outcome' if outcomes == 1 else 'outcomes'}"


def test_headline_page_selected_task_links_to_its_runs():
    at = run(focused("headline", "crashy-runner"))
    at.session_state["influence_tasks"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    run(at)
    first = explain(_sample_runs(), "crashy-runner").influence.tasks["task_id"].iloc[0]
    assert at.session_state[drill.FILTER_KEY] == drill.RunsFilter(agents=("crashy-runner",), tasks=(first,))
    assert not any("Select a task" in c.value for c in at.caption)


def test_headline_page_task_selected_for_one_agent_selects_none_for_the_next():
    at = run(focused("headline", "crashy-runner"))
    at.session_state["influence_tasks"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    run(at)
    first = explain(_sample_runs(), "crashy-runner").influence.tasks["task_id"].iloc[0]
    at.selectbox(key="headline_agent").set_value("steady-pro")
    run(at)
    assert any("Select a task" in c.value for c in at.caption)  # not steady-pro's first task by its position
    assert at.session_state[drill.FILTER_KEY] == drill.RunsFilter(agents=("crashy-runner",), tasks=(first,))


def test_headline_page_first_agent_has_no_one_to_overtake():
    at = run(focused("headline", "steady-pro"))
    assert any("ranked first" in s.value for s in at.success)
    assert_clean(at, "headline page, steady-pro")


# --------------------------------------------------------------------------- the Tasks × agents page


def click_cell(at, index: int, curve: int = 1):
    at.session_state["task_heatmap"] = {"selection": {"points": [{"curve_number": curve, "point_index": index}],
                                                      "point_indices": [index], "box": [], "lasso": []}}
    return run(at)


def test_tasks_page_cell_opens_its_runs(sample):
    runs, report = sample
    from scoring.analysis.drilldown import task_matrix

    cells = task_matrix(runs, report.policy)
    index = int(cells.index[(cells["agent_id"] == "crashy-runner") & (cells["task_id"] == "task-35")][0])
    at = run(page("tasks"))
    assert any("Click a cell" in i.value for i in at.info)
    click_cell(at, index)
    assert at.session_state[drill.FILTER_KEY] == drill.RunsFilter(agents=("crashy-runner",), tasks=("task-35",))
    row = cells.iloc[index]
    words = " ".join(m.value for m in at.markdown).replace("\\", "").replace("**", "")
    assert f"crashy-runner on task-35: {row['runs']} runs; {row['successes']} of {row['outcomes']}" in words
    assert_clean(at, "tasks page, a cell selected")


@pytest.mark.parametrize("selection", [{"points": [{"curve_number": 0, "point_index": 3}]},
                                       {"points": [{"curve_number": 1, "point_index": 10_000}]},
                                       {"nothing": []}])
def test_tasks_page_a_selection_that_is_not_a_cell_selects_nothing(selection):
    at = run(page("tasks"))
    at.session_state["task_heatmap"] = {"selection": selection}
    run(at)
    assert any("Click a cell" in i.value for i in at.info)


def test_tasks_page_cell_clicked_in_one_dataset_selects_none_in_the_next():
    at = run(page("tasks"))
    click_cell(at, 0)
    assert not any("Click a cell" in i.value for i in at.info)
    run(show_upload(at, EDGE_CSV))
    # Not the edge file's cell at that position: a plotly chart's identity is its figure too (Streamlit 1.67,
    # unlike a table's: explorer.ui.fresh_key), so a new figure starts with nothing selected.
    assert any("Click a cell" in i.value for i in at.info)


def test_tasks_page_on_the_edge_upload():
    at = run(page("tasks", EDGE_CSV))
    click_cell(at, 0)
    assert_clean(at, "tasks page (edge upload)")


# --------------------------------------------------------------------------- the Compare page


def test_compare_page_numbers_are_the_core_comparison(sample):
    runs, report = sample
    from scoring.analysis.drilldown import compare

    at = run(focused("compare", "crashy-runner"))
    assert at.selectbox(key="compare_a").value == "crashy-runner"
    b = at.selectbox(key="compare_b").value
    assert b == "blackbox-api"  # the agent above A on the leaderboard: the one to overtake
    c = compare(runs, "crashy-runner", b, report.policy)
    assert metrics(at)["A minus B"] == fmt.score(c.score_delta)
    table = next(d.value for d in at.dataframe if "crashy-runner" in d.value.columns).set_index("Component")
    assert list(table["Difference"].astype(float)) == pytest.approx(list(c.components["difference"]))
    tasks = frame_with(at, "Success rate A")
    assert list(tasks["Task"]) == list(c.tasks["task_id"])
    rule = next(x.value for x in at.caption if x.value.startswith("The rule"))
    assert "paired bootstrap over tasks" in rule
    assert f"{fmt.score(c.independent_interval.low)} to {fmt.score(c.independent_interval.high)}" in rule
    words = " ".join(m.value for m in at.markdown)
    paired = next(f for f in c.facts() if str(f).startswith("Paired bootstrap"))
    assert f"{fmt.score(c.interval.low)} to {fmt.score(c.interval.high)}" in str(paired)
    assert fmt.render(paired) in words
    assert_clean(at, "compare page")


def test_compare_page_with_its_bootstrap_stopped_at_a_limit_keeps_the_rest(sample, monkeypatch):
    # The difference's bootstrap runs in a worker under the deployment's limits (explorer.untrusted.compare); stopped,
    # the page says why where the interval would be and keeps the points per component and the tasks, computed
    # without it; a rerun is told again from the shared cache, without a second worker.
    runs, report = sample
    from scoring.analysis.drilldown import compare

    # The message names the two agents, text from a stranger: a link spelled in one stays text on the page.
    calls = stop_bootstraps(monkeypatch, "compare",
                            "The bootstrap of 1,000 replicates of [a](https://example.com) against b took too long.")
    at = run(focused("compare", "crashy-runner"))
    # (a word joiner between the colon and "//": not even remark-gfm's bare-address links find it)
    assert [e.value for e in at.error] == ["No interval: The bootstrap of 1,000 replicates of \\[a\\]\\(https\\:\u2060"
                                          "\\/\\/example\\.com\\) against b took too long\\."]
    c = compare(runs, "crashy-runner", "blackbox-api", report.policy)
    assert metrics(at)["A minus B"] == fmt.score(c.score_delta)
    assert list(frame_with(at, "Success rate A")["Task"]) == list(c.tasks["task_id"])
    assert not [x for x in at.caption if x.value.startswith("The rule")]
    run(at)
    assert [c[1:3] for c in calls] == [("crashy-runner", "blackbox-api")] and len(at.error) == 1


def test_compare_page_a_bar_opens_both_agents_runs_on_its_task(sample):
    runs, report = sample
    from scoring.analysis.drilldown import compare

    at = run(page("compare"))
    a, b = at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value
    c = compare(runs, a, b, report.policy)
    first = c.tasks.sort_values(["difference", "task_id"], ascending=[False, True], kind="stable")["task_id"].iloc[0]
    at.session_state["paired_tasks"] = {"selection": {"points": [{"curve_number": 0, "point_index": 0}]}}
    run(at)
    assert at.session_state[drill.FILTER_KEY] == drill.RunsFilter(agents=(a, b), tasks=(first,))


def test_compare_page_bar_clicked_for_one_pair_selects_none_for_the_next(sample):
    _, report = sample
    at = run(page("compare"))
    at.session_state["paired_tasks"] = {"selection": {"points": [{"curve_number": 0, "point_index": 0}]}}
    run(at)
    assert not any("Click a bar" in c.value for c in at.caption)
    a, b = at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value
    at.selectbox(key="compare_b").set_value(next(x.agent_id for x in report.agents if x.agent_id not in (a, b)))
    run(at)
    assert any("Click a bar" in c.value for c in at.caption)  # not the new pair's bar there (a new figure)


def test_compare_page_b_never_equals_a():
    at = run(page("compare"))
    at.selectbox(key="compare_a").set_value(at.selectbox(key="compare_b").value)
    run(at)
    assert at.selectbox(key="compare_a").value != at.selectbox(key="compare_b").value


@pytest.mark.parametrize("a, b", [("only-failed", "healthy"), ("only-failed", "few-runs"),
                                  (HTML_AGENT, "zero-success"), ("no-finished-at", "no-steps-no-cost")])
def test_compare_page_edge_pairs(a, b):
    at = run(page("compare", EDGE_CSV))
    at.selectbox(key="compare_a").set_value(a)
    run(at)
    at.selectbox(key="compare_b").set_value(b)
    run(at)
    if a == "only-failed":
        assert any("no headline score" in i.value for i in at.info)
    assert_clean(at, f"compare page, {a!r} against {b!r}")


def test_compare_page_one_agent_says_so():
    one = b"\n".join(EDGE_CSV.splitlines()[:13]) + b"\n"  # the header and the healthy agent's runs
    at = run(page("compare", one, upload_name="one.csv"))
    assert any("nothing to compare" in i.value for i in at.info)


# --------------------------------------------------------------------------- the Score over time page


def test_over_time_page_charts_the_core_series(sample):
    runs, report = sample
    from scoring.analysis.drilldown import score_over_time

    at = page("over_time")
    at.session_state[state.STORE] = {"agent": "crashy-runner"}
    run(at)
    assert at.multiselect(key="over_time_agents").value == ["crashy-runner"]
    found = score_over_time(runs, report.policy, agents=["crashy-runner"])
    (line, *_) = plotly_specs(at)[0]["data"]
    last = found.agent("crashy-runner")["score"].iloc[-1]
    assert plotly_array(line["y"])[-1] == pytest.approx(last)
    assert fmt.score(last) == "74.67"  # the last day's headline is today's headline
    assert_clean(at, "over time page, crashy-runner")


def test_over_time_page_defaults_to_the_top_agents_and_asks_for_one():
    at = run(page("over_time"))
    assert at.multiselect(key="over_time_agents").value == ["steady-pro", "swift-lite", "blackbox-api"]
    at.multiselect(key="over_time_agents").set_value([])
    run(at)
    assert any("Choose at least one agent" in i.value for i in at.info)


def test_over_time_page_without_dates_says_so():
    at = page("over_time", EDGE_CSV)
    at.session_state[state.STORE] = {"agent": "no-finished-at"}
    run(at)
    assert any("No finished_at dates" in i.value for i in at.info)
    assert_clean(at, "over time page, no dates")


def test_over_time_page_refuses_runs_spanning_more_days_than_it_scores_in_words():
    """A 2 KB upload with runs in year 1 and year 9999 took the server to 7.1 GB and 5 minutes of CPU on this page,
    then showed Streamlit's message-size errors; it is refused before any work, the runs named."""
    at = run(page("over_time", HOSTILE_SPAN_CSV.encode(), upload_name="span.csv"))
    said = "\n".join(w.value for w in at.warning).replace("\\", "")
    assert "No scores over time for this dataset: the runs span 3,652,059 UTC days, from run 'ra00'" in said, said
    assert not at.get("plotly_chart")
    assert_clean(at, "over time page, a span past the days it scores")
    assert at.multiselect(key="over_time_agents").max_selections == state.KEY_BY_NAME["timeline"].max_items


@pytest.mark.parametrize("k", [3, 5])
def test_over_time_page_pass_k_levels(k):
    at = run(page("over_time"))
    at.get("button_group")[0].set_value(k)
    run(at)
    assert plotly_specs(at)[-1]["layout"]["title"]["text"] == f"pass^{k} over time"


def test_runs_page_shows_the_pass_through_columns_of_an_upload():
    header = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,trial,seed,input_tokens\n"
    data = (header + "r1,a,t1,completed,true,10,0.1,0,863145,42224\nr2,a,t1,completed,false,12,0.2,1,,\n").encode()
    at = run(page("runs", data, upload_name="seeded.csv"))
    table = frame_with(at, "Radar window")
    assert {"Trial", "Seed", "Input tokens"} <= set(table.columns) and "Epoch" not in table.columns
    row = table.set_index("Run").loc["r1"]
    assert (row["Trial"], row["Seed"], row["Input tokens"]) == (0, 863145, 42224)
    assert_clean(at, "runs page (pass-through columns)")
