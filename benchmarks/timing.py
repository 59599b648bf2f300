"""What every benchmark here measures with: the median wall time of repeated calls."""

from __future__ import annotations

import os
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


# Steady state is the compiled tier's: a benchmark compiles in the foreground. In the
# default tier (``auto``) a process's first half second of calls runs the NumPy program
# (robodyn.codegen.tiers.LOAD_AFTER), which a benchmark of short loops would time instead.
os.environ.setdefault("ROBODYN_TIER", "compiled")
