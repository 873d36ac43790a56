"""What every importer shares (SPEC 7): the result types, bounded reading, the outcome rules.

An importer turns one harness file into a *raw* runs table: the SPEC 1 columns, not yet
validated, one row per source record, plus the record number each row came from. The one
validator (:func:`scoring.load.runs.validate_runs`) then decides what is valid. An importer never
repairs a value: a record it cannot read becomes a :class:`~scoring.load.runs.Problem` naming the
record, the field and the reason, and a value it can read but that is wrong (a negative
duration, a timestamp that is not ISO-8601) is passed on for the validator to report.

Every input is hostile: files are refused before parsing when they exceed
:class:`~scoring.contract.limits.Limits` (bytes against ``max_memory``, records against ``max_rows``,
nesting against ``max_json_depth``), and every refusal is a
:class:`~scoring.load.runs.RunsValidationError`, never a traceback.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from scoring.contract.format import named
from scoring.contract.limits import Limits, format_size, row_limit_refusal, special_file, special_file_reason
from scoring.contract.safejson import (
    SURROGATE_ESCAPE,
    RepeatedKey,
    decode_error_words,
    escape_lone_surrogates,
    json_depth,
    parse_int,
    refuse_repeated_keys,
    too_deep,
)
from scoring.contract.schema import FAILED, FIRST_SEEN, NUMBER_PATTERN, PASS_THROUGH_COLUMNS, SPEC_COLUMNS, Reason
from scoring.load.importers.reading import HarnessReading, Trial, harness_readings
from scoring.load.runs import LoadedRuns, Problem, RunsValidationError, decode_text, validate_runs

RUNS_COLUMNS = SPEC_COLUMNS
EXPERIMENT_COLUMN = "experiment"
# Kept per run beside the SPEC 1 columns (the validator reads only SPEC 1 columns): what a harness records
# that the runs table has no column for. Tokens and the model let --prices estimate a cost.
TOKEN_COLUMNS = ("input_tokens", "output_tokens", "model")
# Per run, each model's [model, input, output, cache read, cache write] tokens (JSON text) where a harness records
# them by model (Inspect's model_usage): --prices prices each model at its own price, cached tokens at their rates.
USAGE_COLUMN = "token_usage"
NUMERIC_COLUMNS = ("latency_ms", "cost_usd", "steps", "input_tokens", "output_tokens")
TITLES = {
    "tau2": "tau2-bench Results JSON",
    "terminal-bench": "terminal-bench results.json",
    "tau-bench": "tau-bench results list",
    "inspect": "Inspect AI log",
    "runs": "runs table",
    "mapped": "table with a column mapping",
}
# tau2-bench's ``is_successful`` and tau-bench's REWARD_SUCCESS_MIN/MAX (SPEC 7): a success is a
# reward within 1e-6 of 1.
REWARD_TOLERANCE = 1e-6

Source = str | Path | bytes | bytearray | BinaryIO


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class MappedColumn:
    """One runs column and where its values come from, source unit and conversion included.

    Examples
    --------
    >>> str(MappedColumn("latency_ms", "duration (s) x 1000"))
    'latency_ms <- duration (s) x 1000'
    """

    column: str
    source: str

    def __str__(self) -> str:
        return f"{self.column} <- {self.source}"


@dataclass(frozen=True)
class FileReport:
    """What one source file gave: its runs, how each column was mapped, what could not be.

    The file's records are rows ``row_offset + 1`` to ``row_offset + last_row`` of the
    combined table; a record's number inside its file is its row minus ``row_offset``
    (for a single file the offset is 0, so rows *are* record numbers).
    """

    name: str
    kind: str
    runs: int
    record_label: str
    mapped: tuple[MappedColumn, ...]
    unmapped: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    agents: tuple[str, ...] = ()
    tasks: int = 0
    row_offset: int = 0
    last_row: int = 0
    record_names: tuple[str, ...] | None = None  # e.g. tau2's folder form: one file per simulation
    # What the harness's own metrics read from each record (scoring.load.importers.reading), and Inspect's scorer.
    trials: tuple[Trial, ...] = field(default=(), repr=False, compare=False)
    scorer: str | None = None
    reducer: str | None = None  # Inspect's first epoch reducer (eval.config.epochs_reducer); None: mean

    def locate(self, row: int) -> str:
        """Where a row of the combined table comes from, in the source's own words."""
        local = row - self.row_offset
        if self.record_names is not None and 1 <= local <= len(self.record_names):
            return f"{self.name}: {self.record_label} {self.record_names[local - 1]}"
        return f"{self.name}: {self.record_label} {local}"

    def to_json(self) -> dict:
        return {
            "name": self.name, "kind": self.kind, "format": TITLES.get(self.kind, self.kind),
            "runs": self.runs, "rows": [self.row_offset + 1, self.row_offset + self.last_row],
            "agents": list(self.agents), "tasks": self.tasks,
            "mapped": {m.column: m.source for m in self.mapped},
            "not_mapped": list(self.unmapped), "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class ImportReport:
    """How harness files became runs: per file the mapping, what was not mapped, and warnings.

    SPEC 7: the mapping is shown and exported with the report, and every mapped value keeps
    its source unit in its description.
    """

    files: tuple[FileReport, ...]
    warnings: tuple[str, ...] = ()  # about the files together (agents pooled across files, ...)
    skipped: tuple[tuple[str, str], ...] = ()  # (file, why) refused files left out of a batch (--exclude-invalid)
    estimated_cost: tuple[str, ...] = ()  # agents whose cost_usd was estimated from tokens (--prices)

    @property
    def kind(self) -> str:
        kinds = {f.kind for f in self.files}
        return kinds.pop() if len(kinds) == 1 else "mixed"

    @property
    def mapped(self) -> tuple[MappedColumn, ...]:
        """Every distinct mapping line, in file order."""
        return tuple(dict.fromkeys(m for f in self.files for m in f.mapped))

    @property
    def unmapped(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(u for f in self.files for u in f.unmapped))

    def all_warnings(self) -> tuple[str, ...]:
        """File warnings (prefixed with the file name when there are several files), then the joint ones."""
        several = len(self.files) > 1
        out = [f"{f.name}: {w}" if several else w for f in self.files for w in f.warnings]
        return tuple(out) + self.warnings

    def harness_readings(self) -> dict[str, HarnessReading]:
        """Per agent imported from a harness, the harness's own reading of its records (SPEC 6 ``harness``)."""
        groups = []
        for f in self.files:
            by_agent: dict[str, list[Trial]] = {}
            for t in f.trials:
                by_agent.setdefault(t.agent_id, []).append(t)
            groups += [(f.kind, agent, f.scorer, f.reducer, trials) for agent, trials in by_agent.items()]
        return harness_readings(groups)

    def file_for(self, row: int) -> FileReport | None:
        for f in self.files:
            if f.row_offset < row <= f.row_offset + f.last_row:
                return f
        return None

    def locate(self, row: int) -> str:
        """'grok-3.json: simulation 3' for a row of the combined table; a name two inputs share is told apart by the
        input's place ('runs.csv (input 2): row 1': a reviewer's duplicate across two folders' runs.csv)."""
        f = self.file_for(row)
        if f is None:
            return f"row {row}"
        said = f.locate(row)
        if sum(g.name == f.name for g in self.files) > 1:
            said = f"{f.name} (input {self.files.index(f) + 1})" + said[len(f.name):]
        return said

    def text(self) -> str:
        """The report in words, for a person: one block per file, then the joint warnings."""
        total = sum(f.runs for f in self.files)
        lines = [f"Imported {total:,} run(s) from {len(self.files)} file(s)."]
        for f in self.files:
            first, last = f.row_offset + 1, f.row_offset + f.last_row
            lines.append(f"{f.name}: {TITLES.get(f.kind, f.kind)}, {f.runs:,} {f.record_label}(s) "
                         f"(rows {first}-{last}), {len(f.agents)} agent(s): {', '.join(f.agents)}; "
                         f"{f.tasks} task(s)")
            lines.append("  mapped (the explorer's own import rules):")
            lines += [f"    {m}" for m in f.mapped]
            if f.unmapped:
                lines.append("  not mapped:")
                lines += [f"    - {u}" for u in f.unmapped]
            if f.warnings:
                lines.append("  warnings:")
                lines += [f"    - {w}" for w in f.warnings]
        if self.warnings:
            lines.append("Across files:")
            lines += [f"  - {w}" for w in self.warnings]
        if self.skipped:
            lines.append(f"Skipped {len(self.skipped)} refused file(s) (excluded explicitly; the rest is scored):")
            lines += [f"  - {name}: {why}" for name, why in self.skipped]
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The mapping and warnings as JSON, to be exported beside a score report (SPEC 7)."""
        out: dict[str, Any] = {"files": [f.to_json() for f in self.files], "warnings": list(self.warnings)}
        if self.skipped:
            out["skipped"] = [{"name": name, "reason": why} for name, why in self.skipped]
        return out


@dataclass(frozen=True, eq=False)
class Imported:
    """A raw runs table read from harness files, with its source rows and its import report.

    ``raw`` has the SPEC 1 column names (plus ``experiment`` when a tag was given) and is
    *not* validated; ``rows`` gives, per raw row, its row number (the record number inside
    its file, offset per file when several files were combined); ``problems`` are the records
    the importer could not read. :meth:`validate` hands all of it to the one validator.
    """

    raw: pd.DataFrame
    rows: np.ndarray
    report: ImportReport
    problems: tuple[Problem, ...] = ()
    source: str = "input"

    @property
    def kind(self) -> str:
        return self.report.kind

    def validate(self, *, exclude_invalid: bool = False) -> LoadedRuns:
        """The canonical runs frame via :func:`scoring.load.runs.validate_runs`, or its refusal.

        Problems found by the validator get the source record appended to their reason
        ("(grok-3.json: simulation 3)"), so every message points into the harness file.
        """
        mine = set(self.problems)
        try:
            loaded = validate_runs(self.raw, rows=self.rows, source=self.source, format=self.kind,
                                   exclude_invalid=exclude_invalid, prior_problems=list(self.problems),
                                   warnings=list(self.report.all_warnings()))
        except RunsValidationError as exc:
            located = [p if p in mine else self._located(p) for p in exc.problems]
            # Every count of the refusal kept, not recounted from the problems it keeps (at most MAX_PROBLEMS_KEPT).
            raise RunsValidationError(located, rows_read=exc.rows_read, source=exc.source, can_exclude=exc.excludable,
                                      total=exc.total, invalid_rows=exc.invalid_rows).with_lines(exc.lines) from None
        readings = self.report.harness_readings()
        if loaded.excluded_problems:
            excluded = tuple(p if p in mine else self._located(p) for p in loaded.excluded_problems)
            # The harness reads its file whole: its own numbers count the rows excluded here (a reviewer's tau2 file
            # read "over 9 runs" beside a score of 6, the difference said nowhere).
            said = ([f"each harness's own reading reads its file whole, so it may count the {loaded.excluded_rows} "
                     "row(s) excluded here: its numbers and the canonical ones may count different runs"]
                    if readings else [])
            loaded = dataclasses.replace(loaded, excluded_problems=excluded, warnings=(*loaded.warnings, *said))
        return dataclasses.replace(loaded, harness=readings, estimated_cost=self.report.estimated_cost)

    def _located(self, problem: Problem) -> Problem:
        if problem.row is None or (len(self.report.files) == 1 and self.report.files[0].kind in ("runs", "mapped")):
            return problem  # one table: its row *is* the source row, as SPEC 1 counts rows
        here = self.report.locate(problem.row)
        row = problem.first_row
        said = FIRST_SEEN.format(row=row) if row is not None else ""
        if row is None or not problem.reason.endswith(said):
            return dataclasses.replace(problem, reason=f"{problem.reason} ({here})")
        # A repeated run_id: this row's source, then the first row's (the source after the first row's number read
        # as the first row's: before, "first seen at row 8 (the folder: simulation file X)" named this row's file).
        return dataclasses.replace(problem, reason=f"{problem.reason[:-len(said)]} ({here})"
                                                   f"{said} ({self.report.locate(row)})")


# --------------------------------------------------------------------------- building a result


class Records:
    """Collects one raw row per source record and the problems found while reading them.

    Each problem names the record in the source's words ("simulation 12: termination_reason
    is missing"); a record with a problem keeps its row (so nothing disappears) but its
    ``run_id`` is left empty, so that even a caller who forgets the problems cannot score it.
    """

    def __init__(self, label: str, names: list[str] | None = None):
        self.label = label
        self.names = names
        self.rows: list[dict[str, Any]] = []
        self.problems: list[Problem] = []
        self._bad: set[int] = set()

    def where(self, index: int) -> str:
        name = self.names[index] if self.names is not None else str(index + 1)
        return f"{self.label} {name}"

    def problem(self, index: int, column: str | None, value: Any, reason: str) -> None:
        shown = None if value is _ABSENT else preview(value)
        self.problems.append(Problem.of(Reason.RECORD, index + 1, column, shown, where=self.where(index),
                                        detail=reason))
        self._bad.add(index)

    def refuse(self, index: int, reason: Reason, column: str, value: Any, note: str) -> None:
        """A record's value refused by a SPEC 1 rule (``reason``: its code), quoted as the file writes it, the record
        and what the value is (``note``) said after the rule."""
        self.problems.append(Problem(index + 1, column, preview(value), f"{reason.text()} ({self.where(index)}: "
                                     f"{note})", reason.code))
        self._bad.add(index)

    def add(self, row: dict[str, Any]) -> None:
        """Keep a record's row; a JSON whole number no double holds (``10**400``) is that record's problem, and so
        is a NaN (the frame's float columns hold no value as NaN: kept, it would read as an empty cell, dropped
        without a word; an Inspect sample's NaN ``total_time`` or ``total_cost``, a reviewer's log of 2026-12-06)."""
        for column in (*NUMERIC_COLUMNS, *PASS_THROUGH_COLUMNS):
            value = row.get(column)
            if isinstance(value, int) and not isinstance(value, bool) and as_number(value)[0] is None:
                self.problem(len(self.rows), column, value, f"{column} is too large for a number")
                row[column] = None
            elif isinstance(value, float) and math.isnan(value):
                self.problem(len(self.rows), column, value, Reason.NOT_FINITE.value)
                row[column] = None
        self.rows.append(row)

    def frame(self, columns: Iterable[str]) -> pd.DataFrame:
        """The raw table; the numeric columns as float64, success as nullable boolean."""
        columns = list(columns)
        data: dict[str, Any] = {}
        for column in columns:
            values = [r.get(column) for r in self.rows]
            if column in PASS_THROUGH_COLUMNS and not all(_plain_number(v) for v in values):
                # a value that is not a JSON number stays text, for the validator to report with its value
                # (text in full: cut short, a long number would be validated as another number)
                data[column] = pd.array([None if v is None else v if isinstance(v, str) else preview(v)
                                         for v in values], dtype="str")
            elif column in NUMERIC_COLUMNS or column in PASS_THROUGH_COLUMNS:
                data[column] = pd.array([np.nan if v is None else float(v) for v in values], dtype="float64")
            elif column == "success":
                data[column] = pd.array(values, dtype="boolean")
            else:
                data[column] = pd.array(values, dtype="str")
        frame = pd.DataFrame(data, index=pd.RangeIndex(len(self.rows)))
        if self._bad:
            bad = np.zeros(len(frame), dtype=bool)
            bad[sorted(self._bad)] = True
            frame["run_id"] = frame["run_id"].mask(bad)
        return frame


_ABSENT = object()  # a field that is not there at all (shown as no value)


def _plain_number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


_NUMERIC_TEXT = re.compile(NUMBER_PATTERN)  # text the validator would read as a number (a CSV cell is text)


def pass_through(row: dict[str, Any], record: Mapping[str, Any], keys: Mapping[str, str], records: Records,
                 index: int) -> None:
    """Copy a record's fields to pass-through columns (schema.PASS_THROUGH_COLUMNS) as they are: the validator
    checks them (a whole number >= 0, or empty) and no measure reads them. ``keys``: column -> record key. A number
    written as text is a problem of the record, as every other number of a harness JSON is (``"1000"`` tokens were
    priced by --prices as 1,000)."""
    for column, key in keys.items():
        value = record.get(key)
        if isinstance(value, str) and _NUMERIC_TEXT.fullmatch(value.strip()):  # other text: the validator's to refuse
            records.refuse(index, Reason.NOT_A_NUMBER, column, value, f"{key} is a number written as text")
            value = None
        row[column] = value


def absent() -> object:
    return _ABSENT


def preview(value: Any, limit: int = 200) -> str:
    """A short text form of a source value for a problem message."""
    if isinstance(value, str):
        return value[:limit]
    try:
        return json.dumps(value, default=str)[:limit]
    except (TypeError, ValueError):
        return repr(value)[:limit]


def as_number(value: Any) -> tuple[float | None, str | None]:
    """A JSON number as a finite float, or the reason it is not one (None is an empty value).

    Examples
    --------
    >>> as_number(1.5)
    (1.5, None)
    >>> as_number("12")
    (None, 'text, not a number')
    >>> as_number(None), as_number("NaN")
    ((None, None), (None, 'NaN, not a finite number'))
    """
    if value is None:
        return None, None
    if isinstance(value, bool):
        return None, "true/false, not a number"
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return None, "too large for a number"
        if not math.isfinite(number):
            return None, "not a finite number"
        return number, None
    if isinstance(value, str):
        if value in ("NaN", "Infinity", "-Infinity"):  # JSON's literal (the parser keeps it as its text) or that text
            return None, f"{value}, not a finite number"
        # A numeric string is refused, not read: "12" might be seconds or milliseconds.
        return None, "text, not a number"
    return None, "a nested value, not a number"


def scale_exactly(value: float, factor: float) -> float:
    """``value * factor`` taken from the shortest decimal forms of both (a unit change without float noise).

    Examples
    --------
    >>> 1.023 * 1000.0, scale_exactly(1.023, 1000.0), scale_exactly(0.07, 0.01)
    (1022.9999999999999, 1023.0, 0.0007)
    """
    return float(Decimal(repr(float(value))) * Decimal(repr(float(factor))))


def as_text_id(value: Any) -> tuple[str | None, str | None]:
    """An id field (text or whole number) as text, or the reason it is not one."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return value, None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value), None
    return None, "not text or a whole number"


def reward_success(reward: float) -> bool:
    """tau2-bench's success rule: 1 - 1e-6 <= reward <= 1 + 1e-6 (SPEC 7).

    Examples
    --------
    >>> reward_success(1.0), reward_success(0.9999995), reward_success(0.5), reward_success(1.1)
    (True, True, False, False)
    """
    return 1 - REWARD_TOLERANCE <= reward <= 1 + REWARD_TOLERANCE


def run_success(status: str | None, verdict: bool | None, *, judges_failed: bool = False,
                unknown: bool | None = None) -> bool | None:
    """The runs table's ``success`` for one imported run: SPEC 7's outcome rule, the one home every importer calls.

    ``verdict`` is the harness's judgement of the run, already read in its own terms (a reward through
    :func:`reward_success`, an Inspect score through its C/I vocabulary, terminal-bench's ``is_resolved``), or
    None when it gave none.

    - A failed run (the harness stopped it with an error) has no outcome (empty, SPEC 7 "failed -> empty"): the
      value such a run carries (tau2's and tau-bench's reward 0.0 of an error) is no judgement. A harness that
      judges failed runs too (``judges_failed``: Inspect's score_on_error, terminal-bench's tests, run whatever
      the agent did) keeps its verdict.
    - A run without a verdict has an unknown outcome (empty, SPEC 1), unless the harness counts it as a failure
      (``unknown=False``: terminal-bench's null ``is_resolved``, a mapping's ``empty: "false"``).
    - Otherwise the verdict, for a completed and a timed-out run alike (a timeout is judged as it ended).

    Examples
    --------
    >>> run_success("completed", True), run_success("timeout", False), run_success("completed", None)
    (True, False, None)
    >>> run_success("failed", False), run_success("failed", True, judges_failed=True)
    (None, True)
    >>> run_success("failed", None, judges_failed=True, unknown=False), run_success(None, True)
    (False, True)
    """
    if status == FAILED and not judges_failed:
        return None
    return unknown if verdict is None else verdict


def count_tool_calls(messages: Any, role: str = "assistant") -> tuple[int | None, str | None]:
    """Tool calls in the agent's messages (SPEC 7 ``steps``), or the reason they cannot be counted.

    Only messages of ``role`` count (a user simulator's tool calls are not the agent's).
    The count is empty (None) when no such message records a ``tool_calls`` field at all:
    no trajectory, or an agent that writes its actions as text (tau-bench's act/react).

    Examples
    --------
    >>> count_tool_calls([{"role": "assistant", "tool_calls": [{"id": 1}, {"id": 2}]},
    ...                   {"role": "user", "tool_calls": [{"id": 3}]},
    ...                   {"role": "assistant", "tool_calls": None}])
    (2, None)
    >>> count_tool_calls([{"role": "assistant", "content": "Action: ..."}])
    (None, None)
    """
    if messages is None:
        return None, None
    if not isinstance(messages, list):
        return None, "the messages are not a list"
    count, recorded = 0, False
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return None, f"message {i + 1} is not an object"
        if message.get("role") != role or "tool_calls" not in message:
            continue
        recorded = True
        calls = message["tool_calls"]
        if calls is None:
            continue
        if not isinstance(calls, list):
            return None, f"message {i + 1}: tool_calls is not a list"
        count += len(calls)
    return (count if recorded else None), None


def is_naive_timestamp(text: Any) -> bool:
    """An ISO-8601 text without a time zone (read as UTC, with a warning: SPEC 7).

    Examples
    --------
    >>> is_naive_timestamp("2025-10-06T06:24:03.245650"), is_naive_timestamp("2025-10-06T06:24:03Z")
    (True, False)
    """
    if not isinstance(text, str):
        return False
    try:
        return datetime.fromisoformat(text.strip()).tzinfo is None
    except ValueError:
        return False  # not a timestamp at all: the validator reports it


def counted_warnings(counts: Mapping[str, int], texts: Mapping[str, str]) -> list[str]:
    """The importers' counted warnings, one home: one line per case counted at least once, in the order of
    ``texts`` (case -> text, ``{n}`` the count).

    >>> counted_warnings({"naive": 2, "no_end": 0}, {"naive": "{n} value(s) have no zone", "no_end": "{n} no end"})
    ['2 value(s) have no zone']
    """
    return [text.format(n=counts[case]) for case, text in texts.items() if counts.get(case)]


def outcome_warnings(rewards: list[float], label: str) -> list[str]:
    """Say how rewards other than exactly 0 or 1 were read (SPEC 7's 1±1e-6 rule)."""
    odd = [r for r in rewards if r not in (0.0, 1.0)]
    if not odd:
        return []
    near = [r for r in odd if reward_success(r)]
    examples = ", ".join(f"{r:g}" for r in sorted(set(odd))[:5])
    return [f"{len(odd)} {label}(s) have a reward other than 0 or 1 ({examples}): success means "
            f"1 - 1e-6 <= reward <= 1 + 1e-6, so {len(near)} of them count as successes and "
            f"{len(odd) - len(near)} (partial credit included) as failures"]


def trial_count_warnings(agents: list[str], tasks: list[str], expected: int | None,
                         harness_note: str | None = None) -> list[str]:
    """The warning on unequal trial counts, per agent (trials are runs per task).

    SPEC 5 computes every k and counts pass^k = 0 for a task with fewer than k outcomes; ``harness_note``
    says what the harness itself does with the same file, where it prints a pass^k or pass@k (``{fewest}``
    in it reads as the fewest trials of a task), so that both are said.
    """
    out = []
    counts = pd.DataFrame({"agent": agents, "task": tasks}).value_counts()
    for agent, per_task in counts.groupby(level="agent", sort=True):
        n = per_task.droplevel("agent")
        low, high = int(n.min()), int(n.max())
        want = high if expected is None else max(expected, high)
        if low < want:
            fewest = sorted(str(t) for t in n[n == low].index)
            said = ("" if expected is None else " as info.num_trials" if expected >= high
                    else f"; info.num_trials says {expected}")  # a task may have run more often than it says
            counted = f"{low} to {high} per task" if low < high else f"{low} per task"  # all alike, but short
            out.append(f"agent {agent!s}: {'unequal trial counts' if low < high else 'fewer trials than expected'} "
                       f"({counted}; expected {want}{said}"
                       + f"); fewest: task(s) {', '.join(fewest[:5])}{' and more' if len(fewest) > 5 else ''}; "
                       + (harness_note.format(fewest=low) + "; " if harness_note else "")
                       + "the explorer computes every k and counts a task with fewer than k outcomes as 0")
    return out


def agent_with_experiment(agent: str, experiment: str | None) -> str:
    """The agent id with its experiment tag, so that same-model files stay apart.

    Examples
    --------
    >>> agent_with_experiment("xai/grok-3@airline", "prompt-v2")
    'xai/grok-3@airline [prompt-v2]'
    """
    if experiment is None:
        return agent
    return f"{agent} [{experiment}]"


def check_experiment(experiment: str | None) -> str | None:
    if experiment is None:
        return None
    if not isinstance(experiment, str) or not experiment.strip() or len(experiment) > 100:
        raise file_error("input", "the experiment tag must be non-empty text of at most 100 characters")
    return experiment.strip()


def unique_sorted(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(sorted({str(v) for v in values if v is not None and not (isinstance(v, float) and v != v)}))


def imported_from(records: Records, columns: Iterable[str], *, name: str, kind: str, mapped: list[MappedColumn],
                  unmapped: list[str], warnings: list[str], experiment: str | None,
                  trials: Iterable[Trial] = (), scorer: str | None = None,
                  reducer: str | None = None) -> Imported:
    """Assemble an :class:`Imported` for one file from its collected records."""
    columns = list(columns)
    if experiment is not None:
        columns.append(EXPERIMENT_COLUMN)
        for row in records.rows:
            row[EXPERIMENT_COLUMN] = experiment
    frame = records.frame(columns)
    report = FileReport(
        name=name, kind=kind, runs=len(frame), record_label=records.label, mapped=tuple(mapped),
        unmapped=tuple(unmapped), warnings=tuple(warnings), agents=unique_sorted(frame["agent_id"]),
        tasks=len(unique_sorted(frame["task_id"])), last_row=len(frame),
        record_names=tuple(records.names) if records.names is not None else None,
        trials=tuple(trials), scorer=scorer, reducer=reducer,
    )
    return Imported(frame, np.arange(1, len(frame) + 1), ImportReport((report,)), tuple(records.problems), name)


# --------------------------------------------------------------------------- bounded reading


def file_error(name: str, reason: str, column: str | None = None) -> RunsValidationError:
    return RunsValidationError([Problem.of(Reason.FILE, None, column, detail=reason)], source=name)


def read_bytes(source: Source, name: str, limits: Limits) -> bytes:
    """The source's bytes, refused before reading when larger than ``limits.max_memory``."""
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    elif isinstance(source, (str, Path)):
        path = Path(source)
        special = special_file(path)
        if special:
            raise file_error(name, special_file_reason(path, special))
        try:
            size = path.stat().st_size
            _check_size(size, name, limits)
            data = path.read_bytes()
        except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
            raise file_error(name, f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    else:
        data = source.read(limits.max_memory + 1)
        if not isinstance(data, (bytes, bytearray)):
            raise file_error(name, "the file must be opened in binary mode")
        data = bytes(data)
    _check_size(len(data), name, limits)
    return data


def _check_size(size: int, name: str, limits: Limits) -> None:
    if size > limits.max_memory:
        raise file_error(name, f"the file is {format_size(size)}, more than the limit of "
                                f"{format_size(limits.max_memory)} (max_memory); refused before reading")


def check_rows(count: int, name: str, limits: Limits, what: str = "runs") -> None:
    if count > limits.max_rows:
        raise file_error(name, row_limit_refusal(count, limits.max_rows, what))


def decode(data: bytes, name: str) -> tuple[str, list[str]]:
    try:
        return decode_text(data)
    except (RunsValidationError, UnicodeDecodeError) as exc:
        reason = exc.problems[0].reason if isinstance(exc, RunsValidationError) else f"not text ({exc.reason})"
        raise file_error(name, reason) from None


def parse_json(data: bytes, name: str, limits: Limits) -> tuple[Any, list[str]]:
    """Parse a harness JSON file within the limits; NaN/Infinity literals stay text (to be refused)."""
    depth = json_depth(data)
    if depth > limits.max_json_depth:
        raise file_error(name, too_deep(depth, limits.max_json_depth))
    text, warnings = decode(data, name)
    if not text.strip():
        raise file_error(name, "the file is empty")
    try:
        # An object repeating a key is refused: json keeps the last value, so a simulation giving "reward" twice
        # was scored on one of them without a word (a runs file's record is refused for it too).
        doc = json.loads(text, parse_constant=str, parse_int=parse_int, object_pairs_hook=refuse_repeated_keys)
    except RepeatedKey as exc:
        raise file_error(name, f"an object gives the key {named(exc.key)} more than once: a reader could see "
                               "either value, so none is read") from None
    except json.JSONDecodeError as exc:
        raise file_error(name, f"not valid JSON: {decode_error_words(exc)}") from None
    except (RecursionError, ValueError) as exc:  # ValueError: an integer beyond Python's digit limit
        raise file_error(name, f"not readable as JSON: {exc}") from None
    if SURROGATE_ESCAPE.search(text) and (changed := escape_lone_surrogates(doc)):
        warnings.append(f"{name}: {changed:,} text(s) hold a lone UTF-16 surrogate escape such as \\ud800 (half a "
                        "character pair, no character): each is read as the file spells it, escape and all")
    return doc, warnings


def get_path(doc: Any, path: str) -> Any:
    """``doc["info"]["agent_info"]["llm"]`` for ``"info.agent_info.llm"``; absent on any miss."""
    value = doc
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return _ABSENT
        value = value[key]
    return value


def text_or_problem(doc: Any, path: str) -> tuple[str | None, str | None]:
    """A required text field of the file's header: the text, or the reason it cannot be used."""
    value = get_path(doc, path)
    if value is _ABSENT or value is None:
        return None, f"{path} is missing"
    if not isinstance(value, str) or not value.strip():
        return None, f"{path} is not a non-empty text ({preview(value, 60)})"
    return value.strip(), None




# --------------------------------------------------------------------------- archives and streamed JSON

_LOCAL_HEADER = b"PK\x03\x04"
ZIP_ZSTD = 93
_READ = 1 << 20  # compressed bytes fed to the inflater at a time
_INFLATE = 1 << 20  # most bytes one inflate step may produce


class _Inflated(io.RawIOBase):
    """One zip member's bytes, inflated from its local header on, counted as they are produced.

    The archive's directory and local header may lie about a member's size: what counts is what
    the inflater produces. Past ``budget`` bytes the read stops with a refusal; a member that
    inflates past the size its directory declares is refused there (a 120 KB zstd bomb took 17 s of
    CPU when it was refused at the budget instead), and one that ends short of it at its end.
    """

    def __init__(self, data: bytes, entry: zipfile.ZipInfo, budget: int, name: str, limits: Limits):
        super().__init__()
        self.entry, self.budget, self.name, self.limits = entry, budget, name, limits
        start = entry.header_offset
        if data[start:start + 4] != _LOCAL_HEADER:
            raise file_error(name, f"archive member {entry.filename}: no local header where the directory says")
        name_len, extra_len = struct.unpack("<HH", data[start + 26:start + 30])
        begin = start + 30 + name_len + extra_len
        self.inflater: Any = None
        self.reader: Any = None
        if entry.compress_type == zipfile.ZIP_STORED:
            self.reader = io.BytesIO(data[begin:begin + entry.compress_size])
        elif entry.compress_type == zipfile.ZIP_DEFLATED:
            self.view = memoryview(data)[begin:]
            self.inflater = zlib.decompressobj(-15)
        elif entry.compress_type == ZIP_ZSTD:  # what Inspect writes
            import zstandard

            self.reader = zstandard.ZstdDecompressor().stream_reader(
                io.BytesIO(data[begin:begin + entry.compress_size]), read_size=_READ, read_across_frames=False)
        else:
            raise file_error(name, f"archive member {entry.filename}: compression method {entry.compress_type} "
                                   "is not read (only stored, deflated and zstd members)")
        self.position, self.produced, self.pending, self.done = 0, 0, b"", False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending and not self.done:
            self.pending = self._step()
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n

    def _step(self) -> bytes:
        try:
            if self.reader is not None:  # at most _INFLATE bytes per read, whatever the frame says
                chunk = self.reader.read(_INFLATE)
                self.done = not chunk
            else:
                source = self.inflater.unconsumed_tail or bytes(self.view[self.position:self.position + _READ])
                if not self.inflater.unconsumed_tail:
                    self.position += len(source)
                if not source:
                    raise file_error(self.name, f"archive member {self.entry.filename}: the compressed data ends "
                                                "early")
                chunk = self.inflater.decompress(source, _INFLATE)
                self.done = self.inflater.eof
        except RunsValidationError:
            raise
        except Exception as exc:
            raise file_error(self.name, f"archive member {self.entry.filename}: not readable ({exc})") from None
        self.produced += len(chunk)
        if self.produced > self.entry.file_size:  # as soon as it says so: a bomb stopped at once, not at the budget
            raise file_error(self.name, f"archive member {self.entry.filename} inflates to more than the "
                                        f"{self.entry.file_size:,} bytes its directory declares ({self.produced:,} "
                                        "bytes unpacked when the read stopped): refused")
        if self.produced > self.budget:
            unpacked = self.limits.max_memory - self.budget + self.produced
            raise file_error(self.name, f"unpacking stopped at {format_size(unpacked)}, more than the limit of "
                                        f"{format_size(self.limits.max_memory)} (max_memory): archive member "
                                        f"{self.entry.filename} alone gave {format_size(self.produced)} where its "
                                        f"directory says {format_size(self.entry.file_size)}")
        if self.done and self.produced != self.entry.file_size:
            raise file_error(self.name, f"archive member {self.entry.filename} inflates to {self.produced:,} bytes, "
                                        f"not the {self.entry.file_size:,} its directory declares: refused")
        return chunk


def check_archive(data: bytes, name: str, limits: Limits, *, json_members: Callable[[str], str | None]) -> int:
    """Unpack every member of a zip archive once, counting the bytes actually produced; refuse past the budget.

    ``json_members(filename)`` says, for a member that is JSON, what its events live under (see
    :func:`scan_json`), or None for a member that is not JSON. Each JSON member is streamed through
    :func:`scan_json` (nesting and events). Returns the unpacked size. Memory: one chunk at a time.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise file_error(name, f"not readable as a zip archive: {exc}") from None
    first = min((e.header_offset for e in entries), default=0)
    if first:
        # zipfile allows for bytes before an archive and shifts every member by them; Inspect's own reader does
        # not. A reviewer's file (a second archive appended to a first) showed this check one archive and
        # Inspect's reader the other: a 2 MB file past every limit, or a log scored that was never checked.
        raise file_error(name, f"the archive's first member starts at byte {first + 1:,}, not at its start "
                               "(bytes or another archive before it): readers would read different members")
    check_rows(len(entries), name, limits, "archive entries")
    total = 0
    for entry in entries:
        member = _Inflated(data, entry, limits.max_memory - total, name, limits)
        events = json_members(entry.filename)
        if events is None:
            while member.read(_INFLATE):
                pass
        else:
            scan_json(io.BufferedReader(member, _INFLATE), f"{name}: {entry.filename}", limits, events_at=events)
        total += member.produced
    return total


_SCALARS = frozenset({"null", "boolean", "integer", "double", "number", "string"})
_JSON_MARK_BYTES = (b'"', b"\\", b"N", b"I")  # a quote, a backslash, and the first letters of NaN and Infinity
_JSON_MARKS = re.compile(b"[" + b"".join(map(re.escape, _JSON_MARK_BYTES)) + b"]")  # any of them
_NONFINITE_AS = {ord("N"): b"0.0", ord("I"): b"0.000000"}  # NaN, Infinity: numbers of the same length


class NonFiniteAsNumbers:
    r"""A JSON byte stream with each ``NaN`` and ``Infinity`` literal outside strings read as a number of the
    same length (``0.0``, ``0.000000``; ``-Infinity`` becomes ``-0.000000``).

    Python's ``json`` writes these literals (Inspect AI marks an unscored sample with a NaN score) and the
    streaming parser refuses them; :func:`scan_json` only measures a document's shape, so any number does.
    Outside a string, ``N`` and ``I`` can only begin these literals in a document Python wrote; the state
    (inside a string, after a backslash, the rest of a literal) carries over from one chunk to the next.

    Examples
    --------
    >>> s = NonFiniteAsNumbers(io.BytesIO(b'{"NaN \\" I": NaN, "b": [-Infinity, Infinity]}'), chunk=5)
    >>> b"".join(iter(lambda: s.read(7), b""))
    b'{"NaN \\" I": 0.0, "b": [-0.000000, 0.000000]}'
    """

    def __init__(self, stream: BinaryIO, chunk: int = 1 << 16):
        self._stream, self._chunk = stream, chunk
        self._in_string = self._escaped = False
        self._pending = b""  # the rest of a replacement begun in the previous chunk
        self._buffer = b""
        self.quoted = False  # a string has begun: a document that ends with no parser event did not end blank

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._buffer) < size:
            data = self._stream.read(self._chunk)
            if not data:
                break
            rewritten = self._rewrite(data)
            self._buffer = self._buffer + rewritten if self._buffer else rewritten
        if size < 0 or len(self._buffer) <= size:  # a read of one whole chunk hands it on uncopied
            out, self._buffer = self._buffer, b""
        else:
            out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out

    def _rewrite(self, data: bytes) -> bytes:
        if not self._pending and not self._escaped and all(data.find(mark) < 0 for mark in _JSON_MARK_BYTES):
            return data  # a chunk with no mark (whitespace, digits, a long text's middle), found by memchr at 20x
            # the regular expression's pace
        buf, pos = bytearray(data), 0
        if self._pending:
            take = self._pending[:len(buf)]
            buf[:len(take)] = take
            self._pending, pos = self._pending[len(take):], len(take)
        if self._escaped and pos < len(buf):
            self._escaped, pos = False, pos + 1
        while (match := _JSON_MARKS.search(buf, pos)) is not None:
            j, c = match.start(), buf[match.start()]
            if self._in_string:
                if c == 0x5C:  # a backslash: the next byte is escaped (perhaps in the next chunk)
                    if j + 1 >= len(buf):
                        self._escaped = True
                        break
                    pos = j + 2
                    continue
                self._in_string = c != 0x22 and self._in_string
                pos = j + 1
            elif c == 0x22:
                self._in_string = self.quoted = True
                pos = j + 1
            elif c == 0x5C:  # a backslash outside a string: not JSON, left for the parser to refuse
                pos = j + 1
            else:
                number = _NONFINITE_AS[c]
                fits = number[:len(buf) - j]
                buf[j:j + len(fits)] = fits
                self._pending, pos = number[len(fits):], j + len(fits)
        return bytes(buf)


def scan_json(stream: BinaryIO, where: str, limits: Limits, *, events_at: str = "") -> None:
    """Stream a JSON document once: refuse nesting past ``max_json_depth`` and an events list past ``max_events``.

    ``events_at`` is the key path of a sample's events list with ``*`` for any list item
    (``"events"`` in a ``.eval`` sample member, ``"samples.*.events"`` in a ``.json`` log; empty: no
    events counted). Nothing is kept but a stack of keys, so the memory is that of one chunk.
    """
    import ijson

    target = tuple(events_at.split(".")) if events_at else None
    keys: list[str] = []  # per open container: its last key (maps) or "*" (lists)
    counting: list[bool] = []  # per open container: it is an events list
    count = 0
    # Reads of 1 MiB: yajl gathers a token that spans its reads by lexing it again from its start at each read, so
    # a token's cost grows with its length times its reads (a 40 MB text: 4.4 s in ijson's 64 KiB reads, 0.37 s in
    # 1 MiB ones); the memory is still one read at a time.
    source = NonFiniteAsNumbers(stream, chunk=_INFLATE)
    started = False  # a value has begun: a parser event came, or a string opened (source.quoted)
    try:
        for event, value in ijson.basic_parse(source, buf_size=_INFLATE, use_float=True):
            started = True
            if event == "map_key":
                keys[-1] = value
                continue
            if counting and counting[-1] and (event in _SCALARS or event in ("start_map", "start_array")):
                count += 1
                if count > 2 * limits.max_events:  # counted on only so far (time): the message gives a number
                    raise _too_many_events(where, f"more than {count - 1:,}", limits)
            if event in ("start_map", "start_array"):
                if len(keys) >= limits.max_json_depth:
                    raise file_error(where, f"the JSON nests {len(keys) + 1} levels deep (and may go deeper), more "
                                            f"than the limit of {limits.max_json_depth} (max_json_depth); refused "
                                            "while reading")
                is_events = event == "start_array" and target is not None and len(keys) == len(target) and all(
                    t in ("*", k) for t, k in zip(target, keys))
                counting.append(is_events)
                keys.append("*" if event == "start_array" else "")
                if is_events:
                    count = 0
            elif event in ("end_map", "end_array"):
                keys.pop()
                if counting.pop() and count > limits.max_events:
                    raise _too_many_events(where, f"{count:,}", limits)
    except ijson.JSONError as exc:
        raise file_error(where, f"not valid JSON ({_json_error_words(str(exc), started or source.quoted)})") from None


def _json_error_words(said: str, started: bool) -> str:
    """ijson's (yajl's) refusal in a reader's words: an end of the text says whether a value had begun (yajl says
    "premature EOF" of an empty text and of a cut one alike), any other refusal as yajl says it, on one line.

    >>> _json_error_words("parse error: premature EOF\\n   (right here) ------^", False)
    'it holds no JSON value: it is empty or only whitespace'
    >>> _json_error_words("parse error: premature EOF\\n   (right here) ------^", True)
    'it ends before the document is complete: an object, list or text is never closed'
    >>> _json_error_words("parse error: trailing garbage\\n  {}} (right here) ------^", True)
    'parse error: trailing garbage {}} (right here) ------^'
    """
    if "premature EOF" in said:
        return ("it ends before the document is complete: an object, list or text is never closed" if started
                else "it holds no JSON value: it is empty or only whitespace")
    return " ".join(said.split())[:200]


def _too_many_events(where: str, count: str, limits: Limits) -> RunsValidationError:
    return file_error(where, f"a sample has {count} events, more than the limit of {limits.max_events:,} "
                             "(max_events)")


Price = tuple[float, ...]  # USD per million tokens: (input, output) or (input, output, cache read, cache write)


def _run_estimate(model: object, tokens_in: float, tokens_out: float, usage: object,
                  prices: dict[str, Price]) -> tuple[float | None, str | None]:
    """One run's estimated cost, or None and why not: each model of ``usage`` at its own price (cache reads and
    writes at theirs), else the run's one ``model`` for its input and output tokens."""
    if isinstance(usage, str) and usage:
        usage = json.loads(usage)  # written by the importer (USAGE_COLUMN)
    if isinstance(usage, list) and usage:
        total = 0.0
        for name, t_in, t_out, t_read, t_write in usage:
            price = prices.get(name)
            if price is None:
                return None, f"no price for {name}"
            if (t_read or t_write) and len(price) < 4:
                return None, f"{name} records cached input tokens, and its price has no cache_read and cache_write"
            total += t_in * price[0] + t_out * price[1] + (t_read * price[2] + t_write * price[3] if len(price) >= 4
                                                           else 0.0)  # no cache price: no cached token (above)
        return total / 1e6, None
    if not isinstance(model, str):
        return None, None  # no model named: nothing to price by
    if model not in prices:  # the run keeps its empty cost, and the report says why (a reviewer's prices file of
        return None, f"no price for {model}"  # "Anthropic/Claude-Y " priced nothing, without a word)
    return (tokens_in * prices[model][0] + tokens_out * prices[model][1]) / 1e6, None


def apply_prices(imported: Imported, prices: dict[str, Price]) -> Imported:
    """Estimate ``cost_usd`` from token counts where a run records tokens but no cost (``--prices``).

    ``prices``: model -> (USD per million input tokens, USD per million output tokens[, cache read, cache
    write]). A run whose tokens are recorded per model (:data:`USAGE_COLUMN`) is priced model by model, and only
    when every one of its models is priced (a cached token only at a cache price); another run by its ``model``.
    Only empty costs are filled; the import report says how many, with the prices used, and why any run that
    records tokens was left unpriced; the agents are listed in ``report.estimated_cost`` (labelled "estimated"
    wherever their cost shows).
    """
    raw = imported.raw
    if not {"input_tokens", "output_tokens", "model", "cost_usd"} <= set(raw.columns):
        return imported
    cost = pd.to_numeric(raw["cost_usd"], errors="coerce")
    tokens_in = pd.to_numeric(raw["input_tokens"], errors="coerce").fillna(0.0)
    tokens_out = pd.to_numeric(raw["output_tokens"], errors="coerce").fillna(0.0)
    usage = raw[USAGE_COLUMN] if USAGE_COLUMN in raw.columns else pd.Series([None] * len(raw), index=raw.index)
    wanted = cost.isna() & (raw["input_tokens"].notna() | raw["output_tokens"].notna())
    estimates = {i: _run_estimate(raw.at[i, "model"], tokens_in[i], tokens_out[i], usage[i], prices)
                 for i in raw.index[wanted]}
    fill = pd.Series(False, index=raw.index)
    fill[[i for i, (value, _) in estimates.items() if value is not None]] = True
    unpriced = Counter(why for _, why in estimates.values() if why is not None)
    notes = [f"{n:,} run(s) record tokens but get no estimated cost: {why}" for why, n in sorted(unpriced.items())]
    if not fill.any():
        if not notes:
            return imported
        report = dataclasses.replace(imported.report, warnings=imported.report.warnings + tuple(notes))
        return dataclasses.replace(imported, report=report)
    raw = raw.copy()
    estimate = pd.Series({i: value for i, (value, _) in estimates.items() if value is not None}, dtype="float64")
    raw["cost_usd"] = cost.where(~fill, estimate.reindex(raw.index)).astype("float64")
    models = sorted({str(m) for m in raw.loc[fill, "model"] if isinstance(m, str)}
                    | {str(u[0]) for row in usage[fill] if isinstance(row, str) and row for u in json.loads(row)})
    used = "; ".join(f"{m}: ${prices[m][0]:g} in, ${prices[m][1]:g} out"
                     + (f", ${prices[m][2]:g} cache read, ${prices[m][3]:g} cache write" if len(prices[m]) >= 4 else "")
                     + " per million tokens" for m in models)
    note = (f"{int(fill.sum()):,} run(s) have cost_usd ESTIMATED from tokens x --prices ({used}); "
            "the cost is labelled estimated wherever it shows")
    line = MappedColumn("cost_usd", "ESTIMATED where empty: tokens x USD/M of each model (input, output, cache "
                                    "read and write) (--prices)")
    agents = tuple(sorted({str(a) for a in raw.loc[fill, "agent_id"] if isinstance(a, str)}))
    files = tuple(dataclasses.replace(f, mapped=f.mapped + (line,)) if set(f.agents) & set(agents) else f
                  for f in imported.report.files)
    report = dataclasses.replace(imported.report, files=files, warnings=imported.report.warnings + (note, *notes),
                                 estimated_cost=agents)
    return dataclasses.replace(imported, raw=raw, report=report)
