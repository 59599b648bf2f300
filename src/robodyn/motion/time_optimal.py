"""Time-varying scaling of a trajectory: the fastest motion along its path within the
torque limits (the time-optimal path parameterisation of Bobrow, Dubowsky & Gibson 1985
and Shin & McKay 1985, computed by reachability analysis as in TOPP-RA, Pham & Pham, IEEE
T-RO 34(3), 2018). Siciliano et al., Robotics, §7.7 scales uniformly; this lets the
scaling vary along the motion.

The path is the trajectory's own, ``q(s) = q_traj(s T)`` for ``0 <= s <= 1``, so
``q' = T qd`` and ``q'' = T^2 qdd``. Moving along it with ``s(t)`` (``s' = ds/dt``, ``x =
s'^2``, ``u = s''``) the joint velocity is ``q' s'`` and the acceleration ``q' u + q'' x``,
and the torques are (``C`` is linear in the velocity)::

    tau = M q' u + (M q'' + C(q, q') q') x + F_v q' s' + g + F_s sign(q')      (s' > 0)

which is linear in ``(u, x)`` but for viscous friction (in ``s' = sqrt(x)``). On a grid
``s_0 = 0 < ... < s_N = 1`` (Chebyshev-Lobatto points, denser at the ends) with
``x_{i+1} = x_i + 2 (s_{i+1} - s_i) u_i`` (constant ``u`` between grid points):

1. backward, ``x_N = 0`` (rest at the end): the largest ``x_i`` from which some ``u_i``
   within the limits at ``s_i`` reaches ``[0, X_{i+1}]`` (bisection on ``x``: the
   admissible ``u`` at a given ``x`` is an interval, one per joint intersected);
2. forward from rest ``x_0 = 0``: the largest admissible ``u_i``, capped so that
   ``x_{i+1} <= X_{i+1}``.

The result starts and ends at rest, keeps ``|tau| <= tau_max`` at every grid point, and
at each grid point one limit is active or the speed is the largest the rest of the path
allows (bang-bang). Between grid points ``s(t)`` is the parabola of its constant ``u``;
the time of a step is ``2 ds / (s'_i + s'_{i+1})``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import InputError
from .scaling_torques import torque_coefficients
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["time_optimal", "MAX_GRID"]

#: Most grid points of the path (``samples``): each costs a bisection of the speed.
MAX_GRID = 100_000
_BISECTIONS = 60


def _path_coefficients(robot: Robot, trajectory: Trajectory, s: np.ndarray):
    """``(a, b, v, c)`` with ``tau = a u + b x + v sqrt(x) + c`` at each grid point."""
    T = trajectory.duration
    q, qd, qdd = trajectory(s * T)
    dq, ddq = T * qd, T * T * qdd
    b, v, c = torque_coefficients(robot, q, dq, ddq)
    a = (robot.mass_matrix(q) @ dq[..., None])[..., 0]
    return a, b, v, c


def _u_interval(a, rest, limits):
    """The ``u`` with ``|a u + rest| <= limits`` for every joint: ``(lo, hi)`` (``lo > hi``:
    none); a joint with ``a_j = 0`` admits every ``u`` or none."""
    low, high = -limits - rest, limits - rest
    with np.errstate(divide="ignore", invalid="ignore"):
        u1, u2 = low / a, high / a
    lo = np.where(a > 0, u1, np.where(a < 0, u2, -np.inf))
    hi = np.where(a > 0, u2, np.where(a < 0, u1, np.inf))
    blocked = (a == 0) & ((low > 0) | (high < 0))
    return lo.max(), (-np.inf if blocked.any() else hi.min())


def time_optimal(robot: Robot, trajectory: Trajectory, torque_limits, samples: int = 1001
                 ) -> Trajectory:
    """The fastest rest-to-rest motion along ``trajectory``'s path with ``|tau| <=
    torque_limits`` at ``samples`` grid points of the path (module docstring). ``info``:
    ``s``, ``s_dot`` and ``t`` at the grid points, ``k`` (the new duration over the old).
    An :class:`~robodyn.InputError` where no motion along the path fits (gravity alone over
    a limit at some point)."""
    limits = np.broadcast_to(np.asarray(torque_limits, dtype=float), (robot.dof,))
    n = int(samples)
    if not 3 <= n <= MAX_GRID:
        raise InputError(f"samples: {samples}; give 3 to {MAX_GRID:,} grid points")
    # denser at the ends, where a rest-to-rest path's own speed q' vanishes (its torque
    # changes fastest there along s): Chebyshev-Lobatto points
    s = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, n))
    s[0], s[-1] = 0.0, 1.0
    a, b, v, c = _path_coefficients(robot, trajectory, s)
    ds = np.diff(s)
    # an upper bound of x: where a joint's x-coefficient is not 0, |b x| <= 2 limit + |c|
    with np.errstate(divide="ignore"):
        cap = np.where(np.abs(b) > 0, (2 * limits + np.abs(c) + np.abs(v)) / np.abs(b),
                       np.inf).min(axis=1)
    cap = np.where(np.isfinite(cap), cap, 1e12) * 4 + 1.0

    def admissible(i, x, top):
        """The ``u`` at ``s_i`` from speed ``x`` within the limits at both ends of the
        step (TOPP-RA's interpolation scheme: ``x_{i+1} = x + 2 ds u`` at ``s_{i+1}``, its
        viscous term taken at ``x``) that reach ``0 <= x_{i+1} <= top``."""
        root = np.sqrt(x)
        lo, hi = _u_interval(a[i], b[i] * x + v[i] * root + c[i], limits)
        if i == n - 1:
            return lo, hi
        h = 2 * ds[i]
        lo1, hi1 = _u_interval(a[i + 1] + h * b[i + 1], b[i + 1] * x + v[i + 1] * root
                               + c[i + 1], limits)
        return max(lo, lo1, -x / h), min(hi, hi1, (top - x) / h)

    def reachable(i, x, top):
        lo, hi = admissible(i, x, top)
        return lo <= hi

    X = np.zeros(n)
    for i in range(n - 2, -1, -1):  # the controllable speeds, from the rest at the end
        if not reachable(i, 0.0, X[i + 1]):
            j = int(np.argmax(np.abs(c[i]) - limits))
            raise InputError(
                f"time_optimal: at s = {s[i]:.4g} (t = {s[i] * trajectory.duration:.4g} s "
                f"of the original) no motion along the path fits the limits: joint "
                f"{robot.joints[j]!r} needs {abs(c[i, j]):.6g} at rest against {limits[j]:g} "
                "(gravity and Coulomb friction alone); raise the limit or change the path")
        lo_x, hi_x = 0.0, cap[i]
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lo_x + hi_x)
            lo_x, hi_x = (mid, hi_x) if reachable(i, mid, X[i + 1]) else (lo_x, mid)
        X[i] = lo_x
    x = np.zeros(n)
    u = np.zeros(n - 1)
    for i in range(n - 1):  # forward: the largest admissible acceleration of the path
        lo, hi = admissible(i, x[i], X[i + 1])
        u[i] = max(hi, -x[i] / (2 * ds[i])) if hi >= lo else -x[i] / (2 * ds[i])
        x[i + 1] = min(max(x[i] + 2 * ds[i] * u[i], 0.0), X[i + 1])
        u[i] = (x[i + 1] - x[i]) / (2 * ds[i])
    sd = np.sqrt(x)
    dt = 2 * ds / np.maximum(sd[:-1] + sd[1:], 1e-300)
    t = np.concatenate([[0.0], np.cumsum(dt)])
    T0 = trajectory.duration

    def evaluate(times):
        times = np.asarray(times, dtype=float)
        k = np.clip(np.searchsorted(t, times, side="right") - 1, 0, n - 2)
        tau = times - t[k]
        sk = np.clip(s[k] + sd[k] * tau + 0.5 * u[k] * tau**2, 0.0, 1.0)
        rate = np.maximum(sd[k] + u[k] * tau, 0.0)
        acc = u[k]
        q, qd, qdd = trajectory(sk * T0)
        dq, ddq = T0 * qd, T0 * T0 * qdd
        return q, dq * rate[:, None], dq * acc[:, None] + ddq * (rate**2)[:, None]

    info = {**trajectory.info, "k": float(t[-1] / T0), "s": s, "s_dot": sd, "t": t}
    return Trajectory(evaluate, float(t[-1]), trajectory.dof, f"{trajectory.kind} "
                      "time-optimal", info, trajectory.nq)
