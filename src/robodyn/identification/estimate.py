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
:data:`PHYSICAL_MAX_STEPS`) solves it to a duality gap of ``1e-8`` of the cost (plus
``1e-20``). On noiseless data of a physical robot it recovers the base parameters.

The physical fit reports its own residual (``physical_residual_rms``, the RMS torque error
of ``Y_b K pi``) beside that of least squares. When its overall RMS exceeds
``max(PHYSICAL_WORSE * rms_wls, PHYSICAL_ABS * rms_tau)`` (over all joints and samples;
``rms_tau`` the RMS of the torques), no physical robot explains the data nearly as well
as the unconstrained fit: an :class:`IdentificationWarning` says so (the data may not be
physical, e.g. the torques' sign convention is the opposite of the model's). A fit that
stops before converging (its budget spent) is an :class:`IdentificationWarning` instead.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
import scipy.optimize
from numpy.typing import ArrayLike

from ..core.csv_table import read_number_table
from ..core.display import html_table, number
from ..core.errors import InputError, RobodynError, excerpt, warn
from ..core.progress import ProgressOption, check_progress, tracker
from ..dynamics.regressor import PER_LINK

if TYPE_CHECKING:
    from ..robot import Robot
    from ..symbolic.base_parameters import BaseParameters

__all__ = ["identify", "Identification", "IdentificationWarning", "read_csv",
           "consistency_problems", "NOISE_FLOOR", "PHYSICAL_WORSE", "PHYSICAL_ABS",
           "PHYSICAL_MAX_STEPS", "MAX_ANGLE"]

#: The noise level of a joint is taken as at least this fraction of the torques' RMS.
NOISE_FLOOR = 1e-6
#: The physical fit is "much worse" (a warning) when its RMS torque error exceeds this
#: many times that of least squares ...
PHYSICAL_WORSE = 1.5
#: ... and this fraction of the torques' RMS.
PHYSICAL_ABS = 1e-3
#: Most Newton steps of the physical fit's interior-point method.
PHYSICAL_MAX_STEPS = 1000
#: Weight of the pull toward the model's parameters on what the data cannot see,
#: relative to the largest singular value of the (normalised) data term.
PHYSICAL_PULL = 1e-3
#: Largest magnitude of a revolute joint angle taken, in rad (about 1.6 million turns).
MAX_ANGLE = 1e7
#: Largest magnitude of a regressor entry or torque times the square root of the number
#: of equations: squares summed in the fit stay below the float64 range.
_LSQ_MAX = 1e150


class IdentificationWarning(UserWarning):
    """The physically consistent fit explains the data much worse than least squares, or
    its optimiser stopped at its budget (module docstring)."""


@dataclass(frozen=True, eq=False)
class Identification:
    """The result of :func:`identify` (module docstring): ``names`` (the base
    parameters, ``ZZ1R``...), ``combinations`` (SymPy, in the standard parameters),
    ``estimate``, ``std_errors``, ``relative_std`` (%), ``condition_number`` of the
    weighted stacked regressor, ``residual_rms`` (per joint, unweighted, N·m or N),
    ``weights`` (per joint), ``samples``; with ``physical=True`` also ``standard`` (all
    standard parameters, each link physically consistent), ``physical_estimate``
    (``K standard``), ``physical_residual_rms`` (per joint, of ``physical_estimate``),
    ``physical_steps`` and ``physical_converged`` (the interior-point method's)."""

    robot: object
    base: object
    estimate: np.ndarray
    std_errors: np.ndarray
    covariance: np.ndarray
    condition_number: float
    residual_rms: np.ndarray
    weights: np.ndarray
    samples: int
    standard: np.ndarray | None = None
    physical_estimate: np.ndarray | None = None
    notes: tuple[str, ...] = field(default=())
    physical_residual_rms: np.ndarray | None = None
    physical_steps: int = 0
    physical_converged: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        return self.base.base_names

    @property
    def combinations(self):
        return self.base.combinations

    @property
    def relative_std(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * self.std_errors / np.abs(self.estimate)

    @property
    def residual_rms_overall(self) -> float:
        """The RMS torque error of the estimate over all joints and samples."""
        return float(np.sqrt(np.mean(self.residual_rms ** 2)))

    @property
    def physical_residual_rms_overall(self) -> float | None:
        """The same for the physically consistent estimate (``None`` without it)."""
        if self.physical_residual_rms is None:
            return None
        return float(np.sqrt(np.mean(self.physical_residual_rms ** 2)))

    def predict(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                physical: bool = False) -> np.ndarray:
        """Torques ``Y_b(q, qd, qdd) pi_b`` of the estimate (``physical=True``: of the
        physically consistent one), ``(..., dof)``."""
        pi = self.physical_estimate if physical else self.estimate
        if pi is None:
            raise InputError("predict(physical=True): identify with physical=True first")
        Y = self.robot.regressor(q, qd, qdd)
        return Y[..., list(self.base.independent)] @ pi

    def robot_estimate(self):
        """The robot with the physically consistent standard parameters
        (:meth:`~robodyn.Robot.with_inertial_parameters`); needs ``physical=True``."""
        if self.standard is None:
            raise InputError("robot_estimate(): identify with physical=True first")
        return self.robot.with_inertial_parameters(self.standard)

    def table(self) -> list[dict]:
        """One row per base parameter: name, combination, estimate, std error, relative
        std (%), and the physical estimate where there is one."""
        rows = []
        for k, name in enumerate(self.names):
            row = {"name": name, "combination": str(self.combinations[k]),
                   "estimate": float(self.estimate[k]), "std_error": float(self.std_errors[k]),
                   "relative_std_percent": float(self.relative_std[k])}
            if self.physical_estimate is not None:
                row["physical"] = float(self.physical_estimate[k])
            rows.append(row)
        return rows

    def as_json(self) -> str:
        """The result as strict JSON (``null`` where a number is not finite, e.g. the
        relative std of an estimate of 0)."""
        data = {"model": self.robot.name, "samples": self.samples,
                "condition_number": self.condition_number,
                "residual_rms": self.residual_rms.tolist(),
                "residual_rms_overall": self.residual_rms_overall,
                "weights": self.weights.tolist(), "parameters": self.table()}
        if self.standard is not None:
            data["standard"] = dict(zip(self.robot.inertial_parameters().names,
                                        self.standard.tolist(), strict=True))
            data["physical_residual_rms"] = self.physical_residual_rms.tolist()
            data["physical_residual_rms_overall"] = self.physical_residual_rms_overall
            data["physical_steps"] = self.physical_steps
            data["physical_converged"] = self.physical_converged
        data["notes"] = list(self.notes)
        return json.dumps(_finite_or_null(data), indent=2, allow_nan=False)

    def __repr__(self) -> str:
        return (f"Identification({self.robot.name!r}, parameters={len(self.names)}, samples="
                f"{self.samples}, condition_number={number(self.condition_number)}, "
                f"residual_rms={number(self.residual_rms_overall)}"
                + (", physical" if self.standard is not None else "") + ")")

    def _repr_html_(self) -> str:
        head = ["name", "estimate", "std error", "rel %"]
        if self.physical_estimate is not None:
            head.append("physical")
        head.append("combination")
        rows = []
        for row in self.table():
            cells = [row["name"], number(row["estimate"], 6), number(row["std_error"], 3),
                     number(row["relative_std_percent"], 3)]
            if "physical" in row:
                cells.append(number(row["physical"], 6))
            rows.append((*cells, row["combination"]))
        caption = (f"{self.robot.name}: {len(self.names)} base parameters from {self.samples} "
                   f"samples; condition number {number(self.condition_number)}; residual RMS "
                   f"{number(self.residual_rms_overall)}")
        return html_table(head, rows, caption=caption, notes=self.notes)

    def __str__(self) -> str:
        head = (f"{self.robot.name}: {len(self.names)} base parameters from {self.samples} "
                f"samples; condition number {self.condition_number:.4g}; residual RMS per "
                f"joint {np.array2string(self.residual_rms, precision=4)} (overall "
                f"{self.residual_rms_overall:.4g})")
        lines = [head]
        if self.physical_residual_rms is not None:
            lines.append(f"physical fit: residual RMS per joint "
                         f"{np.array2string(self.physical_residual_rms, precision=4)} (overall "
                         f"{self.physical_residual_rms_overall:.4g}, least squares "
                         f"{self.residual_rms_overall:.4g}); {self.physical_steps} "
                         "Newton steps")
        lines.append(f"  {'name':<8} {'estimate':>13} {'std error':>11} {'rel %':>8}"
                     + ("  physical" if self.physical_estimate is not None else "")
                     + "  combination")
        for row in self.table():
            text = (f"  {row['name']:<8} {row['estimate']:>13.6g} {row['std_error']:>11.3g} "
                    f"{row['relative_std_percent']:>8.3g}")
            if "physical" in row:
                text += f"  {row['physical']:>8.6g}"
            lines.append(text + f"  {row['combination']}")
        lines += list(self.notes)
        return "\n".join(lines)


def _finite_or_null(value):
    """``value`` (nested dicts, lists, numbers) with every non-finite float as ``None``."""
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# -- inputs -------------------------------------------------------------------------------
_KINDS = ("q", "qd", "qdd", "tau")


def _array(name: str, value, dof: int) -> np.ndarray:
    """``value`` as a ``(N, dof)`` float64 array of finite real numbers, else an
    :class:`InputError` naming ``name`` (and the first bad sample)."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected an array of real numbers, shape (N, {dof}) (rows "
                         "of equal length)") from None
    kind = raw.dtype.kind
    if kind == "c" or (kind == "O" and any(isinstance(x, complex | np.complexfloating)
                                           for x in raw.flat)):
        raise InputError(f"{name}: complex values; give real numbers (take the real part "
                         "yourself if the imaginary parts are rounding)")
    if kind not in "fiuO" or (kind == "O" and not all(
            isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_)
            for x in raw.flat)):
        raise InputError(f"{name}: expected real numbers, shape (N, {dof}), got "
                         f"{'text' if kind in 'US' else f'dtype {raw.dtype}'} "
                         f"({excerpt(raw.flat[0] if raw.size else raw, 40)}...)")
    try:
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name}: expected an array of real numbers, shape (N, {dof})") from None
    if arr.ndim == 1 and dof == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != dof:
        raise InputError(f"{name}: expected shape (N, {dof}) (one row per sample), got "
                         f"{arr.shape}")
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        r, c = bad[0]
        raise InputError(f"{name}[{r}, {c}] (sample {r}, joint {c + 1}) is {arr[r, c]}; every "
                         "value must be a finite number (drop or interpolate that sample)")
    return arr


def _read_samples(path, dof: int):
    """The :class:`~robodyn.core.csv_table.NumberTable` of :func:`read_csv`."""
    wanted = [f"{k}{j}" for k in _KINDS for j in range(1, dof + 1)]
    family = re.compile(r"(?:q|qd|qdd|tau)[0-9]+", re.ASCII)
    return read_number_table(path, wanted, header=True,
                             foreign=lambda name: family.fullmatch(name) is not None)


def read_csv(path: str | os.PathLike[str], dof: int) -> tuple[np.ndarray, ...]:
    """``(q, qd, qdd, tau)`` from a CSV file with a header naming the columns ``q1..qn``,
    ``qd1..qdn``, ``qdd1..qddn``, ``tau1..taun`` (any order; other columns such as ``t``
    are ignored, but ``q3`` for a 2-joint robot is an error). The format is that of
    :mod:`robodyn.core.csv_table` (one reader for every number table): UTF-8 (a byte-order mark
    is fine), ``#`` comments, each column named once, every row as many values as the
    header, values plain decimal numbers (``1_0``, ``nan``, ``0x10``, ``1+2j`` are
    refused). A broken rule is an :class:`InputError` naming the line and the column."""
    table = _read_samples(path, dof)
    return tuple(table.values[:, k * dof:(k + 1) * dof] for k in range(4))


class _Where:
    """Names sample ``s``, joint ``j`` of input ``k`` (0..3: q, qd, qdd, tau) in a message:
    ``data.csv, line 7, column qd2`` for a file, ``qd[5, 1] (sample 5, joint 2)`` for
    arrays."""

    def __init__(self, table=None):
        self.table = table

    def __call__(self, k: int, s: int, j: int, dof: int) -> str:
        if self.table is not None:
            return self.table.where(s, k * dof + j)
        return f"{_KINDS[k]}[{s}, {j}] (sample {s}, joint {j + 1})"


def _check_angles(robot, q, where) -> None:
    """Revolute angles within :data:`MAX_ANGLE` (beyond, float64 rounds the angle by
    more than ``2e-9`` rad and its sine and cosine are noise)."""
    revolute = [j for j, link in enumerate(robot.links) if link.joint.type == "revolute"]
    if not revolute:
        return
    big = np.abs(q[:, revolute]) > MAX_ANGLE
    if big.any():
        s, c = np.argwhere(big)[0]
        j = revolute[c]
        raise InputError(f"{where(0, int(s), j, robot.dof)}: {q[s, j]:g} rad is too large for "
                         f"an angle (at most {MAX_ANGLE:g}: beyond, float64 rounds it by more "
                         "than 2e-9 rad); wrap the angles, e.g. (q + pi) % (2 pi) - pi")


def _check_base(robot, base):
    """``base`` as the :class:`~robodyn.symbolic.base_parameters.BaseParameters` to use (default
    ``robot.base_parameters()``), and whether it is that default (a ``base`` given is
    checked against the samples by :func:`_check_grouping`)."""
    from ..symbolic.base_parameters import BaseParameters

    if base is None:
        return robot.base_parameters(), True
    if not isinstance(base, BaseParameters):
        raise InputError(f"base: expected the BaseParameters of this robot "
                         f"(robot.base_parameters()), got {type(base).__name__}")
    names = robot.inertial_parameters().names
    if tuple(base.names) != tuple(names):
        raise InputError(f"base: the base parameters of another robot ({len(base.names)} "
                         f"standard parameters {', '.join(base.names[:3])}, ...; "
                         f"{robot.name} has {len(names)}); use {robot.name}'s own, "
                         "robot.base_parameters()")
    return base, False


def _regressor(robot, q, qd, qdd, where) -> np.ndarray:
    """``robot.regressor`` of the samples; a sample whose inputs overflow it is an
    :class:`InputError` naming the input of largest magnitude there."""
    def run(rows):
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                Y = robot.regressor(q[rows], qd[rows], qdd[rows])
        except RobodynError as exc:
            return None, exc
        return (Y, None) if np.isfinite(Y).all() else (None, None)

    Y, err = run(slice(None))
    if Y is not None:
        return Y
    rows = np.arange(q.shape[0])
    while len(rows) > 1:  # bisect to one sample whose regressor is not finite
        half = rows[:len(rows) // 2]
        rows = half if run(half)[0] is None else rows[len(rows) // 2:]
    s = int(rows[0])
    inputs = np.stack([q[s], qd[s], qdd[s]])
    order = np.argsort(-np.abs(inputs), axis=None)
    trial = inputs.copy()
    for flat in order:  # zero the largest values until the regressor is finite
        trial.flat[flat] = 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            try:
                ok = np.isfinite(robot.regressor(*trial)).all()
            except RobodynError:
                ok = False
        if ok:
            k, j = divmod(int(order[0]), robot.dof)
            raise InputError(f"{where(k, s, j, robot.dof)}: {inputs.flat[order[0]]:g} is too "
                             "large: the regressor (products of the rates and geometry) "
                             "overflows float64 at that sample; give values in a physical "
                             "range (SI units)")
    if err is not None:
        raise err
    raise InputError(f"{robot.name}: the regressor is not finite at sample {s} although its "
                     "inputs are; check the model's parameter values")


def _check_magnitudes(Y, tau, q, qd, qdd, where) -> None:
    """The squares summed in the least-squares fit stay finite (else an error naming the
    input of largest magnitude in the offending sample)."""
    n, dof = tau.shape
    limit = _LSQ_MAX / math.sqrt(n * dof)
    big_tau = np.abs(tau)
    if big_tau.max() > limit:
        s, j = np.unravel_index(int(np.argmax(big_tau)), tau.shape)
        raise InputError(f"{where(3, int(s), int(j), dof)}: {tau[s, j]:g} is too large: its "
                         "square overflows float64 in the least-squares fit; give torques in "
                         "a physical range (SI units)")
    per_sample = np.abs(Y).reshape(n, -1).max(axis=1)
    if per_sample.max() > limit:
        s = int(np.argmax(per_sample))
        inputs = np.stack([q[s], qd[s], qdd[s]])
        k, j = divmod(int(np.argmax(np.abs(inputs))), dof)
        raise InputError(f"{where(k, s, j, dof)}: {inputs[k, j]:g} is too large: the "
                         f"regressor at that sample ({per_sample[s]:.3g}) squared overflows "
                         "float64 in the least-squares fit; give values in a physical range "
                         "(SI units)")


def identify(robot: Robot, q: ArrayLike | str | os.PathLike[str], qd: ArrayLike | None = None,
             qdd: ArrayLike | None = None, tau: ArrayLike | None = None,
             weights: ArrayLike | None = None, physical: bool = False,
             base: BaseParameters | None = None,
             progress: ProgressOption = None) -> Identification:
    """Estimate the base parameters of ``robot`` from samples ``q, qd, qdd, tau`` (each
    ``(N, dof)``), or from a CSV file given as ``q`` (:func:`read_csv`). ``weights``: one
    per joint (rows of joint ``j`` multiplied by ``weights[j]``); default ``1/sigma_j``
    from an ordinary least-squares pass. ``physical=True`` adds the physically
    consistent fit (module docstring). ``base``: the :class:`BaseParameters` of ``robot``
    to use (default ``robot.base_parameters()``). ``progress``: of the physically consistent
    fit, in stages of its interior-point method (:mod:`robodyn.core.progress`: a bar on a
    terminal by default, ``False`` for none, or a callable ``(done, total, label)``)."""
    from ..robot import Robot

    if not isinstance(robot, Robot):
        raise InputError(f"robot: expected a robodyn Robot (rd.load(...)), got "
                         f"{type(robot).__name__}")
    if not isinstance(physical, bool | np.bool_):
        raise InputError(f"physical: expected True or False, got {excerpt(physical, 40)}")
    check_progress(progress)
    dof = robot.dof
    where = _Where()
    if isinstance(q, str | os.PathLike):
        if qd is not None or qdd is not None or tau is not None:
            raise InputError("identify(robot, 'data.csv'): give the file alone, without "
                             "qd, qdd, tau")
        table = _read_samples(q, dof)
        where = _Where(table)
        q, qd, qdd, tau = (table.values[:, k * dof:(k + 1) * dof] for k in range(4))
    if qd is None or qdd is None or tau is None:
        raise InputError("identify: give q, qd, qdd and tau (or a CSV path)")
    q, qd, qdd, tau = (_array(n, a, dof) for n, a in
                       (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau)))
    n = q.shape[0]
    if not (qd.shape[0] == qdd.shape[0] == tau.shape[0] == n):
        raise InputError(f"identify: q, qd, qdd, tau have {n}, {qd.shape[0]}, {qdd.shape[0]}, "
                         f"{tau.shape[0]} samples; they must be equal")
    _check_angles(robot, q, where)
    base, own = _check_base(robot, base)
    b = base.count
    if n * dof <= b:
        origin = f"{where.table.name}: " if where.table is not None else "identify: "
        raise InputError(f"{origin}{n} samples x {dof} joints give {n * dof} equations for "
                         f"{b} base parameters; record more samples")
    if weights is not None:
        w = _weights(weights, dof)
    Y = _regressor(robot, q, qd, qdd, where)  # (N, dof, p)
    Yb = np.ascontiguousarray(Y[..., list(base.independent)])  # (N, dof, b)
    _check_magnitudes(Yb, tau, q, qd, qdd, where)
    if not own:
        _check_grouping(robot, base, Y, Yb)
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
    fit = _physical_fit(robot, base, R, est, progress)
    phys = base.K @ fit.x
    phys_rms = np.sqrt(np.mean((tau - Yb @ phys) ** 2, axis=0))
    overall = float(np.sqrt(np.mean(phys_rms ** 2)))
    wls = float(np.sqrt(np.mean(rms ** 2)))
    notes = [f"physical: every link has m > 0 and a positive-definite pseudo-inertia; torque "
             f"RMS error {overall:.4g} (least squares {wls:.4g}, torques {tau_rms:.4g})"]
    problem = None
    if not fit.converged:  # then how well it fits says little about the data
        why = (f"at its budget of {PHYSICAL_MAX_STEPS} Newton steps"
               if fit.steps >= PHYSICAL_MAX_STEPS else
               f"after {fit.steps} Newton steps, where rounding stopped its progress")
        problem = (f"identify: the physically consistent fit stopped {why} before converging "
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


def _weights(weights, dof: int) -> np.ndarray:
    try:
        raw = np.asarray(weights)
        ok = raw.dtype.kind in "fiu"
        w = np.asarray(raw, dtype=float).reshape(-1) if ok else None
    except (TypeError, ValueError):
        ok, w = False, None
    if not ok or w.shape != (dof,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise InputError(f"weights: expected {dof} positive finite numbers (one per joint), "
                         f"got {excerpt(weights, 60)}")
    return w


def _check_grouping(robot, base, Y, Yb) -> None:
    """A ``base`` given (not the robot's own) groups the parameters as this robot's
    regressor does on the samples: ``Y[..., dependent] = Y_b beta``."""
    if not base.dependent:
        return
    diff = Y[..., list(base.dependent)] - Yb @ base.beta
    scale = float(np.abs(Y).max()) or 1.0
    err = float(np.abs(diff).max()) / scale
    if not err <= 1e-8:
        raise InputError(f"base: these base parameters do not group {robot.name}'s parameters "
                         f"(their relations are off by {err:.2g} relative on the samples): "
                         "the base parameters of another robot or of other parameter values; "
                         "use robot.base_parameters()")


# -- physically consistent fit ------------------------------------------------------------
def _pseudo_inertia(m, h, io) -> np.ndarray:
    sigma = 0.5 * np.trace(io) * np.eye(3) - io
    return np.block([[sigma, h[:, None]], [h[None, :], np.array([[m]])]])


def _link_from_pseudo(J):
    """The 10 standard parameters of a link from its pseudo-inertia (linear in ``J``)."""
    sigma, h, m = J[:3, :3], J[:3, 3], J[3, 3]
    io = np.trace(sigma) * np.eye(3) - sigma
    return [m, *h, io[0, 0], io[0, 1], io[0, 2], io[1, 1], io[1, 2], io[2, 2]]


def _link_pseudo(pi10) -> np.ndarray:
    m, hx, hy, hz, xx, xy, xz, yy, yz, zz = pi10
    io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    return _pseudo_inertia(m, np.array([hx, hy, hz]), io)


def consistency_problems(robot: Robot, pi: ArrayLike) -> list[str]:
    """What makes the standard parameters ``pi`` not those of a physical robot: a mass
    ``<= 0``, a pseudo-inertia that is not positive definite, negative friction or
    armature (empty when consistent)."""
    names = robot.inertial_parameters().names
    pi = np.asarray(pi, dtype=float)
    out = []
    for k in range(robot.dof):
        seg = pi[PER_LINK * k:PER_LINK * (k + 1)]
        if not seg[0] > 0:
            out.append(f"link {k + 1}: mass {seg[0]:.4g} is not positive")
        eig = np.linalg.eigvalsh(_link_pseudo(seg))
        if not eig[0] > 0:
            out.append(f"link {k + 1}: pseudo-inertia not positive definite (smallest "
                       f"eigenvalue {eig[0]:.3g})")
    friction = PER_LINK * robot.dof  # friction and armature, after every link's ten
    for name, value in zip(names[friction:], pi[friction:], strict=True):
        if value < 0:
            out.append(f"{name} = {value:.4g} is negative")
    return out


#: ``J = sum_a pi10[a] _PSEUDO[a]``: a link's pseudo-inertia is linear in its parameters.
_PSEUDO = np.array([_link_pseudo(np.eye(PER_LINK)[a]) for a in range(PER_LINK)])


def _start(robot) -> tuple[np.ndarray, int]:
    """A strictly feasible start: the model's standard parameters, each link's
    pseudo-inertia shifted to positive definite where it is not, friction and armature
    raised to at least ``1e-3`` of the largest parameter; and where friction starts."""
    _, pi = robot.inertial_parameters()
    n = robot.dof
    pi = pi.copy()
    for k in range(n):
        J = _link_pseudo(pi[PER_LINK * k:PER_LINK * (k + 1)])
        scale = max(1e-3, float(np.abs(J).max()))
        eig = np.linalg.eigvalsh(J)
        if eig[0] < 1e-6 * scale:
            J = J + (1e-6 * scale - min(eig[0], 0.0) + 1e-3 * scale) * np.eye(4)
            pi[PER_LINK * k:PER_LINK * (k + 1)] = _link_from_pseudo(J)
    split = PER_LINK * n
    floor = 1e-3 * max(1e-12, float(np.abs(pi[:split]).max()))
    pi[split:] = np.maximum(pi[split:], floor)
    return pi, split


@dataclass(frozen=True)
class _Fit:
    x: np.ndarray  # the standard parameters
    steps: int
    converged: bool
    gap: float


class _Barrier:
    """``-sum_k log det J_k(pi) - sum_i log pi_i`` (links ``k``, friction and armature
    ``i``): finite exactly where ``pi`` is physically consistent, strictly."""

    def __init__(self, links: int, size: int):
        self.links, self.split, self.size = links, PER_LINK * links, size
        self.count = 4 * links + size - self.split  # its "m" (the duality gap is m / t)

    def pseudo(self, pi):
        return np.einsum("ka,aij->kij", pi[:self.split].reshape(self.links, PER_LINK), _PSEUDO)

    def value(self, pi) -> float:
        """The barrier at ``pi``, ``inf`` where ``pi`` is not strictly consistent."""
        rest = pi[self.split:]
        if not np.all(rest > 0):
            return math.inf
        try:
            L = np.linalg.cholesky(self.pseudo(pi))
        except np.linalg.LinAlgError:
            return math.inf
        diag = np.diagonal(L, axis1=1, axis2=2)
        if not np.all(diag > 0):
            return math.inf
        return float(-2.0 * np.log(diag).sum() - np.log(rest).sum())

    def derivatives(self, pi):
        """Gradient and Hessian: ``-tr(J^-1 G_a)`` and ``tr(J^-1 G_a J^-1 G_b)`` per link,
        ``-1/x`` and ``1/x^2`` per bounded parameter."""
        g = np.zeros(self.size)
        H = np.zeros((self.size, self.size))
        P = np.einsum("kij,ajl->kail", np.linalg.inv(self.pseudo(pi)), _PSEUDO)
        g[:self.split] = -np.einsum("kaii->ka", P).ravel()
        blocks = np.einsum("kaij,kbji->kab", P, P)
        for k in range(self.links):
            block = slice(PER_LINK * k, PER_LINK * (k + 1))
            H[block, block] = blocks[k]
        rest = pi[self.split:]
        g[self.split:] = -1.0 / rest
        H[self.split:, self.split:] += np.diag(1.0 / rest ** 2)
        return g, H


def _newton_direction(H, g) -> np.ndarray | None:
    """``-H^-1 g`` (Jacobi-scaled Cholesky; least squares if ``H`` is numerically not
    positive definite); ``None`` where rounding left no finite direction."""
    d = np.sqrt(np.maximum(np.diag(H), 1e-300))
    with np.errstate(all="ignore"):
        Hs, gs = H / np.outer(d, d), g / d
    if not (np.isfinite(Hs).all() and np.isfinite(gs).all()):
        return None
    try:
        x = scipy.linalg.cho_solve(scipy.linalg.cho_factor(Hs), gs)
    except (np.linalg.LinAlgError, ValueError):
        try:
            x = np.linalg.lstsq(Hs, gs, rcond=None)[0]
        except np.linalg.LinAlgError:
            return None
    x = -x / d
    return x if np.isfinite(x).all() else None


def _physical_fit(robot, base, R, est, progress=None) -> _Fit:
    """The physically consistent standard parameters nearest (in the weighted torques)
    to the least-squares estimate ``est`` (module docstring): the minimum of

        F(pi) = |A pi - t|^2 / 2 + rho^2 |N^T (pi - pi0)|^2 / 2

    (``A = R K / |W est|``, ``t = R est / |W est|``; ``N`` an orthonormal basis of the
    null space of ``K``, so the pull toward the model's parameters ``pi0`` acts only on
    what the data cannot see and biases nothing they can) over the physically consistent
    ``pi``: a convex problem, solved by a primal log-barrier interior-point method
    (Boyd & Vandenberghe, *Convex Optimization*, ch. 11): Newton steps on
    ``t F + barrier`` (backtracking to stay feasible, a full step in the quadratic region
    ``lambda^2 < 0.1``), ``t`` raised tenfold when centred, until the duality gap
    ``m / t`` is below ``1e-8 F + 1e-20``; at most :data:`PHYSICAL_MAX_STEPS` Newton
    steps. Where rounding stops the progress first, the fit counts as converged if the gap
    is below ``1e-6 F + 1e-14``. ``progress`` (:func:`robodyn.core.progress.tracker`)
    counts the centring stages, as many as the tenfold steps of ``t`` from 1 to the gap's
    goal at the start (one more stage is shown as the last one, if needed)."""
    pi0, split = _start(robot)
    size = pi0.shape[0]
    scale = float(np.linalg.norm(R @ est)) or 1.0  # |W est|: the weighted torques
    A = (R @ base.K) / scale
    target = (R @ est) / scale
    N = scipy.linalg.null_space(base.K)
    rho = PHYSICAL_PULL * float(np.linalg.norm(A, 2))
    barrier = _Barrier(robot.dof, size)
    HF = A.T @ A + rho ** 2 * (N @ N.T)

    def F(pi) -> float:
        r = A @ pi - target
        d = N.T @ (pi - pi0)
        return 0.5 * float(r @ r) + 0.5 * rho ** 2 * float(d @ d)

    def grad(pi):
        return A.T @ (A @ pi - target) + rho ** 2 * (N @ (N.T @ (pi - pi0)))

    stages = max(1, math.ceil(math.log10(barrier.count / (1e-8 * F(pi0) + 1e-20))) + 1)
    with tracker(progress, stages, "physical fit") as bar:
        return _centred(barrier, F, grad, HF, pi0, stages, bar)


def _centred(barrier, F, grad, HF, pi, stages, bar) -> _Fit:
    """The barrier method of :func:`_physical_fit` from ``pi``, its stages counted on
    ``bar``."""
    t, steps, stage = 1.0, 0, 0
    while True:
        stalled, slow, last = False, 0, math.inf
        while steps < PHYSICAL_MAX_STEPS:  # centring: Newton on t F + barrier
            gb, Hb = barrier.derivatives(pi)
            g = t * grad(pi) + gb
            dx = _newton_direction(t * HF + Hb, g)
            steps += 1
            if dx is None:
                stalled = True
                break
            lam2 = float(-g @ dx)
            if lam2 <= 2e-9:
                break
            # Newton converges quadratically here; three steps that do not quarter the
            # decrement are the rounding floor of t F + barrier
            slow = slow + 1 if lam2 < 0.1 and lam2 > 0.25 * last else 0
            last = lam2
            if slow >= 3:
                stalled = True
                break
            if lam2 < 0.1 and math.isfinite(barrier.value(pi + dx)):
                pi = pi + dx
                continue
            phi = t * F(pi) + barrier.value(pi)
            s = 1.0
            while s >= 1e-6 and not (t * F(pi + s * dx) + barrier.value(pi + s * dx)
                                     <= phi - 0.25 * s * lam2):
                s *= 0.5
            if s < 1e-6:  # no decrease that rounding lets one see
                stalled = True
                break
            pi = pi + s * dx
        gap = barrier.count / t
        value = F(pi)
        if gap <= 1e-8 * value + 1e-20 or stalled or steps >= PHYSICAL_MAX_STEPS:
            return _Fit(pi, steps, gap <= 1e-6 * value + 1e-14, gap)
        stage += 1
        bar.update(min(stage, stages - 1))
        t *= 10.0
