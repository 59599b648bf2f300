"""Compiled kernels of a numeric chain: trace, emit, compile, cache, run.

Each kernel is one entry of :data:`robodyn.dynamics.registry.KERNELS` traced on
a model's chain and compiled: the file's plain numbers are folded in as
constants, the model's parameters (``m1``, ``l1``, ``g``) are inputs, so every
``robot.with_values(...)`` of a model runs the same compiled code.

The disk cache (Numba's machine code and the generated source beside it) lives
in a private directory: ``$ROBODYN_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/robodyn`` or ``~/.cache/robodyn``, created with mode 0700 and
checked for owner and mode before each use. A directory there that is not private
(open to others: a shared project folder, root's ``/tmp``) is never changed, not even
by root: the cache goes into ``robodyn-<uid>`` inside it, created with mode 0700 and
used only as a real directory (not a symbolic link) of this user with that mode; one
that is not (planted, or opened up since) is refused, never repaired. A directory of
another user (root excepted) is not used at all. robodyn deletes only its own files,
known by name (``k_<digest>.py``, Numba's cache files of them) inside its cache
directory. Nothing read from it is trusted:
the kernel that runs is always compiled from the source robodyn generated in
this process (the file on disk is compared with it and rewritten when it
differs), every file is written atomically, and a Numba cache entry that fails
to load is deleted and rebuilt. When no private directory can be had, a
private temporary one serves the process (one warning if the directory was
the user's choice); at exit robodyn deletes its own files there, nothing else.

A batch of at least :data:`BLOCKED_MIN_BATCH` samples runs the blocked
flavour of the program (:func:`~robodyn.codegen.emit.numba_block_source`: blocks of
samples transposed into a small scratch, SIMD across samples, the same bits), compiled
on the first such batch; fewer samples (one state, the simulation loops, small
batches) run the per-sample flavour. ``ROBODYN_BACKEND=numpy`` (or no working Numba) runs the same
generated programs vectorised with NumPy; ``ROBODYN_NUM_THREADS`` caps the threads a
large batch is split over (default: all cores).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import re
import stat
import sys
import tempfile
import threading
import types
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import sympy as sp

from ..core.errors import InputError, RobodynError
from ..core.progress import tracker
from ..dynamics.registry import (
    KERNELS,
    KernelSpec,
    input_width,
    lookup,
    output_shape,
)
from ..model.chain import Chain, snap_rotations
from .emit import BLOCK, live_ops, numba_block_source, numba_source, numpy_source
from .tape import Tape

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


def traced_chain(chain: Chain, params: tuple[str, ...], tape: Tape) -> Chain:
    """The chain with each parameter an input ``p0, p1, ...`` of ``tape`` (in the order of
    ``params``) and every other number a float, rotations snapped as in
    :meth:`Chain.evaluate`."""
    symbols = {sp.Symbol(name): tape.input(f"p{j}") for j, name in enumerate(params)}
    return snap_rotations(chain.map(
        lambda x: tape.from_sympy(x, symbols) if isinstance(x, sp.Basic) else float(x)))


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [value]


def trace(chain: Chain, spec: KernelSpec, params: tuple[str, ...] = ()):
    """Record ``spec``'s algorithm on a fresh tape: ``(tape, input groups, outputs)``,
    the groups ``(input name, width)`` in the order of ``spec.inputs``."""
    tape = Tape()
    chain = traced_chain(chain, params, tape)
    groups = [(name, input_width(name, chain, spec.wrenches)) for name in spec.inputs]
    args = {name: tape.inputs_vector(name, width) for name, width in groups}
    outputs = _flatten(spec.algorithm(chain, ops=tape, **args))
    assert len(outputs) == int(np.prod(output_shape(spec, chain), dtype=int))
    return tape, groups, outputs


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


# -- the private cache directory -----------------------------------------------------------
_cache_dirs: dict[str | None, tuple[Path, bool]] = {}
_cache_lock = threading.Lock()
_POSIX = hasattr(os, "getuid")

# The files robodyn writes in its cache: its kernels (``k_<digest>.py``), the temporary file
# of an atomic write of one, and Numba's cache of one (index ``.nbi``, data ``.nbc``, and
# Numba's own ``.tmp.<hex>`` file while it writes them). Nothing else is ever deleted.
_KERNEL_NAME = re.compile(r"k_[0-9a-f]{24}\.py")
_KERNEL_TEMP_NAME = re.compile(r"\.k_[0-9a-f]{24}\.py\.[A-Za-z0-9_]+\.tmp")
_NUMBA_NAME = re.compile(r"k_[0-9a-f]{24}\.[A-Za-z0-9_.<>-]+\.nb[ic](\.tmp\.[0-9a-f]+)?")


def _default_cache_root() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "robodyn"


def _directory(path: Path, follow: bool) -> tuple[os.stat_result | None, str]:
    """The status of directory ``path``, or ``None`` and why it cannot serve as one.
    A symbolic link is refused unless ``follow`` (a directory the user named), and even
    then only a link of this user or root: a link another user planted is never followed."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            if not follow:
                return None, "is a symbolic link"
            if _POSIX and st.st_uid not in (os.getuid(), 0):
                return None, f"is a symbolic link of another user (uid {st.st_uid})"
            st = os.stat(path)
    except FileNotFoundError:
        return None, "does not exist"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"
    if not stat.S_ISDIR(st.st_mode):
        return None, "is not a directory"
    return st, ""


def _openness(st: os.stat_result) -> str:
    """Why a directory is not private to this user ('' if it is): another owner, or a
    mode that lets others in."""
    if not _POSIX:
        return ""
    if st.st_uid != os.getuid():
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o077:
        return f"is open to other users (mode {stat.S_IMODE(st.st_mode):o})"
    return ""


def _private_problem(path: Path, follow: bool = False) -> str:
    """'' when ``path`` is a directory of this user that no one else can enter and that
    this process can write into, else why not."""
    st, why = _directory(path, follow)
    if not why:
        why = _openness(st)
    if not why and not os.access(path, os.W_OK | os.X_OK):
        why = "is not writable"
    return why


def _open_cache_dir(wanted: Path) -> tuple[Path | None, bool, str]:
    """The directory to cache in for the chosen ``wanted``: ``(path, follow, '')``, or
    ``(None, False, why)`` when none can be had safely (``follow``: whether ``path`` may be
    a symbolic link when it is checked again).

    ``wanted`` itself when robodyn creates it now or it is already private. A directory
    that is not private is never changed (no chmod, nothing deleted, nothing written
    beside its files): robodyn uses ``robodyn-<uid>`` inside it, which it creates with
    mode 0700 and accepts only as a real directory of this user with that mode. In a
    directory of another user (root excepted) even that is refused: its owner could
    swap the subdirectory."""
    try:
        wanted.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError as exc:
        return None, False, f"cannot be created ({exc.strerror})"
    st, why = _directory(wanted, follow=True)
    if why:
        return None, False, why
    openness = _openness(st)
    if not openness:
        if not os.access(wanted, os.W_OK | os.X_OK):
            return None, False, "is not writable"
        return wanted, True, ""
    if st.st_uid not in (os.getuid(), 0):
        return None, False, openness
    sub = wanted / f"robodyn-{os.getuid()}"
    try:
        os.mkdir(sub, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        return None, False, f"{openness} and {sub.name} cannot be created in it ({exc.strerror})"
    why = _private_problem(sub)
    if why:
        return None, False, (f"{openness} and its {sub.name} {why}; robodyn creates that "
                             "directory itself (mode 0700) and never follows, empties or "
                             "chmods one it did not make: remove it to let robodyn use it")
    return sub, False, ""


def _remove_own_files(root: Path) -> None:
    """Delete the files robodyn wrote in cache directory ``root`` (the names of
    ``_KERNEL_NAME``, ``_KERNEL_TEMP_NAME``, ``_NUMBA_NAME``, regular files only, in
    ``kernels/`` and ``kernels/__pycache__``), then those folders and ``root`` if that
    left them empty. Anything else, and anything behind a symbolic link, stays."""
    kernels = root / "kernels"
    for folder, names in ((kernels / "__pycache__", (_NUMBA_NAME,)),
                          (kernels, (_KERNEL_NAME, _KERNEL_TEMP_NAME))):
        if _directory(folder, follow=False)[1]:
            continue
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if (entry.is_file(follow_symlinks=False)
                            and any(n.fullmatch(entry.name) for n in names)):
                        with contextlib.suppress(OSError):
                            os.unlink(entry.path)
        except OSError:
            continue
    for folder in (kernels / "__pycache__", kernels, root):
        with contextlib.suppress(OSError):
            os.rmdir(folder)  # only when empty


def _remove_temporary_cache(path: Path, pid: int) -> None:
    """At exit of the process that made the temporary cache ``path`` (not of a forked
    child, whose parent still uses it): delete what robodyn wrote there."""
    if os.getpid() == pid:
        _remove_own_files(path)


def _temporary_cache() -> Path:
    path = Path(tempfile.mkdtemp(prefix="robodyn-private-"))  # mode 0700, unique
    atexit.register(_remove_temporary_cache, path, os.getpid())
    return path


def cache_dir() -> Path:
    """The private directory of the disk cache (see the module docstring)."""
    configured = os.environ.get("ROBODYN_CACHE_DIR") or None
    with _cache_lock:
        known = _cache_dirs.get(configured)
        if known is not None and not _private_problem(*known):
            return known[0]
        wanted = Path(configured).expanduser() if configured else _default_cache_root()
        path, follow, why = _open_cache_dir(wanted)
        if path is None:
            path = _temporary_cache()
            if configured:
                warnings.warn(f"robodyn: ROBODYN_CACHE_DIR={configured!r} {why}; compiled "
                              f"kernels are cached in {path} for this process only",
                              RuntimeWarning, stacklevel=2)
        _cache_dirs[configured] = (path, follow)
        return path


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a unique temporary file in the same directory."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _kernel_file(source: str, digest: str) -> Path:
    """The cache file of a generated kernel, holding exactly ``source`` (rewritten if it
    is missing or differs: truncated, edited, planted)."""
    folder = cache_dir() / "kernels"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"k_{digest}.py"
    try:
        current = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        current = None
    if current != source:
        _write_atomically(path, source)
    return path


def _purge_numba_cache(path: Path) -> None:
    """Delete Numba's cache entries (index and machine code) of a kernel file."""
    folder = path.parent / "__pycache__"
    if _directory(folder, follow=False)[1]:
        return
    for entry in folder.iterdir():
        if (entry.name.startswith(f"{path.stem}.") and _NUMBA_NAME.fullmatch(entry.name)
                and not entry.is_symlink() and entry.is_file()):
            entry.unlink(missing_ok=True)


def _load_module(source: str, digest: str, attr: str = "kernel"):
    """Function ``attr`` of a generated ``source``. The code run is compiled from
    ``source`` itself, never read back from disk; the file (checked to hold the same
    text) only anchors Numba's on-disk cache of the machine code. The module is
    registered as ``robodyn_kernel_<digest>`` so that other generated code can import
    it (a simulation loop calls the kernels)."""
    path = _kernel_file(source, digest)
    name = f"robodyn_kernel_{digest}"
    module = sys.modules.get(name)
    if module is None or getattr(module, "__robodyn_source__", None) != source:
        module = types.ModuleType(name)
        module.__file__ = str(path)
        module.__robodyn_source__ = source
        exec(compile(source, str(path), "exec"), module.__dict__)  # our own text
        sys.modules[name] = module
    return getattr(module, attr)


def generated_function(source: str, attr: str):
    """Function ``attr`` of generated ``source`` (cached in memory and on disk like a
    kernel)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    key = ("module", digest, attr)
    with _lock:
        fn = _loaded.get(key)
        if fn is None:
            fn = _loaded[key] = _load_module(source, digest, attr)
    return fn


# -- threads -------------------------------------------------------------------------------
_loaded: dict[tuple[str, ...], object] = {}
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_workers = 0  # the threads _pool was made with (the executor has no public count)


def _threads() -> int:
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


def _get_pool(workers: int) -> ThreadPoolExecutor:
    """The shared pool, made anew when it has fewer than ``workers`` threads."""
    global _pool, _pool_workers
    with _lock:
        if _pool is None or _pool_workers < workers:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="robodyn")
            _pool_workers = workers
        return _pool


def thread_count() -> int:
    """The threads robodyn's batched work runs on: ``ROBODYN_NUM_THREADS``, else every core
    this process may use."""
    return _threads()


def run_in_threads(fn, calls: list[tuple]) -> list:
    """``[fn(*args) for args in calls]``, each call on a thread of robodyn's shared pool
    (``fn`` releases the GIL: a ``nogil`` compiled function); one call runs here."""
    if len(calls) <= 1:
        return [fn(*args) for args in calls]
    pool = _get_pool(len(calls))
    return [f.result() for f in [pool.submit(fn, *args) for args in calls]]


def _after_fork_in_child() -> None:
    # A forked child has the parent's pool object but none of its threads, and maybe a
    # lock held by a thread that no longer exists: start both afresh.
    global _pool, _pool_workers, _lock, _cache_lock
    _pool = None
    _pool_workers = 0
    _lock = threading.Lock()
    _cache_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
                 which: str | None = None):
        try:
            spec = lookup(kind)
        except KeyError:
            raise ValueError(f"unknown kernel {kind!r}; known: {', '.join(KERNELS)}") from None
        self.kind = kind
        self.params = tuple(params)
        self.backend = which or backend()
        tape, groups, outputs = trace(chain, spec, self.params)
        self.groups = groups
        self.width = len(outputs)
        self._block_fn = None  # the blocked kernel, compiled on the first large batch
        if self.backend == "numba":
            self.source = numba_source(tape, groups, outputs, len(self.params))
            if sum(live_ops(tape, outputs)) <= BLOCKED_MAX_STATEMENTS:
                self.source += numba_block_source(tape, groups, outputs, len(self.params),
                                                  header=False)
            # Numba reports nothing while it compiles: the default bar shows the time spent
            with tracker(None, 1, f"compiling {kind}"):
                compiled = self._compile(self.source)
            if not compiled:
                self.backend = "numpy"
        if self.backend == "numpy":
            self.source = numpy_source(tape, groups, outputs, len(self.params))
            self.fn = self._load(self.source)

    def _load(self, source: str, attr: str = "kernel"):
        digest = hashlib.sha256(source.encode()).hexdigest()[:24]
        key = (self.backend, digest, attr)
        with _lock:
            fn = _loaded.get(key)
            if fn is None:
                fn = _loaded[key] = _load_module(source, digest, attr)
        return fn

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
            digest = hashlib.sha256(source.encode()).hexdigest()[:24]
            with _lock:
                for name in ("kernel", "kernel_block"):
                    _loaded.pop((self.backend, digest, name), None)
                sys.modules.pop(f"robodyn_kernel_{digest}", None)
            _purge_numba_cache(_kernel_file(source, digest))
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
            return self(p, *inputs)
        out = np.empty((1, self.width))
        if self.fn(*inputs, p, out, 0, 1) >= 0:
            self._raise_for(inputs, 0, ())
        return out

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
            workers = _threads()
            if workers > 1 and n >= THREAD_MIN_BATCH:
                # The threads fault the new output's pages in themselves: on Linux 6.18
                # (per-VMA locks, huge pages) faster than filling it here first (measured:
                # TALOS's M 1.7 us per state against 2.5-2.8, the Panda's M 0.052 against
                # 0.074; an older kernel once measured 3-5x slower, hence the earlier fill)
                # each thread a run of whole blocks (the last one takes the rest)
                bounds = np.linspace(0, n // BLOCK, workers + 1).astype(int) * BLOCK
                bounds[-1] = n
                pool = _get_pool(workers)
                futures = [pool.submit(fn, *inputs, p, out, int(a), int(b))
                           for a, b in zip(bounds[:-1], bounds[1:])]
                bad = [f.result() for f in futures]
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
