"""The seed examples derived symbolically, by Lagrange–Euler and by Newton–Euler.

For every seed model (``tests/seed_closed_forms.py``, written by hand from the course
material) both routes of :mod:`robodyn.symbolic` must give M, C qd and g (and C and the
friction where the seed gives them) that are *symbolically* equal to the closed form:
the difference simplifies to zero. The judge here is SymPy itself (``expand_trig``,
``expand``, then ``simplify``), not robodyn's own normal form.

Where a seed slips, the closed form (and so these tests) follows the physics; the
tests below that touch a slip say which line of the seed is wrong.
"""

from __future__ import annotations

import pytest
import sympy as sp

import robodyn as rd
from robodyn.model.chain import Friction
from robodyn.symbolic import equations, verify

try:
    from seed_closed_forms import CLOSED_FORMS, christoffel_matrix
except ImportError:  # tests/ collected as a package
    from .seed_closed_forms import CLOSED_FORMS, christoffel_matrix

SEED_MODELS = sorted(CLOSED_FORMS)
METHODS = ("lagrange", "newton-euler")


def simplifies_to_zero(expr) -> bool:
    """SymPy's verdict: ``expr`` (or every entry of a matrix) simplifies to 0."""
    if isinstance(expr, sp.MatrixBase):
        return all(simplifies_to_zero(e) for e in expr)
    e = sp.expand(sp.expand_trig(sp.sympify(expr)))
    if e == 0:
        return True
    return sp.simplify(e) == 0


@pytest.fixture(scope="module")
def derived():
    out = {}
    for name in SEED_MODELS:
        robot = rd.load(name)
        for method in METHODS:
            out[name, method] = equations(robot, method=method)
    return out


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("model", SEED_MODELS)
def test_seed_closed_form(model, method, derived):
    eq = derived[model, method]
    cf = CLOSED_FORMS[model]()
    assert eq.q == cf.q and eq.qd == cf.qd and eq.qdd == cf.qdd
    assert simplifies_to_zero(eq.M - cf.M), f"{model} ({method}): M differs from the seed"
    assert simplifies_to_zero(eq.Cqd - cf.Cqd), f"{model} ({method}): C qd differs"
    assert simplifies_to_zero(eq.C * sp.Matrix(eq.qd) - cf.Cqd), f"{model}: C qd from C"
    assert simplifies_to_zero(eq.g - cf.g), f"{model} ({method}): g differs from the seed"
    assert simplifies_to_zero(eq.friction - cf.friction), f"{model}: friction differs"
    assert simplifies_to_zero(eq.tau - cf.tau), f"{model} ({method}): tau differs"
    if cf.C is not None:  # the seed prints C itself (Christoffel form, unique given M)
        assert simplifies_to_zero(eq.C - cf.C), f"{model} ({method}): C differs"
    # C is the Christoffel matrix of M whatever the seed prints
    assert simplifies_to_zero(eq.C - christoffel_matrix(eq.M, eq.q, eq.qd))


@pytest.mark.parametrize("model", SEED_MODELS)
def test_seed_models_both_routes_agree_and_check(model, derived):
    assert verify(rd.load(model)).holds
    for method in METHODS:
        checks = derived[model, method].check()
        assert checks, str(checks)


def test_pendulum_is_the_seed_equation(derived):
    """Seed 002, Section 7.1: ``I th'' + F th' + m g l sin(th) = tau`` with ``I`` the inertia
    about the joint axis (``Izz + m l^2``; the model stores Izz about the COM)."""
    m, l, Izz, F, g = sp.symbols("m l Izz F g")
    q, qd, qdd = sp.symbols("q1 qd1 qdd1")
    I = Izz + m * l**2
    for method in METHODS:
        eq = derived["pendulum", method]
        assert simplifies_to_zero(eq.tau[0] - (I * qdd + F * qd + m * g * l * sp.sin(q)))
        assert eq.g[0] == g * l * m * sp.sin(q)          # printed exactly as the seed
        assert eq.friction[0] == F * qd
        # T = 1/2 I th'^2 and U = m g l (1 - cos th): the model sets U's zero hanging down
        # (potential_zero: [0]), as the seed does
        assert simplifies_to_zero(eq.kinetic_energy - I * qd**2 / 2)
        assert simplifies_to_zero(eq.potential_energy - m * g * l * (1 - sp.cos(q)))


def test_static_friction_uses_the_sign_of_the_rate():
    """Seed 002 writes "Static friction: -F_s sign(q)"; the boxed model below it (and the
    physics) has ``F_s sign(qd)``: the friction opposes the motion, not the position."""
    robot = rd.load("pendulum")
    link = robot.chain.links[0]
    Fs = sp.Symbol("Fs")
    chain = robot.chain.__class__(
        links=(link.__class__(link.name, link.joint, link.inertial,
                              Friction(viscous=sp.Symbol("F"), coulomb=Fs)),),
        gravity=robot.chain.gravity, tip=robot.chain.tip)
    eq = equations(chain)
    qd = eq.qd[0]
    assert eq.friction[0] == sp.Symbol("F") * qd + Fs * sp.sign(qd)
    assert simplifies_to_zero(eq.tau[0] - eq.M[0, 0] * eq.qdd[0] - eq.g[0] - eq.friction[0])


def test_rp_arm_coriolis_term_has_no_theta2(derived):
    """Seed 000, example 1: tau1 is dictated with "2 m2 d2 theta1 dot theta2 dot"; there is
    no theta2 in an RP arm: the Coriolis term is 2 m2 d2 th1' d2' (the lecture's V)."""
    m2 = sp.Symbol("m2")
    (q1, q2), (qd1, qd2) = derived["rp-arm", "lagrange"].q, derived["rp-arm", "lagrange"].qd
    for method in METHODS:
        eq = derived["rp-arm", method]
        assert eq.Cqd[0] == 2 * m2 * q2 * qd1 * qd2
        assert eq.Cqd[1] == -m2 * q2 * qd1**2
        # dU/dth1 = (m1 l1 + m2 d2) g cos th1, not the first-dictated (m1 l1 + m2 l2) ...
        assert simplifies_to_zero(eq.g[0] - (sp.Symbol("m1") * sp.Symbol("l1") + m2 * q2)
                                  * sp.Symbol("g") * sp.cos(q1))


def test_2r_point_mass_torques_of_the_lecture(derived):
    """Seed 000, example 2 (Newton-Euler, point masses): the final tau1 is dictated with
    "M2 L2 g sin 1 2" and "M2 L1 L2 sin 2 theta 2 squared theta 2 dot squared"; the physics
    (and the lecture's own n_1 and tau2) give m2 l2 g cos(th1 + th2) and -m2 l1 l2 s2
    th2'^2. Checked on the Newton-Euler steps too: the inward n_1 is the lecture's."""
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g")
    eq = derived["planar-2r-point-mass", "newton-euler"]
    (q1, q2), (qd1, qd2), (qdd1, qdd2) = eq.q, eq.qd, eq.qdd
    s2, c2, c12 = sp.sin(q2), sp.cos(q2), sp.cos(q1 + q2)
    tau1 = (m2 * l2**2 * (qdd1 + qdd2) + m2 * l1 * l2 * c2 * (2 * qdd1 + qdd2)
            + (m1 + m2) * l1**2 * qdd1 - m2 * l1 * l2 * s2 * qd2**2
            - 2 * m2 * l1 * l2 * s2 * qd1 * qd2 + m2 * l2 * g * c12
            + (m1 + m2) * l1 * g * sp.cos(q1))
    tau2 = (m2 * l1 * l2 * c2 * qdd1 + m2 * l1 * l2 * s2 * qd1**2 + m2 * l2 * g * c12
            + m2 * l2**2 * (qdd1 + qdd2))
    assert simplifies_to_zero(eq.tau - sp.Matrix([tau1, tau2]))
    steps = {s.lhs: s.expression for s in eq.steps}
    # the lecture: n_2 = [0, 0, m2 l1 l2 c2 th1'' + m2 l1 l2 s2 th1'^2 + m2 l2 g c12
    #                     + m2 l2^2 (th1'' + th2'')]
    assert simplifies_to_zero(steps["n_2"] - sp.Matrix([0, 0, tau2]))
    assert simplifies_to_zero(steps["n_1"] - sp.Matrix([0, 0, tau1]))
    # F_1 = m1 vdc_1 = [-m1 l1 th1'^2 + m1 g s1, m1 l1 th1'' + m1 g c1, 0] (Craig frames:
    # the lecture's "plus m1 l1 theta1 dot square" in f_1 is -m1 l1 th1'^2)
    F1 = sp.Matrix([-m1 * l1 * qd1**2 + m1 * g * sp.sin(q1),
                    m1 * l1 * qdd1 + m1 * g * sp.cos(q1), 0])
    assert simplifies_to_zero(steps["F_1"] - F1)
    # vd_2 of the lecture: [l1 th1'' s2 - l1 th1'^2 c2 + g s12, l1 th1'' c2 + l1 th1'^2 s2
    # + g c12, 0]
    vd2 = sp.Matrix([l1 * qdd1 * s2 - l1 * qd1**2 * c2 + g * sp.sin(q1 + q2),
                     l1 * qdd1 * c2 + l1 * qd1**2 * s2 + g * c12, 0])
    assert simplifies_to_zero(steps["vd_2"] - vd2)


def test_two_link_dh_skew_symmetric_matrix(derived):
    """Seed 004 prints N = B' - 2C as [[0, -2h th2' - h th2'], [2h th2' + h th2', 0]];
    the right entry is -2h th1' - h th2' (with h = -ml2 a1 l2 sin q2, the seed's h)."""
    a1, l2, ml2 = sp.symbols("a1 l2 ml2")
    for method in METHODS:
        eq = derived["planar-2r-dh", method]
        (_, q2), (qd1, qd2) = eq.q, eq.qd
        h = -ml2 * a1 * l2 * sp.sin(q2)
        Mdot = eq.M.diff(q2) * qd2
        N = Mdot - 2 * eq.C
        expected = sp.Matrix([[0, -2 * h * qd1 - h * qd2], [2 * h * qd1 + h * qd2, 0]])
        assert simplifies_to_zero(N - expected)
        # and the seed's C122 = 1/2 (db12/dq2 + db12/dq2 - db22/dq1) = h, not 0
        assert simplifies_to_zero(eq.christoffel[0][1][1] - h)


def test_seed_002_exercise_coriolis_terms(derived):
    """Seed 002's 2-DOF exercise: C_1 = 1/2 db11/dq1 qd1^2 + db11/dq2 qd1 qd2 + [db12/dq2 -
    1/2 db22/dq1] qd2^2 and C_2 = 1/2 db22/dq2 qd2^2 + db22/dq1 qd1 qd2 + [db12/dq1 - 1/2
    db11/dq2] qd1^2 (right, although the notes' h_ijk = db_ij/dq_k - 1/2 db_ik/dq_j slips:
    it is - 1/2 db_jk/dq_i)."""
    for model in ("planar-2r", "rp-arm", "planar-2r-dh"):
        eq = derived[model, "lagrange"]
        b, (q1, q2), (qd1, qd2) = eq.M, eq.q, eq.qd
        C1 = (b[0, 0].diff(q1) / 2 * qd1**2 + b[0, 0].diff(q2) * qd1 * qd2
              + (b[0, 1].diff(q2) - b[1, 1].diff(q1) / 2) * qd2**2)
        C2 = (b[1, 1].diff(q2) / 2 * qd2**2 + b[1, 1].diff(q1) * qd1 * qd2
              + (b[0, 1].diff(q1) - b[0, 0].diff(q2) / 2) * qd1**2)
        assert simplifies_to_zero(eq.Cqd - sp.Matrix([C1, C2])), model


def test_planar_3r_structure_of_seed_003(derived):
    """Seed 003: M = M0 + M1 cos q2 + M2 cos q3 + M3 cos(q2 + q3) and
    g = g1 cos q1 + g2 cos(q1 + q2) + g3 cos(q1 + q2 + q3): the printed forms use exactly
    these functions (sum angles, no products of sines and cosines)."""
    eq = derived["planar-3r", "lagrange"]
    q1, q2, q3 = eq.q
    allowed_M = {sp.cos(q2), sp.cos(q3), sp.cos(q2 + q3)}
    for entry in eq.M:
        assert entry.atoms(sp.cos, sp.sin) <= allowed_M, entry
    allowed_g = {sp.cos(q1), sp.cos(q1 + q2), sp.cos(q1 + q2 + q3)}
    for entry in eq.g:
        assert entry.atoms(sp.cos, sp.sin) <= allowed_g, entry
