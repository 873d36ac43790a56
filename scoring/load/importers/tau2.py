"""tau2-bench Results JSON (SPEC 7, first column): one simulation becomes one run.

The format is tau2-bench's ``Results`` model (``src/tau2/data_model/simulation.py``):
``{"timestamp", "info": {"num_trials", "agent_info": {"llm"}, "environment_info":
{"domain_name"}, ...}, "tasks": [...], "simulations": [SimulationRun, ...]}``, where a
``SimulationRun`` has ``id, task_id, trial, end_time, duration, termination_reason,
agent_cost, user_cost, reward_info: {"reward"}, messages``. The folder form keeps the same
header in ``results.json`` and one ``SimulationRun`` per file in ``simulations/``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scoring.contract import schema
from scoring.contract.limits import DEFAULT_LIMITS, Limits, format_size
from scoring.contract.schema import Reason
from scoring.load.importers._base import (
    RUNS_COLUMNS,
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
    get_path,
    imported_from,
    is_naive_timestamp,
    outcome_warnings,
    parse_json,
    pass_through,
    preview,
    read_bytes,
    reward_success,
    run_success,
    scale_exactly,
    text_or_problem,
    trial_count_warnings,
)
from scoring.load.importers.reading import Trial

KIND = "tau2"
SIMULATIONS_DIR = "simulations"  # tau2's SIMULATIONS_DIR: the folder form's one-file-per-simulation
COMPLETED = ("user_stop", "agent_stop")  # SPEC 7
TIMEOUT = ("max_steps", "timeout")  # SPEC 7 names max_steps; tau2's wall-clock "timeout" is explorer-defined
# SPEC 7: "any error reason -> failed" (too_many_errors, agent_error, user_error, infrastructure_error,
# unexpected_error, and any later *error* reason); context_window_exceeded is explorer-defined failed.
FAILED_EXTRA = ("context_window_exceeded",)
NOT_EVALUATED_BY_TAU2 = ("infrastructure_error",)  # the one reason tau2's compute_metrics leaves out of its metrics


def termination_status(reason: str) -> str | None:
    """The runs status for a tau2 termination reason (SPEC 7), or None when unknown.

    Examples
    --------
    >>> [termination_status(r) for r in ("user_stop", "max_steps", "too_many_errors", "sleepy")]
    ['completed', 'timeout', 'failed', None]
    """
    reason = reason.strip().lower()
    if reason in COMPLETED:
        return schema.COMPLETED
    if reason in TIMEOUT:
        return schema.TIMEOUT
    if "error" in reason or reason in FAILED_EXTRA:
        return schema.FAILED
    return None


def mapping_lines(agent: str | None, experiment: str | None) -> list[MappedColumn]:
    """The SPEC 7 mapping for tau2-bench in words, each with its source unit."""
    agent_source = (f"given agent {agent!r} (replaces info.agent_info.llm + '@' + info.environment_info.domain_name)"
                    if agent is not None else "info.agent_info.llm + '@' + info.environment_info.domain_name (text)")
    if experiment is not None:
        agent_source += f" + ' [{experiment}]' (experiment tag)"
    return [
        MappedColumn("run_id", "simulation id (text)"),
        MappedColumn("agent_id", agent_source),
        MappedColumn("task_id", "task_id (text)"),
        MappedColumn("status", "termination_reason: user_stop/agent_stop -> completed; max_steps -> timeout; "
                               "timeout -> timeout (explorer-defined); any *error* reason -> failed; "
                               "context_window_exceeded -> failed (explorer-defined)"),
        MappedColumn("success", "reward_info.reward (unitless reward): true when 1 - 1e-6 <= reward <= 1 + 1e-6, "
                                "else false; failed runs -> empty; no reward_info -> empty"),
        MappedColumn("latency_ms", "duration (s) x 1000"),
        MappedColumn("cost_usd", "agent_cost (USD) x 1"),
        MappedColumn("steps", "number of tool calls in role 'assistant' messages (count)"),
        MappedColumn("finished_at", "end_time (ISO-8601; no time zone -> read as UTC)"),
        MappedColumn("trial", "trial (count; pass-through, explorer-defined: shown, never scored)"),
        MappedColumn("seed", "seed (whole number; pass-through, explorer-defined: shown, never scored)"),
    ]


UNMAPPED = [
    "user_cost (USD): the user simulator's cost, not the agent's",
    "reward_info.reward of failed runs: an error ends a simulation before it is judged",
]


def read_tau2(doc: Any, name: str, *, agent: str | None = None, experiment: str | None = None,
              limits: Limits = DEFAULT_LIMITS, simulations: list | None = None,
              simulation_names: list[str] | None = None, warnings: list[str] | None = None) -> Imported:
    """Map a parsed tau2-bench Results document to a raw runs table (SPEC 7).

    ``simulations`` (with ``simulation_names``) replaces ``doc["simulations"]`` for the folder form.
    """
    if not isinstance(doc, dict):
        raise file_error(name, "expected a tau2-bench Results object {\"info\": ..., \"simulations\": [...]}")
    if simulations is None:
        simulations = doc.get("simulations", absent())
        if simulations is absent() and isinstance(doc.get("simulation_index"), list):
            raise file_error(name, "the results.json of tau2-bench's folder form: its runs are the "
                                   f"{SIMULATIONS_DIR}/<id>.json files its simulation_index lists, not in it; give "
                                   "them with it (the folder on the command line; in the app, upload its "
                                   f"{SIMULATIONS_DIR} files together with it)")
        if simulations is absent():
            raise file_error(name, "simulations is missing: not a tau2-bench Results file")
        if not isinstance(simulations, list):
            raise file_error(name, f"simulations is not a list ({preview(simulations, 60)})")
    if not simulations:
        raise file_error(name, "the file has no simulations")
    check_rows(len(simulations), name, limits, "simulations")
    base_agent = agent if agent is not None else _agent_from_info(doc, name)
    agent_id = agent_with_experiment(base_agent, experiment)
    given = get_path(doc, "info.num_trials")
    expected = given if isinstance(given, int) and not isinstance(given, bool) and given > 0 else None
    # Not a count of trials (text "10", 2.5, 0): said, where it was left aside without a word (a reviewer's file)
    shown = repr(given[:40]) if isinstance(given, str) else preview(given, 40)  # text quoted: '10' is not 10
    unread = ([f"info.num_trials is {shown}, not a whole number of trials from 1: not read (the trial counts are "
               "the file's own)"] if given is not None and expected is None else [])

    records = Records("simulation file" if simulation_names is not None else "simulation", simulation_names)
    rewards: list[float] = []
    counts = {"no_reward": 0, "no_duration": 0, "no_end": 0, "naive": 0, "no_messages": 0, "not_evaluated": 0}
    trials = []
    for i, sim in enumerate(simulations):
        row = _simulation_row(i, sim, agent_id, records, rewards, counts)
        records.add(row)
        trial = _trial(sim, row, expected)
        if trial is not None:
            trials.append(trial)

    warnings = list(warnings or []) + unread + outcome_warnings(rewards, "simulation")
    warnings += _count_warnings(counts)
    ok_tasks = [r["task_id"] for r in records.rows if r.get("task_id") is not None]
    # tau2's compute_metrics: k up to info.num_trials, cut to the fewest simulations of a task it evaluates.
    evaluated = Counter(t.task_id for t in trials if t.counted)
    tau2_k = min([*evaluated.values(), *([expected] if expected else [])], default=0)
    warnings += trial_count_warnings([agent_id] * len(ok_tasks), ok_tasks, expected,
                                     f"tau2-bench computes pass^k only up to k = {tau2_k}")
    listed = doc.get("tasks")
    if isinstance(listed, list) and listed:
        run = len(set(ok_tasks))
        if run < len(listed):
            warnings.append(f"{len(listed) - run} of the file's {len(listed)} listed task(s) have no simulation "
                            f"(a partial run); the scores cover the {run} task(s) that ran")
    return imported_from(records, RUNS_COLUMNS + ("trial", "seed"), name=name, kind=KIND,
                         mapped=mapping_lines(agent, experiment),
                         unmapped=list(UNMAPPED), warnings=warnings, experiment=experiment, trials=trials)


def _trial(sim: Any, row: dict[str, Any], expected: int | None) -> Trial | None:
    """The simulation as tau2-bench's metrics read it (``get_metrics_df``/``compute_metrics``): every
    simulation but an ``infrastructure_error`` counts, a missing reward is no success."""
    if not isinstance(sim, dict) or row.get("task_id") is None:
        return None
    info = sim.get("reward_info")
    reward, _ = as_number(info.get("reward")) if isinstance(info, dict) else (None, None)
    cost, _ = as_number(sim.get("agent_cost"))
    reason = sim.get("termination_reason")
    counted = not (isinstance(reason, str) and reason.strip().lower() == "infrastructure_error")
    return Trial(row["agent_id"], row["task_id"], counted, reward is not None and reward_success(reward),
                 value=reward, cost_usd=cost, expected_trials=expected)


def _agent_from_info(doc: dict, name: str) -> str:
    llm, why_llm = text_or_problem(doc, "info.agent_info.llm")
    domain, why_domain = text_or_problem(doc, "info.environment_info.domain_name")
    reasons = [w for w in (why_llm, why_domain) if w]
    if reasons:
        raise file_error(name, "; ".join(reasons) + ": the agent id is built from them; "
                                                  "give the agent explicitly instead")
    return f"{llm}@{domain}"


def _simulation_row(i: int, sim: Any, agent_id: str, records: Records, rewards: list[float],
                    counts: dict[str, int]) -> dict[str, Any]:
    """One simulation as a raw run; every field it cannot read becomes a problem naming it."""
    row: dict[str, Any] = {"agent_id": agent_id}
    if not isinstance(sim, dict):
        records.problem(i, None, sim, "a simulation must be a JSON object")
        return row
    for column, key in (("run_id", "id"), ("task_id", "task_id")):
        value = sim.get(key, absent())
        text, why = as_text_id(None if value is absent() else value)
        if value is absent() or value is None:
            records.problem(i, column, absent(), f"{key} is missing")
        elif why:
            records.problem(i, column, value, f"{key} is {why}")
        row[column] = text

    reason = sim.get("termination_reason", absent())
    status = termination_status(reason) if isinstance(reason, str) else None
    if reason is absent() or reason is None:
        records.problem(i, "status", absent(), "termination_reason is missing")
    elif status is None:
        records.problem(i, "status", reason, "termination_reason is not one tau2-bench writes "
                                             "(user_stop, agent_stop, max_steps, timeout or an error reason)")
    elif reason.strip().lower() in NOT_EVALUATED_BY_TAU2:
        counts["not_evaluated"] += 1
    row["status"] = status

    row["success"] = _success(i, sim, status, records, rewards, counts)
    row["latency_ms"] = _scaled(i, sim, "duration", 1000.0, "latency_ms", "seconds", records, counts, "no_duration")
    row["cost_usd"] = _scaled(i, sim, "agent_cost", 1.0, "cost_usd", "USD", records, counts, None)

    steps, why = count_tool_calls(sim.get("messages"))
    if why:
        records.problem(i, "steps", absent(), why)
    elif steps is None:
        counts["no_messages"] += 1
    row["steps"] = steps

    end = sim.get("end_time")
    if end is None:
        counts["no_end"] += 1
    elif not isinstance(end, str):
        records.problem(i, "finished_at", end, "end_time is not text")
        end = None
    elif is_naive_timestamp(end):
        counts["naive"] += 1
    row["finished_at"] = end  # an unparseable text is the validator's to report, with its value
    pass_through(row, sim, {"trial": "trial", "seed": "seed"}, records, i)
    return row


def _success(i: int, sim: dict, status: str | None, records: Records, rewards: list[float],
             counts: dict[str, int]) -> bool | None:
    info = sim.get("reward_info")
    reward = None
    if info is not None:
        if not isinstance(info, dict):
            records.problem(i, "success", info, "reward_info is not an object")
            return None
        reward, why = as_number(info.get("reward"))
        if why:
            records.problem(i, "success", info.get("reward"), f"reward_info.reward is {why}")
            return None
    # SPEC 7: failed -> empty (an errored simulation's reward is no judgement); no reward -> unknown
    success = run_success(status, None if reward is None else reward_success(reward))
    if reward is None:
        counts["no_reward"] += status in (schema.COMPLETED, schema.TIMEOUT)
    elif success is not None:
        rewards.append(reward)  # the rewards read as outcomes, for the note on rewards other than 0 or 1
    return success


def _scaled(i: int, sim: dict, key: str, factor: float, column: str, unit: str, records: Records,
            counts: dict[str, int], missing_counter: str | None) -> float | None:
    value = sim.get(key)
    number, why = as_number(value)
    if why:
        records.problem(i, column, value, f"{key} is {why} ({unit})")
        return None
    if number is None and missing_counter:
        counts[missing_counter] += 1
    if number is None:
        return None
    # Refused here, quoting the file's own value (the validator would quote it scaled: a duration of -3 s as
    # '-3000.0', one of 1e308 s as 'inf'; a reviewer's tau2 files, 2026-12-06).
    if number < 0:
        records.refuse(i, Reason.NEGATIVE, column, value, f"{key} in {unit}")
        return None
    scaled = scale_exactly(number, factor)
    if not math.isfinite(scaled):
        records.refuse(i, Reason.NOT_FINITE, column, value, f"{key} in {unit}, x {factor:g}")
        return None
    return scaled


COUNTED_WARNINGS = {
    "naive": "{n} end_time value(s) have no time zone: read as UTC",
    "no_reward": "{n} completed or timed-out simulation(s) have no reward: success left empty (unknown outcome)",
    "no_duration": "{n} simulation(s) have no duration: latency left empty",
    "no_end": "{n} simulation(s) have no end_time: they sort as the oldest runs",
    "no_messages": "{n} simulation(s) have no agent messages recording tool calls (no messages stored, e.g. "
                   "full-duplex ticks): steps left empty",
    "not_evaluated": "{n} simulation(s) ended with infrastructure_error: failed here; "
                     "tau2-bench leaves them out of its metrics",
}


def _count_warnings(counts: dict[str, int]) -> list[str]:
    return counted_warnings(counts, COUNTED_WARNINGS)


# --------------------------------------------------------------------------- the folder form


def is_folder_form(path: Path) -> bool:
    """tau2's folder form: a folder with results.json and simulations/, or that results.json itself."""
    path = Path(path)
    try:
        if path.is_dir():
            return (path / "results.json").is_file() and (path / SIMULATIONS_DIR).is_dir()
        return path.name == "results.json" and (path.parent / SIMULATIONS_DIR).is_dir()
    except (OSError, ValueError):  # an unreadable or impossible path is not a folder form
        return False


def folder_files(folder: Path) -> list[Path]:
    """The files tau2's folder form is read from: ``results.json``, then ``simulations/*.json`` in name order (links
    followed, as the reader opens them). What the folder's dataset sha256 names, nothing else in the folder."""
    sims_dir = folder / SIMULATIONS_DIR
    return [folder / "results.json"] + (sorted(sims_dir.glob("*.json")) if sims_dir.is_dir() else [])


def read_tau2_folder(path: str | Path, *, name: str | None = None, agent: str | None = None,
                     experiment: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Imported:
    """Read tau2's folder form: ``results.json`` (header) plus ``simulations/<id>.json`` (one run each).

    Like tau2's ``Results.load``, simulation files are read in name order and checked against
    the header's ``simulation_index`` when there is one (a missing or extra file is refused).
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    name = name or folder.name
    meta_path, *files = folder_files(folder)
    if not meta_path.is_file():
        raise file_error(name, "a tau2 results folder needs results.json")
    check_rows(len(files), name, limits, "simulation files")
    try:
        sizes = [meta_path.stat().st_size] + [f.stat().st_size for f in files]
    except OSError as exc:
        raise file_error(name, f"cannot read {folder}: {exc.strerror or exc}") from None
    _check_size(sum(sizes), name, limits, "the folder holds", "reading")
    return read_tau2_parts(read_bytes(meta_path, f"{name}/results.json", limits),
                           [(f.name, read_bytes(f, f"{name}/{SIMULATIONS_DIR}/{f.name}", limits)) for f in files],
                           name=name, agent=agent, experiment=experiment, limits=limits)


def read_tau2_parts(meta: bytes, simulations: Sequence[tuple[str, bytes]], *, name: str, agent: str | None = None,
                    experiment: str | None = None, limits: Limits = DEFAULT_LIMITS,
                    header: tuple[Any, list[str]] | None = None) -> Imported:
    """tau2's folder form from its files' bytes: ``results.json`` (the header) and each ``simulations/<id>.json``
    as (its file name, its bytes), as an upload gives them (no folder). Read as :func:`read_tau2_folder` reads the
    folder: in name order, checked against the header's ``simulation_index``. ``header``: ``meta`` already parsed
    (its document and warnings), as the upload's sorting of files given together parses it."""
    check_rows(len(simulations), name, limits, "simulation files")
    _check_size(len(meta) + sum(len(data) for _, data in simulations), name, limits, "its files hold", "parsing")
    doc, warnings = header if header is not None else parse_json(meta, f"{name}/results.json", limits)
    warnings = list(warnings)
    if not isinstance(doc, dict):
        raise file_error(name, "results.json is not a tau2-bench Results object")
    ordered = sorted(simulations, key=lambda item: item[0])
    _check_index(doc.get("simulation_index"), [Path(file) for file, _ in ordered], name)
    runs = []
    for file, data in ordered:
        run, more = parse_json(data, f"{name}/{SIMULATIONS_DIR}/{file}", limits)
        runs.append(run)
        warnings += more
    if not runs and isinstance(doc.get("simulations"), list) and doc["simulations"]:
        return read_tau2(doc, name, agent=agent, experiment=experiment, limits=limits, warnings=warnings)
    return read_tau2(doc, name, agent=agent, experiment=experiment, limits=limits, simulations=runs,
                     simulation_names=[f"{SIMULATIONS_DIR}/{file}" for file, _ in ordered], warnings=warnings)


def _check_size(size: int, name: str, limits: Limits, holds: str, before: str) -> None:
    if size > limits.max_memory:
        raise file_error(name, f"{holds} {format_size(size)}, more than the limit of "
                               f"{format_size(limits.max_memory)} (max_memory); refused before {before}")


def _check_index(index: Any, files: list[Path], name: str) -> None:
    if index is None:
        return
    if not isinstance(index, list) or not all(isinstance(e, dict) and isinstance(e.get("id"), str) for e in index):
        raise file_error(name, "results.json: simulation_index is not a list of {\"id\": ...} entries")
    indexed, on_disk = {e["id"] for e in index}, {f.stem for f in files}
    reasons = []
    if indexed - on_disk:
        reasons.append(f"{len(indexed - on_disk)} simulation(s) in simulation_index have no file in "
                       f"{SIMULATIONS_DIR}/ (e.g. {sorted(indexed - on_disk)[0]!r})")
    if on_disk - indexed:
        reasons.append(f"{len(on_disk - indexed)} file(s) in {SIMULATIONS_DIR}/ are not in simulation_index "
                       f"(e.g. {sorted(on_disk - indexed)[0]!r})")
    if reasons:
        raise file_error(name, "; ".join(reasons) + " (tau2-bench refuses such a folder too)")
