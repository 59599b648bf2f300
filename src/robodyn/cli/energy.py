"""``robodyn energy``: the energy a rest-to-rest motion costs and, with ``--optimize``, a
cheaper motion between the same end points (the examples are in :mod:`robodyn.cli.motion`,
the commands' shared help)."""

from __future__ import annotations

import argparse
import warnings
from types import SimpleNamespace

import numpy as np

from ..motion import energy as rd_energy
from ..motion import trajectory as rd_trajectory
from ..motion.elastic import has_springs
from ..motion.electrics import electrics, motors_of
from .motion import motion_command, motion_options, profiled_motion, via_count, with_values
from .output import format_vector, picture_option, report_warnings, writing


def energy_table(robot, report, title: str) -> list[str]:
    """Lines: positive work, net work and effort of ``report`` per joint and in total."""
    revolute = all(link.joint.type == "revolute" for link in robot.links)
    effort_unit = "(N m)^2 s" if revolute else "tau^2 s"
    lines = [title, f"  {'':<24}" + "".join(f"{label:>13}" for label in columns(robot))
             + f"{'total':>13}"]
    rows = (("positive work [J]", report.positive_work_per_joint, report.positive_work),
            ("net work [J]", report.net_work_per_joint, report.net_work),
            (f"effort [{effort_unit}]", report.effort_per_joint, report.effort))
    for label, per_joint, total in rows:
        lines.append(f"  {label:<24}" + "".join(f"{x:13.6g}" for x in per_joint)
                     + f"{total:13.6g}")
    if report.friction_loss:
        lines.append(f"  friction loss: {report.friction_loss:.6g} J")
    if report.gear_loss:
        lines.append(f"  drawn by the motors: {report.motor_energy:.6g} J (gear loss "
                     f"{report.gear_loss:.6g} J)")
    return lines


def electrics_lines(robot, motion) -> list[str]:
    """Lines on the model's DC motors along ``motion`` (none without them,
    :func:`robodyn.motion.electrics.motors_of`): the energy drawn from the supply
    ``∫ V i dt`` (with and without regeneration), the copper loss ``∫ R i^2 dt`` per joint,
    and the peak current and voltage."""
    if motors_of(robot.numeric_chain) is None:
        return []
    out = electrics(robot, motion)
    lines = [f"  DC motors: drawn from the supply {out.drawn:.6g} J "
             f"({out.drawn_without_regeneration:.6g} J without regeneration)",
             f"  {'copper loss [J]':<24}" + "".join(f"{x:13.6g}" for x in out.copper_loss)
             + f"{out.copper_loss.sum():13.6g}",
             f"  {'peak |current| [A]':<24}"
             + "".join(f"{x:13.6g}" for x in np.abs(out.current).max(axis=0)),
             f"  {'peak |voltage| [V]':<24}"
             + "".join(f"{x:13.6g}" for x in np.abs(out.voltage).max(axis=0))]
    if has_springs(robot):
        lines.append("  (the rigid limit of the elastic joints: the torques of the rigid model)")
    return lines


def columns(robot) -> list[str]:
    """A heading per velocity coordinate: ``joint j`` for one-value joints; a ball joint's
    ``w_x``, ``w_y``, ``w_z`` and a free joint's ``v_x`` .. ``w_z`` after its joint's number
    (``j1 v_x``: the body twist, the work of the body wrench)."""
    labels = []
    for j, link in enumerate(robot.links, 1):
        parts = {1: [""], 3: [" w_x", " w_y", " w_z"],
                 6: [" v_x", " v_y", " v_z", " w_x", " w_y", " w_z"]}.get(link.joint.nv, [])
        labels += [f"joint {j}" if part == "" else f"j{j}{part}" for part in parts]
    return labels


def _driven(motion, report) -> SimpleNamespace:
    """A motion with the torques that drive it (for the energy picture's work term)."""
    return SimpleNamespace(t=motion.t, q=motion.q, qd=motion.qd, qdd=motion.qdd,
                           tau=report.tau)


def _cmd_energy(args: argparse.Namespace) -> int:
    from .common import load_model

    plot, picture = picture_option(args.plot, "--plot", args.force)
    robot = with_values(load_model(args.model, args), args.values)
    traj, motion = profiled_motion(args, robot, "quintic")
    base = rd_energy.consumed(robot, motion)
    print("\n".join(energy_table(
        robot, base, f"{robot.name}: energy of the quintic from {format_vector(traj.q0)} to "
                     f"{format_vector(traj.q1)} in {args.duration:g} s (trapezoidal rule on "
                     f"{args.samples} samples)")
        + electrics_lines(robot, motion)))
    if robot.chain.lugre is not None:  # said, not dropped without a word
        print("  (the model's LuGre friction is left out: its torque needs the bristle state; "
              "robodyn simulate --method lugre runs it)")
    pictures = []
    if picture is not None:
        pictures.append((picture, motion, base, "quintic"))
    if args.optimize:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            best = rd_energy.optimize(robot, traj.q0, traj.q1, args.duration,
                                      via_points=args.via_points, objective=args.objective,
                                      samples=args.samples)
        report_warnings(caught)
        opt_motion = rd_trajectory.Motion(motion.t, *best(motion.t))
        opt = rd_energy.consumed(robot, opt_motion)
        how = (f"a spline through {args.via_points} via points" if best.kind == "optimized"
               else "no spline beat the quintic: the quintic itself")
        print("\n".join(energy_table(robot, opt, f"optimised for {args.objective} ({how}):")
                        + electrics_lines(robot, opt_motion)))
        before, after = base.value(args.objective), opt.value(args.objective)
        saving = (1 - after / before) if before > 0 else 0.0
        print(f"{args.objective.replace('_', ' ')}: {before:.6g} -> {after:.6g} "
              f"({saving:.1%} less)")
        if picture is not None:
            pictures.append((picture.with_name(f"{picture.stem}-optimized{picture.suffix}"),
                             opt_motion, opt, "optimised motion"))
    for path, shown, report, what in pictures:
        writing(path, lambda p, s=shown, r=report, w=what: plot.energy(
            _driven(s, r), robot, path=p, title=f"Energy of the {w} of {robot.name}"),
                "--plot", args.force)
        print(f"wrote {path}")
    if picture is not None and args.optimize:
        path = picture.with_name(f"{picture.stem}-comparison{picture.suffix}")
        writing(path, lambda p: plot.energy_comparison(
            robot, {"quintic": motion, "optimised": opt_motion}, path=p), "--plot", args.force)
        print(f"wrote {path} (the quintic and the optimised motion overlaid)")
    return 0


def add_energy_command(sub, parents=()) -> None:
    """Add ``energy`` to the ``robodyn`` command's sub-commands (``parents``: the shared
    model options, :func:`robodyn.cli.common.model_options`)."""
    p = motion_command(sub, "energy", parents,
                       "the energy a motion costs, and a cheaper motion",
                       "Positive work, net work and effort of the rest-to-rest quintic; with "
                       "--optimize, of a motion between the same end points in the same time that "
                       "costs less.")
    motion_options(p)
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
    p.add_argument("--force", action="store_true",
                   help="overwrite the pictures even when robodyn did not write them or they "
                        "were changed since")
    p.set_defaults(func=_cmd_energy)
