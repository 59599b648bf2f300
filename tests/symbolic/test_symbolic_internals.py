"""Internals of the symbolic package checked against independent references.

* The normal form (:mod:`robodyn.symbolic.ring.normal_form`) is the remainder of SymPy's own
  multivariate division (``reduced``) by ``c^2 + s^2 - 1`` and ``sqrt(n)^2 - n``, whose
  generators SymPy's ``groebner`` confirms to be a Gröbner basis; for one trig pair it is
  ``rem`` in ``c``. Random polynomials from Hypothesis.
* ``eq.numeric()`` runs on the project's tape: a 7-DOF arm and an expression of thousands
  of terms (which ``sympy.lambdify`` cannot compile: RecursionError) agree with the
  compiled kernels and with a closed form; bad arrays are clear errors.
* ``tidy_chain`` rounds exactly the rotation entries that ``model.chain.snap`` rounds.
* ``is_double`` tells double Floats from others without private SymPy.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import QQ

import robodyn as rd
from robodyn.model.chain import SNAP, Transform, snap
from robodyn.symbolic import equations
from robodyn.symbolic.derivation import tidy_chain
from robodyn.symbolic.numeric import NumericEquations
from robodyn.symbolic.printing.json import exact_str, is_double
from robodyn.symbolic.ring import TrigRing

al = sp.Symbol("al")
a = sp.Symbol("a")


def _ring() -> TrigRing:
    """Two revolute joints, a prismatic one, sqrt(2), the trig pair cos(al), sin(al)."""
    return TrigRing(["revolute", "revolute", "prismatic"],
                    [sp.sqrt(2), sp.cos(al), sp.sin(al), a])


RING = _ring()
# generator indices that random polynomials use: every c and s, sqrt(2), q3, qd1, a
_ROOT = RING.roots[0][0]
_USED = sorted({k for pair in RING.pairs for k in pair}
               | {_ROOT, RING.q_index[2], RING.qd_index[0], RING.ring.gens.index(RING.gen(a))})

monomials = st.lists(st.integers(0, 5), min_size=len(_USED), max_size=len(_USED))
terms = st.lists(st.tuples(monomials, st.integers(-9, 9), st.integers(1, 4)), min_size=1,
                 max_size=8)


def _poly(ring: TrigRing, used: list[int], term_list):
    out: dict[tuple, object] = {}
    for exps, num, den in term_list:
        m = [0] * ring.ring.ngens
        for k, e in zip(used, exps, strict=True):
            m[k] = e
        key = tuple(m)
        out[key] = out.get(key, QQ(0)) + QQ(num, den)
    return ring.ring.from_dict(out)


def _division_basis(ring: TrigRing):
    """The generators of the ideal and the variables ordered c > s > the rest (lex)."""
    symbols = ring.ring.symbols
    cs = [symbols[c] for c, _ in ring.pairs]
    ss = [symbols[s] for _, s in ring.pairs]
    basis = [c**2 + s**2 - 1 for c, s in zip(cs, ss, strict=True)]
    basis += [symbols[k] ** 2 - n for k, n in ring.roots]
    rest = [x for x in symbols if x not in cs and x not in ss]
    return basis, cs + ss + rest


def test_identities_are_a_groebner_basis():
    basis, gens = _division_basis(RING)
    assert len(RING.pairs) == 3 and len(RING.roots) == 1
    reduced_basis = sp.groebner(basis, *gens, order="lex")
    assert set(reduced_basis.exprs) == {sp.expand(b) for b in basis}


@pytest.mark.slow
@settings(max_examples=25, deadline=None)  # SymPy's reduced takes about 0.5 s an example
@given(terms)
def test_normal_form_is_sympys_remainder(term_list):
    p = _poly(RING, _USED, term_list)
    ours = RING.reduce(p)
    basis, gens = _division_basis(RING)
    _, remainder = sp.reduced(p.as_expr(), basis, *gens, order="lex")
    assert sp.expand(ours.as_expr() - remainder) == 0
    # no cosine squared, no square root squared; reducing again changes nothing
    assert all(m[c] < 2 for m in ours.itermonoms() for c, _ in RING.pairs)
    assert all(m[_ROOT] < 2 for m in ours.itermonoms())
    assert RING.reduce(ours) == ours


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 6), min_size=3, max_size=3),
                          st.integers(-9, 9), st.integers(1, 4)), min_size=1, max_size=6))
def test_one_pair_is_rem_in_the_cosine(term_list):
    ring = TrigRing(["revolute"], [a])
    used = [ring.c_index[0], ring.s_index[0], ring.qd_index[0]]
    p = _poly(ring, used, term_list)
    c, s = ring.ring.symbols[ring.c_index[0]], ring.ring.symbols[ring.s_index[0]]
    expected = sp.rem(p.as_expr(), c**2 + s**2 - 1, c)
    assert sp.expand(ring.reduce(p).as_expr() - expected) == 0


def test_converted_sympy_matches_reduction():
    # sin^2 + cos^2 through the SymPy conversion, and cos(2 q1) by de Moivre
    q1 = sp.Symbol("q1")
    assert RING.poly(sp.sin(q1) ** 4 + 2 * sp.sin(q1) ** 2 * sp.cos(q1) ** 2
                     + sp.cos(q1) ** 4) == RING.one
    assert RING.poly(sp.cos(al) ** 2 * sp.sqrt(2) ** 3) == RING.poly(
        2 * sp.sqrt(2) * (1 - sp.sin(al) ** 2))


# -- eq.numeric() on the project's tape ---------------------------------------------------

def _seven_dof_planar(path: Path) -> Path:
    links = [dict(joint="revolute", a=round(0.3 - 0.02 * i, 3), alpha=0, d=0, theta=0,
                  mass=round(2.0 - 0.2 * i, 2), com=[-0.1, 0.01 * i, 0.02],
                  inertia=[0.02, 0.03, 0.025, 0, 0, 0], friction=dict(viscous=0.1, coulomb=0.2))
             for i in range(7)]
    path.write_text(yaml.safe_dump(dict(name="planar-7r", dh="standard",
                                        gravity=[0, -9.81, 0], links=links)))
    return path


def _compare_with_kernels(robot, eq, n=6, seed=5):
    rng = np.random.default_rng(seed)
    q, qd, qdd = rng.uniform(-np.pi, np.pi, size=(3, n, robot.dof))
    num = eq.numeric()
    checks = [
        (num.M(q), robot.mass_matrix(q)),
        (num.C(q, qd), robot.coriolis_matrix(q, qd)),
        (num.g(q), robot.gravity_torques(q)),
        (num.friction(qd), robot.friction_torques(qd)),
        (num.tau(q, qd, qdd), robot.inverse_dynamics(q, qd, qdd)),
        (num.tau(q[0], qd[0], qdd[0]), robot.inverse_dynamics(q[0], qd[0], qdd[0])),
        (num.Cqd(q, qd), robot.inverse_dynamics(q, qd, 0 * qdd) - robot.gravity_torques(q)
         - robot.friction_torques(qd)),
    ]
    for actual, expected in checks:
        assert actual.shape == expected.shape
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-10 * scale)


@pytest.mark.slow
def test_numeric_of_a_seven_dof_arm(tmp_path):
    robot = rd.load(_seven_dof_planar(tmp_path / "planar-7r.yaml"))
    assert robot.dof == 7
    _compare_with_kernels(robot, equations(robot, method="newton-euler"))


@pytest.mark.slow
def test_numeric_of_an_expression_too_deep_for_lambdify():
    """``tau = sum c_ijlm qd1^i qdd1^j sin(q1)^l cos(q1)^m`` over ``i, j, l, m < 8``: 4096
    terms, which Python cannot compile as one expression (what ``lambdify`` generates:
    RecursionError from 3000 terms on); the tape runs it. Reference: the same sum by
    ``einsum`` over the powers."""
    q1, qd1, qdd1 = sp.symbols("q1 qd1 qdd1")
    k = np.arange(8)
    coef = 1.0 / (1 + k[:, None, None, None] + 2 * k[None, :, None, None]
                  + 3 * k[None, None, :, None] + 5 * k[None, None, None, :])
    series = sp.Add(*(sp.Float(coef[i, j, l, m]) * qd1**i * qdd1**j * sp.sin(q1) ** l
                      * sp.cos(q1) ** m
                      for i in k for j in k for l in k for m in k))
    assert len(series.args) == 8**4
    stub = SimpleNamespace(dof=1, h_e=(), q=(q1,), qd=(qd1,), qdd=(qdd1,),
                           tau=sp.Matrix([series]))
    num = NumericEquations(stub, {})
    q = np.array([0.3, -1.2, 2.0])
    qd = np.array([0.5, -0.9, 0.1])
    qdd = np.array([1.0, 0.0, -0.7])
    powers = [x[:, None] ** k for x in (qd, qdd, np.sin(q), np.cos(q))]
    expected = np.einsum("ijlm,ni,nj,nl,nm->n", coef, *powers)
    np.testing.assert_allclose(num.tau(q[:, None], qd[:, None], qdd[:, None])[:, 0], expected,
                               rtol=1e-12)


def test_numeric_rejects_bad_arrays_by_name():
    num = equations(rd.load("planar-2r")).numeric()
    q = np.zeros(2)
    with pytest.raises(rd.InputError, match=r"qd: expected shape \(\.\.\., 2\)"):
        num.C(q, np.zeros(3))
    with pytest.raises(rd.InputError, match="q: has NaN"):
        num.M([np.nan, 0.0])
    with pytest.raises(rd.InputError, match="qdd: expected real numbers"):
        num.tau(q, q, q + 1j)
    with pytest.raises(rd.InputError, match="q: expected real numbers"):
        num.g(["a", "b"])
    with pytest.raises(rd.InputError, match="do not broadcast"):
        num.C(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(rd.InputError, match="without the end-effector wrench"):
        num.tau(q, q, q, h_e=np.zeros(6))
    # batches broadcast: one q with three qd
    assert num.C(q, np.zeros((3, 2))).shape == (3, 2, 2)


def test_numeric_runs_constant_entries_and_fractional_powers():
    """The kernels' NumPy back end runs the closed forms: an entry that reads no input (a
    constant of the batch's shape, even a function that reads none) and a constant
    fractional power ``qd^(1/3)`` (a ``pow`` instruction) as NumPy computes them."""
    q1, qd1, qdd1 = sp.symbols("q1 qd1 qdd1")
    stub = SimpleNamespace(dof=2, h_e=(), q=(q1, sp.Symbol("q2")), qd=(qd1, sp.Symbol("qd2")),
                           qdd=(qdd1, sp.Symbol("qdd2")),
                           tau=sp.Matrix([qd1 ** sp.Rational(1, 3) * sp.cos(q1), sp.Float(2.5)]),
                           friction=sp.Matrix([sp.Float(0.5), sp.Integer(0)]))
    num = NumericEquations(stub, {})
    q = np.array([[0.3, 9.0], [-1.2, 9.0], [2.0, 9.0]])
    qd = np.array([[0.5, 1.0], [8.0, 1.0], [0.1, 1.0]])
    tau = num.tau(q, qd, np.zeros((3, 2)))
    np.testing.assert_allclose(tau[:, 0], np.cbrt(qd[:, 0]) * np.cos(q[:, 0]), rtol=1e-14)
    np.testing.assert_array_equal(tau[:, 1], [2.5, 2.5, 2.5])
    np.testing.assert_array_equal(num.friction(qd), [[0.5, 0.0]] * 3)


# -- rounding of rotations, and Floats ----------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, -1.0]), min_size=9, max_size=9),
       st.lists(st.floats(-3 * SNAP, 3 * SNAP), min_size=9, max_size=9))
def test_tidy_chain_rounds_what_the_kernels_round(exact, noise):
    chain = rd.load("planar-2r").chain
    values = [e + d for e, d in zip(exact, noise, strict=True)]
    rot = tuple(tuple(sp.Float(values[3 * r + c]) for c in range(3)) for r in range(3))
    link = chain.links[0]
    placement = Transform(rot, link.joint.placement.translation)
    chain = replace(chain, links=(replace(link, joint=replace(link.joint, placement=placement)),)
                    + chain.links[1:])
    tidy = tidy_chain(chain).links[0].joint.placement.rotation
    for r in range(3):
        for c in range(3):
            x = values[3 * r + c]
            near = [e for e in (0, 1, -1) if abs(x - e) < SNAP]
            entry = tidy[r][c]
            if near:
                assert entry == sp.Integer(near[0]) and snap(x) == near[0], (x, entry)
            else:
                assert isinstance(entry, (sp.Float, sp.cos, sp.sin)) or entry.is_Mul, (x, entry)


def test_is_double_and_exact_strings():
    assert is_double(sp.Float(0.1)) and is_double(sp.Float(0.4318))
    assert not is_double(sp.Float("0.1", 30)) and not is_double(sp.Float("0.5", 30))
    for x in (sp.Float(0.1), sp.Float(1 / 3), sp.Float("0.1", 30)):
        back = sp.parse_expr(exact_str(x))
        assert back.compare(x) == 0, (x, exact_str(x))
