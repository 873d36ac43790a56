"""The fast path (CSV and Parquet read and checked with Arrow) gives exactly what the cell-by-cell path
gives: the same canonical frame, the same report, the same refusal, row for row.

JSON goes through the cell-by-cell validator, so the same table written as JSON (every cell as text) is
the reference for the CSV and Parquet files.
"""

from __future__ import annotations

import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RunsValidationError, load_runs, score_runs
from scoring.contract.schema import WHITESPACE
from scoring.load.arrow_runs import canonical_order
from tests.spellings import (
    BAD_NUMBERS,
    BAD_STEPS,
    BAD_TIMES,
    HEADER,
    IDS,
    NUMBERS,
    STATUSES,
    STEPS,
    SUCCESS,
    TIMES,
    files,
)


def outcome(data: bytes, name: str):
    try:
        loaded = load_runs(data, name=name)
    except RunsValidationError as error:
        # Compared across formats: the CSV's file lines (said beside its rows, CSV only) left out.
        return "refused", error.with_lines({}).report().split(": refused", 1)[1]
    return "scored", score_runs(loaded.runs).to_json_text(), loaded.runs


@st.composite
def tables(draw, bad: bool):
    n = draw(st.integers(1, 25))
    pick = (lambda good, wrong: st.sampled_from(good + wrong)) if bad else (lambda good, wrong: st.sampled_from(good))
    rows = []
    for i in range(n):
        rows.append([draw(st.sampled_from([f"r{i}", f"r{i} ", f"\u2003r{i}"] + (["r0", ""] if bad else []))),
                     draw(st.sampled_from(IDS)), draw(st.sampled_from(IDS)),
                     draw(pick(STATUSES, ["done", "", "İ"])), draw(pick(SUCCESS, ["maybe", "2"])),
                     draw(pick(NUMBERS, BAD_NUMBERS)), draw(pick(NUMBERS, BAD_NUMBERS)),
                     draw(pick(STEPS, BAD_STEPS)), draw(pick(TIMES, BAD_TIMES))])
    return rows


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(tables(bad=False))
def test_valid_spellings_give_the_same_report_and_frame_on_every_path(rows):
    made = files(rows)
    reference = outcome(made["x.json"], "x.json")
    for name in ("x.csv", "x.parquet"):
        got = outcome(made[name], name)
        assert got[:2] == reference[:2], name
        if got[0] == "scored":
            pd.testing.assert_frame_equal(got[2], reference[2])


@SETTINGS
@given(tables(bad=True))
def test_invalid_cells_give_the_same_refusal_row_for_row_on_every_path(rows):
    made = files(rows)
    reference = outcome(made["x.json"], "x.json")
    for name in ("x.csv", "x.parquet"):
        assert outcome(made[name], name)[:2] == reference[:2], name


def test_the_fast_path_is_taken_for_a_clean_file(monkeypatch):
    import scoring.load.runs

    calls = []
    original = scoring.load.runs._legacy_series
    monkeypatch.setattr(scoring.load.runs, "_legacy_series", lambda column: calls.append(1) or original(column))
    rows = [[f"r{i}", "a", "t", "completed", "true", "12.5", "0.01", "3", "2026-07-01T00:00:00Z"] for i in range(5)]
    for name, data in files(rows).items():
        if name != "x.json":
            load_runs(data, name=name)
    assert not calls, "a clean file must not be parsed cell by cell"


def test_whitespace_is_what_python_strips():
    assert "".join(chr(c) for c in range(0x110000) if chr(c).isspace()) == WHITESPACE


def test_canonical_order_breaks_time_ties_by_run_id_descending_and_puts_empty_times_last():
    import numpy as np

    agents = np.array([0, 0, 0, 0, 1, 0], dtype=np.int32)
    nat = np.iinfo(np.int64).min
    finished = np.array([5, 5, nat, 9, 1, 5], dtype=np.int64)
    run_id = pa.array(["b", "c", "z", "a", "q", "a"])
    order = canonical_order(agents, finished, np.arange(1, 7), run_id)
    # agent 0: time 9 ("a"), then time 5 by run_id desc ("c", "b", "a"), then the empty time; then agent 1
    assert run_id.take(pa.array(order)).to_pylist() == ["a", "c", "b", "a", "z", "q"]
    assert canonical_order(agents, None, np.arange(1, 7), run_id).tolist() == [5, 3, 2, 1, 0, 4]


def test_minus_zero_is_zero_on_every_path_and_in_every_typed_column():
    """'-0', '-0.0' and a typed -0.0 all read as 0.0: the report never prints -0.0 (the per-cell
    parser read the text '-0' as 0 but a JSON number -0.0 as -0.0)."""
    header = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at\n"
    csv_text = header + "r0,a,t,completed,true,-0,-0.0,-0,2026-07-01T00:00:00Z\n"
    typed = pa.table({"run_id": ["r0"], "agent_id": ["a"], "task_id": ["t"], "status": ["completed"],
                      "success": [True], "latency_ms": [-0.0], "cost_usd": [-0.0], "steps": [-0.0],
                      "finished_at": ["2026-07-01T00:00:00Z"]})
    sink = io.BytesIO()
    pq.write_table(typed, sink)
    json_numbers = json.dumps([{"run_id": "r0", "agent_id": "a", "task_id": "t", "status": "completed",
                                "success": True, "latency_ms": -0.0, "cost_usd": -0.0, "steps": -0.0,
                                "finished_at": "2026-07-01T00:00:00Z"}]).encode()
    for name, data in (("x.csv", csv_text.encode()), ("x.parquet", sink.getvalue()), ("x.json", json_numbers)):
        runs = load_runs(data, name=name).runs
        for column in ("latency_ms", "cost_usd", "steps"):
            assert str(runs[column].iloc[0]) == "0.0", (name, column)
        assert "-0.0" not in score_runs(runs).to_json_text(), name


def test_the_plain_utc_shortcut_accepts_exactly_the_twenty_byte_spelling():
    from scoring.load.arrow_runs import _every_cell_is_plain_utc as plain

    assert plain(pa.array(["2026-07-01T00:00:00Z", None, "1999-12-31T23:59:59Z"]))
    assert plain(pa.array(["x", "2026-07-01T00:00:00Z"]).slice(1))  # a slice: its own offsets
    for other in ("2026-07-01 00:00:00Z", "2026-07-01T00:00:0aZ", "2026/07-01T00:00:00Z", "2026-07-01T00:00:00+",
                  "2026-07-01T00:00:00", "2026-07-01T00:00:00.1Z", "2026-07-01T00:00:00z", "２026-07-01T00:00:00Z"):
        assert not plain(pa.array(["2026-07-01T00:00:00Z", other])), other
    assert not plain(pa.array([None], pa.string()))  # nothing to read: the general path decides


def test_an_impossible_date_in_the_plain_spelling_gets_the_per_cell_report():
    header = ",".join(HEADER)
    for bad in ("2026-02-30T00:00:00Z", "2026-07-01T24:00:00Z", "2026-06-30T23:59:60Z", "2026-00-10T00:00:00Z"):
        rows = [["r0", "a", "t", "completed", "true", "1", "1", "1", "2026-07-01T00:00:00Z"],
                ["r1", "a", "t", "completed", "true", "1", "1", "1", bad]]
        data = files(rows)
        results = {name: outcome(blob, name)[:2] for name, blob in data.items()}
        assert results["x.csv"][0] == "refused", bad
        assert results["x.csv"] == results["x.json"] == results["x.parquet"], (bad, header)


def test_a_parquet_file_of_many_row_groups_reads_as_one_group_does():
    """Row groups are read one by one (each checked against the memory budget) and then combined column
    by column; the report and the validation report are those of the same rows in one group."""
    from pathlib import Path

    sample = Path(__file__).resolve().parents[1] / "sample_data" / "runs.csv"
    frame = pd.read_csv(sample, dtype=str, keep_default_na=False)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    outputs = []
    for group_size in (len(frame), 97):
        sink = io.BytesIO()
        pq.write_table(table, sink, row_group_size=group_size)
        assert pq.ParquetFile(io.BytesIO(sink.getvalue())).metadata.num_row_groups == -(-len(frame) // group_size)
        outputs.append(json.dumps(score_runs(load_runs(sink.getvalue(), name="runs.parquet").runs).to_json()))
    assert outputs[0] == outputs[1]
    broken = frame.copy()
    broken.loc[500, "latency_ms"] = "fast"
    refusals = []
    for group_size in (len(frame), 97):
        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pandas(broken, preserve_index=False), sink, row_group_size=group_size)
        try:
            load_runs(sink.getvalue(), name="runs.parquet")
        except RunsValidationError as exc:
            refusals.append([(p.row, p.column, p.value) for p in exc.problems])
    assert refusals[0] == refusals[1] == [(501, "latency_ms", "fast")]


def test_an_int64_outcome_above_2_53_is_refused_not_raised():
    # Arrow's checked cast to float64 raised ArrowInvalid for 2^60 + 1; it is simply not an outcome.
    table = pa.table({"run_id": ["r1", "r2"], "agent_id": ["a", "a"], "task_id": ["t", "t"],
                      "status": ["completed", "completed"], "success": pa.array([1, 2**60 + 1], type=pa.int64()),
                      "latency_ms": [1.0, 2.0], "cost_usd": [0.1, 0.2]})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    try:
        load_runs(buffer.getvalue(), name="big.parquet")
    except RunsValidationError as error:
        assert [(p.row, p.column, p.code) for p in error.problems] == [(2, "success", "not_an_outcome")]
    else:
        raise AssertionError("2^60 + 1 read as an outcome")
