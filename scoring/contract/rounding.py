"""The published rounding: SPEC's ``round(x, 2)`` of the value a computed double stands for.

Every published number (the headline score, the radar axes, the profile score) is SPEC's
``round(..., 2)``. Python's ``round`` rounds the exact binary value of a double, half to even. A score
is computed in doubles, a few units in the last place from its exact value, so an exact half-way score
(80.425, or the sample's 76.315 latency axis) lands just above or just below the half at random:
two agents with the same exact score could publish 80.42 and 80.43 and be ranked against SPEC's
tie rule (agent_id ascending), and a hand-worked 76.315 could read 76.31.

So a double within :data:`TIE_WINDOW` of a half-way point is read as that half-way point and rounded
half to even, as ``round`` rounds an exactly representable half (``round(0.125, 2) == 0.12``); every
other double is rounded by ``round`` itself. The window (explorer-defined) is far wider than the
computation's rounding error (at most about 1e-12 points on 0-100) and far narrower than any
difference a person can check by hand: a genuine score that close to a half but not on it needs
inputs precise to the nanosecond, and the doubles could not tell it from a tie anyway.
"""

from __future__ import annotations

import math

TIE_WINDOW = 1e-9  # in the published unit (points, 0-100): a value this close to a half-way point is on it


def published_round(value: float, decimals: int) -> float:
    """``value`` rounded to ``decimals`` as SPEC publishes it (see the module docstring).

    Examples
    --------
    >>> published_round(80.42500000000001, 2), published_round(80.42499999999999, 2)  # one exact 80.425
    (80.42, 80.42)
    >>> published_round(76.31499999999999, 2), round(76.31499999999999, 2)  # the exact 76.315: half to even
    (76.32, 76.31)
    >>> published_round(0.125, 2), published_round(80.4251, 2), published_round(-0.0, 2)
    (0.12, 80.43, -0.0)
    """
    value = float(value)
    scale = 10.0 ** decimals
    scaled = value * scale
    if not math.isfinite(scaled) or abs(scaled) >= 2.0 ** 52:
        return round(value, decimals)  # no fraction left to round (or nothing to round)
    below = math.floor(scaled)
    if abs(scaled - (below + 0.5)) > TIE_WINDOW * scale:
        return round(value, decimals)
    even = below if below % 2 == 0 else below + 1
    # An exact integer over an exact power of ten, correctly rounded: the double nearest the decimal, as round gives.
    return math.copysign(even / scale, value) if even == 0 else even / scale
