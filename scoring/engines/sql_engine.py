"""The SQL engine: the same methodology pushed into SQL, for DuckDB (files larger than memory) and
PostgreSQL (the platform's own runs table); ``scoring.engines.spark_engine`` adds Apache Spark.

Every per-row step runs in the database: normalization, validation, the completed-run cohort
statistics, the radar window (``ROW_NUMBER() OVER``), medians, per-task counts. What comes back is a
few rows per agent (and per task), selected under the field names of the aggregate contracts
(``HeadlineAggregates``, ``RadarAggregates``, ``RepeatabilityAggregates``), which the same compute
steps as the pandas engine turn into results: the formula is written once, in ``scoring``, and every
constant the SQL needs (window size, statuses) comes from the policy and the schema.

Sums are exact in every engine. A double is an integer times a power of two, so each value is split
into its 53-bit integer mantissa and its exponent; the database sums the mantissas per agent and
exponent with its own integer SUM (128-bit or arbitrary precision), and the few (agent, exponent)
totals are shifted and added exactly in Python, with the one final rounding to a double there. That
is the sum ``math.fsum`` gives, so the averages and the spread agree with the pandas engine to the
bit. An agent with subnormal or tiny values has its sum taken by ``math.fsum`` over its values.
Where the dialect says so (Spark: ``Dialect.limb_sums``), each value is instead cut into fixed-point limbs
of 30 bits from 2^-116 to 2^64, summed as BIGINTs, with no exponent to find; an agent with a value outside
them is summed per exponent as above.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, fields
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from scoring.contract.limits import (
    DEFAULT_LIMITS,
    Limits,
    column_limit_refusal,
    count_error,
    format_size,
    special_file,
    special_file_reason,
)
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.problems import Problem, RunsValidationError
from scoring.contract.schema import (
    COMPLETED,
    FALSE_TOKENS,
    FRACTION_DIGITS,
    HEADLINE_STATUSES,
    ID_COLUMNS,
    NONFINITE_TOKENS,
    NUMBER_PATTERN,
    PASS_THROUGH_COLUMNS,
    PASS_THROUGH_LIMIT,
    READ_COLUMNS,
    REQUIRED_COLUMNS,
    SPELLINGS_SHOWN,
    STATUSES,
    TERMINAL_STATUSES,
    TIMESTAMP_GROUPS,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    TIMESTAMP_PATTERN,
    TIMESTAMP_PLAIN_PATTERN,
    TIMESTAMP_PLAIN_ZONE,
    TRUE_TOKENS,
    WHITESPACE,
    Reason,
    Spelt,
    look_alike_warnings,
    normalize_column_name,
    spelling_warnings,
)
from scoring.load.csv_header import csv_header, nul_byte
from scoring.load.database import (
    CONNECT_TIMEOUT_S,
    READ_SECONDS_PER_CPU_SECOND,
    STATEMENT_TIMEOUT_MS,
    ConnectionSpec,
    SourceRefused,
    SourceTooLarge,
    check_table_name,
    connect,
    fetch_rows,
    log,
    redact,
)
from scoring.measures._groups import MEAN_SCALE_AT, MEAN_SCALE_BY, spread_shift
from scoring.measures.headline import (
    LEFT_OUT_STATUSES,
    HeadlineAccounting,
    HeadlineAggregates,
    headline_from_aggregates,
)
from scoring.measures.radar import RadarAggregates, middle_value, radar_from_aggregates
from scoring.measures.repeatability import RepeatabilityAggregates, repeatability_from_aggregates
from scoring.measures.report import Report, assemble_report

if TYPE_CHECKING:
    from scoring.load.runs import LoadedRuns

MAX_PROBLEMS = 200
# The duplicate check sorts the run_ids' hashes here (SqlScorer.read_bigints) for at most this many rows
# (128 MB of hashes, sorted in place of a copy); past it, the engine groups them. 10M runs in Spark (local[2]):
# the engine's grouped count 3.5 s, read as Arrow and sorted here 1.0 s.
HASHES_HERE = 16_000_000
# Exact sums as fixed-point limbs (Dialect.limb_sums): a double v in [2^LIMB_LOW, 2^LIMB_TOP) whose lowest bit is
# at 2^LIMB_LOW or above is N x 2^LIMB_LOW for an integer N below 2^180, summed as its LIMB_COUNT slices of
# LIMB_BITS bits, each slice by a BIGINT SUM (below 2^30 a row: 2^33 rows, 8.6 billion, per agent before an overflow,
# which ANSI arithmetic raises). Such a value is the rule (a latency, a cost or a squared deviation of 2^-64 to 2^64,
# with its 53 bits); a value outside (an "odd" one) sends its agent's part to the sums per exponent. (Six limbs of
# 30 bits against seven of 28: 10M runs in Spark, A/B medians of 4, 14.0 -> 13.1 s a report.)
LIMB_BITS, LIMB_LOW, LIMB_COUNT = 30, -116, 6
LIMB_TOP = LIMB_LOW + LIMB_BITS * LIMB_COUNT
# The radar window's estimated cutoff (SqlScorer._estimated_cutoffs) aims at this many windows of runs per agent.
CUTOFF_MARGIN = 2
Execute = Callable[[str], tuple[list[str], list[tuple[Any, ...]]]]  # SQL -> (column names, rows)


def _quote_list(values: Iterable[object]) -> str:
    return ", ".join("'" + str(v).replace("'", "''") + "'" for v in values)


class Dialect:
    """What differs between SQL engines; each engine is a subclass."""

    name = "sql"
    text_type = "VARCHAR"
    collate = ""  # appended to a text column to compare it byte by byte, as Python compares str
    double_type = "DOUBLE PRECISION"  # the name of the 64-bit float type
    timestamp_type = "TIMESTAMPTZ"  # a timestamp that is an instant
    materialize = False  # the normalized runs are stored once (a temporary table) rather than re-read
    try_cast = True  # a cast that gives NULL for a date that does not exist (PostgreSQL's raises an error)
    # The normalized runs are a stored table: exact sums of several parts scan it once per part, each scan
    # reading only its part's rows (not one scan of every row crossed with every part).
    scan_per_part = False
    # Exact sums as fixed-point limbs (SqlScorer.exact_sums_of): a few BIGINT sums per agent, with no exponent
    # to find (no log, no power) and no group per exponent; where False, the mantissas per exponent.
    limb_sums = False
    # Each status a boolean column, compared once a row (SqlScorer._flagged), for the passes whose many aggregates
    # each filter on a status: Spark compares the text again for every aggregate (10M runs, the pass per agent
    # 3.4 -> 2.5 s).
    status_flags = False
    # The spread's deviations join each run to its agent's mean on the 64-bit hash of agent_id (hash64, a BIGINT
    # key) rather than on the text, where every agent's hash differs (SqlScorer._means); Spark's join on the text
    # compares strings a row (10M runs, local[2], A/B medians of 5 in one session: the report 9.64 -> 8.89 s).
    hashed_join = False

    def double(self, value: float) -> str:
        """A DOUBLE literal of ``value`` (its shortest round-trip text, which every engine parses to it)."""
        return f"CAST('{value!r}' AS {self.double_type})"

    def literal(self, value: object) -> str:
        """A text value from the data (an agent id) as a string literal."""
        return _quote_list([value])

    def trimmed(self, expr: str) -> str:
        """Surrounding whitespace removed, the characters Python's str.strip removes (schema.WHITESPACE)."""
        return f"trim({expr}, {_quote_list([WHITESPACE])})"

    def plain(self, expr: str) -> str | None:
        """A condition true only of a text that is its own trim (cheaper than trimming); None: the dialect has none."""
        return None

    def spelled(self, expr: str) -> str:
        """The text as written where trimming changes it, else NULL: two such spellings of one id are one id
        (schema.spelt_apart)."""
        plain = self.plain(expr)
        changed = f"WHEN {self.trimmed(expr)} <> {expr} THEN {expr}"
        return f"(CASE WHEN {plain} THEN NULL {changed} END)" if plain else f"(CASE {changed} END)"

    def matches(self, expr: str, pattern: str) -> str:
        return f"regexp_full_match({expr}, '{pattern}')"

    def non_finite(self, expr: str) -> str:
        return f"(isnan({expr}) OR isinf({expr}))"

    def cast(self, column: str, sql_type: str, spelling: str, typed: bool) -> str:
        """The column as ``sql_type``; NULL where it is not spelled as one (validation reports those rows)."""
        if typed:
            return f"TRY_CAST({column} AS {sql_type})"
        return f"TRY_CAST({self.trimmed(f'CAST({column} AS {self.text_type})')} AS {sql_type})"

    def cast_double(self, column: str, typed: bool = False) -> str:
        # Plus zero: a -0 is zero (IEEE -0 + 0 = +0), as in the pandas loader, so no median is ever a -0.0.
        return f"({self.cast(column, self.double_type, NUMBER_PATTERN, typed)} + CAST(0 AS {self.double_type}))"

    def timestamp(self, column: str, typed: bool = False) -> str:
        """The column as an instant; NULL where the text is not spelled by the one timestamp grammar
        (schema.TIMESTAMP_PATTERN and its rules). A valid spelling is rewritten in the one form every
        engine's cast reads alike (``YYYY-MM-DDThh:mm:ss.ffffff+hh:mm``) before it is cast, so no engine's
        own leniency (an hour of 24, a zone name, a session time zone) enters."""
        if typed:
            return self.cast(column, self.timestamp_type, "", typed)
        text = self.trimmed(f"CAST({column} AS {self.text_type})")

        def part(name: str) -> str:
            return self.group(text, TIMESTAMP_PATTERN, TIMESTAMP_GROUPS.index(name) + 1)

        def number(name: str) -> str:
            return self.integer(part(name))

        def two(name: str) -> str:
            return f"(CASE WHEN {part(name)} = '' THEN '00' ELSE {part(name)} END)"

        year, month = number("year"), number("month")
        leap = f"({year} % 4 = 0 AND ({year} % 100 <> 0 OR {year} % 400 = 0))"
        month_days = (f"(CASE WHEN {month} = 2 THEN (CASE WHEN {leap} THEN 29 ELSE 28 END) "
                      f"WHEN {month} IN (4, 6, 9, 11) THEN 30 ELSE 31 END)")
        fraction = f"rpad(substr({part('fraction')}, 1, {FRACTION_DIGITS}), {FRACTION_DIGITS}, '0')"
        offset = (f"(CASE WHEN {part('offset_hours')} = '' THEN '+00:00' "
                  f"ELSE concat({part('offset_hours')}, ':', {two('offset_minutes')}) END)")
        spelled = (f"concat({part('year')}, '-', {part('month')}, '-', {part('day')}, 'T', {two('hour')}, ':', "
                   f"{two('minute')}, ':', {two('second')}, '.', {fraction}, {offset})")
        stamp = self.cast_text(spelled, self.timestamp_type)
        low, high = (self.cast_text(self.literal(t), self.timestamp_type) for t in (TIMESTAMP_MIN, TIMESTAMP_MAX))
        # Nested CASEs: a cast runs only on a spelling that has passed the tests before it (PostgreSQL has
        # no TRY_CAST and does not promise to evaluate AND from left to right).
        grammar = (f"CASE WHEN {self.matches(text, TIMESTAMP_PATTERN)} THEN (CASE WHEN {year} >= 1 AND "
                   f"{number('day')} <= {month_days} THEN (CASE WHEN {stamp} BETWEEN {low} AND {high} "
                   f"THEN {stamp} END) END) END")
        if not self.try_cast:
            return f"({grammar})"
        # The common spellings are cast as they are (a day that does not exist gives NULL); only the rest
        # pay for the rewriting (many regular expressions per cell).
        zoned, naive = TIMESTAMP_PLAIN_PATTERN + TIMESTAMP_PLAIN_ZONE, TIMESTAMP_PLAIN_PATTERN
        as_utc = f"concat({text}, '+00:00')"  # no zone: UTC, whatever the session's time zone
        return (f"(CASE WHEN {self.matches(text, zoned)} THEN {self.cast_text(text, self.timestamp_type)} "
                f"WHEN {self.matches(text, naive)} THEN {self.cast_text(as_utc, self.timestamp_type)} "
                f"ELSE {grammar} END)")

    def group(self, text: str, pattern: str, i: int) -> str:
        """Capturing group ``i`` of ``pattern`` matched against the whole of ``text``; '' where it is absent."""
        return f"regexp_extract({text}, '^(?:{pattern})$', {i})"

    def integer(self, text: str) -> str:
        """Digits as an INTEGER (only ever called on digits the pattern has matched)."""
        return f"TRY_CAST({text} AS INTEGER)"

    def cast_text(self, text: str, sql_type: str) -> str:
        """A text the grammar guarantees as ``sql_type``."""
        return f"TRY_CAST({text} AS {sql_type})"

    def log2_floor(self, expr: str) -> str:
        return f"CAST(floor(log2({expr})) AS INTEGER)"

    def pow2(self, expr: str) -> str:
        return f"pow(2.0, {expr})"

    def int_div(self, a: str, b: str) -> str:
        return f"(({a}) // ({b}))"

    def newest_cutoff(self, column: str, n: int) -> str | None:
        """An aggregate: the n-th largest value of ``column`` in the group (None: the dialect has none)."""
        return None

    def sorted_values(self, expr: str) -> str:
        """An aggregate: the group's non-NULL values of ``expr`` as an array in ascending order (NULL when it
        has none); the radar window's medians are read off its middle elements."""
        return f"array_agg({expr} ORDER BY {expr}) FILTER (WHERE {expr} IS NOT NULL)"

    def element(self, array: str, position: str) -> str:
        """The element of an array at a 1-based position."""
        return f"{array}[{position}]"

    def array_size(self, array: str) -> str:
        return f"cardinality({array})"

    def hash64(self, expr: str) -> str | None:
        """A 64-bit hash of a text expression (None: the dialect has none worth a first pass)."""
        return None

    def byte_length(self, expr: str) -> str:
        """A text's length in bytes (UTF-8): never below its characters, and read without a pass over it."""
        return f"octet_length({expr})"

    def longer_than(self, expr: str, chars: int) -> str:
        """Whether a text has more than ``chars`` characters: its characters (a pass over the text) counted only of a
        text of more bytes than that (Spark, 10M run_ids read with their hashes: 1.2-1.4 -> 1.06 s, warm)."""
        return f"({self.byte_length(expr)} > {chars} AND length({expr}) > {chars})"

    def chars_bound(self, expr: str) -> str:
        """A number never below a text's characters (its bytes), where the number is only compared with a limit and a
        text past it is then looked for by its length (check_work; Spark, 10M runs, the pass per agent's longest task
        id as bytes: 3.64-3.72 -> 3.37-3.51 s, warm, alternated)."""
        return self.byte_length(expr)

    def lowered_word(self, expr: str) -> tuple[str, str]:
        """A text lower-cased, and the condition under which that reads it as SPEC 1's words are read (its letters A-Z
        only; schema.py, beside TRUE_TOKENS): a text that lower-cases to an ASCII word is ASCII itself exactly when
        lower-casing kept its bytes (no engine's lower() deletes a character, and a character past ASCII takes two
        bytes or more). Each engine's own lower() maps a capital dotted I to an i, to an i and a combining dot, or
        to itself. No count of its characters, and the condition worked out in a CASE, never an AND: DuckDB works out
        both sides of an AND in a FILTER (1M runs as CSV, the pass with every rule: 0.47-0.49 s before, 0.67-0.71 s
        with an AND, 0.47-0.49 s with a CASE)."""
        lowered = f"lower(({expr}){self.collate})"
        return lowered, f"{self.byte_length(lowered)} = {self.byte_length(expr)}"

    def word_lower(self, expr: str) -> str:
        """A text lower-cased where that keeps its bytes, else as it is: one of SPEC 1's words exactly where the text,
        read in A-Z only, is (lowered_word)."""
        lowered, kept = self.lowered_word(expr)
        return f"(CASE WHEN {kept} THEN {lowered} ELSE {expr} END)"

    def word_in(self, expr: str, words: Iterable[str]) -> str:
        """Whether a text is one of ``words`` (lower-case ASCII), read as lowered_word reads it; FALSE for NULL."""
        lowered, kept = self.lowered_word(expr)
        return f"(CASE WHEN {lowered} IN ({_quote_list(sorted(words))}) THEN {kept} ELSE FALSE END)"

    def micros(self, expr: str) -> str | None:
        """A timestamp as a BIGINT that never decreases as the time increases (microseconds since 1970), where
        the window's cutoff is worth estimating first (SqlScorer._estimated_cutoffs); None: it is not."""
        return None

    def unstore(self, name: str) -> list[str]:
        """Statements that drop what ``store`` kept as ``name``."""
        return [f"DROP TABLE IF EXISTS {name}"]

    def newest_rows(self, source: str, where: str, columns: str, keys: Sequence[str], n: int) -> str | None:
        """A query of (agent_id, ``columns``): each agent's ``n`` rows of ``source`` (``where``) with the
        largest ``keys`` (compared in order, NULL lowest), by a bounded top-n aggregate; None where the
        dialect has none (the window is then a ROW_NUMBER() over each agent's rows)."""
        return None

    def integer_sum(self, expr: str) -> str:
        """The exact SUM of a BIGINT expression (DuckDB: HUGEINT; PostgreSQL: NUMERIC; never a wrapped value)."""
        return f"SUM({expr})"

    def store(self, name: str, query: str) -> str:
        """A statement that keeps the query's rows as the temporary table ``name`` (replacing one)."""
        return f"CREATE OR REPLACE TEMP TABLE {name} AS {query}"


class DuckDB(Dialect):
    name = "duckdb"
    materialize = True
    scan_per_part = True  # 1M runs: the headline's three parts 0.65 s as a cross join, 0.40 s as three scans

    def trimmed(self, expr: str) -> str:
        # A regular expression (DuckDB's trim() with a character set is several times slower), asked only of a
        # text whose first or last character is not printable ASCII: every whitespace character is a control,
        # a space or beyond ASCII, so any other text is its own trim (the normalized runs, A/B medians:
        # 1M 0.31 -> 0.26 s, 10M 3.0 -> 2.5 s).
        regex = f"regexp_replace({expr}, '^{_WHITESPACE_CLASS}+|{_WHITESPACE_CLASS}+$', '', 'g')"
        return f"CASE WHEN {self.plain(expr)} THEN {expr} ELSE {regex} END"

    def plain(self, expr: str) -> str:
        return f"ord({expr}) BETWEEN 33 AND 126 AND ord(({expr})[-1]) BETWEEN 33 AND 126"

    def newest_cutoff(self, column: str, n: int) -> str | None:
        return f"list_min(max({column}, {n}))"  # max(x, n): the n largest values, a top-n heap per group

    def array_size(self, array: str) -> str:
        return f"len({array})"  # a BIGINT, as a list index must be (cardinality() is unsigned)

    def byte_length(self, expr: str) -> str:
        return f"strlen({expr})"  # octet_length() takes a BLOB


class PostgreSQL(Dialect):
    name = "postgresql"
    try_cast = False
    text_type = "TEXT"
    collate = ' COLLATE "C"'

    def trimmed(self, expr: str) -> str:
        return f"btrim({expr}, {_quote_list([WHITESPACE])})"

    def matches(self, expr: str, pattern: str) -> str:
        return f"({expr} ~ '^(?:{pattern})$')"

    def non_finite(self, expr: str) -> str:
        return f"({expr} IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8))"

    def cast(self, column: str, sql_type: str, spelling: str, typed: bool) -> str:
        if typed:
            return f"CAST({column} AS {sql_type})"
        # PostgreSQL has no TRY_CAST: a text cell such as 'abc' would abort the query (and 'yesterday'
        # reads as a timestamp), so only a valid spelling is cast.
        text = self.trimmed(f"CAST({column} AS {self.text_type})")
        return f"(CASE WHEN {self.matches(text, spelling)} THEN CAST({text} AS {sql_type}) END)"

    def group(self, text: str, pattern: str, i: int) -> str:
        return f"coalesce((regexp_match({text}, '^(?:{pattern})$'))[{i}], '')"

    def integer(self, text: str) -> str:
        return f"CAST({text} AS INTEGER)"

    def cast_text(self, text: str, sql_type: str) -> str:
        return f"CAST({text} AS {sql_type})"

    def log2_floor(self, expr: str) -> str:
        return f"CAST(floor(log(2.0, CAST({expr} AS NUMERIC))) AS INTEGER)"

    def pow2(self, expr: str) -> str:
        # In double precision (exact for a power of two): pow(2.0, n) is NUMERIC in PostgreSQL, whose 2^-943 has
        # too few digits, so the mantissas of latencies of 1e300 ms summed to 0 (their average read 0 ms).
        return f"power(CAST(2 AS DOUBLE PRECISION), {expr})"

    def int_div(self, a: str, b: str) -> str:
        return f"(({a}) / ({b}))"


_WHITESPACE_CLASS = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE) + "]"  # RE2 syntax
DUCKDB, POSTGRES = DuckDB(), PostgreSQL()


# --------------------------------------------------------------------------- normalization and validation


def normalized_sql(source: str, d: Dialect, *, has_steps: bool, has_finished_at: bool, row_number: str,
                   kinds: Mapping[str, str] | None = None) -> str:
    """SELECT canonical columns from ``source`` (SPEC 1 spellings; invalid cells become NULL here and
    are caught by the validation queries, which see the raw text too)."""
    text = d.text_type
    kinds = kinds or {}
    numeric = {c: kinds.get(c) == "numeric" for c in ("latency_ms", "cost_usd", "steps")}
    typed_time = kinds.get("finished_at") == "timestamp"
    # A typed value no instant of the engine holds (a DATE of the year 1,258,934: the cast gives NULL) keeps its
    # text, so that it is refused at its row rather than read as no time at all.
    typed_time_text = f"CASE WHEN {d.timestamp('finished_at', True)} IS NULL THEN CAST(finished_at AS {text}) END"
    success = d.trimmed(f'CAST(success AS {text})')
    if kinds.get("success") == "boolean":  # a typed column needs no spelling check
        outcome, outcome_text = "CAST(success AS BOOLEAN)", "NULL"
    else:
        lowered, kept = d.lowered_word(success)
        true_words, false_words = _quote_list(sorted(TRUE_TOKENS)), _quote_list(sorted(FALSE_TOKENS))
        outcome = (f"CASE WHEN {lowered} IN ({true_words}) THEN (CASE WHEN {kept} THEN TRUE END) "
                   f"WHEN {lowered} IN ({false_words}) THEN (CASE WHEN {kept} THEN FALSE END) END")
        outcome_text = d.trimmed(f"CAST(success AS {text})")  # as written (a refusal quotes it), but trimmed
    # A status already spelled as SPEC 1 lists it is its own lower-cased trim, and is kept as read: Spark's lower()
    # makes a new text a row, in every scan that reads status (10M runs, local[2], A/B alternated in one session,
    # medians of 5: the report 11.8 -> 10.2 s; DuckDB, 1M runs: 1.03 -> 1.01 s).
    status_text = f"CAST(status AS {text})"
    status = (f"CASE WHEN {status_text}{d.collate} IN ({_quote_list(STATUSES)}) THEN {status_text} "
              f"ELSE {d.word_lower(d.trimmed(status_text))} END")
    return f"""
    SELECT
      {d.trimmed(f'CAST(run_id AS {text})')} AS run_id,
      {d.trimmed(f'CAST(agent_id AS {text})')} AS agent_id,
      {d.trimmed(f'CAST(task_id AS {text})')} AS task_id,
      {d.spelled(f'CAST(agent_id AS {text})')} AS agent_spelled,
      {d.spelled(f'CAST(task_id AS {text})')} AS task_spelled,
      {status} AS status,
      CAST(status AS {text}) AS status_text,
      {outcome} AS success,
      {outcome_text} AS success_text,
      {d.cast_double('latency_ms', numeric['latency_ms'])} AS latency_ms,
      {'NULL' if numeric['latency_ms'] else f'CAST(latency_ms AS {text})'} AS latency_text,
      {d.cast_double('cost_usd', numeric['cost_usd'])} AS cost_usd,
      {'NULL' if numeric['cost_usd'] else f'CAST(cost_usd AS {text})'} AS cost_text,
      {d.cast_double('steps', numeric['steps']) if has_steps else f'CAST(NULL AS {d.double_type})'} AS steps,
      {f'CAST(steps AS {text})' if has_steps and not numeric['steps'] else f'CAST(NULL AS {text})'} AS steps_text,
      {d.timestamp('finished_at', typed_time) if has_finished_at else f'CAST(NULL AS {d.timestamp_type})'}
        AS finished_at,
      {typed_time_text if has_finished_at and typed_time else
       f'CAST(finished_at AS {text})' if has_finished_at else f'CAST(NULL AS {text})'}
        AS finished_text,
      {row_number} AS source_row{_pass_through_sql(d, kinds)}
    FROM {source} AS src"""


def _pass_through(kinds: Mapping[str, str] | None) -> list[str]:
    """The pass-through columns (schema.PASS_THROUGH_COLUMNS) the source has: validated, never scored."""
    return [c for c in PASS_THROUGH_COLUMNS if c in (kinds or {})]


def _pass_through_sql(d: Dialect, kinds: Mapping[str, str]) -> str:
    """Each pass-through column as a number and its text (for the validation queries), like ``steps``."""
    out = ""
    for c in _pass_through(kinds):
        numeric = kinds.get(c) == "numeric"
        out += (f",\n      {d.cast_double(c, numeric)} AS {c},"
                f"\n      {'CAST(NULL AS ' + d.text_type + ')' if numeric else f'CAST({c} AS {d.text_type})'}"
                f" AS {c}_text")
    return out


def validation_queries(d: Dialect, kinds: Mapping[str, str] | None = None) -> list[tuple[str, Reason, str, str]]:
    """(column, reason, WHERE condition, offending text) for every SPEC 1 rule, on the normalized runs.

    ``kinds`` maps a source column to "numeric" or "timestamp" when its type already guarantees the
    spelling: the text checks (regular expressions) then do not run at all.
    """
    kinds = kinds or {}
    # A missing value is shown as none (NULL), as the pandas loader shows it, an id of spaces too (trimmed to '').
    rules = [(c, Reason.MISSING_VALUE, f"{c} IS NULL OR {c} = ''", f"NULLIF({c}, '')")
             for c in ("run_id", "agent_id", "task_id")]
    # A floating-point id column's NaN or infinity is no id (its text cast, 'nan' or 'NaN', 'inf' or 'Infinity',
    # would name an agent): refused, as the pandas engine refuses it. A text "NaN" stays an id.
    rules += [(c, Reason.NOT_FINITE, f"lower({c}) IN ({_quote_list(sorted(NONFINITE_TOKENS))})", c)
              for c in ("run_id", "agent_id", "task_id") if kinds.get(c) == "numeric"]
    rules += [
        ("status", Reason.UNKNOWN_STATUS,
         f"status IS NOT NULL AND status <> '' AND status NOT IN ({_quote_list(STATUSES)})", d.trimmed("status_text")),
        ("status", Reason.MISSING_VALUE, "status IS NULL OR status = ''", f"NULLIF({d.trimmed('status_text')}, '')"),
        ("success", Reason.NOT_AN_OUTCOME, "success IS NULL AND success_text IS NOT NULL AND success_text <> ''",
         "success_text"),
    ]
    extras = _pass_through(kinds)
    for column, text in (("latency_ms", "latency_text"), ("cost_usd", "cost_text"), ("steps", "steps_text"),
                         *((c, f"{c}_text") for c in extras)):
        negative = f"{column} < 0 AND NOT {d.non_finite(column)}"  # -inf is not finite, and only that (SPEC 1)
        if kinds.get(column) == "numeric":  # a typed column: only the values themselves can be wrong
            shown = f"CAST({column} AS {d.text_type})"
            rules += [(column, Reason.NOT_FINITE, f"{column} IS NOT NULL AND {d.non_finite(column)}", shown),
                      (column, Reason.NEGATIVE, negative, shown)]
            continue
        stripped = d.trimmed(text)
        token = d.word_in(stripped, NONFINITE_TOKENS)
        rules += [
            (column, Reason.NOT_A_NUMBER, f"{text} IS NOT NULL AND {stripped} <> '' AND NOT {token} "
                                          f"AND NOT {d.matches(stripped, NUMBER_PATTERN)}", text),
            (column, Reason.NOT_FINITE, f"{token} OR ({column} IS NOT NULL AND {d.non_finite(column)})", text),
            (column, Reason.NEGATIVE, negative, text),
        ]
    # Every double of 2^52 or more is whole, and floor() of one past 2^63 overflows where floor gives a BIGINT
    # (Spark with ANSI on): floor is asked of smaller values only, in a CASE (evaluated lazily in every engine).
    fraction = "CASE WHEN {c} < 4503599627370496.0 THEN {c} <> floor({c}) ELSE FALSE END"
    rules += [(c, Reason.NOT_WHOLE, f"{c} IS NOT NULL AND NOT {d.non_finite(c)} AND {c} >= 0 AND "
                                    f"{fraction.format(c=c)}",
               f"COALESCE({c}_text, CAST({c} AS {d.text_type}))") for c in ("steps", *extras)]
    rules += [(c, Reason.TOO_LARGE, f"{c} IS NOT NULL AND NOT {d.non_finite(c)} AND {c} >= {PASS_THROUGH_LIMIT!r}",
               f"COALESCE({c}_text, CAST({c} AS {d.text_type}))") for c in extras]  # kept as a 64-bit integer
    if kinds.get("finished_at") != "timestamp":  # a typed column is a timestamp or empty
        # finished_at is NULL exactly where the text is empty or not spelled by the grammar (Dialect.timestamp).
        rules.append(("finished_at", Reason.NOT_A_TIMESTAMP,
                      f"finished_text IS NOT NULL AND {d.trimmed('finished_text')} <> '' AND finished_at IS NULL",
                      "finished_text"))
    else:  # a typed instant past the grammar's years (10000-01-01), refused as its text would be
        low, high = (d.cast_text(d.literal(t), d.timestamp_type) for t in (TIMESTAMP_MIN, TIMESTAMP_MAX))
        rules.append(("finished_at", Reason.NOT_A_TIMESTAMP,
                      f"finished_at < {low} OR finished_at > {high} OR finished_text IS NOT NULL",
                      f"COALESCE(finished_text, CAST(finished_at AS {d.text_type}))"))
    if kinds.get("success") == "boolean":
        rules = [r for r in rules if r[0] != "success"]
    # A list, struct or map column: every value given is refused as nested (its text cast shown), as the pandas
    # engine refuses each; an id or status not given is still missing. No other rule reads such a column.
    nested = [c for c in (*REQUIRED_COLUMNS, "steps", "finished_at", *extras) if kinds.get(c) == "nested"]
    for column in nested:
        text = _NESTED_TEXT.get(column, f"{column}_text")
        rules = [r for r in rules if r[0] != column or r[1] is Reason.MISSING_VALUE]
        rules.append((column, Reason.NESTED, f"{text} IS NOT NULL AND {text} <> ''", text))
    return rules


# The normalized table's text of each column as given (normalized_sql): an id is its own.
_NESTED_TEXT = {"run_id": "run_id", "agent_id": "agent_id", "task_id": "task_id", "status": "status_text",
                "success": "success_text", "finished_at": "finished_text", "latency_ms": "latency_text",
                "cost_usd": "cost_text"}


def _named(result: tuple[list[str], list[tuple]], cls: type, index: Mapping[str, int], size: int,
           key: str = "agent_id") -> dict[str, np.ndarray]:
    """A contract dataclass from query rows whose columns carry its field names (one row per agent)."""
    columns, rows = result
    position = {c: j for j, c in enumerate(columns)}
    values = {}
    for f in fields(cls):
        column = np.full(size, np.nan)
        j = position[f.name]
        for r in rows:
            if r[j] is not None:
                column[index[r[position[key]]]] = float(r[j])
        values[f.name] = column
    return values


class SqlScorer:
    """Runs the generated queries through ``execute`` and builds the Report."""

    window_table = "radar_window"  # the radar window's temporary table, where the dialect stores it
    groups_table = "run_groups"  # the counts per agent and task (_per_agent), where the dialect stores them

    def __init__(self, execute: Execute, dialect: Dialect, runs: str, *, has_finished_at: bool,
                 has_row_numbers: bool, policy: Policy = CANONICAL_POLICY, kinds: Mapping[str, str] | None = None,
                 numbered: str | None = None, limits: Limits = DEFAULT_LIMITS, ids_measured: bool = False):
        """``runs`` names the normalized runs (a table, a view, or a parenthesised subquery with an alias);
        ``numbered`` the same runs with their row numbers where reading those costs more (Spark reads a
        Parquet file's row index only when asked): it is read only to list rows and for the file order.
        ``limits``: the work limits every engine refuses past (check_work); ``ids_measured``: the source's ids
        were measured against max_id_chars before the runs were normalized (_refuse_long_ids)."""
        self.execute, self.d, self.policy, self.runs = execute, dialect, policy, runs
        self.limits, self.ids_measured = limits, ids_measured
        self._work: tuple[str, int] = ("runs", 0)  # the source's name and rows, for a refusal past a work limit
        self._run_ids_over: bool | None = None  # a run_id past max_id_chars, where the duplicate check read it
        self._groups_stored = False  # the counts per agent and task stored (_per_agent, where the dialect stores)
        self._stored_only = False  # _per_agent asked only to store them (_totals)
        self._totals_read: tuple[int, int, int, int, int | None, int | None] | None = None
        self.numbered = numbered or runs
        self.has_finished_at, self.has_row_numbers = has_finished_at, has_row_numbers
        self.kinds = dict(kinds or {})
        self._agent_rows: tuple[list[str], list[tuple]] | None = None  # _per_agent, asked once
        self._sums: list[dict[str, float]] | None = None  # _cost_and_latency_sums, asked once
        # The counts per (agent, task) that _spread_and_tasks read, for repeatability_aggregates.
        self._task_rows: list[tuple[Any, ...]] | None = None
        # The engine's settings for a query with about as many groups as rows (the duplicate check), set while it
        # runs (Spark: no partial aggregation before the shuffle, which would only copy every row).
        self.many_groups: Callable[[], AbstractContextManager[object]] = nullcontext
        # Where the engine can hand a query's one BIGINT column over whole (Spark: as Arrow), its non-NULL values
        # and its NULL count: the duplicate check then sorts the run_ids' hashes here, for at most
        # HASHES_HERE rows, rather than grouping them in the engine (a shuffle of every row).
        # A second column of the query, boolean, comes back as a third element: whether any row holds true.
        self.read_bigints: Callable[[str], tuple[Any, ...]] | None = None
        self.warnings: list[str] = [] if has_finished_at else [
            "No finished_at column: file order is used for the radar window (a later row is newer)."]

    def rows(self, query: str) -> list[tuple]:
        return self.execute(query)[1]

    # ----------------------------------------------------------------------- validation (SPEC 1)

    def validate(self, source_name: str) -> None:
        """Refuse the runs (RunsValidationError) when a SPEC 1 rule refuses a row or a run_id repeats: first
        the counts (the scan per agent, the duplicate check, then a count per rule only where something is
        refused), then the rows each failing rule lists, up to MAX_PROBLEMS."""
        rules = validation_queries(self.d, self.kinds)
        # The scan per agent (_per_agent) counts the rows and the rows some rule refuses, but the rules on run_id:
        # the duplicate check looks for those, as it reads run_id anyway (the scan per agent then never reads it:
        # 10M runs in Spark, 13.7 -> 11.1 s). Only a file with refused rows is scanned again, for the rows each
        # rule refuses, and each failing rule once more for examples. (One count of every rule OR'ed instead of
        # a count per rule: 10M runs, 17.4 -> 13.4 s in Spark.)
        rows_read, refused = self._totals()[:2]
        if rows_read == 0:
            raise RunsValidationError([Problem.of(Reason.FILE, detail="the file has no runs")], source=source_name)
        repeated, repeating_rows, refused_run_id = self._repeated_run_ids(rules, rows_read)
        any_rule = " OR ".join(f"({c})" for _, _, c, _ in rules) or "FALSE"
        # A repeated run_id's first row is its first in the file, as the pandas loader has it; a source without
        # row order (a table, several files) keeps one of the id's rows without another problem where there is one.
        order = ("source_row" if self.has_row_numbers
                 else f"CASE WHEN ({any_rule}) THEN 1 ELSE 0 END, run_id{self.d.collate}")
        counts, invalid_rows = [0] * len(rules), 0
        if refused or refused_run_id:
            counts, invalid_rows = self._rule_counts(rules, any_rule)
        if repeating_rows and invalid_rows:
            invalid_rows = self._rows_refused_or_repeating(any_rule, order)
        else:
            invalid_rows += repeating_rows
        problems, total = self._rule_problems(rules, counts)
        problems += self._duplicate_problems(order, repeating_rows) if repeated else []
        if problems:
            problems.sort(key=lambda p: (p.row is None, p.row or 0))
            raise RunsValidationError(problems, source=source_name, rows_read=rows_read, can_exclude=False,
                                      total=max(total + repeating_rows, len(problems)), invalid_rows=invalid_rows)
        self.check_work(source_name, rows_read)

    def check_work(self, source_name: str, rows_read: int) -> None:
        """Refuse valid runs past the work limits, as the pandas loader's check_work does and in its words: more
        agents than ``limits`` allow, then every id column holding an id longer than max_id_chars (at the first
        row that gives one; a table without row order: the first such id in text order), then more tasks. No scan
        of its own in Spark: the agents and the longest task id come with the pass per agent, whether a run_id is
        too long with the duplicate check's hashes, and the tasks are counted with the spread
        (_spread_and_tasks). DuckDB counts the tasks on its counts per agent and task; PostgreSQL in one scan."""
        limits = self.limits
        self._work = (source_name, rows_read)
        _, _, agents, agent_chars, tasks, task_chars = self._totals()
        self._refuse_count(agents, "agents")
        if self.d.limb_sums:  # Spark's plan: the tasks are counted with the spread
            # At least the longest task id's characters (Dialect.chars_bound): past the limit, the id is looked for
            task_chars = max((int(r["task_chars"] or 0) for r in self._agent_rows_named()), default=0)
            run_over = self._run_ids_over
        elif self.d.materialize:  # counted on the stored counts per agent and task (_totals)
            run_over = None
        else:
            tasks, task_chars, run_chars = self.rows(
                f"SELECT COUNT(DISTINCT task_id), MAX(length(task_id)), MAX(length(run_id)) FROM {self.runs}")[0]
            run_over = run_chars is not None and int(run_chars) > limits.max_id_chars
        if not self.ids_measured:
            if run_over is None:
                run_chars = self.rows(f"SELECT MAX(length(run_id)) FROM {self.runs}")[0][0]
                run_over = run_chars is not None and int(run_chars) > limits.max_id_chars
            over = {"run_id": run_over, "agent_id": agent_chars > limits.max_id_chars,
                    "task_id": task_chars is not None and int(task_chars) > limits.max_id_chars}
            problems = []
            for column in (c for c, past in over.items() if past):
                order = f"source_row, {column}{self.d.collate}" if self.has_row_numbers else f"{column}{self.d.collate}"
                found = self.rows(f"SELECT {column}, source_row FROM {self.numbered} "
                                  f"WHERE length({column}) > {limits.max_id_chars} ORDER BY {order} LIMIT 1")
                problems += [Problem.long_id(None if row is None else int(row), column, str(value),
                                             limits.max_id_chars) for value, row in found]
            if problems:
                raise RunsValidationError(problems, source=source_name, rows_read=rows_read, can_exclude=False)
        if tasks is not None:
            self._refuse_count(int(tasks), "tasks")

    def _refuse_count(self, count: int, what: str) -> None:
        """Refuse ``count`` agents or tasks past their limit (check_work), as the pandas loader refuses them."""
        setting = f"max_{what}"
        reason = count_error(count, what, getattr(self.limits, setting), setting)
        if reason is not None:
            source_name, rows_read = self._work
            raise RunsValidationError([Problem.of(Reason.FILE, None, "agent_id" if what == "agents" else "task_id",
                                                  detail=reason)],
                                      source=source_name, rows_read=rows_read, can_exclude=False)

    def _repeated_run_ids(self, rules: Sequence[tuple[str, Reason, str, str]],
                          rows_read: int) -> tuple[int, int, int]:
        """(run_ids given more than once, the rows that repeat an earlier one, the rows a rule on run_id refuses).

        A grouped count (it spills to disk under a memory limit; COUNT(DISTINCT) does not), first of the
        run_ids' hashes where the dialect has one: equal run_ids hash alike, so no repeated hash, no duplicate.
        Its groups (a missing run_id in a group of its own) also tell whether a rule on run_id may refuse a row.
        The only such rule, a missing run_id (NULL or empty), is read off the groups: the NULL group and the
        group of the empty id's key (a hash, which another id may share: then the rows each rule refuses are
        counted, exactly, by _rule_counts, and none may be). Any other rule on run_id is counted row by row.
        (10M runs in Spark: 4.6 -> 3.8 s, no per-row count in the aggregate of 10M groups.)"""
        on_run_id = [(reason, c) for column, reason, c, _ in rules if column == "run_id"]
        missing = [(Reason.MISSING_VALUE, "run_id IS NULL OR run_id = ''")]

        def repeated_count(key: str, empty_key: str) -> tuple[int, int, int]:
            # Counted on the keys: a hash may merge ids, so only the counts on run_id itself are exact.
            group = f"CASE WHEN run_id IS NOT NULL THEN {key} END"
            if on_run_id == missing:
                counted, refused_rows = "", f"SUM(n) FILTER (WHERE k IS NULL OR k = {empty_key})"
            else:
                either = " OR ".join(f"({c})" for _, c in on_run_id) or "FALSE"
                counted, refused_rows = f", COUNT(*) FILTER (WHERE {either}) AS refused", "SUM(refused)"
            # Empty ids are refused as missing, never as duplicates; on hashes, any repeat sends to the exact count.
            repeated = "n > 1 AND k IS NOT NULL" + (f" AND k <> {empty_key}" if key == "run_id" else "")
            repeats, again, refusals = self.rows(f"""
                SELECT COUNT(*) FILTER (WHERE {repeated}), SUM(n - 1) FILTER (WHERE {repeated}), {refused_rows}
                FROM (SELECT {group} AS k, COUNT(*) AS n{counted} FROM {self.runs} GROUP BY {group}) AS g""")[0]
            return int(repeats), int(again or 0), int(refusals or 0)

        hashed = self.d.hash64("run_id")
        here = hashed is not None and on_run_id == missing and self.read_bigints is not None and \
            rows_read <= HASHES_HERE
        if here:
            repeated, repeating_rows, refused_run_id = self._repeated_hashes(str(hashed))
            if not repeated:
                return repeated, repeating_rows, refused_run_id
        with self.many_groups():  # a group per run: the engine may skip the partial aggregation
            if not here:
                repeated, repeating_rows, refused_run_id = repeated_count(hashed or "run_id",
                                                                          self.d.hash64("''") or "''")
            if repeated and hashed:
                repeated, repeating_rows, _ = repeated_count("run_id", "''")
        return repeated, repeating_rows, refused_run_id

    def _repeated_hashes(self, hashed: str) -> tuple[int, int, int]:
        """_repeated_run_ids' first count, on the run_ids' hashes read whole (read_bigints) and sorted here:
        (hashes given more than once, the rows that repeat one, the rows whose run_id is NULL or hashes like
        the empty id). The same three numbers as the grouped count in the engine."""
        assert self.read_bigints is not None
        # With each hash, whether its run_id is past max_id_chars (check_work): a bit a row, no scan of its own
        keys, missing, *flags = self.read_bigints(f"SELECT CASE WHEN run_id IS NOT NULL THEN {hashed} END, "
                                                  f"{self.d.longer_than('run_id', self.limits.max_id_chars)} "
                                                  f"FROM {self.runs}")
        if flags:
            self._run_ids_over = bool(flags[0])
        empty = int(self.rows(f"SELECT {self.d.hash64(chr(39) * 2)}")[0][0])
        keys = np.asarray(keys, dtype=np.int64)
        keys = keys if keys.flags.writeable else keys.copy()
        keys.sort()  # in place: 8 bytes a row, once
        like_empty = int(np.count_nonzero(keys == empty))
        if not np.any(keys[1:] == keys[:-1]):  # the rule: each hash once (one comparison a row, no groups)
            return 0, 0, int(missing) + like_empty
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        counts = np.diff(np.r_[starts, len(keys)])
        repeated = counts > 1
        return int(repeated.sum()), int((counts[repeated] - 1).sum()), int(missing) + like_empty

    def _rule_counts(self, rules: Sequence[tuple[str, Reason, str, str]], any_rule: str) -> tuple[list[int], int]:
        """(the rows each rule refuses, the rows some rule refuses: a row may break several), in one scan."""
        *counts, invalid_rows = (int(n) for n in self.rows("SELECT " + ", ".join(
            [f"COUNT(*) FILTER (WHERE {c}) AS rule_{i}" for i, (_, _, c, _) in enumerate(rules)]
            + [f"COUNT(*) FILTER (WHERE {any_rule}) AS invalid_rows"]) + f" FROM {self.runs}")[0])
        return counts, invalid_rows

    def _rows_refused_or_repeating(self, any_rule: str, order: str) -> int:
        """The rows a rule refuses or that repeat an earlier run_id, each once (the two may overlap): a
        repeating row is found by its place among the rows of its run_id, in ``order``."""
        return int(self.rows(f"""
            SELECT COUNT(*) FROM (
              SELECT *, run_id IS NOT NULL AND run_id <> '' AND
                        ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY {order}) > 1 AS scoring_later_
              FROM {self.numbered}) AS w WHERE scoring_later_ OR ({any_rule})""")[0][0])

    def _rule_problems(self, rules: Sequence[tuple[str, Reason, str, str]],
                       counts: Sequence[int]) -> tuple[list[Problem], int]:
        """(each failing rule's first MAX_PROBLEMS rows, and one problem counting the rest; the problems counted)."""
        problems: list[Problem] = []
        total = 0
        for (column, reason, condition, shown), failing in zip(rules, counts):
            if not failing:
                continue
            total += int(failing)
            found = self.rows(f"SELECT source_row, {shown} FROM {self.numbered} WHERE ({condition}) "
                              f"ORDER BY source_row LIMIT {MAX_PROBLEMS}")
            problems += [Problem.of(reason, None if r is None else int(r), column, None if v is None else str(v))
                         for r, v in found]
            if len(found) < failing:  # more than listed (or rows the engine could not list)
                problems.append(Problem.not_listed(reason, column, int(failing) - len(found)))
        return problems, total

    def _duplicate_problems(self, order: str, repeating_rows: int) -> list[Problem]:
        """The first MAX_PROBLEMS rows that repeat an earlier run_id (in ``order``), and one problem counting
        the rest of the ``repeating_rows``."""
        duplicates = self.rows(f"""
            SELECT source_row, run_id, first_row FROM (
              SELECT source_row, run_id, ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY {order}) AS k,
                     MIN(source_row) OVER (PARTITION BY run_id) AS first_row
              FROM {self.numbered} WHERE run_id IS NOT NULL AND run_id <> '') AS d
            WHERE k > 1 ORDER BY source_row, run_id LIMIT {MAX_PROBLEMS}""")
        problems = [Problem.of(Reason.DUPLICATE_RUN_ID, None if r is None else int(r), "run_id", str(rid),
                               **({"where": ""} if first is None else {"first_row": int(first)}))
                    for r, rid, first in duplicates]
        if len(duplicates) < repeating_rows:  # more than listed
            problems.append(Problem.not_listed(Reason.DUPLICATE_RUN_ID, "run_id", repeating_rows - len(duplicates),
                                               where=""))
        return problems

    # ----------------------------------------------------------------------- exact sums

    def exact_sums(self, value: str, where: str, source: str | None = None,
                   shift: Mapping[str, int] | None = None) -> dict[str, float]:
        """Per agent, the correctly rounded sum of ``value`` (>= 0) over the rows ``where`` selects, times
        2^-shift (the agent's ``shift``, 0 by default): the sum of huge values without an overflow."""
        return self.exact_sums_of([(value, where)], source, [shift or {}])[0]

    def exact_sums_of(self, parts: Sequence[tuple[str, str]], source: str | None = None,
                      shifts: Sequence[Mapping[str, int]] | None = None,
                      disjoint: bool = False, limbs: bool | None = None) -> list[dict[str, float]]:
        """:meth:`exact_sums` of several (value, where) parts at once: one scan of ``source``, each row
        given once per part (a cross join with the part numbers), or a scan per part where the dialect
        stores the runs (Dialect.scan_per_part); the mantissas summed per (agent, part, exponent).
        ``disjoint``: the parts that sum the same value select disjoint rows, so each row is given once per
        value, in the part its row is in (the headline's cost and the cost it leaves out: 3 -> 2 copies).
        ``limbs``: as fixed-point limbs (LIMB_BITS; the dialect's choice by default) or per exponent."""
        shifts = shifts or [{} for _ in parts]
        d, source = self.d, source or self.runs
        if len(parts) == 1 or d.scan_per_part:
            inputs = " UNION ALL ".join(f"SELECT agent_id, {i} AS part, CAST({value} AS {d.double_type}) AS v "
                                        f"FROM {source} WHERE {where}" for i, (value, where) in enumerate(parts))
        else:
            given = list(dict.fromkeys(v for v, _ in parts)) if disjoint else [v for v, _ in parts]
            slots = [[i for i, (v, _) in enumerate(parts) if v == value] if disjoint else [k]
                     for k, value in enumerate(given)]
            part = " ".join(f"WHEN {k} THEN (CASE {' '.join(f'WHEN {parts[i][1]} THEN {i}' for i in slot)} END)"
                            for k, slot in enumerate(slots))
            picked = " ".join(f"WHEN {k} THEN {v}" for k, v in enumerate(given))
            numbers = ", ".join(f"({k})" for k in range(len(given)))
            inputs = (f"SELECT agent_id, part, v FROM (SELECT agent_id, CASE k.slot {part} END AS part, "
                      f"CAST(CASE k.slot {picked} END AS {d.double_type}) AS v "
                      f"FROM {source} CROSS JOIN (VALUES {numbers}) AS k(slot)) AS p WHERE part IS NOT NULL")
        # The exponent e = floor(log2(v)) may be one off near a power of two, so the mantissa is taken one bit
        # wider: m = v * 2^(53 - e) is an integer in [2^52, 2^55) for any e within one of the true exponent
        # (v = M * 2^(E - 52), M an integer below 2^53, so m = M * 2^(E - e + 1)), exactly, as multiplying by a
        # power of two is, for a value neither subnormal nor tiny (2^(53 - e) must not overflow a double).
        # One log and one power a value (a correction of e took two more powers: 10M runs, 12.4 -> 9.6 s).
        # The mantissas are summed per agent and exponent by an exact integer SUM (Dialect.integer_sum: 128-bit,
        # arbitrary or DECIMAL(38,0)), and the few (agent, exponent) totals are combined exactly here, with one
        # rounding at the end.
        if limbs is None:
            limbs = d.limb_sums
        if limbs:
            return self._limb_sums(parts, inputs, source, shifts)
        normal = f"v >= {d.double(2.2250738585072014e-308)} AND e >= -960"
        mantissas = f"""
            SELECT agent_id, part, e, CASE WHEN {normal} THEN CAST(v * {d.pow2('53 - e')} AS BIGINT) END AS m
            FROM (SELECT agent_id, part, v, {d.log2_floor('v')} AS e FROM ({inputs}) AS x WHERE v > 0) AS t"""
        summed = self.rows(f"""
            SELECT agent_id, part, e, {d.integer_sum('m')} AS total, COUNT(*) FILTER (WHERE m IS NULL) AS odd
            FROM ({mantissas}) AS s GROUP BY agent_id, part, e""")
        totals: list[dict[str, list[tuple[int, int]]]] = [{} for _ in parts]
        odd: list[set[str]] = [set() for _ in parts]
        for agent, part, e, total, n_odd in summed:
            if n_odd:
                odd[int(part)].add(agent)
            elif total is not None:
                totals[int(part)].setdefault(agent, []).append((int(e), int(Decimal(total))))
        out: list[dict[str, float]] = []
        for (value, where), part_totals, part_odd, shift in zip(parts, totals, odd, shifts):
            sums = {}
            for agent, pieces in part_totals.items():
                if agent in part_odd:
                    continue
                low = min(e for e, _ in pieces)
                exact_total = sum(total << (e - low) for e, total in pieces)
                sums[agent] = _nearest_float(Fraction(exact_total) * Fraction(2) ** (low - 53 - shift.get(agent, 0)))
            for agent in sorted(part_odd):
                values = [float(v) for (v,) in self.rows(
                    f"SELECT CAST({value} AS {d.double_type}) FROM {source} WHERE ({where}) AND agent_id = "
                    f"{d.literal(agent)}")]
                try:
                    sums[agent] = math.fsum(math.ldexp(v, -shift.get(agent, 0)) for v in values)
                except OverflowError:  # the exact sum is past the largest double, as the pandas engine finds it
                    sums[agent] = _nearest_float(sum(map(Fraction, values), Fraction(0)) / 2 ** shift.get(agent, 0))
            out.append(sums)
        return out

    def _limb_sums(self, parts: Sequence[tuple[str, str]], inputs: str, source: str,
                   shifts: Sequence[Mapping[str, int]]) -> list[dict[str, float]]:
        """exact_sums_of by fixed-point limbs (_limbs): per (agent, part), LIMB_COUNT BIGINT sums and the count
        of the values outside the limbs' range, in one aggregate of a row per value (_sums_from_limbs)."""
        sums = ", ".join(f"SUM(v_limb_{j})" for j in range(LIMB_COUNT))
        summed = self.rows(f"""
            SELECT agent_id, part, COUNT(*) FILTER (WHERE v_odd) AS odd, {sums}
            FROM {self._limbs(f"(SELECT * FROM ({inputs}) AS x WHERE v > 0) AS x", ["v"])} GROUP BY agent_id, part""")
        return self._sums_from_limbs(summed, parts, source, shifts)

    def _limbs(self, source: str, values: Sequence[str]) -> str:
        """A FROM item: every column of ``source`` and, for each column named in ``values``, its LIMB_COUNT
        limbs (``<name>_limb_<j>``, the top one first) and whether the value is ``<name>_odd``: past the
        limbs' range (a value > 0; the rest are not summed).

        The limbs are peeled from the top: x_0 = v x 2^(LIMB_BITS - LIMB_TOP) (below 2^LIMB_BITS), limb_j =
        floor(x_j), x_(j+1) = (x_j - limb_j) x 2^LIMB_BITS. Each step is exact (a fraction part; a product by
        a power of two that stays a normal double), and the value is within the limbs exactly when
        x_LIMB_COUNT is 0. One floor, one subtraction and one product a limb: no log, no power, no group per
        exponent (10M runs in Spark, each as a query of its own: the headline's three sums 2.7 -> 2.2 s, the
        spread 2.0 -> 1.8 s; fmod for each limb instead, 5.8 and 7.5 s)."""
        d = self.d
        step = d.double(2.0 ** LIMB_BITS)
        inside = {v: f"({v} >= {d.double(2.0 ** LIMB_LOW)} AND {v} < {d.double(2.0 ** LIMB_TOP)})" for v in values}
        chain = f"SELECT * FROM {source}"
        columns = [f"COALESCE({inside[v]}, FALSE) AS {v}_in, CASE WHEN {inside[v]} THEN "
                   f"{v} * {d.double(2.0 ** (LIMB_BITS - LIMB_TOP))} ELSE 0 END AS {v}_x_0" for v in values]
        # One projection a step (the next reads x_j twice: a subquery each, never the text doubled).
        for j in range(LIMB_COUNT + 1):
            chain = f"SELECT *, {', '.join(columns)} FROM ({chain}) AS c_{j}"
            columns = [f"CAST(floor({v}_x_{j}) AS BIGINT) AS {v}_limb_{j}, "
                       f"({v}_x_{j} - floor({v}_x_{j})) * {step} AS {v}_x_{j + 1}" for v in values]
        odd = ", ".join(f"NOT {v}_in OR {v}_x_{LIMB_COUNT} <> 0 AS {v}_odd" for v in values)
        return f"(SELECT *, {odd} FROM ({chain}) AS c) AS limbs"

    def _sums_from_limbs(self, summed: Iterable[Sequence[Any]], parts: Sequence[tuple[str, str]], source: str,
                         shifts: Sequence[Mapping[str, int]], disjoint: bool = False) -> list[dict[str, float]]:
        """exact_sums_of from rows of (agent, part, values outside the limbs, the LIMB_COUNT limb sums): each
        sum exact and rounded once; an agent's part with a value outside the limbs is summed again per exponent
        (exact_sums_of with limbs=False), for that agent alone."""
        d = self.d
        exact: list[dict[str, Fraction]] = [{} for _ in parts]
        again: list[set[str]] = [set() for _ in parts]
        for agent, part, n_odd, *limb_totals in summed:
            if n_odd:
                again[int(part)].add(str(agent))
            elif any(t is not None for t in limb_totals):
                whole = sum(int(t or 0) << (LIMB_BITS * (LIMB_COUNT - 1 - j)) for j, t in enumerate(limb_totals))
                exact[int(part)][str(agent)] = Fraction(whole) * Fraction(2) ** LIMB_LOW
        out = [{agent: _nearest_float(total / 2 ** shift.get(agent, 0)) for agent, total in part_exact.items()}
               for part_exact, shift in zip(exact, shifts)]
        redo = [i for i, agents in enumerate(again) if agents]
        if redo:
            alone = [(parts[i][0], f"({parts[i][1]}) AND agent_id IN ({', '.join(map(d.literal, sorted(again[i])))})")
                     for i in redo]
            for i, sums_again in zip(redo, self.exact_sums_of(alone, source, [shifts[i] for i in redo],
                                                              disjoint=disjoint, limbs=False)):
                out[i].update(sums_again)
        return out

    # ----------------------------------------------------------------------- aggregates

    def agents(self) -> tuple[str, ...]:
        return tuple(sorted(str(r["agent_id"]) for r in self._agent_rows_named()))

    def _agent_rows_named(self) -> list[dict[str, Any]]:
        """The pass per agent's rows (_per_agent) as column name -> value."""
        columns, rows = self._per_agent()
        return [dict(zip(columns, row)) for row in rows]

    def _statuses(self, statuses: Sequence[str]) -> str:
        """A condition: the row's status is one of ``statuses`` (on the status flags of _flagged, where the dialect
        has them; the same rows either way)."""
        if not self.d.status_flags:
            return f"status IN ({_quote_list(statuses)})"
        return "(" + " OR ".join(f"status_is_{STATUSES.index(s)}" for s in statuses) + ")"

    def _flagged(self, runs: str) -> str:
        """``runs`` (a FROM item of the normalized runs) with a boolean column per status, where the dialect has
        them (Dialect.status_flags), aliased ``runs``."""
        if not self.d.status_flags:
            return runs
        flags = ", ".join(f"COALESCE(status = {self.d.literal(s)}, FALSE) AS status_is_{i}"
                          for i, s in enumerate(STATUSES))
        return f"(SELECT *, {flags} FROM {runs}) AS runs"

    def _per_agent(self) -> tuple[list[str], list[tuple]]:
        """One pass per agent, read by validation, the agent list, the headline, its accounting and the radar
        window (asked once): the rows and the rows a SPEC 1 rule but run_id's refuses (``rows_read``,
        ``rows_refused``), the completed-run counts and maxima (_Counts), per terminal status its runs, known
        outcomes and known costs, and where the dialect estimates the window's cutoff, the terminal runs'
        finished_at range.

        Where the dialect sums as limbs (Dialect.limb_sums), the pass also sums the headline's values
        (``sum_<part>_*``, _exact_sums). Where it stores results (Dialect.materialize) but sums per exponent, the
        pass is per (agent, task) and also counts the known terminal outcomes and successes (``task_n``,
        ``task_c``) that repeatability reads: one scan of the runs for both, stored as ``groups_table``, and the
        per-agent rows are its totals."""
        if self._agent_rows is None:
            terminal = self._statuses(TERMINAL_STATUSES)
            completed = self._statuses(HEADLINE_STATUSES)  # the cohort (_groups.headline_cohort)
            # (aggregate, name, how the per-task values add up to the agent's)
            columns: list[tuple[str, str, str | None]] = [
                       (f"COUNT(*) FILTER (WHERE {completed})", "completed_runs", "SUM"),
                       (f"COUNT(*) FILTER (WHERE {completed} AND success)", "successful_runs", "SUM"),
                       (f"COUNT(latency_ms) FILTER (WHERE {completed})", "latency_runs", "SUM"),
                       (f"COUNT(cost_usd) FILTER (WHERE {completed})", "cost_runs", "SUM"),
                       (f"MAX(latency_ms) FILTER (WHERE {completed})", "latency_max", "MAX"),
                       (f"MAX(cost_usd) FILTER (WHERE {completed})", "cost_max", "MAX")]
            for i, status in enumerate(TERMINAL_STATUSES):
                where = self._statuses([status])
                columns += [(f"COUNT(*) FILTER (WHERE {where})", f"runs_{i}", "SUM"),
                            (f"COUNT(success) FILTER (WHERE {where})", f"outcomes_{i}", "SUM"),
                            (f"COUNT(cost_usd) FILTER (WHERE {where})", f"costs_{i}", "SUM")]
            micros = self.d.micros("finished_at") if self.has_finished_at else None
            if micros is not None:
                columns += [(f"COUNT(finished_at) FILTER (WHERE {terminal})", "dated", "SUM"),
                            (f"MIN({micros}) FILTER (WHERE {terminal})", "oldest", "MIN"),
                            (f"MAX({micros}) FILTER (WHERE {terminal})", "newest", "MAX")]
            columns.append(("COUNT(*)", "rows_read", "SUM"))
            # Rows whose agent or task id trimming changed: only then may two spellings be one id (_spellings).
            columns += [(f"COUNT({p}_spelled)", f"{p}_spelled", "SUM") for p in ("agent", "task")]
            if self.d.limb_sums:  # the longest task id (check_work), where no stored counts per task give it
                columns.append((f"MAX({self.d.chars_bound('task_id')})", "task_chars", "MAX"))
            # Every SPEC 1 rule but those on run_id (validate: the duplicate check counts those).
            broken = " OR ".join(f"({c})" for column, _, c, _ in validation_queries(self.d, self.kinds)
                                 if column != "run_id") or "FALSE"
            columns.append((f"COUNT(*) FILTER (WHERE {broken})", "rows_refused", "SUM"))
            # Each agent's hash, where the spread joins on it (_means): computed once a group, not once a row.
            hashed = self.d.hash64("agent_id") if self.d.hashed_join else None
            head = "SELECT agent_id, " + (f"{hashed} AS agent_hash, " if hashed else "")
            runs = self._flagged(self.runs)
            if self.d.limb_sums:  # the headline's exact sums (_exact_sums) as limbs, in the same scan
                runs = self._limbs(runs, ["latency_ms", "cost_usd"])
                for p, (value, where) in enumerate(self._headline_parts()):
                    columns.append((f"COUNT(*) FILTER (WHERE {where} AND {value} > 0 AND {value}_odd)",
                                    f"sum_{p}_odd", "SUM"))
                    columns += [(f"SUM({value}_limb_{j}) FILTER (WHERE {where} AND {value} > 0)", f"sum_{p}_limb_{j}",
                                 "SUM") for j in range(LIMB_COUNT)]
            if not self.d.materialize or self.d.limb_sums:
                # Where the sums are limbs, the counts per task come with the spread (_spread_and_tasks): a
                # pass per agent keeps its ~70 sums of a group in a few hundred groups, not one per task
                # (10M runs in Spark: 5.2 -> 3.6 s).
                self._agent_rows = self.execute(
                    head + ", ".join(f"{aggregate} AS {name}" for aggregate, name, _ in columns)
                    + f" FROM {runs} GROUP BY agent_id")
                return self._agent_rows
            known = f"{terminal} AND success IS NOT NULL"
            columns += [(f"COUNT(*) FILTER (WHERE {known})", "task_n", None),
                        (f"COUNT(*) FILTER (WHERE {known} AND success)", "task_c", None)]
            if not self._groups_stored:
                self.execute(self.d.store(self.groups_table, "SELECT agent_id, task_id, " + ", ".join(
                    f"{aggregate} AS {name}" for aggregate, name, _ in columns) + f" FROM {runs} "
                    "GROUP BY agent_id, task_id"))
                self._groups_stored = True
            if self._stored_only:
                return [], []
            self._agent_rows = self.execute(
                head + ", ".join(f"{total}({name}) AS {name}" for _, name, total in columns if total)
                + f" FROM {self.groups_table} GROUP BY agent_id")
        return self._agent_rows

    def _totals(self) -> tuple[int, int, int, int, int | None, int | None]:
        """(rows read, rows a rule but run_id's refuses, agents, the longest agent id's characters, tasks, the longest
        task id's characters; the last two None where not counted here). Where the dialect stores the counts per
        agent and task (DuckDB), read off them without a row per agent in Python: a file of 1.5M agents, refused
        past max_agents, held each agent's row of the pass here first (30.8 s, 1.93 GB; a reviewer, 2026-12-06)."""
        if self._totals_read is None:
            if self.d.materialize and not self.d.limb_sums:
                self._stored_only = True
                try:
                    self._per_agent()  # the counts per agent and task, stored
                finally:
                    self._stored_only = False
                found = self.rows(f"SELECT SUM(rows_read), SUM(rows_refused), COUNT(DISTINCT agent_id), "
                                  f"MAX(length(agent_id)), COUNT(DISTINCT task_id), MAX(length(task_id)) "
                                  f"FROM {self.groups_table}")[0]
                # No row at all: SUM and MAX give NULL (a header-only file is refused as having no runs, in validate)
                *counts, task_chars = found
                self._totals_read = (*(int(v or 0) for v in counts),  # type: ignore[assignment]
                                     None if task_chars is None else int(task_chars))
            else:
                rows = self._agent_rows_named()
                self._totals_read = (sum(int(r["rows_read"]) for r in rows), sum(int(r["rows_refused"]) for r in rows),
                                     len(rows), max((len(str(r["agent_id"])) for r in rows), default=0), None, None)
        assert self._totals_read is not None
        return self._totals_read

    def _exact_sums(self, agents: Sequence[str]) -> tuple[list[dict[str, float]], list[np.ndarray]]:
        """The exact sums of the headline (latency and cost of the completed runs, each agent's scaled by
        2^-shift, the pandas engine's rule: scoring.measures._groups MEAN_SCALE_*) and of its accounting (cost
        of the runs it leaves out), in one scan (asked once); and the two shifts."""
        counts = _named(self._per_agent(), _Counts, {a: i for i, a in enumerate(agents)}, len(agents))
        shifts = [np.where(np.nan_to_num(counts[f"{c}_max"]) >= 2.0 ** MEAN_SCALE_AT, MEAN_SCALE_BY, 0)
                  .astype(np.int64) for c in ("latency", "cost")]
        if self._sums is None:
            parts = self._headline_parts()
            by_agent = [{a: int(k) for a, k in zip(agents, shift)} for shift in shifts] + [{}]
            if self.d.limb_sums:  # summed by the pass per agent
                rows = self._agent_rows_named()
                summed = [(row["agent_id"], p, row[f"sum_{p}_odd"],
                           *(row[f"sum_{p}_limb_{j}"] for j in range(LIMB_COUNT)))
                          for row in rows for p, _ in enumerate(parts)]
                self._sums = self._sums_from_limbs(summed, parts, self._flagged(self.runs), by_agent, disjoint=True)
            else:
                self._sums = self.exact_sums_of(parts, self._flagged(self.runs), shifts=by_agent, disjoint=True)
        return self._sums, shifts

    def _headline_parts(self) -> list[tuple[str, str]]:
        """The headline's exact sums (value, rows of _flagged runs): latency and cost of the completed runs, and
        the cost of the runs it leaves out (the two cost parts select disjoint rows)."""
        assert not set(HEADLINE_STATUSES) & set(LEFT_OUT_STATUSES)
        completed = self._statuses(HEADLINE_STATUSES)
        left = f"{self._statuses(LEFT_OUT_STATUSES)} AND cost_usd IS NOT NULL"
        return [("latency_ms", f"{completed} AND latency_ms IS NOT NULL"),
                ("cost_usd", f"{completed} AND cost_usd IS NOT NULL"), ("cost_usd", left)]

    def headline_aggregates(self, agents: Sequence[str]) -> HeadlineAggregates:
        """The completed-run cohort per agent (SPEC 3), with exact sums and the spread from the exact mean.

        Huge values are scaled by a power of two before they are added, by the pandas engine's rule
        (scoring.measures._groups: MEAN_SCALE_*, spread_shift), so that no sum overflows in either engine, and
        tiny deviations scaled up before they are squared, so that no square underflows.
        """
        index = {a: i for i, a in enumerate(agents)}
        completed = f"status IN ({_quote_list(HEADLINE_STATUSES)})"  # the headline cohort (_groups.headline_cohort)
        counts = _named(self._per_agent(), _Counts, index, len(agents))
        counts = {k: np.nan_to_num(v) for k, v in counts.items()}

        sums, shifts = self._exact_sums(agents)

        def mean(part: int, n: np.ndarray) -> np.ndarray:
            return np.ldexp(_divide([sums[part].get(a, 0.0) for a in agents], n), shifts[part])

        latency_mean = mean(0, counts["latency_runs"])
        cost_mean = mean(1, counts["cost_runs"])
        # The spread: sum of (x - mean)^2 with the mean computed above (the same double as pandas uses).
        # Each mean and scale travels as its shortest round-trip text, which every engine parses to the same double.
        shift = spread_shift(counts["latency_max"])  # huge latencies scaled down, tiny ones up
        means = self._means({a: (float(m), math.ldexp(1.0, -int(k)))
                             for a, m, k in zip(agents, latency_mean, shift) if not np.isnan(m)})
        squares: dict[str, float] = {}
        if means:
            if self.d.limb_sums and self.d.materialize:
                squares = self._spread_and_tasks(means)
            else:
                squares = self.exact_sums("d2", f"{completed} AND d2 IS NOT NULL",
                                          source=self._deviations(means, self.runs, "JOIN"))
        pstdev = np.ldexp(np.sqrt(_divide([squares.get(a, 0.0) for a in agents], counts["latency_runs"])), shift)
        return HeadlineAggregates(completed_runs=counts["completed_runs"], successful_runs=counts["successful_runs"],
                                  latency_runs=counts["latency_runs"], latency_mean=latency_mean,
                                  latency_pstdev=pstdev, cost_runs=counts["cost_runs"], cost_mean=cost_mean)

    def _means(self, means: Mapping[str, tuple[float, float]]) -> tuple[str, str] | None:
        """The agents' means and scale factors (agent -> (mean, factor)) as a FROM item aliased ``m`` (columns
        ``agent_key``, ``mean``, ``factor``) and the condition that joins a run ``r`` to its agent's row; None for no
        agent. The key is agent_id, or its hash (Dialect.hashed_join) where every agent's hash differs: all the
        agents' hashes, those without a mean too, as the pass per agent gives them, so a run's hash matches its
        own agent's row or none. Each number travels as its shortest round-trip text (Dialect.double)."""
        if not means:
            return None
        d = self.d
        agents = self._agent_rows_named()
        hashes = {str(r["agent_id"]): int(r["agent_hash"]) for r in agents if r.get("agent_hash") is not None}
        if d.hashed_join and len(hashes) == len(agents) == len(set(hashes.values())):
            keys = {a: f"CAST({hashes[a]} AS BIGINT)" for a in means}
            on = f"{d.hash64('r.agent_id')} = m.agent_key"
        else:
            keys, on = {a: d.literal(a) for a in means}, "r.agent_id = m.agent_key"
        rows = ", ".join(f"({keys[a]}, {d.double(mean)}, {d.double(factor)})" for a, (mean, factor) in means.items())
        return f"(VALUES {rows}) AS m(agent_key, mean, factor)", on

    def _deviations(self, means: tuple[str, str], runs: str, join: str) -> str:
        """A FROM item: the columns of ``runs`` and each run's squared scaled deviation from its agent's mean,
        ``d2`` (``means``: _means; ``join``: JOIN keeps only the agents with a mean, LEFT JOIN every run, d2 NULL
        where there is no mean)."""
        deviation = "((r.latency_ms - m.mean) * m.factor)"
        table, on = means
        return (f"(SELECT r.*, {deviation} * {deviation} AS d2 FROM {self._aliased('r', runs)} "
                f"{join} {table} ON {on}) AS dev")

    def _spread_and_tasks(self, means: tuple[str, str]) -> dict[str, float]:
        """The spread's exact sums (exact_sums of ``d2`` over the completed runs), as limbs, from a scan that also
        counts each (agent, task)'s known terminal outcomes and successes for repeatability (``task_n``, ``task_c``):
        the runs are read once for both, and the groups (one per agent and task) once, as the query gives them. An
        agent with no mean (no completed run with a latency) has no d2, and its tasks are counted all the same."""
        known = f"{self._statuses(TERMINAL_STATUSES)} AND success IS NOT NULL"
        where = f"{self._statuses(HEADLINE_STATUSES)} AND d2 IS NOT NULL"
        deviations = self._deviations(means, self._flagged(self.runs), "LEFT JOIN")
        limbs = ", ".join(f"SUM(d2_limb_{j}) FILTER (WHERE {where} AND d2 > 0) AS limb_{j}" for j in range(LIMB_COUNT))
        # Read as the query gives them, never stored first (Spark: a CACHE TABLE and a read of it before): the
        # counts per task for repeatability, the limbs added up per agent here.
        per_agent: dict[str, list[Any]] = {}
        self._task_rows = []
        tasks: set[Any] = set()
        for agent, task, n, c, odd, *slices in self.rows(f"""
                SELECT agent_id, task_id, COUNT(*) FILTER (WHERE {known}) AS task_n,
                       COUNT(*) FILTER (WHERE {known} AND success) AS task_c,
                       COUNT(*) FILTER (WHERE {where} AND d2 > 0 AND d2_odd) AS odd, {limbs}
                FROM {self._limbs(deviations, ["d2"])} GROUP BY agent_id, task_id"""):
            if int(n):
                self._task_rows.append((agent, task, n, c))
            total = per_agent.setdefault(str(agent), [0] + [None] * LIMB_COUNT)
            total[0] += int(odd)
            for j, limb in enumerate(slices):
                if limb is not None:
                    total[j + 1] = (total[j + 1] or 0) + int(limb)
            tasks.add(task)
        if self.d.limb_sums:  # the tasks past max_tasks (check_work), counted on the groups as they come
            self._refuse_count(len(tasks), "tasks")
        summed = [(agent, 0, *total) for agent, total in per_agent.items()]
        return self._sums_from_limbs(summed, [("d2", where)], deviations, [{}])[0]

    def headline_accounting(self, agents: Sequence[str]) -> HeadlineAccounting:
        """The runs the headline leaves out, by status, with their exact summed cost; known completed outcomes."""
        index = {a: i for i, a in enumerate(agents)}
        size = len(agents)
        by_status = {s: np.zeros(size, dtype=np.int64) for s in LEFT_OUT_STATUSES}
        known = np.zeros(size, dtype=np.int64)
        cost_runs = np.zeros(size, dtype=np.int64)
        for row in self._agent_rows_named():
            i = index[str(row["agent_id"])]
            for k, status in enumerate(TERMINAL_STATUSES):
                if status == COMPLETED:
                    known[i] = int(row[f"outcomes_{k}"])
                else:
                    by_status[status][i] = int(row[f"runs_{k}"])
                    cost_runs[i] += int(row[f"costs_{k}"])
        sums = self._exact_sums(agents)[0][2]
        return HeadlineAccounting(by_status, np.array([sums.get(a, 0.0) for a in agents], dtype=float),
                                  cost_runs, known)

    def _aliased(self, alias: str, runs: str | None = None) -> str:
        """The normalized runs (or ``runs``) under another alias (a subquery's own alias replaced)."""
        runs = runs or self.runs
        if runs.endswith(" AS runs"):
            return runs[: -len(" AS runs")] + f" AS {alias}"
        return f"{runs} AS {alias}"

    def radar_aggregates(self, agents: Sequence[str]) -> RadarAggregates:
        """The latest-window aggregates (SPEC 4): counts and exact medians per agent, counts per (agent, task)."""
        index = {a: i for i, a in enumerate(agents)}
        size = int(self.policy.radar_window)
        cutoffs = self._estimated_cutoffs(size)

        measured = ("latency_ms", "cost_usd", "steps")

        def window_counts(window: str) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
            # One query: the counts, and each column's values sorted into an array per agent, of which only the
            # size and the two middle values come back (_middle_values); the window is a few rows per agent.
            counts = """COUNT(*) AS n_window, COUNT(success) AS n_known, COUNT(*) FILTER (WHERE success) AS n_success,
                        COUNT(latency_ms) AS n_lat, COUNT(cost_usd) AS n_cost, COUNT(steps) AS n_steps,
                        COUNT(*) FILTER (WHERE steps > 0) AS nonzero_steps"""
            result = self.execute(self._middle_values(f"SELECT agent_id, {counts}, " + ", ".join(
                f"{self.d.sorted_values(c)} AS sorted_{i}" for i, c in enumerate(measured))
                + f" FROM {window} GROUP BY agent_id", len(measured)))
            return (_named(result, _WindowCounts, index, len(agents)),
                    self._middles_of(result, len(measured), index, len(agents)))

        window = self._window(size, cutoffs)
        counts, middles = window_counts(window)
        # An estimated cutoff is right where it left the agent a whole window (it keeps every run at or after a
        # time, so the newest are among them); an agent it left short is taken again with all its runs.
        expected = np.minimum(size, self._terminal_runs(agents))
        short = {a for a, n, want in zip(agents, np.nan_to_num(counts["n_window"]), expected) if n < want}
        if short & set(cutoffs):
            for statement in self.d.unstore(self.window_table):
                self.execute(statement)
            window = self._window(size, {a: c for a, c in cutoffs.items() if a not in short})
            counts, middles = window_counts(window)
        counts = {k: np.nan_to_num(v).astype(np.int64) for k, v in counts.items()}
        medians = dict(zip(("p50_lat", "p50_cost", "p50_steps"), middles))
        tasks = self.rows(f"""
            SELECT agent_id, task_id, COUNT(success) AS n, COUNT(*) FILTER (WHERE success) AS c
            FROM {window} WHERE success IS NOT NULL GROUP BY agent_id, task_id""")
        # The contract's order: agent, then task_id as text (robustness sums its tasks in this order).
        tasks = [(i, n, k) for i, _, n, k in sorted((index[a], str(t), int(n), int(k)) for a, t, n, k in tasks)]
        return RadarAggregates(**counts, **medians,
                               task_agent=np.array([t[0] for t in tasks], dtype=np.int64),
                               task_n=np.array([t[1] for t in tasks], dtype=np.int64),
                               task_c=np.array([t[2] for t in tasks], dtype=np.int64))

    def _window(self, size: int, cutoffs: Mapping[str, int]) -> str:
        """The radar window (SPEC 4) as a FROM item aliased ``w``: each agent's newest ``size`` terminal runs,
        finished_at DESC NULLS LAST then run_id DESC (unique once validated), or the file order; stored where
        the dialect materializes it. ``cutoffs`` (agent -> Dialect.micros) leaves out an agent's older runs."""
        c = self.d.collate
        order = ("finished_at DESC NULLS LAST, " if self.has_finished_at else "") + \
            (f"run_id{c} DESC" if self.has_finished_at else "source_row DESC")
        terminal = f"status IN ({_quote_list(TERMINAL_STATUSES)})"
        runs = self.runs if self.has_finished_at else self.numbered  # the file order is the row numbers
        if cutoffs:
            values = ", ".join(f"({self.d.literal(a)}, CAST({int(t)} AS BIGINT))" for a, t in sorted(cutoffs.items()))
            # The earliest cutoff first, on the runs alone (and the agents with none by name): a comparison per
            # run, so that the join to each agent's cutoff sees only the runs near the window (10M runs: 7.7 ->
            # 3.5 s). It keeps every run the join keeps.
            micros = self.d.micros("r.finished_at")
            whole = sorted(set(self.agents()) - set(cutoffs))
            first = f"{micros} >= {int(min(cutoffs.values()))}" + (
                f" OR r.agent_id IN ({', '.join(self.d.literal(a) for a in whole)})" if whole else "")
            runs = (f"(SELECT r.* FROM {self._aliased('r')} LEFT JOIN (VALUES {values}) AS c(agent_id, cutoff) "
                    f"ON r.agent_id = c.agent_id WHERE ({first}) AND (c.cutoff IS NULL OR {micros} >= c.cutoff)) "
                    "AS runs")
        source, where = self._aliased("r", runs), f"r.{terminal}"
        cutoff = self.d.newest_cutoff("finished_at", size) if self.has_finished_at else None
        if cutoff is not None:
            # Only the runs at or after each agent's size-th newest finished_at can be in its window (all of
            # them when it has fewer dated runs): the window's sort then sees a few rows per agent, not all.
            source += (f" JOIN (SELECT agent_id, {cutoff} AS cutoff, COUNT(finished_at) AS dated FROM {runs} "
                       f"WHERE {terminal} GROUP BY agent_id) AS c ON r.agent_id = c.agent_id")
            where += f" AND (c.dated < {size} OR r.finished_at >= c.cutoff)"
        window = f"""(SELECT * FROM (
              SELECT r.agent_id, task_id, success, latency_ms, cost_usd, steps,
                     ROW_NUMBER() OVER (PARTITION BY r.agent_id ORDER BY {order}) AS position
              FROM {source} WHERE {where}) AS ranked
            WHERE position <= {size}) AS w"""
        newest = self.d.newest_rows(runs, terminal, "task_id, success, latency_ms, cost_usd, steps",
                                    ["finished_at", "run_id"] if self.has_finished_at else ["source_row"], size)
        if newest is not None:
            window = f"({newest}) AS w"
        if self.d.materialize:  # the window is small (at most window x agents rows): computed once
            self.execute(self.d.store(self.window_table, f"SELECT * FROM {window}"))
            window = f"{self.window_table} AS w"
        return window

    def _estimated_cutoffs(self, size: int) -> dict[str, int]:
        """Where the dialect reads times as numbers (Dialect.micros): for each agent with more than
        CUTOFF_MARGIN x ``size`` dated terminal runs, the time after which that many of them would fall were
        they spread evenly between its oldest and newest. The window then reads only the runs from that time on
        (one pass with a join to a few rows per agent, instead of a top-n of every run); radar_aggregates checks
        that each agent kept a whole window."""
        if not self.has_finished_at or self.d.micros("finished_at") is None:
            return {}
        cutoffs = {}
        for row in self._agent_rows_named():
            dated, oldest, newest = row["dated"], row["oldest"], row["newest"]
            if dated is None or int(dated) <= CUTOFF_MARGIN * size:
                continue
            oldest, newest = int(oldest), int(newest)
            cutoffs[str(row["agent_id"])] = newest - (newest - oldest) * CUTOFF_MARGIN * size // int(dated)
        return cutoffs

    def _terminal_runs(self, agents: Sequence[str]) -> np.ndarray:
        """Each agent's terminal runs (the radar window's candidates), from the pass per agent."""
        index = {a: i for i, a in enumerate(agents)}
        out = np.zeros(len(agents), dtype=np.int64)
        for row in self._agent_rows_named():
            out[index[str(row["agent_id"])]] = sum(int(row[f"runs_{i}"]) for i in range(len(TERMINAL_STATUSES)))
        return out

    def _middle_values(self, query: str, count: int) -> str:
        """``query`` (agent_id, the _WindowCounts, ``sorted_<i>``: sorted arrays) with each array replaced by
        its size and its lower and upper middle values (``size_<i>``, ``low_<i>``, ``high_<i>``; NULL if empty)."""
        def at(i: int, position: str) -> str:
            n = self.d.array_size(f"sorted_{i}")
            return f"CASE WHEN {n} > 0 THEN {self.d.element(f'sorted_{i}', position.format(n=n))} END"

        picks = ", ".join(f"{self.d.array_size(f'sorted_{i}')} AS size_{i}, "
                          f"{at(i, self.d.int_div('{n} + 1', '2'))} AS low_{i}, "
                          f"{at(i, self.d.int_div('{n}', '2') + ' + 1')} AS high_{i}" for i in range(count))
        counts = ", ".join(f.name for f in fields(_WindowCounts))
        return f"SELECT agent_id, {counts}, {picks} FROM ({query}) AS s"

    @staticmethod
    def _middles_of(result: tuple[list[str], list[tuple]], count: int, index: Mapping[str, int],
                    size: int) -> list[np.ndarray]:
        """Each column's median per agent from its two middle values (one where the count is odd), computed
        in Python like the pandas engine."""
        columns, rows = result
        at = {c: j for j, c in enumerate(columns)}
        out = [np.full(size, np.nan) for _ in range(count)]
        for row in rows:
            for i in range(count):
                low, high, n = row[at[f"low_{i}"]], row[at[f"high_{i}"]], int(row[at[f"size_{i}"]] or 0)
                if n:
                    out[i][index[row[at["agent_id"]]]] = middle_value([float(low)] if n % 2 else
                                                                      [float(low), float(high)])
        return out

    def repeatability_aggregates(self, agents: Sequence[str]) -> RepeatabilityAggregates:
        """Per (agent, task): n known terminal outcomes and c successes (SPEC 5), in Python's text order."""
        index = {a: i for i, a in enumerate(agents)}
        if self._task_rows is not None:  # counted with the spread (_spread_and_tasks)
            rows = self._task_rows
        elif self.d.materialize and not self.d.limb_sums:  # counted by the pass per agent and task (_per_agent)
            self._per_agent()
            rows = self.rows(f"SELECT agent_id, task_id, task_n, task_c FROM {self.groups_table} WHERE task_n > 0")
        elif self.d.limb_sums:  # Spark's plan where no agent has a latency mean (no spread): every task counted here
            known = f"status IN ({_quote_list(TERMINAL_STATUSES)}) AND success IS NOT NULL"
            groups = self.rows(f"""
                SELECT agent_id, task_id, COUNT(*) FILTER (WHERE {known}) AS n,
                       COUNT(*) FILTER (WHERE {known} AND success) AS c
                FROM {self.runs} GROUP BY agent_id, task_id""")
            self._refuse_count(len({t for _, t, _, _ in groups}), "tasks")  # check_work's last limit
            rows = [g for g in groups if int(g[2])]
        else:
            rows = self.rows(f"""
                SELECT agent_id, task_id, COUNT(*) AS n, COUNT(*) FILTER (WHERE success) AS c
                FROM {self.runs} WHERE status IN ({_quote_list(TERMINAL_STATUSES)}) AND success IS NOT NULL
                GROUP BY agent_id, task_id""")
        rows = sorted((index[str(a)], str(t), int(n), int(k)) for a, t, n, k in rows)
        return RepeatabilityAggregates(agent=np.array([r[0] for r in rows], dtype=np.int64),
                                       task_id=np.array([r[1] for r in rows], dtype=object),
                                       n=np.array([r[2] for r in rows], dtype=np.int64),
                                       c=np.array([r[3] for r in rows], dtype=np.int64))

    def _spellings(self) -> list[str]:
        """The warnings for agent and task ids written several ways that trimming made one id (schema.spelt_apart),
        asked only where the pass per agent found an id that trimming changed."""
        rows = self._agent_rows_named()
        warnings = []
        for p, what in (("agent", "agent"), ("task", "task")):
            if not sum(int(r[f"{p}_spelled"] or 0) for r in rows):
                continue
            c, collate = f"{p}_id", self.d.collate
            found = self.rows(f"""
                SELECT t, ways, first_way, last_way, COUNT(*) OVER () AS ids FROM (
                  SELECT {c} AS t, COUNT(DISTINCT w) AS ways, MIN(w{collate}) AS first_way, MAX(w{collate}) AS last_way
                  FROM (SELECT {c}, COALESCE({p}_spelled, {c}) AS w FROM {self._aliased("r")}
                        WHERE {c} IN (SELECT {c} FROM {self._aliased("s")} WHERE {p}_spelled IS NOT NULL)) AS sp
                  GROUP BY {c} HAVING COUNT(DISTINCT w) > 1) AS g
                ORDER BY t{collate} LIMIT {SPELLINGS_SHOWN}""")
            spelt = [Spelt(str(t), int(ways), str(first), str(last)) for t, ways, first, last, _ in found]
            warnings += spelling_warnings(spelt, int(found[0][4]) if found else 0, what)
        return warnings

    def report(self, weights: Mapping[str, float] | None = None, levels: Sequence[int] | None = None) -> Report:
        p = self.policy
        agents = self.agents()
        report = assemble_report(headline_from_aggregates(agents, self.headline_aggregates(agents), p,
                                                          self.headline_accounting(agents)),
                                 radar_from_aggregates(agents, self.radar_aggregates(agents), p),
                                 repeatability_from_aggregates(agents, self.repeatability_aggregates(agents), p,
                                                               levels), p, weights)
        return dataclasses.replace(report, warnings=tuple(self.warnings + look_alike_warnings(agents)
                                                          + self._spellings()))


@dataclass(frozen=True)
class _Counts:
    completed_runs: float
    successful_runs: float
    latency_runs: float
    cost_runs: float
    latency_max: float
    cost_max: float


@dataclass(frozen=True)
class _WindowCounts:
    n_window: float
    n_known: float
    n_success: float
    n_lat: float
    n_cost: float
    n_steps: float
    nonzero_steps: float


def _divide(num: ArrayLike, den: ArrayLike) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(len(num), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


# --------------------------------------------------------------------------- sources


def _kinds(types: Mapping[str, str]) -> dict[str, str]:
    """Source column -> "numeric", "timestamp", "boolean", "nested" (a list, a struct, a map) or "other", from SQL
    type names."""
    out = {}
    for name, kind in types.items():
        kind = kind.upper()
        if kind.endswith("]") or kind.startswith(("STRUCT", "MAP", "UNION", "ARRAY", "LIST")):
            out[name] = "nested"  # a list of ints ("INTEGER[]") is no number: refused, as the pandas engine does
        elif kind.startswith(("DOUBLE", "FLOAT", "REAL", "INT", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT",
                            "DECIMAL", "NUMERIC", "UBIGINT", "UINTEGER", "USMALLINT", "UTINYINT")):
            out[name] = "numeric"
        elif kind.startswith(("TIMESTAMP", "DATE")):
            out[name] = "timestamp"
        elif kind.startswith("BOOL"):
            out[name] = "boolean"
        else:
            out[name] = "other"
    return out


def _normalize_names(names: list[str]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for n in names:
        name = normalize_column_name(n)
        if name in mapping:
            raise RunsValidationError([Problem.of(Reason.DUPLICATE_COLUMN, None, name, first=mapping[name],
                                                  second=n, name=name)])
        mapping[name] = n
    return mapping


ROW_COLUMN = "scoring_source_row_"  # the file's row number, carried through the renaming


def _renamed_source(source: str, columns: list[str], quote: Callable[[str], str],
                    keep: str | None = None) -> tuple[str, set[str]]:
    """``source`` with its columns under their SPEC 1 names (and ``keep`` as it is)."""
    mapping = _normalize_names(columns)
    select = ", ".join([f"{quote(original)} AS {name}" for name, original in mapping.items()]
                       + ([keep] if keep else []))
    return f"(SELECT {select} FROM {source} AS raw)", set(mapping)


def _required(columns: set[str], source_name: str) -> None:
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise RunsValidationError([Problem.of(Reason.MISSING_COLUMN, None, c) for c in missing], source=source_name)


HEADER_BYTES = 1 << 20  # a CSV header must end within the file's first MiB (nine columns and a few more)
TAIL_BYTES = 1 << 16  # the last line is checked when it ends within the file's last 64 KiB


def _top_level_names(elements: Sequence[tuple[Any, Any]]) -> list[str]:
    """The top-level column names of a Parquet schema given as DuckDB's ``parquet_schema`` lists it: (name,
    children) of every element, depth first from the root; a nested column's elements are passed over (counted,
    never by recursion, so no depth of nesting is a problem). [] for a list that does not add up.

    >>> _top_level_names([("schema", 3), ("a", None), ("s", 2), ("x", None), ("y", 1), ("z", None), ("a", None)])
    ['a', 's', 'a']
    """
    names, i = [], 1
    try:
        for _ in range(int(elements[0][1] or 0)):
            name, pending = elements[i]
            names.append(str(name))
            i, pending = i + 1, int(pending or 0)
            while pending:
                pending += int(elements[i][1] or 0) - 1
                i += 1
    except (IndexError, TypeError, ValueError):
        return []
    return names


def _header_names(path: Path, con: Any, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    """The column names as the file writes them: DuckDB renames a repeated name (``latency_ms_1``), which would
    hide a column named twice that the pandas loader refuses. A Parquet file's are those the loader reads (from
    its schema, read by DuckDB: the report never loads Arrow). A file of more columns than ``limits.max_columns``
    is refused first, in the pandas engine's words (DuckDB took 63 s and 1.1 GB to sniff a CSV of 100,009)."""
    if path.suffix.lower() in (".parquet", ".pq"):
        import duckdb

        try:
            elements = con.execute("SELECT name, num_children FROM parquet_schema(?)", [str(path)]).fetchall()
        except duckdb.Error:  # unreadable: DuckDB's refusal (reading the file) says so
            return []
        leaves = sum(1 for _, children in elements[1:] if not children)  # as Parquet's footer counts its columns
        if leaves > limits.max_columns:
            raise RunsValidationError([Problem.of(Reason.FILE, detail=column_limit_refusal(
                leaves, limits.max_columns))], source=path.name)
        return [n for n in _top_level_names(elements) if normalize_column_name(n) in READ_COLUMNS]
    with open(path, "rb") as handle:
        head = handle.read(HEADER_BYTES)
    if not re.search(rb"[\r\n]", head) and path.stat().st_size > HEADER_BYTES:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=f"the header line is longer than "
                                                                  f"{HEADER_BYTES // (1 << 20)} MiB")],
                                  source=path.name)
    header = csv_header(head) or []  # a header the plain reader cannot read: DuckDB's refusal says why
    if len(header) > limits.max_columns:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=column_limit_refusal(
            len(header), limits.max_columns, "header"))], source=path.name)
    return header


def _blank_csv(path: Path) -> bool:
    """A CSV file of whitespace alone (blank lines), within HEADER_BYTES: empty, as the pandas engine reads it."""
    if path.suffix.lower() != ".csv" or path.stat().st_size > HEADER_BYTES:
        return False
    return not path.read_bytes().decode("utf-8", errors="replace").strip()


def _last_line_fields(path: Path) -> int | None:
    """The fields of a CSV file's last line, where they can be counted from the line alone (None where the line
    is longer than TAIL_BYTES, or its quotes leave open whether it ends a cell that spans lines)."""
    size = path.stat().st_size
    with open(path, "rb") as handle:
        handle.seek(max(0, size - TAIL_BYTES))
        tail = handle.read()
    lines = re.split(rb"\r\n|\r|\n", tail.rstrip(b"\r\n"))
    last = lines[-1]
    if (len(lines) == 1 and size > TAIL_BYTES) or last.count(b'"') % 2:
        return None
    try:
        return len(next(csv.reader([last.decode("utf-8", errors="replace")]), []))
    except csv.Error:
        return None


def _check_shape(path: Path, con: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """What DuckDB's reader lets through and the pandas loader refuses: a column named twice, and (CSV) a last
    line with a field more than the header (DuckDB drops an empty last field of the last line only; a ragged
    line before it is refused by both)."""
    header = _header_names(path, con, limits)
    try:
        _normalize_names(header)
    except RunsValidationError as exc:
        raise RunsValidationError(exc.problems, source=path.name) from None
    if path.suffix.lower() != ".csv":
        _refuse_durations(path, con)
    else:
        _refuse_csv_bytes(path)
    fields = _last_line_fields(path) if path.suffix.lower() == ".csv" and header else None
    if fields is not None and fields > len(header):
        raise RunsValidationError([Problem.of(Reason.FILE, detail=(
            f"the last line has {fields} fields where the header has {len(header)}: a comma too many, or a cell "
            "holding a comma without quotes around it"))], source=path.name)


def _refuse_csv_bytes(path: Path) -> None:
    """What a CSV file's bytes say before DuckDB reads it, in one pass of memchr over a memory map:
    - a NUL byte anywhere, refused as the pandas engine refuses it (DuckDB read one into an id: an agent 'a\\x001');
    - a field that starts with spaces and then a quote (``r2, "a,b",t``), which DuckDB reads as the quoted "a,b" and
      Python's csv module (the pandas engine's reader, as RFC 4180 has it) as text with a quote in it, so the line
      has a field too many and is refused. Where a file has a space or a tab before a quote at all (no pattern), the
      pandas loader decides: its refusal is the SQL engine's too."""
    import mmap

    if path.stat().st_size == 0:
        return
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        nul = nul_byte(data)
        suspect = data.find(b' "') >= 0 or data.find(b'\t"') >= 0
    if nul is not None:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=f"a NUL byte at {nul}, which no text holds (binary "
                                                                  "content?): a CSV runs file is UTF-8 text")],
                                  source=path.name)
    if suspect:
        refused = _csv_refusal_by_row(path)
        if isinstance(refused, RunsValidationError):
            raise refused


def _refuse_durations(path: Path, con: Any) -> None:
    """A read column of Arrow's duration type (pandas writes a Timedelta so) is stored as a bare INT64, which
    DuckDB reads as that integer in whatever unit it was: 2 s as 2 and 2,000,000 (microseconds) alike. Its unit is
    only in the Arrow schema the file carries, read here only when such a column could be one. Refused, as the
    pandas engine refuses each of its values ("not a number")."""
    bare = {normalize_column_name(name) for name, physical, logical in con.execute(
        "SELECT name, type, logical_type FROM parquet_schema(?)", [str(path)]).fetchall()
        if physical == "INT64" and logical is None}
    if not bare & set(READ_COLUMNS) or not con.execute(
            "SELECT count(*) FROM parquet_kv_metadata(?) WHERE key = 'ARROW:schema'", [str(path)]).fetchall()[0][0]:
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    durations = [f"{f.name} ({f.type.unit})" for f in pq.read_schema(path)
                 if normalize_column_name(f.name) in READ_COLUMNS and pa.types.is_duration(f.type)]
    if durations:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=(
            f"{', '.join(durations)}: a duration, not a number; write it as a number of milliseconds (the pandas "
            "engine reports each row)"))], source=path.name)


def _csv_refusal_by_row(path: Path) -> RunsValidationError | bool | str:
    """The pandas loader's refusal of a CSV file DuckDB could not read, in its words (the row, line and reason of a
    line with too few fields, or "line 3 (row 2) has 8 fields", where DuckDB says only "Error when sniffing file");
    where it refuses only past its own limits, which the SQL engine has not, those limits' words (a line of 50 MB:
    "a line is 50.0 MB long, more than the limit of 16.0 MB"); True where it reads the file (Latin-1 or UTF-16
    text, a CR line end), which DuckDB's reader does not."""
    from scoring.load.runs import load_runs  # a refusal's path: the loader, pandas with it

    try:
        load_runs(path)
    except RunsValidationError as exc:
        if all(p.row is None and "the limit of" in p.reason for p in exc.problems):
            return "; ".join(p.reason for p in exc.problems)
        # The SQL engine refuses rather than excludes (--exclude-invalid needs the pandas engine): not offered here
        return RunsValidationError(exc.problems, rows_read=exc.rows_read, source=exc.source, can_exclude=False,
                                   total=exc.total, invalid_rows=exc.invalid_rows).with_lines(exc.lines)
    return True


def _refuse_long_ids(con: Any, source: str, kinds: Mapping[str, str], limits: Limits, source_name: str) -> bool:
    """Refuse a Parquet file whose ids past max_id_chars would be too large to read row by row, before the runs
    are normalized: every later query would carry them (a Parquet dictionary of one 200,000-character agent id,
    1.9 MB on disk, is 200 GB of text a row at a time). First each id column's longest spelling in bytes, on the
    file's own values (DuckDB keeps dictionary-encoded text encoded: 0.02 s on that file, 0.04 s on the bench's
    1M runs). Where a column is past the limit in bytes and its rows times that length pass the memory budget,
    its first row whose trimmed id is past the limit in characters is read and the file refused, as
    SqlScorer.check_work and the pandas loader refuse it. Below the budget, the file is validated first and
    check_work measures the ids after, in the pandas engine's order (a reviewer's file of a 1,001-character id
    and an unknown status: the status, as the pandas engine says). A list or struct column is no id: validation
    refuses it as nested. Any other text column (a status, an outcome, a number or a timestamp as text) is measured
    alike, and refused where its longest value, past max_id_chars, times the rows passes the budget (a reviewer's
    dictionary of one 200,000-character status). Returns whether the ids are measured (none is past the limit)."""
    limit = limits.max_id_chars
    ids = [c for c in ID_COLUMNS if kinds.get(c) != "nested"]
    # Any other text column read: a value past max_id_chars is no status, outcome, number or timestamp either
    other = [c for c in READ_COLUMNS if c not in ID_COLUMNS and kinds.get(c) == "other"]
    texts = {c: f"CAST({c} AS VARCHAR)" for c in ids + other}
    rows_read, *widths = con.execute("SELECT COUNT(*), " + ", ".join(f"MAX(strlen({t}))" for t in texts.values())
                                     + f" FROM {source}").fetchone()
    rows_read = int(rows_read)
    # A text column that is no id is measured against the default id limit at least: a lowered --max-id-chars
    # bounds ids, never a legitimate file's timestamps (a reviewer: --max-id-chars 20 and 27-byte finished_at texts)
    past = {c: int(w) for c, w in zip(texts, widths)
            if w is not None and int(w) > (limit if c in ids else max(limit, DEFAULT_LIMITS.max_id_chars))}
    for column in other:
        if column in past and rows_read * past[column] > limits.max_memory:
            detail = (f"values of up to {past[column]:,} bytes in {rows_read:,} rows take up to "
                      f"{format_size(rows_read * past[column])} decoded, more than the memory budget of "
                      f"{format_size(limits.max_memory)}; refused before reading a row")
            raise RunsValidationError([Problem.of(Reason.FILE, None, column, detail=detail)], source=source_name,
                                      rows_read=rows_read, can_exclude=False)
    past = {c: w for c, w in past.items() if c in ids}
    if not any(rows_read * width > limits.max_memory for width in past.values()):
        return not past and len(ids) == 3
    problems = []
    for column in past:
        # The first such row: the scan stops at it (the file's order is kept, preserve_insertion_order)
        found = con.execute(f"""
            SELECT t, r FROM (SELECT {DUCKDB.trimmed(texts[column])} AS t, {ROW_COLUMN} AS r FROM {source}
                              WHERE strlen({texts[column]}) > {limit}) AS w
            WHERE length(t) > {limit} LIMIT 1""").fetchone()
        if found is not None:
            problems.append(Problem.long_id(None if found[1] is None else int(found[1]), column, str(found[0]), limit))
    if problems:
        raise RunsValidationError(problems, source=source_name, rows_read=rows_read, can_exclude=False)
    return False


def _first_line(exc: BaseException) -> str:
    """An engine error's first line (its name when it says nothing): what a refusal quotes of it."""
    said = str(exc).strip()
    return said.splitlines()[0] if said else type(exc).__name__


def _quoted_name(name: str) -> str:
    """A source column's name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _duckdb_relation(con: Any, path: Path, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, str]:
    """The file as a DuckDB relation (relational API: the path is a value, never SQL text), with row numbers."""
    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".pq", ".csv"):  # before the header is read, as a CSV's would be
        detail = f"the SQL engine reads Parquet and CSV files; use the pandas engine for {suffix or 'this file'}"
        raise RunsValidationError([Problem.of(Reason.FILE, detail=detail)], source=path.name)
    _check_shape(path, con, limits)
    if suffix in (".parquet", ".pq"):
        return con.read_parquet(str(path), file_row_number=True), "file_row_number + 1"
    # A CSV: an explicit dialect, so a ragged line is an error, never a silently re-sniffed single column.
    # (Row numbers come from the scan order, which DuckDB keeps while insertion order is preserved.)
    return con.read_csv(str(path), all_varchar=True, header=True, sep=",", quotechar='"',
                        escapechar='"'), "row_number() OVER ()"


def score_file_sql(path: str | Path, policy: Policy = CANONICAL_POLICY, weights: Mapping[str, float] | None = None,
                   *, memory_limit: str | None = None, temp_directory: str | None = None, threads: int | None = None,
                   levels: Sequence[int] | None = None, limits: Limits = DEFAULT_LIMITS) -> Report:
    """Score a Parquet or CSV file with DuckDB, out of core (``memory_limit`` caps DuckDB's memory). Of
    ``limits``, the work limits apply (agents, tasks, an id's characters: SqlScorer.check_work); the rows do not,
    as the file is read out of core, and the memory budget only to a Parquet file's text past the id limit,
    measured before a row is read (_refuse_long_ids: a dictionary bomb)."""
    import duckdb

    path = Path(path)
    if not path.exists():
        raise RunsValidationError([Problem.of(Reason.FILE, detail=f"cannot read {path}: no such file")],
                                  source=path.name)
    special = special_file(path)
    if special:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=special_file_reason(path, special))],
                                  source=path.name)
    if path.is_file() and (path.stat().st_size == 0 or _blank_csv(path)):  # as the pandas engine says it (DuckDB's
        # CSV sniffer would name seven missing columns)
        raise RunsValidationError([Problem.of(Reason.FILE, detail="the file is empty")], source=path.name)
    config: dict[str, Any] = {k: v for k, v in (("memory_limit", memory_limit), ("temp_directory", temp_directory),
                                                ("threads", threads)) if v}
    try:
        con = duckdb.connect(config=config)
    except duckdb.Error as exc:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=f"DuckDB refused the settings: {exc}")],
                                  source=path.name) from None
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute("SET TimeZone = 'UTC'")  # a timestamp without a zone is UTC, as in the pandas engine
        try:
            relation, row_number = _duckdb_relation(con, path, limits)
            relation.create_view("source_file")
            described = con.execute("DESCRIBE source_file").fetchall()
        except duckdb.Error as exc:
            by_row = _csv_refusal_by_row(path) if path.suffix.lower() == ".csv" else False
            if isinstance(by_row, RunsValidationError):  # what DuckDB's sniffer cannot say: the row, line and reason
                raise by_row from None
            first = _first_line(exc)
            then = (f"the pandas engine refuses it too: {by_row}" if isinstance(by_row, str)
                    else "the pandas engine (the default) reads this file: score it without --engine sql" if by_row
                    else "the pandas engine reports the row")
            raise RunsValidationError([Problem.of(Reason.FILE, detail=f"not readable as CSV or Parquet by DuckDB "
                                                                      f"({first}); {then}")],
                                      source=path.name) from None
        columns = [name for name, *_ in described if name != "file_row_number"]
        kinds = _kinds({name: str(kind) for name, kind, *_ in described})
        # Bytes (a Parquet BINARY column) read as the UTF-8 text they hold, as the pandas engine reads them (DuckDB's
        # own cast writes each byte past ASCII as an escape: "caf\xC3\xA9"); bytes that are not UTF-8 stop the
        # scan, refused in words below.
        blobs = [_quoted_name(name) for name, kind, *_ in described
                 if str(kind).upper() == "BLOB" and name in columns]
        # A nanosecond finished_at keeps its first six digits of the second, later ones dropped (floor), as the
        # grammar reads the same instant written as text and the pandas engine reads it (DuckDB's cast rounds:
        # ...00.123456789 would be ...00.123457; pandas writes Parquet in nanoseconds).
        nanos = [_quoted_name(name) for name, kind, *_ in described
                 if str(kind).upper() in ("TIMESTAMP_NS", "TIMESTAMPTZ_NS") and name in columns
                 and normalize_column_name(name) == "finished_at"]
        swaps = [f"decode({c}) AS {c}" for c in blobs] + [
            f"make_timestamp((epoch_ns({c}) - (epoch_ns({c}) % 1000 + 1000) % 1000) // 1000) AS {c}" for c in nanos]
        replaced = f" REPLACE ({', '.join(swaps)})" if swaps else ""
        numbered = f"(SELECT *{replaced}, {row_number} AS {ROW_COLUMN} FROM source_file)"
        try:
            source, names = _renamed_source(numbered, columns, _quoted_name,
                                            keep=ROW_COLUMN)
        except RunsValidationError as exc:
            raise RunsValidationError(exc.problems, source=path.name) from None
        _required(names, path.name)
        renamed_kinds = {n: kinds.get(o, "other") for n, o in _normalize_names(columns).items()}
        # Normalize once: every later query reads this table (it spills to disk under the memory limit).
        normalized = normalized_sql(source, DUCKDB, has_steps="steps" in names,
                                    has_finished_at="finished_at" in names, row_number=ROW_COLUMN,
                                    kinds=renamed_kinds)
        try:
            # A CSV's ids are text in the file, within its size: measured on the runs (check_work)
            measured = path.suffix.lower() != ".csv" and _refuse_long_ids(con, source, renamed_kinds, limits,
                                                                          path.name)
            con.execute(f"CREATE TEMP TABLE runs_normalized AS {normalized}")
        except (duckdb.InvalidInputException, duckdb.ConversionException) as exc:
            # A value DuckDB's reader cannot take (text that is not UTF-8, a timestamp past its range): the file's
            # own, refused in words; the pandas engine reads such a cell and refuses it at its row.
            said = _first_line(exc).split("Error: ", 1)[-1]
            raise RunsValidationError([Problem.of(Reason.FILE, detail=f"a value DuckDB cannot read: {said}; the "
                                                                      "pandas engine reports its row")],
                                      source=path.name) from None
        con.execute("SET preserve_insertion_order = false")  # the rest is grouped and ordered explicitly

        def execute(query: str) -> tuple[list[str], list[tuple]]:
            cursor = con.execute(query)
            return [d[0] for d in cursor.description], cursor.fetchall()

        scorer = SqlScorer(execute, DUCKDB, "runs_normalized AS runs", has_finished_at="finished_at" in names,
                           has_row_numbers=True, policy=policy, kinds=renamed_kinds, limits=limits,
                           ids_measured=measured)
        try:
            scorer.validate(path.name)
        except RunsValidationError as exc:
            if path.suffix.lower() != ".csv":
                raise
            # A person counts the file's lines: each problem row's line beside it, as the pandas engine says it.
            from scoring.load.runs import csv_file_record_lines  # a refusal's path: the loader, pandas with it

            raise exc.with_lines(csv_file_record_lines(path, exc.problem_rows)) from None
        return scorer.report(weights, levels)
    finally:
        con.close()


def score_postgres(source: str | ConnectionSpec, table: str, policy: Policy = CANONICAL_POLICY,
                   weights: Mapping[str, float] | None = None, levels: Sequence[int] | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> Report:
    """Score a runs table in PostgreSQL, read-only. ``table`` may be schema-qualified. Of ``limits``, the work
    limits apply (SqlScorer.check_work), as in score_file_sql.

    ``source`` is an operator's connection (a libpq URL or conninfo given to the CLI, or a
    :class:`~scoring.load.database.ConnectionSpec`); it connects with the same timeouts as every source.
    """
    import psycopg
    from psycopg import sql

    table = _table_or_refuse(table)
    try:
        conn = connect(source) if isinstance(source, ConnectionSpec) else psycopg.connect(
            source, autocommit=False, connect_timeout=CONNECT_TIMEOUT_S)
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
                raise RunsValidationError([Problem.of(Reason.FILE, detail=f"cannot read table {table}: "
                                                      f"{redact(str(exc)).strip()}")], source=table) from None
            description = cur.description or []
            columns = [d.name for d in description]
            types = {}
            for d in description:
                info = conn.adapters.types.get(d.type_code)
                types[d.name] = info.name if info else "other"
            # A real (float4) is read as its text, as psycopg (the explorer) and a CSV export read it: widened
            # to double it would be another number (0.1 -> 0.10000000149011612).
            kinds = _kinds({c: {"float8": "DOUBLE", "float4": "TEXT", "int4": "INTEGER", "int8": "BIGINT",
                                "int2": "SMALLINT", "numeric": "NUMERIC", "timestamptz": "TIMESTAMPTZ",
                                "timestamp": "TIMESTAMP", "date": "DATE"}.get(t, t) for c, t in types.items()})
            source_sql, names = _renamed_source(qualified, columns, lambda c: sql.Identifier(c).as_string(conn))
            _required(names, table)
            if "finished_at" not in names:
                raise RunsValidationError([Problem.of(Reason.FILE, None, "finished_at", detail="a database table has "
                                                      "no file order: the radar window needs a finished_at column")],
                                          source=table)

            def execute(query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
                cur.execute(query)
                return [d.name for d in cur.description or []], cur.fetchall()

            renamed_kinds = {n: kinds.get(o, "other") for n, o in _normalize_names(columns).items()}
            # A read-only transaction cannot create a temporary table: each query reads the normalizing subquery.
            runs = "(" + normalized_sql(source_sql, POSTGRES, has_steps="steps" in names, has_finished_at=True,
                                        row_number="CAST(NULL AS BIGINT)", kinds=renamed_kinds) + ") AS runs"
            scorer = SqlScorer(execute, POSTGRES, runs, has_finished_at=True, has_row_numbers=False, policy=policy,
                               kinds=renamed_kinds, limits=limits)
            try:
                scorer.validate(table)
                return scorer.report(weights, levels)
            except psycopg.errors.DataError as exc:  # a value the guarded casts let through (e.g. 1e999)
                first = _first_line(exc)
                raise RunsValidationError([Problem.of(Reason.FILE, detail=f"PostgreSQL could not read a value: "
                                                                          f"{first}")],
                                          source=table, can_exclude=False) from None
            except psycopg.Error as exc:  # the table is a view that fails as it is read (a write it tries: refused)
                first = redact(_first_line(exc))
                raise RunsValidationError([Problem.of(Reason.FILE, detail=f"PostgreSQL could not read the table: "
                                                                          f"{first}")],
                                          source=table, can_exclude=False) from None
    finally:
        conn.rollback()
        conn.close()


def _table_or_refuse(table: str) -> str:
    try:
        return check_table_name(table)
    except SourceRefused as exc:
        raise RunsValidationError([Problem.of(Reason.FILE, detail=str(exc))], source="table") from None


def load_postgres_runs(spec: ConnectionSpec, table: str, *, limits: Limits = DEFAULT_LIMITS,
                       **options: Any) -> LoadedRuns:
    """Read a PostgreSQL runs table (read-only) through the one validator, as the explorer app does.

    The app needs row-level data for its views (windows, bootstraps, receipts); the canonical
    numbers are the same as ``score_postgres`` computes in the database. Rows are fetched in
    batches through a server-side cursor and the read stops as soon as the table passes the row
    limit or the memory budget. A connection failure raises :class:`~scoring.load.database.ConnectFailed`
    with one generic message.
    """
    import pandas as pd
    import psycopg
    from psycopg import sql

    from scoring.load.runs import validate_runs  # the one validator, pandas with it

    table = _table_or_refuse(table)
    conn = connect(spec)
    try:
        with conn.cursor(name="scoring_explorer_runs") as cur:
            conn.execute("SET TRANSACTION READ ONLY")
            qualified = sql.SQL(".").join(sql.Identifier(p) for p in table.split("."))
            try:
                cur.execute(sql.SQL("SELECT * FROM {}").format(qualified))
                chunks = list(fetch_rows(cur, max_rows=limits.max_rows, max_bytes=limits.max_memory,
                                         max_seconds=READ_SECONDS_PER_CPU_SECOND * limits.max_cpu_seconds))
            except SourceTooLarge as exc:
                raise RunsValidationError([Problem.of(Reason.FILE, detail=f"{exc}; refused")], source=table) from None
            except psycopg.Error as exc:
                log.warning("reading table %s failed: %s", table, redact(str(exc)))
                raise RunsValidationError([Problem.of(Reason.FILE, detail=f"cannot read table {table} (it does not "
                                                      "exist, or this connection may not read it)")],
                                          source=table) from None
            columns = [d.name for d in cur.description]
    finally:
        conn.rollback()
        conn.close()
    frame = pd.DataFrame([r for chunk in chunks for r in chunk], columns=columns, dtype=object)
    frame.columns = list(_normalize_names(columns))
    if "finished_at" not in frame.columns:
        raise RunsValidationError([Problem.of(Reason.FILE, None, "finished_at", detail="a database table has no file "
                                              "order: the radar window needs a finished_at column")], source=table)
    if len(frame) == 0:
        raise RunsValidationError([Problem.of(Reason.FILE, detail="the table has no runs")], source=table)
    return validate_runs(frame, source=table, format="postgresql", **options)


def _nearest_float(exact: Fraction) -> float:
    """The double nearest an exact sum; past the largest double, an infinity of its sign (as numpy sums give).

    >>> _nearest_float(Fraction(1, 4)), _nearest_float(Fraction(2) ** 1100), _nearest_float(-Fraction(2) ** 1100)
    (0.25, inf, -inf)
    """
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
