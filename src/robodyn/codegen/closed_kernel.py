"""The forward dynamics of a closed mechanism as a compiled kernel of the robot's tiers.

:meth:`ClosedChain.forward_dynamics <robodyn.dynamics.constrained.ClosedChain.forward_dynamics>`
and its simulation's stages solve ``M qdd + h = tau + K^T lambda``, ``K qdd + Kdot qd = 0``
in NumPy around the robot's kernels (``M``, ``K``, the drift, ``h``: one call each) with a
KKT solve per rank. :class:`ClosedKernel` is the straight-line program of the same
equations (:mod:`robodyn.dynamics.closed_forward_dynamics`: the Schur complement of ``M``,
two Cholesky factorisations written out; the program ``robot.to_code`` exports), traced
with the ratios ``d_r / tr(K X)`` of the Schur complement's pivots to its trace and
compiled by Numba as every registry kernel is (:mod:`.kernel`; the per-sample flavour, and
the blocked one for batches where the program is short enough), cached on disk.

Tiers (:mod:`.tiers`, ``ROBODYN_TIER``): ``compiled`` compiles in the foreground; ``auto``
answers from the NumPy KKT path while the background compiler builds the kernel (a kernel
compiled before, in any process, is loaded after :data:`~.tiers.LOAD_AFTER` seconds of
calls), then switches; ``numpy`` and ``generic`` keep the NumPy KKT path (the traced
program's NumPy flavour, ``ClosedKernel(..., which="numpy")``, is the same statements
run by NumPy: it checks the program of a model whose compile is long, the Delta's 15
joints, 10 000 statements, 14 s; as a tier it would be slower than the KKT path for one
state). A model the program does not describe (coupled joints, a coupled transmission,
LuGre friction, more than :data:`~.tiers.COMPILE_MAX_DOF` degrees of freedom) has no
kernel: the KKT path runs.

A state whose result is not finite (``K X`` singular: a singular configuration) or whose
smallest pivot ratio is below :data:`PIVOT_RATIO` (the Schur complement would lose more
than about eight digits there) is flagged, and the caller solves it by the KKT path, which
finds the rank of ``K``.
"""

from __future__ import annotations

import threading
import time
import weakref

import numpy as np

from ..core.errors import ModelError
from ..dynamics.closed_forward_dynamics import CLOSED, closed_spec
from ..model.chain import Chain
from . import cache, tiers
from .kernel import (
    BLOCKED_MIN_BATCH,
    Kernel,
    NonFiniteResult,
    backend_without_import,
    compiled_source,
)
from .trace import trace

__all__ = ["ClosedKernel", "closed_kernel", "unsupported", "PIVOT_RATIO", "CLOSED"]

#: The smallest ratio ``d_r / tr(K X)`` of the Schur complement's Cholesky pivots to its
#: trace a state may have to be answered by the compiled program (the smallest pivot is
#: at least the smallest eigenvalue of ``K X``, the trace at most ``m`` times the largest:
#: the relative error of ``lambda`` grows about as ``1e-16 / ratio``); below, the KKT solve
#: with the rank of ``K`` answers. ``K`` of a rank the KKT path calls deficient (singular
#: values below ``1e-9`` of the largest) gives ratios near ``1e-18`` times the condition of
#: ``M``, or rounding's (``1e-16``, or a pivot not positive: not finite): always below.
PIVOT_RATIO = 1e-8

#: The kernels of each chain (weakly held): the robot's closed chains, made anew by each
#: ``robot.closed_chain()``, and every ``with_values`` of a model share one.
_SHARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def unsupported(chain: Chain) -> str | None:
    """Why the program does not describe ``chain``'s closed mechanism, or None."""
    closures = chain.closures
    if closures is None or not closures.loops:
        return "the model has no loop closures ('loops:')"
    for what, there in (("coupled joints", closures.couplings),
                        ("a coupled transmission", chain.transmission is not None),
                        ("LuGre friction", chain.lugre is not None),
                        ("a free or ball joint", not chain.single_valued),
                        (f"more than {tiers.COMPILE_MAX_DOF} joints",
                         chain.nv > tiers.COMPILE_MAX_DOF)):
        if there:
            return f"the compiled program leaves out a model's {what} (not yet)"
    return None


def closed_kernel(chain: Chain, params: tuple[str, ...],
                  which: str | None = None) -> ClosedKernel | None:
    """The :class:`ClosedKernel` of ``chain`` (a runner's symbolic chain and its parameter
    names in kernel order), shared by equal chains; None where the program does not
    describe the model or the tier keeps the KKT path (module docstring). ``which="numba"``
    compiles it now whatever the tier (``robot.compile(["closed_forward_dynamics"])``),
    ``"numpy"`` makes its NumPy flavour; both raise a :class:`ModelError` saying why a model
    has none."""
    why = unsupported(chain)
    if which is not None:
        if why is not None:
            raise ModelError(f"{CLOSED}: {why}; ClosedChain.forward_dynamics solves it in "
                             "NumPy")
        kernel = ClosedKernel(chain, params, which)
        if which == "numba":
            _SHARED.setdefault(chain, {})[params] = kernel
        return kernel
    setting = tiers.tier_setting()
    if why is not None or setting not in ("auto", "compiled") or (
            setting == "auto" and backend_without_import() != "numba"):
        return None
    shared = _SHARED.setdefault(chain, {})
    kernel = shared.get(params)
    if kernel is None:
        kernel = shared[params] = ClosedKernel(chain, params)
    return kernel


class ClosedKernel:
    """The compiled closed forward dynamics of ``chain`` with parameters ``params``:
    ``kernel(p, q, qd, tau)`` (``p`` the parameter values in kernel order; ``(N, nq)``,
    ``(N, nv)``, ``(N, nv)`` float64 arrays) gives ``(out, ok)``: ``out``
    ``(N, nv + 2 rows)`` the accelerations, the loop forces and the pivot ratios, ``ok``
    ``(N,)`` the states the program answered (module docstring); ``None`` while the kernel
    is being compiled in the background. ``which="numpy"``: the traced program's NumPy
    flavour, at once (for checks)."""

    def __init__(self, chain: Chain, params: tuple[str, ...], which: str | None = None):
        self.chain, self.params = chain, tuple(params)
        self.traced = trace(chain, closed_spec(chain, pivots=True), self.params)
        self.nv = chain.nv
        self.rows = (len(self.traced[2]) - self.nv) // 2
        self.kernel: Kernel | None = None
        self._source = self._next = self._loader = None
        self._lock = threading.Lock()
        if which == "numpy":
            self.kernel = Kernel(chain, CLOSED, self.params, which="numpy", traced=self.traced)
        elif which == "numba" or tiers.tier_setting() == "compiled":
            self.kernel = Kernel(chain, CLOSED, self.params, traced=self.traced)
        else:
            self._source = compiled_source(*self.traced, len(self.params))
            wait = tiers.LOAD_AFTER
            if not cache.is_ready(self._source):
                tiers.request_compile(self._source, self.traced[1], len(self.params),
                                      len(self.traced[2]))
                wait = tiers.POLL_SECONDS
            self._next = time.monotonic() + wait

    @property
    def tier(self) -> str:
        """``compiled``, ``numpy`` (the traced program in NumPy) or ``pending`` (compiling
        in the background: the KKT path answers)."""
        kernel = self._ready()
        return "pending" if kernel is None else kernel.tier

    def _ready(self) -> Kernel | None:
        """The kernel, once built: polled (at most every :data:`~.tiers.POLL_SECONDS`) for
        the background compile's mark, then loaded from Numba's cache by a thread while the
        KKT path goes on answering."""
        kernel = self.kernel
        if kernel is not None or self._source is None:
            return kernel
        now = time.monotonic()
        with self._lock:
            if self.kernel is None and now >= self._next and self._loader is None:
                self._next = now + tiers.POLL_SECONDS
                if cache.is_ready(self._source):
                    self._loader = threading.Thread(target=self._load, daemon=True)
                    self._loader.start()
        return self.kernel

    def _load(self) -> None:
        try:
            self.kernel = Kernel(self.chain, CLOSED, self.params, traced=self.traced)
        except Exception:  # noqa: BLE001 - a failure leaves the KKT path on
            self._source = None

    def __call__(self, p: np.ndarray, q: np.ndarray, qd: np.ndarray, tau: np.ndarray):
        kernel = self._ready()
        if kernel is None:
            return None
        n, rows = self.nv, self.rows
        inputs = [np.ascontiguousarray(a, dtype=float) for a in (q, qd, tau)]
        count = len(inputs[0])
        out = np.empty((count, kernel.width))
        try:
            # a few states (a simulation's stage): the per-sample function itself, no threads
            if kernel.backend != "numba" or count >= BLOCKED_MIN_BATCH or \
                    kernel.fn(*inputs, p, out, 0, count) >= 0:  # a flag: the checks below
                kernel(p, *inputs, out=out)
        except NonFiniteResult:
            if kernel.backend != "numba":  # the NumPy flavour stops at the chunk: each state
                for i in range(len(out)):
                    with np.errstate(all="ignore"):
                        out[i] = self._one(kernel, p, [a[i:i + 1] for a in inputs])
            # Numba's kernel has written every state: the flagged ones are checked below
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(out).all(axis=1)
            if rows:
                ok &= out[:, n + rows:].min(axis=1) >= PIVOT_RATIO
        return out, ok

    def _one(self, kernel: Kernel, p: np.ndarray, inputs: list) -> np.ndarray:
        try:
            return kernel(p, *inputs)[0]
        except NonFiniteResult:
            return np.full(kernel.width, np.nan)
