"""What went wrong in a wrong entry of a student's answer, said without the answer.

:func:`diagnose` takes one entry, the student's (already in the model's names) and the
derived one, in the ring of the closed forms (:mod:`~robodyn.symbolic.ring.trig_ring`),
and returns the mistakes as ``(kind, hint)`` pairs. The kinds (:data:`KINDS`):

``sign``
    the whole entry, or one term of it, has the wrong sign;
``factor``
    the whole entry, or one term, is off by a constant factor (the Coriolis ``2``, the
    ``1/2`` of a kinetic energy);
``missing term`` / ``extra term``
    a term is missing or should not be there, named by its physical origin where the
    factors tell it (see :class:`Origins`);
``index``
    two indices are swapped (``q1``/``q2``, ``c1``/``c2``, ``cos(q1)``/``cos(q1 + q2)``):
    swapping them in the entry, or in one of its terms, makes it right;
``wrong``
    anything else.

A *term* is the part of the entry with one product of parameters, rates and prismatic
joint variables (its trigonometric factor aside): ``2 m2 l1 c2 cos(q2)`` is the term in
``m2 l1 c2``. A hint names such a product (for ``missing term`` the product of the
derived entry, as a teacher would: "the parallel-axis term of link 2 (m2 l1^2) is
missing"), never a whole derived entry, never its coefficients or angles.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from ..core.errors import ExpansionError

__all__ = ["KINDS", "Origins", "diagnose", "MAX_TERMS_SEARCHED"]

#: The kinds of mistake, and what each means.
KINDS = {
    "sign": "the whole entry, or one term of it, has the wrong sign",
    "factor": "the whole entry, or one term, is off by a constant factor (the Coriolis 2, "
              "the 1/2 of a kinetic energy)",
    "missing term": "a term is missing (named by its physical origin where robodyn can tell)",
    "extra term": "a term should not be there",
    "index": "two indices are swapped (q1 and q2, c1 and c2, cos(q1) and cos(q1 + q2))",
    "wrong": "anything else",
    "symbol": "a name that is not a symbol of the model (map it with --symbols or --define)",
}
#: An entry with more terms than this (the student's, expanded) is not searched for
#: swapped indices term by term, and more swaps than :data:`MAX_SWAPS` are not tried.
MAX_TERMS_SEARCHED = 60
MAX_SWAPS = 40
#: Entries of more monomials than this (given and derived together, in normal form) are
#: not searched for swapped indices at all: each try converts the entry anew.
MAX_SWAP_MONOMIALS = 300
SWAP_WORK = 3000
#: More differing terms than this in one entry are one ``wrong`` mistake.
MAX_TERM_MISTAKES = 4
#: At most this many missing terms of one entry are named by their product.
MAX_NAMED_MISSING = 2
_SPLIT = re.compile(r"^([A-Za-z_]*?[A-Za-z])_?(\d+)$")


@dataclass
class Origins:
    """Which link and which physics each parameter belongs to, from the model's chain:
    ``mass[symbol] = link`` (1-based), ``inertia``, ``motor``, ``friction`` likewise;
    ``gravity``: the symbols of the gravity vector."""

    mass: dict = field(default_factory=dict)
    inertia: dict = field(default_factory=dict)
    motor: dict = field(default_factory=dict)
    friction: dict = field(default_factory=dict)
    gravity: set = field(default_factory=set)

    @classmethod
    def of_chain(cls, chain) -> Origins:
        out = cls()

        def syms(x):
            if isinstance(x, sp.Basic):
                return x.free_symbols
            if isinstance(x, (list, tuple)):
                return set().union(*(syms(y) for y in x)) if x else set()
            return set()

        for i, link in enumerate(chain.links, start=1):
            for s in syms(link.inertial.mass):
                out.mass.setdefault(s, i)
            for s in syms(link.inertial.inertia):
                out.inertia.setdefault(s, i)
            for s in syms([link.motor.inertia, link.motor.gear_ratio]):
                out.motor.setdefault(s, i)
            for s in syms([link.friction.viscous, link.friction.coulomb]):
                out.friction.setdefault(s, i)
            for p in getattr(link, "point_masses", ()) or ():  # masses on the link, if any
                for s in syms(getattr(p, "mass", 0)):
                    out.mass.setdefault(s, i)
        out.gravity = set(syms(list(chain.gravity)))
        return out


@dataclass
class Entry:
    """One entry to diagnose: ``quantity`` (``"M"``, ``"C"``, ...), ``column`` (0-based,
    for ``C``), ``given`` / ``expected`` as SymPy in the model's names."""

    quantity: str
    column: int | None
    given: sp.Expr
    expected: sp.Expr


def diagnose(ring, entry: Entry, origins: Origins, show: Callable[[sp.Expr], str]
             ) -> list[tuple[str, str]]:
    """The mistakes of one wrong entry as ``[(kind, hint), ...]`` (at least one).

    ``ring``: the :class:`~robodyn.symbolic.ring.trig_ring.TrigRing` holding both
    expressions; ``show`` writes a SymPy expression in the student's names."""
    try:
        a, b = ring.poly(entry.given), ring.poly(entry.expected)
    except (ValueError, TypeError, ExpansionError):
        return _outside_ring(entry)
    if a == b:
        return []
    if b and a == -b:
        return [("sign", "the whole entry has the wrong sign")]
    if b and a:
        ratio = _ratio(a, b)
        if ratio is not None:
            return [("factor", "the whole entry is off by a constant factor "
                               f"(it is {_times(ratio)} the right one)")]
    swap = _index_swap(ring, entry, a, b, show)
    if swap:
        return [swap]
    return _by_terms(ring, entry, a, b, origins, show)


def _outside_ring(entry: Entry) -> list[tuple[str, str]]:
    """An entry the ring cannot hold (``sign(qd)`` of Coulomb friction): sign, else wrong."""
    try:
        if entry.expected != 0 and sp.simplify(entry.given + entry.expected) == 0:
            return [("sign", "the whole entry has the wrong sign")]
    except (ValueError, TypeError, RecursionError):
        pass
    return [("wrong", "the entry is not right")]


def _ratio(a, b) -> Fraction | None:
    """``a / b`` when it is a constant, else None (both non-zero polynomials)."""
    if len(a) != len(b):
        return None
    da, db = dict(a.terms()), dict(b.terms())
    if da.keys() != db.keys():
        return None
    ratios = {Fraction(int(da[k].numerator), int(da[k].denominator))
              / Fraction(int(db[k].numerator), int(db[k].denominator)) for k in da}
    return ratios.pop() if len(ratios) == 1 else None


# -- terms: the product of parameters, rates and prismatic joint variables ------------------
def _trig_indices(ring) -> set[int]:
    return set(ring.s_index.values()) | set(ring.c_index.values())


def _groups(ring, p) -> dict[tuple, dict]:
    """``{key: {trig monomial: coefficient}}``: the monomials of ``p`` grouped by their
    non-trigonometric part (the key, an exponent tuple with the trig exponents zero)."""
    trig = _trig_indices(ring)
    out: dict[tuple, dict] = {}
    for exps, coeff in p.terms():
        key = tuple(0 if k in trig else e for k, e in enumerate(exps))
        out.setdefault(key, {})[tuple(e if k in trig else 0 for k, e in enumerate(exps))] = coeff
    return out


def _key_symbols(ring, key: tuple) -> list[tuple[sp.Expr, int]]:
    return [(ring.gen_exprs[k], e) for k, e in enumerate(key) if e]


def _describe(ring, key: tuple, show: Callable[[sp.Expr], str]) -> str:
    """The product of a key in the student's names: ``m2 l1^2 theta1dot^2``."""
    parts = _key_symbols(ring, key)
    if not parts:
        return "constant"
    n = ring.dof
    rates = {ring.gen_exprs[k] for k in range(2 * n)}

    def order(item):
        s = item[0]
        return (s in rates, not str(s).startswith("m"), str(s))
    return " ".join(show(s) + (f"^{e}" if e > 1 else "") for s, e in sorted(parts, key=order))


def _origin(ring, key: tuple, trig_constant: bool, entry: Entry, origins: Origins,
            show: Callable[[sp.Expr], str]) -> str:
    """The physical origin of the term with ``key`` in words: "a gravity term of link 2",
    "a Coriolis term", "the parallel-axis term of link 2", "link 1's own inertia", ..."""
    n = ring.dof
    syms = dict(_key_symbols(ring, key))
    qdd = [i for i in range(n) if key[i]]
    qd = [(i, key[n + i]) for i in range(n) if key[n + i]]

    def link_of(table):
        links = sorted({table[s] for s in syms if s in table})
        return links[0] if len(links) == 1 else None

    def of(link):
        return f" of link {link}" if link else ""

    if any(s in origins.friction for s in syms):
        j = link_of(origins.friction)
        return "a friction term" + (f" of joint {j}" if j else "")
    if any(s in origins.gravity for s in syms) or (entry.quantity == "g" and not qd):
        return "a gravity term" + of(link_of(origins.mass))
    degree = sum(e for _, e in qd)
    if entry.quantity == "C" and entry.column is not None and degree == 1:
        # C_ij qd_k multiplies qd_j in C qd: centrifugal when k = j
        return "a centrifugal term" if qd[0][0] == entry.column else "a Coriolis term"
    if degree == 2:
        return "a centrifugal term" if len(qd) == 1 else "a Coriolis term"
    if qd:
        return "a velocity term"
    # inertial (M, or the qdd part of tau)
    prefix = "an inertial term (in " + show(ring.gen_exprs[qdd[0]]) + "): " if qdd else ""
    j = link_of(origins.motor)
    if j:
        return prefix + f"the motor inertia of joint {j}"
    j = link_of(origins.inertia)
    if j and not any(s in origins.mass for s in syms):
        return prefix + f"link {j}'s own inertia"
    j = link_of(origins.mass)
    if j and not any(s in origins.inertia for s in syms):
        # the mass of link j times lengths (or prismatic joint variables)
        rest = sum(e for s, e in syms.items() if s not in origins.mass
                   and s not in ring.rate_symbols)
        if not trig_constant:
            what = f"a configuration-dependent term of link {j}'s mass"
        elif rest == 0:
            what = f"the mass of link {j}"
        elif rest == 2:
            what = f"the parallel-axis term of link {j}"
        else:
            what = f"a term of link {j}'s mass"
        return prefix + what
    return prefix.rstrip(": ") if prefix else "a term"


def _by_terms(ring, entry: Entry, a, b, origins: Origins, show) -> list[tuple[str, str]]:
    """Compare ``a`` and ``b`` term by term (see the module docstring). Missing terms are
    named with their product only while the student has the rest right (at most
    :data:`MAX_NAMED_MISSING` of them); more are counted by origin, and an entry with none
    of its terms right is ``wrong`` (else the hints would spell the answer out)."""
    ga, gb = _groups(ring, a), _groups(ring, b)
    keys = [k for k in {**gb, **ga} if ga.get(k) != gb.get(k)]
    if len(keys) > MAX_TERM_MISTAKES or (gb and not any(ga.get(k) == gb[k] for k in gb)
                                         and len(gb) > 1):
        return [("wrong", "the entry is not right" + ("" if a else " (it is not zero)"))]
    trig_one = tuple(0 for _ in range(len(ring.gen_exprs)))
    out, missing = [], []
    for key in keys:
        tg, te = ga.get(key), gb.get(key)
        what = _describe(ring, key, show)
        if tg is None:
            missing.append((_origin(ring, key, set(te) == {trig_one}, entry, origins, show),
                            what))
            continue
        origin = _origin(ring, key, set(tg) == {trig_one}, entry, origins, show)
        what += f" ({origin})" if origin != "a term" else ""
        ratios = {tg[m] / te[m] for m in tg} if te is not None and tg.keys() == te.keys() \
            else set()
        if te is None:
            out.append(("extra term", f"the term in {what} should not be there"))
        elif ratios == {-1}:
            out.append(("sign", f"the term in {what} has the wrong sign"))
        elif len(ratios) == 1:
            (r,) = ratios
            out.append(("factor", f"the term in {what} is off by a constant factor "
                                  f"(it is {_times(r)} the right one)"))
        else:
            out.append(("wrong", f"the term in {what} depends on the joint "
                                 "angles in the wrong way"))
    if len(missing) > MAX_NAMED_MISSING:
        origins_named = ", ".join(sorted({o for o, _ in missing}))
        out.append(("missing term", f"{len(missing)} terms are missing ({origins_named})"))
    elif any(ga.get(k) == gb[k] for k in gb):
        out += [("missing term", f"{origin} ({what}) is missing") for origin, what in missing]
    else:  # nothing right yet: the origin only, not the product
        out += [("missing term", f"{origin} is missing") for origin, _ in missing]
    return out or [("wrong", "the entry is not right")]


def _times(r) -> str:
    """``2 times``, ``1/2 of``, ``-3 times``: a ratio of the given to the right term."""
    r = Fraction(int(r.numerator), int(r.denominator))
    text = str(r.numerator) if r.denominator == 1 else f"{r.numerator}/{r.denominator}"
    return f"{text} of" if abs(r) < 1 else f"{text} times"


# -- swapped indices ---------------------------------------------------------------------
def _swaps(entry: Entry, model_symbols: set) -> list[tuple[dict, tuple]]:
    """Candidate swaps: pairs of symbols with the same stem and other indices (``q1``,
    ``q2``; ``c1``, ``c2``), and pairs of angles under sin/cos (``q1``, ``q1 + q2``)."""
    syms = sorted((entry.given.free_symbols | entry.expected.free_symbols) & model_symbols,
                  key=str)
    stems: dict[str, list] = {}
    for s in syms:
        m = _SPLIT.match(str(s))
        if m:
            stems.setdefault(m.group(1), []).append(s)
    out = []
    for group in stems.values():
        for i, x in enumerate(group):
            for y in group[i + 1:]:
                out.append(({x: y, y: x}, (x, y)))
    angles = sorted({f.args[0] for e in (entry.given, entry.expected)
                     for f in e.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    for i, x in enumerate(angles):
        for y in angles[i + 1:]:
            table = {sp.cos(x): sp.cos(y), sp.cos(y): sp.cos(x), sp.sin(x): sp.sin(y),
                     sp.sin(y): sp.sin(x)}
            out.append((table, (sp.cos(x), sp.cos(y))))
    return out[:MAX_SWAPS]


def _index_swap(ring, entry: Entry, a, b, show) -> tuple[str, str] | None:
    """A swap of two indices that makes the entry right, in the whole entry or in one of
    the student's terms: ``("index", hint)``, else None."""
    if len(a) + len(b) > MAX_SWAP_MONOMIALS:  # each try converts the whole entry: bounded
        return None
    model_symbols = set(ring.gen_exprs)
    # a swap can only help where the entry is wrong: it must touch a symbol of the
    # difference (a swap of angles, a joint angle of it)
    involved = {ring.gen_exprs[k] for exps in (a - b).monoms() for k, e in enumerate(exps) if e}
    involved |= {q for k, q in enumerate(ring.q) if ring.revolute[k]
                 and (ring.gen_exprs[ring.s_index[k]] in involved
                      or ring.gen_exprs[ring.c_index[k]] in involved)}
    swaps = [(t, pair) for t, pair in _swaps(entry, model_symbols)
             if any(s in involved for p in pair for s in p.free_symbols)]
    if not swaps:
        return None
    # the whole entry is converted once per swap tried: at most SWAP_WORK monomials in all
    swaps = swaps[:max(1, SWAP_WORK // max(1, len(a) + len(b)))]
    terms = sp.Add.make_args(sp.expand(entry.given))
    for table, (x, y) in swaps:
        pair = f"{show(x)} and {show(y)}"
        try:
            if ring.poly(entry.given.xreplace(table)) == b:
                return ("index", f"{pair} look swapped in this entry")
        except (ValueError, TypeError, ExpansionError):
            continue
    if len(terms) > MAX_TERMS_SEARCHED:
        return None
    for table, (x, y) in swaps:
        for t in terms:
            if not t.has(x, y):
                continue
            swapped = t.xreplace(table)
            if swapped == t:
                continue
            try:
                if a - ring.poly(t) + ring.poly(swapped) == b:
                    factors = " ".join(show(f) for f in sp.Mul.make_args(t)
                                       if not f.is_number)
                    return ("index", f"{show(x)} and {show(y)} look swapped in the term "
                                     f"{factors}")
            except (ValueError, TypeError, ExpansionError):
                continue
    return None


def student_namer(inverse: Mapping[sp.Symbol, sp.Symbol]) -> Callable[[sp.Expr], str]:
    """A function writing an expression in the student's names (``inverse``: model symbol
    -> the student's), with ``^`` for powers as students write them."""
    def show(x: sp.Expr) -> str:
        text = str(x.xreplace(dict(inverse)))
        return text.replace("**", "^")
    return show
