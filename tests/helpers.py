"""Builders of harness result files in their published formats, shared by test modules (not a test module)."""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from pathlib import Path

import numpy as np


def tau2_results(sims: list[tuple[str, str, float | None, float | None]], num_trials: int,
                 llm: str = "xai/grok-3") -> dict:
    """A tau2-bench Results object; each simulation is (task_id, termination_reason, reward, agent_cost)."""
    simulations = []
    for i, (task, reason, reward, cost) in enumerate(sims):
        simulations.append({
            "id": f"sim-{i}", "task_id": task, "trial": i, "seed": 300 + i,
            "start_time": "2025-10-06T06:23:33.000000", "end_time": "2025-10-06T06:24:03.000000",
            "duration": 1.023, "termination_reason": reason, "agent_cost": cost, "user_cost": 0.5,
            "reward_info": None if reward is None else {"reward": reward}, "messages": [],
        })
    return {"timestamp": "2025-10-06T06:22:46", "tasks": [{"id": t} for t in sorted({s[0] for s in sims})],
            "info": {"num_trials": num_trials, "agent_info": {"llm": llm}, "user_info": {"llm": llm},
                     "environment_info": {"domain_name": "airline"}},
            "simulations": simulations}


def _pass_at_k(n: int, c: int, k: int) -> float:
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def terminal_bench_run(folder: Path, run: str, trials: list[tuple[str, bool | None, str]],
                       model: str | None = "anthropic/claude-x") -> Path:
    """A terminal-bench run folder (results.json + run_metadata.json); each trial is (task_id, is_resolved,
    failure_mode). The file's computed fields (accuracy, pass_at_k, n_resolved) are filled in by
    terminal-bench's own formulas (BenchmarkResults in terminal_bench/harness/models.py)."""
    folder = folder / run
    folder.mkdir(parents=True)
    results = []
    for j, (task, resolved, mode) in enumerate(trials):
        results.append({
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{run}/{task}/{j}")), "trial_name": f"{task}.1-of-1.{run}",
            "task_id": task, "instruction": "do it", "is_resolved": resolved, "failure_mode": mode,
            "parser_results": None, "recording_path": None, "total_input_tokens": 1000 * (j + 1),
            "total_output_tokens": 200, "trial_started_at": "2025-07-01T10:00:00.000000+00:00",
            "trial_ended_at": f"2025-07-01T10:00:0{j % 10}.023000+00:00",
        })
    per_task: dict[str, list[int]] = defaultdict(list)
    for r in results:
        per_task[r["task_id"]].append(1 if r["is_resolved"] else 0)
    fewest = min(len(v) for v in per_task.values())
    resolved = sum(1 for r in results if r["is_resolved"])
    doc = {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, run)), "results": results,
           "pass_at_k": {str(k): float(np.mean([_pass_at_k(len(v), sum(v), k) for v in per_task.values()
                                                if len(v) >= k])) for k in range(1, fewest + 1)},
           "n_resolved": resolved, "n_unresolved": len(results) - resolved,
           "resolved_ids": [r["task_id"] for r in results if r["is_resolved"]],
           "unresolved_ids": [r["task_id"] for r in results if not r["is_resolved"]],
           "accuracy": resolved / len(results)}
    (folder / "results.json").write_text(json.dumps(doc, indent=1))
    if model is not None:
        (folder / "run_metadata.json").write_text(json.dumps({"run_id": run, "agent_name": "terminus",
                                                              "model_name": model}))
    return folder / "results.json"
