"""Ways a score receipt, or what `verify` prints about it, could say something the data does not (found by an
audit of 2026-12-04; each test failed before its fix)."""

import json
import tracemalloc
from pathlib import Path

import pytest

from scoring import CANONICAL_POLICY, load_runs, score_runs
from scoring.analysis.sandbox import policy_from_dict, policy_to_dict
from scoring.contract.safejson import load_json
from scoring.outputs.receipt import ReceiptError, build_receipt, parse_receipt, receipt_json
from tests.helpers import scoring_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
CONTROLS = [chr(c) for c in range(0x20) if chr(c) not in "\n"] + ["\x7f"]


def _receipt(agent_id="swift-lite", policy=CANONICAL_POLICY):
    runs = load_runs(SAMPLE)
    runs = getattr(runs, "runs", runs)
    report = score_runs(runs, policy)
    return build_receipt(report.agent(agent_id), runs[runs["agent_id"] == agent_id]), runs


def test_a_sandbox_receipt_cannot_hide_its_sandbox_label_from_the_terminal(tmp_path):
    # A sandbox policy's version is the receipt author's text: ESC[8m (conceal) before "+sandbox-..." makes
    # the success line read "reproduces: swift-lite under 2026-07-zero-success-v1" on a terminal.
    constants = policy_to_dict(CANONICAL_POLICY)
    constants.update(version="2026-07-zero-success-v1\x1b[8m", success_weight=0.5, execution_weight=0.2)
    receipt, _ = _receipt(policy=policy_from_dict(constants))
    path = tmp_path / "receipt.json"
    path.write_text(receipt_json(receipt))
    out = scoring_cli("verify", path, SAMPLE)
    assert out.returncode == 0
    assert not any(c in out.stdout for c in CONTROLS), repr(out.stdout)
    assert "sandbox" in out.stdout


def test_a_failing_receipt_cannot_print_a_line_that_reads_as_a_pass(tmp_path):
    # A key only the receipt has is named in the failure line, as given: a carriage return and ESC[8m in it
    # redraw the line as "reproduces: ..." and hide the rest.
    receipt, _ = _receipt()
    receipt["\rreproduces: swift-lite under 2026-07-zero-success-v1\x1b[8m"] = 1
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(receipt))
    out = scoring_cli("verify", path, SAMPLE)
    assert out.returncode == 1
    assert not any(c in out.stderr for c in CONTROLS), repr(out.stderr)


def test_verify_shows_an_invisible_character_in_the_agent_id(tmp_path):
    # 'swift\u200b-lite' prints exactly like 'swift-lite': the success line must tell them apart.
    runs_csv = tmp_path / "runs.csv"
    text = SAMPLE.read_text()
    runs_csv.write_text(text + "".join(f"zz-{i},swift\u200b-lite,task-01,completed,true,600,0.002,2,"
                                       f"2026-06-20T00:00:0{i}Z\n" for i in range(6)))
    runs = load_runs(runs_csv)
    runs = getattr(runs, "runs", runs)
    agent = "swift\u200b-lite"
    receipt = build_receipt(score_runs(runs).agent(agent), runs[runs["agent_id"] == agent])
    path = tmp_path / "receipt.json"
    path.write_text(receipt_json(receipt))
    out = scoring_cli("verify", path, runs_csv)
    assert out.returncode == 0
    assert "swift-lite" not in out.stdout.replace("\u200b", ""), out.stdout  # shown escaped, not as look-alike


@pytest.mark.parametrize("where", ["headline", "policy"])
def test_a_receipt_with_a_key_given_twice_is_refused(where):
    # json.loads keeps the last of two equal keys: a receipt that shows a reader "score": 99.99 first
    # verified, because only the second, true value was checked. Scorecards refuse this; receipts must too.
    receipt, _runs = _receipt()
    text = receipt_json(receipt)
    if where == "headline":
        true = f'"score": {receipt["headline"]["score"]},'
        forged = text.replace(true, '"score": 99.99, ' + true, 1)
    else:
        forged = text.replace('"success_weight": 0.4,', '"success_weight": 0.9, "success_weight": 0.4,', 1)
    assert forged != text
    with pytest.raises(ReceiptError, match="more than once"):
        parse_receipt(forged)


def test_checking_a_parsed_document_does_not_multiply_its_memory():
    # A 63 MB receipt of empty objects (under the 64 MB cap) took 2.3 GB and 15 s before it was refused:
    # the check kept every pending value with its path text. The check should cost little beyond the parse.
    data = "[" + "{}," * 299_999 + "{}]"
    tracemalloc.start()
    json.loads(data)
    parse_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    tracemalloc.start()
    load_json(data, max_bytes=64_000_000, max_depth=16)
    checked_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert checked_peak < 1.5 * parse_peak, (parse_peak, checked_peak)


def test_a_receipt_over_the_memory_limit_is_named_not_the_runs_file(tmp_path):
    hostile = tmp_path / "receipt.json"
    hostile.write_text('{"pad": [' + "{}," * 2_999_999 + "{}]}")
    out = scoring_cli("verify", hostile, SAMPLE, "--max-memory", "1MB")
    assert out.returncode == 2
    assert str(hostile) in out.stderr, out.stderr
