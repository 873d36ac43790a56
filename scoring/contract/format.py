"""The one formatter for numbers a person reads: the app, the CLI's table, receipts and explanations.

The measures return numbers and :class:`~scoring.measures.facts.Fact` sentences with typed slots; only the
places that show them to a person format them, and always with these functions, so a latency
reads the same in a table, a sentence and a terminal.

One spelling per quantity, on every page, in the review pack, the CLI's table and the badge:

| quantity | function | example |
|---|---|---|
| a rate (a share of runs, tasks or outcomes) | :func:`rate` (= :func:`pct`) | 72.52% |
| a 0-1 factor (execution, consistency, cost score) | :func:`factor` | 0.6987 |
| a 0-100 score, points of it | :func:`score` | 74.67 |
| money | :func:`usd` | $0.0089 |
| milliseconds | :func:`ms` | 3,029 ms |
| a difference of two rates | :func:`pp` (percentage points) | +3.20 pp |
| a weight share | :func:`weight` | 25.0% | No NaN, None or Python repr ever reaches a
person: an undefined value is a dash.
"""

from __future__ import annotations

import re
from typing import Any

DASH = "—"
# What a formatter takes: a number, or a missing value of any kind (None, a NaN, pandas' NA or NaT), as a table
# cell holds it.
Cell = Any


def _missing(value: object) -> bool:
    """None, any NaN (a Python float, numpy's float32/float64) or pandas' NA and NaT."""
    if value is None:
        return True
    try:
        return bool(value != value)  # true only for NaN and NaT
    except TypeError:  # pandas.NA: its comparison is NA, which has no truth value
        return True


def score(value: Cell, decimals: int = 2) -> str:
    """A 0-100 score with the policy's decimals (two, as published): 86.96."""
    return DASH if _missing(value) else f"{value:.{decimals}f}"


def pct(value: Cell, decimals: int = 2) -> str:
    """A 0-1 fraction (a rate) as a percentage with two decimals: 0.8229 -> 82.29% (only a table of strangers'
    numbers holds more than a rate: from :data:`HUGE` percent on, powers of ten, as :func:`ms` writes them).

    >>> pct(0.8229), pct(1e300), pct(1e307)
    ('82.29%', '1.0000e+302%', 'inf%')
    """
    if _missing(value):
        return DASH
    scaled = 100 * float(value)  # a Python float: past the largest double it is inf, with no numpy overflow warning
    return f"{_huge(scaled, '') or f'{scaled:.{decimals}f}'}%"


def rate(value: Cell) -> str:
    """A rate (successful runs, qualifying tasks...) as a percentage with two decimals: 0.7252 -> 72.52%."""
    return pct(value, 2)


def pp(value: Cell) -> str:
    """A difference of two rates in percentage points, signed: 0.032 -> +3.20 pp (never '%')."""
    return DASH if _missing(value) else f"{100 * value:+.2f} pp"


def factor(value: Cell) -> str:
    """A 0-1 factor with four decimals: 0.8738."""
    return DASH if _missing(value) else f"{value:.4f}"


# From here on a double's digits before the point are no longer all its own (2**53 is about 9.0e15): 1e23 would print
# as 99,999,999,999,999,991,611,392 and 1e308 as 309 digits. No real run costs or lasts that much, but a hostile
# file may say so (any finite number >= 0 is valid): such an amount is shown in powers of ten.
HUGE = 1e15


def _huge(value: float, unit: str) -> str | None:
    """``value`` in powers of ten with four decimals when it is at least :data:`HUGE` (else None)."""
    return f"{unit}{value:.4e}" if abs(value) >= HUGE else None


def ms(value: Cell) -> str:
    """Milliseconds with a thousands separator: 1,446 ms (1.0000e+308 ms from :data:`HUGE` on).

    >>> ms(1446.4), ms(2.0**53), ms(1e308)
    ('1,446 ms', '9.0072e+15 ms', '1.0000e+308 ms')
    """
    if _missing(value):
        return DASH
    return f"{_huge(value, '') or f'{value:,.0f}'} ms"


def usd(value: Cell) -> str:
    """Dollars with enough decimals for per-run costs: $0.0123, $0.1500 ($1.0000e+23 from :data:`HUGE` on).

    >>> usd(0.0123), usd(1234.5), usd(1e23)
    ('$0.0123', '$1,234.50', '$1.0000e+23')
    """
    if _missing(value):
        return DASH
    return _huge(value, "$") or (f"${value:,.4f}" if abs(value) < 1 else f"${value:,.2f}")


def count(value: Cell) -> str:
    return DASH if _missing(value) else f"{int(value):,}"


def counted(value: int, one: str, many: str) -> str:
    """A count with its noun: ``counted(1, "task", "tasks")`` -> '1 task', ``counted(1200, ...)`` -> '1,200 tasks'."""
    return f"{int(value):,} {one if value == 1 else many}"


def level(value: Cell) -> str:
    """A confidence level as a percentage, as people write it: 0.95 -> 95%, 0.975 -> 97.5% (never 95.00%).

    >>> level(0.95), level(0.975), level(None)
    ('95%', '97.5%', '—')
    """
    return DASH if _missing(value) else f"{round(100 * float(value), 6):g}%"


def weight(value: Cell) -> str:
    """A weight share as a percentage with one decimal: 0.25 -> 25.0%."""
    return pct(value, 1)


def pct2(value: Cell) -> str:
    """A 0-1 fraction as a percentage with two decimals: 0.8229 -> 82.29%."""
    return pct(value, 2)


def number(value: Cell) -> str:
    """A plain number, shortest form: 0.5, 3, 1e-06."""
    return DASH if _missing(value) else f"{value:g}"


def text(value: object) -> str:
    """Text as it is (a name, a status)."""
    return DASH if value is None else str(value)


# C0/C1 controls (ESC starts every terminal sequence; CR and newline end a line or a Markdown block), DEL, the
# line/paragraph separators, lone surrogates (no character: a UTF-8 terminal cannot be sent them) and the format
# characters (Unicode's Cf: the bidi controls, U+202E showing what follows backwards; zero-width spaces and joiners,
# the byte-order mark, the tags): invisible or reordering, so "a" and "a\u200b" would read as one name in a table.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
                     "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
                     "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                     "\U000e0001\U000e0020-\U000e007f]")


def one_line(value: object) -> str:
    r"""A stranger's text (a name) for a terminal or one line of Markdown: every control, line separator, lone
    surrogate and format character shown as its escape, so it can neither drive the terminal, end the line, reorder
    what follows nor pass for another name.

    >>> one_line("a\x1b[2J\nb\u202ec")
    'a\\x1b[2J\\nb\\u202ec'
    >>> one_line("a\u200b"), one_line("a\ufeff"), one_line("a\ud800"), one_line("caf\u00e9 \U0001f600")
    ('a\\u200b', 'a\\ufeff', 'a\\ud800', 'café 😀')
    """
    return _UNSAFE.sub(_escaped, str(value))


def short(text: object, width: int = 60) -> str:
    """A stranger's name cut to ``width`` characters, an ellipsis last (an id of 500 characters would fill a page).

    >>> short("steady-pro"), short("x" * 100, 8)
    ('steady-pro', 'xxxxxxx…')
    """
    text = str(text)
    return text if len(text) <= width else text[:width - 1] + "…"


def named(value: object, width: int = 60) -> str:
    r"""A stranger's name (an agent id, a word from a command line) quoted in a message: its repr, so every control
    is escaped, cut to ``width`` characters, so a 100,000-character id cannot bury what the message says.

    >>> named("steady-pro"), named("a\nb\u202ec")
    ("'steady-pro'", "'a\\nb\\u202ec'")
    >>> named("x" * 100_000, width=8)
    "'xxxxxxx…'"
    """
    return repr(short(value, width))


def terminal(text: str) -> str:
    r"""A whole text for a terminal (a table of strangers' names): as :func:`one_line`, but its own line breaks kept.

    >>> print(terminal("a\x1b[2J\nb\tc"))
    a\x1b[2J
    b\tc
    """
    return "\n".join(one_line(line) for line in text.split("\n"))


def _escaped(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def steps(value: Cell) -> str:
    return DASH if _missing(value) else f"{value:g} steps"


def ms_fine(value: Cell) -> str:
    """Milliseconds with two decimals under 100 ms, else as :func:`ms` writes them: a formula's small spread keeps the
    digits its result was computed from ('1 − 0.20 ms ÷ 1,000 ms = 0.9998', not '1 − 0 ms ÷ …').

    >>> ms_fine(0.2), ms_fine(99.994), ms_fine(1446.4), ms_fine(None)
    ('0.20 ms', '99.99 ms', '1,446 ms', '—')
    """
    if isinstance(value, (int, float)) and value == value and abs(value) < 100:
        return f"{value:.2f} ms"
    return ms(value)


def anchor_x(value: float, unit: str) -> str:
    """An anchor position in its unit, as the methodology page writes it."""
    if unit == "ms":
        return ms(value)
    if unit == "USD":
        return f"${value:g}"
    return f"{value:g} {unit}"


def gain(value: Cell) -> str:
    """Points a removal gains, three decimals, as the Headline page's table and bars show them: 0.728.

    >>> gain(0.72843), gain(None)
    ('0.728', '—')
    """
    return DASH if _missing(value) else f"{value:.3f}"


# The named formats a Fact's slots use: "{avg:ms}" is formatted with ms().
FORMATS = {"score": score, "pct": pct, "pct2": pct2, "rate": rate, "pp": pp, "factor": factor, "ms": ms,
           "ms_fine": ms_fine, "usd": usd, "count": count, "weight": weight, "steps": steps, "number": number,
           "text": text, "level": level, "gain": gain}
