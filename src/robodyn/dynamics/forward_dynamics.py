"""Forward dynamics by the Cholesky factor of the inertia matrix.

``qdd = M(q)^{-1} (u - b)`` with ``b = C(q, qd) qd + g(q)`` from one Newton–Euler
pass at zero acceleration (Walker & Orin's method 1; Featherstone §6.1) and
``u = tau - F_v qd - F_s sign(qd) - J^T h_e`` (Siciliano et al., Robotics, eq. 7.83).
``M = L L^T`` is factored and two triangular solves give ``qdd``: no inverse is
formed.
"""

from __future__ import annotations

from numbers import Real

from ..core.errors import ModelError
from ..model.chain import Chain
from .crba import mass_matrix
from .friction import friction_torques
from .inverse_dynamics import contact_torques
from .rnea import rnea


def cholesky_solve(m: list[list], rhs: list, ops, labels=None) -> list:
    """Solve ``M x = rhs`` for symmetric positive-definite ``M`` via ``M = L L^T``.

    A pivot that is a plain number and not positive (a joint that moves no mass:
    ``M`` is singular) raises :class:`ModelError` naming joint ``labels[j]``; a
    pivot that depends on the inputs is checked by whoever runs the result.
    """
    n = len(rhs)
    low = [[0] * n for _ in range(n)]
    for j in range(n):
        diag = m[j][j]
        for k in range(j):
            diag = diag - low[j][k] * low[j][k]
        if isinstance(diag, Real) and not diag > 0:
            label = labels[j] if labels else f"joint {j + 1}"
            raise ModelError(
                f"the mass matrix is singular: its Cholesky pivot at {label} is {diag:g} for "
                "every q, so this joint moves no mass or inertia and its acceleration is "
                "undefined; give the links it moves a mass and inertia"
            )
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


def forward_dynamics(chain: Chain, q, qd, tau, ops, h_e=None) -> list:
    """Joint accelerations ``qdd`` for joint torques ``tau`` (and contact wrench ``h_e``)."""
    u = [t - f for t, f in zip(tau, friction_torques(chain, qd, ops), strict=True)]
    if h_e is not None:
        u = [a - c for a, c in zip(u, contact_torques(chain, q, h_e, ops), strict=True)]
    bias = rnea(chain, q, qd, [0] * chain.dof, ops)
    labels = [f"joint {j + 1} ({link.joint.name or link.name})"
              for j, link in enumerate(chain.links)]
    return cholesky_solve(mass_matrix(chain, q, ops), [a - b for a, b in zip(u, bias)], ops,
                          labels)
