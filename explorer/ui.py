"""Small Streamlit helpers shared by the pages (the only UI code outside views/ and app.py)."""

from __future__ import annotations

from typing import Callable, Mapping

import pandas as pd
import streamlit as st

from . import format as fmt

ROW_HEIGHT = 35


def table(frame: pd.DataFrame, formats: Mapping[str, Callable[[object], str]] | None = None, *,
          key: str | None = None, height: int | str | None = "fit", **column_config) -> None:
    """A sortable table whose cells are formatted by ``explorer.format`` (an empty value shows a dash).

    The underlying values stay numeric, so sorting by a column sorts numbers, not text.
    """
    formats = dict(formats or {})
    # Text columns: a missing cell becomes the dash itself (Streamlit shows a raw None in text columns
    # whatever the Styler says); numeric columns keep their numbers so that sorting stays numeric.
    text_columns = [c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])]
    if text_columns:
        frame = frame.assign(**{c: frame[c].map(lambda v: fmt.DASH if _missing(v) else v).astype(object)
                                for c in text_columns})
    for column in frame.columns:
        formats.setdefault(column, _default_format(frame[column]))
    styler = frame.style.format({c: (lambda f: lambda v: fmt.DASH if _missing(v) else f(v))(f)
                                 for c, f in formats.items()}, na_rep=fmt.DASH)
    if height == "fit":
        height = ROW_HEIGHT * (len(frame) + 1) + 3 if len(frame) <= 20 else 600
    # placeholder: Streamlit draws its own "None" for a missing cell whatever the Styler says.
    st.dataframe(styler, hide_index=True, width="stretch", height=height, key=key,
                 column_config=column_config or None, placeholder=fmt.DASH)


def _missing(value) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _default_format(column: pd.Series) -> Callable[[object], str]:
    if pd.api.types.is_bool_dtype(column):
        return lambda v: "yes" if v else "no"
    if pd.api.types.is_integer_dtype(column):
        return fmt.count
    if pd.api.types.is_float_dtype(column):
        return fmt.score
    return str
