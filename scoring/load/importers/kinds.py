"""The harness kinds, and whether an input is a runs table at a glance: what the command line needs before it
knows an importer is wanted (no importer, and no pandas, is loaded for a runs file scored by DuckDB).
"""

from __future__ import annotations

from pathlib import Path

from scoring.contract.limits import special_file

KINDS = ("tau2", "tau-bench", "inspect", "terminal-bench", "runs")
ZIP_MAGIC = b"PK\x03\x04"  # an Inspect AI .eval log is a zip archive
# Byte-order marks, longest first (UTF-32's begins like UTF-16's): Windows PowerShell writes JSON as UTF-16.
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"),
         (b"\xfe\xff", "utf-16-be"), (b"\xef\xbb\xbf", "utf-8"))


def text_head(head: bytes) -> bytes:
    r"""A file's first bytes as UTF-8 without a byte-order mark (a UTF-16 or UTF-32 file's decoded), to be told
    by its first characters.

    >>> text_head("\ufeff{}".encode("utf-16-le")), text_head(b"\xef\xbb\xbf[1]"), text_head(b"run_id")
    (b'{}', b'[1]', b'run_id')
    """
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return head[len(bom):].decode(codec, errors="ignore").encode("utf-8")
    return head


def runs_at_a_glance(path: str) -> bool | None:
    """Whether one input is a runs table (SPEC 1) from its first bytes, or None where the importers' detection
    must decide (``scoring.load.importers.api.looks_like_runs_file``).

    Only a file that starts like a zip archive or JSON needs the detection; anything else (CSV, JSON Lines
    text, Parquet) is a runs table without reading further, so a large runs file is not read twice. A file
    that cannot be read is left to the loader, which says why in its own words; a folder is a harness's.
    """
    if special_file(path):
        return True  # never opened here (a pipe would wait for a writer): the loader refuses it in words
    try:
        if Path(path).is_dir():
            return False
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except (OSError, ValueError):
        return True  # the loader says why it cannot be read
    head = text_head(head).lstrip()
    if not head.startswith(ZIP_MAGIC) and head[:1] not in (b"{", b"["):
        return True
    return None
