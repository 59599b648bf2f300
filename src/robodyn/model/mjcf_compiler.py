"""The numbers, flags and orientations of MJCF elements, and what ``<compiler>`` says about
them: angle units, the Euler sequence, joint limits and how inertia is found
(:class:`Compiler`), for :func:`robodyn.model.mjcf.load_mjcf`.

Orientations are MuJoCo's: ``quat`` (``w x y z``), ``axisangle``, ``xyaxes``, ``zaxis``
and ``euler`` (in the compiler's ``eulerseq``), each made a rotation matrix here.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import ModelError
from .chain import Transform
from .file_values import finite as _float
from .file_values import listing as _listing
from .file_values import numbers as _numbers
from .file_values import quote as _q
from .file_values import rotation as _rotation
from .mjcf_xml import MjcfElement

#: The attributes that orient an element; at most one of them is given.
ORIENTATION_ATTRS = ("quat", "axisangle", "xyaxes", "zaxis", "euler")
#: The attributes of ``<compiler>`` robodyn reads or knowingly skips; any other is an
#: error.
_COMPILER_ATTRS = {
    # read
    "angle", "eulerseq", "autolimits", "inertiafromgeom", "inertiagrouprange", "boundmass",
    "boundinertia", "settotalmass", "balanceinertia", "coordinate", "alignfree",
    # assets, meshes and compiler switches that do not change the tree's dynamics
    "meshdir", "texturedir", "assetdir", "discardvisual", "strippath", "fitaabb",
    "usethread", "exactmeshinertia", "fusestatic", "saveinertial", "convexhull", "maxhullvert",
}


# -- numbers and orientations ----------------------------------------------------------------
def attribute_floats(node: MjcfElement, key: str, n: int | tuple[int, ...],
                     attrib=None) -> np.ndarray:
    """The attribute ``key`` as ``n`` numbers (``n`` a tuple: any of those counts)."""
    text = (attrib if attrib is not None else node.attrib)[key]
    parts = text.split()
    counts = (n,) if isinstance(n, int) else n
    where = node.where(key)
    if len(parts) not in counts:
        expected = " or ".join(str(c) for c in counts)
        raise ModelError(f"{where}: expected {expected} numbers separated by spaces, got "
                         f"{_q(text)}")
    return np.array([_float(p, where) for p in parts])


def unit_vector(v: np.ndarray, where: str) -> np.ndarray:
    """``v / |v|``; a :class:`ModelError` naming ``where`` for a vector of length 0."""
    norm = float(np.linalg.norm(v))
    if not norm > 1e-14:
        raise ModelError(f"{where}: the vector {v.tolist()} has no direction (length 0)")
    return v / norm


def _quat_matrix(w, x, y, z) -> np.ndarray:
    """The rotation matrix of the unit quaternion ``w + x i + y j + z k``."""
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def quaternion_matrix(values, where: str) -> np.ndarray:
    """The rotation of MuJoCo's quaternion ``w x y z`` ``values``, made unit; a
    :class:`ModelError` naming ``where`` for a zero one."""
    q = np.asarray(values, dtype=float)
    norm = float(np.linalg.norm(q))
    if not norm > 1e-14:
        raise ModelError(f"{where}: the quaternion is zero; give w x y z, e.g. 1 0 0 0")
    return _quat_matrix(*(q / norm))


def _quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


class Compiler:
    """What ``<compiler>`` says about units and inertia."""

    def __init__(self):
        self.degrees = True  # MuJoCo's default
        self.eulerseq = "xyz"
        self.autolimits = True
        self.inertiafromgeom = "auto"
        #: ``settotalmass``: every body's mass and inertia scaled so that they sum to it
        self.total_mass: float | None = None
        self.groups = (0, 5)
        self.meshdir = ""  # meshdir, else assetdir: where mesh files are
        self.strippath = False
        self.boundmass = 0.0
        self.boundinertia = 0.0
        self.balanceinertia = False

    def angle(self, value: float) -> float:
        return math.radians(value) if self.degrees else value

    def read(self, node: MjcfElement) -> None:
        a = node.attrib
        for key in a:
            if key not in _COMPILER_ATTRS:
                raise ModelError(f"{node.where(key)}: not a <compiler> attribute robodyn "
                                 f"knows; known: {_listing(sorted(_COMPILER_ATTRS), 40)}")
        if "angle" in a:
            if a["angle"] not in ("degree", "radian"):
                raise ModelError(f"{node.where('angle')}: {_q(a['angle'])} is not degree or "
                                 "radian")
            self.degrees = a["angle"] == "degree"
        if "eulerseq" in a:
            seq = a["eulerseq"]
            if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
                raise ModelError(f"{node.where('eulerseq')}: {_q(seq)} is not three of "
                                 "x, y, z (rotating axes) or X, Y, Z (fixed axes)")
            self.eulerseq = seq
        if "autolimits" in a:
            self.autolimits = attribute_bool(node, "autolimits")
        if "inertiafromgeom" in a:
            value = a["inertiafromgeom"]
            if value not in ("true", "false", "auto"):
                raise ModelError(f"{node.where('inertiafromgeom')}: {_q(value)} is not true, "
                                 "false or auto")
            self.inertiafromgeom = value
        if "inertiagrouprange" in a:
            lo, hi = attribute_floats(node, "inertiagrouprange", 2)
            self.groups = (lo, hi)
        if "meshdir" in a or "assetdir" in a:
            self.meshdir = a.get("meshdir", a.get("assetdir"))
        if "strippath" in a:
            self.strippath = attribute_bool(node, "strippath")
        if "settotalmass" in a and _float(a["settotalmass"], node.where("settotalmass")) > 0:
            self.total_mass = _float(a["settotalmass"], node.where("settotalmass"))
        for key in ("boundmass", "boundinertia"):
            if key in a:
                value = _float(a[key], node.where(key))
                if value < 0:
                    raise ModelError(f"{node.where(key)}: {value:g} is negative; it must be "
                                     ">= 0")
                setattr(self, key, value)
        if "balanceinertia" in a:
            self.balanceinertia = attribute_bool(node, "balanceinertia")
        if a.get("coordinate", "local") != "local":
            raise ModelError(f"{node.where('coordinate')}: only local coordinates are read "
                             "(MuJoCo removed global ones)")
        if "alignfree" in a and attribute_bool(node, "alignfree"):
            raise ModelError(f"{node.where('alignfree')}: robodyn keeps a free body's frame "
                             "as written; remove alignfree")

    def bounded(self, mass: float, com: np.ndarray, inertia: np.ndarray):
        """One MuJoCo body's ``(mass, com, inertia)`` as the compiler leaves it: the mass at
        least ``boundmass``, each principal moment at least ``boundinertia``, and with
        ``balanceinertia`` moments ``A, B, C`` that break ``A + B >= C`` all set to their
        mean (MuJoCo's ``mjCModel`` after the bodies' inertias)."""
        if not (self.boundmass > 0 or self.boundinertia > 0 or self.balanceinertia):
            return mass, com, inertia
        mass = max(mass, self.boundmass)
        moments, axes = np.linalg.eigh((inertia + inertia.T) / 2)
        moments = np.maximum(moments, self.boundinertia)
        if self.balanceinertia and moments[0] + moments[1] < moments[2]:
            moments = np.full(3, moments.mean())
        return mass, com, axes @ np.diag(moments) @ axes.T

    def rotation(self, node: MjcfElement, attrib=None) -> np.ndarray:
        """The rotation of the element's orientation attribute (identity if none)."""
        a = attrib if attrib is not None else node.attrib
        given = [key for key in ORIENTATION_ATTRS if key in a]
        if len(given) > 1:
            raise ModelError(f"{node.where()}: orientation given twice ({', '.join(given)}); "
                             "give one of quat, axisangle, xyaxes, zaxis, euler")
        if not given:
            return np.eye(3)
        key = given[0]
        where = node.where(key)
        if key == "quat":
            q = attribute_floats(node, key, 4, a)
            norm = float(np.linalg.norm(q))
            if not norm > 1e-14:
                raise ModelError(f"{where}: the quaternion is zero; give w x y z, e.g. "
                                 "\"1 0 0 0\"")
            return _quat_matrix(*(q / norm))
        if key == "axisangle":
            v = attribute_floats(node, key, 4, a)
            axis = unit_vector(v[:3], where)
            half = self.angle(v[3]) / 2
            return _quat_matrix(math.cos(half), *(math.sin(half) * axis))
        if key == "xyaxes":
            v = attribute_floats(node, key, 6, a)
            x = unit_vector(v[:3], where)
            y = unit_vector(v[3:] - (x @ v[3:]) * x, where + " (y along x)")
            return np.column_stack([x, y, np.cross(x, y)])
        if key == "zaxis":
            z = unit_vector(attribute_floats(node, key, 3, a), where)
            axis = np.cross([0.0, 0.0, 1.0], z)
            s = float(np.linalg.norm(axis))
            if s < 1e-10:  # MuJoCo's mjuu_z2quat: along z, or opposite (half turn about x)
                return np.eye(3) if z[2] > 0 else _quat_matrix(0.0, 1.0, 0.0, 0.0)
            half = math.atan2(s, z[2]) / 2
            return _quat_matrix(math.cos(half), *(math.sin(half) * axis / s))
        angles = attribute_floats(node, key, 3, a)
        quat = (1.0, 0.0, 0.0, 0.0)
        for c, angle in zip(self.eulerseq, angles):
            half = self.angle(angle) / 2
            turn = [math.cos(half), 0.0, 0.0, 0.0]
            turn["xyz".index(c.lower()) + 1] = math.sin(half)
            # rotating axes (xyz) turn after, fixed axes (XYZ) before, as MuJoCo composes
            quat = _quat_mul(quat, turn) if c.islower() else _quat_mul(turn, quat)
        return _quat_matrix(*quat)

    def pose(self, node: MjcfElement, attrib=None) -> np.ndarray:
        """The 4x4 transform of the element's ``pos`` and orientation."""
        a = attrib if attrib is not None else node.attrib
        out = np.eye(4)
        out[:3, :3] = self.rotation(node, a)
        if "pos" in a:
            out[:3, 3] = attribute_floats(node, "pos", 3, a)
        return out


def attribute_bool(node: MjcfElement, key: str, attrib=None) -> bool:
    """The attribute ``key`` (of ``attrib``, default the element's own), ``true`` or
    ``false``."""
    value = (attrib if attrib is not None else node.attrib)[key]
    if value not in ("true", "false"):
        raise ModelError(f"{node.where(key)}: {_q(value)} is not true or false")
    return value == "true"


def translation(v) -> np.ndarray:
    """The 4x4 transform that moves by the 3-vector ``v``."""
    out = np.eye(4)
    out[:3, 3] = v
    return out


def as_transform(pose: np.ndarray) -> Transform:
    """A 4x4 pose as a :class:`~robodyn.model.chain.Transform` of SymPy numbers (rotation
    snapped)."""
    return Transform(_rotation(pose[:3, :3]), _numbers(pose[:3, 3]))
