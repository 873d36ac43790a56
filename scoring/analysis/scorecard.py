"""Team Scorecards: a named, saved set of radar weights with a short description of what a team values.

The published page: "Viewer or Team Scorecard weights change only this diagnostic profile and
local ordering — they never change the canonical headline score." So a scorecard only ever
reaches :meth:`Radar.profile <scoring.measures.radar.Radar.profile>` (SPEC 4: unavailable axes dropped,
the remaining weights renormalized); the headline score and rank are carried beside the
profile, untouched.

Explorer-defined rules of the file format (``{"name": ..., "description": ..., "weights": {...}}``):

- A scorecard is a complete statement of a team's priorities: an axis it does not name has
  weight **0**, not the published default 0.20 that sliders and ``--weights`` fall back to.
  :func:`scorecard_to_json` always writes every axis, so a saved file says it outright.
- Each weight is a share between 0 and 1, as on the radar's sliders (0-100%). The shares need
  not sum to 1 (SPEC 4 renormalizes); at least one must be positive. A positive weight below
  :data:`MIN_POSITIVE_WEIGHT` is refused: no slider can show it, and products with weights that
  small lose digits in floating point (a 5e-324 weight turns an axis of 83.33 into 83.0).
- The name is 1-80 printable characters, the description at most 500; a field the format does
  not have, or a key given twice, is refused by name rather than ignored.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.analysis.sandbox import FieldError
from scoring.contract import format as fmt
from scoring.contract.filenames import file_slug
from scoring.contract.policy import RADAR_AXES
from scoring.contract.resources import SCORECARDS_DIR
from scoring.contract.safejson import JsonRefused, load_json, object_noting_repeats, repeated_keys
from scoring.measures.report import Report

FIELDS = ("name", "description", "weights")
NAME_MAX_CHARS = 80
DESCRIPTION_MAX_CHARS = 500
MAX_WEIGHT = 1.0
MIN_POSITIVE_WEIGHT = 0.001
MAX_SCORECARD_BYTES = 64 * 1024  # a scorecard is a few hundred bytes; anything near this is not one
EXAMPLES_DIR = SCORECARDS_DIR  # package data: sample_data/scorecards in a clone


class ScorecardError(ValueError):
    """A refused scorecard; ``errors`` lists every problem as a :class:`FieldError` (field, message)."""

    def __init__(self, errors: list[FieldError]):
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


def _show(value: Any) -> str:
    """A short repr for messages: a refused 60 KB string should not come back whole."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text_errors(value: Any, name: str, min_chars: int, max_chars: int) -> list[FieldError]:
    if not isinstance(value, str):
        return [FieldError(name, f"must be text, got {_show(value)}")]
    errors = []
    if not min_chars <= len(value) <= max_chars:
        errors.append(FieldError(name, f"must be {min_chars}-{max_chars} characters, got {len(value)}"))
    bad = next((i for i, ch in enumerate(value) if not ch.isprintable()), None)
    if bad is not None:
        errors.append(FieldError(name, f"must be printable text on one line; character {bad + 1} is "
                                       f"U+{ord(value[bad]):04X} (a control, format, separator or unassigned "
                                       "character)"))
    return errors


def _name_errors(value: Any) -> list[FieldError]:
    errors = _text_errors(value, "name", 1, NAME_MAX_CHARS)
    if not errors and value.strip() != value:
        errors.append(FieldError("name", "must not start or end with a space"))
    return errors


def _weight_errors(weights: Any) -> list[FieldError]:
    if not isinstance(weights, Mapping):
        return [FieldError("weights", f'must be an object of axis weights such as {{"correctness": 0.4}}, '
                                      f"got {_show(weights)}")]
    errors, positive = [], False
    for axis, weight in weights.items():
        where = f"weights.{axis}"
        if axis not in RADAR_AXES:
            errors.append(FieldError(where, f"unknown radar axis {_show(axis)}; the axes are {', '.join(RADAR_AXES)}"))
        elif isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
                or weight < 0:
            errors.append(FieldError(where, f"must be a finite number >= 0, got {_show(weight)}"))
        elif weight > MAX_WEIGHT:
            errors.append(FieldError(where, f"must be at most {MAX_WEIGHT:g} (a share, as on the radar sliders' "
                                            f"0-100%), got {_show(weight)}"))
        elif 0 < weight < MIN_POSITIVE_WEIGHT:
            errors.append(FieldError(where, f"must be 0 or at least {MIN_POSITIVE_WEIGHT:g}, got {_show(weight)}"))
        else:
            positive = positive or weight > 0
    if not errors and not positive:
        errors.append(FieldError("weights", "at least one axis needs a positive weight (axes not named weigh 0)"))
    return errors


def field_errors(name: Any, description: Any, weights: Any) -> list[FieldError]:
    """Every reason the three fields of a scorecard are refused, each naming its field."""
    return (_name_errors(name) + _text_errors(description, "description", 0, DESCRIPTION_MAX_CHARS)
            + _weight_errors(weights))


@dataclass(frozen=True)
class Scorecard:
    """A team's radar weights, validated; ``weights`` always holds every axis, in axis order.

    Examples
    --------
    >>> card = Scorecard("cost-first", "Spend per run matters most.", {"cost": 0.6, "correctness": 0.4})
    >>> card.weights
    {'correctness': 0.4, 'latency': 0.0, 'cost': 0.6, 'tool_efficiency': 0.0, 'robustness': 0.0}
    >>> Scorecard("x", "", {"speed": 1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.analysis.scorecard.ScorecardError: weights.speed: unknown radar axis 'speed'; the axes are correctness, ...
    """

    name: str
    description: str
    weights: dict[str, float] = field(hash=False)

    def __post_init__(self) -> None:
        errors = field_errors(self.name, self.description, self.weights)
        if errors:
            raise ScorecardError(errors)
        # Axes not named weigh 0: a scorecard states all of a team's priorities (module docstring).
        object.__setattr__(self, "weights", {a: float(self.weights.get(a, 0.0)) for a in RADAR_AXES})

    def shares(self) -> dict[str, float]:
        """Each axis's share of the weights, adding up to 1: what the weights mean once renormalized (SPEC 4).
        Weights need not add up to 1, so they are shown to people as these shares, never as given.

        >>> Scorecard("x", "", {"correctness": 0.4, "cost": 0.6, "robustness": 0.3}).shares()["correctness"]
        0.3076923076923077
        """
        total = math.fsum(self.weights.values())
        return {axis: weight / total for axis, weight in self.weights.items()}

    def shares_text(self, labels: Mapping[str, str] | None = None) -> str:
        """The positive shares in words, 'correctness 30.8%, cost 46.2%, robustness 23.1%' (axis names, or
        ``labels``), with the weights as given when they do not add up to 1."""
        shares = ", ".join(f"{(labels or {}).get(axis, axis)} {fmt.weight(share)}"
                           for axis, share in self.shares().items() if share > 0)
        given = math.fsum(self.weights.values())
        if abs(given - 1) <= 1e-9:
            return shares
        return f"{shares} (weights given as {', '.join(f'{w:g}' for w in self.weights.values() if w > 0)}, " \
               f"adding up to {given:g}: renormalized)"


def validate_scorecard(doc: Any, duplicates: tuple[str, ...] = ()) -> list[FieldError]:
    """Every reason a parsed scorecard document is refused, each naming its field."""
    if not isinstance(doc, Mapping):
        return [FieldError("scorecard", f"must be a JSON object with {', '.join(FIELDS)}, got {_show(doc)}")]
    errors = [FieldError(d, "is given more than once") for d in duplicates]
    errors += [FieldError(str(key), f"unknown field; a scorecard has only {', '.join(FIELDS)}")
               for key in doc if key not in FIELDS]
    checks = {"name": _name_errors, "weights": _weight_errors,
              "description": lambda value: _text_errors(value, "description", 0, DESCRIPTION_MAX_CHARS)}
    for name in FIELDS:  # a missing field does not hide what is wrong with the others
        errors += checks[name](doc[name]) if name in doc else [FieldError(name, "is required")]
    return errors


def scorecard_from_dict(doc: Any, duplicates: tuple[str, ...] = ()) -> Scorecard:
    """A :class:`Scorecard` from a parsed document; :class:`ScorecardError` lists every problem."""
    errors = validate_scorecard(doc, duplicates)
    if errors:
        raise ScorecardError(errors)
    return Scorecard(doc["name"], doc["description"], dict(doc["weights"]))


def _duplicate_keys(text: str) -> tuple[str, ...]:
    """Keys given twice at the top level or in ``weights`` (``json.loads`` silently keeps the last)."""
    doc = json.loads(text, object_pairs_hook=object_noting_repeats)
    weights = doc.get("weights") if isinstance(doc, dict) else None
    return repeated_keys(doc) + tuple(f"weights.{k}" for k in repeated_keys(weights))


def scorecard_from_json(data: str | bytes) -> Scorecard:
    """Read a scorecard from JSON text or UTF-8 bytes; :class:`ScorecardError` names every refused field.

    Examples
    --------
    >>> scorecard_from_json('{"name": "fast", "description": "", "weights": {"latency": 1}}').weights["latency"]
    1.0
    >>> scorecard_from_json('{"name": "fast", "weights": {"latency": -1}}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.analysis.scorecard.ScorecardError: description: is required; weights.latency: must be a finite number ...
    """
    try:
        doc = load_json(data, what="scorecard", max_bytes=MAX_SCORECARD_BYTES, max_depth=8)
    except JsonRefused as exc:
        prefix = f"scorecard at {exc.where}: " if exc.where else "scorecard: "
        message = str(exc)[len(prefix):] if str(exc).startswith(prefix) else str(exc)
        raise ScorecardError([FieldError(exc.where or "scorecard", message)]) from None
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data  # load_json has checked it decodes
    return scorecard_from_dict(doc, _duplicate_keys(text))


def read_scorecard(path: str | Path) -> Scorecard:
    """Read a scorecard file, never more than :data:`MAX_SCORECARD_BYTES` + 1 bytes of it."""
    with open(path, "rb") as f:
        return scorecard_from_json(f.read(MAX_SCORECARD_BYTES + 1))


def load_scorecards(directory: str | Path = EXAMPLES_DIR) -> tuple[Scorecard, ...]:
    """Every ``*.json`` scorecard in a folder, by name (the examples shipped in ``sample_data/scorecards``)."""
    return tuple(sorted((read_scorecard(p) for p in Path(directory).glob("*.json")), key=lambda c: c.name))


def scorecard_to_dict(card: Scorecard) -> dict[str, Any]:
    return {"name": card.name, "description": card.description, "weights": dict(card.weights)}


def scorecard_to_json(card: Scorecard) -> str:
    """The scorecard as JSON: keys sorted, every axis written, so equal cards give equal text.

    Examples
    --------
    >>> print(scorecard_to_json(Scorecard("fast", "Speed first.", {"latency": 1})), end="")
    {
      "description": "Speed first.",
      "name": "fast",
      "weights": {
        "correctness": 0.0,
        "cost": 0.0,
        "latency": 1.0,
        "robustness": 0.0,
        "tool_efficiency": 0.0
      }
    }
    """
    return json.dumps(scorecard_to_dict(card), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


# --- Applying a scorecard: the profile ranking beside the unchanged headline ---------------------

@dataclass(frozen=True)
class ProfileRow:
    """One agent under some radar weights: profile score and rank, headline score and rank as published.

    ``weights`` are the ones actually used: renormalized over the agent's available axes (SPEC 4).
    """

    agent_id: str
    profile_score: float | None
    profile_rank: int | None
    headline_score: float | None
    headline_rank: int | None
    weights: dict[str, float] = field(hash=False)

    def to_json(self) -> dict[str, Any]:
        return {"agent_id": self.agent_id, "profile_rank": self.profile_rank, "profile_score": self.profile_score,
                "weights": dict(self.weights), "headline_rank": self.headline_rank,
                "headline_score": self.headline_score}


def profile_ranking(report: Report, weights: Mapping[str, float] | None = None) -> tuple[ProfileRow, ...]:
    """Agents by profile score descending, then agent_id; agents without a profile score last, unranked.

    Ranks are positions, as on the leaderboard. Only :meth:`Radar.profile` is called, so the
    headline columns are the report's own. ``weights`` go through ``check_weights``: axes not
    named take the policy default (pass every axis, as a :class:`Scorecard` does, to avoid that).
    """
    scored = [(a, a.radar.profile(weights)) for a in report.agents]
    scored.sort(key=lambda ap: (ap[1].score is None, -(ap[1].score or 0.0), ap[0].agent_id))
    return tuple(
        ProfileRow(a.agent_id, p.score, i + 1 if p.score is not None else None, a.headline.score, a.rank, p.weights)
        for i, (a, p) in enumerate(scored)
    )


@dataclass(frozen=True)
class ScorecardRanking:
    """A scorecard applied to a report: the profile ranking under the team's weights."""

    scorecard: Scorecard
    policy_version: str
    rows: tuple[ProfileRow, ...]

    def to_json(self) -> dict[str, Any]:
        return {"policy_version": self.policy_version, "scorecard": scorecard_to_dict(self.scorecard),
                "agents": [r.to_json() for r in self.rows]}


def apply_scorecard(report: Report, card: Scorecard) -> ScorecardRanking:
    """Rank a report's agents by a team's scorecard; headline scores and ranks are carried unchanged.

    Examples
    --------
    >>> from scoring import runs_from_records, score_runs
    >>> runs = runs_from_records([{"run_id": f"{a}{i}", "agent_id": a, "task_id": "t", "status": "completed",
    ...                            "success": i % 2 == 0, "latency_ms": ms, "cost_usd": usd}
    ...                           for a, ms, usd in (("fast", 400, 0.09), ("cheap", 4000, 0.001))
    ...                           for i in range(6)])
    >>> report = score_runs(runs)
    >>> [(r.agent_id, r.profile_rank, r.headline_rank)
    ...  for r in apply_scorecard(report, Scorecard("speed", "", {"latency": 1})).rows]
    [('fast', 1, 2), ('cheap', 2, 1)]
    """
    return ScorecardRanking(card, report.policy.version, profile_ranking(report, card.weights))


# --- A scorecard in a link (query parameters): hostile input, bounded and validated --------------

LINK_SHIPPED = "scorecard"  # ?scorecard=<name of a shipped example>
LINK_WEIGHTS = "scorecard_weights"  # ?scorecard_weights=correctness:0.3,latency:0.5 (axes not named weigh 0)
LINK_NAME = "scorecard_name"  # with scorecard_weights: the scorecard's name (default LINK_DEFAULT_NAME)
LINK_PARAMS = (LINK_SHIPPED, LINK_WEIGHTS, LINK_NAME)
LINK_MAX_CHARS = 300  # per parameter; each axis with a full-precision weight needs about 26
LINK_DEFAULT_NAME = "from a link"
_LINK_NUMBER = re.compile(r"(?:\d{1,20}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][+-]?\d{1,3})?")


def scorecard_from_link(params: Mapping[str, Sequence[str]], shipped: Sequence[Scorecard] = ()) -> Scorecard | None:
    """The scorecard a link asks for, or None when the link names none.

    ``params`` maps a query parameter to every value it was given (``st.query_params.get_all``).
    ``?scorecard=NAME`` picks one of ``shipped`` by name; ``?scorecard_weights=axis:w,...`` (with an
    optional ``scorecard_name``) states the weights themselves, validated as a scorecard file is
    (axes not named weigh 0). Anything else raises :class:`ScorecardError` naming the parameter
    or the field; nothing else is ever raised, whatever the text.

    Examples
    --------
    >>> scorecard_from_link({"scorecard_weights": ["latency:0.5,correctness:0.5"]}).weights["latency"]
    0.5
    >>> scorecard_from_link({"scorecard_weights": ["speed:1"]})
    Traceback (most recent call last):
    ...
    scoring.analysis.scorecard.ScorecardError: weights.speed: unknown radar axis 'speed'; the axes are correctness, ...
    """
    given = {p: [str(v) for v in params.get(p) or ()] for p in LINK_PARAMS}
    if not any(given.values()):
        return None
    errors = [FieldError(p, "is given more than once") for p, values in given.items() if len(values) > 1]
    errors += [FieldError(p, f"must be at most {LINK_MAX_CHARS} characters, got {len(values[0]):,}")
               for p, values in given.items() if values and len(values[0]) > LINK_MAX_CHARS]
    if errors:
        raise ScorecardError(errors)
    name, weights_text, custom_name = (given[p][0] if given[p] else None for p in LINK_PARAMS)
    if name is not None and (weights_text is not None or custom_name is not None):
        raise ScorecardError([FieldError(LINK_SHIPPED, f"names a shipped scorecard: give it alone, or give "
                                                       f"{LINK_WEIGHTS} (and {LINK_NAME}) instead")])
    if name is not None:
        found = [card for card in shipped if card.name == name]
        if not found:
            names = ", ".join(card.name for card in shipped) or "none"
            raise ScorecardError([FieldError(LINK_SHIPPED, f"no shipped scorecard is named {_show(name)}; "
                                                           f"the shipped ones are {names}")])
        return found[0]
    if weights_text is None:
        raise ScorecardError([FieldError(LINK_WEIGHTS, f"is required with {LINK_NAME}")])
    weights, errors = _link_weights(weights_text)
    name = LINK_DEFAULT_NAME if custom_name is None else custom_name
    checked = field_errors(name, "", weights)
    if errors:  # "no positive weight" is moot while some weights could not be read
        checked = [e for e in checked if e.field != "weights"]
    if errors or checked:
        raise ScorecardError(errors + checked)
    return Scorecard(name, "", weights)


def _link_weights(text: str) -> tuple[dict[str, Any], list[FieldError]]:
    weights: dict[str, Any] = {}
    errors: list[FieldError] = []
    parts = [p for p in text.split(",") if p.strip()]
    if len(parts) > len(RADAR_AXES):
        return {}, [FieldError(LINK_WEIGHTS, f"at most {len(RADAR_AXES)} axis:weight pairs, got {len(parts)}")]
    for part in parts:
        axis, sep, value = (s.strip() for s in part.partition(":"))
        if not sep:
            errors.append(FieldError(LINK_WEIGHTS, f"expected axis:weight, got {_show(part)}"))
        elif axis in weights:
            errors.append(FieldError(f"weights.{axis}", "is given more than once"))
        elif value.startswith("-") and _LINK_NUMBER.fullmatch(value[1:]):  # the regex bounds its length
            errors.append(FieldError(f"weights.{axis}", f"must be a finite number >= 0, got {value}"))
        elif not _LINK_NUMBER.fullmatch(value):
            errors.append(FieldError(f"weights.{axis}", f"must be a number such as 0.25, got {_show(value)}"))
        else:
            weights[axis] = float(value)
    return weights, errors


def scorecard_link_params(card: Scorecard, shipped: Sequence[Scorecard] = ()) -> dict[str, str]:
    """The query parameters that carry ``card``: its name when it is a shipped one, else its weights.

    The weights are written with Python's shortest exact form, so the link gives back the same
    floats; a link does not carry the description.

    Examples
    --------
    >>> scorecard_link_params(Scorecard("fast", "", {"latency": 0.7, "correctness": 0.3}))
    {'scorecard_weights': 'correctness:0.3,latency:0.7', 'scorecard_name': 'fast'}
    """
    if card in shipped:
        return {LINK_SHIPPED: card.name}
    weights = ",".join(f"{axis}:{weight!r}" for axis, weight in card.weights.items() if weight > 0)
    return {LINK_WEIGHTS: weights, LINK_NAME: card.name}


def scorecard_file_name(card: Scorecard) -> str:
    """``scorecard-<name>.json``, safe for a file system (a short hash stands in for a name that does not survive).

    Examples
    --------
    >>> scorecard_file_name(Scorecard("Ops team", "", {"cost": 1}))
    'scorecard-ops-team.json'
    """
    slug = file_slug(card.name)
    if not slug:
        slug = "team-" + hashlib.sha256(card.name.encode("utf-8")).hexdigest()[:8]
    return f"scorecard-{slug}.json"
