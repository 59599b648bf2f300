"""The closed-form regressor: ``tau = Y(q, qd, qdd) pi`` with ``pi`` as symbols.

The core's one algorithm, :func:`robodyn.dynamics.regressor.regressor_full`, run on
the closed forms of the polynomial ring (as Newton–Euler runs
:func:`~robodyn.dynamics.rnea.rnea`), gives ``Y``; its friction columns are ``qd_j`` and
``sign(qd_j)``. ``pi`` are the standard parameters ``m1, mx1, ..., ZZ1, ..., Fv1, Fs1,
..., Ia_j`` (:mod:`robodyn.dynamics.regressor`), and ``values`` says what each is in
the model's own parameters (``ZZ1 = I1 + c1**2*m1``). :meth:`SymbolicRegressor.check`
proves ``Y pi(values) == tau`` in the ring: the normal form of the difference is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import sympy as sp

from ..dynamics.regressor import (
    friction_column,
    parameter_columns,
    regressor_full,
    standard_parameters,
)
from ..model.expressions import to_sympy
from .derivation import poly
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
        columns = [friction_column(n, i) for i in range(n)]  # Fv_i, then Fs_i
        friction = sp.Matrix([self.Y[i, k] * self.values[self.pi[k]]
                              + self.Y[i, k + 1] * self.values[self.pi[k + 1]]
                              for i, k in enumerate(columns)])
        return bool(ring_ok) and sp.expand(friction - eq.friction) == sp.zeros(n, 1)


def regressor_polynomials(eq) -> list[list]:
    """The rows of ``Y`` as polynomials of ``eq``'s ring (``eq.derivation.ring``), in the
    column order of :func:`~robodyn.dynamics.regressor.parameter_columns`; the friction
    entries (``qd_i``, ``sign(qd_i)``: not ring elements) are 0 here."""
    ring = eq.derivation.ring
    chain_r = ring.chain(eq.chain)
    q, qd, qdd = ring.joint_arguments()
    ops = SimpleNamespace(**{k: v for k, v in vars(ring.ops()).items() if k != "sign"},
                          sign=lambda x: 0)  # friction columns are set by the callers
    full = regressor_full(chain_r, q, qd, qdd, ops)
    cols, _ = parameter_columns(eq.chain)
    n = eq.dof
    polys = [[poly(full[i][c], ring) for c in cols] for i in range(n)]
    for i in range(n):
        k = friction_column(n, i)
        polys[i][k] = polys[i][k + 1] = ring.zero
    return polys


def regressor(eq) -> SymbolicRegressor:
    """The regressor of the equations ``eq`` (module docstring)."""
    ring = eq.derivation.ring
    chain_r = ring.chain(eq.chain)
    _, names = parameter_columns(eq.chain)
    n = eq.dof
    polys = regressor_polynomials(eq)
    rows = []
    for i in range(n):
        row = [textbook(ring, p) for p in polys[i]]
        k = friction_column(n, i)
        row[k] = eq.qd[i]
        row[k + 1] = sp.sign(eq.qd[i])
        rows.append(row)
    symbols = [sp.Symbol(name) for name in names]
    values = standard_parameters(eq.chain)
    pi_polys = [poly(v, ring) for v in standard_parameters(chain_r)]
    return SymbolicRegressor(sp.Matrix(rows), sp.Matrix(symbols),
                             {s: sp.expand(to_sympy(v)) for s, v in zip(symbols, values,
                                                                          strict=True)},
                             eq, polys, pi_polys)


__all__ = ["regressor", "regressor_polynomials", "SymbolicRegressor"]
