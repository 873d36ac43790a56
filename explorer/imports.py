"""Harness imports in the app: which uploads are imported, and the import report as safe markdown.

Plain functions (no Streamlit): the data source (``explorer.data``) and the pages call them, and
the tests call them directly. Every piece of text that comes from a file (names, columns, values,
the importer's own descriptions, which quote them) is escaped with ``explorer.format.plain``.
"""

from __future__ import annotations

from scoring.contract.limits import Limits
from scoring.load.importers import ImportReport, detect
from scoring.load.runs import RunsValidationError

from .format import counted, plain


def upload_kind(data: bytes, name: str, limits: Limits) -> str:
    """An uploaded file's kind by its content ("tau2", "tau-bench", "inspect" or "runs"), as the CLI decides.

    A file detection refuses is read as a runs table, so the loader reports it in its own words as
    before, except an ``.eval`` file, which only the Inspect importer can read (it then says why not).

    Examples
    --------
    >>> from scoring.contract.limits import DEFAULT_LIMITS
    >>> upload_kind(b"run_id,agent_id\\nr1,a\\n", "runs.csv", DEFAULT_LIMITS)
    'runs'
    >>> upload_kind(b'[{"task_id": 1, "reward": 1.0, "info": {}, "traj": [], "trial": 0}]', "r.json", DEFAULT_LIMITS)
    'tau-bench'
    >>> upload_kind(b"PK\\x03\\x04 broken", "log.eval", DEFAULT_LIMITS)
    'inspect'
    """
    try:
        return detect(data, name, limits=limits)
    except RunsValidationError:
        return "inspect" if name.lower().endswith(".eval") else "runs"


MAX_MAPPING_BYTES = 1_000_000  # mapping_from_json's own limit


def is_mapping_file(data: bytes) -> bool:
    """Whether an uploaded file is a saved column mapping (a JSON object naming its ``mapping_version``).

    Examples
    --------
    >>> is_mapping_file(b'{"mapping_version": 1, "columns": {}}'), is_mapping_file(b'[{"run_id": "r1"}]')
    (True, False)
    """
    head = data[:65_536].lstrip(b"\xef\xbb\xbf").lstrip()
    return len(data) <= MAX_MAPPING_BYTES and head[:1] == b"{" and b'"mapping_version"' in head


def _line(text: object) -> str:
    """One line of escaped text (a newline in a file name must not end a markdown table row or list item)."""
    return plain(" ".join(str(text).split()))


def report_summary(report: ImportReport, uploaded: int | None = None) -> str:
    """'2 files, 20 runs, 1 warning': the import at a glance (numbers only, no file text). ``uploaded``: the files
    given, where some were read with another (a run's metadata or simulations with its results).

    >>> from scoring.load.importers import ImportReport
    >>> report_summary(ImportReport(()), uploaded=11)
    '11 files read as 0, 0 runs, 0 warnings'
    """
    runs = sum(f.runs for f in report.files)
    files = counted(len(report.files), "file", "files")
    if uploaded is not None and uploaded != len(report.files):
        files = f"{counted(uploaded, 'file', 'files')} read as {len(report.files):,}"
    return ", ".join((files, counted(runs, "run", "runs"), counted(len(report.all_warnings()), "warning", "warnings")))


def report_markdown(report: ImportReport) -> list[str]:
    """The import report as markdown blocks: per file its mapping (with source units), what was not
    mapped and its warnings, then the warnings about the files together (SPEC 7)."""
    blocks = []
    previous = None
    for f in report.files:
        first, last = f.row_offset + 1, f.row_offset + f.last_row
        agents = ", ".join(_line(a) for a in f.agents[:10]) + (f" and {len(f.agents) - 10} more"
                                                                if len(f.agents) > 10 else "")
        head = (f"**{_line(f.name)}** · {_line(f.to_json()['format'])} · {f.runs:,} {_line(f.record_label)}(s) "
                f"(rows {first:,}–{last:,}) · {counted(f.tasks, 'task', 'tasks')} · agents: {agents or '—'}")
        if previous is not None and (f.mapped, f.unmapped) == (previous.mapped, previous.unmapped):
            parts = [head, "Mapped as the file above; the same columns are not mapped."]
        else:
            table = ["| runs column | from (source unit and conversion) |", "|---|---|"]
            table += [f"| {_line(m.column)} | {_line(m.source)} |" for m in f.mapped]
            parts = [head, "\n".join(table)]
            if f.unmapped:
                parts.append("Not mapped:\n" + "\n".join(f"- {_line(u)}" for u in f.unmapped))
        previous = f
        if f.warnings:
            parts.append("Warnings:\n" + "\n".join(f"- {_line(w)}" for w in f.warnings))
        blocks.append("\n\n".join(parts))
    if report.warnings:
        blocks.append("**Across files:**\n" + "\n".join(f"- {_line(w)}" for w in report.warnings))
    if report.skipped:  # refused files left out on the viewer's request: named, never dropped silently
        blocks.append(f"**Skipped {counted(len(report.skipped), 'refused file', 'refused files')}** (left out on "
                      "request; the rest is scored):\n" + "\n".join(f"- {_line(name)}: {_line(why)}"
                                                                    for name, why in report.skipped))
    return blocks


__all__ = ["is_mapping_file", "report_markdown", "report_summary", "upload_kind"]
