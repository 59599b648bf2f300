"""Source of compiled fixed-step simulation loops (Numba).

A loop module runs :func:`robodyn.motion.steps.run` — RK4 or semi-implicit Euler on
``qdd = FD(q, qd, tau(t, q, qd) [, h_e])`` — compiled: it embeds the source of the step
functions and control laws of :mod:`robodyn.motion.steps` (the code a Python loop
runs, read with :func:`inspect.getsource`, never text from elsewhere) and defines their
``stage``, which calls the compiled forward-dynamics kernel and, for the built-in
controllers, the controller model's compiled kernel, without returning to Python
between stages. Torques are one of:

* ``table``: ``tau = TAB[s]`` (given torques, sampled at the stage times);
* ``pd_gravity``: ``tau = pd_gravity(q, qd, QR[s], KP, KD, g_model(q)) + TAB[s]``;
* ``computed_torque``: ``tau = ID_model(q, qd, y) + TAB[s]`` with ``y =
  computed_torque_acceleration(q, qd, QR[s], QDR[s], QDDR[s], KP, KD)``.

``s`` indexes the stage times ``t_k`` (``2k``), ``t_k + dt/2`` (``2k + 1``); an
array with one row is the same at every stage. The module's ``run(data, JT, method, dt,
limit, k0, k1, Q, QD, QDD, TAU)`` is :func:`~robodyn.motion.steps.run` on ``m`` motions
in lockstep (``Q`` ``(m, T, nq)``, ``QD`` ``(m, T, nv)``, ``JT`` the joint table) with
``data = (P, PC, H, TAB, QR, QDR, QDDR, KP, KD, V)``: the model's parameters, the
controller model's, the wrenches ``(m, 6)``, the tables and the gains with a leading axis
of ``m`` (or 1, shared) and ``(m, nv)`` work rows.
:func:`rollouts_source` adds ``run_many``: ``run`` over many rollouts, in blocks of
:data:`~robodyn.codegen.emit.BLOCK` that share the parameters (the blocked kernels, one
SIMD lane per rollout), else rollout by rollout (:mod:`robodyn.motion.rollouts`).
"""

from __future__ import annotations

import functools
import inspect
import re

from ..codegen.emit import BLOCK
from . import steps

CONTROLLERS = ("table", "pd_gravity", "computed_torque")
METHODS = ("rk4", "semi-implicit-euler")

# Every function of a loop module is inlined (Numba IR) into ``run``, one compiled loop as
# a hand-written one: a stage called, not inlined, takes its tuple of arrays at each call,
# some per cent of the loop's time.
_DECORATOR = '@njit(nogil=True, cache=True, error_model="numpy", inline="always")\n'
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")

_HEADER = '''import numpy as np
from numba import njit
from {fd} import {fd_block} as fdb
from {fd} import kernel as fd
{controller_import}

''' + _DECORATOR + '''def row(A, s):
    return A[s] if A.shape[0] > 1 else A[0]

'''

# ``data`` holds each table with a leading axis of the motions (one row for all of them):
# ``TAB``, ``QR``, ``QDR``, ``QDDR`` ``(m or 1, S or 1, n)``, ``KP``, ``KD`` ``(m or 1, n)``, the
# wrenches ``H`` ``(m, 6)``, the work rows ``v`` ``(m, n)``; the parameters ``P``, ``PC`` are
# the same for all. A block of motions goes through the blocked kernels (one SIMD lane per
# motion, the same bits as the per-sample kernel that one motion runs).
_STAGE = '''
''' + _DECORATOR + '''def stage(data, s, q, qd, tau, acc):
    P, PC, H, TAB, QR, QDR, QDDR, KP, KD, v = data
    m = q.shape[0]
    n = qd.shape[1]
{controller}
    if m == 1:
        return fd(q, qd, tau{contact}, P, acc, 0, 1)
    return fdb(q, qd, tau{contact}, P, acc, 0, m)

'''

_CONTROLLER = {
    "table": '''    for b in range(m):
        extra = row(row(TAB, b), s)
        for i in range(n):
            tau[b, i] = extra[i]''',
    "pd_gravity": '''    if m == 1:
        ck(q, PC, tau, 0, 1)
    else:
        ckb(q, PC, tau, 0, m)
    for b in range(m):
        extra = row(row(TAB, b), s)
        qr = row(row(QR, b), s)
        kp = row(KP, b)
        kd = row(KD, b)
        for i in range(n):
            tau[b, i] = pd_gravity(q[b, i], qd[b, i], qr[i], kp[i], kd[i], tau[b, i]) + extra[i]''',
    "computed_torque": '''    for b in range(m):
        qr = row(row(QR, b), s)
        qdr = row(row(QDR, b), s)
        qddr = row(row(QDDR, b), s)
        kp = row(KP, b)
        kd = row(KD, b)
        for i in range(n):
            v[b, i] = computed_torque_acceleration(q[b, i], qd[b, i], qr[i], qdr[i], qddr[i],
                                                   kp[i], kd[i])
    if m == 1:
        ck(q, qd, v, PC, tau, 0, 1)
    else:
        ckb(q, qd, v, PC, tau, 0, m)
    for b in range(m):
        extra = row(row(TAB, b), s)
        for i in range(n):
            tau[b, i] += extra[i]''',
}


def _module_name(name: str) -> str:
    """``name``, checked to be a dotted Python name before it goes into a loop's source."""
    if not _MODULE.fullmatch(name):
        raise ValueError(f"not a module name: {name!r}")
    return name


@functools.cache  # reading the source back (inspect) costs 13 ms, more than a 1 s run
def shared_source() -> str:
    """The constants and functions of :mod:`robodyn.motion.steps` as loop-module text:
    their own source, each function under ``njit``."""
    constants = "".join(f"{name} = {int(value)!r}\n"
                        for name, value in steps.LOOP_CONSTANTS.items())
    functions = "".join("\n" + _DECORATOR + inspect.getsource(fn)
                        for fn in steps.LOOP_FUNCTIONS)
    return constants + functions


@functools.lru_cache(maxsize=64)
def loop_source(fd_module: str, controller: str, controller_module: str | None,
                contact: bool, fd_blocked: bool = False, controller_blocked: bool = False) -> str:
    """The loop module for a forward-dynamics kernel module ``fd_module`` (with an ``h_e``
    input when ``contact``) and a ``controller`` of :data:`CONTROLLERS` whose model
    kernel (gravity or inverse dynamics) lives in ``controller_module``; ``fd_blocked``,
    ``controller_blocked``: the module has the blocked flavour (``kernel_block``), which a
    block of rollouts runs (else the per-sample kernel runs the block's rows)."""
    if controller not in CONTROLLERS:
        raise ValueError(f"unknown controller {controller!r}")
    imports = ""
    if controller != "table":
        module = _module_name(controller_module)
        imports = (f"from {module} import {'kernel_block' if controller_blocked else 'kernel'}"
                   f" as ckb\nfrom {module} import kernel as ck")
    return (_HEADER.format(fd=_module_name(fd_module), controller_import=imports,
                           fd_block="kernel_block" if fd_blocked else "kernel")
            + shared_source()
            + _STAGE.format(controller=_CONTROLLER[controller],
                            contact=", H" if contact else ""))


# Many rollouts: ``run`` on blocks of up to BLOCK rollouts in lockstep (rows ``r:e`` of the
# (N or 1)-leading data) when they share the parameters, else rollout by rollout; a block in
# which a rollout fails, or one that holds a rollout that failed in an earlier chunk of steps
# (``FAILED[r] >= 0``), runs again rollout by rollout from ``k0``, which finds the failure
# and its step (the same numbers: each rollout's are its own). Not inlined anywhere:
# threads of robodyn's pool each run one range of rollouts (nogil).
_ROLLOUTS = '''
''' + _DECORATOR + '''def part(A, r, e):
    return A[r:e] if A.shape[0] > 1 else A[0:1]


@njit(nogil=True, cache=True, error_model="numpy")
def run_many(P, PC, H, TAB, QR, QDR, QDDR, KP, KD, JT, method, dt, limit, k0, k1, Q, QD,
             QDD, TAU, FAILED, r0, r1):
    n = QD.shape[2]
    width = BLOCK if P.shape[0] == 1 and PC.shape[0] == 1 else 1
    v = np.empty((width, n))
    h = np.empty((width, H.shape[2]))
    alone = r0  # the rollouts before this one run one by one (a block that failed)
    r = r0
    while r < r1:  # one call of run below: it is inlined, once
        e = r + 1 if r < alone else min(r + width, r1)
        skip = False
        for j in range(r, e):
            if FAILED[j] >= 0:
                skip = True
        if skip:  # one failed in an earlier chunk of steps: alone, or itself skipped
            if e - r > 1:
                alone = e
            else:
                r = e
            continue
        m = e - r
        for b in range(m):
            h[b, :] = row(H, r + b)[0]
        data = (row(P, r), row(PC, r), h[:m], part(TAB, r, e), part(QR, r, e),
                part(QDR, r, e), part(QDDR, r, e), part(KP, r, e), part(KD, r, e), v[:m])
        result = run(data, JT, method, dt, limit, k0, k1, Q[r:e], QD[r:e], QDD[r:e], TAU[r:e])
        if m == 1:
            FAILED[r] = result
        elif result >= 0:  # one of the block failed: each again alone, which finds it
            alone = e
            continue
        r = e
    return 0
'''


@functools.lru_cache(maxsize=64)
def rollouts_source(fd_module: str, controller: str, controller_module: str | None,
                    contact: bool, fd_blocked: bool = False,
                    controller_blocked: bool = False) -> str:
    """:func:`loop_source` and ``run_many(P, PC, H, TAB, QR, QDR, QDDR, KP, KD, JT, method,
    dt, limit, k0, k1, Q, QD, QDD, TAU, FAILED, r0, r1)``: the loop's ``run`` for rollouts
    ``r0`` to ``r1 - 1`` on their rows (or the only row) of the data arrays, which have a
    leading rollout axis (``P`` ``(N, p)``, ``H`` ``(N, 1, 6)``, ``TAB`` ``(N, S, n)``,
    ``KP`` ``(N, n)``, ...) and of ``Q``, ``QD``, ``QDD``, ``TAU`` ``(N, T, n)``: blocks of
    :data:`~robodyn.codegen.emit.BLOCK` rollouts in lockstep when ``P`` and ``PC`` are
    shared (``fd_blocked``, ``controller_blocked``: through the blocked kernels), else one
    by one; ``FAILED[r]`` gets rollout ``r``'s result (a block in which one fails runs again
    one by one), and a rollout whose entry is already ``>= 0`` is skipped (it failed in an
    earlier chunk of steps)."""
    return (loop_source(fd_module, controller, controller_module, contact, fd_blocked,
                        controller_blocked)
            + f"\nBLOCK = {BLOCK}\n" + _ROLLOUTS)
