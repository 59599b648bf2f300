"""The adaptive explicit methods of :func:`robodyn.simulate`, ``"rk45"`` and ``"dop853"``
(SciPy's solvers), and what the drivers share: the state's rate :func:`state_rate`, the
fastest rate of its linearisation :func:`fastest_rate` (how stiff the motion is) and
:func:`drive`, which steps a SciPy solver (explicit or Radau,
:mod:`robodyn.motion.implicit`) within the step budget and says why a run ends early: a
stiff system, a diverging motion, the budget spent."""

from __future__ import annotations

import numpy as np

from ..core.errors import RobodynError
from .inputs import MAX_MAGNITUDE, Problem, torque_value, wrench_value
from .options import MAX_STEPS, SimulationOptions
from .result import Simulation, finished

__all__ = ["state_rate", "fastest_rate", "state_words", "drive", "run_adaptive"]


def state_rate(robot, torque, wrench):
    """``f(t, y) = (dq/dt, FD(q, qd, tau(t, q, qd)))`` of the state ``y = (q, qd)``
    (``dq/dt = qd`` but for quaternions, :meth:`~robodyn.model.chain.Chain.configuration_rate`,
    whose ``q`` is renormalised first)."""
    dof, nq, chain = robot.dof, robot.nq, robot.chain
    manifold = not chain.single_valued

    def rhs(t, y):
        q, qd = y[:nq], y[nq:]
        if manifold:
            q = chain.normalized(q)
        tau = torque_value(torque, t, q, qd, dof)
        rate = chain.configuration_rate(q, qd) if manifold else qd
        return np.concatenate([rate, robot.forward_dynamics(q, qd, tau,
                                                            h_e=wrench_value(wrench, t, q, qd))])

    return rhs


def _bounded(y) -> bool:
    """Finite and within :data:`MAX_MAGNITUDE`."""
    return bool(np.all(np.abs(y) <= MAX_MAGNITUDE))


def fastest_rate(rhs, t, y) -> float | None:
    """The spectral radius of ``df/dy`` at ``(t, y)`` (central differences): the fastest
    rate, in 1/s, of the motion's linearisation; None where it cannot be evaluated."""
    try:
        with np.errstate(all="ignore"):
            cols = []
            for j in range(len(y)):
                e = np.zeros(len(y))
                e[j] = 1e-6 * max(1.0, abs(y[j]))
                cols.append((rhs(t, y + e) - rhs(t, y - e)) / (2 * e[j]))
            jac = np.stack(cols, axis=1)
            if not np.isfinite(jac).all():
                return None
            return float(np.abs(np.linalg.eigvals(jac)).max())
    except (RobodynError, np.linalg.LinAlgError):
        return None


def state_words(y, nq: int) -> str:
    return (f"q = {np.array2string(y[:nq], precision=4, separator=', ')}, qd = "
            f"{np.array2string(y[nq:], precision=4, separator=', ')}")


def _attempt(step, rhs, t, y, dof, method, h=None):
    """``step()`` (a solver's constructor, or its step of size about ``h`` from the accepted
    state ``(t, y)``); a robodyn error on the way is the model's where ``rhs`` fails at
    ``(t, y)`` itself, else a trial state that overflowed: a stiff system for an explicit
    method whose trial step is beyond its stability limit, else a diverging motion."""
    try:
        return step()
    except RobodynError:
        rhs(t, y)  # an error at the accepted state is the model's (or tau's): raise it
        explicit = method in ("rk45", "dop853")
        rate = fastest_rate(rhs, t, y) if explicit and h else None
        if rate is not None and rate * h > 1.0:
            raise RobodynError(
                f"simulate: stiff system (a trial step of {h:.2g} s from t = {t:.3g} s "
                f"overflowed: the motion's fastest rate is {rate:.3g} 1/s, and {method} is "
                f"stable only for steps below about {3 / rate:.2g} s); try method='radau' (or "
                "a fixed step with method='implicit-euler')") from None
        raise RobodynError(
            f"simulate: the motion diverged in the step from t = {t:.6g} s "
            f"({state_words(y, dof)}): at a trial state the dynamics overflowed float64 or "
            f"the torque passed {MAX_MAGNITUDE:g}; the torques or the wrench drive the arm "
            "without bound, or the model's values are out of range") from None


def drive(make, rhs, y0, duration, t_eval, max_steps, method, dof, bar, project=None):
    """Step a SciPy ``OdeSolver`` (``make()`` makes it) from ``(0, y0)`` to ``duration``
    within ``max_steps`` steps: ``(t, y (n, T), dense output, steps, solver)``,
    samples at ``t_eval`` or at every step. An
    explicit solver whose step sits at its stability limit while the budget cannot last
    stops early (a stiff system). ``bar`` (a :class:`~robodyn.core.progress.Progress`) is
    told the time reached after every step; ``project(y)``, if given, puts each accepted
    state back on the configuration manifold (unit quaternions) before the next step."""
    from scipy.integrate import OdeSolution  # SciPy only when used

    explicit = method in ("rk45", "dop853")
    solver = _attempt(make, rhs, 0.0, y0, dof, method)
    ts, ys, pieces = [solver.t], [solver.y.copy()], []
    checked = np.inf  # the step size of the last stiffness check
    while solver.status == "running":
        t_old, y_old = solver.t, solver.y.copy()
        message = _attempt(solver.step, rhs, t_old, y_old, dof, method, solver.h_abs)
        if solver.status == "failed":
            raise RobodynError(f"simulate: the integrator failed at t = {solver.t:.6g} s "
                               f"({message}); try method='radau', a smaller max_step or looser "
                               "tolerances")
        if project is not None:
            solver.y[:] = project(solver.y)
        ts.append(solver.t)
        ys.append(solver.y.copy())
        pieces.append(solver.dense_output())
        steps = len(pieces)
        bar.update(solver.t)
        if not _bounded(solver.y):
            raise RobodynError(
                f"simulate: the motion diverged: the state passed {MAX_MAGNITUDE:g} (or stopped "
                f"being finite) at t = {solver.t:.6g} s, from {state_words(y_old, dof)} at t "
                f"= {t_old:.6g} s; the torques or the wrench drive the arm without bound, or "
                "the model's values are out of range")
        if solver.status != "running":
            break
        if steps >= max_steps:
            raise RobodynError(
                f"simulate: the step budget ran out: max_steps = {max_steps:,} {method} steps "
                f"reached t = {solver.t:.6g} s of {duration:g} s (the last step "
                f"{solver.t - t_old:.3g} s); raise max_steps (at most {MAX_STEPS:,}), loosen "
                "rtol and atol" + (", or try method='radau'" if explicit else ""))
        if explicit and steps >= 20 and steps % 10 == 0:
            h = (ts[-1] - ts[-11]) / 10
            projected = steps + (duration - solver.t) / h
            if projected > max_steps and h < checked / 2:
                checked = h
                rate = fastest_rate(rhs, solver.t, solver.y)
                if rate is not None and rate * h > 1.0:
                    raise RobodynError(
                        f"simulate: stiff system (step size fell to {h:.2g} s at t = "
                        f"{solver.t:.3g} s, held there by stability: the motion's fastest rate "
                        f"is {rate:.3g} 1/s; {method} would need about {projected:,.0f} steps, "
                        f"over max_steps = {max_steps:,}); try method='radau' (or a fixed "
                        "step with method='implicit-euler')")
    solution = OdeSolution(np.array(ts), pieces)
    if t_eval is None:
        return np.array(ts), np.array(ys).T, solution, len(pieces), solver
    return t_eval, solution(t_eval), solution, len(pieces), solver


def run_adaptive(problem: Problem, options: SimulationOptions, bar) -> Simulation:
    """``"rk45"`` and ``"dop853"`` (SciPy's explicit solvers), sampled at ``options.times``
    (or at every step when None)."""
    from scipy.integrate import DOP853, RK45  # SciPy only when used

    robot, q0, qd0, duration = problem.robot, problem.q0, problem.qd0, options.duration
    torque, wrench, rtol, atol = problem.torque, problem.wrench, options.rtol, options.atol
    max_step, max_steps = options.max_step, options.max_steps
    method, t_eval = options.method, options.times
    dof, nq, chain = robot.dof, robot.nq, robot.chain
    rhs = state_rate(robot, torque, wrench)
    y0 = np.concatenate([q0, qd0])
    kind = RK45 if method == "rk45" else DOP853
    project = None
    if not chain.single_valued:
        def project(y):
            return np.concatenate([chain.normalized(y[:nq]), y[nq:]])

    def make():
        return kind(rhs, 0.0, y0, duration, rtol=rtol, atol=atol, max_step=max_step)

    t, y, solution, steps, solver = drive(make, rhs, y0, duration, t_eval, max_steps, method,
                                          nq, bar, project)
    q, qd = y[:nq].T.copy(), y[nq:].T.copy()
    if project is not None:  # dense output between the steps: back on the manifold
        q = chain.normalized(q)
    tau = np.stack([torque_value(torque, tk, qk, qdk, dof) for tk, qk, qdk in zip(t, q, qd)])
    if wrench is None or not callable(wrench):
        qdd = robot.forward_dynamics(q, qd, tau, h_e=wrench)
    else:
        qdd = np.stack([robot.forward_dynamics(qk, qdk, tk_tau, h_e=wrench_value(wrench, tk, qk,
                                                                             qdk))
                        for tk, qk, qdk, tk_tau in zip(t, q, qd, tau)])
    info = {"steps": steps, "evaluations": int(solver.nfev), "rtol": rtol, "atol": atol}
    return finished(robot, t, q, qd, qdd, tau, info, solution)
