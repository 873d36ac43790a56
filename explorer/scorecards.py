"""Team Scorecards on the radar page: load one (a shipped example, a file, a link), say which is active,
save the current weights as one, and keep the page's link in step.

The radar's sliders keep their positions in session state under ``weight_<axis>`` (views/radar.py).
Loading a scorecard writes those keys before the sliders are drawn (in the picker's and the
uploader's callbacks, or at the top of the page for a link) and remembers the positions it set; a
slider moved since makes the scorecard "modified", and the sliders' weights apply again.

The sliders move in steps of 5%, a scorecard's weights may be finer (down to 0.001). While a
scorecard is active and unmodified the profile uses its exact weights, the numbers
``python -m scoring report --scorecard`` prints; the sliders show them rounded to the nearest step.

A link carries the active scorecard (``scoring.analysis.scorecard.scorecard_link_params``): a query
parameter is a stranger's text, read once per change, bounded and validated by
``scoring.analysis.scorecard.scorecard_from_link``; a refused one is named in a message, never raised.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from scoring import RADAR_AXES
from scoring.analysis.scorecard import (
    DESCRIPTION_MAX_CHARS,
    LINK_PARAMS,
    MAX_SCORECARD_BYTES,
    NAME_MAX_CHARS,
    Scorecard,
    ScorecardError,
    load_scorecards,
    scorecard_file_name,
    scorecard_from_json,
    scorecard_from_link,
    scorecard_link_params,
    scorecard_to_json,
)
from scoring.measures.axes import AXIS_LABELS

from . import format as fmt
from . import state, upload_patch

ACTIVE_KEY = "scorecard_active"
MESSAGE_KEY = "scorecard_message"
PICK_KEY = "scorecard_pick"
UPLOAD_KEY = "scorecard_upload"
LINK_SEEN_KEY = "scorecard_link_seen"
NAME_KEY = "scorecard_save_name"
DESCRIPTION_KEY = "scorecard_save_description"
SLIDER_STEP = 5  # percent, as views/radar.py draws the sliders
DEFAULT_NAME = "my team"


def slider_key(axis: str) -> str:
    return f"weight_{axis}"


@dataclass(frozen=True)
class Active:
    """The scorecard last loaded, where it came from, and the slider positions loading it set."""

    card: Scorecard
    source: str
    positions: tuple[int, ...]  # per axis, in RADAR_AXES order


def slider_positions(weights: Mapping[str, float]) -> tuple[int, ...]:
    """Each weight as a slider position: percent, to the nearest step (halves up), in axis order.

    Examples
    --------
    >>> slider_positions({"correctness": 0.45, "latency": 0.025, "cost": 0.0, "tool_efficiency": 1.0,
    ...                   "robustness": 0.123})
    (45, 5, 0, 100, 10)
    """
    return tuple(SLIDER_STEP * math.floor(100 * weights[a] / SLIDER_STEP + 0.5) for a in RADAR_AXES)


@st.cache_resource
def shipped() -> tuple[Scorecard, ...]:
    """The example scorecards in sample_data/scorecards (read once per server)."""
    return load_scorecards()


def refusal(what: str, error: ScorecardError) -> str:
    """A refused scorecard as markdown: one line per refused field, every piece of stranger's text escaped."""
    return f"{what}:\n\n" + "\n".join(f"- **{fmt.plain(e.field)}**: {fmt.plain(e.message)}" for e in error.errors)


def _positions_now() -> tuple[object, ...]:
    """The weights' slider positions: the sliders' own, else the view's weights. Off the radar page Streamlit drops
    the sliders' keys (a widget not drawn in a run): the view's weights, which follow the sliders, then say whether
    the scorecard still applies (before, every page after the next one dropped it from the link)."""
    held = tuple(state.get("weights"))
    return tuple(st.session_state.get(slider_key(a), held[i]) for i, a in enumerate(RADAR_AXES))


def active() -> Active | None:
    """The loaded scorecard, modified or not (None when none is loaded)."""
    return st.session_state.get(ACTIVE_KEY)


def modified(loaded: Active) -> bool:
    return _positions_now() != loaded.positions


def in_force() -> Scorecard | None:
    """The scorecard whose weights apply: loaded and not modified since."""
    loaded = active()
    return loaded.card if loaded is not None and not modified(loaded) else None


def _load(card: Scorecard, source: str) -> None:
    positions = slider_positions(card.weights)
    for axis, position in zip(RADAR_AXES, positions):
        st.session_state[slider_key(axis)] = position
    st.session_state[ACTIVE_KEY] = Active(card, source, positions)
    st.session_state[NAME_KEY] = card.name
    st.session_state[DESCRIPTION_KEY] = card.description
    st.session_state.pop(MESSAGE_KEY, None)


def _on_pick() -> None:
    name = st.session_state.get(PICK_KEY)
    if name is None:  # the picker shows a scorecard only while it applies: clearing it unloads that one
        forget()
        return
    card = next((c for c in shipped() if c.name == name), None)
    if card is not None:
        _load(card, "shipped example")


def _on_upload() -> None:
    upload = st.session_state.get(UPLOAD_KEY)
    st.session_state.pop(MESSAGE_KEY, None)
    if upload is None:
        return
    name = str(getattr(upload, "name", "") or "upload")
    why = upload_patch.refused(upload)
    if why is not None:  # the server's upload budget was full
        st.session_state[MESSAGE_KEY] = upload_patch.not_kept_text(
            name, why, int(st.get_option("server.disconnectedSessionTTL")))
        return
    try:
        card = scorecard_from_json(upload.getvalue())
    except ScorecardError as error:
        st.session_state[MESSAGE_KEY] = refusal(f"The scorecard file '{fmt.plain(name)}' is refused", error)
        return
    _load(card, f"file {name}")
    st.session_state[PICK_KEY] = None


def _reload() -> None:
    loaded = active()
    if loaded is not None:
        _load(loaded.card, loaded.source)


def forget() -> None:
    """No scorecard any more (the radar's reset button)."""
    st.session_state.pop(ACTIVE_KEY, None)
    st.session_state.pop(MESSAGE_KEY, None)
    st.session_state[PICK_KEY] = None


def _link_params() -> dict[str, list[str]]:
    """The scorecard parameters of the page's URL, or of the session's first link when it opened another page."""
    given = {p: st.query_params.get_all(p) for p in LINK_PARAMS}
    carried = state.take_carried(LINK_PARAMS)
    return given if any(given.values()) else {p: list(carried.get(p, [])) for p in LINK_PARAMS}


def link_params() -> dict[str, str]:
    """The query parameters of the scorecard in force (none when none is): every page's link carries them."""
    card = in_force()
    return scorecard_link_params(card, shipped()) if card is not None else {}


def _seen(params: Mapping[str, list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(params.get(p) or ()) for p in LINK_PARAMS)


def _apply_link() -> None:
    """Load the scorecard the page's link names, once per change of the link."""
    params = _link_params()
    if st.session_state.get(LINK_SEEN_KEY) == _seen(params):
        return
    st.session_state[LINK_SEEN_KEY] = _seen(params)
    try:
        card = scorecard_from_link(params, shipped())
    except ScorecardError as error:
        st.session_state[MESSAGE_KEY] = refusal("The scorecard in this page's link is refused, so none is loaded",
                                                error)
        return
    if card is not None:
        _load(card, "link")
        st.session_state[PICK_KEY] = card.name if card in shipped() else None


def controls() -> None:
    """The *Team scorecard* section; call it above the sliders, which it may set."""
    _apply_link()
    loaded = active()
    if loaded is not None and any(slider_key(a) not in st.session_state for a in RADAR_AXES):
        # The sliders' state was dropped while another page was shown: put the scorecard's positions back.
        for axis, position in zip(RADAR_AXES, loaded.positions):
            st.session_state.setdefault(slider_key(axis), position)
    if loaded is None or modified(loaded) or loaded.card not in shipped():
        st.session_state[PICK_KEY] = None  # the picker shows a shipped scorecard only while it applies

    st.subheader("Team scorecard")
    st.caption("A team's saved radar weights (name, description, weights). Loading one sets the sliders; the "
               "headline score never changes.")
    left, right = st.columns(2)
    cards = {c.name: c for c in shipped()}
    left.selectbox("Load a shipped scorecard", list(cards), index=None, key=PICK_KEY, on_change=_on_pick,
                   placeholder="Choose an example…",
                   format_func=lambda name: f"{name} — {cards[name].description}")
    right.file_uploader("…or your own scorecard (JSON)", type=["json"], key=UPLOAD_KEY, on_change=_on_upload,
                        max_upload_size=1,
                        help=f'{{"name": ..., "description": ..., "weights": {{"correctness": 0.4, ...}}}}; axes '
                             f"not named weigh 0; at most {MAX_SCORECARD_BYTES // 1024} KB.")
    message = st.session_state.get(MESSAGE_KEY)
    if message:
        st.error(message, icon=":material/block:")
    if loaded is None:
        st.caption("No scorecard loaded: the profile ranking follows the sliders.")
    elif modified(loaded):
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.warning(f"Scorecard **{fmt.plain(loaded.card.name)}** ({fmt.plain(loaded.source)}) is **modified**: "
                     "a slider has moved since it was loaded, so the sliders' weights apply.", icon=":material/edit:")
        right.button("Load it again", on_click=_reload, icon=":material/undo:", width="stretch",
                     key="scorecard_reload")
    else:
        card = loaded.card
        rounded = any(abs(p / 100 - card.weights[a]) > 1e-12 for a, p in zip(RADAR_AXES, loaded.positions))
        weights = card.shares_text(AXIS_LABELS)  # shares adding up to 100%, whatever the weights add up to
        st.success(f"Active scorecard: **{fmt.plain(card.name)}** ({fmt.plain(loaded.source)}): "
                   f"{fmt.plain(weights)}; axes not named weigh 0."
                   + (f" {fmt.plain(card.description)}" if card.description else "")
                   + (f" The sliders show these weights to the nearest {SLIDER_STEP}%; the profile scores use them "
                      "exactly." if rounded else ""), icon=":material/verified:")


def applied_weights(slider_weights: Mapping[str, float]) -> dict[str, float]:
    """The radar weights in force: the active scorecard's exact weights, else the sliders'."""
    card = in_force()
    return dict(card.weights) if card is not None else dict(slider_weights)


def ranking_caption() -> str:
    """Which weights rank the profile table, in words (markdown)."""
    loaded, card = active(), in_force()
    if card is not None:
        return f"Profile ranked by the scorecard **{fmt.plain(card.name)}**."
    if loaded is not None:
        return f"Profile ranked by the sliders (scorecard **{fmt.plain(loaded.card.name)}** modified)."
    return "Profile ranked by the sliders' weights."


def save_and_link(weights: Mapping[str, float]) -> None:
    """The download of the weights in force as a scorecard, and the page's link set to the active scorecard."""
    _sync_link()
    st.session_state.setdefault(NAME_KEY, DEFAULT_NAME)
    st.session_state.setdefault(DESCRIPTION_KEY, "")
    with st.expander("Save these weights as a scorecard", icon=":material/save:"):
        left, right = st.columns([1, 2])
        name = left.text_input("Name", key=NAME_KEY, max_chars=NAME_MAX_CHARS)
        description = right.text_input("Description", key=DESCRIPTION_KEY, max_chars=DESCRIPTION_MAX_CHARS,
                                       placeholder="What your team cares about, in a sentence")
        try:
            card = Scorecard(name, description, dict(weights))
        except ScorecardError as error:
            st.error(refusal("These weights cannot be saved as a scorecard", error), icon=":material/block:")
            return
        loaded = active()
        if loaded is not None and modified(loaded) and name == loaded.card.name:
            # Two files of one name with different weights: a team could not tell which ranking it shared.
            st.warning(f"These are no longer the weights of scorecard **{fmt.plain(name)}** (a slider has moved "
                       "since it was loaded): give them a name and a description of their own.",
                       icon=":material/edit:")
        st.download_button("Download the scorecard (JSON)", scorecard_to_json(card),
                           file_name=scorecard_file_name(card), mime="application/json", icon=":material/download:",
                           on_click="ignore", key="scorecard_download")
        st.caption("Load it above later, or score a runs file with it: "
                   "`python -m scoring report RUNS --scorecard FILE`.")
    if in_force() is not None:
        st.caption(":material/link: This page's address carries the active scorecard: share it to show the same "
                   "profile ranking (a scorecard from a file travels without its description).")


def _sync_link() -> None:
    """The page's query parameters name the scorecard in force, and nothing when none is."""
    card = in_force()
    wanted = scorecard_link_params(card, shipped()) if card is not None else {}
    for param in LINK_PARAMS:
        value = wanted.get(param)
        if value is None and st.query_params.get_all(param):
            del st.query_params[param]
        elif value is not None and st.query_params.get_all(param) != [value]:
            st.query_params[param] = value
    st.session_state[LINK_SEEN_KEY] = _seen({p: [v] for p, v in wanted.items()})
