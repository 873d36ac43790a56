"""The data source shared by every page: sample, upload(s) or database table, validated and scored once.

Scored datasets live in one bounded cache (``explorer.cache``) shared by every session: it holds
at most the operator's cache budget, drops datasets nobody has read for a while, and no viewer
can clear it. A session keeps only which dataset it shows (and, for an upload, a reference to the
uploader's own file: its bytes are never copied into session state, nor on a rerun: ``explorer.upload_patch``).

Uploads: one file that is a runs table (SPEC 1) is loaded as it always was; harness results
(tau2-bench, tau-bench, Inspect AI, detected from the content) and several files at once are
imported (SPEC 7) into one dataset whose digest covers every file's bytes, name and experiment
tag; a table in another layout is imported through the column mapping of the *Map a table* page.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import streamlit as st

from scoring import CANONICAL_POLICY, LoadedRuns, Report, RunsValidationError, load_runs, score_runs
from scoring.contract.resources import SAMPLE_RUNS
from scoring.load.database import ConnectionSpec, SourceRefused, check_table_name, parse_viewer_url
from scoring.load.importers import ImportReport, MappingError, mapping_from_json, mapping_to_json
from scoring.load.importers.terminal_bench import METADATA
from scoring.load.runs import Problem
from scoring.load.worker import Usage
from scoring.outputs.downloads import DatasetInfo, file_name, import_digest, one_file_as_is, runs_sha256

from . import format as fmt
from . import imports, untrusted, upload_patch
from . import settings as settings_module
from .cache import BoundedCache
from .pages import end_page

if TYPE_CHECKING:
    import pandas as pd

    from scoring import Policy
    from scoring.analysis.uncertainty import Intervals
    from scoring.load.runs import RawRuns

    from .mapping_form import Preview

# st.file_uploader's value shares the upload's bytes on each rerun instead of copying them, a file uploaded in many
# sessions is held once, and the uploads held stay within the operator's budget
upload_patch.install(settings_module.current().upload_memory)

SAMPLE_PATH = SAMPLE_RUNS  # package data: sample_data/runs.csv in a clone
UPLOAD_TYPES = ["csv", "json", "jsonl", "ndjson", "parquet", "pq", "eval"]
STATE_KEY = "dataset"
UPLOAD_KEY = "upload_file"  # the uploader's UploadedFile (any object with getvalue()); never a copy of its bytes
IMPORT_KEY = "import_files"  # an import's UploadedFiles, in order: references, never copies of their bytes
URL_KEY = "db_url"  # a viewer's own database URL, kept in their session only
FACTS_KEY = "upload_facts"  # per uploaded file id: (sha256, kind), computed once per upload
FORMS_KEY = "upload_folder_forms"  # the tau2 folder forms among the uploads: (the files' sha256s and names, forms)

Kind = Literal["sample", "upload", "import", "connection", "url"]
T = TypeVar("T")


@dataclass(frozen=True)
class Dataset:
    """Which runs are shown: enough to find them and their cached scores, nothing secret."""

    name: str
    digest: str
    kind: Kind = "sample"
    exclude_invalid: bool = False
    table: str | None = None
    connection: str | None = None  # the operator's connection name, for kind "connection"
    sources: tuple[str, ...] = ()  # kind "import": each file's sha256, in order
    file_names: tuple[str, ...] = ()  # kind "import": each file's name (tau-bench builds ids from it)
    experiments: tuple[str | None, ...] = ()  # kind "import": each file's experiment tag
    mapping: str | None = None  # kind "import": a column mapping (JSON text) for one table
    target: str | None = None  # kind "connection": what the connection reached when read (``_connection_target``)

    @property
    def is_sample(self) -> bool:
        return self.kind == "sample"


@dataclass(frozen=True)
class Scored:
    loaded: LoadedRuns
    report: Report
    imported: ImportReport | None = None  # how harness files became runs (SPEC 7)
    received: int = 0  # bytes of the worker's answer: what this process holds of it, at least

    @property
    def runs(self) -> pd.DataFrame:
        return self.loaded.runs


@dataclass(frozen=True)
class Refused:
    error: RunsValidationError
    imported: ImportReport | None = None
    transient: bool = False  # the database could not be reached: asked again after RETRY_SECONDS


# A database that could not be reached is asked again after this long (not at every rerun of every session: an
# unreachable host answers only after the connect timeout).
RETRY_SECONDS = 30.0


def _kept_for(result: Scored | Refused) -> float | None:
    """How long the cache keeps a result: a failed connection for RETRY_SECONDS, anything else until idle."""
    return RETRY_SECONDS if isinstance(result, Refused) and result.transient else None


def _size_of(result: Scored | Refused) -> int:
    """Bytes a cached result holds, as the cache budget counts them."""
    if isinstance(result, Refused):
        return 1_000 + 300 * len(result.error.problems)
    runs = result.runs.memory_usage(deep=True, index=False).sum()
    return max(int(runs + report_size(result.report)), result.received)


# One cache per server process, outside Streamlit's caches: a clear-cache message from any client
# empties those, not this one.
_DATASETS: BoundedCache | None = None
_DATASETS_LOCK = threading.Lock()


def _cache() -> BoundedCache:
    global _DATASETS
    with _DATASETS_LOCK:
        if _DATASETS is None:
            s = settings_module.current()
            _DATASETS = BoundedCache(s.cache_memory, s.cache_idle_seconds)
            untrusted.SLOTS.allow(s.max_workers)  # workers at once in this process (the rest wait for one)
            threading.Thread(target=_sweep, args=(_DATASETS,), name="explorer-cache-sweeper", daemon=True).start()
            # The workers that read uploads fork from one server process, started now rather than at the first
            # upload (it loads pandas, pyarrow and scoring once).
            threading.Thread(target=_start_workers, name="explorer-forkserver", daemon=True).start()
        return _DATASETS


def _sweep(cache: BoundedCache) -> None:
    """Drop idle datasets even when no session asks for anything (once a minute)."""
    while True:
        time.sleep(60)
        cache.trim()


def _start_workers() -> None:
    from scoring.load.worker import start_forkserver

    start_forkserver()


def _held_or_computed(key: Hashable, compute: Callable[[], T], size_of: Callable[[T], int], spinner: str,
                      kept_for: Callable[[T], float | None] | None = None) -> T:
    """The shared cache's value for ``key``; computed under a spinner only when it is not held (a spinner starts a
    thread and sends two messages: on every rerun of every page, for a value that is almost always there)."""
    held = _cache().get(key)
    if held is not None:
        return held
    with st.spinner(spinner, show_time=True):
        return _cache().get_or_compute(key, compute, size_of, kept_for)


def _score_bytes(name: str, exclude_invalid: bool, data: bytes) -> Scored | Refused:
    """The sample (our own file): read in this process."""
    try:
        loaded = load_runs(data, name=name, exclude_invalid=exclude_invalid, limits=settings_module.current().limits)
    except RunsValidationError as error:
        return Refused(error)
    return Scored(loaded, score_runs(loaded.runs, CANONICAL_POLICY, harness=loaded.harness))


def _in_worker(fn: Callable[..., untrusted.Outcome], args: tuple, what: str) -> Scored | Refused:
    """Untrusted reading, validating and scoring in a worker process under the deployment's limits."""
    limits = settings_module.current().limits
    usage: list[Usage] = []
    try:
        outcome = untrusted.run(fn, (*args, limits), limits, what, usage)
    except RunsValidationError as error:  # a limit breached: the worker was stopped
        return Refused(error)
    if outcome.error is not None:
        return Refused(outcome.error, outcome.imported, outcome.transient)
    assert outcome.loaded is not None and outcome.report is not None
    return Scored(outcome.loaded, outcome.report, outcome.imported, usage[0].received if usage else 0)


def _sample_bytes() -> bytes:
    return SAMPLE_PATH.read_bytes()


@st.cache_resource
def _sample_digest() -> str:
    return hashlib.sha256(_sample_bytes()).hexdigest()


def sample_dataset() -> Dataset:
    return Dataset(SAMPLE_PATH.name, _sample_digest(), "sample")


def use_sample() -> None:
    st.session_state[STATE_KEY] = sample_dataset()
    st.session_state.pop(UPLOAD_KEY, None)
    st.session_state.pop(IMPORT_KEY, None)
    st.session_state.pop(URL_KEY, None)


def use_upload(upload: Any, digest: str | None = None) -> Dataset:
    """Make an uploaded file the current dataset; its content hash is computed once per upload."""
    if digest is None:
        digests = st.session_state.setdefault("upload_digests", {})
        file_id = getattr(upload, "file_id", None) or id(upload)
        if file_id not in digests:
            digests.clear()  # one upload at a time: forget the previous file's digest
            digests[file_id] = hashlib.sha256(upload.getvalue()).hexdigest()
        digest = digests[file_id]
    current = st.session_state.get(STATE_KEY)
    st.session_state[UPLOAD_KEY] = upload
    if current is None or current.digest != digest:
        st.session_state[STATE_KEY] = Dataset(upload.name, digest, "upload")
    st.session_state.pop(IMPORT_KEY, None)
    st.session_state.pop(URL_KEY, None)
    return st.session_state[STATE_KEY]


def _file_name(upload: Any) -> str:
    return str(getattr(upload, "name", None) or "upload")


def not_kept_text(name: str, why: upload_patch.NotKept) -> str:
    """Why the server did not keep an uploaded file, with this server's reconnect window."""
    return upload_patch.not_kept_text(name, why, int(st.get_option("server.disconnectedSessionTTL")))


def kept_uploads(uploads: list) -> list:
    """The uploaded files the server kept; each one it did not keep (its upload budget full) said in words."""
    kept = []
    for upload in uploads:
        why = upload_patch.refused(upload)
        if why is None:
            kept.append(upload)
        else:
            st.error(not_kept_text(_file_name(upload), why), icon=":material/block:")
    return kept


def kept_upload(upload: Any) -> Any:
    """One uploader's file if the server kept it (else None, and why said in words)."""
    return None if upload is None else next(iter(kept_uploads([upload])), None)


def upload_facts(uploads: list, names: list[str] | None = None, *, store: str = FACTS_KEY) -> list[tuple[str, str]]:
    """(sha256, kind) of each uploaded file, computed once per upload (only the current files are kept, in the
    session key ``store``: the sidebar's, or one of the Compare page's two datasets)."""
    facts = st.session_state.setdefault(store, {})
    ids = [getattr(u, "file_id", None) or id(u) for u in uploads]
    for stale in set(facts) - set(ids):
        del facts[stale]
    limits = settings_module.current().limits
    names = names or [_file_name(u) for u in uploads]
    new = [(file_id, upload, name) for file_id, upload, name in zip(ids, uploads, names) if file_id not in facts]
    if new:  # detecting a kind parses the file: in a worker, like every untrusted read
        datas, new_names = [u.getvalue() for _, u, _ in new], [n for _, _, n in new]
        try:
            kinds = untrusted.run(untrusted.upload_kinds, (datas, new_names, limits), limits, ", ".join(new_names))
        except RunsValidationError:
            kinds = ["runs"] * len(new)  # the loader, in its own worker, then says why the file is refused
        for (file_id, _, _), data, kind in zip(new, datas, kinds):
            facts[file_id] = (hashlib.sha256(data).hexdigest(), kind)
    return [facts[i] for i in ids]


def _import_name(names: list[str]) -> str:
    """The dataset's name: the file's, or 'N files' (each file is named in the import report)."""
    return names[0] if len(names) == 1 else f"{len(names)} files"


def _short(name: str, width: int = 40) -> str:
    """A long file name cut in the middle, as the uploader shows it."""
    return name if len(name) <= width else name[:width // 2 - 1] + "…" + name[-(width // 2 - 1):]


def use_import(uploads: list, experiments: list[str | None], mapping: str | None = None,
               names: list[str] | None = None) -> Dataset:
    """Make several uploaded files (or one harness file, or one table with a mapping) the current dataset."""
    names = names or [_file_name(u) for u in uploads]
    sources = [sha for sha, _ in upload_facts(uploads, names)]
    digest = import_digest(names, sources, experiments, mapping)
    current = st.session_state.get(STATE_KEY)
    st.session_state[IMPORT_KEY] = list(uploads)
    st.session_state.pop(UPLOAD_KEY, None)
    st.session_state.pop(URL_KEY, None)
    if current is None or current.digest != digest:
        name = _import_name(names) + (" (mapped)" if mapping else "")
        st.session_state[STATE_KEY] = Dataset(name, digest, "import", sources=tuple(sources),
                                              file_names=tuple(names), experiments=tuple(experiments),
                                              mapping=mapping)
    return st.session_state[STATE_KEY]


def use_mapped(upload: Any, mapping_json: str, name: str | None = None) -> Dataset:
    """Score one uploaded table through a column mapping (the *Map a table* page's button)."""
    dataset = use_import([upload], [None], mapping_json, names=[name or _file_name(upload)])
    st.session_state[UPLOAD_KEY] = upload  # the mapping page keeps reading the same table
    return dataset


@dataclass(frozen=True)
class MappingSource:
    """The uploaded table the *Map a table* page maps: the uploader's file, its name and content hash."""

    upload: Any
    name: str
    digest: str
    mapping: str | None = None  # the mapping it is scored through now, if any


def mapping_source() -> MappingSource | None:
    """The current upload when it is one table (mapped already or not); None for any other dataset."""
    dataset = current_dataset()
    if dataset.kind == "upload":
        return MappingSource(st.session_state[UPLOAD_KEY], dataset.name, dataset.digest)
    if dataset.kind == "import" and dataset.mapping and len(dataset.sources) == 1:
        return MappingSource(st.session_state[IMPORT_KEY][0], dataset.file_names[0], dataset.sources[0],
                             dataset.mapping)
    return None


def source_table(source: MappingSource) -> RawRuns | Refused:
    """Every column of the table to map (``scoring.load.runs.RawRuns``), or its Refused; read once, cached."""
    def compute() -> RawRuns | Refused:
        limits = settings_module.current().limits
        try:
            table = untrusted.run(untrusted.read_table, (source.upload.getvalue(), source.name, limits), limits,
                                  source.name)
        except RunsValidationError as error:
            return Refused(error)
        return Refused(table) if isinstance(table, RunsValidationError) else table

    def size(value: RawRuns | Refused) -> int:
        if isinstance(value, Refused):
            return _size_of(value)
        return int(value.frame.memory_usage(deep=True, index=False).sum()) + 8 * len(value) + 10_000

    return _cache().get_or_compute(("table", source.digest, source.name), compute, size)


def mapping_preview(source: MappingSource, table: RawRuns, mapping_json: str) -> Preview:
    """The mapped table's preview and validation (``mapping_form.Preview``), once per table and mapping."""
    from .mapping_form import preview

    def size(value: Preview) -> int:
        problems = len(value.error.problems) if value.error is not None else 0
        return 300 * problems + 20_000

    return _held_or_computed(("mapping-preview", source.digest, source.name, mapping_json),
                             lambda: preview(table, mapping_from_json(mapping_json), source.name), size,
                             "Mapping and validating the table…")


def upload_source(uploads: list) -> None:
    """The sidebar below the uploader: which path the uploaded files take, and a tag per imported file.

    One runs table keeps the loader's path (its validation report and exclusion button). Harness
    files and several files are imported into one dataset, each with an optional experiment tag.
    A table uploaded with a saved mapping (JSON) is scored through it, and a table scored through a
    mapping stays mapped while the same file is uploaded.
    """
    facts = upload_facts(uploads)
    mappings = [u for u, (_, kind) in zip(uploads, facts) if kind == "mapping"]
    if mappings:
        tables = [u for u, (_, kind) in zip(uploads, facts) if kind != "mapping"]
        if len(mappings) > 1 or len(tables) != 1:
            st.error("A saved mapping applies to one table: upload one table and one mapping (JSON).",
                     icon=":material/block:")
            use_sample()
            return
        try:
            mapping = mapping_from_json(mappings[0].getvalue())
        except MappingError as exc:
            st.error(f"{fmt.plain(_file_name(mappings[0]))}: {fmt.plain(exc)}", icon=":material/block:")
            use_sample()
            return
        use_mapped(tables[0], mapping_to_json(mapping))
        st.caption(f":material/table_convert: Scored through the mapping in {fmt.plain(_file_name(mappings[0]))}.")
        return
    if len(uploads) == 1 and facts[0][1] == "runs":
        current = st.session_state.get(STATE_KEY)
        if current is not None and current.kind == "import" and current.mapping and current.sources == (facts[0][0],):
            use_mapped(uploads[0], current.mapping, current.file_names[0])
            st.caption(":material/table_convert: Scored through the column mapping of *Map a table*.")
        else:
            use_upload(uploads[0], facts[0][0])
        return
    st.caption("Harness results are detected from their content. An experiment tag keeps files of the "
               "same model apart (optional).")
    forms = dict(upload_folder_forms(uploads, facts))  # a tau2 results.json -> the simulation files it takes
    taken = {j for members in forms.values() for j in members}
    tags: list[str | None] = []
    for k, (upload, (_, kind)) in enumerate(zip(uploads, facts)):
        if _file_name(upload).lower() == METADATA and len(uploads) > 1:  # names the agent of its results.json
            tags.append(None)
            st.caption(f"{fmt.plain(_short(_file_name(upload)))}: terminal-bench's run metadata, read with its "
                       "results.json (it names the agent; no tag of its own).")
            continue
        if k in taken:  # a simulation of a tau2 folder form: its results.json's tag is the tag of the whole form
            tags.append(None)
            continue
        label = f"Tag for {fmt.plain(_short(_file_name(upload)))}"
        tag = st.text_input(label, key=f"experiment_{getattr(upload, 'file_id', None) or id(upload)}",
                            max_chars=100, placeholder="e.g. prompt-v2",
                            help=f"Detected: {kind}. The tag is added to the agent ids ('model [tag]').")
        tags.append(tag.strip() or None)
        if k in forms:
            st.caption(f"{fmt.plain(_short(_file_name(upload)))} and "
                       f"{fmt.counted(len(forms[k]), 'simulation file', 'simulation files')}: tau2-bench's folder "
                       "form, read as one results file (this tag applies to all of them).")
    use_import(uploads, tags)


def upload_folder_forms(uploads: list, facts: list[tuple[str, str]]) -> list[tuple[int, list[int]]]:
    """The tau2 folder forms among the uploaded files, as the import reads them (a results.json's position, the
    positions of the simulation files it takes); found once per set of files, in a worker like every untrusted
    read, and only when a results.json is uploaded with other files."""
    names = [_file_name(u) for u in uploads]
    if len(uploads) < 2 or not any(name.lower() == "results.json" for name in names):
        return []
    key = tuple(zip([sha for sha, _ in facts], names))
    kept = st.session_state.get(FORMS_KEY)
    if kept is not None and kept[0] == key:
        return kept[1]
    limits = settings_module.current().limits
    try:
        forms = untrusted.run(untrusted.folder_forms, ([u.getvalue() for u in uploads], names, limits), limits,
                              ", ".join(names))
    except RunsValidationError:
        forms = []  # the import, in its own worker, then says what is wrong with the files
    st.session_state[FORMS_KEY] = (key, forms)
    return forms


def _connection_target(name: str, table: str) -> str:
    """What an operator's connection and table reach as configured now (host, port, database, user and password,
    as a digest): a name the operator points elsewhere, or whose password changes, is another dataset, never the
    scores or the refusal cached for the old one."""
    connection = settings_module.current().connection(name)
    target = connection.spec.fingerprint() if connection else "not configured"
    return hashlib.sha256(f"connection\n{name}\n{table}\n{target}".encode()).hexdigest()


# How many times each connection target (``_connection_target``) was read by a click, in this server process: a
# database table changes, so "Read the table" reads it again as a new dataset (every cache keyed by the dataset's
# digest starts afresh), while a session showing an earlier read keeps it until its own click.
_READS: dict[str, int] = {}
_READS_LOCK = threading.Lock()


def connection_dataset(name: str, table: str, *, read_again: bool = False) -> Dataset:
    """The operator's connection ``name`` and ``table`` as a dataset (read only once it is scored, where the
    table must be on the connection's allow-list): its latest read in this server, or (``read_again``) a new one."""
    target = _connection_target(name, table)
    with _READS_LOCK:
        if read_again:
            _READS[target] = _READS.get(target, 0) + 1
        generation = _READS.get(target, 0)
    digest = hashlib.sha256(f"{target}\nread {generation}".encode()).hexdigest()
    return Dataset(f"{table} @ {name}", digest, "connection", table=table, connection=name, target=target)


def use_connection(name: str, table: str) -> Dataset:
    """Read ``table`` through the operator's connection ``name`` (the table must be on its allow-list), afresh."""
    st.session_state.pop(UPLOAD_KEY, None)
    st.session_state.pop(IMPORT_KEY, None)
    st.session_state.pop(URL_KEY, None)
    st.session_state[STATE_KEY] = connection_dataset(name, table, read_again=True)
    return st.session_state[STATE_KEY]


def file_dataset(upload: Any, store: str) -> Dataset | str:
    """One uploaded file as a dataset beside the sidebar's (one of the Compare page's two datasets), the sidebar
    left as it is: a runs table (SPEC 1), or harness results imported (SPEC 7). Its kind is detected in a worker
    (:func:`upload_facts`, once per upload, kept in the session key ``store``); a saved mapping is no dataset (the
    reason is returned)."""
    name = _file_name(upload)
    [(sha, kind)] = upload_facts([upload], [name], store=store)
    if kind == "mapping":
        return f"{name} is a saved column mapping, not runs: upload a runs table or harness results"
    if kind == "runs":
        return Dataset(name, sha, "upload")
    return Dataset(name, import_digest([name], [sha], [None], None), "import", sources=(sha,), file_names=(name,),
                   experiments=(None,))


def use_viewer_url(url: str, table: str) -> Dataset:
    """A viewer's own database URL (only when the operator allows it); refused URLs raise SourceRefused."""
    s = settings_module.current()
    if not s.allow_database_url:
        raise SourceRefused("this deployment does not accept database URLs from viewers")
    spec = parse_viewer_url(url, s.database_url_hosts)
    table = check_table_name(table)
    # Keyed by the connection's fingerprint (an HMAC under this process's key), never a plain hash of the URL:
    # the password is in it, and a plain digest of guessable fields could be tested offline (a dataset's digest
    # names its cache entries and is compared with links).
    digest = hashlib.sha256(f"url\n{spec.fingerprint()}\n{table}".encode()).hexdigest()
    st.session_state.pop(UPLOAD_KEY, None)
    st.session_state.pop(IMPORT_KEY, None)
    st.session_state[URL_KEY] = url
    st.session_state[STATE_KEY] = Dataset(f"{table} @ {spec.location()}", digest, "url", table=table)
    return st.session_state[STATE_KEY]


URL_CHOICE = "Another database (URL)"


def database_source(s: settings_module.Settings) -> None:
    """The sidebar's database choices: the operator's connections and their tables, or (when the
    operator allows it) a URL typed by the viewer."""
    options = [c.name for c in s.connections] + ([URL_CHOICE] if s.allow_database_url else [])
    choice = st.selectbox("Connection", options, key="db_connection",
                          help="Set up by this deployment's operator. Tables are read, never written.")
    if choice == URL_CHOICE:
        with st.form("db_url_form"):
            url = st.text_input("Connection URL", type="password",
                                placeholder="postgresql://user:password@host:5432/database",
                                help="Only host, port, database, user and password are accepted. "
                                     "Read only; never shown on screen or written to a log.")
            table = st.text_input("Table", value="runs")
            read = st.form_submit_button("Read the table")
        if read and url:
            try:
                use_viewer_url(url, table)
            except SourceRefused as exc:
                st.error(fmt.plain(str(exc)), icon=":material/block:")
    elif choice is not None:
        connection = s.connection(choice)
        table = st.selectbox("Table", connection.tables if connection else [], key="db_table")
        if st.button("Read the table", key="db_read") and table:
            use_connection(choice, table)
    if current_dataset().kind not in ("connection", "url"):
        if not current_dataset().is_sample:
            use_sample()
        st.caption("No table read yet: the sample data stays loaded.")


def current_dataset() -> Dataset:
    dataset: Dataset | None = st.session_state.get(STATE_KEY)
    stale = dataset is None or (dataset.kind == "upload" and UPLOAD_KEY not in st.session_state) \
        or (dataset.kind == "import" and IMPORT_KEY not in st.session_state) \
        or (dataset.kind == "url" and URL_KEY not in st.session_state)
    if dataset is None or stale:
        dataset = sample_dataset()
        st.session_state[STATE_KEY] = dataset
    elif dataset.kind == "connection" and dataset.target != _connection_target(dataset.connection or "",
                                                                                dataset.table or ""):
        # The operator changed the connection since it was read: its latest read under the new configuration.
        configured = connection_dataset(dataset.connection or "", dataset.table or "")
        dataset = replace(configured, exclude_invalid=dataset.exclude_invalid)
        st.session_state[STATE_KEY] = dataset
    return dataset


def exclude_invalid_rows() -> None:
    st.session_state[STATE_KEY] = replace(current_dataset(), exclude_invalid=True)


def _read_table(spec: ConnectionSpec, table: str, exclude_invalid: bool) -> Scored | Refused:
    return _in_worker(untrusted.read_database, (spec, table, exclude_invalid), table)


def _import_uploads(dataset: Dataset, uploads: list) -> Scored | Refused:
    """Import, validate and score uploaded files (SPEC 7): one report over all of them."""
    tags = list(dataset.experiments) or [None] * len(uploads)
    names = list(dataset.file_names) or [_file_name(u) for u in uploads]
    return _in_worker(untrusted.import_files, ([u.getvalue() for u in uploads], names, tags, dataset.mapping,
                                               dataset.exclude_invalid, dataset.name), dataset.name)


def _compute(dataset: Dataset, files: list | None = None) -> Scored | Refused:
    """Score a dataset; an upload's or an import's files are ``files`` when given, else the sidebar's."""
    if dataset.kind == "sample":
        return _score_bytes(dataset.name, dataset.exclude_invalid, _sample_bytes())
    if dataset.kind == "upload":
        upload = files[0] if files else st.session_state[UPLOAD_KEY]
        return _in_worker(untrusted.score_file, (dataset.name, upload.getvalue(), dataset.exclude_invalid),
                          dataset.name)
    if dataset.kind == "import":
        return _import_uploads(dataset, files or st.session_state[IMPORT_KEY])
    s = settings_module.current()
    if dataset.kind == "connection":
        connection = s.connection(dataset.connection or "")
        if connection is None or dataset.table not in connection.tables:
            return Refused(RunsValidationError([Problem(None, None, None, "this connection or table is not "
                                                        "offered by this deployment")], source=dataset.name,
                                               can_exclude=False))
        return _read_table(connection.spec, dataset.table, dataset.exclude_invalid)
    try:
        spec = parse_viewer_url(st.session_state[URL_KEY], s.database_url_hosts) if s.allow_database_url else None
    except SourceRefused:
        spec = None
    if spec is None:
        return Refused(RunsValidationError([Problem(None, None, None, "this deployment does not accept this "
                                                    "database URL")], source=dataset.name, can_exclude=False))
    return _read_table(spec, dataset.table or "", dataset.exclude_invalid)


def _scores_key(dataset: Dataset) -> tuple[Hashable, ...]:
    """The cache key of a dataset's scores or refusal: the dataset, and the limits it was read under (an operator
    who raises a limit in secrets.toml sees the file read again, not the refusal kept under the old limit)."""
    return dataset.kind, dataset.digest, dataset.exclude_invalid, settings_module.current().limits


def scored() -> Scored | Refused:
    dataset = current_dataset()
    key = _scores_key(dataset)
    return _held_or_computed(key, lambda: _scored_and_warmed(dataset), _size_of, "Validating and scoring the runs…",
                             _kept_for)


# What runs once a dataset is newly scored (``explorer.drill`` registers its ``warm``: every ranked agent explained
# ahead of time for every session); registered by the module above this one, so data imports nothing of it.
ON_SCORED: list[Callable[[Dataset, Scored], object]] = []


def scored_dataset(dataset: Dataset, files: list | None = None) -> Scored | Refused:
    """A dataset beside the sidebar's (one of the Compare page's two datasets), scored by the same path and held
    in the same cache as the sidebar's (one file uploaded in both places is read once); ``files``: an upload's or
    an import's uploaded files (references)."""
    key = _scores_key(dataset)
    return _held_or_computed(key, lambda: _scored_and_warmed(dataset, files), _size_of,
                             f"Validating and scoring {fmt.plain(dataset.name)}…", _kept_for)


def _scored_and_warmed(dataset: Dataset, files: list | None = None) -> Scored | Refused:
    """Score a dataset; then run :data:`ON_SCORED` (``explorer.drill.warm``) on it."""
    result = _compute(dataset, files)
    if isinstance(result, Scored) and result.loaded.runs.empty:  # no page draws a dataset of no runs
        excluded = result.loaded.excluded_rows
        detail = (f"excluding the {fmt.counted(excluded, 'invalid row', 'invalid rows')} leaves no run to score"
                  if excluded else "the data has no runs")
        result = Refused(RunsValidationError([Problem(None, None, None, detail, "file")],
                                             rows_read=result.loaded.rows_read, source=dataset.name,
                                             can_exclude=False), result.imported)
    if isinstance(result, Scored):
        for hook in ON_SCORED:
            hook(dataset, result)
    return result


def require_scores() -> Scored:
    """The current scores, or (for a refused file) the validation report and a stop."""
    result = scored()
    if isinstance(result, Refused):
        show_refusal(result.error, result.imported)
        end_page()
    return result


def page_link(name: str, label: str, icon: str, query_params: dict[str, list[str]] | None = None) -> None:
    """A link to one of the app's pages. Navigating by link keeps the sidebar's data source and upload
    (``st.switch_page`` would reset every widget). A page run on its own (a test) has no such page
    registered: the page is then named in words."""
    from streamlit.errors import StreamlitPageNotFoundError

    from .pages import PAGE_BY_NAME

    spec = PAGE_BY_NAME[name]
    try:
        st.page_link(str(spec.path), label=label, icon=icon, query_params=query_params or None)
    except StreamlitPageNotFoundError:
        st.caption(f"Open *{spec.title}* in the menu.")


def derived(what: str, extra: Hashable, compute: Callable[[], T], size_of: Callable[[T], int],
            spinner: str | None = None, *, dataset: Dataset | None = None) -> T:
    """A result computed from the current dataset (an explanation, the task matrix, a series over time), once
    per dataset and ``extra``, held in the same bounded cache as the scores (so within the same budget).
    ``dataset`` names the dataset where there is no session (a thread of the server's own)."""
    dataset = dataset or current_dataset()
    key = (what, dataset.kind, dataset.digest, dataset.exclude_invalid, extra)
    if spinner is None:
        return _cache().get_or_compute(key, compute, size_of)
    return _held_or_computed(key, compute, size_of, spinner)


FIGURE_BYTES = 150_000  # what one chart holds as plotly objects, as the cache budget counts it (an estimate)


def figure(what: str, extra: Hashable, build: Callable[[], T]) -> T:
    """A chart of the current dataset, built once per dataset and ``extra`` (everything else it shows: the agent,
    the theme, the weights...) for every session, in the shared bounded cache. Streamlit only reads a figure (it
    serializes a copy of it), so one object serves every session; nobody may change a figure this returns. Its dict
    and JSON for Streamlit are made once too, with it (``explorer.chart_memo``)."""
    from . import chart_memo

    return derived("figure:" + what, extra, lambda: chart_memo.prepare(build()), lambda _: 2 * FIGURE_BYTES)


def table_frame(what: str, extra: Hashable, build: Callable[[], Any]) -> Any:
    """A table (a DataFrame) of the current dataset, built once per dataset and ``extra`` for every session, in
    the shared bounded cache; nobody may change a frame this returns (``explorer.ui.table`` only reads it). Its size
    counts it three times: the Styler's text frame and Arrow bytes ``explorer.table_memo`` keeps with it are about
    as large again each."""
    return derived("table:" + what, extra, build,
                   lambda frame: 3 * int(frame.memory_usage(deep=True).sum()) + 10_000)


def show_import_report(report: ImportReport, *, expanded: bool = False) -> None:
    """What the import mapped (with source units), what it could not, and its warnings (SPEC 7)."""
    uploaded = len(current_dataset().sources) or None  # files given; some may be read with another
    with st.expander(f"Import report: {imports.report_summary(report, uploaded)}", expanded=expanded,
                     icon=":material/input:"):
        for block in imports.report_markdown(report):
            st.markdown(block)
        st.download_button("Download the import report (JSON)", json.dumps(report.to_json(), indent=2) + "\n",
                           file_name="import-report.json", mime="application/json", icon=":material/download:")


# The refusal table's column widths (px): at a 1440 px window (sidebar open) they fit the main area, the Reason column
# the widest; a reason longer than its width wraps onto more lines (refusal_row_height) instead of being cut.
REFUSAL_PX = {"row": 56, "line": 56, "column": 110, "value": 130, "reason": 450, "code": 150}
REFUSAL_CHAR_PX = 7.5  # the widest average width of a character of the grid's 14 px font, in words like these
REFUSAL_LINE_PX = 20  # one wrapped line of the grid's text (14 px, line height 1.4)


def refusal_row_height(reasons: list[str]) -> int | None:
    """The refusal table's row height: Streamlit's own (one line) when every reason fits its column, else tall
    enough for the longest reason's lines and one more (a line breaks between words, so it is not always full;
    Streamlit wraps a cell's text only in rows over 64 px, so three lines at least).

    >>> refusal_row_height(["not a number"]) is None
    True
    >>> refusal_row_height(["unknown status; expected one of queued, running, completed, failed, timeout, cancelled"])
    70
    >>> refusal_row_height(["x" * 300])
    150
    """
    per_line = (REFUSAL_PX["reason"] - 16) / REFUSAL_CHAR_PX  # 8 px of padding on either side
    lines = max((math.ceil(len(r) / per_line) for r in reasons), default=1)
    return None if lines <= 1 else max(3, lines + 1) * REFUSAL_LINE_PX + 10


def show_refusal(error: RunsValidationError, imported: ImportReport | None = None) -> None:
    dataset = current_dataset()
    what = "table" if dataset.table else "file"
    if dataset.kind == "import" and len(dataset.sources) > 1:
        what = "upload"
    listed = "" if len(error.problems) == error.total else f" (the first {len(error.problems):,} are listed)"
    excludable = bool(error.excludable and error.invalid_rows)
    # Several files of which some are refused as a whole: the others can be scored without them (the same explicit
    # exclusion as --exclude-invalid, which also leaves out any invalid row of the others, and says so).
    skippable = bool(error.excludable and not error.invalid_rows and what == "upload")
    # One instruction: "exclude the invalid rows" only when a row can be excluded (never above "no row can be").
    remedy = (f"fix the {what} or exclude the invalid rows" if excludable
              else "fix the upload or skip the refused file(s)" if skippable else f"fix the {what}")
    # Several files are named by their count (each is in the import report), never quoted as if it were a file's name.
    named = f"upload of {fmt.plain(dataset.name)}" if what == "upload" else f"{what} '{fmt.plain(dataset.name)}'"
    st.error(f"The {named} was refused: "
             f"{fmt.counted(error.total, 'problem', 'problems')} found{listed}. "
             f"Nothing was scored; {remedy}.", icon=":material/block:")
    problems = error.table()
    st.dataframe(problems, hide_index=True, width="stretch", placeholder="whole file",
                 row_height=refusal_row_height(problems["reason"].tolist()),
                 column_config={"row": st.column_config.NumberColumn("Row", format="%d", width=REFUSAL_PX["row"],
                                                                     help="The n-th run of the file"),
                                "line": st.column_config.NumberColumn(
                                    "Line", format="%d", width=REFUSAL_PX["line"],
                                    help="The line of the file the row starts on, counted as an editor counts them "
                                         "(the header is line 1)"),
                                "column": st.column_config.TextColumn("Column", width=REFUSAL_PX["column"]),
                                "value": st.column_config.TextColumn("Value", width=REFUSAL_PX["value"]),
                                "reason": st.column_config.TextColumn("Reason", width=REFUSAL_PX["reason"]),
                                "code": st.column_config.TextColumn("Code", width=REFUSAL_PX["code"],
                                                                    help="The rule's stable code")})
    if excludable:
        st.button(f"Exclude the {fmt.counted(error.invalid_rows, 'invalid row', 'invalid rows')} of "
                  f"{error.rows_read:,} and score the rest",
                  on_click=exclude_invalid_rows, type="primary", key="exclude_invalid")
        st.caption("Scores computed that way say how many rows were excluded.")
    elif skippable:
        st.button("Skip the refused file(s) and score the others", on_click=exclude_invalid_rows, type="primary",
                  key="skip_refused")
        st.caption("The import report then names the files left out; any invalid row of the others is excluded too, "
                   "and the scores say how many.")
    elif error.every_row_invalid and all(p.row is not None for p in error.problems):
        st.caption(f"Every row of the {what} is invalid, so excluding them would leave no run to score.")
    else:
        st.caption(f"This problem concerns the whole {what}, so no row can be excluded to rescue it.")
    if dataset.kind == "upload" and any(p.code == "missing_column" for p in error.problems):
        st.info("Is this a table in another layout? Map its columns to runs columns (units, success rule, "
                "status words), preview the result and score it.", icon=":material/table_convert:")
        page_link("mapping", "Map this table's columns", ":material/table_convert:")
    if imported is not None:
        show_import_report(imported, expanded=True)


def source_caption(result: Scored | Refused) -> str:
    dataset = current_dataset()
    label = {"sample": "Sample data", "upload": "Uploaded", "import": "Imported", "connection": "PostgreSQL",
             "url": "PostgreSQL"}[dataset.kind]
    if isinstance(result, Refused):
        rows = result.error.invalid_rows
        return (f"{label}: {dataset.name} — refused "
                f"({fmt.counted(rows, 'invalid row', 'invalid rows') if rows else 'the file as a whole'})")
    loaded = result.loaded
    return (f"{label}: {dataset.name} · {fmt.counted(len(loaded.runs), 'run', 'runs')} · "
            f"{fmt.counted(len(result.report.agents), 'agent', 'agents')} · "
            f"{fmt.counted(loaded.excluded_rows, 'excluded row', 'excluded rows')}")


def _bootstrapped(scored_data: Scored, dataset: Dataset, replicates: int, seed: int) -> Intervals:
    """Bootstrap intervals of a dataset, computed once per (replicates, seed) in the shared bounded cache, each in
    a worker under the deployment's limits (untrusted.bootstrap: BootstrapStopped past one). A stop is kept in the
    cache too: a rerun of the page, or another session asking the same, is told again without a worker spending
    the limit again."""
    from scoring.analysis.uncertainty import Intervals

    limits = settings_module.current().limits

    def compute() -> Intervals | str:
        try:
            return untrusted.bootstrap(scored_data.runs, scored_data.report, replicates, seed, limits)
        except untrusted.BootstrapStopped as exc:
            return str(exc)

    found = _cache().get_or_compute(
        ("intervals", dataset.kind, dataset.digest, dataset.exclude_invalid, replicates, seed), compute,
        lambda got: 2_000 * (len(got.agents) + 1) if isinstance(got, Intervals) else 1_000)  # a few objects an agent
    if isinstance(found, str):
        raise untrusted.BootstrapStopped(found)
    return found


def intervals(scored_data: Scored, replicates: int, seed: int) -> Intervals | None:
    """Bootstrap intervals of the current dataset (_bootstrapped), with a spinner while they are computed; None,
    with the reason shown, where the bootstrap went past a limit and was stopped."""
    agents = len(scored_data.report.agents)
    try:
        with st.spinner(f"Bootstrapping intervals: {agents:,} agents, {replicates:,} replicates each"):
            return _bootstrapped(scored_data, current_dataset(), replicates, seed)
    except untrusted.BootstrapStopped as exc:
        st.error(f"No intervals: {fmt.plain(exc)}", icon=":material/block:")
        return None


def report_size(report: Report) -> int:
    """Bytes a report holds, as the cache budget counts them (per agent and per task it qualifies)."""
    tasks = sum(a.repeatability.qualifying_tasks + a.repeatability.excluded_tasks for a in report.agents)
    return 200 * tasks + 20_000 * len(report.agents) + 10_000


def sandbox_report(scored_data: Scored, policy: Policy) -> Report:
    """The current dataset scored under a sandbox policy, once per dataset and policy (whose version names its
    constants' hash), in the shared bounded cache: no client's clear-cache message can empty it."""
    dataset = current_dataset()
    key = ("sandbox", dataset.kind, dataset.digest, dataset.exclude_invalid, policy.version)
    return _held_or_computed(key, lambda: score_runs(scored_data.runs, policy), report_size,
                             "Scoring under the sandbox policy…")


def dataset_info(scored_data: Scored) -> DatasetInfo:
    """The shown dataset as a download names it: a file (or an import of files) by its digest; a database
    table, which has no bytes of its own, by the sha256 of its validated runs (computed once, cached)."""
    return dataset_info_of(current_dataset(), scored_data)


def dataset_info_of(dataset: Dataset, scored_data: Scored) -> DatasetInfo:
    """:func:`dataset_info` for any dataset (one of the Compare page's two, say)."""
    loaded = scored_data.loaded
    counts: dict[str, Any] = {"rows_read": loaded.rows_read, "excluded_rows": loaded.excluded_rows}
    identity = file_identity(dataset)
    if identity is None:  # a database table
        sha = _cache().get_or_compute(("runs_sha256", dataset.kind, dataset.digest, dataset.exclude_invalid),
                                      lambda: runs_sha256(scored_data.runs), lambda _: 200)
        return DatasetInfo(dataset.name, sha, len(loaded.runs), kind="table",
                           hash_of="validated runs (CSV, run_id order)", **counts)
    return DatasetInfo(dataset.name, identity[0], len(loaded.runs),
                       kind="import" if dataset.kind == "import" else "file", hash_of=identity[1], **counts)


def file_identity(dataset: Dataset) -> tuple[str, str] | None:
    """The sha256 that names a dataset of files everywhere (notes, badges, links, receipts, the pack) and what it
    is a hash of (``scoring.outputs.downloads.import_identity``): one file by its bytes; None for a database table,
    named by its validated runs (:func:`dataset_info`)."""
    if dataset.kind in ("sample", "upload"):
        return dataset.digest, "file bytes"
    if dataset.kind == "import":  # the digest was made by import_digest, from the same fields
        if one_file_as_is(dataset.sources, dataset.experiments, dataset.mapping):
            return dataset.sources[0], "file bytes"
        return dataset.digest, "import of the files"
    return None


def link_hashes(dataset: Dataset) -> tuple[str, ...]:
    """The hashes a link's ``sha`` may name for this dataset: its identity (what links write), and its import
    digest, which links made before 2026-12-02 wrote for one harness file."""
    identity = file_identity(dataset)
    return (identity[0], dataset.digest) if identity else ()


def pack_downloads(scored_data: Scored, link: str, view: Mapping[str, Any]) -> None:
    """The review pack of the current view as HTML (and PDF when Chromium is here), built when clicked.

    ``view`` is the view state (``explorer.state``): the radar's weights and agents, the agent shown, the
    bootstrap settings and the sandbox's changed constants all go into the pack.
    """
    from scoring import RADAR_AXES
    from scoring.contract.policy import policy_from_dict, policy_to_dict

    from .pack import PackView, build_pack, chromium_for_the_app, pack_pdf

    dataset, info = current_dataset(), dataset_info(scored_data)
    replicates, seed, changes = int(view["replicates"]), int(view["seed"]), dict(view.get("policy") or {})
    # The weights in force, as the radar page applies them: a Team Scorecard's exact weights while it is in force
    # (the sliders show them only to the nearest 5%), else the sliders'.
    from .scorecards import applied_weights

    weights = applied_weights({a: w / 100 for a, w in zip(RADAR_AXES, view["weights"])})
    sandbox = policy_from_dict({**policy_to_dict(CANONICAL_POLICY), **changes}) if changes else None
    from .tables import focus_and_neighbours

    # The radar the link opens: the agents the view names, else the agent in focus and its neighbours.
    radar_agents = view.get("agents") or focus_and_neighbours([a.agent_id for a in scored_data.report.agents],
                                                              view.get("agent"))
    pack_view = PackView(weights=weights, radar_agents=tuple(radar_agents), agent=view.get("agent"), link=link)

    def document() -> str:  # runs on the click: everything it reads was captured above
        try:
            intervals = _bootstrapped(scored_data, dataset, replicates, seed)
        except untrusted.BootstrapStopped:
            intervals = None  # the pack says it has none
        return build_pack(scored_data.report, info, intervals=intervals, view=pack_view, runs=scored_data.runs,
                          sandbox=score_runs(scored_data.runs, sandbox) if sandbox is not None else None)

    policy_version = sandbox.version if sandbox is not None else CANONICAL_POLICY.version
    st.download_button("Review pack (HTML)", document, file_name=file_name("review", info, policy_version, "html"),
                       mime="text/html", icon=":material/download:", width="stretch", on_click="ignore",
                       key="pack_html",
                       help="One self-contained file for the minutes: every chart and table of this view, the "
                            "methodology and the dataset's sha256; opens offline.")
    if chromium_for_the_app() is not None:
        st.download_button("Review pack (PDF)", lambda: pack_pdf(document()), on_click="ignore",
                           key="pack_pdf",
                           file_name=file_name("review", info, policy_version, "pdf"), mime="application/pdf",
                           icon=":material/picture_as_pdf:", width="stretch",
                           help="The same pack printed to A4 by headless Chromium (takes a few seconds)")
