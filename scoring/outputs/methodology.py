"""The methodology as statements rendered from a policy: what the methodology page shows.

Each statement carries its provenance, so a reviewer sees at a glance which rules the
published page states and which are the explorer's own decisions (SPEC preamble).
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.contract.format import factor, score
from scoring.contract.policy import EXPLORER, PUBLISHED, Anchors, Policy, Provenance
from scoring.contract.rounding import TIE_WINDOW, published_round
from scoring.measures.axes import AXES
from scoring.measures.headline import Headline


@dataclass(frozen=True)
class Rule:
    section: str
    statement: str
    provenance: Provenance


def _pct(x: float) -> str:
    return f"{100 * x:g}%"


def headline_formula(policy: Policy) -> str:
    """The headline formula with the policy's weights and rounding."""
    return (f"score = round(100 × ({policy.success_weight:g} × success_rate + "
            f"{policy.execution_weight:g} × execution_score + {policy.cost_weight:g} × cost_score), "
            f"{policy.score_decimals})")


def execution_formula(policy: Policy) -> str:
    share = policy.latency_share_of_execution
    return f"execution_score = {share:g} × latency_score + {1 - share:g} × consistency"


def composite_provenance(policy: Policy) -> str:
    """Which of the composite's weights the published page states and which the explorer decided, in a sentence
    (the headline page says it beside the points: a 0.15 weight for latency and for consistency is the explorer's
    50/50 split, not the platform's).

    >>> from scoring.contract.policy import CANONICAL_POLICY
    >>> print(composite_provenance(CANONICAL_POLICY).replace(". ", ".\\n").replace("; ", ";\\n"))
    Weights 0.4 success, 0.3 execution, 0.3 cost: published.
    Execution split 0.5 latency score, 0.5 consistency: explorer-defined.
    Consistency = 1 − pstdev ÷ mean of the latencies: explorer-defined;
    below 5 latencies it is the neutral 0.5: explorer-defined.
    """
    p, share = policy, policy.latency_share_of_execution
    return (f"Weights {p.success_weight:g} success, {p.execution_weight:g} execution, {p.cost_weight:g} cost: "
            f"{p.provenance['success_weight']}. Execution split {share:g} latency score, {1 - share:g} consistency: "
            f"{p.provenance['latency_share_of_execution']}. Consistency = 1 − pstdev ÷ mean of the latencies: "
            f"{EXPLORER}; below {p.consistency_min_latencies} latencies it is the neutral {p.neutral_consistency:g}: "
            f"{p.provenance['neutral_consistency']}.")


def worked_formula(headline: Headline) -> str:
    """The headline formula with one agent's numbers filled in, step by step (factors to 4 decimals)."""
    p, h = headline.policy, headline
    parts = h.contributions()
    if parts is None or h.weighted_score is None:
        return headline_formula(p) + "\n      = no score: no completed run (unranked)"
    lines = [
        headline_formula(p),
        f"      = round(100 × ({p.success_weight:g} × {factor(h.success_rate)} + {p.execution_weight:g} × "
        f"{factor(h.execution_score)} + {p.cost_weight:g} × {factor(h.cost_score)}), {p.score_decimals})",
        f"      = round({factor(parts['success'])} + {factor(parts['execution'])} + {factor(parts['cost'])}, "
        f"{p.score_decimals}) = {score(published_round(h.weighted_score, p.score_decimals))}",
    ]
    if h.zero_success_floor:
        lines.append("zero-success floor → 0.00")
    return "\n".join(lines)


def anchor_rows(anchors: Anchors) -> list[tuple[float, float]]:
    """(position, score on 0-100) for each anchor."""
    return [(x, 100 * s) for x, s in zip(anchors.xs, anchors.scores)]


def rules(policy: Policy) -> list[Rule]:
    """Every rule of the methodology in words, with the policy's own numbers."""
    p = policy
    window = f"{TIE_WINDOW:g}".replace("e-0", "e-")  # 1e-9
    return [
        Rule("Headline composite", f"Weights: {_pct(p.success_weight)} success rate, {_pct(p.execution_weight)} "
             f"execution (latency and consistency), {_pct(p.cost_weight)} cost.", PUBLISHED),
        Rule("Headline composite", "Cohort: all completed runs of the agent, no rolling window. Failed, timed-out, "
             "cancelled, queued and running runs do not enter it.", PUBLISHED),
        Rule("Headline composite", "Success rate = successful completed runs ÷ all completed runs; a completed run "
             "with an unknown outcome counts in the denominator only.", EXPLORER),
        Rule("Headline composite", "Latency and cost scores map the cohort's average latency and average cost "
             "through the published anchors (straight lines between anchors, flat beyond the ends).", PUBLISHED),
        Rule("Headline composite", "No latency (or no cost) recorded in the cohort: that score is 0 and the "
             "agent is flagged.", EXPLORER),
        Rule("Headline composite", f"Consistency needs {p.consistency_min_latencies} completed runs; below that "
             "a neutral factor is used.", PUBLISHED),
        Rule("Headline composite", f"Consistency = clamp(1 − population std dev ÷ mean of the recorded latencies, "
             f"0, 1) (1 when the mean is 0); only runs with a recorded latency count toward the "
             f"{p.consistency_min_latencies}-run gate; the neutral factor is {p.neutral_consistency:g}.", EXPLORER),
        Rule("Headline composite", execution_formula(p) + ".", EXPLORER),
        Rule("Headline composite", headline_formula(p) + ".", PUBLISHED),
        Rule("Headline composite", f"Rounding (the score, every radar axis, the profile score): round(…, "
             f"{p.score_decimals}) of the exact value, a half to even as Python rounds it; a computed value within "
             f"{window} of a half-way point is read as that point (the arithmetic's own error is far smaller), so "
             "equal exact scores publish equal.", EXPLORER),
        Rule("Headline composite", "Zero-success floor: completed runs but no successful one gives a score of 0. "
             "Nothing else scales the score.", PUBLISHED),
        Rule("Headline composite", "No completed run: no headline score (unranked). Leaderboard order: score "
             "descending, then agent id ascending; unranked agents last.", EXPLORER),
        Rule("Fitness radar", f"Window: the latest {p.radar_window} terminal runs (completed, failed, timeout).",
             PUBLISHED),
        Rule("Fitness radar", "Newest first by finished_at, ties broken by run_id descending as text; a run "
             "without finished_at is the oldest; without the column, a later file row is newer.", EXPLORER),
        *(Rule("Fitness radar", statement(p), provenance) for axis in AXES for statement, provenance in axis.rules),
        Rule("Fitness radar", "Medians are ordinary medians (the mean of the two middle values for an even "
             f"count); every axis is on 0–100, rounded to {p.score_decimals} decimals.", EXPLORER),
        Rule("Fitness radar", f"Profile score: default weight {_pct(p.radar_weights['correctness'])} per axis; "
             "an unavailable axis is dropped and the rest renormalized. Viewer weights never change a headline "
             "score.", PUBLISHED),
        Rule("Repeatability", "pass^k(n, c) = C(c, k) ÷ C(n, k) for a task with n recorded outcomes and c "
             "successes; 0 when c < k.", PUBLISHED),
        Rule("Repeatability", f"Public levels k = {', '.join(str(k) for k in p.pass_k_levels)}; a task needs "
             f"at least {p.pass_k_min_outcomes} outcomes; the aggregate is the unweighted mean over qualifying "
             "tasks.", PUBLISHED),
        Rule("Repeatability", "Outcomes: every terminal run with a known outcome, no window; computed exactly "
             "(integer binomials), never by sampling.", EXPLORER),
    ]
