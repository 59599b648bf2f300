"""Gear efficiency (Motor.efficiency, efficiency_back) in the energy a motion draws
(robodyn.motion.energy.consumed): closed forms of a joint turned at constant speed against
viscous friction (the motor drives) and of a flywheel braked to rest (the load drives the
motor), and the hostile values."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.motion.trajectory import Motion

WHEEL = """\
name: wheel
dh: standard
gravity: [0, 0, 0]
links:
  - joint: revolute
    a: 0
    alpha: 0
    d: 0
    theta: 0
    mass: 1.0
    inertia: [0.1, 0.1, {izz}, 0, 0, 0]
    friction: {{viscous: {fv}}}
    motor: {motor}
"""


def wheel(tmp_path, motor: str, fv: float = 0.0, izz: float = 0.2) -> rd.Robot:
    path = tmp_path / "wheel.yaml"
    path.write_text(WHEEL.format(motor=motor, fv=fv, izz=izz))
    return rd.load(path)


def test_driving_a_viscous_load_draws_the_work_over_the_efficiency(tmp_path):
    """qd = w constant for T s against F_v: the joint needs F_v w^2 T; the motor draws
    F_v w^2 T / eta, and the gear loses the rest."""
    fv, w, T, eta = 0.4, 3.0, 2.0, 0.8
    robot = wheel(tmp_path, f"{{inertia: 0, efficiency: {eta}, efficiency_back: 0.5}}", fv)
    t = np.linspace(0, T, 201)
    motion = Motion(t, (w * t)[:, None], np.full((201, 1), w), np.zeros((201, 1)))
    report = rd.energy.consumed(robot, motion)
    assert report.net_work == pytest.approx(fv * w**2 * T, rel=1e-12)
    assert report.motor_energy == pytest.approx(fv * w**2 * T / eta, rel=1e-12)
    assert report.gear_loss == pytest.approx(fv * w**2 * T * (1 / eta - 1), rel=1e-12)
    assert "gear loss" in str(report)


def test_braking_a_flywheel_recovers_its_energy_times_the_back_efficiency(tmp_path):
    """qd = w0 (1 - t/T) with no friction: the joint torque I qdd < 0 throughout, the
    kinetic energy I w0^2 / 2 flows back, and the motor receives eta_b of it."""
    izz, w0, T, eta_b = 0.2, 5.0, 1.0, 0.6
    robot = wheel(tmp_path, f"{{inertia: 0, efficiency: 0.9, efficiency_back: {eta_b}}}",
                  izz=izz)
    t = np.linspace(0, T, 101)
    qd = w0 * (1 - t / T)
    motion = Motion(t, (w0 * (t - t**2 / (2 * T)))[:, None], qd[:, None],
                    np.full((101, 1), -w0 / T))
    report = rd.energy.consumed(robot, motion)
    assert report.net_work == pytest.approx(-izz * w0**2 / 2, rel=1e-12)
    assert report.motor_energy == pytest.approx(-eta_b * izz * w0**2 / 2, rel=1e-12)
    assert report.gear_loss == pytest.approx((1 - eta_b) * izz * w0**2 / 2, rel=1e-12)


def test_without_efficiencies_the_motors_draw_the_net_work(tmp_path):
    robot = wheel(tmp_path, "{inertia: 0.01, gear_ratio: 10}", 0.2)
    t = np.linspace(0, 1, 51)
    motion = Motion(t, np.sin(t)[:, None], np.cos(t)[:, None], -np.sin(t)[:, None])
    report = rd.energy.consumed(robot, motion)
    assert report.motor_energy == report.net_work and report.gear_loss == 0
    assert robot.mass_matrix([0.0])[0, 0] == pytest.approx(0.2 + 100 * 0.01)  # G^2 J_m


@pytest.mark.parametrize("motor,message", [
    ("{efficiency: 1.2}", r"links\[0\]\.motor\.efficiency: 1\.2 is not in \(0, 1\]"),
    ("{efficiency: 0}", r"links\[0\]\.motor\.efficiency: 0 is not in"),
    ("{efficiency_back: -0.5}", r"links\[0\]\.motor\.efficiency_back: -0\.5 is not in"),
    ("{efficency: 0.9}", r"links\[0\]\.motor.*efficency"),
])
def test_hostile_efficiencies_are_refused_by_name(tmp_path, motor, message):
    with pytest.raises(rd.ModelError, match=message):
        wheel(tmp_path, motor).numeric_chain  # noqa: B018
