"""A numeric chain written as a URDF file (``robot.to_urdf()``).

The URDF holds the chain with every parameter value bound, as
:func:`robodyn.model.urdf.load_urdf` reads it back:

* a base link (the chain's base frame: ``base_link``, or the name of the loaded file's
  base, the first :class:`~robodyn.model.chain.Frame` on the base at the identity) and,
  per chain link ``i``, a joint on its parent's link (``chain.parent(i)``: a tree is
  written as one) and a link. URDF's ``q = 0`` is the joint's origin, robodyn's
  ``q = 0`` is motion by ``offset``, so the offset is folded into the origin: link ``i``'s frame is
  ``placement * Motion(q_i + offset_i) = (placement * Motion(offset_i)) * Motion(q_i)``
  (motions about or along one axis commute), and the joint's ``<origin>`` is
  ``placement * Rot(axis, offset)`` (revolute) or ``placement * Trans(offset axis)``
  (prismatic). The axis keeps its direction (``Rot(axis, offset)`` leaves it fixed),
  and the file's joint variable equals robodyn's ``q``;
* a revolute joint without position limits is ``continuous`` (Pinocchio gives it
  ``nq = 2``, ``(cos q, sin q)``; MuJoCo one ``qpos``), or with ``unlimited="revolute"``
  ``revolute`` with limits ``+-UNBOUNDED``; with limits (a model file's ``limits:``, a
  URDF's ``<limit>``, kept in ``Joint.limits``) ``revolute`` with them. URDF requires
  ``<limit>`` on revolute and prismatic joints: a prismatic joint with no known limits
  gets ``+-UNBOUNDED``, and unknown velocity or effort limits are ``UNBOUNDED`` too,
  said in a comment;
* ``<dynamics damping friction>``: the viscous and Coulomb friction;
* ``<inertial>``: origin at the centre of mass with ``rpy = 0``, the mass, and the full
  inertia tensor about the centre of mass in the link frame (URDF's ``ixy`` is the
  tensor's entry ``I_xy``, as read by the loader). Other tools load only physical
  bodies (MuJoCo: principal moments > 0 with ``a + b >= c``, mass > 0), so a body that
  is not is written as the nearest one that is (:func:`writable_chain`, said in a
  comment): a planar ``[0, 0, I]`` gets ``I/2`` about the two axes normal to its joint
  axis, which no motion of the arm can feel (its angular velocity is always along that
  axis); a massless or flat body gets :data:`MIN_INERTIA`; only a tensor that matters in
  every direction and breaks the triangle inequality (the PUMA 560's link 3) is changed
  where the dynamics feel it, by the smallest moment added about its axis of least
  moment, with a :class:`~robodyn.core.errors.UrdfWarning` giving the change. A link's
  point masses are folded into its body first (total mass, common centre of mass,
  parallel-axis theorem: :func:`~robodyn.model.chain.folded`), URDF has one body a link;
* every other named frame (``chain.frames``: a ``tool0``, a camera, a merged body's
  link) as a body-less link on a fixed joint, placed in its link; of a serial chain, the
  frames fixed to the last link are left out (said in a comment), so that re-loading
  finds the tip as below;
* the end-effector frame (``chain.tip``), when it is not the identity, as a ``tool``
  link on a fixed joint (re-loading a serial chain puts the default tip there; a tree's
  default end frame is its last link, and ``tool`` a frame on it);
* a free-flying base's body (the first link, moved by a free joint) as the base link's
  ``<inertial>``
  (re-load with ``floating=True``; said in a comment);
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
from dataclasses import replace

import numpy as np

from ..core.errors import InputError, ModelError, UrdfWarning, excerpt, warn
from .chain import PRISMATIC, REVOLUTE, Chain, folded, split_free_base
from .friction import check_plain
from .names import MARKER, visible
from .transmission import drive_notes
from .urdf import GRAVITY

#: Stand-in for a limit URDF requires and the model does not know (m, rad, m/s, N, N m).
UNBOUNDED = 1e9
#: The least mass (kg) and principal moment (kg m^2) written for a moving body: MuJoCo
#: refuses a body with less than 1e-15 of either (mjMINVAL).
MIN_INERTIA = 1e-12
#: Relative margin by which a written tensor satisfies ``a + b >= c`` (MuJoCo checks it
#: on eigenvalues it computes itself, to rounding).
_TRIANGLE_MARGIN = 1e-9
#: How a revolute joint without position limits is written (``to_urdf(unlimited=...)``).
UNLIMITED = ("continuous", "revolute")


def chain_to_urdf(chain: Chain, name: str, comment: str = "",
                  unlimited: str = "continuous") -> str:
    """The URDF text of a numeric ``chain`` (every number a float, as
    ``robot.numeric_chain``); ``comment`` heads the file; ``unlimited``: how a revolute
    joint without position limits is written, ``"continuous"`` or ``"revolute"`` (with
    limits ``+-UNBOUNDED``). See the module docstring for the frames, joints and links
    written; the bodies are those of :func:`writable_chain`."""
    if unlimited not in UNLIMITED:
        raise InputError(f"unlimited: {excerpt(unlimited, 40)} is not 'continuous' or "
                         "'revolute'")
    free_base, chain = split_free_base(chain)
    chain, changes = writable_chain(chain)
    names = _Names()
    root = ET.Element("robot", name=visible(name) or "robot")
    notes = [comment] if comment else []
    frames = list(chain.frames)
    base_frame = next((f for f in frames if f.link == -1 and is_identity(f.placement)), None)
    if base_frame is not None:  # the loaded file's base link: it names the base again
        frames.remove(base_frame)
    base = names.link(base_frame.name if base_frame is not None else
                      free_base.name if free_base is not None else "base_link")

    gravity = np.array(chain.gravity, dtype=float)
    g = float(np.linalg.norm(gravity))
    if g > 0 and not np.allclose(gravity / g, [0.0, 0.0, -1.0], rtol=0, atol=1e-15):
        world = names.link("world")
        ET.SubElement(root, "link", name=world)
        joint = ET.SubElement(root, "joint", name=names.joint(f"{world}_to_{base}"), type="fixed")
        ET.SubElement(joint, "parent", link=world)
        ET.SubElement(joint, "child", link=base)
        _origin(joint, _up_rotation(-gravity / g), np.zeros(3))
        notes.append(f"gravity ({vector_text(gravity)}) in {base}: the root {world} holds {base} "
                     f"turned so that gravity points along {world}'s -z")
    if g > 0 and abs(g - GRAVITY) > 1e-12 * GRAVITY:
        notes.append(f"gravity magnitude {number_text(g)} (not {GRAVITY}): set it in the simulator")
    base_link = ET.SubElement(root, "link", name=base)
    if free_base is not None:
        _inertial(base_link, free_base.inertial)
        notes.append(f"{base} is a free-flying base: load with floating=True")

    armature = []
    parent = base
    felt = []
    link_names: list[str] = []
    written = {}  # the model's joint names -> their <joint> elements
    for i, link in enumerate(chain.links):
        parent = base if chain.parent(i) < 0 else link_names[chain.parent(i)]
        joint, child = _joint(root, link, i, parent, names, notes, unlimited)
        written[link.joint.name or link.name] = root.findall("joint")[-1]
        link_names.append(child)
        _link(root, link, child)
        if i in changes:
            note, effect = changes[i]
            notes.append(f"link {child}: {note}")
            if effect > 1e3 * MIN_INERTIA:  # the floors change M by 1e-12 at most: not said
                felt.append((child, effect))
        armature += [link.joint.name or joint] if float(link.motor.armature) != 0 else []
    closures = getattr(chain, "closures", None)
    for coupling in (closures.couplings if closures is not None else ()):
        # q_joint = multiplier q_source + offset: URDF's <mimic>, read back coupled
        source = written[coupling.source].get("name")
        ET.SubElement(written[coupling.joint], "mimic", joint=source,
                      multiplier=number_text(coupling.multiplier),
                      offset=number_text(coupling.offset))
    if closures is not None and closures.loops:
        notes.append(f"{len(closures.loops)} loop closure(s) left out: URDF describes trees")
    notes.extend(drive_notes(chain))
    last = chain.dof - 1
    left_out = [f.name for f in frames if chain.is_serial and f.link == last]
    for frame in frames:
        if frame.name in left_out:
            continue
        on = base if frame.link < 0 else link_names[frame.link]
        _fixed_link(root, names, on, frame.name, frame.placement)
    if left_out:
        notes.append(f"frames fixed to the last link left out ({', '.join(left_out[:10])}"
                     f"{' ...' if len(left_out) > 10 else ''}): the end frame is the tip")
    if armature:
        text = (f"URDF has no motor (armature) inertia: G^2 Jm of joint(s) "
                f"{', '.join(armature[:10])}{' ...' if len(armature) > 10 else ''} is left out")
        notes.append(text)  # the file's comment names the joints; the warning is one line
        warn(UrdfWarning(f"{visible(name)}: URDF has no armature: G^2 Jm of {len(armature)} "
                         "joint(s) left out (docs/defaults.md)"))

    if felt:
        shown = ", ".join(f"{link} +{effect:.2g} kg m^2" for link, effect in felt[:3])
        warn(UrdfWarning(f"{visible(name)}: URDF inertia made physical: {shown}"
                         f"{' ...' if len(felt) > 3 else ''} in M (docs/defaults.md)"))

    if not is_identity(chain.tip):
        _fixed_link(root, names, link_names[-1], "tool", chain.tip)

    for k, note in enumerate(notes):
        root.insert(k, ET.Comment(f" {comment_text(note)} "))
    ET.indent(root, space="  ")
    return (f'<?xml version="1.0"?>\n<!-- {MARKER} -->\n' + ET.tostring(root, encoding="unicode")
            + "\n")


def _joint(root, link, i, parent, names, notes, unlimited="continuous"):
    """Append the ``<joint>`` moving ``link`` (chain index ``i``) and return its name and
    the name of its child link."""
    joint = link.joint
    if joint.type not in (REVOLUTE, PRISMATIC):  # URDF's joints move one value
        raise ModelError(f"to_urdf: joint {joint.name or link.name!r} is {joint.type}; URDF has "
                         "revolute, continuous, prismatic and fixed joints (and a free-flying "
                         "base, the first link, loaded back with floating=True); write MJCF or "
                         "a model file for this model")
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
    kind = "prismatic" if joint.type == PRISMATIC else "revolute" if bounded else unlimited

    name = names.joint(joint.name or f"joint{i + 1}")
    child = names.link(link.name or f"link{i + 1}")
    element = ET.SubElement(root, "joint", name=name, type=kind)
    ET.SubElement(element, "parent", link=parent)
    ET.SubElement(element, "child", link=child)
    _origin(element, rotation, translation)
    ET.SubElement(element, "axis", xyz=vector_text(axis))

    velocity, effort = (limits[2], limits[3]) if limits is not None else (math.inf, math.inf)
    if kind != "continuous" or math.isfinite(velocity) or math.isfinite(effort):
        attributes = {}
        if kind != "continuous":
            lower, upper = limits[:2] if bounded else (-UNBOUNDED, UNBOUNDED)
            attributes.update(lower=number_text(lower), upper=number_text(upper))
        missing = [k for k, v in (("velocity", velocity), ("effort", effort))
                   if not math.isfinite(v)]
        attributes.update(velocity=number_text(UNBOUNDED if "velocity" in missing else velocity),
                          effort=number_text(UNBOUNDED if "effort" in missing else effort))
        ET.SubElement(element, "limit", **attributes)
        unknown = (["position"] if kind != "continuous" and not bounded else []) + missing
        if unknown:
            notes.append(f"joint {name}: no {', '.join(unknown)} limit in the model; "
                         f"{UNBOUNDED:g} stands for none")
    check_plain(link.friction, f"to_urdf: joint {name!r}", "URDF")
    viscous, coulomb = float(link.friction.viscous), float(link.friction.coulomb)
    if viscous or coulomb:
        ET.SubElement(element, "dynamics", damping=number_text(viscous),
                      friction=number_text(coulomb))
    return name, child


def is_identity(transform) -> bool:
    return (np.array_equal(np.array(transform.rotation, dtype=float), np.eye(3))
            and not np.array(transform.translation, dtype=float).any())


def _fixed_link(root, names, parent: str, name: str, placement) -> None:
    """Append a body-less ``<link>`` on a ``fixed`` joint at ``placement`` in ``parent``."""
    child = names.link(name)
    joint = ET.SubElement(root, "joint", name=names.joint(f"{child}_joint"), type="fixed")
    ET.SubElement(joint, "parent", link=parent)
    ET.SubElement(joint, "child", link=child)
    _origin(joint, np.array(placement.rotation, dtype=float),
            np.array(placement.translation, dtype=float))
    ET.SubElement(root, "link", name=child)


def _link(root, link, name) -> None:
    """Append the ``<link>`` with the body's ``<inertial>`` (its point masses folded in:
    one body of the total mass at the common centre of mass, :func:`folded`)."""
    _inertial(ET.SubElement(root, "link", name=name), folded(link).inertial)


def _inertial(element, inertial) -> None:
    """Append ``inertial`` (an :class:`~robodyn.model.chain.Inertial`) to a ``<link>``."""
    body = ET.SubElement(element, "inertial")
    ET.SubElement(body, "origin", xyz=vector_text(inertial.com), rpy="0 0 0")
    ET.SubElement(body, "mass", value=number_text(inertial.mass))
    tensor = np.array(inertial.inertia, dtype=float)
    tensor = (tensor + tensor.T) / 2
    ET.SubElement(body, "inertia", **{
        f"i{a}{b}": number_text(tensor[r, c])
        for a, b, r, c in (("x", "x", 0, 0), ("x", "y", 0, 1), ("x", "z", 0, 2),
                           ("y", "y", 1, 1), ("y", "z", 1, 2), ("z", "z", 2, 2))
    })


def writable_chain(chain: Chain) -> tuple[Chain, dict[int, tuple[str, float]]]:
    """``chain`` with every moving body physical enough for other tools (mass and
    principal moments at least :data:`MIN_INERTIA`, ``a + b >= c``), and
    ``{link index: (what was changed, its effect)}``. The effect is the largest change
    (kg m^2) of an entry of ``M(q)`` the change of the inertia tensor can make (the
    columns of the angular Jacobian are unit vectors or zero); a mass raised to
    :data:`MIN_INERTIA` adds its own ``1e-12 r^2`` to ``M`` and ``1e-12 g r`` to ``g``
    (``r``: its lever arm, zero for the PUMA's link 1, whose centre of mass is on the
    joint axis), and nothing else changes ``g(q)``.

    A link whose angular velocity is always along one axis ``n`` (every revolute joint
    from the base to it parallel: a planar arm, a first link) feels only ``I n``, so
    ``alpha (1 - n n^T)`` is added with the least ``alpha`` that makes it physical: no
    effect. A link that never turns (only prismatic joints before it) feels no inertia:
    ``beta 1`` is added. Otherwise the moment about the axis of least moment is raised
    to ``c - b`` (the least change of a principal moment that gives ``a + b >= c``).
    A link's point masses are folded into its body first (:func:`folded`)."""
    chain = replace(chain, links=tuple(folded(link) for link in chain.links))
    free = _free_directions(chain)
    links, changes = [], {}
    for i, link in enumerate(chain.links):
        mass = float(link.inertial.mass)
        inertia = np.array(link.inertial.inertia, dtype=float)
        inertia = (inertia + inertia.T) / 2
        new_inertia, effect, how = _physical_inertia(inertia, free[i])
        new_mass = max(mass, MIN_INERTIA)
        if new_mass == mass and how is None:
            links.append(link)
            continue
        what = []
        if new_mass != mass:
            what.append(f"mass {number_text(mass)} written as {number_text(new_mass)} kg")
        if how is not None:
            what.append(f"inertia {_tensor_text(inertia)} written as "
                        f"{_tensor_text(new_inertia)} ({how})")
        changes[i] = ("; ".join(what) + ", for tools that load only physical bodies", effect)
        inertial = replace(link.inertial, mass=new_mass,
                           inertia=tuple(tuple(float(x) for x in row) for row in new_inertia))
        links.append(replace(link, inertial=inertial))
    return replace(chain, links=tuple(links)), changes


def _free_directions(chain: Chain) -> list[np.ndarray]:
    """Per link, the projector onto the directions (link frame) its angular velocity
    never has: ``1`` for a link no revolute joint turns, ``1 - n n^T`` when every
    revolute joint up to it turns about one axis ``n``, else ``0``."""
    rotations: list[np.ndarray] = []
    # per link: the first revolute axis from the base (base frame) and whether every
    # revolute axis from the base to the link is parallel to it
    turns: list[tuple[np.ndarray | None, bool]] = []
    out = []
    for i, link in enumerate(chain.links):
        joint = link.joint
        p = chain.parent(i)
        rot = (rotations[p] if p >= 0 else np.eye(3)) @ np.array(joint.placement.rotation,
                                                                 dtype=float)
        first, parallel = turns[p] if p >= 0 else (None, True)
        axis = np.array(joint.axis, dtype=float)
        if joint.type == REVOLUTE:
            z = rot @ axis
            if first is None:
                first = z
            parallel = parallel and bool(np.linalg.norm(np.cross(first, z)) <= 1e-12)
            rot = rot @ axis_rotation(axis, float(joint.offset))
        elif joint.type != PRISMATIC:  # a ball or free joint turns its link every way
            first, parallel = (rot[:, 0] if first is None else first), False
        rotations.append(rot)
        turns.append((first, parallel))
        if first is None:
            out.append(np.eye(3))
        elif parallel:
            n = rot.T @ first  # the common axis in this link's frame
            n = n / np.linalg.norm(n)
            out.append(np.eye(3) - np.outer(n, n))
        else:
            out.append(np.zeros((3, 3)))
    return out


def _physical(tensor: np.ndarray) -> bool:
    """Principal moments at least :data:`MIN_INERTIA` and ``a + b >= c``: exactly for a
    diagonal tensor (its moments are its entries, for every tool), with a margin of
    :data:`_TRIANGLE_MARGIN` for another (each tool computes its eigenvalues anew)."""
    diagonal = not (tensor - np.diag(np.diag(tensor))).any()
    a, b, c = np.sort(np.diag(tensor)) if diagonal else np.linalg.eigvalsh(tensor)
    return a >= MIN_INERTIA and a + b >= c * (1 + (0.0 if diagonal else _TRIANGLE_MARGIN))


def _physical_inertia(inertia: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, float,
                                                                        str | None]:
    """``(tensor written, its effect on M in kg m^2, how it was made)``: ``inertia`` itself
    when it is physical (``how`` None), else the least change in the ``free``
    directions that makes it so (no effect), else the least change of its smallest
    principal moment (see :func:`writable_chain`)."""
    if _physical(inertia):
        return inertia, 0.0, None
    if free.any():
        top = 2.0 * max(float(np.trace(inertia)), MIN_INERTIA) + 2.0 * MIN_INERTIA
        if math.isfinite(top) and _physical(inertia + top * free):
            # the least alpha: closed form for a planar [0, 0, I] (I/2, exact in binary),
            # else by bisection
            values = np.linalg.eigvalsh(inertia)
            guess = max((values[2] - values[0] - values[1]) / 2, MIN_INERTIA - values[0], 0.0)
            low, high = 0.0, top
            if _physical(inertia + guess * free):
                high = guess
            for _ in range(200):
                mid = (low + high) / 2
                if mid in (low, high) or high == guess:
                    break
                low, high = (low, mid) if _physical(inertia + mid * free) else (mid, high)
            rank = int(round(np.trace(free)))
            where = ("a body that never turns" if rank == 3 else
                     "about the axes normal to the joint axis, which the arm never turns about")
            return inertia + high * free, 0.0, f"+{high:.6g} kg m^2 {where}: no effect"
    values, vectors = np.linalg.eigh(inertia)
    raised = values.copy()
    raised[:2] = np.maximum(raised[:2], MIN_INERTIA)
    raised[0] = max(raised[0], raised[2] - raised[1])
    raised[2] = max(raised[2], MIN_INERTIA)
    tensor = vectors @ np.diag(raised) @ vectors.T
    tensor = (tensor + tensor.T) / 2
    for _ in range(100):  # rounding: raise the least moment by ulps, then by the margin
        if _physical(tensor):
            break
        raised[0] = max(np.nextafter(raised[0], np.inf),
                        raised[2] * (1 + _TRIANGLE_MARGIN) - raised[1])
        tensor = vectors @ np.diag(raised) @ vectors.T
        tensor = (tensor + tensor.T) / 2
    delta = float(np.max(raised - values))
    axis = vector_text(np.round(vectors[:, 0], 12))
    return tensor, delta, (f"+{delta:.3g} kg m^2 about the axis ({axis}) of least moment: "
                           f"M(q) changes by at most {delta:.3g} kg m^2 an entry")


def _tensor_text(t: np.ndarray) -> str:
    """``[xx, yy, zz, xy, xz, yz]`` as the model file writes an inertia."""
    return "[" + ", ".join(f"{float(x):.6g}" for x in (t[0, 0], t[1, 1], t[2, 2], t[0, 1],
                                                        t[0, 2], t[1, 2])) + "]"


def _origin(element, rotation: np.ndarray, translation: np.ndarray) -> None:
    ET.SubElement(element, "origin", xyz=vector_text(translation),
                  rpy=vector_text(matrix_rpy(rotation)))


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


def number_text(x) -> str:
    """A float as the shortest text that reads back as the same number: ``repr``, with
    whole numbers below 1e15 written as integers (``1``, ``1000000000``, ``0`` for -0.0)."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def vector_text(values) -> str:
    return " ".join(number_text(x) for x in values)


def comment_text(text: str) -> str:
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


__all__ = ["MIN_INERTIA", "UNBOUNDED", "UNLIMITED", "axis_rotation", "chain_to_urdf",
           "matrix_rpy", "writable_chain", "number_text", "vector_text", "comment_text",
           "is_identity"]
