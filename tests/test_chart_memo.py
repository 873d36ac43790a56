"""explorer.chart_memo: a chart of the shared cache is serialized once, into the same message Streamlit makes."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io
import plotly.tools
import pytest
import streamlit

from explorer import chart_memo, data, settings, styler_patch
from explorer.cache import BoundedCache
from tests.apptest_helpers import page, run

pytestmark = pytest.mark.skipif(streamlit.__version__ != styler_patch.CHECKED_VERSION,
                                reason="the memo is installed on the checked Streamlit version only")


def charts(at) -> list[tuple[str, str, str]]:
    """Every chart's message: its spec (the JSON), config and element id."""
    return [(el.proto.spec, el.proto.config, el.proto.id) for el in at.get("plotly_chart")]


@pytest.fixture
def fresh_cache(monkeypatch):
    """A shared cache of this test's own: the pages' figures are built (and prepared) by it."""
    s = settings.current()
    fresh = BoundedCache(s.cache_memory, s.cache_idle_seconds)
    monkeypatch.setattr(data, "_cache", lambda: fresh)


@pytest.mark.parametrize("name", ["headline", "repeatability"])
def test_kept_charts_are_streamlits_own(name, fresh_cache, monkeypatch):
    assert chart_memo.install()
    first = charts(run(page(name)))  # every figure built, and serialized once, now
    calls: list[int] = []
    own = chart_memo._own_to_json
    assert own is not None
    with monkeypatch.context() as counting:
        counting.setattr(chart_memo, "_own_to_json", lambda *a, **k: calls.append(1) or own(*a, **k))
        again = charts(run(page(name)))  # another session: every chart's JSON the kept one
    assert not calls
    chart_memo.uninstall()
    try:
        streamlits = charts(run(page(name)))  # the same figures through plotly's and Streamlit's own path
    finally:
        assert chart_memo.install()
    assert streamlits and first == streamlits and again == streamlits


def test_a_prepared_figure_gives_its_kept_dict_and_json_and_others_are_untouched():
    assert chart_memo.install()
    figure = chart_memo.prepare(go.Figure(go.Bar(x=["a", "b"], y=[1.5, 2.5]), layout={"title": "t"}))
    as_dict = plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True)
    assert as_dict is plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True)  # kept
    assert as_dict == figure.to_dict()
    assert plotly.io.to_json(as_dict, validate=False) == plotly.io.to_json(figure.to_dict(), validate=False)
    other = go.Figure(go.Bar(x=["c"], y=[3]))  # never prepared: plotly's own path, a new dict each time
    assert plotly.tools.return_figure_from_figure_or_data(other, True) is not \
        plotly.tools.return_figure_from_figure_or_data(other, True)
    assert '"c"' in plotly.io.to_json(other.to_dict(), validate=False)
