"""The registry's kernels traced for one model, ready to print in any language.

:func:`build` traces the entries of :data:`~robodyn.dynamics.registry.KERNELS` on a
robot's chain (:func:`robodyn.codegen.trace.trace`) into a :class:`TracedProgram`: one
:class:`TracedFunction` per entry, named as the entry (its result as the entry's
``output``), with its tape and the header every file carries. Each language's module
(:mod:`.c`, :mod:`.python`, :mod:`.java`, :mod:`.julia`, :mod:`.matlab`) prints it with
its own :class:`Syntax` through :func:`expression`; :mod:`.traced` is the entry point.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...core.errors import InputError
from ...core.version import VERSION
from ...dynamics.closed_forward_dynamics import CLOSED, closed_spec
from ...dynamics.driven_dynamics import driven_spec, has_driven_form
from ...dynamics.elastic_dynamics import ELASTIC, elastic_spec, exports_elastic
from ...dynamics.lugre_dynamics import LUGRE_ADDED, lugre_closed_spec, lugre_names, lugre_spec
from ...dynamics.registry import KERNELS, output_shape
from ...model.names import MARKER, visible
from ...model.source import Provenance
from ..emit import live_ops
from ..runner import Runner
from ..tape import Var
from ..trace import trace
from .base import COMMENTS, comment_line
from .languages import PARAMETER_MODES
from .program import IDENTIFIER_CHARS, identifier, reserved

__all__ = ["PARAMETER_MODES", "TracedFunction", "TracedProgram", "Syntax", "build",
           "check_functions", "expression", "shape_text", "c_constant", "ternary_sign", "temp",
           "local_names", "value_text", "unravel"]

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
    nq: int | None = None  # values of q where they differ from dof (free and ball joints)

    def header_lines(self, lang: str) -> list[str]:
        """The header comment (no comment markers, user text not yet escaped)."""
        model = self.model
        if len(model) > _MAX_MODEL_CHARS:
            model = f"{model[:_MAX_MODEL_CHARS]}... ({len(model):,} characters)"
        lines = [MARKER,
                 f"Compiled kernels of robodyn {VERSION} (traced straight-line programs); "
                 "regenerate with robodyn export rather than edit.",
                 f"Model: '{model}' ({self.dof} "
                 f"{'joints' if self.nq is None else 'degrees of freedom'}); {self.origin}.",
                 "Arrays: joint vectors have dof entries, h_e 6 (force, moment); results are "
                 "row-major" + (" (M[i*dof + j])." if lang in ("c", "java") else ".")]
        if self.nq is not None:
            lines.append(f"q has nq = {self.nq} entries (each free or ball joint's position and "
                         "unit quaternion x, y, z, w); qd, qdd, tau and the rows of results "
                         f"dof = nv = {self.dof}.")
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
        if not isinstance(name, str) or name not in (*KERNELS, CLOSED, *LUGRE_ADDED, ELASTIC):
            raise InputError(f"{at}functions: {str(name)[:80]!r} is not a function; use "
                             f"names of {', '.join(KERNELS)} (and {CLOSED} of a closed "
                             f"mechanism, {', '.join(LUGRE_ADDED)} of LuGre friction)")
    return tuple(dict.fromkeys(names))


def build(runner: Runner, functions=None, parameters: str = "baked", name: str | None = None,
          provenance: Provenance | None = None) -> TracedProgram:
    """Trace the kernels ``functions`` (``None``: every registry entry) of the model of
    ``runner`` (its chain, values and name); ``provenance`` (where the model came from) for
    the files' header."""
    if parameters not in PARAMETER_MODES:
        raise InputError(f"parameters: {str(parameters)[:40]!r} is not a mode; use 'baked' "
                         "(numbers in the code) or 'argument' (a vector p)")
    names = check_functions(functions)
    drives = getattr(runner.chain, "transmission", None)
    if drives is not None and functions is None:  # every entry the drives' code has
        names = tuple(k for k in names if has_driven_form(k))
    lugre = getattr(runner.chain, "lugre", None)
    names = lugre_names(names, runner.chain, functions is None)  # LuGre's take z, add rates
    if functions is None and lugre is None and exports_elastic(runner.chain):
        names += (ELASTIC,)  # the springs' 2n state too
    cname = identifier(name if name is not None else runner.name)
    if name is not None and cname != str(name):
        what = ("is reserved in a target language" if reserved(str(name))
                else "is not an identifier (ASCII letters, digits, _, starting with a letter, "
                f"at most {IDENTIFIER_CHARS} characters)")
        raise InputError(f"name: {str(name)[:80]!r} {what}; e.g. {cname!r}")
    values = tuple(float(v) for v in runner.parameter_values)  # checks the model's numbers
    params = runner.parameter_names
    argument = parameters == "argument"
    chain = runner.chain if argument else runner.numeric_chain
    traced = []
    for kind in names:
        if kind == CLOSED:
            spec = closed_spec(runner.chain)
            if lugre is not None:  # F against the tree's torques, z the last input
                spec = lugre_closed_spec(spec, lugre)
        elif kind == ELASTIC:
            if lugre is not None:
                raise InputError(f"functions: {ELASTIC} of a model with LuGre friction is "
                                 "not exported yet (its springs' state without the "
                                 "bristles' z); leave it out")
            spec = elastic_spec(runner.chain)
        elif lugre is not None:
            spec = lugre_spec(kind, runner.chain)
        elif kind in LUGRE_ADDED:
            raise InputError(f"functions: {kind} is LuGre friction's; this model has no "
                             "lugre: parameters")
        else:
            spec = KERNELS[kind] if drives is None else driven_spec(kind, runner.chain)
        tape, groups, outputs = trace(chain, spec, params if argument else ())
        traced.append(TracedFunction(kind, spec.doc, tuple(groups), spec.output,
                                     tuple(output_shape(spec, chain)), tape, tuple(outputs)))
    provenance = provenance or Provenance()
    if provenance.convention:
        origin = f"geometry from a {provenance.convention} DH table"
    else:
        origin = "no DH table (frames from a URDF or explicit joints)"
    if provenance.path and provenance.path != runner.name:
        origin += f"; loaded from {provenance.path}"
    if provenance.locked:
        origin += "; locked joints (held at 0): " + ", ".join(provenance.locked)
    if any(link.motor.stiffness is not None for link in runner.chain.links):  # said, not
        origin += ("; the rigid model (as the robot's methods): the elastic joints' springs "
                   "(motor.stiffness) are not in these functions")              # left unsaid
    nq, nv = runner.chain.nq, runner.chain.nv
    return TracedProgram(cname, str(runner.name), origin, nv, argument, tuple(params),
                         values, tuple(traced), None if nq == nv else nq)


# -- expressions --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Syntax:
    """How a language spells the instructions of a tape."""

    const: Callable[[float], str]
    calls: dict[str, str]          # sin, cos, sqrt -> function name
    pow: str                       # a function of two arguments
    sign: Callable[[str], str]


def c_constant(x: float, inf: str = "INFINITY", nan: str = "NAN") -> str:
    """``x`` as a C-like literal (``inf``, ``nan``: how the language spells those)."""
    if math.isnan(x):
        return nan
    if math.isinf(x):
        return inf if x > 0 else f"(-{inf})"
    text = repr(float(x))
    return f"({text})" if x < 0 or text.startswith("-") else text


def ternary_sign(a: str) -> str:
    """``sign(a)`` with ``?:``, keeping 0, -0 and NaN as ``a`` (as ``np.sign``)."""
    return f"({a} > 0.0 ? 1.0 : ({a} < 0.0 ? -1.0 : {a}))"


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


# -- names --------------------------------------------------------------------------------------
def temp(i: int) -> str:
    """The local holding value ``i`` of a tape."""
    return f"t{i}"


def local_names(f: TracedFunction) -> Callable[[int], str]:
    """``name(i)``: an input's own name (``q3``), else :func:`temp`."""
    ops = f.tape.ops

    def name(i: int) -> str:
        op = ops[i]
        return op[1] if op[0] == "in" else temp(i)

    return name


def value_text(f: TracedFunction, out, syntax: Syntax) -> str:
    """The text of output ``out`` of ``f``: its local, or a constant."""
    return local_names(f)(out.i) if isinstance(out, Var) else syntax.const(float(out))


def unravel(k: int, shape: tuple[int, ...], base: int) -> list[int]:
    """The indices of flat entry ``k`` (row-major) of ``shape``, counted from ``base``."""
    idx = []
    for extent in reversed(shape):
        idx.append(k % extent + base)
        k //= extent
    return idx[::-1]
