"""JSON, and the strings that read back: every expression a string that
:func:`sympy.parse_expr` turns back into the same expression (Floats keep every bit)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import sympy as sp
from sympy.printing.str import StrPrinter

from ...dynamics.registry import CLOSED_FORMS, ClosedForm
from .common import OriginOrder, readable_for
from .readable import Readable

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations
    from ..steps import Step


def is_double(x: sp.Float) -> bool:
    """Whether the SymPy Float ``x`` is a double: its value and its precision (53 bits) are
    those of ``float(x)`` (structural identity, :meth:`sympy.core.basic.Basic.compare`)."""
    return x.compare(sp.Float(float(x), precision=53)) == 0


class _ExactStrPrinter(OriginOrder, StrPrinter):
    """``sstr`` whose Floats read back bit for bit through :func:`sympy.parse_expr`."""

    def _print_Float(self, expr):
        if not is_double(expr):
            return super()._print_Float(expr)
        text = repr(float(expr))
        mantissa = text.split("e")[0].replace("-", "").replace(".", "").lstrip("0")
        if len(mantissa) <= 15:
            return text
        return f"Float('{text}', precision=53)"


def exact_str(expr) -> str:
    """``str(expr)`` that :func:`sympy.parse_expr` turns back into ``expr``."""
    return _ExactStrPrinter({"order": None}).doprint(expr)


class _JsonStrPrinter(StrPrinter):
    """``sstr`` with each double-precision Float as its shortest decimal (``repr``):
    ``1.5670000000000002``, not ``Float('1.5670000000000002', precision=53)``. The
    decimal reads back as the same double (``float(parse_expr(text))`` is bit for bit
    the number printed)."""

    def _print_Float(self, expr):
        if not is_double(expr):
            return super()._print_Float(expr)
        return repr(float(expr))


def json_str(expr) -> str:
    """``str(expr)`` for JSON: plain numbers that read back as the same doubles."""
    return _JsonStrPrinter({"order": None}).doprint(expr)


def to_dict(eq: Equations, steps: bool = False, shorthand: bool = False,
            digits: int | None = None) -> dict:
    """The equations as plain data; every expression a :func:`json_str` string (plain
    numbers that read back as the same doubles). With
    ``shorthand``, ``"shorthand": {"s_1": "sin(q1)", "h": ...}`` says what the names in the
    expressions stand for (substitute them back to read the full forms)."""
    rd = readable_for(eq, steps, shorthand, digits)

    def mat(m):
        m = rd(m)
        return [[json_str(x) for x in m.row(r)] for r in range(m.shape[0])]

    def col(m):
        return [json_str(x) for x in rd(m)]

    def entries(form: ClosedForm):
        value = getattr(eq, form.attribute)
        if form.rank == 2:
            return mat(value)
        return col(value) if form.rank == 1 else json_str(rd(value))

    symbols = sorted({str(s) for s in eq.params} | {str(s) for s in eq.q + eq.qd + eq.qdd}
                     | {str(s) for s in eq.h_e} | {str(s) for s in getattr(eq, "z", ())})
    data = {
        "model": eq.name,
        "method": eq.method,
        "dof": eq.dof,
        "joint_types": list(eq.joint_types),
        "parameters": [str(s) for s in eq.params],
        "symbols": symbols,
        "q": [str(s) for s in eq.q],
        "qd": [str(s) for s in eq.qd],
        "qdd": [str(s) for s in eq.qdd],
    }
    data.update((form.key, entries(form)) for form in CLOSED_FORMS if not form.h_e)
    if rd.definitions:
        data["shorthand"] = {str(k): json_str(v) for k, v in rd.definitions}
    if getattr(eq, "route", "euler-lagrange") != "euler-lagrange":
        data["route"] = eq.route
    if getattr(eq, "z", ()):  # LuGre: the bristle states and their equation
        data["z"] = [str(s) for s in eq.z]
        data["dz/dt"] = col(eq.bristle_rate)
    if eq.h_e:
        data["h_e"] = [str(s) for s in eq.h_e]
        data.update((form.key, entries(form)) for form in CLOSED_FORMS if form.h_e)
    if steps:
        data["steps"] = [_step_dict(s, rd) for s in eq.steps]
    return data


def _step_dict(step: Step, rd: Readable) -> dict:
    expr = rd.step(step)
    if isinstance(expr, sp.MatrixBase):
        value = [[json_str(x) for x in expr.row(r)] for r in range(expr.shape[0])]
    else:
        value = json_str(expr)
    return {"section": step.section, "title": step.title, "lhs": step.lhs,
            "formula": step.formula, "expression": value}


def to_json(eq: Equations, steps: bool = False, shorthand: bool = False,
            digits: int | None = None) -> str:
    return json.dumps(to_dict(eq, steps=steps, shorthand=shorthand, digits=digits),
                      indent=2) + "\n"
