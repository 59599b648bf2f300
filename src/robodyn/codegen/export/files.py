"""Every file robodyn writes, written without harm to the user's own: exports, grades,
exercises, figures, animations, CSV and npz, demo pictures.

:func:`write_files` writes ``{file name: text}`` into one folder; :func:`write_file`
writes one file (``robodyn export --urdf FILE``); :func:`write_output` runs a writer
(``savefig``, ``np.savez``, an animation writer) on a temporary file and puts it in place
with the same rule. All of them

* keep a record of what they wrote: a file :data:`RECORD` (``.robodyn-files.json``) in
  the folder, ``{file name: sha256 of the bytes written}``. A record beside the files,
  not a marker line inside them, because pictures, npz and CSV have no room for a
  comment their readers ignore, and a digest inside a file cannot cover itself;
* replace a file robodyn wrote earlier (its digest matches the record), refuse one
  robodyn wrote and the user edited since (the digest differs), and refuse a file robodyn
  did not write, unless ``force``; an exported file from before the record is
  robodyn's when one of its first lines is :data:`~.program.MARKER` (inside the comment
  characters of its language, :func:`is_ours`);
* never write through a symbolic link: a link where a file would go is refused (it is
  neither followed nor replaced, whatever ``force`` says), and every file is written
  relative to the opened folder (``dir_fd``), into a temporary file created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` and then renamed over the target with
  :func:`os.replace` in the same folder, so a reader never sees half a file and a link
  planted meanwhile is replaced, not followed;
* take file names only as plain names (no ``/``, no ``..``, no leading ``.``), so no
  path can leave the folder;
* check every target before writing any, so a refusal leaves the folder as it was.

Errors are :class:`~robodyn.core.errors.InputError` naming the option (``--out DIR``) and
saying what to do.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

from ...core.errors import InputError, excerpt_path
from ...model.names import MARKER

#: Bytes of an existing file read to find :data:`MARKER`.
HEAD_BYTES = 4096
#: Lines of an existing file searched for :data:`MARKER`.
HEAD_LINES = 3
_COMMENT_CHARACTERS = re.compile(r"^[\s/*#%(!<>-]*$")
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: The file in each folder that records what robodyn wrote there: ``{name: sha256}``.
RECORD = ".robodyn-files.json"
_RECORD_FORMAT = "robodyn-files 1"


def is_ours(head: bytes) -> bool:
    """Whether the start ``head`` of a file is that of a file robodyn exported: one of
    its first :data:`HEAD_LINES` lines is :data:`MARKER` with only comment characters
    (``#``, ``%``, ``/*``, `` *``, ``(*``, ``<!--``) and spaces around it."""
    lines = head.decode("utf-8", "replace").splitlines()[:HEAD_LINES]
    return any(MARKER in line and _COMMENT_CHARACTERS.match(line.replace(MARKER, "", 1))
               for line in lines)


def _quoted(path) -> str:
    return excerpt_path(path)


def _plain_name(fname: str, option: str, directory) -> str:
    if (not isinstance(fname, str) or not fname or fname in (".", "..") or "/" in fname
            or "\\" in fname or "\x00" in fname or fname.startswith(".")):
        raise InputError(f"{option} {_quoted(directory)}: {fname!r} is not a plain file name; "
                         "robodyn writes only into the folder itself")
    return fname


def _how(where: str) -> str:
    return "--force" if where.startswith("-") else "force=True"


def _open_directory(directory: Path, option: str, create: bool = True) -> int:
    """A file descriptor of ``directory``, created (with its parents) if missing and
    ``create``; a symbolic link there is refused, not followed."""
    if directory.is_symlink():
        raise InputError(f"{option} {_quoted(directory)}: is a symbolic link; robodyn writes "
                         "only into a real folder (remove the link, or give the folder "
                         "itself)")
    if create:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise InputError(f"{option} {_quoted(directory)}: exists and is not a folder; "
                             "give a folder to write the files into") from None
        except OSError as exc:
            raise InputError(f"{option} {_quoted(directory)}: cannot create the folder "
                             f"({exc.strerror or exc})") from None
    try:
        return os.open(directory, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW)
    except NotADirectoryError:
        raise InputError(f"{option} {_quoted(directory)}: exists and is not a folder; give a "
                         "folder to write the files into") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{option} {_quoted(directory)}: is a symbolic link; robodyn "
                             "writes only into a real folder") from None
        raise InputError(f"{option} {_quoted(directory)}: cannot open the folder "
                         f"({exc.strerror or exc})") from None


def _read_regular(dir_fd: int, fname: str) -> bytes:
    fd = os.open(fname, os.O_RDONLY | _O_NOFOLLOW, dir_fd=dir_fd)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _digest(dir_fd: int, fname: str) -> str:
    fd = os.open(fname, os.O_RDONLY | _O_NOFOLLOW, dir_fd=dir_fd)
    try:
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def read_record(dir_fd: int, where: str) -> dict[str, str]:
    """The record :data:`RECORD` of the folder ``dir_fd``: ``{name: sha256}`` (empty when
    there is none); a link, or a file of that name robodyn did not write, is refused."""
    try:
        info = os.stat(RECORD, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return {}
    if not stat.S_ISREG(info.st_mode) or info.st_size > 10_000_000:
        raise InputError(f"{where}: the folder's {RECORD} is not robodyn's record of its "
                         "files (a link, or not a small file); remove it")
    try:
        data = json.loads(_read_regular(dir_fd, RECORD))
    except (OSError, ValueError):
        data = None
    files = data.get("files") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("format") != _RECORD_FORMAT
            or not isinstance(files, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())):
        raise InputError(f"{where}: the folder's {RECORD} is not robodyn's record of its "
                         "files; remove it (robodyn then treats the files there as the "
                         "user's)")
    return dict(files)


def _write_record(dir_fd: int, files: Mapping[str, str], where: str) -> None:
    text = json.dumps({"format": _RECORD_FORMAT, "files": dict(sorted(files.items()))},
                      indent=1) + "\n"
    _write(dir_fd, RECORD, _text_writer(text), where)


def _check_target(dir_fd: int, fname: str, force: bool, where: str,
                  record: Mapping[str, str] | None = None) -> None:
    """Refuse to replace ``fname`` in the folder ``dir_fd`` unless it is missing, or a
    regular file robodyn wrote and nobody changed since (its digest in ``record``; an
    export with :data:`MARKER` from before the record), or ``force`` and a regular file."""
    try:
        info = os.stat(fname, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{where}: cannot check the existing file ({exc.strerror or exc})"
                         ) from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(f"{where}: is a symbolic link; robodyn neither writes through nor "
                         "replaces a link (remove it, or choose another name)")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{where}: exists and is not a regular file; remove it or choose "
                         "another name")
    if force:
        return
    if record is None:
        record = read_record(dir_fd, where)
    try:
        if fname in record:
            if _digest(dir_fd, fname) == record[fname]:
                return
            raise InputError(f"{where}: robodyn wrote this file and it was changed since; "
                             f"pass {_how(where)} to overwrite your changes, or choose "
                             "another name")
        fd = os.open(fname, os.O_RDONLY | _O_NOFOLLOW, dir_fd=dir_fd)
        try:
            head = os.read(fd, HEAD_BYTES)
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(f"{where}: exists and cannot be read to check who wrote it "
                         f"({exc.strerror or exc}); pass {_how(where)} to overwrite it"
                         ) from None
    if not is_ours(head):
        raise InputError(f"{where}: exists and was not written by robodyn; pass "
                         f"{_how(where)} to overwrite it, or choose another name")


def _text_writer(text: str | bytes) -> Callable[[Path], None]:
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)

    def write(tmp: Path) -> None:
        # the temporary file was made just now with O_EXCL; open it without following
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC | _O_NOFOLLOW)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    return write


def _folder_path(dir_fd: int, folder: Path | None) -> Path:
    """A path naming the folder ``dir_fd``: ``/proc/self/fd/N`` where there is one (Linux:
    the folder opened, even if its name were swapped for a link since), else ``folder``."""
    proc = Path(f"/proc/self/fd/{dir_fd}")
    if proc.is_dir() or folder is None:
        return proc
    return folder


def _write(dir_fd: int, fname: str, write: Callable[[Path], None], where: str,
           folder: Path | None = None) -> str:
    """Run ``write(tmp)`` on a new temporary file ``tmp`` in the folder ``dir_fd`` (with
    ``fname``'s suffix, so writers that choose a format by suffix see the right one), then
    :func:`os.replace` it over ``fname`` (atomic, never through a link); the sha256 of the
    bytes written."""
    suffix = Path(fname).suffix
    for attempt in range(100):
        tmp = f".{Path(fname).stem}.{os.getpid()}.{attempt}.tmp{suffix}"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, 0o666,
                         dir_fd=dir_fd)
            os.close(fd)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise InputError(f"{where}: cannot write there ({exc.strerror or exc}); choose "
                             "a folder you can write to") from None
    else:
        raise InputError(f"{where}: cannot create a temporary file next to it (100 names "
                         "taken)")
    try:
        write(_folder_path(dir_fd, folder) / tmp)
        digest = _digest(dir_fd, tmp)
        os.replace(tmp, fname, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        try:
            os.unlink(tmp, dir_fd=dir_fd)  # ours: created above with O_EXCL
        except OSError:
            pass
        if isinstance(exc, OSError):
            problem = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror
                                                                             or exc)
            raise InputError(f"{where}: cannot write there ({problem})") from None
        raise
    return digest


def write_files(files: Mapping[str, str | bytes | Callable[[Path], None]],
                directory: str | Path, force: bool = False, option: str = "--out"
                ) -> list[Path]:
    """Write ``files`` (``{plain file name: text, bytes, or a function writing the file
    at the path it is given}``) into ``directory`` (created if missing) as the module
    docstring says; the paths written, in order. ``option`` names the folder in error
    messages (``--out``; ``out`` in Python)."""
    directory = Path(directory)
    names = [_plain_name(f, option, directory) for f in files]
    dir_fd = _open_directory(directory, option)
    try:
        where = f"{option} {_quoted(directory)}"
        record = read_record(dir_fd, where)
        for fname in names:
            _check_target(dir_fd, fname, force, f"{where}: {fname}", record)
        try:
            for fname in names:
                content = files[fname]
                write = content if callable(content) else _text_writer(content)
                record[fname] = _write(dir_fd, fname, write, f"{where}: {fname}",
                                       directory)
        finally:
            _write_record(dir_fd, record, where)
    finally:
        os.close(dir_fd)
    return [directory / f for f in names]


def prepare_folder(directory: str | Path, option: str = "--out") -> Path:
    """``directory``, created (with its parents) if missing; an :class:`InputError`
    naming ``option`` when it is a file or a link, or cannot be created or opened."""
    directory = Path(directory)
    os.close(_open_directory(directory, option))
    return directory


def tree_digest(folder: str | Path) -> str:
    """The sha256 of a folder's content (every regular file's relative path and bytes, in
    sorted order; links and other entries named as such, never followed): the digest a
    folder robodyn wrote (a ``.zarr`` store) is recorded under in its parent's record."""
    folder = Path(folder)
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix().encode("utf-8", "surrogateescape")
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            h.update(b"other\0" + rel + b"\0")
        elif path.is_file():
            h.update(b"file\0" + rel + b"\0")
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    h.update(chunk)
    return h.hexdigest()


def record_folder(folder: str | Path, option: str = "--out") -> None:
    """Record the digest of ``folder`` (:func:`tree_digest`) in its parent's record, as
    robodyn's and unchanged; :func:`check_recorded_folder` checks it later."""
    folder = Path(folder)
    where = f"{option} {_quoted(folder)}"
    dir_fd = _open_file_folder(folder, where)
    try:
        record = read_record(dir_fd, where)
        record[folder.name + "/"] = tree_digest(folder)
        _write_record(dir_fd, record, where)
    finally:
        os.close(dir_fd)


def check_recorded_folder(folder: str | Path, option: str = "--out") -> None:
    """Refuse a folder robodyn finished and recorded whose content changed since."""
    folder = Path(folder)
    where = f"{option} {_quoted(folder)}"
    dir_fd = _open_file_folder(folder, where)
    try:
        recorded = read_record(dir_fd, where).get(folder.name + "/")
    finally:
        os.close(dir_fd)
    if recorded is not None and tree_digest(folder) != recorded:
        raise InputError(f"{where}: robodyn wrote this store and it was changed since; move "
                         "it away (or delete it) to write the dataset again, or choose "
                         "another name")


def check_files(names, directory: str | Path, force: bool = False, option: str = "--out"
                ) -> None:
    """Check before any work that :func:`write_files` may write ``names`` into
    ``directory``: the folder is no link, and each file is missing, or robodyn's and
    unchanged, or ``force`` (nothing is created)."""
    directory = Path(directory)
    if not (directory.exists() or directory.is_symlink()):
        return
    dir_fd = _open_directory(directory, option, create=False)
    try:
        where = f"{option} {_quoted(directory)}"
        record = read_record(dir_fd, where)
        for fname in names:
            _check_target(dir_fd, _plain_name(fname, option, directory), force,
                          f"{where}: {fname}", record)
    finally:
        os.close(dir_fd)


def check_output(path: str | Path, force: bool = False, option: str = "--out") -> Path:
    """``path`` checked before any work as :func:`write_output` would: its folder exists
    and is no link, and ``path`` is missing, or robodyn's and unchanged, or ``force``."""
    path = Path(path)
    where = f"{option} {_quoted(path)}"
    if path.name in ("", ".", ".."):
        raise InputError(f"{where}: not a file name")
    dir_fd = _open_file_folder(path, where)
    try:
        _check_target(dir_fd, path.name, force, where)
    finally:
        os.close(dir_fd)
    return path


def _open_file_folder(path: Path, where: str) -> int:
    folder = path.parent
    try:
        return os.open(folder, os.O_RDONLY | _O_DIRECTORY)
    except OSError as exc:
        raise InputError(f"{where}: cannot write the file: its folder {_quoted(folder)} "
                         f"cannot be opened ({exc.strerror or exc})") from None


def write_output(path: str | Path, write: Callable[[Path], None], force: bool = False,
                 option: str = "--out") -> Path:
    """Run ``write(tmp)`` (``fig.savefig``, ``np.savez``, an animation writer) on a new
    temporary file beside ``path`` with its suffix, and move it to ``path`` as
    :func:`write_file` does."""
    path = Path(path)
    where = f"{option} {_quoted(path)}"
    if path.name in ("", ".", ".."):
        raise InputError(f"{where}: not a file name")
    dir_fd = _open_file_folder(path, where)
    try:
        record = read_record(dir_fd, where)
        _check_target(dir_fd, path.name, force, where, record)
        record[path.name] = _write(dir_fd, path.name, write, where, path.parent)
        _write_record(dir_fd, record, where)
    finally:
        os.close(dir_fd)
    return path


def write_file(path: str | Path, text: str | bytes, force: bool = False,
               option: str = "--urdf") -> Path:
    """Write ``text`` to the file ``path`` as :func:`write_files` does (its folder must
    exist; the file itself must not be a link, and is overwritten only if robodyn wrote
    it and nobody changed it since, or with ``force``)."""
    return write_output(path, _text_writer(text), force=force, option=option)


__all__ = ["write_files", "write_file", "write_output", "check_output", "check_files",
           "prepare_folder", "read_record", "tree_digest", "record_folder",
           "check_recorded_folder", "is_ours", "MARKER", "RECORD"]
