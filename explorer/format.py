"""One formatter for numbers on screen: no NaN, None or Python repr ever reaches a person."""

from __future__ import annotations


DASH = "—"


def _missing(value) -> bool:
    """None, any NaN (a Python float, numpy's float32/float64) or pandas' NA and NaT."""
    if value is None:
        return True
    try:
        return bool(value != value)  # true only for NaN and NaT
    except TypeError:  # pandas.NA: its comparison is NA, which has no truth value
        return True


def score(value) -> str:
    """A 0-100 score with two decimals: 86.96."""
    return DASH if _missing(value) else f"{value:.2f}"


def pct(value, decimals: int = 1) -> str:
    """A 0-1 fraction as a percentage: 0.8229 -> 82.3%."""
    return DASH if _missing(value) else f"{100 * value:.{decimals}f}%"


def factor(value) -> str:
    """A 0-1 factor with four decimals: 0.8738."""
    return DASH if _missing(value) else f"{value:.4f}"


def ms(value) -> str:
    """Milliseconds with a thousands separator: 1,446 ms."""
    return DASH if _missing(value) else f"{value:,.0f} ms"


def usd(value) -> str:
    """Dollars with enough decimals for per-run costs: $0.0123, $0.1500."""
    if _missing(value):
        return DASH
    return f"${value:,.4f}" if abs(value) < 1 else f"${value:,.2f}"


def count(value) -> str:
    return DASH if _missing(value) else f"{int(value):,}"


def weight(value) -> str:
    """A weight share as a percentage with one decimal: 0.25 -> 25.0%."""
    return pct(value, 1)


def steps(value) -> str:
    return DASH if _missing(value) else f"{value:g} steps"


def anchor_x(value, unit: str) -> str:
    """An anchor position in its unit, as the methodology page writes it."""
    if unit == "ms":
        return ms(value)
    if unit == "USD":
        return f"${value:g}"
    return f"{value:g} {unit}"


# Streamlit finds its icon directives (":material/home:") in the markdown source before any
# escape is read, so an escaped colon is not enough: the slash is escaped too, which breaks the pattern.
_MARKDOWN_SPECIALS = "\\`*_{}[]()<>#+-.!|~$:/"


def plain(text: object) -> str:
    """User text made inert inside Streamlit markdown: every markdown/HTML special is escaped."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in str(text))


def dollars_safe(text: str) -> str:
    """Our own markdown with dollar amounts: escape '$' so two of them never open LaTeX math."""
    return text.replace("$", "\\$")
