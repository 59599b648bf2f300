"""The fixed-step methods of :func:`robodyn.simulate`, ``"rk4"`` and
``"semi-implicit-euler"``: the loop of :mod:`robodyn.motion.steps` over the time grid,
compiled (:mod:`robodyn.motion.loops`: torque tables or the built-in controllers, a
constant wrench or none, the Numba backend) or in Python, where any callable torque or
wrench is called at each stage; in :data:`PROGRESS_CHUNKS` chunks when progress is
reported. A step whose result is not finite or passes
:data:`~robodyn.motion.inputs.MAX_MAGNITUDE` ends the run with :func:`raise_diverged`'s
error, which names the likely cause."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np

from ..codegen.cache import generated_function
from ..codegen.tiers import loops_compile
from ..core.errors import InputError, RobodynError
from .adaptive import fastest_rate, state_rate, state_words
from .inputs import MAX_MAGNITUDE, Problem, TorqueTable, torque_value, wrench_value
from .loops import loop_source
from .options import SimulationOptions, shorter_last_step
from .result import Simulation, finished
from .steps import RK4, SEMI_IMPLICIT_EULER, bind, joint_table

__all__ = ["run_fixed", "raise_diverged", "stage_grid", "PROGRESS_CHUNKS"]

#: ``|dt lambda|`` beyond which a fixed-step method is unstable for an eigenvalue ``lambda``
#: of the motion's linearisation (the ends of the stability regions on the real axis).
_STABILITY = {"rk4": 2.78, "semi-implicit-euler": 2.0}
#: Fixed-step loops (compiled or not) run in this many chunks when progress is reported;
#: each chunk is one call of the loop, so the reports cost nothing per step.
PROGRESS_CHUNKS = 100


def run_fixed(problem: Problem, options: SimulationOptions, bar) -> Simulation:
    """Fixed steps over the times ``options.times``
    (:func:`~robodyn.motion.options.time_grid`): ``options.dt`` each, the last one maybe
    shorter; in :data:`PROGRESS_CHUNKS` chunks when ``bar`` is active (told the time after
    each)."""
    robot, q0, qd0 = problem.robot, problem.q0, problem.qd0
    torque, wrench, method, t = problem.torque, problem.wrench, options.method, options.times
    dof = robot.dof
    dt = options.dt
    steps = len(t) - 1
    last = float(t[-1] - t[-2])
    regular = steps - 1 if shorter_last_step(last, dt) else steps
    Q = np.empty((steps + 1, robot.nq))
    QD = np.empty((steps + 1, dof))
    QDD = np.empty((steps + 1, dof))
    TAU = np.empty((steps + 1, dof))
    Q[0], QD[0] = q0, qd0
    compiled = _compiled_loop(robot, torque, wrench, t)
    runner = compiled if compiled is not None else _python_loop(robot, torque, wrench, t)
    chunks = np.linspace(0, regular, (PROGRESS_CHUNKS if bar.active else 1) + 1).astype(int)
    segments = [(a, b, dt) for a, b in zip(chunks[:-1], chunks[1:]) if b > a]
    if regular < steps:
        segments.append((regular, steps, last))
    code = SEMI_IMPLICIT_EULER if method == "semi-implicit-euler" else RK4
    for a, b, h in segments:
        failed = runner(a, b, code, h, Q, QD, QDD, TAU)
        if failed >= 0:
            h_failed = dt if failed < regular else last
            raise_diverged(robot, torque, wrench, method, t[failed], h_failed, Q[failed],
                           QD[failed])
        bar.update(t[b])
    # torque and acceleration at the last sample
    q_end, qd_end = Q[-1], QD[-1]
    TAU[-1] = torque_value(torque, t[-1], q_end, qd_end, dof)
    QDD[-1] = robot.forward_dynamics(q_end, qd_end, TAU[-1],
                                     h_e=wrench_value(wrench, t[-1], q_end, qd_end))
    info = {"steps": steps, "dt": dt, "compiled": compiled is not None}
    if regular < steps:
        info["last_step"] = last
    return finished(robot, t, Q, QD, QDD, TAU, info)


def raise_diverged(robot, torque, wrench, method, t, h, q, qd):
    """Raise the error of a fixed step of size ``h`` from ``(t, q, qd)`` whose result stopped
    being finite or passed :data:`MAX_MAGNITUDE`: the model's own error where the dynamics
    fail at ``(q, qd)`` itself (a singular mass matrix), else the likely cause."""
    dof = robot.dof
    rhs = state_rate(robot, torque, wrench)
    y = np.concatenate([q, qd])
    nq = robot.nq
    rhs(t, y)  # raises the model's (or the torque callable's) error at this state, if any
    rate = fastest_rate(rhs, t, y)
    limit = _STABILITY[method]
    if rate is not None and rate * h > limit:
        tau = torque_value(torque, t, q, qd, dof)
        passive = fastest_rate(state_rate(robot, lambda *_: tau, wrench), t, y)
        controller = callable(torque) and not isinstance(torque, TorqueTable)
        if controller and passive is not None and passive * h <= limit:
            who = "the controller's gains are too high for dt"
        else:
            who = "the motion is too fast for dt (stiff friction, light links or a high speed)"
        cause = (f"{who}: the motion's fastest rate is {rate:.3g} 1/s, and {method} is stable "
                 f"only for dt below about {limit / rate:.2g} s; reduce dt, or use "
                 "method='implicit-euler' or 'radau'")
    else:
        cause = ("the torques or the wrench drive the arm without bound, or dt is too large "
                 "for the motion; check tau and the model's values, or reduce dt")
    raise RobodynError(f"simulate: the motion diverged on the step from t = {t:.6g} s to "
                       f"{t + h:.6g} s: the state stopped being finite or passed "
                       f"{MAX_MAGNITUDE:g} (from {state_words(y, nq)}); {cause}")


def _python_loop(robot, torque, wrench, times):
    """The fixed-step loop in Python: any callable torque or wrench, one call of each per
    stage, in :func:`robodyn.motion.steps.run` (the code the compiled loop runs). ``run``
    returns -1, or the step whose result stopped being finite or passed
    :data:`MAX_MAGNITUDE` (its state is not recorded), as the compiled loop does."""
    dof = robot.dof
    stage_times = stage_grid(times)
    errors = np.geterr()

    def stage(data, s, q, qd, tau, acc):
        t, q, qd = stage_times[s], q[0].copy(), qd[0].copy()
        try:
            with np.errstate(**errors):  # the caller's, for tau and h_e (the loop: none)
                tau_t = torque_value(torque, t, q, qd, dof)
                acc[0] = robot.forward_dynamics(q, qd, tau_t, h_e=wrench_value(wrench, t, q, qd))
                tau[0] = tau_t
        except RobodynError:
            return 0
        return -1

    loop = bind(stage)
    table = joint_table(robot.chain)

    def run(k0, k1, method, dt, Q, QD, QDD, TAU):  # one motion: a block of one
        with np.errstate(all="ignore"):
            return loop(None, table, method, dt, MAX_MAGNITUDE, k0, k1, Q[None], QD[None],
                        QDD[None], TAU[None])

    return run


def stage_grid(times):
    """The stage times of the fixed-step loops: ``t_k`` at ``2k``, ``t_k + h/2`` at
    ``2k + 1``."""
    stage_times = np.empty(2 * len(times) - 1)
    stage_times[0::2] = times
    stage_times[1::2] = (times[:-1] + times[1:]) / 2
    return stage_times


def loop_kernels_ready(runner, fd_kind: str, controller, kind: str) -> bool:
    """Whether the compiled kernels a loop calls (the forward dynamics ``fd_kind`` of
    ``runner``, and a built-in ``controller``'s model kernel for ``kind``) are at hand
    without compiling (:meth:`~robodyn.codegen.runner.Runner.compiled_ready`)."""
    if not runner.compiled_ready(fd_kind):
        return False
    if kind in ("pd_gravity", "computed_torque"):
        need = "gravity_torques" if kind == "pd_gravity" else "inverse_dynamics"
        return controller.model.runner.compiled_ready(need)
    return True


def python_loop_seconds(robot, kind: str, stages: int) -> float:
    """About how long ``stages`` evaluations of a loop's stage take in Python (RK4: 4 a
    step): each a forward dynamics (timed here on the tier that answers now, the best of
    three calls), and for a computed-torque controller an inverse dynamics too."""
    q, v = robot.neutral(), np.zeros(robot.dof)
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        robot.forward_dynamics(q, v, v)
        best = min(best, time.perf_counter() - start)
    return stages * best * (2 if kind == "computed_torque" else 1)


def _compiled_loop(robot, torque, wrench, times):
    """The compiled fixed-step loop when everything it needs is compiled: a torque table or
    a built-in controller, a constant (or no) wrench, the Numba backend. Else None."""
    if callable(wrench) or isinstance(wrench, Mapping):  # per-frame wrenches: the Python loop
        return None
    kind = "table"
    if torque is not None and not isinstance(torque, TorqueTable):
        kind = getattr(torque, "kind", None)
        if kind not in ("pd_gravity", "computed_torque"):
            return None
    contact = wrench is not None
    fd_kind = "forward_dynamics_contact" if contact else "forward_dynamics"
    if not loops_compile(robot.dof,
                         lambda: loop_kernels_ready(robot.runner, fd_kind, torque, kind),
                         lambda: python_loop_seconds(robot, kind, 4 * len(times))):
        return None  # a big model, or kernels still compiling: the Python loop
    fd = robot.runner.kernel(fd_kind)
    if fd.backend != "numba":
        return None
    dof = robot.dof
    stage_times = stage_grid(times)
    empty = np.zeros((1, dof))
    tab, qr, qdr, qddr = empty, empty, empty, empty
    kp = kd = np.zeros(dof)
    pc = np.zeros(0)
    controller_module = None
    if isinstance(torque, TorqueTable):
        tab = np.ascontiguousarray(torque(stage_times))
    elif kind != "table":
        model = torque.model
        if model.dof != dof:
            raise InputError(f"controller model has {model.dof} joints, the robot {dof}")
        ck = model.runner.kernel("gravity_torques" if kind == "pd_gravity" else "inverse_dynamics")
        if ck.backend != "numba":
            return None
        controller_module = ck.fn.py_func.__module__
        pc = model.parameter_values
        kp, kd = torque.kp, torque.kd
        refs = torque.references(stage_times)
        qr, qdr, qddr = (np.ascontiguousarray(np.atleast_2d(r)) for r in refs)
    source = loop_source(fd.fn.py_func.__module__, kind, controller_module, contact)
    run = generated_function(source, "run")
    p = robot.parameter_values
    h = np.ascontiguousarray(np.reshape(wrench if contact else np.zeros(6), (1, 6)))
    # the loop's data for one motion: each table with a leading axis of one
    data = (p, pc, h, tab[None], qr[None], qdr[None], qddr[None], kp[None], kd[None],
            np.empty((1, dof)))
    table = joint_table(robot.chain)

    def runner(k0, k1, method, dt, Q, QD, QDD, TAU):
        return run(data, table, method, dt, MAX_MAGNITUDE, k0, k1, Q[None], QD[None],
                   QDD[None], TAU[None])

    return runner
