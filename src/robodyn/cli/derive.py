"""``robodyn derive MODEL``: equations of motion in closed form from the command line.

    robodyn derive rp-arm                          M, C, g, tau by Lagrange-Euler
    robodyn derive rp-arm --method newton-euler --steps
    robodyn derive rp-arm --steps --brief            no Given section, no zero c_ijk
    robodyn derive planar-2r --route jacobian --steps   M, g from the link Jacobians
    robodyn derive planar-2r --mass-matrix-from energy --steps   M as the Hessian of K
    robodyn derive planar-2r --verify              prove both methods agree
    robodyn derive puma560 --values --format json  numbers substituted, as JSON
    robodyn derive rp-arm --steps --format html > rp-arm.html   the derivation as a web page
    robodyn derive planar-2r --values g=9.81,m2=1.5 --format latex > eom.tex
    robodyn derive xarm7.urdf --snap-angles 1e-3   a URDF chain, angles made right angles
    robodyn derive ur5.urdf --tip tool0            a URDF chain up to a chosen link
    robodyn derive satellite.yaml --verify         a free-flying base (floating: true)
    robodyn derive arm.urdf --floating --values    the root body on a free joint
    robodyn derive parallelogram-arm --steps --verify   a closed chain, on its actuated joints
    robodyn derive planar-2r --task-space x,y --steps   B_A, C_A x', g_A (Siciliano 7.8)
    robodyn derive planar-2r --forward --state "q=0.3,-0.5;qd=0.2,0.1;tau=1,0.5" --integrator rk4
                                                   tau -> q'' and one simulation step
"""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np

from ..core.csv_table import parse_number
from .common import model_command

FORMATS = ("pretty", "text", "latex", "markdown", "json", "html")


def parse_values(text: str) -> dict[str, float | int] | bool:
    """An argparse type for ``--values NAME=NUMBER,...``: ``{name: number}`` (integers
    exact), each name an identifier given once and each number a finite plain decimal;
    ``defaults``: ``True``."""
    if text.strip() == "defaults":
        return True
    out: dict[str, float | int] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, number = (part.strip() for part in item.partition("="))
        if not sep or not name.isidentifier():
            raise argparse.ArgumentTypeError(
                f"{item[:40]!r} is not NAME=NUMBER (e.g. --values g=9.81,m1=2)")
        if name in out:
            raise argparse.ArgumentTypeError(f"{name[:40]} is given twice; give each value "
                                             "once")
        if re.fullmatch(r"[+-]?[0-9]+", number, re.ASCII):
            value = int(number)
        else:  # the strict reader of the CSV tables: no 1_0, no digits of other scripts
            value = parse_number(number)
            if isinstance(value, str):
                if "overflows" in value:
                    value = "is not a finite number (it overflows a 64-bit float)"
                raise argparse.ArgumentTypeError(f"{name[:40]} = {number[:40]!r} {value}")
        out[name] = value
    return out


def _digits(text: str) -> int:
    """An argparse type for ``--digits N``: an integer from 1 to 17."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number of digits "
                                         "(e.g. --digits 4)") from None
    if not 1 <= n <= 17:
        raise argparse.ArgumentTypeError(f"{n} digits: give 1 to 17 (a double has 17)")
    return n


_TASK_ROWS = {"x": 0, "y": 1, "z": 2, "phi": 3}


def _task_rows(text: str) -> tuple[int, ...]:
    """An argparse type for ``--task-space x,y[,z|phi]``: the task rows."""
    names = [w.strip() for w in text.split(",") if w.strip()]
    bad = [w for w in names if w not in _TASK_ROWS]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"{(bad or [text])[0][:40]!r}: give task coordinates "
                                         "among x, y, z, phi, e.g. --task-space x,y")
    return tuple(_TASK_ROWS[w] for w in names)


def _task_space(eq, args: argparse.Namespace) -> int:
    """``--task-space``: the closed-form operational space model (text, or LaTeX)."""
    from ..symbolic.task_space import task_space

    if args.format not in (None, "pretty", "text", "latex"):
        args.command_parser.error("--task-space prints text or LaTeX (--format text|latex)")
    ts = task_space(eq, args.task_space)
    sys.stdout.write(ts.latex() if args.format == "latex" else ts.text(steps=args.steps))
    return 0


def _state(text: str) -> dict[str, list[float]]:
    """An argparse type for ``--state "q=0.3,-0.5;qd=0.2,0.1;tau=1,0.5"``."""
    out: dict[str, list[float]] = {}
    for part in text.split(";"):
        name, sep, numbers = (x.strip() for x in part.partition("="))
        if not sep or name not in ("q", "qd", "tau", "z") or name in out:
            raise argparse.ArgumentTypeError(f"{part.strip()[:40]!r}: give q=..;qd=..;tau=.. "
                                             "(and z=.. with LuGre friction), each once (e.g. "
                                             "--state \"q=0.3,-0.5;qd=0,0;tau=1,0\")")
        values = [parse_number(x.strip()) for x in numbers.split(",")]
        bad = [v for v in values if isinstance(v, str)]
        if bad:
            raise argparse.ArgumentTypeError(f"--state {name}: {bad[0]}")
        out[name] = values
    return out


def _forward(eq, args: argparse.Namespace) -> int:
    """``--forward``: from tau to q'' and, with ``--state``, a worked simulation step."""
    from ..symbolic.forward_steps import forward_steps

    if args.format not in (None, "pretty", "text", "latex", "markdown", "html"):
        args.command_parser.error("--forward prints text, LaTeX, Markdown or HTML")
    fs = forward_steps(eq, args.state, dt=args.dt, integrator=args.integrator)
    fmt = {"latex": fs.latex, "markdown": fs.markdown, "html": fs.html}.get(args.format,
                                                                            fs.text)
    sys.stdout.write(fmt())
    return 0


def _closed(eq, robot, args: argparse.Namespace) -> int:
    """A model with ``loops:``: the reduced closed form on its actuated joints (steps with
    ``--steps``), ``--verify`` against the numeric reduced and multiplier routes."""
    from ..core.errors import ModelError
    from ..symbolic.closed_chain import (
        assembled_state,
        implicit_reduction,
        linear_closure,
        reduce,
        verify,
        verify_implicit,
    )

    if args.format not in (None, "pretty", "text", "latex", "markdown"):
        args.command_parser.error("a closed mechanism prints text, LaTeX or Markdown "
                                  "(--format text|latex|markdown); --tree for the open tree")
    mech = robot.closed_chain()
    configs = robot.configurations
    q0 = configs.get("home", next(iter(configs.values()), np.zeros(len(robot.joints))))
    q0 = assembled_state(mech, q0)
    try:
        red = reduce(eq, linear_closure(mech, q0))
    except ModelError as exc:
        if "not linear" not in str(exc):
            raise
        red = implicit_reduction(eq, robot.chain, mech.actuated)
    if args.format == "latex":
        out = red.latex()
    elif args.format == "markdown":
        out = red.markdown()
    elif args.steps:
        out = red.text()
    else:
        out = red.text().split("Result\n------\n")[-1]
    sys.stdout.write(out)
    if args.verify:
        if hasattr(red, "closure"):
            worst = verify(red, mech, robot.values, q0)
        else:  # a nonlinear closure: G in the implicit passive angles
            worst = verify_implicit(red, mech, robot.values, q0, eq.q)
        ok = all(v < 1e-10 for v in worst.values())
        for name, v in worst.items():
            sys.stdout.write(f"verify: closed form vs numeric {name}: max difference {v:.1e}\n")
        sys.stdout.write("verify: " + ("agree to 1e-10\n" if ok else "DISAGREE\n"))
        return 0 if ok else 1
    return 0


def _cmd_derive(args: argparse.Namespace) -> int:
    from ..symbolic import equations, verify
    from .common import load_model

    robot = load_model(args.model, args)
    values = args.values  # None (symbolic), True (the model's defaults) or {name: number}
    route = _route(args)
    eq = equations(robot, method=args.method, values=values, h_e=args.h_e, route=route)
    if getattr(args, "brief", False):
        eq = eq.brief()
    if getattr(args, "plain_names", False):
        eq = eq.plain_names()
    closures = getattr(robot.chain, "closures", None)
    if closures is not None and closures.loops and not getattr(args, "tree", False):
        return _closed(eq, robot, args)
    if getattr(args, "task_space", None):
        return _task_space(eq, args)
    if getattr(args, "forward", False) or getattr(args, "state", None):
        return _forward(eq, args)
    fmt = args.format
    if fmt is None:  # math on a terminal, the plain form that reads back in a pipe
        fmt = "pretty" if sys.stdout.isatty() else "text"
    # shorthand by default where people read (pretty, LaTeX, Markdown), not where scripts do
    short = args.shorthand if args.shorthand is not None else fmt in ("pretty", "latex",
                                                                      "markdown", "html")
    opts = {"steps": args.steps, "shorthand": short, "digits": args.digits}
    if fmt == "pretty":
        import shutil

        out = eq.pretty(width=shutil.get_terminal_size((100, 24)).columns, **opts)
        fmt = "text"  # the verification report below is plain text
    elif fmt == "text":
        out = eq.text(**opts)
    elif fmt == "latex":
        out = eq.latex(document=True, **opts)
    elif fmt == "markdown":
        out = eq.markdown(**opts)
    elif fmt == "html":
        out = eq.html(description=getattr(robot, "description", ""), **opts)
    else:
        out = eq.json(**opts)
        if values is not None:  # the numbers substituted, as JSON floats
            import json

            data = json.loads(out)
            used = robot.values if values is True else values
            data["values"] = {str(k): float(v) for k, v in sorted(used.items())}
            out = json.dumps(data, indent=2) + "\n"
    if getattr(args, "regressor", False) or getattr(args, "parameters", None):
        out = _with_regressor(eq, fmt, out, getattr(args, "parameters", None))
    out = _with_springs(eq, robot, fmt, out)
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
            elif fmt == "html":
                out = _html_appendix(out, text)
            else:
                out += text
        if not (agreement.holds and checks):
            status = 1
    sys.stdout.write(out)
    return status


def _route(args: argparse.Namespace) -> str:
    """The Lagrange route of ``--route`` and ``--mass-matrix-from`` (which must agree);
    a usage error (exit status 2) for a route with ``--method newton-euler``."""
    route = getattr(args, "route", None) or "euler-lagrange"
    source = getattr(args, "mass_matrix_from", None)
    if source == "energy":
        if route not in ("euler-lagrange", "energy"):
            args.command_parser.error(f"--mass-matrix-from energy and --route {route} are two "
                                      "different routes; give one")
        route = "energy"
    if route != "euler-lagrange" and args.method != "lagrange":
        args.command_parser.error(f"--route {route} is a Lagrange-Euler route; drop "
                                  "--method newton-euler")
    return route


def _with_regressor(eq, fmt: str, out: str, parameters: str | None = None) -> str:
    """``out`` with ``tau = Y pi`` appended (issue 10): ``pi``, what each parameter is in
    the model's parameters, ``Y`` row by row, and the exact check ``Y pi == tau``.
    ``parameters`` (``--parameters ml1,Il1``): ``pi`` made of these model symbols, and
    ``tau - Y pi`` where it is not 0."""
    from ..core.errors import InputError

    try:
        reg = eq.regressor() if parameters is None else eq.regressor(parameters=parameters)
    except InputError as exc:  # name the option, not the Python argument
        raise InputError(str(exc).replace("parameters:", "--parameters:", 1)
                         .replace("parameters=['m1', 'I1'] (CLI: --parameters m1,I1)",
                                  "--parameters m1,I1")
                         .replace("(eq.regressor())", "(--regressor alone)")) from None
    rest = getattr(reg, "rest", None)
    rest = None if rest is None or all(x == 0 for x in rest) else rest
    ok = reg.check()
    if fmt == "json":
        import json

        data = json.loads(out)
        data["regressor"] = {"pi": [str(s) for s in reg.pi],
                             "values": {str(k): str(v) for k, v in reg.values.items()},
                             "Y": [[str(x) for x in reg.Y.row(i)] for i in range(eq.dof)],
                             "Y pi == tau": ok}
        if rest is not None:
            data["regressor"]["tau - Y pi"] = [str(x) for x in rest]
            data["regressor"]["Y pi + (tau - Y pi) == tau"] = data["regressor"].pop(
                "Y pi == tau")
        return json.dumps(data, indent=2) + "\n"
    lines = ["", "Regressor: tau = Y(q, qd, qdd) pi "
             f"({'checked: Y pi == tau exactly' if ok else 'CHECK FAILED'})",
             "pi = [" + ", ".join(str(s) for s in reg.pi) + "]"]
    lines += [f"  {k} = {v}" for k, v in reg.values.items() if v != 0 and v != k]
    for i in range(eq.dof):
        lines.append(f"Y[{i + 1}] = [" + ", ".join(str(x) for x in reg.Y.row(i)) + "]")
    if rest is not None:
        lines[1] = lines[1].replace("Y pi ==", "Y pi + (tau - Y pi) ==").replace(
            "Y(q, qd, qdd) pi ", "Y(q, qd, qdd) pi + (tau - Y pi) ")
        lines += [f"(tau - Y pi)[{i + 1}] = {x}" for i, x in enumerate(rest)]
    text = "\n".join(lines) + "\n"
    if fmt == "latex":
        text = "\n".join("% " + line for line in text.splitlines()) + "\n"
        return out.replace("\\end{document}\n", "") + text + "\\end{document}\n"
    if fmt == "markdown":
        return out + "\n```\n" + text.strip("\n") + "\n```\n"
    if fmt == "html":
        return _html_appendix(out, text)
    return out + text


def _with_springs(eq, robot, fmt: str, out: str) -> str:
    """``out`` with the elastic-joint equations (Spong's motor and link sides,
    :func:`robodyn.symbolic.elastic.elastic_equations`) of a model whose motors have springs
    (``motor.stiffness``); ``out`` as it is for a rigid one."""
    from ..motion.elastic import CoupledSprings, springs_of

    found = springs_of(robot.numeric_chain)
    if found is None:
        return out
    from ..symbolic.elastic import coupled_elastic_equations, elastic_equations

    springs = (coupled_elastic_equations(eq, found.transmission)
               if isinstance(found, CoupledSprings) else
               elastic_equations(eq, chain=robot.chain))
    tau = "\\tau_{{m,{}}}" if springs.coupling is not None else "\\tau_{{{}}}"
    if fmt == "json":
        import json

        data = json.loads(out)
        data["elastic"] = {"link": [str(e) for e in springs.link],
                           "motor": [str(e) for e in springs.motor],
                           "joints": [j + 1 for j in springs.joints
                                      or range(len(springs.link))],
                           **({} if springs.coupling is None else
                              {"coupling": [list(r) for r in springs.coupling]})}
        return json.dumps(data, indent=2) + "\n"
    if fmt == "latex":
        import sympy as sp

        elastic = springs.joints or range(len(springs.link))
        coupled = springs.coupling is not None   # its link rows are all = 0
        rows = [sp.latex(e) + (" &= 0" if i in elastic or coupled else f" &= \\tau_{{{i + 1}}}")
                for i, e in enumerate(springs.link)]
        rows += [sp.latex(e) + " &= " + tau.format(i + 1)
                 for i, e in zip(elastic, springs.motor, strict=True)]
        section = ("\\section*{Elastic joints (Spong 1987): link side, motor side}\n"
                   "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}\n")
        return out.replace("\\end{document}\n", "") + section + "\\end{document}\n"
    text = springs.text()
    if fmt == "markdown":
        return out + "\n## Elastic joints\n\n```\n" + text + "```\n"
    if fmt == "html":
        return _html_appendix(out, text)
    return out + "\n" + text


def _html_appendix(page: str, text: str) -> str:
    """``page`` with the plain ``text`` (a report) in a ``<pre>`` before its end, escaped."""
    from html import escape

    block = f'<pre class="report">{escape(text.strip(chr(10)), quote=False)}</pre>\n'
    return page.replace("</main>", block + "</main>", 1)


def add_derive_command(subparsers, parents=()) -> argparse.ArgumentParser:
    """Add ``derive`` to the ``robodyn`` command's sub-commands (``parents``: parsers
    whose options it shares, e.g. the URDF options of :func:`robodyn.cli.common.model_options`)."""
    p = model_command(subparsers, "derive", parents, __doc__,
                      help="equations of motion in closed form (Lagrange-Euler or Newton-Euler)",
                      description="Derive M(q) qdd + C(q, qd) qd + friction + g(q) = tau of a "
                                  "model in closed form, optionally with every step and a proof "
                                  "that Lagrange-Euler and Newton-Euler agree.")
    p.add_argument("--method", default="lagrange", choices=("lagrange", "newton-euler"),
                   help="Lagrange-Euler (energies) or Newton-Euler (recursion); default "
                        "lagrange")
    p.add_argument("--route", default="euler-lagrange",
                   choices=("euler-lagrange", "energy", "jacobian"),
                   help="the Lagrange-Euler route: euler-lagrange (tau = d/dt dL/dqd - dL/dq, "
                        "the default), energy (M as the Hessian of K in qd, as lecture notes "
                        "on planar arms do), jacobian (M = sum m J_P^T J_P + J_O^T R I R^T J_O "
                        "and g_i = -sum m_j g0^T J_P,i^(j), Siciliano et al. §7.2); same "
                        "equations, other steps")
    p.add_argument("--mass-matrix-from", dest="mass_matrix_from", choices=("tau", "energy"),
                   default=None,
                   help="energy: read M off K = 1/2 qd^T M qd (the same as --route energy); "
                        "tau: the coefficients of qdd in tau (the default)")
    p.add_argument("--tree", action="store_true",
                   help="a model with loops: derive its open tree (every joint), not the "
                        "reduced model on its actuated joints")
    p.add_argument("--steps", action="store_true",
                   help="print the whole derivation, step by step")
    p.add_argument("--brief", action="store_true",
                   help="with --steps: leave out the Given section and the Christoffel "
                        "symbols that are zero")
    p.add_argument("--plain-names", dest="plain_names", action="store_true",
                   help="print robodyn's names q1, qd1 instead of the model's display names "
                        "(display: {q1: theta_1} prints theta_1 as θ₁ by default)")
    p.add_argument("--verify", action="store_true",
                   help="prove that both methods give identical equations and check the "
                        "structure (M symmetric, dM/dt - 2C skew-symmetric); exit status 1 if "
                        "not")
    p.add_argument("--format", default=None, choices=FORMATS,
                   help="output format: pretty (Unicode math, wrapped at the terminal width; "
                        "the default on a terminal), text (SymPy syntax that reads back; the "
                        "default in a pipe), latex, markdown, json")
    p.add_argument("--shorthand", action=argparse.BooleanOptionalAction, default=None,
                   help="write sin(q1) as s_1, cos(q1 + q2) as c_12 and a recurring factor "
                        "of C as h, declared at the top (default: on for pretty, latex, "
                        "markdown and html; off for text and json, which scripts read back)")
    p.add_argument("--digits", type=_digits, default=None, metavar="N",
                   help="round numeric coefficients to N significant digits (default: as "
                        "the model wrote them)")
    p.add_argument("--values", nargs="?", const=True, default=None, type=parse_values,
                   metavar="NAME=NUM,..",
                   help="substitute numbers: alone, the model's default values; or a list "
                        "such as g=9.81,m1=2 (the others stay symbolic)")
    p.add_argument("--h-e", dest="h_e", action="store_true",
                   help="add J(q)^T h_e for a wrench h_e exerted by the end effector")
    p.add_argument("--task-space", dest="task_space", type=_task_rows, default=None,
                   metavar="x,y[,phi]",
                   help="the operational space model B_A, C_A x', g_A of the end effector in "
                        "closed form (Siciliano 7.8; as many coordinates as joints, at most "
                        "3), with --steps its steps")
    p.add_argument("--forward", action="store_true",
                   help="forward dynamics step by step: from tau to q'' (the solve with M); "
                        "with --state, the numbers and one simulation step")
    p.add_argument("--state", type=_state, default=None, metavar="q=..;qd=..;tau=..[;z=..]",
                   help="the numeric state of --forward, one number per joint each (z: LuGre's "
                   "bristle deflections, 0 if left out)")
    p.add_argument("--dt", type=float, default=0.01, help="--forward's step length in s "
                   "(default 0.01)")
    p.add_argument("--integrator", choices=("euler", "rk4"), default="euler",
                   help="--forward's simulation step: explicit Euler (default) or RK4")
    p.add_argument("--regressor", action="store_true",
                   help="also print tau = Y(q, qd, qdd) pi with the standard parameters pi")
    p.add_argument("--parameters", default=None, metavar="NAME,..",
                   help="with --regressor (implied): pi made of these symbols of the model, "
                        "e.g. ml1,Il1,ml2,Il2 (Siciliano et al., §7.4); tau must be linear in them")
    p.set_defaults(func=_cmd_derive)
    return p


__all__ = ["add_derive_command"]
