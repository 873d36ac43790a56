"""Review pack (audit of 2026-12-04): with a Team Scorecard in force, its radar uses the weights the page uses.

The radar page ranks profiles by the scorecard's exact weights (``explorer.scorecards.applied_weights``: "the
sliders show these weights to the nearest 5%; the profile scores use them exactly"), and
``python -m scoring report --scorecard``/``--weights`` agrees with it; the sidebar's review pack was built from
the sliders' rounded positions instead, so its profile scores differed from the page and from the report.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import explorer.pack

TIMEOUT = 60


@pytest.fixture
def captured(monkeypatch):
    seen: list = []
    original = explorer.pack.PackView

    def recording(*args, **kwargs):
        view = original(*args, **kwargs)
        seen.append(view)
        return view

    monkeypatch.setattr(explorer.pack, "PackView", recording)
    return seen


def test_the_pack_uses_the_scorecards_exact_weights_like_the_radar_page(captured):
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    at.query_params["scorecard_weights"] = "correctness:0.33,latency:0.07,cost:0.6"
    at.switch_page("views/radar.py")
    at.run()
    assert not at.exception, at.exception
    page = "\n".join(" ".join(c.value.split()) for c in at.caption)
    assert "Correctness 33.0% · Latency 7.0% · Cost 60.0%" in page  # the page applies the exact weights
    assert captured, "the sidebar built no review pack"
    weights = dict(captured[-1].weights)
    total = sum(weights.values())
    shares = {axis: round(w / total, 4) for axis, w in weights.items() if w}
    assert shares == {"correctness": 0.33, "latency": 0.07, "cost": 0.6}  # was 0.35 / 0.05 / 0.6 (the sliders)
