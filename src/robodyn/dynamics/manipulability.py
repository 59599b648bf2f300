"""Manipulability ellipsoids of a frame: kinematic (velocities from unit-norm joint rates)
and dynamic (accelerations from unit-norm joint torques), Siciliano et al., Robotics, §3.9
and §7.9; Yoshikawa, "Dynamic manipulability of robot manipulators", J. Robotic Systems
2(1), 1985.

* Kinematic: ``v^T (J J^T)^-1 v <= 1`` for ``|qd| <= 1`` (Siciliano eq. 3.81); measure
  ``w = sqrt(det(J J^T))`` (eq. 3.56).
* Dynamic, at rest and without gravity (``qd = 0``; the velocity and gravity terms shift the
  centre, Siciliano eq. 7.127): ``x_dd = J M^-1 tau``, so ``|tau| <= 1`` reaches
  ``x_dd^T (J M^-1 M^-T J^T)^-1 x_dd <= 1`` (eq. 7.128); measure
  ``w_d = sqrt(det(J M^-2 J^T))``.

Both ellipsoids are ``x^T Q^-1 x <= 1``: semi-axes ``sqrt(lambda_i)`` along the eigenvectors
of ``Q`` (``Q = J J^T``, or ``J M^-1 M^-T J^T``). ``M^-1 J^T`` comes from Cholesky solves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Ellipsoid", "kinematic_ellipsoid", "dynamic_ellipsoid"]


@dataclass(frozen=True)
class Ellipsoid:
    """``x^T Q^-1 x <= 1``: ``Q`` ``(..., m, m)``, semi-axes ``(..., m)`` (ascending) along the
    columns of ``axes`` ``(..., m, m)``, and the measure ``sqrt(det Q)`` ``(...)`` (the
    volume over that of the unit ball)."""

    Q: np.ndarray
    semi_axes: np.ndarray
    axes: np.ndarray
    measure: np.ndarray


def _ellipsoid(Q: np.ndarray) -> Ellipsoid:
    Q = 0.5 * (Q + np.swapaxes(Q, -1, -2))
    eigenvalues, vectors = np.linalg.eigh(Q)
    semi = np.sqrt(np.clip(eigenvalues, 0.0, None))
    return Ellipsoid(Q=Q, semi_axes=semi, axes=vectors, measure=np.prod(semi, axis=-1))


def kinematic_ellipsoid(J: np.ndarray) -> Ellipsoid:
    """The velocity ellipsoid of ``J`` ``(..., m, n)``: ``Q = J J^T``, measure
    ``sqrt(det(J J^T))``."""
    J = np.asarray(J, dtype=float)
    return _ellipsoid(J @ np.swapaxes(J, -1, -2))


def dynamic_ellipsoid(M: np.ndarray, J: np.ndarray) -> Ellipsoid:
    """The dynamic manipulability ellipsoid of ``J`` ``(..., m, n)`` with the joint-space
    inertia ``M`` ``(..., n, n)``: ``Q = J M^-1 M^-T J^T``, measure
    ``sqrt(det(J M^-2 J^T))``.

    >>> import numpy as np
    >>> e = dynamic_ellipsoid(np.diag([2.0, 4.0]), np.eye(2))
    >>> np.round(e.semi_axes, 12).tolist(), round(float(e.measure), 12)
    ([0.25, 0.5], 0.125)
    """
    M, J = np.asarray(M, dtype=float), np.asarray(J, dtype=float)
    L = np.linalg.cholesky(M)
    Minv_JT = np.linalg.solve(np.swapaxes(L, -1, -2), np.linalg.solve(L, np.swapaxes(J, -1, -2)))
    return _ellipsoid(np.swapaxes(Minv_JT, -1, -2) @ Minv_JT)
