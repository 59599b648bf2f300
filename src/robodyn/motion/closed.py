"""The simulation of a closed mechanism (a model with ``loops:``, docs/closed-chains.md):
:func:`robodyn.simulate` of such a model integrates its reduced model on the actuated
coordinates ``(y, yd)`` with :meth:`ClosedChain.rk4_step
<robodyn.dynamics.constrained.ClosedChain.rk4_step>`, classic RK4 with the passive joints
assembled (Newton on ``phi(q) = 0``, to :data:`~robodyn.dynamics.constrained.STEP_TOLERANCE`)
at every stage, or with an adaptive ``"rk45"`` / ``"dop853"``
(:mod:`robodyn.motion.closed_adaptive`).

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
passive joint enters as its virtual work ``S^T tau`` on the actuated coordinates, and so
does an external wrench ``h_e``, as the tree's torques ``-J^T h_e``. The start
``q0`` is assembled from its actuated values (its passive values the Newton guess); ``qd0``
must satisfy ``K qd0 = 0`` (its actuated values are kept, the passive ones follow).

One run is the batch of one of :mod:`robodyn.motion.closed_batch`; a batch (``q0`` ``(N,
dof)``, per-run torque tables or controllers, :func:`robodyn.rollout`) steps its runs
together, vectorised over ``N`` (:func:`run_closed_many`).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from .closed_adaptive import run_closed_adaptive
from .closed_batch import VELOCITY_TOLERANCE, run_closed_batch, wrench_torques
from .inputs import Problem
from .lugre_closed import run_lugre_closed
from .options import SimulationOptions
from .result import Simulation, finished

__all__ = ["closed", "check_closed_options", "run_closed", "run_closed_many",
           "VELOCITY_TOLERANCE", "ADAPTIVE"]

#: The adaptive methods a closed mechanism takes (:mod:`robodyn.motion.closed_adaptive`).
ADAPTIVE = ("rk45", "dop853")


def closed(robot) -> bool:
    """Whether the robot's model closes loops (``loops:``)."""
    closures = robot.chain.closures
    return closures is not None and bool(closures.loops)


def check_closed_options(options: SimulationOptions, values) -> None:
    """The options a closed mechanism's simulation takes: fixed-step ``"rk4"`` (with
    ``dt``) or adaptive ``"rk45"``, ``"dop853"`` (:mod:`robodyn.motion.closed_adaptive`),
    no per-run parameter values; else an :class:`InputError` that says
    what to give instead. One run or a batch (``q0`` ``(N, dof)``, ...)."""
    if options.method not in ADAPTIVE + ("rk4", "lugre"):
        raise InputError(f"method: a closed mechanism (loops:) is simulated with projected RK4 "
                         f"at a fixed step (dt) or with an adaptive 'rk45' or 'dop853' on its "
                         f"actuated coordinates ('lugre' with its LuGre friction), not "
                         f"{options.method!r} (docs/closed-chains.md)")
    if values is not None:
        raise InputError("values: per-run parameter values are not supported for a closed "
                         "mechanism (loops:); simulate robot.with_values({...}) run by run")


def run_closed(problem: Problem, options: SimulationOptions, bar) -> Simulation:
    """The fixed steps ``options.times`` of a closed mechanism (module docstring): the batch
    of one of :func:`~robodyn.motion.closed_batch.run_closed_batch`, ``bar`` told the time
    after each step; ``info["closure"]`` is ``max |phi|`` per sample. An error on the way
    (a loop that cannot close, a torque that is not finite) is raised, naming the step."""
    robot, times = problem.robot, options.times
    chain = robot.closed_chain()
    extra = wrench_torques(chain, [problem.wrench])
    if options.method == "lugre":  # the bristle states carried (motion/lugre_closed.py)
        return run_lugre_closed(problem, options, bar)
    if options.method in ADAPTIVE:
        return run_closed_adaptive(problem, options, bar, chain, extra)
    Q, QD, QDD, TAU, closure, failed = run_closed_batch(
        chain, problem.q0[None], problem.qd0[None], [problem.torque], times, bar, extra,
        single=True)
    if failed:
        raise failed[0]
    info = {"steps": len(times) - 1, "dt": options.dt, "compiled": False,
            "closure": closure[0], "projection": "assembly at every RK4 stage"}
    return finished(robot, times, Q[0], QD[0], QDD[0], TAU[0], info)


def run_closed_many(robot, q0: np.ndarray, qd0: np.ndarray, torques: list, wrenches: list,
                    options: SimulationOptions, bar):
    """``N`` runs of a closed mechanism at once (:mod:`robodyn.motion.closed_batch`) from
    ``q0``, ``qd0`` ``(N, dof)``, ``torques`` and ``wrenches`` one per run: ``((t, Q, QD,
    QDD, TAU, info), failed)`` for :func:`robodyn.rollout`'s batch, ``failed`` ``{run:
    reason}``."""
    times, chain = options.times, robot.closed_chain()
    Q, QD, QDD, TAU, closure, failed = run_closed_batch(chain, q0, qd0, torques, times, bar,
                                                        wrench_torques(chain, wrenches))
    info = {"steps": len(times) - 1, "dt": options.dt, "compiled": False,
            "closure": closure, "projection": "assembly at every RK4 stage"}
    reasons = {r: str(error) for r, error in failed.items()}
    return (times, Q, QD, QDD, TAU, info), reasons
