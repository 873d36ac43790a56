"""The app's pages, in menu order: the one list app.py, the page tests and the browser tests read."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parents[1]
# The app's files: in a clone app.py and views/ at its root; installed from a wheel, explorer/_app/ holds them
# (in a clone that folder only links to them).
_CLONE = (ROOT / "app.py").is_file() and (ROOT / "views").is_dir()
APP_DIR = ROOT if _CLONE else Path(__file__).resolve().parent / "_app"


@dataclass(frozen=True)
class PageSpec:
    """One page: its file under views/, its menu title and icon, its URL path ("" for the home page) and the
    menu section it is listed under."""

    name: str
    title: str
    icon: str
    url_path: str
    section: str

    @property
    def path(self) -> Path:
        return APP_DIR / "views" / f"{self.name}.py"


APP_NAME = "Scoring Methodology Explorer"
APP_SENTENCE = ("How AI agents are ranked: every score on the leaderboard taken apart into the runs, formulas and "
                "published constants behind it, with the same numbers for whoever opens the link.")
RESULTS, WHY, METHOD, DATA = "Results", "Why a score is what it is", "The methodology", "Your data"

PAGES: tuple[PageSpec, ...] = (
    PageSpec("leaderboard", "Leaderboard", ":material/leaderboard:", "", RESULTS),
    PageSpec("compare", "Compare two agents", ":material/compare_arrows:", "compare", RESULTS),
    PageSpec("over_time", "Score over time", ":material/timeline:", "over-time", RESULTS),
    PageSpec("headline", "Headline composite", ":material/calculate:", "headline", WHY),
    PageSpec("tasks", "Tasks × agents", ":material/grid_on:", "tasks", WHY),
    PageSpec("runs", "Runs", ":material/table_rows:", "runs", WHY),
    PageSpec("repeatability", "Repeatability", ":material/repeat:", "repeatability", WHY),
    PageSpec("radar", "Fitness radar", ":material/radar:", "radar", WHY),
    PageSpec("methodology", "Methodology", ":material/menu_book:", "methodology", METHOD),
    PageSpec("uncertainty", "Is the difference real?", ":material/difference:", "uncertainty", METHOD),
    PageSpec("sandbox", "Policy sandbox", ":material/science:", "sandbox", METHOD),
    PageSpec("mapping", "Map a table", ":material/table_convert:", "mapping", DATA),
)
PAGE_BY_NAME = {p.name: p for p in PAGES}


def page_for(url_path: str) -> PageSpec:
    """The page of a URL path ("" is the home page); an unknown path is the home page, as Streamlit shows it."""
    return next((p for p in PAGES if p.url_path == url_path), PAGES[0])


def sections() -> dict[str, list[PageSpec]]:
    """The menu: the pages grouped by section, sections and pages in :data:`PAGES` order."""
    grouped: dict[str, list[PageSpec]] = {}
    for spec in PAGES:
        grouped.setdefault(spec.section, []).append(spec)
    return grouped


# A page whose content follows a mode it shows has a title per mode; the menu keeps the page's own title (the mode
# named first in a page's modes is the one its own title says).
MODE_TITLES: dict[tuple[str, str], str] = {("compare", "datasets"): "Compare two datasets"}


def title(name: str, mode: str | None = None) -> str:
    """The page's title (in ``mode``, for a page with modes): written once, here."""
    return MODE_TITLES.get((name, mode or ""), PAGE_BY_NAME[name].title)


def show_title(name: str, mode: str | None = None) -> None:
    """The page's title as the menu shows it (or its mode's, see :data:`MODE_TITLES`): written once, here."""
    import streamlit as st

    st.title(title(name, mode))


_BUILT: dict[PageSpec, Any] = {}  # Streamlit's page object of each spec, built once per process (navigation)


def navigation() -> Any:
    """Streamlit's navigation over :data:`PAGES`, in sections (the first page is the default).

    A page object is built once per process (building one resolves and stats its file, which every rerun of every
    session paid for) and each run gets its own shallow copy: ``st.navigation`` marks the copy it returns as the
    one that may run, so sessions never share that mark.
    """
    import copy

    import streamlit as st

    def page(p: PageSpec) -> Any:
        built = _BUILT.get(p)
        if built is None:  # two threads may both build it: the same object either way
            built = _BUILT[p] = st.Page(str(p.path), title=p.title, icon=p.icon, url_path=p.url_path or None,
                                        default=p is PAGES[0])
        return copy.copy(built)

    return st.navigation({section: [page(p) for p in specs] for section, specs in sections().items()})


_FRAME = threading.local()  # whether this thread's run is inside app.py's page frame (page_frame)


class PageEnded(Exception):
    """A page ended early on purpose (end_page); app.py catches it and draws what follows the page."""


@contextmanager
def page_frame() -> Iterator[None]:
    """Run a page inside this: an early end (end_page) stops the page, not what app.py draws after it."""
    _FRAME.inside = True
    try:
        yield
    except PageEnded:
        pass
    finally:
        _FRAME.inside = False


# The sidebar's link and review pack (app.py) are drawn by a fragment of this key, so that a control that changes
# only its own part of a page reruns that part and the link, not the whole app (see rerun_parts).
LINK_FRAGMENT = "sidebar_link"


def rerun_parts(*fragments: str) -> NoReturn:
    """From a widget callback: rerun only these fragments of the page and the sidebar's link and pack (the link
    carries the view the callback just changed). Where a fragment is not drawn (the page script run alone, as in a
    page test, has no sidebar link; an error ended the last run early) the whole app reruns: always correct."""
    import streamlit as st
    from streamlit.errors import StreamlitAPIException

    try:
        st.rerun([*fragments, LINK_FRAGMENT])
    except StreamlitAPIException:  # a key not drawn in the last full run
        st.rerun()


def end_page() -> NoReturn:
    """End the page here. Inside app.py's page frame the app goes on after the page (the sidebar's link and
    pack are drawn once, after it); a page script run on its own (a test) stops as with ``st.stop()``."""
    if getattr(_FRAME, "inside", False):
        raise PageEnded
    import streamlit as st

    st.stop()
