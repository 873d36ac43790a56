"""``badge FILE AGENT``: one agent's canonical headline score as an SVG badge, with the file's sha256 and the
policy version.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scoring.cli.options import limit_options
from scoring.cli.shared import Refused, input_dataset, load_inputs, write_stdout
from scoring.contract import format as fmt
from scoring.contract.limits import Limits
from scoring.contract.policy import CANONICAL_POLICY
from scoring.measures.report import score_runs

if TYPE_CHECKING:
    from scoring.load.runs import LoadedRuns


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``badge`` on the command line's subcommands."""
    badge = sub.add_parser("badge", help="write one agent's canonical headline score as an SVG badge")
    badge.add_argument("file", metavar="FILE", help="a runs file, one harness results file or a tau2-bench results "
                                                     "folder (imported as for `report`); its sha256 goes into the "
                                                     "badge (a folder's: the import digest receipt and pack name)")
    badge.add_argument("agent_id", metavar="AGENT")
    badge.add_argument("-o", "--output", default=None, metavar="PATH",
                       help="write the SVG here (a folder: the badge's own file name inside it); default stdout")
    # read as for `report`, without its import options
    badge.set_defaults(kind=None, agent=None, experiment=None, mapping=None, scorer=None, run=run_badge)
    limit_options(badge)
    return badge


def _file_sha256(path: str | Path) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise Refused(f"{path}: cannot read the file ({exc.strerror or exc})") from None


def _input_sha256(args: argparse.Namespace, loaded: LoadedRuns, limits: Limits) -> str:
    """The badge's dataset sha256: the file's bytes' (a runs file, one harness file as it stands), or a tau2-bench
    results folder's import digest, the one ``receipt``, ``pack`` and the app name that folder by (input_dataset)."""
    path = Path(args.file)
    if not path.is_dir():
        return _file_sha256(path)
    from scoring.load.importers.tau2 import is_folder_form

    if not is_folder_form(path):
        raise Refused(f"{path}: a badge names one dataset's sha256; give one file or a tau2-bench results folder, "
                      "not a folder of several inputs")
    return input_dataset(args, loaded, limits).sha256


def run_badge(args: argparse.Namespace, limits: Limits) -> int:
    """One agent's canonical headline score as an SVG badge, with the file's sha256 and the policy version."""
    from scoring.outputs.badge import badge_file_name, badge_svg

    args.inputs = [args.file]
    loaded = load_inputs(args, limits)  # first: the loader refuses a pipe or a device in words, unopened
    digest = _input_sha256(args, loaded, limits)
    report = score_runs(loaded.runs, CANONICAL_POLICY)
    agents = {a.agent_id: a for a in report.agents}
    if args.agent_id not in agents:
        close = difflib.get_close_matches(args.agent_id, list(agents), n=3)
        hint = f" (did you mean {', '.join(fmt.named(c) for c in close)}?)" if close else ""
        raise Refused(f"no agent {fmt.named(args.agent_id)} in {args.file}{hint}")
    svg = badge_svg(agents[args.agent_id], policy_version=report.policy.version, dataset_sha256=digest)
    if args.output is None:
        return write_stdout(svg)
    target = Path(args.output)
    if args.output.endswith(("/", os.sep)) and not target.is_dir():  # Path() drops the slash: a file named so
        raise Refused(f"{args.output}: no such folder (a path that ends with / names a folder to write the badge in)")
    if target.is_dir():
        target = target / badge_file_name(args.agent_id, report.policy.version, digest)
    try:
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(svg)
    except OSError as exc:
        raise Refused(f"{target}: cannot write the badge ({exc.strerror or exc})") from None
    print(f"badge: {target}", file=sys.stderr)
    return 0
