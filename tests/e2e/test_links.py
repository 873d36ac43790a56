"""Real-browser checks of links: a URL opens the same view in a fresh browser, state survives page changes."""

from __future__ import annotations

import hashlib
import html
import re

import pytest

from tests.e2e.browser_helpers import (
    CONTEXT_OPTIONS,
    SAMPLE_PATH,
    TIMEOUT_MS,
    VIEWPORT,
    AppSession,
    download,
    metric,
    new_context,
    press_on_slider,
    selectbox_value,
    slider,
    upload,
    write_csv,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def fresh(browser, app_url):
    """Open a URL in another, fresh browser context (a new Streamlit session, nothing shared)."""
    contexts = []

    def open_url(url: str) -> AppSession:
        context = new_context(browser)
        contexts.append(context)
        session = AppSession(context.new_page(), app_url)
        session.page.goto(url, timeout=TIMEOUT_MS)
        session.settle()
        return session

    yield open_url
    for context in contexts:
        context.close()


def copied_link(app: AppSession) -> str:
    """The link the "Copy link" control offers (the text its copy button copies)."""
    app.page.locator("[data-testid='stSidebar']").get_by_role("button", name="Copy link").click()
    code = app.page.locator("[data-testid='stPopoverBody'] [data-testid='stCode'] code")
    code.wait_for(timeout=TIMEOUT_MS)
    text = code.inner_text().strip()
    app.page.keyboard.press("Escape")
    return text


def test_headline_opens_the_agent_a_link_names(app, sample_report):
    second = sample_report.agents[1].agent_id
    app.goto(f"headline?agent={second}")
    assert selectbox_value(app, "Agent") == f"#2 {second}"


def test_a_radar_weight_is_kept_across_pages_and_reaches_a_fresh_browser(app, fresh):
    app.goto("radar")
    press_on_slider(app, "Correctness", "End")
    assert slider(app, "Correctness").get_attribute("aria-valuetext") == "100%"
    app.open_from_sidebar("Headline composite")
    app.open_from_sidebar("Fitness radar")
    assert slider(app, "Correctness").get_attribute("aria-valuetext") == "100%"
    assert "w_correctness=100" in app.page.url
    link = copied_link(app)
    assert link.startswith(app.base_url + "/radar?") and "w_correctness=100&w_latency=20" in link
    other = fresh(link)
    assert slider(other, "Correctness").get_attribute("aria-valuetext") == "100%"
    assert slider(other, "Cost").get_attribute("aria-valuetext") == "20%"


def test_back_and_forward_step_through_the_settings_of_a_page(app):
    """A reviewer pressed Back three times after three moves of a slider: nothing changed, URL nor view (every run
    wrote the view over the URL the browser had restored)."""
    app.goto("radar")
    press_on_slider(app, "Correctness", "End")  # 100%
    press_on_slider(app, "Correctness", "Home")  # 0%
    assert "w_correctness=0" in app.page.url
    app.interact(app.page.go_back, description="Back")
    assert slider(app, "Correctness").get_attribute("aria-valuetext") == "100%"
    assert "w_correctness=100" in app.page.url
    app.interact(app.page.go_forward, description="Forward")
    assert slider(app, "Correctness").get_attribute("aria-valuetext") == "0%"
    assert "w_correctness=0" in app.page.url


def test_a_copied_headline_link_opens_the_same_agent(app, fresh):
    app.goto("headline?agent=null-pointer")
    link = copied_link(app)
    assert "/headline?agent=null-pointer" in link
    other = fresh(link)
    assert selectbox_value(other, "Agent") == "#10 null-pointer"
    assert "Zero-success floor applies" in other.main_text()


def test_a_hostile_link_shows_a_notice_and_the_default_view(app):
    app.goto("headline?agent=%3Cscript%3Ealert(1)%3C/script%3E&seed=-1&weights=x")
    text = app.main_text()
    assert "Some of this link's settings were not applied" in text
    assert "is not an agent of the dataset shown" in text and "seed: must be a whole number" in text
    assert selectbox_value(app, "Agent").startswith("#1 ")
    assert "Traceback" not in text


def test_the_review_pack_downloads_and_opens_offline_with_every_agent(app, browser, sample_report, tmp_path):
    app.goto("radar?weights=60%2C10%2C10%2C10%2C10")
    sha = hashlib.sha256(SAMPLE_PATH.read_bytes()).hexdigest()
    name, text = download(app, "Review pack (HTML)")
    assert name == f"review_{sample_report.policy.version}_{sha[:12]}.html"
    assert sha in text and "Correctness 60.0%" in text  # the dataset, and the view's radar weights
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    context = browser.new_context(viewport=VIEWPORT, offline=True, **CONTEXT_OPTIONS)
    try:
        page = context.new_page()
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if not r.url.startswith("file:") else None)
        page.goto(path.as_uri(), timeout=TIMEOUT_MS)
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 5",
                               timeout=TIMEOUT_MS)
        shown = page.locator("main").inner_text()
        for agent in sample_report.agents:
            assert agent.agent_id in shown and f"{agent.headline.score:.2f}" in shown, agent.agent_id
        assert asked == []  # nothing fetched: it opens offline
    finally:
        context.close()


def test_receipt_downloads_are_named_by_agent_policy_and_dataset(app, sample_report):
    app.goto("sandbox?agent=swift-lite")
    sha = hashlib.sha256(SAMPLE_PATH.read_bytes()).hexdigest()[:12]
    name, text = download(app, "Download the receipt (JSON)", reruns=True)
    assert name == f"receipt_swift-lite_{sample_report.policy.version}_{sha}.json"
    assert '"agent_id": "swift-lite"' in text


def test_a_link_made_on_an_upload_waits_for_that_file_then_opens_the_view(app, fresh, tmp_path):
    rows = [(f"{agent}-{i}", agent, f"t{i % 3}", "completed", "true" if i % 3 else "false", 800 + 10 * i, 0.01, 2,
             f"2026-07-01T00:{i:02d}:00Z") for agent in ("alpha-agent", "beta-agent") for i in range(12)]
    path = write_csv(tmp_path / "meeting.csv", rows)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    app.goto("headline")
    upload(app, path)
    pick = app.page.locator("[data-testid='stSelectbox']").get_by_role("combobox", name="Agent").first
    app.interact(lambda: (pick.click(), app.page.get_by_role("option", name="beta-agent").click()),
                 description="choosing beta-agent")
    link = copied_link(app)
    assert f"data=upload&sha={sha[:16]}" in link and "agent=beta-agent" in link
    other = fresh(link)
    assert f"sha256 starts with {sha[:16]}" in other.main_text()  # the sample is shown meanwhile
    file_input = other.page.locator("[data-testid='stSidebar'] input[type='file']")  # the uploader is already open
    other.interact(lambda: file_input.set_input_files(str(path)), description="uploading the link's file")
    assert selectbox_value(other, "Agent").endswith("beta-agent")
    assert "sha256 starts with" not in other.main_text()


def choose(app: AppSession, label: str, option: str) -> None:
    box = app.page.locator("[data-testid='stSelectbox']").get_by_role("combobox", name=label).first
    app.interact(lambda: (box.click(), app.page.get_by_role("option", name=option, exact=True).click()),
                 description=f"choosing {option} in {label}")


def toggle_on(app: AppSession, label: str) -> None:
    switch = app.page.get_by_role("switch", name=label)  # st.toggle is a switch
    app.interact(lambda: switch.check(force=True), description=f"turning on {label!r}")


def test_a_view_built_on_several_pages_opens_identically_in_a_fresh_browser(app, fresh, sample_report):
    """Done-when of issue 24: agent, weights, intervals and Compare pair, copied from any page."""
    app.goto("headline")
    choose(app, "Agent", "#4 crashy-runner")
    app.open_from_sidebar("Fitness radar")
    press_on_slider(app, "Correctness", "End")
    radar_agents = app.page.locator("[data-testid='stMultiSelect']").inner_text()
    app.open_from_sidebar("Leaderboard")
    toggle_on(app, "Show bootstrap 95% intervals and tie groups")
    board = app.grid(0)
    app.open_from_sidebar("Compare two agents")
    assert selectbox_value(app, "Agent A") == "#4 crashy-runner"
    assert selectbox_value(app, "Agent B") == "#3 blackbox-api"  # the agent above: the one to overtake
    choose(app, "Agent B", "#5 deep-thinker")
    shown = {label: metric(app, label) for label in ("A: crashy-runner", "B: deep-thinker", "A minus B")}
    links = {}
    for title in ("Compare two agents", "Methodology", "Tasks × agents"):
        app.open_from_sidebar(title)
        links[title] = copied_link(app)
        for part in ("agent=crashy-runner", "versus=deep-thinker", "w_correctness=100", "intervals=1"):
            assert part in links[title], (title, part, links[title])
    # Every page's link carries the whole view: the same query whichever page it was copied on.
    assert len({link.split("?", 1)[1] for link in links.values()}) == 1, links
    _, pack = download(app, "Review pack (HTML)")
    assert "Correctness 55.6%" in pack  # the pack shows the view: weights 100/20/20/20/20 renormalized...
    assert "Bootstrap intervals were not computed" not in pack  # ...and its intervals
    pack_link = html.unescape(re.search(r'Link to this view</th><td><a href="([^"]+)"', pack).group(1))
    assert pack_link == links["Tasks × agents"]  # the pack's link is the view's link, copied on that page

    other = fresh(pack_link)  # the pack's link opens the pack's view, on every page
    assert other.page.url.startswith(app.base_url + "/tasks?")
    assert "Tasks × agents" in other.page.locator("h1").first.inner_text()
    other.open_from_sidebar("Compare two agents")
    assert selectbox_value(other, "Agent A") == "#4 crashy-runner"
    assert selectbox_value(other, "Agent B") == "#5 deep-thinker"
    assert {label: metric(other, label) for label in shown} == shown
    other.open_from_sidebar("Fitness radar")
    assert slider(other, "Correctness").get_attribute("aria-valuetext") == "100%"
    assert slider(other, "Cost").get_attribute("aria-valuetext") == "20%"
    assert other.page.locator("[data-testid='stMultiSelect']").inner_text() == radar_agents
    assert "crashy-runner" in radar_agents
    other.open_from_sidebar("Leaderboard")
    assert other.page.get_by_role("switch", name="Show bootstrap 95% intervals and tie groups").is_checked()
    assert other.grid(0) == board  # the same numbers, intervals included
    other.open_from_sidebar("Headline composite")
    assert selectbox_value(other, "Agent") == "#4 crashy-runner"
    assert "Some of this link's settings were not applied" not in other.main_text()
