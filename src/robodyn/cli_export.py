"""``robodyn export MODEL --urdf FILE``: a model written as URDF (``robot.to_urdf``).

MODEL is a built-in model name, a YAML model file or a URDF file (with the URDF
options of every model command: ``--base``, ``--tip``, ...). ``--urdf -`` writes the
file to standard output.
"""

from __future__ import annotations

import argparse
import sys

from .errors import ModelError


def add_export_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``export`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = sub.add_parser("export", parents=parents,
                       help="write a model as URDF (values bound, offsets folded in)",
                       description="Write a model as URDF: parameter values bound, joint "
                       "offsets folded into the joint origins, the tip frame as a 'tool' link.")
    p.add_argument("model", metavar="MODEL",
                   help="a built-in model name, a YAML model file or a URDF file")
    p.add_argument("--urdf", required=True, metavar="FILE",
                   help="the URDF file to write ('-': standard output)")
    p.set_defaults(func=_cmd_export, models_of=lambda a: [a.model], command_parser=p)
    return p


def _cmd_export(args: argparse.Namespace) -> int:
    from .cli import load_model  # here: cli imports this module

    robot = load_model(args.model, args)
    text = robot.to_urdf()
    if args.urdf == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.urdf, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise ModelError(f"--urdf {args.urdf[:80]!r}: cannot write the file "
                         f"({exc.strerror or exc})") from None
    print(f"robodyn: wrote {robot.name} ({robot.dof} joints) to {args.urdf}", file=sys.stderr)
    return 0
