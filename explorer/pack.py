"""The review pack: one self-contained HTML file (or its PDF) that reproduces a meeting's view.

Everything a reviewer discussed goes in: the leaderboard, each agent's decomposition, the radar
with the viewer's weights, pass^k, the bootstrap intervals and tie groups, the methodology
constants with their provenance and, when a sandbox policy is active, its changed constants and
the rank changes; with the dataset's name, row count and sha256, the date and the link of the view.
The charts stay interactive: plotly.js is embedded once (no network is needed to open the file).

Plain functions, no Streamlit: the app's download and ``python -m scoring pack`` build the same
file. Every text that comes from the data (agent and task ids, file names) is HTML-escaped; plotly
escapes the figures' JSON itself.

The PDF is the same HTML printed by a headless Chromium through Playwright (the browser the tests
use); :func:`find_chromium` says where it is looked for.
"""

from __future__ import annotations

import functools
import html
import os
import shutil
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from scoring import RADAR_AXES, Report, check_weights
from scoring.analysis.sandbox import changed_constants, rank_diff
from scoring.contract.extras import install_hint
from scoring.contract.policy import FIELD_BY_NAME, FIELDS, policy_to_dict
from scoring.measures.axes import AXIS_LABELS
from scoring.outputs.badge import BIDI_CONTROLS
from scoring.outputs.downloads import DatasetInfo, now_utc
from scoring.outputs.methodology import anchor_rows, execution_formula, headline_formula, rules, worked_formula

from . import charts, tables
from . import format as fmt

if TYPE_CHECKING:
    from scoring.analysis.uncertainty import Intervals
from .glossary import GLOSSARY

PACK_FORMAT = "review-pack/1"


@dataclass(frozen=True)
class PackView:
    """The viewer's choices a pack reproduces (the defaults are the app's)."""

    weights: Mapping[str, float] | None = None  # relative radar weights by axis (None: the policy's)
    radar_agents: Sequence[str] = ()  # agents drawn on the radar (none given: the top 3 by profile score)
    agent: str | None = None  # the agent the view was about, listed first in the decompositions
    link: str | None = None  # the app's link to the same view
    command: str | None = None  # the command that rebuilds the pack
    generated_at: str | None = None
    extra_notes: tuple[str, ...] = field(default_factory=tuple)


def _e(value: object) -> str:
    """Escaped HTML; a bidi control becomes U+FFFD, as on the badge (a name's U+202E showed a score backwards)."""
    return html.escape("".join("\ufffd" if ch in BIDI_CONTROLS else ch for ch in str(value)), quote=True)


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, numeric: Collection[str] = (),
           caption: str | None = None) -> str:
    """An HTML table; every cell escaped; the columns named in ``numeric`` (by header, never by position, so a
    column added anywhere keeps its formatting) right-aligned."""
    unknown = set(numeric) - set(headers)
    if unknown:
        raise ValueError(f"numeric names no column of the table: {sorted(unknown)}")
    right = {i for i, h in enumerate(headers) if h in numeric}
    head = "".join(f'<th{" class=num" if i in right else ""}>{_e(h)}</th>' for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f'<td{" class=num" if i in right else ""}>{_e(c)}</td>'
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    cap = f"<caption>{_e(caption)}</caption>" if caption else ""
    return f'<div class="table"><table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


class _Figures:
    """Figures as divs for one page: plotly.js is embedded once, by the page, not by each figure."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, fig: go.Figure, note: str = "") -> str:
        self.count += 1
        fig.update_layout(autosize=True)
        div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"figure-{self.count}",
                          default_width="100%", config={"displaylogo": False, "responsive": True})
        caption = f"<p class=note>{_e(note)}</p>" if note else ""
        return f'<div class="chart">{div}{caption}</div>'


def _policy_value(value: object) -> str:
    if isinstance(value, dict) and "xs" in value:
        return "; ".join(f"{x:g} → {s:g}" for x, s in zip(value["xs"], value["scores"]))
    if isinstance(value, dict):
        return ", ".join(f"{k} {v:g}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def _signed(value: object, pattern: str) -> str:
    return fmt.DASH if fmt.number(value) == fmt.DASH else pattern.format(float(value))  # type: ignore[arg-type]


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}"><h2>{_e(title)}</h2>{body}</section>'


def build_pack(report: Report, dataset: DatasetInfo, *, intervals: Intervals | None = None,
               sandbox: Report | None = None, view: PackView | None = None,
               runs: pd.DataFrame | None = None) -> str:
    """The review pack of ``report`` (canonical) as one HTML document.

    ``intervals``: the bootstrap intervals shown (``scoring.analysis.uncertainty.bootstrap_intervals``), or
    None to leave them out (the pack then says so). ``sandbox``: the same runs scored under a
    sandbox policy, whose changed constants and rank changes get their own section. ``runs``: the
    canonical runs, for the reading of what the headline does not see (left out without them).
    """
    view = view or PackView()
    figure = _Figures()
    policy = report.policy
    generated = view.generated_at or now_utc()
    weights = check_weights(view.weights, policy)
    agents = list(report.agents)
    shown = agents[:charts.CHART_MAX_AGENTS]
    cut = (f"The chart shows the first {charts.CHART_MAX_AGENTS} of {len(agents)} agents in leaderboard order; the "
           "table lists every agent.") if len(agents) > charts.CHART_MAX_AGENTS else ""
    sections: list[tuple[str, str, str]] = []

    # -- the leaderboard
    rows = []
    for a in agents:
        h = a.headline
        iv = intervals.agents[a.agent_id] if intervals is not None else None
        rows.append([fmt.count(a.rank), a.agent_id, fmt.score(h.score),
                     *([fmt.score(iv.headline.low) + " – " + fmt.score(iv.headline.high)
                        if iv and iv.headline else fmt.DASH, fmt.count(iv.tie_group if iv else None)]
                       if intervals is not None else []),
                     fmt.rate(h.success_rate), fmt.factor(h.execution_score), fmt.factor(h.consistency),
                     fmt.factor(h.cost_score), fmt.ms(h.avg_latency_ms), fmt.usd(h.avg_cost_usd),
                     fmt.count(h.completed_runs), ", ".join(h.flags)])
    headers = ["Rank", "Agent", "Score (0–100)", *(["95% interval", "Tie group"] if intervals is not None else []),
               "Success rate", "Execution", "Consistency", "Cost score", "Avg latency", "Avg cost",
               "Completed runs", "Flags"]
    numeric = [h for h in headers if h not in ("Agent", "Flags")]
    board = (f"<p>The canonical headline composite: {_e(headline_formula(policy))}; "
             f"{_e(execution_formula(policy))}. The success rate is shown as a percentage; execution, consistency "
             "and the cost score on their 0–1 scale.</p>"
             + _table(headers, rows, numeric=numeric))
    sections.append(("leaderboard", "Leaderboard", board))

    # -- what the headline does not see (a reading)
    notes = tables.notes_table(report)
    body = ("<ul>" + "".join(f"<li><b>{_e(r.Agent)}</b>: {_e(r.Note)}</li>" for r in notes.itertuples()) + "</ul>"
            if not notes.empty else "<p>The headline sees every terminal run of every agent.</p>")
    if runs is not None:
        unseen = tables.unseen_table(runs, report)
        body += ("<p>A reading, like the sandbox: the share of terminal runs and of spend the published rule "
                 "leaves out, and the headline and rank if failed and timed-out runs counted as unsuccessful "
                 "completed runs. The canonical score never changes.</p>"
                 + _table(list(unseen.columns),
                          [[r[0], fmt.count(r[1]), fmt.count(r[2]), fmt.pct(r[3]), fmt.usd(r[4]), fmt.pct(r[5]),
                            fmt.score(r[6]), fmt.count(r[7]), fmt.score(r[8]), fmt.count(r[9]),
                            "yes" if r[10] else "no"] for r in unseen.itertuples(index=False)],
                          numeric=[c for c in unseen.columns if c not in ("Agent", "Rank depends on it")]))
    sections.append(("unseen", "What the headline does not see", body))

    # -- intervals
    if intervals is not None:
        points = tables.interval_points(report, intervals)
        floored = [a.agent_id for a in agents if a.headline.zero_success_floor]
        body = (f"<p>{intervals.replicates:,} bootstrap replicates of each agent's completed runs, seed "
                f"{intervals.seed}, {intervals.confidence:.0%} percentile intervals. "
                f"<b>Tie groups</b>: {_e(GLOSSARY['tie group'])}</p>"
                + figure(charts.interval_chart(points[:charts.CHART_MAX_AGENTS], floored=floored), cut))
        covered = [words for _, words in tables.interval_coverage(report, intervals).values() if words]
        if covered:
            body += f"<p>{_e(tables.COVERAGE_LEAD + '; '.join(covered))}.</p>"
    else:
        body = "<p>Bootstrap intervals were not computed for this pack.</p>"
    sections.append(("intervals", "Intervals and tie groups", body))

    # -- decompositions
    ranked_first = sorted(agents, key=lambda a: a.agent_id != view.agent)
    blocks = [figure(charts.contribution_bars([a.headline for a in shown]), cut)]
    for a in ranked_first:
        h = a.headline
        facts = "".join(f"<li>{_e(f.render())}</li>" for f in h.explain())
        title = f"#{a.rank} {a.agent_id} — {fmt.score(h.score)}" if h.ranked else f"{a.agent_id} — unranked"
        blocks.append(f'<div class="agent"><h3>{_e(title)}</h3><pre>{_e(worked_formula(h))}</pre>'
                      f"<ul>{facts}</ul></div>")
    sections.append(("decomposition", "Each agent's decomposition", "".join(blocks)))

    # -- radar
    ranking = tables.profile_ranking(report, weights)
    chosen = [a for a in view.radar_agents if a in {x.agent_id for x in agents}][:len(charts.PALETTE)] \
        or list(ranking["Agent"][:3])
    total = sum(weights.values())
    shares = ", ".join(f"{AXIS_LABELS[a]} {fmt.weight(w / total) if total else fmt.DASH}" for a, w in weights.items())
    radar_rows = [[fmt.count(r["Profile rank"]), r["Agent"], fmt.score(r["Profile score"]), r["Headline flags"],
                   fmt.score(r["Headline score"]), fmt.count(r["Headline rank"]),
                   *(fmt.score(r[AXIS_LABELS[x]]) for x in RADAR_AXES)]
                  for r in ranking.to_dict("records")]
    radar_headers = ["Profile rank", "Agent", "Profile score", "Headline flags", "Headline score", "Headline rank",
                     *(AXIS_LABELS[x] for x in RADAR_AXES)]
    radar = (f"<p>Weights (renormalized over the available axes): {_e(shares)}. The weights change the profile "
             "score and its ranking only, never a headline score. Window: each agent's latest "
             f"{policy.radar_window} terminal runs.</p>"
             + figure(charts.radar_chart([report.agent(a).radar for a in chosen]))
             + _table(radar_headers, radar_rows,
                      numeric=[h for h in radar_headers if h not in ("Agent", "Headline flags")]))
    sections.append(("radar", "Fitness radar", radar))

    # -- pass^k
    levels = report.levels
    summary = [(a.agent_id, a.repeatability.pass_k) for a in shown]
    pass_rows = [[a.agent_id, fmt.count(a.repeatability.qualifying_tasks), fmt.count(a.repeatability.excluded_tasks),
                  *(fmt.pct2(None if a.repeatability.pass_k is None else a.repeatability.pass_k[k]) for k in levels)]
                 for a in agents]
    pass_headers = ["Agent", "Qualifying tasks", "Excluded tasks", *(f"pass^{k}" for k in levels)]
    pass_k = (f"<p>pass^k(n, c) = C(c, k) ÷ C(n, k); a task needs {policy.pass_k_min_outcomes} outcomes; the "
              "aggregate is the unweighted mean over qualifying tasks. A bar labelled 0% is a measured 0; an agent "
              "with no qualifying task has no bar.</p>"
              + figure(charts.pass_k_bars(summary, levels), cut)
              + _table(pass_headers, pass_rows, numeric=pass_headers[1:]))
    sections.append(("repeatability", "Repeatability (pass^k)", pass_k))

    # -- sandbox
    if sandbox is not None:
        changed = changed_constants(policy_to_dict(sandbox.policy), policy)
        canonical = policy_to_dict(policy)
        constant_rows = [[FIELD_BY_NAME[n].label, n, policy.provenance[n], _policy_value(canonical[n]),
                          _policy_value(v)] for n, v in changed.items()]
        diff = rank_diff(report, sandbox)
        diff_rows = [[r["Agent"], fmt.count(r["Canonical rank"]), fmt.count(r["Sandbox rank"]),
                      _signed(r["Rank move"], "{:+.0f}"),
                      fmt.score(r["Canonical score"]), fmt.score(r["Sandbox score"]),
                      _signed(r["Score delta"], "{:+.2f}"), r["Crossings"]]
                     for r in diff.to_dict("records")]
        body = (f"<p>Sandbox policy <code>{_e(sandbox.policy.version)}</code>, not canonical. "
                + (f"{len(changed)} constant(s) changed:" if changed else "No constant differs from the canonical "
                   "policy.") + "</p>"
                + (_table(["Constant", "Name", "Provenance", "Canonical", "Sandbox"], constant_rows) if changed else "")
                + figure(charts.rank_moves(diff))
                + _table(["Agent", "Canonical rank", "Sandbox rank", "Rank move", "Canonical score", "Sandbox score",
                          "Score delta", "Crossings"], diff_rows,
                         numeric=["Canonical rank", "Sandbox rank", "Rank move", "Canonical score", "Sandbox score",
                                  "Score delta"])
                + "<p class=note>Rank move is positive when the agent climbs under the sandbox policy. Crossings: "
                  "a rule the agent crosses under the sandbox — the zero-success floor now applies or is lifted, "
                  "the consistency gate is now met or no longer met.</p>")
        sections.append(("sandbox", "Sandbox policy", body))

    # -- methodology
    constants = [[c.name, _policy_value(c.value), c.provenance, c.meaning] for c in policy.constants()]
    anchor_tables = "".join(
        _table([f"{FIELD_BY_NAME[name].label} ({getattr(policy, name).unit})", "Score (0–100)"],
               [[fmt.anchor_x(x, getattr(policy, name).unit), f"{s:g}"] for x, s in anchor_rows(getattr(policy, name))],
               caption=f"{FIELD_BY_NAME[name].label} — {policy.provenance[name]}")
        for name in (f.name for f in FIELDS if f.kind == "anchors"))
    rule_items = "".join(f"<li><span class='badge {r.provenance.split('-')[0]}'>{_e(r.provenance)}</span> "
                         f"<b>{_e(r.section)}</b>: {_e(r.statement)}</li>" for r in rules(policy))
    method = (f"<pre>{_e(headline_formula(policy))}\n{_e(execution_formula(policy))}</pre>"
              + _table(["Constant", "Value", "Provenance", "Meaning"], constants)
              + f'<div class="anchors">{anchor_tables}</div><ul class="rules">{rule_items}</ul>')
    sections.append(("methodology", f"Methodology: policy {policy.version}", method))

    glossary = "<dl>" + "".join(f"<dt>{_e(t)}</dt><dd>{_e(d)}</dd>" for t, d in GLOSSARY.items()) + "</dl>"
    sections.append(("glossary", "Glossary", glossary))

    meta = [("Dataset", dataset.name), ("Runs scored", fmt.count(dataset.runs)),
            ("Rows read", fmt.count(dataset.rows_read if dataset.rows_read is not None else dataset.runs)),
            ("Invalid rows excluded", fmt.count(dataset.excluded_rows)),
            (f"sha256 ({dataset.hash_of})", dataset.sha256), ("Policy", policy.version)]
    if sandbox is not None:
        meta.append(("Sandbox policy", sandbox.policy.version))
    meta.append(("Generated (UTC)", generated))
    meta_rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in meta)
    if view.link:
        meta_rows += f'<tr><th>Link to this view</th><td><a href="{_e(view.link)}">{_e(view.link)}</a></td></tr>'
    if view.command:
        meta_rows += f"<tr><th>Rebuild this pack</th><td><code>{_e(view.command)}</code></td></tr>"
    notes = "".join(f"<p class=note>{_e(n)}</p>" for n in view.extra_notes)
    contents = "".join(f'<li><a href="#{a}">{_e(t)}</a></li>' for a, t, _ in sections)
    body = "".join(_section(a, t, b) for a, t, b in sections)
    title = f"Review pack — {dataset.name}"
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f'<meta name=viewport content="width=device-width, initial-scale=1">'
            f'<meta name=generator content="{PACK_FORMAT}"><title>{_e(title)}</title><style>{_CSS}</style>'
            f"<script>{get_plotlyjs()}</script></head><body><main>"
            f"<header><h1>{_e(title)}</h1><p class=note>Scoring Methodology Explorer · policy "
            f"{_e(policy.version)} · {_e(generated)}</p><table class=meta>{meta_rows}</table>{notes}"
            f"<nav><ol>{contents}</ol></nav></header>{body}</main></body></html>\n")


def figure_count(document: str) -> int:
    """How many plotly figures a pack holds (the PDF printer waits until each is drawn)."""
    return document.count('class="plotly-graph-div"')


_CSS = """
:root { color-scheme: light; --ink: #1f2330; --muted: #5e6270; --line: #d8dbe2; --band: #f4f5f8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: var(--ink);
       background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 20px 60px; }
h1 { font-size: 26px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 20px; margin: 36px 0 10px; padding-top: 8px; border-top: 2px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; overflow-wrap: anywhere; }
p, li, dd { overflow-wrap: anywhere; }
.note { color: var(--muted); font-size: 12.5px; }
table { border-collapse: collapse; font-size: 12.5px; margin: 8px 0 14px; }
.table { overflow-x: auto; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; }
thead th { background: var(--band); position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td:nth-child(2) { overflow-wrap: break-word; min-width: 14ch; max-width: 32ch; }
table.meta th { width: 13em; font-weight: 600; }
table.meta td { overflow-wrap: anywhere; font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
pre { background: var(--band); padding: 8px 10px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; overflow-wrap: anywhere; }
.chart { margin: 8px 0 16px; break-inside: avoid; }
.agent { break-inside: avoid; }
.anchors { display: flex; flex-wrap: wrap; gap: 0 28px; }
.badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; }
.badge.published { background: #dbe8ff; color: #123c8c; }
.badge.explorer { background: #ffe6cc; color: #7a3d00; }
dt { font-weight: 600; margin-top: 8px; }
dd { margin: 0 0 0 1.5em; }
nav ol { columns: 2; font-size: 13px; }
@media print { main { max-width: none; padding: 0; } h2 { break-after: avoid; } thead th { position: static; } }
"""


# --------------------------------------------------------------------------- PDF

CHROMIUM_ENV = "EXPLORER_CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
A4_VIEWPORT = {"width": 794, "height": 1123}  # A4 at 96 dpi: the charts are laid out at the printed width
PDF_TIMEOUT_S = 120
# One PDF at a time per process: each print starts a browser (a public demo must not start many).
_PDF_LOCK = threading.Lock()


class PdfUnavailable(RuntimeError):
    """No PDF can be printed here: the message says what is missing and how to provide it."""


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium the PDF is printed with: ``explicit``, else $EXPLORER_CHROMIUM, else the first of
    chromium, chromium-browser, google-chrome, google-chrome-stable on PATH, else /usr/bin/chromium."""
    for candidate in (explicit, os.environ.get(CHROMIUM_ENV)):
        if candidate:
            return candidate if Path(candidate).is_file() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


@functools.lru_cache(maxsize=8)
def _found_on(environment: tuple[str | None, str | None]) -> str | None:
    return find_chromium()


def chromium_for_the_app() -> str | None:
    """:func:`find_chromium` kept per value of $EXPLORER_CHROMIUM and $PATH: every run of every page asks whether
    to offer the PDF, and the search (four lookups along PATH) was about 4% of a radar slider move's server CPU."""
    return _found_on((os.environ.get(CHROMIUM_ENV), os.environ.get("PATH")))


def missing_chromium_message(explicit: str | None = None) -> str:
    where = explicit or os.environ.get(CHROMIUM_ENV)
    if where:
        return f"a PDF needs Chromium: {where} (from {'--chromium' if explicit else CHROMIUM_ENV}) is not a file"
    return (f"a PDF needs Chromium and none was found ({CHROMIUM_ENV} is not set; none of "
            f"{', '.join(CHROMIUM_NAMES)} is on PATH; no /usr/bin/chromium). Install it (Debian: apt-get install "
            f"chromium) or set {CHROMIUM_ENV}=/path/to/chromium; the HTML pack needs no browser")


def pack_pdf(document: str, *, chromium: str | None = None, timeout_s: float = PDF_TIMEOUT_S) -> bytes:
    """The pack printed to PDF (A4) by headless Chromium, every chart drawn first, no network request allowed.

    Raises :class:`PdfUnavailable` when Chromium or Playwright is missing, or the print fails.
    """
    path = find_chromium(chromium)
    if path is None:
        raise PdfUnavailable(missing_chromium_message(chromium))
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise PdfUnavailable("a PDF is printed through Playwright, which is not installed: "
                             f"{install_hint('pack')}; its own browser download is not needed") from None
    expected = figure_count(document)
    if not _PDF_LOCK.acquire(timeout=timeout_s):
        raise PdfUnavailable("another PDF is being printed; try again in a minute")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, timeout=timeout_s * 1000)
            try:
                page = browser.new_page(viewport={"width": A4_VIEWPORT["width"], "height": A4_VIEWPORT["height"]})
                page.route("**/*", lambda route: route.abort())  # the pack is self-contained: nothing may load
                page.set_content(document, wait_until="load", timeout=timeout_s * 1000)
                page.wait_for_function("n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
                                       arg=expected, timeout=timeout_s * 1000)
                return page.pdf(format="A4", print_background=True,
                                margin={"top": "14mm", "bottom": "14mm", "left": "12mm", "right": "12mm"})
            finally:
                browser.close()
    except PlaywrightError as exc:
        raise PdfUnavailable(f"Chromium could not print the pack: {str(exc).splitlines()[0][:300]}") from None
    finally:
        _PDF_LOCK.release()
