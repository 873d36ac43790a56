"""Scoring core of the Scoring Methodology Explorer (pure Python; never imports streamlit).

Names follow the methodology: ``*_score`` is higher-is-better on its stated scale. Every function
takes a :class:`~scoring.contract.policy.Policy`, defaulting to :data:`~scoring.contract.policy.CANONICAL_POLICY`
(``2026-07-zero-success-v1``). Each measure is an aggregate step (``*_aggregates``: per-agent
sufficient statistics, which any engine can supply) and a compute step (``*_from_aggregates``).
"""

from typing import TYPE_CHECKING

from scoring.contract.lazy import lazy_names

# Where each public name lives. They are imported when first asked for (PEP 562), so ``import scoring`` costs
# nothing, and a process that scores with an engine of its own (``report --engine sql``: DuckDB, no frame) never
# loads pandas (a third of a second of a one-file report).
_HOMES = {
    "scoring.contract.policy": ("CANONICAL_POLICY", "Anchors", "Policy"),
    "scoring.contract.resources": ("SAMPLE_RUNS",),
    "scoring.contract.problems": ("Problem", "RunsValidationError"),
    "scoring.load.runs": ("LoadedRuns", "load_runs", "runs_from_records", "validate_runs"),
    "scoring.measures.axes": ("AXES", "RADAR_AXES"),
    "scoring.measures.headline": ("Headline", "composite", "headline_scores", "leaderboard_order"),
    "scoring.measures.radar": ("Profile", "Radar", "check_weights", "fitness_radar", "profile_score"),
    "scoring.measures.repeatability": ("Repeatability", "pass_hat_k", "repeatability", "task_outcomes"),
    "scoring.measures.report": ("AgentReport", "Report", "score_runs"),
    # It brings the importers and the analyses (explain, diff), which a report and the app's loader do not need.
    "scoring.analysis.notebook": ("score",),
}
_HOME, __getattr__, __dir__ = lazy_names("scoring", _HOMES, globals())

# Every public name: the keys of _HOME (tests/test_layers.py checks the two agree).
__all__ = [
    "AXES",
    "CANONICAL_POLICY",
    "RADAR_AXES",
    "SAMPLE_RUNS",
    "AgentReport",
    "Anchors",
    "Headline",
    "LoadedRuns",
    "Policy",
    "Problem",
    "Profile",
    "Radar",
    "Repeatability",
    "Report",
    "RunsValidationError",
    "check_weights",
    "composite",
    "fitness_radar",
    "headline_scores",
    "leaderboard_order",
    "load_runs",
    "pass_hat_k",
    "profile_score",
    "repeatability",
    "runs_from_records",
    "score",
    "score_runs",
    "task_outcomes",
    "validate_runs",
]

if TYPE_CHECKING:
    from scoring.analysis.notebook import score
    from scoring.contract.policy import CANONICAL_POLICY, Anchors, Policy
    from scoring.contract.problems import Problem, RunsValidationError
    from scoring.contract.resources import SAMPLE_RUNS
    from scoring.load.runs import LoadedRuns, load_runs, runs_from_records, validate_runs
    from scoring.measures.axes import AXES, RADAR_AXES
    from scoring.measures.headline import Headline, composite, headline_scores, leaderboard_order
    from scoring.measures.radar import Profile, Radar, check_weights, fitness_radar, profile_score
    from scoring.measures.repeatability import Repeatability, pass_hat_k, repeatability, task_outcomes
    from scoring.measures.report import AgentReport, Report, score_runs
