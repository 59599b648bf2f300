"""``robodyn derive MODEL``: equations of motion in closed form from the command line.

    robodyn derive rp-arm                          M, C, g, tau by Lagrange-Euler
    robodyn derive rp-arm --method newton-euler --steps
    robodyn derive planar-2r --verify              prove both methods agree
    robodyn derive puma560 --values --format json  numbers substituted, as JSON
    robodyn derive planar-2r --values g=9.81,m2=1.5 --format latex > eom.tex
"""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError

FORMATS = ("text", "latex", "markdown", "json")


def _parse_values(text: str | None):
    """``None`` (symbolic), ``True`` (the model's defaults) or ``{name: number}``."""
    if text is None:
        return None
    if text == "defaults":
        return True
    out = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, number = item.partition("=")
        if not sep:
            raise InputError(f"--values: {item!r} is not NAME=NUMBER (e.g. --values g=9.81,m1=2)")
        try:
            value = float(number) if any(c in number for c in ".eE") else int(number)
        except ValueError:
            raise InputError(f"--values: {name.strip()} = {number!r} is not a number") from None
        out[name.strip()] = value
    return out


def _cmd_derive(args: argparse.Namespace) -> int:
    from ..robot import load
    from . import equations, verify

    robot = load(args.model)
    values = _parse_values(args.values)
    eq = equations(robot, method=args.method, values=values, h_e=args.h_e)
    fmt = args.format
    if fmt == "text":
        out = eq.text(steps=args.steps)
    elif fmt == "latex":
        out = eq.latex(steps=args.steps, document=True)
    elif fmt == "markdown":
        out = eq.markdown(steps=args.steps)
    else:
        out = eq.json(steps=args.steps)
    status = 0
    if args.verify:
        agreement = verify(robot, values=values, h_e=args.h_e)
        checks = eq.check()
        if fmt == "json":
            import json

            data = json.loads(out)
            data["verify"] = {
                "agree": agreement.holds,
                "quantities": dict(agreement.quantities),
                "tau_LE - tau_NE": [str(x) for x in agreement.difference],
                "checks": dict(checks.results),
            }
            out = json.dumps(data, indent=2) + "\n"
        else:
            report = ["", "Verification", str(agreement), "Checks of the equations:",
                      *("  " + line for line in str(checks).splitlines())]
            text = "\n".join(report) + "\n"
            if fmt == "latex":
                text = "\n".join("% " + line for line in text.splitlines()) + "\n"
                out = out.replace("\\end{document}\n", "") + text + "\\end{document}\n"
            elif fmt == "markdown":
                out += "\n```\n" + text.strip("\n") + "\n```\n"
            else:
                out += text
        if not (agreement.holds and checks):
            status = 1
    sys.stdout.write(out)
    return status


def add_derive_command(subparsers) -> argparse.ArgumentParser:
    """Add ``derive`` to the ``robodyn`` command's sub-commands."""
    p = subparsers.add_parser(
        "derive", help="equations of motion in closed form (Lagrange-Euler or Newton-Euler)",
        description="Derive M(q) qdd + C(q, qd) qd + friction + g(q) = tau of a model in "
                    "closed form, optionally with every step and a proof that Lagrange-Euler "
                    "and Newton-Euler agree.",
        epilog=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="a built-in model name (robodyn models) or a model file")
    p.add_argument("--method", default="lagrange", choices=("lagrange", "newton-euler"),
                   help="Lagrange-Euler (energies) or Newton-Euler (recursion); default "
                        "lagrange")
    p.add_argument("--steps", action="store_true",
                   help="print the whole derivation, step by step")
    p.add_argument("--verify", action="store_true",
                   help="prove that both methods give identical equations and check the "
                        "structure (M symmetric, dM/dt - 2C skew-symmetric); exit status 1 if "
                        "not")
    p.add_argument("--format", default="text", choices=FORMATS, help="output format")
    p.add_argument("--values", nargs="?", const="defaults", default=None, metavar="NAME=NUM,..",
                   help="substitute numbers: alone, the model's default values; or a list "
                        "such as g=9.81,m1=2 (the others stay symbolic)")
    p.add_argument("--h-e", dest="h_e", action="store_true",
                   help="add J(q)^T h_e for a wrench h_e exerted by the end effector")
    p.set_defaults(func=_cmd_derive)
    return p


__all__ = ["add_derive_command"]
