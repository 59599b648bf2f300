"""Expressions whose expansion explodes fail fast, naming the field (issue 15, section 4).

``robodyn check planar-2r --M "[[(sin(q1)+cos(q2)+m1+m2+l1+l2+c1+c2)**64, 0],[0,1]]"`` ran
for minutes (exponent 16: over 120 s and 740 MB), and a model with
``a: (a1+...+a8)**64`` made ``derive`` run past 60 s. The expanded size is now bounded
before anything expands (:mod:`robodyn.model.expansion`), and the ring of the closed forms
has a term budget of its own. Each reproduction runs in a subprocess under a time and
memory bound.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import run_bounded
from robodyn.core.errors import ExpansionError, InputError, ModelError
from robodyn.model.expansion import MAX_EXPANDED_TERMS, expanded_terms
from robodyn.model.expressions import parse_expression
from robodyn.symbolic.ring.trig_ring import TrigRing
from robodyn.teaching.compare import MAX_PRINTED_TERMS

SUM8 = "a1+a2+a3+a4+a5+a6+a7+a8"
ANSWER8 = "sin(q1)+cos(q2)+m1+m2+l1+l2+c1+c2"


def model(tmp_path, a: str = "l", mass: str = "m", com: str = "[l, 0, 0]",
          values: str = "{m: 1.0, l: 0.5, g: 9.81}", name: str = "arm.yaml"):
    """A one-link pendulum (seed 002's frame: q = 0 hangs down) with the given fields."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(f"""\
        name: bounded
        dh: standard
        gravity: [0, -g, 0]
        planar: true
        links:
          - joint: revolute
            a: {a}
            theta: -pi/2
            mass: {mass}
            com: {com}
            inertia: [0, 0, 0.01, 0, 0, 0]
        values: {values}
        """))
    return path


# -- the estimate --------------------------------------------------------------------------
@pytest.mark.parametrize("k, n", [(2, 5), (3, 4), (4, 3), (5, 2), (8, 2)])
def test_a_power_of_a_sum_is_the_multinomial_count(k, n):
    xs = sp.symbols(f"x1:{k + 1}")
    e = sp.Add(*xs) ** n
    count = len(sp.Add.make_args(sp.expand(e)))
    assert count == math.comb(n + k - 1, k - 1)
    assert expanded_terms(e) == count
    # products multiply: (x1 + x2)(y1 + y2 + y3) has 6 terms
    ys = sp.symbols("y1:4")
    assert expanded_terms(sp.Add(*xs) * sp.Add(*ys)) == 3 * k


@pytest.mark.parametrize("text", [
    "cos(q1)**8", "(cos(q1) + a)**6", "sin(q1 + q2)**3", "sin(3*q1)*cos(2*q2)",
    "(sin(q1) + cos(q2) + m1)**5", "(cos(q1)*cos(q2) + sin(q1))**4", "cos(q1 - 2*q2 + 1)**2",
    "sqrt(2)*(a + sqrt(3))**3",
])
def test_the_estimate_bounds_the_closed_forms_ring(text):
    """The bound holds for the polynomial the ring of the closed forms actually builds
    (cos^2 rewritten as 1 - sin^2 adds terms: cos(q1)**8 has 5)."""
    e = sp.sympify(text)
    ring = TrigRing(["revolute", "revolute"], [e])
    assert len(ring.poly(e)) <= expanded_terms(e)


def test_the_estimate_is_linear_and_saturates():
    # a tower of 60 nested powers, each of a two-term sum: 2**60 terms, counted at once
    e = sp.Symbol("x")
    for i in range(60):
        e = (e + sp.Symbol(f"y{i}")) ** 2
    assert expanded_terms(e, cap=10**6) == 10**6 + 1
    assert expanded_terms(sp.Integer(7)) == 1 and expanded_terms(3.5) == 1


def test_model_fields_are_checked_in_python_too():
    with pytest.raises(ModelError, match=r"links\[0\]\.a: .* expands to about 1\.3e\+09"):
        parse_expression(f"({SUM8})**64", "links[0].a")
    a1, a2 = sp.symbols("a1 a2")
    with pytest.raises(ModelError, match="more than the 10,000"):
        parse_expression(sp.Pow(sum(sp.symbols("b1:9")), 16), "links[1].mass")
    assert parse_expression("(a1+a2)**64", "links[0].a") == (a1 + a2) ** 64  # 65 terms


# -- the reproductions, each in a bounded subprocess ------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("exponent, size", [(64, "about 1.3e+09"), (16, "245,157")])
def test_derive_of_a_model_whose_field_explodes_is_a_fast_error(tmp_path, exponent, size):
    path = model(tmp_path, a=f"({SUM8})**{exponent}")
    done = run_bounded(["-m", "robodyn.cli", "derive", str(path)], timeout=60, memory_mb=1024)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("robodyn: error: ")
    assert f"links[0].a: '({SUM8})**{exponent}' expands to {size} terms" in lines[0]
    assert "one parameter for a sum under a power" in lines[0]


@pytest.mark.slow
def test_robot_equations_of_such_a_model_cannot_start(tmp_path):
    path = model(tmp_path, mass=f"({SUM8})**64")
    code = f"import robodyn as rd; rd.load({str(path)!r}).equations()"
    done = run_bounded(["-c", code], timeout=60, memory_mb=1024)
    assert done.returncode == 1
    assert "ExpansionError: " in done.stderr and "links[0].mass: " in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("answer, symbols, size", [
    (f"[[({ANSWER8})**64, 0],[0,1]]", None, "about 9.7e+10"),
    (f"[[({ANSWER8})**16, 0],[0,1]]", None, "about 2e+06"),
    ("[[x**64, 0],[0,1]]", f"x=({ANSWER8})", "about 9.7e+10"),   # exploding after mapping
    ("[[sin(1000000*q1), 0],[0,1]]", None, "about 4e+06"),       # de Moivre's expansion
])
def test_check_of_an_exploding_answer_is_a_fast_error(answer, symbols, size):
    argv = ["-m", "robodyn.cli", "check", "planar-2r", "--M", answer]
    argv += ["--symbols", symbols] if symbols else []
    done = run_bounded(argv, timeout=60, memory_mb=1024)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("robodyn: error: M11: ")
    assert f"expands to {size} terms, more than the {MAX_EXPANDED_TERMS:,}" in lines[0]
    assert "the derived M11 has at most 7" in lines[0]


@pytest.mark.slow
def test_a_derivation_beyond_the_ring_budget_stops_naming_the_largest_expression(tmp_path):
    """Each field is accepted (991 terms), but the kinetic energy squares velocities of
    1,981 terms: the product is refused before it is formed."""
    path = model(tmp_path, com="[(c1+c2+c3)**43, (c4+c5+c6)**43, 0]")
    code = textwrap.dedent(f"""\
        import robodyn as rd
        try:
            rd.load({str(path)!r}).equations()
        except rd.ModelError as exc:
            print(type(exc).__name__, exc)
        """)
    done = run_bounded(["-c", code], timeout=90, memory_mb=1536)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ExpansionError bounded: the closed forms take more than")
    assert "(the largest expression: links[0].inertial.com[" in done.stdout
    assert "991 terms" in done.stdout and "values=" in done.stdout


def test_the_ring_refuses_a_product_beyond_its_budget_before_forming_it():
    x, y = sp.symbols("x y")
    ring = TrigRing(["revolute"], [x, y])
    p = ring.poly((x + y + 1) ** 3)                      # 10 terms
    ring.max_work = 150
    assert len(ring.product(p, p)) == 28                 # 100 products: (x + y + 1)**6
    with pytest.raises(ExpansionError, match="a product of 10 by 10 terms"):
        ring.product(p, p)                               # 200 > 150
    ring.max_terms = 20
    with pytest.raises(ExpansionError, match="a polynomial of 28"):
        ring.reduce(p * p)


# -- legitimate expressions still work, with the right values ------------------------------
def test_a_power_gives_the_numbers_of_its_expansion(tmp_path, numpy_backend):
    values = "{m: 1.0, l1: 0.3, l2: 0.2, g: 9.81}"
    power = rd.load(model(tmp_path, a="(l1+l2)**2", com="[(l1+l2)**2, 0, 0]", values=values,
                          name="power.yaml"))
    sums = rd.load(model(tmp_path, a="l1**2+2*l1*l2+l2**2", com="[l1**2+2*l1*l2+l2**2, 0, 0]",
                         values=values, name="sum.yaml"))
    q = np.array([[0.3], [1.1], [-2.0]])
    a = 0.5**2
    # seed 002: the centre of mass at distance a (+ a along x1 from the DH a): m g 2a sin q
    np.testing.assert_allclose(power.gravity_torques(q)[:, 0], 9.81 * 2 * a * np.sin(q[:, 0]),
                               rtol=1e-12)
    np.testing.assert_allclose(power.mass_matrix(q), sums.mass_matrix(q), rtol=1e-12)
    eq_power, eq_sums = power.equations(), sums.equations()
    assert sp.expand(eq_power.M - eq_sums.M) == sp.zeros(1, 1)
    assert sp.expand(eq_power.g - eq_sums.g) == sp.zeros(1, 1)


def test_an_expression_near_the_budget_loads_and_computes_its_value(tmp_path, numpy_backend):
    mass = "((m1+m2+m3+m4)/4)**34"                       # 7,770 terms expanded
    assert 0.7 * MAX_EXPANDED_TERMS < expanded_terms(sp.sympify(mass)) <= MAX_EXPANDED_TERMS
    robot = rd.load(model(tmp_path, mass=mass,
                          values="{m1: 1.01, m2: 1.02, m3: 1.03, m4: 1.04, l: 0.5, g: 9.81}"))
    m = ((1.01 + 1.02 + 1.03 + 1.04) / 4) ** 34
    q = np.array([[0.7]])
    np.testing.assert_allclose(robot.gravity_torques(q), [[m * 9.81 * 2 * 0.5 * math.sin(0.7)]],
                               rtol=1e-12)
    g = robot.equations(values=True).g
    assert float(g[0].subs("q1", 0.7)) == pytest.approx(m * 9.81 * math.sin(0.7), rel=1e-12)


def test_a_long_wrong_answer_is_counted_not_printed():
    eq = rd.load("planar-2r").equations()
    result = eq.compare(M=f"[[({ANSWER8})**5, 0], [0, 1]]")
    m11 = next(m for m in result.mistakes if m.index == (0, 0))
    assert m11.message == f"M11: wrong: the entry differs in more than {MAX_PRINTED_TERMS} terms"
    shown = eq.compare(M=f"[[({ANSWER8})**5, 0], [0, 1]]", reveal=True)
    m11 = next(m for m in shown.mistakes if m.index == (0, 0))
    assert m11.difference is None and m11.expected == eq.M[0, 0]
    assert f"(more than {MAX_PRINTED_TERMS} terms, not printed)" in m11.message
    assert len(m11.message) < 600
    with pytest.raises(InputError, match="M11: "):
        eq.compare(M=f"[[({ANSWER8})**9, 0], [0, 1]]")


def test_equal_does_not_fall_back_to_simplify_when_the_ring_budget_runs_out(monkeypatch):
    from robodyn.symbolic import simplify
    from robodyn.symbolic.ring import trig_ring

    monkeypatch.setattr(trig_ring, "MAX_WORK", 100)
    with pytest.raises(ExpansionError, match="more than 100 products of terms"):
        simplify.equal(sum(sp.symbols("a1:6")) ** 6, 0)
    q1 = sp.Symbol("q1")
    assert simplify.equal(sp.sin(q1) ** 2 + sp.cos(q1) ** 2, 1)   # small ones still decide
