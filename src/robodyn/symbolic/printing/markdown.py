"""Markdown with ``$$`` math: the LaTeX of :mod:`.latex`, one display per quantity."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from .common import md_escape, method_name, printed_results, readable_for
from .latex import tex_definitions, tex_lines, tex_of, title_tex

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations

#: Characters of LaTeX source per displayed line.
_LINE = 110


def markdown_math(eq: Equations, lhs: str, expr, formula: str = "") -> str:
    """``$$lhs = formula = expr$$``; a long one broken over lines in ``aligned`` (as
    :func:`.latex.tex_lines` breaks it), a big matrix entry by entry."""
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
    """Markdown with ``$$`` math (as :func:`.latex.to_latex`, one display per quantity)."""
    rd = readable_for(eq, steps, shorthand, digits, latex=True)
    joints = ", ".join(f"${', '.join(tex_of(eq, q) for q in jc.q)}$ {jc.type}"
                       for jc in eq.coordinates)
    params = ", ".join(f"${tex_of(eq, s)}$" for s in eq.params) or "none"
    out = [f"# Equations of motion of {md_escape(eq.name)} by {method_name(eq)}", "",
           f"- joints: {joints}", f"- parameters: {params}",
           f"- gravity $g_0 = {tex_of(eq, sp.Matrix(eq.chain.gravity).T)}^T$ (base frame)", "",
           r"$$M(q)\,\ddot q + C(q,\dot q)\,\dot q + \tau_f(\dot q) + g(q)"
           + (r" + J^T(q)\,h_e" if eq.h_e else "") + r" = \tau$$", ""]
    definitions = tex_definitions(eq, rd)
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
    for title, rows in printed_results(eq, rd):
        out += [title, ""]
        for lhs, value in rows:
            out += [markdown_math(eq, lhs, value), ""]
    return "\n".join(out)
