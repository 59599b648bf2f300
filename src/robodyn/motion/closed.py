"""The simulation of a closed mechanism (a model with ``loops:``, docs/closed-chains.md):
:func:`robodyn.simulate` of such a model integrates its reduced model on the actuated
coordinates ``(y, yd)`` with :meth:`ClosedChain.rk4_step
<robodyn.dynamics.constrained.ClosedChain.rk4_step>`, classic RK4 with the passive joints
assembled (Newton on ``phi(q) = 0``, to :data:`~robodyn.dynamics.constrained.STEP_TOLERANCE`)
at every stage.

Projection, not Baumgarte stabilization (``K qdd + k = -2 a K qd - b^2 phi``): the
integrated state ``(y, yd)`` holds independent coordinates only, so every sample is on the
constraint manifold to the assembly's tolerance (``|phi| <= 1e-15``) and ``qd = S(q) yd``
satisfies ``K qd = 0`` exactly, whatever the run's length; Baumgarte's terms only damp a
drift that stays (its size set by gains chosen per model and step) and change the
dynamics that the energy balance checks. The price is a Newton solve per stage
(Featherstone, "Rigid Body Dynamics Algorithms", §8.2-8.3, the reduced model ``qd = S yd``;
Blajer, "Elimination of constraint violation and accuracy aspects in numerical simulation
of multibody systems", Multibody System Dynamics 7, 2002, on projection vs Baumgarte).
The energy of a passive, frictionless run is kept to RK4's error, ``O(dt^4)``.

Torques act on the tree's joints (``tau`` ``(T, dof)``, or ``tau(t, q, qd)``); a torque at a
passive joint enters as its virtual work ``S^T tau`` on the actuated coordinates. The start
``q0`` is assembled from its actuated values (its passive values the Newton guess); ``qd0``
must satisfy ``K qd0 = 0`` (its actuated values are kept, the passive ones follow).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from ..dynamics.constrained import STEP_TOLERANCE
from .inputs import Problem, torque_value
from .options import SimulationOptions
from .result import Simulation, finished

__all__ = ["closed", "run_closed", "VELOCITY_TOLERANCE"]

#: ``|K qd0|`` (m/s, rad/s) above which a start velocity breaks the loops.
VELOCITY_TOLERANCE = 1e-8


def closed(robot) -> bool:
    """Whether the robot's model closes loops (``loops:``)."""
    closures = robot.chain.closures
    return closures is not None and bool(closures.loops)


def check_closed_options(options: SimulationOptions, wrench, batch: bool) -> None:
    """The options a closed mechanism's simulation takes: fixed-step ``"rk4"`` (with
    ``dt``), no external wrench, one run at a time; else an :class:`InputError` that says
    what to give instead."""
    if options.method != "rk4" or options.dt is None:
        raise InputError(f"method: a closed mechanism (loops:) is simulated with projected RK4 "
                         f"at a fixed step, not {options.method!r}: give dt (e.g. dt=1e-3) and "
                         "method='rk4' or none (docs/closed-chains.md)")
    if wrench is not None:
        raise InputError("h_e: an external wrench on a closed mechanism is not supported; "
                         "give its joint torques J^T h_e as tau instead")
    if batch:
        raise InputError("q0: a closed mechanism simulates one run at a time; give q0 and "
                         "qd0 of one state (dof values) and loop over the rollouts")


def run_closed(problem: Problem, options: SimulationOptions, bar) -> Simulation:
    """The fixed steps ``options.times`` of a closed mechanism (module docstring), ``bar``
    told the time after each step; ``info["closure"]`` is ``max |phi|`` per sample."""
    robot, times = problem.robot, options.times
    chain = robot.closed_chain()
    q = chain.assemble(problem.q0[chain.actuated], problem.q0, tol=STEP_TOLERANCE).q
    K = chain.constraint_jacobian(q)
    broken = float(np.abs(K @ problem.qd0).max())
    if broken > VELOCITY_TOLERANCE:
        raise InputError(f"qd0: the start velocity breaks the loops (|K qd0| = {broken:.3g}); "
                         "give the actuated velocities and the passive ones that follow, "
                         "qd0 = S yd with S = robot.closed_chain().velocity_map(q0)")
    yd = problem.qd0[chain.actuated].copy()
    dof = robot.dof

    def torque(t, q, qd):
        return torque_value(problem.torque, t, q, qd, dof)

    count = len(times)
    Q, QD, QDD, TAU = (np.empty((count, dof)) for _ in range(4))
    closure = np.empty(count)
    for k, t in enumerate(times):
        S = chain.velocity_map(q)
        Q[k], QD[k], closure[k] = q, S @ yd, float(np.abs(chain.residual(q)).max())
        TAU[k] = torque(t, q, QD[k])
        ydd = chain.reduced_acceleration(q, yd, TAU[k])
        QDD[k] = S @ ydd + chain.velocity_terms(q, yd)[1]
        if k + 1 < count:
            q, yd = chain.rk4_step(q, yd, float(t), float(times[k + 1] - t), torque)
            bar.update(times[k + 1])
    info = {"steps": count - 1, "dt": options.dt, "compiled": False, "closure": closure,
            "projection": "assembly at every RK4 stage"}
    return finished(robot, times, Q, QD, QDD, TAU, info)
