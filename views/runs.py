import streamlit as st

from explorer import data, drill, state, tables, ui
from explorer import format as fmt
from explorer.pages import show_title
from scoring.analysis.drilldown import COHORTS, OUTCOMES, runs_csv
from scoring.analysis.explain import remove_runs
from scoring.contract.schema import STATUSES

ROWS_SHOWN = 1_000  # a table never holds more: the rest is counted and downloadable
CSV_ROWS = 200_000  # the most runs one CSV download holds
ORDERS = state.KEY_BY_NAME["order"].options  # newest first, or costliest first

show_title("runs")
st.caption("The runs behind every number. Filter by agent, task, status, outcome and the cohort each measure "
           "reads. A selection on another page (a leaderboard row, a task on the Headline page, a cell of "
           "Tasks × agents) lands here with it.")

scored = data.require_scores()
runs, report = scored.runs, scored.report
policy = report.policy
options = {"agents": [a.agent_id for a in report.agents], "tasks": sorted(runs["task_id"].astype(str).unique()),
           "statuses": list(STATUSES), "outcomes": list(OUTCOMES), "cohorts": list(COHORTS)}

drill.adopt_carried_filter()  # a filter another page's link carried (runs.<name>) is read as this page's own
# A link made on an upload keeps its filter until that file is shown (app.py asks for it): judged against the data
# shown meanwhile, its agents and tasks were dropped, from the view and from the URL.
waiting = state.waiting_for(data.link_hashes(data.current_dataset())) is not None and bool(drill.linked_filter())
if waiting:
    st.info("This link's filter waits for its file: the runs below are every run of the data shown until then.",
            icon=":material/filter_alt:")
notes = drill.prepare_filter_widgets(options, read_link=not waiting)
if notes:
    st.warning("Left out of the filter: " + "; ".join(fmt.plain(n) for n in notes) + ".",
               icon=":material/filter_alt_off:")
top = st.columns([2, 2, 1])
agents = top[0].multiselect("Agents", options["agents"], key=drill.WIDGET_KEYS["agents"],
                            placeholder="every agent")
tasks = top[1].multiselect("Tasks", options["tasks"], key=drill.WIDGET_KEYS["tasks"], placeholder="every task")
top[2].button("Show every run", on_click=drill.clear_filter, icon=":material/filter_alt_off:", width="stretch")
bottom = st.columns([2, 2, 3])
statuses = bottom[0].multiselect("Status", options["statuses"], key=drill.WIDGET_KEYS["statuses"],
                                 placeholder="any status")
outcomes = bottom[1].multiselect("Outcome", options["outcomes"], key=drill.WIDGET_KEYS["outcomes"],
                                 format_func=lambda o: drill.OUTCOME_LABELS[o], placeholder="any outcome")
cohorts = bottom[2].multiselect("In the cohort of", options["cohorts"], key=drill.WIDGET_KEYS["cohorts"],
                                format_func=lambda c: drill.COHORT_LABELS[c], placeholder="any cohort (every run)",
                                help="A run is kept when it is in every cohort named: the headline reads completed "
                                     f"runs, the radar the latest {policy.radar_window} terminal runs of each agent, "
                                     "pass^k every terminal run with a known outcome.")
runs_filter = drill.RunsFilter(tuple(agents), tuple(tasks), tuple(statuses), tuple(outcomes), tuple(cohorts))
drill.keep_filter(runs_filter, write_link=not waiting)
cut = runs_filter.cut_in_link()
if cut:
    st.caption(f"The link names {'; '.join(cut)} (a link holds at most {drill.MAX_QUERY_VALUES:,} of each).")

view = runs_filter.view(runs, policy)
one_agent = runs_filter.agents[0] if len(runs_filter.agents) == 1 else None
if one_agent is not None:  # each run's influence on the agent's headline (exact, cached per agent)
    found = drill.explanation(scored, one_agent).influence
    view = view.merge(found.runs[["run_id", "points_if_removed", "score_if_removed"]], on="run_id", how="left")

metrics = st.columns(5)
metrics[0].metric("Runs shown", fmt.count(len(view)), help=f"of {len(runs):,} runs in the data")
metrics[1].metric("In the headline cohort", fmt.count(view["in_headline"].sum()), help="completed runs")
metrics[2].metric("In the radar window", fmt.count(view["in_radar_window"].sum()))
metrics[3].metric("pass^k outcomes", fmt.count(view["in_pass_k"].sum()))
metrics[4].metric("Successful", fmt.count(view["success"].fillna(False).sum()))
st.caption(f"Showing: {fmt.plain(runs_filter.describe())}.")

if one_agent is not None:
    account = drill.accounts(scored)[one_agent]
    with st.expander(f"Which of {fmt.plain(one_agent)}'s runs each measure reads", icon=":material/rule:"):
        st.markdown("\n".join(f"- {fmt.render(fact)}" for fact in account.facts()))
    if 0 < len(view) < account.total_runs:
        removal = remove_runs(runs, one_agent, view["run_id"].tolist(), policy, report.agent(one_agent).headline)
        if removal.completed == 0:
            st.caption("None of these runs is completed, so the headline does not read them: without them the "
                       "score would be the same.")
        elif removal.points_if_removed is not None:
            now, gain = report.agent(one_agent).headline.score, removal.points_if_removed
            effect = (f"these runs cost it {gain:.2f} points of its weighted score" if gain > 0
                      else f"these runs add {-gain:.2f} points to its weighted score" if gain < 0
                      else "these runs neither cost nor add a point")
            st.info(f"Without these {len(view):,} runs, {fmt.plain(one_agent)}'s headline would be "
                    f"{fmt.score(removal.score_if_removed)} instead of {fmt.score(now)}: {effect}.",
                    icon=":material/calculate:")
    order = st.radio("Order", ORDERS, format_func=lambda o: f"{o} first", horizontal=True,
                     help="Costliest first: the runs whose removal would raise the agent's score the most.",
                     **state.bound("order", "runs_order", ORDERS))
    if order == "costliest":
        view = view.sort_values(["points_if_removed", "run_id"], ascending=[False, True], na_position="last",
                                kind="stable")

# One table per dataset, filter and order for every session (the shared cache): a meeting opening the same link
# gets the same frame, and its Styler and Arrow bytes are made once (explorer.table_memo).
shown = data.table_frame("runs_table", (runs_filter, order if one_agent is not None else None),
                         lambda: tables.runs_table(view.head(ROWS_SHOWN)))
ui.table(shown, {"Latency (ms)": fmt.ms, "Cost (USD)": fmt.usd, "Steps": fmt.number,
                 "Points if removed": lambda v: f"{v:+.4f}", "Score if removed": fmt.score,
                 **tables.pass_through_formats()},
         key="runs_table", height="fit" if len(shown) <= 20 else 600,
         columns={"Headline": st.column_config.Column(help="Completed: the headline composite reads it"),
                  "Radar window": st.column_config.Column(
                      help=f"Among the agent's latest {policy.radar_window} terminal runs: the radar reads it"),
                  "pass^k": st.column_config.Column(help="Terminal with a known outcome: pass^k reads it"),
                  **{label: st.column_config.Column(help=tables.PASS_THROUGH_HELP)
                     for label in tables.PASS_THROUGH_LABELS.values() if label in shown},
                  "Points if removed": st.column_config.Column(
                      help="The agent's unrounded weighted score without this run minus with it")})
if len(view) > ROWS_SHOWN:
    st.caption(f"The first {ROWS_SHOWN:,} of {len(view):,} runs are shown; the CSV holds "
               f"{min(len(view), CSV_ROWS):,} of them" + (" (narrow the filters for the rest)."
                                                        if len(view) > CSV_ROWS else "."))
if len(view):
    exported = view.head(CSV_ROWS)
    st.download_button(f"Download these {len(exported):,} runs (CSV)", lambda: runs_csv(exported),
                       file_name="runs.csv", mime="text/csv", icon=":material/download:", on_click="ignore",
                       key="runs_csv")
else:
    st.info("No run matches these filters.", icon=":material/search_off:")
