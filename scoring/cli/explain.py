"""``explain INPUT... AGENT``: where one agent's headline points went, what overtakes the agent above, which
tasks and runs cost points, which runs each measure reads (JSON or a terminal table). An input is a runs file or
harness results, imported as for ``report``.
"""

from __future__ import annotations

import argparse
import json

from scoring.cli.options import import_options, limit_options
from scoring.cli.shared import Refused, load_inputs, read_policy, write_stdout
from scoring.contract import format as fmt
from scoring.contract.limits import Limits


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``explain`` on the command line's subcommands."""
    explain = sub.add_parser("explain", help="where one agent's headline points went, what overtakes the agent "
                                             "above, which tasks and runs cost points, which runs each measure reads")
    explain.add_argument("inputs", nargs="+", metavar="INPUT",
                         help="a runs file, or harness results imported as for `report`")
    explain.add_argument("agent_id")
    explain.add_argument("--format", choices=("json", "table"), default="json")
    explain.add_argument("--top", type=int, default=20, metavar="N", help="most influential runs listed (default 20)")
    explain.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON)")
    import_options(explain)
    limit_options(explain)
    explain.set_defaults(run=run_explain)
    return explain


def run_explain(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.analysis.explain import explain, explain_table_text
    from scoring.measures.report import score_runs

    if args.top < 0:
        raise Refused(f"--top: a number of runs from 0 up, got {args.top:,}")
    policy = read_policy(args.policy)
    loaded = load_inputs(args, limits)
    if not (loaded.runs["agent_id"] == args.agent_id).any():
        raise Refused(f"no agent {fmt.named(args.agent_id)} in {', '.join(args.inputs)}")
    # Scored as `report` scores it: an agent imported from a harness carries the harness's own reading and its notes
    report = score_runs(loaded.runs, policy, harness=loaded.harness, estimated_cost=loaded.estimated_cost)
    explanation = explain(loaded.runs, args.agent_id, report=report)
    top = args.top
    if args.format == "json":
        return write_stdout(json.dumps(explanation.to_json(top), indent=2, allow_nan=False) + "\n")
    return write_stdout(fmt.terminal(explain_table_text(explanation, top)) + "\n")  # names: no control sequence
