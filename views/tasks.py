import streamlit as st

from explorer import charts, data, drill, ui
from explorer import format as fmt
from explorer.pages import show_title

show_title("tasks")
st.caption("The success rate of every agent on every task: terminal runs with a known outcome (the pass^k cohort), "
           "run counts and the headline cohort on hover. Click a cell to open its runs.")

scored = data.require_scores()
report = scored.report
cells = drill.task_matrix(scored)
agents = [a.agent_id for a in report.agents]  # leaderboard order, left to right
tasks = sorted(cells["task_id"].astype(str).unique(), key=fmt.natural_key)  # 3 before 11 (tau2's ids are numbers)

left, right = st.columns([1, 1])
left.metric("Tasks", fmt.count(len(tasks)))
right.metric("Agent-task pairs with a run", fmt.count(len(cells)), help=f"of {len(tasks) * len(agents):,} possible")
st.caption("Green: every known outcome a success; red: none; an empty cell: the agent has no run on the task, or "
           "none with a known outcome (hover to see which).")

view = drill.heatmap_view(cells, agents, tasks)
if view.cut:
    st.info(f"Showing the leaderboard's first {fmt.count(len(view.agents))} of {fmt.count(view.all_agents)} agents "
            f"and the {fmt.count(len(view.tasks))} of {fmt.count(view.all_tasks)} tasks they ran most (a heatmap "
            f"shows at most {drill.HEATMAP_MAX_AGENTS} agents and {drill.HEATMAP_MAX_TASKS} tasks, explorer-defined). "
            "Every run is on the Runs page.", icon=":material/grid_on:")
    cells = view.cells
# Built once per dataset for every session (the shared cache), not on every rerun.
heatmap = data.figure("task_heatmap", None, lambda: charts.task_heatmap(view.cells, view.agents, view.tasks))
event = st.plotly_chart(heatmap, width="content" if heatmap.layout.width else "stretch", key="task_heatmap",
                        on_select="rerun", selection_mode="points")
picked = ui.selected_point(event, curve=1, size=len(cells))
if picked is None:
    st.info("Click a cell to open the runs of that agent on that task.", icon=":material/touch_app:")
else:
    cell = cells.iloc[picked]
    agent_id, task_id = str(cell["agent_id"]), str(cell["task_id"])
    chosen = drill.RunsFilter(agents=(agent_id,), tasks=(task_id,))
    drill.choose(chosen)
    with st.container(border=True, key="heatmap_selection"):
        st.markdown(f"**{fmt.plain(agent_id)} on {fmt.plain(task_id)}**: {int(cell['runs']):,} runs; "
                    f"{int(cell['successes']):,} of {int(cell['outcomes']):,} known outcomes successful "
                    f"({fmt.pct(cell['success_rate'])}); headline cohort {int(cell['completed']):,} completed, "
                    f"{fmt.pct(cell['headline_success_rate'])} successful.")
        drill.runs_link(chosen, "Open this run" if int(cell["runs"]) == 1 else f"Open these {int(cell['runs']):,} runs")
