import streamlit as st

from explorer import charts, data, state, ui
from explorer import format as fmt
from explorer.pages import end_page, show_title
from scoring import CANONICAL_POLICY
from scoring.analysis.sandbox import (
    PolicyError,
    balance_weights,
    changed_constants,
    largest_moves_first,
    load_policy,
    policy_from_dict,
    policy_json,
    policy_to_dict,
    rank_diff,
)
from scoring.contract.policy import HEADLINE_WEIGHTS
from scoring.outputs import downloads
from scoring.outputs.receipt import build_receipt, receipt_json, receipt_markdown

show_title("sandbox")
st.caption("Try other constants and see what they would do. The canonical policy "
           f"{CANONICAL_POLICY.version} never changes: every number computed here carries the sandbox label.")

scored = data.require_scores()
canonical = scored.report

st.session_state.setdefault("sandbox_generation", 0)
if f"success_weight_{st.session_state['sandbox_generation']}" not in st.session_state:
    # A first visit, or back from another page (Streamlit dropped the editor's widgets): the editor starts
    # from the view state, i.e. the link's or the last visit's changed constants.
    st.session_state["sandbox_base"] = {**policy_to_dict(CANONICAL_POLICY), **state.get("policy")}

def load_base(d: dict) -> None:
    """Start the editor from ``d`` (a new widget generation, so every field shows the new values)."""
    st.session_state["sandbox_base"] = d
    st.session_state["sandbox_generation"] += 1
    state.put("policy", changed_constants(d))

base = st.session_state["sandbox_base"]
gen = st.session_state["sandbox_generation"]

left, right = st.columns([3, 1])
with left:
    upload = data.kept_upload(st.file_uploader("Load a sandbox policy (JSON)", type=["json"],
                                               key=f"policy_upload_{gen}", max_upload_size=1))
    if upload is not None:
        try:
            uploaded = load_policy(upload.getvalue(), what=upload.name)
        except PolicyError as error:
            st.error("That policy file is refused:\n\n" + "\n".join(
                f"- **{fmt.plain(e.field)}**: {fmt.plain(e.message)}" for e in error.errors), icon=":material/block:")
        else:
            load_base(policy_to_dict(uploaded))
            st.rerun()
with right:
    st.button("Reset to the canonical policy", on_click=load_base, args=(policy_to_dict(CANONICAL_POLICY),),
              icon=":material/restart_alt:", width="stretch")

st.subheader("Constants")
st.caption("Each constant shows where it comes from and its canonical value; edited ones are marked. "
           "The three headline weights must sum to 1.")
edited = ui.policy_editor(base, policy_to_dict(CANONICAL_POLICY), CANONICAL_POLICY.provenance, gen)
weight_names = HEADLINE_WEIGHTS
weight_sum = sum(float(edited[n]) for n in weight_names)
if abs(weight_sum - 1) > 1e-9 and weight_sum > 0 and all(float(edited[n]) >= 0 for n in weight_names):
    st.button(f"Balance the headline weights to 1 (they sum to {weight_sum:.2f}; proportions kept)",
              on_click=lambda: load_base({**edited, **balance_weights({n: edited[n] for n in weight_names})}),
              icon=":material/balance:", key="balance_weights")

try:
    sandbox = policy_from_dict(edited)
except PolicyError as error:
    st.error("These edits are refused:\n\n" + "\n".join(f"- **{fmt.plain(e.field)}**: {fmt.plain(e.message)}"
                                                        for e in error.errors), icon=":material/block:")
    end_page()
state.put("policy", changed_constants(policy_to_dict(sandbox)))

same = policy_to_dict(sandbox) | {"version": ""} == policy_to_dict(CANONICAL_POLICY) | {"version": ""}
st.info(f"Sandbox policy **{sandbox.version}**: "
        + ("its constants are still the canonical ones (edit one above); it is named apart, so nothing scored here "
           "is ever taken for the canonical score." if same else "not canonical."),
        icon=":material/science:")
info = data.dataset_info(scored)
st.download_button("Download this sandbox policy (JSON)", policy_json(sandbox),
                   file_name=f"policy_{downloads.slug(sandbox.version, 80)}.json", mime="application/json",
                   icon=":material/download:")

st.subheader("Rank changes: canonical against sandbox")
sandbox_report = data.sandbox_report(scored, sandbox)
diff = rank_diff(canonical, sandbox_report)
if st.toggle("Largest moves first", **state.bound("largest", "largest_first")):
    diff = largest_moves_first(diff)
st.caption(f"Canonical: {canonical.policy.version} · Sandbox: {sandbox.version}. Rank move is positive when "
           "the agent climbs under the sandbox policy.")
ui.table(diff, {"Canonical score": fmt.score, "Sandbox score": fmt.score,
                "Score delta": lambda v: f"{v:+.2f}", "Rank move": lambda v: f"{v:+.0f}"},
         key="rank_diff",
         columns={"Crossings": st.column_config.TextColumn(
             width="medium", help="A rule the agent crosses under the sandbox policy: the zero-success floor now "
                                  "applies or is lifted; the consistency gate is now met or no longer met")})
st.caption("**Crossings**: a rule the agent crosses under the sandbox policy — the zero-success floor now applies "
           "or is lifted, the consistency gate is now met or no longer met.")
st.download_button("Download the rank changes (CSV)",
                   downloads.rank_changes_csv(diff, canonical.policy.version, sandbox.version, info,
                                              changed_constants(policy_to_dict(sandbox))),
                   file_name=downloads.file_name("rank-changes", info, sandbox.version, "csv"), mime="text/csv",
                   icon=":material/download:")
st.plotly_chart(charts.rank_moves(diff, theme=ui.chart_theme()), width="stretch",
                key="rank_moves")

st.subheader("Score receipts")
st.caption("Everything needed to re-check one agent's numbers: the policy's constants, a content hash of the "
           "agent's runs, every intermediate value and the final numbers. Re-check with "
           "`python -m scoring verify RECEIPT.json RUNS_FILE`.")
left, right = st.columns(2)
agents = [a.agent_id for a in canonical.agents]
agent_id = left.selectbox("Agent", agents, **state.bound("agent", "receipt_agent", agents))
which = right.radio("Policy", state.KEY_BY_NAME["receipt"].options, horizontal=True, format_func=str.capitalize,
                    **state.bound("receipt", "receipt_policy", state.KEY_BY_NAME["receipt"].options))
report = sandbox_report if which == "sandbox" else canonical
runs = scored.runs[scored.runs["agent_id"] == agent_id]
receipt = build_receipt(report.agent(agent_id), runs, dataset=info.to_json(), generated_at=downloads.now_utc())
left, right = st.columns(2)
left.download_button("Download the receipt (JSON)", receipt_json(receipt),
                     file_name=downloads.file_name("receipt", info, report.policy.version, "json", agent=agent_id),
                     mime="application/json", icon=":material/download:", width="stretch")
right.download_button("Download the receipt (Markdown)", receipt_markdown(receipt),
                      file_name=downloads.file_name("receipt", info, report.policy.version, "md", agent=agent_id),
                      mime="text/markdown", icon=":material/download:", width="stretch")
with st.expander("Preview the receipt"):
    st.markdown(fmt.dollars_safe(receipt_markdown(receipt)))
