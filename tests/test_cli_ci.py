"""The command line as a vendor's CI runs it (a reviewer's findings, 2026-12-06; each test failed before its fix):
output that cannot be written exits 2 with a line on stderr, never 1 ("worse", "does not reproduce") with a
traceback; bootstrap options are checked before any input is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *args], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                          timeout=120, **kwargs)


@pytest.mark.parametrize("args", [("report", str(SAMPLE)),
                                  ("diff", str(SAMPLE), str(SAMPLE), "--fail-on-drop", "1", "--format", "markdown"),
                                  ("sample",)], ids=["report", "diff", "sample"])
def test_a_full_disk_exits_2_with_a_line_not_1_with_a_traceback(args):
    with open("/dev/full", "w") as full:
        done = _run(*args, stdout=full)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "cannot write the output: No space left on device"


def test_stdout_closed_exits_2_with_a_line():
    done = _run("report", str(SAMPLE), stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "cannot write the output: stdout is closed"


def test_a_pipe_closed_by_its_reader_is_no_error():
    head = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    done = _run("report", str(SAMPLE), stdout=head.stdin)
    head.stdin.close()
    head.wait(timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "Exception" not in done.stderr, done.stderr


@pytest.mark.parametrize("args, said", [
    (("--intervals", "--replicates", "0"), "--replicates: must be from 1 to 100,000, got 0"),
    (("--intervals", "--replicates", "100000000"), "--replicates: must be from 1 to 100,000, got 100,000,000"),
    (("--intervals", "--seed", "-1"), "--seed: must be from 0 to"),
    (("--replicates", "50"), "--replicates and --seed set the bootstrap of --intervals: add --intervals"),
])
def test_report_checks_the_bootstrap_options_before_reading(args, said):
    done = scoring_cli("report", SAMPLE, *args)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not done.stdout


@pytest.mark.parametrize("name", ["runs.json", "runs.jsonl", "runs"])
def test_the_sql_engine_names_the_format_it_does_not_read(name, tmp_path):
    """A JSON runs file was read as a CSV by --engine sql (its header checked first), refused as a "duplicate
    column" made of JSON text."""
    path = tmp_path / name
    path.write_text('[{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed", "success": true, '
                    '"latency_ms": 1, "cost_usd": 0.01}, {"run_id": "r2", "agent_id": "a", "task_id": "t", '
                    '"status": "completed", "success": true, "latency_ms": 1, "cost_usd": 0.01}]\n')
    done = scoring_cli("report", path, "--engine", "sql", "--from", "runs")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "the SQL engine reads Parquet and CSV files; use the pandas engine for " in done.stderr, done.stderr
    assert "duplicate column" not in done.stderr


def test_the_csv_report_carries_the_jsons_flag_codes_and_true_false():
    """SPEC 6's flags are stable codes: the CSV had their words ("zero-success floor") and pandas' True/False, so
    a script grepping the flags read different strings from the two formats."""
    import csv
    import io
    import json

    doc = json.loads(scoring_cli("report", SAMPLE).stdout)
    rows = list(csv.DictReader(io.StringIO(scoring_cli("report", SAMPLE, "--format", "csv").stdout)))
    assert [r["agent_id"] for r in rows] == [a["agent_id"] for a in doc["agents"]]
    for row, agent in zip(rows, doc["agents"]):
        assert row["flags"] == "; ".join(agent["headline"]["flags"])
        for field in ("consistency_neutral", "zero_success_floor"):
            assert row[f"headline_{field}"] == json.dumps(agent["headline"][field])
    assert {"zero_success_floor", "neutral_consistency"} <= {r["flags"] for r in rows}


@pytest.mark.parametrize("extra", [(), ("--engine", "sql"), ("--from", "tau2")], ids=["loader", "sql", "import"])
def test_a_named_pipe_is_refused_not_waited_on(extra, tmp_path):
    """A FIFO's size says nothing and reading it waits for a writer: the command hung for ever (a reviewer's
    `mkfifo`, 2026-12-06). Refused in words, never opened (no writer here: a hang would be the timeout)."""
    pipe = tmp_path / "runs.csv"
    os.mkfifo(pipe)
    done = _run("report", str(pipe), *extra, stdout=subprocess.PIPE)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "is a named pipe (FIFO), not a file: give the file itself" in done.stderr, done.stderr


def test_a_pipe_inside_a_tau2_folder_is_refused_not_waited_on(tmp_path):
    folder = tmp_path / "results"
    (folder / "simulations").mkdir(parents=True)
    (folder / "results.json").write_text('{"info": {}, "tasks": []}')
    os.mkfifo(folder / "simulations" / "s1.json")
    done = _run("report", str(folder), stdout=subprocess.PIPE)
    assert done.returncode == 2 and "is a named pipe (FIFO), not a file" in done.stderr, done.stderr


def test_explain_reads_harness_results_as_report_does_and_refuses_a_negative_top():
    """explain took a runs file only ("expected a JSON array of runs" for a tau2 file, where report, receipt, badge,
    pack and diff import it), and took --top -3 as 0 without a word."""
    import json

    tau2 = sorted((ROOT / "tests" / "fixtures" / "tau2").glob("*.json"))[0]
    (agent,) = {a["agent_id"] for a in json.loads(scoring_cli("report", tau2).stdout)["agents"]}
    done = scoring_cli("explain", tau2, agent)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["agent_id"] == agent and "import: " in done.stderr
    negative = scoring_cli("explain", SAMPLE, "steady-pro", "--top", "-3")
    assert negative.returncode == 2 and "--top: a number of runs from 0 up, got -3" in negative.stderr


@pytest.mark.parametrize("content", [b"", b"\n\n", b"  \r\n\t\n"])
def test_an_empty_file_is_refused_alike_by_both_engines(tmp_path, content):
    """DuckDB's CSV sniffer spoke for the SQL engine ("Sniffer detected value different than the user input"); a
    file of blank lines it refused as seven missing columns, where the pandas engine says the file is empty."""
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    said = [scoring_cli("report", path, *extra).stderr for extra in ((), ("--engine", "sql"))]
    assert said[0] == said[1] and "the file is empty" in said[0], said


def test_a_badge_path_ending_with_a_slash_names_a_folder(tmp_path):
    """`badge -o out/sub/` wrote a file named `sub` where the folder did not exist."""
    done = scoring_cli("badge", SAMPLE, "steady-pro", "-o", f"{tmp_path}/sub/")
    assert done.returncode == 2 and "no such folder" in done.stderr, done.stderr
    assert not (tmp_path / "sub").exists()
    (tmp_path / "sub").mkdir()
    assert scoring_cli("badge", SAMPLE, "steady-pro", "-o", f"{tmp_path}/sub/").returncode == 0
    assert [p.suffix for p in (tmp_path / "sub").iterdir()] == [".svg"]


@pytest.mark.parametrize("name, text", [
    ("runs.json", '[{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed", "success": true, '
                  '"latency_ms": 1, "cost_usd": 1e999}]'),
    ("runs.jsonl", '{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed", "success": true, '
                   '"latency_ms": 1, "cost_usd": 1.5e400}\n'),
])
def test_a_json_number_past_the_largest_double_is_quoted_as_the_file_writes_it(name, text, tmp_path):
    """1e999 was quoted back as 'inf' (a reviewer's CI check)."""
    path = tmp_path / name
    path.write_text(text)
    done = scoring_cli("report", path)
    assert done.returncode == 2 and "column 'cost_usd', value '1" in done.stderr and "'inf'" not in done.stderr
    assert "not a finite number [not_finite]" in done.stderr, done.stderr


def test_a_refused_option_shows_the_subcommands_usage_not_every_commands():
    done = scoring_cli("report", SAMPLE, "--weights", "nope=1")
    assert done.returncode == 2 and done.stderr.startswith("usage: python -m scoring report "), done.stderr[:200]
    assert "{report,verify" not in done.stderr


def test_a_short_line_is_refused_by_row_by_the_sql_engine_too(tmp_path):
    """DuckDB's sniffer said only "Error when sniffing file"; the pandas engine names the row and line."""
    lines = SAMPLE.read_text().splitlines()
    path = tmp_path / "mid.csv"
    path.write_text("\n".join(lines[:5] + ["r-x,a,t"] + lines[5:50]) + "\n")
    done = scoring_cli("report", path, "--engine", "sql")
    assert done.returncode == 2 and "row 5 (line 6): the line has 3 field(s); the header has 9 [short_line]" \
        in done.stderr, done.stderr
    assert "sniffing" not in done.stderr and "--exclude-invalid" not in done.stderr
