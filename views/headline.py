from functools import partial

import streamlit as st

from explorer import badges, charts, data, drill, glossary, state, tables, ui
from explorer import format as fmt
from explorer.pages import end_page, show_title
from scoring.analysis.explain import Overtake, PointsLost
from scoring.contract.rounding import published_round
from scoring.outputs.methodology import composite_provenance, execution_formula, worked_formula

show_title("headline")
st.caption("Why an agent has its headline score and where its points went: the weighted parts, what overtaking "
           "the agent above takes, the tasks and runs that cost points, the anchor maps, the consistency gate and "
           "the zero-success floor, all over the agent's completed runs.")

FIXES_SHOWN = 10  # rows of the fixes table (explorer-defined)
TASKS_CHARTED = 10  # bars of the influence chart (explorer-defined)
RUNS_SHOWN = 12  # rows of the costliest runs table (explorer-defined)

scored = data.require_scores()
report = scored.report
policy = report.policy

agents = [a.agent_id for a in report.agents]
drill.focus(agents, "headline_agent")
agent_id = st.selectbox("Agent", agents, **state.bound("agent", "headline_agent", agents),
                        format_func=lambda a: f"#{report.agent(a).rank} {a}" if report.agent(a).rank
                        else f"{a} (unranked)")
drill.set_focus(agent_id, "headline_agent")
state.put("agent", agent_id)  # the link names the agent shown, however it was chosen (here, or elsewhere)
h = report.agent(agent_id).headline
badges.badge_row(scored, agent_id, key="headline")
account = drill.accounts(scored)[agent_id]

if not h.ranked:
    st.info(fmt.render(h.explain()[0]), icon=":material/info:")
    st.markdown("\n".join(f"- {fmt.render(fact)}" for fact in account.facts()))
    drill.runs_link(drill.RunsFilter(agents=(agent_id,)), f"Open its {fmt.counted(account.total_runs, 'run', 'runs')}")
    end_page()
explained = drill.explanation(scored, agent_id)
texts = drill.headline_texts(scored, agent_id)  # the page's lists of facts, composed once for every session

cols = ui.metric_row(4)
cols[0].metric("Headline score", fmt.score(h.score), help=f"0–100, rounded to {policy.score_decimals} decimals")
cols[1].metric("Success rate", fmt.rate(h.success_rate),
               help=f"{h.successful_runs} of {h.completed_runs} completed runs")
cols[2].metric("Execution score", fmt.factor(h.execution_score),
               help=f"{execution_formula(policy)} (the split is {policy.provenance['latency_share_of_execution']})")
cols[3].metric("Cost score", fmt.factor(h.cost_score), help=f"average cost {fmt.usd(h.avg_cost_usd)}")

if h.zero_success_floor:
    st.error(f"**Zero-success floor applies.** None of the {h.completed_runs:,} completed runs succeeded, so the "
             f"headline score is 0 whatever latency and cost say (the weighted formula alone would give "
             f"{fmt.score(published_round(h.weighted_score or 0.0, policy.score_decimals))}). Published rule of policy "
             f"{policy.version}.",
             icon=":material/block:")

for note in report.agent(agent_id).notes():
    st.info(fmt.plain(note), icon=":material/info:")

left, right = st.columns([3, 2])
with left:
    theme = ui.chart_theme()
    st.plotly_chart(data.figure("waterfall", (agent_id, theme.name), lambda: charts.contribution_waterfall(
        h, theme=theme)), width="stretch", key="waterfall")
with right:
    st.subheader("In words")
    st.markdown(texts.in_words)
st.code(worked_formula(h), language=None, wrap_lines=True)

st.subheader("Where the points went")
assert explained.points is not None  # a ranked agent has a composite
points: PointsLost = explained.points
left, right = st.columns([3, 2])
with left:
    st.plotly_chart(data.figure("points_lost", agent_id, lambda: charts.points_lost_chart(points)), width="stretch",
                    key="points_lost")
with right:
    ui.table(data.table_frame("points", agent_id, lambda: tables.points_table(points)),
             # four decimals, as explain's table: the weighted score and its rounding to the published score
             {"Weight": fmt.factor, "Factor": fmt.factor, "Earned": fmt.points_fine, "Max": fmt.points,
              "Lost": fmt.points_fine},
             key="points_table")
    st.caption("Earned = weight × factor × 100 and lost = max − earned, per component; earned and lost add up "
               "to 100, and the earned points (after the floor or the rounding) to the score. "
               + composite_provenance(policy))

st.subheader("Which runs the headline reads")
st.markdown(texts.runs_read)
drill.runs_link(drill.RunsFilter(agents=(agent_id,)), f"Open its {fmt.counted(account.total_runs, 'run', 'runs')}")

ahead = explained.overtake
if ahead is None:
    st.subheader("What to fix first")
    st.success(f"{fmt.plain(agent_id)} is ranked first: there is no agent above to overtake.",
               icon=":material/emoji_events:")
else:
    above: Overtake = ahead
    st.subheader(f"What overtaking {fmt.plain(ahead.above)} takes")
    assert texts.overtake is not None  # an agent above: its overtake facts
    first_fact, other_facts = texts.overtake
    st.markdown(first_fact + " Each component changed alone, the others as they are, and the "
                "smallest change that reaches it (exact, by inverting the composite):")
    st.markdown(other_facts)
    ui.table(data.table_frame("overtake", agent_id, lambda: tables.overtake_table(above).drop(columns=["How"])),
             key="overtake_table",
             columns={"Reachable alone": st.column_config.CheckboxColumn(
                 help="Whether changing this component alone, the others as they are, can reach the score needed")})
found_fixes = drill.agent_fixes(scored, agent_id)
if len(found_fixes.tasks):
    st.markdown("**What fixing a task's unsuccessful runs is worth** (what to fix first on top):")
    if texts.fixes:
        st.markdown(texts.fixes)
    first = ahead is None  # no agent above: nothing to overtake, no Overtakes column
    fix_rows = data.table_frame("fixes", (agent_id, FIXES_SHOWN, first), lambda: tables.fixes_table(
        found_fixes, rows=FIXES_SHOWN).drop(columns=["Overtakes"] if first else []))
    ui.table(fix_rows, {"Score if fixed": fmt.score, "Change": fmt.score},
             key="fixes_table", columns={"Overtakes": st.column_config.CheckboxColumn(
                 help="Whether this fix alone lifts the score to the one needed to overtake the agent above")})
    shown = (f"The first {FIXES_SHOWN} of {len(found_fixes.tasks):,} task fixes" if len(found_fixes.tasks) > FIXES_SHOWN
             else "The one task fix" if len(found_fixes.tasks) == 1 else f"All {len(found_fixes.tasks):,} task fixes")
    st.caption(f"{shown}. A fixed failed or timed-out run is scored as completed and successful at the agent's "
               "average latency and cost.")

st.subheader("What if")
ui.what_if(report.agent(agent_id), policy, key="headline_outcomes_needed")

st.subheader("What costs points")
found = explained.influence
st.markdown(texts.costs)
left, right = st.columns([2, 3])
with left:
    charted = found.tasks[found.tasks["points_if_removed"].notna()].head(TASKS_CHARTED)  # "—": no score without it
    if len(charted):
        st.plotly_chart(data.figure("influence_bars", (agent_id, TASKS_CHARTED), lambda: charts.influence_bars(
            charted, title="Points gained without each task's runs" + (
                f" (the top {TASKS_CHARTED})" if len(found.tasks) > TASKS_CHARTED else ""))),
            width="stretch", key="influence_bars")
    else:
        st.info("No task to chart: without any one task's runs the agent has no completed run, so no score to "
                "compare (— in the table).", icon=":material/info:")
with right:
    task_rows = data.table_frame("influence_tasks", agent_id, lambda: tables.influence_tasks_table(found, policy))
    linked = drill.view_filter("headline")  # the task a link (or this session) chose: ticked when first drawn
    ticked = [i for i, task in enumerate(task_rows["Task"]) if linked.agents == (agent_id,)
              and linked.tasks == (str(task),)][:1]
    chosen = ui.table(task_rows, {"Points if removed": lambda v: f"{v:+.3f}", "Score if removed": fmt.score},
                      key="influence_tasks", height=min(420, ui.ROW_HEIGHT * (len(task_rows) + 1) + 3),
                      select="single-row", fresh_for=(data.current_dataset(), agent_id), selected=ticked,
                      columns={"Points if removed": st.column_config.Column(
                          help="The agent's unrounded weighted score without the task's runs minus with them: "
                               "positive, the task costs points")})
    if chosen:
        task = str(task_rows["Task"].iloc[chosen[0]])
        drill.choose(drill.RunsFilter(agents=(agent_id,), tasks=(task,)))
        drill.runs_link(drill.RunsFilter(agents=(agent_id,), tasks=(task,)), f"Open its runs on task {task}")
    else:
        st.caption("Select a task (the box at the left of its row) to open its runs.")
costly_runs = data.table_frame("influence_runs", (agent_id, RUNS_SHOWN), lambda: tables.influence_runs_table(
    found.costliest_runs(RUNS_SHOWN), policy))
if len(costly_runs):
    st.markdown(f"**The {len(costly_runs) if len(costly_runs) < RUNS_SHOWN else RUNS_SHOWN} "
                f"{'run that costs' if len(costly_runs) == 1 else 'runs that cost'} the most** (removing one alone "
                f"raises the score the most{'' if len(costly_runs) == RUNS_SHOWN else '; no other run costs points'}):")
    ui.table(costly_runs, {"Points if removed": lambda v: f"{v:+.4f}", "Score if removed": fmt.score},
             key="influence_runs")
else:
    st.markdown("**No run costs points:** removing any one run alone would not raise the score.")
drill.runs_link(drill.RunsFilter(agents=(agent_id,)), "Open all its runs (order them costliest first there)")


st.subheader("Anchor maps")
st.caption("Each average is mapped to 0–1 by straight lines between the published anchors (flat beyond the "
           "ends). The red diamond is this agent; grey dots are the other agents.")
ANCHOR_PANELS = (  # what, its anchors, the headline field of the average, its score, runs recorded, format, x label
    ("latency", policy.latency_anchors, "avg_latency_ms", h.latency_score, h.latency_runs, fmt.ms,
     "average latency of completed runs (ms)"),
    ("cost", policy.cost_anchors, "avg_cost_usd", h.cost_score, h.cost_runs, fmt.usd,
     "average cost per completed run (USD, log scale)"),
)
for column, (what, anchors, field, score, recorded, show, x_label) in zip(st.columns(2), ANCHOR_PANELS):
    average = getattr(h, field)
    others = {a.agent_id: getattr(a.headline, field) for a in report.agents
              if a.agent_id != agent_id and getattr(a.headline, field) is not None}
    with column:
        st.plotly_chart(data.figure(f"{what}_curve", (agent_id, theme.name), partial(
            charts.anchor_curve, anchors, title=f"{what.capitalize()}: average {show(average)} → {fmt.factor(score)}",
            x_label=x_label, value=average, value_label=agent_id, others=others, theme=theme, factor=True)),
            width="stretch", key=f"{what}_curve")
        if recorded == 0:
            st.warning(f"No completed run recorded a {what}: {what} score 0 (data-quality flag).")

st.subheader("Consistency gate", help=glossary.tooltip("pstdev"))
gate = policy.consistency_min_latencies
gate_cols = ui.metric_row(3)
gate_cols[0].metric("Recorded latencies", f"{h.latency_runs:,}", help=f"{gate} needed for a measured consistency")
gate_cols[1].metric("Consistency", fmt.factor(h.consistency),
               help="clamp(1 − pstdev ÷ mean, 0, 1) over the recorded latencies (explorer-defined form)")
gate_cols[2].metric("Latency spread (pstdev)", fmt.ms_fine(h.latency_pstdev_ms))
if h.consistency_neutral:
    st.info(f"Gate not met: {h.latency_runs} recorded latencies, {gate} needed. Consistency takes the neutral "
            f"factor {policy.neutral_consistency:g} (explorer-defined) because a small sample is not enough "
            "evidence of variance.", icon=":material/hourglass_empty:")
else:
    st.success(f"Gate met: {h.latency_runs:,} recorded latencies (at least {gate}), so consistency is measured: "
               f"1 − {fmt.ms_fine(h.latency_pstdev_ms)} ÷ {fmt.ms_fine(h.avg_latency_ms)} = "
               f"{fmt.factor(h.consistency)}.",
               icon=":material/check_circle:")
