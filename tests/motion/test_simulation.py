"""Simulation and control: conservation of energy, the pendulum's exact period,
tracking by computed torque, regulation by PD + gravity compensation; the budgets and
checks every run passes (time grid, step budget, stiffness, divergence, energy balance)."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import ellipk

import robodyn as rd
from robodyn.core.errors import InputError, RobodynError
from robodyn.motion.inputs import MAX_MAGNITUDE

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


def _passive(*slow):
    """The PASSIVE models, those named (seconds in the NumPy tier) marked slow."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in slow else n for n in PASSIVE]


@pytest.mark.parametrize("name", _passive("planar-3r"))
def test_passive_motion_conserves_energy_adaptive(name):
    robot = rd.load(name)
    sim = rd.simulate(robot, PASSIVE[name], duration=10.0, method="dop853", rtol=1e-12,
                      atol=1e-12)
    assert sim.t[-1] == pytest.approx(10.0)
    assert _drift(sim) < 1e-8
    assert np.ptp(sim.kinetic) > 1.0  # it really moved


@pytest.mark.parametrize("name", _passive("planar-3r", "puma560"))
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


@pytest.mark.slow
def test_computed_torque_with_the_exact_model_tracks_a_quintic():
    robot = rd.load("puma560")
    traj = rd.trajectory.quintic(np.zeros(6), [1.0, 0.5, -0.5, 0.3, 0.2, 0.1], 2.0)
    ctrl = rd.control.ComputedTorque(robot, traj, kp=100.0, kd=20.0)
    sim = rd.simulate(robot, traj.q0, duration=2.5, tau=ctrl, dt=1e-3)
    assert np.abs(sim.q - traj(sim.t)[0]).max() < 1e-6
    # the applied torque is the model's inverse dynamics along the reference
    np.testing.assert_allclose(sim.tau[::250], robot.inverse_dynamics(*traj(sim.t[::250])),
                               atol=1e-4)


@pytest.mark.slow
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


@pytest.mark.slow
def test_pd_plus_gravity_compensation_reaches_its_set_point():
    robot = rd.load("planar-3r")
    q_ref = np.array([0.8, -0.4, 0.6])
    ctrl = rd.control.PDGravity(robot, q_ref, kp=50.0, kd=15.0)
    sim = rd.simulate(robot, [0.0, 0.0, 0.0], duration=8.0, tau=ctrl, dt=1e-3)
    np.testing.assert_allclose(sim.q[-1], q_ref, atol=1e-4)
    np.testing.assert_allclose(sim.qd[-1], 0, atol=1e-3)


def test_compiled_loop_equals_the_python_loop(compiled_tier):
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


def test_compiled_computed_torque_equals_the_python_loop_along_a_trajectory(compiled_tier):
    """Computed torque on a moving reference: both loops evaluate it at the same stage times
    (the compiled one from tables, the Python one by calling the controller), with the
    same step and the same law; what differs is the trajectory's vectorised evaluation."""
    pytest.importorskip("numba")
    robot = rd.load("planar-2r")
    ctrl = rd.control.ComputedTorque(robot, rd.trajectory.quintic([0, 0], [1.0, -0.5], 0.3),
                                     kp=100.0, kd=20.0)
    for method in ("rk4", "semi-implicit-euler"):
        fast = rd.simulate(robot, [0.05, 0.0], duration=0.3047, tau=ctrl, dt=1e-3,
                           method=method)
        slow = rd.simulate(robot, [0.05, 0.0], duration=0.3047, dt=1e-3, method=method,
                           tau=lambda t, q, qd: ctrl(t, q, qd))
        assert fast.info["compiled"] and not slow.info["compiled"]
        np.testing.assert_allclose(fast.q, slow.q, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(fast.tau, slow.tau, rtol=1e-11, atol=1e-11)


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


# -- budgets and checks (issue 15) ---------------------------------------------------------------
def run_bounded(*parts: str, timeout: float = 90, memory: int = 3 << 30):
    """Run the code ``parts`` (each dedented, then joined) in a fresh Python (NumPy backend)
    under a wall-time and an address-space bound; the JSON value its last line of output
    prints. For inputs that used to hang or exhaust memory."""
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    code = "\n".join(textwrap.dedent(part) for part in parts)
    env = {**os.environ, "ROBODYN_BACKEND": "numpy", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=limits)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


#: Each case's ``[error class, message]`` (``["ok", ""]`` if it returned).
OUTCOMES = """
    import json
    import robodyn as rd

    def outcomes(cases):
        out = {}
        for name, case in cases.items():
            try:
                case()
                out[name] = ["ok", ""]
            except Exception as exc:  # noqa: BLE001 - reported to the test
                out[name] = [type(exc).__name__, str(exc)]
        print(json.dumps(out))
"""

HOSTILE_RUNS = """
    pendulum = rd.load("pendulum")
    arm = rd.load("planar-2r")
    stiff_gains = rd.control.ComputedTorque(arm, rd.trajectory.quintic([0, 0], [1, 1], 1.0),
                                            kp=1e12, kd=1e9)
    outcomes({
        "friction": lambda: rd.simulate(pendulum.with_values(F=1e9), [1.0], duration=1.0),
        "gains": lambda: rd.simulate(arm, [0, 0], duration=1.0, tau=stiff_gains),
        "max_step": lambda: rd.simulate(arm, [0, 0], duration=1.0, tau=stiff_gains,
                                        max_step=1e-9),
        "memory": lambda: rd.simulate(pendulum, [0.1], duration=1000, dt=1e-6),
    })
"""


def _number(pattern: str, text: str) -> float:
    return float(re.search(pattern, text)[1])


@pytest.mark.slow
def test_stiff_runs_and_huge_runs_stop_at_once_with_a_clear_error():
    """Viscous friction 1e9 and gains kp = 1e12 ran for minutes with rk45; max_step = 1e-9
    too; duration 1000 s at dt = 1e-6 was a MemoryError. The stiffness detector names the
    motion's fastest rate, which is known in closed form: F / I for the pendulum, the
    fastest root of s^2 + kd s + kp for computed torque with the exact model."""
    out = run_bounded(OUTCOMES, HOSTILE_RUNS)
    p = rd.load("pendulum").values
    inertia = p["Izz"] + p["m"] * p["l"] ** 2
    for case, rate in (("friction", 1e9 / inertia),
                       ("gains", (1e9 + np.sqrt(1e18 - 4e12)) / 2)):
        kind, message = out[case]
        assert kind == "RobodynError", out[case]
        assert message.startswith("simulate: stiff system (")
        assert "try method='radau'" in message
        assert _number(r"fastest rate is (\S+) 1/s", message) == pytest.approx(rate, rel=0.02)
    # friction: the step is held at the stability limit of RK45 (|h lambda| about 3.3 on the
    # real axis); the gains: already the first trial step overflows the controller's torque
    assert 1 < _number(r"step size fell to (\S+) s", out["friction"][1]) * 1e9 / inertia < 5
    trial = _number(r"a trial step of (\S+) s from t = 0 s overflowed", out["gains"][1])
    assert trial * 1e9 > 3.3
    assert out["max_step"][0] == "InputError"
    assert "max_step: 1e-09 s takes at least 1,000,000,000 steps over 1 s, more than " \
           "max_steps = 100,000" in out["max_step"][1]
    assert out["memory"] == ["InputError", "duration / dt: 1,000,000,000 steps; at most "
                             "2,000,000 (a larger dt or a shorter duration)"]


def test_the_stiff_friction_run_succeeds_with_radau(numpy_backend):
    """The method the error suggests: Radau settles on the overdamped motion
    qd = -m g l sin(q) / F of a pendulum with F = 1e9."""
    robot = rd.load("pendulum").with_values(F=1e9)
    sim = rd.simulate(robot, [1.0], duration=1.0, method="radau")
    v = robot.values
    np.testing.assert_allclose(sim.qd[-1], -v["m"] * v["g"] * v["l"] * np.sin(1.0) / 1e9,
                               rtol=1e-4)
    assert sim.info["steps"] < 100


@pytest.mark.parametrize("method", ["rk45", "dop853", "radau"])
def test_adaptive_methods_stop_when_the_step_budget_runs_out(method, numpy_backend):
    robot = rd.load("planar-2r")
    free = rd.simulate(robot, [0.5, 0.3], duration=1.0, method=method)
    with pytest.raises(RobodynError, match=rf"the step budget ran out: max_steps = 5 {method} "
                                           r"steps reached t = (\S+) s of 1 s") as caught:
        rd.simulate(robot, [0.5, 0.3], duration=1.0, method=method, max_steps=5)
    # it stopped after exactly five of the steps the free run takes
    assert _number(r"reached t = (\S+) s", str(caught.value)) == pytest.approx(free.t[5],
                                                                              rel=1e-5)
    assert free.info["steps"] > 5


@pytest.mark.parametrize("kwargs, message", [
    ({"rtol": 0, "atol": 0}, r"rtol, atol: invalid tolerances \(rtol = 0, atol = 0\)"),
    ({"rtol": 1e-16}, r"invalid tolerances .* rtol must be a number from 1e-13"),
    ({"rtol": float("nan")}, r"invalid tolerances"),
    ({"atol": -1e-9}, r"invalid tolerances .*atol a positive finite number"),
    ({"atol": float("inf")}, r"invalid tolerances"),
    ({"rtol": "tight"}, r"invalid tolerances \(rtol = 'tight'"),
    ({"max_steps": 0}, r"max_steps: expected a whole number from 1 to 2,000,000, got 0"),
    ({"max_steps": 2.5}, r"max_steps: .* got 2\.5"),
    ({"max_steps": True}, r"max_steps: .* got True"),
    ({"max_steps": "many"}, r"max_steps: .* got 'many'"),
    ({"max_steps": None}, r"max_steps: .* got None"),
    ({"max_steps": 10**9}, r"max_steps: .* got 1000000000"),
    ({"max_step": 0}, r"max_step: expected a positive number of seconds"),
    ({"max_step": float("nan")}, r"max_step: expected a positive number"),
    ({"dt": 0.1, "duration": 0.01}, r"dt: 0\.1 s is longer than the duration 0\.01 s"),
    ({"qd0": [1e200, 0]}, r"qd0: a value of magnitude 1e\+200 is out of range: at most 1e\+10"),
    ({"tau": lambda t, q, qd: [1e300, 0], "dt": 0.01},
     r"tau\(t, q, qd\): a value of magnitude 1e\+300 is out of range"),
    ({"q0": [1e11, 0]}, r"q0: a value of magnitude 1e\+11"),
    ({"tau": np.full((2, 2), 1e300), "dt": 0.01}, r"tau: a value of magnitude 1e\+300"),
    ({"h_e": [0, 0, 1e300, 0, 0, 0], "dt": 0.01}, r"h_e: a value of magnitude 1e\+300"),
])
def test_bad_budgets_tolerances_and_huge_inputs_are_named(kwargs, message, numpy_backend):
    """Huge inputs used to overflow deep inside the dynamics, blaming ``g = 9.81``; zero
    tolerances said ``q[0] is nan``."""
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match=message) as caught:
        rd.simulate(robot, **{"q0": [0.0, 0.0], "duration": 0.1, **kwargs})
    assert "g = 9.81" not in str(caught.value)


def _pendulum_closed_form(robot, theta0, t):
    """Small-angle swing of the frictionless pendulum: ``theta0 cos(omega t)``."""
    v = robot.values
    omega = np.sqrt(v["m"] * v["g"] * v["l"] / (v["Izz"] + v["m"] * v["l"] ** 2))
    return theta0 * np.cos(omega * t)


@pytest.mark.parametrize("method", ["rk4", "semi-implicit-euler", "implicit-euler", "rk45",
                                    "radau"])
def test_a_duration_not_a_multiple_of_dt_ends_at_it_after_a_shorter_step(method,
                                                                          numpy_backend):
    """``duration=1, dt=0.3`` stopped at 0.9; ``dt`` only sets the samples of the adaptive
    methods, which end at the duration too."""
    robot = rd.load("pendulum").with_values(F=0.0)
    sim = rd.simulate(robot, [1e-3], duration=1.0, dt=0.3, method=method)
    np.testing.assert_allclose(sim.t, [0.0, 0.3, 0.6, 0.9, 1.0], rtol=0, atol=1e-15)
    assert sim.t[-1] == 1.0
    if method in ("rk4", "semi-implicit-euler", "implicit-euler"):
        assert sim.info["steps"] == 4
        assert sim.info["last_step"] == pytest.approx(0.1, rel=1e-12)
    # the state at t = 1 is the state at 1, not at 0.9 or 1.2 (closed form; RK4 at 30 ms)
    fine = rd.simulate(robot, [1e-3], duration=1.0, dt=0.03, method="rk4")
    assert fine.info["steps"] == 34 and fine.info["last_step"] == pytest.approx(0.01)
    assert fine.q[-1, 0] == pytest.approx(_pendulum_closed_form(robot, 1e-3, 1.0), rel=2e-4)


def test_compiled_loop_takes_the_shorter_last_step_as_the_python_loop(compiled_tier):
    pytest.importorskip("numba")
    robot = rd.load("pendulum").with_values(F=0.0)
    fast = rd.simulate(robot, [1e-3], duration=1.0, dt=0.03, tau=np.zeros((2, 1)))
    slow = rd.simulate(robot, [1e-3], duration=1.0, dt=0.03, tau=lambda t, q, qd: [0.0])
    assert fast.info["compiled"] and not slow.info["compiled"]
    np.testing.assert_allclose(fast.q, slow.q, rtol=1e-12, atol=1e-18)
    assert fast.t[-1] == 1.0
    assert fast.q[-1, 0] == pytest.approx(_pendulum_closed_form(robot, 1e-3, 1.0), rel=2e-4)


@pytest.mark.parametrize("compiled", [False, True])
def test_gains_too_high_for_dt_are_a_divergence_error(compiled, monkeypatch):
    """kp = 1e12 at dt = 1e-3 returned q ~ 1e36 as a success. The error names the step and
    the fastest rate of the closed loop (the root of s^2 + kd s + kp: about kd)."""
    if compiled:
        pytest.importorskip("numba")
    else:
        monkeypatch.setenv("ROBODYN_BACKEND", "numpy")
    robot = rd.load("planar-2r")
    ctrl = rd.control.ComputedTorque(robot, rd.trajectory.quintic([0, 0], [1, 1], 1.0),
                                     kp=1e12, kd=1e9)
    tau = ctrl if compiled else (lambda t, q, qd: ctrl(t, q, qd))
    with pytest.raises(RobodynError, match=r"simulate: the motion diverged on the step from "
                                           r"t = 0 s to 0\.001 s: .*the controller's gains are "
                                           r"too high for dt") as caught:
        rd.simulate(robot, [0, 0], duration=1.0, tau=tau, dt=1e-3)
    message = str(caught.value)
    rate = (1e9 + np.sqrt(1e18 - 4e12)) / 2
    assert _number(r"fastest rate is (\S+) 1/s", message) == pytest.approx(rate, rel=1e-2)
    assert _number(r"dt below about (\S+) s", message) == pytest.approx(2.78 / rate, rel=0.05)


@pytest.mark.parametrize("method", ["rk4", "semi-implicit-euler"])
def test_an_unbounded_torque_diverges_when_the_state_passes_the_bound(method, numpy_backend):
    """A constant torque of 1e9 N m spins the pendulum up: q = a t^2 / 2 (gravity is
    negligible), and the run stops on the step where q passes MAX_MAGNITUDE."""
    robot = rd.load("pendulum").with_values(F=0.0)
    v = robot.values
    accel = 1e9 / (v["Izz"] + v["m"] * v["l"] ** 2)
    crossing = np.sqrt(2 * MAX_MAGNITUDE / accel)
    with pytest.raises(RobodynError, match="the torques or the wrench drive the arm without "
                                           "bound") as caught:
        rd.simulate(robot, [0.0], duration=5.0, dt=0.01, tau=np.full((2, 1), 1e9),
                    method=method)
    start = _number(r"on the step from t = (\S+) s", str(caught.value))
    # semi-implicit Euler's q runs ahead of the exact one by a t dt / 2: a step earlier
    expected = np.floor(crossing / 0.01) * 0.01 - (0.01 if method != "rk4" else 0)
    assert start == pytest.approx(expected, abs=0.0101 if method != "rk4" else 1e-9)


def test_a_drifting_energy_warns_once(numpy_backend):
    """RK4 at dt = 0.05 on the passive 2R arm loses a quarter of its energy: one
    EnergyBalanceWarning, whose numbers are the drift of K + U itself."""
    robot = rd.load("planar-2r")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = rd.simulate(robot, [0.5, 0.3], duration=10.0, dt=0.05)
    drifts = [w for w in caught if issubclass(w.category, rd.EnergyBalanceWarning)]
    assert len(drifts) == 1
    assert drifts[0].filename == __file__  # it names the caller's line
    balance = sim.info["energy_balance"]
    assert balance.passive
    assert balance.error == pytest.approx(sim.total[-1] - sim.total[0], rel=1e-12)
    scale = max(np.abs(sim.total).max(), np.ptp(sim.kinetic))
    assert balance.relative == pytest.approx(abs(sim.total[-1] - sim.total[0]) / scale)
    assert balance.relative > 0.1
    assert f"{balance.relative:.1%} of the energy scale" in str(drifts[0].message)
    assert "reduce dt" in str(drifts[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rd.EnergyBalanceWarning)
        accurate = rd.simulate(robot, [0.5, 0.3], duration=1.0, dt=2e-3)
    assert accurate.info["energy_balance"].relative < 1e-6


def test_energy_balance_of_a_driven_damped_run_with_a_wrench(tmp_path, numpy_backend):
    """Every term of the balance against the integrals of its power, by hand: the torque's
    ``tau·qd``, friction's ``F_i qd_i^2``, the wrench's ``-(J^T h_e)·qd``; they cancel the
    change of K + U to integration accuracy (a sign error in any term would not)."""
    path = tmp_path / "2r.yaml"
    path.write_text(FRICTIONLESS_TWO_LINK)
    robot = rd.load(path)
    tau = np.array([[3.0, -1.0], [0.0, 2.0]])
    h_e = np.array([1.5, -2.0, 0.0, 0.0, 0.0, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error", rd.EnergyBalanceWarning)
        sim = rd.simulate(robot, [0.2, 0.4], duration=0.5, dt=2e-3, tau=tau, h_e=h_e)
    b = sim.info["energy_balance"]

    def integral(power):
        return np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(sim.t))

    applied = np.stack([np.interp(sim.t, [0, 0.5], tau[:, j]) for j in range(2)], axis=1)
    assert b.work == pytest.approx(integral((applied * sim.qd).sum(axis=1)), rel=1e-12)
    assert b.friction_loss == pytest.approx(integral(0.3 * sim.qd[:, 0] ** 2
                                                     + 0.2 * sim.qd[:, 1] ** 2), rel=1e-12)
    wrench_torque = np.einsum("kij,i->kj", robot.jacobian(sim.q), h_e)
    assert b.external == pytest.approx(-integral((wrench_torque * sim.qd).sum(axis=1)),
                                       rel=1e-12)
    assert abs(b.external) > 0.05 and b.friction_loss > 0.01 and abs(b.work) > 0.1
    assert b.change == pytest.approx(b.work + b.external - b.friction_loss, rel=1e-5)
    assert b.relative < 1e-5 and not b.off


def test_pd_gravity_is_a_set_point_controller():
    robot = rd.load("planar-2r")
    traj = rd.trajectory.quintic([0, 0], [1, 1], 1.0)
    with pytest.raises(InputError, match=r"q_ref: PDGravity regulates to a set point .* use "
                                         r"ComputedTorque\(model, trajectory, kp, kd\)"):
        rd.control.PDGravity(robot, traj, kp=10.0, kd=1.0)
    with pytest.raises(InputError, match=r"q_ref: expected 2 finite values \(the set point\)"):
        rd.control.PDGravity(robot, "up", kp=10.0, kd=1.0)
