"""The algebra under the symbolic routes: the ring of sines and cosines, the printer's
rewriting, equality of expressions, and small API behaviours."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
import robodyn.symbolic
from robodyn.identification.parameters import with_symbolic_inertia
from robodyn.symbolic import equal, equations, simplify_expression
from robodyn.symbolic.ring import TrigRing
from robodyn.symbolic.simplify import _fourier, textbook

q1, q2, q3 = sp.symbols("q1 q2 q3")
qd1, qd2, qdd1, qdd2 = sp.symbols("qd1 qd2 qdd1 qdd2")
a, b = sp.symbols("a b")


def ring3(*exprs):
    return TrigRing(["revolute", "revolute", "prismatic"], exprs)


def test_docstring_examples_run():
    result = doctest.testmod(robodyn.symbolic, verbose=False)
    assert result.failed == 0 and result.attempted > 0


def test_trig_identity_is_built_in():
    ring = ring3(a)
    assert ring.poly(sp.sin(q1) ** 2 + sp.cos(q1) ** 2) == ring.one
    assert ring.poly(sp.cos(q1) ** 2) == ring.poly(1 - sp.sin(q1) ** 2)
    assert ring.poly(sp.cos(2 * q1)) == ring.poly(1 - 2 * sp.sin(q1) ** 2)
    assert ring.poly(sp.sin(q1 + q2)) == ring.poly(sp.sin(q1) * sp.cos(q2)
                                                   + sp.cos(q1) * sp.sin(q2))
    assert ring.poly(sp.cos(q1 - q2 + sp.pi / 2)) == ring.poly(-sp.sin(q1 - q2))
    # a prismatic joint variable is a plain polynomial variable
    assert ring.poly(q3**2 * a) == ring.gen(q3) ** 2 * ring.gen(a)


def test_square_roots_and_symbolic_angles_reduce():
    al = sp.Symbol("al")
    ring = TrigRing(["revolute"], [sp.sqrt(3), sp.cos(al), sp.sin(al), a])
    p = ring.poly(sp.sqrt(3)) * ring.poly(sp.sqrt(3))
    assert ring.reduce(p) == ring.ring(3)
    c = ring.poly(sp.cos(al))
    s = ring.poly(sp.sin(al))
    assert ring.reduce(c * c + s * s) == ring.one


def test_calculus_matches_sympy():
    expr = q3**2 * sp.sin(q1) * qd1 + sp.cos(q1 + q2) * qd2**2 + a * sp.sin(2 * q2)
    ring = ring3(expr)
    p = ring.poly(expr)
    qd3, qdd3 = sp.symbols("qd3 qdd3")
    for i, qi in enumerate((q1, q2, q3)):
        assert equal(ring.expr(ring.diff_q(p, i)), sp.diff(expr, qi), joint_types=ring.joint_types)
    t = sp.Symbol("t")
    funcs = {q: sp.Function(str(q))(t) for q in (q1, q2, q3)}
    rates = {funcs[q1].diff(t): qd1, funcs[q2].diff(t): qd2, funcs[q3].diff(t): qd3}
    accels = {funcs[q1].diff(t, 2): qdd1, funcs[q2].diff(t, 2): qdd2,
              funcs[q3].diff(t, 2): qdd3}
    in_time = expr.subs({qd1: funcs[q1].diff(t), qd2: funcs[q2].diff(t)}).subs(funcs)
    reference = in_time.diff(t).subs(accels).subs(rates).subs({v: k for k, v in funcs.items()})
    assert equal(ring.expr(ring.time_derivative(p)), reference, joint_types=ring.joint_types)


def test_fourier_of_products():
    # sin^2 = 1/2 - 1/2 cos 2q ; sin cos = 1/2 sin 2q ; c1 c2 - s1 s2 = cos(q1 + q2)
    assert _fourier(((2, 0),)) == {(0,): (sp.Rational(1, 2), 0), (2,): (-sp.Rational(1, 2), 0)}
    assert _fourier(((1, 1),)) == {(2,): (0, sp.Rational(1, 2))}
    assert simplify_expression(sp.cos(q1) * sp.cos(q2) - sp.sin(q1) * sp.sin(q2)) \
        == sp.cos(q1 + q2)
    assert simplify_expression(sp.sin(q1) * sp.cos(q2) + sp.cos(q1) * sp.sin(q2)) \
        == sp.sin(q1 + q2)
    assert simplify_expression(sp.sin(q2) ** 2 + sp.cos(q2) ** 2 - 1) == 0


@pytest.mark.parametrize("seed", range(5))
def test_printed_form_reads_back_exactly(seed):
    rng = np.random.default_rng(seed)
    atoms = [sp.sin(q1), sp.cos(q1), sp.sin(q2), sp.cos(q2), sp.cos(q1 + q2), a, b, qd1, q3,
             sp.Float(0.4318)]
    expr = sum(int(rng.integers(-3, 4)) * sp.Mul(*(atoms[k] for k in rng.integers(0, 10, 3)))
               for _ in range(8))
    ring = ring3(expr)
    p = ring.poly(expr)
    raw = textbook(ring, p, raw=True)
    assert ring.poly(raw) == p
    shown = textbook(ring, p)
    values = {q1: 0.3, q2: -1.1, q3: 0.7, a: 1.3, b: -0.4, qd1: 0.9}
    assert abs(complex(shown.xreplace(values)) - complex(expr.xreplace(values))) < 1e-12


def test_equal_decides_identities():
    assert equal(sp.sin(q1 + q2), sp.sin(q1) * sp.cos(q2) + sp.cos(q1) * sp.sin(q2))
    assert not equal(sp.sin(q1 + q2), sp.sin(q1) * sp.cos(q2))
    assert equal(sp.Matrix([sp.cos(q1) ** 2]), sp.Matrix([1 - sp.sin(q1) ** 2]))
    assert not equal(sp.Matrix([1, 2]), sp.Matrix([1, 2, 3]))


def test_symbolic_inertia_model():
    robot = with_symbolic_inertia(rd.load("planar-2r"))
    names = {str(s) for s in robot.symbols}
    assert {"m1", "cx1", "Ixx1", "Iyz2", "l1", "g"} <= names and "c1" not in names
    # link frames of the chain sit on the joints: the COM of link 1 is c1 = 0.4 along x1
    assert robot.values["m2"] == 1.5 and robot.values["cx1"] == pytest.approx(0.4)
    eq = equations(robot)
    assert eq.check()


def test_subs_rejects_unknown_names_and_non_numbers():
    eq = equations(rd.load("planar-2r"))
    with pytest.raises(rd.InputError, match="not a symbolic parameter"):
        eq.subs({"q1": 0.0})
    with pytest.raises(rd.InputError, match="not a number"):
        eq.subs({"m1": "heavy"})
    exact = eq.subs({"m1": 2, "l1": sp.Rational(1, 2)})
    assert sp.Symbol("m1") not in exact.params
    assert not exact.M.atoms(sp.Float)          # integers and rationals stay exact


def test_numeric_needs_every_value():
    chain = rd.load("planar-2r").chain
    eq = equations(chain)  # a bare chain has no default values
    with pytest.raises(rd.ModelError, match="no value for parameter"):
        eq.numeric()
    values = rd.load("planar-2r").values
    num = eq.numeric(values)
    assert num.M(np.zeros(2)).shape == (2, 2)
    assert num.g(np.zeros((4, 3, 2))).shape == (4, 3, 2)


def test_christoffel_symbols_nested():
    eq = equations(rd.load("planar-2r"))
    c = eq.christoffel
    assert len(c) == 2 and len(c[0]) == 2 and len(c[0][0]) == 2
    m2, l1, c2 = sp.symbols("m2 l1 c2")
    h = -m2 * l1 * c2 * sp.sin(q2)
    assert sp.simplify(c[0][0][1] - h) == 0 and c[0][1][0] == c[0][0][1]
    assert sp.simplify(c[1][0][0] + h) == 0
    assert sp.simplify(c[0][1][1] - h) == 0
