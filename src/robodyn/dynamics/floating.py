"""Dynamics of a chain or tree on a free-flying base (Pinocchio's ``JointModelFreeFlyer``).

The base is a rigid body (:attr:`Chain.floating_base <robodyn.model.chain.Chain>`: its mass,
centre of mass and inertia about it, base frame) moved by a 6-DOF free-flyer; the links
with parent ``-1`` hang from it. Configuration and velocity (``dof`` joints)::

    q = [x, y, z, qx, qy, qz, qw, q_1 .. q_dof]        nq = dof + 7
    v = [v_x, v_y, v_z, w_x, w_y, w_z, qd_1 .. qd_dof]  nv = dof + 6

``(x, y, z)`` the base origin in the world, ``(qx, qy, qz, qw)`` the unit quaternion of the
base orientation ``R`` (world from base), ``(v, w)`` the velocity of the base origin and the
angular velocity, both in the BASE frame (the body twist); accelerations ``a = dv/dt``.
Generalised forces are ``[f, n, tau]``: the force and the moment about the base origin on
the base (base frame), then the joint torques. Gravity ``g0`` is in the world frame.

Every algorithm here reuses the fixed-base recursions, with the base's motion state:

* inverse dynamics: :func:`~robodyn.dynamics.rnea.rnea` with ``base=(w, dw/dt, vd)``,
  ``vd = a_lin + w × v - R^T g0`` the classical acceleration of the base origin (base
  frame), less gravity; its inward pass hands the forces of the links on the base
  (``record``), which the base body's own Newton–Euler force joins;
* the ``nv x nv`` inertia matrix: the joint block is :func:`~robodyn.dynamics.crba.mass_matrix`;
  the base's composite inertia and the base rows of each joint column come from the same
  CRBA steps (:mod:`robodyn.dynamics.crba`) carried one frame further, to the base;
* gravity and bias: the inverse dynamics at ``v = a = 0`` and at ``a = 0``;
* forward dynamics: ``M a = u - b`` by the sparse ``L^T D L`` factor of ``M`` (the base's
  coordinates a chain at the root of the tree);
* centroidal momentum ``h_G = A_G(q) v`` (linear momentum, angular momentum about the centre
  of mass, world axes; Pinocchio's ``ccrba``): the base rows of ``M`` are the system's
  spatial momentum in the base frame at the base origin, ``A_G = X_G^* M[0:6, :]``;
* :func:`integrate`: ``q ⊕ v dt`` on the Lie group, as ``pin.integrate`` (NumPy, batched).

Joint friction acts on the joints only (the base has none); motor armature as in the
fixed-base algorithms.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import linalg3 as la
from ..model.chain import Chain
from .coriolis import spatial_coriolis
from .crba import local_axis, local_inertia, mass_matrix, to_parent_force, to_parent_inertia
from .forward_dynamics import ltdl_factor, ltdl_solve
from .friction import friction_torques
from .kinematics import frame_pose, jacobian, joint_transform, link_poses
from .rnea import rnea
from .spatial import add_inertia, inertia_times

#: The six base coordinates of ``v`` (and of the generalised forces), in order.
BASE_COORDINATES = ("v_x", "v_y", "v_z", "w_x", "w_y", "w_z")


def quaternion_rotation(quat: Sequence, ops=None) -> la.Mat3:
    """The rotation matrix of the quaternion ``(x, y, z, w)``; a quaternion that is not of
    unit norm gives the rotation of the unit one along it (``s = 2 / |q|^2``)."""
    x, y, z, w = quat
    s = 2 / (x * x + y * y + z * z + w * w)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    return ((1 - (yy + zz), xy - wz, xz + wy),
            (xy + wz, 1 - (xx + zz), yz - wx),
            (xz - wy, yz + wx, 1 - (xx + yy)))


def base_inertia(chain: Chain):
    """``(m, h, Ibar)`` of the base body about the base origin, base frame."""
    body = chain.floating_base
    m, c = body.mass, body.com
    return m, la.scale(m, c), la.mat_add(body.inertia, la.point_mass_tensor(m, c))


def floating_rnea(chain: Chain, q: Sequence, v: Sequence, a: Sequence, ops) -> list:
    """``[f, n, tau]`` = ``M(q) a + b(q, v)`` (no friction): the wrench on the base (base
    frame, moment about its origin) and the joint torques (module docstring)."""
    joints = list(q[7:])
    rot = quaternion_rotation(q[3:7], ops)
    v_lin, w = tuple(v[0:3]), tuple(v[3:6])
    wd = tuple(a[3:6])
    vd = la.sub(la.add(tuple(a[0:3]), la.cross(w, v_lin)), la.tmatvec(rot, chain.gravity))
    on_base = set(chain.children(-1))
    link_wrench: dict = {}

    def record(name, i, value):  # the force and moment of each link on the base, link frame
        if name in ("f", "n") and i - 1 in on_base:
            link_wrench[name, i - 1] = value

    tau = rnea(chain, joints, v[6:], a[6:], ops, record=record, base=(w, wd, vd))
    body = chain.floating_base
    c, m, inertia = body.com, body.mass, body.inertia
    vdc = la.add(vd, la.add(la.cross(wd, c), la.cross(w, la.cross(w, c))))
    f = la.scale(m, vdc)
    n = la.add(la.add(la.matvec(inertia, wd), la.cross(w, la.matvec(inertia, w))),
               la.cross(c, f))
    for i in sorted(on_base):
        rot_i, r_i = joint_transform(chain.links[i].joint, joints[i], ops)
        f_up = la.matvec(rot_i, link_wrench["f", i])
        n = la.add(n, la.add(la.matvec(rot_i, link_wrench["n", i]), la.cross(r_i, f_up)))
        f = la.add(f, f_up)
    return [*f, *n, *tau]


def _joint_friction(chain: Chain, v: Sequence, ops) -> list:
    return [0] * 6 + list(friction_torques(chain, v[6:], ops))


def floating_friction(chain: Chain, qd: Sequence, ops) -> list:
    """Friction ``[0 (base), F_v qd_j + F_s sign(qd_j)]`` of the ``nv`` velocities."""
    return _joint_friction(chain, qd, ops)


def floating_inverse_dynamics(chain: Chain, q, qd, qdd, ops, h_e=None, frames=None) -> list:
    """``[base wrench, joint torques] = M(q) a + b(q, v) + friction (+ J^T h_e)`` (``nv``
    values; ``h_e`` as in :func:`floating_contact_forces`)."""
    tau = [t + f for t, f in zip(floating_rnea(chain, q, qd, qdd, ops),
                                 _joint_friction(chain, qd, ops), strict=True)]
    if h_e is not None:
        tau = [t + c for t, c in zip(tau, floating_contact_forces(chain, q, h_e, ops, frames),
                                     strict=True)]
    return tau


def floating_contact_forces(chain: Chain, q, h_e, ops, frames=None) -> list:
    """``J(q)^T h_e`` (``nv`` values) for the wrench ``h_e = (f, mu)`` that the end
    effector exerts on the environment, WORLD axes, the moment about the frame's origin
    (:func:`floating_jacobian`); with ``frames``, one such wrench per frame, six values
    each in that order. Its base rows are the wrench moved to the base (base frame)."""
    out = [0] * (chain.dof + 6)
    for k, frame in enumerate([None] if frames is None else frames):
        jac = floating_jacobian(chain, q, ops, frame)
        wrench = h_e[6 * k:6 * k + 6]
        out = [o + sum(jac[r][j] * wrench[r] for r in range(6)) for j, o in enumerate(out)]
    return out


def floating_gravity(chain: Chain, q, ops) -> list:
    """``g(q)``: the generalised forces that hold the system at rest against gravity."""
    zeros = [0] * (chain.dof + 6)
    return floating_rnea(chain, q, zeros, zeros, ops)


def floating_torque_parts(chain: Chain, q, qd, qdd, ops, h_e=None, frames=None) -> list[list]:
    """The generalised forces split as :func:`~robodyn.dynamics.inverse_dynamics.torque_parts`
    (rows ``inertial M a``, ``coriolis`` (the bias less gravity, ``C(q, v) v``), ``gravity``,
    ``friction``, ``external`` (``J^T h_e``, :func:`floating_contact_forces`; zero without
    ``h_e``), ``total``), each ``nv`` values."""
    zeros = [0] * (chain.dof + 6)
    gravity = floating_gravity(chain, q, ops)
    inertial = [t - g for t, g in zip(floating_rnea(chain, q, zeros, qdd, ops), gravity)]
    coriolis = [t - g for t, g in zip(floating_rnea(chain, q, qd, zeros, ops), gravity)]
    friction = _joint_friction(chain, qd, ops)
    external = zeros if h_e is None else floating_contact_forces(chain, q, h_e, ops, frames)
    total = [a + b + c + d + e for a, b, c, d, e in zip(inertial, coriolis, gravity, friction,
                                                        external)]
    return [inertial, coriolis, gravity, friction, external, total]


def _crba(chain: Chain, q, ops):
    """The ``nv x nv`` inertia matrix and the composite inertia of the whole system about
    the base origin (base frame)."""
    joints = list(q[7:])
    n = chain.dof
    inner = mass_matrix(chain, joints, ops)  # the joint block
    frames = [joint_transform(link.joint, qi, ops) for link, qi in zip(chain.links, joints)]
    composite = [local_inertia(link) for link in chain.links]
    whole = base_inertia(chain)
    for i in reversed(range(n)):  # the CRBA's inward pass, carried on to the base
        moved = to_parent_inertia(composite[i], *frames[i])
        parent = chain.parent(i)
        if parent >= 0:
            composite[parent] = add_inertia(composite[parent], moved)
        else:
            whole = add_inertia(whole, moved)
    size = n + 6
    m = [[0] * size for _ in range(size)]
    units = [(la.ZERO3, e) for e in la.IDENTITY3] + [(e, la.ZERO3) for e in la.IDENTITY3]
    for col, unit in enumerate(units):  # the base block: the composite inertia, (lin, ang)
        moment, force = inertia_times(whole, unit)
        for row, value in enumerate((*force, *moment)[:col + 1]):  # mirrored: exactly M^T
            m[row][col] = m[col][row] = value
    axes = [local_axis(link.joint) for link in chain.links]
    for j in range(n):  # joint j's column, walked down to the base: the base rows
        force = inertia_times(composite[j], axes[j])
        child, i = j, chain.parent(j)
        while i >= 0:
            force = to_parent_force(force, *frames[child])
            child, i = i, chain.parent(i)
        moment, linear = to_parent_force(force, *frames[child])
        for row, value in enumerate((*linear, *moment)):
            m[row][6 + j] = m[6 + j][row] = value
        for i in range(n):
            m[6 + i][6 + j] = inner[i][j]
    return m, whole


def floating_mass_matrix(chain: Chain, q, ops) -> list[list]:
    """``M(q)``, ``nv x nv`` (symmetric positive definite for a base with mass and inertia)."""
    return _crba(chain, q, ops)[0]


def floating_forward_dynamics(chain: Chain, q, qd, tau, ops, h_e=None, frames=None) -> list:
    """``a = M(q)^-1 (tau - b(q, v) - friction - J^T h_e)`` by the sparse ``L^T D L`` factor
    of ``M`` (``h_e`` as in :func:`floating_contact_forces`)."""
    bias = floating_inverse_dynamics(chain, q, qd, [0] * (chain.dof + 6), ops, h_e, frames)
    labels = [f"base {c}" for c in BASE_COORDINATES] + [
        f"joint {j + 1} ({link.joint.name or link.name})" for j, link in enumerate(chain.links)]
    rhs = [t - b for t, b in zip(tau, bias, strict=True)]
    m = floating_mass_matrix(chain, q, ops)
    # the base's six coordinates as a chain at the root, each joint under its parent link's
    # (the base's last coordinate for a link on the base): M's zeros are then those of the
    # tree and the reverse-order L^T D L (Featherstone §6.5) has no fill-in
    parents = [-1, 0, 1, 2, 3, 4] + [5 if p < 0 else 6 + p for p in chain.parent_indices]
    return ltdl_solve(ltdl_factor(m, parents, ops, labels), parents, rhs)


def floating_coriolis_matrix(chain: Chain, q, qd, ops) -> list[list]:
    """``C(q, v)``, ``nv x nv``, with ``C(q, v) v = b(q, v) - g(q)`` and ``dM/dt - 2C``
    skew-symmetric: the spatial form of :mod:`robodyn.dynamics.coriolis` with the base as
    the root body of six axes (Echeandia & Wensing 2021; Pinocchio's
    ``computeCoriolisMatrix``). It depends on the joints and ``v`` only, not on the base
    pose."""
    return spatial_coriolis(chain, link_poses(chain, list(q[7:]), ops), list(qd), floating=True)


def _world_pose(chain: Chain, q, ops, frame):
    """``(R_wb, p_b, R_wf, p_f, r_f)``: the base in the world, frame number ``frame`` (of
    :func:`~robodyn.dynamics.kinematics.frame_table`; ``None`` the end effector) in the
    world, and the frame's origin in the base frame; also the link poses in the base frame."""
    rot_b, p_b = quaternion_rotation(q[3:7], ops), tuple(q[0:3])
    poses = link_poses(chain, list(q[7:]), ops)
    rot, r_f = frame_pose(chain, poses, frame)
    return rot_b, p_b, la.matmul(rot_b, rot), la.add(p_b, la.matvec(rot_b, r_f)), r_f, poses


def floating_forward_kinematics(chain: Chain, q, ops, frame: int | None = None) -> list[list]:
    """The end effector's frame (or frame number ``frame``) in the WORLD frame, the top rows
    ``[R | p]`` of ``T_wf = T_wb(x, quaternion) T_bf(joints)``."""
    _, _, rot, pos, _, _ = _world_pose(chain, q, ops, frame)
    return [[*rot[r], pos[r]] for r in range(3)]


def floating_jacobian(chain: Chain, q, ops, frame: int | None = None) -> list[list]:
    """Geometric Jacobian, ``6 x nv``, of the end effector's frame (or frame number
    ``frame``) at its origin, WORLD axes (Pinocchio's ``LOCAL_WORLD_ALIGNED``): rows
    ``(v, w)`` of the frame, ``= J(q) v``. With the base twist ``(v_b, w_b)`` in the base
    frame, the frame's origin ``r`` in the base frame and ``R`` the base orientation::

        v_f = R (v_b + w_b × r + J_v qd),   w_f = R (w_b + J_w qd)

    (``J_v, J_w`` the fixed-base Jacobian in the base frame,
    :func:`~robodyn.dynamics.kinematics.jacobian`)."""
    rot_b, _, _, _, r_f, poses = _world_pose(chain, q, ops, frame)
    inner = jacobian(chain, list(q[7:]), ops, poses=poses, frame=frame)
    cols = [la.matvec(rot_b, e) + la.ZERO3 for e in la.IDENTITY3]
    cols += [la.matvec(rot_b, la.cross(e, r_f)) + la.matvec(rot_b, e) for e in la.IDENTITY3]
    for j in range(chain.dof):
        col = [row[j] for row in inner]
        cols.append(la.matvec(rot_b, tuple(col[0:3])) + la.matvec(rot_b, tuple(col[3:6])))
    return [[col[r] for col in cols] for r in range(6)]


def centroidal_matrix(chain: Chain, q, ops) -> list[list]:
    """``A_G(q)``, ``6 x nv``: ``h_G = A_G v``, rows linear momentum and angular momentum
    about the centre of mass, world axes (Pinocchio's ``ccrba``)."""
    m, whole = _crba(chain, q, ops)
    rot = quaternion_rotation(q[3:7], ops)
    c = la.scale(1 / whole[0], whole[1])  # the centre of mass, base frame
    lin_rows, ang_rows = [], []
    for k in range(chain.dof + 6):
        linear = (m[0][k], m[1][k], m[2][k])
        moment = la.sub((m[3][k], m[4][k], m[5][k]), la.cross(c, linear))
        lin_rows.append(la.matvec(rot, linear))
        ang_rows.append(la.matvec(rot, moment))
    return [[col[r] for col in lin_rows] for r in range(3)] + \
        [[col[r] for col in ang_rows] for r in range(3)]


def centroidal_momentum(chain: Chain, q, qd, ops) -> list:
    """``h_G = A_G(q) v``: linear momentum, then angular momentum about the centre of mass,
    world axes."""
    return [sum(a * b for a, b in zip(row, qd, strict=True))
            for row in centroidal_matrix(chain, q, ops)]


def floating_kinetic_energy(chain: Chain, q, qd, ops):
    """``T = 1/2 v^T M(q) v``."""
    m = floating_mass_matrix(chain, q, ops)
    return sum(qd[i] * sum(m[i][j] * qd[j] for j in range(len(qd)))
               for i in range(len(qd))) / 2


def floating_potential_energy(chain: Chain, q, ops):
    """``U = -g0 · (m p_G)`` with ``p_G`` the centre of mass in the world (zero at the world
    origin)."""
    _, whole = _crba(chain, q, ops)
    rot = quaternion_rotation(q[3:7], ops)
    first = la.add(la.scale(whole[0], tuple(q[0:3])), la.matvec(rot, whole[1]))
    return -la.dot(chain.gravity, first)


# -- the configuration manifold (NumPy, batched) ------------------------------------------
def _quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a ⊗ b`` of quaternions ``(..., 4)`` stored ``(x, y, z, w)``."""
    va, wa, vb, wb = a[..., :3], a[..., 3:], b[..., :3], b[..., 3:]
    vector = wa * vb + wb * va + np.cross(va, vb)
    return np.concatenate([vector, wa * wb - np.sum(va * vb, axis=-1, keepdims=True)], axis=-1)


def rotation_matrices(quat: np.ndarray) -> np.ndarray:
    """``(..., 3, 3)`` rotations of the unit quaternions ``(..., 4)`` ``(x, y, z, w)``."""
    x, y, z, w = np.moveaxis(np.asarray(quat, dtype=float), -1, 0)
    rows = quaternion_rotation((x, y, z, w))
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def integrate(q: np.ndarray, v: np.ndarray, dt: float = 1.0) -> np.ndarray:
    """``q ⊕ v dt`` on the free-flyer's configuration manifold, as ``pin.integrate``: the
    base moves by the SE(3) exponential of the body twist ``(v_lin, w) dt``
    (``M1 = M0 exp(dt v)``: ``p1 = p0 + R0 V(w dt) v_lin dt`` and the quaternion
    ``q1 = q0 ⊗ exp(w dt / 2)``, renormalised, the sign with ``q0 · q1 >= 0``), the joints
    by ``qd dt``. ``q`` ``(..., nq)``, ``v`` ``(..., nv)``, broadcast together."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float) * dt
    u, w = v[..., 0:3], v[..., 3:6]
    theta = np.linalg.norm(w, axis=-1, keepdims=True)
    small = theta < 1e-4
    t = np.where(small, 1.0, theta)  # a safe angle for the closed forms
    t2 = theta * theta
    half_sin = np.where(small, 0.5 - t2 / 48, np.sin(t / 2) / t)
    one_minus_cos = np.where(small, 0.5 - t2 / 24, (1 - np.cos(t)) / (t * t))
    minus_sin = np.where(small, 1 / 6 - t2 / 120, (t - np.sin(t)) / (t * t * t))
    wu = np.cross(w, u)
    moved = u + one_minus_cos * wu + minus_sin * np.cross(w, wu)  # V(w) u
    quat0 = q[..., 3:7]
    turn = np.concatenate([half_sin * w, np.cos(theta / 2)], axis=-1)
    quat = _quaternion_product(quat0, turn)
    quat = np.where(np.sum(quat * quat0, axis=-1, keepdims=True) < 0, -quat, quat)
    quat = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    position = q[..., 0:3] + np.einsum("...ij,...j->...i", rotation_matrices(quat0), moved)
    joints = q[..., 7:] + v[..., 6:]
    return np.concatenate([position, quat, joints], axis=-1)


def configuration_rate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``dq/dt`` of the embedded configuration ``(..., nq)`` for the velocity ``v``: the
    base origin's velocity in the world ``R v_lin``, the quaternion's ``1/2 q ⊗ (w, 0)``,
    the joint rates."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    quat = q[..., 3:7]
    position = np.einsum("...ij,...j->...i", rotation_matrices(quat), v[..., 0:3])
    omega = np.concatenate([v[..., 3:6], np.zeros(v.shape[:-1] + (1,))], axis=-1)
    return np.concatenate([position, 0.5 * _quaternion_product(quat, omega), v[..., 6:]],
                          axis=-1)


def normalized(q: np.ndarray) -> np.ndarray:
    """``q`` with its quaternion ``q[..., 3:7]`` scaled to unit norm."""
    q = np.array(q, dtype=float)
    q[..., 3:7] /= np.linalg.norm(q[..., 3:7], axis=-1, keepdims=True)
    return q
