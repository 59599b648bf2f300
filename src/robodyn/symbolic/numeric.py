"""The closed forms as batched NumPy functions, through the project's own tape.

Each matrix of :class:`~.equations.Equations` (``M``, ``C``, ``g``, ``Cqd``,
``friction``, ``tau``), its parameters replaced by their values, is recorded on a
:class:`~robodyn.codegen.tape.Tape` (:meth:`~robodyn.codegen.tape.Tape.from_sympy`):
constants fold, and identical subexpressions are recorded once (hash-consing, so common
subexpressions are shared across all entries). The tape then runs on NumPy's back end of
the kernels (:func:`robodyn.codegen.emit.numpy_function`): one statement per
instruction the outputs need, on whole columns of the inputs, each intermediate freed
after its last use. The program is flat: unlike :func:`sympy.lambdify`, which compiles
one nested Python expression per entry and hits Python's recursion limit on a 7-DOF
arm's ``tau``, nothing here grows with the depth of an expression.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from ..codegen.batch_inputs import broadcast_scalar
from ..codegen.emit import live_ops, numpy_function
from ..codegen.tape import Tape
from ..core.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from .equations import Equations

__all__ = ["NumericEquations", "TapeProgram"]

class TapeProgram:
    """The instructions of ``tape`` that ``outputs`` need, as NumPy calls.

    ``program(columns)`` takes ``{input name: array}`` (arrays that broadcast together)
    and returns one value per output: an array, or a float for a constant output.
    """

    def __init__(self, tape: Tape, outputs: Sequence):
        live = live_ops(tape, outputs)
        #: the inputs used, by prefix: ``{"q": [0, 2], ...}`` for ``q0, q2``
        self.inputs: dict[str, list[int]] = {}
        for i, op in enumerate(tape.ops):
            if live[i] and op[0] == "in":
                prefix = op[1].rstrip("0123456789")
                self.inputs.setdefault(prefix, []).append(int(op[1][len(prefix):]))
        groups = [(prefix, max(cols) + 1) for prefix, cols in self.inputs.items()]
        self._function = numpy_function(tape, groups, outputs)
        self._size = len(outputs)

    def __call__(self, columns: Mapping[str, np.ndarray]) -> list:
        # each group a list of its columns (None for one the program does not read)
        groups = []
        for prefix, cols in self.inputs.items():
            group = [None] * (max(cols) + 1)
            for c in cols:
                group[c] = columns[f"{prefix}{c}"]
            groups.append(group)
        return self._function(*groups, (), [None] * self._size)


# argument groups of each function: (argument name, input prefix on the tape)
_ARGUMENTS = {
    "M": (("q", "q"),),
    "C": (("q", "q"), ("qd", "qd")),
    "g": (("q", "q"),),
    "Cqd": (("q", "q"), ("qd", "qd")),
    "friction": (("qd", "qd"),),
    "tau": (("q", "q"), ("qd", "qd"), ("qdd", "qdd"), ("h_e", "he")),
}
_VECTORS = {"g", "Cqd", "friction", "tau"}
#: the functions that read LuGre's bristle states ``z`` (:mod:`.lugre`), when there are any
_BRISTLE = {"friction", "tau"}


class NumericEquations:
    """``M(q)``, ``C(q, qd)``, ``g(q)``, ``friction(qd)``, ``Cqd(q, qd)``,
    ``tau(q, qd, qdd[, h_e])`` of closed-form equations as NumPy functions of arrays
    ``(..., dof)`` (``q``: ``(..., nq)``, with the unit quaternions of ball and free
    joints; ``h_e``: ``(..., 6)``), broadcast over the leading axes; each is
    recorded on a tape (see the module docstring) on first use. ``values``: a number for
    every parameter of the equations."""

    def __init__(self, eq: Equations, values: Mapping[sp.Symbol, float]):
        self.dof = eq.dof
        #: configuration values (``dof`` with one-value joints; a quaternion has four)
        self.nq = len(eq.q)
        self.values = dict(values)
        self._eq = eq
        self._subs = {s: sp.Float(v) for s, v in values.items()}
        self._compiled: dict[str, tuple] = {}
        self._wrench = bool(eq.h_e)
        self._z = tuple(getattr(eq, "z", ()))  # LuGre's bristle states, if any

    def _function(self, name: str):
        compiled = self._compiled.get(name)
        if compiled is None:
            eq = self._eq
            symbols_of = {"q": eq.q, "qd": eq.qd, "qdd": eq.qdd, "h_e": eq.h_e, "z": self._z}
            tape = Tape()
            symbols = {}
            for arg, prefix in self._arguments(name):
                for k, s in enumerate(symbols_of[arg]):
                    symbols[s] = tape.input(f"{prefix}{k}")
            matrix = getattr(eq, name)
            # the parameters become numbers first, so that every parameter-only
            # subexpression (m2*l2**2, sqrt(m)) is one Float before it reaches the tape
            outputs = [tape.from_sympy(e.xreplace(self._subs), symbols) for e in matrix]
            shape = (matrix.shape[0],) if name in _VECTORS else matrix.shape
            compiled = self._compiled[name] = (TapeProgram(tape, outputs), shape)
        return compiled

    def _arguments(self, name: str) -> tuple:
        """The argument groups of ``name``: :data:`_ARGUMENTS` (``h_e`` only if derived
        with it), LuGre's ``z`` added."""
        extra = (("z", "z"),) if self._z and name in _BRISTLE else ()
        return tuple(a for a in _ARGUMENTS[name] if a[0] != "h_e" or self._wrench) + extra

    def _bristles(self, z) -> list:
        """``[z]`` for equations with LuGre's bristle states, ``[]`` without (``z`` None)."""
        if not self._z:
            if z is not None:
                raise InputError("z: these equations have no LuGre bristle states (the model "
                                 "has no lugre:); leave z out")
            return []
        if z is None:
            raise InputError("z: these equations have LuGre friction; give the bristle "
                             "deflections z (one per joint)")
        return [z]

    def _call(self, name: str, *arrays):
        program, shape = self._function(name)
        named = []
        for (arg, prefix), value in zip(self._arguments(name), arrays):
            width = {"h_e": 6, "q": self.nq}.get(arg, self.dof)
            named.append((arg, prefix, _checked(arg, value, width)))
        try:
            batch = np.broadcast_shapes(*(a.shape[:-1] for _, _, a in named))
        except ValueError:
            detail = ", ".join(f"{arg} {a.shape}" for arg, _, a in named)
            raise InputError(f"batch shapes do not broadcast: {detail}") from None
        columns = {f"{prefix}{k}": a[..., k] for _, prefix, a in named
                   for k in range(a.shape[-1])}
        entries = program(columns)
        out = np.empty(batch + (len(entries),))
        for j, e in enumerate(entries):
            out[..., j] = e
        return out.reshape(batch + shape)

    def M(self, q):
        """Inertia matrix, ``(..., dof)`` -> ``(..., dof, dof)``."""
        return self._call("M", q)

    def C(self, q, qd):
        """Coriolis/centrifugal matrix, ``(..., dof, dof)``."""
        return self._call("C", q, qd)

    def g(self, q):
        """Gravity torques, ``(..., dof)``."""
        return self._call("g", q)

    def Cqd(self, q, qd):
        """Coriolis and centrifugal torques ``C(q, qd) qd``, ``(..., dof)``."""
        return self._call("Cqd", q, qd)

    def friction(self, qd, z=None):
        """Friction torques, ``(..., dof)``; ``z``: LuGre's bristle deflections, for
        equations of a model with ``lugre:`` (and only then)."""
        return self._call("friction", qd, *self._bristles(z))

    def tau(self, q, qd, qdd, h_e=None, z=None):
        """Inverse dynamics (with ``h_e``, 6 numbers per state, if derived with it; ``z``
        LuGre's bristle deflections, for a model with ``lugre:``)."""
        arrays = [q, qd, qdd]
        if self._wrench:
            arrays.append(np.zeros(6) if h_e is None else h_e)
        elif h_e is not None:
            raise InputError("h_e: these equations were derived without the end-effector "
                             "wrench; derive them with h_e=True")
        return self._call("tau", *arrays, *self._bristles(z))


def _checked(name: str, value, width: int) -> np.ndarray:
    """``value`` as a float array of shape ``(..., width)`` with finite entries (one
    number for a joint quantity is that number for every joint), or an
    :class:`~robodyn.core.errors.InputError` naming the argument."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected an array of numbers") from None
    if raw.dtype.kind not in "iuf":
        raise InputError(f"{name}: expected real numbers, got an array of dtype {raw.dtype}")
    arr = broadcast_scalar(name, raw.astype(np.float64, copy=False), width)
    if arr.ndim == 0 or arr.shape[-1] != width:
        raise InputError(f"{name}: expected shape (..., {width}), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: has NaN or infinite entries")
    return arr
