"""Map a table (audit of 2026-12-04): a mapped table's refusal must count every invalid row, as a runs file's does.

The validator keeps only the first MAX_PROBLEMS_KEPT problems as objects but counts them all (``total``,
``invalid_rows``); ``Imported.validate`` re-raised the refusal from the kept problems alone, so a mapped table
of 10,050 rows with an unknown status each was reported as "10,000 problem(s) in 10,000 of 10,050 row(s)"
(the Map a table page's warning, its "Exclude the ... invalid row(s)" button, and `scoring report --mapping`),
while the same rows as a runs file say 10,050 of 10,050.
"""

from __future__ import annotations

import pytest

from scoring.load.importers import Mapping, import_file
from scoring.load.runs import MAX_PROBLEMS_KEPT, RunsValidationError, load_runs

ROWS = MAX_PROBLEMS_KEPT + 50


def test_a_mapped_table_counts_every_invalid_row(tmp_path):
    path = tmp_path / "foreign.csv"
    path.write_text("id,model,task,state,passed\n"
                    + "".join(f"{i},m,t{i % 7},word{i},true\n" for i in range(ROWS)), encoding="utf-8")
    mapping = Mapping(columns={"run_id": "id", "agent_id": ["model"], "task_id": "task", "status": "state",
                               "success": "passed"})
    with pytest.raises(RunsValidationError) as refused:
        import_file(path, mapping=mapping).validate()
    error = refused.value
    assert (error.total, error.invalid_rows, error.rows_read) == (ROWS, ROWS, ROWS), error.report().splitlines()[0]


def test_the_same_rows_as_a_runs_file_count_every_invalid_row(tmp_path):  # the reference behaviour (passes)
    path = tmp_path / "runs.csv"
    path.write_text("run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at\n"
                    + "".join(f"{i},m,t{i % 7},word{i},true,10,0.1,1,2026-01-01T00:00:00Z\n" for i in range(ROWS)),
                    encoding="utf-8")
    with pytest.raises(RunsValidationError) as refused:
        load_runs(path)
    assert (refused.value.total, refused.value.invalid_rows) == (ROWS, ROWS)
