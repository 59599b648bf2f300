"""The compact forms a textbook prints, entry by entry, without ``trigsimp``.

A closed form arrives here as a reduced polynomial of a :class:`~.trig_ring.TrigRing`
(products of ``sin q_i``, ``cos q_i`` with coefficients in the parameters and rates).
Two readings of it are built and the shorter one is printed:

* the *sum-angle* form: every product of sines and cosines rewritten as sines and
  cosines of sums of angles (``cos q1 cos q2 - sin q1 sin q2 = cos(q1 + q2)``), found
  exactly by expanding each product in ``e^{i q}`` (a finite Fourier series, unique);
* the *product* form: the reduced polynomial itself, ``sin^2``, ``cos q2 sin q3``.

In both, the coefficient of each trigonometric term is collected and its common
factors are pulled out (``g (c1 m1 + l1 m2) cos(q1)``). The cost is linear in the
number of terms: no pattern search over the whole matrix.

:func:`canonical` and :func:`equal` decide whether two SymPy expressions are equal
by comparing their normal forms (a proof, not a numerical test).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from math import gcd

import sympy as sp
from sympy import QQ
from sympy.polys.rings import PolyElement

from ..core.errors import ExpansionError
from ..model.chain import REVOLUTE
from ..model.expressions import to_sympy
from .ring.back_to_sympy import rational
from .ring.trig_ring import TrigRing

__all__ = ["textbook", "textbook_matrix", "canonical", "equal", "simplify_expression",
           "trig_form"]

#: The two trigonometric forms a closed form can be printed in (module docstring).
SUM_ANGLE, PRODUCT = "sum-angle", "product"


#: Float terms smaller than this, relative to the largest term of the same entry, are
#: rounding residue of the model's Float numbers (e.g. ``R^T R = 1`` of a URDF ``rpy``
#: rotation holds only to 1e-16) and are not printed.
FLOAT_RESIDUE = 1e-11

#: Two Float coefficients whose difference is below this, relative to their size, are
#: printed as the same number: a common factor of a sum (``0.45 (qd1 + qd2)``), or a
#: ratio that is an integer.
FLOAT_SAME = 1e-12

#: Two closed forms of a model with Float numbers are equal when their difference is below
#: this, relative to their largest term (the rounding of the Floats accumulated over a
#: whole derivation).
FLOAT_TOLERANCE = 1e-9


def textbook(ring: TrigRing, p: PolyElement, raw: bool = False,
             scale: float | None = None, form: str | None = None) -> sp.Expr:
    """The compact SymPy form of the polynomial ``p`` (see the module docstring).

    By default the model's Float numbers are multiplied out into Float coefficients
    (terms that are only rounding residue are dropped, see :data:`FLOAT_RESIDUE`) and
    other opaque numbers (``sqrt(3)``) are put back. ``raw=True`` keeps every opaque
    atom as its placeholder symbol instead, so that
    ``ring.poly(textbook(ring, p, raw=True)) == p`` exactly. ``scale``: the size of the
    largest term of the whole matrix ``p`` belongs to (default: of ``p``), against which
    rounding residue is judged. ``form``: :data:`SUM_ANGLE` or :data:`PRODUCT` to print
    that form whatever its size (one form for a whole derivation, :func:`trig_form`);
    default: the shorter of the two for ``p`` alone.
    """
    if not p:
        return sp.Integer(0)
    terms = dict(p.iterterms()) if raw else evaluate_floats(ring, p, scale=scale)
    if not terms:
        return sp.Integer(0)
    out = _textbook(ring, terms, scale, form)
    if raw or not ring.atom_values:
        return out
    return out.xreplace(ring.atom_values)


def evaluate_floats(ring: TrigRing, p: PolyElement, drop: bool = True,
                    scale: float | None = None) -> dict:
    """``p`` with its Float atoms multiplied into the coefficients: ``{monomial: c}`` with
    ``c`` exact (QQ) where no Float was involved and a Python float otherwise; float
    terms below :data:`FLOAT_RESIDUE` of the largest term dropped if ``drop``."""
    floats = ring.float_atoms
    if not floats:
        return dict(p.iterterms())
    out: dict[tuple, object] = {}
    # sorted: equal polynomials give bit-equal Float sums whatever their dict order
    for m, coef in sorted(p.iterterms()):
        if any(m[k] for k, _ in floats):
            value = float(coef)
            m = list(m)
            for k, x in floats:
                if m[k]:
                    value *= x ** m[k]
                    m[k] = 0
            m = tuple(m)
        else:
            value = coef
        prev = out.get(m)
        out[m] = value if prev is None else _add(prev, value)
    if drop:
        out = _drop_residue(out, scale)
    return {m: c for m, c in out.items() if c}


def _add(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return float(a) + float(b)
    return a + b


def _scale(c, f):
    if isinstance(c, float):
        return c * float(f)
    return c * f


def _drop_residue(terms: dict, scale: float | None = None) -> dict:
    if scale is None:
        scale = max((abs(float(c)) for c in terms.values()), default=0.0)
    limit = FLOAT_RESIDUE * scale
    return {m: c for m, c in terms.items()
            if c and not (isinstance(c, float) and abs(c) <= limit)}


def _form_sizes(ring: TrigRing, terms: dict, scale: float | None = None):
    """``(buckets, freq_buckets, fourier_size, product_size)`` of ``terms`` (see
    :func:`_textbook`): the terms grouped by their trigonometric monomial, the same terms
    as sines and cosines of sums of angles, and the number of terms of each form."""
    rev = [i for i in range(len(ring.revolute)) if ring.revolute[i]]
    has_float = any(isinstance(c, float) for c in terms.values())
    if scale is None:
        scale = max(abs(float(c)) for c in terms.values())
    s_idx = [ring.s_index[i] for i in rev]
    c_idx = [ring.c_index[i] for i in rev]
    trig_idx = set(s_idx) | set(c_idx)
    buckets: dict[tuple, dict] = {}
    for m, coef in terms.items():
        key = tuple((m[s], m[c]) for s, c in zip(s_idx, c_idx, strict=True))
        rest = tuple(0 if k in trig_idx else e for k, e in enumerate(m))
        bucket = buckets.setdefault(key, {})
        bucket[rest] = coef
    # sum-angle (Fourier) form
    freq_buckets: dict[tuple, list[dict]] = {}
    for key, bucket in buckets.items():
        for freq, (a, b) in _fourier(key).items():
            slots = freq_buckets.setdefault(freq, [{}, {}])
            for slot, factor in ((0, a), (1, b)):
                if factor == 0:
                    continue
                target = slots[slot]
                for rest, coef in bucket.items():
                    prev = target.get(rest)
                    v = _scale(coef, factor)
                    v = v if prev is None else _add(prev, v)
                    if v:
                        target[rest] = v
                    else:
                        target.pop(rest, None)
    if has_float:
        for slots in freq_buckets.values():
            slots[0] = _drop_residue(slots[0], scale)
            slots[1] = _drop_residue(slots[1], scale)
    fourier_size = sum(len(s[0]) + len(s[1]) for s in freq_buckets.values())
    return buckets, freq_buckets, fourier_size, len(terms)


def trig_form(ring: TrigRing, polys: Iterable[PolyElement]) -> str:
    """The form (:data:`SUM_ANGLE` or :data:`PRODUCT`) with fewer terms over all of
    ``polys`` together (ties: sum-angle), so that one derivation is printed in one
    trigonometric form throughout, not ``cos(q1 + q2)`` here and ``cos q1 cos q2 - sin q1
    sin q2`` there."""
    if not any(ring.revolute):
        return SUM_ANGLE
    fourier = product = 0
    for p in polys:
        if not p:
            continue
        terms = evaluate_floats(ring, p)
        if terms:
            _, _, f, n = _form_sizes(ring, terms)
            fourier += f
            product += n
    return SUM_ANGLE if fourier <= product else PRODUCT


def _textbook(ring: TrigRing, terms: dict, scale: float | None = None,
              form: str | None = None) -> sp.Expr:
    rev = [i for i in range(len(ring.revolute)) if ring.revolute[i]]
    small = len(terms) <= 40
    if not rev:
        return _coefficient_expr(ring, terms, small)
    buckets, freq_buckets, fourier_size, product_size = _form_sizes(ring, terms, scale)
    q = ring.q
    use_sum = fourier_size <= product_size if form is None else form == SUM_ANGLE
    if use_sum:
        out = []
        for freq in sorted(freq_buckets, key=lambda f: (sum(map(abs, f)), [-x for x in f])):
            cos_part, sin_part = freq_buckets[freq]
            angle = sp.Add(*(k * q[i] for k, i in zip(freq, rev, strict=True)))
            if cos_part:
                trig = sp.cos(angle) if angle != 0 else sp.Integer(1)
                out.append(_coefficient_expr(ring, cos_part, small) * trig)
            if sin_part:
                out.append(_coefficient_expr(ring, sin_part, small) * sp.sin(angle))
        return sp.Add(*out)
    out = []
    for key, bucket in buckets.items():
        trig = sp.Mul(*(sp.sin(q[i]) ** a * sp.cos(q[i]) ** b
                        for (a, b), i in zip(key, rev, strict=True)))
        out.append(_coefficient_expr(ring, bucket, small) * trig)
    return sp.Add(*out)


def textbook_matrix(ring: TrigRing, rows: Sequence[Sequence[PolyElement]],
                    form: str | None = None) -> sp.Matrix:
    """:func:`textbook` of every entry of a matrix given as rows of polynomials (rounding
    residue judged against the largest term of the whole matrix)."""
    scale = float_scale(ring, [p for row in rows for p in row])
    return sp.Matrix([[textbook(ring, p, scale=scale, form=form) for p in row]
                      for row in rows])


def float_scale(ring: TrigRing, polys: Iterable[PolyElement]) -> float | None:
    """The largest term (Floats multiplied out) of ``polys``; None without Float atoms."""
    if not ring.float_atoms:
        return None
    return max((abs(float(c)) for p in polys for c in evaluate_floats(ring, p, drop=False)
                .values()), default=0.0)


def polys_equal(ring: TrigRing, a: Sequence[PolyElement], b: Sequence[PolyElement]) -> bool:
    """``a[k] == b[k]`` for all ``k``: exactly, or, in a model with Float numbers, up to
    their rounding (:data:`FLOAT_TOLERANCE` of the largest term of ``a`` and ``b``; the
    terms without Floats must still agree exactly)."""
    a, b = list(a), list(b)
    if all(x == y for x, y in zip(a, b, strict=True)):
        return True
    if not ring.float_atoms:
        return False
    scale = float_scale(ring, a + b) or 0.0
    for x, y in zip(a, b, strict=True):
        for c in evaluate_floats(ring, x - y, drop=False).values():
            if not isinstance(c, float) or abs(c) > FLOAT_TOLERANCE * scale:
                return False
    return True


def _coefficient_expr(ring: TrigRing, terms: dict, try_factor: bool = False) -> sp.Expr:
    """A polynomial (``{monomial: coefficient}``) as SymPy, with its common monomial and
    rational content pulled out (``g l1 (m1 + m2)``); small ones also through
    :func:`sympy.factor` when ``try_factor``."""
    if len(terms) == 1:
        (m, c), = terms.items()
        return _monomial_expr(ring, m, c)
    monomials = list(terms)
    lowest = tuple(min(col) for col in zip(*monomials, strict=True))
    if any(isinstance(c, float) for c in terms.values()):
        # a common Float factor, when every term has the same size (0.45 (qd1 + qd2))
        sizes = [abs(float(c)) for c in terms.values()]
        same = max(sizes) - min(sizes) <= FLOAT_SAME * max(sizes)
        content = sizes[0] if same else QQ(1)
        if same and all(float(c) < 0 for c in terms.values()):
            content = -content
    else:
        numerators = [int(c.numerator) for c in terms.values()]
        denominators = [int(c.denominator) for c in terms.values()]
        content = QQ(gcd_list(numerators), lcm_list(denominators))
        if all(x < 0 for x in numerators):
            content = -content
    rest = sp.Add(*(_monomial_expr(ring, tuple(a - b for a, b in zip(m, lowest, strict=True)),
                                   _divide(c, content))
                    for m, c in terms.items()))
    out = sp.Mul(_monomial_expr(ring, lowest, content), rest)
    if try_factor and len(terms) <= 6 and not out.has(sp.Float):
        try:
            factored = sp.factor(out)
        except (sp.PolificationFailed, NotImplementedError):  # pragma: no cover
            return out
        if sp.count_ops(factored) < sp.count_ops(out):
            out = factored
    return out


def _divide(c, content):
    if content == 1:
        return c
    if isinstance(content, float):
        value = float(c) / content
        return QQ(round(value)) if abs(value - round(value)) <= FLOAT_SAME * abs(value) else value
    return c / content


def _monomial_expr(ring: TrigRing, m: tuple, c) -> sp.Expr:
    if isinstance(c, float):
        number = sp.Float(c)
    elif isinstance(c, int):
        number = sp.Integer(c)
    else:
        number = rational(c)
    cache = ring.monomial_cache
    mono = cache.get(m)
    if mono is None:
        values = ring.gen_exprs_raw
        mono = sp.Mul(*(values[k] if e == 1 else values[k] ** e for k, e in enumerate(m) if e))
        if len(cache) < 200_000:
            cache[m] = mono
    return number * mono if number != 1 else mono


@lru_cache(maxsize=4096)
def _fourier(key: tuple) -> dict[tuple, tuple]:
    """``prod_i sin(q_i)^a_i cos(q_i)^b_i`` as ``{k: (A_k, B_k)}`` (QQ) with
    ``sum_k A_k cos(k.q) + B_k sin(k.q)`` over frequency vectors whose first nonzero
    entry is positive (``k = 0``: the constant ``A_0``).

    Each factor is a Laurent polynomial in ``z = e^{iq}``: ``cos = (z + 1/z)/2``,
    ``sin = (z - 1/z)/(2i)``; products are kept as Gaussian integers ``(re, im)`` over the
    common denominator ``2^degree``."""
    series: dict[tuple, tuple[int, int]] = {(): (1, 0)}
    degree = 0
    for a, b in key:
        degree += a + b
        angle: dict[int, tuple[int, int]] = {0: (1, 0)}
        factors = [{1: (1, 0), -1: (1, 0)}] * b + [{1: (0, -1), -1: (0, 1)}] * a
        for fac in factors:
            nxt: dict[int, tuple[int, int]] = {}
            for f1, (r1, i1) in angle.items():
                for f2, (r2, i2) in fac.items():
                    r, i = nxt.get(f1 + f2, (0, 0))
                    nxt[f1 + f2] = (r + r1 * r2 - i1 * i2, i + r1 * i2 + i1 * r2)
            angle = {f: v for f, v in nxt.items() if v != (0, 0)}
        new: dict[tuple, tuple[int, int]] = {}
        for k, (r1, i1) in series.items():
            for f, (r2, i2) in angle.items():
                new[k + (f,)] = (r1 * r2 - i1 * i2, r1 * i2 + i1 * r2)
        series = new
    denominator = 2 ** degree
    out: dict[tuple, tuple] = {}
    for k, (re, im) in series.items():
        first = next((x for x in k if x != 0), 0)
        if first < 0:
            continue
        if first == 0:
            if re:
                out[k] = (QQ(re, denominator), QQ(0))
            continue
        if re or im:
            out[k] = (QQ(2 * re, denominator), QQ(-2 * im, denominator))
    return out


# -- equality of expressions ------------------------------------------------------------

def _ring_for(exprs: Iterable, dof: int | None, joint_types: Sequence[str] | None) -> TrigRing:
    exprs = list(exprs)
    if joint_types is None:
        if dof is None:
            dof = _max_joint_index(exprs)
        joint_types = [REVOLUTE] * dof
    return TrigRing(joint_types, exprs)


def _max_joint_index(exprs) -> int:
    n = 0
    for e in exprs:
        for s in to_sympy(e).free_symbols:
            name = s.name
            for prefix in ("qdd", "qd", "q"):
                rest = name[len(prefix):]
                if name.startswith(prefix) and rest.isdigit():
                    n = max(n, int(rest))
                    break
    return n


def canonical(exprs: Sequence, dof: int | None = None,
              joint_types: Sequence[str] | None = None) -> tuple[TrigRing, list[PolyElement]]:
    """The normal forms of ``exprs`` in one ring (joint variables ``q1..``, ``qd1..``,
    ``qdd1..``; revolute unless ``joint_types`` says otherwise)."""
    flat = [to_sympy(e) for e in exprs]
    ring = _ring_for(flat, dof, joint_types)
    return ring, [ring.poly(e) for e in flat]


def equal(a, b, dof: int | None = None, joint_types: Sequence[str] | None = None) -> bool:
    """``a == b`` identically (expressions or matrices of the same shape), decided on the
    normal forms; falls back to :func:`sympy.simplify` for anything outside the ring."""
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        a, b = sp.Matrix(a), sp.Matrix(b)
        if a.shape != b.shape:
            return False
        return all(equal(x, y, dof, joint_types) for x, y in zip(a, b, strict=True))
    diff = to_sympy(a) - to_sympy(b)
    try:
        ring, (p,) = canonical([diff], dof, joint_types)
    except ExpansionError:  # too large for the ring: far too large for simplify
        raise
    except ValueError:
        return sp.simplify(diff) == 0
    if not p:
        return True
    # non-rational atoms (sqrt(2), ...) are opaque in the ring: check their relations
    if ring.atoms:
        return sp.simplify(ring.expr(p)) == 0
    return False


def simplify_expression(expr, dof: int | None = None,
                        joint_types: Sequence[str] | None = None):
    """The compact form of any expression (or matrix) in the joint variables."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: simplify_expression(e, dof, joint_types))
    ring, (p,) = canonical([expr], dof, joint_types)
    return textbook(ring, p)


def gcd_list(values: list[int]) -> int:
    out = 0
    for v in values:
        out = gcd(out, v)
    return out or 1


def lcm_list(values: list[int]) -> int:
    out = 1
    for v in values:
        out = out * v // gcd(out, v)
    return out
