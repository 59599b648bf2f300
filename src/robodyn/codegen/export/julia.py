"""Julia: a module ``NAME`` in ``NAME.jl``; functions of vectors (1-based inside)."""

from __future__ import annotations

from .base import body, comment, julia_string, signature_args
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
