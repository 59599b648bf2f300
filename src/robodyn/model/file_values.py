"""What the model-file readers (URDF, MJCF) share: a file's names quoted for a message, its
numbers as exact Python numbers, and its rigid bodies merged into one.

Merging bodies fixed to each other (parallel-axis theorem; Siciliano et al., Robotics,
eq. 7.12): ``m = sum m_k``, ``c = sum m_k c_k / m``,
``I = sum R_k I_k R_k^T + m_k (|d_k|^2 1 - d_k d_k^T)``, ``d_k = c_k - c``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.csv_table import parse_number
from ..core.errors import ModelError
from .chain import snap

#: Names a message lists at most, and the characters it quotes of one.
LIST_NAMES = 10
NAME_CHARS = 80


@dataclass(frozen=True)
class Body:
    """A file's inertial element: mass, centre of mass and inertia about it, in the frame
    of the link (or body) it belongs to."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray


def quote(text) -> str:
    """A name or value of the file (or the caller) quoted for a message, at most
    :data:`NAME_CHARS` characters of it."""
    text = str(text)
    if len(text) <= NAME_CHARS:
        return repr(text)
    return f"{text[:NAME_CHARS]!r}... ({len(text):,} characters)"


def listing(names, limit: int = LIST_NAMES) -> str:
    """``a, b, c`` for a message: at most ``limit`` names, then ``... and N more``."""
    names = list(names)
    shown = ", ".join(n if len(n) <= NAME_CHARS else quote(n) for n in names[:limit])
    return shown + (f", ... and {len(names) - limit} more" if len(names) > limit else "")


def finite(text: str | None, where: str, allow_inf: bool = False) -> float:
    """The attribute text ``text`` as a float; a :class:`ModelError` naming ``where`` if it
    is not a plain decimal number (the rules of :func:`robodyn.core.csv_table.parse_number`:
    ``1_0``, digits of other scripts, ``0x10``, ``nan`` refused), or not finite
    (``allow_inf``: ``inf`` and ``-inf`` pass)."""
    if not isinstance(text, str):
        raise ModelError(f"{where}: {quote(text)} is not a number")
    cell = text.strip(" \t\r\n")
    if allow_inf and cell.lower().lstrip("+-") in ("inf", "infinity"):
        return -math.inf if cell.startswith("-") else math.inf
    value = parse_number(cell)  # the CSV tables' strict reader: no 1_0, no ١٢, no nan
    if isinstance(value, str):
        raise ModelError(f"{where}: {quote(text)} {value}")
    return value


def number(x: float):
    """A float of the file as the model's number: integers exact (``int``: 0, 1, -1 keep
    closed forms clean), others the ``float`` itself. Plain Python numbers, so that loading
    a file imports no SymPy; SymPy takes them exactly (an ``int`` as ``Integer``, a
    ``float`` as a 53-bit ``Float``) when a derivation uses them."""
    x = float(x)
    if x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def numbers(a):
    """A vector or matrix of floats as tuples of :func:`number`."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        return tuple(number(x) for x in a)
    return tuple(tuple(number(x) for x in row) for row in a)


def rotation(r):
    """A rotation matrix with entries within :data:`~robodyn.model.chain.SNAP` of 0 or
    +-1 made exact, as the numeric model does (``rpy="1.5707963267948966 0 0"`` gives
    cos = 6e-17): the symbolic model then has exact zeros too."""
    return numbers(np.vectorize(snap)(np.asarray(r, dtype=float)))


def merge(parts: list[tuple[np.ndarray, Body]]):
    """One rigid body from several: ``parts`` are (pose of the body's frame in the receiving
    frame, body). Returns mass, centre of mass and inertia about it, receiving frame (module
    docstring)."""
    mass = sum(body.mass for _, body in parts)
    coms = [pose[:3, :3] @ body.com + pose[:3, 3] for pose, body in parts]
    com = sum((body.mass * c for (_, body), c in zip(parts, coms)), np.zeros(3))
    com = com / mass if mass > 0 else np.zeros(3)
    inertia = np.zeros((3, 3))
    for (pose, body), c in zip(parts, coms):
        rot = pose[:3, :3]
        d = c - com
        inertia += rot @ body.inertia @ rot.T + body.mass * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, com, (inertia + inertia.T) / 2
