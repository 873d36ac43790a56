"""The scoring policy: the only place a number of the methodology lives.

Every constant carries its provenance: ``published`` when the methodology page
(policy ``2026-07-zero-success-v1``) states it, ``explorer-defined`` when
SHARED SPEC.md decides where the page is silent. Scoring functions take a
:class:`Policy` argument whose default is :data:`CANONICAL_POLICY`, so a
sandbox policy is just another value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Provenance = Literal["published", "explorer-defined"]
PUBLISHED: Provenance = "published"
EXPLORER: Provenance = "explorer-defined"

RADAR_AXES: tuple[str, ...] = ("correctness", "latency", "cost", "tool_efficiency", "robustness")


@dataclass(frozen=True)
class Anchors:
    """A clamped piecewise-linear map from a raw value to a 0-1 score (SPEC 2).

    Parameters
    ----------
    name : str
        What is mapped, e.g. ``"latency_ms"``.
    xs, scores : tuple of float
        Anchor positions (strictly increasing) and their scores in [0, 1].
    unit : str
        Unit of ``xs`` for display.
    provenance : {"published", "explorer-defined"}

    Examples
    --------
    >>> CANONICAL_POLICY.latency_anchors(1250.0)
    0.9
    """

    name: str
    xs: tuple[float, ...]
    scores: tuple[float, ...]
    unit: str
    provenance: Provenance

    def __post_init__(self) -> None:
        if len(self.xs) != len(self.scores) or len(self.xs) < 2:
            raise ValueError(f"{self.name}: need at least two anchors with one score each")
        if any(b <= a for a, b in zip(self.xs, self.xs[1:])):
            raise ValueError(f"{self.name}: anchor positions must be strictly increasing")
        if any(not 0.0 <= s <= 1.0 for s in self.scores):
            raise ValueError(f"{self.name}: anchor scores must lie in [0, 1]")

    def __call__(self, value):
        """Map ``value`` (scalar or array) to 0-1; clamps below the first and above the last anchor."""
        # np.interp is exactly SPEC 2: straight lines between anchors, the
        # first/last score outside the anchor range.
        out = np.interp(value, self.xs, self.scores)
        return float(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True)
class Constant:
    """A named constant of the policy with its provenance, for display."""

    name: str
    value: object
    provenance: Provenance
    meaning: str


@dataclass(frozen=True)
class Policy:
    """Every constant of one scoring policy (SPEC 2-5).

    Frozen: a changed constant is a new ``Policy`` (``dataclasses.replace``).
    """

    version: str
    # Headline composite (SPEC 3)
    success_weight: float
    execution_weight: float
    cost_weight: float
    latency_share_of_execution: float
    consistency_min_latencies: int
    neutral_consistency: float
    score_decimals: int
    latency_anchors: Anchors
    cost_anchors: Anchors
    # Fitness radar (SPEC 4)
    steps_anchors: Anchors
    radar_window: int
    radar_latency_min_runs: int
    robustness_min_outcomes: int
    default_radar_weights: tuple[tuple[str, float], ...]
    # Repeatability (SPEC 5)
    pass_k_levels: tuple[int, ...]
    pass_k_min_outcomes: int
    provenance: dict[str, Provenance] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        total = self.success_weight + self.execution_weight + self.cost_weight
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"headline weights must sum to 1, got {total}")
        if not 0.0 <= self.latency_share_of_execution <= 1.0:
            raise ValueError("latency_share_of_execution must lie in [0, 1]")
        if self.radar_window < 1 or self.consistency_min_latencies < 1:
            raise ValueError("radar_window and consistency_min_latencies must be at least 1")
        if {a for a, _ in self.default_radar_weights} != set(RADAR_AXES):
            raise ValueError(f"default_radar_weights must name exactly {RADAR_AXES}")

    @property
    def radar_weights(self) -> dict[str, float]:
        """Default viewer weights as a dict, in axis order."""
        return dict(self.default_radar_weights)

    def constants(self) -> list[Constant]:
        """Every scalar constant with its provenance and meaning, for the methodology page."""
        p = self.provenance
        rows = [
            ("success_weight", self.success_weight, "Headline weight of the success rate"),
            ("execution_weight", self.execution_weight, "Headline weight of execution (latency and consistency)"),
            ("cost_weight", self.cost_weight, "Headline weight of the cost score"),
            ("latency_share_of_execution", self.latency_share_of_execution,
             "Share of the execution score taken by the latency score; consistency takes the rest"),
            ("consistency_min_latencies", self.consistency_min_latencies,
             "Completed runs with a recorded latency needed before consistency is measured"),
            ("neutral_consistency", self.neutral_consistency,
             "Consistency factor used below that gate"),
            ("score_decimals", self.score_decimals, "Decimals the headline score and radar axes are rounded to"),
            ("radar_window", self.radar_window, "Latest terminal runs read by the fitness radar"),
            ("radar_latency_min_runs", self.radar_latency_min_runs,
             "Latencies needed in the window before the radar latency axis is shown"),
            ("robustness_min_outcomes", self.robustness_min_outcomes,
             "Known outcomes a task needs to enter the robustness axis"),
            ("default_radar_weight", self.radar_weights["correctness"],
             "Default viewer weight of each radar axis"),
            ("pass_k_levels", self.pass_k_levels, "Public pass^k levels"),
            ("pass_k_min_outcomes", self.pass_k_min_outcomes,
             "Known outcomes a task needs to enter the repeatability report"),
        ]
        return [Constant(name, value, p[name], meaning) for name, value, meaning in rows]


CANONICAL_POLICY = Policy(
    version="2026-07-zero-success-v1",
    success_weight=0.40,
    execution_weight=0.30,
    cost_weight=0.30,
    latency_share_of_execution=0.5,
    consistency_min_latencies=5,
    neutral_consistency=0.5,
    score_decimals=2,
    latency_anchors=Anchors("latency_ms", (500.0, 2000.0, 5000.0, 10000.0), (1.0, 0.8, 0.5, 0.0), "ms", PUBLISHED),
    cost_anchors=Anchors("cost_usd", (0.001, 0.01, 0.05, 0.1, 0.2), (1.0, 0.8, 0.5, 0.2, 0.0), "USD", PUBLISHED),
    steps_anchors=Anchors("steps", (2.0, 5.0, 10.0, 20.0, 40.0), (1.0, 0.8, 0.5, 0.2, 0.0), "steps", EXPLORER),
    radar_window=100,
    radar_latency_min_runs=5,
    robustness_min_outcomes=2,
    default_radar_weights=tuple((axis, 0.20) for axis in RADAR_AXES),
    pass_k_levels=(1, 3, 5),
    pass_k_min_outcomes=3,
    provenance={
        "success_weight": PUBLISHED,
        "execution_weight": PUBLISHED,
        "cost_weight": PUBLISHED,
        "latency_share_of_execution": EXPLORER,
        "consistency_min_latencies": PUBLISHED,
        "neutral_consistency": EXPLORER,
        "score_decimals": PUBLISHED,
        "radar_window": PUBLISHED,
        "radar_latency_min_runs": PUBLISHED,
        "robustness_min_outcomes": PUBLISHED,
        "default_radar_weight": PUBLISHED,
        "pass_k_levels": PUBLISHED,
        "pass_k_min_outcomes": PUBLISHED,
    },
)
