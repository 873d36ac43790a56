"""``serve [--port N] [-- STREAMLIT_ARGS]``: the explorer app (extra [app]); this process becomes ``streamlit run``
with the app's own Streamlit configuration as flags.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tomllib
from pathlib import Path

from scoring.cli.shared import Refused
from scoring.contract.extras import missing_module_message
from scoring.contract.limits import Limits


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``serve`` on the command line's subcommands."""
    serve = sub.add_parser("serve", help="start the explorer app (needs the [app] extra)",
                           description="Start the Scoring Methodology Explorer (Streamlit) on the sample data; "
                                       "arguments after -- go to `streamlit run`.")
    serve.add_argument("--port", type=int, default=8501, help="the port (default 8501)")
    serve.add_argument("--address", default=None, help="the address to listen on (default: Streamlit's)")
    serve.add_argument("streamlit_args", nargs=argparse.REMAINDER, metavar="-- STREAMLIT_ARGS",
                       help="further `streamlit run` options, after --")
    serve.set_defaults(run=run_serve)
    return serve


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
    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("plotly") is None:
        missing = "streamlit" if importlib.util.find_spec("streamlit") is None else "plotly"
        raise Refused(missing_module_message(missing, "serve (the app)", "app") or "")
    command = serve_command(args)
    print(f"serve: {' '.join(command[1:])}", file=sys.stderr)
    sys.stderr.flush()
    os.execv(sys.executable, command)  # the app's process from here on (signals reach it directly)
    return 0  # pragma: no cover - execv does not return
