"""What every benchmark here measures with: the median wall time of repeated calls."""

from __future__ import annotations

import statistics
import time


def median_time(fn, repeats: int) -> float:
    """Median over ``repeats`` calls of ``fn()`` of its wall time, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
