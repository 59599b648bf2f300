"""Forward dynamics by the articulated-body algorithm (Featherstone, *Rigid Body Dynamics
Algorithms*, §7.3, Table 7.1), for a chain or a tree, in link coordinates.

Three passes over the links, ``p`` the parent of link ``i``, ``X_i`` the motion transform
from the parent's coordinates to link ``i``'s, ``S_i`` the joint axis as a motion in link
``i`` (``(z, 0)`` revolute, ``(0, z)`` prismatic), motions ``(w, v)`` and forces ``(n, f)``
about the link origin::

    v_i = X_i v_p + S_i qd_i,   c_i = v_i × S_i qd_i,
    I^A_i = I_i,   p^A_i = v_i ×* I_i v_i                          (outward)
    U_i = I^A_i S_i,   D_i = S_i^T U_i (+ armature),   u_i = tau_i - S_i^T p^A_i,
    I^A_p += X_i^T (I^A_i - U_i U_i^T / D_i) X_i,
    p^A_p += X_i^T (p^A_i + I^a_i c_i + U_i u_i / D_i)             (inward)
    a'_i = X_i a_p + c_i,   qdd_i = (u_i - U_i^T a'_i) / D_i,
    a_i = a'_i + S_i qdd_i                                           (outward)

with gravity entered as the base acceleration ``a_0 = (0, -g0)``. An articulated
inertia is kept in blocks ``[[A, B], [B^T, C]]`` (``n = A w + B v``, ``f = B^T w + C v``);
a rigid body ``(m, h, Ibar)`` is ``A = Ibar, B = [h]x, C = m 1``. Moved to the parent by
``X^T I X``: rotated, ``A' = R A R^T`` (likewise ``B``, ``C``), then shifted by the
child's origin ``r``: ``A_p = A' - B'[r]x + [r]x B'^T - [r]x C' [r]x``,
``B_p = B' + [r]x C'``, ``C_p = C'``.

``forward_dynamics`` (:mod:`.forward_dynamics`) is the one the kernels run; this is the
alternative measured against it on trees (benchmarks/bench_trees.py).
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..core.errors import ModelError
from ..model.chain import REVOLUTE, Chain, origin_inertia
from .friction import friction_torques
from .inverse_dynamics import contact_torques
from .kinematics import joint_transform


def _skew(r):
    return ((0, -r[2], r[1]), (r[2], 0, -r[0]), (-r[1], r[0], 0))


def _sub(a, b):
    return tuple(tuple(x - y for x, y in zip(ra, rb)) for ra, rb in zip(a, b))


def _outer(a, b, s):
    return tuple(tuple(a[r] * b[k] * s for k in range(3)) for r in range(3))


def _rigid(link):
    m, h, ibar = origin_inertia(link)
    scalar = ((m, 0, 0), (0, m, 0), (0, 0, m))
    return ibar, _skew(h), scalar


def _times(inertia, motion):
    a, b, c = inertia
    w, v = motion
    return (la.add(la.matvec(a, w), la.matvec(b, v)),
            la.add(la.tmatvec(b, w), la.matvec(c, v)))


def _to_parent(inertia, rot, r):
    a, b, c = inertia
    a, b, c = (la.matmul(la.matmul(rot, x), la.transpose(rot)) for x in (a, b, c))
    rx = _skew(r)
    bt = la.transpose(b)
    a = la.mat_add(_sub(a, la.matmul(b, rx)),
                   _sub(la.matmul(rx, bt), la.matmul(la.matmul(rx, c), rx)))
    return a, la.mat_add(b, la.matmul(rx, c)), c


def _motion_to_child(motion, rot, r):
    w, v = motion
    return la.tmatvec(rot, w), la.tmatvec(rot, la.add(v, la.cross(w, r)))


def _force_to_parent(force, rot, r):
    f = la.matvec(rot, force[1])
    return la.add(la.matvec(rot, force[0]), la.cross(r, f)), f


def _cross_motion(a, b):
    return la.cross(a[0], b[0]), la.add(la.cross(a[0], b[1]), la.cross(a[1], b[0]))


def _cross_force(a, f):
    return la.add(la.cross(a[0], f[0]), la.cross(a[1], f[1])), la.cross(a[0], f[1])


def _axis(joint):
    return (joint.axis, la.ZERO3) if joint.type == REVOLUTE else (la.ZERO3, joint.axis)


def _pair(m, f):
    return la.dot(m[0], f[0]) + la.dot(m[1], f[1])


def _add(a, b):
    return la.add(a[0], b[0]), la.add(a[1], b[1])


def articulated_body(chain: Chain, q, qd, tau, ops, h_e=None, frames=None) -> list:
    """Joint accelerations ``qdd`` for torques ``tau`` (friction and ``h_e`` as in
    :func:`~robodyn.dynamics.forward_dynamics.forward_dynamics`), by the three passes of
    the module docstring."""
    if not chain.single_valued:
        raise ModelError("articulated_body: one-value joints only (revolute, prismatic); "
                         "forward_dynamics takes every joint type")
    n = chain.dof
    u = [t - f for t, f in zip(tau, friction_torques(chain, qd, ops), strict=True)]
    if h_e is not None:
        u = [a - c for a, c in zip(u, contact_torques(chain, q, h_e, ops, frames),
                                   strict=True)]
    transforms, axes, velocities, biases, inertias, forces = [], [], [], [], [], []
    for i, link in enumerate(chain.links):
        rot, r = joint_transform(link.joint, q[i], ops)
        s = _axis(link.joint)
        parent = chain.parent(i)
        joint_velocity = (la.scale(qd[i], s[0]), la.scale(qd[i], s[1]))
        v = joint_velocity if parent < 0 else _add(
            _motion_to_child(velocities[parent], rot, r), joint_velocity)
        transforms.append((rot, r))
        axes.append(s)
        velocities.append(v)
        biases.append(_cross_motion(v, joint_velocity))
        rigid = _rigid(link)
        inertias.append(rigid)
        forces.append(_cross_force(v, _times(rigid, v)))
    gains, pivots, drives = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):
        s = axes[i]
        ua = _times(inertias[i], s)
        d = _pair(s, ua) + chain.links[i].motor.armature
        ui = u[i] - _pair(s, forces[i])
        gains[i], pivots[i], drives[i] = ua, d, ui
        parent = chain.parent(i)
        if parent < 0:
            continue
        inv = 1 / d
        a, b, c = inertias[i]
        art = (_sub(a, _outer(ua[0], ua[0], inv)), _sub(b, _outer(ua[0], ua[1], inv)),
               _sub(c, _outer(ua[1], ua[1], inv)))
        pa = _add(_add(forces[i], _times(art, biases[i])),
                  (la.scale(ui * inv, ua[0]), la.scale(ui * inv, ua[1])))
        rot, r = transforms[i]
        pa_up = _force_to_parent(pa, rot, r)
        art_up = _to_parent(art, rot, r)
        inertias[parent] = tuple(la.mat_add(x, y) for x, y in zip(inertias[parent], art_up))
        forces[parent] = _add(forces[parent], pa_up)
    qdd = [None] * n
    accelerations = [None] * n
    base = (la.ZERO3, la.neg(chain.gravity))
    for i in range(n):
        parent = chain.parent(i)
        rot, r = transforms[i]
        a_p = accelerations[parent] if parent >= 0 else base
        a = _add(_motion_to_child(a_p, rot, r), biases[i])
        qdd[i] = (drives[i] - _pair(a, gains[i])) / pivots[i]
        s = axes[i]
        accelerations[i] = _add(a, (la.scale(qdd[i], s[0]), la.scale(qdd[i], s[1])))
    return qdd
