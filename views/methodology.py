from functools import partial

import streamlit as st

from explorer import charts, data, tables, ui
from explorer import format as fmt
from explorer.pages import show_title
from scoring import CANONICAL_POLICY
from scoring.outputs.methodology import execution_formula, headline_formula, rules

policy = CANONICAL_POLICY
BADGE = {"published": ":blue-badge[published]", "explorer-defined": ":orange-badge[explorer-defined]"}

show_title("methodology")
st.caption(f"Everything on this page is rendered from the policy object of version {policy.version}; a test "
           "fails if the page and the policy ever disagree.")
st.markdown(f"{BADGE['published']} stated on the platform's published methodology page · "
            f"{BADGE['explorer-defined']} decided by this explorer where the published page is silent")

st.header("Headline composite")
st.code(headline_formula(policy) + "\n" + execution_formula(policy), language=None)

st.header("Constants")
# The tables and charts depend on the policy only: built once for every session (the shared cache).
ui.table(data.table_frame("methodology_constants", policy.version, lambda: tables.constants_table(policy)),
         key="constants")

st.header("Normalization anchors")
st.caption("Straight lines between consecutive anchors; below the first anchor the first score, above the last "
           "the last score.")
theme = ui.chart_theme()
for column, field in zip(st.columns(len(charts.ANCHOR_MAPS)), charts.ANCHOR_MAPS):
    anchors = getattr(policy, field)
    with column:
        st.markdown(f"**{anchors.name}** {BADGE[policy.provenance[field]]}")
        ui.table(data.table_frame("methodology_anchors", (policy.version, field),
                                  partial(tables.anchors_table, anchors)), key=f"anchors_{anchors.name}")
        figure = data.figure("methodology_anchor_curve", (policy.version, field, theme.name),
                             partial(charts.policy_anchor_figure, policy, field, theme))
        st.plotly_chart(figure, width="stretch", key=f"anchor_curve_{anchors.name}")

for section in ("Headline composite", "Fitness radar", "Repeatability"):
    st.header(f"Rules: {section.lower()}")
    st.markdown("\n".join(f"- {BADGE[r.provenance]} {fmt.dollars_safe(r.statement)}"
                          for r in rules(policy) if r.section == section))
