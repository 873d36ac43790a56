"""Bounds on the work any input may cause: rows, decoded memory, columns, line length, JSON nesting.

A file, a policy, a receipt or a database table comes from someone we do not know. Every reader
checks these limits *before* it decompresses or parses, so a small file can never ask for a large
amount of memory or time. The refusal names the limit and both numbers.

The one setting an operator usually changes is the memory budget: the decoded size of the runs a
single file (or table) may hold in memory, 1 GB by default (sized for a 24 GB, 2-core machine
serving a few viewers at once). The CLI takes ``--max-memory`` and ``--max-rows``; the app reads
``EXPLORER_MAX_MEMORY`` and ``EXPLORER_MAX_ROWS`` from the environment (see ``explorer.settings``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


@dataclass(frozen=True)
class Limits:
    """How much one input may hold: every reader of runs checks these before it parses."""

    max_rows: int = 5_000_000
    max_memory: int = 10**9  # decoded bytes of runs (text as UTF-8, numbers as 8 bytes)
    max_columns: int = 1_000
    max_line_bytes: int = 16 * 2**20  # one CSV line or JSON Lines record
    max_json_depth: int = 64

    def __post_init__(self) -> None:
        for name in ("max_rows", "max_memory", "max_columns", "max_line_bytes", "max_json_depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")


DEFAULT_LIMITS = Limits()


def row_limit_refusal(count: int | None, limit: int, what: str = "rows", *, about: bool = False,
                      before_reading: bool = False) -> str:
    """The one text that refuses a source holding more than ``limit`` runs (``Limits.max_rows``): files,
    harness logs and database tables alike. ``count`` None: a table read in batches, stopped past the limit.

    >>> row_limit_refusal(3, 2, "simulations")
    '3 simulations is more than the limit of 2 (max_rows)'
    >>> row_limit_refusal(None, 2, before_reading=False)
    'the table has more rows than the limit of 2 (max_rows)'
    >>> row_limit_refusal(12_000, 100, about=True, before_reading=True)
    'about 12,000 rows is more than the limit of 100 (max_rows); refused before reading'
    """
    what_of = f"the table has more {what} than" if count is None else f"{'about ' if about else ''}{count:,} {what} " \
        "is more than"
    return f"{what_of} the limit of {limit:,} (max_rows)" + ("; refused before reading" if before_reading else "")


def parse_size(text: str | int) -> int:
    """'1GB' -> 1_000_000_000, '512MiB' -> 536_870_912, 2000 -> 2000 (bytes).

    Examples
    --------
    >>> parse_size("1.5 GB")
    1500000000
    >>> parse_size("256MiB")
    268435456
    """
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", str(text))
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise ValueError(f"not a size: {text!r} (e.g. 500MB, 2GB, 1GiB)")
        value = int(float(match.group(1)) * _UNITS[unit])
    if value < 1:
        raise ValueError(f"a size must be at least 1 byte, got {text!r}")
    return value


def format_size(n: float) -> str:
    """Bytes for a person: 1.2 GB, 340 MB, 12 KB, 512 bytes.

    Examples
    --------
    >>> format_size(1_234_567_890)
    '1.2 GB'
    """
    for unit, size in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"

