"""Real-browser checks of the Compare page's two-datasets mode (issue 25): the sample against itself, an uploaded
new dataset in which one agent lost a quarter of its successes, and the link that names both datasets."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.browser_helpers import (
    RERUN_COUNTER_JS,
    TIMEOUT_MS,
    VIEWPORT,
    AppSession,
    Grid,
    assert_clean,
)
from tests.helpers import quarter_of_successes_lost

pytestmark = pytest.mark.browser

TWO_DATASETS = "Two datasets (baseline vs new)"


def main_radio(app: AppSession, option: str, nth: int = 0) -> None:
    """Click the ``nth`` radio option labelled ``option`` in the page (not the sidebar) and wait for the rerun."""
    radio = app.page.locator("[data-testid='stMain'] [data-testid='stRadioOption']", has_text=option).nth(nth)
    app.interact(radio.click, description=f"choosing {option!r}")


def verdict_grid(app: AppSession, rows: int, until: Callable[[Grid], bool] = lambda g: True) -> Grid:
    """The verdict table (the page's first table in this mode), once it shows ``rows`` agents (and ``until``)."""
    return app.grid(0, until=lambda g: "Verdict" in g.head and len(g.rows) == rows and until(g))


def verdicts(grid: Grid) -> dict[str, str]:
    return {r["Agent"]: r["Verdict"] for r in grid.records()}


def test_the_sample_as_both_datasets_is_no_real_change_for_every_agent(app, sample_report):
    app.goto("compare")
    main_radio(app, TWO_DATASETS)
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


def test_an_uploaded_new_dataset_that_lost_successes_is_worse_and_its_link_waits_for_the_file(
        app, browser, sample_report, quarter_lost):
    app.goto("compare")
    main_radio(app, TWO_DATASETS)
    agents = [a.agent_id for a in sample_report.agents]
    verdict_grid(app, len(agents))  # the page drawn in full before the next click
    main_radio(app, "Upload a file", nth=1)  # the new dataset's (the baseline's is the first)
    file_input = app.page.locator("[data-testid='stMain'] input[type='file']")
    app.interact(lambda: file_input.set_input_files(str(quarter_lost)), description="uploading the new dataset")
    grid = verdict_grid(app, len(agents), until=lambda g: "worse" in g.text())
    found = verdicts(grid)
    assert found.pop("steady-pro") == "worse"
    assert set(found.values()) == {"no real change"}
    assert app.page.locator("[data-testid='stSelectbox']").get_by_role("combobox", name="Agent").first \
        .input_value() == "steady-pro"  # the one agent whose verdict is a change is the one detailed
    assert_clean(app, "Compare, an uploaded new dataset")
    app.page.set_viewport_size({"width": 1400, "height": 2600})
    app.settle()
    app.screenshot("compare-two-datasets-upload-1400")

    sha = hashlib.sha256(quarter_lost.read_bytes()).hexdigest()[:16]
    app.page.locator("[data-testid='stSidebar']").get_by_role("button", name="Copy link").click()
    code = app.page.locator("[data-testid='stPopoverBody'] [data-testid='stCode'] code")
    code.wait_for(timeout=TIMEOUT_MS)
    link = code.inner_text().strip()
    app.page.keyboard.press("Escape")
    assert "compare=datasets" in link and f"new=upload%3A{sha}" in link and "baseline=" not in link

    context = browser.new_context(viewport=VIEWPORT)
    try:
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(RERUN_COUNTER_JS)
        fresh = AppSession(context.new_page(), app.base_url)
        fresh.page.goto(link, timeout=TIMEOUT_MS)
        fresh.settle()
        text = fresh.main_text()
        assert f"This link's new dataset is an uploaded file whose sha256 starts with {sha}" in text
        assert "The comparison appears once both datasets are chosen and scored" in text
        checked = fresh.page.locator("[data-testid='stMain'] [role='radiogroup'] input[type='radio']:checked")
        labels = [checked.nth(i).evaluate("e => e.closest('label').innerText") for i in range(checked.count())]
        assert [label.strip() for label in labels] == [TWO_DATASETS, "Sample data", "Upload a file"]
    finally:
        context.close()
