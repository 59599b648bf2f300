"""Hostile values in the drive and friction features (issue 36), each refused with a
robodyn error naming the field and the fix, never a raw NumPy/SciPy traceback or a silent
reinterpretation; and what a model with drives prints and exports names every term.

Found by probing as a hostile user: each test is a defect that was there (the regression),
against a value written by hand, not robodyn's own output.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError, ModelError

ARM = """\
name: hostile
dh: standard
planar: true
gravity: [0, -9.81, 0]
links:
  - joint: revolute
    a: 0.5
    mass: 1.0
    com: [-0.25, 0, 0]
    inertia: [0, 0, 0.02, 0, 0, 0]
{link1}
  - joint: revolute
    a: 0.4
    mass: 1.0
    com: [-0.2, 0, 0]
    inertia: [0, 0, 0.02, 0, 0, 0]
{link2}
{top}
"""


def _write(tmp_path, link1="", link2="", top=""):
    path = tmp_path / "arm.yaml"
    path.write_text(ARM.format(link1=textwrap.indent(link1, "    "),
                               link2=textwrap.indent(link2, "    "), top=top))
    return path


def _load(tmp_path, **kw):
    return rd.load(_write(tmp_path, **kw))


# -- model files ---------------------------------------------------------------------------
DC = "resistance: 1.0, torque_constant: 0.05"


@pytest.mark.parametrize(("fields", "match"), [
    # a DC motor behind a gear ratio of 0: electrics divided by it (inf currents)
    (dict(link1=f"motor: {{inertia: 1.0e-4, gear_ratio: 0, {DC}}}",
          link2=f"motor: {{{DC}}}"), r"links\[0\]\.motor\.gear_ratio: 0 with a DC motor"),
    # the Stribeck shape was accepted, unused and unchecked, while static was 0
    (dict(link1="friction: {stribeck_velocity: -1}"),
     r"links\[0\]\.friction\.stribeck_velocity: -1 is negative"),
    (dict(link1="friction: {coulomb: 1, stribeck_exponent: -3}"),
     r"links\[0\]\.friction\.stribeck_exponent: -3 must be > 0"),
    # LuGre: a one-entry list for two joints was spread over both, true read as 1, null as
    # NaN ("nan must be finite")
    (dict(top="lugre: {sigma0: [2000], sigma1: 1, sigma2: 0, Fc: 1, Fs: 2, vs: 0.1}"),
     r"lugre\.sigma0: expected a number or 2 numbers \(one per joint\), got \[2000\]"),
    (dict(top="lugre: {sigma0: 1.0e4, sigma1: true, sigma2: 0, Fc: 1, Fs: 2, vs: 0.1}"),
     r"lugre\.sigma1: expected a number or 2 numbers \(one per joint\), got True"),
    (dict(top="lugre: {sigma0: 1.0e4, sigma1: 1, sigma2: null, Fc: 1, Fs: 2, vs: 0.1}"),
     r"lugre\.sigma2: expected a number or 2 numbers \(one per joint\), got None"),
    (dict(top="lugre: {sigma0: S0, sigma1: 1, sigma2: 0, Fc: 1, Fs: 2, vs: 0.1}\n"
              "values: {S0: 1.0e4}"),
     r"lugre\.sigma0: expected a number or 2 numbers \(numbers only: no values: parameters\), "
     r"got 'S0'"),
    # transmission: a values: parameter, a boolean
    (dict(top="transmission: {matrix: [[G, 0], [0, 30]], motor_inertia: [0, 0]}\n"
              "values: {G: 50}"),
     r"transmission\.matrix\[0\]\[0\]: expected a number, got 'G'; the transmission holds "
     r"numbers only"),
])
def test_model_file_hostile_drive_values_name_the_field(tmp_path, fields, match):
    with pytest.raises(ModelError, match=match):
        _load(tmp_path, **fields)


def test_transmission_reads_numbers_as_the_rest_of_the_file_does(tmp_path):
    """YAML 1.1 reads ``1e-4`` (no dot) as text: the links' fields took it as a number, the
    transmission refused it ("expected a number, got str"). ``M`` gains ``N^T J_m N``,
    by hand."""
    rigid = _load(tmp_path)
    robot = _load(tmp_path, top="transmission: {matrix: [[50, 0], [24, 30]], "
                                "motor_inertia: [2e-4, 1e-4]}")
    n = np.array([[50.0, 0.0], [24.0, 30.0]])
    reflected = n.T @ np.diag([2e-4, 1e-4]) @ n
    q = np.array([0.3, -0.7])
    np.testing.assert_allclose(robot.mass_matrix(q), rigid.mass_matrix(q) + reflected,
                               rtol=1e-14, atol=1e-14)


def test_a_huge_transmission_row_is_refused_before_reading_it():
    """The length first: a million entries were each converted before the count was
    checked (0.7 s; the first entry's error came before the length's)."""
    from robodyn.model.transmission import transmission_of

    with pytest.raises(ModelError, match=r"matrix\[0\]: 1000000 entries for 2 joints"):
        transmission_of({"matrix": [[object()] * 10**6, [0.0, 1.0]], "motor_inertia": [0, 0]},
                        2)


# -- what a model with drives prints and exports --------------------------------------------
def test_print_names_lugre_the_transmission_and_the_gear_efficiency(tmp_path):
    robot = _load(tmp_path, link1="motor: {inertia: 1.0e-5, gear_ratio: 50, efficiency: 0.8, "
                                  "efficiency_back: 0.6}",
                  top="lugre: {sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, Fs: 4, vs: 0.1}")
    text = str(robot)
    assert "gear efficiency = [0.8, 1] (back [0.6, 1])" in text
    assert "LuGre friction" in text
    coupled = _load(tmp_path, top="transmission: {matrix: [[50, 0], [24, 30]], "
                                  "motor_inertia: [2.0e-4, 1.0e-4]}")
    assert "coupled transmission theta = N q (N 2 x 2" in str(coupled)


@pytest.mark.filterwarnings("ignore:.*URDF has no armature")
@pytest.mark.parametrize("fmt", ["urdf", "mjcf"])
def test_export_names_the_gear_efficiency_it_leaves_out(tmp_path, fmt):
    """Neither format has a gear efficiency: the file says so rather than drop it."""
    robot = _load(tmp_path, link2="motor: {inertia: 1.0e-5, gear_ratio: 50, efficiency: 0.8}")
    text = getattr(robot, f"to_{fmt}")()
    assert "the gears' efficiencies (efficiency, efficiency_back) of joint(s) 2 are left out" \
        in text


# -- the Python functions --------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _numpy(numpy_backend):
    """Values and errors, not speed: no Numba compile time."""


def _motion(t_end=1.0, dt=0.01):
    return rd.trajectory.quintic([0.0, 0.0], [1.0, 0.5], t_end).sample(dt)


def test_electrics_behind_a_gear_ratio_of_0_names_it(tmp_path):
    """A model's gear of ratio 0 (no DC motor in the file) with motors given in Python:
    ``tau / G`` gave inf currents and a RuntimeWarning, no error."""
    from robodyn.motion.electrics import DCMotor, electrics

    robot = _load(tmp_path, link1="motor: {gear_ratio: 0}")
    with pytest.raises(InputError, match="motors: joint 1 has gear_ratio 0"):
        electrics(robot, _motion(), DCMotor(1.0, 0.05))


class _Samples:
    def __init__(self, **arrays):
        self.__dict__.update(arrays)


@pytest.mark.parametrize(("change", "match"), [
    # currents of the wrong sign fitted eta = -0.85 without a word
    (lambda m, i: (m, -i), r"joint 1's currents fit a gear efficiency eta = -0\.85, not in"),
    (lambda m, i: (m, "abc"), r"current: expected numbers \(T, 2\), got 'abc'"),
    (lambda m, i: (_Samples(q=m.q, qd=m.qd), i), r"motion\.qdd: missing"),
    (lambda m, i: (_Samples(q=m.q, qd=m.qd, qdd=m.qdd, tau=np.ones((3, 3))), i),
     r"motion\.tau: expected shape \(101, 2\)"),
])
def test_identify_efficiency_refuses_bad_data_by_name(tmp_path, change, match):
    from robodyn.motion.electrics import DCMotor, electrics

    # no rotor inertia: y = G k_t i, so negated currents give exactly c -> -c, eta -> -eta
    robot = _load(tmp_path, link1="motor: {gear_ratio: 80, efficiency: 0.85}",
                  link2="motor: {gear_ratio: 50, efficiency: 0.85}")
    t = np.linspace(0, 4, 101)
    q = np.stack([0.8 * np.sin(np.pi * t / 2), 0.6 * np.cos(np.pi * t)], axis=1)
    qd = np.stack([0.4 * np.pi * np.cos(np.pi * t / 2), -0.6 * np.pi * np.sin(np.pi * t)], 1)
    qdd = np.stack([-0.2 * np.pi**2 * np.sin(np.pi * t / 2),
                    -0.6 * np.pi**2 * np.cos(np.pi * t)], axis=1)
    motion = _Samples(t=t, q=q, qd=qd, qdd=qdd)
    motor = DCMotor(1.0, 0.05)
    current = electrics(robot, motion, motor).current
    motion, current = change(motion, current)
    with pytest.raises(InputError, match=match):
        rd.identify_efficiency(robot, motion, current, motor)


LUGRE = {"sigma0": 1e4, "sigma1": 100.0, "sigma2": 0.1, "Fc": 3.0, "Fs": 4.0, "vs": 0.1}


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(q0=[np.nan]), r"q0: \[nan\] is not finite"),          # SciPy's "y0 must be finite"
    (dict(q0=[0.0], z0=[0.0, 0.0]), r"z0: expected 1 values"),   # a NumPy broadcast error
    (dict(q0="ab"), r"q0: expected 1 real numbers"),            # could not convert string
    (dict(q0=[0.0], max_evaluations="many"), r"max_evaluations must be in"),
])
def test_simulate_lugre_checks_its_start(kwargs, match):
    from robodyn.motion.lugre import simulate_lugre

    with pytest.raises(InputError, match=match):
        simulate_lugre(rd.load("pendulum").without_friction(), LUGRE, duration=0.01, **kwargs)


def test_simulate_lugre_takes_constant_torques_as_rd_simulate_does():
    """``tau=[0.5]`` raised "'list' object is not callable"; it is the run of
    ``tau(t, q, qd) = [0.5]``, to the bit."""
    from robodyn.motion.lugre import simulate_lugre

    robot = rd.load("pendulum").without_friction()
    a = simulate_lugre(robot, LUGRE, q0=[0.1], duration=0.01, tau=[0.5])
    b = simulate_lugre(robot, LUGRE, q0=[0.1], duration=0.01, tau=lambda t, q, qd: [0.5])
    np.testing.assert_array_equal(a.q, b.q)


def test_elastic_joints_follow_the_order_given():
    """``joints=[1, 0]`` with ``stiffness=[1e3, 2e3]`` gave joint 0 the 1e3 (the joints were
    sorted, the values not): joint 1 has 1e3, joint 0 2e3."""
    from robodyn.motion.elastic import ElasticJoints

    arm = rd.load("planar-2r")
    springs = ElasticJoints.of(arm, stiffness=[1e3, 2e3], motor_inertia=[0.1, 0.2],
                               joints=[1, 0])
    np.testing.assert_array_equal(springs.stiffness, [2e3, 1e3])
    np.testing.assert_array_equal(springs.motor_inertia, [0.2, 0.1])
    with pytest.raises(InputError, match=r"stiffness\[0\]: -1; .* for joint 2"):  # was "1"
        ElasticJoints.of(arm, stiffness=-1.0, motor_inertia=0.2, joints=[1])
    with pytest.raises(InputError, match="stiffness: expected a number"):  # True was K = 1
        ElasticJoints.of(arm, stiffness=True, motor_inertia=0.2)


@pytest.mark.parametrize(("tau", "q0", "match"), [
    (lambda t, q, qd: [0.0, 0.0], [0.0, 0.5], r"tau: the elastic run calls tau\(t, q, theta"),
    (lambda t, q, th, qd, thd: [1.0, 2.0, 3.0], [0.0, 0.5],
     r"tau\(t, q, theta, qd, thetad\): expected 2 values"),
    (None, "ab", r"q0: expected 2 finite values, got 'ab'"),
])
def test_simulate_elastic_checks_its_torques(tau, q0, match):
    """A rigid ``tau(t, q, qd)`` raised Python's TypeError from inside SciPy, a wrong size a
    NumPy broadcast error, text NumPy's ValueError."""
    from robodyn.motion.elastic import ElasticJoints, simulate_elastic

    arm = rd.load("planar-2r")
    springs = ElasticJoints.of(arm, stiffness=2e4, motor_inertia=0.2)
    with pytest.raises(InputError, match=match):
        simulate_elastic(arm, springs, q0, duration=0.02, dt=0.01, tau=tau)


def test_dc_motor_takes_numpy_numbers_and_refuses_true():
    from robodyn.motion.electrics import DCMotor

    assert DCMotor(np.int64(2), np.float32(0.5)) == DCMotor(2.0, 0.5)
    with pytest.raises(InputError, match="DCMotor.resistance: True"):
        DCMotor(True, 0.5)


@pytest.mark.parametrize(("voltage", "match"), [
    (True, r"voltage: expected volts .* got True"),      # was 1 V
    (lambda: [1.0, 1.0], r"voltage: the callable .* takes neither \(t, q, qd\)"),
])
def test_voltage_refuses_what_is_not_volts(voltage, match):
    from robodyn.motion.electrics import DCMotor

    with pytest.raises(InputError, match=match):
        rd.simulate(rd.load("planar-2r"), [0.2, 0.1], 0.0, 0.01, motors=DCMotor(1.0, 0.5),
                    voltage=voltage, dt=1e-3, progress=False)


def test_saturated_names_a_controller_that_gives_text():
    sat = rd.control.Saturated(lambda t, q, qd: "ab", limits=[4.0])
    with pytest.raises(InputError, match="Saturated: the controller gave 'ab'"):
        sat(0.0, [0.0], [0.0])


def test_cli_voltage_on_an_elastic_model_is_refused_not_ignored(capsys):
    """``robodyn simulate elastic.yaml --voltage 24`` ran the springs with tau = 0 and said
    nothing of the voltage."""
    from pathlib import Path

    from robodyn.cli import main

    fixture = str(Path(__file__).resolve().parents[1] / "data" / "yaml" / "elastic_2r.yaml")
    assert main(["simulate", fixture, "--q0", "0", "0", "--duration", "0.02",
                 "--voltage", "24"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "robodyn: error: --voltage: not yet for elastic joints")


def test_a_stiffness_behind_a_coupled_transmission_says_so(tmp_path):
    """It was refused as 'links[0].motor.inertia: 0 ... give motor.inertia', which the
    transmission then refuses too; the springs behind a coupled transmission are its own."""
    with pytest.raises(ModelError, match=r"transmission: links\[0\]\.motor\.stiffness: the "
                                         r"springs behind a coupled transmission are its own, "
                                         r"transmission\.stiffness"):
        _load(tmp_path, link1="motor: {stiffness: 5000}",
              top="transmission: {matrix: [[50, 0], [24, 30]], motor_inertia: [2e-4, 1e-4]}")


def test_an_unbound_symbol_names_the_field_that_uses_it(tmp_path):
    """A typo in a drive field reads as a symbol: the error named the symbol only."""
    with pytest.raises(ModelError, match=r"no value for symbol\(s\) Bm1; .* "
                                         r"\(links\[1\]\.friction\.coulomb uses it\)"):
        _load(tmp_path, link2="friction: {viscous: 0.1, coulomb: Bm1}").friction_torques([0, 0])


def test_cli_says_when_a_run_leaves_the_models_lugre_friction_out(tmp_path, capsys):
    """``robodyn simulate`` (rk45) and ``robodyn energy`` of a model with ``lugre:`` left
    the LuGre friction out without a word: by default ``simulate`` now runs it (``lugre``),
    an explicit other method warns; ``energy`` says it is left out."""
    from robodyn.cli import main

    path = str(_write(tmp_path, top="lugre: {sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, "
                                    "Fs: 4, vs: 0.1}"))
    note = "LuGre friction (lugre:) is left out of this run (method='rk45')"
    assert main(["simulate", path, "--q0", "0", "0", "--duration", "0.01"]) == 0
    out, err = capsys.readouterr()
    assert "(lugre, rtol" in out and "LuGre friction" not in err
    assert main(["simulate", path, "--q0", "0", "0", "--duration", "0.01", "--method",
                 "rk45"]) == 0
    assert note in capsys.readouterr().err
    assert main(["energy", path, "--from", "0", "0", "--to", "1", "0.5", "--duration",
                 "0.5"]) == 0
    assert "LuGre friction is left out" in capsys.readouterr().out


def test_energy_consumed_names_a_motion_without_accelerations(tmp_path):
    """The gears' energy of a motion with q, qd and no qdd or tau: Python's AttributeError."""
    motion = _motion()
    with pytest.raises(InputError, match="motion: has neither qdd nor tau"):
        rd.energy.consumed(rd.load("planar-2r"), _Samples(t=motion.t, q=motion.q, qd=motion.qd))
    with pytest.raises(InputError, match=r"motion\.tau: expected shape \(101, 2\)"):
        rd.energy.consumed(rd.load("planar-2r"), _Samples(t=motion.t, q=motion.q, qd=motion.qd,
                                                         tau=np.ones(2)))


def test_identify_friction_shape_names_a_budget_that_is_not_a_count(tmp_path):
    robot = _load(tmp_path, link1="friction: {coulomb: 0.5, static: 1, stribeck_velocity: 0.1}")
    t = np.linspace(0, 5, 200)
    q = np.stack([0.4 * np.sin(0.7 * t), 0.3 * np.sin(1.1 * t)], 1)
    qd = np.stack([0.28 * np.cos(0.7 * t), 0.33 * np.cos(1.1 * t)], 1)
    qdd = np.stack([-0.196 * np.sin(0.7 * t), -0.363 * np.sin(1.1 * t)], 1)
    with pytest.raises(InputError, match=r"max_nfev must be in \(0, 10000\]"):  # TypeError
        rd.identify_friction(robot, q, qd, qdd, robot.inverse_dynamics(q, qd, qdd), shape=True,
                             max_nfev="400")


def test_exported_code_of_an_elastic_model_says_it_is_the_rigid_one():
    """The springs changed nothing in the exported functions (the robot's own methods are
    the rigid model too) and the header said nothing of them."""
    from pathlib import Path

    fixture = Path(__file__).resolve().parents[1] / "data" / "yaml" / "elastic_2r.yaml"
    text = rd.load(fixture).to_code("python")["elastic_2r.py"]
    assert "the elastic joints' springs (motor.stiffness) are not in these functions" in text
    assert "springs" not in rd.load("planar-2r").to_code("python")["planar_2r.py"]


def test_cli_voltage_without_dc_motors_names_the_option(capsys):
    """The error was the Python API's ("give motors=DCMotor(...)"), not the option's."""
    from robodyn.cli import main

    assert main(["simulate", "pendulum", "--q0", "0", "--duration", "0.02", "--voltage",
                 "24"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "robodyn: error: --voltage: pendulum gives its joints no DC motors")


def test_elastic_controllers_check_their_reference():
    """A trajectory that is not one failed at the run's first call (Python's TypeError); a
    goal given as text with NumPy's ValueError."""
    from robodyn.motion.elastic import ElasticComputedTorque, ElasticJoints
    from robodyn.motion.elastic_control import ElasticPDGravity

    arm = rd.load("planar-2r")
    springs = ElasticJoints.of(arm, stiffness=2e4, motor_inertia=0.2)
    with pytest.raises(InputError, match=r"trajectory: expected a Trajectory .* got \[0\.1"):
        ElasticComputedTorque(arm, springs, [0.1, 0.2], kp=1.0, kd=1.0)
    with pytest.raises(InputError, match="goal: expected 2 finite joint values, got 'ab'"):
        ElasticPDGravity(arm, springs, "ab", kp=100.0, kd=20.0)


def test_a_transmission_entry_past_a_doubles_range_is_named(tmp_path):
    """A 401-digit integer raised Python's OverflowError from float()."""
    with pytest.raises(ModelError, match=r"transmission\.motor_inertia\[0\]: .* is not finite "
                                         r"\(as a double\)"):
        _load(tmp_path, top="transmission: {matrix: [[50, 0], [24, 30]], motor_inertia: [1"
                            + "0" * 400 + ", 1e-4]}")
