"""The pretty form: the text layout (:mod:`.text`) with every expression in SymPy's
Unicode pretty printer (``q̇₁``, ``sin(q₂)``, matrices laid out, fractions stacked)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import sympy as sp
from sympy.printing.pretty.pretty import PrettyPrinter

from .common import OriginOrder, physical_origin, readable_for
from .text import definition_lines, header_lines, plain, text_equations, text_steps, wrap_line

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations


_PLAIN_NAME = re.compile(r"^[A-Za-z]+(_[A-Za-z0-9]+)?$")


def _pretty_symbols(eq: Equations) -> dict:
    """``q1 -> q₁``, ``qd1 -> q̇₁``, ``qdd1 -> q̈₁`` (SymPy's pretty printer reads the
    ``dot``/``ddot`` modifiers and ``_1`` subscripts), or the model's display names
    (``display: {q1: theta_1, q2: d_2}``: ``θ₁``, ``θ̇₁``, ``ḋ₂``); a parameter's display
    name too, where it is a plain name (``ml2: m_l2``). LaTeX display names
    (``\\ell_{1}``) are for LaTeX only."""
    table = {}
    display = eq.display
    for jc in eq.coordinates:
        if not jc.single:  # a ball or free joint: x₁, q_w1, v_x1, ω̇_x1
            table.update({s: sp.Symbol(_pretty_coordinate(str(s)))
                          for s in jc.q + jc.qd + jc.qdd})
            continue
        i = jc.number - 1
        q, qd, qdd = jc.q[0], jc.qd[0], jc.qdd[0]
        shown = display.get(f"q{i + 1}", "")
        if _PLAIN_NAME.match(shown):
            head, _, sub = shown.partition("_")
            sub = f"_{sub}" if sub else ""
            table[q] = sp.Symbol(shown)
            table[qd] = sp.Symbol(f"{head}dot{sub}")
            table[qdd] = sp.Symbol(f"{head}ddot{sub}")
        else:
            table[q] = sp.Symbol(f"q_{i + 1}")
            table[qd] = sp.Symbol(f"qdot_{i + 1}")
            table[qdd] = sp.Symbol(f"qddot_{i + 1}")
    for s in eq.params:
        shown = display.get(s.name, "")
        if _PLAIN_NAME.match(shown):
            table[s] = sp.Symbol(shown)
    return table


_NAME_WORD = re.compile(r"\b(d?)(qdd|qd|q)(\d+)\b")  # dL/dqd1: d, then qd1

#: A ball or free joint's names for the pretty printer (its ``dot`` modifier, Greek ``w``)
_PRETTY_COORDINATE = ((re.compile(r"(v|w)(d?)_([xyz])(\d+)"), None),
                      (re.compile(r"q([xyzw])(\d+)"), r"q_\1\2"),
                      (re.compile(r"([xyz])(\d+)"), r"\1_\2"))


def _pretty_coordinate(name: str) -> str:
    """``v_x1 -> v_x1``, ``wd_x1 -> omegadot_x1`` (ω̇_x1), ``qw1 -> q_w1``, ``x1 -> x_1``."""
    for pattern, replacement in _PRETTY_COORDINATE:
        m = pattern.fullmatch(name)
        if m and replacement is None:
            head = "omega" if m.group(1) == "w" else "v"
            return f"{head}{'dot' if m.group(2) else ''}_{m.group(3)}{m.group(4)}"
        if m:
            return pattern.sub(replacement, name)
    return name


def _pretty_words(eq: Equations, names: dict):
    """``text -> text`` with the joint variables of a title, a left side or a formula
    (``qd1``, ``dL/dq2``) written as the pretty printer writes them (``θ̇₁``, ``dL/dd₂``)."""
    table = {}
    for jc in eq.coordinates:
        if jc.single:
            for kind, sym in (("q", jc.q[0]), ("qd", jc.qd[0]), ("qdd", jc.qdd[0])):
                table[(kind, str(jc.number))] = sp.pretty(names[sym], use_unicode=True)

    def words(text: str) -> str:
        def one(m):
            name = table.get((m.group(2), m.group(3)))
            return m.group(1) + name if name else m.group(0)
        return _NAME_WORD.sub(one, text)
    return words


def _pretty_block(expr) -> tuple[list[str], int]:
    """SymPy's Unicode picture of ``expr``: its lines and the index of its baseline."""
    return _BlockPrinter({"use_unicode": True, "wrap_line": False, "order": "none"}).block(expr)


class _BlockPrinter(OriginOrder, PrettyPrinter):
    """SymPy's pretty printer, giving a picture's lines and its baseline (the line that a
    prefix such as ``M11 =`` goes on) where :meth:`doprint` gives only the text."""

    def block(self, expr) -> tuple[list[str], int]:
        form = self._print(expr)  # the printer's own dispatch, as its _print_<Class> use it
        return str(form).split("\n"), form.baseline


def _pretty_wrapped(expr, columns: int) -> tuple[str, int]:
    """``expr`` pretty-printed; a sum wider than ``columns`` is broken between its terms
    (each continuation line starts with the sign of its first term), never inside one."""
    lines, base = _pretty_block(expr)
    if max(len(x) for x in lines) <= columns:
        return "\n".join(lines), base
    if isinstance(expr, sp.MatrixBase):
        return _pretty_entries(expr, columns), 0
    if isinstance(expr, sp.Mul) and any(isinstance(a, sp.Add) for a in expr.args):
        expr = sp.expand(expr)  # one product too wide: its terms, to break between
    if not isinstance(expr, sp.Add):
        return "\n".join(lines), base
    terms = []
    for term in sorted(expr.as_ordered_terms(), key=physical_origin):
        wide = max(len(x) for x in _pretty_block(term)[0]) > columns
        terms += sp.Add.make_args(sp.expand(term)) if wide and term.is_Mul else [term]
    rows, current = [], []
    for term in terms:
        trial = current + [term]
        block, _ = _pretty_block(sp.Add(*trial, evaluate=False))
        if current and max(len(x) for x in block) > columns:
            rows.append(current)
            current = [term]
        else:
            current = trial
    rows.append(current)
    out, first_base = [], 0
    for k, row in enumerate(rows):
        block, base = _pretty_block(sp.Add(*row, evaluate=False))
        if k:
            first = row[0]
            sign = "- " if first.could_extract_minus_sign() else "+ "
            if sign == "- ":
                block, base = _pretty_block(sp.Add(*([-first] + row[1:]), evaluate=False))
            block = [(sign if i == base else "  ") + x for i, x in enumerate(block)]
        else:
            first_base = base
        out.append("\n".join(block))
    return "\n".join(out), first_base


def _pretty_entries(m: sp.MatrixBase, columns: int) -> str:
    """A matrix too wide for ``columns``: its entries one per line, each as
    ``(row, column)  entry`` (``[row]  entry`` for a column vector), each wrapped."""
    out = []
    for r in range(m.shape[0]):
        for c in range(m.shape[1]):
            label = f"[{r + 1}]  " if m.shape[1] == 1 else f"({r + 1},{c + 1})  "
            text, base = _pretty_wrapped(m[r, c], max(20, columns - len(label)))
            out.append(_on_baseline(label, text, base))
    return "\n".join(out)


def _on_baseline(prefix: str, text: str, row: int) -> str:
    """``prefix`` written on line ``row`` (the baseline) of ``text``, the other lines
    indented as far."""
    pad = " " * len(prefix)
    return "\n".join((prefix if i == row else pad) + x
                     for i, x in enumerate(text.split("\n")))


def to_pretty(eq: Equations, steps: bool = False, width: int = 100, shorthand: bool = True,
              digits: int | None = None) -> str:
    """The text layout with every expression in SymPy's Unicode pretty printer
    (``q̇₁``, ``sin(q₂)``, matrices laid out, fractions stacked), wrapped at ``width``
    columns. For reading on a terminal; :func:`.text.to_text` is the form for scripts.
    ``shorthand``: ``s₁``, ``c₁₂``, ``h`` declared at the top; ``digits``: Floats rounded."""
    names = _pretty_symbols(eq)
    columns = max(40, width - 14)
    rd = readable_for(eq, steps, shorthand, digits)

    def fmt(expr, prepared: bool = False) -> str:
        if not prepared:
            expr = rd(expr)
        if isinstance(expr, sp.MatrixBase) and expr.shape == (1, 1):
            expr = expr[0, 0]
        expr = expr.xreplace(names) if isinstance(expr, (sp.Basic, sp.MatrixBase)) else expr
        # a step's value stands after its left side, up to 26 columns in ("d/dt dL/dqd1 = ")
        return _pretty_wrapped(expr, columns if not prepared else max(40, width - 26))[0]

    def show(prefix: str, expr) -> str:
        expr = rd(expr)
        expr = expr.xreplace(names) if isinstance(expr, sp.Basic) else expr
        return _on_baseline(prefix, *_pretty_wrapped(expr, columns))

    def one_line(expr) -> str:
        expr = expr.xreplace(names) if isinstance(expr, sp.Basic) else expr
        block, _ = _pretty_block(expr)
        return block[0] if len(block) == 1 else plain(expr)

    fmt.show = show
    words = _pretty_words(eq, names)
    lines = [wrap_line(words(x) if x.startswith("  joints:") else x, width)
             for x in header_lines(eq)]
    lines += definition_lines(rd, one_line, width=max(40, width - 4))
    if steps:
        lines += text_steps(eq, lambda expr: fmt(expr, prepared=True), prep=rd,
                            words=words)
        lines += ["", "Result"]
    lines += text_equations(eq, fmt)
    return "\n".join(x.rstrip() for x in "\n".join(lines).split("\n")) + "\n"
