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
neither supports the other are zero. Viscous friction adds ``F_v`` to ``dtau/dqd`` and a
motor's rotor ``G^2 J_m`` to ``M_ii``; Coulomb friction is differentiated as 0 (as in
:mod:`robodyn.dynamics.derivatives`). Pinocchio's ``computeRNEADerivatives`` implements the
same recursion; this one, traced, is what the derivative kernels run.
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..model.chain import Chain
from .kinematics import link_poses
from .spatial import (
    add_inertia,
    add_pair,
    base_frame_terms,
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
    docstring), each a list of ``dof`` rows ``[i][k] = dtau_i/dx_k``."""
    n = chain.dof
    axes, bodies = base_frame_terms(chain, link_poses(chain, q, ops))
    rest = (la.ZERO3, la.ZERO3)
    base_acceleration = (la.ZERO3, la.neg(chain.gravity))
    velocities, accelerations, forces, momenta, rates, psi, phi = [], [], [], [], [], [], []
    for j in range(n):
        parent = chain.parent(j)
        v_p = velocities[parent] if parent >= 0 else rest
        a_p = accelerations[parent] if parent >= 0 else base_acceleration
        s = axes[j]
        v = add_pair(v_p, scale_pair(qd[j], s))
        psi_j = cross_motion(v_p, s)  # = v_j × S_j = dS_j/dt
        a = add_pair(add_pair(a_p, scale_pair(qdd[j], s)), scale_pair(qd[j], psi_j))
        inertia = bodies[j]
        h = inertia_times(inertia, v)
        velocities.append(v)
        accelerations.append(a)
        momenta.append(h)
        forces.append(add_pair(inertia_times(inertia, a), cross_force(v, h)))
        rates.append(inertia_rate(inertia, v))
        psi.append(psi_j)
        phi.append(add_pair(cross_motion(a_p, s), scale_pair(-1, cross_motion(psi_j, v_p))))
    parents = chain.parent_indices
    g = composite(bodies, add_inertia, parents)
    d = composite(rates, add_inertia, parents)
    big_h = composite(momenta, add_pair, parents)
    f = composite(forces, add_pair, parents)

    d_q = [[0] * n for _ in range(n)]
    d_qd = [[0] * n for _ in range(n)]
    m = [[0] * n for _ in range(n)]
    for i in reversed(range(n)):  # the tips first, as the composites were summed (4 % faster C)
        s = axes[i]
        p_i = inertia_times(g[i], s)
        s_h = cross_force(s, big_h[i])
        q_i = add_pair(inertia_times(d[i], s), scale_pair(-1, s_h))
        for k in chain.ancestors(i):  # i itself, then towards the base
            p_psi = pair(psi[k], p_i)
            d_q[i][k] = pair(phi[k], p_i) + pair(psi[k], q_i)
            d_qd[i][k] = 2 * p_psi + pair(axes[k], q_i)
            m[i][k] = pair(axes[k], p_i)
        # Y_i = dF_i/dq_i and Z_i = dF_i/dqd_i (module docstring), for the joints below i
        y = add_pair(add_pair(cross_force(s, f[i]), inertia_times(g[i], phi[i])),
                     add_pair(cross_force(psi[i], big_h[i]), inertia_times(d[i], psi[i])))
        z = add_pair(q_i, scale_pair(2, add_pair(inertia_times(g[i], psi[i]), s_h)))
        for k in chain.ancestors(i)[1:]:  # joints that support i, i excluded
            d_q[k][i] = pair(axes[k], y)
            d_qd[k][i] = pair(axes[k], z)
            m[k][i] = pair(axes[k], p_i)
    for i, link in enumerate(chain.links):
        d_qd[i][i] = d_qd[i][i] + link.friction.viscous
        m[i][i] = m[i][i] + link.motor.armature
    return [d_q, d_qd, m]
