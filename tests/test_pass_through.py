"""Pass-through columns (docs/schema.md): trial, epoch, seed and tokens per run, kept, validated, shown, never scored.

Every reader keeps them (CSV through Arrow or cell by cell, JSON, JSON Lines, Parquet, the importers), the
validators and the SQL engine refuse the same bad values with the same codes, and no score changes when they
are added (SPEC's formulas read none of them).
"""

import io
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RunsValidationError, load_runs, score_runs
from scoring.analysis.drilldown import runs_csv, runs_view
from scoring.contract.schema import PASS_THROUGH_COLUMNS
from scoring.engines.sql_engine import score_file_sql
from scoring.load.importers import import_file
from tests.helpers import REQUIRED_HEADER, assert_same_report, run_tables

ROOT = Path(__file__).resolve().parents[1]
EXTRA = ",trial,epoch,seed,input_tokens,output_tokens"
ROWS = ["r1,a,t1,completed,true,10,0.1,0,1,863145,42224,512",
        "r2,a,t1,completed,false,12,0.2,1,2,,1000,",
        "r3,b,t1,failed,,,,2,,7,,"]
GOOD = REQUIRED_HEADER + EXTRA + "\n" + "\n".join(ROWS) + "\n"
EXPECTED = {"r1": [0, 1, 863145, 42224, 512], "r2": [1, 2, None, 1000, None], "r3": [2, None, 7, None, None]}


def _kept(runs: pd.DataFrame) -> dict:
    assert all(str(runs[c].dtype) == "Int64" for c in PASS_THROUGH_COLUMNS)
    return {r: [None if pd.isna(v) else int(v) for v in values]
            for r, *values in runs[["run_id", *PASS_THROUGH_COLUMNS]].itertuples(index=False)}


def _as_json_records() -> list[dict]:
    header = (REQUIRED_HEADER + EXTRA).split(",")
    out = []
    for line in ROWS:
        record = {}
        for key, cell in zip(header, line.split(",")):
            record[key] = None if cell == "" else int(cell) if key in PASS_THROUGH_COLUMNS else cell
        out.append(record)
    return out


def test_every_format_keeps_the_columns_as_whole_numbers():
    records = _as_json_records()
    table = pa.Table.from_pylist(records)
    parquet = io.BytesIO()
    pq.write_table(table, parquet)
    sources = {
        "arrow.csv": GOOD.encode(),
        "text.csv": ("\ufeff" + GOOD).encode("utf-16"),  # a UTF-16 file is read cell by cell
        "runs.json": json.dumps(records).encode(),
        "runs.jsonl": "\n".join(json.dumps(r) for r in records).encode(),
        "runs.parquet": parquet.getvalue(),
    }
    for name, data in sources.items():
        assert _kept(load_runs(data, name=name).runs) == EXPECTED, name


def test_headers_are_forgiving_and_the_columns_come_after_the_canonical_ones():
    runs = load_runs(GOOD.replace(",input_tokens,", ",Input Tokens,").encode(), name="x.csv").runs
    assert list(runs.columns)[-6:] == ["source_row", *PASS_THROUGH_COLUMNS]
    without = load_runs((REQUIRED_HEADER + "\nr1,a,t1,completed,true,1,1\n").encode(), name="y.csv").runs
    assert not set(PASS_THROUGH_COLUMNS) & set(without.columns)


def _refusals(path: Path) -> list[list[tuple]]:
    """(row, column, code) of each problem, sorted, by the pandas engine and by DuckDB."""
    found = []
    for score in (lambda: load_runs(path), lambda: score_file_sql(path)):
        with pytest.raises(RunsValidationError) as refused:
            score()
        found.append(sorted((p.row, p.column, p.code) for p in refused.value.problems))
    return found


BAD = GOOD.replace("r2,a,t1,completed,false,12,0.2,1,", "r2,a,t1,completed,false,12,0.2,1.5,").replace(
    "r3,b,t1,failed,,,,2,,7,,", "r3,b,t1,failed,,,,-2,inf,x,,1e3")


def test_bad_values_are_refused_by_every_engine_alike(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(BAD)
    found = _refusals(path)
    assert found[0] == found[1] == [(2, "trial", "not_whole"), (3, "epoch", "not_finite"),
                                    (3, "seed", "not_a_number"), (3, "trial", "negative")]
    with pytest.raises(RunsValidationError) as refused:
        load_runs(path)
    report = refused.value.report()
    assert "row 2 (line 3), column 'trial', value '1.5': not a whole number [not_whole]" in report
    assert "row 3 (line 4), column 'seed', value 'x': not a number [not_a_number]" in report
    # 1e3 output tokens is a whole number; the bad rows can be excluded, and are counted
    kept = load_runs(path, exclude_invalid=True)
    assert kept.excluded_rows == 2 and _kept(kept.runs) == {"r1": EXPECTED["r1"]}


def test_typed_parquet_values_are_checked_too(tmp_path):
    table = pa.table({"run_id": ["r1", "r2"], "agent_id": ["a", "a"], "task_id": ["t", "t"],
                      "status": ["completed"] * 2, "success": [True, False], "latency_ms": [1.0, 2.0],
                      "cost_usd": [0.1, 0.2], "trial": pa.array([0, -1], pa.int64()), "seed": pa.array([None, 5.5])})
    path = tmp_path / "typed.parquet"
    pq.write_table(table, path)
    found = _refusals(path)
    assert found[0] == found[1] == [(2, "seed", "not_whole"), (2, "trial", "negative")]


# Built once: a strategy built at each draw is validated again each time (the draws are the same).
PASS_THROUGH_VALUE = st.one_of(st.none(), st.integers(0, 2**40))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_tables(min_size=1, max_size=30), st.data())
def test_no_score_reads_them_in_any_engine(tmp_path_factory, rows, data):
    plain = tmp_path_factory.mktemp("plain") / "runs.json"
    plain.write_text(json.dumps(rows))
    extra_rows = [{**r, **{c: data.draw(PASS_THROUGH_VALUE, label=c)
                           for c in PASS_THROUGH_COLUMNS}} for r in rows]
    extra = tmp_path_factory.mktemp("extra") / "runs.csv"
    pd.DataFrame(extra_rows).astype(dict.fromkeys(PASS_THROUGH_COLUMNS, "Int64")).to_csv(extra, index=False)
    canonical = json.loads(score_runs(load_runs(plain).runs).to_json_text())
    assert_same_report(json.loads(score_runs(load_runs(extra).runs).to_json_text()), canonical)
    assert_same_report(json.loads(score_file_sql(extra).to_json_text()), canonical)


def test_the_runs_view_and_its_download_carry_them():
    from explorer import tables

    runs = load_runs(GOOD.encode(), name="x.csv").runs
    view = runs_view(runs)
    shown = tables.runs_table(view)
    assert {"Trial", "Epoch", "Seed", "Input tokens", "Output tokens"} <= set(shown.columns)
    assert list(shown.columns).index("Trial") == list(shown.columns).index("Finished (UTC)") + 1
    downloaded = pd.read_csv(io.StringIO(runs_csv(view)))
    assert downloaded.set_index("run_id").loc["r1", "seed"] == 863145
    assert tables.pass_through_formats()["Input tokens"](42224) == "42,224"


# --------------------------------------------------------------------------- what the importers keep


def test_tau2_keeps_each_simulations_trial_and_seed():
    path = next((ROOT / "tests" / "fixtures" / "tau2").glob("*grok-3_user*.json"))
    doc = json.loads(path.read_text())
    imported = import_file(path)
    runs = imported.validate().runs.set_index("run_id")
    for sim in doc["simulations"]:
        assert (runs.loc[sim["id"], "trial"], runs.loc[sim["id"], "seed"]) == (sim["trial"], sim["seed"])
    mapped = imported.report.to_json()["files"][0]["mapped"]
    assert "pass-through" in mapped["trial"] and "pass-through" in mapped["seed"]


def test_terminal_bench_keeps_the_attempt_and_tokens():
    path = ROOT / "tests" / "fixtures" / "terminal-bench" / "five-attempts" / "results.json"
    doc = json.loads(path.read_text())
    runs = import_file(path).validate().runs.set_index("run_id")
    for trial in doc["results"]:
        attempt = int(trial["trial_name"].split(".")[1].split("-of-")[0])
        row = runs.loc[trial["trial_name"]]
        assert row["trial"] == attempt and row["input_tokens"] == trial["total_input_tokens"]
    assert sorted(runs["trial"].unique()) == [1, 2, 3, 4, 5]


def test_taubench_keeps_the_trial():
    path = ROOT / "tests" / "fixtures" / "tau-bench" / "sonnet-retail.json"
    results = json.loads(path.read_text())
    runs = import_file(path).validate().runs
    assert sorted(runs["trial"].tolist()) == sorted(r["trial"] for r in results)


def test_inspect_keeps_the_epoch_and_tokens():
    from inspect_ai.log import read_eval_log

    path = ROOT / "tests" / "fixtures" / "inspect" / "probe.eval"
    log = read_eval_log(str(path))
    runs = import_file(path).validate().runs.set_index("run_id")
    for sample in log.samples:
        row = runs.loc[f"{log.eval.run_id}:{sample.id}:{sample.epoch}"]
        assert row["epoch"] == sample.epoch
        usage = list(sample.model_usage.values())
        if usage:
            assert row["input_tokens"] == sum(u.input_tokens for u in usage)


def test_a_harness_value_that_is_not_a_number_is_refused_with_its_place(tmp_path):
    path = next((ROOT / "tests" / "fixtures" / "tau2").glob("*grok-3_user*.json"))
    doc = json.loads(path.read_text())
    doc["simulations"][2]["seed"] = "lucky"
    with pytest.raises(RunsValidationError) as refused:
        import_file(json.dumps(doc).encode(), "seeded.json").validate()
    (problem,) = refused.value.problems
    assert (problem.row, problem.column, problem.code, problem.value) == (3, "seed", "not_a_number", "lucky")
    assert "seeded.json: simulation 3" in problem.reason


def test_parquet_int64_above_2_53_is_read_as_the_csv_path_reads_it(tmp_path):
    # An int64 seed or latency_ms above 2^53 has no exact double: every path keeps the nearest double
    # (docs/schema.md); Arrow's checked cast used to raise ArrowInvalid from the pandas engine.
    big_seed, big_latency = 2**62 + 1, 2**60 + 1
    table = pa.table({"run_id": ["r1", "r2", "r3"], "agent_id": ["a", "a", "b"], "task_id": ["t1", "t2", "t1"],
                      "status": ["completed"] * 3, "success": [True, False, True],
                      "latency_ms": pa.array([big_latency, 5, None], type=pa.int64()),
                      "cost_usd": [0.01, 0.02, 0.03],
                      "seed": pa.array([big_seed, 7, None], type=pa.int64())})
    parquet, csv = tmp_path / "big.parquet", tmp_path / "big.csv"
    pq.write_table(table, parquet)
    csv.write_text(REQUIRED_HEADER + ",seed\n" + f"r1,a,t1,completed,true,{big_latency},0.01,{big_seed}\n"
                   "r2,a,t2,completed,false,5,0.02,7\nr3,b,t1,completed,true,,0.03,\n")
    from_parquet, from_csv = load_runs(parquet).runs, load_runs(csv).runs
    pd.testing.assert_frame_equal(from_parquet, from_csv)
    by_run = from_parquet.set_index("run_id")
    assert by_run.loc["r1", "seed"] == int(float(big_seed)) == 2**62  # the nearest double
    assert by_run.loc["r1", "latency_ms"] == float(big_latency) == 2.0**60
    pandas_doc = json.loads(score_runs(from_parquet).to_json_text())
    assert_same_report(json.loads(score_file_sql(parquet).to_json_text()), pandas_doc)
    assert_same_report(json.loads(score_file_sql(csv).to_json_text()), pandas_doc)
    assert pandas_doc == json.loads(score_runs(from_csv).to_json_text())


BELOW_2_63 = 2**63 - 1024  # the largest double below 2^63: kept, exactly
TOO_LARGE_CSV = (REQUIRED_HEADER + ",seed,input_tokens\n"
                 "r1,a,t1,completed,true,10,0.1,100000000000000000000,\n"
                 "r2,a,t1,completed,false,12,0.2,9223372036854775807,\n"  # 2^63 - 1 reads as the double 2^63
                 f"r3,b,t1,completed,true,11,0.3,{BELOW_2_63},5\n"
                 "r4,b,t1,completed,true,11,0.3,3,1e19\n")


def test_a_value_of_2_63_or_more_is_refused_by_every_engine_not_wrapped_to_a_negative(tmp_path):
    # Kept as a 64-bit integer, 10^20 used to become -9223372036854775808 on the Runs page.
    path = tmp_path / "big.csv"
    path.write_text(TOO_LARGE_CSV)
    expected = [(1, "seed", "too_large"), (2, "seed", "too_large"), (4, "input_tokens", "too_large")]
    utf16 = tmp_path / "big16.csv"
    utf16.write_bytes(("\ufeff" + TOO_LARGE_CSV).encode("utf-16"))  # read cell by cell
    for score in (lambda: load_runs(path), lambda: load_runs(utf16), lambda: score_file_sql(path)):
        with pytest.raises(RunsValidationError) as refused:
            score()
        assert sorted((p.row, p.column, p.code) for p in refused.value.problems) == expected
        assert "too large; must be below 2^63" in refused.value.problems[0].reason
    kept = load_runs(path, exclude_invalid=True).runs
    assert kept[["run_id", "seed", "input_tokens"]].values.tolist() == [["r3", BELOW_2_63, 5]]


def test_a_typed_parquet_value_of_2_63_or_more_is_refused_by_every_engine(tmp_path):
    table = pa.table({"run_id": ["r1", "r2", "r3", "r4"], "agent_id": ["a"] * 4, "task_id": ["t"] * 4,
                      "status": ["completed"] * 4, "success": [True, False, True, True],
                      "latency_ms": [1.0, 2.0, 3.0, 4.0], "cost_usd": [0.1, 0.2, 0.3, 0.4],
                      "seed": pa.array([2**63 - 1, BELOW_2_63, None, 7], pa.int64()),
                      "trial": pa.array([1, 2, 2**64 - 1, 3], pa.uint64()),
                      "input_tokens": pa.array([1.0, 2.0, 3.0, 1e20])})
    path = tmp_path / "typed.parquet"
    pq.write_table(table, path)
    found = _refusals(path)
    assert found[0] == found[1] == [(1, "seed", "too_large"), (3, "trial", "too_large"),
                                    (4, "input_tokens", "too_large")]
    assert load_runs(path, exclude_invalid=True).runs["seed"].tolist() == [BELOW_2_63]
