"""Team Scorecards and score badges in a real browser: a scorecard link re-ranks the profile and leaves every
headline number alone; a badge downloads under its own file name with the exact score the page shows."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from scoring import RADAR_AXES
from scoring.analysis.scorecard import EXAMPLES_DIR, Scorecard, apply_scorecard, read_scorecard, scorecard_to_json
from tests.e2e.browser_helpers import (
    AXIS_LABELS,
    POLICY_VERSION,
    ROOT,
    SAMPLE_PATH,
    assert_clean,
    download,
    metric,
    open_expander,
    profile_order,
    selectbox_value,
    slider,
)

SAMPLE_SHA = hashlib.sha256(SAMPLE_PATH.read_bytes()).hexdigest()
SVG = "{http://www.w3.org/2000/svg}"


def choose(app, label: str, option: str) -> None:
    """Pick ``option`` (its shown text) in the selectbox labelled ``label``."""
    box = app.page.locator("[data-testid='stSelectbox']").filter(
        has=app.page.locator("[data-testid='stWidgetLabel']", has_text=re.compile(f"^{re.escape(label)}$")))
    box.get_by_role("combobox").click()
    app.interact(app.page.get_by_role("option", name=option, exact=True).click,
                 description=f"choosing {option!r} in {label!r}")


def badge_parts(text: str) -> tuple[ET.Element, list[str], str]:
    """The parsed SVG, the texts it draws (shadows left out) and its tooltip."""
    root = ET.fromstring(text)
    drawn = [t.text or "" for t in root.iter(f"{SVG}text") if t.get("aria-hidden") != "true"]
    return root, drawn, root.findtext(f"{SVG}title") or ""


def cli_badge(agent: str) -> str:
    done = subprocess.run([sys.executable, "-m", "scoring", "badge", str(SAMPLE_PATH), agent], cwd=ROOT,
                          capture_output=True, check=True)
    return done.stdout.decode("utf-8")


def leaderboard_scores(app) -> dict[str, str]:
    return {r["Agent"]: r["Score"] for r in app.grid(0).records()}


# --- badges --------------------------------------------------------------------------------------------------

@pytest.mark.browser
def test_the_leaderboard_badge_downloads_with_its_file_name_and_the_shown_score(app, sample_report):
    app.goto("")
    shown = leaderboard_scores(app)
    leader = sample_report.agents[0]
    assert selectbox_value(app, "Score badge for") == f"#1 {leader.agent_id}"
    name, text = download(app, "Download the badge (SVG)")
    assert name == f"badge-{leader.agent_id}-{POLICY_VERSION}-{SAMPLE_SHA[:8]}.svg"
    root, drawn, title = badge_parts(text)
    score = f"{leader.headline.score:.2f}"
    assert root.get("data-headline-score") == score == f"{float(shown[leader.agent_id]):.2f}"
    assert drawn == [leader.agent_id, score]
    assert f"policy {POLICY_VERSION}" in title and f"dataset {SAMPLE_SHA[:12]}" in title
    assert root.get("data-dataset-sha256") == SAMPLE_SHA and root.get("data-policy-version") == POLICY_VERSION
    assert text == cli_badge(leader.agent_id)  # the app and `python -m scoring badge` give the same bytes
    preview = app.page.locator("[data-testid='stImage'] img")
    assert preview.count() == 1 and preview.get_attribute("src").startswith("data:image/svg+xml;base64,")
    assert preview.evaluate("img => img.complete && img.naturalWidth") > 0, "the badge preview did not render"

    floor = sample_report.agent("null-pointer")
    choose(app, "Score badge for", f"#{floor.rank} null-pointer")
    name, text = download(app, "Download the badge (SVG)")
    assert name == f"badge-null-pointer-{POLICY_VERSION}-{SAMPLE_SHA[:8]}.svg"
    root, drawn, _ = badge_parts(text)
    assert shown["null-pointer"] in ("0", "0.0", "0.00") and floor.headline.zero_success_floor
    assert root.get("data-headline-score") == "0.00" and root.get("data-zero-success-floor") == "true"
    assert drawn == ["null-pointer", "0.00 · zero-success floor"]  # the floor is named, not a bare 0
    assert leaderboard_scores(app) == shown
    assert_clean(app, "leaderboard after the badge downloads")


@pytest.mark.browser
def test_the_headline_badge_follows_the_chosen_agent_and_its_metric(app, sample_report):
    app.goto("headline")
    second = sample_report.agents[1]
    choose(app, "Agent", f"#{second.rank} {second.agent_id}")
    assert metric(app, "Headline score") == f"{second.headline.score:.2f}"
    name, text = download(app, "Download the badge (SVG)")
    assert name == f"badge-{second.agent_id}-{POLICY_VERSION}-{SAMPLE_SHA[:8]}.svg"
    root, drawn, _ = badge_parts(text)
    assert root.get("data-headline-score") == metric(app, "Headline score")
    assert drawn == [second.agent_id, metric(app, "Headline score")]
    assert text == cli_badge(second.agent_id)
    assert_clean(app, "headline page after the badge download")


# --- scorecards ----------------------------------------------------------------------------------------------

def check_profile_beside_headline(app, report, card: Scorecard) -> None:
    """The profile table ranks by ``card``'s exact weights; its headline columns are the report's."""
    ranking = apply_scorecard(report, card).rows
    grid = app.grid(0, until=lambda g: g.column("Agent") == [r.agent_id for r in ranking])
    for row, r in zip(grid.records(), ranking):
        # Cells hold the raw values as text; the scores are the report's rounded ones, so they compare exactly.
        assert float(row["Profile score"]) == r.profile_score and row["Profile rank"] == str(r.profile_rank), row
        agent = report.agent(row["Agent"])  # the headline columns: the canonical numbers, untouched
        assert (float(row["Headline score"]), row["Headline rank"]) == (agent.headline.score, str(agent.rank)), row


@pytest.mark.browser
def test_a_scorecard_link_reranks_the_profile_beside_the_unchanged_headline(app, sample_report):
    card = read_scorecard(EXAMPLES_DIR / "speed-first.json")
    default_order = profile_order(sample_report, dict.fromkeys(RADAR_AXES, 0.2))
    assert [r.agent_id for r in apply_scorecard(sample_report, card).rows] != default_order, \
        "the scorecard should re-rank the sample's agents"

    app.goto("radar?scorecard=speed-first")
    app.screenshot("30-radar-scorecard-link")
    status = app.page.locator("[data-testid='stAlert']", has_text="Active scorecard")
    assert status.count() == 1 and "speed-first" in status.inner_text() and "(link)" in status.inner_text()
    for label, axis in zip(AXIS_LABELS, RADAR_AXES):
        assert slider(app, label).get_attribute("aria-valuetext") == f"{round(100 * card.weights[axis])}%", label
    check_profile_beside_headline(app, sample_report, card)
    assert "Profile ranked by the scorecard speed-first." in app.main_text()
    assert "scorecard=speed-first" in app.page.url  # the link still names it
    assert_clean(app, "radar page opened by a scorecard link")

    app.open_from_sidebar("Leaderboard")  # the headline leaderboard is the report's, scorecard or not
    assert app.grid(0).column("Agent") == [a.agent_id for a in sample_report.agents]
    assert {a: float(s) for a, s in leaderboard_scores(app).items()} == {
        a.agent_id: a.headline.score for a in sample_report.agents}


@pytest.mark.browser
def test_a_link_with_exact_weights_applies_them_not_the_rounded_sliders(app, sample_report):
    card = Scorecard("ops <team>", "", {"correctness": 0.123, "cost": 0.877})
    assert apply_scorecard(sample_report, card).rows != apply_scorecard(
        sample_report, Scorecard("rounded", "", {"correctness": 0.1, "cost": 0.9})).rows
    app.goto("radar?scorecard_weights=correctness:0.123,cost:0.877&scorecard_name=ops%20%3Cteam%3E")
    status = app.page.locator("[data-testid='stAlert']", has_text="Active scorecard").inner_text()
    assert "ops <team> (link)" in status and "the profile scores use them exactly" in status
    positions = [slider(app, label).get_attribute("aria-valuetext") for label in AXIS_LABELS]
    assert positions == ["10%", "0%", "90%", "0%", "0%"]
    check_profile_beside_headline(app, sample_report, card)
    assert_clean(app, "radar page opened by a link with weights")


@pytest.mark.browser
def test_a_hostile_scorecard_link_is_refused_in_words(app, sample_report):
    app.goto("radar?scorecard_weights=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E:1,cost:-1")
    error = app.page.locator("[data-testid='stAlert']", has_text="refused").inner_text()
    assert "The scorecard in this page's link is refused, so none is loaded" in error
    assert "weights.<img src=x onerror=alert(1)>: unknown radar axis" in error
    assert "weights.cost: must be a finite number ≥ 0, got -1" in error  # markdown draws >= as ≥
    assert app.page.locator("[data-testid='stMain'] img[src='x']").count() == 0  # shown as text, not markup
    for label in AXIS_LABELS:
        assert slider(app, label).get_attribute("aria-valuetext") == "20%", label
    assert app.grid(0).column("Agent") == profile_order(sample_report, dict.fromkeys(RADAR_AXES, 0.2))
    assert_clean(app, "radar page opened by a hostile link")


@pytest.mark.browser
def test_a_team_loads_its_scorecard_file_and_saves_it_back(app, sample_report, tmp_path):
    card = Scorecard("ops team", "Correct and cheap.", {"correctness": 0.4, "cost": 0.6})
    path = tmp_path / "ops.json"
    path.write_text(scorecard_to_json(card), encoding="utf-8")
    app.goto("radar")
    file_input = app.page.locator("[data-testid='stMain'] [data-testid='stFileUploaderDropzone'] input[type='file']")
    app.interact(lambda: file_input.set_input_files(str(path)), description="uploading a scorecard")
    status = app.page.locator("[data-testid='stAlert']", has_text="Active scorecard").inner_text()
    assert "ops team (file ops.json)" in status and "Correct and cheap." in status
    positions = [slider(app, label).get_attribute("aria-valuetext") for label in AXIS_LABELS]
    assert positions == ["40%", "0%", "60%", "0%", "0%"]
    check_profile_beside_headline(app, sample_report, card)
    assert "scorecard_weights=correctness%3A0.4%2Ccost%3A0.6" in app.page.url  # the link carries it
    open_expander(app, app.page.locator("[data-testid='stExpander']", has_text="Save these weights as a scorecard"))
    name, text = download(app, "Download the scorecard (JSON)")
    assert (name, text) == ("scorecard-ops-team.json", path.read_text(encoding="utf-8"))
    assert_clean(app, "radar page with an uploaded scorecard")
