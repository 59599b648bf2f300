"""Standard and base dynamic parameters of a robot (Gautier's numerical method).

The standard parameters ``pi`` (:func:`inertial_parameters`, ordering in
:mod:`robodyn.dynamics.regressor`) make ``tau = Y(q, qd, qdd) pi``, but some columns
of ``Y`` are zero (a parameter that never acts: the mass of the first link) or
linear combinations of others (the mass of link 2 of a planar arm acts only as
``l1 m2`` with the first moment of link 1 and as ``l1^2 m2`` with its inertia). The
base parameters are the largest set of independent combinations ``pi_b = K pi``
with ``Y pi = Y_b pi_b``.

Numerical method (M. Gautier, "Numerical calculation of the base inertial parameters
of robots", J. Robotic Systems 8(4), 1991, pp. 485-506): stack ``Y`` over random
states into ``W`` (``samples * dof`` rows) and factor ``W = Q R`` *without column
pivoting*, the columns in the standard order. ``|R_ii|`` is the part of column ``i``
not explained by the columns before it; column ``i`` is independent when

    |R_ii| > tol * max_k ||W_k||          (tol = ``RANK_TOL`` = 1e-8 by default)

so that, as in Khalil & Dombre's grouping rules, a parameter of an outer link is
regrouped into those of inner links (``ZZ1 + l1^2 m2``), never the reverse. A
column explained to within ``tol`` of the largest column counts as dependent: an
effect smaller than that (e.g. gravity of ``1e-9``) is below what any data show.
The dependent columns are ``W_D = W_B beta`` (least squares on the independent ones,
``beta`` entries below ``1e-10`` in magnitude set to 0), so ``K = [1 | beta]``
(columns reordered).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import scipy.linalg
import sympy as sp

from .dynamics.regressor import parameter_columns, standard_parameters
from .errors import InputError, ModelError
from .model.chain import Friction, Inertial, Motor

#: Default rank tolerance of :func:`base_parameters` (module docstring).
RANK_TOL = 1e-8
#: Entries of ``beta`` this small (relative to 1) are rounding and set to zero.
BETA_TOL = 1e-10


class Parameters(NamedTuple):
    """Names and values of a robot's standard parameters (:func:`inertial_parameters`)."""

    names: tuple[str, ...]
    values: np.ndarray

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.names, self.values.tolist(), strict=True))


def inertial_parameters(robot) -> Parameters:
    """``(names, values)`` of the standard parameters of ``robot`` at its values."""
    _, names = parameter_columns(robot.chain)
    values = np.array([float(v) for v in standard_parameters(robot.numeric_chain)])
    return Parameters(tuple(names), values)


def symbolic_parameters(robot_or_chain) -> dict[sp.Symbol, sp.Expr]:
    """``{standard parameter symbol: its expression in the model's parameters}``."""
    chain = getattr(robot_or_chain, "chain", robot_or_chain)
    _, names = parameter_columns(chain)
    values = [sp.expand(sp.sympify(v)) for v in standard_parameters(chain)]
    return {sp.Symbol(n): v for n, v in zip(names, values, strict=True)}


def with_inertial_parameters(robot, pi):
    """See :meth:`robodyn.Robot.with_inertial_parameters`."""
    names, _ = inertial_parameters(robot)
    arr = _vector(pi, len(names), "pi")
    n = robot.dof
    links = []
    armatures = iter(arr[12 * n:])
    motors = {int(name[2:]) - 1 for name in names if name.startswith("Ia")}
    for k, link in enumerate(robot.chain.links):
        m, hx, hy, hz, xx, xy, xz, yy, yz, zz = arr[10 * k:10 * k + 10]
        h = np.array([hx, hy, hz])
        scale = max(1.0, float(np.abs(h).max()))
        if m == 0:
            if np.any(np.abs(h) > 1e-12 * scale):
                raise ModelError(
                    f"{robot.name}: with_inertial_parameters: link {k + 1} has mass m{k + 1} = 0 "
                    f"but first moments (mx, my, mz) = {h.tolist()}: a centre of mass needs a "
                    "mass; give the link a mass or zero first moments")
            c = np.zeros(3)
        else:
            c = h / m
        io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        ic = io - m * (c @ c * np.eye(3) - np.outer(c, c))
        inertial = Inertial(float(m), tuple(float(x) for x in c),
                            tuple(tuple(float(x) for x in row) for row in ic))
        fv, fs = arr[10 * n + 2 * k:10 * n + 2 * k + 2]
        motor = Motor(float(next(armatures)), 1) if k in motors else Motor()
        links.append(replace(link, inertial=inertial, friction=Friction(float(fv), float(fs)),
                             motor=motor))
    chain = replace(robot.chain, links=tuple(links))
    new = robot.with_chain(chain)
    new.numeric_chain  # noqa: B018 - fail now on a non-physical model, naming the field
    return new


def _vector(value, size: int, name: str) -> np.ndarray:
    if isinstance(value, Parameters):
        value = value.values
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected {size} real numbers") from None
    if arr.shape != (size,):
        raise InputError(f"{name}: expected shape ({size},) (the order of "
                         f"robot.inertial_parameters()), got {arr.shape}")
    if not np.isfinite(arr).all():
        k = int(np.argmax(~np.isfinite(arr)))
        raise InputError(f"{name}[{k}] is {arr[k]}; every parameter must be a finite number")
    return arr


@dataclass(frozen=True, eq=False)
class BaseParameters:
    """The base parameters of a robot (module docstring).

    ``names``: the standard parameters' names; ``independent``: indices of the
    standard parameters kept (``Y_b = Y[..., independent]``); ``dependent``: the others;
    ``beta``: ``(b, d)`` with ``Y[..., dependent] = Y_b beta``; ``K``: ``(b, p)`` with
    ``pi_b = K pi``; ``values``: ``K pi`` at the robot's values; ``combinations``: each
    base parameter as a SymPy expression of the standard parameters (``ZZ1 + 0.64*m2``);
    ``expressions``: the same in the model's own parameters; ``R_diag``: ``|R_ii|``
    relative to the largest column norm; ``tol`` the threshold used.
    """

    names: tuple[str, ...]
    independent: tuple[int, ...]
    dependent: tuple[int, ...]
    beta: np.ndarray
    K: np.ndarray
    values: np.ndarray
    combinations: tuple[sp.Expr, ...]
    expressions: tuple[sp.Expr, ...]
    R_diag: np.ndarray
    tol: float
    samples: int

    @property
    def count(self) -> int:
        return len(self.independent)

    @property
    def base_names(self) -> tuple[str, ...]:
        """Names of the base parameters: the kept standard parameter, with ``R`` (for
        "regrouped") where others are grouped into it (``ZZ1R``)."""
        out = []
        for row, i in enumerate(self.independent):
            grouped = np.any(self.beta[row] != 0) if self.beta.size else False
            out.append(self.names[i] + ("R" if grouped else ""))
        return tuple(out)

    def __str__(self) -> str:
        lines = [f"{self.count} base parameters of {len(self.names)} standard ones "
                 f"(rank tolerance {self.tol:g}, {self.samples} random states):"]
        for name, comb, expr, value in zip(self.base_names, self.combinations,
                                           self.expressions, self.values, strict=True):
            text = f"  {name} = {comb}"
            if expr != comb:
                text += f" = {expr}"
            lines.append(text + f"   [{value:.6g}]")
        return "\n".join(lines)


def random_states(robot, samples: int, seed: int = 0):
    """Random ``(q, qd, qdd)``: revolute ``q`` uniform in ``[-pi, pi]``, prismatic in
    their limits (else ``[-1, 1]``), rates standard normal."""
    rng = np.random.default_rng(seed)
    dof = robot.dof
    q = rng.uniform(-np.pi, np.pi, size=(samples, dof))
    for j, link in enumerate(robot.links):
        if link.joint.type != "revolute":
            lim = link.joint.limits
            lo, hi = (float(lim[0]), float(lim[1])) if lim is not None and \
                np.isfinite(np.array(lim[:2], dtype=float)).all() and lim[0] < lim[1] \
                else (-1.0, 1.0)
            q[:, j] = rng.uniform(lo, hi, size=samples)
    return q, rng.normal(size=(samples, dof)), rng.normal(size=(samples, dof))


def base_parameters(robot, tol: float | None = None, samples: int | None = None,
                    seed: int = 0) -> BaseParameters:
    """The base parameters of ``robot`` at its values (module docstring)."""
    tol = RANK_TOL if tol is None else float(tol)
    if not 0 < tol < 1:
        raise InputError(f"tol: {tol!r} must be in (0, 1), e.g. 1e-8")
    names, pi = inertial_parameters(robot)
    p = len(names)
    samples = samples or max(100, 4 * p)
    q, qd, qdd = random_states(robot, samples, seed)
    W = robot.regressor(q, qd, qdd).reshape(-1, p)
    norms = np.linalg.norm(W, axis=0)
    scale = float(norms.max()) or 1.0
    R = scipy.linalg.qr(W, mode="r")[0]
    diag = np.abs(np.diag(R)) / scale
    independent = [i for i in range(p) if diag[i] > tol]
    dependent = [i for i in range(p) if diag[i] <= tol]
    WB = W[:, independent]
    beta = np.linalg.lstsq(WB, W[:, dependent], rcond=None)[0] if dependent \
        else np.zeros((len(independent), 0))
    beta[np.abs(beta) < BETA_TOL] = 0.0
    K = np.zeros((len(independent), p))
    K[:, independent] = np.eye(len(independent))
    K[:, dependent] = beta
    symbols = [sp.Symbol(n) for n in names]
    combos = []
    for row in range(len(independent)):
        expr = symbols[independent[row]]
        for col, d in enumerate(dependent):
            if beta[row, col] != 0:
                expr += _number(beta[row, col]) * symbols[d]
        combos.append(expr)
    meaning = symbolic_parameters(robot)
    exprs = tuple(sp.expand(c.xreplace(meaning)) for c in combos)
    return BaseParameters(tuple(names), tuple(independent), tuple(dependent), beta, K, K @ pi,
                          tuple(combos), exprs, diag, tol, samples)


def _number(x: float) -> sp.Expr:
    """A coefficient as SymPy: an integer or a short rational when it is one to 1e-12."""
    r = sp.nsimplify(x, rational=True, tolerance=1e-12 * max(1.0, abs(x)))
    if isinstance(r, sp.Rational) and r.q <= 1000:
        return r
    return sp.Float(x, 12)


__all__ = ["Parameters", "BaseParameters", "inertial_parameters", "with_inertial_parameters",
           "base_parameters", "symbolic_parameters", "random_states", "RANK_TOL"]
