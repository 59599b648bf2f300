"""SymPy expressions into polynomials of a :class:`~.trig_ring.TrigRing`.

Two passes over an expression tree:

* :func:`scan` collects what the ring needs besides the joint variables: parameter
  symbols and *opaque atoms*, numbers that are not rational (a ``Float`` such as the
  PUMA's ``0.4318``, ``sqrt(3)``, ``cos(alpha1)`` of a symbolic or Float angle). Atoms
  become generators of their own, so a Float stays a Float and arithmetic stays exact.
* :func:`to_polynomial` converts: sums and products term by term (each product reduced
  to the normal form at once, :mod:`.normal_form`), non-negative integer powers by
  repeated multiplication, and ``sin``/``cos`` of an angle ``sum_i k_i q_i + a``
  (integer ``k_i``, revolute joints) by the addition theorems and de Moivre:

      cos(k q) + i sin(k q) = (cos q + i sin q)^k,
      cos(x + a) = cos x cos a - sin x sin a,   sin(x + a) = sin x cos a + cos x sin a.

Anything else must be an atom the ring was built with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp
from sympy import QQ
from sympy.polys.rings import PolyElement

from ...model.chain import REVOLUTE, Chain
from ...model.expressions import to_sympy
from .trig_scalar import TrigScalar

if TYPE_CHECKING:  # pragma: no cover
    from .trig_ring import TrigRing

__all__ = ["scan", "split_angle", "to_polynomial", "chain_expressions", "square_root",
           "cos_of_constant", "sin_of_constant"]


def scan(ring: TrigRing, e, params: set, atoms: dict) -> None:
    """Add the parameter symbols of ``e`` to ``params`` and its opaque atoms to ``atoms``
    (a dict used as an ordered set). ``e``: a SymPy expression, a number, a matrix or a
    sequence of them; ring scalars are skipped (they are in the ring already)."""
    if isinstance(e, TrigScalar):
        return
    if isinstance(e, (tuple, list)):
        for x in e:
            scan(ring, x, params, atoms)
        return
    e = to_sympy(e)
    if isinstance(e, sp.MatrixBase):
        for x in e:
            scan(ring, x, params, atoms)
        return
    if e.is_Rational:
        return
    if e.is_Float:
        if e != 0:
            atoms[abs(e)] = None
        return
    if e.is_Symbol:
        if e not in ring.joint_index and e not in ring.rate_symbols:
            params.add(e)
        return
    if e.is_Add or e.is_Mul:
        for a in e.args:
            scan(ring, a, params, atoms)
        return
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        scan(ring, e.base, params, atoms)
        return
    if isinstance(e, (sp.sin, sp.cos)):
        split = split_angle(ring, e.args[0])
        if split is not None:
            _, const = split
            if const != 0:
                scan(ring, cos_of_constant(const), params, atoms)
                scan(ring, sin_of_constant(const), params, atoms)
            return
    if e.is_number and not e.is_finite:
        raise ValueError(f"{e} is not a finite number")
    atoms[e] = None


def split_angle(ring: TrigRing, arg: sp.Expr):
    """``(k, const)`` with ``arg = sum_i k[i] q_i + const``, integer ``k`` over revolute
    joints; None if ``arg`` has no revolute joint variable or is not of that form."""
    q, revolute = ring.q, ring.revolute
    if not any(arg.has(q[i]) for i in range(len(q)) if revolute[i]):
        return None
    coeffs: dict[int, int] = {}
    const = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(arg)):
        hit = [i for i in range(len(q)) if term.has(q[i])]
        if not hit:
            const += term
            continue
        coeff, rest = term.as_coeff_Mul()
        if len(hit) != 1 or rest != q[hit[0]] or not revolute[hit[0]] \
                or not coeff.is_Integer:
            return None
        coeffs[hit[0]] = coeffs.get(hit[0], 0) + int(coeff)
    return coeffs, const


def to_polynomial(ring: TrigRing, e: sp.Expr) -> PolyElement:
    """The polynomial of ``e`` (not yet reduced at the top level; see the module)."""
    R = ring.ring
    if e.is_Rational:
        return R.ground_new(QQ(int(e.p), int(e.q)))
    if e.is_Float:
        if e == 0:
            return R.zero
        gen = ring.atom_gen.get(abs(e))
        if gen is None:
            raise ValueError(f"{e}: not an atom of this ring")
        return gen if e > 0 else -gen
    if e.is_Symbol:
        gen = ring.gen_of.get(e)
        if gen is None:
            gen = ring.atom_gen.get(e)
        if gen is None:
            raise ValueError(f"{e}: not a generator of this ring")
        return gen
    if e.is_Add:
        out = R.zero
        for a in e.args:
            out += to_polynomial(ring, a)
        return out
    if e.is_Mul:
        out = R.one
        for a in e.args:
            out = ring.reduce(ring.product(out, to_polynomial(ring, a)))
        return out
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        return ring.power(to_polynomial(ring, e.base), int(e.exp))
    if isinstance(e, (sp.sin, sp.cos)):
        split = split_angle(ring, e.args[0])
        if split is not None:
            coeffs, const = split
            c, s = _angle(ring, coeffs)
            if const != 0:
                cc = ring.poly(cos_of_constant(const))
                sc = ring.poly(sin_of_constant(const))
                c, s = c * cc - s * sc, s * cc + c * sc
            return ring.reduce(c if isinstance(e, sp.cos) else s)
    gen = ring.atom_gen.get(e)
    if gen is None:
        raise ValueError(f"{e}: not an atom of this ring (rebuild the ring with it)")
    return gen


def _angle(ring: TrigRing, coeffs: dict[int, int]) -> tuple[PolyElement, PolyElement]:
    """cos and sin of ``sum_i k_i q_i`` (addition theorems)."""
    c, s = ring.one, ring.zero
    for i, k in coeffs.items():
        ci, si = _multiple(ring, i, k)
        c, s = (ring.reduce(ring.product(c, ci) - ring.product(s, si)),
                ring.reduce(ring.product(s, ci) + ring.product(c, si)))
    return c, s


def _multiple(ring: TrigRing, i: int, k: int) -> tuple[PolyElement, PolyElement]:
    """cos and sin of ``k q_i`` (de Moivre)."""
    gens = ring.ring.gens
    c1, s1 = gens[ring.c_index[i]], gens[ring.s_index[i]]
    c, s = ring.one, ring.zero
    for _ in range(abs(k)):
        c, s = ring.reduce(c * c1 - s * s1), ring.reduce(s * c1 + c * s1)
    return (c, s) if k >= 0 else (c, -s)


def chain_expressions(chain: Chain) -> list:
    """Every SymPy number of a chain, plus cos/sin of the revolute offsets (for scanning)."""
    out: list = []
    out += chain.numbers()
    for link in chain.links:
        if link.joint.type == REVOLUTE:
            off = to_sympy(link.joint.offset)
            out += [cos_of_constant(off), sin_of_constant(off)]
    return out


def square_root(e) -> int | None:
    """``n`` if ``e`` is ``sqrt(n)`` of a positive integer, else None."""
    if e.is_Pow and e.exp == sp.Rational(1, 2) and e.base.is_Integer and e.base > 0:
        return int(e.base)
    return None


def cos_of_constant(x):
    """cos of a constant angle; of a Float angle kept unevaluated (an exact trig pair)."""
    return sp.cos(x, evaluate=False) if x.has(sp.Float) else sp.cos(x)


def sin_of_constant(x):
    """sin of a constant angle; of a Float angle kept unevaluated (an exact trig pair)."""
    return sp.sin(x, evaluate=False) if x.has(sp.Float) else sp.sin(x)
