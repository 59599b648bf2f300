"""``robodyn simulate`` of a model whose joints are elastic (``motor: {stiffness: K}``):
Spong's model on the ``2n`` state ``(q, theta, q', theta')``
(:func:`robodyn.motion.elastic.simulate_elastic`, Radau IIA), from the links at ``--q0``
and the motors at the static deflection ``theta0 = q0 + K^-1 g(q0)``, with constant motor
torques ``--tau`` (default 0) or ``--controller computed-torque``
(:class:`~robodyn.motion.elastic.ElasticComputedTorque` with the fast damping
``K_v = 2 sqrt(K B)``). It prints the final state and the springs' largest deflection
``max |theta - q|``. ``--rigid`` simulates the rigid limit (``K -> inf``) with
:func:`robodyn.simulate` instead."""

from __future__ import annotations

import time

import numpy as np

from ..core.errors import InputError
from ..motion import trajectory as rd_trajectory
from ..motion.elastic import ElasticComputedTorque, simulate_elastic, springs_of
from ..motion.options import time_grid
from .output import format_vector

#: Options of ``simulate`` a run of elastic joints does not take yet, with what to do.
_NOT_YET = (("save", "--save"), ("plot", "--plot"), ("animate", "--animate"),
            ("method", "--method"), ("save_dt", "--save-dt"), ("save_steps", "--save-steps"))


def default_sample_step(duration: float) -> float:
    """The samples' step without ``--dt``: a power of ten giving 100 to 1,000 intervals."""
    return 10.0 ** np.floor(np.log10(duration / 100))


def check_elastic_options(args) -> None:
    """The options of ``simulate`` that a run of elastic joints refuses, before any work."""
    for name, option in _NOT_YET:
        if getattr(args, name, None):
            raise InputError(f"{option}: not yet for elastic joints (motor.stiffness); leave it "
                             "out, add --rigid for the rigid limit, or use robodyn.motion."
                             "elastic.simulate_elastic from Python")
    if args.controller == "pd-gravity":
        raise InputError("--controller pd-gravity: not yet for elastic joints; use "
                         "--controller computed-torque (with the springs' damping term), or "
                         "--rigid")
    if args.tau is not None and len(args.tau) == 1 and args.tau[0].lower().endswith(".csv"):
        raise InputError("--tau FILE: a torque table is not yet read for elastic joints; give "
                         "a constant vector, or --rigid")


def simulate_elastic_command(args, robot, q0, qd0, tau, words, goal=None, kp=None,
                             kd=None) -> int:
    """Simulate ``robot``'s elastic joints from ``q0``, ``qd0`` (links and motors at the
    same rates) under the constant motor torques ``tau`` (``None``: 0; ``words`` say them),
    or with ``--controller computed-torque`` to ``goal`` with gains ``kp``, ``kd``, and
    print the run."""
    check_elastic_options(args)
    springs = springs_of(robot.numeric_chain)
    dt = args.dt if args.dt is not None else default_sample_step(args.duration)
    time_grid(args.duration, dt, ("--duration", "--dt"))   # the checks simulate_elastic makes
    units = ", ".join(dict.fromkeys(link.joint.unit for link in robot.links))
    controller = None
    if args.controller is not None:
        kv = 2.0 * np.sqrt(springs.stiffness * springs.motor_inertia)
        reference = rd_trajectory.quintic(q0, goal, args.duration)
        controller = ElasticComputedTorque(robot, springs, reference, kp, kd, kv)
        tau, words = controller, (f"computed torque along a quintic to q = "
                                  f"{format_vector(goal)} in {args.duration:g} s (kp = "
                                  f"{format_vector(kp)}, kd = {format_vector(kd)}, "
                                  f"kv = 2 sqrt(K B) = {format_vector(kv)})")
    start = time.perf_counter()
    run = simulate_elastic(robot, springs, q0, duration=args.duration, dt=dt, qd0=qd0,
                           thetad0=qd0, tau=tau)
    wall = time.perf_counter() - start
    print(f"{robot.name}: {robot.dof} DOF with elastic joints (K = "
          f"{format_vector(springs.stiffness)}, B = G^2 J_m = "
          f"{format_vector(springs.motor_inertia)}, D = {format_vector(springs.damping)}) "
          f"simulated for {run.t[-1]:g} s (Radau IIA, samples every {dt:g} s) from q0 = "
          f"{format_vector(q0)}, theta0 = q0 + K^-1 g(q0), qd0 = {format_vector(qd0)}, "
          f"{words}")
    print(f"  evaluations: {run.evaluations:,}; wall time {wall:.3g} s, real-time factor "
          f"{run.t[-1] / wall:.3g}")
    print(f"  final state: q = {format_vector(run.q[-1])}, theta = "
          f"{format_vector(run.theta[-1])}, qd = {format_vector(run.qd[-1])}")
    deflection = np.abs(run.theta - run.q)
    k, j = np.unravel_index(int(np.argmax(deflection)), deflection.shape)
    print(f"  spring deflection: max |theta - q| = {deflection[k, j]:.3g} {units} (joint "
          f"{j + 1}, t = {run.t[k]:.6g} s); per joint {format_vector(deflection.max(axis=0))}")
    if controller is not None:
        error = np.abs(controller.trajectory(run.t)[0] - run.q)
        print(f"  controller: final error max |q_goal - q| = {error[-1].max():.3g} {units}, "
              f"max tracking error {error.max():.3g} {units}")
    return 0
