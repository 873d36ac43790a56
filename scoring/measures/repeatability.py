"""Repeatability pass^k (SPEC 5): how often k repeated attempts at a task all succeed.

Outcomes are every terminal run with a known ``success`` (no window). Per task, n = outcomes and
c = successes; a task qualifies with n >= 3. Values are exact: integer binomials, converted to float
once. The canonical numbers follow the published rule (a task with fewer than k successes, so
also one with fewer than k outcomes, contributes 0); :meth:`Repeatability.tau2_reading` gives the
tau2-bench reading beside it, labelled, never mixed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from math import comb, lcm
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from scoring.contract.policy import CANONICAL_POLICY, FIELD_BY_NAME, Policy
from scoring.measures._groups import AgentGroups, agent_groups

# pandas is imported by the functions that build or read a frame: the per-task table is built when first read, so a
# report from an engine's aggregates (--engine sql) never loads it.
if TYPE_CHECKING:
    import pandas as pd

MAX_CURVE_K = 100  # the curve's largest k (pass^k is 0 beyond the smallest trial count that large anyway)


@lru_cache(maxsize=1 << 16)  # a pure function of three integers, asked again and again by the bootstrap
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


def pass_hat_k_array(n: ArrayLike, c: ArrayLike, k: int) -> np.ndarray:
    """pass_hat_k over arrays, computed exactly once per distinct (n, c) pair."""
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    if n.size == 0:
        return np.zeros(0)
    width = int(n.max()) + 1
    uniques, pair = np.unique(n * width + c, return_inverse=True)
    values = np.array([pass_hat_k(int(u // width), int(u % width), k) for u in uniques])
    return values[pair]


def mean_pass_hat_k(n: ArrayLike, c: ArrayLike, k: int, group: ArrayLike | None = None,
                    groups: int = 1) -> np.ndarray:
    """The unweighted mean of pass_hat_k over tasks, per group (default: one group), as the exact rational
    mean rounded once to a double (SPEC 5: computed exactly), not a sum of rounded values (a unit or two in the last
    place off it). 0 for a group of no task.

    Every task's term is put over the least common multiple of the C(n, k) of the distinct (n, c) pairs: integer
    sums per group (in int64 where they fit), then one correctly rounded integer division each.

    Examples
    --------
    >>> float(mean_pass_hat_k([3, 7], [3, 5], 1)[0]), float(mean_pass_hat_k([3, 7], [3, 5], 3)[0])  # 6/7, 9/14
    (0.8571428571428571, 0.6428571428571429)
    >>> mean_pass_hat_k([3, 7, 4], [3, 5, 0], 1, group=[0, 0, 1], groups=3).tolist()
    [0.8571428571428571, 0.0, 0.0]
    """
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    code = np.zeros(len(n), dtype=np.int64) if group is None else np.asarray(group, dtype=np.int64)
    out = np.zeros(groups)
    scoring = c >= k  # a task with fewer than k successes adds 0
    if not scoring.any():
        return out
    tasks = np.bincount(code, minlength=groups)
    width = int(n.max()) + 1
    pairs, pair = np.unique(n[scoring] * width + c[scoring], return_inverse=True)
    terms = [(comb(int(p // width), k), comb(int(p % width), k)) for p in pairs.tolist()]
    denominator = lcm(*(d for d, _ in terms))
    scaled = [num * (denominator // d) for d, num in terms]  # each task's pass^k times the denominator, exact
    if denominator * int(scoring.sum()) < 2 ** 63:  # every group's total fits in an int64
        totals = np.zeros(groups, dtype=np.int64)
        np.add.at(totals, code[scoring], np.array(scaled, dtype=np.int64)[pair])
        total_of = totals.tolist()
    else:  # binomials past 64 bits (tasks of many outcomes): Python's integers
        total_of = [0] * groups
        for g, p in zip(code[scoring].tolist(), pair.tolist()):
            total_of[g] += scaled[p]
    for g in np.flatnonzero(tasks).tolist():
        out[g] = total_of[g] / (denominator * int(tasks[g]))  # int / int: correctly rounded
    return out


def check_levels(levels: Iterable[int]) -> tuple[int, ...]:
    """pass^k levels as the policy bounds them (at most 10, each from 1 to 100); ValueError otherwise."""
    spec = FIELD_BY_NAME["pass_k_levels"]
    out = tuple(levels)
    if not out or len(out) > spec.max_items or len(set(out)) != len(out) or any(
            isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not spec.low <= k <= spec.high
            for k in out):
        raise ValueError(f"pass^k levels: {spec.describe_range()}, each once; got {list(out)[:12]}")
    return tuple(int(k) for k in out)


@dataclass(frozen=True)
class RepeatabilityAggregates:
    """The contract of every engine: per (agent, task) with a known terminal outcome, n outcomes and c
    successes, sorted by agent (code) then task_id as text."""

    agent: np.ndarray  # agent code (index into the agents tuple)
    task_id: np.ndarray  # task names, object array
    n: np.ndarray
    c: np.ndarray

    def __len__(self) -> int:
        return len(self.n)


@dataclass(frozen=True)
class Tau2Reading:
    """tau2-bench's reading of the same outcomes (labelled beside the canonical one, never mixed).

    tau2 computes pass^k only for k up to the smallest trial count among the tasks, and averages
    every task with at least one outcome (no three-outcome gate).
    """

    max_k: int
    tasks: int
    pass_k: dict[int, float]


@dataclass(frozen=True)
class Repeatability:
    """One agent's pass^k over its qualifying tasks, with the per-task rows behind it."""

    agent_id: str
    qualifying_tasks: int
    excluded_tasks: int
    pass_k: dict[int, float] | None
    levels: tuple[int, ...]  # the levels reported (the policy's, or those asked for)
    tasks_below_k: dict[int, int]  # per level: qualifying tasks with fewer than k outcomes (they count 0)
    task_rows: _TaskSlice = field(repr=False)
    policy: Policy = field(repr=False)

    @property
    def tasks(self) -> pd.DataFrame:
        """Per-task rows: task_id, n outcomes, c successes, qualifies, pass^k for the reported levels."""
        return self.task_rows.frame()

    def curve(self, ks: Iterable[int] | None = None) -> dict[int, float]:
        """Mean pass^k over qualifying tasks for each k (default 1 to the largest outcome count, at most 100)."""
        tasks = self.tasks
        q = tasks[tasks["qualifies"]]
        if q.empty:
            return {}
        ks = range(1, min(int(q["n"].max()), MAX_CURVE_K) + 1) if ks is None else ks
        return {k: float(mean_pass_hat_k(q["n"], q["c"], k)[0]) for k in ks}

    def tau2_reading(self) -> Tau2Reading | None:
        """tau2-bench's convention on the same tasks: k up to the smallest n, mean over every task."""
        tasks = self.tasks
        if tasks.empty:
            return None
        n, c = tasks["n"].to_numpy(np.int64), tasks["c"].to_numpy(np.int64)
        max_k = min(int(n.min()), MAX_CURVE_K)
        return Tau2Reading(max_k, len(tasks), {k: float(mean_pass_hat_k(n, c, k)[0]) for k in range(1, max_k + 1)})

    @property
    def tasks_below_min_outcomes(self) -> int:
        """Tasks with outcomes but fewer than the published minimum (3): absent from pass^k (SPEC 6)."""
        return self.excluded_tasks

    def missing_reason(self) -> str | None:
        """Why pass^k is null, in words (None when it has a value).

        Examples
        --------
        >>> from scoring import runs_from_records, score_runs
        >>> runs = runs_from_records([{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": "completed",
        ...     "success": True, "latency_ms": 1, "cost_usd": 0.01} for i in range(2)])
        >>> score_runs(runs).agents[0].repeatability.missing_reason()
        'no pass^k: 1 task has 2 outcomes or fewer; pass^k needs 3 or more per task (published minimum)'
        """
        if self.pass_k is not None:
            return None
        need = self.policy.pass_k_min_outcomes
        if not self.excluded_tasks:
            return "no pass^k: no terminal run with a known outcome"
        tasks = "1 task has" if self.excluded_tasks == 1 else f"{self.excluded_tasks:,} tasks have"
        return (f"no pass^k: {tasks} {need - 1} outcome{'s' if need - 1 != 1 else ''} or fewer; pass^k needs "
                f"{need} or more per task (published minimum)")

    def to_json(self) -> dict:
        """The SPEC 6 ``repeatability`` object, with SPEC 5's count of qualifying tasks with n < k per level."""
        return {
            "qualifying_tasks": self.qualifying_tasks,
            "pass_k": None if self.pass_k is None else {str(k): v for k, v in self.pass_k.items()},
            "tasks_below_k": {str(k): v for k, v in self.tasks_below_k.items()},
            "tasks_below_min_outcomes": self.tasks_below_min_outcomes,
        }


def _task_codes(tasks: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(code per row, names) with names in text order; free for the canonical frame's categories."""
    import pandas as pd

    if isinstance(tasks.dtype, pd.CategoricalDtype):
        return tasks.cat.codes.to_numpy(dtype=np.int64), np.asarray(tasks.cat.categories, dtype=object)
    codes, names = pd.factorize(tasks, sort=True)
    return codes, np.asarray(names, dtype=object)


def repeatability_aggregates(runs: pd.DataFrame, groups: AgentGroups) -> RepeatabilityAggregates:
    """The aggregate step: per (agent, task) with a known terminal outcome, n outcomes and c successes."""
    mask = groups.known & groups.terminal
    task_codes, task_names = _task_codes(runs["task_id"])
    width = max(len(task_names), 1)
    key = groups.codes[mask] * width + task_codes[mask]
    # Ascending (agent, task) keys order the table by agent_id, then task_id as text.
    if groups.size * width <= 4 * len(key) + 1024:  # dense key space: count straight into it
        n = np.bincount(key, minlength=groups.size * width)
        c = np.bincount(key, weights=groups.succeeded[mask], minlength=groups.size * width)
        uniques = np.flatnonzero(n)
        n, c = n[uniques], c[uniques]
    else:
        import pandas as pd

        pair, uniques = pd.factorize(key, sort=True)
        n = np.bincount(pair, minlength=len(uniques))
        c = np.bincount(pair, weights=groups.succeeded[mask], minlength=len(uniques))
    return RepeatabilityAggregates(agent=(uniques // width).astype(np.int64),
                                   task_id=np.asarray(task_names, dtype=object)[uniques % width],
                                   n=n.astype(np.int64), c=c.astype(np.int64))


def task_outcomes(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                  groups: AgentGroups | None = None) -> pd.DataFrame:
    """Per (agent, task), sorted by agent then task: n outcomes, c successes, whether it qualifies, pass^k."""
    groups = groups or agent_groups(runs)
    agg = repeatability_aggregates(runs, groups)
    return _TaskTable(groups.agents, agg, policy.pass_k_levels, policy).frame


class _TaskTable:
    """Every agent's per-task rows (agent_id, task_id, n, c, qualifies, pass^k per level) as arrays, and as a
    pandas table when first read (:attr:`frame`)."""

    def __init__(self, agents: Sequence[str], agg: RepeatabilityAggregates, levels: Sequence[int], policy: Policy):
        self.agent_id = np.asarray(agents, dtype=object)[agg.agent] if len(agg) else np.zeros(0, dtype=object)
        self.task_id, self.n, self.c = agg.task_id, agg.n, agg.c
        self.qualifies = agg.n >= policy.pass_k_min_outcomes
        self.pass_k = {k: pass_hat_k_array(agg.n, agg.c, k) for k in levels}

    @cached_property
    def frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame({"agent_id": pd.array(self.agent_id, dtype="str"),
                             "task_id": pd.array(self.task_id, dtype="str"), "n": self.n, "c": self.c,
                             "qualifies": self.qualifies, **{f"pass^{k}": v for k, v in self.pass_k.items()}})


def repeatability(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY, groups: AgentGroups | None = None,
                  levels: Sequence[int] | None = None) -> dict[str, Repeatability]:
    """pass^k for the policy's levels (or ``levels``), unweighted mean over qualifying tasks, per agent (SPEC 5)."""
    groups = groups or agent_groups(runs)
    return repeatability_from_aggregates(groups.agents, repeatability_aggregates(runs, groups), policy, levels)


def repeatability_from_aggregates(agents: Sequence[str], agg: RepeatabilityAggregates,
                                  policy: Policy = CANONICAL_POLICY,
                                  levels: Sequence[int] | None = None) -> dict[str, Repeatability]:
    """The compute step: exact pass^k per task and the unweighted mean over qualifying tasks (any engine)."""
    levels = policy.pass_k_levels if levels is None else check_levels(levels)
    tasks = _TaskTable(agents, agg, levels, policy)
    size, code = len(agents), agg.agent
    qualifies = tasks.qualifies
    n_tasks = np.bincount(code, minlength=size)
    n_qualifying = np.bincount(code[qualifies], minlength=size)
    means = {k: mean_pass_hat_k(agg.n[qualifies], agg.c[qualifies], k, code[qualifies], size) for k in levels}
    below = {k: np.bincount(code[qualifies & (agg.n < k)], minlength=size) for k in levels}
    bounds = np.concatenate(([0], np.cumsum(n_tasks)))
    out: dict[str, Repeatability] = {}
    for i, agent in enumerate(agents):
        q = int(n_qualifying[i])
        pass_k = {k: float(means[k][i]) for k in levels} if q else None
        out[agent] = Repeatability(agent, q, int(n_tasks[i]) - q, pass_k, tuple(levels),
                                   {k: int(below[k][i]) for k in levels},
                                   _TaskSlice(tasks, int(bounds[i]), int(bounds[i + 1])), policy)
    return out


class _TaskSlice:
    """An agent's rows of the shared per-task table, materialized only when read."""

    def __init__(self, table: _TaskTable, start: int, stop: int):
        self.table, self.start, self.stop = table, start, stop

    def frame(self) -> pd.DataFrame:
        return self.table.frame.iloc[self.start:self.stop].reset_index(drop=True)
