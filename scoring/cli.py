"""Command line: ``python -m scoring report RUNS_FILE [--format json|csv|table] [--weights ...]``."""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd

from .radar import check_weights
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
    levels = report.policy.pass_k_levels
    columns = {"rank": "rank", "agent_id": "agent", "headline_score": "score", "headline_success_rate": "success",
               "headline_execution_score": "execution", "headline_cost_score": "cost",
               "headline_completed_runs": "completed", "radar_profile_score": "profile",
               **{f"pass^{k}": f"pass^{k}" for k in levels}, "flags": "flags"}
    if not report.agents:
        return f"policy {report.policy.version}\n(no agents)"
    frame = report.to_frame()[list(columns)].rename(columns=columns).astype(object)
    decimals = report.policy.score_decimals
    formats = {"score": f"{{:.{decimals}f}}", "profile": f"{{:.{decimals}f}}", "success": "{:.4f}",
               "execution": "{:.4f}", "cost": "{:.4f}", **{f"pass^{k}": "{:.4f}" for k in levels}}
    for column in frame.columns:
        pattern = formats.get(column, "{}")
        frame[column] = ["-" if pd.isna(v) else pattern.format(v) for v in frame[column]]
    return f"policy {report.policy.version}\n" + frame.to_string(index=False)


def _write(text: str) -> int:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: not an error of ours
        sys.stdout = None
    return 0


def _report_sql(args, weights) -> int:
    from . import sql_engine

    try:
        if args.db:
            report = sql_engine.score_postgres(args.db, args.table, weights=weights)
        else:
            report = sql_engine.score_file_sql(args.runs_file, weights=weights, memory_limit=args.memory_limit)
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

    options = {k: v for k, v in (("replicates", replicates), ("seed", seed)) if v is not None}
    intervals = uncertainty.bootstrap_intervals(runs, report, **options)
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
    report.add_argument("--weights", default="", help="radar viewer weights, e.g. correctness=0.4,latency=0.15")
    report.add_argument("--exclude-invalid", action="store_true",
                        help="exclude invalid rows (counted on stderr) instead of refusing the file")
    report.add_argument("--intervals", action="store_true",
                        help="add bootstrap 95%% intervals and tie groups to the JSON (canonical numbers unchanged)")
    report.add_argument("--replicates", type=int, default=None, help="bootstrap replicates (default 1000)")
    report.add_argument("--seed", type=int, default=None, help="bootstrap seed (default fixed)")
    verify = sub.add_parser("verify", help="re-check a score receipt against a runs file")
    verify.add_argument("receipt", help="a receipt JSON downloaded from the app (or written by `receipt`)")
    verify.add_argument("runs_file", help="the runs file the receipt claims to come from")
    receipt = sub.add_parser("receipt", help="write one agent's score receipt (JSON) to stdout")
    receipt.add_argument("runs_file")
    receipt.add_argument("agent_id")
    receipt.add_argument("--markdown", action="store_true", help="the readable Markdown rendering instead")
    return parser


def run_verify(receipt_path: str, runs_path: str) -> int:
    from .receipt import verify

    try:
        with open(receipt_path, encoding="utf-8") as handle:
            receipt = json.load(handle)
    except (OSError, ValueError) as exc:
        print(f"{receipt_path}: not a readable receipt ({exc})", file=sys.stderr)
        return 2
    if not isinstance(receipt, dict):
        print(f"{receipt_path}: not a receipt (expected a JSON object)", file=sys.stderr)
        return 2
    try:
        loaded = load_runs(runs_path)
    except RunsValidationError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    problems = verify(receipt, loaded.runs)
    if problems:
        print(f"does not reproduce: first difference at {problems[0]}", file=sys.stderr)
        if len(problems) > 1:
            print(f"({len(problems) - 1} more difference(s))", file=sys.stderr)
        return 1
    print(f"reproduces: {receipt.get('agent_id')} under {receipt.get('policy_version')}")
    return 0


def run_receipt(runs_path: str, agent_id: str, markdown: bool) -> int:
    from .receipt import build_receipt, receipt_json, receipt_markdown

    try:
        loaded = load_runs(runs_path)
    except RunsValidationError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    report = score_runs(loaded.runs)
    try:
        agent = report.agent(agent_id)
    except KeyError:
        print(f"no agent {agent_id!r} in {runs_path}", file=sys.stderr)
        return 2
    runs = loaded.runs[loaded.runs["agent_id"] == agent_id]
    receipt = build_receipt(agent, runs)
    sys.stdout.write(receipt_markdown(receipt) if markdown else receipt_json(receipt))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "verify":
        return run_verify(args.receipt, args.runs_file)
    if args.command == "receipt":
        return run_receipt(args.runs_file, args.agent_id, args.markdown)
    try:
        weights = parse_weights(args.weights)
    except ValueError as exc:
        parser.error(f"--weights: {exc}")
    if (args.db is None) == (args.runs_file is None):
        parser.error("give either RUNS_FILE or --db URL (with --table)")
    if args.db or args.engine == "sql":
        if args.intervals or args.exclude_invalid:
            parser.error("--intervals and --exclude-invalid need the pandas engine")
        return _report_sql(args, weights)
    try:
        loaded = load_runs(args.runs_file, exclude_invalid=args.exclude_invalid)
    except RunsValidationError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if loaded.excluded_rows:
        print(f"warning: {loaded.excluded_rows} invalid row(s) of {loaded.rows_read} excluded", file=sys.stderr)
    report = score_runs(loaded.runs, weights=weights)
    if args.intervals:
        if args.format != "json":
            parser.error("--intervals adds to the JSON report: use --format json")
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
