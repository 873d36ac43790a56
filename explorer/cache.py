"""Scored datasets shared by every session, held within a memory budget and dropped when idle.

Streamlit's own caches bound the number of entries, not their size, and any client can clear
them for everybody with one message. This cache is the explorer's: it holds at most
``max_bytes`` (the sizes its caller reports), drops what no session has read for
``idle_seconds``, computes each key once even when several sessions ask for it at the same time,
and nothing a viewer sends can clear it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass
class _Entry(Generic[V]):
    value: V
    size: int
    last_used: float
    expires: float | None = None  # a deadline (the clock's time) for a value that is good for a while only


class BoundedCache(Generic[V]):
    """A least-recently-used cache bounded by the total size of its values and by idle time."""

    # A read looks at its own entry's age; the whole cache is swept for idle entries at most this often on reads
    # (a page's rerun reads it a dozen times, and it holds every agent's explanations, tables and charts).
    SWEEP_SECONDS = 1.0

    def __init__(self, max_bytes: int, idle_seconds: float, clock: Callable[[], float] = time.monotonic):
        self.max_bytes, self.idle_seconds, self.clock = max_bytes, idle_seconds, clock
        self._entries: OrderedDict[Hashable, _Entry[V]] = OrderedDict()
        self._bytes = 0  # the sizes of the entries held, kept as they come and go (not summed on every insert)
        self._swept = float("-inf")
        self._lock = threading.Lock()
        self._computing: dict[Hashable, threading.Lock] = {}

    def get_or_compute(self, key: Hashable, compute: Callable[[], V], size_of: Callable[[V], int],
                       kept_for: Callable[[V], float | None] | None = None) -> V:
        """The cached value for ``key``, or ``compute()``'s, stored if it fits the budget; ``kept_for(value)``
        may give it a life in seconds (None: until idle or pushed out)."""
        value = self._get(key)
        if value is not None:
            return value
        with self._lock:
            gate = self._computing.setdefault(key, threading.Lock())
        with gate:  # one computation per key: a second session asking meanwhile waits for the first
            value = self._get(key)
            if value is None:
                value = compute()
                life = kept_for(value) if kept_for else None
                self._put(key, value, int(size_of(value)), None if life is None else self.clock() + life)
        with self._lock:
            self._computing.pop(key, None)
        return value

    def get(self, key: Hashable) -> V | None:
        """The cached value for ``key`` (marked as read), or None: nothing is computed."""
        return self._get(key)

    def _get(self, key: Hashable) -> V | None:
        with self._lock:
            now = self.clock()
            if now - self._swept >= self.SWEEP_SECONDS:
                self._drop_idle()
            entry = self._entries.get(key)
            if entry is None:
                return None
            if self._stale(entry, now):
                self._drop(key)
                return None
            entry.last_used = now
            self._entries.move_to_end(key)
            return entry.value

    def _put(self, key: Hashable, value: V, size: int, expires: float | None = None) -> None:
        with self._lock:
            # Swept at most every SWEEP_SECONDS here too: a sweep per insert made filling the cache with many small
            # entries (every agent's explanations) quadratic, 48 % of a warm-up thread's time at 10,000 agents.
            if self.clock() - self._swept >= self.SWEEP_SECONDS:
                self._drop_idle()
            if size > self.max_bytes:
                return  # larger than the whole budget: used by the session that computed it, never held
            if key in self._entries:
                self._drop(key)
            while self._entries and self._bytes + size > self.max_bytes:
                self._drop(next(iter(self._entries)))
            self._entries[key] = _Entry(value, size, self.clock(), expires)
            self._bytes += size

    def _drop(self, key: Hashable) -> None:
        self._bytes -= self._entries.pop(key).size

    def _stale(self, entry: _Entry[V], now: float) -> bool:
        """Unread for longer than the idle time, or past its life."""
        return now - entry.last_used > self.idle_seconds or (entry.expires is not None and now >= entry.expires)

    def _drop_idle(self) -> None:
        now = self._swept = self.clock()
        for key in [k for k, e in self._entries.items() if self._stale(e, now)]:
            self._drop(key)

    @property
    def total_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def trim(self) -> None:
        """Drop idle entries now (a sweep that needs no request)."""
        with self._lock:
            self._drop_idle()
