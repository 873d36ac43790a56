"""Map a table (audit of 2026-12-04): a saved mapping's status vocabulary must survive the form whole.

The page draws one status choice for each of the table's 50 most frequent status values only, and builds the mapping
from those choices; a saved mapping that names more values (the mapping format allows 1,000) lost the rest. On a
table of 60 status words, all mapped to completed by the saved mapping, ``scoring report --mapping`` scores 600 runs,
while the page's preview refused 100 rows and its download (and "Score with this mapping") held 50 of the 60 values.
"""

from __future__ import annotations

import json

from scoring.load.importers import mapping_from_json
from tests.apptest_helpers import app_with_uploads

TIMEOUT = 60
TABLE = "id,model,task,state,passed\n" + "".join(f"{i},m,t{i % 4},st{i % 60},true\n" for i in range(600))
MAPPING = {"mapping_version": 1,
           "columns": {"run_id": "id", "agent_id": ["model"], "task_id": "task", "status": "state",
                       "success": "passed"},
           "status_values": {f"st{k}": "completed" for k in range(60)}}


def test_a_saved_mapping_with_more_status_values_than_the_form_lists_keeps_them_all():
    at = app_with_uploads(("sixty.csv", TABLE.encode(), "text/csv"))
    at.switch_page("views/mapping.py")
    at.run(timeout=TIMEOUT)
    at.file_uploader(key="mapping_file").set_value(("sixty-map.json", json.dumps(MAPPING).encode(),
                                                    "application/json"))
    at.run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    (draft,) = at.session_state["map_draft"].values()
    assert mapping_from_json(draft).status_values == mapping_from_json(json.dumps(MAPPING)).status_values
    assert [s.body for s in at.success] == ["Every row is valid: 600 runs of 1 agent on 4 tasks."]
