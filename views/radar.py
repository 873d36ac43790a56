import streamlit as st

from explorer import charts, data, drill, glossary, pages, scorecards, state, tables, ui
from explorer import format as fmt
from scoring import RADAR_AXES, check_weights

pages.show_title("radar")
st.caption(f"{len(RADAR_AXES)} diagnostic axes over each agent's latest terminal runs. The weights below are "
           "yours alone: "
           "they re-rank agents by a profile score and never touch the canonical headline score.")

scored = data.require_scores()
report = scored.report
policy = report.policy
defaults = policy.radar_weights


WEIGHTS_PART = "radar_weights"  # the fragment of everything the weights change: sliders, shares, ranking


def weights_changed() -> None:
    """A slider moved or the weights were reset: rerun the weights' part and the link, not the whole app (a
    meeting's forty viewers drag these sliders). A loaded scorecard shows above whether the sliders still hold its
    weights, so then the whole page reruns."""
    if scorecards.active() is not None:
        st.rerun()
    pages.rerun_parts(WEIGHTS_PART)


def reset_weights() -> None:
    state.put("weights", state.DEFAULT_WEIGHTS)
    state.reseed()  # the sliders take the defaults as they are drawn again (the rerun below is the fragment's)
    scorecards.forget()
    weights_changed()


agents = [a.agent_id for a in report.agents]
focus = drill.focus_agent() if drill.focus_agent() in agents else None
around_focus = tables.focus_and_neighbours(agents, focus)


def show_focus() -> None:
    state.put("agents", around_focus)
    st.session_state["radar_agents"] = around_focus


if state.get("agents") is None:  # the set is part of the view: written down once, never changed silently
    state.put("agents", around_focus)
chosen = st.multiselect("Agents on the radar", agents, max_selections=len(charts.PALETTE),
                        **state.bound("agents", "radar_agents", agents))
if focus is not None and focus not in chosen:
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.caption(f"The agent in focus, **{fmt.plain(focus)}**, is not on the radar.")
    right.button("Show it and its neighbours", on_click=show_focus, icon=":material/my_location:",
                 width="stretch", key="radar_show_focus")
else:
    st.caption("Opens on the agent in focus and its neighbours on the leaderboard (the top three when no agent "
               "is in focus); the set changes only when you change it.")

left, right = st.columns([3, 2])
with left:
    theme = ui.chart_theme()
    st.plotly_chart(data.figure("radar", (tuple(chosen), theme.name), lambda: charts.radar_chart(
        [report.agent(a).radar for a in chosen], theme=theme)), width="stretch", key="radar")
with right:
    st.subheader("Unavailable axes")
    gaps = [(a, axis) for a in chosen for axis in RADAR_AXES if report.agent(a).radar.axes[axis] is None]
    if not gaps:
        st.caption("Every axis of the chosen agents has enough evidence.")
    for agent_id, axis in gaps:
        st.markdown(f"- **{fmt.plain(agent_id)}** — {tables.AXIS_LABELS[axis]}: "
                    f"{fmt.render(report.agent(agent_id).radar.reasons[axis])}")
    st.caption(f"Window: each agent's latest {policy.radar_window} terminal runs (completed, failed, timeout), "
               "newest first by finished_at.")

def viewer_weights() -> dict[str, float]:
    """The viewer's sliders, the renormalized shares and the reset button; returns the weights in force."""
    st.subheader("Viewer weights", help=glossary.tooltip("profile score", "window", "p50"))
    columns = ui.metric_row(len(RADAR_AXES))  # one row block for the sliders (they wrap on a phone)
    weights = {}
    for i, (column, axis) in enumerate(zip(columns, RADAR_AXES)):  # seeded from the view state (or a scorecard)
        weights[axis] = column.slider(tables.AXIS_LABELS[axis], 0, 100, step=5, format="%d%%",
                                      **state.bound("weights", f"weight_{axis}", part=i,
                                                    then=weights_changed)) / 100
    # The view state follows the sliders whoever moved them (the viewer, the reset button or a scorecard).
    state.put("weights", tuple(round(100 * weights[a]) for a in RADAR_AXES))
    weights = scorecards.applied_weights(check_weights(weights, policy))
    total = sum(weights.values())
    shares = "  ·  ".join(f"{tables.AXIS_LABELS[a]} {fmt.weight(w / total) if total else fmt.DASH}"
                          for a, w in weights.items())
    left, right = st.columns([4, 1])
    left.caption(f"Renormalized weights, for an agent with every axis available: {shares}. For an agent with an "
                 "unavailable axis, that axis is dropped and the others are renormalized again. Default: "
                 f"{defaults['correctness']:.0%} each (published).")
    right.button("Reset weights", on_click=reset_weights, icon=":material/restart_alt:", width="stretch")
    if not total:
        st.info("Every weight is 0: there is no profile score to rank by until one axis has a positive weight. "
                "The headline scores and ranks are unchanged.", icon=":material/info:")
    return weights


def profile_ranking(weights: dict[str, float]) -> None:
    """The profile ranking under these weights beside the unchanged headline, and the scorecard's save."""
    # Built once per weights for every session (the shared cache): many viewers keep the defaults or a scorecard's.
    ranking = data.table_frame("profile_ranking", tuple(sorted(weights.items())),
                               lambda: tables.profile_ranking(report, weights))
    st.subheader("Profile ranking beside the unchanged headline")
    st.info("The headline columns never move when a slider moves or a scorecard is loaded: viewer and Team "
            "Scorecard weights change only the profile score and the profile rank.", icon=":material/lock:")
    st.caption(scorecards.ranking_caption())
    ui.table(ranking, {"Profile score": fmt.score, "Headline score": fmt.score}, key="profile_ranking",
             columns={"Profile score": st.column_config.Column(help="Your weights, renormalized over available "
                                                                    "axes"),
                      "Headline flags": st.column_config.TextColumn(width=150, help="The headline's flags, as on the "
                                                           "Leaderboard: a zero-success floor makes the headline 0 "
                                                           "whatever the profile"),
                      "Headline score": st.column_config.Column(help="Canonical; not affected by the weights"),
                      "Headline rank": st.column_config.Column(help="Canonical; not affected by the weights")})

    scorecards.save_and_link(weights)


@st.fragment(key=WEIGHTS_PART)
def weights_part() -> None:
    """The sliders and what they change, one block under the radar (which the weights do not move): reruns alone
    when a slider moves."""
    profile_ranking(viewer_weights())


scorecards.controls()  # above the sliders: loading a scorecard sets them
weights_part()
