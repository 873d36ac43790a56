"""Display tables built from a scoring Report: plain pandas, numeric columns kept numeric for sorting."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from scoring import RADAR_AXES, Report
from scoring.axes import AXIS_LABELS


def leaderboard(report: Report) -> pd.DataFrame:
    """The headline composite table in leaderboard order (SPEC 3)."""
    rows = []
    for a in report.agents:
        h = a.headline
        rows.append({
            "Rank": a.rank,
            "Agent": a.agent_id,
            "Score": h.score,
            "Success rate": h.success_rate,
            "Execution": h.execution_score,
            "Avg latency (ms)": h.avg_latency_ms,
            "Consistency": h.consistency,
            "Cost score": h.cost_score,
            "Avg cost (USD)": h.avg_cost_usd,
            "Completed runs": h.completed_runs,
            "Flags": ", ".join(h.flags),
        })
    frame = pd.DataFrame(rows, columns=["Rank", "Agent", "Score", "Success rate", "Execution",
                                        "Avg latency (ms)", "Consistency", "Cost score", "Avg cost (USD)",
                                        "Completed runs", "Flags"])
    frame["Rank"] = frame["Rank"].astype("Int64")
    for column in ("Score", "Success rate", "Execution", "Avg latency (ms)", "Consistency",
                   "Cost score", "Avg cost (USD)"):
        frame[column] = frame[column].astype("Float64")
    return frame


def with_intervals(board: pd.DataFrame, intervals) -> pd.DataFrame:
    """The leaderboard with each agent's tie group and headline interval beside its score."""
    ivs = [intervals.agents[a] for a in board["Agent"]]
    position = board.columns.get_loc("Score") + 1
    board = board.copy()
    board.insert(position, "Tie group", pd.array([x.tie_group for x in ivs], dtype="Int64"))
    board.insert(position + 1, "Score low", pd.array([None if x.headline is None else x.headline.low for x in ivs],
                                                     dtype="Float64"))
    board.insert(position + 2, "Score high", pd.array([None if x.headline is None else x.headline.high
                                                       for x in ivs], dtype="Float64"))
    return board


def interval_points(report: Report, intervals) -> list[tuple[str, float, float, float, int]]:
    """(agent, score, low, high, tie group) of every ranked agent, in leaderboard order, for the interval chart."""
    out = []
    for a in report.agents:
        iv = intervals.agents[a.agent_id]
        if a.headline.score is not None and iv.headline is not None and iv.tie_group is not None:
            out.append((a.agent_id, a.headline.score, iv.headline.low, iv.headline.high, iv.tie_group))
    return out


def profile_ranking(report: Report, weights: Mapping[str, float]) -> pd.DataFrame:
    """Agents ranked by viewer-weighted profile score beside their unchanged headline score and rank."""
    rows = []
    for a in report.agents:
        profile = a.radar.profile(weights)
        row = {"Agent": a.agent_id, "Profile score": profile.score,
               "Headline score": a.headline.score, "Headline rank": a.rank}
        row.update({AXIS_LABELS[x]: a.radar.axes[x] for x in RADAR_AXES})
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(["Profile score", "Agent"], ascending=[False, True], na_position="last",
                              kind="stable").reset_index(drop=True)
    frame.insert(0, "Profile rank", pd.array(
        [i + 1 if pd.notna(s) else None for i, s in enumerate(frame["Profile score"])], dtype="Int64"))
    frame["Headline rank"] = frame["Headline rank"].astype("Int64")
    for column in ["Profile score", "Headline score"] + [AXIS_LABELS[x] for x in RADAR_AXES]:
        frame[column] = frame[column].astype("Float64")
    return frame


def repeatability_summary(report: Report) -> pd.DataFrame:
    """pass^k per agent for the public levels with qualifying and excluded task counts."""
    levels = report.policy.pass_k_levels
    rows = []
    for a in report.agents:
        r = a.repeatability
        row = {"Agent": a.agent_id, "Qualifying tasks": r.qualifying_tasks, "Excluded tasks": r.excluded_tasks}
        row.update({f"pass^{k}": None if r.pass_k is None else r.pass_k[k] for k in levels})
        rows.append(row)
    frame = pd.DataFrame(rows)
    for k in levels:
        frame[f"pass^{k}"] = frame[f"pass^{k}"].astype("Float64")
    return frame


def task_table(report: Report, agent_id: str) -> pd.DataFrame:
    """One agent's per-task outcomes: n, c, whether the task qualifies and its pass^k values."""
    tasks = report.agent(agent_id).repeatability.tasks
    frame = tasks.drop(columns=["agent_id"]).rename(columns={
        "task_id": "Task", "n": "Outcomes (n)", "c": "Successes (c)", "qualifies": "Qualifies"})
    for k in report.policy.pass_k_levels:
        # A task that does not qualify enters no aggregate: show no value rather than a misleading one.
        frame[f"pass^{k}"] = frame[f"pass^{k}"].astype("Float64").where(frame["Qualifies"])
    return frame
