"""AppTest of the policy sandbox page: refused edits name the field; sandbox numbers carry the label."""

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer.pages import PAGE_BY_NAME
from tests.apptest_helpers import stop_bootstraps

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(PAGE_BY_NAME["sandbox"].path)


def texts(at) -> str:
    parts = [e.value for e in at.markdown] + [e.value for e in at.caption] + [e.value for e in at.info] \
        + [e.value for e in at.error]
    return "\n".join(str(p) for p in parts)


def frame_with(at, column):
    frames = [d.value for d in at.dataframe if column in getattr(d.value, "columns", [])]
    assert len(frames) == 1
    return frames[0]


def test_the_sandbox_page_starts_from_the_canonical_constants():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert "2026-07-zero-success-v1+sandbox-" in texts(at)
    # Unedited, it says so, and not "not canonical" beside "identical" (a reviewer read the two as a contradiction).
    assert "its constants are still the canonical ones" in texts(at) and "not canonical" not in texts(at)
    diff = frame_with(at, "Rank move")
    assert (diff["Rank move"] == 0).all()
    # A unit is said once: "Score decimals", never "Score decimals (decimals)" (a reviewer's reading).
    labels = [w.label for w in at.number_input] + [c.value for c in at.caption]
    assert "Score decimals" in labels and "Consistency gate (runs)" in labels
    assert not [text for text in labels if re.search(r"(\w+) \(\1\)$", text)], labels


def test_weights_that_do_not_sum_to_one_are_refused_naming_the_field():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.number_input(key="success_weight_0").set_value(0.5).run()
    assert not at.exception
    shown = at.error[0].value.replace("\\", "")  # markdown escapes removed: the text a person reads
    assert "success_weight + execution_weight + cost_weight**: must sum to 1, got 1.1" in shown
    assert not [d for d in at.dataframe if "Rank move" in getattr(d.value, "columns", [])]


def test_a_valid_edit_moves_ranks_and_labels_the_sandbox():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.number_input(key="success_weight_0").set_value(0.8).run()
    at.number_input(key="execution_weight_0").set_value(0.1).run()
    at.number_input(key="cost_weight_0").set_value(0.1).run()
    assert not at.exception and not at.error
    diff = frame_with(at, "Rank move").set_index("Agent")
    assert diff.loc["deep-thinker", "Rank move"] > 0 > diff.loc["swift-lite", "Rank move"]
    # The canonical column never moves.
    assert diff.loc["steady-pro", "Canonical score"] == 86.96
    assert "still the canonical ones" not in texts(at) and "not canonical." in texts(at)


def test_the_leaderboard_can_show_intervals_and_tie_groups_without_moving_a_score():
    at = AppTest.from_file(str(PAGE_BY_NAME["leaderboard"].path), default_timeout=120).run()
    before = frame_with(at, "Flags")
    at.toggle(key="leaderboard_intervals").set_value(True).run()
    assert not at.exception
    after = frame_with(at, "Tie group")
    assert list(after["Agent"]) == list(before["Agent"]) and list(after["Score"]) == list(before["Score"])
    ranked = after[after["Rank"].notna()]
    assert (ranked["Score low"] <= ranked["Score"]).all() and (ranked["Score"] <= ranked["Score high"]).all()
    assert ranked["Tie group"].iloc[0] == 1 and ranked["Tie group"].is_monotonic_increasing
    assert len(at.get("plotly_chart")) == 1


def test_a_bootstrap_stopped_at_a_limit_says_why_and_leaves_the_leaderboard(monkeypatch):
    # The bootstrap runs in a worker under the deployment's limits (explorer.untrusted.bootstrap); stopped, the page
    # says so in words and keeps the leaderboard without intervals, and the Uncertainty page keeps its other views.
    calls = stop_bootstraps(monkeypatch, "bootstrap",
                            "The bootstrap of 1,000 replicates over 30 runs took more than the limit.")
    at = AppTest.from_file(str(PAGE_BY_NAME["leaderboard"].path), default_timeout=120).run()
    at.toggle(key="leaderboard_intervals").set_value(True).run()
    assert not at.exception
    assert [e.value.replace("\\", "") for e in at.error] == [  # markdown escapes removed: the text a person reads
        "No intervals: The bootstrap of 1,000 replicates over 30 runs took more than the limit."]
    board = frame_with(at, "Flags")
    assert "Tie group" not in board.columns and len(board) > 0
    at.run()  # a rerun (any widget) is told again from the shared cache: no second worker spends the limit
    assert len(at.error) == 1 and [c[2:4] for c in calls] == [(1000, 20260701)]
    at = AppTest.from_file(str(PAGE_BY_NAME["uncertainty"].path), default_timeout=120).run()
    assert not at.exception and len(at.error) == 1 and at.error[0].value.startswith("No intervals: The bootstrap")
    assert not [d for d in at.dataframe if "Tie group" in getattr(d.value, "columns", [])]
    assert [s.value for s in at.subheader][:3] == ["Intervals and tie groups",
                                                   "Cost–accuracy and latency–accuracy frontiers",
                                                   "Sensitivity of one agent"]
