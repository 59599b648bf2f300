"""Identification of the base parameters from measured motion and torques.

``tau = Y_b(q, qd, qdd) pi_b + e`` stacked over ``N`` samples is the linear model
``y = W pi_b + e`` (Khalil & Dombre, *Modeling, Identification and Control of
Robots*, ch. 12; Gautier's weighted least squares). :func:`identify`:

1. ordinary least squares, then the noise level of each joint
   ``sigma_j^2 = |e_j|^2 / (N - b/dof)`` from its residuals, floored at
   :data:`NOISE_FLOOR` times the RMS of all torques (noiseless data would otherwise
   weigh each joint by the inverse of its rounding error);
2. weighted least squares, each joint's rows divided by ``sigma_j`` (or multiplied by
   the ``weights`` given): ``pi_b = (W^T W)^-1 W^T y`` in the weighted rows;
3. standard errors from ``cov = sigma^2 (W^T W)^-1`` with ``sigma^2 = |r|^2/(m - b)``
   of the weighted residual ``r`` (``m`` rows), relative standard deviations
   ``100 se / |pi_b|`` (%), the condition number of ``W``.

``physical=True`` also fits all standard parameters (masses, first moments,
inertias, friction, armature) with every link *physically consistent*: each link's
pseudo-inertia ``J = [[Sigma, h], [h^T, m]]`` (``Sigma = tr(I_o)/2 1 - I_o``) is
positive definite, hence ``m > 0`` and a real mass distribution (Wensing, Kim &
Slotine, IEEE RA-L 2018), and friction and armature are ``>= 0``. It minimises the
weighted residual that the fit adds to that of least squares, ``|R (K pi - pi_b)|``
with ``R`` from ``W = Q R`` (relative to the weighted torques ``|W pi_b|``), plus a pull
toward the model's own parameters on the null space of ``K`` only (what the data cannot
see; nothing the data see is biased). ``J`` is linear in ``pi``, so this is a convex
problem (a semidefinite program); a log-barrier interior-point method
(``-log det J`` per link, ``-log x`` per bound; Newton steps, at most
:data:`~robodyn.identification.physical.PHYSICAL_MAX_STEPS`) solves it to a duality gap of
``1e-8`` of the cost (plus ``1e-20``; :mod:`robodyn.identification.physical`). On noiseless
data of a physical robot it recovers the base parameters.

The physical fit reports its own residual (``physical_residual_rms``, the RMS torque error
of ``Y_b K pi``) beside that of least squares. When its overall RMS exceeds
``max(PHYSICAL_WORSE * rms_wls, PHYSICAL_ABS * rms_tau)`` (over all joints and samples;
``rms_tau`` the RMS of the torques), no physical robot explains the data nearly as well
as the unconstrained fit: an :class:`IdentificationWarning` says so (the data may not be
physical, e.g. the torques' sign convention is the opposite of the model's). A fit that
stops before converging (its budget spent) is an :class:`IdentificationWarning` instead.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError, excerpt, warn
from ..core.progress import ProgressOption, check_progress
from .physical import physical_fit
from .result import Identification
from .samples import (
    SampleLocator,
    check_angles,
    check_base,
    check_grouping,
    check_magnitudes,
    checked_regressor,
    joint_weights,
    read_samples,
    sample_array,
    split_samples,
)

if TYPE_CHECKING:
    from ..robot import Robot
    from ..symbolic.base_parameters import BaseParameters

__all__ = ["identify", "IdentificationWarning", "NOISE_FLOOR", "PHYSICAL_WORSE",
           "PHYSICAL_ABS"]

#: The noise level of a joint is taken as at least this fraction of the torques' RMS.
NOISE_FLOOR = 1e-6
#: The physical fit is "much worse" (a warning) when its RMS torque error exceeds this
#: many times that of least squares ...
PHYSICAL_WORSE = 1.5
#: ... and this fraction of the torques' RMS.
PHYSICAL_ABS = 1e-3


class IdentificationWarning(UserWarning):
    """The physically consistent fit explains the data much worse than least squares, or
    its optimiser stopped at its budget (module docstring)."""


def identify(robot: Robot, q: ArrayLike | str | os.PathLike[str], qd: ArrayLike | None = None,
             qdd: ArrayLike | None = None, tau: ArrayLike | None = None,
             weights: ArrayLike | None = None, physical: bool = False,
             base: BaseParameters | None = None,
             progress: ProgressOption = None) -> Identification:
    """Estimate the base parameters of ``robot`` from samples ``q, qd, qdd, tau`` (each
    ``(N, dof)``; ``q`` ``(N, nq)`` with ball or free joints), or from a CSV file given as
    ``q`` (:func:`read_csv`). ``weights``: one
    per joint (rows of joint ``j`` multiplied by ``weights[j]``); default ``1/sigma_j``
    from an ordinary least-squares pass. ``physical=True`` adds the physically
    consistent fit (module docstring). ``base``: the :class:`BaseParameters` of ``robot``
    to use (default ``robot.base_parameters()``). ``progress``: of the physically consistent
    fit, in stages of its interior-point method (:mod:`robodyn.core.progress`: a bar on a
    terminal by default, ``False`` for none, or a callable ``(done, total, label)``)."""
    import scipy.linalg  # SciPy only when used

    from ..robot import Robot

    if not isinstance(robot, Robot):
        raise InputError(f"robot: expected a robodyn Robot (rd.load(...)), got "
                         f"{type(robot).__name__}")
    if not isinstance(physical, bool | np.bool_):
        raise InputError(f"physical: expected True or False, got {excerpt(physical, 40)}")
    check_progress(progress)
    dof = robot.dof
    sizes = (robot.nq, dof, dof, dof)  # q: quaternions of ball and free joints too
    where = SampleLocator(sizes=sizes)
    if isinstance(q, str | os.PathLike):
        if qd is not None or qdd is not None or tau is not None:
            raise InputError("identify(robot, 'data.csv'): give the file alone, without "
                             "qd, qdd, tau")
        table = read_samples(q, sizes)
        where = SampleLocator(table, sizes)
        q, qd, qdd, tau = split_samples(table.values, sizes)
    if qd is None or qdd is None or tau is None:
        raise InputError("identify: give q, qd, qdd and tau (or a CSV path)")
    q, qd, qdd, tau = (sample_array(n, a, size) for n, a, size in
                       (("q", q, robot.nq), ("qd", qd, dof), ("qdd", qdd, dof),
                        ("tau", tau, dof)))
    n = q.shape[0]
    if not (qd.shape[0] == qdd.shape[0] == tau.shape[0] == n):
        raise InputError(f"identify: q, qd, qdd, tau have {n}, {qd.shape[0]}, {qdd.shape[0]}, "
                         f"{tau.shape[0]} samples; they must be equal")
    check_angles(robot, q, where)
    base, own = check_base(robot, base)
    b = base.count
    if n * dof <= b:
        origin = f"{where.table.name}: " if where.table is not None else "identify: "
        raise InputError(f"{origin}{n} samples x {dof} joints give {n * dof} equations for "
                         f"{b} base parameters; record more samples")
    if weights is not None:
        w = joint_weights(weights, dof)
    Y = checked_regressor(robot, q, qd, qdd, where)  # (N, dof, p)
    Yb = np.ascontiguousarray(Y[..., list(base.independent)])  # (N, dof, b)
    check_magnitudes(Yb, tau, q, qd, qdd, where)
    if not own:
        check_grouping(robot, base, Y, Yb)
    tau_rms = float(np.sqrt(np.mean(tau ** 2)))
    if weights is None:
        est = np.linalg.lstsq(Yb.reshape(-1, b), tau.reshape(-1), rcond=None)[0]
        resid = tau - Yb @ est
        dofs = max(n - b / dof, 1.0)
        sigma = np.sqrt(np.sum(resid ** 2, axis=0) / dofs)
        w = 1.0 / np.maximum(sigma, NOISE_FLOOR * (tau_rms or 1.0))
    W = (Yb * w[None, :, None]).reshape(-1, b)
    y = (tau * w[None, :]).reshape(-1)
    Q, R = np.linalg.qr(W)
    sv = np.linalg.svd(R, compute_uv=False)
    cond = float(sv[0] / sv[-1]) if sv[-1] > 0 else math.inf
    if not math.isfinite(cond) or cond > 1e12:
        raise InputError(f"identify: the stacked base regressor is singular (condition number "
                         f"{cond:.3g}): the motion does not excite every base parameter; use "
                         "a richer trajectory, e.g. rd.excitation.fourier(robot)")
    est = scipy.linalg.solve_triangular(R, Q.T @ y)
    r = y - W @ est
    sigma2 = float(r @ r) / max(W.shape[0] - b, 1)
    rinv = scipy.linalg.solve_triangular(R, np.eye(b))
    cov = sigma2 * rinv @ rinv.T
    se = np.sqrt(np.diag(cov))
    rms = np.sqrt(np.mean((tau - Yb @ est) ** 2, axis=0))
    if not physical:
        return Identification(robot, base, est, se, cov, cond, rms, w, n)
    fit = physical_fit(robot, base, R, est, progress)
    phys = base.K @ fit.x
    phys_rms = np.sqrt(np.mean((tau - Yb @ phys) ** 2, axis=0))
    overall = float(np.sqrt(np.mean(phys_rms ** 2)))
    wls = float(np.sqrt(np.mean(rms ** 2)))
    notes = [f"physical: every link has m > 0 and a positive-definite pseudo-inertia; torque "
             f"RMS error {overall:.4g} (least squares {wls:.4g}, torques {tau_rms:.4g})"]
    problem = None
    if not fit.converged:  # then how well it fits says little about the data
        problem = (f"identify: the physically consistent fit stopped {fit.why_stopped()} "
                   "before converging "
                   f"(duality gap {fit.gap:.2g}); its estimate is consistent but not the "
                   f"optimum (RMS error {overall:.4g}, least squares {wls:.4g})")
    elif overall > max(PHYSICAL_WORSE * wls, PHYSICAL_ABS * tau_rms):
        problem = (f"identify: the physically consistent fit explains the torques much worse "
                   f"than least squares (RMS error {overall:.4g} against {wls:.4g}, torques "
                   f"{tau_rms:.4g}): no physical robot fits these data; are they physical "
                   "(check the torques' sign convention, units and the model)?")
    if problem:
        notes.append(f"warning: {problem}")
        warn(IdentificationWarning(problem))
    return Identification(robot, base, est, se, cov, cond, rms, w, n, fit.x, phys,
                          tuple(notes), phys_rms, fit.steps, fit.converged)
