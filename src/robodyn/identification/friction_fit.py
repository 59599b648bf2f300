"""Joint friction identified from measured torques, the rigid-body model known.

The friction model of :mod:`robodyn.model.friction` is linear in its levels once its
shape (``v_s``, ``v_st``, ``delta``) is fixed: with ``s = sign(qd)`` or ``tanh(qd/v_s)``
and ``e = exp(-|qd/v_st|^delta)`` (0 without a Stribeck term),

    tau_f = F_v qd + F_c+ (s + s^2)/2 (1 - e) + F_c- (s - s^2)/2 (1 - e) + F_st e s + tau_0

(``a s + b s^2`` with ``a = (F_c+ + F_c-)/2``, ``b = (F_c+ - F_c-)/2``, the form of
:func:`robodyn.dynamics.friction.joint_friction`, regrouped by level). Per joint ``j``
the columns ``[qd, (s + s^2)/2 (1 - e), (s - s^2)/2 (1 - e), e s, 1]`` (the Stribeck
column only where the model has one) regress the residual
``tau - (M qdd + C qd + g)`` of the rigid-body model: ordinary least squares, the
parameters' standard errors from ``sigma^2 (Y^T Y)^-1`` with ``sigma^2`` the residual
variance (``N - p`` degrees of freedom), and a 95 % confidence interval ``+-1.96`` of them
(Khalil & Dombre, *Modeling, Identification and Control of Robots*, ch. 12;
Swevers et al., IEEE Control Systems 27(5), 2007). The shape parameters stay those of
the model.

With ``s = sign(qd)`` and no Stribeck term the offset cannot be told from the Coulomb
levels where the joint moves (``(s + s^2)/2 + (s^2 - s)/2 = 1`` for ``qd != 0``: the
columns are dependent); only samples at rest (``qd = 0`` exactly) separate them. Then the
offset column is left out, the offset folded into the two levels (``F_c+ + tau_0`` and
``F_c- - tau_0``) and reported as 0, and :attr:`FrictionFit.folded` names the joint.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..model.friction import Friction, is_zero
from .samples import sample_array

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["identify_friction", "FrictionFit", "friction_columns", "LEVELS"]

#: The levels of a joint's friction the fit estimates, in column order.
LEVELS = ("viscous", "coulomb", "coulomb_negative", "static", "offset")


def friction_columns(fr: Friction, qd: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """``(Y, names)``: the columns (module docstring) of one joint with friction shape
    ``fr`` at velocities ``qd`` ``(N,)``, ``(N, 4)`` or ``(N, 5)`` with a Stribeck term."""
    s = np.sign(qd) if is_zero(fr.smooth_velocity) else np.tanh(qd / fr.smooth_velocity)
    stribeck = not is_zero(fr.static)
    e = (np.exp(-np.abs(qd / fr.stribeck_velocity) ** fr.stribeck_exponent) if stribeck
         else np.zeros_like(qd))
    cols = [qd, (s + s * s) / 2 * (1 - e), (s - s * s) / 2 * (1 - e)]
    names = ["viscous", "coulomb", "coulomb_negative"]
    if stribeck:
        cols.append(e * s)
        names.append("static")
    cols.append(np.ones_like(qd))
    names.append("offset")
    return np.stack(cols, axis=1), tuple(names)


@dataclass(frozen=True)
class FrictionFit:
    """The friction identified per joint: ``values[j]`` and ``errors[j]`` (standard errors)
    ``{level: value}`` in the names of :class:`~robodyn.model.friction.Friction`;
    ``intervals[j]``, the 95 % confidence intervals ``{level: (low, high)}``; ``rms``, the
    residual's RMS per joint; ``robot``, the robot with these friction levels; ``folded``,
    the (0-based) joints whose offset is folded into their Coulomb levels (module
    docstring); ``info``, the shape fit's evaluations and linear start
    (:mod:`~robodyn.identification.friction_shape`), empty for a linear fit."""

    values: tuple[dict[str, float], ...]
    errors: tuple[dict[str, float], ...]
    intervals: tuple[dict[str, tuple[float, float]], ...]
    rms: np.ndarray
    robot: object
    folded: tuple[int, ...] = ()
    info: dict = field(default_factory=dict)

    def __str__(self) -> str:
        lines = ["friction identified (value +- standard error):"]
        for j, (values, errors) in enumerate(zip(self.values, self.errors, strict=True)):
            terms = ", ".join(f"{k} {v:.4g} +- {errors[k]:.2g}" for k, v in values.items())
            lines.append(f"  joint {j + 1}: {terms}; residual RMS {self.rms[j]:.3g}")
        if self.folded:
            lines.append("  offset folded into the Coulomb levels (sign(qd), no Stribeck "
                         f"term) of joint(s) {', '.join(str(j + 1) for j in self.folded)}")
        return "\n".join(lines)


def identify_friction(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                      tau: ArrayLike) -> FrictionFit:
    """The friction levels of every one-value joint of ``robot`` (module docstring) from
    samples ``q, qd, qdd, tau`` ``(N, dof)``, the links' inertial parameters and the
    friction's shape (``smooth_velocity``, ``stribeck_velocity``, ``stribeck_exponent``;
    a Stribeck column where ``static`` is not 0) taken from ``robot`` (``rd.identify_friction``
    with ``shape=True`` fits the shape too: :mod:`~robodyn.identification.friction_shape`)."""
    dof = robot.dof
    if not robot.chain.single_valued:
        raise InputError("identify_friction: joints of one value only (revolute, prismatic)")
    q, qd, qdd, tau = (sample_array(n, a, dof) for n, a in
                       (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau)))
    n = q.shape[0]
    if not (qd.shape[0] == qdd.shape[0] == tau.shape[0] == n):
        raise InputError(f"identify_friction: q, qd, qdd, tau have {n}, {qd.shape[0]}, "
                         f"{qdd.shape[0]}, {tau.shape[0]} samples; they must be equal")
    residual = tau - robot.without_friction().inverse_dynamics(q, qd, qdd)
    chain = robot.numeric_chain
    values, errors, intervals, rms, links, folded = [], [], [], [], [], []
    for j, link in enumerate(chain.links):
        Y, names = friction_columns(link.friction, qd[:, j])
        p = len(names)
        if n > p and np.linalg.matrix_rank(Y) == p - 1 and np.linalg.matrix_rank(Y[:, :-1]) \
                == p - 1 and is_zero(link.friction.static) and is_zero(
                link.friction.smooth_velocity):  # the offset is the levels' (docstring)
            Y, names, p = Y[:, :-1], names[:-1], p - 1
            folded.append(j)
        if n <= p or np.linalg.matrix_rank(Y) < p:
            raise InputError(f"identify_friction: joint {j + 1}'s velocities do not excite "
                             f"its {p} friction levels ({', '.join(names)}): it needs motion "
                             "in both directions, at more than one speed (and below the "
                             "Stribeck velocity, for a Stribeck term)")
        x, *_ = np.linalg.lstsq(Y, residual[:, j], rcond=None)
        r = residual[:, j] - Y @ x
        sigma2 = float(r @ r) / (n - p)
        std = np.sqrt(np.diag(sigma2 * np.linalg.inv(Y.T @ Y)))
        values.append(dict(zip(names, x.tolist(), strict=True)))
        errors.append(dict(zip(names, std.tolist(), strict=True)))
        intervals.append({k: (v - 1.96 * e, v + 1.96 * e)
                          for k, v, e in zip(names, x.tolist(), std.tolist(), strict=True)})
        rms.append(float(np.sqrt(np.mean(r * r))))
        fitted = dict(values[-1], offset=values[-1].get("offset", 0.0))
        links.append(replace(robot.chain.links[j], friction=replace(link.friction, **fitted)))
    fitted_robot = robot.with_chain(replace(robot.chain, links=tuple(links)))
    return FrictionFit(tuple(values), tuple(errors), tuple(intervals), np.array(rms),
                       fitted_robot, tuple(folded))
