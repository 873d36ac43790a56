"""``receipt INPUT... AGENT``: one agent's score receipt (JSON, or its Markdown rendering) on stdout."""

from __future__ import annotations

import argparse

from scoring.cli.options import import_options, limit_options
from scoring.cli.shared import Refused, input_dataset, load_inputs, read_policy, write_stdout
from scoring.contract import format as fmt
from scoring.contract.limits import Limits
from scoring.measures.report import score_runs


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``receipt`` on the command line's subcommands."""
    receipt = sub.add_parser("receipt", help="write one agent's score receipt (JSON) to stdout")
    receipt.add_argument("inputs", nargs="+", metavar="INPUT",
                         help="a runs file, or harness results imported as for `report`")
    receipt.add_argument("agent_id")
    receipt.add_argument("--markdown", action="store_true", help="the readable Markdown rendering instead")
    receipt.add_argument("--policy", default=None, metavar="POLICY_JSON", help="a sandbox policy (JSON)")
    import_options(receipt)
    limit_options(receipt)
    receipt.set_defaults(run=run_receipt)
    return receipt


def run_receipt(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.outputs.receipt import build_receipt, receipt_json, receipt_markdown

    policy = read_policy(args.policy)
    loaded = load_inputs(args, limits)
    report = score_runs(loaded.runs, policy)
    try:
        agent = report.agent(args.agent_id)
    except KeyError:
        raise Refused(f"no agent {fmt.named(args.agent_id)} in {', '.join(args.inputs)}") from None
    runs = loaded.runs[loaded.runs["agent_id"] == args.agent_id]
    receipt = build_receipt(agent, runs, dataset=input_dataset(args, loaded, limits).to_json())
    return write_stdout(receipt_markdown(receipt) if args.markdown else receipt_json(receipt))
