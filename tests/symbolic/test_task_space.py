"""The closed-form operational space model (robodyn.symbolic.task_space, Siciliano §7.8):
against the numeric Khatib model at random states and values, and against the physics of a
point mass at the tip of a massless 2R arm, whose task-space model is a free particle's:
``B_A = m 1``, ``C_A x' = 0``, ``g_A`` its weight (a hand derivation: the tip is the mass)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.symbolic.task_space import task_space


@pytest.fixture(scope="module")
def planar_2r():
    robot = rd.load("planar-2r")
    return robot, task_space(robot.equations(), rows=(0, 1))


@pytest.mark.slow  # the 2R's closed forms take 10-30 s to simplify
def test_the_closed_forms_equal_the_numeric_operational_space_model(planar_2r):
    robot, ts = planar_2r
    rng = np.random.default_rng(7)
    names = sorted(map(str, robot.equations().params))
    for _ in range(3):
        values = {k: float(rng.uniform(0.3, 2.0)) for k in names}
        arm = robot.with_values(values)
        q = np.array([rng.uniform(-3, 3), rng.uniform(0.3, 2.8)])   # sin q2 != 0
        qd = rng.normal(size=2)
        sub = {**{sp.Symbol(k): v for k, v in values.items()}, **dict(zip(ts.q, q)),
               **dict(zip(ts.qd, qd))}
        ops = arm.operational_space(q, qd, rows=(0, 1))
        np.testing.assert_allclose(np.array(ts.B_A.subs(sub), dtype=float), ops.Lambda,
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.array(ts.C_A_xd.subs(sub), dtype=float).ravel(), ops.mu,
                                   rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(np.array(ts.g_A.subs(sub), dtype=float).ravel(), ops.p,
                                   rtol=1e-12, atol=1e-12)
    assert sp.simplify(ts.det_J - sp.Symbol("l1") * sp.Symbol("l2") * sp.sin(ts.q[1])) == 0


@pytest.mark.slow
def test_a_point_mass_at_the_tip_is_a_free_particle_in_task_space(planar_2r):
    """Links without mass or inertia, all of link 2's mass at the tip (``c2 = l2``): the
    task-space model is the particle's, ``m2 x'' + (0, m2 g) = gamma`` with gravity along
    ``-y``, at every configuration."""
    robot, ts = planar_2r
    m2, g, l2 = sp.symbols("m2 g l2")
    point = {sp.Symbol("m1"): 0, sp.Symbol("I1"): 0, sp.Symbol("I2"): 0, sp.Symbol("c2"): l2}
    assert robot.numeric_chain.gravity[1] < 0  # gravity along -y in this model
    B = ts.B_A.subs(point).applyfunc(sp.simplify)
    assert B == m2 * sp.eye(2)
    assert ts.C_A_xd.subs(point).applyfunc(sp.simplify) == sp.zeros(2, 1)
    assert ts.g_A.subs(point).applyfunc(sp.simplify) == sp.Matrix([0, g * m2])


def test_robodyn_derive_task_space_of_the_cartesian_arm(capsys):
    """Siciliano's two-link Cartesian arm (§7.4): joint 1 lifts both links along z, joint 2
    moves link 2 along x, so in task space ``B_A = diag(m_l2, m_l1 + m_l2)`` for ``(x,
    z)``, no Coriolis force, and ``g_A = (0, (m_l1 + m_l2) g)``: the weight it lifts."""
    assert main(["derive", "cartesian-2p", "--task-space", "x,z", "--steps",
                 "--format", "text"]) == 0
    out = capsys.readouterr().out
    for step in ("analytical Jacobian J_A = dx/dq", "B_A = J_A^-T B J_A^-1",
                 "C_A x' = J_A^-T C q' - B_A J_A' q'", "g_A = J_A^-T g"):
        assert step in out
    ts = task_space(rd.load("cartesian-2p").equations(), rows=(0, 2))
    ml1, ml2, g = sp.symbols("ml1 ml2 g")
    assert ts.B_A.applyfunc(sp.simplify) == sp.diag(ml2, ml1 + ml2)
    assert ts.C_A_xd.applyfunc(sp.simplify) == sp.zeros(2, 1)
    assert ts.g_A.applyfunc(sp.simplify) == sp.Matrix([0, (ml1 + ml2) * g])
    with pytest.raises(SystemExit):
        main(["derive", "cartesian-2p", "--task-space", "x,w"])
    assert "give task coordinates among x, y, z, phi" in capsys.readouterr().err
    assert main(["derive", "cartesian-2p", "--task-space", "x"]) != 0
    assert "needs a square Jacobian" in capsys.readouterr().err
    assert main(["derive", "cartesian-2p", "--task-space", "y,z"]) != 0
    assert "singular at every configuration" in capsys.readouterr().err
