"""explorer.table_memo: a table shown again unchanged is marshalled once, into the same message Streamlit makes."""

from __future__ import annotations

import gc
import weakref

import pandas as pd
import pytest
import streamlit

from explorer import format as fmt
from explorer import styler_patch, table_memo, ui
from tests.apptest_helpers import EDGE_CSV, page, run

pytestmark = pytest.mark.skipif(streamlit.__version__ != styler_patch.CHECKED_VERSION,
                                reason="the memo is installed on the checked Streamlit version only")


def messages(at) -> list[tuple[bytes, str, bytes, str]]:
    """Every table's message as the browser reads it: the Arrow bytes, the styles, the display values and the
    caption (not the Styler's uuid, which only scopes its CSS)."""
    out = []
    for el in at.dataframe:
        data = el.proto.arrow_data
        out.append((data.data, data.styler.styles, data.styler.display_values, data.styler.caption))
    return out


@pytest.fixture
def without_memo():
    table_memo.uninstall()
    try:
        yield
    finally:
        assert table_memo.install()


# Every page with a table, on the sample and on the edge-case upload (missing values, a zero-success agent).
@pytest.mark.parametrize("upload", [None, EDGE_CSV], ids=["sample", "edge"])
@pytest.mark.parametrize("name", ["leaderboard", "headline", "repeatability", "radar", "runs", "methodology",
                                  "compare", "uncertainty"])
def test_kept_messages_are_streamlits_own(name, upload, without_memo):
    own = messages(run(page(name, upload)))
    assert table_memo.install()
    first = messages(run(page(name, upload)))  # marshalled now (or by an earlier test) and kept
    again = messages(run(page(name, upload)))  # another session: the kept messages
    assert own and first == own and again == own


def test_a_frame_keeps_one_styler_per_table_and_format():
    frame = pd.DataFrame({"Agent": ["a", None], "Score": [1.5, None]})
    build_count = []

    def build():
        build_count.append(1)
        return ui._styler(frame, {"Score": fmt.score})

    first = table_memo.styler(frame, "t", {"Score": fmt.score}, build)
    assert table_memo.styler(frame, "t", {"Score": fmt.score}, build) is first
    assert len(build_count) == 1
    # Another table key, another format (a lambda's code), a derived frame: each its own Styler.
    assert table_memo.styler(frame, "u", {"Score": fmt.score}, build) is not first
    assert table_memo.styler(frame, "t", {"Score": lambda v: f"{v:.1f}"}, build) is not first
    assert table_memo.styler(frame.copy(), "t", {"Score": fmt.score}, build) is not first
    assert len(build_count) == 4


def test_a_lambda_written_again_is_the_same_format_but_not_with_other_captured_values():
    def formats(decimals: int) -> dict:
        return {"Score": lambda v: f"{v:.{decimals}f}"}

    assert table_memo.fingerprint(formats(2)) == table_memo.fingerprint(formats(2))
    assert table_memo.fingerprint(formats(2)) != table_memo.fingerprint(formats(3))
    # A captured value that cannot be compared: nothing kept, the Styler built on every call.
    assert table_memo.fingerprint({"Score": lambda v, shown=[2]: str(v)}) is None


def test_a_frame_that_dies_takes_its_tables_with_it():
    frame = pd.DataFrame({"Score": [1.0]})
    styled = weakref.ref(table_memo.styler(frame, "t", {}, lambda shown=frame: ui._styler(shown, {})))
    assert styled() is not None
    del frame
    gc.collect()
    assert styled() is None


def test_a_table_that_only_formats_is_marshalled_without_pandas_translation(without_memo):
    """ui.table's Stylers only format: their message is made from the display values alone, equal to Streamlit's
    own (which translates every cell to HTML first), for every kind of column the pages show."""
    from streamlit.elements.lib.pandas_styler_utils import marshall_styler
    from streamlit.proto.ArrowData_pb2 import ArrowData

    frame = pd.DataFrame({
        "Rank": pd.array([1, None, 3], dtype="Int64"),
        "Agent": pd.array(["a", None, "c"], dtype="str"),
        "Score": pd.array([65.425, None, 0.0], dtype="Float64"),
        "Rate": [0.5, float("nan"), 1.0],
        "Runs": [3, 4, 5],
        "Flag": [True, False, True],
        "When": pd.to_datetime(["2026-07-01T00:00:00Z", None, "2026-07-02T05:30:00Z"]),
    })
    formats = {"Score": fmt.score, "Rate": fmt.rate}
    own, fast = ArrowData(), ArrowData()
    styler = ui._styler(frame, formats)
    styler.set_uuid("t1")
    marshall_styler(own, styler, "t1")
    styler = ui._styler(frame, formats)
    styler.set_uuid("t1")
    assert table_memo.formats_only(styler)
    assert table_memo.install()
    table_memo._marshall_formats(fast, styler, "t1")
    assert fast.styler == own.styler
    assert not table_memo.formats_only(ui._styler(frame, formats).highlight_max())  # a style: Streamlit's own way
