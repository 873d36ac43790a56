"""Group-wise helpers shared by the measures: integer codes instead of Python loops over rows."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from scoring.contract.schema import HEADLINE_STATUSES, TERMINAL_STATUSES

# pandas is imported by the functions that build or read a frame: a report from an engine's aggregates
# (--engine sql) never loads it.
if TYPE_CHECKING:
    import pandas as pd

# Sums of values near the largest double overflow: such an agent's values are scaled by a power of two
# (exactly) before they are added. Every engine applies the same rule (scoring.engines.sql_engine too).
MEAN_SCALE_AT, MEAN_SCALE_BY = 960, 128  # means: values from 2^960 are summed as value * 2^-128
SPREAD_SCALE_AT, SPREAD_SCALE_BY = 480, 560  # squared deviations: from 2^480, (d * 2^-560)^2
# ...and tiny latencies: an agent whose largest latency is above 0 but under 2^-480 (about 1e-144 ms) has its deviations
# scaled up, (d * 2^600)^2, or their squares would fall below the smallest normal double (1e-154 ms squared) and
# lose digits, then vanish: consistency read 1.0 for latencies of 1e-200 ms whose spread is 1/9 of their mean.
SPREAD_TINY_BELOW, SPREAD_TINY_BY = 480, 600


def spread_shift(largest: np.ndarray) -> np.ndarray:
    """Per agent, the power of two its latency deviations are divided by before they are squared (SPREAD_*): 560
    for latencies from 2^480, -600 for latencies all under 2^-480 (not all 0), else 0. Every engine applies it.

    >>> spread_shift(np.array([0.0, 1.0, 2.0 ** 480, 1e-200, 2.0 ** -481])).tolist()
    [0, 0, 560, -600, -600]
    """
    largest = np.asarray(largest, dtype=float)
    tiny = (largest > 0) & (largest < 2.0 ** -SPREAD_TINY_BELOW)
    return np.where(largest >= 2.0 ** SPREAD_SCALE_AT, SPREAD_SCALE_BY, np.where(tiny, -SPREAD_TINY_BY, 0)).astype(
        np.int64)


@dataclass(frozen=True)
class AgentGroups:
    """Arrays every measure needs from a canonical runs frame, computed once.

    The canonical frame is sorted by agent_id, so ``codes`` ascend with rows and
    each agent's rows form one contiguous slice.
    """

    agents: tuple[str, ...]
    codes: np.ndarray
    completed: np.ndarray
    terminal: np.ndarray
    known: np.ndarray
    succeeded: np.ndarray
    starts: np.ndarray  # first row of each agent's slice; every agent has at least one row

    @property
    def size(self) -> int:
        return len(self.agents)

    def count(self, mask: np.ndarray) -> np.ndarray:
        """How many rows per agent ``mask`` selects."""
        if not len(mask):
            return np.zeros(self.size, dtype=np.int64)
        return np.add.reduceat(mask.view(np.uint8), self.starts, dtype=np.int64)

    def mean(self, mask: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(count, mean) per agent over ``values[mask]`` (>= 0); the mean is NaN where the count is 0.

        The mean is the correctly rounded sum (``exact_total``) divided by the count. An agent whose
        values reach 2^960 has them scaled by 2^-128 first (and the mean scaled back), so the sum of
        values near the largest double never overflows: for every other agent the scale is 1 and the
        result is bit for bit the unscaled one (a power-of-two scale commutes with rounding).
        """
        counts = self.count(mask)
        if not len(mask):
            return counts, np.full(self.size, np.nan)
        scale = self.scale(mask, values, at=MEAN_SCALE_AT, by=MEAN_SCALE_BY)
        # Almost always no agent is scaled: the values are summed as they are (no per-row ldexp of zero).
        totals = self.exact_total(mask, np.ldexp(values, -scale[self.codes]) if scale.any() else values)
        return counts, np.ldexp(safe_divide(totals, counts), scale)

    def largest(self, mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Per agent, the largest absolute value under ``mask`` (0 where none)."""
        if not len(mask):
            return np.zeros(self.size)
        return np.maximum.reduceat(np.where(mask, np.abs(values), 0.0), self.starts)

    def scale(self, mask: np.ndarray, values: np.ndarray, *, at: int, by: int) -> np.ndarray:
        """Per agent, ``by`` where its largest value under ``mask`` is at least 2^``at``, else 0."""
        if not len(mask):
            return np.zeros(self.size, dtype=np.int64)
        if not ((values >= 2.0 ** at) | (values <= -(2.0 ** at))).any():
            return np.zeros(self.size, dtype=np.int64)  # no value that large at all: no agent is scaled
        return np.where(self.largest(mask, values) >= 2.0 ** at, by, 0).astype(np.int64)

    @cached_property
    def pairwise_levels(self) -> list[np.ndarray]:
        """The segments :func:`_pairwise_segment_sums` adds at each level: they depend on the rows' agents
        alone, so every exact sum of the report shares them (at 10,000,000 runs finding them took 0.20 s of
        each sum's 0.25 s)."""
        return _pairwise_levels(self.codes, self.starts)

    def exact_total(self, mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Per-agent sums of ``values[mask]`` (non-negative), correctly rounded: exactly ``math.fsum``.

        The sums are taken pairwise in extended precision, whose error is at most
        ceil(log2 n) units of that precision times the sum. An agent's sum rounds to the same double
        as the exact sum unless a rounding midpoint lies within that error; those agents (a few
        percent at most) are summed again with ``math.fsum``. So the result does not depend on row
        order or on the engine, and the SQL engines' exact sums agree with it to the bit.
        """
        if not len(mask):
            return np.zeros(self.size)
        sums = _pairwise_segment_sums(mask, values, self.pairwise_levels)
        rows = np.diff(np.append(self.starts, len(values))).astype(np.float64)
        # Error bound gamma_k * sum: k = (BLOCK - 1) additions in a block, then one per pairwise level.
        levels = (_BLOCK - 1) + np.ceil(np.log2(np.maximum(np.ceil(rows / _BLOCK), 1.0)))
        unit = np.finfo(np.longdouble).eps / 2
        error = (levels * unit / (1 - levels * unit) * 1.0001).astype(np.longdouble) * sums
        # A sum past the largest double is inf, as every engine gives it (and inf's neighbour is inf).
        with np.errstate(over="ignore"):
            rounded = sums.astype(np.float64)
            # The midpoint between ``rounded`` and its neighbour on the side of the extended sum.
            below = sums < rounded.astype(np.longdouble)
            neighbour = np.where(below, np.nextafter(rounded, -np.inf), np.nextafter(rounded, np.inf))
        midpoint = (rounded.astype(np.longdouble) + neighbour.astype(np.longdouble)) / 2
        doubtful = np.abs(sums - midpoint) <= error
        if doubtful.any():
            ends = np.append(self.starts[1:], len(values))
            for i in np.flatnonzero(doubtful):
                chunk = values[self.starts[i]:ends[i]][mask[self.starts[i]:ends[i]]]
                rounded[i] = math.fsum(chunk.tolist())
        return rounded


_BLOCK = 32  # rows summed in order before the pairwise levels (one pass instead of five)


def _pairwise_levels(codes: np.ndarray, starts: np.ndarray) -> list[np.ndarray]:
    """For each level of :func:`_pairwise_segment_sums`, the first position of each group it adds: blocks of
    ``_BLOCK`` rows of one code first, then neighbouring block sums within a segment, two at a time."""
    levels = []
    position = np.arange(len(codes)) - starts[codes]
    width, rows = _BLOCK, len(codes)
    while rows > len(starts):
        half = position // width
        width = 2
        change = np.empty(rows, dtype=bool)
        change[0] = True
        change[1:] = (codes[1:] != codes[:-1]) | (half[1:] != half[:-1])
        first = np.flatnonzero(change)
        levels.append(first)
        codes, position, rows = codes[first], half[first], len(first)
    return levels


_CHUNK_BLOCKS = 2048  # blocks of the first level summed at a time (at most 65,536 rows)


def _pairwise_segment_sums(mask: np.ndarray, values: np.ndarray, levels: list[np.ndarray]) -> np.ndarray:
    """Sums of contiguous segments (rows of one code) of ``values[mask]`` in extended precision: blocks of
    ``_BLOCK`` rows added in order, then the block sums added pairwise, level by level (neighbours within a
    segment are combined), so an error grows with the block size plus log2 of the number of blocks, not with
    the segment length. ``levels`` is :func:`_pairwise_levels` of the rows' codes.

    The first level is summed ``_CHUNK_BLOCKS`` blocks at a time, each chunk's rows masked and widened on their
    own: the same sums, bit for bit (each block is added alone), without a widened copy of every row (24 bytes
    a row: at 10,000,000 runs fresh memory, 0.097 -> 0.059 s a sum; 2026-12-04)."""
    if not levels:  # one row per segment
        return np.where(mask, values, 0.0).astype(np.longdouble)
    first, rows = levels[0], len(values)
    sums = np.empty(len(first), dtype=np.longdouble)
    for a in range(0, len(first), _CHUNK_BLOCKS):
        b = min(a + _CHUNK_BLOCKS, len(first))
        start, end = first[a], first[b] if b < len(first) else rows
        wide = np.where(mask[start:end], values[start:end], 0.0).astype(np.longdouble)
        sums[a:b] = np.add.reduceat(wide, first[a:b] - start)
    for first in levels[1:]:
        sums = np.add.reduceat(sums, first)
    return sums


def headline_cohort(runs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The headline cohort (SPEC 3), the one home of its rule: (in the cohort, successful) per row. The
    cohort is the completed runs (schema.HEADLINE_STATUSES); an unknown outcome counts as not successful.
    Every analysis (explain, fixes, drill-down) calls this; the SQL engines take the same constants.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"status": ["completed", "completed", "failed"],
    ...                       "success": pd.array([True, None, True], dtype="boolean")})
    >>> [m.tolist() for m in headline_cohort(frame)]
    [[True, True, False], [True, False, True]]
    """
    completed = status_in(runs["status"], HEADLINE_STATUSES)
    return completed, runs["success"].to_numpy(dtype=bool, na_value=False)


def status_in(status: pd.Series, names: tuple[str, ...] | list[str]) -> np.ndarray:
    """Whether each row's status is one of ``names``: on a categorical column (the canonical frame's), one
    lookup of its codes in a table of its categories (pandas' isin hashes every row: 0.13 s at 10M runs).

    >>> import pandas as pd
    >>> status_in(pd.Series(pd.Categorical(["failed", "completed", None], categories=["completed", "failed"])),
    ...           ["completed"]).tolist()
    [False, True, False]
    """
    import pandas as pd

    if isinstance(status.dtype, pd.CategoricalDtype):
        table = np.append(np.isin(np.asarray(status.cat.categories, dtype=object), list(names)), False)
        return table[status.cat.codes.to_numpy()]  # code -1 (missing) reads the last entry: False
    return status.isin(list(names)).to_numpy(dtype=bool)


def agent_groups(runs: pd.DataFrame) -> AgentGroups:
    import pandas as pd

    codes, uniques = pd.factorize(runs["agent_id"], sort=False)
    codes = codes.astype(np.int64)
    status = runs["status"]  # categorical in a canonical frame: comparisons run on codes
    completed, succeeded = headline_cohort(runs)
    return AgentGroups(
        agents=tuple(str(a) for a in uniques),  # appearance order is text order in a canonical frame
        codes=codes,
        completed=completed,
        terminal=status_in(status, TERMINAL_STATUSES),
        known=~np.asarray(runs["success"].array.isna()),
        succeeded=succeeded,
        starts=np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=len(uniques)))[:-1])).astype(np.int64),
    )


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with NaN where den == 0."""
    out = np.full(np.shape(num), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def optional(value: float) -> float | None:
    """A float, or None for NaN: JSON null, never NaN."""
    value = float(value)
    return None if np.isnan(value) else value
