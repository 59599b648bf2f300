"""Forward dynamics by the Cholesky factor of the inertia matrix.

``qdd = M(q)^{-1} (u - b)`` with ``b = C(q, qd) qd + g(q)`` from one Newton–Euler
pass at zero acceleration (Walker & Orin's method 1; Featherstone §6.1) and
``u = tau - F_v qd - F_s sign(qd) - J^T h_e`` (Siciliano eq. 7.83, seed 002).
``M = L L^T`` is factored and two triangular solves give ``qdd``: no inverse is
formed.
"""

from __future__ import annotations

from ..model.chain import Chain
from .crba import mass_matrix
from .rnea import rnea


def cholesky_solve(m: list[list], rhs: list, ops) -> list:
    """Solve ``M x = rhs`` for symmetric positive-definite ``M`` via ``M = L L^T``."""
    n = len(rhs)
    low = [[0] * n for _ in range(n)]
    for j in range(n):
        diag = m[j][j]
        for k in range(j):
            diag = diag - low[j][k] * low[j][k]
        low[j][j] = ops.sqrt(diag)
        inv = 1 / low[j][j]
        for i in range(j + 1, n):
            s = m[i][j]
            for k in range(j):
                s = s - low[i][k] * low[j][k]
            low[i][j] = s * inv
    y = [0] * n
    for i in range(n):
        s = rhs[i]
        for k in range(i):
            s = s - low[i][k] * y[k]
        y[i] = s / low[i][i]
    x = [0] * n
    for i in reversed(range(n)):
        s = y[i]
        for k in range(i + 1, n):
            s = s - low[k][i] * x[k]
        x[i] = s / low[i][i]
    return x


def forward_dynamics(chain: Chain, q, qd, u, ops) -> list:
    """Joint accelerations for generalised forces ``u`` (friction and contact already
    subtracted): ``M(q) qdd = u - C(q, qd) qd - g(q)``."""
    bias = rnea(chain, q, qd, [0] * chain.dof, ops)
    m = mass_matrix(chain, q, ops)
    return cholesky_solve(m, [ui - bi for ui, bi in zip(u, bias, strict=True)], ops)
