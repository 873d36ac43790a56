"""Hostile files for the budget tests, generated small (issue 21's table, at sizes a test can afford).

Not a test module: the test modules import these generators.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "tests" / "fixtures" / "inspect" / "probe.eval"
HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at"


def eval_with_member(member: str, body: bytes, *, declared: int | None = None, base: Path = PROBE) -> bytes:
    """``base`` (an Inspect .eval) with ``member`` replaced by ``body`` (deflated).

    With ``declared``, the member's directory entry and local header claim ``declared`` bytes and the
    CRC of the first ``declared`` bytes: a zip that lies about its size (the inflater still produces
    all of ``body``).
    """
    out = io.BytesIO()
    with zipfile.ZipFile(base) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            if info.filename != member:
                target.writestr(info.filename, _member_bytes(source, info), zipfile.ZIP_DEFLATED)
        target.writestr(member, body, zipfile.ZIP_DEFLATED)
    data = bytearray(out.getvalue())
    if declared is not None:
        lie_about(data, member, declared, zlib.crc32(body[:declared]))
    return bytes(data)


def lie_about(data: bytearray, member: str, declared: int, crc: int) -> bytearray:
    """Make ``member``'s local header and directory entry claim ``declared`` bytes with checksum ``crc``."""
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        offset = archive.getinfo(member).header_offset
    struct.pack_into("<I", data, offset + 14, crc)
    struct.pack_into("<I", data, offset + 22, declared)
    name = member.encode()
    central = data.find(b"PK\x01\x02", offset)
    while central != -1:
        name_len = struct.unpack_from("<H", data, central + 28)[0]
        if bytes(data[central + 46:central + 46 + name_len]) == name:
            struct.pack_into("<I", data, central + 16, crc)
            struct.pack_into("<I", data, central + 24, declared)
            break
        central = data.find(b"PK\x01\x02", central + 4)
    return data


def _member_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes; Inspect writes zstd members, which zipfile cannot read."""
    if info.compress_type != 93:
        return archive.read(info)
    import zstandard

    with open(archive.filename or "", "rb") as handle:
        handle.seek(info.header_offset + 26)
        name_len, extra_len = struct.unpack("<HH", handle.read(4))
        handle.seek(info.header_offset + 30 + name_len + extra_len)
        return zstandard.ZstdDecompressor().decompress(handle.read(info.compress_size), max_output_size=info.file_size)


def sample_member() -> str:
    with zipfile.ZipFile(PROBE) as archive:
        return next(n for n in archive.namelist() if n.startswith("samples/"))


def bomb_eval(inflated: int, declared: int = 2_000) -> bytes:
    """A .eval whose sample member says ``declared`` bytes and inflates to ``inflated`` (blanks: it deflates ~1000x)."""
    return eval_with_member(sample_member(), b" " * inflated, declared=declared)


def events_eval(events: int) -> bytes:
    """A .eval with one sample of ``events`` tiny events."""
    body = b'{"id": 1, "epoch": 1, "events": [' + b",".join([b'{"e":1}'] * events) + b"]}"
    return eval_with_member(sample_member(), body)


def deep_eval(depth: int) -> bytes:
    """A .eval with one sample nested ``depth`` levels deep."""
    return eval_with_member(sample_member(), b'{"id": 1, "x": ' + b"[" * depth + b"]" * depth + b"}")


def runs_csv(agents: int, runs_per_agent: int = 1, tasks: int = 1, run_id_width: int = 0) -> bytes:
    """A valid runs table (SPEC 1) over ``agents`` agents and ``tasks`` tasks; run ids padded to ``run_id_width``."""
    lines = [HEADER]
    n = 0
    for a in range(agents):
        for _ in range(runs_per_agent):
            n += 1
            run_id = f"r{n}".ljust(run_id_width, "x")
            lines.append(f"{run_id},agent-{a},task-{n % tasks},completed,true,1000,0.01,3,"
                         f"2026-07-01T00:{(n // 60) % 60:02d}:{n % 60:02d}Z")
    return ("\n".join(lines) + "\n").encode()
