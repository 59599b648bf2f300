"""LaTeX: ``qd1`` written as :math:`\\dot q_1` (or the model's display name), long sums
broken between terms over the lines of an ``align*``; ``document=True`` gives a file that
``pdflatex`` compiles."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import sympy as sp
from sympy.printing.latex import LatexPrinter

from ...dynamics.registry import printed_forms
from ...model.names import display_tex_problem, visible
from ..ring.coordinates import coordinate_tex
from .common import (
    OriginOrder,
    md_escape,
    method_name,
    physical_origin,
    printed_results,
    readable_for,
    tex_escape,
)
from .readable import Readable

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations


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
    for jc in eq.coordinates:
        if not jc.single:  # a ball or free joint: x_{1}, q_{w,1}, v_{x,1}, \dot{v}_{x,1}
            names.update({s: coordinate_tex(str(s)) for s in jc.q + jc.qd + jc.qdd})
            continue
        i = jc.number - 1
        q, qd, qdd = jc.q[0], jc.qd[0], jc.qdd[0]
        shown = display.get(f"q{i + 1}")
        if shown:
            names[q] = display_tex(shown)
            head, _, sub = shown.partition("_")
            plain_name = bool(_PLAIN_DISPLAY.match(shown))
            if plain_name and sub and head:  # theta_1: \dot{\theta}_{1}
                head, sub = display_tex(head), f"_{{{sub}}}"
            else:
                head, sub = display_tex(shown), ""
            names[qd] = rf"\dot{{{head}}}{sub}"
            names[qdd] = rf"\ddot{{{head}}}{sub}"
        else:
            names[q] = f"q_{{{i + 1}}}"
            names[qd] = rf"\dot{{q}}_{{{i + 1}}}"
            names[qdd] = rf"\ddot{{q}}_{{{i + 1}}}"
    for s in eq.params:
        if s.name in display:
            names[s] = display_tex(display[s.name])
        elif not _IDENTIFIER.match(s.name):  # a symbol made in Python: shown as text
            names[s] = rf"\text{{{tex_escape(s.name)}}}"
        elif book_name(s.name):
            names[s] = book_name(s.name)
    return names


_BOOK_NAME = re.compile(r"^([A-Za-z])([a-z]{1,2})(\d+)$")
#: A lowercase letter, an uppercase tag and an index: ``mL2``, ``mM2`` (``m_{L_2}``).
_TAGGED_NAME = re.compile(r"^([a-z])([A-Z]{1,2})(\d*)$")
#: Subscripts that books write with a comma before the link's index (``I_{zz,1}``).
_AXIS_SUBSCRIPTS = {"xx", "yy", "zz", "xy", "xz", "yz", "v", "s", "m"}


def book_name(name: str) -> str:
    """A parameter's LaTeX as the books write it, where its name is a letter, a short
    lowercase tag and a link index: ``Izz1`` as ``I_{zz,1}``, ``Fv2`` as ``F_{v,2}``,
    ``Jm1`` as ``J_{m,1}``, ``ml2`` as ``m_{l_2}``, ``Il1`` as ``I_{l_1}`` (Siciliano's
    ``m_{l_i}``), ``mL2`` as ``m_{L_2}``, ``mE`` as
    ``m_{E}``; empty for any other name (SymPy's own LaTeX: ``m1`` as ``m_{1}``)."""
    m = _BOOK_NAME.match(name)
    if not m:
        tagged = _TAGGED_NAME.match(name)  # mL2: link 2's body mass, m_{L_2} (not m L_2)
        if not tagged:
            return ""
        index = f"_{{{tagged[3]}}}" if tagged[3] else ""
        return f"{tagged[1]}_{{{tagged[2]}{index}}}"
    head, tag, index = m.groups()
    if tag in _AXIS_SUBSCRIPTS:
        return f"{head}_{{{tag},{index}}}"
    if tag == "l":
        return f"{head}_{{l_{{{index}}}}}"
    return ""


class _LatexPrinter(OriginOrder, LatexPrinter):
    """SymPy's LaTeX printer, the terms of a sum by their physical origin."""


def tex_of(eq: Equations, expr) -> str:
    """LaTeX of ``expr`` with ``eq``'s names for its symbols."""
    return _LatexPrinter({"symbol_names": eq.tex_names, "mul_symbol": "\\,"}).doprint(expr)


#: Widest displayed line, in characters as typeset (:func:`visible_width`): about the text
#: width of the document's A4 page at 10pt with 1.5 cm margins.
LINE_WIDTH = 72


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


def latex_summary(eq: Equations) -> str:
    """The equations as one LaTeX ``aligned`` block (for Jupyter)."""
    parts = []
    for form in printed_forms(False):
        value = getattr(eq, form.attribute)
        if form.shown.term == "friction" and not any(f != 0 for f in value):
            continue  # a model without friction
        parts.append(f"{form.shown.tex} &= {tex_of(eq, value)}")
    return "\\begin{aligned}" + " \\\\ ".join(parts) + "\\end{aligned}"


#: What a title writes as math: ``N + N^T``, ``dM/dt - 2C``, ``qd1``, ``c_112``, ``R_1^T``.
_TITLE_MATH = re.compile(r"(?P<sym>\b[A-Z] \+ [A-Z]\^T\b)|(?P<mdot>\bdM/dt - 2C\b)"
                         r"|(?P<joint>\b(?:(?:qdd|qd|q)\d+|(?:vd|wd|v|w)_[xyz]\d+|q[xyzw]\d+)\b)|(?P<word>\b(?:qdd|qd|tau|xi)\b)"
                         r"|(?P<sub>\b[A-Za-z]+_(?:\([a-z0-9+-]+\)|[A-Za-z0-9]+)(?:\^T)?)")


def title_tex(eq: Equations, title: str, markdown: bool = False) -> str:
    """A step's title or a section heading as LaTeX text (Markdown with ``markdown``),
    escaped, with its math as math: ``qd1`` as :math:`\\dot q_1` (or the model's
    display name), ``c_112`` as :math:`c_{112}`, ``N + N^T`` as :math:`N + N^T`, so that
    no ASCII notation (``qd1``, ``N + N\\^{}T``) is left in a heading."""
    escape = md_escape if markdown else tex_escape
    joints = {str(s): s for s in eq.q + eq.qd + eq.qdd}
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


def tex_definitions(eq: Equations, rd: Readable) -> str:
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
    rd = readable_for(eq, steps, shorthand, digits, latex=True)
    method = method_name(eq).replace("-", "--")
    joints = ", ".join(f"${', '.join(tex_of(eq, q) for q in jc.q)}$ {jc.type}"
                       for jc in eq.coordinates)
    params = ", ".join(f"${tex_of(eq, s)}$" for s in eq.params) or "none"
    out = [f"\\section*{{Equations of motion of {tex_escape(eq.name)} by {method}}}",
           f"Joints: {joints}. Parameters: {params}. Gravity $g_0 = "
           f"{tex_of(eq, sp.Matrix(eq.chain.gravity).T)}^T$ (base frame).", ""]
    out.append(_align([r"M(q)\,\ddot q + C(q,\dot q)\,\dot q + \tau_f(\dot q) + g(q)"
                       + (r" + J^T(q)\,h_e" if eq.h_e else "") + r" &= \tau"]))
    definitions = tex_definitions(eq, rd)
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
    for title, rows in printed_results(eq, rd):
        out.append(title)
        out += [tex_lines(eq, lhs, value) for lhs, value in rows]
    body = "\n".join(out) + "\n"
    if not document:
        return body
    return ("\\documentclass[10pt]{article}\n\\usepackage[margin=1.5cm]{geometry}\n"
            "\\usepackage{amsmath}\n\\allowdisplaybreaks\n\\setlength{\\parindent}{0pt}\n"
            "\\begin{document}\n" + body + "\\end{document}\n")
