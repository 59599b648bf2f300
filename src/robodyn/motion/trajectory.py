"""Joint-space trajectories: the motions inverse dynamics plans and control tracks.

Every constructor returns a :class:`Trajectory`, callable at times ``t`` (any
shape) as ``traj(t) -> (q, qd, qdd)``, each ``t.shape + (dof,)``, and sampled with
``traj.sample(dt)`` into a :class:`Motion` (``t``, ``q``, ``qd``, ``qdd``).
Outside ``[0, duration]`` a trajectory holds its end points at rest.

* :func:`cubic` — ``q(t) = a0 + a1 t + a2 t^2 + a3 t^3`` with given end positions
  and velocities (Siciliano §4.2.1, eq. 4.2–4.4 per joint);
* :func:`quintic` — fifth-order polynomial with given end positions,
  velocities and accelerations (Siciliano §4.2.1, eq. 4.5–4.6);
* :func:`trapezoidal` — trapezoidal velocity profile (linear segments with
  parabolic blends, Siciliano §4.2.1 eq. 4.7–4.10), all joints synchronised on
  one time law ``s(t)`` along the straight line ``q0 + s (q1 - q0)``;
* :func:`spline` — clamped cubic spline through via points (zero end
  velocities, continuous accelerations; Siciliano §4.2.2);
* :func:`rest_spline` — quintic spline through via points, at rest with zero
  acceleration at both ends (the boundary conditions of the rest-to-rest quintic).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..core.display import numbers, span
from ..core.errors import InputError, excerpt, positive_number

__all__ = ["Motion", "Trajectory", "cubic", "quintic", "trapezoidal", "spline", "rest_spline",
           "geodesic"]

#: A time grid's remainder under this fraction of a step is rounding, not a shorter last step.
GRID_ROUNDING = 1e-6


def whole_steps(duration: float, dt: float) -> int:
    """How many whole steps ``dt`` fit in ``duration``; a shortfall under
    :data:`GRID_ROUNDING` of a step is rounding (``1.0 / 0.1`` is 10 steps, not 9)."""
    return int(np.floor(duration / dt + GRID_ROUNDING))


def sample_times(duration: float, dt: float) -> np.ndarray:
    """The times ``0, dt, 2 dt, ...`` and, when ``duration`` is not a whole number of steps
    (:func:`whole_steps`), ``duration`` itself after a shorter last step; a remainder under
    :data:`GRID_ROUNDING` of ``dt`` is rounding: the grid ends at the multiple."""
    t = np.arange(whole_steps(duration, dt) + 1) * dt
    if duration - t[-1] > GRID_ROUNDING * dt:
        t = np.append(t, duration)
    return t


@dataclass(frozen=True)
class Motion:
    """A sampled motion: times ``t`` ``(T,)`` and ``q``, ``qd``, ``qdd`` ``(T, dof)``."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray

    @property
    def dof(self) -> int:
        return self.q.shape[-1]

    def __repr__(self) -> str:
        return f"Motion(dof={self.dof}, samples={len(self.t)}, t={span(self.t)})"

    def __str__(self) -> str:
        """Sizes, the time span, the end positions and the peak rates."""
        if not len(self.t):
            return repr(self)
        return "\n".join([
            f"Motion: {self.dof} joints, {len(self.t)} samples over {span(self.t)}",
            f"  q: {numbers(self.q[0])} -> {numbers(self.q[-1])}",
            f"  peak |qd| = {numbers(np.abs(self.qd).max(axis=0))}, peak |qdd| = "
            f"{numbers(np.abs(self.qdd).max(axis=0))}"])


class Trajectory:
    """A motion ``q(t)`` of ``dof`` joints over ``[0, duration]``; ``traj(t) -> (q, qd, qdd)``.

    ``kind`` names how it was made (``"quintic"``, ...); ``info`` holds what the
    constructor chose (e.g. the peak velocity of a trapezoidal profile).
    """

    def __init__(self, evaluate: Callable, duration: float, dof: int, kind: str,
                 info: dict | None = None, nq: int | None = None):
        self._evaluate = evaluate
        self.duration = float(duration)
        self.dof = dof
        #: values of ``q`` (``dof``, or more on a model with quaternion joints: :func:`geodesic`)
        self.nq = dof if nq is None else nq
        self.kind = kind
        self.info = dict(info or {})

    def __call__(self, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = np.asarray(t, dtype=float)
        inside = np.clip(t, 0.0, self.duration)
        q, qd, qdd = self._evaluate(inside.reshape(-1))
        shape = t.shape + (self.dof,)
        q, qd, qdd = q.reshape(t.shape + (self.nq,)), qd.reshape(shape), qdd.reshape(shape)
        outside = ((t < 0) | (t > self.duration))[..., None]
        if outside.any():  # at rest beyond the ends
            qd = np.where(outside, 0.0, qd)
            qdd = np.where(outside, 0.0, qdd)
        return q, qd, qdd

    def with_info(self, kind: str, info: Mapping | None = None) -> Trajectory:
        """The same motion under another ``kind``, its ``info`` updated by ``info``."""
        if not isinstance(kind, str):
            raise InputError(f"kind: expected a name (text), got {excerpt(kind)}")
        if info is not None and not isinstance(info, Mapping):
            raise InputError(f"info: expected a mapping of names to values, got {excerpt(info)}")
        return Trajectory(self._evaluate, self.duration, self.dof, kind,
                          {**self.info, **(info or {})}, self.nq)

    def sample(self, dt: float) -> Motion:
        """The motion at ``t = 0, dt, 2 dt, ...`` up to and including ``duration``
        (:func:`sample_times`)."""
        t = sample_times(self.duration, positive_number(dt, "dt"))
        return Motion(t, *self(t))

    @property
    def q0(self) -> np.ndarray:
        return self(0.0)[0]

    @property
    def q1(self) -> np.ndarray:
        return self(self.duration)[0]

    def __repr__(self) -> str:
        return f"Trajectory({self.kind}, dof={self.dof}, duration={self.duration:g})"


# -- checks ----------------------------------------------------------------------------------
def _vector(value, name: str, dof: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected real numbers, got {str(value)[:80]!r}") from None
    if arr.ndim > 1:
        raise InputError(f"{name}: expected one value per joint, got shape {arr.shape}")
    if dof is not None:
        if arr.ndim == 0:
            arr = np.full(dof, float(arr))
        elif arr.shape[0] != dof:
            raise InputError(f"{name}: expected {dof} values (one per joint), got {arr.shape[0]}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: {arr.tolist()} is not finite")
    return np.atleast_1d(arr)


def _polynomial(coeffs: np.ndarray, duration: float, kind: str, dof: int) -> Trajectory:
    """``q(t) = sum_k coeffs[k] t^k`` per joint; ``coeffs`` is ``(order + 1, dof)``."""
    powers = np.arange(coeffs.shape[0])
    d1 = coeffs[1:] * powers[1:, None]
    d2 = d1[1:] * powers[1:-1, None]

    def evaluate(t):
        def poly(c):
            return np.power.outer(t, np.arange(c.shape[0])) @ c

        return poly(coeffs), poly(d1), poly(d2)

    return Trajectory(evaluate, duration, dof, kind, {"coefficients": coeffs})


# -- constructors --------------------------------------------------------------------------------
def cubic(q0: ArrayLike, q1: ArrayLike, duration: float, qd0: ArrayLike = 0.0,
          qd1: ArrayLike = 0.0) -> Trajectory:
    """Cubic polynomial from ``q0`` to ``q1`` in ``duration`` with end velocities ``qd0``,
    ``qd1`` (each a number or one per joint)."""
    q0 = _vector(q0, "q0")
    dof = q0.shape[0]
    q1 = _vector(q1, "q1", dof)
    qd0, qd1 = _vector(qd0, "qd0", dof), _vector(qd1, "qd1", dof)
    T = positive_number(duration, "duration")
    # q = a0 + a1 t + a2 t^2 + a3 t^3 with q(0) = q0, qd(0) = qd0, q(T) = q1, qd(T) = qd1
    a2 = (3 * (q1 - q0) - (2 * qd0 + qd1) * T) / T**2
    a3 = (-2 * (q1 - q0) + (qd0 + qd1) * T) / T**3
    return _polynomial(np.stack([q0, qd0, a2, a3]), T, "cubic", dof)


def quintic(q0: ArrayLike, q1: ArrayLike, duration: float, qd0: ArrayLike = 0.0,
            qd1: ArrayLike = 0.0, qdd0: ArrayLike = 0.0, qdd1: ArrayLike = 0.0) -> Trajectory:
    """Quintic polynomial from ``q0`` to ``q1`` in ``duration`` with end velocities and
    accelerations (default: rest to rest)."""
    q0 = _vector(q0, "q0")
    dof = q0.shape[0]
    q1 = _vector(q1, "q1", dof)
    v0, v1 = _vector(qd0, "qd0", dof), _vector(qd1, "qd1", dof)
    a0, a1 = _vector(qdd0, "qdd0", dof), _vector(qdd1, "qdd1", dof)
    T = positive_number(duration, "duration")
    h = q1 - q0
    c3 = (20 * h - (8 * v1 + 12 * v0) * T - (3 * a0 - a1) * T**2) / (2 * T**3)
    c4 = (-30 * h + (14 * v1 + 16 * v0) * T + (3 * a0 - 2 * a1) * T**2) / (2 * T**4)
    c5 = (12 * h - 6 * (v1 + v0) * T - (a0 - a1) * T**2) / (2 * T**5)
    return _polynomial(np.stack([q0, v0, a0 / 2, c3, c4, c5]), T, "quintic", dof)


def trapezoidal(q0: ArrayLike, q1: ArrayLike, duration: float | None = None,
                vmax: ArrayLike | None = None, amax: ArrayLike | None = None) -> Trajectory:
    """Trapezoidal velocity profile, joints synchronised (all start and stop together,
    moving on the straight line from ``q0`` to ``q1``).

    The time law ``s(t)`` in ``[0, 1]`` accelerates at ``A``, cruises at ``V`` and
    decelerates at ``A``: ``duration = 1/V + V/A``. Joint ``i`` moves at ``V |D_i|`` at
    most (``D = q1 - q0``), so the limits give ``V <= min vmax_i/|D_i|`` and
    ``A <= min amax_i/|D_i|``. Give ``duration`` and at most one of ``vmax``, ``amax``
    (default: blends of a third of the duration), or ``vmax`` and ``amax`` for the
    shortest motion (a triangle when the cruise speed is never reached).
    """
    q0 = _vector(q0, "q0")
    dof = q0.shape[0]
    q1 = _vector(q1, "q1", dof)
    dist = np.abs(q1 - q0)
    moving = dist > 0

    def bound(limit, name):
        if limit is None:
            return None
        limit = _vector(limit, name, dof)
        if (limit <= 0).any():
            raise InputError(f"{name}: every limit must be positive, got {limit.tolist()}")
        return float(np.min(limit[moving] / dist[moving])) if moving.any() else np.inf

    V, A = bound(vmax, "vmax"), bound(amax, "amax")
    if duration is None:
        if V is None or A is None:
            raise InputError("trapezoidal: give duration, or both vmax and amax for the "
                             "shortest motion within them")
        if not moving.any():
            return _trapezoid(q0, q1, 1.0, 1.0, 1.0, dof)
        if V * V > A:  # the cruise speed is never reached: a triangle
            V = np.sqrt(A)
        return _trapezoid(q0, q1, 1 / V + V / A, V, A, dof)
    T = positive_number(duration, "duration")
    if V is not None and A is not None:
        raise InputError("trapezoidal: with a duration give vmax or amax, not both (the "
                         "profile would be over-determined)")
    if A is not None:
        if A * T * T < 4:
            raise InputError(f"trapezoidal: duration {T:g} is too short for amax (needs at "
                             f"least {2 / np.sqrt(A):.6g} s)")
        V = (A * T - np.sqrt(A * A * T * T - 4 * A)) / 2
    elif V is not None:
        if V * T <= 1:
            raise InputError(f"trapezoidal: duration {T:g} is too short for vmax (needs more "
                             f"than {1 / V:.6g} s)")
        V = min(V, 2 / T)
        A = V / (T - 1 / V)
    else:
        V = 1.5 / T  # blends of T/3 (Siciliano's usual choice)
        A = V / (T - 1 / V)
    return _trapezoid(q0, q1, T, V, A, dof)


def _trapezoid(q0, q1, T, V, A, dof) -> Trajectory:
    D = q1 - q0
    tb = V / A  # blend time

    def evaluate(t):
        s = np.where(t < tb, A * t * t / 2,
                     np.where(t <= T - tb, V * (t - tb / 2), 1 - A * (T - t) ** 2 / 2))
        sd = np.where(t < tb, A * t, np.where(t <= T - tb, V, A * (T - t)))
        sdd = np.where(t < tb, A, np.where(t <= T - tb, 0.0, -A))
        return (q0 + np.outer(s, D), np.outer(sd, D), np.outer(sdd, D))

    return Trajectory(evaluate, T, dof, "trapezoidal",
                      {"peak_velocity": V * D, "acceleration": A * D, "blend_time": tb})


def _waypoints(times: ArrayLike, waypoints: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(times (K,), points (K, dof))`` of a spline, checked."""
    times = _vector(times, "times")
    try:
        points = np.asarray(waypoints, dtype=float)
    except (TypeError, ValueError):
        raise InputError("waypoints: expected a (K, dof) array of real numbers") from None
    if points.ndim == 1:
        points = points[:, None]
    if points.ndim != 2 or points.shape[0] != times.shape[0]:
        raise InputError(f"waypoints: expected shape ({times.shape[0]}, dof) to match times, "
                         f"got {points.shape}")
    if times.shape[0] < 2:
        raise InputError("spline: needs at least two waypoints")
    if not np.isfinite(points).all():
        raise InputError("waypoints: every value must be finite")
    if (np.diff(times) <= 0).any():
        raise InputError(f"times: must increase strictly, got {times.tolist()}")
    return times, points


def geodesic(robot, q0: ArrayLike, q1: ArrayLike, duration: float,
             profile: str = "quintic") -> Trajectory:
    """A rest-to-rest motion of a model with ball or free joints (or any model) from ``q0``
    to ``q1`` (``nq`` values each): ``q(t) = q0 ⊕ s(t) (q1 ⊖ q0)``
    (:meth:`robodyn.Robot.integrate`, :meth:`~robodyn.Robot.difference`) with ``s`` the
    ``profile`` (``"cubic"``, ``"quintic"``, ``"trapezoidal"``) from 0 to 1. Each joint turns
    (a free joint screws) about one fixed axis, a one-parameter subgroup, so
    ``qd = s' (q1 ⊖ q0)`` and ``qdd = s'' (q1 ⊖ q0)`` exactly; with one-value joints it is
    the ``profile`` itself. ``traj(t)`` gives ``q`` ``(..., nq)``, ``qd``, ``qdd``
    ``(..., nv)``."""
    if profile not in ("cubic", "quintic", "trapezoidal"):
        raise InputError(f"profile: {excerpt(profile)} is not 'cubic', 'quintic' or "
                         "'trapezoidal'")
    q0 = robot.chain.normalized(_vector(q0, "q0", robot.nq))
    q1 = robot.chain.normalized(_vector(q1, "q1", robot.nq))
    step = robot.difference(q0, q1)
    scalar = globals()[profile]([0.0], [1.0], duration)

    def evaluate(t):
        s, sd, sdd = scalar(t)
        return robot.integrate(q0, s * step), sd * step, sdd * step

    return Trajectory(evaluate, scalar.duration, robot.nv, f"geodesic {profile}",
                      dict(scalar.info), robot.nq)


def spline(times: ArrayLike, waypoints: ArrayLike) -> Trajectory:
    """Clamped cubic spline through ``waypoints`` ``(K, dof)`` at ``times`` ``(K,)``
    (increasing; shifted to start at 0): zero velocity at both ends, continuous
    velocity and acceleration at the via points. Its end accelerations are in general not
    zero (:func:`rest_spline` ends with zero acceleration too)."""
    from scipy.interpolate import CubicSpline  # SciPy only when used

    times, points = _waypoints(times, waypoints)
    t0 = times[0]
    cs = CubicSpline(times - t0, points, bc_type="clamped", axis=0)
    d1, d2 = cs.derivative(1), cs.derivative(2)
    return Trajectory(lambda t: (cs(t), d1(t), d2(t)), times[-1] - t0, points.shape[1],
                      "spline", {"times": times - t0, "waypoints": points})


def rest_spline(times: ArrayLike, waypoints: ArrayLike) -> Trajectory:
    """Quintic spline through ``waypoints`` ``(K, dof)`` at ``times`` ``(K,)`` (increasing;
    shifted to start at 0) that starts and ends at rest with zero acceleration, as the
    rest-to-rest :func:`quintic` does (``qd = qdd = 0`` at both ends); continuous up to the
    fourth derivative at the via points. Through two waypoints it is that quintic, and
    through points on a quintic it is the quintic itself (the interpolant is unique)."""
    from scipy.interpolate import make_interp_spline  # SciPy only when used

    times, points = _waypoints(times, waypoints)
    t0 = times[0]
    dof = points.shape[1]
    rest = [(1, np.zeros(dof)), (2, np.zeros(dof))]
    bs = make_interp_spline(times - t0, points, k=5, bc_type=(rest, rest), axis=0)
    d1, d2 = bs.derivative(1), bs.derivative(2)
    return Trajectory(lambda t: (bs(t), d1(t), d2(t)), times[-1] - t0, dof, "rest-spline",
                      {"times": times - t0, "waypoints": points})
