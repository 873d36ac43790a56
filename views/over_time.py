import streamlit as st

from explorer import charts, data, drill, state
from explorer import format as fmt
from explorer.pages import end_page, show_title

DEFAULT_AGENTS = 3  # agents charted when none is chosen: the top of the leaderboard (explorer-defined)

show_title("over_time")
st.caption("Each measure as of the end of each UTC day, over the runs finished by then: the headline over all "
           "completed runs so far, the radar axes of the latest terminal runs (the window as it moved), and pass^k. "
           "◆ marks the days the zero-success floor or the consistency gate switched.")

scored = data.require_scores()
report = scored.report
policy = report.policy
agents = [a.agent_id for a in report.agents]
focus = drill.focus_agent()
if state.get("timeline") is None:  # the agents charted are part of the view: written down once (as the radar's
    # set), so an agent chosen below (the agent in focus) never changes what the view's link charts
    state.put("timeline", [focus] if focus in agents else agents[:DEFAULT_AGENTS])
chosen = st.multiselect("Agents", agents, max_selections=state.KEY_BY_NAME["timeline"].max_items,
                        help=f"Without a choice elsewhere, the top {DEFAULT_AGENTS} of the leaderboard.",
                        **state.bound("timeline", "over_time_agents", agents))
if not chosen:
    st.info("Choose at least one agent.", icon=":material/info:")
    end_page()

try:
    found = drill.over_time(scored, chosen)
except drill.TooManyDays as refused:
    st.warning(f"No scores over time for this dataset: {fmt.plain(refused)}. Every other page reads these runs "
               "as usual.", icon=":material/event_busy:")
    end_page()
if not found.has_dates:
    st.info(fmt.render(found.facts()[0]), icon=":material/event_busy:")
    end_page()
ordered = [a for a in agents if a in chosen]  # leaderboard order, so the colours stay put

st.plotly_chart(charts.headline_over_time(found.frame, ordered), width="stretch", key="headline_over_time")
facts = found.facts()
if facts:
    st.markdown("\n".join(f"- {fmt.render(fact)}" for fact in facts))

st.subheader("Radar axes over time")
one = st.selectbox("Agent", ordered, **state.bound("agent", "over_time_radar_agent", ordered))
st.plotly_chart(charts.radar_over_time(found.agent(one), one), width="stretch", key="radar_over_time")
st.caption(f"The window: the agent's latest {policy.radar_window} terminal runs finished by the end of the day. "
           "The profile score uses the policy's default viewer weights.")

st.subheader("pass^k over time")
k = st.segmented_control("k", policy.pass_k_levels, format_func=lambda level: f"pass^{level}",
                         **state.bound("level", "over_time_k", policy.pass_k_levels,
                                       fallback=policy.pass_k_levels[0])) or policy.pass_k_levels[0]
state.say_if_not_offered("level", k, policy.pass_k_levels, lambda level: f"pass^{level}")
st.plotly_chart(charts.pass_k_over_time(found.frame, ordered, k), width="stretch", key="pass_k_over_time")
st.caption(f"The mean over the tasks with at least {policy.pass_k_min_outcomes} known outcomes by that day "
           "(the qualifying tasks); a gap: no task qualified yet.")
