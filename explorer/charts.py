"""Chart builders: plain functions that take scoring results and return plotly figures.

User-provided text (agent and task names) is escaped before it reaches plotly, whose
labels understand a subset of HTML, and never enters a hover template as code.
"""

from __future__ import annotations

import datetime
import html
import math
import textwrap
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from scoring import RADAR_AXES, Anchors, Headline, Policy, Radar
from scoring.contract.policy import FIELD_BY_NAME
from scoring.measures.axes import AXIS_LABELS
from scoring.outputs.badge import safe_text

from . import format as fmt
from .tables import COMPONENT_LABELS

if TYPE_CHECKING:
    import pandas as pd

    from scoring.analysis.explain import PointsLost

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf"]
COMPONENT_COLORS = {"success": "#2ca02c", "execution": "#1f77b4", "cost": "#ff7f0e", "floor": "#d62728"}


@dataclass(frozen=True)
class ChartTheme:
    """The neutral colours of a chart, picked for the app's light or dark background.

    The categorical colours (agents, components) read on both backgrounds; what must follow the
    theme are the neutral ones: the anchor curve and its points, totals, annotations, guides.
    ``background`` is the background the app draws behind the chart (Streamlit's own).
    """

    name: str
    ink: str  # the main neutral mark: anchor curves and points, totals
    muted: str  # secondary text and marks: annotations, dominated agents
    faint: str  # many marks at once: the other agents on an anchor curve
    guide: str  # reference lines and connectors
    accent: str  # the one agent a page is about
    background: str
    template: str


LIGHT = ChartTheme("light", ink="#31333F", muted="#5E6270", faint="rgba(94,98,112,0.45)", guide="#A3A8B8",
                   accent="#D62728", background="#FFFFFF", template="plotly_white")
DARK = ChartTheme("dark", ink="#FAFAFA", muted="#B5B9C6", faint="rgba(200,204,214,0.5)", guide="#6B7080",
                  accent="#FF6B6B", background="#0E1117", template="plotly_dark")


def theme_for(kind: str | None) -> ChartTheme:
    """The chart theme of the app's theme type ("light" or "dark"; anything else is light)."""
    return DARK if kind == "dark" else LIGHT


def safe(text: object) -> str:
    """User text for a plotly label: ``<``, ``>`` and ``&`` escaped (plotly reads a subset of HTML and a few
    entities), quotes left as written (plotly shows ``&quot;`` as those six characters), and every bidi control or
    other invisible format character shown as U+FFFD, as the badge and the review pack's tables show it (in a label
    a U+202E drew the rest of the name backwards).

    >>> safe('=HYPERLINK("x") <b>&')
    '=HYPERLINK("x") &lt;b&gt;&amp;'
    >>> safe("rtl\u202eevil")
    'rtl\ufffdevil'
    """
    return html.escape(safe_text(str(text)), quote=False)


TITLE_CHARS = 40  # a chart title wraps after this many characters: it fits a phone's width (390 px)
# An id on a chart's axis, in its title, its legend or beside a point: a longer one is cut in the middle (the hover
# has it whole). A reviewer's 200-character ids left a heatmap of 280 x 120 px under 1,400 px of labels.
LABEL_CHARS = 40
LABEL_TAIL = 12  # the end of a cut id kept: ids that differ only at the end stay apart
AXIS_CHARS = 38


def _cut(text: object, limit: int = LABEL_CHARS) -> str:
    """The text :func:`short` shows, before its HTML escape (its length is what the chart lays out)."""
    text = safe_text(str(text))
    return text if len(text) <= limit else text[: limit - LABEL_TAIL - 1] + "…" + text[-LABEL_TAIL:]


def short(text: object, limit: int = LABEL_CHARS) -> str:
    """:func:`safe` of an id cut to ``limit`` characters in the middle: its start and its last LABEL_TAIL kept.

    >>> short("agent-" + "x" * 60 + "-DIFFEND1")
    'agent-xxxxxxxxxxxxxxxxxxxxx…xxx-DIFFEND1'
    >>> short("<b>ok</b>")
    '&lt;b&gt;ok&lt;/b&gt;'
    """
    return html.escape(_cut(text, limit), quote=False)


def _short_ticks(fig: go.Figure, axis: str, values: Iterable[object]) -> None:
    """A category axis's tick labels cut by :func:`short`; its categories keep the whole id (two ids cut alike
    stay two categories, and the hover says which)."""
    values = list(values)
    getattr(fig, f"update_{axis}axes")(tickmode="array", tickvals=[safe(v) for v in values],
                                       ticktext=[short(v) for v in values])


def _label_room(values: Iterable[object], px_per_char: int = 7, fits: int = 15) -> int:
    """The height a chart adds for its upright (or slanted) category labels past ``fits`` characters, so that its
    plot keeps its own (a reviewer's 40-character labels left a plot of 55 px)."""
    longest = max((len(_cut(v)) for v in values), default=0)
    return px_per_char * max(0, longest - fits)


def wrap(text: str, width: int = TITLE_CHARS) -> str:
    """Plotly never wraps a title or an axis label: break it between words (HTML line breaks)."""
    return "<br>".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)) or text


def _layout(fig: go.Figure, title: str, height: int = 380, theme: ChartTheme | None = None,
            **kwargs: Any) -> go.Figure:
    theme = theme or LIGHT
    lines = wrap(title).count("<br>") + 1
    margin = {"l": 60, "r": 20, "t": 40 + 22 * lines, "b": 50, **kwargs.pop("margin", {})}
    fig.update_layout(title={"text": wrap(title), "x": 0.0, "xanchor": "left"}, height=height + 22 * (lines - 1),
                      margin=margin, template=theme.template, **kwargs)
    return fig


def _value_text(value: float, unit: str) -> str:
    return fmt.ms(value) if unit == "ms" else fmt.usd(value) if unit == "USD" else fmt.steps(value)


FAR_PAST_ANCHORS = 3  # a value this many times the last anchor turns an anchor map's axis logarithmic


def anchor_curve(anchors: Anchors, *, title: str, x_label: str, value: float | None = None,
                 value_label: str = "", others: Mapping[str, float] | None = None,
                 theme: ChartTheme = LIGHT, factor: bool = False) -> go.Figure:
    """The clamped piecewise-linear map with its anchors as points, one value marked, others faint.

    The x range runs a little past both ends so the clamps are visible as flat segments. Scores read 0-100, as the
    anchor tables and the radar axes read them; ``factor`` draws them 0-1, as the headline's factors read (the
    Headline page: "a latency score of 0.8738").
    """
    scale, marked_format, anchor_format = (1, ".4f", ".2f") if factor else (100, ".2f", ".0f")
    xs = np.array(anchors.xs, dtype=float)
    scores = scale * np.array(anchors.scores, dtype=float)
    marked = [v for v in [value, *(others or {}).values()] if v is not None]
    low = min([xs[0] * 0.5, *marked]) if xs[0] > 0 else 0.0
    high = max([xs[-1] * 1.15, *marked])
    line_x = np.concatenate(([low], xs, [high]))
    line_y = scale * np.array([anchors(x) for x in line_x])
    unit = anchors.unit
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=line_x, y=line_y, mode="lines", name="map", line={"color": theme.ink, "width": 2},
        hoverinfo="skip", showlegend=False))
    fig.add_trace(go.Scatter(
        x=xs, y=scores, mode="markers", name="anchors", marker={"size": 10, "color": theme.ink},
        customdata=[fmt.anchor_x(x, unit) for x in xs],
        hovertemplate=f"anchor %{{customdata}} → score %{{y:{anchor_format}}}<extra></extra>"))
    if others:
        names = list(others)
        ox = np.array([others[n] for n in names], dtype=float)
        fig.add_trace(go.Scatter(
            x=ox, y=scale * np.array([anchors(x) for x in ox]), mode="markers", name="other agents",
            marker={"size": 8, "color": theme.faint},
            customdata=[[safe(n), _value_text(x, unit)] for n, x in zip(names, ox)],
            hovertemplate=f"%{{customdata[0]}}: %{{customdata[1]}} → %{{y:{marked_format}}}<extra></extra>"))
    if value is not None:
        y = scale * anchors(value)
        fig.add_trace(go.Scatter(
            x=[value], y=[y], mode="markers", name=safe(value_label) or "this agent",
            marker={"size": 15, "color": theme.accent, "symbol": "diamond",
                    "line": {"width": 1, "color": theme.background}},
            customdata=[[safe(value_label), _value_text(value, unit)]],
            hovertemplate=f"%{{customdata[0]}}: %{{customdata[1]}} → score %{{y:{marked_format}}}<extra></extra>"))
        fig.add_vline(x=value, line={"color": theme.accent, "dash": "dot", "width": 1})
    # A value far past the last anchor would squeeze the anchors (and their tick labels) into the axis's first few
    # pixels: the axis turns logarithmic then, as the cost axis always is.
    far = unit != "USD" and low > 0 and high > FAR_PAST_ANCHORS * xs[-1]
    log = unit == "USD" or far
    if far:
        x_label += " (log scale: a value lies far past the last anchor)"
    # Ticks at the anchors themselves: the axis reads like the anchor table.
    axis_title = wrap(x_label, AXIS_CHARS)
    fig.update_xaxes(title=axis_title, type="log" if log else "linear", tickvals=list(xs),
                     ticktext=[fmt.anchor_x(x, unit).replace(" ms", "").replace(" steps", "") for x in xs])
    fig.update_yaxes(title="score (0–1)" if factor else "score (0–100)", range=[-0.05 * scale, 1.05 * scale])
    # The legend at the figure's foot, under the axis title however many lines it wraps to (at y = -0.3 of the plot,
    # a log axis's three-line title was drawn under it).
    lines = axis_title.count("<br>") + 1
    return _layout(fig, title, height=380 + 18 * (lines - 1), theme=theme,
                   legend={"orientation": "h", "yref": "container", "y": 0.0, "yanchor": "bottom"},
                   margin={"b": 80 + 18 * lines})


def contribution_waterfall(headline: Headline, theme: ChartTheme = LIGHT) -> go.Figure:
    """The 40/30/30 contributions stacking up to the headline score (with the floor when it applies)."""
    parts = headline.contributions() or {}
    p = headline.policy
    labels = [f"Success ({p.success_weight:.0%})", f"Execution ({p.execution_weight:.0%})",
              f"Cost ({p.cost_weight:.0%})"]
    values = [parts.get("success", 0.0), parts.get("execution", 0.0), parts.get("cost", 0.0)]
    measures = ["relative"] * 3
    hover = [f"{v:.2f} points" for v in values]
    if headline.zero_success_floor:
        labels.append("Zero-success floor")
        values.append(-sum(values))
        measures.append("relative")
        hover.append("no successful completed run: the score is 0")
    labels.append("Headline score")
    values.append(headline.score or 0.0)
    measures.append("total")
    hover.append(f"{fmt.score(headline.score)} (rounded to {p.score_decimals} decimals)")
    fig = go.Figure(go.Waterfall(
        x=labels, y=values, measure=measures, customdata=hover,
        # The floor takes the unrounded weighted score away: four decimals, as the table beside it writes it.
        text=[(f"{0.0 if abs(v) < 5e-5 else v:+.4f}" if label == "Zero-success floor" else f"{v:+.2f}")
              if m == "relative"
              else fmt.score(headline.score) for label, v, m in zip(labels, values, measures)],
        textposition="outside", hovertemplate="%{x}: %{customdata}<extra></extra>",
        increasing={"marker": {"color": COMPONENT_COLORS["success"]}},
        decreasing={"marker": {"color": COMPONENT_COLORS["floor"]}},
        totals={"marker": {"color": theme.ink}}, connector={"line": {"color": theme.guide}}, cliponaxis=False))
    fig.update_yaxes(title="points of the 0–100 score", range=[0, 110])
    return _layout(fig, f"How {short(headline.agent_id)}'s headline score adds up", theme=theme, showlegend=False)


def radar_chart(radars: Sequence[Radar], axis_order: Sequence[str] = RADAR_AXES,
                theme: ChartTheme = LIGHT) -> go.Figure:
    """Overlay radar (Scatterpolar) of the chosen agents; an unavailable axis is a gap in the outline."""
    fig = go.Figure()
    labels = [AXIS_LABELS[a] for a in axis_order]
    for i, radar in enumerate(radars):
        values = [radar.axes[a] for a in axis_order]
        # Close the outline by repeating the first axis; None leaves a gap (connectgaps=False).
        r = values + values[:1]
        theta = labels + labels[:1]
        hover = [f"{AXIS_LABELS[a]}: " + (fmt.score(radar.axes[a]) if radar.axes[a] is not None
                                          else "unavailable — " + str(radar.reasons[a])) for a in axis_order]
        fig.add_trace(go.Scatterpolar(
            r=r, theta=theta, name=short(radar.agent_id), mode="lines+markers", connectgaps=False,
            line={"color": PALETTE[i % len(PALETTE)], "width": 2}, fill="none",
            customdata=[[safe(radar.agent_id), h] for h in hover + hover[:1]],
            hovertemplate="%{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
    # The axis labels sit outside the circle: side margins wide enough for "Tool efficiency" on a phone.
    fig.update_layout(polar={"radialaxis": {"range": [0, 100], "tickvals": [0, 25, 50, 75, 100],
                                            "title": {"text": ""}, "tickfont": {"size": 10}},
                             "angularaxis": {"direction": "clockwise", "tickfont": {"size": 12}}})
    return _layout(fig, "Fitness radar (0–100 per axis; gaps are unavailable axes)", height=480, theme=theme,
                   legend={"orientation": "h", "y": -0.1}, margin={"l": 70, "r": 70})


CHART_MAX_AGENTS = 40  # agents drawn in a bar or interval chart at most: the leaderboard's first (explorer-defined)


def pass_k_bars(summary_rows: Iterable[tuple[str, dict[int, float] | None]], levels: Sequence[int],
                theme: ChartTheme = LIGHT) -> go.Figure:
    """Grouped bars: pass^k per agent for the public levels (agents with no qualifying task are listed empty).

    A bar of exactly 0 has no height: it is labelled "0%" so that it does not read as missing data.
    """
    rows = list(summary_rows)
    agents = [safe(a) for a, _ in rows]
    fig = go.Figure()
    for j, k in enumerate(levels):
        values = [None if p is None else p[k] for _, p in rows]
        fig.add_trace(go.Bar(
            x=agents, y=values, name=f"pass^{k}", marker={"color": PALETTE[j % len(PALETTE)]},
            text=["0%" if v == 0 else "" for v in values], textposition="outside", cliponaxis=False,
            textfont={"color": theme.ink, "size": 11},
            customdata=[fmt.pct(v) if v is not None else "no qualifying task" for v in values],
            hovertemplate=f"%{{x}}<br>pass^{k}: %{{customdata}}<extra></extra>"))
    # No qualifying task: undefined, which must not look like a 0% bar. Set in one go: add_annotation once per
    # agent re-validates every annotation before it (2,483 agents without pass^k did not finish in 12 minutes).
    fig.update_layout(annotations=[
        {"x": agent, "y": 0.02, "text": "no qualifying task", "textangle": -90, "showarrow": False,
         "yanchor": "bottom", "font": {"color": theme.muted, "size": 11}}
        for agent, (_, p) in zip(agents, rows) if p is None])
    fig.update_yaxes(title="mean over qualifying tasks", tickformat=".0%", range=[0, 1.05])
    fig.update_xaxes(title="agent")
    _short_ticks(fig, "x", [a for a, _ in rows])
    return _layout(fig, "Repeatability: pass^k per agent", height=380 + _label_room([a for a, _ in rows]),
                   theme=theme, barmode="group",
                   legend={"orientation": "h", "y": 1.12, "x": 1, "xanchor": "right"})


def pass_k_curve(curves: Mapping[str, Mapping[int, float]], marked: Sequence[int] = (),
                 theme: ChartTheme = LIGHT) -> go.Figure:
    """pass^k against k (1 up to the largest outcome count) for each agent."""
    fig = go.Figure()
    for i, (agent, curve) in enumerate(curves.items()):
        ks = list(curve)
        fig.add_trace(go.Scatter(
            x=ks, y=[curve[k] for k in ks], mode="lines+markers", name=short(agent),
            line={"color": PALETTE[i % len(PALETTE)]}, marker={"size": 5},
            customdata=[[safe(agent), fmt.pct(curve[k])] for k in ks],
            hovertemplate="%{customdata[0]}<br>pass^%{x}: %{customdata[1]}<extra></extra>"))
    for k in marked:
        fig.add_vline(x=k, line={"color": theme.guide, "dash": "dot"})
    fig.update_xaxes(title="k (attempts that must all succeed)", rangemode="tozero")
    fig.update_yaxes(title="mean pass^k over qualifying tasks", tickformat=".0%", range=[0, 1.05])
    return _layout(fig, "pass^k curve: how fast repeat success falls with k", theme=theme,
                   legend={"orientation": "h", "y": -0.25})


def pass_k_histogram(values: Sequence[float], *, agent: str, k: int, theme: ChartTheme = LIGHT) -> go.Figure:
    """Distribution of per-task pass^k for one agent (qualifying tasks only), in 10% bins."""
    values = [v for v in values if v is not None and not np.isnan(v)]
    edges = np.linspace(0, 1, 11)
    counts, _ = np.histogram(values, bins=edges)
    labels = [f"{lo:.0%}–{hi:.0%}" for lo, hi in zip(edges[:-1], edges[1:])]
    fig = go.Figure(go.Bar(
        x=(edges[:-1] + edges[1:]) / 2, y=counts, width=0.095, marker={"color": PALETTE[0]}, customdata=labels,
        hovertemplate="pass^" + str(k) + " in %{customdata}: %{y} task(s)<extra></extra>"))
    fig.update_xaxes(title=f"per-task pass^{k}", tickformat=".0%", tickvals=edges[::2], range=[0, 1])
    # Whole tasks: ticks one or more tasks apart (plotly's own steps go down to 0.2, read as "0 0 0 1 1 1").
    fig.update_yaxes(title="qualifying tasks", tickformat="d", tick0=0, dtick=max(1, math.ceil(int(counts.max()) / 5)),
                     rangemode="tozero")
    return _layout(fig, f"Per-task pass^{k} for {short(agent)}", theme=theme, showlegend=False)


ANCHOR_MAPS = {"latency_anchors": ("latency (ms)", ""), "cost_anchors": ("cost per run (USD)", "; log scale"),
               "steps_anchors": ("steps per run", "")}  # the policy's anchor maps: x label, title note


def policy_anchor_figure(policy: Policy, field: str, theme: ChartTheme = LIGHT) -> go.Figure:
    """One anchor map of a policy (``field``, a key of :data:`ANCHOR_MAPS`), unmarked, for the methodology page."""
    x_label, note = ANCHOR_MAPS[field]
    return anchor_curve(getattr(policy, field), x_label=x_label, theme=theme,
                        title=f"{FIELD_BY_NAME[field].label} ({policy.provenance[field]}{note})")


def policy_anchor_figures(policy: Policy, theme: ChartTheme = LIGHT) -> list[go.Figure]:
    """The three anchor maps of a policy, unmarked, for the methodology page."""
    return [policy_anchor_figure(policy, field, theme) for field in ANCHOR_MAPS]


def interval_axis(rows: Sequence[tuple[str, float, float, float, int]]) -> tuple[float, float]:
    """The score axis of an interval chart, fitted to the data: every score, and every interval end that is
    not more than three typical interval widths beyond the scores (a very wide interval — an agent with a
    handful of runs — would otherwise squeeze the others to a few pixels). Never beyond 0-100."""
    if not rows:
        return (0.0, 100.0)
    scores = [r[1] for r in rows]
    half = float(np.median([max(r[1] - r[2], r[3] - r[1]) for r in rows]))
    reach = 3 * half + 1.0
    low = max(min(r[2] for r in rows), min(scores) - reach)
    high = min(max(r[3] for r in rows), max(scores) + reach)
    pad = max(0.5, 0.05 * (high - low))
    return (max(low - pad, -1.0), min(high + pad, 101.0))


def interval_chart(rows: Sequence[tuple[str, float, float, float, int]], *, floored: Collection[str] = (),
                   theme: ChartTheme = LIGHT) -> go.Figure:
    """Headline score per agent with its bootstrap interval as an error bar, coloured by tie group.

    ``rows``: (agent, score, low, high, tie group) in leaderboard order, best at the top. The score
    axis is fitted to the data (:func:`interval_axis`), not started at 0, where intervals a few points
    wide would be a few pixels. An interval that runs past the axis ends in an arrow labelled with
    its end. ``floored`` agents (score 0 by the zero-success floor, an interval of no width) would
    stretch the axis to 0: they are drawn at its left end as an arrow labelled with their score.
    """
    fig = go.Figure()
    fitted = [r for r in rows if r[0] not in floored] or list(rows)
    x_range = interval_axis(fitted)
    off_axis = {r[0] for r in rows} - {r[0] for r in fitted}
    for g in sorted({r[4] for r in rows}):
        inside = [r for r in rows if r[4] == g and r[0] not in off_axis]
        outside = [r for r in rows if r[4] == g and r[0] in off_axis]
        color = PALETTE[(g - 1) % len(PALETTE)]
        if inside:
            fig.add_trace(go.Scatter(
                x=[r[1] for r in inside], y=[safe(r[0]) for r in inside], mode="markers", name=f"tie group {g}",
                marker={"size": 11, "color": color},
                error_x={"type": "data", "symmetric": False, "array": [r[3] - r[1] for r in inside],
                         "arrayminus": [r[1] - r[2] for r in inside], "thickness": 2, "width": 6},
                customdata=[[safe(r[0]), fmt.score(r[1]), fmt.score(r[2]), fmt.score(r[3]), r[4]] for r in inside],
                hovertemplate="%{customdata[0]}: %{customdata[1]}<br>95% interval %{customdata[2]} – "
                              "%{customdata[3]}<br>tie group %{customdata[4]}<extra></extra>"))
        ends = [(r, x_range[0], r[2], "triangle-left", "middle right") for r in inside if r[2] < x_range[0]]
        ends += [(r, x_range[1], r[3], "triangle-right", "middle left") for r in inside if r[3] > x_range[1]]
        ends += [(r, x_range[0], r[1], "triangle-left", "middle right") for r in outside]
        if ends:
            fig.add_trace(go.Scatter(
                x=[x for _, x, _, _, _ in ends], y=[safe(r[0]) for r, _, _, _, _ in ends], mode="markers+text",
                # A group drawn only off the axis (a floored agent's) is named in the legend by these marks.
                name=f"tie group {g}" if not inside else f"tie group {g}: off the axis",
                showlegend=not inside, cliponaxis=False,
                marker={"size": 12, "color": color, "symbol": [m for _, _, _, m, _ in ends]},
                text=[f"{fmt.score(v)}{' (floor)' if r[0] in off_axis else ''}" for r, _, v, _, _ in ends],
                textposition=[p for _, _, _, _, p in ends], textfont={"color": theme.muted, "size": 11},
                customdata=[[safe(r[0]), fmt.score(v), "score (zero-success floor)" if r[0] in off_axis
                             else "interval end"] for r, _, v, _, _ in ends],
                hovertemplate="%{customdata[0]}: %{customdata[2]} %{customdata[1]}, off the axis<extra></extra>"))
    fig.update_yaxes(title="agent (leaderboard order)", autorange="reversed", type="category")
    _short_ticks(fig, "y", [r[0] for r in rows])
    fig.update_xaxes(title="score, 95% bootstrap interval", range=list(x_range))
    return _layout(fig, "Headline scores and their bootstrap intervals", height=max(320, 38 * len(rows) + 120),
                   theme=theme, legend={"orientation": "h", "y": -0.15})


def frontier_chart(points: Mapping[str, tuple[float, float]], frontier: set[str], *, x_label: str,
                   title: str, unit: str, theme: ChartTheme = LIGHT) -> go.Figure:
    """Success rate against an average (cost or latency) per agent, the Pareto frontier highlighted."""
    names = list(points)
    fig = go.Figure()
    on = sorted((n for n in names if n in frontier), key=lambda n: points[n][0])
    fig.add_trace(go.Scatter(
        x=[points[n][0] for n in on], y=[points[n][1] for n in on], mode="lines", name="Pareto frontier",
        line={"color": theme.accent, "dash": "dash"}, hoverinfo="skip"))
    for label, members, color in (("on the frontier", on, theme.accent),
                                  ("dominated", [n for n in names if n not in frontier], theme.muted)):
        fig.add_trace(go.Scatter(
            x=[points[n][0] for n in members], y=[points[n][1] for n in members], mode="markers+text",
            # Only frontier agents are labelled: dominated ones cluster; hover names them.
            name=label, text=[short(n) if n in frontier else "" for n in members], textposition="top center",
            cliponaxis=False,
            marker={"size": 11, "color": color},
            customdata=[[safe(n), _value_text(points[n][0], unit), fmt.pct(points[n][1])] for n in members],
            hovertemplate="%{customdata[0]}<br>average %{customdata[1]}<br>success rate %{customdata[2]}"
                          "<extra></extra>"))
    if unit == "USD":
        ticks = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"${v:g}" for v in ticks])
    else:  # one thousands separator whatever the ticks (plotly wrote "999.5, 1000, 1,000.5"; "24.5025k")
        fig.update_xaxes(tickformat=",~r")
    fig.update_xaxes(title=wrap(x_label, AXIS_CHARS))
    fig.update_yaxes(title="success rate (completed runs)", tickformat=".0%", range=[-0.05, 1.1])
    return _layout(fig, title, height=420, theme=theme, legend={"orientation": "h", "y": -0.25})


# --------------------------------------------------------------------------- issue 15: where the points went

LOST_COLOR = "#f2b8b5"
COMPONENT_PALETTE = {"success": "#2ca02c", "latency": "#1f77b4", "consistency": "#17becf", "cost": "#ff7f0e"}


def points_lost_chart(points: PointsLost) -> go.Figure:
    """Per component, the points earned (coloured) and lost (pale red) out of its maximum (``PointsLost``)."""
    names = [c.name for c in points.components]
    labels = [f"{COMPONENT_LABELS[n]} (max {c.max:g})" for n, c in zip(names, points.components)]
    earned = [c.earned for c in points.components]
    lost = [c.lost for c in points.components]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        # No legend: one swatch could not stand for bars of four colours (the title says which is which; it wraps
        # on a phone, where an axis title is cut).
        y=labels, x=earned, orientation="h", name="earned", marker={"color": [COMPONENT_PALETTE[n] for n in names]},
        showlegend=False,
        text=[f"{v:.2f}" for v in earned], textposition="inside", insidetextanchor="middle",
        customdata=[[f"{c.factor:.4f}", f"{c.max:g}"] for c in points.components],
        hovertemplate="%{y}: %{x:.2f} points earned (factor %{customdata[0]} × %{customdata[1]})<extra></extra>"))
    fig.add_trace(go.Bar(
        y=labels, x=lost, orientation="h", name="lost", marker={"color": LOST_COLOR}, showlegend=False,
        text=[f"−{v:.2f}" for v in lost], textposition="inside", insidetextanchor="middle",
        textfont={"color": "#7a1f1a"}, hovertemplate="%{y}: %{x:.2f} points lost<extra></extra>"))
    fig.update_xaxes(title="points of the 0–100 score", range=[0, max(c.max for c in points.components) * 1.02])
    fig.update_yaxes(autorange="reversed")
    title = f"{short(points.agent_id)}: {points.score:.2f} earned (coloured), {points.total_lost:.2f} lost (pale red)"
    if points.zero_success_floor:
        title += " (the zero-success floor takes every point)"
    return _layout(fig, title, height=300, barmode="stack", showlegend=False,
                   margin={"l": 180, "r": 20, "t": 60, "b": 50})


def influence_bars(frame: pd.DataFrame, *, title: str) -> go.Figure:
    """Horizontal bars: the points a task's removal gains (red: it costs points) or loses (green: it helps).

    ``frame``: rows with ``task_id`` and ``points_if_removed``, in the order to draw from the top.
    """
    values = frame["points_if_removed"].astype(float).tolist()
    tasks = [safe(t) for t in frame["task_id"]]
    fig = go.Figure(go.Bar(
        y=tasks, x=values, orientation="h", marker={"color": ["#d62728" if v > 0 else "#2ca02c" for v in values]},
        customdata=[[safe(t), int(n), int(c)] for t, n, c in zip(frame["task_id"], frame["runs"], frame["completed"])],
        hovertemplate="%{customdata[0]}: %{x:+.3f} points without its %{customdata[1]} runs "
                      "(%{customdata[2]} completed)<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category")
    _short_ticks(fig, "y", frame["task_id"])
    fig.update_xaxes(title="points gained without its runs", zeroline=True,
                     zerolinecolor="#888")
    return _layout(fig, title, height=max(260, 24 * len(tasks) + 120), showlegend=False,
                   margin={"l": 140, "r": 20, "t": 60, "b": 50})


def task_heatmap(cells: pd.DataFrame, agents: Sequence[str], tasks: Sequence[str]) -> go.Figure:
    """Success rate per task (rows) and agent (columns), run counts on hover; every cell can be selected.

    ``cells``: one row per (task, agent) with a run (``scoring.analysis.drilldown.task_matrix`` rows), in the order
    of the selectable layer's points. The colour is a ``go.Heatmap``; a transparent marker at each
    cell's centre (the second trace) carries the hover and the selection (plotly selects points of
    scatter traces only), and outlines the selected cell.
    """
    x = [safe(a) for a in agents]
    y = [safe(t) for t in tasks]
    # Each cell placed by its task's and agent's positions (a dict of every task x agent pair took 2 GB of the
    # server for 1,000 agents and 10,000 tasks; the page shows at most HEATMAP_MAX_CELLS pairs).
    row_of, column_of = {t: i for i, t in enumerate(tasks)}, {a: j for j, a in enumerate(agents)}
    z = np.full((len(tasks), len(agents)), np.nan)
    z[[row_of[t] for t in cells["task_id"]], [column_of[a] for a in cells["agent_id"]]] = \
        np.asarray(cells["success_rate"], dtype=float)
    # The colour bar lies under the cells, so that on a 390 px phone the cells keep the width: every agent's
    # column is labelled (upright labels, one per column, never thinned out by plotly).
    fig = go.Figure(go.Heatmap(
        x=x, y=y, z=z, zmin=0, zmax=1, colorscale="RdYlGn", xgap=1, ygap=1, hoverinfo="skip",
        colorbar={"title": {"text": "success rate", "side": "top"}, "tickformat": ".0%", "orientation": "h",
                  "x": 0.5, "xanchor": "center", "y": -20 / (22 * len(y) + 1), "yanchor": "top", "len": 1.0,
                  "thickness": 12}))
    rate = [fmt.pct(v) for v in cells["success_rate"]]
    headline = [fmt.pct(v) for v in cells["headline_success_rate"]]
    fig.add_trace(go.Scatter(
        x=[safe(a) for a in cells["agent_id"]], y=[safe(t) for t in cells["task_id"]], mode="markers",
        marker={"symbol": "square-open", "size": 18, "color": "#111", "opacity": 0, "line": {"width": 3}},
        selected={"marker": {"opacity": 1}}, unselected={"marker": {"opacity": 0}}, showlegend=False,
        customdata=np.column_stack([[safe(a) for a in cells["agent_id"]], [safe(t) for t in cells["task_id"]],
                                    cells["runs"], cells["outcomes"], cells["successes"], rate,
                                    cells["completed"], headline]),
        hovertemplate="%{customdata[0]} on %{customdata[1]}<br>%{customdata[2]} runs · %{customdata[4]} of "
                      "%{customdata[3]} known outcomes successful (%{customdata[5]})<br>headline cohort: "
                      "%{customdata[6]} completed, %{customdata[7]} successful<br>click to open these runs"
                      "<extra></extra>"))
    fig.update_xaxes(type="category", side="top", tickangle=-90, categoryorder="array", categoryarray=x,
                     tickfont={"size": 11})
    fig.update_yaxes(type="category", autorange="reversed", categoryorder="array", categoryarray=y)
    _short_ticks(fig, "x", agents)  # every agent's column labelled (never thinned out by plotly), cut in the middle
    _short_ticks(fig, "y", tasks)
    top = 20 + 7 * max((len(_cut(a)) for a in agents), default=10)  # room for the longest upright label
    height = 22 * len(y) + top + 90
    # Few agents: a plot of HEATMAP_NARROW_PX, not stretched over the page (one agent drew 31 bars 800 px wide).
    narrow = len(agents) * HEATMAP_CELL_PX <= HEATMAP_NARROW_PX
    return _layout(fig, "", height=height, hoverdistance=-1, margin={"l": 80, "r": 10, "t": top, "b": 90},
                   width=80 + 10 + HEATMAP_NARROW_PX if narrow else None)


# The task heatmap of at most HEATMAP_NARROW_PX / HEATMAP_CELL_PX agents has a plot HEATMAP_NARROW_PX wide (views
# draw it with width="content"): 330 px in all, within a phone's page, wide enough for the colour bar under it.
HEATMAP_CELL_PX, HEATMAP_NARROW_PX = 48, 240


def compare_components_chart(components: pd.DataFrame, a: str, b: str, maxima: Mapping[str, float]) -> go.Figure:
    """Points each of two agents earns per component, side by side, the component's maximum marked."""
    labels = [f"{COMPONENT_LABELS[n]} (max {maxima[n]:g})" for n in components["name"]]
    fig = go.Figure()
    for name, column, color in ((a, "earned_a", PALETTE[0]), (b, "earned_b", PALETTE[1])):
        values = components[column].astype(float).tolist()
        fig.add_trace(go.Bar(y=labels, x=values, orientation="h", name=short(name), marker={"color": color},
                             text=[fmt.score(v) for v in values], textposition="outside",
                             customdata=[safe(name)] * len(values),
                             hovertemplate="%{customdata}: %{x:.2f} points (%{y})<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title="points earned", range=[0, max(maxima.values()) * 1.12])
    return _layout(fig, "Points per component", height=340, barmode="group", legend={"orientation": "h", "y": -0.25},
                   margin={"l": 180, "r": 20, "t": 60, "b": 50})


def paired_tasks_chart(tasks: pd.DataFrame, a: str, b: str) -> go.Figure:
    """Per shared task, the success rate of ``a`` minus that of ``b`` (one bar a task, largest first)."""
    fig = go.Figure(go.Bar(
        x=[safe(t) for t in tasks["task_id"]], y=tasks["difference"].astype(float),
        marker={"color": [PALETTE[0] if v > 0 else PALETTE[1] if v < 0 else "#999" for v in tasks["difference"]]},
        customdata=np.column_stack([[safe(t) for t in tasks["task_id"]],
                                    [fmt.pct(v) for v in tasks["success_rate_a"]], tasks["outcomes_a"],
                                    [fmt.pct(v) for v in tasks["success_rate_b"]], tasks["outcomes_b"]]),
        hovertemplate="%{customdata[0]}: " + safe(a) + " %{customdata[1]} of %{customdata[2]}, " + safe(b)
                      + " %{customdata[3]} of %{customdata[4]}<br>click to open these runs<extra></extra>"))
    fig.update_yaxes(title=wrap(f"success rate: {short(a)} minus {short(b)}", AXIS_CHARS), tickformat="+.0%",
                     range=[-1.05, 1.05], zeroline=True, zerolinecolor="#888")
    fig.update_xaxes(title="shared task", type="category", tickangle=-45)
    _short_ticks(fig, "x", tasks["task_id"])
    return _layout(fig, "Per-task paired differences (known outcomes of terminal runs)",
                   height=380 + _label_room(tasks["task_id"], 5),
                   showlegend=False)


def _number_or_nan(value: Any) -> float:
    """A chart's value as a float, NaN where it is missing (None, NaN or pandas' NA, which has no truth value)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _over_days(values: Any) -> str:
    """A trace's mode over days: lines, with its points drawn where a value stands alone (one day, or a day between
    gaps): a line through one point draws nothing, and every run of a harness file finished on one day left the
    charts blank; an agent whose tasks first qualified on the last day had its one pass^k value drawn as nothing."""
    known = ~np.isnan(np.asarray([_number_or_nan(v) for v in values], dtype=float))
    alone = known & ~np.r_[False, known[:-1]] & ~np.r_[known[1:], False]
    return "lines+markers" if alone.any() else "lines"


def _day_axis(fig: go.Figure, days: pd.Series, title: str) -> None:
    """The x axis of days; a single day is shown as itself with a day either side (plotly would range over a
    millisecond around it, labelled '23:59:59.999 … 00:00:00.0005')."""
    fig.update_xaxes(title=title, tickformat="%Y-%m-%d")
    if len(days) and days.nunique() == 1:
        day = days.iloc[0]
        fig.update_xaxes(range=[day - datetime.timedelta(days=1), day + datetime.timedelta(days=1)], dtick=86_400_000)


def headline_over_time(frame: pd.DataFrame, agents: Sequence[str]) -> go.Figure:
    """The headline score of each agent as of each day, the days the floor or the gate switched marked."""
    fig = go.Figure()
    for i, agent in enumerate(agents):
        rows = frame[frame["agent_id"] == agent]
        color = PALETTE[i % len(PALETTE)]
        fig.add_trace(go.Scatter(
            x=rows["day"], y=rows["score"], mode=_over_days(rows["score"]), name=short(agent),
            line={"color": color, "width": 2},
            customdata=np.column_stack([[safe(agent)] * len(rows), rows["completed_runs"]]),
            hovertemplate="%{customdata[0]}, %{x|%Y-%m-%d}: %{y:.2f} (%{customdata[1]} completed runs)"
                          "<extra></extra>"))
        switched = rows[rows["floor_switched"] | rows["gate_switched"]]
        if len(switched):
            fig.add_trace(go.Scatter(
                x=switched["day"], y=switched["score"], mode="markers", name=f"{short(agent)}: floor or gate",
                marker={"symbol": "diamond", "size": 11, "color": color, "line": {"width": 1.5, "color": "#111"}},
                customdata=[[safe(agent), _switch_words(r)] for r in switched.itertuples(index=False)],
                hovertemplate="%{customdata[0]}, %{x|%Y-%m-%d}: %{customdata[1]}<extra></extra>", showlegend=False))
    fig.update_yaxes(title="headline score as of the day", range=[-2, 102])
    _day_axis(fig, frame["day"], "day (UTC); runs finished by its end")
    return _layout(fig, "Headline score over time (◆ the zero-success floor or the consistency gate switched)",
                   height=400, legend={"orientation": "h", "y": -0.25})


def _switch_words(row: Any) -> str:
    parts = []
    if row.floor_switched:
        parts.append("zero-success floor applies" if row.zero_success_floor else "leaves the zero-success floor")
    if row.gate_switched:
        parts.append("consistency neutral (gate not met)" if row.consistency_neutral
                     else "consistency gate met: measured from now on")
    return "; ".join(parts)


def radar_over_time(rows: pd.DataFrame, agent: str, weights_label: str = "default weights") -> go.Figure:
    """The radar axes of one agent's window as it moved, and its profile score (dashed)."""
    fig = go.Figure()
    for i, axis in enumerate(RADAR_AXES):
        fig.add_trace(go.Scatter(
            x=rows["day"], y=rows[axis], mode=_over_days(rows[axis]), name=AXIS_LABELS[axis], connectgaps=False,
            line={"color": PALETTE[i % len(PALETTE)], "width": 2},
            hovertemplate=AXIS_LABELS[axis] + ", %{x|%Y-%m-%d}: %{y:.2f}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=rows["day"], y=rows["profile_score"], mode=_over_days(rows["profile_score"]),
        name=f"profile ({weights_label})",
        line={"color": "#111", "width": 2, "dash": "dash"},
        hovertemplate="profile, %{x|%Y-%m-%d}: %{y:.2f}<extra></extra>"))
    fig.update_yaxes(title="axis (0–100); a gap: unavailable", range=[-2, 102])
    _day_axis(fig, rows["day"], "day (UTC); the window of the latest terminal runs finished by its end")
    return _layout(fig, f"Radar axes of {short(agent)} over time", height=400, legend={"orientation": "h", "y": -0.25})


def pass_k_over_time(frame: pd.DataFrame, agents: Sequence[str], k: int) -> go.Figure:
    """pass^k of each agent as of each day (the mean over the tasks qualifying by then)."""
    fig = go.Figure()
    column = f"pass^{k}"
    for i, agent in enumerate(agents):
        rows = frame[frame["agent_id"] == agent]
        fig.add_trace(go.Scatter(
            x=rows["day"], y=rows[column], mode=_over_days(rows[column]), name=short(agent),
            line={"color": PALETTE[i % len(PALETTE)], "width": 2},
            customdata=np.column_stack([[safe(agent)] * len(rows), rows["qualifying_tasks"]]),
            hovertemplate="%{customdata[0]}, %{x|%Y-%m-%d}: pass^" + str(k)
                          + " %{y:.1%} over %{customdata[1]} qualifying tasks<extra></extra>"))
    fig.update_yaxes(title=f"pass^{k} as of the day", tickformat=".0%", range=[-0.02, 1.02])
    _day_axis(fig, frame["day"], "day (UTC); outcomes finished by its end")
    return _layout(fig, f"pass^{k} over time", height=380, legend={"orientation": "h", "y": -0.25})


def rank_moves(diff: pd.DataFrame, *, theme: ChartTheme = LIGHT, limit: int = 60) -> go.Figure:
    """Each agent's rank under the canonical policy (left) joined to its rank under the sandbox (right).

    ``diff`` is ``scoring.analysis.sandbox.rank_diff``'s table. A line rising to the right is an agent that climbs;
    colours: climbs, falls, stays. Agents unranked under either policy have no line. With more than
    ``limit`` ranked agents, the ``limit`` largest moves are drawn.
    """
    rows = [r for r in diff.to_dict("records") if _present(r["Canonical rank"]) and _present(r["Sandbox rank"])]
    rows = sorted(rows, key=lambda r: (-abs(int(r["Rank move"])), int(r["Canonical rank"])))[:limit]
    colors = {1: COMPONENT_COLORS["success"], -1: theme.accent, 0: theme.muted}
    fig = go.Figure()
    for direction, label in ((1, "climbs"), (-1, "falls"), (0, "same rank")):
        members = [r for r in rows if (int(r["Rank move"]) > 0) - (int(r["Rank move"]) < 0) == direction]
        xs: list = []
        ys: list = []
        data: list = []
        for r in members:
            xs += ["canonical", "sandbox", None]
            ys += [int(r["Canonical rank"]), int(r["Sandbox rank"]), None]
            row = [safe(r["Agent"]), int(r["Canonical rank"]), int(r["Sandbox rank"]), f"{int(r['Rank move']):+d}"]
            data += [row, row, row]
        if members:
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="lines+markers", name=label, line={"color": colors[direction], "width": 2},
                marker={"size": 8}, customdata=data, connectgaps=False,
                hovertemplate="%{customdata[0]}: rank %{customdata[1]} → %{customdata[2]} "
                              "(%{customdata[3]})<extra></extra>"))
    names = {int(r["Sandbox rank"]): f"{safe(r['Agent'])} ({int(r['Rank move']):+d})" for r in rows}
    left = {int(r["Canonical rank"]): safe(r["Agent"]) for r in rows}
    ranks = sorted(set(names) | set(left))
    fig.update_yaxes(title="rank", autorange="reversed", tickvals=ranks, range=None, dtick=1,
                     showgrid=False, zeroline=False)
    fig.update_xaxes(tickvals=["canonical", "sandbox"], ticktext=["canonical policy", "sandbox policy"])
    fig.add_trace(go.Scatter(x=["sandbox"] * len(names), y=list(names), text=["  " + n for n in names.values()],
                             mode="text",
                             textposition="middle right", showlegend=False, hoverinfo="skip", cliponaxis=False,
                             textfont={"color": theme.ink, "size": 11}))
    height = max(320, 26 * len(ranks) + 140)
    return _layout(fig, "Rank moves: canonical → sandbox", height=height, theme=theme,
                   legend={"orientation": "h", "y": -0.12}, margin={"r": 170})


def _present(value: object) -> bool:
    return value is not None and value == value and str(value) != "<NA>"


def contribution_bars(headlines: Sequence[Headline], *, theme: ChartTheme = LIGHT) -> go.Figure:
    """Every agent's headline score as stacked points from success, execution and cost (leaderboard order).

    An agent at the zero-success floor shows its score of 0 (the weighted parts it would have had are in
    its hover text); an unranked agent has no bar.
    """
    ranked = [h for h in headlines if h.ranked]
    agents = [safe(h.agent_id) for h in ranked]
    fig = go.Figure()
    for part, label in (("success", "success"), ("execution", "execution"), ("cost", "cost")):
        values = [0.0 if h.zero_success_floor else (h.contributions() or {}).get(part, 0.0) for h in ranked]
        weights = {"success": "success_weight", "execution": "execution_weight", "cost": "cost_weight"}
        fig.add_trace(go.Bar(
            x=agents, y=values, name=label, marker={"color": COMPONENT_COLORS[part]},
            customdata=[[f"{(h.contributions() or {}).get(part, 0.0):.2f}", f"{getattr(h.policy, weights[part]):.0%}",
                         " (floored to 0)" if h.zero_success_floor else ""] for h in ranked],
            hovertemplate=f"%{{x}}<br>{label} (%{{customdata[1]}}): %{{customdata[0]}} points%{{customdata[2]}}"
                          "<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=agents, y=[h.score for h in ranked], mode="text", text=[fmt.score(h.score) for h in ranked],
        textposition="top center", showlegend=False, hoverinfo="skip", cliponaxis=False,
        textfont={"color": theme.ink, "size": 11}))
    fig.update_yaxes(title="points of the 0–100 score", range=[0, 105])
    fig.update_xaxes(title="agent (leaderboard order)")
    _short_ticks(fig, "x", [h.agent_id for h in ranked])
    return _layout(fig, "Headline scores by component", theme=theme, barmode="stack",
                   legend={"orientation": "h", "y": 1.08, "x": 1, "xanchor": "right"})
