"""The Inspect AI importer against real Inspect logs (mockllm/model, offline): cases an audit of 2026-12-04 found.

1. A scorer whose value is a dict, with per-key metrics (``metrics=[{"correct": [accuracy()], ...}]``, the way
   many Inspect evals report several numbers): Inspect writes ``accuracy`` under the key ("correct") and no
   accuracy for the scorer itself, yet the harness reading showed 0.0 as Inspect's accuracy of the scorer.
2. ``--prices`` on a log scored by a model-graded scorer (the agent's and the grader's usage both in
   ``model_usage``): the run's ``model`` is empty, so no cost is estimated even when both models are priced,
   and nothing says so.
3. ``--prices`` on a log with cached input tokens: Inspect's ``input_tokens`` excludes cache reads and writes
   (its own ``compute_model_cost`` adds them), and the estimate silently leaves them out.
"""


import pytest

from scoring import score_runs
from scoring.load.importers import import_file
from scoring.load.importers._base import apply_prices
from tests.helpers import run_inspect

pytestmark = pytest.mark.xdist_group("inspect_audit")


def _usage(**extra):
    from inspect_ai.model import ModelUsage

    return ModelUsage(**extra)


def _answer(model: str, text: str, usage):
    from inspect_ai.model import ModelOutput

    out = ModelOutput.from_content(model, text)
    out.usage = usage
    return out


def test_dict_scores_with_per_key_metrics_never_show_an_accuracy_inspect_did_not_compute(tmp_path):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import Score, accuracy, mean, scorer
    from inspect_ai.solver import generate

    @scorer(metrics=[{"correct": [accuracy()], "format": [mean()]}])
    def rubric():
        async def score(state, target):
            verdict = ["C", "I", "C"][state.epoch - 1] if state.sample_id == "x" else "I"
            return Score(value={"correct": verdict, "format": 1.0})
        return score

    def outputs(messages, tools, tool_choice, config):
        return _answer("mockllm/model", "answer", _usage(input_tokens=10, output_tokens=5, total_tokens=15))

    task = Task(name="rubric", dataset=[Sample(input="q", id=i) for i in ("x", "y")], solver=generate(),
                scorer=rubric())
    path = run_inspect(task, outputs, tmp_path, epochs=3)
    log = read_eval_log(str(path))
    written = {s.name: s.metrics for s in log.results.scores}
    assert written["correct"]["accuracy"].value == pytest.approx(1 / 3)  # x: 2 of 3 (mean), y: 0 -> 1/3
    assert "accuracy" not in written["rubric"]  # Inspect computed no accuracy of the scorer itself

    loaded = import_file(path).validate()
    (agent,) = score_runs(loaded.runs, harness=loaded.harness).agents
    h = agent.to_json()["harness"]
    inspect_accuracies = [m["accuracy"].value for s in log.results.scores if s.scorer == h["scorer"]
                          for m in [s.metrics] if "accuracy" in m and s.name == h["scorer"]]
    # Inspect's own reading is a number Inspect wrote for that scorer, or none at all; here it wrote none
    assert h["success_rate"] is None or any(abs(h["success_rate"] - v) <= 1e-9 for v in inspect_accuracies), h


def test_prices_on_a_model_graded_log_estimate_the_cost_or_say_why_not(tmp_path):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import generate

    def grader_outputs(messages, tools, tool_choice, config):
        return _answer("mockllm/grader", "C", _usage(input_tokens=400, output_tokens=50, total_tokens=450))

    @scorer(metrics=[accuracy()])
    def graded():
        async def score(state, target):
            out = await get_model("mockllm/grader", custom_outputs=grader_outputs, memoize=False).generate("grade")
            return Score(value=out.completion)
        return score

    def outputs(messages, tools, tool_choice, config):  # no total_cost: Inspect records none without cost data
        return _answer("mockllm/model", "answer", _usage(input_tokens=100, output_tokens=50, total_tokens=150))

    path = run_inspect(Task(name="graded", dataset=[Sample(input="q", id="a")], solver=generate(),
                            scorer=graded()), outputs, tmp_path)
    imported = import_file(path)
    assert imported.raw["cost_usd"].isna().all()
    # Every model the run used priced: each at its own price (the agent's 100 in / 50 out, the grader's 400 / 50).
    priced = apply_prices(imported, {"mockllm/model": (3.0, 15.0), "mockllm/grader": (1.0, 5.0)})
    assert float(priced.raw["cost_usd"].iloc[0]) == pytest.approx((100 * 3.0 + 50 * 15.0 + 400 * 1.0 + 50 * 5.0) / 1e6)
    # The grader unpriced: no estimate, and the report says why (it was left empty without a word).
    half = apply_prices(imported, {"mockllm/model": (3.0, 15.0)})
    assert half.raw["cost_usd"].isna().all()
    assert "1 run(s) record tokens but get no estimated cost: no price for mockllm/grader" in half.report.all_warnings()


def test_prices_do_not_silently_drop_cached_input_tokens(tmp_path):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    def outputs(messages, tools, tool_choice, config):
        return _answer("mockllm/model", "answer", _usage(input_tokens=100, output_tokens=50, total_tokens=10_150,
                                                         input_tokens_cache_read=8_000,
                                                         input_tokens_cache_write=2_000))

    path = run_inspect(Task(name="cached", dataset=[Sample(input="q", target="answer", id="a")], solver=generate(),
                            scorer=match()), outputs, tmp_path)
    usage = read_eval_log(str(path)).samples[0].model_usage["mockllm/model"]
    assert usage.input_tokens == 100 and usage.input_tokens_cache_read == 8_000  # Inspect keeps them apart
    imported = import_file(path)
    # No cache price: no estimate (it would leave out 10,000 of 10,100 input tokens), and the report says why.
    plain = apply_prices(imported, {"mockllm/model": (3.0, 15.0)})
    assert plain.raw["cost_usd"].isna().all()
    assert any("mockllm/model records cached input tokens, and its price has no cache_read and cache_write" in w
               for w in plain.report.all_warnings())
    # With cache prices: Inspect's own compute_model_cost, 100 x 3 + 50 x 15 + 8,000 x 0.3 + 2,000 x 3.75 per million.
    cached = apply_prices(imported, {"mockllm/model": (3.0, 15.0, 0.3, 3.75)})
    assert float(cached.raw["cost_usd"].iloc[0]) == pytest.approx(0.01095)
    assert any("$0.3 cache read, $3.75 cache write per million tokens" in w for w in cached.report.all_warnings())
