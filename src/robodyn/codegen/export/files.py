"""Writing exported files without harm to the user's own.

:func:`write_files` writes ``{file name: text}`` into one folder; :func:`write_file`
writes one file (``robodyn export --urdf FILE``). Both

* never overwrite a file robodyn did not write, unless ``force``: a file is robodyn's
  when one of its first lines is :data:`~.program.MARKER` (inside the comment
  characters of its language, :func:`is_ours`), as every exported file's header is;
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
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

from ...core.errors import InputError
from ...model.names import MARKER

#: Bytes of an existing file read to find :data:`MARKER`.
HEAD_BYTES = 4096
#: Lines of an existing file searched for :data:`MARKER`.
HEAD_LINES = 3
_COMMENT_CHARACTERS = re.compile(r"^[\s/*#%(!<>-]*$")
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def is_ours(head: bytes) -> bool:
    """Whether the start ``head`` of a file is that of a file robodyn exported: one of
    its first :data:`HEAD_LINES` lines is :data:`MARKER` with only comment characters
    (``#``, ``%``, ``/*``, `` *``, ``(*``, ``<!--``) and spaces around it."""
    lines = head.decode("utf-8", "replace").splitlines()[:HEAD_LINES]
    return any(MARKER in line and _COMMENT_CHARACTERS.match(line.replace(MARKER, "", 1))
               for line in lines)


def _quoted(path) -> str:
    text = str(path)
    return repr(text if len(text) <= 80 else text[:80] + "...")


def _plain_name(fname: str, option: str, directory) -> str:
    if (not isinstance(fname, str) or not fname or fname in (".", "..") or "/" in fname
            or "\\" in fname or "\x00" in fname or fname.startswith(".")):
        raise InputError(f"{option} {_quoted(directory)}: {fname!r} is not a plain file name; "
                         "robodyn writes only into the folder itself")
    return fname


def _open_directory(directory: Path, option: str) -> int:
    """A file descriptor of ``directory``, created (with its parents) if missing."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"{option} {_quoted(directory)}: exists and is not a folder; give a "
                         "folder to write the files into") from None
    except OSError as exc:
        raise InputError(f"{option} {_quoted(directory)}: cannot create the folder "
                         f"({exc.strerror or exc})") from None
    try:
        return os.open(directory, os.O_RDONLY | _O_DIRECTORY)
    except NotADirectoryError:
        raise InputError(f"{option} {_quoted(directory)}: exists and is not a folder; give a "
                         "folder to write the files into") from None
    except OSError as exc:
        raise InputError(f"{option} {_quoted(directory)}: cannot open the folder "
                         f"({exc.strerror or exc})") from None


def _check_target(dir_fd: int, fname: str, force: bool, where: str) -> None:
    """Refuse to replace ``fname`` in the folder ``dir_fd`` unless it is missing or a
    regular file robodyn wrote (or ``force`` and a regular file)."""
    try:
        info = os.stat(fname, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{where}: cannot check the existing file ({exc.strerror or exc})"
                         ) from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(f"{where}: is a symbolic link; robodyn neither writes through nor "
                         "replaces a link (remove it, or choose another folder)")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{where}: exists and is not a regular file; remove it or choose "
                         "another folder")
    if force:
        return
    try:
        fd = os.open(fname, os.O_RDONLY | _O_NOFOLLOW, dir_fd=dir_fd)
        try:
            head = os.read(fd, HEAD_BYTES)
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(f"{where}: exists and cannot be read to check who wrote it "
                         f"({exc.strerror or exc}); pass "
                         f"{'--force' if where.startswith('-') else 'force=True'} to overwrite it"
                         ) from None
    if not is_ours(head):
        how = "--force" if where.startswith("-") else "force=True"
        raise InputError(f"{where}: exists and was not written by robodyn export; pass {how} "
                         "to overwrite it, or choose another folder")


def _write(dir_fd: int, fname: str, text: str, where: str) -> None:
    """``text`` into ``fname`` of the folder ``dir_fd``: a new temporary file, then
    :func:`os.replace` (atomic, never through a link)."""
    data = text.encode("utf-8")
    for attempt in range(100):
        tmp = f".{fname}.{os.getpid()}.{attempt}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, 0o666,
                         dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise InputError(f"{where}: cannot write there ({exc.strerror or exc})") from None
    else:
        raise InputError(f"{where}: cannot create a temporary file next to it (100 names "
                         "taken)")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, fname, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError as exc:
        try:
            os.unlink(tmp, dir_fd=dir_fd)  # ours: created above with O_EXCL
        except OSError:
            pass
        problem = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or exc)
        raise InputError(f"{where}: cannot write there ({problem})") from None


def write_files(files: Mapping[str, str], directory: str | Path, force: bool = False,
                option: str = "--out") -> list[Path]:
    """Write ``files`` (``{plain file name: text}``) into ``directory`` (created if
    missing) as the module docstring says; the paths written, in order. ``option``
    names the folder in error messages (``--out``; ``out`` in Python)."""
    directory = Path(directory)
    names = [_plain_name(f, option, directory) for f in files]
    dir_fd = _open_directory(directory, option)
    try:
        for fname in names:
            _check_target(dir_fd, fname, force, f"{option} {_quoted(directory)}: {fname}")
        for fname in names:
            _write(dir_fd, fname, files[fname], f"{option} {_quoted(directory)}: {fname}")
    finally:
        os.close(dir_fd)
    return [directory / f for f in names]


def prepare_folder(directory: str | Path, option: str = "--out") -> Path:
    """``directory``, created (with its parents) if missing; an :class:`InputError`
    naming ``option`` when it is a file or cannot be created or opened."""
    directory = Path(directory)
    os.close(_open_directory(directory, option))
    return directory


def write_file(path: str | Path, text: str, force: bool = False, option: str = "--urdf"
               ) -> Path:
    """Write ``text`` to the file ``path`` as :func:`write_files` does (its folder must
    exist; the file itself must not be a link, and is overwritten only if robodyn wrote
    it, or with ``force``)."""
    path = Path(path)
    where = f"{option} {_quoted(path)}"
    if path.name in ("", ".", ".."):
        raise InputError(f"{where}: not a file name")
    folder = path.parent
    try:
        dir_fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY)
    except OSError as exc:
        raise InputError(f"{where}: cannot write the file: its folder {_quoted(folder)} "
                         f"cannot be opened ({exc.strerror or exc})") from None
    try:
        _check_target(dir_fd, path.name, force, where)
        _write(dir_fd, path.name, text, where)
    finally:
        os.close(dir_fd)
    return path


__all__ = ["write_files", "write_file", "prepare_folder", "is_ours", "MARKER"]
