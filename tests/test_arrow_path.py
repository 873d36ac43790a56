"""The fast path (CSV and Parquet read and checked with Arrow) gives exactly what the cell-by-cell path
gives: the same canonical frame, the same report, the same refusal, row for row.

JSON goes through the cell-by-cell validator, so the same table written as JSON (every cell as text) is
the reference for the CSV and Parquet files.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RunsValidationError, load_runs, score_runs
from scoring.contract.schema import WHITESPACE
from scoring.load import arrow_runs
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


@pytest.mark.parametrize("empty", [False, True])  # every cell present (one matrix), or cells gathered by offset
@pytest.mark.parametrize("at", [0, 2, 3, 4, 6])
def test_the_plain_utc_shortcut_reads_every_block(at, empty):
    """Compared a block at a time: a cell that is not the plain spelling is found in any block, the last
    (short) one included, and a column of plain cells passes whatever the block size."""
    from scoring.load.arrow_runs import _every_cell_is_plain_utc as plain

    cells = ["2026-07-01T00:00:00Z"] * 7 + ([None] if empty else [])
    assert all(plain(pa.array(cells), block=size) for size in (1, 2, 3, 7, 100))
    cells[at] = "2026-07-01 00:00:00Z"
    assert not any(plain(pa.array(cells), block=size) for size in (1, 2, 3, 7, 100)), at


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
    """Row groups are read one by one (each checked against the memory budget) and kept as the chunks of
    each column; the report and the validation report are those of the same rows in one group."""
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


# --------------------------------------------------------------------------- in-memory records

# Cells by the Python type a column holds: valid ones, then (after them) invalid ones. A table picks one kind per
# column (the Arrow path's case) or mixes them (the per-cell path's); a clean table has only valid cells, so both
# paths are compared on validated tables as well as on refused ones.
_GOOD = {
    "agent_id": {"str": ["a", " a", "b", "\u00e9", "A"], "int": [5, 12], "float": [1.5], "bool": [True, False]},
    "task_id": {"str": ["t1", "t2 ", "\tt3"], "int": [1, 2**53, -2**53], "float": [2.0], "bool": [False]},
    "status": {"str": ["completed", "COMPLETED", " failed", "timeout", "queued", "cancelled "]},
    "success": {"str": ["true", "False", " yes", "0", ""], "int": [0, 1], "float": [0.0, 1.0, float("nan")],
                "bool": [True, False]},
    "latency_ms": {"str": ["12", " 7.5 ", "-0", ""], "int": [0, 3, 2**53], "float": [0.0, -0.0, 1.5, 1e308,
                                                                                      float("nan")]},
    "cost_usd": {"str": ["0.01", ""], "int": [0, 1], "float": [0.25, float("nan")]},
    "steps": {"str": ["3", " 0 "], "int": [0, 60], "float": [2.0, float("nan")]},
    "finished_at": {"str": ["2026-07-01T00:00:00Z", " 2026-07-01 00:00:00", "2026-07-01T02:00:00+02:00",
                            "2026-07-01T00:00:00.1234567Z", "2026-07-01", ""]},
    "input_tokens": {"str": ["10", ""], "int": [0, 2**53], "float": [4.0, float("nan")]},
}
_BAD = {
    "run_id": {"str": ["", "r0"], "int": [0], "float": [1.5], "bool": [True]},
    "agent_id": {"str": [""], "float": [float("nan")]},
    "task_id": {"int": [-2**53 - 1]},
    "status": {"str": ["done", "\u0130"], "int": [1], "float": [0.0], "bool": [True]},
    "success": {"str": ["maybe"], "int": [2], "float": [0.5]},
    "latency_ms": {"str": ["x", "inf"], "int": [-1, 2**53 + 1], "float": [float("inf"), -2.0], "bool": [True]},
    "cost_usd": {"bool": [False]},
    "steps": {"str": ["3.5"], "float": [2.5], "bool": [True]},
    "finished_at": {"str": ["2026-02-30T00:00:00Z", "soon"], "int": [20260701], "float": [1.0], "bool": [True]},
    "input_tokens": {"str": ["1e3"], "float": [4.5], "bool": [True]},
}
_REQUIRED = {"run_id", "agent_id", "task_id", "status"}


@st.composite
def record_tables(draw):
    clean = draw(st.booleans())
    n = draw(st.integers(1, 12))
    columns: dict = {}
    for column in ["run_id", *_GOOD]:
        good = _GOOD.get(column, {})
        cells = {kind: good.get(kind, []) + ([] if clean else _BAD.get(column, {}).get(kind, []))
                 for kind in ("str", "int", "float", "bool")}
        kinds = [kind for kind, values in cells.items() if values or column == "run_id"]
        kind = draw(st.sampled_from(kinds + ([] if clean else ["mixed", "none"])))
        if column == "run_id":  # unique in a clean table, as text or as whole numbers
            spelled = (lambda i: i) if kind == "int" else (lambda i: draw(st.sampled_from([f"r{i}", f" r{i}"])))
            column_cells = [spelled(i) if clean or draw(st.booleans()) else draw(st.sampled_from(
                [v for values in _BAD["run_id"].values() for v in values])) for i in range(n)]
        else:
            pool = [v for values in cells.values() for v in values] if kind == "mixed" else cells.get(kind, [])
            may_be_empty = not clean or column not in _REQUIRED
            column_cells = [None if not pool or (may_be_empty and draw(st.integers(0, 5)) == 0)
                            else draw(st.sampled_from(pool)) for _ in range(n)]
        columns[column] = column_cells
    # A header spelling the validator normalizes; spelled both ways in one table, a duplicate column.
    spellings = {"agent_id": draw(st.sampled_from(["agent_id", "Agent ID"]))}
    duplicate = not clean and draw(st.integers(0, 9)) == 0
    records = []
    for i in range(n):
        record = {}
        for column, cells in columns.items():
            if cells[i] is not None or draw(st.booleans()):  # a missing key, or an explicit None
                record["agent_id" if duplicate and i == 0 and column == "agent_id"
                       else spellings.get(column, column)] = cells[i]
        records.append(record)
    return records


def _records_outcome(convert, records, exclude_invalid):
    try:
        runs = convert(records, exclude_invalid=exclude_invalid)
    except RunsValidationError as error:
        return "refused", str(error), [(p.row, p.column, p.value, p.code) for p in error.problems]
    return "validated", runs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_tables(), st.booleans())
def test_records_on_the_arrow_path_give_what_the_per_cell_path_gives(records, exclude_invalid):
    from scoring.load.runs import _runs_from_records_by_cell, runs_from_records

    got = _records_outcome(runs_from_records, records, exclude_invalid)
    reference = _records_outcome(_runs_from_records_by_cell, records, exclude_invalid)
    assert got[0] == reference[0]
    if got[0] == "refused":
        assert got[1:] == reference[1:]
    else:
        pd.testing.assert_frame_equal(got[1], reference[1], check_exact=True)
        assert got[1].attrs == reference[1].attrs
        for column in ("latency_ms", "cost_usd", "steps"):  # -0.0 is 0.0 on both paths, to the bit
            assert [v.hex() for v in got[1][column]] == [v.hex() for v in reference[1][column]]


def test_plain_records_take_the_arrow_path_and_others_the_per_cell_path():
    from scoring.load.runs import _plain_records_table

    clean = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed", "success": True,
              "latency_ms": 1.5, "cost_usd": None, "steps": 3, "finished_at": None} for i in range(3)]
    table = _plain_records_table(clean)
    assert table is not None and table.column("steps").type == pa.int64()
    assert table.column("latency_ms").type == pa.float64() and table.column("cost_usd").null_count == 3
    for odd in ({"steps": 3.0}, {"latency_ms": 2}, {"agent_id": {"nested": 1}}, {"task_id": 2**53 + 1},
                {"Run ID": "again"}, {5: "a number as a key"}):
        assert _plain_records_table([*clean[:2], {**clean[2], **odd}]) is None, odd
    assert _plain_records_table([*clean, "not a record"]) is None
    assert _plain_records_table([]) is None


# --------------------------------------------------------------------------- the duplicate check's hashes


def _duplicated(values: list[str]) -> bool:
    from scoring.load.arrow_runs import has_duplicates

    return has_duplicates(pa.array(values, pa.string()))


def test_the_duplicate_check_by_hand():
    assert not _duplicated(["r1", "r2", "r10"])
    assert _duplicated(["r1", "r2", "r1"])
    assert not _duplicated(["a", "a\0", "a\0\0"])  # trailing NULs: the padding must not make them equal
    assert _duplicated(["a\0", "b", "a\0"])
    for long in ("x" * 40, "x" * 64, "x" * 65):  # hashed up to 64 bytes (a UUID is 36); wider: Arrow's unique
        assert _duplicated([long, "y", long]) and not _duplicated([long, long + "z"])
        assert not _duplicated([long, long[:-1] + "y", long + "\0"]) and _duplicated([long + "\0", "y", long + "\0"])
    assert _duplicated(["é-1", "é-2", "é-1"]) and not _duplicated(["é-1", "é-2", "e-1"])  # multi-byte text
    assert not _duplicated(["only"]) and not _duplicated([])
    sliced = pa.array(["q", "r1", "r2", "r1", "s"], pa.string()).slice(1, 2)  # an offset into shared buffers
    from scoring.load.arrow_runs import has_duplicates

    assert not has_duplicates(sliced) and has_duplicates(pa.array(["q", "r1", "r2", "r1"]).slice(1, 3))


def test_a_repeated_hash_is_settled_on_the_values(monkeypatch):
    """Every value hashed alike (the worst collision): the exact check still says there is no duplicate."""
    import numpy as np

    from scoring.load import arrow_runs

    monkeypatch.setattr(arrow_runs, "_fixed_width_hashes", lambda values: np.zeros(len(values), np.uint64))
    assert not _duplicated(["r1", "r2", "r3"]) and _duplicated(["r1", "r2", "r2"])


@SETTINGS
@given(st.lists(st.text(alphabet=st.sampled_from(["a", "b", "\0", "é", "-", "1"]), max_size=12), max_size=30))
def test_the_duplicate_check_agrees_with_a_set(values):
    assert _duplicated(values) == (len(set(values)) != len(values))


def test_the_hashes_are_the_same_in_pieces_of_any_size():
    """The padded copies are hashed piece by piece: a piece's size never changes a hash, and a duplicate whose
    two rows fall in different pieces is found."""
    import numpy as np

    from scoring.load import arrow_runs

    values = pa.array([f"run-{i}" for i in range(1000)] + ["run-3"], pa.string())
    whole = arrow_runs._fixed_width_hashes(values, chunk=1 << 20)
    for chunk in (1, 7, 64, 999, 1000):
        assert np.array_equal(arrow_runs._fixed_width_hashes(values, chunk=chunk), whole)
    assert whole[3] == whole[1000] and len(set(whole[:1000].tolist())) == 1000
    assert arrow_runs.has_duplicates(values) and not arrow_runs.has_duplicates(values.slice(0, 1000))


@pytest.mark.parametrize("with_times", [True, False])
def test_the_canonical_frame_is_the_same_gathered_on_two_threads(monkeypatch, with_times):
    """Large files gather their columns on two threads: the frame is the same as one thread's, column for
    column (ties on time, empty times and a pass-through column included)."""
    import numpy as np

    from scoring.load import arrow_runs

    rng = np.random.default_rng(7)
    n = 3_000
    header = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,trial" + (
        ",finished_at" if with_times else "")
    lines = [header] + [
        f"r{i},agent-{rng.integers(0, 9)},t{rng.integers(0, 5)},{['completed', 'failed', 'timeout'][i % 3]},"
        f"{['true', 'false', ''][i % 3]},{'' if i % 11 == 0 else rng.integers(0, 9000)},{rng.integers(0, 99) / 100},"
        f"{i % 6},{i % 4}"
        + (f",{'' if i % 13 == 0 else f'2026-07-01T00:{rng.integers(0, 60):02d}:00Z'}" if with_times else "")
        for i in range(n)]
    data = ("\n".join(lines) + "\n").encode()
    monkeypatch.setattr(arrow_runs, "_GATHER_IN_THREADS_FROM", 10**12)
    serial = load_runs(data, name="runs.csv").runs
    monkeypatch.setattr(arrow_runs, "_GATHER_IN_THREADS_FROM", 0)
    threaded = load_runs(data, name="runs.csv").runs
    pd.testing.assert_frame_equal(threaded, serial)
    assert list(threaded.columns)[-1] == "trial" and threaded.attrs == serial.attrs


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6) | st.none()), min_size=1, max_size=400),
       st.sampled_from([1_000_000, 2**58, None]))
def test_the_bucketed_order_is_the_global_sorts(rows, unit):
    """Large files are ordered agent by agent (a radix sort by agent, then each agent's times, on two threads):
    the order, ties on time broken by run_id and empty times included, is the one sort of the whole key's
    (times 2^58 apart: too wide for one integer key, a sort by agent and time), or without finished_at the
    file's order."""
    import numpy as np

    from scoring.load import arrow_runs

    agents = np.array([a for a, _ in rows], dtype=np.int32)
    finished = None if unit is None else np.array([arrow_runs.NAT if t is None else unit * t for _, t in rows],
                                                  dtype=np.int64)
    run_id = pa.array([f"r{(i * 7919) % 1000:03d}-{i}" for i in range(len(rows))])
    position = np.arange(1, len(rows) + 1)
    orders = []
    for buckets_from, rows_per_agent in ((10**12, 256), (0, 0)):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(arrow_runs, "_BUCKETS_FROM", buckets_from)
            patch.setattr(arrow_runs, "_ROWS_PER_AGENT", rows_per_agent)
            orders.append(arrow_runs.canonical_order(agents, finished, position, run_id).tolist())
    assert orders[0] == orders[1]
    assert sorted(orders[0]) == list(range(len(rows)))


_TEXT_CELLS = st.lists(st.one_of(st.none(), st.text(alphabet=st.sampled_from(list(WHITESPACE) + list("ab-_0é€𝄞")),
                                                    max_size=4)), max_size=12)


@settings(max_examples=300, deadline=None)
@given(cells=_TEXT_CELLS, cut=st.integers(0, 3), block=st.sampled_from([1, 2, 3, 1 << 16]))
def test_a_text_column_is_trimmed_as_python_strips_whatever_the_shortcut_decides(cells, cut, block):
    """_trimmed_text keeps a column as it is only where no cell would change (_as_read): every cell equals
    Python's strip of WHITESPACE, an empty one missing, on slices and any block size."""
    from unittest import mock

    from scoring.load import arrow_runs

    values = pa.array(["  x"] * cut + cells, pa.string()).slice(cut)  # a slice: offsets not from 0
    expected = [None if c is None or not c.strip(WHITESPACE) else c.strip(WHITESPACE) for c in cells]
    with mock.patch.object(arrow_runs, "CELLS_AT_A_TIME", block):
        assert arrow_runs._trimmed_text(values).to_pylist() == expected
        if arrow_runs._as_read(values):
            assert expected == cells


def test_the_shortcut_keeps_a_clean_column_and_sends_each_kind_of_edge_to_the_trim():
    from scoring.load import arrow_runs

    clean = pa.array(["run-1", None, "é-x-é"[1:-1], "r 2"], pa.string())
    assert arrow_runs._as_read(clean) and arrow_runs._trimmed_text(clean) is clean  # no copy
    for edge in ("", " a", "a ", "\ta", "a\x1f", "\u3000a", "a\xa0", "é"):
        assert not arrow_runs._as_read(pa.array(["a", edge], pa.string())), repr(edge)
    assert not arrow_runs._as_read(pa.array(["a"], pa.large_string()))  # 64-bit offsets: the general path


# --------------------------------------------------------------------------- chunked columns
# A CSV that Arrow reads in blocks and a Parquet file of several row groups give chunked columns; the checks read
# them chunk by chunk (nothing is combined first). Whatever the cuts, each check says what it says of the same
# cells in one array.


def _cut(cells: list, cuts: list[int], type_: pa.DataType) -> pa.ChunkedArray:
    bounds = sorted({min(c, len(cells)) for c in cuts})
    edges = [0, *bounds, len(cells)]
    return pa.chunked_array([pa.array(cells[a:b], type_) for a, b in zip(edges, edges[1:])], type_)


def _plain(value):
    """A check's answer in a form compared with ==."""
    import numpy as np

    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        return ("arrow", value.type, value.to_pylist())
    if isinstance(value, pd.api.extensions.ExtensionArray):
        return ("pandas", list(value.astype(object)))
    if isinstance(value, np.ndarray):
        return ("numpy", value.dtype.str, value.tobytes())  # bit for bit: NaN equals NaN, -0.0 is not 0.0
    return value


_CHUNK_CELLS = {
    "id": IDS + ["", " ", "İ", "a\u3000"],
    "run_id": [f"r{i}" for i in range(6)] + ["run-000000000001", "run-000000000002", "x" * 33, "y" * 64, "z" * 65,
                                             " r0"],
    "status": STATUSES + ["done", "", " Completed "],
    "success": SUCCESS + ["maybe", "2", ""],
    "number": NUMBERS + BAD_NUMBERS + [""],
    "time": TIMES + BAD_TIMES + ["2026-07-01T00:00:00Z"] * 6 + ["", "2026-07-01 00:00:00Z"],
}


# The checks a column of any type reaches as read (the rest take text).
_TAKES_ANY_COLUMN = (arrow_runs.ids, arrow_runs.run_ids, arrow_runs.statuses, arrow_runs.outcomes,
                     arrow_runs.numbers, arrow_runs.timestamps)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), kind=st.sampled_from(sorted(_CHUNK_CELLS)),
       cuts=st.lists(st.integers(0, 12), max_size=4), block=st.sampled_from([1, 2, 1 << 16]))
def test_every_check_reads_a_chunked_column_as_the_same_cells_in_one_array(data, kind, cuts, block):
    from unittest import mock

    from scoring.load import arrow_runs

    cells = data.draw(st.lists(st.sampled_from([*_CHUNK_CELLS[kind], None]), max_size=12))
    chunked, whole = _cut(cells, cuts, pa.string()), pa.array(cells, pa.string())
    checks = {
        "id": [arrow_runs.ids, arrow_runs.run_ids, arrow_runs.has_duplicates, arrow_runs._fixed_width_hashes],
        "run_id": [arrow_runs.run_ids, arrow_runs.has_duplicates, arrow_runs._fixed_width_hashes],
        "status": [arrow_runs.statuses],
        "success": [arrow_runs.outcomes],
        "number": [arrow_runs.numbers, lambda c: arrow_runs.numbers(c, whole=True, below=1e6)],
        "time": [arrow_runs.timestamps, arrow_runs._every_cell_is_plain_utc],
    }[kind] + [arrow_runs._as_read, arrow_runs._trimmed_text]
    with mock.patch.object(arrow_runs, "CELLS_AT_A_TIME", block):
        for check in checks:  # a check never raises: it answers None for what it does not accept
            assert _plain(check(chunked)) == _plain(check(whole)), (check, cells, cuts)
        # Dictionary-encoded (Parquet text): each chunk with a dictionary of its own, or all sharing one.
        encoded = pa.chunked_array([c.dictionary_encode() for c in chunked.chunks], pa.dictionary(pa.int32(),
                                                                                                 pa.string()))
        shared = pa.table({"c": encoded}).unify_dictionaries().column("c")
        for check in [c for c in checks if c in _TAKES_ANY_COLUMN]:
            expected = _plain(check(whole.dictionary_encode()))
            assert _plain(check(encoded)) == expected and _plain(check(shared)) == expected, (check, cells, cuts)


def test_the_chunked_checks_see_a_problem_in_any_chunk():
    """By hand: one cell that needs the per-cell parser, in the last chunk of three, is seen."""
    from scoring.load import arrow_runs

    def three(cells: list[str]) -> pa.ChunkedArray:
        return pa.chunked_array([pa.array(cells[:2]), pa.array(cells[2:3]), pa.array(cells[3:])])

    plain = ["2026-07-01T00:00:00Z"] * 4
    assert arrow_runs._every_cell_is_plain_utc(three(plain))
    assert not arrow_runs._every_cell_is_plain_utc(three(plain[:3] + ["2026-07-01 00:00:00Z"]))
    assert arrow_runs._as_read(three(["a", "b", "c", "d"])) and not arrow_runs._as_read(three(["a", "b", "c", "d "]))
    assert arrow_runs.has_duplicates(three(["a", "b", "c", "a"])) and not arrow_runs.has_duplicates(
        three(["a", "b", "c", "d"]))
    assert arrow_runs.numbers(three(["1", "2", "3", "-4"])) is None
    assert arrow_runs.ids(three(["b", "a", "c", "a"]))[1] == ["a", "b", "c"]
    assert arrow_runs.ids(three(["b", "a", "c", "a"]))[0].tolist() == [1, 0, 2, 0]
    hashes = arrow_runs._fixed_width_hashes(three(["a", "b", "c", "d"]))
    assert hashes.tolist() == arrow_runs._fixed_width_hashes(pa.array(["a", "b", "c", "d"])).tolist()


def test_a_dictionary_column_without_rows_has_no_ids():
    """No row uses any entry of the dictionary (a table sliced to nothing): no codes, no names, no error."""
    from scoring.load import arrow_runs

    empty = pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array(["a", "completed"]))
    for column in (empty, pa.chunked_array([empty, empty]), pa.array(["a"]).dictionary_encode().slice(0, 0)):
        codes, names = arrow_runs.ids(column)
        assert codes.tolist() == [] and names == []
        assert arrow_runs.statuses(column).tolist() == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(bad=True), st.integers(1, 6))
def test_a_parquet_file_of_row_groups_of_any_size_reads_as_one_group(rows, group_size):
    """End to end: the row groups stay chunks of the columns the checks read; the report, the frame and any
    refusal are those of the same rows in one group."""
    made = files(rows)
    grouped = io.BytesIO()
    pq.write_table(pq.read_table(io.BytesIO(made["x.parquet"])), grouped, row_group_size=group_size)
    got, reference = outcome(grouped.getvalue(), "x.parquet"), outcome(made["x.parquet"], "x.parquet")
    assert got[:2] == reference[:2]
    if got[0] == "scored":
        pd.testing.assert_frame_equal(got[2], reference[2])


def test_a_parquet_file_of_thousands_of_one_row_groups_is_read_in_one_call(monkeypatch):
    """A stranger's file of one-row groups (50,000 of them: 35 s of CPU and 1.7 GB read one group a call) is read
    a batch of groups at a time: here in one call, the same report and frame as one group."""
    import pyarrow.parquet as pq_module

    rows = [[f"r{i}", f"a{i % 7}", f"t{i % 3}", "completed", "true", "1", "0.5", "2", "2026-07-01T00:00:00Z"]
            for i in range(2_000)]
    one_group = files(rows)["x.parquet"]
    tiny = io.BytesIO()
    pq.write_table(pq.read_table(io.BytesIO(one_group)), tiny, row_group_size=1)
    assert pq.ParquetFile(io.BytesIO(tiny.getvalue())).metadata.num_row_groups == 2_000
    calls = []
    original = pq_module.ParquetFile.read_row_groups
    monkeypatch.setattr(pq_module.ParquetFile, "read_row_groups",
                        lambda self, groups, **kw: calls.append(len(groups)) or original(self, groups, **kw))
    got, reference = outcome(tiny.getvalue(), "x.parquet"), outcome(one_group, "x.parquet")
    assert calls == [2_000, 1]  # the tiny file's 2,000 groups in one batch, then the reference's one group
    assert got[:2] == reference[:2] and got[0] == "scored"
    pd.testing.assert_frame_equal(got[2], reference[2])


@pytest.mark.parametrize("with_times", [True, False])
def test_a_table_read_whole_gives_each_run_its_file_row_without_an_array_of_rows(monkeypatch, with_times):
    """A CSV or Parquet table read whole numbers its records by position (Columns.rows is None, no array of 8 bytes
    a run): each run's source_row is still its record's row, after the canonical order and after invalid rows are
    excluded, and a refusal names the row. Hand-worked: r3 is invalid; agent a's newest is r4, then r1."""
    header = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd" + (",finished_at" if with_times else "")
    records = [("r1", "a", "true"), ("r2", "b", "true"), ("r3", "a", "maybe"), ("r4", "a", "false"),
               ("r5", "b", "true")]
    lines = [f"{r},{agent},t{i},completed,{ok},1,0.1" + (f",2026-01-01T00:00:0{i}Z" if with_times else "")
             for i, (r, agent, ok) in enumerate(records, start=1)]
    data = "\n".join([header, *lines]).encode()
    made: list[np.ndarray | None] = []
    checked = arrow_runs.Columns.take

    def take(self, keep):  # the columns the checks built, before the exclusion
        made.append(self.rows)
        return checked(self, keep)

    monkeypatch.setattr(arrow_runs.Columns, "take", take)
    runs = load_runs(data, name="runs.csv", exclude_invalid=True).runs
    assert made == [None]  # read whole: no array of rows was made
    assert runs["run_id"].tolist() == ["r4", "r1", "r5", "r2"] and runs["source_row"].tolist() == [4, 1, 5, 2]
    assert runs["source_row"].dtype == "int64"
    with pytest.raises(RunsValidationError) as refused:
        load_runs(data, name="runs.csv")
    assert [p.row for p in refused.value.problems] == [3]
