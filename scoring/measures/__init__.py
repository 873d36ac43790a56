"""The three published measures over a validated table: headline, radar axes and repeatability, and the
report that gathers them.

May import: scoring.contract, scoring.load.
"""
