"""MATLAB/Octave: one function file per function, ``NAME_inverse_dynamics.m`` etc.
(MATLAB has no modules, so the names carry the model's prefix); vectors are columns,
inputs any vectors of dof numbers."""

from __future__ import annotations

from .base import body, comment, signature_args
from .printers import OctavePrinter
from .program import Program


def write(program: Program) -> dict[str, str]:
    printer = OctavePrinter()
    files = {}
    for f in program.functions:
        fname = f"{program.name}_{f.name}"
        rows, cols = f.shape
        args = signature_args(program, f)
        b = body(program, f, printer, "matlab", {g.name for g in program.functions}
                 | {f"{program.name}_{g.name}" for g in program.functions})
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
        fname = f"{program.name}_forward_dynamics"
        names = (["p"] if program.argument else []) + list(fd)
        id_args = ", ".join(f"zeros({program.dof}, 1)" if a == "tau" else a for a in names)
        mm = "p, q" if program.argument else "q"
        files[f"{fname}.m"] = "\n".join([
            comment(program, "matlab").rstrip("\n"),
            f"function qdd = {fname}({', '.join(names)})",
            f"% {fname.upper()}  Joint accelerations: M(q) qdd = tau - inverse dynamics at "
            "qdd = 0, solved with \\ (not inverted).",
            f"  rhs = tau(:) - {program.name}_inverse_dynamics({id_args});",
            f"  qdd = {program.name}_mass_matrix({mm}) \\ rhs;",
            "end"]) + "\n"
    return files


def usage(program: Program, directory: str) -> str:
    p = "p, " if program.argument else ""
    quoted = directory.replace("'", "''")
    return (f"addpath('{quoted}')   % MATLAB or Octave\n"
            f"tau = {program.name}_inverse_dynamics({p}q, qd, qdd);")
