"""The friction's shape identified with its levels: a nonlinear least-squares fit.

:func:`~robodyn.identification.friction_fit.identify_friction` estimates the levels
``F_v, F_c+, F_c-, F_st, tau_0`` with the shape held at the model's values; the shape
enters nonlinearly,

    tau_f(qd; levels, shape) = Y(qd; v_st, delta, v_s) levels          (friction_fit's Y)

with ``e = exp(-|qd / v_st|^delta)`` (the Stribeck velocity and exponent, where the model
has a Stribeck term) and ``s = tanh(qd / v_s)`` (the smooth sign, where it has one). Per
joint this fits levels and shape together, minimising ``sum (tau - tau_rigid - tau_f)^2``
with :func:`scipy.optimize.least_squares` (trust-region reflective, the shape bounded:
``v_st, v_s > 0``, ``0.2 <= delta <= 10``), started from the linear fit, with a budget of
``max_nfev`` evaluations. Standard errors from the Jacobian ``J`` at the optimum,
``sqrt(diag(sigma^2 (J^T J)^-1))``, ``sigma^2 = RSS / (N - p)`` (the Gauss-Newton
covariance; Seber & Wild, *Nonlinear Regression*, §2.1; Armstrong-Helouvry et al.,
Automatica 30(7), 1994 for the Stribeck curve; Swevers et al., IEEE CSM 27(5), 2007 for
validating on a held-out trajectory).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..model.friction import is_zero
from .friction_fit import FrictionFit, friction_columns
from .friction_fit import identify_friction as identify_levels
from .samples import sample_array

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["identify_friction", "fit_friction_shape", "validate_friction", "SHAPE", "MAX_NFEV"]

#: The shape parameters, with their bounds.
SHAPE = {"stribeck_velocity": (1e-6, np.inf), "stribeck_exponent": (0.2, 10.0),
         "smooth_velocity": (1e-6, np.inf)}
#: Most evaluations allowed per joint.
MAX_NFEV = 10_000


def _shape_names(fr) -> list[str]:
    names = []
    if not is_zero(fr.static):
        names += ["stribeck_velocity", "stribeck_exponent"]
    if not is_zero(fr.smooth_velocity):
        names.append("smooth_velocity")
    return names


def identify_friction(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                      tau: ArrayLike, shape: bool = False, max_nfev: int = 400) -> FrictionFit:
    """``rd.identify_friction``: the friction levels with the model's shape
    (:func:`robodyn.identification.friction_fit.identify_friction`, linear least squares),
    or with ``shape=True`` levels and shape together (:func:`fit_friction_shape`)."""
    if shape:
        return fit_friction_shape(robot, q, qd, qdd, tau, max_nfev)
    return identify_levels(robot, q, qd, qdd, tau)


def fit_friction_shape(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                       tau: ArrayLike, max_nfev: int = 400) -> FrictionFit:
    """Levels and shape (module docstring) of every one-value joint of ``robot`` from
    samples ``(N, dof)``; a joint without a Stribeck term or smooth sign keeps its linear
    fit. The returned :class:`FrictionFit` has the shape parameters among ``values``,
    ``errors`` and ``intervals``, and ``info`` the evaluations and the linear start."""
    from scipy.optimize import least_squares

    if isinstance(max_nfev, bool) or not isinstance(max_nfev, int | np.integer) \
            or not 0 < max_nfev <= MAX_NFEV:
        raise InputError(f"identify_friction: max_nfev must be in (0, {MAX_NFEV}]")
    linear = identify_levels(robot, q, qd, qdd, tau)
    dof = robot.dof
    q, qd, qdd, tau = (sample_array(n, a, dof) for n, a in
                       (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau)))
    residual = tau - robot.without_friction().inverse_dynamics(q, qd, qdd)
    start_chain = linear.robot.numeric_chain
    values, errors, intervals, rms, links, nfev = [], [], [], [], [], []
    for j, link in enumerate(start_chain.links):
        shape = _shape_names(link.friction)
        levels = list(linear.values[j])
        if not shape or j in linear.folded:
            values.append(linear.values[j])
            errors.append(linear.errors[j])
            intervals.append(linear.intervals[j])
            rms.append(float(linear.rms[j]))
            links.append(linear.robot.chain.links[j])
            nfev.append(0)
            continue
        v, target = qd[:, j], residual[:, j]

        def model(x, fr=link.friction, shape=shape, levels=levels, v=v):
            fr = replace(fr, **dict(zip(shape, x[len(levels):], strict=True)))
            return friction_columns(fr, v)[0] @ x[:len(levels)]

        x0 = np.array([linear.values[j][k] for k in levels]
                      + [float(getattr(link.friction, k)) for k in shape])
        lower = [-np.inf] * len(levels) + [SHAPE[k][0] for k in shape]
        upper = [np.inf] * len(levels) + [SHAPE[k][1] for k in shape]
        x0 = np.clip(x0, lower, upper)
        sol = least_squares(lambda x, target=target, model=model: model(x) - target, x0,
                            bounds=(lower, upper), method="trf", x_scale="jac",
                            max_nfev=max_nfev)
        if sol.status == 0:
            raise InputError(f"identify_friction: joint {j + 1}'s shape fit used its "
                             f"{max_nfev} evaluations without converging; raise max_nfev "
                             "or excite the joint over its Stribeck range")
        names = levels + shape
        n, p = len(v), len(names)
        r = sol.fun
        sigma2 = float(r @ r) / (n - p)
        jtj = sol.jac.T @ sol.jac
        if np.linalg.matrix_rank(jtj) < p:
            raise InputError(f"identify_friction: joint {j + 1}'s data do not determine its "
                             f"shape ({', '.join(shape)}): excite speeds around the "
                             "Stribeck velocity in both directions")
        std = np.sqrt(np.diag(sigma2 * np.linalg.inv(jtj)))
        values.append(dict(zip(names, sol.x.tolist(), strict=True)))
        errors.append(dict(zip(names, std.tolist(), strict=True)))
        intervals.append({k: (x - 1.96 * e, x + 1.96 * e)
                          for k, x, e in zip(names, sol.x.tolist(), std.tolist(), strict=True)})
        rms.append(float(np.sqrt(np.mean(r * r))))
        nfev.append(int(sol.nfev))
        links.append(replace(robot.chain.links[j],
                             friction=replace(link.friction, **values[-1])))
    fitted = robot.with_chain(replace(robot.chain, links=tuple(links)))
    return FrictionFit(tuple(values), tuple(errors), tuple(intervals), np.array(rms), fitted,
                       linear.folded, {"nfev": tuple(nfev), "linear": linear})


def validate_friction(fit: FrictionFit, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                      tau: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(predicted, rms)`` on a held-out trajectory: the fitted robot's torques
    ``(N, dof)`` and the RMS of ``tau - predicted`` per joint."""
    robot = fit.robot
    dof = robot.dof
    q, qd, qdd, tau = (sample_array(n, a, dof) for n, a in
                       (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau)))
    predicted = robot.inverse_dynamics(q, qd, qdd)
    return predicted, np.sqrt(np.mean((tau - predicted) ** 2, axis=0))
