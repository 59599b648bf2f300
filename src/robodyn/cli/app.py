"""Rigid-body dynamics of serial robot arms: equations of motion in closed form,
simulation, torques and energy along a motion, identification, code export.

    robodyn models                 list the built-in models
    robodyn demo                   a short tour: derive, simulate, control, energy
    robodyn demo MODEL ...         torques of the models along a short motion
    robodyn derive MODEL ...       equations of motion in closed form (see --help)
    robodyn simulate MODEL ...     simulate the motion from a state (see --help)
    robodyn torques MODEL ...      joint torques along a motion, term by term
    robodyn energy MODEL ...       the energy a motion costs, and a cheaper motion
    robodyn view MODEL ...         the arm in a browser (needs robodyn[viewer])
    robodyn compile MODEL ...      build the compiled kernels ahead (else built in background)

A MODEL is a built-in model name, a YAML model file, a URDF file or a MuJoCo MJCF ``.xml``
file; for a URDF file
``--base LINK --tip LINK`` choose the chain, ``--allow-massless`` accepts moving links
without ``<inertial>``, ``--snap-angles TOL`` rounds angles within TOL of a right angle
(``robodyn.load``'s options of the same names).

This module builds the ``robodyn`` command (:func:`build_parser`; its help opens with the
first paragraph above) and runs it (:func:`main`).
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import textwrap
import warnings
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from ..codegen import threads, tiers
from ..core.errors import PhysicalConsistencyWarning, RobodynError
from ..core.progress import clear_line, silenced
from ..core.version import VERSION
from ..model import builtin as models
from ..robot import load
from .check import add_check_command, add_grade_command
from .common import MAX_PRINTED_SAMPLES, load_model, model_options, positive_int, urdf_options
from .compile import add_compile_command
from .dataset import add_dataset_command
from .derive import add_derive_command
from .energy import add_energy_command
from .exercise import add_exercise_command
from .export import add_export_command
from .identify import add_identify_command
from .motion import numbers_attached
from .simulate import add_simulate_command
from .torques import add_torques_command
from .tour import DEMO_DIR, tour
from .view import add_view_command

#: The widest line ``robodyn models`` prints.
MODELS_LINE_WIDTH = 100


def _quietly_loaded(name: str):
    """A built-in model, its physical-consistency warnings left to the commands that
    compute with it (listing the PUMA's published inertias is not using them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PhysicalConsistencyWarning)
        return load(name)


def _cmd_models(args: argparse.Namespace) -> int:
    """``robodyn models``: one line per built-in model; ``robodyn models NAME``: its
    details (joints, parameters and their values, where it comes from)."""
    if args.name:
        return _model_details(args.name)
    width = max(len(n) for n in models.names())
    rows = []
    for name in models.names():
        robot = _quietly_loaded(name)
        joints = "".join("R" if link.joint.type == "revolute" else "P" for link in robot.links)
        if len(joints) > 6:  # a run of one kind counted: 15R
            joints = (f"{len(joints)}{joints[0]}" if len(set(joints)) == 1
                      else f"{len(joints)} joints")
        dof, closures = robot.dof, robot.chain.closures
        if closures is not None and closures.loops:  # a mechanism moves its actuated joints
            dof = len(closures.actuated)
            loops = len(closures.loops)
            joints += f", {loops} loop{'s' if loops > 1 else ''}"
        summary = robot.description.split(". ")[0].split(" (")[0].split(":")[0].rstrip(".")
        rows.append((name, dof, joints, summary))
    column = max(6, *(len(row[2]) for row in rows))
    for name, dof, joints, summary in rows:
        head = f"{name:<{width}}  {dof} DOF  {joints:<{column}} "
        room = MODELS_LINE_WIDTH - len(head)
        if len(summary) > room:
            summary = summary[:room - 3].rstrip(" ,;") + "..."
        print(head + summary)
    return 0


def _model_details(name: str) -> int:
    robot = _quietly_loaded(name)
    print(f"{robot.name}: {robot.dof} DOF ({robot.convention or 'URDF'} frames)")
    if robot.description:
        print(textwrap.fill(robot.description, MODELS_LINE_WIDTH, initial_indent="  ",
                            subsequent_indent="  "))
    print("joints:")
    for k, link in enumerate(robot.links, start=1):
        label = f" {link.joint.name}" if link.joint.name else ""
        print(f"  q{k}{label}: {link.joint.type}")
    if robot.values:
        values = ", ".join(f"{k} = {v:g}" for k, v in sorted(robot.values.items()))
        print(textwrap.fill(f"values: {values}", MODELS_LINE_WIDTH, subsequent_indent="  "))
    print(f"file: {models.path(name)}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    """Without models the tour (:func:`robodyn.cli.tour.tour`); with models the inverse
    dynamics of each along a smooth rest-to-rest motion, printed sample by sample."""
    if not args.models:
        return tour(Path(args.out), force=args.force)
    t = np.linspace(0.0, 1.0, args.samples)
    for name in args.models:
        robot = load_model(name, args)
        n = robot.dof
        # a smooth rest-to-rest motion of every joint: q = q0 ⊕ A (1 - cos(pi t)) / 2 from
        # the neutral q0 (zeros; identity quaternions), each joint about one fixed axis, so
        # the rates are exactly those of u = A (1 - cos(pi t)) / 2
        amplitude = np.linspace(0.5, 0.2, n)
        s = np.pi * t[:, None]
        q = robot.integrate(robot.neutral(), amplitude * (1 - np.cos(s)) / 2)
        qd = amplitude * np.pi * np.sin(s) / 2
        qdd = amplitude * np.pi**2 * np.cos(s) / 2
        tau = robot.inverse_dynamics(q, qd, qdd)
        units = robot.chain.torque_units()
        start = "" if robot.nq == n else "q0 ⊕ "
        print(f"{robot.name}: {n} DOF, inverse dynamics (recursive Newton-Euler) along "
              f"q(t) = {start}A (1 - cos(pi t))/2, A = {np.round(amplitude, 3).tolist()}")
        header = "   t   " + "".join(f"{'tau' + str(i + 1) + ' [' + u + ']':>16}"
                                   for i, u in enumerate(units))
        print(header)
        for k in range(len(t)):
            print(f"  {t[k]:.2f} " + "".join(f"{x:16.4f}" for x in tau[k]))
        g = robot.gravity_torques(q[-1])
        print(f"  gravity share at t = 1: {np.round(g, 4).tolist()}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``robodyn`` command's parser."""
    return _parser_and_commands()[0]


def _parser_and_commands() -> tuple[argparse.ArgumentParser, dict]:
    # the help opens with the docstring's first paragraph: what robodyn does
    parser = argparse.ArgumentParser(prog="robodyn", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"robodyn {VERSION}")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print no warnings (each is otherwise printed once, on one line) "
                             "and no progress bars (otherwise shown on a terminal for long "
                             "work)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("models", help="list the built-in models (with NAME: one in detail)")
    p.add_argument("name", nargs="?", metavar="NAME", type=_model_name,
                   help="a built-in model: print its joints, parameter values and file")
    p.set_defaults(func=_cmd_models)
    parents = [model_options()]
    p = sub.add_parser("demo", help="a short tour, or torques of models along a short motion",
                       parents=parents)
    p.add_argument("models", nargs="*", metavar="MODEL",
                   help="built-in model names or model files: print their torques along a "
                        "short motion (default: the tour of planar-2r, rp-arm and puma560)")
    p.add_argument("--samples", type=positive_int, default=6,
                   help=f"time samples from t = 0 to 1 with models (1 to {MAX_PRINTED_SAMPLES}, "
                        "default 6)")
    p.add_argument("--out", default=DEMO_DIR, metavar="DIR",
                   help=f"where the tour writes its pictures (default ./{DEMO_DIR})")
    p.add_argument("--force", action="store_true",
                   help="overwrite pictures in --out even when robodyn did not write them or "
                        "they were changed since")
    p.set_defaults(func=_cmd_demo, command_parser=p,
                   models_of=lambda a: a.models or ["planar-2r", "rp-arm", "puma560"])
    add_derive_command(sub, parents=parents)
    add_simulate_command(sub, parents)
    add_torques_command(sub, parents)
    add_energy_command(sub, parents)
    add_export_command(sub, parents)
    add_check_command(sub, parents)
    add_grade_command(sub, parents)
    add_identify_command(sub, parents)
    add_dataset_command(sub, parents)
    add_exercise_command(sub)
    add_view_command(sub, parents)
    add_compile_command(sub, parents)
    return parser, dict(sorted(sub.choices.items()))  # command name -> its parser


def prepare_argv(argv: list[str] | None = None) -> list[str]:
    """The command line's words (``sys.argv[1:]`` by default) as the parser reads them:
    negative numbers attached to their options (:func:`.motion.numbers_attached`)."""
    return numbers_attached(sys.argv[1:] if argv is None else argv)


def _model_name(text: str) -> str:
    """An argparse type: a built-in model's name, or an error with the closest one."""
    if text in models.names():
        return text
    close = difflib.get_close_matches(text, models.names(), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise argparse.ArgumentTypeError(f"{text[:80]!r} is not a built-in model{hint} "
                                     f"(robodyn models lists them)")


def _unknown_command(commands, words: list[str]) -> str | None:
    """What to say of a first word that is no command but close to one, or None."""
    first = next((w for w in words if not w.startswith("-")), None)
    if first is None or first in commands or words[:1] != [first]:
        return None
    close = difflib.get_close_matches(first, commands, n=1)
    if not close:
        return None
    return f"unknown command {first[:80]!r}; did you mean {close[0]!r}? (robodyn --help lists them)"


def _misspelled_option(commands: dict, words: list[str]) -> tuple | None:
    """``(command parser, message)`` for the first ``--option`` the command does not have
    (before a ``--`` that ends the options), with the closest one it has; None if all
    are known. Checked before parsing, so that ``--duratoin 1`` is named as a misspelling
    rather than reported as the missing ``--duration``."""
    name = next((w for w in words if w in commands), None)
    if name is None:
        return None
    sub = commands[name]
    # every option string of the command's parser, those its help leaves out too (argparse
    # keeps them in this table; it has no public one)
    known = sorted(o for o in sub._option_string_actions if o.startswith("--"))  # noqa: SLF001
    for word in words[words.index(name) + 1:]:
        if word == "--":
            break
        option = word.split("=", 1)[0]
        if not option.startswith("--") or option in known:
            continue
        if any(o.startswith(option) for o in known):
            continue  # an abbreviation argparse accepts (or names as ambiguous)
        close = difflib.get_close_matches(option, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return sub, f"unrecognized option {option[:60]!r}{hint} ({sub.prog} --help lists them)"
    return None


def main(argv: list[str] | None = None) -> int:
    parser, commands = _parser_and_commands()
    words = prepare_argv(argv)
    unknown = _unknown_command(list(commands), words)
    if unknown:
        parser.error(unknown)  # exits with status 2
    misspelled = _misspelled_option(commands, words)
    if misspelled:
        misspelled[0].error(misspelled[1])  # exits with status 2
    args = parser.parse_args(words)
    if hasattr(args, "models_of"):
        problem = urdf_options(args, args.models_of(args))
        if problem:
            args.command_parser.error(problem)  # exits with status 2
    try:
        # the environment's settings, checked before any work (a tier that never reaches
        # the threaded kernels would never read a bad thread count)
        tiers.tier_setting()
        threads.thread_count()
        with warnings.catch_warnings(), (silenced() if args.quiet else nullcontext()):
            warnings.simplefilter("ignore" if args.quiet else "once")
            warnings.showwarning = _show_warning
            return args.func(args)
    except RobodynError as exc:
        print(f"robodyn: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (robodyn models | head): stop quietly, as cat does; stdout
        # goes to /dev/null so that Python's own flush at exit does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings on the command line: one line each, ``robodyn: warning: ...``, no source
    location (it would name robodyn's code, not anything the user wrote)."""
    clear_line(file)  # a progress bar on the line is erased first, and drawn again after
    print(f"robodyn: warning: {message}", file=file or sys.stderr)
