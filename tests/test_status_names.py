"""Statuses have one home (scoring/contract/schema.py): Python code under scoring/, explorer/ and views/ names them
(schema.COMPLETED, TERMINAL_STATUSES, ...) and never writes the words (issue 22).

A status word as a column or field name is not a status: a subscript (``row["completed"]``), a dict key,
or one name among other names in a tuple or list. Docstrings are prose."""

from __future__ import annotations

import ast
from pathlib import Path

from scoring.contract.schema import STATUSES

ROOT = Path(__file__).resolve().parents[1]


def status_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string constant that is a status word where a status is meant."""
    tree = ast.parse(source)
    allowed: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            allowed.add(id(body[0].value))  # a docstring
        elif isinstance(node, ast.Subscript):
            allowed.add(id(node.slice))
        elif isinstance(node, ast.Dict):
            allowed.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, (ast.Tuple, ast.List)):
            texts = [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if any(e.value.lower() not in STATUSES for e in texts):
                allowed.update(id(e) for e in texts)  # names of columns or fields, one of them a status word
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in allowed
            and node.value.strip().lower() in STATUSES]


def test_the_check_finds_a_status_written_as_a_word():
    found = status_literals('FIXED = ("completed", "failed")\nok = status == "Timeout"\nrow["completed"]\n'
                            'COLUMNS = ["task_id", "completed"]\n{"failed": 1}\n')
    assert found == [(1, "completed"), (1, "failed"), (2, "Timeout")]


def test_no_status_is_written_as_a_word_outside_the_schema():
    found = {}
    for folder in ("scoring", "explorer", "views"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).as_posix() != "scoring/contract/schema.py":
                hits = status_literals(path.read_text(encoding="utf-8"))
                if hits:
                    found[path.relative_to(ROOT).as_posix()] = hits
    assert found == {}
