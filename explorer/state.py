"""The view's state: what a link carries, kept across pages and mirrored in the URL.

One table, :data:`KEYS`, lists every piece of state a link can carry: its query parameter, its
kind, bounds and default. Every page's link carries the whole view (every value that differs from
its default, whichever page set it), so a link copied anywhere opens the same numbers and controls
on every page; a page that reads a parameter name itself (:data:`PAGE_PARAMS`) keeps that name.
Adding a piece of state is one row here (and, for a new kind of value, one parser and one encoder
in :data:`KINDS`).

The radar weights are written by axis name (``w_correctness=60``, one parameter per axis, every axis
when any differs from the default); the older positional form (``weights=60,20,20,20,20``) is still
read, with a note saying how it was read.

Every query parameter is hostile input (a deployed demo is public): at most :data:`MAX_PARAMS`
parameters and :data:`MAX_VALUE_CHARS` characters a value are read, each value is parsed by its
kind with explicit bounds, agent ids must exist in the dataset shown, sandbox constants go through
the policy's one validator (``scoring.contract.policy``), and anything refused is ignored with a specific
notice (the caller escapes it before it reaches markdown). Nothing here does work that grows with
what a viewer sends beyond those bounds.

A link never carries a secret: a database source is named by the operator's connection name and
table only (a viewer's own database URL is never put in a link), an uploaded file by the first
hex digits of its sha256.

The pure part (``parse``, ``encode``, ``parse_source``) is tested without Streamlit; the functions
at the end tie it to ``st.session_state`` and ``st.query_params``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlencode, urlsplit, urlunsplit

from scoring import CANONICAL_POLICY, RADAR_AXES
from scoring.analysis.scorecard import LINK_PARAMS as SCORECARD_LINK_PARAMS
from scoring.analysis.uncertainty import DEFAULT_REPLICATES, DEFAULT_SEED
from scoring.contract.format import named
from scoring.contract.policy import FIELD_BY_NAME, FIELDS, FieldSpec, PolicyError, policy_from_dict, policy_to_dict

if TYPE_CHECKING:
    from .pages import PageSpec

MAX_VALUE_CHARS = 500  # characters of one value; a longer value is ignored unread
MAX_REPEATS = 10  # values of one repeated parameter (e.g. agents=a&agents=b)
SHOWN_CHARS = 60  # characters of a refused value quoted back in a notice
SHA_CHARS = 16  # hex digits of a dataset's sha256 a link carries
STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})  # Streamlit's own; not ours to judge
# The radar page's Team Scorecard parameters: read and validated by explorer.scorecards, kept in its link.
SCORECARD_PARAMS = frozenset(SCORECARD_LINK_PARAMS)
# Parameters a page reads itself (its own names, validated there) and keeps in its link: the Runs page's filter
# (explorer.drill: its ``agent`` is a filter of runs, not the agent shown), the radar page's scorecard, and Compare's
# agent of two datasets (views/compare.py: often an agent the sidebar's dataset, which ``agent`` names, lacks).
PAGE_PARAMS: dict[str, frozenset[str]] = {"radar": SCORECARD_PARAMS,
                                          "runs": frozenset({"agent", "task", "status", "outcome", "cohort"}),
                                          "compare": frozenset({"diff_agent"})}
# A state a page writes and reads under another name, where its own parameter takes the state's: on the Runs page
# ``agent`` is the filter, so the agent in focus travels as ``focus`` (before, a Runs link lost it: a reviewer's
# fresh viewer opened the Headline page on #1, 2026-12-06).
PAGE_ALIASES: dict[str, dict[str, str]] = {"runs": {"agent": "focus"}}
# The Runs page's filter in another page's link: its own names under this prefix (``runs.status=failed``), carried
# until the Runs page takes them (explorer.drill), so a link copied on any page keeps the filter of the view.
RUNS_FILTER_PREFIX = "runs."
POLICY_PREFIX = "policy."
WEIGHT_PREFIX = "w_"  # w_correctness=60: one radar weight, in percent, by axis name
LEGACY_WEIGHTS = "weights"  # the older positional form, weights=60,20,20,20,20 (read, never written)

Kind = Literal["agent", "agents", "pairs", "weights", "flag", "integer", "policy", "choice", "dataset"]


@dataclass(frozen=True)
class StateKey:
    """One piece of view state: its query parameter (and session key), kind, bounds and default.

    Every page keeps it in session state and carries it in its link. ``low``/``high``/``step`` bound
    an integer or each weight; ``max_items`` bounds a list.
    """

    name: str
    kind: Kind
    meaning: str
    default: Any = None
    low: int = 0
    high: int = 0
    step: int = 1
    max_items: int = 1
    options: tuple[str, ...] = ()  # kind "choice": the values allowed

    def describe(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(self.options)
        if self.kind == "dataset":
            return (f"sample, upload:<{SHA_CHARS} hex digits>, import:<{SHA_CHARS} hex digits> or "
                    "db:<connection>/<table>")
        if self.kind == "integer":
            return f"a whole number from {self.low:,} to {self.high:,}"
        if self.kind == "weights":
            return f"a whole number from {self.low} to {self.high} in steps of {self.step}"
        if self.kind == "flag":
            return "1 or 0"
        if self.kind == "agents":
            return f"up to {self.max_items} agent ids (the parameter repeated)"
        if self.kind == "pairs":
            return (f"up to {self.max_items} pairs of agent ids, each a baseline id and then the new dataset's id "
                    "(the parameter repeated)")
        return "an agent id of the dataset shown"


DEFAULT_WEIGHTS = tuple(round(100 * CANONICAL_POLICY.radar_weights[a]) for a in RADAR_AXES)

KEYS: tuple[StateKey, ...] = (
    StateKey("agent", "agent", "the agent in focus (the Headline, Compare's agent A, the radar's first agent)"),
    StateKey("versus", "agent", "Compare's agent B"),
    StateKey("agents", "agents", "the agents on the radar", max_items=10),
    StateKey("weights", "weights", f"the radar weights, in percent ({WEIGHT_PREFIX}<axis>=value)",
             default=DEFAULT_WEIGHTS, low=0, high=100, step=5, max_items=len(RADAR_AXES)),
    StateKey("intervals", "flag", "whether the leaderboard shows bootstrap intervals", default=False),
    StateKey("badge", "agent", "the Leaderboard's score badge agent (the first ranked by default)"),
    StateKey("replicates", "integer", "bootstrap replicates", default=DEFAULT_REPLICATES, low=100, high=5000),
    StateKey("seed", "integer", "the bootstrap seed", default=DEFAULT_SEED, low=0, high=2**31 - 1),
    StateKey("policy", "policy", "the sandbox policy's changed constants "
             f"({POLICY_PREFIX}<constant>=value)", default={}),
    StateKey("compare", "choice", "Compare's mode: two agents of one dataset, or two datasets (baseline and new)",
             default="agents", options=("agents", "datasets")),
    StateKey("baseline", "dataset", "Compare's baseline dataset in its two-datasets mode", default="sample"),
    StateKey("new", "dataset", "Compare's new dataset in its two-datasets mode", default="sample"),
    # Judged against the two datasets by the Compare page once both are scored (scoring.analysis.diff.check_pairs).
    StateKey("pair", "pairs", "Compare's agents renamed between its two datasets (the command line's diff --pair)",
             default=(), max_items=MAX_REPEATS // 2),
    StateKey("level", "integer", "the pass^k level shown (Repeatability's per-task level, Score over time's k)",
             default=1, low=1, high=1000),
    StateKey("curve", "agents", "the agents on Repeatability's pass^k curve", max_items=10),
    StateKey("tau2", "agent", "Repeatability's agent compared with tau2-bench's reading"),
    StateKey("timeline", "agents", "the agents charted by Score over time", max_items=10),
    StateKey("order", "choice", "the order of one agent's runs on the Runs page", default="newest",
             options=("newest", "costliest")),
    StateKey("largest", "flag", "whether the sandbox lists the largest rank moves first", default=True),
    StateKey("receipt", "choice", "the policy of the sandbox's score receipt", default="canonical",
             options=("canonical", "sandbox")),
)
KEY_BY_NAME = {k.name: k for k in KEYS}
# State that names agents waits for its dataset when a link expects one (the others apply at once).
AGENT_KINDS = ("agent", "agents")


@dataclass
class Parsed:
    """The values a link sets (by state name) and a notice for everything it set that was refused."""

    values: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how something was read (an older form), not a refusal


# --------------------------------------------------------------------------- reading one value


def quoted(text: str) -> str:
    r"""A value quoted back in a notice, shortened to SHOWN_CHARS characters (a link's value may be long), every
    control and invisible character escaped as Python writes it: a right-to-left override in a link reversed the
    notice's own words after it, and a zero-width space made a refused id read as a real agent's.

    >>> quoted("steady-pro"), quoted("\u202esteady-pro"), quoted("steady-pro\u200b")
    ("'steady-pro'", "'\\u202esteady-pro'", "'steady-pro\\u200b'")
    """
    return named(text, SHOWN_CHARS)


_INTEGER = re.compile(r"[+]?\d{1,12}")
_NUMBER = re.compile(r"[+-]?(\d{1,15}(\.\d{0,15})?|\.\d{1,15})([eE][+-]?\d{1,3})?")


def _integer(text: str) -> int | None:
    return int(text) if _INTEGER.fullmatch(text.strip()) else None


def _number(text: str) -> float | None:
    text = text.strip()
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


class _Refused(ValueError):
    """A value of a known parameter that is not allowed: the message says why (without the value)."""


def _parse_agent(key: StateKey, values: list[str], agents: Collection[str]) -> str:
    agent = values[0]
    if agent not in agents:
        raise _Refused(f"{quoted(agent)} is not an agent of the dataset shown")
    return agent


def _parse_agents(key: StateKey, values: list[str], agents: Collection[str]) -> list[str]:
    unknown = [a for a in values if a not in agents]
    if unknown:
        raise _Refused(f"{', '.join(quoted(a) for a in unknown[:3])}{' …' if len(unknown) > 3 else ''} "
                       "not an agent of the dataset shown")
    if len(values) > key.max_items:
        raise _Refused(f"at most {key.max_items} agents, got {len(values)}")
    return list(dict.fromkeys(values))


def _parse_pairs(key: StateKey, values: list[str], agents: Collection[str]) -> tuple[tuple[str, str], ...]:
    """``pair=BASELINE_ID&pair=NEW_ID`` repeated: the pairs in order (their agents are judged by the Compare page,
    against its two datasets, not against the dataset shown).

    >>> _parse_pairs(KEY_BY_NAME["pair"], ["old", "new", "a", "b"], ())
    (('old', 'new'), ('a', 'b'))
    """
    if len(values) % 2:
        raise _Refused(f"must be {key.describe()}, got {len(values)} id{'' if len(values) == 1 else 's'}")
    pairs = tuple(zip(values[::2], values[1::2]))
    if any(not old or not new for old, new in pairs):
        raise _Refused("an empty agent id")
    if len({old for old, _ in pairs}) < len(pairs):
        raise _Refused("one baseline agent paired twice")
    return pairs


def _weight(key: StateKey, text: str) -> int:
    number = _integer(text)
    if number is None or not key.low <= number <= key.high or number % key.step:
        raise _Refused(f"must be {key.describe()}, got {quoted(text)}")
    return number


def _parse_positional_weights(key: StateKey, text: str) -> tuple[int, ...]:
    """The older ``weights=60,20,20,20,20`` (one number per axis, in the order of ``RADAR_AXES``)."""
    parts = text.split(",")
    if len(parts) != len(RADAR_AXES):
        raise _Refused(f"must be {len(RADAR_AXES)} whole numbers separated by commas ({', '.join(RADAR_AXES)}), "
                       f"got {quoted(text)}")
    try:
        return tuple(_weight(key, p) for p in parts)
    except _Refused:
        raise _Refused(f"must be {len(RADAR_AXES)} whole numbers from {key.low} to {key.high} in steps of "
                       f"{key.step}, separated by commas ({', '.join(RADAR_AXES)}), got {quoted(text)}") from None


def _parse_weights(key: StateKey, values: list[str], agents: Collection[str]) -> tuple[int, ...]:
    return _parse_positional_weights(key, values[0])


def weights_text(weights: Sequence[int]) -> str:
    """Radar weights in words, axis by axis: 'correctness 60%, latency 20%, …'."""
    return ", ".join(f"{axis} {int(w)}%" for axis, w in zip(RADAR_AXES, weights))


_FLAGS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def _parse_flag(key: StateKey, values: list[str], agents: Collection[str]) -> bool:
    flag = _FLAGS.get(values[0].strip().lower())
    if flag is None:
        raise _Refused(f"must be {key.describe()}, got {quoted(values[0])}")
    return flag


def _parse_integer(key: StateKey, values: list[str], agents: Collection[str]) -> int:
    number = _integer(values[0])
    if number is None or not key.low <= number <= key.high:
        raise _Refused(f"must be {key.describe()}, got {quoted(values[0])}")
    return number


def _parse_choice(key: StateKey, values: list[str], agents: Collection[str]) -> str:
    if values[0] not in key.options:
        raise _Refused(f"must be {key.describe()}, got {quoted(values[0])}")
    return values[0]


def _parse_dataset(key: StateKey, values: list[str], agents: Collection[str]) -> str:
    try:
        return dataset_token(dataset_source(values[0]))
    except ValueError as exc:
        raise _Refused(str(exc)) from None


def _encode_number(value: float) -> str:
    """The shortest text that reads back as the same float (500.0 -> '500', 0.4 -> '0.4')."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def policy_value_text(spec: FieldSpec, value: Any) -> str:
    """One sandbox constant as a link writes it: a number, 'k,k,k', 'w,w,w,w,w' or 'x:s,x:s'."""
    if spec.kind == "anchors":
        return ",".join(f"{_encode_number(x)}:{_encode_number(s)}" for x, s in zip(value["xs"], value["scores"]))
    if spec.kind == "weights":
        return ",".join(_encode_number(value[a]) for a in RADAR_AXES)
    if spec.kind == "levels":
        return ",".join(str(int(k)) for k in value)
    return str(int(value)) if spec.kind == "integer" else _encode_number(value)


def policy_value(spec: FieldSpec, text: str) -> Any:
    """One sandbox constant read from a link (the inverse of :func:`policy_value_text`); _Refused if unreadable.

    Only the shape is read here (bounded by the field's item count); the policy's validator judges the values.
    """
    items = text.split(",")
    if spec.kind == "number":
        number = _number(text)
        if number is None:
            raise _Refused(f"must be a number, got {quoted(text)}")
        return number
    if spec.kind == "integer":
        whole = _integer(text)
        if whole is None:
            raise _Refused(f"must be a whole number, got {quoted(text)}")
        return whole
    if spec.kind == "levels":
        if len(items) > spec.max_items:
            raise _Refused(f"at most {spec.max_items} levels, got {len(items)}")
        levels = [_integer(p) for p in items]
        if any(k is None for k in levels):
            raise _Refused(f"must be whole numbers separated by commas, got {quoted(text)}")
        return levels
    if spec.kind == "weights":
        weights = [_number(p) for p in items]
        if len(items) != len(RADAR_AXES) or any(w is None for w in weights):
            raise _Refused(f"must be {len(RADAR_AXES)} numbers separated by commas ({', '.join(RADAR_AXES)}), "
                           f"got {quoted(text)}")
        return dict(zip(RADAR_AXES, weights))
    if len(items) > spec.max_items:
        raise _Refused(f"at most {spec.max_items} anchors, got {len(items)}")
    pairs = [p.split(":") for p in items]
    xs, scores = [_number(p[0]) for p in pairs if len(p) == 2], [_number(p[1]) for p in pairs if len(p) == 2]
    if len(xs) != len(items) or any(v is None for v in xs + scores):
        raise _Refused(f"must be position:score pairs separated by commas, got {quoted(text)}")
    return {"xs": xs, "scores": scores}


def _base_field(name: str) -> str:
    """The constant a validator error names ('cost_anchors.xs[2]' -> 'cost_anchors')."""
    return re.split(r"[.\[]", name, maxsplit=1)[0]


def parse_policy(texts: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Sandbox constants from ``policy.<constant>`` texts: the changes the policy's validator accepts, and
    a notice for each refused one (an unknown constant, an unreadable value, a value out of bounds, weights
    that no longer sum to 1 — every constant an error names is dropped and the rest judged again)."""
    notices: list[str] = []
    changes: dict[str, Any] = {}
    for name, text in texts.items():
        spec = FIELD_BY_NAME.get(name)
        if spec is None:
            notices.append(f"{POLICY_PREFIX}{quoted(name)[1:-1]}: not a policy constant; ignored")
            continue
        try:
            changes[name] = policy_value(spec, text)
        except _Refused as exc:
            notices.append(f"{POLICY_PREFIX}{name}: {exc}; ignored")
    for _ in range(len(FIELDS) + 1):  # each round drops at least one constant
        try:
            policy_from_dict(changes)
        except PolicyError as error:
            # A constant's own bound first: a sum is judged again without it (before, "success_weight=2" was
            # refused twice, its range and then a sum that counted the value already refused).
            errors = [e for e in error.errors if " + " not in e.field] or error.errors
            named = {n for e in errors for part in e.field.split(" + ")
                     if (n := _base_field(part.strip())) in changes}
            for e in errors:
                notices.append(f"{POLICY_PREFIX}{e.field}: {e.message}; ignored")
            if not named:  # cannot happen for a dict of known constants; never loop on it
                return {}, notices
            changes = {k: v for k, v in changes.items() if k not in named}
        else:
            break
    canonical = policy_to_dict(CANONICAL_POLICY)
    return {k: v for k, v in changes.items() if v != canonical[k]}, notices


Parser = Callable[[StateKey, list[str], Collection[str]], Any]
KINDS: dict[str, Parser] = {"agent": _parse_agent, "agents": _parse_agents, "pairs": _parse_pairs,
                            "weights": _parse_weights,
                            "flag": _parse_flag, "integer": _parse_integer, "choice": _parse_choice,
                            "dataset": _parse_dataset}


def bounded(params: Mapping[str, Sequence[str] | str]) -> tuple[dict[str, list[str]], list[str]]:
    """The query parameters within the limits (count, value length, repeats), and a notice for each cut."""
    notices: list[str] = []
    out: dict[str, list[str]] = {}
    names = list(params)
    if len(names) > MAX_PARAMS:  # not counted further: a link's reader takes at most one more than it reads
        notices.append(f"the link has more than {MAX_PARAMS} parameters; only the first {MAX_PARAMS} are read")
        names = names[:MAX_PARAMS]
    for name in names:
        raw = params[name]
        values = [raw] if isinstance(raw, str) else list(raw)
        shown = quoted(name)[1:-1]
        if len(name) > 100:
            notices.append(f"{shown}: a parameter name longer than 100 characters; ignored")
            continue
        if len(values) > MAX_REPEATS:
            notices.append(f"{shown}: given {len(values)} times; only the first {MAX_REPEATS} are read")
            values = values[:MAX_REPEATS]
        long = [v for v in values if len(v) > MAX_VALUE_CHARS]
        if long:
            notices.append(f"{shown}: a value longer than {MAX_VALUE_CHARS} characters; ignored")
            values = [v for v in values if len(v) <= MAX_VALUE_CHARS]
        if values:
            out[name] = values
    return out, notices


def parse(params: Mapping[str, Sequence[str] | str], agents: Collection[str], *,
          only: Collection[str] | None = None, page: str | None = None) -> Parsed:
    """The state a link sets: every parameter of :data:`KEYS` read by its kind, each refusal a notice.

    ``agents`` are the dataset's agent ids (an agent parameter must name one). ``only`` limits the
    state read (by name); other known parameters are then skipped silently. The data source's own
    parameters (``data``, ``sha``) are read by :func:`parse_source`; the parameters ``page`` reads itself
    (:data:`PAGE_PARAMS`) are skipped.
    """
    own = PAGE_PARAMS.get(page or "", frozenset())
    params, notices = bounded({k: v for k, v in params.items() if k not in own})
    parsed = Parsed(notices=notices)
    policy_texts: dict[str, str] = {}
    weight_texts: dict[str, str] = {}
    for name, values in params.items():
        if name in STREAMLIT_PARAMS or name in SOURCE_PARAMS or name in SCORECARD_PARAMS or \
                name.startswith(RUNS_FILTER_PREFIX):  # carried for the Runs page, which reads them (explorer.drill)
            continue
        if name.startswith(POLICY_PREFIX):
            if only is None or "policy" in only:
                policy_texts[name[len(POLICY_PREFIX):]] = values[0]
            continue
        if name.startswith(WEIGHT_PREFIX):
            if only is None or "weights" in only:
                if len(values) > 1:
                    parsed.notices.append(f"{name}: given {len(values)} times; the first is used")
                weight_texts[name[len(WEIGHT_PREFIX):]] = values[0]
            continue
        key = KEY_BY_NAME.get(name)
        if key is None:
            parsed.notices.append(f"{quoted(name)[1:-1]}: not a setting this explorer reads; ignored")
            continue
        if only is not None and name not in only:
            continue
        if key.kind not in ("agents", "pairs") and len(values) > 1:
            parsed.notices.append(f"{name}: given {len(values)} times; the first is used")
        try:
            parsed.values[name] = KINDS[key.kind](key, values, agents)
        except _Refused as exc:
            parsed.notices.append(f"{name}: {exc}; ignored")
    if policy_texts:
        changes, notes = parse_policy(policy_texts)
        parsed.notices += notes
        if changes:
            parsed.values["policy"] = changes
    if weight_texts:
        by_name = _parse_named_weights(weight_texts, parsed.notices)
        if by_name is not None:
            if "weights" in parsed.values:
                parsed.notes.append(f"{LEGACY_WEIGHTS} and {WEIGHT_PREFIX}<axis> both given: the weights by axis "
                                    "name are used")
            parsed.values["weights"] = by_name
    elif "weights" in parsed.values:
        parsed.notes.append(f"This link gives the radar weights by position ({LEGACY_WEIGHTS}=…), an older form: "
                            f"read as {weights_text(parsed.values['weights'])}. A link copied now names each axis "
                            f"({WEIGHT_PREFIX}{RADAR_AXES[0]}=…).")
    return parsed


def _parse_named_weights(texts: Mapping[str, str], notices: list[str]) -> tuple[int, ...] | None:
    """The radar weights of ``w_<axis>`` parameters (an axis not named keeps its default); None when every
    one was refused (each refusal a notice)."""
    key = KEY_BY_NAME["weights"]
    weights = dict(zip(RADAR_AXES, DEFAULT_WEIGHTS))
    read = 0
    for axis, text in texts.items():
        name = f"{WEIGHT_PREFIX}{quoted(axis)[1:-1]}"
        if axis not in weights:
            notices.append(f"{name}: not a radar axis (the axes are {', '.join(RADAR_AXES)}); ignored")
            continue
        try:
            weights[axis] = _weight(key, text)
            read += 1
        except _Refused as exc:
            notices.append(f"{name}: {exc}; ignored")
    return tuple(weights[a] for a in RADAR_AXES) if read else None


def encode(values: Mapping[str, Any], page: str, agents: Collection[str] | None = None) -> dict[str, str | list[str]]:
    """The query parameters of ``page``'s link: every value of the view that differs from its default (a
    parameter ``page`` reads itself, such as the Runs page's ``agent`` filter, is left to it). With ``agents``
    (the dataset shown), an agent the state keeps from another dataset is left out: the link names only what it
    shows (a link naming an agent its data does not have opens with a notice)."""
    own, alias = PAGE_PARAMS.get(page, frozenset()), PAGE_ALIASES.get(page, {})
    out: dict[str, str | list[str]] = {}
    for key in KEYS:
        if (key.name in own and key.name not in alias) or key.name not in values:
            continue
        value = values[key.name]
        if agents is not None and key.kind == "agent" and value not in agents:  # the data shown's agents only
            continue
        if agents is not None and key.kind == "agents" and value is not None:
            value = [a for a in value if a in agents] or None
        if value is None or value == key.default or (key.kind == "weights" and tuple(value) == key.default):
            continue
        if key.kind == "agents":
            out[key.name] = [str(a) for a in value]
        elif key.kind == "pairs":
            out[key.name] = [str(agent) for pair in value for agent in pair]
        elif key.kind == "weights":
            out.update({f"{WEIGHT_PREFIX}{a}": str(int(w)) for a, w in zip(RADAR_AXES, value)})
        elif key.kind == "flag":
            out[key.name] = "1" if value else "0"
        elif key.kind == "policy":
            out.update({f"{POLICY_PREFIX}{name}": policy_value_text(FIELD_BY_NAME[name], v)
                        for name, v in sorted(value.items(), key=lambda item: _FIELD_ORDER[item[0]])})
        else:
            out[alias.get(key.name, key.name)] = str(value)
    return out


_FIELD_ORDER = {f.name: i for i, f in enumerate(FIELDS)}


# --------------------------------------------------------------------------- the data source of a link

SOURCE_PARAMS = ("data", "sha", "exclude")
# Query parameters read from one link (the rest are ignored with a notice): every name the fullest view can write
# (the source, each setting of KEYS, a radar weight per axis and a sandbox constant per field, each page's own and
# carried parameters) and Streamlit's own, 53. It was 40, and a sandbox with every constant changed, the radar's
# weights, a scorecard and the Runs filter wrote more, whose link was cut with a notice and the view not restored.
MAX_PARAMS = (len(SOURCE_PARAMS) + len(STREAMLIT_PARAMS) + sum(len(names) for names in PAGE_PARAMS.values())
              + sum(len(RADAR_AXES) if k.kind == "weights" else len(FIELDS) if k.kind == "policy" else 1 for k in KEYS))
EXCLUDED = "invalid"  # exclude=invalid: the link's dataset was scored with its invalid rows excluded
_SHA = re.compile("[0-9a-f]{" + str(SHA_CHARS) + "}")
_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,100}")


@dataclass(frozen=True)
class Source:
    """The dataset a link was made on: the sample, an operator's connection and table, or a file by its hash."""

    kind: Literal["sample", "connection", "upload", "import", "url"] = "sample"
    connection: str | None = None
    table: str | None = None
    sha: str | None = None  # first SHA_CHARS hex digits of the dataset's sha256
    excluded: bool = False  # scored with its invalid rows excluded ("Exclude the invalid rows")

    @property
    def waits_for_data(self) -> bool:
        """Whether the link's agents wait until the viewer provides the dataset (an upload)."""
        return self.kind in ("upload", "import") and self.sha is not None


def encode_source(kind: str, *, connection: str | None = None, table: str | None = None,
                  sha256: str | None = None, excluded: bool = False) -> dict[str, str]:
    """The source parameters of a link: none for the sample; an operator's connection by name and table;
    an upload by the start of its sha256; ``exclude=invalid`` where its invalid rows were excluded. A viewer's
    own database URL is never written (it may hold a password): the link says only that it was made on one."""
    exclude = {"exclude": EXCLUDED} if excluded else {}
    if kind == "sample":
        return {}
    if kind == "connection" and connection and table:
        return {"data": f"db:{connection}/{table}", **exclude}
    if kind in ("upload", "import") and sha256:
        return {"data": kind, "sha": sha256[:SHA_CHARS], **exclude}
    return {"data": "url"}


def parse_source(params: Mapping[str, Sequence[str] | str],
                 connections: Mapping[str, Collection[str]]) -> tuple[Source, list[str]]:
    """The dataset a link names, checked against the operator's ``connections`` (name -> tables); notices
    for a source this deployment cannot open (the sample is shown instead)."""
    params, _ = bounded({k: v for k, v in params.items() if k in SOURCE_PARAMS})
    repeated = [f"{name}: given {len(values)} times; the first is used" for name, values in params.items()
                if len(values) > 1]  # as every other parameter says it
    source, notices = _source(params.get("data", [None])[0], params.get("sha", [None])[0], connections)
    exclude = params.get("exclude", [None])[0]
    if exclude is not None and exclude != EXCLUDED:
        notices.append(f"exclude: must be {EXCLUDED}, got {quoted(exclude)}; ignored")
    elif exclude is not None and source.kind in ("upload", "import", "connection"):
        source = replace(source, excluded=True)
    elif exclude is not None and "data" not in params:  # (a data= the deployment cannot open says so itself)
        notices.append("exclude: the sample data has no invalid row to exclude; ignored")
    return source, repeated + notices


def _source(data: str | None, sha: str | None, connections: Mapping[str, Collection[str]]) -> tuple[Source, list[str]]:
    if data is None or data == "sample":
        return Source(), []
    if sha is not None and not _SHA.fullmatch(sha.lower()):
        return Source(), [f"sha: must be {SHA_CHARS} hex digits, got {quoted(sha)}; ignored"]
    sha = sha.lower() if sha else None
    if data in ("upload", "import"):
        if sha is None:
            return Source(), [f"data={data}: the link gives no sha; the sample data is shown"]
        return Source("upload" if data == "upload" else "import", sha=sha), []
    if data == "url":
        return Source(), ["data=url: the link was made on a database the viewer typed in, which a link cannot "
                          "name; the sample data is shown"]
    if data.startswith("db:") and "/" in data:
        name, table = data[3:].split("/", 1)
        if not _NAME.fullmatch(name) or not _NAME.fullmatch(table) or table not in connections.get(name, ()):
            return Source(), [f"data: {quoted(data)} is not a connection and table this deployment offers; "
                              "the sample data is shown"]
        return Source("connection", connection=name, table=table, sha=sha), []
    return Source(), [f"data: must be sample, upload, import or db:<connection>/<table>, got {quoted(data)}; "
                      "the sample data is shown"]


def dataset_token(source: Source) -> str:
    """A dataset as one link value (Compare's ``baseline`` and ``new``): ``sample``, ``upload:<sha>`` or
    ``import:<sha>`` (the first :data:`SHA_CHARS` hex digits of its sha256), ``db:<connection>/<table>``.

    >>> dataset_token(Source("upload", sha="0123456789abcdef")), dataset_token(Source())
    ('upload:0123456789abcdef', 'sample')
    """
    if source.kind in ("upload", "import") and source.sha:
        return f"{source.kind}:{source.sha[:SHA_CHARS]}"
    if source.kind == "connection" and source.connection and source.table:
        return f"db:{source.connection}/{source.table}"
    return "sample"


def dataset_source(text: str) -> Source:
    """The dataset a link value names (the inverse of :func:`dataset_token`), its shape only: whether this
    deployment offers a connection and table is for the page to judge. ValueError (its message quoting at
    most :data:`SHOWN_CHARS` characters of the value) for anything else.

    >>> dataset_source("import:0123456789ABCDEF")
    Source(kind='import', connection=None, table=None, sha='0123456789abcdef')
    """
    text = text.strip()
    kind, _, rest = text.partition(":")
    if text == "sample":
        return Source()
    if kind in ("upload", "import") and _SHA.fullmatch(rest.lower()):
        return Source("upload" if kind == "upload" else "import", sha=rest.lower())
    if kind == "db" and "/" in rest:
        name, table = rest.split("/", 1)
        if _NAME.fullmatch(name) and _NAME.fullmatch(table):
            return Source("connection", connection=name, table=table)
    raise ValueError(f"must be {KEY_BY_NAME['baseline'].describe()}, got {quoted(text)}")


# --------------------------------------------------------------------------- Streamlit: session and URL

STORE = "view_state"  # state name -> value, shared by every page of the session
LINK = "view_link"  # what the session's first URL asked for: Link
VERSION = "view_version"  # raised when a link sets state that widgets already drawn must take
SEEDED = "view_seeded"  # widget key -> the VERSION it was last seeded at
NOTICES = "view_notices"  # (page url path, notices) shown on the page the link opened
WRITTEN = "view_written"  # the query parameters the session's last run wrote (write_url), each a list


@dataclass
class Link:
    """The session's first URL: its source, the parameters that still wait for their dataset, and notices."""

    source: Source
    waiting: dict[str, list[str]]  # agent parameters kept until the expected dataset is shown
    notices: list[str]
    notes: list[str] = field(default_factory=list)  # how an older form was read (shown as information)
    carried: dict[str, list[str]] = field(default_factory=dict)  # a page's own parameters, for that page


def _st() -> Any:
    import streamlit as st

    return st


def read_link(connections: Mapping[str, Collection[str]], page: str = "") -> Source | None:
    """On the session's first run, read its URL: the source it names (to load before anything is scored) and
    the settings that do not depend on the dataset. None on every later run."""
    st = _st()
    if STORE in st.session_state:
        return None
    st.session_state[STORE] = {}
    params = {name: st.query_params.get_all(name) for name in list(st.query_params)[:MAX_PARAMS + 1]}
    own = PAGE_PARAMS.get(page, frozenset())  # the landing page's own parameters: it reads them itself
    # The radar's scorecard opened on another page: kept for the radar page, and in every page's link meanwhile.
    carried = {k: v for k, v in params.items()
               if (k in SCORECARD_PARAMS or k.startswith(RUNS_FILTER_PREFIX)) and k not in own}
    # Bounded once, here: the settings read now and the agent settings read once the dataset is shown (settle_link)
    # take the same bounded values, so that each cut is said once. A state the page names otherwise (PAGE_ALIASES)
    # is read under its own name.
    names = {param: name for name, param in PAGE_ALIASES.get(page, {}).items()}
    params, cut = bounded({names.get(k, k): v for k, v in params.items() if k not in own})
    source, notices = parse_source(params, connections)
    free = parse(params, (), only=[k.name for k in KEYS if k.kind not in AGENT_KINDS])
    st.session_state[STORE].update(free.values)
    waiting = {k: v for k, v in params.items() if k in KEY_BY_NAME and KEY_BY_NAME[k].kind in AGENT_KINDS}
    st.session_state[LINK] = Link(source, waiting, cut + notices + free.notices, free.notes, carried)
    return source


def carried_params(page: str) -> dict[str, list[str]]:
    """Parameters a link gave for another page to read itself (the radar's scorecard), until that page takes
    them: :func:`take_carried` on that page."""
    link: Link | None = _st().session_state.get(LINK)
    if link is None:
        return {}
    return {k: v for k, v in link.carried.items() if k not in PAGE_PARAMS.get(page, frozenset())}


def take_carried(names: Collection[str]) -> dict[str, list[str]]:
    """The carried parameters among ``names``, once (the page that reads them calls this)."""
    link: Link | None = _st().session_state.get(LINK)
    if link is None:
        return {}
    taken = {k: v for k, v in link.carried.items() if k in names}
    link.carried = {k: v for k, v in link.carried.items() if k not in names}
    return taken


def _names(hashes: Collection[str], prefix: str | None) -> bool:
    """One of the shown dataset's ``hashes`` starts with the link's sha256 prefix."""
    return prefix is not None and any(h.startswith(prefix) for h in hashes)


def excludes_invalid_rows(hashes: Collection[str], connection: str | None = None, table: str | None = None) -> bool:
    """Whether the link names the dataset shown (an upload by its ``hashes``, a connection by its ``connection`` and
    ``table``) as scored with its invalid rows excluded, while it is still to be settled: the data is then read
    so, as the link's maker saw it. Any other dataset is read as it is."""
    link: Link | None = _st().session_state.get(LINK)
    if link is None or not link.source.excluded:
        return False
    if link.source.kind == "connection":
        return (connection, table) == (link.source.connection, link.source.table)
    return _names(hashes, link.source.sha)


def settle_link(agents: Collection[str] | None, hashes: Collection[str]) -> None:
    """Apply the link's agent settings once the dataset it expects is shown (at once unless it expects an
    upload). ``agents`` is None while the dataset is refused; ``hashes``: the shown dataset's sha256s that a
    link may name (``explorer.data.link_hashes``)."""
    st = _st()
    link: Link | None = st.session_state.get(LINK)
    if link is None or agents is None:
        return
    if link.source.waits_for_data and not _names(hashes, link.source.sha):
        return
    parsed = parse(link.waiting, agents, only=[k.name for k in KEYS if k.kind in AGENT_KINDS])
    if parsed.values.get("versus") is not None and parsed.values.get("versus") == parsed.values.get("agent"):
        parsed.notices.append("versus: the same agent as agent; ignored")
        del parsed.values["versus"]
    st.session_state[STORE].update(parsed.values)
    if parsed.values:  # widgets already drawn (on the data shown before the upload) take the link's values
        reseed()
    link.notices += parsed.notices
    link.waiting = {}
    link.source = Source()  # settled: the link's dataset is shown (or it never named one)


def reseed() -> None:
    """Every widget tied to the state (bound) takes the state's value when it is next drawn.

    For a change of the state that widgets already drawn must show: a link settled after an upload, or a callback
    that resets values and then reruns only part of the page (a value a callback writes to a widget's own key does
    not reach the browser once the callback ends its run with ``st.rerun``; one written while the widget is drawn
    does)."""
    st = _st()
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def waiting_for(hashes: Collection[str]) -> str | None:
    """The sha256 prefix a link waits for when the dataset shown is not it (None: nothing waits). A link that
    names an upload waits for it even with no other setting: the data is the first part of the view."""
    link: Link | None = _st().session_state.get(LINK)
    if link is None or not link.source.waits_for_data:
        return None
    return None if _names(hashes, link.source.sha) else link.source.sha


def awaited_params(hashes: Collection[str]) -> dict[str, str | list[str]]:
    """While a link waits for its upload: the upload it names and the settings waiting with it, which the page's
    URL and link keep (before, they showed the data shown instead: a reload or a copy before the upload lost
    both). Empty when nothing waits."""
    link: Link | None = _st().session_state.get(LINK)
    sha = waiting_for(hashes)
    if link is None or sha is None:
        return {}
    return {**encode_source(link.source.kind, sha256=sha, excluded=link.source.excluded), **link.waiting}


def take_notices() -> tuple[list[str], list[str]]:
    """The link's notices and notes (unescaped text), once: the caller shows them."""
    link: Link | None = _st().session_state.get(LINK)
    if link is None or not (link.notices or link.notes):
        return [], []
    notices, notes, link.notices, link.notes = link.notices, link.notes, [], []
    return notices, notes


def get(name: str) -> Any:
    """The current value of a piece of state (its default when nothing set it)."""
    store = _st().session_state.setdefault(STORE, {})
    return store.get(name, KEY_BY_NAME[name].default)


def view() -> dict[str, Any]:
    """Every piece of state with its current value (its default when nothing set it)."""
    return {key.name: get(key.name) for key in KEYS}


def put(name: str, value: Any) -> None:
    _st().session_state.setdefault(STORE, {})[name] = value


def bound(name: str, key: str, options: Sequence[Any] | None = None, *, part: int | None = None,
          fallback: Any = None, then: Callable[[], None] | None = None) -> dict[str, Any]:
    """Keyword arguments that tie a widget to the state ``name``: its ``key``, seeded from the state when the
    widget has no value yet (a first visit, or the page was left and its widgets dropped) or when a link
    set the state after the widget was drawn (its agents, once the upload it waited for is shown), and an
    ``on_change`` that writes the viewer's choice back. ``options`` are the widget's choices (a value not
    among them is not seeded); ``part`` is an index into a tuple value (one slider of the weights);
    ``fallback`` seeds the widget when the state has no value (a default that depends on the data, such
    as the radar's top three agents: it is not written to the state, so a link leaves it out); ``then`` is called
    after the choice is written back (a callback that reruns only part of the page).

    The widget must not be given its own ``value``/``index``/``default``: the state is its only source.
    """
    st = _st()
    seeded = st.session_state.setdefault(SEEDED, {})
    version = st.session_state.get(VERSION, 0)
    if key not in st.session_state or seeded.get(key, version) != version:
        seeded[key] = version
        value = get(name)
        if value is None:
            value = fallback
        if part is not None and value is not None:
            value = value[part]
        if isinstance(value, list) and options is not None:
            value = [v for v in value if v in options]
        elif options is not None and value not in options:  # not offered (a link's level=1000): the fallback
            value = fallback if fallback is not None and fallback in options else None
        if value is not None:
            st.session_state[key] = value
    return {"key": key, "on_change": _write_back, "args": (name, key, part, then)}


def say_if_not_offered(name: str, shown: Any, options: Sequence[Any], describe: Callable[[Any], str] = str) -> None:
    """When the state ``name`` holds a value the page does not offer (a link's ``level=2`` where the levels are 1, 3
    and 5), say so under the widget, and the value shown takes its place in the state (so the page's link says
    what is shown)."""
    wanted = get(name)
    if wanted is None or wanted in options:
        return
    put(name, shown)
    _st().caption(f":material/link_off: The {KEY_BY_NAME[name].name} asked for, {describe(wanted)}, is not offered "
                  f"here (only {', '.join(describe(o) for o in options)}): {describe(shown)} is shown.")


def _write_back(name: str, key: str, part: int | None, then: Callable[[], None] | None = None) -> None:
    st = _st()
    value = st.session_state[key]
    if part is not None:
        current = list(get(name))
        current[part] = value
        value = tuple(current)
    put(name, list(value) if isinstance(value, list) else value)
    if then is not None:
        then()


def write_url(page: str, source: Mapping[str, str | list[str]],
              awaited: Mapping[str, str | list[str]] | None = None,
              agents: Collection[str] | None = None) -> dict[str, str | list[str]]:
    """Mirror the state of ``page`` (and the data source) in the URL; returns the parameters written. ``awaited``:
    the upload a link waits for and its waiting settings (:func:`awaited_params`), in place of the shown ones;
    ``agents``: the dataset's shown (:func:`encode`)."""
    st = _st()
    current = {k: st.query_params.get_all(k) for k in st.query_params}
    params: dict[str, str | list[str]] = {**source, **encode(st.session_state.get(STORE, {}), page, agents),
                                          **(awaited or {})}
    # What the page put in its link itself (the radar's scorecard, the Runs page's filter) stays there; what a
    # link gave for another page (a scorecard opened on the Headline page) travels on until that page reads it.
    params.update({k: v for k, v in current.items() if k in PAGE_PARAMS.get(page, ())})
    params.update(carried_params(page))
    wanted = {k: (v if isinstance(v, list) else [v]) for k, v in params.items()}
    if current != wanted:
        st.query_params.from_dict(params)
    st.session_state[WRITTEN] = wanted
    return params


def follow_history(page: str, agents: Collection[str] | None) -> None:
    """Back and Forward: a URL on this run that is not the one the session last wrote is one the browser restored
    from its history (each change of the view wrote a new one), and the view follows it: every setting it gives,
    and the default of every one it leaves out. Before, the view was written over it at once, so Back changed
    nothing on a page (a reviewer pressed it three times after three moves of a slider). The dataset stays the
    one shown (Back cannot bring an upload back); an empty URL is a page opened from the sidebar, not history."""
    st = _st()
    written = st.session_state.get(WRITTEN)
    current = {k: st.query_params.get_all(k) for k in list(st.query_params)[:MAX_PARAMS + 1]}
    if written is None or not current or current == written:
        return
    own = PAGE_PARAMS.get(page, frozenset())  # the page's own parameters: it reads them itself, as read_link leaves
    names = {param: name for name, param in PAGE_ALIASES.get(page, {}).items()}
    parsed = parse({names.get(k, k): v for k, v in current.items() if k not in own}, agents or ())
    store = st.session_state.setdefault(STORE, {})
    if parsed.values != store:
        store.clear()
        store.update(parsed.values)
        reseed()


def link_url(base: str, url_path: str, params: Mapping[str, str | list[str]]) -> str:
    """The full link of a page: the scheme and host of ``base`` (the URL the browser opened), the page's
    path and its query parameters.

    >>> link_url("http://localhost:8501/radar?x=1", "headline", {"agent": "a b"})
    'http://localhost:8501/headline?agent=a+b'
    """
    parts = urlsplit(base or "")
    query = urlencode(params, doseq=True)
    return urlunsplit((parts.scheme, parts.netloc, "/" + url_path.lstrip("/"), query, ""))


def show_link_notices(page: str) -> None:
    """The link's refusals, on the page the link opened (escaped: they quote what the link said)."""
    st = _st()
    taken, read = take_notices()
    if taken or read:
        st.session_state[NOTICES] = (page, taken, read)
    shown_on, notices, notes = st.session_state.get(NOTICES, ("", [], []))
    if shown_on != page:
        return
    from . import format as fmt

    if notices:
        st.warning("Some of this link's settings were not applied:\n\n"
                   + "\n".join(f"- {fmt.plain(n)}" for n in notices[:12])
                   + (f"\n- … and {len(notices) - 12} more" if len(notices) > 12 else ""),
                   icon=":material/link_off:")
    for note in notes:
        st.info(fmt.plain(note), icon=":material/link:")


def copy_link(page: PageSpec, source: Mapping[str, str | list[str]],
              awaited: Mapping[str, str | list[str]] | None = None, agents: Collection[str] | None = None) -> str:
    """Mirror ``page``'s state in the URL and offer its full link to copy (st.code has a copy button); ``agents``:
    the dataset's shown, the only ones the link names (None: the data is refused, the state's agents as kept)."""
    st = _st()
    params = write_url(page.name, source, awaited, agents)
    url = link_url(str(st.context.url or ""), page.url_path, params)
    with st.popover("Copy link", icon=":material/link:", width="stretch", key="copy_link",
                    help="A link to this page with its settings: paste it in the meeting chat"):
        st.caption("This page with its settings. Point at the box: a copy button shows at its right (or select the "
                   "text and copy it).")
        st.code(url, language=None, wrap_lines=True)
        compared = [get(side) for side in ("baseline", "new")] if page.name == "compare" and \
            get("compare") == "datasets" else []
        if params.get("data") in ("upload", "import") or any(str(c).startswith(("upload:", "import:"))
                                                             for c in compared):
            st.caption("It opens on an upload: whoever opens it is asked for the same file (by its sha256)."
                       + (" That file was refused here: with it, they see the same refusal."
                          if agents is None and params.get("data") in ("upload", "import") and not awaited else ""))
    return url
