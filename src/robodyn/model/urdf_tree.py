"""The tree of a URDF file's links and joints, and the model's links made from it: the
joints above and below each link, the base and tip chosen, the moving joints of the chain or
tree in order, and each moving link's bodies merged (what :func:`~robodyn.model.urdf.load_urdf`
does after reading the XML; its docstring says what is merged, locked and checked).

The records come from :mod:`robodyn.model.urdf` (:class:`UrdfJoint`, one per ``<joint>``;
a :class:`~robodyn.model.file_values.Body` per ``<inertial>``); the walk is linear in the
number of links and joints.
"""

from __future__ import annotations

import heapq
import warnings
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError, PhysicalConsistencyWarning, UrdfWarning, warn
from .chain import PRISMATIC, REVOLUTE, Friction, Inertial, Joint, Link, Transform
from .checks import check_inertia
from .file_values import listing as _listing
from .file_values import merge as _merge
from .file_values import number as _number
from .file_values import numbers as _numbers
from .file_values import quote as _q
from .file_values import rotation as _rotation
from .joints import FREE

#: URDF joint types that move, and the chain joint type each becomes.
#: URDF's moving joint types and robodyn's joint models (a ``floating`` joint is a ``free``
#: one, as Pinocchio's ``JointModelFreeFlyer``).
MOVING_TYPES = {"revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC,
                "floating": FREE}
#: URDF joint types robodyn does not read.
UNSUPPORTED_TYPES = ("planar",)


@dataclass(frozen=True)
class UrdfJoint:
    """A ``<joint>`` of the file as read: its type, the links it joins, ``origin`` (4x4,
    the child (joint) frame in the parent link frame), unit ``axis``, ``limits``
    ``(lower, upper, velocity, effort)``, ``<dynamics damping friction>`` and whether it
    its ``<mimic>`` as ``(joint, multiplier, offset)`` (None: none)."""

    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray  # 4x4, the child (joint) frame in the parent link frame
    axis: np.ndarray
    limits: tuple | None
    damping: float
    friction: float
    mimic: tuple | None


# -- the tree --------------------------------------------------------------------------
def choose_base(source, frames, parent_joint, base):
    """``base`` checked (a link of the file), or by default the root link: the one link
    without a parent joint (none, a loop, or several are an error)."""
    if base is not None:
        if base not in frames:
            raise ModelError(f"{source}: base={_q(base)} is not a link of the file; links: "
                             f"{_listing(frames)}")
        return base
    roots = [link for link in frames if link not in parent_joint]
    if len(roots) == 1:
        return roots[0]
    if not roots:
        raise ModelError(f"{source}: every link has a parent: the joints form a kinematic loop; "
                         "URDF describes trees only")
    raise ModelError(f"{source}: several root links ({_listing(roots)}); pass base=... to "
                     "choose the one fixed to the world")


def check_acyclic(source, frames, parent_joint):
    """No link is its own ancestor: going up from every link by its parent joint ends at
    a root (else a :class:`ModelError` naming the links of the loop); linear time."""
    done: set[str] = set()
    for start in frames:
        seen: dict[str, int] = {}  # link -> its place on this walk (a dict: linear time)
        link = start
        while link in parent_joint and link not in done:
            if link in seen:
                loop = list(seen)[seen[link]:]
                raise ModelError(f"{source}: the joints form a kinematic loop through links "
                                 f"{_listing(loop)}; URDF describes trees only")
            seen[link] = len(seen)
            link = parent_joint[link].parent
        done.update(seen)


def links_under(base: str, child_joints) -> list[str]:
    """``base`` and every link below it, depth first, each link's joints in the file's
    order: parents before children."""
    out, stack = [], [base]
    while stack:
        link = stack.pop()
        out.append(link)
        stack.extend(j.child for j in reversed(child_joints[link]))
    return out


def choose_tip(source, frames, subtree, child_joints, base, tip):
    """``(tip, ends)``: ``tip`` checked, or the default, decided on the tree of movable
    joints under ``base``: a movable joint's child is an *end* when no movable joint lies
    below it (links hung on ``fixed`` joints are merged bodies, not ends). With one end,
    the tip is that end, or the leaf of the fixed bodies below it when they form a single
    path (a lone ``tool`` frame); with several (the movable tree branches) it is ``None``:
    the whole tree. ``ends`` lists them (empty when ``tip`` is given)."""
    if tip is not None:
        if tip not in frames:
            raise ModelError(f"{source}: tip={_q(tip)} is not a link of the file; links: "
                             f"{_listing(frames)}")
        return tip, []
    below = _movable_below(subtree, child_joints)
    ends = [joint.child for link in subtree for joint in child_joints[link]
            if joint.type != "fixed" and not below[joint.child]]
    if len(ends) == 1:
        link = ends[0]
        while len(child_joints[link]) == 1:
            link = child_joints[link][0].child
        return (link if not child_joints[link] else ends[0]), ends
    if not ends:
        raise ModelError(f"{source}: no movable joint (revolute, continuous, prismatic) under "
                         f"{_q(base)}; nothing moves, so there is no chain to load")
    return None, ends


def _movable_below(subtree, child_joints) -> dict[str, bool]:
    """For each link of ``subtree``: whether a non-fixed joint lies below it."""
    below: dict[str, bool] = {}
    for link in reversed(subtree):  # children come after their parent in ``subtree``
        below[link] = any(joint.type != "fixed" or below[joint.child]
                          for joint in child_joints[link])
    return below


def joints_between(source, parent_joint, base, tip) -> list[UrdfJoint]:
    """The joints from ``base`` to ``tip``, in that order."""
    joints, link = [], tip
    while link != base:
        joint = parent_joint.get(link)
        if joint is None:
            raise ModelError(f"{source}: base {_q(base)} is not an ancestor of tip {_q(tip)} "
                             f"(the root above {_q(tip)} is {_q(link)}); pass a base on the way "
                             "from the root to the tip")
        joints.append(joint)
        link = joint.parent
    return joints[::-1]


# -- checks ----------------------------------------------------------------------------------
def check_bodies(source, frames, bodies, owner, what: str, floating: bool) -> None:
    """Every ``<inertial>`` merged into a link of the model (``owner >= 0``; with
    ``floating`` also the base's, ``owner == -1``) must be physical (:func:`check_inertia`,
    else :class:`ModelError`); those that are not used get one :class:`UrdfWarning` naming
    the non-physical ones. ``what``: the model, for the warning (``the tree under 'x'``)."""
    unused = []
    for link in frames:
        body = bodies[link]
        if body is None:
            continue
        where = f"link {_q(link)} <inertial>"
        used = owner.get(link, -1) >= 0 or (floating and link in owner)
        with warnings.catch_warnings():
            # a planar-style tensor is reported once, for the merged chain link
            warnings.simplefilter("ignore", PhysicalConsistencyWarning)
            try:
                check_inertia(body.mass, body.inertia, mass_field=f"{source}: {where} <mass "
                              "value>", inertia_field=f"{source}: {where} <inertia>")
            except ModelError as exc:
                if used:
                    raise
                unused.append((link, exc))
    if unused:
        names = [link for link, _ in unused]
        warn(UrdfWarning(
            f"{source}: {len(unused)} link(s) outside {what} "
            f"have a non-physical <inertial> and are not used: {_listing(names, 5)} (first: "
            f"{str(unused[0][1]).removeprefix(source + ': ')})"), )


# -- the chain in the tree ---------------------------------------------------------
def link_joints(source: str, frames, joints: list[UrdfJoint]):
    """``(child_joints, parent_joint)``: the joints below each link, the joint above each
    link; a link with two parents (a kinematic loop) is an error."""
    child_joints: dict[str, list[UrdfJoint]] = {link: [] for link in frames}
    parent_joint: dict[str, UrdfJoint] = {}
    for joint in joints:
        if joint.child in parent_joint:
            other = parent_joint[joint.child]
            raise ModelError(
                f"{source}: link {_q(joint.child)} has two parents (joints {_q(other.name)} and "
                f"{_q(joint.name)}): a kinematic loop; URDF describes trees only, remove one joint"
            )
        parent_joint[joint.child] = joint
        child_joints[joint.parent].append(joint)
    return child_joints, parent_joint


def moving_joints_on_path(source: str, path_joints: list[UrdfJoint], base: str,
                          tip: str) -> list[UrdfJoint]:
    """The moving joints of the path from ``base`` to ``tip``, checked: no unsupported
    type, no ``<mimic>``, at least one."""
    for joint in path_joints:
        if joint.type in UNSUPPORTED_TYPES:
            raise ModelError(
                f"{source}: joint {_q(joint.name)}: type {_q(joint.type)} on the chain from "
                f"{_q(base)} to {_q(tip)} is not supported; robodyn reads revolute, continuous, "
                f"prismatic, floating and fixed joints (pass base=... to start the chain after "
                "it)"
            )
        if joint.mimic and joint.type in MOVING_TYPES:
            raise ModelError(
                f"{source}: joint {_q(joint.name)}: a <mimic> joint on the chain from "
                f"{_q(base)} to {_q(tip)} is not supported; every joint of the chain must move "
                "on its own"
            )
    chain_joints = [j for j in path_joints if j.type in MOVING_TYPES]
    if not chain_joints:
        raise ModelError(
            f"{source}: no revolute, continuous or prismatic joint between base {_q(base)} and tip "
            f"{_q(tip)}; choose base and tip with moving joints between them"
        )
    return chain_joints


def moving_joints_under(source: str, subtree: list[str], child_joints, base: str,
                        file_order: dict[str, int]) -> list[UrdfJoint]:
    """Every moving joint under ``base``, parents before children, else in file order
    (Kahn's topological order, the earliest joint in the file first among those whose
    parent joint is placed); an unsupported type under the base is an error."""
    above: dict[str, str | None] = {base: None}  # the moving joint above each link
    below: dict[str | None, list[UrdfJoint]] = {None: []}
    for link in subtree:  # parents come before children in ``subtree``
        for joint in child_joints[link]:
            if joint.type in UNSUPPORTED_TYPES:
                raise ModelError(
                    f"{source}: joint {_q(joint.name)}: type {_q(joint.type)} under {_q(base)} "
                    "is not supported; robodyn reads revolute, continuous, prismatic, floating "
                    "and fixed joints (pass base=... to start after it, or tip=... for one "
                    "chain)"
                )
            if joint.type in MOVING_TYPES:
                below.setdefault(above[link], []).append(joint)
                below[joint.name] = []
                above[joint.child] = joint.name
            else:
                above[joint.child] = above[link]
    ready = [(file_order[j.name], j.name, j) for j in below[None]]
    heapq.heapify(ready)
    out = []
    while ready:
        _, _, joint = heapq.heappop(ready)
        out.append(joint)
        for child in below[joint.name]:
            heapq.heappush(ready, (file_order[child.name], child.name, child))
    return out


def walk_tree(base: str, child_joints, chain_joints: list[UrdfJoint]):
    """Walk the tree under the base: ``(owner, pose, placements, locked)``, each link's
    owner (the index of the chain link whose body it joins, -1 for the fixed base) and
    pose in the owner's frame, each chain joint's placement, the moving joints off the
    chain (held at q = 0, where a joint is its origin)."""
    index = {joint.name: k for k, joint in enumerate(chain_joints)}
    owner: dict[str, int] = {base: -1}
    pose: dict[str, np.ndarray] = {base: np.eye(4)}
    placements: dict[int, np.ndarray] = {}
    locked: list[str] = []
    stack = [base]
    while stack:
        link = stack.pop()
        for joint in child_joints[link]:
            if joint.name in index:
                owner[joint.child] = k = index[joint.name]
                placements[k] = pose[link] @ joint.origin
                pose[joint.child] = np.eye(4)
            else:
                if joint.type != "fixed":
                    locked.append(joint.name)
                owner[joint.child] = owner[link]
                pose[joint.child] = pose[link] @ joint.origin
            stack.append(joint.child)
    return owner, pose, placements, locked


def chain_link(source: str, joint: UrdfJoint, members: list[str], bodies, pose, placement,
                parent_joint, allow_massless: bool) -> Link:
    """The chain link of moving ``joint``: the bodies of its ``members`` merged in its
    frame (a moving member without ``<inertial>`` only with ``allow_massless``)."""
    for link in members:
        moved_by = parent_joint[link]
        if bodies[link] is None and moved_by.type != "fixed" and not allow_massless:
            raise ModelError(
                f"{source}: link {_q(link)} has no <inertial> but is moved by joint "
                f"{_q(moved_by.name)}; give it <inertial> (mass, origin, inertia), or pass "
                "allow_massless=True to treat it as massless"
            )
    mass, com, inertia = _merge(
        [(pose[link], bodies[link]) for link in members if bodies[link] is not None]
    )
    return Link(
        name=joint.child,
        joint=Joint(
            type=MOVING_TYPES[joint.type],
            axis=_numbers(joint.axis),
            placement=Transform(_rotation(placement[:3, :3]), _numbers(placement[:3, 3])),
            name=joint.name,
            limits=joint.limits,
        ),
        inertial=Inertial(_number(mass), _numbers(com), _numbers(inertia)),
        friction=Friction(_number(joint.damping), _number(joint.friction)),
    )
