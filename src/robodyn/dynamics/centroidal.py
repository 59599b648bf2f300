"""Centroidal momentum ``h_G = A_G(q) v`` (Orin, Goswami & Lee, "Centroidal dynamics of a
humanoid robot", Autonomous Robots 35, 2013; Pinocchio's ``ccrba``).

With every link's inertia and motion columns in the base (world) frame
(:mod:`robodyn.dynamics.spatial`), the column of velocity coordinate ``k`` of the spatial
momentum about the world origin is the composite inertia of the subtree that the
coordinate moves times its motion axis, ``I^C_j S_k`` (the force of the composite-rigid-body
algorithm, Featherstone §6.2), a moment ``n`` and a force ``f``. Moved to the centre of mass
``c = h / m`` of the whole system::

    A_G[:, k] = (f, n - c × f)

rows the linear momentum and the angular momentum about the centre of mass, world axes. A
fixed base has it too: the momentum of the moving links.
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..model.chain import Chain
from .kinematics import link_poses
from .spatial import add_inertia, base_frame_columns, composite, inertia_times


def centroidal_matrix(chain: Chain, q, ops) -> list[list]:
    """``A_G(q)``, ``6 x nv``: ``h_G = A_G v`` (module docstring)."""
    columns, bodies = base_frame_columns(chain, link_poses(chain, q, ops))
    composites = composite(bodies, add_inertia, chain.parent_indices)
    whole = None
    for root in chain.children(-1):
        whole = composites[root] if whole is None else add_inertia(whole, composites[root])
    c = la.scale(1 / whole[0], whole[1])  # the centre of mass
    cols = []
    for j, own in enumerate(columns):
        for s in own:
            moment, force = inertia_times(composites[j], s)
            cols.append((*force, *la.sub(moment, la.cross(c, force))))
    return [[col[r] for col in cols] for r in range(6)]


def centroidal_momentum(chain: Chain, q, qd, ops) -> list:
    """``h_G = A_G(q) v``: linear momentum, then angular momentum about the centre of mass,
    world axes."""
    return [sum(a * b for a, b in zip(row, qd, strict=True))
            for row in centroidal_matrix(chain, q, ops)]
