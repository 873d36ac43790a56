"""What the pages share across sessions: explanations computed ahead of time, once per dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import charts, data, drill, tables, tau2_reading
from explorer import format as fmt
from explorer.cache import BoundedCache
from scoring import CANONICAL_POLICY, load_runs, score_runs
from scoring.analysis.explain import explain
from tests.apptest_helpers import page, plotly_specs, run

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


# Per page, the builders (explorer.tables, explorer.tau2_reading, explorer.charts) whose tables and charts depend on
# the dataset (and what the viewer chose) only, and the Headline page's lists of facts (explorer.format.render,
# composed by explorer.drill.headline_texts): a page's rerun, or another session's run of it, takes them from the
# shared cache.
CACHED_BUILDERS = {
    "leaderboard": [(tables, "leaderboard"), (tables, "accounting_table"), (tables, "notes_table"),
                    (tables, "harness_table"), (tables, "unseen_table")],
    "compare": [(tables, "compare_components"), (tables, "compare_tasks"), (charts, "compare_components_chart")],
    "headline": [(tables, "points_table"), (tables, "overtake_table"), (tables, "fixes_table"),
                 (tables, "influence_tasks_table"), (tables, "influence_runs_table"),
                 (charts, "contribution_waterfall"), (charts, "points_lost_chart"), (charts, "influence_bars"),
                 (charts, "anchor_curve"), (fmt, "render")],
    "methodology": [(tables, "constants_table"), (tables, "anchors_table"), (charts, "policy_anchor_figure")],
    "radar": [(tables, "profile_ranking"), (charts, "radar_chart")],
    "runs": [(tables, "runs_table")],
    "repeatability": [(tables, "repeatability_summary"), (tables, "task_table"), (tau2_reading, "tau2_summary"),
                      (tau2_reading, "side_by_side"), (charts, "pass_k_bars"), (charts, "pass_k_curve"),
                      (charts, "pass_k_histogram")],
}


@pytest.mark.parametrize("name", sorted(CACHED_BUILDERS))
def test_a_second_session_builds_no_table_or_chart_again(name, monkeypatch):
    first = run(page(name))  # builds them (or finds them, built by an earlier test on the sample)
    for module, builder in CACHED_BUILDERS[name]:
        monkeypatch.setattr(module, builder, lambda *args, **kwargs: never())
    second = run(page(name))  # another session on the same dataset: nothing built again, the same tables, charts
    assert len(second.dataframe) == len(first.dataframe) > 0
    for before, after in zip(first.dataframe, second.dataframe):
        assert after.value.equals(before.value)
    assert plotly_specs(second) == plotly_specs(first)
    assert [m.value for m in second.markdown] == [m.value for m in first.markdown]


def test_a_read_never_returns_an_idle_or_expired_entry_between_sweeps():
    now = [0.0]
    cache: BoundedCache = BoundedCache(max_bytes=1_000, idle_seconds=10, clock=lambda: now[0])
    cache.get_or_compute("idle", lambda: "i", lambda v: 1)
    cache.get_or_compute("brief", lambda: "b", lambda v: 1, lambda v: 3.0)
    assert cache.get("idle") == "i" and cache.get("brief") == "b" and cache.get("absent") is None
    now[0] = 3.0  # within a sweep's interval of the last read: the entry's own age decides
    cache._swept = now[0]
    assert cache.get("brief") is None and cache.get("idle") == "i"
    now[0] = 13.5
    cache._swept = now[0]
    assert cache.get("idle") is None and len(cache) == 0


def test_filling_the_cache_costs_each_insert_no_pass_over_every_entry(monkeypatch):
    # Every insert swept every entry and summed every size (a 10,000-agent upload's warm-up spent 48 % of its time
    # there, holding the lock every session reads through): now at most one sweep a SWEEP_SECONDS and a running total.
    now = [0.0]
    cache: BoundedCache = BoundedCache(max_bytes=3_000, idle_seconds=60, clock=lambda: now[0])
    looked_at = [0]
    stale = BoundedCache._stale
    monkeypatch.setattr(BoundedCache, "_stale", lambda self, e, t: looked_at.__setitem__(0, looked_at[0] + 1)
                        or stale(self, e, t))
    for i in range(2_000):
        cache.get_or_compute(i, lambda i=i: i, lambda v: 2)
    assert looked_at[0] < 2 * 2_000  # one sweep of an empty cache, then each read's own entry: linear
    assert len(cache) == 1_500 and cache.total_bytes == 3_000  # the oldest 500 pushed out by the budget
    now[0] = 61.0  # every entry idle: the next read's sweep drops them all, and the total follows
    assert cache.get(1_999) is None and len(cache) == 0 and cache.total_bytes == 0
    cache.get_or_compute("a", lambda: "a", lambda v: 7)
    cache.get_or_compute("a", lambda: "x", lambda v: 7)  # held: not stored twice
    assert cache.total_bytes == 7


def test_only_the_leaderboards_top_agents_are_explained_ahead_of_time(scored, monkeypatch):
    explained: list[str] = []
    monkeypatch.setattr(drill, "WARM_MAX_AGENTS", 3)
    monkeypatch.setattr(drill, "agent_fixes", lambda s, agent_id, d: explained.append(agent_id))
    monkeypatch.setattr(drill, "agent_costliest", lambda s, agent_id, d: None)
    thread = drill.warm(data.Dataset("runs.csv", "warm-test-top", "sample"), scored)
    assert thread is not None
    thread.join(timeout=60)
    assert explained == [a.agent_id for a in scored.report.agents if a.headline.ranked][:3]
