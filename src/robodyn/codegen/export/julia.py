"""Julia: a module ``NAME`` in ``NAME.jl``; functions of vectors (1-based inside): the
closed forms (:func:`write`) and the compiled kernels (:func:`write_kernels`)."""

from __future__ import annotations

from .base import body, comment, comment_line, julia_string, signature_args
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
from .printers import JuliaPrinter
from .program import Program


def write(program: Program) -> dict[str, str]:
    printer = JuliaPrinter()
    names = [f.name for f in program.functions]
    fd = program.forward_dynamics()
    if fd is not None:
        names.append("forward_dynamics")
    out = [comment(program, "julia").rstrip("\n"), f"module {program.name}", "",
           f"export {', '.join(names)}", "", f"const DOF = {program.dof}"]
    if program.argument:
        out.append("const PARAMETERS = ["
                   + ", ".join(julia_string(str(s)) for s in program.parameters) + "]")
    for f in program.functions:
        rows, cols = f.shape
        b = body(program, f, printer, "julia", set(names) | {program.name, "DOF", "PARAMETERS"})
        out += ["", f'"""{f.description[0].upper()}{f.description[1:]}."""',
                f"function {f.name}({', '.join(signature_args(program, f))})"]
        out += [f"    {local} = {arr}[{i + 1}]" for local, arr, i in b.loads]
        out += [f"    {t} = {e}" for t, e in b.temporaries]
        out.append(f"    {f.output} = zeros({rows})" if f.vector
                   else f"    {f.output} = zeros({rows}, {cols})")
        for (i, j), e in b.entries:
            index = f"{i + 1}" if f.vector else f"{i + 1}, {j + 1}"
            out.append(f"    {f.output}[{index}] = {e}")
        out += [f"    return {f.output}", "end"]
    if fd is not None:
        args = (["p"] if program.argument else []) + list(fd)
        id_args = ", ".join(f"zeros({program.dof})" if a == "tau" else a for a in args)
        mm = "p, q" if program.argument else "q"
        out += ["", '"""Joint accelerations qdd: M(q) qdd = tau - inverse_dynamics(q, qd, 0) '
                'solved with \\\\ (not inverted)."""',
                f"function forward_dynamics({', '.join(args)})",
                f"    return mass_matrix({mm}) \\ (tau - inverse_dynamics({id_args}))", "end"]
    out += ["", f"end # module {program.name}"]
    return {f"{program.name}.jl": "\n".join(out) + "\n"}


def usage(program: Program, directory: str) -> str:
    p = "p, " if program.argument else ""
    return (f"include({julia_string(f'{directory}/{program.name}.jl')})\n"
            f"tau = {program.name}.inverse_dynamics({p}q, qd, qdd)")


# -- the compiled kernels ---------------------------------------------------------------------
#: How Julia spells a tape's instructions (``rd_pow``: defined in the module).
KERNEL_SYNTAX = Syntax(lambda x: c_constant(x, "Inf", "NaN"),
                       {"sin": "sin", "cos": "cos", "sqrt": "sqrt", "exp": "exp",
                        "tanh": "tanh"}, "rd_pow",
                       lambda a: f"sign({a})")


def write_kernels(prog: TracedProgram) -> dict[str, str]:
    """The compiled kernels: ``NAME.jl``, a module of functions on vectors (results
    row-major as Julia arrays: ``M[i, j]``; a 3-index result ``d[a, i, j]``)."""
    name = prog.name
    syntax = KERNEL_SYNTAX
    out = [prog.comment("julia").rstrip("\n"), f"module {name}", "", f"const DOF = {prog.dof}",
           "", "# x^c as math.pow: NaN (not an error) for x < 0 and a fractional c",
           "rd_pow(x, c) = (x < 0 && !isinteger(c)) ? NaN : x^c"]
    if prog.argument:
        out.append("const DEFAULT_PARAMETERS = [" + ", ".join(map(repr, prog.values))
                   + "]" if prog.values else "const DEFAULT_PARAMETERS = Float64[]")
    for f in prog.functions:
        name_of = local_names(f)
        out += ["", f"# {comment_line(f.doc, 'julia')}", f"function {f.name}("
                + ", ".join(prog.args(f)) + ")"]
        out += [f"    {local} = Float64({arr}[{k + 1}])" for local, arr, k in f.input_loads()]
        out += [f"    {temp(i)} = {expression(op, name_of, syntax)}" for i, op in f.statements()]
        if not f.shape:
            out.append(f"    return {value_text(f, f.outputs[0], syntax)}")
        else:
            dims = ", ".join(map(str, f.shape))
            out.append(f"    {f.output} = zeros(Float64, {dims})")
            for k, v in enumerate(f.outputs):
                out.append(f"    {f.output}[{', '.join(map(str, unravel(k, f.shape, 1)))}] = "
                           f"{value_text(f, v, syntax)}")
            out.append(f"    return {f.output}")
        out.append("end")
    out += ["", "end # module"]
    return {f"{name}.jl": "\n".join(out) + "\n"}


def usage_kernels(name: str, argument: bool, directory: str) -> str:
    """How to load and call the kernels ``name`` written to ``directory``."""
    p = "p, " if argument else ""
    return (f"include({directory + '/' + name + '.jl'!r})\n"
            f"tau = {name}.inverse_dynamics({p}q, qd, qdd)")
