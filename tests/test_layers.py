"""The layout tells the architecture: scoring/'s role subpackages, their layers, and no import circle anywhere.

`make lint` runs import-linter on the contracts in pyproject.toml; these tests show that a broken contract
fails it, and check what import-linter does not: circles inside a layer, the page scripts and the top level.
"""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
SUBPACKAGES = ("contract", "load", "measures", "engines", "analysis", "outputs", "cli")


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"}, timeout=300)


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages and their contracts, copied so that a test may break them."""
    copy = tmp_path_factory.mktemp("layers")
    for package in ("scoring", "explorer"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def test_the_contracts_hold_on_the_tree_as_it_is(tree_copy: Path) -> None:
    result = _lint_imports(tree_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "line", "broken"), [
    # a lower layer reaching up: the contract reads the CLI
    ("scoring/contract/limits.py", "import scoring.cli", "scoring/ runs in layers"),
    # a measure reaching up to an analysis
    ("scoring/measures/headline.py", "import scoring.analysis.explain", "scoring/ runs in layers"),
    # the core reaching into the UI
    ("scoring/load/runs.py", "import explorer.format", "the scoring core is pure"),
    ("scoring/measures/report.py", "import streamlit", "the scoring core is pure"),
])
def test_an_import_running_back_up_fails_make_lint(tree_copy: Path, module: str, line: str, broken: str) -> None:
    path = tree_copy / module
    original = path.read_text()
    path.write_text(original + f"\n{line}  # noqa: E402\n")
    try:
        result = _lint_imports(tree_copy)
    finally:
        path.write_text(original)
    assert result.returncode != 0
    assert f"{broken}" in result.stdout and "BROKEN" in result.stdout


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph.find_modules_directly_imported_by(start)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in graph.modules:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.find_modules_directly_imported_by(nxt))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(module)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.z")
    graph.add_import(importer="a.z", imported="a.x")
    assert _cycles(graph) == [["a.x", "a.y", "a.z"]]


def test_no_import_circle_anywhere_in_scoring_or_explorer() -> None:
    graph = grimp.build_graph("scoring", "explorer", cache_dir=None)
    assert _cycles(graph) == []


def test_scoring_top_level_holds_at_most_ten_entries() -> None:
    tracked = subprocess.run(["git", "ls-files", "scoring"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    entries = {Path(path).parts[1] for path in tracked}
    assert len(entries) <= 10, sorted(entries)
    assert set(SUBPACKAGES) <= entries


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_each_subpackage_says_what_it_holds_and_what_it_may_import(name: str) -> None:
    doc = importlib.import_module(f"scoring.{name}").__doc__ or ""
    assert doc.strip(), f"scoring.{name} has no docstring"
    assert "May import" in doc, f"scoring.{name} does not say what it may import"


def test_pages_are_thin_scripts_over_the_explorer() -> None:
    """A page imports streamlit, explorer and scoring (and the standard library), never another page."""
    for page in sorted((ROOT / "views").glob("*.py")):
        tree = ast.parse(page.read_text())
        for node in ast.walk(tree):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                assert not name.startswith(("views", "app")), f"{page.name} imports {name}"


@pytest.mark.parametrize("package", ["scoring", "scoring.load.importers"])
def test_a_lazy_package_names_each_public_name_once_and_finds_it(package: str) -> None:
    """``scoring`` and ``scoring.load.importers`` import their public names when first asked for (PEP 562): the
    literal ``__all__`` (what ``import *``, ruff and mypy read) and the map of homes must agree, and every name must
    be where the map says."""
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(module._HOME), set(module.__all__) ^ set(module._HOME)
    for name, home in module._HOME.items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018 - the attribute access is the test


# What ``report --engine sql`` must not load: the frame libraries (about 0.3 s of a one-file report's process at
# 2026-12-06: 0.49 -> 0.20 s of imports). Run in a fresh interpreter, the command's own parser and engine in-process.
SQL_REPORT_CODE = """
import sys
from scoring.cli.dispatch import build_parser
from scoring.cli.report import _print_report
from scoring.engines.sql_engine import score_file_sql

args = build_parser(names=["report"]).parse_args(["report", sys.argv[1], "--engine", "sql"])
report = score_file_sql(sys.argv[1])
_print_report(report, args, None)
loaded = sorted(m for m in ("pandas", "pyarrow") if m in sys.modules)
print("LOADED", loaded, file=sys.stderr)
"""


@pytest.mark.parametrize("name", ["runs.csv", "runs.parquet"])
def test_a_report_by_the_sql_engine_loads_neither_pandas_nor_arrow(name: str, tmp_path: Path) -> None:
    source = ROOT / "sample_data" / "runs.csv"
    path = tmp_path / name
    if name.endswith(".parquet"):
        import duckdb

        duckdb.sql(f"COPY (SELECT * FROM read_csv('{source}')) TO '{path}' (FORMAT parquet)")
    else:
        shutil.copy(source, path)
    result = subprocess.run([sys.executable, "-c", SQL_REPORT_CODE, str(path)], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert '"policy_version"' in result.stdout
    assert "LOADED []" in result.stderr, result.stderr
