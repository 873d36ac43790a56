"""``verify RECEIPT INPUT...``: re-check a score receipt against the runs it claims to come from (exit 1 when it
does not reproduce).
"""

from __future__ import annotations

import argparse
import sys

from scoring.cli.options import import_options, limit_options
from scoring.cli.shared import Refused, input_dataset, load_inputs
from scoring.contract.format import one_line
from scoring.contract.limits import Limits


def _shown(text: object) -> str:
    """A stranger's text (a receipt's key, agent id or policy label) for the terminal: escapes for controls, and
    quoted as Python writes it when it holds an invisible (format) character, so a look-alike shows."""
    import unicodedata

    text = one_line(text)
    return repr(text) if any(unicodedata.category(ch) == "Cf" for ch in text) else text


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``verify`` on the command line's subcommands ."""
    verify = sub.add_parser("verify", help="re-check a score receipt against a runs file")
    verify.add_argument("receipt", help="a receipt JSON downloaded from the app (or written by `receipt`)")
    verify.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="the runs file (or harness results, imported as for `report`) the receipt claims to "
                             "come from")
    import_options(verify)
    limit_options(verify)
    verify.set_defaults(run=run_verify)
    return verify


def run_verify(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.outputs.receipt import ReceiptError, parse_receipt, verify

    try:
        with open(args.receipt, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise Refused(f"{args.receipt}: cannot read the receipt ({exc.strerror})") from None
    try:
        receipt = parse_receipt(data)
    except ReceiptError as exc:
        raise Refused(f"{args.receipt}: not a receipt that can be checked: {_shown(exc)}") from None
    loaded = load_inputs(args, limits)
    problems = verify(receipt, loaded.runs)
    if problems:
        print(f"does not reproduce: first difference at {_shown(problems[0])}", file=sys.stderr)
        if len(problems) > 1:
            print(f"({len(problems) - 1} more difference(s))", file=sys.stderr)
        return 1
    sandbox = " (a sandbox policy, not the canonical one)" if "+sandbox-" in receipt["policy_version"] else ""
    print(f"reproduces: {_shown(receipt['agent_id'])} under {_shown(receipt['policy_version'])}{sandbox}")
    print(_dataset_line(receipt, input_dataset(args, loaded, limits).sha256), file=sys.stderr)
    return 0


def _dataset_line(receipt: dict, sha256: str) -> str:
    """What the receipt's dataset block (where it was made: provenance, which the numbers do not depend on) says
    beside the inputs given: the agent's runs are what reproduced, and a copy of the file with its rows in another
    order, or other agents' runs changed, reproduces too.

    >>> _dataset_line({"dataset": {"sha256": "ab" * 32}}, "ab" * 32)
    "dataset: the inputs' sha256 is the receipt's (abababababababab...)"
    """
    said = (receipt.get("dataset") or {}).get("sha256") if isinstance(receipt.get("dataset"), dict) else None
    if not isinstance(said, str):
        return "dataset: the receipt names no sha256; the agent's runs reproduced"
    if said == sha256:
        return f"dataset: the inputs' sha256 is the receipt's ({sha256[:16]}...)"
    return (f"dataset: not the receipt's (the inputs' sha256 is {sha256[:16]}..., the receipt names "
            f"{_shown(said[:16])}...): the agent's runs reproduced all the same, so these are not the bytes the "
            "receipt was made from (another order, other agents' rows), or its dataset block was edited")
