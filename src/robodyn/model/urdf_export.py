"""A numeric chain written as a URDF file (``robot.to_urdf()``).

The URDF holds the chain with every parameter value bound, as
:func:`robodyn.model.urdf.load_urdf` reads it back:

* a ``base_link`` (the chain's base frame) and, per chain link ``i``, a joint and a
  link. URDF's ``q = 0`` is the joint's origin, robodyn's ``q = 0`` is motion by
  ``offset``, so the offset is folded into the origin: link ``i``'s frame is
  ``placement * Motion(q_i + offset_i) = (placement * Motion(offset_i)) * Motion(q_i)``
  (motions about or along one axis commute), and the joint's ``<origin>`` is
  ``placement * Rot(axis, offset)`` (revolute) or ``placement * Trans(offset axis)``
  (prismatic). The axis keeps its direction (``Rot(axis, offset)`` leaves it fixed),
  and the file's joint variable equals robodyn's ``q``;
* a revolute joint without position limits is ``continuous``; with them (from a
  URDF's ``<limit>``, kept in ``Joint.limits``) ``revolute``. URDF requires
  ``<limit>`` on revolute and prismatic joints: a prismatic joint with no known limits
  gets ``+-UNBOUNDED``, and unknown velocity or effort limits are ``UNBOUNDED`` too,
  said in a comment;
* ``<dynamics damping friction>``: the viscous and Coulomb friction;
* ``<inertial>``: origin at the centre of mass with ``rpy = 0``, the mass, and the full
  inertia tensor about the centre of mass in the link frame (URDF's ``ixy`` is the
  tensor's entry ``I_xy``, as read by the loader); a link's point masses are folded into
  it (total mass, common centre of mass, parallel-axis theorem), URDF has one body a link;
* the end-effector frame (``chain.tip``), when it is not the identity, as a ``tool``
  link on a fixed joint (re-loading puts the default tip there);
* gravity: URDF has none; simulators take ``(0, 0, -g)`` in the root frame. When the
  chain's gravity is not along the base's ``-z`` (planar models with gravity along
  ``-y``), a root ``world`` link holds ``base_link`` on a fixed joint, turned so that
  gravity points along ``world``'s ``-z``. A magnitude other than 9.81 is only written
  in a comment.

URDF has no motor (armature) inertia: ``G^2 J_m`` is left out, with a comment and a
:class:`~robodyn.core.errors.UrdfWarning`. Names are the chain's (made unique, control
characters as ``<U+XXXX>``; ElementTree escapes ``& < > "``); numbers are written with
``repr`` (shortest text that reads back as the same float). The second line is the comment
:data:`~robodyn.model.names.MARKER`, by which ``robodyn export`` knows its own files.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np

from ..core.errors import UrdfWarning, warn
from .chain import PRISMATIC, REVOLUTE, Chain, folded
from .names import MARKER, visible
from .urdf import GRAVITY

#: Stand-in for a limit URDF requires and the model does not know (m, rad, m/s, N, N m).
UNBOUNDED = 1e9


def chain_to_urdf(chain: Chain, name: str, comment: str = "") -> str:
    """The URDF text of a numeric ``chain`` (every number a float, as
    ``robot.numeric_chain``); ``comment`` heads the file. See the module docstring for
    the frames, joints and links written."""
    names = _Names()
    root = ET.Element("robot", name=visible(name) or "robot")
    notes = [comment] if comment else []
    base = names.link("base_link")

    gravity = np.array(chain.gravity, dtype=float)
    g = float(np.linalg.norm(gravity))
    if g > 0 and not np.allclose(gravity / g, [0.0, 0.0, -1.0], rtol=0, atol=1e-15):
        world = names.link("world")
        ET.SubElement(root, "link", name=world)
        joint = ET.SubElement(root, "joint", name=names.joint(f"{world}_to_{base}"), type="fixed")
        ET.SubElement(joint, "parent", link=world)
        ET.SubElement(joint, "child", link=base)
        _origin(joint, _up_rotation(-gravity / g), np.zeros(3))
        notes.append(f"gravity ({_vector(gravity)}) in {base}: the root {world} holds {base} "
                     f"turned so that gravity points along {world}'s -z")
    if g > 0 and abs(g - GRAVITY) > 1e-12 * GRAVITY:
        notes.append(f"gravity magnitude {_f(g)} (not {GRAVITY}): set it in the simulator")
    ET.SubElement(root, "link", name=base)

    armature = []
    parent = base
    for i, link in enumerate(chain.links):
        joint, child = _joint(root, link, i, parent, names, notes)
        _link(root, link, child)
        armature += [link.joint.name or joint] if float(link.motor.armature) != 0 else []
        parent = child
    if armature:
        text = (f"URDF has no motor (armature) inertia: G^2 Jm of joint(s) "
                f"{', '.join(armature[:10])}{' ...' if len(armature) > 10 else ''} is left out")
        notes.append(text)
        warn(UrdfWarning(f"{visible(name)}: {text}"))

    tip_rotation = np.array(chain.tip.rotation, dtype=float)
    tip_translation = np.array(chain.tip.translation, dtype=float)
    if not (np.array_equal(tip_rotation, np.eye(3)) and not tip_translation.any()):
        tool = names.link("tool")
        joint = ET.SubElement(root, "joint", name=names.joint(f"{tool}_joint"), type="fixed")
        ET.SubElement(joint, "parent", link=parent)
        ET.SubElement(joint, "child", link=tool)
        _origin(joint, tip_rotation, tip_translation)
        ET.SubElement(root, "link", name=tool)

    for k, note in enumerate(notes):
        root.insert(k, ET.Comment(f" {_comment_text(note)} "))
    ET.indent(root, space="  ")
    return (f'<?xml version="1.0"?>\n<!-- {MARKER} -->\n' + ET.tostring(root, encoding="unicode")
            + "\n")


def _joint(root, link, i, parent, names, notes):
    """Append the ``<joint>`` moving ``link`` (chain index ``i``) and return its name and
    the name of its child link."""
    joint = link.joint
    axis = np.array(joint.axis, dtype=float)
    rotation = np.array(joint.placement.rotation, dtype=float)
    translation = np.array(joint.placement.translation, dtype=float)
    offset = float(joint.offset)
    if joint.type == REVOLUTE:
        rotation = rotation @ axis_rotation(axis, offset)
    elif joint.type == PRISMATIC:
        translation = translation + rotation @ (axis * offset)
    limits = joint.limits
    bounded = limits is not None and all(math.isfinite(x) for x in limits[:2])
    kind = "prismatic" if joint.type == PRISMATIC else "revolute" if bounded else "continuous"

    name = names.joint(joint.name or f"joint{i + 1}")
    child = names.link(link.name or f"link{i + 1}")
    element = ET.SubElement(root, "joint", name=name, type=kind)
    ET.SubElement(element, "parent", link=parent)
    ET.SubElement(element, "child", link=child)
    _origin(element, rotation, translation)
    ET.SubElement(element, "axis", xyz=_vector(axis))

    velocity, effort = (limits[2], limits[3]) if limits is not None else (math.inf, math.inf)
    if kind != "continuous" or math.isfinite(velocity) or math.isfinite(effort):
        attributes = {}
        if kind != "continuous":
            lower, upper = limits[:2] if bounded else (-UNBOUNDED, UNBOUNDED)
            attributes.update(lower=_f(lower), upper=_f(upper))
        missing = [k for k, v in (("velocity", velocity), ("effort", effort))
                   if not math.isfinite(v)]
        attributes.update(velocity=_f(UNBOUNDED if "velocity" in missing else velocity),
                          effort=_f(UNBOUNDED if "effort" in missing else effort))
        ET.SubElement(element, "limit", **attributes)
        unknown = (["position"] if kind == "prismatic" and not bounded else []) + missing
        if unknown:
            notes.append(f"joint {name}: no {', '.join(unknown)} limit in the model; "
                         f"{UNBOUNDED:g} stands for none")
    viscous, coulomb = float(link.friction.viscous), float(link.friction.coulomb)
    if viscous or coulomb:
        ET.SubElement(element, "dynamics", damping=_f(viscous), friction=_f(coulomb))
    return name, child


def _link(root, link, name) -> None:
    """Append the ``<link>`` with the body's ``<inertial>`` (its point masses folded in:
    one body of the total mass at the common centre of mass, :func:`folded`)."""
    inertial = folded(link).inertial
    element = ET.SubElement(root, "link", name=name)
    body = ET.SubElement(element, "inertial")
    ET.SubElement(body, "origin", xyz=_vector(inertial.com), rpy="0 0 0")
    ET.SubElement(body, "mass", value=_f(inertial.mass))
    tensor = np.array(inertial.inertia, dtype=float)
    tensor = (tensor + tensor.T) / 2
    ET.SubElement(body, "inertia", **{
        f"i{a}{b}": _f(tensor[r, c])
        for a, b, r, c in (("x", "x", 0, 0), ("x", "y", 0, 1), ("x", "z", 0, 2),
                           ("y", "y", 1, 1), ("y", "z", 1, 2), ("z", "z", 2, 2))
    })


def _origin(element, rotation: np.ndarray, translation: np.ndarray) -> None:
    ET.SubElement(element, "origin", xyz=_vector(translation), rpy=_vector(matrix_rpy(rotation)))


def axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues: ``R = cos a 1 + sin a [k]x + (1 - cos a) k k^T`` for a unit axis ``k``."""
    k = np.asarray(axis, dtype=float)
    c, s = math.cos(angle), math.sin(angle)
    cross = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return c * np.eye(3) + s * cross + (1 - c) * np.outer(k, k)


def matrix_rpy(rotation) -> np.ndarray:
    """URDF ``(roll, pitch, yaw)`` of a rotation matrix, ``R = Rz(yaw) Ry(pitch) Rx(roll)``
    (the inverse of :func:`~robodyn.model.urdf.rpy_matrix`).

    Robust at and near gimbal lock (``|pitch| = pi/2``): ``yaw = atan2(R10, R00)`` is
    taken first (any value is exact when ``cos(pitch) = 0``), then removed,
    ``R' = Rz(-yaw) R = Ry(pitch) Rx(roll)``, whose entries give
    ``pitch = atan2(-R'20, R'00)`` and ``roll = atan2(-R'12, R'11)`` from entries of
    size one, so ``rpy_matrix(matrix_rpy(R))`` equals ``R`` to rounding even where
    ``cos(pitch)`` is tiny and ``roll``, ``yaw`` alone are ill-defined."""
    r = np.asarray(rotation, dtype=float)
    yaw = math.atan2(r[1, 0], r[0, 0])
    cy, sy = math.cos(yaw), math.sin(yaw)
    unyawed = np.array([[cy, sy, 0.0], [-sy, cy, 0.0], [0.0, 0.0, 1.0]]) @ r
    pitch = math.atan2(-unyawed[2, 0], unyawed[0, 0])
    roll = math.atan2(-unyawed[1, 2], unyawed[1, 1])
    return np.array([roll, pitch, yaw])


def _up_rotation(up: np.ndarray) -> np.ndarray:
    """The rotation taking the unit vector ``up`` to ``+z`` (about ``up x z``; a half
    turn about ``x`` when ``up = -z``)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(up, z)
    s, c = float(np.linalg.norm(axis)), float(up @ z)
    if s < 1e-15:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    return axis_rotation(axis / s, math.atan2(s, c))


def _f(x) -> str:
    """A float as the shortest text that reads back as the same number: ``repr``, with
    whole numbers below 1e15 written as integers (``1``, ``1000000000``, ``0`` for -0.0)."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _vector(values) -> str:
    return " ".join(_f(x) for x in values)


def _comment_text(text: str) -> str:
    """Text safe inside ``<!-- -->``: no ``--`` (``---`` becomes ``- - -``), control
    characters as ``<U+XXXX>``."""
    return re.sub(r"-(?=-)", "- ", visible(text))


class _Names:
    """Unique link and joint names (URDF needs them unique): a taken name gets ``_2``,
    ``_3``, ..."""

    def __init__(self):
        self.taken: dict[str, set[str]] = {"link": set(), "joint": set()}

    def _unique(self, kind: str, name: str) -> str:
        taken = self.taken[kind]
        name = visible(name)  # XML 1.0 cannot hold most control characters at all
        out, k = name, 2
        while out in taken:
            out, k = f"{name}_{k}", k + 1
        taken.add(out)
        return out

    def link(self, name: str) -> str:
        return self._unique("link", name)

    def joint(self, name: str) -> str:
        return self._unique("joint", name)


__all__ = ["UNBOUNDED", "axis_rotation", "chain_to_urdf", "matrix_rpy"]
