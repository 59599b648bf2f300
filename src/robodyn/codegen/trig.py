"""Sine and cosine in packed arithmetic, for the compiled kernels.

A call into the C library's ``sin`` or ``cos`` does not vectorise: in the blocked kernels
(:func:`~robodyn.codegen.emit.numba_block_source`) the joints' sines and cosines were most
of what was left of a Panda's gravity torques and mass matrix. Here they are arithmetic
that LLVM packs like the rest (four samples per AVX2 instruction), for ``|x| < LIMIT``:

* the argument is reduced to ``y = x - n pi/2``, ``|y| <= pi/4``, with ``n`` the nearest
  integer (``x 2/pi + 1.5 2^52 - 1.5 2^52``) and ``pi/2`` in three parts of 33, 33 and 53
  bits (Cody and Waite), ``y`` kept as a head and a tail good to 151 bits: the medium-size
  case of fdlibm's and musl's ``__rem_pio2`` with all three rounds made, not chosen;
* ``sin y`` and ``cos y`` are fdlibm's minimax polynomials (degree 13 and 14, as musl's
  ``__sin`` and ``__cos`` write them, the tail folded in), each under one unit in the last
  place;
* the quadrant ``n mod 4`` selects and signs them.

Larger, infinite and NaN arguments take the C library's ``math.sin`` and ``math.cos``
(:func:`sin` and :func:`cos` branch; the blocked kernels, which inline the packed forms,
fix such lanes up after the packed loop).
The results are within one unit in the last place of the true value and of the C
library's (equal to it for most arguments); every compiled flavour runs these same
statements, so the per-sample, blocked, one-state and loop kernels agree bit for bit
(tests/codegen/test_trig.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .emit import TRIG_LIMIT as LIMIT

# Every compiled kernel's text carries a hash of this file (robodyn.codegen.emit.TRIG_DIGEST,
# the kernels' cache key): an edit here recompiles them, no version to raise.
__all__ = ["LIMIT", "sin", "cos", "sincos", "sin_packed", "cos_packed", "sincos_packed"]

_INVPIO2 = 6.36619772367581382433e-01
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

_INLINE = {"nogil": True, "cache": True, "error_model": "numpy", "inline": "always"}


@njit(**_INLINE)
def _reduced(x):
    """``(y0, y1, q)``: ``x = n pi/2 + y0 + y1`` and ``q = n mod 4``, for ``|x| < LIMIT``."""
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


@njit(**_INLINE)
def _kernels(y0, y1):
    """``(sin y, cos y)`` of ``y = y0 + y1``, ``|y| <= pi/4`` (musl's ``__sin``, ``__cos``)."""
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


@njit(**_INLINE)
def sincos_packed(x):
    """``(sin x, cos x)`` for ``|x| < LIMIT``, one reduction for both, branch free (other
    arguments: finite wrong values)."""
    y0, y1, q = _reduced(x)
    s, c = _kernels(y0, y1)
    odd = (q == 1.0) | (q == 3.0)
    sine = c if odd else s
    cosine = s if odd else c
    return (-sine if q >= 2.0 else sine), (-cosine if (q == 1.0) | (q == 2.0) else cosine)


@njit(**_INLINE)
def sin_packed(x):
    """``sin x`` of :func:`sincos_packed` (inlined: the cosine's statements are dropped)."""
    return sincos_packed(x)[0]


@njit(**_INLINE)
def cos_packed(x):
    """``cos x`` of :func:`sincos_packed`."""
    return sincos_packed(x)[1]


# Called, not inlined, by the per-sample kernels: compiled once for all of them (inlined,
# they made a kernel's compile 2-3x longer, measured: the Panda's inverse dynamics 3.2 s
# against 1.3 s). The blocked kernels inline the packed forms, which then vectorise (called
# on a row of 16 lanes instead: the Panda's M 1.9x slower).
_CALLED = {"nogil": True, "cache": True, "error_model": "numpy"}


@njit(**_CALLED)
def sincos(x):
    """``(sin x, cos x)``: :func:`sincos_packed`, or the C library's beyond :data:`LIMIT`
    (and for infinity and NaN)."""
    if abs(x) < LIMIT:
        return sincos_packed(x)
    return math.sin(x), math.cos(x)


@njit(**_CALLED)
def sin(x):
    """``sin x`` of :func:`sincos`."""
    return sincos(x)[0]


@njit(**_CALLED)
def cos(x):
    """``cos x`` of :func:`sincos`."""
    return sincos(x)[1]
