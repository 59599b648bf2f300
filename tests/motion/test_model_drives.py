"""A model file's elastic joints and DC motors in the numeric model: the file's springs are
the hand-built ``ElasticJoints`` on the arm without the motors (1e-12), the rotor counted
once (a link and its motor oscillate at ``w^2 = K (1/B + 1/(m l^2))``, by hand; stiff
joints move as the rigid arm with its armature, within O(1/K)); the file's DC motors are the
hand-built ``DCMotor`` (1e-12), a stalled motor draws ``R i^2`` with
``i = tau / (G eta k_t)`` (by hand), and with ideal gears the energy drawn is the joints'
work plus the copper loss (the motor's power balance, written out in the test)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import write_model
from robodyn.core.errors import InputError
from robodyn.motion.elastic import (
    ElasticComputedTorque,
    ElasticJoints,
    elastic_forward_dynamics,
    simulate_elastic,
    springs_of,
    without_springs,
)
from robodyn.motion.electrics import DCMotor, electrics
from robodyn.motion.trajectory import Motion

pytestmark = pytest.mark.usefixtures("numpy_backend")

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "yaml" / "elastic_2r.yaml"

#: The fixture's arm with plain motors (no rotor, no springs, no electrics).
PLAIN = """\
name: plain-2r
planar: true
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 1.0, mass: 1.0, com: [-0.5, 0, 0], inertia: [0, 0, 0.08, 0, 0, 0],
     motor: {gear_ratio: 50, efficiency: 0.9}}
  - {joint: revolute, a: 0.8, mass: 0.6, com: [-0.4, 0, 0], inertia: [0, 0, 0.03, 0, 0, 0],
     motor: {gear_ratio: 40}}
"""


def test_the_files_springs_are_the_hand_built_ones_on_the_arm_without_rotors(tmp_path):
    """``B = G^2 J_m``: 0.25 and 0.08 by hand; the file's arm (rotors on the motor side) and
    the plain arm (no rotors) with hand-built springs give the same accelerations."""
    robot = rd.load(str(FIXTURE))
    plain = rd.load(str(write_model(tmp_path, PLAIN)))
    hand = ElasticJoints.of(plain, [5000.0, 3000.0], [50**2 * 1e-4, 40**2 * 5e-5],
                            damping=[2.0, 1.0])
    springs = springs_of(robot.numeric_chain)
    for name in ("stiffness", "motor_inertia", "damping"):
        np.testing.assert_allclose(getattr(springs, name), getattr(hand, name), rtol=1e-12)
    rng = np.random.default_rng(3)
    q, th, qd, thd = rng.normal(size=(4, 5, 2))
    tau = rng.normal(size=(5, 2))
    got = elastic_forward_dynamics(robot, springs, q, th, qd, thd, tau)
    want = elastic_forward_dynamics(plain, hand, q, th, qd, thd, tau)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    run = simulate_elastic(robot, None, [0.3, -0.2], duration=0.3, dt=0.01, rtol=1e-9)
    ref = simulate_elastic(plain, hand, [0.3, -0.2], duration=0.3, dt=0.01, rtol=1e-9)
    np.testing.assert_allclose(run.q, ref.q, atol=1e-9)     # 0 here: the same arm
    np.testing.assert_allclose(run.theta, ref.theta, atol=1e-9)


PENDULUM = """\
name: elastic-pendulum
planar: true
gravity: [0, 0, 0]
links:
  - {joint: revolute, a: 0.5, mass: 2.0, com: [0, 0, 0],
     motor: {inertia: 1.0e-4, gear_ratio: 60, stiffness: 400}}
"""


@pytest.mark.slow
def test_a_link_and_its_rotor_oscillate_at_the_two_inertia_frequency(tmp_path):
    """No gravity (a pendulum in a horizontal plane), no torque: a point mass ``m`` at
    ``l`` (``I = m l^2 = 0.5``) and the rotor ``B = G^2 J_m = 0.36`` on a spring ``K =
    400``: ``theta - q = delta cos(w t)``, ``w^2 = K (1/B + 1/(m l^2))``. Were the rotor also
    on the link side, ``I`` would be ``0.86`` and ``w`` 12 % lower."""
    robot = rd.load(str(write_model(tmp_path, PENDULUM)))
    delta = 0.01
    run = simulate_elastic(robot, None, [0.0], theta0=[delta], duration=1.0, dt=1e-3,
                           rtol=1e-10, atol=1e-12)
    w = np.sqrt(400.0 * (1 / 0.36 + 1 / (2.0 * 0.5**2)))
    np.testing.assert_allclose((run.theta - run.q)[:, 0], delta * np.cos(w * run.t), atol=1e-8)
    np.testing.assert_allclose(0.5 * run.q[:, 0] + 0.36 * run.theta[:, 0], 0.36 * delta,
                               atol=1e-10)


def test_rd_simulate_refuses_springs_and_points_to_simulate_elastic():
    robot = rd.load(str(FIXTURE))
    with pytest.raises(InputError, match=r"rd\.simulate: elastic-2r's joints are elastic "
                                         r"\(motor\.stiffness\).*simulate_elastic"):
        rd.simulate(robot, [0.1, 0.2], duration=0.1, progress=False)
    with pytest.raises(InputError, match=r"rd\.rollout: .*simulate_elastic"):
        rd.rollout(robot, [[0.1, 0.2]], duration=0.1, dt=0.01, progress=False)
    rigid = without_springs(robot)
    assert springs_of(rigid.numeric_chain) is None and "K1" not in rigid.symbols
    np.testing.assert_allclose(rigid.mass_matrix([0.1, 0.2]), robot.mass_matrix([0.1, 0.2]),
                               rtol=1e-15)


def test_springs_by_hand_must_repeat_the_models_rotor():
    robot = rd.load(str(FIXTURE))
    with pytest.raises(InputError, match=r"springs\.motor_inertia\[0\]: 0\.3, but the model's "
                                         r"rotor gives joint 1 G\^2 J_m = 0\.25"):
        simulate_elastic(robot, ElasticJoints.of(robot, 5000.0, [0.3, 0.08]), [0.0, 0.0],
                         duration=0.1, dt=0.01)
    with pytest.raises(InputError, match=r"springs: the model gives its joints no stiffness"):
        simulate_elastic(rd.load("planar-2r"), None, [0.0, 0.0], duration=0.1, dt=0.01)


def _rigid(robot, q0, torque, times):
    """The rigid arm ``M q'' + bias = tau`` (``M`` with the armature, once) by SciPy's RK45."""
    from scipy.integrate import solve_ivp

    n = robot.dof

    def rhs(t, x):
        q, qd = x[:n], x[n:]
        bias = robot.inverse_dynamics(q, qd, np.zeros(n))
        return np.concatenate([qd, np.linalg.solve(robot.mass_matrix(q), torque(t) - bias)])

    sol = solve_ivp(rhs, (times[0], times[-1]), np.concatenate([q0, np.zeros(n)]),
                    t_eval=times, rtol=1e-11, atol=1e-12)
    return sol.y[:n].T


STIFF = """\
name: stiff-2r
planar: true
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 1.0, mass: 1.0, com: [-0.5, 0, 0], inertia: [0, 0, 0.08, 0, 0, 0],
     motor: {inertia: 8.0e-5, gear_ratio: 50, stiffness: K, spring_damping: D1}}
  - {joint: revolute, a: 0.8, mass: 0.6, com: [-0.4, 0, 0], inertia: [0, 0, 0.03, 0, 0, 0],
     motor: {inertia: 6.25e-5, gear_ratio: 40, stiffness: K, spring_damping: D2}}
values: {K: 1000, D1: 0, D2: 0}
"""


def test_stiff_model_joints_move_as_the_rigid_arm_with_its_rotors_within_one_over_k(tmp_path):
    """The file's ``K -> inf``: within O(1/K) of the rigid arm whose ``M`` holds the
    armature ``G^2 J_m`` (0.2, 0.1) once; counted twice, the error would not shrink."""
    robot = rd.load(str(write_model(tmp_path, STIFF)))
    rigid = without_springs(robot)
    q0 = np.array([0.3, 0.6])
    g0 = rigid.gravity_torques(q0)

    def torque(t):
        return g0 + np.array([2.0, -1.0]) * np.sin(3.0 * t)

    times = np.arange(0.0, 1.0 + 1e-9, 1e-2)
    reference = _rigid(rigid, q0, torque, times)
    errors = []
    for K in (1e3, 1e4, 1e5):
        stiff = robot.with_values(K=K, D1=1.4 * np.sqrt(K * 0.2), D2=1.4 * np.sqrt(K * 0.1))
        run = simulate_elastic(stiff, None, q0, duration=1.0, dt=1e-2,
                               tau=lambda t, *_: torque(t))
        errors.append(np.abs(run.q - reference).max())
    assert errors[2] < 1e-3
    assert errors[1] / errors[2] > 5 and errors[0] / errors[1] > 5   # O(1/K)


def test_the_controller_takes_the_models_springs_and_counts_the_rotor_once():
    """On the rigid model (``K -> inf``), ``ElasticComputedTorque``'s torque is the rigid
    model's inverse dynamics of ``y`` (``M`` with the armature once) at ``theta = q``."""
    robot = rd.load(str(FIXTURE))
    ref = rd.trajectory.quintic([0.0, 0.5], [0.8, -0.2], 1.0)
    ctl = ElasticComputedTorque(robot, None, ref, kp=100.0, kd=20.0)
    q, qd = np.array([0.1, 0.4]), np.array([0.2, -0.1])
    q_ref, qd_ref, qdd_ref = ref(0.3)
    y = qdd_ref + 20.0 * (qd_ref - qd) + 100.0 * (q_ref - q)
    np.testing.assert_allclose(ctl(0.3, q, q, qd, qd),
                               without_springs(robot).inverse_dynamics(q, qd, y), rtol=1e-12)


def test_the_files_dc_motors_are_the_hand_built_ones():
    robot = rd.load(str(FIXTURE))
    motion = rd.trajectory.quintic([0.0, 0.3], [1.0, -0.4], 1.0).sample(1e-3)
    got = electrics(robot, motion)
    want = electrics(robot, motion, [DCMotor(1.2, 0.05, 1e-3), DCMotor(2.0, 0.04, 0.0, 0.04)])
    for name in ("current", "voltage", "power", "energy", "copper_loss"):
        np.testing.assert_allclose(getattr(got, name), getattr(want, name), rtol=1e-12,
                                   atol=1e-12)
    with pytest.raises(InputError, match="motors: the model gives its joints no DC motors"):
        electrics(rd.load("planar-2r"), motion)


def test_a_stalled_motor_draws_its_copper_loss():
    """Held still at ``q`` against gravity: joint 1 carries ``tau = g (m1 c1 + m2 l1) cos q1
    + g m2 c2 cos(q1 + q2)`` (``c``: the centres' distances 0.5, 0.4), ``i = tau / (G eta
    k_t)`` (G 50, eta 0.9, k_t 0.05), ``P = R i^2`` (R 1.2) for 2 s."""
    robot = rd.load(str(FIXTURE))
    q = np.array([0.4, 0.7])
    t = np.linspace(0.0, 2.0, 101)
    still = Motion(t, np.tile(q, (101, 1)), np.zeros((101, 2)), np.zeros((101, 2)))
    out = electrics(robot, still)
    g = 9.81
    tau1 = g * (1.0 * 0.5 + 0.6 * 1.0) * np.cos(q[0]) + g * 0.6 * 0.4 * np.cos(q.sum())
    i1 = tau1 / (50 * 0.9 * 0.05)
    np.testing.assert_allclose(out.current[:, 0], i1, rtol=1e-12)
    np.testing.assert_allclose(out.power[:, 0], 1.2 * i1**2, rtol=1e-12)
    assert out.energy[0] == pytest.approx(1.2 * i1**2 * 2.0, rel=1e-12)
    assert out.copper_loss[0] == pytest.approx(out.energy[0], rel=1e-12)


IDEAL = """\
name: ideal-drives
planar: true
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 1.0, mass: 1.0, com: [-0.5, 0, 0], inertia: [0, 0, 0.08, 0, 0, 0],
     motor: {inertia: 1.0e-4, gear_ratio: 50, resistance: 1.2, torque_constant: 0.05}}
  - {joint: revolute, a: 0.8, mass: 0.6, com: [-0.4, 0, 0], inertia: [0, 0, 0.03, 0, 0, 0],
     motor: {inertia: 5.0e-5, gear_ratio: 40, resistance: 2.0, torque_constant: 0.04}}
"""


def test_the_energy_drawn_is_the_joints_work_plus_the_copper_loss(tmp_path):
    """Ideal gears, no inductance, ``k_b = k_t``: ``P = R i^2 + k_t i G qd`` with ``i =
    tau / (G k_t)`` (the rotor's ``J_m G qdd`` plus ``(tau - G^2 J_m qdd) / G``), so the
    energy drawn is ``∫ tau . qd dt + ∫ R (tau / (G k_t))^2 dt`` — both trapezoids over the
    same samples (1e-10 relative), ``tau`` the arm's inverse dynamics with the rotors."""
    robot = rd.load(str(write_model(tmp_path, IDEAL)))
    motion = rd.trajectory.quintic([0.0, 0.3], [1.0, -0.4], 1.0).sample(1e-3)
    out = electrics(robot, motion)
    tau = robot.inverse_dynamics(motion.q, motion.qd, motion.qdd)
    dt = np.diff(motion.t)

    def trapezoid(y):
        return float(np.sum(0.5 * dt * (y[1:] + y[:-1])))

    work = trapezoid(np.sum(tau * motion.qd, axis=1))
    i = tau / (np.array([50.0, 40.0]) * np.array([0.05, 0.04]))
    copper = trapezoid(np.sum(np.array([1.2, 2.0]) * i * i, axis=1))
    assert out.drawn == pytest.approx(work + copper, rel=1e-10)
    assert out.copper_loss.sum() == pytest.approx(copper, rel=1e-10)


SYMBOLIC = """\
name: elastic-pendulum-symbols
gravity: [0, -g, 0]
links:
  - {joint: revolute, a: l, mass: m, com: [0, 0, 0],
     motor: {inertia: Jm, gear_ratio: G, stiffness: K, spring_damping: D}}
values: {l: 0.5, m: 2.0, Jm: 1.0e-4, G: 60, K: 400, D: 0.1}
"""


def test_the_closed_forms_of_a_files_springs_count_the_rotor_once(tmp_path):
    """A point mass ``m`` at ``l`` on an elastic joint, by hand: link side ``m l^2 q'' +
    m g l cos q - K (theta - q) - D (theta' - q') = 0``, motor side ``G^2 J_m theta'' +
    K (theta - q) + D (theta' - q') = tau`` (the rigid model's ``M = m l^2 + G^2 J_m``
    loses its armature to the motor side)."""
    import sympy as sp

    from robodyn.symbolic.elastic import elastic_equations

    robot = rd.load(str(write_model(tmp_path, SYMBOLIC)))
    eq = robot.equations()
    el = elastic_equations(eq, chain=robot.chain)
    (q,), (qd,), (qdd,) = eq.q, eq.qd, eq.qdd
    m, l, g, G, Jm, K, D = sp.symbols("m l g G Jm K D")
    th, thd, thdd = sp.symbols("theta1 thetad1 thetadd1")
    spring = K * (th - q) + D * (thd - qd)
    assert sp.simplify(el.link[0] - (m * l**2 * qdd + m * g * l * sp.cos(q) - spring)) == 0
    assert sp.simplify(el.motor[0] - (G**2 * Jm * thdd + spring)) == 0
    with pytest.raises(ValueError, match="every joint's motor needs a stiffness"):
        elastic_equations(rd.load("pendulum").equations(), chain=rd.load("pendulum").chain)
