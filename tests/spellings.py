"""The loader's spelling lists: every way the rules allow a valid cell to be written, and cells that are not
valid, with ``files`` writing one table as CSV, JSON and Parquet text. The Arrow path, the SQL engines and Spark
are all checked against these lists (tests/test_arrow_path.py, tests/test_spark_engine.py)."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

from scoring.contract.schema import SPEC_COLUMNS

# Cells that are valid but spelled in every way the rules allow, and cells that are not valid.
NUMBERS = ["1", " 2 ", "1e3", ".5", "5.", "0", "-0", "0.1000000000000000055511151231257827", "1e-320",
           "3.14159265358979323846", "\u00a05", "+7", "1.7976931348623157e308", "0.30000000000000004", "",
           "9007199254740993", "1E+05", "00012", "\u20035\u3000"]
BAD_NUMBERS = ["nan", "inf", "-1", "abc", "1_000", "0x10", "1e309", "-inf", "Infinity", "١٢"]
STEPS = ["1", "2.0", "", "0", "-0", "1e1", " 3 ", "40"]
BAD_STEPS = ["2.5", "-3", "x"]
TIMES = ["2026-07-01T00:00:00Z", "2026-07-01T00:00:00", "2026-07-01 00:00:00+02:00", "2026-07-01T00:00:00.1Z",
         "2026-07-01", "", " 2026-07-01T00:00:00Z ", "2026-07-01T00:00:00.123456789Z", "2026-07-01T00:00:00-05:30",
         "2026-07-01T00:00:00.5", "2026-07-01T00:00:00+00:00", "2026-07-01T00:00:00.000001Z"]
BAD_TIMES = ["yesterday", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-07-01T24:00:00Z"]
IDS = ["a", " a", "a\u3000", "\x1fa", "é", "b", "a\u00a0", "𝒳", "a,b", 'q"q', "A", "a\x85", "1"]
STATUSES = ["completed", " Completed ", "FAILED", "timeout", "queued", "running", "cancelled"]
SUCCESS = ["true", "False", " 1.0", "0", "yes", "NO", "pass", "Fail", "", "1", "0.0"]
HEADER = list(SPEC_COLUMNS)
# SPEC 1's words with a character past ASCII, which some engine's lower() once read as the word ("FAİLED" as
# failed in pandas and DuckDB, refused by Spark): every engine refuses each, with this code (schema.py, beside
# TRUE_TOKENS). (column index in HEADER, cell, code)
NON_ASCII_WORDS = [(3, "runnİng", "unknown_status"), (3, "FAİLED", "unknown_status"), (3, "Tİmeout", "unknown_status"),
                   (4, "faİl", "not_an_outcome"), (4, "PAſS", "not_an_outcome"), (5, "İnf", "not_a_number"),
                   (6, "-İNFİNİTY", "not_a_number")]


def non_ascii_word_rows() -> tuple[list[list[str]], list[tuple[int, str, str, str]]]:
    """Rows of valid runs (their words in other ASCII cases) with a NON_ASCII_WORDS cell in every other row, and the
    problems every engine must give: (row, column, cell, code)."""
    good = ["r0", "a", "t", "COMPLETED", "Yes", "12.5", "0.01", "3", "2026-07-01T00:00:00Z"]
    rows = [[f"r{i}"] + good[1:] for i in range(2 * len(NON_ASCII_WORDS))]
    rows[2][3], rows[4][4] = "Failed", "FAIL"
    expected = []
    for i, (column, cell, code) in enumerate(NON_ASCII_WORDS):
        rows[2 * i + 1][column] = cell
        expected.append((2 * i + 2, HEADER[column], cell, code))
    return rows, expected


def cell_of(value: str) -> str:
    """A CSV cell, quoted when it holds a comma, a quote or a line break."""
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n\r') else value


def files(rows: list[list[str]]) -> dict[str, bytes]:
    """The same table as CSV, as JSON (every cell as text) and as Parquet (every column as text)."""
    text = ",".join(HEADER) + "\n" + "\n".join(",".join(cell_of(v) for v in r) for r in rows) + "\n"
    records = [dict(zip(HEADER, r)) for r in rows]
    sink = io.BytesIO()
    pq.write_table(pa.table({c: pa.array([r[i] for r in rows], pa.string()) for i, c in enumerate(HEADER)}), sink)
    return {"x.csv": text.encode(), "x.json": json.dumps(records).encode(), "x.parquet": sink.getvalue()}


# Timestamp spellings every engine must read alike (docs/schema.md, "Timestamps").
# 164 spellings (dates x times x zones, and four odd ones) the engines once read differently, then edges.
TIMESTAMP_SPELLINGS = [
    d + t + z
    for d in ("2026-07-01", "2026-02-30")
    for t in ("", "T10", " 10", "T10:30", "T10:30:45", "T10:30:45.5", "T10:30:45.123456", "T10:30:45.1234567")
    for z in ("", "Z", "z", "+05", "+0530", "+05:30", "-08", " Z", " +05:30", " -0800")
] + ["2026-07-01T24:00:00", "yesterday", "2026-07-01 12:00:00 PST", "1969-12-31T23:59:59.9999999Z"] + [
    "2026-01-01T05", "2026-01-01T05Z", "2026-01-01T05:30:00 +0530", "20260101T053000Z", "2026-07-01t10:30:45z",
    "2024-02-29", "2100-02-29", "2000-02-29T00:00:00Z", "2026-04-31", "2026-07-01T23:59:60Z", "2026-07-01T10:60",
    "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:01", "0001-01-01T00:00:00-00:01",
    "9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.9999999-00:00", "9999-12-31T23:59:59+00:01",
    "9999-12-31T23:59:59-00:01", "2026-07-01T10:30:45-00:30", "2026-07-01T10:30:45+14:59", "2026-07-01T10:30:45+15",
    "2026-07-01T10:30:45.123456789Z", "2026-07-01T10:30:45.1234567891Z", "2026-07-01T10:30:45,5Z",
    "2026-07-01T10:30:45.Z", "2026-7-01", "2026-07-1", "+2026-07-01", "12026-07-01", "2026-07-01T", "2026-07-01Z",
    "\u30002026-07-01T10:30\u3000", "2026-07-01 T10:30", "2026-07-01T10:30:45+05:3", "2026-07-01T10:30:45+5",
    "2026-07-01T10:30:45 UTC", "2026-07-01T10:30:45+05:30:00", "١٩٧٠-01-01", "2026-07-01T10:30:45.٥Z",
]

_WHITESPACE = ["", "", " ", "\t", "\u3000", "\x85"]


@st.composite
def timestamp_spellings(draw: st.DrawFn) -> str:
    """A spelling near the grammar: each part valid most of the time, sometimes just outside it."""
    year = draw(st.sampled_from(["2026", "1970", "1969", "2024", "2000", "2100", "0001", "9999", "0000", "202",
                                 "12026"]))
    month = draw(st.sampled_from(["01", "02", "04", "07", "12", "00", "13", "7"]))
    day = draw(st.sampled_from(["01", "28", "29", "30", "31", "00", "32", "1"]))
    dash = draw(st.sampled_from(["-", "-", "-", ""]))
    text = year + dash + month + dash + day
    if draw(st.booleans()):
        text += draw(st.sampled_from(["T", "T", " ", "t", "", "  ", "_"]))
        text += draw(st.sampled_from(["00", "05", "10", "23", "24", "5"]))
        if draw(st.integers(0, 5)):
            text += draw(st.sampled_from([":", ":", ":", ""])) + draw(st.sampled_from(["00", "30", "59", "60", "3"]))
            if draw(st.integers(0, 3)):
                text += ":" + draw(st.sampled_from(["00", "45", "59", "60"]))
                if draw(st.booleans()):
                    text += draw(st.sampled_from([".", ".", ","])) + draw(st.text("0123456789", max_size=11))
        text += draw(st.sampled_from(["", "Z", "z", "+00:00", "-00:30", "+05", "-08", "+0530", "-08:30", "+14:59",
                                      "+15:00", " Z", " +05:30", "+05:3", "UTC", "+5"]))
    return draw(st.sampled_from(_WHITESPACE)) + text + draw(st.sampled_from(_WHITESPACE))


def timestamp_runs_csv(spellings: list[str]) -> str:
    """A runs CSV with one valid run per spelling, the spelling its finished_at (row i + 1 holds spellings[i])."""
    def cell(value: str) -> str:
        return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n\r') else value

    rows = [f"r{i},a,t,completed,true,1000,0.01,3,{cell(s)}" for i, s in enumerate(spellings)]
    return ",".join(SPEC_COLUMNS) + "\n" + "\n".join(rows) + "\n"


# Ids written several ways that differ only in surrounding whitespace: trimmed, each is one id, and every engine
# says so in the same words (schema.spelling_warnings). Seven agents are spelt several ways, two more than a warning
# names; 'solo ' is written one way only, and 't9 ' too.
_SPELT_AGENTS = (["gpt-4", "gpt-4 ", "\tgpt-4", "claude", "claude\u3000"]
                 + [w for k in range(5) for w in (f"x{k}", f" x{k}")] + ["solo "])
SPELT_APART_CSV = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at\n" + "".join(
    f'r{i},"{agent}",{("t1", "t1 ", "t9 ")[i % 3]},completed,{str(i % 2 == 0).lower()},{100 + i},0.01,3,'
    f"2026-07-01T00:00:{i:02d}Z\n" for i, agent in enumerate(_SPELT_AGENTS))
SPELT_APART_AGENTS = ("claude", "gpt-4", "solo", "x0", "x1", "x2", "x3", "x4")
SPELT_APART_WARNINGS = [
    "7 agent ids are each written several ways that differ only in surrounding whitespace, and each is scored as "
    "one agent (surrounding whitespace is trimmed): 'claude' ('claude', 'claude\\u3000'), 'gpt-4' (3 ways, from "
    "'\\tgpt-4' to 'gpt-4 '), 'x0' (' x0', 'x0'), 'x1' (' x1', 'x1'), 'x2' (' x2', 'x2') and 2 more",
    "task id 't1' is written 2 ways that differ only in surrounding whitespace ('t1', 't1 '), and they are scored "
    "as one task (surrounding whitespace is trimmed)",
]
