"""Dynamic scaling of trajectories (Siciliano et al., Robotics, §7.7): slow a planned motion
uniformly until its torques fit the actuators' limits, in the shortest duration.

The motion ``q(t)``, ``0 <= t <= T``, run ``k`` times slower is ``q_s(t_s) = q(t_s / k)``
over ``k T``, so ``qd_s = qd / k`` and ``qdd_s = qdd / k^2`` at ``t_s = k t``. The torques
``tau = M(q) qdd + C(q, qd) qd + F_v qd + F_s sign(qd) + g(q)`` become (``C`` is linear in
``qd``)::

    tau_s(k t) = (M qdd + C qd) / k^2 + F_v qd / k + F_s sign(qd) + g(q)

Without friction this is the book's law (Siciliano eq. 7.114 with ``r = 1/k``)
``tau_s = (tau - g) / k^2 + g``: the inertial and velocity torques shrink with ``1/k^2``,
gravity does not. Viscous friction shrinks with ``1/k`` only, and Coulomb friction (whose
sign is that of ``qd``, and ``k > 0``) not at all: like gravity, it is a floor that no
slowing lowers.

With ``u = 1/k`` each joint's torque at each sample is the quadratic ``a u^2 + b u + c``
(``a = M qdd + C qd``, ``b = F_v qd``, ``c = g + F_s sign(qd)``); the fastest admissible
motion is the largest ``u`` in ``(0, 1]`` with ``|a u^2 + b u + c| <= tau_max`` at every
sample and joint. That ``u`` is 1 (the motion already fits, ``k = 1``) or a root of
``a u^2 + b u + c = ±tau_max`` at some sample: the roots are the candidates, checked from
the largest down, so the slowed motion's peak ``|tau_s| / tau_max`` is 1 to rounding.
Where ``|c| > tau_max`` no ``k`` helps: a :class:`~robodyn.InputError` says so.

The limits are enforced at the samples of the motion (``samples`` of them, or the times
``t`` given); between them the torque may pass the limit by the sampling error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError
from .scaling_torques import torque_coefficients
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["scale_trajectory", "scaled", "torque_coefficients"]


def scaled(trajectory: Trajectory, k: float) -> Trajectory:
    """``trajectory`` run ``k`` times slower: ``q_s(t) = q(t / k)`` over ``k T``, with
    ``qd_s = qd / k`` and ``qdd_s = qdd / k^2``; ``info["k"]`` is ``k``."""
    k = float(k)
    if not k > 0 or not np.isfinite(k):
        raise InputError(f"k: {k} is not a positive number; give a factor > 0 (2 = twice as slow)")

    def evaluate(t):
        q, qd, qdd = trajectory(np.asarray(t) / k)
        return q, qd / k, qdd / k**2

    return Trajectory(evaluate, k * trajectory.duration, trajectory.dof,
                      f"{trajectory.kind} slowed", {**trajectory.info, "k": k}, trajectory.nq)


def _roots(a, b, c):
    """The real roots of ``a u^2 + b u + c = 0`` (stable formula; linear where ``a = 0``),
    two arrays of ``a``'s shape, NaN where there is none."""
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = b * b - 4 * a * c
        sq = np.sqrt(np.where(disc >= 0, disc, np.nan))
        w = -0.5 * (b + np.copysign(sq, b))
        quadratic = a != 0
        r1 = np.where(quadratic, w / a, np.where(b != 0, -c / b, np.nan))
        r2 = np.where(quadratic, c / w, np.nan)
    return r1, r2


def scale_trajectory(robot: Robot, trajectory: Trajectory, torque_limits: ArrayLike, *,
                     samples: int = 1001, t: ArrayLike | None = None,
                     method: str = "uniform") -> tuple[Trajectory, float]:
    """The uniform time scaling ``k >= 1`` with the shortest duration ``k T`` that keeps
    ``|tau| <= torque_limits`` (Siciliano §7.7; friction as in the module docstring).
    ``method="time-optimal"``: a scaling that varies along the motion, the fastest motion
    along the same path within the limits at ``samples`` grid points of the path
    (:mod:`robodyn.motion.time_optimal`; then ``k`` is the new duration over the old, and
    the motion may be faster than the original where the limits allow).

    ``torque_limits``: one positive number per joint (or one for all). ``samples``: how
    many equally spaced times of ``[0, T]`` are checked (or the times ``t``). Returns
    ``(scaled trajectory, k)``; ``k = 1`` (the trajectory itself, ``info["k"] = 1``) when it
    already fits. An :class:`~robodyn.InputError` when gravity and Coulomb friction alone
    exceed a limit (naming the joint, the time and the torque).

    Example: a quick quintic of the planar 2R arm slowed to fit 40 N m per joint::

        >>> import robodyn as rd
        >>> arm = rd.load("planar-2r")
        >>> fast = rd.trajectory.quintic([0.0, 0.0], [1.5, -1.0], 0.3)
        >>> slow, k = rd.scale_trajectory(arm, fast, [40.0, 40.0])
        >>> round(k, 3), round(slow.duration, 3)
        (3.394, 1.018)
    """
    if method not in ("uniform", "time-optimal"):
        raise InputError(f"method: {method!r:.40} is not 'uniform' or 'time-optimal'")
    if (trajectory.dof, trajectory.nq) != (robot.dof, robot.nq):
        raise InputError(f"trajectory: {trajectory.nq} position and {trajectory.dof} velocity "
                         f"values, the robot {robot.nq} and {robot.dof}")
    limits = np.broadcast_to(np.asarray(torque_limits, dtype=float), (robot.dof,))
    if not np.all(limits > 0) or not np.all(np.isfinite(limits)):
        raise InputError(f"torque_limits: {limits.tolist()}; give one positive number per joint")
    if method == "time-optimal":
        from .time_optimal import time_optimal

        fastest = time_optimal(robot, trajectory, limits, samples)
        return fastest, fastest.info["k"]
    times = (np.linspace(0.0, trajectory.duration, int(samples)) if t is None
             else np.asarray(t, dtype=float).reshape(-1))
    q, qd, qdd = trajectory(times)
    a, b, c = torque_coefficients(robot, q, qd, qdd)
    over = np.abs(c) > limits
    if np.any(over):
        i, j = np.argwhere(over)[0]
        raise InputError(
            f"scale_trajectory: at t = {times[i]:g} s joint {robot.joints[j]!r} needs "
            f"|g + F_s sign(qd)| = {abs(c[i, j]):.6g} > its limit {limits[j]:g} from gravity "
            "(and Coulomb friction) alone, which no slowing lowers; raise the limit or "
            "change the path")

    def fits(u):  # (m,) candidates -> (m,) bools, a small relative tolerance for rounding
        tau = a * u[:, None, None] ** 2 + b * u[:, None, None] + c
        return np.all(np.abs(tau) <= limits * (1 + 1e-12), axis=(1, 2))

    if fits(np.array([1.0]))[0]:
        return trajectory.with_info(trajectory.kind, {"k": 1.0}), 1.0
    roots = np.concatenate([r.reshape(-1) for sign in (1.0, -1.0)
                            for r in _roots(a, b, c - sign * limits)])
    candidates = np.unique(roots[(roots > 0) & (roots <= 1)])[::-1]
    for start in range(0, len(candidates), 64):
        chunk = candidates[start:start + 64]
        ok = fits(chunk)
        if np.any(ok):
            k = float(1.0 / chunk[np.argmax(ok)])
            return scaled(trajectory, k), k
    raise InputError("scale_trajectory: no time scaling fits the limits")  # |c| <= L: unreachable
