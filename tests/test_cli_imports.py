"""``python -m scoring`` on harness results (SPEC 7), end to end: its command line, exit status, stdout and stderr
(in this process through ``scoring.cli.commands.main``; the README's commands in real subprocesses).

Real inputs: the two trimmed tau2-bench result files (tests/fixtures/tau2), the same grok-3 run in
tau2's folder form, Inspect AI logs written here by a real inspect_ai run on ``mockllm/model``
(offline, as tests/test_importers.py does), a tau-bench results list and a foreign CSV with its
saved mapping. Every report on stdout is compared with the library's own result for the same input.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import warnings
from math import comb
from pathlib import Path

import pytest

from scoring import load_runs, score_runs
from scoring.load.importers import import_file, import_files, mapping_from_json
from scoring.load.runs import RunsValidationError
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
GROK3 = FIXTURES / "tau2" / "2025-10-13T12-25-14.993547_airline_llm_agent_grok-3_user_simulator_grok-3_task_11.json"
GROK3_MINI = FIXTURES / "tau2" / ("2025-10-06T06-22-46.727114_airline_llm_agent_grok-3-mini_user_simulator_"
                                  "grok-3-mini.json")
GROK3_FOLDER = FIXTURES / "tau2" / "grok-3-folder"
SAMPLE = ROOT / "sample_data" / "runs.csv"
FOREIGN_CSV = FIXTURES / "mapping" / "foreign.csv"
FOREIGN_MAP = FIXTURES / "mapping" / "foreign-map.json"


def cli(*args, cwd=ROOT):
    return scoring_cli(*args, cwd=cwd)


def cli_process(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "scoring", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=180)


def ok(result) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def refused(result, *fragments: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout[:300], result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    return result.stderr


def import_lines(stderr: str) -> list[str]:
    return [line[len("import: "):] for line in stderr.splitlines() if line.startswith("import: ")]


def library_json(*sources, **options) -> str:
    """The report the library computes for the same inputs: what the CLI must print."""
    loaded = import_files(list(sources), **options).validate()
    return score_runs(loaded.runs, harness=loaded.harness).to_json_text()


def taubench_result(task_id: int, trial: int, reward: float, *, error: str | None = None) -> dict:
    if error is not None:
        return {"task_id": task_id, "reward": 0.0, "info": {"error": error}, "traj": [], "trial": trial}
    call = {"id": f"c{task_id}{trial}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    traj = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "{}"},
            {"role": "assistant", "content": "done", "tool_calls": None}]
    return {"task_id": task_id, "reward": reward, "info": {"reward_info": {"reward": reward}}, "traj": traj,
            "trial": trial}


# With --dist loadgroup (Makefile) the module's tests run on one xdist process:
# the Inspect AI logs (a module fixture) are written once, on one process.
pytestmark = pytest.mark.xdist_group("cli_imports")


@pytest.fixture(scope="module")
def taubench_list(tmp_path_factory) -> Path:
    results = [taubench_result(t, trial, 1.0 if (t + trial) % 3 else 0.0) for trial in range(4) for t in range(5)]
    path = tmp_path_factory.mktemp("taubench") / "sonnet-airline.json"
    path.write_text(json.dumps(results))
    return path


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory) -> dict[str, Path]:
    """A real Inspect AI log in both formats: 2 samples x 3 epochs on mockllm/model, offline."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, accuracy, scorer

    def outputs(messages, tools, tool_choice, config):
        out = ModelOutput.from_content("mockllm/model", "answer")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15, total_cost=0.002)
        return out

    @scorer(metrics=[accuracy()])
    def judge():
        async def score(state, target):
            return Score(value="I" if (state.sample_id, state.epoch) == ("hard", 3) else "C")
        return score

    @scorer(metrics=[accuracy()])
    def strict():
        async def score(state, target):
            return Score(value="I")
        return score

    task = Task(name="cli-probe", dataset=[Sample(input="q", id=i) for i in ("easy", "hard")],
                scorer=[judge(), strict()])
    root = tmp_path_factory.mktemp("inspect")
    out = {}
    for fmt in ("eval", "json"):
        model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
        with warnings.catch_warnings():  # inspect_ai's own use of a deprecated tenacity argument
            warnings.simplefilter("ignore", DeprecationWarning)
            [log] = inspect_eval(task, model=model, epochs=3, log_dir=str(root / fmt), log_format=fmt,
                                 display="none")
        assert log.status == "success"
        out[fmt] = Path(log.location)
    return out


# --------------------------------------------------------------------------- a runs file: exactly as before


@pytest.mark.parametrize("fmt", ["csv", "json", "jsonl"])
def test_a_runs_file_gives_byte_identical_json_and_no_import_report(tmp_path, fmt):
    loaded = load_runs(SAMPLE)
    path = SAMPLE
    if fmt != "csv":
        path = tmp_path / f"runs.{fmt}"
        records = loaded.runs.head(300).drop(columns="source_row").assign(
            finished_at=lambda f: f["finished_at"].dt.strftime("%Y-%m-%dT%H:%M:%SZ"))
        records.to_json(path, orient="records", lines=fmt == "jsonl")
    result = ok(cli("report", path))
    assert result.stdout == score_runs(load_runs(path).runs).to_json_text()
    assert "import:" not in result.stderr


def test_a_refused_runs_file_keeps_the_loaders_report(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("run_id,agent_id,task_id,status,success,latency_ms,cost_usd\nr1,a,t,done,true,5,0.1\n")
    with pytest.raises(RunsValidationError) as info:
        load_runs(path)
    stderr = refused(cli("report", path))
    assert stderr.rstrip("\n") == info.value.report()
    # A table that lacks our columns: the same report, and a pointer to --mapping.
    stderr = refused(cli("report", FOREIGN_CSV), "required column is missing", "hint: ", "--mapping MAP.json")
    assert stderr.startswith("foreign.csv: refused, 7 problem(s)")


# --------------------------------------------------------------------------- tau2-bench


def test_tau2_file_scores_with_the_import_report_on_stderr():
    result = ok(cli("report", GROK3))
    assert result.stdout == library_json(GROK3)
    doc = json.loads(result.stdout)
    assert [a["agent_id"] for a in doc["agents"]] == ["xai/grok-3@airline"]
    lines = import_lines(result.stderr)
    assert lines[0] == "Imported 10 run(s) from 1 file(s)."
    assert "    latency_ms <- duration (s) x 1000" in lines
    assert "    cost_usd <- agent_cost (USD) x 1" in lines
    assert any("user_cost (USD): the user simulator's cost" in line for line in lines)  # not mapped
    assert any("end_time value(s) have no time zone: read as UTC" in line for line in lines)  # a warning
    assert all(line.startswith(("import: ", "warning: ")) for line in result.stderr.splitlines())


def test_tau2_folder_form_gives_the_same_report_as_the_file():
    folder = ok(cli("report", GROK3_FOLDER))
    assert folder.stdout == ok(cli("report", GROK3)).stdout
    assert "grok-3-folder: tau2-bench Results JSON, 10 simulation file(s)" in folder.stderr
    assert ok(cli("report", GROK3_FOLDER / "results.json")).stdout == folder.stdout  # its results.json too


def test_two_tau2_files_give_one_report_and_say_unequal_trials():
    result = ok(cli("report", GROK3_MINI, GROK3))
    assert result.stdout == library_json(GROK3_MINI, GROK3)
    doc = json.loads(result.stdout)
    assert [a["agent_id"] for a in doc["agents"]] == ["xai/grok-3-mini@airline", "xai/grok-3@airline"]
    assert "Imported 20 run(s) from 2 file(s)." in result.stderr
    assert "unequal trial counts (1 to 2 per task; expected 4 as info.num_trials)" in result.stderr
    assert "tau2-bench computes pass^k only up to k = 1" in result.stderr


def test_pass_hat_k_at_any_levels_matches_tau2_task_by_task():
    """grok-3: one task, 10 trials, 3 successes; tau2-bench's pass^k is comb(3, k) / comb(10, k) for k <= 10."""
    levels = ",".join(map(str, range(1, 11)))
    doc = json.loads(ok(cli("report", GROK3, "--k", levels)).stdout)
    rep = doc["agents"][0]["repeatability"]
    assert rep["pass_k"] == {str(k): pytest.approx(comb(3, k) / comb(10, k)) for k in range(1, 11)}
    assert rep["tasks_below_k"] == {str(k): 0 for k in range(1, 11)}
    # grok-3-mini: 1-2 trials per task, so no task qualifies (n >= 3) and every level counts its tasks below k.
    mini = json.loads(ok(cli("report", GROK3_MINI, "--k", "1,2,3,4")).stdout)["agents"][0]["repeatability"]
    # ... and the missing pass^k says why: its 9 tasks all have fewer than the published minimum of 3 outcomes.
    assert mini == {"qualifying_tasks": 0, "pass_k": None, "tasks_below_k": {"1": 0, "2": 0, "3": 0, "4": 0},
                    "tasks_below_min_outcomes": 9}


def test_experiment_tags_one_per_input_or_one_for_all():
    result = ok(cli("report", GROK3_MINI, GROK3, "--experiment", "prompt-a", "--experiment", "prompt-b"))
    agents = [a["agent_id"] for a in json.loads(result.stdout)["agents"]]
    assert sorted(agents) == ["xai/grok-3-mini@airline [prompt-a]", "xai/grok-3@airline [prompt-b]"]
    one = ok(cli("report", GROK3_MINI, GROK3, "--experiment", "v2"))
    assert sorted(a["agent_id"] for a in json.loads(one.stdout)["agents"]) == [
        "xai/grok-3-mini@airline [v2]", "xai/grok-3@airline [v2]"]
    refused(cli("report", GROK3_MINI, GROK3, "--experiment", "a", "--experiment", "b", "--experiment", "c"),
            "--experiment: 3 values for 2 input(s)")


def test_exclude_invalid_works_for_imports(tmp_path):
    doc = json.loads(GROK3.read_text())
    del doc["simulations"][0]["termination_reason"]
    doc["simulations"][1]["duration"] = -3.0
    path = tmp_path / "broken-grok.json"
    path.write_text(json.dumps(doc))
    stderr = refused(cli("report", path), "simulation 1: termination_reason is missing",
                     "negative", "--exclude-invalid")
    assert "import: Imported 10 run(s) from 1 file(s)." in stderr  # what was mapped, even when refused
    result = ok(cli("report", path, "--exclude-invalid"))
    assert json.loads(result.stdout)["excluded_rows"] == 2
    assert "warning: 2 invalid row(s) of 10 excluded" in result.stderr
    assert json.loads(result.stdout)["agents"][0]["headline"]["completed_runs"] == 8
    # Every format says how many rows its scores left out (SPEC 1), CSV in a first column (it said so on stderr only).
    csv_rows = list(csv.DictReader(io.StringIO(ok(cli("report", path, "--exclude-invalid", "--format", "csv")).stdout)))
    assert [(r["excluded_rows"], r["headline_completed_runs"]) for r in csv_rows] == [("2", "8")]
    table = ok(cli("report", path, "--exclude-invalid", "--format", "table")).stdout
    assert "(2 invalid row(s) of 10 excluded)" in table
    assert "excluded_rows" not in ok(cli("report", GROK3, "--format", "csv")).stdout  # only when rows were left out


# --------------------------------------------------------------------------- tau-bench, Inspect, mapping


def test_taubench_list_with_and_without_an_agent_name(taubench_list):
    result = ok(cli("report", taubench_list))
    assert result.stdout == library_json(taubench_list)
    assert json.loads(result.stdout)["agents"][0]["agent_id"] == "sonnet-airline"  # the file stem
    assert "no cost recorded by tau-bench" in result.stderr
    named = ok(cli("report", taubench_list, "--agent", "claude-sonnet@airline"))
    assert json.loads(named.stdout)["agents"][0]["agent_id"] == "claude-sonnet@airline"
    assert named.stdout.replace("claude-sonnet@airline", "sonnet-airline") == result.stdout


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_inspect_log_scores_and_the_scorer_can_be_chosen(inspect_logs, fmt):
    path = inspect_logs[fmt]
    result = ok(cli("report", path))
    assert result.stdout == library_json(path)
    agent = json.loads(result.stdout)["agents"][0]
    assert agent["agent_id"] == "mockllm/model@cli-probe"
    assert agent["headline"]["completed_runs"] == 6 and agent["headline"]["successful_runs"] == 5
    assert "success <- scores['judge'].value" in result.stderr
    strict = json.loads(ok(cli("report", path, "--scorer", "strict")).stdout)["agents"][0]
    assert strict["headline"]["successful_runs"] == 0 and strict["headline"]["zero_success_floor"]
    refused(cli("report", path, "--scorer", "nope"), "nope")


def test_foreign_csv_with_a_saved_mapping(tmp_path):
    result = ok(cli("report", FOREIGN_CSV, "--mapping", FOREIGN_MAP))
    mapping = mapping_from_json(FOREIGN_MAP.read_text())
    assert result.stdout == score_runs(import_file(FOREIGN_CSV, mapping=mapping).validate().runs).to_json_text()
    agents = {a["agent_id"]: a for a in json.loads(result.stdout)["agents"]}
    assert set(agents) == {"gpt-x/terse", "gpt-x/verbose"}
    assert agents["gpt-x/terse"]["headline"]["avg_latency_ms"] == pytest.approx(2160.0)  # seconds x 1000
    for line in ("latency_ms <- 'seconds' (s) x 1000", "cost_usd <- 'cents' (cents) x 0.01",
                 "agent_id <- 'model' + '/' + 'prompt'", "'crash' -> failed", "steps: not in the mapping"):
        assert line in result.stderr, line
    # The mapping's own experiment tag, and one given on the command line.
    tagged = ok(cli("report", FOREIGN_CSV, "--mapping", FOREIGN_MAP, "--experiment", "july"))
    assert sorted(a["agent_id"] for a in json.loads(tagged.stdout)["agents"]) == [
        "gpt-x/terse [july]", "gpt-x/verbose [july]"]


@pytest.mark.parametrize("change, field", [
    ({"units": {"latency_ms": "hours"}}, "units.latency_ms"),
    ({"columns": {"run_id": "id"}}, "columns.agent_id"),
    ({"colour": "blue"}, "colour"),
])
def test_a_refused_mapping_names_the_field(tmp_path, change, field):
    doc = {**json.loads(FOREIGN_MAP.read_text()), **change}
    if "columns" in change:
        doc.pop("units"), doc.pop("success"), doc.pop("status_values")
    path = tmp_path / "map.json"
    path.write_text(json.dumps(doc))
    refused(cli("report", FOREIGN_CSV, "--mapping", path), f"mapping field '{field}'")


def test_a_mapping_names_source_columns_the_table_lacks(tmp_path):
    doc = json.loads(FOREIGN_MAP.read_text())
    doc["columns"]["run_id"] = "identifier"
    path = tmp_path / "map.json"
    path.write_text(json.dumps(doc))
    refused(cli("report", FOREIGN_CSV, "--mapping", path), "source column 'identifier'")


# --------------------------------------------------------------------------- --from, several inputs


def test_from_forces_the_kind():
    ok(cli("report", GROK3, "--from", "tau2"))
    refused(cli("report", GROK3, "--from", "tau-bench"), "expected a JSON array of tau-bench results")
    # Forced to a runs table: the loader reads it, and refuses it in its own words.
    refused(cli("report", GROK3, "--from", "runs"), 'expected a JSON array of runs or an object {"runs": [...]}')
    refused(cli("report", SAMPLE, "--from", "inspect"))


def test_several_harnesses_and_a_runs_file_in_one_report(taubench_list, inspect_logs, tmp_path):
    runs = tmp_path / "mine.csv"
    runs.write_text("run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n"
                    "m1,my-agent,t1,completed,true,900,0.003\nm2,my-agent,t1,completed,false,950,0.004\n")
    inputs = [GROK3, taubench_list, inspect_logs["eval"], runs]
    result = ok(cli("report", *inputs, "--format", "table"))
    for agent in ("xai/grok-3@airline", "sonnet-airline", "mockllm/model@cli-probe", "my-agent"):
        assert agent in result.stdout
    assert "Imported 38 run(s) from 4 file(s)." in result.stderr
    assert "mine.csv: runs table" in result.stderr
    doc = json.loads(ok(cli("report", *inputs)).stdout)
    assert json.dumps(doc, indent=2) + "\n" == library_json(*inputs)


def test_refusals_exit_2_with_a_message_and_no_traceback(tmp_path, taubench_list):
    plain_folder = tmp_path / "folder"
    plain_folder.mkdir()
    refused(cli("report", GROK3, tmp_path / "missing.json"), "missing.json", "cannot read")
    refused(cli("report", plain_folder), "the folder holds no result files")
    refused(cli("report", FOREIGN_CSV, "--mapping", tmp_path / "nope.json"), "cannot read the mapping")
    refused(cli("report", GROK3, "--mapping", FOREIGN_MAP), "a column mapping applies to a table")
    refused(cli("report", GROK3, "--scorer", "judge"), "--scorer chooses the scorer of an Inspect AI log")
    refused(cli("report", SAMPLE, "--agent", "x"), "'agent' applies to harness files")
    refused(cli("report", GROK3, "--experiment", "x" * 101), "experiment tag")
    refused(cli("report", taubench_list, GROK3, "--agent", "a", "--agent", "b", "--agent", "c"),
            "--agent: 3 values for 2 input(s)")
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    refused(cli("report", GROK3, empty), "empty.json")
    for args in (["--engine", "sql"], ["--engine", "sql", "--from", "tau2"]):
        result = cli("report", GROK3, *args)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "--engine sql and --db read one runs file or table" in result.stderr
    result = cli("report", SAMPLE, SAMPLE, "--engine", "sql")
    assert result.returncode == 2 and "harness imports, --mapping and several inputs need the pandas engine" \
        in result.stderr


def test_receipt_and_verify_read_harness_results_too(tmp_path):
    receipt = ok(cli("receipt", GROK3, "xai/grok-3@airline"))
    path = tmp_path / "receipt.json"
    path.write_text(receipt.stdout)
    assert json.loads(receipt.stdout)["agent_id"] == "xai/grok-3@airline"
    assert "import: Imported 10 run(s)" in receipt.stderr
    verified = ok(cli("verify", path, GROK3_FOLDER))  # the same runs in the folder form reproduce it
    assert verified.stdout.startswith("reproduces: xai/grok-3@airline")
    refused(cli("receipt", GROK3, GROK3_MINI, "nobody"), "no agent 'nobody' in")
    # The old forms still work on a runs file.
    sample_receipt = ok(cli("receipt", SAMPLE, "swift-lite"))
    (tmp_path / "s.json").write_text(sample_receipt.stdout)
    ok(cli("verify", tmp_path / "s.json", SAMPLE))
    assert "import:" not in sample_receipt.stderr


# --------------------------------------------------------------------------- the README's commands


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Bring your own results", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    return [line.split("  #")[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_every_command_in_the_readme_section_runs():
    commands = readme_commands()
    assert len(commands) >= 5
    printed = []
    for command in commands:
        parts = command.split()
        assert parts[:3] == [".venv/bin/python", "-m", "scoring"], command
        args = [a for part in parts[3:] for a in (sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(part))
                                                  if "*" in part else [part])]
        assert all(a for a in args) and len(args) >= len(parts) - 3, command  # every glob matched a file
        result = cli(*args)
        assert result.returncode == 0, (command, result.stderr)
        assert result.stdout.strip() and "Traceback" not in result.stderr, command
        printed.append((args, result))
    # The first, as a user types it: a real `python -m scoring` process prints exactly what main printed here.
    args, result = printed[0]
    typed = cli_process(*args)
    assert (typed.returncode, typed.stdout, typed.stderr) == (0, result.stdout, result.stderr), commands[0]


# --------------------------------------------------------------------------- files the detection refuses or decodes
# (a reviewer's harness files, 2026-12-06; each test failed before its fix)


@pytest.mark.parametrize("cut", ["half", "tail"])
def test_a_truncated_eval_is_refused_as_a_damaged_archive_not_an_unsupported_type(cut, tmp_path):
    data = (FIXTURES / "inspect" / "probe.eval").read_bytes()
    path = tmp_path / "cut.eval"
    path.write_bytes(data[: len(data) // 2] if cut == "half" else data[:-10])
    done = scoring_cli("report", path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "a damaged zip archive" in done.stderr and "unsupported file type" not in done.stderr, done.stderr


def test_json_nested_too_deep_says_so_without_from(tmp_path):
    doc = json.loads(sorted((FIXTURES / "tau2").glob("*.json"))[0].read_text())
    doc["simulations"][0]["reward_info"]["deep"] = json.loads("[" * 90 + "]" * 90)
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(doc))
    done = scoring_cli("report", path)
    assert done.returncode == 2 and "levels deep, more than the limit of 64 (max_json_depth)" in done.stderr, \
        done.stderr


def test_a_utf16_results_file_is_read_as_with_from(tmp_path):
    """Windows PowerShell writes JSON as UTF-16 with a byte-order mark: detected by its first characters."""
    source = sorted((FIXTURES / "tau2").glob("*.json"))[0]
    path = tmp_path / "utf16.json"
    path.write_bytes(source.read_text(encoding="utf-8").encode("utf-16"))  # with its byte-order mark
    done, told = scoring_cli("report", path), scoring_cli("report", path, "--from", "tau2")
    assert done.returncode == 0 and told.returncode == 0, done.stderr
    assert done.stdout == told.stdout == scoring_cli("report", source).stdout
