"""The compiled kernels as standalone source: the traced straight-line programs of
:mod:`robodyn.codegen.kernel` printed in C, C++, Python (NumPy), Java, Julia and MATLAB.

The closed forms (:func:`robodyn.codegen.export.export_code`) are for reading; these are
for running. Every entry of :data:`~robodyn.dynamics.registry.KERNELS` (inverse and
forward dynamics, the mass, Coriolis and gravity terms, kinematics, energies, the
regressor, the derivatives, the ``h_e`` variants) is traced once on the model's chain
(:func:`robodyn.codegen.trace.trace`: constants folded, common subexpressions shared)
and its live instructions printed one statement each, so the exported code computes
exactly what robodyn's own kernels compute, in the same order of operations (a forward
dynamics is the traced articulated-body / Cholesky program: straight-line, no solver).

Names: the functions are the registry's (``NAME_inverse_dynamics`` in C, where ``NAME``
is :func:`~.program.identifier` of the model name or the ``name`` given); the arguments
are ``p`` (parameter mode ``argument``: the model's parameters in the order of
``robot.runner.parameter_names``), then the registry's inputs ``q, qd, qdd, tau, h_e``;
results are row-major, named as the registry entry's ``output`` (``tau``, ``M``, ``T_0e``,
``Jdot``). No user text reaches the code except through the header
comment, escaped for each language (:func:`.base.comment_line`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...core.errors import InputError
from ...core.version import VERSION
from ...dynamics.registry import KERNELS, input_width
from ...model.names import MARKER, visible
from ..emit import live_ops
from .base import COMMENTS, comment_line
from .program import IDENTIFIER_CHARS, identifier, reserved

PARAMETER_MODES = ("baked", "argument")
LANGUAGES = ("c", "cpp", "python", "java", "julia", "matlab")
_ALIASES = {"c++": "cpp", "cxx": "cpp", "octave": "matlab", "numpy": "python", "py": "python",
            "jl": "julia", "m": "matlab"}
_MAX_MODEL_CHARS = 120


@dataclass(frozen=True)
class TracedFunction:
    """One kernel: ``name(inputs...) -> output`` of ``shape``; ``tape`` and ``outputs``
    (row-major tape values or constants) are its traced program."""

    name: str
    doc: str
    inputs: tuple[tuple[str, int], ...]
    output: str
    shape: tuple[int, ...]
    tape: object
    outputs: tuple

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def statements(self) -> list[tuple[int, tuple]]:
        """``(index, op)`` of the live instructions that are not inputs, in order."""
        live = live_ops(self.tape, self.outputs)
        return [(i, op) for i, op in enumerate(self.tape.ops) if live[i] and op[0] != "in"]

    def read(self) -> set[str]:
        """The input arrays (``q``, ``p``, ...) the program reads."""
        live = live_ops(self.tape, self.outputs)
        return {op[1].rstrip("0123456789") for i, op in enumerate(self.tape.ops)
                if live[i] and op[0] == "in"}

    def input_loads(self) -> list[tuple[str, str, int]]:
        """``(local, array, index)`` of each live input instruction (``q3`` from ``q[3]``)."""
        live = live_ops(self.tape, self.outputs)
        out = []
        for i, op in enumerate(self.tape.ops):
            if live[i] and op[0] == "in":
                array = op[1].rstrip("0123456789")
                out.append((op[1], array, int(op[1][len(array):])))
        return out


@dataclass(frozen=True)
class TracedProgram:
    """The kernels of one model, ready to print."""

    name: str
    model: str
    origin: str
    dof: int
    argument: bool
    parameters: tuple[str, ...]
    values: tuple[float, ...]
    functions: tuple[TracedFunction, ...]

    def header_lines(self, lang: str) -> list[str]:
        """The header comment (no comment markers, user text not yet escaped)."""
        model = self.model
        if len(model) > _MAX_MODEL_CHARS:
            model = f"{model[:_MAX_MODEL_CHARS]}... ({len(model):,} characters)"
        lines = [MARKER,
                 f"Compiled kernels of robodyn {VERSION} (traced straight-line programs); "
                 "regenerate with robodyn export rather than edit.",
                 f"Model: '{model}' ({self.dof} joints); {self.origin}.",
                 "Arrays: joint vectors have dof entries, h_e 6 (force, moment); results are "
                 "row-major" + (" (M[i*dof + j])." if lang in ("c", "java") else ".")]
        if self.argument:
            lines.append(f"Parameters: every function takes p first, {len(self.parameters)} "
                         "entries in this order (default values):")
            lines += [f"  p[{i}] = {n} (default {v!r})"
                      for i, (n, v) in enumerate(zip(self.parameters, self.values))]
        elif self.parameters:
            lines.append("Parameters baked in: " + ", ".join(
                f"{n} = {v!r}" for n, v in zip(self.parameters, self.values)) + ".")
        else:
            lines.append("Parameters: none (the model holds numbers only).")
        for f in self.functions:
            args = ", ".join((["p"] if self.argument else []) + [a for a, _ in f.inputs])
            lines.append(f"{f.name}({args}) -> {f.output} {shape_text(f.shape)}: {f.doc}")
        return [visible(line) for line in lines]

    def comment(self, lang: str) -> str:
        start, middle, end = COMMENTS[lang]
        lines = [f"{middle} {comment_line(line, lang)}".rstrip()
                 for line in self.header_lines(lang)]
        return "\n".join(([start] if start else []) + lines + ([end] if end else [])) + "\n"

    def args(self, f: TracedFunction) -> list[str]:
        return (["p"] if self.argument else []) + [a for a, _ in f.inputs]

    def widths(self, f: TracedFunction) -> dict[str, int]:
        return {"p": len(self.parameters), **dict(f.inputs)}


def shape_text(shape: Sequence[int]) -> str:
    return "(scalar)" if not shape else "(" + " x ".join(map(str, shape)) + ")"


def language(lang) -> str:
    """The canonical name of ``lang`` (``"C++"`` -> ``"cpp"``), or an InputError."""
    key = str(lang).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise InputError(f"lang: {str(lang)[:40]!r} is not a language of the compiled export; "
                         f"use one of {', '.join(LANGUAGES)} (mathematica: the closed forms, "
                         "eq.to_code)")
    return key


def check_functions(functions, where: str = "") -> tuple[str, ...]:
    """The registry entries ``functions`` selects (``None``: all, in the registry's order; a
    name or a sequence of names), each once, or an :class:`InputError` (prefixed with
    ``where``) listing the names of the registry."""
    at = f"{where}: " if where else ""
    if functions is None:
        return tuple(KERNELS)
    if isinstance(functions, str):
        functions = (functions,)
    try:
        names = tuple(functions)
    except TypeError:
        raise InputError(f"{at}functions: expected a name or a list of names of "
                         f"{', '.join(KERNELS)}, got {type(functions).__name__}") from None
    if not names:
        raise InputError(f"{at}functions: empty; give at least one name, or None for all")
    for name in names:
        if not isinstance(name, str) or name not in KERNELS:
            raise InputError(f"{at}functions: {str(name)[:80]!r} is not a function; use "
                             f"names of {', '.join(KERNELS)}")
    return tuple(dict.fromkeys(names))


def build(robot, functions=None, parameters: str = "baked", name: str | None = None
          ) -> TracedProgram:
    """Trace the kernels ``functions`` (``None``: every registry entry) of ``robot``."""
    from ..trace import trace

    if parameters not in PARAMETER_MODES:
        raise InputError(f"parameters: {str(parameters)[:40]!r} is not a mode; use 'baked' "
                         "(numbers in the code) or 'argument' (a vector p)")
    names = check_functions(functions)
    cname = identifier(name if name is not None else robot.name)
    if name is not None and cname != str(name):
        what = ("is reserved in a target language" if reserved(str(name))
                else "is not an identifier (ASCII letters, digits, _, starting with a letter, "
                f"at most {IDENTIFIER_CHARS} characters)")
        raise InputError(f"name: {str(name)[:80]!r} {what}; e.g. {cname!r}")
    runner = robot.runner
    values = tuple(float(v) for v in runner.parameter_values)  # checks the model's numbers
    params = runner.parameter_names
    argument = parameters == "argument"
    chain = robot.chain if argument else runner.numeric_chain
    traced = []
    for kind in names:
        spec = KERNELS[kind]
        tape, groups, outputs = trace(chain, spec, params if argument else ())
        traced.append(TracedFunction(kind, spec.doc, tuple(groups), spec.output,
                                     tuple(spec.shape(robot.dof)), tape, tuple(outputs)))
    if robot.convention:
        origin = f"geometry from a {robot.convention} DH table"
    else:
        origin = "no DH table (frames from a URDF or explicit joints)"
    if robot.source and robot.source != robot.name:
        origin += f"; loaded from {robot.source}"
    if getattr(robot, "locked", ()):
        origin += "; locked joints (held at 0): " + ", ".join(robot.locked)
    return TracedProgram(cname, str(robot.name), origin, robot.dof, argument, tuple(params),
                         values, tuple(traced))


# -- expressions --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Syntax:
    """How a language spells the instructions of a tape."""

    const: Callable[[float], str]
    calls: dict[str, str]          # sin, cos, sqrt -> function name
    pow: str                       # a function of two arguments
    sign: Callable[[str], str]


def _c_const(x: float, inf: str = "INFINITY", nan: str = "NAN") -> str:
    if math.isnan(x):
        return nan
    if math.isinf(x):
        return inf if x > 0 else f"(-{inf})"
    text = repr(float(x))
    return f"({text})" if x < 0 or text.startswith("-") else text


def _py_const(x: float) -> str:
    if math.isnan(x) or math.isinf(x):
        return f"float('{x!r}')"
    text = repr(float(x))
    return f"({text})" if text.startswith("-") else text


def _ternary_sign(a: str) -> str:  # sign(x), keeping 0, -0 and NaN as x (as np.sign)
    return f"({a} > 0.0 ? 1.0 : ({a} < 0.0 ? -1.0 : {a}))"


SYNTAX = {
    "c": Syntax(_c_const, {"sin": "sin", "cos": "cos", "sqrt": "sqrt"}, "pow", _ternary_sign),
    "cpp": Syntax(_c_const, {"sin": "std::sin", "cos": "std::cos", "sqrt": "std::sqrt"},
                  "std::pow", _ternary_sign),
    "java": Syntax(lambda x: _c_const(x, "Double.POSITIVE_INFINITY", "Double.NaN"),
                   {"sin": "Math.sin", "cos": "Math.cos", "sqrt": "Math.sqrt"}, "Math.pow",
                   _ternary_sign),
    "python": Syntax(_py_const, {"sin": "np.sin", "cos": "np.cos", "sqrt": "np.sqrt"},
                     "np.power", lambda a: f"np.sign({a})"),
    "julia": Syntax(lambda x: _c_const(x, "Inf", "NaN"), {"sin": "sin", "cos": "cos",
                    "sqrt": "sqrt"}, "rd_pow", lambda a: f"sign({a})"),
    "matlab": Syntax(lambda x: _c_const(x, "Inf", "NaN"), {"sin": "sin", "cos": "cos",
                     "sqrt": "sqrt"}, "rd_pow", lambda a: f"sign({a})"),
}
_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def expression(op: tuple, name: Callable[[int], str], syntax: Syntax) -> str:
    """The text of tape instruction ``op``; ``name(i)`` names value ``i``."""
    def arg(a):
        return name(a[1]) if a[0] == "v" else syntax.const(a[1])

    kind = op[0]
    if kind in _BINARY:
        return f"{arg(op[1])} {_BINARY[kind]} {arg(op[2])}"
    if kind == "neg":
        return f"-{arg(op[1])}"
    if kind == "sign":
        return syntax.sign(arg(op[1]))
    if kind == "pow":  # math.pow: NaN for a negative base and a fractional exponent
        return f"{syntax.pow}({arg(op[1])}, {arg(op[2])})"
    return f"{syntax.calls[kind]}({arg(op[1])})"


# -- writers ------------------------------------------------------------------------------------
def _temp(i: int) -> str:
    return f"t{i}"


def _name_of(f: TracedFunction) -> Callable[[int], str]:
    ops = f.tape.ops

    def name(i: int) -> str:
        op = ops[i]
        return op[1] if op[0] == "in" else _temp(i)

    return name


def _value(f: TracedFunction, out, syntax: Syntax) -> str:
    from ..tape import Var

    return _name_of(f)(out.i) if isinstance(out, Var) else syntax.const(float(out))


def _c_signature(prog: TracedProgram, f: TracedFunction) -> str:
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
    from ..tape import Var

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
    from ..tape import Var

    syntax = SYNTAX[lang]
    ops = f.tape.ops
    parts, slots, part_of = split(f)
    args = prog.args(f)

    def statements(part: Part, c: int, indent: str) -> list[str]:
        def ref(v):
            if ops[v][0] == "in":
                return ops[v][1]
            return _temp(v) if part_of[v] == c else f"w[{slots[v]}]"

        lines = [f"{indent}(void){a};" for a in args if a not in part.read]
        lines += [f"{indent}const double {local} = {load.format(a=arr, k=k)};"
                  for local, arr, k in part.inputs]
        for i, op in part.statements:
            lines.append(f"{indent}const double {_temp(i)} = {expression(op, ref, syntax)};")
            if i in slots:
                lines.append(f"{indent}w[{slots[i]}] = {_temp(i)};")
        return lines

    def value(out) -> str:
        if not isinstance(out, Var):
            return syntax.const(float(out))
        op = ops[out.i]
        if op[0] == "in":
            array = op[1].rstrip("0123456789")
            return load.format(a=array, k=int(op[1][len(array):]))
        return f"w[{slots[out.i]}]" if len(parts) > 1 else _temp(out.i)

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


def write_c(prog: TracedProgram) -> dict[str, str]:
    """``NAME.h`` (prototypes) and ``NAME.c``: C99, no allocation, only ``<math.h>``."""
    name = prog.name
    guard = f"{name.upper()}_KERNELS_H"
    head = [prog.comment("c").rstrip("\n"), f"#ifndef {guard}", f"#define {guard}", "",
            f"#define {name.upper()}_DOF {prog.dof}"]
    if prog.argument:
        head += [f"#define {name.upper()}_N_PARAMETERS {len(prog.parameters)}",
                 "/* default values of p, in the order above */",
                 f"extern const double {name}_default_parameters"
                 f"[{max(1, len(prog.parameters))}];"]
    head += ["", "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    for f in prog.functions:
        head += [f"/* {f.output}: {shape_text(f.shape)}, row-major */", _c_signature(prog, f) + ";"]
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
        src += ["", _c_signature(prog, f), "{", *body]
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


def write_cpp(prog: TracedProgram) -> dict[str, str]:
    """``NAME.hpp``: header-only C++, ``Eigen::Matrix`` arguments and results in namespace
    ``NAME`` (a 3-index result is a ``std::array`` of matrices)."""
    name = prog.name
    out = [prog.comment("cpp").rstrip("\n"), "#pragma once", "", "#include <array>",
           "#include <cmath>", "", "#include <Eigen/Core>", "", f"namespace {name} {{", "",
           f"constexpr int dof = {prog.dof};"]
    if prog.argument:
        out += [f"constexpr int n_parameters = {len(prog.parameters)};",
                f"using Parameters = Eigen::Matrix<double, {len(prog.parameters)}, 1>;",
                "/// The default values of p, in the order of the header.",
                "inline Parameters default_parameters()", "{", "    Parameters p;"]
        out += [f"    p({i}) = {_c_const(v)};" for i, v in enumerate(prog.values)]
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


def write_python(prog: TracedProgram) -> dict[str, str]:
    """``NAME.py``: NumPy functions batched over leading axes (``q`` of shape
    ``(..., dof)`` gives ``tau`` of shape ``(..., dof)``; the inputs broadcast)."""
    out = [prog.comment("python").rstrip("\n"), '"""Compiled kernels of a robodyn model '
           '(see the header)."""', "", "import numpy as np", "", f"DOF = {prog.dof}"]
    if prog.argument:
        out += ["PARAMETERS = (" + "".join(f"{n!r}, " for n in prog.parameters) + ")",
                "DEFAULT_PARAMETERS = np.array([" + ", ".join(map(repr, prog.values)) + "])"]
    out += ["", "", "def _inputs(**arrays):",
            '    """The arrays as float64, checked for their last axis, and the batch shape."""',
            "    out = {}",
            "    for key, (value, width) in arrays.items():",
            "        a = np.asarray(value, dtype=float)",
            "        if a.ndim == 0 or a.shape[-1] != width:",
            "            raise ValueError(f'{key}: expected shape (..., {width}), got {a.shape}')",
            "        out[key] = a",
            "    return out, np.broadcast_shapes(*(a.shape[:-1] for a in out.values()))"]
    syntax = SYNTAX["python"]
    for f in prog.functions:
        widths = prog.widths(f)
        args = prog.args(f)
        out += ["", "", f"def {f.name}({', '.join(args)}):",
                f'    """{f.doc}: {f.output} of shape (...{"".join(f", {s}" for s in f.shape)})'
                '."""',
                "    _a, _batch = _inputs(" + ", ".join(f"{a}=({a}, {widths[a]})" for a in args)
                + ")"]
        out += [f"    {local} = _a[{arr!r}][..., {k}]" for local, arr, k in f.input_loads()]
        names, statements = _allocate(f)
        out += statements
        out.append(f"    {f.output} = np.empty(_batch + {tuple(f.shape)!r})")
        flat = f"{f.output}.reshape(_batch + ({f.size},))" if len(f.shape) != 1 else f.output
        if len(f.shape) != 1:
            out.append(f"    _flat = {flat}")
            target = "_flat"
        else:
            target = f.output
        for k, v in enumerate(f.outputs):
            value = names.get(getattr(v, "i", None)) or _value(f, v, syntax)
            out.append(f"    {target}[..., {k}] = {value}")
        if f.shape:
            out.append(f"    return {f.output}")
        else:
            out.append(f"    return {f.output}.reshape(_batch)")
    return {f"{prog.name}.py": "\n".join(out) + "\n"}


def _allocate(f: TracedFunction) -> tuple[dict[int, str], list[str]]:
    """Value -> local name and the statements, temporaries renamed by liveness (few arrays
    alive at once in a large batch)."""
    from ..tape import Var

    stmts = f.statements()
    ops = f.tape.ops
    last: dict[int, int] = {}
    for i, op in stmts:
        for a in op[1:]:
            if isinstance(a, tuple) and a[0] == "v":
                last[a[1]] = i
    keep = {o.i for o in f.outputs if isinstance(o, Var)}
    dying: dict[int, list[int]] = {}
    for v, i in last.items():
        if v not in keep and ops[v][0] != "in":
            dying.setdefault(i, []).append(v)
    names: dict[int, str] = {i: op[1] for i, op in enumerate(ops) if op[0] == "in"}
    free: list[str] = []
    lines = []
    count = 0
    for i, op in stmts:
        expr = expression(op, names.__getitem__, SYNTAX["python"])
        free += [names[v] for v in dying.get(i, ())]
        if free:
            target = free.pop()
        else:
            target = f"t{count}"
            count += 1
        names[i] = target
        lines.append(f"    {target} = {expr}")
    return names, lines


# -- Java: methods split in parts (the JVM limits a method to 64 kB of bytecode) -----------------
_JAVA_PART = 1500


def write_java(prog: TracedProgram) -> dict[str, str]:
    """``NAME.java``: a class of static methods on ``double[]`` (results flat, row-major);
    long programs run in private parts over a scratch array, as a method's bytecode is
    limited to 64 kB."""
    name = prog.name
    syntax = SYNTAX["java"]
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


def _one_based(f: TracedFunction, lang: str) -> Callable[[int], str]:
    ops = f.tape.ops

    def name(i):
        op = ops[i]
        return op[1] if op[0] == "in" else _temp(i)

    return name


def write_julia(prog: TracedProgram) -> dict[str, str]:
    """``NAME.jl``: a module of functions on vectors (results row-major as Julia arrays:
    ``M[i, j]``; a 3-index result ``d[a, i, j]``)."""
    name = prog.name
    syntax = SYNTAX["julia"]
    out = [prog.comment("julia").rstrip("\n"), f"module {name}", "", f"const DOF = {prog.dof}",
           "", "# x^c as math.pow: NaN (not an error) for x < 0 and a fractional c",
           "rd_pow(x, c) = (x < 0 && !isinteger(c)) ? NaN : x^c"]
    if prog.argument:
        out.append("const DEFAULT_PARAMETERS = [" + ", ".join(map(repr, prog.values))
                   + "]" if prog.values else "const DEFAULT_PARAMETERS = Float64[]")
    for f in prog.functions:
        name_of = _one_based(f, "julia")
        out += ["", f"# {comment_line(f.doc, 'julia')}", f"function {f.name}("
                + ", ".join(prog.args(f)) + ")"]
        out += [f"    {local} = Float64({arr}[{k + 1}])" for local, arr, k in f.input_loads()]
        out += [f"    {_temp(i)} = {expression(op, name_of, syntax)}" for i, op in f.statements()]
        if not f.shape:
            out.append(f"    return {_value(f, f.outputs[0], syntax)}")
        else:
            dims = ", ".join(map(str, f.shape))
            out.append(f"    {f.output} = zeros(Float64, {dims})")
            for k, v in enumerate(f.outputs):
                out.append(f"    {f.output}[{', '.join(map(str, _unravel(k, f.shape, 1)))}] = "
                           f"{_value(f, v, syntax)}")
            out.append(f"    return {f.output}")
        out.append("end")
    out += ["", "end # module"]
    return {f"{name}.jl": "\n".join(out) + "\n"}


def _unravel(k: int, shape: tuple[int, ...], base: int) -> list[int]:
    idx = []
    for extent in reversed(shape):
        idx.append(k % extent + base)
        k //= extent
    return idx[::-1]


def write_matlab(prog: TracedProgram) -> dict[str, str]:
    """``NAME_FUNCTION.m`` per function (MATLAB and Octave): column vectors in, a result
    indexed as in Python (``M(i, j)``; a 3-index result ``d(a, i, j)``)."""
    syntax = SYNTAX["matlab"]
    files = {}
    for f in prog.functions:
        fname = f"{prog.name}_{f.name}"
        name_of = _one_based(f, "matlab")
        out = [prog.comment("matlab").rstrip("\n"),
               f"function {f.output} = {fname}({', '.join(prog.args(f))})",
               f"% {comment_line(f.doc, 'matlab')}"]
        out += [f"  {local} = {arr}({k + 1});" for local, arr, k in f.input_loads()]
        out += [f"  {_temp(i)} = {expression(op, name_of, syntax)};" for i, op in f.statements()]
        if not f.shape:
            out.append(f"  {f.output} = {_value(f, f.outputs[0], syntax)};")
        else:
            dims = list(f.shape) + ([1] if len(f.shape) == 1 else [])
            out.append(f"  {f.output} = zeros({', '.join(map(str, dims))});")
            for k, v in enumerate(f.outputs):
                out.append(f"  {f.output}({', '.join(map(str, _unravel(k, f.shape, 1)))}) = "
                           f"{_value(f, v, syntax)};")
        out.append("end")
        if any(op[0] == "pow" for _, op in f.statements()):
            out += ["", "function y = rd_pow(x, c)",
                    "  % x^c as math.pow: NaN (not a complex number) for x < 0, fractional c",
                    "  if x < 0 && c ~= round(c)", "    y = NaN;", "  else", "    y = x^c;",
                    "  end", "end"]
        files[f"{fname}.m"] = "\n".join(out) + "\n"
    return files


WRITERS = {"c": write_c, "cpp": write_cpp, "python": write_python, "java": write_java,
           "julia": write_julia, "matlab": write_matlab}


def to_code(robot, lang: str, functions=None, parameters: str = "baked",
            name: str | None = None) -> dict[str, str]:
    """``{file name: text}``: the kernels ``functions`` (``None``: every entry of the
    registry) of ``robot`` in ``lang`` (:data:`LANGUAGES`); see the module docstring."""
    writer = WRITERS[language(lang)]
    return writer(build(robot, functions, parameters, name))


def usage(lang: str, prog_name: str, argument: bool, directory: str) -> str:
    """How to compile/load the files written to ``directory`` and call them (shell words
    quoted)."""
    import shlex

    p = "p, " if argument else ""
    lang = language(lang)
    d = shlex.quote(directory)
    if lang == "c":
        return (f"gcc -O2 -std=c99 -I{d} -c {shlex.quote(f'{directory}/{prog_name}.c')} "
                f"-o {prog_name}.o   # then link it, and -lm\n"
                f"double tau[{prog_name.upper()}_DOF]; {prog_name}_inverse_dynamics({p}q, qd, "
                "qdd, tau);")
    if lang == "cpp":
        return (f'#include "{prog_name}.hpp"   // g++ -O2 -I{d} -I/usr/include/eigen3\n'
                f"auto tau = {prog_name}::inverse_dynamics({p}q, qd, qdd);")
    if lang == "python":
        return (f"import sys; sys.path.insert(0, {directory!r}); import {prog_name}\n"
                f"tau = {prog_name}.inverse_dynamics({p}q, qd, qdd)   # batched over leading axes")
    if lang == "java":
        return (f"javac -d classes {shlex.quote(f'{directory}/{prog_name}.java')}\n"
                f"double[] tau = {prog_name}.inverse_dynamics({p}q, qd, qdd);")
    if lang == "julia":
        return (f"include({directory + '/' + prog_name + '.jl'!r})\n"
                f"tau = {prog_name}.inverse_dynamics({p}q, qd, qdd)")
    return (f"addpath({_matlab_string(directory)})\n"
            f"tau = {prog_name}_inverse_dynamics({p}q, qd, qdd);")


def _matlab_string(text: str) -> str:
    return "'" + visible(text).replace("'", "''") + "'"


__all__ = ["LANGUAGES", "PARAMETER_MODES", "TracedProgram", "TracedFunction",
           "build", "to_code", "usage", "language", "check_functions", "input_width"]
