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

Both are installed on the Streamlit version they were checked against only
(``styler_patch.CHECKED_VERSION``); on any other version Streamlit's own behaviour stays.
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

import streamlit
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

from .styler_patch import CHECKED_VERSION


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


def held_equal(manager: _Manager, data: bytes) -> bytes | None:
    """The bytes of a file ``manager`` holds that are equal to ``data``, if it holds one."""
    with manager._lock:
        candidates = [rec.data for files in manager.file_storage.values() for rec in files.values()
                      if len(rec.data) == len(data)]
    for held in candidates:  # outside the lock: a comparison of two large files takes milliseconds
        if held is data or held == data:
            return held
    return None


def share_equal_uploads(manager: _Manager) -> bool:
    """Make ``manager`` keep a new upload equal to one it holds as that one's bytes; False if already done."""
    if getattr(manager, "_explorer_shares_equal", False):
        return False
    add_file = manager.add_file

    def add_shared(session_id: str, file: UploadedFileRec) -> None:
        held = held_equal(manager, file.data)
        add_file(session_id, file if held is None else file._replace(data=held))

    manager.add_file = add_shared  # type: ignore[method-assign]
    manager._explorer_shares_equal = True  # type: ignore[attr-defined]
    return True


def install() -> bool:
    """Share an upload's bytes on ``deepcopy`` and between sessions holding equal files, on the checked
    Streamlit version; whether it was installed."""
    if streamlit.__version__ != CHECKED_VERSION:
        return False
    UploadedFile.__deepcopy__ = shared_copy  # type: ignore[attr-defined]
    from streamlit.runtime import Runtime

    if Runtime.exists():  # a served app (AppTest has no server, and no upload manager of this kind)
        manager = Runtime.instance().uploaded_file_mgr
        if hasattr(manager, "file_storage") and hasattr(manager, "_lock"):
            share_equal_uploads(manager)  # type: ignore[arg-type]
    return True
