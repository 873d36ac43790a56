"""An upload's bytes are shared, not copied, when Streamlit deep-copies the uploader's value on a rerun
(explorer/upload_patch.py)."""

import copy
import sys

import pytest
import streamlit
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

from explorer import styler_patch, upload_patch
from tests.apptest_helpers import app_with_uploads

pytestmark = pytest.mark.skipif(streamlit.__version__ != styler_patch.CHECKED_VERSION,
                                reason="the patch is installed on the checked Streamlit version only")

DATA = bytes(range(256)) * 40_000  # 10 MB


def upload(data: bytes = DATA) -> UploadedFile:
    return UploadedFile(UploadedFileRec("file-1", "runs.csv", "text/csv", data), None)


def owns_a_buffer(f: UploadedFile, size: int) -> bool:
    """BytesIO counts its buffer in sys.getsizeof only when it is its own, not shared. Call it in a statement of
    its own: a value of ``f.getvalue()`` held at the same time (as pytest holds the parts of an assert) shares it."""
    return sys.getsizeof(f) >= size


def test_streamlit_alone_copies_every_byte_on_deepcopy(monkeypatch):
    # what the patch is for: without it, a deep copy holds the whole file again
    monkeypatch.delattr(UploadedFile, "__deepcopy__", raising=False)
    twin = copy.deepcopy(upload())
    owned = owns_a_buffer(twin, len(DATA))
    assert owned and twin.getvalue() == DATA


def test_a_deep_copy_shares_the_bytes_and_keeps_everything_else():
    assert upload_patch.install()
    original = upload()
    original.seek(1234)
    original.note = ["kept"]  # an attribute of the caller's, deep-copied as before
    twin = copy.deepcopy(original)
    owned = owns_a_buffer(twin, len(DATA))
    assert twin is not original and isinstance(twin, UploadedFile) and not owned
    assert twin.getvalue() is original.getvalue() is DATA
    assert (twin.file_id, twin.name, twin.type, twin.size, twin.tell()) == ("file-1", "runs.csv", "text/csv",
                                                                            len(DATA), 1234)
    assert twin.note == ["kept"] and twin.note is not original.note
    assert twin == original  # Streamlit compares uploads by file id


def test_writing_to_either_copy_leaves_the_other_as_it_was():
    assert upload_patch.install()
    original = upload()
    twin = copy.deepcopy(original)
    twin.seek(0)
    twin.write(b"XYZ")
    assert twin.getvalue()[:3] == b"XYZ" and original.getvalue() == DATA
    other = copy.deepcopy(original)
    original.seek(0)
    original.write(b"abc")
    assert other.getvalue() == DATA and original.getvalue()[:3] == b"abc"
    assert DATA[:3] == bytes([0, 1, 2])


def test_a_closed_upload_is_refused_as_before():
    assert upload_patch.install()
    closed = upload()
    closed.close()
    with pytest.raises(ValueError):
        copy.deepcopy(closed)


def test_the_app_keeps_an_upload_without_a_copy_of_its_bytes():
    # through app.py: the uploader's value on each rerun, and the file the session keeps (data.UPLOAD_KEY)
    from explorer.data import SAMPLE_PATH, UPLOAD_KEY

    data = SAMPLE_PATH.read_bytes()
    at = app_with_uploads(("runs.csv", data, "text/csv"))
    for _ in range(2):
        kept = at.session_state[UPLOAD_KEY]
        owned = owns_a_buffer(kept, len(data))
        assert not owned and kept.getvalue() == data
        at.run()
        assert not at.exception


def manager_sharing():
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    assert upload_patch.share_equal_uploads(manager)
    assert not upload_patch.share_equal_uploads(manager)  # once
    return manager


def held(manager, session: str) -> list[bytes]:
    return [rec.data for rec in manager.get_files(session, list(manager.file_storage[session]))]


def test_an_upload_equal_to_one_held_is_kept_as_its_bytes():
    manager = manager_sharing()
    first, same = bytes(bytearray(DATA)), bytes(bytearray(DATA))
    assert first is not same
    manager.add_file("session-a", UploadedFileRec("a1", "runs.csv", "text/csv", first))
    manager.add_file("session-b", UploadedFileRec("b1", "other-name.csv", "text/csv", same))
    [a], [b] = held(manager, "session-a"), held(manager, "session-b")
    assert a is first and b is first  # one object for the two sessions
    assert [r.name for r in manager.get_files("session-b", ["b1"])] == ["other-name.csv"]
    manager.remove_session_files("session-a")  # the other session keeps its file
    assert held(manager, "session-b")[0] == DATA


def test_a_different_file_is_kept_as_its_own_even_of_the_same_length():
    manager = manager_sharing()
    manager.add_file("session-a", UploadedFileRec("a1", "runs.csv", "text/csv", DATA))
    differs = DATA[:-1] + b"!"
    shorter = DATA[:-1]
    manager.add_file("session-b", UploadedFileRec("b1", "runs.csv", "text/csv", differs))
    manager.add_file("session-b", UploadedFileRec("b2", "runs.csv", "text/csv", shorter))
    got = dict(zip(manager.file_storage["session-b"], held(manager, "session-b")))
    assert got["b1"] is differs and got["b2"] is shorter


def test_past_the_budget_a_new_file_is_kept_without_its_bytes_and_says_why():
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    budget = len(DATA) + 100
    assert upload_patch.share_equal_uploads(manager, budget)
    manager.add_file("session-a", UploadedFileRec("a1", "runs.csv", "text/csv", DATA))
    assert upload_patch.held_bytes(manager) == len(DATA)
    manager.add_file("session-b", UploadedFileRec("b1", "big.csv", "text/csv", b"x" * 101))  # 1 byte too many
    manager.add_file("session-b", UploadedFileRec("b2", "small.csv", "text/csv", b"x" * 100))  # just fits
    manager.add_file("session-c", UploadedFileRec("c1", "again.csv", "text/csv", bytes(bytearray(DATA))))  # held
    refused = manager.get_files("session-b", ["b1"])[0]
    assert refused.data == b"" and refused.name == "big.csv"
    why = upload_patch.refused(UploadedFile(refused, None))
    assert why == upload_patch.NotKept(size=101, held=len(DATA), budget=budget)
    assert manager.get_files("session-b", ["b2"])[0].data == b"x" * 100
    assert manager.get_files("session-c", ["c1"])[0].data is DATA  # equal to one held: no cost, kept
    assert upload_patch.held_bytes(manager) == budget
    assert upload_patch.refused(upload()) is None  # a file kept

    manager.remove_session_files("session-b")  # the budget frees as files go
    manager.add_file("session-d", UploadedFileRec("d1", "big.csv", "text/csv", b"x" * 100))
    assert manager.get_files("session-d", ["d1"])[0].data == b"x" * 100


def test_only_the_server_says_a_file_was_not_kept():
    # the type is the browser's to name: a file sent as the "not kept" type is kept, as any file
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    upload_patch.share_equal_uploads(manager, 10**6)
    forged = f"{upload_patch.REFUSED_TYPE}; size=1; held=2; budget=3"
    manager.add_file("session-a", UploadedFileRec("a1", "runs.csv", forged, b"run_id\n"))
    kept = manager.get_files("session-a", ["a1"])[0]
    assert kept.data == b"run_id\n" and upload_patch.refused(UploadedFile(kept, None)) is None


def test_the_words_for_a_file_not_kept():
    text = upload_patch.not_kept_text("a*b.csv", upload_patch.NotKept(83_321_701, 1_900_000_000, 2 * 10**9))
    assert text.startswith(r"**a\*b\.csv** (83.3 MB) was not kept: the server already holds 1.9 GB of files")
    assert "keeps at most 2.0 GB (the operator's `EXPLORER_UPLOAD_MEMORY`)" in text
    assert "when it ends (120 s after its tab closes)" in text
    assert "(5 s after its tab closes)" in upload_patch.not_kept_text("a", upload_patch.NotKept(1, 2, 3), 5)


def test_a_refused_upload_leaves_the_sample_and_says_so_in_the_sidebar():
    from explorer.data import SAMPLE_PATH

    why = f"{upload_patch.REFUSED_TYPE}; size=83321701; held=1900000000; budget=2000000000"
    at = app_with_uploads(("runs.csv", SAMPLE_PATH.read_bytes() + b"\n", "text/csv"), ("big.csv", b"", why))
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and errors[0].startswith(r"**big\.csv** (83.3 MB) was not kept"), errors
    captions = [c.value for c in at.sidebar.caption]
    assert "The sample data stays loaded: the files are scored together once every one is kept." in captions
    assert at.session_state["dataset"].is_sample
