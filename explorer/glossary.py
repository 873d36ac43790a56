"""A short glossary of the statistics words the pages use: one sentence each, for tooltips and the pack."""

from __future__ import annotations

GLOSSARY: dict[str, str] = {
    "bootstrap": "Re-drawing an agent's own runs at random, with replacement, many times and re-scoring each "
                 "draw, to see how much the score could move with other runs of the same kind.",
    "replicates": "How many bootstrap re-draws are scored. More replicates give steadier interval ends and take "
                  "longer; 1,000 is the default.",
    "seed": "The starting number of the random draws. The same seed with the same data and replicates gives the "
            "same intervals, so a reviewer can reproduce them.",
    "percentile interval": "The 95% interval runs from the 2.5th to the 97.5th percentile of the re-drawn "
                           "scores: the middle 95% of them (a percentile is the value below which that share of "
                           "the scores falls).",
    "tie group": "Agents the data cannot clearly separate: walking down the leaderboard, an agent joins the "
                 "current group while its interval's upper end reaches the lower end of the group's first agent's "
                 "interval; otherwise it starts the next group.",
    "Pareto frontier": "The agents no other agent beats on both counts at once (a success rate at least as high "
                       "and an average cost or latency at least as low, one of them strictly better).",
    "pstdev": "Population standard deviation: the typical distance of the recorded latencies from their mean, "
              "dividing by their count n (not n − 1).",
    "pass^k": "The chance that k attempts at a task, drawn from its recorded outcomes without replacement, all "
              "succeed: C(c, k) ÷ C(n, k) for c successes in n outcomes.",
    "p50": "The median: half the values are below it and half above (the mean of the two middle values for an "
           "even count).",
    "window": "The fitness radar reads each agent's latest terminal runs only (the newest first), so it shows "
              "recent behaviour.",
    "profile score": "Your weighted mean of an agent's available radar axes; it re-ranks agents for you and never "
                     "changes a headline score.",
}


def explain(term: str) -> str:
    """The definition of ``term`` (a KeyError for a term not in the glossary, so a typo fails a test)."""
    return GLOSSARY[term]


def tooltip(*terms: str) -> str:
    """Definitions of several terms as one tooltip (markdown: each term in bold)."""
    return "\n\n".join(f"**{term}**: {GLOSSARY[term]}" for term in terms)
