"""A faster, equivalent replacement for one step of Streamlit's pandas-Styler marshalling.

Every table of the explorer is an ``st.dataframe`` of a ``pandas.Styler`` (``explorer.ui.table``):
the numbers stay numeric for sorting and each cell shows its text from ``explorer.format``.
Streamlit 1.67 turns the Styler's display values into a frame with
``streamlit.elements.lib.pandas_styler_utils._use_display_values``: ``df.astype(str)``, then one
``iloc`` assignment per column. Under pandas 3 those columns are Arrow-backed strings, and each
assignment rebuilds its column through a slow path: about 1 ms a column, ten times the rest of the
step, which made the tables the largest cost of a page's rerun (bench/bench_load.py, README).

:func:`use_display_values` builds the same frame (same columns, dtypes, index and text) by
writing each column's display values into a plain array and setting the column once.
:func:`install` puts it in Streamlit's place only on the Streamlit version it was checked against
(``tests/test_styler_patch.py`` compares both on the explorer's own tables); on any other version
Streamlit's own function stays.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

import pandas as pd

CHECKED_VERSION = "1.67.0"  # the Streamlit version whose _use_display_values this one reproduces
_CELL_ID = re.compile(r"row(\d+)_col(\d+)")


TEXT_DTYPE = pd.Series([], dtype=object).astype(str).dtype  # what astype(str) gives every column


def display_text(shown: Any) -> str:
    """A display value as Streamlit writes it into its frame of texts."""
    return str(shown.value) if isinstance(shown, Enum) else str(shown)


def frame_of_texts(df: pd.DataFrame, columns: Mapping[int, Any]) -> pd.DataFrame:
    """The frame Streamlit sends as a Styler's display values: ``df``'s index and columns, each column's texts."""
    new_df = pd.DataFrame({c: pd.array(columns[c], dtype=TEXT_DTYPE) for c in range(df.shape[1])}, index=df.index)
    new_df.columns = df.columns
    return new_df


def use_display_values(df: pd.DataFrame, styles: Mapping[str, Any]) -> pd.DataFrame:
    """``df`` as text, each styled cell holding the Styler's display value (Streamlit's semantics)."""
    updates_by_col: defaultdict[int, dict[int, str]] = defaultdict(dict)
    for row in styles.get("body", []):
        for cell in row:
            cell_id = cell.get("id")
            if not cell_id:
                continue
            match = _CELL_ID.match(cell_id)
            if not match:
                continue
            row_idx, col_idx = map(int, match.groups())
            updates_by_col[col_idx][row_idx] = display_text(cell.get("display_value"))
    rows = len(df)
    columns: dict[int, Any] = {}
    for col_idx in range(df.shape[1]):
        updates = updates_by_col.get(col_idx, {})
        if len(updates) == rows and all(0 <= r < rows for r in updates):  # every cell has its text
            values = [updates[r] for r in range(rows)]
        else:
            values = df.iloc[:, col_idx].astype(str).to_numpy(dtype=object, copy=True)
            for row_idx, text in updates.items():
                values[row_idx] = text
        columns[col_idx] = values
    return frame_of_texts(df, columns)


_streamlit_own: Callable[[pd.DataFrame, Mapping[str, Any]], pd.DataFrame] | None = None


def streamlit_own() -> Callable[[pd.DataFrame, Mapping[str, Any]], pd.DataFrame]:
    """Streamlit's own ``_use_display_values`` (the tests compare it with :func:`use_display_values`)."""
    from streamlit.elements.lib import pandas_styler_utils

    return _streamlit_own or pandas_styler_utils._use_display_values


def install() -> bool:
    """Use :func:`use_display_values` in Streamlit's Styler marshalling (checked version only); True if used."""
    global _streamlit_own
    import streamlit
    from streamlit.elements.lib import pandas_styler_utils

    if streamlit.__version__ != CHECKED_VERSION or not hasattr(pandas_styler_utils, "_use_display_values"):
        return False
    if _streamlit_own is None:
        _streamlit_own = pandas_styler_utils._use_display_values
    pandas_styler_utils._use_display_values = use_display_values
    return True
