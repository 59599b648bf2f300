"""The inertia MuJoCo's compiler derives from a body's geoms (``<compiler
inertiafromgeom>``): each primitive geom a solid of uniform density (its ``mass``, else
``density`` times its volume, ``density`` 1000 by default), placed by its ``pos`` and
orientation or its ``fromto``, summed into one body about the common centre of mass
(parallel-axis theorem), as MuJoCo's ``mjCGeom::SetInertia`` and ``mjCBody`` compute it.

Solids, about their centre, in their own frame (``size`` as MJCF gives it: radii and
half-lengths): sphere ``r``: ``V = 4/3 pi r^3``, ``I = 2/5 m r^2``; ellipsoid ``a, b, c``:
``V = 4/3 pi a b c``, ``I_xx = m (b^2 + c^2) / 5``; box half-sizes ``a, b, c``: ``V = 8 a b c``,
``I_xx = m ((2b)^2 + (2c)^2) / 12``; cylinder ``r, h`` (half-height): ``V = 2 pi r^2 h``,
``I_xx = m (3 r^2 + (2h)^2) / 12``, ``I_zz = m r^2 / 2``; capsule ``r, h``: the cylinder and
two hemispheres, each hemisphere's centre of mass ``3 r / 8`` from its face, so the pair adds
``m_s (2 r^2 / 5 + h^2 + 3 r h / 4)`` about x and y (``m_s`` the mass of a whole sphere of
radius ``r``, ``(2h)`` the cylinder's length: ``m_s (2r^2/5 + (2h)^2/4 + 3 r (2h) / 8)``) and
``2/5 m_s r^2`` about z. Along a ``fromto`` (the geom's z from one end to the other, turned
the shortest way) the half-length is half the distance, and a box or ellipsoid is as wide
in y as ``size[0]`` in x, as MuJoCo makes it. Meshes, height fields, planes and shell
inertia are not read here.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import ModelError

#: The geom types whose inertia this module computes.
PRIMITIVES = ("sphere", "capsule", "ellipsoid", "cylinder", "box")
#: Sizes MJCF requires of each type (the others default to 0 in MuJoCo and are refused).
_SIZES = {"sphere": 1, "capsule": 2, "ellipsoid": 3, "cylinder": 2, "box": 3}


def solid(kind: str, size: np.ndarray) -> tuple[float, np.ndarray]:
    """``(volume, inertia per unit mass (3,))`` of the primitive ``kind`` about its centre,
    in its own frame (module docstring)."""
    if kind == "sphere":
        r = size[0]
        return 4 / 3 * math.pi * r ** 3, np.full(3, 2 / 5 * r * r)
    if kind == "ellipsoid":
        a, b, c = size[:3]
        return 4 / 3 * math.pi * a * b * c, np.array([b * b + c * c, a * a + c * c,
                                                     a * a + b * b]) / 5
    if kind == "box":
        a, b, c = 2 * size[:3]
        return a * b * c, np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 12
    r, h = size[0], size[1]
    length = 2 * h
    if kind == "cylinder":
        volume = math.pi * r * r * length
        return volume, np.array([(3 * r * r + length ** 2) / 12] * 2 + [r * r / 2])
    # capsule: the cylinder and a sphere split in two hemispheres at its ends
    cylinder = math.pi * r * r * length
    sphere = 4 / 3 * math.pi * r ** 3
    volume = cylinder + sphere
    across = (cylinder * (3 * r * r + length ** 2) / 12
              + sphere * (2 * r * r / 5 + length ** 2 / 4 + 3 * r * length / 8))
    along = cylinder * r * r / 2 + sphere * 2 / 5 * r * r
    return volume, np.array([across, across, along]) / volume


def z_to(direction: np.ndarray) -> np.ndarray:
    """The rotation taking z to the unit ``direction`` the shortest way (MuJoCo's
    ``mjuu_z2quat``; opposite to z: a half turn about x)."""
    axis = np.cross([0.0, 0.0, 1.0], direction)
    s = float(np.linalg.norm(axis))
    if s < 1e-10:
        return np.eye(3) if direction[2] > 0 else np.diag([1.0, -1.0, -1.0])
    axis = axis / s
    angle = math.atan2(s, float(direction[2]))
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]],
                  [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def combined(parts) -> tuple[float, np.ndarray, np.ndarray] | None:
    """``(mass, centre of mass, inertia about it)`` of ``(mass, centre, inertia about the
    centre)`` parts in one frame (parallel-axis theorem), None when the mass is 0."""
    mass = sum(m for m, _, _ in parts)
    if mass <= 0:
        return None
    com = sum(m * c for m, c, _ in parts) / mass
    inertia = np.zeros((3, 3))
    for m, c, i in parts:
        d = c - com
        inertia += i + m * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, com, (inertia + inertia.T) / 2


def check_size(kind: str, size: np.ndarray, where: str, fromto: bool) -> None:
    """MuJoCo's own refusals: sizes that make no solid."""
    need = 1 if fromto else _SIZES[kind]  # along fromto: the radius (half-width) alone
    if len(size) < need or not np.all(np.isfinite(size[:need])) or np.any(size[:need] <= 0):
        raise ModelError(f"{where}: a {kind} geom needs {need} positive size value(s) "
                         f"(radii, half-lengths), got {list(size)}")


__all__ = ["PRIMITIVES", "solid", "z_to", "combined", "check_size"]
