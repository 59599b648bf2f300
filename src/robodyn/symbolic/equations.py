"""The result object: equations of motion in closed form, their steps (:mod:`.steps`)
and checks.

:class:`Equations` wraps one :class:`~.derivation.Derivation` and turns its
polynomials into SymPy matrices on first access (each is printed in the compact
form of :mod:`.simplify`); nothing is recomputed afterwards.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np
import sympy as sp
from sympy import QQ
from sympy.polys.rings import PolyElement

from ..core.errors import InputError, ModelError
from ..core.provided import provided
from ..model.chain import Chain
from ..model.expressions import number
from .derivation import SECTION_GIVEN, Derivation, mass_matrix_rate, n_matrix
from .numeric import NumericEquations
from .simplify import polys_equal, textbook, textbook_matrix, trig_form
from .steps import Step, steps_of

#: :attr:`Equations.frames_note` per DH convention.
_FRAMES_NOTES = {
    "standard": ("standard DH (Siciliano): link frame i is DH frame i, at the distal end of "
                 "link i; joint i moves about or along z_(i-1)"),
    "modified": "modified DH (Craig): link frame i is DH frame i, on joint i's axis",
}


@dataclass(frozen=True)
class Checks:
    """Results of :meth:`Equations.check`: ``(name, passed)`` pairs; true if all pass."""

    results: tuple[tuple[str, bool], ...]

    def __bool__(self) -> bool:
        return all(ok for _, ok in self.results)

    @property
    def failed(self) -> list[str]:
        return [name for name, ok in self.results if not ok]

    def __str__(self) -> str:
        return "\n".join(f"[{'ok' if ok else 'FAILED'}] {name}" for name, ok in self.results)

    __repr__ = __str__


class Equations:
    """Equations of motion ``M(q) qdd + C(q, qd) qd + friction(qd) + g(q) (+ J^T h_e) = tau``
    of one robot, derived by one method (see :func:`robodyn.symbolic.equations`).

    Attributes (SymPy): ``q``, ``qd``, ``qdd`` (tuples of symbols ``q1``.., ``qd1``..,
    ``qdd1``..; a ball or free joint ``k`` has the unit quaternion ``qx{k}, qy{k}, qz{k},
    qw{k}`` (after the position ``x{k}, y{k}, z{k}``) and the body twist ``v_x{k}`` ..
    ``w_z{k}`` with its rate ``vd_x{k}`` .. ``wd_z{k}``, :mod:`.ring.coordinates`: ``q`` has
    ``nq`` symbols, the others ``dof = nv``), ``M`` (n x n, symmetric), ``C`` (n x n,
    Christoffel form), ``g``,
    ``friction``, ``tau``, ``Cqd`` (n x 1), ``kinetic_energy``, ``potential_energy``,
    ``lagrangian``, ``christoffel`` (``c[i][j][k]``, 0-based), ``steps``.
    """

    def compare(self, **answer: Any) -> Any:
        """Check a student's answer entry by entry: ``eq.compare(M=..., C=..., g=...,
        tau=..., Cqd=..., K=..., U=..., christoffel=..., steps=..., symbols=...,
        define=..., reveal=False)`` gives a :class:`~robodyn.teaching.compare.Comparison`
        (:func:`robodyn.teaching.compare.compare`). The teaching layer sits above this one,
        so the package's facade provides the checker (:mod:`robodyn.core.provided`)."""
        return provided("Equations.compare")(self, **answer)

    def __init__(self, derivation: Derivation, name: str = "robot",
                 defaults: Mapping[str, float] | None = None, *, dh_rows: tuple = (),
                 convention: str | None = None, display: Mapping[str, str] | None = None,
                 user_terms: Mapping[str, sp.Expr] | None = None,
                 model_terms: Mapping[str, sp.Expr] | None = None):
        self._d = derivation
        self.name = name
        self.method = derivation.method
        #: the Lagrange route taken (``"euler-lagrange"``, ``"energy"``, ``"jacobian"``;
        #: :mod:`.routes`); ``"euler-lagrange"`` for Newton-Euler too (it has one route)
        self.route = derivation.route
        ring = derivation.ring
        self.dof = ring.dof
        self.joint_types = ring.joint_types
        #: the symbols of each joint (:class:`~.ring.coordinates.JointCoordinates`)
        self.coordinates = ring.coordinates
        self.q, self.qd, self.qdd = ring.q, ring.qd, ring.qdd
        self.h_e: tuple[sp.Symbol, ...] = derivation.wrench_symbols
        #: LuGre's bristle deflections ``z1 ..`` (:mod:`.lugre`), or () without ``lugre:``
        self.z: tuple[sp.Symbol, ...] = derivation.bristle
        self.defaults = dict(defaults or {})
        # what the steps and the printing read: fixed here, read-only below
        self._dh_rows = tuple(dh_rows)
        self._convention = convention
        self._display = MappingProxyType(dict(display or {}))
        self._user_terms = MappingProxyType(dict(user_terms or {}))
        self._model_terms = MappingProxyType(dict(model_terms or {}))
        #: whether the named terms are printed into the Newton–Euler recursion's steps too
        #: (:meth:`name_terms` with ``steps=True``); by default only from ``C`` on
        self.terms_in_steps = False
        #: the configuration where ``U = 0`` (the model file's ``potential_zero``), or ()
        self.potential_zero: tuple = ()

    @property
    def dh_rows(self) -> tuple:
        """The DH table, when the model has one of ``dof`` rows (for the Given section)."""
        return self._dh_rows

    @property
    def convention(self) -> str | None:
        """The DH table's convention (``"standard"``, ``"modified"``), else None."""
        return self._convention

    @property
    def frames_note(self) -> str:
        """Which frames the steps are written in (empty without a DH convention)."""
        note = _FRAMES_NOTES.get(self._convention or "", "")
        if note and not self._d.chain.is_serial:
            note += ("; a tree: each DH row is placed in its parent's DH frame, so read i-1 as "
                     "the parent of i")
        return note

    @property
    def display(self) -> Mapping[str, str]:
        """Display names from the model file (``{"q2": "d_2"}``), for printing only."""
        return self._display

    @property
    def user_terms(self) -> Mapping[str, sp.Expr]:
        """Terms named by the user (:meth:`name_terms`), for printing only."""
        return self._user_terms

    @property
    def model_terms(self) -> Mapping[str, sp.Expr]:
        """Terms the model file declares (``terms: {h: m2*l1*c2*sin(q2)}``), printed with
        the shorthand (``shorthand=True``), with the sign given."""
        return self._model_terms

    @cached_property
    def tex_names(self) -> Mapping[sp.Symbol, str]:
        """The LaTeX name of each joint variable, rate and parameter (``q_{1}``,
        ``\\dot{q}_{1}``, or the model's display name; :mod:`.printing.latex`)."""
        from .printing.latex import symbol_names

        return MappingProxyType(symbol_names(self))

    # -- the equations ----------------------------------------------------------------
    @property
    def derivation(self) -> Derivation:
        return self._d

    @property
    def chain(self) -> Chain:
        return self._d.chain

    @property
    def params(self) -> tuple[sp.Symbol, ...]:
        """The model parameters left symbolic (sorted by name)."""
        return tuple(sorted(self._d.chain.free_symbols(), key=lambda s: s.name))

    @cached_property
    def trig_form(self) -> str:
        """The one trigonometric form every expression of these equations and their steps
        is printed in: ``"sum-angle"`` (``cos(q1 + q2)``, ``cos(2*q2)``) or ``"product"``
        (``cos(q1)*cos(q2)``, ``sin(q2)**2``), whichever writes ``M``, ``C`` and ``g``
        with fewer terms (:func:`.simplify.trig_form`). Both are the ring's normal form
        (unique), read two ways."""
        d = self._d
        return trig_form(d.ring, [p for row in d.M + d.C for p in row] + list(d.g))

    def _tb(self, p: PolyElement) -> sp.Expr:
        return textbook(self._d.ring, p, form=self.trig_form)

    def _matrix(self, rows) -> sp.Matrix:
        return textbook_matrix(self._d.ring, rows, form=self.trig_form)

    def _column(self, polys) -> sp.Matrix:
        return textbook_matrix(self._d.ring, [[p] for p in polys], form=self.trig_form)

    @cached_property
    def M(self) -> sp.Matrix:
        """Joint-space inertia matrix ``M(q)`` (coefficients of ``qdd`` in ``tau``)."""
        return self._matrix(self._d.M)

    @cached_property
    def C(self) -> sp.Matrix:
        """Coriolis/centrifugal matrix from the Christoffel symbols of the first kind."""
        return self._matrix(self._d.C)

    @cached_property
    def g(self) -> sp.Matrix:
        """Gravity torques ``g(q) = dU/dq`` (n x 1)."""
        return self._column(self._d.g)

    @cached_property
    def Cqd(self) -> sp.Matrix:
        """The velocity terms ``C(q, qd) qd`` (n x 1)."""
        return self._column(self._d.Cqd)

    @cached_property
    def friction(self) -> sp.Matrix:
        """Joint friction ``F_v qd + F_s sign(qd)`` and the model's other terms (n x 1;
        :mod:`robodyn.dynamics.friction`), LuGre's ``F(qd, z)`` included (:mod:`.lugre`)."""
        return sp.Matrix(self._d.friction)

    @cached_property
    def bristle_rate(self) -> sp.Matrix:
        """LuGre's ``dz/dt = qd - sigma0 |qd| z / g(qd)`` (n x 1; empty without
        ``lugre:``), the equation of the states :attr:`z` that :attr:`friction` reads."""
        return sp.Matrix(self._d.bristle_rate) if self.z else sp.zeros(0, 1)

    @cached_property
    def wrench_torques(self) -> sp.Matrix:
        """``J(q)^T h_e`` (n x 1; zero unless the equations were derived with ``h_e``)."""
        if self._d.wrench is None:
            return sp.zeros(self.dof, 1)
        return self._column(self._d.wrench)

    @cached_property
    def tau(self) -> sp.Matrix:
        """``M qdd + C qd + friction + g (+ J^T h_e)`` (n x 1), written as the books do:
        each ``qdd_j`` with its coefficient ``M_ij``, then the velocity terms, gravity,
        friction (and the wrench term)."""
        rows = []
        for i in range(self.dof):
            terms = [self.M[i, j] * self.qdd[j] for j in range(self.dof)]
            terms += [self.Cqd[i], self.g[i], self._d.friction[i], self.wrench_torques[i]]
            rows.append(sp.Add(*terms))
        return sp.Matrix(rows)

    @cached_property
    def kinetic_energy(self) -> sp.Expr:
        return self._tb(self._d.kinetic)

    @cached_property
    def potential_energy(self) -> sp.Expr:
        """``U(q)``; zero at :attr:`potential_zero` where the model sets one (``U -
        U(q0)``: a constant, so ``tau`` is the same)."""
        return self._tb(self._d.potential) - self._potential_shift

    @cached_property
    def lagrangian(self) -> sp.Expr:
        return self._tb(self._d.kinetic - self._d.potential) + self._potential_shift

    @cached_property
    def _potential_shift(self) -> sp.Expr:
        """``U(q0)`` at the configuration :attr:`potential_zero` (0 without one)."""
        if not self.potential_zero or self._d.potential is None:
            return sp.Integer(0)
        U = self._tb(self._d.potential)
        return sp.simplify(U.subs(dict(zip(self.q, self.potential_zero, strict=True))))

    @cached_property
    def christoffel(self) -> tuple:
        """Christoffel symbols ``c[i][j][k] = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)``
        (0-based indices; ``c_ijk`` of the books is ``c[i-1][j-1][k-1]``)."""
        planes = [self._matrix(plane) for plane in self._d.christoffel]
        n = self.dof
        return tuple(tuple(tuple(planes[i][j, k] for k in range(n)) for j in range(n))
                     for i in range(n))

    def equation(self) -> sp.Matrix:
        """The equations of motion as expressions that vanish: ``tau_expr - tau_symbols``."""
        taus = sp.Matrix(sp.symbols(f"tau1:{self.dof + 1}"))
        return self.tau - taus

    # -- steps ---------------------------------------------------------------------
    @cached_property
    def steps(self) -> list[Step]:
        """The derivation, step by step (see :class:`~.steps.Step`), ending with M, C, g,
        tau (:mod:`.steps`)."""
        return steps_of(self, self._potential_shift)

    def mass_matrix_split(self):
        """``M = M_0 + sum_k M_k cos(a_k)`` (lecture notes on planar arms write the 3R arm's
        M so) when ``M`` depends on ``q`` only through cosines of joint angles or their sums,
        linearly: ``[(1, M_0), (cos(a_1), M_1), ...]`` with constant matrices; else ``None``."""
        q = set(self.q)
        trig = set()
        for entry in self.M:
            trig |= {a for a in entry.atoms(sp.sin, sp.cos) if a.free_symbols & q}
        if not trig or any(isinstance(a, sp.sin) for a in trig):
            return None
        cosines = sorted(trig, key=sp.default_sort_key)
        xs = sp.symbols(f"_split0:{len(cosines)}")
        table = dict(zip(cosines, xs, strict=True))
        parts = [sp.zeros(*self.M.shape) for _ in range(len(xs) + 1)]
        for (r, c), entry in np.ndenumerate(np.array(self.M, dtype=object)):
            poly = sp.Poly(sp.expand(entry.xreplace(table)), *xs)
            if poly.total_degree() > 1:
                return None
            for monom, coeff in poly.terms():
                if coeff.free_symbols & q:
                    return None
                k = 0 if sum(monom) == 0 else 1 + monom.index(1)
                parts[k][r, c] = coeff
        return [(sp.Integer(1), parts[0])] + list(zip(cosines, parts[1:], strict=True))

    @cached_property
    def Mdot(self) -> sp.Matrix:
        """``dM/dt = sum_k dM/dq_k qd_k`` (n x n)."""
        return self._matrix(mass_matrix_rate(self._d))

    @cached_property
    def N(self) -> sp.Matrix:
        """``N = dM/dt - 2C``, skew-symmetric for the Christoffel ``C`` (Siciliano et al.,
        Robotics, §7.3.1)."""
        return self._matrix(n_matrix(self._d))

    def brief(self) -> Equations:
        """These equations printed briefly: the steps without the Given section and
        without the Christoffel symbols that are zero (``robodyn derive --brief``)."""
        out = copy.copy(self)
        out.__dict__["steps"] = [
            s for s in self.steps
            if s.section != SECTION_GIVEN
            and not (s.title.startswith("Christoffel symbol") and s.expression == 0)]
        return out

    def plain_names(self) -> Equations:
        """These equations printed with robodyn's names ``q1``, ``qd1`` (and the model's
        parameter names) instead of the model's display names (``--plain-names``)."""
        out = copy.copy(self)
        out._display = MappingProxyType({})
        out.__dict__.pop("tex_names", None)
        return out

    # -- checks ----------------------------------------------------------------------
    def check(self) -> Checks:
        """Symbolic checks of the structure (each an exact identity in the normal form):

        * ``M`` symmetric;
        * ``dM/dt - 2C`` skew-symmetric (Siciliano et al., Robotics, §7.3.1);
        * ``C qd`` (Christoffel) equals the velocity terms of ``tau``;
        * ``g = dU/dq`` and ``K = 1/2 qd^T M qd``;
        * the printed ``M``, ``C``, ``g``, ``C qd`` equal the derived polynomials.

        >>> import robodyn as rd
        >>> print(rd.load("rp-arm").equations().check())
        [ok] M is symmetric
        [ok] dM/dt - 2C is skew-symmetric
        [ok] C qd equals the velocity terms of tau
        [ok] g = dU/dq
        [ok] K = 1/2 qd^T M qd
        [ok] printed M, C, g, C qd equal the derived ones
        """
        d, ring = self._d, self._d.ring
        n = self.dof
        qd = [ring.ring.gens[k] for k in ring.qd_index]
        results = []
        upper = [d.M[i][j] for i in range(n) for j in range(i)]
        lower = [d.M[j][i] for i in range(n) for j in range(i)]
        results.append(("M is symmetric", polys_equal(ring, upper, lower)))
        Mdot = [[ring.time_derivative(d.M[i][j]) for j in range(n)] for i in range(n)]
        N = [[Mdot[i][j] - 2 * d.C[i][j] for j in range(n)] for i in range(n)]
        pairs = [(i, j) for i in range(n) for j in range(i, n)]
        results.append(("dM/dt - 2C is skew-symmetric",
                        polys_equal(ring, [N[i][j] for i, j in pairs],
                                    [-N[j][i] for i, j in pairs])))
        Cqd = [ring.reduce(sum((d.C[i][j] * qd[j] for j in range(n)), ring.zero))
               for i in range(n)]
        results.append(("C qd equals the velocity terms of tau", polys_equal(ring, Cqd, d.Cqd)))
        if d.potential is not None:
            results.append(("g = dU/dq", polys_equal(
                ring, [ring.diff_q(d.potential, i) for i in range(n)], d.g)))
        if d.kinetic is not None:
            K = ring.reduce(sum((d.M[i][j] * qd[i] * qd[j] for i in range(n) for j in range(n)),
                                ring.zero) * QQ(1, 2))
            results.append(("K = 1/2 qd^T M qd", polys_equal(ring, [K], [d.kinetic])))
        # the printer's rewriting (sum angles, collected coefficients) is exact: read the
        # printed forms back (opaque numbers kept as placeholders) and compare
        printed = [p for row in d.M + d.C for p in row] + list(d.g) + list(d.Cqd)
        ok = all(ring.poly(textbook(ring, p, raw=True, form=self.trig_form)) == p
                 for p in printed)
        results.append(("printed M, C, g, C qd equal the derived ones", ok))
        return Checks(tuple(results))

    # -- named terms -------------------------------------------------------------------
    def named_terms(self) -> dict[str, sp.Expr]:
        """Recurring terms found automatically, as lecture notes and Siciliano et al. §7.4
        name them: ``{"h": -c2*l1*m2*sin(q2)}`` for planar-2r, whose every nonzero entry of
        ``C`` is ``h`` times a rate (``C = [[h qd2, h (qd1 + qd2)], [-h qd1, 0]]``).

        ``h`` is the common monomial factor of the nonzero entries of ``C`` (two or
        more) without its rates, when it depends on ``q``, has three factors or more and
        at most one sine or cosine (so that it reads the same in either trigonometric
        form); its sign makes the first nonzero entry ``+h`` times its quotient. Printed
        with ``shorthand=True`` (:mod:`.readable`); empty if there is no such term.
        """
        d, ring = self._d, self._d.ring
        entries = [p for row in d.C for p in row if p]
        if len(entries) < 2:
            return {}
        # the common monomial factor (lowest exponent of each generator over every term)
        m = list(next(iter(entries[0].itermonoms())))
        for p in entries:
            for mono in p.itermonoms():
                m = [min(a, b) for a, b in zip(m, mono, strict=True)]
        for k in ring.qd_index + ring.qdd_index:
            m[k] = 0
        trig = [k for k in list(ring.s_index.values()) + list(ring.c_index.values()) if m[k]]
        depends_on_q = trig or any(m[k] for k in ring.q_index)
        if not depends_on_q or sum(m) < 3 or sum(m[k] for k in trig) > 1:
            return {}
        h = ring.ring.from_dict({tuple(m): QQ(1)})
        quotient = entries[0].exquo(h)
        if quotient.LC < 0:
            h = -h
        name = "h"
        taken = {str(s) for s in self.params} | set(self.user_terms)
        while name in taken:
            name += "'"
        return {name: self._tb(h)}

    def name_terms(self, terms: Mapping[str, Any], steps: bool | None = None) -> Equations:
        """Name recurring terms for printing: ``eq.name_terms({"h": "m2*l1*c2*sin(q2)"})``
        prints every entry that ``h`` divides exactly as ``h`` times the quotient, and
        declares ``h = ...`` at the top (text, pretty, LaTeX, Markdown). Values are SymPy
        expressions or text (parsed safely, as :meth:`compare` reads answers,
        :func:`.parse.parse_matrix`); the sign is kept as given (the planar-arm notes'
        ``h = m2 l1 c2 sin q2`` gives ``C11 = -h qd2``).
        ``steps=True`` writes them into the Newton–Euler recursion's steps too (by default
        those are printed in full). Returns new equations with these names added to
        :attr:`user_terms`; ``self`` is unchanged, and the equations themselves are the
        same."""
        from .parse import parse_matrix

        params = {str(s) for s in self.params} | {str(s) for s in self.q + self.qd + self.qdd}
        named = dict(self._user_terms)
        for name, value in dict(terms).items():
            if not isinstance(name, str) or not name.isidentifier() or name in params:
                raise InputError(f"{self.name}.name_terms: {str(name)[:40]!r} is not a free "
                                 "name (an identifier other than a parameter or a joint "
                                 "variable)")
            if isinstance(value, str):
                value = parse_matrix(value, f"name_terms[{name!r}]")[0, 0]
            elif not isinstance(value, sp.Expr):
                raise InputError(f"{self.name}.name_terms: {name} = {str(value)[:40]!r} is not "
                                 "an expression")
            if value.is_number:
                raise InputError(f"{self.name}.name_terms: {name} = {value} is a number; name "
                                 "a term with symbols")
            named[name] = value
        out = copy.copy(self)  # shares the derivation and what was printed of it so far
        out._user_terms = MappingProxyType(named)
        if steps is not None:
            out.terms_in_steps = bool(steps)
        return out

    def regressor(self, parameters=None):
        """``Y, pi = eq.regressor()``: ``tau = Y(q, qd, qdd) pi`` with the standard
        parameters ``pi`` as symbols (:mod:`.regressor`; ``.values`` their meaning in
        the model's parameters, ``.check()`` the exact proof that ``Y pi == tau``).

        ``parameters``: the model's own symbols instead (Siciliano et al., §7.4:
        ``pi = [ml1, Il1, ml2, Il2]``; a list, or ``"ml1,Il1"``): ``tau = Y pi + rest``
        with ``rest`` the part free of them (0 when they hold every term's parameter); an
        :class:`~robodyn.core.errors.InputError` names a symbol ``tau`` is not linear in."""
        from .regressor import parameter_regressor, regressor

        if parameters is not None:
            return parameter_regressor(self, parameters)
        return regressor(self)

    # -- numbers ---------------------------------------------------------------------
    def subs(self, values: Mapping[str | sp.Symbol, Any]) -> Equations:
        """The equations with numbers (or expressions) for some parameters, derived again
        from the substituted model (so the steps and the compact forms follow)."""
        from .derive import derive

        table = value_table(values, self.params, self.name)
        chain = self.chain.subs(table)
        remaining = {k: v for k, v in self.defaults.items() if sp.Symbol(k) not in table}
        return derive(chain, self.method, h_e=bool(self.h_e), name=self.name,
                      defaults=remaining, route=self.route)

    def numeric(self, values: Mapping[str, float] | None = None) -> NumericEquations:
        """Batched NumPy functions of ``M``, ``C``, ``g``, ``Cqd``, ``friction``, ``tau``
        (:class:`~.numeric.NumericEquations`: each recorded on the project's tape, common
        subexpressions shared); parameters from the model's defaults, updated by
        ``values``."""
        table = dict(self.defaults)
        table.update({str(k): v for k, v in (values or {}).items()})
        missing = [str(s) for s in self.params if str(s) not in table]
        if missing:
            raise ModelError(f"{self.name}: no value for parameter(s) {', '.join(missing)}; "
                             f"pass them as eq.numeric({{'{missing[0]}': ...}})")
        return NumericEquations(self, {s: float(table[str(s)]) for s in self.params})

    # -- output ----------------------------------------------------------------------
    # ``shorthand``: s_1 = sin(q1), c_12 = cos(q1 + q2) and named terms (h) declared at
    # the top; ``digits``: Floats rounded to that many significant digits (:mod:`.readable`)
    def text(self, steps: bool = False, shorthand: bool = False,
             digits: int | None = None) -> str:
        """The plain form, SymPy syntax that reads back (``shorthand`` off by default)."""
        from .printing.text import to_text

        return to_text(self, steps=steps, shorthand=shorthand, digits=digits)

    def pretty(self, steps: bool = False, width: int = 100, shorthand: bool = True,
               digits: int | None = None) -> str:
        """Unicode math for a terminal (:func:`.printing.pretty.to_pretty`)."""
        from .printing.pretty import to_pretty

        return to_pretty(self, steps=steps, width=width, shorthand=shorthand, digits=digits)

    def latex(self, steps: bool = False, document: bool = False, shorthand: bool = True,
              digits: int | None = None) -> str:
        """LaTeX of the equations (``steps=True``: the whole derivation); ``document=True``
        gives a complete file for ``pdflatex``."""
        from .printing.latex import to_latex

        return to_latex(self, steps=steps, document=document, shorthand=shorthand,
                        digits=digits)

    def markdown(self, steps: bool = False, shorthand: bool = True,
                 digits: int | None = None) -> str:
        from .printing.markdown import to_markdown

        return to_markdown(self, steps=steps, shorthand=shorthand, digits=digits)

    def json(self, steps: bool = False, shorthand: bool = False,
             digits: int | None = None) -> str:
        """JSON whose expressions read back with ``sympy.parse_expr`` (``shorthand`` off by
        default; when on, ``"shorthand"`` maps each name to its meaning)."""
        from .printing.json import to_json

        return to_json(self, steps=steps, shorthand=shorthand, digits=digits)

    def to_code(self, lang: str, parameters: str = "baked", name: str | None = None,
                values: Mapping[str, float] | None = None) -> dict[str, str]:
        """These equations as standalone code: ``{file name: text}``.

        ``lang``: ``python`` (NumPy only), ``c`` (C99 ``.h`` + ``.c``), ``cpp`` (Eigen,
        header-only), ``matlab`` (Octave-compatible), ``java``, ``julia`` or
        ``mathematica``. ``parameters``: ``"baked"`` (the numbers in the code:
        ``self.defaults`` updated by ``values``) or ``"argument"`` (every function takes
        the vector ``p`` first, in the order of ``self.params``). ``name``: the function
        prefix / module name (default: the model name as an identifier). Common
        subexpressions are eliminated (``sympy.cse``); see :mod:`robodyn.codegen.export`.
        """
        from ..codegen.export import export_code

        return export_code(self, lang, parameters=parameters, name=name, values=values)

    def html(self, steps: bool = False, document: bool = True, shorthand: bool = True,
             digits: int | None = None, description: str = "") -> str:
        """The equations as a web page (``steps=True``: the whole derivation): one
        self-contained HTML file, math in MathML, the arm drawn in SVG, no script
        (:func:`.printing.html.to_html`); ``document=False``: the page's ``<div>`` alone."""
        from .printing.html import to_html

        return to_html(self, steps=steps, document=document, shorthand=shorthand,
                       digits=digits, description=description)

    def _repr_html_(self) -> str:
        """What Jupyter shows: the page without the steps (``eq.html(steps=True)`` has
        them), as a ``<div>`` with its style."""
        return self.html(document=False)

    def _repr_latex_(self) -> str:
        from .printing.latex import latex_summary

        return "$\\displaystyle " + latex_summary(self) + "$"

    def __repr__(self) -> str:
        return f"Equations({self.name!r}, method={self.method!r}, dof={self.dof})"

    def __str__(self) -> str:
        return self.text()


def value_table(values: Mapping, params, name: str) -> dict[sp.Symbol, sp.Expr]:
    known = {str(s): s for s in params}
    table = {}
    for key, value in dict(values).items():
        key_name = str(key)
        if key_name not in known:
            raise InputError(f"{name}.subs: {key_name!r} is not a symbolic parameter of these "
                             f"equations; they are {', '.join(sorted(known)) or '(none)'}")
        if isinstance(value, sp.Basic):
            table[known[key_name]] = value
        elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value,
                                                                                        bool):
            table[known[key_name]] = number(value.item() if hasattr(value, "item") else value)
        else:
            raise InputError(f"{name}.subs: {key_name} = {value!r} is not a number")
    return table

