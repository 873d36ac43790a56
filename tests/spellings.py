"""Timestamp spellings every engine must read alike (docs/schema.md, "Timestamps"): a fixed list and a
hypothesis strategy, shared by the pandas, DuckDB, PostgreSQL and Spark suites (not a test module)."""

from __future__ import annotations

from hypothesis import strategies as st

from scoring.schema import SPEC_COLUMNS

# 164 spellings (dates x times x zones, and four odd ones) the engines once read differently, then edges.
TIMESTAMP_SPELLINGS = [
    d + t + z
    for d in ("2026-07-01", "2026-02-30")
    for t in ("", "T10", " 10", "T10:30", "T10:30:45", "T10:30:45.5", "T10:30:45.123456", "T10:30:45.1234567")
    for z in ("", "Z", "z", "+05", "+0530", "+05:30", "-08", " Z", " +05:30", " -0800")
] + ["2026-07-01T24:00:00", "yesterday", "2026-07-01 12:00:00 PST", "1969-12-31T23:59:59.9999999Z"] + [
    "2026-01-01T05", "2026-01-01T05Z", "2026-01-01T05:30:00 +0530", "20260101T053000Z", "2026-07-01t10:30:45z",
    "2024-02-29", "2100-02-29", "2000-02-29T00:00:00Z", "2026-04-31", "2026-07-01T23:59:60Z", "2026-07-01T10:60",
    "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:01", "0001-01-01T00:00:00-00:01",
    "9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.9999999-00:00", "9999-12-31T23:59:59+00:01",
    "9999-12-31T23:59:59-00:01", "2026-07-01T10:30:45-00:30", "2026-07-01T10:30:45+14:59", "2026-07-01T10:30:45+15",
    "2026-07-01T10:30:45.123456789Z", "2026-07-01T10:30:45.1234567891Z", "2026-07-01T10:30:45,5Z",
    "2026-07-01T10:30:45.Z", "2026-7-01", "2026-07-1", "+2026-07-01", "12026-07-01", "2026-07-01T", "2026-07-01Z",
    "\u30002026-07-01T10:30\u3000", "2026-07-01 T10:30", "2026-07-01T10:30:45+05:3", "2026-07-01T10:30:45+5",
    "2026-07-01T10:30:45 UTC", "2026-07-01T10:30:45+05:30:00", "١٩٧٠-01-01", "2026-07-01T10:30:45.٥Z",
]

_WHITESPACE = ["", "", " ", "\t", "\u3000", "\x85"]


@st.composite
def timestamp_spellings(draw: st.DrawFn) -> str:
    """A spelling near the grammar: each part valid most of the time, sometimes just outside it."""
    year = draw(st.sampled_from(["2026", "1970", "1969", "2024", "2000", "2100", "0001", "9999", "0000", "202",
                                 "12026"]))
    month = draw(st.sampled_from(["01", "02", "04", "07", "12", "00", "13", "7"]))
    day = draw(st.sampled_from(["01", "28", "29", "30", "31", "00", "32", "1"]))
    dash = draw(st.sampled_from(["-", "-", "-", ""]))
    text = year + dash + month + dash + day
    if draw(st.booleans()):
        text += draw(st.sampled_from(["T", "T", " ", "t", "", "  ", "_"]))
        text += draw(st.sampled_from(["00", "05", "10", "23", "24", "5"]))
        if draw(st.integers(0, 5)):
            text += draw(st.sampled_from([":", ":", ":", ""])) + draw(st.sampled_from(["00", "30", "59", "60", "3"]))
            if draw(st.integers(0, 3)):
                text += ":" + draw(st.sampled_from(["00", "45", "59", "60"]))
                if draw(st.booleans()):
                    text += draw(st.sampled_from([".", ".", ","])) + draw(st.text("0123456789", max_size=11))
        text += draw(st.sampled_from(["", "Z", "z", "+00:00", "-00:30", "+05", "-08", "+0530", "-08:30", "+14:59",
                                      "+15:00", " Z", " +05:30", "+05:3", "UTC", "+5"]))
    return draw(st.sampled_from(_WHITESPACE)) + text + draw(st.sampled_from(_WHITESPACE))


def timestamp_runs_csv(spellings: list[str]) -> str:
    """A runs CSV with one valid run per spelling, the spelling its finished_at (row i + 1 holds spellings[i])."""
    def cell(value: str) -> str:
        return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n\r') else value

    rows = [f"r{i},a,t,completed,true,1000,0.01,3,{cell(s)}" for i, s in enumerate(spellings)]
    return ",".join(SPEC_COLUMNS) + "\n" + "\n".join(rows) + "\n"
