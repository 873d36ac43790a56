"""Inspect AI logs (SPEC 7, third column): one sample epoch becomes one run.

Logs are read only through inspect_ai's own reader (``inspect_ai.log.read_eval_log``), for
both the ``.eval`` (zip) and the ``.json`` format; nothing here parses a log by hand. Before
the reader runs, the file is bounded like every input: its size (and, for a zip, the size
of everything it would unpack to) against ``max_memory``, its sample count against
``max_rows``, a JSON log's nesting against ``max_json_depth``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import logging
import math
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scoring.contract.extras import install_hint
from scoring.contract.format import one_line
from scoring.contract.limits import DEFAULT_LIMITS, Limits, format_size
from scoring.contract.safejson import json_depth, too_deep
from scoring.contract.schema import COMPLETED, FAILED, TIMEOUT
from scoring.load.importers._base import (
    RUNS_COLUMNS,
    TOKEN_COLUMNS,
    USAGE_COLUMN,
    Imported,
    MappedColumn,
    Records,
    agent_with_experiment,
    check_archive,
    check_rows,
    counted_warnings,
    file_error,
    imported_from,
    is_naive_timestamp,
    run_success,
    scale_exactly,
    scan_json,
    trial_count_warnings,
)
from scoring.load.importers.kinds import ZIP_MAGIC
from scoring.load.importers.reading import UNREDUCED, Trial

KIND = "inspect"
TRUE_VALUES = frozenset({"c", "1", "1.0", "true"})  # SPEC 7: C/1/1.0/true -> true
FALSE_VALUES = frozenset({"i", "0", "0.0", "false"})  # SPEC 7: I/0/0.0/false -> false
NO_SCORER = "(none)"  # the scorer name shown when a log has no scorer at all
UNNEEDED_FIELDS = {"events", "store", "attachments"}  # skipped when reading a .eval from disk (memory)


def score_outcome(value: Any) -> bool | None:
    """A score value as an outcome (SPEC 7); anything else (partial credit, P, N, dicts) is empty.

    Examples
    --------
    >>> [score_outcome(v) for v in ("C", "I", 1, 0.0, True, "1.0", 0.5, "P", {"a": 1})]
    [True, False, True, False, True, True, None, None, None]
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return True if value == 1 else False if value == 0 else None
    if isinstance(value, str):
        token = value.strip().lower()
        return True if token in TRUE_VALUES else False if token in FALSE_VALUES else None
    return None


def mapping_lines(scorer: str, agent: str | None, experiment: str | None) -> list[MappedColumn]:
    agent_source = f"given agent {agent!r}" if agent is not None else "eval.model + '@' + eval.task (text)"
    if experiment is not None:
        agent_source += f" + ' [{experiment}]' (experiment tag)"
    return [
        MappedColumn("run_id", "eval.run_id + ':' + sample id + ':' + epoch"),
        MappedColumn("agent_id", agent_source),
        MappedColumn("task_id", "sample id (text)"),
        MappedColumn("status", "sample error set -> failed; sample limit set -> timeout; else completed"),
        MappedColumn("success", f"scores[{scorer!r}].value: C/1/1.0/true -> true, I/0/0.0/false -> false, "
                                "anything else (partial credit) -> empty"),
        MappedColumn("latency_ms", "total_time (s) x 1000"),
        MappedColumn("cost_usd", "sum of model_usage[*].total_cost (USD) when present, else empty"),
        MappedColumn("steps", "number of tool calls in assistant messages (count); no assistant message -> empty"),
        MappedColumn("finished_at", "completed_at (ISO-8601, UTC)"),
        MappedColumn("epoch", "epoch (count; pass-through, explorer-defined: shown, never scored)"),
        MappedColumn("input_tokens", "sum of model_usage[*].input_tokens (count; pass-through: shown, and priced "
                                     "by --prices)"),
        MappedColumn("output_tokens", "sum of model_usage[*].output_tokens (count; pass-through)"),
        MappedColumn(USAGE_COLUMN, "model_usage per model: input, output, cache read and cache write tokens "
                                   "(priced by --prices, each model at its own price)"),
    ]


def read_inspect(data: bytes, name: str, *, path: Path | None = None, agent: str | None = None,
                 experiment: str | None = None, scorer: str | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> Imported:
    """Map an Inspect AI log (.eval or .json, as bytes) to a raw runs table (SPEC 7)."""
    # Before any reading: the checks below stream the log with inspect_ai's own dependencies (zstandard, ijson).
    if importlib.util.find_spec("inspect_ai") is None:
        raise _needs_inspect(name)
    fmt = "eval" if data.startswith(ZIP_MAGIC) else "json"
    if fmt == "eval":
        _check_zip(data, name, limits)
    else:
        depth = json_depth(data)
        if depth > limits.max_json_depth:
            raise file_error(name, too_deep(depth, limits.max_json_depth))
        scan_json(io.BytesIO(data), name, limits, events_at="samples.*.events")
    if fmt == "eval" and path is None:
        # From a file the reader skips what no run column needs (events are most of a log); from bytes it cannot.
        with tempfile.TemporaryDirectory(prefix="inspect-") as folder:
            copy = Path(folder) / "log.eval"
            copy.write_bytes(data)
            log = _read_log(data, fmt, name, copy)
    else:
        log = _read_log(data, fmt, name, path)
    samples = log.samples
    if not samples:
        raise file_error(name, "the log has no samples (written with log_samples=False, header only, "
                               "or the evaluation never ran a sample)")
    check_rows(len(samples), name, limits, "samples")
    scorer = _chosen_scorer(log, scorer, name)
    base_agent = agent if agent is not None else f"{log.eval.model}@{log.eval.task}"
    agent_id = agent_with_experiment(base_agent, experiment)

    records = Records("sample")
    counts = {"partial": 0, "nan_score": 0, "unscored": 0, "failed_scored": 0, "some_cost": 0, "naive": 0}
    trials = []
    read_apart: Counter[str] = Counter()  # scores the two readings take apart, by the value as written
    for sample in samples:
        row = _sample_row(sample, log.eval.run_id, agent_id, scorer, counts)
        records.add(row)
        value = _infinite_score(sample, scorer)
        if value is not None:  # Inspect's accuracy would be infinite; the report would not be JSON
            records.problem(len(records.rows) - 1, "success", value, "the score is not a finite number")
        trial = _trial(sample, row, scorer)
        trials.append(trial)
        if trial.value is not None and not math.isnan(trial.value) and (row["success"] is True) != (trial.value == 1):
            read_apart[repr(trial.raw)] += 1

    warnings = _warnings(log, counts, len(samples)) + _read_apart_warning(read_apart)
    epochs = getattr(log.eval.config, "epochs", None)
    warnings += trial_count_warnings([agent_id] * len(samples), [str(s.id) for s in samples],
                                     epochs if isinstance(epochs, int) else None)  # Inspect prints no pass^k
    others = [s for s in _scorer_names(log) if s != scorer]
    unmapped = ["working_time (s): the import uses total_time"]
    if others:
        unmapped.append(f"scores of {', '.join(repr(s) for s in others)}: the import uses the first scorer "
                        "(choose another one explicitly)")
    return imported_from(records, RUNS_COLUMNS + TOKEN_COLUMNS + ("epoch", USAGE_COLUMN), name=name, kind=KIND,
                         mapped=mapping_lines(scorer, agent, experiment),
                         unmapped=unmapped, warnings=warnings, experiment=experiment, trials=trials,
                         scorer=None if scorer == NO_SCORER else scorer, reducer=_first_reducer(log))


def _first_reducer(log: Any) -> str | None:
    """The log's first epoch reducer (the one Inspect reports first), None when it names none (``mean``),
    ``reading.UNREDUCED`` for an empty list (every epoch scored alone)."""
    reducers = getattr(log.eval.config, "epochs_reducer", None)
    if reducers is None:
        return None
    return str(reducers[0]) if reducers else UNREDUCED


@contextlib.contextmanager
def _quiet(function: Any) -> Iterator[None]:
    """``function``'s module logs no warning meanwhile (Inspect's "Unable to convert value to float", unlabelled on
    stderr)."""
    logger = logging.getLogger(function.__module__)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _infinite_score(sample: Any, scorer: str) -> float | None:
    """The chosen score's value where it is an infinite number (NaN is Inspect's "unscored"), else None."""
    score = (sample.scores or {}).get(scorer)
    value = None if score is None else score.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isinf(value) else None


def _trial(sample: Any, row: dict[str, Any], scorer: str) -> Trial:
    """The sample epoch as Inspect's ``accuracy()`` reads it: ``value_to_float`` of the chosen scorer's
    value; a sample without that score (an errored one) is not counted."""
    from inspect_ai.scorer import value_to_float

    score = (sample.scores or {}).get(scorer)
    if score is not None and isinstance(score.value, (dict, list)):
        # A dict or list value: Inspect reduces it per key (or index) and reports its metrics under the keys,
        # never as one accuracy of the scorer (its accuracy() reads a container as 0 with a warning); no reading.
        return Trial(row["agent_id"], row["task_id"], False, False, trial=sample.epoch)
    if _infinite_score(sample, scorer) is not None:  # refused (read_inspect): no reading counts it
        return Trial(row["agent_id"], row["task_id"], False, False, trial=sample.epoch)
    with _quiet(value_to_float):  # a value it cannot read: said once by the import's warnings, not per sample
        value = None if score is None else float(value_to_float()(score.value))
    raw = score.value if score is not None and isinstance(score.value, (str, int, float, bool)) else value
    return Trial(row["agent_id"], row["task_id"], value is not None, value == 1.0, value=value,
                 trial=sample.epoch, raw=raw)


def _check_zip(data: bytes, name: str, limits: Limits) -> None:
    """Bound a .eval archive: its directory first (declared sizes, sample entries), then every member
    unpacked once, counting the bytes it really produces, each JSON member within the nesting and
    events limits (a directory can lie; the inflater cannot)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise file_error(name, f"not readable as an Inspect .eval log (a zip archive): {exc}") from None
    unpacked = sum(e.file_size for e in entries)
    if unpacked > limits.max_memory:
        raise file_error(name, f"the log unpacks to {format_size(unpacked)}, more than the limit of "
                               f"{format_size(limits.max_memory)} (max_memory); refused before reading")
    check_rows(sum(e.filename.startswith("samples/") for e in entries), name, limits, "samples")
    check_rows(len(entries), name, limits, "archive entries")
    check_archive(data, name, limits, json_members=_member_events)


def _member_events(filename: str) -> str | None:
    """Where a .eval member's events are ("events" in a sample), "" for other JSON, None for other files."""
    if not filename.endswith(".json"):
        return None
    return "events" if filename.startswith("samples/") else ""


def _needs_inspect(name: str) -> Exception:
    """The refusal of an Inspect log where the [inspect] extra (inspect_ai, and with it zstandard and ijson) is
    not installed: what to install, exit status 2, never an ImportError traceback."""
    return file_error(name, "reading Inspect logs needs the inspect_ai package, which is not installed: "
                            + install_hint("inspect"))


def _read_log(data: bytes, fmt: str, name: str, path: Path | None) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:  # inspect_ai comes with the [inspect] extra
        raise _needs_inspect(name) from None
    try:
        if path is not None and fmt == "eval":
            # From disk the reader can skip what no run column needs (events are most of a log).
            return read_eval_log(str(path), format="eval", exclude_fields=UNNEEDED_FIELDS)
        return read_eval_log(io.BytesIO(data), format="eval" if fmt == "eval" else "json")
    except Exception as exc:
        raise file_error(name, f"not readable as an Inspect log: {_reader_error(exc)}") from None


def _located(loc: tuple[object, ...]) -> str:
    """A pydantic error's location, a sample counted from 1 as every other message counts it (Inspect's reader
    says ``samples.1.id`` of the second sample).

    >>> _located(("samples", 1, "id")), _located(("eval", "task")), _located(())
    ('sample 2: id', 'eval.task', '')
    """
    if len(loc) >= 2 and loc[0] == "samples" and isinstance(loc[1], int):
        rest = ".".join(str(p) for p in loc[2:])
        return f"sample {loc[1] + 1}" + (f": {rest}" if rest else "")
    return ".".join(str(p) for p in loc)


def _reader_error(exc: Exception) -> str:
    """The reader's refusal in a line: a pydantic validation error as its first field and reason.

    Examples
    --------
    >>> _reader_error(ValueError("bad   header"))
    'bad header'
    """
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = _located(tuple(first.get("loc", ()))) or "the log"
            count = len(errors())
            more = f" (and {count - 1} more)" if count > 1 else ""
            return f"{where}: {first.get('msg', 'invalid')}{more}; the file does not have Inspect's log layout"
        except (IndexError, TypeError, AttributeError):
            pass
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def _scorer_names(log: Any) -> list[str]:
    names = [s.name for s in (log.eval.scorers or [])]
    if not names and log.results is not None:
        names = [s.name for s in log.results.scores]
    for sample in log.samples or []:
        for key in sample.scores or {}:
            if key not in names:
                names.append(key)
    return names


def _chosen_scorer(log: Any, scorer: str | None, name: str) -> str:
    names = _scorer_names(log)
    if scorer is None:
        if not names:
            return NO_SCORER
        return names[0]  # SPEC 7: the first scorer
    if scorer not in names:
        raise file_error(name, f"the log has no scorer {scorer!r}; it has: {', '.join(names) or 'none'}")
    return scorer


def _sample_row(sample: Any, run_id: str, agent_id: str, scorer: str, counts: dict[str, int]) -> dict[str, Any]:
    status = FAILED if sample.error is not None else TIMEOUT if sample.limit is not None else COMPLETED
    score = (sample.scores or {}).get(scorer)
    # A failed sample scored anyway (score_on_error) keeps its score: Inspect judged it.
    success = run_success(status, None if score is None else score_outcome(score.value), judges_failed=True)
    if score is None:
        counts["unscored"] += status != FAILED
    else:
        unscored = isinstance(score.value, float) and math.isnan(score.value)  # Inspect's "unscored" sentinel
        counts["nan_score"] += unscored
        counts["partial"] += success is None and not unscored
        counts["failed_scored"] += status == FAILED
    costs = [u.total_cost for u in sample.model_usage.values()]
    known = [c for c in costs if c is not None]
    counts["some_cost"] += bool(known) and len(known) < len(costs)
    agent_messages = [m for m in sample.messages if m.role == "assistant"]
    # No assistant message at all (a sample that failed before the model answered): no step
    # evidence, so empty, as for the other harnesses; otherwise the count, 0 included.
    steps = sum(len(m.tool_calls or []) for m in agent_messages) if agent_messages else None
    counts["naive"] += is_naive_timestamp(sample.completed_at)
    usage = list(sample.model_usage.items())
    # Each model's tokens, for --prices (a model-graded scorer's grader has usage of its own; Inspect's input_tokens
    # leaves out cache reads and writes, which its own compute_model_cost adds): (model, in, out, cache read, write).
    by_model = [[str(m), u.input_tokens or 0, u.output_tokens or 0, u.input_tokens_cache_read or 0,
                 u.input_tokens_cache_write or 0] for m, u in usage]
    return {
        USAGE_COLUMN: json.dumps(by_model) if by_model else None,
        "input_tokens": sum(u.input_tokens for _, u in usage) if usage else None,
        "output_tokens": sum(u.output_tokens for _, u in usage) if usage else None,
        "model": usage[0][0] if len(usage) == 1 else None,
        "run_id": f"{run_id}:{sample.id}:{sample.epoch}",
        "epoch": sample.epoch,
        "agent_id": agent_id,
        "task_id": str(sample.id),
        "status": status,
        "success": success,
        "latency_ms": None if sample.total_time is None else scale_exactly(sample.total_time, 1000.0),
        "cost_usd": sum(known) if known else None,
        "steps": steps,
        "finished_at": sample.completed_at,
    }


def _read_apart_warning(read_apart: Counter[str]) -> list[str]:
    """Where the explorer's outcome (SPEC 7: C/1/1.0/true in any case, spaces trimmed) and Inspect's value_to_float
    (C exactly, yes/true in any case, a number) take a score apart, so that Inspect's own accuracy and the canonical
    success rate differ on it (a reviewer's 'c': a success here, 0 in Inspect, the gap said nowhere)."""
    if not read_apart:
        return []
    shown = ", ".join(f"{one_line(v)} ({n})" for v, n in read_apart.most_common(5))
    more = f" and {len(read_apart) - 5} more" if len(read_apart) > 5 else ""
    return [f"{sum(read_apart.values())} sample(s) have a score the two readings take apart, so Inspect's own "
            f"accuracy and the canonical success rate differ on them: {shown}{more}. A success here is C, 1, 1.0 or "
            "true in any case; Inspect's value_to_float counts only 'C' itself, yes/true and numbers"]


def _warnings(log: Any, counts: dict[str, int], n: int) -> list[str]:
    out = []
    if log.status != "success":
        out.append(f"the log's status is {log.status!r}: the evaluation did not finish cleanly; its {n} "
                   "sample(s) are imported as recorded")
    if not log.eval.run_id:
        out.append("the log has no eval.run_id: run ids start with ':' and may collide with another such log")
    return out + counted_warnings(counts, {
        "partial": "{n} sample(s) have a score that is neither correct nor incorrect (partial credit or another "
                   "value): success left empty",
        "nan_score": "{n} sample(s) have a NaN score (Inspect's mark for unscored): success left empty; Inspect "
                     "leaves them out of its metrics",
        "unscored": "{n} sample(s) that did not fail have no score: success left empty",
        "failed_scored": "{n} failed sample(s) were scored anyway (score_on_error): their score is kept as recorded",
        "some_cost": "{n} sample(s) record a cost for only some of their models: cost_usd sums the recorded ones",
        "naive": "{n} completed_at value(s) have no time zone: read as UTC"})
