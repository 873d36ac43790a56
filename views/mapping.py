import streamlit as st

from explorer import data, imports, ui
from explorer import format as fmt
from explorer import mapping_form as form
from explorer.pages import end_page, show_title
from scoring.contract.schema import STATUSES
from scoring.load.importers import MappingError, mapping_from_json, mapping_to_json

show_title("mapping")
st.caption("A results table in another layout (CSV, JSON, JSON Lines or Parquet) becomes runs through a column "
           "mapping: which of its columns holds each runs column, and how to convert it. The mapping is saved as "
           "JSON and read the same way by `python -m scoring report FILE --mapping map.json`.")

source = data.mapping_source()
if source is None:
    st.info("Upload one table under *Upload a file* in the sidebar first: this page maps the columns of the "
            "uploaded table. (Harness results from tau2-bench, tau-bench and Inspect AI need no mapping.)",
            icon=":material/upload_file:")
    end_page()
table = data.source_table(source)
if isinstance(table, data.Refused):
    st.error(f"The file '{fmt.plain(source.name)}' cannot be read as a table:", icon=":material/block:")
    st.dataframe(table.error.table(), hide_index=True, width="stretch")
    end_page()
columns = [str(c) for c in table.frame.columns]

# The form's starting values: the mapping in use, this session's last draft for the table, or a guess.
if st.session_state.get("map_form_for") != source.digest or form.column_key("run_id") not in st.session_state:
    start = source.mapping or st.session_state.get("map_draft", {}).get(source.digest)
    values, notes = form.form_from_mapping(mapping_from_json(start), columns) if start else (
        form.guess_form(columns), [])
    st.session_state.update(form.widget_state(values))
    st.session_state["map_form_for"] = source.digest
    st.session_state["map_status_named"] = dict(values.status_values)  # kept even where no choice is drawn
for key, value in form.widget_state(form.FormValues(columns={})).items():
    st.session_state.setdefault(key, value)  # a widget hidden on the last run (its state was dropped)

with st.expander("Start from a saved mapping", icon=":material/upload_file:"):
    saved = data.kept_upload(st.file_uploader("A mapping JSON saved from this page", type=["json"],
                                              key="mapping_file", max_upload_size=1))
if saved is not None and st.session_state.get("map_loaded") != saved.file_id:
    try:
        saved_mapping = mapping_from_json(saved.getvalue())
    except MappingError as exc:
        st.error(f"The saved mapping is refused: {fmt.plain(exc)}", icon=":material/block:")
    else:
        values, notes = form.form_from_mapping(saved_mapping, columns)
        st.session_state.update(form.widget_state(values))
        st.session_state["map_status_named"] = dict(values.status_values)
        st.session_state["map_loaded"] = saved.file_id
        st.session_state["map_notes"] = notes
for note in st.session_state.get("map_notes", []) if saved is not None else []:
    st.warning(fmt.plain(note), icon=":material/warning:")

st.markdown(f"**{fmt.plain(source.name)}**: {fmt.counted(len(table.frame), 'row', 'rows')}, "
            f"{fmt.counted(len(columns), 'column', 'columns')}: "
            + ", ".join(fmt.plain(c) for c in columns[:40]) + (" …" if len(columns) > 40 else ""))

st.subheader("Columns")
optional = [form.NOT_MAPPED, *columns]
left, right = st.columns(2)
chosen: dict[str, str | None] = {}
with left:
    chosen["run_id"] = st.selectbox("run_id: unique per run", optional, key=form.column_key("run_id"))
    chosen["task_id"] = st.selectbox("task_id", optional, key=form.column_key("task_id"))
    chosen["status"] = st.selectbox("status", [form.EVERY_RUN_COMPLETED, *columns], key=form.column_key("status"))
    chosen["success"] = st.selectbox("success", optional, key=form.column_key("success"))
    chosen["finished_at"] = st.selectbox("finished_at (ISO-8601)", optional, key=form.column_key("finished_at"))
with right:
    agent_columns = st.multiselect("agent_id: one or more columns, joined", columns, key=form.AGENT_COLUMNS_KEY,
                                   max_selections=10)
    sep_col, const_col = st.columns(2)
    separator = sep_col.text_input("Separator", key=form.SEPARATOR_KEY, max_chars=10)
    agent_constant = const_col.text_input("…or one agent id for every row", key=form.AGENT_CONSTANT_KEY,
                                          max_chars=200, disabled=bool(agent_columns))
    lat_col, lat_unit = st.columns([2, 1])
    chosen["latency_ms"] = lat_col.selectbox("latency_ms", optional, key=form.column_key("latency_ms"))
    latency_unit = lat_unit.selectbox("in", form.LATENCY_UNITS, key=form.LATENCY_UNIT_KEY,
                                      format_func=form.unit_name)
    cost_col, cost_unit_col = st.columns([2, 1])
    chosen["cost_usd"] = cost_col.selectbox("cost_usd", optional, key=form.column_key("cost_usd"))
    cost_unit = cost_unit_col.selectbox("in", form.COST_UNITS, key=form.COST_UNIT_KEY, format_func=form.unit_name)
    chosen["steps"] = st.selectbox("steps (a count)", optional, key=form.column_key("steps"))
picked = {c: (None if v in (form.NOT_MAPPED, form.EVERY_RUN_COMPLETED) else v) for c, v in chosen.items()}

st.subheader("Success rule")
rule = st.radio("How the success column becomes an outcome", form.SUCCESS_RULES, key=form.RULE_KEY,
                horizontal=True, disabled=picked["success"] is None)
true_values: list[str] = []
false_values: list[str] = []
threshold, tolerance = 1.0, 0.0
if picked["success"] is not None and rule == form.RULE_TRUE_VALUES:
    seen, total = form.distinct_values(table.frame[picked["success"]])
    options = list(dict.fromkeys(seen + list(st.session_state.get(form.TRUE_VALUES_KEY, []))
                                 + list(st.session_state.get(form.FALSE_VALUES_KEY, []))))
    t_col, f_col = st.columns(2)
    true_values = t_col.multiselect("Values that mean success (any case)", options, key=form.TRUE_VALUES_KEY)
    false_values = f_col.multiselect("Values that mean failure (optional)", options, key=form.FALSE_VALUES_KEY,
                                     help="Without any, every value but the success values is a failure. With "
                                          "some, a value in neither list is left for the validator to refuse.")
    st.caption("An empty cell stays an unknown outcome.")
    if total > len(seen):
        st.caption(f"The {len(seen)} most frequent of {total:,} distinct values are offered.")
elif picked["success"] is not None and rule == form.RULE_THRESHOLD:
    t_col, e_col = st.columns(2)
    threshold = t_col.number_input("Success when value ≥ threshold − tolerance: threshold", key=form.THRESHOLD_KEY,
                                   format="%g")
    tolerance = e_col.number_input("tolerance", min_value=0.0, key=form.TOLERANCE_KEY, format="%g",
                                   help="tau2-bench's rule is threshold 1 with tolerance 1e-6 for rewards in [0, 1]")

status_values: dict[str, str] = {}
if picked["status"] is not None:
    st.subheader("Status vocabulary")
    seen, total = form.distinct_values(table.frame[picked["status"]])
    st.caption("Each value of the status column becomes one of our statuses (terminal: completed, failed, timeout); "
               "a value left as written must already be one.")
    grid = st.columns(3)
    # One choice per value in any case: the vocabulary matches source values in any case, and so do the keys.
    one_per_key: dict[str, str] = {}
    for value in seen:
        one_per_key.setdefault(form.status_key(value), value)
    for i, value in enumerate(one_per_key.values()):
        key = form.status_key(value)
        st.session_state.setdefault(key, form.default_status(value))
        status_values[value] = grid[i % 3].selectbox(fmt.plain(value), [form.AS_WRITTEN, *STATUSES], key=key)
    # A loaded mapping may name values beyond the ones listed: they keep the status it gives them.
    drawn = {form.status_key(v) for v in seen}
    kept = {v: s for v, s in st.session_state.get("map_status_named", {}).items()
            if form.status_key(v) not in drawn}
    status_values.update(kept)
    if kept:
        st.caption(f"{fmt.counted(len(kept), 'more value', 'more values')} named by the loaded mapping "
                   f"{'keeps' if len(kept) == 1 else 'keep'} the status it gives "
                   f"{'it' if len(kept) == 1 else 'them'}.")
    if total > len(seen):
        st.caption(f"The {len(seen)} most frequent of {total:,} distinct values are listed; the others are passed "
                   "on as written (the validator names any that is not a status).")

experiment = st.text_input("Experiment tag (optional): added to every agent id", key=form.EXPERIMENT_KEY,
                           max_chars=100)

values = form.FormValues(columns=picked, agent_columns=tuple(agent_columns), separator=separator,
                         agent_constant=agent_constant, latency_unit=latency_unit, cost_unit=cost_unit,
                         success_rule=rule, true_values=tuple(true_values), false_values=tuple(false_values),
                         threshold=threshold, tolerance=tolerance,
                         status_values=status_values, experiment=experiment)
try:
    mapping = form.mapping_from_form(values)
except MappingError as exc:
    st.error(f"Not a mapping yet: {fmt.plain(exc)}", icon=":material/edit:")
    end_page()
mapping_json = mapping_to_json(mapping)
st.session_state["map_draft"] = {source.digest: mapping_json}  # this table only: a small text

st.subheader("Preview")
result = data.mapping_preview(source, table, mapping_json)
if result.report is None:
    st.error(fmt.plain(result.error.report() if result.error else "nothing to preview"), icon=":material/block:")
    end_page()
st.dataframe(result.rows, hide_index=True, width="stretch", height=ui.ROW_HEIGHT * (len(result.rows) + 1) + 3)
st.caption(f"The first {form.PREVIEW_ROWS} mapped rows as they go to the validator (the source row on the left).")
for block in imports.report_markdown(result.report):
    st.markdown(block)
if result.error is not None:
    error = result.error
    st.warning(f"The validator refuses {fmt.counted(error.total, 'problem', 'problems')} in "
               f"{error.invalid_rows:,} of {fmt.counted(error.rows_read, 'row', 'rows')}. Scored, the table shows "
               "this report and offers to exclude the invalid rows.",
               icon=":material/warning:")
    st.dataframe(error.table(), hide_index=True, width="stretch")
else:
    st.success(f"Every row is valid: {fmt.counted(result.runs, 'run', 'runs')} of "
               f"{fmt.counted(result.agents, 'agent', 'agents')} on {fmt.counted(result.tasks, 'task', 'tasks')}.",
               icon=":material/check:")

left, right = st.columns(2)
left.download_button("Download the mapping (JSON)", mapping_json, file_name="mapping.json", mime="application/json",
                     icon=":material/download:", width="stretch")
if source.mapping is not None and mapping_from_json(source.mapping) == mapping:
    with right:
        st.success("Every page now scores this table through this mapping.", icon=":material/check:")
        data.page_link("leaderboard", "Open the Leaderboard", ":material/leaderboard:")
elif right.button("Score with this mapping", type="primary", key="score_mapping", icon=":material/table_convert:",
                  width="stretch"):
    data.use_mapped(source.upload, mapping_json, source.name)
    st.rerun()
