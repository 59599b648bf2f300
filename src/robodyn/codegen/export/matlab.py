"""MATLAB/Octave: one function file per function, ``NAME_inverse_dynamics.m`` etc.
(MATLAB has no modules, so the names carry the model's prefix); vectors are columns,
inputs any vectors of dof numbers: the closed forms (:func:`write`) and the compiled kernels
(:func:`write_kernels`)."""

from __future__ import annotations

import hashlib

from ...model.names import visible
from .base import body, comment, comment_line, signature_args
from .kernel_program import (
    Syntax,
    TracedProgram,
    c_constant,
    expression,
    local_names,
    temp,
    unravel,
    value_text,
)
from .printers import OctavePrinter
from .program import Program

#: MATLAB's ``namelengthmax``: a function (and its file) name keeps only this many
#: characters, so two longer names that agree on them would be one function.
MAX_NAME = 63


def function_name(prefix: str, function: str) -> str:
    """``PREFIX_FUNCTION``, or where that is over :data:`MAX_NAME` characters its first 54
    characters, ``_`` and 8 hex digits of its SHA-256: at most 63 characters, and distinct
    for distinct full names (``averyveryverylongrobotname..._inverse_dynamics_derivatives``)."""
    full = f"{prefix}_{function}"
    if len(full) <= MAX_NAME:
        return full
    digest = hashlib.sha256(full.encode("utf-8")).hexdigest()[:8]
    return f"{full[:MAX_NAME - 9]}_{digest}"


def write(program: Program) -> dict[str, str]:
    printer = OctavePrinter()
    files = {}
    for f in program.functions:
        fname = function_name(program.name, f.name)
        rows, cols = f.shape
        args = signature_args(program, f)
        b = body(program, f, printer, "matlab", {g.name for g in program.functions}
                 | {function_name(program.name, g.name) for g in program.functions})
        out = [comment(program, "matlab").rstrip("\n"),
               f"function {f.output} = {fname}({', '.join(args)})",
               f"% {fname.upper()}  {f.description[0].upper()}{f.description[1:]}."]
        out += [f"  {local} = {arr}({i + 1});" for local, arr, i in b.loads]
        out += [f"  {t} = {e};" for t, e in b.temporaries]
        out.append(f"  {f.output} = zeros({rows}, {cols});")
        for (i, j), e in b.entries:
            index = f"{i + 1}" if f.vector else f"{i + 1}, {j + 1}"
            out.append(f"  {f.output}({index}) = {e};")
        out.append("end")
        files[f"{fname}.m"] = "\n".join(out) + "\n"
    fd = program.forward_dynamics()
    if fd is not None:
        fname = function_name(program.name, "forward_dynamics")
        names = (["p"] if program.argument else []) + list(fd)
        id_args = ", ".join(f"zeros({program.dof}, 1)" if a == "tau" else a for a in names)
        mm = "p, q" if program.argument else "q"
        files[f"{fname}.m"] = "\n".join([
            comment(program, "matlab").rstrip("\n"),
            f"function qdd = {fname}({', '.join(names)})",
            f"% {fname.upper()}  Joint accelerations: M(q) qdd = tau - inverse dynamics at "
            "qdd = 0, solved with \\ (not inverted).",
            f"  rhs = tau(:) - {function_name(program.name, 'inverse_dynamics')}({id_args});",
            f"  qdd = {function_name(program.name, 'mass_matrix')}({mm}) \\ rhs;",
            "end"]) + "\n"
    return files


def usage(program: Program, directory: str) -> str:
    p = "p, " if program.argument else ""
    quoted = directory.replace("'", "''")
    return (f"addpath('{quoted}')   % MATLAB or Octave\n"
            f"tau = {function_name(program.name, 'inverse_dynamics')}({p}q, qd, qdd);")


# -- the compiled kernels ---------------------------------------------------------------------
#: How MATLAB spells a tape's instructions (``rd_pow``: defined in each file that needs it).
KERNEL_SYNTAX = Syntax(lambda x: c_constant(x, "Inf", "NaN"),
                       {"sin": "sin", "cos": "cos", "sqrt": "sqrt", "exp": "exp",
                        "tanh": "tanh"}, "rd_pow",
                       lambda a: f"sign({a})")


def write_kernels(prog: TracedProgram) -> dict[str, str]:
    """The compiled kernels: ``NAME_FUNCTION.m`` per function (MATLAB and Octave): column
    vectors in, a result indexed as in Python (``M(i, j)``; a 3-index result
    ``d(a, i, j)``)."""
    syntax = KERNEL_SYNTAX
    files = {}
    for f in prog.functions:
        fname = function_name(prog.name, f.name)
        name_of = local_names(f)
        out = [prog.comment("matlab").rstrip("\n"),
               f"function {f.output} = {fname}({', '.join(prog.args(f))})",
               f"% {comment_line(f.doc, 'matlab')}"]
        out += [f"  {local} = {arr}({k + 1});" for local, arr, k in f.input_loads()]
        out += [f"  {temp(i)} = {expression(op, name_of, syntax)};" for i, op in f.statements()]
        if not f.shape:
            out.append(f"  {f.output} = {value_text(f, f.outputs[0], syntax)};")
        else:
            dims = list(f.shape) + ([1] if len(f.shape) == 1 else [])
            out.append(f"  {f.output} = zeros({', '.join(map(str, dims))});")
            for k, v in enumerate(f.outputs):
                out.append(f"  {f.output}({', '.join(map(str, unravel(k, f.shape, 1)))}) = "
                           f"{value_text(f, v, syntax)};")
        out.append("end")
        if any(op[0] == "pow" for _, op in f.statements()):
            out += ["", "function y = rd_pow(x, c)",
                    "  % x^c as math.pow: NaN (not a complex number) for x < 0, fractional c",
                    "  if x < 0 && c ~= round(c)", "    y = NaN;", "  else", "    y = x^c;",
                    "  end", "end"]
        files[f"{fname}.m"] = "\n".join(out) + "\n"
    return files


def usage_kernels(name: str, argument: bool, directory: str) -> str:
    """How to put the kernels ``name`` written to ``directory`` on the path and call them."""
    p = "p, " if argument else ""
    return (f"addpath({_matlab_string(directory)})\n"
            f"tau = {function_name(name, 'inverse_dynamics')}({p}q, qd, qdd);")


def _matlab_string(text: str) -> str:
    return "'" + visible(text).replace("'", "''") + "'"
