"""Kernel tiers: a model's first calls answer at once, compiled kernels take over when built.

A numeric call needs a kernel of its registry entry. Three tiers compute the same thing:

* ``compiled``: the traced program compiled by Numba (:class:`~robodyn.codegen.kernel.Kernel`),
  the fastest once built; building costs seconds to minutes (:mod:`.generic` lists the
  measured times), once per model and kernel, then Numba's cache on disk serves.
* ``numpy``: the same traced program run by NumPy (what ``ROBODYN_BACKEND=numpy`` runs):
  no compile, answers in milliseconds for an arm.
* ``generic``: the algorithm run on the model as data (:mod:`.generic`), no trace, no
  compile: the tier of big models.

``ROBODYN_TIER`` chooses (read at each new kernel): ``auto`` (the default), ``compiled``
(always compile in the foreground, as robodyn did before tiers: the test suite and
benchmarks of steady-state speed), ``numpy`` or ``generic`` (never compile).

In ``auto``, a model of more than :data:`COMPILE_MAX_DOF` degrees of freedom is never
compiled: it runs the generic tier. Otherwise a kernel whose compile finished before (the
``k_<digest>.ok`` mark in the kernel cache, :func:`~robodyn.codegen.cache.mark_ready`)
answers from the ``numpy`` tier too, until the process has called it for
:data:`LOAD_AFTER` seconds: then a thread loads it from Numba's cache (Numba's import costs
more than a short script's whole work); any other starts in the ``numpy`` tier (``generic``
above :data:`TRACED_MAX_DOF`) and is handed to a background process
(``python -m robodyn.codegen.background``, one per process, at low priority) that compiles
it under the kernel's lock (:func:`~robodyn.codegen.cache.compile_lock`: never two compiles
of one kernel at once, across processes) and marks it ready; the running process looks for
the mark at most every :data:`POLL_SECONDS` and then switches to the compiled kernel.
Numba writes its cache entries through a temporary file and a rename, and the mark is
written the same way after them, so a background compiler killed midway leaves no entry
that is read: the next process finds no mark and starts again from the ``numpy`` tier.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.errors import RobodynError

if TYPE_CHECKING:  # subprocess loads when the background compiler starts (5.5 ms of import)
    import subprocess

__all__ = ["tier_setting", "first_tier", "loops_compile", "request_compile", "COMPILE_MAX_DOF",
           "TRACED_MAX_DOF", "POLL_SECONDS", "LOAD_AFTER", "LOOP_COMPILE_SECONDS", "TIERS",
           "FIRST_KINDS"]

TIERS = ("auto", "compiled", "numpy", "generic")
#: Above this many degrees of freedom ``auto`` never compiles (a 40-joint chain's mass
#: matrix compiles in 41 s, a 150-joint one's in more than 850 s; TALOS, nv = 50, in about
#: 50 s, and is worth it: its compiled M runs at 1.7 us per state).
COMPILE_MAX_DOF = 64
#: Above this many degrees of freedom the no-compile tier is ``generic``, not ``numpy``
#: (the traced NumPy program of a 150-joint chain's forward dynamics takes 38 s to make).
TRACED_MAX_DOF = 32
#: The kernels ``robot.compile()`` and ``robodyn compile`` build by default: a first
#: hour's calls (inverse and forward dynamics, M, g, the Jacobian).
FIRST_KINDS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "gravity_torques",
               "jacobian")
#: About what compiling a fixed-step loop of an arm costs (its forward dynamics inlined):
#: a job whose Python steps would take longer compiles its loop at once.
LOOP_COMPILE_SECONDS = 15.0
#: Seconds between two looks for a finished background compile.
POLL_SECONDS = 0.25
#: Seconds a process calls a kernel compiled before (ready in the cache) from the NumPy tier
#: before a thread loads the compiled one: loading imports Numba (0.3-0.5 s), more than a
#: short script's whole work (the Panda's first ID, M, FD and Jacobian: 0.05 s in NumPy).
LOAD_AFTER = 0.5


def tier_setting() -> str:
    """``ROBODYN_TIER``, checked: one of :data:`TIERS` (``auto`` when unset)."""
    wanted = os.environ.get("ROBODYN_TIER", "").strip().lower() or "auto"
    if wanted not in TIERS:
        raise RobodynError(f"ROBODYN_TIER={wanted!r} is not a kernel tier; use one of "
                           f"{', '.join(TIERS)} (or unset it: auto)")
    return wanted


def loops_compile(nv: int, ready: Callable[[], bool] | None = None,
                  python_seconds: Callable[[], float] | None = None) -> bool:
    """Whether a long job (a simulation's or a rollout's fixed-step loop) of a model of
    ``nv`` degrees of freedom compiles its loop: always with ``ROBODYN_TIER=compiled``; in
    ``auto`` up to :data:`COMPILE_MAX_DOF`, once the kernels it calls are compiled
    (``ready()``: by the background compiler the first run's calls started, or earlier),
    or when stepping in Python would take longer than compiling (``python_seconds()``, the
    estimate, above :data:`LOOP_COMPILE_SECONDS`). Otherwise, and for a bigger model, the
    loop steps in Python on the no-compile tiers: an unseen 6-DOF arm's first second at
    1 kHz takes about 2 s instead of the loop's compile (10-25 s)."""
    setting = tier_setting()
    if setting == "compiled":
        return True
    if setting != "auto" or nv > COMPILE_MAX_DOF:
        return False
    if ready is None or ready():
        return True
    return python_seconds is not None and python_seconds() > LOOP_COMPILE_SECONDS


def first_tier(nv: int) -> str:
    """The no-compile tier of a model of ``nv`` degrees of freedom."""
    return "numpy" if nv <= TRACED_MAX_DOF else "generic"


# -- the background compiler --------------------------------------------------------------
_process: subprocess.Popen | None = None
_writer: threading.Thread | None = None
_jobs: queue.SimpleQueue = queue.SimpleQueue()
_requested: set[str] = set()
_lock = threading.Lock()


def _start() -> subprocess.Popen:
    import subprocess

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # this robodyn
    return subprocess.Popen([sys.executable, "-m", "robodyn.codegen.background"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, text=True,
                            start_new_session=True)


def request_compile(source: str, groups: list, n_params: int, width: int) -> None:
    """Have the background compiler build ``source`` (a Numba kernel's text, given through
    its pipe, never read back from disk), once per process. Returns at once: a writer
    thread feeds the pipe (the compiler reads its next job only when it is done with one,
    and a kernel's text can exceed the pipe's buffer)."""
    global _writer
    import json

    with _lock:
        if source in _requested:
            return
        _requested.add(source)
        _jobs.put(json.dumps({"source": source, "widths": [w for _, w in groups],
                              "params": n_params, "width": width}))
        if _writer is None or not _writer.is_alive():
            _writer = threading.Thread(target=_feed, daemon=True, name="robodyn-compile-feed")
            _writer.start()


def _feed() -> None:
    """The writer thread: each queued job to the background compiler's pipe, starting it
    (again, if it exited) as needed."""
    global _process
    while True:
        job = _jobs.get()
        for _attempt in range(2):
            if _process is None or _process.poll() is not None:
                try:
                    _process = _start()
                except OSError:
                    return  # no process to be had: the first tiers keep answering
            try:
                _process.stdin.write(job + "\n")
                _process.stdin.flush()
                break
            except (BrokenPipeError, OSError, ValueError):
                _process = None


def background_process() -> subprocess.Popen | None:
    """The background compiler of this process (None before the first request)."""
    return _process


def _after_fork_in_child() -> None:
    global _process, _lock, _writer, _jobs
    _process, _lock, _writer, _jobs = None, threading.Lock(), None, queue.SimpleQueue()
    _requested.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def close() -> None:
    """Close the pipe: the background compiler finishes the kernels it was given, then
    exits (called at exit; its compiles go on after this process ends)."""
    with contextlib.suppress(Exception):
        if _process is not None:
            _process.stdin.close()
