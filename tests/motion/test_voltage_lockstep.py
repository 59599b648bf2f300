"""Fixed-step voltage-driven rollouts stepped together (robodyn.motion.voltage_lockstep,
issue 36): ``rd.rollout(..., voltage=, dt=, method="rk4" | "semi-implicit-euler")`` steps
every rollout at once through the batched kernels. Oracle: each rollout's single run
(``rd.simulate``), which the batch must equal bit for bit (the same steps on rows, the
batched kernels row by row the single-state program); a rollout that fails stops alone with
its single run's error."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.motion.electrics import DCMotor
from robodyn.motion.rollouts import RolloutError

ARM = "planar-2r"
Q0S = np.array([[0.2, 0.1], [0.3, 0.0], [-0.1, 0.4], [0.6, -0.5]])
FIELDS = ("q", "qd", "qdd", "tau", "kinetic", "potential")
MOTOR_INFO = ("current", "voltage", "electric_power", "drive_torque", "electric_energy",
              "copper_loss")


@pytest.fixture(autouse=True)
def _numpy(numpy_backend):
    """Values, not speed: no Numba compile time."""


def assert_rollouts_are_single_runs(arm, batch, singles: dict) -> None:
    """``batch.rollout(r)`` equals ``rd.simulate(arm, **singles[r])`` to the bit."""
    for r, kwargs in singles.items():
        one, mine = rd.simulate(arm, **kwargs), batch.rollout(r)
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(mine, name), getattr(one, name), name)
        for name in MOTOR_INFO:
            np.testing.assert_array_equal(mine.info[name], one.info[name], name)
        assert mine.info["energy_balance"] == one.info["energy_balance"]
        assert mine.info["steps"] == one.info["steps"]


@pytest.mark.filterwarnings("ignore::robodyn.EnergyBalanceWarning")  # semi-implicit: 1st order
@pytest.mark.parametrize("method", ["rk4", "semi-implicit-euler"])
def test_each_rollout_stepped_together_is_its_single_run(method):
    """Voltage laws of the state per rollout, a shared damping load, a wrench per rollout,
    one motor with an inductance: every rollout is its single run. A constant voltage for
    all (evaluated once a stage) and per-rollout tables likewise."""
    arm = rd.load(ARM)
    motors = [DCMotor(1.0, 0.5, inductance=5e-3), DCMotor(2.0, 0.3)]
    laws = [lambda t, q, qd, a=a: [a * (0.4 - q[0]) - qd[0], np.sin(5 * t)]
            for a in (1.0, 2.0, 3.0, 4.0)]
    h_e = np.zeros((4, 6))
    h_e[:, 1] = [0.0, 0.5, -0.5, 1.0]  # a vertical force at the tip, one per rollout
    common = dict(motors=motors, dt=2e-3, method=method, progress=False, sample_dt=0.01,
                  tau=lambda t, q, qd: -0.05 * qd)
    batch = rd.rollout(arm, Q0S, 0.0, 0.1, voltage=laws, h_e=h_e, **common)
    assert batch.rollouts == 4 and np.ptp(batch.q[:, -1, 0]) > 1e-3  # they differ
    assert_rollouts_are_single_runs(arm, batch, {
        r: dict(q0=Q0S[r], duration=0.1, voltage=laws[r], h_e=h_e[r], **common)
        for r in range(4)})
    tables = np.array([[[0.0, 1.0], [k, -k]] for k in (1.0, 2.0, 3.0, 4.0)])
    for voltage, each in ((2.0, [2.0] * 4), (tables, list(tables))):
        batch = rd.rollout(arm, Q0S, 0.0, 0.1, voltage=voltage, **common)
        assert_rollouts_are_single_runs(arm, batch, {
            r: dict(q0=Q0S[r], duration=0.1, voltage=each[r], **common) for r in (0, 3)})


def test_a_current_loop_per_rollout_and_a_rollout_that_fails_alone():
    """V(t, q, qd, i) (every motor inductive) per rollout, semi-implicit Euler; rollout 2's
    voltage turns NaN at t = 0.05 s: it fails with its single run's error, the others are
    their single runs."""
    arm = rd.load(ARM)
    motors = DCMotor(1.0, 0.5, inductance=2e-3)

    def law(gain, broken=False):
        def voltage(t, q, qd, i):
            if broken and t > 0.05:
                return [np.nan, 0.0]
            return [gain * (1.0 - i[0]), 0.5 - i[1]]
        return voltage

    laws = [law(1.0), law(2.0), law(3.0, broken=True), law(4.0)]
    common = dict(motors=motors, dt=1e-3, method="semi-implicit-euler", progress=False)
    with pytest.raises(RolloutError, match=r"1 voltage-driven rollouts failed \(2\)") as err:
        rd.rollout(arm, Q0S, 0.0, 0.1, voltage=laws, **common)
    with pytest.raises(rd.InputError) as alone:
        rd.simulate(arm, Q0S[2], 0.0, 0.1, voltage=laws[2], **common)
    assert err.value.failed[2] == str(alone.value).removeprefix("simulate: ")
    batch = err.value.simulation
    assert np.isnan(batch.q[2]).all()
    assert_rollouts_are_single_runs(arm, batch, {
        r: dict(q0=Q0S[r], duration=0.1, voltage=laws[r], **common) for r in (0, 1, 3)})


def test_rollouts_behind_a_coupled_transmission_are_their_single_runs(tmp_path):
    """theta = N q: the motors' speeds N qd and torques N^T (k_t i e) of a batch round as the
    single run's (the sums written out), with the gears' efficiencies switching."""
    path = tmp_path / "coupled.yaml"
    text = rd.models.path(ARM).read_text().replace(  # motor 2's gear: eta 0.8, eta_b 0.7
        "inertia: [0, 0, I2, 0, 0, 0]", "inertia: [0, 0, I2, 0, 0, 0]\n    motor: "
        "{efficiency: 0.8, efficiency_back: 0.7}")
    path.write_text(text + "transmission:\n  matrix: [[50, 0], [24, 30]]\n  motor_inertia: "
                    "[2.0e-4, 1.0e-4]\n")
    arm = rd.load(path)
    assert float(arm.numeric_chain.links[1].motor.efficiency) == 0.8
    common = dict(motors=[DCMotor(2.0, 0.05, inductance=2e-3), DCMotor(3.0, 0.04)], dt=1e-3,
                  method="semi-implicit-euler", progress=False,
                  voltage=lambda t, q, qd: [2.0 * np.sin(5 * t), -1.0 - q[1]])
    batch = rd.rollout(arm, Q0S, 0.0, 0.05, **common)
    assert_rollouts_are_single_runs(arm, batch, {
        r: dict(q0=Q0S[r], duration=0.05, **common) for r in range(4)})
