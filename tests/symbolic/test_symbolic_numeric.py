"""Every built-in model (and URDF models): the closed forms, evaluated, are the numeric
core's results; both routes agree symbolically; the structural checks pass.

What is independent of what (the routes share the model and the kinematics,
:func:`robodyn.dynamics.kinematics.joint_transform`/``link_poses``, which Pinocchio and
the Jacobian reference of ``test_seed_examples.py`` check on their own):

* Lagrange–Euler closed form vs numeric core: independent. LE differentiates the kinetic
  and potential energies; the core runs Newton–Euler (``tau``, ``g``), composite rigid
  bodies (``M``) and spatial algebra (``C``). Every model here is checked this way.
* Newton–Euler closed form vs numeric core: NOT independent for ``tau`` and ``g``. The
  symbolic route runs the very same :func:`robodyn.dynamics.rnea.rnea` on polynomials
  that the compiled kernel runs on floats, so their agreement only checks the tracing,
  code generation and polynomial arithmetic, not the physics. Its ``M`` (coefficients of
  ``qdd`` in RNEA's ``tau``) vs CRBA and its ``C`` (Christoffel symbols of that ``M``) vs
  the spatial ``C`` are different algorithms.
* Lagrange–Euler vs Newton–Euler symbolically (``verify``): independent routes, one
  polynomial normal form as the judge.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import SYMBOLIC_MODELS, TEST_DATA
from robodyn.symbolic import equations, verify
from robodyn.symbolic.printing.json import is_double

try:
    from conftest import random_states
except ImportError:  # tests/ collected as a package
    from .conftest import random_states

MODELS = SYMBOLIC_MODELS
METHODS = ("lagrange", "newton-euler")
URDF_DIR = TEST_DATA / "urdf"
URDF_MODELS = ("planar_2r.urdf", "planar_2r_rotated.urdf", "payload_2r_merged.urdf")
TOL = 1e-10


def assert_close(actual, expected, what):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=TOL, atol=TOL * scale, err_msg=what)


@pytest.fixture(scope="module")
def derived():
    out = {}
    for name in MODELS:
        robot = rd.load(name)
        for method in METHODS:
            out[name, method] = (robot, equations(robot, method=method))
    return out


def _compare_with_numeric_core(robot, eq, model):
    num = eq.numeric()
    q, qd, qdd = random_states(robot, 8, seed=11)
    assert_close(num.M(q), robot.mass_matrix(q), f"{model} M")
    assert_close(num.g(q), robot.gravity_torques(q), f"{model} g")
    assert_close(num.friction(qd), robot.friction_torques(qd), f"{model} friction")
    assert_close(num.tau(q, qd, qdd), robot.inverse_dynamics(q, qd, qdd), f"{model} tau")
    # single state, too
    assert_close(num.tau(q[0], qd[0], qdd[0]), robot.inverse_dynamics(q[0], qd[0], qdd[0]),
                 f"{model} tau (one state)")
    assert_close(num.C(q, qd), robot.coriolis_matrix(q, qd), f"{model} C")


@pytest.mark.parametrize("model", MODELS)
def test_lagrange_closed_form_equals_numeric_core(model, derived):
    """Independent routes: energies and Euler–Lagrange vs RNEA/CRBA/spatial C."""
    robot, eq = derived[model, "lagrange"]
    _compare_with_numeric_core(robot, eq, model)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_newton_euler_closed_form_equals_numeric_core(model, derived):
    """A consistency check, not independent evidence for ``tau`` and ``g``: both run the
    same ``rnea`` (on polynomials and on floats); this checks the tracing and the code
    generation. ``M`` and ``C`` come from other algorithms on each side (see the module)."""
    robot, eq = derived[model, "newton-euler"]
    _compare_with_numeric_core(robot, eq, model)


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("model", MODELS)
def test_structure_checks_pass(model, method, derived):
    _, eq = derived[model, method]
    checks = eq.check()
    assert checks, f"{model} ({method}):\n{checks}"
    assert eq.M == eq.M.T
    assert all(isinstance(s, sp.Symbol) for s in eq.q + eq.qd + eq.qdd)
    assert [str(s) for s in eq.q] == [f"q{i}" for i in range(1, eq.dof + 1)]


@pytest.mark.parametrize("model", MODELS)
def test_lagrange_and_newton_euler_agree_symbolically(model, derived):
    agreement = verify(rd.load(model))
    assert agreement.holds and agreement.exact, str(agreement)
    assert agreement.difference == sp.zeros(derived[model, "lagrange"][1].dof, 1)
    # the printed matrices are the same expressions, too
    _, le = derived[model, "lagrange"]
    _, ne = derived[model, "newton-euler"]
    assert le.M == ne.M and le.C == ne.C and le.g == ne.g


def test_float_parameters_stay_floats(derived):
    _, eq = derived["puma560", "lagrange"]
    # the published numbers stay numbers; gravity and the motors are the parameters
    motors = {sp.Symbol(f"{p}{k}") for p in ("G", "Jm") for k in range(1, 7)}
    assert set(eq.params) == {sp.Symbol("g")} | motors
    assert eq.M[1, 1].has(sp.Symbol("G2") ** 2 * sp.Symbol("Jm2"))
    floats = eq.M[1, 1].atoms(sp.Float)
    assert floats and all(is_double(f) for f in floats)
    assert not eq.M[1, 1].atoms(sp.Rational) - {sp.Integer(2), sp.Integer(-1), sp.Integer(1)}


@pytest.mark.parametrize("name", URDF_MODELS)
def test_urdf_models(name):
    """URDF models hold Floats (rpy rotations are orthonormal to rounding only): the routes
    agree up to that rounding and match the numeric core (Lagrange–Euler independently;
    Newton–Euler runs the kernel's own ``rnea``, a consistency check)."""
    robot = rd.load(URDF_DIR / name)
    agreement = verify(robot)
    assert agreement.holds, str(agreement)
    for method in METHODS:
        eq = equations(robot, method=method)
        assert eq.check(), str(eq.check())
        q, qd, qdd = random_states(robot, 5, seed=3)
        num = eq.numeric()
        assert_close(num.tau(q, qd, qdd), robot.inverse_dynamics(q, qd, qdd), name)
        assert_close(num.M(q), robot.mass_matrix(q), name)
        # no rounding residue (1e-33 cos(2 q1)) is printed
        for entry in eq.M:
            assert all(abs(f) > 1e-12 for f in entry.atoms(sp.Float)), entry


def test_end_effector_wrench_matches_core(derived):
    """``h_e=True`` adds J^T h_e (Siciliano eq. 7.83, seed 002); the core's inverse
    dynamics with ``h_e`` is the reference (independent for Lagrange–Euler, whose J^T h_e
    comes from its own kinematics; test_properties checks J^T h_e by virtual work)."""
    for model in ("planar-2r", "rp-arm", "planar-3r"):
        robot = rd.load(model)
        for method in METHODS:
            eq = equations(robot, method=method, h_e=True)
            assert len(eq.h_e) == 6 and eq.check()
            num = eq.numeric()
            q, qd, qdd = random_states(robot, 4, seed=5)
            h = np.random.default_rng(1).normal(size=(4, 6))
            assert_close(num.tau(q, qd, qdd, h), robot.inverse_dynamics(q, qd, qdd, h_e=h),
                         f"{model} with h_e")
        assert verify(robot, h_e=True).holds


def test_substituted_values_give_the_same_numbers(derived):
    robot, eq = derived["planar-2r", "newton-euler"]
    numeric = eq.subs(robot.values)
    assert numeric.params == ()
    assert all(not e.free_symbols - set(eq.q) for e in numeric.M)
    q, qd, qdd = random_states(robot, 4, seed=2)
    assert_close(numeric.numeric().tau(q, qd, qdd), robot.inverse_dynamics(q, qd, qdd), "subs")
    partial = equations(robot, values={"g": 9.81, "m2": 1.5})
    assert sp.Symbol("g") not in partial.params and sp.Symbol("m1") in partial.params
    assert partial.g[1].atoms(sp.Float)


@pytest.mark.slow
def test_6dof_symbolic_inertia_smoke():
    """The PUMA 560 geometry with 60 symbolic inertial parameters (and its motors): one
    route and a numeric spot check (timings and the agreement of both routes:
    benchmarks/bench_symbolic.py).
    Newton–Euler's M (RNEA coefficients) vs CRBA are different algorithms; its g is the
    kernel's own ``rnea`` (a consistency check). The PUMA's numbers are checked
    independently by the Jacobian reference and Corke's gravity load in
    test_seed_examples.py, and by the Lagrange–Euler test above."""
    from robodyn.identification.parameters import with_symbolic_inertia

    robot = rd.load("puma560")
    symbolic = with_symbolic_inertia(robot)
    eq = equations(symbolic, method="newton-euler")
    assert len(eq.params) == 61 + 12  # 10 per link, g, and the motors' Jm, G
    num = eq.numeric()  # defaults: the PUMA's own numbers
    q, qd, qdd = random_states(robot, 3, seed=8)
    assert_close(num.M(q), robot.mass_matrix(q), "symbolic-inertia PUMA M")
    assert_close(num.g(q), robot.gravity_torques(q), "symbolic-inertia PUMA g")
