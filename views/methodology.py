import pandas as pd
import streamlit as st

from explorer import charts, ui
from explorer import format as fmt
from explorer.pages import show_title
from scoring import CANONICAL_POLICY
from scoring.outputs.methodology import anchor_rows, execution_formula, headline_formula, rules

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
constants = pd.DataFrame(
    [{"Constant": c.name, "Value": ", ".join(map(str, c.value)) if isinstance(c.value, tuple) else f"{c.value:g}",
      "Provenance": c.provenance, "Meaning": c.meaning} for c in policy.constants()]
)
ui.table(constants, key="constants")

st.header("Normalization anchors")
st.caption("Straight lines between consecutive anchors; below the first anchor the first score, above the last "
           "the last score.")
figures = charts.policy_anchor_figures(policy, theme=ui.chart_theme())
for column, field, figure in zip(st.columns(3), ("latency_anchors", "cost_anchors", "steps_anchors"), figures):
    anchors = getattr(policy, field)
    with column:
        st.markdown(f"**{anchors.name}** {BADGE[policy.provenance[field]]}")
        table = pd.DataFrame([{f"{anchors.name} ({anchors.unit})": fmt.anchor_x(x, anchors.unit),
                               "Score (0–100)": f"{s:g}"} for x, s in anchor_rows(anchors)])
        ui.table(table, key=f"anchors_{anchors.name}")
        st.plotly_chart(figure, width="stretch", key=f"anchor_curve_{anchors.name}")

for section in ("Headline composite", "Fitness radar", "Repeatability"):
    st.header(f"Rules: {section.lower()}")
    st.markdown("\n".join(f"- {BADGE[r.provenance]} {fmt.dollars_safe(r.statement)}"
                          for r in rules(policy) if r.section == section))
