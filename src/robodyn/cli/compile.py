"""``robodyn compile MODEL...``: build the compiled kernels of models ahead, into the
kernel cache, so that later runs start on the compiled tier (:mod:`robodyn.codegen.tiers`)."""

from __future__ import annotations

import argparse

from ..codegen.tiers import COMPILE_MAX_DOF, FIRST_KINDS
from ..dynamics.registry import KERNELS
from .common import load_model


def _kinds(text: str) -> tuple[str, ...]:
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    unknown = [k for k in kinds if k not in KERNELS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(
            f"{', '.join(unknown) or 'nothing'} is not a kernel; the kernels are "
            f"{', '.join(KERNELS)}")
    return kinds


def _cmd_compile(args: argparse.Namespace) -> int:
    for name in args.models:
        robot = load_model(name, args)
        if robot.dof > COMPILE_MAX_DOF and not args.large:
            print(f"{robot.name}: {robot.dof} degrees of freedom, more than {COMPILE_MAX_DOF}: "
                  "not compiled (its kernels run the generic tier, docs/kernels.md); "
                  "--large compiles anyway (minutes to hours)")
            continue
        seconds = robot.compile(args.kinds)
        print(f"{robot.name}: " + ", ".join(f"{k} {s:.1f} s" for k, s in seconds.items()))
    return 0


def add_compile_command(sub, parents=()) -> None:
    """Add ``compile`` to the ``robodyn`` command's sub-commands."""
    p = sub.add_parser("compile", parents=parents,
                       help="build models' compiled kernels ahead, into the kernel cache",
                       description="Compile the kernels of each MODEL now (else the first "
                                   "run answers from a no-compile tier and compiles them in "
                                   "the background), into the kernel cache.")
    p.add_argument("models", nargs="+", metavar="MODEL",
                   help="built-in model names or model files")
    p.add_argument("--kinds", type=_kinds, default=FIRST_KINDS, metavar="K1,K2",
                   help=f"the kernels, comma-separated (default {','.join(FIRST_KINDS)})")
    p.add_argument("--large", action="store_true",
                   help=f"compile models of more than {COMPILE_MAX_DOF} degrees of freedom too")
    p.set_defaults(func=_cmd_compile)
