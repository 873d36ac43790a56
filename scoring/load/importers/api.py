"""Detecting and importing harness files: the entry points the CLI and the app call (SPEC 7).

``detect`` names a file's kind from its content; ``import_file`` turns one file into an
:class:`~scoring.load.importers.Imported` raw runs table; ``import_files`` (and ``combine``)
concatenate several with one report. Validation is always the one validator's:
``imported.validate()`` calls :func:`scoring.load.runs.validate_runs`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import re
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.contract.schema import Reason
from scoring.load.importers._base import (
    EXPERIMENT_COLUMN,
    RUNS_COLUMNS,
    TITLES,
    FileReport,
    Imported,
    ImportReport,
    MappedColumn,
    Source,
    absent,
    agent_with_experiment,
    check_experiment,
    check_rows,
    decode,
    file_error,
    get_path,
    parse_json,
    read_bytes,
    unique_sorted,
)
from scoring.load.importers.inspect_log import read_inspect
from scoring.load.importers.kinds import KINDS, ZIP_MAGIC, runs_at_a_glance, text_head
from scoring.load.importers.mapping import Mapping, apply_mapping
from scoring.load.importers.tau2 import is_folder_form, read_tau2, read_tau2_folder, read_tau2_parts
from scoring.load.importers.taubench import read_taubench
from scoring.load.importers.terminal_bench import METADATA, read_terminal_bench
from scoring.load.importers.terminal_bench import looks_like as looks_like_terminal_bench
from scoring.load.runs import (
    FORMATS,
    Problem,
    RunsValidationError,
    _json_value,  # the runs loader's decoder (_runs_object)
    read_runs,  # the one loader's reading step (SPEC 1)
    require_columns,
)

PARQUET_MAGIC = b"PAR1"
# Inspect writes a JSON log header first: {"version": 2, "status": "...", "eval": {...}}.
_INSPECT_JSON_HEAD = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_FIRST_LINE = 1 << 20  # the most _json_lines and _runs_array read on their own (more: the whole document is parsed)
_NOT_BLANK = re.compile(rb"[^ \t\r\n]")  # anything but JSON's whitespace
# A JSON object whose first key is "runs" with an array (SPEC 1's {"runs": [...]}; no harness's file begins so)
_RUNS_OBJECT = re.compile(rb'^[ \t\r\n]*\{[ \t\r\n]*"runs"[ \t\r\n]*:[ \t\r\n]*\[')
_FIRST_VALUE = json.JSONDecoder()


# --------------------------------------------------------------------------- detection


def detect(source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS) -> str:
    """The kind of a results file, from its content: "tau2", "tau-bench", "inspect" or "runs".

    A folder is tau2's folder form (``results.json`` plus ``simulations/``). A zip archive
    with an Inspect header is an Inspect ``.eval`` log; JSON is classified by its shape
    (a tau2 Results object, a list of tau-bench results, an Inspect log); anything else
    (CSV, JSON Lines, Parquet, a JSON list of runs) is a runs table (SPEC 1). The file is
    bounded like every input; a refusal is a :class:`~scoring.load.runs.RunsValidationError`.

    Examples
    --------
    >>> detect(b'[{"task_id": 3, "reward": 1.0, "info": {}, "traj": [], "trial": 0}]', "r.json")
    'tau-bench'
    >>> detect(b"run_id,agent_id\\nr1,a\\n", "runs.csv")
    'runs'
    """
    path = _path(source)
    name = name or (path.name if path else "input")
    if path is not None and is_folder_form(path):
        return "tau2"
    if path is not None and _is_dir(path):
        raise file_error(name, "a folder is read only in tau2-bench's folder form (results.json and simulations/)")
    data = read_bytes(source, name, limits)
    if hasattr(source, "seek") and not isinstance(source, (bytes, bytearray)):
        with contextlib.suppress(OSError, ValueError):
            source.seek(0)  # a caller may read the stream again
    return _sniff(data, name, limits)[0]


_UNSURE = object()  # _first_value: no whole JSON value where it looked


def _first_value(data: bytes, start: int, stop: int) -> object:
    """The JSON value that ``data[start:stop]`` begins with (after JSON's whitespace), read alone; _UNSURE where that
    text holds no whole value (a BOM, a value past ``stop``, one too deep for the parser, bytes that are not UTF-8;
    a character cut by ``stop`` is left out)."""
    window = data[start:stop]
    try:
        text = window.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(window) - 3:
            return _UNSURE
        text = window[:exc.start].decode("utf-8")
    try:
        return _FIRST_VALUE.raw_decode(text.lstrip(" \t\r\n"))[0]
    except (ValueError, RecursionError):
        return _UNSURE


def _json_lines(data: bytes) -> bool:
    r"""Whether the first line of ``data`` is a whole JSON value with more than whitespace after it: then the
    file is no one JSON document (JSON Lines, or JSON broken after its first value, which the runs loader reports
    in its words), so no harness's file, found without the whole document's parse (which refuses it as not
    valid JSON: 300,000 lines, 1.7 s and a copy of the text). False where unsure: the whole document is parsed.

    >>> _json_lines(b'{"run_id": "r1"}\n{"run_id": "r2"}\n'), _json_lines(b'{\n "a": 1\n}\n')
    (True, False)
    >>> _json_lines(b'[{"task_id": 1}]\n\n'), _json_lines(b'{"a": 1} {"b": 2}')
    (False, False)
    """
    end = data.find(b"\n", 0, _FIRST_LINE)
    return end >= 0 and _first_value(data, 0, end) is not _UNSURE and _NOT_BLANK.search(data, end) is not None


def _runs_array(data: bytes) -> bool:
    """Whether ``data`` is a JSON array whose first element is an object :func:`classify` reads as runs, found from
    that element alone: the runs loader then reads the file once, where the whole document was parsed here first
    (500,000 runs: about 3 s and 1 GB more). False where unsure (the first element not an object, longer than
    1 MiB, or not UTF-8): the whole document is parsed.

    >>> _runs_array(b'[ {"run_id": "r1", "agent_id": "a"}, {"run_id": "r2"}]'), _runs_array(b'[1, {"a": 2}]')
    (True, False)
    >>> _runs_array(b'[{"task_id": 3, "reward": 1.0, "info": {}, "traj": [], "trial": 0}]')
    False
    """
    opening = _NOT_BLANK.search(data)
    if opening is None or data[opening.start():opening.start() + 1] != b"[":
        return False
    first = _first_value(data, opening.start() + 1, opening.start() + 1 + _FIRST_LINE)
    return isinstance(first, dict) and classify([first]) == "runs"


def _runs_object(data: bytes, name: str) -> bool:
    """Whether ``data``, an object beginning with a "runs" array, is a runs table by its whole shape (:func:`classify`
    of every top-level key), read with the runs loader's own parse and let go before that loader reads it: the
    harness's parse (every key checked for repeats, each object built from a list of its pairs) was the whole cost of
    such a file (500,000 runs: detection alone 4.7 s and 1,578 MB, the loader alone 4.5 s and 692 MB). A record
    repeating a key is then refused by its row, as in a JSON array. False where that parse fails: the harness's
    parse then says why, as before.

    >>> _runs_object(b'{"runs": [{"run_id": "r1"}]}', "x.json"), _runs_object(b'{"runs": [], "simulations": []}', "x")
    (True, False)
    """
    try:
        text, _ = decode(data, name)
        return classify(_json_value(text)) == "runs"
    except (RunsValidationError, ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return False


def _path(source: Source) -> Path | None:
    return Path(source) if isinstance(source, (str, Path)) else None


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # e.g. a NUL byte: reading it then refuses it cleanly
        return False


def _sniff(data: bytes, name: str, limits: Limits) -> tuple[str, Any, list[str]]:
    """(kind, the parsed JSON document when one was parsed, decoding warnings)."""
    if data.startswith(ZIP_MAGIC):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = archive.namelist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise file_error(name, f"a damaged zip archive: {exc}") from None
        if "header.json" in names or any(n.startswith("_journal/") for n in names):
            return "inspect", None, []
        raise file_error(name, "a zip archive that is not an Inspect .eval log")
    if data.startswith(PARQUET_MAGIC):
        return "runs", None, []
    head = text_head(data[:4096])
    if _INSPECT_JSON_HEAD.match(head):
        return "inspect", None, []
    if head.lstrip()[:1] not in (b"{", b"[") or _json_lines(data) or _runs_array(data):
        return "runs", None, []
    if _RUNS_OBJECT.match(head) and _runs_object(data, name):
        return "runs", None, []
    try:
        doc, warnings = parse_json(data, name, limits)
    except RunsValidationError as exc:
        if "not valid JSON" in exc.problems[0].reason:
            return "runs", None, []  # JSON Lines, or broken JSON the runs loader reports in its words
        raise
    return classify(doc), doc, warnings


def classify(doc: Any) -> str:
    """The kind of a parsed JSON document by its shape (see :func:`detect`).

    Examples
    --------
    >>> classify({"info": {}, "tasks": [], "simulations": []}), classify([{"run_id": "r1"}])
    ('tau2', 'runs')
    """
    if isinstance(doc, dict):
        if "simulations" in doc or ("info" in doc and "tasks" in doc):
            return "tau2"
        if isinstance(doc.get("eval"), dict) and "version" in doc:
            return "inspect"
        if looks_like_terminal_bench(doc):
            return "terminal-bench"
        return "runs"
    if isinstance(doc, list):
        first = next((r for r in doc if isinstance(r, dict)), None)
        if first is not None and "run_id" not in first and {"task_id", "reward"} <= first.keys() \
                and ({"traj", "trial"} & first.keys()):
            return "tau-bench"
    return "runs"


# --------------------------------------------------------------------------- one file


def import_file(source: Source, name: str | None = None, *, kind: str | None = None, agent: str | None = None,
                experiment: str | None = None, mapping: Mapping | None = None, scorer: str | None = None,
                limits: Limits = DEFAULT_LIMITS, metadata: object = None) -> Imported:
    """Import one results file as a raw runs table with its report (SPEC 7).

    Parameters
    ----------
    source : path, bytes or binary file
        A tau2 folder (``results.json`` + ``simulations/``) is read as one file.
    name : str, optional
        Display name (default: the path's name); tau-bench uses its stem for ids.
    kind : {"tau2", "tau-bench", "inspect", "runs"}, optional
        Skip detection.
    agent : str, optional
        The agent id to use instead of the one SPEC 7 builds (tau-bench: instead of the stem).
    experiment : str, optional
        A tag appended to the agent id ("model [tag]") and kept in an ``experiment`` column,
        so that files of the same model stay apart.
    mapping : Mapping, optional
        For a table in another layout (kind "runs"): how its columns become runs columns.
    scorer : str, optional
        Inspect: the scorer whose value is the outcome (default: the first).
    limits : Limits
    metadata : object, optional
        terminal-bench: the run's ``run_metadata.json``, parsed, given with the file (an upload has no folder to
        find it in); it names the agent as the file beside it would.

    Raises
    ------
    RunsValidationError
        The whole file is refused (not readable, over a limit, not the named kind). Problems
        with single records are kept in ``Imported.problems`` and raised by ``validate()``.
    """
    path = _path(source)
    name = name or (_display_name(path) if path else "input")
    experiment = _experiment(experiment, name)
    if kind is not None and kind not in KINDS:
        raise file_error(name, f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if mapping is not None and kind not in (None, "runs"):
        raise file_error(name, f"a column mapping applies to a table, not to a {kind} file")
    if path is not None and is_folder_form(path):
        if kind not in (None, "tau2") or mapping is not None:
            raise file_error(name, "a tau2-bench results folder can only be read as tau2")
        return read_tau2_folder(path, name=name, agent=agent, experiment=experiment, limits=limits)
    if path is not None and _is_dir(path):
        raise file_error(name, "a folder of result files is read as several inputs "
                               "(scoring.load.importers.expand_folder); "
                               "one folder is one input only in tau2-bench's folder form (results.json and "
                               "simulations/)")
    if kind is None and mapping is None and Path(name).name.lower() == METADATA:
        raise file_error(name, f"terminal-bench's run metadata, not results: it names the agent of the results.json "
                               f"it is given with (one {METADATA} with its results.json)")
    data = read_bytes(source, name, limits)
    if kind is None and mapping is not None and mapping.records is not None:
        kind = "runs"  # records inside an object, read through the mapping whatever the object looks like
    if kind is None:
        kind, doc, warnings = _sniff(data, name, limits)
        if mapping is not None and kind != "runs":
            raise file_error(name, f"a column mapping applies to a table; this file is a {kind} file")
        return _read_kind(data, name, kind, doc, warnings, path=path, agent=agent, experiment=experiment,
                          mapping=mapping, scorer=scorer, limits=limits, metadata=metadata)
    try:
        return _read_kind(data, name, kind, None, [], path=path, agent=agent, experiment=experiment,
                          mapping=mapping, scorer=scorer, limits=limits, metadata=metadata)
    except RunsValidationError as exc:
        raise _wrong_kind(exc, data, name, kind, limits) from None


def _wrong_kind(exc: RunsValidationError, data: bytes, name: str, kind: str, limits: Limits) -> RunsValidationError:
    """A file refused as the kind the user named: when its content is another kind, say which."""
    try:
        actual = _sniff(data, name, limits)[0]
    except RunsValidationError:
        return exc
    if actual in (kind, "runs"):  # "runs" is what anything else detects as: no evidence of another kind
        return exc
    first = exc.problems[0].reason if exc.problems else "refused"
    def a(kind: str) -> str:
        title = TITLES.get(kind, kind)
        return ("an " if title[:1].lower() in "aeiou" else "a ") + title

    return file_error(name, f"not {a(kind)}: the file looks like {a(actual)} "
                            f"(--from {actual}, or leave --from out to detect it); read as {kind}: {first}")


def _read_kind(data: bytes, name: str, kind: str, doc: object, warnings: list[str], *, path: Path | None,
               agent: str | None, experiment: str | None, mapping: Mapping | None, scorer: str | None,
               limits: Limits, metadata: object = None) -> Imported:
    if kind in ("tau2", "tau-bench"):
        if doc is None:
            doc, warnings = parse_json(data, name, limits)
        reader = read_tau2 if kind == "tau2" else read_taubench
        return reader(doc, name, agent=agent, experiment=experiment, limits=limits, warnings=warnings)
    if kind == "terminal-bench":
        if doc is None:
            doc, warnings = parse_json(data, name, limits)
        return read_terminal_bench(doc, name, path=path, agent=agent, experiment=experiment, limits=limits,
                                   warnings=warnings, metadata=metadata)
    if kind == "inspect":
        return read_inspect(data, name, path=path, agent=agent, experiment=experiment, scorer=scorer, limits=limits)
    if agent is not None:
        raise file_error(name, "a runs table names its agents in agent_id; 'agent' applies to harness files")
    return _read_runs_table(data, name, experiment=experiment, mapping=mapping, limits=limits)


def _display_name(path: Path) -> str:
    """A file's name in reports; a terminal-bench results.json is named by its run folder too."""
    if path.name == "results.json" and path.parent.name and not is_folder_form(path):
        return f"{path.parent.name}/{path.name}"
    return path.name


HARNESS_SUFFIXES = (".json", ".eval", ".jsonl", ".csv", ".parquet")


def expand_folder(path: str | Path) -> list[Path]:
    """The result files a folder holds, in name order: its files with a results suffix, its tau2 result
    folders, and the ``results.json`` of each run folder inside it (terminal-bench's layout); one level deep.

    A tau2 folder form is itself one input, not expanded. A path that is not a folder is returned as is.
    """
    path = Path(path)
    if not _is_dir(path) or is_folder_form(path):
        return [path]
    out = []
    for entry in sorted(path.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix.lower() in HARNESS_SUFFIXES and entry.name != "run_metadata.json":
            out.append(entry)
        elif entry.is_dir() and is_folder_form(entry):
            out.append(entry)
        elif entry.is_dir() and (entry / "results.json").is_file():
            out.append(entry / "results.json")
    if not out:
        raise file_error(path.name, "the folder holds no result files (.json, .eval, .jsonl, .csv, .parquet, tau2 "
                                    "result folders or run folders with a results.json)")
    return out


def _experiment(experiment: str | None, name: str) -> str | None:
    try:
        return check_experiment(experiment)
    except RunsValidationError as exc:
        raise RunsValidationError(exc.problems, source=name) from None


def _table_format(data: bytes, name: str) -> str:
    """A table's format: the extension when it names one, else the content."""
    suffix = Path(name).suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix]
    if data.startswith(PARQUET_MAGIC):
        return "parquet"
    head = data[:4096].lstrip(b"\xef\xbb\xbf").lstrip()
    if head[:1] == b"[":
        return "json"
    if head[:1] == b"{":
        return "jsonl" if re.search(rb"\}\s*\n\s*\{", data[:1 << 20]) else "json"
    return "csv"


def _read_runs_table(data: bytes, name: str, *, experiment: str | None, mapping: Mapping | None,
                     limits: Limits) -> Imported:
    """A CSV/JSON/JSON Lines/Parquet table through the runs loader's own readers (SPEC 1)."""
    fmt = _table_format(data, name)
    if mapping is not None and mapping.records is not None:
        data, fmt = _records_at(data, name, mapping.records, limits), "json"
    table = read_runs(data, name=name, format=fmt, limits=limits,
                      columns=mapping.sources() if mapping is not None else ())
    raw, rows, problems, warnings = table.frame, table.file_rows(), table.problems, table.warnings
    if len(raw.columns) > limits.max_columns:
        raise file_error(name, f"{len(raw.columns):,} columns is more than the limit of {limits.max_columns:,}")
    if mapping is not None:
        return apply_mapping(raw, mapping, rows=rows, name=name, experiment=experiment,
                             problems=tuple(problems), warnings=tuple(warnings))
    # A required column missing refuses the file as it refuses a runs file read alone (SPEC 1), never a column
    # "not mapped" that another file of the batch fills with empty cells (a cost score of 0 without a word).
    require_columns(raw.columns, len(raw), name, list(problems), len(problems))
    raw = raw.copy()
    if experiment is not None and "agent_id" in raw.columns:
        raw["agent_id"] = raw["agent_id"].map(lambda a: agent_with_experiment(a.strip(), experiment)
                                              if isinstance(a, str) and a.strip() else a).astype(object)
        raw[EXPERIMENT_COLUMN] = experiment
    present = [c for c in RUNS_COLUMNS if c in raw.columns]
    mapped = [MappedColumn(c, f"{c} (as in the file, in the runs columns' units)") for c in present]
    if experiment is not None and "agent_id" in present:
        mapped[present.index("agent_id")] = MappedColumn("agent_id", f"agent_id + ' [{experiment}]' (experiment tag)")
    agents = unique_sorted(v for v in raw["agent_id"] if isinstance(v, str)) if "agent_id" in raw else ()
    tasks = unique_sorted(v for v in raw["task_id"] if isinstance(v, str)) if "task_id" in raw else ()
    report = FileReport(name=name, kind="runs", runs=len(raw), record_label="row", mapped=tuple(mapped),
                        unmapped=tuple(f"{c}: no such column" for c in RUNS_COLUMNS if c not in raw.columns),
                        warnings=tuple(warnings), agents=agents, tasks=len(tasks), last_row=int(np.max(rows)))
    return Imported(raw, np.asarray(rows), ImportReport((report,)), tuple(problems), name)


def _records_at(data: bytes, name: str, path: str, limits: Limits) -> bytes:
    """The JSON array at ``path`` (dotted) inside a JSON object, as its own JSON text (a mapping's ``records``)."""
    doc, _ = parse_json(data, name, limits)
    records = get_path(doc, path)
    if not isinstance(records, list):
        found = "nothing" if records is absent() else type(records).__name__
        raise file_error(name, f"the mapping's records path {path!r} does not lead to an array of records "
                               f"(found {found})")
    return json.dumps(records).encode()


# --------------------------------------------------------------------------- several files


def combine(parts: Sequence[Imported], *, limits: Limits = DEFAULT_LIMITS) -> Imported:
    """Concatenate imported files into one raw table with one report.

    Rows are renumbered file after file (the report says which rows came from which file,
    and every problem names its file), and the report warns when files share an agent id
    (their runs are pooled as one agent: an experiment tag keeps them apart) or when only
    some files record ``finished_at``.
    """
    parts = list(parts)
    if not parts:
        raise file_error("input", "no files to import")
    if len(parts) == 1:
        return parts[0]
    check_rows(sum(len(p.raw) for p in parts), f"{len(parts)} files", limits)
    offset, raws, rows, files, problems = 0, [], [], [], []
    for part in parts:
        for f in part.report.files:
            files.append(dataclasses.replace(f, row_offset=f.row_offset + offset))
        for p in part.problems:
            where = part.report.file_for(p.row) if p.row is not None else None
            prefix = f"{where.name}: " if where is not None and len(part.report.files) == 1 else ""
            problems.append(dataclasses.replace(p, row=None if p.row is None else p.row + offset,
                                                reason=prefix + p.reason))
        raws.append(part.raw)
        rows.append(np.asarray(part.rows) + offset)
        offset += max(int(np.max(part.rows)) if len(part.rows) else 0,
                      max(f.row_offset + f.last_row for f in part.report.files))
    # As objects with None for every missing cell (a nullable boolean's NA would read as text '<NA>').
    raw = pd.concat([r.astype(object).where(r.notna(), None) for r in raws], ignore_index=True)
    report = ImportReport(tuple(files), tuple(_joint_warnings(parts, files)))
    return Imported(raw, np.concatenate(rows), report, tuple(problems), f"{len(files)} files")


def _joint_warnings(parts: list[Imported], files: list[FileReport]) -> list[str]:
    out = []
    owners: dict[str, list[str]] = {}
    for f in files:
        for agent in f.agents:
            owners.setdefault(agent, []).append(f.name)
    for agent, names in sorted(owners.items()):
        if len(names) > 1:
            out.append(f"{', '.join(names)} all give agent {agent!r}: their runs are pooled as one agent "
                       "(give each file an experiment tag to keep them apart)")
    with_time = [p for p in parts if "finished_at" in p.raw.columns]
    if with_time and len(with_time) < len(parts):
        without = [f.name for p in parts if "finished_at" not in p.raw.columns for f in p.report.files]
        out.append(f"{', '.join(without)} record no finished_at: beside files that do, their runs sort as "
                   "the oldest, not in file order")
    return out


def import_files(sources: Iterable[Source | tuple[Source, str]], *, kind: str | None = None,
                 agent: str | None = None, experiments: str | Sequence[str | None] | None = None,
                 mapping: Mapping | None = None, scorer: str | None = None,
                 limits: Limits = DEFAULT_LIMITS, skip_refused: bool = False) -> Imported:
    """Import several files (paths, tau2 folders, or ``(bytes, name)`` pairs) as one raw table.

    ``experiments`` is one tag for every file or one tag (or None) per file, in order. See
    :func:`import_batch` for ``skip_refused``.
    """
    items: list[tuple[Source, str | None]] = [s if isinstance(s, tuple) else (s, None) for s in sources]
    if isinstance(experiments, str) or experiments is None:
        tags = [experiments] * len(items)
    else:
        tags = list(experiments)
        if len(tags) != len(items):
            raise file_error("input", f"{len(tags)} experiment tag(s) for {len(items)} file(s)")
    together = given_together(items, tags, limits) if mapping is None and kind in (None, "tau2", "terminal-bench") \
        else Together(items, tags)
    calls: list[Callable[[], Imported]] = [
        functools.partial(import_file, src, name, kind=kind, agent=agent, experiment=tag, mapping=mapping,
                          scorer=scorer, limits=limits, metadata=together.metadata)
        for (src, name), tag in zip(together.files, together.tags)]
    calls += [functools.partial(f.read, agent, limits) for f in together.folders]
    names = [name or (_display_name(Path(src)) if isinstance(src, (str, Path)) else "input")
             for src, name in together.files] + [f.name for f in together.folders]
    return import_batch(calls, names, skip_refused=skip_refused, limits=limits)


METADATA_MAX_BYTES = 1 << 20  # a run_metadata.json read beside a results.json (as terminal_bench._agent reads one)


@dataclass(frozen=True)
class Folder:
    """tau2-bench's folder form given as its files (an upload has no folder): ``results.json`` and the
    ``simulations/<id>.json`` files its ``simulation_index`` lists, read as the folder is."""

    name: str
    results: bytes
    simulations: tuple[tuple[str, bytes], ...]
    tag: str | None
    header: tuple[Any, list[str]] | None = None  # results.json parsed (and its warnings), when it was already

    def read(self, agent: str | None, limits: Limits) -> Imported:
        return read_tau2_parts(self.results, self.simulations, name=self.name, agent=agent,
                               experiment=_experiment(self.tag, self.name), limits=limits, header=self.header)


@dataclass(frozen=True)
class Together:
    """Files given together, sorted into what is read as one input each (``files``, with their ``tags``), the
    terminal-bench run metadata that names their agent, and the tau2 folder forms given as their files."""

    files: list[tuple[Source, str | None]]
    tags: list[str | None]
    metadata: object = None
    folders: tuple[Folder, ...] = ()


def _file_name(src: Source, name: str | None) -> str:
    return Path(name or (str(src) if isinstance(src, (str, Path)) else "")).name


def given_together(items: list[tuple[Source, str | None]], tags: list[str | None], limits: Limits) -> Together:
    """What files given together make (the CLI's inputs, the app's uploads): a terminal-bench ``run_metadata.json``
    names the agent of the results given with it (the one such file among others; else it stays a file, refused
    in words as the metadata it is), and a tau2 ``results.json`` of the folder form takes the simulation files its
    index lists (a simulation it does not list stays a file; uploads only: on disk the folder is read as one)."""
    items, tags, metadata = _metadata(items, tags, limits)
    folders: list[Folder] = []
    taken: set[int] = set()
    for i, members, header in _folder_forms(items, limits):
        src, name = items[i]
        simulations = tuple((_file_name(*items[j]), read_bytes(items[j][0], _file_name(*items[j]), limits))
                            for j in members)
        folders.append(Folder(name or "results.json", read_bytes(src, name or "results.json", limits), simulations,
                              tags[i], header))
        taken |= {i, *members}
    return Together([x for k, x in enumerate(items) if k not in taken],
                    [t for k, t in enumerate(tags) if k not in taken], metadata, tuple(folders))


def folder_forms(items: Sequence[tuple[Source, str | None]], limits: Limits) -> list[tuple[int, list[int]]]:
    """The tau2 folder forms among files given together: (the position of a ``results.json``, the positions of the
    simulation files its ``simulation_index`` lists), each file in one form at most. Uploads only (bytes): a path is
    read as its folder is (is_folder_form), and a stream is read once."""
    return [(i, members) for i, members, _ in _folder_forms(items, limits)]


def _folder_forms(items: Sequence[tuple[Source, str | None]],
                  limits: Limits) -> list[tuple[int, list[int], tuple[Any, list[str]]]]:
    """:func:`folder_forms`, each with its ``results.json`` parsed (read once: the form is read from it)."""
    forms: list[tuple[int, list[int], tuple[Any, list[str]]]] = []
    taken: set[int] = set()
    for i, (src, name) in enumerate(items):
        if _file_name(src, name).lower() != "results.json" or not isinstance(src, (bytes, bytearray)):
            continue
        header = _folder_header(src, name or "results.json", limits)
        if header is None:
            continue
        index = header[0]["simulation_index"]
        ids = {e["id"] for e in index if isinstance(e, dict) and isinstance(e.get("id"), str)}
        members = [j for j, (other, its) in enumerate(items) if j != i and j not in taken
                   and _file_name(other, its).endswith(".json") and Path(_file_name(other, its)).stem in ids]
        if members:
            forms.append((i, members, header))
            taken |= {i, *members}
    return forms


def _folder_header(src: Source, name: str, limits: Limits) -> tuple[Any, list[str]] | None:
    """A tau2 folder form's ``results.json`` parsed (with its warnings): an object with a ``simulation_index``
    list; None for any other file (one without the word is not parsed here)."""
    data = read_bytes(src, name, limits)
    if b'"simulation_index"' not in data or b'"simulations"' in data:
        return None
    try:
        doc, warnings = parse_json(data, name, limits)
    except RunsValidationError:
        return None  # read again as a file, and refused there in its words
    if not isinstance(doc, dict) or not isinstance(doc.get("simulation_index"), list):
        return None
    return doc, warnings


def _metadata(items: list[tuple[Source, str | None]], tags: list[str | None],
              limits: Limits) -> tuple[list[tuple[Source, str | None]], list[str | None], object]:
    """A terminal-bench ``run_metadata.json`` among several files: taken out, and parsed."""
    named = [i for i, (src, name) in enumerate(items) if _file_name(src, name).lower() == METADATA]
    if len(named) != 1 or len(items) < 2:
        return items, tags, None
    [i] = named
    src, name = items[i]
    data = read_bytes(src, name or METADATA, limits)
    if len(data) > METADATA_MAX_BYTES:
        raise file_error(name or METADATA, f"{len(data):,} bytes: more than terminal-bench's run metadata holds "
                                           f"(at most {METADATA_MAX_BYTES:,} read)")
    doc, _ = parse_json(data, name or METADATA, limits)
    if not isinstance(doc, dict):
        raise file_error(name or METADATA, "terminal-bench's run metadata must be a JSON object")
    return items[:i] + items[i + 1:], tags[:i] + tags[i + 1:], doc


def import_batch(calls: Sequence[Callable[[], Imported]], names: Sequence[str], *, skip_refused: bool = False,
                 limits: Limits = DEFAULT_LIMITS) -> Imported:
    """Run each file's import and combine the results; every refused file is named.

    Without ``skip_refused`` any refusal refuses the batch, and the refusal lists every refused file
    (not only the first). With it (``--exclude-invalid``), a refused file (an empty tau2 run, a file
    of another kind) is left out and named in ``report.skipped``, and the rest is scored; a batch
    whose every file is refused is still refused.
    """
    parts: list[Imported] = []
    refused: list[tuple[str, RunsValidationError]] = []
    for call, name in zip(calls, names):
        try:
            parts.append(call())
        except RunsValidationError as exc:
            refused.append((name, exc))
    if refused and (not skip_refused or not parts):
        problems = [dataclasses.replace(p, reason=f"{exc.source or name}: {p.reason}")
                    if len(calls) > 1 else p for name, exc in refused for p in exc.problems]
        source = refused[0][1].source if len(calls) == 1 else f"{len(refused)} of {len(calls)} file(s)"
        if parts:
            problems.append(Problem.of(Reason.FILE, None, None, detail=(
                f"the other {len(parts)} file(s) can be scored without the refused one(s): skip them explicitly "
                "(--exclude-invalid, or the app's exclude button)")))
        error = RunsValidationError(problems, source=source)
        error.excludable = bool(parts)  # skipping the refused files is the explicit exclusion here
        raise error from None
    imported = combine(parts, limits=limits)
    if refused:
        skipped = tuple((exc.source or name, "; ".join(p.reason for p in exc.problems[:3])) for name, exc in refused)
        imported = dataclasses.replace(imported, report=dataclasses.replace(imported.report, skipped=skipped))
    return imported


def looks_like_runs_file(path: str, limits: Limits) -> bool:
    """Whether one input is a runs table (SPEC 1) by its content, as :func:`detect` decides: at a glance
    (:func:`~scoring.load.importers.kinds.runs_at_a_glance`) where its first bytes tell, else by detection. A file
    detection refuses is left to the loader, which reports it in its own words."""
    glance = runs_at_a_glance(path)
    return detected_as_runs(path, limits) if glance is None else glance


def detected_as_runs(path: str, limits: Limits) -> bool:
    """Whether :func:`detect` reads the file as a runs table. One it refuses goes to the importers, whose
    detection says why (a damaged zip, JSON nested too deep): the runs loader would say only that it is not a
    runs file ("unsupported file type '.eval'" for a truncated Inspect log, a reviewer's file of 2026-12-06)."""
    try:
        return detect(path, limits=limits) == "runs"
    except RunsValidationError:
        return False


__all__ = ["Folder", "Together", "classify", "combine", "detect", "expand_folder", "folder_forms", "given_together",
           "import_batch", "import_file", "import_files"]
