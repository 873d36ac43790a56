"""The console command (``agentscore``, installed with the package ``scoring-methodology-explorer``): every
subcommand of ``python -m scoring``, plus ``serve`` (the app), ``sample`` (the bundled sample runs) and
``methodology`` (the published methodology), which are registered here.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tomllib
from pathlib import Path

from scoring.contract.extras import missing_module_message
from scoring.contract.limits import Limits
from scoring.contract.resources import PUBLISHED_METHODOLOGY, SAMPLE_RUNS

PROG = "agentscore"


def main(argv: list[str] | None = None) -> int:
    """The ``agentscore`` console script."""
    from scoring.cli.commands import main as cli_main

    return cli_main(argv, prog=PROG)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``serve``, ``sample`` and ``methodology`` on the command line's subcommands."""
    serve = sub.add_parser("serve", help="start the explorer app (needs the [app] extra)",
                           description="Start the Scoring Methodology Explorer (Streamlit) on the sample data; "
                                       "arguments after -- go to `streamlit run`.")
    serve.add_argument("--port", type=int, default=8501, help="the port (default 8501)")
    serve.add_argument("--address", default=None, help="the address to listen on (default: Streamlit's)")
    serve.add_argument("streamlit_args", nargs=argparse.REMAINDER, metavar="-- STREAMLIT_ARGS",
                       help="further `streamlit run` options, after --")
    serve.set_defaults(run=run_serve)
    sample = sub.add_parser("sample", help="write the bundled sample runs (CSV) to stdout or a file")
    sample.add_argument("-o", "--output", default=None, metavar="PATH", help="write here instead of stdout")
    sample.set_defaults(run=run_sample)
    methodology = sub.add_parser("methodology", help="print the published methodology the scores follow (Markdown)")
    methodology.set_defaults(run=run_methodology)


def _app_script() -> Path:
    from explorer.pages import APP_DIR  # explorer.pages imports nothing of streamlit's at import time

    return APP_DIR / "app.py"


def streamlit_config_flags(path: Path) -> list[str]:
    """The app's Streamlit configuration (``.streamlit/config.toml``) as ``streamlit run`` flags, so an installed
    app runs as configured wherever it is started from.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
    ...     _ = f.write('[server]\\nmaxUploadSize = 200\\nheadless = true\\n[client]\\ntoolbarMode = "minimal"\\n')
    >>> streamlit_config_flags(Path(f.name))
    ['--server.maxUploadSize', '200', '--server.headless', 'true', '--client.toolbarMode', 'minimal']
    """
    with open(path, "rb") as handle:
        config = tomllib.load(handle)
    flags: list[str] = []
    for section, options in config.items():
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags += [f"--{section}.{key}", text]
    return flags


def serve_command(args: argparse.Namespace) -> list[str]:
    """The ``streamlit run`` command line that ``serve`` replaces itself with."""
    script = _app_script()
    config = script.parent / "config.toml"
    if not config.is_file():  # a clone: the config is where Streamlit itself looks for it
        config = script.parent / ".streamlit" / "config.toml"
    extra = [a for a in args.streamlit_args if a != "--"]
    command = [sys.executable, "-m", "streamlit", "run", str(script), *streamlit_config_flags(config),
               "--server.port", str(args.port)]
    if args.address:
        command += ["--server.address", args.address]
    return command + extra


def run_serve(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.cli.commands import _Refused

    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("plotly") is None:
        missing = "streamlit" if importlib.util.find_spec("streamlit") is None else "plotly"
        raise _Refused(missing_module_message(missing, "serve (the app)", "app") or "")
    command = serve_command(args)
    print(f"serve: {' '.join(command[1:])}", file=sys.stderr)
    sys.stderr.flush()
    os.execv(sys.executable, command)  # the app's process from here on (signals reach it directly)
    return 0  # pragma: no cover - execv does not return


def run_sample(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.cli.commands import _Refused, _write

    data = SAMPLE_RUNS.read_bytes()
    if args.output is None:
        return _write(data.decode("utf-8"))
    try:
        Path(args.output).write_bytes(data)
    except OSError as exc:
        raise _Refused(f"{args.output}: cannot write the sample ({exc.strerror or exc})") from None
    print(f"sample: wrote {args.output} ({len(data):,} bytes)", file=sys.stderr)
    return 0


def run_methodology(args: argparse.Namespace, limits: Limits) -> int:
    from scoring.cli.commands import _write

    return _write(PUBLISHED_METHODOLOGY.read_text(encoding="utf-8"))
