"""Shared helpers of the AppTest suites (``streamlit.testing.v1.AppTest``): a page under test, a run that must not
raise, the screen check for leaked values (NaN, None, reprs, raw HTML), tables found by a column, plotly specs,
and the edge-case and bad uploads. The test_app_*.py modules import from here, never from one another.
"""

from __future__ import annotations

import hashlib
import io
import json
import re

import pandas as pd
from streamlit import dataframe_util
from streamlit.testing.v1 import AppTest

import explorer.data
import explorer.pages

# AppTest resolves a relative path against the calling file (tests/), not the working directory.
# Every page but the sandbox (tests/test_app_sandbox.py drives it), from the app's own page list.
PAGES = {p.name: p.path for p in explorer.pages.PAGES if p.name != "sandbox"}
TIMEOUT = 60

# --------------------------------------------------------------------------- edge-case upload

HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at"
HTML_AGENT = "<script>alert(1)</script>"


def _edge_rows() -> list[str]:
    rows: list[str] = []
    n = 0

    def add(agent, task, status, success, latency, cost, steps, finished):
        nonlocal n
        n += 1
        rows.append(f"e{n:03d},{agent},{task},{status},{success},{latency},{cost},{steps},{finished}")

    def ts(i: int) -> str:
        return f"2026-07-01T{i // 60:02d}:{i % 60:02d}:00Z"

    # A healthy agent: enough completed runs for a measured consistency and qualifying pass^k tasks.
    for i in range(12):
        add("healthy", f"t{i % 3}", "completed", "true" if i % 4 else "false", 900 + 37 * i, 0.004 + 0.0005 * i,
            3 + i % 4, ts(i))
    # Only failed and timed-out runs: no completed run, so no headline score (unranked).
    for i in range(4):
        add("only-failed", f"t{i % 2}", "failed" if i % 2 else "timeout", "false", 5000 + i, 0.02, 6, ts(20 + i))
    # Completed runs, none successful: the zero-success floor.
    for i in range(6):
        add("zero-success", f"t{i % 2}", "completed", "false", 700 + 10 * i, 0.003, 2, ts(30 + i))
    # Fewer than five completed runs: neutral consistency (plus a cancelled and a queued run).
    for i in range(3):
        add("few-runs", "t0", "completed", "true" if i else "false", 1500 + 100 * i, 0.01, 4, ts(40 + i))
    add("few-runs", "t1", "cancelled", "", "", "", "", ts(43))
    add("few-runs", "t1", "queued", "", "", "", "", "")
    # No steps and no cost anywhere: cost score 0 (flagged), tool-efficiency and cost axes unavailable.
    for i in range(6):
        add("no-steps-no-cost", f"t{i % 2}", "completed", "true" if i % 3 else "false", 2500 + 50 * i, "", "",
            ts(50 + i))
    # No finished_at at all (the column exists, every value is empty), and no recorded latency.
    for i in range(5):
        add("no-finished-at", f"t{i % 2}", "completed", "true" if i % 2 else "false", "", 0.05, 8, "")
    # A single run.
    add("single-run", "t0", "completed", "true", 1200, 0.002, 1, ts(70))
    # An agent whose id is HTML: it must be shown as text, never interpreted.
    for i in range(2):
        add(HTML_AGENT, "t0", "completed", "true", 800, 0.001, 2, ts(80 + i))
    return rows


EDGE_CSV = (HEADER + "\n" + "\n".join(_edge_rows()) + "\n").encode()
EDGE_AGENTS = ["healthy", "only-failed", "zero-success", "few-runs", "no-steps-no-cost", "no-finished-at",
               "single-run", HTML_AGENT]


# --------------------------------------------------------------------------- helpers

def page(name: str, upload: bytes | None = None, *, upload_name: str = "edge.csv") -> AppTest:
    """A page under test; with ``upload``, seeded as ``explorer.data.use_upload`` would have left it."""
    at = AppTest.from_file(str(PAGES[name]), default_timeout=TIMEOUT)
    if upload is not None:
        show_upload(at, upload, upload_name)
    return at


def show_upload(at: AppTest, upload: bytes, upload_name: str = "edge.csv") -> AppTest:
    """``at`` on ``upload`` from its next run, as ``explorer.data.use_upload`` would have left it."""
    at.session_state["dataset"] = explorer.data.Dataset(
        name=upload_name, digest=hashlib.sha256(upload).hexdigest(), kind="upload")
    at.session_state["upload_file"] = io.BytesIO(upload)  # the uploader's file, as use_upload keeps it
    return at


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


TEXT_KINDS = ("title", "header", "subheader", "markdown", "caption", "metric", "info", "warning", "error",
              "success", "code")


def texts(at: AppTest) -> list[tuple[str, str]]:
    """Every piece of text a person reads: (element kind, text)."""
    out = []
    for kind in TEXT_KINDS:
        for el in getattr(at, kind):
            if kind == "metric":
                out += [(kind, str(el.label)), (kind, str(el.value))]
            else:
                out.append((kind, str(getattr(el, "body", None) or el.value)))
    for widget in list(at.selectbox) + list(at.multiselect) + list(at.radio):
        out += [("options", str(o)) for o in widget.options]
    return out


# "None of the 6 completed runs succeeded" is English, not a leaked value.
LEAK = re.compile(r"\bNaN\b|\bnan\b|\bNone\b|<NA>|\bNaT\b|<scoring\.|<explorer\.|Headline\(|Radar\(|"
                  r"Repeatability\(|AgentReport\(|Report\(|Policy\(|Anchors\(|Dataset\(|Scored\(|Refused\(|"
                  r"object at 0x")


def leaks(text: str) -> list[str]:
    return LEAK.findall(text.replace("None of", ""))


def display_frame(el) -> pd.DataFrame | None:
    """The formatted cells a Styler-backed dataframe shows, or None for a plain frame."""
    raw = el.proto.arrow_data.styler.display_values
    return dataframe_util.convert_arrow_bytes_to_pandas_df(raw) if raw else None


# A read-only st.dataframe carries no element id (only a selectable one does), so its ``key`` is not
# visible to AppTest: tables are found by a column only they have.
TABLE_COLUMN = {"leaderboard": "Flags", "profile_ranking": "Profile score", "constants": "Constant",
                "probe": "Plain float", "pass_k_summary": "Qualifying tasks", "task_table": "Outcomes (n)"}


def dataframe(at: AppTest, key: str):
    found = [d for d in at.dataframe if TABLE_COLUMN[key] in d.value.columns]
    assert len(found) == 1, f"no single {key} table: {[list(d.value.columns) for d in at.dataframe]}"
    return found[0]


def plotly_specs(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


BAD_CELL = {"None", "nan", "NaN", "<NA>", "NaT", "none"}


def assert_clean(at: AppTest, where: str) -> None:
    problems = [(kind, text[:120], found) for kind, text in texts(at) if (found := leaks(text))]
    assert not problems, f"{where}: raw values or Python repr on screen: {problems}"
    raw_html = [(kind, text[:120]) for kind, text in texts(at)
                if kind in ("markdown", "caption", "info", "warning", "error", "success")
                and re.search(r"(?<!\\)<script", text)]
    assert not raw_html, f"{where}: unescaped HTML in markdown: {raw_html}"
    for el in at.dataframe:
        shown = display_frame(el)
        frame = el.value if shown is None else shown
        for column in frame.columns:
            if shown is None and frame[column].dtype != object and not pd.api.types.is_string_dtype(frame[column]):
                continue  # numeric cells of a plain frame: the grid shows an empty cell for a missing one
            cells = {str(v).strip() for v in frame[column].tolist()}
            assert not cells & BAD_CELL, f"{where}: table column {column!r} shows {cells & BAD_CELL}"
    for spec in plotly_specs(at):
        title = (spec.get("layout", {}).get("title") or {}).get("text", "")
        assert not leaks(title), f"{where}: chart title {title!r}"


# --------------------------------------------------------------------------- a bad upload

BAD_CSV = (
    HEADER + "\n"
    "r1,agent-a,t1,completed,true,1000,0.01,3,2026-07-01T00:00:00Z\n"
    "r2,agent-a,t1,done,true,1000,0.01,3,2026-07-01T00:01:00Z\n"
    "r3,agent-b,t1,completed,true,-5,0.01,3,2026-07-01T00:02:00Z\n"
    "r4,agent-b,t2,completed,false,900,0.02,3,2026-07-01T00:03:00Z\n"
    "r5,agent-b,t2,completed,maybe,900,0.02,3,2026-07-01T00:04:00Z\n"
    "r6,agent-a,t2,completed,true,1100,0.01,3,2026-07-01T00:05:00Z\n"
).encode()


def plotly_array(value) -> list[float]:
    """A plotly JSON array: a plain list or the typed-array form {'dtype', 'bdata'}."""
    if isinstance(value, dict) and "bdata" in value:
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    return [float(v) for v in value]


def app_with_uploads(*files: tuple[str, bytes, str]) -> AppTest:
    """The app through app.py with ``files`` uploaded (name, bytes, MIME type) and its first run over them."""
    from pathlib import Path

    at = run(AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=TIMEOUT))
    at.radio(key="source_kind").set_value("Upload a file")
    run(at)
    at.file_uploader(key="upload").set_value(list(files))
    return run(at)


def stop_bootstraps(monkeypatch, name: str, message: str) -> list[tuple]:
    """``explorer.untrusted.<name>`` (bootstrap, compare or diff: the app's bootstraps in a worker) replaced by one
    that records its arguments and raises BootstrapStopped(``message``), as a limit would stop it; the shared cache is
    the test's own (nothing another test computed). Returns the calls, as they come."""
    from explorer import data, untrusted

    monkeypatch.setattr(data, "_DATASETS", None)
    calls: list[tuple] = []

    def stopped(*args):
        calls.append(args)
        raise untrusted.BootstrapStopped(message)

    monkeypatch.setattr(untrusted, name, stopped)
    return calls
