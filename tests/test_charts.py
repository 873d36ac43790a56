"""Chart builders, number formatting, CSV export and display tables, tested directly (no browser)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer import charts, tables
from explorer import format as fmt
from scoring import CANONICAL_POLICY, RADAR_AXES, load_runs, runs_from_records, score_runs
from scoring.contract.rounding import published_round
from scoring.measures.report import neutralize_cell
from tests.helpers import run_tables

ROOT = Path(__file__).resolve().parents[1]
POLICY = CANONICAL_POLICY


@pytest.fixture(scope="module")
def report():
    return score_runs(load_runs(ROOT / "sample_data" / "runs.csv").runs)


def traces(fig: go.Figure, name: str):
    return [t for t in fig.data if t.name == name]


# --------------------------------------------------------------------------- anchor_curve


@pytest.mark.parametrize("anchors", [POLICY.latency_anchors, POLICY.cost_anchors, POLICY.steps_anchors],
                         ids=lambda a: a.name)
def test_anchor_curve_plots_the_policy_anchors(anchors):
    fig = charts.anchor_curve(anchors, title="t", x_label="x")
    (points,) = traces(fig, "anchors")
    assert list(points.x) == list(anchors.xs)
    assert list(points.y) == pytest.approx([100 * s for s in anchors.scores])
    assert list(points.customdata) == [fmt.anchor_x(x, anchors.unit) for x in anchors.xs]
    (line,) = traces(fig, "map")
    # The line runs past both ends, flat there (the clamps), through every anchor.
    assert line.x[0] <= anchors.xs[0] and line.x[-1] > anchors.xs[-1]
    assert line.y[0] == pytest.approx(100 * anchors.scores[0]) and line.y[-1] == pytest.approx(100 * anchors.scores[-1])
    assert list(fig.layout.xaxis.tickvals) == list(anchors.xs)
    assert fig.layout.xaxis.type == ("log" if anchors.unit == "USD" else "linear")
    assert len(fig.data) == 2  # nothing marked


def test_anchor_curve_marks_the_agent_and_the_others():
    anchors = POLICY.latency_anchors
    others = {"a": 700.0, "b": 3000.0, "c": 12000.0}
    fig = charts.anchor_curve(anchors, title="t", x_label="x", value=1250.0, value_label="me", others=others)
    (marked,) = traces(fig, "me")
    assert list(marked.x) == [1250.0]
    assert list(marked.y) == pytest.approx([100 * anchors(1250.0)]) and marked.y[0] == pytest.approx(90.0)
    (grey,) = traces(fig, "other agents")
    assert len(grey.x) == len(others)
    assert list(grey.y) == pytest.approx([100 * anchors(v) for v in others.values()])
    assert [row[0] for row in grey.customdata] == list(others)
    # The x range reaches a value beyond the last anchor, and a dotted line marks the agent.
    line = traces(fig, "map")[0]
    assert line.x[-1] >= 12000.0
    assert [s.x0 for s in fig.layout.shapes] == [1250.0]


def test_the_headlines_anchor_map_reads_0_to_1_as_its_title_and_factors_do():
    """A newcomer read "Latency: average 1,446 ms → 0.8738" over an axis of 0-100 and a hover of 87.38: the Headline
    page's factors are 0-1, the Methodology page's anchor tables 0-100."""
    anchors = POLICY.latency_anchors
    fig = charts.anchor_curve(anchors, title="t", x_label="x", value=1250.0, value_label="me", others={"a": 700.0},
                              factor=True)
    assert fig.layout.yaxis.title.text == "score (0–1)" and list(fig.layout.yaxis.range) == pytest.approx([-0.05, 1.05])
    (marked,) = traces(fig, "me")
    assert list(marked.y) == pytest.approx([0.9]) and "%{y:.4f}" in marked.hovertemplate
    assert list(traces(fig, "anchors")[0].y) == pytest.approx(list(anchors.scores))
    assert list(traces(fig, "other agents")[0].y) == pytest.approx([anchors(700.0)])
    assert max(traces(fig, "map")[0].y) == pytest.approx(1.0)
    plain = charts.anchor_curve(anchors, title="t", x_label="x", value=1250.0, value_label="me")
    assert plain.layout.yaxis.title.text == "score (0–100)" and traces(plain, "me")[0].y[0] == pytest.approx(90.0)


def test_an_anchor_map_turns_logarithmic_when_a_value_lies_far_past_the_last_anchor():
    """A newcomer's review: a tau2 agent at minutes per run squeezed the anchors' tick labels (500, 2,000, 5,000)
    into a pile at the left of a linear axis."""
    anchors = POLICY.latency_anchors
    near = charts.anchor_curve(anchors, title="t", x_label="x", value=2.9 * anchors.xs[-1])
    far = charts.anchor_curve(anchors, title="t", x_label="x", value=3.1 * anchors.xs[-1], others={"o": 700.0})
    assert near.layout.xaxis.type == "linear" and "log scale" not in near.layout.xaxis.title.text
    assert far.layout.xaxis.type == "log" and "log scale" in far.layout.xaxis.title.text
    assert list(far.layout.xaxis.tickvals) == list(anchors.xs)  # still read like the anchor table
    zero = charts.anchor_curve(anchors, title="t", x_label="x", value=90_000.0, others={"o": 0.0})
    assert zero.layout.xaxis.type == "linear"  # a log axis cannot show a 0 ms agent


def test_an_anchor_maps_legend_sits_under_its_axis_title_however_many_lines_it_wraps_to():
    """A reviewer's agent at 27 s: the log axis's three-line title was drawn under the legend (placed at y = -0.3
    of the plot). The legend is now at the figure's foot, the margin grown by each line of the title."""
    anchors = POLICY.latency_anchors
    label = "average latency of completed runs (ms)"
    far = charts.anchor_curve(anchors, title="t", x_label=label, value=4 * anchors.xs[-1])
    near = charts.anchor_curve(anchors, title="t", x_label=label, value=anchors.xs[1])
    lines = far.layout.xaxis.title.text.count("<br>") + 1
    assert lines == 3 and near.layout.xaxis.title.text.count("<br>") == 0
    for fig, n in ((far, 3), (near, 1)):
        assert (fig.layout.legend.yref, fig.layout.legend.y, fig.layout.legend.yanchor) == ("container", 0, "bottom")
        assert fig.layout.margin.b == 80 + 18 * n
    assert far.layout.height - near.layout.height == 36  # the plot keeps its height


def test_anchor_curve_without_a_value_label_names_the_point():
    fig = charts.anchor_curve(POLICY.cost_anchors, title="t", x_label="x", value=0.03)
    (marked,) = traces(fig, "this agent")
    assert marked.y[0] == pytest.approx(100 * POLICY.cost_anchors(0.03))


# --------------------------------------------------------------------------- contribution_waterfall


@pytest.mark.parametrize("agent", ["steady-pro", "swift-lite", "newcomer", "premium-max"])
def test_waterfall_contributions_sum_to_the_score(report, agent):
    h = report.agent(agent).headline
    (w,) = charts.contribution_waterfall(h).data
    assert list(w.measure) == ["relative"] * 3 + ["total"]
    parts = list(w.y[:3])
    assert parts == pytest.approx(list(h.contributions().values()))
    assert sum(parts) == pytest.approx(h.weighted_score)
    assert abs(sum(parts) - h.score) <= 0.005 + 1e-9
    assert w.y[-1] == h.score
    assert list(w.x[:3]) == ["Success (40%)", "Execution (30%)", "Cost (30%)"]


def test_waterfall_shows_the_floor_bar_for_zero_success(report):
    h = report.agent("null-pointer").headline
    assert h.zero_success_floor
    (w,) = charts.contribution_waterfall(h).data
    assert list(w.x) == ["Success (40%)", "Execution (30%)", "Cost (30%)", "Zero-success floor", "Headline score"]
    assert list(w.measure) == ["relative"] * 4 + ["total"]
    assert w.y[3] == pytest.approx(-sum(w.y[:3])) and w.y[3] < 0
    assert sum(w.y[:4]) == pytest.approx(0.0, abs=1e-9) and w.y[-1] == 0.0
    assert w.y[0] == 0.0  # no success, no success points


def test_a_floor_that_takes_nothing_away_reads_plus_zero():
    """No success, no cost, latencies 0, 0, 0, 0 and 100,000 ms (mean 20,000: latency score 0; pstdev 40,000:
    consistency 0): the weighted score is 0 and the floor removes -0.0 points, which read "-0.0000"."""
    rows = [{"run_id": f"r{i}", "agent_id": "z", "task_id": "t", "status": "completed", "success": "false",
             "latency_ms": "100000" if i == 4 else "0", "cost_usd": ""} for i in range(5)]
    h = score_runs(runs_from_records(rows)).agent("z").headline
    assert h.zero_success_floor and h.weighted_score == 0.0
    (w,) = charts.contribution_waterfall(h).data
    assert w.text[3] == "+0.0000" and "-0.0000" not in w.text


def test_waterfall_of_an_unranked_agent_is_empty_not_broken():
    runs = runs_from_records([{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "failed",
                               "success": False, "latency_ms": 10, "cost_usd": 0.1}])
    h = score_runs(runs).agent("a").headline
    (w,) = charts.contribution_waterfall(h).data
    assert list(w.y) == [0.0, 0.0, 0.0, 0.0]
    assert "None" not in w.text[-1] and w.text[-1] == fmt.DASH


# --------------------------------------------------------------------------- radar_chart


def test_radar_chart_one_closed_outline_per_agent(report):
    radars = [a.radar for a in report.agents]
    fig = charts.radar_chart(radars)
    assert len(fig.data) == len(radars)
    assert all(isinstance(t, go.Scatterpolar) for t in fig.data)
    labels = [tables.AXIS_LABELS[a] for a in RADAR_AXES]
    for trace, radar in zip(fig.data, radars):
        expected = [radar.axes[a] for a in RADAR_AXES]
        assert list(trace.r) == expected + expected[:1]
        assert list(trace.theta) == labels + labels[:1]
        assert trace.connectgaps is False
        assert trace.name == radar.agent_id
        assert len(trace.customdata) == len(RADAR_AXES) + 1


def test_radar_chart_leaves_a_gap_for_an_unavailable_axis(report):
    radar = report.agent("blackbox-api").radar
    assert radar.axes["tool_efficiency"] is None
    (trace,) = charts.radar_chart([radar]).data
    i = RADAR_AXES.index("tool_efficiency")
    assert trace.r[i] is None
    assert all(v is not None for j, v in enumerate(trace.r) if j != i)
    assert "unavailable — " + str(radar.reasons["tool_efficiency"]) in trace.customdata[i][1]
    # Rounded as published: the chart shows the 2-decimal axes, not the raw values.
    for axis in RADAR_AXES:
        value = trace.r[RADAR_AXES.index(axis)]
        if value is not None:
            assert value == published_round(radar.raw_axes[axis], POLICY.score_decimals)
    assert trace.r[RADAR_AXES.index("latency")] == 76.32  # 76.315 by hand (tests/test_rounding.py): to even


def test_radar_chart_with_no_agents_is_an_empty_figure():
    assert len(charts.radar_chart([]).data) == 0


# --------------------------------------------------------------------------- pass^k charts


def test_pass_k_bars_one_trace_per_level(report):
    summary = [(a.agent_id, a.repeatability.pass_k) for a in report.agents]
    levels = POLICY.pass_k_levels
    fig = charts.pass_k_bars(summary, levels)
    assert len(fig.data) == len(levels)
    for bar, k in zip(fig.data, levels):
        assert isinstance(bar, go.Bar) and bar.name == f"pass^{k}"
        assert list(bar.x) == [a for a, _ in summary]
        assert list(bar.y) == [None if p is None else p[k] for _, p in summary]
    # newcomer has no qualifying task: an empty bar, labelled as such.
    i = [a for a, _ in summary].index("newcomer")
    assert fig.data[0].y[i] is None and fig.data[0].customdata[i] == "no qualifying task"


def test_pass_k_curve_runs_from_one_to_the_largest_outcome_count(report):
    chosen = ["steady-pro", "two-speed", "null-pointer"]
    curves = {a: report.agent(a).repeatability.curve() for a in chosen}
    fig = charts.pass_k_curve(curves, marked=POLICY.pass_k_levels)
    assert [t.name for t in fig.data] == chosen
    for trace, agent in zip(fig.data, chosen):
        tasks = report.agent(agent).repeatability.tasks
        largest = int(tasks.loc[tasks["qualifies"], "n"].max())
        assert list(trace.x) == list(range(1, largest + 1))
        y = list(trace.y)
        assert all(b <= a + 1e-12 for a, b in zip(y, y[1:])), f"{agent}: pass^k rose with k"
        assert y[0] == pytest.approx(report.agent(agent).repeatability.pass_k[1])
    assert [s.x0 for s in fig.layout.shapes] == list(POLICY.pass_k_levels)


@pytest.mark.parametrize("k", POLICY.pass_k_levels)
def test_pass_k_histogram_counts_every_qualifying_task(report, k):
    rows = tables.task_table(report, "steady-pro")
    values = rows.loc[rows["Qualifies"], f"pass^{k}"].astype(float).tolist()
    (bars,) = charts.pass_k_histogram(values + [float("nan"), None], agent="steady-pro", k=k).data
    assert sum(bars.y) == report.agent("steady-pro").repeatability.qualifying_tasks == len(values)
    assert len(bars.y) == 10
    counts, _ = np.histogram(values, bins=np.linspace(0, 1, 11))
    assert list(bars.y) == list(counts)


@pytest.mark.parametrize("values", [[0.5], [0.5, 1.0, 1.0], [0.1] * 4 + [0.9] * 3, [0.5] * 23])
def test_pass_k_histogram_counts_tasks_in_whole_ticks(values):
    """A count of tasks is whole: no tick between two whole numbers (plotly's own 0.2 steps read "0 0 0 1 1 1")."""
    axis = charts.pass_k_histogram(values, agent="a", k=2).layout.yaxis
    assert axis.tick0 == 0 and isinstance(axis.dtick, int) and axis.dtick >= 1
    assert max(np.histogram(values, bins=np.linspace(0, 1, 11))[0]) / axis.dtick <= 5  # at most about 6 ticks


# --------------------------------------------------------------------------- HTML in agent names

# Names a chart must show as written: markup, an entity plotly would decode (&amp;), a bidi override (shown as
# U+FFFD, as the badge and the pack's tables show it). Each is absent, raw, from every figure's strings.
HOSTILE = ["<b>x</b>", "<script>alert(1)</script>", 'q"uote&amp;x', "rtl\u202eevil"]


@pytest.fixture(scope="module")
def hostile_report():
    records = []
    for i in range(24):
        agent = HOSTILE[i % len(HOSTILE)]
        records.append({"run_id": f"r{i}", "agent_id": agent, "task_id": f"t{i % 2}", "status": "completed",
                        "success": i % 4 != 0, "latency_ms": 800 + 10 * i, "cost_usd": 0.01, "steps": 3})
    return score_runs(runs_from_records(records))


def _strings(obj):
    """Every string in a figure's JSON-able dict, recursively."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)


def _hostile_figures(report):
    agents = [a.agent_id for a in report.agents]
    yield charts.radar_chart([report.agent(a).radar for a in agents])
    yield charts.pass_k_bars([(a, report.agent(a).repeatability.pass_k) for a in agents], POLICY.pass_k_levels)
    yield charts.pass_k_curve({a: report.agent(a).repeatability.curve() for a in agents})
    for a in agents:
        h = report.agent(a).headline
        yield charts.contribution_waterfall(h)
        yield charts.pass_k_histogram([0.5, 1.0], agent=a, k=3)
        yield charts.anchor_curve(POLICY.latency_anchors, title="t", x_label="x", value=h.avg_latency_ms,
                                  value_label=a, others={b: report.agent(b).headline.avg_latency_ms for b in agents})


def test_agent_names_reach_plotly_escaped_never_raw(hostile_report):
    seen_escaped = set()
    for fig in _hostile_figures(hostile_report):
        strings = list(_strings(fig.to_plotly_json()))
        for raw in HOSTILE:
            assert not any(raw in s for s in strings), f"raw {raw!r} in a {type(fig.data[0]).__name__} figure"
        for s in strings:
            for raw in HOSTILE:
                if charts.safe(raw) in s:
                    seen_escaped.add(raw)
    assert seen_escaped == set(HOSTILE)
    assert charts.safe("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"
    # plotly decodes &amp; &lt; &gt; and numeric entities but shows &quot; as written: a quote is left alone
    assert charts.safe('=HYPERLINK("http://evil","x")') == '=HYPERLINK("http://evil","x")'
    assert charts.safe("rtl\u202eevil\u200b") == "rtl\ufffdevil\ufffd"


def test_escaped_names_in_trace_names_and_customdata(hostile_report):
    radar = charts.radar_chart([hostile_report.agent("<b>x</b>").radar])
    assert radar.data[0].name == "&lt;b&gt;x&lt;/b&gt;"
    assert radar.data[0].customdata[0][0] == "&lt;b&gt;x&lt;/b&gt;"
    curve = charts.pass_k_curve({"<script>alert(1)</script>": {1: 1.0, 2: 0.5}})
    assert curve.data[0].name == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert curve.data[0].customdata[0][0] == "&lt;script&gt;alert(1)&lt;/script&gt;"
    anchor = charts.anchor_curve(POLICY.latency_anchors, title="t", x_label="x", value=900.0,
                                 value_label="<b>x</b>", others={"<i>y</i>": 1000.0})
    assert [t.name for t in anchor.data][-1] == "&lt;b&gt;x&lt;/b&gt;"
    assert traces(anchor, "other agents")[0].customdata[0][0] == "&lt;i&gt;y&lt;/i&gt;"
    # Hover templates reference the data; they never carry a name as template code.
    for fig in (radar, curve, anchor):
        for t in fig.data:
            assert "<b>x</b>" not in (t.hovertemplate or "") and "&lt;" not in (t.hovertemplate or "")


# --------------------------------------------------------------------------- explorer.format

MISSING = [None, float("nan"), np.nan, np.float64("nan"), np.float32("nan"), pd.NA, pd.NaT]
FORMATTERS = [fmt.score, fmt.pct, fmt.factor, fmt.ms, fmt.usd, fmt.count, fmt.weight, fmt.steps]


@pytest.mark.parametrize("value", MISSING, ids=repr)
@pytest.mark.parametrize("formatter", FORMATTERS, ids=lambda f: f.__name__)
def test_a_missing_value_is_a_dash(formatter, value):
    assert formatter(value) == fmt.DASH


@pytest.mark.parametrize("formatter, value, expected", [
    (fmt.score, 86.96, "86.96"),
    (fmt.score, 0.0, "0.00"),
    (fmt.score, 100, "100.00"),
    (fmt.pct, 0.8229, "82.29%"),
    (fmt.pct, 0.0, "0.00%"),
    (fmt.pct, 1.0, "100.00%"),
    (fmt.rate, 0.7252, "72.52%"),
    (fmt.pp, 0.032, "+3.20 pp"),
    (fmt.factor, 0.87384, "0.8738"),
    (fmt.factor, 0.5, "0.5000"),
    (fmt.ms, 1446.4, "1,446 ms"),
    (fmt.ms, 0.0, "0 ms"),
    (fmt.usd, 0.0123, "$0.0123"),
    (fmt.usd, 0.15, "$0.1500"),
    (fmt.usd, 0.0, "$0.0000"),
    (fmt.usd, 1.5, "$1.50"),
    (fmt.usd, 1234.5, "$1,234.50"),
    (fmt.count, 2796, "2,796"),
    (fmt.count, 3.0, "3"),
    (fmt.count, np.int64(0), "0"),
    (fmt.weight, 0.25, "25.0%"),
    (fmt.weight, 1 / 3, "33.3%"),
    (fmt.steps, 5.0, "5 steps"),
    (fmt.steps, 4.5, "4.5 steps"),
])
def test_typical_values(formatter, value, expected):
    assert formatter(value) == expected


def test_pct_decimals():
    assert fmt.pct(0.82291, 2) == "82.29%"


@pytest.mark.parametrize("x, unit, expected", [
    (500.0, "ms", "500 ms"), (10000.0, "ms", "10,000 ms"), (0.001, "USD", "$0.001"), (0.2, "USD", "$0.2"),
    (2.0, "steps", "2 steps"), (40.0, "steps", "40 steps"),
])
def test_anchor_x(x, unit, expected):
    assert fmt.anchor_x(x, unit) == expected


def test_plain_escapes_every_markdown_special():
    text = "a*b_c `d` [e](f) <b>g</b> $1 #h :i: ~j~ |k| 1.5 -x +y !z {w} \\"
    escaped = fmt.plain(text)
    # Read it back: every special character comes escaped, and nothing else is.
    read, i = [], 0
    while i < len(escaped):
        if escaped[i] == "\\":
            assert escaped[i + 1] in fmt._MARKDOWN_SPECIALS, escaped[i:i + 2]
            read.append(escaped[i + 1])
            i += 2
        else:
            assert escaped[i] not in fmt._MARKDOWN_SPECIALS, f"unescaped {escaped[i]!r} in {escaped!r}"
            read.append(escaped[i])
            i += 1
    assert "".join(read) == text
    assert fmt.plain("<b>x</b>") == "\\<b\\>x\\<\\/b\\>"
    assert fmt.plain(":material/home:") == "\\:material\\/home\\:"  # no icon directive survives
    assert fmt.plain("plain words") == "plain words"
    # An HTML entity would decode in Markdown (a name's &#x202E; back to the bidi override the audit reversed text
    # with); an escaped ampersand is a literal one.
    assert fmt.plain("gpt-4&#x202E;") == "gpt\\-4\\&\\#x202E;"


def test_dollars_safe():
    assert fmt.dollars_safe("between $0.01 and $0.05") == "between \\$0.01 and \\$0.05"


# --------------------------------------------------------------------------- CSV downloads (scoring.measures.report)


@pytest.mark.parametrize("cell", ["=SUM(A1:A3)", "+1+1", "-2+3", "@cmd", "\tx", "\rx", "=HYPERLINK(\"x\")"])
def test_neutralize_quotes_formula_cells(cell):
    assert neutralize_cell(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["steady-pro", "a=b", "", "'=already", " =x"])
def test_neutralize_leaves_ordinary_text(cell):
    assert neutralize_cell(cell) == cell


@pytest.mark.parametrize("value", [-1, -0.5, 0, 3.25, np.float64(-2.0), None, True])
def test_neutralize_leaves_numbers_and_non_text_untouched(value):
    assert neutralize_cell(value) is value


def test_report_csv_neutralizes_agent_ids_and_keeps_numbers():
    records = [{"run_id": f"r{i}", "agent_id": agent, "task_id": "t", "status": "completed", "success": True,
                "latency_ms": 1000, "cost_usd": 0.01, "steps": 2}
               for i, agent in enumerate(["=cmd|' /C calc'!A0", "-minus", "@at", "plain"])]
    report = score_runs(runs_from_records(records))
    text = report.to_csv_text()
    frame = pd.read_csv(pd.io.common.StringIO(text), keep_default_na=False)
    assert set(frame["agent_id"]) == {"'=cmd|' /C calc'!A0", "'-minus", "'@at", "plain"}
    assert all(isinstance(v, float) for v in frame["headline_score"])
    assert not any(str(v).startswith(("=", "+", "-", "@")) for v in frame["agent_id"])


# --------------------------------------------------------------------------- explorer.tables

LEADERBOARD_COLUMNS = ["Rank", "Agent", "Score", "Flags", "Success rate", "Execution", "Avg latency (ms)",
                       "Consistency", "Cost score", "Avg cost (USD)", "Completed runs"]


def test_leaderboard_order_and_columns(report):
    frame = tables.leaderboard(report)
    assert list(frame.columns) == LEADERBOARD_COLUMNS
    assert list(frame["Agent"]) == [a.agent_id for a in report.agents]
    assert list(frame["Rank"]) == list(range(1, len(frame) + 1))
    scores = list(frame["Score"])
    assert scores == sorted(scores, reverse=True)
    assert frame["Score"].dtype == "Float64" and frame["Rank"].dtype == "Int64"
    assert frame.iloc[0]["Agent"] == "steady-pro" and frame.iloc[-1]["Agent"] == "null-pointer"


def test_leaderboard_ties_and_unranked_agents():
    records = []
    for agent in ("b", "a"):  # identical runs: tied score, agent id ascending
        for i in range(3):
            records.append({"run_id": f"{agent}{i}", "agent_id": agent, "task_id": "t", "status": "completed",
                            "success": True, "latency_ms": 1000, "cost_usd": 0.01})
    records.append({"run_id": "z0", "agent_id": "0-unranked", "task_id": "t", "status": "failed",
                    "success": False, "latency_ms": 1, "cost_usd": 0.0})
    frame = tables.leaderboard(score_runs(runs_from_records(records)))
    assert list(frame["Agent"]) == ["a", "b", "0-unranked"]
    assert frame["Score"].iloc[0] == frame["Score"].iloc[1]
    last = frame.iloc[-1]
    assert last["Flags"] == "unranked" and pd.isna(last["Rank"]) and pd.isna(last["Score"])


def test_profile_ranking_keeps_the_headline_columns_under_any_weights(report):
    default = tables.profile_ranking(report, POLICY.radar_weights)
    tilted = tables.profile_ranking(report, {**POLICY.radar_weights, "correctness": 1.0, "tool_efficiency": 0.0})
    latency_only = tables.profile_ranking(report, {a: (1.0 if a == "latency" else 0.0) for a in RADAR_AXES})

    def headline(frame):
        return frame.set_index("Agent")[["Headline score", "Headline rank"]].sort_index()

    for other in (tilted, latency_only):
        pd.testing.assert_frame_equal(headline(other), headline(default))
        assert list(other["Agent"]) != list(default["Agent"])
        assert list(other.columns) == list(default.columns)
    expected = {a.agent_id: (a.headline.score, a.rank) for a in report.agents}
    shown = {agent: (score, rank) for agent, score, rank
             in zip(default["Agent"], default["Headline score"], default["Headline rank"])}
    assert shown == expected
    # Profile rank follows the profile score; an agent with no scorable axis has no profile rank.
    assert list(default["Profile score"]) == sorted(default["Profile score"], reverse=True)
    assert list(default["Profile rank"]) == list(range(1, len(default) + 1))
    no_latency = latency_only.set_index("Agent").loc["newcomer"]  # its latency axis is suppressed
    assert pd.isna(no_latency["Profile score"]) and pd.isna(no_latency["Profile rank"])
    assert latency_only["Agent"].iloc[-1] == "newcomer"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=run_tables(min_size=1), weights=st.fixed_dictionaries(
    {a: st.sampled_from([0.0, 0.05, 0.2, 0.35, 1.0]) for a in RADAR_AXES}))
def test_profile_ranking_orders_by_score_then_agent_with_the_unscored_last(rows, weights):
    if not any(weights.values()):
        weights = {**weights, "cost": 1.0}
    report = score_runs(runs_from_records(rows))
    frame = tables.profile_ranking(report, weights)
    expected = sorted(((a.radar.profile(weights).score, a.agent_id) for a in report.agents),
                      key=lambda e: (e[0] is None, -(e[0] or 0.0), e[1]))
    assert list(frame["Agent"]) == [agent for _, agent in expected]
    assert [None if pd.isna(s) else s for s in frame["Profile score"]] == [s for s, _ in expected]
    scored = sum(s is not None for s, _ in expected)
    assert list(frame["Profile rank"].iloc[:scored]) == list(range(1, scored + 1))
    assert frame["Profile rank"].iloc[scored:].isna().all()
    by_agent = {a.agent_id: a for a in report.agents}
    assert [by_agent[a].headline.score for a in frame["Agent"]] == [
        None if pd.isna(s) else s for s in frame["Headline score"]]
    assert {str(frame[c].dtype) for c in ["Profile score", "Headline score", *[tables.AXIS_LABELS[x]
                                                                                for x in RADAR_AXES]]} == {"Float64"}
    assert str(frame["Profile rank"].dtype) == str(frame["Headline rank"].dtype) == "Int64"


def test_profile_ranking_flags_the_zero_success_agent_on_its_row(report):
    """null-pointer never succeeds (headline 0.00, last) yet ranks high on a profile: its row says why."""
    frame = tables.profile_ranking(report, POLICY.radar_weights).set_index("Agent")
    assert frame.index.get_loc("null-pointer") < 5  # high on the profile...
    assert frame.loc["null-pointer", "Headline score"] == 0
    assert "zero-success floor" in frame.loc["null-pointer", "Headline flags"]  # ...and flagged beside it
    for a in report.agents:
        assert frame.loc[a.agent_id, "Headline flags"] == ", ".join(a.headline.flags)
    # beside the score, in view, and named for what they are: the headline's, not the profile's
    assert list(frame.columns[:3]) == ["Profile rank", "Profile score", "Headline flags"]  # beside the score, in view


def test_repeatability_summary_and_task_table(report):
    summary = tables.repeatability_summary(report).set_index("Agent")
    for a in report.agents:
        row = summary.loc[a.agent_id]
        assert row["Qualifying tasks"] == a.repeatability.qualifying_tasks
        for k in POLICY.pass_k_levels:
            expected = a.repeatability.pass_k
            assert (pd.isna(row[f"pass^{k}"]) if expected is None
                    else math.isclose(row[f"pass^{k}"], expected[k]))
    rows = tables.task_table(report, "newcomer")
    assert not rows["Qualifies"].any() and rows["pass^1"].isna().all()


# --------------------------------------------------------------------------- issue 5 charts


def test_interval_chart_has_one_trace_per_tie_group_with_asymmetric_error_bars():
    from explorer.charts import interval_chart

    rows = [("a", 80.0, 75.0, 90.0, 1), ("b", 78.0, 70.0, 79.0, 1), ("<b>c</b>", 50.0, 45.0, 52.0, 2)]
    fig = interval_chart(rows)
    assert [t.name for t in fig.data] == ["tie group 1", "tie group 2"]
    first = fig.data[0]
    assert list(first.x) == [80.0, 78.0]
    assert list(first.error_x.array) == [10.0, 1.0] and list(first.error_x.arrayminus) == [5.0, 8.0]
    assert list(fig.data[1].y) == ["&lt;b&gt;c&lt;/b&gt;"]


def test_frontier_chart_highlights_exactly_the_frontier():
    from explorer.charts import frontier_chart
    from scoring.analysis.uncertainty import pareto_frontier

    points = {"cheap": (0.002, 0.5), "best": (0.01, 0.9), "dominated": (0.02, 0.6), "pricey": (0.1, 0.95)}
    frontier = pareto_frontier(points)
    assert frontier == {"cheap", "best", "pricey"}
    fig = frontier_chart(points, frontier, x_label="cost", title="t", unit="USD")
    line, on, off = fig.data
    assert list(line.x) == [0.002, 0.01, 0.1]  # the frontier line runs in x order
    assert sorted(on.customdata[i][0] for i in range(len(on.x))) == ["best", "cheap", "pricey"]
    assert [c[0] for c in off.customdata] == ["dominated"] and list(off.text) == [""]
    assert fig.layout.xaxis.type == "log"
    # Milliseconds: one thousands separator on every tick (plotly wrote "999.5, 1000, 1,000.5" for close values).
    close = frontier_chart({"a": (999.5, 0.5), "b": (1000.5, 0.6)}, {"a", "b"}, x_label="ms", title="t", unit="ms")
    assert close.layout.xaxis.tickformat == ",~r" and close.layout.xaxis.type != "log"
