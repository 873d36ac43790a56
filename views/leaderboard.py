import streamlit as st

from explorer import badges, charts, data, tables, ui
from explorer import format as fmt
from scoring import CANONICAL_POLICY
from scoring.methodology import execution_formula
from scoring.uncertainty import DEFAULT_REPLICATES, DEFAULT_SEED

st.title("Leaderboard")
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
cols[3].metric("Policy version", report.policy.version)
if scored.imported is not None:
    data.show_import_report(scored.imported)
if scored.loaded.excluded_rows:
    st.warning(f"{scored.loaded.excluded_rows:,} invalid row(s) of {scored.loaded.rows_read:,} were excluded "
               "on request; these scores are computed without them.", icon=":material/warning:")

show_intervals = st.toggle("Show bootstrap 95% intervals and tie groups", key="leaderboard_intervals",
                           help="Is the gap between neighbours real? Agents in one tie group are not clearly "
                                "separated by these data. The canonical scores do not change.")
board = tables.leaderboard(report)
if show_intervals:
    iv = data.intervals(scored, DEFAULT_REPLICATES, DEFAULT_SEED)
    board = tables.with_intervals(board, iv)
ui.table(
    board,
    {"Score": fmt.score, "Score low": fmt.score, "Score high": fmt.score, "Success rate": fmt.pct2,
     "Execution": fmt.factor,
     "Avg latency (ms)": fmt.ms, "Consistency": fmt.factor, "Cost score": fmt.factor, "Avg cost (USD)": fmt.usd},
    key="leaderboard",
    columns={"Score": st.column_config.Column(help="Headline composite, 0–100, two decimals"),
             "Execution": st.column_config.Column(help=execution_formula(report.policy)),
             "Flags": st.column_config.TextColumn(width="medium")},
)
st.caption("Flags: **zero-success floor** — completed runs but none successful, so the score is 0; "
           f"**neutral consistency** — fewer than {report.policy.consistency_min_latencies} recorded latencies, "
           f"consistency {report.policy.neutral_consistency:g} (explorer-defined); "
           "**unranked** — no completed run; **no latency/cost recorded** — that score is 0. "
           "Empty cells (—) are undefined values. Click a column header to sort.")

if show_intervals:
    st.plotly_chart(charts.interval_chart(tables.interval_points(report, iv)), width="stretch",
                    key="leaderboard_interval_chart")
    st.caption(f"{DEFAULT_REPLICATES:,} bootstrap replicates of each agent's completed runs (seed {DEFAULT_SEED}); "
               "change them on *Is the difference real?*.")

left, right = st.columns(2)
left.download_button("Download the report (JSON)", report.to_json_text(), file_name="scoring-report.json",
                     mime="application/json", icon=":material/download:", width="stretch")
right.download_button("Download the report (CSV)", report.to_csv_text(), file_name="scoring-report.csv",
                      mime="text/csv", icon=":material/download:", width="stretch")

badges.badge_row(scored, key="leaderboard")
