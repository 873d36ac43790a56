"""Command-line options that several subcommands take: the import options (``--from``, ``--agent``, ...), the
input limits (``--max-memory``, ``--max-rows``, ...) and the radar weights, with the readers of their values.
"""

from __future__ import annotations

import argparse
import dataclasses

from scoring.contract import format as fmt
from scoring.contract.limits import DEFAULT_LIMITS, WORKER_OVERHEAD, Limits, parse_size
from scoring.load.importers.kinds import KINDS
from scoring.measures.radar import check_weights


def parse_weights(text: str) -> dict[str, float]:
    """'correctness=0.4,latency=0.15' -> {'correctness': 0.4, 'latency': 0.15}; axes not named keep their default."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        axis, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"expected axis=weight, got {fmt.named(part)}")
        try:
            weights[axis.strip()] = float(value)
        except ValueError:
            raise ValueError(f"weight for {fmt.named(axis.strip())} is not a number: {fmt.named(value)}") from None
    check_weights(weights)
    return weights


BOOTSTRAP_BOUNDS = (("--replicates", "replicates", 1, 100_000), ("--seed", "seed", 0, 2**63))  # explorer-defined


def bootstrap_refusal(args: argparse.Namespace, needs: str | None = None) -> str | None:
    """Why ``--replicates`` or ``--seed`` cannot be used (checked before any input is read), or None; ``needs``:
    the option without which they would be ignored (report's ``--intervals``).

    >>> bootstrap_refusal(argparse.Namespace(replicates=0, seed=None))
    '--replicates: must be from 1 to 100,000, got 0'
    >>> bootstrap_refusal(argparse.Namespace(replicates=50, seed=None, intervals=False), needs="--intervals")
    '--replicates and --seed set the bootstrap of --intervals: add --intervals'
    """
    for option, name, low, high in BOOTSTRAP_BOUNDS:
        value = getattr(args, name, None)
        if value is not None and not low <= value <= high:
            return f"{option}: must be from {low:,} to {high:,}, got {value:,}"
    given = any(getattr(args, name, None) is not None for _, name, _, _ in BOOTSTRAP_BOUNDS)
    if needs and given and not getattr(args, needs.lstrip("-"), False):
        return f"--replicates and --seed set the bootstrap of {needs}: add {needs}"
    return None


def from_option(command: argparse.ArgumentParser, whose: str = "the inputs'") -> None:
    """``--from KIND``: a kind by any name :func:`kind_name` reads (``report``, ``pack``, ``diff``...)."""
    command.add_argument("--from", dest="kind", type=kind_name, default=None, metavar="KIND",
                         help=f"{whose} kind instead of detecting it from their content: "
                              f"{', '.join(KINDS)} (also tau2-bench, taubench, inspect-ai, tbench)")


def import_options(command: argparse.ArgumentParser) -> None:
    """The options of a harness import (SPEC 7), for a subcommand that reads inputs as ``report`` does."""
    from_option(command)
    command.add_argument("--agent", action="append", default=None, metavar="NAME",
                         help="agent id for harness files instead of the one the import builds (tau-bench: instead "
                              "of the file stem); once for every input, or once per input in order")
    command.add_argument("--experiment", action="append", default=None, metavar="TAG",
                         help="experiment tag added to the agent ids ('model [TAG]') so that files of the same "
                              "model stay apart; once for every input, or once per input in order")
    command.add_argument("--mapping", default=None, metavar="MAP_JSON",
                         help="a column mapping (JSON, as the app's mapping page saves it) for a table in "
                              "another layout")
    command.add_argument("--prices", default=None, metavar="PRICES_JSON",
                         help="estimate cost_usd from token counts where a harness file records none: "
                              "{\"model\": {\"input\": USD per million, \"output\": USD per million}}; "
                              "labelled estimated everywhere")
    command.add_argument("--scorer", default=None, metavar="NAME",
                         help="Inspect AI logs: the scorer whose value is the outcome (default: the first)")


COUNT_OPTIONS = (("max_rows", "--max-rows", "most runs one file may hold"),
                 ("max_agents", "--max-agents", "most distinct agents one input may hold"),
                 ("max_tasks", "--max-tasks", "most distinct tasks one input may hold"),
                 ("max_id_chars", "--max-id-chars", "most characters of one run, agent or task id"),
                 ("max_events", "--max-events", "most events one Inspect sample may hold"),
                 ("max_cpu_seconds", "--max-cpu-seconds", "CPU seconds reading, validating and scoring may take"))


KIND_ALIASES = {"tau2-bench": "tau2", "tau2bench": "tau2", "taubench": "tau-bench", "tau_bench": "tau-bench",
                "inspect-ai": "inspect", "inspect_ai": "inspect", "terminal_bench": "terminal-bench",
                "terminalbench": "terminal-bench", "tbench": "terminal-bench", "table": "runs"}


def kind_name(text: str) -> str:
    """--from's value: a kind, or a name the docs use for it (any case).

    Examples
    --------
    >>> kind_name("taubench"), kind_name("TAU2-bench"), kind_name("inspect")
    ('tau-bench', 'tau2', 'inspect')
    """
    name = text.strip().lower()
    name = KIND_ALIASES.get(name, name)
    if name not in KINDS:
        raise argparse.ArgumentTypeError(f"unknown kind {fmt.named(text, 40)}; expected one of {', '.join(KINDS)} "
                                         f"(or {', '.join(KIND_ALIASES)})")
    return name


def limit_options(command: argparse.ArgumentParser) -> None:
    """The input limits, for every subcommand that reads untrusted input (read back by :func:`limits_from`)."""
    command.add_argument("--max-memory", default=None, metavar="SIZE",
                         help=f"memory budget for one input, e.g. 4GB (default "
                              f"{DEFAULT_LIMITS.max_memory // 10**9}GB): decoded runs beyond it are refused before "
                              f"reading, and the worker reading the input is stopped past it plus "
                              f"{WORKER_OVERHEAD // 10**6} MB of resident memory")
    for field, option, text in COUNT_OPTIONS:
        command.add_argument(option, type=int, default=None, metavar="N",
                             help=f"{text} (default {getattr(DEFAULT_LIMITS, field):,})")


def limits_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Limits:
    """The input limits: the defaults, with --max-memory, --max-rows, ... where given."""
    changes: dict[str, int] = {}
    try:
        if getattr(args, "max_memory", None) is not None:
            changes["max_memory"] = parse_size(args.max_memory)
        for field, _, _ in COUNT_OPTIONS:
            if getattr(args, field, None) is not None:
                changes[field] = getattr(args, field)
        return dataclasses.replace(DEFAULT_LIMITS, **changes)
    except ValueError as exc:
        parser.error(f"--max-*: {exc}")
        raise  # parser.error exits; this line is never reached
