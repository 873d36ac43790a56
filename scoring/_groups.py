"""Group-wise helpers shared by the measures: integer codes instead of Python loops over rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class AgentGroups:
    """Agent codes of a canonical runs frame (sorted by agent, so codes ascend with rows)."""

    agents: tuple[str, ...]
    codes: np.ndarray

    @property
    def size(self) -> int:
        return len(self.agents)

    def count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes[mask], minlength=self.size)

    def total(self, mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes[mask], weights=values[mask], minlength=self.size)

    def exact_mean(self, mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Per-agent mean, correctly rounded (math.fsum), so it never depends on row order; NaN when empty."""
        counts = self.count(mask)
        # Codes ascend with rows in a canonical frame, so each agent's values are one slice.
        chunks = np.split(values[mask], np.cumsum(counts)[:-1])
        return np.array([math.fsum(c) / len(c) if len(c) else np.nan for c in chunks])


def agent_groups(runs: pd.DataFrame) -> AgentGroups:
    codes, uniques = pd.factorize(runs["agent_id"], sort=False)
    # The canonical frame is sorted by agent_id, so appearance order is text order.
    return AgentGroups(tuple(str(a) for a in uniques), codes.astype(np.int64))


def status_mask(runs: pd.DataFrame, statuses) -> np.ndarray:
    return runs["status"].isin(list(statuses)).to_numpy(dtype=bool)


def outcome_arrays(runs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(known, succeeded) boolean arrays from the nullable ``success`` column."""
    success = runs["success"].array
    known = ~np.asarray(success.isna())
    succeeded = success.to_numpy(dtype=bool, na_value=False)
    return known, succeeded


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with NaN where den == 0."""
    out = np.full(np.shape(num), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def optional(value) -> float | None:
    """A float, or None for NaN: JSON null, never NaN."""
    value = float(value)
    return None if np.isnan(value) else value
