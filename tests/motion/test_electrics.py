"""The DC motors' electrics along a motion (robodyn.motion.electrics): a joint held still
draws ``R i^2`` with ``i = tau / (G eta k_t)`` (by hand); along any motion the energy drawn
is the rotor's mechanical work plus the copper loss plus the inductance's stored energy
(``P = V i``, the motor's power balance), and with ideal gears and no rotor the mechanical
part is the links' net work of ``rd.energy.consumed``."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion.electrics import DCMotor, electrics
from robodyn.motion.trajectory import Motion

pytestmark = pytest.mark.usefixtures("numpy_backend")

GEARED = """
    name: geared-pendulum
    gravity: [0, -9.81, 0]
    links:
      - {joint: revolute, a: 0.5, mass: 2.0, com: [-0.25, 0, 0],
         inertia: [0, 0, 0.05, 0, 0, 0],
         motor: {inertia: 2.0e-5, gear_ratio: 40, efficiency: 0.8, efficiency_back: 0.6}}
    """


def test_holding_a_weight_draws_the_copper_loss(tmp_path):
    from conftest import write_model

    robot = rd.load(str(write_model(tmp_path, GEARED)))
    q = 0.7
    t = np.linspace(0.0, 2.0, 201)
    still = Motion(t, np.full((201, 1), q), np.zeros((201, 1)), np.zeros((201, 1)))
    motor = DCMotor(resistance=1.5, torque_constant=0.05, inductance=1e-3)
    out = electrics(robot, still, motor)
    tau = 2.0 * 9.81 * 0.25 * np.cos(q)          # the weight's torque about the joint
    i = tau / (40 * 0.8 * 0.05)
    np.testing.assert_allclose(out.current, i, rtol=1e-12)
    np.testing.assert_allclose(out.voltage, 1.5 * i, rtol=1e-12)
    assert out.drawn == pytest.approx(1.5 * i * i * 2.0, rel=1e-12)
    assert out.copper_loss[0] == pytest.approx(out.drawn, rel=1e-12)


def test_the_energy_drawn_is_work_plus_copper_loss_plus_the_stored_energy(tmp_path):
    from conftest import write_model

    robot = rd.load(str(write_model(tmp_path, GEARED)))
    motion = rd.trajectory.quintic([0.2], [1.4], 1.5).sample(1e-4)
    motor = DCMotor(resistance=1.2, torque_constant=0.04, inductance=5e-3)
    out = electrics(robot, motion, motor)
    mech = np.sum(0.5 * np.diff(out.t)[:, None] * (out.motor_torque * out.motor_speed)[1:]
                  + 0.5 * np.diff(out.t)[:, None] * (out.motor_torque * out.motor_speed)[:-1])
    stored = 0.5 * 5e-3 * (out.current[-1, 0] ** 2 - out.current[0, 0] ** 2)
    assert out.drawn == pytest.approx(mech + out.copper_loss.sum() + stored, rel=1e-6)
    assert out.drawn_without_regeneration >= out.drawn


def test_ideal_gears_without_rotors_draw_the_links_work_plus_the_copper_loss():
    robot = rd.load("planar-2r")
    motion = rd.trajectory.quintic([0.0, 0.3], [1.0, -0.5], 1.2).sample(1e-4)
    motor = DCMotor(resistance=0.8, torque_constant=0.1)
    out = electrics(robot, motion, motor)
    links = rd.energy.consumed(robot, motion)
    assert out.drawn == pytest.approx(links.net_work + out.copper_loss.sum(), rel=1e-6)


def test_bad_motors_are_named():
    with pytest.raises(InputError, match="DCMotor.torque_constant: 0"):
        DCMotor(resistance=1.0, torque_constant=0.0)
    with pytest.raises(InputError, match="DCMotor.resistance: -1"):
        DCMotor(resistance=-1.0, torque_constant=0.1)
    robot = rd.load("planar-2r")
    motion = rd.trajectory.quintic([0.0, 0.3], [1.0, -0.5], 1.2).sample(0.01)
    with pytest.raises(InputError, match=r"motors: expected one DCMotor per joint \(2\)"):
        electrics(robot, motion, [DCMotor(1.0, 0.1)])
