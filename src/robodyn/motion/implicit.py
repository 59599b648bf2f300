"""Implicit integrators of :func:`robodyn.simulate`, driven by the dynamics' derivatives.

The state ``y = (q, qd)`` obeys ``y' = f(t, y) = (qd, FD(q, qd, tau(t, q, qd)))`` with
the Jacobian

    df/dy = [[0, 1], [dqdd/dq + M^-1 dtau/dq, dqdd/dqd + M^-1 dtau/dqd]]

from :meth:`~robodyn.Robot.forward_dynamics_derivatives` (``dqdd/dtau = M^-1``). When
``tau`` is a callable (a controller) its dependence on the state is taken by central
differences of the callable; a callable contact wrench ``h_e`` is held fixed in the
Jacobian (Newton then converges more slowly, to the same answer).

* ``"implicit-euler"`` (fixed step ``dt``): ``y_{k+1} = y_k + dt f(t_{k+1}, y_{k+1})``,
  solved by Newton's method on ``G(y) = y - y_k - dt f(t_{k+1}, y)``,
  ``G' = 1 - dt df/dy``; first order, L-stable: stiff joints (large friction, stiff
  feedback gains) do not blow up, they are damped.
* ``"radau"`` (adaptive): SciPy's Radau IIA of order 5 (``scipy.integrate.Radau``,
  stepped by :func:`robodyn.simulate` within its step budget) given the exact Jacobian
  ``jac=df/dy`` (:func:`radau_functions`).

:func:`run_implicit` runs either for :func:`robodyn.simulate`.

A model with quaternion joints (a free-flying base, ball joints) is integrated on its
manifold: implicit Euler solves ``v_{k+1} = v_k + dt a(q_k ⊕ dt v_{k+1}, v_{k+1})`` for the
velocity alone (Newton with ``1 - dt (dt da/dq + da/dv)``, the derivatives along the
velocity coordinates; ``q_{k+1} = q_k ⊕ dt v_{k+1}``, the exponential), and Radau integrates
the embedded equations (``dq/dt`` of the quaternions, renormalised after each step) with
SciPy's own finite-difference Jacobian.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import RobodynError
from .adaptive import drive
from .inputs import MAX_MAGNITUDE, Problem, TorqueTable, torque_value, wrench_value
from .options import SimulationOptions, shorter_last_step
from .result import Simulation, finished

#: Newton iterations per implicit-Euler step before the step is declared failed.
NEWTON_ITERATIONS = 25


def state_jacobian(robot, torque_at, wrench_at, t, q, qd):
    """``(f, df/dy)`` at ``(t, q, qd)``: ``f`` ``(2 dof,)``, ``df/dy`` ``(2 dof, 2 dof)``."""
    dof = robot.dof
    tau = torque_at(t, q, qd)
    h_e = wrench_at(t, q, qd)
    qdd = robot.forward_dynamics(q, qd, tau, h_e=h_e)
    d_q, d_qd, m_inv = robot.forward_dynamics_derivatives(q, qd, tau, h_e=h_e)
    if getattr(torque_at, "state_dependent", True):
        d_q = d_q + m_inv @ _central(lambda x: torque_at(t, x, qd), q)
        d_qd = d_qd + m_inv @ _central(lambda x: torque_at(t, q, x), qd)
    jac = np.zeros((2 * dof, 2 * dof))
    jac[:dof, dof:] = np.eye(dof)
    jac[dof:, :dof] = d_q
    jac[dof:, dof:] = d_qd
    return np.concatenate([qd, qdd]), jac


def _central(f, x, h=1e-6):
    cols = []
    for j in range(len(x)):
        e = np.zeros(len(x))
        e[j] = h * max(1.0, abs(x[j]))
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * e[j]))
    return np.stack(cols, axis=-1)


def implicit_euler(robot, q0, qd0, times, torque_at, wrench_at, tol=1e-10, bound=np.inf,
                   on_step=None):
    """``(Q, QD)`` at ``times`` (``t_0 = 0``) by implicit-Euler steps from one time to the
    next (module docstring). A state that stops being finite or passes ``bound`` is an
    error naming the time. ``on_step(t)``, if given, is called after each step."""
    dof = robot.dof
    t = np.asarray(times, dtype=float)
    steps = len(t) - 1
    Q = np.empty((steps + 1, dof))
    QD = np.empty((steps + 1, dof))
    Q[0], QD[0] = q0, qd0
    y = np.concatenate([q0, qd0])
    eye = np.eye(2 * dof)
    for k in range(steps):
        t1, dt = t[k + 1], t[k + 1] - t[k]
        f, jac = state_jacobian(robot, torque_at, wrench_at, t[k], y[:dof], y[dof:])
        y_prev, y_new = y, y + dt * f  # explicit Euler predicts, Newton corrects
        converged = False
        try:
            for _ in range(NEWTON_ITERATIONS):
                f, jac = state_jacobian(robot, torque_at, wrench_at, t1, y_new[:dof],
                                        y_new[dof:])
                step = np.linalg.solve(eye - dt * jac, -(y_new - y_prev - dt * f))
                y_new = y_new + step
                if np.linalg.norm(step) <= tol * (1.0 + np.linalg.norm(y_new)):
                    converged = True
                    break
        except RobodynError:
            if np.all(np.abs(y_new) <= bound):
                raise  # the model's (or the torque's) own error at a state in range
        except np.linalg.LinAlgError:
            pass  # a singular Newton matrix: not converged
        if not converged and np.all(np.abs(y_new) <= bound):
            raise RobodynError(f"simulate: implicit Euler's Newton iteration did not converge "
                               f"at t = {t1:.6g} s; reduce dt")
        if not np.all(np.abs(y_new) <= bound):
            raise RobodynError(f"simulate: the motion diverged: the state stopped being finite "
                               f"or passed {bound:g} by t = {t1:.6g} s (implicit Euler is "
                               "stable for any dt: the torques or the wrench drive the arm "
                               "without bound, or the model's values are out of range)")
        y = y_new
        Q[k + 1], QD[k + 1] = y[:dof], y[dof:]
        if on_step is not None:
            on_step(t1)
    return Q, QD


def manifold_implicit_euler(robot, q0, qd0, times, torque_at, wrench_at, tol=1e-10,
                            bound=np.inf, on_step=None):
    """:func:`implicit_euler` of a model with quaternion joints (module docstring)."""
    nv = robot.nv
    t = np.asarray(times, dtype=float)
    steps = len(t) - 1
    Q = np.empty((steps + 1, robot.nq))
    QD = np.empty((steps + 1, nv))
    Q[0], QD[0] = q0, qd0
    eye = np.eye(nv)
    for k in range(steps):
        t1, dt = t[k + 1], t[k + 1] - t[k]
        q_k, v_k = Q[k], QD[k]
        v = v_k + dt * robot.forward_dynamics(q_k, v_k, torque_at(t[k], q_k, v_k),
                                              h_e=wrench_at(t[k], q_k, v_k))
        converged, q = False, q_k
        try:
            for _ in range(NEWTON_ITERATIONS):
                q = robot.integrate(q_k, v, dt)
                tau = torque_at(t1, q, v)
                h_e = wrench_at(t1, q, v)
                a = robot.forward_dynamics(q, v, tau, h_e=h_e)
                d_q, d_v, _ = robot.forward_dynamics_derivatives(q, v, tau, h_e=h_e)
                step = np.linalg.solve(eye - dt * (dt * d_q + d_v), -(v - v_k - dt * a))
                v = v + step
                if np.linalg.norm(step) <= tol * (1.0 + np.linalg.norm(v)):
                    converged = True
                    q = robot.integrate(q_k, v, dt)
                    break
        except RobodynError:
            if np.all(np.abs(v) <= bound):
                raise
        except np.linalg.LinAlgError:
            pass
        finite = np.all(np.abs(v) <= bound) and np.all(np.abs(q) <= bound)
        if not converged and finite:
            raise RobodynError(f"simulate: implicit Euler's Newton iteration did not converge "
                               f"at t = {t1:.6g} s; reduce dt")
        if not finite:
            raise RobodynError(f"simulate: the motion diverged: the state stopped being finite "
                               f"or passed {bound:g} by t = {t1:.6g} s (implicit Euler is "
                               "stable for any dt: the torques or the wrench drive the body "
                               "without bound, or the model's values are out of range)")
        Q[k + 1], QD[k + 1] = q, v
        if on_step is not None:
            on_step(t1)
    return Q, QD


def radau_functions(robot, torque_at, wrench_at):
    """``(f(t, y), df/dy(t, y))`` for SciPy's Radau IIA with the exact Jacobian."""
    dof = robot.dof

    def rhs(t, y):
        q, qd = y[:dof], y[dof:]
        tau = torque_at(t, q, qd)
        return np.concatenate([qd, robot.forward_dynamics(q, qd, tau, h_e=wrench_at(t, q, qd))])

    def jac(t, y):
        return state_jacobian(robot, torque_at, wrench_at, t, y[:dof], y[dof:])[1]

    return rhs, jac


def run_implicit(problem: Problem, options: SimulationOptions, bar) -> Simulation:
    """``"implicit-euler"`` (on the fixed grid ``options.times``) and ``"radau"`` (sampled at
    ``options.times``, or at every step when None), driven by the dynamics' derivatives
    (module docstring)."""
    robot, q0, qd0, duration = problem.robot, problem.q0, problem.qd0, options.duration
    torque, wrench, rtol, atol = problem.torque, problem.wrench, options.rtol, options.atol
    max_step, max_steps = options.max_step, options.max_steps
    method, times = options.method, options.times
    dof = robot.dof

    def torque_at(t, q, qd):
        return torque_value(torque, t, q, qd, dof)

    def wrench_at(t, q, qd):
        return wrench_value(wrench, t, q, qd)

    torque_at.state_dependent = callable(torque) and not isinstance(torque, TorqueTable)
    chain = robot.chain
    manifold = not chain.single_valued
    if method == "implicit-euler":
        step = manifold_implicit_euler if manifold else implicit_euler
        q, qd = step(robot, q0, qd0, times, torque_at, wrench_at, bound=MAX_MAGNITUDE,
                     on_step=bar.update)
        t = times
        info, solution = {"steps": len(t) - 1, "dt": float(times[1] - times[0])}, None
        if shorter_last_step(t[-1] - t[-2], info["dt"]):
            info["last_step"] = float(t[-1] - t[-2])
    else:
        from scipy.integrate import Radau  # SciPy only when used

        nq = robot.nq
        project = None
        if manifold:  # the embedded equations; SciPy's finite-difference Jacobian
            jac = None

            def rhs(t, y):
                q, qd = chain.normalized(y[:nq]), y[nq:]
                a = robot.forward_dynamics(q, qd, torque_at(t, q, qd), h_e=wrench_at(t, q, qd))
                return np.concatenate([chain.configuration_rate(q, qd), a])

            def project(y):
                return np.concatenate([chain.normalized(y[:nq]), y[nq:]])
        else:
            rhs, jac = radau_functions(robot, torque_at, wrench_at)
        y0 = np.concatenate([q0, qd0])

        def make():
            return Radau(rhs, 0.0, y0, duration, jac=jac, rtol=rtol, atol=atol,
                         max_step=max_step)

        t, y, solution, steps, solver = drive(make, rhs, y0, duration, times, max_steps,
                                              method, nq, bar, project)
        q, qd = y[:nq].T.copy(), y[nq:].T.copy()
        if manifold:
            q = chain.normalized(q)
        info = {"steps": steps, "evaluations": int(solver.nfev), "jacobians": int(solver.njev),
                "rtol": rtol, "atol": atol}
    tau = np.stack([torque_at(tk, qk, qdk) for tk, qk, qdk in zip(t, q, qd)])
    qdd = np.stack([robot.forward_dynamics(qk, qdk, tk_tau, h_e=wrench_at(tk, qk, qdk))
                    for tk, qk, qdk, tk_tau in zip(t, q, qd, tau)])
    return finished(robot, t, q, qd, qdd, tau, info, solution)
