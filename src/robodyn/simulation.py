"""Simulation: the direct dynamics integrated in time (the seeds' first use of the model).

``rd.simulate(robot, q0, ...)`` integrates ``M(q) qdd + C qd + F_v qd + F_s sign(qd)
+ g = tau - J^T h_e`` from ``(q0, qd0)``:

* adaptive (``dt=None``): SciPy's ``solve_ivp`` (``"rk45"``, or ``"dop853"`` for
  tight tolerances), error controlled by ``rtol``/``atol``, samples at the
  solver's steps, dense output kept in ``sim.solution``;
* implicit, for stiff motions (large friction, stiff feedback): ``"radau"``
  (adaptive, SciPy's Radau IIA with the exact Jacobian) or ``"implicit-euler"``
  (fixed ``dt``, Newton's method), both driven by the dynamics' derivatives
  (:mod:`robodyn.implicit`);
* fixed step (``dt`` given): classic ``"rk4"`` or ``"semi-implicit-euler"``
  (symplectic: velocity first, then position with the new velocity), as a
  control loop at ``1/dt`` Hz would run. With Numba, torque tables and the
  built-in controllers (:mod:`robodyn.control`) run in a compiled loop
  (:mod:`robodyn.codegen.loops`); Python callables still work, one call per
  stage.

Torques ``tau``: ``None`` (zero), an array ``(T, dof)`` at ``tau_times``
(default: ``T`` instants spread evenly over the duration; linear in between,
the last value held), or a callable ``tau(t, q, qd)``. ``h_e``: ``None``, a
constant wrench (6 values) or a callable ``h_e(t, q, qd)``.

Joint limits the model knows (URDF ``<limit>``) are reported, not enforced: a
:class:`JointLimitWarning` names each limit crossed and when it first was.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .codegen.kernels import generated_function
from .codegen.loops import loop_source
from .errors import InputError, RobodynError, positive_number, warn

__all__ = ["simulate", "Simulation", "JointLimitWarning", "METHODS"]

METHODS = ("rk45", "dop853", "rk4", "semi-implicit-euler", "implicit-euler", "radau")
#: Fixed-step loops report progress in this many chunks.
_CHUNKS = 20


class JointLimitWarning(UserWarning):
    """A simulated motion crossed a joint limit of the model (position, velocity, effort)."""


@dataclass
class Simulation:
    """A simulated motion: ``t`` ``(T,)``; ``q``, ``qd``, ``qdd``, ``tau`` ``(T, dof)``; the
    ``kinetic``, ``potential`` and ``total`` energy ``(T,)``; ``info`` (method, steps,
    wall time, real-time factor, ...); ``solution`` (the dense output of adaptive runs)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    info: dict = field(default_factory=dict)
    solution: object = None

    @property
    def total(self) -> np.ndarray:
        """Mechanical energy ``K + U``."""
        return self.kinetic + self.potential

    @property
    def dof(self) -> int:
        return self.q.shape[1]

    def columns(self) -> dict[str, np.ndarray]:
        """Every recorded series by name: ``t``, ``q1..``, ``qd1..``, ``qdd1..``, ``tau1..``,
        ``kinetic``, ``potential``, ``total``."""
        out = {"t": self.t}
        for name in ("q", "qd", "qdd", "tau"):
            values = getattr(self, name)
            for j in range(self.dof):
                out[f"{name}{j + 1}"] = values[:, j]
        out.update(kinetic=self.kinetic, potential=self.potential, total=self.total)
        return out

    def save(self, path: str | Path) -> Path:
        """Write the run to ``.npz`` (arrays by name) or ``.csv`` (a header, one row per
        sample)."""
        path = Path(path)
        columns = self.columns()
        if path.suffix.lower() == ".npz":
            np.savez(path, **columns)
        elif path.suffix.lower() == ".csv":
            data = np.column_stack(list(columns.values()))
            np.savetxt(path, data, delimiter=",", header=",".join(columns), comments="",
                       fmt="%.17g")
        else:
            raise InputError(f"save: {path.name!r}: use a .npz or .csv file name")
        return path


# -- arguments ---------------------------------------------------------------------------------
def _state(value, name: str, dof: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected {dof} real numbers") from None
    arr = np.broadcast_to(arr, (dof,)).copy() if arr.ndim == 0 else arr
    if arr.shape != (dof,):
        raise InputError(f"{name}: expected {dof} values (one per joint), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: {arr.tolist()} is not finite")
    return arr


class _Table:
    """Torques given at times: linear in between, the last value held."""

    def __init__(self, values, times, duration: float, dof: int):
        values = np.asarray(values, dtype=float)
        if values.ndim == 1 and dof == 1:
            values = values[:, None]
        if values.ndim != 2 or values.shape[1] != dof:
            raise InputError(f"tau: expected an array (T, {dof}) or a callable tau(t, q, qd), "
                             f"got shape {values.shape}")
        if not np.isfinite(values).all():
            raise InputError("tau: every value must be finite")
        if times is None:
            times = np.linspace(0.0, duration, values.shape[0]) if values.shape[0] > 1 \
                else np.zeros(1)
        times = np.asarray(times, dtype=float).reshape(-1)
        if times.shape[0] != values.shape[0]:
            raise InputError(f"tau_times: {times.shape[0]} times for {values.shape[0]} rows of "
                             "tau")
        if (np.diff(times) <= 0).any():
            raise InputError("tau_times: must increase strictly")
        self.values, self.times = values, times

    def __call__(self, t, q=None, qd=None) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        out = np.stack([np.interp(t, self.times, self.values[:, j])
                        for j in range(self.values.shape[1])], axis=-1)
        return out


def _wrench(h_e):
    if h_e is None or callable(h_e):
        return h_e
    h = np.asarray(h_e, dtype=float)
    if h.shape != (6,) or not np.isfinite(h).all():
        raise InputError("h_e: expected 6 finite numbers (force, moment; base frame) or a "
                         "callable h_e(t, q, qd)")
    return h


# -- the run -----------------------------------------------------------------------------------
def simulate(robot, q0, qd0=0.0, duration: float = 1.0, tau=None, tau_times=None, h_e=None,
             dt: float | None = None, method: str | None = None, rtol: float = 1e-9,
             atol: float = 1e-9, max_step: float = np.inf, progress: bool | None = None,
             check_limits: bool = True) -> Simulation:
    """Integrate the robot's motion from ``q0``, ``qd0`` for ``duration`` seconds (see the
    module docstring for ``tau``, ``h_e`` and the methods; default method: ``"rk45"``
    without ``dt``, ``"rk4"`` with it)."""
    dof = robot.dof
    q0 = _state(q0, "q0", dof)
    qd0 = _state(qd0, "qd0", dof)
    duration = positive_number(duration, "duration")
    if method is None:
        method = "rk45" if dt is None else "rk4"
    method = str(method).lower()
    if method not in METHODS:
        raise InputError(f"method: {method!r} is not one of {', '.join(METHODS)}")
    if method in ("rk4", "semi-implicit-euler", "implicit-euler") and dt is None:
        raise InputError(f"method {method!r} is a fixed-step method: give dt (e.g. 0.001)")
    if dt is not None:
        dt = positive_number(dt, "dt")
    if callable(tau):
        torque = tau
    elif tau is None:
        torque = None
    else:
        torque = _Table(tau, tau_times, duration, dof)
    wrench = _wrench(h_e)
    start = time.perf_counter()
    if method in ("implicit-euler", "radau"):
        sim = _implicit(robot, q0, qd0, duration, torque, wrench, method, rtol, atol, dt,
                        max_step)
    elif method in ("rk45", "dop853"):
        sim = _adaptive(robot, q0, qd0, duration, torque, wrench, method, rtol, atol, dt,
                        max_step)
    else:
        sim = _fixed(robot, q0, qd0, duration, torque, wrench, method, dt, progress)
    wall = time.perf_counter() - start
    sim.info.update(method=method, wall_time=wall,
                    realtime_factor=(sim.t[-1] / wall) if wall > 0 else np.inf)
    if check_limits:
        _report_limits(robot, sim)
    return sim


def _torque_at(torque, t, q, qd, dof):
    if torque is None:
        return np.zeros(dof)
    return _state(torque(t, q, qd), "tau(t, q, qd)", dof)


def _wrench_at(wrench, t, q, qd):
    if wrench is None or not callable(wrench):
        return wrench
    h = np.asarray(wrench(t, q, qd), dtype=float)
    if h.shape != (6,) or not np.isfinite(h).all():
        raise InputError(f"h_e(t, q, qd) returned {h!r:.80}; expected 6 finite numbers")
    return h


def _finish(robot, t, q, qd, qdd, tau, info, solution=None) -> Simulation:
    return Simulation(t, q, qd, qdd, tau, robot.kinetic_energy(q, qd), robot.potential_energy(q),
                      info, solution)


def _adaptive(robot, q0, qd0, duration, torque, wrench, method, rtol, atol, dt, max_step):
    from scipy.integrate import solve_ivp  # noqa: PLC0415 - SciPy only when used

    dof = robot.dof

    def rhs(t, y):
        q, qd = y[:dof], y[dof:]
        tau = _torque_at(torque, t, q, qd, dof)
        return np.concatenate([qd, robot.forward_dynamics(q, qd, tau,
                                                          h_e=_wrench_at(wrench, t, q, qd))])

    t_eval = None
    if dt is not None:
        t_eval = np.arange(int(np.floor(duration / dt + 1e-9)) + 1) * dt
    result = solve_ivp(rhs, (0.0, duration), np.concatenate([q0, qd0]),
                       method="RK45" if method == "rk45" else "DOP853", rtol=rtol, atol=atol,
                       dense_output=True, t_eval=t_eval, max_step=max_step)
    if result.status < 0:
        raise RobodynError(f"simulate: the integrator failed at t = {result.t[-1]:.6g} s "
                           f"({result.message}); try a smaller max_step or looser tolerances")
    t, q, qd = result.t, result.y[:dof].T.copy(), result.y[dof:].T.copy()
    tau = np.stack([_torque_at(torque, tk, qk, qdk, dof) for tk, qk, qdk in zip(t, q, qd)])
    if wrench is None or not callable(wrench):
        qdd = robot.forward_dynamics(q, qd, tau, h_e=wrench)
    else:
        qdd = np.stack([robot.forward_dynamics(qk, qdk, tk_tau, h_e=_wrench_at(wrench, tk, qk,
                                                                             qdk))
                        for tk, qk, qdk, tk_tau in zip(t, q, qd, tau)])
    info = {"steps": len(t) - 1, "evaluations": int(result.nfev), "rtol": rtol, "atol": atol}
    return _finish(robot, t, q, qd, qdd, tau, info, result.sol)


def _implicit(robot, q0, qd0, duration, torque, wrench, method, rtol, atol, dt, max_step):
    """``"implicit-euler"`` and ``"radau"``, driven by the dynamics' derivatives
    (:mod:`robodyn.implicit`)."""
    from . import implicit  # noqa: PLC0415

    dof = robot.dof

    def torque_at(t, q, qd):
        return _torque_at(torque, t, q, qd, dof)

    def wrench_at(t, q, qd):
        return _wrench_at(wrench, t, q, qd)

    torque_at.state_dependent = callable(torque) and not isinstance(torque, _Table)
    if method == "implicit-euler":
        steps = max(1, int(round(duration / dt)))
        t, q, qd = implicit.implicit_euler(robot, q0, qd0, steps, dt, torque_at, wrench_at)
        info, solution = {"steps": steps, "dt": dt}, None
    else:
        t_eval = None
        if dt is not None:
            t_eval = np.arange(int(np.floor(duration / dt + 1e-9)) + 1) * dt
        result = implicit.radau(robot, q0, qd0, duration, torque_at, wrench_at, rtol, atol,
                                t_eval, max_step)
        if result.status < 0:
            raise RobodynError(f"simulate: the integrator failed at t = {result.t[-1]:.6g} s "
                               f"({result.message}); try a smaller max_step or looser "
                               "tolerances")
        t, q, qd = result.t, result.y[:dof].T.copy(), result.y[dof:].T.copy()
        info = {"steps": len(t) - 1, "evaluations": int(result.nfev),
                "jacobians": int(result.njev), "rtol": rtol, "atol": atol}
        solution = result.sol
    tau = np.stack([torque_at(tk, qk, qdk) for tk, qk, qdk in zip(t, q, qd)])
    qdd = np.stack([robot.forward_dynamics(qk, qdk, tk_tau, h_e=wrench_at(tk, qk, qdk))
                    for tk, qk, qdk, tk_tau in zip(t, q, qd, tau)])
    return _finish(robot, t, q, qd, qdd, tau, info, solution)


def _fixed(robot, q0, qd0, duration, torque, wrench, method, dt, progress):
    dof = robot.dof
    steps = max(1, int(round(duration / dt)))
    t = np.arange(steps + 1) * dt
    Q = np.empty((steps + 1, dof))
    QD = np.empty((steps + 1, dof))
    QDD = np.empty((steps + 1, dof))
    TAU = np.empty((steps + 1, dof))
    Q[0], QD[0] = q0, qd0
    if progress is None:
        progress = steps >= 200_000 and sys.stderr.isatty()
    compiled = _compiled_loop(robot, torque, wrench, steps, dt)
    runner = compiled if compiled is not None else _python_loop(robot, torque, wrench, dt)
    chunks = np.linspace(0, steps, (_CHUNKS if progress else 1) + 1).astype(int)
    for a, b in zip(chunks[:-1], chunks[1:]):
        failed = runner(a, b, 1 if method == "semi-implicit-euler" else 0, Q, QD, QDD, TAU)
        if failed >= 0:
            _diverged(robot, t[failed], Q[failed], QD[failed], TAU[failed])
        if progress:
            _progress_bar(b / steps)
    if progress:
        sys.stderr.write("\n")
    # torque and acceleration at the last sample
    q_end, qd_end = Q[-1], QD[-1]
    TAU[-1] = _torque_at(torque, t[-1], q_end, qd_end, dof)
    try:
        QDD[-1] = robot.forward_dynamics(q_end, qd_end, TAU[-1],
                                         h_e=_wrench_at(wrench, t[-1], q_end, qd_end))
    except RobodynError:
        _diverged(robot, t[-1], q_end, qd_end, TAU[-1])
    info = {"steps": steps, "dt": dt, "compiled": compiled is not None}
    return _finish(robot, t, Q, QD, QDD, TAU, info)


def _diverged(robot, t, q, qd, tau):
    if not (np.isfinite(q).all() and np.isfinite(qd).all()):
        raise RobodynError(f"simulate: the state stopped being finite by t = {t:.6g} s; the "
                           "step dt is too large for this motion or the torques are too "
                           "large")
    robot.forward_dynamics(q, qd, tau)  # explains a singular mass matrix, if that is it
    raise RobodynError(f"simulate: the motion stopped being finite near t = {t:.6g} s (q = "
                       f"{np.round(q, 4).tolist()}); reduce dt")


def _progress_bar(fraction: float) -> None:
    width = 30
    done = int(round(fraction * width))
    sys.stderr.write(f"\rsimulating [{'#' * done}{'.' * (width - done)}] {fraction:4.0%}")
    sys.stderr.flush()


def _python_loop(robot, torque, wrench, dt):
    """The fixed-step loop in Python: any callable torque or wrench."""
    dof = robot.dof

    def accel(t, q, qd):
        tau = _torque_at(torque, t, q, qd, dof)
        return tau, robot.forward_dynamics(q, qd, tau, h_e=_wrench_at(wrench, t, q, qd))

    def run(k0, k1, method, Q, QD, QDD, TAU):
        q, qd = Q[k0].copy(), QD[k0].copy()
        for k in range(k0, k1):
            t = k * dt
            tau, a1 = accel(t, q, qd)
            TAU[k], QDD[k] = tau, a1
            if not (np.isfinite(q).all() and np.isfinite(qd).all()):
                return k
            if method == 1:
                qd = qd + dt * a1
                q = q + dt * qd
            else:
                _, a2 = accel(t + dt / 2, q + dt / 2 * qd, qd + dt / 2 * a1)
                v2 = qd + dt / 2 * a1
                _, a3 = accel(t + dt / 2, q + dt / 2 * v2, qd + dt / 2 * a2)
                v3 = qd + dt / 2 * a2
                v4 = qd + dt * a3
                _, a4 = accel(t + dt, q + dt * v3, v4)
                q = q + dt / 6 * (qd + 2 * v2 + 2 * v3 + v4)
                qd = qd + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
            Q[k + 1], QD[k + 1] = q, qd
        return -1

    return run


def _compiled_loop(robot, torque, wrench, steps, dt):
    """The compiled fixed-step loop when everything it needs is compiled: a torque table or
    a built-in controller, a constant (or no) wrench, the Numba backend. Else None."""
    if callable(wrench):
        return None
    kind = "table"
    if torque is not None and not isinstance(torque, _Table):
        kind = getattr(torque, "kind", None)
        if kind not in ("pd_gravity", "computed_torque"):
            return None
    contact = wrench is not None
    fd = robot._kernel("forward_dynamics_contact" if contact else "forward_dynamics")
    if fd.backend != "numba":
        return None
    dof = robot.dof
    stage_times = np.arange(2 * steps + 1) * (dt / 2)
    empty = np.zeros((1, dof))
    tab, qr, qdr, qddr = empty, empty, empty, empty
    kp = kd = np.zeros(dof)
    pc = np.zeros(0)
    controller_module = None
    if isinstance(torque, _Table):
        tab = np.ascontiguousarray(torque(stage_times))
    elif kind != "table":
        model = torque.model
        if model.dof != dof:
            raise InputError(f"controller model has {model.dof} joints, the robot {dof}")
        ck = model._kernel("gravity_torques" if kind == "pd_gravity" else "inverse_dynamics")
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

    def runner(k0, k1, method, Q, QD, QDD, TAU):
        return run(p, pc, h, tab, qr, qdr, qddr, kp, kd, dt, k0, k1, method, Q, QD, QDD, TAU)

    return runner


def _report_limits(robot, sim: Simulation) -> None:
    crossed = []
    for j, link in enumerate(robot.numeric_chain.links):
        limits = link.joint.limits
        if not limits:
            continue
        lower, upper, velocity, effort = limits
        name = link.joint.name or f"joint {j + 1}"
        checks = [("position", (sim.q[:, j] < lower) | (sim.q[:, j] > upper),
                   f"[{lower:g}, {upper:g}]")]
        if lower == upper == 0:
            checks = []  # URDF's default when a file gives no position limits
        checks.append(("velocity", np.abs(sim.qd[:, j]) > velocity, f"{velocity:g}"))
        checks.append(("effort", np.abs(sim.tau[:, j]) > effort, f"{effort:g}"))
        for what, mask, bound in checks:
            if mask.any():
                crossed.append(f"{name} {what} limit {bound} first crossed at t = "
                               f"{sim.t[int(np.argmax(mask))]:.4g} s")
    if crossed:
        sim.info["limits_crossed"] = crossed
        shown = "; ".join(crossed[:8]) + (f"; and {len(crossed) - 8} more" if len(crossed) > 8
                                          else "")
        warn(JointLimitWarning(f"simulate: joint limits crossed (not enforced): {shown}"))
