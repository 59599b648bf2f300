"""PD control with gravity compensation of a robot with elastic joints (P. Tomei, "A simple
PD controller for robots with elastic joints", IEEE Trans. Automatic Control 36(10),
1991; De Luca and Book, Springer Handbook of Robotics, "Robots with flexible elements").

The set point ``q_d`` of the links is held by the motors at ``theta_d = S q_d + K^-1 S
g(q_d)`` (the static deflection, :func:`~robodyn.motion.elastic.static_deflection`), and
the law feeds back the motors' own positions, with a constant gravity term::

    tau_E = K_P (theta_d - theta) - K_D theta' + S g(q_d)          (elastic joints)
    tau_R = K_P (q_d - q)_R - K_D q'_R + P g(q_d)                  (rigid joints)

(``S``, ``P``: the elastic and the rigid joints, :mod:`robodyn.motion.elastic`). The
closed loop's only equilibrium is ``q = q_d``, ``theta = theta_d``, and it is globally
asymptotically stable when the smallest eigenvalue of ``[[K, -K], [-K, K + K_P]]`` (on the
elastic joints; ``K_P`` on the rigid ones) exceeds a bound of the gravity torques'
gradient ``||dg/dq||`` (Tomei's condition), with ``K_D > 0``. Without springs it is PD with
constant gravity compensation, the rigid arm's (Takegaki and Arimoto 1981).

Behind a coupled transmission (:mod:`robodyn.motion.elastic_coupled`) the law acts on the
motors' own angles, ``tau_m = K_P (theta_d - theta_m) - K_D theta_m' + N^-T g(q_d)`` with
``theta_d = N q_d + K_m^-1 N^-T g(q_d)``; as joint torques ``tau = N^T tau_m``. In the
motor angles seen at the joints ``N^-1 theta_m`` it is Tomei's law with the gains ``N^T
K_P N``, ``N^T K_D N`` and the stiffness ``N^T K_m N``: symmetric positive definite, which
is what his proof asks of the diagonal ones. With some motors rigid (``stiffness: [K_m,
null]``) the law is the same on every motor's angle, a rigid motor's being ``n_k . q``
(its goal ``n_k . q_d``): PD with gravity compensation through the coupling on those.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError, excerpt
from .control import checked_gains
from .elastic import ElasticJoints, checked_springs, static_deflection

__all__ = ["ElasticPDGravity"]


class ElasticPDGravity:
    """Tomei's PD law with gravity compensation at the set point ``goal`` (module
    docstring); ``elastic``: ``None`` for the model's springs; ``kp``, ``kd``: one value or
    one per joint (``n``), ``kd > 0`` on the elastic joints. Called as
    ``tau(t, q, theta, qd, thetad)`` (:func:`~robodyn.motion.elastic.simulate_elastic`)."""

    def __init__(self, robot, elastic: ElasticJoints | None, goal: ArrayLike, kp, kd):
        self.elastic = checked_springs(robot, elastic)
        n = robot.dof
        raw = goal
        try:
            goal = np.asarray(goal, dtype=float).reshape(-1)
        except (TypeError, ValueError):  # text: NumPy's ValueError before
            goal = np.full(1, np.nan)
        if goal.shape != (n,) or not np.isfinite(goal).all():
            raise InputError(f"goal: expected {n} finite joint values, got {excerpt(raw)}")
        self.goal = goal
        self.kp, self.kd = checked_gains(kp, "kp", n), checked_gains(kd, "kd", n)
        self.index = self.elastic.indices(n)
        if not (self.kd[self.index] > 0).all():
            j = int(self.index[np.argmin(self.kd[self.index])])
            raise InputError(f"kd[{j}]: {self.kd[j]:g}; an elastic joint's motor needs a "
                             "damping gain > 0 (the springs damp nothing else)")
        self.gravity = robot.gravity_torques(goal)
        self.theta_goal = static_deflection(robot, self.elastic, goal)

    def __call__(self, t, q, theta, qd, thetad) -> np.ndarray:
        if getattr(self.elastic, "motors", None) is not None:   # some coupled motors rigid
            return self._on_every_motor(q, theta, qd, thetad)
        if self.elastic.joints is None:   # every joint elastic (per joint or coupled)
            motors = self.kp * (self.theta_goal - theta) - self.kd * np.asarray(thetad)
            return self.elastic.link_torques(motors, None) + self.gravity
        tau = self.kp * (self.goal - q) - self.kd * np.asarray(qd, dtype=float) + self.gravity
        e = self.index
        tau[..., e] = (self.kp[e] * (self.theta_goal - theta) - self.kd[e] * thetad
                       + self.gravity[e])
        return tau

    def _on_every_motor(self, q, theta, qd, thetad) -> np.ndarray:
        """Behind a coupling with some motors rigid: the law on every motor's angle, a
        rigid motor's ``n_k . q`` (its goal ``n_k . q_d``), an elastic one's ``theta_k``."""
        N, elastic = self.elastic.N, list(self.elastic.transmission.springs)
        angles, rates = np.asarray(q, dtype=float) @ N.T, np.asarray(qd, dtype=float) @ N.T
        angles[..., elastic], rates[..., elastic] = theta, thetad
        goal = self.goal @ N.T
        goal[elastic] = self.theta_goal
        return (self.kp * (goal - angles) - self.kd * rates) @ N + self.gravity
