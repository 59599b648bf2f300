"""Simulation and control: conservation of energy, the pendulum's exact period,
tracking by computed torque, regulation by PD + gravity compensation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import ellipk

import robodyn as rd
from robodyn.errors import InputError

FRICTIONLESS_TWO_LINK = """
name: 2r-viscous
dh: standard
gravity: [0, -g, 0]
links:
  - {joint: revolute, a: 1, mass: 2, com: [-0.5, 0, 0], inertia: [0, 0.15, 0.15, 0, 0, 0],
     friction: {viscous: F1}}
  - {joint: revolute, a: 0.8, mass: 1, com: [-0.4, 0, 0], inertia: [0, 0.05, 0.05, 0, 0, 0],
     friction: {viscous: F2}}
values: {g: 9.81, F1: 0.3, F2: 0.2}
"""


def _drift(sim):
    scale = max(np.abs(sim.total).max(), np.ptp(sim.kinetic))
    return np.ptp(sim.total) / scale


PASSIVE = {"planar-2r": [0.5, 0.3], "planar-3r": [0.4, -0.2, 0.9],
           "puma560": [0.1, 0.6, -0.4, 0.8, 0.5, -0.3]}


@pytest.mark.parametrize("name", PASSIVE)
def test_passive_motion_conserves_energy_adaptive(name):
    robot = rd.load(name)
    sim = rd.simulate(robot, PASSIVE[name], duration=10.0, method="dop853", rtol=1e-12,
                      atol=1e-12)
    assert sim.t[-1] == pytest.approx(10.0)
    assert _drift(sim) < 1e-8
    assert np.ptp(sim.kinetic) > 1.0  # it really moved


@pytest.mark.parametrize("name", PASSIVE)
def test_passive_motion_conserves_energy_rk4_at_1khz(name):
    robot = rd.load(name)
    sim = rd.simulate(robot, PASSIVE[name], duration=10.0, dt=1e-3)
    assert sim.info["steps"] == 10_000
    assert _drift(sim) < 1e-4


def test_viscous_friction_never_adds_energy(tmp_path):
    path = tmp_path / "2r.yaml"
    path.write_text(FRICTIONLESS_TWO_LINK)
    robot = rd.load(path)
    sim = rd.simulate(robot, [1.0, -0.5], duration=5.0, dt=1e-3)
    assert (np.diff(sim.total) <= 1e-9).all()
    assert sim.total[-1] < sim.total[0] - 1.0
    # the loss equals the integral of the friction power (work-energy theorem)
    power = (robot.friction_torques(sim.qd) * sim.qd).sum(axis=1)
    loss = np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(sim.t))
    assert sim.total[0] - sim.total[-1] == pytest.approx(loss, rel=1e-5)


def test_pendulum_large_amplitude_period_is_the_elliptic_integral():
    robot = rd.load("pendulum").with_values(F=0.0)
    v = robot.values
    theta0 = 2.5
    inertia = v["Izz"] + v["m"] * v["l"] ** 2
    period = 4 * np.sqrt(inertia / (v["m"] * v["g"] * v["l"])) * ellipk(np.sin(theta0 / 2) ** 2)
    sim = rd.simulate(robot, [theta0], duration=2.2 * period, method="dop853", rtol=1e-12,
                      atol=1e-12)
    # released at rest at t = 0: it is at rest again, on the same side, one period later
    qd = lambda t: sim.solution(t)[1]  # noqa: E731
    t1 = brentq(qd, 0.9 * period, 1.1 * period, xtol=1e-14)
    t2 = brentq(qd, 1.9 * period, 2.1 * period, xtol=1e-14)
    assert t1 == pytest.approx(period, rel=1e-6)
    assert t2 - t1 == pytest.approx(period, rel=1e-6)


def test_computed_torque_with_the_exact_model_tracks_a_quintic():
    robot = rd.load("puma560")
    traj = rd.trajectory.quintic(np.zeros(6), [1.0, 0.5, -0.5, 0.3, 0.2, 0.1], 2.0)
    ctrl = rd.control.ComputedTorque(robot, traj, kp=100.0, kd=20.0)
    sim = rd.simulate(robot, traj.q0, duration=2.5, tau=ctrl, dt=1e-3)
    assert np.abs(sim.q - traj(sim.t)[0]).max() < 1e-6
    # the applied torque is the model's inverse dynamics along the reference
    np.testing.assert_allclose(sim.tau[::250], robot.inverse_dynamics(*traj(sim.t[::250])),
                               atol=1e-4)


def test_computed_torque_with_a_mass_error_tracks_with_a_bounded_error():
    robot = rd.load("planar-2r")
    model = robot.with_values(m2=1.2 * robot.values["m2"])
    traj = rd.trajectory.quintic([0.0, 0.0], [1.2, -0.8], 1.5)

    def error(kp):
        ctrl = rd.control.ComputedTorque(model, traj, kp=kp, kd=2 * np.sqrt(kp))
        sim = rd.simulate(robot, traj.q0, duration=2.0, tau=ctrl, dt=1e-3)
        assert np.isfinite(sim.q).all()
        return np.abs(sim.q - traj(sim.t)[0]).max()

    soft, stiff = error(64.0), error(1024.0)
    # visible, bounded, and reduced by stiffer feedback (the model error acts as a
    # disturbance the PD part rejects: e ~ 1/kp)
    assert 1e-3 < soft < 0.2
    assert stiff < soft / 8


def test_pd_plus_gravity_compensation_reaches_its_set_point():
    robot = rd.load("planar-3r")
    q_ref = np.array([0.8, -0.4, 0.6])
    ctrl = rd.control.PDGravity(robot, q_ref, kp=50.0, kd=15.0)
    sim = rd.simulate(robot, [0.0, 0.0, 0.0], duration=8.0, tau=ctrl, dt=1e-3)
    np.testing.assert_allclose(sim.q[-1], q_ref, atol=1e-4)
    np.testing.assert_allclose(sim.qd[-1], 0, atol=1e-3)


def test_compiled_loop_equals_the_python_loop():
    pytest.importorskip("numba")
    robot = rd.load("planar-3r")
    ctrl = rd.control.PDGravity(robot, [0.3, 0.2, 0.1], kp=20.0, kd=5.0)
    fast = rd.simulate(robot, [0.0, 0.1, 0.0], duration=0.5, tau=ctrl, dt=1e-3)
    slow = rd.simulate(robot, [0.0, 0.1, 0.0], duration=0.5, dt=1e-3,
                       tau=lambda t, q, qd: ctrl(t, q, qd))
    assert fast.info["compiled"] and not slow.info["compiled"]
    np.testing.assert_allclose(fast.q, slow.q, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(fast.tau, slow.tau, rtol=1e-11, atol=1e-11)
    for method in ("semi-implicit-euler",):
        a = rd.simulate(robot, [0.0, 0.1, 0.0], duration=0.2, tau=ctrl, dt=1e-3, method=method)
        b = rd.simulate(robot, [0.0, 0.1, 0.0], duration=0.2, dt=1e-3, method=method,
                        tau=lambda t, q, qd: ctrl(t, q, qd))
        np.testing.assert_allclose(a.q, b.q, rtol=1e-12, atol=1e-13)


def test_torque_table_and_wrench():
    robot = rd.load("pendulum").with_values(F=0.0)
    v = robot.values
    hold = v["m"] * v["g"] * v["l"] * np.sin(0.4)
    table = np.full((5, 1), hold)
    sim = rd.simulate(robot, [0.4], duration=1.0, tau=table, dt=1e-3)
    np.testing.assert_allclose(sim.q, 0.4, atol=1e-12)  # held at rest by the table
    # the same hold with a wrench: h_e is what the tip exerts, so -J^T h_e must supply it
    sim = rd.simulate(robot, [0.4], duration=0.5, dt=1e-3, h_e=[0, 0, 0, 0, 0, -hold])
    np.testing.assert_allclose(sim.q, 0.4, atol=1e-12)


def test_save_and_limits(tmp_path):
    robot = rd.load("planar-2r")
    sim = rd.simulate(robot, [0.5, 0.3], duration=0.1, dt=1e-2)
    sim.save(tmp_path / "run.csv")
    sim.save(tmp_path / "run.npz")
    data = np.genfromtxt(tmp_path / "run.csv", delimiter=",", names=True)
    np.testing.assert_allclose(data["q2"], sim.q[:, 1], rtol=1e-15)
    assert np.load(tmp_path / "run.npz")["total"].shape == sim.t.shape
    with pytest.raises(InputError, match="use a .npz or .csv"):
        sim.save(tmp_path / "run.txt")


def test_joint_limits_are_reported_not_enforced():
    urdf = rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf")
    robot = rd.load(urdf, tip="tool0")
    with pytest.warns(rd.JointLimitWarning, match="effort limit"):
        sim = rd.simulate(robot, np.zeros(6), duration=0.05, dt=1e-3,
                          tau=np.full((2, 6), 500.0))
    assert any("effort" in line for line in sim.info["limits_crossed"])


@pytest.mark.parametrize("kwargs, message", [
    ({"q0": [0.0]}, r"q0: expected 2 values"),
    ({"q0": [0.0, np.nan]}, r"q0: .* is not finite"),
    ({"q0": [0.0, 0.0], "method": "euler"}, r"method: 'euler' is not one of"),
    ({"q0": [0.0, 0.0], "method": "rk4"}, r"fixed-step method: give dt"),
    ({"q0": [0.0, 0.0], "duration": -1}, r"duration: expected a positive number"),
    ({"q0": [0.0, 0.0], "tau": np.zeros((3, 3)), "dt": 0.01}, r"tau: expected an array"),
    ({"q0": [0.0, 0.0], "h_e": [1, 2], "dt": 0.01}, r"h_e: expected 6 finite numbers"),
])
def test_bad_arguments_are_named(kwargs, message):
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match=message):
        rd.simulate(robot, **{"duration": 0.1, **kwargs})


def test_limits_from_a_model_file_are_reported(tmp_path):
    text = rd.models.path("pendulum").read_text().replace(
        "    friction: {viscous: F, coulomb: 0}",
        "    friction: {viscous: F, coulomb: 0}\n"
        "    limits: {lower: -pi/4, upper: pi/4, velocity: 10}")
    path = tmp_path / "limited.yaml"
    path.write_text(text)
    robot = rd.load(path)
    assert robot.links[0].joint.limits == (-np.pi / 4, np.pi / 4, 10.0, np.inf)
    with pytest.warns(rd.JointLimitWarning, match=r"joint1 position limit \[-0\.785398, "
                                                    r"0\.785398\] first crossed at t = 0 s"):
        rd.simulate(robot, [1.0], duration=0.2, dt=1e-3)
    path.write_text(text.replace("upper: pi/4", "upper: -pi"))
    with pytest.raises(rd.ModelError, match=r"links\[0\]\.limits: lower .* is above upper"):
        rd.load(path)
