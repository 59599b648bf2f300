"""The fixed-step simulation loop and the two control laws, written once.

Plain Python on scalars and on per-joint loops over the rows of ``(m, n)`` blocks (one
motion, or a block of rollouts in lockstep), so that the same text runs as Python and
compiled: :mod:`robodyn.codegen.loops` embeds the source of
:data:`LOOP_FUNCTIONS` in the loop module it generates (each function under
``numba.njit``), and a Python torque callable runs :func:`bind`'s copy of :func:`run`,
the same code objects.

The loop integrates ``qdd = FD(q, qd, tau)`` with classic RK4 or semi-implicit
(symplectic) Euler. Each evaluation of the dynamics is a call of ``stage(data, s, q, qd,
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
    raise NotImplementedError("the loop's stage is bound by robodyn.dynamics.steps.bind or "
                              "defined by the generated loop module")


def semi_implicit_euler(dt, q, qd, acc):
    """One semi-implicit Euler step of ``(q, qd)`` with the acceleration ``acc`` at its start:
    the velocity first, then the position with the new velocity."""
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            qd[b, i] = qd[b, i] + dt * acc[b, i]
            q[b, i] = q[b, i] + dt * qd[b, i]


def rk4(data, s, dt, q, qd, tau, acc, q2, qd2, kq, kv):
    """One classic RK4 step of ``y = (q, qd)``, ``y' = (qd, FD)``, from stage ``s`` whose
    acceleration is in ``acc``; ``q2``, ``qd2`` (a stage's state) and ``kq``, ``kv`` (``k1``
    to ``k3``, ``(3, m, n)``) are work space. Returns -1, or 0 when a stage is not finite
    (``(q, qd)`` is then left unchanged)."""
    m, n = q.shape[0], q.shape[1]
    for b in range(m):
        for i in range(n):
            qd2[b, i] = qd[b, i]
    for j in range(3):  # k_{j+1} from the stage just evaluated, then the next stage's state
        h = dt if j == 2 else 0.5 * dt
        for b in range(m):
            for i in range(n):
                kq[j, b, i] = qd2[b, i]
                kv[j, b, i] = acc[b, i]
                q2[b, i] = q[b, i] + h * kq[j, b, i]
                qd2[b, i] = qd[b, i] + h * kv[j, b, i]
        if stage(data, s + 2 if j == 2 else s + 1, q2, qd2, tau, acc) >= 0:
            return 0
    for b in range(m):  # k4 = (qd2, acc)
        for i in range(n):
            q[b, i] = q[b, i] + dt / 6.0 * (kq[0, b, i] + 2.0 * kq[1, b, i] + 2.0 * kq[2, b, i]
                                            + qd2[b, i])
            qd[b, i] = qd[b, i] + dt / 6.0 * (kv[0, b, i] + 2.0 * kv[1, b, i]
                                              + 2.0 * kv[2, b, i] + acc[b, i])
    return -1


def within(limit, q, qd):
    """Whether every value of ``q`` and ``qd`` is finite and at most ``limit`` in magnitude."""
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            if not (abs(q[b, i]) <= limit and abs(qd[b, i]) <= limit):  # False for NaN too
                return False
    return True


def run(data, method, dt, limit, k0, k1, Q, QD, QDD, TAU):
    """Steps ``k0`` to ``k1 - 1`` of size ``dt`` (``method`` :data:`RK4` or
    :data:`SEMI_IMPLICIT_EULER`) of ``m`` motions in lockstep (one, or a block of rollouts
    whose stage evaluates them together), from the states ``Q[:, k0], QD[:, k0]`` (``Q``
    ``(m, T, n)``): the state after step ``k`` into row ``k + 1`` of ``Q``, ``QD``, the torque
    and acceleration at its start into row ``k`` of ``TAU``, ``QDD``. Returns -1, or the first
    step at which a motion's stage is not finite or its result is not finite or exceeds
    ``limit`` in magnitude (a diverging motion; that result is not recorded). Each motion's
    numbers are those of its own run: the arithmetic is per value."""
    m, n = Q.shape[0], Q.shape[2]
    q = np.empty((m, n))
    qd = np.empty((m, n))
    tau = np.empty((m, n))
    acc = np.empty((m, n))
    q2 = np.empty((m, n))
    qd2 = np.empty((m, n))
    kq = np.empty((3, m, n))
    kv = np.empty((3, m, n))
    for b in range(m):
        for i in range(n):
            q[b, i] = Q[b, k0, i]
            qd[b, i] = QD[b, k0, i]
    for k in range(k0, k1):
        s = 2 * k
        if stage(data, s, q, qd, tau, acc) >= 0:
            return k
        for b in range(m):
            for i in range(n):
                TAU[b, k, i] = tau[b, i]
                QDD[b, k, i] = acc[b, i]
        if method == SEMI_IMPLICIT_EULER:
            semi_implicit_euler(dt, q, qd, acc)
        elif rk4(data, s, dt, q, qd, tau, acc, q2, qd2, kq, kv) >= 0:
            return k
        if not within(limit, q, qd):
            return k
        for b in range(m):
            for i in range(n):
                Q[b, k + 1, i] = q[b, i]
                QD[b, k + 1, i] = qd[b, i]
    return -1


#: The functions of the loop and the laws, in the order the loop module defines them.
LOOP_FUNCTIONS = (pd_gravity, computed_torque_acceleration, semi_implicit_euler, rk4, within,
                  run)
#: The constants they read, by name.
LOOP_CONSTANTS = {"RK4": RK4, "SEMI_IMPLICIT_EULER": SEMI_IMPLICIT_EULER}


def bind(python_stage):
    """:func:`run` with ``python_stage`` as its :func:`stage`: the same code objects, in a
    namespace of their own whose ``stage`` is ``python_stage``."""
    namespace = dict(globals(), stage=python_stage)
    for fn in LOOP_FUNCTIONS:
        namespace[fn.__name__] = types.FunctionType(fn.__code__, namespace, fn.__name__,
                                                    fn.__defaults__)
    return namespace["run"]
