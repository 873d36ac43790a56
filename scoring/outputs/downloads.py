"""What every download carries: the dataset it was computed on, the policy, the agent, the date.

A file attached to meeting minutes must say what it is without the app beside it, and two
downloads must never share a name: each file name names the agent (when there is one), the policy
version and the first hex digits of the dataset's sha256, and each file's content carries the same
facts in full. Plain functions (no Streamlit): the app and ``python -m scoring pack`` use them.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from scoring.measures.report import Report, neutralize_cell

if TYPE_CHECKING:
    from scoring.analysis.uncertainty import Intervals

SHORT_SHA = 12  # hex digits of the dataset's sha256 in a file name
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class DatasetInfo:
    """The dataset a result was computed on, as a download names it.

    ``sha256`` identifies the input: the bytes of a file (the sample, an upload, the CLI's one runs
    file), the files of an import (:func:`import_digest`), or the content of a database table's
    validated runs (:func:`runs_sha256`); ``hash_of`` says which.
    """

    name: str
    sha256: str
    runs: int
    kind: str = "file"
    hash_of: str = "file bytes"
    rows_read: int | None = None
    excluded_rows: int = 0

    @property
    def short_sha(self) -> str:
        return self.sha256[:SHORT_SHA]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "sha256": self.sha256, "sha256_of": self.hash_of,
                "runs": self.runs, "rows_read": self.rows_read if self.rows_read is not None else self.runs,
                "excluded_rows": self.excluded_rows}


def file_sha256(path: str | Path) -> str:
    """sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def import_digest(names: Iterable[str], sources: Iterable[str], experiments: Iterable[str | None],
                  mapping: str | None) -> str:
    """One digest for an import: every file's bytes (their sha256), name and experiment tag, and the mapping.

    The app's upload of several (or harness) files and ``python -m scoring pack`` on the same files give
    the same digest.
    """
    parts = ["import"] + [f"{sha}\t{name}\t{tag or ''}" for sha, name, tag in zip(sources, names, experiments)]
    parts.append(mapping or "")
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def import_identity(names: Iterable[str], sources: Iterable[str], experiments: Iterable[str | None],
                    mapping: str | None) -> tuple[str, str]:
    """The one sha256 that names an import in every note, badge, link, receipt and pack, and what it is a hash of.

    One file read as it stands (no experiment tag, no mapping) is named by the sha256 of its bytes, as a runs
    file is: whoever has the file can check it with ``sha256sum``. Several files, a tag or a mapping change what
    the runs are, so :func:`import_digest` (stated as "import of the files") names them.

    >>> import_identity(["a.json"], ["ab" * 32], [None], None) == ("ab" * 32, "file bytes")
    True
    >>> import_identity(["a.json"], ["ab" * 32], ["v2"], None)[1]
    'import of the files'
    """
    names, sources, experiments = list(names), list(sources), list(experiments)
    if one_file_as_is(sources, experiments, mapping):
        return sources[0], "file bytes"
    return import_digest(names, sources, experiments, mapping), "import of the files"


def one_file_as_is(sources: Iterable[str], experiments: Iterable[str | None], mapping: str | None) -> bool:
    """An import of one file read as it stands (no experiment tag, no mapping): named by its bytes' sha256."""
    return len(list(sources)) == 1 and not mapping and not any(experiments)


_RUN_COLUMNS = ("run_id", "agent_id", "task_id", "status", "success", "latency_ms", "cost_usd", "steps", "finished_at")


def runs_sha256(runs: pd.DataFrame) -> str:
    """sha256 of validated runs as CSV (the SPEC 1 columns, rows in run_id order): a database table has no
    bytes of its own to hash, so its content is hashed (explorer-defined)."""
    frame = runs[[c for c in _RUN_COLUMNS if c in runs.columns]].sort_values("run_id", kind="stable")
    return hashlib.sha256(frame.to_csv(index=False).encode("utf-8", "surrogatepass")).hexdigest()


def slug(text: str, width: int = 48) -> str:
    """``text`` as a file-name part: ASCII letters, digits, '.', '_' and '-'; when anything had to change, the
    first hex digits of the text's sha256 are appended so two names never collide ('a/b' and 'a b')."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    safe = _SAFE.sub("-", ascii_text).strip("-.")[:width].strip("-.")
    if safe == text and safe:
        return safe
    tag = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    return f"{safe}-{tag}" if safe else tag


def file_name(what: str, dataset: DatasetInfo, policy_version: str, extension: str, *,
              agent: str | None = None) -> str:
    """``<what>_<agent>_<policy>_<dataset sha>.<extension>``: e.g.
    ``receipt_swift-lite_2026-07-zero-success-v1_3f2a9c1b0d4e.json``."""
    parts = [what] + ([slug(agent)] if agent is not None else []) + [slug(policy_version, 80), dataset.short_sha]
    return "_".join(parts) + "." + extension


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def report_json(report: Report, dataset: DatasetInfo, *, intervals: Intervals | None = None,
                generated_at: str | None = None) -> str:
    """The SPEC 6 report with the dataset it was computed on and the date; with ``intervals``, the bootstrap
    settings and each agent's intervals and tie group (as ``python -m scoring report --intervals``)."""
    doc = report.to_json()
    out: dict[str, Any] = {"policy_version": doc["policy_version"], "dataset": dataset.to_json(),
                           "generated_at": generated_at or now_utc()}
    if intervals is not None:
        out["bootstrap"] = intervals.to_json()
        for agent in doc["agents"]:
            agent["intervals"] = intervals.agents[agent["agent_id"]].to_json()
    out["agents"] = doc["agents"]
    return json.dumps(out, indent=2, allow_nan=False) + "\n"


def report_csv(report: Report, dataset: DatasetInfo, *, intervals: Intervals | None = None,
               generated_at: str | None = None) -> str:
    """The flat report as CSV, each row naming the policy and the dataset; with ``intervals``, each score's
    interval and tie group. Text cells are neutralized against spreadsheet formula injection."""
    frame = report.csv_frame()
    if intervals is not None:
        ivs = [intervals.agents[a.agent_id] for a in report.agents]  # the frame's rows, in report order
        frame["headline_low"] = [None if x.headline is None else x.headline.low for x in ivs]
        frame["headline_high"] = [None if x.headline is None else x.headline.high for x in ivs]
        frame["tie_group"] = pd.array([x.tie_group for x in ivs], dtype="Int64")
        frame["bootstrap_replicates"] = intervals.replicates
        frame["bootstrap_seed"] = intervals.seed
    return _with_provenance(frame, report.policy.version, dataset, generated_at).to_csv(index=False)


def _with_provenance(frame: pd.DataFrame, policy_version: str, dataset: DatasetInfo,
                     generated_at: str | None) -> pd.DataFrame:
    return frame.assign(policy_version=policy_version, dataset_name=neutralize_cell(dataset.name),
                        dataset_sha256=dataset.sha256, generated_at=generated_at or now_utc())


def rank_changes_csv(diff: pd.DataFrame, canonical_version: str, sandbox_version: str, dataset: DatasetInfo,
                     changed: dict[str, Any], *, generated_at: str | None = None) -> str:
    """The sandbox's rank-change table as CSV: both policy versions, the changed constants (JSON) and the
    dataset on every row."""
    frame = diff.copy()
    frame["Agent"] = frame["Agent"].map(neutralize_cell)
    frame["Crossings"] = frame["Crossings"].map(neutralize_cell)
    frame = frame.assign(canonical_policy=canonical_version, changed_constants=json.dumps(changed, sort_keys=True))
    return _with_provenance(frame, sandbox_version, dataset, generated_at).rename(
        columns={"policy_version": "sandbox_policy"}).to_csv(index=False)
