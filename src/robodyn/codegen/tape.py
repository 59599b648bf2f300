"""A tracer that turns a scalar algorithm into a straight-line program.

Running an algorithm of :mod:`robodyn.dynamics` on :class:`Var` inputs records
every arithmetic operation on a :class:`Tape`. While recording, constants are
folded (the model's numbers are plain floats, so the many exact zeros and ones
of DH frames, planar arms and point masses vanish), and identical operations
are recorded once (hash-consing: common-subexpression elimination for free).
The tape is then emitted as Python source by :mod:`robodyn.codegen.emit`.
This is the "generated code" route of SymPyBotics, without SymPy's cost.
"""

from __future__ import annotations

import math
from numbers import Real

from ..core.lazy import sp

_COMMUTATIVE = {"add", "mul"}


def _defers(other) -> bool:
    """Whether an operation with ``other`` is left to ``other``'s reflected operator: a
    number type that wraps traced scalars (forward-mode duals of
    :mod:`robodyn.dynamics.derivatives`) says so with a higher ``op_priority``, as SymPy's
    ``_op_priority`` and NumPy's ``__array_priority__`` do."""
    return getattr(other, "op_priority", 0.0) > Var.op_priority


def _binary(op: str, reflected: bool = False):
    """The operator method of :class:`Var` that records ``op`` (``other op self`` when
    ``reflected``) on the tape, or leaves it to an operand that :func:`_defers`."""

    def method(self, other):
        if type(other) not in _PLAIN and _defers(other):
            return NotImplemented
        record = getattr(self.tape, op)
        return record(other, self) if reflected else record(self, other)

    method.__name__ = f"__{'r' if reflected else ''}{'truediv' if op == 'div' else op}__"
    return method


class Var:
    """A traced scalar: index ``i`` of an instruction on ``tape``."""

    __slots__ = ("tape", "i")
    #: Operands with a higher ``op_priority`` handle the operation (see :func:`_defers`).
    op_priority = 10.0

    def __init__(self, tape: Tape, i: int):
        self.tape = tape
        self.i = i

    __add__ = _binary("add")
    __radd__ = _binary("add", reflected=True)
    __sub__ = _binary("sub")
    __rsub__ = _binary("sub", reflected=True)
    __mul__ = _binary("mul")
    __rmul__ = _binary("mul", reflected=True)
    __truediv__ = _binary("div")
    __rtruediv__ = _binary("div", reflected=True)

    def __neg__(self):
        return self.tape.neg(self)

    def __pos__(self):
        return self

    def __pow__(self, k):
        if k == 2:
            return self.tape.mul(self, self)
        raise NotImplementedError("only x**2 is traced")

    def __eq__(self, other):  # never structurally equal to a number
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        return f"Var({self.i}: {self.tape.ops[self.i]})"


def _const(x) -> bool:
    """Whether ``x`` is a number, not a traced value: Python's float and int answered
    before the ABC check (a third of the Panda's first traces, 20 000 checks)."""
    cls = type(x)
    return cls is float or cls is int or (cls is not Var and isinstance(x, Real))


#: Operand types that never take an operation over (:func:`_defers`), checked first.
_PLAIN = frozenset((float, int, Var))


class Tape:
    """The recorded program: ``ops[i] = (op, *args)`` with args Vars' indices as
    ``('v', i)`` or constants as ``('c', float)``."""

    def __init__(self):
        self.ops: list[tuple] = []
        self._memo: dict[tuple, Var] = {}
        self.inputs: dict[str, Var] = {}
        self._sympy_memo: dict = {}

    # -- recording -----------------------------------------------------------------
    def input(self, name: str) -> Var:
        var = self._emit(("in", name))
        self.inputs[name] = var
        return var

    def inputs_vector(self, prefix: str, n: int) -> list[Var]:
        return [self.input(f"{prefix}{i}") for i in range(n)]

    def _key(self, x):
        return ("v", x.i) if isinstance(x, Var) else ("c", float(x))

    def _emit(self, op: tuple) -> Var:
        var = self._memo.get(op)
        if var is None:
            var = Var(self, len(self.ops))
            self.ops.append(op)
            self._memo[op] = var
        return var

    def _op(self, name, *args):
        keys = [self._key(a) for a in args]
        if name in _COMMUTATIVE and keys[0] > keys[1]:
            keys.reverse()
        return self._emit((name, *keys))

    def _lookup(self, var: Var) -> tuple:
        return self.ops[var.i]

    # -- arithmetic with folding ----------------------------------------------------
    def add(self, a, b):
        if _const(a) and _const(b):
            return float(a) + float(b)
        if _const(a) and a == 0:
            return b
        if _const(b) and b == 0:
            return a
        if isinstance(b, Var) and self._lookup(b)[0] == "neg":
            return self.sub(a, Var(self, self._lookup(b)[1][1]))
        if isinstance(a, Var) and self._lookup(a)[0] == "neg":
            return self.sub(b, Var(self, self._lookup(a)[1][1]))
        return self._op("add", a, b)

    def sub(self, a, b):
        if _const(a) and _const(b):
            return float(a) - float(b)
        if _const(b) and b == 0:
            return a
        if _const(a) and a == 0:
            return self.neg(b)
        if a is b or (isinstance(a, Var) and isinstance(b, Var) and a.i == b.i):
            return 0.0
        if isinstance(b, Var) and self._lookup(b)[0] == "neg":
            return self.add(a, Var(self, self._lookup(b)[1][1]))
        return self._op("sub", a, b)

    def mul(self, a, b):
        if _const(a) and _const(b):
            return float(a) * float(b)
        if _const(b):
            a, b = b, a
        if _const(a):
            if a == 0:
                return 0.0
            if a == 1:
                return b
            if a == -1:
                return self.neg(b)
            op = self._lookup(b)
            if op[0] == "neg":  # c * (-x) = (-c) * x
                return self.mul(-float(a), Var(self, op[1][1]))
        return self._op("mul", a, b)

    def div(self, a, b):
        if _const(a) and _const(b):
            return float(a) / float(b)
        if _const(b):
            if b == 1:
                return a
            return self.mul(1.0 / float(b), a)
        if _const(a) and a == 0:
            return 0.0
        return self._op("div", a, b)

    def neg(self, a):
        if _const(a):
            return -float(a)
        op = self._lookup(a)
        if op[0] == "neg":
            return Var(self, op[1][1])
        if op[0] == "mul" and op[1][0] == "c":
            return self.mul(-op[1][1], Var(self, op[2][1]))
        return self._op("neg", a)

    def unary(self, name, fn, a):
        if _const(a):
            return fn(float(a))
        return self._op(name, a)

    # -- the functions the algorithms need (the ``ops`` namespace) -------------------
    def sin(self, a):
        return self.unary("sin", math.sin, a)

    def cos(self, a):
        return self.unary("cos", math.cos, a)

    def sqrt(self, a):
        return self.unary("sqrt", math.sqrt, a)

    def sign(self, a):
        return self.unary("sign", lambda x: float((x > 0) - (x < 0)), a)

    def exp(self, a):
        return self.unary("exp", math.exp, a)

    def tanh(self, a):
        return self.unary("tanh", math.tanh, a)

    def pow(self, a, c: float):
        """``a**c`` for a constant exponent ``c`` (``math.pow``: NaN, not a complex
        number, for a negative base and a fractional exponent, as the compiled code)."""
        c = float(c)
        if _const(a):
            try:
                return math.pow(float(a), c)
            except (ValueError, OverflowError):
                return math.nan
        return self._op("pow", a, c)

    @property
    def name(self) -> str:
        return "tape"

    # -- SymPy expressions of the model's parameters ------------------------------------
    def from_sympy(self, expr, symbols: dict) -> object:
        """Record a SymPy expression of parameters (``symbols``: Symbol -> Var).

        A model's numbers are expressions such as ``m2*l2**2/12`` or ``cos(alpha1)``;
        those without symbols become float constants (``cos(pi/2)`` is exactly 0).
        Integer powers become multiplications, ``x**(+-1/2)`` a square root, any other
        constant exponent a ``pow`` instruction.
        """
        if not expr.free_symbols:
            return float(expr)
        memo = self._sympy_memo
        hit = memo.get(expr)
        if hit is not None:
            return hit
        if expr.is_Symbol:
            out = symbols[expr]
        elif expr.is_Add or expr.is_Mul:
            parts = [self.from_sympy(a, symbols) for a in expr.args]
            out = parts[0]
            for part in parts[1:]:
                out = self.add(out, part) if expr.is_Add else self.mul(out, part)
        elif expr.is_Pow:
            base, exp = self.from_sympy(expr.base, symbols), expr.exp
            if exp.is_Integer:
                out = 1.0
                for _ in range(abs(int(exp))):
                    out = self.mul(out, base)
                out = self.div(1.0, out) if exp < 0 else out
            elif exp == sp.Rational(1, 2) or exp == sp.Rational(-1, 2):
                out = self.sqrt(base)
                out = self.div(1.0, out) if exp < 0 else out
            elif not exp.free_symbols:  # m**0.5, m**(1/3), m**pi
                out = self.pow(base, float(exp))
            else:
                raise ValueError(f"cannot generate code for the power {expr}")
        elif isinstance(expr, (sp.sin, sp.cos)):
            arg = self.from_sympy(expr.args[0], symbols)
            out = self.sin(arg) if isinstance(expr, sp.sin) else self.cos(arg)
        elif isinstance(expr, sp.sign):  # Coulomb friction F_s sign(qd) of closed forms
            out = self.sign(self.from_sympy(expr.args[0], symbols))
        elif isinstance(expr, sp.Abs):  # LuGre's |qd|: x sign(x), exact in floating point
            arg = self.from_sympy(expr.args[0], symbols)
            out = self.mul(arg, self.sign(arg))
        elif isinstance(expr, (sp.exp, sp.tanh)):  # Stribeck friction, the smooth sign
            arg = self.from_sympy(expr.args[0], symbols)
            out = self.exp(arg) if isinstance(expr, sp.exp) else self.tanh(arg)
        else:
            raise ValueError(f"cannot generate code for {expr} ({type(expr).__name__})")
        memo[expr] = out
        return out
