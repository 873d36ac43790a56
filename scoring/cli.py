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
import json
import sys
from pathlib import Path

import pandas as pd

from . import format as fmt
from .importers import KINDS, Imported, MappingError, combine, detect, import_file, mapping_from_json
from .limits import DEFAULT_LIMITS, Limits, parse_size
from .policy import CANONICAL_POLICY, FieldError, Policy, PolicyError, load_policy
from .radar import check_weights
from .repeatability import check_levels
from .report import score_runs
from .runs import LoadedRuns, RunsValidationError, load_runs


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


def _report_sql(args, weights, policy: Policy, levels: tuple[int, ...] | None, card=None) -> int:
    from . import sql_engine

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


def _print_report(report, args, card) -> int:
    """An engine's report on stdout in the chosen format (its warnings on stderr)."""
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.format == "json":
        return _write(_json_text(report.to_json(), report, card))
    text = {"csv": report.to_csv_text, "table": lambda: table_text(report) + "\n"}[args.format]()
    return _write(text + (scorecard_table_text(report, card) if card and args.format == "table" else ""))


def _json_text(doc: dict, report, card) -> str:
    """The report's JSON; with a scorecard, a top-level "scorecard" object after the policy version."""
    if card is not None:
        from .scorecard import apply_scorecard, scorecard_to_dict

        ranking = [{"profile_rank": r.profile_rank, "agent_id": r.agent_id, "profile_score": r.profile_score,
                    "headline_rank": r.headline_rank, "headline_score": r.headline_score}
                   for r in apply_scorecard(report, card).rows]
        head = {k: doc.pop(k) for k in ("policy_version", "excluded_rows") if k in doc}
        doc = {**head, "scorecard": {**scorecard_to_dict(card), "profile_ranking": ranking}, **doc}
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def scorecard_table_text(report, card) -> str:
    """The team's profile ranking for the terminal, beside the unchanged headline score and rank."""
    from .scorecard import apply_scorecard

    decimals = report.policy.score_decimals
    rows = [{"profile rank": fmt.count(r.profile_rank) if r.profile_rank else fmt.DASH, "agent": fmt.text(r.agent_id),
             "profile": fmt.DASH if r.profile_score is None else fmt.score(r.profile_score, decimals),
             "headline": fmt.DASH if r.headline_score is None else fmt.score(r.headline_score, decimals),
             "headline rank": fmt.count(r.headline_rank) if r.headline_rank else fmt.DASH}
            for r in apply_scorecard(report, card).rows]
    weights = ", ".join(f"{axis} {fmt.weight(w)}" for axis, w in card.weights.items() if w > 0)
    return (f"\nscorecard {fmt.text(card.name)} ({weights}): profile ranking; the headline never moves\n"
            + pd.DataFrame(rows).to_string(index=False) + "\n")


def _report_spark(args, weights, policy: Policy, levels: tuple[int, ...] | None, card=None) -> int:
    from . import spark_engine  # pyspark itself is imported inside, when a session is made

    try:
        path = args.inputs[0] if args.inputs else None
        report = spark_engine.score_spark(path, table=args.table, remote=args.spark_remote,
                                          master=args.spark_master, policy=policy,
                                          weights=weights, levels=levels)
    except ModuleNotFoundError as exc:
        print(f"the Spark engine needs pyspark ({exc.name} is not installed): "
              "pip install -r requirements-spark.txt", file=sys.stderr)
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


def intervals_json_text(runs, report, replicates: int | None, seed: int | None, card=None) -> str:
    """The SPEC 6 report with a top-level "bootstrap" object and an "intervals" object per agent."""
    from . import uncertainty

    intervals = uncertainty.bootstrap_intervals(
        runs, report, replicates=uncertainty.DEFAULT_REPLICATES if replicates is None else replicates,
        seed=uncertainty.DEFAULT_SEED if seed is None else seed)
    doc = report.to_json()
    doc["bootstrap"] = intervals.to_json()
    for agent in doc["agents"]:
        agent["intervals"] = intervals.agents[agent["agent_id"]].to_json()
    return _json_text(doc, report, card)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=__doc__)
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
                        help="pass^k levels to report, e.g. 1,2,3,4 (default: the policy's; same rule, SPEC 5)")
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
    return parser


def _import_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--from", dest="kind", choices=KINDS, default=None,
                         help="the inputs' kind instead of detecting it from their content (SPEC 7)")
    command.add_argument("--agent", action="append", default=None, metavar="NAME",
                         help="agent id for harness files instead of the one SPEC 7 builds (tau-bench: instead "
                              "of the file stem); once for every input, or once per input in order")
    command.add_argument("--experiment", action="append", default=None, metavar="TAG",
                         help="experiment tag added to the agent ids ('model [TAG]') so that files of the same "
                              "model stay apart; once for every input, or once per input in order")
    command.add_argument("--mapping", default=None, metavar="MAP_JSON",
                         help="a column mapping (JSON, as the app's mapping page saves it) for a table in "
                              "another layout")
    command.add_argument("--scorer", default=None, metavar="NAME",
                         help="Inspect AI logs: the scorer whose value is the outcome (default: the first)")


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
        hint = ""
        if exc.problems and all(p.code == "missing_column" for p in exc.problems):
            hint = ("\nhint: a table in another layout can be read through a column mapping: --mapping MAP.json "
                    "(the app's 'Map a table' page writes one)")
        raise _Refused(exc.report() + hint) from None


_ZIP_MAGIC = b"PK\x03\x04"


def looks_like_runs_file(path: str, limits: Limits) -> bool:
    """Whether one input is a runs table (SPEC 1) by its content, as ``scoring.importers.detect`` decides.

    Only a file that starts like a zip archive or JSON needs the importers' detection; anything
    else (CSV, JSON Lines text, Parquet) is a runs table without reading further, so a large runs
    file is not read twice. A file detection refuses is left to the loader, which reports it in
    its own words.
    """
    try:
        if Path(path).is_dir():
            return False
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except (OSError, ValueError):
        return True  # the loader says why it cannot be read
    head = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not head.startswith(_ZIP_MAGIC) and head[:1] not in (b"{", b"["):
        return True
    try:
        return detect(path, limits=limits) == "runs"
    except RunsValidationError:
        return True


def _import_requested(args) -> bool:
    """Any option that only an import understands (the plain runs-file path takes none of them)."""
    return bool(args.kind not in (None, "runs") or args.agent or args.experiment or args.mapping or args.scorer)


def _per_input(values: list[str] | None, inputs: list[str], option: str) -> list[str | None]:
    if not values:
        return [None] * len(inputs)
    if len(values) == 1:
        return [values[0]] * len(inputs)
    if len(values) != len(inputs):
        raise _Refused(f"{option}: {len(values)} values for {len(inputs)} input(s); give one for every input "
                       "or one per input")
    return list(values)


def _mapping(path: str | None):
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


def import_inputs(args, limits: Limits) -> Imported:
    """Every input imported (SPEC 7) and combined into one raw table with one report."""
    mapping = _mapping(args.mapping)
    agents = _per_input(args.agent, args.inputs, "--agent")
    tags = _per_input(args.experiment, args.inputs, "--experiment")
    try:
        parts = [import_file(path, kind=args.kind, agent=agent, experiment=tag, mapping=mapping, scorer=args.scorer,
                             limits=limits) for path, agent, tag in zip(args.inputs, agents, tags)]
        imported = combine(parts, limits=limits)
    except RunsValidationError as exc:
        raise _Refused(exc.report()) from None
    if args.scorer and "inspect" not in {f.kind for f in imported.report.files}:
        raise _Refused("--scorer chooses the scorer of an Inspect AI log; none of the inputs is one")
    return imported


def load_inputs(args, limits: Limits, *, exclude_invalid: bool = False) -> LoadedRuns:
    """The validated runs of the inputs: one runs file through the loader as before, anything else imported.

    The import report goes to stderr as ``import:`` lines (and the import's warnings are not
    repeated as ``warning:`` lines); a refusal names every problem, as for a runs file.
    """
    if len(args.inputs) == 1 and not _import_requested(args) and (
            args.kind == "runs" or looks_like_runs_file(args.inputs[0], limits)):
        loaded = _load(args.inputs[0], limits, exclude_invalid=exclude_invalid)
        _print_warnings(loaded.warnings)
        return loaded
    imported = import_inputs(args, limits)
    for line in imported.report.text().splitlines():
        print(f"import: {line}", file=sys.stderr)
    try:
        loaded = imported.validate(exclude_invalid=exclude_invalid)
    except RunsValidationError as exc:
        raise _Refused(exc.report()) from None
    shown = set(imported.report.all_warnings())
    _print_warnings([w for w in loaded.warnings if w not in shown])
    return loaded


def _print_warnings(warnings) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


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
    problems = verify(receipt, load_inputs(args, limits).runs)
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
    loaded = load_inputs(args, limits)
    report = score_runs(loaded.runs, policy)
    try:
        agent = report.agent(args.agent_id)
    except KeyError:
        raise _Refused(f"no agent {args.agent_id!r} in {', '.join(args.inputs)}") from None
    runs = loaded.runs[loaded.runs["agent_id"] == args.agent_id]
    receipt = build_receipt(agent, runs, dataset=input_dataset(args, loaded, limits).to_json())
    return _write(receipt_markdown(receipt) if args.markdown else receipt_json(receipt))


def run_explain(args, limits: Limits) -> int:
    from .explain import explain
    from .explain_table import explain_table_text

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


def input_dataset(args, loaded: LoadedRuns, limits: Limits):
    """The dataset the inputs make, named as the app names it: one runs file by the sha256 of its bytes, an
    import by the digest of its files' hashes, names, tags and mapping (the app's upload of the same files
    gives the same digest)."""
    from scoring.downloads import DatasetInfo, file_sha256, import_digest

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
    from .importers import mapping_to_json

    digest = import_digest(names, [sha(p) for p in paths], tags, mapping_to_json(mapping) if mapping else None)
    name = names[0] if len(names) == 1 else f"{len(names)} files"
    return DatasetInfo(name + (" (mapped)" if mapping else ""), digest, runs, kind="import",
                       hash_of="import of the files", rows_read=rows_read, excluded_rows=excluded)


def run_pack(args, limits: Limits, parser: argparse.ArgumentParser) -> int:
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
    canonical = score_runs(loaded.runs, CANONICAL_POLICY, weights=weights)
    unknown = [a for a in args.radar or [] if a not in {x.agent_id for x in canonical.agents}]
    if unknown:
        raise _Refused(f"--radar: no agent {unknown[0]!r} in {', '.join(args.inputs)}")
    sandbox = score_runs(loaded.runs, policy, weights=weights) if policy is not CANONICAL_POLICY else None
    intervals = None
    if not args.no_intervals:
        from . import uncertainty

        intervals = uncertainty.bootstrap_intervals(
            loaded.runs, canonical, replicates=args.replicates or uncertainty.DEFAULT_REPLICATES,
            seed=uncertainty.DEFAULT_SEED if args.seed is None else args.seed)
    command = "python -m scoring " + shlex.join(["pack", *args.argv])
    document = build_pack(canonical, dataset, intervals=intervals, sandbox=sandbox,
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


def run_report(args, limits: Limits, parser: argparse.ArgumentParser) -> int:
    try:
        weights = parse_weights(args.weights)
    except ValueError as exc:
        parser.error(f"--weights: {exc}")
    if args.scorecard is not None and args.weights.strip():
        parser.error("--weights and --scorecard both set the radar weights: give one of them")
    card = _scorecard(args.scorecard)
    if card is not None:
        weights = dict(card.weights)  # all five axes: the same path as --weights, so the same profile scores
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
    report = score_runs(loaded.runs, policy, weights=weights, levels=levels)
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


def _scorecard(path: str | None):
    """The Team Scorecard in ``path`` (None without one); a refused file names every refused field."""
    if path is None:
        return None
    from .scorecard import ScorecardError, read_scorecard

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


def run_badge(args, limits: Limits) -> int:
    """One agent's canonical headline score as an SVG badge, with the file's sha256 and the policy version."""
    from .badge import badge_file_name, badge_svg

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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv[1:]
    limits = limits_from(args, parser)
    command = {"verify": run_verify, "receipt": run_receipt, "explain": run_explain,
               "badge": run_badge}.get(args.command)
    try:
        if args.command == "pack":
            return run_pack(args, limits, parser)
        return command(args, limits) if command else run_report(args, limits, parser)
    except _Refused as exc:
        print(str(exc), file=sys.stderr)
        return 2
