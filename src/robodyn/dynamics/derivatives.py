"""Derivatives of the dynamics by forward-mode automatic differentiation.

Every algorithm of :mod:`robodyn.dynamics` is a straight-line program on scalars,
so it can be run on *dual numbers* ``x + sum_k x'_k e_k`` (``e_k e_l = 0``): a
:class:`Dual` carries a value and a tangent vector, and each operation applies
the chain rule to the tangents::

    (a, a') + (b, b') = (a + b, a' + b')        (a, a') (b, b') = (ab, a b' + a' b)
    (a, a') / (b, b') = (a/b, (a' - (a/b) b') / b)
    sin(a, a') = (sin a, cos a · a'),   cos(a, a') = (cos a, -sin a · a')
    sqrt(a, a') = (sqrt a, a' / (2 sqrt a)),   sign(a, a') = (sign a, 0)
    exp(a, a') = (exp a, exp a · a'),   tanh(a, a') = (tanh a, (1 - tanh^2 a) a')

The value and tangent parts are themselves the tracer's scalars, so running an
algorithm on duals whose values are the kernel's inputs records the derivative
into the same compiled kernel (constant folding drops the tangents that are
exactly zero: a link's pose does not depend on the joints after it). Seeding
``q_j`` with the unit tangent ``e_j`` gives ``d/dq_j`` of every output at once
(Griewank & Walther, *Evaluating Derivatives*, ch. 3).

Coulomb friction ``F_s sign(qd)`` is differentiated as 0: exact away from
``qd = 0``, where it is not differentiable.

The inverse dynamics' ``dtau/dq`` and ``dtau/dqd`` without a contact wrench are not
taken this way but by the analytical recursion of
:mod:`robodyn.dynamics.rnea_derivatives` (a third fewer statements for the Panda); the
dual route stays for the wrench's ``J^T h_e``, for ``dM/dq`` and ``dJ/dt``, and as the
tests' second opinion.

Forward dynamics uses the identity of Carpentier & Mansard (RSS 2018, eq. 9):
with ``qdd = FD(q, qd, tau)`` and ``ID(q, qd, FD(q, qd, tau)) = tau``,
``dFD/dx = -M^{-1} dID/dx`` for ``x = q, qd`` and ``dFD/dtau = M^{-1}``, solved
with the Cholesky factor of ``M``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.chain import Chain
from ..model.joints import joint_configuration_rate
from .crba import mass_matrix
from .dual import Dual, DualOps, seeded
from .forward_dynamics import forward_dynamics, mass_solver
from .inverse_dynamics import inverse_dynamics
from .kinematics import jacobian
from .rnea_derivatives import rnea_derivatives


def seeded_configuration(chain: Chain, q: Sequence, width: int, offset: int) -> list:
    """Duals of the configuration ``q`` whose tangent direction ``offset + k`` is the
    velocity coordinate ``k`` (``nv`` of them): ``dq/dv_k``, a unit vector for one-value
    joints, the quaternion's ``1/2 q ⊗ (e_k, 0)`` (a free joint's position ``R e_k``), so a
    dual pass differentiates along the tangent space, as Pinocchio's derivatives do."""
    if chain.single_valued:
        return seeded(q, width, offset)
    out: list = []
    qs, v_offsets = chain.per_joint(q, velocity=False), chain.v_offsets()
    for link, qj, kv in zip(chain.links, qs, v_offsets, strict=True):
        joint = link.joint
        if joint.model.single:
            out += seeded([qj], width, offset + kv)
            continue
        values = list(qj)
        tangents = [[0.0] * width for _ in values]
        for k in range(joint.nv):
            unit = [1.0 if i == k else 0.0 for i in range(joint.nv)]
            for r, x in enumerate(joint_configuration_rate(joint.type, values, unit)):
                tangents[r][offset + kv + k] = x
        out += [Dual(x, tuple(t)) for x, t in zip(values, tangents, strict=True)]
    return out


def tangent(x, k: int):
    """Direction ``k`` of the tangent of ``x`` (0 for a value that is not a dual)."""
    return x.t[k] if isinstance(x, Dual) else 0.0


def _id_jacobians(chain: Chain, q, qd, qdd, ops, h_e=None, frames=None):
    """``(dtau/dq, dtau/dqd)``, each ``[i][j] = dtau_i/dx_j``: the analytical recursion
    (:func:`~robodyn.dynamics.rnea_derivatives.rnea_derivatives`) without a wrench, else
    :func:`dual_id_jacobians`."""
    if h_e is None:
        return tuple(rnea_derivatives(chain, q, qd, qdd, ops)[:2])
    return dual_id_jacobians(chain, q, qd, qdd, ops, h_e, frames)


def dual_id_jacobians(chain: Chain, q, qd, qdd, ops, h_e=None, frames=None):
    """``(dtau/dq, dtau/dqd)`` of :func:`inverse_dynamics` in one dual pass seeded on ``q``
    and ``qd`` (``2 dof`` directions): the wrench's ``J^T h_e`` included."""
    n = chain.nv
    dual = DualOps(ops)
    tau = inverse_dynamics(chain, seeded_configuration(chain, q, 2 * n, 0), seeded(qd, 2 * n, n),
                           list(qdd), dual, h_e=h_e, frames=frames)
    d_q = [[tangent(tau[i], j) for j in range(n)] for i in range(n)]
    d_qd = [[tangent(tau[i], n + j) for j in range(n)] for i in range(n)]
    return d_q, d_qd


def inverse_dynamics_derivatives(chain: Chain, q, qd, qdd, ops, h_e=None, frames=None) -> list:
    """``[dtau/dq, dtau/dqd, dtau/dqdd]`` of :func:`inverse_dynamics`, each ``[i][j] =
    dtau_i/dx_j``; ``dtau/dqdd = M(q)`` (the equation is linear in ``qdd``). Without a
    wrench all three come from the analytical recursion of
    :mod:`robodyn.dynamics.rnea_derivatives`; with one, the dual pass and the
    composite-rigid-body ``M``."""
    if h_e is None:
        return rnea_derivatives(chain, q, qd, qdd, ops)
    d_q, d_qd = dual_id_jacobians(chain, q, qd, qdd, ops, h_e, frames)
    return [d_q, d_qd, mass_matrix(chain, q, ops)]


def forward_dynamics_derivatives(chain: Chain, q, qd, tau, ops, h_e=None, frames=None) -> list:
    """``[dqdd/dq, dqdd/dqd, dqdd/dtau]`` of :func:`forward_dynamics`: with
    ``qdd = FD(q, qd, tau)``, ``dqdd/dx = -M^{-1} dtau/dx`` (``x = q, qd``, the inverse
    dynamics' derivatives at ``qdd``) and ``dqdd/dtau = M^{-1}`` (Carpentier & Mansard
    2018), every column a solve with the same factor (Cholesky; a tree's ``L^T D L``)."""
    qdd = forward_dynamics(chain, q, qd, tau, ops, h_e=h_e, frames=frames)
    d_q, d_qd = _id_jacobians(chain, q, qd, qdd, ops, h_e, frames)
    m = mass_matrix(chain, q, ops)  # recorded once: the tape shares it with the solve above
    return fd_from_id_derivatives(d_q, d_qd, mass_solver(chain, m, ops))


def fd_from_id_derivatives(d_q, d_qd, solve) -> list:
    """``[-M^-1 dtau/dq, -M^-1 dtau/dqd, M^-1]`` (Carpentier & Mansard 2018, eq. 9) from
    the inverse dynamics' ``dtau/dq``, ``dtau/dqd`` (``[i][j] = dtau_i/dx_j``) and
    ``solve(rhs) = M^-1 rhs``, a column at a time."""
    n = len(d_q)

    def solve_columns(columns, sign):
        cols = [solve([sign * col[i] for i in range(n)]) for col in columns]
        return [[cols[j][i] for j in range(n)] for i in range(n)]

    d_q_cols = [[d_q[i][j] for i in range(n)] for j in range(n)]
    d_qd_cols = [[d_qd[i][j] for i in range(n)] for j in range(n)]
    unit = [[1.0 if i == j else 0.0 for i in range(n)] for j in range(n)]
    return [solve_columns(d_q_cols, -1.0), solve_columns(d_qd_cols, -1.0),
            solve_columns(unit, 1.0)]


def mass_matrix_derivatives(chain: Chain, q, ops) -> list:
    """``dM/dq`` as ``[i][j][k] = dM_ij/dq_k`` (one dual pass of the composite-rigid-body
    algorithm seeded on ``q``; along the velocity coordinates for a multi-value joint)."""
    n = chain.nv
    m = mass_matrix(chain, seeded_configuration(chain, q, n, 0), DualOps(ops))
    return [[[tangent(m[i][j], k) for k in range(n)] for j in range(n)] for i in range(n)]


def jacobian_derivative(chain: Chain, q, qd, ops, frame: int | None = None) -> list:
    """``Jdot = dJ/dt = sum_k dJ/dq_k qd_k``: the geometric Jacobian (of the end effector,
    or of frame number ``frame``) run on duals ``q + qd ε`` (one direction), rows ``(v, w)``
    as :func:`jacobian`."""
    if chain.single_valued:
        duals = [Dual(qi, (vi,)) for qi, vi in zip(q, qd, strict=True)]
    else:  # the configuration's rate dq/dt along qd
        duals = []
        for link, qj, vj in zip(chain.links, chain.per_joint(q, velocity=False),
                                chain.per_joint(qd), strict=True):
            if link.joint.model.single:
                duals.append(Dual(qj, (vj,)))
            else:
                rate = joint_configuration_rate(link.joint.type, list(qj), list(vj))
                duals += [Dual(x, (r,)) for x, r in zip(qj, rate, strict=True)]
    jac = jacobian(chain, duals, DualOps(ops), frame=frame)
    return [[tangent(x, 0) for x in row] for row in jac]
