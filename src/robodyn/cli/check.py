"""``robodyn check MODEL --M "[[...], [...]]"``: check a student's answer.

    robodyn check planar-2r --M "[[I1 + I2 + m1*c1^2 + ..., ...], [..., I2 + m2*c2^2]]"
    robodyn check rp-arm --g "[g*(m1*l1 + m2*d2)*cos(theta1), g*m2*sin(theta1)]" \\
        --symbols theta1=q1,d2=q2
    robodyn check planar-2r --C "[[...], [...]]" --method newton-euler

Each entry is compared exactly with the derived one (the normal form of the difference
is zero); a wrong entry is named with the difference ``given - expected``. For ``C``
a valid factorisation other than Christoffel's is recognised as such. The text is
parsed, never evaluated (numbers, names, + - * / ** ^, parentheses, pi, sqrt, sin,
cos). Exit status 0 when every given quantity is right, 1 otherwise.
"""

from __future__ import annotations

import argparse
import re
import sys

_PAIR = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+?)\s*$")


def parse_symbols(text: str) -> dict[str, str]:
    """``--symbols theta1=q1,d2=q2``: ``{student's name: model expression}``."""
    out = {}
    for item in text.split(","):
        if not item.strip():
            continue
        m = _PAIR.match(item)
        if not m:
            raise argparse.ArgumentTypeError(
                f"{item.strip()[:40]!r} is not NAME=NAME (e.g. --symbols theta2=q2,L1=l1)")
        out[m.group(1)] = m.group(2)
    return out


def add_check_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``check`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = sub.add_parser("check", parents=parents,
                       help="check a student's M, C, g or tau against the derivation",
                       description="Compare a given M, C, g, tau (as text) with the derived "
                       "equations, entry by entry.",
                       epilog=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", metavar="MODEL",
                   help="a built-in model name, a YAML model file or a URDF file")
    for name, what in (("M", "inertia matrix, [[..], [..]]"),
                       ("C", "Coriolis/centrifugal matrix, [[..], [..]]"),
                       ("g", "gravity torques, [.., ..]"), ("tau", "joint torques, [.., ..]")):
        p.add_argument(f"--{name}", metavar="TEXT", help=f"the {what}")
    p.add_argument("--symbols", type=parse_symbols, action="append", metavar="NAME=NAME,..",
                   help="the answer's names for the model's symbols, e.g. theta2=q2 (rates "
                        "theta2dot, dtheta2, ... follow)")
    p.add_argument("--method", default="lagrange", choices=("lagrange", "newton-euler"),
                   help="how the reference equations are derived (they agree)")
    p.add_argument("--values", nargs="?", const=True, default=None, metavar="NAME=NUM,..",
                   help="substitute numbers in the reference first (as for derive)")
    p.set_defaults(func=_cmd_check, models_of=lambda a: [a.model], command_parser=p)
    return p


def _cmd_check(args: argparse.Namespace) -> int:
    from ..symbolic import equations
    from .common import load_model
    from .derive import parse_values

    answers = {k: getattr(args, k) for k in ("M", "C", "g", "tau")
               if getattr(args, k) is not None}
    if not answers:
        args.command_parser.error("give at least one of --M, --C, --g, --tau")
    values = args.values
    if isinstance(values, str):
        try:
            values = parse_values(values)
        except argparse.ArgumentTypeError as exc:
            args.command_parser.error(f"--values: {exc}")
    symbols = {}
    for table in args.symbols or []:
        symbols.update(table)
    robot = load_model(args.model, args)
    eq = equations(robot, method=args.method, values=values)
    result = eq.compare(symbols=symbols, **answers)
    sys.stdout.write(str(result) + "\n")
    return 0 if result.ok else 1
