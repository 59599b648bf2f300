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
models of revolute and prismatic joints). The body forms of ``connect``/``weld`` (``body1``/
``anchor``, whose second point MuJoCo places at ``qpos0``) and tendons are not read yet (a
note names them).
"""

from __future__ import annotations

from ..core.errors import ModelError
from .loops import Closures, Coupling, LoopClosure, checked_closures, joint_names
from .mjcf_xml import MjcfElement

#: The equality elements read, and the closure each makes.
_KINDS = {"connect": "position", "weld": "pose"}
#: MuJoCo's default ``polycoef``.
_POLYCOEF = (0.0, 1.0, 0.0, 0.0, 0.0)


def is_site_closure(node: MjcfElement) -> bool:
    """``node`` is a ``<connect>`` or ``<weld>`` between two sites (read here)."""
    return node.tag in _KINDS and "site1" in node.attrib and "site2" in node.attrib


def is_read(node: MjcfElement, mimic: str = "coupled") -> bool:
    """``node`` (a child of ``<equality>``) is read here: a site closure, or a joint
    equality when couplings are read (``mimic="coupled"``)."""
    return is_site_closure(node) or (node.tag == "joint" and mimic == "coupled")


def equality_closures(root: MjcfElement, chain, source: str, defaults=None,
                      mimic: str = "coupled") -> tuple[Closures | None, list[str]]:
    """The closures of ``root``'s ``<equality>`` sections (None: none), checked against
    ``chain``, and notes on what was left out; a site named like a body is the frame
    ``site:NAME``. ``defaults``: the model's ``<default>`` classes (class -> tag ->
    attributes), for an equality's ``active``."""
    names = {f.name for f in chain.frames}
    loops, couplings, notes, actuated = [], [], [], []
    for section in root.children:
        if section.tag != "equality":
            continue
        for node in section.children:
            if is_site_closure(node):
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
        return None, notes
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
    return checked_closures(chain, closures, source), notes


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
