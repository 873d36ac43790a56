"""A page's title is written once, in the page registry (explorer/pages.py): each view shows it by name."""

from __future__ import annotations

import re

from explorer.pages import PAGES


def test_every_view_shows_its_registered_title_and_writes_none_of_its_own():
    for page in PAGES:
        source = page.path.read_text(encoding="utf-8")
        assert re.findall(r'show_title\("([^"]*)"\)', source) == [page.name], page.name
        assert "st.title(" not in source, page.name
