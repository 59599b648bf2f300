"""A closed mechanism (``loops:``, :mod:`robodyn.motion.closed`) driven by the voltages of
its actuated joints' DC motors: ``rd.simulate(robot, q0, ..., voltage=, motors=)`` of such
a model.

Only the actuated joints (``actuated:``) have motors: ``motors`` one for all, one per
actuated joint, or the model file's at those joints; ``voltage`` one number, one per
actuated joint, a table ``(T, n_a)``, or a callable ``V(t, q, qd)`` of the tree's ``q``,
``qd`` returning ``n_a`` volts (``V(t, q, qd, i)`` where every motor has an inductance).
Motor ``j`` at actuated joint ``a_j`` turns at ``w_m = G qd_a`` (``qd_a = yd``, the
actuated coordinates' velocities) and puts ``tau_a = G k_t e i`` on its joint (zero at the
passive joints; ``e`` the gear's efficiency, :mod:`robodyn.motion.voltage`).

* Without inductance (``L = 0``) the current follows the voltage, ``i = (V - k_b G qd_a) /
  R``, and the motor is a torque of the state; with fixed steps (``dt``) the run is the
  closed mechanism's projected RK4 under that torque plus any load ``tau``
  (:mod:`robodyn.motion.closed`), ``electric_energy`` and ``copper_loss`` by the
  trapezoidal rule on the steps.
* With an inductance (``L > 0``) the currents are states: the adaptive methods ``"rk45"``,
  ``"dop853"`` integrate the reduced model on the actuated coordinates with the circuits
  beside it (:func:`~robodyn.motion.closed_adaptive.run_closed_adaptive`, ``carried``),
  the state ``x = (y, yd, i_L, E, Q)``::

      (S^T M S) ydd = S^T (tau - h - M s),     tau_a = G k_t e i
      L di/dt = V - R i - k_b G yd                (Siciliano et al., Robotics, eq. 5.1)
      dE/dt = V i,   dQ/dt = R i^2                (energy drawn, copper loss)

  the currents starting at 0; ``E`` and ``Q`` integrated to the solver's tolerance. The
  circuit's time constant ``L / R`` makes the system stiff for an explicit pair: a small
  ``L / R`` costs steps of about its size (``L -> 0`` tends to the ``L = 0`` run, the
  currents lagging the voltage by ``O(L / R)``). Fixed steps with an inductance are
  refused by name (``dt``). The adaptive methods without inductance carry ``E`` and ``Q``
  the same way.

Energy balance of a run from ``i = 0``: ``E = Δ(T + U) + Q + sum L i^2 / 2 + ∫ (friction
and load power)``. ``info`` has ``current``, ``voltage``, ``electric_power``,
``drive_torque`` (the tree's joints) as a voltage run's, and ``electric_energy``,
``copper_loss`` per motor.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from .closed import ADAPTIVE, run_closed
from .closed_adaptive import run_closed_adaptive
from .closed_batch import wrench_torques
from .inputs import Problem, torque_value
from .result import Simulation

__all__ = ["run_voltage_closed", "check_closed_drives", "ClosedMotors"]


def check_closed_drives(drives, method: str) -> None:
    """A closed mechanism's motors with an inductance only with an adaptive ``method``,
    else an :class:`InputError` naming ``dt``."""
    if drives.inductive.any() and method not in ADAPTIVE:
        raise InputError(f"dt: the motors of this closed mechanism (loops:) have an inductance "
                         f"(L > 0): their currents are states of the reduced model, integrated "
                         f"by the adaptive method 'rk45' or 'dop853', not {method!r}; give "
                         "sample_dt instead of dt (or inductance=0)")


class ClosedMotors:
    """The motors of a closed mechanism's actuated joints ``actuated`` (``drives``, a
    :class:`~robodyn.motion.voltage.Drives` over them) beside a ``load`` torque (None, a
    table or a callable): ``z = (i_L, E, Q)`` the states they add, ``z0`` their start
    (module docstring)."""

    def __init__(self, drives, actuated, load, dof: int):
        self.drives, self.actuated, self.load, self.dof = drives, list(actuated), load, dof
        self.k = int(drives.inductive.sum())
        self.z0 = np.zeros(self.k + 2 * len(drives.R))

    def parts(self, t, q, qd, z):
        """``(V, i, tau_d)``: the voltages, the motors' currents and their torques at the
        tree's joints, at ``(t, q, qd)`` with the inductive currents ``z[:k]``."""
        drives, i_state = self.drives, z[:self.k]
        V = drives.voltage(t, q, qd, i_state if drives.inductive.all() else None)
        w = qd[..., self.actuated]
        i = drives.currents(V, w, i_state)
        tau = np.zeros(np.shape(qd))
        tau[..., self.actuated] = drives.torque(i, w)
        return V, i, tau

    def __call__(self, t, q, qd, z):
        """``(tau, dz/dt)``: the tree's torques (the motors' and the load's) and the rates
        of the currents and energies."""
        V, i, tau = self.parts(t, q, qd, z)
        rate = self.drives.current_rate(V, i, qd[self.actuated])
        return (tau + torque_value(self.load, t, q, qd, self.dof),
                np.concatenate([rate, V * i, self.drives.R * i * i]))


def run_voltage_closed(problem: Problem, options, bar) -> Simulation:
    """The run of ``problem`` (a closed mechanism; ``drives`` over its actuated joints, a
    load ``torque``): the closed mechanism's fixed-step run under the motors' torque
    (``L = 0``), or the adaptive run with the currents and energies carried (module
    docstring)."""
    from scipy.integrate import trapezoid  # SciPy only when used

    robot, drives, dof = problem.robot, problem.drives, problem.robot.dof
    check_closed_drives(drives, options.method)
    chain = robot.closed_chain()
    motors = ClosedMotors(drives, chain.actuated, problem.torque, dof)
    if options.method in ADAPTIVE:  # the currents (if any) and the energies as states
        sim = run_closed_adaptive(problem, options, bar, chain,
                                  wrench_torques(chain, [problem.wrench]), carried=motors)
        Z = sim.info.pop("carried")
        nm, k = len(drives.R), motors.k
        energy, copper = Z[-1, k:k + nm].copy(), Z[-1, k + nm:].copy()
    else:
        def torque(t, q, qd):
            return motors(t, q, qd, motors.z0)[0]

        sim = run_closed(Problem(robot=robot, q0=problem.q0, qd0=problem.qd0, torque=torque,
                                 wrench=problem.wrench), options, bar)
        Z = np.zeros((len(sim.t), 0))
    V, i, drive = (np.stack(x) for x in zip(*[motors.parts(tk, qk, qdk, zk) for tk, qk, qdk, zk
                                              in zip(sim.t, sim.q, sim.qd, Z, strict=True)],
                                            strict=True))
    if options.method not in ADAPTIVE:
        energy = trapezoid(V * i, x=sim.t, axis=0)
        copper = trapezoid(drives.R * i * i, x=sim.t, axis=0)
    sim.info.update(current=i, voltage=V, electric_power=V * i, drive_torque=drive,
                    electric_energy=energy, copper_loss=copper)
    return sim
