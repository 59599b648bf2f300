"""The files of ``robodyn dataset`` (:mod:`robodyn.motion.dataset`): the ``.npz`` store
(chunk files and their records in ``OUT.parts/``, merged and checked at the end), the
``.zarr`` store, the lock that keeps a second run out, the memory and disk checks and the
atomic writes; robodyn deletes nothing there but the files it wrote."""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.errors import InputError, RobodynError, excerpt, warn
from ..core.progress import tracker

try:
    import fcntl
except ImportError:  # not POSIX: runs into one output are not locked against each other
    fcntl = None

#: The format written into a dataset's manifest.
FORMAT = "robodyn-dataset-2"
#: Largest seed (``default_rng`` takes any non-negative integer; this keeps it one word).
MAX_SEED = 2**64 - 1
#: The files robodyn writes in ``OUT.parts/``; nothing else there is ever deleted.
_CHUNK_FILE = re.compile(r"chunk-(\d{6,})\.(npz|json)\Z")
_TEMP_FILE = re.compile(r"\.(chunk-\d{6,}\.(npz|json)|manifest\.json|final\.npz)"
                        r"\.[a-z0-9_]{8}\.tmp\Z")  # tempfile.mkstemp's names, see _atomic_write
_MANIFEST, _LOCK = "manifest.json", "robodyn.lock"
_F8 = np.dtype(np.float64)
#: Bytes a chunk file or the final file takes beyond its arrays (zip and .npy headers), at most.
_OVERHEAD = 4096


def os_error(out: Path, exc: OSError) -> InputError:
    """A file-system failure as one line naming the file and what to do."""
    where = f" {quote_path(exc.filename)}" if exc.filename else ""
    reason = exc.strerror or type(exc).__name__
    hint = {errno.ENOSPC: "free some space, then rerun the same command to resume",
            errno.ELOOP: "a symbolic link is in the way: move it away",
            errno.EISDIR: "a directory is in the way: move it away"}.get(
        exc.errno, "choose a directory you can write to (a rerun of the same command resumes)")
    return InputError(f"--out {quote_path(out)}: cannot write{where}: {reason}; {hint}")


def quote_path(path) -> str:
    """A path for an error message (quoted; a very long one cut, saying its length)."""
    return excerpt(str(path), 400)


def _size(n: float) -> str:
    """``n`` bytes in decimal units: ``64.0 TB``."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB"):
        if n < 1000 or unit == "EB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return ""  # not reached


def _available_memory() -> int:
    """Bytes of memory this process may still use: ``MemAvailable``, or less if a cgroup
    limit says so (else the physical memory)."""
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit.isdigit() and used.isdigit():
            found.append(max(0, int(limit) - int(used)))
    except (OSError, ValueError):
        pass
    if not found:
        try:
            found.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        except (ValueError, OSError, AttributeError):
            found.append(1 << 34)
    return min(found)


def check_memory(chunk: int, row_bytes: int) -> None:
    """A chunk is held about twice over (its arrays and the kernels' output) while it is
    computed and saved: refuse one that needs more than the available memory."""
    available = _available_memory()
    most = max(1, available // (2 * row_bytes))
    if chunk > most:
        raise InputError(f"--chunk {chunk}: a chunk of that many states needs about "
                         f"{_size(2 * chunk * row_bytes)} of memory ({row_bytes} bytes a "
                         f"state, held twice), but {_size(available)} are available; use "
                         f"--chunk {most} or less")


def _check_disk(out: Path, needed: int, samples: int, row_bytes: int, what: str) -> None:
    """Refuse to start a run whose files will not fit in the free space at ``out``."""
    where = out.parent
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free
    if needed > free:
        raise InputError(f"--samples {samples} --out {quote_path(out)}: the dataset needs "
                         f"about {_size(needed)} on disk "
                         f"({samples} states of {row_bytes} bytes{what}), but only "
                         f"{_size(free)} are free in {quote_path(where)}; write fewer "
                         "samples or choose --out on a disk with more space")


def _settings_digest(manifest: dict) -> str:
    """The sha256 of a run's settings: each chunk record carries it."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()


def _differences(old: dict, new: dict) -> list[str]:
    """The settings of ``new`` that ``old`` (a manifest read back) has otherwise."""
    diff = []
    for key, value in new.items():
        was = old.get(key)
        if key == "dynamics":
            same = (isinstance(was, list) and len(was) == len(value)
                    and all(isinstance(v, (int, float)) for v in was)
                    and np.allclose(was, value, rtol=1e-9, atol=1e-12))
            if not same:
                diff.append("the model's dynamics or joint limits (the model file changed?)")
        elif was != value:
            diff.append(f"{key} {excerpt(was, 40)} (now {excerpt(value, 40)})")
    return diff


def _mismatch(out: Path, old: dict, new: dict) -> RobodynError:
    return InputError(f"--out {quote_path(out)} holds a partial dataset written with other "
                      f"settings: {', '.join(_differences(old, new))}; rerun with the same "
                      "settings to resume, or delete it to start afresh")


def _read_json(path: Path, most: int = 1 << 20):
    """The JSON value in the file ``path`` (robodyn's manifest or a chunk record, a few kB);
    a file over ``most`` bytes is a ``ValueError``, not read."""
    with open(path, "rb") as f:
        text = f.read(most + 1)
    if len(text) > most:
        raise ValueError(f"over {most} bytes")
    return json.loads(text.decode("utf-8"))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
    return h.hexdigest()


def _member_problem(zf: zipfile.ZipFile, name: str, shape: tuple,
                    digest: str | None = None) -> str | None:
    """What is wrong with array ``name`` of an open ``.npz``: not there, another shape or
    dtype, fewer bytes than the shape says, a failed CRC or (given ``digest``) other bytes
    than written; ``None`` if nothing. Reads the data in blocks, never all at once."""
    member = f"{name}.npy"
    if member not in zf.namelist():
        return f"it has no array {name}"
    with zf.open(member) as f:
        version = np.lib.format.read_magic(f)
        read = {(1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read is None:
            return f"{name} has .npy format {version}"
        found, fortran, dtype = read(f)
        if found != shape or dtype != _F8 or fortran:
            return (f"{name} is {'Fortran-ordered ' if fortran else ''}{dtype} of shape "
                    f"{found}, expected float64 of shape {shape}")
        h, size = hashlib.sha256(), 0
        while block := f.read(1 << 22):  # the zip module checks the CRC at the end
            h.update(block)
            size += len(block)
    if size != math.prod(shape) * _F8.itemsize:
        return f"{name} holds {size} bytes of data, expected {math.prod(shape) * _F8.itemsize}"
    if digest is not None and h.hexdigest() != digest:
        return f"the data of {name} differ from those written"
    return None


def _npz_problem(path: Path, shapes: dict, digests: dict | None = None) -> str | None:
    """What is wrong with the ``.npz`` at ``path`` (``shapes``: name -> full shape), or
    ``None``: any failure to read it counts (a truncated file, a bit flip, not a zip)."""
    try:
        with zipfile.ZipFile(path) as zf:
            extra = sorted(set(zf.namelist()) - {f"{name}.npy" for name in shapes})
            if extra:
                return f"it holds other arrays ({', '.join(extra)[:80]})"
            for name, shape in shapes.items():
                problem = _member_problem(zf, name, shape, (digests or {}).get(name))
                if problem:
                    return problem
    except Exception as exc:  # whatever breaks reading makes the file bad
        return f"it cannot be read ({type(exc).__name__}: {str(exc)[:80]})"
    return None


class _Lock:
    """An exclusive ``flock`` on the file ``path`` (created if missing), so a second run
    into the same output fails at once. The kernel releases it when the process ends, so
    a killed run leaves no stale lock, only the file, which the next run locks again."""

    MARK = "robodyn dataset lock"

    def __init__(self, path: Path, out: Path):
        self.path, self.fd = path, None
        if fcntl is None:
            return
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 200, 0).decode("ascii", "replace").split()
                os.close(fd)
                pid = f" (pid {holder[-1]})" if holder[-2:-1] == ["pid"] else ""
                raise InputError(f"--out {quote_path(out)}: another robodyn dataset run{pid}"
                                 " is writing it now; wait for it to finish, or stop it and "
                                 "rerun to resume") from None
            except BaseException:
                os.close(fd)
                raise
            try:  # the run that held it may have deleted the file: lock the one there now
                same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        text = os.pread(fd, 200, 0)
        if text and not text.startswith(self.MARK.encode()):
            os.close(fd)
            raise InputError(f"--out {quote_path(out)}: {quote_path(path)} is not robodyn's "
                             "lock file; move it away")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{self.MARK}\npid {os.getpid()}\n".encode(), 0)
        self.fd = fd

    def release(self, remove: bool = False) -> None:
        """Unlock; with ``remove``, delete the lock file first (while still holding it)."""
        if self.fd is None:
            return
        if remove:
            self.path.unlink(missing_ok=True)
        os.close(self.fd)
        self.fd = None


class NpzStore:
    """Chunk files and their records in ``OUT.parts/``, streamed into ``OUT`` at the end."""

    def __init__(self, out: Path, manifest: dict, shapes: dict, row_bytes: int):
        self.out, self.shapes, self.manifest = out, shapes, manifest
        self.samples, self.chunk = manifest["samples"], manifest["chunk"]
        self.count = -(-self.samples // self.chunk)
        self.digest = _settings_digest(manifest)
        self.parts = out.with_name(out.name + ".parts")
        self.complete = False
        if (out.exists() or out.is_symlink()) and not self.parts.is_dir():
            raise InputError(f"--out {quote_path(out)} already exists; delete it to write "
                             "the dataset again")
        if self.parts.is_symlink() or (self.parts.exists() and not self.parts.is_dir()):
            raise InputError(f"--out {quote_path(out)}: {quote_path(self.parts)} is in the "
                             "way (robodyn keeps the chunks in a directory of that name); "
                             "move it away")
        if not out.exists():
            on_disk = sum(p.stat().st_size for p in self._own_files(r"npz")) \
                if self.parts.is_dir() else 0
            total = self.samples * row_bytes + self.count * _OVERHEAD
            _check_disk(out, 2 * total - on_disk, self.samples, row_bytes,
                        ", in the chunk files and again in the final file")
        fresh = not self.parts.exists()
        self.parts.mkdir(parents=True, exist_ok=True)
        try:
            self.lock = _Lock(self.parts / _LOCK, out)
        except BaseException:
            if fresh:
                _rmdir_if_empty(self.parts)
            raise
        try:
            self.done = self._open()
        except BaseException:
            self.lock.release(remove=fresh)
            if fresh:
                _rmdir_if_empty(self.parts)
            raise

    def _chunk_path(self, k: int) -> Path:
        return self.parts / f"chunk-{k:06d}.npz"

    def _record_path(self, k: int) -> Path:
        return self.parts / f"chunk-{k:06d}.json"

    def _own_files(self, kind: str = r"npz|json") -> list[Path]:
        """robodyn's chunk files (``kind``: npz, json or both) now in the parts directory."""
        return [p for p in self.parts.iterdir()
                if (m := _CHUNK_FILE.match(p.name)) and re.fullmatch(kind, m.group(2))]

    def _rows(self, k: int) -> int:
        return min(self.chunk, self.samples - k * self.chunk)

    def _expected_record(self, k: int) -> dict:
        rows = self._rows(k)
        return {"run": self.digest, "chunk": k, "rows": rows,
                "arrays": {name: {"shape": [rows, *shape], "dtype": _F8.str}
                           for name, shape in self.shapes.items()}}

    def _open(self) -> set[int]:
        """Under the lock: clear what an interrupted run left half-written, check the
        manifest against the settings and every finished chunk against its record; return
        the chunks that need no computing."""
        for p in self.parts.iterdir():
            if _TEMP_FILE.match(p.name):  # a temporary file of a run that was killed
                p.unlink()
        path = self.parts / _MANIFEST
        if not path.exists():
            chunks = self._own_files()
            if chunks and (self.out.exists() or self.out.is_symlink()):
                # finish() moves OUT in place only after reading it back, then deletes the
                # parts: these are what a run killed during that cleanup left
                raise InputError(
                    f"--out {quote_path(self.out)} is complete (if this command wrote it): "
                    "the run that wrote it was "
                    "stopped while deleting its parts (robodyn moves OUT in place only "
                    f"after reading it back); delete {quote_path(self.parts)}, which holds "
                    f"{len(chunks)} leftover chunk files")
            if chunks:
                raise InputError(
                    f"--out {quote_path(self.out)}: {quote_path(self.parts)} holds "
                    f"{len(chunks)} chunk files but no {_MANIFEST}, so nothing tells which "
                    "settings wrote them; delete that directory to start afresh")
            if self.out.exists() or self.out.is_symlink():
                raise InputError(f"--out {quote_path(self.out)} already exists; delete it "
                                 "to write the dataset again")
            self._write_manifest(self.manifest)
            return set()
        old = self._read_manifest(path)
        final = old.pop("final", None)
        if old != self.manifest and _differences(old, self.manifest):
            raise _mismatch(self.out, old, self.manifest)
        # the settings as first written: the probe may differ in its last bits (another
        # backend), and the chunk records name the run by the digest of these
        self.manifest, self.digest = old, _settings_digest(old)
        if self.out.exists() or self.out.is_symlink():
            # the run that wrote OUT stopped before deleting the parts: finish that if OUT
            # is the file it wrote (its arrays' digests are in the manifest)
            if isinstance(final, dict) and not _npz_problem(self.out, self._full_shapes(),
                                                            final):
                self.complete = True
                return set(range(self.count))
            raise InputError(f"--out {quote_path(self.out)} already exists; delete it to "
                             "write the dataset again")
        done, seen = set(), set()
        for p in self._own_files():
            k = int(_CHUNK_FILE.match(p.name).group(1))
            if k in seen or k >= self.count:
                continue
            seen.add(k)
            problem = self._chunk_problem(k)
            if problem is None:
                done.add(k)
                continue
            warn(RuntimeWarning(f"{self._chunk_path(k).name} in {quote_path(self.parts)}: "
                                f"{problem}; computing it again"))
            self._record_path(k).unlink(missing_ok=True)
            self._chunk_path(k).unlink(missing_ok=True)
        return done

    def _read_manifest(self, path: Path) -> dict:
        """The settings in ``path``, or an error saying it is unreadable and what to do."""
        try:
            old = _read_json(path)
            reason = None if isinstance(old, dict) and isinstance(old.get("format"), str) \
                else "not a robodyn dataset manifest"
        except (OSError, ValueError, RecursionError) as exc:
            old, reason = None, f"{type(exc).__name__}: {str(exc)[:60]}"
        if reason is None and old["format"] != FORMAT:
            reason = f"format {excerpt(old['format'], 40)}, this robodyn writes {FORMAT}"
        if reason is not None:
            raise InputError(f"--out {quote_path(self.out)}: manifest unreadable: "
                             f"{quote_path(path)} ({reason}), so the chunks there cannot be "
                             "checked against the settings; delete "
                             f"{quote_path(self.parts)} to start afresh")
        return old

    def _write_manifest(self, content: dict) -> None:
        _atomic_write(self.parts / _MANIFEST,
                      lambda f: f.write(json.dumps(content, indent=1).encode()))

    def _chunk_problem(self, k: int) -> str | None:
        """Why finished chunk ``k`` cannot be used as it is, or ``None``."""
        if not self._chunk_path(k).is_file():
            return "its file is missing"
        if not self._record_path(k).is_file():
            return "it has no record (the run stopped before writing one)"
        try:
            record = _read_json(self._record_path(k))
        except (OSError, ValueError, RecursionError):
            return "its record is unreadable"
        expected = self._expected_record(k)
        if not isinstance(record, dict) or any(record.get(key) != value
                                               for key, value in expected.items()):
            return "its record is not one of this run"
        if _sha256(self._chunk_path(k)) != record.get("sha256"):
            return "its bytes differ from those recorded (sha256)"
        return _npz_problem(self._chunk_path(k), {name: (self._rows(k), *shape)
                                                  for name, shape in self.shapes.items()})

    def _full_shapes(self) -> dict:
        return {name: (self.samples, *shape) for name, shape in self.shapes.items()}

    def write(self, k: int, arrays: dict) -> None:
        """Chunk ``k``: its file, then its record (a chunk without a record is redone)."""
        self._record_path(k).unlink(missing_ok=True)
        digest = _atomic_write(self._chunk_path(k), lambda f: np.savez(f, **arrays))
        record = {"run": self.digest, "chunk": k, "rows": len(arrays["q"]),
                  "arrays": {name: {"shape": list(a.shape), "dtype": a.dtype.str}
                             for name, a in arrays.items()},
                  "sha256": digest}
        _atomic_write(self._record_path(k), lambda f: f.write(json.dumps(record).encode()))

    def _part(self, k: int, name: str) -> np.ndarray:
        """Array ``name`` of chunk ``k``, checked (it was checked when the run began)."""
        path, shape = self._chunk_path(k), (self._rows(k), *self.shapes[name])
        try:
            with np.load(path, allow_pickle=False) as part:
                value = part[name]
            problem = None if value.shape == shape and value.dtype == _F8 else \
                f"{name} is {value.dtype} of shape {value.shape}, expected {shape}"
        except Exception as exc:  # whatever breaks reading makes the file bad
            problem = f"it cannot be read ({type(exc).__name__})"
        if problem:
            raise InputError(f"--out {quote_path(self.out)}: {path.name} changed while the "
                             f"run was going ({problem}); rerun the same command to compute "
                             "it again")
        return value

    def finish(self, count: int, progress=None) -> None:
        """Stream the chunks into a temporary file in the parts directory, read it back
        and check it, give it the umask's mode, move it to ``OUT`` (never over a file
        there), and only then delete the parts. ``progress``: in pieces of one array of one
        chunk, written (the first half) and read back (the second, reported at its end)."""
        if self.complete:
            self._remove_parts()
            return
        fd, tmp = tempfile.mkstemp(dir=self.parts, prefix=".final.npz.", suffix=".tmp")
        bar = tracker(progress, 2 * count * len(self.shapes), "merging")
        try:
            digests = {}
            with os.fdopen(fd, "wb") as handle:
                with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED,
                                     allowZip64=True) as zf:
                    for name, shape in self.shapes.items():
                        h = hashlib.sha256()
                        with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                            header = {"descr": np.lib.format.dtype_to_descr(_F8),
                                      "fortran_order": False, "shape": (self.samples, *shape)}
                            np.lib.format.write_array_header_2_0(member, header)
                            for k in range(count):
                                data = memoryview(np.ascontiguousarray(self._part(k, name)))
                                data = data.cast("B")
                                member.write(data)
                                h.update(data)
                                bar.advance()
                        digests[name] = h.hexdigest()
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, 0o666 & ~_umask())
            problem = _npz_problem(Path(tmp), self._full_shapes(), digests)
            if problem:
                raise RobodynError(f"--out {quote_path(self.out)}: the merged file does not "
                                   f"read back ({problem}); the parts are kept: rerun the same "
                                   "command to merge them again")
            self._write_manifest({**self.manifest, "final": digests})
            _place(Path(tmp), self.out)
        except BaseException:
            bar.close(finished=False)
            Path(tmp).unlink(missing_ok=True)
            raise
        bar.close()
        self._remove_parts()

    def _remove_parts(self) -> None:
        """Delete robodyn's own files in the parts directory, then the directory if that
        left it empty (anything else in it is kept, and said)."""
        for p in self.parts.iterdir():
            if _CHUNK_FILE.match(p.name) or _TEMP_FILE.match(p.name):
                p.unlink()
        # the manifest last: a run killed before this still finds it (and OUT complete)
        (self.parts / _MANIFEST).unlink(missing_ok=True)
        self.lock.release(remove=True)
        if not _rmdir_if_empty(self.parts):
            warn(RuntimeWarning(f"kept {quote_path(self.parts)}: it holds files robodyn did "
                                "not write"))

    def close(self) -> None:
        self.lock.release()


def _rmdir_if_empty(path: Path) -> bool:
    try:
        path.rmdir()
        return True
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _place(tmp: Path, out: Path) -> None:
    """Move ``tmp`` to ``out`` unless something is there by now (a hard link fails on an
    existing name; where links are not supported, check and rename), and make it
    durable: the directory entry is synced before the parts are deleted."""
    try:
        os.link(tmp, out)
    except FileExistsError:
        raise InputError(f"--out {quote_path(out)} appeared while the dataset was written; "
                         "move it away and rerun to merge the parts") from None
    except OSError:
        if out.exists() or out.is_symlink():
            raise InputError(f"--out {quote_path(out)} appeared while the dataset was "
                             "written; move it away and rerun to merge the parts") from None
        os.replace(tmp, out)
    else:
        tmp.unlink()
    try:
        dir_fd = os.open(out.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _check_zarr_target(out: Path) -> None:
    """Refuse to write a ``.zarr`` store anywhere but a new or empty folder, or a store
    robodyn created (its attributes hold the ``robodyn`` manifest, checked against this
    run's settings afterwards): never ``mode="a"`` over a user's store or into a folder
    holding other files, never through a symbolic link."""
    if out.is_symlink():
        raise InputError(f"--out {quote_path(out)}: is a symbolic link; robodyn writes a "
                         "store only as a folder of its own (remove the link, or choose "
                         "another name)")
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError(f"--out {quote_path(out)}: exists and is not a folder; choose "
                         "another name")
    if not any(out.iterdir()):
        return
    if not _zarr_attributes(out).get("robodyn"):
        raise InputError(f"--out {quote_path(out)}: exists and is not a dataset robodyn "
                         "wrote (a folder with other files, or another program's store); "
                         "choose another name, or move it away")
    from ..codegen.export.files import check_recorded_folder

    check_recorded_folder(out)


def _zarr_attributes(out: Path) -> dict:
    """The attributes of the Zarr group ``out`` (format 3 ``zarr.json`` or format 2
    ``.zattrs``), read as JSON without following links; ``{}`` when there are none."""
    for name, key in (("zarr.json", "attributes"), (".zattrs", None)):
        path = out / name
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 10_000_000:
            continue
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        attrs = data.get(key) if key and isinstance(data, dict) else data
        if isinstance(attrs, dict):
            return attrs
    return {}


class ZarrStore:
    """One Zarr array per quantity; the finished chunks in the group's attributes."""

    def __init__(self, out: Path, manifest: dict, shapes: dict, row_bytes: int):
        _check_zarr_target(out)
        try:
            import zarr  # optional
        except ImportError:
            raise RobodynError(f"--out {quote_path(out)}: writing .zarr needs the zarr "
                               "package (pip install zarr); or write a .npz") from None
        if not out.exists():
            _check_disk(out, manifest["samples"] * row_bytes, manifest["samples"], row_bytes,
                        ", uncompressed")
        self.out = out
        self.lock = _Lock(out.with_name(out.name + ".lock"), out)
        try:
            self.group = zarr.open_group(str(out), mode="a")
            old = self.group.attrs.get("robodyn")
            if old is not None and (not isinstance(old, dict) or _differences(old, manifest)):
                raise _mismatch(out, old if isinstance(old, dict) else {}, manifest)
            if old is None:
                create = getattr(self.group, "create_array", None) or self.group.create_dataset
                for name, shape in shapes.items():
                    create(name, shape=(manifest["samples"], *shape),
                           chunks=(manifest["chunk"], *shape), dtype="f8", overwrite=True)
                self.group.attrs["robodyn"] = manifest
                self.group.attrs["robodyn_done"] = []
            self.done = set(self.group.attrs.get("robodyn_done", []))
        except BaseException:
            self.lock.release()
            raise
        self.chunk = manifest["chunk"]

    def write(self, k: int, arrays: dict) -> None:
        start = k * self.chunk
        for name, value in arrays.items():
            self.group[name][start:start + len(value)] = value
        self.done.add(k)
        self.group.attrs["robodyn_done"] = sorted(self.done)

    def finish(self, count: int, progress=None) -> None:
        from ..codegen.export.files import record_folder

        record_folder(self.out)  # the finished store's digest: a later edit is refused
        self.lock.release(remove=True)

    def close(self) -> None:
        self.lock.release()


def _atomic_write(path: Path, write: Callable) -> str:
    """Write ``path`` through a temporary file in its directory, renamed when complete,
    with the mode an ordinary ``open()`` gives (``0o666`` less the umask; ``mkstemp``
    makes it ``0o600``); return the sha256 of the bytes written (read back from the file)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
        digest = _sha256(Path(tmp))
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc.filename, str):
            exc.filename = str(path)  # a failed write names no file: the one being written
        raise
    return digest
