"""explorer.styler_patch: the table text Streamlit sends is the same with the faster step as with its own."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit import dataframe_util
from streamlit.elements.lib import pandas_styler_utils

from explorer import format as fmt
from explorer import styler_patch, tables
from explorer.ui import _dash_for_missing, _default_format
from scoring import CANONICAL_POLICY, load_runs, score_runs

ROOT = Path(__file__).resolve().parents[1]


def styled(frame: pd.DataFrame, formats: dict | None = None):
    """A Styler as explorer.ui.table makes it, computed and translated as Streamlit's marshalling does."""
    formats = dict(formats or {})
    for column in frame.columns:
        formats.setdefault(column, _default_format(frame[column]))
    styler = frame.style.format({c: _dash_for_missing(f) for c, f in formats.items()}, na_rep=fmt.DASH)
    styler._compute()
    return styler.data, styler._translate(False, False)


def assert_same(frame: pd.DataFrame, styles) -> None:
    own = styler_patch.streamlit_own()(frame, styles)
    ours = styler_patch.use_display_values(frame, styles)
    pd.testing.assert_frame_equal(ours, own)
    if frame.columns.is_unique:  # (Arrow refuses duplicate names, whichever function made the frame)
            assert dataframe_util.convert_pandas_df_to_arrow_bytes(ours) == \
            dataframe_util.convert_pandas_df_to_arrow_bytes(own)


@pytest.fixture(scope="module")
def report():
    loaded = load_runs((ROOT / "sample_data" / "runs.csv").read_bytes(), name="runs.csv")
    return score_runs(loaded.runs, CANONICAL_POLICY)


def test_the_leaderboard_and_profile_tables_get_the_same_text(report):
    board = tables.leaderboard(report)
    assert_same(*styled(board, {"Score": fmt.score, "Success rate": fmt.pct2, "Avg cost (USD)": fmt.usd}))
    ranking = tables.profile_ranking(report, dict.fromkeys(report.policy.radar_weights, 0.2))
    assert_same(*styled(ranking, {"Profile score": fmt.score}))


def test_missing_values_odd_dtypes_duplicate_names_and_no_rows():
    frame = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "b": [0.5, math.nan, 1e9],
                          "c": ["x", None, "<b>y</b>"], "d": [True, False, True],
                          "e": pd.to_datetime(["2026-01-01", None, "2026-03-01"]),
                          "f": pd.Categorical(["p", "q", "p"])})
    assert_same(*styled(frame))
    twice = pd.DataFrame([[1, 2.5], [3, 4.25]], columns=["x", "x"])
    styler = twice.style  # duplicate column names: Streamlit's default formatting, no per-column format
    styler._compute()
    assert_same(styler.data, styler._translate(False, False))
    assert_same(*styled(frame.iloc[:0]))


def test_styles_that_leave_cells_unset_keep_the_plain_text():
    frame = pd.DataFrame({"n": [1, 2, 3], "s": ["a", "b", "c"]})
    styles = {"body": [[{"id": "row0_col0", "display_value": "one"}], [{"id": "row2_col1", "display_value": 7},
                                                                          {"id": "", "display_value": "x"},
                                                                          {"id": "level0_row2"}]]}
    assert_same(frame, styles)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
                          st.one_of(st.none(), st.text(max_size=8)), st.integers(-10**12, 10**12)),
                max_size=12))
def test_any_table_of_floats_text_and_integers(rows):
    frame = pd.DataFrame(rows, columns=["f", "t", "i"]) if rows else pd.DataFrame(
        {"f": pd.Series([], dtype=float), "t": pd.Series([], dtype=object), "i": pd.Series([], dtype=int)})
    frame["F"] = frame["f"].astype("Float64")
    assert_same(*styled(frame, {"f": fmt.score, "F": fmt.pct2}))


def test_installed_only_on_the_checked_version():
    import streamlit

    assert styler_patch.install() == (streamlit.__version__ == styler_patch.CHECKED_VERSION)
    if streamlit.__version__ == styler_patch.CHECKED_VERSION:
        assert pandas_styler_utils._use_display_values is styler_patch.use_display_values
        assert styler_patch.streamlit_own() is not styler_patch.use_display_values
