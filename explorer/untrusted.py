"""The app's untrusted work, as functions a worker process runs (``scoring.load.worker``): no streamlit here.

Each function reads, validates and scores what a viewer chose (an uploaded file, several files, a
database table) and returns an :class:`Outcome` of plain values that travels back to the server
cheaply; ``explorer.data`` runs them through :func:`run` under the deployment's memory and CPU limits.
The bootstraps a viewer asks for (:func:`bootstrap`, :func:`compare`, :func:`diff`: replicates x runs of work, both
the viewer's choice) run the same way, and raise :class:`BootstrapStopped` past a limit.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from scoring import CANONICAL_POLICY, LoadedRuns, Report, RunsValidationError, load_runs, score_runs
from scoring.contract.limits import Limits, format_size
from scoring.load.database import ConnectFailed, ConnectionSpec
from scoring.load.importers import ImportReport, mapping_from_json
from scoring.load.importers import folder_forms as importers_folder_forms
from scoring.load.importers import import_files as import_files_batch
from scoring.load.runs import Problem, RawRuns, check_work
from scoring.load.worker import LimitExceeded, Usage, WorkerFailed, run_limited

from . import imports
from .settings import usable_cores

if TYPE_CHECKING:
    import pandas as pd

    from scoring import Policy
    from scoring.analysis.diff import Diff
    from scoring.analysis.drilldown import Comparison
    from scoring.analysis.uncertainty import Intervals

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome:
    """Scores, or the refusal; ``imported`` says how harness files became runs (SPEC 7)."""

    loaded: LoadedRuns | None = None
    report: Report | None = None
    error: RunsValidationError | None = None
    imported: ImportReport | None = None
    transient: bool = False  # the refusal is a failed connection: the same read may work a moment later


def _scored(loaded: LoadedRuns, limits: Limits, imported: ImportReport | None = None) -> Outcome:
    try:
        check_work(loaded, limits)
    except RunsValidationError as error:
        return Outcome(error=error, imported=imported)
    report = score_runs(loaded.runs, CANONICAL_POLICY, harness=loaded.harness, estimated_cost=loaded.estimated_cost)
    return Outcome(loaded, report, imported=imported)


def score_file(name: str, data: bytes, exclude_invalid: bool, limits: Limits) -> Outcome:
    """One runs table (SPEC 1)."""
    try:
        loaded = load_runs(data, name=name, exclude_invalid=exclude_invalid, limits=limits)
    except RunsValidationError as error:
        return Outcome(error=error)
    return _scored(loaded, limits)


def import_files(datas: list[bytes], names: list[str], tags: list[str | None], mapping: str | None,
                 exclude_invalid: bool, dataset: str, limits: Limits) -> Outcome:
    """Harness files (or one table through a mapping) imported into one dataset (SPEC 7)."""
    try:
        parsed = mapping_from_json(mapping) if mapping else None
        # The command line's batch (scoring.load.importers.import_files): uploads have no folder, so a terminal-bench
        # run_metadata.json names the agent of the results.json uploaded with it, and a tau2 folder form's
        # results.json takes its simulation files. With the exclusion chosen, a refused file is skipped and named in
        # the import report (import_batch).
        imported = import_files_batch(list(zip(datas, names)), experiments=list(tags), mapping=parsed, limits=limits,
                                      skip_refused=exclude_invalid)
    except RunsValidationError as error:
        return Outcome(error=error)
    except ValueError as exc:  # a mapping refused (MappingError): it came from this session's page
        return Outcome(error=RunsValidationError([Problem(None, None, None, str(exc))], source=dataset,
                                                 can_exclude=False))
    try:
        loaded = imported.validate(exclude_invalid=exclude_invalid)
    except RunsValidationError as error:
        return Outcome(error=error, imported=imported.report)
    return _scored(loaded, limits, imported.report)


def read_database(spec: ConnectionSpec, table: str, exclude_invalid: bool, limits: Limits) -> Outcome:
    """A PostgreSQL table, read-only, in batches that stop at the limits."""
    from scoring.engines.sql_engine import load_postgres_runs

    try:
        loaded = load_postgres_runs(spec, table, exclude_invalid=exclude_invalid, limits=limits)
    except RunsValidationError as error:
        return Outcome(error=error)
    except ConnectFailed as exc:
        return Outcome(error=RunsValidationError([Problem(None, None, None, str(exc))], source=table,
                                                 can_exclude=False), transient=True)
    return _scored(loaded, limits)


def upload_kinds(datas: list[bytes], names: list[str], limits: Limits) -> list[str]:
    """Each uploaded file's kind ("mapping", "tau2", "inspect", "runs", ...), detected from its content."""
    return ["mapping" if imports.is_mapping_file(data) else imports.upload_kind(data, name, limits)
            for data, name in zip(datas, names)]


def folder_forms(datas: list[bytes], names: list[str], limits: Limits) -> list[tuple[int, list[int]]]:
    """The tau2 folder forms among files uploaded together: (the position of a results.json, the positions of the
    simulation files it takes), as the import reads them (scoring.load.importers.folder_forms)."""
    return importers_folder_forms(list(zip(datas, names)), limits)


def read_table(data: bytes, name: str, limits: Limits) -> RawRuns | RunsValidationError:
    """Every column of a table to map (the *Map a table* page), or why it cannot be read."""
    from .mapping_form import read_table as read

    try:
        return read(data, name, limits)
    except RunsValidationError as error:
        return error


class _Slots:
    """How many workers this server process runs at once (Settings.max_workers, set by explorer.data when the server
    starts; the cores until then): each may hold the memory budget plus the worker's overhead, so the process tree
    holds at most that many times it, however many viewers upload or bootstrap at the same moment. A request past
    it waits, under its spinner, for a worker to finish."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: threading.BoundedSemaphore | None = None

    def allow(self, count: int) -> None:
        """Set the count (the first call sets it; the process keeps it)."""
        with self._lock:
            if self._free is None:
                self._free = threading.BoundedSemaphore(max(1, int(count)))

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.allow(usable_cores())
        assert self._free is not None
        with self._free:
            yield


SLOTS = _Slots()


def _in_slot(fn: Callable[..., T], args: tuple, limits: Limits, what: str, **settings: Any) -> T:
    """``fn(*args)`` in a worker (``run_limited``: ``settings`` are its names for the limits' settings and the usage),
    under the deployment's memory and CPU limits, once one of this process's SLOTS is free."""
    with SLOTS.held():
        return run_limited(fn, args, max_rss=limits.max_resident, max_cpu=limits.max_cpu_seconds, what=what,
                           method="forkserver", **settings)


class BootstrapStopped(Exception):
    """A bootstrap went past a limit of the deployment and was stopped; the text says which and what to do."""


def _bounded(fn: Callable[..., T], args: tuple, limits: Limits, what: str) -> T:
    """``fn(*args)``, a bootstrap a viewer asked for (``what``), in a worker under the deployment's memory and CPU
    limits, as an upload is read: the viewer chooses the replicates and the seed, and the work is replicates x runs.
    Past a limit the worker is stopped and :class:`BootstrapStopped` says so; the server and every other session
    go on."""
    try:
        return _in_slot(fn, args, limits, what)
    except LimitExceeded as exc:
        if exc.limit == "cpu":
            reached = f"more than the limit of {exc.allowed:g} s of CPU time (EXPLORER_MAX_CPU_SECONDS)"
        else:
            reached = (f"{exc.reached / 1e6:,.0f} MB of memory, more than the limit of {exc.allowed / 1e6:,.0f} MB "
                       "(EXPLORER_MAX_MEMORY and EXPLORER_WORKER_OVERHEAD)")
        raise BootstrapStopped(f"{what[0].upper()}{what[1:]} took {reached} and was stopped: fewer replicates "
                               "take proportionally less.") from None
    except WorkerFailed as exc:
        raise BootstrapStopped(str(exc)) from None


def _bootstrap(runs: pd.DataFrame, report: Report, replicates: int, seed: int) -> Intervals:
    from scoring.analysis.uncertainty import bootstrap_intervals

    return bootstrap_intervals(runs, report, replicates=replicates, seed=seed)


def bootstrap(runs: pd.DataFrame, report: Report, replicates: int, seed: int, limits: Limits) -> Intervals:
    """Bootstrap intervals of every agent (scoring.analysis.uncertainty) in a worker (_bounded: 5,000 replicates
    of a 5,000,000-run upload is about 80 s of CPU at the 1M x 1,000 bench's rate)."""
    return _bounded(_bootstrap, (runs, report, replicates, seed), limits,
                    f"the bootstrap of {replicates:,} replicates over {len(runs):,} runs")


def _compare(runs: pd.DataFrame, a: str, b: str, policy: Policy, replicates: int, seed: int) -> Comparison:
    from scoring.analysis.drilldown import compare as compare_agents

    return compare_agents(runs, a, b, policy, replicates=replicates, seed=seed)


def compare(runs: pd.DataFrame, a: str, b: str, policy: Policy, replicates: int, seed: int,
            limits: Limits) -> Comparison:
    """Agent ``a`` against ``b`` with their bootstrap intervals (scoring.analysis.drilldown.compare) in a worker
    (_bounded: two agents of 500,000 runs each at 5,000 replicates took 120 s of CPU in process)."""
    pair = runs[runs["agent_id"].isin([a, b])]  # only their runs travel to the worker
    return _bounded(_compare, (pair, a, b, policy, replicates, seed), limits,
                    f"the bootstrap of {replicates:,} replicates of {a} against {b} ({len(pair):,} runs)")


def _diff(baseline: pd.DataFrame, new: pd.DataFrame, replicates: int, seed: int, names: tuple[str, str],
          pairs: tuple[tuple[str, str], ...]) -> Diff:
    from scoring.analysis.diff import diff_runs

    return diff_runs(baseline, new, CANONICAL_POLICY, replicates=replicates, seed=seed, baseline_name=names[0],
                     new_name=names[1], pairs=dict(pairs))


def diff(baseline: pd.DataFrame, new: pd.DataFrame, replicates: int, seed: int, names: tuple[str, str],
         limits: Limits, pairs: tuple[tuple[str, str], ...] = ()) -> Diff:
    """Two datasets compared agent by agent (scoring.analysis.diff.diff_runs, the canonical policy; ``names``: the
    baseline's and the new dataset's; ``pairs``: baseline agents compared under a new id, judged by
    ``scoring.analysis.diff.check_pairs`` before) in a worker (_bounded: each agent's difference bootstrapped over
    both datasets' runs)."""
    return _bounded(_diff, (baseline, new, replicates, seed, names, pairs), limits,
                    f"the bootstrap of {replicates:,} replicates of each agent across the two datasets "
                    f"({len(baseline) + len(new):,} runs)")


def run(fn: Callable[..., T], args: tuple, limits: Limits, what: str, usage: list[Usage] | None = None) -> T:
    """``fn(*args)`` in a worker under the deployment's limits; a breach comes back as a RunsValidationError.
    ``usage`` receives what the worker used and the size of its answer."""
    try:
        return _in_slot(fn, args, limits, what, usage=usage,
                        memory_setting=f"EXPLORER_MAX_MEMORY {format_size(limits.max_memory)} + "
                                       f"{format_size(limits.max_resident - limits.max_memory)} for the worker",
                        cpu_setting="EXPLORER_MAX_CPU_SECONDS")
    except (LimitExceeded, WorkerFailed) as exc:
        raise RunsValidationError([Problem(None, None, None, str(exc))], source=what, can_exclude=False) from None
