"""Two result sets under one policy: this week's runs against last week's (``diff BASELINE NEW``).

Each agent present in both sets is compared with itself: the baseline's runs against the new runs,
by the Compare page's code (:func:`scoring.analysis.drilldown.compare`, new minus baseline), so the rule is
the same one, stated in :data:`RULE`:

- **Interval** (explorer-defined): a paired bootstrap over tasks. Each replicate draws, with
  replacement, as many tasks as either set completed a run on for the agent; the baseline's and
  the new set's completed runs on each drawn task are all kept; both headlines are re-scored and
  subtracted. The interval is the central 95% percentile interval of those differences (widened to
  contain the observed change if needed). Identical sets give an interval of exactly 0.
- **Verdict**: "better" when the interval lies above 0, "worse" when it lies below 0, "no real
  change" when it contains 0. An agent with a headline score in one set and none in the other (no
  completed run) is "worse" (the score was lost: a drop of the whole baseline score) or "better";
  with none in either, "no real change".
- **Gate** (``--fail-on-drop POINTS``): an agent fails it when its verdict is "worse" and its drop
  is at least POINTS headline points. A gate with no agent in both sets compared nothing: it neither
  passes nor fails (exit status 2), so a renamed agent never lets a drop through unseen. Nor does a
  gate pass with a baseline agent the new set does not have (a harness that skipped it): it is
  "agents missing" (exit status 2) unless an agent fails, until the agent is paired (``--pair``) or
  the agents gated are named (``--agent``).
- **Pairs** (``--pair BASELINE_ID NEW_ID``): an agent renamed between the sets (tau-bench names its agent
  after the results file) is compared under its new id; the pairing is stated in every rendering.
- **Newly solved / newly failed**: tasks both sets have a known terminal outcome on that the new
  set solved at least once and the baseline never (newly solved), or the reverse (newly failed).

Every other change (each component's points, each radar axis, each pass^k level) is a plain
difference of the two sets' published numbers, new minus baseline.
"""

from __future__ import annotations

import html
import json
import textwrap
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from scoring.analysis.drilldown import Comparison, compare
from scoring.analysis.explain import COMPONENTS
from scoring.analysis.uncertainty import DEFAULT_CONFIDENCE, DEFAULT_REPLICATES, DEFAULT_SEED, Interval
from scoring.contract import format as fmt
from scoring.contract.policy import CANONICAL_POLICY, Policy
from scoring.measures.axes import AXIS_LABELS, RADAR_AXES
from scoring.measures.report import AgentReport, score_runs

Verdict = Literal["better", "worse", "no real change"]
VERDICTS: tuple[Verdict, ...] = ("better", "worse", "no real change")
BASELINE, NEW = "baseline", "new"
MARKDOWN_WIDTH = 100

RULE = ("Interval: a paired bootstrap over tasks (the Compare page's rule, explorer-defined): each replicate "
        "draws, with replacement, as many tasks as either set completed a run on for the agent; both sets' "
        "completed runs on each drawn task are kept, both headlines re-scored and subtracted (new minus "
        "baseline); the interval is the percentile interval of those differences. Verdict: better when the "
        "interval lies above 0, worse when below 0, no real change when it contains 0.")


@dataclass(frozen=True)
class Change:
    """One number in both sets and its change (new minus baseline); None where either is undefined."""

    baseline: float | None
    new: float | None
    change: float | None

    @classmethod
    def of(cls, baseline: float | None, new: float | None, decimals: int | None = None) -> Change:
        if baseline is None or new is None:
            return cls(baseline, new, None)
        delta = new - baseline
        return cls(baseline, new, delta if decimals is None else round(delta, decimals))

    def to_json(self) -> dict[str, float | None]:
        return {"baseline": self.baseline, "new": self.new, "change": self.change}


@dataclass(frozen=True)
class AgentDiff:
    """One agent in both sets: every change is new minus baseline."""

    agent_id: str
    baseline: AgentReport
    new: AgentReport
    comparison: Comparison  # drilldown.compare(new, baseline)
    verdict: Verdict

    @property
    def headline(self) -> Change:
        return Change(self.baseline.headline.score, self.new.headline.score, self.comparison.score_delta)

    @property
    def interval(self) -> Interval | None:
        return self.comparison.interval

    @property
    def drop(self) -> float:
        """Headline points lost (0 unless the verdict is "worse"); a lost score drops the whole baseline score."""
        if self.verdict != "worse":
            return 0.0
        if self.headline.change is None:
            return float(self.baseline.headline.score or 0.0)
        return max(0.0, -self.headline.change)

    def fails(self, threshold: float | None) -> bool:
        """Whether a real drop of at least ``threshold`` points fails the gate (never without a threshold)."""
        return threshold is not None and self.verdict == "worse" and self.drop >= threshold

    @property
    def components(self) -> dict[str, Change]:
        """Points earned per component of the headline (SPEC 3, on the 0-100 scale)."""
        frame = self.comparison.components.set_index("name")
        return {name: Change(_number(frame.at[name, "earned_b"]), _number(frame.at[name, "earned_a"]),
                             _number(frame.at[name, "difference"])) for name in COMPONENTS}

    @property
    def axes(self) -> dict[str, Change]:
        """Each radar axis (0-100, SPEC 4)."""
        d = self.baseline.headline.policy.score_decimals
        return {axis: Change.of(self.baseline.radar.axes[axis], self.new.radar.axes[axis], d) for axis in RADAR_AXES}

    @property
    def pass_k(self) -> dict[int, Change]:
        """Each pass^k level (a 0-1 fraction, SPEC 5)."""
        b, n = self.baseline.repeatability, self.new.repeatability
        return {k: Change.of(None if b.pass_k is None else b.pass_k[k], None if n.pass_k is None else n.pass_k[k])
                for k in b.levels}

    @property
    def newly_solved(self) -> tuple[str, ...]:
        return self.comparison.solved_only_by_a

    @property
    def newly_failed(self) -> tuple[str, ...]:
        return self.comparison.solved_only_by_b

    def to_json(self, threshold: float | None = None) -> dict[str, Any]:
        i = self.interval
        return {"agent_id": self.agent_id, "verdict": self.verdict, "headline": self.headline.to_json(),
                "interval": None if i is None else i.to_json(), "share_new_ahead": self.comparison.share_a_ahead,
                "fails_gate": self.fails(threshold),
                "components": {k: v.to_json() for k, v in self.components.items()},
                "radar": {k: v.to_json() for k, v in self.axes.items()},
                "pass_k": {str(k): v.to_json() for k, v in self.pass_k.items()},
                "newly_solved": list(self.newly_solved), "newly_failed": list(self.newly_failed),
                "tasks_only_in_new": list(self.comparison.tasks_only_a),
                "tasks_only_in_baseline": list(self.comparison.tasks_only_b),
                **({"harness": {side: None if r.harness is None else r.harness.to_json()
                                for side, r in (("baseline", self.baseline), ("new", self.new))}}
                   if self.harness_words() else {})}

    def harness_words(self) -> list[str]:
        """Each side's harness reading in words (its own rules, not the canonical score), for an agent imported from
        a harness file in either set: what the vendor's harness said before and after, beside the diff."""
        from scoring.measures.report import harness_words

        return [f"{side}: {harness_words(r.harness)}" for side, r in (("baseline", self.baseline), ("new", self.new))
                if r.harness is not None]


def _number(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Diff:
    """Every agent of two result sets: those in both compared, those in one listed."""

    policy: Policy
    agents: tuple[AgentDiff, ...]
    only_in_baseline: tuple[str, ...]
    only_in_new: tuple[str, ...]
    replicates: int
    seed: int
    confidence: float
    baseline_name: str = BASELINE
    new_name: str = NEW
    pairs: tuple[tuple[str, str], ...] = ()  # (the baseline's id, the new set's id) of each agent renamed between them

    def failing(self, threshold: float | None) -> list[AgentDiff]:
        return [a for a in self.agents if a.fails(threshold)]

    def compared_nothing(self, threshold: float | None) -> bool:
        """A gate was asked for and no agent is in both sets: it checked nothing, so it cannot pass."""
        return threshold is not None and not self.agents

    def gate(self, threshold: float | None) -> str | None:
        """"pass", "fail", "nothing compared", "agents missing" (a baseline agent the new set lacks, and no
        failure), or None without a threshold."""
        if threshold is None:
            return None
        if self.compared_nothing(threshold):
            return "nothing compared"
        return "fail" if self.failing(threshold) else "agents missing" if self.only_in_baseline else "pass"

    def exit_code(self, threshold: float | None) -> int:
        """0 when nothing fails the gate, 1 when an agent's real drop reaches ``threshold`` points, 2 when the gate
        could not check every agent (an input error: no agent id in both sets, or a baseline agent missing from
        the new set)."""
        return {"fail": 1, "nothing compared": 2, "agents missing": 2}.get(self.gate(threshold) or "pass", 0)

    def to_json(self, threshold: float | None = None) -> dict[str, Any]:
        return {"policy_version": self.policy.version, "baseline": self.baseline_name, "new": self.new_name,
                "rule": RULE, "bootstrap": {"replicates": self.replicates, "seed": self.seed,
                                            "confidence": self.confidence},
                "fail_on_drop": threshold, "gate": self.gate(threshold),
                "paired": [{"baseline": old, "new": new} for old, new in self.pairs],
                "agents": [a.to_json(threshold) for a in self.agents],
                "only_in_baseline": list(self.only_in_baseline), "only_in_new": list(self.only_in_new)}


def verdict(baseline: float | None, new: float | None, interval: Interval | None) -> Verdict:
    """The rule of :data:`RULE`, from the two headline scores and the interval of their difference.

    >>> verdict(80.0, 75.0, Interval(-7.5, -2.5, -5.0))
    'worse'
    >>> verdict(80.0, 81.0, Interval(-0.5, 2.5, 1.0))
    'no real change'
    >>> verdict(None, 40.0, None), verdict(40.0, None, None), verdict(None, None, None)
    ('better', 'worse', 'no real change')
    """
    if baseline is None or new is None:
        return "no real change" if baseline is None and new is None else ("worse" if new is None else "better")
    if interval is None:  # no replicate had completed runs of both: nothing shows a real change
        return "no real change"
    if interval.low > 0:
        return "better"
    if interval.high < 0:
        return "worse"
    return "no real change"


def _pair(baseline: pd.DataFrame, new: pd.DataFrame, agent_id: str) -> pd.DataFrame:
    """One agent's runs of both sets as one frame of two agents, ``new`` and ``baseline``."""
    parts = [runs[(runs["agent_id"] == agent_id).to_numpy(dtype=bool)].assign(agent_id=name)
             for runs, name in ((baseline, BASELINE), (new, NEW))]
    return pd.concat(parts, ignore_index=True)


def check_pairs(had: Collection[str], has: Collection[str], pairs: Mapping[str, str]) -> None:
    """ValueError, in words, where ``pairs`` (a baseline id -> a new id) cannot be compared: a baseline id the
    baseline (``had``) does not have, a new id the new set (``has``) does not have, a new id the baseline already
    gives an agent of its own (unless that agent is paired too: two may swap names), two baseline agents paired
    with one new id, or an agent paired with itself (a mistake: it changes nothing).

    >>> check_pairs({"a", "b"}, {"a2", "b"}, {"a": "a2"})
    >>> check_pairs({"a", "b"}, {"a", "b"}, {"a": "b", "b": "a"})  # a swap
    >>> check_pairs({"a", "b"}, {"a", "b"}, {"a": "a"})
    Traceback (most recent call last):
    ValueError: 'a' is paired with itself: it is compared under its own id already
    >>> check_pairs({"a", "b"}, {"a2", "b"}, {"a": "b"})
    Traceback (most recent call last):
    ValueError: the baseline has an agent 'b' of its own; pair that one too, or compare 'a' under another id
    """
    paired_with: set[str] = set()
    for old, name in pairs.items():
        if old not in had:
            raise ValueError(f"no agent {fmt.named(old)} in the baseline")
        if name not in has:
            raise ValueError(f"no agent {fmt.named(name)} in the new set")
        if name in paired_with:
            raise ValueError(f"two baseline agents paired with {fmt.named(name)}")
        if old == name:
            raise ValueError(f"{fmt.named(old)} is paired with itself: it is compared under its own id already")
        if name in had and name not in pairs:
            raise ValueError(f"the baseline has an agent {fmt.named(name)} of its own; pair that one too, or "
                             f"compare {fmt.named(old)} under another id")
        paired_with.add(name)


def paired(baseline: pd.DataFrame, new: pd.DataFrame, pairs: Mapping[str, str]) -> pd.DataFrame:
    """The baseline's runs with each agent of ``pairs`` (the baseline's id -> the new set's id) under its new id,
    validated again (so in canonical order, the renamed agent among the others by its new id).

    ValueError, in words, for pairs the two sets do not allow (:func:`check_pairs`).
    """
    import pyarrow as pa

    from scoring.load.runs import validate_table

    # The agents of each set (a canonical frame's ids are categorical: found on their codes, not on 1M texts).
    had, has = (set(map(str, pd.unique(runs["agent_id"]))) for runs in (baseline, new))
    check_pairs(had, has, pairs)
    if all(old == name for old, name in pairs.items()):
        return baseline
    # Renamed on the agents (the categories), not run by run; validated again through Arrow's checks.
    agents = baseline["agent_id"].astype("category").cat.rename_categories(lambda agent: pairs.get(agent, agent))
    renamed = baseline.drop(columns="source_row").assign(agent_id=agents)
    runs = validate_table(pa.Table.from_pandas(renamed, preserve_index=False), source="the baseline, paired",
                          format="frame").runs
    # The check numbers the runs it was given 1..n (their order in ``baseline``): each keeps its file's row.
    return runs.assign(source_row=baseline["source_row"].to_numpy()[runs["source_row"].to_numpy() - 1])


def diff_runs(baseline: pd.DataFrame, new: pd.DataFrame, policy: Policy = CANONICAL_POLICY, *,
              agents: Iterable[str] | None = None, replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
              confidence: float = DEFAULT_CONFIDENCE, baseline_name: str = BASELINE,
              new_name: str = NEW, pairs: Mapping[str, str] | None = None,
              harness: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] | None = None) -> Diff:
    """Two canonical runs frames scored under one policy and compared agent by agent (new minus baseline).

    ``harness``: each set's harness readings (``LoadedRuns.harness``), said beside each agent's diff.

    ``agents`` limits the comparison to those agents (KeyError for a name in neither set); ``pairs`` compares
    each baseline agent it names with the new set's agent it names (:func:`paired`; ``agents`` then names the new
    ids).
    """
    pairs = dict(pairs or {})
    if pairs:
        baseline = paired(baseline, new, pairs)
    readings = harness or (None, None)
    # A baseline agent compared under its new id (pairs) keeps its harness reading
    before = {pairs.get(a, a): r for a, r in (readings[0] or {}).items()}
    reports = score_runs(baseline, policy, harness=before), score_runs(new, policy, harness=readings[1])
    ids = [[a.agent_id for a in r.agents] for r in reports]
    if agents is not None:
        wanted = list(dict.fromkeys(agents))
        unknown = [a for a in wanted if a not in ids[0] and a not in ids[1]]
        if unknown:
            raise KeyError(unknown[0])
        ids = [[a for a in side if a in wanted] for side in ids]
    in_new = set(ids[1])
    both = [a for a in ids[1] if a in set(ids[0])]  # the new set's leaderboard order
    compared = []
    for agent_id in both:
        c = compare(_pair(baseline, new, agent_id), NEW, BASELINE, policy, replicates=replicates, seed=seed,
                    confidence=confidence)
        compared.append(AgentDiff(agent_id, reports[0].agent(agent_id), reports[1].agent(agent_id), c,
                                  verdict(c.score_b, c.score_a, c.interval)))
    return Diff(policy, tuple(compared), tuple(a for a in ids[0] if a not in in_new),
                tuple(a for a in ids[1] if a not in set(ids[0])), replicates, seed, confidence, baseline_name,
                new_name, tuple(pairs.items()))


# --------------------------------------------------------------------------- rendering


def _signed(value: float | None, decimals: int = 2) -> str:
    """A change with its sign; a change that rounds to zero is +0.00, never -0.00."""
    if value is None:
        return fmt.DASH
    return f"{(round(value, decimals) or 0.0):+.{decimals}f}"


def _signed_pct(value: float | None) -> str:
    """A change of a 0-1 fraction in percentage points, as every page writes it: -0.227 -> -22.70 pp."""
    return fmt.pp(value)


def _interval_text(interval: Interval | None, decimals: int) -> str:
    return fmt.DASH if interval is None else f"{_signed(interval.low, decimals)} to {_signed(interval.high, decimals)}"


def _md_text(name: str) -> str:
    """A name as plain Markdown text on one line: every Markdown or HTML special backslash-escaped."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()<>#+-.!|~$&:" else ch for ch in fmt.one_line(name))


MISSING_AGENTS = ("the new set has no runs of a baseline agent; pair it with its new id (--pair BASELINE_ID "
                  "NEW_ID) or name the agents to gate (--agent)")
NO_AGENT_IN_BOTH = ("No agent is in both sets. An agent renamed between them (tau-bench names its agent after "
                    "the results file) is compared with --pair BASELINE_ID NEW_ID.")


def _gate_line(d: Diff, threshold: float | None, markdown: bool = False) -> str:
    if threshold is None:
        return "Gate: none (no --fail-on-drop)."
    if d.compared_nothing(threshold):
        return (f"Gate: fail on a real drop of {threshold:g} point{'' if threshold == 1 else 's'} or more: "
                f"NOTHING COMPARED, neither passed nor failed (exit status 2). {NO_AGENT_IN_BOTH}")
    failing = d.failing(threshold)

    def named(ids: Iterable[str]) -> str:
        return ", ".join(_md_text(a) if markdown else fmt.one_line(a) for a in ids)

    verdict = (f"FAILED ({named(a.agent_id for a in failing)})." if failing
               else f"AGENTS MISSING, not passed (exit status 2): {MISSING_AGENTS} ({named(d.only_in_baseline)})."
               if d.only_in_baseline else "passed.")
    return f"Gate: fail on a real drop of {threshold:g} point{'' if threshold == 1 else 's'} or more: {verdict}"


def json_text(d: Diff, threshold: float | None = None) -> str:
    return json.dumps(d.to_json(threshold), indent=2, allow_nan=False) + "\n"


def _detail_rows(a: AgentDiff, decimals: int) -> list[tuple[str, str, str, str]]:
    """(measure, baseline, new, change) for the components, the radar axes and the pass^k levels."""
    rows = [(f"points: {name}", fmt.score(c.baseline, decimals), fmt.score(c.new, decimals),
             _signed(c.change, decimals)) for name, c in a.components.items()]
    rows += [(f"radar: {AXIS_LABELS[axis].lower()}", fmt.score(c.baseline, decimals), fmt.score(c.new, decimals),
              _signed(c.change, decimals)) for axis, c in a.axes.items()]
    rows += [(f"pass^{k}", fmt.pct(c.baseline), fmt.pct(c.new), _signed_pct(c.change)) for k, c in a.pass_k.items()]
    return rows


def table_text(d: Diff, threshold: float | None = None) -> str:
    """The diff for a terminal: one summary table, then each agent's details."""
    decimals = d.policy.score_decimals
    lines = [f"policy {d.policy.version}: {d.baseline_name} -> {d.new_name} (every change is new minus baseline)"]
    lines += [f"paired (--pair): the baseline's {fmt.one_line(old)} compared as {fmt.one_line(new)}"
              for old, new in d.pairs]
    if d.agents:
        summary = pd.DataFrame([{"agent": a.agent_id, "baseline": fmt.score(a.headline.baseline, decimals),
                                 "new": fmt.score(a.headline.new, decimals),
                                 "change": _signed(a.headline.change, decimals),
                                 f"{d.confidence:.0%} interval": _interval_text(a.interval, decimals),
                                 "verdict": a.verdict} for a in d.agents])
        lines += [summary.to_string(index=False), ""]
        for a in d.agents:
            lines.append(f"{a.agent_id}: {a.verdict}")
            details = pd.DataFrame(_detail_rows(a, decimals), columns=["measure", "baseline", "new", "change"])
            lines += ["  " + line for line in details.to_string(index=False).splitlines()]
            lines += [f"  newly solved ({len(a.newly_solved):,}): {', '.join(a.newly_solved) or 'none'}",
                      f"  newly failed ({len(a.newly_failed):,}): {', '.join(a.newly_failed) or 'none'}",
                      *(f"  {words}" for words in a.harness_words()), ""]
    else:
        lines += [NO_AGENT_IN_BOTH, ""]
    lines += [f"only in the baseline: {', '.join(d.only_in_baseline) or 'none'}",
              f"only in the new set: {', '.join(d.only_in_new) or 'none'}",
              f"rule ({d.replicates:,} replicates, seed {d.seed}): {RULE}", _gate_line(d, threshold)]
    return "\n".join(lines) + "\n"


def _code(name: str, width: int) -> str:
    """A name as a Markdown code span inside a table cell (never read as markup, ``|`` escaped), at most
    ``width`` + 2 characters."""
    keep = width
    while True:
        text = fmt.short(fmt.one_line(name), keep).replace("`", "'").replace("|", "\\|")
        if len(text) <= width:
            return f"`{text}`"
        keep -= 1


def _wrap(text: str, prefix: str = "") -> list[str]:
    return textwrap.wrap(text, MARKDOWN_WIDTH, initial_indent=prefix, subsequent_indent=" " * len(prefix),
                         break_long_words=True, break_on_hyphens=False)


def _md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
            *("| " + " | ".join(row) + " |" for row in rows)]


def markdown_text(d: Diff, threshold: float | None = None) -> str:
    """A pull-request comment: the summary table, the verdicts and each agent's details, at most 100 columns."""
    decimals = d.policy.score_decimals
    icon = {"better": "better", "worse": "**worse**", "no real change": "no real change"}
    lines = ["### Agent scores: new against baseline", ""]
    lines += _wrap(f"Policy {_code(d.policy.version, 60)}; every change is new minus baseline, in headline points.")
    for old, new in d.pairs:
        lines += _wrap(f"Paired (--pair): the baseline's {_code(old, 40)} compared as {_code(new, 40)}.")
    lines.append("")
    if d.agents:
        lines += _md_table(["Agent", "Baseline", "New", "Change", f"{d.confidence:.0%} interval", "Verdict"],
                           ([_code(a.agent_id, 26), fmt.score(a.headline.baseline, decimals),
                             fmt.score(a.headline.new, decimals), _signed(a.headline.change, decimals),
                             _interval_text(a.interval, decimals), icon[a.verdict]] for a in d.agents))
    else:
        lines += _wrap(NO_AGENT_IN_BOTH)
    lines.append("")
    lines += _wrap(_gate_line(d, threshold, markdown=True))
    for title, names in (("Only in the baseline", d.only_in_baseline), ("Only in the new set", d.only_in_new)):
        if names:
            lines += _wrap(", ".join(_code(n, 60) for n in names), f"- {title}: ")
    for a in d.agents:
        # Inside <summary> Markdown is not read: the name is escaped HTML in a <code> element.
        summary = f"<code>{html.escape(fmt.short(fmt.one_line(a.agent_id), 50))}</code>: {a.verdict}"
        lines += ["", "<details>", f"<summary>{summary}</summary>", ""]
        lines += _md_table(["Measure", "Baseline", "New", "Change"], _detail_rows(a, decimals))
        lines.append("")
        for title, tasks in (("Newly solved", a.newly_solved), ("Newly failed", a.newly_failed)):
            shown = ", ".join(_code(t, 40) for t in tasks[:50]) or "none"
            more = f" and {len(tasks) - 50:,} more" if len(tasks) > 50 else ""
            lines += _wrap(f"{shown}{more}", f"- {title} ({len(tasks):,}): ")
        for words in a.harness_words():
            lines += _wrap(_md_text(words), "- ")
        lines += ["", "</details>"]
    lines += [""] + _wrap(f"{RULE} {d.replicates:,} replicates, seed {d.seed}.")
    return "\n".join(lines) + "\n"


def render(d: Diff, fmt_name: str, threshold: float | None = None) -> str:
    return {"json": json_text, "table": table_text, "markdown": markdown_text}[fmt_name](d, threshold)
