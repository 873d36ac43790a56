"""Real-browser checks of the Compare page's two-datasets mode (issue 25): the sample against itself, an uploaded
new dataset in which one agent lost a quarter of its successes, and the link that names both datasets."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.browser_helpers import (
    TIMEOUT_MS,
    AppSession,
    Grid,
    assert_clean,
    new_context,
)
from tests.helpers import quarter_of_successes_lost

pytestmark = pytest.mark.browser

TWO_DATASETS = "Two datasets (baseline vs new)"


def click_main_radio(app: AppSession, option: str, nth: int = 0) -> None:
    """Click the ``nth`` radio option labelled ``option`` in the page (not the sidebar). The caller waits for what
    the click shows (a rerun drawing nothing slow can come and go between two polls of the rerun counter)."""
    app.page.locator("[data-testid='stMain'] [data-testid='stRadioOption']", has_text=option).nth(nth).click()


def verdict_grid(app: AppSession, rows: int, until: Callable[[Grid], bool] = lambda g: True) -> Grid:
    """The verdict table (the page's first table in this mode), once it shows ``rows`` agents (and ``until``)."""
    grid = app.grid(0, until=lambda g: "Verdict" in g.head and len(g.rows) == rows and until(g))
    app.settle()
    return grid


def verdicts(grid: Grid) -> dict[str, str]:
    return {r["Agent"]: r["Verdict"] for r in grid.records()}


def test_the_sample_as_both_datasets_is_no_real_change_for_every_agent(app, sample_report):
    app.goto("compare")
    click_main_radio(app, TWO_DATASETS)
    agents = [a.agent_id for a in sample_report.agents]
    grid = verdict_grid(app, len(agents))
    assert verdicts(grid) == dict.fromkeys(agents, "no real change")
    text = app.main_text()
    assert "Only in the baseline (0): none" in text and "Only in the new dataset (0): none" in text
    assert "paired bootstrap over tasks" in text
    assert_clean(app, "Compare, two datasets")
    app.page.set_viewport_size({"width": 1400, "height": 2600})
    app.settle()
    app.screenshot("compare-two-datasets-sample-1400")


@pytest.fixture(scope="module")
def quarter_lost(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample with every fourth successful run of steady-pro turned into a failure."""
    return quarter_of_successes_lost(tmp_path_factory.mktemp("compare-datasets") / "this-week.csv")


def checked_radios(app: AppSession) -> list[str]:
    """The labels of the page's chosen radio options, in page order."""
    checked = app.page.locator("[data-testid='stMain'] [role='radiogroup'] input[type='radio']:checked")
    return [checked.nth(i).evaluate("e => e.closest('label').innerText").strip() for i in range(checked.count())]


def test_a_link_naming_an_uploaded_new_dataset_waits_for_it_then_shows_the_agent_that_got_worse(
        app, browser, sample_report, quarter_lost):
    sha = hashlib.sha256(quarter_lost.read_bytes()).hexdigest()[:16]
    app.goto(f"compare?compare=datasets&new=upload:{sha}")  # a fresh browser: the mode restored, the file named
    text = app.main_text()
    assert f"The new dataset is an uploaded file whose sha256 starts with {sha}" in text
    assert "The comparison appears once both datasets are chosen and scored" in text
    assert checked_radios(app) == [TWO_DATASETS, "Sample data", "Upload a file"]

    app.page.locator("[data-testid='stMain'] input[type='file']").set_input_files(str(quarter_lost))
    agents = [a.agent_id for a in sample_report.agents]
    found = verdicts(verdict_grid(app, len(agents), until=lambda g: "worse" in g.text()))
    assert found.pop("steady-pro") == "worse"
    assert set(found.values()) == {"no real change"}
    assert app.page.locator("[data-testid='stSelectbox']").get_by_role("combobox", name="Agent").first \
        .input_value() == "steady-pro"  # the one agent whose verdict is a change is the one detailed
    assert "starts with" not in app.main_text()  # the file the link named: no notice of another file
    assert_clean(app, "Compare, an uploaded new dataset")
    app.page.set_viewport_size({"width": 1400, "height": 2600})
    app.settle()
    app.screenshot("compare-two-datasets-upload-1400")

    app.page.locator("[data-testid='stSidebar']").get_by_role("button", name="Copy link").click()
    code = app.page.locator("[data-testid='stPopoverBody'] [data-testid='stCode'] code")
    code.wait_for(timeout=TIMEOUT_MS)
    link = code.inner_text().strip()
    app.page.keyboard.press("Escape")
    assert "/compare?" in link and "compare=datasets" in link and f"new=upload%3A{sha}" in link
    assert "baseline=" not in link  # the sample, the default

    context = new_context(browser)
    try:
        fresh = AppSession(context.new_page(), app.base_url)
        fresh.page.goto(link, timeout=TIMEOUT_MS)
        fresh.settle()
        assert f"The new dataset is an uploaded file whose sha256 starts with {sha}" in fresh.main_text()
        assert checked_radios(fresh) == [TWO_DATASETS, "Sample data", "Upload a file"]
    finally:
        context.close()


def test_a_link_with_pairs_opens_them_compared_under_their_new_ids_and_the_copied_link_keeps_them(
        app, sample_report):
    """Two pairs that swap two agents' ids (the sample on both sides): each baseline agent compared under the other's
    id, as ``diff --pair`` compares them; the copied link carries the pairs in order."""
    scores = {a.agent_id: a.headline.score for a in sample_report.agents}
    app.goto("compare?compare=datasets&pair=steady-pro&pair=swift-lite&pair=swift-lite&pair=steady-pro")
    grid = verdict_grid(app, len(scores), until=lambda g: "worse" in g.text() or "better" in g.text())
    rows = {r["Agent"]: r for r in grid.records()}
    assert rows["swift-lite"]["Baseline"] == f"{scores['steady-pro']:.2f}"
    assert rows["swift-lite"]["New"] == f"{scores['swift-lite']:.2f}"
    assert rows["steady-pro"]["Baseline"] == f"{scores['swift-lite']:.2f}"
    text = app.main_text()
    assert "The baseline's steady-pro compared as swift-lite" in text
    assert "The baseline's swift-lite compared as steady-pro" in text
    assert_clean(app, "Compare, two datasets with pairs")

    app.page.locator("[data-testid='stSidebar']").get_by_role("button", name="Copy link").click()
    code = app.page.locator("[data-testid='stPopoverBody'] [data-testid='stCode'] code")
    code.wait_for(timeout=TIMEOUT_MS)
    link = code.inner_text().strip()
    app.page.keyboard.press("Escape")
    assert "pair=steady-pro&pair=swift-lite&pair=swift-lite&pair=steady-pro" in link, link
