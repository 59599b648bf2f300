"""Issue 17 §2 and §5: the textbook's names, named terms, the zero of U, friction's step,
--brief, wrapping, the order of terms, LaTeX as books write it."""

from __future__ import annotations

import re

import pytest
import sympy as sp

import robodyn as rd
from conftest import SYMBOLIC_MODELS
from robodyn.cli import main
from robodyn.model.yaml_file import parse_model
from robodyn.robot import from_source
from robodyn.symbolic import equations

ONE_LINK = {"links": [{"joint": "revolute", "a": "l", "mass": "m", "com": [0, 0, 0]}],
            "gravity": [0, "-g", 0]}
TWO_LINKS = {"links": [{"joint": "revolute", "a": "l1", "mass": "m1"},
                       {"joint": "revolute", "a": "l2", "mass": "m2"}],
             "gravity": [0, "-g", 0]}


def derive(capsys, *argv) -> str:
    assert main(["derive", *argv]) == 0
    return capsys.readouterr().out


# -- named terms ---------------------------------------------------------------------
@pytest.mark.parametrize("model, sign", [("planar-2r", -1), ("planar-2r-dh", 1)])
def test_builtins_name_h_as_their_seed(capsys, model, sign):
    """Seed 003: h = m2 l1 c2 sin q2 and C11 = -h qd2, C12 = -h (qd1 + qd2); seed 004:
    h = -m_l2 a1 l2 sin q2 and C11 = h qd2: the model declares h, the printing keeps its
    sign, and C is h times those rates (checked against the declared h here)."""
    eq = rd.load(model).equations()
    (h_name, h), = eq.model_terms.items()
    qd1, qd2 = eq.qd
    assert h_name == "h"
    assert sp.expand(eq.C[0, 0] - sign * h * qd2) == 0
    assert sp.expand(eq.C[0, 1] - sign * h * (qd1 + qd2)) == 0
    assert sp.expand(eq.C[1, 0] + sign * h * qd1) == 0
    out = derive(capsys, model, "--format", "text", "--shorthand")
    minus = "-" if sign < 0 else ""
    assert f"C11 = {minus}h*qd2" in out and f"C12 = {minus}h*(qd1 + qd2)" in out
    assert out.count("h = ") == 1  # no second, automatic h' of the other sign


def test_newton_euler_steps_keep_their_terms_unless_asked():
    """The recursion's vectors are written out (as lecture 15 writes them); C uses h."""
    eq = rd.load("planar-2r").equations(method="newton-euler")
    text = eq.text(steps=True, shorthand=True)
    recursion = text.split("Outward iteration")[-1].split("Collecting")[0] \
        if "Outward iteration" in text else text.split("Forward recursion")[1].split(
            "Collecting")[0]
    assert " h*" not in recursion and "*h*" not in recursion
    assert "C11 = -h*qd2" in text
    asked = eq.name_terms({}, steps=True).text(steps=True, shorthand=True)
    assert asked.split("Forward recursion")[1].split("Collecting")[0].count("h*") > 0


BAD_TERMS = [
    ("terms: [h]", "expected a mapping"),
    ({"h": "m1*l1", "m1": "l1"}, "already a parameter"),
    ({"h": "m1*zz"}, "zz is not a parameter"),
    ({"h": "2*pi"}, "is a number"),
    ({"h": "m1*(l1"}, "cannot parse"),
    ({"h": "__import__('os')"}, "not an allowed function"),
    ({"q1": "m1"}, "already a parameter or a joint variable"),
    ({"1h": "m1"}, "is not a term name"),
]


@pytest.mark.parametrize("terms, message", BAD_TERMS)
def test_bad_terms_are_clear_errors(terms, message):
    data = dict(TWO_LINKS, terms=["h"] if isinstance(terms, str) else terms)
    with pytest.raises(rd.ModelError, match="terms") as err:
        parse_model(data)
    assert message in str(err.value)


def test_terms_may_use_joint_variables():
    model = parse_model(dict(TWO_LINKS, terms={"h": "m2*l1*l2*sin(q2)"}))
    (name, expr), = model.provenance.terms
    assert name == "h" and expr == sp.Symbol("m2") * sp.Symbol("l1") * sp.Symbol("l2") \
        * sp.sin(sp.Symbol("q2"))


# -- the zero of U, friction ------------------------------------------------------------
def test_potential_zero_shifts_U_only():
    """The pendulum sets U = 0 hanging down (q = 0): U = m g l (1 - cos q) as seed 002
    writes it, against -m g l cos q without the zero; tau is the same."""
    with_zero = rd.load("pendulum").equations()
    m, g, l = sp.symbols("m g l")
    q = with_zero.q[0]
    assert sp.simplify(with_zero.potential_energy - m * g * l * (1 - sp.cos(q))) == 0
    plain = equations(from_source(parse_model({
        "links": [{"joint": "revolute", "theta": "-pi/2", "mass": "m", "com": ["l", 0, 0],
                   "inertia": [0, 0, "Izz", 0, 0, 0], "friction": {"viscous": "F"}}],
        "gravity": [0, "-g", 0], "planar": True})))
    assert sp.simplify(plain.potential_energy + m * g * l * sp.cos(q)) == 0
    assert sp.simplify(with_zero.tau - plain.tau) == sp.zeros(1, 1)
    steps = [s for s in with_zero.steps if s.lhs == "U"]
    assert len(steps) == 2 and "zero at q = [0]" in steps[1].title
    assert "does not change tau" in steps[0].title


@pytest.mark.parametrize("value, message", [
    ([0], "expected a list of 2"), ("0, 0", "expected a list of 2"),
    ([0, "dmax"], "dmax is not a parameter"), ([0, "q1"], "reserved"),
])
def test_bad_potential_zero_is_a_clear_error(value, message):
    with pytest.raises(rd.ModelError, match="potential_zero") as err:
        parse_model(dict(TWO_LINKS, potential_zero=value))
    assert message in str(err.value)


def test_friction_step_of_seed_002():
    """Lagrange's equation gives xi = tau - F qd (seed 002's pendulum), then tau."""
    eq = rd.load("pendulum").equations()
    steps = {s.lhs: s for s in eq.steps}
    F, qd = sp.Symbol("F"), eq.qd[0]
    assert sp.expand(steps["tau1"].expression - steps["xi1"].expression - F * qd) == 0
    assert steps["tau1"].formula == "xi1 + friction_1"


# -- what is shown, and how ----------------------------------------------------------
def test_brief_leaves_out_given_and_zero_christoffel_symbols(capsys):
    eq = rd.load("rp-arm").equations()
    brief = eq.brief()
    assert not any(s.section == "Given" for s in brief.steps)
    shown = {s.lhs for s in brief.steps if s.title.startswith("Christoffel")}
    assert shown == {"c_112", "c_121", "c_211"}  # m2 d2, m2 d2, -m2 d2; the rest zero
    out = derive(capsys, "rp-arm", "--steps", "--brief", "--format", "text")
    assert "Given" not in out and "c_111" not in out and "c_112" in out


@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
@pytest.mark.parametrize("model", [pytest.param(m, marks=pytest.mark.slow)  # 2-7 s each
                                   if m in ("puma560", "four-bar", "five-bar") else m
                                   for m in SYMBOLIC_MODELS])
def test_steps_text_lines_fit_in_100_columns(capsys, model, method):
    out = derive(capsys, model, "--steps", "--method", method, "--format", "text")
    long = [line for line in out.splitlines() if len(line) > 100]
    assert not long, long[:2]


@pytest.mark.parametrize("model", ["rp-arm", "planar-3r"])
def test_pretty_steps_fit_the_terminal(model):
    for method in ("lagrange", "newton-euler"):
        out = rd.load(model).equations(method=method).pretty(steps=True, width=100)
        assert max(len(line) for line in out.splitlines()) <= 100


def test_the_models_names_in_the_terminal(capsys):
    """rp-arm's display: {q1: theta_1, q2: d_2}: θ₁, θ̇₁, ḋ₂ in the steps and their
    titles; --plain-names gives robodyn's q₁, q̇₁."""
    eq = rd.load("rp-arm").equations()
    out = eq.pretty(steps=True)
    d2dot = sp.pretty(sp.Symbol("ddot_2"))  # d with a combining dot, subscript 2
    assert "θ₁" in out and "θ̇₁" in out and d2dot in out
    assert f"with respect to {d2dot}" in out and "with respect to θ̇₁" in out
    steps = out.split("Result")[0].split("step by step")[1]
    assert not re.search(r"\bd?q(d|dd)?\d", steps)  # no qd1, dL/dqd1 left
    plain = eq.plain_names().pretty(steps=True)
    assert "θ" not in plain and "q̇₁" in plain
    assert "θ" not in derive(capsys, "rp-arm", "--steps", "--format", "pretty",
                             "--plain-names")


def test_no_left_side_prints_like_another_symbol():
    """planar-2r-endpoint holds m2 on link 1 and the parameter g: no 'm_1 = m2', no
    'g = [g*...]'; the steps name link 1's mass m2 (issue 33: no m[1] = m2 either) and
    say g(q)."""
    text = rd.load("planar-2r-endpoint").equations().text(steps=True)
    assert "m_1 = m2" not in text and "m[1] = m2" not in text
    assert "Link 1 (mass m2): centre of mass" in text and "1/2 m2 v_c1^T v_c1" in text
    assert "\n      g = " not in text and "g(q) = dU/dq" in text
    planar = rd.load("planar-2r").equations().text(steps=True)  # parameter c1: COM c[1]
    assert "c_1 = " not in planar and "c[1] = [c1 - l1, 0, 0]^T" in planar


def test_prismatic_joint_is_a_force():
    eq = rd.load("rp-arm").equations()
    steps = {s.lhs: s for s in eq.steps}
    assert "force" in steps["f2"].title and "tau2" not in steps
    text = eq.text()
    assert "tau2: a force, joint 2 is prismatic" in text
    ne = {s.lhs: s for s in rd.load("rp-arm").equations(method="newton-euler").steps}
    assert "force" in ne["tau2"].title and "torque" in ne["tau1"].title


def test_terms_ordered_by_physical_origin(capsys):
    """tau = inertial + Coriolis/centrifugal + gravity (+ friction), as lecture 15
    collects them, not alphabetically (g*... used to come first)."""
    out = derive(capsys, "rp-arm", "--format", "text")
    tau1 = next(line for line in out.splitlines() if line.startswith("  tau1 = "))
    assert tau1.index("qdd1") < tau1.index("qd1*qd2") < tau1.index("g*")
    latex = derive(capsys, "pendulum", "--format", "latex")
    line = next(x for x in latex.splitlines() if x.startswith(r"\tau_{1} &="))
    assert line.index(r"\ddot") < line.index(r"\dot{q}") < line.index(" + g")


def test_latex_as_books_write_it(capsys):
    latex = derive(capsys, "rp-arm", "--steps", "--format", "latex")
    assert "I_{zz,1}" in latex and r"\dot{\theta}_{1}" in latex and "Izz" not in latex
    headings = [x for x in latex.splitlines() if x.startswith(("\\paragraph", "\\subsub"))]
    assert not any("qd1" in h or r"\^{}" in h or "qdd" in h for h in headings), headings
    assert any(r"$N + N^T$" in h for h in headings)
    markdown = derive(capsys, "planar-2r-dh", "--steps", "--format", "markdown")
    assert r"$$\begin{aligned}" in markdown and "m_{l_{2}}" in markdown
