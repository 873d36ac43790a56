"""The Compare page's two-datasets mode (issue 25): the link's new parameters read as hostile input, the helpers
of explorer.diffs and the diff tables of explorer.tables, and the page itself (AppTest, session state seeded)."""

from __future__ import annotations

import urllib.parse

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from explorer import data, diffs, state, tables
from scoring.analysis.diff import diff_runs
from scoring.contract.resources import SAMPLE_RUNS
from scoring.load.runs import load_runs
from scoring.measures.report import score_runs
from tests.apptest_helpers import PAGES, TIMEOUT, display_frame, leaks, stop_bootstraps, texts

SHA = "0123456789abcdef"

# --------------------------------------------------------------------------- the link's parameters


@pytest.mark.parametrize(("text", "token"), [
    ("sample", "sample"), (f"upload:{SHA}", f"upload:{SHA}"), (f"import:{SHA.upper()}", f"import:{SHA}"),
    ("db:prod/runs_2026", "db:prod/runs_2026"), (" sample ", "sample")])
def test_a_dataset_value_reads_back_as_the_same_token(text, token):
    assert state.dataset_token(state.dataset_source(text)) == token


@pytest.mark.parametrize("text", [
    "", "upload", "upload:", f"upload:{SHA[:-1]}", f"upload:{SHA}0", "upload:0123456789abcdeg", "url",
    f"file:{SHA}", "db:", "db:prod", "db:prod/", "db:/runs", "db:../../etc/passwd", "db:prod/runs;drop table",
    "<script>alert(1)</script>", "sample\x00", "x" * 400, f"data=upload&sha={SHA}"])
def test_a_hostile_dataset_value_is_refused_with_its_reason(text):
    with pytest.raises(ValueError, match="must be sample, upload:<16 hex digits>") as caught:
        state.dataset_source(text)
    assert len(str(caught.value)) < 250  # the value is quoted shortened, never whole


def test_the_mode_and_both_datasets_make_a_round_trip_through_a_link():
    view = {"compare": "datasets", "baseline": f"upload:{SHA}", "new": "db:prod/runs"}
    encoded = state.encode(view, "compare")
    assert encoded == view
    parsed = state.parse(encoded, [], page="compare")
    assert parsed.notices == [] and parsed.values == view
    # The defaults are left out of a link: two agents of one dataset, the sample on both sides.
    assert state.encode({"compare": "agents", "baseline": "sample", "new": "sample"}, "compare") == {}


def test_hostile_mode_and_dataset_parameters_give_one_notice_each_and_set_nothing():
    parsed = state.parse({"compare": "<b>both</b>", "baseline": f"upload:{SHA}'--", "new": "db:../x/y"}, [])
    assert parsed.values == {}
    assert [n.split(":", 1)[0] for n in parsed.notices] == ["compare", "baseline", "new"]
    assert "compare: must be one of agents, datasets, got '<b>both</b>'; ignored" in parsed.notices
    # Repeated values: the first is read, with a notice.
    parsed = state.parse({"compare": ["datasets", "agents"], "new": ["sample", f"upload:{SHA}"]}, [])
    assert parsed.values == {"compare": "datasets", "new": "sample"}
    assert parsed.notices == ["compare: given 2 times; the first is used", "new: given 2 times; the first is used"]


# --------------------------------------------------------------------------- explorer.diffs helpers


def test_a_dataset_is_named_in_a_link_by_its_kind_and_hash_or_table_never_its_file_name():
    digest = "ab" * 32
    upload = data.Dataset("secret name.csv", digest, "upload")
    assert state.dataset_token(diffs.source_of(upload)) == "upload:abababababababab"
    imported = data.Dataset("results.json", digest, "import", sources=("cd" * 32,))
    assert state.dataset_token(diffs.source_of(imported)) == "import:cdcdcdcdcdcdcdcd"  # one file: its bytes' hash
    tagged = data.Dataset("results.json", digest, "import", sources=("cd" * 32,), experiments=("v2",))
    assert state.dataset_token(diffs.source_of(tagged)) == "import:abababababababab"  # a tag: the import digest
    table = data.Dataset("runs @ prod", digest, "connection", table="runs", connection="prod")
    assert state.dataset_token(diffs.source_of(table)) == "db:prod/runs"
    # A viewer's own database URL is never named: such a dataset is written as the sample.
    assert state.dataset_token(diffs.source_of(data.Dataset("runs @ host", digest, "url", table="runs"))) == "sample"


def test_a_table_the_deployment_does_not_offer_is_refused_by_name():
    connections = {"prod": ("runs",)}
    assert diffs.offered(state.dataset_source("db:prod/runs"), connections) is None
    assert diffs.offered(state.dataset_source("sample"), connections) is None
    assert diffs.offered(state.dataset_source(f"upload:{SHA}"), {}) is None
    for text in ("db:prod/users", "db:staging/runs"):
        assert diffs.offered(state.dataset_source(text), connections) == (
            f"{text} is not a connection and table this deployment offers; the sample data is used")


# --------------------------------------------------------------------------- the diff tables

CSV = """run_id,agent_id,task_id,status,success,latency_ms,cost_usd,steps,finished_at
{rows}
"""


def runs(successes: dict[str, list[bool]], repeats: int = 1) -> pd.DataFrame:
    """Per agent, ``repeats`` completed runs per task t0, t1, ... with the given outcome (same latency, cost,
    steps)."""
    rows = [f"{agent}-{i}-{r},{agent},t{i},completed,{str(ok).lower()},1000,0.01,3,2026-07-01T{r:02d}:{i:02d}:00Z"
            for agent, outcomes in successes.items() for i, ok in enumerate(outcomes) for r in range(repeats)]
    return load_runs(CSV.format(rows="\n".join(rows)).encode(), name="runs.csv").runs


def test_the_verdict_table_lays_out_the_diffs_numbers_new_minus_baseline():
    baseline = runs({"kept": [True] * 8, "dropped": [True] * 8, "gone": [True] * 4})
    new = runs({"kept": [True] * 8, "dropped": [True] * 6 + [False] * 2, "fresh": [True] * 4})
    d = diff_runs(baseline, new, replicates=200, seed=1)
    frame = tables.diff_verdicts(d)
    assert list(frame.columns) == ["Agent", "Baseline", "New", "Change", "Interval low", "Interval high", "Verdict"]
    rows = {r["Agent"]: r for r in frame.to_dict("records")}
    assert set(rows) == {"kept", "dropped"} and d.only_in_baseline == ("gone",) and d.only_in_new == ("fresh",)
    for a in d.agents:
        row = rows[a.agent_id]
        assert (row["Baseline"], row["New"], row["Verdict"]) == (a.headline.baseline, a.headline.new, a.verdict)
        assert row["Change"] == pytest.approx(row["New"] - row["Baseline"], abs=0.011)
        assert row["Interval low"] <= row["Change"] <= row["Interval high"]
    assert rows["kept"]["Change"] == 0 and rows["kept"]["Verdict"] == "no real change"
    # Two of eight tasks lost: the success component (weight 0.4 of 100 points) drops by 0.4 * 100 * 2/8 = 10.
    points = tables.diff_points(next(a for a in d.agents if a.agent_id == "dropped")).set_index("Measure")
    assert points.loc["Points: success rate", "Change"] == pytest.approx(-10.0)
    assert points.loc["Radar: correctness", "Change"] == pytest.approx(-25.0)
    for column in ("Baseline", "New", "Change"):
        assert str(points[column].dtype) == "Float64"


def test_the_pass_k_table_keeps_rates_and_the_newly_solved_lists_come_from_the_diff():
    baseline = runs({"a": [True, False, True, True]}, repeats=5)
    new = runs({"a": [False, True, False, True]}, repeats=5)
    [a] = diff_runs(baseline, new, replicates=100, seed=1).agents
    assert a.newly_solved == ("t1",) and a.newly_failed == ("t0", "t2")
    frame = tables.diff_pass_k(a)
    assert list(frame["Level"]) == [f"pass^{k}" for k in a.pass_k]
    # Every task's runs all succeed or all fail: pass^k is the share of tasks solved, 3/4 then 2/4, for every k.
    assert list(frame["Baseline"]) == pytest.approx([0.75] * len(a.pass_k))
    assert list(frame["Change"]) == pytest.approx([-0.25] * len(a.pass_k))


def test_the_app_s_diff_runs_in_a_worker_with_the_same_numbers():
    # The app compares the two datasets in a worker under the deployment's limits (explorer.untrusted.diff): the
    # same verdicts, changes and intervals as in process.
    from explorer import untrusted
    from scoring.contract.limits import Limits

    baseline = runs({"kept": [True] * 8, "dropped": [True] * 8})
    new = runs({"kept": [True] * 8, "dropped": [True] * 6 + [False] * 2})
    here = diff_runs(baseline, new, replicates=200, seed=1, baseline_name="b.csv", new_name="n.csv")
    there = untrusted.diff(baseline, new, 200, 1, ("b.csv", "n.csv"), Limits())
    assert tables.diff_verdicts(there).equals(tables.diff_verdicts(here))
    assert [a.comparison.independent_interval for a in there.agents] == \
        [a.comparison.independent_interval for a in here.agents]
    assert (there.baseline_name, there.new_name) == ("b.csv", "n.csv")


# --------------------------------------------------------------------------- the page (AppTest)


def compare_page(view: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(PAGES["compare"]), default_timeout=TIMEOUT)
    at.session_state[state.STORE] = dict(view)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def verdicts(at: AppTest) -> pd.DataFrame:
    [frame] = [d.value for d in at.dataframe if "Verdict" in d.value.columns]
    return frame


def test_the_sample_against_itself_is_no_real_change_for_every_agent():
    at = compare_page({"compare": "datasets"})
    assert at.radio(key="compare_mode").value == "datasets"
    assert [t.value for t in at.title] == ["Compare two datasets"]  # the title follows the mode
    assert [at.radio(key=f"diff_{side}_kind").value for side in diffs.SIDES] == [diffs.SAMPLE, diffs.SAMPLE]
    frame = verdicts(at)
    sample = load_runs(SAMPLE_RUNS.read_bytes(), name="runs.csv").runs
    assert sorted(frame["Agent"]) == sorted(sample["agent_id"].unique())
    assert set(frame["Verdict"]) == {"no real change"}
    assert (frame["Change"] == 0).all() and (frame["Interval low"] == 0).all() and (frame["Interval high"] == 0).all()
    shown = "\n".join(t for _, t in texts(at))
    assert "Only in the baseline** (0): none" in shown and "Newly failed** (0): none" in shown
    assert "Both datasets are the same file (the same sha256)" in shown
    [table] = [d for d in at.dataframe if "Verdict" in d.value.columns]
    assert set(display_frame(table)["Change"]) == {"+0.00"}  # a change is signed, as the command line writes it
    assert "Baseline agent" not in frame.columns  # no pairs: each agent is its own baseline
    assert not leaks(shown)
    assert at.session_state[state.STORE]["baseline"] == "sample" and at.session_state[state.STORE]["new"] == "sample"


def test_a_diff_stopped_at_a_limit_says_why_and_shows_nothing_half_done(monkeypatch):
    # Stopped by a limit (explorer.untrusted.diff in a worker), the page says why where the verdicts would be, shows
    # no verdict, and a rerun is told again from the shared cache without a second worker.
    calls = stop_bootstraps(monkeypatch, "diff", "The bootstrap of 1,000 replicates of each agent took too long.")
    at = compare_page({"compare": "datasets"})
    assert [e.value.replace("\\", "") for e in at.error] == [  # markdown escapes removed: the text a person reads
        "No comparison: The bootstrap of 1,000 replicates of each agent took too long."]
    assert not [d for d in at.dataframe if "Verdict" in d.value.columns]
    at.run()
    assert [c[2:4] for c in calls] == [(1000, 20260701)] and len(at.error) == 1


def test_the_pass_k_changes_are_written_in_percentage_points():
    at = compare_page({"compare": "datasets", "agent": "crashy-runner"})
    assert at.selectbox(key="diff_agent").value == "crashy-runner"
    [pass_k] = [d for d in at.dataframe if "Level" in d.value.columns]
    cells = pass_k.proto.arrow_data.styler.display_values
    from streamlit import dataframe_util

    shown = dataframe_util.convert_arrow_bytes_to_pandas_df(cells)
    assert set(shown["Change"]) == {"+0.00 pp"}
    assert all(str(v).endswith("%") for v in shown["Baseline"])


def test_a_link_to_an_upload_waits_for_that_file_and_names_it():
    at = compare_page({"compare": "datasets", "baseline": f"upload:{SHA}"})
    assert at.radio(key="diff_baseline_kind").value == diffs.UPLOAD
    infos = "\n".join(i.value for i in at.info)
    assert f"baseline dataset is an uploaded file whose sha256 starts with `{SHA}`" in infos
    assert "The comparison appears once both datasets are chosen" in infos
    assert not [d for d in at.dataframe if "Verdict" in d.value.columns]
    assert at.session_state[state.STORE]["baseline"] == f"upload:{SHA}"  # still waiting: the link keeps naming it


def test_a_table_this_deployment_does_not_offer_falls_back_to_the_sample_with_a_notice():
    at = compare_page({"compare": "datasets", "new": "db:prod/secrets"})
    assert "new: db:prod/secrets is not a connection and table this deployment offers" in \
        "\n".join(w.value for w in at.warning).replace("\\", "")
    assert at.radio(key="diff_new_kind").value == diffs.SAMPLE
    assert set(verdicts(at)["Verdict"]) == {"no real change"}


def test_the_two_agents_mode_is_the_default_and_unchanged():
    at = compare_page({})
    assert at.radio(key="compare_mode").value == "agents"
    assert [t.value for t in at.title] == ["Compare two agents"]
    at.radio(key="compare_mode").set_value("datasets").run()  # the viewer switches: the title follows
    assert [t.value for t in at.title] == ["Compare two datasets"]
    at.radio(key="compare_mode").set_value("agents").run()
    assert at.selectbox(key="compare_a").value and at.selectbox(key="compare_b").value
    assert not [d for d in at.dataframe if "Verdict" in d.value.columns]


# --------------------------------------------------------------------------- a link through the whole app (AppTest)


def app_on_compare(**params: str) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page("views/compare.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_link_naming_both_datasets_restores_the_mode_and_waits_for_the_upload():
    at = app_on_compare(compare="datasets", baseline=f"upload:{SHA}", new="sample")
    assert at.radio(key="compare_mode").value == "datasets"
    assert at.radio(key="diff_baseline_kind").value == diffs.UPLOAD
    assert at.radio(key="diff_new_kind").value == diffs.SAMPLE
    assert f"whose sha256 starts with `{SHA}`" in "\n".join(i.value for i in at.info)
    link = "\n".join(c.value for c in at.sidebar.code)
    assert "compare=datasets" in link and f"baseline=upload%3A{SHA}" in link and "new=" not in link
    # Choosing the sample as the baseline: the comparison appears and the link names the sample (the default).
    at.radio(key="diff_baseline_kind").set_value(diffs.SAMPLE).run()
    assert not at.exception
    assert set(verdicts(at)["Verdict"]) == {"no real change"}
    link = "\n".join(c.value for c in at.sidebar.code)
    assert "compare=datasets" in link and "baseline=" not in link


def test_the_agent_chosen_in_the_datasets_mode_is_in_the_link_and_a_link_opens_on_it():
    """Before, the datasets mode's Agent box followed the focus when first drawn but a choice there never reached
    the link: whoever opened it saw another agent."""
    at = app_on_compare(compare="datasets")
    at.selectbox(key="diff_agent").set_value("crashy-runner").run()
    link = "\n".join(c.value for c in at.sidebar.code)
    assert "compare=datasets" in link and "agent=crashy-runner" in link
    fresh = app_on_compare(compare="datasets", agent="crashy-runner")
    assert fresh.selectbox(key="diff_agent").value == "crashy-runner"


def test_hostile_compare_parameters_give_notices_and_the_default_mode():
    at = app_on_compare(compare="<img src=x onerror=alert(1)>", baseline="upload:not-hex",
                        new="db:../../etc/passwd")
    shown = "\n".join(w.value for w in at.warning).replace("\\", "")
    for expected in ("compare: must be one of agents, datasets, got '<img src=x onerror=alert(1)>'",
                     "baseline: must be sample, upload:<16 hex digits>", "got 'upload:not-hex'",
                     "new: must be sample", "got 'db:../../etc/passwd'"):
        assert expected in shown, expected
    assert "<img" not in "\n".join(w.value for w in at.warning).replace("\\<img", "")
    assert at.radio(key="compare_mode").value == "agents"
    link = "\n".join(c.value for c in at.sidebar.code)
    assert "compare=" not in link and "baseline=" not in link and "new=" not in link


def test_a_link_naming_an_operator_table_opens_it_on_that_side_and_a_failed_read_is_refused_by_name():
    at = AppTest.from_file(str(PAGES["compare"]), default_timeout=TIMEOUT)
    at.secrets["connections"] = {"platform": {"host": "127.0.0.1", "port": 1, "database": "postgres",
                                              "username": "scorer", "password": "pw-not-shown", "tables": ["runs"]}}
    at.session_state[state.STORE] = {"compare": "datasets", "baseline": "db:platform/runs"}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="diff_baseline_kind").value == diffs.TABLE
    assert at.radio(key="diff_baseline_kind").options == [diffs.SAMPLE, diffs.UPLOAD, diffs.TABLE]
    assert (at.selectbox(key="diff_baseline_connection").value, at.selectbox(key="diff_baseline_table").value) == \
        ("platform", "runs")
    errors = "\n".join(e.value for e in at.error).replace("\\", "")
    assert "Baseline: 'runs @ platform' was refused" in errors  # nothing listens on port 1
    assert "pw-not-shown" not in "\n".join(t for _, t in texts(at))
    assert not [d for d in at.dataframe if "Verdict" in d.value.columns]
    assert at.session_state[state.STORE]["baseline"] == "db:platform/runs"


def test_each_side_is_named_by_the_datasets_one_identity():
    """A harness file on one side is named by the sha256 of its bytes (what sha256sum and the link say), never the
    import digest; the sample by its bytes."""
    import hashlib

    from tests.helpers import ROOT

    harness = ROOT / "tests" / "fixtures" / "tau-bench" / "sonnet-retail.json"
    at = compare_page({"compare": "datasets"})
    at.radio(key="diff_baseline_kind").set_value(diffs.UPLOAD).run()
    at.file_uploader(key="diff_baseline_upload").set_value((harness.name, harness.read_bytes(), "application/json"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    captions = "\n".join(c.value for c in at.caption)
    file_sha = hashlib.sha256(harness.read_bytes()).hexdigest()[:16]
    assert f"sha256 `{file_sha}`" in captions, captions
    assert f"sha256 `{hashlib.sha256(SAMPLE_RUNS.read_bytes()).hexdigest()[:16]}`" in captions, captions
    assert at.session_state[state.STORE]["baseline"] == f"import:{file_sha}"  # the link names the same hash


def renamed_sample(suffix: str = "-v2") -> bytes:
    """The sample's runs with every agent renamed (as tau-bench names its agent after each results file)."""
    frame = pd.read_csv(SAMPLE_RUNS, dtype=str, keep_default_na=False)
    return frame.assign(agent_id=frame["agent_id"] + suffix).to_csv(index=False).encode()


def sample_headline(agent: str) -> float | None:
    return score_runs(load_runs(SAMPLE_RUNS.read_bytes(), name="runs.csv").runs).agent(agent).headline.score


def test_two_datasets_with_no_agent_in_common_pair_a_renamed_agent_and_the_link_keeps_the_pair():
    """tau-bench names its agent after the results file, so two of its files share no agent: the page offers to
    pair the two ids, compares the pair as the command line's diff --pair does, and the view (so the link) keeps
    the pair."""
    at = compare_page({"compare": "datasets"})
    at.radio(key="diff_new_kind").set_value(diffs.UPLOAD).run()
    at.file_uploader(key="diff_new_upload").set_value(("runs-v2.csv", renamed_sample(), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    [info] = [i.value for i in at.info if "No agent is in both datasets" in i.value]
    assert "pair its two ids below" in info and "tau-bench" in info
    assert not [d for d in at.dataframe if "Verdict" in d.value.columns]
    captions = "\n".join(c.value for c in at.caption)
    assert "The rule (" not in captions and "the same file" not in captions  # nothing compared; two files
    old, new = at.selectbox(key="diff_pair_old"), at.selectbox(key="diff_pair_new")
    assert "steady-pro" in old.options and "steady-pro-v2" in new.options and "steady-pro-v2" not in old.options
    old.set_value("steady-pro")
    new.set_value("steady-pro-v2")
    at.button(key="diff_pair_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    frame = verdicts(at)
    assert frame["Agent"].tolist() == ["steady-pro-v2"] and frame["Baseline agent"].tolist() == ["steady-pro"]
    assert frame["Baseline"].iloc[0] == frame["New"].iloc[0] == sample_headline("steady-pro")
    assert frame["Verdict"].iloc[0] == "no real change"
    assert at.session_state[state.STORE]["pair"] == (("steady-pro", "steady-pro-v2"),)
    assert state.encode(at.session_state[state.STORE], "compare")["pair"] == ["steady-pro", "steady-pro-v2"]
    shown = "\n".join(t for _, t in texts(at)).replace("\\", "")
    assert "The baseline's **steady-pro** compared as **steady-pro-v2**" in shown
    assert "Only in the baseline** (9)" in shown and "steady-pro-v2" not in at.selectbox(key="diff_pair_new").options
    assert not leaks(shown)
    at.button(key="diff_unpair").click().run()
    assert not [d for d in at.dataframe if "Verdict" in d.value.columns]
    assert tuple(at.session_state[state.STORE]["pair"]) == ()


def test_pairs_from_a_link_swap_two_agents_and_a_pair_the_datasets_refuse_says_why():
    at = compare_page({"compare": "datasets", "pair": (("steady-pro", "swift-lite"), ("swift-lite", "steady-pro"))})
    frame = verdicts(at).set_index("Agent")
    assert frame.loc["swift-lite", "Baseline"] == sample_headline("steady-pro")
    assert frame.loc["steady-pro", "Baseline"] == sample_headline("swift-lite")
    assert frame.loc["swift-lite", "New"] == sample_headline("swift-lite")
    at = compare_page({"compare": "datasets", "pair": (("steady-pro", "ghost"),)})
    [warning] = [w.value for w in at.warning if "not paired" in w.value]
    assert "no agent 'ghost' in the new set" in warning.replace("\\", "")
    frame = verdicts(at)
    assert (frame["Change"] == 0).all() and len(frame) == 10  # every agent under its own id
    shown = "\n".join(t for _, t in texts(at)).replace("\\", "")
    assert "compared as **ghost** (not applied)" in shown


def test_the_pairs_make_a_round_trip_through_a_link_and_hostile_ones_are_refused():
    view = {"compare": "datasets", "pair": (("base-1205", "new 1206"), ("a", "b"))}
    encoded = state.encode(view, "compare")
    assert encoded["pair"] == ["base-1205", "new 1206", "a", "b"]
    parsed = state.parse(encoded, [], page="compare")
    assert parsed.notices == [] and parsed.values == view
    for values, why in ((["a", "b", "c"], "got 3 ids"), (["a", ""], "an empty agent id"),
                        (["a", "b", "a", "c"], "one baseline agent paired twice")):
        parsed = state.parse({"pair": values}, [])
        assert parsed.values == {} and len(parsed.notices) == 1 and why in parsed.notices[0], parsed.notices
    parsed = state.parse({"pair": [str(i) for i in range(14)]}, [])  # at most 10 ids (5 pairs) read
    assert len(parsed.values["pair"]) == 5 and parsed.notices == ["pair: given 14 times; only the first 10 are read"]


def test_a_file_picked_on_the_page_is_kept_when_the_mode_switches_and_back():
    """A newcomer's review: switching to two agents and back dropped the uploaded new dataset, and the page then
    asked for it as "this link's" file."""
    at = compare_page({"compare": "datasets"})
    at.radio(key="diff_new_kind").set_value(diffs.UPLOAD).run()
    at.file_uploader(key="diff_new_upload").set_value(("runs-v2.csv", renamed_sample(), "text/csv")).run()
    at.selectbox(key="diff_pair_old").set_value("steady-pro")
    at.selectbox(key="diff_pair_new").set_value("steady-pro-v2")
    at.button(key="diff_pair_add").click().run()
    assert verdicts(at)["Agent"].tolist() == ["steady-pro-v2"]
    at.radio(key="compare_mode").set_value("agents").run()
    assert not at.exception and not [d for d in at.dataframe if "Verdict" in d.value.columns]
    at.radio(key="compare_mode").set_value("datasets").run()
    assert not at.exception, [e.value for e in at.exception]
    assert verdicts(at)["Agent"].tolist() == ["steady-pro-v2"]  # the file and the pair, as they were
    assert any("Still comparing runs\\-v2\\.csv" in c.value for c in at.caption), [c.value for c in at.caption]
    assert not any("whose sha256 starts with" in i.value for i in at.info)
    at.button(key="diff_unpair").click().run()  # a later rerun keeps the file too
    assert not at.exception and at.session_state[state.STORE]["new"].startswith("upload:")
    at.radio(key="diff_new_kind").set_value(diffs.SAMPLE).run()  # another source and back: the uploader is drawn
    at.radio(key="diff_new_kind").set_value(diffs.UPLOAD).run()  # anew, and the file given back
    assert any("Still comparing" in c.value for c in at.caption)
    again = compare_page({"compare": "datasets"})  # a file the viewer removes (its x) is let go
    again.radio(key="diff_new_kind").set_value(diffs.UPLOAD).run()
    again.file_uploader(key="diff_new_upload").set_value(("runs-v2.csv", renamed_sample(), "text/csv")).run()
    again.file_uploader(key="diff_new_upload").set_value(None).run()
    assert not again.exception and "diff_new_kept" not in again.session_state
    assert not any("Still comparing" in c.value for c in again.caption)


def test_the_agent_of_two_datasets_is_in_the_link_when_the_sidebars_data_lacks_it():
    """The link named the datasets mode's agent by the shared parameter `agent`, which names only the sidebar's
    dataset's agents: swift-lite renamed swift-lite-v2 in the new dataset was left out, and whoever opened the link
    saw steady-pro (a reviewer's fresh viewer, 2026-12-06). The page carries its own `diff_agent`."""
    frame = pd.read_csv(SAMPLE_RUNS, dtype=str, keep_default_na=False)
    week2 = frame.assign(agent_id=frame["agent_id"].replace("swift-lite", "swift-lite-v2")).to_csv(index=False)

    def upload(at: AppTest) -> None:
        at.radio(key="diff_new_kind").set_value(diffs.UPLOAD).run()
        at.file_uploader(key="diff_new_upload").set_value(("week2.csv", week2.encode(), "text/csv")).run()
        assert not at.exception, [e.value for e in at.exception]

    at = app_on_compare(compare="datasets")
    upload(at)
    at.selectbox(key="diff_pair_old").set_value("swift-lite")
    at.selectbox(key="diff_pair_new").set_value("swift-lite-v2")
    at.button(key="diff_pair_add").click().run()
    at.selectbox(key="diff_agent").set_value("swift-lite-v2").run()
    link = "\n".join(c.value for c in at.sidebar.code)
    assert "diff_agent=swift-lite-v2" in link and "pair=swift-lite&pair=swift-lite-v2" in link, link
    params: dict[str, list[str]] = {}
    for part in link.split("?", 1)[1].split("&"):
        name, value = part.split("=", 1)
        params.setdefault(name, []).append(urllib.parse.unquote_plus(value))
    fresh = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    for name, values in params.items():
        fresh.query_params[name] = values if len(values) > 1 else values[0]
    fresh.switch_page("views/compare.py")
    fresh.run()
    upload(fresh)
    assert fresh.selectbox(key="diff_agent").value == "swift-lite-v2"
    # The two-agents view's link does not keep it
    fresh.radio(key="compare_mode").set_value("agents").run()
    assert "diff_agent=" not in "\n".join(c.value for c in fresh.sidebar.code)
