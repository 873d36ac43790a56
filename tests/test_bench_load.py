"""The load benchmark's protocol helpers against the real app (one server on 127.0.0.1, one session).

Nothing here is timed: the assertions are about what the server rendered, never how fast.
"""

from __future__ import annotations

import asyncio

import pytest

from bench import bench_load as bl
from explorer.pages import PAGES

RADAR_KEYS = set(bl.RADAR_WEIGHT_KEYS)


# With --dist loadgroup (Makefile) the module's tests run on one xdist process:
# the app server (a module fixture) starts once, on one process.
pytestmark = pytest.mark.xdist_group("bench_load")


@pytest.fixture(scope="module")
def server():
    with bl.AppServer() as app:
        yield app


def _renormalized(result: bl.RunResult) -> str:
    return next(text for text in result.texts if text.startswith("Renormalized weights"))


def test_pages_switch_and_a_slider_move_reruns_the_radar(server):
    async def drive():
        async with bl.Session(server.url) as session:
            opened = await session.open("")
            radar = await session.switch("radar")
            moved = await session.move_slider("weight_correctness", 55)
            headline = await session.switch("headline")
            back = await session.switch("")
            return session, opened, radar, moved, headline, back

    session, opened, radar, moved, headline, back = asyncio.run(drive())

    assert set(session.pages) == {p.url_path for p in PAGES}  # every page of the app's list, by URL path
    assert opened.title == "Leaderboard" and opened.page_hash == session.pages[""][0]
    assert opened.deltas > 10 and not opened.errors

    assert radar.title == "Fitness radar" and radar.page_hash == session.pages["radar"][0]
    assert {wid.rsplit("-", 1)[1] for wid in radar.sliders} == RADAR_KEYS
    assert all(value == 20 for value, _ in radar.sliders.values())
    assert "Correctness 20.0%" in _renormalized(radar)

    # The new value reached the script: 55 / (55 + 4 x 20) = 40.7%, the others 20 / 135 = 14.8%.
    assert not moved.errors
    assert moved.fragment_run and moved.page_hash == session.pages["radar"][0]  # the weights' part of the radar
    assert "Correctness 40.7%" in _renormalized(moved) and "Latency 14.8%" in _renormalized(moved)

    assert headline.title == "Headline composite" and not headline.errors
    assert back.title == "Leaderboard" and not back.errors


def test_a_slider_move_reruns_the_weights_part_and_the_link_not_the_app(server):
    # views/radar.py: the sliders, their shares and the profile ranking are one fragment, the sidebar's link and pack
    # another (app.py); a move reruns those two only: not the title, the sidebar's data source or the radar chart,
    # which the weights do not change. The link it sends carries the new weight.
    async def drive():
        async with bl.Session(server.url) as session:
            await session.open("")
            radar = await session.switch("radar")
            moved = await session.move_slider("weight_correctness", 55)
            again = await session.move_slider("weight_latency", 40)
            reset = await session.click("Reset weights")
            return radar, moved, again, reset

    radar, moved, again, reset = asyncio.run(drive())
    assert not radar.fragment_run and radar.title == "Fitness radar"
    assert {"plotly_chart", "radio", "slider"} <= set(radar.kinds)
    for run in (moved, again):
        assert run.fragment_run and not run.errors
        assert run.title is None and "plotly_chart" not in run.kinds and "radio" not in run.kinds
        assert run.kinds.count("slider") == len(RADAR_KEYS)
        assert "Profile ranking beside the unchanged headline" in run.texts
        assert len(run.codes) == 1  # the link, once
    assert "w_correctness" not in radar.codes[0]
    assert "w_correctness=55" in moved.codes[0] and "w_latency=20" in moved.codes[0]
    assert "w_correctness=55" in again.codes[0] and "w_latency=40" in again.codes[0]
    assert "Correctness 40.7%" in _renormalized(moved)  # 55 / 135
    assert "Correctness 35.5%" in _renormalized(again) and "Latency 25.8%" in _renormalized(again)  # of 155
    # The reset button reruns the same two parts; the sliders it resets are sent with their new value (set_value:
    # the frontend would keep showing the old one otherwise), and the link drops the weights.
    assert reset.fragment_run and not reset.errors and "plotly_chart" not in reset.kinds
    assert sorted(reset.sliders.values()) == [(20.0, True)] * len(RADAR_KEYS)
    assert "Correctness 20.0%" in _renormalized(reset)
    assert [code for code in reset.codes if "w_" in code] == [] and len(reset.codes) == 1


def test_with_a_scorecard_loaded_a_slider_move_reruns_the_whole_page(server):
    # The Team scorecard section above the sliders says whether they still hold the scorecard's weights: a move
    # then reruns the whole app (views/radar.py, weights_changed), so the section turns to "modified".
    async def drive():
        async with bl.Session(server.url) as session:
            opened = await session.open("radar", query="scorecard=speed-first")
            moved = await session.move_slider("weight_correctness", 85)
            return opened, moved

    opened, moved = asyncio.run(drive())
    name = r"**speed\-first**"  # as the markdown escapes it
    assert not opened.errors and any(t.startswith(f"Active scorecard: {name}") for t in opened.texts)
    assert not moved.errors and not moved.fragment_run and moved.title == "Fitness radar"
    assert any(name in t and "is **modified**" in t for t in moved.texts)
    assert f"Profile ranked by the sliders (scorecard {name} modified)." in moved.texts


def test_a_rerun_sends_the_sidebar_link_and_pack_once(server):
    # Drawn once, after the page (app.py): drawing them before the page too cost every rerun a second copy of the
    # popover, its code box and the pack's buttons, each a message the browser then replaced.
    async def drive():
        async with bl.Session(server.url) as session:
            return [await session.open(""), await session.switch("headline"), await session.switch("radar"),
                    await session.move_slider("weight_correctness", 35)]

    for result in asyncio.run(drive()):
        assert not result.errors
        assert sum(text.startswith("This page with its settings.") for text in result.texts) == 1, result.title


def test_an_int_value_for_a_slider_is_an_error_the_client_sees(server):
    # Sliders take double_array_value; a wrong type makes the script fail, and the helpers count it.
    async def drive():
        async with bl.Session(server.url) as session:
            await session.open("radar")
            wid = session.slider_id("weight_cost")
            return await session.rerun(page_hash=session.page_hash, widgets=[bl.WidgetState(id=wid, int_value=30)])

    result = asyncio.run(drive())
    assert any(error.startswith("exception") for error in result.errors)


def test_one_session_runs_the_whole_action_script(server):
    stats = asyncio.run(bl.run_session(server.url, rounds=1, run_timeout=60))
    assert (stats.reruns, stats.errors, stats.timeouts) == (5, 0, 0), stats.error_samples
    assert {action: len(values) for action, values in stats.latencies.items()} == \
        {"open": 1, "radar": 1, "slider": 1, "headline": 1, "leaderboard": 1}
    assert stats.radar_titles == 1
    assert stats.deltas > 5 * 10


def test_a_run_on_another_page_fails_loudly():
    session = bl.Session("ws://127.0.0.1:9/_stcore/stream")
    session.pages = {"": ("h0", "Leaderboard"), "radar": ("h1", "Fitness radar")}
    with pytest.raises(bl.WrongPage, match="radar"):
        session._check_page(bl.RunResult(latency=0.1, page_hash="h0", title="Leaderboard"), "radar")
    with pytest.raises(bl.WrongPage):
        session._check_page(bl.RunResult(latency=0.1, page_hash="h1", title="Leaderboard"), "radar")
    session._check_page(bl.RunResult(latency=0.1, page_hash="h1", title="Fitness radar"), "radar")


def test_percentile_and_resident_memory(server):
    assert bl.percentile([], 50) != bl.percentile([], 50)  # NaN
    assert bl.percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert bl.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95) == pytest.approx(4.8)
    assert server.rss() > 10 * 2**20


def test_the_client_cache_answers_ref_hash_messages():
    # With the default 10 KB threshold no element of these pages is cacheable; lower it so the
    # server sends ref_hash messages and the client must resolve them from its cache.
    async def drive(url):
        async with bl.Session(url) as session:
            await session.open("radar")
            moved = await session.move_slider("weight_cost", 40)
            await session.switch("")
            back = await session.switch("radar")  # the radar chart again, as a ref_hash to the client's copy
            return moved, back

    with bl.AppServer(env={"STREAMLIT_GLOBAL_MIN_CACHED_MESSAGE_SIZE": "1000"}) as app:
        moved, back = asyncio.run(drive(app.url))
    assert not moved.errors and moved.fragment_run
    assert not back.errors and back.title == "Fitness radar"
    assert back.cached >= 1
    assert "Cost 33.3%" in _renormalized(moved) and "Cost 33.3%" in _renormalized(back)  # 40/120, kept


def test_server_cpu_is_counted_per_page(server):
    # Cumulative CPU of the server's processes: it never goes down, and one run of each page is measured.
    before = server.cpu()
    measured = bl.page_cpu(server, repeats=1)
    assert server.cpu() >= before > 0
    assert set(measured.pages) == {p.title for p in PAGES}
    assert len(measured.first_page) == 1 and all(cpu >= 0 for cpu in [*measured.pages.values(), measured.slider])
