"""Symbolic trees (issue 21): the two built-in trees, planar-y and planar-2r-gripper, by
Lagrange-Euler and Newton-Euler, against hand derivations written out below; LE == NE
proved in the ring; the numeric kernels against the closed forms at random states; the
steps name each link's parent."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.symbolic import equations, verify

q1, q2, q3, q4 = sp.symbols("q1:5")
qd1, qd2, qd3, qd4 = sp.symbols("qd1:5")
qdd1, qdd2, qdd3, qdd4 = sp.symbols("qdd1:5")
g = sp.Symbol("g")
cos, sin = sp.cos, sp.sin


def _zero(expr) -> bool:
    """``expr`` is identically zero (angle sums expanded: cos(q1 + q2) = c1 c2 - s1 s2)."""
    return sp.expand(sp.expand_trig(sp.expand(expr))) == 0


def _same(a: sp.Matrix, b: sp.Matrix) -> bool:
    return a.shape == b.shape and all(_zero(x) for x in a - b)


def _hand_y():
    """The planar Y by hand. Trunk: mass m1, COM at c1 from joint 1, moment I1; branch
    k = 2, 3 on the trunk's tip (at l1): mass m_k, COM at c_k from its joint, moment I_k,
    angle q1 + q_k in the plane. Each branch is the second link of a 2R arm with the
    trunk as its first, and the branches share nothing but the trunk:

        M11 = I1 + m1 c1^2 + sum_k [I_k + m_k (l1^2 + c_k^2 + 2 l1 c_k cos q_k)]
        M1k = I_k + m_k (c_k^2 + l1 c_k cos q_k),   Mkk = I_k + m_k c_k^2,   M23 = 0
        h_k = m_k l1 c_k sin q_k
        C qd = [-sum_k h_k (2 qd1 qdk + qdk^2),  h_2 qd1^2,  h_3 qd1^2]
        g   = [(m1 c1 + (m2 + m3) l1) g cos q1 + sum_k m_k c_k g cos(q1 + q_k),
               m_k c_k g cos(q1 + q_k) for k = 2, 3]      (gravity -g y0)
    """
    m1, m2, m3, l1, c1, c2, c3, I1, I2, I3 = sp.symbols("m1 m2 m3 l1 c1 c2 c3 I1 I2 I3")
    branches = ((m2, c2, I2, q2, qd2), (m3, c3, I3, q3, qd3))
    M11 = I1 + m1 * c1**2 + sum(I + m * (l1**2 + c**2 + 2 * l1 * c * cos(q))
                                for m, c, I, q, _ in branches)
    M1 = [I + m * (c**2 + l1 * c * cos(q)) for m, c, I, q, _ in branches]
    Mk = [I + m * c**2 for m, c, I, _, _ in branches]
    M = sp.Matrix([[M11, M1[0], M1[1]], [M1[0], Mk[0], 0], [M1[1], 0, Mk[1]]])
    h = [m * l1 * c * sin(q) for m, c, _, q, _ in branches]
    Cqd = sp.Matrix([-h[0] * (2 * qd1 * qd2 + qd2**2) - h[1] * (2 * qd1 * qd3 + qd3**2),
                     h[0] * qd1**2, h[1] * qd1**2])
    gk = [m * c * g * cos(q1 + q) for m, c, _, q, _ in branches]
    G = sp.Matrix([(m1 * c1 + (m2 + m3) * l1) * g * cos(q1) + gk[0] + gk[1], gk[0], gk[1]])
    return M, Cqd, G


def _hand_gripper():
    """The 2R arm with two fingers by hand. Arm as the planar 2R (COMs c1, c2 on the
    links, moments I1, I2); link 2 at angle th = q1 + q2 with unit vectors u = (cos th,
    sin th) along it and w = (-sin th, cos th) across. The fingers (mass mf, moment If
    each) sit at the forearm's tip, p3 = o2 + l2 u + q3 w and p4 = o2 + l2 u - q4 w
    (o2 = l1 (cos q1, sin q1)), turning with the forearm. With w1 = (-sin q1, cos q1),
    w1.u = sin q2 and w1.w = cos q2:

        |dp3/dt|^2 = l1^2 qd1^2 + thd^2 (l2^2 + q3^2) + qd3^2
                     + 2 l1 qd1 thd (l2 cos q2 - q3 sin q2) + 2 l1 qd1 qd3 cos q2 + 2 thd qd3 l2

    and finger 4 the same with q3 -> -q4, qd3 -> -qd4. Reading off K = 1/2 qd^T M qd
    (thd = qd1 + qd2) gives the matrix below; the heights give U and g = dU/dq."""
    m1, m2, mf, l1, l2, c1, c2, I1, I2, If = sp.symbols("m1 m2 mf l1 l2 c1 c2 I1 I2 If")
    arm = sp.Matrix([
        [I1 + m1 * c1**2 + I2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * cos(q2)),
         I2 + m2 * (c2**2 + l1 * c2 * cos(q2))],
        [I2 + m2 * (c2**2 + l1 * c2 * cos(q2)), I2 + m2 * c2**2]])
    M = sp.zeros(4, 4)
    M[:2, :2] = arm
    for s, qk in ((1, q3), (-1, q4)):  # s: the side, p = o2 + l2 u + s qk w
        y = s * qk  # the finger's coordinate across the forearm
        M[0, 0] += mf * (l1**2 + l2**2 + y**2 + 2 * l1 * (l2 * cos(q2) - y * sin(q2))) + If
        M[0, 1] += mf * (l2**2 + y**2 + l1 * (l2 * cos(q2) - y * sin(q2))) + If
        M[1, 1] += mf * (l2**2 + y**2) + If
    M[1, 0] = M[0, 1]
    M[0, 2] = M[2, 0] = mf * (l1 * cos(q2) + l2)
    M[1, 2] = M[2, 1] = mf * l2
    M[0, 3] = M[3, 0] = -mf * (l1 * cos(q2) + l2)
    M[1, 3] = M[3, 1] = -mf * l2
    M[2, 2] = M[3, 3] = mf
    th = q1 + q2
    G = g * sp.Matrix([
        (m1 * c1 + m2 * l1 + 2 * mf * l1) * cos(q1) + (m2 * c2 + 2 * mf * l2) * cos(th)
        - mf * (q3 - q4) * sin(th),
        (m2 * c2 + 2 * mf * l2) * cos(th) - mf * (q3 - q4) * sin(th),
        mf * cos(th),
        -mf * cos(th)])
    return M, G


def _lagrange_cqd(M: sp.Matrix, q, qd) -> sp.Matrix:
    """``C qd`` of Lagrange's equations from ``M`` alone: ``d/dt(M) qd - 1/2 d(qd^T M
    qd)/dq`` (an independent route from the library's, which reads ``tau``)."""
    n = len(q)
    qdv = sp.Matrix(qd)
    Mdot = sum((M.diff(q[k]) * qd[k] for k in range(n)), sp.zeros(n, n))
    grad = sp.Matrix([(qdv.T * M.diff(q[i]) * qdv)[0] for i in range(n)])
    return Mdot * qdv - grad / 2


@pytest.fixture(scope="module")
def y_eqs():
    robot = rd.load("planar-y")
    return robot, {m: equations(robot, m) for m in ("lagrange", "newton-euler")}


@pytest.fixture(scope="module")
def gripper_eqs():
    robot = rd.load("planar-2r-gripper")
    return robot, {m: equations(robot, m) for m in ("lagrange", "newton-euler")}


@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
def test_planar_y_equals_the_hand_derivation(y_eqs, method):
    M, Cqd, G = _hand_y()
    eq = y_eqs[1][method]
    assert eq.M[1, 2] == 0 and eq.M[2, 1] == 0  # the branches do not couple, exactly
    assert _same(eq.M, M)
    assert _same(eq.g, G)
    assert _same(eq.Cqd, Cqd)
    assert _same(eq.C * sp.Matrix([qd1, qd2, qd3]), Cqd)
    # and the whole tau: M qdd + C qd + g
    assert _same(eq.tau, M * sp.Matrix([qdd1, qdd2, qdd3]) + Cqd + G)


@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
def test_gripper_equals_the_hand_derivation(gripper_eqs, method):
    M, G = _hand_gripper()
    eq = gripper_eqs[1][method]
    assert eq.M[2, 3] == 0 and eq.M[3, 2] == 0  # the fingers do not couple, exactly
    assert eq.M[2, 2] == eq.M[3, 3] == sp.Symbol("mf")
    assert _same(eq.M, M)
    assert _same(eq.g, G)
    q, qd = [q1, q2, q3, q4], [qd1, qd2, qd3, qd4]
    assert _same(eq.Cqd, _lagrange_cqd(M, q, qd))
    assert _same(eq.C * sp.Matrix(qd), _lagrange_cqd(M, q, qd))


@pytest.mark.parametrize("name", ["planar-y", "planar-2r-gripper"])
def test_lagrange_equals_newton_euler_on_trees(name):
    agreement = verify(rd.load(name))
    assert agreement.holds and agreement.exact, str(agreement)
    assert list(agreement.difference) == [0] * rd.load(name).dof


@pytest.mark.parametrize("route", ["energy", "jacobian"])
def test_the_other_lagrange_routes_on_the_y_tree(route):
    """The energy (Hessian of K) and Jacobian routes sum each link's ancestors only."""
    M, Cqd, G = _hand_y()
    eq = equations(rd.load("planar-y"), "lagrange", route=route)
    assert _same(eq.M, M) and _same(eq.g, G) and _same(eq.Cqd, Cqd)
    if route == "jacobian":  # link 3's Jacobian has columns for joints 1 and 3 only
        jac = [s for s in eq.steps if s.title.startswith("Link 3: rotational Jacobian")]
        assert jac and "joints 1, 3" in jac[0].title
        # joint 3 turns about z_1 of the trunk's DH frame (its parent), as joint 2 does
        axis3 = next(s for s in eq.steps if s.title == "Joint 3: unit vector of its axis")
        assert (axis3.lhs, axis3.formula) == ("z_1", "R_1 z_0")


@pytest.mark.parametrize("name", ["planar-y", "planar-2r-gripper"])
def test_numeric_kernels_equal_the_closed_forms(name, numpy_backend):
    """robot.mass_matrix, gravity_torques, coriolis C qd and inverse_dynamics (the
    compiled, tree-aware kernels) equal the symbolic equations evaluated with the model's
    values at random states."""
    robot = rd.load(name)
    eq = equations(robot, "newton-euler", values=True)
    n = robot.dof
    q, qd, qdd = (sp.symbols(f"{p}1:{n + 1}") for p in ("q", "qd", "qdd"))
    f_M = sp.lambdify([q], eq.M, "numpy")
    f_g = sp.lambdify([q], eq.g, "numpy")
    f_tau = sp.lambdify([q, qd, qdd], eq.tau, "numpy")
    f_cqd = sp.lambdify([q, qd], eq.Cqd, "numpy")
    rng = np.random.default_rng(21)
    for _ in range(5):
        x, v, a = rng.uniform(-1, 1, (3, n))
        np.testing.assert_allclose(robot.mass_matrix(x), f_M(x), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(robot.gravity_torques(x), np.ravel(f_g(x)), rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(robot.inverse_dynamics(x, v, a), np.ravel(f_tau(x, v, a)),
                                   rtol=1e-12, atol=1e-12)
        tau0 = robot.inverse_dynamics(x, v, np.zeros(n)) - robot.gravity_torques(x)
        np.testing.assert_allclose(tau0, np.ravel(f_cqd(x, v)), rtol=1e-12, atol=1e-12)


def test_newton_euler_steps_name_each_links_parent(y_eqs):
    steps = y_eqs[1]["newton-euler"].steps
    titles = [s.title for s in steps]
    assert "Link 3 from link 1: angular velocity" in titles
    assert "Link 2 from link 1: angular velocity" in titles
    assert "Link 1 from the base: angular velocity" in titles
    # the inward step of the trunk sums both branches
    f1 = next(s for s in steps if s.title.startswith("Link 1, from links 2 and 3: force"))
    assert "R_2 f_2 + R_3 f_3" in f1.formula
    # the frames: A_3 is given in frame 1, T_3 = A_1 A_3
    assert any(s.title == "Frame 3 in frame 1: rotation (of A_3)" for s in steps)
    t3 = next(s for s in steps if s.lhs == "T_3")
    assert t3.formula == "A_1 A_3"


def test_gripper_steps_read_from_the_forearm(gripper_eqs):
    steps = gripper_eqs[1]["newton-euler"].steps
    titles = [s.title for s in steps]
    assert "Link 4 from link 2: angular velocity" in titles
    assert "Frame 4 in frame 2: origin" in titles
    f2 = next(s for s in steps if s.title.startswith("Link 2, from links 3 and 4: force"))
    assert f2.formula.startswith("R_3 f_3 + R_4 f_4 + F_2")
    tips = next(s for s in steps if s.title.startswith("Tips"))
    assert "links 3, 4" in tips.title


def test_lagrange_steps_sum_the_ancestors(y_eqs):
    w3 = next(s for s in y_eqs[1]["lagrange"].steps if s.lhs == "w_3")
    assert "j in {1, 3}" in w3.formula


def test_a_serial_chain_keeps_its_steps():
    """A chain's titles are unchanged by the tree support (no 'from link')."""
    eq = equations(rd.load("planar-2r"), "newton-euler")
    titles = [s.title for s in eq.steps]
    assert "Link 2: angular velocity" in titles
    assert not any("from link" in t or "from the base" in t for t in titles)


def test_the_checker_grades_a_tree(capsys):
    """robodyn check on the Y: the hand M passes; a coupling I3 between the branches
    (M_23, M_32) is reported as a term that should not be there."""
    from robodyn.cli import main

    M, _, _ = _hand_y()
    text = str(M.tolist())
    assert main(["check", "planar-y", "--M", text]) == 0
    wrong = M.copy()
    wrong[1, 2] = wrong[2, 1] = sp.Symbol("I3")
    capsys.readouterr()
    assert main(["check", "planar-y", "--M", str(wrong.tolist())]) == 1
    out = capsys.readouterr().out
    assert "M23: extra term" in out and "M32: extra term" in out and "M12" not in out


def _placed_y_chain():
    """The Y with explicit joint placements (as a URDF gives them, no DH table): link
    frames on the joints, both branch joints placed at (l1, 0, 0) of the trunk's frame,
    centres of mass at (c_k, 0, 0)."""
    from robodyn.model.chain import Chain, Inertial, Joint, Link, Transform

    def link(k, parent_offset):
        m, c, inertia = sp.symbols(f"m{k} c{k} I{k}")
        return Link(f"link{k}", Joint("revolute", placement=Transform.trans(x=parent_offset),
                                      name=f"joint{k}"),
                    Inertial(m, (c, 0, 0), ((0, 0, 0), (0, 0, 0), (0, 0, inertia))))

    l1 = sp.Symbol("l1")
    return Chain((link(1, 0), link(2, l1), link(3, l1)), gravity=(0, -g, 0), planar=True,
                 parents=(-1, 0, 0))


@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
def test_a_tree_with_joint_placements_equals_the_hand_derivation(method):
    """No DH table (the Craig-frame steps, the joint placements as given): the same hand
    derivation; the steps place joint 3 in frame 1."""
    M, Cqd, G = _hand_y()
    eq = equations(_placed_y_chain(), method)
    assert _same(eq.M, M) and _same(eq.g, G) and _same(eq.Cqd, Cqd)
    titles = [s.title for s in eq.steps]
    assert "Joint 3: placement in frame 1 (rotation, origin)" in titles
    if method == "newton-euler":
        assert "Frame 3 in frame 1: origin" in titles
        assert "Link 3 from link 1: linear acceleration of the frame origin" in titles
    assert verify(_placed_y_chain()).holds
