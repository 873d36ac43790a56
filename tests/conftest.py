import os
import sys
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# CI (.ci/run sets CI=true) draws the same examples on every run: a rare example a random run finds is a bug to fix
# and pin with @example, never a job that fails one run in many (a fresh clone's run found one on 2026-12-06, the
# anchor inverse near the smallest doubles). Runs elsewhere keep drawing new examples.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def _scan_for_components_once() -> None:
    """Every ``AppTest`` scans the metadata of every installed distribution for Streamlit components (its own
    ``BidiComponentManager``); a real server scans once, at start. The installed packages do not change during a
    test run, so the scan's answer is kept for the process: the scan was about three quarters of an AppTest
    run's CPU (125 distributions' METADATA parsed as e-mail headers, per run). Each caller gets its own list."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "kept_for_the_process", False):
        return
    found: list = []

    def scan_once(max_workers: int | None = None) -> list:
        if not found:
            found.append(scan(max_workers))
        return list(found[0])

    scan_once.kept_for_the_process = True  # type: ignore[attr-defined]
    manifest_scanner.scan_component_manifests = scan_once


def pytest_collection_finish(session) -> None:
    # Only where a collected module imported Streamlit: a scoring-only run pays nothing for it.
    if "streamlit" in sys.modules:
        _scan_for_components_once()


BROWSER_GROUP = "browser"


def pytest_collection_modifyitems(config, items) -> None:
    """``xdist_group`` marks group nothing under pytest 9.2 with pytest-xdist 3.8.0: xdist tags a grouped test by
    appending ``@group`` to ``item._nodeid``, which pytest 9.2 no longer reads (a node's id is ``item._id``), so
    every grouped test was scheduled on its own (the Spark session, the PostgreSQL server and each grouped module's
    fixtures started on both processes). On an xdist worker in ``--dist loadgroup``, the tag is put where pytest
    reads it; the scheduler then keeps each group on one process.

    Every real-browser test is in the group ``browser``: one process runs the browser suite (one app server, one
    chromium) while the two others run the rest beside it (``make test``: ``-n 3``), so the suite's waits on the
    server and the browser overlap with the rest's work. On a quiet machine (2026-12-02) the rest on two processes
    then the browser suite on one took 8 min 20 s + 8 min 26 s; everything in one run on three processes 12 min
    41 s. Two browser groups (two app servers, two chromiums) were slower: 13 min 05 s on four processes."""
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        if item.get_closest_marker("browser"):
            names = sorted({*names, BROWSER_GROUP})
        if names and "@" not in item.nodeid.rpartition("]")[2]:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(names)}")
