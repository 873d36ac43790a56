import streamlit as st

from explorer import charts, data, diffs, drill, glossary, settings, state, tables, ui
from explorer import format as fmt
from explorer.pages import end_page, show_title
from scoring.analysis.diff import RULE
from scoring.analysis.explain import component_weights

title_slot = st.empty()  # the title follows the mode, chosen just below it
VERSUS_FOR = "compare_versus_for"  # the agent A that agent B was chosen against
DIFF_AGENT = "diff_agent"  # the two-datasets view's agent in its link (state.PAGE_PARAMS: the page reads it itself)
DIFF_AGENT_SEEN = "diff_agent_link_seen"  # the parameter's value last read (a link's is read once)
MODES = {"agents": "Two agents (one dataset)", "datasets": "Two datasets (baseline vs new)"}
mode = st.radio("Compare", list(MODES), format_func=MODES.__getitem__, horizontal=True,
                label_visibility="collapsed", **state.bound("compare", "compare_mode", list(MODES)))
with title_slot:
    show_title("compare", mode)


def bootstrap_settings() -> tuple[int, int]:
    """The bootstrap's replicates and seed (both modes, the same state as the Leaderboard's intervals)."""
    with st.expander("Bootstrap of the difference: replicates and seed"):
        left, right, _ = st.columns([1, 1, 2])
        replicates = int(left.number_input("Bootstrap replicates", 100, 5000, step=100,
                                           help=glossary.tooltip("bootstrap", "replicates"),
                                           **state.bound("replicates", "compare_replicates")))
        seed = int(right.number_input("Seed", 0, 2**31 - 1, step=1, help=glossary.tooltip("seed"),
                                      **state.bound("seed", "compare_seed")))
    return replicates, seed


def side_caption(side: diffs.Side, result: data.Scored | data.Refused) -> None:
    """What one dataset is (its source, runs and agents), or why it was refused."""
    assert side.dataset is not None
    if isinstance(result, data.Refused):
        error = result.error
        st.error(f"{diffs.TITLES[side.name]}: '{fmt.plain(side.dataset.name)}' was refused: "
                 f"{fmt.counted(error.total, 'problem', 'problems')} found. Nothing was compared; fix the file "
                 "(the sidebar's upload can exclude invalid rows).", icon=":material/block:")
        st.dataframe(error.table(), hide_index=True, width="stretch", placeholder=fmt.DASH)
        return
    info = data.dataset_info_of(side.dataset, result)  # the dataset's one identity, as every other place names it
    st.caption(f"{fmt.plain(side.dataset.name)} · sha256 `{info.sha256[:state.SHA_CHARS]}` · "
               f"{len(result.runs):,} runs · {len(result.report.agents):,} agents")


def pairs_in_force(base: data.Scored, new: data.Scored) -> diffs.Pairs:
    """The renamed agents the view pairs, where both datasets allow them; else none, and a warning saying why."""
    pairs = tuple(state.get("pair"))
    refused = diffs.pairs_refused(base, new, pairs) if pairs else None
    if refused is None:
        return pairs
    st.warning(f"The renamed agents were not paired: {fmt.plain(refused)}. Every agent is compared under its own "
               "id; unpair all below and pair them again.", icon=":material/link_off:")
    return ()


def add_pair() -> None:
    old, new = st.session_state["diff_pair_old"], st.session_state["diff_pair_new"]
    state.put("pair", (*state.get("pair"), (old, new)))


def pairing(base: data.Scored, new: data.Scored, pairs: diffs.Pairs) -> None:
    """Pair agents renamed between the datasets: each baseline agent paired is compared under its new id."""
    held = tuple(state.get("pair"))
    in_base, in_new = ([a.agent_id for a in s.report.agents] for s in (base, new))
    taken_old, taken_new = set(in_new) | {o for o, _ in held}, set(in_base) | {n for _, n in held}
    olds = [a for a in in_base if a not in taken_old]  # in leaderboard order
    news = [a for a in in_new if a not in taken_new]
    if not held and not (olds and news):
        return
    st.subheader("Agents renamed between the datasets")
    st.caption("Some harnesses name the agent after the results file (tau-bench does), so one agent may have "
               "another id in each dataset. Pair a baseline agent with its id in the new dataset: its baseline runs "
               "are compared under the new id (the command line's `diff --pair BASELINE_ID NEW_ID`). Pairing "
               "changes which agents are compared, never how a score is computed; the link carries the pairs.")
    if held:
        st.markdown("\n".join(f"- The baseline's **{fmt.plain(fmt.short(o, 60))}** compared as "
                              f"**{fmt.plain(fmt.short(n, 60))}**"
                              + ("" if (o, n) in pairs else " (not applied)") for o, n in held))
        st.button("Unpair all", key="diff_unpair", on_click=state.put, args=("pair", ()))
    if len(held) >= state.KEY_BY_NAME["pair"].max_items:
        st.caption(f"A link holds at most {len(held)} pairs; the command line's `diff --pair` takes any number.")
    elif olds and news:
        left, right, button = st.columns([2, 2, 1], vertical_alignment="bottom")
        left.selectbox("Baseline agent (only in the baseline)", olds, key="diff_pair_old")
        right.selectbox("Its id in the new dataset (only there)", news, key="diff_pair_new")
        button.button("Pair them", key="diff_pair_add", on_click=add_pair, width="stretch")


def two_datasets() -> None:
    st.caption("This week's runs against last week's: every agent in both datasets compared with itself under the "
               "published policy (the command line's `diff BASELINE NEW`), and an agent renamed between them with "
               "its new id once you pair them. Every change is new minus baseline. The sidebar's dataset is not used "
               "in this mode.")
    deployment = settings.current()
    sides, results = [], []
    for column, name in zip(st.columns(2), diffs.SIDES):
        with column:
            side = diffs.choose(name, deployment)
            result = diffs.scored(side)
            if side.problem:
                st.error(fmt.plain(side.problem), icon=":material/block:")
            elif side.waiting:
                st.info(diffs.waiting_text(side), icon=":material/link:")
            elif result is None:
                st.caption(f"Choose the {name} dataset's file.")
            else:
                side_caption(side, result)
            sides.append(side)
            results.append(result)
    replicates, seed = bootstrap_settings()
    base, new = results
    if not isinstance(base, data.Scored) or not isinstance(new, data.Scored):
        st.info("The comparison appears once both datasets are chosen and scored.", icon=":material/info:")
        return
    pairs = pairs_in_force(base, new)
    d = diffs.compare(sides[0], base, sides[1], new, replicates, seed, pairs)
    if isinstance(d, str):  # a limit stopped its bootstrap: why, and nothing half-done
        st.error(f"No comparison: {fmt.plain(d)}", icon=":material/block:")
        return

    st.subheader("Verdict per agent")
    interval = f"{d.confidence:.0%} paired-bootstrap interval of the change"
    if d.agents:
        ui.table(tables.diff_verdicts(d), {"Baseline": fmt.score, "New": fmt.score, "Change": fmt.change,
                                           "Interval low": fmt.change, "Interval high": fmt.change},
                 key="diff_verdicts",
                 columns={"Change": st.column_config.Column(help="Headline points, new minus baseline"),
                          "Interval low": st.column_config.Column(help=f"The low end of the {interval}"),
                          "Interval high": st.column_config.Column(help=f"The high end of the {interval}")})
    else:
        st.info("No agent is in both datasets. An agent renamed between them (some harnesses, tau-bench among them, "
                "name the agent after the results file) is compared once you pair its two ids below.",
                icon=":material/info:")
    if d.agents:
        st.caption(f"The rule ({replicates:,} replicates, seed {seed}, {d.confidence:.0%} interval). "
                   + fmt.plain(RULE))
    assert sides[0].dataset is not None and sides[1].dataset is not None  # both scored
    if data.dataset_info_of(sides[0].dataset, base).sha256 == data.dataset_info_of(sides[1].dataset, new).sha256:
        st.caption("Both datasets are the same file (the same sha256): every agent is compared with itself, so "
                   "every change is +0.00 unless pairs compare one agent with another.")
    words = [("Only in the baseline", d.only_in_baseline), ("Only in the new dataset", d.only_in_new)]
    st.markdown("\n".join(f"- **{title}** ({len(found):,}): {fmt.plain(', '.join(found)) if found else 'none'}"
                          for title, found in words))
    pairing(base, new, pairs)
    if not d.agents:
        return

    st.subheader("One agent, measure by measure")
    ids = [a.agent_id for a in d.agents]
    linked = st.query_params.get(DIFF_AGENT)  # the link's agent of the comparison (or the page's own, written below)
    if linked is not None and linked != st.session_state.get(DIFF_AGENT_SEEN):
        st.session_state[DIFF_AGENT_SEEN] = linked
        if linked in ids:
            st.session_state["diff_agent"] = linked
        else:
            st.caption(f":material/link_off: The agent the link asked for, {fmt.plain(state.quoted(linked))}, is not "
                       "in both datasets.")
    if "diff_agent" not in st.session_state:  # the agent in focus, else the first whose verdict is a change
        changed = [a.agent_id for a in d.agents if a.verdict != "no real change"]
        st.session_state["diff_agent"] = state.get("agent") if state.get("agent") in ids else (changed or ids)[0]
    # The agent chosen is the focus, and the page's own link parameter: the new dataset's agent is often not the
    # sidebar's, whose agents alone the shared parameter `agent` names (a reviewer's link opened on another agent).
    agent_id = st.selectbox("Agent", ids, key="diff_agent",
                            on_change=lambda: state.put("agent", st.session_state["diff_agent"]))
    st.query_params[DIFF_AGENT] = st.session_state[DIFF_AGENT_SEEN] = agent_id
    a = d.agents[ids.index(agent_id or ids[0])]
    cols = st.columns(4)
    cols[0].metric("Baseline", fmt.score(a.headline.baseline))
    cols[1].metric("New", fmt.score(a.headline.new))
    cols[2].metric("Change", fmt.change(a.headline.change),
                   help=None if a.interval is None else f"{d.confidence:.0%} interval {fmt.change(a.interval.low)} "
                                                        f"to {fmt.change(a.interval.high)}")
    cols[3].metric("Verdict", a.verdict)
    if a.interval is not None:
        st.caption(f"{interval}: {fmt.change(a.interval.low)} to {fmt.change(a.interval.high)} headline points.")
    left, right = st.columns([3, 2])
    with left:
        ui.table(tables.diff_points(a), {"Baseline": fmt.score, "New": fmt.score, "Change": fmt.change},
                 key="diff_points")
    with right:
        ui.table(tables.diff_pass_k(a), {"Baseline": fmt.rate, "New": fmt.rate, "Change": fmt.pp},
                 key="diff_pass_k",
                 columns={"Change": st.column_config.Column("Change (pp)", help="In percentage points")})
    words = [("Newly solved", a.newly_solved), ("Newly failed", a.newly_failed)]
    st.markdown("\n".join(f"- **{title}** ({len(found):,}): {fmt.plain(', '.join(found)) if found else 'none'}"
                          for title, found in words))
    st.caption("Newly solved: a task both datasets have a known terminal outcome on that the new dataset solved at "
               "least once and the baseline never; newly failed: the reverse.")


def two_agents() -> None:
    st.caption("Agent A against agent B: the points each earns per component, the success rate on every task both "
               "attempted, the tasks only one solves, and a bootstrap interval for the difference of their headline "
               "scores. Every difference is A minus B.")
    scored = data.require_scores()
    report = scored.report
    agents = [a.agent_id for a in report.agents]
    if len(agents) < 2:
        st.info("The data has one agent: there is nothing to compare it with.", icon=":material/info:")
        end_page()

    def label(agent_id: str) -> str:
        rank = report.agent(agent_id).rank
        return f"#{rank} {agent_id}" if rank else f"{agent_id} (unranked)"

    def b_chosen() -> None:
        state.put("versus", st.session_state["compare_b"])
        st.session_state[VERSUS_FOR] = st.session_state["compare_a"]

    left, right = st.columns(2)
    drill.focus(agents, "compare_a", default=agents[0])  # A is the agent in focus
    a = left.selectbox("Agent A", agents, key="compare_a", format_func=label)
    drill.set_focus(a, "compare_a")
    others = [x for x in agents if x != a]
    # B is the agent the viewer chose against this A (or a link named), else the agent above A: the one to overtake.
    b = state.get("versus")
    if b not in others or st.session_state.get(VERSUS_FOR, a) != a:
        b = tables.agent_to_overtake(agents, a)
    state.put("versus", b)
    st.session_state[VERSUS_FOR] = a
    if st.session_state.get("compare_b") != b:
        st.session_state["compare_b"] = b
    right.selectbox("Agent B", others, key="compare_b", format_func=label, on_change=b_chosen,
                    help="Opens on the agent above A on the leaderboard (the one A has to overtake)")
    replicates, seed = bootstrap_settings()
    c, stopped = drill.comparison(scored, a, b, replicates, seed)  # stopped: why a limit stopped its bootstrap
    pair = (a, b, replicates, seed)  # what the pair's charts and tables are kept by for every session (shared cache)
    cols = st.columns(3)
    cols[0].metric(f"A: {fmt.plain(a)}", fmt.score(c.score_a))
    cols[1].metric(f"B: {fmt.plain(b)}", fmt.score(c.score_b))
    cols[2].metric("A minus B", fmt.score(c.score_delta),
                   help=None if c.interval is None else f"{c.confidence:.0%} interval {fmt.score(c.interval.low)} to "
                                                        f"{fmt.score(c.interval.high)}")
    st.markdown("\n".join(f"- {fmt.render(fact)}" for fact in c.facts()))
    if stopped is not None:
        st.error(f"No interval: {fmt.plain(stopped)}", icon=":material/block:")
    elif c.interval is None:
        st.info("One of the two has no completed run, so it has no headline score: no difference to bootstrap.",
                icon=":material/info:")
    else:
        st.caption(f"The rule (explorer-defined): a paired bootstrap over tasks, {replicates:,} replicates, "
                   f"seed {seed}. Each replicate draws as many tasks as either agent completed a run on, with "
                   "replacement; both agents keep all their completed runs on each drawn task, both headlines are "
                   "re-scored and subtracted; the interval is the percentile interval of those differences. Pairing "
                   "by task removes what the two share (a hard task is hard for both)."
                   + ("" if c.independent_interval is None else
                      " Resampling each agent's runs independently instead (the Leaderboard's intervals) gives "
                      f"{fmt.score(c.independent_interval.low)} to {fmt.score(c.independent_interval.high)}."))

    st.subheader("Points per component")
    if c.score_a is None and c.score_b is None:
        st.info("Neither agent has a headline score.", icon=":material/info:")
    else:
        left, right = st.columns([3, 2])
        with left:
            maxima = {name: 100 * weight for name, weight in component_weights(report.policy).items()}
            st.plotly_chart(data.figure("compare_components", pair, lambda: charts.compare_components_chart(
                c.components, a, b, maxima)), width="stretch", key="compare_components")
        with right:
            ui.table(data.table_frame("compare_components", pair, lambda: tables.compare_components(c)),
                     {a: fmt.points, b: fmt.points, "Difference": fmt.points},
                     key="compare_components_table")
            st.caption("Each component's points are rounded here; the headline score is rounded once, from their "
                       "exact sum, so the points shown can add up to a hundredth more or less than it.")

    st.subheader("Task by task")
    if c.tasks.empty:
        st.info("The two agents have no task in common with a known outcome.", icon=":material/info:")
    else:
        ordered = c.tasks.sort_values(["difference", "task_id"], ascending=[False, True], kind="stable").reset_index(
            drop=True)
        event = st.plotly_chart(charts.paired_tasks_chart(ordered, a, b), width="stretch", key="paired_tasks",
                                on_select="rerun", selection_mode="points")
        picked = ui.selected_point(event, curve=0, size=len(ordered))
        if picked is None:
            st.caption("Click a bar to open both agents' runs on that task.")
        else:
            task = str(ordered["task_id"].iloc[picked])
            chosen = drill.RunsFilter(agents=(a, b), tasks=(task,))
            drill.choose(chosen)
            drill.runs_link(chosen, f"Open both agents' runs on task {task}")
        words = [("Solved only by A", c.solved_only_by_a), ("Solved only by B", c.solved_only_by_b),
                 ("Attempted only by A", c.tasks_only_a), ("Attempted only by B", c.tasks_only_b)]
        st.markdown("\n".join(f"- **{name}** ({len(found):,}): {fmt.plain(', '.join(found)) if found else 'none'}"
                              for name, found in words))
        st.caption("Solved: at least one successful run among the terminal runs with a known outcome; attempted: at "
                   "least one such run.")
        ui.table(data.table_frame("compare_tasks", pair, lambda: tables.compare_tasks(c)),
                 {"Success rate A": fmt.rate, "Success rate B": fmt.rate, "Difference": fmt.pp}, key="compare_tasks",
                 columns={"Difference": st.column_config.Column(
                     "Difference (pp)", help="Success rate A minus success rate B, in percentage points")})


if mode == "datasets":
    two_datasets()
else:
    if DIFF_AGENT in st.query_params:  # the two-datasets view's own parameter: not this view's
        del st.query_params[DIFF_AGENT]
    two_agents()
