"""Issue 15 in a real browser: a selection opens the right runs (Playwright + Debian's chromium).

Run from the repo root: ``.venv/bin/python -m pytest -m browser -q tests/e2e/test_drill_browser.py``.
A leaderboard row is selected by clicking its box in the grid's row-marker column (the grid is a canvas,
so by position); a heatmap cell by clicking the transparent marker plotly draws at its centre.
"""

from __future__ import annotations

import urllib.parse

import pytest

from scoring import load_runs
from scoring.analysis.drilldown import runs_view, task_matrix
from scoring.analysis.explain import explain
from tests.e2e.browser_helpers import SAMPLE_PATH, metric, upload
from tests.helpers import EDGE_CSV

ROW_HEIGHT = 35  # explorer.ui.ROW_HEIGHT: the grid's header and rows


@pytest.fixture(scope="module")
def sample_runs():
    return load_runs(SAMPLE_PATH.read_bytes(), name=SAMPLE_PATH.name).runs


def open_link(app, text: str) -> None:
    link = app.page.locator("[data-testid='stPageLink'] a", has_text=text)
    assert link.count() == 1, f"no single link {text!r}"
    app.interact(link.click, description=f"following {text!r}")


def select_row(app, grid, row: int, description: str) -> None:
    """Click the selection box of ``row`` (0 = the first data row) of a selectable dataframe."""
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    app.interact(lambda: app.page.mouse.click(box["x"] + 18, box["y"] + ROW_HEIGHT * (row + 1.5)),
                 description=description)


def assert_runs_page_shows(app, runs, *, agent: str, task: str | None = None) -> None:
    expected = runs_view(runs, agents=[agent], tasks=None if task is None else [task])
    assert app.page.get_by_role("heading", name="Runs", exact=True).count() == 1
    assert metric(app, "Runs shown") == f"{len(expected):,}"
    grid = app.grid(0, complete=len(expected) <= 15,
                    until=lambda g: bool(g.rows) and set(g.column("Agent")) == {agent})
    if task is not None:
        assert set(grid.column("Task")) == {task}
        assert sorted(grid.column("Run")) == sorted(expected["run_id"].astype(str))
    assert app.page.locator("[data-testid='stException']").count() == 0


@pytest.mark.browser
def test_selecting_a_leaderboard_row_opens_that_agents_runs(app, sample_report, sample_runs):
    app.goto("")
    agents = [a.agent_id for a in sample_report.agents]
    row = agents.index("crashy-runner")
    select_row(app, app.page.locator("[data-testid='stDataFrame']").first, row, "selecting the crashy-runner row")
    panel = app.page.locator(".st-key-leaderboard_selection")
    assert "#4 crashy-runner: 74.67" in panel.inner_text()
    assert "352 runs: 262 completed, 59 failed, 29 timed out" in panel.inner_text()
    app.screenshot("issue15-leaderboard-selected")
    open_link(app, "Open its 352 runs")
    # The filter, and the agent in focus beside it (the Runs page's own `agent` is its filter)
    assert "/runs?" in app.page.url and "&agent=crashy-runner" in app.page.url and "focus=crashy-runner" in app.page.url
    assert_runs_page_shows(app, sample_runs, agent="crashy-runner")
    app.screenshot("issue15-runs-crashy-runner")


def _params(url: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)


@pytest.mark.browser
def test_a_leaderboard_row_unticked_leaves_the_link_and_a_tick_never_moves_to_another_datasets_row(
        app, sample_report, tmp_path):
    app.goto("")
    grid = app.page.locator("[data-testid='stDataFrame']").first
    row = [a.agent_id for a in sample_report.agents].index("crashy-runner")
    select_row(app, grid, row, "ticking the crashy-runner row")
    assert "agent=crashy-runner" in app.page.url
    select_row(app, grid, row, "unticking it")
    # A link copied now opens with no row ticked: no agent in focus (the tick set the Runs page's filter, which
    # every page's link carries as runs.agent, as the session keeps it)
    assert "agent" not in _params(app.page.url) and _params(app.page.url)["runs.agent"] == ["crashy-runner"]
    assert app.page.locator(".st-key-leaderboard_selection").count() == 0
    select_row(app, grid, row, "ticking it again")
    path = tmp_path / "edge.csv"
    path.write_text(EDGE_CSV)
    upload(app, path)  # its fourth row is another agent (crashy-runner is not in it)
    assert app.page.locator(".st-key-leaderboard_selection").count() == 0
    assert "data=upload" in app.page.url and "agent=" not in app.page.url  # a link names only agents it shows
    assert not {"agent", "runs.agent"} & set(_params(app.page.url))


@pytest.mark.browser
def test_clicking_a_heatmap_cell_opens_its_runs(app, sample_runs):
    cells = task_matrix(sample_runs)
    index = int(cells.index[(cells["agent_id"] == "crashy-runner") & (cells["task_id"] == "task-35")][0])
    app.goto("tasks")
    app.screenshot("issue15-tasks")
    marker = app.page.locator("[data-testid='stPlotlyChart'] .scatterlayer .trace .point").nth(index)
    app.interact(lambda: marker.click(force=True), description="clicking the crashy-runner / task-35 cell")
    panel = app.page.locator(".st-key-heatmap_selection")
    assert "crashy-runner on task-35" in panel.inner_text()
    open_link(app, "Open these 13 runs")
    assert "agent=crashy-runner" in app.page.url and "task=task-35" in app.page.url
    assert_runs_page_shows(app, sample_runs, agent="crashy-runner", task="task-35")


@pytest.mark.browser
def test_headline_page_opens_on_the_selected_agent_and_a_task_opens_its_runs(app, sample_report, sample_runs):
    app.goto("")
    row = [a.agent_id for a in sample_report.agents].index("crashy-runner")
    select_row(app, app.page.locator("[data-testid='stDataFrame']").first, row, "selecting the crashy-runner row")
    open_link(app, "Why this score")
    text = app.main_text()
    assert app.page.get_by_role("combobox", name="Agent").first.input_value() == "#4 crashy-runner"
    assert "crashy-runner: 74.67 earned (coloured),\n25.33 lost (pale red)" in app.visible_text()  # no legend
    assert "What overtaking blackbox-api takes" in text
    app.screenshot("issue15-headline-crashy-runner")
    costliest = explain(sample_runs, "crashy-runner").influence.tasks["task_id"].iloc[0]  # the table's first row
    select_row(app, app.page.locator(".st-key-influence_tasks [data-testid='stDataFrame']"), 0,
               "selecting the costliest task")
    open_link(app, f"Open its runs on task {costliest}")
    assert_runs_page_shows(app, sample_runs, agent="crashy-runner", task=costliest)
