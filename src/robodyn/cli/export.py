"""``robodyn export MODEL``: a model written as URDF (``--urdf FILE``, ``robot.to_urdf``),
as MuJoCo MJCF (``--mjcf FILE``, ``robot.to_mjcf``) or as code (``--lang LANG --out
DIR``): by default robodyn's compiled kernels, the traced straight-line programs
(``robot.to_code``: every registry function, or ``--functions``), with ``--closed-form``
the closed-form equations of motion (``eq.to_code``, for reading).

MODEL is a built-in model name, a YAML model file or a URDF file (with the URDF
options of every model command: ``--base``, ``--tip``, ...). ``--urdf -`` (``--mjcf -``)
writes the file to standard output. ``--lang`` is one of python, c, cpp, matlab, java, julia
(and mathematica, closed forms only); ``--parameters baked`` (default) writes the model's
numbers into the code, ``--parameters argument`` makes every function take the parameter
vector ``p`` first.

A file that is already there is overwritten only when robodyn wrote it (its header's
first line says so) or with ``--force``; a symbolic link is never written through or
replaced (:mod:`robodyn.codegen.export.files`).
"""

from __future__ import annotations

import argparse
import sys

from ..model.names import visible
from .common import model_command


def add_export_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``export`` command to the sub-parsers ``sub`` of ``robodyn``."""
    from ..codegen.export import LANGUAGES, PARAMETER_MODES

    p = model_command(sub, "export", parents, None,
                      help="write a model as URDF or MJCF, or its equations of motion as code",
                      description="Write a model as URDF (--urdf: parameter values bound, joint "
                                  "offsets folded into the joint origins, the tip frame as a "
                                  "'tool' link), as MuJoCo MJCF (--mjcf: bodies nested as the "
                                  "tree, ball and free joints too), or as standalone code "
                                  "(--lang LANG --out DIR): "
                                  "robodyn's compiled kernels (every function of the registry: "
                                  "inverse and forward dynamics, mass matrix, ..., derivatives; "
                                  "fast), or with --closed-form the closed-form equations of "
                                  "motion (inverse_dynamics, mass_matrix, coriolis_matrix, "
                                  "gravity_torques, friction_torques; for reading).")
    p.add_argument("--urdf", metavar="FILE",
                   help="the URDF file to write ('-': standard output)")
    p.add_argument("--mjcf", metavar="FILE",
                   help="the MJCF file to write ('-': standard output)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files that robodyn did not write (never a symbolic link)")
    p.add_argument("--unlimited", choices=["continuous", "revolute"], default="continuous",
                   help="how --urdf writes a revolute joint without limits: continuous "
                   "(default; Pinocchio gives it nq = 2) or revolute with limits +-1e9 rad")
    code = p.add_argument_group("code export")
    code.add_argument("--lang", choices=list(LANGUAGES), metavar="LANG",
                      help="the language of the code: " + ", ".join(LANGUAGES))
    code.add_argument("--out", metavar="DIR", help="the folder to write the files into")
    code.add_argument("--parameters", choices=PARAMETER_MODES, default="baked",
                      help="baked: the model's numbers in the code (default); argument: "
                      "every function takes the parameter vector p first")
    code.add_argument("--closed-form", action="store_true",
                      help="export the closed-form equations of motion (eq.to_code) instead "
                      "of the compiled kernels")
    code.add_argument("--functions", metavar="LIST",
                      help="the compiled kernels to export, comma-separated (default: all "
                      "of the registry)")
    code.add_argument("--method", default=None, choices=["lagrange", "newton-euler"],
                      help="with --closed-form: how the closed forms are derived (the same "
                      "equations; default lagrange)")
    code.add_argument("--name", metavar="NAME",
                      help="function prefix / module name (default: the model name with "
                      "other characters than letters, digits and _ as _)")
    p.set_defaults(func=_cmd_export)
    return p


def _cmd_export(args: argparse.Namespace) -> int:
    from ..codegen.export import LANGUAGES
    from .common import load_model

    if sum(x is not None for x in (args.urdf, args.mjcf, args.lang)) != 1:
        args.command_parser.error("give one of --urdf FILE, --mjcf FILE or --lang LANG --out "
                                  "DIR")
    if args.lang is not None and not args.out:
        args.command_parser.error("--lang needs --out DIR, the folder to write the files into")
    if args.lang is not None and not args.closed_form:
        if args.method is not None:
            args.command_parser.error("--method applies to the closed forms: add --closed-form")
        if LANGUAGES[args.lang].kernels is None:
            args.command_parser.error(f"{args.lang} has the closed forms only: add --closed-form")
    elif args.functions is not None:
        args.command_parser.error("--functions applies to the compiled kernels (--lang without "
                                  "--closed-form)")
    robot = load_model(args.model, args)
    if args.lang is not None:
        if not args.closed_form:
            return _export_kernels(robot, args)
        return _export_code(robot, args)
    from ..codegen.export.files import write_file

    if args.mjcf is not None:
        text, path, option = robot.to_mjcf(), args.mjcf, "--mjcf"
    else:
        text, path, option = robot.to_urdf(unlimited=args.unlimited), args.urdf, "--urdf"
    if path == "-":
        sys.stdout.write(text)
        return 0
    write_file(path, text, force=args.force, option=option)
    print(f"robodyn: wrote {visible(robot.name)} ({len(robot.links)} joints) to {path}",
          file=sys.stderr)
    return 0


def _export_code(robot, args: argparse.Namespace) -> int:
    from ..codegen.export import LANGUAGES, program_of, usage, write_files

    eq = robot.equations(method=args.method or "lagrange")
    program = program_of(eq, args.parameters, args.name)
    files = LANGUAGES[args.lang].closed_forms(program)
    paths = write_files(files, args.out, force=args.force)
    print(f"robodyn: wrote {visible(robot.name)} ({robot.dof} joints, {args.lang}, parameters "
          f"{args.parameters}): " + ", ".join(str(p) for p in paths), file=sys.stderr)
    print("use:\n" + "\n".join("  " + line for line in
                               usage(args.lang, program, args.out).splitlines()),
          file=sys.stderr)
    return 0


def _export_kernels(robot, args: argparse.Namespace) -> int:
    from ..codegen.export import LANGUAGES, write_files
    from ..codegen.export.kernel_program import build
    from ..codegen.export.traced import usage

    functions = None
    if args.functions is not None:
        functions = [f.strip() for f in args.functions.split(",") if f.strip()]
    prog = build(robot.runner, functions, args.parameters, args.name, robot.provenance)
    files = LANGUAGES[args.lang].kernels(prog)
    paths = write_files(files, args.out, force=args.force)
    print(f"robodyn: wrote {visible(robot.name)} ({robot.dof} joints, {args.lang}, "
          f"{len(prog.functions)} compiled kernels, parameters {args.parameters}): "
          + ", ".join(str(p) for p in paths), file=sys.stderr)
    print("use:\n" + "\n".join("  " + line for line in
                               usage(args.lang, prog.name, prog.argument, str(args.out))
                               .splitlines()), file=sys.stderr)
    return 0
