import streamlit as st

from explorer import badges, charts, data
from explorer import format as fmt
from scoring.methodology import execution_formula, worked_formula

st.title("Headline composite")
st.caption("Why an agent has its headline score: the weighted parts, the anchor maps, the consistency gate "
           "and the zero-success floor, all over the agent's completed runs.")

scored = data.require_scores()
report = scored.report
policy = report.policy

agents = [a.agent_id for a in report.agents]
agent_id = st.selectbox("Agent", agents, key="headline_agent",
                        format_func=lambda a: f"#{report.agent(a).rank} {a}" if report.agent(a).rank
                        else f"{a} (unranked)")
h = report.agent(agent_id).headline
badges.badge_row(scored, agent_id, key="headline")

if not h.ranked:
    st.info(fmt.render(h.explain()[0]), icon=":material/info:")
    st.stop()

cols = st.columns(4)
cols[0].metric("Headline score", fmt.score(h.score), help=f"0–100, rounded to {policy.score_decimals} decimals")
cols[1].metric("Success rate", fmt.pct(h.success_rate),
               help=f"{h.successful_runs} of {h.completed_runs} completed runs")
cols[2].metric("Execution score", fmt.factor(h.execution_score), help=execution_formula(policy))
cols[3].metric("Cost score", fmt.factor(h.cost_score), help=f"average cost {fmt.usd(h.avg_cost_usd)}")

if h.zero_success_floor:
    st.error(f"**Zero-success floor applies.** None of the {h.completed_runs:,} completed runs succeeded, so the "
             f"headline score is 0 whatever latency and cost say (the weighted formula alone would give "
             f"{fmt.score(h.weighted_score)}). Published rule of policy {policy.version}.",
             icon=":material/block:")

left, right = st.columns([3, 2])
with left:
    st.plotly_chart(charts.contribution_waterfall(h), width="stretch", key="waterfall")
with right:
    st.subheader("In words")
    st.markdown("\n".join(f"- {fmt.render(fact)}" for fact in h.explain()))
st.code(worked_formula(h), language=None)


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
        st.plotly_chart(charts.anchor_curve(
            anchors, title=f"{what.capitalize()}: average {show(average)} → {fmt.factor(score)}", x_label=x_label,
            value=average, value_label=agent_id, others=others), width="stretch", key=f"{what}_curve")
        if recorded == 0:
            st.warning(f"No completed run recorded a {what}: {what} score 0 (data-quality flag).")

st.subheader("Consistency gate")
gate = policy.consistency_min_latencies
gate_cols = st.columns(3)
gate_cols[0].metric("Recorded latencies", f"{h.latency_runs:,}", help=f"{gate} needed for a measured consistency")
gate_cols[1].metric("Consistency", fmt.factor(h.consistency),
               help="clamp(1 − pstdev ÷ mean, 0, 1) over the recorded latencies (explorer-defined form)")
gate_cols[2].metric("Latency spread (pstdev)", fmt.ms(h.latency_pstdev_ms))
if h.consistency_neutral:
    st.info(f"Gate not met: {h.latency_runs} recorded latencies, {gate} needed. Consistency takes the neutral "
            f"factor {policy.neutral_consistency:g} (explorer-defined) because a small sample is not enough "
            "evidence of variance.", icon=":material/hourglass_empty:")
else:
    st.success(f"Gate met: {h.latency_runs:,} recorded latencies (at least {gate}), so consistency is measured: "
               f"1 − {fmt.ms(h.latency_pstdev_ms)} ÷ {fmt.ms(h.avg_latency_ms)} = {fmt.factor(h.consistency)}.",
               icon=":material/check_circle:")
