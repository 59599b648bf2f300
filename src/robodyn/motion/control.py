"""Controllers: callables ``tau(t, q, qd)`` for :func:`robodyn.simulate`, in joint space
and in task space.

All use inverse dynamics for CONTROL, as the textbooks say, on a ``model`` that may
differ from the simulated robot (``robot.with_values(m2=1.2 * m2)``) to show
what model error does:

* :class:`PDGravity` — ``tau = K_P (q_ref - q) - K_D qd + g_model(q)``: PD
  control with gravity compensation, which brings the arm to rest at ``q_ref``
  (Siciliano §8.5.2, eq. 8.52); on a model with quaternion joints (ball joints, a
  free-flying base driven by a base wrench) ``q_ref - q`` is ``q_ref ⊖ q``
  (:meth:`robodyn.Robot.difference`, the rotation vector of the turn left to make), the
  Lyapunov argument of eq. 8.52 on SO(3) (Bullo & Murray 1999);
* :class:`ComputedTorque` — inverse dynamics control
  ``tau = M(q) y + C(q, qd) qd + F qd + g(q)`` with
  ``y = qdd_ref + K_D (qd_ref - qd) + K_P (q_ref - q)`` (Siciliano §8.5.3,
  eq. 8.57–8.61): with the exact model the error obeys ``e'' + K_D e' + K_P e = 0``.

* :class:`OperationalSpaceControl` — Khatib's operational-space control of a frame
  (Khatib 1987, eqs. 40-45; Siciliano §8.6.2 with the model of §7.8)::

      a*  = x_dd_ref + K_D (x_d_ref - J qd) + K_P (x_ref - x)
      tau = J^T Lambda (a* - J' qd) + b(q, qd) + N^T tau_0,    N^T = 1 - J^T J_bar^T
      tau_0 = K_P0 (q_0 ⊖ q) - K_D0 qd                           (posture, null space)

  with ``Lambda = (J M^-1 J^T)^-1``, ``J_bar = M^-1 J^T Lambda``
  (:mod:`robodyn.dynamics.operational_space`) and ``b`` the model's torques at zero
  acceleration. With the exact model ``M qdd + b = tau`` gives ``J qdd + J' qd = a*``
  (``J M^-1 N^T = 0``): the task error obeys ``e'' + K_D e' + K_P e = 0`` whatever the
  posture torque does, which on a redundant arm moves the joints in the null space of
  ``J`` only (undamped without ``kp_null``, ``kd_null``).

* :class:`Saturated` — any of them (or any ``tau(t, q, qd)``) behind drives with torque
  limits: ``clip(tau, -tau_max, tau_max)``, what was asked beyond reported
  (:mod:`robodyn.motion.saturation`).

The joint-space control laws themselves are :func:`robodyn.motion.steps.pd_gravity` and
:func:`~robodyn.motion.steps.computed_torque_acceleration`: the simulator runs the
same two inside its compiled fixed-step loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.display import number, numbers
from ..core.errors import InputError, excerpt
from ..dynamics.operational_space import zyx_angles
from ..model.configuration import checked_arrays
from .saturation import Saturated
from .steps import computed_torque_acceleration, pd_gravity
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["PDGravity", "ComputedTorque", "OperationalSpaceControl", "Saturated"]


def checked_gains(value, name: str, dof: int) -> np.ndarray:
    """``value`` as ``dof`` finite gains >= 0 (one for all, or one each), else an
    :class:`InputError` naming ``name``."""
    try:
        arr = np.broadcast_to(np.asarray(value, dtype=float), (dof,)).copy()
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a number or one per joint ({dof})") from None
    if not (np.isfinite(arr).all() and (arr >= 0).all()):
        raise InputError(f"{name}: gains must be finite and >= 0, got {arr.tolist()}")
    return arr


def _short(gains: np.ndarray) -> str:
    """One number when every joint has the same gain, else one per joint."""
    return number(gains[0]) if np.all(gains == gains[0]) else numbers(gains)


class PDGravity:
    """``tau = kp (q_ref - q) - kd qd + model.gravity_torques(q)`` (module docstring)."""

    kind = "pd_gravity"

    def __init__(self, model: Robot, q_ref: ArrayLike, kp: ArrayLike, kd: ArrayLike):
        if isinstance(q_ref, Trajectory):
            raise InputError("q_ref: PDGravity regulates to a set point (one position per "
                             "joint), and a Trajectory was given; to track a trajectory use "
                             "ComputedTorque(model, trajectory, kp, kd)")
        self.model = model
        try:
            self.q_ref = np.asarray(q_ref, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise InputError(f"q_ref: expected {model.nq} finite values (the set point), got "
                             f"{excerpt(q_ref)}") from None
        if self.q_ref.shape != (model.nq,) or not np.isfinite(self.q_ref).all():
            raise InputError(f"q_ref: expected {model.nq} finite values, got "
                             f"{excerpt(self.q_ref.tolist())}")
        if not model.chain.single_valued:
            checked_arrays(model.chain, "PDGravity", {"q_ref": self.q_ref})  # unit quaternions
            self.kind = None  # the compiled loops take q_ref - q: the law runs in Python
        self.kp = checked_gains(kp, "kp", model.dof)
        self.kd = checked_gains(kd, "kd", model.dof)

    def __repr__(self) -> str:
        return (f"PDGravity(model={self.model.name!r}, q_ref={numbers(self.q_ref)}, "
                f"kp={_short(self.kp)}, kd={_short(self.kd)})")

    def __str__(self) -> str:
        return (f"PD control with gravity compensation (model {self.model.name}): "
                f"tau = kp (q_ref - q) - kd qd + g(q)\n  q_ref = {numbers(self.q_ref)}, "
                f"kp = {_short(self.kp)}, kd = {_short(self.kd)}")

    def __call__(self, t, q, qd) -> np.ndarray:
        g = self.model.gravity_torques(q)
        if self.kind is None:
            return self.kp * self.model.difference(q, self.q_ref) - self.kd * qd + g
        return pd_gravity(q, qd, self.q_ref, self.kp, self.kd, g)

    def references(self, times: np.ndarray):
        """``(q_ref, qd_ref, qdd_ref)`` rows at ``times`` (one constant row here)."""
        zero = np.zeros((1, self.model.dof))
        return self.q_ref[None, :], zero, zero


class ComputedTorque:
    """Inverse dynamics control tracking ``trajectory`` (module docstring)."""

    kind = "computed_torque"

    def __init__(self, model: Robot, trajectory: Trajectory, kp: ArrayLike, kd: ArrayLike):
        if not isinstance(trajectory, Trajectory) and callable(
                getattr(trajectory, "trajectory", None)):
            trajectory = trajectory.trajectory()  # an excitation: one period of it
        if not isinstance(trajectory, Trajectory):
            raise InputError("trajectory: expected a robodyn.motion.trajectory.Trajectory (or "
                             "an rd.excitation.fourier excitation)")
        if (trajectory.dof, trajectory.nq) != (model.dof, model.nq):
            how = ("" if model.chain.single_valued else
                   "; a model with quaternion joints takes rd.trajectory.geodesic(model, q0, "
                   "q1, duration)")
            raise InputError(f"trajectory: has {trajectory.nq} position and {trajectory.dof} "
                             f"velocity values, the model {model.nq} and {model.dof}{how}")
        if not model.chain.single_valued:
            self.kind = None  # the compiled loops take q_ref - q: the law runs in Python
        self.model = model
        self.trajectory = trajectory
        self.kp = checked_gains(kp, "kp", model.dof)
        self.kd = checked_gains(kd, "kd", model.dof)

    def __repr__(self) -> str:
        return (f"ComputedTorque(model={self.model.name!r}, trajectory={self.trajectory!r}, "
                f"kp={_short(self.kp)}, kd={_short(self.kd)})")

    def __str__(self) -> str:
        traj = self.trajectory
        return (f"Computed torque control (model {self.model.name}): tau = M(q) (qdd_ref + kd "
                f"(qd_ref - qd) + kp (q_ref - q)) + C qd + F qd + g\n  reference: "
                f"{traj.kind}, {number(traj.duration)} s, {numbers(traj.q0)} -> "
                f"{numbers(traj.q1)}; kp = {_short(self.kp)}, kd = {_short(self.kd)}")

    def __call__(self, t, q, qd) -> np.ndarray:
        q_ref, qd_ref, qdd_ref = self.trajectory(t)
        if self.kind is None:  # quaternion joints: q_ref ⊖ q for q_ref - q
            y = qdd_ref + self.kd * (qd_ref - qd) + self.kp * self.model.difference(q, q_ref)
            return self.model.inverse_dynamics(q, qd, y)
        y = computed_torque_acceleration(q, qd, q_ref, qd_ref, qdd_ref, self.kp, self.kd)
        return self.model.inverse_dynamics(q, qd, y)

    def references(self, times: np.ndarray):
        return self.trajectory(times)


class OperationalSpaceControl:
    """Khatib's operational-space controller tracking ``trajectory`` with the frame ``frame``
    (module docstring). ``trajectory``: a :class:`~robodyn.motion.trajectory.Trajectory` of
    the task coordinates, ``m = len(rows)`` values (e.g. ``rd.trajectory.quintic(x0, x1,
    T)``); ``rows``: the task rows, position ``0, 1, 2`` and with ``jacobian="analytical"``
    the ZYX Euler angles ``3, 4, 5`` (default ``(0, 1, 2)``, the position); ``kp``, ``kd``:
    task gains (one or one per row); ``q_null``, ``kp_null``, ``kd_null``: the posture the
    null space is pulled to (default the model's neutral configuration) and its joint
    gains; ``damping``: damped least squares near singular configurations
    (:func:`~robodyn.dynamics.operational_space.operational_space`; without it a singular
    configuration is an error naming the rank).

    ``controller.task_error(t, q)`` gives ``x_ref(t) - x(q)``.
    """

    kind = None  # a Python law: the compiled loops run PD and computed torque only

    def __init__(self, model: Robot, trajectory: Trajectory, kp: ArrayLike, kd: ArrayLike, *,
                 frame: str | None = None, rows: Sequence[int] = (0, 1, 2),
                 jacobian: str = "geometric", q_null: ArrayLike | None = None,
                 kp_null: ArrayLike = 0.0, kd_null: ArrayLike = 0.0, damping: float = 0.0):
        if jacobian not in ("geometric", "analytical"):
            raise InputError(f"jacobian: {excerpt(jacobian)} is not 'geometric' or "
                             "'analytical'")
        try:
            rows = tuple(int(r) for r in rows)
        except (TypeError, ValueError):
            raise InputError(f"rows: expected task rows 0..5, got {excerpt(rows)}") from None
        if not rows or len(set(rows)) != len(rows) or not all(0 <= r <= 5 for r in rows):
            raise InputError(f"rows: expected distinct task rows from 0 to 5, got {rows}")
        if jacobian == "geometric" and max(rows) > 2:
            raise InputError("rows: the geometric Jacobian's rows 3-5 are the angular "
                             "velocity, which is the rate of no coordinate; track an "
                             "orientation with jacobian='analytical' (ZYX Euler angles)")
        if not isinstance(trajectory, Trajectory):
            raise InputError("trajectory: expected a robodyn.motion.trajectory.Trajectory of "
                             f"the {len(rows)} task coordinates (rd.trajectory.quintic(x0, "
                             "x1, T))")
        if trajectory.dof != len(rows):
            raise InputError(f"trajectory: has {trajectory.dof} values, the task {len(rows)} "
                             f"(rows {rows})")
        if not (isinstance(damping, int | float) and np.isfinite(damping) and damping >= 0):
            raise InputError(f"damping: expected a number >= 0, got {excerpt(damping)}")
        self.model, self.trajectory, self.frame = model, trajectory, frame
        self.rows, self.jacobian, self.damping = rows, jacobian, float(damping)
        self.kp = checked_gains(kp, "kp", len(rows))
        self.kd = checked_gains(kd, "kd", len(rows))
        self.kp_null = checked_gains(kp_null, "kp_null", model.dof)
        self.kd_null = checked_gains(kd_null, "kd_null", model.dof)
        q_null = model.neutral() if q_null is None else q_null
        try:
            self.q_null = np.asarray(q_null, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            self.q_null = np.full(1, np.nan)
        if self.q_null.shape != (model.nq,) or not np.isfinite(self.q_null).all():
            raise InputError(f"q_null: expected {model.nq} finite values (a posture), got "
                             f"{excerpt(q_null)}")
        model.forward_kinematics(self.q_null, frame)  # the frame exists; q_null is checked

    def __repr__(self) -> str:
        return (f"OperationalSpaceControl(model={self.model.name!r}, rows={self.rows}, "
                f"kp={_short(self.kp)}, kd={_short(self.kd)}, "
                f"kp_null={_short(self.kp_null)}, kd_null={_short(self.kd_null)})")

    def __str__(self) -> str:
        traj = self.trajectory
        return (f"Operational-space control (model {self.model.name}, frame "
                f"{self.frame or 'end effector'}, rows {self.rows}): tau = J^T Lambda (a* - J' "
                "qd) + b(q, qd) + N^T tau_0\n  reference: "
                f"{traj.kind}, {number(traj.duration)} s, {numbers(traj.q0)} -> "
                f"{numbers(traj.q1)}; kp = {_short(self.kp)}, kd = {_short(self.kd)}")

    def task_coordinates(self, q) -> np.ndarray:
        """The task coordinates ``x(q)`` of the frame (its ``rows`` of position and ZYX
        angles)."""
        pose = self.model.forward_kinematics(q, self.frame)
        x = np.concatenate([pose[..., :3, 3], zyx_angles(pose[..., :3, :3])], axis=-1)
        return x[..., list(self.rows)]

    def task_error(self, t, q) -> np.ndarray:
        """``x_ref(t) - x(q)``, angles wrapped to ``(-pi, pi]``."""
        e = self.trajectory(t)[0] - self.task_coordinates(q)
        angles = [k for k, r in enumerate(self.rows) if r > 2]
        if angles:
            e[..., angles] = np.remainder(e[..., angles] + np.pi, 2 * np.pi) - np.pi
        return e

    def __call__(self, t, q, qd) -> np.ndarray:
        model = self.model
        ops = model.operational_space(q, qd, self.frame, jacobian=self.jacobian,
                                      rows=self.rows, damping=self.damping)
        _, x_d_ref, x_dd_ref = self.trajectory(t)
        a = x_dd_ref + self.kd * (x_d_ref - ops.J @ qd) + self.kp * self.task_error(t, q)
        bias = model.inverse_dynamics(q, qd, np.zeros(model.dof))
        tau_0 = self.kp_null * model.difference(q, self.q_null) - self.kd_null * qd
        null = tau_0 - ops.J.T @ (ops.J_bar.T @ tau_0)                  # N^T tau_0
        return ops.J.T @ (ops.Lambda @ (a - ops.Jdot_qd)) + bias + null
