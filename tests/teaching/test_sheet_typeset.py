"""The exercise sheet typeset (issue 33, item 6): every formula of task.tex is LaTeX
math (no escaped ASCII such as ``J\\_P\\^{}``), every question has its formulas in math,
the sheet names the text to type beside each symbol's typeset form, and the solution's
regressor line is ``Y = dtau/dpi`` (not ``Y = tau = ...``).

Independent sources: the structure of LaTeX itself (a ``_`` or ``^`` outside math is
an escaped formula), the model's own display names (``tex_of``) for the typeset forms,
and the property ``Y pi = tau`` for the regressor the solution prints.
"""

from __future__ import annotations

import re

import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.symbolic.printing.common import tex_escape
from robodyn.symbolic.printing.latex import tex_of
from robodyn.teaching.sheet_words import typeset_words

CASES = {
    "planar": ["--dof", "2", "--planar", "--point-masses", "--seed", "3", "--route",
               "jacobian", "--questions", "M,C,g,tau,regressor"],
    "rp-ne": ["--dof", "2", "--joints", "RP", "--seed", "12", "--route", "newton-euler"],
    "lagrange": ["--dof", "3", "--seed", "5", "--route", "lagrange"],
}


def _outside_math(tex: str) -> str:
    """``tex`` with its math ($...$, align*), verbatim and \\texttt{...} removed."""
    body = tex.split("\\begin{document}", 1)[1]
    body = re.sub(r"\\begin\{verbatim\}.*?\\end\{verbatim\}", "", body, flags=re.S)
    body = re.sub(r"\\begin\{align\*\}.*?\\end\{align\*\}", "", body, flags=re.S)
    body = re.sub(r"\\texttt\{[^{}]*\}", "", body)
    return re.sub(r"\$[^$]*\$", "", body)


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    base = tmp_path_factory.mktemp("typeset")
    for name, argv in CASES.items():
        assert main(["exercise", *argv, "--no-figure", "--out", str(base / name)]) == 0
    return base


def test_typeset_words_makes_math_of_subscripts_and_symbols():
    words = typeset_words("C_1 = O_0 + lc1 x_1; along -z_0, from z_{i-1}", {"lc1": r"\ell_{c_1}"},
                          tex_escape)
    assert words == r"$C_{1} = O_{0} + \ell_{c_1}\, x_{1}$; along $-z_{0}$, from $z_{i-1}$"
    assert typeset_words("theta_2 and alpha_i", {}, tex_escape) == r"$\theta_{2}$ and $\alpha_{i}$"
    assert typeset_words("a 50% cut & more", {}, tex_escape) == r"a 50\% cut \& more"


@pytest.mark.parametrize("name", list(CASES))
def test_every_formula_of_the_task_is_math(sheets, name):
    tex = (sheets / name / "task" / "task.tex").read_text()
    prose = _outside_math(tex)
    for bad in ("\\_", "\\^{}", "_", "^", "qd", "qdd", "sum_", "J_P"):
        assert bad not in prose, (bad, prose[max(0, prose.find(bad) - 80):prose.find(bad) + 40])
    assert prose.count("$") == 0                         # math balanced
    questions = tex.split("\\begin{enumerate}", 1)[1].split("\\end{enumerate}", 1)[0]
    items = [x for x in questions.split("\\item")[1:]]
    assert len(items) >= 2 and all("$" in item for item in items)


@pytest.mark.parametrize("name", list(CASES))
def test_the_sheet_says_which_name_to_type_beside_its_typeset_form(sheets, name):
    folder = sheets / name
    robot = rd.load(folder / "task" / "arm.yaml")
    eq = robot.equations()
    tex = (folder / "task" / "task.tex").read_text()
    md = (folder / "task" / "task.md").read_text()
    names = {str(s) for s in eq.params} | {f"q{i}" for i in range(1, eq.dof + 1)}
    for n in names:
        symbol = eq.q[int(n[1:]) - 1] if re.fullmatch(r"q\d", n) else sp.Symbol(n)
        form = tex_of(eq, symbol)
        assert f"\\item ${form}$ (\\texttt{{{n}}}):" in tex, n
        assert f"- ${form}$ (`{n}`):" in md, n
    # the headings read as sentences, the point masses typeset
    assert " at, in DH frame" not in tex
    if "--point-masses" in CASES[name]:
        assert f"point mass ${tex_of(eq, sp.Symbol('mE'))}$ in DH frame" in tex


def test_the_regressor_line_is_y_as_the_jacobian_of_tau(sheets):
    folder = sheets / "planar"
    sol = (folder / "solution" / "solution.tex").read_text()
    assert not re.search(r"^Y &= \\tau", sol, flags=re.M)
    assert r"Y &= \frac{\partial \tau}{\partial \pi}" in sol
    # the property the line states: tau is Y pi, and Y does not depend on pi
    eq = rd.load(folder / "task" / "arm.yaml").equations(route="jacobian")
    pi = [sp.Symbol(n) for n in ("m1", "Izz1", "m2", "Izz2", "mM2", "mE")]
    reg = eq.regressor(parameters=[str(p) for p in pi])
    assert sp.expand(reg.Y * reg.pi - eq.tau) == sp.zeros(eq.dof, 1)
    assert not (reg.Y.free_symbols & set(pi))
