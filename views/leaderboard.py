import streamlit as st

from explorer import badges, charts, data, drill, glossary, state, tables, ui
from explorer import format as fmt
from scoring import CANONICAL_POLICY, downloads
from scoring.methodology import execution_formula

st.title("Leaderboard")
st.caption(f"The canonical headline composite (0–100): {CANONICAL_POLICY.success_weight:.0%} success rate + "
           f"{CANONICAL_POLICY.execution_weight:.0%} execution (latency and consistency) + "
           f"{CANONICAL_POLICY.cost_weight:.0%} cost, over all completed runs. Open *Headline composite* for why "
           "each score is what it is.")

AGENT_COLUMN_PX = 250  # wide enough for a 30-character agent id

scored = data.require_scores()
report, runs = scored.report, scored.runs

cols = st.columns([1, 1, 1, 2])
cols[0].metric("Runs", fmt.count(len(runs)))
cols[1].metric("Agents", fmt.count(len(report.agents)))
cols[2].metric("Tasks", fmt.count(runs["task_id"].nunique()))
cols[3].markdown(f"Policy version\n\n`{report.policy.version}`")  # a metric would cut the version short
if scored.imported is not None:
    data.show_import_report(scored.imported)
if scored.loaded.excluded_rows:
    st.warning(f"{scored.loaded.excluded_rows:,} invalid row(s) of {scored.loaded.rows_read:,} were excluded "
               "on request; these scores are computed without them.", icon=":material/warning:")

show_intervals = st.toggle("Show bootstrap 95% intervals and tie groups",
                           **state.bound("intervals", "leaderboard_intervals"),
                           help="Is the gap between neighbours real? Agents in one tie group are not clearly "
                                "separated by these data. The canonical scores do not change.")
board = tables.leaderboard(report)
iv = None
if show_intervals:
    replicates, seed = state.get("replicates"), state.get("seed")
    iv = data.intervals(scored, replicates, seed)
    board = tables.with_intervals(board, iv)
selected = ui.table(
    board,
    # One scale per kind of measure: the 0–100 score; every 0–1 factor as a percentage; latency and cost in units.
    {"Score": fmt.score, "Score low": fmt.score, "Score high": fmt.score, "Success rate": fmt.pct2,
     "Execution": fmt.pct2, "Avg latency (ms)": fmt.ms, "Consistency": fmt.pct2, "Cost score": fmt.pct2,
     "Avg cost (USD)": fmt.usd},
    key="leaderboard", select="single-row",
    columns={"Rank": st.column_config.Column(pinned=True),
             "Agent": st.column_config.TextColumn(pinned=True, width=AGENT_COLUMN_PX,
                                                  help="The agent's id (the column stays in view when scrolling)"),
             "Score": st.column_config.Column(help="Headline composite, 0–100, two decimals"),
             "Execution": st.column_config.Column(help=f"{execution_formula(report.policy)}; a 0–1 factor shown "
                                                       "as a percentage"),
             "Consistency": st.column_config.Column(help="clamp(1 − pstdev ÷ mean, 0, 1) of the latencies; a 0–1 "
                                                         "factor shown as a percentage. " + glossary.explain("pstdev")),
             "Cost score": st.column_config.Column(help="The average cost through the cost anchors; a 0–1 factor "
                                                        "shown as a percentage"),
             "Flags": st.column_config.TextColumn(width="medium", help="Why a score is 0, neutral or missing; "
                                                                       "see below the table"),
             **({"Tie group": st.column_config.Column(help=glossary.explain("tie group"))} if iv is not None else {})},
)
st.caption("Flags: **zero-success floor** — completed runs but none successful, so the score is 0; "
           f"**neutral consistency** — fewer than {report.policy.consistency_min_latencies} recorded latencies, "
           f"consistency {report.policy.neutral_consistency:g} (explorer-defined); "
           "**unranked** — no completed run; **no latency/cost recorded** — that score is 0. "
           "Empty cells (—) are undefined values. Click a column header to sort. **Select a row** (the box at its "
           "left) to see where that agent's points went and open its runs.")

if selected:
    agent_id = str(board["Agent"].iloc[selected[0]])
    agent = report.agent(agent_id)
    account = drill.accounts(scored)[agent_id]
    with st.container(border=True, key="leaderboard_selection"):
        st.subheader(f"#{agent.rank} {fmt.plain(agent_id)}: {fmt.score(agent.headline.score)}" if agent.rank
                     else f"{fmt.plain(agent_id)}: unranked")
        words = account.facts()[:2]
        if agent.headline.ranked:
            words += drill.agent_costliest(scored, agent_id).facts()
            ahead = drill.explanation(scored, agent_id).overtake
            if ahead is not None:
                words += ahead.facts()[:1] + drill.agent_fixes(scored, agent_id).facts()[:1]
        st.markdown("\n".join(f"- {fmt.render(fact)}" for fact in words))
        links = st.columns(3)
        with links[0]:
            drill.runs_link(drill.RunsFilter(agents=(agent_id,)), f"Open its {account.total_runs:,} runs")
        with links[1]:
            worst = drill.agent_costliest(scored, agent_id).tasks if agent.headline.ranked else ()
            if worst:
                drill.runs_link(drill.RunsFilter(agents=(agent_id,), tasks=worst[:1]),
                                f"Open the runs of its costliest task, {worst[0]}")
        with links[2]:
            data.page_link("headline", "Why this score, and what to fix first", ":material/calculate:")
        drill.choose(drill.RunsFilter(agents=(agent_id,)))

st.subheader("Which runs each measure reads")
accounts = drill.accounts(scored)
counts = tables.accounting_table(report, accounts)
ignored = counts[["Failed", "Timed out", "Other statuses"]].sum()
st.markdown(
    f"The headline reads **every completed run** of an agent and no other (published: \"all completed runs\"). "
    f"Failed and timed-out runs are terminal but never completed, so the headline ignores them; the radar window "
    f"(each agent's latest {report.policy.radar_window} terminal runs) and pass^k (every terminal run with a known "
    f"outcome) read them. Queued, running and cancelled runs are not terminal and enter no measure. Here the "
    f"headline ignores {int(counts['Headline ignores'].sum()):,} of {len(runs):,} runs: "
    f"{int(ignored['Failed']):,} failed, {int(ignored['Timed out']):,} timed out and "
    f"{int(ignored['Other statuses']):,} queued, running or cancelled. A completed run with an unknown outcome "
    "counts as not successful.")
ui.table(counts, key="accounting",
         columns={"Other statuses": st.column_config.Column(help="queued, running or cancelled"),
                  "Headline ignores": st.column_config.Column(help="every run that is not completed"),
                  "Radar window": st.column_config.Column(
                      help=f"the latest {report.policy.radar_window} terminal runs"),
                  "pass^k outcomes": st.column_config.Column(help="terminal runs with a known outcome")})

if iv is not None:  # the intervals are shown
    st.plotly_chart(charts.interval_chart(tables.interval_points(report, iv), floored=tables.floored(report),
                                          theme=ui.chart_theme()), width="stretch", key="leaderboard_interval_chart")
    st.caption(f"**Tie groups** (the colours): {glossary.explain('tie group')} {replicates:,} bootstrap "
               f"replicates of each agent's completed runs (seed {seed}); change them on *Is the difference real?*.")

info = data.dataset_info(scored)
left, right = st.columns(2)
left.download_button("Download the report (JSON)", downloads.report_json(report, info, intervals=iv),
                     file_name=downloads.file_name("report", info, report.policy.version, "json"),
                     mime="application/json", icon=":material/download:", width="stretch")
right.download_button("Download the report (CSV)", downloads.report_csv(report, info, intervals=iv),
                      file_name=downloads.file_name("report", info, report.policy.version, "csv"),
                      mime="text/csv", icon=":material/download:", width="stretch")
st.caption(f"Each file names the dataset ({fmt.plain(info.name)}, sha256 `{info.short_sha}`…), the policy and the "
           "date" + (", and carries the intervals shown" if iv is not None else "") + ".")

badges.badge_row(scored, key="leaderboard")
