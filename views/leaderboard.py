import streamlit as st

from explorer import badges, charts, data, drill, glossary, pages, state, tables, ui
from explorer import format as fmt
from explorer.pages import show_title
from scoring import CANONICAL_POLICY
from scoring.analysis.uncertainty import Intervals
from scoring.contract.schema import COMPLETED
from scoring.outputs import downloads
from scoring.outputs.methodology import execution_formula

with st.container(border=True, key="first_screen"):  # the first screen of a meeting: what this is, two ways in
    st.markdown(f"**{pages.APP_NAME}** · {pages.APP_SENTENCE}")
    builder, reviewer = st.columns(2)
    with builder:
        data.page_link("headline", "I build an agent: why is my score what it is?", ":material/calculate:")
    with reviewer:
        data.page_link("methodology", "I review the methodology", ":material/menu_book:")

show_title("leaderboard")
st.caption(f"The canonical headline composite (0–100): {CANONICAL_POLICY.success_weight:.0%} success rate + "
           f"{CANONICAL_POLICY.execution_weight:.0%} execution (latency and consistency) + "
           f"{CANONICAL_POLICY.cost_weight:.0%} cost, over all completed runs. Open *Headline composite* for why "
           "each score is what it is.")

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
    excluded = scored.loaded.excluded_rows
    st.warning(f"{fmt.counted(excluded, 'invalid row', 'invalid rows')} of {scored.loaded.rows_read:,} "
               f"{'was' if excluded == 1 else 'were'} excluded on request; these scores are computed without "
               f"{'it' if excluded == 1 else 'them'}.", icon=":material/warning:")

show_intervals = st.toggle("Show bootstrap 95% intervals and tie groups",
                           **state.bound("intervals", "leaderboard_intervals"),
                           help="Is the gap between neighbours real? Agents in one tie group are not clearly "
                                "separated by these data. The canonical scores do not change.")
# Every table of this page depends on the dataset (and the bootstrap settings) only: built once for every session
# in the shared bounded cache (explorer.data.table_frame), never on a rerun.
board = data.table_frame("leaderboard", None, lambda: tables.leaderboard(report))
iv = None
if show_intervals:
    replicates, seed = state.get("replicates"), state.get("seed")
    iv = data.intervals(scored, replicates, seed)  # None where a limit stopped the bootstrap (the reason is shown)
if iv is not None:
    shown_iv: Intervals = iv
    board = data.table_frame("leaderboard_intervals", (replicates, seed),
                             lambda: tables.with_intervals(tables.leaderboard(report), shown_iv))
dataset = data.current_dataset()  # the rows are this dataset's agents: a row ticked in another ticks none here
selected = ui.table(
    board,
    # One spelling per quantity (scoring.contract.format): the 0–100 score; the rate as a percentage; every 0–1 factor
    # with four decimals; latency and cost in their units.
    {"Score": fmt.score, "Score low": fmt.score, "Score high": fmt.score, "Success rate": fmt.rate,
     "Execution": fmt.factor, "Avg latency (ms)": fmt.ms, "Consistency": fmt.factor, "Cost score": fmt.factor,
     "Avg cost (USD)": fmt.usd},
    key="leaderboard", select="single-row", fresh_for=dataset,
    # The agent in focus (a link's, or one chosen on another page) is the row selected when the table is first drawn.
    selected=[i for i, a in enumerate(board["Agent"]) if a == drill.focus_agent()][:1],
    # Rank, agent and score are pinned (explorer.ui.table); short headers, so that at 1400 px every component of
    # the formula is in view without scrolling sideways.
    columns={"Agent": st.column_config.TextColumn(width=ui.PINNED_TEXT_PX,
                                                  help="The agent's id (the column stays in view when scrolling)"),
             "Score": st.column_config.Column(help="Headline composite, 0–100, two decimals"),
             "Success rate": st.column_config.Column("Success", help="Successful completed runs ÷ completed runs"),
             "Avg latency (ms)": st.column_config.Column("Avg latency", help="Average latency of completed runs"),
             "Avg cost (USD)": st.column_config.Column("Avg cost", help="Average cost per completed run"),
             "Completed runs": st.column_config.Column(
                 COMPLETED.capitalize(), help="Completed runs: the runs the headline reads (the Runs above count "
                                              "every run)"),
             "Execution": st.column_config.Column(help=f"{execution_formula(report.policy)}; a 0–1 factor"),
             "Consistency": st.column_config.Column(help="clamp(1 − pstdev ÷ mean, 0, 1) of the latencies; a 0–1 "
                                                         "factor. " + glossary.explain("pstdev")),
             "Cost score": st.column_config.Column(help="The average cost through the cost anchors; a 0–1 "
                                                        "factor"),
             "Flags": st.column_config.TextColumn(width=140, help="Why a score is 0, neutral or missing; "
                                                                  "see below the table"),
             **({"Tie group": st.column_config.Column(help=glossary.explain("tie group"))} if iv is not None else {})},
)
drill.keep_table_focus("leaderboard", dataset, board["Agent"].tolist(), selected)
if iv is not None:  # a tie group alone hides how wide an interval is (newcomer's 0.00-84.23 in group 4)
    covered = tables.coverage_caption(tables.interval_coverage(report, iv))
    if covered:
        st.caption(covered)
st.caption("Flags: **no outcome recorded** — no completed run has a known outcome, so its 0 measures nothing; "
           "**zero-success floor** — completed runs but none successful, so the score is 0; "
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
            drill.runs_link(drill.RunsFilter(agents=(agent_id,)),
                            f"Open its {fmt.counted(account.total_runs, 'run', 'runs')}")
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
counts = data.table_frame("accounting", None, lambda: tables.accounting_table(report, accounts))
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

notes = data.table_frame("notes", None, lambda: tables.notes_table(report))
if not notes.empty:
    st.subheader("What the numbers leave out, in words")
    said = notes.head(tables.NOTES_SHOWN)
    st.markdown("\n".join(f"- **{fmt.plain(r.Agent)}**: {fmt.plain(r.Note)}" for r in said.itertuples()))
    if len(notes) > len(said):
        more = notes["Agent"].iloc[len(said):].nunique()
        st.caption(f"The first {len(said):,} of {len(notes):,} notes are shown (at most {tables.NOTES_SHOWN}, "
                   f"explorer-defined, in leaderboard order); the rest, for {fmt.count(more)} agent(s), are on each "
                   "agent's Headline composite page, under its scores.")
harness = data.table_frame("harness", None, lambda: tables.harness_table(report))
if not harness.empty:
    st.subheader("Beside it: each harness's own reading")
    st.caption("The numbers the harness itself computes from the same file, by its published rules (tau2-bench, "
               "tau-bench, Inspect, terminal-bench). A reading for comparison: the canonical score never changes.")
    ui.table(harness, {c: (fmt.usd if "cost" in c else fmt.score if c == "Our score" else fmt.pct2)
                       for c in harness.columns if c not in ("Agent", "Harness", "Harness runs", "Our completed runs")},
             key="harness_readings")
    levels = tables.harness_levels(report)
    st.caption("Why the two differ: the published rule reads completed runs only, where a harness may count every run "
               "it evaluated (compare *Our completed runs* with *Harness runs*): tau2-bench and tau-bench count a run "
               "that ended in an error as a failure (reward 0; tau2-bench leaves out only infrastructure errors), "
               "where the published rule leaves that failed run out of the headline, and out of pass^k as an "
               "unknown outcome: a task of 3 successes in 4 runs, one an error, is 3 of 3 here. Inspect reduces "
               "each sample's epochs to one score (its epoch reducer) and counts partial credit at its value, so "
               "its accuracy is a mean over samples, not runs. Several files of one agent are pooled by the explorer "
               "(explorer-defined): a harness reads one file at a time. A success rate counts runs, where a harness's "
               "pass^1 averages its tasks (tau2-bench, tau-bench), so the two part where tasks have unequal run "
               "counts. A dash: the harness computes no such number (tau2-bench no pass^k above its smallest trial "
               "count; Inspect and terminal-bench no pass^k: terminal-bench prints pass@k instead, at least one "
               "success in k attempts, in the words above; tau-bench, Inspect and terminal-bench no average cost)."
               + (f" pass^k is shown up to k = {tables.HARNESS_LEVELS} of the {len(levels)} levels reported; "
                  "every level is in the words above." if len(levels) > tables.HARNESS_LEVELS else ""))
st.subheader("What the headline does not see (a reading, for reviewers)")
st.caption("Per agent: the share of terminal runs and of spend the published rule (completed runs only) leaves "
           "out (failed and timed-out runs: the table above's *Headline ignores* also counts queued, running and "
           "cancelled runs, which no measure reads), and the headline and rank if failed and timed-out runs counted "
           "as unsuccessful completed runs. "
           "A reading, like the sandbox: the canonical score and rank never change.")
unseen = data.table_frame("unseen", None, lambda: tables.unseen_table(runs, report))
ui.table(unseen, {"Share of runs left out": fmt.pct, "Share of spend left out": fmt.pct,
                  "Cost left out (USD)": fmt.usd, "Headline score": fmt.score,
                  "Score if counted as failures": fmt.score}, key="unseen")
depends = unseen.loc[unseen["Rank depends on it"], "Agent"].tolist()
st.caption(("Rank depends on it: " + ", ".join(fmt.plain(a) for a in depends) + ".") if depends
           else "No agent's rank depends on it.")

if iv is not None:  # the intervals are shown
    theme = ui.chart_theme()
    shown: Intervals = iv
    st.plotly_chart(data.figure("interval_chart", (replicates, seed, theme.name), lambda: charts.interval_chart(
        tables.interval_points(report, shown)[:charts.CHART_MAX_AGENTS], floored=tables.floored(report), theme=theme)),
        width="stretch", key="leaderboard_interval_chart")
    ui.say_agents_drawn(len(report.agents), "the leaderboard above lists every agent")
    st.caption(f"**Tie groups** (the colours): {glossary.explain('tie group')} {replicates:,} bootstrap "
               f"replicates of each agent's completed runs (seed {seed}); change them on *Is the difference real?*.")

info = data.dataset_info(scored)
left, right = st.columns(2)
# The files are made when clicked (their date is the click's), not on every rerun of the page. A click reruns
# nothing: a rerun gives each deferred button a new file id, and a click on the other button before the browser
# drew the rerun asked for the old one and got no file.
left.download_button("Download the report (JSON)", lambda: downloads.report_json(report, info, intervals=iv),
                     file_name=downloads.file_name("report", info, report.policy.version, "json"),
                     mime="application/json", icon=":material/download:", width="stretch", on_click="ignore",
                     key="report_json")
right.download_button("Download the report (CSV)", lambda: downloads.report_csv(report, info, intervals=iv),
                      file_name=downloads.file_name("report", info, report.policy.version, "csv"),
                      mime="text/csv", icon=":material/download:", width="stretch", on_click="ignore",
                      key="report_csv")
st.caption(f"Each file names the dataset ({fmt.plain(info.name)}, sha256 `{info.short_sha}`…), the policy and the "
           "date" + (", and carries the intervals shown" if iv is not None else "") + ".")

badges.badge_row(scored, key="leaderboard")
