"""The package's metadata, its package data and the console command's own subcommands (issue 25); the built
wheel in a fresh environment is tests/test_packaging.py."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from scoring.analysis.scorecard import EXAMPLES_DIR
from scoring.cli import console
from scoring.cli.commands import build_parser, main
from scoring.contract.extras import EXTRA_OF_MODULE, missing_module_message
from scoring.contract.resources import PUBLISHED_METHODOLOGY, SAMPLE_RUNS, SCORECARDS_DIR

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def pins() -> dict[str, str]:
    """name -> pinned version, from requirements.txt and requirements-spark.txt."""
    out = {}
    for name in ("requirements.txt", "requirements-spark.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if "==" in line:
                req = Requirement(line)
                out[req.name.lower()] = str(req.specifier).removeprefix("==")
    return out


def test_core_dependencies_are_pandas_pyarrow_numpy_only():
    assert sorted(Requirement(r).name for r in PROJECT["dependencies"]) == ["numpy", "pandas", "pyarrow"]
    assert set(PROJECT["optional-dependencies"]) == {"app", "sql", "postgres", "spark", "inspect", "pack"}


def test_every_requirement_is_satisfied_by_the_pinned_version():
    pinned = pins()
    every = PROJECT["dependencies"] + [r for extra in PROJECT["optional-dependencies"].values() for r in extra]
    for text in every:
        req = Requirement(text)
        assert req.name.lower() in pinned, f"{req.name} is not pinned in requirements*.txt"
        assert req.specifier.contains(pinned[req.name.lower()]), f"{text} excludes the pinned {pinned[req.name]}"


def test_every_extras_module_is_in_its_extra():
    extras = {name: {Requirement(r).name for r in reqs} for name, reqs in PROJECT["optional-dependencies"].items()}
    providers = {"streamlit": "streamlit", "duckdb": "duckdb", "psycopg": "psycopg", "pyspark": "pyspark",
                 "py4j": "pyspark", "grpc": "pyspark", "inspect_ai": "inspect-ai", "plotly": "plotly",
                 "playwright": "playwright"}
    for module, extra in EXTRA_OF_MODULE.items():
        assert providers[module] in extras[extra], (module, extra)


def test_package_data_is_the_clones_files():
    assert SAMPLE_RUNS.read_bytes() == (ROOT / "sample_data" / "runs.csv").read_bytes()
    assert PUBLISHED_METHODOLOGY.read_bytes() == (ROOT / "docs" / "published-methodology.md").read_bytes()
    assert sorted(p.name for p in SCORECARDS_DIR.glob("*.json")) == sorted(
        p.name for p in (ROOT / "sample_data" / "scorecards").glob("*.json"))
    assert EXAMPLES_DIR == SCORECARDS_DIR
    # Every file the package data globs name exists (a link that broke would ship nothing).
    for package, globs in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        for pattern in globs:
            assert list((ROOT / package.replace(".", "/")).glob(pattern)), f"{package}/{pattern} matches nothing"


def test_console_command_has_every_subcommand_and_serve():
    assert PROJECT["scripts"] == {"agentscore": "scoring.cli.console:main"}
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"report", "verify", "receipt", "badge", "pack", "explain", "diff", "serve", "sample",
                                "methodology"}


def test_serve_runs_the_app_with_its_streamlit_config():
    args = build_parser("agentscore").parse_args(["serve", "--port", "8765", "--", "--theme.base", "dark"])
    command = console.serve_command(args)
    assert command[:4] == [sys.executable, "-m", "streamlit", "run"]
    assert Path(command[4]) == ROOT / "app.py"
    flags = command[5:]
    assert flags[flags.index("--server.maxUploadSize") + 1] == "200"
    assert flags[flags.index("--client.showErrorDetails") + 1] == "none"
    assert flags[-2:] == ["--theme.base", "dark"]
    assert flags[flags.index("--server.port") + 1] == "8765"


def test_sample_and_methodology(tmp_path, capsys):
    assert main(["sample"], prog="agentscore") == 0
    assert capsys.readouterr().out.encode() == SAMPLE_RUNS.read_bytes()
    assert main(["sample", "-o", str(tmp_path / "runs.csv")], prog="agentscore") == 0
    assert (tmp_path / "runs.csv").read_bytes() == SAMPLE_RUNS.read_bytes()
    assert main(["sample", "-o", str(tmp_path / "no" / "such" / "dir.csv")]) == 2
    assert "cannot write the sample" in capsys.readouterr().err
    assert main(["methodology"]) == 0
    assert capsys.readouterr().out.startswith("# How scores are built")


@pytest.mark.parametrize(("module", "argv", "extra"), [
    ("duckdb", ["report", "RUNS", "--engine", "sql"], "sql"),
    ("plotly", ["pack", "RUNS", "-o", "OUT.html"], "pack"),
])
def test_a_missing_extra_says_what_to_install(monkeypatch, capsys, tmp_path, module, argv, extra):
    monkeypatch.setitem(sys.modules, module, None)  # import module -> ModuleNotFoundError, as when not installed
    for name in [m for m in sys.modules if m.startswith(("explorer.pack", "explorer.charts"))]:
        monkeypatch.delitem(sys.modules, name)
    argv = [str(SAMPLE_RUNS) if a == "RUNS" else str(tmp_path / "out.html") if a == "OUT.html" else a for a in argv]
    assert main(argv, prog="agentscore") == 2
    err = capsys.readouterr().err
    assert f"pip install 'scoring-methodology-explorer[{extra}]'" in err and "Traceback" not in err


def test_serve_without_streamlit_says_install_the_app_extra(monkeypatch, capsys):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)  # as if streamlit were not installed
    assert main(["serve"], prog="agentscore") == 2
    assert "scoring-methodology-explorer[app]" in capsys.readouterr().err


def test_missing_module_message_only_for_optional_modules():
    assert missing_module_message("pandas") is None
    assert "[postgres]" in (missing_module_message("duckdb", "--db", "postgres") or "")
