"""The electrical side of a motion: the current, voltage and power of each joint's DC motor,
and the energy drawn from the supply (the lecture's energy consumption, with the motors'
losses).

A joint ``i`` with a permanent-magnet DC motor behind a gear of ratio ``G`` (motor turns per
joint turn, :class:`~robodyn.model.chain.Motor`) turns its rotor at ``w_m = G qd``. The
joint torque ``tau`` (from the inverse dynamics, whose ``M`` holds the rotor's reflected
inertia ``G^2 J_m``) splits into the rotor's own ``G^2 J_m qdd`` and what passes the gear,
``tau_g = tau - G^2 J_m qdd``; the gear of efficiency ``eta`` (``eta_b`` when the joint drives
the motor, :class:`~robodyn.model.chain.Motor`) asks of the motor::

    tau_m = J_m G qdd + tau_g / (G eta)       while tau_g qd >= 0 (the motor drives)
    tau_m = J_m G qdd + eta_b tau_g / G       while tau_g qd <  0 (the load drives)

and the motor's electrics (armature resistance ``R``, inductance ``L``, torque constant
``k_t``, back-EMF constant ``k_b``; in SI units ``k_b = k_t``)::

    i = tau_m / k_t        V = R i + L di/dt + k_b w_m        P = V i

so that ``P = R i^2 + d(L i^2 / 2)/dt + k_b w_m i``: copper loss, the inductance's stored
energy, and (with ``k_b = k_t``) the mechanical power ``tau_m w_m`` at the rotor. The
energy drawn is ``∫ P dt`` (negative parts: energy a regenerating supply takes back;
``drawn_without_regeneration`` counts only ``P > 0``). Integrals: the trapezoidal rule; ``di/dt``
by :func:`numpy.gradient` on the samples.

A model file gives each joint's motor its electrics (``motor: {resistance, torque_constant,
inductance, back_emf_constant}``, :class:`~robodyn.model.chain.Motor`, every joint or none);
:func:`motors_of` reads them, and :func:`electrics` uses them when given no ``motors``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import InputError, excerpt

if TYPE_CHECKING:
    from ..model.chain import Chain

__all__ = ["DCMotor", "Electrics", "electrics", "dc_motors", "motors_of", "motor_side",
           "gear_ratios", "motion_samples", "sample_table"]


@dataclass(frozen=True)
class DCMotor:
    """A permanent-magnet DC motor: ``resistance`` (ohm), ``inductance`` (H),
    ``torque_constant`` ``k_t`` (N m/A) and ``back_emf_constant`` ``k_b`` (V s/rad; default
    ``k_t``, as in SI units they are one constant)."""

    resistance: float
    torque_constant: float
    inductance: float = 0.0
    back_emf_constant: float | None = None

    def __post_init__(self):
        for name in ("resistance", "torque_constant", "inductance", "back_emf_constant"):
            value = getattr(self, name)
            if value is None:
                continue
            # NumPy's scalars (a motor built from an array's entries) are numbers too, and
            # stored as floats; True is not a resistance
            ok = not isinstance(value, bool | np.bool_) and isinstance(
                value, int | float | np.integer | np.floating) and np.isfinite(value) and (
                value > 0 if name == "torque_constant" else value >= 0)
            if not ok:
                raise InputError(f"DCMotor.{name}: {value!r:.40}; give a finite number "
                                 + ("> 0" if name == "torque_constant" else ">= 0"))
            object.__setattr__(self, name, float(value))

    @property
    def k_b(self) -> float:
        return self.torque_constant if self.back_emf_constant is None else \
            self.back_emf_constant


@dataclass(frozen=True)
class Electrics:
    """What :func:`electrics` found, per sample and joint ``(T, n)``: ``motor_torque``,
    ``motor_speed`` (rad/s), ``current`` (A), ``voltage`` (V), ``power`` (W); per joint:
    ``energy`` (J, ``∫ P dt``), ``copper_loss`` (``∫ R i^2 dt``); totals ``drawn`` (the sum
    of ``energy``) and ``drawn_without_regeneration`` (``∫ max(sum_i P_i, 0) dt``)."""

    t: np.ndarray
    motor_torque: np.ndarray
    motor_speed: np.ndarray
    current: np.ndarray
    voltage: np.ndarray
    power: np.ndarray
    energy: np.ndarray
    copper_loss: np.ndarray
    drawn: float
    drawn_without_regeneration: float


def motors_of(chain: Chain) -> tuple[DCMotor, ...] | None:
    """The DC motors a model gives its joints (one per joint, from each
    :class:`~robodyn.model.chain.Motor`'s ``resistance``, ``torque_constant``,
    ``inductance`` (default 0) and ``back_emf_constant`` (default ``k_t``)), or ``None``
    when it gives none. ``chain``: a numeric chain (``robot.numeric_chain``), whose checks
    (:func:`~robodyn.model.checks.check_drives`) made them all or none."""
    motors = [link.motor for link in chain.links]
    if not motors or all(m.resistance is None for m in motors):
        return None
    return tuple(DCMotor(float(m.resistance), float(m.torque_constant),
                         float(m.inductance or 0.0),
                         None if m.back_emf_constant is None else float(m.back_emf_constant))
                 for m in motors)


def dc_motors(motors, chain: Chain, n: int, missing: str | None = None) -> list[DCMotor]:
    """``motors`` as one :class:`DCMotor` per joint (one given for all is repeated;
    ``None``: the model's, :func:`motors_of`); an :class:`InputError` otherwise, ``missing``
    its text when there are none."""
    if motors is None:
        motors = motors_of(chain)
        if motors is None:
            raise InputError(missing or (
                "motors: the model gives its joints no DC motors (motor.resistance, "
                "torque_constant); pass DCMotor(resistance=..., torque_constant=...) or give "
                "the model's motors their electrics"))
    out = [motors] * n if isinstance(motors, DCMotor) else motors
    if isinstance(out, (str, bytes)) or not hasattr(out, "__len__") or len(out) != n \
            or not all(isinstance(m, DCMotor) for m in out):
        raise InputError(f"motors: expected one DCMotor per joint ({n}) or one for all, got "
                         f"{excerpt(motors)}")
    return list(out)


def gear_ratios(chain: Chain, where: str) -> np.ndarray:
    """The joints' gear ratios ``G`` ``(n,)``; an :class:`InputError` naming ``where`` and
    the joint for a ratio of 0 (the motor drives its joint through the gear: ``tau_m =
    tau / G``, ``w_m = G qd``)."""
    G = np.array([float(link.motor.gear_ratio) for link in chain.links])
    if (G == 0).any():
        raise InputError(f"{where}: joint {int(np.argmax(G == 0)) + 1} has gear_ratio 0; a "
                         "motor drives its joint through a ratio != 0 (motor turns per joint "
                         "turn): give the model's motor its gear_ratio")
    return G


def motion_samples(motion, n: int, where: str = "motion") -> tuple[np.ndarray, ...]:
    """``(q, qd, qdd)`` of ``motion`` (anything with them: a Simulation, a sampled
    trajectory, :class:`~robodyn.motion.trajectory.Motion`), each ``(T, n)`` and finite,
    else an :class:`InputError` naming ``where.q`` (``qd``, ``qdd``)."""
    out = []
    for key in ("q", "qd", "qdd"):
        value = getattr(motion, key, None)
        if value is None:
            raise InputError(f"{where}.{key}: missing; give a motion with q, qd and qdd (a "
                             "Simulation, trajectory.sample(dt), or robodyn.motion.trajectory."
                             "Motion(t, q, qd, qdd)), got " + excerpt(motion))
        out.append(sample_table(value, f"{where}.{key}", n))
    if len({a.shape for a in out}) > 1:
        raise InputError(f"{where}: q, qd and qdd have different shapes "
                         f"{', '.join(str(a.shape) for a in out)}; give one row per sample each")
    return tuple(out)


def sample_table(value, name: str, n: int, rows: int | None = None) -> np.ndarray:
    """``value`` as finite numbers ``(T, n)`` (``T = rows`` when given), else an
    :class:`InputError` naming ``name``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected numbers (T, {n}), got {excerpt(value)}") from None
    if arr.ndim != 2 or arr.shape[1] != n or (rows is not None and arr.shape[0] != rows):
        raise InputError(f"{name}: expected shape ({'T' if rows is None else rows}, {n}) (one "
                         f"row per sample, one value per joint), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: not finite (NaN or infinite entries)")
    return arr


def motor_side(chain: Chain, tau, qd, qdd) -> tuple[np.ndarray, np.ndarray]:
    """The motors' torques ``tau_m`` and speeds ``w_m`` ``(T, n)`` of the joint torques
    ``tau`` (those of ``M`` with the rotors) along ``(qd, qdd)``: a gear a joint (module
    docstring), or a coupled transmission ``theta = N q``
    (:mod:`robodyn.model.transmission`): ``w_m = N qd``, the rotors' own torque ``J_m
    N qdd + B_m w_m + F_m sign(w_m)``, and what passes the gears, ``tau_g = N^-T (tau -
    N^T (J_m N qdd + B_m w_m + F_m sign(w_m)))`` (power balance ``tau_g^T w_m = tau^T qd``
    of the links), divided by ``eta`` or times ``eta_b`` per motor as above; with ideal
    gears ``tau_m = N^-T tau``."""
    links = chain.links
    eta = np.array([float(link.motor.efficiency) for link in links])
    eta_b = np.array([float(link.motor.back) for link in links])
    tr = getattr(chain, "transmission", None)
    if tr is None:
        G = gear_ratios(chain, "motors")
        Jm = np.array([float(link.motor.inertia) for link in links])
        own, w_m = Jm * G * qdd, G * qd
        through = (tau - G * own) / G                          # what passes the gear
    else:
        N = tr.N
        w_m = qd @ N.T
        own = (np.asarray(tr.motor_inertia) * (qdd @ N.T) + np.asarray(tr.motor_viscous) * w_m
               + np.asarray(tr.motor_coulomb) * np.sign(w_m))
        through = np.linalg.solve(N.T, (tau - own @ N)[..., None])[..., 0]
    driving = through * w_m >= 0
    return own + np.where(driving, through / eta, eta_b * through), w_m


def _trapezoid(t, y):
    return 0.5 * np.tensordot(np.diff(t), y[1:] + y[:-1], axes=(0, 0))


def electrics(robot, motion, motors=None) -> Electrics:
    """The electrical side of ``motion`` (anything with ``t``, ``q``, ``qd``, ``qdd``; the
    torques are ``robot.inverse_dynamics``, or the motion's ``tau`` when it has them, or
    the motors' ``info["drive_torque"]`` of a voltage-driven run, whose ``tau`` may hold a
    load) with ``motors`` (one :class:`DCMotor` per joint, or one for all; ``None``: the
    model's, :func:`motors_of`): module docstring. The gear ratio, rotor inertia and
    efficiencies are the model's (:class:`~robodyn.model.chain.Motor`), or its coupled
    transmission's (:func:`motor_side`)."""
    if not robot.chain.single_valued:
        raise InputError("electrics: DC motors drive revolute or prismatic joints; this "
                         "robot has free or ball joints")
    n = robot.dof
    motors = dc_motors(motors, robot.numeric_chain, n)
    q, qd, qdd = motion_samples(motion, n)
    try:
        t = np.asarray(getattr(motion, "t", None), dtype=float)
    except (TypeError, ValueError):
        t = np.full(1, np.nan)
    if t.ndim != 1 or t.shape[0] < 2 or not np.isfinite(t).all() or (np.diff(t) <= 0).any():
        raise InputError("motion.t: expected at least two finite, increasing sample times")
    if t.shape[0] != qd.shape[0]:
        raise InputError(f"motion.t: {t.shape[0]} times for {qd.shape[0]} samples of q, qd, qdd")
    tau = getattr(motion, "tau", None)
    info = getattr(motion, "info", None)
    if isinstance(info, dict) and "drive_torque" in info:  # a voltage run's motors, no load
        tau = info["drive_torque"]
    tau = robot.inverse_dynamics(q, qd, qdd) if tau is None else sample_table(
        tau, "motion.tau", n, qd.shape[0])
    tau_m, w_m = motor_side(robot.numeric_chain, tau, qd, qdd)
    R, L, kt, kb = (np.array(v) for v in zip(*[(m.resistance, m.inductance,
                                               m.torque_constant, m.k_b) for m in motors],
                                             strict=True))
    i = tau_m / kt
    di = np.gradient(i, t, axis=0)
    V = R * i + L * di + kb * w_m
    P = V * i
    energy = _trapezoid(t, P)
    copper = _trapezoid(t, R * i * i)
    return Electrics(t, tau_m, w_m, i, V, P, energy, copper, float(energy.sum()),
                     float(_trapezoid(t, np.maximum(P.sum(axis=1), 0.0))))
