"""What printing does to a closed form before laying it out, to read like the lecture.

* **Shorthand** (``shorthand=True``): ``sin q_1 = s_1``, ``cos(q_1 + q_2) = c_12``,
  ``sin(q_1 + q_2 + q_3) = s_123`` for the sines and cosines of a joint angle or of a sum
  of distinct revolute joint angles, declared once at the top of the output. A model
  whose parameters already print as ``c_1`` (planar-2r's COM distances ``c1, c2``) gets
  ``cos_12``, ``sin_1`` instead, so that no name means two things.
* **Named terms**: ``h = -c2 l1 m2 sin q2``, a factor that divides several entries of
  ``C``, found automatically (:meth:`Equations.named_terms`, with ``shorthand=True``) or
  given by the user (:meth:`Equations.name_terms`); each entry it divides exactly is
  printed as ``h`` times the quotient (``C12 = h (qd1 + qd2)``).
* **Digits** (``digits=N``): every Float rounded to ``N`` significant digits (default: as
  the model wrote them).

Only the printed form changes; ``eq.M`` etc. stay as derived. JSON, which must read back
with :func:`sympy.parse_expr`, gets the shorthand only when asked for, and then with its
declarations (``"shorthand": {"s_1": "sin(q1)"}``).
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp

#: Names of the shorthand: ``s_1``/``c_12``, or ``sin_1``/``cos_12`` when a parameter or a
#: display name of the model would print the same as ``s_1`` or ``c_12``.
PREFIXES = (("s", "c"), ("sin", "cos"))


def _bare(name: str) -> str:
    """A name as it looks printed: ``c_{1}``, ``c_1`` and ``c1`` all look like c1."""
    return "".join(ch for ch in name if ch not in "_{}\\ ")


def round_floats(expr, digits: int):
    """``expr`` with each Float rounded to ``digits`` significant digits."""
    floats = expr.atoms(sp.Float) if isinstance(expr, (sp.Basic, sp.MatrixBase)) else set()
    if not floats:
        return expr
    # a double of the rounded decimal (a Float of fewer bits would not be 4.9 but 4.898...);
    # the printers show it without trailing zeros
    return expr.xreplace({x: sp.Float(float(f"{float(x):.{digits}g}")) for x in floats})


def divide_out(expr, name: sp.Symbol, term: sp.Expr):
    """``expr`` with ``term`` written as ``name`` where it divides exactly: a product
    containing every factor of ``term`` becomes ``name * quotient``; in a sum, each such
    term (or the whole sum, when every term has it: ``h (qd1 + qd2)``)."""
    if expr == 0 or not isinstance(expr, sp.Expr):
        return expr

    def quotient(x):
        q = x / term
        _, den = sp.fraction(q)
        return q if not den.free_symbols else None

    def times(q):  # -h (qd1 + qd2), as the planar-arm notes writes it, not h (-qd1 - qd2)
        if isinstance(q, sp.Add) and q.could_extract_minus_sign():
            return sp.Mul(-1, name, -q)
        return name * q

    if isinstance(expr, sp.Add):
        parts = [quotient(t) for t in expr.args]
        if all(p is not None for p in parts):
            return times(sp.Add(*parts))
        return sp.Add(*(name * p if p is not None else t
                        for p, t in zip(parts, expr.args, strict=True)))
    q = quotient(expr)
    return times(sp.expand(q)) if q is not None else expr


class Readable:
    """The printing transform of one output (see the module docstring).

    ``prep(expr)`` gives the expression to lay out (scalars and matrices);
    ``definitions`` lists ``(symbol, meaning)`` to declare at the top, in order:
    the shorthand used, then the named terms used.
    """

    def __init__(self, eq, exprs: Iterable, shorthand: bool = False,
                 digits: int | None = None, named: bool = True, latex: bool = False):
        self.digits = digits
        self.shorthand = shorthand
        exprs = list(exprs)
        self.terms: list[tuple[sp.Symbol, sp.Expr]] = []
        #: whether the named terms are written into the steps of a recursion too
        self.terms_in_steps = bool(getattr(eq, "terms_in_steps", False))
        if named:
            terms = dict(getattr(eq, "user_terms", {}) or {})
            if shorthand:
                for k, v in (getattr(eq, "model_terms", {}) or {}).items():
                    terms.setdefault(k, v)
                declared = list(terms.values())
                for k, v in eq.named_terms().items():
                    # the model's own h (with its sign) wins over the one found
                    if not any(sp.expand(v - u) == 0 or sp.expand(v + u) == 0
                               for u in declared):
                        terms.setdefault(k, v)
            used = [(sp.Symbol(k), v) for k, v in terms.items()
                    if any(self._names_in(x, sp.Symbol(k), v) for x in exprs)]
            self.terms = used
        self.table: dict[sp.Expr, sp.Symbol] = {}
        if shorthand:
            self.table = self._shorthand(eq, exprs + [v for _, v in self.terms], latex)
        self.definitions: list[tuple[sp.Symbol, sp.Expr]] = \
            [(s, f) for f, s in self.table.items()] + \
            [(s, self._finish(v)) for s, v in self.terms]
        #: the named terms' symbols (the rest of ``definitions`` is shorthand)
        self.term_names = {s for s, _ in self.terms}

    @staticmethod
    def _names_in(expr, name, term) -> bool:
        if isinstance(expr, sp.MatrixBase):
            return any(divide_out(x, name, term) != x for x in expr)
        return isinstance(expr, sp.Expr) and divide_out(expr, name, term) != expr

    @staticmethod
    def _shorthand(eq, exprs, latex: bool = False) -> dict:
        """``{sin(q1): s_1, cos(q1 + q2): c_12, ...}`` for the trig functions in ``exprs``
        of one revolute joint angle or a sum of distinct ones (coefficients 1)."""
        joints = {jc.q[0]: jc.number for jc in eq.coordinates if jc.type == "revolute"}
        found = {}
        for e in exprs:
            atoms = e.atoms(sp.sin, sp.cos) if isinstance(e, (sp.Basic, sp.MatrixBase)) \
                else ()
            for f in atoms:
                coeffs = f.args[0].as_coefficients_dict()
                if coeffs and all(k in joints and c == 1 for k, c in coeffs.items()):
                    found[f] = sorted(joints[k] for k in coeffs)
        if not found:
            return {}
        taken = {_bare(s.name) for s in eq.params}
        taken |= {_bare(v) for v in (getattr(eq, "display", {}) or {}).values()}
        sep = "" if len(eq.coordinates) < 10 else ","

        def label(prefix, idx):
            head = "\\" + prefix if latex and len(prefix) > 1 else prefix  # \cos_{12}
            return f"{head}_{sep.join(str(i) for i in idx)}"

        for s_name, c_name in PREFIXES:
            names = {f: label(s_name if isinstance(f, sp.sin) else c_name, idx)
                     for f, idx in found.items()}
            if not {_bare(n) for n in names.values()} & taken:
                break
        else:  # pragma: no cover - both spellings taken by parameters
            return {}
        order = sorted(found, key=lambda f: (len(found[f]), found[f], isinstance(f, sp.cos)))
        return {f: sp.Symbol(names[f]) for f in order}

    def _finish(self, expr):
        if self.table:
            expr = expr.xreplace(self.table)
        if self.digits is not None:
            expr = round_floats(expr, self.digits)
        return expr

    def step(self, step):
        """The expression of ``step`` to print: as :meth:`prep`, but the named terms are
        left out of the steps of a recursion (``step.substitute_terms`` false: the
        Newton–Euler vectors, written as the lecture writes them) unless the equations
        ask for them there (``terms_in_steps``)."""
        terms = getattr(step, "substitute_terms", True) or self.terms_in_steps
        return self.prep(step.expression, terms=terms)

    def prep(self, expr, terms: bool = True):
        """The expression to print: named terms (unless ``terms`` is false), shorthand,
        digits."""
        if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
            return expr
        for name, term in (self.terms if terms else ()):
            if isinstance(expr, sp.MatrixBase):
                expr = expr.applyfunc(lambda x, n=name, t=term: divide_out(x, n, t))
            else:
                expr = divide_out(expr, name, term)
        return self._finish(expr)

    __call__ = prep


__all__ = ["Readable", "round_floats", "divide_out"]
