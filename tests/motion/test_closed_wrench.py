"""An external wrench ``h_e`` on a closed mechanism (docs/closed-chains.md): the tree's joint
torques ``-J^T h_e`` enter the constrained dynamics as any torque.

Oracle: the same run driven by ``tau = -J(q)^T h_e`` written by hand in the test (the
robot's own geometric Jacobian at the frame, transposed and multiplied here), and the
work-energy balance, where the wrench's work is computed apart (``-(J^T h_e) . qd``).
"""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd

WRENCH = np.array([3.0, -5.0, 0.0, 0.0, 0.0, 0.7])  # N, N m (planar: f_x, f_y, m_z)


@pytest.fixture(scope="module")
def arm():
    robot = rd.load("parallelogram-arm")
    chain = robot.closed_chain()
    q0 = chain.assemble([0.3, 1.2], robot.configurations["home"]).q
    qd0 = chain.velocity_map(q0) @ [0.5, -0.4]
    return robot, chain, q0, qd0


def _by_hand(robot, h, frame=None):
    """``tau(t, q, qd) = -J(q)^T h`` at ``frame`` (the end effector when None)."""
    def tau(t, q, qd):
        J = robot.jacobian(q) if frame is None else robot.jacobian(q, frame=frame)
        return -(J.T @ h)
    return tau


@pytest.mark.parametrize("method", ["rk4", "rk45"])
def test_a_wrench_at_the_end_effector_is_its_torques_by_hand(arm, method):
    robot, chain, q0, qd0 = arm
    step = dict(dt=5e-3) if method == "rk4" else dict(method="rk45", sample_dt=0.01)
    sim = rd.simulate(robot, q0, qd0, duration=0.2, h_e=WRENCH, progress=False, **step)
    hand = rd.simulate(robot, q0, qd0, duration=0.2, tau=_by_hand(robot, WRENCH),
                       progress=False, **step)
    free = rd.simulate(robot, q0, qd0, duration=0.2, progress=False, **step)
    assert np.abs(free.q - hand.q).max() > 1e-3  # the wrench moves the arm
    np.testing.assert_allclose(sim.q, hand.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sim.qd, hand.qd, rtol=0, atol=1e-11)
    np.testing.assert_allclose(sim.qdd, hand.qdd, rtol=0, atol=1e-10)
    assert np.abs(sim.tau).max() == 0  # sim.tau holds the given torques, not the wrench's
    assert np.abs(chain.residual(sim.q)).max() < 1e-9
    # the wrench's work, computed apart, balances the energy (the loop forces do none)
    balance = sim.info["energy_balance"]
    assert abs(balance.external) > 1e-3
    assert abs(balance.error) < 3 * balance.uncertainty + 1e-8 * balance.scale


def test_wrenches_at_named_frames_and_a_callable(arm):
    robot, chain, q0, qd0 = arm
    sim = rd.simulate(robot, q0, qd0, duration=0.1, dt=5e-3, h_e={"link3p": WRENCH},
                      progress=False)
    hand = rd.simulate(robot, q0, qd0, duration=0.1, dt=5e-3,
                       tau=_by_hand(robot, WRENCH, "link3p"), progress=False)
    np.testing.assert_allclose(sim.q, hand.q, rtol=0, atol=1e-12)
    assert not np.allclose(robot.jacobian(q0, frame="link3p"), robot.jacobian(q0))

    def pushing(t, q, qd):  # a wrench that follows time and the motion
        return WRENCH * np.cos(5 * t) - 0.3 * np.concatenate([qd[:2], [0, 0, 0, 0]])

    sim = rd.simulate(robot, q0, qd0, duration=0.1, dt=5e-3, h_e=pushing, progress=False)
    by_hand = lambda t, q, qd: -(robot.jacobian(q).T @ pushing(t, q, qd))  # noqa: E731
    hand = rd.simulate(robot, q0, qd0, duration=0.1, dt=5e-3, tau=by_hand, progress=False)
    np.testing.assert_allclose(sim.q, hand.q, rtol=0, atol=1e-12)


def test_a_batch_of_wrenches_equals_its_runs_by_hand(arm):
    robot, chain, q0, qd0 = arm
    wrenches = np.stack([WRENCH, -WRENCH, 2 * WRENCH])
    sim = rd.rollout(robot, q0, qd0, duration=0.1, dt=5e-3, h_e=wrenches, progress=False)
    for r, h in enumerate(wrenches):
        hand = rd.simulate(robot, q0, qd0, duration=0.1, dt=5e-3, tau=_by_hand(robot, h),
                           progress=False)
        np.testing.assert_allclose(sim.q[r], hand.q, rtol=0, atol=1e-12)
    assert all(abs(b.external) > 0 for b in sim.info["energy_balance"])
