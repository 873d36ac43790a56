"""SPEC 1: every input format, every validation reason, nothing dropped silently."""

import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scoring import RunsValidationError, load_runs, runs_from_records

HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at\n"
GOOD = [
    "r1,a,t1,completed,true,1000,0.01,3,2026-07-01T00:00:00Z",
    "r2,a,t1,failed,false,,0.02,,2026-07-01T00:01:00Z",
    "r3,b,t2,completed,,2500.5,,4,",
]


def csv_bytes(*rows: str, header: str = HEADER) -> bytes:
    return (header + "\n".join(rows) + "\n").encode()


def refused(data: bytes, name: str = "runs.csv") -> RunsValidationError:
    with pytest.raises(RunsValidationError) as info:
        load_runs(data, name=name)
    return info.value


def only_problem(error: RunsValidationError):
    assert len(error.problems) == 1, error.report()
    return error.problems[0]


def test_good_csv_loads_every_row_with_canonical_types():
    loaded = load_runs(csv_bytes(*GOOD), name="runs.csv")
    runs = loaded.runs
    assert loaded.rows_read == 3 and len(runs) == 3 and loaded.excluded_rows == 0
    assert str(runs["success"].dtype) == "boolean"
    assert runs.set_index("run_id").loc["r3", "success"] is pd.NA
    assert runs.set_index("run_id").loc["r3", "latency_ms"] == 2500.5
    assert pd.isna(runs.set_index("run_id").loc["r2", "steps"])


@pytest.mark.parametrize(
    "row, column, value, reason",
    [
        ("r9,a,t1,done,true,1,0.1,1,", "status", "done", "unknown status"),
        ("r9,a,t1,completed,maybe,1,0.1,1,", "success", "maybe", "not a recognised outcome"),
        ("r9,a,t1,completed,true,-5,0.1,1,", "latency_ms", "-5", "negative"),
        ("r9,a,t1,completed,true,1,-0.1,1,", "cost_usd", "-0.1", "negative"),
        ("r9,a,t1,completed,true,inf,0.1,1,", "latency_ms", "inf", "not a finite number"),
        ("r9,a,t1,completed,true,1,NaN,1,", "cost_usd", "NaN", "not a finite number"),
        ("r9,a,t1,completed,true,abc,0.1,1,", "latency_ms", "abc", "not a number"),
        ("r9,a,t1,completed,true,1,0.1,2.5,", "steps", "2.5", "not a whole number"),
        ("r9,a,t1,completed,true,1,0.1,-1,", "steps", "-1", "negative"),
        ("r9,a,t1,completed,true,1,0.1,1,yesterday", "finished_at", "yesterday", "not an ISO-8601 timestamp"),
        (",a,t1,completed,true,1,0.1,1,", "run_id", None, "missing value"),
        ("r9,,t1,completed,true,1,0.1,1,", "agent_id", None, "missing value"),
        ("r9,a,,completed,true,1,0.1,1,", "task_id", None, "missing value"),
        ("r9,a,t1,,true,1,0.1,1,", "status", None, "missing value"),
        ("r1,a,t1,completed,true,1,0.1,1,", "run_id", "r1", "duplicate run_id; first seen at row 1"),
    ],
)
def test_each_validation_reason_names_row_column_and_value(row, column, value, reason):
    error = refused(csv_bytes(GOOD[0], row))
    problem = only_problem(error)
    assert (problem.row, problem.column) == (2, column)
    assert problem.value == value
    assert reason in problem.reason
    assert f"row 2 (line 3), column '{column}'" in error.report()  # the row and the file's line (header: line 1)


def test_missing_required_column_is_a_file_level_problem():
    header = HEADER.replace("cost_usd,", "")
    error = refused(csv_bytes("r1,a,t1,completed,true,1000,3,", header=header))
    problem = only_problem(error)
    assert (problem.row, problem.column) == (None, "cost_usd")
    assert "required column is missing" in problem.reason
    assert not error.excludable


def test_every_problem_of_a_file_is_reported_not_only_the_first():
    error = refused(csv_bytes("r1,a,t1,done,maybe,-1,x,2.5,never"))
    assert {p.column for p in error.problems} == {"status", "success", "latency_ms", "cost_usd", "steps", "finished_at"}
    assert error.invalid_rows == 1


def test_exclude_invalid_drops_exactly_the_invalid_rows_and_counts_them():
    data = csv_bytes(GOOD[0], "r8,a,t1,done,true,1,0.1,1,", GOOD[1], "r9,a,t1,completed,true,-1,0.1,1,")
    loaded = load_runs(data, name="runs.csv", exclude_invalid=True)
    assert loaded.excluded_rows == 2 and loaded.rows_read == 4
    assert sorted(loaded.runs["run_id"]) == ["r1", "r2"]
    assert {p.row for p in loaded.excluded_problems} == {2, 4}


def test_exclude_invalid_cannot_rescue_a_file_level_problem():
    header = HEADER.replace("status,", "")
    with pytest.raises(RunsValidationError):
        load_runs(csv_bytes("r1,a,t1,true,1000,0.01,3,", header=header), name="x.csv", exclude_invalid=True)


@pytest.mark.parametrize("token, expected", [
    ("true", True), ("TRUE", True), (" yes ", True), ("1", True), ("pass", True),
    ("false", False), ("No", False), ("0", False), ("FAIL", False), ("", None),
])
def test_success_accepts_every_spec_spelling(token, expected):
    runs = load_runs(csv_bytes(f"r1,a,t1,completed,{token},1,0.1,1,"), name="r.csv").runs
    value = runs.loc[0, "success"]
    assert (value is pd.NA) if expected is None else (bool(value) is expected)


def test_status_is_case_insensitive_and_trimmed():
    runs = load_runs(csv_bytes("r1,a,t1, Completed ,true,1,0.1,1,"), name="r.csv").runs
    assert runs.loc[0, "status"] == "completed"


def test_steps_written_as_float_whole_number_reads_as_integer():
    runs = load_runs(csv_bytes("r1,a,t1,completed,true,1,0.1,3.0,"), name="r.csv").runs
    assert runs.loc[0, "steps"] == 3


def test_missing_optional_columns_mean_empty_steps_and_a_file_order_warning():
    header = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n"
    loaded = load_runs(csv_bytes("r1,a,t1,completed,true,1,0.1", header=header), name="r.csv")
    assert loaded.runs["steps"].isna().all()
    assert any("file order" in w for w in loaded.warnings)
    assert not loaded.has_finished_at


def test_header_spelling_is_forgiving():
    header = "Run ID,AGENT_ID, task-id ,Status,Success,Latency_ms,cost_usd\n"
    runs = load_runs(csv_bytes("r1,a,t1,completed,true,1,0.1", header=header), name="r.csv").runs
    assert runs.loc[0, "task_id"] == "t1"


def test_duplicate_headers_are_refused_by_name():
    header = "run_id,agent_id,task_id,status,Status,success,latency_ms,cost_usd\n"
    problem = only_problem(refused(csv_bytes("r1,a,t1,completed,completed,true,1,0.1", header=header)))
    assert problem.column == "status" and "duplicate column" in problem.reason


def _records():
    return [
        {"run_id": "r1", "agent_id": "a", "task_id": "t1", "status": "completed", "success": True,
         "latency_ms": 1000, "cost_usd": 0.01, "steps": 3, "finished_at": "2026-07-01T00:00:00Z"},
        {"run_id": "r2", "agent_id": "a", "task_id": "t1", "status": "failed", "success": False,
         "latency_ms": None, "cost_usd": 0.02, "steps": None, "finished_at": "2026-07-01T00:01:00Z"},
        {"run_id": "r3", "agent_id": "b", "task_id": "t2", "status": "completed", "success": None,
         "latency_ms": 2500.5, "cost_usd": None, "steps": 4, "finished_at": None},
    ]


def _parquet_bytes(records) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(records), sink)
    return sink.getvalue()


@pytest.mark.parametrize("name, encode", [
    ("runs.json", lambda r: json.dumps(r).encode()),
    ("runs.json", lambda r: json.dumps({"runs": r}).encode()),
    ("runs.jsonl", lambda r: "\n".join(json.dumps(x) for x in r).encode()),
    ("runs.parquet", _parquet_bytes),
])
def test_every_format_gives_the_same_frame_as_csv(name, encode):
    expected = load_runs(csv_bytes(*GOOD), name="runs.csv").runs.drop(columns="source_row")
    got = load_runs(encode(_records()), name=name).runs.drop(columns="source_row")
    pd.testing.assert_frame_equal(got, expected)


def test_json_item_that_is_not_an_object_is_reported_by_row():
    problem = only_problem(refused(json.dumps([_records()[0], [1, 2]]).encode(), name="r.json"))
    assert problem.row == 2 and "JSON object" in problem.reason


def test_jsonl_bad_line_is_reported_by_line_number():
    lines = [json.dumps(_records()[0]), "{not json", json.dumps(_records()[1])]
    problem = only_problem(refused("\n".join(lines).encode(), name="r.jsonl"))
    assert problem.row == 2 and "not valid JSON" in problem.reason


def test_nested_value_is_refused():
    record = dict(_records()[0], latency_ms={"p50": 3})
    problem = only_problem(refused(json.dumps([record]).encode(), name="r.json"))
    assert (problem.row, problem.column) == (1, "latency_ms") and "nested" in problem.reason


def test_unknown_extension_and_unreadable_files_are_refused_with_a_reason():
    assert "unsupported file type" in only_problem(refused(b"x", name="runs.xlsx")).reason
    assert "not valid JSON" in only_problem(refused(b"[1,", name="r.json")).reason
    assert "not readable as Parquet" in only_problem(refused(b"PAR1garbage", name="r.parquet")).reason
    assert "empty" in only_problem(refused(b"", name="r.csv")).reason


def test_runs_from_records_refuses_invalid_records():
    with pytest.raises(RunsValidationError, match="unknown status"):
        runs_from_records([dict(_records()[0], status="done")])


def test_max_rows_refuses_before_scoring():
    problem = only_problem(pytest.raises(RunsValidationError, load_runs, csv_bytes(*GOOD), name="r.csv",
                                         max_rows=2).value)
    assert "is more than the limit of 2 (max_rows); refused before reading" in problem.reason


def test_canonical_order_is_independent_of_file_order():
    forward = load_runs(csv_bytes(*GOOD), name="r.csv").runs.drop(columns="source_row")
    backward = load_runs(csv_bytes(*reversed(GOOD)), name="r.csv").runs.drop(columns="source_row")
    pd.testing.assert_frame_equal(forward, backward)


def test_every_reason_code_is_documented_in_the_schema_page():
    """docs/schema.md lists every code of the Reason enum (and no code that does not exist)."""
    import re
    from pathlib import Path

    from scoring.contract.schema import Reason

    page = (Path(__file__).resolve().parents[1] / "docs" / "schema.md").read_text()
    table = page[page.index("| code | reason | example |"):page.index("Rows are numbered from 1")]
    documented = set(re.findall(r"`([a-z_]+)`", "\n".join(line.split("|")[1] for line in table.splitlines()[2:]
                                                       if line.startswith("|"))))
    assert documented == {reason.code for reason in Reason}


def test_a_fact_names_one_thing_or_many_by_its_count():
    from scoring.measures.facts import Fact

    template = "{n:count|task|tasks} with {k:count} outcomes"
    assert [str(Fact(template, {"n": n, "k": 3})) for n in (0, 1, 2, 1200)] == [
        "0 tasks with 3 outcomes", "1 task with 3 outcomes", "2 tasks with 3 outcomes", "1,200 tasks with 3 outcomes"]
    assert Fact(template, {"n": 1, "k": 1}).render(escape=str.upper) == "1 TASK with 1 outcomes"


# Lines as a person counts them (the header is line 1). Only a line of nothing but spaces and tabs is blank (the
# readers skip it); a line `""` or `" "` is a row of one cell (a short line); a quoted cell may span lines.
ODD_LINES = [
    HEADER.rstrip("\n"),                     # line 1
    "r1,a,t1,completed,true,1,0.1,1,",       # line 2: row 1
    "",                                      # line 3: blank
    '""',                                    # line 4: row 2, short
    "r2,a,t1,completed,maybe,1,0.1,1,",      # line 5: row 3, success refused
    "   ",                                   # line 6: blank
    '" "',                                   # line 7: row 4, short
    '"r3',                                   # line 8: row 5 starts here ...
    'x",a,t1,completed,maybe,1,0.1,1,',      # line 9: ... and ends here
    "\t",                                    # line 10: blank
    '"",a,t1,completed,true,1,0.1,1,',       # line 11: row 6, run_id missing
    "r4,a,t1,completed,maybe,1,0.1,1,",      # line 12: row 7, success refused
]
ODD_ROW_LINES = {2: 4, 3: 5, 4: 7, 5: 8, 6: 11, 7: 12}


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])  # UTF-16 is read by the text reader, not Arrow
def test_every_problem_names_the_line_its_row_is_on(newline, encoding):
    data = newline.join(ODD_LINES + [""]).encode(encoding)
    error = refused(data)
    assert {p.row: error.lines.get(p.row) for p in error.problems} == ODD_ROW_LINES
    assert {(p.row, p.code) for p in error.problems} == {
        (2, "short_line"), (3, "not_an_outcome"), (4, "short_line"), (5, "not_an_outcome"),
        (6, "missing_value"), (7, "not_an_outcome")}
    assert "row 2 (line 4): the line has 1 field(s)" in error.report()


def test_a_line_of_too_many_fields_is_named_by_its_line_after_a_quoted_empty_line():
    error = refused(("\n".join(ODD_LINES[:5] + ["r9,a,t1,completed,true,1,0.1,1,,extra"]) + "\n").encode())
    assert "line 6 (row 4) has 10 fields where the header has 9" in only_problem(error).reason


def test_the_checked_table_is_not_held_while_the_canonical_frame_is_built():
    """load_runs frees the file's Arrow table before it builds the canonical frame (at 10,000,000 runs the two
    would peak together): the function that builds the frame keeps no reference to the table."""
    import gc
    import weakref

    import pyarrow as pa

    from scoring.load.runs import checked_table

    table = pa.table({"run_id": ["r1", "r2"], "agent_id": ["a", "a"], "task_id": ["t1", "t2"],
                      "status": ["completed", "failed"], "success": ["true", ""], "latency_ms": ["10", ""],
                      "cost_usd": ["0.5", "0.25"], "finished_at": ["2026-07-01T00:00:00Z", "2026-07-01T00:00:01Z"]})
    gone = weakref.ref(table)
    finish = checked_table(table, source="t.csv", format="csv")
    del table
    gc.collect()
    assert gone() is None
    runs = finish().runs
    assert list(runs["run_id"]) == ["r2", "r1"] and list(runs["latency_ms"].isna()) == [True, False]


def _outcome(source, **kwargs):
    """The loaded runs (frame and warnings) or the refusal's report, whichever load_runs gives."""
    try:
        loaded = load_runs(source, **kwargs)
    except RunsValidationError as exc:
        return "refused", exc.report()
    return loaded.runs, loaded.warnings


_ON_DISK = {
    "plain": csv_bytes(*GOOD),
    "no final newline": csv_bytes(*GOOD).rstrip(b"\n"),
    "crlf": csv_bytes(*GOOD).replace(b"\n", b"\r\n"),
    "quoted newline": csv_bytes('"r\n1",a,t1,completed,true,1,0.1,1,2026-07-01T00:00:00Z', *GOOD[1:]),
    "utf-8 bom": b"\xef\xbb\xbf" + csv_bytes(*GOOD),
    "utf-16": csv_bytes(*GOOD).decode().encode("utf-16"),
    "header only": HEADER.encode(),
    "header without newline": HEADER.strip().encode(),
    "empty": b"",
    "ragged line": csv_bytes(GOOD[0], "r2,a,t1,completed", GOOD[2]),
    "invalid cells": csv_bytes(GOOD[0], "r2,a,t1,done,maybe,-1,x,2.5,yesterday", GOOD[0]),
    "latin-1": csv_bytes(*GOOD).replace(b"r1", b"r\xe91"),
}


@pytest.mark.parametrize("kind", sorted(_ON_DISK))
def test_a_csv_on_disk_loads_as_its_bytes_do(kind, tmp_path):
    """A CSV file on disk is checked through a memory map and read by Arrow from the file, an upload from its
    bytes: the frame, the warnings and every refusal are the same."""
    path = tmp_path / "runs.csv"
    path.write_bytes(_ON_DISK[kind])
    from_disk, from_bytes = _outcome(path), _outcome(_ON_DISK[kind], name="runs.csv")
    if isinstance(from_bytes[0], str):
        assert from_disk == from_bytes
    else:
        pd.testing.assert_frame_equal(from_disk[0], from_bytes[0])
        assert from_disk[1] == from_bytes[1]


def test_the_bounds_of_a_csv_on_disk_are_checked_before_arrow_reads_it(tmp_path):
    from scoring.contract.limits import Limits

    path = tmp_path / "runs.csv"
    path.write_bytes(csv_bytes(*GOOD))
    assert not isinstance(_outcome(path, limits=Limits(max_rows=3))[0], str)  # exactly at the bound: read
    for limits, says in ((Limits(max_rows=2), "about 3 rows is more than the limit of 2"),
                         (Limits(max_line_bytes=40), "a line is"),
                         (Limits(max_columns=5), "the header has 9 columns")):
        disk, upload = _outcome(path, limits=limits), _outcome(csv_bytes(*GOOD), name="runs.csv", limits=limits)
        assert disk == upload and disk[0] == "refused" and says in disk[1], disk


@pytest.mark.parametrize("kind", sorted(_ON_DISK))
def test_arrow_reads_every_well_formed_csv_on_disk_itself(kind, tmp_path):
    """The fast path is taken for every well-formed file (quoted newlines included: Arrow is told of the
    quotes found through the map); UTF-16, a ragged line, an odd encoding or a lone header line without its
    newline go to the text reader, as their bytes do."""
    from scoring.contract.limits import Limits
    from scoring.load.runs import _newlines, _read_csv_file

    path = tmp_path / "runs.csv"
    path.write_bytes(_ON_DISK[kind])
    table = _read_csv_file(path, Limits(), ())
    fast = kind in ("plain", "no final newline", "crlf", "quoted newline", "utf-8 bom", "header only",
                    "invalid cells")
    assert (table is not None) == fast, kind
    import mmap

    if _ON_DISK[kind]:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            assert _newlines(mapped, chunk=7) == _newlines(mapped) == _ON_DISK[kind].count(b"\n")



def test_the_line_scan_finds_the_longest_line_and_the_newlines_across_any_chunk():
    from scoring.load.runs import _longest_line

    # By hand: lines of 3, 0 and 5 bytes, then an unterminated line of 2.
    assert _longest_line(b"abc\n\nabcde\nxy") == (5, 3)
    assert _longest_line(b"") == (0, 0) and _longest_line(b"abc") == (3, 0) and _longest_line(b"\n") == (0, 1)
    data = b"ab\nc\n\n" + b"x" * 10 + b"\n" + b"yz"
    assert {_longest_line(data, chunk) for chunk in range(1, len(data) + 2)} == {(10, 4)}
    long_tail = b"a\n" + b"y" * 30
    assert {_longest_line(long_tail, chunk) for chunk in range(1, len(long_tail) + 2)} == {(30, 1)}


def test_the_line_scan_holds_a_few_mb_whatever_the_file_holds():
    import tracemalloc

    from scoring.load.runs import _longest_line

    newlines = b"\n" * 4_000_000  # a file of nothing but line breaks: 4,000,000 positions
    tracemalloc.start()
    try:
        assert _longest_line(newlines) == (0, 4_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20  # 4.3 MiB measured; 61 MiB when it took 16 MB at a time


def test_a_refusals_text_says_how_many_more_problems_it_does_not_show():
    from scoring.contract.schema import Reason
    from scoring.load.runs import MAX_PROBLEMS_LISTED, Problem

    # The SQL engines' way: 200 rows listed, the rest of the rule counted on one line.
    listed = [Problem.of(Reason.NEGATIVE, i + 1, "latency_ms", "-1") for i in range(200)]
    summary = Problem.not_listed(Reason.NEGATIVE, "latency_ms", 1_999_800)
    text = RunsValidationError([*listed, summary], rows_read=2_000_000, total=2_000_000).report()
    assert "... and" not in text and text.count("\n") == 201
    # The pandas loader's way: more problems kept than the text lists, and more found than kept.
    kept = [Problem.of(Reason.NEGATIVE, i + 1, "latency_ms", "-1") for i in range(MAX_PROBLEMS_LISTED + 500)]
    text = RunsValidationError(kept, rows_read=2_000_000, total=2_000_000).report()
    assert text.splitlines()[MAX_PROBLEMS_LISTED + 1] == f"  ... and {2_000_000 - MAX_PROBLEMS_LISTED:,} more"
    assert text.splitlines()[-1] == "The 1,500 invalid row(s) can be excluded explicitly (--exclude-invalid)."
