"""A column mapping for any CSV/JSON/Parquet results table (SPEC 7, last paragraph).

A :class:`Mapping` names, for each runs column, a source column (or, for the id columns,
several joined by a separator) and a conversion: a unit (seconds to milliseconds, cents to
USD), a success rule (a set of true values, or a reward threshold with a tolerance), a status
vocabulary, and an experiment tag. It is saved and reloaded as JSON; every field is checked
and a refusal names the field.

Applying a mapping never repairs a value: a cell it cannot convert (a latency ``"abc"``, a
success ``"maybe"``) is passed on unchanged, so the validator refuses it with the source row.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from scoring.contract.safejson import JsonRefused, load_json
from scoring.contract.schema import STATUSES, Reason, normalize_column_name
from scoring.load.importers._base import (
    EXPERIMENT_COLUMN,
    RUNS_COLUMNS,
    FileReport,
    Imported,
    ImportReport,
    MappedColumn,
    agent_with_experiment,
    is_naive_timestamp,
    run_success,
    scale_exactly,
    unique_sorted,
)
from scoring.load.runs import Problem, RunsValidationError

MAPPING_VERSION = 1
ID_COLUMNS = ("run_id", "agent_id", "task_id")
REQUIRED_SOURCES = ("run_id", "agent_id", "task_id", "status")  # a constant may stand in for agent_id, status
CONSTANT_COLUMNS = ("agent_id", "status")
# Source unit -> factor to the runs column's unit (SPEC 7: "unit scale (s -> ms)").
UNITS = {
    "latency_ms": {"ms": 1.0, "s": 1000.0, "min": 60000.0},
    "cost_usd": {"usd": 1.0, "cents": 0.01},
}
DEFAULT_UNITS = {"latency_ms": "ms", "cost_usd": "usd"}
MAX_NAME = 200
MAX_VALUES = 1000


class MappingError(ValueError):
    """A mapping was refused; ``field`` names the place ("units.latency_ms", "columns.run_id")."""

    def __init__(self, field: str, reason: str):
        self.field = field
        super().__init__(f"mapping field '{field}': {reason}" if field else f"mapping: {reason}")


@dataclass(frozen=True)
class SuccessRule:
    """How a source value becomes an outcome: true values (and optional false values), or a threshold.

    With ``true_values`` only, every other non-empty value is a failure. With ``false_values``
    too, a value in neither set is passed on unchanged (the validator refuses it unless it is
    a standard spelling such as ``true``). With ``threshold``, a number >= threshold - tolerance
    is a success (tau2's rule is threshold 1, tolerance 1e-6 for rewards in [0, 1]).

    An empty or null cell is an unknown outcome (``empty="unknown"``, the default), or a failure
    with ``empty="false"`` (terminal-bench counts a null ``is_resolved`` as unresolved); ``""``
    among the ``false_values`` says the same.

    Examples
    --------
    >>> SuccessRule(threshold=1.0, tolerance=1e-6).describe()
    'true when value >= 1 - 1e-06, else false; empty -> unknown'
    """

    true_values: tuple[str, ...] = ()
    false_values: tuple[str, ...] = ()
    threshold: float | None = None
    tolerance: float = 0.0
    empty: str = "unknown"

    def __post_init__(self) -> None:
        object.__setattr__(self, "true_values", _texts(self.true_values, "success.true_values"))
        falses = _texts(self.false_values, "success.false_values", allow_empty=True)
        if "" in falses:
            if self.empty not in ("unknown", "false"):
                raise MappingError("success.empty", "must be 'unknown' or 'false'")
            falses = tuple(v for v in falses if v)
            object.__setattr__(self, "empty", "false")
        object.__setattr__(self, "false_values", falses)
        if self.empty not in ("unknown", "false"):
            raise MappingError("success.empty", f"must be 'unknown' or 'false', got {_short(self.empty)}")
        if self.threshold is None:
            if not self.true_values:
                raise MappingError("success", "give either true_values or a threshold")
            if self.tolerance != 0.0:
                raise MappingError("success.tolerance", "a tolerance goes with a threshold only")
        else:
            if self.true_values or self.false_values:
                raise MappingError("success", "give either true_values or a threshold, not both")
            object.__setattr__(self, "threshold", _finite(self.threshold, "success.threshold"))
        tolerance = _finite(self.tolerance, "success.tolerance")
        if tolerance < 0:
            raise MappingError("success.tolerance", f"must be 0 or more, got {tolerance!r}")
        object.__setattr__(self, "tolerance", tolerance)
        both = {v.lower() for v in self.true_values} & {v.lower() for v in self.false_values}
        if both:
            raise MappingError("success.false_values", f"{sorted(both)[0]!r} is also a true value")

    def describe(self) -> str:
        empty = "; empty -> false" if self.empty == "false" else "; empty -> unknown"
        if self.threshold is not None:
            return f"true when value >= {self.threshold:g} - {self.tolerance:g}, else false{empty}"
        true = ", ".join(repr(v) for v in self.true_values)
        if self.false_values:
            false = ", ".join(repr(v) for v in self.false_values)
            return f"true for {true}; false for {false} (any case); other values left for validation{empty}"
        return f"true for {true} (any case); any other non-empty value -> false{empty}"

    def to_json(self) -> dict:
        out: dict[str, Any]
        if self.threshold is not None:
            out = {"threshold": self.threshold, "tolerance": self.tolerance}
        else:
            out = {"true_values": list(self.true_values)}
            if self.false_values:
                out["false_values"] = list(self.false_values)
        if self.empty != "unknown":
            out["empty"] = self.empty
        return out


@dataclass(frozen=True)
class Mapping:
    """Where each runs column comes from in a source table, and how it is converted (SPEC 7).

    Parameters
    ----------
    columns : dict
        runs column -> source column name; for run_id, agent_id and task_id a list of names,
        joined with ``separator``. Names are matched like SPEC 1 headers (case, spaces and
        hyphens do not matter).
    separator : str
        Joins several source columns into one id.
    units : dict
        Source unit of ``latency_ms`` (``ms``, ``s``, ``min``) and ``cost_usd`` (``usd``, ``cents``).
    success : SuccessRule, optional
        How the ``success`` source column becomes an outcome; without one it is read as SPEC 1.
    status_values : dict
        Source value (any case) -> runs status; other values are passed on unchanged.
    constants : dict
        A fixed ``agent_id`` or ``status`` for every row, for tables without that column.
    experiment : str, optional
        A tag added to every agent id ("model [tag]"), so that same-model tables stay apart.

    Examples
    --------
    >>> m = Mapping(columns={"run_id": "id", "agent_id": ["model", "prompt"], "task_id": "task",
    ...                      "status": "state", "latency_ms": "seconds"}, units={"latency_ms": "s"})
    >>> mapping_from_json(mapping_to_json(m)) == m
    True
    """

    columns: dict[str, Any]
    separator: str = "/"
    units: dict[str, str] = field(default_factory=dict)
    success: SuccessRule | None = None
    status_values: dict[str, str] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    experiment: str | None = None
    records: str | None = None
    latency_from: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.records is not None and (not isinstance(self.records, str) or not self.records.strip()
                                         or len(self.records) > MAX_NAME):
            raise MappingError("records", "must be a dotted path to the array of records, e.g. \"results\"")
        latency_from = tuple(self.latency_from or ())
        if latency_from:
            if len(latency_from) != 2:
                raise MappingError("latency_from", "must name two columns: [start, end] (ISO-8601 timestamps)")
            latency_from = tuple(_name(n, f"latency_from[{i}]") for i, n in enumerate(latency_from))
            if "latency_ms" in (self.columns if isinstance(self.columns, dict) else {}):
                raise MappingError("latency_from", "latency_ms is already mapped from a column: give one of them")
        object.__setattr__(self, "latency_from", latency_from)
        object.__setattr__(self, "columns", _columns(self.columns))
        if not isinstance(self.separator, str) or not 1 <= len(self.separator) <= 10:
            raise MappingError("separator", "must be text of 1 to 10 characters")
        object.__setattr__(self, "constants", _constants(self.constants, self.columns))
        for column in REQUIRED_SOURCES:
            if column not in self.columns and column not in self.constants:
                raise MappingError(f"columns.{column}", "required: name the source column"
                                   + (" or give a constant" if column in CONSTANT_COLUMNS else ""))
        object.__setattr__(self, "units", _units(self.units, self.columns))
        if self.success is not None:
            if not isinstance(self.success, SuccessRule):
                raise MappingError("success", "must be a success rule")
            if "success" not in self.columns:
                raise MappingError("success", "a success rule needs columns.success")
        object.__setattr__(self, "status_values", _status_values(self.status_values, self.columns))
        if self.experiment is not None and (not isinstance(self.experiment, str) or not self.experiment.strip()
                                            or len(self.experiment) > 100):
            raise MappingError("experiment", "must be non-empty text of at most 100 characters")

    def sources(self) -> list[str]:
        """Every source column the mapping reads, normalized like SPEC 1 headers."""
        names = [s for names in self.columns.values() for s in names] + list(self.latency_from)
        return list(dict.fromkeys(normalize_column_name(s) for s in names))


# --------------------------------------------------------------------------- checks


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        raise MappingError(where, f"must be a non-empty column name of at most {MAX_NAME} characters, "
                                  f"got {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _columns(columns: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(columns, dict) or not columns:
        raise MappingError("columns", "must be an object naming a source column per runs column")
    out = {}
    for column, source in columns.items():
        where = f"columns.{column}"
        if column not in RUNS_COLUMNS:
            raise MappingError(where, f"not a runs column; expected one of {', '.join(RUNS_COLUMNS)}")
        names = (source,) if isinstance(source, str) else source
        if not isinstance(names, (list, tuple)) or not names or len(names) > 10:
            raise MappingError(where, "must be a column name (or, for an id, a list of 1 to 10 names)")
        if len(names) > 1 and column not in ID_COLUMNS:
            raise MappingError(where, f"only {', '.join(ID_COLUMNS)} may join several columns")
        out[column] = tuple(_name(n, f"{where}[{i}]" if len(names) > 1 else where) for i, n in enumerate(names))
    return out


def _constants(constants: Any, columns: dict) -> dict[str, str]:
    if not isinstance(constants, dict):
        raise MappingError("constants", "must be an object")
    out = {}
    for column, value in constants.items():
        where = f"constants.{column}"
        if column not in CONSTANT_COLUMNS:
            raise MappingError(where, f"only {', '.join(CONSTANT_COLUMNS)} may be a constant")
        if column in columns:
            raise MappingError(where, f"{column} is already mapped from a source column")
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
            raise MappingError(where, f"must be non-empty text of at most {MAX_NAME} characters")
        if column == "status" and value.strip().lower() not in STATUSES:
            raise MappingError(where, f"{_short(value)} is not a status; expected one of {', '.join(STATUSES)}")
        out[column] = value.strip().lower() if column == "status" else value
    return out


def _units(units: Any, columns: dict) -> dict[str, str]:
    if not isinstance(units, dict):
        raise MappingError("units", "must be an object")
    out = {}
    for column, unit in units.items():
        where = f"units.{column}"
        if column not in UNITS:
            raise MappingError(where, f"only {', '.join(UNITS)} take a unit")
        if unit not in UNITS[column]:
            raise MappingError(where, f"unknown unit {_short(unit)}; expected one of {', '.join(UNITS[column])}")
        if column not in columns:
            raise MappingError(where, f"a unit needs columns.{column}")
        out[column] = unit
    return out


def _status_values(values: Any, columns: dict) -> dict[str, str]:
    if not isinstance(values, dict):
        raise MappingError("status_values", "must be an object: source value -> status")
    if values and "status" not in columns:
        raise MappingError("status_values", "a status vocabulary needs columns.status")
    if len(values) > MAX_VALUES:
        raise MappingError("status_values", f"at most {MAX_VALUES} values")
    out: dict[str, str] = {}
    for source, status in values.items():
        where = f"status_values.{source}"
        if not isinstance(source, str) or not source.strip() or len(source) > MAX_NAME:
            raise MappingError(where, "a source value must be non-empty text")
        if not isinstance(status, str) or status.strip().lower() not in STATUSES:
            raise MappingError(where, f"{_short(status)} is not a status; expected one of {', '.join(STATUSES)}")
        key = source.strip().lower()
        if key in (k.strip().lower() for k in out):
            raise MappingError(where, "given twice (source values match in any case)")
        out[source] = status.strip().lower()
    return out


def _texts(values: Any, where: str, *, allow_empty: bool = False) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, (list, tuple)) or len(values) > MAX_VALUES:
        raise MappingError(where, f"must be a list of at most {MAX_VALUES} texts")
    out = []
    for i, v in enumerate(values):
        if allow_empty and isinstance(v, str) and not v.strip():
            out.append("")  # "" names the empty cell
            continue
        if not isinstance(v, str) or not v.strip() or len(v) > MAX_NAME:
            raise MappingError(f"{where}[{i}]", f"must be a non-empty text of at most {MAX_NAME} characters, "
                                                f"got {_short(v)}")
        out.append(v.strip())
    return tuple(out)


def _finite(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise MappingError(where, f"must be a finite number, got {_short(value)}")
    return float(value)


# --------------------------------------------------------------------------- JSON


def mapping_to_json(mapping: Mapping) -> str:
    """The mapping as JSON text (reloaded by :func:`mapping_from_json`)."""
    doc: dict[str, Any] = {
        "mapping_version": MAPPING_VERSION,
        "columns": {c: (s[0] if len(s) == 1 else list(s)) for c, s in mapping.columns.items()},
        "separator": mapping.separator,
    }
    if mapping.units:
        doc["units"] = dict(mapping.units)
    if mapping.success is not None:
        doc["success"] = mapping.success.to_json()
    if mapping.status_values:
        doc["status_values"] = dict(mapping.status_values)
    if mapping.constants:
        doc["constants"] = dict(mapping.constants)
    if mapping.experiment is not None:
        doc["experiment"] = mapping.experiment
    if mapping.records is not None:
        doc["records"] = mapping.records
    if mapping.latency_from:
        doc["latency_from"] = list(mapping.latency_from)
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


_KEYS = ("mapping_version", "columns", "separator", "units", "success", "status_values", "constants", "experiment",
         "records", "latency_from")
_SUCCESS_KEYS = ("true_values", "false_values", "threshold", "tolerance", "empty")


def mapping_from_json(text: str | bytes) -> Mapping:
    """A mapping from JSON text, every field checked; :class:`MappingError` names the field refused.

    Examples
    --------
    >>> mapping_from_json('{"mapping_version": 1, "columns": {"run_id": "id"}, "colour": 1}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.load.importers.mapping.MappingError: mapping field 'colour': unknown field; expected one of ...
    """
    try:
        doc = load_json(text, what="mapping", max_bytes=1_000_000, max_depth=8, unique_keys=True)
    except JsonRefused as exc:
        raise MappingError(exc.where, exc.reason) from None  # its own words name the field once
    if not isinstance(doc, dict):
        raise MappingError("", "must be a JSON object")
    for key in doc:
        if key not in _KEYS:
            raise MappingError(str(key), f"unknown field; expected one of {', '.join(_KEYS)}")
    if doc.get("mapping_version") != MAPPING_VERSION:
        raise MappingError("mapping_version", f"must be {MAPPING_VERSION}, got {_short(doc.get('mapping_version'))}")
    success = doc.get("success")
    if success is not None:
        if not isinstance(success, dict):
            raise MappingError("success", "must be an object")
        for key in success:
            if key not in _SUCCESS_KEYS:
                raise MappingError(f"success.{key}", f"unknown field; expected one of {', '.join(_SUCCESS_KEYS)}")
        success = SuccessRule(true_values=success.get("true_values", ()), false_values=success.get("false_values", ()),
                              threshold=success.get("threshold"), tolerance=success.get("tolerance", 0.0),
                              empty=success.get("empty", "unknown"))
    if "columns" not in doc:
        raise MappingError("columns", "required")
    return Mapping(columns=doc["columns"], separator=doc.get("separator", "/"), units=doc.get("units", {}),
                   success=success, status_values=doc.get("status_values", {}),
                   constants=doc.get("constants", {}), experiment=doc.get("experiment"), records=doc.get("records"),
                   latency_from=_pair(doc.get("latency_from", ())))


def _pair(value: Any) -> tuple:
    if not isinstance(value, (list, tuple)):
        raise MappingError("latency_from", "must be a list of two column names: [start, end]")
    return tuple(value)


# --------------------------------------------------------------------------- applying


def describe(mapping: Mapping, experiment: str | None = None) -> list[MappedColumn]:
    """Each mapped runs column in words, with its source unit (SPEC 7)."""
    out = []
    for column in RUNS_COLUMNS:
        if column in mapping.constants:
            text = f"constant {mapping.constants[column]!r}"
        elif column in mapping.columns:
            names = mapping.columns[column]
            text = (f" + {mapping.separator!r} + ".join(repr(n) for n in names) if len(names) > 1
                    else repr(names[0]))
            if column in UNITS:
                unit = mapping.units.get(column, DEFAULT_UNITS[column])
                text += f" ({unit}) x {UNITS[column][unit]:g}"
            elif column == "success" and mapping.success is not None:
                text += f": {mapping.success.describe()}"
            elif column == "status" and mapping.status_values:
                text += ": " + "; ".join(f"{k!r} -> {v}" for k, v in mapping.status_values.items()) \
                        + "; other values as written"
        else:
            continue
        if column == "agent_id" and experiment is not None:
            text += f" + ' [{experiment}]' (experiment tag)"
        out.append(MappedColumn(column, text))
    if mapping.latency_from:
        start, end = mapping.latency_from
        out.append(MappedColumn("latency_ms", f"{end!r} - {start!r} (ISO-8601 timestamps) in ms, exact to the "
                                              "microsecond"))
    return out


# What a scored column left out of a mapping does to every agent's headline (SPEC 3), as the import warns it.
UNMAPPED_COST = {
    "success": "success is not mapped: no run has an outcome, so every agent with a completed run scores 0 "
               "(the zero-success floor)",
    "latency_ms": "latency_ms is not mapped: no run has a latency, so every agent's latency score is 0 and its "
                  "consistency the neutral factor (flagged 'no latency recorded')",
    "cost_usd": "cost_usd is not mapped: no run has a cost, so every agent's cost score is 0 "
                "(flagged 'no cost recorded')",
}


def apply_mapping(frame: pd.DataFrame, mapping: Mapping, *, rows: np.ndarray | None = None,
                  name: str = "table", experiment: str | None = None,
                  problems: tuple[Problem, ...] = (), warnings: tuple[str, ...] = ()) -> Imported:
    """A source table as a raw runs table through ``mapping`` (SPEC 7); not yet validated.

    ``rows`` are the source row numbers (1, 2, ... by default), so the validator's messages
    point at the source file. A source column the mapping names but the table lacks refuses
    the table, naming every such column.
    """
    experiment = experiment if experiment is not None else mapping.experiment
    frame = frame.reset_index(drop=True)
    frame.columns = [normalize_column_name(c) for c in frame.columns]
    missing = [s for s in mapping.sources() if s not in frame.columns]
    if missing:
        have = ", ".join(map(str, frame.columns[:30]))
        raise RunsValidationError([Problem.of(Reason.MAPPED_COLUMN_MISSING, None, s, source=s, have=have)
                                   for s in missing],
                                  rows_read=len(frame), source=name)
    rows = np.arange(1, len(frame) + 1) if rows is None else np.asarray(rows)
    raw = pd.DataFrame(index=frame.index)
    naive = 0
    for column in RUNS_COLUMNS:
        if column in mapping.constants:
            raw[column] = pd.Series([mapping.constants[column]] * len(frame), index=frame.index, dtype="str")
        elif column in mapping.columns:
            raw[column] = _converted(frame, column, mapping)
        elif column == "latency_ms" and mapping.latency_from:
            raw[column] = _durations(frame, mapping.latency_from)
        elif column in ("success", "latency_ms", "cost_usd"):
            raw[column] = pd.Series(np.nan, index=frame.index, dtype="float64")  # SPEC 1: empty values
        if column == "finished_at" and column in raw:
            naive = int(raw[column].map(is_naive_timestamp).sum())
    if experiment is not None:
        raw["agent_id"] = raw["agent_id"].map(lambda a: agent_with_experiment(a, experiment)
                                              if isinstance(a, str) else a)
        raw[EXPERIMENT_COLUMN] = pd.Series([experiment] * len(raw), index=raw.index, dtype="str")
    computed = {"latency_ms"} if mapping.latency_from else set()
    left_out = [c for c in ("success", "latency_ms", "cost_usd") if c not in mapping.columns and c not in computed]
    unmapped = [f"{c}: not in the mapping (empty)" for c in left_out] + [
        f"{c}: not in the mapping" for c in ("steps", "finished_at") if c not in mapping.columns]
    # A scored column left out of the mapping is empty in every run: say what that costs before it is scored.
    notes = list(warnings) + [UNMAPPED_COST[c] for c in left_out]
    if naive:
        notes.append(f"{naive} finished_at value(s) have no time zone: read as UTC")
    agents = unique_sorted(v for v in raw["agent_id"] if isinstance(v, str))
    tasks = unique_sorted(v for v in raw["task_id"] if not isinstance(v, (dict, list)))
    report = FileReport(name=name, kind="mapped", runs=len(raw), record_label="row",
                        mapped=tuple(describe(mapping, experiment)), unmapped=tuple(unmapped), warnings=tuple(notes),
                        agents=agents, tasks=len(tasks), last_row=int(rows.max()) if len(rows) else 0)
    return Imported(raw, rows, ImportReport((report,)), tuple(problems), name)


def _durations(frame: pd.DataFrame, pair: tuple[str, ...]) -> pd.Series:
    """Milliseconds between two timestamp columns; a pair that cannot be read is passed on as text for the
    validator to refuse with its row (nothing is dropped)."""
    from scoring.load.importers.terminal_bench import duration_ms

    start, end = (frame[normalize_column_name(n)] for n in pair)
    out = []
    for a, b in zip(start.map(_cell), end.map(_cell)):
        value, why = duration_ms(a, b)
        out.append(f"{a} .. {b}: {why}" if why else value)
    return pd.Series(out, index=frame.index, dtype=object)


def _converted(frame: pd.DataFrame, column: str, mapping: Mapping) -> pd.Series:
    names = [normalize_column_name(n) for n in mapping.columns[column]]
    if len(names) > 1:
        return _joined(frame[names], mapping.separator)
    source = frame[names[0]]
    if column in UNITS:
        return _scaled(source, UNITS[column][mapping.units.get(column, DEFAULT_UNITS[column])])
    if column == "success" and mapping.success is not None:
        return _outcomes(source, mapping.success)
    if column == "status" and mapping.status_values:
        vocabulary = {k.strip().lower(): v for k, v in mapping.status_values.items()}
        return source.map(lambda v: vocabulary.get(v.strip().lower(), v) if isinstance(v, str) else v).astype(object)
    return source


def _cell(value: Any) -> Any:
    """A scalar cell as stripped text, None when empty; a nested cell as it is (the validator refuses it)."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, (dict, list, tuple, np.ndarray, bytes)):
        return value
    text = str(value).strip() if not isinstance(value, bool) else ("true" if value else "false")
    return text or None


def _joined(parts: pd.DataFrame, separator: str) -> pd.Series:
    def join(values: tuple) -> Any:
        cells = [_cell(v) for v in values]
        for cell in cells:
            if cell is None or not isinstance(cell, str):
                return cell  # an empty part leaves the id empty; a nested one is refused by validation
        return separator.join(cells)

    return pd.Series([join(v) for v in parts.itertuples(index=False, name=None)], index=parts.index, dtype=object)


def _numbers(source: pd.Series) -> tuple[pd.Series, pd.Series]:
    """(finite numbers, mask of cells that are finite numbers); text such as 'NaN' or 'abc' is not one."""
    if pd.api.types.is_bool_dtype(source):
        return pd.Series(np.nan, index=source.index), pd.Series(False, index=source.index)
    if pd.api.types.is_numeric_dtype(source):
        values = source.astype("float64")
    else:
        values = pd.to_numeric(source.map(lambda v: v if isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                          else None), errors="coerce").astype("float64")
    ok = pd.Series(np.isfinite(values.to_numpy()), index=source.index)
    return values, ok


def _scaled(source: pd.Series, factor: float) -> pd.Series:
    """Finite numbers times the unit factor; every other cell unchanged, for the validator to judge."""
    if factor == 1.0:
        return source
    values, ok = _numbers(source)
    out = source.astype(object).copy()
    out[ok] = values[ok].map(lambda v: scale_exactly(v, factor)).astype(object)  # 1.023 s -> 1023 ms exactly
    return out


def _outcomes(source: pd.Series, rule: SuccessRule) -> pd.Series:
    cells = source.map(_cell)
    out = cells.astype(object).copy()
    present = cells.map(lambda c: not (c is None or (isinstance(c, float) and c != c)))  # a str column maps None to NaN
    # An empty cell is a run without a verdict: unknown, or a failure with empty="false" (the one outcome rule;
    # a mapped table's success is its own verdict, whatever the status).
    no_verdict = run_success(None, None, judges_failed=True, unknown=False if rule.empty == "false" else None)
    if no_verdict is not None:
        out[~present] = no_verdict
    if rule.threshold is not None:
        values, ok = _numbers(source)
        decided = ok & present
        out[decided] = (values[decided] >= rule.threshold - rule.tolerance).astype(object)
        return out  # other cells ('abc', 'NaN', inf) stay as written: the validator refuses them
    true = {v.lower() for v in rule.true_values}
    false = {v.lower() for v in rule.false_values}
    text = cells.map(lambda c: c.lower() if isinstance(c, str) else None)
    is_true = text.isin(true)
    is_false = text.isin(false) if false else present & ~is_true & cells.map(lambda c: isinstance(c, str))
    out[is_true] = True
    out[is_false] = False
    return out
