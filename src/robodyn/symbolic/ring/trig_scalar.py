"""One closed form with the arithmetic of a scalar, so the core's algorithms run on it.

The core's algorithms (:func:`robodyn.dynamics.rnea.rnea`,
:func:`robodyn.dynamics.kinematics.link_poses`) are written once on scalars
(:mod:`robodyn.core.linalg3`). Given :class:`TrigScalar` numbers, and the ``sin``/``cos`` of
:meth:`.trig_ring.TrigRing.ops`, they run unchanged on closed forms, and every product
is reduced to the normal form (:mod:`.normal_form`) as it is formed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp
from sympy import QQ
from sympy.polys.rings import PolyElement

if TYPE_CHECKING:  # pragma: no cover
    from .trig_ring import TrigRing

__all__ = ["TrigScalar"]


class TrigScalar:
    """One polynomial ``p`` of a :class:`~.trig_ring.TrigRing` ``ring``, with ``+``,
    ``-``, ``*``, ``**`` (non-negative integer) and division by a nonzero rational number
    (or by a ring scalar whose normal form is one: a unit quaternion's squared norm,
    :func:`~robodyn.model.joints.quaternion_rotation`). Products are reduced with
    ``c^2 = 1 - s^2`` at once, so results come out in normal form."""

    __slots__ = ("ring", "p")

    def __init__(self, ring: TrigRing, p: PolyElement):
        self.ring = ring
        self.p = p

    def _other(self, b):
        if isinstance(b, TrigScalar):
            return b.p
        if isinstance(b, (int, PolyElement)):
            return b
        return self.ring.poly(b)

    def __add__(self, b):
        return TrigScalar(self.ring, self.p + self._other(b))

    __radd__ = __add__

    def __sub__(self, b):
        return TrigScalar(self.ring, self.p - self._other(b))

    def __rsub__(self, b):
        return TrigScalar(self.ring, self._other(b) - self.p)

    def __neg__(self):
        return TrigScalar(self.ring, -self.p)

    def __pos__(self):
        return self

    def __mul__(self, b):
        if isinstance(b, int):
            return TrigScalar(self.ring, self.p * b)
        return TrigScalar(self.ring, self.ring.reduce(self.ring.product(self.p, self._other(b))))

    __rmul__ = __mul__

    def __truediv__(self, b):
        if isinstance(b, int):
            return TrigScalar(self.ring, self.p * QQ(1, b))
        if isinstance(b, sp.Rational) and b != 0:
            return TrigScalar(self.ring, self.p * QQ(int(b.q), int(b.p)))
        if isinstance(b, TrigScalar):
            return TrigScalar(self.ring, self.p * (1 / b.constant()))
        raise TypeError("a ring scalar can only be divided by a nonzero rational number")

    def __rtruediv__(self, b):
        """``b / self`` where ``self`` reduces to a nonzero rational number."""
        if isinstance(b, (int, sp.Rational)):
            return TrigScalar(self.ring, self.ring.poly(b) * (1 / self.constant()))
        return NotImplemented

    def constant(self):
        """The value of a scalar whose normal form is a nonzero rational number (else a
        :class:`TypeError`: the ring has no quotients)."""
        if self.p and self.p.is_ground:
            return self.p.LC
        raise TypeError("a ring scalar can only be divided by a nonzero rational number")

    def __pow__(self, k: int):
        return TrigScalar(self.ring, self.ring.power(self.p, k))

    def __eq__(self, b):
        if isinstance(b, TrigScalar):
            return self.p == b.p
        try:
            return self.p == self._other(b)
        except (ValueError, TypeError):
            return False

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self):
        return bool(self.p)

    def expr(self) -> sp.Expr:
        return self.ring.expr(self.p)

    def __repr__(self) -> str:
        return f"TrigScalar({self.expr()})"
