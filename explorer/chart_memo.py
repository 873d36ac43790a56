"""A chart shown again unchanged is serialized once: its figure's dict and JSON kept with the figure.

``st.plotly_chart(fig)`` copies the whole figure into a dict (``plotly.tools.return_figure_from_figure_or_data``,
a deep copy) and writes it as JSON (``plotly.io.to_json``, every array through base64) on every rerun,
most of what a chart costs the server. The charts of ``explorer.data.figure`` are the same figure
object, never changed, on every rerun of every session: :func:`prepare` computes that dict and its JSON
once, when the figure is built (before any session can see it), and keeps them on the figure; the two
plotly functions :func:`install` wraps give them back for that figure and compute as before for
anything else. A figure that dies takes them with it (no registry).

Installed on the Streamlit version it was checked against only (``styler_patch.CHECKED_VERSION``: its
``plotly_chart`` calls exactly these two functions, through their modules); ``tests/test_chart_memo.py``
compares the messages with Streamlit's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .styler_patch import CHECKED_VERSION

F = TypeVar("F")
_KEPT = "_explorer_serialized"  # on a figure: its _Serialized dict

_lock = threading.Lock()
_own_to_dict: Callable[..., Any] | None = None  # plotly.tools.return_figure_from_figure_or_data, once installed
_own_to_json: Callable[..., Any] | None = None  # plotly.io.to_json


class _Serialized(dict):
    """A figure's dict as plotly makes it for Streamlit, with its JSON."""

    json: str


def prepare(figure: F) -> F:
    """Compute ``figure``'s dict and JSON now and keep them on it (when installed); returns the figure."""
    if _own_to_dict is None or _own_to_json is None:
        return figure
    kept = _Serialized(_own_to_dict(figure, validate_figure=True))
    kept.json = _own_to_json(kept, validate=False)
    object.__setattr__(figure, _KEPT, kept)
    return figure


def _to_dict(figure_or_data: Any, validate_figure: Any) -> Any:
    kept = figure_or_data.__dict__.get(_KEPT) if hasattr(figure_or_data, "__dict__") else None
    if kept is not None:
        return kept
    assert _own_to_dict is not None
    return _own_to_dict(figure_or_data, validate_figure)


def _to_json(fig: Any, *args: Any, **kwargs: Any) -> Any:
    if type(fig) is _Serialized and not args and kwargs == {"validate": False}:
        return fig.json
    assert _own_to_json is not None
    return _own_to_json(fig, *args, **kwargs)


def install() -> bool:
    """Give Streamlit's chart serialization the kept dict and JSON (checked version only); True if installed."""
    global _own_to_dict, _own_to_json
    import plotly.io
    import plotly.tools
    import streamlit

    if streamlit.__version__ != CHECKED_VERSION:
        return False
    with _lock:
        if _own_to_dict is None:
            _own_to_dict = plotly.tools.return_figure_from_figure_or_data
            _own_to_json = plotly.io.to_json
            plotly.tools.return_figure_from_figure_or_data = _to_dict
            plotly.io.to_json = _to_json
    return True


def uninstall() -> None:
    """plotly's own functions back (the tests compare both)."""
    global _own_to_dict, _own_to_json
    import plotly.io
    import plotly.tools

    with _lock:
        if _own_to_dict is not None and _own_to_json is not None:
            plotly.tools.return_figure_from_figure_or_data = _own_to_dict
            plotly.io.to_json = _own_to_json
        _own_to_dict = _own_to_json = None
