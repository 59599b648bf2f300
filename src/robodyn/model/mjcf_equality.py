"""MJCF ``<equality>`` read as loop closures and joint couplings (:mod:`robodyn.model.loops`).

``<connect site1= site2=>`` is a ``position`` closure of the two sites' frames and
``<weld site1= site2=>`` a ``pose`` closure (MuJoCo's documentation of ``<equality>``: with
sites, the two frames are to coincide). The joints ``<actuator>`` elements drive
(``joint=``) are the actuated ones. MuJoCo keeps these constraints out of ``M`` and the bias
(they act through its constraint solver, softly), so the robot's own methods stay the tree's,
as MuJoCo's ``mj_fullM`` and ``qfrc_bias``; ``robot.closed_chain()`` gives the rigid closed
mechanism.

``<joint joint1= joint2= polycoef="c0 c1 c2 c3 c4">`` is, in MuJoCo's documentation of
``<equality>/<joint>``, the constraint

    y - y0 = c0 + c1 (x - x0) + c2 (x - x0)^2 + c3 (x - x0)^3 + c4 (x - x0)^4

with ``y`` joint1's ``qpos``, ``x`` joint2's and ``y0``, ``x0`` their ``qpos0`` (the joints'
``ref``). A linear one (``c2 = c3 = c4 = 0``, the default ``polycoef`` is ``0 1 0 0 0``) is
the :class:`~robodyn.model.loops.Coupling` (the URDF ``<mimic>``'s mechanism,
:mod:`robodyn.codegen.coupled`)

    y = c1 x + (y0 + c0 - c1 x0),

so joint1 leaves the coordinates (``robot.dof`` counts the others) and the robot's methods
are the rigid coupled mechanism's, the limit MuJoCo's soft constraint approaches as it is
made stiff. ``mimic="independent"`` keeps the tree (MuJoCo's own ``mj_fullM``) with a note.
A higher polynomial, a joint held fixed (no ``joint2``) or a joint of several values is
refused naming the element and its line; ``active="false"`` constraints are left out with a
note, as is a coupling in a model with ball or free joints (couplings join the joints of
models of revolute and prismatic joints). Tendons are not read (a note names them).

The body forms close the same loops between two new frames, named ``NAME:body1`` and
``NAME:body2`` (``NAME`` the element's ``name``, else ``connect1``, ``weld2``, ...), placed as
MuJoCo's compiler places its two points (its documentation of ``<equality>``; the model's
reference pose ``qpos0`` is the one written, every joint at its ``ref``):

* ``<connect body1= body2= anchor=>``: the point ``anchor`` of body1 and the point of body2
  that coincides with it at ``qpos0`` (body2 omitted: the world);
* ``<weld body1= body2= anchor= relpose=>``: the frame at body2's point ``anchor`` and the
  frame of body1 that coincides with it at ``qpos0``; with a ``relpose`` (position,
  quaternion ``w x y z``, not all zero) body2's pose in body1's, the frame of body1 at the
  ``relpose`` position turned by its quaternion. ``torquescale`` weighs MuJoCo's soft
  rotation rows; the rigid closure has none.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core.errors import ModelError
from .chain import Frame
from .loops import Closures, Coupling, LoopClosure, checked_closures, joint_names
from .mjcf_compiler import as_transform, attribute_floats, quaternion_matrix, translation
from .mjcf_xml import MjcfElement

#: The equality elements read, and the closure each makes.
_KINDS = {"connect": "position", "weld": "pose"}
#: MuJoCo's default ``polycoef``.
_POLYCOEF = (0.0, 1.0, 0.0, 0.0, 0.0)


def is_site_closure(node: MjcfElement) -> bool:
    """``node`` is a ``<connect>`` or ``<weld>`` between two sites (read here)."""
    return node.tag in _KINDS and "site1" in node.attrib and "site2" in node.attrib


def is_body_closure(node: MjcfElement) -> bool:
    """``node`` is a ``<connect>`` or ``<weld>`` between bodies (``body1=``)."""
    return node.tag in _KINDS and "body1" in node.attrib and "site1" not in node.attrib


def is_read(node: MjcfElement, mimic: str = "coupled") -> bool:
    """``node`` (a child of ``<equality>``) is read here: a site or body closure, or a
    joint equality when couplings are read (``mimic="coupled"``)."""
    return (is_site_closure(node) or is_body_closure(node)
            or (node.tag == "joint" and mimic == "coupled"))


def equality_closures(root: MjcfElement, chain, source: str, defaults=None,
                      mimic: str = "coupled", bodies=None
                      ) -> tuple[Closures | None, list[str], tuple[Frame, ...]]:
    """The closures of ``root``'s ``<equality>`` sections (None: none), checked against
    ``chain``, and notes on what was left out; a site named like a body is the frame
    ``site:NAME``. ``defaults``: the model's ``<default>`` classes (class -> tag ->
    attributes), for an equality's ``active``. ``bodies``: each body's ``(link, frame in
    the link, pose as written)`` (``MjcfModel.body_frames``), for the body forms; the frames
    they add to the chain are returned third."""
    names = {f.name for f in chain.frames}
    loops, couplings, notes, actuated, frames = [], [], [], [], []
    for section in root.children:
        if section.tag != "equality":
            continue
        for node in section.children:
            if is_body_closure(node):
                name = node.attrib.get("name") or f"{node.tag}{len(loops) + 1}"
                pair = _body_frames(node, name, bodies or {}, names)
                frames.extend(pair)
                names.update(f.name for f in pair)
                loops.append(LoopClosure(name, pair[0].name, pair[1].name, _KINDS[node.tag]))
            elif is_site_closure(node):
                a, b = (f"site:{s}" if f"site:{s}" in names else s
                        for s in (node.attrib["site1"], node.attrib["site2"]))
                loops.append(LoopClosure(node.attrib.get("name") or
                                         f"{node.tag}{len(loops) + 1}", a, b,
                                         _KINDS[node.tag]))
            elif node.tag == "joint" and mimic == "coupled":
                coupling = _coupling(node, chain, defaults or {}, notes)
                if coupling is not None:
                    couplings.append(coupling)
    if not (loops or couplings):
        return None, notes, ()
    joints = set(joint_names(chain))
    for section in root.children:
        if section.tag == "actuator":
            for node in section.children:
                joint = node.attrib.get("joint")
                if joint in joints and joint not in actuated:
                    actuated.append(joint)
    if couplings:
        coupled = {c.joint for c in couplings}
        actuated = [j for j in actuated if j not in coupled]
        notes.append(f"{len(couplings)} <equality joint> coupling(s) applied (robot.dof counts "
                     "the independent joints; mimic='independent' keeps MuJoCo's tree): " +
                     ", ".join(f"{c.joint} = {c.multiplier:g} {c.source} + {c.offset:g}"
                               for c in couplings[:5]) + (" ..." if len(couplings) > 5 else ""))
    closures = Closures(tuple(loops), tuple(couplings), tuple(actuated))
    if frames:
        chain = replace(chain, frames=(*chain.frames, *frames))
    return checked_closures(chain, closures, source), notes, tuple(frames)


def _body_frames(node: MjcfElement, name: str, bodies, taken: set[str]) -> tuple[Frame, Frame]:
    """The two frames a body-form ``<connect>``/``<weld>`` joins (module docstring)."""
    ends = []
    for key in ("body1", "body2"):
        body = node.attrib.get(key, "world")
        if body == "world":
            ends.append((-1, np.eye(4), np.eye(4)))
        elif body in bodies:
            ends.append(bodies[body])
        else:
            known = ", ".join(sorted(bodies))[:300]
            raise ModelError(f"{node.where(key)}: no body named {body[:40]!r} (bodies: "
                             f"{known or 'none'})")
    (link1, frame1, world1), (link2, frame2, world2) = ends
    anchor = (attribute_floats(node, "anchor", 3) if "anchor" in node.attrib
              else np.zeros(3))
    if node.tag == "connect":  # the anchor on body1; body2's point where it is at qpos0
        on1 = translation(anchor)
        on2 = np.linalg.inv(world2) @ world1 @ on1
        on2[:3, :3] = np.eye(3)
    else:  # weld: the anchor on body2; body1's frame there at qpos0, or relpose's
        on2 = translation(anchor)
        relpose = (attribute_floats(node, "relpose", 7) if "relpose" in node.attrib
                   else np.zeros(7))
        if np.any(relpose[3:] != 0):
            on1 = translation(relpose[:3])
            on1[:3, :3] = quaternion_matrix(relpose[3:], node.where("relpose"))
        else:
            on1 = np.linalg.inv(world1) @ world2 @ on2
    out = []
    for side, link, frame, placement in (("body1", link1, frame1, on1),
                                         ("body2", link2, frame2, on2)):
        label = f"{name}:{side}"
        while label in taken:
            label += "'"
        taken = taken | {label}
        out.append(Frame(label, link, as_transform(frame @ placement)))
    return out[0], out[1]


def _coupling(node: MjcfElement, chain, defaults, notes: list[str]) -> Coupling | None:
    """The :class:`Coupling` of one ``<equality><joint>`` (None: left out, with a note)."""
    cls = node.attrib.get("class", "main")
    active = node.attrib.get("active", defaults.get(cls, {}).get("equality", {})
                             .get("active", "true"))
    if active not in ("true", "false"):
        raise ModelError(f"{node.where('active')}: {active!r} is not true or false")
    if active == "false":
        notes.append(f"{node.where()}: active=\"false\": the coupling is left out (the joints "
                     "move independently)")
        return None
    if "joint1" not in node.attrib:
        raise ModelError(f"{node.where()}: no joint1=; name the joint that follows")
    if "joint2" not in node.attrib:
        raise ModelError(f"{node.where()}: no joint2=: the constraint holds joint "
                         f"{node.attrib['joint1']!r} at a constant, which robodyn does not "
                         "model; weld its body (remove the joint) or name joint2")
    text = node.attrib.get("polycoef")
    coef = list(_POLYCOEF)
    if text is not None:
        try:
            given = [float(x) for x in text.split()]
        except ValueError:
            given = None
        if given is None or not 1 <= len(given) <= 5 or not all(
                abs(c) < float("inf") for c in given):
            raise ModelError(f"{node.where('polycoef')}: {text[:60]!r} is not 1 to 5 finite "
                             "numbers")
        coef[:len(given)] = given
    if any(c != 0 for c in coef[2:]):
        raise ModelError(f"{node.where('polycoef')}: {text!r} is a polynomial of degree > 1; "
                         "robodyn couples joints linearly only (y = c0 + c1 x): set the "
                         "polycoef's last three numbers to 0")
    names = joint_names(chain)
    refs = {}
    for key in ("joint1", "joint2"):
        name = node.attrib[key]
        if name not in names:
            raise ModelError(f"{node.where(key)}: {name[:40]!r} is not a joint of the model "
                             f"(its joints: {', '.join(names)[:300]})")
        joint = chain.links[names.index(name)].joint
        if not joint.model.single:
            raise ModelError(f"{node.where(key)}: joint {name[:40]!r} is a ball or free joint; "
                             "<equality joint> is read for hinge and slide joints")
        refs[key] = -float(joint.offset)  # the joint's ref: MuJoCo's qpos0
    if not chain.single_valued:
        notes.append(f"{node.where()}: not coupled (the model has ball or free joints; "
                     "couplings are read for models of hinge and slide joints): the joints "
                     "move independently, as in MuJoCo's M")
        return None
    y0, x0 = refs["joint1"], refs["joint2"]
    return Coupling(node.attrib["joint1"], node.attrib["joint2"], coef[1],
                    y0 + coef[0] - coef[1] * x0)
