"""Drive torque limits (robodyn.motion.saturation): a controller behind drives that deliver
at most tau_max, checked on the pendulum of the seeds by hand (issue 36)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError

# the pendulum: q = 0 hangs down, q = pi/2 is horizontal, where gravity pulls with
# m g l = 1 * 9.81 * 0.5 = 4.905 N m; its inertia about the pivot Izz + m l^2 = 1/3 kg m^2
HORIZONTAL = np.pi / 2
HOLD = 1.0 * 9.81 * 0.5
PIVOT_INERTIA = 0.0833 + 1.0 * 0.5**2


def _hold(limit):
    arm = rd.load("pendulum")
    ctrl = rd.control.Saturated(rd.control.PDGravity(arm, [HORIZONTAL], kp=50.0, kd=5.0),
                                limits=[limit])
    sim = rd.simulate(arm, [HORIZONTAL], duration=0.5, dt=1e-3, tau=ctrl, progress=False,
                      check_limits=False)
    return sim, ctrl


def test_a_drive_weaker_than_gravity_lets_the_arm_fall_at_the_rate_its_limit_allows():
    limit = 4.0  # below the 4.905 N m that holds the arm horizontal
    sim, ctrl = _hold(limit)
    # at the start the demand is gravity's 4.905; the drive gives 4.0: by hand,
    # qdd(0) = (4.0 - 4.905) / (1/3), the viscous term zero at rest
    assert sim.tau[0, 0] == limit
    assert sim.qdd[0, 0] == pytest.approx((limit - HOLD) / PIVOT_INERTIA, rel=1e-9)
    assert sim.q[-1, 0] < HORIZONTAL - 0.05  # it fell
    assert np.abs(sim.tau).max() <= limit  # never more than the drive delivers
    report = sim.info["saturation"]
    assert report["saturated"] == [0]
    assert report["peak_demand"][0] > limit
    assert 0 < report["clipped_fraction"][0] <= 1
    assert ctrl.calls > 0


def test_a_drive_stronger_than_gravity_holds_the_arm_and_reports_nothing():
    sim, _ = _hold(6.0)
    np.testing.assert_allclose(sim.q[:, 0], HORIZONTAL, atol=1e-12)
    np.testing.assert_allclose(sim.tau[:, 0], HOLD, rtol=1e-12)
    assert sim.info["saturation"]["saturated"] == []


def test_the_limits_default_to_the_models_effort_limits():
    """``limits: {effort}`` of a DH model (URDF ``<limit effort>`` alike): a joint
    without one passes its demand through."""
    arm = rd.Robot.from_dh([(0, 0.5, 0, 0), (0, 0.4, 0, 0)], masses=[1.0, 1.0],
                           limits=[{"effort": 3.5}, None])
    ctrl = rd.control.Saturated(rd.control.PDGravity(arm, [0.3, 0.0], kp=10.0, kd=1.0))
    assert ctrl.limits.tolist() == [3.5, np.inf]
    tau = ctrl(0.0, np.array([-1.0, 0.0]), np.zeros(2))
    demand = ctrl.controller(0.0, np.array([-1.0, 0.0]), np.zeros(2))
    assert tau[0] == np.clip(demand[0], -3.5, 3.5) and tau[1] == demand[1]


@pytest.mark.parametrize("limits, words", [
    ([0.0], "must be positive"),
    ([np.nan], "must be positive"),
    ([1.0, 2.0], "expected 1 values"),
    ("fast", "one positive number per joint"),
])
def test_bad_limits_are_named(limits, words):
    arm = rd.load("pendulum")
    with pytest.raises(InputError, match=words):
        rd.control.Saturated(rd.control.PDGravity(arm, [0.0], kp=1.0, kd=1.0), limits=limits)


def test_a_model_without_limits_asks_for_them():
    arm = rd.load("pendulum")
    with pytest.raises(InputError, match="has no effort limits"):
        rd.control.Saturated(rd.control.PDGravity(arm, [0.0], kp=1.0, kd=1.0))
    with pytest.raises(InputError, match="give limits="):
        rd.control.Saturated(lambda t, q, qd: np.zeros(1))


def test_the_speed_envelope_holds_a_driven_joint_below_its_top_speed():
    """A drive with the straight torque-speed line of a DC motor (``speeds``): a demand far
    above the rated torque spins a free joint up as ``J w' = tau_max (1 - w / v_max)``, so
    ``w(t) = v_max (1 - exp(-t tau_max / (J v_max)))`` (solved by hand), never past
    ``v_max``; braking gets the full ``tau_max``. The pendulum on its side (gravity along
    its axis: a free rotor of inertia ``J`` about the pivot)."""
    arm = rd.Robot.from_dh([(0.5, 0, 0, 0)], masses=[1.0], com=[[-0.25, 0, 0]],
                           inertia=[[0, 0, 0.02, 0, 0, 0]], gravity=(0, 0, -9.81),
                           planar=True)
    J = 0.02 + 1.0 * 0.25**2
    tau_max, v_max = 2.0, 5.0
    push = rd.control.Saturated(lambda t, q, qd: np.array([50.0]), limits=[tau_max],
                                speeds=[v_max])
    sim = rd.simulate(arm, [0.0], duration=0.4, tau=push, rtol=1e-11, atol=1e-11,
                      sample_dt=0.01, progress=False)
    want = v_max * (1 - np.exp(-sim.t * tau_max / (J * v_max)))
    np.testing.assert_allclose(sim.qd[:, 0], want, atol=1e-7)
    assert sim.qd[:, 0].max() < v_max
    # braking while turning forward: the whole rated torque, at any speed
    brake = rd.control.Saturated(lambda t, q, qd: np.array([-50.0]), limits=[tau_max],
                                 speeds=[v_max])
    assert brake(0.0, np.zeros(1), np.array([4.9])).tolist() == [-tau_max]
    assert push(0.0, np.zeros(1), np.array([2.5])).tolist() == [tau_max / 2]
    assert push(0.0, np.zeros(1), np.array([6.0])).tolist() == [0.0]
    assert "speeds=[5]" in repr(push)


def test_speeds_from_the_models_velocity_limits_and_bad_speeds_named():
    arm = rd.Robot.from_dh([(0, 0.5, 0, 0), (0, 0.4, 0, 0)], masses=[1.0, 1.0],
                           limits=[{"effort": 3.5, "velocity": 2.0}, {"effort": 1.0}])
    ctrl = rd.control.Saturated(rd.control.PDGravity(arm, [0.3, 0.0], kp=10.0, kd=1.0),
                                speeds=True)
    assert ctrl.speeds.tolist() == [2.0, np.inf]
    for speeds, words in (([0.0, 1.0], "must be positive"), ("fast", "one positive top"),
                          ([1.0, 2.0, 3.0], "one positive top")):
        with pytest.raises(InputError, match=words):
            rd.control.Saturated(ctrl.controller, speeds=speeds)
    with pytest.raises(InputError, match="no model to read the drives' velocity limits"):
        rd.control.Saturated(lambda t, q, qd: np.zeros(2), limits=[1.0, 1.0], speeds=True)
