"""The command line shows its plan (issue 22): one module per subcommand in scoring/cli, each registering its own
options and owning its run_* function, no module over ~300 lines, and the old ``scoring.cli.commands`` names
still importable (its compatibility surface)."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import scoring.cli.commands as commands
from scoring.cli.dispatch import SUBCOMMANDS, build_parser
from tests.helpers import scoring_cli

CLI = Path(__file__).resolve().parents[1] / "scoring" / "cli"
SAMPLE = CLI.parents[1] / "sample_data" / "runs.csv"
MAX_LINES = 300


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


NAMES = list(_subcommands(build_parser()))


def test_the_parser_names_every_subcommand_the_help_has_always_listed():
    assert NAMES == ["report", "verify", "receipt", "badge", "pack", "explain", "diff", "serve", "sample",
                     "methodology"]


@pytest.mark.parametrize("name", NAMES)
def test_each_subcommand_has_its_own_module_with_its_options_and_its_run_function(name):
    assert (CLI / f"{name}.py").is_file(), f"scoring/cli/{name}.py is missing"
    module = importlib.import_module(f"scoring.cli.{name}")
    assert name in SUBCOMMANDS and module.__name__ == f"scoring.cli.{name}"
    parser = argparse.ArgumentParser()
    module.add_parser(parser.add_subparsers(dest="command"))
    assert list(_subcommands(parser)) == [name]  # it registers itself and nothing else
    run = _subcommands(parser)[name].get_default("run")
    assert run is getattr(module, f"run_{name}") and run.__module__ == module.__name__


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_no_cli_module_is_over_300_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"scoring/cli/{path.name} has {lines} lines: split what it holds"


def test_the_cli_package_holds_no_module_but_the_subcommands_and_what_they_share():
    shared = {"__init__", "commands", "console", "dispatch", "options", "shared"}
    assert {p.stem for p in CLI.glob("*.py")} == shared | set(NAMES)


@pytest.mark.parametrize("name", commands.__all__)
def test_the_old_names_are_still_importable_from_commands(name):
    value = getattr(commands, name)
    if callable(value) and getattr(value, "__module__", "").startswith("scoring.cli."):
        home = importlib.import_module(value.__module__)  # a re-export, not a copy
        assert getattr(home, value.__name__) is value


def test_commands_keeps_every_public_name_it_had():
    old = {"KIND_ALIASES", "TRUSTED_COMMANDS", "add_console_commands", "add_diff_command", "build_parser",
           "import_inputs", "input_dataset", "intervals_json_text", "kind_name", "limits_from", "load_inputs",
           "main", "parse_levels", "parse_weights", "policy_from", "read_prices", "run_badge", "run_diff",
           "run_explain", "run_methodology", "run_pack", "run_receipt", "run_report", "run_sample", "run_serve",
           "run_verify", "scorecard_table_text", "serve_command", "streamlit_config_flags", "table_text"}
    assert old <= set(commands.__all__) and all(hasattr(commands, name) for name in old)
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    commands.add_diff_command(sub)
    commands.add_console_commands(sub)
    assert list(_subcommands(parser)) == ["diff", "serve", "sample", "methodology"]


_WATCH_IMPORTS = """
import os, runpy, sys
class Watch:  # asked first for every module not yet imported, by an import statement or importlib.import_module
    def find_spec(self, name, path=None, target=None):
        os.write(2, f"imported {name}\\n".encode())  # past sys.stderr, which the report's worker captures
sys.meta_path.insert(0, Watch())  # the worker is a fork: the finder goes with it
sys.argv = sys.argv[1:]
if sys.argv[0] == "-m":
    sys.argv = ["scoring", *sys.argv[2:]]
    runpy.run_module("scoring", run_name="__main__")
else:
    exec(sys.argv[0])
"""


def _imported(*args: str) -> set[str]:
    """The modules a fresh interpreter imports to run ``args``: ``-m scoring ARG...``, or one line of code."""
    done = subprocess.run([sys.executable, "-c", _WATCH_IMPORTS, *args], cwd=CLI.parents[1], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.split()[1] for line in done.stderr.splitlines() if line.startswith("imported ")}


def test_a_report_imports_its_own_subcommand_and_no_analysis():
    """``python -m scoring report FILE`` imports the report's module alone of the subcommands, and none of the
    analyses (explain, diff, uncertainty...) that other subcommands and ``scoring.score`` use: they start sooner."""
    modules = _imported("-m", "scoring", "report", str(SAMPLE))
    assert "scoring.cli.report" in modules and "scoring.measures.report" in modules  # the list is read right
    assert {m for m in modules if m.startswith("scoring.cli.")} == {f"scoring.cli.{m}" for m in (
        "dispatch", "options", "report", "shared")}
    assert not {m for m in modules if m.startswith("scoring.analysis")}


def test_import_scoring_leaves_the_analyses_until_scoring_score_is_asked_for():
    """Each public name of ``scoring`` is imported when first asked for: ``import scoring`` alone loads none of
    them (nor pandas), a measure loads its own modules, and the analyses wait for ``scoring.score``."""
    alone = _imported("import scoring")
    assert {m for m in alone if m.startswith("scoring")} == {"scoring", "scoring.contract", "scoring.contract.lazy"}
    assert not {m for m in alone if m.startswith(("pandas", "numpy", "pyarrow"))}, sorted(alone)
    modules = _imported("import scoring\nscoring.Report")
    assert "scoring.measures.report" in modules and not {m for m in modules if m.startswith("scoring.analysis")}
    import scoring
    from scoring.analysis.notebook import score

    assert scoring.score is score and "score" in scoring.__all__
    with pytest.raises(AttributeError, match="no attribute 'scores'"):
        scoring.scores  # noqa: B018 (the attribute access is the test)


def test_a_command_line_parsed_with_its_subcommand_alone_reads_as_with_all_of_them():
    """main() builds the parser of the named subcommand only: its usage (in every refusal) and its options are those
    of the parser of all of them."""
    whole, alone = build_parser(), build_parser(names=["report"])
    assert alone.format_usage() == whole.format_usage()
    assert _subcommands(alone)["report"].format_help() == _subcommands(whole)["report"].format_help()
    argv = ["report", str(SAMPLE), "--format", "table"]
    read = [vars(p.parse_args(argv)) for p in (alone, whole)]
    # Each parse carries its subcommand's own parser (a refusal shows its usage): the same usage, a parser each
    assert [r.pop("command_parser").format_usage() for r in read] == [_subcommands(whole)["report"].format_usage()] * 2
    assert read[0] == read[1]


LONG = "x" * 100_000 + "\u202e"  # a stranger's id: long enough to bury a message, a bidi control at its end


@pytest.mark.parametrize(("args", "starts"), [
    (("badge", SAMPLE, LONG), "no agent 'xxx"),
    (("explain", SAMPLE, LONG), "no agent 'xxx"),
    (("receipt", SAMPLE, LONG), "no agent 'xxx"),
    (("pack", SAMPLE, "-o", "OUT.html", "--radar", LONG), "--radar: no agent 'xxx"),
    (("diff", SAMPLE, SAMPLE, "--agent", LONG, "--replicates", "20"), "--agent: no agent 'xxx"),
    (("report", SAMPLE, "--weights", LONG), "usage:"),
    (("report", SAMPLE, "--weights", f"correctness={LONG}"), "usage:"),
    (("report", SAMPLE, "--k", LONG), "usage:"),
], ids=["badge", "explain", "receipt", "pack", "diff", "weights", "weight", "k"])
def test_a_refusal_quotes_a_strangers_id_in_at_most_60_characters(args, starts, tmp_path):
    """Every refusal that quotes an id or a word given on the command line quotes at most 60 characters of it
    (fmt.named), escaped: before, badge, explain, receipt, pack and diff --agent echoed all 100,000."""
    result = scoring_cli(*args, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == "", result.stderr[:300]
    err = result.stderr
    assert err.startswith(starts) and "Traceback" not in err, err[:300]
    assert len(err) < 1500 and "\u202e" not in err and "x" * 61 not in err, err[:300]
