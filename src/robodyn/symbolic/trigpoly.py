"""Polynomials in the sines and cosines of the joint angles: the algebra of closed forms.

Every quantity of a rigid serial chain (poses, velocities, energies, torques) is a
polynomial in ``s_i = sin(q_i)``, ``c_i = cos(q_i)`` of the revolute joints, the
prismatic joint variables ``q_i``, the rates ``qd_i``, ``qdd_i`` and the model
parameters. Held in that form (SymPy's sparse polynomial rings,
:mod:`sympy.polys.rings`) and reduced with ``c_i^2 = 1 - s_i^2`` after every product,
an expression has exactly one representation: sums cancel as they are formed, zero is
recognised by looking, and there is no expression swell. This is what makes a 6-DOF
derivation take seconds where ``trigsimp`` on expanded matrices takes minutes.

:class:`TrigRing` converts SymPy expressions in and out and differentiates;
:class:`TrigScalar` wraps one polynomial so that the core's algorithms, written once on
scalars (:mod:`robodyn.linalg3`), run on it unchanged; :meth:`TrigRing.ops` supplies
the ``sin``/``cos`` they call.

Numbers that are not rational (``Float`` parameters such as the PUMA's ``0.4318``,
``sqrt(3)``, ``cos(alpha1)``) enter as opaque generators and are put back on the way
out, so a Float stays a Float and the arithmetic stays exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from math import comb
from types import SimpleNamespace

import sympy as sp
from sympy import QQ
from sympy.polys.orderings import lex
from sympy.polys.rings import PolyElement, PolyRing

from ..model.chain import REVOLUTE, Chain
from ..model.expressions import to_sympy

__all__ = ["TrigRing", "TrigScalar", "joint_symbols"]


def joint_symbols(n: int) -> tuple[tuple[sp.Symbol, ...], ...]:
    """``(q1..qn), (qd1..qdn), (qdd1..qddn)``: plain SymPy symbols, 1-based as the seeds."""
    q = tuple(sp.Symbol(f"q{i}") for i in range(1, n + 1))
    qd = tuple(sp.Symbol(f"qd{i}") for i in range(1, n + 1))
    qdd = tuple(sp.Symbol(f"qdd{i}") for i in range(1, n + 1))
    return q, qd, qdd


class _Opaque(Exception):
    """An expression that is not a polynomial in the ring's generators."""


class TrigRing:
    """The polynomial ring of one chain's closed forms.

    Generators, in this order: ``qdd``, ``qd``, ``q`` (all joints), ``s_i``, ``c_i``
    (revolute joints), the parameter symbols (sorted by name), extra symbols (e.g. the
    end-effector wrench), then opaque atoms (Floats, irrational numbers, ``cos(alpha)``
    of a symbolic angle: each ``cos``/``sin`` pair of such an angle is reduced with
    ``cos^2 + sin^2 = 1`` too).

    ``joint_types``: one of ``"revolute"``/``"prismatic"`` per joint. ``exprs``: every
    SymPy expression the ring must hold (its parameters and atoms are collected).
    """

    def __init__(self, joint_types: Sequence[str], exprs: Iterable = (),
                 extra_symbols: Sequence[sp.Symbol] = ()):
        n = len(joint_types)
        self.dof = n
        self.joint_types = tuple(joint_types)
        self.revolute = tuple(t == REVOLUTE for t in joint_types)
        self.q, self.qd, self.qdd = joint_symbols(n)
        self._joint_index = {s: i for i, s in enumerate(self.q)}
        self._rate_symbols = set(self.qd) | set(self.qdd)
        params: set[sp.Symbol] = set()
        atoms: dict[sp.Expr, None] = {}
        self._collect_params = params
        self._collect_atoms = atoms
        for e in exprs:
            self._scan(e)
        extra = tuple(extra_symbols)
        self.params = tuple(sorted(params - set(extra), key=lambda s: s.name))
        self.extra = extra
        # trig pairs of opaque constant angles: cos(x) and sin(x) both present
        atom_list = sorted(atoms, key=sp.default_sort_key)
        for a in list(atom_list):
            if isinstance(a, (sp.cos, sp.sin)):
                partner = (_sin if isinstance(a, sp.cos) else _cos)(a.args[0])
                if partner not in atoms and isinstance(partner, (sp.cos, sp.sin)):
                    atoms[partner] = None
                    atom_list.append(partner)
        self.atoms = tuple(sorted(atoms, key=sp.default_sort_key))

        rev = [i for i in range(n) if self.revolute[i]]
        self._s_sym = {i: sp.Dummy(f"s{i + 1}") for i in rev}
        self._c_sym = {i: sp.Dummy(f"c{i + 1}") for i in rev}
        atom_syms = [sp.Dummy(f"a{k}") for k in range(len(self.atoms))]
        symbols = (list(self.qdd) + list(self.qd) + list(self.q)
                   + [self._s_sym[i] for i in rev] + [self._c_sym[i] for i in rev]
                   + list(self.params) + list(extra) + atom_syms)
        self.ring = PolyRing(symbols, QQ, lex)
        gens = self.ring.gens
        self.zero, self.one = self.ring.zero, self.ring.one
        self._gen_of: dict[sp.Expr, PolyElement] = {}
        self._index_of: dict[sp.Expr, int] = {}
        for k, sym in enumerate(symbols):
            self._index_of[sym] = k
        for sym, gen in zip(symbols, gens, strict=True):
            self._gen_of[sym] = gen
        pairs_atoms = list(zip(self.atoms, atom_syms, strict=True))
        self._atom_gen = {a: self._gen_of[d] for a, d in pairs_atoms}
        self._atom_index = {a: self._index_of[d] for a, d in pairs_atoms}
        # back-conversion: generator index -> SymPy expression
        self.gen_exprs: list[sp.Expr] = list(self.qdd) + list(self.qd) + list(self.q)
        self.gen_exprs += [sp.sin(self.q[i]) for i in rev] + [sp.cos(self.q[i]) for i in rev]
        self.gen_exprs += list(self.params) + list(extra) + list(self.atoms)
        #: the same with each opaque atom as its own placeholder symbol (exact round trips)
        self.gen_exprs_raw = self.gen_exprs[:len(self.gen_exprs) - len(self.atoms)] + atom_syms
        self.atom_values = dict(zip(atom_syms, self.atoms, strict=True))
        #: (generator index, value) of the atoms that are Floats or functions of Floats
        #: (``cos(0.1)`` of a Float joint offset, kept whole so that cos^2 + sin^2 = 1)
        self.float_atoms = tuple((self._atom_index[a], float(a.evalf())) for a in self.atoms
                                 if a.is_Float or (a.is_number and a.has(sp.Float)))
        #: (generator index, n) of square roots sqrt(n): reduced with sqrt(n)^2 = n
        self.roots = tuple((self._atom_index[a], _square_root(a)) for a in self.atoms
                           if _square_root(a) is not None)
        self.qdd_index = tuple(range(n))
        self.qd_index = tuple(range(n, 2 * n))
        self.q_index = tuple(range(2 * n, 3 * n))
        self.s_index = {i: self._index_of[self._s_sym[i]] for i in rev}
        self.c_index = {i: self._index_of[self._c_sym[i]] for i in rev}
        #: generator indices of the trig pairs (c, s) reduced with c^2 = 1 - s^2
        pairs = [(self.c_index[i], self.s_index[i]) for i in rev]
        for a in self.atoms:
            if isinstance(a, sp.cos):
                partner = _sin(a.args[0])
                if partner in self._atom_index:
                    pairs.append((self._atom_index[a], self._atom_index[partner]))
        self.pairs = tuple(pairs)
        self._memo: dict[sp.Expr, PolyElement] = {}
        #: monomial (exponent tuple) -> its SymPy product, shared by the printer
        self.monomial_cache: dict[tuple, sp.Expr] = {}
        self._ops = None

    # -- generators --------------------------------------------------------------
    def gen(self, symbol: sp.Expr) -> PolyElement:
        """The generator of a joint, rate or parameter symbol."""
        return self._gen_of[symbol]

    def s(self, i: int) -> PolyElement:
        return self.ring.gens[self.s_index[i]]

    def c(self, i: int) -> PolyElement:
        return self.ring.gens[self.c_index[i]]

    # -- scanning ----------------------------------------------------------------
    def _scan(self, e) -> None:
        if isinstance(e, TrigScalar):
            return
        if isinstance(e, (tuple, list)):
            for x in e:
                self._scan(x)
            return
        e = to_sympy(e)
        if isinstance(e, sp.MatrixBase):
            for x in e:
                self._scan(x)
            return
        if e.is_Rational:
            return
        if e.is_Float:
            if e != 0:
                self._collect_atoms[abs(e)] = None
            return
        if e.is_Symbol:
            if e not in self._joint_index and e not in self._rate_symbols:
                self._collect_params.add(e)
            return
        if e.is_Add or e.is_Mul:
            for a in e.args:
                self._scan(a)
            return
        if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
            self._scan(e.base)
            return
        if isinstance(e, (sp.sin, sp.cos)):
            split = self._split_angle(e.args[0])
            if split is not None:
                _, const = split
                if const != 0:
                    self._scan(_cos(const))
                    self._scan(_sin(const))
                return
        if e.is_number and not e.is_finite:
            raise ValueError(f"{e} is not a finite number")
        self._collect_atoms[e] = None

    def _split_angle(self, arg: sp.Expr):
        """``arg = sum k_i q_i + const`` with integer ``k`` over revolute joints, or None."""
        if not any(arg.has(self.q[i]) for i in range(self.dof) if self.revolute[i]):
            return None
        coeffs: dict[int, int] = {}
        const = sp.Integer(0)
        for term in sp.Add.make_args(sp.expand(arg)):
            hit = [i for i in range(self.dof) if term.has(self.q[i])]
            if not hit:
                const += term
                continue
            coeff, rest = term.as_coeff_Mul()
            if len(hit) != 1 or rest != self.q[hit[0]] or not self.revolute[hit[0]] \
                    or not coeff.is_Integer:
                return None
            coeffs[hit[0]] = coeffs.get(hit[0], 0) + int(coeff)
        return coeffs, const

    # -- conversion in -------------------------------------------------------------
    def poly(self, e) -> PolyElement:
        """The reduced polynomial of a SymPy expression (or number, or TrigScalar)."""
        if isinstance(e, TrigScalar):
            return e.p
        if isinstance(e, PolyElement):
            return e
        if isinstance(e, int):
            return self.ring(e)
        e = to_sympy(e)
        memo = self._memo.get(e)
        if memo is not None:
            return memo
        out = self.reduce(self._convert(e))
        if len(self._memo) < 100_000:
            self._memo[e] = out
        return out

    def _convert(self, e: sp.Expr) -> PolyElement:
        ring = self.ring
        if e.is_Rational:
            return ring.ground_new(QQ(int(e.p), int(e.q)))
        if e.is_Float:
            if e == 0:
                return ring.zero
            gen = self._atom_gen.get(abs(e))
            if gen is None:
                raise ValueError(f"{e}: not an atom of this ring")
            return gen if e > 0 else -gen
        if e.is_Symbol:
            gen = self._gen_of.get(e)
            if gen is None:
                gen = self._atom_gen.get(e)
            if gen is None:
                raise ValueError(f"{e}: not a generator of this ring")
            return gen
        if e.is_Add:
            out = ring.zero
            for a in e.args:
                out += self._convert(a)
            return out
        if e.is_Mul:
            out = ring.one
            for a in e.args:
                out = self.reduce(out * self._convert(a))
            return out
        if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
            return self.power(self._convert(e.base), int(e.exp))
        if isinstance(e, (sp.sin, sp.cos)):
            split = self._split_angle(e.args[0])
            if split is not None:
                coeffs, const = split
                c, s = self._angle(coeffs)
                if const != 0:
                    cc, sc = self.poly(_cos(const)), self.poly(_sin(const))
                    c, s = c * cc - s * sc, s * cc + c * sc
                return self.reduce(c if isinstance(e, sp.cos) else s)
        gen = self._atom_gen.get(e)
        if gen is None:
            raise ValueError(f"{e}: not an atom of this ring (rebuild the ring with it)")
        return gen

    def _angle(self, coeffs: dict[int, int]) -> tuple[PolyElement, PolyElement]:
        """cos and sin of ``sum k_i q_i``."""
        c, s = self.one, self.zero
        for i, k in coeffs.items():
            ci, si = self._multiple(i, k)
            c, s = self.reduce(c * ci - s * si), self.reduce(s * ci + c * si)
        return c, s

    def _multiple(self, i: int, k: int) -> tuple[PolyElement, PolyElement]:
        """cos and sin of ``k q_i`` (de Moivre)."""
        c1, s1 = self.c(i), self.s(i)
        c, s = self.one, self.zero
        for _ in range(abs(k)):
            c, s = self.reduce(c * c1 - s * s1), self.reduce(s * c1 + c * s1)
        return (c, s) if k >= 0 else (c, -s)

    def power(self, p: PolyElement, k: int) -> PolyElement:
        out = self.one
        for _ in range(k):
            out = self.reduce(out * p)
        return out

    # -- the trig identity -------------------------------------------------------------
    def reduce(self, p: PolyElement) -> PolyElement:
        """Normal form modulo ``c^2 + s^2 - 1`` of every trig pair (no ``c`` above degree 1)
        and ``sqrt(n)^2 - n`` of every square root."""
        if self.roots:
            p = self._reduce_roots(p)
        pairs = self.pairs
        if not pairs:
            return p
        if not any(m[ci] >= 2 for m in p for ci, _ in pairs):
            return p
        out: dict[tuple, object] = {}
        for m, coef in p.items():
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
        res = self.ring.zero
        for mm, cf in out.items():
            if cf:
                res[mm] = cf
        return res

    def _reduce_roots(self, p: PolyElement) -> PolyElement:
        roots = self.roots
        if not any(m[k] >= 2 for m in p for k, _ in roots):
            return p
        out = self.ring.zero
        for m, coef in p.items():
            mm = list(m)
            for k, n in roots:
                if mm[k] >= 2:
                    coef = coef * QQ(n) ** (mm[k] // 2)
                    mm[k] %= 2
            mm = tuple(mm)
            value = out.get(mm, QQ(0)) + coef
            if value:
                out[mm] = value
            else:
                out.pop(mm, None)
        return out

    # -- calculus ---------------------------------------------------------------------
    def diff_q(self, p: PolyElement, i: int) -> PolyElement:
        """``d p / d q_i`` (chain rule through ``s_i``, ``c_i`` for a revolute joint)."""
        gens = self.ring.gens
        out = p.diff(gens[self.q_index[i]])
        if self.revolute[i]:
            s, c = gens[self.s_index[i]], gens[self.c_index[i]]
            out = out + p.diff(s) * c - p.diff(c) * s
        return self.reduce(out)

    def diff_qd(self, p: PolyElement, i: int) -> PolyElement:
        return p.diff(self.ring.gens[self.qd_index[i]])

    def diff_qdd(self, p: PolyElement, i: int) -> PolyElement:
        return p.diff(self.ring.gens[self.qdd_index[i]])

    def time_derivative(self, p: PolyElement) -> PolyElement:
        """``d p/dt = sum_i dp/dq_i qd_i + dp/dqd_i qdd_i`` (no explicit time dependence)."""
        gens = self.ring.gens
        out = self.zero
        for i in range(self.dof):
            out += self.diff_q(p, i) * gens[self.qd_index[i]]
            out += self.diff_qd(p, i) * gens[self.qdd_index[i]]
        return self.reduce(out)

    # -- coefficients ------------------------------------------------------------------
    def coefficient(self, p: PolyElement, index: int, degree: int = 1) -> PolyElement:
        """The coefficient of ``gen[index]**degree`` in ``p`` (as a polynomial without it)."""
        out = self.ring.zero
        for m, coef in p.items():
            if m[index] == degree:
                out[m[:index] + (0,) + m[index + 1:]] = coef
        return out

    def drop(self, p: PolyElement, indices: Iterable[int]) -> PolyElement:
        """``p`` with the generators at ``indices`` set to zero."""
        idx = tuple(indices)
        out = self.ring.zero
        for m, coef in p.items():
            if not any(m[k] for k in idx):
                out[m] = coef
        return out

    def at_rest(self, p: PolyElement) -> PolyElement:
        """``p`` at ``qd = qdd = 0``."""
        return self.drop(p, self.qd_index + self.qdd_index)

    # -- conversion out ---------------------------------------------------------------
    def expr(self, p: PolyElement, gen_values: dict[int, sp.Expr] | None = None) -> sp.Expr:
        """The SymPy expression of ``p``: a sum of products of generators (sin, cos)."""
        values = self.gen_exprs if gen_values is None else [
            gen_values.get(k, e) for k, e in enumerate(self.gen_exprs)]
        terms = []
        for m, coef in p.items():
            factors = [sp.Rational(int(coef.numerator), int(coef.denominator))]
            for k, e in enumerate(m):
                if e:
                    factors.append(values[k] if e == 1 else values[k] ** e)
            terms.append(sp.Mul(*factors))
        return sp.Add(*terms)

    def is_zero(self, p: PolyElement) -> bool:
        return not p

    # -- running the core's algorithms on the ring ---------------------------------------
    def scalar(self, x) -> TrigScalar:
        return TrigScalar(self, self.poly(x))

    def ops(self) -> SimpleNamespace:
        """``sin``/``cos`` for :mod:`robodyn.dynamics.ops` style use: the argument is
        ``q_i + offset`` (a SymPy expression); the result a :class:`TrigScalar`."""
        if self._ops is None:
            def sin(x):
                return self.scalar(sp.sin(_as_expr(x)))

            def cos(x):
                return self.scalar(sp.cos(_as_expr(x)))

            def unsupported(x):
                raise NotImplementedError("sqrt/sign are not polynomial; not used on the ring")

            self._ops = SimpleNamespace(sin=sin, cos=cos, sqrt=unsupported, sign=unsupported,
                                        name="trigpoly")
        return self._ops

    def chain(self, chain: Chain) -> Chain:
        """``chain`` with every number a :class:`TrigScalar`; revolute joint offsets stay
        SymPy (the kinematics adds them to the SymPy ``q_i`` before ``sin``/``cos``)."""
        mapped = chain.map(lambda x: self.scalar(x))
        links = []
        for new, old in zip(mapped.links, chain.links, strict=True):
            if old.joint.type == REVOLUTE:
                new = replace(new, joint=replace(new.joint, offset=to_sympy(old.joint.offset)))
            links.append(new)
        return replace(mapped, links=tuple(links))

    def joint_arguments(self):
        """``q, qd, qdd`` to pass to the core's algorithms: SymPy ``q_i`` for revolute
        joints (the argument of sin/cos), ring scalars for everything else."""
        gens = self.ring.gens
        q = [self.q[i] if self.revolute[i] else TrigScalar(self, gens[self.q_index[i]])
             for i in range(self.dof)]
        qd = [TrigScalar(self, gens[k]) for k in self.qd_index]
        qdd = [TrigScalar(self, gens[k]) for k in self.qdd_index]
        return q, qd, qdd


def chain_expressions(chain: Chain) -> list:
    """Every SymPy number of a chain, plus cos/sin of the revolute offsets (for scanning)."""
    out: list = []
    out += chain.numbers()
    for link in chain.links:
        if link.joint.type == REVOLUTE:
            off = to_sympy(link.joint.offset)
            out += [_cos(off), _sin(off)]
    return out


def _square_root(e) -> int | None:
    """``n`` if ``e`` is ``sqrt(n)`` of a positive integer, else None."""
    if e.is_Pow and e.exp == sp.Rational(1, 2) and e.base.is_Integer and e.base > 0:
        return int(e.base)
    return None


def _cos(x):
    """cos of a constant angle; of a Float angle kept unevaluated (an exact trig pair)."""
    return sp.cos(x, evaluate=False) if x.has(sp.Float) else sp.cos(x)


def _sin(x):
    return sp.sin(x, evaluate=False) if x.has(sp.Float) else sp.sin(x)


def _as_expr(x):
    if isinstance(x, TrigScalar):
        raise TypeError("sin/cos of a ring scalar: pass the SymPy joint angle")
    return x


class TrigScalar:
    """One polynomial of a :class:`TrigRing`, with the arithmetic of a scalar.

    Products are reduced with ``c^2 = 1 - s^2`` at once, so the core's recursion
    (:func:`robodyn.dynamics.rnea.rnea`, :func:`robodyn.dynamics.kinematics.link_poses`)
    runs on it unchanged and its results come out in normal form.
    """

    __slots__ = ("ring", "p")

    def __init__(self, ring: TrigRing, p: PolyElement):
        self.ring = ring
        self.p = p

    def _other(self, b):
        if isinstance(b, TrigScalar):
            return b.p
        if isinstance(b, (int, PolyElement)):
            return b
        return self.ring.poly(b)

    def __add__(self, b):
        return TrigScalar(self.ring, self.p + self._other(b))

    __radd__ = __add__

    def __sub__(self, b):
        return TrigScalar(self.ring, self.p - self._other(b))

    def __rsub__(self, b):
        return TrigScalar(self.ring, self._other(b) - self.p)

    def __neg__(self):
        return TrigScalar(self.ring, -self.p)

    def __pos__(self):
        return self

    def __mul__(self, b):
        if isinstance(b, int):
            return TrigScalar(self.ring, self.p * b)
        return TrigScalar(self.ring, self.ring.reduce(self.p * self._other(b)))

    __rmul__ = __mul__

    def __truediv__(self, b):
        if isinstance(b, int):
            return TrigScalar(self.ring, self.p * QQ(1, b))
        if isinstance(b, sp.Rational) and b != 0:
            return TrigScalar(self.ring, self.p * QQ(int(b.q), int(b.p)))
        raise TypeError("a ring scalar can only be divided by a nonzero rational number")

    def __pow__(self, k: int):
        return TrigScalar(self.ring, self.ring.power(self.p, k))

    def __eq__(self, b):
        if isinstance(b, TrigScalar):
            return self.p == b.p
        try:
            return self.p == self._other(b)
        except (ValueError, TypeError):
            return False

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self):
        return bool(self.p)

    def expr(self) -> sp.Expr:
        return self.ring.expr(self.p)

    def __repr__(self) -> str:
        return f"TrigScalar({self.expr()})"
