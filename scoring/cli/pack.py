"""``pack INPUT... -o FILE``: a review pack, one self-contained HTML file (or its PDF) with the leaderboard,
decompositions, radar, pass^k, intervals and methodology, built by the app's own code (extra [pack]).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from scoring.cli.options import bootstrap_refusal, import_options, limit_options, parse_weights
from scoring.cli.shared import Refused, input_dataset, load_inputs, read_policy
from scoring.contract import format as fmt
from scoring.contract.limits import Limits
from scoring.contract.policy import CANONICAL_POLICY
from scoring.measures.report import score_runs


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``pack`` on the command line's subcommands."""
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
    import_options(pack)
    limit_options(pack)
    pack.set_defaults(run=run_pack)
    return pack


def run_pack(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> int:
    # The one place the core reaches into explorer/: the pack is the app's charts and tables as a file, so it is
    # built by the same code as the pages (explorer.pack imports plotly, never streamlit).
    from explorer.pack import PackView, PdfUnavailable, build_pack, find_chromium, missing_chromium_message, pack_pdf

    started = time.perf_counter()
    suffix = Path(args.output).suffix.lower()
    if suffix not in (".html", ".htm", ".pdf"):
        parser.error(f"-o: the pack is written as .html or .pdf, got {args.output!r}")
    if suffix == ".pdf" and find_chromium(args.chromium) is None:
        raise Refused(f"pack: {missing_chromium_message(args.chromium)}")
    try:
        weights = parse_weights(args.weights)
    except ValueError as exc:
        parser.error(f"--weights: {exc}")
    refusal = bootstrap_refusal(args)
    if refusal:
        parser.error(refusal)
    policy = read_policy(args.policy)
    loaded = load_inputs(args, limits, exclude_invalid=args.exclude_invalid)
    dataset = input_dataset(args, loaded, limits)
    canonical = score_runs(loaded.runs, CANONICAL_POLICY, weights=weights, harness=loaded.harness,
                           estimated_cost=loaded.estimated_cost)
    unknown = [a for a in args.radar or [] if a not in {x.agent_id for x in canonical.agents}]
    if unknown:
        raise Refused(f"--radar: no agent {fmt.named(unknown[0])} in {', '.join(args.inputs)}")
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
            raise Refused(f"pack: {exc}") from None
    else:
        data = document.encode("utf-8", "surrogatepass")
    try:
        Path(args.output).write_bytes(data)
    except OSError as exc:
        raise Refused(f"pack: cannot write {args.output} ({exc.strerror})") from None
    print(f"pack: wrote {args.output} ({len(data):,} bytes; {len(canonical.agents):,} agents, "
          f"{dataset.runs:,} runs, sha256 {dataset.short_sha}; {time.perf_counter() - started:.1f} s)",
          file=sys.stderr)
    return 0
