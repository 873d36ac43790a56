"""Scoring Methodology Explorer: entry point. Wires navigation, the data source and shared state."""

import streamlit as st

from explorer import data, drill, imports, pages, scorecards, settings, state
from explorer import format as fmt
from scoring import CANONICAL_POLICY

# explorer.drill registers its warm-up on data.ON_SCORED: every ranked agent explained once a dataset is scored
assert drill.warm in data.ON_SCORED

st.set_page_config(page_title=pages.APP_NAME, page_icon=":material/radar:", layout="wide")

navigation = pages.navigation()

deployment = settings.current()
UPLOAD_MB = int(st.get_option("server.maxUploadSize"))
page = pages.page_for(navigation.url_path)

# The session's first URL: the dataset it names is chosen before the sidebar draws its source widgets.
link_source = state.read_link({c.name: c.tables for c in deployment.connections}, page.name)
if link_source is not None and link_source.kind == "connection" and link_source.connection and link_source.table:
    st.session_state.update(source_kind="PostgreSQL table", db_connection=link_source.connection,
                            db_table=link_source.table)
    data.use_connection(link_source.connection, link_source.table)
elif link_source is not None and link_source.waits_for_data:
    st.session_state["source_kind"] = "Upload a file"

with st.sidebar:
    st.subheader("Data source")
    sources = ["Sample data", "Upload a file"] + (["PostgreSQL table"] if deployment.database_source else [])
    kind = st.radio("Runs to explore", sources, key="source_kind")
    if kind == "PostgreSQL table":
        data.database_source(deployment)
    elif kind == "Upload a file":
        uploads = st.file_uploader(f"Runs (CSV, JSON, JSON Lines, Parquet) or harness results (tau2-bench, "
                                   f"tau-bench, Inspect .eval/.json, terminal-bench results.json with its "
                                   f"run_metadata.json), up to {UPLOAD_MB} MB each",
                                   type=data.UPLOAD_TYPES, key="upload", accept_multiple_files=True,
                                   help=f"Files up to {UPLOAD_MB} MB and {deployment.limits.max_rows:,} runs are "
                                        "accepted; larger ones are refused before they are read. Several files "
                                        "are scored together (a tau2-bench results folder: its results.json with "
                                        "its simulations files); a table in another layout can come with its saved "
                                        "mapping (JSON, from *Map a table*). The runs schema is in the README.")
        kept = data.kept_uploads(uploads or [])  # a file the server did not keep is said in words
        if kept and len(kept) == len(uploads):
            data.upload_source(kept)
        else:
            data.use_sample()
            st.caption("No file chosen yet: the sample data stays loaded." if not uploads else
                       "The sample data stays loaded until the file is kept." if len(uploads) == 1 else
                       "The sample data stays loaded: the files are scored together once every one is kept.")
    elif not data.current_dataset().is_sample:
        data.use_sample()
    shown = data.current_dataset()
    connection = (shown.connection, shown.table) if shown.kind == "connection" else (None, None)
    if not shown.exclude_invalid and state.excludes_invalid_rows(data.link_hashes(shown), *connection):
        data.exclude_invalid_rows()  # the link's dataset, read as its maker read it ("Exclude the invalid rows")
    result = data.scored()
    st.caption(fmt.plain(data.source_caption(result)))
    if result.imported is not None:
        summary = imports.report_summary(result.imported, len(data.current_dataset().sources) or None)
        st.caption(f":material/input: Import: {summary} (the import report is on the Leaderboard).")
    elif isinstance(result, data.Scored):
        for warning in result.loaded.warnings:
            st.caption(":material/info: " + fmt.plain(warning))
    st.caption(f"Policy {fmt.plain(CANONICAL_POLICY.version)}")  # the link and pack follow, after the page

dataset = data.current_dataset()
hashes = data.link_hashes(dataset)  # the dataset's identity first: what a link names it by
shown_agents = frozenset(a.agent_id for a in result.report.agents) if isinstance(result, data.Scored) else None
state.settle_link(shown_agents, hashes)
state.follow_history(page.name, shown_agents)  # Back or Forward restored an older URL: the view follows it
state.show_link_notices(page.name)
expected = state.waiting_for(hashes)
if expected:
    imported = state.awaited_params(hashes).get("data") == "import"
    st.info(f"This link was made on an uploaded dataset whose sha256 starts with `{expected}`. "
            + ("It was an import (harness files read together, experiment tags, or a table read through a column "
               "mapping): upload the same files with the same tags, or the table with its saved mapping (JSON), "
               if imported else "Upload that file ")
            + "in the sidebar to see the same view"
            + (" (its invalid rows are then excluded, as they were when the link was made)"
               if state.awaited_params(hashes).get("exclude") else "")
            + "; until then the data shown is "
            f"{fmt.plain(dataset.name)}.", icon=":material/link:")

link_source_params = state.encode_source(dataset.kind, connection=dataset.connection, table=dataset.table,
                                         sha256=hashes[0] if hashes else None, excluded=dataset.exclude_invalid)


@st.fragment(key=pages.LINK_FRAGMENT)  # a control that changes only its part reruns that part and this (rerun_parts)
def link_and_pack() -> None:
    # The scorecard in force travels in every page's link (the radar page keeps its own parameters itself).
    carried: dict[str, str | list[str]] = dict(scorecards.link_params()) if page.name != "radar" else {}
    if page.name != "runs":  # and the Runs page's filter (the Runs page keeps its own names itself)
        carried.update(drill.filter_link_params(shown_agents))
    link = state.copy_link(page, {**link_source_params, **carried}, state.awaited_params(hashes), shown_agents)
    if isinstance(result, data.Scored):
        data.pack_downloads(result, link, state.view())


# Drawn once, after the page (a page that ends early ends inside the frame), at the sidebar's end (no page draws in
# the sidebar): the link then carries what the page's own code just set (sandbox edits, the agent shown).
with pages.page_frame():
    navigation.run()
with st.sidebar:
    link_and_pack()
