"""Simulation of a robot whose configuration is a manifold (no contacts): a free-flying base
or ball joints, whose ``q`` holds unit quaternions (:mod:`robodyn.model.joints`);
:func:`robodyn.simulate` hands such a robot here.

The state is the configuration ``q`` (``nq`` values: a free joint's position and unit
quaternion ``(x, y, z, w)``, a ball joint's quaternion, one value per other joint) and the
velocity ``v`` (``nv``: a free joint's body twist, a ball joint's angular velocity, the
joint rates), with ``dv/dt = FD(q, v, tau)`` (:meth:`Robot.forward_dynamics
<robodyn.Robot.forward_dynamics>`). The configuration stays on its manifold:

* ``"semi-implicit-euler"`` (fixed ``dt``): ``v+ = v + dt a(q, v)``, then
  ``q+ = q ⊕ v+ dt`` joint by joint (:meth:`Chain.integrate
  <robodyn.model.chain.Chain.integrate>`: the SE(3) exponential of a free joint's twist, the
  quaternion exponential of a ball joint's rotation, as ``pin.integrate``);
* ``"rk4"`` (fixed ``dt``), ``"rk45"`` and ``"dop853"`` (adaptive, SciPy's error control):
  the embedded equations ``dp/dt = R v_lin``, ``dquat/dt = 1/2 quat ⊗ (w, 0)``,
  ``dq_j/dt = qd_j`` (:meth:`Chain.configuration_rate
  <robodyn.model.chain.Chain.configuration_rate>`), every quaternion renormalised after
  every step (and inside every evaluation), so it stays unit to rounding.

Budgets as in :mod:`robodyn.motion.simulation`: at most ``duration / dt`` fixed steps
(:data:`~robodyn.motion.simulation.MAX_STEPS`), at most ``max_steps`` adaptive ones, a
state past :data:`~robodyn.motion.simulation.MAX_MAGNITUDE` is a diverged run. The
work-energy balance is checked as for a fixed base. Not yet for quaternion joints: the
end-effector wrench ``h_e``, batches of rollouts, per-rollout ``values``, the implicit
methods and the compiled control loops.
"""

from __future__ import annotations

import time

import numpy as np

from ..core.errors import InputError, RobodynError, warn
from ..core.progress import tracker
from .simulation import (
    DEFAULT_MAX_STEPS,
    MAX_MAGNITUDE,
    PROGRESS_CHUNKS,
    JointLimitWarning,
    Simulation,
    TorqueTable,
    check_magnitude,
    checked_options,
    crossed_limits,
    energy_balance,
    warn_energy_balance,
)

#: The methods a model with quaternion joints runs with.
MANIFOLD_METHODS = ("rk45", "dop853", "rk4", "semi-implicit-euler")


def _vector(value, name: str, size: int, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected {size} real numbers ({what})") from None
    if arr.ndim == 0 and name != "q0":
        arr = np.full(size, float(arr))
    if arr.shape != (size,):
        raise InputError(f"{name}: expected {size} values ({what}), got shape {arr.shape}"
                         + ("; batches of rollouts do not support quaternion joints yet"
                            if arr.ndim == 2 else ""))
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: {arr.tolist()} is not finite")
    check_magnitude(arr, name)
    return arr


def simulate_manifold(robot, q0, qd0=0.0, duration=1.0, tau=None, tau_times=None, h_e=None,
                      dt=None, method=None, rtol=1e-9, atol=1e-9, max_step=np.inf,
                      progress=None, check_limits=True, max_steps=DEFAULT_MAX_STEPS,
                      sample_dt=None, values=None) -> Simulation:
    """:func:`robodyn.simulate` of a robot with quaternion joints (module docstring): ``q0`` of
    ``nq``, ``qd0`` of ``nv`` values (a number: that for each), ``tau`` ``None``, a table
    ``(T, nv)`` or a callable ``tau(t, q, v)`` giving ``nv`` values."""
    for name, given in (("h_e", h_e), ("values", values)):
        if given is not None:
            raise RobodynError(f"simulate: {name} does not support quaternion joints yet (the "
                               "robot has a free-flying base or ball joints)"
                               + ("; give the wrench as generalised forces in tau: "
                                  "tau(t, q, v) = -robot.jacobian(q, frame).T @ wrench"
                                  if name == "h_e" else ""))
    if not callable(tau) and tau is not None and np.ndim(tau) == 3:
        raise InputError("tau: batches of rollouts do not support quaternion joints yet")
    chain = robot.chain
    nq, nv = robot.nq, robot.nv
    q0 = _vector(q0, "q0", nq, f"nq = {nq}: {robot.configuration_layout}")
    (q0,) = robot._manifold_inputs("simulate", q=q0)  # unit quaternions
    q0 = chain.normalized(q0)
    qd0 = _vector(qd0, "qd0", nv, f"nv = {nv}: {robot.velocity_layout}")
    if method is not None and str(method).lower() not in MANIFOLD_METHODS:
        raise InputError(f"method: {str(method)[:40]!r} does not support quaternion joints yet; "
                         f"use one of {', '.join(MANIFOLD_METHODS)}")
    duration, method, times, keep, rtol, atol, max_steps, max_step = checked_options(
        duration, dt, method, sample_dt, rtol, atol, max_steps, max_step)
    if callable(tau):
        def torque(t, q, v):
            return _vector(tau(t, q, v), "tau(t, q, qd)", nv, f"nv = {nv}")
    elif tau is None:
        zero = np.zeros(nv)

        def torque(t, q, v):
            return zero
    else:
        table = TorqueTable(tau, tau_times, duration, nv)

        def torque(t, q, v):
            return table(t)

    def accel(t, q, v):
        return robot.forward_dynamics(q, v, torque(t, q, v))

    start = time.perf_counter()
    with tracker(progress, duration, "simulating") as bar:
        if method in ("rk4", "semi-implicit-euler"):
            t, q, v = _fixed(chain, accel, q0, qd0, times, method, bar)
            info = {"dt": float(dt), "steps": len(times) - 1}
        else:
            t, q, v, steps = _adaptive(chain, accel, q0, qd0, duration, times, method, rtol,
                                       atol, max_step, max_steps, bar)
            info = {"dt": None, "steps": steps, "rtol": rtol, "atol": atol}
    wall = time.perf_counter() - start
    taus = np.stack([torque(tk, qk, vk) for tk, qk, vk in zip(t, q, v)])
    a = robot.forward_dynamics(q, v, taus)
    sim = Simulation(t, q, v, a, taus, robot.kinetic_energy(q, v), robot.potential_energy(q),
                     info)
    sim.info.update(method=method, wall_time=wall, floating_base=chain.floating,
                    realtime_factor=(sim.t[-1] / wall) if wall > 0 else np.inf)
    balance = sim.info["energy_balance"] = energy_balance(robot, sim)
    warn_energy_balance(balance, sim.info, "robot")
    if check_limits:
        crossed = crossed_limits(robot, sim)
        if crossed:
            sim.info["limits_crossed"] = crossed
            shown = "; ".join(crossed[:8]) + (f"; and {len(crossed) - 8} more"
                                              if len(crossed) > 8 else "")
            warn(JointLimitWarning(f"simulate: joint limits crossed (not enforced): {shown}"))
    if keep is not None:
        sim = Simulation(sim.t[keep], sim.q[keep], sim.qd[keep], sim.qdd[keep], sim.tau[keep],
                         sim.kinetic[keep], sim.potential[keep], sim.info)
    if sample_dt is not None:
        sim.info["sample_dt"] = float(sample_dt)
    return sim


def _diverged(t: float, y: np.ndarray) -> None:
    if not (np.isfinite(y).all() and np.abs(y).max() <= MAX_MAGNITUDE):
        raise RobodynError(f"simulate: the motion diverged at t = {t:.6g} s (a "
                           f"state beyond {MAX_MAGNITUDE:g} or not finite): a smaller dt or "
                           "tighter tolerances, or torques in a physical range")


def _fixed(chain, accel, q0, v0, times, method, bar):
    """Fixed steps on the grid ``times`` (its last step may be shorter)."""
    n = len(times)
    q = np.empty((n, len(q0)))
    v = np.empty((n, len(v0)))
    q[0], v[0] = q0, v0
    for k in range(n - 1):
        h = times[k + 1] - times[k]
        t, qk, vk = times[k], q[k], v[k]
        if method == "semi-implicit-euler":
            v_next = vk + h * accel(t, qk, vk)
            q_next = chain.integrate(qk, v_next, h)
        else:  # classic RK4 on the embedded equations, the quaternions renormalised
            configuration_rate, normalized = chain.configuration_rate, chain.normalized
            k1q, k1v = configuration_rate(qk, vk), accel(t, qk, vk)
            q2, v2 = normalized(qk + h / 2 * k1q), vk + h / 2 * k1v
            k2q, k2v = configuration_rate(q2, v2), accel(t + h / 2, q2, v2)
            q3, v3 = normalized(qk + h / 2 * k2q), vk + h / 2 * k2v
            k3q, k3v = configuration_rate(q3, v3), accel(t + h / 2, q3, v3)
            q4, v4 = normalized(qk + h * k3q), vk + h * k3v
            k4q, k4v = configuration_rate(q4, v4), accel(t + h, q4, v4)
            q_next = normalized(qk + h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q))
            v_next = vk + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        _diverged(times[k + 1], np.concatenate([q_next, v_next]))
        q[k + 1], v[k + 1] = q_next, v_next
        if (k + 1) % max(1, n // PROGRESS_CHUNKS) == 0:
            bar.update(times[k + 1])
    return np.asarray(times, dtype=float), q, v


def _adaptive(chain, accel, q0, v0, duration, times, method, rtol, atol, max_step, max_steps,
              bar):
    """SciPy's ``RK45``/``DOP853`` on the embedded equations, at most ``max_steps`` steps;
    samples at the steps, or at ``times`` from the dense output."""
    from scipy.integrate import DOP853, RK45

    nq = len(q0)
    configuration_rate, normalized = chain.configuration_rate, chain.normalized

    def rhs(t, y):
        q = normalized(y[:nq])
        v = y[nq:]
        return np.concatenate([configuration_rate(q, v), accel(t, q, v)])

    solver = (RK45 if method == "rk45" else DOP853)(rhs, 0.0, np.concatenate([q0, v0]),
                                                    duration, rtol=rtol, atol=atol,
                                                    max_step=max_step)
    ts, ys = [0.0], [solver.y.copy()]
    steps = 0
    while solver.status == "running":
        if steps >= max_steps:
            raise RobodynError(f"simulate: max_steps = {max_steps:,} adaptive steps reached at "
                               f"t = {solver.t:.6g} s of {duration:g} s: a larger max_steps, "
                               "looser tolerances or a fixed dt")
        message = solver.step()
        steps += 1
        if solver.status == "failed":
            raise RobodynError(f"simulate: the solver failed at t = {solver.t:.6g} s "
                               f"({message})")
        y = solver.y.copy()
        _diverged(solver.t, y)
        y[:nq] = normalized(y[:nq])
        solver.y[:] = y  # the quaternion back on the unit sphere for the next step
        if times is not None:
            dense = solver.dense_output()
            for tk in times[(times > ts[-1]) & (times <= solver.t)]:
                ts.append(float(tk))
                ys.append(dense(tk) if tk < solver.t else y)
        else:
            ts.append(float(solver.t))
            ys.append(y)
        bar.update(solver.t)
    y = np.array(ys)
    return np.array(ts), normalized(y[:, :nq]), y[:, nq:], steps
