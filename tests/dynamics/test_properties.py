"""Properties of the dynamics at random states of every built-in model.

Independent sources: the structure of the Euler–Lagrange equations (M symmetric
positive definite, dM/dt - 2C skew-symmetric with dM/dt by finite differences,
Christoffel symbols by finite differences of M), the agreement of different
algorithms that share only the joint transforms (CRBA vs Newton–Euler, the spatial
Coriolis matrix vs Newton–Euler; forward dynamics computes its bias ``C qd + g`` with
the same Newton–Euler as inverse dynamics, so FD(ID(qdd)) = qdd checks CRBA's M
against Newton–Euler's and the Cholesky solve), and the virtual-work meaning of
J^T h_e with J from finite differences of the forward kinematics.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from conftest import MODEL_NAMES, random_states

N = 20


def _mv(a, x):
    return np.einsum("...ij,...j->...i", a, x)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_mass_matrix_symmetric_positive_definite(robots, name):
    robot = robots[name]
    q, _, _ = random_states(robot, N)
    m = robot.mass_matrix(q)
    np.testing.assert_allclose(m, np.swapaxes(m, -1, -2), rtol=0, atol=1e-12 * np.abs(m).max())
    assert (np.linalg.eigvalsh(m) > 0).all()


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_mass_matrix_columns_are_newton_euler_with_unit_acceleration(robots, name):
    """M e_j = ID(q, 0, e_j) - g(q): CRBA and RNEA are different algorithms (they share
    only the joint transforms)."""
    robot = robots[name]
    q, _, _ = random_states(robot, N)
    m = robot.mass_matrix(q)
    zero = np.zeros_like(q)
    g = robot.gravity_torques(q)
    for j in range(robot.dof):
        unit = np.zeros_like(q)
        unit[:, j] = 1
        col = robot.inverse_dynamics(q, zero, unit) - g
        np.testing.assert_allclose(m[:, :, j], col, rtol=1e-10, atol=1e-10 * np.abs(m).max())


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_coriolis_times_qd_is_newton_euler_bias(robots, name):
    """C(q, qd) qd = ID(q, qd, 0) - g(q) - friction(qd)."""
    robot = robots[name]
    q, qd, _ = random_states(robot, N)
    c = robot.coriolis_matrix(q, qd)
    bias = robot.inverse_dynamics(q, qd, np.zeros_like(q)) - robot.gravity_torques(q) \
        - robot.friction_torques(qd)
    scale = max(1.0, np.abs(bias).max())
    np.testing.assert_allclose(_mv(c, qd), bias, rtol=1e-10, atol=1e-10 * scale)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_mdot_minus_2c_is_skew_symmetric(robots, name):
    robot = robots[name]
    q, qd, _ = random_states(robot, N, seed=1)
    eps = 1e-6
    mdot = (robot.mass_matrix(q + eps * qd) - robot.mass_matrix(q - eps * qd)) / (2 * eps)
    n = mdot - 2 * robot.coriolis_matrix(q, qd)
    scale = max(1.0, np.abs(mdot).max())
    np.testing.assert_allclose(n, -np.swapaxes(n, -1, -2), rtol=0, atol=1e-6 * scale)


@pytest.mark.parametrize("name", ["planar-3r", "rp-arm", "puma560"])
def test_coriolis_matrix_is_christoffel_form(robots, name):
    """C_ij = sum_k 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) qd_k (Siciliano eq. 7.44)."""
    robot = robots[name]
    q, qd, _ = random_states(robot, 5, seed=2)
    n, eps = robot.dof, 1e-6
    dm = []
    for k in range(n):
        step = np.zeros(n)
        step[k] = eps
        dm.append((robot.mass_matrix(q + step) - robot.mass_matrix(q - step)) / (2 * eps))
    expected = np.zeros((len(q), n, n))
    for i, j, k in itertools.product(range(n), repeat=3):
        expected[:, i, j] += 0.5 * (dm[k][:, i, j] + dm[j][:, i, k] - dm[i][:, j, k]) * qd[:, k]
    scale = max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(robot.coriolis_matrix(q, qd), expected, rtol=0, atol=1e-6 * scale)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_forward_dynamics_inverts_inverse_dynamics(robots, name):
    robot = robots[name]
    q, qd, qdd = random_states(robot, N, seed=3)
    tau = robot.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau), qdd, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_inverse_dynamics_is_m_qdd_plus_c_qd_plus_friction_plus_g(robots, name):
    robot = robots[name]
    q, qd, qdd = random_states(robot, N, seed=4)
    expected = _mv(robot.mass_matrix(q), qdd) + _mv(robot.coriolis_matrix(q, qd), qd) \
        + robot.friction_torques(qd) + robot.gravity_torques(q)
    tau = robot.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(tau, expected, rtol=1e-10, atol=1e-10 * np.abs(tau).max())


def test_friction_enters_with_the_sign_of_the_velocity(robots):
    """Pendulum: tau = I qdd + F qd + m g l sin q; friction opposes motion, so a
    positive velocity needs more torque (seed 002)."""
    robot = robots["pendulum"].with_values(F=0.7)
    q = np.array([0.3])
    up = robot.inverse_dynamics(q, np.array([2.0]), np.zeros(1))
    rest = robot.inverse_dynamics(q, np.zeros(1), np.zeros(1))
    down = robot.inverse_dynamics(q, np.array([-2.0]), np.zeros(1))
    np.testing.assert_allclose(up - rest, [0.7 * 2.0])
    np.testing.assert_allclose(down - rest, [-0.7 * 2.0])
    np.testing.assert_allclose(robot.friction_torques(np.array([2.0])), [1.4])


def test_coulomb_friction_is_sign_of_velocity(tmp_path):
    import robodyn as rd

    path = tmp_path / "slider.yaml"
    path.write_text(
        "name: slider\ngravity: [0, 0, -g]\nlinks:\n"
        "  - {joint: prismatic, mass: m, friction: {viscous: 0.5, coulomb: 2.0}}\n"
        "values: {m: 3.0, g: 9.81}\n"
    )
    robot = rd.load(path)
    qd = np.array([[1.5], [0.0], [-1.5]])
    np.testing.assert_allclose(robot.friction_torques(qd), [[0.75 + 2], [0.0], [-0.75 - 2]])
    # a vertical slider: tau = m qdd + m g + friction
    tau = robot.inverse_dynamics(np.zeros((3, 1)), qd, np.full((3, 1), 0.2))
    np.testing.assert_allclose(tau, 3.0 * 0.2 + 3.0 * 9.81 + robot.friction_torques(qd))


def _fk_jacobian(robot, q, eps=1e-6):
    """Geometric Jacobian from finite differences of the forward kinematics."""
    jac = np.zeros((6, robot.dof))
    t0 = robot.forward_kinematics(q)
    for k in range(robot.dof):
        step = np.zeros(robot.dof)
        step[k] = eps
        tp, tm = robot.forward_kinematics(q + step), robot.forward_kinematics(q - step)
        jac[:3, k] = (tp[:3, 3] - tm[:3, 3]) / (2 * eps)
        rdot = (tp[:3, :3] - tm[:3, :3]) / (2 * eps)
        w = rdot @ t0[:3, :3].T  # [w]x = Rdot R^T
        jac[3:, k] = [w[2, 1], w[0, 2], w[1, 0]]
    return jac


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_jacobian_matches_finite_differences_of_forward_kinematics(robots, name):
    robot = robots[name]
    q, _, _ = random_states(robot, 3, seed=5)
    for qi in q:
        np.testing.assert_allclose(robot.jacobian(qi), _fk_jacobian(robot, qi), atol=1e-7)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_contact_wrench_enters_as_plus_j_transpose_h(robots, name):
    """tau(h_e) - tau(0) = J^T h_e, J independent of the Jacobian kernel; and forward
    dynamics with the same wrench gives back qdd."""
    robot = robots[name]
    q, qd, qdd = random_states(robot, 3, seed=6)
    h = np.random.default_rng(7).normal(size=(3, 6))
    tau0 = robot.inverse_dynamics(q, qd, qdd)
    tau = robot.inverse_dynamics(q, qd, qdd, h_e=h)
    for k in range(3):
        np.testing.assert_allclose(tau[k] - tau0[k], _fk_jacobian(robot, q[k]).T @ h[k], atol=1e-6)
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau, h_e=h), qdd, rtol=1e-9, atol=1e-9)


def test_pushing_down_on_the_environment_costs_torque(robots):
    """Planar 2R stretched along x0: pressing down (-y) on the environment with force f
    needs an extra tau1 = -(l1 + l2) f (the arm must rotate clockwise)."""
    robot = robots["planar-2r"]
    values = robot.values
    q = np.zeros(2)
    h = np.array([0.0, -5.0, 0.0, 0.0, 0.0, 0.0])
    extra = robot.inverse_dynamics(q, q, q, h_e=h) - robot.inverse_dynamics(q, q, q)
    length = values["l1"] + values["l2"]
    np.testing.assert_allclose(extra, [-5.0 * length, -5.0 * values["l2"]], atol=1e-12)
