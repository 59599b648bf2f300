"""Joint-space inertia matrix by the composite-rigid-body algorithm.

``M_ij = S_i^T I^C_j S_j`` for ``i <= j`` (Featherstone, *Rigid Body Dynamics
Algorithms*, §6.2, eq. 6.13, for a chain), with ``S_i`` the motion axis of
joint ``i`` and ``I^C_j = sum_{k >= j} I_k`` the inertia of links ``j..n``, all in
the base frame. This equals the Lagrangian ``B(q) = sum_i m_i J_P^T J_P +
J_O^T R_i I_i R_i^T J_O`` of Siciliano eq. 7.17 (seed 002) at a fraction of
the cost of ``dof`` Newton–Euler passes.
"""

from __future__ import annotations

from ..model.chain import Chain
from .kinematics import link_poses
from .spatial import add_inertia, base_frame_terms, composite, inertia_times, pair


def mass_matrix(chain: Chain, q, ops, poses=None) -> list[list]:
    """``M(q)`` as a list of ``dof`` rows of scalars (symmetric)."""
    poses = poses or link_poses(chain, q, ops)
    axes, bodies = base_frame_terms(chain, poses)
    composites = composite([b[:3] for b in bodies], add_inertia)
    n = chain.dof
    m = [[None] * n for _ in range(n)]
    for j in range(n):
        force = inertia_times(composites[j], axes[j])
        for i in range(j + 1):
            m[i][j] = m[j][i] = pair(axes[i], force)
    return m
