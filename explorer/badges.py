"""The score badge row of the Leaderboard and Headline pages: a preview and the SVG to download.

The badge itself is ``scoring.outputs.badge``; this module decides which dataset hash it names and draws
the row. The hash is the one ``python -m scoring badge FILE AGENT`` puts in for the same file, so
the app and the command line give the same bytes:

- the sample or one uploaded file (a runs table, or one harness file without a tag or mapping):
  the sha256 of the file's bytes;
- several files, an experiment tag or a column mapping: the sidebar's import digest (the sha256
  of every file's sha256, name and tag, and the mapping), which only the app computes;
- a database table: the sha256 of its validated runs in canonical text (``scoring.outputs.receipt.runs_hash``).

A dataset scored with invalid rows excluded gets no badge: a badge does not say that rows were
left out (SPEC 1), and its file could not be re-scored to the same number.
"""

from __future__ import annotations

import streamlit as st

from scoring.outputs.badge import badge_file_name, badge_svg
from scoring.outputs.receipt import runs_hash

from . import data
from . import format as fmt

SHORT_HASH = 12  # as the badge's tooltip shows it


def _runs_sha256(key: tuple, scored: data.Scored) -> str:
    """The runs' hash, once per dataset, in the shared bounded cache (no client can clear it)."""
    return data.derived("badge_runs_sha256", key, lambda: runs_hash(scored.runs), lambda _: 200,
                        spinner="Hashing the table's runs for the badge…")


def _one_file(dataset: data.Dataset) -> bool:
    """The dataset is one file as it stands, so ``python -m scoring badge FILE AGENT`` gives the same badge."""
    if dataset.kind in ("sample", "upload"):
        return True
    return dataset.kind == "import" and len(dataset.sources) == 1 and not dataset.mapping and not any(
        dataset.experiments)


def dataset_sha256(scored: data.Scored) -> str:
    """The sha256 a badge of the current dataset names (module docstring)."""
    dataset = data.current_dataset()
    if dataset.kind in ("sample", "upload"):
        return dataset.digest
    if dataset.kind == "import":
        return dataset.sources[0] if _one_file(dataset) else dataset.digest
    return _runs_sha256((dataset.kind, dataset.digest, dataset.exclude_invalid), scored)


def badge_row(scored: data.Scored, agent_id: str | None = None, *, key: str) -> None:
    """A badge preview and its download button; without ``agent_id``, an agent picker first.

    ``key`` tells the widgets of one page from another's.
    """
    report = scored.report
    if scored.loaded.excluded_rows:
        st.caption(f":material/info: No score badge for this dataset: {scored.loaded.excluded_rows:,} invalid "
                   "row(s) were excluded, and a badge would not say so.")
        return
    # With a picker, align on its box (its label sits above); without one, on the middle of the row.
    columns = st.columns([2, 3, 2], vertical_alignment="bottom" if agent_id is None else "center")
    if agent_id is None:
        agents = [a.agent_id for a in report.agents]
        agent_id = columns[0].selectbox("Score badge for", agents, key=f"badge_agent_{key}",
                                        format_func=lambda a: f"#{report.agent(a).rank} {a}" if report.agent(a).rank
                                        else f"{a} (unranked)")
    else:
        columns[0].markdown("**Score badge**")
    preview, button = columns[1], columns[2]
    digest = dataset_sha256(scored)
    version = report.policy.version
    svg = badge_svg(report.agent(agent_id), policy_version=version, dataset_sha256=digest)
    preview.image(svg)
    button.download_button("Download the badge (SVG)", svg, file_name=badge_file_name(agent_id, version, digest),
                           mime="image/svg+xml", icon=":material/download:", on_click="ignore", width="stretch",
                           key=f"badge_download_{key}")
    cli = (" The command line makes the same file: `python -m scoring badge RUNS_FILE AGENT -o badge.svg`."
           if _one_file(data.current_dataset()) else "")
    st.caption(f"A badge for a README or a web page: the **canonical headline score** of {fmt.plain(agent_id)}, "
               "the number the leaderboard ranks by (never a profile score), coloured by its band. The file also "
               f"names policy {fmt.plain(version)} and the dataset it was scored on (sha256 "
               f"{digest[:SHORT_HASH]}…), so anyone with that file can check the number.{cli} "
               "Colours: README, *Badges and Team Scorecards*.")
