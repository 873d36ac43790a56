"""Exact sufficient statistics of a completed-run cohort, for taking runs out of it (SPEC 3).

The headline reads, per agent, the count of completed runs, the successes, and the count, mean
and population spread of the recorded latencies and costs. Taking runs out of a cohort (the
influence of a task or a run, :mod:`scoring.analysis.explain`) changes those statistics. The textbook
update works in doubles from (n, mean, sum of squared deviations M2):
removing k values y with D = sum(y - mean),

    mean' = mean - D / (n - k)
    M2'   = M2 - sum((y - mean)^2) - D^2 / (n - k)

(the reverse of Chan's parallel combination). It is exact in real arithmetic but cancels in
doubles exactly where it matters: when the removed runs carry most of M2 (an outlier), M2' is the
difference of two nearly equal numbers, and when they carry most of the sum, the mean left is a
rounding away from its true value. Consistency, 1 - pstdev/mean, magnifies both (the tests:
removing a 1e6 ms outlier from latencies of 0 to 0.004 ms, the textbook update is 10.6 points off;
from latencies near 1234.7 ms, 3e-9 points).

So the sums are kept exact instead: every double is an integer multiple of 2**-1074, so a column
scaled by one power of two is a column of Python integers whose sums, sums of squares and their
differences are exact. Each statistic is rounded once at the end: the mean is the correctly
rounded sum divided by the count, as the headline's own ``AgentGroups.mean`` computes it (bit for
bit), and the variance (n * sum(x^2) - sum(x)^2) / n^2 is rounded once from the exact fraction. The
headline's pstdev is the square root of a correctly rounded two-pass sum of squared deviations,
each deviation taken from the rounded mean and each square rounded, so the two spreads agree to a
few units in the last place, not always to the bit.

(Adding runs, as the score over time does day by day, cancels nothing: every term of the parallel
update is then non-negative, so :mod:`scoring.analysis.drilldown` does that in floating point.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.measures.headline import HeadlineAggregates


def scaled_integers(values: Sequence[float] | np.ndarray) -> tuple[list[int], int]:
    """Finite doubles as exact integers ``v * 2**shift``, one ``shift`` for all of them.

    Examples
    --------
    >>> scaled_integers([1.5, 0.25, 3.0])
    ([6, 1, 12], 2)
    """
    ratios = [float(v).as_integer_ratio() for v in np.asarray(values, dtype=float).tolist()]
    shift = max((d.bit_length() - 1 for _, d in ratios), default=0)  # every denominator is a power of two
    return [n << (shift - (d.bit_length() - 1)) for n, d in ratios], shift


_FIELDS = ("completed", "successes", "latency_runs", "latency_sum", "latency_squares", "cost_runs", "cost_sum")


@dataclass(frozen=True)
class CohortSums:
    """Integer sufficient statistics of a set of completed runs: counts, and sums scaled by ``2**shift``.

    ``latency_sum`` is sum(x) * 2**latency_shift and ``latency_squares`` sum(x^2) * 2**(2 * latency_shift)
    over the runs with a recorded latency; ``cost_sum`` likewise over recorded costs. Statistics with
    the same shifts subtract exactly.
    """

    completed: int
    successes: int
    latency_runs: int
    latency_sum: int
    latency_squares: int
    cost_runs: int
    cost_sum: int
    latency_shift: int = 0
    cost_shift: int = 0


@dataclass(frozen=True)
class CohortColumns:
    """The statistics of several sets of completed runs, field by field: lists of integers, one entry a set.

    Columnar so that thousands of sets (every run of an agent) are handled by list comprehensions
    rather than an object each.
    """

    completed: list[int]
    successes: list[int]
    latency_runs: list[int]
    latency_sum: list[int]
    latency_squares: list[int]
    cost_runs: list[int]
    cost_sum: list[int]
    latency_shift: int = 0
    cost_shift: int = 0

    @classmethod
    def of(cls, sums: Sequence[CohortSums]) -> CohortColumns:
        latency_shift, cost_shift = (sums[0].latency_shift, sums[0].cost_shift) if sums else (0, 0)
        return _columns([[getattr(s, f) for s in sums] for f in _FIELDS], latency_shift, cost_shift)

    def __len__(self) -> int:
        return len(self.completed)

    def left_from(self, total: CohortSums) -> CohortColumns:
        """What is left of ``total`` without each set (same shifts): exact."""
        return _columns([[getattr(total, f) - v for v in getattr(self, f)] for f in _FIELDS], self.latency_shift,
                        self.cost_shift)

    def placed(self, mask: np.ndarray) -> CohortColumns:
        """These sets at the positions ``mask`` selects, and empty sets (all zero) everywhere else."""
        where = np.flatnonzero(mask)

        def place(values: list[int]) -> list[int]:
            out = np.zeros(len(mask), dtype=object)
            out[where] = np.array(values + [0], dtype=object)[:-1]  # the extra 0 keeps it a 1-d object array
            return out.tolist()

        return _columns([place(getattr(self, f)) for f in _FIELDS], self.latency_shift, self.cost_shift)

    def stats(self) -> HeadlineAggregates:
        """The headline's cohort statistics of each set (arrays), each rounded once.

        Means are the correctly rounded sum over the count (the headline's own rule, so they agree
        to the bit); the population variance is the exact (n * sum(x^2) - sum(x)^2) / n^2 rounded once.
        """
        nan = float("nan")
        scale, cost_scale = 1 << self.latency_shift, 1 << self.cost_shift
        square = scale * scale
        # int / int is correctly rounded in Python; n * sum(x^2) - sum(x)^2 >= 0 exactly.
        mean = [(s / scale) / n if n > 0 else nan for s, n in zip(self.latency_sum, self.latency_runs)]
        pstdev = [_root(n * q - s * s, n * n * square) if n > 0 else nan
                  for s, q, n in zip(self.latency_sum, self.latency_squares, self.latency_runs)]
        cost = [(s / cost_scale) / n if n > 0 else nan for s, n in zip(self.cost_sum, self.cost_runs)]
        count = lambda values: np.array(values, dtype=float)
        return HeadlineAggregates(count(self.completed), count(self.successes), count(self.latency_runs),
                                  np.array(mean, dtype=float), np.array(pstdev, dtype=float), count(self.cost_runs),
                                  np.array(cost, dtype=float))


def _root(numerator: int, denominator: int) -> float:
    """sqrt(numerator / denominator) for integers (numerator >= 0, denominator > 0), where the quotient may be past
    the doubles' range (the spread of latencies of 1e-200 ms): scaled by a power of four, rooted, scaled back.

    >>> _root(9, 4), _root(256, 10 ** 402), math.sqrt(256 / 10 ** 402)  # sqrt(2.56e-400): 2.56e-400 is 0.0
    (1.5, 1.6e-200, 0.0)
    >>> _root(4 * 10 ** 320, 1)  # the quotient past the largest double: int / int would overflow
    2e+160
    """
    if numerator == 0:
        return 0.0
    k = (denominator.bit_length() - numerator.bit_length()) // 2  # numerator * 4^k about the denominator
    quotient = (numerator << (2 * k)) / denominator if k >= 0 else numerator / (denominator << (-2 * k))
    return math.ldexp(math.sqrt(quotient), -k)


def _columns(lists: list[list[int]], latency_shift: int, cost_shift: int) -> CohortColumns:
    completed, successes, latency_runs, latency_sum, latency_squares, cost_runs, cost_sum = lists
    return CohortColumns(completed, successes, latency_runs, latency_sum, latency_squares, cost_runs, cost_sum,
                         latency_shift, cost_shift)


def rounded_stats(sums: Sequence[CohortSums]) -> HeadlineAggregates:
    """The headline's cohort statistics (arrays, one entry per element of ``sums``), each rounded once.

    Examples
    --------
    >>> ints, shift = scaled_integers([1000.0, 2000.0, 3000.0, 4000.0, 5000.0])
    >>> s = CohortSums(5, 5, 5, sum(ints), sum(i * i for i in ints), 0, 0, shift, 0)
    >>> stats = rounded_stats([s])
    >>> float(stats.latency_mean[0]), float(stats.latency_pstdev[0])  # sqrt(2e6): SPEC 3's example
    (3000.0, 1414.213562373095)
    """
    return CohortColumns.of(sums).stats()


@dataclass(frozen=True)
class ExactColumns:
    """Per-run integer columns of some completed runs, for grouped and single-run sums.

    Each list is aligned with the runs given: success (0/1), latency recorded (0/1), the latency
    scaled (0 when not recorded), cost recorded (0/1), the cost scaled.
    """

    success: list[int]
    has_latency: list[int]
    latency: list[int]
    has_cost: list[int]
    cost: list[int]
    latency_shift: int
    cost_shift: int

    @classmethod
    def of(cls, success: np.ndarray, latency: np.ndarray, cost: np.ndarray) -> ExactColumns:
        """Columns of completed runs: ``success`` as bools, ``latency``/``cost`` with NaN where not recorded."""
        has_lat, has_cost = ~np.isnan(latency), ~np.isnan(cost)
        lat, lat_shift = scaled_integers(np.where(has_lat, latency, 0.0))
        cst, cost_shift = scaled_integers(np.where(has_cost, cost, 0.0))
        return cls(np.asarray(success, dtype=bool).astype(int).tolist(), has_lat.astype(int).tolist(), lat,
                   has_cost.astype(int).tolist(), cst, lat_shift, cost_shift)

    def __len__(self) -> int:
        return len(self.success)

    def total(self, rows: Sequence[int] | range | None = None) -> CohortSums:
        """The statistics of the runs ``rows`` (all runs by default)."""
        idx = range(len(self)) if rows is None else rows
        lat = [self.latency[i] for i in idx]
        return CohortSums(len(lat), sum(self.success[i] for i in idx), sum(self.has_latency[i] for i in idx),
                          sum(lat), sum(x * x for x in lat), sum(self.has_cost[i] for i in idx),
                          sum(self.cost[i] for i in idx), self.latency_shift, self.cost_shift)

    def singles(self) -> CohortColumns:
        """The statistics of each run alone."""
        return CohortColumns([1] * len(self), self.success, self.has_latency, self.latency,
                             [x * x for x in self.latency], self.has_cost, self.cost, self.latency_shift,
                             self.cost_shift)

    def grouped(self, keys: Sequence[int], size: int) -> CohortColumns:
        """Statistics per group ``0..size-1`` of the runs, ``keys[i]`` naming run i's group."""
        acc = [[0] * size for _ in _FIELDS]
        completed, successes, latency_runs, latency_sum, latency_squares, cost_runs, cost_sum = acc
        for i, key in enumerate(keys):
            x = self.latency[i]
            completed[key] += 1
            successes[key] += self.success[i]
            latency_runs[key] += self.has_latency[i]
            latency_sum[key] += x
            latency_squares[key] += x * x
            cost_runs[key] += self.has_cost[i]
            cost_sum[key] += self.cost[i]
        return _columns(acc, self.latency_shift, self.cost_shift)
