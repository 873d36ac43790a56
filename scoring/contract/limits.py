"""Bounds on the work any input may cause: rows, decoded memory, columns, line length, JSON nesting.

A file, a policy, a receipt or a database table comes from someone we do not know. Every reader
checks these limits *before* it decompresses or parses, so a small file can never ask for a large
amount of memory or time. The refusal names the limit and both numbers.

The one setting an operator usually changes is the memory budget: the decoded size of the runs a
single file (or table) may hold in memory, 2 GB by default (sized for a 24 GB, 2-core machine
serving a few viewers at once; a 5,000,000-run table needs about 1.5 GB
resident). The CLI takes ``--max-memory`` and ``--max-rows``; the app reads
``EXPLORER_MAX_MEMORY`` and ``EXPLORER_MAX_ROWS`` from the environment (see ``explorer.settings``).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


# The worker's fixed share: Python, pandas, pyarrow, inspect_ai and ``scoring`` loaded (about 170 MB resident,
# measured) and the allocator's slack. With the parent's own interpreter (about 110 MB for the CLI), the whole
# process tree stays within the budget plus 500 MB.
WORKER_OVERHEAD = 350 * 10**6


@dataclass(frozen=True)
class Limits:
    """How much one input may hold: every reader of runs checks these before it parses."""

    max_rows: int = 5_000_000
    max_memory: int = 2 * 10**9  # decoded bytes of runs (UTF-8 text, 8-byte numbers); resident: + worker_overhead
    max_columns: int = 1_000
    max_line_bytes: int = 16 * 2**20  # one CSV line or JSON Lines record
    max_json_depth: int = 64
    max_agents: int = 10_000  # distinct agent ids in one dataset
    max_tasks: int = 100_000  # distinct task ids in one dataset
    max_id_chars: int = 1_000  # characters of one run, agent or task id (each page, chart and link repeats them)
    max_events: int = 100_000  # events in one Inspect sample
    max_cpu_seconds: int = 60  # CPU time to read, validate and score one input, or bootstrap it (a worker's limit)
    worker_overhead: int = WORKER_OVERHEAD  # resident memory the worker may use beyond max_memory

    def __post_init__(self) -> None:
        for name in ("max_rows", "max_memory", "max_columns", "max_line_bytes", "max_json_depth", "max_agents",
                     "max_tasks", "max_id_chars", "max_events", "max_cpu_seconds", "worker_overhead"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")

    @property
    def max_resident(self) -> int:
        """The resident memory the worker reading one input may reach: the budget plus the worker's own
        interpreter and libraries (``worker_overhead``)."""
        return self.max_memory + self.worker_overhead


DEFAULT_LIMITS = Limits()


def count_error(count: int, what: str, limit: int, name: str) -> str | None:
    """The refusal of ``count`` things against ``limit`` (named as its setting), or None when within it.

    Examples
    --------
    >>> count_error(12_000, "agents", 10_000, "max_agents")
    'the input has 12,000 agents, more than the limit of 10,000 (max_agents)'
    >>> count_error(3, "agents", 10_000, "max_agents") is None
    True
    """
    if count <= limit:
        return None
    return f"the input has {count:,} {what}, more than the limit of {limit:,} ({name})"


def long_id_detail(length: int, limit: int) -> str:
    """The refusal of an id of ``length`` characters against ``max_id_chars`` (every engine says it alike).

    Examples
    --------
    >>> long_id_detail(2_000, 1_000)
    'an id of 2,000 characters, more than the limit of 1,000 (max_id_chars)'
    """
    return f"an id of {length:,} characters, more than the limit of {limit:,} (max_id_chars)"


def column_limit_refusal(count: int, limit: int, whole: str = "file") -> str:
    """The one text that refuses a source of more than ``limit`` columns (``Limits.max_columns``), before a row is
    read, in every engine: ``whole`` is what has them (a CSV's "header", a Parquet "file", Spark's "data").

    >>> column_limit_refusal(1_001, 1_000, "header")
    'the header has 1,001 columns, more than the limit of 1,000; refused before reading'
    """
    return f"the {whole} has {count:,} columns, more than the limit of {limit:,}; refused before reading"


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


def special_file(path: object) -> str | None:
    """What ``path`` names where it is neither a regular file nor a folder (a named pipe, a device, a socket): its
    size says nothing and reading it may wait for ever (a pipe nobody writes, one read twice) or never end
    (``/dev/zero``). None for a file, a folder, or a path that cannot be looked at (its reader says why).

    >>> special_file("/dev/null"), special_file("/"), special_file("/no/such/file")
    ('a device', None, None)
    """
    try:
        mode = os.stat(path).st_mode  # type: ignore[arg-type]
    except (OSError, ValueError, TypeError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def special_file_reason(path: object, kind: str) -> str:
    """The refusal of a path :func:`special_file` names."""
    return f"{path} is {kind}, not a file: give the file itself (a pipe or a device may never end, or never start)"

