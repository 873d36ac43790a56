"""Score badges: valid XML for any agent name, the report's exact score, honest unranked and floor badges."""

import dataclasses
import hashlib
import re
import xml.etree.ElementTree as ET
from functools import cache, partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import CANONICAL_POLICY, load_runs, runs_from_records, score_runs
from scoring.outputs.badge import (
    COLOUR_SCALE,
    FLOOR_BAND,
    MAX_LABEL_CHARS,
    PADDING,
    UNRANKED_BAND,
    badge_colour,
    badge_file_name,
    badge_label,
    badge_svg,
    colour_scale_markdown,
    safe_text,
    score_band,
    text_width,
)
from tests import helpers

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "runs.csv"
SVG = "{http://www.w3.org/2000/svg}"
SHA = hashlib.sha256(b"dataset").hexdigest()
VERSION = CANONICAL_POLICY.version


# Runs here are of task t1, timed and priced alike.
run = partial(helpers.run, task="t1", latency=1200.0, cost=0.004)


@cache
def small_report():
    """One ranked agent, one on the zero-success floor, one unranked (no completed run)."""
    rows = [run(f"r{i}", "ranked", success=i % 2 == 0) for i in range(6)]
    rows += [run(f"r{10 + i}", "floored", success=False) for i in range(3)]
    rows += [run("r20", "queued-only", status="queued", success=None)]
    return score_runs(runs_from_records(rows))


def named(agent_id, which="ranked"):
    return dataclasses.replace(small_report().agent(which), agent_id=agent_id)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root):
    """(label, value) as drawn: the visible (non-shadow) text elements in order."""
    visible = [t for t in root.iter(f"{SVG}text") if t.get("aria-hidden") is None]
    return visible[0].text or "", visible[1].text or ""


def rects(root):
    group = root.find(f"{SVG}g")
    left, right, _ = group.findall(f"{SVG}rect")
    return left, right


def skeleton(root):
    """Tags and attribute names of every element: what markup injection would change."""
    return [(el.tag, tuple(el.attrib)) for el in root.iter()]


HOSTILE = ["<", ">", "&", "&amp;", '"', "'", "]]>", "<![CDATA[", "<script>alert(1)</script>", "\x00", "\x1b",
           "\x7f", "\x85", "\t", "\n", "\r", "\ud800", "\udfff", "\ufffe", "\uffff", "\U0010fffe", "\u202e",
           "\u2066", "漢字", "👩‍👩‍👧", "\u0301", "<!--", "-->", "<?xml", "\"/><svg onload=alert(1)>", "x" * 70]
names = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=80),  # any code point, surrogates included
    st.lists(st.sampled_from(HOSTILE), max_size=6).map("".join),
)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(names)
def test_any_name_gives_well_formed_svg_with_the_exact_score(name):
    agent = named(name)
    svg = badge_svg(agent, policy_version=VERSION, dataset_sha256=SHA)
    root = parse(svg)
    label, value = texts(root)
    assert value == f"{agent.headline.score:.2f}"
    assert label == badge_label(name)
    assert root.find(f"{SVG}title").text.startswith(safe_text(name) + ": headline score ")
    # The name never adds, removes or renames an element or attribute.
    assert skeleton(root) == skeleton(parse(badge_svg(named("plain"), policy_version=VERSION, dataset_sha256=SHA)))


@SETTINGS
@given(names)
def test_the_label_box_is_never_narrower_than_the_estimated_text(name):
    root = parse(badge_svg(named(name), policy_version=VERSION, dataset_sha256=SHA))
    left, right = rects(root)
    label, value = texts(root)
    assert int(left.get("width")) >= text_width(label) + 2 * PADDING
    assert int(right.get("width")) >= text_width(value) + 2 * PADDING
    assert int(root.get("width")) == int(left.get("width")) + int(right.get("width"))
    for t in root.iter(f"{SVG}text"):
        assert int(t.get("textLength")) >= 10 * text_width(t.text or "")


def test_every_sample_agent_carries_its_report_score():
    data = SAMPLE.read_bytes()
    report = score_runs(load_runs(SAMPLE).runs)
    for agent in report.agents:
        root = parse(badge_svg(agent, policy_version=report.policy.version,
                               dataset_sha256=hashlib.sha256(data).hexdigest()))
        label, value = texts(root)
        assert label == agent.agent_id
        assert value.split(" ")[0] == f"{agent.headline.score:.2f}"
        assert root.get("data-headline-score") == f"{agent.headline.score:.2f}"


def test_unranked_badge_says_unranked_in_grey():
    agent = small_report().agent("queued-only")
    assert agent.headline.score is None
    root = parse(badge_svg(agent, policy_version=VERSION, dataset_sha256=SHA))
    assert texts(root) == ("queued-only", "unranked")
    assert rects(root)[1].get("fill") == UNRANKED_BAND.hex
    assert root.get("data-headline-score") == "null"
    assert "unranked" in root.find(f"{SVG}title").text


def test_floor_badge_names_the_floor_in_red():
    agent = small_report().agent("floored")
    assert agent.headline.zero_success_floor and agent.headline.score == 0.0
    root = parse(badge_svg(agent, policy_version=VERSION, dataset_sha256=SHA))
    assert texts(root) == ("floored", "0.00 · zero-success floor")
    assert rects(root)[1].get("fill") == FLOOR_BAND.hex
    assert root.get("data-zero-success-floor") == "true"
    assert root.get("data-headline-score") == "0.00"


def test_a_ranked_score_of_zero_without_the_floor_is_a_plain_number():
    agent = named("zero")
    agent = dataclasses.replace(agent, headline=dataclasses.replace(agent.headline, score=0.0))
    root = parse(badge_svg(agent, policy_version=VERSION, dataset_sha256=SHA))
    assert texts(root)[1] == "0.00"
    assert root.get("data-zero-success-floor") == "false"


def test_policy_version_and_short_dataset_hash_in_title_and_metadata():
    root = parse(badge_svg(named("a"), policy_version=VERSION, dataset_sha256=SHA.upper()))
    title = root.find(f"{SVG}title").text
    assert f"policy {VERSION}" in title and f"dataset {SHA[:12]}" in title and SHA[12:] not in title
    assert root.get("data-policy-version") == VERSION
    assert root.get("data-dataset-sha256") == SHA
    assert "never this score" in root.find(f"{SVG}desc").text


def test_same_input_same_bytes():
    a = badge_svg(named("twice <&>"), policy_version=VERSION, dataset_sha256=SHA)
    b = badge_svg(named("twice <&>"), policy_version=VERSION, dataset_sha256=SHA)
    assert a == b and a.encode("utf-8") == b.encode("utf-8")


def test_different_badges_have_different_element_ids():
    # Two badges inlined in one HTML page must not resolve each other's gradient or clip path.
    a = parse(badge_svg(named("a"), policy_version=VERSION, dataset_sha256=SHA))
    b = parse(badge_svg(named("b"), policy_version=VERSION, dataset_sha256=SHA))
    ids = lambda root: {el.get("id") for el in root.iter() if el.get("id")}
    assert len(ids(a)) == 2 and not ids(a) & ids(b)


def test_width_grows_with_the_name_up_to_the_cap():
    widths = [int(parse(badge_svg(named("a" * n), policy_version=VERSION, dataset_sha256=SHA)).get("width"))
              for n in range(1, MAX_LABEL_CHARS + 6)]
    up_to_cap = widths[:MAX_LABEL_CHARS]  # names of 1..64 characters are drawn whole
    assert all(a < b for a, b in zip(up_to_cap, up_to_cap[1:]))
    assert len(set(widths[MAX_LABEL_CHARS:])) == 1  # beyond the cap: 63 characters and an ellipsis


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(exclude_categories=("Mn", "Me", "Cf")), min_size=1, max_size=MAX_LABEL_CHARS - 1),
       st.characters(exclude_categories=("Mn", "Me", "Cf")))
def test_one_more_visible_character_widens_the_label(name, extra):
    assert text_width(badge_label(name + extra)) > text_width(badge_label(name))


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u2064"])
def test_a_name_with_an_invisible_character_never_draws_like_the_plain_one(invisible):
    # 'gpt-4' + a zero-width character prints exactly like 'gpt-4', and a badge travels without the report's
    # look-alike warning: the character is drawn as U+FFFD on the badge and in its title.
    plain = parse(badge_svg(named("gpt-4"), policy_version=VERSION, dataset_sha256=SHA))
    odd = parse(badge_svg(named("gpt-4" + invisible), policy_version=VERSION, dataset_sha256=SHA))
    assert texts(plain)[0] == "gpt-4" and texts(odd)[0] == "gpt-4\ufffd"
    assert odd.find(f"{SVG}title").text.startswith("gpt-4\ufffd: headline score ")


def test_long_names_are_cut_on_the_badge_and_kept_whole_in_the_title():
    name = "agent-" + "x" * 200
    root = parse(badge_svg(named(name), policy_version=VERSION, dataset_sha256=SHA))
    label, _ = texts(root)
    assert len(label) == MAX_LABEL_CHARS and label.endswith("…") and name.startswith(label[:-1])
    assert name in root.find(f"{SVG}title").text


def test_wide_characters_are_estimated_generously():
    assert text_width("漢字") >= 2 * 11
    assert text_width("🙂") >= 11
    assert text_width("é") == text_width("e")


@pytest.mark.parametrize("score, colour", [
    (100.0, "brightgreen"), (80.0, "brightgreen"), (79.99, "green"), (60.0, "green"), (59.99, "yellow"),
    (40.0, "yellow"), (39.99, "orange"), (20.0, "orange"), (19.99, "red"), (0.01, "red"), (0.0, "red"),
])
def test_colour_thresholds_at_their_boundaries(score, colour):
    assert score_band(score).name == colour
    agent = named("a")
    headline = dataclasses.replace(agent.headline, score=score)
    assert badge_colour(headline).name == colour
    root = parse(badge_svg(dataclasses.replace(agent, headline=headline), policy_version=VERSION,
                           dataset_sha256=SHA))
    assert rects(root)[1].get("fill") == score_band(score).hex


def test_colour_scale_is_ordered_and_rendered_for_the_readme():
    minimums = [band.minimum for band in COLOUR_SCALE]
    assert minimums == sorted(minimums, reverse=True) and minimums[-1] == 0.0
    table = colour_scale_markdown()
    for band in (*COLOUR_SCALE, FLOOR_BAND, UNRANKED_BAND):
        assert f"| {band.applies_to} | {band.name} | `{band.hex}` |" in table


def test_a_sandbox_policy_version_is_escaped_too():
    policy = dataclasses.replace(CANONICAL_POLICY, version='v1+sandbox-<&">\x01')
    report = score_runs(runs_from_records([run("r0", "a")]), policy)
    root = parse(badge_svg(report.agent("a"), policy_version=policy.version, dataset_sha256=SHA))
    assert root.get("data-policy-version") == 'v1+sandbox-<&">\ufffd'


@pytest.mark.parametrize("kwargs, words", [
    ({"policy_version": "2026-01-other", "dataset_sha256": SHA}, "not the policy"),
    ({"policy_version": VERSION, "dataset_sha256": SHA[:12]}, "64 hex digits"),
    ({"policy_version": VERSION, "dataset_sha256": "g" * 64}, "64 hex digits"),
])
def test_a_badge_never_misstates_its_policy_or_dataset(kwargs, words):
    with pytest.raises(ValueError, match=words):
        badge_svg(named("a"), **kwargs)


def test_readme_shows_the_colour_scale_as_the_code_has_it():
    assert colour_scale_markdown() in (ROOT / "README.md").read_text(encoding="utf-8")


# --- Download file names -----------------------------------------------------------------------

SAFE_FILE_NAME = re.compile(r"badge-[a-z0-9][a-z0-9._-]*-[0-9a-f]{8}\.svg")


def test_file_name_names_agent_policy_and_short_hash():
    assert badge_file_name("steady-pro", VERSION, SHA.upper()) == f"badge-steady-pro-{VERSION}-{SHA[:8]}.svg"


@SETTINGS
@given(names)
def test_any_name_gives_a_safe_file_name(name):
    file_name = badge_file_name(name, VERSION, SHA)
    assert SAFE_FILE_NAME.fullmatch(file_name), file_name
    assert file_name.endswith(f"-{VERSION}-{SHA[:8]}.svg") and "/" not in file_name and ".." not in file_name
    assert len(file_name) < 120


@SETTINGS
@given(names, names)
def test_two_agents_never_share_a_file_name(a, b):
    if a != b:
        assert badge_file_name(a, VERSION, SHA) != badge_file_name(b, VERSION, SHA)


@pytest.mark.parametrize("a, b", [("Steady-Pro", "steady-pro"), ("a/b", "a b"), ("x" * 50 + "1", "x" * 50 + "2"),
                                  ("漢字", "字漢")])
def test_names_a_slug_would_merge_stay_apart(a, b):
    assert badge_file_name(a, VERSION, SHA) != badge_file_name(b, VERSION, SHA)
    assert badge_file_name(b, VERSION, SHA) != badge_file_name(a, VERSION, SHA)


def test_file_name_refuses_a_hash_that_is_not_a_sha256():
    with pytest.raises(ValueError, match="64 hex digits"):
        badge_file_name("a", VERSION, "../etc/passwd")


@pytest.mark.parametrize("name", ["_", "__x__", "._-", "-_a"])
def test_underscores_at_the_ends_of_a_name_are_dropped_like_dots_and_dashes(name):
    """Found by the property above in CI: an agent called '_' gave 'badge-_-...'."""
    assert SAFE_FILE_NAME.fullmatch(badge_file_name(name, VERSION, SHA))
