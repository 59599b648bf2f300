"""URDF files: the tree of moving links of a robot, or the serial chain between two of
its links, as a model source.

URDF is plain XML, read here with the standard library's
:mod:`xml.etree.ElementTree`. Only what the dynamics needs is read: links,
joints, ``<origin xyz rpy>``, ``<axis>``, ``<inertial>``, ``<limit>`` and
``<dynamics>``. Meshes, visuals, collisions, materials, transmissions and
Gazebo tags are never opened (no mesh file has to exist).

From the tree of links and joints, :func:`load_urdf` takes what hangs under ``base``
(default: the root link). The default is decided on the tree of *movable* joints under
the base (links hung on ``fixed`` joints are merged bodies, not candidate tips): when
the movable joints form one chain, that chain, whose tip is the child of its last joint
(a UR10's ``ee_link``, ``tool0`` and ``base`` frames do not count), or the leaf of the
fixed links after it when they form a single path (a lone ``tool`` frame); when the
movable tree branches (a gripper's two fingers, a humanoid's limbs), the whole tree:
every movable joint under the base is a link (``Chain.parents``), parents before
children and otherwise in the file's order, and the end-effector frame is the last
link's (the first of ``provenance.notes`` says so and names the ends of the branches).
``tip=`` selects one chain: the path from ``base`` to ``tip``; a ``tip`` behind fixed
joints (``tool0``) puts the end frame there. In a tree, ``<mimic>`` joints are loaded as
independent joints (as Pinocchio's ``buildModelFromUrdf`` does by default), with a
:class:`UrdfWarning` and a note naming them; on a chosen chain they are an error.

Every URDF link under the base that is not a moving link's own frame (a merged body, a
``tool0``, a camera, the base link itself) is a named
:class:`~robodyn.model.chain.Frame` of ``Chain.frames``: fixed to the link whose body
it joins (``-1``: the base), placed in that link's frame. ``floating=True`` keeps the
base link's body, with the bodies fixed to it, as ``Chain.floating_base`` (an
:class:`~robodyn.model.chain.Inertial` in the base link frame, Pinocchio's free-flyer
body) instead of leaving it out.

* every revolute, continuous or prismatic joint of the tree, or on the path, is a
  joint of the model (``continuous`` is a revolute joint without position limits); its link
  frame is the URDF child link frame, as in :mod:`robodyn.model.chain`;
* every other body is rigidly merged into the chain body it hangs from: links
  behind ``fixed`` joints, and the bodies behind movable joints that leave the
  path (a gripper's fingers, a branch beside the chain), which are held at
  ``q = 0`` (whatever their type) and named in ``robot.locked``, in file order.
  Bodies beyond the tip merge into the last moving link. Bodies that hang from
  the base without a moving joint in between do not move and are left out. A
  merge adds masses, moves the centre of mass to the mass-weighted mean and adds
  the inertias about it (parallel-axis theorem), all in the receiving link frame;
* the end-effector frame is the ``tip`` link's frame: the chain's ``tip``
  transform is the identity when ``tip`` is moved by its own joint, and the
  constant placement of ``tip`` in the last moving link otherwise (e.g. a
  ``tool0`` on a fixed joint).

Gravity is ``(0, 0, -g)`` in the base link frame with ``g = 9.81`` (as in the
YAML models). ``<dynamics damping friction>`` become viscous and Coulomb
friction; ``<limit lower upper velocity effort>`` is kept in ``Joint.limits`` as
that tuple (a continuous joint's position limits are ``-inf, inf``; a missing
velocity or effort is ``inf``). Numbers are kept as in the file: integers as
exact SymPy integers, others as 53-bit ``sp.Float``.

Mass rule: a link moved by a joint (a joint of the chain or a locked joint)
must have an ``<inertial>`` element, or the file is rejected (a forgotten
inertial would silently give zero torques); ``allow_massless=True`` accepts it
as massless. Links hung on ``fixed`` joints may omit it: they are frames such as
``tool0`` or ``ee_link`` and add nothing. The links of the fixed base never
matter.

Physics rule: every ``<inertial>`` that ends up in the chain (a moving link's own,
or one merged into it) must be physical (:func:`~robodyn.model.checks.check_inertia`:
mass >= 0, inertia positive semi-definite, triangle inequality), or the file is
rejected naming the link. Bodies outside the chain (a quadruped's placeholder
``base``, a mobile base's antenna) are not used: one :class:`UrdfWarning` names
those that are not physical.

``snap_angles=tol`` (default off) rounds every ``<origin rpy>`` angle (joint
placements, inertial frames, so also the tip's placement) within ``tol`` radians
of a multiple of pi/2 to that multiple: a file's ``rpy="1.5708 0 0"`` is not a
right angle (its cosine is -3.7e-6), so no term of the closed-form equations
cancels. Each changed angle of the chain is listed in ``provenance.notes``.

Size rule: a file over :data:`MAX_URDF_BYTES` (10 MB), or with more than
:data:`MAX_URDF_JOINTS` joints (5,000) or :data:`MAX_URDF_LINKS` links, is rejected before
its tree is walked; the walk itself is linear in the number of links and joints.
"""

from __future__ import annotations

import heapq
import math
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.errors import ModelError, PhysicalConsistencyWarning, UrdfWarning, warn
from .chain import (
    PRISMATIC,
    REVOLUTE,
    Chain,
    Frame,
    Friction,
    Inertial,
    Joint,
    Link,
    Transform,
    rpy_rotation,
    snap,
    with_free_base,
)
from .checks import check_inertia
from .expressions import symbol
from .file_values import Body as _Body
from .file_values import finite as _float
from .file_values import listing as _listing
from .file_values import merge as _merge
from .file_values import number as _number
from .file_values import numbers as _numbers
from .file_values import quote as _q
from .file_values import rotation as _rotation
from .source import ModelSource, Provenance

#: URDF joint types that move, and the chain joint type each becomes.
_MOVING = {"revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC}
_UNSUPPORTED = ("floating", "planar")
_ALL_TYPES = (*_MOVING, "fixed", *_UNSUPPORTED)
GRAVITY = 9.81
#: Names an error or warning message lists at most, and the characters it quotes of one.
#: Largest URDF file read, in bytes (example-robot-data's largest, TIAGo dual, is 211 kB).
MAX_URDF_BYTES = 10_000_000
#: Most ``<joint>`` elements of a file, fixed ones included (example-robot-data's most:
#: TIAGo dual, 129); a tree of that many joints has one more ``<link>``.
MAX_URDF_JOINTS = 5_000
MAX_URDF_LINKS = MAX_URDF_JOINTS + 1


@dataclass(frozen=True)
class _Joint:
    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray  # 4x4, the child (joint) frame in the parent link frame
    axis: np.ndarray
    limits: tuple | None
    damping: float
    friction: float
    mimic: bool


def load_urdf(path: str | Path, base: str | None = None, tip: str | None = None,
              allow_massless: bool = False, snap_angles: float | None = None,
              floating: bool = False) -> ModelSource:
    """Read the movable tree of a URDF file under ``base``, or its serial chain from
    ``base`` to ``tip`` (``robodyn.load(path, ...)`` makes it a :class:`~robodyn.Robot`).

    ``base``: the link fixed to the world (default: the root link). ``tip``: the
    end-effector link; default: the end of the movable joints when they form one chain,
    and the whole tree when they branch (every movable joint under ``base`` is a link,
    parents before children, in the file's order where it allows; the end frame is the
    last link, said in ``provenance.notes``). ``allow_massless``: accept moving links
    without ``<inertial>`` as massless. ``snap_angles``: a tolerance in radians;
    ``<origin rpy>`` angles this close to a multiple of pi/2 become that multiple, listed
    in ``provenance.notes`` (default ``None``: no change). ``floating``: the base link's
    body (with the bodies fixed to it) becomes ``Chain.floating_base``, a free-flying
    base, instead of being dropped. Every URDF link under the base that is not a moving
    link's own frame is a named :class:`~robodyn.model.chain.Frame` of ``Chain.frames``.
    See the module docstring for what is merged, locked and checked.

    Raises :class:`ModelError` naming the link or joint at fault; warns
    (:class:`UrdfWarning`) about non-physical bodies outside the model and about
    ``<mimic>`` joints of a tree (loaded as independent joints).
    """
    path = Path(path)
    source = str(path)
    if not isinstance(floating, bool):
        raise ModelError(f"floating={_q(floating)}: not True or False; pass floating=True for "
                         "a free-flying base, False (the default) for one fixed to the world")
    snapper = _AngleSnapper(_snap_tolerance(snap_angles))
    root = _read_xml(path)
    name = root.get("name") or path.stem
    bodies, frames = _read_links(root, source, snapper)
    joints = _read_joints(root, source, frames, snapper)
    child_joints, parent_joint = _tree(source, frames, joints)

    _check_acyclic(source, frames, parent_joint)
    base = _choose_base(source, frames, parent_joint, base)
    subtree = _subtree(base, child_joints)
    tip, ends = _choose_tip(source, frames, subtree, child_joints, base, tip)
    file_order = {joint.name: i for i, joint in enumerate(joints)}
    notes: list[str] = []
    if tip is None:  # the movable joints branch: the whole tree
        model_joints = _tree_joints(source, subtree, child_joints, base, file_order)
        mimic = [j.name for j in model_joints if j.mimic]
        if mimic:
            text = (f"{source}: {len(mimic)} <mimic> joint(s) loaded as independent joints "
                    f"(as Pinocchio's buildModelFromUrdf does): {_listing(mimic, 5)}")
            notes.append(text.removeprefix(source + ": "))
            warn(UrdfWarning(text))
    else:
        model_joints = _chain_joints(source, _path(source, parent_joint, base, tip), base, tip)
    owner, pose, placements, locked = _walk(base, child_joints, model_joints)
    locked.sort(key=file_order.__getitem__)
    parents = tuple(owner[joint.parent] for joint in model_joints)
    what = (f"the chain from {_q(base)} to {_q(tip)}" if tip is not None
            else f"the tree under {_q(base)}")
    _check_bodies(source, frames, bodies, owner, what, floating)

    members_of: dict[int, list[str]] = {k: [] for k in range(-1, len(model_joints))}
    for link in subtree:  # one pass: each link's body joins its owner's
        members_of[owner[link]].append(link)
    links = [_chain_link(source, joint, members_of[k], bodies, pose, placements[k],
                         parent_joint, allow_massless)
             for k, joint in enumerate(model_joints)]
    moving_frames = {joint.child for joint in model_joints}
    # the base first (it names the base frame), then the others in file order
    named = [Frame(link, owner[link], _transform(pose[link]))
             for link in (base, *(link for link in frames if link != base))
             if link in owner and link not in moving_frames]
    tip_pose = pose[tip] if tip is not None else np.eye(4)
    g = symbol("g")
    chain = Chain(
        links=tuple(links),
        gravity=(0, 0, -g),
        tip=_transform(tip_pose),
        parents=parents,
        frames=tuple(named),
    )
    if floating:
        mass, com, inertia = _merge([(pose[link], bodies[link]) for link in members_of[-1]
                                     if bodies[link] is not None])
        chain = with_free_base(chain, Inertial(_number(mass), _numbers(com), _numbers(inertia)),
                               name=base)
    end = links[-1].name
    if tip is not None:
        description = f"URDF {path.name}: {len(links)} joints from {_q(base)} to {_q(tip)}"
    else:
        description = (f"URDF {path.name}: a tree of {len(links)} joints under {_q(base)}, "
                       f"{len(ends)} branches; end frame: the last link {_q(end)}")
        notes.insert(0, f"the movable joints under {_q(base)} branch into {len(ends)} chains "
                        f"(ending at {_listing(ends, 5)}): the whole tree is loaded; the end "
                        f"frame of forward_kinematics and jacobian is the last link {_q(end)} "
                        "(Chain.frames names the other links; tip=... loads one chain)")
    if locked:
        description += f"; locked at 0: {_listing(locked)}"
    if floating:
        description += f"; floating base {_q(base)}"
    in_model = {link for link, k in owner.items() if k >= 0 or floating}
    joints_in_model = {j.name for j in joints if j.child in in_model}
    notes += snapper.notes(lambda kind, key: key in (in_model if kind == "link"
                                                     else joints_in_model))
    provenance = Provenance(loader="urdf", path=source, locked=tuple(locked), notes=tuple(notes))
    return ModelSource(name, chain, {"g": GRAVITY}, description, provenance)


def _transform(pose: np.ndarray) -> Transform:
    """A 4x4 pose as a :class:`Transform` of SymPy numbers (rotation snapped)."""
    return Transform(_rotation(pose[:3, :3]), _numbers(pose[:3, 3]))


# -- the chain in the tree ---------------------------------------------------------
def _tree(source: str, frames, joints: list[_Joint]):
    """``(child_joints, parent_joint)``: the joints below each link, the joint above each
    link; a link with two parents (a kinematic loop) is an error."""
    child_joints: dict[str, list[_Joint]] = {link: [] for link in frames}
    parent_joint: dict[str, _Joint] = {}
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


def _chain_joints(source: str, path_joints: list[_Joint], base: str, tip: str) -> list[_Joint]:
    """The moving joints of the path from ``base`` to ``tip``, checked: no unsupported
    type, no ``<mimic>``, at least one."""
    for joint in path_joints:
        if joint.type in _UNSUPPORTED:
            raise ModelError(
                f"{source}: joint {_q(joint.name)}: type {_q(joint.type)} on the chain from "
                f"{_q(base)} to {_q(tip)} is not supported; a serial arm has revolute, continuous, "
                f"prismatic and fixed joints (pass base=... to start the chain after it)"
            )
        if joint.mimic and joint.type in _MOVING:
            raise ModelError(
                f"{source}: joint {_q(joint.name)}: a <mimic> joint on the chain from "
                f"{_q(base)} to {_q(tip)} is not supported; every joint of the chain must move "
                "on its own"
            )
    chain_joints = [j for j in path_joints if j.type in _MOVING]
    if not chain_joints:
        raise ModelError(
            f"{source}: no revolute, continuous or prismatic joint between base {_q(base)} and tip "
            f"{_q(tip)}; choose base and tip with moving joints between them"
        )
    return chain_joints


def _tree_joints(source: str, subtree: list[str], child_joints, base: str,
                 file_order: dict[str, int]) -> list[_Joint]:
    """Every moving joint under ``base``, parents before children, else in file order
    (Kahn's topological order, the earliest joint in the file first among those whose
    parent joint is placed); an unsupported type under the base is an error."""
    above: dict[str, str | None] = {base: None}  # the moving joint above each link
    below: dict[str | None, list[_Joint]] = {None: []}
    for link in subtree:  # parents come before children in ``subtree``
        for joint in child_joints[link]:
            if joint.type in _UNSUPPORTED:
                raise ModelError(
                    f"{source}: joint {_q(joint.name)}: type {_q(joint.type)} under {_q(base)} "
                    "is not supported; a tree has revolute, continuous, prismatic and fixed "
                    "joints (pass base=... to start after it, or tip=... for one chain)"
                )
            if joint.type in _MOVING:
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


def _walk(base: str, child_joints, chain_joints: list[_Joint]):
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


def _chain_link(source: str, joint: _Joint, members: list[str], bodies, pose, placement,
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
            type=_MOVING[joint.type],
            axis=_numbers(joint.axis),
            placement=Transform(_rotation(placement[:3, :3]), _numbers(placement[:3, 3])),
            name=joint.name,
            limits=joint.limits,
        ),
        inertial=Inertial(_number(mass), _numbers(com), _numbers(inertia)),
        friction=Friction(_number(joint.damping), _number(joint.friction)),
    )


# -- reading -------------------------------------------------------------------------
def _read_xml(path: Path) -> ET.Element:
    """The ``<robot>`` element of the file; at most :data:`MAX_URDF_BYTES` are read."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_URDF_BYTES + 1)
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the URDF file ({exc.strerror or exc})") from None
    if len(data) > MAX_URDF_BYTES:
        raise ModelError(f"{path}: the file is larger than {MAX_URDF_BYTES:,} bytes; a robot's "
                         "URDF is well under 1 MB (meshes are separate files)")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ModelError(f"{path}: not valid XML ({exc}); a URDF file is an XML document "
                         "with a <robot> element") from None
    if root.tag != "robot":
        raise ModelError(f"{path}: the root element is <{root.tag}>, not <robot>; not a URDF file")
    return root


def _read_links(root: ET.Element, source: str, snapper: _AngleSnapper):
    bodies: dict[str, _Body | None] = {}
    frames: list[str] = []
    for element in _at_most(root, "link", MAX_URDF_LINKS, source):
        name = element.get("name")
        if not name:
            raise ModelError(f"{source}: a <link> has no name attribute; every link needs one")
        if name in bodies:
            raise ModelError(f"{source}: link {_q(name)} is defined twice; link names must be "
                             "unique")
        inertial = element.find("inertial")
        where = f"{source}: link {_q(name)} <inertial>"
        bodies[name] = None if inertial is None else _read_inertial(
            inertial, where, lambda rpy, name=name: snapper(rpy, "link", name, "inertial"))
        frames.append(name)
    if not frames:
        raise ModelError(f"{source}: the <robot> has no <link>; nothing to load")
    return bodies, frames


def _read_inertial(element: ET.Element, where: str, snap_rpy=None) -> _Body:
    frame = _origin(element.find("origin"), where, snap_rpy)
    mass_el = element.find("mass")
    if mass_el is None:
        raise ModelError(f"{where}: no <mass value=...>; an inertial needs a mass")
    mass = _float(mass_el.get("value"), f"{where} <mass value>")
    inertia_el = element.find("inertia")
    if inertia_el is None:
        raise ModelError(f"{where}: no <inertia ixx iyy izz ixy ixz iyz>; an inertial needs one")
    xx, yy, zz, xy, xz, yz = (
        _float(inertia_el.get(k), f"{where} <inertia {k}>")
        for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
    )
    about_com = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    rot = frame[:3, :3]
    # the tensor is given in the inertial frame; the link frame sees R I R^T
    return _Body(mass, frame[:3, 3].copy(), rot @ about_com @ rot.T)


def _read_joints(root: ET.Element, source: str, frames: list[str],
                 snapper: _AngleSnapper) -> list[_Joint]:
    known = set(frames)
    names: set[str] = set()
    joints = []
    for element in _at_most(root, "joint", MAX_URDF_JOINTS, source):
        name = element.get("name")
        if not name:
            raise ModelError(f"{source}: a <joint> has no name attribute; every joint needs one")
        if name in names:
            raise ModelError(f"{source}: joint {_q(name)} is defined twice; joint names must be "
                             "unique")
        names.add(name)
        where = f"{source}: joint {_q(name)}"
        kind = element.get("type")
        if kind not in _ALL_TYPES:
            raise ModelError(f"{where}: type {_q(kind)} is not a URDF joint type; use one of "
                             f"{', '.join(_ALL_TYPES)}")
        ends = []
        for tag in ("parent", "child"):
            el = element.find(tag)
            link = None if el is None else el.get("link")
            if not link:
                raise ModelError(f"{where}: no <{tag} link=...>; a joint connects two links")
            if link not in known:
                raise ModelError(f"{where}: <{tag} link={_q(link)}> names no <link> of the file")
            ends.append(link)
        axis = np.array([1.0, 0.0, 0.0])  # the URDF default
        axis_el = element.find("axis")
        if axis_el is not None and kind in _MOVING:
            axis = _vector(axis_el.get("xyz"), f"{where} <axis xyz>")
            norm = float(np.linalg.norm(axis))
            if norm == 0:
                raise ModelError(f"{where} <axis xyz>: the axis is zero; give a direction, "
                                 "e.g. xyz=\"0 0 1\"")
            axis = axis / norm
        dynamics = element.find("dynamics")
        damping = friction = 0.0
        if dynamics is not None:
            damping = _float(dynamics.get("damping", "0"), f"{where} <dynamics damping>")
            friction = _float(dynamics.get("friction", "0"), f"{where} <dynamics friction>")
            for label, value in (("damping", damping), ("friction", friction)):
                if value < 0:
                    raise ModelError(f"{where} <dynamics {label}>: {value:g} is negative; "
                                     "friction coefficients must be >= 0")
        joints.append(_Joint(
            name=name, type=kind, parent=ends[0], child=ends[1],
            origin=_origin(element.find("origin"), where,
                           lambda rpy, name=name: snapper(rpy, "joint", name)),
            axis=axis, limits=_limits(element.find("limit"), kind, where),
            damping=damping, friction=friction, mimic=element.find("mimic") is not None,
        ))
    return joints


def _at_most(root: ET.Element, tag: str, limit: int, source: str) -> list[ET.Element]:
    """The ``<tag>`` children of ``root``, at most ``limit`` of them, else a ModelError."""
    elements = root.findall(tag)
    if len(elements) > limit:
        raise ModelError(f"{source}: {len(elements):,} <{tag}> elements, more than the "
                         f"{limit:,} robodyn reads (robodyn.model.urdf.MAX_URDF_{tag.upper()}S); "
                         "a robot has a few hundred at most: load a URDF of the robot alone")
    return elements


def _limits(element: ET.Element | None, kind: str, where: str) -> tuple | None:
    """``(lower, upper, velocity, effort)``: continuous joints have no position limits;
    otherwise missing lower/upper are 0 (the URDF default), missing velocity/effort inf."""
    if element is None:
        return None

    def get(key, default):
        return _float(element.get(key, default), f"{where} <limit {key}>", allow_inf=True)

    if kind == "continuous":
        lower, upper = -math.inf, math.inf
    else:
        lower, upper = get("lower", "0"), get("upper", "0")
    return (lower, upper, get("velocity", "inf"), get("effort", "inf"))


def _origin(element: ET.Element | None, where: str, snap_rpy=None) -> np.ndarray:
    """The 4x4 transform of ``<origin xyz rpy>``, ``R = Rz(yaw) Ry(pitch) Rx(roll)``;
    ``snap_rpy`` may round the angles first. Entries of ``R`` within
    :data:`~robodyn.model.chain.SNAP` of 0 or +-1 are made exact (``cos(pi/2)`` is 6e-17
    in floating point), so right angles give exact inertias and placements."""
    out = np.eye(4)
    if element is None:
        return out
    out[:3, 3] = _vector(element.get("xyz", "0 0 0"), f"{where} <origin xyz>")
    rpy = _vector(element.get("rpy", "0 0 0"), f"{where} <origin rpy>")
    rotation = rpy_matrix(rpy if snap_rpy is None else snap_rpy(rpy))
    out[:3, :3] = np.vectorize(snap)(rotation)
    return out


def rpy_matrix(rpy) -> np.ndarray:
    """URDF roll-pitch-yaw as a NumPy matrix (:func:`~robodyn.model.chain.rpy_rotation`)."""
    return np.array(rpy_rotation(*(float(a) for a in rpy)))


def _vector(text: str | None, where: str) -> np.ndarray:
    parts = (text or "").split()
    if len(parts) != 3:
        raise ModelError(f"{where}: expected 3 numbers separated by spaces, got {_q(text)}")
    return np.array([_float(p, where) for p in parts])


# -- the tree --------------------------------------------------------------------------
def _choose_base(source, frames, parent_joint, base):
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


def _check_acyclic(source, frames, parent_joint):
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


def _subtree(base: str, child_joints) -> list[str]:
    out, stack = [], [base]
    while stack:
        link = stack.pop()
        out.append(link)
        stack.extend(j.child for j in reversed(child_joints[link]))
    return out


def _choose_tip(source, frames, subtree, child_joints, base, tip):
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


def _path(source, parent_joint, base, tip) -> list[_Joint]:
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


# -- checks and notes ------------------------------------------------------------------------
def _check_bodies(source, frames, bodies, owner, what: str, floating: bool) -> None:
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


def _snap_tolerance(tol) -> float | None:
    """``snap_angles`` checked: ``None`` (off) or a tolerance in radians in [0, pi/4)."""
    if tol is None:
        return None
    try:
        value = float(tol)
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(tol, bool) or not 0 <= value < math.pi / 4:
        raise ModelError(f"snap_angles={_q(tol)}: not a tolerance in radians from 0 to below "
                         "pi/4; use e.g. snap_angles=1e-3, or None to keep the angles")
    return value


class _AngleSnapper:
    """Rounds ``<origin rpy>`` angles within ``tol`` of a multiple ``k pi/2`` to it
    (``tol=None``: off) and remembers each change for :meth:`notes`."""

    def __init__(self, tol: float | None):
        self.tol = tol
        self.changes: list[tuple[str, str, str, float, int]] = []

    def __call__(self, rpy: np.ndarray, kind: str, key: str, what: str = "") -> np.ndarray:
        if self.tol is None:
            return rpy
        out = rpy.copy()
        for i, axis in enumerate(("roll", "pitch", "yaw")):
            k = round(rpy[i] / (math.pi / 2))
            exact = k * (math.pi / 2)
            if rpy[i] != exact and abs(rpy[i] - exact) <= self.tol:
                out[i] = exact
                label = f"{kind} {_q(key)}{' ' + what if what else ''} rpy {axis}"
                self.changes.append((kind, key, label, float(rpy[i]), k))
        return out

    def notes(self, used) -> tuple[str, ...]:
        """One line for the whole change, then one per angle; only angles for which
        ``used(kind, key)`` holds (those of the chain) are listed."""
        if self.tol is None:
            return ()
        changes = [c for c in self.changes if used(c[0], c[1])]
        if not changes:
            return (f"snap_angles={self.tol:g}: no angle of the chain within {self.tol:g} rad "
                    "of a multiple of pi/2 needed rounding; the model is unchanged",)
        size = [abs(old - k * math.pi / 2) for _, _, _, old, k in changes]
        worst = max(range(len(changes)), key=size.__getitem__)
        lines = [f"snapped {len(changes)} angle(s) to multiples of pi/2 (snap_angles="
                 f"{self.tol:g}), largest change {size[worst]:.2g} rad ({changes[worst][2]})"]
        lines += [f"{label}: {old!r} -> {_right_angles(k)} (change {d:.2g} rad)"
                  for (_, _, label, old, k), d in zip(changes, size)]
        return tuple(lines)


def _right_angles(k: int) -> str:
    """``k pi/2`` as text: 0, pi/2, pi, -pi/2, 3*pi/2, 2*pi."""
    if k == 0:
        return "0"
    sign = "-" if k < 0 else ""
    k = abs(k)
    return sign + ("pi/2" if k == 1 else f"{k}*pi/2" if k % 2 else
                   "pi" if k == 2 else f"{k // 2}*pi")


__all__ = ["UrdfWarning", "load_urdf", "rpy_matrix"]
