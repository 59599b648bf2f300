"""Adaptive simulation of a closed mechanism: ``rd.simulate(robot, q0, qd0, duration,
method="rk45" | "dop853", rtol=..., atol=...)`` of a model with ``loops:``.

SciPy's embedded Runge-Kutta pairs (Dormand-Prince 5(4), ``RK45``; 8(5,3), ``DOP853``)
integrate the reduced model on the actuated coordinates, the state ``x = (y, yd)``:

    dx/dt = (yd, ydd),    (S^T M S) ydd = S^T (tau - h - M s),    qd = S yd,  qdd = S ydd + s

(Featherstone, "Rigid Body Dynamics Algorithms", §8.2; :meth:`ClosedChain.reduced_acceleration
<robodyn.dynamics.constrained.ClosedChain.reduced_acceleration>`). Every right-hand side
assembles the passive joints from ``y`` (Newton on ``phi(q) = 0`` to
:data:`~robodyn.dynamics.constrained.STEP_TOLERANCE`), starting from the second-order
prediction ``q_l + S_l (y - y_l) + (t - t_l)^2 / 2 s_l`` of the last evaluation ``l``, so
that near a singular configuration (a flat parallelogram) it stays on the mechanism's own
branch, as the fixed-step RK4 does. The integrated state holds independent coordinates
only: the reduced ODE needs no projection, every sample is on the loops (``|phi|`` at
rounding, ``K qd = 0`` exactly), and the solver's error control (``rtol``, ``atol`` on ``y``
and ``yd``) is the whole accuracy. Why this rather than an embedded pair on the tree's ``(q,
qd)`` with a projection after each step: the projection changes the accepted state after
the error estimate, and the error estimate then measures the drift the projection removes;
on ``(y, yd)`` nothing is projected and SciPy's dense output is the motion's.

The samples are at the solver's steps (or at ``sample_dt`` / ``dt`` grid times, from the
dense output); each is assembled from the nearest step before it.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError, RobodynError
from ..dynamics.constrained import STEP_TOLERANCE, AssemblyError
from .adaptive import drive
from .closed_batch import start_on_loops
from .inputs import Problem, torque_value
from .options import SimulationOptions
from .result import Simulation, finished

__all__ = ["run_closed_adaptive"]


class _Assembler:
    """The passive joints of ``y`` at time ``t``, assembled from the second-order prediction
    of a known state ``(t_l, q_l, y_l, S_l, s_l)`` (``remember`` one)."""

    def __init__(self, chain, t: float, q: np.ndarray, yd: np.ndarray):
        self.chain = chain
        self.last = None
        self.remember(t, q, yd)

    def remember(self, t: float, q: np.ndarray, yd: np.ndarray):
        S, s = self.chain.velocity_terms(q, yd)
        self.last = (t, q, q[self.chain.actuated], S, s)
        return self.last

    def assemble(self, t: float, y: np.ndarray, base=None) -> np.ndarray:
        tl, ql, yl, S, s = self.last if base is None else base
        guess = ql + S @ (y - yl) + (t - tl) ** 2 / 2 * s
        return self.chain.assemble(y, guess, tol=STEP_TOLERANCE).q


def run_closed_adaptive(problem: Problem, options: SimulationOptions, bar, chain,
                        extra=None, carried=None) -> Simulation:
    """``"rk45"`` or ``"dop853"`` (``"lugre"``: ``Radau``) of the closed mechanism ``chain``
    of ``problem.robot`` (module docstring), sampled at ``options.times`` (or at every step
    when None); ``extra(t, q, qd, rows)`` (or None) the tree's torques of the external wrench
    (:func:`~robodyn.motion.closed_batch.wrench_torques`, ``rows`` ``[0]``).
    ``info["closure"]`` is ``max |phi|`` per sample. ``carried`` (or None): states ``z``
    integrated with the mechanism, ``x = (y, yd, z)`` (a voltage run's currents,
    :mod:`robodyn.motion.voltage_closed`): ``carried.z0`` their start, ``carried(t, q, qd,
    z) -> (tau, dz/dt)`` the tree's torques (in place of ``problem.torque``) and their
    rate; ``info["carried"]`` their samples ``(T, len(z0))``."""
    from scipy.integrate import DOP853, RK45, Radau  # SciPy only when used

    robot, duration = problem.robot, options.duration
    dof = robot.dof
    a = chain.actuated
    na = len(a)
    q0 = start_on_loops(chain, problem.q0[None], problem.qd0[None], single=True)[0]
    z0 = np.zeros(0) if carried is None else np.asarray(carried.z0, dtype=float)
    x0 = np.concatenate([q0[a], problem.qd0[a], z0])
    assembler = _Assembler(chain, 0.0, q0, problem.qd0[a])

    def forces(t, q, qd, z=z0):
        """``(tau, tau + the wrench's, dz/dt)`` at ``(t, q, qd, z)``."""
        if carried is None:
            tau, dz = torque_value(problem.torque, t, q, qd, dof), z0
        else:
            tau, dz = carried(t, q, qd, z)
        if extra is None:
            return tau, tau, dz
        return tau, tau + extra(t, q[None], qd[None], np.zeros(1, dtype=int))[0], dz

    failure = []  # (t, why) of an evaluation where the mechanism could not follow y

    def rhs(t, x):
        y, yd, z = x[:na], x[na:2 * na], x[2 * na:]
        try:
            q = assembler.assemble(t, y)
            _, _, _, S, s = assembler.remember(t, q, yd)
            _, total, dz = forces(t, q, S @ yd, z)
            return np.concatenate([yd, chain.reduced_acceleration(q, yd, total), dz])
        except AssemblyError as exc:
            failure[:] = [t, exc.reasons[0]]
            raise

    # "lugre": stiff bristle states carried (motion/lugre_closed.py), the implicit Radau
    kind = {"rk45": RK45, "dop853": DOP853, "lugre": Radau}[options.method]
    solvers, steps = [], [assembler.last]

    def make():
        solvers.append(kind(rhs, 0.0, x0, duration, rtol=options.rtol, atol=options.atol,
                            max_step=options.max_step))
        return solvers[-1]

    def accepted(x):  # after each step: the assembled state there, for the samples
        t = solvers[-1].t
        steps.append(assembler.remember(t, assembler.assemble(t, x[:na]), x[na:2 * na]))
        return x

    try:
        t, x, solution, count, solver = drive(make, rhs, x0, duration, options.times,
                                              options.max_steps, options.method, na, bar,
                                              accepted)
    except RobodynError:
        if not failure:
            raise
        raise ModelError(f"simulate: {options.method} could not follow the loops at t = "
                         f"{failure[0]:.6g} s: {failure[1]}; the motion reached a singular "
                         "configuration or the edge of the workspace, or a trial step went "
                         "past one (a smaller max_step may help)") from None
    starts = np.array([s[0] for s in steps])
    Q = np.empty((len(t), dof))
    for k, tk in enumerate(t):  # each sample from the last step at or before it
        j = max(int(np.searchsorted(starts, tk, side="right")) - 1, 0)
        Q[k] = assembler.assemble(float(tk), x[:na, k], base=steps[j])
    YD, Z = x[na:2 * na].T, x[2 * na:].T
    S, s = chain.velocity_terms(Q, YD)
    QD = np.einsum("kia,ka->ki", S, YD)
    pairs = [forces(float(tk), qk, qdk, zk) for tk, qk, qdk, zk in zip(t, Q, QD, Z)]
    TAU = np.stack([p[0] for p in pairs])
    YDD = chain.reduced_acceleration(Q, YD, np.stack([p[1] for p in pairs]))
    QDD = np.einsum("kia,ka->ki", S, YDD) + s
    info = {"steps": count, "evaluations": int(solver.nfev), "rtol": options.rtol,
            "atol": options.atol, "closure": np.abs(chain.residual(Q)).max(axis=1),
            "projection": "none: the reduced model on the actuated coordinates, the passive "
                          "joints assembled at every evaluation"}
    if carried is not None:
        info["carried"] = Z.copy()
    return finished(robot, t, Q, QD, QDD, TAU, info, solution)
