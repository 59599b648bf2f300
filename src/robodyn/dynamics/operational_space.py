"""The operational space (task space) dynamic model of Khatib (1987), from the joint-space one.

With ``M(q)`` the joint-space inertia ``(n, n)``, ``J(q)`` the Jacobian of a frame ``(m, n)``
(``m`` task rows), ``Jdot qd`` its rate times the joint rates ``(m,)``, ``c = C(q, qd) qd`` the
Coriolis/centrifugal torques ``(n,)`` and ``g(q)`` the gravity torques ``(n,)``, the end
effector obeys (Khatib, IEEE J. Robotics and Automation 3(1), 1987, eqs. 26-29; Siciliano
et al., Robotics, §7.8, eqs. 7.119-7.122 with ``B = M``, ``B_A = Lambda``)::

    Lambda(q) x_dd + mu(q, qd) + p(q) = F            (tau = J^T F)

    Lambda = (J M^-1 J^T)^-1                          task-space inertia, (m, m), SPD
    mu     = Lambda (J M^-1 c - Jdot qd)              Coriolis/centrifugal force, (m,)
    p      = Lambda J M^-1 g                          gravity force, (m,)
    J_bar  = M^-1 J^T Lambda                          dynamically consistent inverse, (n, m)

``mu`` is Khatib's ``mu`` and Siciliano's ``C_A(x, x') x'`` (eq. 7.121: ``B_A J B^-1 C qd -
B_A J' qd``), ``p`` his ``p`` and Siciliano's ``g_A``. Friction is not part of them: it acts
as a joint torque, so ``tau = J^T F`` moves the arm by ``Lambda^-1 (F - mu - p - J_bar^T
tau_f)`` with ``tau_f`` the friction torques. ``J J_bar = 1`` and ``J_bar^T`` maps joint
torques to task forces without exciting the null space (``1 - J_bar J``).

Every solve with ``M`` goes through its Cholesky factor ``M = L L^T``: ``A = L^-1 J^T``, so
``J M^-1 J^T = A^T A`` (symmetric by construction) and ``M^-1 J^T = L^-T A``; no inverse of
``M`` is formed. ``Lambda`` itself is the inverse of the ``m x m`` matrix ``A^T A``, found
from its Cholesky factor too. A task Jacobian of rank below ``m`` (a singular configuration,
or 6 task rows on an arm with fewer joints: pick ``rows``) is an error naming the rank, or,
with ``damping = lambda > 0``, damped least squares: ``Lambda = (J M^-1 J^T + lambda^2 1)^-1``
(Nakamura & Hanafusa 1986; then ``J J_bar = 1 - lambda^2 Lambda``).

The analytical Jacobian (``jacobian="analytical"``, Siciliano eq. 3.66) uses ZYX Euler
angles ``phi = (phi, theta, psi)``, ``R = Rz(phi) Ry(theta) Rx(psi)`` (Siciliano eq. 2.22,
the roll-pitch-yaw angles): ``omega = T(phi) phi_d`` with ``T`` the matrix of
:func:`zyx_rate_matrix`, ``J_A = diag(1, T^-1) J`` and ``J_A' qd = diag(1, T^-1) (J' qd -
(0, T' phi_d))``. It is singular at ``cos theta = 0`` (the representation singularity).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError

__all__ = ["OperationalSpace", "operational_space", "zyx_angles", "zyx_rate_matrix"]

#: The ratio of the smallest to the largest singular value of ``L^-1 J^T`` under which the
#: task Jacobian counts as rank deficient (Lambda's condition number would exceed 1e20).
RANK_TOLERANCE = 1e-10


@dataclass(frozen=True)
class OperationalSpace:
    """Khatib's operational-space model at one frame, each batched over leading axes:
    ``Lambda`` ``(..., m, m)``, ``mu`` and ``p`` ``(..., m)``, ``J_bar`` ``(..., n, m)``, and
    the task Jacobian ``J`` ``(..., m, n)`` and bias acceleration ``Jdot_qd`` ``(..., m)``
    they were made from (the analytical ones for ``jacobian="analytical"``)."""

    Lambda: np.ndarray
    mu: np.ndarray
    p: np.ndarray
    J_bar: np.ndarray
    J: np.ndarray
    Jdot_qd: np.ndarray

    def task_acceleration(self, F: np.ndarray) -> np.ndarray:
        """``x_dd = Lambda^-1 (F - mu - p)``: the frame's acceleration under ``tau = J^T F``
        (no friction), ``(..., m)`` -> ``(..., m)``."""
        rhs = np.asarray(F, dtype=float) - self.mu - self.p
        return np.linalg.solve(self.Lambda, rhs[..., None])[..., 0]

    def task_force(self, x_dd: np.ndarray) -> np.ndarray:
        """``F = Lambda x_dd + mu + p``: the task force that gives ``x_dd`` (Siciliano
        eq. 7.119); the joint torques are ``J^T F``."""
        return (self.Lambda @ np.asarray(x_dd, dtype=float)[..., None])[..., 0] + self.mu + self.p


def zyx_angles(R: np.ndarray) -> np.ndarray:
    """ZYX Euler angles ``(phi, theta, psi)`` of rotation matrices ``(..., 3, 3)`` with
    ``R = Rz(phi) Ry(theta) Rx(psi)`` (Siciliano eq. 2.23, ``theta`` in ``[-pi/2, pi/2]``),
    ``(..., 3)``."""
    R = np.asarray(R, dtype=float)
    phi = np.arctan2(R[..., 1, 0], R[..., 0, 0])
    theta = np.arctan2(-R[..., 2, 0], np.hypot(R[..., 2, 1], R[..., 2, 2]))
    psi = np.arctan2(R[..., 2, 1], R[..., 2, 2])
    return np.stack([phi, theta, psi], axis=-1)


def zyx_rate_matrix(angles: np.ndarray) -> np.ndarray:
    """``T(phi)`` with ``omega = T phi_d`` for ZYX angles (columns: ``z``, ``Rz(phi) y``,
    ``Rz(phi) Ry(theta) x``), ``(..., 3)`` -> ``(..., 3, 3)``; ``det T = -cos theta``."""
    phi, theta = angles[..., 0], angles[..., 1]
    cf, sf, ct, st = np.cos(phi), np.sin(phi), np.cos(theta), np.sin(theta)
    zero, one = np.zeros_like(phi), np.ones_like(phi)
    return np.stack([np.stack([zero, -sf, cf * ct], -1),
                     np.stack([zero, cf, sf * ct], -1),
                     np.stack([one, zero, -st], -1)], -2)


def _zyx_rate_matrix_derivative(angles: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """``dT/dt = dT/dphi phi_d + dT/dtheta theta_d``, ``(..., 3, 3)``."""
    phi, theta = angles[..., 0], angles[..., 1]
    dphi, dtheta = rates[..., 0], rates[..., 1]
    cf, sf, ct, st = np.cos(phi), np.sin(phi), np.cos(theta), np.sin(theta)
    zero = np.zeros_like(phi)
    return np.stack([
        np.stack([zero, -cf * dphi, -sf * ct * dphi - cf * st * dtheta], -1),
        np.stack([zero, -sf * dphi, cf * ct * dphi - sf * st * dtheta], -1),
        np.stack([zero, zero, -ct * dtheta], -1)], -2)


def analytical_jacobian(J: np.ndarray, Jdot_qd: np.ndarray, R: np.ndarray,
                        qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The analytical Jacobian ``J_A = diag(1, T^-1) J`` ``(..., 6, n)`` and ``J_A' qd``
    ``(..., 6)`` from the geometric ``J``, ``J' qd`` and the frame's rotation ``R``
    (Siciliano eqs. 3.64-3.66, ZYX angles). ``cos theta = 0`` is a ModelError."""
    angles = zyx_angles(R)
    T = zyx_rate_matrix(angles)
    cos_theta = np.cos(angles[..., 1])
    if np.any(np.abs(cos_theta) < 1e-9):
        raise ModelError("jacobian='analytical': the ZYX angles are singular here "
                         f"(theta = ±pi/2, |cos theta| = {np.min(np.abs(cos_theta)):.2e}); "
                         "use jacobian='geometric' or another orientation of the frame")
    omega = (J[..., 3:, :] @ qd[..., None])[..., 0]
    rates = np.linalg.solve(T, omega[..., None])[..., 0]
    J_A = np.concatenate([J[..., :3, :], np.linalg.solve(T, J[..., 3:, :])], axis=-2)
    Tdot = _zyx_rate_matrix_derivative(angles, rates)
    angular = Jdot_qd[..., 3:] - (Tdot @ rates[..., None])[..., 0]
    Jdot_A_qd = np.concatenate([Jdot_qd[..., :3],
                                np.linalg.solve(T, angular[..., None])[..., 0]], axis=-1)
    return J_A, Jdot_A_qd


def _rank_error(A: np.ndarray, m: int, ratio: float) -> ModelError:
    s = np.linalg.svd(A, compute_uv=False)
    ranks = np.sum(s > RANK_TOLERANCE * s[..., :1], axis=-1)
    return ModelError(
        f"operational_space: the task Jacobian has rank {int(np.min(ranks))} < {m} task rows "
        f"(singular configuration, or more task rows than the arm can move; smallest/largest "
        f"singular value of L^-1 J^T {ratio:.1e}): choose rows=(...) the arm controls, "
        "or pass damping=lambda > 0 for the damped least-squares Lambda")


def operational_space(M: np.ndarray, J: np.ndarray, Jdot: np.ndarray, c: np.ndarray,
                      g: np.ndarray, qd: np.ndarray, pose: np.ndarray | None = None, *,
                      jacobian: str = "geometric", angles: str = "zyx",
                      rows: Sequence[int] | None = None,
                      damping: float = 0.0) -> OperationalSpace:
    """Khatib's ``Lambda``, ``mu``, ``p`` and ``J_bar`` (the module docstring's equations).

    ``M`` ``(..., n, n)`` SPD; ``J`` and ``Jdot`` ``(..., 6, n)``, the geometric Jacobian of
    the frame (origin velocity, then angular velocity, base axes) and its rate; ``c = C qd``,
    ``g`` and ``qd`` ``(..., n)``; ``pose`` ``(..., 4, 4)`` the frame's pose (needed for
    ``jacobian="analytical"``, whose orientation rows are the rates of ZYX Euler angles,
    ``angles="zyx"``); all batched over broadcast leading axes. ``rows`` picks task rows
    (e.g. ``(0, 1)`` for a planar arm's x, y); ``damping``: see the module docstring.
    A task Jacobian of rank below the number of rows without damping is a
    :class:`ModelError` naming the rank (never NaN).

    Example, the planar 2R arm's tip in x, y (``J`` square, so ``J_bar = J^-1``)::

        >>> import numpy as np, robodyn as rd
        >>> arm = rd.load("planar-2r")
        >>> ops = arm.operational_space([0.3, 1.2], [0.5, -1.0], rows=(0, 1))
        >>> ops.Lambda.shape, bool(np.allclose(ops.J @ ops.J_bar, np.eye(2)))
        ((2, 2), True)
    """
    if jacobian not in ("geometric", "analytical"):
        raise ValueError(f"jacobian: {jacobian!r} is not 'geometric' or 'analytical'")
    if angles != "zyx":
        raise ValueError(f"angles: {angles!r}; only 'zyx' (Siciliano's RPY, eq. 2.22) is known")
    M, J, Jdot = (np.asarray(a, dtype=float) for a in (M, J, Jdot))
    c, g, qd = (np.asarray(a, dtype=float) for a in (c, g, qd))
    shape = np.broadcast_shapes(M.shape[:-2], J.shape[:-2], qd.shape[:-1])
    qd = np.broadcast_to(qd, shape + qd.shape[-1:])
    Jdot_qd = (Jdot @ qd[..., None])[..., 0]
    if jacobian == "analytical":
        if pose is None:
            raise ValueError("jacobian='analytical' needs the frame's pose")
        J, Jdot_qd = analytical_jacobian(J, Jdot_qd, np.asarray(pose)[..., :3, :3], qd)
    if rows is not None:
        rows = list(rows)
        J, Jdot_qd = J[..., rows, :], Jdot_qd[..., rows]
    m = J.shape[-2]
    L = np.linalg.cholesky(M)
    A = np.linalg.solve(L, np.swapaxes(J, -1, -2))                  # L^-1 J^T, (n, m)
    Minv_JT = np.linalg.solve(np.swapaxes(L, -1, -2), A)           # M^-1 J^T
    Lambda_inv = np.swapaxes(A, -1, -2) @ A                         # J M^-1 J^T
    if damping < 0:
        raise ValueError(f"damping: {damping} is negative; give lambda >= 0")
    if damping > 0:
        Lambda_inv = Lambda_inv + damping**2 * np.eye(m)
    else:
        s = np.linalg.svd(A, compute_uv=False)
        ratio = float(np.min(s[..., -1] / s[..., 0])) if m <= A.shape[-2] else 0.0
        if not ratio > RANK_TOLERANCE:
            raise _rank_error(A, m, ratio)
    K = np.linalg.cholesky(Lambda_inv)
    K_inv = np.linalg.solve(K, np.broadcast_to(np.eye(m), Lambda_inv.shape))
    Lambda = np.swapaxes(K_inv, -1, -2) @ K_inv                     # (K K^T)^-1, symmetric
    Lt = np.swapaxes(L, -1, -2)
    Minv_c = np.linalg.solve(Lt, np.linalg.solve(L, c[..., None]))
    Minv_g = np.linalg.solve(Lt, np.linalg.solve(L, g[..., None]))
    mu = (Lambda @ (J @ Minv_c - Jdot_qd[..., None]))[..., 0]
    p = (Lambda @ (J @ Minv_g))[..., 0]
    J_bar = Minv_JT @ Lambda
    return OperationalSpace(Lambda=Lambda, mu=mu, p=p, J_bar=J_bar, J=J, Jdot_qd=Jdot_qd)
