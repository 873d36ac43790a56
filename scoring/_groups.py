"""Group-wise helpers shared by the measures: integer codes instead of Python loops over rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .runs import TERMINAL_STATUSES


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

    def total(self, mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Per-agent sum of ``values`` where ``mask``, in canonical row order."""
        if not len(mask):
            return np.zeros(self.size)
        return np.add.reduceat(np.where(mask, values, 0.0), self.starts)

    def mean(self, mask: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(count, mean) per agent over ``values[mask]``; the mean is NaN where the count is 0.

        The mean is sum / count with the sum accumulated in extended precision and rounded once
        to a double: for real data that is the correctly rounded sum (as ``math.fsum`` gives),
        independent of row order and of how an engine splits the work, so the SQL engine's
        compensated sums agree with it to the last bit.
        """
        counts = self.count(mask)
        if not len(mask):
            return counts, np.full(self.size, np.nan)
        return counts, safe_divide(self._correctly_rounded_sums(mask, values), counts)

    def _correctly_rounded_sums(self, mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Per-agent sums equal to ``math.fsum``: extended precision, with fsum where it could differ.

        The 64-bit-mantissa sum rounds to a different double than the exact sum only when it lies
        within its accumulation error of a rounding midpoint; agents whose sum is that close (a few
        percent of them; the margin, 2 (sqrt(n) + 1) units, is several times the typical error) are
        summed again with math.fsum, so the result does not depend on summation order or engine.
        """
        wide = np.where(mask, values, 0.0).astype(np.longdouble)
        sums = np.add.reduceat(wide, self.starts)
        rounded = sums.astype(np.float64)
        n = self.count(mask).astype(np.float64)
        # Latencies and costs are validated >= 0, so the sum of magnitudes is the sum itself.
        magnitude = sums if (values[mask] >= 0).all() else np.add.reduceat(np.abs(wide), self.starts)
        bound = 2 * (np.sqrt(n) + 1) * np.finfo(np.longdouble).eps * magnitude
        half_ulp = np.spacing(np.abs(rounded)).astype(np.longdouble) / 2
        doubtful = np.abs(np.abs(sums - rounded.astype(np.longdouble)) - half_ulp) <= bound
        if doubtful.any():
            ends = np.append(self.starts[1:], len(values))
            for i in np.flatnonzero(doubtful):
                chunk = values[self.starts[i]:ends[i]][mask[self.starts[i]:ends[i]]]
                rounded[i] = math.fsum(chunk.tolist())
        return rounded


def agent_groups(runs: pd.DataFrame) -> AgentGroups:
    codes, uniques = pd.factorize(runs["agent_id"], sort=False)
    codes = codes.astype(np.int64)
    status = runs["status"]  # categorical in a canonical frame: comparisons run on codes
    success = runs["success"].array
    return AgentGroups(
        agents=tuple(str(a) for a in uniques),  # appearance order is text order in a canonical frame
        codes=codes,
        completed=(status == "completed").to_numpy(dtype=bool),
        terminal=status.isin(list(TERMINAL_STATUSES)).to_numpy(dtype=bool),
        known=~np.asarray(success.isna()),
        succeeded=success.to_numpy(dtype=bool, na_value=False),
        starts=np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=len(uniques)))[:-1])).astype(np.int64),
    )


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with NaN where den == 0."""
    out = np.full(np.shape(num), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def optional(value) -> float | None:
    """A float, or None for NaN: JSON null, never NaN."""
    value = float(value)
    return None if np.isnan(value) else value
