"""A table shown again unchanged is marshalled once: its Styler, display values and Arrow bytes kept with its frame.

Every table of the explorer is a ``pandas.Styler`` of a frame (``explorer.ui.table``). On every
rerun Streamlit turns it into an ``ArrowData`` message: the Styler's cells formatted and
translated (``marshall_styler``: the styles and display values) and the frame converted to Arrow
IPC bytes, most of what a table costs the server. Most frames the pages show come from the shared
cache (``explorer.data.table_frame``): the same object, never changed, on every rerun of every
session.

:func:`styler` keeps, on the frame itself, one Styler per table key and format, built once with
its ``ArrowData`` styler part and its Arrow bytes marshalled at once; the two Streamlit functions
:func:`install` replaces give those back for that Styler and frame, and compute as before for any
other object. The memo is an attribute of the frame, never in a registry: a frame that dies (a
frame built on one rerun, or one the shared cache let go) takes its tables with it, and a frame
derived from it (``drop``, ``copy``, ``assign``) starts with none. A frame shown through here must
not be changed in place afterwards (the shared cache's frames never are).

Installed on the Streamlit version it was checked against only (``styler_patch.CHECKED_VERSION``);
``tests/test_table_memo.py`` compares the messages with Streamlit's own.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import pandas as pd

from .styler_patch import CHECKED_VERSION, display_text, frame_of_texts

_TABLES = "_explorer_tables"  # on a frame: {(table key, formats' fingerprint): Styler}
_MARSHALLED = "_explorer_marshalled"  # on a Styler: its ArrowData.styler message
_ARROW = "_explorer_arrow_bytes"  # on the frame a Styler shows: its Arrow IPC bytes

_lock = threading.Lock()
_own_marshall: Callable[..., None] | None = None  # Streamlit's marshall_styler, once install() ran
_own_arrow_bytes: Callable[..., bytes] | None = None  # Streamlit's convert_pandas_df_to_arrow_bytes


def fingerprint(formats: Mapping[str, Callable[[Any], str]]) -> Hashable | None:
    """What decides the cells' text besides the values: each format function's code and captured values (a
    lambda written in a page is a new object on every rerun, with the same code); None when a captured value
    cannot be compared (then nothing is kept)."""
    parts = []
    for column, format_value in sorted(formats.items()):
        code = getattr(format_value, "__code__", format_value)
        cells = tuple(c.cell_contents for c in (getattr(format_value, "__closure__", None) or ()))
        defaults = getattr(format_value, "__defaults__", None)
        parts.append((column, code, cells, defaults))
    key = tuple(parts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def styler(frame: pd.DataFrame, key: Hashable, formats: Mapping[str, Callable[[Any], str]],
           build: Callable[[], Any]) -> Any:
    """The Styler ``build()`` makes of ``frame`` for table ``key`` with these ``formats``: made and marshalled
    once for the frame's life when the memo is installed, else made now."""
    memo_key = (key, fingerprint(formats))
    if _own_marshall is None or memo_key[1] is None:
        return build()
    held = frame.__dict__.get(_TABLES)
    if held is not None and memo_key in held:
        return held[memo_key]
    made = _marshalled(build(), key)
    with _lock:  # two sessions showing a new frame at once: the first one's Styler serves both
        return frame.__dict__.setdefault(_TABLES, {}).setdefault(memo_key, made)


def _marshalled(made: Any, key: Hashable) -> Any:
    """A new Styler with its ArrowData styler part and its frame's Arrow bytes computed now (before any other
    thread can see it: marshalling changes a Styler's state)."""
    from streamlit.proto.ArrowData_pb2 import ArrowData

    assert _own_marshall is not None and _own_arrow_bytes is not None
    uuid = f"t{zlib.crc32(repr(key).encode()):08x}"  # fixed per table, wherever on the page it is drawn
    made.set_uuid(uuid)
    proto = ArrowData()
    if formats_only(made):
        _marshall_formats(proto, made, uuid)
    else:
        _own_marshall(proto, made, uuid)
    object.__setattr__(made, _MARSHALLED, proto.styler)
    shown = made.data
    if _ARROW not in shown.__dict__:
        object.__setattr__(shown, _ARROW, _own_arrow_bytes(shown))
    return made


def formats_only(made: Any) -> bool:
    """Whether a Styler only formats its cells (what ``explorer.ui.table`` makes): no style function, table style,
    caption, hidden row or column, cell class or trimming. Its message is then its display values alone."""
    return (not made._todo and not made.table_styles and made.caption is None and not made.hidden_rows
            and not made.hidden_columns and made.cell_ids and not made.cell_context
            and not isinstance(made.data.columns, pd.MultiIndex)
            and made.data.size <= int(pd.options.styler.render.max_elements)
            and pd.options.styler.render.max_rows is None and pd.options.styler.render.max_columns is None)


def _marshall_formats(proto: Any, made: Any, uuid: str) -> None:
    """The ``ArrowData.styler`` message Streamlit's ``marshall_styler`` makes of a Styler that only formats
    (:func:`formats_only`), without pandas' HTML translation of every cell (about 6 ms for a 10 x 11 table, as
    much again as the rest): each cell's text is its display function applied to the value, as pandas' own
    translation does, in the frame Streamlit builds of the texts (``styler_patch.frame_of_texts``).
    ``tests/test_table_memo.py`` compares the messages with Streamlit's own, page by page."""
    assert _own_arrow_bytes is not None
    proto.styler.uuid = uuid
    data, funcs = made.data, made._display_funcs
    columns = {c: [display_text(funcs[(r, c)](value)) for r, value in enumerate(data.iloc[:, c])]  # as itertuples
               for c in range(data.shape[1])}
    proto.styler.display_values = _own_arrow_bytes(frame_of_texts(data, columns))


def _marshall_styler(proto: Any, styler_: Any, default_uuid: str) -> None:
    done = getattr(styler_, _MARSHALLED, None)
    if done is None:
        assert _own_marshall is not None
        _own_marshall(proto, styler_, default_uuid)
        return
    proto.styler.CopyFrom(done)


def _arrow_bytes(df: Any, *, downcast_large_types: bool = False) -> bytes:
    done = getattr(df, "__dict__", {}).get(_ARROW) if not downcast_large_types else None
    if done is not None:
        return done
    assert _own_arrow_bytes is not None
    return _own_arrow_bytes(df, downcast_large_types=downcast_large_types)


def install() -> bool:
    """Give Streamlit's table marshalling the kept messages (checked version only); True if installed."""
    global _own_marshall, _own_arrow_bytes
    import streamlit
    from streamlit import dataframe_util
    from streamlit.elements import arrow

    if streamlit.__version__ != CHECKED_VERSION or not hasattr(arrow, "marshall_styler"):
        return False
    with _lock:
        if _own_marshall is None:
            _own_marshall = arrow.marshall_styler
            _own_arrow_bytes = dataframe_util.convert_pandas_df_to_arrow_bytes
            arrow.marshall_styler = _marshall_styler  # type: ignore[assignment]
            dataframe_util.convert_pandas_df_to_arrow_bytes = _arrow_bytes
    return True


def uninstall() -> None:
    """Streamlit's own functions back (the tests compare both)."""
    global _own_marshall, _own_arrow_bytes
    from streamlit import dataframe_util
    from streamlit.elements import arrow

    with _lock:
        if _own_marshall is not None and _own_arrow_bytes is not None:
            arrow.marshall_styler = _own_marshall
            dataframe_util.convert_pandas_df_to_arrow_bytes = _own_arrow_bytes
        _own_marshall = _own_arrow_bytes = None
