"""A simulation driven by the motors' voltages (robodyn.motion.voltage, issue 36): closed
forms of a DC motor spinning a rotor (first order with L = 0, the 2-state linear system
with L > 0 by its matrix exponential), the electrical energy balance, the stall current,
the no-load speed, the gear's efficiency both ways, a current loop, and hostile inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.integrate import simpson
from scipy.linalg import expm

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion.electrics import DCMotor
from robodyn.motion.voltage import simulate_voltage

WHEEL = """\
name: wheel
dh: standard
gravity: [0, {g}, 0]
links:
  - joint: revolute
    a: 0
    alpha: 0
    d: 0
    theta: 0
    mass: {m}
    com: [{c}, 0, 0]
    inertia: [0.01, 0.01, {izz}, 0, 0, 0]
    motor: {{inertia: {jm}, gear_ratio: {G}, efficiency: {eta}, efficiency_back: {eta_b}}}
{limits}"""


def wheel(tmp_path, izz=0.02, jm=1e-5, G=20.0, eta=1.0, eta_b=1.0, limits="", g=0.0, c=0.0,
          m=1.0) -> rd.Robot:
    """A rotor about z0, its centre of mass at ``c`` along x1 (0: on the axis, so that the
    link's inertia about the axis is izz), gravity ``g`` along y0."""
    path = tmp_path / "wheel.yaml"
    path.write_text(WHEEL.format(izz=izz, jm=jm, G=G, eta=eta, eta_b=eta_b, limits=limits,
                                 g=g, c=c, m=m))
    return rd.load(path)


# -- L = 0: first order, qd(t) = w_inf + (qd0 - w_inf) exp(-t / T) ------------------------
def first_order(V, R, kt, kb, G, J, e=1.0):
    """Hand derivation: J qdd = G e kt i, i = (V - kb G qd) / R, so
    J qdd = (G e kt / R) (V - kb G qd): w_inf = V / (kb G), T = R J / (e kt kb G^2)."""
    return V / (kb * G), R * J / (e * kt * kb * G * G)


def test_step_voltage_without_inductance_follows_the_first_order_closed_form(tmp_path):
    izz, jm, G = 0.02, 1e-5, 20.0
    robot = wheel(tmp_path, izz=izz, jm=jm, G=G)
    R, kt, kb, V = 2.0, 0.05, 0.06, 12.0  # k_b given apart from k_t
    J = izz + G * G * jm
    w_inf, T = first_order(V, R, kt, kb, G, J)
    sim = rd.simulate(robot, [0.0], 0.0, 8 * T, voltage=V, progress=False, sample_dt=T / 50,
                      motors=DCMotor(resistance=R, torque_constant=kt, back_emf_constant=kb))
    t = sim.t
    assert np.abs(sim.qd[:, 0] - w_inf * (1 - np.exp(-t / T))).max() < 1e-7 * w_inf
    assert np.abs(sim.q[:, 0] - w_inf * (t - T * (1 - np.exp(-t / T)))).max() < 1e-7 * w_inf * T
    i = (V - kb * G * sim.qd[:, 0]) / R
    assert np.allclose(sim.info["current"][:, 0], i, rtol=0, atol=1e-12 * V / R)
    assert np.allclose(sim.tau[:, 0], G * kt * i, rtol=1e-13, atol=1e-12)
    assert np.allclose(sim.info["electric_power"][:, 0], V * i, rtol=1e-13, atol=1e-12)
    assert np.all(sim.info["voltage"] == V)
    assert "motors: peak |i| = [6] A" in str(sim)  # the stall current V / R at t = 0


def test_no_load_speed_is_the_voltage_over_the_back_emf(tmp_path):
    """The drive's natural speed limit: at V / (k_b G) the back-EMF cancels V, i = 0."""
    G = 50.0
    robot = wheel(tmp_path, G=G, jm=2e-6)
    motor = DCMotor(resistance=1.5, torque_constant=0.03)
    w_inf, T = first_order(24.0, 1.5, 0.03, 0.03, G, 0.02 + G * G * 2e-6)
    sim = rd.simulate(robot, [0.0], 0.0, 30 * T, voltage=24.0, motors=motor, progress=False)
    assert sim.qd[-1, 0] == pytest.approx(24.0 / (0.03 * G), rel=1e-9)
    assert abs(sim.info["current"][-1, 0]) < 1e-8 * 24.0 / 1.5
    assert sim.qd[:, 0].max() <= w_inf * (1 + 1e-9)  # approached from below, never passed


def test_a_load_moment_lowers_the_steady_speed(tmp_path):
    """A wrench h_e = (0, 0, 0, 0, 0, m_z) that the rotor exerts (M qdd = tau - J^T h_e,
    J^T h_e = m_z for a joint about z0 at the origin): the steady state G k_t i = m_z with
    i = (V - k_b G w) / R, so w = (V - R m_z / (G k_t)) / (k_b G)."""
    G, R, kt, V, mz = 20.0, 2.0, 0.05, 12.0, 1.5
    robot = wheel(tmp_path, G=G)
    T = first_order(V, R, kt, kt, G, 0.02 + G * G * 1e-5)[1]
    sim = rd.simulate(robot, [0.0], 0.0, 40 * T, voltage=V, progress=False,
                      motors=DCMotor(resistance=R, torque_constant=kt),
                      h_e=[0, 0, 0, 0, 0, mz])
    assert sim.qd[-1, 0] == pytest.approx((V - R * mz / (G * kt)) / (kt * G), rel=1e-9)
    assert sim.info["current"][-1, 0] == pytest.approx(mz / (G * kt), rel=1e-8)


def test_stall_current_and_torque_at_rest(tmp_path):
    """At qd = 0 the back-EMF is 0: i = V / R, tau = G eta k_t V / R. A pendulum whose
    stall torque equals its gravity torque m g l stays at rest."""
    m, l, G, R, kt, eta = 1.0, 0.5, 30.0, 2.0, 0.04, 0.9
    robot = wheel(tmp_path, G=G, eta=eta, eta_b=eta, g=-9.81, c=l, m=m, izz=0.0)
    V = m * 9.81 * l * R / (G * eta * kt)  # holding the link horizontal (x1 = x0 at q = 0)
    sim = rd.simulate(robot, [0.0], 0.0, 0.5, voltage=V, progress=False,
                      motors=DCMotor(resistance=R, torque_constant=kt), sample_dt=0.01)
    assert sim.info["current"][0, 0] == pytest.approx(V / R, rel=1e-14)
    assert sim.tau[0, 0] == pytest.approx(G * eta * kt * V / R, rel=1e-12)
    assert robot.gravity_torques([0.0])[0] == pytest.approx(m * 9.81 * l, rel=1e-12)
    assert np.abs(sim.qd).max() < 1e-9 and np.abs(sim.q).max() < 1e-9


def test_gear_efficiency_when_the_motor_drives_and_when_it_is_driven(tmp_path):
    """Starting above w_inf the load drives the motor (i < 0, qd > 0): tau = G k_t i /
    eta_b, T = R J eta_b / (k_t k_b G^2); starting below it, tau = G eta k_t i, T = R J /
    (eta k_t k_b G^2). Both decay to w_inf; qd stays away from 0, where the rule blends."""
    G, eta, eta_b, R, kt, V = 20.0, 0.8, 0.6, 2.0, 0.05, 12.0
    robot = wheel(tmp_path, G=G, eta=eta, eta_b=eta_b)
    J = 0.02 + G * G * 1e-5
    motor = DCMotor(resistance=R, torque_constant=kt)
    for qd0, e in ((24.0, 1 / eta_b), (3.0, eta)):
        w_inf, T = first_order(V, R, kt, kt, G, J, e)
        sim = rd.simulate(robot, [0.0], qd0, 5 * T, voltage=V, motors=motor, progress=False,
                          sample_dt=T / 20)
        expected = w_inf + (qd0 - w_inf) * np.exp(-sim.t / T)
        assert np.abs(sim.qd[:, 0] - expected).max() < 1e-7 * w_inf
        i = sim.info["current"][:, 0]
        assert np.allclose(sim.tau[:, 0], G * e * kt * i, rtol=1e-12, atol=1e-12)


def test_a_load_that_back_drives_a_holding_motor_creeps_at_the_blend_speed(tmp_path):
    """Gravity m g l between the driving and back-driven stall torques, G eta k_t V / R <
    m g l < G k_t V / (R eta_b): the gear holds it but for a creep where the blend's
    efficiency e(qd) = c eta + (1 - c)/eta_b, c = 1 - tanh(G |qd| / w_e), balances it:
    G k_t i e = m g l with i = (V - k_b G qd) / R (solved here by brentq). No chattering:
    qd keeps its sign."""
    from scipy.optimize import brentq

    m, l, G, R, kt, eta, eta_b, w_e = 1.0, 0.5, 30.0, 2.0, 0.04, 0.8, 0.7, 2.0
    robot = wheel(tmp_path, G=G, eta=eta, eta_b=eta_b, g=-9.81, c=l, m=m, izz=0.0)
    V = m * 9.81 * l * R / (G * kt * (eta + 1 / eta_b) / 2)  # midway between the two
    assert G * eta * kt * V / R < m * 9.81 * l < G * kt * V / (R * eta_b)
    sim = simulate_voltage(robot, DCMotor(resistance=R, torque_constant=kt), [0.0],
                           duration=1.0, voltage=V, efficiency_speed=w_e, progress=False,
                           check_limits=False, sample_dt=1e-2)
    load = m * 9.81 * l * np.cos(sim.q[-1, 0])  # it has crept 0.035 rad down by now

    def excess(qd):  # motor torque - gravity torque, qd < 0
        i = (V - kt * G * qd) / R
        c = 1 - np.tanh(G * abs(qd) / w_e)
        return G * kt * i * (c * eta + (1 - c) / eta_b) - load

    creep = brentq(excess, -50 * w_e / G, -1e-12, xtol=1e-15)
    assert sim.qd[-1, 0] == pytest.approx(creep, rel=1e-3)  # quasi-static: q still moves
    assert np.all(sim.qd[1:, 0] < 0)  # falls slowly, one way
    assert abs(creep) < w_e / G  # about w_e / G


ARM2 = """
  <option timestep="1e-4" integrator="RK4" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="l1" pos="0 0 0">
      <joint name="j1" type="hinge" axis="0 1 0" armature="0.01"/>
      <inertial pos="0.25 0 0" mass="1.0" diaginertia="0.01 0.02 0.02"/>
      <body name="l2" pos="0.5 0 0">
        <joint name="j2" type="hinge" axis="0 1 0" armature="0.005"/>
        <inertial pos="0.2 0 0.05" mass="0.7" diaginertia="0.005 0.01 0.01"/>
      </body>
    </body>
  </worldbody>"""


def test_a_two_link_arm_under_constant_voltages_equals_mujoco(tmp_path):
    """With L = 0 the motor is an affine actuator, tau = (k_t / R) V - (k_t k_b / R) qd
    (G = 1, the armature MuJoCo's): MuJoCo's general actuator with that gain and bias, run
    with RK4 at 0.1 ms, is the oracle for a 2-link arm under gravity."""
    mujoco = pytest.importorskip("mujoco")
    R, kt, kb, V = [2.0, 3.0], [0.8, 0.5], [0.9, 0.4], [3.0, -2.0]
    actuators = "".join(
        f'<general joint="j{j + 1}" gaintype="fixed" gainprm="{kt[j] / R[j]!r}" '
        f'biastype="affine" biasprm="0 0 {-kt[j] * kb[j] / R[j]!r}"/>' for j in range(2))
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco model="arm2">{ARM2}<actuator>{actuators}</actuator></mujoco>')
    data = mujoco.MjData(model)
    data.qpos[:], data.ctrl[:] = [0.3, -0.5], V
    for _ in range(10_000):  # 1 s
        mujoco.mj_step(model, data)
    path = tmp_path / "arm2.xml"
    path.write_text(f'<mujoco model="arm2">{ARM2}</mujoco>')
    sim = rd.simulate(rd.load(path), [0.3, -0.5], 0.0, 1.0, voltage=V, method="dop853",
                      motors=[DCMotor(R[j], kt[j], back_emf_constant=kb[j]) for j in range(2)],
                      rtol=1e-12, atol=1e-12, progress=False)
    assert abs(data.time - 1.0) < 1e-12
    assert np.abs(sim.q[-1] - data.qpos).max() < 1e-10
    assert np.abs(sim.qd[-1] - data.qvel).max() < 1e-9
    assert np.abs(data.qpos - [0.3, -0.5]).max() > 0.2  # it moved


def test_the_inverse_electrics_of_a_voltage_run_give_its_voltages_back(tmp_path):
    """robodyn.motion.electrics (the motion -> currents and voltages) inverts the run where
    the two models agree (module docstring): eta = eta_b = 1, or J_m = 0 with the joint
    kept out of the efficiency's blend."""
    from robodyn.motion.electrics import electrics

    arm = rd.load("planar-2r")
    motors = [DCMotor(resistance=1.0, torque_constant=0.5), DCMotor(2.0, 0.3)]
    sim = rd.simulate(arm, [0.2, 0.1], 0.0, 1.0, motors=motors, progress=False,
                      voltage=lambda t, q, qd: [4 * np.sin(3 * t), 2.0 - q[0]], sample_dt=0.01)
    back = electrics(arm, sim, motors)
    assert np.abs(back.voltage - sim.info["voltage"]).max() < 1e-10
    assert np.abs(back.current - sim.info["current"]).max() < 1e-10
    robot = wheel(tmp_path, jm=0.0, eta=0.8, eta_b=0.6)
    motor = DCMotor(resistance=2.0, torque_constant=0.05)
    for qd0 in (24.0, 3.0):  # back-driven from above the no-load speed, driving from below
        sim = rd.simulate(robot, [0.0], qd0, 0.2, voltage=12.0, motors=motor, progress=False,
                          sample_dt=0.01)
        assert np.abs(electrics(robot, sim, motor).voltage - 12.0).max() < 1e-10


# -- L > 0: the linear 2-state system x' = A x + b V, x = (qd, i) ----------------------------
def test_step_voltage_with_inductance_equals_the_matrix_exponential(tmp_path):
    """J qdd = G k_t i, L di/dt = V - R i - k_b G qd: x(t) = x_inf + expm(A t) (x0 - x_inf)
    with x_inf = (V / (k_b G), 0)."""
    G, R, L, kt, V = 10.0, 1.0, 2e-3, 0.05, 6.0
    robot = wheel(tmp_path, G=G)
    J = 0.02 + G * G * 1e-5
    A = np.array([[0.0, G * kt / J], [-kt * G / L, -R / L]])
    x_inf = np.array([V / (kt * G), 0.0])
    sim = rd.simulate(robot, [0.0], 0.0, 0.5, voltage=V, method="radau", progress=False,
                      motors=DCMotor(resistance=R, torque_constant=kt, inductance=L),
                      sample_dt=1e-3, rtol=1e-10, atol=1e-12)
    x = np.array([x_inf + expm(A * tk) @ (np.zeros(2) - x_inf) for tk in sim.t])
    assert np.abs(sim.qd[:, 0] - x[:, 0]).max() < 1e-6 * x_inf[0]
    assert np.abs(sim.info["current"][:, 0] - x[:, 1]).max() < 1e-6 * V / R
    assert sim.info["current"][0, 0] == 0.0  # the current starts at 0: L holds it
    # the electrical time constant L / R = 2 ms < the mechanical one: the current overshoots
    assert x[:, 1].max() > 0.5 * V / R


def test_energy_balance_of_a_two_link_arm_with_inductance():
    """∫ V i dt = Δ(K + U) + ∫ R i^2 dt + Δ(L i^2 / 2) summed over the joints (eta = 1, no
    friction): the supply's work goes into the arm, the copper and the inductance."""
    robot = rd.load("planar-2r")
    motors = [DCMotor(resistance=1.0, torque_constant=0.5, inductance=0.05),
              DCMotor(resistance=2.0, torque_constant=0.3, inductance=0.02)]
    assert robot.friction_torques([0.3, -0.2])[0] == 0.0

    def voltage(t, q, qd):
        return np.array([4 * np.sin(3 * t), 2.0 - q[0]])

    sim = rd.simulate(robot, [0.2, 0.1], 0.0, 1.5, voltage=voltage, motors=motors,
                      progress=False, sample_dt=5e-4, rtol=1e-11, atol=1e-12)
    t, i, V = sim.t, sim.info["current"], sim.info["voltage"]
    Rv, Lv = np.array([1.0, 2.0]), np.array([0.05, 0.02])
    drawn = simpson((V * i).sum(axis=1), x=t)
    copper = simpson((Rv * i * i).sum(axis=1), x=t)
    stored = float((Lv * i[-1] ** 2).sum() / 2)
    mechanical = sim.total[-1] - sim.total[0]
    assert abs(drawn - (mechanical + copper + stored)) < 1e-6 * abs(drawn)
    assert abs(drawn) > 0.1  # the balance is not 0 = 0
    # the run's own integrals (states of the solver) agree with the quadrature on samples
    assert sim.info["electric_energy"].sum() == pytest.approx(drawn, rel=1e-8)
    assert sim.info["copper_loss"].sum() == pytest.approx(copper, rel=1e-8)
    # and close the balance at the default tolerances, sampled at the solver's steps only
    run = rd.simulate(robot, [0.2, 0.1], 0.0, 1.5, voltage=voltage, motors=motors,
                      progress=False)
    i_end = run.info["current"][-1]
    balance = (run.info["electric_energy"].sum() - run.info["copper_loss"].sum()
               - float((Lv * i_end**2).sum() / 2) - (run.total[-1] - run.total[0]))
    assert abs(balance) < 1e-6 * abs(drawn)
    assert len(run.t) < 1500  # few samples: the trapezoid on them would be far off
    assert np.allclose(V[:, 0], 4 * np.sin(3 * t), atol=1e-14)


def test_a_current_loop_through_the_four_argument_voltage(tmp_path):
    """V = R i + k_b G qd + K (i_ref - i) leaves L di/dt = K (i_ref - i): i = i_ref (1 -
    exp(-K t / L)) whatever the motion."""
    G, R, L, kt, K, i_ref = 20.0, 2.0, 1e-3, 0.05, 5.0, 1.5
    robot = wheel(tmp_path, G=G)

    def voltage(t, q, qd, i):
        return R * i + kt * G * qd + K * (i_ref - i)

    sim = rd.simulate(robot, [0.0], 0.0, 0.01, voltage=voltage, method="radau",
                      motors=DCMotor(resistance=R, torque_constant=kt, inductance=L),
                      progress=False, sample_dt=1e-4, rtol=1e-10, atol=1e-12)
    expected = i_ref * (1 - np.exp(-K * sim.t / L))
    assert np.abs(sim.info["current"][:, 0] - expected).max() < 1e-6 * i_ref


def test_a_table_of_voltages_is_linear_between_its_times(tmp_path):
    robot = wheel(tmp_path)
    sim = rd.simulate(robot, [0.0], 0.0, 1.0, voltage=[[0.0], [10.0], [10.0]],
                      voltage_times=[0.0, 0.5, 2.0], progress=False, sample_dt=0.01,
                      motors=DCMotor(resistance=2.0, torque_constant=0.05))
    assert np.allclose(sim.info["voltage"][:, 0], np.minimum(20 * sim.t, 10.0), atol=1e-12)
    saved = np.loadtxt(sim.save(tmp_path / "run.csv"), delimiter=",", skiprows=1)
    header = (tmp_path / "run.csv").read_text().splitlines()[0].split(",")
    assert header[5:8] == ["current1", "voltage1", "electric_power1"]
    np.testing.assert_array_equal(saved[:, 6], sim.info["voltage"][:, 0])
    np.testing.assert_array_equal(saved[:, 5] * saved[:, 6], saved[:, 7])


def test_which_voltage_callables_get_the_currents(tmp_path):
    """V(t, q, qd, i) and V(t, q, qd, i=None) get the currents; V(t, q, qd, gain=2) and
    V(*args) do not (they are called with three)."""
    robot = wheel(tmp_path)
    motor = DCMotor(resistance=2.0, torque_constant=0.05, inductance=1e-3)
    seen = []

    def with_default(t, q, qd, i=None):
        seen.append(i is not None)
        return 1.0

    def with_gain(t, q, qd, gain=2.0):
        return gain

    def star(*args):
        seen.append(len(args))
        return 2.0

    run = dict(duration=0.01, motors=motor, progress=False, method="radau")
    rd.simulate(robot, [0.0], voltage=with_default, **run)
    assert seen and all(x is True for x in seen)
    sim = rd.simulate(robot, [0.0], voltage=with_gain, **run)
    assert np.all(sim.info["voltage"] == 2.0)
    seen.clear()
    rd.simulate(robot, [0.0], voltage=star, **run)
    assert set(seen) == {3}


def test_the_budget_and_progress_of_simulate_apply(tmp_path):
    robot = wheel(tmp_path)
    motor = DCMotor(resistance=2.0, torque_constant=0.05)
    with pytest.raises(rd.RobodynError, match=r"step budget ran out: max_steps = 5"):
        rd.simulate(robot, [0.0], duration=1.0, voltage=12.0, motors=motor, max_steps=5,
                    progress=False)
    reports = []
    rd.simulate(robot, [0.0], duration=0.2, voltage=12.0, motors=motor,
                progress=lambda done, total, label: reports.append((done, total)))
    assert reports and reports[-1] == (pytest.approx(0.2), 0.2)
    assert all(a[0] <= b[0] for a, b in zip(reports, reports[1:]))


# -- velocity limits --------------------------------------------------------------------------
def test_velocity_limit_report_of_a_voltage_driven_run(tmp_path):
    """qd(t) = w_inf (1 - exp(-t/T)) passes 8 rad/s (w_inf = 12) at t = T ln 3."""
    robot = wheel(tmp_path, limits="    limits: {velocity: 8}\n")
    motor = DCMotor(resistance=2.0, torque_constant=0.05)
    w_inf, T = first_order(12.0, 2.0, 0.05, 0.05, 20.0, 0.02 + 400 * 1e-5)
    dt = T / 1000
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = rd.simulate(robot, [0.0], 0.0, 3 * T, voltage=12.0, motors=motor,
                          progress=False, sample_dt=dt)
    limit_warnings = [w for w in caught if issubclass(w.category, rd.JointLimitWarning)]
    assert len(limit_warnings) == 1
    assert "velocity limit 8 first crossed" in str(limit_warnings[0].message)
    report = sim.info["velocity_limit"]
    assert report["exceeded"] == [0]
    assert 0 <= report["first_time"][0] - T * np.log(3) <= dt * (1 + 1e-9)
    assert report["ratio"][0] == pytest.approx(w_inf * (1 - np.exp(-3)) / 8, rel=1e-8)


def test_velocity_limit_report_of_a_torque_driven_run(tmp_path):
    """A constant torque on a free rotor: qd = tau t / J passes the limit at v J / tau; a
    limit above the peak is reported, not exceeded, and warns nothing."""
    J = 0.02 + 400 * 1e-5
    robot = wheel(tmp_path, limits="    limits: {velocity: 3}\n")
    with pytest.warns(rd.JointLimitWarning, match=r"velocity limit 3 first crossed at t = "
                                                   r"0\.36\d* s \(peak \|qd\| 1\.67 times"):
        sim = rd.simulate(robot, [0.0], 0.0, 0.6, tau=[[0.2]], progress=False, sample_dt=1e-3)
    report = sim.info["velocity_limit"]
    assert report["first_time"][0] == pytest.approx(3 * J / 0.2, abs=1e-3)
    assert report["peak"][0] == pytest.approx(0.2 * 0.6 / J, rel=1e-9)
    robot = wheel(tmp_path, limits="    limits: {velocity: 30}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim = rd.simulate(robot, [0.0], 0.0, 0.6, tau=[[0.2]], progress=False)
    assert sim.info["velocity_limit"]["exceeded"] == []
    assert sim.info["velocity_limit"]["ratio"][0] == pytest.approx(5 / 30, rel=1e-9)
    assert "velocity_limit" not in rd.simulate(wheel(tmp_path), [0.0], duration=0.1,
                                               progress=False).info


# -- hostile inputs ---------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    ({"voltage": [1.0, 2.0]}, r"voltage: expected one number or 1 \(one per joint\)"),
    ({"voltage": float("nan")}, r"voltage: \[nan\] is not finite"),
    ({"voltage": "12"}, r"voltage: expected volts"),
    ({"voltage": 1e12}, r"voltage: a value of magnitude"),
    ({"voltage": lambda t, q, qd: [1.0, 2.0]}, r"voltage\(t, q, qd\): returned \[1\.0, 2\.0\]"),
    ({"voltage": lambda t, q, qd: np.nan}, r"voltage\(t, q, qd\): returned nan"),
    ({"voltage": lambda t, q, qd, i: 1.0}, r"voltage\(t, q, qd, i\): .* inductance > 0"),
    ({"voltage": lambda t, q, qd: 1.0, "voltage_times": [0, 1]}, r"voltage_times: given with"),
    ({"voltage": [[1.0], [2.0]], "voltage_times": [0.5, 1]}, r"voltage_times: starts at 0\.5"),
    ({"voltage": [[1.0], [np.inf]], "voltage_times": [0, 1]}, r"voltage: every value"),
    ({"voltage": 12.0, "motors": None}, r"motors: a voltage-driven run needs"),
    ({"voltage": None, "motors": DCMotor(1.0, 0.1)}, r"voltage: motors given without"),
    ({"voltage": 12.0, "motors": [DCMotor(1.0, 0.1)] * 2}, r"motors: expected one .*DCMotor"),
    ({"voltage": 12.0, "motors": "dc"}, r"motors: expected one"),
    ({"voltage": 12.0, "motors": DCMotor(0.0, 0.1)}, r"motors\[0\]: resistance and inductance"),
    ({"voltage": 12.0, "tau": "1"}, r"tau: expected an array"),
    ({"voltage": 12.0, "values": {"m1": [1.0]}}, r"values: a voltage-driven run takes"),
    ({"voltage": 12.0, "dt": 1e-3, "method": "implicit-euler"},
     r"method: 'implicit-euler'; a voltage-driven run takes 'rk45', 'dop853', 'radau', 'rk4', "
     r"'semi-implicit-euler'"),
    ({"voltage": 12.0, "method": "rk4"}, r"method 'rk4' is a fixed-step method: give dt"),
    ({"voltage": 12.0, "q0": [[0.0], [1.0]]}, r"a batch of voltage-driven runs needs one time "
                                              r"grid"),
    ({"voltage": [lambda t, q, qd: 1.0] * 3, "q0": [[0.0], [1.0]], "sample_dt": 0.05},
     r"voltage: 3 rollouts of voltages for a batch of 2"),
])
def test_bad_voltage_arguments_are_named(tmp_path, kwargs, message):
    robot = wheel(tmp_path)
    args = {"q0": [0.0], "duration": 0.1, "motors": DCMotor(2.0, 0.05), "progress": False,
            **kwargs}
    with pytest.raises(InputError, match=message):
        rd.simulate(robot, **args)


def test_bad_motor_values_are_named():
    with pytest.raises(InputError, match=r"DCMotor\.resistance: -1\.0; give a finite number"):
        DCMotor(resistance=-1.0, torque_constant=0.1)
    with pytest.raises(InputError, match=r"DCMotor\.inductance: nan"):
        DCMotor(resistance=1.0, torque_constant=0.1, inductance=float("nan"))


def test_bad_efficiency_speed_and_zero_gear_are_named(tmp_path):
    robot = wheel(tmp_path)
    with pytest.raises(InputError, match=r"efficiency_speed: 0\.0; give a motor speed"):
        simulate_voltage(robot, DCMotor(2.0, 0.05), [0.0], voltage=1.0, efficiency_speed=0.0)
    with pytest.raises(InputError, match=r"gear_ratio 0"):
        simulate_voltage(wheel(tmp_path, G=0.0), DCMotor(2.0, 0.05), [0.0], voltage=1.0)


def test_the_model_files_dc_motors_drive_a_voltage_run_and_the_cli(tmp_path, capsys):
    """A model file's DC motors (``motor: resistance, torque_constant, ...``) are the
    motors of ``rd.simulate(..., voltage=)`` when ``motors`` is not given (the same run as
    with the DCMotor given by hand), and of ``robodyn simulate --voltage``: the no-load
    speed ``V / (k_b G)`` of the closed form."""
    from robodyn.cli import main

    text = WHEEL.format(izz=0.02, jm=2e-6, G=50.0, eta=1.0, eta_b=1.0, limits="", g=0.0,
                        c=0.0, m=1.0)
    text = text.replace("efficiency_back: 1.0}", "efficiency_back: 1.0, resistance: 1.5, "
                                                 "torque_constant: 0.03}")
    path = tmp_path / "wheel_motor.yaml"
    path.write_text(text)
    robot = rd.load(path)
    w_inf, T = first_order(24.0, 1.5, 0.03, 0.03, 50.0, 0.02 + 50.0**2 * 2e-6)
    by_file = rd.simulate(robot, [0.0], 0.0, 30 * T, voltage=24.0, progress=False)
    by_hand = rd.simulate(robot, [0.0], 0.0, 30 * T, voltage=24.0, progress=False,
                          motors=DCMotor(resistance=1.5, torque_constant=0.03))
    np.testing.assert_array_equal(by_file.qd, by_hand.qd)
    assert by_file.qd[-1, 0] == pytest.approx(w_inf, rel=1e-9)
    assert main(["simulate", str(path), "--q0", "0", "--duration", f"{30 * T:.6g}",
                 "--voltage", "24"]) == 0
    out = capsys.readouterr().out
    assert "voltage [24] V (the model's DC motors)" in out and "peak current" in out
    final = float(out.split("qd = [")[1].split("]")[0])
    assert final == pytest.approx(w_inf, rel=1e-6)
    with pytest.raises(InputError, match="motors: a voltage-driven run needs"):
        rd.simulate(wheel(tmp_path), [0.0], voltage=24.0)
    assert main(["simulate", str(path), "--q0", "0", "--duration", "0.1", "--voltage", "24",
                 "--controller", "pd-gravity", "--to", "1"]) != 0
    assert "--voltage and --controller" in capsys.readouterr().err
    # fixed steps and a load beside the motors: w = (V + R tau_L / (G k_t)) / (k_b G)
    assert main(["simulate", str(path), "--q0", "0", "--duration", f"{30 * T:.6g}",
                 "--voltage", "24", "--dt", f"{T / 100:.6g}", "--tau", "-0.3"]) == 0
    out = capsys.readouterr().out
    assert "load tau = [-0.3] (constant)" in out and "rk4, dt = " in out
    final = float(out.split("qd = [")[1].split("]")[0])
    assert final == pytest.approx((24.0 - 1.5 * 0.3 / (50 * 0.03)) / (0.03 * 50), rel=1e-6)
