"""diff BASELINE NEW: two result sets under one policy, agent by agent (issue 25).

The hand-worked sets use one latency (500 ms: latency score 1), one cost ($0.001: cost score 1) and five
runs per task, so consistency is 1 and every headline is 100 x (0.4 x success rate + 0.3 + 0.3).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import load_runs, runs_from_records
from scoring.analysis.diff import MARKDOWN_WIDTH, RULE, diff_runs, json_text, markdown_text, table_text, verdict
from scoring.analysis.uncertainty import Interval
from scoring.cli.commands import main
from tests.helpers import quarter_of_successes_lost

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"


def records(agent: str, successes: dict[str, int], runs_per_task: int = 5, status: str = "completed") -> list[dict]:
    """``runs_per_task`` runs on each task, the first ``successes[task]`` of them successful."""
    out = []
    for task, wins in successes.items():
        for i in range(runs_per_task):
            out.append({"run_id": f"{agent}-{task}-{i}", "agent_id": agent, "task_id": task, "status": status,
                        "success": i < wins, "latency_ms": 500, "cost_usd": 0.001, "steps": 3,
                        "finished_at": f"2026-06-01T{len(out) // 60:02d}:{len(out) % 60:02d}:00Z"})
    return out


def frame(*parts: list[dict]) -> pd.DataFrame:
    return runs_from_records([r for part in parts for r in part])


ALL_WON = {f"t{i:02d}": 5 for i in range(20)}
ONE_LOST_EACH = {f"t{i:02d}": 4 for i in range(20)}


def test_every_task_losing_one_success_is_a_real_drop_of_exactly_8_points():
    # Baseline 100 x (0.4 + 0.6) = 100; new 100 x (0.4 x 0.8 + 0.6) = 92. Every replicate draws tasks that all
    # lost one run in five, so every replicate's difference is -8: the interval is exactly -8 to -8.
    d = diff_runs(frame(records("a", ALL_WON)), frame(records("a", ONE_LOST_EACH)))
    (a,) = d.agents
    assert (a.headline.baseline, a.headline.new, a.headline.change) == (100.0, 92.0, -8.0)
    assert (a.interval.low, a.interval.high) == (-8.0, -8.0)
    assert a.verdict == "worse"
    assert a.components["success"].baseline == pytest.approx(40.0)
    assert a.components["success"].new == pytest.approx(32.0)
    assert a.components["success"].change == pytest.approx(-8.0)
    for name in ("latency", "consistency", "cost"):
        assert a.components[name].change == pytest.approx(0.0)
    assert (a.axes["correctness"].baseline, a.axes["correctness"].new, a.axes["correctness"].change) == (
        100.0, 80.0, -20.0)
    # pass^1 = 4/5; pass^3 = C(4,3)/C(5,3) = 4/10; pass^5 = C(4,5)/C(5,5) = 0.
    assert {k: (c.baseline, pytest.approx(c.new)) for k, c in a.pass_k.items()} == {1: (1.0, 0.8), 3: (1.0, 0.4),
                                                                                  5: (1.0, 0.0)}
    assert a.pass_k[3].change == pytest.approx(-0.6)
    assert a.newly_solved == a.newly_failed == ()
    assert d.exit_code(None) == 0  # no gate without a threshold
    assert d.exit_code(8.0) == 1 and a.drop == 8.0  # at least the threshold fails
    assert d.exit_code(8.01) == 0


def test_a_drop_on_two_tasks_is_not_real():
    # t1 5/5 in both; t2 5/5 then 3/5. New: 8/10 -> 92, a change of -8. A replicate draws 2 tasks: t1,t1 gives 0,
    # t1,t2 gives -8, and t2,t2 gives 6/10 -> 84, -16 (a quarter of the replicates each end): the 95% interval is
    # exactly -16 to 0, which contains 0.
    d = diff_runs(frame(records("a", {"t1": 5, "t2": 5})), frame(records("a", {"t1": 5, "t2": 3})))
    (a,) = d.agents
    assert a.headline.change == -8.0
    assert (a.interval.low, a.interval.high) == (-16.0, 0.0)
    assert a.verdict == "no real change"
    assert d.exit_code(0.0) == 0 and a.drop == 0.0


def test_tasks_newly_solved_and_newly_failed_and_a_real_gain():
    base = {f"t{i:02d}": 5 for i in range(10)} | {"never": 0, "lost": 5}
    new = {f"t{i:02d}": 5 for i in range(10)} | {"never": 5, "lost": 0}
    d = diff_runs(frame(records("a", base)), frame(records("a", new)))
    (a,) = d.agents
    assert (a.newly_solved, a.newly_failed) == (("never",), ("lost",))
    assert a.headline.change == 0.0 and a.verdict == "no real change"  # one task gained, one lost: same rate
    # One task of twelve gained: a replicate that does not draw it (about a third of them) shows no change.
    one = diff_runs(frame(records("a", base)), frame(records("a", base | {"never": 5}))).agents[0]
    assert one.headline.change > 0 and one.interval.low == 0.0 and one.verdict == "no real change"
    # Every task gained a success: every replicate's difference is positive.
    gained = diff_runs(frame(records("a", ONE_LOST_EACH | {"never": 0})), frame(records("a", ALL_WON | {"never": 5})))
    better = gained.agents[0]
    assert better.verdict == "better" and better.newly_solved == ("never",) and better.interval.low > 0


def test_agents_in_one_set_only_are_listed_and_agent_filter():
    base = frame(records("both", ALL_WON), records("gone", ALL_WON))
    new = frame(records("both", ALL_WON), records("fresh", ALL_WON))
    d = diff_runs(base, new)
    assert [a.agent_id for a in d.agents] == ["both"]
    assert (d.only_in_baseline, d.only_in_new) == (("gone",), ("fresh",))
    only = diff_runs(base, new, agents=["fresh"])
    assert (only.agents, only.only_in_baseline, only.only_in_new) == ((), (), ("fresh",))
    with pytest.raises(KeyError):
        diff_runs(base, new, agents=["nobody"])


def test_an_agent_that_lost_its_score_is_worse_by_its_whole_score():
    base = frame(records("a", ALL_WON))
    new = frame(records("a", ALL_WON, status="failed"))  # no completed run: no headline score
    (a,) = diff_runs(base, new).agents
    assert a.verdict == "worse" and a.headline.change is None and a.interval is None
    assert a.drop == 100.0 and a.fails(100.0) and not a.fails(None)
    back = diff_runs(new, base).agents[0]
    assert back.verdict == "better" and back.drop == 0.0


def test_verdict_rule():
    assert verdict(50.0, 50.0, Interval(0.0, 0.0, 0.0)) == "no real change"
    assert verdict(50.0, 51.0, Interval(0.01, 2.0, 1.0)) == "better"
    assert verdict(50.0, 49.0, Interval(-2.0, -0.01, -1.0)) == "worse"
    assert verdict(50.0, 49.0, Interval(-2.0, 0.0, -1.0)) == "no real change"  # 0 inside (at the edge)
    assert verdict(50.0, 49.0, None) == "no real change"


def test_renderings_state_the_rule_and_the_verdicts():
    d = diff_runs(frame(records("a", ALL_WON)), frame(records("a", ONE_LOST_EACH)))
    md = markdown_text(d, 1.0)
    assert "| `a` | 100.00 | 92.00 | -8.00 | -8.00 to -8.00 | **worse** |" in md
    assert "FAILED (a)" in md
    assert "| pass^3 | 100.00% | 40.00% | -60.00 pp |" in md
    text = table_text(d, None)
    assert "Gate: none" in text and "worse" in text
    assert " ".join(RULE.split()) in " ".join(md.split())
    doc = json.loads(json_text(d, 1.0))
    assert doc["gate"] == "fail" and doc["agents"][0]["interval"] == {"low": -8.0, "high": -8.0}
    assert doc["agents"][0]["pass_k"]["5"] == {"baseline": 1.0, "new": 0.0, "change": -1.0}


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=150).filter(
    lambda s: s.strip() == s and s.strip())


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(agent=names, task=names)
def test_markdown_never_wider_than_100_columns(agent: str, task: str):
    base = frame(records(agent, {task: 5, "t2": 0}, runs_per_task=3), records(agent + "x", {"t": 3}, 3))
    new = frame(records(agent, {task: 0, "t2": 3}, runs_per_task=3), records("y" + agent, {"t": 3}, 3))
    md = markdown_text(diff_runs(base, new, replicates=20), 1.0)
    assert max(len(line) for line in md.splitlines()) <= MARKDOWN_WIDTH
    summaries = [line for line in md.splitlines() if line.startswith("<summary>")]
    assert summaries and all("<" not in s[len("<summary><code>"):-len("</summary>")].replace("</code>", "")
                             for s in summaries)  # a name never opens a tag


def test_markdown_escapes_names_in_html_and_tables():
    name = "<img src=x onerror=alert(1)>|`x`"
    md = markdown_text(diff_runs(frame(records(name, ALL_WON)), frame(records(name, ALL_WON)), replicates=20))
    assert "<summary><code>&lt;img src=x onerror=alert(1)&gt;|`x`</code>: no real change</summary>" in md
    assert "| `<img src=x onerror=alert(…` |" in md  # a code span (shortened): its text is never markup
    assert all("<img" not in re.sub(r"`[^`]*`", "", line) for line in md.splitlines())
    wide = diff_runs(frame(records("a|b`c", ALL_WON)), frame(records("a|b`c", ALL_WON)), replicates=20)
    assert "| `a\\|b'c` |" in markdown_text(wide)  # | escaped, ` replaced


# --------------------------------------------------------------------------- the command (issue 25's Done-when)


@pytest.fixture(scope="module")
def quarter_lost(tmp_path_factory) -> Path:
    """The sample with every fourth successful run of steady-pro turned into a failure."""
    return quarter_of_successes_lost(tmp_path_factory.mktemp("diff") / "new.csv")


def test_cli_quarter_of_successes_lost_is_worse_and_fails_the_gate(quarter_lost, capsys):
    code = main(["diff", str(SAMPLE), str(quarter_lost), "--fail-on-drop", "1", "--format", "json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    verdicts = {a["agent_id"]: a["verdict"] for a in doc["agents"]}
    assert verdicts.pop("steady-pro") == "worse"
    assert set(verdicts.values()) == {"no real change"}
    assert code == 1 and doc["gate"] == "fail"
    assert "gate: steady-pro dropped" in err
    steady = next(a for a in doc["agents"] if a["agent_id"] == "steady-pro")
    assert steady["interval"]["high"] < 0 and steady["headline"]["change"] <= -1
    assert steady["headline"]["baseline"] == load_runs_score("steady-pro")


def load_runs_score(agent: str) -> float | None:
    from scoring import score_runs

    return score_runs(load_runs(SAMPLE).runs).agent(agent).headline.score


def test_cli_identical_sets_are_no_real_change_and_exit_0(capsys):
    code = main(["diff", str(SAMPLE), str(SAMPLE), "--fail-on-drop", "1", "--format", "markdown"])
    out, _ = capsys.readouterr()
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("| `")]
    assert len(rows) == 10 and all(row.endswith("| +0.00 | +0.00 to +0.00 | no real change |") for row in rows)
    assert max(len(line) for line in out.splitlines()) <= MARKDOWN_WIDTH


@pytest.mark.parametrize("content", [None, b"\x00\x01 not a table", b"{\"neither\": 1}"])
def test_cli_unreadable_input_exits_2_with_a_message(tmp_path, capsys, content):
    bad = tmp_path / "bad.csv"
    if content is not None:
        bad.write_bytes(content)
    code = main(["diff", str(SAMPLE), str(bad), "--format", "markdown"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"new {bad}: cannot be scored:") and "Traceback" not in err


def test_cli_options_refused_with_a_message(capsys):
    assert main(["diff", str(SAMPLE), str(SAMPLE), "--agent", "nobody"]) == 2
    assert "no agent 'nobody' in either set" in capsys.readouterr().err
    assert main(["diff", str(SAMPLE), str(SAMPLE), "--fail-on-drop", "nan"]) == 2
    assert "--fail-on-drop" in capsys.readouterr().err
    assert main(["diff", str(SAMPLE), str(SAMPLE), "--fail-on-drop", "-1"]) == 2


def test_cli_agent_filter_table(capsys):
    code = main(["diff", str(SAMPLE), str(SAMPLE), "--agent", "newcomer", "--agent", "two-speed", "--replicates",
                 "50"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "newcomer: no real change" in out and "two-speed: no real change" in out and "steady-pro" not in out
    assert math.isfinite(float(out.splitlines()[2].split()[1]))


@pytest.mark.parametrize("name", ["tau-bench", "taubench", "TAU_BENCH"])
def test_cli_from_reads_the_names_report_reads(name, capsys):
    """`diff --from` takes a kind by any name `report --from` takes (README: both read inputs alike)."""
    results = ROOT / "tests" / "fixtures" / "tau-bench" / "sonnet-retail.json"
    code = main(["diff", str(results), str(results), "--from", name, "--replicates", "50"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "sonnet-retail: no real change" in out


def test_cli_from_refuses_an_unknown_kind_with_the_names_it_takes(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["diff", str(SAMPLE), str(SAMPLE), "--from", "nonsense"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "unknown kind 'nonsense'" in err and "taubench" in err


TAU_BENCH = ROOT / "tests" / "fixtures" / "tau-bench" / "sonnet-retail.json"


@pytest.fixture
def renamed_tau_bench(tmp_path) -> tuple[Path, Path]:
    """One tau-bench results list under two file names: tau-bench names the agent after the file, so the two sets
    share no agent id (base-1205, new-1206)."""
    base, new = tmp_path / "base-1205.json", tmp_path / "new-1206.json"
    base.write_bytes(TAU_BENCH.read_bytes())
    new.write_bytes(TAU_BENCH.read_bytes())
    return base, new


def test_cli_a_gate_that_compares_no_agent_neither_passes_nor_fails_but_exits_2(renamed_tau_bench, capsys):
    """A regression gate between two sets with no agent in both checked nothing: before, it passed (exit 0), so
    a renamed agent let any drop through. Without a gate the diff is a listing and exits 0."""
    base, new = (str(p) for p in renamed_tau_bench)
    code = main(["diff", base, new, "--fail-on-drop", "1", "--format", "json", "--replicates", "50"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 2 and doc["gate"] == "nothing compared" and doc["agents"] == []
    assert (doc["only_in_baseline"], doc["only_in_new"]) == (["base-1205"], ["new-1206"])
    assert "gate: compared nothing, so it neither passed nor failed. No agent is in both sets." in err
    assert "--pair BASELINE_ID NEW_ID" in err
    assert main(["diff", base, new, "--fail-on-drop", "1", "--replicates", "50"]) == 2
    table = capsys.readouterr().out
    assert "No agent is in both sets. An agent renamed between them" in table
    assert "NOTHING COMPARED, neither passed nor failed (exit status 2)" in table
    assert main(["diff", base, new, "--format", "markdown", "--replicates", "50"]) == 0
    markdown = capsys.readouterr().out
    assert "No agent is in both sets." in markdown and "Gate: none" in markdown
    assert max(len(line) for line in markdown.splitlines()) <= MARKDOWN_WIDTH


def test_cli_a_gate_with_a_baseline_agent_missing_from_the_new_set_is_not_passed(tmp_path, capsys):
    """A harness that skipped an agent passed the gate (exit 0), where the same agent failing every run failed it:
    a reviewer's CI check, 2026-12-06. Now "agents missing", exit 2, unless an agent fails (exit 1); naming the
    agents to gate (--agent) gates those alone."""
    base, new, worse = tmp_path / "base.csv", tmp_path / "new.csv", tmp_path / "worse.csv"
    both = records("both", ALL_WON)
    frame(both, records("gone", ALL_WON)).drop(columns="source_row").to_csv(base, index=False)
    frame(both, records("fresh", ALL_WON)).drop(columns="source_row").to_csv(new, index=False)
    frame(records("both", ONE_LOST_EACH)).drop(columns="source_row").to_csv(worse, index=False)
    code = main(["diff", str(base), str(new), "--fail-on-drop", "1", "--format", "json", "--replicates", "50"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 2 and doc["gate"] == "agents missing" and doc["only_in_baseline"] == ["gone"], err
    assert "gate: not passed: the new set has no runs of a baseline agent" in err and err.rstrip().endswith("gone")
    assert main(["diff", str(base), str(new), "--fail-on-drop", "1", "--replicates", "50"]) == 2
    assert "AGENTS MISSING, not passed (exit status 2)" in capsys.readouterr().out
    assert main(["diff", str(base), str(new), "--fail-on-drop", "1", "--replicates", "50", "--agent", "both"]) == 0
    assert main(["diff", str(base), str(new), "--replicates", "50"]) == 0  # no gate: a listing
    capsys.readouterr()
    assert main(["diff", str(base), str(worse), "--fail-on-drop", "1", "--replicates", "50"]) == 1  # a drop first
    assert "FAILED (both)" in capsys.readouterr().out


def test_cli_pair_compares_an_agent_renamed_between_the_sets(renamed_tau_bench, capsys):
    base, new = (str(p) for p in renamed_tau_bench)
    code = main(["diff", base, new, "--pair", "base-1205", "new-1206", "--fail-on-drop", "1", "--format", "json",
                 "--replicates", "50"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["gate"] == "pass" and doc["paired"] == [{"baseline": "base-1205", "new": "new-1206"}]
    [agent] = doc["agents"]
    assert (agent["agent_id"], agent["verdict"], agent["headline"]["change"]) == ("new-1206", "no real change", 0.0)
    assert (doc["only_in_baseline"], doc["only_in_new"]) == ([], [])
    assert main(["diff", base, new, "--pair", "base-1205", "new-1206", "--replicates", "50"]) == 0
    assert "paired (--pair): the baseline's base-1205 compared as new-1206" in capsys.readouterr().out
    assert main(["diff", base, new, "--pair", "base-1205", "new-1206", "--replicates", "50", "--format",
                 "markdown"]) == 0
    assert "Paired (--pair): the baseline's `base-1205` compared as `new-1206`." in capsys.readouterr().out


def test_cli_pair_gates_a_renamed_agent_that_got_worse(tmp_path, capsys):
    """steady-pro, renamed steady-pro-v2 in the new set and a quarter of its successes lost: paired, it is worse and
    fails the gate, with the baseline's own numbers (as if it had kept its name)."""
    import pandas as pd

    new = quarter_of_successes_lost(tmp_path / "new.csv")
    raw = pd.read_csv(new, dtype=str, keep_default_na=False)
    raw.loc[raw["agent_id"] == "steady-pro", "agent_id"] = "steady-pro-v2"
    raw.to_csv(new, index=False)
    code = main(["diff", str(SAMPLE), str(new), "--pair", "steady-pro", "steady-pro-v2", "--fail-on-drop", "1",
                 "--format", "json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    steady = next(a for a in doc["agents"] if a["agent_id"] == "steady-pro-v2")
    assert code == 1 and doc["gate"] == "fail" and steady["verdict"] == "worse"
    assert steady["headline"]["baseline"] == load_runs_score("steady-pro")
    assert len(doc["agents"]) == 10 and "gate: steady-pro-v2 dropped" in err


@pytest.mark.parametrize("pair, message", [
    (["nobody", "steady-pro"], "--pair: no agent 'nobody' in the baseline"),
    (["steady-pro", "nobody"], "--pair: no agent 'nobody' in the new set"),
    (["steady-pro", "swift-lite"], "--pair: the baseline has an agent 'swift-lite' of its own"),
    (["steady-pro", "swift-lite", "steady-pro", "newcomer"], "--pair: one baseline agent paired twice"),
    (["steady-pro", "swift-lite", "swift-lite", "swift-lite"], "--pair: two baseline agents paired with"),
    (["steady-pro", "steady-pro"], "--pair: 'steady-pro' is paired with itself"),
])
def test_cli_pair_refuses_what_the_sets_do_not_allow_in_words(pair, message, capsys):
    argv = ["diff", str(SAMPLE), str(SAMPLE), "--replicates", "20"]
    for i in range(0, len(pair), 2):
        argv += ["--pair", pair[i], pair[i + 1]]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and "Traceback" not in err


def test_cli_pair_swapping_two_agents_swaps_their_baselines(capsys):
    """Pairs may exchange names: each baseline agent is compared under the other's id."""
    code = main(["diff", str(SAMPLE), str(SAMPLE), "--pair", "steady-pro", "swift-lite", "--pair", "swift-lite",
                 "steady-pro", "--agent", "swift-lite", "--format", "json", "--replicates", "50"])
    doc = json.loads(capsys.readouterr().out)
    [agent] = doc["agents"]
    assert code == 0 and agent["headline"]["baseline"] == load_runs_score("steady-pro")
    assert agent["headline"]["new"] == load_runs_score("swift-lite")


def test_paired_keeps_every_run_its_file_row_and_the_canonical_order():
    from scoring.analysis.diff import paired

    runs = load_runs(SAMPLE).runs
    new = runs.assign(agent_id=runs["agent_id"].astype(str).replace({"steady-pro": "a-first"}))
    out = paired(runs, new, {"steady-pro": "a-first"})
    assert out["agent_id"].cat.categories[0] == "a-first" and str(out["agent_id"].iloc[0]) == "a-first"
    before = runs.set_index("run_id")["source_row"]
    assert len(out) == len(runs) and out.set_index("run_id")["source_row"].equals(before.loc[out["run_id"]])
    assert out["source_row"].dtype == runs["source_row"].dtype
    agents = out["agent_id"].astype(str).tolist()
    assert agents == sorted(agents)  # still grouped by agent in text order


@pytest.mark.xdist_group("inspect_audit")
def test_cli_prices_estimate_both_sets_costs_as_report_prices_does(tmp_path, capsys):
    """An Inspect log records tokens and no cost: with --prices the diff's numbers are the report's with --prices
    (a gate and the published report agree); without it, no cost is recorded on either side."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    from tests.helpers import run_inspect

    def outputs(messages, tools, tool_choice, config):
        out = ModelOutput.from_content("mockllm/model", "answer")
        out.usage = ModelUsage(input_tokens=1_000, output_tokens=500, total_tokens=1_500)
        return out

    task = Task(name="priced", dataset=[Sample(input="q", target="answer", id=f"s{i}") for i in range(6)],
                solver=generate(), scorer=match())
    log = str(run_inspect(task, outputs, tmp_path / "logs"))
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"mockllm/model": {"input": 3, "output": 15}}), encoding="utf-8")
    assert main(["report", log, "--prices", str(prices), "--format", "json"]) == 0
    [reported] = json.loads(capsys.readouterr().out)["agents"]
    assert main(["diff", log, log, "--prices", str(prices), "--format", "json", "--replicates", "20"]) == 0
    [priced] = json.loads(capsys.readouterr().out)["agents"]
    assert priced["headline"]["baseline"] == priced["headline"]["new"] == reported["headline"]["score"]
    assert priced["components"]["cost"]["new"] > 0  # 1,000 x $3 + 500 x $15 per million tokens: $0.0105 a run
    assert main(["diff", log, log, "--format", "json", "--replicates", "20"]) == 0
    [unpriced] = json.loads(capsys.readouterr().out)["agents"]
    assert unpriced["components"]["cost"]["new"] == 0 and unpriced["headline"]["new"] < reported["headline"]["score"]


def test_cli_pair_names_a_strangers_long_id_in_at_most_60_characters(capsys):
    long = "x" * 100_000
    assert main(["diff", str(SAMPLE), str(SAMPLE), "--pair", long, "steady-pro", "--replicates", "20"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--pair: no agent 'xxx") and "xxx…' in the baseline" in err and len(err) < 200


def test_cli_diff_of_harness_files_says_each_side_s_own_reading(tmp_path, capsys):
    """`report` put a harness's own reading beside the canonical score; `diff`, the vendor's gate between two of
    its harness runs, did not say what the harness itself read before and after (a reviewer, 2026-12-06)."""
    from tests.helpers import tau2_results

    sims = [("1", "user_stop", 1.0, 0.01)] * 3 + [("1", "too_many_errors", 0.0, 0.01), ("2", "user_stop", 0.0, 0.01)]
    better = [("1", "user_stop", 1.0, 0.01)] * 4 + [("2", "user_stop", 1.0, 0.01)]
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps(tau2_results(sims, num_trials=4)))
    after.write_text(json.dumps(tau2_results(better, num_trials=4)))
    assert main(["diff", str(before), str(after), "--format", "json", "--replicates", "200"]) == 0
    agent = json.loads(capsys.readouterr().out)["agents"][0]
    assert agent["harness"]["baseline"]["success_rate"] == 0.6 and agent["harness"]["new"]["success_rate"] == 1.0
    assert main(["diff", str(before), str(after), "--format", "table", "--replicates", "200"]) == 0
    table = capsys.readouterr().out
    assert "  baseline: tau2-bench's own reading (its rules, not the canonical score): average reward 0.6000, " \
           "success (reward 1) 60.00%" in table
    assert "  new: tau2-bench's own reading (its rules, not the canonical score): average reward 1.0000" in table
    assert main(["diff", str(before), str(after), "--format", "markdown", "--replicates", "200"]) == 0
    markdown = capsys.readouterr().out
    assert "- baseline\\: tau2\\-bench's own reading" in markdown and "- new\\: tau2\\-bench's own reading" in markdown
    assert max(len(line) for line in markdown.splitlines()) <= MARKDOWN_WIDTH
    assert main(["diff", "sample_data/runs.csv", "sample_data/runs.csv", "--format", "json"]) == 0  # runs files
    assert all("harness" not in a for a in json.loads(capsys.readouterr().out)["agents"])
