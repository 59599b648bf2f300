"""Readable closed forms (issue 12): shorthand ``s_1, c_12``, named terms ``h``, one
trigonometric form, ``--digits``, LaTeX lines that fit the page."""

from __future__ import annotations

import json
import re
import warnings

import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.symbolic import equal, equations


def _read_back(data: dict, key: str) -> sp.Matrix:
    """A quantity of ``--format json --shorthand`` with its declarations substituted."""
    table = {sp.Symbol(k): sp.parse_expr(v) for k, v in data.get("shorthand", {}).items()}
    rows = [[sp.parse_expr(x) for x in row] if isinstance(row, list) else [sp.parse_expr(row)]
            for row in data[key]]
    out = sp.Matrix(rows)
    for _ in range(2):  # h is declared with the shorthand in it
        out = out.xreplace(table)
    return out


def test_shorthand_declared_once_and_reads_back_to_the_same_equations():
    eq = equations(rd.load("planar-2r-point-mass"))
    data = json.loads(eq.json(shorthand=True))
    assert data["shorthand"]["s_2"] == "sin(q2)" and data["shorthand"]["c_12"] == "cos(q1 + q2)"
    for key, value in (("M", eq.M), ("C", eq.C), ("g", eq.g), ("tau", eq.tau)):
        assert equal(_read_back(data, key), value), key
    text = eq.text(shorthand=True)
    assert text.count("where ") == 1 and "c_12 = cos(q1 + q2)" in text
    assert "sin(" not in text.split("where", 1)[1].split("\n", 2)[2]  # only in the declaration
    # JSON and text default to the full forms that read back
    assert "shorthand" not in json.loads(eq.json()) and "c_12" not in eq.text()
    tex = eq.latex()
    assert r"c_{12} = \cos{\left(q_{1} + q_{2} \right)}" in tex and r"\sin{" not in \
        tex.split("Result", 1)[1]
    pretty = eq.pretty(width=100)
    assert "c₁₂ = cos(q₁ + q₂)" in pretty and "c₁₂" in pretty.split("= tau")[1]


def test_shorthand_never_clashes_with_a_parameter():
    """planar-2r's COM distances are c1, c2: the shorthand becomes cos_2, sin_2."""
    eq = equations(rd.load("planar-2r"))
    text = eq.text(shorthand=True)
    assert "cos_2 = cos(q2)" in text and "c_2 =" not in text
    assert r"\cos_{12} = \cos{\left(q_{1} + q_{2} \right)}" in eq.latex()
    assert equal(_read_back(json.loads(eq.json(shorthand=True)), "M"), eq.M)


def test_named_term_h_of_seed_003():
    """Seed 003: h = m2 l1 c2 sin q2 and C = [[-h qd2, -h (qd1 + qd2)], [h qd1, 0]]: the
    model declares the seed's h (terms:), printed with its sign; the automatic h (for a
    model that declares none) carries the sign of C11: h = -m2 l1 c2 sin q2."""
    eq = equations(rd.load("planar-2r"))
    c2, l1, m2, q2 = sp.symbols("c2 l1 m2 q2")
    h = eq.named_terms()["h"]
    assert sp.expand(h + m2 * l1 * c2 * sp.sin(q2)) == 0
    text = eq.text(shorthand=True)
    assert "and h = c2*l1*m2*sin_2" in text
    for line in ("C11 = -h*qd2", "C12 = -h*(qd1 + qd2)", "C21 = h*qd1", "C22 = 0"):
        assert f"  {line}\n" in text
    assert equal(_read_back(json.loads(eq.json(shorthand=True)), "C"), eq.C)
    # no common factor of three or more: none named (rp-arm's C shares only m2 q2)
    assert equations(rd.load("rp-arm")).named_terms() == {}


def test_user_named_terms():
    plain = equations(rd.load("rp-arm"))
    eq = plain.name_terms({"p": "m2*q2"})
    text = eq.text()
    # new equations: the ones named from are unchanged, and print without p
    assert eq is not plain and dict(plain.user_terms) == {}
    assert "where p" not in plain.text() and "  C12 = m2*q2*qd1\n" in plain.text()
    q2, m2 = sp.symbols("q2 m2")
    assert dict(eq.user_terms) == {"p": m2 * q2} and eq.M == plain.M
    both = eq.name_terms({"r": "m2*q2**2"})
    assert set(both.user_terms) == {"p", "r"} and set(eq.user_terms) == {"p"}
    assert "where p = m2*q2" in text and "  C12 = p*qd1\n" in text and "  C21 = -p*qd1\n" in text
    assert "  M22 = m2\n" in text            # p does not divide it: unchanged
    data = json.loads(eq.json())
    assert equal(_read_back(data, "C"), eq.C) and data["shorthand"] == {"p": "m2*q2"}
    with pytest.raises(rd.InputError, match="not a free name"):
        eq.name_terms({"m2": "m2*q2"})
    with pytest.raises(rd.InputError, match="is a number"):
        eq.name_terms({"k": "2"})


def test_one_trigonometric_form_per_derivation():
    """planar-3r prints sums of angles throughout (no product of two sines/cosines, no
    square); the PUMA, shorter as products, never a sum of angles."""
    def kinds(eq):
        out = set()
        for x in list(eq.M) + list(eq.C) + list(eq.g):
            for f in x.atoms(sp.sin, sp.cos):
                out.add("sum" if len(f.args[0].free_symbols) > 1 or f.args[0].is_Mul
                        else "single")
            for m in x.atoms(sp.Mul, sp.Pow):
                factors = m.args if m.is_Mul else [m]
                if sum(1 for a in factors if isinstance(a, sp.Pow) and a.base.func in
                       (sp.sin, sp.cos) or a.func in (sp.sin, sp.cos)) > 1 or \
                        (m.is_Pow and m.base.func in (sp.sin, sp.cos)):
                    out.add("product")
        return out

    three = equations(rd.load("planar-3r"))
    assert three.trig_form == "sum-angle" and kinds(three) == {"single", "sum"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        puma = equations(rd.load("puma560"), method="newton-euler")
    assert puma.trig_form == "product" and "sum" not in kinds(puma)


def test_digits_rounds_printed_numbers(capsys):
    from robodyn.model.yaml_file import parse_model
    from robodyn.robot import from_source

    model = parse_model({"links": [{"joint": "revolute", "a": 0.3, "mass": 2.5,
                                    "com": [-0.1, 0, 0]}], "gravity": [0, -9.81, 0]})
    eq = equations(from_source(model))
    assert "tau1 = 0.1*qdd1 + 4.905*cos(q1)" in eq.text()
    assert "tau1 = 0.1*qdd1 + 4.9*cos(q1)" in eq.text(digits=2)
    assert "4.9" in eq.latex(digits=2) and "4.905" not in eq.latex(digits=2)
    assert json.loads(eq.json(digits=1))["tau"] == ["0.1*qdd1 + 5.0*cos(q1)"]
    with pytest.raises(SystemExit):
        main(["derive", "pendulum", "--digits", "0"])
    assert "1 to 17" in capsys.readouterr().err


def test_cli_shorthand_options(capsys):
    assert main(["derive", "planar-2r-point-mass", "--shorthand", "--format", "text"]) == 0
    assert "where c_1 = cos(q1)" in capsys.readouterr().out
    assert main(["derive", "planar-2r-point-mass", "--no-shorthand", "--format", "latex"]) == 0
    assert "where" not in capsys.readouterr().out
    assert main(["derive", "planar-2r-point-mass", "--format", "markdown"]) == 0
    assert "where $c_{1} = " in capsys.readouterr().out


# -- LaTeX lines that fit the page ------------------------------------------------------
def _display_lines(tex: str):
    """Every displayed line of the ``align*`` blocks; a matrix's rows one by one (each
    with the left-hand side before it)."""
    for env in re.findall(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", tex, re.S):
        for line in re.split(r"\\\\\n", env.strip()):
            m = re.search(r"\\begin\{matrix\}(.*?)\\end\{matrix\}", line, re.S)
            if not m:
                yield line
                continue
            for row in m.group(1).split("\\\\"):
                yield line[:m.start()] + row


def _terms(line: str) -> int:
    """Terms on a line: the signs outside any parentheses or braces, plus one."""
    line = re.sub(r"\\(left|right|bigl|bigr)", "", line)
    depth, n = 0, 1
    for ch in line:
        depth += ch in "({["
        depth -= ch in ")}]"
        n += ch in "+-" and depth == 0
    return n


def _width(line: str) -> int:
    """Characters as typeset, roughly: accents, delimiters' sizes and spacing dropped,
    any other command one glyph."""
    t = re.sub(r"\\(left|right|bigl|bigr|dot|ddot|frac|quad|mathbf|operatorname)"
               r"(?![a-zA-Z])|\\,", "", line)
    t = re.sub(r"\\[a-zA-Z]+", "x", t)
    return len([c for c in t if c not in "{}_^& "])


@pytest.mark.slow
@pytest.mark.parametrize("model, method, steps", [("planar-3r", "lagrange", True),
                                                  ("rp-arm", "newton-euler", True),
                                                  ("puma560", "newton-euler", False)])
def test_latex_lines_fit_the_page(model, method, steps):
    """No displayed line over 12 terms or about 90 characters (a 10pt A4 page with 1.5 cm
    margins holds about 95): long sums and long factors (qdd1 (I1 + ...)) are broken
    between terms, big matrices are written entry by entry."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eq = equations(rd.load(model), method=method)
    tex = eq.latex(steps=steps)
    lines = list(_display_lines(tex))
    assert len(lines) > 20
    widest = max(lines, key=_width)
    assert _width(widest) <= 90, widest[:300]
    most = max(lines, key=_terms)
    assert _terms(most) <= 12, most[:300]
    for env in re.findall(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", tex, re.S):
        assert env.count(r"\bigl(") == env.count(r"\bigr)")
