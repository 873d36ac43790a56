"""Each harness's own reading (SPEC 6 ``agents[i].harness``) equals the harness's numbers on the same file.

The reference computations below re-state each harness's published code step by step, independently
of scoring.load.importers.reading: tau2-bench's ``get_metrics_df``/``compute_metrics`` (pandas, as tau2
runs it), tau-bench's ``display_metrics``, Inspect's stored ``results.scores[*].metrics.accuracy``
(the number Inspect itself wrote into the log) and terminal-bench's ``accuracy``/``pass_at_k``
(written into results.json by its own formulas, tests/helpers.py).
"""

import io
import json
import math
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import score_runs
from scoring.load.importers import import_file, import_files
from scoring.load.runs import RunsValidationError
from tests.helpers import run_inspect, scoring_cli, tau2_results, terminal_bench_run

ROOT = Path(__file__).resolve().parents[1]
SHARED_TAU2 = Path("/work/shared/data/tau2")
TAU2_FILES = sorted((ROOT / "tests" / "fixtures" / "tau2").glob("*.json")) + (
    sorted(SHARED_TAU2.glob("*.json")) if SHARED_TAU2.is_dir() else [])
INSPECT = ROOT / "tests" / "fixtures" / "inspect" / "probe.eval"
TAUBENCH = ROOT / "tests" / "fixtures" / "tau-bench" / "sonnet-retail.json"
TOL = 1e-6


def reading(*sources, **options):
    loaded = import_files(list(sources), **options).validate()
    report = score_runs(loaded.runs, harness=loaded.harness)
    return {a.agent_id: a for a in report.agents}


def tau2_reference(doc: dict) -> dict:
    """tau2.metrics.agent_metrics.compute_metrics, step by step on the raw JSON."""
    rows = [{"task_id": s["task_id"], "reward": (s.get("reward_info") or {}).get("reward"),
             "agent_cost": s.get("agent_cost"), "termination_reason": s["termination_reason"],
             "info_num_trials": doc["info"]["num_trials"]} for s in doc["simulations"]]
    df = pd.DataFrame(rows)
    df = df[df.termination_reason != "infrastructure_error"]
    df["reward"] = df["reward"].astype(float)
    df["success"] = df.reward.apply(lambda r: (1 - 1e-6) <= r <= (1 + 1e-6))
    max_k = df.info_num_trials.max()
    min_k = df.task_id.value_counts().min()
    max_k = min(max_k, min_k)
    pass_k = {}
    for k in range(1, max_k + 1):
        per_task = df.groupby("task_id")["success"].apply(
            lambda d, k=k: math.comb(int(d.sum()), k) / math.comb(len(d), k))
        pass_k[k] = per_task.mean()
    return {"avg_reward": df.reward.mean(), "pass_k": pass_k, "avg_agent_cost": df.agent_cost.astype(float).mean(),
            "success_rate": df.success.mean(), "runs": len(df)}


def assert_tau2_equal(harness: dict, ref: dict) -> None:
    assert harness["name"] == "tau2-bench"
    assert harness["runs"] == ref["runs"]
    assert set(harness["pass_k"]) == {str(k) for k in ref["pass_k"]}
    for k, v in ref["pass_k"].items():
        assert abs(harness["pass_k"][str(k)] - v) <= TOL
    assert abs(harness["avg_reward"] - ref["avg_reward"]) <= TOL
    assert abs(harness["success_rate"] - ref["success_rate"]) <= TOL
    assert abs(harness["avg_cost_usd"] - ref["avg_agent_cost"]) <= TOL


@pytest.mark.parametrize("path", TAU2_FILES, ids=lambda p: p.name[:40])
def test_tau2_reading_equals_tau2_bench_on_real_files(path):
    doc = json.loads(path.read_text())
    (agent,) = reading(path).values()
    assert_tau2_equal(agent.to_json()["harness"], tau2_reference(doc))


def test_tau2_reading_on_the_real_files_hand_checked():
    # grok-3 task 11: 10 trials, rewards 0 x7 then 1 x3; tau2: pass^1 = 0.3, pass^2 = C(3,2)/C(10,2) = 3/45.
    grok3 = next(p for p in TAU2_FILES if "grok-3_user" in p.name)
    h = reading(grok3)["xai/grok-3@airline"].to_json()["harness"]
    assert h["pass_k"]["1"] == 0.3 and abs(h["pass_k"]["2"] - 3 / 45) < 1e-15 and len(h["pass_k"]) == 10
    assert abs(h["avg_cost_usd"] - 0.0677505) < 1e-12 and h["runs"] == 10
    # grok-3-mini: num_trials 4, but 9 tasks with 1 or 2 simulations: tau2 stops at k = 1.
    mini = next(p for p in TAU2_FILES if "grok-3-mini" in p.name)
    agent = reading(mini)["xai/grok-3-mini@airline"]
    assert list(agent.to_json()["harness"]["pass_k"]) == ["1"]
    # ... while the canonical pass^k is null, and says why
    assert agent.repeatability.pass_k is None and agent.repeatability.tasks_below_min_outcomes == 9


def test_tau2_timeouts_infrastructure_errors_and_missing_rewards():
    sims = [("1", "user_stop", 1.0, 0.25), ("1", "user_stop", 0.0, 0.25), ("1", "max_steps", 0.0, 5.58),
            ("2", "user_stop", 1.0, 0.2), ("2", "infrastructure_error", None, 0.0), ("2", "agent_stop", None, 0.1),
            ("3", "too_many_errors", 0.0, 0.3), ("3", "user_stop", 0.9999995, 0.2)]
    doc = tau2_results(sims, num_trials=3)
    agent = reading((json.dumps(doc).encode(), "mixed.json"))["xai/grok-3@airline"]
    out = agent.to_json()
    assert_tau2_equal(out["harness"], tau2_reference(doc))
    # tau2 counts 7 simulations (the infrastructure error is dropped): 3 successes.
    assert out["harness"]["runs"] == 7 and abs(out["harness"]["success_rate"] - 3 / 7) < 1e-15
    # the headline: 5 completed runs; the timeout and both failures are left out, with their cost
    h = out["headline"]
    assert h["completed_runs"] == 5
    assert h["left_out"] == {"runs": 3, "by_status": {"failed": 2, "timeout": 1}, "cost_usd": 5.58 + 0.0 + 0.3}
    assert h["completed_runs"] + h["left_out"]["runs"] == len(sims)


def test_tau2_empty_simulations_and_a_batch_with_exclude_invalid(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(tau2_results([("1", "user_stop", 1.0, 0.1)] * 3, 3)))
    empty = tmp_path / "aborted.json"
    empty.write_text(json.dumps(tau2_results([], 3)))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(RunsValidationError) as refused:
        import_files([good, empty, broken])
    text = refused.value.report()
    assert "aborted.json: the file has no simulations" in text and "broken.json: not valid JSON" in text
    assert refused.value.excludable and "the other 1 file(s) can be scored" in text  # the app offers to skip
    imported = import_files([good, empty, broken], skip_refused=True)
    assert [name for name, _ in imported.report.skipped] == ["aborted.json", "broken.json"]
    assert "Skipped 2 refused file(s)" in imported.report.text() and len(imported.raw) == 3
    with pytest.raises(RunsValidationError) as nothing:
        import_files([empty, broken], skip_refused=True)  # nothing left to score
    assert not nothing.value.excludable


def test_inspect_reading_equals_the_accuracy_inspect_wrote():
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(INSPECT))
    (score,) = log.results.scores
    (agent,) = reading(INSPECT).values()
    h = agent.to_json()["harness"]
    assert h["name"] == "Inspect" and h["scorer"] == score.name
    assert abs(h["success_rate"] - score.metrics["accuracy"].value) <= TOL
    assert h["runs"] == len(log.samples) and h["pass_k"] == {}


def display_metrics(results: list[dict]) -> tuple[float, dict[int, float]]:
    """tau_bench.run.display_metrics, as written there: (average reward, pass^k for k = 1 .. distinct trials)."""
    num_trials = len({r["trial"] for r in results})
    avg_reward = sum(r["reward"] for r in results) / len(results)
    c: dict = {}
    for r in results:
        c[r["task_id"]] = c.get(r["task_id"], 0) + (1 if (1 - 1e-6) <= r["reward"] <= (1 + 1e-6) else 0)
    return avg_reward, {k: sum(math.comb(v, k) / math.comb(num_trials, k) for v in c.values()) / len(c)
                        for k in range(1, num_trials + 1)}


def test_taubench_reading_equals_display_metrics():
    avg_reward, ref = display_metrics(json.loads(TAUBENCH.read_text()))
    (agent,) = reading(TAUBENCH).values()
    h = agent.to_json()["harness"]
    assert h["name"] == "tau-bench" and abs(h["avg_reward"] - avg_reward) <= TOL
    assert set(h["pass_k"]) == {str(k) for k in ref}
    assert all(abs(h["pass_k"][str(k)] - v) <= TOL for k, v in ref.items())


def test_two_taubench_runs_of_one_agent_pooled_keep_pass_k_a_probability(tmp_path):
    # tau-bench numbers every run's trials from 0 (run.py: `for i in range(config.num_trials)`): two runs pooled as
    # one agent (--agent) share trial numbers 0..3, so read as one list they gave 8 results a task against 4
    # trials, pass^1 = 1.2. Each file is one run: the same run twice reads as that run.
    rerun = tmp_path / "sonnet-retail-rerun.json"
    rerun.write_text(TAUBENCH.read_text())
    (agent,) = reading(TAUBENCH, rerun, agent="sonnet").values()
    h = agent.to_json()["harness"]
    avg_reward, one_run = display_metrics(json.loads(TAUBENCH.read_text()))
    assert all(0.0 <= v <= 1.0 for v in h["pass_k"].values()), h["pass_k"]
    assert abs(h["avg_reward"] - avg_reward) <= TOL and h["runs"] == 40
    assert abs(h["pass_k"]["1"] - one_run[1]) <= TOL  # the same run twice: the same success rate per trial


def test_a_taubench_run_split_by_task_range_pools_to_display_metrics_of_the_whole_run(tmp_path):
    # tau-bench's --start-index/--end-index split one run into files of disjoint tasks, each with trials 0..3.
    results = json.loads(TAUBENCH.read_text())
    low, high = tmp_path / "range_0-2.json", tmp_path / "range_2-5.json"
    low.write_text(json.dumps([r for r in results if r["task_id"] < 2]))
    high.write_text(json.dumps([r for r in results if r["task_id"] >= 2]))
    (agent,) = reading(low, high, agent="sonnet").values()
    h = agent.to_json()["harness"]
    _, whole = display_metrics(results)
    assert set(h["pass_k"]) == {str(k) for k in whole}
    assert all(abs(h["pass_k"][str(k)] - v) <= TOL for k, v in whole.items())


TB_RUN1 = [("hello", True, "none"), ("chess", None, "parse_error"), ("build", False, "agent_timeout"),
           ("sql", None, "test_timeout"), ("git", True, "unset")]
TB_RUN2 = [("hello", True, "none"), ("chess", False, "none"), ("build", True, "agent_timeout"),
           ("sql", None, "unknown_agent_error"), ("git", False, "none")]


def test_terminal_bench_one_run_equals_its_results_json(tmp_path):
    path = terminal_bench_run(tmp_path, "run1", TB_RUN1)
    doc = json.loads(path.read_text())
    agent = reading(path)["anthropic/claude-x"]
    h = agent.to_json()["harness"]
    assert h["name"] == "terminal-bench" and abs(h["success_rate"] - doc["accuracy"]) <= TOL
    assert h["pass_at_k"] == pytest.approx(doc["pass_at_k"], abs=TOL) and h["runs"] == 5
    # statuses from failure_mode; a null is_resolved is unresolved (false), as terminal-bench counts it
    hl = agent.headline
    assert hl.completed_runs == 2 and hl.left_out.by_status == {"failed": 1, "timeout": 2}
    # pass^1 over the same trials equals the success rate: every outcome is known
    assert agent.repeatability.tasks_below_min_outcomes == 5


def test_terminal_bench_repeated_runs_pool_as_one_agent(tmp_path):
    paths = [terminal_bench_run(tmp_path, "run1", TB_RUN1), terminal_bench_run(tmp_path, "run2", TB_RUN2)]
    imported = import_files(paths)
    assert [f.name for f in imported.report.files] == ["run1/results.json", "run2/results.json"]
    h = reading(*paths)["anthropic/claude-x"].to_json()["harness"]
    # 4 resolved of 10 trials; per task (n=2): hello 2, chess 0, build 1, sql 0, git 1
    assert h["success_rate"] == 0.4 and h["runs"] == 10
    assert h["pass_k"] == {}  # terminal-bench computes no pass^k: not its own reading (the canonical one has it)
    # pass@2 (at least one of two): hello, build, git -> 3/5; terminal-bench prints no pass@1
    assert h["pass_at_k"] == {"2": pytest.approx(0.6)}


def test_terminal_bench_latency_is_exact_and_the_model_comes_from_metadata_or_agent(tmp_path):
    path = terminal_bench_run(tmp_path, "run1", TB_RUN1)
    runs = import_file(path).validate().runs
    # trial j ends j seconds and 23 ms after it starts: exact milliseconds, no float noise (1.023 s -> 1023 ms)
    assert sorted(runs["latency_ms"].tolist()) == [23.0, 1023.0, 2023.0, 3023.0, 4023.0]
    bare = terminal_bench_run(tmp_path / "x", "run9", TB_RUN1, model=None)
    assert import_file(bare).report.files[0].agents == ("run9",)
    assert import_file(bare, agent="me").report.files[0].agents == ("me",)
    assert import_file(bare.read_bytes(), "results.json", agent="me").report.files[0].agents == ("me",)
    with pytest.raises(RunsValidationError, match="give --agent"):
        import_file(bare.read_bytes(), "results.json")


def test_a_folder_of_result_files_is_read(tmp_path):
    from scoring.load.importers import expand_folder

    terminal_bench_run(tmp_path, "run1", TB_RUN1)
    terminal_bench_run(tmp_path, "run2", TB_RUN2)
    (tmp_path / "taubench.json").write_bytes(TAUBENCH.read_bytes())
    names = [p.relative_to(tmp_path).as_posix() for p in expand_folder(tmp_path)]
    assert names == ["run1/results.json", "run2/results.json", "taubench.json"]


TB_MAPPING = {
    "mapping_version": 1, "records": "results",
    "columns": {"run_id": "trial_name", "task_id": "task_id", "status": "failure_mode", "success": "is_resolved",
                "finished_at": "trial_ended_at"},
    "constants": {"agent_id": "claude-x"},
    "status_values": {"none": "completed", "unset": "completed", "agent_timeout": "timeout",
                      "test_timeout": "timeout", "parse_error": "failed"},
    "success": {"true_values": ["true"], "false_values": ["false", ""]},
    "latency_from": ["trial_started_at", "trial_ended_at"],
}


def test_a_mapping_reads_records_inside_an_object_nulls_as_failures_and_latency_from_two_times(tmp_path):
    from scoring.load.importers import mapping_from_json, mapping_to_json

    path = terminal_bench_run(tmp_path, "run1", TB_RUN1)
    mapping = mapping_from_json(json.dumps(TB_MAPPING))
    assert mapping.success.empty == "false" and mapping.success.false_values == ("false",)
    assert mapping_from_json(mapping_to_json(mapping)) == mapping
    runs = import_file(path, mapping=mapping).validate().runs.set_index("run_id")
    # is_resolved null (chess: parse_error; sql: test_timeout) -> false, not unknown
    assert bool(runs.loc["chess.1-of-1.run1", "success"]) is False
    assert runs["success"].notna().all()
    assert runs.loc["git.1-of-1.run1", "latency_ms"] == 4023.0  # 4.023 s, exactly
    # the same file through the terminal-bench importer gives the same runs
    native = import_file(path).validate().runs.set_index("run_id")
    for column in ("status", "success", "latency_ms"):
        assert native[column].astype(str).to_dict() == runs[column].astype(str).to_dict()
    # without the empty rule, a null stays unknown
    unknown = dict(TB_MAPPING, success={"true_values": ["true"], "false_values": ["false"]})
    runs = import_file(path, mapping=mapping_from_json(json.dumps(unknown))).validate().runs
    assert runs["success"].isna().sum() == 2


def test_a_records_path_that_leads_nowhere_is_refused_clearly(tmp_path):
    from scoring.load.importers import mapping_from_json

    path = terminal_bench_run(tmp_path, "run1", TB_RUN1)
    with pytest.raises(RunsValidationError, match="records path 'trials' does not lead to an array"):
        import_file(path, mapping=mapping_from_json(json.dumps(dict(TB_MAPPING, records="trials"))))


def test_durations_are_converted_without_float_noise():
    sims = [("1", "user_stop", 1.0, 0.1)]
    runs = import_file(json.dumps(tau2_results(sims, 1)).encode(), "t.json").validate().runs
    assert runs["latency_ms"].tolist() == [1023.0]  # duration 1.023 s (1.023 * 1000 is 1022.9999999999999)


def cli(*args):
    return scoring_cli(*args, cwd=ROOT)


def test_cli_batches_folders_and_from_names(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(tau2_results([("1", "user_stop", 1.0, 0.1)] * 3, 3)))
    (tmp_path / "aborted.json").write_text(json.dumps(tau2_results([], 3)))
    (tmp_path / "broken.json").write_text("{not json")
    inputs = [good, tmp_path / "aborted.json", tmp_path / "broken.json"]
    refused = cli("report", *inputs)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "aborted.json: the file has no simulations" in refused.stderr and "broken.json" in refused.stderr
    skipped = cli("report", *inputs, "--exclude-invalid")
    assert skipped.returncode == 0, skipped.stderr
    assert "Skipped 2 refused file(s)" in skipped.stderr and "aborted.json" in skipped.stderr
    assert json.loads(skipped.stdout)["agents"][0]["harness"]["name"] == "tau2-bench"
    # a folder of results: the same three files, read as its files
    assert cli("report", tmp_path, "--exclude-invalid").returncode == 0
    runs = tmp_path / "tb"
    terminal_bench_run(runs, "run1", TB_RUN1)
    terminal_bench_run(runs, "run2", TB_RUN2)
    doc = json.loads(cli("report", runs).stdout)
    assert doc["agents"][0]["harness"]["runs"] == 10
    # --from takes the names the docs use; a wrong one says which kind the file looks like
    assert cli("report", TAUBENCH, "--from", "taubench").returncode == 0
    wrong = cli("report", INSPECT, "--from", "tau2")
    assert wrong.returncode == 2 and "looks like an Inspect AI log (--from inspect" in wrong.stderr
    assert "Traceback" not in wrong.stderr and "nests" not in wrong.stderr.split("read as tau2")[0]
    table = cli("report", TAUBENCH, "--format", "table").stdout
    assert "notes:" in table and "tau-bench's own reading" in table and "1 failed" in table


def test_prices_estimate_cost_from_tokens_labelled_estimated(tmp_path):
    from scoring.load.importers import apply_prices

    path = terminal_bench_run(tmp_path, "run1", TB_RUN1)
    imported = apply_prices(import_files([path]), {"anthropic/claude-x": (3.0, 15.0)})
    loaded = imported.validate()
    # trial j: 1000 * (j + 1) input tokens at $3/M and 200 output tokens at $15/M
    costs = sorted(loaded.runs["cost_usd"].tolist())
    assert costs == pytest.approx([(1000 * (j + 1) * 3 + 200 * 15) / 1e6 for j in range(5)])
    assert loaded.estimated_cost == ("anthropic/claude-x",)
    assert any("ESTIMATED" in w for w in imported.report.all_warnings())
    report = score_runs(loaded.runs, harness=loaded.harness, estimated_cost=loaded.estimated_cost)
    agent = report.agents[0]
    assert agent.to_json()["cost_estimated"] is True and any("ESTIMATED" in n for n in agent.notes())
    # a model without a price keeps its empty cost, and the report says why (a reviewer's prices of
    # "Anthropic/Claude-X " priced nothing without a word)
    unpriced = apply_prices(import_files([path]), {"other": (1.0, 1.0)})
    untouched = unpriced.validate()
    assert untouched.runs["cost_usd"].isna().all() and untouched.estimated_cost == ()
    assert "5 run(s) record tokens but get no estimated cost: no price for anthropic/claude-x" in \
        unpriced.report.all_warnings()


TB_FIXTURES = ROOT / "tests" / "fixtures" / "terminal-bench"
TB_REAL = sorted(TB_FIXTURES.glob("*/results.json"))


@pytest.mark.parametrize("path", TB_REAL, ids=lambda p: p.parent.name)
def test_terminal_bench_reading_equals_the_numbers_its_own_code_wrote(path):
    # Written by terminal-bench 0.2.18's BenchmarkResults (tests/fixtures/terminal-bench/generate.py): its
    # accuracy and pass_at_k, keys (the k it prints) and values, are the harness's own.
    doc = json.loads(path.read_text())
    (agent,) = reading(path).values()
    h = agent.to_json()["harness"]
    assert h["name"] == "terminal-bench" and h["runs"] == len(doc["results"])
    assert abs(h["success_rate"] - doc["accuracy"]) <= TOL
    assert list(h["pass_at_k"]) == list(doc["pass_at_k"])
    assert all(abs(h["pass_at_k"][k] - v) <= TOL for k, v in doc["pass_at_k"].items())


def test_terminal_bench_repeated_runs_equal_its_code_on_the_pooled_trials():
    expected = json.loads((TB_FIXTURES / "pooled-claude-y.json").read_text())
    h = reading(*(TB_FIXTURES / run / "results.json" for run in expected["runs"]))["anthropic/claude-y"]
    h = h.to_json()["harness"]
    assert h["runs"] == expected["trials"] and abs(h["success_rate"] - expected["accuracy"]) <= TOL
    assert list(h["pass_at_k"]) == list(expected["pass_at_k"])
    assert all(abs(h["pass_at_k"][k] - v) <= TOL for k, v in expected["pass_at_k"].items())


def test_terminal_bench_attempts_in_one_file_hand_checked():
    agent = reading(TB_FIXTURES / "five-attempts" / "results.json")["anthropic/claude-y"].to_json()
    h = agent["harness"]
    # resolved per task of 5: hello 5, fix-git 2, chess 1, sqlite 0 -> 8 / 20
    assert h["success_rate"] == 0.4
    # pass@2 = mean(1, 1 - C(3,2)/C(5,2), 1 - C(4,2)/C(5,2), 0) = (1 + 0.7 + 0.4 + 0) / 4
    assert h["pass_at_k"]["2"] == pytest.approx((1 + 0.7 + 0.4) / 4, abs=1e-12)
    assert h["pass_at_k"]["5"] == pytest.approx(0.75, abs=1e-12)  # every task but sqlite solved at least once
    # pass^k is the canonical reading's only (terminal-bench computes none): pass^5 = only hello-world -> 1/4
    assert h["pass_k"] == {} and agent["repeatability"]["pass_k"]["5"] == pytest.approx(0.25)
    # one attempt per task: terminal-bench prints no pass@k
    one = reading(TB_FIXTURES / "one-attempt" / "results.json")["openai/gpt-x"].to_json()["harness"]
    assert one["pass_at_k"] == {} and one["success_rate"] == 0.4


# Inspect epoch reducers: per sample and epoch, the score the judge gives ("boom": the solver raises, no score;
# NaN: Inspect's unscored mark).
REDUCER_PLAN = {"a": ["C", "C", "I", "C"], "b": ["I", "I", "C", "I"], "c": [0.5, 1.0, 0.5, 0.25],
                "d": ["C", "boom", "I", "I"], "e": ["I"] * 4, "f": ["C", math.nan, "I", math.nan],
                "g": [math.nan] * 4, "h": [1, True, "C", 0]}
REDUCERS = ["max", "mean", "median", "mode", "majority", "at_least_2", "pass_at_2", "pass_k_2"]


def _reducer_logs(log_dir: Path) -> dict[str, Path]:
    """One real Inspect eval (mockllm/model, offline) per reducer list, with four epochs."""
    from inspect_ai import Epochs, Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import solver

    def outputs(messages, tools, tool_choice, config):
        out = ModelOutput.from_content("mockllm/model", "answer")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    @solver
    def agent():
        async def solve(state, generate):
            if REDUCER_PLAN[state.sample_id][state.epoch - 1] == "boom":
                raise RuntimeError("solver exploded")
            return await generate(state)
        return solve

    @scorer(metrics=[accuracy()])
    def judge():
        async def score(state, target):
            return Score(value=REDUCER_PLAN[state.sample_id][state.epoch - 1])
        return score

    task = Task(name="reducers", dataset=[Sample(input="q", id=i) for i in REDUCER_PLAN], solver=[agent()],
                scorer=judge())
    return {label: run_inspect(task, outputs, log_dir / label, epochs=Epochs(4, reducers))
            for label, reducers in (("all", REDUCERS), ("default", None), ("unreduced", []))}


# With --dist loadgroup (Makefile) the module's tests run on one xdist process:
# the Inspect AI reducer logs (a module fixture) are written once, on one process.
pytestmark = pytest.mark.xdist_group("harness_readings")


@pytest.fixture(scope="module")
def reducer_logs(tmp_path_factory):
    return _reducer_logs(tmp_path_factory.mktemp("reducers"))


def test_inspect_reading_follows_each_epoch_reducer_as_inspect_computes_it(reducer_logs):
    from inspect_ai.log import read_eval_log

    from scoring.load.importers.reading import inspect_reading

    log = read_eval_log(str(reducer_logs["all"]))
    assert [s.reducer for s in log.results.scores] == REDUCERS
    (file,) = import_file(reducer_logs["all"]).report.files
    assert file.reducer == "max"  # the log's first reducer, the one Inspect reports first
    for score in log.results.scores:
        mine = inspect_reading(file.trials, file.scorer, score.reducer)
        assert abs(mine.success_rate - score.metrics["accuracy"].value) <= TOL, score.reducer
        assert mine.detail["reducer"] == score.reducer and "reducer_note" not in mine.detail
    # the report's reading: the first reducer's accuracy, said in words
    (agent,) = reading(reducer_logs["all"]).values()
    h = agent.to_json()["harness"]
    assert h["reducer"] == "max" and abs(h["success_rate"] - log.results.scores[0].metrics["accuracy"].value) <= TOL
    # 8 samples x 4 epochs, less the errored epoch and the 6 NaN (unscored) ones
    assert h["runs"] == 32 - 1 - 6
    assert any("epochs reduced by max" in note for note in agent.notes())


def test_inspect_reducers_hand_checked(reducer_logs):
    from scoring.load.importers.reading import inspect_reading

    (file,) = import_file(reducer_logs["all"]).report.files

    def acc(reducer):
        return inspect_reading(file.trials, file.scorer, reducer).success_rate

    # g is unscored in every epoch and leaves every metric; h's values 1, True, "C" are all 1.0 and 0 is 0.0
    # max: a b c d f h reach 1, e does not -> 6/7
    assert acc("max") == pytest.approx(6 / 7)
    # majority, a strict one over the epochs that carry a score (NaN ones count toward the total): a (C 3 of 4)
    # 1; b (I 3 of 4), d (I 2 of its 3 scored epochs) and e 0; c (0.5 2 of 4), f (1 of 4 each) and h (1 and True
    # are one value in Inspect's Counter: 2 of 4) reach none and leave the metric -> 1/4
    assert acc("majority") == pytest.approx(1 / 4)
    assert acc("at_least_2") == pytest.approx(2 / 7)  # a (3 correct) and h (3 correct)
    # pass^2 per sample: a C(3,2)/C(4,2) = 0.5, b 0, c C(1,2) = 0, d 0 (1 of 3), e 0, f 0 (1 of 2), h 0.5
    assert acc("pass_k_2") == pytest.approx((0.5 + 0.5) / 7)


def test_inspect_default_and_unreduced_logs_equal_inspect(reducer_logs):
    from inspect_ai.log import read_eval_log

    for label, expected in (("default", "mean"), ("unreduced", "(unreduced)")):
        log = read_eval_log(str(reducer_logs[label]))
        (agent,) = reading(reducer_logs[label]).values()
        h = agent.to_json()["harness"]
        assert h["reducer"] == expected
        assert abs(h["success_rate"] - log.results.scores[0].metrics["accuracy"].value) <= TOL, label


def test_an_unknown_reducer_is_read_as_the_mean_and_says_so(reducer_logs):
    from inspect_ai.log import read_eval_log

    from scoring.load.importers.reading import inspect_reading
    from scoring.measures.report import harness_words

    log = read_eval_log(str(reducer_logs["all"]))
    (file,) = import_file(reducer_logs["all"]).report.files
    mine = inspect_reading(file.trials, file.scorer, "my_vote")
    mean = next(s for s in log.results.scores if s.reducer == "mean").metrics["accuracy"].value
    assert abs(mine.success_rate - mean) <= TOL and mine.detail["reducer"] == "mean"
    assert "'my_vote' is not one this reading reproduces" in harness_words(mine)


def test_nan_scores_do_not_refuse_a_log_and_are_named(reducer_logs):
    imported = import_file(reducer_logs["default"])
    assert any("6 sample(s) have a NaN score" in w for w in imported.report.all_warnings())
    runs = imported.validate().runs
    assert runs.loc[runs["task_id"] == "g", "success"].isna().all()


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet='NaIfinity"\\\\ \\u00e9x{}[],:'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='NI"\\\\a'), inner, max_size=4),
    max_leaves=20)


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return math.copysign(0.0, value) if not math.isnan(value) else 0.0
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


@settings(max_examples=300, deadline=None)
@given(_JSON_VALUES, st.integers(1, 9), st.integers(1, 9))
def test_nonfinite_literals_read_as_numbers_in_any_chunking(value, chunk, size):
    from scoring.load.importers._base import NonFiniteAsNumbers

    text = json.dumps(value).encode()  # Python writes NaN, Infinity and -Infinity as bare literals
    stream = NonFiniteAsNumbers(io.BytesIO(text), chunk=chunk)
    out = b"".join(iter(lambda: stream.read(size), b""))
    assert len(out) == len(text)  # the same length: positions in a refusal still point into the file
    assert json.loads(out) == _finite(value)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(1, 9))
def test_nonfinite_reader_takes_any_bytes_and_keeps_their_length(data, chunk):
    from scoring.load.importers._base import NonFiniteAsNumbers

    stream = NonFiniteAsNumbers(io.BytesIO(data), chunk=chunk)
    assert len(b"".join(iter(lambda: stream.read(7), b""))) == len(data)


# --------------------------------------------------------------------------- numbers a reading cannot take
# (a reviewer's hostile harness files, 2026-12-06: each test failed before its fix)


def _probe_json(edit) -> bytes:
    """The probe log (tests/fixtures/inspect/probe.eval) as an Inspect .json log, edited as JSON text."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(INSPECT))
    out = Path(tempfile.mkdtemp()) / "probe.json"
    write_eval_log(log, str(out), format="json")
    return edit(out.read_text()).encode()


def test_huge_costs_give_tau2s_mean_not_a_traceback():
    """Two costs of 1e308 overflowed the reading's fsum (OverflowError, a traceback from the command line); the
    mean is the exact sum's, a finite number."""
    doc = json.loads(TAU2_FILES[0].read_text())
    for simulation in doc["simulations"][:2]:
        simulation["agent_cost"] = 1e308
    (agent,) = reading((json.dumps(doc).encode(), "huge.json")).values()
    cost = agent.to_json()["harness"]["avg_cost_usd"]
    assert cost is not None and 1e307 <= cost <= 1e308


def test_an_infinite_inspect_score_is_refused_naming_its_sample():
    """Inspect reads a score of Infinity as an infinite accuracy: the JSON report failed ("Out of range float
    values") and the table said "success inf%". The sample is refused, by row and sample."""
    data = _probe_json(lambda text: text.replace('"value": "C"', '"value": Infinity', 1))
    with pytest.raises(RunsValidationError) as info:
        import_file(data, "inf.json").validate()
    (problem,) = info.value.problems
    assert (problem.row, problem.column, problem.value) == (1, "success", "Infinity")
    assert "sample 1: the score is not a finite number" in info.value.report()
    agent = _excluded_reading(data, "inf.json")
    # Excluded, the other epochs' accuracy (mean reducer): easy C, C -> 1; hard I, C, I -> 1/3; medium C, C, I -> 2/3
    assert agent.to_json()["harness"]["success_rate"] == pytest.approx((1 + 1 / 3 + 2 / 3) / 3)


def _excluded_reading(data: bytes, name: str):
    loaded = import_file(data, name).validate(exclude_invalid=True)
    (agent,) = score_runs(loaded.runs, harness=loaded.harness).agents
    return agent


def test_a_nan_cost_or_time_in_an_inspect_log_is_refused_not_read_as_missing():
    """A NaN total_cost or total_time became an empty cell (NaN is "no value" in the raw frame), left out of the
    means without a word; SPEC 1 refuses a non-finite number."""
    def edit(text: str) -> str:
        doc = json.loads(text)
        doc["samples"][1]["model_usage"]["mockllm/model"]["total_cost"] = float("nan")
        doc["samples"][3]["total_time"] = float("nan")
        return json.dumps(doc)

    with pytest.raises(RunsValidationError) as info:
        import_file(_probe_json(edit), "nan.json").validate()
    assert [(p.row, p.column, p.value) for p in info.value.problems] == [(2, "cost_usd", "NaN"),
                                                                          (4, "latency_ms", "NaN")]


def test_scores_the_two_readings_take_apart_are_named(capsys):
    """'c' is a success by SPEC 7 (any case) and 0 in Inspect's value_to_float, 'yes' the reverse: the two success
    rates differed and nothing said why (Inspect's own "Unable to convert value to float: c" reached stderr)."""
    def edit(text: str) -> str:
        return text.replace('"value": "C"', '"value": "c"', 1).replace('"value": "I"', '"value": "yes"', 1)

    imported = import_file(_probe_json(edit), "lower.json")
    said = [w for w in imported.report.all_warnings() if "readings take apart" in w]
    assert said == ["2 sample(s) have a score the two readings take apart, so Inspect's own accuracy and the "
                    "canonical success rate differ on them: 'c' (1), 'yes' (1). A success here is C, 1, 1.0 or "
                    "true in any case; Inspect's value_to_float counts only 'C' itself, yes/true and "
                    "numbers"]
    assert "Unable to convert" not in capsys.readouterr().err
    plain = import_file(INSPECT)
    assert not any("readings take apart" in w for w in plain.report.all_warnings())


def test_rows_excluded_here_are_said_to_be_in_the_harness_reading():
    """With rows excluded, the harness's reading still reads its file whole: said beside the two numbers."""
    data = _probe_json(lambda text: text.replace('"value": "C"', '"value": Infinity', 1))
    loaded = import_file(data, "inf.json").validate(exclude_invalid=True)
    assert loaded.excluded_rows == 1
    assert ("each harness's own reading reads its file whole, so it may count the 1 row(s) excluded here: its "
            "numbers and the canonical ones may count different runs") in loaded.warnings
    assert not any("excluded here" in w for w in import_file(INSPECT).validate(exclude_invalid=True).warnings)


def test_inspects_reader_refusal_counts_samples_from_1_as_every_other_message():
    """Inspect's reader said "samples.1.id: Field required" of the second sample; every other message says
    "sample 2"."""
    def edit(text: str) -> str:
        doc = json.loads(text)
        del doc["samples"][1]["id"]
        return json.dumps(doc)

    with pytest.raises(RunsValidationError) as info:
        import_file(_probe_json(edit), "no_id.json")
    assert "not readable as an Inspect log: sample 2: id: Field required" in info.value.report()


def test_the_notes_say_why_a_harness_reading_differs_and_what_it_is_over(tmp_path):
    """A reconciliation review: every harness's gap was put down to "counts every run it evaluates" (wrong for
    Inspect, which drops the errored epoch too and averages over samples), Inspect's accuracy read "over 19 runs"
    for 5 samples, tau2's average reward (its headline) was never shown, two files of one agent read as the
    harness's own figure, and a canonical pass^k over fewer tasks than the harness's said nothing."""
    sims = [("1", "user_stop", 1.0, 0.1), ("1", "user_stop", 1.0, 0.1), ("1", "user_stop", 1.0, 0.1),
            ("1", "too_many_errors", 0.0, 0.1), ("2", "user_stop", 0.5, 0.1), ("2", "user_stop", 1.0, 0.1)]
    (agent,) = reading((json.dumps(tau2_results(sims, num_trials=4)).encode(), "t.json")).values()
    notes = " | ".join(agent.notes())
    assert ("beside it, tau2-bench reads every simulation but an infrastructure error, one that ended in an error "
            "or at its step limit as a failure (reward 0): success (reward 1) 66.67%") in notes
    assert "tau2-bench's own reading (its rules, not the canonical score): average reward 0.7500" in notes
    assert "counts every run it evaluates" not in notes
    # task 2 has 2 outcomes: the canonical pass^k reads task 1 alone, tau2's both
    assert "pass^k over 1 of 2 tasks: 1 has fewer than 3 outcomes (published minimum), where tau2-bench averages " \
           "every task it read" in notes
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(tau2_results(sims[:3], num_trials=3)))
    second = tau2_results(sims[:3], num_trials=3)
    for i, sim in enumerate(second["simulations"]):
        sim["id"] = f"other-{i}"
    b.write_text(json.dumps(second))
    (pooled,) = score_runs(import_files([a, b]).validate().runs,
                           harness=import_files([a, b]).validate().harness).agents
    assert "over 6 runs, pooled from 2 files by the explorer (explorer-defined: the harness reads one at a time)" \
        in " | ".join(pooled.notes())


def test_inspects_reading_is_an_accuracy_over_samples(reducer_logs):
    path = reducer_logs["default"]
    (agent,) = reading(path).values()
    h = agent.harness
    notes = " | ".join(agent.notes())
    samples = h.detail["samples"]
    assert "Inspect's own reading (its rules, not the canonical score): accuracy " in notes
    assert f"over {samples} samples ({h.runs} scored epochs)" in notes and samples < h.runs


def test_terminal_bench_refuses_tokens_written_as_text_and_names_a_trial_without_its_task(tmp_path):
    """A reviewer's files: "total_input_tokens": "1000" was priced by --prices as 1,000 tokens; a first trial without
    task_id refused the whole file as another kind of file; a run_metadata.json that is not JSON said "no
    run_metadata.json names a model"."""
    path = terminal_bench_run(tmp_path, "run1", TB_RUN1)
    doc = json.loads(path.read_text())
    doc["results"][0]["total_input_tokens"] = "1000"
    del doc["results"][1]["task_id"]
    path.write_text(json.dumps(doc))
    with pytest.raises(RunsValidationError) as info:
        import_files([path]).validate()
    said = {(p.row, p.column): p.reason for p in info.value.problems}
    assert said[(1, "input_tokens")] == "not a number (trial 1: total_input_tokens is a number written as text)"
    assert said[(2, "task_id")] == "trial 2: task_id is missing"
    (path.parent / "run_metadata.json").write_text("{not json")
    words = " ".join(map(str, import_files([path]).report.mapped))
    assert "the run folder's name (its run_metadata.json is not readable JSON (" in words


def test_a_terminal_bench_file_whose_own_accuracy_its_trials_do_not_give_says_so(tmp_path):
    """A reconciliation review: a results.json storing accuracy 0.5 over trials that give 0.25 was read without a
    word, beside a reading of 25%: the number the file says terminal-bench printed, and ours, two apart."""
    path = terminal_bench_run(tmp_path, "run1", TB_RUN1)
    assert not [w for w in import_files([path]).report.all_warnings() if "own accuracy" in w]  # its code wrote it
    doc = json.loads(path.read_text())
    doc["accuracy"] = 0.9
    path.write_text(json.dumps(doc))
    said = [w for w in import_files([path]).report.all_warnings() if "own accuracy" in w]
    assert said == ["the file's own accuracy, 0.9, is not what its trials give (0.4: 2 resolved of 5): the file was "
                    "edited or written by another version; the reading beside the report is recomputed from the "
                    "trials"]
    for real in TB_REAL:
        assert not [w for w in import_files([real]).report.all_warnings() if "own accuracy" in w], real
