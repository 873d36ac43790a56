"""Issue 15's chart builders and display tables, tested directly (no browser) against scoring.analysis.explain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from explorer import charts, tables
from explorer import format as fmt
from scoring import load_runs, score_runs
from scoring.analysis.explain import explain
from scoring.analysis.fixes import fixes

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sample():
    runs = load_runs(ROOT / "sample_data" / "runs.csv").runs
    return runs, score_runs(runs)


@pytest.mark.parametrize("agent", ["steady-pro", "crashy-runner", "newcomer", "null-pointer"])
def test_points_lost_chart_earned_and_lost_fill_each_maximum(sample, agent):
    runs, report = sample
    points = explain(runs, agent, report).points
    fig = charts.points_lost_chart(points)
    earned, lost = fig.data
    assert (earned.name, lost.name) == ("earned", "lost")
    maxima = [c.max for c in points.components]
    assert [e + x for e, x in zip(earned.x, lost.x)] == pytest.approx(maxima)
    assert sum(earned.x) == pytest.approx(points.weighted_score)
    assert all(label.startswith(tables.COMPONENT_LABELS[c.name]) for label, c in zip(earned.y, points.components))
    title = fig.layout.title.text
    assert title.startswith(f"{agent}: {fmt.score(points.score)} earned")
    assert ("zero-success floor" in title.replace("<br>", " ")) == points.zero_success_floor
    # A legend swatch stands for bars of one colour: the earned bars take their component's colour, so there is
    # no legend (a green "earned" swatch over bars of four colours); the title says which colour is which.
    assert all(isinstance(t.marker.color, str) for t in fig.data if t.showlegend is not False)
    assert f"{fmt.score(points.score)} earned (coloured), " in title.replace("<br>", " ")
    assert "lost (pale red)" in title.replace("<br>", " ")


def test_points_table_adds_up(sample):
    runs, report = sample
    points = explain(runs, "crashy-runner", report).points
    table = tables.points_table(points).set_index("Component")
    parts = table.loc[list(tables.COMPONENT_LABELS.values())]
    assert float(parts["Earned"].sum()) == pytest.approx(points.weighted_score)
    assert float((parts["Earned"] + parts["Lost"]).sum()) == pytest.approx(100.0)
    assert float(table.loc["Headline score", "Earned"]) == points.score == 74.67
    assert float(table.loc["Headline score", "Lost"]) == pytest.approx(100 - 74.67)
    floor = tables.points_table(explain(runs, "null-pointer", report).points).set_index("Component")
    assert "Zero-success floor" in floor.index and float(floor.loc["Headline score", "Earned"]) == 0.0


def test_influence_bars_red_for_a_cost_green_for_a_help(sample):
    runs, report = sample
    found = explain(runs, "crashy-runner", report).influence
    rows = pd.concat([found.tasks.head(3), found.tasks.tail(2)])
    fig = charts.influence_bars(rows, title="t")
    (bars,) = fig.data
    assert list(bars.y) == list(rows["task_id"])
    assert list(bars.x) == pytest.approx(list(rows["points_if_removed"]))
    assert [c == "#d62728" for c in bars.marker.color] == [v > 0 for v in rows["points_if_removed"]]


def test_influence_bars_escape_task_ids():
    rows = pd.DataFrame({"task_id": ["<b>x</b>"], "runs": [2], "completed": [1], "points_if_removed": [0.5]})
    fig = charts.influence_bars(rows, title="t")
    assert "<b>" not in fig.data[0].y[0]


def test_influence_tables_match_the_influence(sample):
    runs, report = sample
    e = explain(runs, "crashy-runner", report)
    tasks = tables.influence_tasks_table(e.influence, report.policy)
    assert list(tasks["Task"]) == list(e.influence.tasks["task_id"])
    assert list(tasks["Points if removed"].astype(float)) == pytest.approx(
        list(e.influence.tasks["points_if_removed"]))
    costly = e.influence.costliest_runs(12)
    shown = tables.influence_runs_table(costly, report.policy)
    assert list(shown["Run"]) == list(costly["run_id"]) and (shown["Points if removed"] > 0).all()
    assert set(shown["Outcome"]) <= {"success", "failure", "unknown"}


def test_overtake_table_one_row_per_component(sample):
    runs, report = sample
    ahead = explain(runs, "crashy-runner", report).overtake
    table = tables.overtake_table(ahead)
    assert list(table["Component"]) == [tables.OVERTAKE_LABELS[c.component] for c in ahead.changes]
    # Each row names what its Now and Needed read: an average latency in ms, an average cost in dollars
    rows = dict(zip(table["Component"], table["Now"]))
    assert rows["Average latency"].endswith(" ms") and rows["Average cost"].startswith("$"), rows
    assert list(table["Reachable alone"]) == [c.reachable for c in ahead.changes]
    assert fmt.DASH not in set(table["Needed"][table["Reachable alone"]])


def test_fixes_table_first_rows_in_the_scoring_order(sample):
    runs, report = sample
    found = fixes(runs, "crashy-runner", report)
    table = tables.fixes_table(found, rows=5)
    assert len(table) == 5 and list(table["Task"]) == list(found.tasks["task_id"].head(5))
    assert list(table["Score if fixed"].astype(float)) == list(found.tasks["score_if_fixed"].head(5))


def test_points_format_never_shows_minus_zero():
    assert fmt.points(-0.004) == "0.00" and fmt.points(-0.0) == "0.00"
    assert fmt.points(-0.006) == "-0.01" and fmt.points(12.5) == "12.50" and fmt.points(None) == fmt.DASH


def test_task_heatmap_cells_where_the_matrix_says(sample):
    runs, report = sample
    from scoring.analysis.drilldown import task_matrix

    cells = task_matrix(runs, report.policy)
    agents = [a.agent_id for a in report.agents]
    tasks = sorted(cells["task_id"].unique())
    fig = charts.task_heatmap(cells, agents, tasks)
    heat, layer = fig.data
    assert list(heat.x) == agents and list(heat.y) == tasks
    z = pd.DataFrame(heat.z, index=tasks, columns=agents)
    for row in cells.sample(20, random_state=1).itertuples(index=False):
        value = z.loc[row.task_id, row.agent_id]
        assert (pd.isna(value) and pd.isna(row.success_rate)) or value == pytest.approx(row.success_rate)
    assert int(z.notna().to_numpy().sum()) <= len(cells)  # a cell without a run stays empty
    # The selectable layer: one point per cell with a run, in the matrix's order (a selection's index).
    assert list(zip(layer.x, layer.y)) == list(zip(cells["agent_id"], cells["task_id"]))


def test_a_task_heatmap_of_few_agents_keeps_its_cells_narrow_and_of_many_fills_the_page():
    """One agent's heatmap drew each task as a bar across the page (800 px by 22): up to five agents the plot is
    240 px wide (330 px with the task labels: it fits a phone), beyond it takes the page's width."""
    def heatmap(n: int) -> Any:
        agents = [f"agent-{i}" for i in range(n)]
        cells = pd.DataFrame({"task_id": ["t"] * n, "agent_id": agents, "runs": [1] * n, "outcomes": [1] * n,
                              "successes": [1] * n, "success_rate": [1.0] * n, "completed": [1] * n,
                              "completed_successes": [1] * n, "headline_success_rate": [1.0] * n})
        return charts.task_heatmap(cells, agents, ["t"])

    for n in (1, 5):
        layout = heatmap(n).layout
        assert layout.width == layout.margin.l + layout.margin.r + 240 == 330, n
    assert heatmap(6).layout.width is None  # the view stretches it


def test_task_heatmap_escapes_names():
    cells = pd.DataFrame({"task_id": ["<i>t</i>"], "agent_id": ["<b>a</b>"], "runs": [1], "outcomes": [1],
                          "successes": [1], "success_rate": [1.0], "completed": [1], "completed_successes": [1],
                          "headline_success_rate": [1.0]})
    fig = charts.task_heatmap(cells, ["<b>a</b>"], ["<i>t</i>"])
    assert "<b>" not in fig.data[0].x[0] and "<i>" not in fig.data[1].y[0]


def test_long_ids_are_cut_in_a_charts_labels_and_kept_whole_in_its_categories():
    """A reviewer's 200-character ids: the heatmap reserved 1,400 px of labels above a 280 x 120 px plot. Labels are
    cut in the middle (LABEL_CHARS), the categories keep each id whole: two ids that differ only at the end stay two
    columns with two labels."""
    long_a, long_b = "agent-" + "x" * 190 + "-DIFFEND1", "agent-" + "x" * 190 + "-DIFFEND2"
    task = "task-" + "y" * 150
    agents = [long_a, long_b]
    cells = pd.DataFrame({"task_id": [task, task], "agent_id": agents, "runs": [1, 1], "outcomes": [1, 1],
                          "successes": [1, 0], "success_rate": [1.0, 0.0], "completed": [1, 1],
                          "completed_successes": [1, 0], "headline_success_rate": [1.0, 0.0]})
    fig = charts.task_heatmap(cells, agents, [task])
    assert list(fig.layout.xaxis.tickvals) == agents and list(fig.data[0].x) == agents
    ticks = list(fig.layout.xaxis.ticktext)
    assert len(set(ticks)) == 2
    assert all(len(t) == charts.LABEL_CHARS and t.endswith(a[-8:]) for t, a in zip(ticks, agents))
    assert len(fig.layout.yaxis.ticktext[0]) == charts.LABEL_CHARS
    assert fig.layout.margin.t <= 20 + 7 * charts.LABEL_CHARS  # was 20 + 7 x 205
    bars = charts.pass_k_bars([(long_a, None), (long_b, {1: 0.5, 3: 0.2, 5: 0.1})], (1, 3, 5))
    assert list(bars.layout.xaxis.ticktext) == ticks and list(bars.data[0].x) == agents


def test_compare_charts_follow_the_comparison(sample):
    runs, report = sample
    from scoring.analysis.drilldown import compare
    from scoring.analysis.explain import component_weights

    c = compare(runs, "steady-pro", "swift-lite", report.policy, replicates=50)
    maxima = {n: 100 * w for n, w in component_weights(report.policy).items()}
    fig = charts.compare_components_chart(c.components, c.a, c.b, maxima)
    assert [t.name for t in fig.data] == ["steady-pro", "swift-lite"]
    assert list(fig.data[0].x) == pytest.approx(list(c.components["earned_a"]))
    assert list(fig.data[1].x) == pytest.approx(list(c.components["earned_b"]))
    bars = charts.paired_tasks_chart(c.tasks, c.a, c.b)
    assert list(bars.data[0].x) == list(c.tasks["task_id"])
    assert list(bars.data[0].y) == pytest.approx(list(c.tasks["difference"]))
    table = tables.compare_tasks(c)
    assert list(table["Difference"].astype(float)) == pytest.approx(list(c.tasks["difference"]))


def test_over_time_charts_one_line_per_agent_and_the_switches_marked(sample):
    runs, report = sample
    from scoring.analysis.drilldown import score_over_time

    agents = ["steady-pro", "newcomer", "null-pointer"]
    found = score_over_time(runs, report.policy, agents=agents)
    fig = charts.headline_over_time(found.frame, agents)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in lines] == agents
    marks = [t for t in fig.data if t.mode == "markers"]
    assert sum(len(t.x) for t in marks) == len(found.switches())
    radar = charts.radar_over_time(found.agent("steady-pro"), "steady-pro")
    assert len(radar.data) == 6  # five axes and the profile
    k = report.policy.pass_k_levels[-1]
    pk = charts.pass_k_over_time(found.frame, agents, k)
    assert [t.name for t in pk.data] == agents and pk.layout.title.text == f"pass^{k} over time"


def test_over_time_charts_of_runs_all_finished_on_one_day_draw_points_on_that_day(sample):
    """A newcomer's review: every harness file here finishes in one day, and the three charts were blank (a line
    through one point draws nothing) over an axis labelled '23:59:59.999 Jun 30 … 00:00:00.0005'."""
    from scoring.analysis.drilldown import score_over_time

    runs, report = sample
    one_day = runs.assign(finished_at=pd.Timestamp("2026-06-30T12:00:00Z"))
    found = score_over_time(one_day, report.policy, agents=["steady-pro"])
    assert found.frame["day"].nunique() == 1
    for fig in (charts.headline_over_time(found.frame, ["steady-pro"]),
                charts.radar_over_time(found.agent("steady-pro"), "steady-pro"),
                charts.pass_k_over_time(found.frame, ["steady-pro"], 1)):
        assert all(t.mode in ("lines+markers", "markers") for t in fig.data), [t.mode for t in fig.data]
        low, high = (pd.Timestamp(x) for x in fig.layout.xaxis.range)
        assert high - low == pd.Timedelta(days=2) and fig.layout.xaxis.tickformat == "%Y-%m-%d"
    several = score_over_time(runs, report.policy, agents=["steady-pro"])
    assert charts.headline_over_time(several.frame, ["steady-pro"]).data[0].mode == "lines"


def test_a_value_between_gaps_is_drawn_as_a_point():
    """A final review on two real tau2 files: grok-3's tasks first qualify on the last day, so its pass^1 over time
    was one value after a run of gaps, drawn as nothing (a line needs two points)."""
    days = pd.to_datetime(["2025-10-06", "2025-10-07", "2025-10-13"], utc=True)
    frame = pd.DataFrame({"agent_id": ["a"] * 3 + ["b"] * 3, "day": list(days) * 2,
                          "pass^1": pd.array([None, None, 0.3, 0.5, 0.6, 0.7], dtype="Float64"),
                          "qualifying_tasks": [0, 0, 1, 2, 2, 2]})
    fig = charts.pass_k_over_time(frame, ["a", "b"], 1)
    assert [t.mode for t in fig.data] == ["lines+markers", "lines"]
    assert charts._over_days([1.0, None, 2.0]) == "lines+markers" and charts._over_days([1.0, 2.0, None]) == "lines"


def test_the_task_heatmap_grows_with_its_cells_not_with_agents_times_tasks():
    # A dict of every (task, agent) pair took 2 GB of the server for 1,000 agents and 10,000 tasks (resilience audit).
    import tracemalloc

    k = 1_000  # 1,000 agents and tasks, 1,000 cells with a run (the diagonal): 1e6 pairs
    agents, tasks = [f"a{i}" for i in range(k)], [f"t{i:04d}" for i in range(k)]
    cells = pd.DataFrame({"task_id": tasks, "agent_id": agents, "success_rate": 0.5, "headline_success_rate": 0.5,
                          "runs": 1, "outcomes": 1, "successes": 1, "completed": 1})
    tracemalloc.start()
    charts.task_heatmap(cells, agents, tasks)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # The dense colour matrix and plotly's copies of it, about 50 bytes a pair; with the dict of pairs, 225 MB. (The
    # page shows at most HEATMAP_MAX_AGENTS x HEATMAP_MAX_TASKS pairs: the next test.)
    assert peak <= 64 * 10**6, f"{peak / 1e6:,.0f} MB"


def test_the_tasks_page_shows_at_most_its_agents_and_the_tasks_they_ran_most():
    from explorer import drill

    agents = [f"a{i:03d}" for i in range(100)]
    tasks = [f"t{i:04d}" for i in range(1_000)]
    cells = pd.DataFrame({"task_id": [t for t in tasks for _ in range(2)], "agent_id": [agents[i % 100] for i in
                                                                                          range(2_000)],
                          "runs": [1 + (i % 7) for i in range(2_000)]})
    view = drill.heatmap_view(cells, agents, tasks)
    assert view.cut and (view.all_agents, view.all_tasks) == (100, 1_000)
    assert view.agents == agents[:drill.HEATMAP_MAX_AGENTS] and len(view.tasks) == drill.HEATMAP_MAX_TASKS
    assert view.tasks == sorted(view.tasks)  # text order, as the whole map
    assert set(view.cells["agent_id"]) <= set(view.agents) and set(view.cells["task_id"]) <= set(view.tasks)
    runs = cells[cells["agent_id"].isin(view.agents)].groupby("task_id")["runs"].sum()
    assert runs[view.tasks].min() >= runs.drop(view.tasks).max()  # the tasks they ran most
    small = drill.heatmap_view(cells.head(10), agents[:5], tasks[:5])
    assert not small.cut
