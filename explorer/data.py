"""The data source shared by every page: sample or upload, validated and scored once (cached)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from . import format as fmt

from scoring import CANONICAL_POLICY, LoadedRuns, Report, RunsValidationError, load_runs, score_runs

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PATH = ROOT / "sample_data" / "runs.csv"
UPLOAD_TYPES = ["csv", "json", "jsonl", "ndjson", "parquet", "pq"]
STATE_KEY = "dataset"


@dataclass(frozen=True)
class Dataset:
    """Which file is loaded: enough to find its bytes and its cached scores."""

    name: str
    digest: str
    is_sample: bool
    exclude_invalid: bool = False
    table: str | None = None  # a PostgreSQL table (its URL stays in session state, never on screen)


@dataclass(frozen=True)
class Scored:
    loaded: LoadedRuns
    report: Report

    @property
    def runs(self):
        return self.loaded.runs


@dataclass(frozen=True)
class Refused:
    error: RunsValidationError


@st.cache_resource(max_entries=6, show_spinner="Validating and scoring the runs…")
def _score(digest: str, name: str, exclude_invalid: bool, _data: bytes) -> Scored | Refused:
    # Keyed by content digest: the bytes themselves are not hashed on every rerun, and the
    # result is shared, never copied (treat it as read-only).
    try:
        loaded = load_runs(_data, name=name, exclude_invalid=exclude_invalid)
    except RunsValidationError as error:
        return Refused(error)
    return Scored(loaded, score_runs(loaded.runs, CANONICAL_POLICY))


@st.cache_resource
def _sample_bytes() -> tuple[bytes, str]:
    data = SAMPLE_PATH.read_bytes()
    return data, hashlib.sha256(data).hexdigest()


def sample_dataset() -> Dataset:
    return Dataset(SAMPLE_PATH.name, _sample_bytes()[1], is_sample=True)


def use_upload(name: str, data: bytes) -> Dataset:
    """Make an uploaded file the current dataset (its bytes stay in this session only)."""
    digest = hashlib.sha256(data).hexdigest()
    current = st.session_state.get(STATE_KEY)
    if current is None or current.digest != digest:
        st.session_state["upload_bytes"] = data
        st.session_state[STATE_KEY] = Dataset(name, digest, is_sample=False)
    return st.session_state[STATE_KEY]


def use_postgres(url: str, table: str) -> Dataset:
    """Make a PostgreSQL table the current dataset (read-only; the URL is kept out of every label)."""
    from scoring.sql_engine import redact

    digest = hashlib.sha256(f"{url}\n{table}".encode()).hexdigest()
    st.session_state["db_url"] = url
    st.session_state.pop("upload_bytes", None)
    st.session_state[STATE_KEY] = Dataset(f"{table} @ {_safe_location(url)}", digest, is_sample=False, table=table)
    return st.session_state[STATE_KEY]


def _safe_location(url: str) -> str:
    """host/database of a connection URL, without user or password."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        return f"{parts.hostname or 'localhost'}{':' + str(parts.port) if parts.port else ''}{parts.path or ''}"
    except ValueError:
        return "database"


@st.cache_resource(max_entries=4, show_spinner="Reading the runs table (read-only)…")
def _score_db(digest: str, table: str, exclude_invalid: bool, _url: str) -> Scored | Refused:
    from scoring.sql_engine import load_postgres_runs

    try:
        loaded = load_postgres_runs(_url, table, exclude_invalid=exclude_invalid)
    except RunsValidationError as error:
        return Refused(error)
    return Scored(loaded, score_runs(loaded.runs, CANONICAL_POLICY))


def use_sample() -> None:
    st.session_state[STATE_KEY] = sample_dataset()
    st.session_state.pop("upload_bytes", None)


def current_dataset() -> Dataset:
    dataset = st.session_state.get(STATE_KEY)
    stale_upload = not dataset.is_sample and dataset.table is None and "upload_bytes" not in st.session_state \
        if dataset else False
    stale_db = dataset is not None and dataset.table is not None and "db_url" not in st.session_state
    if dataset is None or stale_upload or stale_db:
        dataset = sample_dataset()
        st.session_state[STATE_KEY] = dataset
    return dataset


def exclude_invalid_rows() -> None:
    dataset = current_dataset()
    st.session_state[STATE_KEY] = Dataset(dataset.name, dataset.digest, dataset.is_sample, exclude_invalid=True,
                                          table=dataset.table)


def scored() -> Scored | Refused:
    dataset = current_dataset()
    if dataset.table is not None:
        return _score_db(dataset.digest, dataset.table, dataset.exclude_invalid, st.session_state["db_url"])
    data = _sample_bytes()[0] if dataset.is_sample else st.session_state["upload_bytes"]
    return _score(dataset.digest, dataset.name, dataset.exclude_invalid, data)


def require_scores() -> Scored:
    """The current scores, or (for a refused file) the validation report and a stop."""
    result = scored()
    if isinstance(result, Refused):
        show_refusal(result.error)
        st.stop()
    return result


def show_refusal(error: RunsValidationError) -> None:
    dataset = current_dataset()
    st.error(f"The file '{fmt.plain(dataset.name)}' was refused: {len(error.problems):,} problem(s) found. "
             "Nothing was scored; fix the file or exclude the invalid rows.", icon=":material/block:")
    st.dataframe(error.table(), hide_index=True, width="stretch",
                 column_config={"row": st.column_config.NumberColumn("Row", format="%d"),
                                "column": "Column", "value": "Value", "reason": "Reason"})
    if error.excludable and error.invalid_rows:
        st.button(f"Exclude the {error.invalid_rows:,} invalid row(s) of {error.rows_read:,} and score the rest",
                  on_click=exclude_invalid_rows, type="primary", key="exclude_invalid")
        st.caption("Scores computed that way say how many rows were excluded.")
    else:
        st.caption("This problem concerns the whole file, so no row can be excluded to rescue it.")


def source_caption(result: Scored | Refused) -> str:
    dataset = current_dataset()
    label = "Sample data" if dataset.is_sample else "PostgreSQL" if dataset.table else "Uploaded"
    if isinstance(result, Refused):
        return f"{label}: {dataset.name} — refused ({result.error.invalid_rows:,} invalid row(s))"
    loaded = result.loaded
    agents = len(result.report.agents)
    return (f"{label}: {dataset.name} · {len(loaded.runs):,} runs · {agents:,} agents · "
            f"{loaded.excluded_rows:,} excluded row(s)")


@st.cache_resource(max_entries=6, show_spinner="Bootstrapping intervals…")
def _intervals(digest: str, exclude_invalid: bool, replicates: int, seed: int, _scored: Scored):
    from scoring.uncertainty import bootstrap_intervals

    return bootstrap_intervals(_scored.runs, _scored.report, replicates=replicates, seed=seed)


def intervals(scored_data: Scored, replicates: int, seed: int):
    """Bootstrap intervals of the current dataset, computed once per (replicates, seed)."""
    dataset = current_dataset()
    return _intervals(dataset.digest, dataset.exclude_invalid, replicates, seed, scored_data)


@st.cache_resource(max_entries=8, show_spinner="Scoring under the sandbox policy…")
def _sandbox_report(digest: str, exclude_invalid: bool, version: str, _policy, _scored: Scored):
    return score_runs(_scored.runs, _policy)


def sandbox_report(scored_data: Scored, policy):
    """The current dataset scored under a sandbox policy (cached per dataset and policy label)."""
    dataset = current_dataset()
    return _sandbox_report(dataset.digest, dataset.exclude_invalid, policy.version, policy, scored_data)
