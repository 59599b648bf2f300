"""LuGre friction on a closed mechanism (``loops:`` and ``lugre:``): ``rd.simulate(robot,
q0, ..., method="lugre")`` of such a model (its default for one run without ``dt``).

Every joint of the tree (actuated and passive) has a bristle deflection ``z_i``, and its
LuGre torque ``F_i`` acts on the tree as the model's own friction does (Canudas de Wit,
Olsson, Astrom & Lischinsky, IEEE TAC 40(3), 1995; :mod:`robodyn.motion.lugre`)::

    dz/dt = qd - sigma0 |qd| z / g(qd),     F = sigma0 z + sigma1 dz/dt + sigma2 qd
    M qdd + h + F = tau + K^T lambda,       K qd = 0

The reduced model on the actuated coordinates (Featherstone, "Rigid Body Dynamics
Algorithms", §8.2; :mod:`robodyn.motion.closed_adaptive`) carries ``z`` beside ``(y, yd)``,
the state ``x = (y, yd, z)`` (``2 n_a + dof`` values), ``qd = S(q) yd`` the tree's
velocities that drive the bristles::

    (S^T M S) ydd = S^T (tau - F(qd, z) - h - M s),     dz/dt as above

The bristles are stiff (``sigma0 |qd| / g`` up to 1e4 - 1e6 1/s): SciPy's ``Radau``
(implicit, L-stable, error-controlled) integrates ``x`` within ``max_steps`` steps, the
passive joints assembled at every evaluation (its Newton iterations and finite-difference
Jacobians included), so every sample is on the loops. The bristles start relaxed (``z =
0``). ``sim.tau`` is the applied torque less ``F`` (what acts on the tree besides its model
friction, so the energy balance holds); ``info``: ``applied_torque``, ``lugre_friction``
and ``lugre_z`` ``(T, dof)``, and the energy stored in the bristles is ``sum sigma0 z^2 /
2``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from .closed_adaptive import run_closed_adaptive
from .closed_batch import wrench_torques
from .inputs import Problem, torque_value
from .lugre import lugre_rates
from .result import Simulation

__all__ = ["run_lugre_closed", "ClosedBristles"]


class ClosedBristles:
    """The bristle states of a closed mechanism's tree joints carried by
    :func:`~robodyn.motion.closed_adaptive.run_closed_adaptive`: ``z0`` their (relaxed)
    start, ``(t, q, qd, z) -> (tau - F(qd, z), dz/dt)`` the tree's torques (the applied
    ``load`` less the LuGre friction) and the bristle rates."""

    def __init__(self, lugre, load, dof: int):
        self.lugre, self.load, self.dof = lugre, load, dof
        self.z0 = np.zeros(dof)

    def __call__(self, t, q, qd, z):
        dz, force = lugre_rates(self.lugre, qd, z)
        return torque_value(self.load, t, q, qd, self.dof) - force, dz


def run_lugre_closed(problem: Problem, options, bar) -> Simulation:
    """``method="lugre"`` of a closed mechanism ``problem.robot`` with the model's LuGre
    parameters (module docstring): ``Radau`` on ``(y, yd, z)``."""
    robot = problem.robot
    lugre = robot.chain.lugre
    if lugre is None:
        raise InputError(f"method 'lugre': {robot.name} has no lugre parameters; add a lugre: "
                         "key to its model file (or simulate it with 'rk45' or 'rk4')")
    chain = robot.closed_chain()
    bristles = ClosedBristles(lugre, problem.torque, robot.dof)
    sim = run_closed_adaptive(problem, options, bar, chain,
                              wrench_torques(chain, [problem.wrench]), carried=bristles)
    z = sim.info.pop("carried")
    force = lugre_rates(lugre, sim.qd, z)[1]
    sim.info.update(applied_torque=sim.tau + force, lugre_friction=force, lugre_z=z,
                    solver="Radau")
    return sim
