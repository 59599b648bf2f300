"""Java: one class ``NAME`` (file ``NAME.java``) of static methods on primitive arrays,
``double[] inverse_dynamics(double[] q, double[] qd, double[] qdd)``,
``double[][] mass_matrix(double[] q)``, ...; ``double[] p`` first with parameters as an
argument."""

from __future__ import annotations

import shlex

from .base import body, comment, java_string, signature_args
from .printers import JavaPrinter
from .program import Program


def write(program: Program) -> dict[str, str]:
    name, n = program.name, program.dof
    printer = JavaPrinter()
    out = [comment(program, "java").rstrip("\n"),
           f"public final class {name} {{", f"    private {name}() {{}}", "",
           f"    public static final int DOF = {n};"]
    if program.argument:
        defaults = dict(program.values)
        out.append("    public static final String[] PARAMETERS = {"
                   + ", ".join(java_string(str(s)) for s in program.parameters) + "};")
        if all(str(s) in defaults for s in program.parameters):
            out.append("    public static final double[] DEFAULT_PARAMETERS = {"
                       + ", ".join(repr(defaults[str(s)]) for s in program.parameters) + "};")
    for f in program.functions:
        rows, cols = f.shape
        rtype = "double[]" if f.vector else "double[][]"
        args = [f"double[] {a}" for a in signature_args(program, f)]
        b = body(program, f, printer, "java",
                 {g.name for g in program.functions} | {name, "DOF", "PARAMETERS"})
        out += ["", f"    /** {f.description[0].upper()}{f.description[1:]}. */",
                f"    public static {rtype} {f.name}({', '.join(args)}) {{"]
        out += [f"        final double {local} = {arr}[{i}];" for local, arr, i in b.loads]
        out += [f"        final double {t} = {e};" for t, e in b.temporaries]
        new = f"new double[{rows}]" if f.vector else f"new double[{rows}][{cols}]"
        out.append(f"        {rtype} {f.output} = {new};")
        for (i, j), e in b.entries:
            index = f"[{i}]" if f.vector else f"[{i}][{j}]"
            out.append(f"        {f.output}{index} = {e};")
        out += [f"        return {f.output};", "    }"]
    out.append("}")
    return {f"{name}.java": "\n".join(out) + "\n"}


def usage(program: Program, directory: str) -> str:
    p = "p, " if program.argument else ""
    return (f"javac -d classes {shlex.quote(f'{directory}/{program.name}.java')}\n"
            f"double[] tau = {program.name}.inverse_dynamics({p}q, qd, qdd);")
