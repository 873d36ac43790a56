"""What a meeting room notices: one scale per measure, the whole policy version, the jargon explained."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from explorer import format as fmt
from explorer import glossary
from scoring import load_runs, score_runs
from tests.apptest_helpers import dataframe, display_frame, page, run

ROOT = Path(__file__).resolve().parents[1]


def test_the_leaderboard_spells_each_quantity_once():
    at = run(page("leaderboard"))
    shown = display_frame(dataframe(at, "leaderboard")).set_index("Agent")
    report = score_runs(load_runs(ROOT / "sample_data" / "runs.csv").runs)
    for a in report.agents:
        h = a.headline
        assert shown.loc[a.agent_id, "Success rate"] == fmt.rate(h.success_rate)  # a rate: 72.52%
        assert shown.loc[a.agent_id, "Execution"] == fmt.factor(h.execution_score)  # a 0-1 factor: 0.6987
        assert shown.loc[a.agent_id, "Consistency"] == fmt.factor(h.consistency)
        assert shown.loc[a.agent_id, "Cost score"] == fmt.factor(h.cost_score)


def test_one_spelling_per_quantity_on_every_page_the_pack_the_cli_and_the_badge():
    """crashy-runner's success rate, execution, score, latency and cost read alike everywhere (issue 24)."""
    from explorer.pack import build_pack
    from scoring.cli.commands import table_text
    from scoring.outputs.badge import badge_message
    from scoring.outputs.downloads import DatasetInfo

    report = score_runs(load_runs(ROOT / "sample_data" / "runs.csv").runs)
    h = report.agent("crashy-runner").headline
    spelled = {"success": "72.52%", "execution": "0.6987", "score": "74.67", "latency": "3,029 ms",
               "cost": "$0.0089"}
    assert (fmt.rate(h.success_rate), fmt.factor(h.execution_score), fmt.score(h.score), fmt.ms(h.avg_latency_ms),
            fmt.usd(h.avg_cost_usd)) == tuple(spelled.values())
    board = display_frame(dataframe(run(page("leaderboard")), "leaderboard")).set_index("Agent").loc["crashy-runner"]
    assert [board["Success rate"], board["Execution"], board["Score"], board["Avg latency (ms)"],
            board["Avg cost (USD)"]] == list(spelled.values())
    headline = page("headline")
    headline.session_state["view_state"] = {"agent": "crashy-runner"}
    run(headline)
    metrics = {m.label: m.value for m in headline.metric}
    assert (metrics["Success rate"], metrics["Execution score"], metrics["Headline score"]) == \
        (spelled["success"], spelled["execution"], spelled["score"])
    info = DatasetInfo(name="runs.csv", sha256="0" * 64, runs=1)
    pack = build_pack(report, info)
    row = pack[pack.index("<td>crashy-runner</td>"):]
    row = row[:row.index("</tr>")]
    for value in spelled.values():
        assert f">{value}<" in row, (value, row)
    cli_row = next(line for line in table_text(report).splitlines() if "crashy-runner" in line)
    for value in (spelled["success"], spelled["execution"], spelled["score"]):
        assert value in cli_row.split(), (value, cli_row)
    assert badge_message(h) == spelled["score"]


def test_a_difference_of_rates_is_in_percentage_points():
    assert fmt.pp(0.032) == "+3.20 pp" and fmt.pp(-0.5) == "-50.00 pp" and fmt.pp(None) == fmt.DASH
    at = page("compare")
    at.session_state["view_state"] = {"agent": "crashy-runner"}
    run(at)
    tasks = display_frame(next(d for d in at.dataframe if "Success rate A" in d.value.columns))
    assert all(v.endswith(" pp") or v == fmt.DASH for v in tasks["Difference"])
    assert not any(v.endswith("%") for v in tasks["Difference"])


def test_the_policy_version_is_shown_whole():
    at = run(page("leaderboard"))
    assert not [m for m in at.metric if m.label == "Policy version"]  # a metric cuts it at ~20 characters
    assert any("`2026-07-zero-success-v1`" in m.value for m in at.markdown)


@pytest.mark.parametrize("term", ["bootstrap", "replicates", "seed", "percentile interval", "tie group",
                                  "Pareto frontier", "pstdev", "pass^k", "p50", "window", "profile score"])
def test_the_glossary_explains_the_jargon_in_a_sentence(term):
    text = glossary.explain(term)
    assert 40 < len(text) < 400 and text.endswith(".")
    assert f"**{term}**" in glossary.tooltip(term)


def test_a_term_not_in_the_glossary_fails_loudly():
    with pytest.raises(KeyError):
        glossary.explain("pstdv")


def test_a_refused_row_is_shown_with_the_line_of_the_file_it_starts_on():
    good = "r{i},a,t,completed,true,100,0.01,2,2026-07-01T00:00:00Z"
    body = "\n".join(good.format(i=i) for i in range(56)) + "\nr56,a,t,completed,maybe,100,0.01,2,\n"
    at = run(page("leaderboard", f"run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at\n"
                                 f"{body}".encode(), upload_name="bad.csv"))
    (table,) = [d.value for d in at.dataframe]
    assert table[["row", "line"]].values.tolist() == [[57, 58]]  # row 57 is line 58: both said


def test_a_file_no_row_of_which_can_be_excluded_is_not_offered_the_exclusion():
    whole = b"run_id,agent_id,task_id,status\nr1,a,t,completed\n"  # columns missing: a problem of the whole file
    at = run(page("leaderboard", whole, upload_name="whole.csv"))
    refusal = " ".join(e.value for e in at.error)
    assert "was refused" in refusal and "exclude" not in refusal and refusal.endswith("fix the file.")
    assert any("no row can be excluded" in c.value for c in at.caption)
    assert not [b for b in at.button if b.key == "exclude_invalid"]


def test_a_huge_valid_cost_or_latency_reads_in_powers_of_ten_not_hundreds_of_digits():
    """Any finite number >= 0 is a valid cost or latency, so a hostile file may give 1e300: fmt.ms and fmt.usd (the
    leaderboard's, the pack's and every page's), the headline's sentences and the CLI's table show it as
    1.0000e+300, not as 301 digits of which all but 16 are noise; an amount below fmt.HUGE keeps its usual spelling."""
    from scoring import runs_from_records
    from scoring.cli.commands import table_text

    runs = [{"run_id": f"r{i}", "agent_id": agent, "task_id": f"t{i}", "status": "completed", "success": True,
             "latency_ms": latency, "cost_usd": cost, "finished_at": f"2026-07-01T00:00:0{i}Z"}
            for i, (agent, latency, cost) in enumerate([("huge", 1e300, 3e299), ("huge", 1e300, 3e299),
                                                        ("plain", 999_999_999_999_999.0, 12_345.5)])]
    report = score_runs(runs_from_records(runs))
    huge, plain = report.agent("huge").headline, report.agent("plain").headline
    assert (fmt.ms(huge.avg_latency_ms), fmt.usd(huge.avg_cost_usd)) == ("1.0000e+300 ms", "$3.0000e+299")
    assert (fmt.ms(plain.avg_latency_ms), fmt.usd(plain.avg_cost_usd)) == ("999,999,999,999,999 ms", "$12,345.50")
    assert max(len(line) for line in table_text(report).splitlines()) < 200
    text = " ".join(str(f) for f in huge.explain())
    assert "1.0000e+300 ms" in text and "0000000000" not in text


def test_a_leaderboard_column_holding_a_number_past_2_53_is_shown_as_its_text():
    """Streamlit draws a number of 2^53 or more as an error cell (its raw 1e+300 and "larger than the maximum
    supported integer") whatever the Styler says: such a column is sent as its formatted text instead, and a
    column of ordinary numbers stays numeric (it sorts as numbers)."""
    huge = (ROOT / "sample_data" / "runs.csv").read_text(encoding="utf-8") + "".join(
        f"huge-{i},hostile-huge,task-0{i},completed,true,1e300,3e299,,2026-06-01T00:00:0{i}Z\n" for i in range(6))
    board = dataframe(run(page("leaderboard", huge.encode())), "leaderboard")
    sent, shown = board.value.set_index("Agent"), display_frame(board).set_index("Agent")
    assert shown.loc["hostile-huge", "Avg latency (ms)"] == "1.0000e+300 ms"
    assert shown.loc["hostile-huge", "Avg cost (USD)"] == "$3.0000e+299"
    assert sent.loc["hostile-huge", "Avg latency (ms)"] == "1.0000e+300 ms"  # text, not a number Streamlit refuses
    assert sent.loc["steady-pro", "Avg latency (ms)"] == "1,446 ms"
    assert pd.api.types.is_float_dtype(sent["Score"])  # the other numeric columns are numbers still
    plain = dataframe(run(page("leaderboard")), "leaderboard").value
    assert all(pd.api.types.is_float_dtype(plain[c]) for c in ("Avg latency (ms)", "Avg cost (USD)"))
