"""The derivation as one web page: HTML with MathML, the arm drawn in SVG, CSS inline.

:func:`to_html` writes a self-contained file: no script, no font, style sheet or image
fetched from anywhere, so that it reads the same from a disk, a mail or a course page. The
math is MathML (:mod:`.mathml`, translated from the LaTeX of :mod:`.latex`, so that the
page shows the names, shorthand and line breaks of the LaTeX), the arm's figure inline SVG
(:mod:`.figure`), the derivation one folding section (``<details>``) per part with a table
of contents by step. ``document=False`` gives the page's body alone (a ``<div>`` with its
style scoped to it), which is what Jupyter shows (``_repr_html_``).

Every text that comes from the model (its name, description, symbols and display names) or
from the steps is HTML-escaped (:func:`html.escape`); the page has no ``<script>``.
"""

from __future__ import annotations

import re
from html import escape
from typing import TYPE_CHECKING

import sympy as sp

from ...core.version import VERSION
from ...model.names import visible
from .common import method_name, printed_results, readable_for, tex_escape
from .figure import FigureError, arm_svg, joint_names
from .latex import tex_lines, tex_of
from .mathml import tex_to_mathml

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations
    from .readable import Readable

#: The page's style sheet, every rule under ``.robodyn`` so that it changes nothing else
#: where the page is embedded (a notebook).
CSS = """
.robodyn{--ink:#1d232b;--muted:#5b6572;--rule:#d9dee5;--tint:#f5f7fa;--accent:#2c5d8f;
 color:var(--ink);font:16px/1.55 "Source Serif 4","Charter","Georgia","DejaVu Serif",serif;
 max-width:1280px;margin:0 auto;padding:22px 22px 60px;box-sizing:border-box}
.robodyn *{box-sizing:border-box}
.robodyn math{font-family:"STIX Two Math","Cambria Math","Latin Modern Math",
 "DejaVu Math TeX Gyre","TeX Gyre Pagella Math",math;font-size:1em}
.robodyn h1{font-size:1.75em;line-height:1.2;margin:0 0 .2em;font-weight:600}
.robodyn h2{font-size:1.3em;margin:0;font-weight:600;display:inline}
.robodyn h3{font-size:1em;margin:0 0 .3em;font-weight:600}
.robodyn .sub{color:var(--muted);margin:0 0 1em}
.robodyn .lead{max-width:48em;margin:.2em 0 1.2em}
.robodyn .layout{display:grid;grid-template-columns:210px minmax(0,1fr);gap:26px}
.robodyn nav.toc{position:sticky;top:12px;align-self:start;max-height:calc(100vh - 24px);
 overflow:auto;font:12.5px/1.45 "DejaVu Sans","Helvetica Neue",Arial,sans-serif;
 border-right:1px solid var(--rule);padding-right:12px}
.robodyn nav.toc h2{font-size:1.1em;display:block;margin-bottom:.4em}
.robodyn nav.toc ol{list-style:none;margin:0;padding:0}
.robodyn nav.toc ol ol{padding-left:1em;margin:.15em 0 .5em;color:var(--muted)}
.robodyn nav.toc a{color:var(--accent);text-decoration:none}
.robodyn nav.toc a:hover{text-decoration:underline}
.robodyn nav.toc li>a.sec{font-weight:600}
.robodyn .facts{display:grid;grid-template-columns:max-content 1fr;gap:.25em 1em;margin:0}
.robodyn .facts dt{color:var(--muted);font-size:.95em}
.robodyn .facts dd{margin:0}
.robodyn .model{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}
.robodyn .model>div{flex:1 1 320px;min-width:0}
.robodyn figure{margin:0;flex:0 1 auto;max-width:100%}
.robodyn figure svg{max-width:100%;height:auto;background:var(--tint);border-radius:6px}
.robodyn figcaption{font-size:.85em;color:var(--muted);max-width:460px;margin-top:.3em}
.robodyn details.section{border-top:1px solid var(--rule);padding:.6em 0 .4em}
.robodyn details.section>summary{cursor:pointer;padding:.2em 0;list-style-position:outside}
.robodyn details.section>summary .count{color:var(--muted);font-size:.85em;margin-left:.6em}
.robodyn .step{margin:1em 0 1.3em;scroll-margin-top:12px}
.robodyn .step .no{color:var(--muted);font-weight:400;margin-right:.35em}
.robodyn .eq{overflow-x:auto;overflow-y:hidden;padding:.15em .2em .35em}
.robodyn .eq math[display=block]{margin:.2em 0;text-align:left}
.robodyn .eom{background:var(--tint);border-radius:6px;padding:.2em .8em;margin:1em 0}
.robodyn mtable.matrix>mtr>mtd{padding:.2em .5em}
.robodyn mtable.align>mtr>mtd{padding:.2em 0}
.robodyn mtable.align>mtr>mtd.r{text-align:right;padding-right:.15em}
.robodyn mtable.align>mtr>mtd.l{text-align:left}
.robodyn mtable.cases>mtr>mtd{text-align:left;padding:.1em .5em}
.robodyn mtable.align>mtr>mtd{math-style:normal}
.robodyn mi.bf{font-weight:bold}
.robodyn mi.n{font-style:italic}
.robodyn mtext.tex-unknown,.robodyn mtext.tex-source{color:#a33;font-family:monospace}
.robodyn code{font:.88em "DejaVu Sans Mono",monospace;color:var(--muted)}
.robodyn footer{margin-top:2em;color:var(--muted);font-size:.85em;
 border-top:1px solid var(--rule);padding-top:.6em}
.robodyn svg.arm .link{stroke:#8795a6;stroke-width:9;stroke-linecap:round;
 stroke-linejoin:round;fill:none}
.robodyn svg.arm .rod{stroke:#4a5868;stroke-width:5;stroke-linecap:round;fill:none}
.robodyn svg.arm .joint{fill:#fff;stroke:#28313b;stroke-width:2.2}
.robodyn svg.arm .sleeve{fill:#fff;stroke:#28313b;stroke-width:2}
.robodyn svg.arm .ground{stroke:#28313b;stroke-width:2}
.robodyn svg.arm .hatch{stroke:#28313b;stroke-width:1}
.robodyn svg.arm .pedestal{fill:#cfd6de;stroke:#28313b;stroke-width:1.5}
.robodyn svg.arm .com circle{fill:#fff;stroke:#111;stroke-width:1.3}
.robodyn svg.arm .com path{fill:#111}
.robodyn svg.arm .lever{stroke:#555;stroke-width:1;stroke-dasharray:3 3;fill:none}
.robodyn svg.arm .axis{stroke-width:1.8;fill:none}
.robodyn svg.arm .axis-end{fill:#fff;stroke-width:1.5}
.robodyn svg.arm .gravity{stroke:#444;stroke-width:1.8}
.robodyn svg.arm text{font:italic 15px "DejaVu Serif",Georgia,serif;fill:var(--ink)}
.robodyn svg.arm text .sub{font-size:10.5px;font-style:normal}
.robodyn svg.arm .a0{fill:#c0392b}.robodyn svg.arm .a1{fill:#1e8449}
.robodyn svg.arm .a2{fill:#2563b0}
.robodyn svg.arm .axis-lbl{font-size:13px}
@media (max-width:820px){.robodyn .layout{display:block}
 .robodyn nav.toc{position:static;max-height:none;border:0;padding:0 0 1em}}
@media print{.robodyn nav.toc{display:none}.robodyn .layout{display:block}}
"""


def _t(text) -> str:
    """Text from anywhere (the model, the steps), as HTML text."""
    return escape(visible(text), quote=True)


def _math(tex: str, display: bool = False) -> str:
    return tex_to_mathml(tex, display=display)


def _equation(eq: Equations, lhs: str, expr, formula: str = "") -> str:
    return '<div class="eq">' + _math(tex_lines(eq, lhs, expr, formula), True) + "</div>"


def _figure(eq: Equations, prefix: str = "") -> str:
    if not all(jc.single for jc in eq.coordinates):
        return ('<p class="sub">(No figure: the drawing takes revolute and prismatic joints, '
                "and this model has ball or free joints.)</p>")
    try:
        svg, pose, which = arm_svg(eq, prefix)
    except (FigureError, ZeroDivisionError, ValueError, TypeError) as exc:
        return f'<p class="sub">(No figure: {_t(exc)}.)</p>'
    names = joint_names(eq)
    where = ", ".join(
        (f"<i>{_t(h)}</i><sub>{_t(s)}</sub>" if s else f"<i>{_t(h)}</i>")
        + f" = {q:.2f}{' rad' if kind == 'revolute' else ''}"
        for (h, s), q, kind in zip(names, pose.q, eq.joint_types, strict=True))
    values = ", ".join(f"{_t(k)} = {v:g}" for k, v in sorted(pose.values.items()))
    if pose.stand_ins:
        values += (f" ({', '.join(_t(k) for k in pose.stand_ins)}: no value in the model, "
                   "drawn as 1)")
    caption = (f"The arm at {where}{'; ' + values if values else ''}. Drawn: the {which} "
               f"0 to {eq.dof} (<i>x</i> red, <i>y</i> green, <i>z</i> blue), the centres "
               "of mass <i>C</i><sub>i</sub>.")
    return f"<figure>{svg}<figcaption>{caption}</figcaption></figure>"


def _facts(eq: Equations, rd: Readable) -> str:
    joints = ", ".join(_math(", ".join(tex_of(eq, q) for q in jc.q)) + f" {_t(jc.type)}"
                       for jc in eq.coordinates)
    params = ", ".join(_math(tex_of(eq, s)) for s in eq.params) or "none (all numbers)"
    gravity = _math(r"\mathbf{g}_0 = " + tex_of(eq, sp.Matrix(eq.chain.gravity).T) + "^T")
    rows = [("Joints", joints), ("Parameters", params), ("Gravity", gravity + " (base frame)")]
    if eq.h_e:
        rows.append(("Wrench", _math(r"h_e = " + tex_of(eq, sp.Matrix(eq.h_e).T) + "^T")
                     + " (end effector, base frame)"))
    if eq.frames_note:
        rows.append(("Frames", _t(eq.frames_note)))
    display = getattr(eq, "display", None) or {}
    if display:  # robodyn's name (as the text and JSON forms write it) = the model's
        joints = {str(q): q for q in eq.q}
        rows.append(("Notation", ", ".join(
            f"<code>{_t(k)}</code> = {_math(tex_of(eq, joints.get(k, sp.Symbol(k))))}"
            for k, v in display.items())))
    if rd.definitions:
        items = [_math(f"{tex_of(eq, k)} = {tex_of(eq, v)}") for k, v in rd.definitions]
        rows.append(("Shorthand", ", ".join(items)))
    return '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows) + \
        "</dl>"


def _sections(eq: Equations):
    """The steps grouped by section, numbered: ``[(section, [(number, step), ...])]``."""
    out: list = []
    for k, step in enumerate(eq.steps, start=1):
        if not out or out[-1][0] != step.section:
            out.append((step.section, []))
        out[-1][1].append((k, step))
    return out


def to_html(eq: Equations, steps: bool = False, shorthand: bool = True,
            digits: int | None = None, document: bool = True, description: str = "",
            figure: bool = True) -> str:
    """The equations (``steps=True``: the whole derivation) as HTML (see the module
    docstring). ``document``: a whole page (else the body's ``<div>``, for Jupyter);
    ``description``: a paragraph under the heading (the model's description);
    ``figure``: draw the arm; ``shorthand``, ``digits``: as for LaTeX."""
    rd = readable_for(eq, steps, shorthand, digits, latex=True)
    title = f"Equations of motion of {visible(eq.name)} by {method_name(eq)}"
    kinds = ", ".join(eq.joint_types)
    joints = len(eq.joint_types)
    if joints != eq.dof:  # ball or free joints: more velocity coordinates than joints
        kinds += f"; {eq.dof} velocity coordinates"
    body = ['<div class="robodyn">', f"<style>{CSS}</style>" if not document else "",
            f"<header><h1>{_t(title)}</h1>",
            f'<p class="sub">{joints} joint{"s" if joints != 1 else ""} ({_t(kinds)}) · '
            f"derived by robodyn {_t(VERSION)}</p>"]
    for para in re.split(r"\n\s*\n", str(description or "").strip()):
        if para:  # a description's paragraphs, its lines joined
            body.append(f'<p class="lead">{_t(" ".join(para.split()))}</p>')
    body.append("</header>")
    # a page's ids are its own; a fragment's are prefixed, so that several in one notebook
    # link each to its own steps (and a notebook has no second <main>)
    p = "" if document else "rd-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{eq.name} {eq.method}")[:60] \
        + "-"
    main_tag = "main" if document else "div"
    sections = _sections(eq) if steps else []
    toc = ['<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>',
           f'<li><a class="sec" href="#{p}model">The arm</a></li>']
    for n, (section, items) in enumerate(sections, start=1):
        toc.append(f'<li><a class="sec" href="#{p}section-{n}">{n}. {_t(section)}</a><ol>')
        toc += [f'<li><a href="#{p}step-{k}">({k}) {_t(step.title)}</a></li>'
                for k, step in items]
        toc.append("</ol></li>")
    toc.append(f'<li><a class="sec" href="#{p}result">Result</a><ol>')
    results = printed_results(eq, rd)
    toc += [f'<li><a href="#{p}result-{k}">{_t(t)}</a></li>'
            for k, (t, _) in enumerate(results, start=1)]
    toc.append("</ol></li></ol></nav>")
    main = [f'<{main_tag}><section id="{p}model" class="model">', "<div>", _facts(eq, rd),
            '<div class="eom">' + _math(
                r"M(q)\,\ddot q + C(q,\dot q)\,\dot q + \tau_f(\dot q) + g(q)"
                + (r" + J^T(q)\,h_e" if eq.h_e else "") + r" = \tau", True) + "</div>",
            "</div>", _figure(eq, p) if figure else "", "</section>"]
    for n, (section, items) in enumerate(sections, start=1):
        main.append(f'<details class="section" id="{p}section-{n}" open><summary><h2>{n}. '
                    f"{_t(section)}</h2><span class=\"count\">{len(items)} step"
                    f"{'s' if len(items) != 1 else ''}</span></summary>")
        for k, step in items:
            lhs = step.latex_lhs or rf"\text{{{tex_escape(step.lhs)}}}"
            main.append(f'<section class="step" id="{p}step-{k}"><h3><span class="no">({k})'
                        f"</span>{_t(step.title)}</h3>"
                        + _equation(eq, lhs, rd(step.expression), step.latex_formula)
                        + "</section>")
        main.append("</details>")
    main.append(f'<details class="section" id="{p}result" open><summary><h2>Result</h2>'
                "</summary>")
    for k, (t, rows) in enumerate(results, start=1):
        main.append(f'<section class="step" id="{p}result-{k}"><h3>{_t(t)}</h3>'
                    + "".join(_equation(eq, lhs, value) for lhs, value in rows)
                    + "</section>")
    main.append("</details>")
    main.append(f"<footer>{_t(title)}. Written by robodyn {_t(VERSION)}: math in MathML, "
                f"the figure in SVG, no script.</footer></{main_tag}>")
    body += ['<div class="layout">', *toc, *main, "</div>", "</div>"]
    html = "\n".join(x for x in body if x)
    if not document:
        return html
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_t(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f"{html}\n</body>\n</html>\n")


__all__ = ["to_html", "CSS"]
