"""Elastic joints on some joints only (Spong's model with rigid joints beside them,
robodyn.motion.elastic): a planar 2R arm of two point masses whose joint 1 is rigid (its
rotor's armature in M) and joint 2 elastic (its rotor behind the spring), against the
equations written by hand; ``K -> inf`` is the rigid arm within O(1/K); undamped and
unforced, the energy with the spring's is kept; the controllers reach their goal."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import write_model
from robodyn.core.errors import InputError
from robodyn.motion.elastic import (
    ElasticComputedTorque,
    ElasticJoints,
    elastic_forward_dynamics,
    simulate_elastic,
    springs_of,
    static_deflection,
    without_springs,
)
from robodyn.motion.elastic_control import ElasticPDGravity

pytestmark = pytest.mark.usefixtures("numpy_backend")

#: Two point masses at the links' ends (DH frames at the distal joints), joint 1 rigid with
#: a rotor (B1 = 40^2 1e-4 = 0.16), joint 2 elastic (B2 = 50^2 5e-5 = 0.125).
PARTIAL = """\
name: partial-2r
planar: true
gravity: [0, -g, 0]
links:
  - {joint: revolute, a: l1, mass: m1, com: [0, 0, 0], friction: {viscous: fv1},
     motor: {inertia: J1, gear_ratio: G1}}
  - {joint: revolute, a: l2, mass: m2, com: [0, 0, 0], friction: {viscous: fv2},
     motor: {inertia: J2, gear_ratio: G2, stiffness: K, spring_damping: D}}
values: {l1: 0.7, l2: 0.5, m1: 1.3, m2: 0.8, g: 9.81, fv1: 0.2, fv2: 0.1, J1: 1.0e-4,
         G1: 40, J2: 5.0e-5, G2: 50, K: 2000, D: 0.5}
"""
V = dict(l1=0.7, l2=0.5, m1=1.3, m2=0.8, g=9.81, fv1=0.2, fv2=0.1, B1=0.16, B2=0.125,
         K=2000.0, D=0.5)


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    return rd.load(str(write_model(tmp_path_factory.mktemp("partial"), PARTIAL)))


def _hand(q, qd, v=V, c=np.cos, s=np.sin):
    """The rigid 2R of point masses by hand: ``M`` (joint 1's rotor ``B1`` on ``M11``; joint
    2's rotor not: it is behind the spring), and ``h = C q' + F + g``."""
    l1, l2, m1, m2, g = v["l1"], v["l2"], v["m1"], v["m2"], v["g"]
    c2, s2, c1, c12 = c(q[1]), s(q[1]), c(q[0]), c(q[0] + q[1])
    M11 = m1 * l1**2 + m2 * (l1**2 + l2**2 + 2 * l1 * l2 * c2) + v["B1"]
    M12 = m2 * (l2**2 + l1 * l2 * c2)
    M22 = m2 * l2**2
    h1 = (-m2 * l1 * l2 * s2 * (2 * qd[0] * qd[1] + qd[1]**2)
          + (m1 + m2) * g * l1 * c1 + m2 * g * l2 * c12 + v["fv1"] * qd[0])
    h2 = m2 * l1 * l2 * s2 * qd[0]**2 + m2 * g * l2 * c12 + v["fv2"] * qd[1]
    return [[M11, M12], [M12, M22]], [h1, h2]


def test_the_accelerations_are_the_hand_derived_ones(arm):
    """``(M + B1 e1 e1^T) q'' + h = (tau1, K (theta - q2) + D (theta' - q2'))``, ``B2
    theta'' = tau2 - K (theta - q2) - D (theta' - q2')`` at random states, to 1e-12."""
    springs = springs_of(arm.numeric_chain)
    assert springs.joints == (1,)
    np.testing.assert_allclose([springs.stiffness[0], springs.motor_inertia[0],
                                springs.damping[0]], [2000.0, 0.125, 0.5], rtol=1e-12)
    rng = np.random.default_rng(7)
    for _ in range(5):
        q, qd, tau = rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2), rng.uniform(-5, 5, 2)
        th, thd = q[1] + rng.uniform(-0.05, 0.05, 1), rng.uniform(-2, 2, 1)
        qdd, thdd = elastic_forward_dynamics(arm, springs, q, th, qd, thd, tau)
        M, h = _hand(q, qd)
        spring = V["K"] * (th[0] - q[1]) + V["D"] * (thd[0] - qd[1])
        want = np.linalg.solve(M, [tau[0] - h[0], spring - h[1]])
        np.testing.assert_allclose(qdd, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(thdd, [(tau[1] - spring) / V["B2"]], rtol=1e-12,
                                   atol=1e-12)
    held = static_deflection(arm, springs, [0.4, -0.3])   # K (theta - q2) = g2 at rest
    g2 = V["m2"] * V["g"] * V["l2"] * np.cos(0.1)
    np.testing.assert_allclose(held, [-0.3 + g2 / V["K"]], rtol=1e-12)


def test_the_closed_forms_are_the_hand_derived_ones(arm):
    """The same equations with the model's symbols: link row 1 = ``tau1`` (rigid, ``G1^2
    J1`` in ``M11``), link row 2 = 0 (the spring moved left, no ``G2^2 J2``), one motor
    row ``G2^2 J2 theta2'' + spring = tau2``."""
    from robodyn.symbolic.elastic import elastic_equations

    eq = arm.equations()
    el = elastic_equations(eq, chain=arm.chain)
    q1, q2 = eq.q
    qd1, qd2 = eq.qd
    qdd1, qdd2 = eq.qdd
    names = "l1 l2 m1 m2 g fv1 fv2 J1 G1 J2 G2 K D"
    l1, l2, m1, m2, g, fv1, fv2, J1, G1, J2, G2, K, D = sp.symbols(names)
    th, thd, thdd = sp.symbols("theta2 thetad2 thetadd2")
    v = dict(l1=l1, l2=l2, m1=m1, m2=m2, g=g, fv1=fv1, fv2=fv2, B1=G1**2 * J1, B2=0, K=K,
             D=D)
    M, h = _hand((q1, q2), (qd1, qd2), v, sp.cos, sp.sin)
    spring = K * (th - q2) + D * (thd - qd2)
    assert el.joints == (1,) and el.theta == (th,)
    assert sp.simplify(el.link[0] - (M[0][0] * qdd1 + M[0][1] * qdd2 + h[0])) == 0
    assert sp.simplify(el.link[1] - (M[1][0] * qdd1 + M[1][1] * qdd2 + h[1] - spring)) == 0
    assert sp.simplify(el.motor[0] - (G2**2 * J2 * thdd + spring)) == 0
    text = el.text()
    assert "Elastic joints 2 of partial-2r" in text and " = tau1" in text.split("(2)")[0]
    with pytest.raises(ValueError, match=r"joints: \[2\]; give the elastic joints' indices"):
        elastic_equations(eq, joints=[2])


def _rigid(robot, q0, torque, times):
    """The rigid arm ``M q'' + bias = tau`` (``M`` with both rotors) by SciPy's RK45."""
    from scipy.integrate import solve_ivp

    def rhs(t, x):
        q, qd = x[:2], x[2:]
        bias = robot.inverse_dynamics(q, qd, np.zeros(2))
        return np.concatenate([qd, np.linalg.solve(robot.mass_matrix(q), torque(t) - bias)])

    sol = solve_ivp(rhs, (times[0], times[-1]), np.concatenate([q0, np.zeros(2)]),
                    t_eval=times, rtol=1e-11, atol=1e-12)
    return sol.y[:2].T


def test_stiff_joint_2_moves_as_the_rigid_arm_within_one_over_k(arm):
    rigid = without_springs(arm)
    q0 = np.array([0.3, 0.6])
    g0 = rigid.gravity_torques(q0)

    def torque(t):
        return g0 + np.array([2.0, -1.0]) * np.sin(4.0 * t)

    times = np.arange(0.0, 0.6 + 1e-9, 1e-2)
    reference = _rigid(rigid, q0, torque, times)
    errors = []
    for K in (1e3, 1e4, 1e5):
        stiff = arm.with_values(K=K, D=1.4 * np.sqrt(K * V["B2"]))
        run = simulate_elastic(stiff, None, q0, duration=0.6, dt=1e-2,
                               tau=lambda t, *_: torque(t))
        errors.append(np.abs(run.q - reference).max())
    ratios = errors[0] / errors[1], errors[1] / errors[2]
    # measured: 1.6e-4, 1.7e-5, 1.7e-6 rad; ratios 9.8, 10.0
    assert errors[2] < 1e-3 and 5 < ratios[0] < 20 and 5 < ratios[1] < 20, (errors, ratios)


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_undamped_and_unforced_the_energy_with_the_springs_is_kept(arm):
    """``T + U + 1/2 K (theta - q2)^2`` with ``T = 1/2 q'^T M q' + 1/2 B2 theta'^2`` (``M``
    by hand, joint 1's rotor in it) is constant along a free swing."""
    free = arm.with_values(D=0.0, fv1=0.0, fv2=0.0)
    run = simulate_elastic(free, None, [0.2, -0.4], theta0=[-0.35], qd0=[0.5, 0.0],
                           duration=0.3, dt=1e-2)
    v = dict(V, fv1=0.0, fv2=0.0)
    energy = []
    for q, qd, th, thd in zip(run.q, run.qd, run.theta, run.thetad, strict=True):
        M, _ = _hand(q, qd, v)
        y1, y12 = V["l1"] * np.sin(q[0]), V["l1"] * np.sin(q[0]) + V["l2"] * np.sin(q.sum())
        energy.append(0.5 * qd @ np.array(M) @ qd + 0.5 * V["B2"] * thd[0]**2
                      + V["g"] * (V["m1"] * y1 + V["m2"] * y12)
                      + 0.5 * V["K"] * (th[0] - q[1])**2)
    energy = np.array(energy)
    swing = np.ptp(0.5 * V["K"] * run.deflection[:, 0]**2)
    assert swing > 1e-3                                     # the spring does work
    assert np.abs(energy - energy[0]).max() < 1e-6 * swing    # measured: 1e-8 J of 2.5 J


def test_the_files_partial_springs_are_the_hand_built_ones(arm):
    """Springs by hand on joint 2 of the same arm give the file's run exactly; springs by
    hand on every joint (``joints=[0, 1]``) are today's all-joint springs."""
    hand = ElasticJoints.of(arm, 2000.0, 0.125, damping=0.5, joints=[1])
    file = simulate_elastic(arm, None, [0.3, -0.2], duration=0.1, dt=0.01)
    built = simulate_elastic(arm, hand, [0.3, -0.2], duration=0.1, dt=0.01)
    np.testing.assert_array_equal(file.q, built.q)
    np.testing.assert_array_equal(file.theta, built.theta)
    assert ElasticJoints.of(arm, 1e3, 0.1, joints=[1, 0]).joints is None
    columns = file.columns()
    assert list(columns) == ["t", "q1", "q2", "theta2", "qd1", "qd2", "thetad2", "tau1", "tau2"]


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_the_controllers_reach_their_goal_with_joint_2_elastic():
    """Computed torque (Spong's composite law on joint 2, plain computed torque on joint 1)
    tracks within O(1/K); Tomei's PD with gravity compensation settles at the set point with
    the motor at the static deflection ``q2 + g2(q_d) / K``."""
    arm = rd.load("planar-2r").without_friction()
    q0, goal = np.array([0.0, 0.5]), np.array([0.8, -0.2])
    ref = rd.trajectory.quintic(q0, goal, 1.0)
    peaks = []
    for K in (2e3, 2e4):
        springs = ElasticJoints.of(arm, K, 0.2, joints=[1])
        ctl = ElasticComputedTorque(arm, springs, ref, kp=100.0, kd=20.0,
                                    kv=2 * np.sqrt(K * 0.2))
        run = simulate_elastic(arm, springs, q0, duration=1.0, dt=1e-2, tau=ctl)
        peaks.append(np.abs(run.q - ref(run.t)[0]).max())
    assert peaks[1] < 0.01 and peaks[1] < peaks[0] / 3, peaks
    springs = ElasticJoints.of(arm, 2e3, 0.2, joints=[1])
    pd = ElasticPDGravity(arm, springs, goal, kp=100.0, kd=20.0)
    run = simulate_elastic(arm, springs, q0, duration=3.0, dt=1e-2, tau=pd, rtol=1e-6,
                           atol=1e-8)
    np.testing.assert_allclose(run.q[-1], goal, atol=2e-3)
    np.testing.assert_allclose(run.theta[-1], goal[1] + arm.gravity_torques(goal)[1] / 2e3,
                               atol=2e-3)


def test_bad_partial_springs_are_named():
    arm = rd.load("planar-2r")
    with pytest.raises(InputError, match=r"joints: 2 is not a joint of this robot; give "
                                         r"indices 0 to 1"):
        ElasticJoints.of(arm, 100.0, 0.1, joints=[2])
    with pytest.raises(InputError, match=r"joints: \[1, 1\] names a joint twice"):
        ElasticJoints.of(arm, 100.0, 0.1, joints=[1, 1])
    with pytest.raises(InputError, match=r"joints: expected the elastic joints' indices"):
        ElasticJoints.of(arm, 100.0, 0.1, joints=[0.5])
    with pytest.raises(InputError, match=r"stiffness\[0\]: -1; give a finite number > 0"):
        ElasticJoints.of(arm, -1.0, 0.1, joints=[1])
    springs = ElasticJoints.of(arm, 100.0, 0.1, joints=[1])
    with pytest.raises(InputError, match=r"theta0: expected 1 finite values"):
        simulate_elastic(arm, springs, [0.0, 0.0], theta0=[0.0, 0.0], duration=0.1, dt=0.01)
    with pytest.raises(InputError, match=r"kd\[1\]: 0; an elastic joint's motor needs"):
        ElasticPDGravity(arm, springs, [0.0, 0.0], kp=10.0, kd=[1.0, 0.0])
