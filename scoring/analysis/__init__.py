"""Readings around the canonical numbers: explanations, fixes, drill-down, uncertainty, the sandbox,
team scorecards and dataset diffs; none of them changes the headline.

May import: scoring.contract, scoring.load, scoring.measures, scoring.engines.
"""
