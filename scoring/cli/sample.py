"""``sample [-o PATH]``: the bundled sample runs (CSV) on stdout or in a file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scoring.cli.shared import Refused, write_stdout
from scoring.contract.limits import Limits
from scoring.contract.resources import SAMPLE_RUNS


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``sample`` on the command line's subcommands."""
    sample = sub.add_parser("sample", help="write the bundled sample runs (CSV) to stdout or a file")
    sample.add_argument("-o", "--output", default=None, metavar="PATH", help="write here instead of stdout")
    sample.set_defaults(run=run_sample)
    return sample


def run_sample(args: argparse.Namespace, limits: Limits) -> int:
    data = SAMPLE_RUNS.read_bytes()
    if args.output is None:
        return write_stdout(data.decode("utf-8"))
    try:
        Path(args.output).write_bytes(data)
    except OSError as exc:
        raise Refused(f"{args.output}: cannot write the sample ({exc.strerror or exc})") from None
    print(f"sample: wrote {args.output} ({len(data):,} bytes)", file=sys.stderr)
    return 0
