"""MJCF ``<equality>`` read as loop closures (:mod:`robodyn.model.loops`).

``<connect site1= site2=>`` is a ``position`` closure of the two sites' frames and
``<weld site1= site2=>`` a ``pose`` closure (MuJoCo's documentation of ``<equality>``: with
sites, the two frames are to coincide). The joints ``<actuator>`` elements drive
(``joint=``) are the actuated ones. MuJoCo keeps these constraints out of ``M`` and the bias
(they act through its constraint solver, softly), so the robot's own methods stay the tree's,
as MuJoCo's ``mj_fullM`` and ``qfrc_bias``; ``robot.closed_chain()`` gives the rigid closed
mechanism. The body forms (``body1``/``anchor``, whose second point MuJoCo places at
``qpos0``), ``<equality joint>`` and tendons are not read yet (a note names them).
"""

from __future__ import annotations

from .loops import Closures, LoopClosure, checked_closures, joint_names
from .mjcf_xml import MjcfElement

#: The equality elements read, and the closure each makes.
_KINDS = {"connect": "position", "weld": "pose"}


def is_site_closure(node: MjcfElement) -> bool:
    """``node`` is a ``<connect>`` or ``<weld>`` between two sites (read here)."""
    return node.tag in _KINDS and "site1" in node.attrib and "site2" in node.attrib


def equality_closures(root: MjcfElement, chain, source: str) -> Closures | None:
    """The closures of ``root``'s ``<equality>`` sections (None: none), checked against
    ``chain``; a site named like a body is the frame ``site:NAME``."""
    names = {f.name for f in chain.frames}
    loops, actuated = [], []
    for section in root.children:
        if section.tag == "equality":
            for node in section.children:
                if is_site_closure(node):
                    a, b = (f"site:{s}" if f"site:{s}" in names else s
                            for s in (node.attrib["site1"], node.attrib["site2"]))
                    loops.append(LoopClosure(node.attrib.get("name") or
                                             f"{node.tag}{len(loops) + 1}", a, b,
                                             _KINDS[node.tag]))
    if not loops:
        return None
    joints = set(joint_names(chain))
    for section in root.children:
        if section.tag == "actuator":
            for node in section.children:
                joint = node.attrib.get("joint")
                if joint in joints and joint not in actuated:
                    actuated.append(joint)
    return checked_closures(chain, Closures(tuple(loops), (), tuple(actuated)), source)
