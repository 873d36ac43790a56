"""The scoring policy: the only place a number of the methodology lives.

One table, :data:`FIELDS`, describes every constant once: its meaning, its provenance
(``published`` when the methodology page of policy ``2026-07-zero-success-v1`` states it,
``explorer-defined`` when SHARED SPEC.md decides where the page is silent), its unit and the
range a sandbox edit may take. That table drives the methodology page's constants, the sandbox
editor's inputs and the one validator, :func:`policy_errors`, which every policy passes through:
the canonical one, a sandbox edit, a policy file given to the CLI and the policy inside a receipt.

Scoring functions take a :class:`Policy` argument whose default is :data:`CANONICAL_POLICY`, so
a sandbox policy is just another value.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

# The radar's axes by name, in order: the policy carries a default weight for each. The lowest home of the
# names (scoring.measures.axes defines each axis and checks its records against this list; RADAR_AXES is kept here
# under its old name too).
RADAR_AXIS_NAMES: tuple[str, ...] = ("correctness", "latency", "cost", "tool_efficiency", "robustness")
RADAR_AXES = RADAR_AXIS_NAMES


Provenance = Literal["published", "explorer-defined"]
PUBLISHED: Provenance = "published"
EXPLORER: Provenance = "explorer-defined"

SANDBOX_MARK = "+sandbox-"


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

    Examples
    --------
    >>> CANONICAL_POLICY.latency_anchors(1250.0)
    0.9
    """

    name: str
    xs: tuple[float, ...]
    scores: tuple[float, ...]
    unit: str

    def __post_init__(self) -> None:
        errors = _anchor_errors(self.name, list(self.xs), list(self.scores), None)
        if errors:
            raise ValueError("; ".join(str(e) for e in errors))

    def __call__(self, value: Any) -> Any:
        """Map ``value`` (scalar or array) to 0-1; clamps below the first and above the last anchor."""
        # np.interp is exactly SPEC 2: straight lines between anchors, the
        # first/last score outside the anchor range.
        out = np.interp(value, self.xs, self.scores)
        return float(out) if np.ndim(out) == 0 else out

    def inverse(self, score: float) -> tuple[tuple[float, float], ...]:
        """The values this map sends to at least ``score``: closed intervals, in increasing order (SPEC 2 backwards).

        Values are >= 0 (SPEC 1), so the first interval starts at 0.0 at the earliest; one unbounded
        above ends at ``math.inf``. An end between two anchors is where the straight line crosses
        ``score``, moved inward a double at a time if the map itself (:meth:`__call__`, in floats)
        sends it just below: every end reaches the score. (A double or two beyond an end may reach it
        too, by the map's own rounding.) Empty when no value reaches the score (above the highest
        anchor score). Monotone anchors (the published ones) give one interval; anchors that a sandbox
        edit makes rise and fall may give several.

        Examples
        --------
        >>> CANONICAL_POLICY.latency_anchors.inverse(0.9)  # 1250 ms maps to 0.9 (the class example)
        ((0.0, 1250.0),)
        >>> CANONICAL_POLICY.cost_anchors.inverse(0.5)
        ((0.0, 0.05),)
        >>> CANONICAL_POLICY.latency_anchors.inverse(0.0)
        ((0.0, inf),)
        >>> CANONICAL_POLICY.latency_anchors.inverse(1.01)
        ()
        """
        score = float(score)
        xs, ys = self.xs, self.scores
        pieces: list[list[float]] = []  # [low, high] with the ends to refine marked below
        refine: list[tuple[int, int]] = []  # (piece, end 0/1) computed by the crossing formula
        if ys[0] >= score and xs[0] > 0:
            pieces.append([0.0, xs[0]])
        for i in range(len(xs) - 1):
            (a, b), (ya, yb) = xs[i:i + 2], ys[i:i + 2]
            if ya >= score and yb >= score:
                pieces.append([a, b])
            elif ya >= score:  # falls through the score between a and b
                pieces.append([a, a + (ya - score) * (b - a) / (ya - yb)])
                refine.append((len(pieces) - 1, 1))
            elif yb >= score:  # rises through it
                pieces.append([a + (score - ya) * (b - a) / (yb - ya), b])
                refine.append((len(pieces) - 1, 0))
        if ys[-1] >= score:
            pieces.append([xs[-1], math.inf])
        for piece, end in refine:
            pieces[piece][end] = self._reaching(pieces[piece][end], score, pieces[piece][1 - end])
        merged: list[list[float]] = []
        for low, high in pieces:
            if merged and low <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append([max(low, 0.0), high])
        return tuple((low, high) for low, high in merged if low <= high)

    def _reaching(self, x: float, score: float, inner: float, steps: int = 64) -> float:
        """``x`` moved one double at a time toward ``inner`` until the map sends it to at least ``score``
        (the crossing formula can land a rounding outside); where ``steps`` doubles are not enough (scores near the
        smallest doubles, whose map moves by a step of 5e-324 over many doubles: a property test's example), halved
        toward ``inner``, which the map sends to at least ``score`` (an anchor of the piece)."""
        toward = math.inf if inner > x else -math.inf
        for _ in range(steps):
            if self(x) >= score or x == inner:
                return x
            x = math.nextafter(x, toward)
        if self(x) >= score:
            return x
        short, far = x, inner  # the map sends ``far`` to at least ``score``, ``short`` below it
        while True:
            middle = short + (far - short) / 2
            if middle in (short, far):
                return far
            if self(middle) >= score:
                far = middle
            else:
                short = middle


# --------------------------------------------------------------------------- the field table

Kind = Literal["number", "integer", "anchors", "weights", "levels"]


@dataclass(frozen=True)
class FieldSpec:
    """One constant of the policy: what it means, where it comes from, and what values it may take.

    ``low``/``high`` bound a number, an integer, every anchor position, every weight and every
    pass^k level; ``max_items`` bounds the anchors and levels counted. The bounds are the
    explorer's, chosen so that no edit can ask for unbounded work (a window of 10^400 runs, 10,000
    pass^k levels) while every sensible what-if stays possible.
    """

    name: str
    label: str
    meaning: str
    provenance: Provenance
    kind: Kind
    low: float
    high: float
    unit: str = ""
    max_items: int = 0
    section: str = "Headline composite"

    def describe_range(self) -> str:
        if self.kind == "levels":
            return f"{self.max_items} levels at most, each a whole number from {self.low:g} to {self.high:g}"
        if self.kind == "anchors":
            return f"2 to {self.max_items} anchors, positions from {self.low:g} to {self.high:g}, scores 0 to 1"
        whole = "a whole number" if self.kind == "integer" else "a number"
        return f"{whole} from {self.low:g} to {self.high:,g}"


_H, _R, _P = "Headline composite", "Fitness radar", "Repeatability"
FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("success_weight", "Success weight", "Headline weight of the success rate", PUBLISHED,
              "number", 0, 1),
    FieldSpec("execution_weight", "Execution weight", "Headline weight of execution (latency and consistency)",
              PUBLISHED, "number", 0, 1),
    FieldSpec("cost_weight", "Cost weight", "Headline weight of the cost score", PUBLISHED, "number", 0, 1),
    FieldSpec("latency_share_of_execution", "Latency share of execution",
              "Share of the execution score taken by the latency score; consistency takes the rest", EXPLORER,
              "number", 0, 1),
    FieldSpec("consistency_min_latencies", "Consistency gate",
              "Completed runs with a recorded latency needed before consistency is measured", PUBLISHED,
              "integer", 1, 10_000, unit="runs"),
    FieldSpec("neutral_consistency", "Neutral consistency factor", "Consistency factor used below that gate",
              EXPLORER, "number", 0, 1),
    FieldSpec("score_decimals", "Score decimals", "Decimals the headline score and radar axes are rounded to",
              PUBLISHED, "integer", 0, 6, unit="decimals"),
    FieldSpec("latency_anchors", "Latency anchors", "Average latency mapped to the latency score", PUBLISHED,
              "anchors", 0, 1e9, unit="ms", max_items=20),
    FieldSpec("cost_anchors", "Cost anchors", "Average cost mapped to the cost score", PUBLISHED,
              "anchors", 0, 1e6, unit="USD", max_items=20),
    FieldSpec("steps_anchors", "Steps anchors", "Median steps mapped to the tool-efficiency axis", EXPLORER,
              "anchors", 0, 1e6, unit="steps", max_items=20, section=_R),
    FieldSpec("radar_window", "Radar window", "Latest terminal runs read by the fitness radar", PUBLISHED,
              "integer", 1, 100_000, unit="runs", section=_R),
    FieldSpec("radar_latency_min_runs", "Radar latency gate",
              "Latencies needed in the window before the radar latency axis is shown", PUBLISHED,
              "integer", 1, 100_000, unit="runs", section=_R),
    FieldSpec("robustness_min_outcomes", "Robustness minimum outcomes",
              "Known outcomes a task needs to enter the robustness axis", PUBLISHED,
              "integer", 1, 100_000, unit="outcomes", section=_R),
    FieldSpec("default_radar_weights", "Default radar weights",
              "Default viewer weight of each radar axis (" + ", ".join(RADAR_AXES) + ")", PUBLISHED,
              "weights", 0, 1, section=_R),
    FieldSpec("pass_k_levels", "pass^k levels", "Public pass^k levels", PUBLISHED,
              "levels", 1, 100, max_items=10, section=_P),
    FieldSpec("pass_k_min_outcomes", "pass^k minimum outcomes",
              "Known outcomes a task needs to enter the repeatability report", PUBLISHED,
              "integer", 1, 10_000, unit="outcomes", section=_P),
)
FIELD_BY_NAME: dict[str, FieldSpec] = {f.name: f for f in FIELDS}
HEADLINE_WEIGHTS = ("success_weight", "execution_weight", "cost_weight")


@dataclass(frozen=True)
class FieldError:
    """One refused value: the field (e.g. ``cost_anchors.xs[2]``) and why."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class PolicyError(ValueError):
    """A policy was refused; ``errors`` names every field and its reason."""

    def __init__(self, errors: list[FieldError]):
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _number_error(spec: FieldSpec, value: Any, where: str | None = None) -> FieldError | None:
    """Why ``value`` is not allowed for ``spec`` (a number or integer field, or one item of a list)."""
    where = where or spec.name
    if not _is_number(value):
        return FieldError(where, f"must be a finite number, got {_shown(value)}")
    if spec.kind in ("integer", "levels") and float(value) != int(value):
        return FieldError(where, f"must be a whole number, got {_shown(value)}")
    if value < 0:
        return FieldError(where, f"must not be negative, got {_shown(value)}")
    if (spec.low, spec.high) == (0, 1) and value > 1:
        return FieldError(where, f"must lie in [0, 1], got {_shown(value)}")
    if value < spec.low:
        return FieldError(where, f"must be at least {spec.low:g}, got {_shown(value)}")
    if value > spec.high:
        return FieldError(where, f"must be at most {spec.high:,g}, got {_shown(value)}")
    return None


def _anchor_errors(name: str, xs: list, scores: list, spec: FieldSpec | None) -> list[FieldError]:
    """Positions strictly increasing (and in range), scores in [0, 1], 2 or more anchors."""
    if len(xs) != len(scores) or len(xs) < 2:
        return [FieldError(name, "needs at least two anchors, each with one score")]
    if spec is not None and len(xs) > spec.max_items:
        return [FieldError(name, f"at most {spec.max_items} anchors, got {len(xs)}")]
    errors = []
    for i, (x, s) in enumerate(zip(xs, scores)):
        if not _is_number(x) or x < 0:
            errors.append(FieldError(f"{name}.xs[{i}]", f"must be a finite number >= 0, got {_shown(x)}"))
        elif spec is not None and x > spec.high:
            errors.append(FieldError(f"{name}.xs[{i}]", f"must be at most {spec.high:g}, got {_shown(x)}"))
        elif i and _is_number(xs[i - 1]) and x <= xs[i - 1]:
            errors.append(FieldError(f"{name}.xs[{i}]", "must be greater than the anchor before it "
                                                        f"({_shown(xs[i - 1])}), got {_shown(x)}; positions "
                                                        "must be strictly increasing"))
        if not _is_number(s) or not 0 <= s <= 1:
            errors.append(FieldError(f"{name}.scores[{i}]", f"must lie in [0, 1], got {_shown(s)}"))
    return errors


def policy_errors(d: Mapping[str, Any]) -> list[FieldError]:
    """Every reason the policy ``d`` (the plain form of :func:`policy_to_dict`) is refused, each naming its field.

    This is the one validator: the canonical policy, sandbox edits, ``--policy`` files and receipts
    all pass through it. Unknown keys are refused by name, so a typo never silently keeps a default.
    """
    errors: list[FieldError] = []
    unknown = sorted(str(k) for k in d if k not in FIELD_BY_NAME and k != "version")
    errors += [FieldError(k, "not a policy constant; expected one of " + ", ".join(FIELD_BY_NAME)) for k in unknown]
    if "version" in d and (not isinstance(d["version"], str) or not 0 < len(d["version"]) <= 200):
        errors.append(FieldError("version", f"must be a text of 1 to 200 characters, got {_shown(d['version'])}"))
    for spec in FIELDS:
        if spec.name not in d:
            errors.append(FieldError(spec.name, "is missing"))
            continue
        value = d[spec.name]
        if spec.kind in ("number", "integer"):
            error = _number_error(spec, value)
            errors += [error] if error else []
        elif spec.kind == "anchors":
            if not isinstance(value, Mapping) or not isinstance(value.get("xs"), list) \
                    or not isinstance(value.get("scores"), list) or set(value) != {"xs", "scores"}:
                errors.append(FieldError(spec.name, 'must be {"xs": [...], "scores": [...]}'))
            else:
                errors += _anchor_errors(spec.name, value["xs"], value["scores"], spec)
        elif spec.kind == "weights":
            if not isinstance(value, Mapping) or set(value) != set(RADAR_AXES):
                errors.append(FieldError(spec.name, "must give one weight per radar axis: " + ", ".join(RADAR_AXES)))
            else:
                for axis in RADAR_AXES:
                    error = _number_error(spec, value[axis], f"{spec.name}.{axis}")
                    errors += [error] if error else []
        elif spec.kind == "levels":
            if not isinstance(value, list) or not value:
                errors.append(FieldError(spec.name, f"must be a list of whole numbers >= 1, got {_shown(value)}"))
            elif len(value) > spec.max_items:
                errors.append(FieldError(spec.name, f"at most {spec.max_items} levels, got {len(value)}"))
            else:
                found = [_number_error(spec, k, f"{spec.name}[{i}]") for i, k in enumerate(value)]
                errors += [e for e in found if e]
                if not any(found) and len(set(value)) != len(value):
                    errors.append(FieldError(spec.name, f"each level once, got {_shown(value)}"))
    if all(_is_number(d.get(f)) for f in HEADLINE_WEIGHTS):
        total = sum(float(d[f]) for f in HEADLINE_WEIGHTS)
        if abs(total - 1.0) > 1e-9:
            errors.append(FieldError(" + ".join(HEADLINE_WEIGHTS), f"must sum to 1, got {total:g}"))
    return errors


# --------------------------------------------------------------------------- the policy value


@dataclass(frozen=True)
class Constant:
    """A constant of the policy with its provenance, for display."""

    name: str
    value: object
    provenance: Provenance
    meaning: str


@dataclass(frozen=True)
class Policy:
    """Every constant of one scoring policy (SPEC 2-5), described field by field in :data:`FIELDS`.

    Frozen: a changed constant is a new ``Policy`` (``dataclasses.replace``), validated again.
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
    # Where each constant comes from (the table above; replaceable only to test the methodology page)
    provenance: Mapping[str, Provenance] = field(
        default_factory=lambda: {f.name: f.provenance for f in FIELDS}, compare=False, hash=False)

    def __post_init__(self) -> None:
        errors = policy_errors(policy_to_dict(self))
        if errors:
            raise PolicyError(errors)

    @property
    def radar_weights(self) -> dict[str, float]:
        """Default viewer weights as a dict, in axis order."""
        return dict(self.default_radar_weights)

    def constants(self) -> list[Constant]:
        """Every constant but the anchor tables, with its provenance and meaning (the methodology page)."""
        out = []
        for spec in FIELDS:
            if spec.kind == "anchors":
                continue
            value = getattr(self, spec.name)
            if spec.kind == "weights":
                value = tuple(w for _, w in value)
            out.append(Constant(spec.name, value, self.provenance[spec.name], spec.meaning))
        return out


def policy_to_dict(policy: Policy) -> dict[str, Any]:
    """Every constant as plain JSON values, keyed by field name (the provenance labels are not constants)."""
    out: dict[str, Any] = {"version": policy.version}
    for spec in FIELDS:
        value = getattr(policy, spec.name)
        if spec.kind == "anchors":
            value = {"xs": list(value.xs), "scores": list(value.scores)}
        elif spec.kind == "weights":
            value = dict(value)
        elif spec.kind == "levels":
            value = list(value)
        out[spec.name] = value
    return out


def constants_hash(policy_dict: Mapping[str, Any]) -> str:
    """A content hash of the constants (not the version label): equal constants, equal hash."""
    body = {k: v for k, v in policy_dict.items() if k != "version"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def policy_from_dict(d: Mapping[str, Any], *, base: Policy | None = None) -> Policy:
    """A sandbox policy from constants; refused with every field error (:class:`PolicyError`).

    Constants not given keep ``base``'s value (the canonical policy by default); unknown keys are
    refused. The version becomes ``<base version>+sandbox-<first 8 hex of the constants hash>``.
    """
    base = base or CANONICAL_POLICY
    if not isinstance(d, Mapping):
        raise PolicyError([FieldError("policy", f"must be a JSON object of constants, got {type(d).__name__}")])
    full = {**policy_to_dict(base), **d}
    errors = policy_errors(full)
    if errors:
        raise PolicyError(errors)
    base_version = full["version"].split(SANDBOX_MARK)[0]
    values: dict[str, Any] = {}
    for spec in FIELDS:
        value = full[spec.name]
        if spec.kind == "anchors":
            current = getattr(base, spec.name)
            value = Anchors(current.name, tuple(float(x) for x in value["xs"]),
                            tuple(float(s) for s in value["scores"]), current.unit)
        elif spec.kind == "weights":
            value = tuple((axis, float(value[axis])) for axis in RADAR_AXES)
        elif spec.kind == "levels":
            value = tuple(int(k) for k in value)
        else:
            value = int(value) if spec.kind == "integer" else float(value)
        values[spec.name] = value
    label = constants_hash(policy_to_dict(Policy(version=base_version, **values)))[:8]
    return Policy(version=f"{base_version}{SANDBOX_MARK}{label}", **values)


def policy_json(policy: Policy) -> str:
    return json.dumps(policy_to_dict(policy), indent=2) + "\n"


def load_policy(data: str | bytes, *, what: str = "policy") -> Policy:
    """A sandbox policy from its JSON (as the sandbox page downloads it), bounded and validated.

    Raises :class:`PolicyError` naming the field, or for JSON that is not even readable, the place.
    """
    from scoring.contract.safejson import JsonRefused, load_json

    try:
        doc = load_json(data, what=what, max_bytes=64_000, max_depth=8, unique_keys=True)
    except JsonRefused as exc:
        raise PolicyError([FieldError(exc.where or what, exc.reason)]) from None
    return policy_from_dict(doc)


CANONICAL_POLICY = Policy(
    version="2026-07-zero-success-v1",
    success_weight=0.40,
    execution_weight=0.30,
    cost_weight=0.30,
    latency_share_of_execution=0.5,
    consistency_min_latencies=5,
    neutral_consistency=0.5,
    score_decimals=2,
    latency_anchors=Anchors("latency_ms", (500.0, 2000.0, 5000.0, 10000.0), (1.0, 0.8, 0.5, 0.0), "ms"),
    cost_anchors=Anchors("cost_usd", (0.001, 0.01, 0.05, 0.1, 0.2), (1.0, 0.8, 0.5, 0.2, 0.0), "USD"),
    steps_anchors=Anchors("steps", (2.0, 5.0, 10.0, 20.0, 40.0), (1.0, 0.8, 0.5, 0.2, 0.0), "steps"),
    radar_window=100,
    radar_latency_min_runs=5,
    robustness_min_outcomes=2,
    default_radar_weights=tuple((axis, 0.20) for axis in RADAR_AXES),
    pass_k_levels=(1, 3, 5),
    pass_k_min_outcomes=3,
)
