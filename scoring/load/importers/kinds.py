"""The harness kinds, and whether an input is a runs table at a glance: what the command line needs before it
knows an importer is wanted (no importer, and no pandas, is loaded for a runs file scored by DuckDB).
"""

from __future__ import annotations

from pathlib import Path

KINDS = ("tau2", "tau-bench", "inspect", "terminal-bench", "runs")
ZIP_MAGIC = b"PK\x03\x04"  # an Inspect AI .eval log is a zip archive


def runs_at_a_glance(path: str) -> bool | None:
    """Whether one input is a runs table (SPEC 1) from its first bytes, or None where the importers' detection
    must decide (``scoring.load.importers.api.looks_like_runs_file``).

    Only a file that starts like a zip archive or JSON needs the detection; anything else (CSV, JSON Lines
    text, Parquet) is a runs table without reading further, so a large runs file is not read twice. A file
    that cannot be read is left to the loader, which says why in its own words; a folder is a harness's.
    """
    try:
        if Path(path).is_dir():
            return False
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except (OSError, ValueError):
        return True  # the loader says why it cannot be read
    head = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not head.startswith(ZIP_MAGIC) and head[:1] not in (b"{", b"["):
        return True
    return None
