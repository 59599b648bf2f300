"""Kinetic and potential energy of the chain, the quantities the Lagrangian is built from.

Kinetic energy (Siciliano et al., Robotics, eq. 7.10–7.11), summed over the links from
their own velocities, with every vector in the link's frame::

    T = sum_i 1/2 m_i v_ci^T v_ci + 1/2 w_i^T I_i w_i + 1/2 G_i^2 J_mi qd_i^2

with ``v_ci = v_i + w_i × c_i`` and the last term the motor's reflected rotor
inertia; it equals ``1/2 qd^T M(q) qd``. A link's point masses are bodies of their
own (zero inertia), summed in both energies. The link velocities come from the outward
iteration of Newton–Euler, ``p`` the link's parent (``w_i = E w_p + qd_i z``;
``v_i = E (v_p + w_p × r) [+ qd_i z]``). Potential energy (Siciliano eq. 7.26):
``U = -sum_i m_i g0^T p_ci`` with ``p_ci`` the centre of mass in the base frame, zero at the
base origin.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import linalg3 as la
from ..model.chain import Chain, link_bodies
from ..model.friction import is_zero
from ..model.joints import PRISMATIC, REVOLUTE, joint_twist
from .kinematics import joint_transform, link_poses


def kinetic_energy(chain: Chain, q: Sequence, qd: Sequence, ops):
    """``T(q, qd)`` from each link's linear and angular velocity (module docstring)."""
    velocities: list = []
    total = 0
    q, qd = chain.per_joint(q, velocity=False), chain.per_joint(qd)
    for i, link in enumerate(chain.links):
        parent = chain.parent(i)
        w, v = velocities[parent] if parent >= 0 else (la.ZERO3, la.ZERO3)
        rot, r = joint_transform(link.joint, q[i], ops)
        v = la.tmatvec(rot, la.add(v, la.cross(w, r)))
        w = la.tmatvec(rot, w)
        z = link.joint.axis
        if link.joint.type == REVOLUTE:
            w = la.add(w, la.scale(qd[i], z))
        elif link.joint.type == PRISMATIC:
            v = la.add(v, la.scale(qd[i], z))
        else:  # the relative twist S qd in the link frame
            w_rel, v_rel = joint_twist(link.joint, qd[i])
            w, v = la.add(w, w_rel), la.add(v, v_rel)
        velocities.append((w, v))
        for body in link_bodies(link):  # the link's body and its point masses
            vc = la.add(v, la.cross(w, body.com))
            total = total + (body.mass * la.dot(vc, vc)
                             + la.dot(w, la.matvec(body.inertia, w))) / 2
        if link.joint.model.single:
            total = total + link.motor.armature * qd[i] * qd[i] / 2
        elif not is_zero(link.motor.armature):  # a ball's armature: each of its dofs
            total = total + link.motor.armature * sum(x * x for x in qd[i]) / 2
    return total


def potential_energy(chain: Chain, q: Sequence, ops):
    """``U(q) = -sum_i m_i g0^T p_ci`` (gravity ``g0`` in the base frame)."""
    total = 0
    for link, (rot, origin) in zip(chain.links, link_poses(chain, q, ops), strict=True):
        for body in link_bodies(link):
            p_c = la.add(origin, la.matvec(rot, body.com))
            total = total - body.mass * la.dot(chain.gravity, p_c)
    return total
