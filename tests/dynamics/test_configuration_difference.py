"""``robot.difference(q0, q1)`` (``q1 ⊖ q0``, the inverse of ``integrate``) on every joint
type against Pinocchio's ``difference``, and PD control with gravity compensation on a model
with quaternion joints: the set point is reached, as the Lyapunov argument on SO(3) says."""

from __future__ import annotations

import numpy as np
import pytest
from test_joint_models import pinocchio_model, random_chain

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.model.chain import Chain, Inertial, Joint, Link, Transform

TREES = [
    (("free", "spherical", "revolute", "prismatic"), (-1, 0, 1, 2)),
    (("spherical", "revolute", "spherical"), (-1, 0, 0)),
]


def _same_configuration(chain: Chain, a: np.ndarray, b: np.ndarray) -> float:
    """The largest difference of two configurations, a quaternion and its negative alike."""
    worst = 0.0
    for link, k in zip(chain.links, chain.q_offsets(), strict=True):
        model = link.joint.model
        x, y = a[..., k:k + model.nq], b[..., k:k + model.nq]
        if model.quaternion is not None:
            j = model.quaternion
            sign = np.sign(np.sum(x[..., j:j + 4] * y[..., j:j + 4], axis=-1, keepdims=True))
            y = np.concatenate([y[..., :j], sign * y[..., j:j + 4]], axis=-1)
        worst = max(worst, float(np.abs(x - y).max()))
    return worst


@pytest.mark.parametrize("kinds, parents", TREES)
def test_difference_is_pinocchios_and_undoes_integrate(kinds, parents):
    pin = pytest.importorskip("pinocchio")
    rng = np.random.default_rng(len(kinds))
    chain = random_chain(rng, kinds, parents)
    model, _ = pinocchio_model(chain)
    robot = rd.Robot("tree", chain)
    # large turns too (up to pi): the logarithm's far branch
    q0 = robot.integrate(robot.neutral(), rng.normal(size=(64, robot.nv)) * 2.0)
    q1 = robot.integrate(robot.neutral(), rng.normal(size=(64, robot.nv)) * 2.0)
    v = robot.difference(q0, q1)
    assert v.shape == (64, robot.nv)
    for k in range(64):
        ref = pin.difference(model, q0[k], q1[k])  # the same layout as Pinocchio's
        np.testing.assert_allclose(v[k], ref, rtol=1e-9, atol=1e-12)
    assert _same_configuration(chain, robot.integrate(q0, v), q1) < 1e-12
    # and near the identity, where the closed forms switch to their series
    for scale in (1e-3, 1e-6, 1e-9):
        step = rng.normal(size=robot.nv) * scale
        np.testing.assert_allclose(robot.difference(q0[0], robot.integrate(q0[0], step)), step,
                                   rtol=0, atol=1e-15 + 1e-6 * scale)


def test_difference_of_one_value_joints_is_the_subtraction():
    arm = rd.load("planar-2r")
    np.testing.assert_array_equal(arm.difference([0.1, 0.2], [[0.5, -0.3]]), [[0.4, -0.5]])


def test_difference_names_the_argument_of_the_wrong_size():
    robot = rd.Robot("tree", random_chain(np.random.default_rng(0), ("free", "revolute"),
                                          (-1, 0)))
    with pytest.raises(InputError, match=r"difference: q1: expected shape \(\.\.\., nq\) "
                                         r"with nq = 8"):
        robot.difference(robot.neutral(), np.zeros(7))


def _ball_pendulum() -> rd.Robot:
    """A body of 2 kg hanging 0.5 m below a ball joint (inertia about its centre of mass
    diag(0.02, 0.03, 0.04))."""
    body = Inertial(2.0, (0.0, 0.0, -0.5), ((0.02, 0, 0), (0, 0.03, 0), (0, 0, 0.04)))
    link = Link("bob", Joint("spherical", (0.0, 0.0, 1.0), 0, Transform.trans()), body)
    return rd.Robot("ball-pendulum", Chain((link,), (0.0, 0.0, -9.81)))


@pytest.mark.slow
def test_pd_with_gravity_compensation_brings_a_ball_joint_to_its_set_point():
    robot = _ball_pendulum()
    tilt = np.array([0.6, -0.4, 0.3])  # a turn of 0.78 rad about a skew axis
    q_ref = robot.integrate(robot.neutral(), tilt)
    law = rd.control.PDGravity(robot, q_ref, kp=20.0, kd=8.0)
    sim = rd.simulate(robot, robot.neutral(), np.zeros(3), 6.0, tau=law, dt=1e-3)
    left = robot.difference(sim.q[-1], q_ref)
    assert np.linalg.norm(left) < 1e-4 and np.linalg.norm(sim.qd[-1]) < 1e-3
    # the Lyapunov function 1/2 qd^T M qd + 1/2 kp |q_ref ⊖ q|^2 never grows (up to the
    # integrator's error): the law is the passive PD of eq. 8.52 on SO(3)
    e = robot.difference(sim.q, q_ref)
    lyapunov = robot.kinetic_energy(sim.q, sim.qd) + 0.5 * 20.0 * np.sum(e * e, axis=-1)
    assert np.all(np.diff(lyapunov) < 1e-6) and lyapunov[-1] < 1e-6 * lyapunov[0]


def test_pd_set_point_of_a_quaternion_model_must_be_a_configuration():
    robot = _ball_pendulum()
    with pytest.raises(InputError, match="q_ref: expected 4 finite values"):
        rd.control.PDGravity(robot, [0.1, 0.2, 0.3], kp=1.0, kd=1.0)
    with pytest.raises(InputError, match="q_ref"):
        rd.control.PDGravity(robot, [0.0, 0.0, 0.0, 2.0], kp=1.0, kd=1.0)


def test_a_geodesic_reaches_its_end_at_rest_with_exact_rates():
    """``q0 ⊕ s(t) (q1 ⊖ q0)``: starts at q0, ends at q1, at rest at both ends, and its
    ``qd`` is the derivative of ``q`` (central differences of ``difference``)."""
    robot = _ball_pendulum()
    q0 = robot.integrate(robot.neutral(), [0.2, -0.1, 0.4])
    q1 = robot.integrate(robot.neutral(), [-0.5, 0.9, 0.3])
    traj = rd.trajectory.geodesic(robot, q0, q1, 2.0)
    q, qd, qdd = traj(np.array([0.0, 2.0]))
    assert q.shape == (2, 4) and qd.shape == qdd.shape == (2, 3)
    assert np.linalg.norm(robot.difference(q[0], q0)) < 1e-14
    assert np.linalg.norm(robot.difference(q[1], q1)) < 1e-14
    np.testing.assert_allclose(qd, 0.0, atol=1e-15)
    h, t = 1e-5, 0.7
    (qm, qp), (mid,) = traj(np.array([t - h, t + h]))[0], traj(np.array([t]))[1]
    np.testing.assert_allclose(robot.difference(qm, qp) / (2 * h), mid, rtol=1e-8)


@pytest.mark.slow
def test_computed_torque_tracks_a_geodesic_of_a_ball_joint():
    """With the exact model, started on the reference the arm stays on it (the error
    equation has the zero solution); started off it, the error dies out."""
    robot = _ball_pendulum()
    q0 = robot.neutral()
    q1 = robot.integrate(q0, [0.7, -0.4, 0.5])
    traj = rd.trajectory.geodesic(robot, q0, q1, 1.5)
    law = rd.control.ComputedTorque(robot, traj, kp=100.0, kd=20.0)
    on = rd.simulate(robot, q0, np.zeros(3), 2.0, tau=law, dt=1e-3)
    q_ref = traj(on.t)[0]
    assert np.abs(robot.difference(on.q, q_ref)).max() < 1e-8
    off = rd.simulate(robot, robot.integrate(q0, [0.1, 0.1, -0.1]), np.zeros(3), 2.0,
                      tau=law, dt=1e-3)
    error = np.linalg.norm(robot.difference(off.q, traj(off.t)[0]), axis=-1)
    assert error[0] > 0.15 and error[-1] < 1e-5 * error[0]
    with pytest.raises(InputError, match="rd.trajectory.geodesic"):
        rd.control.ComputedTorque(robot, rd.trajectory.quintic(np.zeros(3), np.ones(3), 1.0),
                                  kp=1.0, kd=1.0)
