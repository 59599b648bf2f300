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

This module reads the XML (links, joints, origins, inertials, limits, the snapping of
angles) and makes the model source; :mod:`robodyn.model.urdf_tree` walks the tree (base,
tip, the model's joints in order, the bodies merged into each link).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..core.errors import ModelError, UrdfWarning, warn
from ..core.files import file_label, model_name_of, read_model_bytes
from ..core.lazy import Parameter
from .chain import (
    Chain,
    Frame,
    Inertial,
    Transform,
    rpy_rotation,
    snap,
    with_free_base,
)
from .file_values import Body as _Body
from .file_values import finite as _float
from .file_values import listing as _listing
from .file_values import merge as _merge
from .file_values import number as _number
from .file_values import numbers as _numbers
from .file_values import quote as _q
from .file_values import rotation as _rotation
from .loops import Closures, Coupling, checked_closures
from .source import ModelSource, Provenance
from .urdf_tree import (
    MOVING_TYPES,
    UNSUPPORTED_TYPES,
    UrdfJoint,
    chain_link,
    check_acyclic,
    check_bodies,
    choose_base,
    choose_tip,
    joints_between,
    link_joints,
    links_under,
    moving_joints_on_path,
    moving_joints_under,
    walk_tree,
)

_ALL_TYPES = (*MOVING_TYPES, "fixed", *UNSUPPORTED_TYPES)
GRAVITY = 9.81
#: Largest URDF file read, in bytes (example-robot-data's largest, TIAGo dual, is 211 kB).
MAX_URDF_BYTES = 10_000_000
#: Most ``<joint>`` elements of a file, fixed ones included (example-robot-data's most:
#: TIAGo dual, 129); a tree of that many joints has one more ``<link>``.
MAX_URDF_JOINTS = 5_000
MAX_URDF_LINKS = MAX_URDF_JOINTS + 1



def load_urdf(path: str | Path, base: str | None = None, tip: str | None = None,
              allow_massless: bool = False, snap_angles: float | None = None,
              floating: bool = False, mimic: str = "coupled") -> ModelSource:
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

    ``mimic``: ``"coupled"`` (default) reads ``<mimic joint= multiplier= offset=>`` as
    couplings ``q = multiplier q_joint + offset`` (``Chain.closures``, the joints leave the
    coordinates as in Pinocchio's ``buildModelFromUrdf(path, mimic=True)``);
    ``"independent"`` loads them as joints of their own (the tree's dynamics).

    Raises :class:`ModelError` naming the link or joint at fault; warns
    (:class:`UrdfWarning`) about non-physical bodies outside the model and about
    ``<mimic>`` joints of a tree loaded with ``mimic="independent"``.
    """
    if mimic not in ("coupled", "independent"):
        raise ModelError(f"mimic={_q(mimic)}: use 'coupled' (the <mimic> joints follow the "
                         "joint they name) or 'independent' (each moves on its own)")
    path = Path(path)
    source = file_label(path)
    if not isinstance(floating, bool):
        raise ModelError(f"floating={_q(floating)}: not True or False; pass floating=True for "
                         "a free-flying base, False (the default) for one fixed to the world")
    snapper = _AngleSnapper(_snap_tolerance(snap_angles))
    root = _read_xml(path)
    name = root.get("name") or model_name_of(path)
    bodies, frames = _read_links(root, source, snapper)
    joints = _read_joints(root, source, frames, snapper)
    child_joints, parent_joint = link_joints(source, frames, joints)

    check_acyclic(source, frames, parent_joint)
    base = choose_base(source, frames, parent_joint, base)
    subtree = links_under(base, child_joints)
    tip, ends = choose_tip(source, frames, subtree, child_joints, base, tip)
    file_order = {joint.name: i for i, joint in enumerate(joints)}
    notes: list[str] = []
    couplings: tuple = ()
    if tip is None:  # the movable joints branch: the whole tree
        model_joints = moving_joints_under(source, subtree, child_joints, base, file_order)
        mimics = [j.name for j in model_joints if j.mimic]
        if mimics and mimic == "coupled" and floating:
            raise ModelError(f"{source}: <mimic> joint(s) {_listing(mimics, 5)} on a floating "
                             "base are not coupled yet; pass mimic='independent' to load them "
                             "as joints of their own")
        if mimics and mimic == "coupled":
            couplings = mimic_couplings(source, model_joints)
            notes.append(f"{len(mimics)} <mimic> joint(s) coupled to the joints they name "
                         f"(robot.dof counts the others): {_listing(mimics, 5)}")
        elif mimics:
            text = (f"{source}: {len(mimics)} <mimic> joint(s) loaded as independent joints "
                    f"(mimic='independent'; Pinocchio's buildModelFromUrdf without mimic=True): "
                    f"{_listing(mimics, 5)}")
            notes.append(text.removeprefix(source + ": "))
            warn(UrdfWarning(text))
    else:
        model_joints = moving_joints_on_path(
            source, joints_between(source, parent_joint, base, tip), base, tip)
    owner, pose, placements, locked = walk_tree(base, child_joints, model_joints)
    locked.sort(key=file_order.__getitem__)
    parents = tuple(owner[joint.parent] for joint in model_joints)
    what = (f"the chain from {_q(base)} to {_q(tip)}" if tip is not None
            else f"the tree under {_q(base)}")
    check_bodies(source, frames, bodies, owner, what, floating)

    members_of: dict[int, list[str]] = {k: [] for k in range(-1, len(model_joints))}
    for link in subtree:  # one pass: each link's body joins its owner's
        members_of[owner[link]].append(link)
    links = [chain_link(source, joint, members_of[k], bodies, pose, placements[k],
                         parent_joint, allow_massless)
             for k, joint in enumerate(model_joints)]
    moving_frames = {joint.child for joint in model_joints}
    # the base first (it names the base frame), then the others in file order
    named = [Frame(link, owner[link], _transform(pose[link]))
             for link in (base, *(link for link in frames if link != base))
             if link in owner and link not in moving_frames]
    tip_pose = pose[tip] if tip is not None else np.eye(4)
    g = Parameter("g")  # SymPy's symbol g when a derivation asks for it
    chain = Chain(
        links=tuple(links),
        gravity=(0, 0, -g),
        tip=_transform(tip_pose),
        parents=parents,
        frames=tuple(named),
    )
    if couplings:
        chain = replace(chain, closures=checked_closures(chain, Closures(couplings=couplings),
                                                         source))
    if floating:
        mass, com, inertia = _merge([(pose[link], bodies[link]) for link in members_of[-1]
                                     if bodies[link] is not None])
        chain = with_free_base(chain, Inertial(_number(mass), _numbers(com), _numbers(inertia)),
                               name=base)
    end = links[-1].name
    if tip is not None:
        description = (f"URDF {file_label(path.name)}: {len(links)} joints from {_q(base)} "
                       f"to {_q(tip)}")
    else:
        description = (f"URDF {file_label(path.name)}: a tree of {len(links)} joints under "
                       f"{_q(base)}, "
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
    provenance = Provenance(loader="urdf", path=str(path), locked=tuple(locked),
                            notes=tuple(notes))
    return ModelSource(name, chain, {"g": GRAVITY}, description, provenance)


def _transform(pose: np.ndarray) -> Transform:
    """A 4x4 pose as a :class:`Transform` of SymPy numbers (rotation snapped)."""
    return Transform(_rotation(pose[:3, :3]), _numbers(pose[:3, 3]))



# -- reading -------------------------------------------------------------------------
def _read_xml(path: Path) -> ET.Element:
    """The ``<robot>`` element of the file; at most :data:`MAX_URDF_BYTES` are read."""
    label = file_label(path)
    data = read_model_bytes(path, MAX_URDF_BYTES, "the URDF file", "a robot's URDF is well "
                            "under 1 MB (meshes are separate files)")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ModelError(f"{label}: not valid XML ({exc}); a URDF file is an XML document "
                         "with a <robot> element") from None
    except LookupError as exc:  # <?xml encoding="x-bogus"?>
        raise ModelError(f"{label}: the XML declaration names an encoding Python "
                         f"does not know ({exc}); write the file in UTF-8 and say "
                         "encoding=\"utf-8\" (or leave it out)") from None
    if root.tag != "robot":
        raise ModelError(f"{label}: the root element is <{root.tag}>, not <robot>; not a URDF file")
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
                 snapper: _AngleSnapper) -> list[UrdfJoint]:
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
        if axis_el is not None and kind in MOVING_TYPES:
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
        joints.append(UrdfJoint(
            name=name, type=kind, parent=ends[0], child=ends[1],
            origin=_origin(element.find("origin"), where,
                           lambda rpy, name=name: snapper(rpy, "joint", name)),
            axis=axis, limits=_limits(element.find("limit"), kind, where),
            damping=damping, friction=friction, mimic=_mimic(element.find("mimic"), where),
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


def _mimic(element: ET.Element | None, where: str) -> tuple | None:
    """``(joint, multiplier, offset)`` of a ``<mimic>`` (defaults 1 and 0), else None."""
    if element is None:
        return None
    joint = element.get("joint")
    if not joint:
        raise ModelError(f"{where} <mimic>: no joint=...; name the joint this one follows")
    return (joint, _float(element.get("multiplier", "1"), f"{where} <mimic multiplier>"),
            _float(element.get("offset", "0"), f"{where} <mimic offset>"))


def mimic_couplings(source: str, model_joints) -> tuple[Coupling, ...]:
    """The :class:`Coupling` of each ``<mimic>`` joint of the model; the joint it names must
    be a moving joint of the model too."""
    moving = {j.name for j in model_joints}
    out = []
    for j in model_joints:
        if j.mimic:
            if j.mimic[0] not in moving:
                raise ModelError(f"{source}: joint {_q(j.name)} <mimic joint={_q(j.mimic[0])}>: "
                                 "not a moving joint of the model; pass mimic='independent' "
                                 "to load the mimic joint on its own")
            out.append(Coupling(j.name, *j.mimic))
    return tuple(out)


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
        if lower > upper:
            raise ModelError(f"{where} <limit>: lower={element.get('lower')!r} is above "
                             f"upper={element.get('upper')!r}; swap them (the range is "
                             "[lower, upper])")
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



# -- snapping angles ---------------------------------------------------------------------
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
