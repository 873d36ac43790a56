import pandas as pd
import streamlit as st

from explorer import charts, data, glossary, state, tables, ui
from explorer import format as fmt
from explorer.pages import show_title
from scoring.analysis.uncertainty import DEFAULT_REPLICATES, DEFAULT_SEED, frontier_points, pareto_frontier

show_title("uncertainty")
st.caption("Added views beside the canonical numbers, which none of them changes: bootstrap intervals, tie "
           "groups, cost–accuracy frontiers and what-if sensitivity. The published methodology has none of them: "
           f"every rule and default on this page (the 95% level, {DEFAULT_REPLICATES:,} replicates and seed "
           f"{DEFAULT_SEED} by default, the resampling, the tie groups) is explorer-defined.")

scored = data.require_scores()
report = scored.report
policy = report.policy

left, right, _ = st.columns([1, 1, 2])
replicates = left.number_input("Bootstrap replicates", 100, 5000, step=100,
                               help=glossary.tooltip("bootstrap", "replicates"),
                               **state.bound("replicates", "replicates"))
seed = right.number_input("Seed", 0, 2**31 - 1, step=1, help=glossary.tooltip("seed"), **state.bound("seed", "seed"))

st.subheader("Intervals and tie groups", help=glossary.tooltip("percentile interval", "tie group"))
st.caption("95% percentile intervals (explorer-defined): each agent's completed runs resampled with replacement "
           "for the headline; outcomes resampled within each task for pass^k. Walking down the leaderboard, an "
           "agent joins the current tie group while its upper bound reaches the lower bound of the group's first "
           "agent. Agents in one group are not clearly separated by these data.")
iv = data.intervals(scored, int(replicates), int(seed))  # None where a limit stopped it (the reason is shown)
if iv is not None:
    interval_rows = tables.interval_points(report, iv)
    st.plotly_chart(charts.interval_chart(interval_rows[:charts.CHART_MAX_AGENTS], floored=tables.floored(report),
                                          theme=ui.chart_theme()), width="stretch", key="interval_chart")
    ui.say_agents_drawn(len(interval_rows), "the table below lists every agent's interval")
    coverage = tables.interval_coverage(report, iv)
    rows = []
    for a in report.agents:
        x = iv.agents[a.agent_id]
        row = {"Rank": a.rank, "Agent": a.agent_id, "Tie group": x.tie_group, "Score": a.headline.score,
               "Score low": None if x.headline is None else x.headline.low,
               "Score high": None if x.headline is None else x.headline.high,
               "Covers ranks": coverage[a.agent_id][0] if a.agent_id in coverage else None}
        for k in policy.pass_k_levels:
            point = None if a.repeatability.pass_k is None else a.repeatability.pass_k[k]
            row[f"pass^{k}"] = None if x.pass_k is None else f"{fmt.pct(point)} " \
                f"({fmt.pct(x.pass_k[k].low)}–{fmt.pct(x.pass_k[k].high)})"
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("Rank", "Tie group"):
        table[column] = table[column].astype("Int64")
    for column in ("Score", "Score low", "Score high"):
        table[column] = table[column].astype("Float64")
    ui.table(table, {"Score": fmt.score, "Score low": fmt.score, "Score high": fmt.score}, key="interval_table",
             columns={"Covers ranks": st.column_config.TextColumn(
                 help="The ranks whose scores lie inside this agent's interval")})
    covered = tables.coverage_caption(coverage)
    if covered:
        st.caption(covered)

st.subheader("Cost–accuracy and latency–accuracy frontiers", help=glossary.tooltip("Pareto frontier"))
st.caption("An agent is on the Pareto frontier when no other agent has both a success rate at least as high "
           "and an average at least as low, one of them strictly.")
left, right = st.columns(2)
for panel, axis, label, unit in ((left, "cost", "average cost per completed run (USD, log scale)", "USD"),
                                 (right, "latency", "average latency of completed runs (ms)", "ms")):
    points = frontier_points(report, axis)
    with panel:
        if not points:
            st.info(f"No {axis} frontier: no agent recorded a {axis} on a completed run (and a success rate), so "
                    "there is no point to draw.", icon=":material/info:")
            continue
        st.plotly_chart(charts.frontier_chart(points, pareto_frontier(points), x_label=label, unit=unit,
                                              title=f"Success rate against average {axis}",
                                              theme=ui.chart_theme()),
                        width="stretch", key=f"frontier_{axis}")
        missing = [a.agent_id for a in report.agents if a.agent_id not in points]
        if missing:
            st.caption(f"Not drawn ({len(missing):,}; no {axis} recorded, or no success rate): "
                       + fmt.plain(", ".join(fmt.short(a, 40) for a in missing[:10]))
                       + (" …" if len(missing) > 10 else ""))

st.subheader("Sensitivity of one agent")
agents = [a.agent_id for a in report.agents]
agent_id = st.selectbox("Agent", agents, **state.bound("agent", "sensitivity_agent", agents))
ui.what_if(report.agent(agent_id), policy, key="outcomes_needed")
