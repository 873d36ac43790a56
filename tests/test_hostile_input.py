"""Hostile and broken input: the loader either loads correctly or returns the validation report.

Nothing raises out of the loader but RunsValidationError; nothing is dropped silently; the same
runs in any order and any format give byte-identical reports.
"""

import io
import json
import random
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RunsValidationError, load_runs, score_runs

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at"
GOOD_ROW = "r1,a,t1,completed,true,1000,0.01,3,2026-07-01T00:00:00Z"
FORMATS = ["x.csv", "x.json", "x.jsonl", "x.parquet"]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(data: bytes, name: str):
    """Load, returning the frame or the error; any other exception fails the test."""
    try:
        return load_runs(data, name=name)
    except RunsValidationError as error:
        assert error.problems, "a refusal must say why"
        assert all(p.reason for p in error.problems)
        return error


@FUZZ
@given(st.binary(max_size=2000), st.sampled_from(FORMATS))
def test_random_bytes_never_raise_out_of_the_loader(data, name):
    outcome(data, name)


@FUZZ
@given(st.integers(0, 400), st.sampled_from(FORMATS))
def test_truncated_files_never_raise_out_of_the_loader(cut, name):
    records = [dict(zip(HEADER.split(","), GOOD_ROW.split(","))) for _ in range(3)]
    for i, r in enumerate(records):
        r["run_id"] = f"r{i}"
    if name.endswith(".csv"):
        data = ("\n".join([HEADER] + [",".join(r.values()) for r in records]) + "\n").encode()
    elif name.endswith(".jsonl"):
        data = "\n".join(json.dumps(r) for r in records).encode()
    elif name.endswith(".json"):
        data = json.dumps(records).encode()
    else:
        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(records), sink)
        data = sink.getvalue()
    outcome(data[:cut], name)


cell = st.one_of(
    st.text(max_size=20), st.integers(-10**30, 10**30), st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(), st.none(), st.sampled_from(["NaN", "inf", "-inf", "1e308", "1e-320", "  ", "TRUE", "pass"]),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.lists(st.integers(), max_size=2),
)


@FUZZ
@given(st.lists(st.fixed_dictionaries(dict.fromkeys(HEADER.split(","), cell)), min_size=1, max_size=8))
def test_json_with_mixed_types_either_loads_or_reports(records):
    for name, data in [("x.json", json.dumps(records, default=str).encode()),
                       ("x.jsonl", "\n".join(json.dumps(r, default=str) for r in records).encode())]:
        result = outcome(data, name)
        if not isinstance(result, RunsValidationError):
            assert len(result.runs) == len(records)  # loaded: nothing dropped


@FUZZ
@given(st.lists(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12),
                         min_size=0, max_size=11), min_size=0, max_size=6))
def test_csv_with_arbitrary_cells_either_loads_or_reports(rows):
    lines = [HEADER] + [",".join('"' + c.replace('"', '""') + '"' for c in row) for row in rows]
    result = outcome(("\n".join(lines) + "\n").encode(), "x.csv")
    if not isinstance(result, RunsValidationError):
        assert len(result.runs) == len(rows)


# UTF-32 with its mark (FF FE 00 00) was read as UTF-16, whose mark starts it: seven missing columns and a line of a
# NUL, with no word of the encoding (a reviewer's file).
@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32", "utf-32-be-marked", "latin-1"])
def test_other_encodings_load_the_same_runs(encoding):
    text = f"{HEADER}\nr1,agént-é,t1,completed,true,1000,0.01,3,2026-07-01T00:00:00Z\n"
    data = b"\x00\x00\xfe\xff" + text.encode("utf-32-be") if encoding == "utf-32-be-marked" else text.encode(encoding)
    runs = load_runs(data, name="x.csv").runs
    assert runs.loc[0, "agent_id"] == "agént-é"


@pytest.mark.parametrize("name", ["x.csv", "x.json", "x.jsonl"])
@pytest.mark.parametrize("data", [
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01",  # an image renamed
    b"PK\x03\x04\x14\x00\x00\x00\x08\x00",  # an archive renamed
    (HEADER + "\nr1,a,t1,completed,true,1,0.01,3,\x00\n").encode(),  # text with a NUL byte
])
def test_binary_content_is_refused_as_binary_not_in_a_parsers_words(data, name):
    error = outcome(data, name)
    assert isinstance(error, RunsValidationError)
    (problem,) = error.problems
    assert problem.code == "file" and "a NUL byte at byte" in problem.reason
    assert "which no text holds (binary content?)" in problem.reason and "unquoted field" not in problem.reason


def test_latin1_is_read_with_a_warning():
    loaded = load_runs(f"{HEADER}\nr1,agént,t1,completed,true,1,0.01,3,\n".encode("latin-1"), name="x.csv")
    assert any("Latin-1" in w for w in loaded.warnings)


@pytest.mark.parametrize("data, reason", [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    ((HEADER + "\n").encode(), "no runs"),
    (b"[]", "no runs"),
    (b'{"runs": []}', "no runs"),
    (b'{"rows": []}', "expected a JSON array"),
    (b"42", "expected a JSON array"),
])
def test_empty_and_header_only_files_are_refused_with_a_reason(data, reason):
    name = "x.json" if data.strip().startswith((b"[", b"{", b"4")) else "x.csv"
    error = outcome(data, name)
    assert isinstance(error, RunsValidationError)
    assert any(reason in p.reason for p in error.problems)


def test_extra_columns_are_kept_and_ignored():
    loaded = load_runs(f"{HEADER},notes,Owner\n{GOOD_ROW},hello,me\n".encode(), name="x.csv")
    assert len(loaded.runs) == 1 and loaded.runs.loc[0, "run_id"] == "r1"


def test_column_names_in_other_case_or_with_spaces_load():
    header = " RUN_ID ,Agent Id,task-ID,STATUS,Success,Latency MS,cost_usd,Steps,Finished At"
    runs = load_runs(f"{header}\n{GOOD_ROW}\n".encode(), name="x.csv").runs
    assert runs.loc[0, "latency_ms"] == 1000.0


def test_a_one_million_character_cell_is_reported_not_crashed():
    big = "x" * 1_000_000
    error = outcome(f"{HEADER}\nr1,a,t1,{big},true,1,0.01,3,\n".encode(), "x.csv")
    assert isinstance(error, RunsValidationError)
    assert error.problems[0].column == "status"
    assert len(error.report()) < 2000  # the value is shown shortened, not a megabyte of text


def test_a_one_million_character_id_loads():
    big = "a" * 1_000_000
    runs = load_runs(f"{HEADER}\nr1,{big},t1,completed,true,1,0.01,3,\n".encode(), name="x.csv").runs
    assert runs.loc[0, "agent_id"] == big


@pytest.mark.parametrize("value, ok", [("1e308", True), ("1e-320", True), ("1e309", False), ("-0", True)])
def test_huge_and_tiny_numbers(value, ok):
    result = outcome(f"{HEADER}\nr1,a,t1,completed,true,{value},0.01,3,\n".encode(), "x.csv")
    assert isinstance(result, RunsValidationError) != ok


def test_ragged_csv_row_is_reported():
    error = outcome(f"{HEADER}\n{GOOD_ROW},extra,cells\n".encode(), "x.csv")
    assert isinstance(error, RunsValidationError)


def test_a_csv_the_reader_cannot_split_is_refused_in_our_words_with_its_line_and_row():
    """Not pandas' "Error tokenizing data. C error: Expected 9 fields in line 4, saw 11": the file's line as a
    person counts it (the header is line 1, a blank line counts), the row (the n-th record after the header)."""
    error = outcome(f"{HEADER}\n{GOOD_ROW}\n\n{GOOD_ROW.replace('r1', 'r2')},extra,cells\n".encode(), "x.csv")
    (problem,) = error.problems
    assert problem.reason == ("line 4 (row 2) has 11 fields where the header has 9: a comma too many, or a cell "
                              "holding a comma without quotes around it")
    assert problem.row is None and not error.excludable  # the whole file is unreadable: no row can be excluded
    assert "tokeniz" not in error.report() and "C error" not in error.report()


def test_a_quote_never_closed_is_refused_in_our_words_with_its_line_and_row():
    rows = [GOOD_ROW.replace("r1", f"r{i}") for i in range(1, 4)]
    rows[1] = rows[1].replace(",a,", ',"a,')  # row 2, on line 3, opens a quote nothing closes
    error = outcome((HEADER + "\n" + "\n".join(rows) + "\n").encode(), "x.csv")
    assert [p.reason for p in error.problems] == [
        "a quote opened on line 3 (row 2) is never closed: everything after it would be one cell"]
    assert "EOF inside string" not in error.report()


def test_row_limit_refuses_before_parsing(monkeypatch):
    data = (HEADER + "\n" + "\n".join(GOOD_ROW.replace("r1", f"r{i}") for i in range(50)) + "\n").encode()
    for name, payload in [("x.csv", data), ("x.jsonl", b"\n".join(b"{}" for _ in range(50)))]:
        error = pytest.raises(RunsValidationError, load_runs, payload, name=name, max_rows=10).value
        assert "is more than the limit of 10 (max_rows); refused before reading" in error.problems[0].reason


def _sample_records() -> list[dict]:
    frame = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    return frame.to_dict("records")


def _encode(records: list[dict], name: str) -> bytes:
    if name.endswith(".csv"):
        return pd.DataFrame(records).to_csv(index=False).encode()
    if name.endswith(".jsonl"):
        return "\n".join(json.dumps(r) for r in records).encode()
    if name.endswith(".json"):
        return json.dumps({"runs": records}).encode()
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(records), sink)
    return sink.getvalue()


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("seed", [1, 2])
def test_same_runs_in_any_order_and_format_give_byte_identical_reports(name, seed):
    reference = score_runs(load_runs(SAMPLE).runs).to_json_text()
    records = _sample_records()
    random.Random(seed).shuffle(records)
    assert score_runs(load_runs(_encode(records, name), name=name).runs).to_json_text() == reference


def test_user_file_name_is_never_used_as_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = f"{HEADER}\n{GOOD_ROW}\n".encode()
    loaded = load_runs(data, name="../../etc/passwd.csv")
    assert loaded.source == "../../etc/passwd.csv" and len(loaded.runs) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_short_csv_line_is_refused_not_padded():
    error = outcome(f"{HEADER}\n{GOOD_ROW}\nr2,a,t1,completed\n".encode(), "x.csv")
    assert isinstance(error, RunsValidationError)
    assert [(p.row, p.reason) for p in error.problems] == [(2, "the line has 4 field(s); the header has 9")]


def test_nan_and_infinity_literals_in_json_are_refused_as_non_finite():
    text = ('[{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed", "success": true, '
            '"latency_ms": NaN, "cost_usd": Infinity}]')
    error = outcome(text.encode(), "x.json")
    assert isinstance(error, RunsValidationError)
    assert {(p.column, p.reason) for p in error.problems} == {("latency_ms", "not a finite number"),
                                                             ("cost_usd", "not a finite number")}


@pytest.mark.parametrize("name", ["x.json", "x.jsonl"])
def test_a_json_record_giving_a_key_twice_is_refused_not_read_with_one_value_dropped(name):
    # json keeps the last value of a repeated key: the record's 1 ms latency was dropped for 5 without a word,
    # where a CSV or Parquet file naming a column twice is refused (SPEC audit).
    good = ('{"run_id": "r2", "agent_id": "a", "task_id": "t", "status": "completed", "success": true, '
            '"latency_ms": 1, "cost_usd": 0.1}')
    twice = good.replace('"r2"', '"r1"').replace('"cost_usd": 0.1', '"cost_usd": 0.1, "latency_ms": 5')
    text = f"[{twice}, {good}]" if name == "x.json" else f"{twice}\n{good}\n"
    error = outcome(text.encode(), name)
    assert isinstance(error, RunsValidationError) and error.invalid_rows == 1
    (problem,) = error.problems
    assert (problem.row, problem.code, problem.value) == (1, "duplicate_column", "latency_ms")
    kept = load_runs(text.encode(), name=name, exclude_invalid=True)  # the record is excluded only when asked
    assert kept.runs["run_id"].tolist() == ["r2"] and kept.excluded_rows == 1
    # A file whose every record repeats a key still has its columns: each row is refused for the key, none as missing.
    other = twice.replace('"r1"', '"r3"')
    every = f"[{twice}, {other}]" if name == "x.json" else f"{twice}\n{other}\n"
    error = outcome(every.encode(), name)
    assert [(p.row, p.code) for p in error.problems] == [(1, "duplicate_column"), (2, "duplicate_column")]


def test_an_object_giving_runs_twice_is_refused_not_read_with_a_list_dropped():
    # A reviewer's {"runs": [3 failed runs], "runs": [1 success]}: json keeps the last list, so the three failed
    # runs were dropped without a word and the agent scored on its one success. A key the loader never reads may
    # repeat (nothing of it is lost).
    run = ('{"run_id": "r%d", "agent_id": "a", "task_id": "t", "status": "completed", "success": %s, '
           '"latency_ms": 1, "cost_usd": 0.1}')
    first, second = f"[{run % (1, 'false')}, {run % (2, 'false')}, {run % (3, 'false')}]", f"[{run % (4, 'true')}]"
    error = outcome(f'{{"runs": {first}, "runs": {second}}}'.encode(), "x.json")
    assert isinstance(error, RunsValidationError)
    assert [(p.code, p.row) for p in error.problems] == [("file", None)]
    assert '"runs" more than once' in error.problems[0].reason
    with pytest.raises(RunsValidationError):  # nor does excluding the invalid rows read either list
        load_runs(f'{{"runs": {first}, "runs": {second}}}'.encode(), name="x.json", exclude_invalid=True)
    kept = outcome(f'{{"note": 1, "runs": {first}, "note": 2}}'.encode(), "x.json")
    assert sorted(kept.runs["run_id"]) == ["r1", "r2", "r3"]


@pytest.mark.parametrize("rows", [1, 3])
def test_excluding_every_row_is_no_remedy(rows):
    # A reviewer excluded a file's only invalid row: the app's pages stopped on an empty dataset, and the command
    # line printed an empty leaderboard with exit 0, a gate that passes on nothing. Now refused, whatever is asked.
    text = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n" + "".join(
        f"r{i},,t1,completed,true,-50,0.01\n" for i in range(rows))
    for exclude in (False, True):
        with pytest.raises(RunsValidationError) as caught:
            load_runs(text.encode(), name="bad.csv", exclude_invalid=exclude)
        error = caught.value
        assert error.every_row_invalid and not error.excludable and error.invalid_rows == rows
        said = "The only row is invalid" if rows == 1 else f"All {rows} rows are invalid"
        assert f"{said}: excluding them would leave no run to score." in error.report()
        assert "--exclude-invalid" not in error.report()


def test_parquet_nan_is_refused_but_parquet_null_is_an_empty_cell():
    base = dict(zip(HEADER.split(","), GOOD_ROW.split(",")))
    base.update(latency_ms=1000.0, cost_usd=0.01, steps=3, success=True)
    rows = [dict(base, run_id="r1"), dict(base, run_id="r2", latency_ms=None), dict(base, run_id="r3",
                                                                                     latency_ms=float("nan"))]
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), sink)
    error = outcome(sink.getvalue(), "x.parquet")
    assert isinstance(error, RunsValidationError)
    assert [(p.row, p.column, p.reason) for p in error.problems] == [(3, "latency_ms", "not a finite number")]
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows[:2]), sink)
    runs = load_runs(sink.getvalue(), name="x.parquet").runs
    assert runs["latency_ms"].isna().sum() == 1


def test_binary_ids_that_are_not_text_are_reported():
    table = pa.table({"run_id": pa.array([b"r1", b"\xff\xfe"], pa.binary()), "agent_id": ["a", "a"],
                      "task_id": ["t", "t"], "status": ["completed"] * 2, "success": [True, False],
                      "latency_ms": [1.0, 2.0], "cost_usd": [0.1, 0.1]})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    error = outcome(sink.getvalue(), "x.parquet")
    assert isinstance(error, RunsValidationError)
    assert [(p.row, p.column) for p in error.problems] == [(2, "run_id")]


def test_a_refused_csv_row_is_said_with_the_line_it_starts_on():
    """Row 6 is the sixth run; after the header and a blank line it starts on line 8 (and a cell over two lines
    moves the next row down one more line): the refusal says both, the table has both."""
    rows = [GOOD_ROW.replace("r1", f"r{i}") for i in range(1, 7)]
    rows[2] = rows[2].replace(",a,", ',"a\nb",')  # row 3's agent cell spans two lines
    rows[5] = rows[5].replace("completed", "finished")  # row 6: not a status
    text = HEADER + "\n\n" + "\n".join(rows) + "\n"
    error = outcome(text.encode(), "x.csv")
    assert [p.row for p in error.problems] == [6] and error.lines == {6: 9}
    assert "row 6 (line 9), column 'status'" in error.report()
    assert error.table()[["row", "line"]].values.tolist() == [[6, 9]]
    assert text.splitlines()[9 - 1].startswith("r6,")  # line 9 as an editor counts it
