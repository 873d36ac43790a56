"""Adding a radar axis is one record in ``scoring/measures/axes.py`` and its name in ``scoring/contract/policy.py``
(``RADAR_AXIS_NAMES``, the lowest home of the names, so that policy.py imports nothing above it):
everything else follows.

A copy of the project gets a sixth axis, ``evidence`` (100 x known outcomes / window runs, a made-up
rule), added to the registry and the name list and nowhere else; the report JSON, the CSV, the SQL engine, the
methodology rules, the radar chart, the policy's default weights, the receipt and the radar page's
sliders must all carry it. The README's "Adding an axis" paragraph is this test in words.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

NEW_AXIS = '''    Axis("evidence", "Evidence",
         ((lambda p: "Evidence = known outcomes ÷ window runs (a test axis).", "explorer-defined"),),
         lambda agg, policy: 100 * safe_divide(agg.n_known.astype(float), agg.n_window.astype(float)),
         _per_agent(lambda agg, i, policy: Fact("{k:count} known of {n:count}",
                                                {"k": agg.n_known[i], "n": agg.n_window[i]}))),
)
AXIS_BY_NAME = '''

CHECK = r'''
import json, sys
from pathlib import Path

import pytest
from scoring import CANONICAL_POLICY, RADAR_AXES, load_runs, score_runs
from scoring.outputs.methodology import rules
from scoring.outputs.receipt import build_receipt
from scoring.engines.sql_engine import score_file_sql
from explorer.charts import radar_chart
from explorer.pack import build_pack
from scoring.outputs.downloads import DatasetInfo
from streamlit.testing.v1 import AppTest

sample = Path("sample_data/runs.csv")
runs = load_runs(sample).runs
report = score_runs(runs)
doc = json.loads(report.to_json_text())
agent = doc["agents"][0]
sql = json.loads(score_file_sql(sample).to_json_text())
at = AppTest.from_file("app.py", default_timeout=120)
at.run()
at.switch_page("views/radar.py").run()
print(json.dumps({
    "axes": list(RADAR_AXES),
    "json": agent["radar"]["axes"],
    "weights": agent["radar"]["weights"],
    "sql": sql["agents"][0]["radar"]["axes"],
    "csv": report.to_csv_text().splitlines()[0].split(","),
    "rules": [r.statement for r in rules(CANONICAL_POLICY) if "Evidence" in r.statement],
    "default_weights": dict(CANONICAL_POLICY.default_radar_weights),
    "chart": list(radar_chart([a.radar for a in report.agents[:1]]).data[0].theta),
    "receipt": sorted(build_receipt(report.agents[0], runs[runs["agent_id"] == agent["agent_id"]])["radar"]["axes"]),
    "sliders": [s.key for s in at.slider],
    "pack": build_pack(report, DatasetInfo("runs.csv", "0" * 64, len(runs))).count("<th class=num>Evidence</th>"),
    "exception": [str(e.value) for e in at.exception],
}))
'''


def test_a_sixth_axis_added_to_the_registry_reaches_every_output(tmp_path):
    for item in ("scoring", "explorer", "views", "app.py", "sample_data", ".streamlit"):
        source = ROOT / item
        if source.is_dir():
            shutil.copytree(source, tmp_path / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / item)
    axes = tmp_path / "scoring" / "measures" / "axes.py"
    text = axes.read_text()
    assert text.count(")\nAXIS_BY_NAME = ") == 1
    axes.write_text(text.replace(")\nAXIS_BY_NAME = ", NEW_AXIS))
    policy = tmp_path / "scoring" / "contract" / "policy.py"
    names = '"tool_efficiency", "robustness")'
    assert policy.read_text().count(names) == 1
    policy.write_text(policy.read_text().replace(names, '"tool_efficiency", "robustness", "evidence")'))
    result = subprocess.run([sys.executable, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["axes"][-1] == "evidence"
    assert 0 <= found["json"]["evidence"] <= 100
    assert found["sql"] == found["json"]
    assert found["default_weights"]["evidence"] == 0.2  # the default viewer weight of every axis
    assert found["weights"]["evidence"] == found["weights"]["correctness"] == pytest.approx(1 / 6)  # 0.2 of 1.2
    assert "radar_evidence" in found["csv"]
    assert found["rules"]
    assert "Evidence" in found["chart"]
    assert "evidence" in found["receipt"]
    assert "weight_evidence" in found["sliders"]
    assert found["pack"] == 1  # the review pack's radar table formats the new column as a number (by name)
    assert found["exception"] == []


def test_the_scoring_package_never_imports_streamlit():
    """Every module of scoring/ (and explorer.pack, which `python -m scoring pack` uses) imports without
    streamlit: the core runs in a CLI, a notebook or a Spark driver."""
    code = ("import importlib, pkgutil, sys, scoring\n"
            "for m in pkgutil.walk_packages(scoring.__path__, 'scoring.'):\n"
            "    if not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
            "import explorer.pack\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'streamlit'))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"
