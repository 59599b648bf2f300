"""Polynomials of a :class:`~.trig_ring.TrigRing` back into SymPy expressions.

A polynomial ``sum_m c_m prod_k x_k^(m_k)`` becomes the SymPy sum of the products of
its generators' expressions: ``sin(q_i)``, ``cos(q_i)``, the joint variables and
rates, the parameters and the opaque atoms (a Float, ``sqrt(3)``, ``cos(alpha1)``).
This is the plain expanded form; :mod:`.simplify` prints the compact one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp
from sympy.polys.rings import PolyElement

if TYPE_CHECKING:  # pragma: no cover
    from .trig_ring import TrigRing

__all__ = ["to_expression", "rational"]


def rational(coef) -> sp.Rational:
    """A coefficient of the ring (an element of QQ) as a SymPy Rational."""
    return sp.Rational(int(coef.numerator), int(coef.denominator))


def to_expression(ring: TrigRing, p: PolyElement) -> sp.Expr:
    """The SymPy expression of ``p`` (expanded: a sum of products of generators)."""
    values = ring.gen_exprs
    terms = []
    for m, coef in p.iterterms():
        factors = [rational(coef)]
        for k, e in enumerate(m):
            if e:
                factors.append(values[k] if e == 1 else values[k] ** e)
        terms.append(sp.Mul(*factors))
    return sp.Add(*terms)
