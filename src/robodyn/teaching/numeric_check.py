"""Numbers and angles outside the exact comparison of :mod:`robodyn.teaching.compare`:
decimals read as the fractions they are (:func:`rationalize`), and entries compared
numerically at random points (:func:`numerically_equal`) where a decimal is no fraction
or an angle is a fraction of a joint angle (:func:`fractional_angles`, half-angle
identities). Two analytic functions equal at random points are equal up to rounding.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["RATIONAL_TOLERANCE", "MAX_DENOMINATOR", "NUMERIC_TOLERANCE", "NUMERIC_POINTS",
           "HALF_ANGLE_NOTE", "as_fraction", "rationalize", "numerically_equal",
           "fractional_angles"]


#: A decimal within this (relative) distance of a fraction with a denominator of at most
#: :data:`MAX_DENOMINATOR` is that fraction (``1.0`` is 1, ``0.5`` is 1/2, ``0.333333333333``
#: is not 1/3: it is 3e-13 away, inside, so it is; ``0.3333`` is not).
RATIONAL_TOLERANCE = 1e-12
MAX_DENOMINATOR = 10**6
#: A decimal that is no such fraction is compared numerically: the entry is right when
#: ``|given - expected| <= NUMERIC_TOLERANCE * max(1, |expected|)`` at several random points.
NUMERIC_TOLERANCE = 1e-9
NUMERIC_POINTS = 5


def as_fraction(value: float) -> sp.Rational | None:
    from fractions import Fraction
    f = Fraction(value).limit_denominator(MAX_DENOMINATOR)
    if abs(float(f) - value) <= RATIONAL_TOLERANCE * max(1.0, abs(value)):
        return sp.Rational(f.numerator, f.denominator)
    return None


def rationalize(given: dict[str, sp.Matrix]) -> tuple[dict[str, sp.Matrix], list[str]]:
    """Replace every decimal equal to a fraction (within :data:`RATIONAL_TOLERANCE`) by the
    fraction, so that ``1.0*m2*c2**2`` is ``m2*c2**2`` and ``0.5*m*g*l`` is ``m*g*l/2``;
    return the decimals that are no fraction (left as they are)."""
    inexact: list[str] = []
    out = {}
    for quantity, m in given.items():
        table = {}
        for x in m.atoms(sp.Float):
            r = as_fraction(float(x))
            if r is None:
                inexact.append(f"{float(x):g}")
            else:
                table[x] = r
        out[quantity] = m.xreplace(table) if table else m
    return out, sorted(set(inexact))


#: The note of an entry with half angles (``cos(q2/2)``) found right numerically.
HALF_ANGLE_NOTE = ("angles that are fractions of a joint angle (q2/2) are outside the exact "
                   "normal form: those entries were compared numerically (relative tolerance "
                   f"{NUMERIC_TOLERANCE:g} at {NUMERIC_POINTS} points)")


def fractional_angles(x: sp.Expr, q) -> bool:
    """Whether ``x`` has a sine or cosine of a fraction of a joint angle (``cos(q2/2)``,
    half-angle identities such as ``2 cos(q2/2)^2 - 1 = cos(q2)``)."""
    for f in x.atoms(sp.sin, sp.cos):
        arg = sp.expand(f.args[0])
        if any(not arg.coeff(qi).is_integer for qi in q if arg.has(qi)):
            return True
    return False


def numerically_equal(x: sp.Expr, y: sp.Expr) -> bool:
    """``x == y`` within :data:`NUMERIC_TOLERANCE` at :data:`NUMERIC_POINTS` random points
    of all their symbols (values in [0.5, 2], deterministic)."""
    import random
    rng = random.Random(0)
    symbols = sorted(x.free_symbols | y.free_symbols, key=lambda s: s.name)
    try:
        for _ in range(NUMERIC_POINTS):
            point = {s: sp.Float(rng.uniform(0.5, 2.0)) for s in symbols}
            a, b = complex(x.xreplace(point).evalf()), complex(y.xreplace(point).evalf())
            if abs(a - b) > NUMERIC_TOLERANCE * max(1.0, abs(b)):
                return False
    except (TypeError, ValueError):
        return False
    return True
