"""Voltage-driven runs beyond one adaptive run (robodyn.motion.voltage, voltage_fixed,
voltage_batch; issue 36): a load torque beside the motors, fixed steps (rk4, semi-implicit
Euler), batches, and DC motors behind a coupled transmission. Oracles: closed forms by
hand, the energy balance, the adaptive run as reference (rk4's error divided by about 16
per halved dt), the matrix exponential of the linear motor, and single runs (a batch equals
them to the bit)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import simpson
from scipy.linalg import expm

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion.electrics import DCMotor, electrics
from robodyn.motion.rollouts import RolloutError

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
    com: [0, 0, 0]
    inertia: [0.01, 0.01, 0.02, 0, 0, 0]
    motor: {inertia: 1.0e-5, gear_ratio: 20.0}
"""
J_WHEEL = 0.02 + 20.0**2 * 1e-5  # the rotor's inertia about its axis, with the motor's
G = 20.0


def wheel(tmp_path) -> rd.Robot:
    path = tmp_path / "wheel.yaml"
    path.write_text(WHEEL)
    return rd.load(path)


def coupled(tmp_path, extra: str = "") -> rd.Robot:
    """planar-2r (gravity along -y, in its plane) behind theta = N q, N coupled."""
    path = tmp_path / "coupled.yaml"
    path.write_text(rd.models.path("planar-2r").read_text() + "transmission:\n  matrix: "
                    "[[50, 0], [24, 30]]\n  motor_inertia: [2.0e-4, 1.0e-4]\n" + extra)
    return rd.load(path)


N = np.array([[50.0, 0.0], [24.0, 30.0]])
ARM_MOTORS = [DCMotor(resistance=2.0, torque_constant=0.05), DCMotor(3.0, 0.04)]


# -- a load torque beside the voltages ----------------------------------------------------
def test_a_load_torque_beside_the_voltage_follows_the_closed_forms(tmp_path):
    """J qdd = (G k_t / R) (V - k_t G qd) + tau_L, by hand: a constant load shifts the
    no-load speed to w = (V + R tau_L / (G k_t)) / (k_t G), time constant T = R J / (k_t^2
    G^2); a brake tau_L = -b qd makes it w = a V / (a k_t G + b), T = J / (a k_t G + b) with
    a = G k_t / R. Both from rest: qd = w (1 - exp(-t / T)). sim.tau is the motors' torque
    plus the load, info["drive_torque"] the motors'."""
    robot = wheel(tmp_path)
    R, kt, V, load, b = 2.0, 0.05, 12.0, -0.3, 0.02
    motor = DCMotor(resistance=R, torque_constant=kt)
    a = G * kt / R
    for tau, w, T in (([[load]], (V + R * load / (G * kt)) / (kt * G), J_WHEEL / (a * kt * G)),
                      (lambda t, q, qd: -b * qd, a * V / (a * kt * G + b),
                       J_WHEEL / (a * kt * G + b))):
        sim = rd.simulate(robot, [0.0], 0.0, 4 * T, voltage=V, motors=motor, tau=tau,
                          progress=False, sample_dt=T / 20)
        assert np.abs(sim.qd[:, 0] - w * (1 - np.exp(-sim.t / T))).max() < 1e-7 * w
        i = sim.info["current"][:, 0]
        assert np.allclose(sim.info["drive_torque"][:, 0], G * kt * i, rtol=1e-13, atol=1e-13)
        applied = load if isinstance(tau, list) else -b * sim.qd[:, 0]
        assert np.allclose(sim.tau[:, 0], G * kt * i + applied, rtol=1e-13, atol=1e-13)
        # the inverse electrics take the motors' torque, not the load's: V back
        assert np.abs(electrics(robot, sim, motor).voltage - V).max() < 1e-9


# -- fixed steps ----------------------------------------------------------------------------
def test_rk4_converges_to_the_adaptive_run_at_fourth_order():
    """A 2-link arm under voltages and a brake: the fixed-step rk4 run against the adaptive
    DOP853 run at tight tolerances; halving dt divides the error by about 16."""
    arm = rd.load("planar-2r")
    motors = [DCMotor(resistance=1.0, torque_constant=0.5), DCMotor(2.0, 0.3)]
    run = dict(voltage=lambda t, q, qd: [4 * np.sin(3 * t), 2.0 - q[0]], motors=motors,
               tau=lambda t, q, qd: -0.2 * qd, progress=False, sample_dt=0.05)
    ref = rd.simulate(arm, [0.2, 0.1], 0.0, 0.5, method="dop853", rtol=1e-12, atol=1e-12,
                      **run)
    errors = []
    for dt in (0.01, 0.005):
        sim = rd.simulate(arm, [0.2, 0.1], 0.0, 0.5, dt=dt, **run)
        assert sim.info["dt"] == dt and sim.q.shape == ref.q.shape == (11, 2)
        errors.append(max(np.abs(sim.q - ref.q).max(), np.abs(sim.qd - ref.qd).max() / 10,
                          np.abs(sim.info["current"] - ref.info["current"]).max(),
                          np.abs(sim.info["electric_energy"] - ref.info["electric_energy"]).max()))
    assert errors[1] < 1e-5
    assert 12 < errors[0] / errors[1] < 20


@pytest.mark.filterwarnings("ignore::robodyn.EnergyBalanceWarning")  # first order: 1-2 %
def test_semi_implicit_euler_steps_a_stiff_circuit_rk4_refuses(tmp_path):
    """L / R = 0.1 ms: rk4 at dt = 1 ms is beyond its stability limit (refused, naming dt
    and L / R); semi-implicit Euler (the current by backward Euler) is stable there and
    converges at first order to the matrix exponential of the linear motor, x' = A x + b V
    with x = (qd, i)."""
    robot = wheel(tmp_path)
    R, L, kt, V = 1.0, 1e-4, 0.05, 6.0
    motor = DCMotor(resistance=R, torque_constant=kt, inductance=L)
    with pytest.raises(InputError, match=r"dt: 0\.001 s is beyond rk4's stability limit .*"
                                         r"L / R = 0\.0001 s.*semi-implicit-euler"):
        rd.simulate(robot, [0.0], duration=0.1, voltage=V, motors=motor, dt=1e-3,
                    progress=False)
    A = np.array([[0.0, G * kt / J_WHEEL], [-kt * G / L, -R / L]])
    x_inf = np.array([V / (kt * G), 0.0])
    errors = []
    for dt in (1e-3, 5e-4):
        sim = rd.simulate(robot, [0.0], duration=0.2, voltage=V, motors=motor, dt=dt,
                          method="semi-implicit-euler", progress=False, sample_dt=1e-2)
        x = np.array([x_inf - expm(A * tk) @ x_inf for tk in sim.t])
        assert np.abs(sim.info["current"][:, 0]).max() < 1.01 * V / R  # no blow-up
        errors.append(np.abs(sim.qd[:, 0] - x[:, 0]).max() / x_inf[0])
    assert errors[1] < 0.02
    assert 1.6 < errors[0] / errors[1] < 2.4


# -- batches --------------------------------------------------------------------------------
def test_a_batch_of_voltage_runs_equals_its_single_runs_to_the_bit():
    """rd.rollout with start states and voltages per rollout (callables; tables (N, T,
    dof)) and a shared load: each rollout is rd.simulate's single run, bit for bit, adaptive
    (sample_dt) and fixed-step (dt, sampled every 2 steps)."""
    arm = rd.load("planar-2r")
    q0s = np.array([[0.2, 0.1], [0.3, 0.0], [-0.1, 0.4]])
    volts = [lambda t, q, qd, a=a: [a * np.sin(3 * t), 1.0 - q[0]] for a in (1.0, 2.0, 3.0)]
    shared = dict(motors=[DCMotor(1.0, 0.5), DCMotor(2.0, 0.3)], progress=False,
                  tau=lambda t, q, qd: -0.1 * qd)
    tables = np.array([[[0.0, 1.0], [k, -k]] for k in (1.0, 2.0, 3.0)])  # (3, 2, 2)
    for batch_args, single_args, voltage in (
            (dict(sample_dt=0.05), dict(sample_dt=0.05), volts),
            (dict(dt=0.01, sample_dt=0.02), dict(dt=0.01, sample_dt=0.02), tables)):
        batch = rd.rollout(arm, q0s, 0.0, 0.2, voltage=voltage, **batch_args, **shared)
        assert batch.rollouts == 3 and batch.info["current"].shape == (3, len(batch.t), 2)
        for r in range(3):
            one = rd.simulate(arm, q0s[r], 0.0, 0.2, voltage=voltage[r], **single_args,
                              **shared)
            mine = batch.rollout(r)
            for name in ("q", "qd", "qdd", "tau", "kinetic"):
                np.testing.assert_array_equal(getattr(mine, name), getattr(one, name))
            for name in ("current", "voltage", "electric_energy", "copper_loss"):
                np.testing.assert_array_equal(mine.info[name], one.info[name])
    again = rd.simulate(arm, q0s, 0.0, 0.2, voltage=volts, sample_dt=0.05, **shared)
    np.testing.assert_array_equal(again.q, rd.rollout(arm, q0s, 0.0, 0.2, voltage=volts,
                                                      sample_dt=0.05, **shared).q)
    # a rollout whose load is not finite fails alone; the error holds the others
    loads = np.zeros((3, 2, 2))
    loads[1, 1, 0] = np.nan
    shared["tau"] = loads
    with pytest.raises(RolloutError, match=r"1 voltage-driven rollouts failed \(1\)") as err:
        rd.rollout(arm, q0s, 0.0, 0.2, voltage=1.0, dt=0.01, **shared)
    assert np.isnan(err.value.simulation.q[1]).all() and list(err.value.failed) == [1]
    np.testing.assert_array_equal(err.value.simulation.q[2], rd.simulate(
        arm, q0s[2], 0.0, 0.2, voltage=1.0, dt=0.01, **{**shared, "tau": loads[2]}).q)


# -- a coupled transmission -------------------------------------------------------------------
@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_motors_behind_a_coupled_transmission_hold_stall_and_balance_energy(tmp_path):
    """theta = N q, tau = N^T k_t i. By hand: the stall voltages V = R N^-T g(q) / k_t hold
    the arm at rest (electrics of the held pose: i = N^-T g / k_t); with ideal gears the
    motors' power sum k_t i_j (N qd)_j is the joints' tau . qd; the energy drawn, ∫ V i dt,
    is the arm's Δ(K + U) (rotors included) + the copper loss R i^2 + the motors' friction
    B_m (N qd)^2 + Δ(L i^2 / 2)."""
    robot = coupled(tmp_path, "  motor_viscous: [1.0e-4, 2.0e-4]\n")
    R, kt = np.array([2.0, 3.0]), np.array([0.05, 0.04])
    q0 = np.array([0.4, -0.3])
    g = robot.gravity_torques(q0)
    V_hold = R * np.linalg.solve(N.T, g) / kt
    hold = rd.simulate(robot, q0, 0.0, 0.2, voltage=V_hold, motors=ARM_MOTORS, progress=False,
                       sample_dt=0.05)
    assert np.abs(hold.qd).max() < 1e-9 and np.abs(hold.q - q0).max() < 1e-9
    assert np.allclose(hold.info["current"], np.linalg.solve(N.T, g) / kt, rtol=1e-9)
    held = electrics(robot, hold, ARM_MOTORS)
    assert np.allclose(held.current, np.linalg.solve(N.T, g) / kt, rtol=1e-9, atol=0)
    assert np.allclose(held.voltage, V_hold, rtol=1e-9)
    motors = [DCMotor(2.0, 0.05, inductance=2e-3), DCMotor(3.0, 0.04, inductance=1e-3)]
    sim = rd.simulate(robot, q0, 0.0, 0.3, motors=motors, progress=False, sample_dt=1e-3,
                      voltage=lambda t, q, qd: [2.0 * np.sin(5 * t), -1.0], rtol=1e-11,
                      atol=1e-12)
    i, w_m = sim.info["current"], sim.qd @ N.T
    power = (kt * i * w_m).sum(axis=1)
    assert np.allclose(power, (sim.tau * sim.qd).sum(axis=1), rtol=1e-10, atol=1e-12)
    friction = simpson((np.array([1e-4, 2e-4]) * w_m**2).sum(axis=1), x=sim.t)
    stored = float((np.array([2e-3, 1e-3]) * i[-1] ** 2).sum() / 2)
    drawn = sim.info["electric_energy"].sum()
    balance = (sim.total[-1] - sim.total[0]) + sim.info["copper_loss"].sum() + friction + stored
    assert abs(drawn - balance) < 1e-6 * abs(drawn) and abs(drawn) > 0.05
    # the inverse electrics of the run (i = N^-T tau / k_t) give its currents back
    back = electrics(robot, sim, motors)
    assert np.abs(back.current - i).max() < 1e-10 * np.abs(i).max()


# -- a closed mechanism ---------------------------------------------------------------------
@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_a_four_bar_driven_by_its_crank_motor_holds_and_balances_energy():
    """The four-bar's crank (its one actuated joint) has the motor. By hand: the stall
    voltage V = R (S^T g)(q0) / k_t (S the loop's velocity map, S^T g the gravity torque on
    the crank's coordinate) holds the mechanism at rest; under a sine voltage the energy
    drawn is Δ(K + U) + the copper loss (trapezoid on the 1 ms steps). A motor with an
    inductance at fixed steps is refused by name (its current is a state of the adaptive
    run: tests/motion/test_voltage_closed.py)."""
    robot = rd.load("four-bar")
    chain = robot.closed_chain()
    q0 = np.array([0.5, 0.09085012, -2.52122048])
    S, _ = chain.velocity_terms(q0, np.zeros(1))
    R, kt = 2.0, 0.5
    V_hold = R * (S.T @ robot.gravity_torques(q0)) / kt
    motor = DCMotor(resistance=R, torque_constant=kt)
    hold = rd.simulate(robot, q0, 0.0, 0.2, voltage=V_hold, motors=motor, dt=0.01,
                       progress=False)
    assert np.abs(hold.qd).max() < 1e-8 and np.abs(hold.q - hold.q[0]).max() < 1e-8
    assert hold.info["current"][0, 0] == pytest.approx(V_hold[0] / R, rel=1e-12)
    assert hold.tau[0, 0] == pytest.approx(kt * V_hold[0] / R, rel=1e-12)
    assert np.all(hold.tau[:, 1:] == 0)  # the passive joints have no motor
    sim = rd.simulate(robot, q0, 0.0, 0.2, voltage=lambda t, q, qd: 3 * np.sin(4 * t),
                      motors=motor, dt=1e-3, progress=False)
    drawn, copper = sim.info["electric_energy"].sum(), sim.info["copper_loss"].sum()
    assert abs(drawn - copper - (sim.total[-1] - sim.total[0])) < 1e-5 * copper
    assert abs(sim.total[-1] - sim.total[0]) > 0.1  # it moved
    with pytest.raises(InputError, match=r"dt: the motors of this closed mechanism .* have an "
                                         r"inductance .* give sample_dt instead of dt"):
        rd.simulate(robot, q0, 0.0, 0.1, voltage=1.0, dt=0.01, progress=False,
                    motors=DCMotor(resistance=R, torque_constant=kt, inductance=1e-3))


def test_each_motors_gear_efficiency_behind_a_coupled_transmission(tmp_path):
    """The links' efficiency fields act motor by motor (motor 2's gear eta = 0.8): at stall
    the motors drive, tau = N^T (eta k_t V / R), so V = R N^-T g / (eta k_t) holds the arm,
    and the inverse electrics of the held pose ask the same currents N^-T g / (eta k_t)."""
    text = rd.models.path("planar-2r").read_text().replace(
        "inertia: [0, 0, I2, 0, 0, 0]   # planar: the moment about the joint axis",
        "inertia: [0, 0, I2, 0, 0, 0]\n    motor: {efficiency: 0.8, efficiency_back: 0.7}")
    path = tmp_path / "coupled_eta.yaml"
    path.write_text(text + "transmission:\n  matrix: [[50, 0], [24, 30]]\n  motor_inertia: "
                           "[2.0e-4, 1.0e-4]\n")
    robot = rd.load(path)
    q0 = np.array([0.4, -0.3])
    eta, kt, R = np.array([1.0, 0.8]), np.array([0.05, 0.04]), np.array([2.0, 3.0])
    i_hold = np.linalg.solve(N.T, robot.gravity_torques(q0)) / (eta * kt)
    assert np.all(i_hold > 0)  # both motors drive (their gears' efficiency eta)
    sim = rd.simulate(robot, q0, 0.0, 0.2, voltage=R * i_hold, motors=ARM_MOTORS,
                      progress=False, sample_dt=0.05)
    assert np.abs(sim.qd).max() < 1e-9 and np.abs(sim.q - q0).max() < 1e-9
    assert np.allclose(sim.info["current"], i_hold, rtol=1e-12)
    assert np.allclose(electrics(robot, sim, ARM_MOTORS).current, i_hold, rtol=1e-9)
