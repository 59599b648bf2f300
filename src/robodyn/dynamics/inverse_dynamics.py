"""The equation of motion solved for the joint torques, assembled once.

``tau = M(q) qdd + C(q, qd) qd + F_v qd + F_s sign(qd) + g(q) + J^T(q) h_e``
(Siciliano et al., Robotics, eq. 7.83): the recursive Newton–Euler torques
(:func:`~robodyn.dynamics.rnea.rnea`: inertia, Coriolis/centrifugal and gravity
at once), joint friction (:mod:`robodyn.dynamics.friction`) and the joint
torques that balance the wrench ``h_e = (f, mu)`` the end effector exerts on the
environment (base frame, moment about the end-effector origin), ``J^T h_e`` with
the geometric Jacobian ``J`` (:func:`~robodyn.dynamics.kinematics.jacobian`).
A tree may carry a wrench at each of several named frames ``f`` (``frames``, numbers of
:func:`~robodyn.dynamics.kinematics.frame_table`): ``tau += sum_f J_f^T h_f``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.display import number, shape, text_table
from ..model.chain import Chain
from .friction import friction_torques
from .kinematics import jacobian, link_poses
from .rnea import rnea

#: The terms of the equation of motion, in the order :func:`torque_parts` returns them:
#: ``M qdd``, ``C qd``, ``g``, friction, ``J^T h_e``, then their sum.
TORQUE_PARTS = ("inertial", "coriolis", "gravity", "friction", "external", "total")


def inverse_dynamics(chain: Chain, q: Sequence, qd: Sequence, qdd: Sequence, ops,
                     h_e: Sequence | None = None, frames: Sequence[int] | None = None) -> list:
    """Joint torques of the full equation of motion (module docstring); ``h_e`` at the
    end effector, or with ``frames`` one wrench per frame (:func:`contact_torques`)."""
    tau = [t + f for t, f in zip(rnea(chain, q, qd, qdd, ops), friction_torques(chain, qd, ops),
                                 strict=True)]
    if h_e is not None:
        tau = [t + c for t, c in zip(tau, contact_torques(chain, q, h_e, ops, frames),
                                     strict=True)]
    return tau


def gravity_torques(chain: Chain, q: Sequence, ops) -> list:
    """``g(q) = dU/dq``: the Newton–Euler torques at rest (``qd = qdd = 0``), where
    gravity enters as the base acceleration ``vd_0 = -g0``."""
    zeros = [0] * chain.nv
    return rnea(chain, q, zeros, zeros, ops)


def contact_torques(chain: Chain, q: Sequence, h_e: Sequence, ops,
                    frames: Sequence[int] | None = None) -> list:
    """``J(q)^T h_e`` for a wrench ``h_e = (f_x, f_y, f_z, mu_x, mu_y, mu_z)`` in the base
    frame, moment about the end-effector origin (Siciliano eq. 3.111 by virtual work).

    With ``frames`` (frame numbers of :func:`~robodyn.dynamics.kinematics.frame_table`),
    ``h_e`` holds one such wrench per frame, six values each in that order, the moment
    about that frame's origin: ``sum_f J_f^T h_f``."""
    if frames is None:
        jac = jacobian(chain, q, ops)
        return [sum(jac[r][j] * h_e[r] for r in range(6)) for j in range(chain.nv)]
    poses = link_poses(chain, q, ops)
    total = [0] * chain.nv
    for k, frame in enumerate(frames):
        jac = jacobian(chain, q, ops, poses, frame=frame)
        wrench = h_e[6 * k:6 * k + 6]
        total = [t + sum(jac[r][j] * wrench[r] for r in range(6))
                 for j, t in enumerate(total)]
    return total


def torque_parts(chain: Chain, q: Sequence, qd: Sequence, qdd: Sequence, ops,
                 h_e: Sequence | None = None, frames: Sequence[int] | None = None) -> list[list]:
    """The joint torques split into the terms of the equation of motion, rows
    ``inertial (M qdd)``, ``coriolis (C qd)``, ``gravity (g)``, ``friction``,
    ``external (J^T h_e)`` and their ``total`` (= :func:`inverse_dynamics`), the order of
    :data:`TORQUE_PARTS`.

    ``M qdd`` is the Newton–Euler torque at zero velocity less gravity, ``C qd`` the
    one at zero acceleration less gravity: one recursion each, sharing the poses.
    """
    n = chain.nv
    zeros = [0] * n
    gravity = gravity_torques(chain, q, ops)
    inertial = [t - g for t, g in zip(rnea(chain, q, zeros, qdd, ops), gravity, strict=True)]
    coriolis = [t - g for t, g in zip(rnea(chain, q, qd, zeros, ops), gravity, strict=True)]
    friction = friction_torques(chain, qd, ops)
    external = contact_torques(chain, q, h_e, ops, frames) if h_e is not None else zeros
    total = [a + b + c + d + e for a, b, c, d, e in
             zip(inertial, coriolis, gravity, friction, external, strict=True)]
    return [inertial, coriolis, gravity, friction, external, total]


@dataclass(frozen=True)
class TorqueParts:
    """The terms of ``tau = M qdd + C qd + g + F_v qd + F_s sign(qd) + J^T h_e``, each
    ``(..., dof)``; ``total`` is their sum (:meth:`Robot.torque_parts`)."""

    inertial: np.ndarray
    coriolis: np.ndarray
    gravity: np.ndarray
    friction: np.ndarray
    external: np.ndarray
    total: np.ndarray

    NAMES = TORQUE_PARTS[:-1]  # the parts, without their total

    def as_dict(self) -> dict[str, np.ndarray]:
        """``{name: array}`` of the five parts and the total, in that order."""
        return {name: getattr(self, name) for name in (*self.NAMES, "total")}

    def __repr__(self) -> str:
        return f"TorqueParts(shape={shape(self.total)}, parts={', '.join(self.NAMES)}, total)"

    def __str__(self) -> str:
        """The peak magnitude of each part per joint (over the samples)."""
        dof = np.shape(self.total)[-1] if np.ndim(self.total) else 1
        rows = []
        for name, values in self.as_dict().items():
            peak = np.abs(np.asarray(values, dtype=float)).reshape(-1, dof).max(axis=0)
            rows.append((name, *(number(x) for x in peak)))
        head = ["part", *(f"tau{j + 1}" for j in range(dof))]
        return "\n".join([f"Torque parts, shape {shape(self.total)}: peak |tau| per joint",
                          *text_table(head, rows)])
