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
    fd = program.forward_dynamics()
    if fd is not None:
        signature = _c_fd_signature(program, fd)
        at = len(head) - 1 - head[::-1].index("#ifdef __cplusplus")  # before extern's end
        head[at:at] = ["/* joint accelerations qdd: M(q) qdd = tau - inverse_dynamics(q, qd, 0) "
                       "solved by Gaussian elimination with partial pivoting (NaN if M is "
                       "singular) */", signature + ";", ""]
        src += ["", signature, "{"] + _c_fd_body(program, fd) + ["}"]
    return {f"{name}.h": "\n".join(head) + "\n", f"{name}.c": "\n".join(src) + "\n"}


def _c_fd_signature(program: Program, fd) -> str:
    args = [f"const double *{a}" for a in (["p"] if program.argument else []) + list(fd)]
    return f"void {program.name}_forward_dynamics({', '.join(args + ['double *qdd'])})"


def _c_fd_body(program: Program, fd) -> list[str]:
    """C99: the bias by the inverse dynamics at qdd = 0, then ``M x = rhs`` by Gaussian
    elimination with partial pivoting and back substitution, on stack arrays."""
    name, n = program.name, program.dof
    p = "p, " if program.argument else ""
    id_args = ", ".join(["zero" if a == "tau" else a for a in fd])
    return [
        f"    double M[{n * n}], rhs[{n}], zero[{n}];",
        "    int i, j, k;",
        f"    for (i = 0; i < {n}; ++i) zero[i] = 0.0;",
        f"    {name}_inverse_dynamics({p}{id_args}, rhs);",
        f"    {name}_mass_matrix({p}q, M);",
        f"    for (i = 0; i < {n}; ++i) rhs[i] = tau[i] - rhs[i];",
        f"    for (k = 0; k < {n}; ++k) {{",
        "        int pivot = k;",
        f"        for (i = k + 1; i < {n}; ++i)",
        f"            if (fabs(M[i * {n} + k]) > fabs(M[pivot * {n} + k])) pivot = i;",
        f"        if (M[pivot * {n} + k] == 0.0) {{",
        f"            for (i = 0; i < {n}; ++i) qdd[i] = NAN;",
        "            return;",
        "        }",
        "        if (pivot != k) {",
        f"            for (j = 0; j < {n}; ++j) {{",
        f"                double t = M[k * {n} + j];",
        f"                M[k * {n} + j] = M[pivot * {n} + j];",
        f"                M[pivot * {n} + j] = t;",
        "            }",
        "            { double t = rhs[k]; rhs[k] = rhs[pivot]; rhs[pivot] = t; }",
        "        }",
        f"        for (i = k + 1; i < {n}; ++i) {{",
        f"            double f = M[i * {n} + k] / M[k * {n} + k];",
        f"            for (j = k; j < {n}; ++j) M[i * {n} + j] -= f * M[k * {n} + j];",
        "            rhs[i] -= f * rhs[k];",
        "        }",
        "    }",
        f"    for (i = {n - 1}; i >= 0; --i) {{",
        "        double s = rhs[i];",
        f"        for (j = i + 1; j < {n}; ++j) s -= M[i * {n} + j] * qdd[j];",
        f"        qdd[i] = s / M[i * {n} + i];",
        "    }",
    ]


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
    fd = program.forward_dynamics()
    if fd is not None:
        types = {"p": "Parameters", "h_e": "Eigen::Matrix<double, 6, 1>"}
        names = (["p"] if program.argument else []) + list(fd)
        args = [f"const {types.get(a, 'Vector')} &{a}" for a in names]
        id_args = ", ".join("Vector::Zero()" if a == "tau" else a for a in names)
        mm = "p, q" if program.argument else "q"
        out += ["", "/// Joint accelerations qdd: M(q) qdd = tau - inverse_dynamics(q, qd, 0) "
                "solved (LDLT: M is symmetric positive definite), not inverted.",
                f"inline Vector forward_dynamics({', '.join(args)})", "{",
                f"    return mass_matrix({mm}).ldlt().solve(tau - inverse_dynamics({id_args}));",
                "}"]
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
