"""The kernel cache: generated source compiled once per process, machine code kept on disk.

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
to load is deleted and rebuilt (:func:`discard`). When no private directory can be had, a
private temporary one serves the process (one warning if the directory was
the user's choice); at exit robodyn deletes its own files there, nothing else.

In memory, each function of a generated source is loaded once per process
(:func:`load_function`), keyed by the digest of the source text: that text is the cache's
key, so code that generates it (:mod:`robodyn.codegen.emit`) decides when machine code is
reused.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import re
import stat
import sys
import threading
import types
import warnings
from pathlib import Path

__all__ = ["cache_dir", "load_function", "generated_function", "discard", "compile_lock",
           "mark_ready", "is_ready"]

_cache_dirs: dict[str | None, tuple[Path, bool]] = {}
_cache_lock = threading.Lock()
_POSIX = hasattr(os, "getuid")

# The files robodyn writes in its cache: its kernels (``k_<digest>.py``), the temporary file
# of an atomic write of one, and Numba's cache of one (index ``.nbi``, data ``.nbc``, and
# Numba's own ``.tmp.<hex>`` file while it writes them). Nothing else is ever deleted.
_KERNEL_NAME = re.compile(r"k_[0-9a-f]{24}\.py")
_KERNEL_TEMP_NAME = re.compile(r"\.k_[0-9a-f]{24}\.(py|ok)\.[A-Za-z0-9_]+\.tmp")
# A kernel's marks: ``.ok`` (written atomically after a compile that succeeded: Numba's
# cache holds its machine code) and ``.lock`` (the lock a compile holds, across processes).
_MARK_NAME = re.compile(r"k_[0-9a-f]{24}\.(ok|lock)")
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
                          (kernels, (_KERNEL_NAME, _KERNEL_TEMP_NAME, _MARK_NAME))):
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
    import tempfile  # seldom needed: 3 ms of import robodyn

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
    """Write ``text`` to ``path`` through a unique temporary file in the same directory
    (``.<name>.<random hex>.tmp``, created exclusively, mode 0600, never through a link:
    what :func:`tempfile.mkstemp` does, without its import)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _attempt in range(100):  # a clash of 48 random bits: about never
        tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name beside {path} in 100 tries")
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


def _digest(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:24]


# -- functions of generated sources, loaded once per process --------------------------------
_loaded: dict[tuple[str, ...], object] = {}
_lock = threading.Lock()


def load_function(source: str, attr: str = "kernel", tag: str = "module"):
    """Function ``attr`` of generated ``source``, loaded once per process and ``tag`` (a
    kernel's backend, ``"module"`` for other generated code) and anchored on disk
    (:func:`_load_module`)."""
    digest = _digest(source)
    key = (tag, digest, attr)
    with _lock:
        fn = _loaded.get(key)
        if fn is None:
            fn = _loaded[key] = _load_module(source, digest, attr)
    return fn


def generated_function(source: str, attr: str):
    """Function ``attr`` of generated ``source`` (cached in memory and on disk like a
    kernel)."""
    return load_function(source, attr, "module")


def discard(source: str, tag: str, attrs=("kernel", "kernel_block")) -> None:
    """Forget the loaded functions ``attrs`` of ``source`` (under ``tag``) and its module,
    and delete Numba's cache entries of its file: a broken entry is rebuilt, not trusted."""
    digest = _digest(source)
    with _lock:
        for name in attrs:
            _loaded.pop((tag, digest, name), None)
        sys.modules.pop(f"robodyn_kernel_{digest}", None)
    _purge_numba_cache(_kernel_file(source, digest))
    (cache_dir() / "kernels" / f"k_{digest}.ok").unlink(missing_ok=True)


# -- compiles across processes: a lock per kernel, a mark when its machine code is cached ----
def _mark(source: str, suffix: str) -> Path:
    folder = cache_dir() / "kernels"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder / f"k_{_digest(source)}.{suffix}"


@contextlib.contextmanager
def compile_lock(source: str):
    """Hold the lock of ``source``'s compile (``k_<digest>.lock``, ``flock``: released by
    the system when its process dies, so a killed compiler never leaves it held) while
    the block runs: two processes never compile one kernel at once; the second waits,
    then loads the first's machine code from Numba's cache."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, each process compiles its own
        yield
        return
    path = _mark(source, "lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock; the file stays (deleting it would race)


def mark_ready(source: str) -> None:
    """Record that ``source`` compiled and Numba cached its machine code (``k_<digest>.ok``,
    written atomically: a reader sees it whole or not at all)."""
    _write_atomically(_mark(source, "ok"), "compiled\n")


def is_ready(source: str) -> bool:
    """Whether a compile of ``source`` finished (in this or another process): loading it
    then reads Numba's cache instead of compiling."""
    return _mark(source, "ok").is_file()


def _after_fork_in_child() -> None:
    # A forked child may inherit a lock held by a thread that no longer exists.
    global _lock, _cache_lock
    _lock = threading.Lock()
    _cache_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
