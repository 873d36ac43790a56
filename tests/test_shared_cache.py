"""What the pages share across sessions: explanations computed ahead of time, once per dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import data, drill
from scoring import CANONICAL_POLICY, load_runs, score_runs
from scoring.analysis.explain import explain

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def scored() -> data.Scored:
    loaded = load_runs((ROOT / "sample_data" / "runs.csv").read_bytes(), name="runs.csv")
    return data.Scored(loaded, score_runs(loaded.runs, CANONICAL_POLICY))


def never() -> object:
    raise AssertionError("computed again: it should have been in the shared cache")


def test_warm_explains_every_ranked_agent_ahead_of_time(scored):
    dataset = data.Dataset("runs.csv", "warm-test-digest", "sample")  # a digest no other test uses
    thread = drill.warm(dataset, scored)
    assert thread is not None
    thread.join(timeout=300)
    ranked = [a.agent_id for a in scored.report.agents if a.headline.ranked]
    assert len(ranked) == len(scored.report.agents) > 5  # the sample's agents are all ranked
    for agent_id in ranked:
        for what in ("explain", "fixes", "costliest"):
            data.derived(what, agent_id, never, lambda _: 0, dataset=dataset)  # held: never computed again
        held = data.derived("explain", agent_id, never, lambda _: 0, dataset=dataset)
        direct = explain(scored.runs, agent_id, scored.report)
        assert held.points == direct.points and held.overtake == direct.overtake  # the same numbers
    with pytest.raises(AssertionError, match="computed again"):  # another dataset's are its own
        data.derived("explain", ranked[0], never, lambda _: 0, dataset=data.Dataset("runs.csv", "other", "sample"))


def test_large_datasets_are_not_warmed(scored, monkeypatch):
    monkeypatch.setattr(drill, "WARM_MAX_RUNS", len(scored.runs) - 1)
    assert drill.warm(data.Dataset("runs.csv", "warm-test-large", "sample"), scored) is None


def test_a_file_refused_under_a_limit_is_read_again_once_the_operator_raises_it(monkeypatch):
    """The shared cache keys a refusal by the limits it was made under: a stale "more than the limit" must not
    answer once the operator's limit allows the file (nor, in a test run, another test's limits answer here)."""
    from streamlit.testing.v1 import AppTest

    runs = (ROOT / "sample_data" / "runs.csv").read_bytes()
    monkeypatch.setenv("EXPLORER_MAX_ROWS", "100")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("limits.csv", runs, "text/csv")).run()
    refused = "\n".join([e.value for e in at.error] + [d.value.to_string() for d in at.dataframe])
    assert "was refused" in refused and "(max_rows)" in refused, refused
    monkeypatch.delenv("EXPLORER_MAX_ROWS")
    at.run()
    assert not at.error and not at.exception, [e.value for e in at.error]
    assert any("2,796 runs" in c.value for c in at.sidebar.caption), [c.value for c in at.sidebar.caption]
