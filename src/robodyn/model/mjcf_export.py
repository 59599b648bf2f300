"""A numeric chain written as a MuJoCo MJCF file (``robot.to_mjcf()``).

The file holds the chain with every parameter value bound, as MuJoCo's compiler and
:func:`robodyn.model.mjcf.load_mjcf` read it:

* one ``<body>`` per link, nested as the tree is (``chain.parent``), at the joint's
  placement in its parent's body (``pos``, ``quat`` as ``w x y z``). MJCF's ``q = 0`` is
  the body's placement, robodyn's is motion by the joint's ``offset``, so the offset is
  folded into the placement as :mod:`~robodyn.model.urdf_export` folds it into
  ``<origin>``: the file's joint values are this robot's ``q``;
* the body's joint at its origin: ``hinge`` (revolute) or ``slide`` (prismatic) about
  ``axis``, with ``range`` where the model has limits, ``damping`` (the viscous
  friction), ``frictionloss`` (the Coulomb friction) and ``armature`` (the motor inertia
  ``G^2 J_m``: MuJoCo adds it to the diagonal of ``M`` as robodyn does); ``ball``
  (spherical: MuJoCo's ``qpos`` is the quaternion ``w x y z`` where robodyn stores
  ``x y z w``, ``qvel`` the angular velocity in the body frame as robodyn's; its
  ``damping``, ``frictionloss`` and ``armature`` act on each of its 3 dofs, in both); ``free``
  (a free-flying body: MJCF puts free joints on bodies of ``<worldbody>`` only; MuJoCo's
  ``qpos`` is ``x y z`` and the quaternion ``w x y z``, its ``qvel`` the linear velocity in
  the world frame and the angular velocity in the body frame, where robodyn's ``v`` has
  both in the body frame);
* ``<inertial>``: the mass, the centre of mass and the full tensor about it
  (``fullinertia``), the bodies of :func:`~robodyn.model.urdf_export.writable_chain`
  (point masses folded in; a body MuJoCo would refuse as not physical written as the
  nearest one that is, said in a comment);
* every named frame (``chain.frames``) and the end-effector frame (``tool``, when
  ``chain.tip`` is not the identity) as a ``<site>`` on its body;
* ``<option gravity>``: the chain's gravity, in the world (base) frame;
* each joint coupling ``q_j = multiplier q_s + offset`` (URDF ``<mimic>``, MJCF
  ``<equality joint>``) as ``<equality><joint joint1=j joint2=s polycoef="offset multiplier
  0 0 0">`` (the file's joints have ``ref`` 0, so MuJoCo's ``y - y0 = c0 + c1 (x - x0)`` is
  the coupling), read back coupled by :func:`~robodyn.model.mjcf.load_mjcf`;
* each loop closure (``chain.closures.loops``) as ``<equality><connect site1 site2>``
  (``position``; also ``planar``, whose third row a planar mechanism keeps constant) or
  ``<weld site1 site2>`` (``pose``) between sites at its two frames (``base``: the world's
  origin; a link: its body's origin), MuJoCo's default ``solref``/``solimp`` (a soft
  constraint: make it stiffer in MuJoCo to approach robodyn's rigid closure), read back as
  the same closures by :func:`~robodyn.model.mjcf.load_mjcf`; the actuated joints of a
  closed mechanism as ``<actuator><motor joint>`` (how the reader knows them).

A body changed where the dynamics feel it (the PUMA 560's link 3) is also said in a
:class:`~robodyn.core.errors.UrdfWarning`, as ``to_urdf`` says it.

Joint velocity and effort limits have no place in MJCF's joints (they belong to
actuators) and are left out, said in a comment. Names are the chain's (made unique,
control characters as ``<U+XXXX>``; ElementTree escapes ``& < > "``); numbers are written
with ``repr``. The second line is :data:`~robodyn.model.names.MARKER`.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from ..core.errors import ModelError, UrdfWarning, warn
from .chain import PRISMATIC, REVOLUTE, Chain, Transform
from .friction import check_plain
from .joints import FREE, SPHERICAL
from .names import MARKER, visible
from .transmission import drive_notes
from .urdf_export import (
    MIN_INERTIA,
    axis_rotation,
    comment_text,
    is_identity,
    number_text,
    vector_text,
    writable_chain,
)

#: MJCF's joint type of each robodyn joint type.
MJCF_JOINTS = {REVOLUTE: "hinge", PRISMATIC: "slide", SPHERICAL: "ball", FREE: "free"}


def chain_to_mjcf(chain: Chain, name: str, comment: str = "") -> str:
    """The MJCF text of a numeric ``chain`` (every number a float, as
    ``robot.numeric_chain``); ``comment`` heads the file. See the module docstring."""
    chain, changes = writable_chain(chain)
    names = _Names()
    root = ET.Element("mujoco", model=visible(name) or "robot")
    notes = [comment] if comment else []
    ET.SubElement(root, "compiler", angle="radian", autolimits="true",
                  inertiafromgeom="false")
    ET.SubElement(root, "option", gravity=vector_text(chain.gravity))
    world = ET.SubElement(root, "worldbody")
    bodies: list[ET.Element] = []
    rate_limits, felt, written = [], [], {}
    for i, link in enumerate(chain.links):
        parent = world if chain.parent(i) < 0 else bodies[chain.parent(i)]
        body = _body(parent, link, i, chain.parent(i), names)
        bodies.append(body)
        written[link.joint.name or link.name] = body.find("joint").get("name")
        if i in changes:
            notes.append(f"body {body.get('name')}: {changes[i][0]}")
            if changes[i][1] > 1e3 * MIN_INERTIA:  # the floors change M by 1e-12 at most
                felt.append((body.get("name"), changes[i][1]))
        limits = link.joint.limits
        if limits is not None and any(math.isfinite(float(x)) for x in limits[2:4]):
            rate_limits.append(link.joint.name or body.get("name"))
    sites = {frame.name: _site(world if frame.link < 0 else bodies[frame.link], names,
                               frame.name, frame.placement) for frame in chain.frames}
    if chain.links and not is_identity(chain.tip):
        _site(bodies[-1], names, "tool", chain.tip)
    closures = chain.closures
    if closures is not None and closures.couplings:
        equality = ET.SubElement(root, "equality")
        for c in closures.couplings:  # q_joint = multiplier q_source + offset
            ET.SubElement(equality, "joint", joint1=written[c.joint], joint2=written[c.source],
                          polycoef=f"{number_text(c.offset)} {number_text(c.multiplier)} 0 0 0")
    if closures is not None and closures.loops:
        equality = root.find("equality")
        equality = ET.SubElement(root, "equality") if equality is None else equality
        _loops(chain, closures.loops, world, bodies, sites, names, equality, notes)
    if closures is not None and closures.actuated:  # read back as the actuated joints
        actuator = ET.SubElement(root, "actuator")
        for joint in closures.actuated:
            ET.SubElement(actuator, "motor", joint=written[joint])
    notes.extend(drive_notes(chain))
    if rate_limits:
        notes.append("velocity and effort limits (MJCF: actuators' ctrlrange, forcerange) of "
                     f"{', '.join(rate_limits[:10])}{' ...' if len(rate_limits) > 10 else ''} "
                     "left out")
    if felt:
        shown = ", ".join(f"{body} +{effect:.2g} kg m^2" for body, effect in felt[:3])
        warn(UrdfWarning(f"{visible(name)}: MJCF inertia made physical: {shown}"
                         f"{' ...' if len(felt) > 3 else ''} in M (docs/defaults.md)"))
    for k, note in enumerate(notes):
        root.insert(k, ET.Comment(f" {comment_text(note)} "))
    ET.indent(root, space="  ")
    return f"<!-- {MARKER} -->\n" + ET.tostring(root, encoding="unicode") + "\n"


def _body(parent: ET.Element, link, i: int, parent_index: int, names) -> ET.Element:
    """Append the ``<body>`` of ``link`` (chain index ``i``) with its joint and inertial."""
    joint = link.joint
    label = joint.name or link.name or f"joint{i + 1}"
    rotation = np.array(joint.placement.rotation, dtype=float)
    translation = np.array(joint.placement.translation, dtype=float)
    axis = np.array(joint.axis, dtype=float)
    offset = float(joint.offset)
    if joint.type == REVOLUTE:
        rotation = rotation @ axis_rotation(axis, offset)
    elif joint.type == PRISMATIC:
        translation = translation + rotation @ (axis * offset)
    elif joint.type == FREE and (parent_index >= 0 or not is_identity(joint.placement)):
        raise ModelError(f"to_mjcf: free joint {label!r} moves link {link.name!r} "
                         f"{'below another link' if parent_index >= 0 else 'from a placement'}"
                         "; MJCF puts free joints on bodies of <worldbody> only, at the "
                         "world's origin (a free-flying base, a free object)")
    attributes = {"name": names.body(link.name or f"link{i + 1}")}
    if translation.any():
        attributes["pos"] = vector_text(translation)
    if not np.array_equal(rotation, np.eye(3)):
        attributes["quat"] = vector_text(_quaternion(rotation))
    body = ET.SubElement(parent, "body", **attributes)

    kind = MJCF_JOINTS[joint.type]
    spec = {"name": names.joint(label), "type": kind}
    if kind in ("hinge", "slide"):
        spec["axis"] = vector_text(axis)
        limits = joint.limits
        if limits is not None and all(math.isfinite(float(x)) for x in limits[:2]):
            spec["range"] = vector_text(limits[:2])
    check_plain(link.friction, f"to_mjcf: joint {label!r}", "MJCF")
    viscous, coulomb = float(link.friction.viscous), float(link.friction.coulomb)
    armature = float(link.motor.armature)
    if kind == "free" and (viscous or coulomb or armature):
        raise ModelError(f"to_mjcf: joint {label!r} ({joint.type}) has friction or armature, "
                         "which robodyn's floating base does not model; remove it "
                         "(robot.without_friction())")
    for key, value in (("damping", viscous), ("frictionloss", coulomb),
                       ("armature", armature)):
        if value:
            spec[key] = number_text(value)
    ET.SubElement(body, "joint", **spec)
    inertial = link.inertial
    tensor = np.array(inertial.inertia, dtype=float)
    tensor = (tensor + tensor.T) / 2
    ET.SubElement(body, "inertial", pos=vector_text(inertial.com), mass=number_text(inertial.mass),
                  fullinertia=vector_text([tensor[0, 0], tensor[1, 1], tensor[2, 2],
                                       tensor[0, 1], tensor[0, 2], tensor[1, 2]]))
    return body


def _loops(chain: Chain, loops, world, bodies, sites: dict, names, equality, notes) -> None:
    """Each loop closure as an ``<equality>`` between two sites: ``<weld>`` for a ``pose``
    closure, ``<connect>`` for a ``position`` one and for a ``planar`` one (MuJoCo has no
    planar connect: its third row, the z of the two frames, is constant in a mechanism
    whose joints turn about z, and 0 where the two frames are at one height, as in the
    built-ins; MuJoCo would pull frames at different heights together). A frame that has
    no site yet (the ``base``, a link's own frame) gets one at its origin."""
    links = {link.name: i for i, link in enumerate(chain.links)}
    for loop in loops:
        ends = []
        for end in (loop.frame_a, loop.frame_b):
            if end not in sites:
                body = bodies[links[end]] if end in links else world  # else: "base"
                sites[end] = _site(body, names, end, Transform())
            ends.append(sites[end])
        tag = "weld" if loop.kind == "pose" else "connect"
        ET.SubElement(equality, tag, name=visible(loop.name) or tag, site1=ends[0],
                      site2=ends[1])
        if loop.kind == "planar":
            notes.append(f"loop {visible(loop.name)!r} (planar) written as <connect>, which "
                         "also joins the two frames in z: they must be at one height")


def _site(body: ET.Element, names, name: str, placement) -> str:
    attributes = {"name": names.site(name)}
    translation = np.array(placement.translation, dtype=float)
    rotation = np.array(placement.rotation, dtype=float)
    if translation.any():
        attributes["pos"] = vector_text(translation)
    if not np.array_equal(rotation, np.eye(3)):
        attributes["quat"] = vector_text(_quaternion(rotation))
    ET.SubElement(body, "site", **attributes)
    return attributes["name"]


def _quaternion(rotation: np.ndarray) -> np.ndarray:
    """The unit quaternion ``(w, x, y, z)`` of a rotation matrix (Shepperd's method: the
    largest of ``w, x, y, z`` first, no square root of a small number), ``w >= 0``."""
    r = rotation
    trace = np.trace(r)
    candidates = [trace, r[0, 0], r[1, 1], r[2, 2]]
    k = int(np.argmax(candidates))
    if k == 0:
        w = math.sqrt(1 + trace) / 2
        q = [w, (r[2, 1] - r[1, 2]) / (4 * w), (r[0, 2] - r[2, 0]) / (4 * w),
             (r[1, 0] - r[0, 1]) / (4 * w)]
    else:
        i, j, m = (k - 1, k % 3, (k + 1) % 3)
        s = math.sqrt(1 + r[i, i] - r[j, j] - r[m, m]) * 2
        q = [0.0] * 4
        q[0] = (r[m, j] - r[j, m]) / s
        q[1 + i] = s / 4
        q[1 + j] = (r[j, i] + r[i, j]) / s
        q[1 + m] = (r[m, i] + r[i, m]) / s
    q = np.array(q)
    q = q / np.linalg.norm(q)
    return -q if q[0] < 0 else q


class _Names:
    """Unique names per kind (MJCF requires them unique among bodies, joints, sites)."""

    def __init__(self):
        self.used: dict[str, set[str]] = {"body": {"world"}, "joint": set(), "site": set()}

    def _unique(self, kind: str, name: str) -> str:
        base = visible(str(name)) or kind
        out, k = base, 1
        while out in self.used[kind]:
            k += 1
            out = f"{base}_{k}"
        self.used[kind].add(out)
        return out

    def body(self, name: str) -> str:
        return self._unique("body", name)

    def joint(self, name: str) -> str:
        return self._unique("joint", name)

    def site(self, name: str) -> str:
        return self._unique("site", name)


__all__ = ["chain_to_mjcf", "MJCF_JOINTS"]
