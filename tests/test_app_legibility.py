"""What a meeting room notices: one scale per measure, the whole policy version, the jargon explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import format as fmt
from explorer import glossary
from scoring import load_runs, score_runs
from tests.apptest_helpers import dataframe, display_frame, page, run

ROOT = Path(__file__).resolve().parents[1]


def test_the_leaderboard_shows_every_0_to_1_factor_as_a_percentage():
    at = run(page("leaderboard"))
    shown = display_frame(dataframe(at, "leaderboard")).set_index("Agent")
    report = score_runs(load_runs(ROOT / "sample_data" / "runs.csv").runs)
    for a in report.agents:
        h = a.headline
        assert shown.loc[a.agent_id, "Success rate"] == fmt.pct2(h.success_rate)
        assert shown.loc[a.agent_id, "Execution"] == fmt.pct2(h.execution_score)
        assert shown.loc[a.agent_id, "Consistency"] == fmt.pct2(h.consistency)
        assert shown.loc[a.agent_id, "Cost score"] == fmt.pct2(h.cost_score)


def test_the_policy_version_is_shown_whole():
    at = run(page("leaderboard"))
    assert not [m for m in at.metric if m.label == "Policy version"]  # a metric cuts it at ~20 characters
    assert any("`2026-07-zero-success-v1`" in m.value for m in at.markdown)


@pytest.mark.parametrize("term", ["bootstrap", "replicates", "seed", "percentile interval", "tie group",
                                  "Pareto frontier", "pstdev", "pass^k", "p50", "window", "profile score"])
def test_the_glossary_explains_the_jargon_in_a_sentence(term):
    text = glossary.explain(term)
    assert 40 < len(text) < 400 and text.endswith(".")
    assert f"**{term}**" in glossary.tooltip(term)


def test_a_term_not_in_the_glossary_fails_loudly():
    with pytest.raises(KeyError):
        glossary.explain("pstdv")
