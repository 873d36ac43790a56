"""A CSV file's header line read with the standard library alone: the column names both the Arrow loader and
the SQL engine check before they read a row (the SQL engine's report never imports Arrow or pandas for it).
"""

from __future__ import annotations

import csv
import mmap


def csv_header(data: bytes) -> list[str] | None:
    """The header row's names, or None when the header is not plain (let the text reader decide)."""
    end = data.find(b"\n")
    first = (data if end < 0 else data[:end]).rstrip(b"\r")
    if first.startswith(b"\xef\xbb\xbf"):
        first = first[3:]
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        names = next(csv.reader([text]), None)
    except csv.Error:
        return None
    return names or None


def nul_byte(data: bytes | mmap.mmap) -> str | None:
    """Where a text file holds a NUL byte, in words ("byte 233, line 3"), or None: no text holds one (an image, an
    archive or random bytes renamed .csv; or one stray byte that would otherwise end an id as ``a\\x001``). The
    whole file is searched (memchr: about 10 ms for 100 MB), so where the byte lies never decides; text in UTF-16 or
    UTF-32, which has NUL bytes, starts with its byte-order mark and is not searched.

    >>> nul_byte(b"run_id\\nr\\x001\\n"), nul_byte(b"\\xff\\xfer\\x00"), nul_byte(b"ok\\n")
    ('byte 9, line 2', None, None)
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:4] == b"\x00\x00\xfe\xff":  # UTF-32's marks too
        return None
    at = data.find(b"\x00")
    if at < 0:
        return None
    line = data[:at].count(b"\n") + 1  # a memory map has no count(): the bytes before it (a refusal's cost only)
    return f"byte {at + 1:,}, line {line:,}"
