"""The dispatcher of ``python -m scoring``: :func:`build_parser` registers every subcommand from its own module
(in :data:`SUBCOMMANDS` order, the order of the help), :func:`main` parses the command line and runs the chosen
subcommand's ``run_*`` function, in a worker that bounds the memory and CPU of untrusted input.
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
from collections.abc import Sequence

from scoring.cli.options import limits_from
from scoring.cli.shared import Refused, write_stdout
from scoring.contract.extras import missing_module_message
from scoring.contract.limits import WORKER_OVERHEAD, Limits, format_size
from scoring.load.worker import LimitExceeded, WorkerFailed, run_limited

DESCRIPTION = (  # what --help says first; read by people, so no SPEC section numbers (tests/test_user_text.py)
    "Command line: ``python -m scoring report INPUT... [--format json|csv|table] [--weights ... | --scorecard ...]``.\n"
    "\n"
    "An input is a runs file (one row per run) or a harness results file (tau2-bench, tau-bench,\n"
    "Inspect AI, terminal-bench, or any table through ``--mapping``). One runs file alone is read exactly as before\n"
    "(the one loader, its validation report); anything else is imported first and its import report\n"
    "goes to stderr as ``import:`` lines, so stdout keeps the pure report.\n"
)

# One module per subcommand, scoring.cli.<name>, each with add_parser(sub) (its options, and its run_* function as
# the default `run`), in the order of the help. A command line naming one imports that one alone (main).
SUBCOMMANDS = ("report", "verify", "receipt", "badge", "pack", "explain", "diff", "serve", "sample", "methodology")

# The subcommands whose run_* takes the parser too, to refuse a combination of options as argparse refuses one.
WITH_PARSER = frozenset({"report", "pack"})

# Subcommands that read no untrusted input (the app server, the bundled files): run in this process, not in the
# worker that bounds a file's memory and CPU (the server runs for hours and reads its uploads in workers of its own).
TRUSTED_COMMANDS = frozenset({"serve", "sample", "methodology"})


def build_parser(prog: str = "python -m scoring", names: Sequence[str] = SUBCOMMANDS) -> argparse.ArgumentParser:
    """The parser of the subcommands ``names`` (all of them unless told); its usage names them all whichever."""
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True, metavar="{" + ",".join(SUBCOMMANDS) + "}")
    for name in names:
        command = importlib.import_module(f"scoring.cli.{name}").add_parser(sub)
        command.set_defaults(command_parser=command)  # a refused combination shows the subcommand's own usage
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m scoring") -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # A command line that begins with a subcommand's name needs that subcommand's module alone: the others (the
    # analyses of explain and diff among them) are not imported, and a report starts that much sooner.
    parser = build_parser(prog, argv[:1] if argv[:1] and argv[0] in SUBCOMMANDS else SUBCOMMANDS)
    args = parser.parse_args(argv)
    args.argv = argv[1:]
    parser = getattr(args, "command_parser", parser)  # its errors name the subcommand's usage, not every command's
    limits = limits_from(args, parser)
    if getattr(args, "engine", None) == "spark":  # the cluster (or local JVM) has its own memory settings
        return _run(args, limits, parser)
    if args.command in TRUSTED_COMMANDS:  # no untrusted input: the app server must outlive any worker's limits
        return _run(args, limits, parser)
    # verify reads a receipt before its runs: a hostile receipt is then what went over the limit
    named = ([args.receipt] if getattr(args, "receipt", None) else []) + list(getattr(args, "inputs", None) or [])
    what = ", ".join(named) or getattr(args, "file", None) or "the input"
    try:
        code, out, err = run_limited(_run_captured, (args, limits, parser), max_rss=limits.max_resident,
                                     max_cpu=limits.max_cpu_seconds, what=what,
                                     memory_setting=f"--max-memory {format_size(limits.max_memory)} + "
                                                    f"{format_size(WORKER_OVERHEAD)} for the worker itself",
                                     cpu_setting="--max-cpu-seconds", method="fork")
    except (LimitExceeded, WorkerFailed) as exc:
        print(f"{what}: refused: {exc}", file=sys.stderr)
        return 2
    if err:
        sys.stderr.write(err)
    if out and write_stdout(out):
        return 2  # not written: said on stderr
    return code


def _run(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> int:
    try:
        if args.command in WITH_PARSER:
            return args.run(args, limits, parser)
        return args.run(args, limits)
    except Refused as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional feature without its extra: what to install, no traceback
        message = missing_module_message(exc.name, _feature(args), "postgres" if getattr(args, "db", None) else None)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2


def _run_captured(args: argparse.Namespace, limits: Limits, parser: argparse.ArgumentParser) -> tuple[int, str, str]:
    """:func:`_run` in the worker: what it prints comes back as text (the parent prints it)."""
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    try:
        code = _run(args, limits, parser)
    except SystemExit as exc:  # argparse's parser.error: its message is already on stderr
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    return code, out.getvalue(), err.getvalue()


def _feature(args: argparse.Namespace) -> str:
    """The optional feature a command line asks for, in its own words."""
    if args.command == "report" and args.engine != "pandas":
        return f"--engine {args.engine}"
    return "--db" if getattr(args, "db", None) else f"`{args.command}`"
