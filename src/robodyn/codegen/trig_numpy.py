"""The sines and cosines of :mod:`robodyn.codegen.trig` on NumPy arrays, bit for bit.

The compiled kernels compute ``sin`` and ``cos`` with :mod:`robodyn.codegen.trig`'s
arithmetic (fdlibm's reduction and polynomials, within one unit in the last place of the
C library's), not the C library's call. The kernel tiers that need no compile
(:mod:`robodyn.codegen.tiers`: the NumPy flavour of the traced program and the generic
kernel) run these same statements, in the same order, on whole columns, so a sine is the
same double in every tier and the tiers' results agree to the last bit wherever the
rest of the arithmetic is the same. Arguments of magnitude :data:`LIMIT` and more,
infinity and NaN take NumPy's ``sin`` and ``cos`` (the compiled kernels the C
library's). Imports NumPy only (no Numba: the no-compile tiers must not wait for it).
"""

from __future__ import annotations

import numpy as np

from .emit import TRIG_LIMIT as LIMIT

__all__ = ["sin", "cos", "sincos", "reduce_argument", "sin_cos_polynomials"]

#: Arrays of at most this many values take the Python floats' path (NumPy's whole-array
#: statements cost about 40 us however few the values; the floats' path 1 us a value).
SMALL = 16

# fdlibm's constants (musl's __rem_pio2 and __sin/__cos)
_INVPIO2 = 6.36619772367581382433e-01  # 2/pi
_TOINT = 6755399441055744.0  # 1.5 * 2^52
_PIO2_1 = 1.57079632673412561417e+00  # first 33 bits of pi/2
_PIO2_2 = 6.07710050630396597660e-11  # next 33 bits
_PIO2_2T = 2.02226624879595063154e-21  # pi/2 - (_PIO2_1 + _PIO2_2)
_PIO2_3 = 2.02226624871116645580e-21  # next 33 bits
_PIO2_3T = 8.47842766036889956997e-32  # pi/2 - (_PIO2_1 + _PIO2_2 + _PIO2_3)
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


def reduce_argument(x):
    """``(y0, y1, q)``: ``x = n pi/2 + y0 + y1`` and ``q = n mod 4``, for ``|x| < LIMIT``
    (on a number or elementwise on an array; :mod:`robodyn.codegen.trig` compiles this
    very function)."""
    fn = x * _INVPIO2 + _TOINT - _TOINT
    r = x - fn * _PIO2_1
    t = r
    w = fn * _PIO2_2
    r = t - w
    w = fn * _PIO2_2T - ((t - r) - w)
    t = r
    w = fn * _PIO2_3
    r = t - w
    w = fn * _PIO2_3T - ((t - r) - w)
    y0 = r - w
    y1 = (r - y0) - w
    q = fn - 4.0 * np.floor(fn * 0.25)
    return y0, y1, q


def sin_cos_polynomials(y0, y1):
    """``(sin y, cos y)`` of ``y = y0 + y1``, ``|y| <= pi/4`` (musl's ``__sin``, ``__cos``;
    compiled by :mod:`robodyn.codegen.trig` too)."""
    z = y0 * y0
    w = z * z
    r = _S2 + z * (_S3 + z * _S4) + z * w * (_S5 + z * _S6)
    v = z * y0
    s = y0 - ((z * (0.5 * y1 - v * r) - y1) - v * _S1)
    rc = z * (_C1 + z * (_C2 + z * _C3)) + w * w * (_C4 + z * (_C5 + z * _C6))
    hz = 0.5 * z
    wc = 1.0 - hz
    c = wc + (((1.0 - wc) - hz) + (z * rc - y0 * y1))
    return s, c


def _sincos_float(x: float) -> tuple[float, float]:
    """:func:`sincos` of one Python float: the same statements on Python floats (IEEE
    doubles, the same operations in the same order: the same bits), without NumPy's cost
    per scalar operation (a one-state call of the NumPy tier makes a sine per joint)."""
    if not abs(x) < LIMIT:  # and NaN: NumPy's, as the array path
        with np.errstate(invalid="ignore"):  # infinity: NaN, as the C library's
            return float(np.sin(x)), float(np.cos(x))
    y0, y1, q = reduce_argument(x)  # Python floats but q (NumPy's floor: one scalar)
    s, c = sin_cos_polynomials(y0, y1)
    if q == 1.0 or q == 3.0:
        s, c = c, s
    if q >= 2.0:
        s = -s
    if q == 1.0 or q == 2.0:
        c = -c
    return s, c


def sincos(x):
    """``(sin x, cos x)`` of an array (or number) ``x``: trig's ``sincos`` statement by
    statement (reduction ``x = n pi/2 + y0 + y1``, the polynomials of ``y``, the quadrant)."""
    if type(x) is float:
        return _sincos_float(x)
    x = np.asarray(x, dtype=np.float64)
    if x.size <= SMALL:  # a few states (a batch of one): per value, as the floats' path
        pairs = [_sincos_float(v) for v in x.ravel().tolist()]
        return (np.array([p[0] for p in pairs]).reshape(x.shape),
                np.array([p[1] for p in pairs]).reshape(x.shape))
    with np.errstate(invalid="ignore", over="ignore"):
        y0, y1, q = reduce_argument(x)
        s, c = sin_cos_polynomials(y0, y1)
    odd = (q == 1.0) | (q == 3.0)
    sine = np.where(odd, c, s)
    cosine = np.where(odd, s, c)
    sine = np.where(q >= 2.0, -sine, sine)
    cosine = np.where((q == 1.0) | (q == 2.0), -cosine, cosine)
    large = ~(np.abs(x) < LIMIT)  # and NaN
    if large.any():
        with np.errstate(invalid="ignore"):  # infinity: NaN, as the C library's
            sine = np.where(large, np.sin(x), sine)
            cosine = np.where(large, np.cos(x), cosine)
    return sine, cosine


def sin(x):
    """``sin x`` of :func:`sincos`."""
    return sincos(x)[0]


def cos(x):
    """``cos x`` of :func:`sincos`."""
    return sincos(x)[1]
