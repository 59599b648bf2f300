"""How many terms an expression has once expanded: a cheap upper bound, before expanding.

The closed forms (:mod:`robodyn.symbolic`) expand every expression into a sum of
monomials: ``(a1 + ... + a8)**64`` is 30 characters and 1.3e9 monomials. This module
bounds that number in one pass over the expression tree, bottom-up, without expanding
anything, with the counting rules of the multinomial theorem:

* a symbol or a number is 1 term;
* a sum has at most the sum of its terms' counts, a product the product of its factors';
* a power ``b**n`` of a base of ``k`` terms has at most ``C(n + k - 1, k - 1)`` (the
  monomials of degree ``n`` in ``k`` variables); a negative or fractional exponent counts
  by the integer part of its magnitude (``b**(5/2)`` expands to ``b**2 sqrt(b)``);
* ``sin``/``cos`` of a constant angle (``cos(alpha)``) or of one joint angle (``q1``)
  counts as 2 terms, since the ring of the closed forms rewrites ``cos(x)**2`` as
  ``1 - sin(x)**2`` (``cos(x)**8`` has 5 terms): counting ``cos`` as a sum of two bounds
  what the rewriting adds. ``sin``/``cos`` of a sum of joint angles
  ``k_1 q_1 + ... + k_m q_m`` expand by the addition theorems and de Moivre's formula
  into at most ``2 prod_i 2 (|k_i| + 1)`` terms; with ``L = sum_i |k_i|`` that is at most
  ``2 (2 (L/m + 1))^m`` (the arithmetic-geometric mean inequality). ``L`` is bounded
  bottom-up too (the sum of the coefficients' magnitudes of a product is at most the
  product of those of its factors);
* anything else (``sqrt(b)``, a function) is one term.

Every subexpression is bounded, not only the whole (``sqrt((a + b)**64)`` is one term
outside, but its argument is expanded). Counts saturate at the cap, so the pass costs a
few operations per node whatever the numbers.

:func:`check_expansion` is used by the model files' expressions
(:mod:`robodyn.model.expressions`) and by the answer checker
(:mod:`robodyn.teaching.compare`); the ring of the closed forms
(:class:`robodyn.symbolic.ring.trig_ring.TrigRing`) has its own term budget for what
multiplies out during a derivation.
"""

from __future__ import annotations

import dataclasses
import math
import re

from ..core.errors import ExpansionError, excerpt
from ..core.lazy import sp

__all__ = ["MAX_EXPANDED_TERMS", "expanded_terms", "check_expansion", "describe_terms",
           "largest_expression"]

#: Most terms one expression (a model file's field, an entry of an answer) may expand to.
#: A model's expressions have a few terms (``m2*l2**2/12``: 1, ``(l1 + l2)**2``: 3); the
#: derivation multiplies them with each other, and has a budget of its own for that.
MAX_EXPANDED_TERMS = 10_000
#: Where the counts of the bound saturate when it is only reported (``about 1.3e9``).
_REPORT_CAP = 10**30
#: The joint angles: sin/cos of a sum of them expand (a model's parameters cannot be named
#: so; the angle of ``sin(alpha)`` is a constant, and stays one generator).
_JOINT_ANGLE = re.compile(r"^q\d+$")


def _multinomial(k: int, n: int, cap: int) -> int:
    """``C(n + k - 1, k - 1)``, the monomials of ``(x_1 + ... + x_k)**n``, or ``cap + 1``
    once it exceeds ``cap`` (it grows with each factor, so the loop stops early)."""
    if n <= 0 or k <= 1:
        return 1
    if k > cap:
        return cap + 1
    count = 1
    for i in range(1, n + 1):
        count = count * (k - 1 + i) // i
        if count > cap:
            return cap + 1
    return count


def _exponent(e: sp.Expr) -> int | None:
    """The integer part of ``|e|`` for a real number ``e``; None for a symbolic one."""
    if not e.is_Number:
        return None
    try:
        x = abs(float(e))
    except (TypeError, OverflowError):
        return None
    return int(x) if math.isfinite(x) else None


def _magnitude(e: sp.Expr) -> float:
    try:
        x = abs(float(e))
    except (TypeError, OverflowError):
        return 1.0
    return x if math.isfinite(x) else math.inf


def expanded_terms(expr, cap: int = MAX_EXPANDED_TERMS) -> int:
    """An upper bound on the number of monomials of ``expr`` (a SymPy expression or a
    number) and of every subexpression of it, expanded as the closed forms are (see the
    module docstring); ``cap + 1`` means "more than ``cap``". Linear in the size of the
    expression tree (shared subtrees are visited once)."""
    if not isinstance(expr, sp.Basic):
        return 1
    # node -> (terms, bound on the sum of |coefficients| of its expansion, has a joint angle)
    seen: dict[sp.Basic, tuple[int, float, bool]] = {}
    stack: list[tuple[sp.Basic, bool]] = [(expr, False)]
    worst = 1
    while stack:
        node, ready = stack.pop()
        if node in seen:
            continue
        if not ready and node.args:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in seen)
            continue
        seen[node] = _node(node, seen, cap)
        worst = max(worst, seen[node][0])
        if worst > cap:
            return cap + 1
    return worst


def _node(node: sp.Basic, seen: dict, cap: int) -> tuple[int, float, bool]:
    """``(terms, coefficient norm, has a joint angle)`` of one node from its arguments'."""
    if node.is_Number:
        return 1, _magnitude(node), False
    if not node.args:  # a symbol, pi, ...
        return 1, 1.0, bool(node.is_Symbol and _JOINT_ANGLE.match(str(node)))
    args = [seen[a] for a in node.args]
    joint = any(a[2] for a in args)
    if node.is_Add:
        return min(sum(a[0] for a in args), cap + 1), sum(a[1] for a in args), joint
    if node.is_Mul:
        t, size = 1, 1.0
        for a in args:
            t = min(t * a[0], cap + 1)
            size *= a[1]
        return t, size, joint
    if node.is_Pow:
        (t, size, _), _ = args
        n = _exponent(node.exp)
        if n is None:  # a symbolic exponent: one opaque term
            return 1, 1.0, joint
        try:
            size = size**n if n else 1.0
        except OverflowError:
            size = math.inf
        return _multinomial(t, n, cap), size, joint
    if isinstance(node, (sp.sin, sp.cos)):
        t, size, _ = args[0]
        if not joint or (t == 1 and size <= 1):  # cos(alpha), sin(q1): one generator
            return 2, 1.0, joint                 # (cos counted as two, see the module)
        size = size if size <= cap else cap  # (NaN too: saturated)
        m = max(1, min(t, int(size)))
        try:
            bound = 2 * (2 * (size / m + 1)) ** m
        except OverflowError:
            bound = math.inf
        return (cap + 1 if not bound <= cap else math.ceil(bound)), 1.0, joint
    return 1, 1.0, joint  # sqrt, sign, another function: one opaque term


def describe_terms(expr) -> str:
    """``about 1.2e9`` (or ``more than 1e30``) terms of ``expr`` expanded, for a message."""
    n = expanded_terms(expr, _REPORT_CAP)
    if n > _REPORT_CAP:
        return f"more than {float(_REPORT_CAP):.0e}"
    return f"{n:,}" if n < 10**6 else f"about {float(n):.2g}"


#: What to do about a model expression that expands too far.
MODEL_FIX = ("write it with fewer terms: one parameter for a sum under a power (e.g. L for "
             "a1 + a2 + ..., its number in values:), or a smaller exponent or multiple")


def check_expansion(expr, field: str, raw: object = None, cap: int = MAX_EXPANDED_TERMS,
                    fix: str = MODEL_FIX, error: type[Exception] = ExpansionError) -> sp.Basic:
    """``expr`` if it (and each subexpression) expands to at most ``cap`` terms
    (:func:`expanded_terms`); else ``error`` (an :class:`~robodyn.core.errors.ExpansionError`)
    naming ``field`` (or ``raw``, the text as written), the size and ``fix``."""
    if expanded_terms(expr, cap) > cap:
        text = excerpt(expr if raw is None else raw)
        raise error(f"{field}: {text} expands to {describe_terms(expr)} terms, more than the "
                    f"{cap:,} allowed; {fix}")
    return expr


def largest_expression(value, path: str = "") -> tuple[str, sp.Basic | None, int]:
    """``(path, expression, terms)`` of the expression in ``value`` (a dataclass such as a
    :class:`~robodyn.model.chain.Chain`, nested tuples and lists of SymPy expressions) that
    expands to the most terms (:func:`expanded_terms`, reported sizes); ``path`` reads
    like ``links[0].inertial.mass``. ``("", None, 0)`` when there is no expression."""
    best: tuple[str, sp.Basic | None, int] = ("", None, 0)
    stack = [(path, value)]
    while stack:
        where, x = stack.pop()
        if isinstance(x, sp.Basic):
            n = expanded_terms(x, _REPORT_CAP)
            if n > best[2]:
                best = (where, x, n)
        elif isinstance(x, (tuple, list)):
            stack.extend((f"{where}[{i}]", y) for i, y in enumerate(x))
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend((f"{where}.{f.name}" if where else f.name, getattr(x, f.name))
                         for f in dataclasses.fields(x))
    return best
