"""Recursive Newton–Euler inverse dynamics (lecture notes, Advanced Robotics, Lecture 15;
Craig, *Introduction to Robotics*, §6.5, eqs. 6.45–6.53).

Outward iteration, link ``i`` from its parent ``p`` (``i - 1`` in a serial chain, any
earlier link in a tree), every vector in the frame of
the link it belongs to, ``E = R^T`` the rotation from the parent frame into
link frame ``i``, ``z`` the joint axis, ``r`` the link origin in the parent frame::

    w_i   = E w_p + qd_i z                                  (revolute)
    wd_i  = E wd_p + (E w_p) × qd_i z + qdd_i z             (revolute)
    vd_i  = E (vd_p + wd_p × r + w_p × (w_p × r))
            [+ 2 w_i × qd_i z + qdd_i z]                    (prismatic)
    vdc_i = vd_i + wd_i × c_i + w_i × (w_i × c_i)
    F_i   = m_i vdc_i
    N_i   = I_i wd_i + w_i × I_i w_i

with gravity entered as the base acceleration ``vd_0 = -g0``. A joint of several values
(:mod:`robodyn.model.joints`: spherical, free) moves its link by the twist
``(w_J, v_J) = S qd`` in the link frame (``(wd_J, a_J) = S qdd``; ``S`` constant there,
no bias ``c_J``)::

    w_i  = E w_p + w_J,    wd_i = E wd_p + (E w_p) × w_J + wd_J
    vd_i = E (vd_p + wd_p × r + w_p × (w_p × r)) + a_J + (w_i + E w_p) × v_J

(``a_J + w_J × v_J`` the rate of the relative velocity seen from the link, ``2 (E w_p) ×
v_J`` its Coriolis term; a prismatic joint is the case ``w_J = 0``), and its torques are
``S^T (n_i, f_i)``: a free joint's ``(f, n)``, a ball joint's ``n``.

Inward iteration, from the tips (a link without children has ``f = n = 0`` from them),
summed over the children ``k`` of link ``i`` (one, ``i+1``, in a serial chain; a tree's parent has
several, Featherstone §5.3)::

    f_i = sum_k R_k f_k + F_i
    n_i = N_i + sum_k (R_k n_k + r_k × (R_k f_k)) + c_i × F_i
    tau_i = z · n_i (revolute),  z · f_i (prismatic)

``I_i`` is the inertia about the centre of mass ``c_i``, both in link frame ``i``. A
point mass ``m_p`` of the link at ``p`` (link frame; :class:`~robodyn.model.chain.PointMass`)
is one more body without inertia: ``vdp = vd_i + wd_i × p + w_i × (w_i × p)``,
``Fp = m_p vdp`` adds to ``f_i`` and ``p × Fp`` to ``n_i``. A joint's motor adds its
reflected rotor inertia: ``tau_i += G_i^2 J_mi qdd_i`` (rotor gyroscopic coupling
neglected, as the Robotics Toolbox and Pinocchio's armature do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core import linalg3 as la
from ..model.chain import Chain
from ..model.friction import is_zero
from ..model.joints import PRISMATIC, REVOLUTE, joint_forces, joint_twist
from .kinematics import joint_transform

Recorder = Callable[[str, int, object], None]


def outward_step(joint, q, qd, qdd, w, wd, vd, ops):
    """One step of the outward iteration (module docstring): from the parent's angular
    velocity ``w``, acceleration ``wd`` and origin acceleration ``vd`` (parent frame) to
    ``(rot, r, w_i, wd_i, vd_i)`` of the link moved by ``joint`` (its frame), with ``rot``,
    ``r`` the link frame in the parent's."""
    rot, r = joint_transform(joint, q, ops)
    vd = la.tmatvec(rot, la.add(vd, la.add(la.cross(wd, r), la.cross(w, la.cross(w, r)))))
    w_parent = la.tmatvec(rot, w)
    wd = la.tmatvec(rot, wd)
    z = joint.axis
    if joint.type == REVOLUTE:
        w = la.add(w_parent, la.scale(qd, z))
        wd = la.add(la.add(wd, la.cross(w_parent, la.scale(qd, z))), la.scale(qdd, z))
    elif joint.type == PRISMATIC:
        w = w_parent
        vd = la.add(la.add(vd, la.scale(2, la.cross(w, la.scale(qd, z)))), la.scale(qdd, z))
    else:  # the relative twist S qd in the link frame (spherical, free): c_J = 0
        w_rel, v_rel = joint_twist(joint, qd)
        wd_rel, a_rel = joint_twist(joint, qdd)
        w = la.add(w_parent, w_rel)
        wd = la.add(la.add(wd, la.cross(w_parent, w_rel)), wd_rel)
        # a_J + w_J × v_J + 2 (E w_p) × v_J: the body-frame rate of v_J and its Coriolis term
        vd = la.add(vd, la.add(a_rel, la.cross(la.add(w, w_parent), v_rel)))
    return rot, r, w, wd, vd


def rnea(
    chain: Chain,
    q: Sequence,
    qd: Sequence,
    qdd: Sequence,
    ops,
    record: Recorder | None = None,
) -> list:
    """Joint torques ``tau = M(q) qdd + C(q, qd) qd + g(q)`` (no friction).

    ``q``, ``qd``, ``qdd``: sequences of ``nq``, ``nv``, ``nv`` scalars; the torques are
    ``nv`` values, a multi-value joint's ``S^T (n, f)``
    (:func:`~robodyn.model.joints.joint_forces`). ``record(name, i, value)``, if
    given, receives every intermediate quantity by name: ``w, wd, vd, vdc, F, N``
    outward (and per point mass ``vdp``, ``Fp`` with the value ``(k, vector)``, ``k`` the
    point mass's 0-based index) and ``f, n, tau`` inward (``i`` counts links from 1, as
    the lecture does).
    """
    n = chain.dof
    base = (la.ZERO3, la.ZERO3, la.neg(chain.gravity))
    q = chain.per_joint(q, velocity=False)
    qd, qdd = chain.per_joint(qd), chain.per_joint(qdd)
    states, rotations, origins, forces, moments, points = [], [], [], [], [], []
    for i, link in enumerate(chain.links):
        p = chain.parent(i)
        w, wd, vd = states[p] if p >= 0 else base
        inertial = link.inertial
        rot, r, w, wd, vd = outward_step(link.joint, q[i], qd[i], qdd[i], w, wd, vd, ops)
        states.append((w, wd, vd))
        c, m, inertia = inertial.com, inertial.mass, inertial.inertia
        vdc = la.add(vd, la.add(la.cross(wd, c), la.cross(w, la.cross(w, c))))
        force = la.scale(m, vdc)
        moment = la.add(la.matvec(inertia, wd), la.cross(w, la.matvec(inertia, w)))
        if record is not None:
            for name, value in (("w", w), ("wd", wd), ("vd", vd), ("vdc", vdc),
                                ("F", force), ("N", moment)):
                record(name, i + 1, value)
        rotations.append(rot)
        origins.append(r)
        forces.append(force)
        moments.append(moment)
        point_forces = []
        for k, point in enumerate(link.point_masses):
            p = point.at
            vdp = la.add(vd, la.add(la.cross(wd, p), la.cross(w, la.cross(w, p))))
            point_forces.append((p, la.scale(point.mass, vdp)))
            if record is not None:  # value (k, vector): point mass k (0-based) of link i
                record("vdp", i + 1, (k, vdp))
                record("Fp", i + 1, (k, point_forces[-1][1]))
        points.append(point_forces)

    tau = [None] * n
    # the force and moment each link's children exert on it, in its frame (a tree: summed)
    from_children: list = [None] * n
    for i in reversed(range(n)):
        link = chain.links[i]
        f_child, nm = from_children[i] or (la.ZERO3, la.ZERO3)
        f = la.add(f_child, forces[i])
        nm = la.add(la.add(nm, moments[i]), la.cross(link.inertial.com, forces[i]))
        for p, force_p in points[i]:
            f = la.add(f, force_p)
            nm = la.add(nm, la.cross(p, force_p))
        z = link.joint.axis
        if link.joint.type == REVOLUTE:
            tau[i] = la.dot(z, nm)
        elif link.joint.type == PRISMATIC:
            tau[i] = la.dot(z, f)
        else:
            tau[i] = tuple(joint_forces(link.joint, nm, f))
        if link.joint.model.single:
            tau[i] = tau[i] + link.motor.armature * qdd[i]  # the rotor's reflected inertia
        elif not is_zero(link.motor.armature):  # MuJoCo's armature of a ball: each dof
            tau[i] = tuple(t + link.motor.armature * a for t, a in zip(tau[i], qdd[i]))
        if record is not None:
            record("f", i + 1, f)
            record("n", i + 1, nm)
            record("tau", i + 1, tau[i])
        parent = chain.parent(i)
        if parent >= 0:
            f_up = la.matvec(rotations[i], f)
            n_up = la.add(la.matvec(rotations[i], nm), la.cross(origins[i], f_up))
            if from_children[parent] is not None:
                f_sum, n_sum = from_children[parent]
                f_up, n_up = la.add(f_sum, f_up), la.add(n_sum, n_up)
            from_children[parent] = (f_up, n_up)
    return tau if chain.single_valued else flatten(tau)


def flatten(per_joint: list) -> list:
    """Values given per joint (a scalar, or a tuple for a multi-value joint) in one list."""
    out: list = []
    for value in per_joint:
        if isinstance(value, tuple):
            out.extend(value)
        else:
            out.append(value)
    return out

