"""Compiled kernels of a numeric chain: a registry entry traced, emitted, compiled and run.

Each kernel is one entry of :data:`robodyn.dynamics.registry.KERNELS` traced on
a model's chain (:mod:`robodyn.codegen.trace`) and compiled: the file's plain numbers
are folded in as constants, the model's parameters (``m1``, ``l1``, ``g``) are inputs,
so every ``robot.with_values(...)`` of a model runs the same compiled code. The
generated source and Numba's machine code are cached (:mod:`robodyn.codegen.cache`).

A batch of at least :data:`BLOCKED_MIN_BATCH` samples runs the blocked
flavour of the program (:func:`~robodyn.codegen.emit.numba_block_source`: blocks of
samples transposed into a small scratch, SIMD across samples, the same bits), compiled
on the first such batch; fewer samples (one state, the simulation loops, small
batches) run the per-sample flavour. ``ROBODYN_BACKEND=numpy`` (or no working Numba) runs the same
generated programs vectorised with NumPy; a batch of at least :data:`THREAD_MIN_BATCH`
samples is split over the threads of :mod:`robodyn.codegen.threads`.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import warnings

import numpy as np

from ..core.errors import InputError, RobodynError
from ..core.progress import tracker
from ..dynamics.registry import KERNELS, lookup
from ..model.chain import Chain
from . import cache
from .emit import BLOCK, live_ops, numba_block_source, numba_source, numpy_source
from .tape_eval import one_state, program
from .threads import run_in_threads, thread_count
from .trace import trace

__all__ = ["Kernel", "NonFiniteResult", "backend", "backend_without_import", "traced_program",
           "compiled_source", "BLOCKED_MIN_BATCH", "THREAD_MIN_BATCH",
           "BLOCKED_MAX_STATEMENTS", "NUMPY_CHUNK", "INTERPRETED_CALLS"]

#: Below this many samples a batch runs on one thread.
THREAD_MIN_BATCH = 4096
#: From this many samples on a batch runs the blocked kernel (compiled on the first such
#: batch: a few seconds, once per model and kernel, that smaller batches do not repay).
#: ``ROBODYN_BLOCKED_MIN_BATCH`` sets another threshold (a whole number; the test suite,
#: which compiles hundreds of programs once each, sets it high).
BLOCKED_MIN_BATCH = 256
_env_threshold = os.environ.get("ROBODYN_BLOCKED_MIN_BATCH", "").strip()
if _env_threshold.isdigit() and int(_env_threshold) > 0:
    BLOCKED_MIN_BATCH = int(_env_threshold)
#: Programs longer than this run per sample only: compiling the blocked flavour of a
#: 7-DOF regressor or derivative kernel (tens of thousands of statements) takes minutes.
#: The Panda's Coriolis matrix, the longest of its ID, M, FD, C and g, is 3645; TALOS's
#: whole-body M (floating, nv = 50) 6834 statements, blocked in 18 s, 1.38 us per state on
#: both cores against 1.74 per sample (measured).
BLOCKED_MAX_STATEMENTS = 7500
#: Columns per chunk of the NumPy backend (keeps temporaries in cache, memory bounded).
NUMPY_CHUNK = 8192
#: One-state calls a NumPy-tier kernel answers from its tape (:mod:`.tape_eval`) before it
#: generates and compiles its source. The Panda's inverse dynamics: source and compile
#: 8 ms, one state 0.34 ms from the tape against 0.26 ms compiled (mass matrix 5 ms, 0.36
#: against 0.30; measured): the compile pays after about a hundred calls.
INTERPRETED_CALLS = 100


# -- backend -------------------------------------------------------------------------------
_numba_failure: str | None = None


@functools.cache
def _numba_works() -> bool:
    """Whether Numba imports and has ``njit``; a broken install (a version mismatch with
    NumPy, a half-installed package) warns once and the NumPy backend is used."""
    global _numba_failure
    try:
        import numba  # optional accelerator

        numba.njit  # noqa: B018
    except ModuleNotFoundError as exc:
        if exc.name == "numba":
            _numba_failure = "not installed"
            return False
        _numba_failure = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # any import failure: fall back, loudly
        _numba_failure = f"{type(exc).__name__}: {exc}"
    else:
        return True
    warnings.warn(f"robodyn: Numba is installed but cannot be imported ({_numba_failure}); "
                  "using the NumPy backend (slower). Reinstall Numba to get compiled kernels.",
                  RuntimeWarning, stacklevel=3)
    return False


def backend() -> str:
    """``numba`` when it works and is not switched off (``ROBODYN_BACKEND=numpy``), else
    ``numpy``."""
    wanted = os.environ.get("ROBODYN_BACKEND", "").strip().lower()
    if wanted not in ("", "numba", "numpy"):
        raise RobodynError(f"ROBODYN_BACKEND={wanted!r} is not a backend; use 'numba' or "
                           "'numpy' (or unset it)")
    if wanted == "numpy":
        return "numpy"
    if not _numba_works():
        if wanted == "numba":
            raise RobodynError(f"ROBODYN_BACKEND=numba but Numba is unusable ({_numba_failure})")
        return "numpy"
    return "numba"


def traced_program(chain: Chain, kind: str, params: tuple[str, ...]) -> tuple:
    """``(tape, input groups, outputs)`` of registry entry ``kind`` traced on ``chain``."""
    try:
        spec = lookup(kind)
    except KeyError:
        raise ValueError(f"unknown kernel {kind!r}; known: {', '.join(KERNELS)}") from None
    return trace(chain, spec, params)


def compiled_source(tape, groups, outputs, n_params: int) -> str:
    """The Numba source of a traced program: the per-sample kernel, and the blocked one
    when the program has at most :data:`BLOCKED_MAX_STATEMENTS` statements."""
    source = numba_source(tape, groups, outputs, n_params)
    if sum(live_ops(tape, outputs)) <= BLOCKED_MAX_STATEMENTS:
        source += numba_block_source(tape, groups, outputs, n_params, header=False)
    return source


def backend_without_import() -> str:
    """:func:`backend`, without importing Numba (0.4 s) when it is not yet imported: an
    installed Numba is taken to work until it is imported (for the kernel tiers, whose
    first answers need no Numba)."""
    wanted = os.environ.get("ROBODYN_BACKEND", "").strip().lower()
    if wanted in ("", "numba") and "numba" not in sys.modules:
        return "numba" if importlib.util.find_spec("numba") is not None else "numpy"
    return backend()


# -- kernels ---------------------------------------------------------------------------------
class NonFiniteResult(Exception):
    """Internal: sample ``row`` has finite inputs and a non-finite result."""

    def __init__(self, row: int):
        super().__init__(row)
        self.row = row


class Kernel:
    """A compiled algorithm of a (symbolic) chain: ``kernel(p, *inputs) -> (N, m)`` for
    the parameter values ``p`` (in the order of ``params``) and ``(N, k)`` float64 inputs
    in the order of the registry entry's ``inputs``.

    The parameters are inputs of the program, not constants, so one compiled kernel
    serves every :meth:`~robodyn.Robot.with_values` of a model; the file's plain numbers
    are folded in. A sample whose inputs are not finite raises :class:`InputError`; one
    whose result is not finite raises :class:`NonFiniteResult` for the caller to explain.
    """

    def __init__(self, chain: Chain, kind: str, params: tuple[str, ...] = (),
                 which: str | None = None, traced: tuple | None = None):
        self.kind = kind
        self.params = tuple(params)
        self.backend = which or backend()
        tape, groups, outputs = traced or traced_program(chain, kind, self.params)
        self.groups = groups
        self.width = len(outputs)
        self._block_fn = None  # the blocked kernel, compiled on the first large batch
        self._p_list: tuple | None = None  # (P, P as floats) of the one-state NumPy path
        self._traced = None  # the NumPy flavour's program until its source is compiled
        self._program = None  # ... made ready to evaluate (tape_eval)
        self._interpreted = 0  # one-state calls answered from it
        if self.backend == "numba":
            self.source = compiled_source(tape, groups, outputs, len(self.params))
            # Numba reports nothing while it compiles: the default bar shows the time spent;
            # one compile of a kernel at a time across processes (a background one included)
            with tracker(None, 1, f"compiling {kind}"), cache.compile_lock(self.source):
                compiled = self._compile(self.source)
            if not compiled:
                self.backend = "numpy"
            else:
                cache.mark_ready(self.source)
        if self.backend == "numpy":  # its source is made at the first batch or after
            self._traced = (tape, groups, outputs)  # INTERPRETED_CALLS one-state calls

    def __getattr__(self, name: str):
        """``fn`` and ``source`` of a NumPy-tier kernel, generated and compiled when first
        asked for (the one-state calls before evaluate the tape)."""
        traced = self.__dict__.get("_traced")
        if name in ("fn", "source") and traced is not None:
            self.source = numpy_source(*traced, len(self.params))
            self.fn = self._load(self.source)
            self._traced = self._program = None
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def tier(self) -> str:
        """``compiled`` (Numba) or ``numpy`` (the traced program in NumPy); a
        :class:`~robodyn.codegen.generic.GenericKernel` is ``generic``."""
        return "compiled" if self.backend == "numba" else "numpy"

    def _load(self, source: str, attr: str = "kernel"):
        return cache.load_function(source, attr, self.backend)

    def _probe(self, fn) -> None:
        inputs = [np.zeros((1, width)) for _, width in self.groups]
        fn(*inputs, np.zeros(len(self.params)), np.empty((1, self.width)), 0, 0)

    def _compiled(self, source: str, attr: str):
        """Function ``attr`` of ``source`` compiled (or loaded from Numba's cache) and run
        once on an empty batch. A cache entry that fails to load is deleted and the
        function compiled afresh; if Numba still cannot, warn and return ``None``."""
        try:
            fn = self._load(source, attr)
            self._probe(fn)
            return fn
        except Exception:  # a broken cache entry: rebuild it once
            cache.discard(source, self.backend)
        try:
            fn = self._load(source, attr)
            self._probe(fn)
            return fn
        except Exception as exc:  # any compiler failure: fall back, loudly
            fallback = ("the per-sample kernel" if attr == "kernel_block"
                        else "the NumPy backend")
            warnings.warn(f"robodyn: Numba could not compile the {self.kind} kernel "
                          f"({type(exc).__name__}: {str(exc)[:200]}); using {fallback}",
                          RuntimeWarning, stacklevel=5)
            return None

    def _compile(self, source: str) -> bool:
        """Compile the per-sample kernel now, not inside the first user call; ``False``
        (after a warning) when Numba cannot, for the NumPy flavour to run instead."""
        self.fn = self._compiled(source, "kernel")
        return self.fn is not None

    def _blocked(self):
        """The blocked kernel (:func:`~robodyn.codegen.emit.numba_block_source`), compiled
        on first use; the per-sample kernel if Numba cannot compile it."""
        fn = self._block_fn
        if fn is None and "def kernel_block(" not in self.source:
            fn = self._block_fn = self.fn  # too long a program to compile blocked
        if fn is None:
            with tracker(None, 1, f"compiling {self.kind} (blocked)"):
                fn = self._compiled(self.source, "kernel_block") or self.fn
            self._block_fn = fn
        return fn

    def single(self, p: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
        """One state: ``(1, k)`` inputs, ``(1, m)`` output, no thread pool."""
        if self.backend != "numba":
            return self._single_numpy(p, inputs) if self.tier == "numpy" else self(p, *inputs)
        out = np.empty((1, self.width))
        if self.fn(*inputs, p, out, 0, 1) >= 0:
            self._raise_for(inputs, 0, ())
        return out

    def _single_numpy(self, p: np.ndarray, inputs: tuple) -> np.ndarray:
        """One state through the NumPy flavour on Python floats: the program only indexes
        its inputs, so lists of floats serve, and each statement is a float operation
        instead of a NumPy call on a one-element array (the PUMA's forward dynamics: 0.24
        instead of 0.68 ms). The same IEEE operations in the same order: the same doubles.
        A division by zero (an exception for floats) falls back to the arrays' path."""
        for a in inputs:
            if not np.isfinite(a).all():
                self._raise_for(inputs, 0, ())
        cached = self._p_list
        if cached is None or cached[0] is not p:
            cached = self._p_list = (p, p.tolist())
        out = [0.0] * self.width
        try:
            with np.errstate(all="ignore"):
                rows = [a[0].tolist() for a in inputs]
                traced, prog = self._traced, self._program  # another thread may compile
                if traced is not None and self._interpreted < INTERPRETED_CALLS:
                    self._interpreted += 1
                    if prog is None:
                        prog = self._program = program(*traced)
                    out = one_state(prog, rows, cached[1])
                else:
                    self.fn(*rows, cached[1], out)
        except (ZeroDivisionError, OverflowError):
            return self(p, *inputs)
        result = np.array(out, dtype=float).reshape(1, self.width)
        if not np.isfinite(result).all():
            raise NonFiniteResult(0)
        return result

    def __call__(self, p: np.ndarray, *inputs: np.ndarray, batch_shape: tuple = (),
                 out: np.ndarray | None = None) -> np.ndarray:
        """Run on ``(N, k)`` C-contiguous float64 inputs, into ``out`` (a C-contiguous
        ``(N, m)`` float64 array) or a new array; ``batch_shape`` (whose product is ``N``)
        only serves to name a non-finite sample in the error."""
        n = inputs[0].shape[0]
        if out is None:
            out = np.empty((n, self.width))
        if self.backend == "numba":
            fn = self._blocked() if n >= BLOCKED_MIN_BATCH else self.fn
            workers = thread_count()
            if workers > 1 and n >= THREAD_MIN_BATCH:
                # The threads fault the new output's pages in themselves: on Linux 6.18
                # (per-VMA locks, huge pages) faster than filling it here first (measured:
                # TALOS's M 1.7 us per state against 2.5-2.8, the Panda's M 0.052 against
                # 0.074; an older kernel once measured 3-5x slower, hence the earlier fill)
                # each thread a run of whole blocks (the last one takes the rest)
                bounds = np.linspace(0, n // BLOCK, workers + 1).astype(int) * BLOCK
                bounds[-1] = n
                bad = run_in_threads(fn, [(*inputs, p, out, int(a), int(b))
                                          for a, b in zip(bounds[:-1], bounds[1:])])
                bad = min((b for b in bad if b >= 0), default=-1)
            else:
                bad = fn(*inputs, p, out, 0, n)
            if bad >= 0:
                self._raise_for(inputs, bad, batch_shape)
            return out
        with np.errstate(all="ignore"):
            for start in range(0, n, NUMPY_CHUNK):
                stop = min(n, start + NUMPY_CHUNK)
                cols = [np.ascontiguousarray(a[start:stop].T) for a in inputs]
                for c in cols:
                    if not np.isfinite(c).all():
                        self._raise_for(inputs, start + int(np.argwhere(~np.isfinite(c))[0][1]),
                                        batch_shape)
                block = np.empty((self.width, stop - start))
                self.fn(*cols, p, block)
                finite = np.isfinite(block).all(axis=0)
                if not finite.all():
                    raise NonFiniteResult(start + int(np.argmin(finite)))
                out[start:stop] = block.T
        return out

    def _raise_for(self, inputs, row: int, batch_shape: tuple):
        """The error for sample ``row``, flagged by the kernel: a non-finite input
        (:class:`InputError` naming it), else a non-finite result."""
        if len(batch_shape) > 0:
            index = ", ".join(str(int(i)) for i in np.unravel_index(row, batch_shape)) + ", "
        else:
            index = ""
        for (name, _), array in zip(self.groups, inputs):
            bad = ~np.isfinite(array[row])
            if bad.any():
                col = int(np.argmax(bad))
                raise InputError(f"{name}[{index}{col}] is {array[row, col]} (NaN or infinite); "
                                 "every input must be a finite number")
        raise NonFiniteResult(row)
