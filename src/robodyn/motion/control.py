"""Joint-space controllers: callables ``tau(t, q, qd)`` for :func:`robodyn.simulate`.

Both use inverse dynamics for CONTROL, as the textbooks say, on a ``model`` that may
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

The control laws themselves are :func:`robodyn.motion.steps.pd_gravity` and
:func:`~robodyn.motion.steps.computed_torque_acceleration`: the simulator runs the
same two inside its compiled fixed-step loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.display import number, numbers
from ..core.errors import InputError, excerpt
from ..model.configuration import checked_arrays
from .steps import computed_torque_acceleration, pd_gravity
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["PDGravity", "ComputedTorque"]


def _gains(value, name: str, dof: int) -> np.ndarray:
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
        self.kp = _gains(kp, "kp", model.dof)
        self.kd = _gains(kd, "kd", model.dof)

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
        if not isinstance(trajectory, Trajectory):
            raise InputError("trajectory: expected a robodyn.motion.trajectory.Trajectory")
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
        self.kp = _gains(kp, "kp", model.dof)
        self.kd = _gains(kd, "kd", model.dof)

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
