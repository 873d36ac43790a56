"""``explain RUNS_FILE AGENT``: where one agent's headline points went, what overtakes the agent above, which
tasks and runs cost points, which runs each measure reads (JSON or a terminal table).
"""

from __future__ import annotations

import argparse
import json

from scoring.cli.options import limit_options
from scoring.cli.shared import Refused, load_runs_file, print_warnings, read_policy, write_stdout
from scoring.contract import format as fmt
from scoring.contract.limits import Limits


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``explain`` on the command line's subcommands."""
    explain = sub.add_parser("explain", help="where one agent's headline points went, what overtakes the agent "
                                             "above, which tasks and runs cost points, which runs each measure reads")
    explain.add_argument("runs_file")
    explain.add_argument("agent_id")
    explain.add_argument("--format", choices=("json", "table"), default="json")
    explain.add_argument("--top", type=int, default=20, metavar="N", help="most influential runs listed (default 20)")
    explain.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON)")
    limit_options(explain)
    explain.set_defaults(run=run_explain)
    return explain


def run_explain(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.analysis.explain import explain, explain_table_text

    policy = read_policy(args.policy)
    loaded = load_runs_file(args.runs_file, limits)
    print_warnings(loaded.warnings)
    if not (loaded.runs["agent_id"] == args.agent_id).any():
        raise Refused(f"no agent {fmt.named(args.agent_id)} in {args.runs_file}")
    explanation = explain(loaded.runs, args.agent_id, policy=policy)
    top = max(args.top, 0)
    if args.format == "json":
        return write_stdout(json.dumps(explanation.to_json(top), indent=2, allow_nan=False) + "\n")
    return write_stdout(fmt.terminal(explain_table_text(explanation, top)) + "\n")  # names: no control sequence
