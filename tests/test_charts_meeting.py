"""Chart builders for a meeting room: theme colours, marked zero bars, fitted interval axes, rank moves."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import pytest

from explorer import charts
from scoring import CANONICAL_POLICY, load_runs, score_runs
from scoring.analysis.sandbox import policy_from_dict, policy_to_dict, rank_diff

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def runs():
    return load_runs(ROOT / "sample_data" / "runs.csv").runs


@pytest.fixture(scope="module")
def report(runs):
    return score_runs(runs)


def _colors(fig: go.Figure) -> set[str]:
    out = set()
    for trace in fig.data:
        for part in ("line", "marker"):
            color = getattr(getattr(trace, part, None), "color", None)
            if isinstance(color, str):
                out.add(color)
    return out


def test_theme_for_picks_dark_only_for_dark():
    assert charts.theme_for("dark") is charts.DARK
    assert charts.theme_for("light") is charts.LIGHT
    assert charts.theme_for(None) is charts.LIGHT


def test_anchor_curve_in_dark_mode_draws_with_the_light_ink():
    fig = charts.anchor_curve(CANONICAL_POLICY.latency_anchors, title="t", x_label="x", value=1800,
                              theme=charts.DARK)
    assert charts.DARK.ink in _colors(fig)
    assert "#444" not in _colors(fig)  # the old grey vanished on a dark background
    assert fig.layout.template.layout.paper_bgcolor == go.layout.Template(
        __import__("plotly.io", fromlist=["templates"]).templates["plotly_dark"]).layout.paper_bgcolor


@pytest.mark.parametrize("theme", [charts.LIGHT, charts.DARK], ids=lambda t: t.name)
def test_every_builder_accepts_both_themes(report, theme):
    h = report.agents[0].headline
    figures = [charts.contribution_waterfall(h, theme=theme),
               charts.radar_chart([a.radar for a in report.agents[:3]], theme=theme),
               charts.pass_k_bars([(a.agent_id, a.repeatability.pass_k) for a in report.agents], [1, 3, 5],
                                  theme=theme),
               charts.contribution_bars([a.headline for a in report.agents], theme=theme),
               *charts.policy_anchor_figures(CANONICAL_POLICY, theme=theme)]
    for fig in figures:
        assert isinstance(fig, go.Figure)


def test_a_zero_pass_k_bar_is_labelled_0_percent_and_an_undefined_one_is_not(report):
    rows = [(a.agent_id, a.repeatability.pass_k) for a in report.agents]
    fig = charts.pass_k_bars(rows, [1, 3, 5])
    agents = [a for a, _ in rows]
    for trace in fig.data:
        texts = dict(zip(agents, trace.text))
        assert texts["null-pointer"] == "0%"  # measured 0: not missing data
        assert texts["newcomer"] == ""  # no qualifying task: annotated instead
        assert texts["steady-pro"] == ""


def test_long_titles_wrap_so_a_phone_shows_them_whole():
    text = "Latency: average 1,800 ms of completed runs over the whole cohort → 0.83"
    wrapped = charts.wrap(text)
    assert "<br>" in wrapped
    assert all(len(line) <= charts.TITLE_CHARS for line in wrapped.split("<br>"))
    assert wrapped.replace("<br>", " ") == text
    assert charts.wrap("short") == "short"


def test_interval_axis_is_fitted_to_the_data_not_started_at_0():
    rows = [("a", 80.0, 78.0, 82.0, 1), ("b", 75.0, 73.5, 76.5, 2), ("c", 70.0, 68.0, 72.0, 3)]
    low, high = charts.interval_axis(rows)
    assert 60 < low < 68 and 82 < high < 90


def test_interval_axis_is_not_stretched_by_one_very_wide_interval():
    rows = [("a", 80.0, 78.0, 82.0, 1), ("b", 75.0, 73.0, 77.0, 2), ("wide", 70.0, 5.0, 99.0, 3)]
    low, high = charts.interval_axis(rows)
    assert low > 50 and high < 95
    fig = charts.interval_chart(rows)
    assert list(fig.layout.xaxis.range) == [low, high]
    ends = [t for t in fig.data if t.name.endswith("off the axis")]
    assert ends and set(ends[0].y) == {"wide"}
    assert {"5.00", "99.00"} <= set(ends[0].text)


def test_interval_chart_draws_a_floored_agent_at_the_axis_end_with_its_score():
    rows = [("a", 80.0, 78.0, 82.0, 1), ("b", 75.0, 73.0, 77.0, 2), ("zero", 0.0, 0.0, 0.0, 3)]
    fig = charts.interval_chart(rows, floored=["zero"])
    assert fig.layout.xaxis.range[0] > 60
    (ends,) = [t for t in fig.data if list(t.y) == ["zero"]]
    assert list(ends.text) == ["0.00 (floor)"]
    # Its group has no other mark: the legend names it by these (a reviewer's legend stopped at group 5 of 6).
    assert [t.name for t in fig.data if t.showlegend is not False] == ["tie group 1", "tie group 2", "tie group 3"]


def test_interval_axis_never_leaves_0_to_100():
    assert charts.interval_axis([]) == (0.0, 100.0)
    low, high = charts.interval_axis([("a", 99.5, 98.0, 100.0, 1), ("b", 1.0, 0.0, 3.0, 2)])
    assert low >= -1.0 and high <= 101.0


def test_rank_moves_joins_each_agents_two_ranks(runs, report):
    policy = policy_from_dict({**policy_to_dict(CANONICAL_POLICY), "success_weight": 0.3, "cost_weight": 0.4})
    diff = rank_diff(report, score_runs(runs, policy))
    fig = charts.rank_moves(diff)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    drawn = {row[0]: row for t in lines for row in t.customdata}
    assert set(drawn) == set(diff["Agent"])
    for r in diff.to_dict("records"):
        assert tuple(drawn[r["Agent"]][1:3]) == (int(r["Canonical rank"]), int(r["Sandbox rank"]))
    by_name = {t.name: t for t in lines}
    climbers = {row[0] for row in by_name["climbs"].customdata} if "climbs" in by_name else set()
    assert climbers == {r["Agent"] for r in diff.to_dict("records") if r["Rank move"] > 0}


def test_rank_moves_escapes_agent_names(runs, report):
    diff = rank_diff(report, report).assign(Agent=lambda d: "<b>x</b>" + d["Agent"])
    fig = charts.rank_moves(diff)
    assert all("<b>" not in str(row[0]) for t in fig.data if t.customdata is not None for row in t.customdata)


def test_contribution_bars_stack_to_the_headline_score(report):
    fig = charts.contribution_bars([a.headline for a in report.agents])
    bars = [t for t in fig.data if isinstance(t, go.Bar)]
    totals = [sum(values) for values in zip(*(t.y for t in bars))]
    ranked = [a.headline for a in report.agents if a.headline.ranked]
    for total, h in zip(totals, ranked):
        assert total == pytest.approx(h.score, abs=0.02)
    (labels,) = [t for t in fig.data if isinstance(t, go.Scatter)]
    assert labels.text[-1] == "0.00"  # null-pointer at the floor: its score, not its weighted parts
