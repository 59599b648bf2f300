"""Coriolis/centrifugal matrix ``C(q, qd)`` in Christoffel form.

``C_ij = sum_k c_ijk qd_k`` with the Christoffel symbols of the first kind
``c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)`` (Siciliano et al.,
Robotics, eq. 7.44), so that ``dM/dt - 2C`` is skew-symmetric (ibid. §7.3.1).

Computed without differentiating ``M``, in O(n^2), from the spatial form
``C = sum_k J_k^T (I_k dJ_k/dt + B_k J_k)``, ``B_k = 1/2 (dI_k/dt + (I_k v_k)x̄)``
(Echeandia & Wensing, "Numerical methods to compute the Coriolis matrix and
Christoffel symbols for rigid-body systems", 2021, which shows this ``B`` gives
the Christoffel ``C``; Pinocchio's ``computeCoriolisMatrix`` uses the same
form). For a chain, with composites over links ``k >= m``
(``G = I^C``, ``D = dI^C/dt``, ``H = sum I_k v_k``) and ``m = max(i, j)``::

    C_ij = S_i^T (G_m dS_j + 1/2 D_m S_j + 1/2 S_j ×* H_m)

where ``dS_j = v_j × S_j``. Rows ``i > j`` are evaluated in the transposed form
``dS_j^T (G_i S_i) + S_j^T (1/2 D_i S_i - 1/2 S_i ×* H_i)`` so that each link
contributes two force vectors.

A tree: ``J_k`` has columns only for the ancestors of ``k``, so ``C_ij`` sums over the
links that both ``i`` and ``j`` support. That is the subtree of ``m``, the one of the two
that descends from the other (the larger index, parents being listed first); the
composites are subtree sums, the velocities come from each link's parent, and
``C_ij = 0`` exactly when neither joint supports the other.
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..model.chain import Chain
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


def coriolis_matrix(chain: Chain, q, qd, ops, poses=None) -> list[list]:
    """``C(q, qd)`` as a list of ``nv`` rows of scalars."""
    return spatial_coriolis(chain, poses or link_poses(chain, q, ops), qd)


#: The six motion axes of a free-flying base in its own frame, in the order of its
#: velocity ``(v_x, v_y, v_z, w_x, w_y, w_z)``: motions ``(w, v)``.
BASE_AXES = tuple((la.ZERO3, e) for e in la.IDENTITY3) + tuple((e, la.ZERO3) for e in la.IDENTITY3)


def spatial_coriolis(chain: Chain, poses, qd, floating: bool = False) -> list[list]:
    """``C`` from the link poses in the base frame (module docstring).

    ``floating``: the base is a free-flying body (``chain.floating_base``) and ``qd`` the
    ``nv = dof + 6`` velocity ``[v, w (base frame), joint rates]``; ``C`` is then
    ``nv x nv``. The base is one more body, at the root of the tree, whose six axes are
    fixed in it (:data:`BASE_AXES`, ``dS = v_base × S``), every joint's support; the formula
    is evaluated in the inertial frame that coincides with the base frame at this instant,
    so the base's pose does not enter (Pinocchio's ``computeCoriolisMatrix`` gives the same
    ``C`` for its ``JointModelFreeFlyer``).
    """
    columns, bodies = base_frame_columns(chain, poses)
    n = chain.dof
    offset = 6 if floating else 0
    root = (tuple(qd[3:6]), tuple(qd[0:3])) if floating else (la.ZERO3, la.ZERO3)
    rates_qd = chain.per_joint(qd[offset:])
    column_rates, rates, momenta, velocities = [], [], [], []
    for j in range(n):
        parent = chain.parent(j)
        velocity = velocities[parent] if parent >= 0 else root
        own = rates_qd[j] if isinstance(rates_qd[j], tuple) else (rates_qd[j],)
        for s, v in zip(columns[j], own, strict=True):
            velocity = add_pair(velocity, scale_pair(v, s))
        velocities.append(velocity)
        # a joint's columns are fixed in its link: dS = v_link × S
        column_rates.append([cross_motion(velocity, s) for s in columns[j]])
        rates.append(inertia_rate(bodies[j], velocity))
        momenta.append(inertia_times(bodies[j], velocity))
    parents = chain.parent_indices
    g = composite(bodies, add_inertia, parents)
    d = composite(rates, add_inertia, parents)
    h = composite(momenta, add_pair, parents)

    offsets = [offset + k for k in chain.v_offsets()]
    size = chain.nv + offset
    out = [[0] * size for _ in range(size)]  # a tree: zero unless one joint supports the other
    if floating:  # the base body and everything on it: the composites of the root
        body = chain.floating_base
        m, c = body.mass, body.com
        g0 = (m, la.scale(m, c), la.mat_add(body.inertia, la.point_mass_tensor(m, c)))
        d0 = inertia_rate(g0, root)
        h0 = inertia_times(g0, root)
        for j in chain.children(-1):
            g0, d0, h0 = add_inertia(g0, g[j]), add_inertia(d0, d[j]), add_pair(h0, h[j])
        base_rates = [cross_motion(root, s) for s in BASE_AXES]
        for b, (s, ds) in enumerate(zip(BASE_AXES, base_rates)):
            upper = add_pair(add_pair(inertia_times(g0, ds), _half(inertia_times(d0, s))),
                             _half(cross_force(s, h0)))
            for a, s_a in enumerate(BASE_AXES):
                out[a][b] = pair(s_a, upper)
    for j in range(n):
        support = chain.ancestors(j)[::-1]  # the base's side first, j last
        for b, (s, ds) in enumerate(zip(columns[j], column_rates[j], strict=True)):
            half_ds = _half(inertia_times(d[j], s))
            half_sh = _half(cross_force(s, h[j]))
            upper = add_pair(add_pair(inertia_times(g[j], ds), half_ds), half_sh)
            col = offsets[j] + b
            for i in support:  # within joint j's own block too: both use j's composites
                for a, s_a in enumerate(columns[i]):
                    out[offsets[i] + a][col] = pair(s_a, upper)
            p = inertia_times(g[j], s)
            qv = add_pair(half_ds, scale_pair(-1, half_sh))
            for k in support[:-1]:
                for a, (s_a, ds_a) in enumerate(zip(columns[k], column_rates[k], strict=True)):
                    out[col][offsets[k] + a] = pair(ds_a, p) + pair(s_a, qv)
            if floating:  # the base's axes support every joint
                for a, (s_a, ds_a) in enumerate(zip(BASE_AXES, base_rates)):
                    out[a][col] = pair(s_a, upper)
                    out[col][a] = pair(ds_a, p) + pair(s_a, qv)
    return out


def _half(a):
    # division, not 0.5 *, keeps SymPy results exact (Rational 1/2)
    return tuple(x / 2 for x in a[0]), tuple(x / 2 for x in a[1])
