"""Forward dynamics by the Cholesky factor of the inertia matrix.

``qdd = M(q)^{-1} (u - b)`` with ``b = C(q, qd) qd + g(q)`` from one Newton–Euler
pass at zero acceleration (Walker & Orin's method 1; Featherstone §6.1) and
``u = tau - F_v qd - F_s sign(qd) - J^T h_e`` (Siciliano et al., Robotics, eq. 7.83).
``M = L L^T`` is factored and two triangular solves give ``qdd``: no inverse is
formed.

A tree (``chain.parents``) factors ``M = L^T D L`` instead, in reverse order with the
parent array (Featherstone, *Rigid Body Dynamics Algorithms*, §6.5, Tables 6.3 and 6.4,
"LTDL"): ``L`` is unit lower triangular with the sparsity of ``M`` (``L_ij != 0`` only
for ``j`` an ancestor of ``i``), so there is no fill-in and the factorisation and the
solves walk only the ancestors of each joint; ``O(n d^2)`` for depth ``d`` instead of
``O(n^3)``. A serial chain keeps the dense Cholesky (the same numbers, bit for bit, as
before trees).
"""

from __future__ import annotations

from numbers import Real

from ..core.errors import ModelError
from ..model.chain import Chain
from .crba import mass_matrix
from .friction import friction_torques
from .inverse_dynamics import contact_torques
from .rnea import rnea


def cholesky_solve(m: list[list], rhs: list, ops, labels=None, pivots=None) -> list:
    """Solve ``M x = rhs`` for symmetric positive-definite ``M`` via ``M = L L^T``.

    A pivot that is a plain number and not positive (a joint that moves no mass:
    ``M`` is singular) raises :class:`ModelError` naming joint ``labels[j]``; a
    pivot that depends on the inputs is checked by whoever runs the result. ``pivots``, a
    list, receives each pivot ``L_jj^2`` (the caller's conditioning check).
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
        if pivots is not None:
            pivots.append(diag)
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


def _singular(label, diag):
    return ModelError(
        f"the mass matrix is singular: its pivot at {label} is {diag:g} for "
        "every q, so this joint moves no mass or inertia and its acceleration is "
        "undefined; give the links it moves a mass and inertia"
    )


def ltdl_factor(m: list[list], parents, ops, labels=None) -> list[list]:
    """``M = L^T D L`` for the mass matrix ``M`` of a tree with parent array ``parents``
    (Featherstone Table 6.3): a copy of ``M`` whose diagonal is ``D`` and whose entries
    ``[i][j]``, ``j`` an ancestor of ``i``, are ``L``'s (the unit diagonal implied). A
    pivot that is a plain number and not positive raises :class:`ModelError`."""
    n = len(m)
    h = [list(row) for row in m]
    for k in reversed(range(n)):
        if isinstance(h[k][k], Real) and not h[k][k] > 0:
            raise _singular(labels[k] if labels else f"joint {k + 1}", h[k][k])
        inv = 1 / h[k][k]
        i = parents[k]
        while i >= 0:
            a = h[k][i] * inv
            j = i
            while j >= 0:
                h[i][j] = h[i][j] - a * h[k][j]
                j = parents[j]
            h[k][i] = a
            i = parents[i]
    for i in range(n):  # the upper triangle is not part of the factor
        for j in range(i + 1, n):
            h[i][j] = 0
    return h


def ltdl_solve(h: list[list], parents, rhs: list) -> list:
    """``M^{-1} rhs`` from :func:`ltdl_factor`'s ``h`` (Featherstone Table 6.4:
    ``x = L^{-1} D^{-1} L^{-T} rhs``)."""
    n = len(rhs)
    x = list(rhs)
    for i in reversed(range(n)):  # L^-T
        j = parents[i]
        while j >= 0:
            x[j] = x[j] - h[i][j] * x[i]
            j = parents[j]
    x = [x[i] / h[i][i] for i in range(n)]
    for i in range(n):  # L^-1
        j = parents[i]
        while j >= 0:
            x[i] = x[i] - h[i][j] * x[j]
            j = parents[j]
    return x


def joint_labels(chain: Chain) -> list[str]:
    """``joint j (name)`` per velocity coordinate (a multi-value joint's with the
    coordinate's name), for the errors of a singular mass matrix."""
    return chain.velocity_labels()


def mass_solver(chain: Chain, m: list[list], ops, labels=None):
    """``solve(rhs) = M^{-1} rhs``: the dense Cholesky factor of ``M`` for a serial chain of
    one-value joints, else the sparse ``L^T D L`` factor over the tree of velocity
    coordinates (a multi-value joint a chain of its coordinates: no fill-in; module
    docstring), factored once."""
    if chain.is_serial and chain.single_valued:
        return lambda rhs: cholesky_solve(m, rhs, ops, labels)
    parents = chain.parent_indices if chain.single_valued else chain.velocity_parents()
    h = ltdl_factor(m, parents, ops, labels)
    return lambda rhs: ltdl_solve(h, parents, rhs)


def forward_dynamics(chain: Chain, q, qd, tau, ops, h_e=None, frames=None) -> list:
    """Joint accelerations ``qdd`` for joint torques ``tau`` (and contact wrench ``h_e``,
    per frame with ``frames``: :func:`~robodyn.dynamics.inverse_dynamics.contact_torques`)."""
    u = [t - f for t, f in zip(tau, friction_torques(chain, qd, ops), strict=True)]
    if h_e is not None:
        u = [a - c for a, c in zip(u, contact_torques(chain, q, h_e, ops, frames),
                                   strict=True)]
    bias = rnea(chain, q, qd, [0] * chain.nv, ops)
    solve = mass_solver(chain, mass_matrix(chain, q, ops), ops, joint_labels(chain))
    return solve([a - b for a, b in zip(u, bias)])
