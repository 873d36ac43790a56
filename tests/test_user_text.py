"""Text a person reads (pages, messages, import reports, CLI help) never cites a section of the spec: "(SPEC 7)"
means nothing to a vendor or a reviewer. Docstrings and comments may cite it; every other string may not."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC_REFERENCE = re.compile(r"\bSPEC\b")
SOURCES = [ROOT / "app.py", *sorted((ROOT / "views").glob("*.py")), *sorted((ROOT / "explorer").rglob("*.py")),
           *sorted((ROOT / "scoring").rglob("*.py"))]


def _docstrings(tree: ast.AST) -> set[int]:
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, owners) and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def spec_references(path: Path) -> list[str]:
    """The strings of ``path`` (docstrings left out) that name the spec, as 'file:line: text'."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return [f"{where}:{node.lineno}: {node.value[:80]!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            and SPEC_REFERENCE.search(node.value)]


def test_no_string_shown_to_people_cites_a_spec_section():
    found = [hit for path in SOURCES if path.is_file() for hit in spec_references(path)]
    assert not found, "\n".join(found)


def test_the_check_finds_a_spec_reference_in_a_message_but_not_in_a_docstring(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text('"""Module docstring (SPEC 7)."""\n\ndef f():\n    """Docstring (SPEC 1)."""\n'
                    '    return "read as UTC (SPEC 7)"  # a comment (SPEC 7)\n', encoding="utf-8")
    assert [hit.split(": ", 1)[1] for hit in spec_references(path)] == ["'read as UTC (SPEC 7)'"]
