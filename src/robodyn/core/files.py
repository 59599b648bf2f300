"""The one check every reader makes before it reads a file: the path names a regular file
(a FIFO, a device or a folder would block the open or never end), and at most a bounded
number of bytes come back. URDF, MJCF and YAML models, meshes and CSV tables all read
through :func:`read_regular_file` (or :func:`open_regular_file`), so none of them can hang
on a named pipe."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotRegularFile", "LinkRefused", "model_name_of", "open_regular_file",
           "read_regular_file", "file_label"]


class NotRegularFile(OSError):
    """The path exists but is not a regular file (a FIFO, a device, a socket, a folder)."""

    def __init__(self, path: str | os.PathLike, kind: str):
        super().__init__(f"not a regular file (a {kind})")
        self.strerror = f"not a regular file (a {kind})"
        self.kind = kind
        self.filename = str(path)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def file_label(path: str | os.PathLike) -> str:
    """A file name as an error message shows it: as given where printable, else with its
    control characters escaped (``'model\\x1b[2J.urdf'``), so an escape sequence in a file
    name never reaches the terminal raw."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    if text.isprintable():
        return text
    return repr(text)


class LinkRefused(OSError):
    """The path is a symbolic link where a reader takes only the file itself."""

    def __init__(self, path: str | os.PathLike):
        super().__init__("a symbolic link; give the file itself")
        self.strerror = "a symbolic link; give the file itself"
        self.filename = str(path)


def open_regular_file(path: str | os.PathLike, follow_links: bool = True) -> BinaryIO:
    """``path`` opened for reading in binary, or :class:`NotRegularFile` (an ``OSError``)
    if it is not a regular file. The open does not block: it is non-blocking until
    ``fstat`` has said the file is regular. ``follow_links=False``: a symbolic link (the
    last part of the path) is :class:`LinkRefused` (``grade`` reads students' files)."""
    if not follow_links and os.path.islink(path):
        raise LinkRefused(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)  # a link planted after the check
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, _kind(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_file(path: str | os.PathLike, max_bytes: int,
                      follow_links: bool = True) -> bytes:
    """At most ``max_bytes + 1`` bytes of the regular file ``path`` (one more than the
    limit, so the caller can tell a file that is too large). ``OSError`` (with
    :class:`NotRegularFile` for a pipe, device or folder) when it cannot be read."""
    with open_regular_file(Path(path), follow_links) as f:
        return f.read(max_bytes + 1)


def read_model_bytes(path: str | os.PathLike, max_bytes: int, what: str, typical: str) -> bytes:
    """The bytes of the model file ``path`` (:func:`read_regular_file`), or a
    :class:`~robodyn.core.errors.ModelError` naming the file: ``what`` (``"the URDF file"``)
    cannot be read, or is larger than ``max_bytes`` (``typical``: the size such files are)."""
    from .errors import ModelError

    label = file_label(path)
    try:
        data = read_regular_file(path, max_bytes)
    except OSError as exc:
        raise ModelError(f"{label}: cannot read {what} ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise ModelError(f"{label}: the file is larger than {max_bytes:,} bytes; {typical}")
    return data


def model_name_of(path: str | os.PathLike) -> str:
    """The name a model takes from its file when the file names none: the file's stem, or
    ``"robot"`` where the stem holds control characters (a model name is one line of
    printable text; the error would otherwise be about a name the user never gave)."""
    stem = Path(path).stem
    return stem if stem.isprintable() and stem else "robot"
