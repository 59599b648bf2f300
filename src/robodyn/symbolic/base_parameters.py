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

Symbolic grouping coefficients. ``beta`` depends on the geometry only, never on the
state, so where the model's geometry has symbols the coefficients are found exactly, in
those symbols (``ZZ1R = ZZ1 + l1**2*m2``, as Khalil & Dombre's grouping rules write them),
by :func:`symbolic_beta`: the closed-form regressor (:mod:`robodyn.symbolic.regressor`,
polynomials in ``s_i = sin q_i``, ``c_i = cos q_i``, the prismatic ``q_i``, the rates and
the model's parameters) is evaluated at exact rational states (each revolute joint at a
Pythagorean angle, ``(s_i, c_i) = (3/5, 4/5)``, ``(-12/13, 5/13)``..., so that
``s^2 + c^2 = 1`` holds exactly; rational rates), which leaves a polynomial in the
geometry symbols in every entry; ``Y_B beta_d = Y_d`` is then solved exactly over the
field of rational functions in those symbols (fraction-free, on the columns that the
numerical ``beta`` uses, else on all of ``Y_B``) and checked on every sampled row. A
nonzero polynomial vanishes at random rational points only by accident (Schwartz–Zippel),
so the check on more rows than unknowns proves the relation for all states with high
probability; the coefficients are finally checked against the numerical ``beta`` at the
model's values (to ``1e-9``). Where the model's values are special (``g = 0``: the
gravity columns vanish), the symbols whose value is 0 are set to 0 first. If the geometry
is numeric, the model has more than ``SYMBOLIC_MAX_DOF`` joints, the solve takes longer
than ``SYMBOLIC_TIME`` seconds or any check fails, ``beta`` stays numerical (printed as
short rationals where it is one) and ``note`` says why.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import sympy as sp

from ..codegen.runner import Runner
from ..core.display import html_table
from ..core.errors import InputError, ModelError
from ..dynamics.regressor import (
    FRICTION_PARAMETERS,
    PER_LINK,
    armature_column,
    friction_column,
    parameter_columns,
    standard_columns,
    standard_parameters,
)
from ..model.chain import Chain, Friction, Inertial, Motor
from ..model.expressions import to_sympy
from ..model.joints import integrate_joint, neutral_joint
from ..model.source import ModelSource

#: Default rank tolerance of :func:`base_parameters` (module docstring).
RANK_TOL = 1e-8
#: Entries of ``beta`` this small (relative to 1) are rounding and set to zero.
BETA_TOL = 1e-10
#: Symbolic grouping coefficients only for models with at most this many joints ...
SYMBOLIC_MAX_DOF = 4
#: ... and within this many seconds (closed-form regressor and solve together).
SYMBOLIC_TIME = 10.0
#: The symbolic ``beta`` must match the numerical one at the model's values to this.
SYMBOLIC_CHECK_TOL = 1e-9
#: The rows an exact solve uses must be independent at the model's values: the last pivot
#: of their QR at least this fraction of the first.
SOLVE_PIVOT_TOL = 1e-9
#: A dependent column is solved on all independent ones (when the numerical ``beta``'s
#: columns do not give an exact relation) only up to this many (the fraction-free solve
#: grows fast: ~2 s for 20 columns of a 4R arm, ~30 s for 30).
SYMBOLIC_FULL_MAX = 20


class Parameters(NamedTuple):
    """Names and values of a robot's standard parameters (:func:`inertial_parameters`)."""

    names: tuple[str, ...]
    values: np.ndarray

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.names, self.values.tolist(), strict=True))

    def __repr__(self) -> str:
        shown = ", ".join(self.names[:6]) + (f", … {self.names[-1]}" if len(self.names) > 6
                                             else "")
        return f"Parameters({len(self.names)} standard parameters: {shown})"


def inertial_parameters(runner: Runner) -> Parameters:
    """``(names, values)`` of the standard parameters of the model of ``runner`` at its
    values."""
    _, names = parameter_columns(runner.chain)
    values = np.array([float(v) for v in standard_parameters(runner.numeric_chain)])
    return Parameters(tuple(names), values)


def symbolic_parameters(chain: Chain) -> dict[sp.Symbol, sp.Expr]:
    """``{standard parameter symbol: its expression in the model's parameters}``."""
    _, names = parameter_columns(chain)
    values = [sp.expand(to_sympy(v)) for v in standard_parameters(chain)]
    return {sp.Symbol(n): v for n, v in zip(names, values, strict=True)}


def with_inertial_parameters(runner: Runner, pi) -> Chain:
    """The chain of ``runner`` with the standard parameters ``pi``; see
    :meth:`robodyn.Robot.with_inertial_parameters`."""
    names, _ = inertial_parameters(runner)
    arr = _vector(pi, len(names), "pi")
    n = len(runner.chain.links)
    links = []
    named = dict(zip(names, arr.tolist(), strict=True))
    for k, link in enumerate(runner.chain.links):
        m, hx, hy, hz, xx, xy, xz, yy, yz, zz = arr[PER_LINK * k:PER_LINK * (k + 1)]
        h = np.array([hx, hy, hz])
        scale = max(1.0, float(np.abs(h).max()))
        if m == 0:
            if np.any(np.abs(h) > 1e-12 * scale):
                raise ModelError(
                    f"{runner.name}: with_inertial_parameters: link {k + 1} has mass m{k + 1} = 0 "
                    f"but first moments (mx, my, mz) = {h.tolist()}: a centre of mass needs a "
                    "mass; give the link a mass or zero first moments")
            c = np.zeros(3)
        else:
            c = h / m
        io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        ic = io - m * (c @ c * np.eye(3) - np.outer(c, c))
        inertial = Inertial(float(m), tuple(float(x) for x in c),
                            tuple(tuple(float(x) for x in row) for row in ic))
        fv, fs = arr[friction_column(n, k):friction_column(n, k) + 2]
        motor = Motor(float(named[f"Ia{k + 1}"]), 1) if f"Ia{k + 1}" in named else Motor()
        friction = Friction(float(fv), float(fs))
        if f"Fd{k + 1}" in named:  # Fs the mean Coulomb level, Fd half the difference
            d = named[f"Fd{k + 1}"]
            friction = replace(friction, coulomb=float(fs + d), coulomb_negative=float(fs - d))
        if f"Fo{k + 1}" in named:
            friction = replace(friction, offset=named[f"Fo{k + 1}"])
        links.append(replace(link, inertial=inertial, friction=friction,
                             motor=motor, point_masses=()))  # pi holds the point masses
    tr = getattr(runner.chain, "transmission", None)
    if tr is None:
        return replace(runner.chain, links=tuple(links))
    drives = [tuple(float(named[f"{p}{k + 1}"]) for k in range(n)) for p in ("Jm", "Bm", "Fm")]
    if min(min(d) for d in drives) < 0:
        raise ModelError(f"{runner.name}: with_inertial_parameters: a motor inertia or "
                         "friction (Jm, Bm, Fm) is negative; give values >= 0")
    tr = replace(tr, motor_inertia=drives[0], motor_viscous=drives[1], motor_coulomb=drives[2])
    return replace(runner.chain, links=tuple(links), transmission=tr)


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
    base parameter as a SymPy expression of the standard parameters, with the grouping
    coefficients in the model's geometry symbols where it has them (``ZZ1 + l1**2*m2``);
    ``expressions``: the same in the model's own parameters; ``R_diag``: ``|R_ii|``
    relative to the largest column norm; ``tol`` the threshold used; ``beta_symbolic``:
    ``beta`` as a SymPy matrix (exact; numbers where the coefficients stayed numerical);
    ``symbolic``: whether the coefficients were found exactly (module docstring);
    ``note``: why not, else empty.
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
    beta_symbolic: sp.Matrix | None = None
    symbolic: bool = False
    note: str = ""

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

    def __repr__(self) -> str:
        return (f"BaseParameters(count={self.count}, standard={len(self.names)}, "
                f"symbolic={self.symbolic})")

    def _repr_html_(self) -> str:
        rows = []
        for name, comb, expr, value in zip(self.base_names, self.combinations,
                                           self.expressions, self.values, strict=True):
            rows.append((name, str(comb), str(expr) if expr != comb else "", f"{value:.6g}"))
        caption = (f"{self.count} base parameters of {len(self.names)} standard ones (rank "
                   f"tolerance {self.tol:g}, {self.samples} random states)")
        return html_table(("name", "combination", "in the model's parameters", "value"), rows,
                          caption=caption, notes=(self.note,) if self.note else ())

    def __str__(self) -> str:
        lines = [f"{self.count} base parameters of {len(self.names)} standard ones "
                 f"(rank tolerance {self.tol:g}, {self.samples} random states):"]
        for name, comb, expr, value in zip(self.base_names, self.combinations,
                                           self.expressions, self.values, strict=True):
            text = f"  {name} = {comb}"
            if expr != comb:
                text += f" = {expr}"
            lines.append(text + f"   [{value:.6g}]")
        if self.note:
            lines.append(f"  ({self.note})")
        return "\n".join(lines)


def random_states(chain: Chain, samples: int, seed: int = 0):
    """Random ``(q, qd, qdd)``: revolute ``q`` uniform in ``[-pi, pi]``, prismatic in
    their limits (else ``[-1, 1]``), a ball or free joint turned (and moved) from its zero
    by a standard normal rotation vector (and displacement); rates standard normal."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, size=(samples, chain.nq))
    for link, k in zip(chain.links, chain.q_offsets(), strict=True):
        model = link.joint.model
        if not model.single:
            q[:, k:k + model.nq] = integrate_joint(model, neutral_joint(model),
                                                   rng.normal(size=(samples, model.nv)))
        elif link.joint.type != "revolute":
            lim = link.joint.limits
            lo, hi = (float(lim[0]), float(lim[1])) if lim is not None and \
                np.isfinite(np.array(lim[:2], dtype=float)).all() and lim[0] < lim[1] \
                else (-1.0, 1.0)
            q[:, k] = rng.uniform(lo, hi, size=samples)
    return q, rng.normal(size=(samples, chain.nv)), rng.normal(size=(samples, chain.nv))


def base_parameters(model: ModelSource, runner: Runner, tol: float | None = None,
                    samples: int | None = None, seed: int = 0) -> BaseParameters:
    """The base parameters of a robot's ``model`` at the values of its ``runner`` (module
    docstring)."""
    import scipy.linalg  # SciPy only when used
    tol = RANK_TOL if tol is None else float(tol)
    if not 0 < tol < 1:
        raise InputError(f"tol: {tol!r} must be in (0, 1), e.g. 1e-8")
    names, pi = inertial_parameters(runner)
    p = len(names)
    samples = samples or max(100, 4 * p)
    q, qd, qdd = random_states(runner.chain, samples, seed)
    W = standard_columns(runner.chain, runner.run("regressor", q, qd, qdd)).reshape(-1, p)
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
    values = dict(runner.values)
    exact, note = symbolic_beta(model, independent, dependent, beta)
    found = exact is not None
    if found:
        beta = _evaluate(exact, values)
    else:
        exact = sp.Matrix(*beta.shape, lambda r, c: _number(beta[r, c]) if beta[r, c] else 0)
    K = np.zeros((len(independent), p))
    K[:, independent] = np.eye(len(independent))
    K[:, dependent] = beta
    symbols = [sp.Symbol(n) for n in names]
    meaning = symbolic_parameters(runner.chain)
    combos, exprs = [], []
    for row, i in enumerate(independent):
        combo, expr = symbols[i], meaning[symbols[i]]
        for col, d in enumerate(dependent):
            if exact[row, col] != 0:
                combo += exact[row, col] * symbols[d]
                expr += exact[row, col] * meaning[symbols[d]]
        combos.append(sp.expand(combo))
        exprs.append(sp.expand(expr))
    return BaseParameters(tuple(names), tuple(independent), tuple(dependent), beta, K, K @ pi,
                          tuple(combos), tuple(exprs), diag, tol, samples, exact,
                          found, note)


# -- symbolic grouping coefficients (module docstring) ------------------------------------
#: Pythagorean triples (a, b, h): sin = a/h, cos = b/h are exact rationals.
_TRIPLES = ((3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (12, 35, 37),
            (9, 40, 41), (28, 45, 53), (11, 60, 61), (33, 56, 65))


class _GiveUp(Exception):
    """The symbolic solve cannot go on; the message says why (for ``note``)."""


class _Timeout(_GiveUp):
    """The symbolic solve ran past ``SYMBOLIC_TIME``."""


def symbolic_beta(model: ModelSource, independent, dependent, beta
                  ) -> tuple[sp.Matrix | None, str]:
    """``beta`` (``Y[..., dependent] = Y[..., independent] beta``) exactly, in the model's
    geometry symbols, or ``(None, why not)``; ``beta`` is the numerical solution, which
    picks the columns to solve on and checks the result (module docstring)."""
    b, d = len(independent), len(dependent)
    if d == 0:
        return sp.zeros(b, 0), ""
    dof = model.chain.nv
    if dof > SYMBOLIC_MAX_DOF:
        return None, (f"grouping coefficients numerical: solved symbolically for at most "
                      f"{SYMBOLIC_MAX_DOF} joints")
    if not model.chain.single_valued:
        return None, ("grouping coefficients numerical: the exact solve samples revolute and "
                      "prismatic joints only (this model has a free or ball joint)")
    deadline = time.monotonic() + SYMBOLIC_TIME
    try:
        sampler = _Sampler(model, count=math.ceil(b / dof) + 4)
        if not sampler.geometry:
            return None, "grouping coefficients numerical: the model's geometry has no symbols"
        _check_time(deadline)
        why = ""
        # cheap first: each column on the numerical beta's support, then on all of Y_B
        for full, zeros in ((False, False), (False, True), (True, False), (True, True)):
            if zeros and not sampler.zero_valued:
                continue
            sampler.substitute_zeros(zeros)
            try:
                exact = sp.Matrix(b, d, lambda r, c: 0)
                for col in range(d):
                    for row, value in _solve_column(sampler, independent, dependent[col],
                                                    np.flatnonzero(beta[:, col]), full,
                                                    deadline):
                        exact[row, col] = value
            except _Timeout as exc:
                return None, f"grouping coefficients numerical: {exc}"
            except _GiveUp as exc:
                why = str(exc)
                continue
            err = np.abs(_evaluate(exact, model.values) - beta)
            if np.all(err <= SYMBOLIC_CHECK_TOL * np.maximum(1.0, np.abs(beta))):
                zeroed = ", ".join(sampler.zero_names) if zeros else ""
                return exact, (f"grouping coefficients for {zeroed} = 0, the model's value"
                               if zeroed else "")
            why = (f"the symbolic coefficients differ from the numerical ones by "
                   f"{float(err.max()):.2g} at the model's values")
        return None, f"grouping coefficients numerical: {why}"
    except _Timeout as exc:
        return None, f"grouping coefficients numerical: {exc}"
    except Exception as exc:  # a best effort: the numerical beta stands
        return None, (f"grouping coefficients numerical: the symbolic solve failed "
                      f"({type(exc).__name__}: {str(exc)[:80]})")


def _check_time(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise _Timeout(f"the symbolic solve took longer than {SYMBOLIC_TIME:g} s")


def _solve_column(sampler, independent, dep, support, full, deadline):
    """``[(row, coefficient)]`` of one dependent column: on the columns of ``support``
    (where the numerical ``beta`` is nonzero), then (``full``) on all independent ones;
    each solution is checked exactly on every sampled row."""
    tries = [list(support)]
    if full and len(support) < len(independent) <= SYMBOLIC_FULL_MAX:
        tries.append(list(range(len(independent))))
    for rows in tries:
        _check_time(deadline)
        solution = _solve(sampler, [independent[r] for r in rows], dep)
        if solution is not None:
            return [(r, v) for r, v in zip(rows, solution, strict=True) if v != 0]
    raise _GiveUp("no exact relation of the columns for every state (a coincidence of the "
                  "model's values?)")


def _solve(sampler, cols, dep):
    """Exact ``x`` with ``Y[:, cols] x = Y[:, dep]`` on the sampled rows, or ``None``.

    ``k = len(cols)`` rows independent at the model's values are solved fraction-free
    (``A x_num = den b``, SymPy's ``DomainMatrix.solve_den`` over ``QQ[geometry]``);
    ``den Y_dep - Y[:, cols] x_num`` must then vanish on every row."""
    import scipy.linalg  # SciPy only when used
    from sympy.polys.matrices import DomainMatrix

    rhs = sampler.column(dep)
    if not cols:
        return [] if all(not e for e in rhs) else None
    lhs = [sampler.column(c) for c in cols]
    k = len(cols)
    F = np.array([[sampler.value(col[r]) for col in lhs] for r in range(len(rhs))])
    if len(rhs) < k:
        return None
    R, piv = scipy.linalg.qr(F.T, pivoting=True, mode="r")
    if abs(R[k - 1, k - 1]) <= SOLVE_PIVOT_TOL * abs(R[0, 0]):
        return None
    chosen = sorted(piv[:k])
    dom = sampler.domain
    A = DomainMatrix([[col[r] for col in lhs] for r in chosen], (k, k), dom)
    bvec = DomainMatrix([[rhs[r]] for r in chosen], (k, 1), dom)
    num, den = A.solve_den(bvec)
    x = [num[i, 0].element for i in range(k)]
    for r in range(len(rhs)):
        if den * rhs[r] - sum((col[r] * xi for col, xi in zip(lhs, x, strict=True)),
                              dom.zero):
            return None
    den_expr = sampler.to_sympy(den)
    return [sp.cancel(sampler.to_sympy(xi) / den_expr) for xi in x]


class _Sampler:
    """The closed-form regressor at ``count`` exact rational states: each entry a
    polynomial over ``QQ`` in the geometry symbols (those of the model's parameters, and
    opaque constants, that ``Y`` contains)."""

    def __init__(self, model: ModelSource, count: int, seed: int = 0):
        from .derive import equations
        from .regressor import extra_entries, regressor_polynomials

        eq = equations(model, method="newton-euler")
        self.polys = regressor_polynomials(eq)
        #: the extra friction columns (sign(qd)^2 and 1: both 1 at these nonzero speeds)
        self.extras = {k: row for row, k, _ in extra_entries(eq.chain)}
        #: a coupled transmission's friction columns: {column: (motor k, 0 Bm / 1 Fm)}
        self.drives, self.N = motor_friction_columns(eq.chain, len(self.polys[0]))
        ring = self.ring = eq.derivation.ring
        n = self.n = ring.dof
        self.count = count
        joint = set(ring.qdd_index) | set(ring.qd_index) | set(ring.q_index)
        joint |= set(ring.s_index.values()) | set(ring.c_index.values())
        used = set()
        for row in self.polys:
            for p in row:
                for m in p.itermonoms():
                    used.update(k for k, e in enumerate(m) if e)
        revolute_q = {ring.q_index[i] for i in range(n) if ring.revolute[i]}
        if used & revolute_q:
            raise _GiveUp("a revolute joint angle outside sin/cos")
        # a Float of the model (0.8, 9.81) is the decimal it prints as (4/5): a number,
        # not a symbol; other opaque constants (pi, sqrt(2), cos(0.1)) stay generators
        floats = {k for k in used - joint if ring.gen_exprs[k].is_Float}
        self.fixed = {k: sp.QQ.from_sympy(sp.Rational(str(ring.gen_exprs[k]))) for k in floats}
        self.geometry = sorted(used - joint - floats)
        symbols = [k for k in self.geometry if isinstance(ring.gen_exprs[k], sp.Symbol)]
        if not symbols:
            self.geometry = []
            return
        values = {k: float(v) for k, v in model.values.items()}
        self.values = {}
        for k in self.geometry:
            e = ring.gen_exprs[k]
            self.values[k] = values[e.name] if isinstance(e, sp.Symbol) else float(e.evalf())
        self.zero_valued = [k for k in self.geometry if self.values[k] == 0.0]
        self.zero_names = [str(ring.gen_exprs[k]) for k in self.zero_valued]
        # the states: exact rationals per joint generator
        rng = np.random.default_rng(seed)
        self.states, self.signs = [], []
        for _ in range(count):
            st, signs = {}, []
            for i in range(n):
                if ring.revolute[i]:
                    a, b, h = _TRIPLES[rng.integers(len(_TRIPLES))]
                    if rng.integers(2):
                        a, b = b, a
                    st[ring.s_index[i]] = sp.QQ(int(rng.choice((-1, 1))) * a, h)
                    st[ring.c_index[i]] = sp.QQ(int(rng.choice((-1, 1))) * b, h)
                else:
                    st[ring.q_index[i]] = _rational(rng)
                st[ring.qd_index[i]] = qd = _rational(rng)
                st[ring.qdd_index[i]] = _rational(rng)
                signs.append(1 if qd > 0 else -1)
            st.update(self.fixed)
            self.states.append(st)
            self.signs.append(signs)
        self.substitute_zeros(False)

    def substitute_zeros(self, zeros: bool) -> None:
        """Keep every geometry symbol (``zeros`` false) or set those valued 0 to 0."""
        ring = self.ring
        self.kept = [k for k in self.geometry if not (zeros and k in self.zero_valued)]
        self.dropped = [k for k in self.geometry if k not in self.kept]
        symbols = [ring.gen_exprs_raw[k] for k in self.kept] or [sp.Dummy("none")]
        self.domain = sp.QQ.poly_ring(*symbols)
        self._columns: dict[int, list] = {}

    def to_sympy(self, element) -> sp.Expr:
        return self.domain.to_sympy(element).xreplace(self.ring.atom_values)

    def value(self, element) -> float:
        """``element`` at the model's values."""
        vals = [self.values[k] for k in self.kept]
        return float(sum(float(c) * math.prod(v ** e for v, e in zip(vals, m, strict=False))
                         for m, c in element.terms()))

    def column(self, j: int) -> list:
        """Column ``j`` of ``Y`` on every sampled row (state-major), as domain elements."""
        if j in self._columns:
            return self._columns[j]
        n, ring = self.n, self.ring
        ring_dom = self.domain.ring
        out = []
        friction = friction_column(n, 0) <= j < armature_column(n, 0)
        for st, signs in zip(self.states, self.signs, strict=True):
            for i in range(n):
                if j in self.extras:
                    out.append(ring_dom(sp.QQ(1) if self.extras[j] == i else sp.QQ(0)))
                    continue
                if j in self.drives:  # N_ki (n_k . qd), N_ki sign(n_k . qd)
                    k, kind = self.drives[j]
                    rate = sum((x * st[ring.qd_index[a]] for a, x in enumerate(self.N[k])),
                               sp.QQ(0))
                    v = rate if kind == 0 else sp.QQ((rate > 0) - (rate < 0))
                    out.append(ring_dom(self.N[k][i] * v))
                    continue
                if friction:
                    joint, kind = divmod(j - friction_column(n, 0), len(FRICTION_PARAMETERS))
                    v = (st[ring.qd_index[i]] if kind == 0 else sp.QQ(signs[i])) \
                        if joint == i else sp.QQ(0)
                    out.append(ring_dom(v))
                    continue
                terms: dict[tuple, object] = {}
                for m, c in self.polys[i][j].iterterms():
                    if any(m[k] for k in self.dropped):
                        continue
                    v = c
                    for k, x in st.items():
                        if m[k]:
                            v *= x ** m[k]
                    key = tuple(m[k] for k in self.kept) or (0,)
                    terms[key] = terms.get(key, sp.QQ(0)) + v
                out.append(ring_dom.from_dict({m: c for m, c in terms.items() if c}))
        self._columns[j] = out
        return out


def motor_friction_columns(chain, width: int) -> tuple[dict, list]:
    """The columns ``Bm_k`` and ``Fm_k`` of a coupled transmission among ``width`` standard
    parameters (the last ``3 n``: ``Jm, Bm, Fm``), ``{column: (k, 0 or 1)}``, and ``N`` as
    exact rationals (:func:`~robodyn.symbolic.derivation.exact`); empty without one."""
    from .derivation import exact

    tr = getattr(chain, "transmission", None)
    if tr is None:
        return {}, []
    n = chain.dof
    start = width - 2 * n
    columns = {start + kind * n + k: (k, kind) for kind in (0, 1) for k in range(n)}
    return columns, [[sp.QQ.from_sympy(exact(x)) for x in row] for row in tr.N.tolist()]


def _rational(rng) -> sp.Expr:
    """A nonzero rational ``+-a/b``, ``a`` in 1..9, ``b`` in 1..4."""
    return sp.QQ(int(rng.integers(1, 10)) * int(rng.choice((-1, 1))), int(rng.integers(1, 5)))


def _evaluate(exact: sp.Matrix, values) -> np.ndarray:
    """A SymPy matrix at the model's values, as floats."""
    subs = {sp.Symbol(k): float(v) for k, v in values.items()}
    return np.array([[float(exact[r, c].xreplace(subs)) for c in range(exact.cols)]
                     for r in range(exact.rows)], dtype=float).reshape(exact.rows, exact.cols)


def _number(x: float) -> sp.Expr:
    """A coefficient as SymPy: an integer or a short rational when it is one to 1e-12."""
    r = sp.nsimplify(x, rational=True, tolerance=1e-12 * max(1.0, abs(x)))
    if isinstance(r, sp.Rational) and r.q <= 1000:
        return r
    return sp.Float(x, 12)


__all__ = ["Parameters", "BaseParameters", "inertial_parameters", "with_inertial_parameters",
           "base_parameters", "symbolic_parameters", "symbolic_beta", "random_states",
           "RANK_TOL"]
