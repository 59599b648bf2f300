"""URDF friction (issue 18): ``<dynamics damping friction>`` are viscous and Coulomb
friction, so ``inverse_dynamics`` is Pinocchio's ``rnea`` plus ``friction_torques``, and
``without_friction()`` is the rigid-body robot (``rnea`` itself)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from conftest import GOOD_MODEL, TEST_DATA
from conftest import write_model as write

URDF = TEST_DATA / "urdf" / "payload_2r.urdf"  # joint1: damping 0.5, friction 0.2;
#                                                joint2: damping 0.1


def _states(n=10, seed=7):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-2, 2, (n, 2)), rng.normal(size=(n, 2)) + 0.1,
            rng.normal(size=(n, 2)))


def test_urdf_damping_and_friction_are_viscous_and_coulomb(numpy_backend):
    robot = rd.load(URDF)
    assert [(link.friction.viscous, link.friction.coulomb) for link in robot.numeric_chain.links] \
        == [(0.5, 0.2), (0.1, 0.0)]
    _, qd, _ = _states()
    expected = np.stack([0.5 * qd[:, 0] + 0.2 * np.sign(qd[:, 0]), 0.1 * qd[:, 1]], axis=-1)
    np.testing.assert_allclose(robot.friction_torques(qd), expected, rtol=1e-15, atol=1e-15)


def test_inverse_dynamics_is_rnea_plus_friction_and_without_friction_is_rnea(numpy_backend):
    pin = pytest.importorskip("pinocchio", reason="Pinocchio is the reference (pip install pin)")
    model = pin.buildModelFromUrdf(str(URDF))
    model.gravity = pin.Motion(np.array([0.0, 0.0, -9.81, 0.0, 0.0, 0.0]))
    data = model.createData()
    assert model.nq == model.nv == 2  # revolute joints with limits: one number each
    robot = rd.load(URDF)
    rigid = robot.without_friction()
    q, qd, qdd = _states()
    rnea = np.array([pin.rnea(model, data, a, b, c).copy() for a, b, c in zip(q, qd, qdd)])
    scale = np.abs(rnea).max()
    full = robot.inverse_dynamics(q, qd, qdd)
    assert np.abs(full - rnea).min() > 1e-3  # friction is in it ...
    np.testing.assert_allclose(full - robot.friction_torques(qd), rnea, rtol=1e-10,
                               atol=1e-12 * scale)  # ... and only friction
    np.testing.assert_allclose(rigid.inverse_dynamics(q, qd, qdd), rnea, rtol=1e-10,
                               atol=1e-12 * scale)
    assert not rigid.friction_torques(qd).any()
    np.testing.assert_array_equal(rigid.mass_matrix(q), robot.mass_matrix(q))
    assert robot.friction_torques(qd).any()  # a new robot: the first keeps its friction
    assert rigid.name == robot.name and rigid.dof == robot.dof


def test_without_friction_keeps_motor_inertia_and_drops_friction_symbols(tmp_path, numpy_backend):
    text = GOOD_MODEL.replace("friction: {viscous: Fv1, coulomb: 0}",
                              "friction: {viscous: Fv1, coulomb: Fs1}\n"
                              "    motor: {inertia: Jm1, gear_ratio: 10}")
    text = text.replace("Fv1: 0.1,", "Fv1: 0.1, Fs1: 0.3, Jm1: 1e-4,")
    robot = rd.load(write(tmp_path, text))
    rigid = robot.without_friction()
    assert "Fv1" in robot.values and "Fv1" not in rigid.values and "Fs1" not in rigid.symbols
    assert rigid.values["Jm1"] == 1e-4
    q, qd = np.array([0.3, 0.1]), np.array([0.5, -0.2])
    np.testing.assert_allclose(rigid.mass_matrix(q), robot.mass_matrix(q), rtol=1e-15)
    np.testing.assert_allclose(robot.friction_torques(qd), [0.1 * 0.5 + 0.3, 0.0], rtol=1e-15)
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, 0.0) - rigid.inverse_dynamics(
        q, qd, 0.0), robot.friction_torques(qd), rtol=1e-12, atol=1e-14)
    # the Toolbox's default nofriction() removes only Coulomb friction: say which
    coulomb_only = robot.without_friction(viscous=False)
    np.testing.assert_allclose(coulomb_only.friction_torques(qd), [0.1 * 0.5, 0.0],
                               rtol=1e-15)
