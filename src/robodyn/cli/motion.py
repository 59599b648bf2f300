"""``robodyn simulate``, ``robodyn torques``, ``robodyn energy``: the dynamics at work from the
command line (simulation, inverse dynamics along a motion, the energy a motion costs), and the
tour ``robodyn demo`` gives without models.

    robodyn simulate planar-2r --q0 1,-0.5 --duration 5 --plot sim.png --save sim.csv
    robodyn simulate pendulum --q0 2.5 --duration 10 --dt 0.001 --method semi-implicit-euler
    robodyn simulate planar-2r --q0 0,0 --tau torques.csv --duration 2 --animate sim.gif
    robodyn simulate planar-2r --q0 0,0 --duration 3 --controller pd-gravity --to 1,-0.5
    robodyn simulate puma560 --q0 0,0,0,0,0,0 --duration 2 --controller computed-torque \
        --to 1,0.5,-0.5,0,0,0 --kp 100 --kd 20 --plot tracking.png
    robodyn torques puma560 --from 0,0,0,0,0,0 --to 1,0.5,-0.5,0.3,0.2,0.1 --duration 2
    robodyn energy planar-2r --from -1,1 --to 1,-1 --duration 1.5 --optimize

Vectors are numbers separated by commas or spaces, one per joint (--q0 0.5,0.3 or
--q0 0.5 0.3); --tau is such a constant vector or a CSV file with columns t,tau1..taun
(linear in between, the last row held).
"""

from __future__ import annotations

import argparse
import importlib
import math
import re
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..core.errors import InputError, ModelError, PhysicalConsistencyWarning, excerpt
from ..motion import energy as rd_energy
from ..motion import simulation as rd_simulation
from ..motion import trajectory as rd_trajectory
from ..motion.simulation import (
    DEFAULT_MAX_STEPS,
    MAX_DURATION,
    MAX_STEPS,
    METHODS,
    EnergyBalanceWarning,
    JointLimitWarning,
    check_magnitude,
    simulate,
    state_vector,
    time_grid,
)
from .common import integer_between, model_command

#: Most numbers one vector option takes (no chain has more joints).
MAX_VALUES = 64
#: Largest ``--tau`` CSV file read, in bytes.
MAX_TAU_FILE = 100_000_000
PROFILES = ("quintic", "cubic", "trapezoidal")
#: The folder ``robodyn demo`` writes its pictures into (``--out`` changes it).
DEMO_DIR = "robodyn-demo"

#: The commands defined here.
COMMANDS = ("simulate", "torques", "energy")
#: The options of :data:`COMMANDS` that take one or more words (:func:`_vector_option`, --tau).
VECTOR_OPTIONS = frozenset({"--q0", "--qd0", "--tau", "--from", "--to", "--kp", "--kd"})
#: A word that starts with a minus and a digit (``-0.5,0.3``, ``-1e-3``, ``-.5``) is a number,
#: never an option: the rule of Python 3.13's argparse. Those of 3.11 and 3.12 read only ``-1``
#: and ``-0.5`` as numbers, and ``--q0 -0.5,0.3`` as an unknown option ``-0.5,0.3``.
NEGATIVE_NUMBER = re.compile(r"-\.?\d")


def numbers_attached(argv) -> list[str]:
    """The words of a command line, those of :data:`COMMANDS` with each negative number
    (:data:`NEGATIVE_NUMBER`) given to an option attached to it as ``--option=value``
    (argparse's spelling of a value that starts with a minus), so that every Python reads
    them as 3.13 does: an option of :data:`VECTOR_OPTIONS` takes its words up to the next
    option (``--q0 -0.5 -0.1`` is ``--q0=-0.5 -0.1``), any other option the one word after
    it (``--dt -1e-3`` is ``--dt=-1e-3``). The words of other commands are left as they are."""
    words = list(argv)
    if not words or words[0] not in COMMANDS:
        return words
    out, k = words[:1], 1
    while k < len(words):
        word = words[k]
        if word == "--":  # the rest are positional
            return out + words[k:]
        out.append(word)
        k += 1
        if not word.startswith("--") or "=" in word:
            continue
        vector = any(option.startswith(word) for option in VECTOR_OPTIONS)  # or abbreviated
        end = k
        while end < len(words) and _value_word(words[end]) and (vector or end == k):
            end += 1
        if any(NEGATIVE_NUMBER.match(w) for w in words[k:end]):
            out[-1] = f"{word}={' '.join(words[k:end])}"
            k = end
    return out


def _value_word(word: str) -> bool:
    """Whether argparse (by :data:`NEGATIVE_NUMBER`) reads ``word`` as a value, not an option."""
    return (not word.startswith("-") or len(word) == 1 or " " in word
            or bool(NEGATIVE_NUMBER.match(word)))


# -- argument types ----------------------------------------------------------------------------
def numbers(text: str) -> list[float]:
    """An argparse type: finite numbers separated by commas or white space."""
    items = [item for item in re.split(r"[,\s]+", text.strip()) if item]
    if not items:
        raise argparse.ArgumentTypeError(f"{excerpt(text)} holds no numbers (e.g. 0.5,0.3)")
    if len(items) > MAX_VALUES:
        raise argparse.ArgumentTypeError(f"{len(items)} numbers; a vector has one per joint "
                                         f"(at most {MAX_VALUES})")
    out = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{excerpt(item, 40)} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{excerpt(item, 40)} is not a finite number")
        out.append(value)
    return out


def _bounded(text: str, what: str, most: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{excerpt(text, 40)} is not a number") from None
    if not (math.isfinite(value) and 0 < value <= most):
        raise argparse.ArgumentTypeError(f"{excerpt(text, 40)} is not {what} (a number above "
                                         f"0, at most {most:g})")
    return value


def duration(text: str) -> float:
    """An argparse type: a duration in seconds, ``0 < T <= MAX_DURATION``."""
    return _bounded(text, "a duration in seconds", MAX_DURATION)


def time_step(text: str) -> float:
    """An argparse type: a time step in seconds, ``0 < dt <= 1``."""
    return _bounded(text, "a time step in seconds", 1.0)


def sample_count(text: str) -> int:
    """An argparse type: a number of samples along a motion, ``2 <= n <=``
    :data:`robodyn.motion.energy.MAX_SAMPLES` (``torques`` and ``energy`` evaluate them)."""
    return integer_between(text, 2, rd_energy.MAX_SAMPLES)


def via_count(text: str) -> int:
    """An argparse type: a number of via points, ``1 <= n <=``
    :data:`robodyn.motion.energy.MAX_VIA_POINTS`."""
    return integer_between(text, 1, rd_energy.MAX_VIA_POINTS)


def save_step(text: str) -> float:
    """An argparse type: the step of the saved time grid, ``0 < dt <= MAX_DURATION``."""
    return _bounded(text, "a time step in seconds", MAX_DURATION)


def step_count(text: str) -> int:
    """An argparse type: a budget of adaptive steps, ``1 <= n <= MAX_STEPS``."""
    return integer_between(text, 1, MAX_STEPS)


# -- checks after the model is known -----------------------------------------------------------
def joint_vector(values, option: str, robot) -> np.ndarray:
    """The numbers given to ``option`` (lists from :func:`numbers`) as one per joint."""
    flat = [x for group in values for x in group]
    if len(flat) != robot.dof:
        raise InputError(f"{option}: expected {robot.dof} numbers (one per joint of "
                         f"{robot.name}), got {len(flat)}")
    return np.array(flat)


def _output(path: str | None, option: str, suffixes: tuple[str, ...]) -> Path | None:
    """``path`` checked before any work: a known suffix and an existing folder."""
    if path is None:
        return None
    out = Path(path)
    if out.suffix.lower() not in suffixes:
        raise InputError(f"{option}: {excerpt(out.name)}: use a file name ending in "
                         f"{' or '.join(suffixes)}")
    if not out.parent.is_dir():
        raise InputError(f"{option}: the folder {excerpt(str(out.parent))} does not exist")
    return out


def _plot_module(option: str):
    """``robodyn.plot`` (Matplotlib), or an error naming the option that needs it."""
    try:
        return importlib.import_module("robodyn.plot")
    except ImportError as exc:
        raise InputError(f"{option} needs robodyn.plot and Matplotlib, which did not import "
                         f"({excerpt(str(exc))})") from None


def _picture_suffixes() -> tuple[str, ...]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    return tuple("." + s for s in sorted(FigureCanvasAgg.get_supported_filetypes()))


def _picture(path: str | None, option: str):
    """``(robodyn.plot, Path)`` for a picture option given, else ``(None, None)``."""
    if path is None:
        return None, None
    plot = _plot_module(option)
    return plot, _output(path, option, _picture_suffixes())


def _writing(path: Path, write) -> None:
    """Run ``write()``; a file system error becomes a clear error naming ``path``."""
    try:
        write()
    except OSError as exc:
        raise InputError(f"cannot write {excerpt(str(path))}: {exc.strerror or exc}") from None


def _fmt(values, digits: int = 6) -> str:
    return "[" + ", ".join(f"{x:.{digits}g}" for x in np.asarray(values, dtype=float).ravel()) \
        + "]"


def _units(robot) -> list[str]:
    return [link.joint.torque_unit for link in robot.links]


def _report_warnings(caught) -> None:
    for w in caught:
        print(f"robodyn: warning: {w.message}", file=sys.stderr)


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
        if not path.is_file():
            raise InputError(f"--tau: no file {excerpt(args.tau[0])}")
        times, values = read_torque_table(path, robot.dof)
        check_magnitude(values, f"--tau: {excerpt(str(path))}")
        return values, times, f"tau from {path.name} ({len(times)} rows)"
    try:
        groups = [numbers(text) for text in args.tau]
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"--tau: {exc} (give {robot.dof} numbers or a CSV file "
                         "t,tau1..taun)") from None
    tau = joint_vector(groups, "--tau", robot)
    check_magnitude(tau, "--tau")
    return tau[None, :], None, f"tau = {_fmt(tau)} (constant)"


# -- simulate ----------------------------------------------------------------------------------
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
            return state_vector(configurations[name], f"--to {name}", robot.dof)
        known = (f"its configurations are {', '.join(configurations)}" if configurations
                 else "it has no named configurations")
        raise InputError(f"--to: {excerpt(name, 40)} is not a configuration of {robot.name} "
                         f"({known}); give {robot.dof} numbers, one per joint")
    try:
        groups = [numbers(word) for word in words]
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"--to: {exc} (give {robot.dof} numbers, one per joint)") from None
    return state_vector(joint_vector(groups, "--to", robot), "--to", robot.dof)


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
                         f"from the goal), got {_fmt(flat)}")
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
    gains = f"kp = {_fmt(kp) if np.ptp(kp) else f'{kp[0]:g}'}, kd = " \
        f"{_fmt(kd) if np.ptp(kd) else f'{kd[0]:g}'}"
    if args.controller == "pd-gravity":
        return control.PDGravity(robot, goal, kp, kd), goal, \
            f"PD with gravity compensation to q = {_fmt(goal)} ({gains})"
    with np.errstate(all="ignore"):  # a duration too short is said below
        traj = rd_trajectory.quintic(q0, goal, args.duration)
    rd_energy.check_motion(traj, np.linspace(0.0, traj.duration, 201),
                           ("--q0", "--to", "--duration"))
    return control.ComputedTorque(robot, traj, kp, kd), goal, \
        f"computed torque along a quintic to q = {_fmt(goal)} in {args.duration:g} s ({gains})"


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
    save = _output(args.save, "--save", (".csv", ".npz"))
    plot, picture = _picture(args.plot, "--plot")
    animation = None
    if args.animate is not None:
        plot = _plot_module("--animate")
        animation = _output(args.animate, "--animate", (".gif", ".mp4"))
        plot.animation_writer(animation, "--animate")  # checked before the simulation
    robot = _with_values(load_model(args.model, args), args.values)
    q0 = state_vector(joint_vector(args.q0, "--q0", robot), "--q0", robot.dof)
    qd0 = state_vector(joint_vector(args.qd0, "--qd0", robot), "--qd0", robot.dof) \
        if args.qd0 else np.zeros(robot.dof)
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JointLimitWarning)
        warnings.simplefilter("always", EnergyBalanceWarning)
        sim = simulate(robot, q0, qd0, duration=args.duration, tau=tau, tau_times=tau_times,
                       dt=args.dt, method=args.method, max_steps=args.max_steps,
                       sample_dt=sample_dt)
    _report_warnings(caught)
    info = sim.info
    how = info["method"] + (f", dt = {args.dt:g} s" if args.dt else
                            f", rtol = {info['rtol']:g}, atol = {info['atol']:g}")
    if "last_step" in info:
        how += f", the last step {info['last_step']:.6g} s"
    print(f"{robot.name}: {robot.dof} DOF simulated for {sim.t[-1]:g} s ({how}) from "
          f"q0 = {_fmt(q0)}, qd0 = {_fmt(qd0)}, {tau_words}")
    evaluations = f" ({info['evaluations']:,} evaluations)" if "evaluations" in info else ""
    compiled = " in a compiled loop" if info.get("compiled") else ""
    print(f"  steps: {info['steps']:,}{evaluations}{compiled}; wall time {info['wall_time']:.3g} "
          f"s, real-time factor {info['realtime_factor']:.3g}")
    print(f"  final state: q = {_fmt(sim.q[-1])}, qd = {_fmt(sim.qd[-1])}")
    print("  " + energy_balance(robot, sim))
    if controller is not None:
        units = ", ".join(dict.fromkeys(link.joint.unit for link in robot.links))
        final = float(np.abs(goal - sim.q[-1]).max())
        line = f"  controller: final error max |q_goal - q| = {final:.3g} {units}"
        if args.controller == "computed-torque":
            tracking = float(np.abs(controller.references(sim.t)[0] - sim.q).max())
            line += f", max tracking error {tracking:.3g} {units}"
        print(line)
    if save is not None:
        _writing(save, lambda: sim.save(save))
        grid = (f"every {sample_dt:g} s" if sample_dt is not None
                else "at the fixed steps" if args.dt is not None
                else "at the integrator's steps")
        print(f"  wrote {save} ({len(sim.t):,} samples {grid})")
    if picture is not None:
        if controller is not None:
            _writing(picture, lambda: plot.tracking(sim, controller, robot, path=picture))
        else:
            _writing(picture, lambda: plot.motion(sim, robot, path=picture))
        print(f"  wrote {picture}")
    if animation is not None:
        _writing(animation, lambda: plot.animate(robot, sim, animation))
        print(f"  wrote {animation}")
    return 0


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
    return (f"{start}; work of tau {b.work:.6g} J, friction loss {b.friction_loss:.6g} J; "
            f"balance {b.error:.3g} J (relative {b.relative:.2g})")


# -- torques -----------------------------------------------------------------------------------
def _profile(args, robot, profile: str):
    """The motion ``--from``/``--to`` in ``--duration`` along ``profile`` and its samples."""
    q0 = joint_vector(args.q_from, "--from", robot)
    q1 = joint_vector(args.q_to, "--to", robot)
    make = getattr(rd_trajectory, profile)
    with np.errstate(all="ignore"):  # a duration too short for the motion is said below
        traj = make(q0, q1, args.duration)
    t = np.linspace(0.0, traj.duration, args.samples)
    rd_energy.check_motion(traj, t, ("--from", "--to", "--duration"))
    return traj, rd_trajectory.Motion(t, *traj(t))


def _cmd_torques(args: argparse.Namespace) -> int:
    from .common import load_model

    save = _output(args.save, "--save", (".csv",))
    plot, picture = _picture(args.plot, "--plot")
    robot = _with_values(load_model(args.model, args), args.values)
    traj, motion = _profile(args, robot, args.profile)
    parts = robot.torque_parts(motion.q, motion.qd, motion.qdd).as_dict()
    units = _units(robot)
    print(f"{robot.name}: inverse dynamics along a {args.profile} from {_fmt(traj.q0)} to "
          f"{_fmt(traj.q1)} in {args.duration:g} s ({args.samples} samples)")
    print("peak |tau| per joint and term (tau = inertial + coriolis + gravity + friction + "
          "external):")
    print(f"  {'term':<10}" + "".join(f"{f'tau{j + 1} [{u}]':>15}" for j, u in enumerate(units)))
    for name, values in parts.items():
        print(f"  {name:<10}" + "".join(f"{x:15.6g}" for x in np.abs(values).max(axis=0)))
    when = motion.t[np.abs(parts["total"]).argmax(axis=0)]
    print(f"  {'at t [s]':<10}" + "".join(f"{x:15.4g}" for x in when) + "   (peak of the total)")
    if save is not None:
        columns = {"t": motion.t}
        for name in ("q", "qd", "qdd"):
            columns.update({f"{name}{j + 1}": getattr(motion, name)[:, j]
                            for j in range(robot.dof)})
        for name, values in parts.items():
            columns.update({f"{name}{j + 1}": values[:, j] for j in range(robot.dof)})
        data = np.column_stack(list(columns.values()))
        _writing(save, lambda: np.savetxt(save, data, delimiter=",", header=",".join(columns),
                                          comments="", fmt="%.17g"))
        print(f"wrote {save} (columns t, q, qd, qdd and every term per joint)")
    if picture is not None:
        _writing(picture, lambda: plot.torques(robot, motion, path=picture))
        print(f"wrote {picture}")
    return 0


# -- energy ------------------------------------------------------------------------------------
def energy_table(robot, report, title: str) -> list[str]:
    """Lines: positive work, net work and effort of ``report`` per joint and in total."""
    revolute = all(link.joint.type == "revolute" for link in robot.links)
    effort_unit = "(N m)^2 s" if revolute else "tau^2 s"
    lines = [title, f"  {'':<24}" + "".join(f"{f'joint {j + 1}':>13}" for j in range(robot.dof))
             + f"{'total':>13}"]
    rows = (("positive work [J]", report.positive_work_per_joint, report.positive_work),
            ("net work [J]", report.net_work_per_joint, report.net_work),
            (f"effort [{effort_unit}]", report.effort_per_joint, report.effort))
    for label, per_joint, total in rows:
        lines.append(f"  {label:<24}" + "".join(f"{x:13.6g}" for x in per_joint)
                     + f"{total:13.6g}")
    if report.friction_loss:
        lines.append(f"  friction loss: {report.friction_loss:.6g} J")
    return lines


def _driven(motion, report) -> SimpleNamespace:
    """A motion with the torques that drive it (for the energy picture's work term)."""
    return SimpleNamespace(t=motion.t, q=motion.q, qd=motion.qd, qdd=motion.qdd,
                           tau=report.tau)


def _cmd_energy(args: argparse.Namespace) -> int:
    from .common import load_model

    plot, picture = _picture(args.plot, "--plot")
    robot = _with_values(load_model(args.model, args), args.values)
    traj, motion = _profile(args, robot, "quintic")
    base = rd_energy.consumed(robot, motion)
    print("\n".join(energy_table(
        robot, base, f"{robot.name}: energy of the quintic from {_fmt(traj.q0)} to "
                     f"{_fmt(traj.q1)} in {args.duration:g} s (trapezoidal rule on "
                     f"{args.samples} samples)")))
    pictures = []
    if picture is not None:
        pictures.append((picture, motion, base, "quintic"))
    if args.optimize:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            best = rd_energy.optimize(robot, traj.q0, traj.q1, args.duration,
                                      via_points=args.via_points, objective=args.objective,
                                      samples=args.samples)
        _report_warnings(caught)
        opt_motion = rd_trajectory.Motion(motion.t, *best(motion.t))
        opt = rd_energy.consumed(robot, opt_motion)
        how = (f"a spline through {args.via_points} via points" if best.kind == "optimized"
               else "no spline beat the quintic: the quintic itself")
        print("\n".join(energy_table(robot, opt, f"optimised for {args.objective} ({how}):")))
        before, after = base.value(args.objective), opt.value(args.objective)
        saving = (1 - after / before) if before > 0 else 0.0
        print(f"{args.objective.replace('_', ' ')}: {before:.6g} -> {after:.6g} "
              f"({saving:.1%} less)")
        if picture is not None:
            pictures.append((picture.with_name(f"{picture.stem}-optimized{picture.suffix}"),
                             opt_motion, opt, "optimised motion"))
    for path, shown, report, what in pictures:
        _writing(path, lambda p=path, s=shown, r=report, w=what: plot.energy(
            _driven(s, r), robot, path=p, title=f"Energy of the {w} of {robot.name}"))
        print(f"wrote {path}")
    if picture is not None and args.optimize:
        path = picture.with_name(f"{picture.stem}-comparison{picture.suffix}")
        _writing(path, lambda: plot.energy_comparison(
            robot, {"quintic": motion, "optimised": opt_motion}, path=path))
        print(f"wrote {path} (the quintic and the optimised motion overlaid)")
    return 0


# -- the parsers -------------------------------------------------------------------------------
def _vector_option(p, flag: str, dest: str | None = None, required: bool = False,
                   help: str = "") -> None:
    """An option of one or more words of numbers (listed in :data:`VECTOR_OPTIONS`)."""
    p.add_argument(flag, dest=dest, nargs="+", type=numbers, required=required,
                   metavar="X", help=help)


def _motion_options(p) -> None:
    _vector_option(p, "--from", "q_from", True, "start position, one number per joint")
    _vector_option(p, "--to", "q_to", True, "end position, one number per joint")
    p.add_argument("--duration", type=duration, required=True, metavar="SECONDS",
                   help="time from start to end")
    p.add_argument("--samples", type=sample_count, default=201,
                   help="instants evaluated from start to end, ends included (default 201)")


def _with_values(robot, values):
    """``robot`` with the ``--values NAME=NUM,..`` bound (the others keep the model's
    defaults); a name that is not one of the model's parameters is a usage error naming
    ``--values``."""
    if not values or values is True:
        return robot
    try:
        return robot.with_values(values)
    except ModelError as exc:
        raise ModelError(str(exc).replace(f"{robot.name}.with_values:", "--values:", 1)) \
            from None


def _command(sub, name: str, parents, help: str, description: str):
    from .derive import parse_values

    p = model_command(sub, name, parents, __doc__, help=help, description=description)
    p.add_argument("--values", type=parse_values, default=None, metavar="NAME=NUM,..",
                   help="parameter values instead of the model's defaults, e.g. "
                        "m1=0.5,F=0.2 (the others keep theirs)")
    return p


def add_motion_commands(sub, parents=()) -> None:
    """Add ``simulate``, ``torques`` and ``energy`` to the ``robodyn`` command's
    sub-commands (``parents``: the shared model options,
    :func:`robodyn.cli.common.model_options`)."""
    p = _command(sub, "simulate", parents, "simulate the motion (direct dynamics in time)",
                 "Integrate M(q) qdd + C qd + friction + g = tau from q0, qd0 and print the "
                 "final state, the energy drift and the speed.")
    _vector_option(p, "--q0", required=True, help="initial position, one number per joint")
    _vector_option(p, "--qd0", help="initial velocity (default: at rest)")
    p.add_argument("--duration", type=duration, required=True, metavar="SECONDS",
                   help="simulated time")
    p.add_argument("--tau", nargs="+", metavar="X|FILE",
                   help="applied joint torques: a constant vector, or a CSV file with columns "
                        "t,tau1..taun (default: none, the arm moves freely)")
    p.add_argument("--dt", type=time_step, metavar="SECONDS",
                   help="fixed step (e.g. 0.001 for 1 kHz; default: adaptive steps)")
    p.add_argument("--method", choices=METHODS, default=None,
                   help="integrator (default: rk45, or rk4 with --dt)")
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
    _vector_option(p, "--kp", help=f"proportional gain, one number or one per joint (default "
                                   f"{DEFAULT_KP:g})")
    _vector_option(p, "--kd", help=f"derivative gain, one number or one per joint (default "
                                   f"{DEFAULT_KD:g})")
    p.set_defaults(func=_cmd_simulate)

    p = _command(sub, "torques", parents, "joint torques along a motion, term by term",
                 "Inverse dynamics along a rest-to-rest motion: the peak torque of each term "
                 "(M qdd, C qd, g, friction) per joint.")
    _motion_options(p)
    p.add_argument("--profile", choices=PROFILES, default="quintic",
                   help="time law of the motion (default quintic)")
    p.add_argument("--plot", metavar="PICTURE", help="draw the terms stacked (e.g. torques.png)")
    p.add_argument("--save", metavar="FILE", help="write t, q, qd, qdd and every term (.csv)")
    p.set_defaults(func=_cmd_torques)

    p = _command(sub, "energy", parents, "the energy a motion costs, and a cheaper motion",
                 "Positive work, net work and effort of the rest-to-rest quintic; with "
                 "--optimize, of a motion between the same end points in the same time that "
                 "costs less.")
    _motion_options(p)
    p.add_argument("--optimize", action="store_true",
                   help="search a cheaper motion (spline through via points) and compare")
    p.add_argument("--objective", choices=rd_energy.OBJECTIVES, default="positive_work",
                   help="what --optimize minimises (default positive_work)")
    p.add_argument("--via-points", type=via_count, default=3,
                   help="via points of the optimised spline (default 3)")
    p.add_argument("--plot", metavar="PICTURE",
                   help="draw K, U, the work and the balance (e.g. energy.png; with "
                        "--optimize also NAME-optimized.png and NAME-comparison.png, the two "
                        "motions overlaid)")
    p.set_defaults(func=_cmd_energy)


# -- the tour ----------------------------------------------------------------------------------
def tour(out: Path) -> int:
    """``robodyn demo``: derive the RP arm, drop the 2R arm, track a quintic of the PUMA with
    computed torque, find a cheaper motion of the 2R; pictures into ``out`` when
    :mod:`robodyn.plot` imports."""
    import sympy as sp  # only the tour prints closed forms

    from ..motion import control
    from ..robot import load

    try:
        plot = importlib.import_module("robodyn.plot")
    except ImportError as exc:
        plot = None
        print(f"(no pictures: robodyn.plot did not import: {excerpt(str(exc))})\n")
    written = []

    def picture(name, draw):
        if plot is None:
            return
        path = out / name
        _writing(path, lambda: draw(path))
        written.append(path)

    if plot is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--out: cannot make {excerpt(str(out))}: "
                             f"{exc.strerror or exc}") from None

    # 1. closed forms
    rp = load("rp-arm")
    eq = rp.equations(method="lagrange")
    print("1. Derive: the RP arm (a revolute and a prismatic joint) by Lagrange-Euler,\n"
          "   M(q) qdd + C(q, qd) qd + g(q) = tau with")
    print(f"   M = {sp.sstr(eq.M.tolist())}")
    print(f"   C = {sp.sstr(eq.C.tolist())}")
    print(f"   g = {sp.sstr(list(eq.g))}")
    print("   (robodyn derive rp-arm --steps shows every step)")
    picture("rp-arm.png", lambda p: plot.arm(rp, [0.6, 0.5], path=p))

    # 2. simulation: energy is conserved
    arm = load("planar-2r")
    q0 = np.array([1.0, -0.5])
    sim = simulate(arm, q0, duration=3.0, method="dop853", rtol=1e-10, atol=1e-10)
    print(f"\n2. Simulate: the 2R arm dropped from rest at q = {_fmt(q0)}, 3 s, no torque "
          f"({sim.info['steps']}\n   adaptive DOP853 steps, rtol = atol = 1e-10); the kinetic "
          f"energy swings from 0 to {sim.kinetic.max():.4g} J")
    print("   " + energy_balance(arm, sim))
    picture("2r-drop-energy.png", lambda p: plot.energy(sim, arm, path=p))
    picture("2r-drop.gif", lambda p: plot.animate(arm, sim, p, fps=20))

    # 3. control: computed torque along a quintic
    with warnings.catch_warnings():  # said once below, in words, instead of two warnings
        warnings.simplefilter("ignore", PhysicalConsistencyWarning)
        puma = load("puma560")
    goal = np.array([1.0, 0.5, -0.5, 0.3, 0.2, 0.1])
    traj = rd_trajectory.quintic(np.zeros(6), goal, 2.0)
    ctrl = control.ComputedTorque(puma, traj, kp=100.0, kd=20.0)
    tracked = simulate(puma, traj.q0, duration=2.0, tau=ctrl, dt=1e-3)
    error = np.abs(tracked.q - traj(tracked.t)[0]).max()
    print(f"\n3. Control: the PUMA 560 tracks a 2 s quintic to q = {_fmt(goal)}\n   with "
          "computed torque (exact model, kp = 100, kd = 20, RK4 at 1 kHz):\n   max tracking "
          f"error {error:.2g} rad, peak |tau| = {_fmt(np.abs(tracked.tau).max(axis=0), 3)} N m"
          "\n   (Corke's published data, motors included; the inertias of links 1 and 3 are "
          "not\n   those of any rigid body, and robodyn uses them as published)")
    picture("puma-torques.png", lambda p: plot.torques(puma, traj, path=p))
    picture("puma-tracking.png", lambda p: plot.tracking(tracked, traj, puma, path=p))

    # 4. energy: a cheaper motion between the same end points
    start, end, T = [-1.0, 1.0], [1.0, -1.0], 1.5
    best = rd_energy.optimize(arm, start, end, T, objective="positive_work")
    before, after = best.info["baseline_energy"], best.info["energy"]
    print(f"\n4. Energy: the 2R arm from {_fmt(start)} to {_fmt(end)} in {T:g} s; positive work "
          f"(what motors\n   that cannot recover energy supply): quintic {before:.4g} J, "
          f"optimised spline {after:.4g} J,\n   {1 - after / before:.1%} less")
    picture("2r-optimized-motion.png", lambda p: plot.motion(best, arm, path=p))
    picture("2r-energy-comparison.png", lambda p: plot.energy_comparison(
        arm, {"quintic": best.info["baseline"], "optimised": best}, path=p))

    if written:
        print(f"\nPictures in {out}/: " + ", ".join(p.name for p in written))
    return 0
