"""The motion commands, the dynamics at work from the command line: ``robodyn simulate``
(:mod:`.simulate`), ``robodyn torques`` (:mod:`.torques`), ``robodyn energy``
(:mod:`.energy`). What they share is here: vectors of numbers (:func:`numbers`,
:func:`numbers_attached`), the argument types and options, and their help's epilog, the
rest of this docstring (:func:`motion_command`).

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
import math
import re

import numpy as np

from ..core.errors import InputError, ModelError, excerpt
from ..model.configuration import layout
from ..motion import energy as rd_energy
from ..motion import trajectory as rd_trajectory
from ..motion.simulation import MAX_DURATION, MAX_STEPS
from .common import integer_between, model_command

#: Most numbers one vector option takes (no chain has more joints).
MAX_VALUES = 64

#: The commands that take vectors (:mod:`.simulate`, :mod:`.torques`, :mod:`.energy`).
COMMANDS = ("simulate", "torques", "energy")
#: The options of :data:`COMMANDS` that take one or more words (:func:`vector_option`, --tau).
VECTOR_OPTIONS = frozenset({"--q0", "--qd0", "--tau", "--from", "--to", "--kp", "--kd",
                            "--limits", "--voltage"})
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
def joint_vector(values, option: str, robot, configuration: bool = False) -> np.ndarray:
    """The numbers given to ``option`` (lists from :func:`numbers`) as one per joint (a
    ``configuration`` of a model with ball or free joints: its ``nq`` values, quaternions
    ``x y z w``)."""
    flat = [x for group in values for x in group]
    size = robot.nq if configuration else robot.dof
    if len(flat) != size:
        what = (f"one per joint of {robot.name}" if robot.nq == robot.dof else
                f"{robot.name}'s " + ("nq: the quaternions x y z w" if configuration
                                      else "nv") + ", " + layout(robot.chain, configuration
                                                                 is False))
        raise InputError(f"{option}: expected {size} numbers ({what}), got {len(flat)}")
    return np.array(flat)


# -- the parsers -------------------------------------------------------------------------------
def vector_option(p, flag: str, dest: str | None = None, required: bool = False,
                  help: str = "") -> None:
    """An option of one or more words of numbers (listed in :data:`VECTOR_OPTIONS`)."""
    p.add_argument(flag, dest=dest, nargs="+", type=numbers, required=required,
                   metavar="X", help=help)


def motion_options(p) -> None:
    """The options of a rest-to-rest motion (``torques``, ``energy``): ``--from``, ``--to``,
    ``--duration``, ``--samples``."""
    vector_option(p, "--from", "q_from", True, "start position, one number per joint")
    vector_option(p, "--to", "q_to", True, "end position, one number per joint")
    p.add_argument("--duration", type=duration, required=True, metavar="SECONDS",
                   help="time from start to end")
    p.add_argument("--samples", type=sample_count, default=201,
                   help="instants evaluated from start to end, ends included (default 201)")


def with_values(robot, values):
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


def motion_command(sub, name: str, parents, help: str, description: str):
    """The sub-command ``name`` of a motion command (:func:`robodyn.cli.common.model_command`
    with this module's docstring as its epilog) and its ``--values`` option."""
    from .derive import parse_values

    p = model_command(sub, name, parents, __doc__, help=help, description=description)
    p.add_argument("--values", type=parse_values, default=None, metavar="NAME=NUM,..",
                   help="parameter values instead of the model's defaults, e.g. "
                        "m1=0.5,F=0.2 (the others keep theirs)")
    return p


# -- the motion of torques and energy -----------------------------------------------------------
def profiled_motion(args, robot, profile: str):
    """The motion ``--from``/``--to`` in ``--duration`` along ``profile`` and its samples;
    with ball or free joints (``nq`` values each end) along the geodesic between them
    (:func:`robodyn.motion.trajectory.geodesic`)."""
    quaternions = not robot.chain.single_valued
    q0 = joint_vector(args.q_from, "--from", robot, configuration=quaternions)
    q1 = joint_vector(args.q_to, "--to", robot, configuration=quaternions)
    with np.errstate(all="ignore"):  # a duration too short for the motion is said below
        traj = (rd_trajectory.geodesic(robot, q0, q1, args.duration, profile) if quaternions
                else getattr(rd_trajectory, profile)(q0, q1, args.duration))
    t = np.linspace(0.0, traj.duration, args.samples)
    rd_energy.check_motion(traj, t, ("--from", "--to", "--duration"))
    return traj, rd_trajectory.Motion(t, *traj(t))
