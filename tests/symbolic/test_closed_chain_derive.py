"""The closed form of a closed mechanism (robodyn.symbolic.closed_chain): Siciliano's
parallelogram arm reduced to its actuated joints.

Oracles: the reduced B and g derived by hand below (Siciliano et al., Robotics, §7.3.3),
and a crank-rocker's effective inertia with the velocity ratios of its loop equation;
the numeric reduced model of robodyn.dynamics.constrained (S^T M S, KKT-free) at random
assembled states; the skew-symmetry of dB/dt - 2C with dB/dt by finite differences.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.core.errors import ModelError
from robodyn.symbolic.closed_chain import linear_closure, reduce


@pytest.fixture(scope="module")
def arm():
    robot = rd.load("parallelogram-arm")
    mech = robot.closed_chain()
    closure = linear_closure(mech, robot.configurations["home"])
    return robot, mech, reduce(robot.equations(), closure)


def _hand(y1, y2):
    """B and g by hand. Actuated y1 = theta_1', y2 = theta_1'' (absolute angles, base axis).
    The parallelogram keeps link 2' parallel to link 1'' (absolute angle y2) and link 3'
    antiparallel to link 1' (angle y1 + pi); with u(a) = (cos a, sin a) the centres of mass:
        p1'  = l1' u(y1)                 (angular rate y1d)
        p2'  = a1' u(y1) + l2' u(y2)     (y2d)
        p3'  = (a1' - l3') u(y1) + a2' u(y2)   (y1d; l3' from joint 3' along u(y1 + pi))
        p1'' = l1'' u(y2)                (y2d)
    |d/dt (A u(y1) + C u(y2))|^2 = A^2 y1d^2 + C^2 y2d^2 + 2 A C cos(y1 - y2) y1d y2d, so
    T = 1/2 yd^T B yd with
        B11 = I1' + m1' l1'^2 + m2' a1'^2 + I3' + m3' (a1' - l3')^2
        B22 = I2' + m2' l2'^2 + m3' a2'^2 + I1'' + m1'' l1''^2
        B12 = (m2' a1' l2' + m3' (a1' - l3') a2') cos(y1 - y2)
    (B12 = 0 for every y, Siciliano's decoupling, when m2' a1' l2' = m3' (l3' - a1') a2').
    U = g * (height of each centre of mass times its mass), gravity along -y:
        g1 = dU/dy1 = g (m1' l1' + m2' a1' + m3' (a1' - l3')) cos y1
        g2 = dU/dy2 = g (m2' l2' + m3' a2' + m1'' l1'') cos y2
    """
    s = sp.symbols("a1p a2p l1p l2p l3p l1pp m1p m2p m3p m1pp I1p I2p I3p I1pp g")
    a1, a2, l1, l2, l3, l1pp, m1, m2, m3, m1pp, I1, I2, I3, I1pp, g = s
    b11 = I1 + m1 * l1**2 + m2 * a1**2 + I3 + m3 * (a1 - l3)**2
    b22 = I2 + m2 * l2**2 + m3 * a2**2 + I1pp + m1pp * l1pp**2
    b12 = (m2 * a1 * l2 + m3 * (a1 - l3) * a2) * sp.cos(y1 - y2)
    B = sp.Matrix([[b11, b12], [b12, b22]])
    G = sp.Matrix([g * (m1 * l1 + m2 * a1 + m3 * (a1 - l3)) * sp.cos(y1),
                   g * (m2 * l2 + m3 * a2 + m1pp * l1pp) * sp.cos(y2)])
    return B, G


def test_closure_is_siciliano_parallelogram(arm):
    _, _, red = arm
    G, c = red.closure.G, red.closure.c
    # theta_2' = theta_1'' - theta_1', theta_3' = pi - theta_2' (the parallelogram's angles)
    assert G == sp.Matrix([[1, 0], [-1, 1], [1, -1], [0, 1]])
    assert c == sp.Matrix([0, 0, sp.pi, 0])


def test_reduced_B_and_g_equal_hand_derivation(arm):
    _, _, red = arm
    B, g = _hand(*red.y)
    assert (red.B - B).applyfunc(sp.expand_trig).applyfunc(sp.expand) == sp.zeros(2, 2)
    assert (red.g - g).applyfunc(sp.expand) == sp.zeros(2, 1)


def _numeric(red, robot):
    values = {sp.Symbol(k): v for k, v in robot.model.values.items()}
    args = list(red.y) + list(red.yd)
    f = [sp.lambdify(args, m.subs(values), "numpy") for m in (red.B, red.C, red.g)]
    return lambda y, yd: [np.array(fi(*y, *yd), dtype=float) for fi in f]


def test_closed_form_equals_numeric_reduced_model(arm):
    robot, mech, red = arm
    f = _numeric(red, robot)
    rng = np.random.default_rng(3)
    home = robot.configurations["home"]
    G = np.array(red.closure.G, dtype=float)
    c = np.array(red.closure.c, dtype=float).ravel()
    a = mech.actuated
    worst = 0.0
    for _ in range(5):
        y = home[a] + rng.uniform(-1, 1, 2)
        yd = rng.uniform(-2, 2, 2)
        q = mech.assemble(y, G @ y + c).q
        B, C, g = f(y, yd)
        S, s = mech.velocity_terms(q, yd)
        h = robot.inverse_dynamics(q, S @ yd, np.zeros(4))
        h_red = S.T @ (h + robot.mass_matrix(q) @ s)          # C_y yd + g_y, numerically
        g_num = S.T @ robot.inverse_dynamics(q, np.zeros(4), np.zeros(4))
        worst = max(worst, np.abs(B - mech.reduced_mass_matrix(q)).max(),
                    np.abs(g.ravel() - g_num).max(), np.abs(C @ yd + g.ravel() - h_red).max())
    assert worst < 1e-10


def test_reduced_Bdot_minus_2C_is_skew(arm):
    robot, _, red = arm
    f = _numeric(red, robot)
    rng = np.random.default_rng(4)
    eps = 1e-6
    for _ in range(5):
        y, yd = rng.uniform(-np.pi, np.pi, 2), rng.uniform(-2, 2, 2)
        Bdot = (f(y + eps * yd, yd)[0] - f(y - eps * yd, yd)[0]) / (2 * eps)
        N = Bdot - 2 * f(y, yd)[1]
        assert np.abs(N + N.T).max() < 1e-8
        assert np.abs(N).max() > 1e-3  # not skew because it is zero


def test_steps_cover_given_tree_constraint_reduction_result(arm):
    _, _, red = arm
    sections = [s.section for s in red.steps]
    assert sections[0] == "Given" and sections[-1] == "Result"
    assert {"Open-tree Lagrangian", "Loop constraint",
            "Reduction to the actuated coordinates"} <= set(sections)
    text = red.text()
    assert "G^T B(q(y)) G" in text and "cos(q1 - q4)" in text
    assert "$\\displaystyle" in red.markdown()


def test_nonlinear_closure_is_refused_with_a_clear_error():
    robot = rd.load("four-bar")
    mech = robot.closed_chain()
    q0 = mech.assemble([0.7], [0.5, 0.5, -1.0]).q  # the crank-rocker's branch
    with pytest.raises(ModelError, match="not linear in the joint angles"):
        linear_closure(mech, q0)


@pytest.mark.slow
def test_cli_derive_closed_chain_steps_and_verify(capsys):
    from robodyn.cli import main

    assert main(["derive", "parallelogram-arm", "--steps", "--verify"]) == 0
    out = capsys.readouterr().out
    for section in ("Given", "Open-tree Lagrangian", "Loop constraint",
                    "Reduction to the actuated coordinates", "Result"):
        assert section in out
    assert "verify: agree to 1e-10" in out
    assert main(["derive", "parallelogram-arm", "--format", "latex"]) == 0
    assert "\\subsection*{Result}" in capsys.readouterr().out
    assert main(["derive", "parallelogram-arm", "--tree", "--format", "text"]) == 0
    assert "tau4" in capsys.readouterr().out  # the open tree: every joint
    assert main(["derive", "four-bar", "--steps", "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert "implicit functions of y" in out and "Lagrange multipliers" in out
    assert "a1*cos(q1) + a2*cos(q1 + q2) + a3*cos(q1 + q2 + q3) - d" in out  # the loop


def test_verify_routes_agree(arm):
    robot, mech, red = arm
    from robodyn.symbolic.closed_chain import verify

    worst = verify(red, mech, robot.model.values, robot.configurations["home"])
    assert max(worst.values()) < 1e-10
    # a wrong closed form is caught: B_y with m1pp added to B22
    wrong = red.__class__(red.y, red.yd, red.B + sp.diag(0, sp.Symbol("m1pp")), red.C,
                          red.g, red.closure, red.steps)
    assert verify(wrong, mech, robot.model.values, robot.configurations["home"])["B_y"] > 0.1


def _four_bar_inertia(v, q):
    """The crank-rocker's effective inertia about the crank, by hand.

    Absolute angles f1 = q1 (crank), f2 = q1 + q2 (coupler), f3 = q1 + q2 + q3 (rocker),
    u(f) = (cos f, sin f), u'(f) = (-sin f, cos f). The loop a1 u(f1) + a2 u(f2) + a3 u(f3)
    = (d, 0) differentiated: a1 w1 u'(f1) + a2 w2 u'(f2) + a3 w3 u'(f3) = 0. With
    u'(a).u(b) = sin(b - a), dotting with u(f3) and with u(f2) gives the velocity ratios
        w2 / w1 = -a1 sin(f3 - f1) / (a2 sin(f3 - f2)),
        w3 / w1 = -a1 sin(f2 - f1) / (a3 sin(f2 - f3)).
    Kinetic energy with w1 = 1 (centres of mass c_i from each link's joint):
        crank:   (I1 + m1 c1^2)
        coupler: m2 |a1 u'(f1) + c2 w2 u'(f2)|^2 + I2 w2^2
                 = m2 (a1^2 + c2^2 w2^2 + 2 a1 c2 w2 cos(f1 - f2)) + I2 w2^2
        rocker:  turns about the ground pivot (its tip), its centre of mass a3 - c3 from it:
                 (I3 + m3 (a3 - c3)^2) w3^2
    and the effective inertia is their sum."""
    f1, f2, f3 = q[0], q[0] + q[1], q[0] + q[1] + q[2]
    w2 = -v["a1"] * np.sin(f3 - f1) / (v["a2"] * np.sin(f3 - f2))
    w3 = -v["a1"] * np.sin(f2 - f1) / (v["a3"] * np.sin(f2 - f3))
    crank = v["I1"] + v["m1"] * v["c1"] ** 2
    coupler = v["m2"] * (v["a1"] ** 2 + v["c2"] ** 2 * w2**2
                         + 2 * v["a1"] * v["c2"] * w2 * np.cos(f1 - f2)) + v["I2"] * w2**2
    rocker = (v["I3"] + v["m3"] * (v["a3"] - v["c3"]) ** 2) * w3**2
    return crank + coupler + rocker


@pytest.mark.slow
def test_four_bar_reduced_inertia_equals_hand_derivation():
    from robodyn.symbolic.closed_chain import implicit_reduction

    robot = rd.load("four-bar")
    mech = robot.closed_chain()
    red = implicit_reduction(robot.equations(), robot.model.chain, mech.actuated)
    v = robot.model.values
    # the built-in's c3 = a3 / 2 would not tell c3 from a3 - c3: other centres of mass
    # (kinematics unchanged, so the same assembled q) for the closed form against the hand
    w = dict(v, c2=0.31, c3=0.13)
    q_ = sp.symbols("q1:4")
    B = sp.lambdify(q_, red.B.subs({sp.Symbol(k): x for k, x in w.items()}))
    B_default = sp.lambdify(q_, red.B.subs({sp.Symbol(k): x for k, x in v.items()}))
    table = {sp.Symbol(k): x for k, x in v.items()}
    phi = sp.lambdify(sp.symbols("q1:4"), red.phi.subs(table))
    q = mech.assemble([0.7], [0.5, 0.5, -1.0]).q
    for crank in (0.7, 1.3, 2.2, -0.4):  # around the crank's turn, on one branch
        q = mech.assemble([crank], q).q
        assert np.abs(np.array(phi(*q), dtype=float)).max() < 1e-12
        hand = _four_bar_inertia(w, q)
        assert abs(float(np.array(B(*q), dtype=float)[0, 0]) - hand) < 1e-10 * max(1, hand)
        numeric = mech.reduced_mass_matrix(q)[0, 0]  # S^T M S of dynamics/constrained.py
        assert abs(float(np.array(B_default(*q), dtype=float)[0, 0]) - numeric) < 1e-10
        assert abs(numeric - _four_bar_inertia(v, q)) < 1e-10


@pytest.mark.slow
def test_verify_implicit_five_bar_and_catches_a_wrong_gravity_or_velocity_term():
    from robodyn.symbolic.closed_chain import assembled_state, implicit_reduction, verify_implicit

    robot = rd.load("five-bar")
    mech = robot.closed_chain()
    eq = robot.equations()
    red = implicit_reduction(eq, robot.model.chain, mech.actuated)
    q0 = assembled_state(mech, np.full(len(eq.q), 0.5))
    worst = verify_implicit(red, mech, robot.model.values, q0, eq.q)
    assert max(worst.values()) < 1e-10
    for wrong in (replace(red, g=2 * red.g), replace(red, h=2 * red.h)):
        assert verify_implicit(wrong, mech, robot.model.values, q0,
                               eq.q)["ydd (multipliers)"] > 1e-3
