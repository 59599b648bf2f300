"""Identification of the base parameters from measured motion and torques.

``tau = Y_b(q, qd, qdd) pi_b + e`` stacked over ``N`` samples is the linear model
``y = W pi_b + e`` (Khalil & Dombre, *Modeling, Identification and Control of
Robots*, ch. 12; Gautier's weighted least squares). :func:`identify`:

1. ordinary least squares, then the noise level of each joint
   ``sigma_j^2 = |e_j|^2 / (N - b/dof)`` from its residuals;
2. weighted least squares, each joint's rows divided by ``sigma_j`` (or by the
   ``weights`` given): ``pi_b = (W^T W)^-1 W^T y`` in the weighted rows;
3. standard errors from ``cov = sigma^2 (W^T W)^-1`` with ``sigma^2 = |r|^2/(m - b)``
   of the weighted residual ``r`` (``m`` rows), relative standard deviations
   ``100 se / |pi_b|`` (%), the condition number of ``W``.

``physical=True`` also fits all standard parameters (masses, first moments,
inertias, friction, armature) with every link *physically consistent*: each link's
pseudo-inertia ``J = [[Sigma, h], [h^T, m]]`` (``Sigma = tr(I_o)/2 1 - I_o``) is
positive definite, hence ``m > 0`` and a real mass distribution (Wensing, Kim &
Slotine, IEEE RA-L 2018). ``J = U U^T`` with ``U`` upper triangular and the log of its
diagonal as unknowns (log-Cholesky, Rucker & Wensing, IEEE RA-L 2022), friction and
armature bounded below by 0; :func:`scipy.optimize.least_squares` minimises the same
weighted residual, ``|R (K pi(theta) - pi_b)|`` with ``R`` from ``W = Q R``, plus a
small pull (``1e-6`` relative) toward the model's own parameters for the directions
the data cannot see.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.linalg
import scipy.optimize

from .errors import InputError, excerpt

__all__ = ["identify", "Identification", "read_csv", "consistency_problems"]


@dataclass(frozen=True, eq=False)
class Identification:
    """The result of :func:`identify` (module docstring): ``names`` (the base
    parameters, ``ZZ1R``...), ``combinations`` (SymPy, in the standard parameters),
    ``estimate``, ``std_errors``, ``relative_std`` (%), ``condition_number`` of the
    weighted stacked regressor, ``residual_rms`` (per joint, unweighted, N·m or N),
    ``weights`` (per joint), ``samples``; with ``physical=True`` also ``standard`` (all
    standard parameters, each link physically consistent) and ``physical_estimate``
    (``K standard``)."""

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

    def predict(self, q, qd, qdd, physical: bool = False) -> np.ndarray:
        """Torques ``Y_b(q, qd, qdd) pi_b`` of the estimate (``physical=True``: of the
        physically consistent one), ``(..., dof)``."""
        pi = self.physical_estimate if physical else self.estimate
        if pi is None:
            raise InputError("predict(physical=True): identify with physical=True first")
        return self.robot.regressor_base(q, qd, qdd) @ pi

    def robot_estimate(self):
        """The robot with the physically consistent standard parameters
        (:meth:`~robodyn.Robot.with_inertial_parameters`); needs ``physical=True``."""
        if self.standard is None:
            raise InputError("robot_estimate(): identify with physical=True first")
        return self.robot.with_inertial_parameters(self.standard)

    def table(self) -> list[dict]:
        rows = []
        for k, name in enumerate(self.names):
            row = {"name": name, "combination": str(self.combinations[k]),
                   "estimate": float(self.estimate[k]), "std_error": float(self.std_errors[k]),
                   "relative_std_percent": float(self.relative_std[k])}
            if self.physical_estimate is not None:
                row["physical"] = float(self.physical_estimate[k])
            rows.append(row)
        return rows

    def __str__(self) -> str:
        head = (f"{self.robot.name}: {len(self.names)} base parameters from {self.samples} "
                f"samples; condition number {self.condition_number:.4g}; residual RMS per "
                f"joint {np.array2string(self.residual_rms, precision=4)}")
        lines = [head, f"  {'name':<8} {'estimate':>13} {'std error':>11} {'rel %':>8}"
                 + ("  physical" if self.physical_estimate is not None else "")
                 + "  combination"]
        for row in self.table():
            text = (f"  {row['name']:<8} {row['estimate']:>13.6g} {row['std_error']:>11.3g} "
                    f"{row['relative_std_percent']:>8.3g}")
            if "physical" in row:
                text += f"  {row['physical']:>8.6g}"
            lines.append(text + f"  {row['combination']}")
        lines += list(self.notes)
        return "\n".join(lines)


def _array(name: str, value, dof: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
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


def read_csv(path, dof: int) -> tuple[np.ndarray, ...]:
    """``(q, qd, qdd, tau)`` from a CSV file with a header naming the columns ``q1..qn``,
    ``qd1..qdn``, ``qdd1..qddn``, ``tau1..taun`` (any order; other columns such as ``t``
    are ignored). A missing column, a value that is not a finite number or a short row
    is an :class:`InputError` naming the line and the column."""
    path = Path(path)
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{excerpt(str(path))}: cannot be read ({exc.strerror})") from None
    wanted = [f"{k}{j}" for k in ("q", "qd", "qdd", "tau") for j in range(1, dof + 1)]
    with handle:
        reader = csv.reader(handle)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise InputError(f"{path.name}: the file is empty; it needs a header line "
                             f"{','.join(wanted)}") from None
        except (csv.Error, UnicodeDecodeError) as exc:
            raise InputError(f"{path.name}: not a CSV file ({excerpt(str(exc))})") from None
        missing = [w for w in wanted if w not in header]
        if missing:
            raise InputError(
                f"{path.name}: line 1 (header) lacks the column(s) {', '.join(missing[:8])}"
                f"{' ...' if len(missing) > 8 else ''}; a {dof}-joint robot needs "
                f"{', '.join(wanted[:4])}, ... {wanted[-1]} (found {excerpt(','.join(header))})")
        index = [header.index(w) for w in wanted]
        rows = []
        try:
            for line, row in enumerate(reader, start=2):
                if not row or all(not cell.strip() for cell in row):
                    continue
                values = []
                for name, col in zip(wanted, index, strict=True):
                    if col >= len(row):
                        raise InputError(f"{path.name}: line {line}, column {name!r}: the row "
                                         f"has only {len(row)} values")
                    cell = row[col].strip()
                    try:
                        x = float(cell)
                    except ValueError:
                        x = None
                    if x is None or not math.isfinite(x):
                        raise InputError(f"{path.name}: line {line} (sample {len(rows) + 1}), "
                                         f"column {name!r}: {excerpt(cell)} is not a finite "
                                         "number; drop or repair that sample")
                    values.append(x)
                rows.append(values)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise InputError(f"{path.name}: not a CSV file ({excerpt(str(exc))})") from None
    if not rows:
        raise InputError(f"{path.name}: no data rows after the header")
    data = np.array(rows)
    return tuple(data[:, k * dof:(k + 1) * dof] for k in range(4))


def identify(robot, q, qd=None, qdd=None, tau=None, weights=None, physical: bool = False,
             base=None) -> Identification:
    """Estimate the base parameters of ``robot`` from samples ``q, qd, qdd, tau`` (each
    ``(N, dof)``), or from a CSV file given as ``q`` (:func:`read_csv`). ``weights``: one
    per joint (rows of joint ``j`` multiplied by ``weights[j]``); default ``1/sigma_j``
    from an ordinary least-squares pass. ``physical=True`` adds the physically
    consistent fit (module docstring). ``base``: the :class:`BaseParameters` to use
    (default ``robot.base_parameters()``)."""
    dof = robot.dof
    if isinstance(q, (str, Path)):
        if qd is not None or qdd is not None or tau is not None:
            raise InputError("identify(robot, 'data.csv'): give the file alone, without "
                             "qd, qdd, tau")
        q, qd, qdd, tau = read_csv(q, dof)
    if qd is None or qdd is None or tau is None:
        raise InputError("identify: give q, qd, qdd and tau (or a CSV path)")
    q, qd, qdd, tau = (_array(n, a, dof) for n, a in
                       (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau)))
    n = q.shape[0]
    if not (qd.shape[0] == qdd.shape[0] == tau.shape[0] == n):
        raise InputError(f"identify: q, qd, qdd, tau have {n}, {qd.shape[0]}, {qdd.shape[0]}, "
                         f"{tau.shape[0]} samples; they must be equal")
    base = base or robot.base_parameters()
    b = base.count
    if n * dof <= b:
        raise InputError(f"identify: {n} samples x {dof} joints give {n * dof} equations for "
                         f"{b} base parameters; record more samples")
    Yb = robot.regressor_base(q, qd, qdd)  # (N, dof, b)
    if weights is None:
        est = np.linalg.lstsq(Yb.reshape(-1, b), tau.reshape(-1), rcond=None)[0]
        resid = tau - Yb @ est
        dofs = max(n - b / dof, 1.0)
        sigma = np.sqrt(np.sum(resid ** 2, axis=0) / dofs)
        floor = 1e-12 * max(1.0, float(np.abs(tau).max()))
        w = 1.0 / np.maximum(sigma, floor)
    else:
        w = np.asarray(weights, dtype=float).reshape(-1)
        if w.shape != (dof,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise InputError(f"weights: expected {dof} positive finite numbers (one per joint)")
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
    standard = phys = None
    notes: list[str] = []
    if physical:
        standard = _physical_fit(robot, base, R, est)
        phys = base.K @ standard
        notes.append("physical: every link has m > 0 and a positive-definite pseudo-inertia")
    return Identification(robot, base, est, se, cov, cond, rms, w, n, standard, phys,
                          tuple(notes))


# -- physically consistent fit ------------------------------------------------------------
def _pseudo_inertia(m, h, io) -> np.ndarray:
    sigma = 0.5 * np.trace(io) * np.eye(3) - io
    return np.block([[sigma, h[:, None]], [h[None, :], np.array([[m]])]])


def _link_from_pseudo(J):
    sigma, h, m = J[:3, :3], J[:3, 3], J[3, 3]
    io = np.trace(sigma) * np.eye(3) - sigma
    return [m, *h, io[0, 0], io[0, 1], io[0, 2], io[1, 1], io[1, 2], io[2, 2]]


def _link_pseudo(pi10) -> np.ndarray:
    m, hx, hy, hz, xx, xy, xz, yy, yz, zz = pi10
    io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    return _pseudo_inertia(m, np.array([hx, hy, hz]), io)


def consistency_problems(robot, pi) -> list[str]:
    """What makes the standard parameters ``pi`` not those of a physical robot: a mass
    ``<= 0``, a pseudo-inertia that is not positive definite, negative friction or
    armature (empty when consistent)."""
    names = robot.inertial_parameters().names
    pi = np.asarray(pi, dtype=float)
    out = []
    for k in range(robot.dof):
        seg = pi[10 * k:10 * k + 10]
        if not seg[0] > 0:
            out.append(f"link {k + 1}: mass {seg[0]:.4g} is not positive")
        eig = np.linalg.eigvalsh(_link_pseudo(seg))
        if not eig[0] > 0:
            out.append(f"link {k + 1}: pseudo-inertia not positive definite (smallest "
                       f"eigenvalue {eig[0]:.3g})")
    for name, value in zip(names[10 * robot.dof:], pi[10 * robot.dof:], strict=True):
        if value < 0:
            out.append(f"{name} = {value:.4g} is negative")
    return out


def _theta0(robot) -> tuple[np.ndarray, int]:
    """Log-Cholesky start: each link's pseudo-inertia of the model (made positive
    definite where the model's is not), friction and armature of the model."""
    names, pi = robot.inertial_parameters()
    n = robot.dof
    theta = []
    for k in range(n):
        J = _link_pseudo(pi[10 * k:10 * k + 10])
        scale = max(1e-3, float(np.abs(J).max()))
        eig = np.linalg.eigvalsh(J)
        if eig[0] < 1e-6 * scale:
            J = J + (1e-6 * scale - min(eig[0], 0.0) + 1e-3 * scale) * np.eye(4)
        theta.extend(_log_cholesky(J))
    rest = np.maximum(pi[10 * n:], 0.0)
    return np.concatenate([np.array(theta), rest]), 10 * n


def _upper_cholesky(J):
    """``U`` upper triangular with ``J = U U^T`` (a Cholesky factor of the reversed
    matrix)."""
    P = np.eye(4)[::-1]
    L = np.linalg.cholesky(P @ J @ P)
    return P @ L @ P


def _log_cholesky(J):
    U = _upper_cholesky(J)
    d = np.log(np.diag(U))
    return [*d, U[0, 1], U[0, 2], U[0, 3], U[1, 2], U[1, 3], U[2, 3]]


def _from_theta(theta, links: int):
    pi = []
    for k in range(links):
        t = theta[10 * k:10 * k + 10]
        U = np.diag(np.exp(t[:4]))
        U[0, 1], U[0, 2], U[0, 3], U[1, 2], U[1, 3], U[2, 3] = t[4:]
        pi.extend(_link_from_pseudo(U @ U.T))
    return np.concatenate([np.array(pi), theta[10 * links:]])


def _physical_fit(robot, base, R, est) -> np.ndarray:
    theta0, split = _theta0(robot)
    links = robot.dof
    K = base.K
    scale = max(1e-12, float(np.abs(theta0).max()))
    reg = 1e-6

    def residual(theta):
        pi = _from_theta(theta, links)
        return np.concatenate([R @ (K @ pi - est), reg * (theta - theta0) / scale])

    lower = np.full(theta0.shape, -np.inf)
    lower[split:] = 0.0
    sol = scipy.optimize.least_squares(residual, theta0, bounds=(lower, np.inf),
                                       method="trf", x_scale="jac", max_nfev=2000,
                                       xtol=1e-12, ftol=1e-12, gtol=1e-12)
    return _from_theta(sol.x, links)
