"""The full report (SPEC 6): all three measures for every agent, in leaderboard order."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import pandas as pd

from . import format as fmt
from ._groups import agent_groups
from .axes import RADAR_AXES
from .headline import Headline, headline_scores, leaderboard_order
from .policy import CANONICAL_POLICY, Policy
from .radar import Radar, check_weights, fitness_radar
from .repeatability import Repeatability, repeatability

if TYPE_CHECKING:
    from .explain import Explanation

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
    # The report (with its runs) this agent was scored in, when scoring.score made it: explain() reads it.
    source: Report | None = field(default=None, repr=False, compare=False)

    def to_json(self, weights: Mapping[str, float] | None = None) -> dict:
        return {
            "agent_id": self.agent_id,
            "headline": self.headline.to_json(),
            "radar": self.radar.to_json(weights),
            "repeatability": self.repeatability.to_json(),
        }

    def explain(self) -> Explanation:
        """Where this agent's headline points went, what overtakes the agent above, which tasks and runs cost
        points (:func:`scoring.explain.explain`); needs the runs, which :func:`scoring.score` keeps."""
        from .explain import explain

        if self.source is None or self.source.runs is None:
            raise ValueError(f"explain() needs the runs behind {self.agent_id!r}: score them with scoring.score(...)")
        return explain(self.source.runs, self.agent_id, report=self.source)

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

    def to_csv_text(self) -> str:
        """The flat report as CSV, with text cells neutralized against spreadsheet formula injection."""
        frame = self.to_frame()
        for column in ("agent_id", "flags"):
            frame[column] = frame[column].map(neutralize_cell)
        return frame.to_csv(index=False)

    def leaderboard(self) -> pd.DataFrame:
        """The leaderboard: rank, agent, headline score and its factors, profile score, pass^k and flags, one row
        per agent in leaderboard order (numbers as numbers; ``to_frame()`` has every field)."""
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
        rows = []
        for a in self.agents:
            h, r, p = a.headline, a.radar, a.repeatability
            profile = r.profile(self.weights)
            row: dict[str, object] = {"rank": a.rank, "agent_id": a.agent_id}
            row.update({f"headline_{k}": v for k, v in h.to_json().items()})
            row["flags"] = "; ".join(h.flags)
            row["radar_window_runs"] = r.window_runs
            row.update({f"radar_{axis}": r.axes[axis] for axis in RADAR_AXES})
            row.update({"radar_p50_latency_ms": r.p50_latency_ms, "radar_p50_cost_usd": r.p50_cost_usd,
                        "radar_p50_steps": r.p50_steps, "radar_robustness_tasks": r.robustness_tasks,
                        "radar_profile_score": profile.score})
            row["repeatability_qualifying_tasks"] = p.qualifying_tasks
            for k in p.levels:
                row[f"pass^{k}"] = None if p.pass_k is None else p.pass_k[k]
            rows.append(row)
        frame = pd.DataFrame(rows)
        if "rank" in frame:
            frame["rank"] = frame["rank"].astype("Int64")
        return frame


def score_runs(runs: pd.DataFrame, policy: Policy = CANONICAL_POLICY,
               weights: Mapping[str, float] | None = None, levels: Sequence[int] | None = None) -> Report:
    """Score a canonical runs frame: headline (SPEC 3), radar (SPEC 4) and pass^k (SPEC 5) for every agent.

    ``levels`` reports other pass^k levels than the policy's (SPEC 5: same rule, any levels).
    """
    groups = agent_groups(runs)
    return assemble_report(headline_scores(runs, policy, groups), fitness_radar(runs, policy, groups),
                           repeatability(runs, policy, groups, levels), policy, weights)


def assemble_report(headlines: dict[str, Headline], radars: dict[str, Radar], repeat: dict[str, Repeatability],
                    policy: Policy = CANONICAL_POLICY, weights: Mapping[str, float] | None = None) -> Report:
    """The report from per-agent results of any engine, in leaderboard order."""
    weights = check_weights(weights, policy)
    order = leaderboard_order(headlines)
    agents = tuple(
        AgentReport(a, i + 1 if headlines[a].ranked else None, headlines[a], radars[a], repeat[a])
        for i, a in enumerate(order)
    )
    return Report(policy, agents, weights)
