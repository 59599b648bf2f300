"""Source of compiled fixed-step simulation loops (Numba).

A loop module runs :func:`robodyn.dynamics.steps.run` — RK4 or semi-implicit Euler on
``qdd = FD(q, qd, tau(t, q, qd) [, h_e])`` — compiled: it embeds the source of the step
functions and control laws of :mod:`robodyn.dynamics.steps` (the code a Python loop
runs, read with :func:`inspect.getsource`, never text from elsewhere) and defines their
``stage``, which calls the compiled forward-dynamics kernel and, for the built-in
controllers, the controller model's compiled kernel, without returning to Python
between stages. Torques are one of:

* ``table``: ``tau = TAB[s]`` (given torques, sampled at the stage times);
* ``pd_gravity``: ``tau = pd_gravity(q, qd, QR[s], KP, KD, g_model(q)) + TAB[s]``;
* ``computed_torque``: ``tau = ID_model(q, qd, y) + TAB[s]`` with ``y =
  computed_torque_acceleration(q, qd, QR[s], QDR[s], QDDR[s], KP, KD)``.

``s`` indexes the stage times ``t_k`` (``2k``), ``t_k + dt/2`` (``2k + 1``); an
array with one row is the same at every stage. The module's ``run(data, method, dt,
limit, k0, k1, Q, QD, QDD, TAU)`` is :func:`~robodyn.dynamics.steps.run` with ``data =
(P, PC, H, TAB, QR, QDR, QDDR, KP, KD, V)``: the model's parameters, the controller
model's, the wrench ``(1, 6)``, the tables, the gains and a ``(1, n)`` work row.
:func:`rollouts_source` adds ``run_many``: ``run`` over many rollouts, each with its own
rows of the data (:mod:`robodyn.motion.rollouts`).
"""

from __future__ import annotations

import functools
import inspect
import re

from ..dynamics import steps

CONTROLLERS = ("table", "pd_gravity", "computed_torque")
METHODS = ("rk4", "semi-implicit-euler")

# Every function of a loop module is inlined (Numba IR) into ``run``, one compiled loop as
# a hand-written one: a stage called, not inlined, takes its tuple of arrays at each call,
# some per cent of the loop's time.
_DECORATOR = '@njit(nogil=True, cache=True, error_model="numpy", inline="always")\n'
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")

_HEADER = '''import numpy as np
from numba import njit
from {fd} import kernel as fd
{controller_import}

''' + _DECORATOR + '''def row(A, s):
    return A[s] if A.shape[0] > 1 else A[0]

'''

_STAGE = '''
''' + _DECORATOR + '''def stage(data, s, q, qd, tau, acc):
    P, PC, H, TAB, QR, QDR, QDDR, KP, KD, v = data
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
        tau[0, i] = pd_gravity(q[0, i], qd[0, i], qr[i], KP[i], KD[i], tau[0, i]) + extra[i]''',
    "computed_torque": '''    qr = row(QR, s)
    qdr = row(QDR, s)
    qddr = row(QDDR, s)
    for i in range(n):
        v[0, i] = computed_torque_acceleration(q[0, i], qd[0, i], qr[i], qdr[i], qddr[i],
                                               KP[i], KD[i])
    ck(q, qd, v, PC, tau, 0, 1)
    for i in range(n):
        tau[0, i] += extra[i]''',
}


def _module_name(name: str) -> str:
    """``name``, checked to be a dotted Python name before it goes into a loop's source."""
    if not _MODULE.fullmatch(name):
        raise ValueError(f"not a module name: {name!r}")
    return name


def shared_source() -> str:
    """The constants and functions of :mod:`robodyn.dynamics.steps` as loop-module text:
    their own source, each function under ``njit``."""
    constants = "".join(f"{name} = {int(value)!r}\n"
                        for name, value in steps.LOOP_CONSTANTS.items())
    functions = "".join("\n" + _DECORATOR + inspect.getsource(fn)
                        for fn in steps.LOOP_FUNCTIONS)
    return constants + functions


def loop_source(fd_module: str, controller: str, controller_module: str | None,
                contact: bool) -> str:
    """The loop module for a forward-dynamics kernel module ``fd_module`` (with an ``h_e``
    input when ``contact``) and a ``controller`` of :data:`CONTROLLERS` whose model
    kernel (gravity or inverse dynamics) lives in ``controller_module``."""
    if controller not in CONTROLLERS:
        raise ValueError(f"unknown controller {controller!r}")
    imports = (f"from {_module_name(controller_module)} import kernel as ck"
               if controller != "table" else "")
    return (_HEADER.format(fd=_module_name(fd_module), controller_import=imports)
            + shared_source()
            + _STAGE.format(controller=_CONTROLLER[controller],
                            contact=", H" if contact else ""))


# Many rollouts: ``run`` once per rollout ``r`` of ``r0:r1`` on its own rows of the
# (N or 1)-leading data, skipping rollouts that failed earlier (``FAILED[r] >= 0``). Not
# inlined anywhere: threads of robodyn's pool each run one range of rollouts (nogil).
_ROLLOUTS = '''
@njit(nogil=True, cache=True, error_model="numpy")
def run_many(P, PC, H, TAB, QR, QDR, QDDR, KP, KD, method, dt, limit, k0, k1, Q, QD, QDD,
             TAU, FAILED, r0, r1):
    v = np.empty((1, Q.shape[2]))
    for r in range(r0, r1):
        if FAILED[r] >= 0:
            continue
        data = (row(P, r), row(PC, r), row(H, r), row(TAB, r), row(QR, r), row(QDR, r),
                row(QDDR, r), row(KP, r), row(KD, r), v)
        FAILED[r] = run(data, method, dt, limit, k0, k1, Q[r], QD[r], QDD[r], TAU[r])
    return 0
'''


@functools.lru_cache(maxsize=64)
def rollouts_source(fd_module: str, controller: str, controller_module: str | None,
                    contact: bool) -> str:
    """:func:`loop_source` and ``run_many(P, PC, H, TAB, QR, QDR, QDDR, KP, KD, method, dt,
    limit, k0, k1, Q, QD, QDD, TAU, FAILED, r0, r1)``: the loop's ``run`` for rollouts
    ``r0`` to ``r1 - 1``, each on row ``r`` (or the only row) of the data arrays, which
    have a leading rollout axis (``P`` ``(N, p)``, ``H`` ``(N, 1, 6)``, ``TAB`` ``(N, S,
    n)``, ``KP`` ``(N, n)``, ...) and of ``Q``, ``QD``, ``QDD``, ``TAU`` ``(N, T, n)``;
    ``FAILED[r]`` gets ``run``'s result, and a rollout whose entry is already ``>= 0`` is
    skipped (it failed in an earlier chunk of steps)."""
    return loop_source(fd_module, controller, controller_module, contact) + _ROLLOUTS
