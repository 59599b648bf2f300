"""The threads batched work runs on: one shared pool, sized by ``ROBODYN_NUM_THREADS``.

The compiled kernels and loops release the GIL (``nogil``), so one process splits a large
batch over threads of one pool (:func:`run_in_threads`), made on first use and grown when
more threads are asked for. ``ROBODYN_NUM_THREADS`` caps the threads (default: every core
this process may use). A forked child starts with no pool, and makes its own.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from ..core.errors import RobodynError

if TYPE_CHECKING:  # the pool's module loads with the first pool (3.5 ms of import)
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["thread_count", "shared_pool", "run_in_threads"]

_pool: ThreadPoolExecutor | None = None
_pool_workers = 0  # the threads _pool was made with (the executor has no public count)
_lock = threading.Lock()


def thread_count() -> int:
    """The threads robodyn's batched work runs on: ``ROBODYN_NUM_THREADS``, else every core
    this process may use."""
    env = os.environ.get("ROBODYN_NUM_THREADS", "").strip()
    if env:
        try:
            count = int(env)
        except ValueError:
            count = 0
        if count < 1:
            raise RobodynError(f"ROBODYN_NUM_THREADS={env[:40]!r} is not a positive integer; "
                               "set it to the number of threads (e.g. 4) or unset it")
        return count
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def shared_pool(workers: int) -> ThreadPoolExecutor:
    """The shared pool, made anew when it has fewer than ``workers`` threads."""
    global _pool, _pool_workers
    from concurrent.futures import ThreadPoolExecutor

    with _lock:
        if _pool is None or _pool_workers < workers:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="robodyn")
            _pool_workers = workers
        return _pool


def run_in_threads(fn, calls: list[tuple]) -> list:
    """``[fn(*args) for args in calls]``, each call on a thread of robodyn's shared pool
    (``fn`` releases the GIL: a ``nogil`` compiled function); one call runs here."""
    if len(calls) <= 1:
        return [fn(*args) for args in calls]
    pool = shared_pool(len(calls))
    return [f.result() for f in [pool.submit(fn, *args) for args in calls]]


def _after_fork_in_child() -> None:
    # A forked child has the parent's pool object but none of its threads, and maybe a
    # lock held by a thread that no longer exists: start both afresh.
    global _pool, _pool_workers, _lock
    _pool = None
    _pool_workers = 0
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
