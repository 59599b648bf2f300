"""``robodyn exercise``: a random small arm to hand out, and its worked solution.

    robodyn exercise --dof 2 --joints RP --seed 7 --out ex7
    robodyn exercise --dof 3 --seed 12 --out ex12      joint types drawn too
    robodyn exercise --dof 2 --planar --point-masses --route jacobian --questions M,g

writes ``DIR/task/`` (``arm.yaml``; ``arm.png``, the arm at a generic pose with its DH
frames, joint variables, lengths and centres of mass; ``task.md``, ``task.tex``: the
figure, every symbol defined, the data and the questions) and, separately,
``DIR/solution/`` (``solution.txt``, ``.md``, ``.tex``: the answers question by question;
``derivation.*``: every step; ``answer.json``: M, C, g, tau and the model, for ``robodyn
check`` and ``robodyn grade``). The same seed gives the same files. Students check their
answers with ``robodyn check DIR/task/arm.yaml --M ...``. ``--mode assessment`` writes
``DIR/student/`` (the sheet and figure only) and ``DIR/lecturer/`` (``arm.yaml``, the
solution, ``answer.json``) instead; hand out ``student/`` only.
"""

from __future__ import annotations

import argparse
import sys


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give a seed >= 0")
    return value


def add_exercise_command(sub, parents=()) -> argparse.ArgumentParser:
    """Add ``exercise`` to the sub-parsers ``sub`` of ``robodyn``."""
    from ..teaching.exercise import MAX_DOF

    p = sub.add_parser("exercise", help="a random small arm as an exercise, with its solution",
                       description="Draw a small arm from a seed and write its task sheet and "
                       "its worked solution.", epilog=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dof", type=int, default=None, choices=range(1, MAX_DOF + 1),
                   metavar="N", help=f"number of joints, 1 to {MAX_DOF} (default: the length "
                                     "of --joints, else 2)")
    p.add_argument("--joints", default=None, metavar="RP",
                   help="joint types base to tip, R revolute, P prismatic (default: drawn)")
    p.add_argument("--seed", type=_seed, default=0, help="the seed (default 0)")
    p.add_argument("--out", default="exercise", metavar="DIR",
                   help="where to write task/ and solution/ (default ./exercise)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files in --out even when robodyn did not write them or "
                        "they were changed since (an edited task.md)")
    from ..teaching.questions import QUANTITIES, ROUTES

    p.add_argument("--route", default="energy", choices=tuple(ROUTES),
                   help="how the questions ask for M: energy (read off K = 1/2 qd^T M qd, "
                        "the default), lagrange (Euler-Lagrange equations), jacobian (from "
                        "the Jacobians of the centres of mass), newton-euler (the recursion)")
    p.add_argument("--planar", action="store_true",
                   help="a planar arm: revolute joints about parallel axes, gravity in the "
                        "plane")
    p.add_argument("--point-masses", dest="point_masses", action="store_true",
                   help="add a payload at the end of the arm and the motor of joint 2 as "
                        "point masses")
    p.add_argument("--questions", default=",".join(("M", "C", "g", "tau")), metavar="Q,..",
                   help=f"the quantities asked, some of {','.join(QUANTITIES)} "
                        "(default M,C,g,tau)")
    p.add_argument("--require", default="", metavar="R,..",
                   help="what the arm drawn must have, some of g,C,slides: g or C not "
                        "identically zero, no two collinear slides; arms that fail are drawn "
                        "again from the same seed (default: none, the first arm drawn)")
    p.add_argument("--mode", default="practice", choices=("practice", "assessment"),
                   help="practice (default): DIR/task/ holds the model file arm.yaml, so "
                        "students can check their answers; assessment: DIR/student/ holds "
                        "only the sheet and the figure, DIR/lecturer/ the model file, the "
                        "solution and answer.json (check --reveal refuses that model file)")
    p.add_argument("--identification", action="store_true",
                   help="an identification exercise: task/data.csv (q, qd, qdd, tau with "
                        "noise) from a hidden arm, task/arm.yaml without its inertial values; "
                        "the student finds the base parameters; robodyn grade scores them "
                        "within 4 standard deviations of least squares' error")
    p.add_argument("--samples", type=int, default=200,
                   help="--identification's number of measured states (default 200)")
    p.add_argument("--noise", type=float, default=0.05,
                   help="--identification's torque noise, standard deviation in N or N m "
                        "(default 0.05)")
    p.add_argument("--no-figure", dest="figure", action="store_false",
                   help="write no figure (arm.png; it needs Matplotlib)")
    p.set_defaults(func=_cmd_exercise, command_parser=p)
    return p


def _cmd_exercise(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..teaching.exercise import make_exercise
    from ..teaching.questions import questions_of

    dof = args.dof if args.dof is not None else (len(args.joints) if args.joints else 2)
    if args.identification:
        from ..teaching.identification import write_identification

        try:
            written = write_identification(args.out, dof=dof, joints=args.joints,
                                           seed=args.seed, samples=args.samples,
                                           noise=args.noise, force=args.force)
        except InputError as exc:
            args.command_parser.error(str(exc).replace("samples:", "--samples:", 1)
                                      .replace("noise:", "--noise:", 1))
        print("\n".join(map(str, written)))
        return 0
    try:
        ex = make_exercise(dof, args.joints, args.seed, planar=args.planar,
                           point_masses=args.point_masses, require=args.require)
        questions = questions_of(args.questions)
    except InputError as exc:
        args.command_parser.error(str(exc).replace("questions:", "--questions:", 1)
                                  .replace("joints:", "--joints:", 1)
                                  .replace("require:", "--require:", 1))
    figure = None
    if args.figure:
        try:
            from ..plot.exercise_figure import exercise_figure
        except ImportError:  # Matplotlib is an optional extra
            args.command_parser.error("the figure needs Matplotlib (pip install matplotlib); "
                                      "or pass --no-figure")

        def figure(robot, q, path):
            exercise_figure(robot, q, path, title=f"{ex.name}: the arm at a generic pose")
    for path in ex.write(args.out, option="--out", route=args.route, questions=questions,
                         figure=figure, force=args.force, mode=args.mode):
        print(path)
    sys.stdout.flush()
    return 0


__all__ = ["add_exercise_command"]
