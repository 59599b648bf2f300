"""The fixed-step simulation loop and the two control laws, written once.

Plain Python on scalars and on per-joint loops over the rows of ``(m, n)`` blocks (one
motion, or a block of rollouts in lockstep), so that the same text runs as Python and
compiled: :mod:`robodyn.motion.loops` embeds the source of
:data:`LOOP_FUNCTIONS` in the loop module it generates (each function under
``numba.njit``), and a Python torque callable runs :func:`bind`'s copy of :func:`run`,
the same code objects.

The loop integrates ``qdd = FD(q, qd, tau)`` with classic RK4 or semi-implicit
(symplectic) Euler, on the configuration manifold of the model's joints: ``q`` has ``nq``
values and ``qd`` ``nv``, and a joint table ``JT`` (rows ``(kind, index in q, index in v)``,
kind :data:`ONE_VALUE`, :data:`SPHERICAL` or :data:`FREE`; no rows when every joint has one
value) drives the three manifold steps: :func:`configuration_rate` (``dq/dt``, the
quaternion's ``1/2 q ⊗ (w, 0)``), :func:`renormalize` (unit quaternions) and
:func:`advance` (``q ⊕ h v``, the exponential). With no rows they are ``qd``, nothing and
``q + h qd``: the arithmetic of a chain of revolute and prismatic joints is unchanged, to
the bit. Each evaluation of the dynamics is a call of ``stage(data, s, q, qd,
tau, acc)``: it writes the torque ``tau`` and acceleration ``acc`` at the state ``(q,
qd)`` and stage time ``s`` (``2k`` is the step's start ``t_k``, ``2k + 1`` its midpoint,
``2k + 2`` its end ``t_{k+1}``) and returns -1, or a number ``>= 0`` when they are not
finite. ``stage`` is a global name of the module that runs the loop (the generated
module defines it compiled; :func:`bind` gives it a Python one): Numba caches a loop
that calls a global function, not one that is handed a function.
"""

from __future__ import annotations

import types

import numpy as np

#: ``method`` of :func:`run`: classic RK4 (4 stages a step).
RK4 = 0
#: ``method`` of :func:`run`: semi-implicit Euler (1 stage a step).
SEMI_IMPLICIT_EULER = 1
#: The kinds of a joint table's rows (:func:`joint_table`).
ONE_VALUE = 0
SPHERICAL = 1
FREE = 2


def joint_table(chain) -> np.ndarray:
    """The joint table ``JT`` of a chain (module docstring): ``(kind, index in q, index in
    v)`` per joint, int64; no rows when every joint has one value."""
    if chain.single_valued:
        return np.zeros((0, 3), dtype=np.int64)
    kinds = {"spherical": SPHERICAL, "free": FREE}
    rows = [(kinds.get(link.joint.type, ONE_VALUE), kq, kv) for link, kq, kv in
            zip(chain.links, chain.q_offsets(), chain.v_offsets(), strict=True)]
    return np.array(rows, dtype=np.int64)


# -- the control laws (on scalars, or element-wise on arrays) ------------------------------
def pd_gravity(q, qd, q_ref, kp, kd, g):
    """PD control with gravity compensation: ``kp (q_ref - q) - kd qd + g`` with ``g`` the
    model's gravity torque (Siciliano eq. 8.52)."""
    return kp * (q_ref - q) - kd * qd + g


def computed_torque_acceleration(q, qd, q_ref, qd_ref, qdd_ref, kp, kd):
    """The acceleration ``y = qdd_ref + kd (qd_ref - qd) + kp (q_ref - q)`` that computed
    torque control commands: its torque is the model's inverse dynamics at ``(q, qd, y)``
    (Siciliano eq. 8.57-8.61)."""
    return qdd_ref + kd * (qd_ref - qd) + kp * (q_ref - q)


# -- the loop (per-joint loops over the rows of (m, n) blocks, in place) --------------------
def stage(data, s, q, qd, tau, acc):
    """The stage a loop evaluates (module docstring). A placeholder: whoever runs the loop
    binds its own (:func:`bind`, or the generated loop module)."""
    raise NotImplementedError("the loop's stage is bound by robodyn.motion.steps.bind or "
                              "defined by the generated loop module")


def configuration_rate(JT, q, v, out):
    """``out = dq/dt`` of the rows of ``q`` ``(m, nq)`` moving at ``v`` ``(m, nv)``: ``v``
    for one-value joints, ``1/2 quat ⊗ (w, 0)`` for a quaternion, ``R v_lin`` for a free
    joint's position (``R`` the rotation of its quaternion)."""
    if JT.shape[0] == 0:
        for b in range(q.shape[0]):
            for i in range(q.shape[1]):
                out[b, i] = v[b, i]
        return
    for b in range(q.shape[0]):
        for j in range(JT.shape[0]):
            kind, kq, kv = JT[j, 0], JT[j, 1], JT[j, 2]
            if kind == ONE_VALUE:
                out[b, kq] = v[b, kv]
                continue
            a = kq if kind == SPHERICAL else kq + 3  # the quaternion
            w0 = kv if kind == SPHERICAL else kv + 3  # the angular velocity
            x, y, z, w = q[b, a], q[b, a + 1], q[b, a + 2], q[b, a + 3]
            wx, wy, wz = v[b, w0], v[b, w0 + 1], v[b, w0 + 2]
            out[b, a] = 0.5 * (w * wx + y * wz - z * wy)
            out[b, a + 1] = 0.5 * (w * wy + z * wx - x * wz)
            out[b, a + 2] = 0.5 * (w * wz + x * wy - y * wx)
            out[b, a + 3] = -0.5 * (x * wx + y * wy + z * wz)
            if kind == FREE:  # the position moves at R v_lin (v_lin in the body frame)
                s2 = 2.0 / (x * x + y * y + z * z + w * w)
                vx, vy, vz = v[b, kv], v[b, kv + 1], v[b, kv + 2]
                out[b, kq] = ((1.0 - s2 * (y * y + z * z)) * vx + s2 * (x * y - w * z) * vy
                              + s2 * (x * z + w * y) * vz)
                out[b, kq + 1] = (s2 * (x * y + w * z) * vx + (1.0 - s2 * (x * x + z * z)) * vy
                                  + s2 * (y * z - w * x) * vz)
                out[b, kq + 2] = (s2 * (x * z - w * y) * vx + s2 * (y * z + w * x) * vy
                                  + (1.0 - s2 * (x * x + y * y)) * vz)


def renormalize(JT, q):
    """Every quaternion of the rows of ``q`` scaled to unit norm."""
    for b in range(q.shape[0]):
        for j in range(JT.shape[0]):
            kind = JT[j, 0]
            if kind == ONE_VALUE:
                continue
            a = JT[j, 1] if kind == SPHERICAL else JT[j, 1] + 3
            norm = np.sqrt(q[b, a] * q[b, a] + q[b, a + 1] * q[b, a + 1]
                           + q[b, a + 2] * q[b, a + 2] + q[b, a + 3] * q[b, a + 3])
            for i in range(4):
                q[b, a + i] = q[b, a + i] / norm


def advance(JT, q, v, h):
    """``q ⊕ h v`` in place, row by row: ``q + h v`` for one-value joints; a quaternion
    turned by the exponential of ``h w`` (``q ⊗ exp(h w / 2)``, in the body frame) and a free
    joint's position moved by the SE(3) exponential ``p + R V(h w) h v_lin``, as
    ``pin.integrate`` (:func:`robodyn.model.joints.integrate_joint`)."""
    if JT.shape[0] == 0:
        for b in range(q.shape[0]):
            for i in range(q.shape[1]):
                q[b, i] = q[b, i] + h * v[b, i]
        return
    for b in range(q.shape[0]):
        for j in range(JT.shape[0]):
            kind, kq, kv = JT[j, 0], JT[j, 1], JT[j, 2]
            if kind == ONE_VALUE:
                q[b, kq] = q[b, kq] + h * v[b, kv]
                continue
            a = kq if kind == SPHERICAL else kq + 3
            w0 = kv if kind == SPHERICAL else kv + 3
            x, y, z, w = q[b, a], q[b, a + 1], q[b, a + 2], q[b, a + 3]
            ux, uy, uz = h * v[b, w0], h * v[b, w0 + 1], h * v[b, w0 + 2]
            theta = np.sqrt(ux * ux + uy * uy + uz * uz)
            if theta < 1e-4:  # the series of the closed forms near zero
                t2 = theta * theta
                half_sin = 0.5 - t2 / 48.0
                one_minus_cos = 0.5 - t2 / 24.0
                minus_sin = 1.0 / 6.0 - t2 / 120.0
            else:
                half_sin = np.sin(theta / 2.0) / theta
                one_minus_cos = (1.0 - np.cos(theta)) / (theta * theta)
                minus_sin = (theta - np.sin(theta)) / (theta * theta * theta)
            if kind == FREE:  # the position first, with the rotation at the start
                lx, ly, lz = h * v[b, kv], h * v[b, kv + 1], h * v[b, kv + 2]
                cx, cy, cz = uy * lz - uz * ly, uz * lx - ux * lz, ux * ly - uy * lx
                dx, dy, dz = uy * cz - uz * cy, uz * cx - ux * cz, ux * cy - uy * cx
                mx = lx + one_minus_cos * cx + minus_sin * dx
                my = ly + one_minus_cos * cy + minus_sin * dy
                mz = lz + one_minus_cos * cz + minus_sin * dz
                s2 = 2.0 / (x * x + y * y + z * z + w * w)
                q[b, kq] = q[b, kq] + ((1.0 - s2 * (y * y + z * z)) * mx
                                       + s2 * (x * y - w * z) * my + s2 * (x * z + w * y) * mz)
                q[b, kq + 1] = q[b, kq + 1] + (s2 * (x * y + w * z) * mx
                                               + (1.0 - s2 * (x * x + z * z)) * my
                                               + s2 * (y * z - w * x) * mz)
                q[b, kq + 2] = q[b, kq + 2] + (s2 * (x * z - w * y) * mx
                                               + s2 * (y * z + w * x) * my
                                               + (1.0 - s2 * (x * x + y * y)) * mz)
            tx, ty, tz = half_sin * ux, half_sin * uy, half_sin * uz
            tw = np.cos(theta / 2.0)
            nx = w * tx + tw * x + (y * tz - z * ty)  # q ⊗ (t, tw)
            ny = w * ty + tw * y + (z * tx - x * tz)
            nz = w * tz + tw * z + (x * ty - y * tx)
            nw = w * tw - (x * tx + y * ty + z * tz)
            if nx * x + ny * y + nz * z + nw * w < 0.0:  # the sign nearest the start
                nx, ny, nz, nw = -nx, -ny, -nz, -nw
            norm = np.sqrt(nx * nx + ny * ny + nz * nz + nw * nw)
            q[b, a] = nx / norm
            q[b, a + 1] = ny / norm
            q[b, a + 2] = nz / norm
            q[b, a + 3] = nw / norm


def semi_implicit_euler(JT, dt, q, qd, acc):
    """One semi-implicit Euler step of ``(q, qd)`` with the acceleration ``acc`` at its start:
    the velocity first, then the position with the new velocity (``q ⊕ dt qd``)."""
    for b in range(qd.shape[0]):
        for i in range(qd.shape[1]):
            qd[b, i] = qd[b, i] + dt * acc[b, i]
    advance(JT, q, qd, dt)


def rk4(data, JT, s, dt, q, qd, tau, acc, q2, qd2, kq, kv):
    """One classic RK4 step of ``y = (q, qd)``, ``y' = (dq/dt, FD)``, from stage ``s`` whose
    acceleration is in ``acc`` (the quaternions renormalised at every stage and at the end);
    ``q2``, ``qd2`` (a stage's state) and ``kq`` ``(4, m, nq)``, ``kv`` ``(3, m, nv)`` (the
    rates ``k1`` to ``k4``) are work space. Returns -1, or 0 when a stage is not finite
    (``(q, qd)`` is then left unchanged)."""
    m, nq, nv = q.shape[0], q.shape[1], qd.shape[1]
    for b in range(m):
        for i in range(nq):
            q2[b, i] = q[b, i]
        for i in range(nv):
            qd2[b, i] = qd[b, i]
    for j in range(3):  # k_{j+1} from the stage just evaluated, then the next stage's state
        h = dt if j == 2 else 0.5 * dt
        configuration_rate(JT, q2, qd2, kq[j])
        for b in range(m):
            for i in range(nq):
                q2[b, i] = q[b, i] + h * kq[j, b, i]
            for i in range(nv):
                kv[j, b, i] = acc[b, i]
                qd2[b, i] = qd[b, i] + h * kv[j, b, i]
        renormalize(JT, q2)
        if stage(data, s + 2 if j == 2 else s + 1, q2, qd2, tau, acc) >= 0:
            return 0
    configuration_rate(JT, q2, qd2, kq[3])  # k4 = (dq/dt at the last stage, acc)
    for b in range(m):
        for i in range(nq):
            q[b, i] = q[b, i] + dt / 6.0 * (kq[0, b, i] + 2.0 * kq[1, b, i] + 2.0 * kq[2, b, i]
                                            + kq[3, b, i])
        for i in range(nv):
            qd[b, i] = qd[b, i] + dt / 6.0 * (kv[0, b, i] + 2.0 * kv[1, b, i]
                                              + 2.0 * kv[2, b, i] + acc[b, i])
    renormalize(JT, q)
    return -1


def within(limit, q, qd):
    """Whether every value of ``q`` and ``qd`` is finite and at most ``limit`` in magnitude."""
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            if not abs(q[b, i]) <= limit:  # False for NaN too
                return False
        for i in range(qd.shape[1]):
            if not abs(qd[b, i]) <= limit:
                return False
    return True


def run(data, JT, method, dt, limit, k0, k1, Q, QD, QDD, TAU):
    """Steps ``k0`` to ``k1 - 1`` of size ``dt`` (``method`` :data:`RK4` or
    :data:`SEMI_IMPLICIT_EULER`) of ``m`` motions in lockstep (one, or a block of rollouts
    whose stage evaluates them together), from the states ``Q[:, k0], QD[:, k0]`` (``Q``
    ``(m, T, nq)``, ``QD`` ``(m, T, nv)``; ``JT`` the joint table, :func:`joint_table`): the
    state after step ``k`` into row ``k + 1`` of ``Q``, ``QD``, the torque and acceleration at
    its start into row ``k`` of ``TAU``, ``QDD``. Returns -1, or the first step at which a
    motion's stage is not finite or its result is not finite or exceeds ``limit`` in
    magnitude (a diverging motion; that result is not recorded). Each motion's numbers are
    those of its own run: the arithmetic is per value."""
    m, nq, nv = Q.shape[0], Q.shape[2], QD.shape[2]
    q = np.empty((m, nq))
    qd = np.empty((m, nv))
    tau = np.empty((m, nv))
    acc = np.empty((m, nv))
    q2 = np.empty((m, nq))
    qd2 = np.empty((m, nv))
    kq = np.empty((4, m, nq))
    kv = np.empty((3, m, nv))
    for b in range(m):
        for i in range(nq):
            q[b, i] = Q[b, k0, i]
        for i in range(nv):
            qd[b, i] = QD[b, k0, i]
    for k in range(k0, k1):
        s = 2 * k
        if stage(data, s, q, qd, tau, acc) >= 0:
            return k
        for b in range(m):
            for i in range(nv):
                TAU[b, k, i] = tau[b, i]
                QDD[b, k, i] = acc[b, i]
        if method == SEMI_IMPLICIT_EULER:
            semi_implicit_euler(JT, dt, q, qd, acc)
        elif rk4(data, JT, s, dt, q, qd, tau, acc, q2, qd2, kq, kv) >= 0:
            return k
        if not within(limit, q, qd):
            return k
        for b in range(m):
            for i in range(nq):
                Q[b, k + 1, i] = q[b, i]
            for i in range(nv):
                QD[b, k + 1, i] = qd[b, i]
    return -1


#: The functions of the loop and the laws, in the order the loop module defines them.
LOOP_FUNCTIONS = (pd_gravity, computed_torque_acceleration, configuration_rate, renormalize,
                  advance, semi_implicit_euler, rk4, within, run)
#: The constants they read, by name.
LOOP_CONSTANTS = {"RK4": RK4, "SEMI_IMPLICIT_EULER": SEMI_IMPLICIT_EULER,
                  "ONE_VALUE": ONE_VALUE, "SPHERICAL": SPHERICAL, "FREE": FREE}


def bind(python_stage):
    """:func:`run` with ``python_stage`` as its :func:`stage`: the same code objects, in a
    namespace of their own whose ``stage`` is ``python_stage``."""
    namespace = dict(globals(), stage=python_stage)
    for fn in LOOP_FUNCTIONS:
        namespace[fn.__name__] = types.FunctionType(fn.__code__, namespace, fn.__name__,
                                                    fn.__defaults__)
    return namespace["run"]
