"""The language-independent part of code export: which functions, their arguments, their
parameters, and their bodies after common-subexpression elimination.

A :class:`Program` is built from named SymPy matrices (``{"mass_matrix": (M, ("q",)),
...}``, see :func:`equation_matrices`), so any further closed form (the regressor) is one
more entry. Each function's entries are passed together through :func:`sympy.cse`
(``optimizations=None``: the closed forms of a 6-7 joint arm are large, and the basic
pass is what keeps the export to about a second), which turns them into a straight-line
list of temporaries ``t_k = ...`` and the output entries. The language printers only
print that list.

Parameters: ``"baked"`` replaces every model parameter by its number (the equations'
defaults, updated by ``values``); ``"argument"`` keeps them as symbols read from a
vector ``p`` that every function takes first, in the order of :attr:`Program.parameters`
(sorted by name, as ``eq.params``).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ...core.errors import InputError, ModelError, excerpt
from ...core.progress import ProgressOption, check_progress, tracker
from ...dynamics.lugre_dynamics import BRISTLE_RATE
from ...dynamics.registry import KERNELS
from ...model.expressions import to_sympy
from ...model.names import MARKER, visible
from .languages import PARAMETER_MODES
from .printers import RESERVED

#: The functions whose closed form is exported (those of the registry with an ``output``),
#: in the registry's order: name -> its registry entry.
EXPORTED = {name: spec for name, spec in KERNELS.items()
            if spec.closed_form is not None and spec.closed_form.output}
#: The exported functions every equations object has: name -> (attribute of Equations,
#: arguments, output name); the regressor (computed on request) is added where there is one.
FUNCTIONS = {name: (spec.closed_form.attribute, spec.inputs, spec.closed_form.output)
             for name, spec in EXPORTED.items() if not spec.closed_form.computed}
#: What each function returns, for the comments of the generated files (LuGre's
#: ``bristle_rate`` too, exported for equations with bristle states ``z``).
DESCRIPTIONS = {name: spec.doc for name, spec in EXPORTED.items()} | {
    BRISTLE_RATE.name: BRISTLE_RATE.doc}
#: The names of the exported functions' results (``tau``, ``M``, ..., ``Y``, ``zd``).
OUTPUTS = {name: spec.closed_form.output for name, spec in EXPORTED.items()} | {
    BRISTLE_RATE.name: BRISTLE_RATE.output}

#: The most characters of the model's name a header quotes.
MODEL_CHARS = 120


@dataclass(frozen=True)
class Function:
    """One exported function: ``name(args...) -> output`` of shape ``shape``.

    ``args``: ``(argument name, its symbols)`` in call order (the parameter vector ``p``
    not included); ``temporaries``: the ``(symbol, expression)`` list of the common
    subexpressions, in evaluation order; ``entries``: the output entries, row-major;
    ``vector``: true for an ``(n, 1)`` output (printed as a vector).
    """

    name: str
    args: tuple[tuple[str, tuple[sp.Symbol, ...]], ...]
    output: str
    shape: tuple[int, int]
    vector: bool
    temporaries: tuple[tuple[sp.Symbol, sp.Expr], ...]
    entries: tuple[sp.Expr, ...]
    description: str = ""

    def used(self) -> set[sp.Symbol]:
        """The input and parameter symbols that the body reads."""
        syms: set[sp.Symbol] = set()
        for _, e in self.temporaries:
            syms |= e.free_symbols
        for e in self.entries:
            syms |= e.free_symbols
        return syms - {t for t, _ in self.temporaries}

    def loads(self, parameters: Sequence[sp.Symbol]) -> Iterator[tuple[sp.Symbol, str, int]]:
        """``(symbol, array, index)`` of each input the body reads: the joint variables
        from their argument, the parameters from ``p`` (0-based index)."""
        used = self.used()
        for i, s in enumerate(parameters):
            if s in used:
                yield s, "p", i
        for arg, symbols in self.args:
            for i, s in enumerate(symbols):
                if s in used:
                    yield s, arg, i


@dataclass(frozen=True)
class Program:
    """Everything a printer needs: the model, its symbols, the functions."""

    name: str                      # identifier: the model name, other characters as "_"
    model: str                     # the model's own name
    convention: str | None
    method: str
    dof: int
    parameter_mode: str
    parameters: tuple[sp.Symbol, ...]       # order of p (argument mode; else empty)
    values: tuple[tuple[str, float], ...]   # the numbers (baked) or defaults (argument)
    joint_symbols: tuple[tuple[str, tuple[sp.Symbol, ...]], ...]
    functions: tuple[Function, ...]
    notes: tuple[str, ...] = ()
    nq: int = 0  # values of q: dof (0), or more with the quaternions of ball and free joints

    @property
    def argument(self) -> bool:
        return self.parameter_mode == "argument"

    @property
    def configuration_size(self) -> int:
        """The entries of ``q``: ``dof``, or ``nq`` with ball or free joints."""
        return self.nq or self.dof

    def width(self, argument: str) -> int:
        """The entries of an argument: ``p`` the parameters, ``h_e`` 6, ``q``
        :attr:`configuration_size`, the others ``dof``."""
        return {"p": len(self.parameters), "h_e": 6,
                "q": self.configuration_size}.get(argument, self.dof)

    def forward_dynamics(self) -> tuple[str, ...] | None:
        """The arguments of the exported ``forward_dynamics`` (``p`` not included): those
        of ``inverse_dynamics`` with ``tau`` for ``qdd`` (``q, qd, tau`` and ``h_e`` where
        the equations have the wrench); ``None`` when the program lacks
        ``inverse_dynamics`` or ``mass_matrix`` (custom ``matrices``).

        Every writer adds it as ``qdd = solve(M(q), tau - inverse_dynamics(q, qd, 0))``:
        the velocity, gravity and friction terms (and ``J^T h_e``) are the inverse dynamics
        at ``qdd = 0``, and ``M qdd = tau - them`` is solved, never inverted (NumPy's
        ``solve``, Eigen's LDLT, MATLAB's and Julia's ``\\``, ``LinearSolve``; in C and
        Java a generated Gaussian elimination with partial pivoting, NaN if ``M`` is
        singular)."""
        names = {f.name: f for f in self.functions}
        if "inverse_dynamics" not in names or "mass_matrix" not in names:
            return None
        return tuple("tau" if a == "qdd" else a for a, _ in names["inverse_dynamics"].args)

    def header_lines(self) -> list[str]:
        """The comment every file starts with (without comment markers): :data:`MARKER`
        first, then a line without any of the model's text (Python reads a ``coding:``
        declaration in the first two lines), then the model. The lines hold user text
        (names, symbols) made :func:`~robodyn.model.names.visible`; each writer escapes
        what would end its comment (:func:`.base.comment`)."""
        convention = {
            "standard": "standard DH (link frames of the DH table)",
            "modified": "modified DH (Craig)",
        }.get(self.convention or "", "no DH table (frames from a URDF or explicit joints)")
        model = self.model
        if len(model) > MODEL_CHARS:
            model = f"{model[:MODEL_CHARS]}... ({len(model):,} characters)"
        lines = [
            MARKER,
            "Equations of motion from their closed forms; regenerate with robodyn export "
            "rather than edit.",
            f"Model: '{model}' ({self.dof} joints), method {self.method}.",
            f"Convention: {convention}.",
            "Joint symbols: " + "; ".join(f"{arg} = ({', '.join(map(str, syms))})"
                                          for arg, syms in self.joint_symbols) + ".",
            "Arrays: vectors have dof entries; matrices are row-major (M[i*dof + j] in C).",
        ]
        if self.configuration_size != self.dof:
            lines.append(f"q has nq = {self.configuration_size} entries (each ball or free "
                         "joint's unit quaternion x, y, z, w; a free joint's position x, y, z "
                         f"first), qd, qdd and tau dof = {self.dof} (the body twists).")
        if self.argument:
            if self.parameters:
                lines.append(f"Parameters: every function takes p first, {len(self.parameters)}"
                             " entries in this order (default values):")
                defaults = dict(self.values)
                lines += [f"  p[{i}] = {s}" + (f" (default {defaults[str(s)]!r})"
                                               if str(s) in defaults else "")
                          for i, s in enumerate(self.parameters)]
            else:
                lines.append("Parameters: every function takes p first (no parameters left: "
                             "the equations were derived with numbers).")
        elif self.values:
            lines.append("Parameters baked in: " + ", ".join(f"{k} = {v!r}"
                                                             for k, v in self.values) + ".")
        else:
            lines.append("Parameters: none (the equations hold numbers only).")
        lines += [f"{f.name}: {f.description} ({f.shape[0]} x {f.shape[1]})"
                  for f in self.functions]
        if self.forward_dynamics() is not None:
            lines.append(f"forward_dynamics: joint accelerations qdd ({self.dof} x 1), "
                         "M(q) qdd = tau - inverse_dynamics(q, qd, 0) solved (no inverse)")
        lines += list(self.notes)
        return [visible(line) for line in lines]


#: The longest identifier made from a model's name (MATLAB function names stop at 63
#: characters, and ``NAME_coriolis_matrix`` adds 16).
IDENTIFIER_CHARS = 40

#: Names an identifier made from a model's name must not be, in any target language:
#: keywords, the names the generated code uses or calls (``sin``, ``zeros``, ``Math``,
#: ``numpy``, the exported functions), Python's standard modules (a module ``os.py``
#: next to the user's script would hide the real one), predefined C macros.
RESERVED_IDENTIFIERS = frozenset(
    set().union(*RESERVED.values())
    | set(getattr(sys, "stdlib_module_names", ())) | {"numpy", "sympy", "robodyn"}
    | set(EXPORTED) | set(OUTPUTS.values()) | {"forward_dynamics", "tau"}
    | {"DOF", "PARAMETERS", "DEFAULT_PARAMETERS", "q", "qd", "qdd", "h_e", "z", "p", "out",
       "batch"}
    | {"Base", "Core", "Main", "String", "Object", "System", "Double", "Integer", "Class",
       "Override", "Math", "Global", "Private"}
    | {"NULL", "EOF", "errno", "assert", "stdin", "stdout", "stderr", "NAN", "INFINITY",
       "HUGE_VAL", "DOMAIN", "SING", "OVERFLOW", "UNDERFLOW", "TLOSS", "PLOSS", "linux",
       "unix", "i386", "bool", "true", "false", "complex", "imaginary", "I", "offsetof",
       "main"})
#: C and C++ macro prefixes (``M_PI``, ``FP_NAN``, ``EIGEN_...``, ``INT_MAX``...).
_MACRO = re.compile(r"^(M|FP|EIGEN|INT|UINT|LONG|ULONG|DBL|FLT|LDBL|SIZE|CHAR|SCHAR|UCHAR"
                    r"|SHRT|USHRT|LLONG|ULLONG|PTRDIFF|SIG|WCHAR|MATH)_")


def reserved(name: str) -> bool:
    """Whether ``name`` is one of :data:`RESERVED_IDENTIFIERS` or a C macro's name."""
    return name in RESERVED_IDENTIFIERS or bool(_MACRO.match(name))


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def identifier(name: str) -> str:
    """The identifier made from a model's ``name`` (function prefix, module, class and
    file name), legal in every target language and deterministic:

    1. every character other than an ASCII letter, digit or ``_`` becomes ``_``
       (``planar-2r`` -> ``planar_2r``, ``café`` -> ``caf_``);
    2. a name left without a letter or digit is ``robot``, followed by ``_`` and 8 hex
       digits of the SHA-256 of the name when it was not empty (``日本`` ->
       ``robot_<hash>``), so that two such names stay apart;
    3. a leading digit or ``_`` gets ``robot_`` in front (``2r`` -> ``robot_2r``);
    4. longer than :data:`IDENTIFIER_CHARS`: the first 31 characters, ``_`` and 8 hex
       digits of the name's SHA-256;
    5. a name that starts like a C macro (``M_PI``, ``INT_MAX``, ``EIGEN_...``) gets
       ``robot_`` in front; one of :data:`RESERVED_IDENTIFIERS` (``class``, ``def``,
       ``int``, ``function``, ``end``, ``import``, ``sin``, ``numpy``, ...) gets ``_``
       appended (``class`` -> ``class_``).
    """
    name = str(name)
    out = re.sub(r"\W", "_", name, flags=re.ASCII)
    if not re.search(r"[A-Za-z0-9]", out):
        out = f"robot_{_digest(name)}" if name else "robot"
    if out[0].isdigit() or out[0] == "_" or _MACRO.match(out):
        out = "robot_" + out
    if len(out) > IDENTIFIER_CHARS:
        out = f"{out[:31]}_{_digest(name)}"
    while out in RESERVED_IDENTIFIERS:  # none ends in "_", so one round
        out += "_"
    return out


def _function_name(fname: object) -> str:
    """``fname`` (a key of ``matrices``) if it can name a function in every language."""
    if not isinstance(fname, str) or not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", fname) \
            or len(fname) > IDENTIFIER_CHARS:
        raise InputError(f"matrices: {excerpt(fname, 40)} is not a function name (an ASCII "
                         f"letter, then letters, digits and _, at most {IDENTIFIER_CHARS} "
                         "characters)")
    if fname not in EXPORTED and reserved(fname):
        raise InputError(f"matrices: {fname!r} is reserved in a target language or by the "
                         f"generated code; name the function e.g. {fname}_matrix")
    return fname


def equation_matrices(eq) -> dict[str, tuple[sp.Matrix, tuple[str, ...]]]:
    """The closed forms of ``eq`` to export: ``{function name: (matrix, arguments)}``;
    the regressor is included when the equations have one (``eq.regressor()``). With
    LuGre's bristle states ``z`` (``eq.z``), the functions that read them (the friction,
    ``tau``) take ``z`` last, ``bristle_rate(qd, z)`` is added and the regressor left out
    (``F(qd, z)`` is not linear in LuGre's parameters)."""
    bristles = set(getattr(eq, "z", ()))
    out: dict[str, tuple[sp.Matrix, tuple[str, ...]]] = {}
    for fname, spec in EXPORTED.items():
        form = spec.closed_form
        if eq.h_e and spec.contact:  # the closed form then takes the wrench too
            spec = KERNELS[spec.contact]
        if not form.computed:
            matrix = getattr(eq, form.attribute)
            reads_z = bristles and bristles & sp.Matrix(matrix).free_symbols
            out[fname] = (matrix, (*spec.inputs, "z") if reads_z else spec.inputs)
        elif hasattr(eq, form.attribute) and not bristles:
            matrix, _ = getattr(eq, form.attribute)()
            out[fname] = (sp.Matrix(matrix), spec.inputs)
    if bristles:
        out[BRISTLE_RATE.name] = (eq.bristle_rate, BRISTLE_RATE.inputs)
    return out


def _temporaries(taken: set[str]) -> Iterator[sp.Symbol]:
    k = 0
    while True:
        name = f"t{k}"
        k += 1
        if name not in taken:
            yield sp.Symbol(name)


def build_program(eq, parameters: str = "baked", name: str | None = None,
                  values: Mapping[str, float] | None = None,
                  matrices: Mapping[str, tuple[sp.Matrix, tuple[str, ...]]] | None = None,
                  convention: str | None = None, progress: ProgressOption = None
                  ) -> Program:
    """A :class:`Program` of the equations ``eq`` (see the module docstring); ``progress``
    (:func:`robodyn.core.progress.tracker`) counts its functions."""
    check_progress(progress)
    if parameters not in PARAMETER_MODES:
        raise InputError(f"parameters: {str(parameters)[:40]!r} is not a mode; use 'baked' "
                         "(numbers in the code) or 'argument' (a vector p)")
    model = str(getattr(eq, "name", "robot"))
    cname = identifier(name if name is not None else model)
    if name is not None and cname != str(name):
        what = ("is reserved in a target language" if reserved(str(name))
                else "is not an identifier (ASCII letters, digits, _, starting with a letter, "
                f"at most {IDENTIFIER_CHARS} characters)")
        raise InputError(f"name: {excerpt(str(name), 80)} {what}; e.g. {cname!r}")
    matrices = dict(matrices if matrices is not None else equation_matrices(eq))
    params = tuple(eq.params)
    table = dict(getattr(eq, "defaults", {}) or {})
    table.update({str(k): float(v) for k, v in (values or {}).items()})
    unknown = sorted(set(map(str, (values or {}))) - {str(s) for s in params})
    if unknown:
        raise InputError(f"values: {unknown[0][:80]!r} is not a parameter of these equations; "
                         f"they are {', '.join(map(str, params)) or '(none)'}")
    if parameters == "baked":
        missing = [str(s) for s in params if str(s) not in table]
        if missing:
            raise ModelError(f"{model}: no value for parameter(s) {', '.join(missing)}; pass "
                             f"values={{'{missing[0]}': ...}} or parameters='argument'")
        subs = {s: sp.Float(float(table[str(s)])) for s in params}
        baked = tuple((str(s), float(table[str(s)])) for s in params)
        p_symbols: tuple[sp.Symbol, ...] = ()
    else:
        subs = {}
        baked = tuple((str(s), float(table[str(s)])) for s in params if str(s) in table)
        p_symbols = params
    joint = {"q": tuple(eq.q), "qd": tuple(eq.qd), "qdd": tuple(eq.qdd),
             "h_e": tuple(getattr(eq, "h_e", ()) or ()), "z": tuple(getattr(eq, "z", ()))}
    taken = {str(s) for syms in joint.values() for s in syms} | {str(s) for s in params}
    functions = []
    with tracker(progress, len(matrices), "exporting") as bar:
        for fname, (matrix, args) in matrices.items():
            fname = _function_name(fname)
            matrix = sp.Matrix(matrix)
            unknown_args = [a for a in args if a not in joint]
            if unknown_args:
                raise InputError(f"{fname}: unknown argument {unknown_args[0]!r}; use q, qd, qdd, "
                                 "h_e (and z of equations with LuGre's bristle states)")
            arg_symbols = tuple((a, joint[a]) for a in args)
            allowed = {s for _, syms in arg_symbols for s in syms} | set(p_symbols)
            exprs = [to_sympy(e).xreplace(subs) for e in matrix]
            stray = set().union(*(e.free_symbols for e in exprs)) - allowed
            if stray:
                names = ", ".join(sorted(map(str, stray)))[:80]
                raise ModelError(f"{model}: {fname} depends on {names}, which is not among its "
                                 f"arguments ({', '.join(args)}) or parameters")
            temps, reduced = sp.cse(exprs, symbols=_temporaries(taken), optimizations=None,
                                    order="none")
            description = DESCRIPTIONS.get(fname, fname)
            if "z" in args and fname != BRISTLE_RATE.name:
                description += ", with LuGre friction F(qd, z) of the bristle deflections z"
            functions.append(Function(
                fname, arg_symbols, OUTPUTS.get(fname, fname), tuple(matrix.shape),
                matrix.shape[1] == 1 and fname != "regressor", tuple(temps), tuple(reduced),
                description))
            bar.advance()
    joint_symbols = tuple((a, joint[a]) for a in ("q", "qd", "qdd", "h_e", "z") if joint[a])
    notes = ()
    if hasattr(eq, "regressor") and "regressor" in matrices:
        pi = _regressor_symbols(eq)
        if pi:
            notes = ("regressor: columns multiply pi = (" + ", ".join(map(str, pi)) + ")",)
    if convention is None:
        convention = getattr(eq, "convention", None)
    nq = len(joint["q"]) if len(joint["q"]) != eq.dof else 0
    return Program(cname, model, convention, str(getattr(eq, "method", "")), eq.dof, parameters,
                   p_symbols, baked, joint_symbols, tuple(functions), notes, nq)


def _regressor_symbols(eq) -> tuple[Any, ...]:
    try:
        _, pi = eq.regressor()
    except Exception:  # only a comment depends on it
        return ()
    return tuple(pi)
