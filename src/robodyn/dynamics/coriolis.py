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
from ..model.joints import FREE
from . import spatial as sx
from .kinematics import link_poses


def coriolis_matrix(chain: Chain, q, qd, ops, poses=None) -> list[list]:
    """``C(q, qd)`` as a list of ``nv`` rows of scalars. A free joint on the world (a
    floating base) is evaluated at its zero: with its velocity in its own frame, ``C`` does
    not depend on where the subtree it moves is (a rigid motion of that subtree leaves
    every product of its motions and inertias as it is), and the base's identity pose
    spares the program the rotation of every term (Solo-12's ``C``: 9042 -> 5157
    statements)."""
    if poses is None:
        if not chain.single_valued:
            q = _free_roots_at_zero(chain, q)
        poses = link_poses(chain, q, ops)
    return spatial_coriolis(chain, poses, qd)


def _free_roots_at_zero(chain: Chain, q) -> list:
    """``q`` with the configuration of every free joint on the world at its zero."""
    q = list(q)
    for i, (link, k) in enumerate(zip(chain.links, chain.q_offsets(), strict=True)):
        if link.joint.type == FREE and chain.parent(i) < 0:
            q[k:k + 7] = [0, 0, 0, 0, 0, 0, 1]
    return q


def spatial_coriolis(chain: Chain, poses, qd) -> list[list]:
    """``C`` from the link poses in the base frame (module docstring). A multi-value joint
    (spherical, free) has its columns fixed in its link (``dS = v_link × S``): a free-flying
    base is the root body of six such columns, every joint's support (Pinocchio's
    ``computeCoriolisMatrix`` gives the same ``C`` for its ``JointModelFreeFlyer``)."""
    columns, bodies = sx.base_frame_columns(chain, poses)
    n = chain.dof
    root = (la.ZERO3, la.ZERO3)
    rates_qd = chain.per_joint(qd)
    column_rates, rates, momenta, velocities = [], [], [], []
    for j in range(n):
        parent = chain.parent(j)
        velocity = velocities[parent] if parent >= 0 else root
        own = rates_qd[j] if isinstance(rates_qd[j], tuple) else (rates_qd[j],)
        for s, v in zip(columns[j], own, strict=True):
            velocity = sx.add_pair(velocity, sx.scale_pair(v, s))
        velocities.append(velocity)
        # a joint's columns are fixed in its link: dS = v_link × S
        column_rates.append([sx.cross_motion(velocity, s) for s in columns[j]])
        rates.append(sx.inertia_rate(bodies[j], velocity))
        momenta.append(sx.inertia_times(bodies[j], velocity))
    parents = chain.parent_indices
    g = sx.composite(bodies, sx.add_inertia, parents)
    d = sx.composite(rates, sx.add_inertia, parents)
    h = sx.composite(momenta, sx.add_pair, parents)

    offsets = chain.v_offsets()
    size = chain.nv
    out = [[0] * size for _ in range(size)]  # a tree: zero unless one joint supports the other
    for j in range(n):
        support = chain.ancestors(j)[::-1]  # the base's side first, j last
        for b, (s, ds) in enumerate(zip(columns[j], column_rates[j], strict=True)):
            half_ds = _half(sx.inertia_times(d[j], s))
            half_sh = _half(sx.cross_force(s, h[j]))
            upper = sx.add_pair(sx.add_pair(sx.inertia_times(g[j], ds), half_ds), half_sh)
            col = offsets[j] + b
            for i in support:  # within joint j's own block too: both use j's composites
                for a, s_a in enumerate(columns[i]):
                    out[offsets[i] + a][col] = sx.pair(s_a, upper)
            p = sx.inertia_times(g[j], s)
            qv = sx.add_pair(half_ds, sx.scale_pair(-1, half_sh))
            for k in support[:-1]:
                for a, (s_a, ds_a) in enumerate(zip(columns[k], column_rates[k], strict=True)):
                    out[col][offsets[k] + a] = sx.pair(ds_a, p) + sx.pair(s_a, qv)
    return out


def _half(a):
    # division, not 0.5 *, keeps SymPy results exact (Rational 1/2)
    return tuple(x / 2 for x in a[0]), tuple(x / 2 for x in a[1])
