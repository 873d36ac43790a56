"""The tau2-bench reading of pass^k, for the Repeatability page's labelled comparison (SPEC 5).

The canonical numbers follow the published rule: a task needs at least ``pass_k_min_outcomes``
outcomes to qualify, and a qualifying task with fewer than k outcomes counts 0 at pass^k.
tau2-bench computes pass^k only for k up to the smallest outcome count among the tasks and
averages every task with at least one outcome. Both readings come from
:meth:`scoring.measures.repeatability.Repeatability.tau2_reading` and the report; these functions only lay
them out as tables and words, never mixing one into the other.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from scoring import Report
from scoring.measures.repeatability import Repeatability

LABEL = "tau2-bench convention (comparison only; the canonical numbers follow the published rule)"


def tau2_summary(report: Report) -> pd.DataFrame:
    """Per agent: tau2's max k, the tasks it averages, and its pass^k at the report's levels (empty above max k)."""
    levels = report.levels
    rows = []
    for a in report.agents:
        reading = a.repeatability.tau2_reading()
        row: dict[str, object] = {"Agent": a.agent_id, "tau2 max k (smallest n)": reading.max_k if reading else None,
                                  "Tasks used (n ≥ 1)": reading.tasks if reading else 0}
        row.update({f"tau2 pass^{k}": reading.pass_k.get(k) if reading else None for k in levels})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["Agent", "tau2 max k (smallest n)", "Tasks used (n ≥ 1)",
                                        *(f"tau2 pass^{k}" for k in levels)])
    frame["tau2 max k (smallest n)"] = frame["tau2 max k (smallest n)"].astype("Int64")
    for k in levels:
        frame[f"tau2 pass^{k}"] = frame[f"tau2 pass^{k}"].astype("Float64")
    return frame


def _below(rep: Repeatability, k: int) -> int:
    """Qualifying tasks with fewer than k outcomes (the report's own count when k is a reported level)."""
    if k in rep.tasks_below_k:
        return rep.tasks_below_k[k]
    tasks = rep.tasks
    return int((tasks["qualifies"] & (tasks["n"] < k)).sum())


def side_by_side(rep: Repeatability) -> pd.DataFrame:
    """k = 1 to tau2's max k: tau2's reading beside the canonical value and the canonical tasks counted 0."""
    reading = rep.tau2_reading()
    if reading is None:
        return pd.DataFrame(columns=["k", "tau2-bench reading", "Canonical (published rule)",
                                     "Qualifying tasks with n < k (count 0)"])
    ks = list(range(1, reading.max_k + 1))
    canonical = rep.curve(ks) if rep.qualifying_tasks else {}
    return pd.DataFrame({
        "k": pd.array(ks, dtype="Int64"),
        "tau2-bench reading": pd.array([reading.pass_k[k] for k in ks], dtype="Float64"),
        "Canonical (published rule)": pd.array([canonical.get(k, np.nan) if canonical else None for k in ks],
                                               dtype="Float64"),
        "Qualifying tasks with n < k (count 0)": pd.array([_below(rep, k) for k in ks], dtype="Int64"),
    })


def canonical_words(rep: Repeatability, min_outcomes: int) -> list[str]:
    """For each reported level: how many tasks the canonical value uses and how many of them count 0.

    Examples
    --------
    >>> from scoring import runs_from_records, score_runs
    >>> runs = runs_from_records([{"run_id": f"r{i}", "agent_id": "a", "task_id": f"t{i % 2}",
    ...     "status": "completed", "success": True, "latency_ms": 1, "cost_usd": 0.01} for i in range(7)])
    >>> words = canonical_words(score_runs(runs).agents[0].repeatability, 3)
    >>> words[0]
    'pass^1: 2 qualifying tasks (at least 3 outcomes); of them, none has fewer than 1 outcome.'
    >>> words[2]
    'pass^5: 2 qualifying tasks (at least 3 outcomes); of them, 2 have fewer than 5 outcomes and count 0 at pass^5.'
    >>> canonical_words(score_runs(runs.head(2)).agents[0].repeatability, 3)[0]
    'pass^1: no qualifying task (none has at least 3 outcomes), so no canonical value.'
    """
    out = []
    for k in rep.levels:
        below = rep.tasks_below_k[k]
        if not rep.qualifying_tasks:
            out.append(f"pass^{k}: no qualifying task (none has at least {min_outcomes} outcomes), so no canonical "
                       "value.")
            continue
        fewer = f"fewer than {k} outcome{'s' * (k != 1)}"
        out.append(f"pass^{k}: {rep.qualifying_tasks} qualifying task{'s' * (rep.qualifying_tasks != 1)} (at least "
                   f"{min_outcomes} outcomes); of them, "
                   + (f"none has {fewer}." if not below else
                      f"{below} {'has' if below == 1 else 'have'} {fewer} and count{'s' * (below == 1)} 0 at "
                      f"pass^{k}."))
    return out


def tau2_words(rep: Repeatability) -> str:
    """How many tasks tau2's reading uses and up to which k."""
    reading = rep.tau2_reading()
    if reading is None:
        return "tau2-bench reading: no task has an outcome."
    return (f"tau2-bench reading: {reading.tasks} task{'s' * (reading.tasks != 1)} (every task with at least one "
            f"outcome, no minimum), pass^k for k up to {reading.max_k} (the smallest outcome count of a task).")


__all__ = ["LABEL", "canonical_words", "side_by_side", "tau2_summary", "tau2_words"]
