"""Java: one class ``NAME`` (file ``NAME.java``) of static methods on primitive arrays,
``double[] inverse_dynamics(double[] q, double[] qd, double[] qdd)``,
``double[][] mass_matrix(double[] q)``, ...; ``double[] p`` first with parameters as an
argument. The compiled kernels (:func:`write_kernels`): the same class of static methods on
``double[]``, results flat and row-major."""

from __future__ import annotations

import shlex

from .base import body, comment, java_string, signature_args
from .kernel_program import (
    Syntax,
    TracedProgram,
    c_constant,
    expression,
    shape_text,
    ternary_sign,
)
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
    out += _forward_dynamics(program)
    out.append("}")
    return {f"{name}.java": "\n".join(out) + "\n"}


def _forward_dynamics(program: Program) -> list[str]:
    """``forward_dynamics`` (:meth:`Program.forward_dynamics`): the bias by the inverse
    dynamics at ``qdd = 0``, then Gaussian elimination with partial pivoting."""
    fd = program.forward_dynamics()
    if fd is None:
        return []
    n = program.dof
    names = (["p"] if program.argument else []) + list(fd)
    id_args = ", ".join(f"new double[{n}]" if a == "tau" else a for a in names)
    mm = "p, q" if program.argument else "q"
    # a 1 x 1 matrix is exported as a vector (double[]): wrap it into its one row
    mass = next((f for f in program.functions if f.name == "mass_matrix"), None)
    if mass is not None and mass.vector:
        mm_call = f"new double[][] {{mass_matrix({mm})}}"
    else:
        mm_call = f"mass_matrix({mm})"
    return [
        "", "    /** Joint accelerations qdd: M(q) qdd = tau - inverse_dynamics(q, qd, 0) solved "
        "by Gaussian elimination with partial pivoting (NaN if M is singular). */",
        f"    public static double[] forward_dynamics({', '.join(f'double[] {a}' for a in names)})"
        " {",
        f"        final double[] bias = inverse_dynamics({id_args});",
        f"        final double[][] M = {mm_call};",
        f"        final double[] rhs = new double[{n}];",
        f"        final double[] qdd = new double[{n}];",
        f"        for (int i = 0; i < {n}; i++) rhs[i] = tau[i] - bias[i];",
        f"        for (int k = 0; k < {n}; k++) {{",
        "            int pivot = k;",
        f"            for (int i = k + 1; i < {n}; i++)",
        "                if (Math.abs(M[i][k]) > Math.abs(M[pivot][k])) pivot = i;",
        "            if (M[pivot][k] == 0.0) {",
        "                java.util.Arrays.fill(qdd, Double.NaN);",
        "                return qdd;",
        "            }",
        "            final double[] row = M[k]; M[k] = M[pivot]; M[pivot] = row;",
        "            final double b = rhs[k]; rhs[k] = rhs[pivot]; rhs[pivot] = b;",
        f"            for (int i = k + 1; i < {n}; i++) {{",
        "                final double f = M[i][k] / M[k][k];",
        f"                for (int j = k; j < {n}; j++) M[i][j] -= f * M[k][j];",
        "                rhs[i] -= f * rhs[k];",
        "            }",
        "        }",
        f"        for (int i = {n - 1}; i >= 0; i--) {{",
        "            double s = rhs[i];",
        f"            for (int j = i + 1; j < {n}; j++) s -= M[i][j] * qdd[j];",
        "            qdd[i] = s / M[i][i];",
        "        }",
        "        return qdd;",
        "    }"]


def usage(program: Program, directory: str) -> str:
    p = "p, " if program.argument else ""
    return (f"javac -d classes {shlex.quote(f'{directory}/{program.name}.java')}\n"
            f"double[] tau = {program.name}.inverse_dynamics({p}q, qd, qdd);")


# -- the compiled kernels ---------------------------------------------------------------------
#: How Java spells a tape's instructions.
KERNEL_SYNTAX = Syntax(lambda x: c_constant(x, "Double.POSITIVE_INFINITY", "Double.NaN"),
                       {"sin": "Math.sin", "cos": "Math.cos", "sqrt": "Math.sqrt",
                        "exp": "Math.exp", "tanh": "Math.tanh"}, "Math.pow",
                       ternary_sign)

#: Statements per part of a kernel's method (the JVM limits a method to 64 kB of bytecode).
_JAVA_PART = 1500


def write_kernels(prog: TracedProgram) -> dict[str, str]:
    """The compiled kernels: ``NAME.java``, a class of static methods on ``double[]``
    (results flat, row-major); long programs run in private parts over a scratch array, as
    a method's bytecode is limited to 64 kB."""
    name = prog.name
    syntax = KERNEL_SYNTAX
    out = [prog.comment("java").rstrip("\n"), f"public final class {name} {{",
           f"    private {name}() {{}}", "", f"    public static final int DOF = {prog.dof};"]
    if prog.argument:
        out.append("    public static final double[] DEFAULT_PARAMETERS = {"
                   + ", ".join(map(repr, prog.values)) + "};")
    for f in prog.functions:
        stmts = f.statements()
        slot = {i: k for k, (i, _) in enumerate(stmts)}
        args = prog.args(f)
        ops = f.tape.ops

        def ref(i, ops=ops, slot=slot):
            op = ops[i]
            if op[0] == "in":
                arr = op[1].rstrip("0123456789")
                return f"{arr}[{op[1][len(arr):]}]"
            return f"t[{slot[i]}]"

        params = ", ".join(f"double[] {a}" for a in args)
        out += ["", f"    /** {f.doc}; result flat, row-major, {shape_text(f.shape)}. */",
                f"    public static double[] {f.name}({params}) {{",
                f"        final double[] t = new double[{max(1, len(stmts))}];"]
        parts = [stmts[k:k + _JAVA_PART] for k in range(0, len(stmts), _JAVA_PART)]
        call_args = ", ".join(["t", *args])
        out += [f"        {f.name}_part{k}({call_args});" for k in range(len(parts))]
        out.append(f"        final double[] {f.output} = new double[{f.size}];")
        for k, v in enumerate(f.outputs):
            value = ref(v.i) if hasattr(v, "i") else syntax.const(float(v))
            out.append(f"        {f.output}[{k}] = {value};")
        out += [f"        return {f.output};", "    }"]
        for k, part in enumerate(parts):
            out += ["", f"    private static void {f.name}_part{k}(double[] t, {params}) {{"]
            out += [f"        t[{slot[i]}] = {expression(op, ref, syntax)};" for i, op in part]
            out.append("    }")
    out.append("}")
    return {f"{name}.java": "\n".join(out) + "\n"}


def usage_kernels(name: str, argument: bool, directory: str) -> str:
    """How to compile and call the kernels ``name`` written to ``directory`` (shell words
    quoted)."""
    p = "p, " if argument else ""
    return (f"javac -d classes {shlex.quote(f'{directory}/{name}.java')}\n"
            f"double[] tau = {name}.inverse_dynamics({p}q, qd, qdd);")
