"""Joint-space inertia matrix by the composite-rigid-body algorithm.

Featherstone, *Rigid Body Dynamics Algorithms*, §6.2 (Table 6.2), for a tree
(``p(i)`` the parent of link ``i``; ``i - 1`` in a serial chain), in link coordinates::

    I^C_i = I_i + sum over children k of X_k^T I^C_k X_k      (inward)
    f = I^C_j S_j,   M_jj = S_j^T f,   then for i = p(j), p(p(j)), ... (j's ancestors):
    f <- X_child^T f,   M_ij = M_ji = S_i^T f

and ``M_ij = 0`` exactly when neither link supports the other (the tree's sparsity).

with ``S_i`` the joint axis as a motion in link frame ``i`` (``(z, 0)`` revolute,
``(0, z)`` prismatic) and inertias about the link origins. This equals the
Lagrangian ``B(q) = sum_i m_i J_P^T J_P + J_O^T R_i I_i R_i^T J_O`` of Siciliano
eq. 7.17 (Siciliano et al., Robotics) at a fraction of the cost of ``dof`` Newton–Euler passes.
A joint's motor adds its reflected rotor inertia ``G_j^2 J_mj`` to ``M_jj``.
Link coordinates keep each step sparse (a joint's rotation has four
``cos``/``sin`` entries), which the generated code exploits.
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..model.chain import Chain, origin_inertia
from ..model.friction import is_zero
from ..model.joints import joint_columns
from .kinematics import joint_transform
from .spatial import add_inertia, inertia_times, pair


def local_inertia(link):
    """``(m, h, Ibar)`` of a link (its body and point masses) about its own frame's
    origin, in its frame."""
    return origin_inertia(link)


def to_parent_inertia(inertia, rot, origin):
    """An inertia ``(m, h, Ibar)`` about a child frame's origin, expressed in the parent
    frame about the parent's origin (``rot``, ``origin``: the child frame in the parent).

    ``Ibar' = R Ibar R^T + m(|p|^2 1 - p p^T) + 2 (p·h') 1 - h' p^T - p h'^T`` with
    ``h' = R h`` (parallel-axis theorem for a shift ``p`` of the reference point).
    """
    m, h, ibar = inertia
    h_rot = la.matvec(rot, h)
    ph = 2 * la.dot(origin, h_rot)
    shift = la.point_mass_tensor(m, origin)
    moved = la.rotate_tensor(rot, ibar)
    out = tuple(
        tuple(moved[r][k] + shift[r][k] + (ph if r == k else 0)
              - h_rot[r] * origin[k] - origin[r] * h_rot[k] for k in range(3))
        for r in range(3)
    )
    return m, la.add(h_rot, la.scale(m, origin)), out


def to_parent_force(force, rot, origin):
    """A force ``(n, f)`` in a child frame, expressed in the parent frame."""
    f = la.matvec(rot, force[1])
    return la.add(la.matvec(rot, force[0]), la.cross(origin, f)), f


def local_axis(joint):
    """A one-value joint's motion axis in its own link frame: ``(z, 0)`` revolute,
    ``(0, z)`` prismatic."""
    return joint_columns(joint)[0]


def mass_matrix(chain: Chain, q, ops) -> list[list]:
    """``M(q)`` as a list of ``nv`` rows of scalars (symmetric); a multi-value joint's
    columns are those of its motion subspace ``S`` (a block ``S^T I^C S`` on the diagonal)."""
    n = chain.dof
    values = chain.per_joint(q, velocity=False)
    frames = [joint_transform(link.joint, qi, ops) for link, qi in zip(chain.links, values)]
    composite = [local_inertia(link) for link in chain.links]
    for i in reversed(range(n)):
        parent = chain.parent(i)
        if parent >= 0:
            composite[parent] = add_inertia(composite[parent],
                                            to_parent_inertia(composite[i], *frames[i]))
    columns = [joint_columns(link.joint) for link in chain.links]
    offsets = chain.v_offsets()
    size = chain.nv
    m = [[0] * size for _ in range(size)]  # a tree: M_ij = 0 exactly unless one supports the other
    for j in range(n):
        for a, axis in enumerate(columns[j]):
            col = offsets[j] + a
            force = inertia_times(composite[j], axis)
            for b in range(a + 1):  # the joint's own block, mirrored
                m[offsets[j] + b][col] = m[col][offsets[j] + b] = pair(columns[j][b], force)
            armature = chain.links[j].motor.armature
            if len(columns[j]) == 1 or not is_zero(armature):  # a ball's: on each dof
                m[col][col] = m[col][col] + armature
            child, i = j, chain.parent(j)
            while i >= 0:
                force = to_parent_force(force, *frames[child])
                for b, other in enumerate(columns[i]):
                    row = offsets[i] + b
                    m[row][col] = m[col][row] = pair(other, force)
                child, i = i, chain.parent(i)
    return m
