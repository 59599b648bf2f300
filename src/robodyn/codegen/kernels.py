"""Compiled kernels of a numeric chain: trace, emit, compile, cache, run.

Each kernel is one algorithm of :mod:`robodyn.dynamics` traced on a model's
chain and compiled: the file's plain numbers are folded in as constants, the
model's parameters (``m1``, ``l1``, ``g``) are inputs, so every
``robot.with_values(...)`` of a model runs the same compiled code. Compiled
kernels are cached in memory, and Numba's machine code on disk under
``$ROBODYN_CACHE_DIR`` (default ``~/.cache/robodyn``), so only the first use of
a model on a machine pays the compile (about a second per kernel).

``ROBODYN_BACKEND=numpy`` (or no Numba installed) runs the same generated
programs vectorised with NumPy instead; ``ROBODYN_NUM_THREADS`` caps the
threads a large batch is split over (default: all cores).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import sympy as sp

from ..dynamics.coriolis import coriolis_matrix
from ..dynamics.crba import mass_matrix
from ..dynamics.forward_dynamics import forward_dynamics
from ..dynamics.kinematics import jacobian, link_poses, tip_pose
from ..dynamics.rnea import friction_torques, rnea
from ..errors import InputError
from ..model.chain import Chain, snap_rotations
from .emit import numba_source, numpy_source
from .tape import Tape

#: Below this many samples a batch runs on one thread.
THREAD_MIN_BATCH = 4096
#: Columns per chunk of the NumPy backend (keeps temporaries in cache, memory bounded).
NUMPY_CHUNK = 8192


def traced_chain(chain: Chain, params: tuple[str, ...], tape: Tape) -> Chain:
    """The chain with each parameter an input ``p0, p1, ...`` of ``tape`` (in the order of
    ``params``) and every other number a float, rotations snapped as in
    :meth:`Chain.evaluate`."""
    symbols = {sp.Symbol(name): tape.input(f"p{j}") for j, name in enumerate(params)}
    return snap_rotations(chain.map(
        lambda x: tape.from_sympy(x, symbols) if isinstance(x, sp.Basic) else float(x)))


def _trace(chain: Chain, kind: str, params: tuple[str, ...] = ()):
    """Record one algorithm on a fresh tape: ``(tape, input groups, outputs)``."""
    tape = Tape()
    chain = traced_chain(chain, params, tape)
    n = chain.dof
    q = tape.inputs_vector("q", n)
    zeros = [0.0] * n
    if kind == "inverse_dynamics":
        qd, qdd = tape.inputs_vector("qd", n), tape.inputs_vector("qdd", n)
        tau = rnea(chain, q, qd, qdd, tape)
        fric = friction_torques(chain, qd, tape)
        return tape, [("q", n), ("qd", n), ("qdd", n)], [t + f for t, f in zip(tau, fric)]
    if kind == "gravity_torques":
        return tape, [("q", n)], rnea(chain, q, zeros, zeros, tape)
    if kind == "mass_matrix":
        m = mass_matrix(chain, q, tape)
        return tape, [("q", n)], [x for row in m for x in row]
    if kind == "coriolis_matrix":
        qd = tape.inputs_vector("qd", n)
        c = coriolis_matrix(chain, q, qd, tape)
        return tape, [("q", n), ("qd", n)], [x for row in c for x in row]
    if kind == "forward_dynamics":
        qd, u = tape.inputs_vector("qd", n), tape.inputs_vector("u", n)
        fric = friction_torques(chain, qd, tape)
        qdd = forward_dynamics(chain, q, qd, [a - b for a, b in zip(u, fric)], tape)
        return tape, [("q", n), ("qd", n), ("u", n)], qdd
    if kind == "forward_kinematics":
        rot, pos = tip_pose(chain, link_poses(chain, q, tape))
        out = [rot[0][0], rot[0][1], rot[0][2], pos[0],
               rot[1][0], rot[1][1], rot[1][2], pos[1],
               rot[2][0], rot[2][1], rot[2][2], pos[2]]
        return tape, [("q", n)], out
    if kind == "jacobian":
        jac = jacobian(chain, q, tape)
        return tape, [("q", n)], [x for row in jac for x in row]
    raise ValueError(f"unknown kernel {kind!r}")


def backend() -> str:
    """``numba`` when it is installed and not switched off, else ``numpy``."""
    wanted = os.environ.get("ROBODYN_BACKEND", "").strip().lower()
    if wanted == "numpy":
        return "numpy"
    if importlib.util.find_spec("numba") is None:
        if wanted == "numba":
            raise RuntimeError("ROBODYN_BACKEND=numba but Numba is not installed")
        return "numpy"
    return "numba"


def cache_dir() -> Path:
    root = os.environ.get("ROBODYN_CACHE_DIR")
    path = Path(root) if root else Path.home() / ".cache" / "robodyn"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.touch()
        probe.unlink()
    except OSError:
        path = Path(tempfile.gettempdir()) / "robodyn-cache"
        path.mkdir(parents=True, exist_ok=True)
    return path


_loaded: dict[tuple[str, str], object] = {}
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


@functools.cache
def _threads() -> int:
    env = os.environ.get("ROBODYN_NUM_THREADS")
    if env:
        return max(1, int(env))
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def _load_module(source: str, digest: str):
    """Import a generated kernel from its file in the cache (written once, atomically).
    Both backends import the same way: Numba caches machine code next to the file."""
    folder = cache_dir() / "kernels"
    folder.mkdir(exist_ok=True)
    path = folder / f"k_{digest}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(source)
        os.replace(tmp, path)
    name = f"robodyn_kernel_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.kernel


class Kernel:
    """A compiled algorithm of a (symbolic) chain: ``kernel(p, *inputs) -> (N, m)`` for
    the parameter values ``p`` (in the order of ``params``) and ``(N, k)`` float64 inputs.

    The parameters are inputs of the program, not constants, so one compiled kernel
    serves every :meth:`~robodyn.Robot.with_values` of a model; the file's plain numbers
    are folded in.
    """

    def __init__(self, chain: Chain, kind: str, params: tuple[str, ...] = (),
                 which: str | None = None):
        self.kind = kind
        self.params = tuple(params)
        self.backend = which or backend()
        tape, groups, outputs = _trace(chain, kind, self.params)
        self.groups = groups
        self.width = len(outputs)
        emit = numba_source if self.backend == "numba" else numpy_source
        self.source = emit(tape, groups, outputs, len(self.params))
        digest = hashlib.sha256(self.source.encode()).hexdigest()[:24]
        key = (self.backend, digest)
        with _lock:
            fn = _loaded.get(key)
            if fn is None:
                fn = _loaded[key] = _load_module(self.source, digest)
        self.fn = fn
        if self.backend == "numba":
            self._compile_or_fall_back(tape, groups, outputs)

    def _compile_or_fall_back(self, tape, groups, outputs) -> None:
        """Compile now (not inside the first user call); if Numba cannot, warn and run
        the NumPy flavour of the same program."""
        probe = [np.zeros((1, width)) for _, width in self.groups]
        try:
            self.fn(*probe, np.zeros(len(self.params)), np.empty((1, self.width)), 0, 0)
        except Exception as exc:  # noqa: BLE001 - any compiler failure: fall back, loudly
            warnings.warn(f"robodyn: Numba could not compile the {self.kind} kernel "
                          f"({type(exc).__name__}: {exc}); using the NumPy backend",
                          RuntimeWarning, stacklevel=3)
            self.backend = "numpy"
            self.source = numpy_source(tape, groups, outputs, len(self.params))
            digest = hashlib.sha256(self.source.encode()).hexdigest()[:24]
            self.fn = _load_module(self.source, digest)

    def single(self, p: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
        """One state: ``(1, k)`` inputs, ``(1, m)`` output, no thread pool."""
        if self.backend != "numba":
            return self(p, *inputs)
        out = np.empty((1, self.width))
        if self.fn(*inputs, p, out, 0, 1) >= 0:
            raise _not_finite(self.groups, inputs, 0, ())
        return out

    def __call__(self, p: np.ndarray, *inputs: np.ndarray, batch_shape: tuple = ()) -> np.ndarray:
        """Run on ``(N, k)`` C-contiguous float64 inputs; ``batch_shape`` (whose product
        is ``N``) only serves to name a non-finite sample in the error."""
        n = inputs[0].shape[0]
        if self.backend == "numba":
            out = np.empty((n, self.width))
            workers = _threads()
            if workers > 1 and n >= THREAD_MIN_BATCH:
                # Fault the output's pages in here, once: threads that fault pages of one
                # array concurrently contend in the kernel (measured: 3-5x slower).
                out.fill(0.0)
                bounds = np.linspace(0, n, workers + 1).astype(int)
                pool = _get_pool(workers)
                futures = [pool.submit(self.fn, *inputs, p, out, int(a), int(b))
                           for a, b in zip(bounds[:-1], bounds[1:])]
                bad = [f.result() for f in futures]
                bad = min((b for b in bad if b >= 0), default=-1)
            else:
                bad = self.fn(*inputs, p, out, 0, n)
            if bad >= 0:
                raise _not_finite(self.groups, inputs, bad, batch_shape)
            return out
        out = np.empty((n, self.width))
        for start in range(0, n, NUMPY_CHUNK):
            stop = min(n, start + NUMPY_CHUNK)
            cols = [np.ascontiguousarray(a[start:stop].T) for a in inputs]
            for c in cols:
                if not np.isfinite(c).all():
                    bad = start + int(np.argwhere(~np.isfinite(c))[0][1])
                    raise _not_finite(self.groups, inputs, bad, batch_shape)
            block = np.empty((self.width, stop - start))
            self.fn(*cols, p, block)
            out[start:stop] = block.T
        return out


def _get_pool(workers: int) -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None or _pool._max_workers < workers:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="robodyn")
        return _pool


def _not_finite(groups, inputs, row: int, batch_shape: tuple = ()) -> InputError:
    names = {"q": "q", "qd": "qd", "qdd": "qdd", "u": "tau"}
    where = ""
    if len(batch_shape) > 0:
        where = f"[{', '.join(str(int(i)) for i in np.unravel_index(row, batch_shape))}, "
    else:
        where = "["
    for (prefix, _), array in zip(groups, inputs):
        bad = ~np.isfinite(array[row])
        if bad.any():
            col = int(np.argmax(bad))
            return InputError(
                f"{names.get(prefix, prefix)}{where}{col}] is {array[row, col]} "
                "(NaN or infinite); every input must be a finite number"
            )
    return InputError(f"the inputs of sample {row} are not finite")
