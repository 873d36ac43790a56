"""What several subcommands share: reading their inputs (one runs file through the loader, anything else through
the importers), their policy and scorecard files, naming the dataset they make, and writing to stdout. A command
that cannot run raises :class:`Refused`: its message goes to stderr and the exit status is 2.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scoring.contract.format import named, one_line
from scoring.contract.limits import Limits
from scoring.contract.policy import CANONICAL_POLICY, FieldError, Policy, PolicyError, load_policy
from scoring.contract.problems import RunsValidationError
from scoring.load.importers.kinds import runs_at_a_glance

# The importers and the loader (pandas with them) are imported by the functions that read an input: a report whose
# engine reads the file itself (--engine sql) never loads them.
if TYPE_CHECKING:
    from scoring.analysis.scorecard import Scorecard
    from scoring.load.importers import Imported
    from scoring.load.importers import Mapping as ImportMapping
    from scoring.load.runs import LoadedRuns
    from scoring.outputs.downloads import DatasetInfo


class Refused(Exception):
    """A command cannot run: the message goes to stderr and the exit status is 2."""


def write_stdout(text: str) -> int:
    """``text`` on stdout, and the exit status: 0, or 2 where it could not be written (a full disk, stdout closed),
    said on stderr; never 1, which says "worse" or "does not reproduce". A closed pipe (e.g. into `head`) is not an
    error of ours: 0."""
    if sys.stdout is None:  # started with stdout closed
        print("cannot write the output: stdout is closed", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: not an error of ours
        _stdout_to_devnull()
    except OSError as exc:
        _stdout_to_devnull()
        print(f"cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def _stdout_to_devnull() -> None:
    """What is left in stdout's buffer goes nowhere at exit (Python would say so on stderr, and exit 120)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # not a file descriptor (captured): no flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.stdout = None


def print_warnings(warnings: Iterable[object]) -> None:
    for warning in warnings:
        print(f"warning: {one_line(warning)}", file=sys.stderr)


def policy_from(path: str | None) -> Policy:
    """The canonical policy, or the sandbox policy in ``path`` (PolicyError names the refused field)."""
    if not path:
        return CANONICAL_POLICY
    try:
        with open(path, "rb") as handle:
            data = handle.read(64_001)  # the policy reader refuses anything larger
    except OSError as exc:
        raise PolicyError([FieldError(path, f"cannot read the policy file ({exc.strerror})")]) from None
    return load_policy(data, what=path)


def read_policy(path: str | None) -> Policy:
    """``--policy``: :func:`policy_from`, a refused policy :class:`Refused` with every refused field."""
    try:
        return policy_from(path)
    except PolicyError as exc:
        raise Refused("policy refused:\n" + "\n".join(f"  - {e}" for e in exc.errors)) from None


def read_scorecard(path: str | None) -> Scorecard | None:
    """The Team Scorecard in ``path`` (None without one); a refused file names every refused field."""
    if path is None:
        return None
    from scoring.analysis.scorecard import ScorecardError
    from scoring.analysis.scorecard import read_scorecard as read

    try:
        return read(path)
    except OSError as exc:
        raise Refused(f"{path}: cannot read the scorecard ({exc.strerror or exc})") from None
    except ScorecardError as exc:
        raise Refused(f"{path}: scorecard refused:\n" + "\n".join(f"  - {e}" for e in exc.errors)) from None


def load_runs_file(path: str, limits: Limits, **options: Any) -> LoadedRuns:
    """One runs file through the one loader; a refusal names every problem (and the mapping, for a foreign table)."""
    from scoring.load.runs import check_work, load_runs

    try:
        return check_work(load_runs(path, limits=limits, **options), limits)
    except RunsValidationError as exc:
        hint = ""
        if exc.problems and all(p.code == "missing_column" for p in exc.problems):
            hint = ("\nhint: a table in another layout can be read through a column mapping: --mapping MAP.json "
                    "(the app's 'Map a table' page writes one)")
        raise Refused(exc.report() + hint) from None


def looks_like_runs_file(path: str, limits: Limits) -> bool:
    """Whether one input is a runs table: at a glance where its first bytes tell (no importer loaded), else by
    the importers' detection."""
    glance = runs_at_a_glance(path)
    if glance is not None:
        return glance
    from scoring.load.importers.api import detected_as_runs  # the importers, pandas with them

    return detected_as_runs(path, limits)


def import_requested(args: argparse.Namespace) -> bool:
    """Any option that only an import understands (the plain runs-file path takes none of them)."""
    return bool(args.kind not in (None, "runs") or args.agent or args.experiment or args.mapping or args.scorer
                or getattr(args, "prices", None))


def reads_one_runs_file(args: argparse.Namespace, limits: Limits) -> bool:
    """The inputs are one runs file read by the loader, not an import."""
    return len(args.inputs) == 1 and not import_requested(args) and (
        args.kind == "runs" or looks_like_runs_file(args.inputs[0], limits))


def per_input(values: list[str] | None, inputs: list[str], option: str) -> list[str | None]:
    """An option given once for every input, or once per input in order."""
    if not values:
        return [None] * len(inputs)
    if len(values) == 1:
        return [values[0]] * len(inputs)
    if len(values) != len(inputs):
        raise Refused(f"{option}: {len(values)} values for {len(inputs)} input(s); give one for every input "
                      "or one per input")
    return list(values)


def read_mapping(path: str | None) -> ImportMapping | None:
    """``--mapping``: the column mapping in ``path`` (None without one)."""
    from scoring.load.importers import MappingError, mapping_from_json

    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(1_000_001)  # the mapping reader refuses anything larger
    except OSError as exc:
        raise Refused(f"{path}: cannot read the mapping ({exc.strerror})") from None
    try:
        return mapping_from_json(data)
    except MappingError as exc:
        raise Refused(f"{path}: {exc}") from None


def read_prices(path: str) -> dict[str, tuple[float, ...]]:
    """--prices: model -> (USD per million input tokens, output tokens[, cache reads, cache writes]); refused with
    the place. Cache rates are optional, but a run that records cached tokens is priced only with both."""
    from scoring.contract.safejson import JsonRefused, load_json

    try:
        with open(path, "rb") as handle:
            data = handle.read(1_000_001)
        # Bounded, a key given twice refused (two prices of one model: a reader could see either), NaN refused.
        doc = load_json(data, what="prices", max_bytes=1_000_000, max_depth=4, unique_keys=True)
    except OSError as exc:
        raise Refused(f"{path}: cannot read the prices ({exc.strerror})") from None
    except JsonRefused as exc:
        raise Refused(f"{path}: {exc}") from None
    if not isinstance(doc, dict) or not doc:
        raise Refused(f"{path}: expected {{\"model\": {{\"input\": USD per million, \"output\": USD per million}}}}")
    out: dict[str, tuple[float, ...]] = {}

    def rate(v: object) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1e6

    for model, price in doc.items():
        fields = {"input", "output", "cache_read", "cache_write"}
        unknown = sorted(set(price) - fields) if isinstance(price, dict) else []
        if unknown:
            raise Refused(f"{path}: {named(model)}: unknown field {named(unknown[0])}; the fields are input, output, "
                          "cache_read and cache_write")
        values = [price.get(k) if isinstance(price, dict) else None for k in ("input", "output")]
        cache = [price.get(k) for k in ("cache_read", "cache_write")] if isinstance(price, dict) else [None, None]
        if not all(rate(v) for v in values) or any(v is not None and not rate(v) for v in cache):
            raise Refused(f"{path}: {named(model)}: input and output (and cache_read, cache_write when given) "
                          "must be USD per million tokens (numbers from 0)")
        if (cache[0] is None) != (cache[1] is None):
            raise Refused(f"{path}: {named(model)}: give both cache_read and cache_write, or neither")
        out[str(model)] = tuple(float(v) for v in values + ([] if cache[0] is None else cache))  # type: ignore[arg-type]
    return out


def import_inputs(args: argparse.Namespace, limits: Limits, *, skip_refused: bool = False) -> Imported:
    """Every input imported (SPEC 7) and combined into one raw table with one report.

    A folder that is not a tau2 result folder is read as the result files it holds. Every refused file
    is named; with ``skip_refused`` (--exclude-invalid) they are left out and named in the import report.
    """
    from scoring.load.importers import apply_prices, expand_folder, import_batch, import_file

    mapping = read_mapping(args.mapping)
    agents = per_input(args.agent, args.inputs, "--agent")
    tags = per_input(args.experiment, args.inputs, "--experiment")
    try:
        items = [(path, agent, tag) for given, agent, tag in zip(args.inputs, agents, tags)
                 for path in expand_folder(given)]
        calls = [(lambda p=path, a=agent, t=tag: import_file(p, kind=args.kind, agent=a, experiment=t,
                                                              mapping=mapping, scorer=args.scorer, limits=limits))
                 for path, agent, tag in items]
        names = [str(path) for path, _, _ in items]
        imported = import_batch(calls, names, skip_refused=skip_refused, limits=limits)
    except RunsValidationError as exc:
        raise Refused(exc.report()) from None
    if getattr(args, "prices", None):
        imported = apply_prices(imported, read_prices(args.prices))
    if args.scorer and "inspect" not in {f.kind for f in imported.report.files}:
        raise Refused("--scorer chooses the scorer of an Inspect AI log; none of the inputs is one")
    return imported


def load_inputs(args: argparse.Namespace, limits: Limits, *, exclude_invalid: bool = False) -> LoadedRuns:
    """The validated runs of the inputs: one runs file through the loader as before, anything else imported.

    The import report goes to stderr as ``import:`` lines (and the import's warnings are not
    repeated as ``warning:`` lines); a refusal names every problem, as for a runs file.
    """
    from scoring.load.runs import check_work

    if reads_one_runs_file(args, limits):
        loaded = load_runs_file(args.inputs[0], limits, exclude_invalid=exclude_invalid)
        print_warnings(loaded.warnings)
        return loaded
    imported = import_inputs(args, limits, skip_refused=exclude_invalid)
    for line in imported.report.text().splitlines():
        print(f"import: {one_line(line)}", file=sys.stderr)
    try:
        loaded = check_work(imported.validate(exclude_invalid=exclude_invalid), limits)
    except RunsValidationError as exc:
        raise Refused(exc.report()) from None
    shown = set(imported.report.all_warnings())
    print_warnings([w for w in loaded.warnings if w not in shown])
    return loaded


def input_dataset(args: argparse.Namespace, loaded: LoadedRuns, limits: Limits) -> DatasetInfo:
    """The dataset the inputs make, named as the app names it: one file (a runs table, or a harness file without
    a tag or mapping) by the sha256 of its bytes, any other import by the digest of its files' hashes, names, tags
    and mapping (the app's upload of the same files gives the same digest)."""
    from scoring.load.importers import mapping_to_json
    from scoring.outputs.downloads import DatasetInfo, file_sha256, import_digest, import_identity

    def sha(path: Path) -> str:
        """A file's bytes' sha256; a folder's: of the files the import reads from it (a tau2 folder's results.json
        and simulations, links followed as the reader follows them; another folder's result files), each listed
        with its path."""
        if not path.is_dir():
            return file_sha256(path)
        from scoring.load.importers import expand_folder
        from scoring.load.importers.tau2 import folder_files, is_folder_form

        files = folder_files(path) if is_folder_form(path) else expand_folder(path)
        lines = [f"{p.relative_to(path).as_posix()}\t{sha(p)}" for p in files if p.exists()]
        return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()

    paths = [Path(p) for p in args.inputs]
    runs, rows_read, excluded = len(loaded.runs), loaded.rows_read, loaded.excluded_rows
    if reads_one_runs_file(args, limits):
        return DatasetInfo(paths[0].name, sha(paths[0]), runs, rows_read=rows_read, excluded_rows=excluded)
    mapping = read_mapping(args.mapping)
    tags = per_input(args.experiment, args.inputs, "--experiment")
    names = [p.name for p in paths]
    shas, mapping_json = [sha(p) for p in paths], mapping_to_json(mapping) if mapping else None
    # One harness file read as it stands is named by its bytes' sha256, as the app, the badge and the links name
    # it (import_identity); a folder is no file: its listing's digest goes into the import digest.
    digest, hash_of = (import_digest(names, shas, tags, mapping_json), "import of the files") if paths[0].is_dir() \
        else import_identity(names, shas, tags, mapping_json)
    name = names[0] if len(names) == 1 else f"{len(names)} files"
    return DatasetInfo(name + (" (mapped)" if mapping else ""), digest, runs, kind="import",
                       hash_of=hash_of, rows_read=rows_read, excluded_rows=excluded)
