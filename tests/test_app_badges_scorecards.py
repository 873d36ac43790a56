"""The app's badge downloads (Leaderboard, Headline) and Team Scorecards (radar page), through AppTest.

A download button's bytes live in the run's media file storage, which AppTest creates per run and
then drops: ``media`` records every storage so a test can read what a click would download.
"""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import ClassVar

import pandas as pd
import pytest
import streamlit.testing.v1.app_test as app_test_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

import explorer.data
from scoring import CANONICAL_POLICY, RADAR_AXES, load_runs, score_runs
from scoring.analysis.scorecard import EXAMPLES_DIR, Scorecard, apply_scorecard, read_scorecard, scorecard_to_json
from scoring.outputs.badge import badge_file_name, badge_svg
from tests.apptest_helpers import EDGE_CSV, HTML_AGENT, PAGES, TIMEOUT, assert_clean, dataframe, page, run
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
SAMPLE_SHA = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
EDGE_SHA = hashlib.sha256(EDGE_CSV).hexdigest()
VERSION = CANONICAL_POLICY.version
BADGE_LABEL = "Download the badge (SVG)"
DEFAULT_POSITIONS = [20] * len(RADAR_AXES)


@cache
def sample_report():
    return score_runs(load_runs(SAMPLE).runs)


class _RecordingStorage(MemoryMediaFileStorage):
    made: ClassVar[list[_RecordingStorage]] = []

    def __init__(self, endpoint: str) -> None:
        super().__init__(endpoint)
        _RecordingStorage.made.append(self)

    def delete_file(self, file_id: str) -> None:  # keep every file: the test reads them after the run
        pass


@pytest.fixture
def media(monkeypatch):
    _RecordingStorage.made.clear()
    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _RecordingStorage)
    return _RecordingStorage.made


def downloads(at: AppTest, media) -> dict[str, tuple[str, bytes]]:
    """Each download button's label -> (file name, bytes) as the browser would save them."""
    out = {}
    for button in at.download_button:
        if not button.proto.url:
            continue  # made when clicked (a callable: the Leaderboard's report files), nothing stored yet
        file_id = Path(button.proto.url).name
        stored = media[-1].get_file(file_id)
        out[button.label] = (stored.filename, stored.content)
    return out


def badge_of(at: AppTest, media) -> tuple[str, ET.Element, bytes]:
    name, content = downloads(at, media)[BADGE_LABEL]
    return name, ET.fromstring(content), content


# --- badges --------------------------------------------------------------------------------------

def test_leaderboard_badge_download_carries_the_exact_score(media):
    at = run(page("leaderboard"))
    assert at.selectbox(key="badge_agent_leaderboard").value == "steady-pro"  # the leader first
    for agent in ("steady-pro", "newcomer", "null-pointer"):
        at.selectbox(key="badge_agent_leaderboard").set_value(agent)
        run(at)
        name, root, content = badge_of(at, media)
        expected = sample_report().agent(agent)
        assert name == f"badge-{agent}-{VERSION}-{SAMPLE_SHA[:8]}.svg"
        assert root.get("data-headline-score") == f"{expected.headline.score:.2f}"
        assert content.decode("utf-8") == badge_svg(expected, policy_version=VERSION, dataset_sha256=SAMPLE_SHA)
    assert "zero-success floor" in content.decode()
    (button,) = [b for b in at.download_button if b.label == BADGE_LABEL]
    assert button.proto.ignore_rerun  # a download does not rerun the page
    assert any(SAMPLE_SHA[:12] in c.value and VERSION in c.value.replace("\\", "") for c in at.caption)
    assert_clean(at, "leaderboard badge")


def test_the_app_and_the_cli_give_the_same_badge_bytes(media):
    at = run(page("leaderboard"))
    at.selectbox(key="badge_agent_leaderboard").set_value("swift-lite")
    run(at)
    _, _, content = badge_of(at, media)
    cli = scoring_cli("badge", SAMPLE, "swift-lite", cwd=ROOT, text=False)
    cli.check_returncode()
    assert content == cli.stdout
    # The words beside the badge say what it is to a newcomer, and name the command that makes the same file.
    words = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert "the **canonical headline score** of swift-lite" in words and "never a profile score" in words
    assert "`python -m scoring badge RUNS_FILE AGENT -o badge.svg`" in words


def test_headline_badge_follows_the_chosen_agent(media):
    at = run(page("headline"))
    assert badge_of(at, media)[1].get("data-headline-score") == "86.96"
    at.selectbox(key="headline_agent").set_value("premium-max")
    run(at)
    name, root, _ = badge_of(at, media)
    assert name == badge_file_name("premium-max", VERSION, SAMPLE_SHA)
    assert root.get("data-headline-score") == f"{sample_report().agent('premium-max').headline.score:.2f}"


def test_edge_upload_badges_unranked_and_hostile_names(media):
    at = run(page("headline", EDGE_CSV))
    at.selectbox(key="headline_agent").set_value("only-failed")
    run(at)
    name, root, _ = badge_of(at, media)  # offered even though the page stops before the metrics
    assert root.get("data-headline-score") == "null" and root.get("data-dataset-sha256") == EDGE_SHA
    assert name == f"badge-only-failed-{VERSION}-{EDGE_SHA[:8]}.svg"
    at.selectbox(key="headline_agent").set_value(HTML_AGENT)
    run(at)
    name, root, content = badge_of(at, media)
    assert b"<script>" not in content and root.find("{http://www.w3.org/2000/svg}title").text.startswith(HTML_AGENT)
    assert name.startswith("badge-script-alert-1-script-") and name.endswith(f"-{VERSION}-{EDGE_SHA[:8]}.svg")
    assert_clean(at, "headline badge of an HTML agent")


def test_no_badge_for_a_dataset_with_excluded_rows(media):
    bad = (b"run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n"
           b"r1,a,t,completed,true,900,0.002\nr2,a,t,done,true,900,0.002\n")
    at = page("leaderboard", bad, upload_name="bad.csv")
    at.session_state["dataset"] = explorer.data.Dataset("bad.csv", hashlib.sha256(bad).hexdigest(), "upload",
                                                        exclude_invalid=True)
    run(at)
    assert BADGE_LABEL not in downloads(at, media)
    assert any("No score badge for this dataset: 1 invalid row was excluded" in c.value for c in at.caption)


# --- scorecards on the radar page ------------------------------------------------------------------

def positions(at: AppTest) -> list[int]:
    return [at.slider(key=f"weight_{axis}").value for axis in RADAR_AXES]


def ranking(at: AppTest) -> list[tuple]:
    frame = dataframe(at, "profile_ranking").value
    return [(r["Agent"], _value(r["Profile score"]), _value(r["Profile rank"])) for _, r in frame.iterrows()]


def _value(cell):
    return None if pd.isna(cell) else cell


def headline_columns(at: AppTest) -> dict:
    frame = dataframe(at, "profile_ranking").value
    return {r["Agent"]: (r["Headline score"], r["Headline rank"]) for _, r in frame.iterrows()}


def expected_ranking(card: Scorecard) -> list[tuple]:
    return [(r.agent_id, r.profile_score, r.profile_rank) for r in apply_scorecard(sample_report(), card).rows]


def status(at: AppTest) -> str:
    return " ".join(e.body for e in (*at.success, *at.warning)).replace("\\", "")


def errors(at: AppTest) -> str:
    return " ".join(e.body for e in at.error).replace("\\", "")


def test_a_shipped_scorecard_sets_the_sliders_and_ranks_the_profile():
    at = run(page("radar"))
    before_headline, before = headline_columns(at), ranking(at)
    assert "No scorecard loaded" in " ".join(c.value for c in at.caption)
    at.selectbox(key="scorecard_pick").set_value("speed-first")
    run(at)
    card = read_scorecard(EXAMPLES_DIR / "speed-first.json")
    assert positions(at) == [30, 50, 0, 20, 0]
    assert "Active scorecard: **speed-first** (shipped example)" in status(at)
    assert ranking(at) == expected_ranking(card) != before
    assert headline_columns(at) == before_headline
    assert any("ranked by the scorecard **speed-first**" in c.value.replace("\\", "") for c in at.caption)
    assert at.query_params == {"scorecard": "speed-first"}  # the link carries it
    assert_clean(at, "radar with a shipped scorecard")


def test_moving_a_slider_marks_the_scorecard_modified_and_it_can_be_loaded_again():
    at = run(page("radar"))
    at.selectbox(key="scorecard_pick").set_value("cost-conscious")
    run(at)
    card_ranking = ranking(at)
    at.slider(key="weight_latency").set_value(40)
    run(at)
    assert "Scorecard **cost-conscious** (shipped example) is **modified**" in status(at)
    assert "Active scorecard" not in status(at)
    assert at.selectbox(key="scorecard_pick").value is None
    assert "scorecard" not in at.query_params  # the link no longer claims the scorecard
    weights = {a: p / 100 for a, p in zip(RADAR_AXES, positions(at))}
    assert [s for _, s, _ in ranking(at)] == [p for _, p, _ in sorted(
        ((a.agent_id, a.radar.profile(weights).score, 0) for a in sample_report().agents),
        key=lambda t: (t[1] is None, -(t[1] or 0), t[0]))]
    (again,) = [b for b in at.button if b.key == "scorecard_reload"]
    again.click()
    run(at)
    assert "Active scorecard: **cost-conscious**" in status(at) and ranking(at) == card_ranking
    assert at.query_params == {"scorecard": "cost-conscious"}


def test_reset_and_clearing_the_picker_unload_the_scorecard():
    at = run(page("radar"))
    at.selectbox(key="scorecard_pick").set_value("reliability-first")
    run(at)
    next(b for b in at.button if b.label == "Reset weights").click()
    run(at)
    assert positions(at) == DEFAULT_POSITIONS and not status(at) and at.query_params == {}
    at.selectbox(key="scorecard_pick").set_value("reliability-first")
    run(at)
    at.selectbox(key="scorecard_pick").set_value(None)
    run(at)
    assert not status(at) and "No scorecard loaded" in " ".join(c.value for c in at.caption)


FINE = Scorecard("ops team", "Correct and cheap, exactly.", {"correctness": 0.123, "cost": 0.877})


def test_an_uploaded_scorecard_applies_its_exact_weights():
    at = run(page("radar"))
    at.file_uploader(key="scorecard_upload").set_value(("team.json", scorecard_to_json(FINE).encode(),
                                                         "application/json"))
    run(at)
    assert positions(at) == [10, 0, 90, 0, 0]  # the nearest 5% steps
    assert "Active scorecard: **ops team** (file team.json)" in status(at)
    assert "the profile scores use them exactly" in status(at)
    assert ranking(at) == expected_ranking(FINE)
    rounded = Scorecard("rounded", "", {"correctness": 0.1, "cost": 0.9})
    assert expected_ranking(FINE) != expected_ranking(rounded)  # so the check above tells exact from rounded
    assert at.query_params == {"scorecard_weights": "correctness:0.123,cost:0.877", "scorecard_name": "ops team"}


def test_a_scorecard_whose_weights_add_up_to_more_than_one_is_shown_as_shares_of_100_percent():
    """0.4 + 0.6 + 0.3 = 1.3: shown as 30.8% + 46.2% + 23.1% (100%), never as 40% + 60% + 30% (130%)."""
    card = Scorecard("heavy", "", {"correctness": 0.4, "cost": 0.6, "robustness": 0.3})
    at = run(page("radar"))
    at.file_uploader(key="scorecard_upload").set_value(("heavy.json", scorecard_to_json(card).encode(),
                                                         "application/json"))
    run(at)
    shown = status(at).replace("\\", "")
    assert "Correctness 30.8%, Cost 46.2%, Robustness 23.1%" in shown
    assert "Correctness 40.0%" not in shown and "adding up to 1.3: renormalized" in shown


@pytest.mark.parametrize("content, field, words", [
    ('{"name": "t", "description": "", "weights": {"latency": -1}}', "weights.latency",
     "must be a finite number >= 0, got -1"),
    ('{"name": "t", "description": "", "weights": {"speed": 1}}', "weights.speed", "unknown radar axis 'speed'"),
    ('{"name": "", "description": "", "weights": {"cost": 1}}', "name", "must be 1-80 characters, got 0"),
    ('{"name": "t", "weights": {"cost": 1}}', "description", "is required"),
    ("[1, 2", "scorecard", "not valid JSON"),
    ('{"name": "' + "x" * 70_000 + '"}', "scorecard", "70,012 bytes is more than the 65,536 bytes allowed"),
])
def test_a_malformed_upload_names_the_field_and_changes_nothing(content, field, words):
    at = run(page("radar"))
    before = ranking(at)
    at.file_uploader(key="scorecard_upload").set_value(("bad <team>.json", content.encode(), "application/json"))
    run(at)
    text = errors(at)
    assert "The scorecard file 'bad <team>.json' is refused" in text
    assert f"**{field}**: {words}" in text
    assert positions(at) == DEFAULT_POSITIONS and ranking(at) == before and not status(at)
    assert_clean(at, "a refused scorecard upload")
    at.file_uploader(key="scorecard_upload").set_value(None)  # removing the file clears the message
    run(at)
    assert not at.error


def test_a_link_loads_a_shipped_scorecard():
    at = page("radar")
    at.query_params["scorecard"] = "reliability-first"
    run(at)
    card = read_scorecard(EXAMPLES_DIR / "reliability-first.json")
    assert positions(at) == [45, 5, 10, 5, 35]
    assert "Active scorecard: **reliability-first** (link)" in status(at)
    assert at.selectbox(key="scorecard_pick").value == "reliability-first"
    assert ranking(at) == expected_ranking(card)
    at.slider(key="weight_cost").set_value(0)  # a later rerun does not load the link again
    run(at)
    assert positions(at)[2] == 0 and "**modified**" in status(at) and at.query_params == {}


def test_a_link_with_weights_loads_a_named_scorecard():
    at = page("radar")
    at.query_params["scorecard_weights"] = "robustness:0.6,correctness:0.4"
    at.query_params["scorecard_name"] = "QA <guild>"
    run(at)
    assert positions(at) == [40, 0, 0, 0, 60]
    assert "Active scorecard: **QA <guild>** (link)" in status(at)
    assert ranking(at) == expected_ranking(Scorecard("QA <guild>", "", {"robustness": 0.6, "correctness": 0.4}))
    assert_clean(at, "a scorecard from a link")


@pytest.mark.parametrize("params, words", [
    ({"scorecard": "fastest"}, "**scorecard**: no shipped scorecard is named 'fastest'"),
    ({"scorecard": ["balanced", "speed-first"]}, "**scorecard**: is given more than once"),
    ({"scorecard": "x" * 5000}, "**scorecard**: must be at most 300 characters, got 5,000"),
    ({"scorecard_weights": "speed:1,cost:-1"}, "**weights.speed**: unknown radar axis 'speed'"),
    ({"scorecard_weights": "cost:1e400"}, "**weights.cost**: must be a finite number >= 0, got inf"),
    ({"scorecard_weights": "cost:0"}, "**weights**: at least one axis needs a positive weight"),
    ({"scorecard_weights": "<script>alert(1)</script>:1"}, "**weights.<script>alert(1)</script>**"),
    ({"scorecard_weights": "cost:1", "scorecard_name": "evil\u202ename"}, "**name**: must be printable"),
    ({"scorecard": "balanced", "scorecard_weights": "cost:1"}, "**scorecard**: names a shipped scorecard"),
])
def test_a_hostile_link_is_refused_with_a_message_never_a_crash(params, words):
    at = page("radar")
    for key, value in params.items():
        at.query_params[key] = value
    run(at)
    assert "The scorecard in this page's link is refused, so none is loaded" in errors(at)
    assert words in errors(at)
    assert positions(at) == DEFAULT_POSITIONS and not status(at)
    assert_clean(at, f"a hostile link {params}")
    run(at)  # read once: the next run neither reloads nor fails
    assert not at.exception


def test_saving_the_sliders_downloads_a_scorecard(media):
    at = run(page("radar"))
    name, content = downloads(at, media)["Download the scorecard (JSON)"]
    assert name == "scorecard-my-team.json"
    assert json.loads(content) == json.loads(scorecard_to_json(Scorecard("my team", "", dict.fromkeys(RADAR_AXES,
                                                                                                      0.2))))
    at.selectbox(key="scorecard_pick").set_value("speed-first")
    run(at)
    name, content = downloads(at, media)["Download the scorecard (JSON)"]
    assert (name, content) == ("scorecard-speed-first.json", (EXAMPLES_DIR / "speed-first.json").read_bytes())


def test_saving_a_modified_scorecard_asks_for_a_name_of_its_own(media):
    at = page("radar")
    at.query_params["scorecard"] = "cost-conscious"
    run(at)
    assert not at.warning
    at.slider(key="weight_correctness").set_value(100)
    run(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "These are no longer the weights of scorecard **cost\\-conscious**" in warnings
    assert "give them a name and a description of their own" in warnings
    at.text_input(key="scorecard_save_name").set_value("cost, but correct")
    run(at)
    assert "no longer the weights" not in " ".join(w.value for w in at.warning)
    name, content = downloads(at, media)["Download the scorecard (JSON)"]
    assert name == "scorecard-cost-but-correct.json" and json.loads(content)["weights"]["correctness"] == 1.0


def test_saving_refuses_what_a_scorecard_cannot_hold(media):
    at = run(page("radar"))
    at.text_input(key="scorecard_save_name").set_value(" padded")
    for axis in RADAR_AXES:
        at.slider(key=f"weight_{axis}").set_value(0)
    run(at)
    text = errors(at)
    assert "These weights cannot be saved as a scorecard" in text
    assert "**name**: must not start or end with a space" in text
    assert "**weights**: at least one axis needs a positive weight" in text
    assert "Download the scorecard (JSON)" not in downloads(at, media)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(RADAR_AXES), st.floats(0.001, 1.0), min_size=1))
def test_any_scorecard_link_changes_only_the_profile(weights):
    card = Scorecard("random", "", weights)
    at = AppTest.from_file(str(PAGES["radar"]), default_timeout=TIMEOUT)
    at.query_params["scorecard_weights"] = ",".join(f"{a}:{w!r}" for a, w in weights.items())
    at.query_params["scorecard_name"] = "random"
    run(at)
    assert ranking(at) == expected_ranking(card)
    assert headline_columns(at) == {a.agent_id: (a.headline.score, a.rank) for a in sample_report().agents}



def test_the_scorecard_in_force_stays_in_the_link_of_every_page_after_the_radar():
    """Off the radar page Streamlit drops the sliders' keys: the scorecard read them to tell whether it still applied,
    so the page after the next one dropped it from its link (a link copied there opened without it)."""
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    at.query_params["scorecard_weights"] = "correctness:0.123,cost:0.877"
    at.query_params["scorecard_name"] = "ops team"
    at.switch_page("views/radar.py")
    at.run()
    assert not at.exception, at.exception
    for view in ("views/sandbox.py", "views/methodology.py", "views/leaderboard.py", "views/radar.py"):
        at.switch_page(view)
        at.run()
        assert not at.exception, (view, at.exception)
        params = {k: at.query_params[k] for k in ("scorecard_weights", "scorecard_name") if k in at.query_params}
        assert params == {"scorecard_weights": "correctness:0.123,cost:0.877", "scorecard_name": "ops team"}, \
            (view, dict(at.query_params))
    assert "Active scorecard: **ops team**" in status(at)  # back on the radar: still the scorecard's weights
