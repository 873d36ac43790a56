"""terminal-bench ``results.json`` (explorer-defined, beside SPEC 7): one trial becomes one run.

The format is terminal-bench's ``BenchmarkResults`` (``terminal_bench/harness/models.py``):
``{"id", "results": [TrialResults, ...], "accuracy", "pass_at_k", "n_resolved", ...}``, where a
``TrialResults`` has ``id, trial_name, task_id, is_resolved (true/false/null), failure_mode,
total_input_tokens, total_output_tokens, trial_started_at, trial_ended_at, ...``. The model is not
in the file: ``run_metadata.json`` beside it names it (``model_name``, else ``agent_name``), else
``--agent`` does. Several ``results.json`` of one agent are its repeated runs.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.contract.schema import COMPLETED, FAILED, REQUIRED_COLUMNS, TIMEOUT
from scoring.load.importers._base import (
    TOKEN_COLUMNS,
    Imported,
    MappedColumn,
    Records,
    absent,
    agent_with_experiment,
    as_text_id,
    check_rows,
    file_error,
    imported_from,
    is_naive_timestamp,
    pass_through,
    preview,
    run_success,
    trial_count_warnings,
)
from scoring.load.importers.reading import Trial

KIND = "terminal-bench"
COLUMNS = REQUIRED_COLUMNS + ("finished_at", "trial")
# Harness._get_trial_name: "{task}.{attempt}-of-{n_attempts}.{run_id}"
ATTEMPT = re.compile(r"\.(\d+)-of-\d+\.")
# terminal-bench's FailureMode values (terminal_bench/agents/failure_mode.py) and the status each becomes.
COMPLETED_MODES = ("none", "unset")
TIMEOUT_MODES = ("agent_timeout", "test_timeout")
FAILED_MODES = ("unknown", "unknown_agent_error", "parse_error", "fatal_llm_parse_error", "context_length_exceeded",
                "output_length_exceeded", "agent_installation_failed")
METADATA = "run_metadata.json"


def looks_like(doc: Any) -> bool:
    """A terminal-bench BenchmarkResults object: its trials under ``"results"``.

    Examples
    --------
    >>> looks_like({"id": "x", "results": [{"task_id": "hello", "is_resolved": None, "failure_mode": "parse_error"}]})
    True
    >>> looks_like({"runs": []})
    False
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        return False
    first = next((r for r in doc["results"] if isinstance(r, dict)), None)
    if first is None:
        return "n_resolved" in doc or "accuracy" in doc
    # By terminal-bench's own keys, task_id aside: a first trial without one is that trial's problem, said with its
    # place, not a file of another kind.
    return bool({"is_resolved", "failure_mode", "trial_name"} & first.keys())


def failure_status(mode: str) -> str | None:
    """The runs status for a terminal-bench failure_mode, or None when unknown.

    Examples
    --------
    >>> [failure_status(m) for m in ("none", "agent_timeout", "parse_error", "sleepy")]
    ['completed', 'timeout', 'failed', None]
    """
    mode = mode.strip().lower()
    if mode in COMPLETED_MODES:
        return COMPLETED
    if mode in TIMEOUT_MODES:
        return TIMEOUT
    if mode in FAILED_MODES or any(word in mode for word in ("error", "exceeded", "fail")):
        return FAILED
    return None


def duration_ms(start: Any, end: Any) -> tuple[float | None, str | None]:
    """Milliseconds from two ISO-8601 timestamps, exact to the microsecond (no float noise), or why not.

    Examples
    --------
    >>> duration_ms("2025-07-01T10:00:00.000+00:00", "2025-07-01T10:00:01.023+00:00")
    (1023.0, None)
    >>> duration_ms("2025-07-01T10:00:05Z", "2025-07-01T10:00:00Z")[1]
    'ends before it starts'
    """
    if start is None or end is None:
        return None, None
    try:
        a, b = datetime.fromisoformat(str(start).strip()), datetime.fromisoformat(str(end).strip())
        delta = b - a
    except (TypeError, ValueError):
        return None, "not two comparable ISO-8601 timestamps"
    if delta < timedelta(0):
        return None, "ends before it starts"
    return (delta // timedelta(microseconds=1)) / 1000, None


def mapping_lines(agent_source: str) -> list[MappedColumn]:
    return [
        MappedColumn("run_id", "trial_name (text; else the trial id)"),
        MappedColumn("agent_id", agent_source),
        MappedColumn("task_id", "task_id (text)"),
        MappedColumn("status", "failure_mode: none/unset -> completed; agent_timeout/test_timeout -> timeout; "
                               "any error, exceeded or failed mode -> failed"),
        MappedColumn("success", "is_resolved: true -> true, false -> false, null -> false (terminal-bench counts a "
                                "null as unresolved; explorer-defined)"),
        MappedColumn("latency_ms", "trial_ended_at - trial_started_at (ISO-8601) in ms, exact to the microsecond"),
        MappedColumn("finished_at", "trial_ended_at (ISO-8601)"),
        MappedColumn("trial", "the attempt in trial_name ('{task}.{attempt}-of-{n}.{run}'; pass-through, "
                              "explorer-defined: shown, never scored)"),
        MappedColumn("input_tokens", "total_input_tokens (count; pass-through: shown, and priced by --prices)"),
        MappedColumn("output_tokens", "total_output_tokens (count; pass-through: shown, and priced by --prices)"),
    ]


UNMAPPED = [
    "cost_usd: terminal-bench records tokens (total_input_tokens, total_output_tokens), not a cost",
    "steps: terminal-bench records no tool-call count",
]


def metadata_agent(doc: object) -> tuple[str, str] | None:
    """(agent id, the key it came from) that a run_metadata.json document names, if any (``model_name``, else
    ``agent_name``)."""
    if isinstance(doc, dict):
        passed = ""  # a key given but not a name is said beside the one read (it was passed over without a word)
        for key in ("model_name", "agent_name"):
            value = doc.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip(), key + passed
            if key in doc:
                passed += f" ({key} is given but is not a name: {_json_kind(value)})"
    return None


def _json_kind(value: object) -> str:
    """A JSON value's kind in words, for a value that should have been a name.

    >>> _json_kind({"a": 1}), _json_kind(None), _json_kind(" "), _json_kind(3)
    ('an object', 'null', 'blank text', 'a number')
    """
    if value is None:
        return "null"
    if isinstance(value, str):
        return "blank text"
    if isinstance(value, bool):
        return "true or false"
    return "a number" if isinstance(value, (int, float)) else "a list" if isinstance(value, list) else "an object"


def _agent(path: Path | None, agent: str | None, name: str, metadata: object = None) -> tuple[str, str]:
    """(agent id, where it came from): --agent, the run_metadata.json read with the file (an upload beside it),
    run_metadata.json beside the file, else the folder's name."""
    if agent is not None:
        return agent, f"given agent {agent!r}"
    named = metadata_agent(metadata)
    if named is not None:
        return named[0], f"{METADATA} {named[1]} (text; the {METADATA} given with it)"
    if path is not None:
        meta = path.parent / METADATA
        why = f"no {METADATA} beside it"
        try:
            doc = json.loads(meta.read_text("utf-8")) if meta.is_file() and meta.stat().st_size < 1 << 20 else None
            if meta.is_file():
                why = (f"its {METADATA} is past 1 MB" if doc is None else
                       f"its {METADATA} names no model_name or agent_name")
        except (OSError, ValueError) as exc:
            doc, why = None, f"its {METADATA} is not readable JSON ({str(exc)[:80]})"  # said, never passed over
        named = metadata_agent(doc)
        if named is not None:
            return named[0], f"{METADATA} {named[1]} (text)"
        if path.parent.name:
            return path.parent.name, f"the run folder's name ({why}; --agent names it)"
    raise file_error(name, "terminal-bench's results.json does not name the model: give its run folder's "
                           f"{METADATA} with it (upload both together in the app; on the command line, keep it "
                           "beside results.json) or give --agent NAME")


def read_terminal_bench(doc: Any, name: str, *, path: Path | None = None, agent: str | None = None,
                        experiment: str | None = None, limits: Limits = DEFAULT_LIMITS,
                        warnings: list[str] | None = None, metadata: object = None) -> Imported:
    """Map a parsed terminal-bench results.json to a raw runs table (``metadata``: the run's run_metadata.json,
    parsed, when it was given with the file rather than found beside it)."""
    if not looks_like(doc):
        raise file_error(name, "expected terminal-bench's results.json: an object with its trials under \"results\"")
    trials_in = doc["results"]
    if not trials_in:
        raise file_error(name, "the file has no trials (\"results\" is empty)")
    check_rows(len(trials_in), name, limits, "trials")
    base, source = _agent(path, agent, name, metadata)
    agent_id = agent_with_experiment(base, experiment)
    if experiment is not None:
        source += f" + ' [{experiment}]' (experiment tag)"
    records = Records("trial")
    trials: list[Trial] = []
    counts = {"null_resolved": 0, "no_times": 0, "naive": 0, "tokens": 0}
    for i, trial in enumerate(trials_in):
        row = _trial_row(i, trial, agent_id, records, counts)
        records.add(row)
        if row.get("task_id") is not None and isinstance(trial, dict):
            trials.append(Trial(agent_id, row["task_id"], True, trial.get("is_resolved") is True,
                                value=1.0 if trial.get("is_resolved") is True else 0.0))
    out = list(warnings or [])
    if counts["null_resolved"]:
        out.append(f"{counts['null_resolved']} trial(s) have is_resolved null (a parse error or a test timeout): "
                   "success false, as terminal-bench counts them (unresolved)")
    if counts["no_times"]:
        out.append(f"{counts['no_times']} trial(s) lack trial_started_at or trial_ended_at: latency left empty")
    if counts["naive"]:
        out.append(f"{counts['naive']} trial_ended_at value(s) have no time zone: read as UTC")
    if counts["tokens"]:
        out.append(f"{counts['tokens']} trial(s) record tokens but no cost: cost_usd empty, so the cost score is "
                   "0 (up to 30 headline points)")
    stored = doc.get("accuracy")
    if isinstance(stored, (int, float)) and not isinstance(stored, bool) and trials and len(trials) == len(trials_in):
        resolved = sum(t.success for t in trials)
        if abs(float(stored) - resolved / len(trials)) > 1e-9:  # the number the file says terminal-bench printed
            out.append(f"the file's own accuracy, {float(stored):g}, is not what its trials give "
                       f"({resolved / len(trials):g}: {resolved:,} resolved of {len(trials):,}): the file was edited "
                       "or written by another version; the reading beside the report is recomputed from the trials")
    ok = [r["task_id"] for r in records.rows if r.get("task_id") is not None]
    out += trial_count_warnings([agent_id] * len(ok), ok, None,
                                "terminal-bench prints pass@k only for k up to {fewest}")  # it prints no pass^k
    for row in records.rows:
        row["model"] = base
    return imported_from(records, COLUMNS + TOKEN_COLUMNS, name=name, kind=KIND, mapped=mapping_lines(source),
                         unmapped=list(UNMAPPED), warnings=out, experiment=experiment, trials=trials)


def _trial_row(i: int, trial: Any, agent_id: str, records: Records, counts: dict[str, int]) -> dict[str, Any]:
    row: dict[str, Any] = {"agent_id": agent_id, "cost_usd": None}
    if not isinstance(trial, dict):
        records.problem(i, None, trial, "a trial must be a JSON object")
        return row
    task = trial.get("task_id", absent())
    task_id, why = as_text_id(None if task is absent() else task)
    if task_id is None:
        records.problem(i, "task_id", task, f"task_id is {why or 'missing'}")
    row["task_id"] = task_id
    run_id, why = as_text_id(trial.get("trial_name") or trial.get("id"))
    if run_id is None:
        records.problem(i, "run_id", absent(), f"trial_name and id are {why or 'missing'}")
    row["run_id"] = run_id

    mode = trial.get("failure_mode", "unset")
    status = failure_status(mode) if isinstance(mode, str) else None
    if status is None:
        records.problem(i, "status", mode, "failure_mode is not one terminal-bench writes")
    row["status"] = status

    resolved = trial.get("is_resolved")
    counts["null_resolved"] += resolved is None
    if resolved is None or isinstance(resolved, bool):
        # terminal-bench runs the tests whatever the agent did, and counts a null is_resolved as unresolved
        row["success"] = run_success(status, resolved, judges_failed=True, unknown=False)
    else:
        records.problem(i, "success", resolved, "is_resolved is not true, false or null")

    start, end = trial.get("trial_started_at"), trial.get("trial_ended_at")
    latency, why = duration_ms(start, end)
    if why:
        records.problem(i, "latency_ms", preview([start, end], 120), f"trial_started_at/trial_ended_at: {why}")
    elif latency is None:
        counts["no_times"] += 1
    row["latency_ms"] = latency
    if end is not None and not isinstance(end, str):
        records.problem(i, "finished_at", end, "trial_ended_at is not text")
        end = None
    counts["naive"] += is_naive_timestamp(end)
    row["finished_at"] = end
    pass_through(row, trial, {"input_tokens": "total_input_tokens", "output_tokens": "total_output_tokens"}, records,
                 i)
    counts["tokens"] += trial.get("total_input_tokens") is not None or trial.get("total_output_tokens") is not None
    attempt = ATTEMPT.search(trial.get("trial_name") or "") if isinstance(trial.get("trial_name"), str) else None
    digits = attempt.group(1) if attempt else ""
    if len(digits) > 308:  # no double holds it (and int() refuses 4,300 digits or more with a ValueError)
        records.problem(i, "trial", trial["trial_name"], "trial_name: the attempt number is too large for a number")
    row["trial"] = int(digits) if 0 < len(digits) <= 308 else None
    return row
