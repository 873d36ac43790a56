"""Display tables built from a scoring Report: plain pandas, numeric columns kept numeric for sorting."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from scoring import RADAR_AXES, Report
from scoring.analysis.explain import note
from scoring.analysis.fixes import KIND_WORDS
from scoring.measures.axes import AXIS_LABELS
from scoring.measures.report import unseen_reading
from scoring.outputs.methodology import anchor_rows

from . import format as fmt

if TYPE_CHECKING:
    from scoring import Anchors, Policy
    from scoring.analysis.diff import AgentDiff, Diff
    from scoring.analysis.drilldown import Comparison
    from scoring.analysis.explain import Influence, Overtake, PointsLost
    from scoring.analysis.fixes import Fixes
    from scoring.analysis.uncertainty import Intervals


def leaderboard(report: Report) -> pd.DataFrame:
    """The headline composite table in leaderboard order (SPEC 3)."""
    rows = []
    for a in report.agents:
        h = a.headline
        rows.append({
            "Rank": a.rank,
            "Agent": a.agent_id,
            "Score": h.score,
            "Flags": ", ".join(h.flags),
            "Success rate": h.success_rate,
            "Execution": h.execution_score,
            "Avg latency (ms)": h.avg_latency_ms,
            "Consistency": h.consistency,
            "Cost score": h.cost_score,
            "Avg cost (USD)": h.avg_cost_usd,
            "Completed runs": h.completed_runs,
        })
    # Flags beside the score: a 0.00 or an unranked row says why in the columns that stay in view.
    frame = pd.DataFrame(rows, columns=["Rank", "Agent", "Score", "Flags", "Success rate", "Execution",
                                        "Avg latency (ms)", "Consistency", "Cost score", "Avg cost (USD)",
                                        "Completed runs"])
    frame["Rank"] = frame["Rank"].astype("Int64")
    for column in ("Score", "Success rate", "Execution", "Avg latency (ms)", "Consistency",
                   "Cost score", "Avg cost (USD)"):
        frame[column] = frame[column].astype("Float64")
    return frame


def with_intervals(board: pd.DataFrame, intervals: Intervals) -> pd.DataFrame:
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


def interval_points(report: Report, intervals: Intervals) -> list[tuple[str, float, float, float, int]]:
    """(agent, score, low, high, tie group) of every ranked agent, in leaderboard order, for the interval chart."""
    out = []
    for a in report.agents:
        iv = intervals.agents[a.agent_id]
        if a.headline.score is not None and iv.headline is not None and iv.tie_group is not None:
            out.append((a.agent_id, a.headline.score, iv.headline.low, iv.headline.high, iv.tie_group))
    return out


def interval_coverage(report: Report, intervals: Intervals) -> dict[str, tuple[str, str]]:
    """Per ranked agent with an interval: the ranks whose scores its interval covers ("3–4", or "3" alone), and,
    where those ranks reach past its tie group, the same in words (else "")."""
    from scoring.analysis.uncertainty import covered_ranks

    shown, rows = [], []
    for a in report.agents:
        x = intervals.agents[a.agent_id]
        if a.headline.score is not None and x.headline is not None and x.tie_group is not None:
            shown.append(a)
            rows.append((a.agent_id, a.headline.score, x.headline, x.tie_group))
    coverage = covered_ranks(rows)
    out = {}
    for agent, _, interval, group in rows:
        covered = coverage[agent]
        first, last = shown[covered.first - 1].rank, shown[covered.last - 1].rank
        ranks = f"{first}" if first == last else f"{first}–{last}"
        words = "" if not covered.other_groups else (
            f"{agent} (tie group {group}): its interval {fmt.score(interval.low)}–{fmt.score(interval.high)} covers "
            f"the scores of ranks {ranks}, in tie groups {', '.join(map(str, sorted({group, *covered.other_groups})))}")
        out[agent] = (ranks, words)
    return out


def coverage_caption(coverage: Mapping[str, tuple[str, str]]) -> str | None:
    """The words under a table of tie groups (the Leaderboard's, the Uncertainty page's) for the intervals that cover
    another group's scores (:func:`interval_coverage`); None where none does."""
    past = [words for _, words in coverage.values() if words]
    return COVERAGE_LEAD + "; ".join(fmt.plain(w) for w in past) + "." if past else None


COVERAGE_LEAD = ("A tie group is where the walk puts an agent, not a place these data settle. Intervals that cover "
                 "the scores of other groups: ")


def profile_ranking(report: Report, weights: Mapping[str, float]) -> pd.DataFrame:
    """Agents ranked by viewer-weighted profile score beside their unchanged headline score and rank.

    Ranked by profile score (highest first, agents without one last), then agent id; built column by column in one
    frame (a slider move builds one for its new weights: no per-column conversions)."""
    def has(score: float | None) -> bool:
        return score is not None and not math.isnan(score)

    scored = [(a, a.radar.profile(weights).score) for a in report.agents]
    ranked = sorted(scored, key=lambda e: (not has(e[1]), -(e[1] or 0.0) if has(e[1]) else 0.0, e[0].agent_id))

    def floats(values: list[float | None]) -> pd.api.extensions.ExtensionArray:
        return pd.array(values, dtype="Float64")

    columns: dict[str, Any] = {
        "Profile rank": pd.array([i + 1 if has(s) else None for i, (_, s) in enumerate(ranked)], dtype="Int64"),
        "Agent": [a.agent_id for a, _ in ranked],
        "Profile score": floats([s for _, s in ranked]),
        # The headline's flags beside the profile score: a zero-success agent can rank high on a profile (fast,
        # cheap, few steps) while its headline is 0; its row says so where the eye is.
        "Headline flags": [", ".join(a.headline.flags) for a, _ in ranked],
        "Headline score": floats([a.headline.score for a, _ in ranked]),
        "Headline rank": pd.array([a.rank for a, _ in ranked], dtype="Int64"),
    }
    columns.update({AXIS_LABELS[x]: floats([a.radar.axes[x] for a, _ in ranked]) for x in RADAR_AXES})
    return pd.DataFrame(columns)


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


# --------------------------------------------------------------------------- issue 15: runs, accounting, explanations

RUNS_COLUMNS = {"run_id": "Run", "agent_id": "Agent", "task_id": "Task", "status": "Status", "outcome": "Outcome",
                "latency_ms": "Latency (ms)", "cost_usd": "Cost (USD)", "steps": "Steps",
                "finished_at": "Finished (UTC)", "in_headline": "Headline", "in_radar_window": "Radar window",
                "in_pass_k": "pass^k", "points_if_removed": "Points if removed",
                "score_if_removed": "Score if removed"}
# The explorer-defined pass-through columns (scoring.contract.schema.PASS_THROUGH_COLUMNS): shown, never scored.
PASS_THROUGH_LABELS = {"trial": "Trial", "epoch": "Epoch", "seed": "Seed", "input_tokens": "Input tokens",
                       "output_tokens": "Output tokens"}
RUNS_COLUMNS.update(PASS_THROUGH_LABELS)
PASS_THROUGH_HELP = ("Kept as the harness recorded it (explorer-defined pass-through column): shown and downloaded, "
                     "never read by a score")


def pass_through_formats() -> dict[str, Callable[[object], str]]:
    """Cell formats of the pass-through columns: ids as plain digits, token counts with separators."""
    def plain(v: object) -> str:  # a whole number, however the table typed it (1, 1.0, "1")
        return f"{float(str(v)):.0f}"

    def counted(v: object) -> str:
        return f"{float(str(v)):,.0f}"

    return {"Trial": plain, "Epoch": plain, "Seed": plain, "Input tokens": counted, "Output tokens": counted}


def runs_table(view: pd.DataFrame) -> pd.DataFrame:
    """A runs view (``scoring.analysis.drilldown.runs_view``, optionally with influence columns) for display."""
    success = view["success"].astype("boolean")
    outcome = pd.Series(np.where(success.isna(), "unknown", np.where(success.fillna(False), "success", "failure")),
                        index=view.index, dtype=object)
    finished = pd.Series(view["finished_at"].dt.strftime("%Y-%m-%d %H:%M:%S"), dtype=object)
    frame = pd.DataFrame({
        "run_id": view["run_id"].astype(str).to_numpy(dtype=object),
        "agent_id": view["agent_id"].astype(str).to_numpy(dtype=object),
        "task_id": view["task_id"].astype(str).to_numpy(dtype=object),
        "status": view["status"].astype(str).to_numpy(dtype=object),
        "outcome": outcome.to_numpy(dtype=object),
        "latency_ms": view["latency_ms"].astype("Float64").to_numpy(),
        "cost_usd": view["cost_usd"].astype("Float64").to_numpy(),
        "steps": view["steps"].astype("Float64").to_numpy() if "steps" in view else pd.NA,
        "finished_at": finished.where(view["finished_at"].notna(), None).to_numpy(dtype=object),
        "in_headline": view["in_headline"].to_numpy(dtype=bool),
        "in_radar_window": view["in_radar_window"].to_numpy(dtype=bool),
        "in_pass_k": view["in_pass_k"].to_numpy(dtype=bool),
    })
    at = frame.columns.get_loc("finished_at") + 1
    for column in PASS_THROUGH_LABELS:  # those the data has, after the SPEC 1 columns
        if column in view:
            frame.insert(at, column, view[column].astype("Int64").to_numpy())
            at += 1
    at = frame.columns.get_loc("outcome") + 1  # the influence, when given, next to the outcome
    for column in ("points_if_removed", "score_if_removed"):
        if column in view:
            frame.insert(at, column, view[column].astype("Float64").to_numpy())
            at += 1
    return frame.rename(columns=RUNS_COLUMNS)


def accounting_table(report: Report, accounts: Mapping) -> pd.DataFrame:
    """Every agent's runs by status and outcome, and which runs each measure reads (leaderboard order)."""
    rows = []
    for a in report.agents:
        x = accounts[a.agent_id]
        s = x.statuses
        rows.append({"Agent": a.agent_id, "Runs": x.total_runs, "Completed": s["completed"], "Failed": s["failed"],
                     "Timed out": s["timeout"], "Other statuses": s["queued"] + s["running"] + s["cancelled"],
                     "Unknown outcome": x.unknown_outcomes, "Headline reads": x.headline_runs,
                     "Headline ignores": x.total_runs - x.headline_runs, "Radar window": x.radar_window_runs,
                     "pass^k outcomes": x.pass_k_outcomes})
    return pd.DataFrame(rows)


COMPONENT_LABELS = {"success": "Success rate", "latency": "Latency score", "consistency": "Consistency",
                    "cost": "Cost score"}
# What the overtake table's Now and Needed read for each component: the input the component is made from (the
# average latency in ms, not the latency score a newcomer read beside "7,020 ms").
OVERTAKE_LABELS = {"success": "Success rate", "latency": "Average latency", "consistency": "Consistency",
                   "cost": "Average cost"}


def points_table(points: PointsLost) -> pd.DataFrame:
    """Per component the points earned, the maximum and the points lost; then the floor, rounding and score."""
    rows = [{"Component": COMPONENT_LABELS[c.name], "Weight": c.weight, "Factor": c.factor, "Earned": c.earned,
             "Max": c.max, "Lost": c.lost} for c in points.components]
    rows.append({"Component": "Weighted score", "Weight": None, "Factor": None, "Earned": points.weighted_score,
                 "Max": 100.0, "Lost": 100.0 - points.weighted_score})
    if points.zero_success_floor:
        rows.append({"Component": "Zero-success floor", "Weight": None, "Factor": None, "Earned": points.floor,
                     "Max": None, "Lost": -points.floor})
    else:
        rows.append({"Component": "Rounding", "Weight": None, "Factor": None, "Earned": points.rounding,
                     "Max": None, "Lost": -points.rounding})
    rows.append({"Component": "Headline score", "Weight": None, "Factor": None, "Earned": points.score, "Max": 100.0,
                 "Lost": points.total_lost})
    frame = pd.DataFrame(rows)
    for column in ("Weight", "Factor", "Earned", "Max", "Lost"):
        frame[column] = frame[column].astype("Float64")
    return frame


def overtake_table(ahead: Overtake) -> pd.DataFrame:
    """Per component alone: can it overtake, the value now and the value needed, and how, in words."""
    def value(component: str, v: float | None) -> str:
        if v is None:
            return fmt.DASH
        return {"success": fmt.pct2, "latency": fmt.ms, "consistency": fmt.factor, "cost": fmt.usd}[component](v)

    return pd.DataFrame([{"Component": OVERTAKE_LABELS[c.component], "Reachable alone": c.reachable,
                          "Now": value(c.component, c.value_now), "Needed": value(c.component, c.value_needed),
                          "How": str(c.fact)} for c in ahead.changes])


def influence_tasks_table(found: Influence, policy: Policy) -> pd.DataFrame:
    """Each task of an agent: its runs, the points its removal gains, the score after, and why it is special."""
    t = found.tasks
    return pd.DataFrame({
        "Task": t["task_id"].astype(str).to_numpy(dtype=object),
        "Runs": t["runs"].to_numpy(), "Completed": t["completed"].to_numpy(),
        "Points if removed": t["points_if_removed"].astype("Float64").to_numpy(),
        "Score if removed": t["score_if_removed"].astype("Float64").to_numpy(),
        "Note": [None if (n := note(row, policy)) is None else str(n) for _, row in t.iterrows()],
    })


def influence_runs_table(frame: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """Runs of an agent (rows of ``Influence.runs``) with the points their removal gains."""
    success = frame["success"]
    return pd.DataFrame({
        "Run": frame["run_id"].astype(str).to_numpy(dtype=object),
        "Task": frame["task_id"].astype(str).to_numpy(dtype=object),
        "Status": frame["status"].astype(str).to_numpy(dtype=object),
        "Outcome": ["unknown" if v is None or v is pd.NA else "success" if v else "failure" for v in success],
        "Points if removed": frame["points_if_removed"].astype("Float64").to_numpy(),
        "Score if removed": frame["score_if_removed"].astype("Float64").to_numpy(),
        "Note": [None if (n := note(row, policy)) is None else str(n) for _, row in frame.iterrows()],
    })


def fixes_table(found: Fixes, rows: int | None = None) -> pd.DataFrame:
    """What fixing each task's runs is worth, what to fix first on top (``scoring.analysis.fixes.Fixes.tasks``)."""
    t = found.tasks if rows is None else found.tasks.head(rows)
    return pd.DataFrame({
        "Task": t["task_id"].astype(str).to_numpy(dtype=object),
        "Fix": [KIND_WORDS[k] for k in t["kind"]],
        "Runs changed": t["runs_changed"].to_numpy(),
        "Score if fixed": t["score_if_fixed"].astype("Float64").to_numpy(),
        "Change": t["score_change"].astype("Float64").to_numpy(),
        "Overtakes": pd.array(t["overtakes"], dtype="boolean"),
    })


def compare_components(comparison: Comparison) -> pd.DataFrame:
    c = comparison.components
    return pd.DataFrame({"Component": [COMPONENT_LABELS[n] for n in c["name"]],
                         comparison.a: c["earned_a"].astype("Float64").to_numpy(),
                         comparison.b: c["earned_b"].astype("Float64").to_numpy(),
                         "Difference": c["difference"].astype("Float64").to_numpy()})


def compare_tasks(comparison: Comparison) -> pd.DataFrame:
    t = comparison.tasks
    return pd.DataFrame({
        "Task": t["task_id"].astype(str).to_numpy(dtype=object),
        "Outcomes A": t["outcomes_a"].to_numpy(), "Successes A": t["successes_a"].to_numpy(),
        "Success rate A": t["success_rate_a"].astype("Float64").to_numpy(),
        "Outcomes B": t["outcomes_b"].to_numpy(), "Successes B": t["successes_b"].to_numpy(),
        "Success rate B": t["success_rate_b"].astype("Float64").to_numpy(),
        "Difference": t["difference"].astype("Float64").to_numpy(),
    })


def diff_verdicts(d: Diff) -> pd.DataFrame:
    """Per agent in both datasets (the new set's leaderboard order): both headlines, the change (new minus
    baseline), the ends of its paired-bootstrap interval and the verdict (``scoring.analysis.diff``)."""
    rows = [{"Agent": a.agent_id, "Baseline": a.headline.baseline, "New": a.headline.new, "Change": a.headline.change,
             "Interval low": None if a.interval is None else a.interval.low,
             "Interval high": None if a.interval is None else a.interval.high, "Verdict": a.verdict}
            for a in d.agents]
    frame = pd.DataFrame(rows, columns=["Agent", "Baseline", "New", "Change", "Interval low", "Interval high",
                                        "Verdict"])
    numbers = ["Baseline", "New", "Change", "Interval low", "Interval high"]
    frame = frame.astype(dict.fromkeys(numbers, "Float64") | {"Agent": object, "Verdict": object})
    if d.pairs:  # a paired agent's row names the baseline agent it was compared with
        was = {new: old for old, new in d.pairs}
        frame.insert(1, "Baseline agent", [was.get(a, a) for a in frame["Agent"]])
    return frame


def diff_points(a: AgentDiff) -> pd.DataFrame:
    """One agent's points per headline component and its radar axes (0-100) in both datasets, and each change."""
    rows = [{"Measure": f"Points: {COMPONENT_LABELS[name].lower()}", "Baseline": c.baseline, "New": c.new,
             "Change": c.change} for name, c in a.components.items()]
    rows += [{"Measure": f"Radar: {AXIS_LABELS[axis].lower()}", "Baseline": c.baseline, "New": c.new,
              "Change": c.change} for axis, c in a.axes.items()]
    frame = pd.DataFrame(rows, columns=["Measure", "Baseline", "New", "Change"])
    return frame.astype({"Measure": object, "Baseline": "Float64", "New": "Float64", "Change": "Float64"})


def diff_pass_k(a: AgentDiff) -> pd.DataFrame:
    """One agent's pass^k levels (0-1 rates) in both datasets, and each change (percentage points)."""
    rows = [{"Level": f"pass^{k}", "Baseline": c.baseline, "New": c.new, "Change": c.change}
            for k, c in a.pass_k.items()]
    frame = pd.DataFrame(rows, columns=["Level", "Baseline", "New", "Change"])
    return frame.astype({"Level": object, "Baseline": "Float64", "New": "Float64", "Change": "Float64"})


def floored(report: Report) -> list[str]:
    """The agents at the zero-success floor (score 0 whatever else they measure)."""
    return [a.agent_id for a in report.agents if a.headline.zero_success_floor]


NOTES_SHOWN = 60  # the Leaderboard's notes in words at most (2,500 agents made 3,700 bullets, 15,000 px)


def notes_table(report: Report) -> pd.DataFrame:
    """Per agent, what a reader must know beside its numbers, in words (``AgentReport.notes``)."""
    rows = [{"Agent": a.agent_id, "Note": note} for a in report.agents for note in a.notes()]
    return pd.DataFrame(rows, columns=["Agent", "Note"])


HARNESS_LEVELS = 5  # pass^k columns of the harness table (explorer-defined; every level is in the notes' words)


def harness_levels(report: Report) -> list[int]:
    """Every pass^k level a harness reports for an agent of ``report``, in order."""
    return sorted({k for a in report.agents if a.harness is not None for k in a.harness.pass_k})


def harness_table(report: Report) -> pd.DataFrame:
    """Our headline beside each imported agent's harness reading (its own rules; never the canonical score): the
    run counts beside the success rates they explain, then the harness's first :data:`HARNESS_LEVELS` pass^k."""
    readings = [a for a in report.agents if a.harness is not None]
    ks = harness_levels(report)[:HARNESS_LEVELS]
    rows = []
    for a in readings:
        r = a.harness
        rows.append({"Agent": a.agent_id, "Harness": r.name, "Our score": a.headline.score,
                     "Our success rate": a.headline.success_rate, "Our completed runs": a.headline.completed_runs,
                     "Harness success rate": r.success_rate, "Harness runs": r.runs,
                     **{f"Harness pass^{k}": r.pass_k.get(k) for k in ks},
                     "Harness avg cost (USD)": r.avg_cost_usd})
    frame = pd.DataFrame(rows)
    for column in frame.columns:
        if column not in ("Agent", "Harness", "Harness runs", "Our completed runs"):
            frame[column] = frame[column].astype("Float64")
    return frame


UNSEEN_LABELS = {"agent_id": "Agent", "terminal_runs": "Terminal runs", "left_out_runs": "Left out",
                 "left_out_share": "Share of runs left out", "left_out_cost_usd": "Cost left out (USD)",
                 "left_out_spend_share": "Share of spend left out", "headline_score": "Headline score",
                 "headline_rank": "Headline rank", "counted_score": "Score if counted as failures",
                 "counted_rank": "Rank if counted", "rank_depends": "Rank depends on it"}


def unseen_table(runs: pd.DataFrame, report: Report) -> pd.DataFrame:
    """:func:`scoring.measures.report.unseen_reading` with display labels (a reading, never the canonical number)."""
    frame = unseen_reading(runs, report).rename(columns=UNSEEN_LABELS)
    for column in ("Share of runs left out", "Cost left out (USD)", "Share of spend left out", "Headline score",
                   "Score if counted as failures"):
        frame[column] = frame[column].astype("Float64")
    # Nothing left out costs nothing and is none of the spend (the JSON's null sum of no runs reads as unknown here).
    nothing = frame["Left out"] == 0
    frame.loc[nothing, ["Cost left out (USD)", "Share of spend left out"]] = 0.0
    return frame


def missing_pass_k_words(report: Report) -> list[tuple[str, str]]:
    """(agent, why its pass^k is null, with its harness's own pass^k beside when it has one)."""
    out = []
    for a in report.agents:
        reason = a.repeatability.missing_reason()
        if reason is None:
            continue
        if a.harness is not None and a.harness.pass_k:
            reason += f"; {a.harness.name} reads " + ", ".join(f"pass^{k} {fmt.pct(v, 2)}"
                                                              for k, v in a.harness.pass_k.items())
        out.append((a.agent_id, reason))
    return out


def focus_and_neighbours(agent_ids: list[str], focus: str | None, count: int = 3) -> list[str]:
    """The radar's agents when the viewer has chosen none: the focus agent and its neighbours on the
    leaderboard (the one above, the one below; at an end, the next two), else the top ``count``.

    >>> focus_and_neighbours(["a", "b", "c", "d"], "c")
    ['c', 'b', 'd']
    >>> focus_and_neighbours(["a", "b", "c", "d"], "a")
    ['a', 'b', 'c']
    >>> focus_and_neighbours(["a", "b", "c", "d"], None)
    ['a', 'b', 'c']
    """
    if focus not in agent_ids:
        return agent_ids[:count]
    i = agent_ids.index(focus)
    around = sorted(range(len(agent_ids)), key=lambda j: (abs(j - i), j > i))  # nearest first, above first
    return [agent_ids[j] for j in around[:count]]


def agent_to_overtake(agent_ids: list[str], agent: str) -> str:
    """Compare's agent B for agent A: the agent above A on the leaderboard (the one to overtake); for the
    first agent, the one below it.

    >>> agent_to_overtake(["a", "b", "c"], "c"), agent_to_overtake(["a", "b", "c"], "a")
    ('b', 'b')
    """
    i = agent_ids.index(agent)
    return agent_ids[i - 1] if i > 0 else agent_ids[1]


def constants_table(policy: Policy) -> pd.DataFrame:
    """The Methodology page's table of every constant of ``policy``: its name, value, provenance and meaning."""
    return pd.DataFrame([{"Constant": c.name,
                          "Value": ", ".join(map(str, c.value)) if isinstance(c.value, tuple) else f"{c.value:g}",
                          "Provenance": c.provenance, "Meaning": c.meaning} for c in policy.constants()])


def anchors_table(anchors: Anchors) -> pd.DataFrame:
    """One anchor map's points, as the Methodology page lists them beside its curve."""
    # Each position is written with its unit ("500 ms", "$0.01", "10 steps"): the header does not repeat it.
    return pd.DataFrame([{anchors.name: fmt.anchor_x(x, anchors.unit),
                          "Score (0–100)": f"{s:g}"} for x, s in anchor_rows(anchors)])
