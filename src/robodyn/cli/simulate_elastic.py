"""``robodyn simulate`` of a model whose joints are elastic (``motor: {stiffness: K}`` on
some or all joints): Spong's model on the state ``(q, theta, q', theta')``
(:func:`robodyn.motion.elastic.simulate_elastic`, Radau IIA, or BDF with ``--method bdf``),
from the links at ``--q0``
and the motors at the static deflection ``theta0 = q0 + K^-1 g(q0)``, with motor torques
``--tau`` (constant, or a CSV table ``t,tau1..taun``; default 0; a rigid joint's entry acts
on its link), ``--controller computed-torque``
(:class:`~robodyn.motion.elastic.ElasticComputedTorque` with the fast damping
``K_v = 2 sqrt(K B)``) or ``--controller pd-gravity`` (Tomei's PD on the motors with
``theta_d = q_d + K^-1 g(q_d)``, :class:`~robodyn.motion.elastic_control.ElasticPDGravity`).
It prints the final state, the springs' largest deflection ``max |theta - q|`` and the
energy with the springs' (:func:`robodyn.motion.elastic_energy.elastic_energy`: its drift
when nothing adds or takes energy, else its balance with the work of ``tau`` and the
losses); ``--save`` writes the samples (``t, q1.., theta<j>.., qd1.., thetad<j>..,
tau1..``; every ``--save-dt``, a whole multiple of ``--dt``),
``--plot`` draws ``q``, ``theta`` and the deflection (:func:`robodyn.plot.elastic.
elastic_motion`), ``--animate`` the links. ``--rigid`` simulates the rigid limit
(``K -> inf``) with :func:`robodyn.simulate` instead. Springs behind a coupled
transmission (``transmission: {..., stiffness}``, :mod:`robodyn.motion.elastic_coupled`)
run the same way, ``theta`` the motors' own angles and ``theta0 = N q0 + K_m^-1 N^-T
g(q0)``."""

from __future__ import annotations

import time

import numpy as np

from ..core.errors import InputError
from ..motion import trajectory as rd_trajectory
from ..motion.elastic import (
    ELASTIC_METHODS,
    CoupledSprings,
    ElasticComputedTorque,
    elastic_method,
    link_side_of,
    simulate_elastic,
    springs_of,
)
from ..motion.elastic_control import ElasticPDGravity
from ..motion.elastic_energy import elastic_energy
from ..motion.options import time_grid
from .output import format_vector, writing

#: Options of ``simulate`` a run of elastic joints does not take yet, with what to do.
_NOT_YET = (("save_steps", "--save-steps"),
            ("voltage", "--voltage"))  # --voltage was ignored there: refused, not dropped


def default_sample_step(duration: float) -> float:
    """The samples' step without ``--dt``: a power of ten giving 100 to 1,000 intervals."""
    return 10.0 ** np.floor(np.log10(duration / 100))


def check_elastic_options(args) -> None:
    """The options of ``simulate`` that a run of elastic joints refuses, before any work."""
    for name, option in _NOT_YET:
        if name == "voltage" and getattr(args, name, None):
            raise InputError("--voltage: not yet for elastic joints (motor.stiffness): the "
                             "springs' run has no motor circuits; add --rigid to drive the "
                             "rigid limit by the voltages, or give --tau instead")
        if getattr(args, name, None):
            raise InputError(f"{option}: not yet for elastic joints (motor.stiffness); leave it "
                             "out (--dt is the samples' step, Radau IIA the method), add "
                             "--rigid for the rigid limit, or use robodyn.motion.elastic."
                             "simulate_elastic from Python")
    if getattr(args, "method", None):
        elastic_method(args.method, "--method")


def _save_every(args, dt: float) -> int:
    """How many samples apart ``--save-dt`` keeps them: a whole multiple of the samples'
    step ``dt`` (1 without it)."""
    if args.save_dt is None:
        return 1
    time_grid(args.duration, args.save_dt, ("--duration", "--save-dt"))
    k = round(args.save_dt / dt)
    if k < 1 or abs(k * dt - args.save_dt) > 1e-9 * args.save_dt:
        raise InputError(f"--save-dt: {args.save_dt:g} s is not a whole multiple of the "
                         f"samples' step {dt:g} s (--dt); give a multiple such as "
                         f"{max(k, 1) * dt:g}")
    return k


def energy_line(robot, springs, run) -> str:
    """One line on ``E = T + U + 1/2 d^T K d`` along ``run``: its drift when nothing adds
    or takes energy, else the balance with the work of ``tau`` and the losses (integrated
    with the state: ``simulate_elastic(..., balance=True)``)."""
    e = elastic_energy(link_side_of(robot, springs), springs, run)
    total = e.total
    start = (f"energy T+U+1/2 d^T K d: start {total[0]:.10g} J, end {total[-1]:.10g} J")
    if e.passive:
        return f"{start}, drift {total[-1] - total[0]:.3g} J (largest {e.error:.3g} J, " \
               f"relative {e.relative:.2g})"
    how = "integrated with the state" if e.integrated else "trapezoidal rule on the samples"
    return (f"{start}; work of tau {e.work[-1]:.6g} J, damping and friction loss "
            f"{e.loss[-1]:.6g} J; balance {e.error:.3g} J (relative {e.relative:.2g}, {how})")


def _controller(args, robot, springs, q0, goal, kp, kd):
    """``(controller, words, reference)`` for ``--controller``."""
    if args.controller == "pd-gravity":
        ctl = ElasticPDGravity(robot, springs, goal, kp, kd)
        held = "N q_d + K_m^-1 N^-T" if isinstance(springs, CoupledSprings) else "q_d + K^-1"
        return ctl, (f"PD on the motors with gravity compensation to q = "
                     f"{format_vector(goal)}, theta_d = {held} g(q_d) = "
                     f"{format_vector(ctl.theta_goal)} (kp = {format_vector(kp)}, kd = "
                     f"{format_vector(kd)})"), lambda t: goal
    kv = np.zeros(robot.dof)
    index = (list(springs.transmission.springs) if isinstance(springs, CoupledSprings)
             else springs.indices(robot.dof))   # the joints, or motors, with a spring
    kv[index] = 2.0 * np.sqrt(springs.stiffness * springs.motor_inertia)
    reference = rd_trajectory.quintic(q0, goal, args.duration)
    ctl = ElasticComputedTorque(robot, springs, reference, kp, kd, kv)
    return ctl, (f"computed torque along a quintic to q = {format_vector(goal)} in "
                 f"{args.duration:g} s (kp = {format_vector(kp)}, kd = {format_vector(kd)}, "
                 f"kv = 2 sqrt(K B) = {format_vector(kv[index])})"), \
        lambda t: reference(t)[0]


def simulate_elastic_command(args, robot, q0, qd0, tau, words, goal=None, kp=None,
                             kd=None, save=None, picture=None, animation=None) -> int:
    """Simulate ``robot``'s elastic joints from ``q0``, ``qd0`` (links and motors at the
    same rates) under the motor torques ``tau`` (``None``: 0; a vector, or a callable
    ``tau(t, ...)``; ``words`` say them), or with ``--controller`` to ``goal`` with gains
    ``kp``, ``kd``; print the run, write it to ``save``, draw it to ``picture`` and
    animate the links to ``animation``."""
    check_elastic_options(args)
    springs = springs_of(robot.numeric_chain)
    index = springs.indices(robot.dof)
    dt = args.dt if args.dt is not None else default_sample_step(args.duration)
    time_grid(args.duration, dt, ("--duration", "--dt"))   # the checks simulate_elastic makes
    every = _save_every(args, dt)
    method = args.method or "radau"
    coupled = isinstance(springs, CoupledSprings)
    units = ", ".join(dict.fromkeys(link.joint.unit for link in robot.links))
    controller = reference = None
    if args.controller is not None:
        controller, words, reference = _controller(args, robot, springs, q0, goal, kp, kd)
        tau = controller
    start = time.perf_counter()
    run = simulate_elastic(robot, springs, q0, duration=args.duration, dt=dt, qd0=qd0,
                           thetad0=qd0 @ springs.rows.T if coupled else qd0[index], tau=tau,
                           method=method, balance=True)
    wall = time.perf_counter() - start
    rigid = [j for j in range(robot.dof) if j not in index]
    which = "elastic joints" if not rigid else (
        f"elastic joint{'s' if len(index) > 1 else ''} "
        f"{', '.join(str(j + 1) for j in index)} and rigid joint{'s' if len(rigid) > 1 else ''} "
        f"{', '.join(str(j + 1) for j in rigid)}")
    how = f"{ELASTIC_METHODS[method][0].replace('Radau', 'Radau IIA')}, samples every {dt:g} s"
    if coupled:
        print(f"{robot.name}: {robot.dof} DOF with elastic drives behind the coupled "
              f"transmission N = {format_vector(springs.N.ravel())} (K_m = [" + ", ".join(
                  "rigid" if x is None else f"{x:g}" for x in springs.transmission.stiffness)
              + f"], J_m = {format_vector(springs.transmission.motor_inertia)}, D_m = "
              f"{format_vector(springs.transmission.spring_damping)}) simulated for "
              f"{run.t[-1]:g} s ({how}) from "
              f"q0 = {format_vector(q0)}, theta_m0 = N q0 + K_m^-1 N^-T g(q0), qd0 = "
              f"{format_vector(qd0)}, {words}")
    else:
        print(f"{robot.name}: {robot.dof} DOF with {which} (K = "
              f"{format_vector(springs.stiffness)}, B = G^2 J_m = "
              f"{format_vector(springs.motor_inertia)}, D = {format_vector(springs.damping)}) "
              f"simulated for {run.t[-1]:g} s ({how}) from q0 = "
              f"{format_vector(q0)}, theta0 = q0 + K^-1 g(q0), qd0 = {format_vector(qd0)}, "
              f"{words}")
    print(f"  evaluations: {run.evaluations:,}; wall time {wall:.3g} s, real-time factor "
          f"{run.t[-1] / wall:.3g}")
    print(f"  final state: q = {format_vector(run.q[-1])}, theta = "
          f"{format_vector(run.theta[-1])}, qd = {format_vector(run.qd[-1])}")
    deflection = np.abs(run.deflection)
    k, j = np.unravel_index(int(np.argmax(deflection)), deflection.shape)
    motor = j if not coupled or springs.motors is None else springs.motors[j]
    which = (f"max |theta_m - N q| = {deflection[k, j]:.3g} rad at the motors (motor {motor + 1}"
             if coupled else
             f"max |theta - q| = {deflection[k, j]:.3g} {units} (joint {index[j] + 1}")
    print(f"  spring deflection: {which}, t = {run.t[k]:.6g} s); per "
          f"{'motor' if coupled else 'joint'} {format_vector(deflection.max(axis=0))}")
    print("  " + energy_line(robot, springs, run))
    if controller is not None:
        error = np.abs(np.asarray([reference(t) for t in run.t]) - run.q)
        line = f"  controller: final error max |q_goal - q| = {error[-1].max():.3g} {units}"
        if args.controller == "computed-torque":
            line += f", max tracking error {error.max():.3g} {units}"
        print(line)
    if save is not None:
        saved = run.every(every)
        writing(save, saved.save, "--save", args.force)
        print(f"  wrote {save} ({len(saved.t):,} samples every {every * dt:g} s: t, q, theta, "
              "qd, thetad, tau)")
    if picture is not None:
        from ..plot.elastic import elastic_motion

        ref = None if reference is None else np.asarray([reference(t) for t in run.t])
        writing(picture, lambda p: elastic_motion(run, robot, reference=ref, path=p),
                "--plot", args.force)
        print(f"  wrote {picture}")
    if animation is not None:   # the links' motion (the motors are inside the joints)
        from ..plot import animate

        writing(animation, lambda p: animate(robot, run, p), "--animate", args.force)
        print(f"  wrote {animation}")
    return 0
