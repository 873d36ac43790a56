"""The SQL engine: the same methodology pushed into SQL, for DuckDB (files larger than memory)
and PostgreSQL (the platform's own runs table).

Every per-row step runs in the database: normalization, validation, the completed-run cohort
statistics, the radar window (``ROW_NUMBER() OVER``), medians (``percentile_cont``), per-task
counts. What comes back is a few rows per agent (and per task), which the same compute steps as
the pandas engine turn into results: the formula is written once, in ``scoring``, and every
constant the SQL needs (window size, statuses) is generated from the policy object.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .headline import CohortStats, headline_from_stats
from .policy import CANONICAL_POLICY, Policy
from .radar import RadarAggregates, radar_from_aggregates
from .repeatability import repeatability_from_counts
from .report import Report, assemble_report
from .database import (CONNECT_TIMEOUT_S, STATEMENT_TIMEOUT_MS, ConnectionSpec, SourceRefused, SourceTooLarge,
                       check_table_name, connect, fetch_rows, log, redact)
from .limits import DEFAULT_LIMITS, Limits
from .runs import STATUSES, TERMINAL_STATUSES, TRUE_TOKENS, FALSE_TOKENS, Problem, RunsValidationError

MAX_PROBLEMS = 200


@dataclass(frozen=True)
class Dialect:
    """What differs between the SQL engines this module targets."""

    name: str
    text_type: str
    collate: str  # byte-order text comparison, as Python compares str
    try_cast: bool

    def cast_double(self, column: str, typed: bool = False) -> str:
        """The column as a double, NULL where it is not a number (validation reports those rows)."""
        return self._cast(column, "DOUBLE PRECISION", NUMBER, typed)

    def _cast(self, column: str, sql_type: str, spelling: str, typed: bool) -> str:
        if self.try_cast:
            return f"TRY_CAST({column} AS {sql_type})"
        if typed:
            return f"CAST({column} AS {sql_type})"
        # PostgreSQL has no TRY_CAST: a text cell such as 'abc' would abort the query (and 'yesterday'
        # reads as a timestamp), so only a valid spelling is cast.
        text = self.strip(f"CAST({column} AS {self.text_type})")
        return f"(CASE WHEN {self.matches(text, spelling)} THEN CAST({text} AS {sql_type}) END)"

    def non_finite(self, expr: str) -> str:
        if self.name == "duckdb":
            return f"(isnan({expr}) OR isinf({expr}))"
        return f"({expr} IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8))"

    def strip(self, expr: str) -> str:
        """Surrounding whitespace removed, as Python's str.strip does for ASCII whitespace."""
        if self.name == "duckdb":
            return f"trim({expr}, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))"
        return f"btrim({expr}, E' \\t\\n\\r\\f\\v')"

    def matches(self, expr: str, pattern: str) -> str:
        if self.name == "duckdb":
            return f"regexp_full_match({expr}, '{pattern}')"
        return f"({expr} ~ '^(?:{pattern})$')"

    def exact_sum(self, expr: str, where: str) -> str:
        """A sum that does not depend on summation order: compensated in DuckDB, exact numeric in PostgreSQL."""
        if self.name == "duckdb":
            return f"fsum({expr}) FILTER (WHERE {where})"
        return f"CAST(SUM(CAST({expr} AS NUMERIC)) FILTER (WHERE {where}) AS DOUBLE PRECISION)"

    def timestamp(self, column: str, typed: bool = False) -> str:
        return self._cast(column, "TIMESTAMPTZ", ISO_8601, typed)

DUCKDB = Dialect("duckdb", "VARCHAR", "", try_cast=True)
POSTGRES = Dialect("postgresql", "TEXT", ' COLLATE "C"', try_cast=False)


def _quote_list(values) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def normalized_sql(source: str, d: Dialect, *, has_steps: bool, has_finished_at: bool, row_number: str,
                   kinds: Mapping[str, str] | None = None) -> str:
    """SELECT canonical columns from ``source`` (SPEC 1 spellings; invalid cells become NULL here and
    are caught by the validation queries, which see the raw text too)."""
    text = d.text_type
    kinds = kinds or {}
    numeric = {c: kinds.get(c) == "numeric" for c in ("latency_ms", "cost_usd", "steps")}
    success = f"lower({d.strip(f'CAST(success AS {text})')})"
    return f"""
    SELECT
      {d.strip(f'CAST(run_id AS {text})')} AS run_id,
      {d.strip(f'CAST(agent_id AS {text})')} AS agent_id,
      {d.strip(f'CAST(task_id AS {text})')} AS task_id,
      lower({d.strip(f'CAST(status AS {text})')}) AS status,
      CAST(status AS {text}) AS status_text,
      CASE WHEN {success} IN ({_quote_list(sorted(TRUE_TOKENS))}) THEN TRUE
           WHEN {success} IN ({_quote_list(sorted(FALSE_TOKENS))}) THEN FALSE END AS success,
      {success} AS success_text,
      {d.cast_double('latency_ms', numeric['latency_ms'])} AS latency_ms,
      CAST(latency_ms AS {text}) AS latency_text,
      {d.cast_double('cost_usd', numeric['cost_usd'])} AS cost_usd,
      CAST(cost_usd AS {text}) AS cost_text,
      {d.cast_double('steps', numeric['steps']) if has_steps else 'CAST(NULL AS DOUBLE PRECISION)'} AS steps,
      {f'CAST(steps AS {text})' if has_steps else f'CAST(NULL AS {text})'} AS steps_text,
      {d.timestamp('finished_at', kinds.get('finished_at') == 'timestamp') if has_finished_at
       else 'CAST(NULL AS TIMESTAMPTZ)'} AS finished_at,
      {f'CAST(finished_at AS {text})' if has_finished_at else f'CAST(NULL AS {text})'} AS finished_text,
      {row_number} AS source_row
    FROM {source} AS src"""


NUMBER = "[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?"
ISO_8601 = ("[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}(:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?)?"
            " ?(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)?")
NONFINITE = ("nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity")


def validation_queries(d: Dialect, kinds: Mapping[str, str] | None = None) -> list[tuple[str, str, str, str]]:
    """(column, reason, WHERE condition, offending text) for every SPEC 1 rule, on the normalized runs.

    ``kinds`` maps a source column to "numeric" or "timestamp" when its type already guarantees the
    spelling: the text checks (regular expressions) then need not run over every row.
    """
    kinds = kinds or {}
    rules = [(c, "missing value; this column is required", f"{c} IS NULL OR {c} = ''", c)
             for c in ("run_id", "agent_id", "task_id")]
    rules += [
        ("status", "unknown status; expected one of " + ", ".join(STATUSES),
         f"status IS NOT NULL AND status <> '' AND status NOT IN ({_quote_list(STATUSES)})", "status_text"),
        ("status", "missing value; this column is required", "status IS NULL OR status = ''", "status_text"),
        ("success", "not a recognised outcome; expected true/false, 1/0, yes/no, pass/fail or empty",
         "success IS NULL AND success_text IS NOT NULL AND success_text <> ''", "success_text"),
    ]
    for column, text in (("latency_ms", "latency_text"), ("cost_usd", "cost_text"), ("steps", "steps_text")):
        stripped = d.strip(text)
        token = f"lower({stripped}) IN ({_quote_list(NONFINITE)})"
        if kinds.get(column) != "numeric":
            rules.append((column, "not a number", f"{text} IS NOT NULL AND {stripped} <> '' AND NOT {token} "
                                                  f"AND NOT {d.matches(stripped, NUMBER)}", text))
        rules += [
            (column, "not a finite number", f"{token} OR ({column} IS NOT NULL AND {d.non_finite(column)})", text),
            (column, "negative; must be 0 or more", f"{column} < 0", text),
        ]
    rules.append(("steps", "not a whole number of steps",
                  f"steps IS NOT NULL AND NOT {d.non_finite('steps')} AND steps >= 0 AND steps <> floor(steps)",
                  "steps_text"))
    stripped = d.strip("finished_text")
    spelled = "" if kinds.get("finished_at") == "timestamp" else f" OR NOT {d.matches(stripped, ISO_8601)}"
    rules.append(("finished_at", "not an ISO-8601 timestamp (e.g. 2026-07-01T12:00:00Z)",
                  f"finished_text IS NOT NULL AND {stripped} <> '' AND (finished_at IS NULL{spelled})",
                  "finished_text"))
    return rules


class SqlScorer:
    """Runs the generated queries on a DB-API connection and builds the Report."""

    def __init__(self, execute, dialect: Dialect, source: str, *, has_steps: bool, has_finished_at: bool,
                 row_number: str, policy: Policy = CANONICAL_POLICY, kinds: Mapping[str, str] | None = None):
        self.execute, self.d, self.policy = execute, dialect, policy
        self.has_finished_at = has_finished_at
        self.has_row_numbers = "NULL" not in row_number
        self.kinds = dict(kinds or {})
        self.warnings: list[str] = [] if has_finished_at else [
            "No finished_at column: file order is used for the radar window (a later row is newer)."]
        self.runs = f"({normalized_sql(source, dialect, has_steps=has_steps, has_finished_at=has_finished_at, row_number=row_number, kinds=self.kinds)}) AS runs"

    def validate(self, source_name: str) -> None:
        rules = validation_queries(self.d, self.kinds)
        # One scan counts every rule (and the rows); only a failing rule is scanned again for examples.
        counts = self.execute("SELECT COUNT(*), " + ", ".join(f"COUNT(*) FILTER (WHERE {c})" for _, _, c, _ in rules)
                              + f" FROM {self.runs}")[0]
        rows_read, counts = int(counts[0]), counts[1:]
        if rows_read == 0:
            raise RunsValidationError([Problem(None, None, None, "the file has no runs")], source=source_name)
        problems: list[Problem] = []
        for (column, reason, condition, shown), failing in zip(rules, counts):
            if not failing:
                continue
            rows = self.execute(f"SELECT source_row, {shown} FROM {self.runs} WHERE ({condition}) "
                                f"ORDER BY source_row LIMIT {MAX_PROBLEMS}")
            problems += [Problem(None if r is None else int(r), column, None if v is None else str(v), reason)
                         for r, v in rows]
            if len(rows) < failing:  # more than listed (or rows the engine could not list)
                problems.append(Problem(None, column, None, f"{reason}: {int(failing) - len(rows):,} more row(s) "
                                                            "not listed"))
        order = "source_row" if self.has_row_numbers else "run_id"
        # A grouped count (it spills to disk under a memory limit; COUNT(DISTINCT) does not).
        repeated = self.execute(f"SELECT COUNT(*) FROM (SELECT run_id FROM {self.runs} WHERE run_id IS NOT NULL "
                                f"GROUP BY run_id HAVING COUNT(*) > 1) AS repeated")[0][0]
        duplicates = [] if not repeated else self.execute(f"""
            SELECT source_row, run_id, first_row FROM (
              SELECT source_row, run_id, ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY {order}) AS k,
                     MIN(source_row) OVER (PARTITION BY run_id) AS first_row
              FROM {self.runs} WHERE run_id IS NOT NULL AND run_id <> '') AS d
            WHERE k > 1 ORDER BY source_row, run_id LIMIT {MAX_PROBLEMS}""")
        problems += [Problem(None if r is None else int(r), "run_id", str(rid),
                             "duplicate run_id" + (f"; first seen at row {int(first)}" if first is not None else ""))
                     for r, rid, first in duplicates]
        if problems:
            problems.sort(key=lambda p: (p.row is None, p.row or 0))
            raise RunsValidationError(problems, source=source_name, rows_read=rows_read, can_exclude=False)

    def report(self, weights: Mapping[str, float] | None = None) -> Report:
        p, c = self.policy, self.d.collate
        terminal = _quote_list(TERMINAL_STATUSES)
        completed = "status = 'completed'"
        stats = self.execute(f"""
            SELECT agent_id,
              COUNT(*) FILTER (WHERE {completed}),
              COUNT(*) FILTER (WHERE {completed} AND success),
              COUNT(latency_ms) FILTER (WHERE {completed}),
              {self.d.exact_sum('latency_ms', completed)}
                / NULLIF(COUNT(latency_ms) FILTER (WHERE {completed}), 0),
              STDDEV_POP(latency_ms) FILTER (WHERE {completed}),
              COUNT(cost_usd) FILTER (WHERE {completed}),
              {self.d.exact_sum('cost_usd', completed)}
                / NULLIF(COUNT(cost_usd) FILTER (WHERE {completed}), 0)
            FROM {self.runs} GROUP BY agent_id""")
        stats = sorted(stats, key=lambda r: r[0])  # Python's text order, as the pandas engine
        agents = tuple(str(r[0]) for r in stats)
        index = {a: i for i, a in enumerate(agents)}

        def column(rows, j, size=len(agents), key=0, fill=0.0):
            out = np.full(size, fill, dtype=float)
            for r in rows:
                out[index[r[key]]] = np.nan if r[j] is None else float(r[j])
            return out

        cohort = CohortStats(*(column(stats, j) for j in range(1, 8)))
        order = ("finished_at DESC NULLS LAST, " if self.has_finished_at else "") + \
            (f"run_id{c} DESC" if self.has_finished_at else "source_row DESC")
        window = f"""(SELECT * FROM (
              SELECT *, ROW_NUMBER() OVER (PARTITION BY agent_id ORDER BY {order}) AS position
              FROM {self.runs} WHERE status IN ({terminal})) AS ranked
            WHERE position <= {int(p.radar_window)}) AS window_runs"""
        # One pass over the window: per agent (the axes) and per (agent, task) (robustness) together.
        both = self.execute(f"""
            SELECT agent_id, task_id, GROUPING(task_id), COUNT(*), COUNT(success), COUNT(*) FILTER (WHERE success),
              COUNT(latency_ms), percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms),
              COUNT(cost_usd), percentile_cont(0.5) WITHIN GROUP (ORDER BY cost_usd),
              COUNT(steps), percentile_cont(0.5) WITHIN GROUP (ORDER BY steps),
              COUNT(*) FILTER (WHERE steps > 0)
            FROM {window} GROUP BY GROUPING SETS ((agent_id), (agent_id, task_id))""")
        radar = [(r[0],) + tuple(r[3:]) for r in both if r[2] == 1]
        per_task = [(r[0], r[1], r[4], r[5]) for r in both if r[2] == 0 and r[4] > 0]  # known outcomes only
        nan_cols = {5, 7, 9}
        cols = [column(radar, j, fill=np.nan if j in nan_cols else 0.0) for j in range(1, 11)]
        aggregates = RadarAggregates(
            n_window=cols[0].astype(np.int64), n_known=cols[1].astype(np.int64), n_success=cols[2].astype(np.int64),
            n_lat=cols[3].astype(np.int64), p50_lat=cols[4], n_cost=cols[5].astype(np.int64), p50_cost=cols[6],
            n_steps=cols[7].astype(np.int64), p50_steps=cols[8], nonzero_steps=cols[9].astype(np.int64),
            task_agent=np.array([index[r[0]] for r in per_task], dtype=np.int64),
            task_n=np.array([int(r[2]) for r in per_task], dtype=np.int64),
            task_c=np.array([int(r[3]) for r in per_task], dtype=np.int64),
        )
        counts = self.execute(f"""
            SELECT agent_id, task_id, COUNT(*), COUNT(*) FILTER (WHERE success)
            FROM {self.runs} WHERE status IN ({terminal}) AND success IS NOT NULL GROUP BY agent_id, task_id""")
        counts = pd.DataFrame(sorted(((str(a), str(t), int(n), int(k)) for a, t, n, k in counts)),
                              columns=["agent_id", "task_id", "n", "c"])
        counts = counts.astype({"agent_id": "str", "task_id": "str", "n": "int64", "c": "int64"})
        report = assemble_report(headline_from_stats(agents, cohort, p), radar_from_aggregates(agents, aggregates, p),
                                 repeatability_from_counts(agents, counts, p), p, weights)
        return dataclasses.replace(report, warnings=tuple(self.warnings))


def _duckdb_source(path: Path) -> tuple[str, list[str], str]:
    """A DuckDB table function reading ``path`` with row numbers, its column names, and the row expression."""
    literal = "'" + str(path).replace("'", "''") + "'"
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return f"read_parquet({literal}, file_row_number = true)", [], "file_row_number + 1"
    if suffix == ".csv":
        # An explicit dialect: a ragged line is an error, never a silently re-sniffed single column.
        return (f"(SELECT *, row_number() OVER () AS file_row_number FROM read_csv({literal}, all_varchar = true, "
                "header = true, delim = ',', quote = '\"', escape = '\"'))", [], "file_row_number")
    raise RunsValidationError([Problem(None, None, None, f"the SQL engine reads Parquet and CSV files; use the "
                                                         f"pandas engine for {suffix or 'this file'}")],
                              source=path.name)


def _kinds(types: Mapping[str, str]) -> dict[str, str]:
    """Source column -> "numeric", "timestamp" or "other", from SQL type names."""
    out = {}
    for name, kind in types.items():
        kind = kind.upper()
        if kind.startswith(("DOUBLE", "FLOAT", "REAL", "INT", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT",
                            "DECIMAL", "NUMERIC", "UBIGINT", "UINTEGER", "USMALLINT", "UTINYINT")):
            out[name] = "numeric"
        elif kind.startswith(("TIMESTAMP", "DATE")):
            out[name] = "timestamp"
        else:
            out[name] = "other"
    return out


def _normalize_names(names: list[str]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for n in names:
        name = re.sub(r"[\s\-]+", "_", n.strip()).lower()
        if name in mapping:
            raise RunsValidationError([Problem(None, name, None, f"duplicate column: {mapping[name]!r} and {n!r} "
                                                                  f"both name {name!r}")])
        mapping[name] = n
    return mapping


def _renamed_source(source: str, columns: list[str], quote) -> tuple[str, set[str]]:
    mapping = _normalize_names(columns)
    select = ", ".join(f"{quote(original)} AS {name}" for name, original in mapping.items())
    return f"(SELECT {select} FROM {source} AS raw)", set(mapping)


def _required(columns: set[str], source_name: str) -> None:
    from .runs import REQUIRED_COLUMNS

    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise RunsValidationError([Problem(None, c, None, "required column is missing") for c in missing],
                                  source=source_name)


def score_file_sql(path: str | Path, policy: Policy = CANONICAL_POLICY, weights: Mapping[str, float] | None = None,
                   *, memory_limit: str | None = None, temp_directory: str | None = None, threads: int | None = None) -> Report:
    """Score a Parquet or CSV file with DuckDB, out of core (``memory_limit`` caps DuckDB's memory)."""
    import duckdb

    path = Path(path)
    if not path.exists():
        raise RunsValidationError([Problem(None, None, None, f"cannot read {path}: no such file")], source=path.name)
    con = duckdb.connect()
    try:
        if memory_limit:
            con.execute(f"SET memory_limit = '{memory_limit}'")
        if temp_directory:
            con.execute(f"SET temp_directory = '{temp_directory}'")
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        con.execute("SET preserve_insertion_order = false")
        con.execute("SET enable_progress_bar = false")
        con.execute("SET TimeZone = 'UTC'")  # a timestamp without a zone is UTC, as in the pandas engine
        table, _, row_number = _duckdb_source(path)
        try:
            columns = [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RunsValidationError([Problem(None, None, None, f"not readable as CSV or Parquet ({first}); the "
                                                                 "pandas engine reports the row")],
                                      source=path.name) from None
        columns = [c for c in columns if c != "file_row_number"]
        kinds = _kinds({name: str(kind) for name, kind in
                        con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {table})").fetchall()})
        try:
            source, names = _renamed_source(table, columns + ["file_row_number"],
                                            lambda c: '"' + c.replace('"', '""') + '"')
        except RunsValidationError as exc:
            raise RunsValidationError(exc.problems, source=path.name) from None
        _required(names, path.name)
        scorer = SqlScorer(lambda q: con.execute(q).fetchall(), DUCKDB, source, has_steps="steps" in names,
                           has_finished_at="finished_at" in names, row_number=row_number, policy=policy,
                           kinds={n: kinds.get(o, "other") for n, o in _normalize_names(columns).items()})
        scorer.validate(path.name)
        return scorer.report(weights)
    finally:
        con.close()


def score_postgres(source: "str | ConnectionSpec", table: str, policy: Policy = CANONICAL_POLICY,
                   weights: Mapping[str, float] | None = None) -> Report:
    """Score a runs table in PostgreSQL, read-only. ``table`` may be schema-qualified.

    ``source`` is an operator's connection (a libpq URL or conninfo given to the CLI, or a
    :class:`~scoring.database.ConnectionSpec`); it connects with the same timeouts as every source.
    """
    import psycopg
    from psycopg import sql

    table = _table_or_refuse(table)
    spec = source if isinstance(source, ConnectionSpec) else None
    try:
        conn = connect(spec) if spec else psycopg.connect(source, autocommit=False,
                                                          connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as exc:
        raise ConnectionError(f"cannot connect to the database: {redact(str(exc))}") from None
    try:
        with conn.cursor() as cur:
            cur.execute("SET TRANSACTION READ ONLY")
            cur.execute("SET TIME ZONE 'UTC'")
            cur.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
            qualified = sql.SQL(".").join(sql.Identifier(part) for part in table.split(".")).as_string(conn)
            try:
                cur.execute(f"SELECT * FROM {qualified} LIMIT 0")
            except psycopg.Error as exc:
                raise RunsValidationError([Problem(None, None, None, f"cannot read table {table}: "
                                                   f"{redact(str(exc)).strip()}")], source=table) from None
            columns = [d.name for d in cur.description]
            types = {}
            for d in cur.description:
                info = conn.adapters.types.get(d.type_code)
                types[d.name] = info.name if info else "other"
            kinds = _kinds({c: {"float8": "DOUBLE", "float4": "REAL", "int4": "INTEGER", "int8": "BIGINT",
                                "int2": "SMALLINT", "numeric": "NUMERIC", "timestamptz": "TIMESTAMPTZ",
                                "timestamp": "TIMESTAMP", "date": "DATE"}.get(t, t) for c, t in types.items()})
            source_sql, names = _renamed_source(qualified, columns, lambda c: sql.Identifier(c).as_string(conn))
            _required(names, table)
            if "finished_at" not in names:
                raise RunsValidationError([Problem(None, "finished_at", None, "a database table has no file order: "
                                                   "the radar window needs a finished_at column")], source=table)

            def execute(query: str) -> list[tuple[Any, ...]]:
                cur.execute(query)
                return cur.fetchall()

            renamed_kinds = {n: kinds.get(o, "other") for n, o in _normalize_names(columns).items()}
            scorer = SqlScorer(execute, POSTGRES, source_sql, has_steps="steps" in names, has_finished_at=True,
                               row_number="CAST(NULL AS BIGINT)", policy=policy, kinds=renamed_kinds)
            try:
                scorer.validate(table)
                return scorer.report(weights)
            except psycopg.errors.DataError as exc:  # a value the guarded casts let through (e.g. 1e999)
                first = str(exc).strip().splitlines()[0]
                raise RunsValidationError([Problem(None, None, None, f"PostgreSQL could not read a value: {first}")],
                                          source=table, can_exclude=False) from None
    finally:
        conn.rollback()
        conn.close()


def _table_or_refuse(table: str) -> str:
    try:
        return check_table_name(table)
    except SourceRefused as exc:
        raise RunsValidationError([Problem(None, None, None, str(exc))], source="table") from None


def load_postgres_runs(spec: ConnectionSpec, table: str, *, limits: Limits = DEFAULT_LIMITS, **options):
    """Read a PostgreSQL runs table (read-only) through the one validator, as the explorer app does.

    The app needs row-level data for its views (windows, bootstraps, receipts); the canonical
    numbers are the same as ``score_postgres`` computes in the database. Rows are fetched in
    batches through a server-side cursor and the read stops as soon as the table passes the row
    limit or the memory budget. A connection failure raises :class:`~scoring.database.ConnectFailed`
    with one generic message.
    """
    import psycopg
    from psycopg import sql

    from .runs import validate_runs

    table = _table_or_refuse(table)
    conn = connect(spec)
    try:
        with conn.cursor(name="scoring_explorer_runs") as cur:
            conn.execute("SET TRANSACTION READ ONLY")
            qualified = sql.SQL(".").join(sql.Identifier(p) for p in table.split("."))
            try:
                cur.execute(sql.SQL("SELECT * FROM {}").format(qualified))
                chunks = list(fetch_rows(cur, max_rows=limits.max_rows, max_bytes=limits.max_memory))
            except SourceTooLarge as exc:
                raise RunsValidationError([Problem(None, None, None, f"{exc}; refused")], source=table) from None
            except psycopg.Error as exc:
                log.warning("reading table %s failed: %s", table, redact(str(exc)))
                raise RunsValidationError([Problem(None, None, None, f"cannot read table {table} (it does not "
                                                   "exist, or this connection may not read it)")],
                                          source=table) from None
            columns = [d.name for d in cur.description]
    finally:
        conn.rollback()
        conn.close()
    frame = pd.DataFrame([r for chunk in chunks for r in chunk], columns=columns, dtype=object)
    frame.columns = list(_normalize_names(columns))
    if "finished_at" not in frame.columns:
        raise RunsValidationError([Problem(None, "finished_at", None, "a database table has no file order: the "
                                           "radar window needs a finished_at column")], source=table)
    if len(frame) == 0:
        raise RunsValidationError([Problem(None, None, None, "the table has no runs")], source=table)
    return validate_runs(frame, source=table, format="postgresql", **options)
