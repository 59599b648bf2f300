"""The normal form of a closed form: no cosine squared, no square root squared.

A polynomial of a :class:`~.trig_ring.TrigRing` is reduced modulo the ideal of

* ``c^2 + s^2 - 1`` for every trig pair ``(c, s)`` (``cos q_i, sin q_i`` of a revolute
  joint, or ``cos a, sin a`` of a constant angle), and
* ``r^2 - n`` for every square root ``r = sqrt(n)`` of a positive integer, and
* ``e_w^2 + e_x^2 + e_y^2 + e_z^2 - 1`` for every unit quaternion ``(e_x, e_y, e_z, e_w)``
  of a ball or free joint (its rotation is then a polynomial of degree 2 in it).

In a lexicographic order with each ``c`` above its ``s`` the leading terms of these
generators are ``c^2`` and ``r^2``: pairwise coprime, so the generators are a Gröbner
basis (Buchberger's first criterion) and the remainder of the division is unique. Two
polynomials are equal modulo the identities exactly when their normal forms are equal.
A quaternion's identity is monic in ``e_w`` and shares no variable with the others: the
remainder of degree below 2 in ``e_w`` is unique just the same (division by a monic
polynomial in ``e_w`` over the other variables).

The division is done in closed form, term by term: with ``e = 2k + r`` (``r`` 0 or 1),

    c^e = c^r (1 - s^2)^k = c^r sum_j (-1)^j C(k, j) s^(2j),        r_^(2k + r) = n^k r_^r,
    e_w^e = e_w^r (1 - e_x^2 - e_y^2 - e_z^2)^k   (the multinomial expansion).

Only the public API of :mod:`sympy.polys.rings` is used: terms are read with
``iterterms``/``itermonoms`` and results built with ``PolyRing.from_dict``.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb, factorial

from sympy import QQ
from sympy.polys.rings import PolyElement, PolyRing

__all__ = ["normal_form", "reduce_trig_pairs", "reduce_square_roots", "reduce_quaternions"]


def normal_form(ring: PolyRing, p: PolyElement, pairs: Sequence[tuple[int, int]],
                roots: Sequence[tuple[int, int]] = (),
                quaternions: Sequence[tuple[int, tuple[int, int, int]]] = ()) -> PolyElement:
    """``p`` reduced by :func:`reduce_square_roots` (``roots``), then by
    :func:`reduce_trig_pairs` (``pairs``) and :func:`reduce_quaternions` (``quaternions``);
    ``p`` itself if nothing is to be reduced."""
    if roots:
        p = reduce_square_roots(ring, p, roots)
    if pairs:
        p = reduce_trig_pairs(ring, p, pairs)
    if quaternions:
        p = reduce_quaternions(ring, p, quaternions)
    return p


def reduce_trig_pairs(ring: PolyRing, p: PolyElement,
                      pairs: Sequence[tuple[int, int]]) -> PolyElement:
    """The remainder of ``p`` modulo ``c^2 + s^2 - 1`` of every pair of generator indices
    ``(c, s)`` in ``pairs``: every ``c`` of degree 2 or more rewritten by
    ``c^(2k+r) = c^r (1 - s^2)^k`` (see the module docstring)."""
    if not any(m[ci] >= 2 for m in p.itermonoms() for ci, _ in pairs):
        return p
    out: dict[tuple, object] = {}
    for m, coef in p.iterterms():
        terms = [(m, coef)]
        for ci, si in pairs:
            if not any(t[0][ci] >= 2 for t in terms):
                continue
            new = []
            for mm, cf in terms:
                e = mm[ci]
                if e < 2:
                    new.append((mm, cf))
                    continue
                k, r = divmod(e, 2)
                for j in range(k + 1):
                    m2 = list(mm)
                    m2[ci] = r
                    m2[si] += 2 * j
                    b = comb(k, j)
                    new.append((tuple(m2), cf * b if j % 2 == 0 else -(cf * b)))
            terms = new
        for mm, cf in terms:
            prev = out.get(mm)
            out[mm] = cf if prev is None else prev + cf
    return ring.from_dict(out)


def reduce_square_roots(ring: PolyRing, p: PolyElement,
                        roots: Sequence[tuple[int, int]]) -> PolyElement:
    """The remainder of ``p`` modulo ``r^2 - n`` for every ``(generator index of r, n)``
    in ``roots``: ``r^(2k + j) = n^k r^j``."""
    if not any(m[k] >= 2 for m in p.itermonoms() for k, _ in roots):
        return p
    out: dict[tuple, object] = {}
    for m, coef in p.iterterms():
        mm = list(m)
        for k, n in roots:
            if mm[k] >= 2:
                coef = coef * QQ(n) ** (mm[k] // 2)
                mm[k] %= 2
        key = tuple(mm)
        out[key] = out.get(key, QQ(0)) + coef
    return ring.from_dict(out)


def reduce_quaternions(ring: PolyRing, p: PolyElement,
                       quaternions: Sequence[tuple[int, tuple[int, int, int]]]) -> PolyElement:
    """The remainder of ``p`` modulo ``e_w^2 + e_x^2 + e_y^2 + e_z^2 - 1`` for every
    ``(index of e_w, (indices of e_x, e_y, e_z))`` in ``quaternions``: every ``e_w`` of
    degree 2 or more rewritten by ``e_w^(2k+r) = e_w^r (1 - e_x^2 - e_y^2 - e_z^2)^k``."""
    if not any(m[w] >= 2 for m in p.itermonoms() for w, _ in quaternions):
        return p
    out: dict[tuple, object] = {}
    for m, coef in p.iterterms():
        terms = [(m, coef)]
        for w, xyz in quaternions:
            new = []
            for mm, cf in terms:
                k, r = divmod(mm[w], 2)
                if k == 0:
                    new.append((mm, cf))
                    continue
                for powers, weight in _multinomial(k):
                    m2 = list(mm)
                    m2[w] = r
                    for idx, e in zip(xyz, powers[1:], strict=True):
                        m2[idx] += 2 * e
                    new.append((tuple(m2), cf * weight))
            terms = new
        for mm, cf in terms:
            prev = out.get(mm)
            out[mm] = cf if prev is None else prev + cf
    return ring.from_dict(out)


def _multinomial(k: int) -> list[tuple[tuple[int, int, int, int], int]]:
    """The terms of ``(1 - x^2 - y^2 - z^2)^k``: ``((a, b, c, d), coefficient)`` for
    ``1^a x^(2b) y^(2c) z^(2d)``, ``a + b + c + d = k``."""
    out = []
    for b in range(k + 1):
        for c in range(k + 1 - b):
            for d in range(k + 1 - b - c):
                a = k - b - c - d
                weight = factorial(k) // (factorial(a) * factorial(b) * factorial(c)
                                          * factorial(d))
                out.append(((a, b, c, d), -weight if (b + c + d) % 2 else weight))
    return out
