"""SPEC 7: harness files become runs; every mapping cell pinned by a hand-worked example.

Real data: trimmed copies of two third-party tau2-bench result files (tests/fixtures/tau2,
see trim.py there). Inspect AI logs are produced here by real inspect_ai runs of a tiny
task on ``mockllm/model`` (offline), in both the .eval and the .json format.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import subprocess
import sys
import zipfile
from decimal import Decimal
from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.load.importers import (
    Mapping,
    MappingError,
    SuccessRule,
    apply_mapping,
    combine,
    detect,
    folder_forms,
    import_file,
    import_files,
    mapping_from_json,
    mapping_to_json,
    termination_status,
)
from scoring.load.runs import RunsValidationError, load_runs
from scoring.measures.repeatability import pass_hat_k, task_outcomes
from scoring.measures.report import score_runs
from tests.helpers import run_inspect, terminal_bench_run

FIXTURES = Path(__file__).parent / "fixtures" / "tau2"
GROK3 = FIXTURES / "2025-10-13T12-25-14.993547_airline_llm_agent_grok-3_user_simulator_grok-3_task_11.json"
GROK3_MINI = FIXTURES / "2025-10-06T06-22-46.727114_airline_llm_agent_grok-3-mini_user_simulator_grok-3-mini.json"


# --------------------------------------------------------------------------- builders


def simulation(i: int = 1, **fields) -> dict:
    """One tau2-bench SimulationRun as tau2 writes it (the fields the importer reads, and a few it does not)."""
    sim = {
        "id": f"sim-{i}", "task_id": "7", "timestamp": "2025-10-06T06:24:03.245661",
        "start_time": "2025-10-06T06:23:33.000000", "end_time": "2025-10-06T06:24:03.000000",
        "duration": 30.0, "termination_reason": "user_stop", "agent_cost": 0.002, "user_cost": 0.5,
        "reward_info": {"reward": 1.0, "db_check": {"db_match": True, "db_reward": 1.0}},
        "messages": [
            {"role": "assistant", "content": "Hi!", "tool_calls": None, "turn_idx": 0},
            {"role": "user", "content": "Help", "tool_calls": None, "turn_idx": 1},
            {"role": "assistant", "content": "", "turn_idx": 2,
             "tool_calls": [{"id": "c1", "name": "get_user", "arguments": {}, "requestor": "assistant"}]},
            {"id": "c1", "role": "tool", "content": "{}", "requestor": "assistant", "error": False, "turn_idx": 3},
        ],
        "trial": 0, "seed": 300,
    }
    sim.update(fields)
    return sim


def tau2_doc(simulations: list, llm: str = "xai/grok-3", domain: str = "airline", num_trials: int = 1,
             tasks: list | None = None) -> dict:
    return {
        "timestamp": "2025-10-06T06:22:46.943095",
        "info": {"git_commit": "d003d75", "num_trials": num_trials, "max_steps": 200, "max_errors": 10,
                 "user_info": {"implementation": "user_simulator", "llm": llm},
                 "agent_info": {"implementation": "llm_agent", "llm": llm, "llm_args": {"temperature": 0.0}},
                 "environment_info": {"domain_name": domain, "policy": "..."}, "seed": 300},
        "tasks": tasks if tasks is not None else [{"id": "7"}],
        "simulations": simulations,
    }


def as_bytes(doc) -> bytes:
    return json.dumps(doc).encode()


def tau2_import(simulations: list, **kwargs):
    return import_file(as_bytes(tau2_doc(simulations)), "run.json", **kwargs)


def only_row(imported) -> dict:
    runs = imported.validate().runs
    assert len(runs) == 1
    return runs.iloc[0].to_dict()


def taubench_result(task_id: int = 0, trial: int = 0, reward: float = 1.0, *, error: str | None = None,
                    tool_calls: int = 2) -> dict:
    """One tau-bench EnvRunResult.model_dump() as tau_bench/run.py writes it."""
    if error is not None:
        return {"task_id": task_id, "reward": 0.0, "info": {"error": error, "traceback": "Traceback ..."},
                "traj": [], "trial": trial}
    traj = [{"role": "system", "content": "wiki"}, {"role": "user", "content": "hi"}]
    for n in range(tool_calls):
        call = {"id": f"call_{n}", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}
        traj += [{"role": "assistant", "content": None, "tool_calls": [call], "function_call": None},
                 {"role": "tool", "tool_call_id": f"call_{n}", "name": "get_order", "content": "{}"}]
    traj += [{"role": "assistant", "content": "done", "tool_calls": None, "function_call": None},
             {"role": "user", "content": "###STOP###"}]
    info = {"task": {"user_id": "u1", "actions": [], "instruction": "...", "outputs": []}, "source": "user",
            "user_cost": 0.004, "reward_info": {"reward": reward, "info": {"r_actions": reward}, "actions": []}}
    return {"task_id": task_id, "reward": reward, "info": info, "traj": traj, "trial": trial}


def tau2_reference_pass_hat_k(num_trials: int, success_count: int, k: int) -> float:
    """tau2-bench's own rule (src/tau2/metrics/agent_metrics.py), reimplemented as the reference."""
    if num_trials < k:
        raise ValueError(f"Number of trials {num_trials} is less than k {k}.")
    return comb(success_count, k) / comb(num_trials, k)


def tau2_is_successful(reward: float) -> bool:
    return (1 - 1e-6) <= reward <= (1 + 1e-6)


# --------------------------------------------------------------------------- detection


def test_detect_reads_the_content_not_the_extension(tmp_path):
    assert detect(GROK3) == "tau2"
    assert detect(GROK3.read_bytes(), "results.csv") == "tau2"  # a misleading extension does not matter
    assert detect(as_bytes([taubench_result()]), "x.json") == "tau-bench"
    assert detect(b"run_id,agent_id,task_id,status,success,latency_ms,cost_usd\n", "runs.csv") == "runs"
    assert detect(b'[{"run_id": "r1", "agent_id": "a"}]', "runs.json") == "runs"
    assert detect(b'{"run_id": "r1"}\n{"run_id": "r2"}\n', "runs.jsonl") == "runs"
    buffer = io.BytesIO()
    pd.DataFrame({"run_id": ["r1"]}).to_parquet(buffer)
    assert detect(buffer.getvalue(), "runs.parquet") == "runs"


def test_detect_tau2_folder_and_seekable_streams(tmp_path):
    folder = write_tau2_folder(tmp_path, [simulation(1), simulation(2)])
    assert detect(folder) == "tau2"
    assert detect(folder / "results.json") == "tau2"
    stream = io.BytesIO(GROK3.read_bytes())
    assert detect(stream, "g.json") == "tau2"
    assert stream.tell() == 0  # rewound for the caller


def test_detect_refuses_a_zip_that_is_not_an_inspect_log_and_a_plain_folder(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(RunsValidationError, match=r"not an Inspect \.eval log"):
        detect(buffer.getvalue(), "x.eval")
    with pytest.raises(RunsValidationError, match="folder form"):
        detect(tmp_path)


# --------------------------------------------------------------------------- tau2-bench, SPEC 7 column 1


def test_tau2_every_mapping_cell_by_hand():
    row = only_row(tau2_import([simulation(1, duration=1.5, agent_cost=0.25, user_cost=9.0,
                                           end_time="2025-10-06T06:24:03.245650")]))
    assert row["run_id"] == "sim-1"  # simulation id
    assert row["agent_id"] == "xai/grok-3@airline"  # info.agent_info.llm + '@' + domain_name
    assert row["task_id"] == "7"
    assert row["status"] == "completed"  # user_stop
    assert row["success"] is True or row["success"] == True  # noqa: E712 (pandas boolean scalar)
    assert row["latency_ms"] == 1500.0  # 1.5 s x 1000
    assert row["cost_usd"] == 0.25  # agent_cost; the user simulator's user_cost (9.0) is not used
    assert row["steps"] == 1  # one tool call in the agent's messages
    assert row["finished_at"] == pd.Timestamp("2025-10-06T06:24:03.245650", tz="UTC")  # naive end_time as UTC


@pytest.mark.parametrize("reason, status", [
    ("user_stop", "completed"), ("agent_stop", "completed"), ("max_steps", "timeout"),
    ("too_many_errors", "failed"), ("agent_error", "failed"), ("user_error", "failed"),
    ("infrastructure_error", "failed"), ("unexpected_error", "failed"),
    ("timeout", "timeout"), ("context_window_exceeded", "failed"),  # explorer-defined
])
def test_tau2_termination_reasons(reason, status):
    assert termination_status(reason) == status
    assert only_row(tau2_import([simulation(1, termination_reason=reason)]))["status"] == status


@pytest.mark.parametrize("reward, success", [
    (1.0, True), (0.0, False), (0.9999995, True), (1.0000009, True),  # within 1 +- 1e-6
    (0.999998, False), (1.000002, False), (0.5, False),  # partial credit is a failure
])
def test_tau2_success_is_the_reward_within_one_millionth_of_one(reward, success):
    assert bool(only_row(tau2_import([simulation(1, reward_info={"reward": reward})]))["success"]) is success


def test_tau2_failed_runs_have_no_outcome_and_missing_reward_is_unknown():
    imported = tau2_import([simulation(1, termination_reason="agent_error", reward_info={"reward": 1.0}),
                            simulation(2, reward_info=None)])
    runs = imported.validate().runs.set_index("run_id")
    assert runs.loc["sim-1", "status"] == "failed" and pd.isna(runs.loc["sim-1", "success"])
    assert runs.loc["sim-2", "status"] == "completed" and pd.isna(runs.loc["sim-2", "success"])
    assert any("no reward: success left empty" in w for w in imported.report.all_warnings())


def test_tau2_steps_count_only_the_agents_tool_calls():
    messages = [
        {"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "b"}]},
        {"role": "user", "tool_calls": [{"id": "u"}]},  # a user simulator's tool (telecom): not the agent's
        {"role": "tool", "content": "ok"},
        {"role": "assistant", "tool_calls": [{"id": "c"}]},
        {"role": "assistant", "tool_calls": None},
    ]
    assert only_row(tau2_import([simulation(1, messages=messages)]))["steps"] == 3
    assert only_row(tau2_import([simulation(1, messages=[m | {"tool_calls": None} for m in messages])]))["steps"] == 0
    no_messages = tau2_import([simulation(1, messages=None)])  # full-duplex runs keep ticks, not messages
    assert pd.isna(only_row(no_messages)["steps"])
    assert any("steps left empty" in w for w in no_messages.report.all_warnings())


def test_tau2_time_zones_naive_read_as_utc_with_a_warning_aware_kept():
    imported = tau2_import([simulation(1, end_time="2025-10-06T06:24:03"),
                            simulation(2, end_time="2025-10-06T08:24:03+02:00")])
    runs = imported.validate().runs.set_index("run_id")
    assert runs.loc["sim-1", "finished_at"] == runs.loc["sim-2", "finished_at"] == pd.Timestamp(
        "2025-10-06T06:24:03", tz="UTC")
    assert "1 end_time value(s) have no time zone: read as UTC" in imported.report.all_warnings()


def test_tau2_report_names_every_spec7_decision_with_its_source_unit():
    text = tau2_import([simulation(1)]).report.text()
    for phrase in ("run_id <- simulation id",
                   "agent_id <- info.agent_info.llm + '@' + info.environment_info.domain_name",
                   "task_id <- task_id", "user_stop/agent_stop -> completed", "max_steps -> timeout",
                   "any *error* reason -> failed", "1 - 1e-6 <= reward <= 1 + 1e-6", "failed runs -> empty",
                   "latency_ms <- duration (s) x 1000", "cost_usd <- agent_cost (USD)",
                   "steps <- number of tool calls in role 'assistant' messages",
                   "finished_at <- end_time (ISO-8601; no time zone -> read as UTC)",
                   "user_cost (USD): the user simulator's cost, not the agent's"):
        assert phrase in text, phrase


def test_tau2_partial_rewards_and_unequal_trials_warn_like_tau2():
    sims = [simulation(1, task_id="1", trial=0), simulation(2, task_id="1", trial=1),
            simulation(3, task_id="2", trial=0, reward_info={"reward": 0.5})]
    imported = import_file(as_bytes(tau2_doc(sims, num_trials=2, tasks=[{"id": "1"}, {"id": "2"}, {"id": "3"}])),
                           "r.json")
    warnings = " | ".join(imported.report.all_warnings())
    assert "1 simulation(s) have a reward other than 0 or 1 (0.5)" in warnings
    assert "unequal trial counts (1 to 2 per task; expected 2 as info.num_trials); fewest: task(s) 2" in warnings
    assert "tau2-bench computes pass^k only up to k = 1" in warnings
    assert "1 of the file's 3 listed task(s) have no simulation" in warnings
    # Every task alike but short of info.num_trials: not "unequal ... (1 to 1 per task" (a reviewer's file
    # with rows excluded read "unequal trial counts (9 to 9 per task; expected 10")
    short = [simulation(1, task_id="1", trial=0), simulation(2, task_id="2", trial=0)]
    said = " | ".join(import_file(as_bytes(tau2_doc(short, num_trials=2, tasks=[{"id": "1"}, {"id": "2"}])),
                                  "s.json").report.all_warnings())
    assert "fewer trials than expected (1 per task; expected 2 as info.num_trials)" in said and "unequal" not in said


def test_each_harness_note_on_unequal_trials_says_what_that_harness_computes(tmp_path):
    # tau2: k up to num_trials, cut to the fewest simulations of a task it evaluates; an infrastructure_error is
    # not evaluated (compute_metrics drops it), a context_window_exceeded is (its evaluator gives it reward 0).
    sims = [simulation(1, task_id="1", trial=0), simulation(2, task_id="1", trial=1),
            simulation(3, task_id="1", trial=2, termination_reason="context_window_exceeded"),
            simulation(4, task_id="2", trial=0),
            simulation(5, task_id="2", trial=1, termination_reason="infrastructure_error")]
    warnings = " | ".join(import_file(as_bytes(tau2_doc(sims, num_trials=3, tasks=[{"id": "1"}, {"id": "2"}])),
                                      "r.json").report.all_warnings())
    assert "1 simulation(s) ended with infrastructure_error: failed here; tau2-bench leaves them out" in warnings
    assert "unequal trial counts (2 to 3 per task; expected 3 as info.num_trials); fewest: task(s) 2" in warnings
    assert "tau2-bench computes pass^k only up to k = 1" in warnings  # task 2: one simulation evaluated
    more = [simulation(i, task_id="1", trial=i) for i in range(3)] + [simulation(9, task_id="2", trial=0)]
    warnings = " | ".join(import_file(as_bytes(tau2_doc(more, num_trials=2, tasks=[{"id": "1"}, {"id": "2"}])),
                                      "r.json").report.all_warnings())
    assert "unequal trial counts (1 to 3 per task; expected 3; info.num_trials says 2)" in warnings
    # tau-bench: display_metrics divides every task by comb(distinct trials, k), k up to that count.
    results = [taubench_result(0, t) for t in range(4)] + [taubench_result(1, t) for t in range(3)]
    imported = import_file(as_bytes(results), "tb.json")
    warnings = " | ".join(imported.report.all_warnings())
    assert "unequal trial counts (3 to 4 per task; expected 4); fewest: task(s) 1" in warnings
    assert "tau-bench computes pass^k up to k = 4 for every task, reading a task's missing trials as failures" \
        in warnings
    assert "would compute" not in warnings
    # terminal-bench prints pass@k (2, 4, ... up to the fewest attempts), no pass^k.
    path = terminal_bench_run(tmp_path, "run", [("hello", True, "none"), ("hello", True, "none"),
                                                ("chess", False, "none")])
    warnings = " | ".join(import_file(path).report.all_warnings())
    assert "unequal trial counts (1 to 2 per task; expected 2)" in warnings
    assert "terminal-bench prints pass@k only for k up to 1; the explorer computes every k" in warnings
    assert "pass^k only" not in warnings


def test_tau2_agent_override_and_missing_agent_info():
    doc = tau2_doc([simulation(1)])
    del doc["info"]["agent_info"]["llm"]
    with pytest.raises(RunsValidationError, match=r"info.agent_info.llm is missing"):
        import_file(as_bytes(doc), "r.json")
    imported = import_file(as_bytes(doc), "r.json", agent="my-agent")
    assert only_row(imported)["agent_id"] == "my-agent"
    assert "given agent 'my-agent'" in imported.report.text()


def test_tau2_real_fixtures_end_to_end():
    both = import_files([GROK3_MINI, GROK3])
    loaded = both.validate()
    runs = loaded.runs
    assert len(runs) == 20 and loaded.rows_read == 20
    assert sorted(runs["agent_id"].unique()) == ["xai/grok-3-mini@airline", "xai/grok-3@airline"]
    per_agent = runs.groupby("agent_id", observed=True)
    assert per_agent["task_id"].nunique().to_dict() == {"xai/grok-3-mini@airline": 9, "xai/grok-3@airline": 1}
    assert per_agent["success"].sum().to_dict() == {"xai/grok-3-mini@airline": 3, "xai/grok-3@airline": 3}
    assert set(runs["status"]) == {"completed"}
    # Every latency is the file's duration x 1000 and every cost the file's agent_cost.
    for path in (GROK3, GROK3_MINI):
        for sim in json.loads(path.read_text())["simulations"]:
            row = runs[runs["run_id"] == sim["id"]].iloc[0]
            # x 1000 on the shortest decimal form (no float noise: 1.023 s is 1023 ms, not 1022.9999999999999)
            exact = float(Decimal(repr(sim["duration"])) * 1000)
            assert row["latency_ms"] == exact and row["cost_usd"] == sim["agent_cost"]
    report = score_runs(runs)
    grok3, mini = report.agent("xai/grok-3@airline"), report.agent("xai/grok-3-mini@airline")
    assert grok3.headline.score == 26.51 and mini.headline.score == 47.64
    assert grok3.headline.success_rate == mini.headline.success_rate == 0.3
    assert grok3.headline.latency_score == 0.0  # 24.5 s on average: beyond the 10 s anchor
    assert grok3.repeatability.pass_k == {1: 0.3, 3: pytest.approx(1 / 120), 5: 0.0}
    assert mini.repeatability.pass_k is None  # 1 or 2 trials per task: no task qualifies (n >= 3)
    assert any("unequal trial counts (1 to 2 per task; expected 4" in w for w in loaded.warnings)


@pytest.mark.parametrize("path", [GROK3, GROK3_MINI], ids=["grok-3", "grok-3-mini"])
def test_pass_hat_k_agrees_with_tau2_bench_on_real_results(path):
    doc = json.loads(path.read_text())
    reference = pd.DataFrame({"task_id": [s["task_id"] for s in doc["simulations"]],
                              "success": [tau2_is_successful(s["reward_info"]["reward"]) for s in doc["simulations"]]})
    max_k = int(reference["task_id"].value_counts().min())  # tau2: k up to the smallest trial count
    ours = task_outcomes(import_file(path).validate().runs).set_index("task_id")
    assert len(ours) == reference["task_id"].nunique()
    for k in range(1, max_k + 1):
        theirs = reference.groupby("task_id")["success"].apply(
            lambda s, k=k: tau2_reference_pass_hat_k(len(s), int(s.sum()), k))
        for task, value in theirs.items():
            n, c = int(ours.loc[task, "n"]), int(ours.loc[task, "c"])
            assert pass_hat_k(n, c, k) == value, (task, k)
        # The agent-level mean, tau2's reading (every task with n >= 1), from our per-task values.
        assert np.mean([pass_hat_k(int(r.n), int(r.c), k) for r in ours.itertuples()]) == pytest.approx(theirs.mean())


def test_grok3_pass_hat_k_curve_matches_tau2_for_every_k_up_to_ten():
    runs = import_file(GROK3).validate().runs
    curve = score_runs(runs).agent("xai/grok-3@airline").repeatability.curve(range(1, 11))
    assert curve == {k: pytest.approx(tau2_reference_pass_hat_k(10, 3, k)) for k in range(1, 11)}
    assert [round(curve[k], 6) for k in (1, 2, 3, 4)] == [0.3, 0.066667, 0.008333, 0.0]


def write_tau2_folder(root: Path, sims: list, *, index: bool = True) -> Path:
    folder = root / "run"
    (folder / "simulations").mkdir(parents=True)
    meta = tau2_doc([])
    del meta["simulations"]
    if index:
        meta["simulation_index"] = [{"id": s["id"], "task_id": s["task_id"], "trial": s["trial"]} for s in sims]
    (folder / "results.json").write_text(json.dumps(meta))
    for s in sims:
        (folder / "simulations" / f"{s['id']}.json").write_text(json.dumps(s))
    return folder


def test_tau2_folder_form_reads_like_the_single_file(tmp_path):
    sims = [simulation(1, task_id="7", trial=0), simulation(2, task_id="7", trial=1, reward_info={"reward": 0.0})]
    folder = write_tau2_folder(tmp_path, sims)
    from_folder = import_file(folder).validate().runs
    from_file = tau2_import(sims).validate().runs
    pd.testing.assert_frame_equal(from_folder.drop(columns="source_row"), from_file.drop(columns="source_row"))
    assert import_files([folder]).report.files[0].name == "run"


def test_tau2_folder_problems_name_the_simulation_file_and_a_missing_file_is_refused(tmp_path):
    folder = write_tau2_folder(tmp_path, [simulation(1), simulation(2, termination_reason=None)])
    with pytest.raises(RunsValidationError) as info:
        import_file(folder).validate()
    assert "simulation file simulations/sim-2.json: termination_reason is missing" in str(info.value)
    (folder / "simulations" / "sim-1.json").unlink()
    with pytest.raises(RunsValidationError, match="simulation_index have no file"):
        import_file(folder)


# --------------------------------------------------------------------------- tau2 hostile records


def test_tau2_every_malformed_record_is_named_and_good_records_survive():
    sims = [
        simulation(1),
        simulation(2, termination_reason=None),
        simulation(3, termination_reason="sleepy"),
        "not an object",
        {k: v for k, v in simulation(5).items() if k != "id"},
        simulation(6, duration="12"),
        simulation(7, reward_info={"reward": "1"}),
        simulation(8, messages="hello"),
        simulation(9, messages=[{"role": "assistant", "tool_calls": {"id": 1}}]),
        simulation(10, agent_cost=[1]),
        simulation(11, duration=-3.0),
    ]
    imported = tau2_import(sims)
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    text = str(info.value)
    for expected in (
        "row 2, column 'status': simulation 2: termination_reason is missing",
        "row 3, column 'status', value 'sleepy': simulation 3: termination_reason is not one tau2-bench writes",
        "row 4, value 'not an object': simulation 4: a simulation must be a JSON object",
        "row 5, column 'run_id': simulation 5: id is missing",
        "row 6, column 'latency_ms', value '12': simulation 6: duration is text, not a number (seconds)",
        "row 7, column 'success', value '1': simulation 7: reward_info.reward is text, not a number",
        "row 8, column 'steps': simulation 8: the messages are not a list",
        "row 9, column 'steps': simulation 9: message 1: tool_calls is not a list",
        "row 10, column 'cost_usd', value '[1]': simulation 10: agent_cost is a nested value, not a number (USD)",
        # the file's own value in seconds (it said the scaled '-3000.0', a reviewer's note of 2026-12-06)
        "row 11, column 'latency_ms', value '-3.0': negative; must be 0 or more (simulation 11: duration in seconds)",
    ):
        assert expected in text, expected
    kept = imported.validate(exclude_invalid=True)
    assert list(kept.runs["run_id"]) == ["sim-1"] and kept.excluded_rows == 10


def test_tau2_problem_rows_cannot_be_scored_even_if_the_problems_are_ignored():
    from scoring.load.runs import validate_runs

    imported = tau2_import([simulation(1), simulation(2, duration="12")])
    with pytest.raises(RunsValidationError, match="run_id"):
        validate_runs(imported.raw, rows=imported.rows)  # the caller forgot imported.problems


@pytest.mark.parametrize("data, reason", [
    (b"", "the file is empty"),
    (b"{not json", "not valid JSON"),
    (b'{"info": {}, "tasks": []}', "simulations is missing"),
    (b'{"simulations": 3}', "simulations is not a list"),
    (as_bytes(tau2_doc([])), "the file has no simulations"),
    (b'{"simulations": [' + b"[" * 100 + b"]" * 100 + b"]}", "nests 102 levels deep"),
    (b'{"simulations": [{"duration": NaN}]}', "info.agent_info.llm is missing"),
])
def test_tau2_file_level_refusals(data, reason):
    with pytest.raises(RunsValidationError, match=reason):
        import_file(data, "r.json", kind="tau2")


def test_tau2_nan_and_huge_numbers_are_refused_not_read_as_empty():
    doc = as_bytes(tau2_doc([simulation(1)])).replace(b'"duration": 30.0', b'"duration": NaN')
    doc = doc.replace(b'"agent_cost": 0.002', b'"agent_cost": 1e400')
    with pytest.raises(RunsValidationError) as info:
        import_file(doc, "r.json").validate()
    assert "duration is NaN, not a finite number" in str(info.value)  # the literal named (it read "text")
    assert "agent_cost is not a finite number" in str(info.value)


def test_json_depth_scan_stays_linear_on_escaped_quotes_without_an_end():
    import time

    from scoring.load.importers._base import json_depth

    hostile = b'{"simulations": ["' + b'\\"' * 200_000  # every quote escaped, the string never closes
    started = time.perf_counter()
    with pytest.raises(RunsValidationError, match="not valid JSON"):
        import_file(hostile, "r.json", kind="tau2")
    assert time.perf_counter() - started < 5  # a quadratic scan takes hours here
    assert json_depth(b'[["\\\\"], [[1]], "]]]"]') == 3


def test_tau2_limits_refuse_before_reading():
    data = as_bytes(tau2_doc([simulation(i) for i in range(1, 4)]))
    with pytest.raises(RunsValidationError, match=r"max_memory"):
        import_file(data, "r.json", limits=Limits(max_memory=len(data) - 1))
    with pytest.raises(RunsValidationError, match=r"3 simulations is more than the limit of 2 \(max_rows\)"):
        import_file(data, "r.json", limits=Limits(max_rows=2))
    with pytest.raises(RunsValidationError, match=r"max_json_depth"):
        import_file(data, "r.json", limits=Limits(max_json_depth=3))


# --------------------------------------------------------------------------- tau-bench, SPEC 7 column 2


def test_taubench_every_mapping_cell_by_hand():
    results = [taubench_result(3, 0, 1.0, tool_calls=2), taubench_result(3, 1, 0.0),
               taubench_result(4, 0, error="rate limited")]
    imported = import_file(as_bytes(results), "gpt-4o-retail.json")
    runs = imported.validate().runs.set_index("run_id")
    assert list(runs.index) == ["gpt-4o-retail:4:0", "gpt-4o-retail:3:1", "gpt-4o-retail:3:0"]  # newest (last) first
    first = runs.loc["gpt-4o-retail:3:0"]
    assert first["agent_id"] == "gpt-4o-retail"  # the file stem
    assert first["task_id"] == "3" and first["status"] == "completed" and bool(first["success"]) is True
    assert first["steps"] == 2  # tool calls in the assistant messages of traj
    assert pd.isna(first["latency_ms"]) and pd.isna(first["cost_usd"]) and pd.isna(first["finished_at"])
    assert bool(runs.loc["gpt-4o-retail:3:1", "success"]) is False
    errored = runs.loc["gpt-4o-retail:4:0"]
    assert errored["status"] == "failed" and pd.isna(errored["success"]) and pd.isna(errored["steps"])
    text = imported.report.text()
    for phrase in ("run_id <- 'gpt-4o-retail:' + task_id + ':' + trial", "agent_id <- file stem 'gpt-4o-retail'",
                   "info.error present -> failed", "1 - 1e-6 <= reward <= 1 + 1e-6",
                   "latency_ms: tau-bench records no duration", "no cost recorded by tau-bench",
                   "finished_at: tau-bench records no end time (file order is used"):
        assert phrase in text, phrase
    assert any("file order is used" in w for w in imported.validate().warnings)


def test_taubench_agent_option_replaces_the_stem_and_text_actions_leave_steps_empty():
    react = taubench_result(1, 0, 1.0)
    react["traj"] = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Action: {...}"}]
    imported = import_file(as_bytes([react]), "out.json", agent="react-agent")
    row = only_row(imported)
    assert row["agent_id"] == "react-agent" and pd.isna(row["steps"])
    assert any("act/react" in w for w in imported.report.all_warnings())


def test_taubench_end_to_end_and_pass_hat_k_like_tau_bench():
    results = [taubench_result(t, trial, 1.0 if (t + trial) % 3 else 0.0) for trial in range(4) for t in range(5)]
    loaded = import_file(as_bytes(results), "sonnet.json").validate()
    report = score_runs(loaded.runs)
    agent = report.agent("sonnet")
    assert agent.headline.completed_runs == 20 and agent.headline.latency_runs == 0
    assert "no latency recorded" in agent.headline.flags and "no cost recorded" in agent.headline.flags
    # tau-bench's display_metrics: per task comb(c, k) / comb(num_trials, k), then the mean over tasks.
    c = {t: sum(1 for r in results if r["task_id"] == t and r["reward"] == 1.0) for t in range(5)}
    for k in (1, 3):
        theirs = sum(comb(c[t], k) / comb(4, k) for t in range(5)) / 5
        assert agent.repeatability.pass_k[k] == pytest.approx(theirs)


@pytest.mark.parametrize("record, expected", [
    ({"reward": 1.0, "info": {}, "traj": [], "trial": 0}, "result 1: task_id is missing"),
    ({"task_id": 1, "reward": 1.0, "info": {}, "traj": []}, "result 1: trial is missing"),
    ({"task_id": 1, "reward": 1.0, "info": {}, "traj": [], "trial": "0"}, "result 1: trial is not a whole number"),
    ({"task_id": 1, "reward": "yes", "info": {}, "traj": [], "trial": 0}, "result 1: reward is text, not a number"),
    ({"task_id": 1, "info": {}, "traj": [], "trial": 0}, "result 1: reward is missing"),
    ({"task_id": 1, "reward": 1.0, "info": [], "traj": [], "trial": 0}, "result 1: info is not an object"),
    ({"task_id": 1, "reward": 1.0, "info": {}, "traj": {}, "trial": 0}, "result 1: traj: the messages are not a list"),
    ({"task_id": [1], "reward": 1.0, "info": {}, "traj": [], "trial": 0}, "result 1: task_id is not text or a whole"),
])
def test_taubench_malformed_results_are_named(record, expected):
    with pytest.raises(RunsValidationError) as info:
        import_file(as_bytes([record]), "r.json", kind="tau-bench").validate()
    assert expected in str(info.value)


def test_taubench_file_level_refusals():
    with pytest.raises(RunsValidationError, match="expected a JSON array of tau-bench results"):
        import_file(b'{"a": 1}', "r.json", kind="tau-bench")
    with pytest.raises(RunsValidationError, match="the file has no results"):
        import_file(b"[]", "r.json", kind="tau-bench")


# --------------------------------------------------------------------------- Inspect AI, SPEC 7 column 3


def _inspect_logs(log_dir: Path) -> dict[str, Path]:
    """Run a tiny task on mockllm/model, offline, and write its log in both formats.

    Samples: ``ok`` (one tool call, then an answer; scored C except in epoch 3), ``partial``
    (scored 0.5), ``boom`` (the solver raises in epoch 2: an error), ``long`` (a message limit
    stops it: a limit), ``tok`` (a token limit stops it). Every output carries usage, so
    inspect never needs a tokenizer; a second scorer lets a test choose it.
    """
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import solver, use_tools
    from inspect_ai.tool import tool
    from inspect_ai.util import message_limit, token_limit

    @tool
    def lookup():
        async def execute(key: str) -> str:
            """Look a key up.

            Args:
              key: The key.
            """
            return f"value of {key}"
        return execute

    def outputs(messages, tools, tool_choice, config):
        if messages[-1].role == "user" and tools:
            out = ModelOutput.for_tool_call("mockllm/model", "lookup", {"key": "x"})
        else:
            out = ModelOutput.from_content("mockllm/model", "answer")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15, total_cost=0.001)
        return out

    @solver
    def agent():
        async def solve(state, generate):
            if state.sample_id == "boom" and state.epoch == 2:
                raise RuntimeError("solver exploded")
            if state.sample_id == "long":
                with message_limit(2):
                    return await generate(state, tool_calls="loop")
            if state.sample_id == "tok":
                with token_limit(20):
                    return await generate(state, tool_calls="loop")
            return await generate(state, tool_calls="loop")
        return solve

    @scorer(metrics=[accuracy()])
    def judge():
        async def score(state, target):
            if state.sample_id == "partial":
                return Score(value=0.5)
            return Score(value="I" if state.epoch == 3 else "C")
        return score

    @scorer(metrics=[accuracy()])
    def lenient():
        async def score(state, target):
            return Score(value=1.0)
        return score

    samples = [Sample(input="question", id=i) for i in ("ok", "partial", "boom", "long", "tok")]
    task = Task(name="probe", dataset=samples,
                solver=[use_tools(lookup()), agent()], scorer=[judge(), lenient()])
    return {fmt: run_inspect(task, outputs, log_dir / fmt, epochs=3, log_format=fmt) for fmt in ("eval", "json")}


# With --dist loadgroup (Makefile) the module's tests run on one xdist process:
# the Inspect AI logs (a module fixture) are written once, on one process.
pytestmark = pytest.mark.xdist_group("importers")


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory):
    return _inspect_logs(tmp_path_factory.mktemp("inspect"))


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_inspect_every_mapping_cell_by_hand(inspect_logs, fmt):
    from inspect_ai.log import read_eval_log

    path = inspect_logs[fmt]
    assert detect(path) == "inspect" and detect(path.read_bytes(), "log") == "inspect"
    log = read_eval_log(str(path))
    imported = import_file(path.read_bytes(), path.name)  # bytes, as an upload would be
    runs = imported.validate().runs.set_index("run_id")
    assert len(runs) == 15 and set(runs["agent_id"]) == {"mockllm/model@probe"}  # eval.model + '@' + eval.task
    for sample in log.samples:
        row = runs.loc[f"{log.eval.run_id}:{sample.id}:{sample.epoch}"]
        assert row["task_id"] == sample.id
        assert row["latency_ms"] == pytest.approx(sample.total_time * 1000)
        assert row["finished_at"] == pd.Timestamp(sample.completed_at)
        expected_cost = sum(u.total_cost for u in sample.model_usage.values()) if sample.model_usage else None
        assert (pd.isna(row["cost_usd"]) if expected_cost is None else row["cost_usd"] == pytest.approx(expected_cost))
    by_sample = runs.reset_index().set_index(["task_id", runs.reset_index()["run_id"].str.rsplit(":", n=1).str[1]])
    assert by_sample.loc[("ok", "1"), "status"] == "completed" and bool(by_sample.loc[("ok", "1"), "success"])
    assert bool(by_sample.loc[("ok", "3"), "success"]) is False  # scored I
    assert by_sample.loc[("ok", "1"), "steps"] == 1  # one tool call in the assistant messages
    assert by_sample.loc[("ok", "1"), "cost_usd"] == pytest.approx(0.002)  # two generations x 0.001
    assert pd.isna(by_sample.loc[("partial", "1"), "success"])  # 0.5: partial credit -> empty
    assert by_sample.loc[("boom", "2"), "status"] == "failed" and pd.isna(by_sample.loc[("boom", "2"), "success"])
    assert pd.isna(by_sample.loc[("boom", "2"), "steps"])  # the model never answered
    assert by_sample.loc[("boom", "1"), "status"] == "completed"
    assert (by_sample.loc["long", "status"] == "timeout").all()  # message limit
    assert (by_sample.loc["tok", "status"] == "timeout").all()  # token limit
    text = imported.report.text()
    for phrase in ("run_id <- eval.run_id + ':' + sample id + ':' + epoch", "agent_id <- eval.model + '@' + eval.task",
                   "task_id <- sample id", "error set -> failed; sample limit set -> timeout; else completed",
                   "scores['judge'].value: C/1/1.0/true -> true, I/0/0.0/false -> false",
                   "latency_ms <- total_time (s) x 1000", "sum of model_usage[*].total_cost (USD)",
                   "steps <- number of tool calls in assistant messages", "finished_at <- completed_at",
                   "scores of 'lenient': the import uses the first scorer"):
        assert phrase in text, phrase
    assert any("3 sample(s) have a score that is neither correct nor incorrect" in w
               for w in imported.report.all_warnings())


def test_inspect_both_formats_give_the_same_runs_and_scores(inspect_logs):
    frames = {}
    for fmt, path in inspect_logs.items():
        runs = import_file(path).validate().runs
        frames[fmt] = runs.assign(run_id=runs["run_id"].str.split(":", n=1).str[1]).set_index("run_id").sort_index()
        report = score_runs(runs).agent("mockllm/model@probe")
        # Outcomes: ok C,C,I; boom C,(failed),I; long C,C,I; tok C,C,I; partial none -> 7 of 11 known.
        assert report.radar.axes["correctness"] == pytest.approx(100 * 7 / 11, abs=0.01)
        assert report.repeatability.qualifying_tasks == 3 and report.repeatability.pass_k[1] == pytest.approx(2 / 3)
    columns = ["task_id", "status", "success", "cost_usd", "steps"]
    pd.testing.assert_frame_equal(frames["eval"][columns], frames["json"][columns])


def test_inspect_scorer_choice_and_unknown_scorer(inspect_logs):
    runs = import_file(inspect_logs["json"], scorer="lenient").validate().runs
    assert runs.loc[runs["status"] != "failed", "success"].all()
    with pytest.raises(RunsValidationError, match="the log has no scorer 'nope'; it has: judge, lenient"):
        import_file(inspect_logs["json"], scorer="nope")


def test_inspect_hostile_logs_are_refused_cleanly(inspect_logs):
    data = inspect_logs["eval"].read_bytes()
    for broken in (data[: len(data) // 2], data[:100]):
        with pytest.raises(RunsValidationError, match="Inspect"):
            import_file(broken, "cut.eval", kind="inspect")
    with pytest.raises(RunsValidationError, match=r"unpacks to .*max_memory"):
        import_file(data, "x.eval", limits=Limits(max_memory=len(data) + 10))
    with pytest.raises(RunsValidationError, match=r"15 samples is more than the limit of 10"):
        import_file(data, "x.eval", limits=Limits(max_rows=10))
    with pytest.raises(RunsValidationError, match="not readable as an Inspect log"):
        import_file(b'{"version": 2, "status": "success", "eval": 3}', "x.json", kind="inspect")


# --------------------------------------------------------------------------- generic mapping


SOURCE_CSV = (b"id,model,prompt,task,state,seconds,cents,passed,when\n"
              b"1,gpt,v1,t1,OK,1.5,2,yes,2026-01-01T00:00:00Z\n"
              b"2,gpt,v1,t1,crash,,3,no,2026-01-01T00:01:00\n"
              b"3,gpt,v2,t2,ok,abc,1,maybe,\n")

MAPPING = Mapping(
    columns={"run_id": "id", "agent_id": ["model", "prompt"], "task_id": "task", "status": "state",
             "latency_ms": "seconds", "cost_usd": "cents", "success": "passed", "finished_at": "when"},
    separator="/", units={"latency_ms": "s", "cost_usd": "cents"},
    success=SuccessRule(true_values=("yes",), false_values=("no",)),
    status_values={"ok": "completed", "crash": "failed"}, experiment="exp-a",
)


def test_mapping_converts_units_joins_ids_and_leaves_invalid_values_for_validation():
    imported = import_file(SOURCE_CSV, "results.csv", mapping=MAPPING)
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    problems = {(p.row, p.column, p.value) for p in info.value.problems}
    assert problems == {(3, "latency_ms", "abc"), (3, "success", "maybe")}  # the source CSV's row 3, as written
    runs = imported.validate(exclude_invalid=True).runs.set_index("run_id")
    assert runs.loc["1", "agent_id"] == "gpt/v1 [exp-a]"  # model + '/' + prompt, then the experiment tag
    assert runs.loc["1", "latency_ms"] == 1500.0 and runs.loc["1", "cost_usd"] == 0.02  # s x 1000, cents x 0.01
    assert runs.loc["1", "status"] == "completed" and runs.loc["2", "status"] == "failed"  # any case
    assert bool(runs.loc["1", "success"]) and not bool(runs.loc["2", "success"])
    assert runs.loc["2", "finished_at"] == pd.Timestamp("2026-01-01T00:01:00", tz="UTC")
    assert imported.raw["experiment"].unique().tolist() == ["exp-a"]
    text = imported.report.text()
    for phrase in ("latency_ms <- 'seconds' (s) x 1000", "cost_usd <- 'cents' (cents) x 0.01",
                   "agent_id <- 'model' + '/' + 'prompt' + ' [exp-a]'", "'ok' -> completed; 'crash' -> failed",
                   "true for 'yes'; false for 'no'", "1 finished_at value(s) have no time zone"):
        assert phrase in text, phrase


def test_a_scored_column_left_out_of_a_mapping_is_a_warning_that_says_what_it_costs():
    """A reviewer mapped a table without cost_usd and read "0 warnings": every agent then lost its cost score."""
    from scoring.load.importers.mapping import UNMAPPED_COST, apply_mapping, mapping_from_json

    frame = pd.DataFrame({"id": ["1"], "who": ["a"], "t": ["x"], "st": ["completed"], "ok": ["true"], "ms": ["100"],
                          "usd": ["0.01"]})
    every = {"run_id": "id", "agent_id": "who", "task_id": "t", "status": "st", "success": "ok", "latency_ms": "ms",
             "cost_usd": "usd"}
    for left_out in (None, "cost_usd", "latency_ms", "success"):
        columns = {k: v for k, v in every.items() if k != left_out}
        mapping = mapping_from_json(json.dumps({"mapping_version": 1, "columns": columns}))
        report = apply_mapping(frame, mapping).report
        assert report.files[0].warnings == (() if left_out is None else (UNMAPPED_COST[left_out],))
        if left_out is not None:
            assert f"{left_out} is not mapped" in report.text() and "score" in UNMAPPED_COST[left_out]
    # A latency computed from two timestamps is a mapping too: no warning.
    frame = frame.assign(start=["2026-01-01T00:00:00Z"], end=["2026-01-01T00:00:01Z"])
    mapping = mapping_from_json(json.dumps({"mapping_version": 1, "latency_from": ["start", "end"],
                                            "columns": {k: v for k, v in every.items() if k != "latency_ms"}}))
    assert apply_mapping(frame, mapping).report.files[0].warnings == ()


def test_mapping_threshold_rule_and_nan_text_is_never_an_empty_value():
    frame = pd.DataFrame({"id": ["a", "b", "c", "d", "e"], "m": "x", "t": "t1",
                          "reward": ["1", "0.9999995", "0.5", "NaN", ""]})
    mapping = Mapping(columns={"run_id": "id", "agent_id": "m", "task_id": "t", "success": "reward"},
                      constants={"status": "completed"}, success=SuccessRule(threshold=1.0, tolerance=1e-6))
    imported = apply_mapping(frame, mapping, name="scores.csv")
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    assert [(p.row, p.column, p.value) for p in info.value.problems] == [(4, "success", "NaN")]
    runs = imported.validate(exclude_invalid=True).runs.set_index("run_id")
    assert [bool(runs.loc[r, "success"]) for r in "abc"] == [True, True, False]  # 1, 0.9999995, 0.5
    assert pd.isna(runs.loc["e", "success"])  # an empty cell is an unknown outcome
    assert "constant 'completed'" in imported.report.text()


def test_mapping_true_values_only_make_every_other_value_false():
    frame = pd.DataFrame({"id": ["a", "b"], "m": "x", "t": "t", "s": "completed", "r": ["RESOLVED", "wontfix"]})
    mapping = Mapping(columns={"run_id": "id", "agent_id": "m", "task_id": "t", "status": "s", "success": "r"},
                      success=SuccessRule(true_values=("resolved",)))
    assert apply_mapping(frame, mapping).validate().runs.set_index("run_id")["success"].to_dict() == {
        "a": True, "b": False}


def test_mapping_json_round_trip():
    for mapping in (MAPPING, Mapping(columns={"run_id": "r", "task_id": "t", "status": "s"},
                                     constants={"agent_id": "solo"}, success=None),
                    Mapping(columns={"run_id": "r", "agent_id": "a", "task_id": "t", "status": "s", "success": "x"},
                            success=SuccessRule(threshold=0.8, tolerance=0.01))):
        text = mapping_to_json(mapping)
        assert mapping_from_json(text) == mapping
        assert mapping_from_json(text.encode()) == mapping
        assert mapping_to_json(mapping_from_json(text)) == text


BASE = {"mapping_version": 1, "columns": {"run_id": "r", "agent_id": "a", "task_id": "t", "status": "s"}}


@pytest.mark.parametrize("change, field", [
    ({"mapping_version": 2}, "mapping_version"),
    ({"colour": "red"}, "colour"),
    ({"columns": {"run_id": "r", "agent_id": "a", "task_id": "t"}}, "columns.status"),
    ({"columns": {**BASE["columns"], "speed": "x"}}, "columns.speed"),
    ({"columns": {**BASE["columns"], "latency_ms": ["a", "b"]}}, "columns.latency_ms"),
    ({"columns": {**BASE["columns"], "task_id": ""}}, "columns.task_id"),
    ({"columns": {**BASE["columns"], "task_id": 3}}, "columns.task_id"),
    ({"units": {"latency_ms": "s"}}, "units.latency_ms"),
    ({"columns": {**BASE["columns"], "latency_ms": "d"}, "units": {"latency_ms": "hours"}}, "units.latency_ms"),
    ({"units": {"steps": "s"}}, "units.steps"),
    ({"success": {"threshold": 1}}, "success"),
    ({"columns": {**BASE["columns"], "success": "x"}, "success": {}}, "success"),
    ({"columns": {**BASE["columns"], "success": "x"}, "success": {"threshold": "high"}}, "success.threshold"),
    ({"columns": {**BASE["columns"], "success": "x"}, "success": {"threshold": 1, "tolerance": -1}},
     "success.tolerance"),
    ({"columns": {**BASE["columns"], "success": "x"}, "success": {"true_values": ["y"], "threshold": 1}}, "success"),
    ({"columns": {**BASE["columns"], "success": "x"}, "success": {"true_values": ["y"], "false_values": ["Y"]}},
     "success.false_values"),
    ({"columns": {**BASE["columns"], "success": "x"}, "success": {"true_values": "yes"}}, "success.true_values"),
    ({"columns": {**BASE["columns"], "success": "x"}, "success": {"true_values": ["y"], "scale": 2}},
     "success.scale"),
    ({"status_values": {"ok": "done"}}, "status_values.ok"),
    ({"status_values": {"ok": "completed", "OK": "failed"}}, "status_values.OK"),
    ({"constants": {"run_id": "x"}}, "constants.run_id"),
    ({"constants": {"status": "completed"}}, "constants.status"),
    ({"separator": ""}, "separator"),
    ({"experiment": ""}, "experiment"),
    ({"experiment": 3}, "experiment"),
])
def test_mapping_refusals_name_the_field(change, field):
    with pytest.raises(MappingError) as info:
        mapping_from_json(json.dumps({**BASE, **change}))
    assert info.value.field == field and f"'{field}'" in str(info.value)


@pytest.mark.parametrize("text", ['[1, 2]', '{"mapping_version": 1, "columns": {"run_id": 1e400}}', "{",
                                  "x" * 2_000_000,
                                  '{"mapping_version": 1, "columns": ' + "[" * 40 + "]" * 40 + "}"])
def test_mapping_refuses_hostile_json(text):
    with pytest.raises(MappingError):
        mapping_from_json(text)


def test_mapping_names_missing_source_columns():
    with pytest.raises(RunsValidationError) as info:
        import_file(b"id,model\n1,a\n", "t.csv", mapping=MAPPING)
    missing = {p.column for p in info.value.problems}
    assert missing == {"prompt", "task", "state", "seconds", "cents", "passed", "when"}


def test_mapping_reads_parquet_and_json_tables():
    frame = pd.DataFrame({"ID": ["1", "2"], "Model": ["m", "m"], "Task": ["t", "t"], "State": ["ok", "ok"],
                          "Seconds": [0.5, 2.0]})
    mapping = Mapping(columns={"run_id": "id", "agent_id": "model", "task_id": "task", "status": "state",
                               "latency_ms": "seconds"}, units={"latency_ms": "s"},
                      status_values={"ok": "completed"})
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    for data, name in ((buffer.getvalue(), "t.parquet"), (frame.to_json(orient="records").encode(), "t.json")):
        runs = import_file(data, name, mapping=mapping).validate().runs.set_index("run_id")
        assert runs["latency_ms"].to_dict() == {"2": 2000.0, "1": 500.0}


def test_runs_tables_pass_through_unchanged_with_an_optional_experiment_tag():
    data = b"run_id,agent_id,task_id,status,success,latency_ms,cost_usd\nr1,a,t,completed,true,10,0.1\n"
    imported = import_file(data, "runs.csv", experiment="b")
    assert imported.kind == "runs" and only_row(imported)["agent_id"] == "a [b]"
    with pytest.raises(RunsValidationError, match="'agent' applies to harness files"):
        import_file(data, "runs.csv", agent="x")
    with pytest.raises(RunsValidationError) as info:
        import_file(data.replace(b"10,", b"-1,"), "runs.csv").validate()
    assert info.value.problems[0].message() == ("row 1, column 'latency_ms', value '-1': negative; must be 0 or more "
                                                "[negative]")


# --------------------------------------------------------------------------- several files


def test_import_files_numbers_rows_per_file_and_names_the_file_in_problems():
    bad = [simulation(1), simulation(2, termination_reason=None)]
    imported = import_files([GROK3, (as_bytes(tau2_doc(bad)), "bad.json")])
    assert [(f.name, f.row_offset + 1, f.row_offset + f.last_row) for f in imported.report.files] == [
        (GROK3.name, 1, 10), ("bad.json", 11, 12)]
    assert imported.report.locate(12) == "bad.json: simulation 2"
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    [problem] = info.value.problems
    assert problem.row == 12 and problem.reason == "bad.json: simulation 2: termination_reason is missing"
    assert "rows 11-12" in imported.report.text()


def test_validator_problems_point_back_to_the_file_and_record():
    imported = import_files([GROK3, (as_bytes(tau2_doc([simulation(1, duration=-1.0)])), "neg.json")])
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    assert info.value.problems[0].message() == (  # the file's own value, in seconds (it said '-1000.0')
        "row 11, column 'latency_ms', value '-1.0': neg.json: negative; must be 0 or more (simulation 1: duration in "
        "seconds) [negative]")


def test_a_run_id_repeated_across_files_names_each_rows_own_source():
    """Before, "first seen at row 2 (again.json: simulation 1)": the parenthesis named the repeating row's record,
    read as the first row's (a reviewer's upload of one tau2 run twice, as a file and as its folder form)."""
    first = tau2_doc([simulation(1), simulation(2)])
    imported = import_files([(as_bytes(first), "first.json"), (as_bytes(tau2_doc([simulation(2)])), "again.json")])
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    [problem] = info.value.problems
    assert problem.message() == ("row 3, column 'run_id', value 'sim-2': duplicate run_id (again.json: simulation 1); "
                                 "first seen at row 2 (first.json: simulation 2) [duplicate_run_id]")
    assert problem.first_row == 2  # the number itself, not read back out of the words


def test_a_runs_table_without_a_required_column_is_refused_in_a_batch_as_alone():
    # Read alone, a runs file without cost_usd is refused (SPEC 1). Beside another runs file, its missing column
    # was "not mapped" and filled with the other file's empty cells: its agents scored a cost of 0 without a word.
    good = b"run_id,agent_id,task_id,status,success,latency_ms,cost_usd\nr1,a,t,completed,true,10,0.01\n"
    no_cost = b"run_id,agent_id,task_id,status,success,latency_ms\nr2,b,t,completed,true,10\n"
    with pytest.raises(RunsValidationError) as alone:
        import_file(no_cost, "no_cost.csv").validate()
    with pytest.raises(RunsValidationError) as batch:
        import_files([(no_cost, "no_cost.csv"), (good, "good.csv")])
    assert [(p.code, p.column) for p in alone.value.problems] == [("missing_column", "cost_usd")]
    assert [(p.code, p.column) for p in batch.value.problems] == [("missing_column", "cost_usd"), ("file", None)]
    assert batch.value.problems[0].reason.startswith("no_cost.csv: ")
    # Skipping the refused file is the explicit exclusion (--exclude-invalid, the app's button): named, never silent.
    skipped = import_files([(no_cost, "no_cost.csv"), (good, "good.csv")], skip_refused=True)
    assert skipped.validate().runs["agent_id"].tolist() == ["a"]
    (name, why), = skipped.report.skipped
    assert name == "no_cost.csv" and "required column is missing" in why


def test_experiment_tags_keep_same_model_files_apart():
    first = as_bytes(tau2_doc([simulation(1), simulation(2)]))
    second = as_bytes(tau2_doc([simulation(3), simulation(4, reward_info={"reward": 0.0})]))
    pooled = import_files([(first, "a.json"), (second, "b.json")])
    assert pooled.validate().runs["agent_id"].unique().tolist() == ["xai/grok-3@airline"]
    assert any("a.json, b.json all give agent 'xai/grok-3@airline': their runs are pooled" in w
               for w in pooled.report.warnings)
    apart = import_files([(first, "a.json"), (second, "b.json")], experiments=["prompt-a", "prompt-b"])
    report = score_runs(apart.validate().runs)
    assert [a.agent_id for a in report.agents] == ["xai/grok-3@airline [prompt-a]", "xai/grok-3@airline [prompt-b]"]
    assert report.agent("xai/grok-3@airline [prompt-b]").headline.success_rate == 0.5
    assert not apart.report.warnings
    assert "+ ' [prompt-a]' (experiment tag)" in apart.report.text()


def test_mixed_harnesses_in_one_import(inspect_logs):
    imported = import_files([GROK3, (as_bytes([taubench_result()]), "tb.json"), inspect_logs["eval"]])
    assert imported.kind == "mixed"
    loaded = imported.validate()
    assert len(loaded.runs) == 10 + 1 + 15
    assert any("tb.json record no finished_at" in w for w in loaded.warnings)
    assert set(score_runs(loaded.runs).to_frame()["agent_id"]) == {"xai/grok-3@airline", "tb", "mockllm/model@probe"}
    assert json.dumps(imported.report.to_json())  # exportable beside the score report


def test_import_files_limits_and_argument_checks():
    with pytest.raises(RunsValidationError, match="more than the limit of 15"):
        import_files([GROK3, GROK3_MINI], limits=Limits(max_rows=15))
    with pytest.raises(RunsValidationError, match="1 experiment tag"):
        import_files([GROK3, GROK3_MINI], experiments=["a"])
    with pytest.raises(RunsValidationError, match="unknown kind"):
        import_file(GROK3, kind="tau3")
    with pytest.raises(RunsValidationError, match="no files"):
        combine([])


# --------------------------------------------------------------------------- fuzzing: only refusals ever come out


def _containers(children):
    return st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    _containers, max_leaves=12,
)
SIM_KEYS = list(simulation().keys()) + ["reward_info.reward"]
RESULT_KEYS = list(taubench_result().keys()) + ["info.error"]


def _mutate(record: dict, key: str, value, delete: bool) -> dict:
    record = copy.deepcopy(record)
    target, leaf = (record, key) if "." not in key else (record.setdefault(key.split(".")[0], {}), key.split(".")[1])
    if not isinstance(target, dict):
        return record
    if delete:
        target.pop(leaf, None)
    else:
        target[leaf] = value
    return record


def _only_refusals(data: bytes, kind: str | None) -> None:
    try:
        imported = import_file(data, "fuzz.json", kind=kind)
        imported.validate(exclude_invalid=True)
        imported.validate()
    except RunsValidationError:
        pass


FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(mutations=st.lists(st.tuples(st.sampled_from(SIM_KEYS), json_values, st.booleans()), max_size=4),
       extra=st.lists(json_values, max_size=2), kind=st.sampled_from(["tau2", None]))
def test_fuzz_tau2_mutated_simulations(mutations, extra, kind):
    sims = [simulation(1), simulation(2)]
    for key, value, delete in mutations:
        sims[len(key) % 2] = _mutate(sims[len(key) % 2], key, value, delete)
    _only_refusals(json.dumps(tau2_doc(sims + extra)).encode(), kind)


@FUZZ
@given(doc=json_values, info=json_values)
def test_fuzz_tau2_random_documents(doc, info):
    _only_refusals(json.dumps(doc).encode(), "tau2")
    _only_refusals(json.dumps({"info": info, "tasks": [], "simulations": [doc]}).encode(), None)


@FUZZ
@given(mutations=st.lists(st.tuples(st.sampled_from(RESULT_KEYS), json_values, st.booleans()), max_size=4),
       extra=st.lists(json_values, max_size=2), kind=st.sampled_from(["tau-bench", None]))
def test_fuzz_taubench_mutated_results(mutations, extra, kind):
    results = [taubench_result(1, 0), taubench_result(2, 0, error="boom")]
    for key, value, delete in mutations:
        results[len(key) % 2] = _mutate(results[len(key) % 2], key, value, delete)
    _only_refusals(json.dumps(results + extra).encode(), kind)


@FUZZ
@given(data=st.binary(max_size=300), kind=st.sampled_from(["tau2", "tau-bench", "inspect", None]))
def test_fuzz_random_bytes(data, kind):
    _only_refusals(data, kind)
    with contextlib.suppress(RunsValidationError):
        detect(data, "fuzz.bin")


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(0, 10**6), flips=st.lists(st.integers(0, 10**6), max_size=3))
def test_fuzz_truncated_and_corrupted_real_files(cut, flips):
    data = bytearray(GROK3.read_bytes())
    data = data[: cut % (len(data) + 1)]
    for f in flips:
        if data:
            data[f % len(data)] ^= 0x5A
    _only_refusals(bytes(data), None)


# --------------------------------------------------------------------------- numbers no double holds

HUGE = 10**400  # a valid JSON number; float(HUGE) raises OverflowError


def _refusal(source, name: str | None = None) -> list[tuple]:
    """(row, column, value, reason) of each problem import_file(...).validate() refuses with; anything else
    raised fails the test."""
    with pytest.raises(RunsValidationError) as info:
        import_file(source, name).validate()
    return [(p.row, p.column, p.value, p.reason) for p in info.value.problems]


@pytest.mark.parametrize("key", ["reward", "id", "simulations"])
def test_a_harness_file_repeating_a_key_is_refused_not_read_with_one_value_dropped(key):
    """A reviewer's tau2 file gave one simulation "reward": 0.0, "reward": 1.0: json kept the last, the failure
    became a success (30% -> 40%, 47.64 -> 51.64) without a word; a repeated "id" or "simulations" was read alike.
    A runs file's record is refused for a repeated key; a harness file now is too, naming the key."""
    text = as_bytes(tau2_doc([simulation(1), simulation(2)])).decode()
    assert import_file(text.encode(), "run.json").validate()  # the same file without the repeat: read
    twice = {"reward": ('"reward": ', '"reward": 0.0, "reward": '), "id": ('"id": ', '"id": "x", "id": '),
             "simulations": ('"simulations": ', '"simulations": [], "simulations": ')}[key]
    assert twice[0] in text
    repeated = text.replace(*twice, 1).encode()
    assert _refusal(repeated, "run.json") == [
        (None, None, None, f"an object gives the key {key!r} more than once: a reader could see either value, so "
                           "none is read")]


def test_a_json_whole_number_no_double_holds_is_a_record_problem_in_every_importer(tmp_path):
    cut = str(HUGE)[:200]  # the value, cut short as every record problem shows it
    assert _refusal(as_bytes(tau2_doc([simulation(1), simulation(2, seed=HUGE)])), "run.json") == [
        (2, "seed", cut, "simulation 2: seed is too large for a number")]
    results = [taubench_result(0, trial=0), taubench_result(1, trial=HUGE)]
    assert _refusal(json.dumps(results).encode(), "tb.json") == [
        (2, "trial", cut, "result 2: trial is too large for a number")]
    path = terminal_bench_run(tmp_path, "run1", [("hello", True, "none"), ("chess", False, "none"),
                                                 ("sql", True, "none")])
    doc = json.loads(path.read_text())
    doc["results"][0]["total_input_tokens"] = HUGE
    doc["results"][1]["total_output_tokens"] = -HUGE
    doc["results"][2]["trial_name"] = "sql." + "9" * 5000 + "-of-5.run1"  # int() refuses 4,300 digits
    path.write_text(json.dumps(doc))
    assert _refusal(path) == [
        (1, "input_tokens", cut, "trial 1: input_tokens is too large for a number"),
        (2, "output_tokens", "-" + str(HUGE)[:199], "trial 2: output_tokens is too large for a number"),
        (3, "trial", doc["results"][2]["trial_name"][:200],
         "trial 3: trial_name: the attempt number is too large for a number")]


def test_a_long_numeric_text_pass_through_value_is_validated_whole_not_cut_short():
    # Cut to 200 digits, "1" + 400 zeros would read as 1e199 and be kept. A number written as text is a problem of
    # the record in a harness JSON (a reviewer's "1000" tokens were priced); written as a number, it is not finite.
    imported = tau2_import([simulation(1, seed="1" + "0" * 400)])
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    assert [(p.row, p.column, p.code) for p in info.value.problems] == [(1, "seed", "not_a_number")]
    assert "simulation 1: seed is a number written as text" in info.value.problems[0].reason
    imported = import_file(as_bytes(tau2_doc([simulation(1)])).replace(b'"seed": 300', b'"seed": 1' + b"0" * 400),
                           "r.json")
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    assert [(p.row, p.column) for p in info.value.problems] == [(1, "seed")]


def test_the_cli_lists_a_number_no_double_holds_and_shows_no_traceback(tmp_path):
    path = tmp_path / "run.json"
    path.write_bytes(as_bytes(tau2_doc([simulation(1, seed=HUGE)])))
    done = subprocess.run([sys.executable, "-m", "scoring", "report", str(path)], cwd=Path(__file__).parents[1],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
    assert "row 1, column 'seed', value '1000" in done.stderr + done.stdout
    assert "simulation 1: seed is too large for a number" in done.stderr + done.stdout


@pytest.mark.parametrize("model, kind", [({"a": 1}, "an object"), (None, "null"), ("  ", "blank text"),
                                         (7, "a number")])
def test_a_terminal_bench_model_name_that_is_no_name_is_said_beside_the_agent_name_read(tmp_path, model, kind):
    """A reviewer's run_metadata.json gave model_name {"a": 1}: the agent became its agent_name with no word that
    model_name was there and could not be read."""
    folder = terminal_bench_run(tmp_path, "run1", [("hello", True, "none"), ("chess", False, "none")]).parent
    meta = json.loads((folder / "run_metadata.json").read_text())
    (folder / "run_metadata.json").write_text(json.dumps({**meta, "model_name": model}))
    imported = import_files([folder / "results.json"], experiments=None)
    assert imported.report.files[0].agents == ("terminus",)
    assert f"agent_id <- run_metadata.json agent_name (model_name is given but is not a name: {kind})" in \
        imported.report.text()


def test_a_terminal_bench_run_metadata_given_with_its_results_names_the_agent_as_the_file_beside_it_would(tmp_path):
    """An upload has no folder: its run_metadata.json comes as another file. Given with the results (as bytes, as
    the app gives uploads, or as a path on the command line), it names the agent and is not read as results."""
    folder = terminal_bench_run(tmp_path, "run1", [("hello", True, "none"), ("chess", False, "none")],
                                model="anthropic/claude-z").parent
    results, metadata = (folder / "results.json").read_bytes(), (folder / "run_metadata.json").read_bytes()
    for sources in ([(results, "results.json"), (metadata, "run_metadata.json")],
                    [(metadata, "run_metadata.json"), (results, "results.json")],
                    [folder / "run_metadata.json", folder / "results.json"]):
        imported = import_files(sources, experiments=None)
        [report] = imported.report.files
        assert report.agents == ("anthropic/claude-z",) and len(imported.raw) == 2
        assert report.kind == "terminal-bench"
    tagged = import_files([(results, "results.json"), (metadata, "run_metadata.json")], experiments=["v2", None])
    assert tagged.report.files[0].agents == ("anthropic/claude-z [v2]",)  # each file keeps its own tag
    with pytest.raises(RunsValidationError) as alone:
        import_files([(results, "results.json")])
    assert "give its run folder's run_metadata.json with it (upload both together in the app" in \
        alone.value.problems[0].reason
    with pytest.raises(RunsValidationError) as meta_only:
        import_files([(metadata, "run_metadata.json")])
    assert "terminal-bench's run metadata, not results" in meta_only.value.problems[0].reason
    with pytest.raises(RunsValidationError) as twice:  # which results does each name? neither is guessed
        import_files([(results, "results.json"), (metadata, "run_metadata.json"), (metadata, "run_metadata.json")])
    assert "terminal-bench's run metadata, not results" in str(twice.value.report())


def test_a_tau2_folder_form_given_as_its_files_is_read_as_the_folder_is():
    """An upload has no folder: tau2's folder form comes as results.json and its simulation files. Given
    together they are one input, read as the folder is; results.json alone says what it lacks (before, it said
    "simulations is missing: not a tau2-bench Results file" of a file that is one)."""
    folder = Path(__file__).parent / "fixtures" / "tau2" / "grok-3-folder"
    on_disk = import_files([folder])
    files = [(p.read_bytes(), p.name) for p in sorted((folder / "simulations").glob("*.json"))]
    results = ((folder / "results.json").read_bytes(), "results.json")
    for together in ([results, *files], [*files[::-1], results]):  # in any order, as a browser lists them
        uploaded = import_files(together)
        assert uploaded.raw.equals(on_disk.raw)
        assert uploaded.report.files[0].agents == on_disk.report.files[0].agents
    with pytest.raises(RunsValidationError) as alone:
        import_files([results])
    reason = alone.value.problems[0].reason
    assert "the results.json of tau2-bench's folder form" in reason and "upload its simulations files" in reason
    with pytest.raises(RunsValidationError) as short:  # a simulation missing: refused as tau2-bench refuses it
        import_files([results, *files[1:]])
    assert "1 simulation(s) in simulation_index have no file in simulations/" in str(short.value.report())
    # Which files make the form (what the app's sidebar draws one tag box for): results.json and its simulations
    # in whatever order they come, a file its index does not list left out; none without a results.json
    stray = (files[0][0], "stray.json")
    assert folder_forms([*files[:2], results, stray, *files[2:]], DEFAULT_LIMITS) == [
        (2, [0, 1, *range(4, len(files) + 2)])]
    assert folder_forms(files, DEFAULT_LIMITS) == [] and folder_forms([results], DEFAULT_LIMITS) == []


def test_a_json_file_cut_off_inside_a_string_says_where_in_plain_words():
    """A harness file cut off halfway (a copy that stopped): the decoder's message ends in "at", so the refusal
    read "Unterminated string starting at at line 3" before."""
    cut = b'{"info": {},\n "tasks": [],\n "simulations": [{"id": "abc'
    with pytest.raises(RunsValidationError) as harness:
        import_file(cut, "run.json", kind="tau2")
    with pytest.raises(RunsValidationError) as runs:
        load_runs(b'[{"run_id": "r1', name="runs.json")
    for error, where in ((harness, "line 3, column 25"), (runs, "line 1, column 13")):
        reason = error.value.problems[0].reason
        assert f"not valid JSON: Unterminated string starting at {where}" in reason and "at at" not in reason, reason


def test_a_duration_past_the_largest_number_once_scaled_is_refused_quoting_the_files_value():
    """1e308 seconds x 1000 is past the largest double: refused as 'inf' before, the file's 1e308 now."""
    imported = import_file(as_bytes(tau2_doc([simulation(1, duration=1e308)])), "huge.json")
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    assert info.value.problems[0].message() == ("row 1, column 'latency_ms', value '1e+308': not a finite number "
                                                "(simulation 1: duration in seconds, x 1000) [not_finite]")


@pytest.mark.parametrize("given, shown", [("10", "'10'"), (2.5, "2.5"), (0, "0")])
def test_an_info_num_trials_that_is_not_a_count_is_said_not_read(given, shown):
    """info.num_trials "10" (text) was left aside without a word (a reviewer's tau2 file)."""
    doc = tau2_doc([simulation(1)], num_trials=2)
    doc["info"]["num_trials"] = given
    warnings = import_file(as_bytes(doc), "r.json").report.all_warnings()
    assert f"info.num_trials is {shown}, not a whole number of trials from 1: not read (the trial counts are the " \
           "file's own)" in warnings
    assert not any("num_trials is" in w for w in import_file(as_bytes(tau2_doc([simulation(1)], num_trials=2)),
                                                             "r.json").report.all_warnings())


def test_two_inputs_of_one_name_are_told_apart_by_their_place():
    """Two folders' runs.csv repeating a run_id read "(runs.csv: row 1); first seen at row 1 (runs.csv: row 1)"."""
    text = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd\nr1,a,t,completed,true,1,0.01\n"
    imported = import_files([(text.encode(), "runs.csv"), (text.encode(), "runs.csv")])
    with pytest.raises(RunsValidationError) as info:
        imported.validate()
    [problem] = info.value.problems
    assert "(runs.csv (input 2): row 1); first seen at row 1 (runs.csv (input 1): row 1)" in problem.reason, \
        problem.reason
    other = import_files([(text.encode(), "a.csv"), (text.replace("r1", "r2").encode(), "b.csv")])
    assert "input" not in other.report.locate(2)


def test_inspect_logs_without_the_inspect_extra_say_what_to_install(monkeypatch):
    """A core install has neither inspect_ai nor its zstandard and ijson: an Inspect log is refused in words (exit
    status 2 at the command line), before the checks that stream it with those packages, not by an ImportError."""
    import importlib.util

    from scoring.load.importers import inspect_log

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "inspect_ai" else real(name, *a))
    data = (Path(__file__).parent / "fixtures" / "inspect" / "probe.eval").read_bytes()
    for name, raw in (("probe.eval", data), ("probe.json", b'{"samples": []}')):
        with pytest.raises(RunsValidationError) as refused:
            inspect_log.read_inspect(raw, name)
        assert "needs the inspect_ai package" in str(refused.value)
        assert "scoring-methodology-explorer[inspect]" in str(refused.value), str(refused.value)


def test_a_lone_surrogate_escape_in_a_harness_file_is_read_as_the_file_spells_it_with_a_warning():
    """A reviewer's tau2 file naming its model "xai/grok-3\\ud800" (half a UTF-16 pair, no character) stopped the
    import with a bare UnicodeEncodeError: pandas' strings cannot hold it. Read as written, escape and all, with a
    word; two different surrogates never read as one."""
    text = GROK3.read_text(encoding="utf-8")
    assert text.count('"llm": "xai/grok-3"') >= 1
    edited = text.replace('"llm": "xai/grok-3"', '"llm": "xai/grok-3\\ud800"').replace(
        '"domain_name": "airline"', '"domain_name": "air\\udfffline"', 1)
    imported = import_file(edited.encode(), "sur.json")
    runs = imported.validate().runs
    assert set(runs["agent_id"]) == {"xai/grok-3\\ud800@air\\udfffline"}
    said = text.count('"llm": "xai/grok-3"') + 1
    assert any(f"{said} text(s) hold a lone UTF-16 surrogate escape" in w for w in imported.report.files[0].warnings)
    assert score_runs(runs).agents[0].agent_id == "xai/grok-3\\ud800@air\\udfffline"


def test_a_mapping_names_a_lone_surrogate_and_its_field_once():
    with pytest.raises(MappingError) as info:
        mapping_from_json(json.dumps({**BASE, "separator": "\udc00"}))
    assert str(info.value) == ("mapping field 'separator': the text \"\\udc00\" holds a lone UTF-16 surrogate, "
                               "which is no character")
    with pytest.raises(MappingError) as info:
        mapping_from_json('{"mapping_version": 1, "columns": {"run_id": Infinity}}')
    assert str(info.value).count("mapping") == 1, str(info.value)


def test_the_partial_reward_warning_says_which_of_them_count_as_what():
    """A reviewer read "so 0 count as successes and 1 (partial credit included) as failures" as reward 0 counting
    as a success."""
    from scoring.load.importers._base import outcome_warnings

    [said] = outcome_warnings([1.0, 0.5, 0.0, 0.9999999], "simulation")
    assert said.endswith("so 1 of them count as successes and 1 (partial credit included) as failures"), said


def test_an_eval_with_another_archive_before_its_members_is_refused():
    """A reviewer's .eval: an altered log, then a harmless archive appended. Python's zipfile reads the appended
    one's directory and shifts it past the bytes before it (the checks saw the harmless members); Inspect's reader
    does not shift (it read the altered log, scored 97.31 where the real one scores 83.98, or a 600 MB member
    that ran a worker to its CPU limit)."""
    real = (Path(__file__).parent / "fixtures" / "inspect" / "probe.eval").read_bytes()
    appended = io.BytesIO()
    with zipfile.ZipFile(appended, "w") as archive:
        archive.writestr("header.json", "{}")
    with pytest.raises(RunsValidationError) as info:
        import_file(real + appended.getvalue(), "disguised.eval")
    assert f"the archive's first member starts at byte {len(real) + 1:,}, not at its start" in str(info.value)
    assert import_file(real, "probe.eval").validate().runs.shape[0] > 0  # the log alone reads as before
