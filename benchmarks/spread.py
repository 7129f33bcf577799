"""How a benchmark prints a set of timings: median, 95th percentile and maximum."""

from __future__ import annotations

import statistics
from collections.abc import Iterable


def spread(milliseconds: Iterable[float]) -> str:
    """`median M ms, p95 P ms, max X ms` of `milliseconds` (at least one)."""
    timings = sorted(milliseconds)
    p95 = timings[max(0, int(len(timings) * 0.95) - 1)]
    median = statistics.median(timings)
    return f"median {median:.1f} ms, p95 {p95:.1f} ms, max {timings[-1]:.1f} ms"
