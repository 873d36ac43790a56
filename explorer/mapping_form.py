"""The column-mapping form of the *Map a table* page, as plain functions (SPEC 7, generic mapping).

The page (``views/mapping.py``) only draws widgets; everything it decides lives here and is tested
without a browser: reading the table's columns, the form's starting values (a guess, a saved
mapping, or the mapping in use), the :class:`~scoring.load.importers.Mapping` the form describes, and
the preview rows. The mapping itself is ``scoring.load.importers``'s, so a mapping saved here reads the
same in ``python -m scoring report FILE --mapping map.json``.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from scoring.contract.limits import Limits
from scoring.contract.schema import COMPLETED, SPEC_COLUMNS, STATUSES, Reason, normalize_column_name
from scoring.load.importers import Imported, ImportReport, Mapping, SuccessRule, apply_mapping
from scoring.load.importers.mapping import UNITS
from scoring.load.runs import Problem, RawRuns, RunsValidationError, detect_format, read_runs

NOT_MAPPED = "(not in this table)"
EVERY_RUN_COMPLETED = "(no column: every run is completed)"
AS_WRITTEN = "(as written)"
RULE_SPEC1 = "read as true/false, as in a runs file"
RULE_TRUE_VALUES = "true values"
RULE_THRESHOLD = "reward threshold"
SUCCESS_RULES = (RULE_SPEC1, RULE_TRUE_VALUES, RULE_THRESHOLD)
MAX_VALUES = 50  # distinct values offered for the success and status columns
PREVIEW_ROWS = 20
# Every SPEC 1 column but agent_id (the form maps it from one or more source columns), read from the schema.
SINGLE_COLUMNS = tuple(c for c in SPEC_COLUMNS if c != "agent_id")
LATENCY_UNITS = tuple(UNITS["latency_ms"])
COST_UNITS = tuple(UNITS["cost_usd"])
UNIT_NAMES = {"ms": "milliseconds", "s": "seconds", "min": "minutes", "usd": "US dollars", "cents": "US cents"}
# A starting guess only (the person checks every choice): a source column named like the runs column,
# or one of these common names.
ALIASES = {
    "run_id": ("id", "run", "uuid"),
    "agent_id": ("agent", "model"),
    "task_id": ("task", "sample_id", "problem"),
    "status": ("state",),
    "success": ("passed", "pass", "correct", "solved", "reward"),
    "latency_ms": ("latency", "duration_ms"),
    "cost_usd": ("cost",),
    "steps": ("tool_calls", "num_steps"),
    "finished_at": ("end_time", "completed_at", "finished"),
}

# Widget keys (the page and the tests use these names).
AGENT_COLUMNS_KEY = "map_agent_columns"
SEPARATOR_KEY = "map_separator"
AGENT_CONSTANT_KEY = "map_agent_constant"
LATENCY_UNIT_KEY = "map_unit_latency"
COST_UNIT_KEY = "map_unit_cost"
RULE_KEY = "map_success_rule"
TRUE_VALUES_KEY = "map_true_values"
FALSE_VALUES_KEY = "map_false_values"
THRESHOLD_KEY = "map_threshold"
TOLERANCE_KEY = "map_tolerance"
EXPERIMENT_KEY = "map_experiment"


def unit_name(unit: str) -> str:
    """'s' -> 'seconds': a unit as the form shows it."""
    return UNIT_NAMES.get(unit, unit)


def column_key(column: str) -> str:
    """The selectbox key of one runs column."""
    return f"map_col_{column}"


def status_key(value: str) -> str:
    """The selectbox key of one source status value (any text: hashed into a safe key)."""
    return "map_status_" + hashlib.sha256(value.strip().lower().encode("utf-8", "replace")).hexdigest()[:16]


@dataclass(frozen=True)
class FormValues:
    """What the form says: a source column per runs column and the conversions (names as the table has them)."""

    columns: dict[str, str | None]  # the single-column choices (SINGLE_COLUMNS); None: not mapped
    agent_columns: tuple[str, ...] = ()
    separator: str = "/"
    agent_constant: str = ""
    latency_unit: str = "ms"
    cost_unit: str = "usd"
    success_rule: str = RULE_SPEC1
    true_values: tuple[str, ...] = ()
    false_values: tuple[str, ...] = ()  # with true values: then a value in neither set is left for the validator
    threshold: float = 1.0
    tolerance: float = 0.0
    status_values: dict[str, str] = field(default_factory=dict)  # source value -> status; others as written
    experiment: str = ""


# --------------------------------------------------------------------------- reading the table


def read_table(data: bytes, name: str, limits: Limits) -> RawRuns:
    """Every column of a CSV, JSON, JSON Lines or Parquet table, through the runs loader's readers.

    Column names come normalized as SPEC 1 reads headers (``Run ID`` is ``run_id``); the mapping
    matches source names the same way. A file that cannot be read raises RunsValidationError.
    """
    try:
        fmt = detect_format(name)
    except ValueError as exc:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=str(exc))], source=name) from None
    columns: list[str] = []
    if fmt == "parquet":
        try:
            import pyarrow.parquet as pq

            columns = [normalize_column_name(n) for n in pq.ParquetFile(io.BytesIO(data)).schema_arrow.names]
        except Exception:  # the reader below refuses the file in its own words
            columns = []
    return read_runs(data, name=name, format=fmt, limits=limits, columns=columns)


def _cell_text(value: object) -> str | None:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    text = str(value).strip()
    return text or None


def distinct_values(column: pd.Series, limit: int = MAX_VALUES) -> tuple[list[str], int]:
    """The column's distinct non-empty values as text, most frequent first (at most ``limit``), and how many there are.

    Examples
    --------
    >>> distinct_values(pd.Series(["ok", "ok", " crash", "", None, "ok"]))
    (['ok', 'crash'], 2)
    """
    counts = column.map(_cell_text).dropna().value_counts(sort=True)
    return [str(v) for v in counts.index[:limit]], len(counts)


# --------------------------------------------------------------------------- starting values


def guess_form(columns: Sequence[str]) -> FormValues:
    """A first guess from the column names: the runs column's own name, else a common alias.

    Examples
    --------
    >>> g = guess_form(["id", "model", "task", "state", "passed", "seconds"])
    >>> g.columns["run_id"], g.agent_columns, g.columns["status"], g.columns["latency_ms"]
    ('id', ('model',), 'state', None)
    """
    available = list(columns)

    def pick(column: str) -> str | None:
        for candidate in (column, *ALIASES.get(column, ())):
            if candidate in available:
                return candidate
        return None

    agent = pick("agent_id")
    return FormValues(columns={c: pick(c) for c in SINGLE_COLUMNS}, agent_columns=(agent,) if agent else ())


def form_from_mapping(mapping: Mapping, columns: Sequence[str]) -> tuple[FormValues, list[str]]:
    """The form values a saved mapping gives on this table, and notes on what the form cannot show.

    A source column the table lacks is left unmapped (and named in the notes), as is anything
    this form does not offer (an id joined from several columns other than agent_id, a status
    constant other than ``completed``).
    """
    available = set(columns)
    notes: list[str] = []
    chosen: dict[str, str | None] = {}

    def present(column: str, names: Sequence[str]) -> list[str]:
        normalized = [normalize_column_name(n) for n in names]
        missing = [n for n, m in zip(names, normalized) if m not in available]
        for name in missing:
            notes.append(f"columns.{column}: this table has no column {name!r}")
        return [m for m in normalized if m in available]

    for column in SINGLE_COLUMNS:
        names = present(column, mapping.columns.get(column, ()))
        if len(names) > 1:
            notes.append(f"columns.{column} joins {len(names)} columns; this form takes one: {names[0]!r}")
        chosen[column] = names[0] if names else None
    status_constant = mapping.constants.get("status")
    if status_constant not in (None, COMPLETED):
        notes.append(f"constants.status is {status_constant!r}; this form offers 'every run is completed'")
    rule, threshold, tolerance = RULE_SPEC1, 1.0, 0.0
    true_values: tuple[str, ...] = ()
    false_values: tuple[str, ...] = ()
    if mapping.success is not None:
        if mapping.success.threshold is not None:
            rule, threshold, tolerance = RULE_THRESHOLD, mapping.success.threshold, mapping.success.tolerance
        else:
            rule, true_values, false_values = RULE_TRUE_VALUES, mapping.success.true_values, \
                mapping.success.false_values
    values = FormValues(
        columns=chosen, agent_columns=tuple(present("agent_id", mapping.columns.get("agent_id", ()))),
        separator=mapping.separator, agent_constant=mapping.constants.get("agent_id", ""),
        latency_unit=mapping.units.get("latency_ms", "ms"), cost_unit=mapping.units.get("cost_usd", "usd"),
        success_rule=rule, true_values=tuple(true_values), false_values=tuple(false_values), threshold=threshold,
        tolerance=tolerance,
        status_values=dict(mapping.status_values), experiment=mapping.experiment or "")
    return values, notes


def default_status(value: str) -> str:
    """A source status value's starting choice: itself when it already is a status, else as written."""
    lowered = value.strip().lower()
    return lowered if lowered in STATUSES else AS_WRITTEN


def widget_state(values: FormValues) -> dict[str, object]:
    """Session-state values that make the form's widgets show ``values``."""
    state: dict[str, object] = {column_key(c): values.columns.get(c) or (
        EVERY_RUN_COMPLETED if c == "status" else NOT_MAPPED) for c in SINGLE_COLUMNS}
    state.update({AGENT_COLUMNS_KEY: list(values.agent_columns), SEPARATOR_KEY: values.separator,
                  AGENT_CONSTANT_KEY: values.agent_constant, LATENCY_UNIT_KEY: values.latency_unit,
                  COST_UNIT_KEY: values.cost_unit, RULE_KEY: values.success_rule,
                  TRUE_VALUES_KEY: list(values.true_values), FALSE_VALUES_KEY: list(values.false_values),
                  THRESHOLD_KEY: float(values.threshold),
                  TOLERANCE_KEY: float(values.tolerance), EXPERIMENT_KEY: values.experiment})
    for value, status in values.status_values.items():
        state[status_key(value)] = status
    return state


# --------------------------------------------------------------------------- the mapping


def mapping_from_form(values: FormValues) -> Mapping:
    """The :class:`~scoring.load.importers.Mapping` the form describes; MappingError names a refused field.

    Units go with mapped columns only; a status value mapped to itself is left out (it reads the
    same as written); without a status column every run is ``completed``.

    Examples
    --------
    >>> m = mapping_from_form(FormValues(columns={"run_id": "id", "task_id": "task", "status": "state",
    ...     "latency_ms": "seconds"}, agent_columns=("model", "prompt"), latency_unit="s",
    ...     status_values={"ok": "completed", "Completed": "completed"}))
    >>> m.columns["agent_id"], m.units, m.status_values
    (('model', 'prompt'), {'latency_ms': 's'}, {'ok': 'completed'})
    """
    columns: dict[str, object] = {c: s for c, s in values.columns.items() if s}
    constants: dict[str, str] = {}
    if values.agent_columns:
        columns["agent_id"] = list(values.agent_columns)
    elif values.agent_constant.strip():
        constants["agent_id"] = values.agent_constant.strip()
    if not values.columns.get("status"):
        constants["status"] = COMPLETED
    units = {c: u for c, u in (("latency_ms", values.latency_unit), ("cost_usd", values.cost_unit))
             if c in columns and u != {"latency_ms": "ms", "cost_usd": "usd"}[c]}
    success = None
    if "success" in columns and values.success_rule == RULE_TRUE_VALUES:
        success = SuccessRule(true_values=tuple(values.true_values), false_values=tuple(values.false_values))
    elif "success" in columns and values.success_rule == RULE_THRESHOLD:
        success = SuccessRule(threshold=values.threshold, tolerance=values.tolerance)
    status_values = {v: s for v, s in values.status_values.items()
                     if "status" in columns and s != AS_WRITTEN and v.strip().lower() != s}
    return Mapping(columns=columns, separator=values.separator, units=units, success=success,
                   status_values=status_values, constants=constants, experiment=values.experiment.strip() or None)


@dataclass(frozen=True)
class Preview:
    """What the page shows for one mapping: the first mapped rows, how the columns were mapped, and the
    validation of the whole mapped table (its refusal, or the counts of what would be scored)."""

    rows: pd.DataFrame
    report: ImportReport | None
    error: RunsValidationError | None = None
    runs: int = 0
    agents: int = 0
    tasks: int = 0


def preview(table: RawRuns, mapping: Mapping, name: str) -> Preview:
    """Apply ``mapping`` to the whole table and validate it with the one validator (SPEC 1)."""
    try:
        imported = apply_mapping(table.frame, mapping, rows=table.file_rows(), name=name, problems=table.problems,
                                 warnings=table.warnings)
    except RunsValidationError as error:  # a source column the table lacks
        return Preview(pd.DataFrame(), None, error)
    rows = preview_rows(imported)
    try:
        loaded = imported.validate()
    except RunsValidationError as error:
        return Preview(rows, imported.report, error)
    return Preview(rows, imported.report, None, len(loaded.runs), int(loaded.runs["agent_id"].nunique()),
                   int(loaded.runs["task_id"].nunique()))


def missing_required_columns(error: RunsValidationError) -> bool:
    """Whether a refusal says the table lacks required columns: the case a mapping can fix."""
    return any(p.code == Reason.MISSING_COLUMN.code for p in error.problems)


def _shown(value: object) -> str:
    """A mapped cell as text: a float to 12 significant digits (0.011, not 0.011000000000000001), empty as a dash."""
    if isinstance(value, float) and value == value:
        return f"{value:.12g}"
    return _cell_text(value) or "—"


def preview_rows(imported: Imported, rows: int = PREVIEW_ROWS) -> pd.DataFrame:
    """The first mapped rows as text, beside their source row number (empty cells as a dash).

    Examples
    --------
    >>> from scoring.load.importers import apply_mapping
    >>> raw = pd.DataFrame({"id": ["a", "b"], "who": ["m", "m"], "task": ["t", "t"], "cents": ["1.1", ""]})
    >>> m = Mapping(columns={"run_id": "id", "agent_id": "who", "task_id": "task", "cost_usd": "cents"},
    ...             units={"cost_usd": "cents"}, constants={"status": "completed"})
    >>> preview_rows(apply_mapping(raw, m))[["Row", "run_id", "cost_usd"]].values.tolist()
    [['1', 'a', '0.011'], ['2', 'b', '—']]
    """
    head = imported.raw.head(rows)
    frame = pd.DataFrame({"Row": [str(r) for r in imported.rows[:len(head)]]})
    for column in head.columns:
        frame[column] = [_shown(v) for v in head[column].tolist()]
    return frame


__all__ = [
    "AS_WRITTEN", "EVERY_RUN_COMPLETED", "NOT_MAPPED", "SUCCESS_RULES", "FormValues", "column_key",
    "default_status", "distinct_values", "form_from_mapping", "guess_form", "mapping_from_form",
    "missing_required_columns", "preview_rows", "read_table", "status_key", "widget_state",
]
