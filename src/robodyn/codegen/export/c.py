"""C99 (``NAME.h`` + ``NAME.c``: plain doubles, no allocation) and C++ (``NAME.hpp``:
Eigen fixed-size types, header-only).

C signatures: ``void NAME_inverse_dynamics(const double *q, const double *qd,
const double *qdd, double *tau)``, ``void NAME_mass_matrix(const double *q, double *M)``
(matrices row-major, ``M[i*dof + j]``), ...; with parameters as an argument every function
takes ``const double *p`` first. Every output entry is written (zeros included).
"""

from __future__ import annotations

import shlex

from .base import body, comment, signature_args
from .printers import CppPrinter, CPrinter
from .program import Function, Program


def _c_signature(program: Program, f: Function) -> str:
    args = [f"const double *{a}" for a in signature_args(program, f)]
    return f"void {program.name}_{f.name}({', '.join(args + [f'double *{f.output}'])})"


def _unused(program: Program, f: Function, b) -> list[str]:
    """``(void)x;`` for each argument the body does not read (a constant mass matrix does
    not read ``q``), so that ``-Wall -Wextra -Werror`` compiles the file."""
    read = {arr for _, arr, _ in b.loads}
    return [f"    (void){a};" for a in signature_args(program, f) if a not in read]


def write_c(program: Program) -> dict[str, str]:
    name, n = program.name, program.dof
    guard = f"{name.upper()}_H"
    head = [comment(program, "c").rstrip("\n"), f"#ifndef {guard}",
            f"#define {guard}", "", f"#define {name.upper()}_DOF {n}"]
    if program.argument:
        head.append(f"#define {name.upper()}_N_PARAMETERS {len(program.parameters)}")
        defaults = dict(program.values)
        if program.parameters and all(str(s) in defaults for s in program.parameters):
            head.append(f"/* default values of p, in the order above */\n"
                        f"extern const double {name}_default_parameters"
                        f"[{len(program.parameters)}];")
    head += ["", "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    for f in program.functions:
        head += [f"/* {f.description}; {f.output}: {f.shape[0]} x {f.shape[1]}"
                 + (", row-major" if not f.vector else "") + " */",
                 _c_signature(program, f) + ";"]
    head += ["", "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */"]

    printer = CPrinter()
    src = [comment(program, "c").rstrip("\n"), "#include <math.h>", "",
           f'#include "{name}.h"']
    if program.argument:
        defaults = dict(program.values)
        if program.parameters and all(str(s) in defaults for s in program.parameters):
            src += ["", f"const double {name}_default_parameters[{len(program.parameters)}] = {{"
                    + ", ".join(repr(defaults[str(s)]) for s in program.parameters) + "};"]
    for f in program.functions:
        b = body(program, f, printer, "c", {f"{name}_{g.name}" for g in program.functions})
        rows, cols = f.shape
        written = {i * cols + j: e for (i, j), e in b.entries}
        src += ["", _c_signature(program, f), "{"]
        src += _unused(program, f, b)
        src += [f"    const double {local} = {arr}[{i}];" for local, arr, i in b.loads]
        src += [f"    const double {t} = {e};" for t, e in b.temporaries]
        src += [f"    {f.output}[{k}] = {written.get(k, '0.0')};" for k in range(rows * cols)]
        src += ["}"]
    return {f"{name}.h": "\n".join(head) + "\n", f"{name}.c": "\n".join(src) + "\n"}


def write_cpp(program: Program) -> dict[str, str]:
    name, n = program.name, program.dof
    printer = CppPrinter()
    out = [comment(program, "cpp").rstrip("\n"), "#pragma once", "", "#include <cmath>", "",
           "#include <Eigen/Dense>", "", f"namespace {name} {{", "",
           f"constexpr int dof = {n};", "using Vector = Eigen::Matrix<double, dof, 1>;",
           "using Matrix = Eigen::Matrix<double, dof, dof>;"]
    if program.argument:
        out.append(f"using Parameters = Eigen::Matrix<double, {len(program.parameters)}, 1>;")
    for f in program.functions:
        rows, cols = f.shape
        if f.vector:
            rtype = "Vector"
        elif (rows, cols) == (n, n):
            rtype = "Matrix"
        else:
            rtype = f"Eigen::Matrix<double, {rows}, {cols}>"
        types = {"p": "Parameters", "h_e": "Eigen::Matrix<double, 6, 1>"}
        args = [f"const {types.get(a, 'Vector')} &{a}" for a in signature_args(program, f)]
        b = body(program, f, printer, "cpp", {g.name for g in program.functions})
        out += ["", f"/// {f.description[0].upper()}{f.description[1:]}.",
                f"inline {rtype} {f.name}({', '.join(args)})", "{"]
        out += _unused(program, f, b)
        out += [f"    const double {local} = {arr}({i});" for local, arr, i in b.loads]
        out += [f"    const double {t} = {e};" for t, e in b.temporaries]
        out.append(f"    {rtype} {f.output} = {rtype}::Zero();")
        for (i, j), e in b.entries:
            index = f"{i}" if f.vector else f"{i}, {j}"
            out.append(f"    {f.output}({index}) = {e};")
        out += [f"    return {f.output};", "}"]
    out += ["", f"}}  // namespace {name}"]
    return {f"{name}.hpp": "\n".join(out) + "\n"}


def usage_c(program: Program, directory: str) -> str:
    """How to compile and call the C files in ``directory`` (shell words quoted)."""
    name = program.name
    p = "p, " if program.argument else ""
    source = shlex.quote(f"{directory}/{name}.c")
    return (f"gcc -O2 -std=c99 -c {source} -o {name}.o   # then link {name}.o, "
            f"and -lm\n"
            f'#include "{name}.h"   /* {shlex.quote("-I" + directory)} */\n'
            f"double tau[{name.upper()}_DOF]; {name}_inverse_dynamics({p}q, qd, qdd, tau);\n"
            f"shared library: gcc -O2 -shared -fPIC {source} -o lib{name}.so -lm")


def usage_cpp(program: Program, directory: str) -> str:
    """How to include and call the C++ header in ``directory`` (shell words quoted)."""
    name = program.name
    p = "p, " if program.argument else ""
    return (f'#include "{name}.hpp"   // header-only: g++ -O2 {shlex.quote("-I" + directory)} '
            f"$(pkg-config --cflags eigen3) your.cpp\n"
            f"{name}::Vector tau = {name}::inverse_dynamics({p}q, qd, qdd);")
