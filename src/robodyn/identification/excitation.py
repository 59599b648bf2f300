"""Excitation trajectories for identification: periodic, within the joint limits, and
optimised so that the stacked base regressor is well conditioned.

:func:`fourier` is the finite Fourier series of Swevers, Ganseman, Tukel, De Schutter
& Van Brussel, "Optimal robot excitation and identification", IEEE Trans. Robotics
and Automation 13(5), 1997: for joint ``j``, with ``w_f = 2 pi / period``::

    q_j(t) = q0_j + sum_{l=1}^{L} a_jl / (w_f l) sin(w_f l t) - b_jl / (w_f l) cos(w_f l t)

(and its exact derivatives ``qd``, ``qdd``), periodic with ``period`` so that the data
can be averaged over periods. The coefficients ``a, b`` minimise the condition number of
``W``, the base regressor :meth:`~robodyn.Robot.regressor_base` stacked over
``samples`` instants of one period (:func:`scipy.optimize.minimize`, L-BFGS-B from a
random start), and are then scaled about ``q0`` so that every joint stays inside its
position and velocity limits.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..core.progress import ProgressOption, check_progress, tracker
from .limits import joint_ranges
from .velocity_sweep import VelocitySweep, velocity_sweep

if TYPE_CHECKING:
    from ..robot import Robot
    from ..symbolic.base_parameters import BaseParameters

__all__ = ["fourier", "Excitation", "velocity_sweep", "VelocitySweep"]


@dataclass(frozen=True, eq=False)
class Excitation:
    """A periodic trajectory (:func:`fourier`): ``a``, ``b`` (``(dof, harmonics)``),
    ``q0``, ``period``; sampled at ``t`` as ``q``, ``qd``, ``qdd``; the condition number
    of the stacked base regressor before (the random start) and after optimisation."""

    a: np.ndarray
    b: np.ndarray
    q0: np.ndarray
    period: float
    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    condition_before: float
    condition_after: float

    def __call__(self, t):
        """``(q, qd, qdd)`` at times ``t`` (any shape), each ``t.shape + (dof,)``."""
        return _evaluate(self.a, self.b, self.q0, self.period, np.asarray(t, dtype=float))

    def trajectory(self, cycles: int = 1):
        """This excitation as a :class:`~robodyn.motion.trajectory.Trajectory` over
        ``cycles`` periods (for :class:`~robodyn.motion.control.ComputedTorque`, which then
        runs in the compiled loop, and every function that takes a trajectory)."""
        from ..core.errors import whole_number
        from ..motion.trajectory import Trajectory

        cycles = whole_number(cycles, "cycles", 1, 10**6)
        return Trajectory(self, cycles * self.period, self.q0.shape[0], "fourier excitation",
                          {"period": self.period, "harmonics": self.a.shape[1]})

    def __repr__(self) -> str:
        return (f"Excitation(dof={self.q0.shape[0]}, harmonics={self.a.shape[1]}, period="
                f"{self.period:g}, samples={len(self.t)}, condition_after="
                f"{self.condition_after:.4g})")

    def __str__(self) -> str:
        return (f"Fourier excitation: {self.a.shape[1]} harmonics, period {self.period:g} s, "
                f"{len(self.t)} samples; condition number {self.condition_before:.4g} -> "
                f"{self.condition_after:.4g}")


def _evaluate(a, b, q0, period, t):
    wf = 2 * np.pi / period
    lw = wf * np.arange(1, a.shape[1] + 1)  # (L,)
    arg = t[..., None] * lw  # (..., L)
    s, c = np.sin(arg), np.cos(arg)
    q = q0 + (s / lw) @ a.T - (c / lw) @ b.T
    qd = c @ a.T + s @ b.T
    qdd = (-s * lw) @ a.T + (c * lw) @ b.T
    return q, qd, qdd


def _fit_to_limits(a, b, q0, period, t, lo, hi, vel, margin=0.95):
    """Scale each joint's coefficients so that its motion stays within the limits."""
    q, qd, _ = _evaluate(a, b, q0, period, t)
    dev = q - q0
    room_up, room_down = (hi - q0) * margin, (q0 - lo) * margin
    with np.errstate(divide="ignore", invalid="ignore"):
        s_pos = np.minimum(np.where(dev.max(0) > 0, room_up / dev.max(0), np.inf),
                           np.where(dev.min(0) < 0, room_down / -dev.min(0), np.inf))
        s_vel = margin * vel / np.abs(qd).max(0)
    s = np.minimum(1.0, np.minimum(s_pos, s_vel))[:, None]
    return a * s, b * s


def fourier(robot: Robot, harmonics: int = 5, period: float = 10.0,
            limits: ArrayLike | None = None, samples: int = 200, iterations: int = 60,
            seed: int = 0, base: BaseParameters | None = None,
            progress: ProgressOption = None) -> Excitation:
    """An optimised excitation trajectory of ``robot`` (module docstring).

    ``limits``: ``{"q_min": .., "q_max": .., "qd_max": ..}`` (scalars or one per joint) or
    a tuple in that order; by default the model's joint limits, else ``[-pi, pi]`` and
    2 rad/s (prismatic: ``[-0.5, 0.5]`` m, 1 m/s). ``q0`` is the middle of the position
    range. ``iterations``: of the optimiser (0: only the scaled random start).
    ``progress``: the optimiser's iterations (:mod:`robodyn.core.progress`: a bar on a
    terminal by default, ``False`` for none, or a callable ``(done, total, label)``)."""
    check_progress(progress)
    if int(harmonics) < 1 or not np.isfinite(period) or period <= 0:
        raise InputError("fourier: harmonics must be >= 1 and period > 0")
    harmonics = int(harmonics)
    dof = robot.dof
    base = base or robot.base_parameters()
    lo, hi, vel = joint_ranges(robot, limits)
    q0 = 0.5 * (lo + hi)
    t = np.linspace(0.0, period, int(samples), endpoint=False)
    rng = np.random.default_rng(seed)
    shape = (dof, harmonics)

    def conditions(xs):
        """The condition numbers of the stacked, column-normalised base regressor of the
        trajectories ``xs`` (rows of coefficients), with one regressor call for all."""
        motions = []
        for x in np.atleast_2d(xs):
            a, b = _fit_to_limits(x[:dof * harmonics].reshape(shape),
                                  x[dof * harmonics:].reshape(shape), q0, period, t, lo, hi,
                                  vel)
            motions.append(_evaluate(a, b, q0, period, t))
        q, qd, qdd = (np.stack(m) for m in zip(*motions, strict=True))
        W = robot.regressor(q, qd, qdd)[..., base.independent]
        W = W.reshape(W.shape[0], -1, base.count)
        W = W / np.maximum(np.linalg.norm(W, axis=1, keepdims=True), 1e-300)
        sv = np.linalg.svd(W, compute_uv=False)
        with np.errstate(divide="ignore"):
            return np.where(sv[:, -1] > 0, sv[:, 0] / sv[:, -1], 1e300)

    def cond_of(a, b):
        return float(conditions(np.concatenate([a.ravel(), b.ravel()]))[0])

    import scipy.optimize  # SciPy only when used

    def objective(x):
        """``log cond`` and its forward-difference gradient, every perturbed trajectory in
        one batch (the optimiser's own differences would call the regressor once each)."""
        step = 1e-7 * np.maximum(1.0, np.abs(x))
        xs = np.vstack([x, x + np.diag(step)])
        values = np.log(np.minimum(conditions(xs), 1e300))
        return values[0], (values[1:] - values[0]) / step

    # a random start with velocities of the order of the limits
    x0 = rng.normal(size=2 * dof * harmonics) * np.tile(np.repeat(vel, harmonics), 2) / harmonics
    before = cond_of(x0[:dof * harmonics].reshape(shape), x0[dof * harmonics:].reshape(shape))
    x = x0
    if iterations > 0:
        with tracker(progress, int(iterations), "excitation") as bar:
            sol = scipy.optimize.minimize(objective, x0, method="L-BFGS-B", jac=True,
                                          options={"maxiter": int(iterations)},
                                          callback=lambda _: bar.advance())
        if sol.fun < objective(x0)[0]:
            x = sol.x
        if sol.status == 1:  # the iteration budget ran out: say so, the result still stands
            warnings.warn(f"rd.excitation.fourier: the optimiser used its {int(iterations)} "
                          f"iterations (condition number {before:.4g} -> "
                          f"{np.exp(sol.fun):.4g}) before converging; pass iterations= to "
                          "go on", RuntimeWarning, stacklevel=2)
    a, b = x[:dof * harmonics].reshape(shape), x[dof * harmonics:].reshape(shape)
    a, b = _fit_to_limits(a, b, q0, period, t, lo, hi, vel)
    q, qd, qdd = _evaluate(a, b, q0, period, t)
    after = cond_of(a, b)
    return Excitation(a, b, q0, float(period), t, q, qd, qdd, before, after)
