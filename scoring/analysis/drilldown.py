"""The runs behind every number (issue 15): which cohort each run is in, tasks by agents, the scores
as they moved day by day, and two agents side by side.

Every measure is computed by its own module on the runs this one selects, so no formula is written
twice: the radar window is :func:`scoring.measures.radar.window_rows`; the radar axes over time come from
:func:`scoring.measures.radar.radar_aggregates`, the axes' own vectorized values (:data:`scoring.measures.axes.AXES`)
and :func:`scoring.measures.radar.profile_score`; each task's pass^k over time from
:func:`scoring.measures.repeatability.pass_hat_k_array`; every headline from
:func:`scoring.measures.headline.composite_arrays`.

Decisions (explorer-defined):

- **Cohort flags** (:func:`runs_view`): ``in_headline`` = completed (SPEC 3); ``in_radar_window`` =
  the agent's latest ``radar_window`` terminal runs in SPEC 4's order (the rows the radar reads);
  ``in_pass_k`` = terminal with a known outcome (SPEC 5).
- **Task x agent matrix** (:func:`task_matrix`): the colour is ``success_rate`` = successes / known
  outcomes of terminal runs, the outcomes pass^k reads (so a cell's counts equal the repeatability
  task table's n and c); the headline cohort's rate (successful / completed runs, an unknown outcome
  in the denominator, SPEC 3) is given beside it as ``headline_success_rate``.
- **Over time** (:func:`score_over_time`): UTC calendar days from the first to the last
  ``finished_at`` of the data; as of a day, a measure reads the runs finished by the end of it. A
  run without ``finished_at`` sorts as the oldest (SPEC 1), so it counts from the first day on; a
  file without the column has no dates, and no series. The headline's statistics are running
  sums with the spread combined day by day (Chan's parallel update; see :func:`_running_spread`),
  O(runs + agents x days); the radar's window is recomputed only on the days it moves
  (O(days x window)); pass^k is a running mean of each task's changes on the days its outcomes
  arrive (see :func:`_pass_k_days`). On the last day every number equals the full report's (the
  headline's weighted score to about 1e-13 and pass^k to about 1e-16: summed in another order).
  At most :data:`MAX_DAYS` days are scored: the work and the frame grow with agents x days, so runs that
  span more are refused with the first and last of them named (:class:`TooManyDays`), before any work (a
  2 KB file with one run in year 1 and one in 9999 asked for 3.65 million days: 7.1 GB in the app's server).
- **Compare** (:func:`compare`): the interval for the difference of two headline scores is a
  **paired bootstrap over tasks** (:func:`scoring.analysis.uncertainty.paired_headline_replicates`): each
  replicate draws as many tasks as either agent completed a run on, with replacement, and both agents
  keep all their completed runs on each drawn task; both headlines are re-scored (run-weighted, as
  published) and subtracted. Pairing by task removes what the two share (a hard task is hard for
  both), so identical agents get an interval of exactly 0. A replicate in which either agent has no
  completed run has no difference and is left out (counted). The two-sample reading (each agent's
  runs resampled independently, the Leaderboard's own replicates) is kept beside it as
  ``independent_interval``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from scoring.analysis.explain import COMPONENTS, _records, agent_rows, points_lost
from scoring.analysis.uncertainty import (
    DEFAULT_CONFIDENCE,
    DEFAULT_REPLICATES,
    DEFAULT_SEED,
    CompletedRuns,
    Interval,
    _agent_rng,
    headline_replicates,
    paired_headline_replicates,
    percentile_interval,
)
from scoring.contract import format as fmt
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.rounding import published_round
from scoring.contract.schema import STATUSES
from scoring.measures._groups import AgentGroups, agent_groups, headline_cohort, optional
from scoring.measures.axes import AXES, RADAR_AXES
from scoring.measures.facts import Fact
from scoring.measures.headline import HeadlineAggregates, composite_arrays, final_score, headline_scores
from scoring.measures.radar import check_weights, profile_score, radar_aggregates, window_rows
from scoring.measures.repeatability import pass_hat_k_array
from scoring.measures.report import neutralize_cell

COHORTS = ("headline", "radar_window", "pass_k")
OUTCOMES = ("success", "failure", "unknown")


def _check(values: Iterable[str] | None, allowed: Collection[str], what: str) -> set[str] | None:
    if values is None:
        return None
    chosen = {str(v) for v in values}
    bad = sorted(chosen - set(allowed))
    if bad:
        raise ValueError(f"unknown {what} {bad[0]!r}; expected one of {', '.join(allowed)}")
    return chosen


# --------------------------------------------------------------------------- runs view


def cohort_flags(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
                 groups: AgentGroups | None = None) -> pd.DataFrame:
    """Per run of a canonical frame (same index): ``in_headline``, ``in_radar_window``, ``in_pass_k``."""
    groups = groups or agent_groups(runs)
    window = np.zeros(len(runs), dtype=bool)
    window[window_rows(groups, policy)] = True
    return pd.DataFrame({"in_headline": groups.completed, "in_radar_window": window,
                         "in_pass_k": groups.terminal & groups.known}, index=runs.index)


def runs_view(runs: pd.DataFrame, *, agents: Iterable[str] | None = None, tasks: Iterable[str] | None = None,
              statuses: Iterable[str] | None = None, outcomes: Iterable[str] | None = None,
              cohorts: Iterable[str] | None = None, policy: Policy = CANONICAL_POLICY) -> pd.DataFrame:
    """The runs with the cohort each is in, filtered; canonical order (agent, then newest first).

    The flags are computed on the whole frame first (the window depends on all of an agent's runs),
    then the filters apply: ``agents``, ``tasks``, ``statuses`` (SPEC 1 names), ``outcomes``
    (``success``, ``failure``, ``unknown``) keep rows matching any value given; ``cohorts``
    (``headline``, ``radar_window``, ``pass_k``) keeps rows in every cohort named. ValueError names an
    unknown status, outcome or cohort.

    Examples
    --------
    >>> from scoring import runs_from_records
    >>> rows = [{"run_id": "r1", "agent_id": "a", "task_id": "t", "status": "completed", "success": True,
    ...          "latency_ms": 900, "cost_usd": None},
    ...         {"run_id": "r2", "agent_id": "a", "task_id": "t", "status": "failed", "success": None,
    ...          "latency_ms": None, "cost_usd": None}]
    >>> runs_view(runs_from_records(rows))[["run_id", "in_headline", "in_radar_window", "in_pass_k"]].values.tolist()
    [['r2', False, True, False], ['r1', True, True, True]]
    """
    statuses_set = _check(statuses, STATUSES, "status")
    outcomes_set = _check(outcomes, OUTCOMES, "outcome")
    cohorts_set = _check(cohorts, COHORTS, "cohort")
    view = pd.concat([runs.drop(columns=["source_row"], errors="ignore"), cohort_flags(runs, policy)], axis=1)
    keep = np.ones(len(view), dtype=bool)
    if agents is not None:
        keep &= view["agent_id"].isin([str(a) for a in agents]).to_numpy()
    if tasks is not None:
        keep &= view["task_id"].astype(str).isin([str(t) for t in tasks]).to_numpy()
    if statuses_set is not None:
        keep &= view["status"].astype(str).isin(statuses_set).to_numpy()
    if outcomes_set is not None:
        success = view["success"]
        outcome = np.where(success.isna(), "unknown", np.where(success.fillna(False), "success", "failure"))
        keep &= np.isin(outcome, list(outcomes_set))
    for cohort in cohorts_set or ():
        keep &= view[f"in_{cohort}"].to_numpy(dtype=bool)
    return view[keep].reset_index(drop=True)


def runs_csv(view: pd.DataFrame) -> str:
    """A runs view as CSV, text cells a spreadsheet would run as formulas neutralized (OWASP); ``steps``, whole by
    SPEC 1, written as whole numbers where every one is below 2^53 (a double past it is written as it is).

    >>> print(runs_csv(pd.DataFrame({"run_id": ["=r1", "r2"], "steps": [19.0, None]})).strip())
    run_id,steps
    '=r1,19
    r2,
    """
    out = view.copy()
    for column in ("run_id", "agent_id", "task_id", "status"):
        if column in out:
            out[column] = out[column].astype(str).map(neutralize_cell)
    steps = out.get("steps")
    if steps is not None and pd.api.types.is_float_dtype(steps) and bool((steps.isna() | (steps.abs() < 2**53)).all()):
        out["steps"] = steps.astype("Int64")  # a reviewer's Runs CSV read 19.0
    return out.to_csv(index=False)


# --------------------------------------------------------------------------- task x agent matrix


def task_matrix(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY) -> pd.DataFrame:
    """One row per (task, agent) with a run: counts and success rates, tidy for a heatmap.

    Columns: ``task_id``, ``agent_id``, ``runs``; ``outcomes`` and ``successes`` (terminal runs with a
    known outcome, the pass^k cohort) and ``success_rate`` = successes / outcomes (NaN without an
    outcome: the heatmap's colour); ``completed`` and ``completed_successes`` (the headline cohort)
    and ``headline_success_rate`` = completed_successes / completed. Sorted by task, then agent.

    Examples
    --------
    >>> from scoring import runs_from_records
    >>> rows = [{"run_id": f"r{i}", "agent_id": "a", "task_id": "t", "status": s, "success": ok,
    ...          "latency_ms": None, "cost_usd": None}
    ...         for i, (s, ok) in enumerate([("completed", True), ("completed", None), ("failed", False)])]
    >>> task_matrix(runs_from_records(rows))[["outcomes", "success_rate", "completed",
    ...                                       "headline_success_rate"]].values.tolist()
    [[2.0, 0.5, 2.0, 0.5]]
    """
    groups = agent_groups(runs)
    tasks = runs["task_id"]
    names = np.asarray(tasks.cat.categories if isinstance(tasks.dtype, pd.CategoricalDtype)
                       else sorted(tasks.astype(str).unique()), dtype=object)
    task_codes = pd.Categorical(tasks.astype(str), categories=names).codes.astype(np.int64)
    width = len(names)
    key = task_codes * groups.size + groups.codes  # task first: the frame's order

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(key[mask], minlength=width * groups.size)

    outcome = groups.terminal & groups.known
    table = {"runs": count(np.ones(len(runs), dtype=bool)), "outcomes": count(outcome),
             "successes": count(outcome & groups.succeeded), "completed": count(groups.completed),
             "completed_successes": count(groups.completed & groups.succeeded)}
    present = np.flatnonzero(table["runs"])
    frame = pd.DataFrame({"task_id": pd.array(names[present // groups.size], dtype="str"),
                          "agent_id": pd.array(np.asarray(groups.agents, dtype=object)[present % groups.size],
                                               dtype="str"),
                          **{k: v[present] for k, v in table.items()}})
    with np.errstate(invalid="ignore", divide="ignore"):
        frame["success_rate"] = np.where(frame["outcomes"] > 0, frame["successes"] / frame["outcomes"], np.nan)
        frame["headline_success_rate"] = np.where(frame["completed"] > 0,
                                                  frame["completed_successes"] / frame["completed"], np.nan)
    return frame[["task_id", "agent_id", "runs", "outcomes", "successes", "success_rate", "completed",
                  "completed_successes", "headline_success_rate"]]


# --------------------------------------------------------------------------- score over time


@dataclass(frozen=True)
class OverTime:
    """The three measures as of each UTC day, per agent (see the module docstring for the rules).

    ``frame`` has one row per (agent, day): ``completed_runs``, ``successful_runs``, ``latency_runs``,
    ``weighted_score``, ``score`` (NaN while unranked), ``zero_success_floor``,
    ``consistency_neutral``, ``floor_switched``, ``gate_switched`` (the day the floor or the
    consistency gate changed state), ``window_runs`` and the radar axes (rounded as published),
    ``profile_score``, ``qualifying_tasks`` and ``pass^k`` per level. ``undated_runs``: per agent, runs
    without ``finished_at``, counted from the first day.
    """

    frame: pd.DataFrame
    days: tuple[pd.Timestamp, ...]
    undated_runs: dict[str, int]
    has_dates: bool
    policy: Policy = field(repr=False)

    def agent(self, agent_id: str) -> pd.DataFrame:
        return self.frame[self.frame["agent_id"] == agent_id].reset_index(drop=True)

    def switches(self) -> pd.DataFrame:
        """The rows where the zero-success floor or the consistency gate switched."""
        return self.frame[self.frame["floor_switched"] | self.frame["gate_switched"]].reset_index(drop=True)

    def facts(self) -> list[Fact]:
        if not self.has_dates:
            return [Fact("No finished_at dates: the runs cannot be placed on days, so there is no score over time.")]
        out = []
        undated = sum(self.undated_runs.values())
        if undated:
            out.append(Fact("{n:count|run has|runs have} no finished_at: like the radar window, the days count a run "
                            "without one as the oldest, so every day's numbers include it.", {"n": undated}))
        gate = self.policy.consistency_min_latencies
        for row in self.switches().itertuples(index=False):
            v = {"agent": row.agent_id, "day": row.day.strftime("%Y-%m-%d"), "n": row.completed_runs,
                 "latencies": row.latency_runs, "gate": gate}
            if row.floor_switched:
                out.append(Fact("{day:text}: {agent:text} is on the zero-success floor "
                                "({n:count|completed run|completed runs}, none successful)."
                                if row.zero_success_floor else
                                "{day:text}: {agent:text} leaves the zero-success floor (a first successful "
                                "completed run).", v))
            if row.gate_switched:
                out.append(Fact("{day:text}: {agent:text} reaches the consistency gate "
                                "({latencies:count|recorded latency|recorded latencies}; the gate needs "
                                "{gate:count}): consistency is measured from this day." if
                                not row.consistency_neutral else
                                "{day:text}: {agent:text} falls below the consistency gate: consistency is neutral.",
                                v))
        return out

    def to_json(self) -> dict[str, Any]:
        frame = self.frame.assign(day=self.frame["day"].dt.strftime("%Y-%m-%d"))
        return {"has_dates": self.has_dates, "undated_runs": self.undated_runs, "rows": _records(frame),
                "facts": [str(f) for f in self.facts()]}


MAX_DAYS = 3_660  # explorer-defined: UTC days (about ten years) from the first dated run to the last, over time


class TooManyDays(ValueError):
    """The runs span more UTC days than :func:`score_over_time` scores (:data:`MAX_DAYS`); the message names the
    first and the last run by their ids and ``finished_at``."""


def _day_index(runs: pd.DataFrame) -> tuple[np.ndarray, pd.DatetimeIndex]:
    """Each run's UTC day as an index from the first day (-1 without ``finished_at``), and the days; refused
    (:class:`TooManyDays`) before the days are made when they are more than :data:`MAX_DAYS`."""
    ts = pd.DatetimeIndex(runs["finished_at"])
    days = ts.floor("D")
    dated = ~days.isna()
    first, last = days[dated].min(), days[dated].max()
    span = (last - first).days + 1
    if span > MAX_DAYS:
        def named(when: pd.Timestamp) -> str:  # of the runs finished then, the first by run_id
            return (f"run {fmt.named(min(str(r) for r in runs['run_id'].to_numpy()[(ts == when) & dated]))} "
                    f"finished {when.isoformat()}")

        raise TooManyDays(f"the runs span {span:,} UTC days, from {named(ts[dated].min())} to "
                          f"{named(ts[dated].max())}; the scores over time are drawn for at most {MAX_DAYS:,} days "
                          "(about ten years; explorer-defined)")
    every = pd.date_range(first, last, freq="D")
    index = np.full(len(runs), -1, dtype=np.int64)
    index[dated] = ((days[dated] - first) // pd.Timedelta(days=1)).to_numpy(dtype=np.int64)
    return index, every


def _running_spread(key: np.ndarray, values: np.ndarray, size: int, n_days: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (agent, day): the running count, mean and population spread of ``values`` finished by that day.

    Each day's runs are summed in extended precision and their squared deviations taken about that
    day's own mean (two passes: nothing cancels); the days are then added one at a time with Chan's
    parallel update, M2 = M2_before + M2_day + delta^2 * n_before * n_day / n, whose terms are all
    non-negative, so the spread stays accurate however the days are split: O(values + agents x days).
    The mean is the running extended-precision sum rounded once, over the count, as the headline's is.
    """
    count = np.bincount(key, minlength=size).reshape(-1, n_days)
    total = np.zeros(size, dtype=np.longdouble)
    np.add.at(total, key, values.astype(np.longdouble))
    flat_mean = total / np.maximum(np.bincount(key, minlength=size), 1)
    deviation = values.astype(np.longdouble) - flat_mean[key]
    flat_m2 = np.zeros(size, dtype=np.longdouble)
    np.add.at(flat_m2, key, deviation * deviation)
    day_mean, m2_day = flat_mean.reshape(-1, n_days), flat_m2.reshape(-1, n_days)
    running_n = np.cumsum(count, axis=1)
    running_sum = np.cumsum(total.reshape(-1, n_days), axis=1)
    mean = np.full(running_n.shape, np.nan)
    np.divide(running_sum.astype(np.float64), running_n, out=mean, where=running_n > 0)
    m2 = np.zeros(running_n.shape, dtype=np.longdouble)
    m2[:, 0] = m2_day[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        prefix_mean = running_sum / running_n
        for d in range(1, n_days):  # vectorized over agents
            before, today = running_n[:, d - 1], count[:, d]
            delta = np.where(today > 0, day_mean[:, d] - np.nan_to_num(prefix_mean[:, d - 1]), 0)
            shared = np.where(before * today > 0, delta * delta * before * today / np.maximum(running_n[:, d], 1), 0)
            m2[:, d] = m2[:, d - 1] + m2_day[:, d] + shared
    spread = np.full(running_n.shape, np.nan)
    # Rooted in extended precision: the variance of latencies of 1e-165 ms (1e-330) is below the smallest double.
    np.copyto(spread, np.sqrt(m2 / np.maximum(running_n, 1)).astype(np.float64), where=running_n > 0)
    return running_n.ravel(), mean.ravel(), spread.ravel()


def _headline_days(runs: pd.DataFrame, groups: AgentGroups, day: np.ndarray, n_days: int,
                   policy: Policy) -> dict[str, np.ndarray]:
    """Headline per (agent, day) from running sums of the completed cohort: O(runs + agents x days)."""
    size = groups.size * n_days
    completed = groups.completed
    key = groups.codes * n_days + np.maximum(day, 0)  # undated: counted from the first day
    latency, cost = runs["latency_ms"].to_numpy(dtype=float), runs["cost_usd"].to_numpy(dtype=float)
    has_latency, has_cost = completed & ~np.isnan(latency), completed & ~np.isnan(cost)
    latency_runs, latency_mean, latency_pstdev = _running_spread(key[has_latency], latency[has_latency], size,
                                                                 n_days)
    cost_runs, cost_mean, _ = _running_spread(key[has_cost], cost[has_cost], size, n_days)
    running = lambda mask: np.cumsum(np.bincount(key[mask], minlength=size).reshape(-1, n_days), axis=1).ravel()
    stats = HeadlineAggregates(running(completed), running(completed & groups.succeeded), latency_runs,
                               latency_mean, latency_pstdev, cost_runs, cost_mean)
    f = composite_arrays(stats, policy)
    ranked = f["ranked"]
    score = np.array([final_score(w, fl, policy) if r else np.nan for w, fl, r in  # Python floats: fast round
                      zip(f["weighted_score"].tolist(), f["zero_success_floor"].tolist(), ranked.tolist())])
    return {"completed_runs": stats.completed_runs, "successful_runs": stats.successful_runs,
            "latency_runs": stats.latency_runs,
            "weighted_score": np.where(ranked, f["weighted_score"], np.nan), "score": score,
            "zero_success_floor": f["zero_success_floor"] & ranked,
            "consistency_neutral": f["consistency_neutral"] | ~ranked}


def _radar_days(runs: pd.DataFrame, groups: AgentGroups, day: np.ndarray, n_days: int, policy: Policy,
                weights: Mapping[str, float] | None) -> dict[str, np.ndarray]:
    """Radar per (agent, day): each distinct window (the newest runs finished by that day) scored once."""
    size = policy.radar_window
    terminal = np.flatnonzero(groups.terminal)
    codes = groups.codes[terminal]
    bounds = np.searchsorted(codes, np.arange(groups.size + 1))
    pieces: list[np.ndarray] = []
    owner = np.full(groups.size * n_days, -1, dtype=np.int64)
    for a in range(groups.size):
        rows = terminal[bounds[a]:bounds[a + 1]]  # newest first (SPEC 4), undated last (day -1)
        # As of day d the window is rows[p:p + size], p = the runs finished after day d.
        p = np.searchsorted(-day[rows], -np.arange(n_days), side="left")
        for start in np.unique(p[p < len(rows)]):
            owner[a * n_days + np.flatnonzero(p == start)] = len(pieces)
            pieces.append(rows[start:start + size])
    out: dict[str, np.ndarray] = {"window_runs": np.zeros(groups.size * n_days, dtype=np.int64)}
    for axis in (*RADAR_AXES, "profile_score"):
        out[axis] = np.full(groups.size * n_days, np.nan)
    if not pieces:
        return out
    rows = np.concatenate(pieces)
    lengths = np.array([len(piece) for piece in pieces])
    window_groups = AgentGroups(
        agents=tuple(str(i) for i in range(len(pieces))),
        codes=np.repeat(np.arange(len(pieces)), lengths),
        completed=groups.completed[rows], terminal=groups.terminal[rows], known=groups.known[rows],
        succeeded=groups.succeeded[rows], starts=np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64))
    frame = runs[["task_id", "latency_ms", "cost_usd", "steps"]].iloc[rows].reset_index(drop=True)  # what it reads
    agg = radar_aggregates(frame, policy, window_groups)
    # The axes' own vectorized values (the registry radar_from_aggregates reads), without the per-window
    # reasons; rounded and combined exactly as Radar.axes and Radar.profile do.
    raw = {axis.name: [optional(v) for v in axis.value(agg, policy)] for axis in AXES}
    decimals = policy.score_decimals
    values = {axis: np.array([np.nan if v is None else published_round(v, decimals) for v in raw[axis]])
              for axis in raw}
    profiles = [profile_score({a: raw[a][i] for a in raw}, weights, policy).score for i in range(len(pieces))]
    profile = np.array([np.nan if v is None else v for v in profiles])
    has = owner >= 0
    out["window_runs"][has] = lengths[owner[has]]
    for axis in RADAR_AXES:
        out[axis][has] = values[axis][owner[has]]
    out["profile_score"][has] = profile[owner[has]]
    return out


def _pass_k_days(runs: pd.DataFrame, groups: AgentGroups, day: np.ndarray, n_days: int,
                 policy: Policy) -> dict[str, np.ndarray]:
    """pass^k per (agent, day) over the outcomes finished by that day: O(outcome updates + agents x days).

    Each task's pass^k is :func:`scoring.measures.repeatability.pass_hat_k_array` of its running (n, c); SPEC 5's
    aggregate, the unweighted mean over qualifying tasks (n >= the policy's minimum), is kept as a
    running sum of each task's change on the days its outcomes arrive (summed in extended precision,
    so it equals the report's mean to about 1e-16) and a running count of qualifying tasks.
    """
    mask = groups.terminal & groups.known
    tasks = runs["task_id"]
    task_codes = (tasks.cat.codes.to_numpy(dtype=np.int64) if isinstance(tasks.dtype, pd.CategoricalDtype)
                  else pd.factorize(tasks.astype(str), sort=True)[0].astype(np.int64))
    width = int(task_codes.max()) + 1 if len(task_codes) else 1
    size = groups.size * n_days
    levels = policy.pass_k_levels
    out = {"qualifying_tasks": np.zeros(size, dtype=np.int64), **{f"pass^{k}": np.full(size, np.nan) for k in levels}}
    if not mask.any():
        return out
    # One update per (agent, task, day) with outcomes, in that order: the task's running n and c after it.
    agent, task, when = groups.codes[mask], task_codes[mask], np.maximum(day[mask], 0)
    key = (agent * width + task) * n_days + when
    updates, inverse = np.unique(key, return_inverse=True)
    n = np.bincount(inverse)
    c = np.bincount(inverse, weights=groups.succeeded[mask]).astype(np.int64)
    pair = updates // n_days  # (agent, task)
    first = np.r_[True, pair[1:] != pair[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(pair)), 0))
    running_n = np.cumsum(n) - np.r_[0, np.cumsum(n)[:-1]][start]
    running_c = np.cumsum(c) - np.r_[0, np.cumsum(c)[:-1]][start]
    qualifies = running_n >= policy.pass_k_min_outcomes
    slot = (pair // width) * n_days + updates % n_days  # (agent, day) of each update

    def change(values: np.ndarray) -> np.ndarray:
        """Each update's change of a task's value (from 0 before the task's first update)."""
        before = np.r_[0, values[:-1]].astype(values.dtype)
        return values - np.where(first, 0, before)

    per_day_q = np.bincount(slot, weights=change(qualifies.astype(np.int64)), minlength=size)
    count = np.cumsum(per_day_q.reshape(-1, n_days), axis=1).round().astype(np.int64)
    out["qualifying_tasks"] = count.ravel()
    for k in levels:
        value = np.where(qualifies, pass_hat_k_array(running_n, running_c, k), 0.0)
        total = np.zeros(size, dtype=np.longdouble)
        np.add.at(total, slot, change(value).astype(np.longdouble))
        running = np.cumsum(total.reshape(-1, n_days), axis=1)
        mean = np.full(count.shape, np.nan)
        np.divide(running.astype(np.float64), count, out=mean, where=count > 0)
        out[f"pass^{k}"] = mean.ravel()
    return out


def _switched(state: np.ndarray, size: int, n_days: int, before: bool) -> np.ndarray:
    """Where a per-(agent, day) state differs from the day before (``before`` ahead of the first day)."""
    grid = state.reshape(size, n_days)
    prior = np.concatenate([np.full((size, 1), before), grid[:, :-1]], axis=1)
    return (grid != prior).ravel()


def score_over_time(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY, agents: Iterable[str] | None = None,
                    weights: Mapping[str, float] | None = None) -> OverTime:
    """Headline, radar and pass^k as of each UTC day, per agent (all agents, or those named).

    ``weights`` are radar viewer weights for the profile score. See the module docstring for
    the rules (the days, undated runs, and the cost of each measure).
    """
    weights = check_weights(weights, policy)  # refused once, before any work
    if agents is not None:
        runs = runs[runs["agent_id"].isin([str(a) for a in agents]).to_numpy()]
    has_column = bool(runs.attrs.get("has_finished_at", True))
    dated = has_column and len(runs) > 0 and bool(runs["finished_at"].notna().any())
    if not dated:
        names = ["agent_id", "day", "completed_runs", "successful_runs", "latency_runs", "weighted_score", "score",
                   "zero_success_floor", "consistency_neutral", "floor_switched", "gate_switched", "window_runs",
                   *RADAR_AXES, "profile_score", "qualifying_tasks", *(f"pass^{k}" for k in policy.pass_k_levels)]
        empty = pd.DataFrame({c: pd.Series([], dtype="datetime64[us, UTC]" if c == "day" else object)
                              for c in names})
        return OverTime(empty, (), {}, False, policy)
    groups = agent_groups(runs)
    day, every = _day_index(runs)
    n_days = len(every)
    columns: dict[str, Any] = {
        "agent_id": pd.array(np.repeat(np.asarray(groups.agents, dtype=object), n_days), dtype="str"),
        "day": every[np.tile(np.arange(n_days), groups.size)],
    }
    head = _headline_days(runs, groups, day, n_days, policy)
    columns.update(head)
    # Before the first day: unranked, so no floor and a neutral (unmeasured) consistency.
    columns["floor_switched"] = _switched(head["zero_success_floor"], groups.size, n_days, False)
    columns["gate_switched"] = _switched(head["consistency_neutral"], groups.size, n_days, True)
    columns.update(_radar_days(runs, groups, day, n_days, policy, weights))
    columns.update(_pass_k_days(runs, groups, day, n_days, policy))
    frame = pd.DataFrame(columns)
    undated = np.bincount(groups.codes[day < 0], minlength=groups.size)
    return OverTime(frame, tuple(every), {a: int(undated[i]) for i, a in enumerate(groups.agents) if undated[i]},
                    True, policy)


# --------------------------------------------------------------------------- compare two agents


@dataclass(frozen=True)
class Comparison:
    """Agent ``a`` against agent ``b``: every delta is a minus b.

    ``components``: per component, the points each earns and the difference. ``tasks``: per task both
    have a known terminal outcome on, each success rate (the matrix cohort) and the paired
    difference. ``solved_only_by_a``/``_b``: shared tasks one solved at least once and the other never;
    ``tasks_only_a``/``_b``: tasks only one of them has a known terminal outcome on. ``interval``:
    paired (by task) bootstrap interval of the difference of the published scores, and
    ``independent_interval`` the two-sample one (see the module docstring for the design); None if
    either is unranked.
    """

    a: str
    b: str
    score_a: float | None
    score_b: float | None
    score_delta: float | None
    weighted_a: float | None
    weighted_b: float | None
    components: pd.DataFrame
    tasks: pd.DataFrame
    solved_only_by_a: tuple[str, ...]
    solved_only_by_b: tuple[str, ...]
    tasks_only_a: tuple[str, ...]
    tasks_only_b: tuple[str, ...]
    interval: Interval | None
    share_a_ahead: float | None
    replicates: int
    seed: int
    confidence: float
    independent_interval: Interval | None = None
    undefined_replicates: int = 0

    @property
    def mean_task_difference(self) -> float | None:
        """Mean of the per-task success-rate differences over shared tasks (each task once)."""
        return None if self.tasks.empty else float(self.tasks["difference"].mean())

    def facts(self) -> list[Fact]:
        v: dict[str, Any] = {"a": self.a, "b": self.b, "delta": self.score_delta, "sa": self.score_a,
                             "sb": self.score_b, "shared": len(self.tasks), "mean": self.mean_task_difference,
                             "only_a": len(self.solved_only_by_a), "only_b": len(self.solved_only_by_b),
                             "reps": self.replicates, "conf": self.confidence, "seed": self.seed}
        out = [Fact("{a:text} {sa:score} against {b:text} {sb:score}: a difference of {delta:score} points.", v)]
        if self.interval is not None:
            v.update(low=self.interval.low, high=self.interval.high, ahead=self.share_a_ahead)
            out.append(Fact("Paired bootstrap {conf:level} interval of the difference: {low:score} to {high:score} "
                            "({reps:count} replicates, seed {seed:text}; tasks resampled, both agents' completed "
                            "runs on each drawn task kept). {a:text} is ahead in {ahead:pct} of the replicates.", v))
            if self.undefined_replicates:
                out.append(Fact("{n:count|replicate was|replicates were} left out: one of the two had no completed "
                                "run on the tasks drawn.", {"n": self.undefined_replicates}))
            if not len(self.tasks):
                out.append(Fact("{a:text} and {b:text} share no task with a known outcome, so pairing by task removes "
                                "nothing they have in common: each drawn task gives runs to one of them only, and the "
                                "interval is as wide as for two unrelated samples.", v))
        if len(self.tasks):
            out.append(Fact("On the {shared:count} tasks both attempted, the success rate differs by {mean:pp} on "
                            "average ({a:text} minus {b:text}); {only_a:count} are solved only by {a:text}, "
                            "{only_b:count} only by {b:text}.", v))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "score_a": self.score_a, "score_b": self.score_b,
                "score_delta": self.score_delta, "components": _records(self.components),
                "tasks": _records(self.tasks), "mean_task_difference": self.mean_task_difference,
                "solved_only_by_a": list(self.solved_only_by_a), "solved_only_by_b": list(self.solved_only_by_b),
                "tasks_only_a": list(self.tasks_only_a), "tasks_only_b": list(self.tasks_only_b),
                "interval": None if self.interval is None else self.interval.to_json(),
                "share_a_ahead": self.share_a_ahead,
                "independent_interval": (None if self.independent_interval is None
                                         else self.independent_interval.to_json()),
                "bootstrap": {"replicates": self.replicates, "seed": self.seed, "confidence": self.confidence,
                              "undefined_replicates": self.undefined_replicates,
                              "design": "paired by task: tasks resampled with replacement, both agents' completed "
                                        "runs on each drawn task kept, the difference taken per replicate",
                              "independent_design": "each agent's completed runs resampled independently (the "
                                                    "Leaderboard's replicates); replicate i minus replicate i"},
                "facts": [str(f) for f in self.facts()]}


def compare(runs: pd.DataFrame, a: str, b: str, policy: Policy = CANONICAL_POLICY, *,
            replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
            confidence: float = DEFAULT_CONFIDENCE, bootstrap: bool = True) -> Comparison:
    """Agent ``a`` against agent ``b`` (deltas are a minus b), deterministic for a seed.

    ``bootstrap=False``: no intervals (``interval``, ``share_a_ahead`` and ``independent_interval`` None), only the
    parts whose work is the runs' (the bootstrap's is replicates x runs).
    KeyError for an agent with no run; ValueError for replicates below 1 or a confidence outside (0, 1).
    """
    if replicates < 1:
        raise ValueError("replicates must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    rows = {x: agent_rows(runs, x) for x in (a, b)}
    heads = {x: headline_scores(rows[x], policy)[x] for x in (a, b)}
    points = {x: points_lost(heads[x]) for x in (a, b)}
    comp = []
    for name in COMPONENTS:
        pa, pb = points[a], points[b]
        ea = None if pa is None else pa.component(name).earned
        eb = None if pb is None else pb.component(name).earned
        comp.append({"name": name, "earned_a": ea, "earned_b": eb,
                     "difference": None if ea is None or eb is None else ea - eb})
    components = pd.DataFrame(comp, columns=["name", "earned_a", "earned_b", "difference"])
    matrix = {x: task_matrix(rows[x], policy).set_index("task_id") for x in (a, b)}
    attempted = {x: set(matrix[x].index[matrix[x]["outcomes"] > 0]) for x in (a, b)}
    shared = sorted(attempted[a] & attempted[b])
    tasks = pd.DataFrame({
        "task_id": pd.array(shared, dtype="str"),
        "outcomes_a": matrix[a].loc[shared, "outcomes"].to_numpy(dtype=np.int64),
        "successes_a": matrix[a].loc[shared, "successes"].to_numpy(dtype=np.int64),
        "success_rate_a": matrix[a].loc[shared, "success_rate"].to_numpy(dtype=float),
        "outcomes_b": matrix[b].loc[shared, "outcomes"].to_numpy(dtype=np.int64),
        "successes_b": matrix[b].loc[shared, "successes"].to_numpy(dtype=np.int64),
        "success_rate_b": matrix[b].loc[shared, "success_rate"].to_numpy(dtype=float),
    })
    tasks["difference"] = tasks["success_rate_a"] - tasks["success_rate_b"]
    solved_a = tuple(tasks.loc[(tasks["successes_a"] > 0) & (tasks["successes_b"] == 0), "task_id"])
    solved_b = tuple(tasks.loc[(tasks["successes_b"] > 0) & (tasks["successes_a"] == 0), "task_id"])
    interval, ahead, independent, undefined = None, None, None, 0
    ha, hb = heads[a], heads[b]
    if bootstrap and ha.score is not None and hb.score is not None:
        observed = round(ha.score - hb.score, policy.score_decimals)
        completed = {x: rows[x][headline_cohort(rows[x])[0]] for x in (a, b)}
        # Paired by task: the tasks either agent completed a run on, resampled; both keep their runs on each.
        task_ids = pd.Index(sorted(set(completed[a]["task_id"].astype(str))
                                   | set(completed[b]["task_id"].astype(str))))
        chosen = {x: CompletedRuns(task_ids.get_indexer(completed[x]["task_id"].astype(str)),
                                   completed[x]["success"].to_numpy(dtype=bool, na_value=False),
                                   completed[x]["latency_ms"].to_numpy(dtype=float),
                                   completed[x]["cost_usd"].to_numpy(dtype=float)) for x in (a, b)}
        paired = paired_headline_replicates(chosen[a], chosen[b], len(task_ids), replicates=replicates,
                                            rng=np.random.default_rng([seed, 0x9A1ED]), policy=policy)
        difference = paired[0] - paired[1]
        defined = ~np.isnan(difference)
        undefined = int((~defined).sum())
        if defined.any():
            interval = percentile_interval(difference[defined], observed, confidence)
            ahead = float(np.mean(difference[defined] > 0))
        # Two-sample: the Leaderboard's own replicates (stream 0 of each agent's seed), replicate i minus i.
        draws = {x: headline_replicates(completed[x]["success"].to_numpy(dtype=bool, na_value=False),
                                        completed[x]["latency_ms"].to_numpy(dtype=float),
                                        completed[x]["cost_usd"].to_numpy(dtype=float), replicates=replicates,
                                        rng=_agent_rng(seed, x, 0), policy=policy) for x in (a, b)}
        independent = percentile_interval(draws[a] - draws[b], observed, confidence)
    delta = None if ha.score is None or hb.score is None else round(ha.score - hb.score, policy.score_decimals)
    return Comparison(a, b, ha.score, hb.score, delta, ha.weighted_score, hb.weighted_score, components, tasks,
                      solved_a, solved_b, tuple(sorted(attempted[a] - attempted[b])),
                      tuple(sorted(attempted[b] - attempted[a])), interval, ahead, replicates, seed, confidence,
                      independent, undefined)
