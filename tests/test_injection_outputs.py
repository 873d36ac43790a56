"""Hostile agent and task names in the outputs test_injection.py did not reach: widget labels and page links
(Markdown), the receipt and diff Markdown, the terminal table and import lines (control sequences), the review
pack (bidi controls). Found by an injection audit on 2026-12-04; each test failed before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from explorer import pack
from scoring import runs_from_records, score_runs
from scoring.outputs import downloads
from scoring.outputs.receipt import build_receipt, receipt_markdown
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
TAU2 = ROOT / "tests" / "fixtures" / "tau2" / (
    "2025-10-13T12-25-14.993547_airline_llm_agent_grok-3_user_simulator_grok-3_task_11.json")
LEAK = "![leak](http://attacker.example/leak.png)"
HEADER = "run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at"
# What a remote fetch, a link or raw HTML looks like once Markdown is rendered (CommonMark, HTML allowed, as
# GitHub renders a pull-request comment before its sanitizer).
REMOTE = re.compile(r"<img|<a |attacker\.example/[^\"]*\"")


def _records(names: list[str], runs_each: int = 4, **extra) -> list[dict]:
    return [{"run_id": f"r{i}_{j}", "agent_id": name, "task_id": f"t{j % 2}", "status": "completed",
             "success": (j + i) % 2 == 0, "latency_ms": 1000.0 + j, "cost_usd": 0.01, **extra}
            for i, name in enumerate(names) for j in range(runs_each)]


def _csv(names: list[str]) -> bytes:
    lines = [HEADER] + [
        f"{r['run_id']},\"{r['agent_id'].replace(chr(34), chr(34) * 2)}\",{r['task_id']},completed,"
        f"{'true' if r['success'] else 'false'},{r['latency_ms']},0.01,3,2026-07-01T00:00:{k:02d}Z"
        for k, r in enumerate(_records(names))]
    return ("\n".join(lines) + "\n").encode()


# --------------------------------------------------------------------------- the app: widget labels are Markdown


def test_compare_metric_labels_do_not_render_an_agent_name_as_markdown():
    """st.metric's label is Markdown (images, links, KaTeX): opening Compare fetched the name's image."""
    evil = f"{LEAK} $\\sum$ **gpt-5**"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("evil.csv", _csv([evil, "beta"]), "text/csv")).run()
    at.switch_page("views/compare.py").run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert any("leak" in label for label in labels), labels  # agent A is shown
    for label in labels:
        assert "![leak](" not in label and "$\\sum$" not in label and "**gpt-5**" not in label, label


# --------------------------------------------------------------------------- Markdown documents


def test_a_newline_in_an_agent_id_does_not_escape_the_receipt_code_span():
    evil = f"x\n\n{LEAK}\n\n<img src=http://attacker.example/i.png>\n\n# Verified: score 100"
    runs = runs_from_records(_records([evil]))
    text = receipt_markdown(build_receipt(score_runs(runs).agents[0], runs))
    rendered = MarkdownIt("commonmark").render(text)
    assert not REMOTE.search(rendered), rendered[:600]
    assert rendered.count("<h1>") == 1, rendered[:600]


def test_diff_markdown_keeps_agent_names_inert(tmp_path):
    names = [f"{LEAK}<img src=//attacker.example/i>[ok](http://attacker.example/)", "a\n\n# forged\n|x"]
    for file, good in (("base.json", 9), ("new.json", 1)):
        (tmp_path / file).write_text(json.dumps(
            [{"run_id": f"r{k}_{j}", "agent_id": n, "task_id": f"t{j % 4}", "status": "completed",
              "success": j % 10 < good, "latency_ms": 100, "cost_usd": 0.01}
             for k, n in enumerate(names) for j in range(20)]))
    out = scoring_cli("diff", tmp_path / "base.json", tmp_path / "new.json", "--format", "markdown",
                      "--fail-on-drop", "1", "--replicates", "200", cwd=ROOT)
    assert out.returncode == 1 and "FAILED" in out.stdout, out.stderr  # the gate names both agents
    rendered = MarkdownIt("commonmark").enable("table").render(out.stdout)
    assert not REMOTE.search(rendered), re.findall(r"<(?:img|a |h1)[^>]*>", rendered)
    assert "<h1>" not in rendered


# --------------------------------------------------------------------------- the terminal

CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # everything but tab and newline


def test_the_terminal_table_prints_no_control_sequence_from_a_name(tmp_path):
    evil = "x\x1b]8;;http://evil.example/\x07CLICK\x1b]8;;\x07\x1b[1A\x1b[2K\rFAKE: all passed\x1b[2J"
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(_records([evil, "b"], runs_each=2)))
    out = scoring_cli("report", path, "--format", "table", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert not CONTROLS.search(out.stdout), repr(out.stdout[:400])
    assert not CONTROLS.search(out.stderr), repr(out.stderr[:400])


def test_the_explain_and_diff_tables_print_no_control_sequence_from_a_name(tmp_path):
    evil = "x\x1b]8;;http://evil.example/\x07CLICK\x1b]8;;\x07\x1b[2J\ttab"
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(_records([evil, "b"], runs_each=4)))
    new.write_text(json.dumps(_records([evil, "b"], runs_each=6)))
    outs = [scoring_cli("explain", base, "b", "--format", "table", cwd=ROOT),  # the agent above b is the evil one
            scoring_cli("diff", base, new, "--format", "table", "--replicates", "50", "--fail-on-drop", "0", cwd=ROOT)]
    for out in outs:
        assert out.stdout.strip(), out.stderr
        assert not CONTROLS.search(out.stdout) and "\t" not in out.stdout, repr(out.stdout[:400])
        assert not CONTROLS.search(out.stderr), repr(out.stderr[:400])
    assert "x\\x1b]8;;http://evil.example/" in outs[1].stdout  # shown, escaped


def test_import_lines_print_no_control_sequence_from_a_harness_file(tmp_path):
    doc = json.loads(TAU2.read_text())
    doc["info"]["agent_info"]["llm"] = "grok\x1b[2J\x1b[H\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07"
    path = tmp_path / "evil\x1b[7m.json"
    path.write_text(json.dumps(doc))
    out = scoring_cli("report", path, "--format", "table", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    import_lines = [line for line in out.stderr.splitlines() if line.startswith("import:")]
    assert import_lines and not any(CONTROLS.search(line) for line in import_lines), import_lines[:3]


# --------------------------------------------------------------------------- bidi spoofing in the pack

BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_a_bidi_override_in_an_agent_id_cannot_reverse_the_pack_text_after_it():
    """'#7 gpt-4<RLO>-lartsim — 65.45' displayed as '#7 gpt-454.56 — mistral-': the score read backwards.
    The badge already replaces bidi controls (scoring.outputs.badge.safe_text); the pack must either do the same
    or isolate each name (<bdi>), so nothing the pack itself writes is reordered."""
    runs = runs_from_records(_records(["gpt-4\u202e-lartsim", "b"]))
    document = pack.build_pack(score_runs(runs), downloads.DatasetInfo("x.csv", "0" * 64, len(runs)))
    html_part = document.split("</script>", 1)[1]
    text = re.sub(r"<script.*?</script>", "", html_part, flags=re.S)  # the charts' JSON aside
    outside_isolates = re.sub(r"<bdi>.*?</bdi>", "", text, flags=re.S)
    found = {f"U+{ord(c):04X}" for c in BIDI.findall(outside_isolates)}
    assert not found, found


def test_a_runs_link_label_quoting_a_task_id_is_plain_text(monkeypatch):
    from explorer import data, drill

    shown: list[str] = []
    monkeypatch.setattr(data, "page_link", lambda page, label, *args, **kwargs: shown.append(label))
    drill.runs_link(drill.RunsFilter(agents=("a",), tasks=(LEAK,)), f"Open its runs on task {LEAK}")
    (label,) = shown
    # escaped, and a word joiner between the colon and "//": no bare address for remark-gfm to link
    assert label == r"Open its runs on task \!\[leak\]\(http\:" + "\u2060" + r"\/\/attacker\.example\/leak\.png\)"


# --------------------------------------------------------------------------- names that only look alike


def test_agent_ids_that_only_look_alike_are_scored_apart_with_a_warning_in_both_engines(tmp_path):
    from scoring import load_runs
    from scoring.engines.sql_engine import score_file_sql

    names = ["gpt-4", "gpt-4\u200b", "GPT-4", "caf\u00e9", "cafe\u0301", "\uff47pt-5", "gpt-5", "claude"]
    path = tmp_path / "runs.csv"
    path.write_bytes(_csv(names))
    loaded = load_runs(path)
    assert len(score_runs(loaded.runs).agents) == len(names)  # SPEC 1: ids compare as text
    said = [w for w in loaded.warnings if "read alike" in w]
    assert said == [w for w in score_file_sql(path).warnings if "read alike" in w]
    assert len(said) == 3 and "'GPT-4', 'gpt-4', 'gpt-4\\u200b'" in said[0]  # the difference shows
    # A combining accent is written as its escape too: repr drew 'cafe\u0301' as 'café', beside 'café' itself
    assert any("'café', 'cafe\\u0301'" in w or "'cafe\\u0301', 'café'" in w for w in said), said
    assert not any("claude" in w for w in said)
    distinct = tmp_path / "distinct.csv"
    distinct.write_bytes(_csv(["gpt-4", "gpt-5"]))
    assert not any("read alike" in w for w in load_runs(distinct).warnings)


def _spelt_files(tmp_path: Path) -> dict[str, Path]:
    """tests/spellings.py's ids written several ways, as CSV, JSON, Parquet text and a dictionary-encoded Parquet."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from tests.spellings import SPELT_APART_CSV

    table = pcsv.read_csv(pa.py_buffer(SPELT_APART_CSV.encode()),
                          convert_options=pcsv.ConvertOptions(column_types={"run_id": pa.string()},
                                                              strings_can_be_null=False))
    paths = {name: tmp_path / name for name in ("runs.csv", "runs.json", "text.parquet", "dictionary.parquet")}
    paths["runs.csv"].write_text(SPELT_APART_CSV)
    paths["runs.json"].write_text(json.dumps(table.to_pylist(), default=str))
    pq.write_table(table, paths["text.parquet"])
    encoded = table.set_column(1, "agent_id", table["agent_id"].dictionary_encode())
    pq.write_table(encoded.set_column(2, "task_id", encoded["task_id"].dictionary_encode()),
                   paths["dictionary.parquet"])
    return paths


def test_ids_written_several_ways_are_one_id_each_with_the_same_warning_in_both_engines(tmp_path):
    """Surrounding whitespace is trimmed, so 'gpt-4' and 'gpt-4 ' are one agent: no longer without a word (a
    reviewer's 200-id upload, 2026-12-05). The loader's paths (the Arrow checks on text and on a dictionary, the
    cell-by-cell parser of JSON) and DuckDB say it alike; an id written one way, whitespace or not, gets none."""
    import pyarrow.parquet as pq

    from scoring import load_runs
    from scoring.engines.sql_engine import score_file_sql
    from tests.spellings import SPELT_APART_AGENTS, SPELT_APART_WARNINGS

    paths = _spelt_files(tmp_path)
    assert str(pq.read_schema(paths["dictionary.parquet"]).field("agent_id").type).startswith("dictionary")
    for name, path in paths.items():
        loaded = load_runs(path)
        assert tuple(sorted(loaded.runs["agent_id"].unique())) == SPELT_APART_AGENTS, name
        assert list(loaded.warnings) == SPELT_APART_WARNINGS, name
        if path.suffix != ".json":
            assert list(score_file_sql(path).warnings) == SPELT_APART_WARNINGS, name
    (tmp_path / "one_way.csv").write_bytes(_csv(["gpt-4 ", " claude", "x"]))
    for score in (lambda p: load_runs(p).warnings, lambda p: score_file_sql(p).warnings):
        assert not any("whitespace" in w for w in score(tmp_path / "one_way.csv"))


def test_every_invisible_or_unencodable_character_is_escaped_for_a_terminal():
    """Every control, separator, lone surrogate and format character of this Python's Unicode (a reviewer's table
    showed "a", "a\\u200b" and "a\\ufeff" as three identical rows)."""
    import sys
    import unicodedata

    from scoring.contract.format import one_line

    categories = ("Cc", "Cf", "Cs", "Zl", "Zp")
    unsafe = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in categories]
    assert len(unsafe) > 2000  # the surrogates alone are 2,048
    kept = [f"U+{ord(ch):04X}" for ch in unsafe if one_line(ch) == ch]
    assert not kept, kept
    assert one_line("café 😀 a-b_c.d") == "café 😀 a-b_c.d"


def test_ids_that_differ_by_an_invisible_character_read_apart_in_the_terminal_table(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(_records(["a", "a\u200b", "a\ufeff"], runs_each=2)))
    out = scoring_cli("report", path, "--format", "table", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    agents = [line.split()[1] for line in out.stdout.splitlines()[2:5]]
    assert sorted(agents) == ["a", "a\\u200b", "a\\ufeff"], out.stdout
