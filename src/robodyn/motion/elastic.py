"""Elastic joints: Spong's model of a manipulator whose joints are springs between the motor
and the link (harmonic drives, belts, torque sensors).

Each joint has two positions: the link's ``q`` and the motor's ``theta`` (reflected through
the gear to the link side). With ``K`` the joints' stiffnesses, ``D`` the dampings of the
springs and ``B`` the motors' inertias (reflected, ``G^2 J_m``), all diagonal (M. W. Spong,
"Modeling and control of elastic joint robots", ASME J. Dynamic Systems, Measurement, and
Control 109(4), 1987, under his assumption that the motor's kinetic energy is that of its
own spin; A. De Luca and W. Book, "Robots with flexible elements", Springer Handbook of
Robotics)::

    link side:   M(q) q'' + C(q, q') q' + F(q') + g(q) = K (theta - q) + D (theta' - q')
    motor side:  B theta'' + K (theta - q) + D (theta' - q') = tau

``F`` is the link side's friction of the rigid model. The state has ``2n`` coordinates
``(q, theta, q', theta')``. As ``K -> inf`` the motor follows the link (``theta - q =
K^-1 (M q'' + C q' + F + g) -> 0``) and the two sides add up to the rigid model with the
motor inertia, ``(M + B) q'' + C q' + F + g = tau``, within ``O(1/K)``.

**Some joints elastic.** With only the joints ``E`` (``m = |E|`` of them) elastic, ``S``
the ``m x n`` matrix that selects them from ``q`` and ``P`` the one that selects the rigid
others, the state is ``(q [n], theta [m], q' [n], theta' [m])`` and (De Luca and Book,
the same model with rigid joints driven directly)::

    link side:   M(q) q'' + C q' + F + g = S^T [K (theta - S q) + D (theta' - S q')]
                                           + P^T P tau
    motor side:  B theta'' + K (theta - S q) + D (theta' - S q') = S tau

``tau`` is still one value per joint: an elastic joint's drives its motor, a rigid
joint's acts on its link. A rigid joint keeps its rotor's armature ``G^2 J_m`` in
``M(q)``; an elastic joint's rotor is only on the motor side (``B``). As ``K -> inf``
the model tends to the rigid one with every rotor's armature in ``M``.

:func:`simulate_elastic` integrates the state ``(q, theta, q', theta')`` by SciPy's
Radau IIA (implicit, fifth order),
because stiff springs make the equations stiff: their period ``2 pi sqrt(B / K)`` is far
shorter than the motion's, and an explicit method would need steps shorter still.

``tau`` is the motor torque: ``None`` (zero), one value per joint (constant), or a callable
``tau(t, q, theta, qd, thetad)`` (a controller, e.g.
:class:`~robodyn.motion.elastic.ElasticComputedTorque`).

A model file gives the springs as its motors' ``stiffness`` and ``spring_damping``
(:class:`~robodyn.model.chain.Motor`, on any of its joints); :func:`springs_of` reads them,
with ``B = G^2 J_m`` the rotor's reflected inertia (the *armature*). The rigid model adds
that armature to ``M[i, i]``; here the rotor sits behind the spring, on the motor side, so
the link side's ``M(q)`` is the rigid model's **without** the elastic joints' (:func:`link_side`):
counted once, as ``B``. Springs given by hand (:meth:`ElasticJoints.of`) to a robot whose
motors have an armature must give it as their ``motor_inertia``. ``rd.simulate`` refuses a
model with springs (its state is ``n``, not ``2n``) and points here; the rigid limit
``K -> inf`` is :func:`without_springs`.

**Behind a coupled transmission** (``transmission: {..., stiffness}``) the springs sit on
the motors' side of the coupling ``N``, one per motor, and ``theta`` are the motors' own
angles: :mod:`robodyn.motion.elastic_coupled` (:class:`CoupledSprings`, which
:func:`springs_of` gives and every function here takes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError, excerpt
from .control import checked_gains
from .elastic_coupled import CoupledSprings
from .options import time_grid

if TYPE_CHECKING:
    from ..model.chain import Chain
    from ..robot import Robot

__all__ = ["ElasticJoints", "elastic_forward_dynamics", "static_deflection",
           "simulate_elastic", "ElasticSimulation", "ElasticComputedTorque", "MAX_EVALUATIONS",
           "springs_of", "without_springs", "link_side", "refuse_springs",
           "has_springs", "checked_springs", "armature_of", "ELASTIC_METHODS",
           "elastic_method", "CoupledSprings", "link_side_of"]

def _per_joint(value, name: str, n: int, positive: bool, labels=None) -> np.ndarray:
    """``value`` as ``n`` finite numbers (``> 0`` when ``positive``, else ``>= 0``), one for
    all or one each; ``labels``: the 0-based joint of each entry, for the messages."""
    if isinstance(value, bool) or (isinstance(value, (list, tuple)) and any(
            isinstance(x, bool) for x in value)):
        raise InputError(f"{name}: expected a number or one per joint ({n}), got {value!r:.60}")
    try:
        arr = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a number or one per joint ({n})") from None
    bad = ~np.isfinite(arr) | ((arr <= 0) if positive else (arr < 0))
    if bad.any():
        j = int(np.argmax(bad))
        joint = j if labels is None else labels[j]
        raise InputError(f"{name}[{j}]: {arr[j]:g}; give a finite number "
                         + ("> 0" if positive else ">= 0") + f" for joint {joint + 1}")
    return arr


def _joint_list(joints, n: int) -> tuple[int, ...] | None:
    """The elastic joints' indices (0-based, increasing), ``None`` for every joint."""
    if joints is None:
        return None
    try:
        arr = np.asarray(joints).reshape(-1)
        ok = arr.size > 0 and arr.dtype.kind in "iuf" and bool(np.all(arr == np.round(arr)))
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"joints: expected the elastic joints' indices (0 to {n - 1}), e.g. "
                         f"[1], got {joints!r:.60}")
    index = [int(x) for x in arr]
    bad = [j for j in index if not 0 <= j < n]
    if bad:
        raise InputError(f"joints: {bad[0]} is not a joint of this robot; give indices 0 to "
                         f"{n - 1} (0-based)")
    if len(set(index)) != len(index):
        raise InputError(f"joints: {index} names a joint twice; give each elastic joint once")
    index.sort()
    return None if index == list(range(n)) else tuple(index)


@dataclass(frozen=True)
class ElasticJoints:
    """The springs of a robot's joints (module docstring): ``stiffness`` ``K`` (N m/rad or
    N/m, > 0), ``motor_inertia`` ``B`` (the motor's inertia reflected to the link side,
    ``G^2 J_m``, > 0) and ``damping`` ``D`` of the spring (>= 0), one per elastic joint
    each; ``joints`` the elastic joints' indices (0-based, increasing; ``None``: every
    joint). Build with :meth:`of`, which checks them against the robot."""

    stiffness: np.ndarray
    motor_inertia: np.ndarray
    damping: np.ndarray
    joints: tuple[int, ...] | None = None

    @classmethod
    def of(cls, robot, stiffness: ArrayLike, motor_inertia: ArrayLike,
           damping: ArrayLike = 0.0, joints: ArrayLike | None = None) -> ElasticJoints:
        """The springs of ``robot`` (one value for all elastic joints, or one per elastic
        joint) on the joints ``joints`` (0-based indices; ``None``: every joint); an
        :class:`~robodyn.InputError` naming the field for a value that is not finite and
        positive (``damping``: not negative), a joint index out of range or repeated, or a
        robot with free or ball joints."""
        if not robot.chain.single_valued:
            raise InputError("ElasticJoints: elastic joints are revolute or prismatic; this "
                             "robot has free or ball joints")
        chosen = _joint_list(joints, robot.dof)
        m = robot.dof if chosen is None else len(chosen)
        # the values follow the joints as given: joints=[1, 0] with stiffness [K1, K0] gives
        # joint 1 K1 (the springs are stored in increasing joint order)
        given = list(range(m)) if joints is None else [int(x) for x in np.reshape(joints, -1)]
        order = np.argsort(given, kind="stable")
        return cls(*(_per_joint(value, name, m, positive, given)[order] for value, name, positive
                     in ((stiffness, "stiffness", True), (motor_inertia, "motor_inertia", True),
                         (damping, "damping", False))), chosen)

    @property
    def dof(self) -> int:
        """The number of springs ``m`` (the motor side's coordinates)."""
        return self.stiffness.shape[0]

    def indices(self, n: int) -> np.ndarray:
        """The elastic joints' indices among a robot's ``n`` (``S`` as an index list)."""
        return np.arange(n) if self.joints is None else np.array(self.joints, dtype=int)

    def spring_torques(self, q, theta, qd, thetad) -> np.ndarray:
        """``K (theta - S q) + D (theta' - S q')``: what the springs pass to the links
        (``m`` values; ``q``, ``qd``: all ``n`` joints')."""
        if self.joints is not None:
            q, qd = np.asarray(q)[..., self.joints], np.asarray(qd)[..., self.joints]
        return self.stiffness * (np.asarray(theta) - q) + self.damping * (np.asarray(thetad)
                                                                          - qd)

    def link_torques(self, spring, tau) -> np.ndarray:
        """``S^T spring + P^T P tau``: the torques on the links, the springs' on the elastic
        joints and the inputs ``tau`` (``n`` values) on the rigid ones."""
        if self.joints is None:
            return spring
        spring = np.asarray(spring, dtype=float)
        out = np.array(np.broadcast_to(np.asarray(tau, dtype=float),
                                       spring.shape[:-1] + np.shape(tau)[-1:]))
        out[..., self.joints] = spring
        return out

    def motor_torques(self, tau) -> np.ndarray:
        """``S tau``: the inputs that drive the elastic joints' motors."""
        tau = np.asarray(tau, dtype=float)
        return tau if self.joints is None else tau[..., self.joints]

    def motor_accelerations(self, spring, tau, thetad) -> np.ndarray:
        """``theta'' = B^-1 (S tau - spring)``, one per spring."""
        return (self.motor_torques(tau) - spring) / self.motor_inertia

    def deflection(self, q, theta) -> np.ndarray:
        """The springs' deflection ``theta - S q``, ``(..., m)``."""
        return np.asarray(theta, dtype=float) - self.motor_torques(q)

    def held(self, q, gravity) -> np.ndarray:
        """The motor positions that hold the links at rest at ``q`` under their weight's
        torques ``gravity`` (``g(q)``): ``theta = S q + K^-1 S g(q)``."""
        return self.motor_torques(q) + self.motor_torques(gravity) / self.stiffness

    def spring_energy(self, q, theta) -> np.ndarray:
        """``1/2 (theta - S q)^T K (theta - S q)``, ``(...)``."""
        d = self.deflection(q, theta)
        return 0.5 * np.sum(self.stiffness * d * d, axis=-1)

    def motor_energy(self, thetad) -> np.ndarray:
        """The rotors' kinetic energy ``1/2 theta'^T B theta'``, ``(...)``."""
        thetad = np.asarray(thetad, dtype=float)
        return 0.5 * np.sum(self.motor_inertia * thetad * thetad, axis=-1)

    def motor_power(self, q, qd, thetad, tau) -> np.ndarray:
        """The inputs' power: ``(S tau)^T theta'`` on the motors, ``(P tau)^T (P q')`` on
        the rigid joints' links, ``(...)``."""
        tau, qd = np.asarray(tau, dtype=float), np.asarray(qd, dtype=float)
        rigid = tau * qd
        if self.joints is not None:
            rigid[..., list(self.joints)] = 0.0
        power = np.sum(self.motor_torques(tau) * np.asarray(thetad), axis=-1)
        return power + (np.sum(rigid, axis=-1) if self.joints is not None else 0.0)

    def dissipation(self, q, qd, thetad) -> np.ndarray:
        """The power the springs' damping takes, ``d'^T D d'`` (``d' = theta' - S q'``)."""
        rate = self.deflection(qd, thetad)
        return np.sum(self.damping * rate * rate, axis=-1)


def springs_of(chain: Chain) -> ElasticJoints | CoupledSprings | None:
    """The springs a model gives its joints, or ``None`` when it gives none: ``K`` its
    motors' ``stiffness``, ``D`` their ``spring_damping`` (default 0) and ``B = G^2 J_m``
    their armature (:class:`~robodyn.model.chain.Motor`), on the joints whose motor has a
    ``stiffness`` (the others rigid). ``chain``: a numeric chain (``robot.numeric_chain``),
    whose checks (:func:`~robodyn.model.checks.check_drives`) made ``K > 0``, ``D >= 0``,
    ``B > 0``. A coupled transmission with ``stiffness`` gives
    :class:`~robodyn.motion.elastic_coupled.CoupledSprings` (a spring per motor)."""
    tr = getattr(chain, "transmission", None)
    if tr is not None and tr.stiffness is not None:
        return CoupledSprings(tr)
    motors = [link.motor for link in chain.links]
    chosen = [j for j, m in enumerate(motors) if m.stiffness is not None]
    if not chosen:
        return None
    if tr is not None:
        raise InputError("motor.stiffness: springs on the joints behind a coupled "
                         "transmission; give them to the motors instead (transmission: "
                         "{..., stiffness: [K_m, ...]})")
    n = len(chosen)
    motors = [motors[j] for j in chosen]
    return ElasticJoints(
        _per_joint([float(m.stiffness) for m in motors], "motor.stiffness", n, True),
        _per_joint([float(m.armature) for m in motors], "motor.inertia (G^2 J_m)", n, True),
        _per_joint([float(m.spring_damping or 0.0) for m in motors], "motor.spring_damping",
                   n, False), _joint_list(chosen, len(chain.links)))


def has_springs(robot: Robot) -> bool:
    """Whether ``robot``'s model gives its joints springs (``motor.stiffness``, or a
    transmission's ``stiffness``)."""
    tr = getattr(robot.chain, "transmission", None)
    return (tr is not None and tr.stiffness is not None) or any(
        link.motor.stiffness is not None for link in robot.chain.links)


def refuse_springs(robot: Robot, what: str) -> None:
    """An :class:`~robodyn.InputError` for ``what`` (``"rd.simulate"``) of a robot with
    elastic joints, which moves on the ``2n`` state of :func:`simulate_elastic`."""
    if has_springs(robot):
        tr = getattr(robot.chain, "transmission", None)
        field = "motor.stiffness" if tr is None or tr.stiffness is None else \
            "transmission.stiffness"
        raise InputError(f"{what}: {robot.name}'s joints are elastic ({field}), its "
                         "state is (q, theta, q', theta'); simulate it with robodyn.motion."
                         "elastic.simulate_elastic(robot, None, q0, duration=..., dt=...), or "
                         "the rigid limit (K -> inf) with rd.simulate(robodyn.motion.elastic."
                         "without_springs(robot), ...)")


def _rigid_chain(robot: Robot, rotors, joints=None) -> Chain:
    """``robot``'s chain without springs; ``rotors=False``: without the rotors' inertia too,
    on the joints ``joints`` (``None``: every joint)."""
    from dataclasses import replace

    def motor(j, m):
        keep = rotors or (joints is not None and j not in joints)
        return replace(m, stiffness=None, spring_damping=None,
                       **({} if keep else {"inertia": 0}))

    links = tuple(replace(link, motor=motor(j, link.motor))
                  for j, link in enumerate(robot.chain.links))
    tr = getattr(robot.chain, "transmission", None)
    if tr is not None:   # elastic drives: rigid (K_m -> inf) or on the motor side only
        tr = replace(tr, stiffness=None, spring_damping=None) if rotors else None
    return replace(robot.chain, links=links, transmission=tr)


def without_springs(robot: Robot) -> Robot:
    """``robot`` with its joints rigid: the model's ``stiffness`` and ``spring_damping``
    removed (the limit ``K -> inf``: the rotor's armature ``G^2 J_m`` on ``M[i, i]``; a
    coupled transmission's ``N^T J_m N`` on ``M``)."""
    return robot.with_chain(_rigid_chain(robot, rotors=True))


def link_side(robot: Robot, joints: tuple[int, ...] | None = None) -> Robot:
    """The link side of ``robot``'s elastic-joint model, elastic on ``joints`` (0-based;
    ``None``: every joint): the rigid arm without the elastic joints' rotors
    (``motor.inertia`` 0: their armature ``G^2 J_m`` is the motor side's ``B``; a rigid
    joint keeps its own in ``M``) and without springs, ``M(q) q'' + C q' + F + g = tau``
    (module docstring); ``robot`` itself when those joints have no armature. Made once per
    simulation (a new robot: about 0.02 s)."""
    if not armature_of(robot)[slice(None) if joints is None else list(joints)].any():
        return robot
    return robot.with_chain(_rigid_chain(robot, rotors=False, joints=joints))


def link_side_of(robot: Robot, elastic) -> Robot:
    """The link side for ``elastic``: :func:`link_side`, or for springs behind a coupled
    transmission the links without it (its motors are the motor side,
    :mod:`robodyn.motion.elastic_coupled`)."""
    if isinstance(elastic, CoupledSprings):   # the rigid motors stay (none: the links')
        from dataclasses import replace

        return robot.with_chain(replace(_rigid_chain(robot, rotors=False),
                                        transmission=elastic.link_drives()))
    return link_side(robot, elastic.joints)


def armature_of(robot: Robot) -> np.ndarray:
    """Each joint's rotor inertia reflected through its gear, ``G^2 J_m`` (0 without one)."""
    return np.array([float(link.motor.armature) for link in robot.numeric_chain.links])


def checked_springs(robot: Robot, springs: ElasticJoints | None) -> ElasticJoints:
    """``springs``, or the model's (:func:`springs_of`) when ``None``; an
    :class:`~robodyn.InputError` when there are none, when they are for another number of
    joints, or when the robot's motors have an armature ``G^2 J_m`` that the springs'
    ``motor_inertia`` does not repeat (the rotor must be counted once, on the motor side)."""
    if springs is None:
        springs = springs_of(robot.numeric_chain)
        if springs is None:
            raise InputError("springs: the model gives its joints no stiffness (motor."
                             "stiffness); pass ElasticJoints.of(robot, stiffness, "
                             "motor_inertia) or give the model's motors a stiffness")
        return springs
    if isinstance(springs, CoupledSprings):
        return _checked_coupled(robot, springs)
    if not isinstance(springs, ElasticJoints):
        raise InputError("springs: expected robodyn.motion.elastic.ElasticJoints.of(robot, "
                         "stiffness, motor_inertia), or None for the model's")
    if springs.joints is None and springs.dof != robot.dof:
        raise InputError(f"springs: for {springs.dof} joints, the robot has {robot.dof}")
    if springs.joints is not None and max(springs.joints) >= robot.dof:
        raise InputError(f"springs: on joint {max(springs.joints) + 1}, the robot has "
                         f"{robot.dof}")
    index = springs.indices(robot.dof)
    armature = armature_of(robot)[index]
    bad = (armature > 0) & ~np.isclose(springs.motor_inertia, armature, rtol=1e-12, atol=0)
    if bad.any():
        j = int(np.argmax(bad))
        raise InputError(f"springs.motor_inertia[{j}]: {springs.motor_inertia[j]:g}, but the "
                         f"model's rotor gives joint {index[j] + 1} G^2 J_m = "
                         f"{armature[j]:g}; the rotor sits behind the spring (the motor "
                         "side's B), so give motor_inertia equal to it, or springs=None for "
                         "the model's")
    return springs


def _checked_coupled(robot: Robot, springs: CoupledSprings) -> CoupledSprings:
    """Springs behind a coupled transmission given by hand: for ``robot.dof`` motors, on a
    robot without rotors of its own (per joint, or a transmission with other motors: the
    springs' transmission is the whole drive)."""
    if len(springs.N) != robot.dof:
        raise InputError(f"springs: a transmission of {len(springs.N)} motors, the robot has "
                         f"{robot.dof} joints")
    tr = getattr(robot.chain, "transmission", None)
    same = tr is not None and (tr.matrix, tr.motor_inertia) == (
        springs.transmission.matrix, springs.transmission.motor_inertia)
    if armature_of(robot).any() or (tr is not None and not same):
        raise InputError("springs: the robot has motors of its own (motor.inertia, or another "
                         "transmission); CoupledSprings' transmission is the whole drive, so "
                         "give the robot without them, or springs=None for the model's")
    return springs


def elastic_forward_dynamics(robot, elastic: ElasticJoints, q, theta, qd, thetad,
                             tau) -> tuple[np.ndarray, np.ndarray]:
    """``(q'', theta'')`` of the elastic-joint model (module docstring) at one state or a
    batch: the link side (:func:`link_side`: the rigid model without the elastic joints'
    armature) by its forward dynamics under the spring torques (and, on rigid joints, the
    inputs ``tau``), the motor side ``theta'' = B^-1 (S tau - K (theta - S q) - D (theta' -
    S q'))``. ``q``, ``qd``, ``tau``: ``n`` values; ``theta``, ``thetad``: ``m``, one per
    spring. (A robot with an armature makes its link side at each call:
    :func:`simulate_elastic` makes it once.)"""
    return _accelerations(link_side_of(robot, elastic), elastic, q, theta, qd, thetad, tau)


def _accelerations(side, elastic, q, theta, qd, thetad, tau):
    spring = elastic.spring_torques(q, theta, qd, thetad)
    qdd = side.forward_dynamics(q, qd, elastic.link_torques(spring, tau))
    return qdd, elastic.motor_accelerations(spring, tau, thetad)


def static_deflection(robot, elastic: ElasticJoints, q) -> np.ndarray:
    """The motor positions that hold the links at rest at ``q``: ``theta = S q + K^-1 S g(q)``
    (the springs carry the weight of the elastic joints, the rigid joints' inputs ``P g(q)``
    the rest; friction is zero at rest); ``m`` values, one per spring. Behind a coupled
    transmission ``theta_m = N q + K_m^-1 N^-T g(q)``."""
    q = np.asarray(q, dtype=float)
    return elastic.held(q, robot.gravity_torques(q))


#: Evaluations of the equations of motion a simulation may spend (Radau's Newton
#: iterations and Jacobians included) before it stops with an error.
MAX_EVALUATIONS = 2_000_000


@dataclass(frozen=True)
class ElasticSimulation:
    """A run of :func:`simulate_elastic`: ``t`` ``(T,)``, ``q``, ``qd`` and the inputs
    ``tau`` ``(T, n)``, the motors' ``theta``, ``thetad`` ``(T, m)`` (one column per
    spring), ``evaluations`` of the equations and ``joints``, the elastic joints' indices
    (0-based; ``None``: every joint); ``coupling`` the matrix ``N`` of springs behind a
    coupled transmission (``theta``: the motors' own angles; ``None``: per joint),
    ``method`` the integrator's name, and with ``balance`` the inputs' ``work`` and the
    ``loss`` to damping and friction ``(T,)``, integrated with the state (else ``None``)."""

    t: np.ndarray
    q: np.ndarray
    theta: np.ndarray
    qd: np.ndarray
    thetad: np.ndarray
    tau: np.ndarray
    evaluations: int
    joints: tuple[int, ...] | None = None
    coupling: np.ndarray | None = None
    method: str = "radau"
    work: np.ndarray | None = None
    loss: np.ndarray | None = None

    @property
    def elastic(self) -> np.ndarray:
        """The elastic joints' indices (0-based), one per column of ``theta``."""
        return np.arange(self.q.shape[1]) if self.joints is None else np.array(self.joints)

    @property
    def deflection(self) -> np.ndarray:
        """The springs' deflection ``theta - S q`` ``(T, m)`` (``theta_m - N q`` behind a
        coupled transmission)."""
        if self.coupling is not None:
            return self.theta - self.q @ self.coupling.T
        return self.theta - self.q[:, self.elastic]

    def columns(self) -> dict[str, np.ndarray]:
        """Every series by name: ``t``, ``q1..qn``, ``theta<j>`` and ``thetad<j>`` for each
        elastic joint ``j`` (1-based: joint 2's motor is ``theta2``), ``qd1..qn``,
        ``tau1..taun``."""
        out = {"t": self.t}
        names = [f"{j + 1}" for j in self.elastic]
        for name, values, labels in (("q", self.q, None), ("theta", self.theta, names),
                                     ("qd", self.qd, None), ("thetad", self.thetad, names),
                                     ("tau", self.tau, None)):
            for k in range(values.shape[1]):
                out[f"{name}{labels[k] if labels else k + 1}"] = values[:, k]
        return out

    def every(self, k: int) -> ElasticSimulation:
        """Every ``k``-th sample (the first and, when ``k`` divides the count, the last)."""
        from dataclasses import fields, replace

        rows = {f.name: getattr(self, f.name)[::k] for f in fields(self)
                if f.name in ("t", "q", "theta", "qd", "thetad", "tau", "work", "loss")
                and getattr(self, f.name) is not None}
        return replace(self, **rows)

    def save(self, path) -> Path:
        """Write the run to ``.npz`` (arrays by name, :meth:`columns`) or ``.csv`` (a header,
        one row per sample)."""
        path = Path(path)
        columns, suffix = self.columns(), path.suffix.lower()
        if suffix not in (".npz", ".csv"):
            raise InputError(f"save: {path.name!r}: use a .npz or .csv file name")
        if suffix == ".npz":
            np.savez(path, **columns)
        else:
            np.savetxt(path, np.column_stack(list(columns.values())), delimiter=",",
                       header=",".join(columns), comments="", fmt="%.17g")
        return path


class _Budget(Exception):
    pass


#: The integrators of :func:`simulate_elastic`: SciPy's implicit methods (stiff springs).
ELASTIC_METHODS = {"radau": ("Radau", "Radau IIA, implicit, fifth order"),
                   "bdf": ("BDF", "BDF, implicit, variable order 1 to 5")}


def elastic_method(method: str, field: str = "method") -> str:
    """SciPy's name of ``method`` (:data:`ELASTIC_METHODS`), or an
    :class:`~robodyn.InputError` naming it: the explicit and fixed-step methods of
    :func:`robodyn.simulate` are refused for the stiff springs."""
    if method not in ELASTIC_METHODS:
        raise InputError(f"{field}: {method!r} is not for elastic joints; their springs make "
                         "the equations stiff (a period 2 pi sqrt(B/K) far shorter than the "
                         "motion), so give an implicit method: "
                         f"{', '.join(ELASTIC_METHODS)}")
    return ELASTIC_METHODS[method][0]


def _checked_torque(tau, n: int):
    """The callable ``tau(t, q, theta, qd, thetad)`` with each value checked (``n`` finite
    numbers, one for all allowed); an :class:`~robodyn.InputError` up front when it cannot
    take the elastic run's five arguments (a rigid ``tau(t, q, qd)`` given by mistake)."""
    import inspect

    from .inputs import state_vector

    try:
        inspect.signature(tau).bind(0.0, None, None, None, None)
    except TypeError:
        raise InputError("tau: the elastic run calls tau(t, q, theta, qd, thetad) (links' and "
                         "motors' positions and rates); wrap a rigid tau(t, q, qd) as lambda "
                         "t, q, th, qd, thd: tau(t, q, qd)") from None
    except ValueError:  # no signature (a builtin): called as it is
        pass

    def torque(t, q, theta, qd, thetad):
        return state_vector(tau(t, q, theta, qd, thetad), "tau(t, q, theta, qd, thetad)", n)

    return torque


def simulate_elastic(robot, springs: ElasticJoints | None = None, q0: ArrayLike | None = None,
                     *, duration: float,
                     dt: float, theta0: ArrayLike | None = None, qd0: ArrayLike | None = None,
                     thetad0: ArrayLike | None = None, tau=None, rtol: float = 1e-8,
                     atol: float = 1e-10, max_evaluations: int = MAX_EVALUATIONS,
                     method: str = "radau", balance: bool = False) -> ElasticSimulation:
    """Integrate the elastic-joint model with ``springs`` (``None``: the model's,
    :func:`springs_of`; :func:`checked_springs`) from ``q0`` (motors at ``theta0``, default the
    static deflection ``S q0 + K^-1 S g(q0)`` that holds the links at rest; rates ``qd0``,
    ``thetad0``, default 0) for ``duration`` seconds, the state
    saved every ``dt``. ``theta0``, ``thetad0``: one value per spring (``m``); ``q0``,
    ``qd0``, ``tau``: one per joint (``n``; ``tau`` also a callable ``tau(t, q, theta, qd,
    thetad)``, each value checked). ``method`` ``"radau"`` (Radau IIA) or
    ``"bdf"`` (:data:`ELASTIC_METHODS`) with ``rtol``, ``atol``, steps at most ``dt``; an
    :class:`~robodyn.InputError` when the equations were evaluated ``max_evaluations``
    times (the budget) before the end. Springs behind a coupled transmission
    (:mod:`robodyn.motion.elastic_coupled`): ``theta`` are the motors' angles, ``tau``
    the joint torques ``N^T tau_m``. ``balance``: integrate with the state the inputs' work
    and the power lost to the springs' damping and the friction (two more states, the
    run's ``work`` and ``loss``, for :func:`~robodyn.motion.elastic_energy.elastic_energy`)."""
    from scipy.integrate import solve_ivp  # SciPy only when used

    scipy_method = elastic_method(method)
    elastic = checked_springs(robot, springs)
    n, m = robot.dof, elastic.dof
    times = time_grid(duration, dt)   # checked: positive, dt <= duration, a bounded count

    def vector(value, name, default, size=n):
        try:
            arr = default if value is None else np.asarray(value, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            arr = np.full(1, np.nan)
        if arr.shape != (size,) or not np.isfinite(arr).all():
            raise InputError(f"{name}: expected {size} finite values, got {excerpt(value)}")
        return arr

    q0 = vector(q0, "q0", None) if q0 is not None else None
    if q0 is None:
        raise InputError(f"q0: expected {n} finite values")
    theta0 = vector(theta0, "theta0", static_deflection(robot, elastic, q0), m)
    qd0 = vector(qd0, "qd0", np.zeros(n))
    thetad0 = vector(thetad0, "thetad0", np.zeros(m), m)
    if tau is None:
        def torque(t, q, th, qd, thd):
            return np.zeros(n)
    elif callable(tau):
        torque = _checked_torque(tau, n)
    else:
        constant = vector(tau, "tau", None)

        def torque(t, q, th, qd, thd):
            return constant

    count = [0]
    side = link_side_of(robot, elastic)
    rubs = balance and bool(np.any(side.friction_torques(np.ones(n))))   # link friction
    size = 2 * (n + m)

    def rhs(t, x):
        count[0] += 1
        if count[0] > max_evaluations:
            raise _Budget
        q, th, qd, thd = x[:n], x[n:n + m], x[n + m:2 * n + m], x[2 * n + m:size]
        tau = torque(t, q, th, qd, thd)
        qdd, thdd = _accelerations(side, elastic, q, th, qd, thd, tau)
        if not balance:
            return np.concatenate([qd, thd, qdd, thdd])
        lost = elastic.dissipation(q, qd, thd) + (side.friction_torques(qd) @ qd if rubs
                                                  else 0.0)
        return np.concatenate([qd, thd, qdd, thdd,
                               [elastic.motor_power(q, qd, thd, tau), lost]])

    start = np.concatenate([q0, theta0, qd0, thetad0] + ([np.zeros(2)] if balance else []))
    try:
        sol = solve_ivp(rhs, (0.0, float(times[-1])), start, method=scipy_method,
                        t_eval=times, rtol=rtol, atol=atol, max_step=dt)
    except _Budget:
        raise InputError(f"simulate_elastic: the equations were evaluated {max_evaluations:,} "
                         "times (max_evaluations) before the end; raise the budget, shorten "
                         "the duration, or loosen rtol/atol") from None
    if not sol.success:
        raise InputError(f"simulate_elastic: the integrator stopped: {sol.message}")
    x = sol.y.T
    q, th = x[:, :n], x[:, n:n + m]
    qd, thd = x[:, n + m:2 * n + m], x[:, 2 * n + m:size]
    tau_out = np.array([torque(t, *row) for t, row in
                        zip(sol.t, zip(q, th, qd, thd, strict=True), strict=True)])
    coupled = isinstance(elastic, CoupledSprings)   # N_E; theta<k>: motor k's
    coupling, labels = (elastic.rows, elastic.motors) if coupled else (None, elastic.joints)
    work, loss = (x[:, size], x[:, size + 1]) if balance else (None, None)
    return ElasticSimulation(sol.t, q, th, qd, thd, tau_out.reshape(len(sol.t), n), count[0],
                             labels, coupling, method, work, loss)


class ElasticComputedTorque:
    """A controller for elastic joints that treats them as rigid and damps the springs:
    ``tau = (M(q) + B) y + C q' + F + g(q) + K_v (q' - theta')`` with ``y = q''_ref + K_D
    (q'_ref - q') + K_P (q_ref - q)`` — computed torque on the rigid model with the motors'
    inertia, plus the fast damping term of the singular-perturbation (composite) control of
    Spong (1987): the slow system is the rigid arm, and ``K_v`` damps the joints' fast
    oscillation. ``elastic``: ``None`` for the model's springs (:func:`checked_springs`);
    a model's armature in ``M`` is counted once, as ``B``. With only some joints elastic
    (``S``: module docstring) ``B`` and ``K_v (q' - theta')`` enter their rows only (``K_v``:
    one per joint, the rigid joints' unused): the rigid joints' rows are computed torque on
    their links, the elastic joints' drive their motors. The tracking error is ``O(1/K)``:
    exact as ``K -> inf``. Behind a coupled transmission (:mod:`~robodyn.motion.
    elastic_coupled`) the rigid model is the coupled one (``M + N^T J_m N``, the motors'
    friction reflected) and the damping acts on the motors, ``N^T K_v (N q' - theta_m')``
    (``K_v`` one per motor; with some motors rigid, ``N_E^T K_v (N_E q' - theta_E')``).
    ``trajectory``: a :class:`~robodyn.motion.trajectory.Trajectory` of the links."""

    def __init__(self, robot, elastic: ElasticJoints | None, trajectory, kp, kd, kv=0.0):
        if not callable(trajectory):  # it was Python's TypeError at the run's first call
            raise InputError(f"trajectory: expected a Trajectory (t -> q, qd, qdd), e.g. "
                             f"rd.trajectory.quintic(q0, q1, T), got {excerpt(trajectory)}")
        self.robot, self.trajectory = robot, trajectory
        self.elastic = checked_springs(robot, elastic)
        n = robot.dof
        self.index = self.elastic.indices(n)
        self.armature = armature_of(robot)[self.index]   # in robot's M already; B replaces it
        self.kp, self.kd = checked_gains(kp, "kp", n), checked_gains(kd, "kd", n)
        self.kv = checked_gains(kv, "kv", n)
        if isinstance(self.elastic, CoupledSprings):   # the rigid coupled model, K_m -> inf
            from dataclasses import replace

            tr = replace(self.elastic.transmission, stiffness=None, spring_damping=None)
            self.robot = robot.with_chain(replace(_rigid_chain(robot, False), transmission=tr))

    def __call__(self, t, q, theta, qd, thetad) -> np.ndarray:
        q_ref, qd_ref, qdd_ref = self.trajectory(t)
        y = qdd_ref + self.kd * (qd_ref - qd) + self.kp * (q_ref - q)
        if isinstance(self.elastic, CoupledSprings):   # K_v on the motors with a spring
            damping = (self.kv[list(self.elastic.transmission.springs)]
                       * -self.elastic.deflection(qd, thetad))
            return self.robot.inverse_dynamics(q, qd, y) + self.elastic.link_torques(
                damping, np.zeros_like(np.asarray(qd, dtype=float)))
        if self.elastic.joints is None:
            rigid = (self.robot.inverse_dynamics(q, qd, y)
                     + (self.elastic.motor_inertia - self.armature) * y)
            return rigid + self.kv * (qd - thetad)
        e = self.index
        tau = self.robot.inverse_dynamics(q, qd, y)
        tau[..., e] += ((self.elastic.motor_inertia - self.armature) * y[..., e]
                        + self.kv[e] * (qd[..., e] - thetad))
        return tau
