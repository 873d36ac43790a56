"""UI helpers of the explorer: data source state, number formatting, tables and plotly charts.

Only ``explorer.data`` and ``explorer.ui`` import streamlit; ``format``, ``tables`` and
``charts`` are plain functions tested without a browser.
"""
