"""Julia: a module ``NAME`` in ``NAME.jl``; functions of vectors (1-based inside)."""

from __future__ import annotations

from .base import body, comment, julia_string, signature_args
from .printers import JuliaPrinter
from .program import Program


def write(program: Program) -> dict[str, str]:
    printer = JuliaPrinter()
    names = [f.name for f in program.functions]
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
    out += ["", f"end # module {program.name}"]
    return {f"{program.name}.jl": "\n".join(out) + "\n"}


def usage(program: Program, directory: str) -> str:
    p = "p, " if program.argument else ""
    return (f"include({julia_string(f'{directory}/{program.name}.jl')})\n"
            f"tau = {program.name}.inverse_dynamics({p}q, qd, qdd)")
