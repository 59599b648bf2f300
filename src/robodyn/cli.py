"""The ``robodyn`` command.

    robodyn models                 list the built-in models
    robodyn demo                   torques of two built-in arms along a short motion
    robodyn derive MODEL ...       equations of motion in closed form (see --help)
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import models
from .errors import RobodynError
from .robot import load
from .symbolic.cli import add_derive_command


def _cmd_models(args: argparse.Namespace) -> int:
    width = max(len(n) for n in models.names())
    for name in models.names():
        robot = load(name)
        joints = "".join("R" if link.joint.type == "revolute" else "P" for link in robot.links)
        summary = robot.description.split(". ")[0].rstrip(".") if robot.description else ""
        print(f"{name:<{width}}  {robot.dof} DOF  {joints:<6} {summary}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    t = np.linspace(0.0, 1.0, args.samples)
    for name in args.models:
        robot = load(name)
        n = robot.dof
        # a smooth rest-to-rest motion of every joint: q = q0 + A (1 - cos(pi t)) / 2
        amplitude = np.linspace(0.5, 0.2, n)
        s = np.pi * t[:, None]
        q = amplitude * (1 - np.cos(s)) / 2
        qd = amplitude * np.pi * np.sin(s) / 2
        qdd = amplitude * np.pi**2 * np.cos(s) / 2
        tau = robot.inverse_dynamics(q, qd, qdd)
        units = ["N m" if link.joint.type == "revolute" else "N" for link in robot.links]
        print(f"{robot.name}: {n} DOF, inverse dynamics (recursive Newton-Euler) along "
              f"q(t) = A (1 - cos(pi t))/2, A = {np.round(amplitude, 3).tolist()}")
        header = "   t   " + "".join(f"{'tau' + str(i + 1) + ' [' + u + ']':>16}"
                                   for i, u in enumerate(units))
        print(header)
        for k in range(len(t)):
            print(f"  {t[k]:.2f} " + "".join(f"{x:16.4f}" for x in tau[k]))
        g = robot.gravity_torques(q[-1])
        print(f"  gravity share at t = 1: {np.round(g, 4).tolist()}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="robodyn", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("models", help="list the built-in models")
    p.set_defaults(func=_cmd_models)
    p = sub.add_parser("demo", help="torques of built-in arms along a short motion")
    p.add_argument("models", nargs="*", default=["planar-2r", "puma560"])
    p.add_argument("--samples", type=int, default=6)
    p.set_defaults(func=_cmd_demo)
    add_derive_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RobodynError as exc:
        print(f"robodyn: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
