"""Hostile names: HTML, Markdown and script in agent, task and file names stay plain text everywhere."""

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer import charts
from scoring import runs_from_records, score_runs
from scoring.outputs.receipt import build_receipt, receipt_markdown

ROOT = Path(__file__).resolve().parents[1]
EVIL_AGENT = '<img src=x onerror=alert(1)>[click](javascript:alert(2))'
EVIL_TASK = "=HYPERLINK(\"http://x\")"
EVIL_FILE = "[x](javascript:alert(3))<b>bold</b>.csv"


def _csv() -> bytes:
    rows = ["run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at"]
    for i in range(6):
        rows.append(f'r{i},"{EVIL_AGENT}","{EVIL_TASK.replace(chr(34), chr(34) * 2)}",completed,'
                    f'{"true" if i % 2 else "false"},{1000 + i},0.01,3,2026-07-01T00:00:0{i}Z')
        rows.append(f"s{i},=cmd|' /C calc'!A0,t1,completed,true,900,0.01,2,2026-07-01T00:01:0{i}Z")
    return ("\n".join(rows) + "\n").encode()


def _markdown_texts(at) -> list[str]:
    texts = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader"):
        texts += [str(e.value) for e in getattr(at, kind)]
    texts += [str(e.value) for e in at.sidebar.caption]
    return texts


def test_hostile_names_are_escaped_in_every_markdown_element():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value((EVIL_FILE, _csv(), "text/csv")).run()
    assert not at.exception
    for text in _markdown_texts(at):
        # Every markdown special of a user-provided name arrives escaped, so nothing renders as a
        # link, an image or HTML.
        assert "](javascript" not in text and "<img" not in text and "<b>" not in text, text
    assert any("\\[x\\]" in t for t in _markdown_texts(at))  # the file name is shown, escaped


def test_hostile_names_are_escaped_in_charts_and_neutralized_in_csv():
    runs = runs_from_records([{"run_id": f"r{i}", "agent_id": EVIL_AGENT, "task_id": EVIL_TASK,
                               "status": "completed", "success": i % 2 == 0, "latency_ms": 1000 + i,
                               "cost_usd": 0.01, "steps": 3} for i in range(6)])
    report = score_runs(runs)
    figures = [charts.radar_chart([report.agents[0].radar]),
               charts.pass_k_bars([(EVIL_AGENT, report.agents[0].repeatability.pass_k)], (1, 3, 5)),
               charts.contribution_waterfall(report.agents[0].headline)]
    for fig in figures:
        text = json.dumps(fig.to_plotly_json(), default=str)
        assert "<img" not in text and "&lt;img" in text
    csv = report.to_csv_text()
    assert "\n1,'<img" not in csv  # not a formula: left alone
    evil = score_runs(runs_from_records([{"run_id": "x", "agent_id": "=cmd|' /C calc'!A0", "task_id": "t",
                                          "status": "completed", "success": True, "latency_ms": 1,
                                          "cost_usd": 0.01}])).to_csv_text()
    assert ",'=cmd|" in evil and ",=cmd|" not in evil


def test_receipt_markdown_keeps_names_inside_code_spans():
    runs = runs_from_records([{"run_id": "r", "agent_id": EVIL_AGENT, "task_id": "t", "status": "completed",
                               "success": True, "latency_ms": 1, "cost_usd": 0.01}])
    report = score_runs(runs)
    text = receipt_markdown(build_receipt(report.agents[0], runs))
    assert f"`{EVIL_AGENT}`" in text
