"""Dual numbers ``x + sum_k x'_k e_k`` (``e_k e_l = 0``) and their ``ops``: forward-mode
automatic differentiation of the scalar algorithms (the chain rules are listed in
:mod:`robodyn.dynamics.derivatives`, which runs them; Griewank & Walther, *Evaluating
Derivatives*, ch. 3). Apart from it so that an algorithm (friction's rate,
:mod:`robodyn.dynamics.friction`) can differentiate itself without importing the
derivative kernels.
"""

from __future__ import annotations

from collections.abc import Sequence


class Dual:
    """A scalar ``v`` with a tangent vector ``t`` (a tuple of scalars).

    Its scalars may be traced (:class:`~robodyn.codegen.tape.Var`): its ``op_priority``,
    higher than the tracer's, makes ``var + dual`` a ``Dual`` operation."""

    __slots__ = ("v", "t")
    op_priority = 20.0

    def __init__(self, v, t: tuple):
        self.v = v
        self.t = t

    def __add__(self, other):
        if isinstance(other, Dual):
            return Dual(self.v + other.v, tuple(a + b for a, b in zip(self.t, other.t)))
        return Dual(self.v + other, self.t)

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, Dual):
            return Dual(self.v - other.v, tuple(a - b for a, b in zip(self.t, other.t)))
        return Dual(self.v - other, self.t)

    def __rsub__(self, other):
        return Dual(other - self.v, tuple(-a for a in self.t))

    def __mul__(self, other):
        if isinstance(other, Dual):
            u, v = self.v, other.v
            return Dual(u * v, tuple(u * b + a * v for a, b in zip(self.t, other.t)))
        return Dual(self.v * other, tuple(a * other for a in self.t))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, Dual):
            inv = 1 / other.v
            value = self.v * inv
            return Dual(value, tuple((a - value * b) * inv for a, b in zip(self.t, other.t)))
        inv = 1 / other
        return Dual(self.v * inv, tuple(a * inv for a in self.t))

    def __rtruediv__(self, other):  # other / self
        inv = 1 / self.v
        value = other * inv
        factor = -(value * inv)
        return Dual(value, tuple(factor * a for a in self.t))

    def __neg__(self):
        return Dual(-self.v, tuple(-a for a in self.t))

    def __pos__(self):
        return self

    def __pow__(self, k):
        if k == 2:
            return self * self
        raise NotImplementedError("only x**2 of a dual number")

    def __repr__(self):
        return f"Dual({self.v!r}, {self.t!r})"


class DualOps:
    """The ``ops`` namespace of an algorithm run on :class:`Dual` numbers, built on the
    ``ops`` of their parts (the tracer's tape)."""

    def __init__(self, base):
        self.base = base

    @property
    def name(self) -> str:
        return f"dual-{self.base.name}"

    def sin(self, a):
        if not isinstance(a, Dual):
            return self.base.sin(a)
        c = self.base.cos(a.v)
        return Dual(self.base.sin(a.v), tuple(c * x for x in a.t))

    def cos(self, a):
        if not isinstance(a, Dual):
            return self.base.cos(a)
        s = -self.base.sin(a.v)
        return Dual(self.base.cos(a.v), tuple(s * x for x in a.t))

    def sqrt(self, a):
        if not isinstance(a, Dual):
            return self.base.sqrt(a)
        root = self.base.sqrt(a.v)
        half = 0.5 / root
        return Dual(root, tuple(half * x for x in a.t))

    def sign(self, a):
        # d sign(x)/dx = 0 away from x = 0 (Coulomb friction's derivative, module docstring)
        return self.base.sign(a.v if isinstance(a, Dual) else a)

    def exp(self, a):
        if not isinstance(a, Dual):
            return self.base.exp(a)
        value = self.base.exp(a.v)
        return Dual(value, tuple(value * x for x in a.t))

    def tanh(self, a):
        if not isinstance(a, Dual):
            return self.base.tanh(a)
        value = self.base.tanh(a.v)
        slope = 1 - value * value
        return Dual(value, tuple(slope * x for x in a.t))

    def pow(self, a, c: float):
        if not isinstance(a, Dual):
            return self.base.pow(a, c)
        factor = c * self.base.pow(a.v, c - 1)
        return Dual(self.base.pow(a.v, c), tuple(factor * x for x in a.t))


def seeded(values: Sequence, width: int, offset: int) -> list[Dual]:
    """Duals of ``values`` with unit tangents ``e_{offset + i}`` in ``width`` directions."""
    out = []
    for i, v in enumerate(values):
        t = [0.0] * width
        t[offset + i] = 1.0
        out.append(Dual(v, tuple(t)))
    return out
