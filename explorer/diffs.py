"""The Compare page's two-datasets mode: a baseline and a new dataset compared agent by agent.

Each of the two is the sample, one uploaded file or (where the operator offers one) a database table,
chosen on the page without touching the sidebar's dataset, and scored by the sidebar's path
(``explorer.data.scored_dataset``: an upload is read, validated and scored in a bounded worker process,
never in the server) into the same shared cache. The comparison is ``scoring.analysis.diff`` (the CLI's
``diff BASELINE NEW``), computed once per pair of datasets and bootstrap settings in that cache.

The link carries both datasets (``baseline=`` and ``new=``, :func:`explorer.state.dataset_token`): a
fresh browser opening it chooses the same sources and names each uploaded file it waits for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import streamlit as st

from scoring.analysis.diff import Diff, check_pairs

from . import data, state, untrusted
from . import format as fmt
from . import settings as settings_module

SideName = Literal["baseline", "new"]
SIDES: tuple[SideName, ...] = ("baseline", "new")
TITLES: dict[SideName, str] = {"baseline": "Baseline", "new": "New"}
SAMPLE, UPLOAD, TABLE = "Sample data", "Upload a file", "PostgreSQL table"
Pairs = tuple[tuple[str, str], ...]  # (baseline id, new id): a baseline agent compared under the new dataset's id


@dataclass(frozen=True)
class Side:
    """One of the two datasets as the viewer chose it: what to score, or why there is nothing to score yet."""

    name: SideName
    dataset: data.Dataset | None = None
    files: tuple[Any, ...] = ()  # an upload's file (a reference to the uploader's, never a copy of its bytes)
    waiting: str | None = None  # the sha256 prefix of the file a link named, until a file is chosen
    problem: str | None = None  # why the chosen file is no dataset (a saved mapping)


def source_of(dataset: data.Dataset) -> state.Source:
    """The link's name for a dataset (its kind, and its sha256 or connection and table).

    >>> source_of(data.Dataset("a.csv", "ab" * 32, "upload")).sha
    'abababababababababababababababababababababababababababababababab'
    """
    if dataset.kind in ("upload", "import"):
        return state.Source(dataset.kind, sha=data.link_hashes(dataset)[0])
    if dataset.kind == "connection":
        return state.Source("connection", connection=dataset.connection, table=dataset.table)
    return state.Source()


def offered(source: state.Source, connections: Mapping[str, tuple[str, ...]]) -> str | None:
    """Why this deployment cannot open the database table a link names (None: it can, or none is named).

    >>> offered(state.Source("connection", connection="prod", table="runs"), {"prod": ("runs",)}) is None
    True
    >>> offered(state.Source("connection", connection="prod", table="secrets"), {"prod": ("runs",)})
    'db:prod/secrets is not a connection and table this deployment offers; the sample data is used'
    """
    if source.kind != "connection" or source.table in connections.get(source.connection or "", ()):
        return None
    return f"{state.dataset_token(source)} is not a connection and table this deployment offers; the sample data " \
           "is used"


def _kind_key(side: SideName) -> str:
    return f"diff_{side}_kind"


def choose(side: SideName, deployment: settings_module.Settings) -> Side:
    """The widgets choosing one dataset (seeded from the view state, which a link may have set), and the state
    written back: the dataset chosen, or the upload a link names while no file is chosen."""
    kinds = [SAMPLE, UPLOAD] + ([TABLE] if deployment.connections else [])
    connections = {c.name: tuple(c.tables) for c in deployment.connections}
    source = state.dataset_source(state.get(side))
    key = _kind_key(side)
    if key not in st.session_state:  # a first visit (or the page was left): the state says which source
        refused = offered(source, connections)
        if refused:
            st.warning(fmt.plain(f"{side}: {refused}"), icon=":material/link_off:")
            source = state.Source()
        st.session_state[key] = {"upload": UPLOAD, "import": UPLOAD, "connection": TABLE}.get(source.kind, SAMPLE)
        if source.kind == "connection":
            st.session_state[f"diff_{side}_connection"] = source.connection
            st.session_state[f"diff_{side}_table"] = source.table
    kind = st.radio(f"{TITLES[side]} dataset", kinds, key=key, horizontal=True)
    if kind == TABLE:
        name = st.selectbox("Connection", list(connections), key=f"diff_{side}_connection")
        table = st.selectbox("Table", connections.get(name or "", ()), key=f"diff_{side}_table")
        if not name or not table:
            return Side(side)
        dataset = data.connection_dataset(name, table)
    elif kind == UPLOAD:
        fresh = f"diff_{side}_upload" not in st.session_state  # before it is drawn: drawn anew, or drawn before
        # the file picked replaces the one kept even when the server did not keep it (then said in words)
        upload = data.kept_upload(_kept_upload(side, st.file_uploader(
            f"{TITLES[side]}: runs or harness results (one file)", type=data.UPLOAD_TYPES, key=f"diff_{side}_upload",
            help="Read, validated and scored like the sidebar's upload, within the same limits. The sidebar's "
                 "dataset is left as it is."), fresh=fresh))
        if upload is None:
            waiting = source.sha if source.kind in ("upload", "import") else None
            return Side(side, waiting=waiting)
        chosen = data.file_dataset(upload, f"diff_{side}_facts")
        if isinstance(chosen, str):
            return Side(side, problem=chosen)
        hashes = data.link_hashes(chosen)
        if source.sha and source.kind in ("upload", "import") and not any(h.startswith(source.sha) for h in hashes):
            st.caption(f":material/info: This file's sha256 starts with `{hashes[0][:state.SHA_CHARS]}`; the "
                       f"link named `{source.sha}`. The link now names this file.")
        dataset = chosen
        state.put(side, state.dataset_token(source_of(dataset)))
        return Side(side, dataset, (upload,))
    else:
        dataset = data.sample_dataset()
    state.put(side, state.dataset_token(source_of(dataset)))
    return Side(side, dataset)


def _kept_upload(side: SideName, upload: Any, *, fresh: bool) -> Any:
    """The file the viewer picked for ``side``, kept past a redraw of its uploader.

    Streamlit drops a widget it does not draw, so the page's mode switched to two agents and back (or another page
    and back) used to lose the file. The uploader's file is kept in the session (a reference, not a copy); an
    uploader drawn anew, empty, gives it back until the viewer picks another file or another source. An uploader
    the viewer emptied (its x) gives nothing back.
    """
    kept_key, restored_key = f"diff_{side}_kept", f"diff_{side}_restored"
    if upload is not None:
        st.session_state[kept_key] = upload
        st.session_state.pop(restored_key, None)
        return upload
    if kept_key in st.session_state and (fresh or st.session_state.get(restored_key)):
        st.session_state[restored_key] = True
        kept = st.session_state[kept_key]
        name = fmt.plain(fmt.short(getattr(kept, "name", "the file")))
        st.caption(f":material/history: Still comparing {name}, picked before the page redrew its uploader: upload "
                   "another file to replace it, or choose another source.")
        return kept
    st.session_state.pop(kept_key, None)
    st.session_state.pop(restored_key, None)
    return None


def scored(side: Side) -> data.Scored | data.Refused | None:
    """The side's scores (the shared cache, the sidebar's path), or None when it has nothing to score yet."""
    if side.dataset is None:
        return None
    return data.scored_dataset(side.dataset, list(side.files) or None)


def diff_size(d: Diff) -> int:
    """Bytes a diff holds, as the cache budget counts them (each agent's two reports and its task table)."""
    tasks = sum(int(a.comparison.tasks.memory_usage(deep=True).sum()) for a in d.agents)
    return tasks + 2 * 20_000 * len(d.agents) + 10_000


def pairs_refused(base: data.Scored, scored_new: data.Scored, pairs: Pairs) -> str | None:
    """Why the two datasets cannot compare ``pairs`` (``scoring.analysis.diff.check_pairs``, the command line's
    rule), or None where they can."""
    try:
        check_pairs({a.agent_id for a in base.report.agents}, {a.agent_id for a in scored_new.report.agents},
                    dict(pairs))
    except ValueError as exc:
        return str(exc)
    return None


def compare(baseline: Side, base: data.Scored, new: Side, scored_new: data.Scored, replicates: int,
            seed: int, pairs: Pairs = ()) -> Diff | str:
    """``scoring.analysis.diff.diff_runs`` of the two datasets under the canonical policy, in a worker under the
    deployment's limits (``untrusted.diff``), once per pair of datasets, bootstrap settings and ``pairs`` (judged
    by :func:`pairs_refused` before), in the shared bounded cache; where a limit stopped it, the reason (kept the
    same way: a rerun does not spend the limit again)."""
    assert baseline.dataset is not None and new.dataset is not None
    b, n = baseline.dataset, new.dataset
    limits = settings_module.current().limits

    def compute() -> Diff | str:
        try:
            return untrusted.diff(base.runs, scored_new.runs, replicates, seed, (b.name, n.name), limits, pairs)
        except untrusted.BootstrapStopped as exc:
            return str(exc)

    return data.derived("diff", (n.kind, n.digest, n.exclude_invalid, replicates, seed, pairs), compute,
                        lambda got: diff_size(got) if isinstance(got, Diff) else 1_000,
                        f"Comparing the two datasets agent by agent ({replicates:,} bootstrap replicates each)…",
                        dataset=b)


def waiting_text(side: Side) -> str:
    """What the page says while one dataset waits for the file a link named (markdown; the prefix is hex)."""
    return (f"The {side.name} dataset is an uploaded file whose sha256 starts with `{side.waiting}`. Upload that file "
            f"as the {side.name} dataset to see the comparison (a link names the file, never its content).")
