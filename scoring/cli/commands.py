"""Command line: ``python -m scoring report INPUT... [--format json|csv|table] [--weights ... | --scorecard ...]``.

An input is a runs file (SPEC 1) or a harness results file (SPEC 7: tau2-bench, tau-bench,
Inspect AI, or any table through ``--mapping``). One runs file alone is read exactly as before
(the one loader, its validation report); anything else is imported first and its import report
goes to stderr as ``import:`` lines, so stdout keeps the pure report.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import hashlib
import importlib.util
import io
import json
import math
import os
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from scoring.analysis.diff import BASELINE, NEW, diff_runs, render
from scoring.analysis.uncertainty import DEFAULT_REPLICATES, DEFAULT_SEED
from scoring.contract import format as fmt
from scoring.contract.extras import install_hint, missing_module_message
from scoring.contract.limits import DEFAULT_LIMITS, WORKER_OVERHEAD, Limits, format_size, parse_size
from scoring.contract.policy import CANONICAL_POLICY, FieldError, Policy, PolicyError, load_policy
from scoring.contract.resources import PUBLISHED_METHODOLOGY, SAMPLE_RUNS
from scoring.contract.schema import COMPLETED
from scoring.load.importers import (
    KINDS,
    Imported,
    MappingError,
    apply_prices,
    expand_folder,
    import_batch,
    import_file,
    mapping_from_json,
)
from scoring.load.importers.api import looks_like_runs_file
from scoring.load.runs import LoadedRuns, RunsValidationError, check_work, load_runs
from scoring.load.worker import LimitExceeded, WorkerFailed, run_limited
from scoring.measures.radar import check_weights
from scoring.measures.repeatability import check_levels
from scoring.measures.report import Report, score_runs

if TYPE_CHECKING:
    from scoring.analysis.scorecard import Scorecard
    from scoring.load.importers import Mapping as ImportMapping
    from scoring.outputs.downloads import DatasetInfo


def parse_weights(text: str) -> dict[str, float]:
    """'correctness=0.4,latency=0.15' -> {'correctness': 0.4, 'latency': 0.15}; axes not named keep their default."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        axis, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"expected axis=weight, got {part!r}")
        try:
            weights[axis.strip()] = float(value)
        except ValueError:
            raise ValueError(f"weight for {axis.strip()!r} is not a number: {value!r}") from None
    check_weights(weights)
    return weights


def table_text(report: Report) -> str:
    """A compact leaderboard for the terminal; the CSV and JSON forms carry every field."""
    levels = report.levels
    columns = {"rank": "rank", "agent_id": "agent", "headline_score": "score", "headline_success_rate": "success",
               "headline_execution_score": "execution", "headline_cost_score": "cost",
               "headline_completed_runs": COMPLETED, "radar_profile_score": "profile",
               **{f"pass^{k}": f"pass^{k}" for k in levels}, "flags": "flags"}
    if not report.agents:
        return f"policy {report.policy.version}\n(no agents)"
    frame = report.to_frame()[list(columns)].rename(columns=columns).astype(object)
    decimals = report.policy.score_decimals
    # The app's formatter (scoring.contract.format), so a number reads the same in the terminal as on screen.
    formats = {"rank": fmt.count, "score": lambda v: fmt.score(v, decimals), "success": fmt.rate,
               "execution": fmt.factor, "cost": fmt.factor, "completed": fmt.count,
               "profile": lambda v: fmt.score(v, decimals), **{f"pass^{k}": fmt.rate for k in levels},
               "agent": fmt.text, "flags": fmt.text}
    for column in frame.columns:
        frame[column] = [fmt.DASH if _missing(v) else formats[column](v) for v in frame[column]]
    notes = [f"  {a.agent_id}: {note}" for a in report.agents for note in a.notes()]
    return (f"policy {report.policy.version}\n" + frame.to_string(index=False)
            + ("\nnotes:\n" + "\n".join(notes) if notes else ""))


def _missing(value: object) -> bool:
    return value is None or bool(pd.isna(value))


def _write(text: str) -> int:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: not an error of ours
        sys.stdout = None
    return 0


def parse_levels(text: str | None, parser: argparse.ArgumentParser) -> tuple[int, ...] | None:
    """'1,2,3,4' -> (1, 2, 3, 4), bounded as the policy bounds its levels; None for the policy's own."""
    if text is None:
        return None
    parts = [part.strip() for part in text.split(",") if part.strip()]
    bad = [p for p in parts if not p.isdigit()]
    if bad:
        parser.error(f"--k: not a whole number: {bad[0][:40]!r}")
    try:
        return check_levels(int(part) for part in parts)
    except ValueError as exc:
        parser.error(f"--k: {exc}")
        raise  # parser.error exits


def _report_sql(args: argparse.Namespace, weights: Mapping[str, float] | None, policy: Policy,
                levels: tuple[int, ...] | None, card: Scorecard | None = None) -> int:
    from scoring.engines import sql_engine

    try:
        if args.db:
            report = sql_engine.score_postgres(args.db, args.table or "runs", policy, weights=weights, levels=levels)
        else:
            report = sql_engine.score_file_sql(args.inputs[0], policy, weights=weights, memory_limit=args.memory_limit,
                                               levels=levels)
    except RunsValidationError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    except (ConnectionError, ValueError) as exc:
        print(sql_engine.redact(str(exc)), file=sys.stderr)
        return 2
    return _print_report(report, args, card)


def _print_report(report: Report, args: argparse.Namespace, card: Scorecard | None) -> int:
    """An engine's report on stdout in the chosen format (its warnings on stderr)."""
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.format == "json":
        return _write(_json_text(report.to_json(), report, card))
    text = {"csv": report.to_csv_text, "table": lambda: table_text(report) + "\n"}[args.format]()
    return _write(text + (scorecard_table_text(report, card) if card and args.format == "table" else ""))


def _json_text(doc: dict, report: Report, card: Scorecard | None) -> str:
    """The report's JSON; with a scorecard, a top-level "scorecard" object after the policy version."""
    if card is not None:
        from scoring.analysis.scorecard import apply_scorecard, scorecard_to_dict

        ranking = [{"profile_rank": r.profile_rank, "agent_id": r.agent_id, "profile_score": r.profile_score,
                    "headline_rank": r.headline_rank, "headline_score": r.headline_score}
                   for r in apply_scorecard(report, card).rows]
        head = {k: doc.pop(k) for k in ("policy_version", "excluded_rows") if k in doc}
        doc = {**head, "scorecard": {**scorecard_to_dict(card), "profile_ranking": ranking}, **doc}
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def scorecard_table_text(report: Report, card: Scorecard) -> str:
    """The team's profile ranking for the terminal, beside the unchanged headline score and rank."""
    from scoring.analysis.scorecard import apply_scorecard

    decimals = report.policy.score_decimals
    rows = [{"profile rank": fmt.count(r.profile_rank) if r.profile_rank else fmt.DASH, "agent": fmt.text(r.agent_id),
             "profile": fmt.DASH if r.profile_score is None else fmt.score(r.profile_score, decimals),
             "headline": fmt.DASH if r.headline_score is None else fmt.score(r.headline_score, decimals),
             "headline rank": fmt.count(r.headline_rank) if r.headline_rank else fmt.DASH}
            for r in apply_scorecard(report, card).rows]
    weights = card.shares_text()  # shares adding up to 100%, whatever the weights add up to
    return (f"\nscorecard {fmt.text(card.name)} ({weights}): profile ranking; the headline never moves\n"
            + pd.DataFrame(rows).to_string(index=False) + "\n")


def _report_spark(args: argparse.Namespace, weights: Mapping[str, float] | None, policy: Policy,
                  levels: tuple[int, ...] | None, card: Scorecard | None = None) -> int:
    from scoring.engines import spark_engine  # pyspark itself is imported inside, when a session is made

    try:
        path = args.inputs[0] if args.inputs else None
        report = spark_engine.score_spark(path, table=args.table, remote=args.spark_remote,
                                          master=args.spark_master, policy=policy,
                                          weights=weights, levels=levels)
    except ModuleNotFoundError as exc:
        print(missing_module_message(exc.name, "the Spark engine", "spark")
              or f"the Spark engine needs pyspark ({exc.name} is not installed): {install_hint('spark')}",
              file=sys.stderr)
        return 2
    except RunsValidationError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    except (ConnectionError, ValueError) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except Exception as exc:  # a Spark or connection failure: its one line, not a Java stack trace
        print(f"Spark failed: {spark_engine.spark_error(exc)}", file=sys.stderr)
        return 2
    return _print_report(report, args, card)


def intervals_json_text(runs: pd.DataFrame, report: Report, replicates: int | None, seed: int | None,
                        card: Scorecard | None = None) -> str:
    """The SPEC 6 report with a top-level "bootstrap" object and an "intervals" object per agent."""
    from scoring.analysis import uncertainty

    intervals = uncertainty.bootstrap_intervals(
        runs, report, replicates=uncertainty.DEFAULT_REPLICATES if replicates is None else replicates,
        seed=uncertainty.DEFAULT_SEED if seed is None else seed)
    doc = report.to_json()
    doc["bootstrap"] = intervals.to_json()
    for agent in doc["agents"]:
        agent["intervals"] = intervals.agents[agent["agent_id"]].to_json()
    return _json_text(doc, report, card)


def build_parser(prog: str = "python -m scoring") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser("report", help="score a runs file and print the report")
    report.add_argument("inputs", nargs="*", metavar="INPUT",
                        help="a runs file (CSV, JSON, JSON Lines or Parquet), or harness results: tau2-bench "
                             "Results JSON (a file or its results folder), a tau-bench results list, an Inspect AI "
                             "log (.eval/.json); several inputs give one report over all of them")
    report.add_argument("--engine", choices=("pandas", "sql", "spark"), default="pandas",
                        help="pandas (in memory, default), sql (DuckDB, out of core; Parquet or CSV) or spark "
                             "(Apache Spark: Parquet or CSV paths, any URI the cluster reads, or --table)")
    report.add_argument("--memory-limit", default=None, help="with --engine sql: DuckDB memory cap, e.g. 2GB")
    report.add_argument("--db", default=None, help="score a PostgreSQL table instead: postgresql://user@host/db "
                                                    "(password from PGPASSWORD or ~/.pgpass preferred)")
    report.add_argument("--table", default=None, help="with --db: the runs table (default: runs); with --engine "
                                                       "spark: a catalog table, instead of RUNS_FILE")
    report.add_argument("--spark-remote", default=None, metavar="URL",
                        help="with --engine spark: a Spark Connect server, e.g. sc://host:15002 (default: local mode)")
    report.add_argument("--spark-master", default=None, metavar="URL",
                        help="with --engine spark: a cluster's master URL for a driver in this process, e.g. "
                             "spark://host:7077, yarn or k8s://https://host:443 (the executors read the path)")
    report.add_argument("--format", choices=("json", "csv", "table"), default="json")
    report.add_argument("--k", default=None, metavar="LEVELS",
                        help="pass^k levels to report, e.g. 1,2,3,4 (default: the policy's; the same rule)")
    report.add_argument("--policy", default=None, metavar="POLICY_JSON",
                        help="score under a sandbox policy (the JSON the sandbox page downloads); numbers carry "
                             "its sandbox label")
    report.add_argument("--weights", default="", help="radar viewer weights, e.g. correctness=0.4,latency=0.15")
    report.add_argument("--scorecard", default=None, metavar="SCORECARD_JSON",
                        help="a Team Scorecard (JSON: name, description, weights): its weights are the radar "
                             "weights (axes it does not name weigh 0) and its profile ranking is added; headline "
                             "scores and ranks never change")
    report.add_argument("--exclude-invalid", action="store_true",
                        help="exclude invalid rows (counted on stderr) instead of refusing the file")
    report.add_argument("--intervals", action="store_true",
                        help="add bootstrap 95%% intervals and tie groups to the JSON (canonical numbers unchanged)")
    report.add_argument("--replicates", type=int, default=None, help="bootstrap replicates (default 1000)")
    report.add_argument("--seed", type=int, default=None, help="bootstrap seed (default fixed)")
    for command in (report,):
        _import_options(command)
        _limit_options(command)
    verify = sub.add_parser("verify", help="re-check a score receipt against a runs file")
    verify.add_argument("receipt", help="a receipt JSON downloaded from the app (or written by `receipt`)")
    verify.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="the runs file (or harness results, imported as for `report`) the receipt claims to "
                             "come from")
    receipt = sub.add_parser("receipt", help="write one agent's score receipt (JSON) to stdout")
    receipt.add_argument("inputs", nargs="+", metavar="INPUT",
                         help="a runs file, or harness results imported as for `report`")
    receipt.add_argument("agent_id")
    receipt.add_argument("--markdown", action="store_true", help="the readable Markdown rendering instead")
    receipt.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON)")
    for command in (receipt, verify):
        _import_options(command)
        _limit_options(command)
    badge = sub.add_parser("badge", help="write one agent's canonical headline score as an SVG badge")
    badge.add_argument("file", metavar="FILE", help="a runs file, or one harness results file (imported as for "
                                                     "`report`); its sha256 goes into the badge")
    badge.add_argument("agent_id", metavar="AGENT")
    badge.add_argument("-o", "--output", default=None, metavar="PATH",
                       help="write the SVG here (a folder: the badge's own file name inside it); default stdout")
    badge.set_defaults(kind=None, agent=None, experiment=None, mapping=None, scorer=None)
    _limit_options(badge)
    pack = sub.add_parser("pack", help="write a review pack: one self-contained HTML file (or its PDF) with the "
                                       "leaderboard, decompositions, radar, pass^k, intervals and methodology")
    pack.add_argument("inputs", nargs="+", metavar="INPUT",
                      help="a runs file, or harness results imported as for `report`")
    pack.add_argument("-o", "--output", required=True, metavar="FILE",
                      help="review.html (interactive charts, plotly.js embedded: opens offline) or review.pdf "
                           "(printed by headless Chromium)")
    pack.add_argument("--policy", default=None, metavar="POLICY_JSON",
                      help="a sandbox policy (JSON): its changed constants and the rank changes are added")
    pack.add_argument("--weights", default="", help="radar viewer weights, e.g. correctness=0.4,latency=0.15")
    pack.add_argument("--radar", action="append", default=None, metavar="AGENT",
                      help="an agent drawn on the radar (repeat for several; default: the top 3 by profile score)")
    pack.add_argument("--no-intervals", action="store_true", help="leave the bootstrap intervals out (faster)")
    pack.add_argument("--replicates", type=int, default=None, help="bootstrap replicates (default 1000)")
    pack.add_argument("--seed", type=int, default=None, help="bootstrap seed (default fixed)")
    pack.add_argument("--exclude-invalid", action="store_true",
                      help="exclude invalid rows (the pack says how many) instead of refusing the file")
    pack.add_argument("--chromium", default=None, metavar="PATH",
                      help="the Chromium that prints a PDF (default: $EXPLORER_CHROMIUM, else chromium on PATH, "
                           "else /usr/bin/chromium)")
    _import_options(pack)
    _limit_options(pack)
    explain = sub.add_parser("explain", help="where one agent's headline points went, what overtakes the agent "
                                             "above, which tasks and runs cost points, which runs each measure reads")
    explain.add_argument("runs_file")
    explain.add_argument("agent_id")
    explain.add_argument("--format", choices=("json", "table"), default="json")
    explain.add_argument("--top", type=int, default=20, metavar="N", help="most influential runs listed (default 20)")
    explain.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON)")
    _limit_options(explain)
    add_diff_command(sub)  # diff BASELINE NEW (over scoring/analysis/diff.py)
    add_console_commands(sub)  # serve, sample, methodology (the agentscore command's own)
    return parser


def _import_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--from", dest="kind", type=kind_name, default=None, metavar="KIND",
                         help=f"the inputs' kind instead of detecting it from their content: "
                              f"{', '.join(KINDS)} (also tau2-bench, taubench, inspect-ai, tbench)")
    command.add_argument("--agent", action="append", default=None, metavar="NAME",
                         help="agent id for harness files instead of the one the import builds (tau-bench: instead "
                              "of the file stem); once for every input, or once per input in order")
    command.add_argument("--experiment", action="append", default=None, metavar="TAG",
                         help="experiment tag added to the agent ids ('model [TAG]') so that files of the same "
                              "model stay apart; once for every input, or once per input in order")
    command.add_argument("--mapping", default=None, metavar="MAP_JSON",
                         help="a column mapping (JSON, as the app's mapping page saves it) for a table in "
                              "another layout")
    command.add_argument("--prices", default=None, metavar="PRICES_JSON",
                         help="estimate cost_usd from token counts where a harness file records none: "
                              "{\"model\": {\"input\": USD per million, \"output\": USD per million}}; "
                              "labelled estimated everywhere")
    command.add_argument("--scorer", default=None, metavar="NAME",
                         help="Inspect AI logs: the scorer whose value is the outcome (default: the first)")


_COUNT_OPTIONS = (("max_rows", "--max-rows", "most runs one file may hold"),
                  ("max_agents", "--max-agents", "most distinct agents one input may hold"),
                  ("max_tasks", "--max-tasks", "most distinct tasks one input may hold"),
                  ("max_events", "--max-events", "most events one Inspect sample may hold"),
                  ("max_cpu_seconds", "--max-cpu-seconds", "CPU seconds reading, validating and scoring may take"))


KIND_ALIASES = {"tau2-bench": "tau2", "tau2bench": "tau2", "taubench": "tau-bench", "tau_bench": "tau-bench",
                "inspect-ai": "inspect", "inspect_ai": "inspect", "terminal_bench": "terminal-bench",
                "terminalbench": "terminal-bench", "tbench": "terminal-bench", "table": "runs"}


def kind_name(text: str) -> str:
    """--from's value: a kind, or a name the docs use for it (any case).

    Examples
    --------
    >>> kind_name("taubench"), kind_name("TAU2-bench"), kind_name("inspect")
    ('tau-bench', 'tau2', 'inspect')
    """
    name = text.strip().lower()
    name = KIND_ALIASES.get(name, name)
    if name not in KINDS:
        raise argparse.ArgumentTypeError(f"unknown kind {text[:40]!r}; expected one of {', '.join(KINDS)} "
                                         f"(or {', '.join(KIND_ALIASES)})")
    return name


def _limit_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--max-memory", default=None, metavar="SIZE",
                         help=f"memory budget for one input, e.g. 4GB (default "
                              f"{DEFAULT_LIMITS.max_memory // 10**9}GB): decoded runs beyond it are refused before "
                              f"reading, and the worker reading the input is stopped past it plus "
                              f"{WORKER_OVERHEAD // 10**6} MB of resident memory")
    for field, option, text in _COUNT_OPTIONS:
        command.add_argument(option, type=int, default=None, metavar="N",
                             help=f"{text} (default {getattr(DEFAULT_LIMITS, field):,})")


def limits_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Limits:
    """The input limits: the defaults, with --max-memory, --max-rows, ... where given."""
    changes: dict[str, int] = {}
    try:
        if getattr(args, "max_memory", None) is not None:
            changes["max_memory"] = parse_size(args.max_memory)
        for field, _, _ in _COUNT_OPTIONS:
            if getattr(args, field, None) is not None:
                changes[field] = getattr(args, field)
        return dataclasses.replace(DEFAULT_LIMITS, **changes)
    except ValueError as exc:
        parser.error(f"--max-*: {exc}")
        raise  # parser.error exits; this line is never reached


def policy_from(path: str | None) -> Policy:
    """The canonical policy, or the sandbox policy in ``path`` (PolicyError names the refused field)."""
    if not path:
        return CANONICAL_POLICY
    try:
        with open(path, "rb") as handle:
            data = handle.read(64_001)  # the policy reader refuses anything larger
    except OSError as exc:
        raise PolicyError([FieldError(path, f"cannot read the policy file ({exc.strerror})")]) from None
    return load_policy(data, what=path)


class _Refused(Exception):
    """A command cannot run: the message goes to stderr and the exit status is 2."""


def _load(path: str, limits: Limits, **options: Any) -> LoadedRuns:
    try:
        return check_work(load_runs(path, limits=limits, **options), limits)
    except RunsValidationError as exc:
        hint = ""
        if exc.problems and all(p.code == "missing_column" for p in exc.problems):
            hint = ("\nhint: a table in another layout can be read through a column mapping: --mapping MAP.json "
                    "(the app's 'Map a table' page writes one)")
        raise _Refused(exc.report() + hint) from None




def _import_requested(args: argparse.Namespace) -> bool:
    """Any option that only an import understands (the plain runs-file path takes none of them)."""
    return bool(args.kind not in (None, "runs") or args.agent or args.experiment or args.mapping or args.scorer
                or getattr(args, "prices", None))


def _per_input(values: list[str] | None, inputs: list[str], option: str) -> list[str | None]:
    if not values:
        return [None] * len(inputs)
    if len(values) == 1:
        return [values[0]] * len(inputs)
    if len(values) != len(inputs):
        raise _Refused(f"{option}: {len(values)} values for {len(inputs)} input(s); give one for every input "
                       "or one per input")
    return list(values)


def _mapping(path: str | None) -> ImportMapping | None:
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(1_000_001)  # the mapping reader refuses anything larger
    except OSError as exc:
        raise _Refused(f"{path}: cannot read the mapping ({exc.strerror})") from None
    try:
        return mapping_from_json(data)
    except MappingError as exc:
        raise _Refused(f"{path}: {exc}") from None


def read_prices(path: str) -> dict[str, tuple[float, float]]:
    """--prices: model -> (USD per million input tokens, USD per million output tokens); refused with the place."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(1_000_001)
        doc = json.loads(data)
    except OSError as exc:
        raise _Refused(f"{path}: cannot read the prices ({exc.strerror})") from None
    except ValueError as exc:
        raise _Refused(f"{path}: the prices are not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or not doc:
        raise _Refused(f"{path}: expected {{\"model\": {{\"input\": USD per million, \"output\": USD per million}}}}")
    out = {}
    for model, price in doc.items():
        values = [price.get(k) if isinstance(price, dict) else None for k in ("input", "output")]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1e6 for v in values):
            raise _Refused(f"{path}: {str(model)[:60]!r}: input and output must be USD per million tokens "
                           "(numbers from 0)")
        out[str(model)] = (float(values[0] or 0.0), float(values[1] or 0.0))
    return out


def import_inputs(args: argparse.Namespace, limits: Limits, *, skip_refused: bool = False) -> Imported:
    """Every input imported (SPEC 7) and combined into one raw table with one report.

    A folder that is not a tau2 result folder is read as the result files it holds. Every refused file
    is named; with ``skip_refused`` (--exclude-invalid) they are left out and named in the import report.
    """
    mapping = _mapping(args.mapping)
    agents = _per_input(args.agent, args.inputs, "--agent")
    tags = _per_input(args.experiment, args.inputs, "--experiment")
    try:
        items = [(path, agent, tag) for given, agent, tag in zip(args.inputs, agents, tags)
                 for path in expand_folder(given)]
        calls = [(lambda p=path, a=agent, t=tag: import_file(p, kind=args.kind, agent=a, experiment=t,
                                                              mapping=mapping, scorer=args.scorer, limits=limits))
                 for path, agent, tag in items]
        names = [str(path) for path, _, _ in items]
        imported = import_batch(calls, names, skip_refused=skip_refused, limits=limits)
    except RunsValidationError as exc:
        raise _Refused(exc.report()) from None
    if getattr(args, "prices", None):
        imported = apply_prices(imported, read_prices(args.prices))
    if args.scorer and "inspect" not in {f.kind for f in imported.report.files}:
        raise _Refused("--scorer chooses the scorer of an Inspect AI log; none of the inputs is one")
    return imported


def load_inputs(args: argparse.Namespace, limits: Limits, *, exclude_invalid: bool = False) -> LoadedRuns:
    """The validated runs of the inputs: one runs file through the loader as before, anything else imported.

    The import report goes to stderr as ``import:`` lines (and the import's warnings are not
    repeated as ``warning:`` lines); a refusal names every problem, as for a runs file.
    """
    if len(args.inputs) == 1 and not _import_requested(args) and (
            args.kind == "runs" or looks_like_runs_file(args.inputs[0], limits)):
        loaded = _load(args.inputs[0], limits, exclude_invalid=exclude_invalid)
        _print_warnings(loaded.warnings)
        return loaded
    imported = import_inputs(args, limits, skip_refused=exclude_invalid)
    for line in imported.report.text().splitlines():
        print(f"import: {line}", file=sys.stderr)
    try:
        loaded = check_work(imported.validate(exclude_invalid=exclude_invalid), limits)
    except RunsValidationError as exc:
        raise _Refused(exc.report()) from None
    shown = set(imported.report.all_warnings())
    _print_warnings([w for w in loaded.warnings if w not in shown])
    return loaded


def _print_warnings(warnings: Iterable[object]) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


def _policy(path: str | None) -> Policy:
    try:
        return policy_from(path)
    except PolicyError as exc:
        raise _Refused("policy refused:\n" + "\n".join(f"  - {e}" for e in exc.errors)) from None


def run_verify(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.outputs.receipt import ReceiptError, parse_receipt, verify

    try:
        with open(args.receipt, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise _Refused(f"{args.receipt}: cannot read the receipt ({exc.strerror})") from None
    try:
        receipt = parse_receipt(data)
    except ReceiptError as exc:
        raise _Refused(f"{args.receipt}: not a receipt that can be checked: {exc}") from None
    problems = verify(receipt, load_inputs(args, limits).runs)
    if problems:
        print(f"does not reproduce: first difference at {problems[0]}", file=sys.stderr)
        if len(problems) > 1:
            print(f"({len(problems) - 1} more difference(s))", file=sys.stderr)
        return 1
    print(f"reproduces: {receipt['agent_id']} under {receipt['policy_version']}")
    return 0


def run_receipt(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.outputs.receipt import build_receipt, receipt_json, receipt_markdown

    policy = _policy(args.policy)
    loaded = load_inputs(args, limits)
    report = score_runs(loaded.runs, policy)
    try:
        agent = report.agent(args.agent_id)
    except KeyError:
        raise _Refused(f"no agent {args.agent_id!r} in {', '.join(args.inputs)}") from None
    runs = loaded.runs[loaded.runs["agent_id"] == args.agent_id]
    receipt = build_receipt(agent, runs, dataset=input_dataset(args, loaded, limits).to_json())
    return _write(receipt_markdown(receipt) if args.markdown else receipt_json(receipt))


def run_explain(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.analysis.explain import explain, explain_table_text

    policy = _policy(args.policy)
    loaded = _load(args.runs_file, limits)
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not (loaded.runs["agent_id"] == args.agent_id).any():
        raise _Refused(f"no agent {args.agent_id!r} in {args.runs_file}")
    explanation = explain(loaded.runs, args.agent_id, policy=policy)
    top = max(args.top, 0)
    if args.format == "json":
        return _write(json.dumps(explanation.to_json(top), indent=2, allow_nan=False) + "\n")
    return _write(explain_table_text(explanation, top) + "\n")


def input_dataset(args: argparse.Namespace, loaded: LoadedRuns, limits: Limits) -> DatasetInfo:
    """The dataset the inputs make, named as the app names it: one runs file by the sha256 of its bytes, an
    import by the digest of its files' hashes, names, tags and mapping (the app's upload of the same files
    gives the same digest)."""
    from scoring.outputs.downloads import DatasetInfo, file_sha256, import_digest

    def sha(path: Path) -> str:
        if not path.is_dir():
            return file_sha256(path)
        lines = [f"{p.relative_to(path).as_posix()}\t{file_sha256(p)}" for p in sorted(path.rglob("*")) if p.is_file()]
        return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()

    paths = [Path(p) for p in args.inputs]
    runs, rows_read, excluded = len(loaded.runs), loaded.rows_read, loaded.excluded_rows
    if len(paths) == 1 and not _import_requested(args) and (
            args.kind == "runs" or looks_like_runs_file(args.inputs[0], limits)):
        return DatasetInfo(paths[0].name, sha(paths[0]), runs, rows_read=rows_read, excluded_rows=excluded)
    mapping = _mapping(args.mapping)
    tags = _per_input(args.experiment, args.inputs, "--experiment")
    names = [p.name for p in paths]
    from scoring.load.importers import mapping_to_json

    digest = import_digest(names, [sha(p) for p in paths], tags, mapping_to_json(mapping) if mapping else None)
    name = names[0] if len(names) == 1 else f"{len(names)} files"
    return DatasetInfo(name + (" (mapped)" if mapping else ""), digest, runs, kind="import",
                       hash_of="import of the files", rows_read=rows_read, excluded_rows=excluded)


def run_pack(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> int:
    import shlex
    import time

    # The one place the core reaches into explorer/: the pack is the app's charts and tables as a file, so it is
    # built by the same code as the pages (explorer.pack imports plotly, never streamlit).
    from explorer.pack import PackView, PdfUnavailable, build_pack, find_chromium, missing_chromium_message, pack_pdf

    started = time.perf_counter()
    suffix = Path(args.output).suffix.lower()
    if suffix not in (".html", ".htm", ".pdf"):
        parser.error(f"-o: the pack is written as .html or .pdf, got {args.output!r}")
    if suffix == ".pdf" and find_chromium(args.chromium) is None:
        raise _Refused(f"pack: {missing_chromium_message(args.chromium)}")
    try:
        weights = parse_weights(args.weights)
    except ValueError as exc:
        parser.error(f"--weights: {exc}")
    for name, value, low, high in (("--replicates", args.replicates, 1, 100_000), ("--seed", args.seed, 0, 2**63)):
        if value is not None and not low <= value <= high:
            parser.error(f"{name}: must be from {low:,} to {high:,}, got {value:,}")
    policy = _policy(args.policy)
    loaded = load_inputs(args, limits, exclude_invalid=args.exclude_invalid)
    dataset = input_dataset(args, loaded, limits)
    canonical = score_runs(loaded.runs, CANONICAL_POLICY, weights=weights, harness=loaded.harness,
                           estimated_cost=loaded.estimated_cost)
    unknown = [a for a in args.radar or [] if a not in {x.agent_id for x in canonical.agents}]
    if unknown:
        raise _Refused(f"--radar: no agent {unknown[0]!r} in {', '.join(args.inputs)}")
    sandbox = score_runs(loaded.runs, policy, weights=weights) if policy is not CANONICAL_POLICY else None
    intervals = None
    if not args.no_intervals:
        from scoring.analysis import uncertainty

        intervals = uncertainty.bootstrap_intervals(
            loaded.runs, canonical, replicates=args.replicates or uncertainty.DEFAULT_REPLICATES,
            seed=uncertainty.DEFAULT_SEED if args.seed is None else args.seed)
    command = "python -m scoring " + shlex.join(["pack", *args.argv])
    document = build_pack(canonical, dataset, intervals=intervals, sandbox=sandbox, runs=loaded.runs,
                          view=PackView(weights=weights, radar_agents=args.radar or (), command=command))
    if suffix == ".pdf":
        try:
            data = pack_pdf(document, chromium=args.chromium)
        except PdfUnavailable as exc:
            raise _Refused(f"pack: {exc}") from None
    else:
        data = document.encode("utf-8", "surrogatepass")
    try:
        Path(args.output).write_bytes(data)
    except OSError as exc:
        raise _Refused(f"pack: cannot write {args.output} ({exc.strerror})") from None
    print(f"pack: wrote {args.output} ({len(data):,} bytes; {len(canonical.agents):,} agents, "
          f"{dataset.runs:,} runs, sha256 {dataset.short_sha}; {time.perf_counter() - started:.1f} s)",
          file=sys.stderr)
    return 0


def run_report(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> int:
    try:
        weights = parse_weights(args.weights)
    except ValueError as exc:
        parser.error(f"--weights: {exc}")
    if args.scorecard is not None and args.weights.strip():
        parser.error("--weights and --scorecard both set the radar weights: give one of them")
    card = _scorecard(args.scorecard)
    if card is not None:
        weights = dict(card.weights)  # every axis: the same path as --weights, so the same profile scores
        print(f"scorecard: {card.name} (axes it does not name weigh 0)", file=sys.stderr)
    spark = args.engine == "spark"
    if args.spark_remote and not spark:
        parser.error("--spark-remote needs --engine spark")
    if args.spark_master and not spark:
        parser.error("--spark-master needs --engine spark")
    if args.spark_master and args.spark_remote:
        parser.error("--spark-master starts a driver here, --spark-remote uses a Connect server's: give one")
    if spark:
        if args.db:
            parser.error("--db scores a PostgreSQL table; --engine spark reads files or a catalog --table")
        if (args.table is None) == (not args.inputs):
            parser.error("with --engine spark, give either INPUT (a Parquet or CSV path) or --table NAME")
        if len(args.inputs) > 1 or _import_requested(args):
            parser.error("--engine spark reads one runs path or table; harness imports, --mapping and several "
                         "inputs need the pandas engine")
    elif (args.db is None) == (not args.inputs):
        parser.error("give either INPUT (a runs file or harness results) or --db URL (with --table)")
    elif args.table is not None and not args.db:
        parser.error("--table needs --db URL or --engine spark")
    policy = _policy(args.policy)
    levels = parse_levels(args.k, parser)
    if spark:
        if args.intervals or args.exclude_invalid:
            parser.error("--intervals and --exclude-invalid need the pandas engine")
        return _report_spark(args, weights, policy, levels, card)
    if args.db or args.engine == "sql":
        if args.intervals or args.exclude_invalid:
            parser.error("--intervals and --exclude-invalid need the pandas engine")
        if len(args.inputs) > 1 or _import_requested(args) or (
                args.inputs and args.kind != "runs" and not looks_like_runs_file(args.inputs[0], limits)):
            parser.error("--engine sql and --db read one runs file or table; harness imports, --mapping and "
                         "several inputs need the pandas engine (drop --engine sql)")
        return _report_sql(args, weights, policy, levels, card)
    if args.intervals and args.format != "json":
        parser.error("--intervals adds to the JSON report: use --format json")
    loaded = load_inputs(args, limits, exclude_invalid=args.exclude_invalid)
    if loaded.excluded_rows:
        print(f"warning: {loaded.excluded_rows} invalid row(s) of {loaded.rows_read} excluded", file=sys.stderr)
    report = score_runs(loaded.runs, policy, weights=weights, levels=levels, harness=loaded.harness,
                        estimated_cost=loaded.estimated_cost)
    if args.intervals:
        text = intervals_json_text(loaded.runs, report, args.replicates, args.seed, card)
    elif args.exclude_invalid and args.format == "json":
        # Scores computed without the invalid rows say how many were excluded (SPEC 1).
        doc = report.to_json()
        doc = {"policy_version": doc["policy_version"], "excluded_rows": loaded.excluded_rows,
               "agents": doc["agents"]}
        text = _json_text(doc, report, card)
    elif args.format == "json":
        text = _json_text(report.to_json(), report, card)
    elif args.exclude_invalid and args.format == "table":
        text = table_text(report) + f"\n({loaded.excluded_rows} invalid row(s) of {loaded.rows_read} excluded)\n"
    else:
        text = {"csv": report.to_csv_text, "table": lambda: table_text(report) + "\n"}[args.format]()
    if card is not None and args.format == "table":
        text += scorecard_table_text(report, card)
    return _write(text)


def _scorecard(path: str | None) -> Scorecard | None:
    """The Team Scorecard in ``path`` (None without one); a refused file names every refused field."""
    if path is None:
        return None
    from scoring.analysis.scorecard import ScorecardError, read_scorecard

    try:
        return read_scorecard(path)
    except OSError as exc:
        raise _Refused(f"{path}: cannot read the scorecard ({exc.strerror or exc})") from None
    except ScorecardError as exc:
        raise _Refused(f"{path}: scorecard refused:\n" + "\n".join(f"  - {e}" for e in exc.errors)) from None


def _file_sha256(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except IsADirectoryError:
        raise _Refused(f"{path}: a badge names one file's sha256; give one file, not a folder") from None
    except OSError as exc:
        raise _Refused(f"{path}: cannot read the file ({exc.strerror or exc})") from None


def run_badge(args: argparse.Namespace, limits: Limits) -> int:
    """One agent's canonical headline score as an SVG badge, with the file's sha256 and the policy version."""
    from scoring.outputs.badge import badge_file_name, badge_svg

    digest = _file_sha256(args.file)
    args.inputs = [args.file]
    report = score_runs(load_inputs(args, limits).runs, CANONICAL_POLICY)
    agents = {a.agent_id: a for a in report.agents}
    if args.agent_id not in agents:
        close = difflib.get_close_matches(args.agent_id, list(agents), n=3)
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        raise _Refused(f"no agent {args.agent_id!r} in {args.file}{hint}")
    svg = badge_svg(agents[args.agent_id], policy_version=report.policy.version, dataset_sha256=digest)
    if args.output is None:
        return _write(svg)
    target = Path(args.output)
    if target.is_dir():
        target = target / badge_file_name(args.agent_id, report.policy.version, digest)
    try:
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(svg)
    except OSError as exc:
        raise _Refused(f"{target}: cannot write the badge ({exc.strerror or exc})") from None
    print(f"badge: {target}", file=sys.stderr)
    return 0


# Subcommands that read no untrusted input (the app server, the bundled files): run in this process, not in the
# worker that bounds a file's memory and CPU (the server runs for hours and reads its uploads in workers of its own).
TRUSTED_COMMANDS = frozenset({"serve", "sample", "methodology"})


def main(argv: list[str] | None = None, prog: str = "python -m scoring") -> int:
    parser = build_parser(prog)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv[1:]
    limits = limits_from(args, parser)
    if getattr(args, "engine", None) == "spark":  # the cluster (or local JVM) has its own memory settings
        return _run(args, limits, parser)
    if args.command in TRUSTED_COMMANDS:  # no untrusted input: the app server must outlive any worker's limits
        return _run(args, limits, parser)
    what = ", ".join(getattr(args, "inputs", None) or []) or getattr(args, "file", None) or "the input"
    try:
        code, out, err = run_limited(_run_captured, (args, limits, parser), max_rss=limits.max_resident,
                                     max_cpu=limits.max_cpu_seconds, what=what,
                                     memory_setting=f"--max-memory {format_size(limits.max_memory)} + "
                                                    f"{format_size(WORKER_OVERHEAD)} for the worker itself",
                                     cpu_setting="--max-cpu-seconds", method="fork")
    except (LimitExceeded, WorkerFailed) as exc:
        print(f"{what}: refused: {exc}", file=sys.stderr)
        return 2
    if err:
        sys.stderr.write(err)
    if out:
        _write(out)
    return code


def _run(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> int:
    command = {"verify": run_verify, "receipt": run_receipt, "explain": run_explain,
               "badge": run_badge}.get(args.command, getattr(args, "run", None))
    try:
        if args.command == "pack":
            return run_pack(args, limits, parser)
        return command(args, limits) if command else run_report(args, limits, parser)
    except _Refused as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional feature without its extra: what to install, no traceback
        message = missing_module_message(exc.name, _feature(args), "postgres" if getattr(args, "db", None) else None)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2


def _run_captured(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> tuple[int, str, str]:
    """:func:`_run` in the worker: what it prints comes back as text (the parent prints it)."""
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    try:
        code = _run(args, limits, parser)
    except SystemExit as exc:  # argparse's parser.error: its message is already on stderr
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    return code, out.getvalue(), err.getvalue()


def _feature(args: argparse.Namespace) -> str:
    """The optional feature a command line asks for, in its own words."""
    if args.command == "report" and args.engine != "pandas":
        return f"--engine {args.engine}"
    return "--db" if getattr(args, "db", None) else f"`{args.command}`"


# --------------------------------------------------------------------------- diff BASELINE NEW


def add_diff_command(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """``diff BASELINE NEW``: registered on the command line's subcommands."""
    command = sub.add_parser(
        "diff", help="compare two result sets under one policy, agent by agent (a regression gate for CI)",
        description="Score BASELINE and NEW under one policy and compare every agent in both: the headline change "
                    "with a paired bootstrap interval, each component, radar axis and pass^k level, the tasks "
                    "newly solved and failed, and a verdict (better, worse, no real change). Exit status: 0 when "
                    "nothing fails the gate, 1 when an agent's real drop reaches --fail-on-drop, 2 on an input "
                    "error.")
    command.add_argument("baseline", metavar="BASELINE", help="the stored result set: a runs file or harness "
                                                              "results (a file or a tau2 results folder)")
    command.add_argument("new", metavar="NEW", help="the new result set, read the same way")
    command.add_argument("--agent", action="append", default=None, metavar="NAME",
                         help="compare only this agent (repeat for several; default: every agent)")
    command.add_argument("--fail-on-drop", type=float, default=None, metavar="POINTS",
                         help="exit 1 when an agent's headline drops by at least POINTS and the drop is real "
                              "(its interval lies below 0)")
    command.add_argument("--format", choices=("json", "table", "markdown"), default="table",
                         help="table (terminal), json, or markdown (a pull-request comment, at most 100 columns)")
    command.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON) for both "
                                                                              "sets")
    command.add_argument("--replicates", type=int, default=None, help="bootstrap replicates (default 1000)")
    command.add_argument("--seed", type=int, default=None, help="bootstrap seed (default fixed)")
    command.add_argument("--from", dest="kind", choices=KINDS, default=None,
                         help="both inputs' kind instead of detecting it from their content")
    command.add_argument("--mapping", default=None, metavar="MAP_JSON", help="a column mapping for both inputs")
    command.add_argument("--scorer", default=None, metavar="NAME", help="Inspect AI logs: the scorer whose value "
                                                                       "is the outcome (default: the first)")
    _limit_options(command)
    command.set_defaults(run=run_diff)
    return command


def run_diff(args: argparse.Namespace, limits: Limits) -> int:
    """The ``diff`` command: both sets through the importers, one policy, the chosen format on stdout."""
    threshold = args.fail_on_drop
    if threshold is not None and not (threshold >= 0 and math.isfinite(threshold)):
        raise _Refused(f"--fail-on-drop: a number of points from 0 up, got {threshold:g}")
    for name, value, low, high in (("--replicates", args.replicates, 1, 100_000), ("--seed", args.seed, 0, 2**63)):
        if value is not None and not low <= value <= high:
            raise _Refused(f"{name}: must be from {low:,} to {high:,}, got {value:,}")
    policy = _policy(args.policy)
    sides = []
    for side, path in ((BASELINE, args.baseline), (NEW, args.new)):
        inputs = argparse.Namespace(inputs=[path], kind=args.kind, agent=None, experiment=None, mapping=args.mapping,
                                    scorer=args.scorer)
        try:
            sides.append(load_inputs(inputs, limits).runs)
        except _Refused as exc:
            raise _Refused(f"{side} {path}: cannot be scored:\n{exc}") from None
    try:
        result = diff_runs(sides[0], sides[1], policy, agents=args.agent,
                           replicates=DEFAULT_REPLICATES if args.replicates is None else args.replicates,
                           seed=DEFAULT_SEED if args.seed is None else args.seed, baseline_name=args.baseline,
                           new_name=args.new)
    except KeyError as exc:
        raise _Refused(f"--agent: no agent {exc.args[0]!r} in either set") from None
    _write(render(result, args.format, threshold))
    for agent in result.failing(threshold):
        print(f"gate: {agent.agent_id} dropped {agent.drop:.{policy.score_decimals}f} points (a real drop; "
              f"--fail-on-drop {threshold:g})", file=sys.stderr)
    return result.exit_code(threshold)


# --------------------------------------------------------------------------- serve, sample, methodology


def add_console_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``serve``, ``sample`` and ``methodology`` on the command line's subcommands."""
    serve = sub.add_parser("serve", help="start the explorer app (needs the [app] extra)",
                           description="Start the Scoring Methodology Explorer (Streamlit) on the sample data; "
                                       "arguments after -- go to `streamlit run`.")
    serve.add_argument("--port", type=int, default=8501, help="the port (default 8501)")
    serve.add_argument("--address", default=None, help="the address to listen on (default: Streamlit's)")
    serve.add_argument("streamlit_args", nargs=argparse.REMAINDER, metavar="-- STREAMLIT_ARGS",
                       help="further `streamlit run` options, after --")
    serve.set_defaults(run=run_serve)
    sample = sub.add_parser("sample", help="write the bundled sample runs (CSV) to stdout or a file")
    sample.add_argument("-o", "--output", default=None, metavar="PATH", help="write here instead of stdout")
    sample.set_defaults(run=run_sample)
    methodology = sub.add_parser("methodology", help="print the published methodology the scores follow (Markdown)")
    methodology.set_defaults(run=run_methodology)


def _app_script() -> Path:
    from explorer.pages import APP_DIR  # explorer.pages imports nothing of streamlit's at import time

    return APP_DIR / "app.py"


def streamlit_config_flags(path: Path) -> list[str]:
    """The app's Streamlit configuration (``.streamlit/config.toml``) as ``streamlit run`` flags, so an installed
    app runs as configured wherever it is started from.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
    ...     _ = f.write('[server]\\nmaxUploadSize = 200\\nheadless = true\\n[client]\\ntoolbarMode = "minimal"\\n')
    >>> streamlit_config_flags(Path(f.name))
    ['--server.maxUploadSize', '200', '--server.headless', 'true', '--client.toolbarMode', 'minimal']
    """
    with open(path, "rb") as handle:
        config = tomllib.load(handle)
    flags: list[str] = []
    for section, options in config.items():
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags += [f"--{section}.{key}", text]
    return flags


def serve_command(args: argparse.Namespace) -> list[str]:
    """The ``streamlit run`` command line that ``serve`` replaces itself with."""
    script = _app_script()
    config = script.parent / "config.toml"
    if not config.is_file():  # a clone: the config is where Streamlit itself looks for it
        config = script.parent / ".streamlit" / "config.toml"
    extra = [a for a in args.streamlit_args if a != "--"]
    command = [sys.executable, "-m", "streamlit", "run", str(script), *streamlit_config_flags(config),
               "--server.port", str(args.port)]
    if args.address:
        command += ["--server.address", args.address]
    return command + extra


def run_serve(args: argparse.Namespace, limits: Limits) -> int:
    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("plotly") is None:
        missing = "streamlit" if importlib.util.find_spec("streamlit") is None else "plotly"
        raise _Refused(missing_module_message(missing, "serve (the app)", "app") or "")
    command = serve_command(args)
    print(f"serve: {' '.join(command[1:])}", file=sys.stderr)
    sys.stderr.flush()
    os.execv(sys.executable, command)  # the app's process from here on (signals reach it directly)
    return 0  # pragma: no cover - execv does not return


def run_sample(args: argparse.Namespace, limits: Limits) -> int:
    data = SAMPLE_RUNS.read_bytes()
    if args.output is None:
        return _write(data.decode("utf-8"))
    try:
        Path(args.output).write_bytes(data)
    except OSError as exc:
        raise _Refused(f"{args.output}: cannot write the sample ({exc.strerror or exc})") from None
    print(f"sample: wrote {args.output} ({len(data):,} bytes)", file=sys.stderr)
    return 0


def run_methodology(args: argparse.Namespace, limits: Limits) -> int:
    return _write(PUBLISHED_METHODOLOGY.read_text(encoding="utf-8"))
