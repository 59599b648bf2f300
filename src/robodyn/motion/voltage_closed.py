"""A closed mechanism (``loops:``, :mod:`robodyn.motion.closed`) driven by the voltages of
its actuated joints' DC motors: ``rd.simulate(robot, q0, ..., voltage=, motors=)`` of such
a model.

Only the actuated joints (``actuated:``) have motors: ``motors`` one for all, one per
actuated joint, or the model file's at those joints; ``voltage`` one number, one per
actuated joint, a table ``(T, n_a)``, or a callable ``V(t, q, qd)`` of the tree's ``q``,
``qd`` returning ``n_a`` volts. Without inductance (``L = 0``, the current follows the
voltage, :mod:`robodyn.motion.voltage`) each motor is a torque of the state,

    tau_a = G k_t e (V - k_b G qd_a) / R        (zero at the passive joints)

so the run is the closed mechanism's own (projected RK4 with ``dt``, or the reduced model
with ``"rk45"``, ``"dop853"``: :mod:`robodyn.motion.closed`) under that torque plus any load
``tau``. A motor with an inductance makes its current a state the reduced model does not
carry: refused, by name. ``info`` has ``current``, ``voltage``, ``electric_power``,
``drive_torque`` (the tree's joints) as a voltage run's, and ``electric_energy`` and
``copper_loss`` by the trapezoidal rule on the samples (the reduced model integrates no
energies: give ``sample_dt`` fine enough for the accuracy wanted).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from .closed import run_closed
from .inputs import Problem, torque_value
from .result import Simulation

__all__ = ["run_voltage_closed", "check_closed_drives"]


def check_closed_drives(drives) -> None:
    """A closed mechanism's motors without inductance, else an :class:`InputError`."""
    if drives.inductive.any():
        raise InputError("motors: a closed mechanism (loops:) is driven by motors without "
                         "inductance (L = 0) only; its reduced model carries no currents as "
                         "states: give inductance=0, or drive it by tau")


def run_voltage_closed(problem: Problem, options, bar) -> Simulation:
    """The run of ``problem`` (a closed mechanism; ``drives`` over its actuated joints, a
    load ``torque``) as the closed mechanism's run under the motors' torque (module
    docstring)."""
    from scipy.integrate import trapezoid  # SciPy only when used

    robot, drives, dof = problem.robot, problem.drives, problem.robot.dof
    check_closed_drives(drives)
    actuated = robot.closed_chain().actuated

    def parts(t, q, qd):
        V = drives.voltage(t, q, qd, None)
        i = drives.currents(V, qd[..., actuated], None)
        tau = np.zeros(np.shape(qd))
        tau[..., actuated] = drives.torque(i, qd[..., actuated])
        return V, i, tau

    def torque(t, q, qd):
        return parts(t, q, qd)[2] + torque_value(problem.torque, t, q, qd, dof)

    sim = run_closed(Problem(robot=robot, q0=problem.q0, qd0=problem.qd0, torque=torque,
                             wrench=problem.wrench), options, bar)
    V, i, drive = (np.stack(x) for x in zip(*[parts(tk, qk, qdk) for tk, qk, qdk
                                              in zip(sim.t, sim.q, sim.qd, strict=True)],
                                            strict=True))
    sim.info.update(current=i, voltage=V, electric_power=V * i, drive_torque=drive,
                    electric_energy=trapezoid(V * i, x=sim.t, axis=0),
                    copper_loss=trapezoid(drives.R * i * i, x=sim.t, axis=0))
    return sim
