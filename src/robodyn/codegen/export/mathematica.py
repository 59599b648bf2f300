"""Wolfram Language: a package ``NAME.wl`` (context ``NAME```) of functions on lists.

Mathematica symbols cannot hold ``_`` (it makes patterns), so the functions are the
common names in camel case (``inverseDynamics[q, qd, qdd]``, ``massMatrix[q]``, ...) and
a local whose name has ``_`` gets ``U`` instead. Each body is a ``Module`` with one
assignment per line, the result (a list, or a list of rows) last.
"""

from __future__ import annotations

from .base import body, comment, mathematica_string, signature_args
from .printers import MathematicaPrinter
from .program import Program


def camel(name: str) -> str:
    """``inverse_dynamics`` -> ``inverseDynamics``."""
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


#: Contexts a package must not take: the kernel's own.
_KERNEL_CONTEXTS = {"System", "Global", "Private", "Developer", "Internal", "Experimental"}


def context(name: str) -> str:
    """The package context of the identifier ``name``: its words in camel case
    (``planar_2r`` -> ``Planar2r``), ``Robot`` appended to a context of the kernel's
    (``system`` -> ``SystemRobot``)."""
    out = "".join(w[:1].upper() + w[1:] for w in name.split("_") if w) or "Robot"
    return out + "Robot" if out in _KERNEL_CONTEXTS or not out[0].isalpha() else out


def write(program: Program) -> dict[str, str]:
    printer = MathematicaPrinter()
    ctx = context(program.name)
    out = [comment(program, "mathematica").rstrip("\n"), f'BeginPackage["{ctx}`"];', ""]
    for f in program.functions:
        args = ", ".join(signature_args(program, f))
        usage_text = f"{camel(f.name)}[{args}]: {f.description}."
        out.append(f"{camel(f.name)}::usage = {mathematica_string(usage_text)};")
    fd = program.forward_dynamics()
    fd_args = ([a.replace("_", "") for a in (["p"] if program.argument else []) + list(fd)]
               if fd is not None else [])
    if fd is not None:
        text = (f"forwardDynamics[{', '.join(fd_args)}]: joint accelerations, "
                "massMatrix[q] . qdd == tau - inverseDynamics[q, qd, 0] by LinearSolve.")
        out.append(f"forwardDynamics::usage = {mathematica_string(text)};")
    out += ["", 'Begin["`Private`"];']
    for f in program.functions:
        rows, cols = f.shape
        args = signature_args(program, f)
        b = body(program, f, printer, "mathematica",
                 {camel(g.name) for g in program.functions} | {a.replace("_", "") for a in args})
        params = [a.replace("_", "") for a in args]
        locals_ = [local for local, _, _ in b.loads] + [t for t, _ in b.temporaries]
        out += ["", f"{camel(f.name)}[{', '.join(p + '_' for p in params)}] := "
                f"Module[{{{', '.join(locals_)}}},"]
        out += [f"  {local} = {arr.replace('_', '')}[[{i + 1}]];" for local, arr, i in b.loads]
        out += [f"  {t} = {e};" for t, e in b.temporaries]
        written = dict(b.entries)
        if f.vector:
            result = "{" + ", ".join(written.get((i, 0), "0") for i in range(rows)) + "}"
        else:
            result = "{" + ", ".join(
                "{" + ", ".join(written.get((i, j), "0") for j in range(cols)) + "}"
                for i in range(rows)) + "}"
        out += [f"  {result}", "];"]
    if fd is not None:
        id_args = ", ".join(f"ConstantArray[0, {program.dof}]" if a == "tau" else a
                            for a in fd_args)
        mm = "p, q" if program.argument else "q"
        out += ["", f"forwardDynamics[{', '.join(a + '_' for a in fd_args)}] := "
                f"LinearSolve[massMatrix[{mm}], tau - inverseDynamics[{id_args}]];"]
    out += ["", "End[];", "EndPackage[];"]
    return {f"{program.name}.wl": "\n".join(out) + "\n"}


def usage(program: Program, directory: str) -> str:
    p = "p, " if program.argument else ""
    return (f"Get[{mathematica_string(f'{directory}/{program.name}.wl')}]\n"
            f"tau = inverseDynamics[{p}q, qd, qdd]")
