"""One run of :func:`robodyn.simulate` from a checked start state and checked options: the
driver its method calls for (:mod:`robodyn.motion.fixed`, :mod:`robodyn.motion.adaptive`,
:mod:`robodyn.motion.implicit`, :mod:`robodyn.motion.stick_slip`), then the checks of the
finished run (:mod:`robodyn.motion.checks`: the energy balance, the joint limits) and the samples it
keeps. The rollouts of a batch that run one by one (:mod:`robodyn.motion.rollouts`) are
such runs too."""

from __future__ import annotations

import time

import numpy as np

from ..core.progress import tracker
from .adaptive import run_adaptive
from .checks import check_energy, report_limits
from .closed import closed, run_closed
from .fixed import run_fixed
from .implicit import run_implicit
from .inputs import Problem, checked_wrench, torque_input
from .lugre import run_lugre
from .options import SimulationOptions
from .result import Simulation
from .saturation import Saturated
from .stick_slip import run_stick_slip

__all__ = ["simulate_one", "finish_run"]


def simulate_one(robot, q0: np.ndarray, qd0: np.ndarray, tau, tau_times, h_e,
                 options: SimulationOptions, drives=None) -> Simulation:
    """The run of ``robot`` from ``(q0, qd0)`` (checked: :func:`~.inputs.start_state`)
    driven by ``tau`` (at ``tau_times``) and ``h_e`` as :func:`~robodyn.simulate` takes them
    (checked here), or by the motors' voltages ``drives``
    (:func:`~robodyn.motion.voltage.voltage_drives`, whose ``run`` integrates them),
    integrated as ``options`` say."""
    problem = Problem(robot=robot, q0=q0, qd0=qd0,
                      torque=torque_input(tau, tau_times, options.duration, robot.dof),
                      wrench=checked_wrench(h_e, robot), drives=drives)
    start = time.perf_counter()
    with tracker(options.progress, options.duration, "simulating") as bar:
        if drives is not None:  # the motors' voltages drive the joints
            sim = drives.run(problem, options, bar)
        elif closed(robot):  # loops: projected RK4 on the actuated coordinates
            sim = run_closed(problem, options, bar)
        elif options.method in ("implicit-euler", "radau"):
            sim = run_implicit(problem, options, bar)
        elif options.method in ("rk45", "dop853"):
            sim = run_adaptive(problem, options, bar)
        elif options.method == "stick-slip":
            sim = run_stick_slip(problem, options, bar)
        elif options.method == "lugre":
            sim = run_lugre(problem, options, bar)
        else:
            sim = run_fixed(problem, options, bar)
    return finish_run(robot, sim, tau, problem.wrench, options, time.perf_counter() - start)


def finish_run(robot, sim: Simulation, tau, wrench, options: SimulationOptions,
               wall: float) -> Simulation:
    """The integrated run ``sim`` finished: its method and wall time (``wall`` seconds) in
    ``info``, the checks (the energy balance under the checked ``wrench``, the joint limits;
    warned of), then only the samples ``options`` keep. ``tau``: the torque as given (a
    :class:`~robodyn.motion.saturation.Saturated` one reports what it cut)."""
    sim.info.update(method=options.method, wall_time=wall,
                    realtime_factor=(sim.t[-1] / wall) if wall > 0 else np.inf)
    if isinstance(tau, Saturated):  # the drives' limits: what was asked beyond them
        sim.info["saturation"] = tau.report()
    check_energy(robot, sim, wrench)
    if options.check_limits:
        report_limits(robot, sim)
    keep = options.keep
    if keep is not None:  # after the checks, which use every step
        sim = Simulation(sim.t[keep], sim.q[keep], sim.qd[keep], sim.qdd[keep], sim.tau[keep],
                         sim.kinetic[keep], sim.potential[keep], sim.info, sim.solution)
        for name in ("current", "voltage", "electric_power", "drive_torque"):  # the motors'
            if name in sim.info:
                sim.info[name] = sim.info[name][keep]
    if options.sample_dt is not None:
        sim.info["sample_dt"] = options.sample_dt
    return sim
