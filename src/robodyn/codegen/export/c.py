"""C99 (``NAME.h`` + ``NAME.c``: plain doubles, no allocation) and C++ (``NAME.hpp``:
Eigen fixed-size types, header-only): the closed forms (:func:`write_c`,
:func:`write_cpp`) and the compiled kernels (:func:`write_c_kernels`,
:func:`write_cpp_kernels`, long programs split into parts).

C signatures: ``void NAME_inverse_dynamics(const double *q, const double *qd,
const double *qdd, double *tau)``, ``void NAME_mass_matrix(const double *q, double *M)``
(matrices row-major, ``M[i*dof + j]``), ...; with parameters as an argument every function
takes ``const double *p`` first. Every output entry is written (zeros included).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from ..tape import Var
from .base import body, comment, signature_args
from .kernel_program import (
    Syntax,
    TracedFunction,
    TracedProgram,
    c_constant,
    expression,
    shape_text,
    temp,
    ternary_sign,
)
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
    if program.nq:  # q holds quaternions: more values than the velocities
        head.append(f"#define {name.upper()}_NQ {program.nq}")
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
    if program.nq:  # q holds quaternions: more values than the velocities
        out += [f"constexpr int nq = {program.nq};",
                "using Configuration = Eigen::Matrix<double, nq, 1>;"]
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
        types = {"p": "Parameters", "h_e": "Eigen::Matrix<double, 6, 1>",
                 "q": "Configuration" if program.nq else "Vector"}
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
        types = {"p": "Parameters", "h_e": "Eigen::Matrix<double, 6, 1>",
                 "q": "Configuration" if program.nq else "Vector"}
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


# -- the compiled kernels ---------------------------------------------------------------------
#: How C and C++ spell a tape's instructions.
KERNEL_SYNTAX = {
    "c": Syntax(c_constant, {"sin": "sin", "cos": "cos", "sqrt": "sqrt", "exp": "exp",
                             "tanh": "tanh"}, "pow", ternary_sign),
    "cpp": Syntax(c_constant, {"sin": "std::sin", "cos": "std::cos", "sqrt": "std::sqrt",
                               "exp": "std::exp", "tanh": "std::tanh"},
                  "std::pow", ternary_sign),
}


def _kernel_signature(prog: TracedProgram, f: TracedFunction) -> str:
    args = [f"const double *{a}" for a in prog.args(f)]
    return f"void {prog.name}_{f.name}({', '.join(args + [f'double *{f.output}'])})"


#: Statements per part of a long C or C++ program. gcc's time on one straight-line block
#: grows faster than its length (the Panda's forward-dynamics derivatives, 11 000
#: statements, took 11 s in one function, less than half of that in parts); values a later
#: part needs pass through a scratch array on the stack.
PART = 1000
#: The step between the scratch slots of consecutive stored values (:func:`_scattered`).
SCRATCH_STRIDE = 97


@dataclass(frozen=True)
class Part:
    """A run of statements of one function: ``statements`` ``(index, op)``, ``inputs``
    ``(local, array, index)`` it reads, ``read`` the argument arrays it reads."""

    statements: list
    inputs: list
    read: set


def split(f: TracedFunction, size: int | None = None
          ) -> tuple[list[Part], dict[int, int], dict]:
    """``f``'s statements in parts of at most ``size`` (default :data:`PART`); ``slots``:
    value -> index in the scratch array of each value used after its part (all outputs
    when there are several parts); ``part_of``: value -> its part."""
    size = PART if size is None else size
    stmts = f.statements()
    ops = f.tape.ops
    chunks = [stmts[k:k + size] for k in range(0, len(stmts), size)] or [[]]
    part_of = {i: c for c, chunk in enumerate(chunks) for i, _ in chunk}
    slots: dict[int, int] = {}
    parts = []
    for c, chunk in enumerate(chunks):
        inputs: dict[int, tuple] = {}
        for _, op in chunk:
            for a in op[1:]:
                if isinstance(a, tuple) and a[0] == "v":
                    v = a[1]
                    if ops[v][0] == "in":
                        name = ops[v][1]
                        array = name.rstrip("0123456789")
                        inputs[v] = (name, array, int(name[len(array):]))
                    elif part_of[v] < c and v not in slots:
                        slots[v] = len(slots)
        parts.append(Part(chunk, [inputs[v] for v in sorted(inputs)],
                          {t[1] for t in inputs.values()}))
    if len(chunks) > 1:
        for out in f.outputs:
            if isinstance(out, Var) and ops[out.i][0] != "in" and out.i not in slots:
                slots[out.i] = len(slots)
    return parts, _scattered(slots), part_of


def _scattered(slots: dict[int, int]) -> dict[int, int]:
    """The scratch slots renumbered ``k -> k * STRIDE mod n`` (``STRIDE`` made prime to
    ``n``): values stored one after the other no longer land side by side, so gcc's SLP
    vectoriser does not pack unrelated stores into vector registers, which cost the Panda's
    ID derivatives 4 % at -O2 and -O3 (bench_export.py)."""
    n = len(slots)
    if n < 2:
        return slots
    stride = SCRATCH_STRIDE
    while math.gcd(stride, n) != 1:  # a few steps at most
        stride += 1
    return {v: (k * stride) % n for v, k in slots.items()}


def _c_like(prog: TracedProgram, f: TracedFunction, lang: str, load: str, part_head: str,
            call: str) -> tuple[list[str], list[str], Callable]:
    """The parts (helper functions, empty for a short program) and the main body of
    ``f`` in C or C++, and ``value(out)``: the text of an output in the main body.
    ``load`` formats an input read (``"{a}[{k}]"``), ``part_head`` a part's signature
    (``{n}``: its number), ``call`` a call of part ``{n}``."""
    syntax = KERNEL_SYNTAX[lang]
    ops = f.tape.ops
    parts, slots, part_of = split(f)
    args = prog.args(f)

    def statements(part: Part, c: int, indent: str) -> list[str]:
        def ref(v):
            if ops[v][0] == "in":
                return ops[v][1]
            return temp(v) if part_of[v] == c else f"w[{slots[v]}]"

        lines = [f"{indent}(void){a};" for a in args if a not in part.read]
        lines += [f"{indent}const double {local} = {load.format(a=arr, k=k)};"
                  for local, arr, k in part.inputs]
        for i, op in part.statements:
            lines.append(f"{indent}const double {temp(i)} = {expression(op, ref, syntax)};")
            if i in slots:
                lines.append(f"{indent}w[{slots[i]}] = {temp(i)};")
        return lines

    def value(out) -> str:
        if not isinstance(out, Var):
            return syntax.const(float(out))
        op = ops[out.i]
        if op[0] == "in":
            array = op[1].rstrip("0123456789")
            return load.format(a=array, k=int(op[1][len(array):]))
        return f"w[{slots[out.i]}]" if len(parts) > 1 else temp(out.i)

    if len(parts) == 1:
        part = parts[0]
        read = part.read | {ops[o.i][1].rstrip("0123456789") for o in f.outputs
                            if isinstance(o, Var) and ops[o.i][0] == "in"}
        body = statements(Part(part.statements, part.inputs, read), 0, "    ")
        return [], body, value
    helpers = []
    for c, part in enumerate(parts):
        helpers += ["", part_head.format(n=c), "{", "    (void)w;",
                    *statements(part, c, "    "), "}"]
    body = [f"    double w[{max(1, len(slots))}];"]
    body += [f"    {call.format(n=c)};" for c in range(len(parts))]
    return helpers, body, value


def write_c_kernels(prog: TracedProgram) -> dict[str, str]:
    """The compiled kernels: ``NAME.h`` (prototypes) and ``NAME.c``: C99, no allocation,
    only ``<math.h>``."""
    name = prog.name
    guard = f"{name.upper()}_KERNELS_H"
    head = [prog.comment("c").rstrip("\n"), f"#ifndef {guard}", f"#define {guard}", "",
            f"#define {name.upper()}_DOF {prog.dof}"]
    if prog.nq is not None:
        head.append(f"#define {name.upper()}_NQ {prog.nq}")
    if prog.argument:
        head += [f"#define {name.upper()}_N_PARAMETERS {len(prog.parameters)}",
                 "/* default values of p, in the order above */",
                 f"extern const double {name}_default_parameters"
                 f"[{max(1, len(prog.parameters))}];"]
    head += ["", "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    for f in prog.functions:
        head += [f"/* {f.output}: {shape_text(f.shape)}, row-major */",
                 _kernel_signature(prog, f) + ";"]
    head += ["", "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */"]
    src = [prog.comment("c").rstrip("\n"), "#include <math.h>", "", f'#include "{name}.h"']
    if prog.argument:
        values = ", ".join(repr(v) for v in prog.values) or "0.0"
        src += ["", f"const double {name}_default_parameters[{max(1, len(prog.parameters))}] = "
                f"{{{values}}};"]
    for f in prog.functions:
        args = prog.args(f)
        params = ", ".join(f"const double *{a}" for a in args)
        part = f"{name}_{f.name}_part{{n}}"
        helpers, body, value = _c_like(
            prog, f, "c", "{a}[{k}]", f"static void {part}({params}, double *w)",
            f"{part}({', '.join([*args, 'w'])})")
        src += helpers
        src += ["", _kernel_signature(prog, f), "{", *body]
        src += [f"    {f.output}[{k}] = {value(out)};" for k, out in enumerate(f.outputs)]
        src.append("}")
    return {f"{name}.h": "\n".join(head) + "\n", f"{name}.c": "\n".join(src) + "\n"}


def _cpp_type(shape: tuple[int, ...]) -> str:
    if not shape:
        return "double"
    if len(shape) == 1:
        return f"Eigen::Matrix<double, {shape[0]}, 1>"
    if len(shape) == 2:
        return f"Eigen::Matrix<double, {shape[0]}, {shape[1]}>"
    return f"std::array<{_cpp_type(shape[1:])}, {shape[0]}>"


def _cpp_index(shape: tuple[int, ...], k: int) -> str:
    if not shape:
        return ""
    idx = []
    for extent in reversed(shape):
        idx.append(k % extent)
        k //= extent
    idx.reverse()
    if len(shape) == 1:
        return f"({idx[0]})"
    if len(shape) == 2:
        return f"({idx[0]}, {idx[1]})"
    return "".join(f"[{i}]" for i in idx[:-2]) + f"({idx[-2]}, {idx[-1]})"


def write_cpp_kernels(prog: TracedProgram) -> dict[str, str]:
    """The compiled kernels: ``NAME.hpp``, header-only C++, ``Eigen::Matrix`` arguments and
    results in namespace ``NAME`` (a 3-index result is a ``std::array`` of matrices)."""
    name = prog.name
    out = [prog.comment("cpp").rstrip("\n"), "#pragma once", "", "#include <array>",
           "#include <cmath>", "", "#include <Eigen/Core>", "", f"namespace {name} {{", "",
           f"constexpr int dof = {prog.dof};",
           *([f"constexpr int nq = {prog.nq};"] if prog.nq is not None else [])]
    if prog.argument:
        out += [f"constexpr int n_parameters = {len(prog.parameters)};",
                f"using Parameters = Eigen::Matrix<double, {len(prog.parameters)}, 1>;",
                "/// The default values of p, in the order of the header.",
                "inline Parameters default_parameters()", "{", "    Parameters p;"]
        out += [f"    p({i}) = {c_constant(v)};" for i, v in enumerate(prog.values)]
        out += ["    return p;", "}"]
    for f in prog.functions:
        widths = prog.widths(f)
        arg_list = prog.args(f)
        args = ", ".join(f"const Eigen::Matrix<double, {widths[a]}, 1> &{a}" for a in arg_list)
        rtype = _cpp_type(f.shape)
        part = f"{f.name}_part{{n}}"
        helpers, body, value = _c_like(
            prog, f, "cpp", "{a}({k})", f"inline void {part}({args}, double *w)",
            f"detail::{part}({', '.join([*arg_list, 'w'])})")
        if helpers:
            out += ["", "namespace detail {", *helpers, "", "}  // namespace detail"]
        out += ["", f"/// {f.doc}", f"inline {rtype} {f.name}({args})", "{", *body]
        if not f.shape:
            out.append(f"    return {value(f.outputs[0])};")
        else:
            out.append(f"    {rtype} {f.output};")
            out += [f"    {f.output}{_cpp_index(f.shape, k)} = {value(v)};"
                    for k, v in enumerate(f.outputs)]
            out.append(f"    return {f.output};")
        out.append("}")
    out += ["", f"}}  // namespace {name}"]
    return {f"{name}.hpp": "\n".join(out) + "\n"}


def usage_c_kernels(name: str, argument: bool, directory: str) -> str:
    """How to compile and call the C kernels ``name`` written to ``directory`` (shell words
    quoted)."""
    p = "p, " if argument else ""
    d = shlex.quote(directory)
    return (f"gcc -O2 -std=c99 -I{d} -c {shlex.quote(f'{directory}/{name}.c')} "
            f"-o {name}.o   # then link it, and -lm\n"
            f"double tau[{name.upper()}_DOF]; {name}_inverse_dynamics({p}q, qd, "
            "qdd, tau);")


def usage_cpp_kernels(name: str, argument: bool, directory: str) -> str:
    """How to include and call the C++ kernels ``name`` written to ``directory``."""
    p = "p, " if argument else ""
    d = shlex.quote(directory)
    return (f'#include "{name}.hpp"   // g++ -O2 -I{d} -I/usr/include/eigen3\n'
            f"auto tau = {name}::inverse_dynamics({p}q, qd, qdd);")
