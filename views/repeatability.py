import streamlit as st

from explorer import charts, data, glossary, state, tables, tau2_reading, ui
from explorer import format as fmt
from explorer.pages import show_title
from scoring.measures.report import harness_words

show_title("repeatability")
st.caption("pass^k: the chance that k attempts at a task, drawn from the recorded runs, all succeeded. "
           "Read from existing runs only; nothing is dispatched.")

scored = data.require_scores()
report = scored.report
policy = report.policy
levels = policy.pass_k_levels

st.markdown(
    f"**Conventions.** For a task with *n* recorded outcomes and *c* successes, "
    f"pass^k(n, c) = C(c, k) ÷ C(n, k). A task needs at least **{policy.pass_k_min_outcomes} outcomes** to "
    f"enter; if fewer than *k* successes were observed its pass^k is **0**; the aggregate is the "
    f"**unweighted mean over qualifying tasks**, so each task weighs the same however often it ran. "
    f"Outcomes are terminal runs (completed, failed, timeout) with a known success value."
)

# Every chart and table of this page depends on the dataset and what the viewer chose only: built once for every
# session in the shared bounded cache (explorer.data.figure and table_frame), never again on a rerun.
theme = ui.chart_theme()
st.plotly_chart(data.figure("pass_k_bars", theme.name, lambda: charts.pass_k_bars(
    [(a.agent_id, a.repeatability.pass_k) for a in report.agents[:charts.CHART_MAX_AGENTS]], levels,
    theme=theme)), width="stretch", key="pass_k_bars")
ui.say_agents_drawn(len(report.agents), "every agent's pass^k is in the table below")
ui.table(data.table_frame("repeatability_summary", None, lambda: tables.repeatability_summary(report)),
         {f"pass^{k}": lambda v: fmt.pct(v, 2) for k in levels},
         key="pass_k_summary",
         columns={"Qualifying tasks": st.column_config.Column(
                      help=f"Tasks with at least {policy.pass_k_min_outcomes} outcomes"),
                  "Excluded tasks": st.column_config.Column(
                      help=f"Tasks with fewer than {policy.pass_k_min_outcomes} outcomes")})
unqualified = [a.agent_id for a in report.agents if a.repeatability.pass_k is None]
if unqualified:
    st.caption("No qualifying task, so no pass^k: " + ", ".join(fmt.plain(a) for a in unqualified) + ". Why:")
    st.markdown("\n".join(f"- **{fmt.plain(a)}**: {fmt.plain(words)}"
                           for a, words in tables.missing_pass_k_words(report)))
st.caption("These are the canonical numbers (the published rule). tau2-bench's reading of the same outcomes, "
           "labelled as a comparison, is at the end of the page.")

st.subheader("The pass^k curve", help=glossary.tooltip("pass^k"))
with_tasks = [a.agent_id for a in report.agents if a.repeatability.pass_k is not None]
if with_tasks:
    chosen = st.multiselect("Agents", with_tasks, max_selections=len(charts.PALETTE),
                            **state.bound("curve", "curve_agents", with_tasks, fallback=with_tasks[:4]))
    st.plotly_chart(data.figure("pass_k_curve", (tuple(chosen), theme.name), lambda: charts.pass_k_curve(
        {a: report.agent(a).repeatability.curve() for a in chosen}, marked=levels, theme=theme)), width="stretch",
        key="pass_k_curve")
    st.caption("k runs from 1 to the agent's largest outcome count; a task with fewer than k outcomes contributes "
               "0.")
else:
    st.info(f"No curve to draw: no agent has a task with at least {policy.pass_k_min_outcomes} outcomes, so no "
            "agent has a pass^k.", icon=":material/info:")

st.subheader("Per-task detail")
if with_tasks:
    left, right = st.columns([1, 1])
    agent_id = left.selectbox("Agent", with_tasks, **state.bound("agent", "task_agent", with_tasks))
    k = right.radio("Level", levels, horizontal=True, format_func=lambda k: f"pass^{k}",
                    **state.bound("level", "task_k", levels))
    state.say_if_not_offered("level", k, levels, lambda level: f"pass^{level}")
    task_rows = data.table_frame("task_table", agent_id, lambda: tables.task_table(report, agent_id))
    left, right = st.columns([3, 2])
    with left:
        ui.table(task_rows, {f"pass^{j}": fmt.pct2 for j in levels}, key="task_table",
                 height=min(360, ui.ROW_HEIGHT * (len(task_rows) + 1) + 3))
        rep = report.agent(agent_id).repeatability
        qualifying = fmt.counted(rep.qualifying_tasks, "qualifying task", "qualifying tasks")
        st.caption(f"{qualifying}, {rep.excluded_tasks:,} excluded "
                   f"(fewer than {policy.pass_k_min_outcomes} outcomes; shown without pass^k).")
    with right:
        st.plotly_chart(data.figure("pass_k_histogram", (agent_id, k, theme.name), lambda: charts.pass_k_histogram(
            task_rows.loc[task_rows["Qualifies"], f"pass^{k}"].astype(float).tolist(), agent=agent_id, k=k,
            theme=theme)), width="stretch", key="pass_k_histogram")
else:
    st.info("No agent has a task with enough outcomes for pass^k.")

st.subheader("Beside it: the tau2-bench convention")
st.markdown(f"**{tau2_reading.LABEL}.** tau2-bench computes pass^k only for k up to the smallest number of "
            f"outcomes of any task (its *max k*) and averages every task with at least one outcome, with no "
            f"{policy.pass_k_min_outcomes}-outcome gate. The numbers above follow the published rule instead: a "
            f"qualifying task with fewer than k outcomes counts 0 at pass^k. Where both are defined, each task's "
            f"pass^k is the same C(c, k) ÷ C(n, k); only which tasks enter the mean differs. It is tau2-bench's "
            f"convention applied to these outcomes, whichever harness produced them."
            + (" Each harness's own reading (tau-bench's among them) is on the Leaderboard, under *Beside it: each "
               "harness's own reading*." if any(a.harness is not None for a in report.agents) else
               " (Data imported from a harness's results also gets that harness's own reading, on the Leaderboard.)"))
ui.table(data.table_frame("tau2_summary", None, lambda: tau2_reading.tau2_summary(report)),
         {f"tau2 pass^{k}": lambda v: fmt.pct(v, 2) for k in levels},
         key="tau2_summary",
         columns={"tau2 max k (smallest n)": st.column_config.Column(
                      help="tau2-bench computes pass^k only up to the smallest outcome count of any task"),
                  "Tasks used (n ≥ 1)": st.column_config.Column(help="Every task with at least one outcome")})
st.caption("A dash at pass^k: k is above tau2's max k for that agent, where tau2-bench computes nothing.")
compared = data.derived("tau2_compared", None, lambda: [a.agent_id for a in report.agents
                                                         if a.repeatability.tau2_reading() is not None],
                        lambda agents: 100 * len(agents) + 1_000)
if compared:
    agent_id = st.selectbox("Agent to compare", compared, **state.bound("tau2", "tau2_agent", compared))
    rep = report.agent(agent_id).repeatability
    harness = report.agent(agent_id).harness  # an imported agent's own harness, read from its file
    st.markdown("\n".join(f"- Canonical {line}" for line in tau2_reading.canonical_words(
        rep, policy.pass_k_min_outcomes)) + f"\n- {tau2_reading.tau2_words(rep)}"
        + (f"\n- {fmt.plain(harness_words(harness))}; why it differs: the Leaderboard, under *Beside it*"
           if harness is not None and harness.pass_k else ""))
    ui.table(data.table_frame("tau2_side_by_side", agent_id, lambda: tau2_reading.side_by_side(rep)),
             {"tau2-bench reading": lambda v: fmt.pct(v, 2), "Canonical (published rule)": lambda v: fmt.pct(v, 2)},
             key="tau2_side_by_side")
    if not rep.qualifying_tasks:
        st.caption("A dash in the canonical column: no task has the "
                   f"{policy.pass_k_min_outcomes} outcomes the published rule needs, so it defines no pass^k.")
else:
    st.info("No agent has a recorded outcome, so neither reading is defined.")
