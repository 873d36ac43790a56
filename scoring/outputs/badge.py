"""Score badges: one agent's canonical headline score as a shields.io-style SVG.

The published page names badges as a place the headline appears ("the public 0-100 ranking
score on the Talent Pool, badges, and ``/stats``"), and says viewer or Team Scorecard weights
"never change the canonical headline score". So a badge shows the headline and nothing else:
no profile score, no weights. Everything else here is presentation and **explorer-defined**:
the colour scale (:data:`COLOUR_SCALE`), the layout (shields.io's "flat" style: a grey label
with the agent id, a coloured value, rounded corners, a faint gradient) and the width estimate.

An agent id is text from a stranger and an SVG is XML, so every name goes through
:func:`safe_text` (characters XML 1.0 forbids, bidi controls that could reorder the tooltip, and
every other invisible format character, become U+FFFD) and :func:`escape_xml` before it is written.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from dataclasses import dataclass

from scoring.contract.filenames import file_slug
from scoring.contract.format import score as score_text
from scoring.measures.headline import Headline
from scoring.measures.report import AgentReport


@dataclass(frozen=True)
class ColourBand:
    """One row of the badge colour scale: when it applies, the shields.io colour name and its hex."""

    applies_to: str
    minimum: float | None
    name: str
    hex: str


# Explorer-defined. Score bands, highest first: a ranked score takes the first band whose
# minimum it reaches. The score compared is the published, rounded one (what the badge shows),
# so "80.00" is bright green and "79.99" is green. Colours are shields.io's named colours.
COLOUR_SCALE: tuple[ColourBand, ...] = (
    ColourBand("score >= 80", 80.0, "brightgreen", "#4c1"),
    ColourBand("60 <= score < 80", 60.0, "green", "#97ca00"),
    ColourBand("40 <= score < 60", 40.0, "yellow", "#dfb317"),
    ColourBand("20 <= score < 40", 20.0, "orange", "#fe7d37"),
    ColourBand("score < 20", 0.0, "red", "#e05d44"),
)
# The floor is a verdict ("efficiency cannot compensate for zero task outcomes"), not a low
# number that happens to be 0: red, and the value says so in words.
FLOOR_BAND = ColourBand("zero-success floor", None, "red", "#e05d44")
# No completed run: no score at all (SPEC 3), so no colour of the scale either.
UNRANKED_BAND = ColourBand("unranked (no completed run)", None, "lightgrey", "#9f9f9f")
LABEL_COLOUR = "#555"

MAX_LABEL_CHARS = 64  # longer agent ids are cut with an ellipsis on the badge; <title> keeps the whole id
HEIGHT = 20
PADDING = 5  # horizontal padding on each side of a text (shields.io)
FONT_FAMILY = "Verdana,Geneva,DejaVu Sans,sans-serif"


def colour_scale_markdown() -> str:
    """The colour scale as a Markdown table, for the README.

    Examples
    --------
    >>> print(colour_scale_markdown().splitlines()[2])
    | score >= 80 | brightgreen | `#4c1` |
    """
    rows = ["| headline | colour | hex |", "|---|---|---|"]
    rows += [f"| {b.applies_to} | {b.name} | `{b.hex}` |" for b in (*COLOUR_SCALE, FLOOR_BAND, UNRANKED_BAND)]
    return "\n".join(rows)


def badge_colour(headline: Headline) -> ColourBand:
    """The band a headline falls in: unranked, the zero-success floor, else by its rounded score."""
    if headline.score is None:
        return UNRANKED_BAND
    if headline.zero_success_floor:
        return FLOOR_BAND
    return score_band(headline.score)


def score_band(score: float) -> ColourBand:
    """The colour band of a ranked, unfloored headline score.

    Examples
    --------
    >>> score_band(80.0).name, score_band(79.99).name, score_band(0.0).name
    ('brightgreen', 'green', 'red')
    """
    for band in COLOUR_SCALE:
        if band.minimum is not None and score >= band.minimum:
            return band
    return COLOUR_SCALE[-1]  # below 0 cannot happen (SPEC 3 bounds the score); keep it red anyway


def badge_message(headline: Headline) -> str:
    """The badge's value: the score with the policy's decimals, or what stands in for it.

    Examples
    --------
    >>> from scoring import runs_from_records, score_runs
    >>> runs = runs_from_records([{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed",
    ...                            "success": False, "latency_ms": 900, "cost_usd": 0.002}])
    >>> badge_message(score_runs(runs).agent("a").headline)
    '0.00 · zero-success floor'
    """
    if not headline.ranked:
        return "unranked"
    text = score_text(headline.score, headline.policy.score_decimals)  # the one formatter (scoring.contract.format)
    return f"{text} · zero-success floor" if headline.zero_success_floor else text


# --- Text that is safe in XML and honest on screen ------------------------------------------

REPLACEMENT = "\ufffd"
# Bidi embeddings, overrides, isolates and marks: inside <title> a U+202E in a name would
# display the score after it backwards. They carry no meaning in an agent id.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _unsafe(ch: str) -> bool:
    cp = ord(ch)
    # Format characters (Cf): the bidi controls above (every one of them is Cf), and the invisible ones (zero-width
    # space and joiners, word joiner, soft hyphen, byte order mark...). A badge travels without the report's
    # look-alike warning (schema.look_alike_warnings drops the same characters to compare ids), so 'gpt-4\u200b'
    # must not draw as 'gpt-4' does.
    return (unicodedata.category(ch) in ("Cc", "Cs", "Cf")  # controls, DEL, lone surrogates, format characters
            or 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE)  # noncharacters (U+FFFE/FFFF: not XML)


def safe_text(text: str) -> str:
    r"""``text`` with every character XML 1.0 forbids, every control, bidi control and other format character
    (zero-width ones among them) replaced by U+FFFD.

    Tab, newline and carriage return are allowed by XML but replaced too: an agent id is one
    line, and a visible U+FFFD says something odd is in the name where a space would hide it.

    Examples
    --------
    >>> safe_text("ok\x00\ud800\u202eend")
    'ok\ufffd\ufffd\ufffdend'
    >>> safe_text("gpt-4\u200b")
    'gpt-4\ufffd'
    """
    return "".join(REPLACEMENT if _unsafe(ch) else ch for ch in text)


_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
_ESCAPE_RE = re.compile("[&<>\"']")


def escape_xml(text: str) -> str:
    """Escape the five XML specials, for text content and attribute values alike.

    Escaping ``>`` too means ``]]>`` (forbidden in character data) can never appear.

    Examples
    --------
    >>> escape_xml('a<b & "c" ]]>')
    'a&lt;b &amp; &quot;c&quot; ]]&gt;'
    """
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group()], text)


def badge_label(agent_id: str) -> str:
    """The agent id as the badge draws it: made safe, then cut to :data:`MAX_LABEL_CHARS` with an ellipsis.

    Examples
    --------
    >>> len(badge_label("x" * 100)), badge_label("x" * 100)[-1]
    (64, '…')
    """
    text = safe_text(agent_id)
    return text if len(text) <= MAX_LABEL_CHARS else text[: MAX_LABEL_CHARS - 1] + "\u2026"


# --- Width of a text in Verdana 11px ----------------------------------------------------------

# Advance widths of Verdana at 11px for printable ASCII (the font's advance widths, in px,
# rounded up to 0.1 px so the estimate errs wide). shields.io measures the same font and size.
_ASCII_GROUPS = {
    2.9: "'",
    3.1: "il",
    3.8: "j",
    3.9: " f",
    4.1: ",.",
    4.4: "!t",
    4.7: "Ir",
    5.0: "()-/:;[\\]|J",
    5.1: '"',
    5.8: "csz",
    6.0: "?",
    6.2: "L",
    6.4: "F",
    6.6: "ekvxy",
    6.7: "aoP",
    6.8: "TY",
    6.9: "bdgpq",
    7.0: "0123456789$*_`{}Ehnu",
    7.6: "ABSVXZ",
    7.7: "CKR",
    8.0: "&",
    8.1: "U",
    8.3: "HN",
    8.5: "D",
    8.6: "G",
    8.7: "OQ",
    9.1: "#+<=>^~w",
    9.3: "M",
    10.7: "m",
    10.9: "W",
    11.0: "@",
    11.9: "%",
}
ASCII_WIDTHS: dict[str, float] = {ch: w for w, chars in _ASCII_GROUPS.items() for ch in chars}
# Non-ASCII characters the badge itself writes: the middle dot of the floor's value.
EXTRA_WIDTHS: dict[str, float] = {"\u00b7": 4.1}
# Classes for everything else, chosen generous: an underestimate squeezes the text.
WIDE_WIDTH = 11.0  # East Asian wide and fullwidth characters are one em
EMOJI_WIDTH = 14.0  # colour emoji fonts draw wider than an em
# Latin, Greek and Cyrillic letters beyond ASCII (Verdana draws them): a little above the averages
# of those blocks in DejaVu Sans, the fallback font (lowercase 6.4-7.5 px, uppercase 7.6-8.6 px).
SMALL_LETTER_WIDTH = 7.5
CAPITAL_LETTER_WIDTH = 8.7
OTHER_WIDTH = 9.0  # every other script and symbol: above Verdana's widest lowercase letters but m and w
REPLACEMENT_WIDTH = 11.0


def _is_emoji(cp: int) -> bool:
    return 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF


def char_width(ch: str) -> float:
    """Estimated advance width of one character in Verdana 11px, in px.

    Examples
    --------
    >>> char_width("m"), char_width("é"), char_width("漢"), char_width("\u0301")
    (10.7, 6.6, 11.0, 0.0)
    """
    if ch in ASCII_WIDTHS:
        return ASCII_WIDTHS[ch]
    if ch in EXTRA_WIDTHS:
        return EXTRA_WIDTHS[ch]
    category = unicodedata.category(ch)
    if category in ("Mn", "Me", "Cf"):  # combining marks, joiners, variation selectors: no advance
        return 0.0
    if ch == REPLACEMENT or category in ("Cc", "Cs", "Cn", "Co"):
        return REPLACEMENT_WIDTH
    if _is_emoji(ord(ch)):
        return EMOJI_WIDTH
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return WIDE_WIDTH
    # A letter with diacritics is as wide as its base letter (é -> e + combining acute).
    decomposed = unicodedata.normalize("NFKD", ch)
    if decomposed != ch and all(c in ASCII_WIDTHS or unicodedata.category(c) in ("Mn", "Me") for c in decomposed):
        return sum(char_width(c) for c in decomposed)
    if ord(ch) < 0x0530 and category == "Ll":  # up to the end of the Cyrillic blocks
        return SMALL_LETTER_WIDTH
    if ord(ch) < 0x0530 and category in ("Lu", "Lt"):
        return CAPITAL_LETTER_WIDTH
    return OTHER_WIDTH


def text_width(text: str) -> float:
    """Estimated width of ``text`` in Verdana 11px, in px (the sum of its characters' advances).

    Examples
    --------
    >>> round(text_width("v1.2.511"), 1)  # Verdana's own advances give 49.48 px
    49.8
    """
    return math.fsum(char_width(ch) for ch in text)


def box_width(text: str) -> int:
    """Whole pixels reserved for ``text``: the estimate rounded up, then up to an odd number.

    shields.io rounds down before making the width odd; rounding up keeps the box at least as
    wide as the estimate. An odd width puts the text centre on a half pixel, which the
    ``scale(.1)`` coordinates turn into a whole number.
    """
    width = math.ceil(text_width(text))
    return width if width % 2 else width + 1


# --- The SVG -----------------------------------------------------------------------------------

_SHA256_RE = re.compile(r"[0-9a-f]{64}")


def _headline_summary(headline: Headline, message: str) -> str:
    if not headline.ranked:
        return "unranked (no completed run, so no headline score)"
    if headline.zero_success_floor:
        return f"headline score {message} (no completed run succeeded)"
    return f"headline score {message}"


def badge_svg(agent: AgentReport, *, policy_version: str, dataset_sha256: str) -> str:
    """An SVG badge of one agent's canonical headline score, in the shields.io flat style.

    Parameters
    ----------
    agent : AgentReport
        The agent, from :func:`scoring.score_runs`. Only its headline is drawn.
    policy_version : str
        The version of the policy the score was computed under; it must be the headline's own
        (a badge that named another policy would misstate its score).
    dataset_sha256 : str
        The sha256 of the scored dataset (64 hex digits). Its first 12 go into the tooltip; the
        whole hash goes into ``data-dataset-sha256``.

    Returns
    -------
    str
        The SVG document. The same inputs give the same bytes: no timestamp, fixed attribute
        order, element ids derived from the content (so several badges can share an HTML page).

    Raises
    ------
    ValueError
        When ``policy_version`` is not the headline's policy or ``dataset_sha256`` is not a sha256.
    """
    headline = agent.headline
    if policy_version != headline.policy.version:
        raise ValueError(f"policy_version {policy_version!r} is not the policy the score was computed under "
                         f"({headline.policy.version!r})")
    digest = dataset_sha256.lower() if isinstance(dataset_sha256, str) else ""
    if not _SHA256_RE.fullmatch(digest):
        raise ValueError(f"dataset_sha256 must be the 64 hex digits of a sha256, got {dataset_sha256!r}")

    label, message = badge_label(agent.agent_id), badge_message(headline)
    band = badge_colour(headline)
    version = safe_text(policy_version)  # a sandbox policy's version can carry user text
    title = (f"{safe_text(agent.agent_id)}: {_headline_summary(headline, message)} · policy {version} "
             f"· dataset {digest[:12]}")
    desc = ("Canonical headline composite (0-100) of the published methodology. Viewer or Team Scorecard "
            "weights change only the diagnostic profile and never this score.")
    data_score = "null" if not headline.ranked else f"{headline.score:.{headline.policy.score_decimals}f}"

    label_w, message_w = box_width(label), box_width(message)
    left, right = label_w + 2 * PADDING, message_w + 2 * PADDING
    width = left + right
    # Ids unique to this content: two different badges inlined in one page must not share them.
    uid = hashlib.sha256(json.dumps([title, label, message, band.hex]).encode("utf-8")).hexdigest()[:10]
    e = escape_xml

    def text(content: str, text_w: int, margin: int) -> list[str]:
        # shields.io geometry, coordinates x10 under scale(.1); the shadow is 1px lower.
        x = 10 * (margin + PADDING) + 5 * text_w
        body = e(content)
        return [f'<text aria-hidden="true" x="{x}" y="150" fill="#010101" fill-opacity=".3" '
                f'transform="scale(.1)" textLength="{10 * text_w}">{body}</text>',
                f'<text x="{x}" y="140" transform="scale(.1)" fill="#fff" textLength="{10 * text_w}">{body}</text>']

    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{HEIGHT}" role="img" '
        f'aria-label="{e(title)}" data-headline-score="{data_score}" '
        f'data-zero-success-floor="{"true" if headline.zero_success_floor else "false"}" '
        f'data-policy-version="{e(version)}" data-dataset-sha256="{digest}">',
        f"<title>{e(title)}</title>",
        f"<desc>{e(desc)}</desc>",
        f'<linearGradient id="s-{uid}" x2="0" y2="100%">'
        '<stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/>'
        "</linearGradient>",
        f'<clipPath id="r-{uid}"><rect width="{width}" height="{HEIGHT}" rx="3" fill="#fff"/></clipPath>',
        f'<g clip-path="url(#r-{uid})">'
        f'<rect width="{left}" height="{HEIGHT}" fill="{LABEL_COLOUR}"/>'
        f'<rect x="{left}" width="{right}" height="{HEIGHT}" fill="{band.hex}"/>'
        f'<rect width="{width}" height="{HEIGHT}" fill="url(#s-{uid})"/></g>',
        # xml:space="preserve": spaces render as written, so the width estimate counts what is drawn.
        f'<g fill="#fff" text-anchor="middle" font-family="{FONT_FAMILY}" text-rendering="geometricPrecision" '
        'font-size="110" xml:space="preserve">',
        *text(label, label_w, 1),
        *text(message, message_w, left - 1),
        "</g>",
        "</svg>",
    ]
    return "\n".join(lines) + "\n"


# --- File names ----------------------------------------------------------------------------------

def badge_file_name(agent_id: str, policy_version: str, dataset_sha256: str) -> str:
    """The download name of a badge: ``badge-<agent>-<policy>-<first 8 hex of the dataset's sha256>.svg``.

    The agent's slug loses what a file name cannot hold (and upper case: agent ids are
    case-sensitive), so when it is not the agent id itself a short hash of the id follows it:
    two agents of one dataset never share a file name.

    Examples
    --------
    >>> badge_file_name("steady-pro", "2026-07-zero-success-v1", "ab" * 32)
    'badge-steady-pro-2026-07-zero-success-v1-abababab.svg'
    >>> badge_file_name("gpt/4 @retail", "2026-07-zero-success-v1", "ab" * 32)
    'badge-gpt-4-retail-bb206846-2026-07-zero-success-v1-abababab.svg'
    """
    digest = dataset_sha256.lower() if isinstance(dataset_sha256, str) else ""
    if not _SHA256_RE.fullmatch(digest):
        raise ValueError(f"dataset_sha256 must be the 64 hex digits of a sha256, got {dataset_sha256!r}")
    slug = file_slug(agent_id)
    if not slug or slug != agent_id:
        tag = hashlib.sha256(agent_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug}-{tag}" if slug else f"agent-{tag}"
    return f"badge-{slug}-{file_slug(policy_version) or 'policy'}-{digest[:8]}.svg"
