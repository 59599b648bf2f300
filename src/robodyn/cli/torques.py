"""``robodyn torques``: inverse dynamics along a rest-to-rest motion, the peak torque of each
term per joint, saved and drawn (the examples are in :mod:`robodyn.cli.motion`, the
commands' shared help)."""

from __future__ import annotations

import argparse

import numpy as np

from ..core.errors import InputError
from .motion import (
    joint_vector,
    motion_command,
    motion_options,
    profiled_motion,
    vector_option,
    with_values,
)
from .output import format_vector, output_path, picture_option, writing

#: The time laws of ``torques --profile`` (:mod:`robodyn.motion.trajectory`).
PROFILES = ("quintic", "cubic", "trapezoidal")


def _units(robot) -> list[str]:
    return robot.chain.torque_units()


def _cmd_torques(args: argparse.Namespace) -> int:
    from .common import load_model

    save = output_path(args.save, "--save", (".csv",), args.force)
    plot, picture = picture_option(args.plot, "--plot", args.force)
    robot = with_values(load_model(args.model, args), args.values)
    traj, motion = profiled_motion(args, robot, args.profile)
    limits = None if args.limits is None else joint_vector(args.limits, "--limits", robot)
    if args.scale:
        traj, motion = _scaled(robot, traj, limits, args)
    parts = robot.torque_parts(motion.q, motion.qd, motion.qdd).as_dict()
    units = _units(robot)
    print(f"{robot.name}: inverse dynamics along a {args.profile} from {format_vector(traj.q0)} to "
          f"{format_vector(traj.q1)} in {traj.duration:g} s ({args.samples} samples)")
    print("peak |tau| per joint and term (tau = inertial + coriolis + gravity + friction + "
          "external):")
    print(f"  {'term':<10}" + "".join(f"{f'tau{j + 1} [{u}]':>15}" for j, u in enumerate(units)))
    for name, values in parts.items():
        print(f"  {name:<10}" + "".join(f"{x:15.6g}" for x in np.abs(values).max(axis=0)))
    when = motion.t[np.abs(parts["total"]).argmax(axis=0)]
    print(f"  {'at t [s]':<10}" + "".join(f"{x:15.4g}" for x in when) + "   (peak of the total)")
    if limits is not None:
        ratio = np.abs(parts["total"]).max(axis=0) / limits
        print(f"  {'|tau|/lim':<10}" + "".join(f"{x:15.6g}" for x in ratio)
              + ("   (within the limits)" if np.all(ratio <= 1 + 1e-9) else
                 "   (over a limit: --scale slows the motion to fit)"))
    if save is not None:
        columns = {"t": motion.t}
        for name in ("q", "qd", "qdd"):  # q: nq values with quaternion joints
            values = getattr(motion, name)
            columns.update({f"{name}{j + 1}": values[:, j] for j in range(values.shape[1])})
        for name, values in parts.items():
            columns.update({f"{name}{j + 1}": values[:, j] for j in range(robot.dof)})
        data = np.column_stack(list(columns.values()))
        writing(save, lambda p: np.savetxt(p, data, delimiter=",", header=",".join(columns),
                                           comments="", fmt="%.17g"), "--save", args.force)
        print(f"wrote {save} (columns t, q, qd, qdd and every term per joint)")
    if picture is not None:
        writing(picture, lambda p: plot.torques(robot, motion, path=p), "--plot", args.force)
        print(f"wrote {picture}")
    return 0


def _scaled(robot, traj, limits, args):
    """The motion slowed uniformly to fit ``--limits`` (:func:`robodyn.scale_trajectory`)."""
    from ..motion.time_scaling import scale_trajectory
    from ..motion.trajectory import Motion

    if limits is None:
        raise InputError("--scale: give the torque limits with --limits L1,L2,.. "
                         "(one per joint)")
    if robot.nq != robot.dof:
        raise InputError("--scale: models with ball or free joints are not supported")
    slow, k = scale_trajectory(robot, traj, limits, samples=args.samples)
    print(f"--scale: k = {k:.9g}, the motion slowed from {traj.duration:g} s to "
          f"{slow.duration:.9g} s (tau_s = (M qdd + C qd)/k^2 + F_v qd/k + F_s sign(qd) + g)")
    t = np.linspace(0.0, slow.duration, args.samples)
    return slow, Motion(t, *slow(t))


def add_torques_command(sub, parents=()) -> None:
    """Add ``torques`` to the ``robodyn`` command's sub-commands (``parents``: the shared
    model options, :func:`robodyn.cli.common.model_options`)."""
    p = motion_command(sub, "torques", parents,
                       "joint torques along a motion, term by term",
                       "Inverse dynamics along a rest-to-rest motion: the peak torque of each term "
                       "(M qdd, C qd, g, friction) per joint.")
    motion_options(p)
    p.add_argument("--profile", choices=PROFILES, default="quintic",
                   help="time law of the motion (default quintic)")
    p.add_argument("--plot", metavar="PICTURE", help="draw the terms stacked (e.g. torques.png)")
    p.add_argument("--save", metavar="FILE", help="write t, q, qd, qdd and every term (.csv)")
    p.add_argument("--force", action="store_true",
                   help="overwrite the output files even when robodyn did not write them or "
                        "they were changed since")
    vector_option(p, "--limits", "limits", False,
                  "torque limits, one positive number per joint: prints |tau|/limit")
    p.add_argument("--scale", action="store_true",
                   help="slow the motion uniformly (the shortest duration) to fit --limits "
                        "(Siciliano 7.7)")
    p.set_defaults(func=_cmd_torques)
