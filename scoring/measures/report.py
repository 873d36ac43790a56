"""The full report (SPEC 6): all three measures for every agent, in leaderboard order."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from scoring.contract import format as fmt
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.contract.schema import COMPLETED, TERMINAL_STATUSES
from scoring.measures._groups import agent_groups
from scoring.measures.axes import RADAR_AXES
from scoring.measures.headline import Headline, headline_scores, leaderboard_order
from scoring.measures.radar import Radar, check_weights, fitness_radar
from scoring.measures.repeatability import Repeatability, repeatability

# pandas is imported by the functions that build or read a frame: a report from an engine's aggregates
# (--engine sql) never loads it.
if TYPE_CHECKING:
    import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralize_cell(value: object) -> object:
    """Prefix a text cell a spreadsheet would run as a formula with a quote (OWASP CSV injection)."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


@dataclass(frozen=True)
class AgentReport:
    agent_id: str
    rank: int | None
    headline: Headline
    radar: Radar
    repeatability: Repeatability
    harness: Any = None  # scoring.load.importers.reading.HarnessReading for an agent imported from a harness
    cost_estimated: bool = False  # its cost_usd was estimated from tokens (--prices), not recorded
    # The report (with its runs) this agent was scored in, and the analysis that explains it, when scoring.score
    # made it (scoring.analysis.notebook hands both over: this layer imports nothing of the analysis).
    source: Report | None = field(default=None, repr=False, compare=False)
    explainer: Callable[..., Any] | None = field(default=None, repr=False, compare=False)

    def notes(self) -> list[str]:
        """What a reader must know beside the numbers, in words: no outcome, runs left out, why pass^k is
        missing, and the harness's own reading (labelled, never the canonical score)."""
        h, out = self.headline, []
        if h.no_outcome:
            out.append(f"no outcome recorded: none of its {h.completed_runs:,} completed runs has a known outcome, "
                       "so its 0.00 (zero-success floor) measures nothing")
        words = h.left_out_words()
        if words:
            if self.harness is not None and self.harness.success_rate is not None:
                words += f"; beside it, {harness_rule(self.harness)}"
            out.append(words)
        p = h.policy
        if self.cost_estimated:
            out.append("cost ESTIMATED from token counts and --prices (not recorded by the harness): its avg cost "
                       f"{'$' + format(h.avg_cost_usd, ',.4f') if h.avg_cost_usd is not None else '—'} and cost "
                       "score rest on those prices")
        if h.ranked and h.cost_runs == 0:
            out.append(f"no cost recorded: its cost score is 0, which can cost it up to {100 * p.cost_weight:.2f} "
                       "headline points")
        if h.ranked and h.latency_runs == 0:
            share = 100 * p.execution_weight * p.latency_share_of_execution
            out.append(f"no latency recorded: its latency score is 0, which can cost it up to {share:.2f} headline "
                       "points")
        reason = self.repeatability.missing_reason()
        if reason:
            out.append(reason)
        rep = self.repeatability
        if self.harness is not None and reason is None and rep.excluded_tasks and self.harness.pass_k:
            # Beside a harness's pass^k over every task it read: why the canonical one reads fewer (a reviewer's
            # tau-bench file, canonical pass^1 over 1 task beside tau-bench's over 3, said nothing).
            need = p.pass_k_min_outcomes
            have = "has" if rep.excluded_tasks == 1 else "have"
            out.append(f"pass^k over {rep.qualifying_tasks:,} of {rep.qualifying_tasks + rep.excluded_tasks:,} tasks: "
                       f"{rep.excluded_tasks:,} {have} fewer than {need} outcomes (published minimum), where "
                       f"{self.harness.name} averages every task it read")
        if self.harness is not None:
            out.append(harness_words(self.harness))
        return out

    def to_json(self, weights: Mapping[str, float] | None = None) -> dict:
        out: dict[str, Any] = {
            "agent_id": self.agent_id,
            "headline": self.headline.to_json(),
            "radar": self.radar.to_json(weights),
            "repeatability": self.repeatability.to_json(),
        }
        if self.harness is not None:
            out["harness"] = self.harness.to_json()
        if self.cost_estimated:
            out["cost_estimated"] = True  # avg_cost_usd and cost_score rest on --prices, not on recorded costs
        return out

    def explain(self) -> Any:
        """Where this agent's headline points went, what overtakes the agent above, which tasks and runs cost
        points (:func:`scoring.analysis.explain.explain`, an ``Explanation``); needs the runs, which
        :func:`scoring.score` keeps."""
        if self.source is None or self.source.runs is None or self.explainer is None:
            raise ValueError(f"explain() needs the runs behind {self.agent_id!r}: score them with scoring.score(...)")
        return self.explainer(self.source.runs, self.agent_id, report=self.source)

    def _repr_html_(self) -> str:
        h, d = self.headline, self.headline.policy.score_decimals
        rank = "unranked" if self.rank is None else f"rank {self.rank}"
        rows = [("headline score", fmt.score(h.score, d)), ("success rate", fmt.pct2(h.success_rate)),
                ("execution", fmt.factor(h.execution_score)), ("cost", fmt.factor(h.cost_score)),
                ("completed runs", fmt.count(h.completed_runs)),
                *((f"radar: {axis}", fmt.score(v, d)) for axis, v in self.radar.axes.items()),
                *((f"pass^{k}", fmt.pct2(None if self.repeatability.pass_k is None else self.repeatability.pass_k[k]))
                  for k in self.repeatability.levels)]
        body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
        return (f"<p><b>{html.escape(self.agent_id)}</b>: {rank} (policy {html.escape(h.policy.version)})</p>"
                f"<table>{body}</table>")


def _success_words(reading: Any) -> str:
    """The harness's success figure, named as it names it: Inspect's and terminal-bench's accuracy; for tau2-bench
    and tau-bench (which print the average reward) the share of runs whose reward is 1 (SPEC 6's success_rate)."""
    if reading.name in ("Inspect", "terminal-bench"):
        return f"accuracy {fmt.pct(reading.success_rate)}"
    return f"success (reward 1) {fmt.pct(reading.success_rate)}"


def harness_rule(reading: Any) -> str:
    """Why a harness's success figure differs from the published rule's, in words, with that figure.

    Examples
    --------
    >>> from scoring.load.importers import HarnessReading
    >>> harness_rule(HarnessReading("tau-bench", 0.6, {}, None, 20))
    'tau-bench reads every trial, an errored one as a failure (reward 0): success (reward 1) 60.00%'
    """
    from scoring.load.importers.reading import HARNESS_RULES

    rule = HARNESS_RULES.get(reading.name, "reads its runs by its own rules")
    return f"{reading.name} {rule}: {_success_words(reading)}"


def harness_words(reading: Any) -> str:
    """A harness reading in one line, labelled as the harness's own (not the canonical score).

    Examples
    --------
    >>> from scoring.load.importers import HarnessReading
    >>> harness_words(HarnessReading("tau2-bench", 0.55, {1: 0.55, 2: 0.4}, 0.5134, 20, {"avg_reward": 0.6})
    ...               ).split(": ")[1]
    'average reward 0.6000, success (reward 1) 55.00%, pass^1 55.00%, pass^2 40.00%, avg cost $0.5134 over 20 runs'
    >>> harness_words(HarnessReading("tau2-bench", 1.0, {}, 1e300, 2)).split(", ")[-1]  # a hostile file's cost
    'avg cost $1.0000e+300 over 2 runs'
    >>> harness_words(HarnessReading("Inspect", 0.6, {}, None, 19, {"samples": 5})).split(": ")[1]
    'accuracy 60.00% over 5 samples (19 scored epochs)'
    >>> harness_words(HarnessReading("tau-bench", 0.5, {}, None, 8, {"pooled_files": 2})).split(" runs, ")[1]
    'pooled from 2 files by the explorer (explorer-defined: the harness reads one at a time)'
    """
    reward = reading.detail.get("avg_reward")
    parts = [f"average reward {reward:.4f}"] if isinstance(reward, float) else []
    parts.append(_success_words(reading) if reading.success_rate is not None else "no success rate (no scorer ran)")
    # Every rate spelt alike, as the tables spell it (a percentage, two decimals): before, "success 40.00%, pass^1
    # 0.4000" in one line, and 33.33% on the page below for the 0.3333 here.
    parts += [f"pass^{k} {fmt.pct2(v)}" for k, v in reading.pass_k.items()]
    pass_at = reading.detail.get("pass_at_k") or {}
    parts += [f"pass@{k} {fmt.pct2(v)}" for k, v in pass_at.items()]
    if reading.avg_cost_usd is not None:
        parts.append(f"avg cost {fmt.usd(reading.avg_cost_usd)}")  # money spelt once (fmt.usd)
    reducer = reading.detail.get("reducer")
    if reducer not in (None, "mean"):
        parts.append(f"epochs reduced by {reducer}")
    if reading.detail.get("reducer_note"):
        parts.append(str(reading.detail["reducer_note"]))
    samples = reading.detail.get("samples")
    epochs = fmt.counted(reading.runs, "scored epoch", "scored epochs")
    over = (f"over {fmt.counted(int(samples), 'sample', 'samples')} ({epochs})" if isinstance(samples, int)
            else f"over {fmt.counted(reading.runs, 'run', 'runs')}")
    pooled = reading.detail.get("pooled_files")
    tail = (f", pooled from {pooled} files by the explorer (explorer-defined: the harness reads one at a time)"
            if isinstance(pooled, int) else "")
    return f"{reading.name}'s own reading (its rules, not the canonical score): {', '.join(parts)} {over}{tail}"


@dataclass(frozen=True)
class Report:
    """Every agent's headline, radar and repeatability, in leaderboard order."""

    policy: Policy
    agents: tuple[AgentReport, ...]
    weights: dict[str, float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    runs: pd.DataFrame | None = field(default=None, repr=False, compare=False)  # kept by scoring.score

    @property
    def levels(self) -> tuple[int, ...]:
        """The pass^k levels reported (the policy's unless others were asked for)."""
        return self.agents[0].repeatability.levels if self.agents else self.policy.pass_k_levels

    @cached_property
    def _by_id(self) -> dict[str, AgentReport]:
        return {a.agent_id: a for a in self.agents}

    def agent(self, agent_id: str) -> AgentReport:
        """One agent's report (KeyError for an agent not in the report)."""
        return self._by_id[agent_id]

    def to_json(self) -> dict:
        return {
            "policy_version": self.policy.version,
            "agents": [a.to_json(self.weights) for a in self.agents],
        }

    def to_json_text(self) -> str:
        # allow_nan=False: an undefined value must be null, never NaN (SPEC 6).
        return json.dumps(self.to_json(), indent=2, allow_nan=False) + "\n"

    def csv_frame(self) -> pd.DataFrame:
        """``to_frame()`` as a CSV file carries it: the flags as the JSON's stable codes (SPEC 6; the frame has their
        words), true and false spelt as the JSON spells them (pandas writes True), text cells neutralized against
        spreadsheet formula injection."""
        import numpy as np

        frame = self.to_frame()
        frame["flags"] = ["; ".join(a.headline.flag_codes) for a in self.agents]
        for column in frame.columns:
            if frame[column].map(lambda v: isinstance(v, (bool, np.bool_))).any():
                frame[column] = frame[column].map(lambda v: str(bool(v)).lower() if isinstance(v, (bool, np.bool_))
                                                  else v).astype(object)
        for column in ("agent_id", "flags"):
            frame[column] = frame[column].map(neutralize_cell)
        return frame

    def to_csv_text(self, excluded_rows: int | None = None) -> str:
        """The flat report as CSV (:meth:`csv_frame`); with ``excluded_rows`` (scores computed without the invalid
        rows, which SPEC 1 says are counted), a first column gives that count on every row."""
        frame = self.csv_frame()
        if excluded_rows is not None:
            frame.insert(0, "excluded_rows", excluded_rows)
        return frame.to_csv(index=False)

    def leaderboard(self) -> pd.DataFrame:
        """The leaderboard: rank, agent, headline score and its factors, profile score, pass^k and flags, one row
        per agent in leaderboard order (numbers as numbers; ``to_frame()`` has every field)."""
        import pandas as pd

        columns = {"rank": "rank", "agent_id": "agent", "headline_score": "score",
                   "headline_success_rate": "success_rate", "headline_execution_score": "execution",
                   "headline_cost_score": "cost", "headline_completed_runs": "completed_runs",
                   "radar_profile_score": "profile_score", **{f"pass^{k}": f"pass^{k}" for k in self.levels},
                   "flags": "flags"}
        if not self.agents:
            return pd.DataFrame(columns=list(columns.values()))
        return self.to_frame()[list(columns)].rename(columns=columns)

    def _repr_html_(self) -> str:
        """The leaderboard in Jupyter, numbers formatted as the app shows them."""
        import pandas as pd

        board = self.leaderboard().astype(object)
        d = self.policy.score_decimals
        formats = {"score": lambda v: fmt.score(v, d), "profile_score": lambda v: fmt.score(v, d),
                   "success_rate": fmt.pct2, "execution": fmt.factor, "cost": fmt.factor,
                   "completed_runs": fmt.count, "rank": fmt.count,
                   **{f"pass^{k}": fmt.pct2 for k in self.levels}}
        for column, f in formats.items():
            board[column] = [fmt.DASH if v is None or v is pd.NA or v != v else f(v) for v in board[column]]
        caption = (f"<p>Policy <code>{html.escape(self.policy.version)}</code>: {len(self.agents):,} agent(s); "
                   "<code>.leaderboard()</code> and <code>.to_frame()</code> give the numbers.</p>")
        return caption + board.to_html(index=False, escape=True, na_rep=fmt.DASH)

    def to_frame(self) -> pd.DataFrame:
        """One flat row per agent: the CSV/table form of the report."""
        import pandas as pd

        rows = []
        for a in self.agents:
            h, r, p = a.headline, a.radar, a.repeatability
            profile = r.profile(self.weights)
            row: dict[str, object] = {"rank": a.rank, "agent_id": a.agent_id}
            row.update({f"headline_{k}": v for k, v in h.to_json().items() if k not in ("left_out", "flags")})
            row["headline_left_out_runs"] = h.left_out.runs
            row["headline_left_out_cost_usd"] = h.left_out.cost_usd
            row["flags"] = "; ".join(h.flags)
            row["radar_window_runs"] = r.window_runs
            row.update({f"radar_{axis}": r.axes[axis] for axis in RADAR_AXES})
            row.update({"radar_p50_latency_ms": r.p50_latency_ms, "radar_p50_cost_usd": r.p50_cost_usd,
                        "radar_p50_steps": r.p50_steps, "radar_robustness_tasks": r.robustness_tasks,
                        "radar_profile_score": profile.score})
            row["repeatability_qualifying_tasks"] = p.qualifying_tasks
            row["repeatability_tasks_below_min_outcomes"] = p.tasks_below_min_outcomes
            for k in p.levels:
                row[f"pass^{k}"] = None if p.pass_k is None else p.pass_k[k]
            rows.append(row)
        frame = pd.DataFrame(rows)
        if "rank" in frame:
            frame["rank"] = frame["rank"].astype("Int64")
        return frame


def score_runs(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
               weights: Mapping[str, float] | None = None, levels: Sequence[int] | None = None,
               harness: Mapping[str, Any] | None = None, estimated_cost: Sequence[str] = ()) -> Report:
    """Score a canonical runs frame: headline (SPEC 3), radar (SPEC 4) and pass^k (SPEC 5) for every agent.

    ``levels`` reports other pass^k levels than the policy's (SPEC 5: same rule, any levels).
    ``harness`` (``LoadedRuns.harness``) adds each imported agent's harness reading, beside the canonical numbers;
    ``estimated_cost`` (``LoadedRuns.estimated_cost``) labels the agents whose cost was estimated from tokens.
    """
    groups = agent_groups(runs)
    return assemble_report(headline_scores(runs, policy, groups), fitness_radar(runs, policy, groups),
                           repeatability(runs, policy, groups, levels), policy, weights, harness, estimated_cost)


def assemble_report(headlines: dict[str, Headline], radars: dict[str, Radar], repeat: dict[str, Repeatability],
                    policy: Policy = CANONICAL_POLICY, weights: Mapping[str, float] | None = None,
                    harness: Mapping[str, Any] | None = None, estimated_cost: Sequence[str] = ()) -> Report:
    """The report from per-agent results of any engine, in leaderboard order."""
    weights = check_weights(weights, policy)
    order = leaderboard_order(headlines)
    harness = harness or {}
    agents = tuple(
        AgentReport(a, i + 1 if headlines[a].ranked else None, headlines[a], radars[a], repeat[a], harness.get(a),
                    a in estimated_cost)
        for i, a in enumerate(order)
    )
    return Report(policy, agents, weights)


UNSEEN_COLUMNS = ("agent_id", "terminal_runs", "left_out_runs", "left_out_share", "left_out_cost_usd",
                  "left_out_spend_share", "headline_score", "headline_rank", "counted_score", "counted_rank",
                  "rank_depends")


def unseen_reading(runs: pd.DataFrame, report: Report) -> pd.DataFrame:
    """What the headline does not see, per agent: a reading for reviewers, never the canonical number.

    Columns (:data:`UNSEEN_COLUMNS`): the agent's terminal runs, the runs and spend the published rule
    leaves out (failed and timed-out runs) and their shares, the canonical score and rank, the score
    and rank if those runs counted as unsuccessful completed runs (with their latency and cost), and
    whether the agent's rank depends on that choice.

    Examples
    --------
    >>> from scoring import runs_from_records
    >>> rows = [{"run_id": f"a{i}", "agent_id": "a", "task_id": "t", "status": "completed", "success": True,
    ...          "latency_ms": 800, "cost_usd": 0.01} for i in range(2)]
    >>> rows += [{"run_id": f"a{i}x", "agent_id": "a", "task_id": "t", "status": "timeout", "success": None,
    ...           "latency_ms": 9000, "cost_usd": 0.2} for i in range(2)]
    >>> rows += [{"run_id": f"b{i}", "agent_id": "b", "task_id": "t", "status": "completed", "success": i < 3,
    ...           "latency_ms": 800, "cost_usd": 0.01} for i in range(4)]
    >>> runs = runs_from_records(rows)
    >>> unseen_reading(runs, score_runs(runs))[["agent_id", "headline_rank", "counted_rank", "rank_depends"]]
      agent_id  headline_rank  counted_rank  rank_depends
    0        a              1             2          True
    1        b              2             1          True
    """
    import pandas as pd

    counted_runs = runs.copy()
    left = runs["status"].isin([s for s in TERMINAL_STATUSES if s != COMPLETED]).to_numpy()
    if left.any():
        counted_runs.loc[left, "success"] = False
        counted_runs.loc[left, "status"] = COMPLETED
    counted = score_runs(counted_runs, report.policy) if left.any() else report
    rows = []
    for a in report.agents:
        h = a.headline
        other = counted.agent(a.agent_id)
        rows.append({
            "agent_id": a.agent_id, "terminal_runs": h.terminal_runs, "left_out_runs": h.left_out.runs,
            "left_out_share": h.left_out.runs / h.terminal_runs if h.terminal_runs else None,
            "left_out_cost_usd": h.left_out.cost_usd,
            "left_out_spend_share": h.left_out_spend_share,
            "headline_score": h.score, "headline_rank": a.rank,
            "counted_score": other.headline.score, "counted_rank": other.rank,
            "rank_depends": a.rank != other.rank,
        })
    frame = pd.DataFrame(rows, columns=list(UNSEEN_COLUMNS))
    for column in ("headline_rank", "counted_rank"):
        frame[column] = frame[column].astype("Int64")
    return frame
