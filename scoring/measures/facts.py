"""Facts: sentences the core states with typed values, which the formatter turns into text.

A measure knows *what* is true ("the median latency over 40 runs is 1,834.5 ms"); how a number
looks is the formatter's business (``scoring.contract.format``). A :class:`Fact` keeps the two apart: a
template with named slots, each with a format name, and the values. The app, the CLI and receipts
render the same fact with the same formatter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# {name:format} or {name:format|one|many}: the value formatted, then the noun for one or for any other count.
_SLOT = re.compile(r"\{(\w+):(\w+)(?:\|([^|{}]*)\|([^|{}]*))?\}")


@dataclass(frozen=True)
class Fact:
    """``template`` with ``{name:format}`` slots filled from ``values``.

    Examples
    --------
    >>> str(Fact("median latency {p50:ms} over {n:count} runs", {"p50": 1834.5, "n": 40}))
    'median latency 1,834 ms over 40 runs'
    >>> str(Fact("{n:count|run is|runs are} not completed", {"n": 1}))
    '1 run is not completed'
    """

    template: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def render(self, escape: Callable[[str], str] | None = None) -> str:
        """The sentence, each value formatted (and passed through ``escape``, e.g. for markdown)."""
        from scoring.contract.format import FORMATS

        def slot(match: re.Match) -> str:
            value = self.values[match[1]]
            shown = FORMATS[match[2]](value)
            if match[3] is not None:
                shown += " " + (match[3] if value == 1 else match[4])
            return escape(shown) if escape else shown

        return _SLOT.sub(slot, self.template)

    def __str__(self) -> str:
        return self.render()

    def to_json(self) -> dict[str, Any]:
        return {"text": self.render(), "template": self.template, "values": dict(self.values)}
