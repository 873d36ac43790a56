"""Formatting for the app: the numbers (``scoring.contract.format``, re-exported here) and markdown safety."""

from __future__ import annotations

import re

from scoring.contract.format import (
    DASH,
    FORMATS,
    anchor_x,
    count,
    counted,
    factor,
    ms,
    ms_fine,
    number,
    pct,
    pct2,
    pp,
    rate,
    score,
    short,
    steps,
    text,
    usd,
    weight,
)
from scoring.measures.facts import Fact

__all__ = ["DASH", "FORMATS", "anchor_x", "count", "counted", "dollars_safe", "factor", "ms", "ms_fine", "number",
           "pct", "pct2", "plain", "points", "points_fine", "pp", "rate", "render", "score", "short", "steps", "text",
           "usd", "weight"]


def render(fact: Fact) -> str:
    """A fact as markdown text: its numbers formatted, every value (names included) escaped."""
    return fact.render(escape=plain)


# Streamlit finds its icon directives (":material/home:") in the markdown source before any
# escape is read, so an escaped colon is not enough: the slash is escaped too, which breaks the pattern.
_MARKDOWN_SPECIALS = "\\`*_{}[]()<>#+-.!|~$:/&"  # & too: an entity (&#x202E;) would decode


# Streamlit's markdown (remark-gfm) also links a bare address after the escapes are read (``http://``, ``www.``, an
# e-mail address, ``mailto:``): a word joiner (U+2060, drawn as nothing) between a colon and its "//", between an
# at-sign and a domain, between "www" and its dot and after "mailto:" or "xmpp:" leaves no address to find (a
# reviewer's agent named =HYPERLINK("http://evil.example","click") was a live link in headings, bullets and
# Compare's labels). Other text is left as it was ("pass@5", "runs @ platform", "form: read as").
_AUTOLINK_BREAK = re.compile(r"(?<=:)(?=//)|(?<=@)(?=[\w-]+\.[\w-])|(?<=www)(?=\.)|(?<=mailto:)|(?<=xmpp:)",
                             re.IGNORECASE)
WORD_JOINER = "\u2060"


def plain(text: object) -> str:
    """User text made inert inside Streamlit markdown: every markdown/HTML special is escaped, and no address in it
    can become a link.

    >>> [plain(t).replace("\\\\", "") for t in ("http://evil.example", "WWW.x.com", "a@b.co", "mailto:x")]
    ['http:\\u2060//evil.example', 'WWW\\u2060.x.com', 'a@\\u2060b.co', 'mailto:\\u2060x']
    >>> plain("an older form: read as") == plain("an older form: read as").replace(WORD_JOINER, "")  # no address
    True
    """
    text = _AUTOLINK_BREAK.sub(WORD_JOINER, str(text))
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in text)


def natural_key(text: str) -> tuple[tuple[int, str] | tuple[int, str, str], ...]:
    """A sort key that orders the numbers inside names by value (tau2's task ids are numbers: 3 before 11), the
    rest as text. Digits are compared by their count and then as text, never made an int (a 5,000-digit id is
    too long for int()).

    >>> sorted(["11", "3", "t10", "t2", "b", "a", "7", "007"], key=natural_key)
    ['3', '007', '7', '11', 'a', 'b', 't2', 't10']
    >>> natural_key("9" * 5000) < natural_key("1" + "0" * 5000)
    True
    """
    parts = re.split(r"(\d+)", text)
    return tuple((len(p.lstrip("0") or "0"), p.lstrip("0") or "0", p) if i % 2 else (-1, p)
                 for i, p in enumerate(parts))


def dollars_safe(text: str) -> str:
    """Our own markdown with dollar amounts: escape '$' so two of them never open LaTeX math."""
    return text.replace("$", "\\$")


def change(value: object) -> str:
    """A change of the 0-100 score in points, signed, two decimals: +7.31, -15.22; one that rounds to zero is +0.00
    (as the command line's diff writes it), never -0.00.

    >>> change(7.3125), change(-15.2234), change(-0.001), change(None)
    ('+7.31', '-15.22', '+0.00', '—')
    """
    if not isinstance(value, (int, float)) or value != value:
        return score(value)
    return f"{0.0 if abs(value) < 0.005 else value:+.2f}"


def points_fine(value: object) -> str:
    """Points of the 0-100 score with four decimals, as ``explain``'s table writes the weighted score and its
    rounding (80.4250 and -0.0050 beside a published 80.42); never -0.0000.

    >>> import pandas as pd
    >>> points_fine(80.42500000000001), points_fine(-0.00000001), points_fine(None), points_fine(pd.NA)
    ('80.4250', '0.0000', '—', '—')
    """
    if not isinstance(value, (int, float)) or value != value:  # None, pandas' NA, NaN
        return DASH
    return f"{0.0 if abs(value) < 0.00005 else value:.4f}"


def points(value: object) -> str:
    """Points of the 0-100 score with two decimals, a tiny negative (a rounding) shown as 0.00, never -0.00."""
    if isinstance(value, (int, float)) and abs(value) < 0.005:
        value = 0.0
    return score(value)
