"""The suite's own rule: no test module imports another test module (or a conftest). Shared data and helpers
live in helper modules (tests/helpers.py, tests/spellings.py, tests/apptest_helpers.py,
tests/e2e/browser_helpers.py) or in conftest fixtures, so a test module can be read, run and moved alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _is_test_module(dotted: str) -> bool:
    last = dotted.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def imports_of_test_modules(source: str) -> list[str]:
    """The imports in ``source`` that name a test module or a conftest, as written (``from x import y``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if _is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if node.module and _is_test_module(node.module):
                found.append(f"from {module} import {', '.join(a.name for a in node.names)}")
            elif node.level or (node.module or "").split(".")[0] == "tests":  # from tests import test_x
                found += [f"from {module} import {alias.name}" for alias in node.names if _is_test_module(alias.name)]
    return found



@pytest.mark.parametrize("source, expected", [
    ("from tests.test_sql_engine import EDGE_CSV, assert_same_report",
     ["from tests.test_sql_engine import EDGE_CSV, assert_same_report"]),
    ("from test_app_pages import page", ["from test_app_pages import page"]),
    ("import tests.e2e.test_browser as tb", ["import tests.e2e.test_browser"]),
    ("from tests import test_properties", ["from tests import test_properties"]),
    ("from . import conftest", ["from . import conftest"]),
    ("from tests.e2e.conftest import ROOT", ["from tests.e2e.conftest import ROOT"]),
    ("def f():\n    from tests.test_arrow_path import files\n", ["from tests.test_arrow_path import files"]),
    ("from tests.helpers import run\nfrom tests.e2e.browser_helpers import metric\nimport pytest\n"
     "from scoring.load.runs import test_something_else_module", []),
])
def test_the_checker_finds_every_way_of_importing_a_test_module(source, expected):
    assert imports_of_test_modules(source) == expected


def test_no_test_module_imports_another_test_module():
    offenders = {str(path.relative_to(TESTS)): found for path in sorted(TESTS.rglob("*.py"))
                 if (found := imports_of_test_modules(path.read_text(encoding="utf-8")))}
    assert not offenders, ("test modules import other test modules; move what they share to a helper module "
                           f"(tests/helpers.py and its siblings) or a conftest fixture: {offenders}")
