"""tau-bench results list (SPEC 7, second column): one ``EnvRunResult`` becomes one run.

tau-bench (``tau_bench/run.py``) writes a JSON array of ``EnvRunResult`` objects
(``tau_bench/types.py``): ``{"task_id": int, "reward": float, "info": {...}, "traj": [...],
"trial": int}``. A run that raised keeps ``reward 0.0``, ``info = {"error": ..., "traceback":
...}`` and an empty ``traj``. There is no duration, cost or end time in the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.contract.schema import COMPLETED, FAILED, REQUIRED_COLUMNS
from scoring.load.importers._base import (
    Imported,
    MappedColumn,
    Records,
    absent,
    agent_with_experiment,
    as_number,
    as_text_id,
    check_rows,
    count_tool_calls,
    counted_warnings,
    file_error,
    imported_from,
    outcome_warnings,
    preview,
    reward_success,
    run_success,
    trial_count_warnings,
)
from scoring.load.importers.reading import Trial

KIND = "tau-bench"
# No finished_at column: SPEC 7 says "empty (file order)", and only a missing column makes the
# validator use file order (an all-empty column would order by run_id instead).
COLUMNS = REQUIRED_COLUMNS + ("steps", "trial")


def mapping_lines(stem: str, agent: str | None, experiment: str | None) -> list[MappedColumn]:
    agent_source = f"given agent {agent!r}" if agent is not None else f"file stem {stem!r} (text)"
    if experiment is not None:
        agent_source += f" + ' [{experiment}]' (experiment tag)"
    return [
        MappedColumn("run_id", f"'{stem}:' + task_id + ':' + trial (file stem, task_id, trial number)"),
        MappedColumn("agent_id", agent_source),
        MappedColumn("task_id", "task_id (whole number, as text)"),
        MappedColumn("status", "completed; info.error present -> failed"),
        MappedColumn("success", "reward (unitless): true when 1 - 1e-6 <= reward <= 1 + 1e-6, else false; "
                                "failed runs -> empty (explorer-defined: an error's 0.0 is no judgement)"),
        MappedColumn("steps", "number of tool calls in role 'assistant' messages of traj (count)"),
        MappedColumn("trial", "trial (count; pass-through, explorer-defined: shown, never scored)"),
    ]


UNMAPPED = [
    "latency_ms: tau-bench records no duration (empty)",
    "cost_usd: no cost recorded by tau-bench (empty; info.user_cost is the user simulator's, not the agent's)",
    "finished_at: tau-bench records no end time (file order is used: a later result is newer)",
]


def read_taubench(doc: Any, name: str, *, agent: str | None = None, experiment: str | None = None,
                  limits: Limits = DEFAULT_LIMITS, warnings: list[str] | None = None) -> Imported:
    """Map a parsed tau-bench results list to a raw runs table (SPEC 7)."""
    if not isinstance(doc, list):
        raise file_error(name, "expected a JSON array of tau-bench results (EnvRunResult objects)")
    if not doc:
        raise file_error(name, "the file has no results")
    check_rows(len(doc), name, limits, "results")
    stem = Path(name).stem or "results"
    agent_id = agent_with_experiment(agent if agent is not None else stem, experiment)
    records = Records("result")
    rewards: list[float] = []
    counts = {"failed": 0, "no_steps": 0}
    trials = []
    for i, result in enumerate(doc):
        row = _result_row(i, result, stem, agent_id, records, rewards, counts)
        records.add(row)
        reward, _ = as_number(result.get("reward")) if isinstance(result, dict) else (None, None)
        if reward is not None and row.get("run_id") is not None:  # a readable task and trial number
            # tau-bench's display_metrics: every result, its reward, success within 1e-6 of 1, the trial number.
            trials.append(Trial(agent_id, row["task_id"], True, reward_success(reward), value=reward,
                                trial=result.get("trial")))

    warnings = list(warnings or []) + outcome_warnings(rewards, "result")
    warnings += counted_warnings(counts, {
        "failed": "{n} result(s) carry info.error: failed, success empty (tau-bench's own pass^k counts them as "
                  "failures)",
        "no_steps": "{n} result(s) have no assistant message recording tool calls (an empty traj, or an act/react "
                    "agent that writes actions as text): steps left empty"})
    ok = [r["task_id"] for r in records.rows if r.get("task_id") is not None]
    # tau-bench's display_metrics: k up to the distinct trial numbers, every task divided by that many trials.
    distinct = len({t.trial for t in trials})
    warnings += trial_count_warnings([agent_id] * len(ok), ok, None,
                                     f"tau-bench computes pass^k up to k = {distinct} for every task, reading a "
                                     "task's missing trials as failures")
    return imported_from(records, COLUMNS, name=name, kind=KIND, mapped=mapping_lines(stem, agent, experiment),
                         unmapped=list(UNMAPPED), warnings=warnings, experiment=experiment, trials=trials)


def _result_row(i: int, result: Any, stem: str, agent_id: str, records: Records, rewards: list[float],
                counts: dict[str, int]) -> dict[str, Any]:
    row: dict[str, Any] = {"agent_id": agent_id, "latency_ms": None, "cost_usd": None}
    if not isinstance(result, dict):
        records.problem(i, None, result, "a result must be a JSON object")
        return row
    task = result.get("task_id", absent())
    task_id, why = as_text_id(None if task is absent() else task)
    if task is absent() or task is None:
        records.problem(i, "task_id", absent(), "task_id is missing")
    elif why:
        records.problem(i, "task_id", task, f"task_id is {why}")
    row["task_id"] = task_id

    trial = result.get("trial", absent())
    if trial is absent() or trial is None:
        records.problem(i, "run_id", absent(), "trial is missing")
    elif isinstance(trial, bool) or not isinstance(trial, int):
        records.problem(i, "run_id", trial, "trial is not a whole number")
    elif task_id is not None:
        row["run_id"] = f"{stem}:{task_id}:{trial}"
        row["trial"] = trial

    info = result.get("info", absent())
    if info is absent() or not isinstance(info, dict):
        records.problem(i, "status", absent() if info is absent() else info,
                        "info is missing" if info is absent() else "info is not an object")
        failed = False
    else:
        failed = info.get("error") is not None  # SPEC 7: info.error present -> failed
    row["status"] = FAILED if failed else COMPLETED
    counts["failed"] += failed

    reward, why = as_number(result.get("reward"))
    if why or reward is None:
        records.problem(i, "success", result.get("reward", absent()), f"reward is {why or 'missing'}")
    else:  # SPEC 7: failed -> empty (an error's reward 0.0 is no judgement)
        row["success"] = run_success(row["status"], reward_success(reward))
        if row["success"] is not None:
            rewards.append(reward)

    traj = result.get("traj", absent())
    if traj is absent():
        records.problem(i, "steps", absent(), "traj is missing")
    else:
        steps, why = count_tool_calls(traj)
        if why:
            records.problem(i, "steps", preview(traj, 80), f"traj: {why}")
        elif steps is None:
            counts["no_steps"] += 1
        row["steps"] = steps
    return row
