"""A CSV file's header line read with the standard library alone: the column names both the Arrow loader and
the SQL engine check before they read a row (the SQL engine's report never imports Arrow or pandas for it).
"""

from __future__ import annotations

import csv


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
