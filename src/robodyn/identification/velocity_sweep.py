"""A velocity sweep for friction identification: each joint in turn runs back and forth at
constant speeds spread over the range friction changes in, the other joints held.

Friction is a function of the joint speed (the Stribeck curve, Armstrong-Helouvry, Dupont &
Canudas de Wit, *Automatica* 30(7), 1994): its low-speed part (the breakaway level, the
Stribeck velocity ``v_st``, the exponent) is seen only in samples near ``v_st``, and its
viscous slope only at high speeds, in both directions. A Fourier excitation
(:func:`robodyn.identification.excitation.fourier`) spends most of its samples at middling
speeds; the constant-velocity experiments of friction identification (Armstrong-Helouvry,
*Control of Machines with Friction*, 1991, ch. 3; Swevers et al., IEEE Control Systems
Magazine 27(5), 2007) hold each speed long enough to measure it. Here, per joint ``j`` and
per speed ``v`` (ascending), a stroke at ``+v`` and one at ``-v`` over a length
``D = min(L, v T_c + v^2 / a)`` about the middle of the joint's range (``L`` the range
times ``margin``, ``T_c`` the cruise time ``cruise``), each a trapezoid in velocity (the
acceleration ``a`` up to ``v``, ``v`` held, ``-a`` to rest); the moves between strokes are
trapezoids (or triangles) at the next speed. ``q``, ``qd``, ``qdd`` are exact at any time
(:meth:`VelocitySweep.__call__`): ``qdd`` piecewise constant, ``qd`` piecewise linear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError, excerpt
from .limits import joint_ranges

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["velocity_sweep", "VelocitySweep", "MAX_SAMPLES"]

#: Most samples a sweep may have (all joints together).
MAX_SAMPLES = 5_000_000


@dataclass(frozen=True, eq=False)
class VelocitySweep:
    """A velocity sweep (module docstring): its segments (``joint``, start time, duration,
    start position, signed cruise speed, acceleration, duration of each phase), the
    ``speeds`` per joint ``(dof, k)``, the joints swept, the held pose ``q0``, and the
    samples ``t``, ``q``, ``qd``, ``qdd`` every ``dt``."""

    segments: np.ndarray  # (S, 8): joint, t0, T, q_start, v, a, t_accel, t_cruise
    speeds: np.ndarray
    joints: tuple[int, ...]
    q0: np.ndarray
    duration: float
    dt: float
    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray

    @property
    def steady(self) -> np.ndarray:
        """``(T,)``: the samples where the swept joint holds its speed (``qdd = 0``,
        ``qd != 0``): there ``tau = g(q) + friction(qd)``, whatever the inertias, so the
        friction fitted on them does not depend on an inertial model."""
        return np.any((self.qdd == 0) & (self.qd != 0), axis=1)

    def __call__(self, t):
        """``(q, qd, qdd)`` at times ``t`` (any shape, clipped to ``[0, duration]``), each
        ``t.shape + (dof,)``."""
        return _evaluate(self.segments, self.q0, np.clip(np.asarray(t, dtype=float), 0.0,
                                                        self.duration))

    def trajectory(self):
        """This sweep as a :class:`~robodyn.motion.trajectory.Trajectory` (to track it with
        a controller in simulation, or to plot it)."""
        from ..motion.trajectory import Trajectory

        return Trajectory(self, self.duration, len(self.q0), "velocity sweep",
                          {"joints": list(self.joints)})

    def __repr__(self) -> str:
        return (f"VelocitySweep(dof={len(self.q0)}, joints={list(self.joints)}, speeds="
                f"{self.speeds.shape[1]}, duration={self.duration:.6g}, samples={len(self.t)})")

    def __str__(self) -> str:
        lines = [f"Velocity sweep: joints {', '.join(str(j + 1) for j in self.joints)}, "
                 f"{self.duration:.4g} s, {len(self.t)} samples every {self.dt:g} s"]
        for j in self.joints:
            lines.append(f"  joint {j + 1}: +- " + ", ".join(f"{v:.4g}" for v in self.speeds[j]))
        return "\n".join(lines)


def _evaluate(segments, q0, t):
    """The piecewise trapezoidal profile of ``segments`` at times ``t``."""
    flat = t.reshape(-1)
    q = np.broadcast_to(q0, (len(flat), len(q0))).copy()
    qd, qdd = np.zeros_like(q), np.zeros_like(q)
    for joint in np.unique(segments[:, 0]).astype(int):
        seg = segments[segments[:, 0] == joint]
        # the segment each time falls in: the last that starts at or before it; before the
        # first, the joint sits at the first segment's start
        k = np.searchsorted(seg[:, 1], flat, side="right") - 1
        before = k < 0
        k = np.maximum(k, 0)
        _, t0, T, x0, v, a, ta, tc = seg[k].T
        s = np.clip(flat - t0, 0.0, T)
        sign = np.sign(v)
        up, cruise = np.minimum(s, ta), np.clip(s - ta, 0.0, tc)
        down = np.clip(s - ta - tc, 0.0, ta)
        peak = a * ta  # the top speed reached (v, or less in a triangle)
        x = x0 + sign * (0.5 * a * up**2 + peak * cruise + peak * down - 0.5 * a * down**2)
        speed = sign * np.where(s < ta, a * s, np.where(s < ta + tc, peak, peak - a * down))
        accel = sign * np.where(s < ta, a, np.where(s < ta + tc, 0.0,
                                                     np.where(s < T, -a, 0.0)))
        first = seg[0, 3]
        q[:, joint] = np.where(before, first, x)
        qd[:, joint] = np.where(before, 0.0, speed)
        qdd[:, joint] = np.where(before, 0.0, accel)
    shape = t.shape + (len(q0),)
    return q.reshape(shape), qd.reshape(shape), qdd.reshape(shape)


def _move(x_from, x_to, speed, a):
    """``(T, v, t_accel, t_cruise)`` of a rest-to-rest move: a trapezoid at ``speed``, or a
    triangle where the distance is too short to reach it."""
    d = abs(x_to - x_from)
    if d == 0.0:
        return 0.0, 0.0, 0.0, 0.0
    peak = min(speed, np.sqrt(a * d))
    ta = peak / a
    tc = (d - peak * ta) / peak
    return 2 * ta + tc, np.copysign(peak, x_to - x_from), ta, max(tc, 0.0)


def velocity_sweep(robot: Robot, speeds: ArrayLike | None = None, *,
                   joints: ArrayLike | None = None, accel: ArrayLike | None = None,
                   cruise: float = 2.0, dt: float = 1e-3, limits=None, margin: float = 0.9,
                   max_samples: int = MAX_SAMPLES) -> VelocitySweep:
    """A velocity sweep of ``robot`` (module docstring) for
    :func:`rd.identify_friction <robodyn.identification.friction_shape.identify_friction>`.

    ``speeds``: the cruise speeds (rad/s or m/s, ascending, each ``> 0`` and within the
    velocity limit), one list for every joint or a ``(dof, k)`` array; by default eight
    from 1 % to 90 % of each joint's velocity limit, spaced evenly in ``log v`` (as many
    samples near ``v_st`` as at full speed). ``joints``: the joints swept (0-based, by
    default all), in turn; the others are held at the middle of their range. ``accel``:
    the acceleration to each speed (one or one per joint; by default the top speed
    reached in a tenth of the range). ``cruise``: the longest time a speed is held (the
    slow strokes are shorter than the range). ``limits``: as for
    :func:`~robodyn.identification.excitation.fourier` (the model's joint limits, else
    ``[-pi, pi]`` and 2 rad/s). At most ``max_samples`` samples (an ``InputError`` naming
    the duration otherwise)."""
    dof = robot.dof
    lo, hi, vmax = joint_ranges(robot, limits)
    if not (0 < margin <= 1):
        raise InputError(f"margin: {excerpt(margin)}; give a fraction of the range in (0, 1]")
    for name, value in (("cruise", cruise), ("dt", dt)):
        if not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0:
            raise InputError(f"{name}: {excerpt(value)}; give a positive number of seconds")
    swept = _joints(joints, dof)
    v = _speeds(speeds, vmax, dof)
    if accel is None:
        a = v.max(axis=1) ** 2 / (0.1 * (hi - lo) * margin)
    else:
        a = np.broadcast_to(np.asarray(accel, dtype=float), (dof,)) if np.ndim(accel) <= 1 \
            else np.asarray(accel)
        if a.shape != (dof,) or not np.all(np.isfinite(a)) or np.any(a <= 0):
            raise InputError(f"accel: {excerpt(accel)}; give one positive acceleration or "
                             f"one per joint ({dof})")
    mid = 0.5 * (lo + hi)
    rows, t0 = [], 0.0
    for j in swept:
        x = mid[j]
        half = 0.5 * (hi[j] - lo[j]) * margin
        for k, speed in enumerate(v[j]):
            d = min(2 * half, speed * cruise + speed**2 / a[j])
            if speed**2 / a[j] > d * (1 + 1e-12):
                raise InputError(f"speeds: joint {j + 1} cannot reach {speed:g} within its "
                                 f"range at accel {a[j]:g} (it needs {speed**2 / a[j]:g}, the "
                                 f"range gives {2 * half:g}); raise accel or lower the speed")
            for target in (mid[j] - d / 2, mid[j] + d / 2, mid[j] - d / 2):
                T, vel, ta, tc = _move(x, target, speed, a[j])
                if T > 0:
                    rows.append((j, t0, T, x, vel, a[j], ta, tc))
                    t0 += T
                x = target
            if k == len(v[j]) - 1:  # back to the middle before the next joint
                T, vel, ta, tc = _move(x, mid[j], speed, a[j])
                rows.append((j, t0, T, x, vel, a[j], ta, tc))
                t0 += T
    n = int(np.floor(t0 / dt)) + 1
    if n > max_samples:
        raise InputError(f"velocity_sweep: {t0:.6g} s at dt = {dt:g} s is {n:,} samples, over "
                         f"max_samples = {max_samples:,}; raise dt, shorten cruise or sweep "
                         "fewer speeds or joints")
    segments = np.array(rows, dtype=float)
    t = np.arange(n) * dt
    q, qd, qdd = _evaluate(segments, mid, t)
    return VelocitySweep(segments, v, tuple(swept), mid, float(t0), float(dt), t, q, qd, qdd)


def _joints(joints, dof) -> list[int]:
    if joints is None:
        return list(range(dof))
    arr = np.atleast_1d(np.asarray(joints))
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" \
            or np.any(arr < 0) or np.any(arr >= dof) or len(set(arr.tolist())) != arr.size:
        raise InputError(f"joints: {excerpt(joints)}; give distinct joint indices 0..{dof - 1}")
    return [int(j) for j in arr]


def _speeds(speeds, vmax, dof) -> np.ndarray:
    if speeds is None:
        return np.geomspace(0.01, 0.9, 8)[None, :] * vmax[:, None]
    try:
        v = np.asarray(speeds, dtype=float)
    except (TypeError, ValueError):
        v = None
    if v is not None and v.ndim == 1:
        v = np.broadcast_to(v, (dof, v.size))
    if v is None or v.ndim != 2 or v.shape[0] != dof or v.shape[1] == 0 \
            or v.shape[1] > 1000:
        raise InputError(f"speeds: {excerpt(speeds)}; give up to 1000 speeds for every joint "
                         f"or a (dof = {dof}, k) array")
    if not np.all(np.isfinite(v)) or np.any(v <= 0) or np.any(np.diff(v, axis=1) <= 0):
        raise InputError(f"speeds: {excerpt(speeds)}; give positive, ascending speeds")
    over = np.argwhere(v > vmax[:, None])
    if over.size:
        j, k = over[0]
        raise InputError(f"speeds: {v[j, k]:g} for joint {j + 1} is above its velocity limit "
                         f"{vmax[j]:g}; lower it or give limits={{'qd_max': ...}}")
    return v
