"""Forward dynamics of a closed mechanism as one straight-line program (the exported kernel).

The tree's equations with the loop forces ``lambda`` (Featherstone, "Rigid Body Dynamics
Algorithms", §8.3; :mod:`robodyn.dynamics.constrained` for the notation)

    M qdd + h = tau + K^T lambda,        K qdd + k = 0,

``h = tau_tree(q, qd, 0)`` (Coriolis, gravity, friction), ``K`` the closures' Jacobian rows
and ``k = Kdot qd`` their drift, are solved by the Schur complement of ``M`` (§8.3, eq.
8.14-8.15): with ``a0 = M^-1 (tau - h)`` and ``X = M^-1 K^T``,

    (K X) lambda = -k - K a0,        qdd = a0 + X lambda.

``M`` and ``K X`` are symmetric positive definite for a mechanism whose closures are
independent, so both solves are Cholesky factorisations written out for the model's size:
no pivoting, no loop, no branch, which a tracer records and every export language prints.
:meth:`ClosedChain.forward_dynamics <robodyn.dynamics.constrained.ClosedChain.forward_dynamics>`
(the KKT system with the rank of ``K`` found numerically) is the reference it equals.

A closure row that is zero for every ``q`` (the ``z`` row of a ``position`` closure of a
planar mechanism) has no force: it is left out of the solve and its ``lambda`` is 0, the
least-norm loop force :class:`~robodyn.dynamics.constrained.ClosedChain` gives too. Rows
that depend on each other only at some configurations (a singular mechanism) make ``K X``
singular there: the program's result is then not finite, which the caller checks. Near
such a configuration it is finite but loses digits (a Cholesky pivot ``d_r`` of ``K X``
small against its trace: a row nearly dependent on the earlier ones in ``M^-1``'s metric,
or nearly zero against the others; the relative error grows as ``eps tr(K X) / d_r``);
with ``pivots=True`` the program also gives each ratio ``d_r / tr(K X)`` (at least
``lambda_min / (m lambda_max)`` of ``K X``, about ``eps`` or not finite where ``K`` loses
rank), which the compiled tier's caller (:mod:`robodyn.codegen.closed_kernel`) compares
with a threshold.
"""

from __future__ import annotations

from functools import partial
from numbers import Real

from ..core.errors import InputError
from ..model.chain import Chain
from ..model.loops import CLOSURE_ROWS
from .crba import mass_matrix
from .derivatives import jacobian_derivative
from .forward_dynamics import cholesky_solve
from .inverse_dynamics import inverse_dynamics
from .kinematics import frame_names, jacobian, link_poses
from .registry import KernelSpec

__all__ = ["closed_forward_dynamics", "closure_rows", "closed_spec", "CLOSED"]

#: The forward dynamics of a closed mechanism as a kernel: exported on request and compiled
#: for :class:`~robodyn.dynamics.constrained.ClosedChain` (no registry entry: a tree without
#: loops has none).
CLOSED = "closed_forward_dynamics"


def closure_rows(kind: str) -> range:
    """The rows of a frame's ``(v, w)`` Jacobian a closure of ``kind`` constrains."""
    return range(CLOSURE_ROWS[kind])  # position: v; planar: v_x, v_y; pose: v, w


def _zero(x) -> bool:
    return isinstance(x, Real) and x == 0


def closed_forward_dynamics(chain: Chain, q, qd, tau, ops, loops, pivots: bool = False) -> list:
    """``[qdd (nv values), lambda (one per closure row)]`` of the closed mechanism of
    ``loops`` (:class:`~robodyn.model.loops.Loop`), the tree's joint torques ``tau`` given
    (zero at the passive joints); with ``pivots``, then per closure row the ratio
    ``d_r / tr(K X)`` of the Schur complement's Cholesky pivot to its trace (1 for a row
    left out). Module docstring for the equations."""
    n = chain.nv
    names = frame_names(chain)
    M = mass_matrix(chain, q, ops)
    h = inverse_dynamics(chain, q, qd, [0] * n, ops)
    poses = link_poses(chain, q, ops)
    K, k, kept = [], [], []
    for loop in loops:
        a, b = names.index(loop.frame_a), names.index(loop.frame_b)
        ja, jb = jacobian(chain, q, ops, poses, a), jacobian(chain, q, ops, poses, b)
        da, db = jacobian_derivative(chain, q, qd, ops, a), jacobian_derivative(chain, q, qd,
                                                                                 ops, b)
        for r in closure_rows(loop.kind):
            row = [ja[r][j] - jb[r][j] for j in range(n)]
            drift = 0
            for j in range(n):
                drift = drift + (da[r][j] - db[r][j]) * qd[j]
            kept.append(not all(_zero(x) for x in row))
            if kept[-1]:
                K.append(row)
                k.append(drift)
    a0 = cholesky_solve(M, [t - b for t, b in zip(tau, h, strict=True)], ops)
    X = [cholesky_solve(M, row, ops) for row in K]  # X[c] = M^-1 K_c^T
    m = len(K)

    def dot(u, v):
        s = 0
        for x, y in zip(u, v, strict=True):
            s = s + x * y
        return s

    lam, piv, ratios = [], [], []
    if m:
        schur = [[dot(K[r], X[c]) for c in range(m)] for r in range(m)]
        lam = cholesky_solve(schur, [-k[r] - dot(K[r], a0) for r in range(m)], ops,
                             pivots=piv)
        trace = 0
        for r in range(m):
            trace = trace + schur[r][r]
        ratios = [d / trace for d in piv]
    qdd = [a0[i] + dot([X[c][i] for c in range(m)], lam) for i in range(n)]
    forces, it, conditions, rt = [], iter(lam), [], iter(ratios)
    for keep in kept:
        forces.append(next(it) if keep else 0)
        conditions.append(next(rt) if keep else 1.0)
    return [*qdd, *forces, *(conditions if pivots else [])]


def closed_spec(chain: Chain, pivots: bool = False) -> KernelSpec:
    """The kernel :data:`CLOSED` of ``chain``'s loops: inputs ``q, qd, tau`` (the tree's
    torques, zero at the passive joints), result ``[qdd, lambda]`` (``nv`` + one value per
    closure row; with ``pivots`` the ratios of :func:`closed_forward_dynamics` after them,
    as many as ``chain_rows(chain)`` gives, known once traced)."""
    closures = chain.closures
    if closures is None or not closures.loops:
        raise InputError(f"functions: {CLOSED} is the forward dynamics of a closed "
                         "mechanism; this model has no loop closures ('loops:' in a model "
                         "file)")
    if closures.couplings:
        raise InputError(f"functions: {CLOSED} of a model with coupled joints is not "
                         "exported yet; its loops without the couplings are, or use "
                         "robot.closed_chain().forward_dynamics")
    rows = sum(len(closure_rows(loop.kind)) for loop in closures.loops) * (1 + pivots)
    return KernelSpec(partial(closed_forward_dynamics, loops=closures.loops, pivots=pivots),
                      ("q", "qd", "tau"), lambda n, links: (n + rows,), name=CLOSED,
                      doc="qdd and the loop forces lambda: M qdd + h = tau + K^T lambda, "
                          "K qdd + Kdot qd = 0", output="qdd_lambda")
