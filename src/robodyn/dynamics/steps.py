"""The fixed-step simulation loop and the two control laws, written once.

Plain Python on scalars and on per-joint loops over ``(1, n)`` rows, so that the same
text runs as Python and compiled: :mod:`robodyn.codegen.loops` embeds the source of
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


# -- the loop (per-joint loops over (1, n) rows, in place) ---------------------------------
def stage(data, s, q, qd, tau, acc):
    """The stage a loop evaluates (module docstring). A placeholder: whoever runs the loop
    binds its own (:func:`bind`, or the generated loop module)."""
    raise NotImplementedError("the loop's stage is bound by robodyn.dynamics.steps.bind or "
                              "defined by the generated loop module")


def semi_implicit_euler(dt, q, qd, acc):
    """One semi-implicit Euler step of ``(q, qd)`` with the acceleration ``acc`` at its start:
    the velocity first, then the position with the new velocity."""
    for i in range(q.shape[1]):
        qd[0, i] = qd[0, i] + dt * acc[0, i]
        q[0, i] = q[0, i] + dt * qd[0, i]


def rk4(data, s, dt, q, qd, tau, acc, q2, qd2, kq, kv):
    """One classic RK4 step of ``y = (q, qd)``, ``y' = (qd, FD)``, from stage ``s`` whose
    acceleration is in ``acc``; ``q2``, ``qd2`` (a stage's state) and ``kq``, ``kv`` (``k1``
    to ``k3``, one row each) are work space. Returns -1, or 0 when a stage is not finite
    (``(q, qd)`` is then left unchanged)."""
    n = q.shape[1]
    for i in range(n):
        qd2[0, i] = qd[0, i]
    for j in range(3):  # k_{j+1} from the stage just evaluated, then the next stage's state
        h = dt if j == 2 else 0.5 * dt
        for i in range(n):
            kq[j, i] = qd2[0, i]
            kv[j, i] = acc[0, i]
            q2[0, i] = q[0, i] + h * kq[j, i]
            qd2[0, i] = qd[0, i] + h * kv[j, i]
        if stage(data, s + 2 if j == 2 else s + 1, q2, qd2, tau, acc) >= 0:
            return 0
    for i in range(n):  # k4 = (qd2, acc)
        q[0, i] = q[0, i] + dt / 6.0 * (kq[0, i] + 2.0 * kq[1, i] + 2.0 * kq[2, i] + qd2[0, i])
        qd[0, i] = qd[0, i] + dt / 6.0 * (kv[0, i] + 2.0 * kv[1, i] + 2.0 * kv[2, i]
                                          + acc[0, i])
    return -1


def within(limit, q, qd):
    """Whether every value of ``q`` and ``qd`` is finite and at most ``limit`` in magnitude."""
    for i in range(q.shape[1]):
        if not (abs(q[0, i]) <= limit and abs(qd[0, i]) <= limit):  # False for NaN too
            return False
    return True


def run(data, method, dt, limit, k0, k1, Q, QD, QDD, TAU):
    """Steps ``k0`` to ``k1 - 1`` of size ``dt`` (``method`` :data:`RK4` or
    :data:`SEMI_IMPLICIT_EULER`) from the state ``Q[k0], QD[k0]``: the state after step
    ``k`` into row ``k + 1`` of ``Q``, ``QD``, the torque and acceleration at its start into
    row ``k`` of ``TAU``, ``QDD``. Returns -1, or the first step whose stage is not finite
    or whose result is not finite or exceeds ``limit`` in magnitude (a diverging motion;
    that result is not recorded)."""
    n = Q.shape[1]
    q = np.empty((1, n))
    qd = np.empty((1, n))
    tau = np.empty((1, n))
    acc = np.empty((1, n))
    q2 = np.empty((1, n))
    qd2 = np.empty((1, n))
    kq = np.empty((3, n))
    kv = np.empty((3, n))
    for i in range(n):
        q[0, i] = Q[k0, i]
        qd[0, i] = QD[k0, i]
    for k in range(k0, k1):
        s = 2 * k
        if stage(data, s, q, qd, tau, acc) >= 0:
            return k
        for i in range(n):
            TAU[k, i] = tau[0, i]
            QDD[k, i] = acc[0, i]
        if method == SEMI_IMPLICIT_EULER:
            semi_implicit_euler(dt, q, qd, acc)
        elif rk4(data, s, dt, q, qd, tau, acc, q2, qd2, kq, kv) >= 0:
            return k
        if not within(limit, q, qd):
            return k
        for i in range(n):
            Q[k + 1, i] = q[0, i]
            QD[k + 1, i] = qd[0, i]
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
