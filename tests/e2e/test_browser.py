"""End-to-end tests of the explorer in a real browser (Playwright + Debian's chromium).

Run from the repo root: ``.venv/bin/python -m pytest -m browser -q tests/e2e``. Screenshots of every page
and of the upload steps land in ``screenshots/`` (git-ignored) for a look by eye.

Streamlit dataframes are glide-data-grid canvases; each one also renders an accessible
``<table role="grid">`` whose ``td`` cells hold the cells' raw values (not the on-screen formatting), which is
what these tests read (see ``AppSession.grid``). What a page shows is checked against the scoring core's own
report of the same data.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re

import pytest

from explorer import data, pages
from scoring import CANONICAL_POLICY, RADAR_AXES, load_runs, score_runs
from tests.e2e.browser_helpers import (
    AXIS_LABELS,
    FIXTURES,
    POLICY_VERSION,
    SAMPLE_PATH,
    assert_clean,
    close,
    download,
    metric,
    nav_links,
    open_expander,
    press_on_slider,
    profile_order,
    selectbox_value,
    slider,
    upload,
    upload_many,
    write_csv,
)


@pytest.fixture(scope="session")
def sample_runs_count():
    return len(load_runs(SAMPLE_PATH.read_bytes(), name=SAMPLE_PATH.name).runs)


# --- (1) every page renders its main content -------------------------------------------------------------

def check_leaderboard(app, report) -> None:
    agents = [a.agent_id for a in report.agents]
    assert app.page.get_by_role("heading", name="Leaderboard").count() == 1
    assert metric(app, "Agents") == str(len(agents))
    # The version in full, as code text beside its label (a metric would cut it short).
    version = app.page.locator("[data-testid='stMarkdownContainer']").filter(has_text="Policy version")
    assert version.locator("code").first.inner_text().strip() == POLICY_VERSION
    grid = app.grid(0)
    assert grid.head[:3] == ["Rank", "Agent", "Score"], grid.head
    assert grid.column("Agent") == agents
    assert {"steady-pro", "null-pointer"} <= set(grid.column("Agent"))
    for row, a in zip(grid.records(), report.agents):
        assert close(row["Score"], a.headline.score), (row, a.headline.score)
        assert row["Rank"] == str(a.rank)
    floor = grid.records()[agents.index("null-pointer")]
    assert "zero-success floor" in floor["Flags"]
    for label in ("Download the report (JSON)", "Download the report (CSV)"):
        assert app.page.locator("[data-testid='stDownloadButton']", has_text=label).count() == 1


def check_headline(app, report) -> None:
    first = report.agents[0]
    assert selectbox_value(app, "Agent") == f"#1 {first.agent_id}"
    assert metric(app, "Headline score") == f"{first.headline.score:.2f}"
    # The waterfall, where the points went, the costliest tasks, and the two anchor maps.
    assert app.page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").count() == 5
    text = app.main_text()
    assert "In words" in text and "Anchor maps" in text and "Consistency gate" in text
    assert "Where the points went" in text and "What costs points" in text and "ranked first" in text
    code = app.page.locator("[data-testid='stCode']").first.inner_text()
    assert "score = round(100 ×" in code and f"{first.headline.score:.2f}" in code


def check_radar(app, report) -> None:
    for label in AXIS_LABELS:
        assert slider(app, label).get_attribute("aria-valuetext") == "20%", label
    chart = app.page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").first
    assert chart.locator("g.polar, .polarlayer").count() >= 1, "no polar layer in the radar chart"
    assert chart.locator(".scatterlayer .trace, .polarlayer .trace").count() >= 1, "no trace on the radar"
    grid = app.grid(0)
    assert grid.head[:6] == ["Profile rank", "Agent", "Profile score", "Headline flags", "Headline score",
                             "Headline rank"]
    assert grid.column("Agent") == profile_order(report, report.policy.radar_weights)
    for row in grid.records():
        a = report.agent(row["Agent"])
        assert close(row["Headline score"], a.headline.score) and row["Headline rank"] == str(a.rank), row
        assert row["Headline flags"] == ", ".join(a.headline.flags), row  # the zero-success agent says so on its row


def check_repeatability(app, report) -> None:
    bars = app.page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").first
    assert bars.locator(".barlayer, g.bars").count() >= 1, "no bar layer in the pass^k chart"
    assert bars.locator(".barlayer .point path, g.bars .point path").count() >= 1, "no bar drawn"
    summary = app.grid(0)
    assert summary.column("Agent") == [a.agent_id for a in report.agents]
    for level in report.policy.pass_k_levels:
        assert f"pass^{level}" in summary.head
    unqualified = [a.agent_id for a in report.agents if a.repeatability.pass_k is None]
    for agent in unqualified:
        assert agent in app.main_text()
    task_grid = app.grid(1, complete=False)  # 360 px high: only the drawn rows are mirrored
    assert task_grid.head[:2] == ["Task", "Outcomes (n)"] and task_grid.column("Task")[0].startswith("task-")


def check_methodology(app, report) -> None:
    visible = app.visible_text()
    for badge in ("published", "explorer-defined"):
        assert badge in visible
    grid_text = "\n".join(g.text() for g in app.grids())
    for anchor in ("500 ms", "$0.001", "10,000 ms", "2 steps"):
        assert anchor in grid_text, anchor
    assert "$0.001" in visible  # also on the cost anchor chart's axis
    constants = app.grid(0).records()
    assert [(c["Constant"], c["Provenance"]) for c in constants] == [
        (c.name, c.provenance) for c in CANONICAL_POLICY.constants()]
    assert app.page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").count() == 3
    assert POLICY_VERSION in visible


def check_uncertainty(app, report) -> None:
    assert app.page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").count() >= 3
    intervals = app.grid(0)
    # rank, agent and score pinned at the left (readable on a phone), then the tie group
    assert intervals.head[:4] == ["Rank", "Agent", "Score", "Tie group"], intervals.head
    assert intervals.column("Agent") == [a.agent_id for a in report.agents]
    for row, a in zip(intervals.records(), report.agents):
        if a.headline.ranked:
            low, high = float(row["Score low"]), float(row["Score high"])
            assert low <= a.headline.score + 0.006 and a.headline.score - 0.006 <= high, row
    assert selectbox_value(app, "Agent") == report.agents[0].agent_id


CHECKS = {"Leaderboard": check_leaderboard, "Headline composite": check_headline, "Fitness radar": check_radar,
          "Repeatability": check_repeatability, "Is the difference real?": check_uncertainty,
          "Methodology": check_methodology}
# (screenshot name, url path, title) of the pages checked one by one, in the sidebar's order (the app's page list).
PAGES = [(f"{i + 1:02d}-{p.name}", p.url_path, p.title) for i, p in enumerate(pages.PAGES) if p.title in CHECKS]


@pytest.mark.browser
@pytest.mark.parametrize("shot, path, title", PAGES, ids=[p[2] for p in PAGES])
def test_page_shows_its_content(app, sample_report, sample_runs_count, shot, path, title):
    app.goto(path)
    app.screenshot(shot)
    assert app.page.get_by_role("heading", name=title, exact=True).count() >= 1
    assert "Sample data" in app.sidebar_text() and f"{sample_runs_count:,} runs" in app.sidebar_text()
    CHECKS[title](app, sample_report)
    assert_clean(app, title)


@pytest.mark.browser
def test_navigation_lists_every_page_and_the_others_are_clean(app):
    """The sidebar lists the pages above; any page added since (no specific checks yet) at least renders cleanly."""
    app.goto("")
    links = nav_links(app)
    assert [(title, path) for _, path, title in PAGES] == [link for link in links if link[0] in CHECKS]
    for title, path in links:
        if title in CHECKS:
            continue
        app.goto(path)
        app.screenshot(f"extra-{path}")
        assert app.page.get_by_role("heading", name=title, exact=True).count() >= 1, title
        assert_clean(app, title)


# --- (2) viewer weights re-rank the profile, never the headline -------------------------------------------

@pytest.mark.browser
def test_radar_weights_rerank_profile_not_headline(app, sample_report):
    app.goto("radar")
    defaults = dict.fromkeys(RADAR_AXES, 0.2)
    before = app.grid(0)
    assert before.column("Agent") == profile_order(sample_report, defaults)
    headline_before = {r["Agent"]: (r["Headline score"], r["Headline rank"]) for r in before.records()}

    press_on_slider(app, "Correctness", "End")
    assert slider(app, "Correctness").get_attribute("aria-valuetext") == "100%"
    press_on_slider(app, "Tool efficiency", "Home")
    assert slider(app, "Tool efficiency").get_attribute("aria-valuetext") == "0%"

    weights = {**defaults, "correctness": 1.0, "tool_efficiency": 0.0}
    expected = profile_order(sample_report, weights)
    assert expected != before.column("Agent"), "these weights should re-rank the sample's agents"
    after = app.grid(0, until=lambda g: g.column("Agent") == expected)
    app.screenshot("07-radar-reweighted")
    headline_after = {r["Agent"]: (r["Headline score"], r["Headline rank"]) for r in after.records()}
    assert headline_after == headline_before
    assert [r["Profile rank"] for r in after.records()] == [str(i) for i in range(1, len(expected) + 1)]
    caption = app.main_text()
    assert "Correctness 62.5%" in caption and "Tool efficiency 0.0%" in caption
    assert_clean(app, "radar after moving sliders")

    app.interact(app.page.get_by_role("button", name=re.compile("Reset weights")).click,
                 description="resetting the weights")
    for label in AXIS_LABELS:
        assert slider(app, label).get_attribute("aria-valuetext") == "20%", label
    app.grid(0, until=lambda g: g == before)


# --- (3) an invalid upload is refused with a report, then rescued by excluding its invalid rows ------------

# The refusal grid's sideways scroller, and each reason's width in the grid's own font (glide draws its cells on a
# canvas in the app's body font at 14 px: measured on a canvas too).
REASONS_FIT_JS = """(reasons) => {
  const grid = document.querySelector("[data-testid='stDataFrame']");
  const scroller = grid.querySelector('.dvn-scroller');
  const context = document.createElement('canvas').getContext('2d');
  context.font = `400 14px ${getComputedStyle(grid).fontFamily}`;
  return {scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth,
          widths: reasons.map(r => context.measureText(r).width)};
}"""

@pytest.mark.browser
def test_invalid_upload_report_and_exclusion(app, tmp_path):
    path = write_csv(tmp_path / "bad-runs.csv", [
        ("b1", "alpha-bad-agent", "t1", "completed", "true", 1200, 0.004, 3, "2026-06-01T00:00:00Z"),
        ("b2", "alpha-bad-agent", "t2", "done", "true", 1100, 0.004, 3, "2026-06-01T00:01:00Z"),
        ("b3", "beta-bad-agent", "t1", "completed", "false", -5, 0.002, 2, "2026-06-01T00:02:00Z"),
        ("b4", "beta-bad-agent", "t2", "completed", "true", 900, 0.002, 2, "2026-06-01T00:03:00Z"),
        ("b5", "alpha-bad-agent", "t1", "failed", "false", 1500, "abc", 4, "2026-06-01T00:04:00Z"),
        ("b6", "beta-bad-agent", "t1", "completed", "true", 950, 0.002, 2, "2026-06-01T00:05:00Z"),
        ("b7", "alpha-bad-agent", "t2", "completed", "false", 1300, 0.005, 3, "2026-06-01T00:06:00Z"),
    ])
    app.goto("")
    upload(app, path)
    app.screenshot("08-upload-refused")

    refusal = app.page.locator("[data-testid='stAlert']", has_text="was refused")
    assert refusal.count() == 1
    assert "bad-runs.csv" in refusal.inner_text() and "3 problems found" in refusal.inner_text()
    problems = app.grid(0).records()
    assert [(p["Row"], p["Column"]) for p in problems] == [("2", "status"), ("3", "latency_ms"), ("5", "cost_usd")]
    assert "done" in problems[0]["Value"] and problems[0]["Reason"].startswith("unknown status")
    assert "-5" in problems[1]["Value"] and problems[1]["Reason"].startswith("negative")
    assert problems[2]["Reason"] == "not a number"
    # At 1440 px every reason is whole: the table needs no sideways scroll, and each reason, measured in the grid's
    # font, fits the lines its Reason column gives it (one line, or the rows' wrapped lines less one for word breaks).
    fit = app.page.evaluate(REASONS_FIT_JS, [p["Reason"] for p in problems])
    assert app.page.viewport_size["width"] == 1440 and fit["scrollWidth"] <= fit["clientWidth"] + 1, fit
    reasons = [p["Reason"] for p in problems]
    height = data.refusal_row_height(reasons)
    lines = 1 if height is None else (height - 10) // data.REFUSAL_LINE_PX - 1
    assert max(fit["widths"]) > data.REFUSAL_PX["reason"] - 16  # the longest reason needs the wrapping here
    assert all(w <= lines * (data.REFUSAL_PX["reason"] - 16) for w in fit["widths"]), (fit, lines)
    assert "refused (3 invalid rows)" in app.sidebar_text()
    assert app.page.locator("[data-testid='stMetric']").count() == 0, "a refused file must not be scored"
    assert_clean(app, "refused upload")

    exclude = app.page.get_by_role("button", name=re.compile(r"^Exclude the 3 invalid rows of 7"))
    assert exclude.count() == 1
    assert "of 7 and score the rest" in exclude.inner_text()
    app.interact(exclude.click, description="excluding the invalid rows")
    app.screenshot("09-upload-excluded")

    board = app.grid(0)
    assert board.column("Agent") == ["beta-bad-agent", "alpha-bad-agent"]
    assert metric(app, "Runs") == "4" and metric(app, "Agents") == "2"
    warning = app.page.locator("[data-testid='stAlert']", has_text="excluded on request").inner_text()
    assert "3 invalid rows of 7" in warning
    sidebar = app.sidebar_text()
    assert "Uploaded: bad-runs.csv" in sidebar and "4 runs" in sidebar and "3 excluded rows" in sidebar
    assert app.page.locator("[data-testid='stAlert']", has_text="was refused").count() == 0
    assert_clean(app, "leaderboard after excluding rows")


# --- (4) a valid upload is scored on every page ------------------------------------------------------------

def valid_rows() -> list[tuple]:
    rows = []
    plan = {  # agent: (successes out of 6, latency ms, cost USD, steps)
        "zeta-upload-agent": ([True, True, True, True, False, True], 800, 0.002, 3),
        "eta-upload-agent": ([True, False, True, False, False, True], 3200, 0.02, 9),
        "theta-upload-agent": ([False] * 6, 400, 0.001, 2),
    }
    n = 0
    for agent, (outcomes, latency, cost, steps) in plan.items():
        for i, ok in enumerate(outcomes):
            n += 1
            rows.append((f"u{n:03d}", agent, f"task-{i % 2}", "completed", str(ok).lower(),
                         latency + 37 * i, cost, steps, f"2026-06-02T00:{n:02d}:00Z"))
    return rows


@pytest.mark.browser
def test_valid_upload_on_every_page(app, tmp_path):
    path = write_csv(tmp_path / "upload-runs.csv", valid_rows())
    report = score_runs(load_runs(path.read_bytes(), name=path.name).runs, CANONICAL_POLICY)
    agents = [a.agent_id for a in report.agents]
    assert agents[-1] == "theta-upload-agent"  # the zero-success floor puts it last

    app.goto("")
    upload(app, path)
    app.screenshot("10-upload-valid-leaderboard")
    board = app.grid(0)
    assert board.column("Agent") == agents
    for row, a in zip(board.records(), report.agents):
        assert close(row["Score"], a.headline.score), (row, a.headline.score)
    assert "zero-success floor" in board.records()[-1]["Flags"]
    assert metric(app, "Runs") == "18" and metric(app, "Agents") == "3"
    assert "Uploaded: upload-runs.csv" in app.sidebar_text() and "0 excluded rows" in app.sidebar_text()
    assert_clean(app, "leaderboard of the upload")

    # The upload lives in this session: the other pages (opened from the sidebar) score the same file.
    for number, (title, path_) in enumerate(nav_links(app)[1:], start=11):
        app.open_from_sidebar(title)
        app.screenshot(f"{number}-upload-valid-{path_}")
        assert app.page.get_by_role("heading", name=title, exact=True).count() >= 1
        if title == "Headline composite":
            assert selectbox_value(app, "Agent") == f"#1 {agents[0]}"
        elif title == "Fitness radar":
            assert sorted(app.grid(0).column("Agent")) == sorted(agents)
        elif title in ("Repeatability", "Is the difference real?"):
            assert app.grid(0).column("Agent") == agents
        assert_clean(app, f"{title} with the upload")


@pytest.mark.browser
def test_an_address_in_an_agent_id_is_never_a_link(app, tmp_path):
    """A reviewer's agent named =HYPERLINK("http://evil.example","click") was a live link in the Headline page's
    headings and bullets: Streamlit's markdown links a bare address after the escapes are read. Its words stay."""
    agents = ['=HYPERLINK("http://evil.example","click")', "see www.evil.example", "ops@evil.example"]
    rows = [(f"a{i}-{j}", agent, f"t{j % 2}", "completed", str(j % 2 == 0).lower(), 1000 + j, 0.01, 2,
             f"2026-06-02T00:{i:02d}:{j:02d}Z") for i, agent in enumerate(agents) for j in range(6)]
    app.goto("")
    upload(app, write_csv(tmp_path / "addresses.csv", rows))
    for title in ("Leaderboard", "Headline composite"):
        if title != "Leaderboard":
            app.open_from_sidebar(title)
        main = app.page.locator("[data-testid='stMain']")
        links = [a.get_attribute("href") or "" for a in main.locator("a").all()]
        # (the page's own links to the Runs page carry the id in their query: a link here, to this app)
        assert not [h for h in links if "evil" in h and not h.startswith("runs?")], (title, links)
        assert "evil.example" in main.inner_text()  # the words are shown, as words
        assert_clean(app, f"{title} with addresses in agent ids")


# --- (5) the report downloads --------------------------------------------------------------------------------

def no_nan_constant(name: str):
    raise AssertionError(f"non-standard JSON constant {name} in the report")


@pytest.mark.browser
def test_report_downloads(app, sample_report):
    app.goto("")
    agents = [a.agent_id for a in sample_report.agents]
    shown = app.grid(0).column("Agent")
    assert shown == agents

    sha = hashlib.sha256(SAMPLE_PATH.read_bytes()).hexdigest()
    runs_before = app.runs_finished()  # a click reruns nothing (a rerun renewed the other button's file id)
    name, text = download(app, "Download the report (JSON)")
    assert name == f"report_{POLICY_VERSION}_{sha[:12]}.json"  # what it is: the policy and the dataset
    report = json.loads(text, parse_constant=no_nan_constant)
    assert report["policy_version"] == POLICY_VERSION
    assert report.pop("dataset") == {"name": "runs.csv", "kind": "file", "sha256": sha, "sha256_of": "file bytes",
                                     "runs": 2796, "rows_read": 2796, "excluded_rows": 0}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", report.pop("generated_at"))
    assert [a["agent_id"] for a in report["agents"]] == shown
    assert len(report["agents"]) == 10 and report["agents"][0]["agent_id"] == "steady-pro"
    for entry, a in zip(report["agents"], sample_report.agents):
        assert entry["headline"]["score"] == a.headline.score
    assert report == json.loads(sample_report.to_json_text())

    name, text = download(app, "Download the report (CSV)")
    assert name == f"report_{POLICY_VERSION}_{sha[:12]}.csv"
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {(r["policy_version"], r["dataset_name"], r["dataset_sha256"]) for r in rows} == {
        (POLICY_VERSION, "runs.csv", sha)}
    assert [r["agent_id"] for r in rows] == shown
    assert [r["rank"] for r in rows] == [str(a.rank) if a.rank else "" for a in sample_report.agents]
    assert "NaN" not in text and "None" not in text
    assert app.runs_finished() == runs_before
    assert_clean(app, "leaderboard after the downloads")


# --- (6) harness results: several files in one upload, and a table through a column mapping ----------------

@pytest.mark.browser
def test_two_tau2_files_in_one_upload(app):
    from scoring.load.importers import import_files

    paths = sorted((FIXTURES / "tau2").glob("*.json"))
    expected = score_runs(import_files(paths).validate().runs, CANONICAL_POLICY)
    app.goto("")
    upload_many(app, paths)
    board = app.grid(0, until=lambda g: len(g.rows) == 2)
    assert board.column("Agent") == [a.agent_id for a in expected.agents] == [
        "xai/grok-3-mini@airline", "xai/grok-3@airline"]
    for row, a in zip(board.records(), expected.agents):
        assert close(row["Score"], a.headline.score), (row, a.headline.score)
    sidebar = app.sidebar_text()
    assert "Imported: 2 files" in sidebar and "20 runs" in sidebar and "Import: 2 files, 20 runs" in sidebar
    report = app.page.locator("[data-testid='stExpander']", has_text="Import report")
    open_expander(app, report)
    text = report.inner_text()
    assert "latency_ms" in text and "duration (s) x 1000" in text and "unequal trial counts" in text
    app.screenshot("20-upload-two-tau2-files")
    assert_clean(app, "two tau2 files")


@pytest.mark.browser
def test_a_foreign_table_through_the_mapping_page(app):
    app.goto("")
    upload_many(app, [FIXTURES / "mapping" / "foreign.csv"])
    assert app.page.locator("[data-testid='stAlert']", has_text="was refused").count() == 1
    # A link (not st.switch_page, which resets the sidebar's widgets) keeps the upload.
    app.interact(app.page.get_by_role("link", name="Map this table's columns").click,
                 description="opening the mapping page")
    assert app.page.get_by_role("heading", name="Map a table", exact=True).count() == 1
    saved = app.page.locator("[data-testid='stExpander']", has_text="Start from a saved mapping")
    open_expander(app, saved)
    app.interact(lambda: saved.locator("input[type='file']").set_input_files(
        str(FIXTURES / "mapping" / "foreign-map.json")), description="loading the saved mapping")
    assert "Every row is valid: 12 runs of 2 agents on 2 tasks." in app.main_text()
    app.screenshot("21-mapping-page")
    app.interact(app.page.get_by_role("button", name="Score with this mapping").click, description="scoring")
    app.interact(app.page.get_by_role("link", name="Open the Leaderboard").click, description="opening the board")
    assert app.grid(0).column("Agent") == ["gpt-x/terse", "gpt-x/verbose"]
    assert "foreign.csv (mapped)" in app.sidebar_text()
    assert_clean(app, "leaderboard of the mapped table")
