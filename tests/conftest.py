import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


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
