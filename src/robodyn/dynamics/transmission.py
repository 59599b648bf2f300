"""What a coupled transmission (:mod:`robodyn.model.transmission`, ``theta = N q``) adds to
the equations of motion, on arrays.

The motors' kinetic energy ``1/2 thetad^T J_m thetad = 1/2 qd^T (N^T J_m N) qd`` adds the
constant reflected inertia ``N^T J_m N`` to ``M(q)``; power balance
``tau_m^T thetad = tau^T qd`` for every ``qd`` gives ``tau = N^T tau_m``, so the motor
torques are ``tau_m = N^-T tau``; motor-side friction ``B_m thetad + F_m sign(thetad)``
reflects as ``N^T (B_m N qd + F_m sign(N qd))`` (Spong, Hutchinson & Vidyasagar, *Robot
Modeling and Control*, §6.4 and §7.5; with ``N = diag(G)`` the diagonal ``G^2 J_m`` of
Siciliano et al., *Robotics*, eq. 8.3, robodyn's per-joint ``motor``)::

    (M(q) + N^T J_m N) qdd + C qd + g + tau_f + N^T (B_m N qd + F_m sign(N qd)) = N^T tau_m

The functions take the rigid terms (``M``, ``tau``) a model already computes and add the
drives' part; shapes ``(..., n)`` and ``(..., n, n)``.
"""

from __future__ import annotations

import numpy as np

from ..model.transmission import Transmission


def reflected_inertia(tr: Transmission) -> np.ndarray:
    """``N^T diag(J_m) N``, the motors' inertia seen at the joints, ``(n, n)``, symmetric
    positive semi-definite."""
    n = tr.N
    return n.T @ (np.asarray(tr.motor_inertia)[:, None] * n)


def motor_angles(tr: Transmission, q) -> np.ndarray:
    """``theta = N q`` (also motor velocities from ``qd``), ``(..., n)``."""
    return np.asarray(q, dtype=float) @ tr.N.T


def motor_torques(tr: Transmission, tau) -> np.ndarray:
    """``tau_m = N^-T tau``, the motor torques that deliver the joint torques ``tau``
    (solved, not inverted), ``(..., n)``."""
    tau = np.asarray(tau, dtype=float)
    return np.linalg.solve(tr.N.T, tau[..., None])[..., 0]


def joint_torques(tr: Transmission, tau_m) -> np.ndarray:
    """``tau = N^T tau_m``, the joint torques of motor torques ``tau_m``, ``(..., n)``."""
    return np.asarray(tau_m, dtype=float) @ tr.N


def motor_friction(tr: Transmission, qd) -> np.ndarray:
    """``N^T (B_m N qd + F_m sign(N qd))``: the motors' friction seen at the joints."""
    thetad = motor_angles(tr, qd)
    tau_m = np.asarray(tr.motor_viscous) * thetad + np.asarray(tr.motor_coulomb) * np.sign(thetad)
    return joint_torques(tr, tau_m)


def mass_matrix(tr: Transmission, m_rigid) -> np.ndarray:
    """``M(q) + N^T J_m N`` from the links' ``M(q)`` ``(..., n, n)``."""
    return np.asarray(m_rigid, dtype=float) + reflected_inertia(tr)


def inverse_dynamics(tr: Transmission, tau_rigid, qd, qdd) -> np.ndarray:
    """Joint torques with the drives: the links' ``tau`` (``M qdd + C qd + g + tau_f``)
    plus ``N^T J_m N qdd`` and the reflected motor friction, ``(..., n)``; the motors'
    torques are then :func:`motor_torques` of it."""
    qdd = np.asarray(qdd, dtype=float)
    return (np.asarray(tau_rigid, dtype=float) + qdd @ reflected_inertia(tr).T
            + motor_friction(tr, qd))


def forward_dynamics(tr: Transmission, m_rigid, bias, qd, tau) -> np.ndarray:
    """``qdd = (M + N^T J_m N)^-1 (tau - bias - N^T (B_m N qd + F_m sign(N qd)))`` with
    ``bias = C qd + g + tau_f`` of the links (their ``inverse_dynamics`` at ``qdd = 0``),
    ``tau`` the joint torques (``N^T tau_m``); a Cholesky solve (the matrix is SPD)."""
    m = mass_matrix(tr, m_rigid)
    rhs = np.asarray(tau, dtype=float) - np.asarray(bias, dtype=float) - motor_friction(tr, qd)
    factor = np.linalg.cholesky(m)
    y = np.linalg.solve(factor, rhs[..., None])
    return np.linalg.solve(np.swapaxes(factor, -1, -2), y)[..., 0]
