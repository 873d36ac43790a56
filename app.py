"""Scoring Methodology Explorer: entry point. Wires navigation, the data source and shared state."""

import streamlit as st

from explorer import data, imports, pages, settings
from explorer import format as fmt
from scoring import CANONICAL_POLICY

st.set_page_config(page_title="Scoring Methodology Explorer", page_icon=":material/radar:", layout="wide")

navigation = pages.navigation()

deployment = settings.current()
UPLOAD_MB = int(st.get_option("server.maxUploadSize"))

with st.sidebar:
    st.subheader("Data source")
    sources = ["Sample data", "Upload a file"] + (["PostgreSQL table"] if deployment.database_source else [])
    kind = st.radio("Runs to explore", sources, key="source_kind")
    if kind == "PostgreSQL table":
        data.database_source(deployment)
    elif kind == "Upload a file":
        uploads = st.file_uploader(f"Runs (CSV, JSON, JSON Lines, Parquet) or harness results (tau2-bench, "
                                   f"tau-bench, Inspect .eval/.json), up to {UPLOAD_MB} MB each",
                                   type=data.UPLOAD_TYPES, key="upload", accept_multiple_files=True,
                                   help=f"Files up to {UPLOAD_MB} MB and {deployment.limits.max_rows:,} runs are "
                                        "accepted; larger ones are refused before they are read. Several files "
                                        "are scored together; a table in another layout can come with its saved "
                                        "mapping (JSON, from *Map a table*). The runs schema is in the README.")
        if uploads:
            data.upload_source(uploads)
        else:
            data.use_sample()
            st.caption("No file chosen yet: the sample data stays loaded.")
    elif not data.current_dataset().is_sample:
        data.use_sample()
    result = data.scored()
    st.caption(fmt.plain(data.source_caption(result)))
    if result.imported is not None:
        st.caption(f":material/input: Import: {imports.report_summary(result.imported)} (the import report is "
                   "on the Leaderboard).")
    elif isinstance(result, data.Scored):
        for warning in result.loaded.warnings:
            st.caption(":material/info: " + fmt.plain(warning))
    st.caption(f"Policy {fmt.plain(CANONICAL_POLICY.version)}")

navigation.run()
