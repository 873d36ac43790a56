"""``report INPUT...``: score runs files or harness results (or a PostgreSQL or Spark table) and print the report
as JSON, CSV or a terminal table, with a Team Scorecard's profile ranking or bootstrap intervals when asked."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scoring.cli.options import bootstrap_refusal, import_options, limit_options, parse_weights
from scoring.cli.shared import (
    import_requested,
    load_inputs,
    looks_like_runs_file,
    read_policy,
    read_scorecard,
    write_stdout,
)
from scoring.contract import format as fmt
from scoring.contract.extras import install_hint, missing_module_message
from scoring.contract.limits import Limits
from scoring.contract.policy import Policy
from scoring.contract.problems import RunsValidationError
from scoring.contract.schema import COMPLETED
from scoring.measures.repeatability import check_levels
from scoring.measures.report import Report, score_runs

# pandas is imported by the functions that build or read a frame: a report from an engine's aggregates
# (--engine sql) never loads it.
if TYPE_CHECKING:
    import pandas as pd

    from scoring.analysis.scorecard import Scorecard


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``report`` on the command line's subcommands."""
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
    import_options(report)
    limit_options(report)
    report.set_defaults(run=run_report)
    return report


def run_report(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> int:
    try:
        weights = parse_weights(args.weights)
    except ValueError as exc:
        parser.error(f"--weights: {exc}")
    if args.scorecard is not None and args.weights.strip():
        parser.error("--weights and --scorecard both set the radar weights: give one of them")
    refusal = bootstrap_refusal(args, needs="--intervals")
    if refusal:
        parser.error(refusal)
    card = read_scorecard(args.scorecard)
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
        if len(args.inputs) > 1 or import_requested(args):
            parser.error("--engine spark reads one runs path or table; harness imports, --mapping and several "
                         "inputs need the pandas engine")
    elif (args.db is None) == (not args.inputs):
        parser.error("give either INPUT (a runs file or harness results) or --db URL (with --table)")
    elif args.table is not None and not args.db:
        parser.error("--table needs --db URL or --engine spark")
    policy = read_policy(args.policy)
    levels = parse_levels(args.k, parser)
    if spark:
        if args.intervals or args.exclude_invalid:
            parser.error("--intervals and --exclude-invalid need the pandas engine")
        return _report_spark(args, weights, policy, levels, card, limits)
    if args.db or args.engine == "sql":
        if args.intervals or args.exclude_invalid:
            parser.error("--intervals and --exclude-invalid need the pandas engine")
        if len(args.inputs) > 1 or import_requested(args) or (
                args.inputs and args.kind != "runs" and not looks_like_runs_file(args.inputs[0], limits)):
            parser.error("--engine sql and --db read one runs file or table; harness imports, --mapping and "
                         "several inputs need the pandas engine (drop --engine sql)")
        return _report_sql(args, weights, policy, levels, card, limits)
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
    elif args.exclude_invalid and args.format == "csv":  # the count in the file too, not only on stderr
        text = report.to_csv_text(excluded_rows=loaded.excluded_rows)
    elif args.exclude_invalid and args.format == "table":
        text = table_text(report) + f"\n({loaded.excluded_rows} invalid row(s) of {loaded.rows_read} excluded)\n"
    else:
        text = {"csv": report.to_csv_text, "table": lambda: table_text(report) + "\n"}[args.format]()
    if card is not None and args.format == "table":
        text += scorecard_table_text(report, card)
    return write_stdout(text)


def parse_levels(text: str | None, parser: argparse.ArgumentParser) -> tuple[int, ...] | None:
    """'1,2,3,4' -> (1, 2, 3, 4), bounded as the policy bounds its levels; None for the policy's own."""
    if text is None:
        return None
    parts = [part.strip() for part in text.split(",") if part.strip()]
    bad = [p for p in parts if not p.isdigit()]
    if bad:
        parser.error(f"--k: not a whole number: {fmt.named(bad[0], 40)}")
    try:
        return check_levels(int(part) for part in parts)
    except ValueError as exc:
        parser.error(f"--k: {exc}")
        raise  # parser.error exits


def _report_sql(args: argparse.Namespace, weights: Mapping[str, float] | None, policy: Policy,
                levels: tuple[int, ...] | None, card: Scorecard | None, limits: Limits) -> int:
    from scoring.engines import sql_engine

    options: dict[str, Any] = {"weights": weights, "levels": levels, "limits": limits}  # work limits: every engine
    try:
        if args.db:
            report = sql_engine.score_postgres(args.db, args.table or "runs", policy, **options)
        else:
            report = sql_engine.score_file_sql(args.inputs[0], policy, memory_limit=args.memory_limit, **options)
    except RunsValidationError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    except (ConnectionError, ValueError) as exc:
        print(sql_engine.redact(str(exc)), file=sys.stderr)
        return 2
    return _print_report(report, args, card)


def _report_spark(args: argparse.Namespace, weights: Mapping[str, float] | None, policy: Policy,
                  levels: tuple[int, ...] | None, card: Scorecard | None, limits: Limits) -> int:
    from scoring.engines import spark_engine  # pyspark itself is imported inside, when a session is made

    try:
        path = args.inputs[0] if args.inputs else None
        report = spark_engine.score_spark(path, table=args.table, remote=args.spark_remote,
                                          master=args.spark_master, policy=policy,
                                          weights=weights, levels=levels, limits=limits)
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


def _print_report(report: Report, args: argparse.Namespace, card: Scorecard | None) -> int:
    """An engine's report on stdout in the chosen format (its warnings on stderr)."""
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.format == "json":
        return write_stdout(_json_text(report.to_json(), report, card))
    text = {"csv": report.to_csv_text, "table": lambda: table_text(report) + "\n"}[args.format]()
    return write_stdout(text + (scorecard_table_text(report, card) if card and args.format == "table" else ""))


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
               "agent": fmt.one_line, "flags": fmt.text}
    for column in frame.columns:
        frame[column] = [fmt.DASH if _missing(v) else formats[column](v) for v in frame[column]]
    notes = [f"  {fmt.one_line(a.agent_id)}: {fmt.one_line(note)}" for a in report.agents for note in a.notes()]
    if report.weights and not any(report.weights.values()):  # SPEC 4: no profile where the weights sum to 0
        notes.insert(0, "  profile: every radar weight is 0, so no agent has a profile score (weigh one axis)")
    return (f"policy {report.policy.version}\n" + frame.to_string(index=False)
            + ("\nnotes:\n" + "\n".join(notes) if notes else ""))


def scorecard_table_text(report: Report, card: Scorecard) -> str:
    """The team's profile ranking for the terminal, beside the unchanged headline score and rank."""
    import pandas as pd

    from scoring.analysis.scorecard import apply_scorecard

    decimals = report.policy.score_decimals
    rows = [{"profile rank": fmt.count(r.profile_rank) if r.profile_rank else fmt.DASH,
             "agent": fmt.one_line(r.agent_id),
             "profile": fmt.DASH if r.profile_score is None else fmt.score(r.profile_score, decimals),
             "headline": fmt.DASH if r.headline_score is None else fmt.score(r.headline_score, decimals),
             "headline rank": fmt.count(r.headline_rank) if r.headline_rank else fmt.DASH}
            for r in apply_scorecard(report, card).rows]
    weights = card.shares_text()  # shares adding up to 100%, whatever the weights add up to
    return (f"\nscorecard {fmt.text(card.name)} ({weights}): profile ranking; the headline never moves\n"
            + pd.DataFrame(rows).to_string(index=False) + "\n")


def _missing(value: object) -> bool:
    import pandas as pd

    return value is None or bool(pd.isna(value))
