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

from numba import njit

from .emit import TRIG_LIMIT as LIMIT
from .trig_numpy import reduce_argument, sin_cos_polynomials

# Every compiled kernel's text carries a hash of this file (robodyn.codegen.emit.TRIG_DIGEST,
# the kernels' cache key): an edit here recompiles them, no version to raise.
__all__ = ["LIMIT", "sin", "cos", "sincos", "sin_packed", "cos_packed", "sincos_packed"]

_INLINE = {"nogil": True, "cache": True, "error_model": "numpy", "inline": "always"}

# the reduction and the polynomials are robodyn.codegen.trig_numpy's functions, compiled:
# one text of them for every tier (a change there changes TRIG_DIGEST too)
_reduced = njit(**_INLINE)(reduce_argument)
_kernels = njit(**_INLINE)(sin_cos_polynomials)


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
