"""Command line: ``python -m scoring report RUNS_FILE [--format json|csv|table] [--weights ...]``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

import pandas as pd

from . import format as fmt
from .limits import DEFAULT_LIMITS, Limits, parse_size
from .policy import CANONICAL_POLICY, FieldError, Policy, PolicyError, load_policy
from .radar import check_weights
from .repeatability import check_levels
from .report import score_runs
from .runs import RunsValidationError, load_runs


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


def table_text(report) -> str:
    """A compact leaderboard for the terminal; the CSV and JSON forms carry every field."""
    levels = report.levels
    columns = {"rank": "rank", "agent_id": "agent", "headline_score": "score", "headline_success_rate": "success",
               "headline_execution_score": "execution", "headline_cost_score": "cost",
               "headline_completed_runs": "completed", "radar_profile_score": "profile",
               **{f"pass^{k}": f"pass^{k}" for k in levels}, "flags": "flags"}
    if not report.agents:
        return f"policy {report.policy.version}\n(no agents)"
    frame = report.to_frame()[list(columns)].rename(columns=columns).astype(object)
    decimals = report.policy.score_decimals
    # The app's formatter (scoring.format), so a number reads the same in the terminal as on screen.
    formats = {"rank": fmt.count, "score": lambda v: fmt.score(v, decimals), "success": fmt.pct2,
               "execution": fmt.factor, "cost": fmt.factor, "completed": fmt.count,
               "profile": lambda v: fmt.score(v, decimals), **{f"pass^{k}": fmt.pct2 for k in levels},
               "agent": fmt.text, "flags": fmt.text}
    for column in frame.columns:
        frame[column] = [fmt.DASH if _missing(v) else formats[column](v) for v in frame[column]]
    return f"policy {report.policy.version}\n" + frame.to_string(index=False)


def _missing(value) -> bool:
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


def _report_sql(args, weights, policy: Policy, levels: tuple[int, ...] | None) -> int:
    from . import sql_engine

    try:
        if args.db:
            report = sql_engine.score_postgres(args.db, args.table, policy, weights=weights, levels=levels)
        else:
            report = sql_engine.score_file_sql(args.runs_file, policy, weights=weights, memory_limit=args.memory_limit,
                                               levels=levels)
    except RunsValidationError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    except (ConnectionError, ValueError) as exc:
        print(sql_engine.redact(str(exc)), file=sys.stderr)
        return 2
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    text = {"json": report.to_json_text, "csv": report.to_csv_text,
            "table": lambda: table_text(report) + "\n"}[args.format]()
    return _write(text)


def intervals_json_text(runs, report, replicates: int | None, seed: int | None) -> str:
    """The SPEC 6 report with a top-level "bootstrap" object and an "intervals" object per agent."""
    from . import uncertainty

    intervals = uncertainty.bootstrap_intervals(
        runs, report, replicates=uncertainty.DEFAULT_REPLICATES if replicates is None else replicates,
        seed=uncertainty.DEFAULT_SEED if seed is None else seed)
    doc = report.to_json()
    doc["bootstrap"] = intervals.to_json()
    for agent in doc["agents"]:
        agent["intervals"] = intervals.agents[agent["agent_id"]].to_json()
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser("report", help="score a runs file and print the report")
    report.add_argument("runs_file", nargs="?", help="CSV, JSON, JSON Lines or Parquet file of runs")
    report.add_argument("--engine", choices=("pandas", "sql"), default="pandas",
                        help="pandas (in memory, default) or sql (DuckDB, out of core; Parquet or CSV)")
    report.add_argument("--memory-limit", default=None, help="with --engine sql: DuckDB memory cap, e.g. 2GB")
    report.add_argument("--db", default=None, help="score a PostgreSQL table instead: postgresql://user@host/db "
                                                    "(password from PGPASSWORD or ~/.pgpass preferred)")
    report.add_argument("--table", default="runs", help="with --db: the runs table (default: runs)")
    report.add_argument("--format", choices=("json", "csv", "table"), default="json")
    report.add_argument("--k", default=None, metavar="LEVELS",
                        help="pass^k levels to report, e.g. 1,2,3,4 (default: the policy's; same rule, SPEC 5)")
    report.add_argument("--policy", default=None, metavar="POLICY_JSON",
                        help="score under a sandbox policy (the JSON the sandbox page downloads); numbers carry "
                             "its sandbox label")
    report.add_argument("--weights", default="", help="radar viewer weights, e.g. correctness=0.4,latency=0.15")
    report.add_argument("--exclude-invalid", action="store_true",
                        help="exclude invalid rows (counted on stderr) instead of refusing the file")
    report.add_argument("--intervals", action="store_true",
                        help="add bootstrap 95%% intervals and tie groups to the JSON (canonical numbers unchanged)")
    report.add_argument("--replicates", type=int, default=None, help="bootstrap replicates (default 1000)")
    report.add_argument("--seed", type=int, default=None, help="bootstrap seed (default fixed)")
    for command in (report,):
        _limit_options(command)
    verify = sub.add_parser("verify", help="re-check a score receipt against a runs file")
    verify.add_argument("receipt", help="a receipt JSON downloaded from the app (or written by `receipt`)")
    verify.add_argument("runs_file", help="the runs file the receipt claims to come from")
    receipt = sub.add_parser("receipt", help="write one agent's score receipt (JSON) to stdout")
    receipt.add_argument("runs_file")
    receipt.add_argument("agent_id")
    receipt.add_argument("--markdown", action="store_true", help="the readable Markdown rendering instead")
    receipt.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON)")
    _limit_options(receipt)
    _limit_options(verify)
    return parser


def _limit_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--max-memory", default=None, metavar="SIZE",
                         help=f"memory budget for the decoded runs of one file, e.g. 4GB (default "
                              f"{DEFAULT_LIMITS.max_memory // 10**9}GB); larger files are refused before reading")
    command.add_argument("--max-rows", type=int, default=None, metavar="N",
                         help=f"most runs one file may hold (default {DEFAULT_LIMITS.max_rows:,})")


def limits_from(args, parser: argparse.ArgumentParser) -> Limits:
    """The input limits: the defaults, with --max-memory and --max-rows where given."""
    changes: dict[str, int] = {}
    try:
        if getattr(args, "max_memory", None) is not None:
            changes["max_memory"] = parse_size(args.max_memory)
        if getattr(args, "max_rows", None) is not None:
            changes["max_rows"] = args.max_rows
        return dataclasses.replace(DEFAULT_LIMITS, **changes)
    except ValueError as exc:
        parser.error(f"--max-memory / --max-rows: {exc}")
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


def _load(path: str, limits: Limits, **options):
    try:
        return load_runs(path, limits=limits, **options)
    except RunsValidationError as exc:
        raise _Refused(exc.report()) from None


def _policy(path: str | None) -> Policy:
    try:
        return policy_from(path)
    except PolicyError as exc:
        raise _Refused("policy refused:\n" + "\n".join(f"  - {e}" for e in exc.errors)) from None


def run_verify(args, limits: Limits) -> int:
    from .receipt import ReceiptError, parse_receipt, verify

    try:
        with open(args.receipt, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise _Refused(f"{args.receipt}: cannot read the receipt ({exc.strerror})") from None
    try:
        receipt = parse_receipt(data)
    except ReceiptError as exc:
        raise _Refused(f"{args.receipt}: not a receipt that can be checked: {exc}") from None
    problems = verify(receipt, _load(args.runs_file, limits).runs)
    if problems:
        print(f"does not reproduce: first difference at {problems[0]}", file=sys.stderr)
        if len(problems) > 1:
            print(f"({len(problems) - 1} more difference(s))", file=sys.stderr)
        return 1
    print(f"reproduces: {receipt['agent_id']} under {receipt['policy_version']}")
    return 0


def run_receipt(args, limits: Limits) -> int:
    from .receipt import build_receipt, receipt_json, receipt_markdown

    policy = _policy(args.policy)
    loaded = _load(args.runs_file, limits)
    report = score_runs(loaded.runs, policy)
    try:
        agent = report.agent(args.agent_id)
    except KeyError:
        raise _Refused(f"no agent {args.agent_id!r} in {args.runs_file}") from None
    runs = loaded.runs[loaded.runs["agent_id"] == args.agent_id]
    receipt = build_receipt(agent, runs)
    return _write(receipt_markdown(receipt) if args.markdown else receipt_json(receipt))


def run_report(args, limits: Limits, parser: argparse.ArgumentParser) -> int:
    try:
        weights = parse_weights(args.weights)
    except ValueError as exc:
        parser.error(f"--weights: {exc}")
    if (args.db is None) == (args.runs_file is None):
        parser.error("give either RUNS_FILE or --db URL (with --table)")
    policy = _policy(args.policy)
    levels = parse_levels(args.k, parser)
    if args.db or args.engine == "sql":
        if args.intervals or args.exclude_invalid:
            parser.error("--intervals and --exclude-invalid need the pandas engine")
        return _report_sql(args, weights, policy, levels)
    if args.intervals and args.format != "json":
        parser.error("--intervals adds to the JSON report: use --format json")
    loaded = _load(args.runs_file, limits, exclude_invalid=args.exclude_invalid)
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if loaded.excluded_rows:
        print(f"warning: {loaded.excluded_rows} invalid row(s) of {loaded.rows_read} excluded", file=sys.stderr)
    report = score_runs(loaded.runs, policy, weights=weights, levels=levels)
    if args.intervals:
        text = intervals_json_text(loaded.runs, report, args.replicates, args.seed)
    elif args.exclude_invalid and args.format == "json":
        # Scores computed without the invalid rows say how many were excluded (SPEC 1).
        doc = report.to_json()
        doc = {"policy_version": doc["policy_version"], "excluded_rows": loaded.excluded_rows,
               "agents": doc["agents"]}
        text = json.dumps(doc, indent=2, allow_nan=False) + "\n"
    elif args.exclude_invalid and args.format == "table":
        text = table_text(report) + f"\n({loaded.excluded_rows} invalid row(s) of {loaded.rows_read} excluded)\n"
    else:
        text = {"json": report.to_json_text, "csv": report.to_csv_text,
                "table": lambda: table_text(report) + "\n"}[args.format]()
    return _write(text)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    limits = limits_from(args, parser)
    command = {"verify": run_verify, "receipt": run_receipt}.get(args.command)
    try:
        return command(args, limits) if command else run_report(args, limits, parser)
    except _Refused as exc:
        print(str(exc), file=sys.stderr)
        return 2
