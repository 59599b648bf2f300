"""``robodyn simulate``: the motion from a state, free (``--tau``: applied torques) or
driven by a controller (``--controller``), printed, saved, drawn and animated (the examples
are in :mod:`robodyn.cli.motion`, the commands' shared help)."""

from __future__ import annotations

import argparse
import math
import re
import warnings
from pathlib import Path

import numpy as np

from ..core.errors import InputError, excerpt
from ..motion import energy as rd_energy
from ..motion import simulation as rd_simulation
from ..motion import trajectory as rd_trajectory
from ..motion.checks import time_integral
from ..motion.elastic import has_springs, without_springs
from ..motion.inputs import TorqueTable
from ..motion.simulation import (
    DEFAULT_MAX_STEPS,
    MAX_STEPS,
    METHODS,
    EnergyBalanceWarning,
    JointLimitWarning,
    check_magnitude,
    simulate,
    state_vector,
    time_grid,
)
from .motion import (
    duration,
    joint_vector,
    motion_command,
    numbers,
    save_step,
    step_count,
    time_step,
    vector_option,
    with_values,
)
from .output import (
    format_vector,
    output_path,
    picture_option,
    plot_module,
    report_warnings,
    writing,
)
from .simulate_elastic import check_elastic_options, simulate_elastic_command

#: Largest ``--tau`` CSV file read, in bytes.
MAX_TAU_FILE = 100_000_000


# -- --tau --------------------------------------------------------------------------------------
def read_torque_table(path: Path, dof: int) -> tuple[np.ndarray, np.ndarray]:
    """``(times (T,), tau (T, dof))`` from a CSV file with columns ``t,tau1..taun`` (a header
    line naming them, ``t`` or ``time`` first, is optional); the strict format of
    :mod:`robodyn.core.csv_table`, shared with ``identify``: errors name the line and column."""
    from ..core.csv_table import read_number_table  # only for a --tau file

    columns = ["t"] + [f"tau{j}" for j in range(1, dof + 1)]
    table = read_number_table(path, columns, header=None, aliases={"time": "t"},
                              foreign=lambda name: re.fullmatch(r"tau[0-9]+", name) is not None,
                              label="--tau: ", expected=f"t,tau1..tau{dof}",
                              max_bytes=MAX_TAU_FILE)
    times = table.values[:, 0]
    back = np.flatnonzero(np.diff(times) <= 0)
    if back.size:
        row = int(back[0]) + 1
        raise InputError(f"{table.where(row, 0)}: {times[row]:g} after {times[row - 1]:g}; the "
                         "times (first column) must increase strictly")
    return times, table.values[:, 1:]


def _torques(args, robot):
    """``(tau, tau_times, words)`` for :func:`robodyn.simulate` from ``--tau``."""
    if args.tau is None:
        return None, None, "tau = 0"
    if len(args.tau) == 1 and (args.tau[0].lower().endswith(".csv") or
                               Path(args.tau[0]).is_file()):
        path = Path(args.tau[0])
        if not path.exists():  # a pipe or folder: the table reader says what it is
            raise InputError(f"--tau: no file {excerpt(args.tau[0])}")
        times, values = read_torque_table(path, robot.dof)
        if times[0] > 0:  # what acts before the first row is not the table's to say
            raise InputError(f"--tau: {excerpt(str(path))} starts at t = {times[0]:g}, not 0; "
                             "the table must say the torques from the start: add a first "
                             f"row at t = 0 (e.g. 0,{','.join(['0'] * robot.dof)})")
        check_magnitude(values, f"--tau: {excerpt(str(path))}")
        return values, times, f"tau from {path.name} ({len(times)} rows)"
    try:
        groups = [numbers(text) for text in args.tau]
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"--tau: {exc} (give {robot.dof} numbers or a CSV file "
                         "t,tau1..taun)") from None
    tau = joint_vector(groups, "--tau", robot)
    check_magnitude(tau, "--tau")
    return tau[None, :], None, f"tau = {format_vector(tau)} (constant)"


# -- simulate ----------------------------------------------------------------------------------
def _voltage(args, robot) -> np.ndarray | None:
    """``--voltage``: constant volts at each motorised joint's DC motor (one number for
    all, or one per joint; a closed mechanism's motors are at its actuated joints only, one
    number each), the motors the model file's (``--tau``: a load beside them; ``--dt``:
    fixed steps); None without it."""
    if args.voltage is None:
        return None
    if args.controller is not None:
        raise InputError("--voltage and --controller: a voltage-driven run takes its torques "
                         "from the motors; leave out --controller")
    from ..motion.electrics import motors_of

    if motors_of(robot.numeric_chain) is None:  # the Python API's "motors=DCMotor(...)" said
        raise InputError(f"--voltage: {robot.name} gives its joints no DC motors; give each "
                         "joint's motor: {resistance, torque_constant} in the model file "
                         "(docs/friction-and-drives.md)")
    flat = [x for group in args.voltage for x in group]
    closures = robot.chain.closures
    if closures is not None and closures.loops:  # the motors of the actuated joints
        names = closures.actuated
        if len(flat) not in (1, len(names)):
            raise InputError(f"--voltage: expected 1 number (every actuated joint) or "
                             f"{len(names)} (one per actuated joint of {robot.name}: "
                             f"{', '.join(names)}), got {len(flat)}; the passive joints have "
                             "no motor")
        volts = np.full(len(names), flat[0]) if len(flat) == 1 else np.array(flat)
    else:
        volts = np.full(robot.dof, flat[0]) if len(flat) == 1 else joint_vector(
            args.voltage, "--voltage", robot)
    check_magnitude(volts, "--voltage")
    return volts


#: The controllers ``simulate --controller`` runs (:mod:`robodyn.motion.control`).
CONTROLLERS = ("computed-torque", "pd-gravity")
#: Gains of ``--controller`` unless ``--kp``/``--kd`` say otherwise (``kd = 2 sqrt(kp)``: the
#: computed-torque error ``e'' + kd e' + kp e = 0`` is critically damped).
DEFAULT_KP, DEFAULT_KD = 100.0, 20.0


def default_save_step(duration: float) -> float:
    """The step of the grid ``simulate --save`` writes without ``--save-dt``: a power of ten
    that gives 500 to 5,000 intervals (``0.001`` s for 2 s, ``0.01`` s for 5 s)."""
    return 10.0 ** math.floor(math.log10(duration / 500))


def _check_simulate_options(args) -> None:
    """The combinations of options that cannot go together, before any work."""
    if args.controller is None:
        for option, value in (("--to", args.goal), ("--kp", args.kp), ("--kd", args.kd)):
            if value is not None:
                raise InputError(f"{option} is for a controller: add --controller "
                                 f"{' or '.join(CONTROLLERS)}")
    else:
        if args.goal is None:
            raise InputError(f"--controller {args.controller}: give the goal with --to (one "
                             "number per joint, or a named configuration of the model)")
        if args.tau is not None:
            raise InputError(f"--tau and --controller {args.controller}: the controller computes "
                             "the torques; give one of them")
    if args.save is None:
        for option, value in (("--save-dt", args.save_dt), ("--save-steps", args.save_steps)):
            if value:
                raise InputError(f"{option} sets what --save writes: add --save FILE")
    if args.save_dt is not None and args.save_steps:
        raise InputError("--save-dt and --save-steps: the samples are either on a uniform grid "
                         "(--save-dt) or at the integrator's steps (--save-steps); give one")


def _goal(words, robot) -> np.ndarray:
    """``--to``: numbers, one per joint, or the name of one of the model's configurations."""
    configurations = getattr(robot, "configurations", None) or {}  # named ones, if the model has
    if len(words) == 1 and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", words[0].strip()):
        name = words[0].strip()
        if name in configurations:
            return state_vector(configurations[name], f"--to {name}", robot.nq)
        known = (f"its configurations are {', '.join(configurations)}" if configurations
                 else "it has no named configurations")
        raise InputError(f"--to: {excerpt(name, 40)} is not a configuration of {robot.name} "
                         f"({known}); give {robot.nq} numbers, one per joint")
    try:
        groups = [numbers(word) for word in words]
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"--to: {exc} (give {robot.nq} numbers, one per joint)") from None
    return state_vector(joint_vector(groups, "--to", robot, configuration=True), "--to",
                        robot.nq)


def _gains(values, option: str, robot, default: float) -> np.ndarray:
    """``--kp``/``--kd``: one number for every joint or one per joint, each >= 0."""
    if values is None:
        return np.full(robot.dof, default)
    flat = np.array([x for group in values for x in group])
    if flat.size == 1:
        flat = np.full(robot.dof, flat[0])
    if flat.size != robot.dof:
        raise InputError(f"{option}: expected one number or {robot.dof} (one per joint of "
                         f"{robot.name}), got {flat.size}")
    if (flat < 0).any():
        raise InputError(f"{option}: gains must be >= 0 (a negative gain pushes the arm away "
                         f"from the goal), got {format_vector(flat)}")
    check_magnitude(flat, option)
    return flat


def _controller(args, robot, q0):
    """``(controller, words)`` for ``--controller``: PD with gravity compensation to the goal,
    or computed torque along the rest-to-rest quintic from ``q0`` to the goal over the
    duration; the exact model in both."""
    from ..motion import control

    goal = _goal(args.goal, robot)
    kp = _gains(args.kp, "--kp", robot, DEFAULT_KP)
    kd = _gains(args.kd, "--kd", robot, DEFAULT_KD)
    gains = f"kp = {format_vector(kp) if np.ptp(kp) else f'{kp[0]:g}'}, kd = " \
        f"{format_vector(kd) if np.ptp(kd) else f'{kd[0]:g}'}"
    if args.controller == "pd-gravity":
        return control.PDGravity(robot, goal, kp, kd), goal, \
            f"PD with gravity compensation to q = {format_vector(goal)} ({gains})"
    with np.errstate(all="ignore"):  # a duration too short is said below
        traj = (rd_trajectory.quintic(q0, goal, args.duration) if robot.chain.single_valued
                else rd_trajectory.geodesic(robot, q0, goal, args.duration))
    rd_energy.check_motion(traj, np.linspace(0.0, traj.duration, 201),
                           ("--q0", "--to", "--duration"))
    return control.ComputedTorque(robot, traj, kp, kd), goal, \
        f"computed torque along a quintic to q = {format_vector(goal)} in {args.duration:g} s " \
        f"({gains})"


def _save_grid(args) -> float | None:
    """The ``sample_dt`` of :func:`robodyn.simulate` for ``--save``: ``--save-dt``, else
    :func:`default_save_step` for an adaptive method (``--dt``: the fixed steps); None
    for ``--save-steps`` or without ``--save``."""
    if args.save is None or args.save_steps:
        return None
    if args.save_dt is None:
        return None if args.dt is not None else default_save_step(args.duration)
    time_grid(args.duration, args.save_dt, ("--duration", "--save-dt"))
    if args.dt is not None:
        k = round(args.save_dt / args.dt)
        if k < 1 or abs(k * args.dt - args.save_dt) > 1e-9 * args.save_dt:
            raise InputError(f"--save-dt: {args.save_dt:g} s is not a whole multiple of --dt "
                             f"{args.dt:g} s (the fixed steps); give a multiple such as "
                             f"{max(k, 1) * args.dt:g}, or leave --dt out")
    return args.save_dt


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .common import load_model

    _check_simulate_options(args)
    save = output_path(args.save, "--save", (".csv", ".npz"), args.force)
    plot, picture = picture_option(args.plot, "--plot", args.force)
    animation = None
    if args.animate is not None:
        plot = plot_module("--animate")
        animation = output_path(args.animate, "--animate", (".gif", ".mp4"), args.force)
        plot.animation_writer(animation, "--animate")  # checked before the simulation
    robot = with_values(load_model(args.model, args), args.values)
    q0 = state_vector(joint_vector(args.q0, "--q0", robot, configuration=True), "--q0",
                      robot.nq)
    qd0 = state_vector(joint_vector(args.qd0, "--qd0", robot), "--qd0", robot.dof) \
        if args.qd0 else np.zeros(robot.dof)
    if has_springs(robot) and not args.rigid:  # Spong's model on the (q, theta) state
        return _elastic(args, robot, q0, qd0, save, picture, animation)
    if args.rigid:
        robot = without_springs(robot)
    if args.method == "bdf":
        raise InputError("--method bdf: for elastic joints' springs (stiff); a rigid run takes "
                         f"{', '.join(METHODS)}")
    if args.method in ("rk4", "semi-implicit-euler", "implicit-euler") and args.dt is None:
        raise InputError(f"--method {args.method} is a fixed-step method: give --dt (e.g. "
                         "0.001)")
    if args.dt is not None:
        time_grid(args.duration, args.dt, ("--duration", "--dt"))  # the checks simulate makes
    sample_dt = _save_grid(args)
    tau, tau_times, tau_words = _torques(args, robot)
    controller = goal = None
    if args.controller is not None:
        controller, goal, tau_words = _controller(args, robot, q0)
        tau, tau_times = controller, None
    volts = _voltage(args, robot)
    if volts is not None:
        tau_words = f"voltage {format_vector(volts)} V (the model's DC motors)" + (
            f", load {tau_words}" if tau is not None else "")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JointLimitWarning)
        warnings.simplefilter("always", EnergyBalanceWarning)
        sim = simulate(robot, q0, qd0, duration=args.duration, tau=tau, tau_times=tau_times,
                       dt=args.dt, method=args.method, max_steps=args.max_steps,
                       sample_dt=sample_dt, voltage=volts)
    report_warnings(caught)
    info = sim.info
    how = info["method"] + (f", dt = {args.dt:g} s" if args.dt else
                            f", rtol = {info['rtol']:g}, atol = {info['atol']:g}")
    if "last_step" in info:
        how += f", the last step {info['last_step']:.6g} s"
    closures = robot.chain.closures
    what = f"{robot.dof} DOF"
    if closures is not None and closures.loops:  # the tree's joints, its loops kept closed
        what = (f"{robot.dof} joints ({len(closures.actuated)} actuated, loops closed to "
                f"{float(np.max(info['closure'])):.1e})")
    print(f"{robot.name}: {what} simulated for {sim.t[-1]:g} s ({how}) from "
          f"q0 = {format_vector(q0)}, qd0 = {format_vector(qd0)}, {tau_words}")
    evaluations = f" ({info['evaluations']:,} evaluations)" if "evaluations" in info else ""
    compiled = " in a compiled loop" if info.get("compiled") else ""
    print(f"  steps: {info['steps']:,}{evaluations}{compiled}; wall time {info['wall_time']:.3g} "
          f"s, real-time factor {info['realtime_factor']:.3g}")
    print(f"  final state: q = {format_vector(sim.q[-1])}, qd = {format_vector(sim.qd[-1])}")
    print("  " + energy_balance(robot, sim))
    if volts is not None:
        current = np.abs(info["current"]).max(axis=0)
        print(f"  motors: peak current {format_vector(current)} A; energy drawn "
              f"{float(np.sum(info['electric_energy'])):.4g} J, of it copper loss "
              f"{float(np.sum(info['copper_loss'])):.4g} J")
    if controller is not None:
        units = ", ".join(dict.fromkeys(link.joint.unit for link in robot.links))
        final = float(np.abs(robot.difference(sim.q[-1], goal)).max())
        line = f"  controller: final error max |q_goal - q| = {final:.3g} {units}"
        if args.controller == "computed-torque":
            tracking = float(np.abs(controller.references(sim.t)[0] - sim.q).max())
            line += f", max tracking error {tracking:.3g} {units}"
        print(line)
    if save is not None:
        writing(save, sim.save, "--save", args.force)
        grid = (f"every {sample_dt:g} s" if sample_dt is not None
                else "at the fixed steps" if args.dt is not None
                else "at the integrator's steps")
        print(f"  wrote {save} ({len(sim.t):,} samples {grid})")
    if picture is not None:
        if controller is not None and robot.chain.single_valued:  # q_ref - q: one-value joints
            writing(picture, lambda p: plot.tracking(sim, controller, robot, path=p), "--plot",
                    args.force)
        else:
            writing(picture, lambda p: plot.motion(sim, robot, path=p), "--plot", args.force)
        print(f"  wrote {picture}")
    if animation is not None:
        writing(animation, lambda p: plot.animate(robot, sim, p), "--animate", args.force)
        print(f"  wrote {animation}")
    return 0


def _elastic(args, robot, q0, qd0, save, picture, animation) -> int:
    """``simulate`` of a model with elastic joints (:mod:`robodyn.cli.simulate_elastic`)."""
    check_elastic_options(args)
    goal = kp = kd = None
    if args.controller is not None:
        goal, kp = _goal(args.goal, robot), _gains(args.kp, "--kp", robot, DEFAULT_KP)
        kd = _gains(args.kd, "--kd", robot, DEFAULT_KD)
        tau, words = None, ""
    else:
        tau, times, words = _torques(args, robot)
        if times is not None:  # a table: linear in between, the last row held
            table = TorqueTable(tau, times, args.duration, robot.dof)
            tau = lambda t, *state: table(t)  # noqa: E731
        elif tau is not None:
            tau = tau[0]
    return simulate_elastic_command(args, robot, q0, qd0, tau, words, goal, kp, kd, save,
                                    picture, animation)


def energy_balance(robot, sim) -> str:
    """One line on ``E = K + U`` along ``sim``: its drift when nothing adds or removes energy,
    else the balance ``E(end) - E(0) - W_tau + L_friction`` (trapezoidal rule on the samples),
    each also relative to the energy scale (:class:`robodyn.motion.simulation.EnergyBalance`, the
    one ``simulate`` checks)."""
    total = sim.total
    b = sim.info.get("energy_balance") or rd_simulation.energy_balance(robot, sim)
    start = f"energy K+U: start {total[0]:.10g} J, end {total[-1]:.10g} J"
    if b.passive:
        return f"{start}, drift {b.change:.3g} J (relative {b.relative:.2g})"
    work = f"work of tau {b.work:.6g} J"
    if "lugre_friction" in sim.info:  # sim.tau is the applied torque less the LuGre friction
        applied = _work(sim.t, sim.info["applied_torque"], sim.qd)
        lugre = _work(sim.t, sim.info["lugre_friction"], sim.qd)
        work = (f"work of tau {b.work:.6g} J (the applied torque's {applied:.6g} J less the "
                f"LuGre friction's {lugre:.6g} J)")
    return (f"{start}; {work}, friction loss {b.friction_loss:.6g} J; "
            f"balance {b.error:.3g} J (relative {b.relative:.2g})")


def _work(t, torque, qd) -> float:
    """``int tau . qd dt`` on the samples."""
    return time_integral(t, np.sum(np.broadcast_to(np.asarray(torque, dtype=float), qd.shape)
                                   * qd, axis=1))


def add_simulate_command(sub, parents=()) -> None:
    """Add ``simulate`` to the ``robodyn`` command's sub-commands (``parents``: the shared
    model options, :func:`robodyn.cli.common.model_options`)."""
    p = motion_command(sub, "simulate", parents,
                       "simulate the motion (direct dynamics in time)",
                       "Integrate M(q) qdd + C qd + friction + g = tau from q0, qd0 and print the "
                       "final state, the energy drift and the speed.")
    vector_option(p, "--q0", required=True, help="initial position, one number per joint")
    vector_option(p, "--qd0", help="initial velocity (default: at rest)")
    p.add_argument("--duration", type=duration, required=True, metavar="SECONDS",
                   help="simulated time")
    p.add_argument("--tau", nargs="+", metavar="X|FILE",
                   help="applied joint torques: a constant vector, or a CSV file with columns "
                        "t,tau1..taun (default: none, the arm moves freely)")
    vector_option(p, "--voltage", help="drive the joints by their DC motors' voltages "
                                       "(volts, one number for all or one per joint, a "
                                       "closed mechanism's actuated joints only; the "
                                       "motors of the model file: motor: resistance, "
                                       "torque_constant, ...)")
    p.add_argument("--dt", type=time_step, metavar="SECONDS",
                   help="fixed step (e.g. 0.001 for 1 kHz; default: adaptive steps)")
    p.add_argument("--method", choices=(*METHODS, "bdf"), default=None,
                   help="integrator (default: rk45, or rk4 with --dt; elastic joints: radau, "
                        "the default, or bdf)")
    p.add_argument("--max-steps", type=step_count, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"most steps of an adaptive method (default {DEFAULT_MAX_STEPS:,}, at "
                        f"most {MAX_STEPS:,}); a fixed step takes duration / dt steps, at most "
                        f"{MAX_STEPS:,}")
    p.add_argument("--plot", metavar="PICTURE",
                   help="draw q, qd, qdd over time (e.g. sim.png); with --controller the "
                        "reference, the motion and the tracking error")
    p.add_argument("--animate", metavar="FILE", help="animate the arm (.gif, or .mp4 with "
                                                     "ffmpeg)")
    p.add_argument("--save", metavar="FILE",
                   help="write the samples (.csv or .npz): on a uniform time grid (the dense "
                        "output of an adaptive method; with --dt, the fixed steps)")
    p.add_argument("--save-dt", type=save_step, metavar="SECONDS",
                   help="step of the grid --save writes (default: a power of ten giving 500 "
                        "to 5,000 intervals, e.g. 0.001 s for 2 s; with --dt a multiple of it)")
    p.add_argument("--save-steps", action="store_true",
                   help="--save writes the integrator's own (adaptive) steps instead of a grid")
    p.add_argument("--controller", choices=CONTROLLERS,
                   help="drive the arm to --to with a controller (exact model): pd-gravity (PD "
                        "with gravity compensation, a set point) or computed-torque (tracks the "
                        "rest-to-rest quintic from --q0 to --to over the duration)")
    p.add_argument("--to", dest="goal", nargs="+", metavar="Q",
                   help="the controller's goal: one number per joint, or a named "
                        "configuration of the model")
    vector_option(p, "--kp", help=f"proportional gain, one number or one per joint (default "
                                  f"{DEFAULT_KP:g})")
    vector_option(p, "--kd", help=f"derivative gain, one number or one per joint (default "
                                  f"{DEFAULT_KD:g})")
    p.add_argument("--rigid", action="store_true",
                   help="a model with elastic joints (motor.stiffness): simulate the rigid "
                        "limit K -> inf instead of the springs (default: the springs, on the "
                        "(q, theta) state, Radau IIA; --dt is then the samples' step)")
    p.add_argument("--force", action="store_true",
                   help="overwrite the output files even when robodyn did not write them or "
                        "they were changed since")
    p.set_defaults(func=_cmd_simulate)
