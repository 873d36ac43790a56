"""The installable package and the CI recipe (issue 25), from a fresh virtual environment.

The wheel is built (``python -m build``) from a copy of the working tree and installed into a new virtual
environment: not the repository's ``.venv``, no system site-packages, its dependencies from a wheelhouse of
the pinned versions only (``--no-index``), so it gets exactly what the wheel declares. Then the ``run:``
steps of ``examples/github-actions.yml`` (all but the harness) run as GitHub would run them.

Select with ``-m packaging``. The wheelhouse is downloaded once (through the machine's pip configuration)
into ``~/.cache/scoring-explorer-tests/`` and reused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.helpers import free_port

# One group: the wheel and its virtual environment are built once (a module fixture), on one worker.
pytestmark = [pytest.mark.packaging, pytest.mark.xdist_group("packaging")]

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
TAU2 = ROOT / "tests" / "fixtures" / "tau2" / (
    "2025-10-06T06-22-46.727114_airline_llm_agent_grok-3-mini_user_simulator_grok-3-mini.json")
WORKFLOW = ROOT / "examples" / "github-actions.yml"
CORE = ("pandas", "numpy", "pyarrow")


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, (f"{command[:4]} exited {done.returncode}:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def core_pins() -> list[str]:
    """The core dependencies' pins in requirements.txt (the versions the repository is tested with)."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep and name.strip() in CORE:
            pins[name.strip()] = f"{name.strip()}=={version.strip()}"
    assert sorted(pins) == sorted(CORE)
    return [pins[name] for name in CORE]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the working tree (tracked and new files, links kept as links)."""
    listed = _run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT).stdout.split("\0")
    src = tmp_path_factory.mktemp("src")
    for name in filter(None, listed):
        origin, target = ROOT / name, src / name
        if not origin.exists() and not origin.is_symlink():
            continue  # deleted in the working tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_symlink():
            os.symlink(os.readlink(origin), target)
        else:
            shutil.copy2(origin, target)
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(src)])
    (built,) = dist.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def wheelhouse() -> Path:
    """Wheels of the pinned core dependencies (and theirs), downloaded once."""
    pins = core_pins()
    key = hashlib.sha256(f"{sys.version_info[:2]}{pins}".encode()).hexdigest()[:12]
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    house = home / "scoring-explorer-tests" / f"wheelhouse-{key}"
    if not (house / ".complete").exists():
        house.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary", ":all:", "-d", str(house), *pins])
        (house / ".complete").touch()
    return house


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel, wheelhouse) -> dict[str, str]:
    """A fresh virtual environment (from the base interpreter, without the repository's packages) and the
    environment its steps run in: its bin first on PATH, pip offline on the wheelhouse, no PYTHONPATH."""
    where = tmp_path_factory.mktemp("venv") / "env"
    base = getattr(sys, "_base_executable", sys.executable)
    _run([base, "-m", "venv", str(where)])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(PATH=f"{where / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(where), PIP_NO_INDEX="1",
               PIP_FIND_LINKS=str(wheelhouse), PIP_NO_COMPILE="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_CONFIG_FILE=os.devnull, AGENTSCORE=str(wheel))
    return env


def workflow_steps() -> list[tuple[str, str]]:
    """(name, script) of every ``run:`` step of the example workflow but the harness."""
    doc = yaml.safe_load(WORKFLOW.read_text())
    steps = [(s.get("name", ""), s["run"]) for s in doc["jobs"]["score"]["steps"]
             if "run" in s and s.get("id") != "harness"]
    assert [name for name, _ in steps] == ["Install agentscore", "Score the harness output", "Write the badge",
                                           "Compare with the baseline"]
    return steps


def run_steps(env: dict[str, str], work: Path, **values: str) -> dict[str, subprocess.CompletedProcess[str]]:
    """The workflow's steps in order, as GitHub runs them (bash -eo pipefail), until one fails."""
    summary = work / "summary.md"
    summary.touch()
    env = {**env, **yaml.safe_load(WORKFLOW.read_text())["env"], **values, "GITHUB_STEP_SUMMARY": str(summary)}
    results = {}
    for name, script in workflow_steps():
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)
        results[name] = done
        if done.returncode:
            break
    return results


def shell(env: dict[str, str], work: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), cwd=work, env=env, capture_output=True, text=True, timeout=600)


def test_recipe_fails_on_a_real_drop_and_the_core_install_needs_no_extra(venv, wheel, tmp_path):
    # The harness output: the sample with every fourth successful run of steady-pro turned into a failure.
    raw = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    won = raw.index[(raw["agent_id"] == "steady-pro") & (raw["success"] == "true")]
    raw.loc[won[::4], "success"] = "false"
    (tmp_path / "results").mkdir()
    raw.to_csv(tmp_path / "results" / "runs.csv", index=False)
    (tmp_path / "baseline").mkdir()
    shutil.copy(SAMPLE, tmp_path / "baseline" / "runs.csv")
    steps = run_steps(venv, tmp_path, AGENTSCORE=str(wheel), AGENT="steady-pro")
    for name in ("Install agentscore", "Score the harness output", "Write the badge"):
        assert steps[name].returncode == 0, steps[name].stderr
    gate = steps["Compare with the baseline"]
    assert gate.returncode == 1, gate.stderr
    assert "gate: steady-pro dropped" in gate.stderr and "Traceback" not in gate.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert re.search(r"^\| `steady-pro` \| 86\.96 \| [\d.]+ \| -[\d.]+ \| -[\d.]+ to -[\d.]+ \| \*\*worse\*\* \|$",
                     summary, re.M)
    assert summary.count("| no real change |") == 9 and max(map(len, summary.splitlines())) <= 100
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert len(report["agents"]) == 10
    badge = (tmp_path / "out" / "badge.svg").read_text()
    assert badge.startswith("<svg") and "steady-pro" in badge

    # The same environment: only the core's dependencies, and every extra's feature says what to install.
    probe = shell(venv, tmp_path, "python", "-c", "import importlib.util as u, scoring; "
                  "print(scoring.__file__); print([m for m in ('streamlit', 'plotly', 'duckdb', 'pyspark', "
                  "'inspect_ai', 'psycopg') if u.find_spec(m)])")
    assert probe.returncode == 0, probe.stderr
    where, found = probe.stdout.splitlines()
    assert str(ROOT) not in where and "site-packages" in where and found == "[]"
    shutil.copy(ROOT / "tests" / "fixtures" / "inspect" / "probe.eval", tmp_path / "probe.eval")
    for command, extra in ((["serve"], "app"), (["report", "results/runs.csv", "--engine", "sql"], "sql"),
                           (["pack", "results/runs.csv", "-o", "review.html"], "pack"),
                           (["report", "probe.eval"], "inspect"), (["diff", "probe.eval", "probe.eval"], "inspect")):
        refused = shell(venv, tmp_path, "agentscore", *command)
        assert refused.returncode == 2 and f"scoring-methodology-explorer[{extra}]" in refused.stderr
        assert "Traceback" not in refused.stderr
    sample = shell(venv, tmp_path, "agentscore", "sample")
    assert sample.stdout.encode() == SAMPLE.read_bytes()
    methodology = shell(venv, tmp_path, "agentscore", "methodology")
    assert methodology.stdout == (ROOT / "docs" / "published-methodology.md").read_text()


def test_recipe_passes_on_unchanged_harness_results(venv, wheel, tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "baseline").mkdir()
    shutil.copy(TAU2, tmp_path / "results" / "results.json")
    shutil.copy(TAU2, tmp_path / "baseline" / "results.json")
    steps = run_steps(venv, tmp_path, AGENTSCORE=str(wheel), RESULTS="results/results.json",
                      BASELINE="baseline/results.json", AGENT="xai/grok-3-mini@airline")
    assert [s.returncode for s in steps.values()] == [0, 0, 0, 0], [s.stderr[-2000:] for s in steps.values()]
    summary = (tmp_path / "summary.md").read_text()
    assert "| `xai/grok-3-mini@airline` | 47.64 | 47.64 | +0.00 | +0.00 to +0.00 | no real change |" in summary
    assert "Gate: fail on a real drop of 1 point or more: passed." in summary


def test_the_app_starts_from_the_wheel_with_its_extra(tmp_path_factory, wheel):
    """``pip install 'wheel[app]'`` in another fresh environment: ``agentscore serve`` answers its health check,
    and the app's script runs headless on the bundled sample (Streamlit's AppTest) without an exception."""
    pins = core_pins() + [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
                          if line.startswith(("streamlit==", "plotly=="))]
    key = hashlib.sha256(f"{sys.version_info[:2]}{pins}app".encode()).hexdigest()[:12]
    house = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "scoring-explorer-tests" / f"app-{key}"
    if not (house / ".complete").exists():
        house.mkdir(parents=True, exist_ok=True)
        constraints = house / "constraints.txt"
        constraints.write_text("\n".join(pins) + "\n")
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary", ":all:", "-d", str(house), "-c",
              str(constraints), f"{wheel}[app]"])
        (house / ".complete").touch()
    where = tmp_path_factory.mktemp("appvenv") / "env"
    _run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(where)])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(PATH=f"{where / 'bin'}{os.pathsep}{env.get('PATH', '')}", PIP_CONFIG_FILE=os.devnull)
    work = tmp_path_factory.mktemp("appwork")
    _run([str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile", "--no-index",
          "--find-links", str(house), f"{wheel}[app]"], env=env, cwd=work)
    check = ("from streamlit.testing.v1 import AppTest\n"
             "from explorer.pages import APP_DIR\n"
             "at = AppTest.from_file(str(APP_DIR / 'app.py'), default_timeout=240).run()\n"
             "assert not at.exception, [e.value for e in at.exception]\n"
             "print(APP_DIR)\n"
             "print(' '.join(c.value for c in at.caption))\n")
    ran = _run([str(where / "bin" / "python"), "-c", check], env=env, cwd=work)
    app_dir, captions = ran.stdout.splitlines()[:2]
    assert app_dir.endswith("site-packages/explorer/_app")
    assert "2,796 runs" in captions and "10 agents" in captions

    import urllib.request

    port = free_port()
    server = subprocess.Popen([str(where / "bin" / "agentscore"), "serve", "--port", str(port), "--address",
                               "127.0.0.1"], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        answer = None
        for _ in range(600):  # polls the health endpoint (up to about 5 minutes on a loaded machine)
            if server.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                    answer = response.read().decode()
                    break
            except OSError:
                server_wait(server)
        assert answer == "ok", server.stdout.read() if server.poll() is not None else "no answer"
    finally:
        server.kill()  # the server of this test only (nothing of it needs a graceful stop)
        server.wait()


def server_wait(server: subprocess.Popen[str]) -> None:
    """Wait half a second for the server to exit (it usually does not): the health poll's pace."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(timeout=0.5)
