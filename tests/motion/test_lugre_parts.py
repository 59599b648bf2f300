"""LuGre friction in the torque parts (with the bristle deflections z given) and an
end-effector wrench h_e in method='lugre' runs: the parts add up to the inverse dynamics
plus F(qd, z) written here from the paper (Canudas de Wit et al., IEEE TAC 40(3), 1995) and
to the closed form's tau; a run with h_e is the run with the equivalent joint torques
-J(q)^T h_e."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.motion.lugre import lugre_torque_parts

MODEL = """
name: lugre_arm
dh: standard
gravity: [0, -9.81, 0]
lugre: {sigma0: [1.0e4, 2.0e3], sigma1: [100, 5], sigma2: [0.1, 0.3], Fc: [3, 1],
        Fs: [4, 1.5], vs: [0.1, 0.2]}
links:
  - {joint: revolute, a: 0.6, mass: 2.0, com: [-0.3, 0, 0], inertia: [0.03, 0.03, 0.06, 0, 0, 0],
     friction: {viscous: 0.2, coulomb: 0.5}}
  - {joint: revolute, a: 0.4, mass: 1.0, com: [-0.2, 0, 0], inertia: [0.01, 0.01, 0.02, 0, 0, 0]}
"""


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    path = tmp_path_factory.mktemp("lugre") / "arm.yaml"
    path.write_text(MODEL)
    return rd.load(path)


def _by_hand(qd, z):
    """F = sigma0 z + sigma1 dz/dt + sigma2 qd, dz/dt = qd - sigma0 |qd| z / g(qd)."""
    s0, s1, s2 = np.array([1e4, 2e3]), np.array([100.0, 5.0]), np.array([0.1, 0.3])
    g = np.array([3.0, 1.0]) + np.array([1.0, 0.5]) * np.exp(-(qd / np.array([0.1, 0.2])) ** 2)
    return s0 * z + s1 * (qd - s0 * np.abs(qd) * z / g) + s2 * qd


def test_torque_parts_with_z(arm):
    rng = np.random.default_rng(11)
    q, qd, qdd, h_e = (rng.normal(size=(5, k)) for k in (2, 2, 2, 6))
    z = rng.normal(size=(5, 2)) * 3e-4
    parts = lugre_torque_parts(arm, q, qd, qdd, z, h_e)
    force = _by_hand(qd, z)
    np.testing.assert_allclose(parts.total, arm.inverse_dynamics(q, qd, qdd, h_e) + force,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(parts.friction, arm.friction_torques(qd) + force, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(sum(getattr(parts, k) for k in parts.NAMES), parts.total,
                               rtol=1e-12, atol=1e-12)
    # the closed form (LuGre with z as state symbols) gives the same tau without h_e
    num = arm.equations(method="newton-euler").numeric({})
    np.testing.assert_allclose(lugre_torque_parts(arm, q, qd, qdd, z).total,
                               num.tau(q, qd, qdd, z=z), rtol=1e-12, atol=1e-12)
    with pytest.raises(rd.InputError, match="z: expected 2 finite"):
        lugre_torque_parts(arm, q, qd, qdd, z[:, :1])


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_a_wrench_is_its_joint_torques(arm):
    h = np.array([4.0, -6.0, 0.0, 0.0, 0.0, 0.5])
    q0 = [0.4, -0.3]
    options = dict(q0=q0, duration=0.2, method="lugre", sample_dt=0.01)
    with_wrench = rd.simulate(arm, h_e=h, **options)
    equivalent = rd.simulate(arm, tau=lambda t, q, qd: -arm.jacobian(q).T @ h, **options)
    free = rd.simulate(arm, **options)
    assert np.abs(with_wrench.q - free.q).max() > 1e-3  # the wrench moves the arm
    np.testing.assert_allclose(with_wrench.q, equivalent.q, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(with_wrench.info["lugre_z"], equivalent.info["lugre_z"],
                               rtol=1e-6, atol=1e-10)
    # the wrench as a function of the state: the same run
    moving = rd.simulate(arm, h_e=lambda t, q, qd: h, **options)
    np.testing.assert_allclose(moving.q, with_wrench.q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(moving.qdd, with_wrench.qdd, rtol=1e-10, atol=1e-10)
