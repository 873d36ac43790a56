"""The app's pages, in menu order: the one list app.py, the page tests and the browser tests read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class PageSpec:
    """One page: its file under views/, its menu title and icon, and its URL path ("" for the home page)."""

    name: str
    title: str
    icon: str
    url_path: str

    @property
    def path(self) -> Path:
        return ROOT / "views" / f"{self.name}.py"


PAGES: tuple[PageSpec, ...] = (
    PageSpec("leaderboard", "Leaderboard", ":material/leaderboard:", ""),
    PageSpec("headline", "Headline composite", ":material/calculate:", "headline"),
    PageSpec("radar", "Fitness radar", ":material/radar:", "radar"),
    PageSpec("repeatability", "Repeatability", ":material/repeat:", "repeatability"),
    PageSpec("uncertainty", "Is the difference real?", ":material/difference:", "uncertainty"),
    PageSpec("tasks", "Tasks × agents", ":material/grid_on:", "tasks"),
    PageSpec("compare", "Compare two agents", ":material/compare_arrows:", "compare"),
    PageSpec("over_time", "Score over time", ":material/timeline:", "over-time"),
    PageSpec("runs", "Runs", ":material/table_rows:", "runs"),
    PageSpec("sandbox", "Policy sandbox", ":material/science:", "sandbox"),
    PageSpec("methodology", "Methodology", ":material/menu_book:", "methodology"),
    PageSpec("mapping", "Map a table", ":material/table_convert:", "mapping"),
)
PAGE_BY_NAME = {p.name: p for p in PAGES}


def page_for(url_path: str) -> PageSpec:
    """The page of a URL path ("" is the home page); an unknown path is the home page, as Streamlit shows it."""
    return next((p for p in PAGES if p.url_path == url_path), PAGES[0])


def navigation() -> Any:
    """Streamlit's navigation over :data:`PAGES` (the first page is the default)."""
    import streamlit as st

    return st.navigation([st.Page(str(p.path), title=p.title, icon=p.icon, url_path=p.url_path or None,
                                  default=i == 0) for i, p in enumerate(PAGES)])
