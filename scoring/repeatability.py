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

from ._groups import AgentGroups, agent_groups
from .policy import CANONICAL_POLICY, Policy


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


def pass_hat_k_array(n, c, k: int) -> np.ndarray:
    """pass_hat_k over arrays, computed exactly once per distinct (n, c) pair."""
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    if n.size == 0:
        return np.zeros(0)
    pair, uniques = pd.factorize(n * (int(n.max()) + 1) + c, sort=False)
    width = int(n.max()) + 1
    values = np.array([pass_hat_k(int(u // width), int(u % width), k) for u in uniques])
    return values[pair]


@dataclass(frozen=True)
class Repeatability:
    """One agent's pass^k over its qualifying tasks, with the per-task rows behind it."""

    agent_id: str
    qualifying_tasks: int
    excluded_tasks: int
    pass_k: dict[int, float] | None
    task_rows: "_TaskSlice" = field(repr=False)
    policy: Policy = field(repr=False)

    @property
    def tasks(self) -> pd.DataFrame:
        """Per-task rows: task_id, n outcomes, c successes, qualifies, pass^k for the public levels."""
        return self.task_rows.frame()

    def curve(self, ks: Iterable[int] | None = None) -> dict[int, float]:
        """Mean pass^k over qualifying tasks for each k (default 1 to the largest outcome count)."""
        tasks = self.tasks
        q = tasks[tasks["qualifies"]]
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


def _task_codes(tasks: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(code per row, names) with names in text order; free for the canonical frame's categories."""
    if isinstance(tasks.dtype, pd.CategoricalDtype):
        return tasks.cat.codes.to_numpy(dtype=np.int64), np.asarray(tasks.cat.categories, dtype=object)
    codes, names = pd.factorize(tasks, sort=True)
    return codes, np.asarray(names, dtype=object)


def task_counts(runs: pd.DataFrame, groups: AgentGroups) -> pd.DataFrame:
    """The aggregate step: per (agent, task) with a known terminal outcome, n outcomes and c successes.

    Sorted by agent_id, then task_id as text.
    """
    mask = groups.known & groups.terminal
    task_codes, task_names = _task_codes(runs["task_id"])
    width = max(len(task_names), 1)
    key = groups.codes[mask] * width + task_codes[mask]
    # Ascending (agent, task) keys order the table by agent_id, then task_id as text.
    if groups.size * width <= 4 * len(key) + 1024:  # dense key space: count straight into it
        n = np.bincount(key, minlength=groups.size * width)
        c = np.bincount(key, weights=groups.succeeded[mask], minlength=groups.size * width)
        uniques = np.flatnonzero(n)
        n, c = n[uniques], c[uniques].astype(np.int64)
    else:
        pair, uniques = pd.factorize(key, sort=True)
        n = np.bincount(pair, minlength=len(uniques))
        c = np.bincount(pair, weights=groups.succeeded[mask], minlength=len(uniques)).astype(np.int64)
    agents = np.asarray(groups.agents, dtype=object)
    return pd.DataFrame({
        "agent_code": (uniques // width).astype(np.int64),  # spares the compute step a text lookup
        "agent_id": pd.array(agents[uniques // width], dtype="str"),
        "task_id": pd.array(np.asarray(task_names, dtype=object)[uniques % width], dtype="str"),
        "n": n.astype(np.int64),
        "c": c,
    })


def task_outcomes(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                  groups: AgentGroups | None = None) -> pd.DataFrame:
    """Per (agent, task), sorted by agent then task: n outcomes, c successes, whether it qualifies, pass^k."""
    return _with_pass_k(task_counts(runs, groups or agent_groups(runs)).drop(columns="agent_code"), policy)


def _with_pass_k(counts: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    table = counts.copy()
    table["qualifies"] = table["n"] >= policy.pass_k_min_outcomes
    for k in policy.pass_k_levels:
        table[f"pass^{k}"] = pass_hat_k_array(table["n"], table["c"], k)
    return table


def repeatability(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                  groups: AgentGroups | None = None) -> dict[str, Repeatability]:
    """pass^k for the public levels, unweighted mean over qualifying tasks, per agent (SPEC 5)."""
    groups = groups or agent_groups(runs)
    return repeatability_from_counts(groups.agents, task_counts(runs, groups), policy)


def repeatability_from_counts(agents, counts: pd.DataFrame,
                              policy: Policy = CANONICAL_POLICY) -> dict[str, Repeatability]:
    """The compute step: exact pass^k per task and the unweighted mean over qualifying tasks.

    ``counts`` has agent_id, task_id, n, c, sorted by agent_id then task_id (any engine).
    """
    if "agent_code" in counts:
        code = counts["agent_code"].to_numpy()
        counts = counts.drop(columns="agent_code")
    else:
        code = pd.Index(list(agents)).get_indexer(counts["agent_id"])
    tasks = _with_pass_k(counts, policy)
    size = len(agents)
    qualifies = tasks["qualifies"].to_numpy()
    n_tasks = np.bincount(code, minlength=size)
    n_qualifying = np.bincount(code[qualifies], minlength=size)
    means = {k: np.bincount(code[qualifies], weights=tasks[f"pass^{k}"].to_numpy()[qualifies],
                            minlength=size) / np.maximum(n_qualifying, 1)
             for k in policy.pass_k_levels}
    bounds = np.concatenate(([0], np.cumsum(n_tasks)))
    out: dict[str, Repeatability] = {}
    for i, agent in enumerate(agents):
        q = int(n_qualifying[i])
        pass_k = {k: float(means[k][i]) for k in policy.pass_k_levels} if q else None
        out[agent] = Repeatability(agent, q, int(n_tasks[i]) - q, pass_k,
                                   _TaskSlice(tasks, int(bounds[i]), int(bounds[i + 1])), policy)
    return out


class _TaskSlice:
    """An agent's rows of the shared per-task table, materialized only when read."""

    def __init__(self, table: pd.DataFrame, start: int, stop: int):
        self.table, self.start, self.stop = table, start, stop

    def frame(self) -> pd.DataFrame:
        return self.table.iloc[self.start:self.stop].reset_index(drop=True)
