"""The background compiler of :mod:`robodyn.codegen.tiers`: ``python -m
robodyn.codegen.background``.

Reads one JSON job per line on its standard input (``source``: a Numba kernel's text,
``widths``: its input widths, ``params``, ``width``), and for each (at low priority: its
parent lowered it) takes the kernel's lock (:func:`~robodyn.codegen.cache.compile_lock`),
and unless another process finished it meanwhile (:func:`~robodyn.codegen.cache.is_ready`)
compiles it, which writes Numba's cache, runs it once on an empty batch, and marks it
ready (:func:`~robodyn.codegen.cache.mark_ready`). A job that fails is skipped: the
process that asked keeps its no-compile tier. Writes one line per job (``compiled``,
``ready`` or ``failed``) and exits at the end of its input.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from . import cache


def compile_job(job: dict) -> str:
    """Compile one job's kernel into the cache: ``"compiled"``, or ``"ready"`` when another
    process had finished it (found once this one held the lock)."""
    source = job["source"]
    with cache.compile_lock(source):
        if cache.is_ready(source):
            return "ready"
        fn = cache.load_function(source, "kernel", "numba")
        inputs = [np.zeros((1, w)) for w in job["widths"]]
        fn(*inputs, np.zeros(job["params"]), np.empty((1, job["width"])), 0, 0)
        cache.mark_ready(source)
    return "compiled"


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            done = compile_job(json.loads(line))
        except Exception:  # noqa: BLE001 - a kernel that does not compile stays uncompiled
            done = "failed"
        print(done, flush=True)  # one line per job (the tests read it)
    return 0


if __name__ == "__main__":
    sys.exit(main())
