"""Kinetic and potential energy: closed forms of the seeds and the identities that tie
them to M(q) and g(q)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES, random_states


def test_pendulum_energies_closed_form():
    # seed 002: T = 1/2 (Izz + m l^2) qd^2, U = -m g0^T p_c with p_c = l (sin q, -cos q)
    robot = rd.load("pendulum")
    v = robot.values
    q = np.linspace(-3, 3, 13)[:, None]
    qd = np.linspace(-2, 2, 13)[:, None]
    np.testing.assert_allclose(robot.kinetic_energy(q, qd),
                               0.5 * (v["Izz"] + v["m"] * v["l"] ** 2) * qd[:, 0] ** 2, rtol=1e-13)
    np.testing.assert_allclose(robot.potential_energy(q),
                               -v["m"] * v["g"] * v["l"] * np.cos(q[:, 0]), rtol=1e-13,
                               atol=1e-13)


def test_planar_2r_potential_energy_closed_form():
    # seed 003: U = m1 g c1 sin q1 + m2 g (l1 sin q1 + c2 sin(q1 + q2)), gravity along -y0
    robot = rd.load("planar-2r")
    v = robot.values
    q = np.random.default_rng(0).uniform(-3, 3, size=(9, 2))
    expected = v["g"] * (v["m1"] * v["c1"] * np.sin(q[:, 0]) + v["m2"] * (
        v["l1"] * np.sin(q[:, 0]) + v["c2"] * np.sin(q[:, 0] + q[:, 1])))
    np.testing.assert_allclose(robot.potential_energy(q), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_kinetic_energy_is_half_qd_M_qd(robots, name):
    robot = robots[name]
    q, qd, _ = random_states(robot, 8, seed=5)
    expected = 0.5 * np.einsum("ki,kij,kj->k", qd, robot.mass_matrix(q), qd)
    np.testing.assert_allclose(robot.kinetic_energy(q, qd), expected, rtol=1e-11)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_gravity_torques_are_the_gradient_of_potential_energy(robots, name):
    robot = robots[name]
    q, _, _ = random_states(robot, 4, seed=6)
    h = 1e-6
    grad = np.stack([(robot.potential_energy(q + h * e) - robot.potential_energy(q - h * e))
                     / (2 * h) for e in np.eye(robot.dof)], axis=-1)
    np.testing.assert_allclose(grad, robot.gravity_torques(q), rtol=1e-6, atol=1e-6)


def test_energy_shapes_follow_the_batch(robots):
    robot = robots["planar-3r"]
    q, qd, _ = random_states(robot, 6)
    assert robot.kinetic_energy(q[0], qd[0]).shape == ()
    assert robot.kinetic_energy(q.reshape(2, 3, 3), qd.reshape(2, 3, 3)).shape == (2, 3)
    assert robot.potential_energy(q).shape == (6,)


@pytest.mark.parametrize("name", ["planar-2r", "rp-arm", "puma560", "pendulum"])
def test_torque_parts_are_the_terms_of_the_equation(robots, name):
    robot = robots[name]
    q, qd, qdd = random_states(robot, 5, seed=8)
    h = np.random.default_rng(2).normal(size=(5, 6))
    parts = robot.torque_parts(q, qd, qdd, h_e=h)
    np.testing.assert_allclose(parts.inertial, np.einsum("kij,kj->ki", robot.mass_matrix(q), qdd),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(parts.coriolis,
                               np.einsum("kij,kj->ki", robot.coriolis_matrix(q, qd), qd),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(parts.gravity, robot.gravity_torques(q), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(parts.friction, robot.friction_torques(qd), rtol=1e-12)
    np.testing.assert_allclose(parts.external,
                               np.einsum("kij,ki->kj", robot.jacobian(q), h), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(parts.total, robot.inverse_dynamics(q, qd, qdd, h_e=h),
                               rtol=1e-10, atol=1e-10)
    no_contact = robot.torque_parts(q[0], qd[0], qdd[0])
    assert no_contact.total.shape == (robot.dof,) and not no_contact.external.any()
