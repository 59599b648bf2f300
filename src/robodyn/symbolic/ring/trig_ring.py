"""The polynomial ring of one chain's closed forms: generators, calculus, coefficients.

Every quantity of a rigid serial chain (poses, velocities, energies, torques) is a
polynomial in ``s_i = sin(q_i)``, ``c_i = cos(q_i)`` of the revolute joints, the
prismatic joint variables ``q_i``, the rates ``qd_i``, ``qdd_i`` and the model
parameters (and in the position and the unit quaternion of a free or ball joint, whose
velocities are the body-frame twist, :mod:`.coordinates`). :class:`TrigRing` holds one
chain's generators in a sparse polynomial ring of SymPy
(:class:`sympy.polys.rings.PolyRing` over ``QQ``) and keeps every polynomial in the normal
form of :mod:`.normal_form` (``c_i^2 = 1 - s_i^2``, unit quaternions), so an expression has
one representation: sums cancel as they are formed, zero is recognised by looking, and
there is no expression swell.

Conversion from SymPy is :mod:`.from_sympy`, back to SymPy :mod:`.back_to_sympy`;
:mod:`.trig_scalar` lets the core's algorithms run on the ring. Derivatives use the chain
rule through the trig generators:

    d/dq_i p(s_i, c_i, q_i) = dp/dq_i + dp/ds_i c_i - dp/dc_i s_i,
    d/dt p = sum_i dp/dq_i qd_i + dp/dqd_i qdd_i,

where a velocity coordinate ``k`` of a ball or free joint takes the derivative along its
field, ``X_k p = sum_m dp/dq_m T_mk(q)`` (:mod:`.coordinates`), for ``d/dq_k``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from types import SimpleNamespace

import sympy as sp
from sympy import QQ
from sympy.polys.orderings import lex
from sympy.polys.rings import PolyElement, PolyRing

from ...core.errors import ExpansionError
from ...model.chain import REVOLUTE, Chain
from ...model.expressions import to_sympy
from ...model.joints import joint_configuration_rate
from .back_to_sympy import to_expression
from .coordinates import joint_coordinates, structure_constants
from .from_sympy import cos_of_constant, scan, sin_of_constant, square_root, to_polynomial
from .normal_form import normal_form
from .trig_scalar import TrigScalar

__all__ = ["TrigRing", "joint_symbols"]

#: Conversions remembered per ring (SymPy expression -> polynomial), at most this many.
MEMO_SIZE = 100_000
#: Most terms one polynomial of a ring may have. The largest of a 6-joint arm with every DH
#: and inertial parameter a symbol has 27,000; the PUMA 560 with its numbers, 1,000.
MAX_TERMS = 200_000
#: Most products of two terms one ring may form in all (``len(a) * len(b)`` summed over its
#: multiplications, :meth:`TrigRing.product`): that 6-joint arm forms 360,000 for all of
#: its equations, the PUMA 560 16,000.
MAX_WORK = 3_000_000


def joint_symbols(n: int) -> tuple[tuple[sp.Symbol, ...], ...]:
    """``(q1..qn), (qd1..qdn), (qdd1..qddn)``: plain SymPy symbols, 1-based as the textbooks."""
    q = tuple(sp.Symbol(f"q{i}") for i in range(1, n + 1))
    qd = tuple(sp.Symbol(f"qd{i}") for i in range(1, n + 1))
    qdd = tuple(sp.Symbol(f"qdd{i}") for i in range(1, n + 1))
    return q, qd, qdd


class TrigRing:
    """The polynomial ring of one chain's closed forms.

    Generators, in this order: ``qdd``, ``qd`` (``nv`` each), ``q`` (``nq``: the joint
    values, a free joint's position and the quaternions), ``s_i``, ``c_i`` (revolute
    joints), the parameter symbols (sorted by name), extra symbols (e.g. the end-effector
    wrench), then opaque atoms (Floats, irrational numbers, ``cos(alpha)`` of a symbolic
    angle: each ``cos``/``sin`` pair of such an angle is reduced with ``cos^2 + sin^2 = 1``
    too). Each quaternion is reduced with its unit norm.

    ``joint_types``: a joint type of :mod:`robodyn.model.joints` per joint (the names of
    its coordinates: :mod:`.coordinates`). ``exprs``: every SymPy expression the ring must
    hold (its parameters and atoms are collected).
    """

    def __init__(self, joint_types: Sequence[str], exprs: Iterable = (),
                 extra_symbols: Sequence[sp.Symbol] = ()):
        #: the coordinates of each joint (:mod:`.coordinates`): names, offsets
        self.coordinates = joint_coordinates(joint_types)
        self.joint_types = tuple(joint_types)
        self.q = tuple(s for jc in self.coordinates for s in jc.q)
        self.qd = tuple(s for jc in self.coordinates for s in jc.qd)
        self.qdd = tuple(s for jc in self.coordinates for s in jc.qdd)
        #: the number of velocity coordinates ``nv`` (the size of ``M``), and of
        #: configuration values ``nq`` (both the number of joints with one-value joints)
        self.dof, self.nq = len(self.qd), len(self.q)
        #: per configuration value: the angle of a revolute joint
        self.revolute = tuple(jc.type == REVOLUTE for jc in self.coordinates for _ in jc.q)
        #: configuration symbol -> its index in ``q``; the rate symbols (neither are
        #: parameters)
        self.joint_index = {s: i for i, s in enumerate(self.q)}
        self.rate_symbols = set(self.qd) | set(self.qdd)
        params: set[sp.Symbol] = set()
        atoms: dict[sp.Expr, None] = {}
        for e in exprs:
            scan(self, e, params, atoms)
        extra = tuple(extra_symbols)
        self.params = tuple(sorted(params - set(extra), key=lambda s: s.name))
        self.extra = extra
        # trig pairs of opaque constant angles: with cos(x), sin(x) is a generator too
        for a in list(atoms):
            if isinstance(a, (sp.cos, sp.sin)):
                partner = (sin_of_constant if isinstance(a, sp.cos)
                           else cos_of_constant)(a.args[0])
                if isinstance(partner, (sp.cos, sp.sin)):
                    atoms.setdefault(partner, None)
        self.atoms = tuple(sorted(atoms, key=sp.default_sort_key))

        n, nq = self.dof, self.nq
        rev = [i for i in range(nq) if self.revolute[i]]
        s_sym = {i: sp.Dummy(f"s{i + 1}") for i in rev}
        c_sym = {i: sp.Dummy(f"c{i + 1}") for i in rev}
        atom_syms = [sp.Dummy(f"a{k}") for k in range(len(self.atoms))]
        symbols = (list(self.qdd) + list(self.qd) + list(self.q)
                   + [s_sym[i] for i in rev] + [c_sym[i] for i in rev]
                   + list(self.params) + list(extra) + atom_syms)
        self.ring = PolyRing(symbols, QQ, lex)
        self.zero, self.one = self.ring.zero, self.ring.one
        index_of = {sym: k for k, sym in enumerate(symbols)}
        #: symbol -> generator (joint variables, rates, parameters, extra symbols)
        self.gen_of: dict[sp.Expr, PolyElement] = dict(zip(symbols, self.ring.gens,
                                                           strict=True))
        #: opaque atom -> its generator, and its generator index
        self.atom_gen = {a: self.gen_of[d] for a, d in zip(self.atoms, atom_syms, strict=True)}
        atom_index = {a: index_of[d] for a, d in zip(self.atoms, atom_syms, strict=True)}
        #: generator index -> SymPy expression (for the conversion back)
        self.gen_exprs: list[sp.Expr] = list(self.qdd) + list(self.qd) + list(self.q)
        self.gen_exprs += [sp.sin(self.q[i]) for i in rev] + [sp.cos(self.q[i]) for i in rev]
        self.gen_exprs += list(self.params) + list(extra) + list(self.atoms)
        #: the same with each opaque atom as its own placeholder symbol (exact round trips)
        self.gen_exprs_raw = self.gen_exprs[:len(self.gen_exprs) - len(self.atoms)] + atom_syms
        self.atom_values = dict(zip(atom_syms, self.atoms, strict=True))
        #: (generator index, value) of the atoms that are Floats or functions of Floats
        #: (``cos(0.1)`` of a Float joint offset, kept whole so that cos^2 + sin^2 = 1)
        self.float_atoms = tuple((atom_index[a], float(a.evalf())) for a in self.atoms
                                 if a.is_Float or (a.is_number and a.has(sp.Float)))
        #: (generator index, n) of square roots sqrt(n): reduced with sqrt(n)^2 = n
        self.roots = tuple((atom_index[a], square_root(a)) for a in self.atoms
                           if square_root(a) is not None)
        self.qdd_index = tuple(range(n))
        self.qd_index = tuple(range(n, 2 * n))
        self.q_index = tuple(range(2 * n, 2 * n + nq))
        self.s_index = {i: index_of[s_sym[i]] for i in rev}
        self.c_index = {i: index_of[c_sym[i]] for i in rev}
        #: generator indices of the trig pairs (c, s) reduced with c^2 = 1 - s^2
        pairs = [(self.c_index[i], self.s_index[i]) for i in rev]
        for a in self.atoms:
            if isinstance(a, sp.cos):
                partner = sin_of_constant(a.args[0])
                if partner in atom_index:
                    pairs.append((atom_index[a], atom_index[partner]))
        self.pairs = tuple(pairs)
        #: (generator index of e_w, those of e_x, e_y, e_z) of every unit quaternion
        self.quaternions = tuple(
            (self.q_index[jc.q_offset + jc.quaternion + 3],
             tuple(self.q_index[jc.q_offset + jc.quaternion + a] for a in range(3)))
            for jc in self.coordinates if jc.quaternion is not None)
        self._memo: dict[sp.Expr, PolyElement] = {}
        #: the term budget (:data:`MAX_TERMS`, :data:`MAX_WORK`) and the work spent
        self.max_terms, self.max_work, self.work = MAX_TERMS, MAX_WORK, 0
        #: monomial (exponent tuple) -> its SymPy product, shared by the printer
        self.monomial_cache: dict[tuple, sp.Expr] = {}
        self._ops = None
        self._fields()

    # -- generators and conversion ------------------------------------------------------
    def gen(self, symbol: sp.Expr) -> PolyElement:
        """The generator of a joint, rate or parameter symbol."""
        return self.gen_of[symbol]

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
        out = self.reduce(to_polynomial(self, e))
        if len(self._memo) < MEMO_SIZE:
            self._memo[e] = out
        return out

    def expr(self, p: PolyElement) -> sp.Expr:
        """The SymPy expression of ``p``: a sum of products of generators (sin, cos)."""
        return to_expression(self, p)

    # -- arithmetic in normal form ---------------------------------------------------------
    def reduce(self, p: PolyElement) -> PolyElement:
        """Normal form modulo ``c^2 + s^2 - 1`` of every trig pair (no ``c`` above degree 1)
        and ``sqrt(n)^2 - n`` of every square root (:func:`.normal_form.normal_form`).
        A polynomial of more than :attr:`max_terms` terms is an
        :class:`~robodyn.core.errors.ExpansionError`."""
        if len(p) > self.max_terms:
            raise ExpansionError(
                f"the closed forms grow beyond {self.max_terms:,} terms (a polynomial of "
                f"{len(p):,}); the expressions are too large to derive symbolically")
        return normal_form(self.ring, p, self.pairs, self.roots, self.quaternions)

    def product(self, a, b):
        """``a * b`` (not reduced), its ``len(a) * len(b)`` term products counted against
        :attr:`max_work` before they are formed: beyond it, an
        :class:`~robodyn.core.errors.ExpansionError`. Every product of two polynomials that may
        both be large goes through here (products with one generator cost ``len(a)``)."""
        if isinstance(a, PolyElement) and isinstance(b, PolyElement):
            self.work += len(a) * len(b)
            if self.work > self.max_work:
                raise ExpansionError(
                    f"the closed forms take more than {self.max_work:,} products of terms "
                    f"to form (a product of {len(a):,} by {len(b):,} terms); the expressions "
                    "are too large to derive symbolically")
        return a * b

    def power(self, p: PolyElement, k: int) -> PolyElement:
        """``p**k`` in normal form (``k >= 0``)."""
        out = self.one
        for _ in range(k):
            out = self.reduce(self.product(out, p))
        return out

    # -- calculus ---------------------------------------------------------------------
    def diff_q(self, p: PolyElement, k: int) -> PolyElement:
        """``X_k p``, the derivative of ``p`` along velocity coordinate ``k``
        (:mod:`.coordinates`): ``d p / d q_k`` of a one-value joint (chain rule through
        ``s_k``, ``c_k`` for a revolute joint), ``sum_m dp/dq_m T_mk(q)`` for a coordinate
        of a ball or free joint (``T`` its tangent map; the field is tangent to the unit
        quaternions, so the result does not depend on how ``p`` is written on them)."""
        gens = self.ring.gens
        field = self.field[k]
        if isinstance(field, int):
            out = p.diff(gens[self.q_index[field]])
            if self.revolute[field]:
                s, c = gens[self.s_index[field]], gens[self.c_index[field]]
                out = out + p.diff(s) * c - p.diff(c) * s
            return self.reduce(out)
        out = self.zero
        for g, t in field:
            d = p.diff(gens[g])
            if d:
                out += self.product(d, t)
        return self.reduce(out)

    def _fields(self) -> None:
        """Fill :attr:`field` (per velocity coordinate: the index of its configuration
        value, or ``((generator index, T_mk), ...)``, the tangent map's column) and
        :attr:`structure` (``{(a, b): ((m, c^m_ab), ...)}`` over velocity coordinates)."""
        self.field: list = []
        self.structure: dict[tuple[int, int], tuple] = {}
        gens = self.ring.gens
        for jc in self.coordinates:
            if jc.single:
                self.field.append(jc.q_offset)
                continue
            q = [TrigScalar(self, gens[self.q_index[jc.q_offset + m]])
                 for m in range(len(jc.q))]
            for a in range(len(jc.qd)):
                unit = [1 if b == a else 0 for b in range(len(jc.qd))]
                rate = joint_configuration_rate(jc.type, q, unit)
                self.field.append(tuple((self.q_index[jc.q_offset + m], self.poly(x))
                                        for m, x in enumerate(rate) if self.poly(x)))
            base = jc.v_offset
            for (a, b), terms in structure_constants(jc.type).items():
                self.structure[(base + a, base + b)] = tuple((base + m, c) for m, c in terms)

    def diff_qd(self, p: PolyElement, i: int) -> PolyElement:
        """``d p / d qd_i``."""
        return p.diff(self.ring.gens[self.qd_index[i]])

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
        return self.ring.from_dict({m[:index] + (0,) + m[index + 1:]: coef
                                    for m, coef in p.iterterms() if m[index] == degree})

    def drop(self, p: PolyElement, indices: Iterable[int]) -> PolyElement:
        """``p`` with the generators at ``indices`` set to zero."""
        idx = tuple(indices)
        return self.ring.from_dict({m: coef for m, coef in p.iterterms()
                                    if not any(m[k] for k in idx)})

    def at_rest(self, p: PolyElement) -> PolyElement:
        """``p`` at ``qd = qdd = 0``."""
        return self.drop(p, self.qd_index + self.qdd_index)

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
        """``q, qd, qdd`` to pass to the core's algorithms (``nq``, ``nv``, ``nv`` values):
        SymPy ``q_i`` for revolute joints (the argument of sin/cos), ring scalars for
        everything else."""
        gens = self.ring.gens
        q = [self.q[i] if self.revolute[i] else TrigScalar(self, gens[self.q_index[i]])
             for i in range(self.nq)]
        qd = [TrigScalar(self, gens[k]) for k in self.qd_index]
        qdd = [TrigScalar(self, gens[k]) for k in self.qdd_index]
        return q, qd, qdd


def _as_expr(x):
    if isinstance(x, TrigScalar):
        raise TypeError("sin/cos of a ring scalar: pass the SymPy joint angle")
    return x
