"""Source of compiled fixed-step simulation loops (Numba).

A loop integrates ``qdd = FD(q, qd, tau(t, q, qd) [, h_e])`` with classic RK4 or
semi-implicit (symplectic) Euler, calling the compiled forward-dynamics kernel
and, for the built-in controllers, the controller model's compiled kernel,
without returning to Python between stages. Torques are one of:

* ``table``: ``tau = TAB[s]`` (given torques, sampled at the stage times);
* ``pd_gravity``: ``tau = KP (QR[s] - q) - KD qd + g_model(q) + TAB[s]``;
* ``computed_torque``: ``tau = ID_model(q, qd, QDDR[s] + KD (QDR[s] - qd) +
  KP (QR[s] - q)) + TAB[s]``.

``s`` indexes the stage times ``t_k`` (``2k``), ``t_k + dt/2`` (``2k + 1``); an
array with one row is the same at every stage. The loop records the state
after each step and the torque and acceleration at each step's start; it stops at
the first step whose result is not finite or exceeds ``LIMIT`` in magnitude (a
diverging motion) and returns that step's index, its result not recorded.
"""

from __future__ import annotations

CONTROLLERS = ("table", "pd_gravity", "computed_torque")
METHODS = ("rk4", "semi-implicit-euler")

_HEADER = '''import numpy as np
from numba import njit
from {fd} import kernel as fd
{controller_import}

LIMIT = {limit!r}

@njit(nogil=True, cache=True, error_model="numpy")
def row(A, s):
    return A[s] if A.shape[0] > 1 else A[0]

'''

_STAGE = '''
@njit(nogil=True, cache=True, error_model="numpy")
def stage(q, qd, s, P, PC, H, TAB, QR, QDR, QDDR, KP, KD, tau, acc, v):
    n = q.shape[1]
    extra = row(TAB, s)
{controller}
    return fd(q, qd, tau{contact}, P, acc, 0, 1)

'''

_CONTROLLER = {
    "table": '''    for i in range(n):
        tau[0, i] = extra[i]''',
    "pd_gravity": '''    ck(q, PC, tau, 0, 1)
    qr = row(QR, s)
    for i in range(n):
        tau[0, i] += KP[i] * (qr[i] - q[0, i]) - KD[i] * qd[0, i] + extra[i]''',
    "computed_torque": '''    qr = row(QR, s)
    qdr = row(QDR, s)
    qddr = row(QDDR, s)
    for i in range(n):
        v[0, i] = qddr[i] + KD[i] * (qdr[i] - qd[0, i]) + KP[i] * (qr[i] - q[0, i])
    ck(q, qd, v, PC, tau, 0, 1)
    for i in range(n):
        tau[0, i] += extra[i]''',
}

_LOOP = '''
@njit(nogil=True, cache=True, error_model="numpy")
def run(P, PC, H, TAB, QR, QDR, QDDR, KP, KD, dt, k0, k1, method, Q, QD, QDD, TAU):
    """Steps k0..k1-1 from state Q[k0], QD[k0]; returns -1, or the step where a result
    stopped being finite or passed LIMIT."""
    n = Q.shape[1]
    q = np.empty((1, n))
    qd = np.empty((1, n))
    tau = np.empty((1, n))
    acc = np.empty((1, n))
    v = np.empty((1, n))
    q2 = np.empty((1, n))
    qd2 = np.empty((1, n))
    k1q = np.empty(n)
    k1v = np.empty(n)
    k2q = np.empty(n)
    k2v = np.empty(n)
    k3q = np.empty(n)
    k3v = np.empty(n)
    for i in range(n):
        q[0, i] = Q[k0, i]
        qd[0, i] = QD[k0, i]
    for k in range(k0, k1):
        s = 2 * k
        if stage(q, qd, s, P, PC, H, TAB, QR, QDR, QDDR, KP, KD, tau, acc, v) >= 0:
            return k
        for i in range(n):
            TAU[k, i] = tau[0, i]
            QDD[k, i] = acc[0, i]
        if method == 1:  # semi-implicit Euler: velocity first, then position with it
            for i in range(n):
                qd[0, i] = qd[0, i] + dt * acc[0, i]
                q[0, i] = q[0, i] + dt * qd[0, i]
        else:  # classic RK4 on y = (q, qd), y' = (qd, FD)
            for i in range(n):
                k1q[i] = qd[0, i]
                k1v[i] = acc[0, i]
                q2[0, i] = q[0, i] + 0.5 * dt * k1q[i]
                qd2[0, i] = qd[0, i] + 0.5 * dt * k1v[i]
            if stage(q2, qd2, s + 1, P, PC, H, TAB, QR, QDR, QDDR, KP, KD, tau, acc, v) >= 0:
                return k
            for i in range(n):
                k2q[i] = qd2[0, i]
                k2v[i] = acc[0, i]
                q2[0, i] = q[0, i] + 0.5 * dt * k2q[i]
                qd2[0, i] = qd[0, i] + 0.5 * dt * k2v[i]
            if stage(q2, qd2, s + 1, P, PC, H, TAB, QR, QDR, QDDR, KP, KD, tau, acc, v) >= 0:
                return k
            for i in range(n):
                k3q[i] = qd2[0, i]
                k3v[i] = acc[0, i]
                q2[0, i] = q[0, i] + dt * k3q[i]
                qd2[0, i] = qd[0, i] + dt * k3v[i]
            if stage(q2, qd2, s + 2, P, PC, H, TAB, QR, QDR, QDDR, KP, KD, tau, acc, v) >= 0:
                return k
            for i in range(n):
                q[0, i] = q[0, i] + dt / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + qd2[0, i])
                qd[0, i] = qd[0, i] + dt / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i]
                                                  + acc[0, i])
        for i in range(n):
            if not (abs(q[0, i]) <= LIMIT and abs(qd[0, i]) <= LIMIT):  # also NaN
                return k
        for i in range(n):
            Q[k + 1, i] = q[0, i]
            QD[k + 1, i] = qd[0, i]
    return -1
'''


def loop_source(fd_module: str, controller: str, controller_module: str | None,
                contact: bool, limit: float) -> str:
    """The loop module for a forward-dynamics kernel module ``fd_module`` (with an ``h_e``
    input when ``contact``) and a ``controller`` of :data:`CONTROLLERS` whose model
    kernel (gravity or inverse dynamics) lives in ``controller_module``; a state beyond
    ``limit`` in magnitude stops the loop."""
    if controller not in CONTROLLERS:
        raise ValueError(f"unknown controller {controller!r}")
    imports = f"from {controller_module} import kernel as ck" if controller != "table" else ""
    limit = float(limit)  # a float literal in the source, never other text
    if not 0 < limit < float("inf"):
        raise ValueError(f"limit must be a positive finite number, got {limit!r}")
    return (_HEADER.format(fd=fd_module, controller_import=imports, limit=limit)
            + _STAGE.format(controller=_CONTROLLER[controller],
                            contact=", H" if contact else "")
            + _LOOP)
