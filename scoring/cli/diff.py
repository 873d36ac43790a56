"""``diff BASELINE NEW``: two result sets under one policy, agent by agent, over :mod:`scoring.analysis.diff` (a
regression gate for CI: exit 1 when an agent's real drop reaches ``--fail-on-drop``).
"""

from __future__ import annotations

import argparse
import math
import sys

from scoring.analysis.diff import BASELINE, MISSING_AGENTS, NEW, NO_AGENT_IN_BOTH, diff_runs, render
from scoring.analysis.uncertainty import DEFAULT_REPLICATES, DEFAULT_SEED
from scoring.cli.options import bootstrap_refusal, from_option, limit_options
from scoring.cli.shared import Refused, load_inputs, read_policy, write_stdout
from scoring.contract import format as fmt
from scoring.contract.limits import Limits


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``diff BASELINE NEW`` on the command line's subcommands."""
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
    command.add_argument("--pair", nargs=2, action="append", default=None, metavar=("BASELINE_ID", "NEW_ID"),
                         help="compare the baseline's agent BASELINE_ID with the new set's NEW_ID: an agent renamed "
                              "between the sets (tau-bench names its agent after the results file); repeatable")
    command.add_argument("--fail-on-drop", type=float, default=None, metavar="POINTS",
                         help="exit 1 when an agent's headline drops by at least POINTS and the drop is real "
                              "(its interval lies below 0)")
    command.add_argument("--format", choices=("json", "table", "markdown"), default="table",
                         help="table (terminal), json, or markdown (a pull-request comment, at most 100 columns)")
    command.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON) for both "
                                                                              "sets")
    command.add_argument("--replicates", type=int, default=None, help="bootstrap replicates (default 1000)")
    command.add_argument("--seed", type=int, default=None, help="bootstrap seed (default fixed)")
    from_option(command, "both inputs'")
    command.add_argument("--mapping", default=None, metavar="MAP_JSON", help="a column mapping for both inputs")
    command.add_argument("--prices", default=None, metavar="PRICES_JSON",
                         help="estimate cost_usd from token counts where a harness file records none, in both inputs "
                              "(as report --prices)")
    command.add_argument("--scorer", default=None, metavar="NAME", help="Inspect AI logs: the scorer whose value "
                                                                       "is the outcome (default: the first)")
    limit_options(command)
    command.set_defaults(run=run_diff)
    return command


def run_diff(args: argparse.Namespace, limits: Limits) -> int:
    """The ``diff`` command: both sets through the importers, one policy, the chosen format on stdout."""
    threshold = args.fail_on_drop
    if threshold is not None and not (threshold >= 0 and math.isfinite(threshold)):
        raise Refused(f"--fail-on-drop: a number of points from 0 up, got {threshold:g}")
    refusal = bootstrap_refusal(args)
    if refusal:
        raise Refused(refusal)
    policy = read_policy(args.policy)
    sides, readings = [], []
    for side, path in ((BASELINE, args.baseline), (NEW, args.new)):
        inputs = argparse.Namespace(inputs=[path], kind=args.kind, agent=None, experiment=None, mapping=args.mapping,
                                    scorer=args.scorer, prices=args.prices)
        try:
            loaded = load_inputs(inputs, limits)
        except Refused as exc:
            raise Refused(f"{side} {path}: cannot be scored:\n{exc}") from None
        sides.append(loaded.runs)
        readings.append(loaded.harness)  # a harness file's own reading, said beside each agent's diff
    pairs = dict(args.pair or [])
    if len(pairs) != len(args.pair or []):
        raise Refused("--pair: one baseline agent paired twice")
    try:
        result = diff_runs(sides[0], sides[1], policy, agents=args.agent,
                           replicates=DEFAULT_REPLICATES if args.replicates is None else args.replicates,
                           seed=DEFAULT_SEED if args.seed is None else args.seed, baseline_name=args.baseline,
                           new_name=args.new, pairs=pairs, harness=(readings[0], readings[1]))
    except KeyError as exc:
        raise Refused(f"--agent: no agent {fmt.named(exc.args[0])} in either set") from None
    except ValueError as exc:  # a --pair the sets do not allow, in words
        raise Refused(f"--pair: {fmt.one_line(exc)}") from None
    text = render(result, args.format, threshold)
    write_stdout(fmt.terminal(text) if args.format == "table" else text)  # names: no control sequence
    for agent in result.failing(threshold):
        print(f"gate: {fmt.one_line(agent.agent_id)} dropped {agent.drop:.{policy.score_decimals}f} points "
              f"(a real drop; --fail-on-drop {threshold:g})", file=sys.stderr)
    if result.compared_nothing(threshold):
        print(f"gate: compared nothing, so it neither passed nor failed. {NO_AGENT_IN_BOTH}", file=sys.stderr)
    elif result.gate(threshold) == "agents missing":
        print(f"gate: not passed: {MISSING_AGENTS}: {', '.join(map(fmt.one_line, result.only_in_baseline))}",
              file=sys.stderr)
    return result.exit_code(threshold)
