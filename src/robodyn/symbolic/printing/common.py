"""What every printer of the closed forms shares: the method's name in the headings, the
order of the terms of a sum (:func:`physical_origin`), the printing transform of one output
(:func:`readable_for`), the results as LaTeX and Markdown show them, and the escaping of
text for LaTeX and Markdown."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import sympy as sp

from ...dynamics.registry import CLOSED_FORMS, printed_forms
from ...model.names import visible
from .readable import Readable

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations


METHOD_NAMES = {"lagrange": "Lagrange-Euler", "newton-euler": "Newton-Euler"}
#: How the headings name the Lagrange routes other than Euler-Lagrange (:mod:`.routes`).
ROUTE_NAMES = {"energy": "M from the kinetic energy", "jacobian": "M and g from the Jacobians"}


def method_name(eq: Equations) -> str:
    """``Lagrange-Euler``, ``Newton-Euler``, or ``Lagrange-Euler (M from the kinetic
    energy)`` for a route other than Euler-Lagrange."""
    route = ROUTE_NAMES.get(getattr(eq, "route", ""), "")
    quasi = not all(jc.single for jc in getattr(eq, "coordinates", ()))
    if quasi and eq.method == "lagrange" and not route:  # :mod:`..hamel`
        route = "Boltzmann-Hamel, quasi-velocities"
    return METHOD_NAMES[eq.method] + (f" ({route})" if route else "")


_RATE_NAME = re.compile(r"^(qdd|qddot_|qd|qdot_)\d+$")


@functools.lru_cache(maxsize=100_000)
def physical_origin(term) -> int:
    """Where a term of a sum comes from, as the books order them: 0 inertial (an
    acceleration ``qdd``), 1 Coriolis/centrifugal (rates ``qd``), 2 gravity and the rest
    (no rates), 3 friction (``sign(qd)``)."""
    names = {s.name for s in getattr(term, "free_symbols", ())}
    kinds = {_RATE_NAME.match(n).group(1) for n in names if _RATE_NAME.match(n)}
    if kinds & {"qdd", "qddot_"}:
        return 0
    if term.has(sp.sign):
        return 3
    return 1 if kinds else 2


class OriginOrder:
    """A printer mixin: the terms of every sum by :func:`physical_origin` (inertial,
    Coriolis/centrifugal, gravity, friction), SymPy's order within each kind."""

    def _as_ordered_terms(self, expr, order=None):
        terms = super()._as_ordered_terms(expr, order=order)
        return sorted(terms, key=physical_origin)


def readable_for(eq: Equations, steps: bool, shorthand: bool, digits: int | None,
                 latex: bool = False) -> Readable:
    """The printing transform of one output: shorthand and named terms for what it
    prints (the steps if ``steps``, and the result)."""
    exprs = [s.expression for s in eq.steps] if steps else []
    exprs += [getattr(eq, f.attribute) for f in CLOSED_FORMS
              if f.shown is not None and (eq.h_e or not f.h_e)]
    return Readable(eq, exprs, shorthand=shorthand, digits=digits, latex=latex)


def printed_results(eq: Equations, rd: Readable) -> list[tuple[str, list[tuple[str, object]]]]:
    """The results that LaTeX and Markdown show: ``(title, [(lhs, value), ...])`` per
    closed form (:func:`~robodyn.dynamics.registry.printed_forms`), one row for the whole
    matrix or one per entry (``tau_1 = ...``)."""
    out = []
    for form in printed_forms(bool(eq.h_e)):
        value, shown = getattr(eq, form.attribute), form.shown
        if shown.entrywise:
            rows = [(f"{shown.tex}_{{{i + 1}}}", rd(value[i])) for i in range(eq.dof)]
        else:
            rows = [(shown.tex, rd(value))]
        out.append((shown.title, rows))
    if getattr(eq, "z", ()):  # LuGre: the bristle states' equation before the friction
        at = next(k for k, form in enumerate(printed_forms(bool(eq.h_e)))
                  if form.attribute == "friction")
        out.insert(at, ("LuGre bristle deflections z", [
            (rf"\dot z_{{{i + 1}}}", rd(eq.bristle_rate[i])) for i in range(eq.dof)]))
    return out


_TEX_TEXT = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "&": r"\&",
             "%": r"\%", "#": r"\#", "^": r"\^{}", "~": r"\~{}", "$": r"\$",
             "<": r"\textless{}", ">": r"\textgreater{}"}


def tex_escape(text: str) -> str:
    """``text`` as LaTeX text: every special character escaped (``\\ { } _ & % # ^ ~ $ < >``),
    every control or invisible character written as ``<U+XXXX>``, so it can neither run a
    command nor end the group it stands in."""
    return "".join(_TEX_TEXT.get(ch, ch) for ch in visible(text))


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#+!|$~&])")


def md_escape(text: str) -> str:
    """``text`` as Markdown text: the characters that start emphasis, links, math, HTML
    or entities backslash-escaped (CommonMark reads ``\\<`` as ``<``), control and
    invisible characters as ``<U+XXXX>``."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))
