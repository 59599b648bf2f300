"""Spatial (6D) vectors and inertias in the base frame, on scalars.

Featherstone's notation (*Rigid Body Dynamics Algorithms*, ch. 2), all about the
base-frame origin ``O``: a motion ``(w, v)`` is an angular velocity and the
velocity of the body point at ``O``; a force ``(n, f)`` a moment about ``O`` and
a force. A rigid-body inertia is kept as ``(m, h, Ibar)``: mass, first moment
``h = m c`` and rotational inertia about ``O``, i.e. the 6x6 matrix
``[[Ibar, [h]x], [-[h]x, m 1]]``. Its time derivative has the same form with
``m = 0``, so derivatives and sums of inertias stay in this compact form.
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..model.chain import REVOLUTE, Chain, link_bodies
from ..model.joints import joint_columns


def motion_subspace(joint, rot, origin):
    """Joint motion axis ``S`` in the base frame: ``(z, o × z)`` revolute, ``(0, z)`` prismatic."""
    z = la.matvec(rot, joint.axis)
    if joint.type == REVOLUTE:
        return z, la.cross(origin, z)
    return la.ZERO3, z


def motion_columns(joint, rot, origin) -> list:
    """The columns of the joint's motion subspace ``S`` in the base frame, one per velocity
    coordinate: a rotation about the base-frame axis ``z`` through the link origin ``o`` is
    ``(z, o × z)``, a translation along ``z`` is ``(0, z)``."""
    if joint.model.single:
        return [motion_subspace(joint, rot, origin)]
    out = []
    for angular, linear in joint_columns(joint):
        if angular is la.ZERO3:
            out.append((la.ZERO3, la.matvec(rot, linear)))
        else:
            z = la.matvec(rot, angular)
            out.append((z, la.cross(origin, z)))
    return out


def body_inertia(link, rot, origin):
    """``(m, h, Ibar)`` of a link in the base frame, ``Ibar`` about ``O``, summed over its
    bodies (:func:`~robodyn.model.chain.link_bodies`: the body, then its point masses):
    ``Ibar = sum I_cb + m_b(|c_b|^2 1 - c_b c_b^T)`` with each body's mass ``m_b``, centre
    of mass ``c_b`` and inertia ``I_cb`` about it."""
    m, h, ibar = 0, la.ZERO3, ((0, 0, 0),) * 3
    for body in link_bodies(link):
        c = la.add(origin, la.matvec(rot, body.com))
        i_c = la.rotate_tensor(rot, body.inertia)
        m = m + body.mass
        h = la.add(h, la.scale(body.mass, c))
        ibar = la.mat_add(ibar, la.mat_add(i_c, la.point_mass_tensor(body.mass, c)))
    return m, h, ibar


def inertia_times(inertia, motion):
    """``I u`` for an inertia ``(m, h, Ibar)`` and a motion ``(w, v)``: a force."""
    m, h, ibar = inertia
    w, v = motion
    return (la.add(la.matvec(ibar, w), la.cross(h, v)),
            la.sub(la.scale(m, v), la.cross(h, w)))


def inertia_rate(inertia, motion):
    """``dI/dt = u ×* I - I u×`` of an inertia ``(m, h, Ibar)`` moving with the motion
    ``u = (w, v)``, in the compact form (zero mass, symmetric): ``h' = w × h + m v`` and
    ``Ibar' = [w]x Ibar - Ibar [w]x - (h v^T + v h^T - 2 (v · h) 1)``."""
    m, h, ibar = inertia
    w, v = motion
    spin = la.matmul(((0, -w[2], w[1]), (w[2], 0, -w[0]), (-w[1], w[0], 0)), ibar)
    vh = 2 * la.dot(v, h)
    rate = [[None] * 3 for _ in range(3)]
    for r in range(3):
        for k in range(r, 3):
            rate[r][k] = rate[k][r] = (spin[r][k] + spin[k][r] - h[r] * v[k] - v[r] * h[k]
                                       + (vh if r == k else 0))
    rate = tuple(tuple(row) for row in rate)
    return 0, la.add(la.cross(w, h), la.scale(m, v)), rate


def pair(motion, force):
    """The scalar product ``u · f`` of a motion and a force (power)."""
    return la.dot(motion[0], force[0]) + la.dot(motion[1], force[1])


def cross_motion(a, b):
    """``a × b`` for motions (Featherstone's ``crm``)."""
    return la.cross(a[0], b[0]), la.add(la.cross(a[0], b[1]), la.cross(a[1], b[0]))


def cross_force(a, f):
    """``a ×* f`` for a motion ``a`` and a force ``f`` (Featherstone's ``crf``)."""
    return la.add(la.cross(a[0], f[0]), la.cross(a[1], f[1])), la.cross(a[0], f[1])


def add_inertia(a, b):
    return a[0] + b[0], la.add(a[1], b[1]), la.mat_add(a[2], b[2])


def add_pair(a, b):
    return la.add(a[0], b[0]), la.add(a[1], b[1])


def scale_pair(s, a):
    return la.scale(s, a[0]), la.scale(s, a[1])


def composite(items, add, parents=None):
    """Suffix sums ``sum_{k >= i} items[k]`` (composite bodies of a chain), or with
    ``parents`` (a tree's parent array) the sums over each link's subtree."""
    out = list(items)
    if parents is None:
        for i in reversed(range(len(out) - 1)):
            out[i] = add(out[i], out[i + 1])
        return out
    for i in reversed(range(len(out))):
        if parents[i] >= 0:
            out[parents[i]] = add(out[parents[i]], out[i])
    return out


def base_frame_terms(chain: Chain, poses):
    """Motion axes ``S_i`` (one-value joints) and base-frame inertias of every link."""
    axes = [motion_subspace(link.joint, rot, o) for link, (rot, o) in zip(chain.links, poses)]
    bodies = [body_inertia(link, rot, o) for link, (rot, o) in zip(chain.links, poses)]
    return axes, bodies


def base_frame_columns(chain: Chain, poses):
    """The motion columns (:func:`motion_columns`, a list per link) and base-frame
    inertias of every link."""
    columns = [motion_columns(link.joint, rot, o) for link, (rot, o) in zip(chain.links, poses)]
    bodies = [body_inertia(link, rot, o) for link, (rot, o) in zip(chain.links, poses)]
    return columns, bodies
