"""JSON and JSON Lines runs gathered into columns as they are read (runs._RecordColumns): the frame, the problems and
the refusals are those of the records held as dicts and handed to ``pd.DataFrame.from_records`` (the reader before
2026-12-06, kept here as the reference), for any records; and a JSON Lines file is told from a harness's JSON by
its first line alone."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RunsValidationError, load_runs
from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.contract.safejson import object_noting_repeats, repeated_keys, too_deep
from scoring.contract.schema import REQUIRED_COLUMNS, Reason
from scoring.load.importers import detect, import_file
from scoring.load.runs import (
    NotFinite,
    _file_problem,
    _preview,
    _RecordColumns,
    _records_frame,
    _Structural,
    _with_header,
)


def _reference(records: list, rows: np.ndarray, limits: Limits) -> tuple:
    """The reader before: every record held, then one from_records."""
    problems = _Structural()
    bad = {i for i, r in enumerate(records) if not isinstance(r, dict)}
    for i in sorted(bad):
        problems.add(int(rows[i]), _preview(records[i]), Reason.NOT_AN_OBJECT)
    for i, r in enumerate(records):
        for key in repeated_keys(r):
            problems.add(int(rows[i]), key, Reason.DUPLICATE_COLUMN, first=key, second=key, name=key)
    clean = [{} if i in bad else r for i, r in enumerate(records)]
    keys = set().union(*clean) if clean else set()
    if len(keys) > limits.max_columns:
        raise _file_problem(f"the runs have {len(keys):,} distinct keys, more than the limit of "
                            f"{limits.max_columns:,} columns")
    frame = (pd.DataFrame.from_records(clean, index=pd.RangeIndex(len(clean))) if clean
             else pd.DataFrame(columns=list(REQUIRED_COLUMNS)))
    return _with_header(frame, [str(c) for c in frame.columns]), rows, problems


_KEYS = st.sampled_from(["run_id", "agent_id", "Agent ID", "task_id", "status", "success", "latency_ms",
                         "cost_usd", "steps", "note"])
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(2**53, 2**66), st.floats(allow_nan=True),
    st.text(max_size=4), st.binary(max_size=3), st.builds(NotFinite, st.sampled_from(["NaN", "Infinity"])),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))


@st.composite
def _records(draw):
    out = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 9))
        if kind == 0:  # not an object
            out.append(draw(st.one_of(st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2))))
            continue
        pairs = draw(st.lists(st.tuples(_KEYS, _VALUES), max_size=6))
        if kind == 1 and pairs:  # a key given twice, as the JSON decoder hands it over
            pairs.append((pairs[0][0], draw(_VALUES)))
        out.append(object_noting_repeats(pairs))
    return out


def _cells(frame: pd.DataFrame) -> list:
    return [(str(c), str(frame[c].dtype), repr(list(frame[c]))) for c in frame.columns]


def _outcome(read, records: list, rows: np.ndarray, limits: Limits) -> tuple:
    try:
        frame, numbers, problems = read(list(records), rows, limits)
    except RunsValidationError as error:
        return "refused", [(p.row, p.column, p.value, p.reason) for p in error.problems]
    return ("read", _cells(frame), list(frame.index), list(numbers), str(numbers.dtype),
            [(p.row, p.column, p.value, p.reason) for p in problems.problems], problems.rows)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_records(), st.integers(1, 12))
def test_records_gathered_into_columns_give_the_frame_from_records_gives(records, max_columns):
    limits = Limits(max_columns=max_columns)
    rows = np.arange(3, 3 + 2 * len(records), 2)  # row numbers that are not positions, as in JSON Lines (int64)
    assert _outcome(lambda r, n, lim: _records_frame(r, n, _Structural(), lim), records, rows, limits) == \
        _outcome(_reference, records, rows, limits)


def test_records_in_blocks_of_key_orders_keep_the_first_order_of_each_key():
    columns = _RecordColumns(_Structural(), DEFAULT_LIMITS)
    for row, record in enumerate([{"b": 1, "a": "x"}, {"b": 2, "a": "y"}, {"a": "z", "c": 3.5}, 7, {}], start=1):
        columns.add(record, row)
    assert [(key, len(values)) for key, values in columns.blocks] == [(("b", "a"), 2), (("a", "c"), 1), ((), 2)]
    frame, rows, problems = columns.frame()
    assert list(frame.columns) == ["b", "a", "c"] and list(rows) == [1, 2, 3, 4, 5]
    assert repr(list(frame["b"])) == "[1.0, 2.0, nan, nan, nan]" and list(frame["a"])[:3] == ["x", "y", "z"]
    assert [(p.row, p.reason) for p in problems.problems] == [(4, Reason.NOT_AN_OBJECT.text())]
    assert columns.blocks == []  # each block let go as its columns were built


def _line(run: int, **extra) -> str:
    return json.dumps({"run_id": f"r{run}", "agent_id": "a", "task_id": "t", "status": "completed",
                       "success": True, "latency_ms": 1000, "cost_usd": 0.01, **extra})


def test_a_json_lines_file_is_told_by_its_first_line_and_read_as_runs():
    text = "\n".join(_line(i) for i in range(1, 4)) + "\n"
    assert detect(text.encode(), "runs.jsonl") == "runs"
    assert detect(text.encode(), "runs.json") == "runs"  # the name does not matter: the content does
    pretty = json.dumps([{"task_id": 3, "reward": 1.0, "info": {}, "traj": [], "trial": 0}], indent=1)
    assert detect(pretty.encode(), "r.json") == "tau-bench"  # over several lines: the whole document is read
    assert detect(json.dumps(json.loads(pretty)).encode() + b"\n", "r.json") == "tau-bench"  # one line, nothing after


def test_a_json_lines_record_repeating_a_key_is_refused_by_its_row_whichever_line_it_is():
    """Before, a first line repeating a key was read as a harness file's JSON and the whole file refused ("an
    object gives the key ... more than once"); a later line was refused by its row. Now both by their row."""
    for at in (0, 2):
        lines = [_line(i) for i in range(1, 4)]
        lines[at] = lines[at][:-1] + ', "status": "failed"}'
        data = ("\n".join(lines) + "\n").encode()
        assert detect(data, "runs.jsonl") == "runs"
        with pytest.raises(RunsValidationError) as info:
            load_runs(data, name="runs.jsonl")
        assert [(p.row, p.value, p.code) for p in info.value.problems] == [(at + 1, "status", "duplicate_column")]


def test_a_runs_array_is_told_by_its_first_element_and_parsed_once(monkeypatch):
    """A JSON array of runs was parsed whole to be told from a tau-bench file, then again by the runs loader
    (500,000 runs: 7.6-8.3 s and 1.61 GB, now 4.2-4.5 s and 724 MB); its first element alone tells it now."""
    import scoring.load.importers.api as api

    runs = "[\n" + ",\n".join(_line(i) for i in range(1, 4)) + "\n]\n"
    parsed: list[str] = []
    real = api.parse_json
    monkeypatch.setattr(api, "parse_json", lambda data, name, limits: (parsed.append(name), real(data, name,
                                                                                                  limits))[1])
    assert detect(runs.encode(), "runs.json") == "runs" and parsed == []
    taubench = json.dumps([{"task_id": 3, "reward": 1.0, "info": {}, "traj": [], "trial": 0}])
    assert detect(taubench.encode(), "r.json") == "tau-bench" and parsed == ["r.json"]
    late = json.dumps([1, {"task_id": 3, "reward": 1.0, "info": {}, "traj": [], "trial": 0}])
    assert detect(late.encode(), "late.json") == "tau-bench"  # the first object is not the first element: parsed


def test_a_runs_array_record_repeating_a_key_is_refused_by_its_row():
    records = [_line(i) for i in range(1, 3)]
    records[0] = records[0][:-1] + ', "status": "failed"}'
    data = ("[" + ",\n".join(records) + "]").encode()
    assert detect(data, "runs.json") == "runs"
    with pytest.raises(RunsValidationError) as info:
        load_runs(data, name="runs.json")
    assert [(p.row, p.value, p.code) for p in info.value.problems] == [(1, "status", "duplicate_column")]


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize(("name", "wrap", "outer"), [("runs.jsonl", "lines", 0), ("runs.json", "array", 1),
                                                     ("runs.json", "object", 2)])
def test_a_record_nesting_past_the_limit_is_refused_by_its_row_naming_both_numbers(name, wrap, outer):
    """A reviewer's differential fuzz: once detection stopped parsing a runs file whole, nothing counted its nesting
    (max_json_depth, 64, counts the whole document, as a harness's file is counted): a record 65-989 levels deep was
    scored. Now each such record is refused by its row, its deepest value's column named; one level less passes."""
    limit = DEFAULT_LIMITS.max_json_depth
    for levels, refused in ((limit - 1 - outer, False), (limit - outer, True)):
        lines = [_line(1), _line(2, extra=json.loads(_deep(levels)))]
        data = ("\n".join(lines) + "\n" if wrap == "lines" else "[" + ",".join(lines) + "]" if wrap == "array"
                else '{"runs": [' + ",".join(lines) + "]}").encode()
        if not refused:
            assert load_runs(data, name=name).rows_read == 2
            continue
        with pytest.raises(RunsValidationError) as info:
            load_runs(data, name=name)
        assert [(p.row, p.column, p.code, p.reason) for p in info.value.problems] == [
            (2, "extra", "nested_too_deep",
             f"not a run: it nests {limit + 1} levels deep, more than the limit of {limit} (max_json_depth)")]


def test_json_past_the_parser_or_around_the_runs_is_refused_as_a_file_with_its_depth():
    deep = '[{"run_id": "r1", "x": ' + _deep(3_000) + "}]"
    with pytest.raises(RunsValidationError) as info:
        load_runs(deep.encode(), name="deep.json")
    assert info.value.problems[0].reason == too_deep(3002, 64)
    around = '{"meta": ' + _deep(70) + ', "runs": [' + _line(1) + "]}"
    with pytest.raises(RunsValidationError) as info:
        load_runs(around.encode(), name="around.json")
    assert info.value.problems[0].reason == too_deep(71, 64)
    line = _line(2)[:-1] + ', "x": ' + _deep(3_000) + "}"
    with pytest.raises(RunsValidationError) as info:
        load_runs((_line(1) + "\n" + line + "\n").encode(), name="deep.jsonl")
    assert [(p.row, p.code) for p in info.value.problems] == [(2, "nested_too_deep")]
    assert "it nests 3001 levels deep" in info.value.problems[0].reason


def test_records_alternating_key_orders_keep_every_value_in_its_row():
    """A reviewer's file (20,000 records alternating two key orders, one record of 990 more keys) took 2.3x the
    reader before, as every block padded every column (its time is in docs/measurements.md, no test times it); a
    column is now padded only when it next gets values, and at the end."""
    columns = _RecordColumns(_Structural(), DEFAULT_LIMITS)
    wide = {f"k{i}": i for i in range(50)}
    records = [wide] + [({"a": i, "b": -i} if i % 2 else {"b": -i, "a": i}) for i in range(1, 2_001)] + [wide]
    for row, record in enumerate(records, start=1):
        columns.add(record, row)
    assert len(columns.blocks) == 2_002
    frame, _, _ = columns.frame()
    assert frame.shape == (2_002, 52) and list(frame.columns[:2]) == ["k0", "k1"]
    assert list(frame["k7"].iloc[[0, -1]]) == [7, 7] and frame["k7"].iloc[1:-1].isna().all()
    assert list(frame["a"].iloc[1:-1]) == list(range(1, 2_001))
    assert list(frame["b"].iloc[1:-1]) == [-i for i in range(1, 2_001)]
    assert frame["a"].iloc[[0, -1]].isna().all()


def test_a_runs_object_is_told_by_the_runs_loaders_parse_and_a_repeated_key_refused_by_its_row(monkeypatch):
    """{"runs": [...]} was parsed whole by the harness's parse to be told from a harness's object (500,000 runs:
    8.3-8.6 s and 1,610 MB, now 5.9-6.0 s and 733 MB), which refused a record repeating a key as the whole file ("an
    object gives the key ... more than once"); now that record is refused by its row, as in an array."""
    import scoring.load.importers.api as api

    records = [_line(i) for i in range(1, 3)]
    parsed: list[str] = []
    real = api.parse_json
    monkeypatch.setattr(api, "parse_json", lambda data, name, limits: (parsed.append(name), real(data, name,
                                                                                                  limits))[1])
    plain = ('{"runs": [' + ",\n".join(records) + "]}").encode()
    assert detect(plain, "runs.json") == "runs" and parsed == []
    assert len(import_file(plain, "runs.json").validate().runs) == 2
    repeated = ('{"runs": [' + records[0][:-1] + ', "status": "failed"},\n' + records[1] + "]}").encode()
    with pytest.raises(RunsValidationError) as info:
        import_file(repeated, "runs.json").validate()
    assert [(p.row, p.value, p.code) for p in info.value.problems] == [(1, "status", "duplicate_column")]
    # Every top-level key still counts: an object that also holds tau2's simulations is read as tau2
    assert detect(('{"runs": [' + records[1] + '], "simulations": []}').encode(), "x.json") == "tau2"
    twice = ('{"runs": [' + records[1] + '], "runs": []}').encode()  # refused as a file, in the loader's words
    with pytest.raises(RunsValidationError, match='the object gives "runs" more than once'):
        import_file(twice, "runs.json").validate()
