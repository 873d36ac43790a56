"""An uploaded file handed to the script without a copy of its bytes on every rerun.

``st.file_uploader`` returns a ``deepcopy`` of the widget's value on every rerun (Streamlit 1.67,
``SessionState.register_widget``: "so that reference types can't be accidentally mutated"). Its value
is an ``UploadedFile``, a ``BytesIO`` over the upload's bytes, and ``BytesIO`` deep-copies through its
pickled state: a new buffer holding every byte again. So each rerun of each session with an upload
copied the whole file (about 40 ms for 83 MB, more on memory the machine has not touched yet), and
the copy the session keeps (``explorer.data.UPLOAD_KEY``) doubled what an upload holds: measured on
the server, +167 MB a session for one 83 MB file, where the upload manager holds 83 MB.

``UploadedFile`` is built to share its bytes: a ``BytesIO`` made over ``bytes`` shares them until one
side writes (copy-on-write, CPython), which is why Streamlit builds one afresh from the stored record
for every script run. :func:`install` gives it a ``__deepcopy__`` that does the same: a new
``UploadedFile`` over the same immutable bytes, at the same position, every other attribute
deep-copied as before. The copy is as independent as the one it replaces: writing to either copies
its buffer first (``tests/test_upload_patch.py``).

The same file uploaded in many sessions (a room following one link: every viewer uploads the file the
link names) was held once a session. :func:`share_equal_uploads` makes the server's upload manager keep
a file equal to one it already holds as that one's bytes: the same length, then the same bytes (a
comparison that stops at the first difference, about 10 ms for 83 MB when they are equal; no hash on the
server's event loop). Each session still has its own record, file id and name; only the immutable bytes
are one object, freed when the last session holding them ends.

What the upload manager holds is also bounded: past the operator's budget (``EXPLORER_UPLOAD_MEMORY``,
counting each distinct file's bytes once), a new file that is not equal to one held is not kept. Its
record stays, named as uploaded, with no bytes and a type that says why (:func:`refused`), so the page
that reads it says so in words (``explorer.data.kept_uploads``) instead of the uploader's red mark.
Streamlit lets a session's files go when the session ends (``server.disconnectedSessionTTL`` after its
tab closes, 120 s by default), and the budget frees with them. The bytes of a refused file were received
(Streamlit reads a request whole before handing it over): what is bounded is what stays held.

All three are installed on the Streamlit version they were checked against only
(``styler_patch.CHECKED_VERSION``); on any other version Streamlit's own behaviour stays.
"""

from __future__ import annotations

import copy
import re
import threading
from typing import Any, NamedTuple, Protocol

import streamlit
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

from scoring.contract.limits import format_size

from . import format as fmt
from .styler_patch import CHECKED_VERSION

REFUSED_TYPE = "application/x-explorer-not-kept"  # the type of a record kept without its bytes (over the budget)
_REFUSED = re.compile(re.escape(REFUSED_TYPE) + r"; size=(\d+); held=(\d+); budget=(\d+)$")


class NotKept(NamedTuple):
    """Why an uploaded file was not kept: its size, what the server held then, and the budget (bytes)."""

    size: int
    held: int
    budget: int


def shared_copy(upload: UploadedFile, memo: dict[int, Any]) -> UploadedFile:
    """A deep copy of ``upload`` over the same bytes (copy-on-write), at the same position."""
    twin = UploadedFile(UploadedFileRec(upload.file_id, upload.name, upload.type, upload.getvalue()),
                        upload._file_urls)
    memo[id(upload)] = twin
    twin.__dict__.update(copy.deepcopy(upload.__dict__, memo))
    twin.seek(upload.tell())
    return twin


class _Manager(Protocol):
    """What :func:`share_equal_uploads` uses of Streamlit's ``MemoryUploadedFileManager``."""

    file_storage: dict[str, dict[str, UploadedFileRec]]
    _lock: Any

    def add_file(self, session_id: str, file: UploadedFileRec) -> None: ...


def _held(manager: _Manager) -> list[bytes]:
    """The distinct bytes objects ``manager`` holds (a file shared by sessions once)."""
    with manager._lock:
        datas = [rec.data for files in manager.file_storage.values() for rec in files.values()]
    return list({id(data): data for data in datas}.values())


def held_equal(manager: _Manager, data: bytes) -> bytes | None:
    """The bytes of a file ``manager`` holds that are equal to ``data``, if it holds one."""
    for held in _held(manager):  # outside the lock: a comparison of two large files takes milliseconds
        if len(held) == len(data) and (held is data or held == data):
            return held
    return None


def held_bytes(manager: _Manager) -> int:
    """What ``manager`` holds, each distinct file counted once."""
    return sum(len(data) for data in _held(manager))


def refused(upload: Any) -> NotKept | None:
    """Why ``upload`` was not kept (:func:`share_equal_uploads` past its budget), or None for a file kept."""
    found = _REFUSED.match(str(getattr(upload, "type", "") or ""))
    return NotKept(*(int(n) for n in found.groups())) if found else None


def not_kept_text(name: str, why: NotKept, reconnect_seconds: int = 120) -> str:
    """What a viewer reads about a file the server did not keep (markdown, the name escaped); a closed tab's
    session, and its files, are kept ``reconnect_seconds`` (``server.disconnectedSessionTTL``)."""
    return (f"**{fmt.plain(name)}** ({format_size(why.size)}) was not kept: the server already holds "
            f"{format_size(why.held)} of files uploaded in open sessions, and keeps at most "
            f"{format_size(why.budget)} (the operator's `EXPLORER_UPLOAD_MEMORY`). A session's files are let go "
            f"when it ends ({reconnect_seconds:,} s after its tab closes): remove the file and upload it again "
            "later, or ask the operator to raise the budget.")


def share_equal_uploads(manager: _Manager, budget: int | None = None) -> bool:
    """Make ``manager`` keep a new upload equal to one it holds as that one's bytes, and keep no new file past
    ``budget`` bytes held (None: no bound); False if already done."""
    if getattr(manager, "_explorer_shares_equal", False):
        return False
    add_file = manager.add_file
    one_at_a_time = threading.Lock()  # the check and the add together: two uploads cannot both pass a full budget

    def add_shared(session_id: str, file: UploadedFileRec) -> None:
        if file.type.startswith(REFUSED_TYPE):  # the browser names the type: only the server says "not kept"
            file = file._replace(type="application/octet-stream")
        with one_at_a_time:
            held = held_equal(manager, file.data)
            if held is not None:
                file = file._replace(data=held)
            elif budget is not None and (now := held_bytes(manager)) + len(file.data) > budget:
                file = file._replace(data=b"", type=f"{REFUSED_TYPE}; size={len(file.data)}; held={now}; "
                                                      f"budget={budget}")
            add_file(session_id, file)

    manager.add_file = add_shared  # type: ignore[method-assign]
    manager._explorer_shares_equal = True  # type: ignore[attr-defined]
    return True


def install(budget: int | None = None) -> bool:
    """Share an upload's bytes on ``deepcopy`` and between sessions holding equal files, and hold at most
    ``budget`` bytes of files, on the checked Streamlit version; whether it was installed."""
    if streamlit.__version__ != CHECKED_VERSION:
        return False
    UploadedFile.__deepcopy__ = shared_copy  # type: ignore[attr-defined]
    from streamlit.runtime import Runtime

    if Runtime.exists():  # a served app (AppTest has no server, and no upload manager of this kind)
        manager = Runtime.instance().uploaded_file_mgr
        if hasattr(manager, "file_storage") and hasattr(manager, "_lock"):
            share_equal_uploads(manager, budget)  # type: ignore[arg-type]
    return True
