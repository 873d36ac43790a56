"""The score badge row of the Leaderboard and Headline pages: a preview and the SVG to download.

The badge itself is ``scoring.outputs.badge``; this module draws the row. The dataset hash it names is the
dataset's one identity (``explorer.data.dataset_info``), the same as the notes, the links and the pack name,
and the one ``python -m scoring badge FILE AGENT`` puts in for the same file, so the app and the command line
give the same bytes:

- the sample or one uploaded file (a runs table, or one harness file without a tag or mapping):
  the sha256 of the file's bytes;
- several files, an experiment tag or a column mapping: the sidebar's import digest (the sha256
  of every file's sha256, name and tag, and the mapping), which only the app computes;
- a database table: the sha256 of its validated runs as CSV in run_id order
  (``scoring.outputs.downloads.runs_sha256``).

A dataset scored with invalid rows excluded gets no badge: a badge does not say that rows were
left out (SPEC 1), and its file could not be re-scored to the same number.
"""

from __future__ import annotations

import streamlit as st

from scoring.outputs.badge import badge_file_name, badge_svg

from . import data, state
from . import format as fmt

SHORT_HASH = 12  # as the badge's tooltip shows it


def _one_file(dataset: data.Dataset) -> bool:
    """The dataset is one file as it stands, so ``python -m scoring badge FILE AGENT`` gives the same badge."""
    identity = data.file_identity(dataset)
    return identity is not None and identity[1] == "file bytes"


def dataset_sha256(scored: data.Scored) -> str:
    """The sha256 a badge of the current dataset names: the dataset's identity (module docstring)."""
    return data.dataset_info(scored).sha256


def badge_row(scored: data.Scored, agent_id: str | None = None, *, key: str) -> None:
    """A badge preview and its download button; without ``agent_id``, an agent picker first.

    ``key`` tells the widgets of one page from another's.
    """
    report = scored.report
    if scored.loaded.excluded_rows:
        excluded = scored.loaded.excluded_rows
        st.caption(f":material/info: No score badge for this dataset: "
                   f"{fmt.counted(excluded, 'invalid row', 'invalid rows')} {'was' if excluded == 1 else 'were'} "
                   "excluded, and a badge would not say so.")
        return
    # With a picker, align on its box (its label sits above); without one, on the middle of the row.
    # One row block (not three column blocks): fewer messages to the browser on every rerun of the page.
    row = st.container(horizontal=True, gap="medium",
                       vertical_alignment="bottom" if agent_id is None else "center")
    if agent_id is None:
        agents = [a.agent_id for a in report.agents]
        # The badge's agent is in the view's link (the first ranked, by default, is left out of it).
        agent_id = row.selectbox("Score badge for", agents, width=260,
                                 **state.bound("badge", f"badge_agent_{key}", agents, fallback=agents[0]),
                                 format_func=lambda a: f"#{report.agent(a).rank} {a}" if report.agent(a).rank
                                 else f"{a} (unranked)")
    else:
        row.markdown("**Score badge**", width="content")
    digest = dataset_sha256(scored)
    version = report.policy.version
    svg = badge_svg(report.agent(agent_id), policy_version=version, dataset_sha256=digest)
    row.image(svg)
    row.download_button("Download the badge (SVG)", svg, file_name=badge_file_name(agent_id, version, digest),
                        mime="image/svg+xml", icon=":material/download:", on_click="ignore", width="content",
                        key=f"badge_download_{key}")
    cli = (" The command line makes the same file: `python -m scoring badge RUNS_FILE AGENT -o badge.svg`."
           if _one_file(data.current_dataset()) else "")
    st.caption(f"A badge for a README or a web page: the **canonical headline score** of {fmt.plain(agent_id)}, "
               "the number the leaderboard ranks by (never a profile score), coloured by its band. The file also "
               f"names policy {fmt.plain(version)} and the dataset it was scored on (sha256 "
               f"{digest[:SHORT_HASH]}…), so anyone with that file can check the number.{cli} "
               "Colours: README, *Badges and Team Scorecards*.")
