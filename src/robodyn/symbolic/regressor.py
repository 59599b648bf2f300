"""The closed-form regressor: ``tau = Y(q, qd, qdd) pi`` with ``pi`` as symbols.

The core's one algorithm, :func:`robodyn.dynamics.regressor.regressor_full`, run on
the closed forms of the polynomial ring (as Newton–Euler runs
:func:`~robodyn.dynamics.rnea.rnea`), gives ``Y``; its friction columns are ``qd_j`` and
``sign(qd_j)``. ``pi`` are the standard parameters ``m1, mx1, ..., ZZ1, ..., Fv1, Fs1,
..., Ia_j`` (:mod:`robodyn.dynamics.regressor`), and ``values`` says what each is in
the model's own parameters (``ZZ1 = I1 + c1**2*m1``). :meth:`SymbolicRegressor.check`
proves ``Y pi(values) == tau`` in the ring: the normal form of the difference is 0.

A coupled transmission ``theta = N q`` adds, after those, each motor's ``Jm_k, Bm_k, Fm_k``
(Spong, Hutchinson & Vidyasagar §6.4): ``n_k^T (n_k . qdd)`` in the ring (``N`` and
``J_m`` as the exact decimals the closed forms' ``R = N^T J_m N`` is summed from), and the
friction columns ``n_k^T (n_k . qd)``, ``n_k^T sign(n_k . qd)`` as SymPy (:func:`drive_entries`).

**Any parameter vector** (Siciliano et al. (§7.4) write ``tau = y(q, qd, qdd) pi`` with
``pi = [m_l1, I_l1, m_l2, I_l2]``, the model's own symbols):
:func:`parameter_regressor` gives ``Y`` for any list of the model's symbols in which
``tau`` is linear. Every closed form is a polynomial in the ring's generators (the
parameters among them) with one normal form, so linearity is read off its terms: ``tau``
is linear in ``p_1..p_k`` when no term has degree 2 or more in them together (then
``d^2 tau / dp_i dp_j = 0`` for all ``i, j``), and ``Y_ij`` collects the terms of degree 1
in ``p_j``, divided by it. What is left, ``rest = tau - Y p``, has degree 0 in them; it
(and ``Y``) must not depend on a ``p_j`` through anything else either (a ``cos(alpha1)``
of a symbolic angle is an opaque generator): checked on the SymPy forms. ``rest`` is 0
when ``p`` holds every inertial parameter, as in Siciliano et al., §7.4.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import sympy as sp

from ..core.errors import ModelError
from ..dynamics.regressor import (
    EXTRA_FRICTION,
    TRANSMISSION_PARAMETERS,
    friction_column,
    parameter_columns,
    regressor_full,
    standard_parameters,
)
from ..model.expressions import to_sympy
from .derivation import exact, motor_rates, poly
from .simplify import polys_equal, textbook


@dataclass(frozen=True, eq=False)
class SymbolicRegressor:
    """``Y`` (SymPy ``n x p``), ``pi`` (``p x 1`` symbols), ``values`` (``{symbol:
    expression in the model's parameters}``). Unpacks as ``Y, pi = eq.regressor()``."""

    Y: sp.Matrix
    pi: sp.Matrix
    values: dict
    _eq: object
    _polys: list
    _pi_polys: list

    def __iter__(self):
        yield self.Y
        yield self.pi

    def check(self) -> bool:
        """``Y pi == tau`` exactly: the rigid-body and armature columns in the ring (every
        polynomial in normal form), the friction columns as SymPy expressions."""
        eq, d = self._eq, self._eq.derivation
        ring = d.ring
        n = eq.dof
        lhs = [ring.reduce(sum((y * p for y, p in zip(row, self._pi_polys, strict=True)),
                               ring.zero)) for row in self._polys]
        ring_ok = polys_equal(ring, lhs, list(d.tau))  # the rigid-body part: no wrench
        friction = sp.zeros(n, 1)
        for i, k in _friction_entries(eq.chain):  # Fv_j, then Fs_j, in joint j's row i
            friction[i] = (self.Y[i, k] * self.values[self.pi[k]]
                           + self.Y[i, k + 1] * self.values[self.pi[k + 1]])
        for i, k, _ in extra_entries(eq.chain):  # Fd_j, Fo_j
            friction[i] += self.Y[i, k] * self.values[self.pi[k]]
        for i, k, _ in drive_entries(eq.chain, eq.qd):  # Bm_k, Fm_k
            friction[i] += self.Y[i, k] * self.values[self.pi[k]]
        return bool(ring_ok) and _negligible(sp.expand(friction - eq.friction), eq.friction)


def _negligible(difference: sp.Matrix, friction: sp.Matrix) -> bool:
    """``difference`` is 0, or (Floats of a transmission multiplied in another order) its
    coefficients are below ``1e-12`` of the friction's largest."""
    if difference == sp.zeros(*difference.shape):
        return True
    scale = max((abs(float(c)) for f in friction for c in sp.Add.make_args(sp.expand(f))
                 for c in [c.as_coeff_Mul()[0]]), default=1.0)
    return all(abs(float(c.as_coeff_Mul()[0])) <= 1e-12 * scale
               for d in difference for c in sp.Add.make_args(d))


def _friction_entries(chain) -> list[tuple[int, int]]:
    """``(row, column of Fv_j)`` of every one-value joint ``j``: its row is its velocity
    coordinate (``j`` itself unless ball or free joints come first), ``Fs_j`` the next
    column; a ball or free joint has no friction columns."""
    links = chain.dof
    return [(k, friction_column(links, j))
            for j, (link, k) in enumerate(zip(chain.links, chain.v_offsets(), strict=True))
            if link.joint.model.single]


def extra_entries(chain) -> list[tuple[int, int, str]]:
    """``(row, column, kind)`` of the extra friction columns (``"Fd"``: ``sign(qd)^2``,
    ``"Fo"``: 1) in :func:`~robodyn.dynamics.regressor.parameter_columns`' order."""
    cols, names = parameter_columns(chain)
    rows = chain.v_offsets()
    out = []
    for k, name in enumerate(names):
        kind = name[:2]
        if kind in EXTRA_FRICTION:
            out.append((rows[int(name[2:]) - 1], k, kind))
    return out


def regressor_polynomials(eq) -> list[list]:
    """The rows of ``Y`` as polynomials of ``eq``'s ring (``eq.derivation.ring``), in the
    column order of :func:`~robodyn.dynamics.regressor.parameter_columns`; the friction
    entries (``qd_i``, ``sign(qd_i)``: not ring elements) are 0 here."""
    if getattr(eq.chain, "lugre", None) is not None:
        raise ModelError("regressor: LuGre friction F(qd, z) (lugre:) is not linear in its "
                         "parameters (sigma0 divides by g(qd)), so tau = Y pi has no columns "
                         "for it; derive the regressor of the model without lugre:")
    ring = eq.derivation.ring
    chain_r = ring.chain(eq.chain)
    q, qd, qdd = ring.joint_arguments()
    ops = SimpleNamespace(**{k: v for k, v in vars(ring.ops()).items() if k != "sign"},
                          sign=lambda x: 0)  # friction columns are set by the callers
    full = regressor_full(chain_r, q, qd, qdd, ops)
    cols, _ = parameter_columns(eq.chain)
    n = eq.dof
    width = len(full[0]) if full else 0  # the links' columns; a transmission's come after
    polys = [[poly(full[i][c], ring) if c < width else ring.zero for c in cols]
             for i in range(n)]
    for i, k in _friction_entries(eq.chain):
        polys[i][k] = polys[i][k + 1] = ring.zero
    for i, k, _ in extra_entries(eq.chain):
        polys[i][k] = ring.zero
    tr = getattr(eq.chain, "transmission", None)
    if tr is not None:  # Jm_k: n_k^T (n_k . qdd), exact (Bm, Fm: friction, set by the callers)
        N = [[ring.poly(exact(x)) for x in row] for row in tr.N.tolist()]
        gens = [ring.ring.gens[k] for k in ring.qdd_index]
        start = len(cols) - len(TRANSMISSION_PARAMETERS) * n
        for k, row in enumerate(N):
            rate = sum((x * g for x, g in zip(row, gens, strict=True)), ring.zero)
            for i in range(n):
                polys[i][start + k] = ring.reduce(rate * row[i])
    return polys


def drive_entries(chain, qd) -> list[tuple[int, int, sp.Expr]]:
    """``(row, column, entry)`` of the motors' friction columns of a coupled transmission
    (``[]`` without one): ``Bm_k``: ``N_ki (n_k . qd)``, ``Fm_k``: ``N_ki sign(n_k . qd)``,
    in :func:`~robodyn.dynamics.regressor.parameter_columns`' order, as the closed forms'
    friction spells them (:func:`~robodyn.symbolic.derivation.motor_rates`)."""
    tr = getattr(chain, "transmission", None)
    if tr is None:
        return []
    n = chain.dof
    N = tr.N.tolist()
    start = len(parameter_columns(chain)[0]) - len(TRANSMISSION_PARAMETERS) * n
    out = []
    for k, w in enumerate(motor_rates(tr, qd)):
        for i in range(n):
            if N[k][i]:
                out.append((i, start + n + k, sp.Float(N[k][i]) * w))
                out.append((i, start + 2 * n + k, sp.Float(N[k][i]) * sp.sign(w)))
    return out


def regressor(eq) -> SymbolicRegressor:
    """The regressor of the equations ``eq`` (module docstring)."""
    ring = eq.derivation.ring
    chain_r = ring.chain(eq.chain)
    _, names = parameter_columns(eq.chain)
    n = eq.dof
    polys = regressor_polynomials(eq)
    rows = [[textbook(ring, p) for p in polys[i]] for i in range(n)]
    for i, k in _friction_entries(eq.chain):
        rows[i][k] = eq.qd[i]
        rows[i][k + 1] = sp.sign(eq.qd[i])
    for i, k, kind in extra_entries(eq.chain):
        rows[i][k] = sp.sign(eq.qd[i]) ** 2 if kind == "Fd" else sp.S.One
    for i, k, entry in drive_entries(eq.chain, eq.qd):
        rows[i][k] = entry
    symbols = [sp.Symbol(name) for name in names]
    values = standard_parameters(eq.chain)
    drives = len(TRANSMISSION_PARAMETERS) * n if getattr(eq.chain, "transmission", None) else 0
    pi_polys = [poly(v, ring) for v in standard_parameters(chain_r)[:len(values) - drives]]
    pi_polys += [ring.poly(exact(v)) for v in values[len(values) - drives:]]  # the motors'
    return SymbolicRegressor(sp.Matrix(rows), sp.Matrix(symbols),
                             {s: sp.expand(to_sympy(v)) for s, v in zip(symbols, values,
                                                                          strict=True)},
                             eq, polys, pi_polys)


@dataclass(frozen=True, eq=False)
class ParameterRegressor:
    """``tau = Y p + rest``: ``Y`` (SymPy ``n x k``) in the parameters ``pi`` (``k x 1``,
    symbols of the model) and what does not depend on them, ``rest`` (``n x 1``, 0 when
    ``pi`` holds every term's parameter). Unpacks as ``Y, pi = eq.regressor(parameters=..)``.
    ``values`` maps each parameter to itself (the model's own symbols)."""

    Y: sp.Matrix
    pi: sp.Matrix
    rest: sp.Matrix
    _eq: object
    _polys: list
    _rest_polys: list
    _friction_Y: list
    _friction_rest: list

    def __iter__(self):
        yield self.Y
        yield self.pi

    @property
    def values(self) -> dict:
        return {p: p for p in self.pi}

    def check(self) -> bool:
        """``Y pi + rest == tau`` exactly: in the ring for the rigid-body part, as SymPy
        expressions for friction."""
        eq = self._eq
        d = eq.derivation
        ring = d.ring
        gens = [ring.gen(p) for p in self.pi]
        lhs = [ring.reduce(sum((y * p for y, p in zip(row, gens, strict=True)), ring.zero)
                           + rest) for row, rest in zip(self._polys, self._rest_polys,
                                                          strict=True)]
        if not polys_equal(ring, lhs, list(d.tau)):
            return False
        friction = [sp.expand(sum((self._friction_Y[i][j] * p for j, p in enumerate(self.pi)),
                                  sp.S.Zero) + self._friction_rest[i] - eq.friction[i])
                    for i in range(eq.dof)]
        return all(f == 0 for f in friction)


def _parameter_list(parameters, eq) -> list[sp.Symbol]:
    """The parameter symbols of ``parameters`` (a list of names, or one string
    ``"ml1,Il1"``), each a distinct parameter of ``eq``'s model."""
    from ..core.errors import InputError

    if isinstance(parameters, str):
        parameters = [p for p in parameters.replace(" ", "").split(",")]
    try:
        names = [str(p) for p in parameters]
    except TypeError:
        raise InputError(f"parameters: expected a list of the model's symbols, got "
                         f"{str(parameters)[:60]!r}") from None
    if not names or any(not n for n in names):
        raise InputError("parameters: give one or more of the model's symbols, e.g. "
                         "parameters=['m1', 'I1'] (CLI: --parameters m1,I1)")
    model = sorted(str(s) for s in eq.params)
    joint = {str(s) for s in (*eq.q, *eq.qd, *eq.qdd)}
    seen = set()
    for name in names:
        shown = name if len(name) <= 40 else name[:40] + "..."
        if name in joint:
            raise InputError(f"parameters: {shown!r} is a joint variable or rate, not a "
                             "parameter; Y holds the motion, pi the model's constants")
        if name not in model:
            raise InputError(f"parameters: {shown!r} is not a symbol of {eq.name}; its "
                             f"symbols: {', '.join(model) or '(none)'}")
        if name in seen:
            raise InputError(f"parameters: {shown!r} is listed twice")
        seen.add(name)
    return [sp.Symbol(n) for n in names]


def parameter_regressor(eq, parameters) -> ParameterRegressor:
    """``tau = Y pi + rest`` for the model symbols ``parameters`` (module docstring).

    Raises :class:`~robodyn.core.errors.InputError` naming the symbol (or the pair) in which
    ``tau`` is not linear, with the joint and one offending term."""
    from ..core.errors import InputError

    ring = eq.derivation.ring
    pi = _parameter_list(parameters, eq)
    gens = list(ring.ring.gens)
    # a symbol only inside an opaque atom (cos(alpha1)) has no generator: degree 0 here,
    # caught by the check of the SymPy forms below
    index = [gens.index(ring.gen_of[p]) if p in ring.gen_of else None for p in pi]
    n, k = eq.dof, len(pi)
    Y = [[ring.zero] * k for _ in range(n)]
    rest = [ring.zero] * n
    for i, tau_i in enumerate(eq.derivation.tau):
        for monom, coeff in tau_i.terms():
            degrees = [0 if x is None else monom[x] for x in index]
            if sum(degrees) > 1:
                term = ring.expr(ring.ring({monom: coeff}))
                which = [str(p) for p, d in zip(pi, degrees, strict=True) if d]
                what = (f"{which[0]}: a term has {which[0]}**{max(degrees)}" if len(which) == 1
                        else f"{' and '.join(which)} together: a term has their product")
                fix = ("leave one of them out" if len(which) > 1 else
                       f"leave {which[0]} out (a length or an angle enters squared or "
                       "through a cosine; masses and inertias enter linearly)")
                raise InputError(f"parameters: tau is not linear in {what} (tau{i + 1} has "
                                 f"{str(term)[:80]}); {fix}, or use the standard parameters "
                                 "(eq.regressor())")
            if sum(degrees) == 0:
                rest[i] += ring.ring({monom: coeff})
                continue
            j = degrees.index(1)
            lowered = list(monom)
            lowered[index[j]] -= 1
            Y[i][j] += ring.ring({tuple(lowered): coeff})
    friction_Y, friction_rest = [], []
    for i in range(n):
        f = sp.expand(eq.friction[i])
        row = [sp.diff(f, p) for p in pi]
        for a, p in enumerate(pi):
            for b in range(a, k):
                if sp.diff(row[a], pi[b]) != 0:
                    raise InputError(f"parameters: tau is not linear in {p}: the friction "
                                     f"torque {i + 1} is {str(f)[:80]}")
        friction_Y.append(row)
        friction_rest.append(sp.expand(f - sum((y * p for y, p in zip(row, pi, strict=True)),
                                               sp.S.Zero)))
    Y_sp = sp.Matrix([[textbook(ring, Y[i][j]) + friction_Y[i][j] for j in range(k)]
                      for i in range(n)])
    rest_sp = sp.Matrix([textbook(ring, rest[i]) + friction_rest[i] for i in range(n)])
    chosen = set(pi)
    for name, matrix in (("Y", Y_sp), ("tau - Y pi", rest_sp)):
        hidden = sorted(map(str, matrix.free_symbols & chosen))
        if hidden:  # through an opaque atom such as cos(alpha1)
            raise InputError(f"parameters: tau is not linear in {hidden[0]}: {name} still "
                             f"depends on it (through a function of it, e.g. a cosine)")
    return ParameterRegressor(Y_sp, sp.Matrix(pi), rest_sp, eq, Y, rest, friction_Y,
                              friction_rest)


__all__ = ["regressor", "regressor_polynomials", "parameter_regressor", "drive_entries",
           "SymbolicRegressor", "ParameterRegressor"]
