"""The terminal form of ``python -m scoring explain FILE AGENT --format table`` (numbers by scoring.contract.format)."""

from __future__ import annotations

import pandas as pd

from scoring.analysis.explain import Explanation, note
from scoring.contract import format as fmt

POINT_DECIMALS = 4  # points earned and lost are unrounded: four decimals let a reader add them up


def _points(value: object) -> str:
    return fmt.score(value, POINT_DECIMALS)


def _table(frame: pd.DataFrame, formats: dict, text: tuple[str, ...] = ("component", "task_id", "run_id", "status",
                                                                        "note")) -> str:
    """Columns formatted by ``formats``; text left-aligned, numbers right-aligned; trailing spaces dropped."""
    cells = {column: [formats[column](v) for v in frame[column]] for column in formats}
    widths = {column: max([len(column)] + [len(v) for v in values]) for column, values in cells.items()}

    def line(values: dict[str, str]) -> str:
        parts = [values[c].ljust(widths[c]) if c in text else values[c].rjust(widths[c]) for c in formats]
        return "  ".join(parts).rstrip()

    rows = [line({c: c for c in formats})]
    rows += [line({c: cells[c][i] for c in formats}) for i in range(len(frame))]
    return "\n".join(rows)


def explain_table_text(explanation: Explanation, top_runs: int = 20) -> str:
    """Points, overtake, influence and accounting of one agent as plain text."""
    e, h = explanation, explanation.headline
    decimals = e.policy.score_decimals
    rank = "unranked" if e.rank is None else f"rank {fmt.count(e.rank)} of {fmt.count(e.agents)}"
    lines = [f"{fmt.text(e.agent_id)}: headline {fmt.score(h.score, decimals)}, {rank} (policy {e.policy.version})", ""]

    lines.append("Points by component")
    if e.points is None:
        lines.append("  unranked: no completed run, no component")
    else:
        p = e.points
        rows = [{"component": c.name, "factor": c.factor, "earned": c.earned, "max": c.max, "lost": c.lost}
                for c in p.components]
        rows.append({"component": "weighted score", "factor": None, "earned": p.weighted_score,
                     "max": sum(c.max for c in p.components), "lost": sum(c.lost for c in p.components)})
        if p.zero_success_floor:
            rows.append({"component": "zero-success floor", "factor": None, "earned": p.floor, "max": None,
                         "lost": -p.floor})
        else:
            rows.append({"component": "rounding", "factor": None, "earned": p.rounding, "max": None,
                         "lost": -p.rounding})
        rows.append({"component": "score", "factor": None, "earned": p.score, "max": 100.0, "lost": p.total_lost})
        lines.append(_table(pd.DataFrame(rows), {"component": fmt.text, "factor": fmt.factor, "earned": _points,
                                                "max": _points, "lost": _points}))
        lines.append("  earned sums to the weighted score; weighted score + floor or rounding = score; "
                     "score + lost = 100")
        lines += [f"  {fact}" for fact in p.facts()[len(p.components):]]
    lines.append("")

    lines.append("Overtake")
    if e.overtake is None:
        lines.append("  first on the leaderboard: no agent above" if e.rank == 1 else "  unranked: no score to raise")
    else:
        o = e.overtake
        lines.append(f"  {o.facts()[0]}")
        for change in o.changes:
            lines.append(f"  {change.component:<12} {change.fact}")
    lines.append("")

    influence = e.influence
    lines.append("Tasks: points if all the task's runs were removed (unrounded weighted score without minus with)")
    tasks = influence.tasks.assign(note=[_note(r, e) for r in influence.tasks.to_dict("records")])
    lines.append(_table(tasks, {"task_id": fmt.text, "runs": fmt.count, "completed": fmt.count,
                                "points_if_removed": _points, "score_if_removed": lambda v: fmt.score(v, decimals),
                                "note": fmt.text}))
    lines.append("")
    if top_runs > 0:
        lines.append(f"Runs: the {top_runs} most influential (points if the run alone were removed)")
        runs = influence.most_influential_runs(top_runs)
        runs = runs.assign(note=[_note(r, e) for r in runs.to_dict("records")])
        lines.append(_table(runs, {"run_id": fmt.text, "task_id": fmt.text, "status": fmt.text,
                                   "points_if_removed": _points,
                                   "score_if_removed": lambda v: fmt.score(v, decimals), "note": fmt.text}))
    else:
        lines.append("Runs")
    lines += [f"  {fact}" for fact in influence.facts()]
    lines.append("")

    lines.append("Accounting")
    lines += [f"  {fact}" for fact in e.accounting.facts()]
    return "\n".join(lines)


def _note(row: dict, e: Explanation) -> str:
    fact = note(row, e.policy)
    return "" if fact is None else str(fact)
