"""A served app's upload budget (EXPLORER_UPLOAD_MEMORY, explorer/upload_patch.py), through Streamlit's own
upload route: a file equal to one held is kept at no cost, a new file past the budget is not kept and the
page says so in words, the sessions that were kept go on as before, and the budget frees as files go."""

from __future__ import annotations

import pytest

from tests.e2e.browser_helpers import SAMPLE_PATH, AppSession, assert_clean, new_context, score_file, upload

pytestmark = pytest.mark.browser

SAMPLE = SAMPLE_PATH.read_bytes()  # 228 KB: the server's budget (conftest's small_budget) holds one copy, not two


def test_past_the_upload_budget_a_new_file_is_refused_in_words_and_an_equal_one_kept(browser, small_budget,
                                                                                       tmp_path):
    same = tmp_path / "runs.csv"
    same.write_bytes(SAMPLE + b"\n")  # the sample's runs (the sample's own bytes would read as the sample)
    other = tmp_path / "other-runs.csv"
    other.write_bytes(SAMPLE + b"\n\n")  # another file, as large
    sample_agents = sorted(a.agent_id for a in score_file(SAMPLE_PATH).agents)
    contexts = [new_context(browser) for _ in range(3)]
    try:
        first, second, third = (AppSession(c.new_page(), small_budget) for c in contexts)
        for app in (first, second, third):
            app.goto("")

        upload(first, same)  # within the budget
        assert "Uploaded: runs.csv" in first.sidebar_text(), first.sidebar_text()
        assert "was not kept" not in first.sidebar_text()

        upload(second, other)  # 228 KB more than the budget holds
        said = second.sidebar_text()
        assert "other-runs.csv (228.1 KB) was not kept" in said, said
        assert "keeps at most 342.1 KB" in said and "EXPLORER_UPLOAD_MEMORY" in said, said
        assert "Uploaded:" not in said and sorted(second.grid(0).column("Agent")) == sample_agents  # the sample stays

        upload(third, same)  # equal to the file held: kept, at no cost to the budget
        assert "Uploaded: runs.csv" in third.sidebar_text()
        assert "was not kept" not in third.sidebar_text()

        # the budget frees as files go: the first and third let theirs go, the second uploads again
        for app in (first, third):
            remove = app.page.locator("[data-testid='stSidebar'] button[aria-label='Remove runs.csv']")
            app.interact(remove.click, description="removing runs.csv")
            assert "Uploaded:" not in app.sidebar_text()
        second.interact(second.page.locator("[data-testid='stSidebar'] button[aria-label='Remove other-runs.csv']")
                        .click, description="removing other-runs.csv")
        again = tmp_path / "other-runs-again.csv"  # the same bytes (a file input picks the same path only once)
        again.write_bytes(other.read_bytes())
        file_input = second.page.locator("[data-testid='stSidebar'] input[type='file']")
        second.interact(lambda: file_input.set_input_files(str(again)), description="uploading it again")
        assert "Uploaded: other-runs-again.csv" in second.sidebar_text(), second.sidebar_text()
        assert "was not kept" not in second.sidebar_text()
        for app, where in ((first, "the first upload"), (second, "the refused upload"), (third, "the equal one")):
            assert_clean(app, where)
            assert not app.page_errors, app.page_errors
    finally:
        for context in contexts:
            context.close()
