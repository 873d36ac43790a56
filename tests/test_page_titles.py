"""A page's title is written once, in the page registry (explorer/pages.py): each view shows it by name."""

from __future__ import annotations

import re

from explorer import pages
from explorer.pages import MODE_TITLES, PAGE_BY_NAME, PAGES


def test_every_view_shows_its_registered_title_and_writes_none_of_its_own():
    for page in PAGES:
        source = page.path.read_text(encoding="utf-8")
        # show_title("name") or, for a page with modes, show_title("name", mode)
        assert re.findall(r'show_title\("([^"]*)"(?:, \w+)?\)', source) == [page.name], page.name
        assert "st.title(" not in source, page.name


def test_a_mode_title_belongs_to_a_registered_page_and_differs_from_its_menu_title():
    for (name, mode), title in MODE_TITLES.items():
        assert name in PAGE_BY_NAME and mode and title != PAGE_BY_NAME[name].title
        assert pages.title(name, mode) == title and pages.title(name) == PAGE_BY_NAME[name].title
