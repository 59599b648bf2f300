"""Analytical derivatives of the recursive Newton–Euler torques, ``dtau/dq``, ``dtau/dqd``
and ``dtau/dqdd = M``, in one outward and one inward pass.

Carpentier & Mansard, "Analytical derivatives of rigid body dynamics algorithms" (RSS 2018),
in the base frame (Featherstone's spatial notation, :mod:`robodyn.dynamics.spatial`):
with ``S_j`` the motion axis of joint ``j``, ``p(j)`` its parent, ``a_0 = (0, -g0)``::

    v_j = v_p + S_j qd_j,   a_j = a_p + S_j qdd_j + (v_j × S_j) qd_j
    f_j = I_j a_j + v_j ×* (I_j v_j),   tau_i = S_i · F_i,   F_i = sum_{j in subtree(i)} f_j

A joint ``k`` turns everything beyond it about ``S_k`` (``dS_j/dq_k = S_k × S_j``,
``dI_j/dq_k = S_k ×* I_j - I_j S_k×``); what is not a rigid turn is carried by the two
motions of joint ``k``::

    Psi_k = v_p(k) × S_k,    Phi_k = a_p(k) × S_k - Psi_k × v_p(k)

so that ``dv_j/dq_k = S_k × v_j + Psi_k``, ``da_j/dq_k = S_k × a_j + Phi_k + Psi_k × v_j``,
``dv_j/dqd_k = S_k``, ``da_j/dqd_k = S_k × v_j + 2 Psi_k`` for every ``j`` beyond ``k``.
With the subtree composites ``G_m = sum I_j`` (the composite inertia), ``D_m = sum dI_j/dt``
(``dI/dt = v ×* I - I v×``, symmetric) and ``H_m = sum I_j v_j`` (the momentum), and per
joint ``P_i = G_i S_i``, ``Q_i = D_i S_i - S_i ×* H_i``::

    k supports i (k = i too):  dtau_i/dq_k  = P_i · Phi_k + Q_i · Psi_k
                               dtau_i/dqd_k = 2 P_i · Psi_k + Q_i · S_k
                               M_ik         = P_i · S_k
    i supports k (i != k):     dtau_i/dq_k  = S_i · Y_k,   dtau_i/dqd_k = S_i · Z_k
                               M_ik         = S_i · P_k

with ``Y_k = dF_k/dq_k = S_k ×* F_k + G_k Phi_k + Psi_k ×* H_k + D_k Psi_k`` and
``Z_k = dF_k/dqd_k = 2 G_k Psi_k + D_k S_k + S_k ×* H_k = Q_k + 2 (G_k Psi_k + S_k ×* H_k)``
(the rigid turn of ``S_i`` and of ``F_i`` cancel when ``k`` supports ``i``:
``(S_k × S_i) · F = -S_i · (S_k ×* F)``). In a tree the entries of two joints of which
neither supports the other are zero. A joint of several values (spherical, free) has one
column ``S_k`` per velocity coordinate, fixed in its link: the formulas hold column by
column with ``Psi_k = v_p × S_k`` (the parent's velocity), every pair of its own columns
taken as "``k`` supports ``i``", and ``2 Psi_k`` less ``S_k × (v_j - v_p)`` in the
``qd`` derivatives (its columns turn with the link); the ``q`` derivatives are along the
velocity coordinates (the tangent space, as Pinocchio's). Viscous friction adds ``F_v`` to
``dtau/dqd`` and a motor's rotor ``G^2 J_m`` to ``M_ii``; Coulomb friction is
differentiated as 0 (as in :mod:`robodyn.dynamics.derivatives`); the other terms of
:mod:`robodyn.dynamics.friction` (Stribeck, the smooth sign) add their exact derivative
(:func:`~robodyn.dynamics.friction.joint_friction_rate`). Pinocchio's
``computeRNEADerivatives`` implements the same recursion; this one, traced, is what the
derivative kernels run.
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..model.chain import Chain
from ..model.friction import is_zero
from .friction import joint_friction_rate
from .kinematics import link_poses
from .spatial import (
    add_inertia,
    add_pair,
    base_frame_columns,
    composite,
    cross_force,
    cross_motion,
    inertia_rate,
    inertia_times,
    pair,
    scale_pair,
)


def rnea_derivatives(chain: Chain, q, qd, qdd, ops) -> list:
    """``[dtau/dq, dtau/dqd, M(q)]`` of the Newton–Euler torques with friction (module
    docstring), each a list of ``nv`` rows ``[i][k] = dtau_i/dx_k``; a multi-value joint's
    ``q`` derivatives are along its velocity coordinates (the tangent space, Pinocchio's
    convention)."""
    n = chain.dof
    columns, bodies = base_frame_columns(chain, link_poses(chain, q, ops))
    rates_qd, rates_qdd = chain.per_joint(qd), chain.per_joint(qdd)
    offsets = chain.v_offsets()
    rest = (la.ZERO3, la.ZERO3)
    base_acceleration = (la.ZERO3, la.neg(chain.gravity))
    velocities, accelerations, forces, momenta, rates = [], [], [], [], []
    axes, psi, phi, psi_qd = [], [], [], []  # per velocity coordinate
    for j in range(n):
        parent = chain.parent(j)
        v_p = velocities[parent] if parent >= 0 else rest
        a_p = accelerations[parent] if parent >= 0 else base_acceleration
        own = columns[j]
        single = len(own) == 1
        vel = (rates_qd[j],) if single else rates_qd[j]
        acc = (rates_qdd[j],) if single else rates_qdd[j]
        v = v_p
        for s, r in zip(own, vel, strict=True):
            v = add_pair(v, scale_pair(r, s))
        a = a_p
        own_psi = []
        for s, r, rr in zip(own, vel, acc, strict=True):
            psi_k = cross_motion(v_p, s)  # = v_j × S_j = dS_j/dt for a one-value joint
            a = add_pair(add_pair(a, scale_pair(rr, s)), scale_pair(r, psi_k))
            own_psi.append(psi_k)
        inertia = bodies[j]
        h = inertia_times(inertia, v)
        velocities.append(v)
        accelerations.append(a)
        momenta.append(h)
        forces.append(add_pair(inertia_times(inertia, a), cross_force(v, h)))
        rates.append(inertia_rate(inertia, v))
        axes += own
        psi += own_psi
        phi += [add_pair(cross_motion(a_p, s), scale_pair(-1, cross_motion(psi_k, v_p)))
                for s, psi_k in zip(own, own_psi, strict=True)]
        if single:
            psi_qd.append(None)
        else:
            # the columns of a multi-value joint turn with its link: da/dqd_k loses
            # S_k × (v_j - v_p) against a one-value joint's S_k × v_j + 2 Psi_k
            relative = (la.sub(v[0], v_p[0]), la.sub(v[1], v_p[1]))
            psi_qd += [add_pair(scale_pair(2, psi_k), scale_pair(-1, cross_motion(s, relative)))
                       for s, psi_k in zip(own, own_psi, strict=True)]
    parents = chain.parent_indices
    g = composite(bodies, add_inertia, parents)
    d = composite(rates, add_inertia, parents)
    big_h = composite(momenta, add_pair, parents)
    f = composite(forces, add_pair, parents)

    size = chain.nv
    d_q = [[0] * size for _ in range(size)]
    d_qd = [[0] * size for _ in range(size)]
    m = [[0] * size for _ in range(size)]
    coordinates = [range(offsets[j], offsets[j] + len(columns[j])) for j in range(n)]
    for i in reversed(range(n)):  # the tips first, as the composites were summed (4 % faster C)
        for ci in coordinates[i]:
            s = axes[ci]
            p_i = inertia_times(g[i], s)
            s_h = cross_force(s, big_h[i])
            q_i = add_pair(inertia_times(d[i], s), scale_pair(-1, s_h))
            for k in chain.ancestors(i):  # i itself (its whole block), then towards the base
                for ck in coordinates[k]:
                    if psi_qd[ck] is None:
                        p_psi = pair(psi[ck], p_i)
                        d_q[ci][ck] = pair(phi[ck], p_i) + pair(psi[ck], q_i)
                        d_qd[ci][ck] = 2 * p_psi + pair(axes[ck], q_i)
                    else:
                        d_q[ci][ck] = pair(phi[ck], p_i) + pair(psi[ck], q_i)
                        d_qd[ci][ck] = pair(psi_qd[ck], p_i) + pair(axes[ck], q_i)
                    m[ci][ck] = pair(axes[ck], p_i)
            # Y_i = dF_i/dq_i and Z_i = dF_i/dqd_i (module docstring), for the joints below i
            y = add_pair(add_pair(cross_force(s, f[i]), inertia_times(g[i], phi[ci])),
                         add_pair(cross_force(psi[ci], big_h[i]), inertia_times(d[i], psi[ci])))
            if psi_qd[ci] is None:
                z = add_pair(q_i, scale_pair(2, add_pair(inertia_times(g[i], psi[ci]), s_h)))
            else:
                z = add_pair(add_pair(q_i, inertia_times(g[i], psi_qd[ci])), scale_pair(2, s_h))
            for k in chain.ancestors(i)[1:]:  # joints that support i, i excluded
                for ck in coordinates[k]:
                    d_q[ck][ci] = pair(axes[ck], y)
                    d_qd[ck][ci] = pair(axes[ck], z)
                    m[ck][ci] = pair(axes[ck], p_i)
    for i, link in enumerate(chain.links):
        if len(columns[i]) == 1:
            k = offsets[i]
            d_qd[k][k] = d_qd[k][k] + joint_friction_rate(link.friction, qd[k], ops)
            m[k][k] = m[k][k] + link.motor.armature
        else:  # a ball's damping and armature, on each of its dofs (friction_torques)
            for k in range(offsets[i], offsets[i] + len(columns[i])):
                if not is_zero(link.friction.viscous):
                    d_qd[k][k] = d_qd[k][k] + link.friction.viscous
                if not is_zero(link.motor.armature):
                    m[k][k] = m[k][k] + link.motor.armature
    return [d_q, d_qd, m]
