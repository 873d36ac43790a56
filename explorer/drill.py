"""The runs behind every number (issue 15): the Runs page's filter carried from a selection, and the
explanations the pages show, computed once per dataset.

A selection (a leaderboard row, a heatmap cell, a task row or bar) becomes a :class:`RunsFilter`.
It is kept in ``st.session_state["runs_filter"]`` (so the Runs page opened from the menu shows the
last selection) and written into the link's query parameters (``/runs?agent=...&task=...``, so a
link can be shared). The link is an ``st.page_link``: navigation on the browser's side, which keeps
the sidebar's data source and its uploaded file (``st.switch_page`` resets the sidebar's widgets).

The agent a viewer is looking at (selected on the Leaderboard, or chosen on the Headline page) is
the *focus*: the view state's ``agent`` (``explorer.state``, so every link carries it); the pages
that show one agent open on it.

Every computation here is a call into ``scoring`` (no formula), cached in the explorer's bounded
cache per dataset (``explorer.data.derived``): each is computed when a page asks for it, for the
agents it asks for, never for all agents at once unless the page shows all of them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields

import pandas as pd
import streamlit as st

from scoring import Policy
from scoring.analysis import drilldown
from scoring.analysis.explain import Accounting, Explanation, accounting, explain
from scoring.analysis.fixes import Costliest, Fixes, costliest, fixes
from scoring.contract.schema import STATUSES

from . import data, settings, state, untrusted
from . import format as fmt

FILTER_KEY = "runs_filter"
COHORT_LABELS = {"headline": "headline cohort (completed runs)",
                 "radar_window": "radar window (latest terminal runs)",
                 "pass_k": "pass^k outcomes (terminal, known outcome)"}
OUTCOME_LABELS = {"success": "success", "failure": "failure", "unknown": "unknown outcome"}
# RunsFilter field -> query parameter (repeated for several values) and the values it accepts (None: any).
QUERY = {"agents": "agent", "tasks": "task", "statuses": "status", "outcomes": "outcome", "cohorts": "cohort"}
ALLOWED: dict[str, Sequence[str] | None] = {"agents": None, "tasks": None, "statuses": STATUSES,
                                           "outcomes": drilldown.OUTCOMES, "cohorts": drilldown.COHORTS}
MAX_QUERY_VALUES = 200  # a link names at most this many values per parameter (longer lists are cut, and said so)


@dataclass(frozen=True)
class RunsFilter:
    """Which runs to show: each field keeps runs matching any of its values; an empty field keeps all.

    ``cohorts`` keeps runs in every cohort named (``scoring.analysis.drilldown.runs_view``).
    """

    agents: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    outcomes: tuple[str, ...] = ()
    cohorts: tuple[str, ...] = ()

    def to_query(self) -> dict[str, list[str]]:
        """The query parameters of a link to these runs (only the fields that filter; the first MAX_QUERY_VALUES
        values of each, :meth:`cut_in_link` says which were cut)."""
        return {QUERY[f.name]: list(getattr(self, f.name))[:MAX_QUERY_VALUES] for f in fields(self)
                if getattr(self, f.name)}

    def cut_in_link(self) -> list[str]:
        """What a link to these runs leaves out, in words: 'the first 200 of the 250 tasks chosen'."""
        return [f"the first {MAX_QUERY_VALUES:,} of the {len(getattr(self, f.name)):,} {f.name} chosen"
                for f in fields(self) if len(getattr(self, f.name)) > MAX_QUERY_VALUES]

    @classmethod
    def from_query(cls, params: Mapping[str, Iterable[str]]) -> tuple[RunsFilter, list[str]]:
        """A filter from query parameters, and what was ignored in them, in words: unknown statuses, outcomes and
        cohorts, values past the link's bounds (a link is hostile input: at most MAX_QUERY_VALUES distinct values
        a parameter, each at most ``state.MAX_VALUE_CHARS`` characters, as the view's own parameters)."""
        values: dict[str, tuple[str, ...]] = {}
        ignored: list[str] = []
        for name, key in QUERY.items():
            given = list(dict.fromkeys(str(v) for v in params.get(key, ()) if str(v)))
            if any(len(v) > state.MAX_VALUE_CHARS for v in given):
                ignored.append(f"{key}: a value longer than {state.MAX_VALUE_CHARS} characters")
                given = [v for v in given if len(v) <= state.MAX_VALUE_CHARS]
            if len(given) > MAX_QUERY_VALUES:
                ignored.append(f"{key}: {len(given) - MAX_QUERY_VALUES:,} values past the first {MAX_QUERY_VALUES:,} "
                               "a link may name")
                given = given[:MAX_QUERY_VALUES]
            allowed = ALLOWED[name]
            if allowed is not None:
                ignored += [f"unknown {key} {state.quoted(v)}" for v in given if v not in allowed]
                given = [v for v in given if v in allowed]
            values[name] = tuple(given)
        return cls(**values), ignored

    def view(self, runs: pd.DataFrame, policy: Policy) -> pd.DataFrame:
        """The runs this filter keeps, with their cohort flags (``scoring.analysis.drilldown.runs_view``)."""
        return drilldown.runs_view(runs, agents=self.agents or None, tasks=self.tasks or None,
                                   statuses=self.statuses or None, outcomes=self.outcomes or None,
                                   cohorts=self.cohorts or None, policy=policy)

    def describe(self) -> str:
        """The filter in words, plain text (escape it for markdown): 'crashy-runner, task task-35'."""
        parts = []
        if self.agents:
            parts.append(_listed(self.agents, "agents"))
        if self.tasks:
            parts.append("task " + _listed(self.tasks, "tasks") if len(self.tasks) == 1
                         else _listed(self.tasks, "tasks"))
        if self.statuses:
            parts.append("status " + " or ".join(self.statuses))
        if self.outcomes:
            parts.append(" or ".join(OUTCOME_LABELS[o] for o in self.outcomes))
        if self.cohorts:
            parts.append("in the " + " and the ".join(COHORT_LABELS[c].split(" (")[0] for c in self.cohorts))
        return ", ".join(parts) or "every run"


def _listed(values: Sequence[str], what: str, shown: int = 3) -> str:
    if len(values) <= shown:
        return ", ".join(values)
    return f"{', '.join(values[:shown])} and {len(values) - shown:,} more {what}"


# --------------------------------------------------------------------------- the selection, carried


def filter_link_params(agents: Collection[str] | None) -> dict[str, list[str]]:
    """The Runs page's filter as another page's link carries it (``runs.<name>``): the view of every page keeps it
    (before, a link copied on the Headline page opened the Runs page on every run). ``agents``: the dataset shown's,
    the only ones a link names (None: the data is refused, nothing is named)."""
    query = current_filter().to_query()
    shown = [a for a in query.pop(QUERY["agents"], []) if agents is not None and a in agents]
    if shown:
        query[QUERY["agents"]] = shown
    return {state.RUNS_FILTER_PREFIX + k: v for k, v in query.items()}


def adopt_carried_filter() -> None:
    """On the Runs page: a filter another page's link carried becomes this page's own parameters, read as a Runs
    link's filter (once; in place of what the URL held, such as the agent in focus that came along as ``agent``)."""
    carried = state.take_carried([state.RUNS_FILTER_PREFIX + k for k in QUERY.values()])
    if not carried:
        return
    own = {name[len(state.RUNS_FILTER_PREFIX):]: values for name, values in carried.items()}
    for key in QUERY.values():
        if key in own:
            st.query_params[key] = own[key]
        elif key in st.query_params:
            del st.query_params[key]


def current_filter() -> RunsFilter:
    value = st.session_state.get(FILTER_KEY)
    return value if isinstance(value, RunsFilter) else RunsFilter()


def view_filter(page: str) -> RunsFilter:
    """The Runs filter of the view on ``page``: the one chosen in this session, else the one a link carried for
    the Runs page (``runs.<name>``, read here without taking it), so a page whose selection chose it shows that
    selection again (a Headline link with a task ticked opened with none)."""
    current = current_filter()
    if current != RunsFilter():
        return current
    carried = {name[len(state.RUNS_FILTER_PREFIX):]: values for name, values in state.carried_params(page).items()
               if name.startswith(state.RUNS_FILTER_PREFIX)}
    return RunsFilter.from_query(carried)[0] if carried else current


def choose(runs_filter: RunsFilter) -> None:
    """Make ``runs_filter`` the Runs page's filter (a selection was made)."""
    st.session_state[FILTER_KEY] = runs_filter
    if len(runs_filter.agents) == 1:
        state.put("agent", runs_filter.agents[0])


def runs_link(runs_filter: RunsFilter, label: str) -> None:
    """A link to the Runs page showing ``runs_filter`` (in the link's query parameters).

    Rendering a link chooses nothing: a page calls :func:`choose` for the viewer's selection.
    """
    # A page link's label is Markdown (images, links, KaTeX) and the callers' labels quote task ids: escaped here.
    data.page_link("runs", fmt.plain(label), ":material/table_rows:", query_params=runs_filter.to_query())


def focus(options: Sequence[str], key: str, default: str | None = None) -> None:
    """Before a selectbox of agents (``key``): show the focus agent when it changed elsewhere or the box is new.

    After the selectbox, :func:`set_focus` with its value keeps the pages in step.
    """
    wanted = focus_agent() or default
    applied = st.session_state.get(f"{key}__focus")
    if wanted in options and (wanted != applied or key not in st.session_state):
        st.session_state[key] = wanted
        st.session_state[f"{key}__focus"] = wanted


def set_focus(agent_id: str, key: str) -> None:
    state.put("agent", agent_id)
    st.session_state[f"{key}__focus"] = agent_id


def focus_agent() -> str | None:
    value = state.get("agent")
    return value if isinstance(value, str) else None


def keep_table_focus(key: str, shows: Hashable, agents: Sequence[str], selected: Sequence[int]) -> None:
    """After a table whose ticked row is the agent in focus (``key``, showing the data ``shows``; ``agents`` its
    rows' agents, ``selected`` the rows ticked now): a row the viewer unticks takes its agent out of focus, so
    the view's link, copied then, opens with no row ticked. A table that did not tick the focus agent on its
    last run (the agent chosen on another page since, absent from the table, or other data shown since) leaves
    the focus as it is."""
    ticked = str(agents[selected[0]]) if selected else None
    was = st.session_state.get(f"{key}__ticked")
    if ticked is None and was is not None and was == (shows, focus_agent()):
        state.put("agent", None)
    st.session_state[f"{key}__ticked"] = (shows, ticked)


# --------------------------------------------------------------------------- computations, cached per dataset


def _frame_bytes(*frames: pd.DataFrame) -> int:
    return int(sum(f.memory_usage(deep=True, index=False).sum() for f in frames)) + 10_000


def explanation(scored: data.Scored, agent_id: str, dataset: data.Dataset | None = None) -> Explanation:
    """Points lost, overtake, influence and accounting of one agent (``scoring.analysis.explain.explain``)."""
    def size(e: Explanation) -> int:
        return _frame_bytes(e.influence.tasks, e.influence.runs)

    return data.derived("explain", agent_id, lambda: explain(scored.runs, agent_id, scored.report), size,
                        spinner=None, dataset=dataset)


def agent_fixes(scored: data.Scored, agent_id: str, dataset: data.Dataset | None = None) -> Fixes:
    """What fixing each task's unsuccessful runs is worth (``scoring.analysis.fixes.fixes``)."""
    return data.derived("fixes", agent_id, lambda: fixes(scored.runs, agent_id, scored.report),
                        lambda f: _frame_bytes(f.tasks, f.totals), dataset=dataset)


def agent_costliest(scored: data.Scored, agent_id: str, dataset: data.Dataset | None = None) -> Costliest:
    """The agent's costliest tasks and runs, removed together (``scoring.analysis.fixes.costliest``)."""
    e = explanation(scored, agent_id, dataset)
    return data.derived("costliest", agent_id, lambda: costliest(scored.runs, agent_id, e.influence,
                                                                 scored.report.policy, e.headline),
                        lambda c: 2_000 + 40 * len(c.task_runs), dataset=dataset)


@dataclass(frozen=True)
class HeadlineTexts:
    """The Headline page's lists of facts for one agent, as markdown (built once per dataset and agent, for every
    session: composing them was a fifth of the page's rerun)."""

    in_words: str  # the headline's explanation
    runs_read: str  # which runs the headline reads
    overtake: tuple[str, str] | None  # the overtake's first fact and the list of the others (None when ranked first)
    fixes: str  # what fixing a task is worth ("" when no fact)
    costs: str  # the costliest tasks and what costs points


def headline_texts(scored: data.Scored, agent_id: str) -> HeadlineTexts:
    """The markdown of :class:`HeadlineTexts` for a ranked agent (``explorer.format.render`` of each fact)."""
    from . import format as fmt

    def bullets(facts: Iterable) -> str:
        return "\n".join(f"- {fmt.render(fact)}" for fact in facts)

    def build() -> HeadlineTexts:
        explained = explanation(scored, agent_id)
        ahead = explained.overtake
        return HeadlineTexts(
            in_words=bullets(scored.report.agent(agent_id).headline.explain()),
            runs_read=bullets(accounts(scored)[agent_id].facts()),
            overtake=None if ahead is None else (fmt.render(ahead.facts()[0]), bullets(ahead.facts()[1:])),
            fixes=bullets(agent_fixes(scored, agent_id).facts()),
            costs=bullets(agent_costliest(scored, agent_id).facts() + explained.influence.facts()))

    return data.derived("headline_texts", agent_id, build,
                        lambda t: 1_000 + 2 * (len(t.in_words) + len(t.runs_read) + len(t.fixes) + len(t.costs)
                                                  + sum(map(len, t.overtake or ()))))


WARM_MAX_RUNS = 200_000  # larger datasets are explained agent by agent, when a page asks (explorer-defined)
WARM_MAX_AGENTS = 100  # the leaderboard's top agents explained ahead of time; the rest when a page asks (ditto)


def warm(dataset: data.Dataset, scored: data.Scored) -> threading.Thread | None:
    """Explain every ranked agent of a newly scored dataset on a thread of its own, in rank order: a link or a
    click to any agent's Headline page then finds its explanation, fixes and costliest tasks computed (once, for
    every session, in the shared bounded cache). Datasets above :data:`WARM_MAX_RUNS` runs are not warmed, and only
    the first :data:`WARM_MAX_AGENTS` ranked agents are (10,000 agents kept a core busy for minutes)."""
    if len(scored.runs) > WARM_MAX_RUNS:
        return None

    def run() -> None:
        for agent in [a for a in scored.report.agents if a.headline.ranked][:WARM_MAX_AGENTS]:
            try:
                agent_fixes(scored, agent.agent_id, dataset)
                agent_costliest(scored, agent.agent_id, dataset)
            except Exception:  # the page asking for this agent computes (and reports) it itself
                logging.getLogger(__name__).exception("explaining %r ahead of time failed", agent.agent_id)

    thread = threading.Thread(target=run, name="explorer-warm-explanations", daemon=True)
    thread.start()
    return thread


data.ON_SCORED.append(warm)


def accounts(scored: data.Scored) -> dict[str, Accounting]:
    """Every agent's run accounting (``scoring.analysis.explain.accounting``)."""
    return data.derived("accounting", None, lambda: accounting(scored.runs, scored.report.policy),
                        lambda a: 1_000 * len(a) + 10_000)


def task_matrix(scored: data.Scored) -> pd.DataFrame:
    """The task x agent success matrix (``scoring.analysis.drilldown.task_matrix``)."""
    return data.derived("task_matrix", None, lambda: drilldown.task_matrix(scored.runs, scored.report.policy),
                        _frame_bytes, spinner="Counting runs per task and agent…")



HEATMAP_MAX_AGENTS = 60  # the Tasks x agents heatmap's columns at most: the leaderboard's first (explorer-defined)
HEATMAP_MAX_TASKS = 400  # its rows at most: the tasks those agents ran most, in text order (explorer-defined)


@dataclass(frozen=True)
class HeatmapView:
    """What the heatmap shows: its cells, agents (leaderboard order) and tasks (text order), and of how many."""

    cells: pd.DataFrame
    agents: list[str]
    tasks: list[str]
    all_agents: int
    all_tasks: int

    @property
    def cut(self) -> bool:
        return len(self.agents) < self.all_agents or len(self.tasks) < self.all_tasks


def heatmap_view(cells: pd.DataFrame, agents: Sequence[str], tasks: Sequence[str]) -> HeatmapView:
    """At most HEATMAP_MAX_AGENTS x HEATMAP_MAX_TASKS pairs: a heatmap of every pair of 10,000 agents and 100,000
    tasks (a 7 MB upload) would be a billion cells in the server and a page no one can read."""
    shown = list(agents[:HEATMAP_MAX_AGENTS])
    mine = cells[cells["agent_id"].isin(shown)]
    rows = list(tasks)
    if len(rows) > HEATMAP_MAX_TASKS:
        runs = mine.groupby("task_id", observed=True)["runs"].sum()
        ranked = sorted(((-int(n), str(t)) for t, n in runs.items()))[:HEATMAP_MAX_TASKS]
        rows = sorted(t for _, t in ranked)
        mine = mine[mine["task_id"].astype(str).isin(rows)]
    return HeatmapView(mine.reset_index(drop=True), shown, rows, len(agents), len(tasks))


TooManyDays = drilldown.TooManyDays


def over_time(scored: data.Scored, agents: Sequence[str]) -> drilldown.OverTime:
    """The three measures as of each day, for the chosen agents only (``drilldown.score_over_time``); TooManyDays
    when the runs span more days than it scores (refused before any work)."""
    chosen = tuple(sorted(agents))
    return data.derived("over_time", chosen, lambda: drilldown.score_over_time(
        scored.runs, scored.report.policy, agents=chosen), lambda o: _frame_bytes(o.frame),
        spinner="Scoring each day…")


def comparison(scored: data.Scored, a: str, b: str, replicates: int,
               seed: int) -> tuple[drilldown.Comparison, str | None]:
    """Agent ``a`` against ``b`` (``scoring.analysis.drilldown.compare``), its bootstrap in a worker under the
    deployment's limits (``untrusted.compare``), and None; where a limit stopped the bootstrap, the comparison
    without intervals (computed here: its work is the two agents' runs) and the reason. Either is kept in the
    shared cache, so a rerun does not spend the limit again."""
    limits = settings.current().limits

    def compute() -> tuple[drilldown.Comparison, str | None]:
        try:
            return untrusted.compare(scored.runs, a, b, scored.report.policy, replicates, seed, limits), None
        except untrusted.BootstrapStopped as exc:
            return drilldown.compare(scored.runs, a, b, scored.report.policy, replicates=replicates, seed=seed,
                                     bootstrap=False), str(exc)

    return data.derived("compare", (a, b, replicates, seed), compute,
                        lambda got: _frame_bytes(got[0].components, got[0].tasks),
                        spinner="Bootstrapping the difference…")


# --------------------------------------------------------------------------- the Runs page's filter widgets

WIDGET_KEYS = {"agents": "runs_agents", "tasks": "runs_tasks", "statuses": "runs_statuses",
               "outcomes": "runs_outcomes", "cohorts": "runs_cohorts"}
_SEEN_KEY = "runs_query_seen"
_SHOWN_KEY = "runs_filter_shown"


def linked_filter() -> dict[str, list[str]]:
    """The Runs page's filter as the page's query parameters give it (a link's, or the page's own)."""
    return {key: values for key in QUERY.values() if (values := st.query_params.get_all(key))}


def prepare_filter_widgets(options: Mapping[str, Sequence[str]], *, read_link: bool = True) -> list[str]:
    """Before the Runs page's filter widgets: put the filter to show into their state.

    A link's query parameters win once (each distinct query once, so the viewer's later edits stay);
    otherwise the last selection (session state). The widgets are set only when the filter changed
    elsewhere or they are new (Streamlit forgets a page's widgets when another page is shown).
    ``read_link`` False: a link's filter is not read yet (it waits for the upload it was made on, and is
    judged against that data once it is shown). Returns what was left out, in words (plain text): values a
    link named that this page does not know.
    """
    notes: list[str] = []
    given = linked_filter()
    if read_link and given and given != st.session_state.get(_SEEN_KEY):
        runs_filter, ignored = RunsFilter.from_query(given)
        notes += ignored
        st.session_state[_SEEN_KEY] = given
        st.session_state[FILTER_KEY] = runs_filter
    runs_filter = current_filter()
    if runs_filter != st.session_state.get(_SHOWN_KEY) or any(k not in st.session_state for k in WIDGET_KEYS.values()):
        for name, key in WIDGET_KEYS.items():
            known = set(options[name])
            values = getattr(runs_filter, name)
            unknown = [state.quoted(v) for v in values if v not in known]
            if unknown:  # a few named, the rest counted (a link may name 200 values)
                notes.append(f"{QUERY[name]} {_listed(unknown, 'values')} "
                             f"{'is' if len(unknown) == 1 else 'are'} not in this data")
            st.session_state[key] = [v for v in values if v in known]
        st.session_state[_SHOWN_KEY] = runs_filter
    return notes


def keep_filter(runs_filter: RunsFilter, *, write_link: bool = True) -> None:
    """After the widgets: the filter they show is the selection, and the page's query parameters say it
    (``write_link`` False: they keep a link's filter that waits for its upload, see prepare_filter_widgets)."""
    st.session_state[FILTER_KEY] = runs_filter
    st.session_state[_SHOWN_KEY] = runs_filter
    if not write_link:
        return
    query = runs_filter.to_query()
    for key in QUERY.values():
        if key in query:
            if st.query_params.get_all(key) != query[key]:
                st.query_params[key] = query[key]
        elif key in st.query_params:
            del st.query_params[key]
    st.session_state[_SEEN_KEY] = query
    if len(runs_filter.agents) == 1:
        state.put("agent", runs_filter.agents[0])


def clear_filter() -> None:
    """The 'Show every run' button: an empty filter (a callback, so it runs before the widgets)."""
    st.session_state[FILTER_KEY] = RunsFilter()
