"""Repeatability pass^k (SPEC 5): how often k repeated attempts at a task all succeed.

Outcomes are every terminal run with a known ``success`` (no window). Per task,
n = outcomes and c = successes; a task qualifies with n >= 3. Values are exact:
integer binomials, converted to float once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Iterable

import numpy as np
import pandas as pd

from ._groups import AgentGroups, agent_groups, outcome_arrays, status_mask
from .policy import CANONICAL_POLICY, Policy
from .runs import TERMINAL_STATUSES


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k) if c >= k, else 0: the chance that k of the n runs, drawn without replacement, all succeeded.

    Examples
    --------
    >>> pass_hat_k(5, 4, 3)
    0.4
    >>> pass_hat_k(5, 2, 3)
    0.0
    """
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1, got n={n}, c={c}, k={k}")
    if c < k:
        return 0.0
    return float(Fraction(comb(c, k), comb(n, k)))


def pass_hat_k_array(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """pass_hat_k over arrays, computed exactly once per distinct (n, c) pair."""
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    if n.size == 0:
        return np.zeros(0)
    pairs, inverse = np.unique(np.stack([n, c], axis=1), axis=0, return_inverse=True)
    values = np.array([pass_hat_k(int(a), int(b), k) for a, b in pairs])
    return values[inverse.reshape(-1)]


@dataclass(frozen=True)
class Repeatability:
    """One agent's pass^k over its qualifying tasks, with the per-task rows behind it."""

    agent_id: str
    qualifying_tasks: int
    excluded_tasks: int
    pass_k: dict[int, float] | None
    tasks: pd.DataFrame = field(repr=False)
    policy: Policy = field(repr=False)

    def curve(self, ks: Iterable[int] | None = None) -> dict[int, float]:
        """Mean pass^k over qualifying tasks for each k (default 1 to the largest outcome count)."""
        q = self.tasks[self.tasks["qualifies"]]
        if q.empty:
            return {}
        ks = range(1, int(q["n"].max()) + 1) if ks is None else ks
        return {k: float(pass_hat_k_array(q["n"], q["c"], k).mean()) for k in ks}

    def to_json(self) -> dict:
        """The SPEC 6 ``repeatability`` object."""
        return {
            "qualifying_tasks": self.qualifying_tasks,
            "pass_k": None if self.pass_k is None else {str(k): v for k, v in self.pass_k.items()},
        }


def task_outcomes(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                  groups: AgentGroups | None = None) -> pd.DataFrame:
    """Per (agent, task): n outcomes, c successes, whether it qualifies, and pass^k for the public levels."""
    groups = groups or agent_groups(runs)
    known, succeeded = outcome_arrays(runs)
    mask = known & status_mask(runs, TERMINAL_STATUSES)
    task_codes, task_names = pd.factorize(runs["task_id"], sort=False)
    key = groups.codes[mask] * max(len(task_names), 1) + task_codes[mask]
    pair, uniques = pd.factorize(key, sort=False)
    n = np.bincount(pair, minlength=len(uniques))
    c = np.bincount(pair, weights=succeeded[mask], minlength=len(uniques)).astype(np.int64)
    agents = np.asarray(groups.agents, dtype=object)
    table = pd.DataFrame({
        "agent_id": pd.array(agents[uniques // max(len(task_names), 1)], dtype="str"),
        "task_id": pd.array(np.asarray(task_names, dtype=object)[uniques % max(len(task_names), 1)], dtype="str"),
        "n": n.astype(np.int64),
        "c": c,
    })
    table["qualifies"] = table["n"] >= policy.pass_k_min_outcomes
    for k in policy.pass_k_levels:
        table[f"pass^{k}"] = pass_hat_k_array(table["n"], table["c"], k)
    return table.sort_values(["agent_id", "task_id"], kind="stable").reset_index(drop=True)


def repeatability(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                  groups: AgentGroups | None = None) -> dict[str, Repeatability]:
    """pass^k for the public levels, unweighted mean over qualifying tasks, per agent (SPEC 5)."""
    groups = groups or agent_groups(runs)
    tasks = task_outcomes(runs, policy, groups)
    by_agent = dict(tuple(tasks.groupby("agent_id", sort=False)))
    out: dict[str, Repeatability] = {}
    empty = tasks.iloc[0:0]
    for agent in groups.agents:
        rows = by_agent.get(agent, empty).reset_index(drop=True)
        q = rows[rows["qualifies"]]
        pass_k = None if q.empty else {k: float(q[f"pass^{k}"].mean()) for k in policy.pass_k_levels}
        out[agent] = Repeatability(agent, len(q), len(rows) - len(q), pass_k, rows, policy)
    return out
