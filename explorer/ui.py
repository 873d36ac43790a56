"""Small Streamlit helpers shared by the pages (the only UI code outside views/, app.py and explorer.data)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
import streamlit as st

from . import chart_memo, styler_patch, table_memo
from . import format as fmt
from .charts import CHART_MAX_AGENTS

if TYPE_CHECKING:
    from scoring import Policy
    from scoring.contract.policy import FieldSpec
    from scoring.measures.report import AgentReport

    from .charts import ChartTheme

ROW_HEIGHT = 35
styler_patch.install()  # the same table text, built ten times faster (explorer/styler_patch.py)
table_memo.install()  # a table shown again unchanged is marshalled once (explorer/table_memo.py)
chart_memo.install()  # a chart of the shared cache is serialized once (explorer/chart_memo.py)
# The columns that say which row this is and its score: pinned at the left of every table, so that on a 390 px
# phone the rank, the agent and the score stay in view while the rest scrolls sideways (the first of SCORES found).
IDENTITY = ("Rank", "Profile rank", "Agent", "Component")
SCORES = ("Score", "Profile score", "Earned", "Points if removed")
PINNED_TEXT_PX = 110  # a pinned text column (an agent id): the rest of a long id is in its tooltip
# A table's cells at most (explorer-defined): its first rows within it are drawn, and a caption says so. Streamlit
# refuses a styled table past 262,144 cells, with an error in place of the rest of the page (a reviewer's file of
# 50,000 tasks: the Headline page's per-task table of 300,000 cells).
TABLE_MAX_CELLS = 60_000
_SHOWING = "_explorer_selectable_shows"  # {widget key: (generation, what it shows)} (fresh_key)


def fresh_key(key: str, shows: Hashable) -> str:
    """The widget key of a selectable table, a new one whenever what it shows changes (``shows``: the identity
    of its rows, such as the dataset and the agent shown).

    Streamlit (1.67) keeps a table's selection under its key, by row position, whatever data it is given next
    (a table's identity is its key and selection mode): a row ticked in one dataset would tick whichever agent
    has that row in the next, and the page would act on it (the focus moved to it, its runs offered). A new
    key draws a new table, with nothing ticked but its default. The first rows a session shows keep ``key``
    itself; each change after that adds a number (``key~1``, ``key~2``, ...). (A plotly chart's identity is its
    figure as well: a new figure starts with nothing selected.)
    """
    shown = st.session_state.setdefault(_SHOWING, {})
    generation, was = shown.get(key, (0, shows))
    if was != shows:
        generation += 1
    shown[key] = (generation, shows)
    return key if generation == 0 else f"{key}~{generation}"


def metric_row(n: int) -> list[Any]:
    """``n`` places side by side for metrics (or sliders), like ``st.columns(n)`` but one block for the row (a
    column is a block of its own, each a message to the browser): they share the width and wrap on a phone."""
    row = st.container(horizontal=True, gap="medium")
    return [row] * n


def table(frame: pd.DataFrame, formats: Mapping[str, Callable[[object], str]] | None = None, *,
          key: str | None = None, height: int | Literal["fit", "auto"] = "fit",
          columns: Mapping[str, Any] | None = None,
          select: Literal["single-row", "multi-row"] | None = None, selected: Sequence[int] = (),
          fresh_for: Hashable = None) -> list[int]:
    """A sortable table whose cells are formatted by ``explorer.format`` (an empty value shows a dash).

    The underlying values stay numeric, so sorting by a column sorts numbers, not text. With
    ``select`` (and a ``key``), rows can be selected: the positions of the selected rows in ``frame``
    are returned (the order the frame was given in, whatever order the viewer sorted it into);
    ``selected`` are the rows selected when the table is first drawn (a link's view), never over the viewer's;
    ``fresh_for`` the identity of the data the rows are (:func:`fresh_key`): when it changes, no row stays
    selected by its position.
    """
    formats = dict(formats or {})
    rows = shown_rows(frame)
    part = frame if rows == len(frame) else frame.iloc[:rows]
    # A frame from the shared cache is the same object on every rerun of every session: its Styler is built and
    # marshalled once (explorer.table_memo, kept on that frame, for its first rows too); any other frame's on each
    # call, as before.
    if key is None:
        styler = _styler(part, formats)
    else:
        styler = table_memo.styler(frame, key if part is frame else (key, rows), formats,
                                   lambda: _styler(part, formats))
    if part is not frame:
        st.caption(f"The first {rows:,} of {len(frame):,} rows are shown, in this table's order (a table shows at "
                   f"most {TABLE_MAX_CELLS:,} cells, explorer-defined); sorting a column sorts these rows.")
    if height == "fit":  # every row shown up to 20 rows, then a scrolling table
        height = ROW_HEIGHT * (len(part) + 1) + 3 if len(part) <= 20 else 600
    # placeholder: Streamlit draws its own "None" for a missing cell whatever the Styler says.
    config: dict[str, Any] | None = pinned(frame, columns)
    if select is None:
        st.dataframe(styler, hide_index=True, width="stretch", height=height, key=key, column_config=config,
                     placeholder=fmt.DASH)
        return []
    widget = key if key is None or fresh_for is None else fresh_key(key, fresh_for)
    selected = [r for r in selected if 0 <= r < rows]
    event = st.dataframe(styler, hide_index=True, width="stretch", height=height, key=widget, column_config=config,
                         placeholder=fmt.DASH, on_select="rerun", selection_mode=select,
                         selection_default={"selection": {"rows": list(selected)}} if selected else None)
    return [int(r) for r in event.selection.rows if 0 <= int(r) < rows]


def say_agents_drawn(total: int, rest: str) -> None:
    """Under a chart of the leaderboard's first :data:`~explorer.charts.CHART_MAX_AGENTS` agents, where there are more:
    how many are drawn, and where ``rest`` are (e.g. "every agent's pass^k is in the table below")."""
    if total > CHART_MAX_AGENTS:
        st.caption(f"The leaderboard's first {CHART_MAX_AGENTS} of {fmt.count(total)} agents are drawn (at most that "
                   f"many, explorer-defined); {rest}.")


def shown_rows(frame: pd.DataFrame) -> int:
    """How many of the frame's first rows a table draws: all of them within :data:`TABLE_MAX_CELLS` cells.

    >>> shown_rows(pd.DataFrame({"a": range(50_000), "b": 0}))
    30000
    >>> shown_rows(pd.DataFrame({"a": range(5)}))
    5
    """
    return min(len(frame), max(1, TABLE_MAX_CELLS // max(1, len(frame.columns))))


def _styler(frame: pd.DataFrame, formats: Mapping[str, Callable[[object], str]]) -> Any:
    """The frame's Styler: every cell's text by its format (a dash for a missing value)."""
    formats = dict(formats)
    # Streamlit draws a number of 2^53 or more (past it every double is whole) as an error cell, its raw value with
    # "larger than the maximum supported integer", whatever the Styler says. Only a hostile file's amounts get
    # there (a latency of 1e300 ms is valid): such a column is shown as its formatted text, and sorts as text.
    huge = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c]) and (frame[c].abs() >= 2.0**53).any()]
    if huge:
        frame = frame.assign(**{c: frame[c].map(_dash_for_missing(formats.get(c) or _default_format(frame[c])))
                                .astype(object) for c in huge})
        formats = {c: f for c, f in formats.items() if c not in huge}
    # Text columns: a missing cell becomes the dash itself (Streamlit shows a raw None in text columns
    # whatever the Styler says); numeric columns keep their numbers so that sorting stays numeric.
    text_columns = [c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])]
    if text_columns:
        frame = frame.assign(**{c: frame[c].map(lambda v: fmt.DASH if _missing(v) else v).astype(object)
                                for c in text_columns})
    for column in frame.columns:
        formats.setdefault(column, _default_format(frame[column]))
    return frame.style.format({c: _dash_for_missing(f) for c, f in formats.items()}, na_rep=fmt.DASH)


def pinned(frame: pd.DataFrame, columns: Mapping[str, Any] | None) -> dict[str, Any]:
    """The column configuration with the table's identity columns and its score pinned (see :data:`IDENTITY`)."""
    config = dict(columns or {})
    present = [c for c in frame.columns if c in IDENTITY]
    present += [c for c in SCORES if c in frame.columns][:1]
    for column in present:
        given = config.get(column)
        if given is None:
            given = st.column_config.Column()
        if isinstance(given, dict):
            # A pinned column has a width of its own: Streamlit keeps pinned columns in place only while their
            # widths add up to at most 60% of the table's (a column without one counts as twice the minimum).
            text = frame[column].dtype == object or pd.api.types.is_string_dtype(frame[column])
            width = given.get("width") or (PINNED_TEXT_PX if text else min(150, 7 * len(column) + 20))
            config[column] = {**given, "pinned": True, "width": width}
    return config


def selected_point(event: Any, curve: int | None = None, size: int | None = None) -> int | None:
    """The point index of the first point selected in a plotly chart's selection event (on ``curve`` if given,
    below ``size`` if given: a selection left from other data selects nothing).

    The event is read as a mapping (Streamlit's event supports both attribute and item access; a
    selection put into session state is a plain dict); a malformed one selects nothing.
    """
    try:
        points = list(event["selection"]["points"]) if event is not None else []
    except (KeyError, TypeError):
        return None
    for point in points:
        index = point.get("point_index", point.get("point_number"))
        if index is not None and (curve is None or point.get("curve_number") == curve) and (
                size is None or 0 <= int(index) < size):
            return int(index)
    return None


def _dash_for_missing(format_value: Callable[[object], str]) -> Callable[[object], str]:
    return lambda v: fmt.DASH if _missing(v) else format_value(v)


def _missing(value: object) -> bool:
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


def chart_theme() -> ChartTheme:
    """The chart colours of the viewer's theme (light or dark), from the browser's active Streamlit theme."""
    from .charts import theme_for

    return theme_for(st.context.theme.type)


PROVENANCE_BADGE = {"published": ":blue-badge[published]", "explorer-defined": ":orange-badge[explorer-defined]"}


def policy_editor(base: dict, canonical: dict, provenance: Mapping[str, str], generation: int) -> dict:
    """Inputs for every policy constant, from the policy's field table; returns the edited constants.

    Each input shows its provenance badge and the canonical value; an edited value is marked. The
    inputs' bounds are the field table's, and the one validator (``scoring.contract.policy``) judges the result.
    """
    from scoring.contract.policy import FIELDS
    from scoring.measures.axes import RADAR_AXES

    edited = dict(base)
    for section in dict.fromkeys(f.section for f in FIELDS):
        st.markdown(f"**{section}**")
        specs = [f for f in FIELDS if f.section == section]
        scalars = [f for f in specs if f.kind in ("number", "integer", "levels")]
        for row in range(0, len(scalars), 3):
            for column, spec in zip(st.columns(3), scalars[row:row + 3]):
                with column:
                    edited[spec.name] = _scalar_input(spec, base[spec.name], generation)
                    _field_caption(spec, edited[spec.name], canonical[spec.name], provenance)
        for spec in (f for f in specs if f.kind == "weights"):
            st.caption(f"{spec.label} {PROVENANCE_BADGE[provenance[spec.name]]} — {spec.meaning}")
            weights = {}
            for column, axis in zip(st.columns(len(RADAR_AXES)), RADAR_AXES):
                weights[axis] = column.number_input(axis.replace("_", " "), value=float(base[spec.name][axis]),
                                                    min_value=0.0, max_value=1.0, step=0.05, format="%.2f",
                                                    key=f"{spec.name}.{axis}_{generation}")
            edited[spec.name] = weights
        anchors = [f for f in specs if f.kind == "anchors"]
        for column, spec in zip(st.columns(max(len(anchors), 1)), anchors):
            with column:
                edited[spec.name] = _anchor_input(spec, base[spec.name], generation)
                _field_caption(spec, edited[spec.name], canonical[spec.name], provenance)
    return edited


def _scalar_input(spec: FieldSpec, value: Any, generation: int) -> Any:
    key = f"{spec.name}_{generation}"
    label = spec.label + (f" ({spec.unit})" if spec.unit and spec.unit not in spec.label.lower() else "")
    if spec.kind == "levels":
        text = st.text_input(label, value=", ".join(str(k) for k in value), key=key,
                             help=f"{spec.meaning}; {spec.describe_range()}, separated by commas")
        levels: list = []
        for part in (p.strip() for p in text.split(",") if p.strip()):
            try:
                levels.append(int(part))
            except ValueError:
                levels.append(part)  # the validator names it
        return levels
    if spec.kind == "integer":
        return st.number_input(label, value=int(value), min_value=int(spec.low), max_value=int(spec.high), step=1,
                               key=key, help=f"{spec.meaning}; {spec.describe_range()}")
    return st.number_input(label, value=float(value), step=0.05, format=decimals_format(float(value)), key=key,
                           help=f"{spec.meaning}; {spec.describe_range()}")


def decimals_format(value: float) -> str:
    """A number box's format that shows ``value`` as the policy holds it: two decimals, more where it has them (a
    link's 0.404 read "0.40" beside "edited", and 0.004 "0.00"); past 12 decimals every significant digit in
    scientific form (a hostile link's 1e-300 read "0.000000000000", and 0.4000000000001 "0.400000000000").

    >>> decimals_format(0.4), decimals_format(0.404), decimals_format(0.004)
    ('%.2f', '%.3f', '%.3f')
    >>> decimals_format(1e-300), decimals_format(0.4000000000001), decimals_format(123456789.25)
    ('%.1e', '%.12e', '%.2f')
    """
    _, digits, exponent = Decimal(repr(value)).as_tuple()
    if not isinstance(exponent, int):  # a NaN or an infinity (refused by the policy's validator anyway)
        return "%.2f"
    if -exponent <= 12:
        return f"%.{max(2, -exponent)}f"
    return f"%.{max(1, len(digits) - 1)}e"


def _anchor_input(spec: FieldSpec, value: dict, generation: int) -> dict:
    st.caption(spec.label + (f" ({spec.unit})" if spec.unit not in spec.label.lower() else ""))
    table = pd.DataFrame({"x": value["xs"], "score": value["scores"]})
    result = st.data_editor(table, num_rows="dynamic", key=f"{spec.name}_{generation}", hide_index=True,
                            width="stretch", column_config={
                                "x": st.column_config.NumberColumn(f"position ({spec.unit})", format="%g"),
                                "score": st.column_config.NumberColumn("score (0–1)", format="%g")})
    rows = result.dropna(how="all")
    return {"xs": [float(v) if pd.notna(v) else None for v in rows["x"]],
            "scores": [float(v) if pd.notna(v) else None for v in rows["score"]]}


def _field_caption(spec: FieldSpec, value: object, canonical: object, provenance: Mapping[str, str]) -> None:
    shown = _constant_text(canonical)
    mark = " · :orange[**edited**]" if value != canonical else ""
    st.caption(f"{PROVENANCE_BADGE[provenance[spec.name]]} canonical {shown}{mark}")


def _constant_text(value: Any) -> str:
    if isinstance(value, dict) and "xs" in value:
        return "; ".join(f"{x:g} → {s:g}" for x, s in zip(value["xs"], value["scores"]))
    if isinstance(value, dict):
        return ", ".join(f"{v:g}" for v in value.values())
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return f"{value:g}"


def what_if(agent: AgentReport, policy: Policy, *, key: str) -> None:
    """One agent's what-if figures (exact from the policy's maps): the headline after each change, the
    runs until the consistency gate, the outcomes until pass^k is defined for every task."""
    from scoring.analysis.uncertainty import sensitivity

    from . import data

    s = data.derived("sensitivity", (agent.agent_id, policy.version), lambda: sensitivity(agent), lambda _: 5_000)
    st.caption(f"Exact from the policy's piecewise maps; current headline score {fmt.score(s.score)}.")
    for panel, what in zip(metric_row(3), s.what_ifs):
        panel.metric(what.change.capitalize(), fmt.score(what.score),
                     delta=None if what.points is None else f"{what.points:+.2f} points",
                     help="Headline score after the change (points: rounded new score minus rounded current score)")
    gate_panel, outcomes_panel = metric_row(2)
    gate = policy.consistency_min_latencies
    if s.runs_to_consistency_gate:
        gate_panel.metric("More completed runs with a latency until the consistency gate",
                          fmt.counted(s.runs_to_consistency_gate, "run", "runs"),
                          help=f"The gate needs {gate} recorded latencies")
    else:  # "0 runs until the gate" read as if the gate were still ahead
        gate_panel.metric("Consistency gate", "Met", help=f"At least {gate} recorded latencies: consistency is "
                                                          "measured, not the neutral factor")
    outcomes_panel.metric(f"More outcomes until every task has {s.top_level} (only then can pass^{s.top_level} "
                          "be above 0 on it)",
                          fmt.counted(s.total_outcomes_to_pass_k, "outcome", "outcomes"),
                          help=f"A task qualifies for pass^k with {policy.pass_k_min_outcomes} outcomes, but counts 0 "
                               f"at pass^{s.top_level} until it has {s.top_level}: only then can {s.top_level} of "
                               "them all succeed")
    if s.outcomes_to_pass_k:
        needed = s.outcomes_to_pass_k
        table(data.table_frame("outcomes_to_pass_k", (agent.agent_id, policy.version), lambda: pd.DataFrame(
            {"Task": list(needed), "More outcomes needed": pd.array(list(needed.values()), dtype="Int64")})),
              key=key, height=min(400, 35 * (len(needed) + 1) + 3))
