"""The robot description: a serial chain of links, each moved by one joint.

This is the model the algorithms read (Pinocchio's ``Model``): it holds no
state and no caches. Conventions (those of Pinocchio and URDF):

* Link ``i``'s frame is its joint's frame: the joint frame is placed in the
  parent link's frame by the constant ``joint.placement`` and then moved by the
  joint, a rotation by ``q_i + offset`` about ``joint.axis`` (revolute) or a
  translation by ``q_i + offset`` along it (prismatic). The axis is a unit
  vector in the joint frame, so it reads the same in the link frame.
* ``inertial`` (mass, centre of mass, inertia tensor about the centre of mass)
  and everything else of a link is expressed in its link frame.
* ``point_masses``: masses concentrated at points of the link (a motor at a joint, a
  payload at the end effector, as in the tutorial "Introduction to Dynamics"), beside
  its body: each is one more rigid body of the link, with no inertia about its own
  point. The algorithms sum over :func:`link_bodies`; :func:`origin_inertia` gives the
  link's total mass, first moment and inertia about its frame origin (the parallel-axis
  theorem), :func:`folded` the one equivalent body (numbers only: it divides by the total mass).
* ``tip`` places the end-effector frame in the last link's frame.

DH tables (:mod:`robodyn.model.dh`) and URDF files are two ways of filling
this structure. Every number is a SymPy expression in a symbolic model and a
float in the numeric model made by :meth:`Chain.evaluate`; the algorithms
work on both.

This module holds the dataclasses of the description (:class:`Transform`, :class:`Joint`,
:class:`Inertial`, :class:`Link`, :class:`Frame`, :class:`Chain`, ...), a free-flying base
added or taken off (:func:`with_free_base`, :func:`split_free_base`) and the rounding of
rotations (:func:`snap`); the checks :meth:`Chain.evaluate` runs on the numbers (finite, real,
physical) are in :mod:`robodyn.model.checks`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..core import linalg3 as la
from ..core.errors import ModelError, excerpt
from ..core.lazy import is_parameter, is_sympy, sp
from .checks import as_float, check_physical, labelled_numbers
from .friction import Friction  # noqa: F401  (re-exported: the readers import it from here)
from .joints import (
    FREE,
    JOINT_MODELS,
    JOINT_TYPES,
    PRISMATIC,  # noqa: F401  (re-exported: the readers import it from here)
    REVOLUTE,  # noqa: F401  (re-exported: the readers import it from here)
    difference_joint,
    integrate_joint,
    joint_rate,
    neutral_joint,
)
from .number_walk import (
    PLAIN,
    map_dataclass,
    map_numbers,
    plain_and_finite,
    walk_numbers,
)


@dataclass(frozen=True)
class Transform:
    """A rigid transform ``x -> rotation @ x + translation`` (3x3 rows, 3-vector)."""

    rotation: la.Mat3 = la.IDENTITY3
    translation: la.Vec3 = la.ZERO3

    def __matmul__(self, other: Transform) -> Transform:
        return Transform(
            la.matmul(self.rotation, other.rotation),
            la.add(la.matvec(self.rotation, other.translation), self.translation),
        )

    def apply(self, point: la.Vec3) -> la.Vec3:
        return la.add(la.matvec(self.rotation, point), self.translation)

    def inverse(self) -> Transform:
        """``x -> R^T (x - p)``: the transform back."""
        rt = la.transpose(self.rotation)
        return Transform(rt, la.neg(la.matvec(rt, self.translation)))

    def map(self, f) -> Transform:
        return Transform(map_numbers(f, self.rotation), map_numbers(f, self.translation))

    @staticmethod
    def rot_x(angle) -> Transform:
        c, s = sp.cos(angle), sp.sin(angle)
        return Transform(((1, 0, 0), (0, c, -s), (0, s, c)))

    @staticmethod
    def rot_z(angle) -> Transform:
        c, s = sp.cos(angle), sp.sin(angle)
        return Transform(((c, -s, 0), (s, c, 0), (0, 0, 1)))

    @staticmethod
    def from_rpy(xyz, rpy) -> Transform:
        """URDF-style ``<origin xyz rpy>`` with SymPy angles (:func:`rpy_rotation`)."""
        return Transform(rpy_rotation(*rpy, cos=sp.cos, sin=sp.sin), tuple(xyz))

    @staticmethod
    def trans(x=0, y=0, z=0) -> Transform:
        return Transform(la.IDENTITY3, (x, y, z))


def rpy_rotation(roll, pitch, yaw, cos=math.cos, sin=math.sin) -> la.Mat3:
    """Roll-pitch-yaw about the fixed axes x, y, z (URDF ``rpy``):
    ``R = Rz(yaw) Ry(pitch) Rx(roll)``; ``cos``/``sin`` for the scalar type (floats, SymPy)."""
    cr, sr = cos(roll), sin(roll)
    cp, spi = cos(pitch), sin(pitch)
    cy, sy = cos(yaw), sin(yaw)
    return (
        (cy * cp, cy * spi * sr - sy * cr, cy * spi * cr + sy * sr),
        (sy * cp, sy * spi * sr + cy * cr, sy * spi * cr - cy * sr),
        (-spi, cp * sr, cp * cr),
    )


@dataclass(frozen=True)
class Joint:
    """One joint: ``type`` a name of :data:`~robodyn.model.joints.JOINT_MODELS` (revolute,
    prismatic, spherical, free), unit ``axis`` in the joint frame and ``offset`` added to
    the joint variable (one-value joints), ``placement`` of the joint frame in the parent
    link frame (at zero joint value)."""

    type: str
    axis: la.Vec3 = (0, 0, 1)
    offset: Any = 0
    placement: Transform = field(default_factory=Transform)
    name: str = ""
    limits: tuple | None = None  # (lower, upper, velocity, effort), if known

    def __post_init__(self):
        if self.type not in JOINT_MODELS:
            raise ModelError(f"joint {self.name!r:.60}: type {excerpt(self.type)} is not a joint "
                             f"type; one of {', '.join(JOINT_TYPES)}")

    @property
    def model(self):
        """The :class:`~robodyn.model.joints.JointModel` of the joint's type."""
        return JOINT_MODELS[self.type]

    @property
    def nq(self) -> int:
        return JOINT_MODELS[self.type].nq

    @property
    def nv(self) -> int:
        return JOINT_MODELS[self.type].nv

    @property
    def unit(self) -> str:
        """The unit of the joint variable: ``"rad"`` (revolute, spherical) or ``"m"``
        (prismatic, a free joint's position)."""
        return JOINT_MODELS[self.type].units[0]

    @property
    def units(self) -> tuple[str, ...]:
        """The unit of the position of each velocity coordinate (``rad`` or ``m``)."""
        return JOINT_MODELS[self.type].units

    @property
    def torque_unit(self) -> str:
        """The unit of the joint's torque: ``"N m"`` (revolute) or ``"N"`` (prismatic)."""
        return "N m" if self.unit == "rad" else "N"


@dataclass(frozen=True)
class Inertial:
    """Mass, centre of mass and inertia tensor about the centre of mass (link frame)."""

    mass: Any = 0
    com: la.Vec3 = (0, 0, 0)
    inertia: la.Mat3 = ((0, 0, 0), (0, 0, 0), (0, 0, 0))


@dataclass(frozen=True)
class PointMass:
    """A mass ``mass`` concentrated at the point ``at`` of a link (link frame)."""

    mass: Any = 0
    at: la.Vec3 = (0, 0, 0)


#: The inertia tensor of a point about itself.
ZERO_INERTIA = ((0, 0, 0), (0, 0, 0), (0, 0, 0))


@dataclass(frozen=True)
class Motor:
    """The joint's drive: rotor inertia ``inertia`` (``J_m``) behind a gear of ratio
    ``gear_ratio`` (``G``, motor turns per joint turn). Its reflected inertia
    ``G^2 J_m`` (the *armature*) adds to ``M[i, i]``; the rotor's gyroscopic coupling
    with the moving links is neglected (the convention of the Robotics Toolbox and of
    Pinocchio's ``armature``). ``efficiency`` ``eta`` (``0 < eta <= 1``) of the gear when
    the motor drives the joint (``tau qd > 0``: the motor supplies ``tau qd / eta``) and
    ``efficiency_back`` ``eta_b`` when the joint drives the motor (it receives
    ``eta_b tau qd``; ``None``: ``eta``): the losses of :func:`robodyn.energy.consumed`;
    they do not enter the dynamics.

    Optional, ``None`` when absent (:mod:`robodyn.model.checks`): ``stiffness`` ``K``
    (> 0) and ``spring_damping`` ``D`` of an elastic joint (any joints), link side
    (Spong's model, :func:`robodyn.motion.elastic.springs_of`: the rotor, ``B = G^2 J_m``,
    sits behind the spring); a DC motor's ``resistance`` ``R``, ``inductance`` ``L``,
    ``torque_constant`` ``k_t`` and ``back_emf_constant`` ``k_b``
    (:func:`robodyn.motion.electrics.motors_of`)."""

    inertia: Any = 0
    gear_ratio: Any = 1
    efficiency: Any = 1
    efficiency_back: Any = None
    stiffness: Any = None
    spring_damping: Any = None
    resistance: Any = None
    inductance: Any = None
    torque_constant: Any = None
    back_emf_constant: Any = None

    @property
    def back(self):
        """``eta_b``, the efficiency when the joint drives the motor."""
        return self.efficiency if self.efficiency_back is None else self.efficiency_back

    @property
    def armature(self):
        """``G^2 J_m``, the reflected rotor inertia seen at the joint."""
        return self.gear_ratio * self.gear_ratio * self.inertia


@dataclass(frozen=True)
class Link:
    """A body moved by its joint (see the module docstring for the frames)."""

    name: str
    joint: Joint
    inertial: Inertial = field(default_factory=Inertial)
    friction: Friction = field(default_factory=Friction)
    motor: Motor = field(default_factory=Motor)
    point_masses: tuple[PointMass, ...] = ()


def link_bodies(link: Link) -> tuple[Inertial, ...]:
    """The rigid bodies of a link, each as an :class:`Inertial` in the link frame: its
    body, then each point mass (inertia zero about its point)."""
    return (link.inertial, *(Inertial(p.mass, p.at, ZERO_INERTIA) for p in link.point_masses))


def origin_inertia(link: Link):
    """``(m, h, I_o)`` of the whole link in its frame: total mass, first moment
    ``h = sum m_b c_b`` and inertia about the frame origin ``I_o = sum I_b + m_b (|c_b|^2 1
    - c_b c_b^T)`` (parallel-axis theorem), summed over :func:`link_bodies`. Linear in the
    masses, so it works on any scalars (SymPy, the code generator's tape)."""
    m, h, io = 0, la.ZERO3, ZERO_INERTIA
    for body in link_bodies(link):
        m = m + body.mass
        h = la.add(h, la.scale(body.mass, body.com))
        io = la.mat_add(io, la.mat_add(body.inertia, la.point_mass_tensor(body.mass, body.com)))
    return m, h, io


def folded(link: Link) -> Link:
    """The link with its point masses folded into one body: total mass, common centre of
    mass ``c = h / m`` and the inertia about it ``I_o - m (|c|^2 1 - c c^T)``; numbers only
    (a massless link keeps its centre of mass). For URDF export, where a link has one
    ``<inertial>``."""
    if not link.point_masses:
        return link
    m, h, io = origin_inertia(link)
    m = float(m)
    c = tuple(float(x) / m for x in h) if m > 0 else tuple(link.inertial.com)
    shift = la.point_mass_tensor(m, c)
    inertia = tuple(tuple(float(io[r][k]) - float(shift[r][k]) for k in range(3))
                    for r in range(3))
    return replace(link, inertial=Inertial(m, c, inertia), point_masses=())


@dataclass(frozen=True)
class Frame:
    """A named frame fixed to a link (a URDF link merged on a ``fixed`` joint, a tool, a
    hand): ``placement`` in the frame of link ``link`` (0-based; ``-1`` is the base)."""

    name: str
    link: int
    placement: Transform = field(default_factory=Transform)


@dataclass(frozen=True)
class Chain:
    """A kinematic tree of links (a serial chain when every link hangs from the one
    before), gravity in the base frame, the end-effector frame in the last link frame.

    ``parents``: the index of each link's parent link (0-based; ``-1`` the base), each
    smaller than the link's own, so ``links`` lists parents before children (Featherstone's
    regular numbering, §4.1.2); empty for a serial chain (``parents[i] = i - 1``).
    ``frames``: named frames fixed to links (:class:`Frame`), beside the links' own.
    A free-flying base is the first link, moved by a ``free`` joint from the world
    (:func:`with_free_base`; :attr:`floating`). ``planar``: the model says
    its revolute joints are all parallel, so only each link's moment about that axis
    matters (an inertia that breaks the triangle inequality is then expected, not warned
    about)."""

    links: tuple[Link, ...]
    gravity: la.Vec3
    tip: Transform = field(default_factory=Transform)
    planar: bool = False
    parents: tuple[int, ...] = ()
    frames: tuple[Frame, ...] = ()
    #: Loop closures, joint couplings and actuated joints of a closed mechanism
    #: (:class:`~robodyn.model.loops.Closures`, docs/closed-chains.md); None: a tree.
    closures: Any = None
    #: A coupled transmission ``theta = N q`` (:class:`~robodyn.model.transmission.Transmission`;
    #: a diagonal one is folded into the links' motors instead); None: none.
    transmission: Any = None
    #: LuGre friction parameters (:class:`~robodyn.model.lugre.LuGre`) for
    #: :func:`robodyn.motion.lugre.simulate_lugre`; None: none.
    lugre: Any = None

    def __post_init__(self):
        if self.parents:
            parents = tuple(self.parents)
            if len(parents) != len(self.links):
                raise ModelError(f"parents: {len(parents)} entries for {len(self.links)} links; "
                                 "give one parent index per link")
            for i, p in enumerate(parents):
                if not isinstance(p, int) or isinstance(p, bool) or not -1 <= p < i:
                    raise ModelError(
                        f"parents[{i}]: {excerpt(p)} is not the index of an earlier link; a "
                        "link's parent is -1 (the base) or a link listed before it")
            # a chain that is serial after all keeps the empty form, so it compares equal
            object.__setattr__(self, "parents",
                               () if parents == tuple(range(-1, len(parents) - 1)) else parents)

    @property
    def dof(self) -> int:
        """The number of links (joints); with one-value joints only, also ``nq`` and ``nv``."""
        return len(self.links)

    @property
    def nq(self) -> int:
        """Values of a configuration ``q``: the sum of the joints' ``nq``."""
        return sum(link.joint.nq for link in self.links)

    @property
    def nv(self) -> int:
        """Values of a velocity, acceleration or generalised force: the joints' ``nv``."""
        return sum(link.joint.nv for link in self.links)

    @property
    def single_valued(self) -> bool:
        """Every joint has one value (revolute or prismatic): ``q``, ``v`` per joint."""
        return all(link.joint.model.single for link in self.links)

    def q_offsets(self) -> tuple[int, ...]:
        """The index of each joint's first value in ``q`` (Pinocchio's ``idx_q``)."""
        return _offsets(link.joint.nq for link in self.links)

    def v_offsets(self) -> tuple[int, ...]:
        """The index of each joint's first value in ``v`` (Pinocchio's ``idx_v``)."""
        return _offsets(link.joint.nv for link in self.links)

    def per_joint(self, values: Sequence, velocity: bool = True) -> list:
        """``values`` (``nv`` velocity-like values, or ``nq`` with ``velocity=False``) split
        per joint: a scalar for a one-value joint, a tuple for the others."""
        out, k = [], 0
        for link in self.links:
            width = link.joint.nv if velocity else link.joint.nq
            out.append(values[k] if link.joint.model.single else tuple(values[k:k + width]))
            k += width
        return out

    def velocity_parents(self) -> tuple[int, ...]:
        """The parent of each velocity coordinate in the expanded tree (Featherstone's
        ``lambda`` with each multi-value joint a chain of its coordinates): the coordinate
        before it in the same joint, else the last coordinate of the parent joint (``-1``:
        none). ``M[i, j]`` is zero unless one of ``i``, ``j`` is an ancestor of the other."""
        offsets, out = self.v_offsets(), []
        for i, link in enumerate(self.links):
            p = self.parent(i)
            last = offsets[p] + self.links[p].joint.nv - 1 if p >= 0 else -1
            for k in range(link.joint.nv):
                out.append(last if k == 0 else offsets[i] + k - 1)
        return tuple(out)

    def velocity_labels(self) -> list[str]:
        """A label per velocity coordinate: ``joint 2 (elbow)``, ``joint 1 (base) w_x``."""
        out = []
        for j, link in enumerate(self.links):
            name = f"joint {j + 1} ({link.joint.name or link.name})"
            out += [name] if link.joint.model.single else \
                [f"{name} {c}" for c in link.joint.model.coordinates]
        return out

    def torque_units(self) -> list[str]:
        """The unit of each generalised force: ``N m`` about a turning coordinate, ``N``
        along a sliding one (a free joint's force, then its moment)."""
        return ["N m" if unit == "rad" else "N"
                for link in self.links for unit in link.joint.units]

    def neutral(self) -> np.ndarray:
        """The zero configuration ``(nq,)``: each quaternion the identity."""
        return np.concatenate([neutral_joint(link.joint.model) for link in self.links]) \
            if self.links else np.zeros(0)

    def integrate(self, q, v, dt: float = 1.0) -> np.ndarray:
        """``q ⊕ v dt`` joint by joint (:func:`~robodyn.model.joints.integrate_joint`);
        ``q`` ``(..., nq)``, ``v`` ``(..., nv)`` broadcast together."""
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float) * dt
        return self._joint_wise(q, v, integrate_joint)

    def difference(self, q0, q1) -> np.ndarray:
        """``q1 ⊖ q0``, the velocity ``(..., nv)`` that :meth:`integrate` turns ``q0`` into
        ``q1`` with in unit time (:func:`~robodyn.model.joints.difference_joint`)."""
        q0, q1 = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
        lead = np.broadcast_shapes(q0.shape[:-1], q1.shape[:-1])
        parts = []
        for link, k in zip(self.links, self.q_offsets(), strict=True):
            model = link.joint.model
            parts.append(difference_joint(
                model, np.broadcast_to(q0[..., k:k + model.nq], lead + (model.nq,)),
                np.broadcast_to(q1[..., k:k + model.nq], lead + (model.nq,))))
        return np.concatenate(parts, axis=-1) if parts else np.zeros(lead + (0,))

    def configuration_rate(self, q, v) -> np.ndarray:
        """``dq/dt`` of the configuration ``(..., nq)`` for the velocity ``(..., nv)``."""
        return self._joint_wise(np.asarray(q, dtype=float), np.asarray(v, dtype=float),
                                joint_rate)

    def normalized(self, q) -> np.ndarray:
        """``q`` with every quaternion scaled to unit norm."""
        q = np.array(q, dtype=float)
        for link, k in zip(self.links, self.q_offsets(), strict=True):
            start = link.joint.model.quaternion
            if start is not None:
                part = q[..., k + start:k + start + 4]
                part /= np.linalg.norm(part, axis=-1, keepdims=True)
        return q

    def _joint_wise(self, q, v, step) -> np.ndarray:
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        parts = []
        for link, kq, kv in zip(self.links, self.q_offsets(), self.v_offsets(), strict=True):
            model = link.joint.model
            qj = np.broadcast_to(q[..., kq:kq + model.nq], lead + (model.nq,))
            vj = np.broadcast_to(v[..., kv:kv + model.nv], lead + (model.nv,))
            parts.append(step(model, qj, vj))
        return np.concatenate(parts, axis=-1) if parts else np.zeros(lead + (0,))

    @property
    def floating(self) -> bool:
        """The base is a free-flying body: the first link hangs from the world by a ``free``
        joint (Pinocchio's ``JointModelFreeFlyer`` at the root)."""
        return bool(self.links) and self.links[0].joint.type == FREE

    @property
    def is_serial(self) -> bool:
        """Every link hangs from the one before it."""
        return not self.parents

    def parent(self, i: int) -> int:
        """The index of link ``i``'s parent (``-1``: the base)."""
        return self.parents[i] if self.parents else i - 1

    @property
    def parent_indices(self) -> tuple[int, ...]:
        """``parent(i)`` for every link."""
        return self.parents or tuple(range(-1, self.dof - 1))

    def children(self, i: int) -> tuple[int, ...]:
        """The links whose parent is link ``i`` (``-1``: those on the base)."""
        return tuple(k for k, p in enumerate(self.parent_indices) if p == i)

    def ancestors(self, i: int) -> tuple[int, ...]:
        """Link ``i`` and the links between it and the base, from ``i`` down: the joints
        that move link ``i`` (the support of its Jacobian, the nonzeros of row ``i`` of M)."""
        out = []
        while i >= 0:
            out.append(i)
            i = self.parent(i)
        return tuple(out)

    def numbers(self) -> list:
        """Every number of the chain (SymPy expressions or floats), in a fixed order."""
        return list(self._numbers)

    @cached_property
    def _numbers(self) -> tuple:
        # walked once per chain (frozen): the parameters, the evaluation and the checks
        # each read every number, thousands in a humanoid
        out: list = []
        walk_numbers(self, out.append)
        return tuple(out)

    def holds_sympy(self) -> bool:
        """Whether a number of the chain is a SymPy expression (a YAML model's)."""
        sympy = sys.modules.get("sympy")
        return sympy is not None and any(isinstance(x, sympy.Basic) for x in self._numbers
                                         if type(x) not in PLAIN)

    def free_symbols(self) -> set[sp.Symbol]:
        out: set[sp.Symbol] = set()
        for x in self.numbers():
            if is_sympy(x) or is_parameter(x):
                out.update(x.free_symbols)
        return out

    def parameter_names(self) -> set[str]:
        """The names of :meth:`free_symbols`, without importing SymPy when the chain holds
        none of its objects (a URDF's plain numbers and its gravity :class:`Parameter`)."""
        out: set[str] = set()
        for x in self._numbers:
            if type(x) in PLAIN:
                continue
            if is_parameter(x):
                out.add(x.name)
            elif is_sympy(x):
                out.update(str(s) for s in x.free_symbols)
        return out

    def without_friction(self, viscous: bool = True, coulomb: bool = True) -> Chain:
        """This chain with its viscous (``viscous``) and Coulomb (``coulomb``: every other
        term of :class:`~robodyn.model.friction.Friction`, Stribeck and offset too)
        friction set to zero (:meth:`robodyn.Robot.without_friction`)."""
        def rigid(link):
            old = link.friction
            if viscous:
                old = replace(old, viscous=0)
            if coulomb:  # every term but the viscous one
                old = Friction(viscous=old.viscous)
            return replace(link, friction=old)

        return replace(self, links=tuple(rigid(link) for link in self.links))

    def map(self, f) -> Chain:
        """A copy with ``f`` applied to every number (not to names and types)."""
        return map_dataclass(f, self)

    def subs(self, values: Mapping[sp.Symbol, Any]) -> Chain:
        """Substitute numbers or expressions for symbols, keeping SymPy types."""
        def substituted(x):
            if is_parameter(x):
                x = x._sympy_()
            return x.xreplace(values) if is_sympy(x) else x

        return self.map(substituted)

    def _user_of(self, name: str) -> str:
        """``" (links[0].friction.viscous uses it)"``: the first field that holds the
        symbol ``name`` (a typo in a field reads as a symbol), or ``""``."""
        from .checks import labelled_numbers

        for label, x in labelled_numbers(self):
            if (is_parameter(x) and x.name == name) or (
                    is_sympy(x) and name in {str(s) for s in x.free_symbols}):
                return f" ({label} uses it)"
        return ""

    def evaluate(self, values: Mapping[str, float], source: str = "model") -> Chain:
        """The numeric chain: every number a finite real float, checked for physics.

        Raises :class:`ModelError` naming the first symbol without a value, the first
        number that is not finite and real with these values (by its field:
        ``links[1].mass``, ``links[0].inertia.xy``, ``gravity[2]``), or the first link
        whose mass or inertia is not physical.
        """
        table = {}
        for k, v in values.items():
            try:
                ok = math.isfinite(v)
            except TypeError:
                ok = False
            if not ok:
                raise ModelError(f"{source}: values.{k}: {excerpt(v)} is not a finite number")
            table[str(k)] = float(v)
        missing = sorted(name for name in self.parameter_names() if name not in table)
        if missing:
            raise ModelError(
                f"{source}: no value for symbol(s) {', '.join(missing)}; pass them with "
                f"robot.with_values({missing[0]}=...) or list them under 'values:' in the "
                f"model file{self._user_of(missing[0])}"
            )
        # SymPy's table only when the chain holds SymPy expressions (a YAML model's)
        holds_sympy = self.holds_sympy()
        symbols = {sp.Symbol(k): sp.Float(v) for k, v in table.items()} if holds_sympy else {}

        converted: dict = {}

        def to_float(x, path="a number"):
            if type(x) is float and math.isfinite(x):  # a file's number
                return x
            if is_parameter(x):
                return x.value(table)
            sympy_number = is_sympy(x)
            if sympy_number and x in converted:
                return converted[x]
            value, problem = as_float(x, symbols)
            if problem:
                symbolic = sympy_number and x.free_symbols
                raise ModelError(f"{source}: {path}: {excerpt(x)}"
                                 f"{' with these values' if symbolic else ''} {problem}")
            if sympy_number:
                converted[x] = value
            return value

        if holds_sympy or not plain_and_finite(self._numbers):
            for path, x in labelled_numbers(self):  # check each field, to name it
                to_float(x, path)
        # (plain finite numbers: nothing to name; a Parameter's value was checked above)
        numeric = snap_rotations(self.map(to_float))
        check_physical(numeric, source)
        return numeric


#: The name of the free joint :func:`with_free_base` adds (Pinocchio's for its free-flyer).
ROOT_JOINT = "root_joint"


def with_free_base(chain: Chain, body: Inertial, name: str = "base",
                   joint_name: str = ROOT_JOINT) -> Chain:
    """``chain`` on a free-flying base: a first link ``name`` with the body ``body`` (its
    mass, centre of mass and inertia about it in the base frame), moved from the world by a
    ``free`` joint, and every link and frame that hung from the base (``-1``) hanging from
    it; ``q`` gains ``[x, y, z, qx, qy, qz, qw]`` and ``v`` the base's body twist first."""
    base = Link(name, Joint(FREE, name=joint_name), body)
    parents = (-1, *(p + 1 for p in chain.parent_indices))
    frames = tuple(replace(f, link=f.link + 1) for f in chain.frames)
    return replace(chain, links=(base, *chain.links), parents=parents, frames=frames)


def split_free_base(chain: Chain) -> tuple[Link | None, Chain]:
    """The inverse of :func:`with_free_base`: ``(base link, the chain on it)`` when the first
    link is a free-flying base that every other root link hangs from, else ``(None,
    chain)``. A free base beside other links moving from the world is a
    :class:`ModelError` (a URDF's or a table's single base cannot say it)."""
    if not chain.floating:
        return None, chain
    parents = chain.parent_indices
    if any(p < 0 for p in parents[1:]):
        raise ModelError("the model has a free-flying base and other links moving from the "
                         "world; one base is expected here")
    rest = replace(chain, links=chain.links[1:], parents=tuple(p - 1 for p in parents[1:]),
                   frames=tuple(replace(f, link=f.link - 1) for f in chain.frames))
    return chain.links[0], rest


def _offsets(widths) -> tuple[int, ...]:
    out, k = [], 0
    for w in widths:
        out.append(k)
        k += w
    return tuple(out)


#: Rotation entries and axis components this close to 0 or +-1 are taken as exact
#: (URDF files write pi/2 as 1.57079632679; its cosine 5e-12 is rounding, not geometry).
#: Exact zeros let the generated code skip whole products.
SNAP = 1e-11


def snap(x):
    """``x`` made exactly 0 or +-1 when it is a number within :data:`SNAP` of one."""
    if not isinstance(x, float):
        return x
    for exact in (0.0, 1.0, -1.0):
        if abs(x - exact) < SNAP:
            return exact
    return x


def snap_rotations(chain: Chain) -> Chain:
    """Rotation entries and axes snapped with :func:`snap`."""
    def snapped(t: Transform) -> Transform:
        return Transform(map_numbers(snap, t.rotation), t.translation)

    links = tuple(
        replace(link, joint=replace(link.joint, placement=snapped(link.joint.placement),
                                    axis=map_numbers(snap, link.joint.axis)))
        for link in chain.links
    )
    return replace(chain, links=links, tip=snapped(chain.tip))
