"""Map a table (audit of 2026-12-04): a status column whose values differ only in case must not crash the page.

The status vocabulary matches source values in any case (``scoring.load.importers.mapping``), and the page keys
each value's selectbox by its lower-cased text (``mapping_form.status_key``); a table with both "OK" and "ok"
drew two selectboxes with one key: StreamlitDuplicateElementKey, and the page showed only an error.
"""

from __future__ import annotations

from explorer import mapping_form as form
from tests.apptest_helpers import app_with_uploads

TIMEOUT = 60


def test_status_values_that_differ_only_in_case_get_one_choice():
    rows = "id,model,task,state,passed\n" + "".join(
        f"{i},m,t{i % 3},{('OK', 'ok', ' Ok ')[i % 3]},true\n" for i in range(12))
    at = app_with_uploads(("cased.csv", rows.encode(), "text/csv"))
    at.switch_page("views/mapping.py")
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    boxes = [s for s in at.selectbox if s.key and s.key.startswith("map_status_")]
    assert [s.key for s in boxes] == [form.status_key("ok")]  # one choice for the value in any case
    boxes[0].set_value("completed")
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    assert [s.body for s in at.success] == ["Every row is valid: 12 runs of 1 agent on 3 tasks."]
