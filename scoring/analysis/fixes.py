"""What to fix first (issue 15): the headline an agent would have if a task's unsuccessful runs had succeeded,
and what its costliest tasks and runs cost together.

:mod:`scoring.analysis.explain` says which runs cost points (removing them); this module says what fixing
them would be worth, task by task, and whether that alone overtakes the agent above. Each what-if
is checked with the one formula (:func:`scoring.measures.headline.composite_arrays` and
:func:`scoring.measures.headline.final_score`) on the changed cohort statistics.

Rules (explorer-defined; SPEC.md is silent on what-ifs):

- **Kinds of fix**, per task: ``completed`` turns the task's unsuccessful completed runs (a false or
  unknown outcome) into successes, their latency and cost unchanged; ``timeout`` and ``failed``
  turn the task's timed-out or failed runs into successful completed runs; ``all`` does the three
  at once. Queued, running and cancelled runs are not terminal (SPEC 1): nothing about them is
  fixed. The same kinds over every task of the agent are the ``totals``.
- **A run that becomes completed** enters the headline cohort (SPEC 3) at the agent's average
  latency and average cost, as :func:`scoring.analysis.uncertainty.sensitivity` adds "one more successful
  completed run": the averages stay, the latency spread shrinks by sqrt(L / (L + m)) for m runs
  added to L recorded latencies, and the consistency gate counts them. An agent with no latency (or
  no cost) recorded gets none for them either. (Its recorded latency would be the time it took to
  fail or time out, which says nothing about a fixed run.)
- **Overtakes** uses :func:`scoring.analysis.explain.overtake`'s target: the rounded score needed to pass
  the agent above, SPEC 3's tie rule included. Null for the leader and for an unranked agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from scoring.analysis.explain import Influence, Removal, _records, agent_rows, overtake, remove_runs
from scoring.contract.policy import Policy
from scoring.contract.schema import COMPLETED, FAILED, TIMEOUT
from scoring.measures._groups import headline_cohort
from scoring.measures.facts import Fact
from scoring.measures.headline import Headline, HeadlineAggregates, composite_arrays, final_scores
from scoring.measures.report import Report

# What a fix changes, named by status (the headline's cohort, then the other terminal statuses), then all.
KINDS = (COMPLETED, TIMEOUT, FAILED, "all")
KIND_WORDS = {COMPLETED: "unsuccessful completed runs succeed", TIMEOUT: "timed-out runs complete successfully",
              FAILED: "failed runs complete successfully", "all": "every unsuccessful terminal run succeeds"}
_COLUMNS = ["task_id", "kind", "runs_changed", "points_if_fixed", "score_if_fixed", "score_change", "overtakes"]


@dataclass(frozen=True)
class Fixes:
    """Per task and kind of fix (rows with at least one run to fix), and the same kinds over every task.

    ``tasks`` columns: ``task_id``, ``kind``, ``runs_changed``, ``points_if_fixed`` (unrounded weighted
    score after minus before; NaN for an agent unranked before), ``score_if_fixed`` (the published
    score after), ``score_change`` (its rounded difference; NaN for an agent unranked before) and
    ``overtakes`` (pandas' nullable boolean: NA without an agent above). Sorted by what to fix first:
    those that overtake (the fewest runs changed first), then the others (the highest score first), then
    task and kind. The ``all`` kind is listed only where the task has two kinds of run to fix (else it
    repeats that kind).
    ``totals``: the same columns with ``task_id`` empty, one row per kind with a run to fix.
    """

    agent_id: str
    score: float | None
    above: str | None
    target_score: float | None
    tasks: pd.DataFrame
    totals: pd.DataFrame
    policy: Policy = field(repr=False)

    def overtaking(self) -> pd.DataFrame:
        """The task fixes that alone would overtake the agent above (first: the fewest runs changed)."""
        return self.tasks[self.tasks["overtakes"].fillna(False).astype(bool)].reset_index(drop=True)

    def facts(self) -> list[Fact]:
        v: dict[str, Any] = {"above": self.above, "target": self.target_score}
        out = []
        best = self.overtaking()
        if self.above is not None and len(best):
            row = best.iloc[0]
            v.update(task=row["task_id"], n=row["runs_changed"], what=KIND_WORDS[row["kind"]],
                     score=row["score_if_fixed"], others=len(best) - 1)
            out.append(Fact("The smallest fix that alone overtakes {above:text}: on task {task:text}, "
                            "{n:count|run|runs} ({what:text}) would give {score:score}, at least the {target:score} "
                            "needed; {others:count|other task fix|other task fixes} would too.", v))
        elif self.above is not None:
            out.append(Fact("No single task's fix overtakes {above:text} ({target:score} needed).", v))
        total = self.totals.set_index("kind")
        for kind in (TIMEOUT, FAILED):
            if kind in total.index:
                row = total.loc[kind]
                what = "timed-out" if kind == TIMEOUT else FAILED
                out.append(Fact("If its {n:count|" + what + " run|" + what + " runs} had completed successfully: "
                                "{score:score} (a change of {change:score} points).",
                                {"n": row["runs_changed"], "score": row["score_if_fixed"],
                                 "change": row["score_change"]}))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"above": self.above, "target_score": self.target_score, "tasks": _records(self.tasks),
                "totals": _records(self.totals.drop(columns=["task_id"])), "facts": [str(f) for f in self.facts()]}


def _changed(stats: HeadlineAggregates, flipped: np.ndarray, added: np.ndarray) -> HeadlineAggregates:
    """The cohort after ``flipped`` completed runs succeed and ``added`` successful runs join at the averages."""
    latency_runs, cost_runs = float(stats.latency_runs), float(stats.cost_runs)
    ones = np.ones(len(added))
    new_latency_runs = latency_runs + added if latency_runs > 0 else 0 * ones
    # Values added at the mean add nothing to the squared deviations: the spread shrinks by sqrt(L / (L + m)).
    shrink = np.sqrt(latency_runs / new_latency_runs) if latency_runs > 0 else ones
    return HeadlineAggregates(
        completed_runs=float(stats.completed_runs) + added,
        successful_runs=float(stats.successful_runs) + flipped + added,
        latency_runs=new_latency_runs, latency_mean=float(stats.latency_mean) * ones,
        latency_pstdev=float(stats.latency_pstdev) * shrink,
        cost_runs=cost_runs + added if cost_runs > 0 else 0 * ones, cost_mean=float(stats.cost_mean) * ones)


def fixes(runs: pd.DataFrame, agent_id: str, report: Report) -> Fixes:
    """What fixing each task's unsuccessful runs would do to one agent's headline (see the module docstring).

    ``report`` is the frame's report (its policy is used). KeyError for an agent with no run.

    Examples
    --------
    >>> from scoring import runs_from_records, score_runs
    >>> rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed", "success": i < 3,
    ...          "latency_ms": 1000.0, "cost_usd": 0.01} for i in range(4)]
    >>> rows.append({"run_id": "x", "agent_id": "a", "task_id": "u", "status": "timeout", "success": None,
    ...              "latency_ms": 9000.0, "cost_usd": 0.02})
    >>> runs = runs_from_records(rows)
    >>> f = fixes(runs, "a", score_runs(runs))
    >>> f.score  # 40 * 3/4 + 15 * 0.9333 + 15 * 0.5 (4 latencies: neutral) + 30 * 0.8
    75.5
    >>> f.tasks[["task_id", "kind", "runs_changed", "score_if_fixed"]].values.tolist()  # u: 5 latencies, gate met
    [['t', 'completed', 1, 85.5], ['u', 'timeout', 1, 85.0]]
    """
    policy = report.policy
    agent = report.agent(agent_id)
    h = agent.headline
    mine = agent_rows(runs, agent_id)
    status = mine["status"].astype(str).to_numpy()
    completed, succeeded = headline_cohort(mine)
    counts = pd.DataFrame({
        "task_id": mine["task_id"].astype(str).to_numpy(dtype=object),
        COMPLETED: completed & ~succeeded,
        TIMEOUT: status == TIMEOUT,
        FAILED: status == FAILED,
    }).groupby("task_id", sort=True).sum()
    counts["all"] = counts[COMPLETED] + counts[TIMEOUT] + counts[FAILED]
    ahead = overtake(report, agent_id)
    target = None if ahead is None else ahead.target_score
    stats = HeadlineAggregates.of(h)

    def table(frame: pd.DataFrame) -> pd.DataFrame:
        rows = []
        for kind in KINDS:
            changed = frame[kind].to_numpy(dtype=float)
            flipped = frame[COMPLETED].to_numpy(dtype=float) if kind in (COMPLETED, "all") else 0 * changed
            added = changed - flipped
            f = composite_arrays(_changed(stats, flipped, added), policy)
            score = final_scores(f["weighted_score"], f["zero_success_floor"], policy)
            before = np.nan if h.weighted_score is None else h.weighted_score
            now = np.nan if h.score is None else h.score
            part = pd.DataFrame({
                "task_id": frame.index.to_numpy(dtype=object), "kind": kind,
                "runs_changed": changed.astype(np.int64), "points_if_fixed": f["weighted_score"] - before,
                "score_if_fixed": score,
                "score_change": [round(s - now, policy.score_decimals) for s in score.tolist()],
                "overtakes": pd.array([None if target is None else bool(s >= target) for s in score.tolist()],
                                      dtype="boolean"),
            })
            keep = changed > 0
            if kind == "all":  # only where it differs from every single kind: two kinds or more to fix
                keep &= (frame[[COMPLETED, TIMEOUT, FAILED]].to_numpy() > 0).sum(axis=1) > 1
            rows.append(part[keep])
        out = pd.concat(rows, ignore_index=True)
        overtakes = out["overtakes"].fillna(False).to_numpy(dtype=bool)
        points = out["score_if_fixed"].to_numpy(dtype=float)  # the published score: the floor lifted counts
        # Overtaking fixes first, the smallest first; then the others, the most valuable first.
        order = np.lexsort((out["kind"].map(KINDS.index).to_numpy(), out["task_id"].astype(str).to_numpy(),
                            np.where(overtakes, -points, out["runs_changed"].to_numpy()),
                            np.where(overtakes, out["runs_changed"].to_numpy(), -points), ~overtakes))
        return out.iloc[order].reset_index(drop=True)[_COLUMNS]

    tasks = table(counts)
    totals = table(counts.sum().to_frame().T.set_axis([""]))
    return Fixes(agent_id, h.score, None if ahead is None else ahead.above, target, tasks, totals, policy)


# --------------------------------------------------------------------------- what costs the most, together


@dataclass(frozen=True)
class Costliest:
    """The costliest tasks and runs of one agent taken out together (:func:`scoring.analysis.explain.remove_runs`).

    ``tasks`` are the ``n_tasks`` tasks whose removal gains the most points (positive gains only),
    ``runs`` the ``n_runs`` such runs; ``task_removal`` and ``run_removal`` the effect of removing
    all of them at once (exact: not the sum of the single removals, which interact).
    """

    agent_id: str
    tasks: tuple[str, ...]
    task_runs: tuple[str, ...]
    task_removal: Removal | None
    runs: tuple[str, ...]
    run_removal: Removal | None

    def facts(self) -> list[Fact]:
        out = []
        if self.task_removal is not None and self.task_removal.points_if_removed is not None:
            r = self.task_removal
            together = "" if len(self.tasks) == 1 else (" (removed at once: not the sum of each removed alone, as "
                                                         "the composite's averages interact)")
            out.append(Fact("The {n:count|costliest task|costliest tasks} ({tasks:text}; {runs:count|run|runs}) "
                            "cost {points:score} points together" + together + ": without them the score would be "
                            "{score:score}.",
                            {"n": len(self.tasks), "tasks": ", ".join(self.tasks), "runs": r.runs,
                             "points": r.points_if_removed, "score": r.score_if_removed}))
        if self.run_removal is not None and self.run_removal.points_if_removed is not None:
            r = self.run_removal
            template = ("The costliest run costs {points:score} points: without it the score would be {score:score}."
                        if r.runs == 1 else "The {n:count} costliest runs cost {points:score} points together "
                                            "(removed at once): without them the score would be {score:score}.")
            out.append(Fact(template, {"n": r.runs, "points": r.points_if_removed, "score": r.score_if_removed}))
        if not out:
            out.append(Fact("No task or run costs points: removing any of them would not raise the score."))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"tasks": list(self.tasks), "task_removal": None if self.task_removal is None
                else self.task_removal.to_json(), "runs": list(self.runs),
                "run_removal": None if self.run_removal is None else self.run_removal.to_json(),
                "facts": [str(f) for f in self.facts()]}


def costliest(runs: pd.DataFrame, agent_id: str, found: Influence, policy: Policy, headline: Headline | None = None,
              n_tasks: int = 3, n_runs: int = 12) -> Costliest:
    """The ``n_tasks`` costliest tasks and ``n_runs`` costliest runs of ``found`` (the agent's influence),
    each set removed at once.

    Examples
    --------
    >>> from scoring import runs_from_records, score_runs
    >>> from scoring.analysis.explain import influence
    >>> rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": f"t{i % 3}", "status": "completed",
    ...          "success": i % 3 != 0, "latency_ms": 1000.0, "cost_usd": 0.01} for i in range(9)]
    >>> runs = runs_from_records(rows)
    >>> c = costliest(runs, "a", influence(runs, "a"), score_runs(runs).policy, n_tasks=1, n_runs=2)
    >>> c.tasks, c.task_runs, c.runs  # t0 never succeeds: its three runs cost the most
    (('t0',), ('r0', 'r3', 'r6'), ('r0', 'r3'))
    >>> # 6 of 9 successes: 26.67 + 14 + 15 + 24 = 79.67; without t0 all 6 succeed: 40 + 14 + 15 + 24 = 93
    >>> round(c.task_removal.points_if_removed, 4), c.task_removal.score_if_removed
    (13.3333, 93.0)
    """
    mine = agent_rows(runs, agent_id)
    tasks = tuple(str(t) for t in found.costliest_tasks(n_tasks)["task_id"])
    in_tasks = mine["task_id"].astype(str).isin(tasks).to_numpy(dtype=bool)
    task_runs = tuple(sorted(str(r) for r in mine["run_id"][in_tasks]))
    top = tuple(str(r) for r in found.costliest_runs(n_runs)["run_id"])
    return Costliest(agent_id, tasks, task_runs,
                     remove_runs(mine, agent_id, task_runs, policy, headline) if tasks else None,
                     top, remove_runs(mine, agent_id, top, policy, headline) if top else None)
