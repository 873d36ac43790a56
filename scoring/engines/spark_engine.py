"""The Spark engine: the SQL engine's queries run by Apache Spark, where the runs live.

:class:`Spark` is the SQL dialect; :class:`~scoring.engines.sql_engine.SqlScorer` writes every query, so the
per-row work (normalization, validation, cohort statistics, the radar window, medians, per-task
counts) happens in Spark SQL and the same few rows per agent reach the same compute steps as the
pandas engine. The numbers are the same to the bit: sums are exact, the integer mantissas summed per
agent and exponent (in two ``BIGINT`` halves) and combined and rounded once in Python, medians are the
two middle values averaged in Python, the window (a bounded top-n per agent, ``max_by(..., 100)``)
breaks ties on ``run_id`` compared byte by byte (Spark's binary collation), and text timestamps are
read in UTC whatever the session's time zone. Every query reads the source through a normalizing
view (no cached copy of the runs); run_id duplicates are looked for among their 64-bit hashes first.

Sources: a Parquet or CSV path (local, or any Hadoop-compatible URI the cluster reads: ``hdfs://``,
``s3a://``, a directory or a glob of part files), or a catalog table. The session is an existing
one, a Spark Connect server (``sc://host:port``), or local mode. pyspark is an optional dependency
(``requirements-spark.txt``): it is imported only inside the functions that need it.

Row numbers in a validation report: a single Parquet file numbers its rows with Spark's
``_metadata.row_index``; a single CSV file is read whole by one task (``multiLine``: a quoted field may
hold a line break, so the file is not split) and its rows are numbered in reading order. Several
files or a table have no row numbers: their problems name the run_id instead.
"""

from __future__ import annotations

import dataclasses
import os
import re
import socket
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scoring.contract.limits import DEFAULT_LIMITS, Limits, column_limit_refusal
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.schema import TIMESTAMP_PATTERN, WHITESPACE, Reason
from scoring.engines.sql_engine import (
    MAX_PROBLEMS,
    ROW_COLUMN,
    Dialect,
    SqlScorer,
    _kinds,
    _normalize_names,
    _renamed_source,
    _required,
    normalized_sql,
    validation_queries,
)
from scoring.load.runs import Problem, RunsValidationError
from scoring.measures.report import Report

# The timestamp grammar as Spark matches it (Java's $ also matches before a final line break; the lookahead
# makes it the end of the text). Dialect.timestamp reads the parts; this name is kept for older callers.
ISO_8601_PARTS = "^(?:" + TIMESTAMP_PATTERN + ")$(?!(?s:.))"

# Session settings the queries rely on, set for the scoring and put back afterwards: ANSI arithmetic, so
# that an overflow is an error, never a NULL that SUM would skip or a wrapped BIGINT (Spark.integer_sum
# holds 2^34 mantissas per agent and exponent, so none is expected).
# The session's time zone is UTC while scoring, so that a wall-clock time (TIMESTAMP_NTZ, DATE) read as an instant
# for the window's cutoff (Spark.micros) has no daylight-saving gap: a later time never reads as an earlier one.
# (No number depends on the zone: text timestamps are read with an explicit offset, typed ones compare as they are.)
SETTINGS = {"spark.sql.ansi.enabled": "true", "spark.sql.session.timeZone": "UTC"}
# While the duplicate check runs (SqlScorer.many_groups): a group per run, so a partial aggregation before the
# shuffle would only copy every row (Spark 4.3; an older Spark keeps the setting and ignores it). 10M runs:
# 13.9 -> 9.8 s.
MANY_GROUPS = {"spark.sql.execution.bypassPartialAggregation": "true"}
CONNECT_TIMEOUT_S = 10
CONNECT_MODE = "SPARK_CONNECT_MODE_ENABLED"  # pyspark's process-wide mark of Connect mode

CSV_OPTIONS = {
    # RFC 4180, as the other engines read CSV: a quote inside a quoted field is doubled; a ragged line is
    # an error (FAILFAST), never padded with nulls; cells keep their surrounding spaces (SPEC 1 strips them).
    "sep": ",", "quote": '"', "escape": '"', "encoding": "UTF-8", "mode": "FAILFAST",
    "ignoreLeadingWhiteSpace": "false", "ignoreTrailingWhiteSpace": "false",
    # A quoted field may span lines; the file is then read whole by one task, which numbers its rows.
    "multiLine": "true",
}
# Every whitespace character (schema.WHITESPACE) is below the first or at or past the second of these.
WHITESPACE_BOUNDS = ("!", "\x80")
OTHER_SUFFIXES = (".json", ".jsonl", ".ndjson", ".txt", ".tsv", ".xlsx", ".eval")


class Spark(Dialect):
    """Spark SQL (Spark 4): what differs from DuckDB and PostgreSQL."""

    name = "spark"
    text_type = "STRING"  # binary collation (UTF8_BINARY): text compares by code point, as in Python
    double_type = "DOUBLE"
    timestamp_type = "TIMESTAMP"  # an instant (TIMESTAMP_LTZ); TIMESTAMPTZ is not a Spark type
    # The radar window (a few rows per agent) is cached (CACHE TABLE): two queries read it. The counts per agent and
    # task (with the spread's limbs) are read once, as their query gives them.
    materialize = True
    # Sums as fixed-point limbs (SqlScorer._limbs), the headline's in the pass per agent, the spread's with the
    # counts per task (10M runs, local[2]: the report 15.7 -> 9.6-10.8 s with the changes of 2026-12-04; README).
    limb_sums = True
    status_flags = True  # a boolean column per status (SqlScorer._flagged): the pass per agent 3.4 -> 2.5 s
    hashed_join = True  # the spread joins on xxhash64(agent_id) (SqlScorer._means): 10M, a report 9.6 -> 8.9 s

    def literal(self, value: object) -> str:
        # A quote or a backslash is spelled chr(39), chr(92): never an escape, whose reading depends on the
        # session (spark.sql.parser.escapedStringLiterals).
        pieces = [f"chr({ord(p)})" if p in ("'", "\\") else f"'{p}'" for p in re.split(r"(['\\])", str(value)) if p]
        return "''" if not pieces else pieces[0] if len(pieces) == 1 else f"concat({', '.join(pieces)})"

    def trimmed(self, expr: str) -> str:
        # The characters themselves in the literal (none is a quote or a backslash): chr() is ASCII only.
        trim = f"trim(BOTH {self.literal(WHITESPACE)} FROM {expr})"
        # Spark's trim with a set of characters builds arrays of every character's position, for every text:
        # it is asked only of a text that may have something to trim. Every whitespace character is below '!'
        # or past ASCII (WHITESPACE_BOUNDS, tested), and binary text compares byte by byte, so a text whose
        # first character is ASCII from '!' on, and whose last byte is too, is kept as it is (a character past
        # ASCII ends in a byte of 0x80 or more). 10M run_ids hashed and grouped: 14.4 s trimmed, 10.8 s guarded
        # (12.6 s with the last character found by right(), which counts the characters), 11.0 s as read.
        return f"(CASE WHEN {self.plain(expr)} THEN {expr} ELSE {trim} END)"

    def plain(self, expr: str) -> str:
        low, high = WHITESPACE_BOUNDS
        last = f"substring(CAST({expr} AS BINARY), -1)"
        return (f"NOT ({expr} < '{low}' OR {expr} >= chr({ord(high)}) OR {last} < X'{ord(low):02X}' OR "
                f"{last} >= X'{ord(high):02X}')")

    def matches(self, expr: str, pattern: str) -> str:
        # Java's $ also matches before a final line break; the lookahead makes it the end of the text.
        return f"({expr} RLIKE '^(?:{pattern})$(?!(?s:.))')"

    def non_finite(self, expr: str) -> str:
        return f"(isnan({expr}) OR abs({expr}) = CAST('Infinity' AS DOUBLE))"

    def timestamp(self, column: str, typed: bool = False) -> str:
        if typed:
            # An instant, or a wall-clock time (TIMESTAMP_NTZ, DATE) read as UTC: either orders as it is,
            # and no session time zone enters a comparison.
            return column
        return super().timestamp(column)  # every text spelling is rewritten with an explicit offset first

    def group(self, text: str, pattern: str, i: int) -> str:
        return f"regexp_extract({text}, '^(?:{pattern})$(?!(?s:.))', {i})"

    def int_div(self, a: str, b: str) -> str:
        return f"(({a}) div ({b}))"

    def integer_sum(self, expr: str) -> str:
        # Spark's SUM of a BIGINT is a BIGINT: 256 mantissas (each below 2^55) would overflow it, and a
        # DECIMAL(38,0) SUM adds a Java BigDecimal per row. So each mantissa is split at 2^26 into two BIGINTs,
        # each summed as a BIGINT: the high parts are below 2^29, so their sum holds 2^34 (17 billion)
        # mantissas per (agent, exponent), and ANSI arithmetic (SETTINGS) raises rather than wraps beyond. The
        # two sums are joined in DECIMAL(38,0) once per group (below 10^38 > 2^89: exact). The split is an
        # arithmetic shift and a mask, m = (m >> 26) * 2^26 + (m & (2^26 - 1)) for every BIGINT (two's
        # complement), where DIV and % (checked arithmetic) cost more: 10M runs, the sums 3.0 -> 2.5-2.75 s.
        split = 2 ** 26
        return (f"(CAST(SUM(shiftright({expr}, 26)) AS DECIMAL(38,0)) * {split} "
                f"+ SUM(({expr}) & {split - 1}))")

    def sorted_values(self, expr: str) -> str:
        # The window's medians from one aggregate over its few rows per agent (no sort by a window function:
        # 10M runs, the window's counts and medians 2.5 -> 0.7 s). Doubles sort as ORDER BY sorts them.
        return f"sort_array(collect_list({expr}))"

    def element(self, array: str, position: str) -> str:
        return f"element_at({array}, CAST({position} AS INT))"

    def array_size(self, array: str) -> str:
        return f"size({array})"

    def hash64(self, expr: str) -> str | None:
        return f"xxhash64({expr})"  # 8 bytes a row through the shuffle rather than the text

    top_n = True  # max_by(x, key, n): Spark 4.2 and later (an older cluster gets the ROW_NUMBER() window)

    def newest_rows(self, source: str, where: str, columns: str, keys: Sequence[str], n: int) -> str | None:
        if not self.top_n:
            return None
        # max_by(x, key, n) (Spark 4.2): a heap of n rows per agent, kept per task and merged, never a sort of
        # the agent's runs. A struct compares field by field, NULL lowest: finished_at DESC NULLS LAST, then
        # run_id by its bytes (UTF-8: code point order), as the ROW_NUMBER() window orders them.
        return (f"SELECT agent_id, inline(newest) FROM (SELECT agent_id, max_by(struct({columns}), "
                f"struct({', '.join(keys)}), {n}) AS newest FROM {source} WHERE {where} GROUP BY agent_id) AS t")

    def store(self, name: str, query: str) -> str:
        # A cached temporary view (Spark has no temporary tables); _score drops it afterwards.
        return f"CACHE TABLE {name} AS {query}"

    def unstore(self, name: str) -> list[str]:
        return [f"UNCACHE TABLE IF EXISTS {name}", f"DROP VIEW IF EXISTS {name}"]

    def micros(self, expr: str) -> str | None:
        # A wall-clock time (TIMESTAMP_NTZ, DATE) is read in the session's zone, UTC while scoring (SETTINGS).
        return f"unix_micros(CAST({expr} AS TIMESTAMP))"


SPARK = Spark()
SPARK_BEFORE_4_2 = Spark()
SPARK_BEFORE_4_2.top_n = False


def _dialect(version: str) -> Spark:
    """The dialect for the session's Spark version ("4.3.0", "3.5.1-amzn-0")."""
    found = re.match(r"([0-9]+)\.([0-9]+)", version)
    return SPARK if found is None or (int(found.group(1)), int(found.group(2))) >= (4, 2) else SPARK_BEFORE_4_2


# --------------------------------------------------------------------------- sessions


def local_session(conf: Mapping[str, str] | None = None, master: str = "local[*]") -> Any:
    """A SparkSession of this process's own (no UI), or the one it already runs: local mode on every core by
    default, or the driver of an application on a cluster's ``master`` (``spark://host:7077``, ``yarn``,
    ``k8s://https://host:443``), whose executors read the runs path themselves."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName("scoring")
    settings = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                "spark.sql.shuffle.partitions": "8", **(conf or {})}
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def connect_session(url: str) -> Any:
    """A new session on a Spark Connect server (``sc://host:port``); the caller stops it."""
    from pyspark.sql import SparkSession

    found = re.fullmatch(r"sc://([^:/;]+|\[[0-9a-fA-F:]+\])(?::([0-9]{1,5}))?/?(;.*)?", url)
    if not found:
        raise ValueError("a Spark Connect URL reads sc://host[:port][/;option=value...], e.g. sc://localhost:15002")
    host, port = found.group(1).strip("[]"), int(found.group(2) or 15002)
    # The client retries a refused connection for ten minutes: a server that is not there is said at once.
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ConnectionError(f"cannot connect to the Spark Connect server at {host}:{port} ({why})") from None
    return SparkSession.builder.remote(url).create()


@contextmanager
def _settings(spark: Any, settings: Mapping[str, str] = SETTINGS) -> Iterator[None]:
    """The session with ``settings`` while in the block; each put back as it was afterwards."""
    previous = {key: spark.conf.get(key, None) for key in settings}
    changed = {key: value for key, value in settings.items() if (previous[key] or "").lower() != value.lower()}
    for key, value in changed.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key in changed:
            if previous[key] is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, previous[key])


def spark_error(exc: BaseException) -> str:
    """What went wrong, from a Spark error: its error class and message, and its root cause's."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    found = [m.group(0).strip() for m in (re.search(r"\[[A-Z][A-Z0-9_.]+\].*", line) for line in lines) if m]
    if not found:
        return (lines[0] if lines else type(exc).__name__)[:300]
    text = found[0] if len(found) == 1 else f"{found[0]} (caused by {found[-1]})"
    return text if len(text) <= 300 else text[:299] + "…"


# --------------------------------------------------------------------------- sources


@dataclasses.dataclass
class _Source:
    frame: Any  # a pyspark DataFrame
    name: str  # for messages
    row_number: Any  # a Column numbering the rows from 1, or None
    file_order: bool  # whether rows have an order (one file) for the radar window without finished_at


def _refuse(name: str, detail: str, column: str | None = None) -> RunsValidationError:
    return RunsValidationError([Problem.of(Reason.FILE, None, column, detail=detail)], source=name)


def _is_local(path: str) -> bool:
    return "://" not in path and not path.startswith("file:") and not any(c in path for c in "*?[{")


def _read_path(spark: Any, path: str, *, local: bool) -> _Source:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    name = Path(path.rstrip("/")).name or path
    suffix = Path(name).suffix.lower()
    if local and _is_local(path) and not Path(path).exists():
        raise _refuse(name, f"cannot read {path}: no such file")
    if suffix in OTHER_SUFFIXES:
        raise _refuse(name, f"the Spark engine reads Parquet and CSV files; use the pandas engine for {suffix}")
    csv = suffix == ".csv" or name.lower().endswith(".csv.gz")
    try:
        if csv:
            # The header is read as a record, so that its names reach SPEC 1's duplicate-column check as
            # written (Spark would rename a repeated name); every file's header must then match it.
            first = spark.read.options(**{**CSV_OPTIONS, "header": "false"}).csv(path).limit(1).collect()
            if not first:
                raise _refuse(name, "the file is empty")
            header = ["" if v is None else str(v) for v in first[0]]
            _normalize_names(header)  # a repeated column is refused here, before Spark sees it
            schema = StructType([StructField(h, StringType()) for h in header])
            frame = (spark.read.options(**CSV_OPTIONS).option("header", "true").option("enforceSchema", "false")
                     .schema(schema).csv(path))
        else:
            frame = spark.read.parquet(path)
        files = frame.inputFiles()
    except RunsValidationError as exc:
        raise RunsValidationError(exc.problems, source=name) from None
    except Exception as exc:  # pyspark raises its own and py4j's errors: one line of it is the reason
        kind = "CSV" if csv else "Parquet (a CSV path ends in .csv)"
        raise _refuse(name, f"not readable as {kind}: {spark_error(exc)}") from None
    if len(files) != 1:
        return _Source(frame, name, None, file_order=False)
    if csv:
        # One task reads the whole file in order (multiLine files are not split): the record's position in
        # its partition is its row. monotonically_increasing_id() is partition << 33 plus that position.
        # (Were a file ever split, the rows of a part that does not start the file would have no number.)
        position = F.monotonically_increasing_id() - F.shiftleft(F.spark_partition_id().cast("bigint"), 33)
        starts_the_file = F.col("_metadata.file_block_start") == 0
        return _Source(frame, name, F.when(starts_the_file, position + 1), file_order=True)
    return _Source(frame, name, F.col("_metadata.row_index") + 1, file_order=True)


def _read_table(spark: Any, table: str) -> _Source:
    try:
        frame = spark.table(table)  # a (multi-part) name, never SQL text
        frame.columns  # noqa: B018 (resolves the table: a missing one fails here)
    except Exception as exc:
        raise _refuse(table, f"cannot read table {table}: {spark_error(exc)}") from None
    return _Source(frame, table, None, file_order=False)


# --------------------------------------------------------------------------- scoring


def score_spark(path: str | Path | None = None, *, table: str | None = None, spark: Any = None,
                remote: str | None = None, master: str | None = None,
                policy: Policy = CANONICAL_POLICY, weights: Mapping[str, float] | None = None,
                levels: Sequence[int] | None = None, limits: Limits = DEFAULT_LIMITS) -> Report:
    """Score a Parquet or CSV ``path`` (or a catalog ``table``) with Spark. Of ``limits``, the work limits
    apply (SqlScorer.check_work), as in the SQL engine.

    ``spark`` is an existing SparkSession (classic or Connect), left running; ``remote`` a Spark Connect
    URL to open a session on; ``master`` a cluster's master URL for a session of this process's own (its
    executors must see ``path``); with none of them, a local-mode session (or the one this process
    runs). A session opened here is stopped afterwards. The session's settings are left as they were
    (``SETTINGS`` are set while scoring); nothing is written to the catalog.
    """
    if (path is None) == (table is None):
        raise ValueError("give either a path or a table")
    if sum(x is not None for x in (spark, remote, master)) > 1:
        raise ValueError("give at most one of a session, a Spark Connect URL and a master URL")
    # pyspark marks the whole process as Connect-only (SPARK_CONNECT_MODE_ENABLED) when a Connect session is
    # made, and every classic session used after it then fails: a session of our own leaves it as it was
    connect_mode = os.environ.get(CONNECT_MODE)
    try:
        return _score_in(path, table, policy, weights, levels, spark, remote, master, limits)
    finally:
        if remote and connect_mode is None:
            os.environ.pop(CONNECT_MODE, None)


def _score_in(path: str | Path | None, table: str | None, policy: Policy, weights: Mapping[str, float] | None,
              levels: Sequence[int] | None, spark: Any, remote: str | None, master: str | None,
              limits: Limits = DEFAULT_LIMITS) -> Report:
    own = None
    if spark is None and remote:
        spark = own = connect_session(remote)
    elif spark is None:
        from pyspark.sql import SparkSession

        running = SparkSession.getActiveSession()
        spark = local_session(master=master or "local[*]")
        own = None if running is not None else spark
    try:
        with _settings(spark):
            source = _read_table(spark, table) if table is not None else _read_path(spark, str(path),
                                                                                    local=remote is None)
            return _score(spark, source, policy, weights, levels, limits)
    finally:
        if own is not None:
            own.stop()  # a Connect session releases its server state; local mode ends its JVM


def _score(spark: Any, source: _Source, policy: Policy, weights: Mapping[str, float] | None,
           levels: Sequence[int] | None, limits: Limits = DEFAULT_LIMITS) -> Report:
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    token = uuid.uuid4().hex[:12]
    raw_view, plain_view, runs_view, numbered_view, window_view = (
        f"scoring_{part}_{token}" for part in ("source", "plain", "runs", "numbered", "window"))
    columns = list(source.frame.columns)
    if len(columns) > limits.max_columns:  # as the other engines, from the schema alone (no row is read)
        raise _refuse(source.name, column_limit_refusal(len(columns), limits.max_columns, "data"))
    kinds = _kinds(dict(source.frame.dtypes))
    no_number = F.lit(None).cast("bigint")
    row_number = source.row_number if source.row_number is not None else no_number
    numbered = source.frame.select(*[F.col(_quoted(c)) for c in columns], row_number.alias(ROW_COLUMN))
    # The same runs without their row numbers: reading a Parquet file's row index keeps every file metadata
    # column in the scan (1M runs, the window's top-n: 6.2 -> 5.4 s); they are read only to list rows.
    plain = source.frame.select(*[F.col(_quoted(c)) for c in columns], no_number.alias(ROW_COLUMN))
    try:
        table_sql, names = _renamed_source(f"`{raw_view}`", columns, _quoted, keep=ROW_COLUMN)
        plain_sql, _ = _renamed_source(f"`{plain_view}`", columns, _quoted, keep=ROW_COLUMN)
    except RunsValidationError as exc:
        raise RunsValidationError(exc.problems, source=source.name) from None
    _required(names, source.name)
    has_finished_at = "finished_at" in names
    if not has_finished_at and not source.file_order:
        raise _refuse(source.name, "several files or a table have no file order: the radar window needs a "
                                   "finished_at column", "finished_at")
    renamed_kinds = {n: kinds.get(o, "other") for n, o in _normalize_names(columns).items()}
    dialect = _dialect(spark.version)
    normalized, normalized_plain = (
        normalized_sql(sql, dialect, has_steps="steps" in names, has_finished_at=has_finished_at,
                       row_number=ROW_COLUMN, kinds=renamed_kinds) for sql in (table_sql, plain_sql))

    def execute(query: str) -> tuple[list[str], list[tuple]]:
        frame = spark.sql(query)
        return list(frame.columns), [tuple(row) for row in frame.collect()]

    numbered.createOrReplaceTempView(raw_view)
    plain.createOrReplaceTempView(plain_view)
    runs = None
    try:
        # A view, not a cache: each query reads only the columns it needs from the source (Parquet is
        # columnar) and normalizes them as it reads. Measured (bench_spark --ab-persist, 1M runs, local[2]):
        # building the cache (every column normalized) cost more than the reads it saved; SCORING_SPARK_PERSIST=1
        # keeps the normalized runs (memory, then disk) for a source that is slow to read (CSV, object store).
        runs = spark.sql(normalized_plain)
        if os.environ.get("SCORING_SPARK_PERSIST", "0") == "1":
            runs = runs.persist(StorageLevel.MEMORY_AND_DISK)
        runs.createOrReplaceTempView(runs_view)
        spark.sql(normalized).createOrReplaceTempView(numbered_view)
        scorer = SqlScorer(execute, dialect, f"`{runs_view}` AS runs", has_finished_at=has_finished_at,
                           has_row_numbers=source.row_number is not None, policy=policy, kinds=renamed_kinds,
                           numbered=f"`{numbered_view}` AS runs", limits=limits)
        # The window is the one result stored (CACHE TABLE); the counts per agent and task are read as their query
        # gives them (Spark sums in limbs: SqlScorer._spread_and_tasks), so no table of them is made or dropped.
        scorer.window_table = window_view
        scorer.many_groups = lambda: _settings(spark, MANY_GROUPS)
        scorer.read_bigints = _bigints_reader(spark)
        try:
            scorer.validate(source.name)
        except RunsValidationError as exc:
            if source.row_number is None:
                raise _by_run_id(scorer, exc) from None
            raise
        except Exception as exc:  # the first full read: a file Spark cannot read fails here
            raise _refuse(source.name, f"Spark could not read the runs: {spark_error(exc)}") from None
        return scorer.report(weights, levels)
    finally:
        for view in (window_view, runs_view):
            spark.sql(f"UNCACHE TABLE IF EXISTS `{view}`")
            spark.catalog.dropTempView(view)
        if runs is not None:
            runs.unpersist()
        for view in (numbered_view, plain_view, raw_view):
            spark.catalog.dropTempView(view)


def _bigints_reader(spark: Any) -> Callable[[str], tuple[Any, ...]] | None:
    """SqlScorer.read_bigints for the session: a query's first column as Arrow (DataFrame.toArrow, Spark 4 and
    Spark Connect), its non-NULL values and NULL count, and whether a second, boolean column holds any true;
    None where the session has no toArrow."""
    if not hasattr(spark.sql("SELECT 1"), "toArrow"):
        return None

    def read(query: str) -> tuple[Any, ...]:
        import pyarrow.compute as pc

        table = spark.sql(query).toArrow()
        column = table.column(0)
        missing = column.null_count
        # A second, boolean column (a bit a row in Arrow): whether any row holds true
        extra = (bool(pc.any(table.column(1)).as_py()),) if table.num_columns > 1 else ()
        return ((column.drop_null() if missing else column).to_numpy(), missing, *extra)

    return read


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _by_run_id(scorer: SqlScorer, exc: RunsValidationError) -> RunsValidationError:
    """The same refusal with each listed row named by its run_id (a source without row numbers)."""
    rules = {(column, reason.code): (reason, condition, shown)
             for column, reason, condition, shown in validation_queries(scorer.d, scorer.kinds)}
    problems: list[Problem] = []
    listed: set[tuple[str | None, str]] = set()
    for problem in exc.problems:
        key = (problem.column, problem.code)
        if key not in rules or problem.unlisted:
            problems.append(problem)  # a duplicate run_id (named already), a count of more rows, a file problem
            continue
        if key in listed:
            continue
        listed.add(key)
        reason, condition, shown = rules[key]
        found = scorer.rows(f"SELECT run_id, {shown} FROM {scorer.runs} WHERE ({condition}) "
                            f"ORDER BY run_id LIMIT {MAX_PROBLEMS}")
        for run_id, value in found:
            named = f"run_id {run_id!r}" if run_id else "run_id missing"
            problems.append(Problem(None, problem.column, None if value is None else str(value),
                                    f"{reason.text()} ({named})", reason.code))
    return RunsValidationError(problems, source=exc.source, rows_read=exc.rows_read, can_exclude=False,
                               total=exc.total, invalid_rows=exc.invalid_rows)
