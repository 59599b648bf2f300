"""Printing equations of motion: plain text (terminal), LaTeX, Markdown, JSON.

Text is one expression per line in SymPy's own syntax (``qd1**2*sin(q2)``), so what a
terminal shows can be pasted back into Python. LaTeX writes ``qd1`` as
:math:`\\dot q_1`, breaks long sums over lines (``align*``), and ``document=True``
gives a file that ``pdflatex`` compiles. JSON holds every expression as a string that
:func:`sympy.parse_expr` reads back to the same expression (Floats keep every bit).

Every format takes ``shorthand`` (``s_1 = sin q1``, ``c_12 = cos(q1 + q2)`` and named
recurring terms such as ``h``, declared once at the top; on by default for pretty, LaTeX
and Markdown, off for text and JSON, which scripts read back) and ``digits`` (Floats
rounded to that many significant digits); see :mod:`.readable`.
"""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.str import StrPrinter

from ...dynamics.registry import CLOSED_FORMS, ClosedForm, printed_forms
from ...model.names import display_tex_problem, visible
from .readable import Readable

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations, Step

METHOD_NAMES = {"lagrange": "Lagrange-Euler", "newton-euler": "Newton-Euler"}
#: How the headings name the Lagrange routes other than Euler-Lagrange (:mod:`.routes`).
ROUTE_NAMES = {"energy": "M from the kinetic energy", "jacobian": "M and g from the Jacobians"}


def method_name(eq: Equations) -> str:
    """``Lagrange-Euler``, ``Newton-Euler``, or ``Lagrange-Euler (M from the kinetic
    energy)`` for a route other than Euler-Lagrange."""
    route = ROUTE_NAMES.get(getattr(eq, "route", ""), "")
    return METHOD_NAMES[eq.method] + (f" ({route})" if route else "")


# -- the order of the terms -------------------------------------------------------------
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


class _OriginOrder:
    """A printer mixin: the terms of every sum by :func:`physical_origin` (inertial,
    Coriolis/centrifugal, gravity, friction), SymPy's order within each kind."""

    def _as_ordered_terms(self, expr, order=None):
        terms = super()._as_ordered_terms(expr, order=order)
        return sorted(terms, key=physical_origin)


# -- strings that read back ------------------------------------------------------------
def is_double(x: sp.Float) -> bool:
    """Whether the SymPy Float ``x`` is a double: its value and its precision (53 bits) are
    those of ``float(x)`` (structural identity, :meth:`sympy.core.basic.Basic.compare`)."""
    return x.compare(sp.Float(float(x), precision=53)) == 0


class _ExactStrPrinter(_OriginOrder, StrPrinter):
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


class _PlainPrinter(_OriginOrder, StrPrinter):
    """``str`` with each Float to 15 significant digits, trailing zeros dropped (``0.1``,
    not ``0.100000000000000``; ``0.3 - 0.1`` as ``0.2``): numbers print as the model
    wrote them. (JSON keeps every bit: :func:`json_str`.)"""

    def _print_Float(self, expr):
        text = f"{float(expr):.15g}"
        return text if any(c in text for c in ".en") else text + ".0"


def plain(expr) -> str:
    """The text form of ``expr`` (SymPy syntax, numbers as written)."""
    return _PlainPrinter({"order": None}).doprint(expr)


# -- text --------------------------------------------------------------------------------
def _header_lines(eq: Equations) -> list[str]:
    joints = ", ".join(f"q{i + 1} {t}" for i, t in enumerate(eq.joint_types))
    params = ", ".join(str(s) for s in eq.params) or "(none: all numbers)"
    lines = [f"Equations of motion of {visible(eq.name)} by {method_name(eq)}",
             f"  joints: {joints}",
             f"  parameters: {params}",
             f"  gravity g0 = [{', '.join(plain(x) for x in eq.chain.gravity)}] (base frame)"]
    if eq.h_e:
        lines.append(f"  end-effector wrench h_e = {list(eq.h_e)} (base frame)")
    if eq.frames_note:
        lines.append(f"  frames: {eq.frames_note}")
    if getattr(eq, "display", None):
        lines.append("  notation: " + ", ".join(f"{visible(k)} = {visible(v)}"
                                                for k, v in eq.display.items()))
    return lines


def _readable(eq: Equations, steps: bool, shorthand: bool, digits: int | None,
              latex: bool = False) -> Readable:
    """The printing transform of one output: shorthand and named terms for what it
    prints (the steps if ``steps``, and the result)."""
    exprs = [s.expression for s in eq.steps] if steps else []
    exprs += [getattr(eq, f.attribute) for f in CLOSED_FORMS
              if f.shown is not None and (eq.h_e or not f.h_e)]
    return Readable(eq, exprs, shorthand=shorthand, digits=digits, latex=latex)


def _definition_lines(rd: Readable, text, width: int = 90) -> list[str]:
    """``where s_1 = sin(q1), c_12 = cos(q1 + q2)`` (wrapped at ``width``), then each named
    term on a line of its own: ``and h = -c2*l1*m2*s_2``."""
    if not rd.definitions:
        return []
    short = [f"{text(k)} = {text(v)}" for k, v in rd.definitions if k not in rd.term_names]
    lines, current = [], "  where "
    for k, item in enumerate(short):
        piece = item + ("," if k < len(short) - 1 else "")
        if current.strip() != "where" and len(current) + len(piece) > width:
            lines.append(current.rstrip())
            current = "        "
        current += piece + " "
    if short:
        lines.append(current.rstrip())
    lead = "  and " if short else "  where "
    for k, v in rd.definitions:
        if k in rd.term_names:
            lines.append(f"{lead}{text(k)} = {text(v)}")
            lead = "  and "
    return lines


def _index(eq: Equations, *idx: int) -> str:
    if eq.dof < 10:
        return "".join(str(i + 1) for i in idx)
    return "[" + ",".join(str(i + 1) for i in idx) + "]"


def _text_value(value, fmt=None) -> str:
    if fmt is not None:
        return fmt(value)
    if isinstance(value, sp.MatrixBase):
        if value.shape[1] == 1:
            if value.shape[0] == 1:
                return plain(value[0, 0])
            return "[" + ", ".join(plain(x) for x in value) + "]^T"
        return "[" + ",\n ".join("[" + ", ".join(plain(x) for x in value.row(r)) + "]"
                                for r in range(value.shape[0])) + "]"
    return plain(value)


def _text_equations(eq: Equations, fmt=None, prep=None) -> list[str]:
    n = eq.dof
    show = _entry_formatter(fmt, prep)
    out = ["", "M(q) qdd + C(q, qd) qd + friction(qd) + g(q)"
           + (" + J(q)^T h_e" if eq.h_e else "") + " = tau", ""]
    for form in printed_forms(bool(eq.h_e)):
        value, shown = getattr(eq, form.attribute), form.shown
        out.append(shown.label)
        forces = [str(i + 1) for i, t in enumerate(eq.joint_types) if t != "revolute"]
        if form.attribute == "tau" and forces:
            which = "tau" + ", tau".join(forces)
            out[-1] = out[-1].rstrip(":") + (f" ({which}: a force, joint {forces[0]} is "
                                             "prismatic):" if len(forces) == 1 else
                                             f" ({which}: forces, prismatic joints):")
        if form.rank == 2:
            out += [show(f"  {shown.symbol}{_index(eq, i, j)} = ", value[i, j])
                    for i in range(n) for j in range(i if shown.symmetric else 0, n)]
        else:
            out += [show(f"  {shown.symbol}{_index(eq, i)} = ", value[i]) for i in range(n)]
    return out


def _entry_formatter(fmt, prep=None):
    """``show(prefix, expr)``: ``prefix`` + the expression, continuation lines indented."""
    if hasattr(fmt, "show"):
        return fmt.show

    def show(prefix: str, expr) -> str:
        if prep is not None:
            expr = prep(expr)
        text = plain(expr) if fmt is None else fmt(expr)
        lines = text.split("\n")
        return prefix + lines[0] + "".join("\n" + " " * len(prefix) + x for x in lines[1:])
    return show


def _text_steps(eq: Equations, fmt=None, prep=None, words=None) -> list[str]:
    words = words or (lambda text: text)
    out = ["", f"Derivation by {method_name(eq)}, step by step"]
    section = None
    number = 0
    count = 0
    for step in eq.steps:
        if step.section != section:
            section = step.section
            number += 1
            out += ["", f"{number}. {section}", ""]
        count += 1
        out.append(f"  ({count}) {words(step.title)}")
        lhs = f"      {words(step.lhs)} = "
        pad = " " * (len(lhs) - 2) + "= "
        expr = step.expression if prep is None else prep.step(step)
        value = _text_value(expr, fmt).replace("\n", "\n" + " " * len(lhs))
        if step.formula:
            out.append(lhs + words(step.formula))
            out.append(pad + value.replace("\n" + " " * len(lhs), "\n" + " " * len(pad)))
        else:
            out.append(lhs + value)
    return out


def to_text(eq: Equations, steps: bool = False, shorthand: bool = False,
            digits: int | None = None) -> str:
    """The plain form (SymPy syntax). With ``shorthand`` the names ``s_1``, ``c_12``, ``h``
    are declared in the header (``where s_1 = sin(q1), ...``); ``digits`` rounds Floats."""
    rd = _readable(eq, steps, shorthand, digits)
    lines = _header_lines(eq) + _definition_lines(rd, plain)
    if steps:
        lines += _text_steps(eq, prep=rd)
        lines += ["", "Result"]
    lines += _text_equations(eq, prep=rd)
    text = "\n".join(lines)
    return "\n".join(wrap_line(line, TEXT_WIDTH) for line in text.split("\n")) + "\n"


#: Widest line of the text form (``robodyn derive --format text``).
TEXT_WIDTH = 100
_OPEN, _CLOSE = "([{", ")]}"


def wrap_line(line: str, width: int = TEXT_WIDTH) -> str:
    """``line`` broken into lines of at most ``width`` characters where it is longer:
    before a `` + `` or `` - `` or after a ``, `` (an expression, a matrix row), else at
    a space, the shallowest such place (fewest open brackets) in the second half of the
    line first; continuation lines are indented under the right-hand side (after
    `` = ``) or four columns deeper than the line. A piece with no such place (one very
    long name) is cut at the width."""
    if len(line) <= width:
        return line
    lead = len(line) - len(line.lstrip())
    eq_at = line.find(" = ")
    indent = eq_at + 3 if 0 <= eq_at < width // 2 else lead + 4
    rows, rest, first = [], line, True
    while len(rest) > width:
        cut = _break_at(rest, width, indent if not first else lead)
        rows.append(rest[:cut].rstrip())
        rest = " " * indent + rest[cut:].lstrip()
        first = False
    rows.append(rest)
    return "\n".join(rows)


def _break_at(text: str, width: int, start: int) -> int:
    """Where to break ``text`` (see :func:`wrap_line`): an index in ``(start, width]``,
    the shallowest place in the second half of the room (after a comma before a sign,
    before a space), else the last place there is."""
    depth, places = 0, []
    for i, ch in enumerate(text[:width + 1]):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        if i <= start + 8:
            continue
        if text.startswith(", ", i - 1) and ch == " ":
            kind = 0                 # after the comma
        elif text.startswith((" + ", " - "), i):
            kind = 1                 # the sign starts the next line
        elif ch == " ":
            kind = 2
        else:
            continue
        places.append((depth, kind, -i))
    if not places:
        return width
    half = start + (width - start) // 2
    late = [p for p in places if -p[2] >= half]
    return -min(late or places)[2]


_PLAIN_NAME = re.compile(r"^[A-Za-z]+(_[A-Za-z0-9]+)?$")


def _pretty_symbols(eq: Equations) -> dict:
    """``q1 -> q₁``, ``qd1 -> q̇₁``, ``qdd1 -> q̈₁`` (SymPy's pretty printer reads the
    ``dot``/``ddot`` modifiers and ``_1`` subscripts), or the model's display names
    (``display: {q1: theta_1, q2: d_2}``: ``θ₁``, ``θ̇₁``, ``ḋ₂``); a parameter's display
    name too, where it is a plain name (``ml2: m_l2``). LaTeX display names
    (``\\ell_{1}``) are for LaTeX only."""
    table = {}
    display = eq.display
    for i in range(eq.dof):
        shown = display.get(f"q{i + 1}", "")
        if _PLAIN_NAME.match(shown):
            head, _, sub = shown.partition("_")
            sub = f"_{sub}" if sub else ""
            table[eq.q[i]] = sp.Symbol(shown)
            table[eq.qd[i]] = sp.Symbol(f"{head}dot{sub}")
            table[eq.qdd[i]] = sp.Symbol(f"{head}ddot{sub}")
        else:
            table[eq.q[i]] = sp.Symbol(f"q_{i + 1}")
            table[eq.qd[i]] = sp.Symbol(f"qdot_{i + 1}")
            table[eq.qdd[i]] = sp.Symbol(f"qddot_{i + 1}")
    for s in eq.params:
        shown = display.get(s.name, "")
        if _PLAIN_NAME.match(shown):
            table[s] = sp.Symbol(shown)
    return table


_NAME_WORD = re.compile(r"\b(d?)(qdd|qd|q)(\d+)\b")  # dL/dqd1: d, then qd1


def _pretty_words(eq: Equations, names: dict):
    """``text -> text`` with the joint variables of a title, a left side or a formula
    (``qd1``, ``dL/dq2``) written as the pretty printer writes them (``θ̇₁``, ``dL/dd₂``)."""
    table = {}
    for i in range(eq.dof):
        for kind, sym in (("q", eq.q[i]), ("qd", eq.qd[i]), ("qdd", eq.qdd[i])):
            table[(kind, str(i + 1))] = sp.pretty(names[sym], use_unicode=True)

    def words(text: str) -> str:
        def one(m):
            name = table.get((m.group(2), m.group(3)))
            return m.group(1) + name if name else m.group(0)
        return _NAME_WORD.sub(one, text)
    return words


def _pretty_block(expr) -> tuple[list[str], int]:
    """SymPy's Unicode picture of ``expr``: its lines and the index of its baseline."""
    return _BlockPrinter({"use_unicode": True, "wrap_line": False, "order": "none"}).block(expr)


class _BlockPrinter(_OriginOrder, PrettyPrinter):
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
    columns. For reading on a terminal; :func:`to_text` is the form for scripts.
    ``shorthand``: ``s₁``, ``c₁₂``, ``h`` declared at the top; ``digits``: Floats rounded."""
    names = _pretty_symbols(eq)
    columns = max(40, width - 14)
    rd = _readable(eq, steps, shorthand, digits)

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
             for x in _header_lines(eq)]
    lines += _definition_lines(rd, one_line, width=max(40, width - 4))
    if steps:
        lines += _text_steps(eq, lambda expr: fmt(expr, prepared=True), prep=rd,
                             words=words)
        lines += ["", "Result"]
    lines += _text_equations(eq, fmt)
    return "\n".join(x.rstrip() for x in "\n".join(lines).split("\n")) + "\n"


# -- LaTeX -------------------------------------------------------------------------------
_PLAIN_DISPLAY = re.compile(r"^[A-Za-z0-9_' ^]+$")
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def display_tex(name: str) -> str:
    """LaTeX of a display name: ``theta_1`` as SymPy writes the symbol (``\\theta_{1}``);
    a name with a backslash or braces is LaTeX already. Anything else, and LaTeX that a
    model file could not hold (:func:`~robodyn.model.names.display_tex_problem`: another
    command, unbalanced braces), is shown as escaped text, never run."""
    name = str(name)
    if _PLAIN_DISPLAY.match(name):
        return sp.latex(sp.Symbol(name))
    if ("\\" in name or "{" in name) and visible(name) == name \
            and not display_tex_problem(name):
        return name
    return rf"\text{{{tex_escape(name)}}}"


def symbol_names(eq: Equations) -> dict:
    """LaTeX names: ``q_{1}``, ``\\dot{q}_{1}``, or the model's display names (read once,
    as :attr:`~robodyn.symbolic.equations.Equations.tex_names`)."""
    names = {}
    display = eq.display
    for i in range(eq.dof):
        shown = display.get(f"q{i + 1}")
        if shown:
            names[eq.q[i]] = display_tex(shown)
            head, _, sub = shown.partition("_")
            plain_name = bool(_PLAIN_DISPLAY.match(shown))
            if plain_name and sub and head:  # theta_1: \dot{\theta}_{1}
                head, sub = display_tex(head), f"_{{{sub}}}"
            else:
                head, sub = display_tex(shown), ""
            names[eq.qd[i]] = rf"\dot{{{head}}}{sub}"
            names[eq.qdd[i]] = rf"\ddot{{{head}}}{sub}"
        else:
            names[eq.q[i]] = f"q_{{{i + 1}}}"
            names[eq.qd[i]] = rf"\dot{{q}}_{{{i + 1}}}"
            names[eq.qdd[i]] = rf"\ddot{{q}}_{{{i + 1}}}"
    for s in eq.params:
        if s.name in display:
            names[s] = display_tex(display[s.name])
        elif not _IDENTIFIER.match(s.name):  # a symbol made in Python: shown as text
            names[s] = rf"\text{{{tex_escape(s.name)}}}"
        elif book_name(s.name):
            names[s] = book_name(s.name)
    return names


_BOOK_NAME = re.compile(r"^([A-Za-z])([a-z]{1,2})(\d+)$")
#: Subscripts that books write with a comma before the link's index (``I_{zz,1}``).
_AXIS_SUBSCRIPTS = {"xx", "yy", "zz", "xy", "xz", "yz", "v", "s", "m"}


def book_name(name: str) -> str:
    """A parameter's LaTeX as the books write it, where its name is a letter, a short
    lowercase tag and a link index: ``Izz1`` as ``I_{zz,1}``, ``Fv2`` as ``F_{v,2}``,
    ``Jm1`` as ``J_{m,1}``, ``ml2`` as ``m_{l_2}``, ``Il1`` as ``I_{l_1}`` (Siciliano's
    ``m_{l_i}``); empty for any other name (SymPy's own LaTeX: ``m1`` as ``m_{1}``)."""
    m = _BOOK_NAME.match(name)
    if not m:
        return ""
    head, tag, index = m.groups()
    if tag in _AXIS_SUBSCRIPTS:
        return f"{head}_{{{tag},{index}}}"
    if tag == "l":
        return f"{head}_{{l_{{{index}}}}}"
    return ""


class _LatexPrinter(_OriginOrder, LatexPrinter):
    """SymPy's LaTeX printer, the terms of a sum by their physical origin."""


def tex_of(eq: Equations, expr) -> str:
    """LaTeX of ``expr`` with ``eq``'s names for its symbols."""
    return _LatexPrinter({"symbol_names": eq.tex_names, "mul_symbol": "\\,"}).doprint(expr)


#: Widest displayed line, in characters as typeset (:func:`visible_width`): about the text
#: width of the document's A4 page at 10pt with 1.5 cm margins.
LINE_WIDTH = 72
_LINE = 110  # characters of LaTeX source per displayed line (Markdown)

_TEX_COMMAND = __import__("re").compile(r"\\([a-zA-Z]+)")
_TEX_DROP = ("\\left", "\\right", "\\bigl", "\\bigr", "\\quad", "\\,", "\\;")


def visible_width(tex: str) -> int:
    """Roughly how many characters wide ``tex`` (one line of math) is as typeset:
    commands as one glyph (``\\sin`` as three), braces, sub/superscript marks and
    spacing dropped, a fraction as wide as numerator and denominator together (an
    overestimate), a binary operator as two characters (its spaces)."""
    for d in _TEX_DROP:
        tex = tex.replace(d, "")

    def glyph(m):
        name = m.group(1)
        if name in ("sin", "cos", "tan"):
            return name
        if name in ("frac", "dot", "ddot", "mathbf", "operatorname", "text", "mathrm",
                    "begin", "end", "tfrac", "displaystyle"):
            return ""
        return "x"

    tex = _TEX_COMMAND.sub(glyph, tex)
    plain_text = "".join(ch for ch in tex if ch not in "{}_^& ")
    return len(plain_text) + sum(plain_text.count(op) for op in "+-=")


def tex_lines(eq: Equations, lhs: str, expr, formula: str = "") -> str:
    """``\\begin{align*} lhs &= formula \\\\ &= expr\\end{align*}``, long sums broken."""
    rows = []
    if formula:
        rows.append(f"{lhs} &= {formula}")
        lead = "&= "
    else:
        lead = f"{lhs} &= "
    if isinstance(expr, sp.MatrixBase):
        body = tex_of(eq, expr)
        if _matrix_fits(eq, lhs, expr):
            rows.append(lead + body)
            return _align(rows)
        # a big matrix: its entries one by one
        for r in range(expr.shape[0]):
            for c in range(expr.shape[1]):
                sub = f"{r + 1}" if expr.shape[1] == 1 else f"{r + 1}{c + 1}"
                rows += _broken(eq, f"\\left({lhs}\\right)_{{{sub}}} &= ", expr[r, c])
        return _align(rows)
    rows += _broken(eq, lead, expr)
    return _align(rows)


def _matrix_fits(eq: Equations, lhs: str, m: sp.MatrixBase) -> bool:
    """Whether the matrix ``m`` fits on one displayed line: its widest row (entries and
    their gaps) and the left-hand side within :data:`LINE_WIDTH`."""
    if any(sum(len(sp.Add.make_args(x)) for x in m.row(r)) > 12 for r in range(m.shape[0])):
        return False  # too many terms for one line, whatever their width
    widths = [sum(visible_width(tex_of(eq, x)) + 3 for x in m.row(r)) for r in range(m.shape[0])]
    return visible_width(lhs) + 4 + max(widths, default=0) <= LINE_WIDTH


def _pieces(eq: Equations, expr, first: bool) -> list[str]:
    """The LaTeX of the terms of a sum, each with its sign (`` + t``, `` - t``); a term
    too wide for a line that is a product with a sum in it (``\\ddot q_1 (I_1 + ...)``)
    is opened (``\\ddot q_1 \\bigl(``), its inner terms listed, and closed (``\\bigr)``),
    so that the lines can break inside it."""
    out = []
    terms = sorted(expr.as_ordered_terms(), key=physical_origin) if isinstance(expr, sp.Add) \
        else [expr]
    for k, term in enumerate(terms):
        sign = ""
        if term.could_extract_minus_sign():
            term, sign = -term, "-"
        t = tex_of(eq, term)
        lead = (f"{sign}" if first and k == 0 else f" {sign or '+'} ")
        inner = [a for a in term.args if isinstance(a, sp.Add)] if term.is_Mul else []
        if visible_width(t) > LINE_WIDTH // 2 and len(inner) == 1:
            rest = sp.Mul(*[a for a in term.args if a is not inner[0]])
            head = "" if rest == 1 else tex_of(eq, rest) + r"\,"
            sub = _pieces(eq, inner[0], True)
            out.append(f"{lead}{head}\\bigl({sub[0]}")
            out += sub[1:-1]
            out.append(f"{sub[-1]}\\bigr)" if len(sub) > 1 else "")
            if len(sub) == 1:
                out[-2] += r"\bigr)"
                out.pop()
        else:
            out.append(lead + t)
    return out


def _broken(eq: Equations, lead: str, expr) -> list[str]:
    """``lead`` + the LaTeX of ``expr``, broken between terms into lines no wider than
    :data:`LINE_WIDTH` (:func:`visible_width`); continuation lines start ``&\\quad``."""
    if not isinstance(expr, (sp.Add, sp.Mul)):
        return [lead + tex_of(eq, expr)]
    room = LINE_WIDTH - visible_width(lead)
    rows, current = [], ""
    for piece in _pieces(eq, expr, True):
        if current and visible_width(current) + visible_width(piece) > room:
            rows.append(current)
            current = piece.lstrip()
        else:
            current += piece
    rows.append(current)
    return [lead + rows[0]] + [f"&\\quad {r}" for r in rows[1:]]


def _align(rows: list[str]) -> str:
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}"


def _results(eq: Equations, rd: Readable) -> list[tuple[str, list[tuple[str, object]]]]:
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
    return out


def latex_summary(eq: Equations) -> str:
    """The equations as one LaTeX ``aligned`` block (for Jupyter)."""
    parts = []
    for form in printed_forms(False):
        value = getattr(eq, form.attribute)
        if form.shown.term == "friction" and not any(f != 0 for f in value):
            continue  # a model without friction
        parts.append(f"{form.shown.tex} &= {tex_of(eq, value)}")
    return "\\begin{aligned}" + " \\\\ ".join(parts) + "\\end{aligned}"


_TEX_TEXT = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "&": r"\&",
             "%": r"\%", "#": r"\#", "^": r"\^{}", "~": r"\~{}", "$": r"\$",
             "<": r"\textless{}", ">": r"\textgreater{}"}


def tex_escape(text: str) -> str:
    """``text`` as LaTeX text: every special character escaped (``\\ { } _ & % # ^ ~ $ < >``),
    every control or invisible character written as ``<U+XXXX>``, so it can neither run a
    command nor end the group it stands in."""
    return "".join(_TEX_TEXT.get(ch, ch) for ch in visible(text))


#: What a title writes as math: ``N + N^T``, ``dM/dt - 2C``, ``qd1``, ``c_112``, ``R_1^T``.
_TITLE_MATH = re.compile(r"(?P<sym>\b[A-Z] \+ [A-Z]\^T\b)|(?P<mdot>\bdM/dt - 2C\b)"
                         r"|(?P<joint>\b(?:qdd|qd|q)\d+\b)|(?P<word>\b(?:qdd|qd|tau|xi)\b)"
                         r"|(?P<sub>\b[A-Za-z]+_(?:\([a-z0-9+-]+\)|[A-Za-z0-9]+)(?:\^T)?)")


def title_tex(eq: Equations, title: str, markdown: bool = False) -> str:
    """A step's title or a section heading as LaTeX text (Markdown with ``markdown``),
    escaped, with its math as math: ``qd1`` as :math:`\\dot q_1` (or the model's
    display name), ``c_112`` as :math:`c_{112}`, ``N + N^T`` as :math:`N + N^T`, so that
    no ASCII notation (``qd1``, ``N + N\\^{}T``) is left in a heading."""
    escape = md_escape if markdown else tex_escape
    joints = {}
    for i in range(eq.dof):
        joints.update({f"q{i + 1}": eq.q[i], f"qd{i + 1}": eq.qd[i],
                       f"qdd{i + 1}": eq.qdd[i]})
    out, at = [], 0
    for m in _TITLE_MATH.finditer(title):
        out.append(escape(title[at:m.start()]))
        text = m.group(0)
        if m.group("joint"):
            tex = tex_of(eq, joints[text]) if text in joints else None
        elif m.group("word"):
            tex = {"qdd": r"\ddot q", "qd": r"\dot q", "tau": r"\tau", "xi": r"\xi"}[text]
        elif m.group("mdot"):
            tex = r"\dot M - 2C"
        elif m.group("sym"):
            tex = text
        else:
            head, _, sub = text.partition("_")
            transpose = sub.endswith("^T")
            sub = sub.removesuffix("^T").strip("()")
            tex = (rf"{head}_{{{sub}}}" + ("^T" if transpose else "")
                   if _IDENTIFIER.match(head) and re.match(r"^[A-Za-z0-9+-]+$", sub) else None)
        out.append(f"${tex}$" if tex else escape(text))
        at = m.end()
    out.append(escape(title[at:]))
    return "".join(out)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#+!|$~&])")


def md_escape(text: str) -> str:
    """``text`` as Markdown text: the characters that start emphasis, links, math, HTML
    or entities backslash-escaped (CommonMark reads ``\\<`` as ``<``), control and
    invisible characters as ``<U+XXXX>``."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))


def _tex_definitions(eq: Equations, rd: Readable) -> str:
    """``where $s_{1} = \\sin\\theta_1$, ... and $h = ...$.`` (empty without any)."""
    if not rd.definitions:
        return ""
    items = [f"${tex_of(eq, k)} = {tex_of(eq, v)}$" for k, v in rd.definitions]
    if len(items) == 1:
        return f"where {items[0]}."
    return "where " + ", ".join(items[:-1]) + f" and {items[-1]}."


def to_latex(eq: Equations, steps: bool = False, document: bool = False,
             shorthand: bool = True, digits: int | None = None) -> str:
    """LaTeX (``align*``, long sums broken between terms); ``shorthand``: ``s_{1}``,
    ``c_{12}``, ``h`` declared under the heading; ``digits``: Floats rounded."""
    rd = _readable(eq, steps, shorthand, digits, latex=True)
    method = method_name(eq).replace("-", "--")
    joints = ", ".join(f"${tex_of(eq, q)}$ {t}" for q, t in zip(eq.q, eq.joint_types,
                                                                strict=True))
    params = ", ".join(f"${tex_of(eq, s)}$" for s in eq.params) or "none"
    out = [f"\\section*{{Equations of motion of {tex_escape(eq.name)} by {method}}}",
           f"Joints: {joints}. Parameters: {params}. Gravity $g_0 = "
           f"{tex_of(eq, sp.Matrix(eq.chain.gravity).T)}^T$ (base frame).", ""]
    out.append(_align([r"M(q)\,\ddot q + C(q,\dot q)\,\dot q + \tau_f(\dot q) + g(q)"
                       + (r" + J^T(q)\,h_e" if eq.h_e else "") + r" &= \tau"]))
    definitions = _tex_definitions(eq, rd)
    if definitions:
        out.append(definitions)
    if steps:
        out.append("\\subsection*{Derivation}")
        section = None
        for k, step in enumerate(eq.steps, start=1):
            if step.section != section:
                section = step.section
                out.append(f"\\subsubsection*{{{title_tex(eq, section)}}}")
            out.append(f"\\paragraph{{({k}) {title_tex(eq, step.title)}}}")
            lhs = step.latex_lhs or rf"\text{{{tex_escape(step.lhs)}}}"
            out.append(tex_lines(eq, lhs, rd.step(step), step.latex_formula))
    out.append("\\subsection*{Result}")
    for title, rows in _results(eq, rd):
        out.append(title)
        out += [tex_lines(eq, lhs, value) for lhs, value in rows]
    body = "\n".join(out) + "\n"
    if not document:
        return body
    return ("\\documentclass[10pt]{article}\n\\usepackage[margin=1.5cm]{geometry}\n"
            "\\usepackage{amsmath}\n\\allowdisplaybreaks\n\\setlength{\\parindent}{0pt}\n"
            "\\begin{document}\n" + body + "\\end{document}\n")


# -- Markdown ----------------------------------------------------------------------------
def markdown_math(eq: Equations, lhs: str, expr, formula: str = "") -> str:
    """``$$lhs = formula = expr$$``; a long one broken over lines in ``aligned`` (as
    :func:`tex_lines` breaks it), a big matrix entry by entry."""
    if len(tex_of(eq, expr)) + len(formula) > _LINE:
        body = tex_lines(eq, lhs, expr, formula)
        if body.count("\\begin{align*}") == 1:
            inner = body.removeprefix("\\begin{align*}\n").removesuffix("\n\\end{align*}")
            return "$$\\begin{aligned}\n" + inner + "\n\\end{aligned}$$"
    if isinstance(expr, sp.MatrixBase) and len(tex_of(eq, expr)) > 4 * _LINE:
        lines = []
        for r in range(expr.shape[0]):
            for c in range(expr.shape[1]):
                sub = f"{r + 1}" if expr.shape[1] == 1 else f"{r + 1}{c + 1}"
                lines.append(f"$$\\left({lhs}\\right)_{{{sub}}} = {tex_of(eq, expr[r, c])}$$")
        return "\n\n".join(lines)
    middle = f" = {formula}" if formula else ""
    return f"$${lhs}{middle} = {tex_of(eq, expr)}$$"


def to_markdown(eq: Equations, steps: bool = False, shorthand: bool = True,
                digits: int | None = None) -> str:
    """Markdown with ``$$`` math (as :func:`to_latex`, one display per quantity)."""
    rd = _readable(eq, steps, shorthand, digits, latex=True)
    joints = ", ".join(f"${tex_of(eq, q)}$ {t}" for q, t in zip(eq.q, eq.joint_types,
                                                                strict=True))
    params = ", ".join(f"${tex_of(eq, s)}$" for s in eq.params) or "none"
    out = [f"# Equations of motion of {md_escape(eq.name)} by {method_name(eq)}", "",
           f"- joints: {joints}", f"- parameters: {params}",
           f"- gravity $g_0 = {tex_of(eq, sp.Matrix(eq.chain.gravity).T)}^T$ (base frame)", "",
           r"$$M(q)\,\ddot q + C(q,\dot q)\,\dot q + \tau_f(\dot q) + g(q)"
           + (r" + J^T(q)\,h_e" if eq.h_e else "") + r" = \tau$$", ""]
    definitions = _tex_definitions(eq, rd)
    if definitions:
        out += [definitions, ""]
    if steps:
        out += ["## Derivation", ""]
        section = None
        for k, step in enumerate(eq.steps, start=1):
            if step.section != section:
                section = step.section
                out += [f"### {title_tex(eq, section, markdown=True)}", ""]
            out += [f"**({k}) {title_tex(eq, step.title, markdown=True)}**", "",
                    markdown_math(eq, step.latex_lhs or step.lhs, rd.step(step),
                             step.latex_formula), ""]
    out += ["## Result", ""]
    for title, rows in _results(eq, rd):
        out += [title, ""]
        for lhs, value in rows:
            out += [markdown_math(eq, lhs, value), ""]
    return "\n".join(out)


# -- JSON ------------------------------------------------------------------------------
def to_dict(eq: Equations, steps: bool = False, shorthand: bool = False,
            digits: int | None = None) -> dict:
    """The equations as plain data; every expression a :func:`json_str` string (plain
    numbers that read back as the same doubles). With
    ``shorthand``, ``"shorthand": {"s_1": "sin(q1)", "h": ...}`` says what the names in the
    expressions stand for (substitute them back to read the full forms)."""
    rd = _readable(eq, steps, shorthand, digits)

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
                     | {str(s) for s in eq.h_e})
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


__all__ = ["to_text", "to_pretty", "plain", "to_latex", "to_markdown", "to_json", "to_dict",
           "exact_str", "json_str", "latex_summary"]
