"""``robodyn simulate``, ``robodyn torques``, ``robodyn energy`` and the ``robodyn demo`` tour:
what they print and save equals what the library computes, the physics they report holds
(energy conserved, torques summing to inverse dynamics, work-energy balance), and bad
arguments get one clear line and exit status 2."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.cli.motion import numbers_attached

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _run(argv, capsys) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def _csv(path) -> dict[str, np.ndarray]:
    data = np.genfromtxt(path, delimiter=",", names=True)
    return {name: data[name] for name in data.dtype.names}


def _vector(text: str) -> np.ndarray:
    return np.array([float(x) for x in re.findall(NUMBER, text)])


# -- simulate -----------------------------------------------------------------------------------
def test_simulate_saves_what_rd_simulate_computes(tmp_path, capsys):
    path = tmp_path / "sim.csv"
    out = _run(["simulate", "planar-2r", "--q0", "-0.5,0.3", "--duration", "0.5", "--save",
                str(path), "--save-steps"], capsys)
    robot = rd.load("planar-2r")
    sim = rd.simulate(robot, [-0.5, 0.3], duration=0.5)
    saved = _csv(path)
    assert list(saved) == list(sim.columns())
    for name, values in sim.columns().items():
        np.testing.assert_allclose(saved[name], values, rtol=1e-14, atol=1e-14, err_msg=name)
    final = re.search(r"final state: q = (\[.*?\]), qd = (\[.*?\])", out)
    np.testing.assert_allclose(_vector(final[1]), sim.q[-1], rtol=1e-5)
    np.testing.assert_allclose(_vector(final[2]), sim.qd[-1], rtol=1e-5)
    # passive and frictionless: the printed start energy is U(q0), and it is conserved
    start = float(re.search(rf"start ({NUMBER}) J", out)[1])
    assert start == pytest.approx(float(robot.potential_energy([-0.5, 0.3])), rel=1e-9)
    relative = float(re.search(rf"drift {NUMBER} J \(relative ({NUMBER})\)", out)[1])
    assert relative < 1e-6
    assert f"steps: {sim.info['steps']:,}" in out


def test_simulate_fixed_step_with_a_constant_torque(tmp_path, capsys):
    # the pendulum held against gravity: tau = m g l sin(q0) keeps it at rest (U = -m g l cos q)
    robot = rd.load("pendulum")
    q0 = 0.7
    hold = float(robot.gravity_torques([q0])[0])
    path = tmp_path / "sim.npz"
    out = _run(["simulate", "pendulum", "--q0", str(q0), "--duration", "0.2", "--dt", "1e-3",
                "--method", "semi-implicit-euler", "--tau", repr(hold), "--save", str(path)],
               capsys)
    saved = np.load(path)
    np.testing.assert_allclose(saved["q1"], q0, atol=1e-12)
    np.testing.assert_allclose(saved["tau1"], hold, rtol=1e-15)
    assert saved["t"][-1] == pytest.approx(0.2) and len(saved["t"]) == 201
    assert "semi-implicit-euler, dt = 0.001 s" in out and "(constant)" in out


def test_simulate_reads_torques_from_a_csv_file(tmp_path, capsys):
    table = tmp_path / "tau.csv"
    table.write_text("t,tau1,tau2\n0,2.0,-1.0\n0.1,0.5,0.5\n# a comment\n0.3,0,1\n")
    path = tmp_path / "sim.csv"
    _run(["simulate", "planar-2r", "--q0", "0", "0", "--duration", "0.4", "--dt", "0.01",
          "--tau", str(table), "--save", str(path)], capsys)
    saved = _csv(path)
    times, values = np.array([0, 0.1, 0.3]), np.array([[2.0, -1.0], [0.5, 0.5], [0.0, 1.0]])
    # the applied torque: linear between the rows, the last row held
    np.testing.assert_allclose(saved["tau1"], np.interp(saved["t"], times, values[:, 0]),
                               atol=1e-12)
    np.testing.assert_allclose(saved["tau2"], np.interp(saved["t"], times, values[:, 1]),
                               atol=1e-12)
    sim = rd.simulate(rd.load("planar-2r"), [0, 0], duration=0.4, dt=0.01, tau=values,
                      tau_times=times)
    np.testing.assert_allclose(saved["q1"], sim.q[:, 0], rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(saved["q2"], sim.q[:, 1], rtol=1e-14, atol=1e-14)


def test_simulate_ends_at_the_duration_after_a_shorter_last_step(tmp_path, capsys):
    """``--duration 1 --dt 0.3`` stopped at 0.9 while saying "simulated for 1 s"; now the
    last step is 0.1 s and the output says so."""
    path = tmp_path / "sim.csv"
    out = _run(["simulate", "pendulum", "--q0", "0.2", "--duration", "1", "--dt", "0.3",
                "--save", str(path)], capsys)
    assert "simulated for 1 s (rk4, dt = 0.3 s, the last step 0.1 s)" in out
    assert "steps: 4" in out
    np.testing.assert_allclose(_csv(path)["t"], [0, 0.3, 0.6, 0.9, 1.0], rtol=0, atol=1e-15)
    out = _run(["simulate", "pendulum", "--q0", "0.2", "--duration", "0.9", "--dt", "0.3"],
               capsys)
    assert "simulated for 0.9 s (rk4, dt = 0.3 s)" in out and "steps: 3" in out


def test_simulate_warns_when_the_energy_balance_is_off(capsys):
    """RK4 at dt = 0.05 on the passive 2R arm: the printed drift is large, and one warning
    says the integration is not accurate."""
    assert main(["simulate", "planar-2r", "--q0", "0.5,0.3", "--duration", "10", "--dt",
                 "0.05"]) == 0
    captured = capsys.readouterr()
    relative = float(re.search(rf"drift {NUMBER} J \(relative ({NUMBER})\)", captured.out)[1])
    assert relative > 0.1
    warned = [line for line in captured.err.splitlines() if "EnergyBalance" in line
              or "drifted by" in line]
    assert len(warned) == 1
    assert warned[0].startswith("robodyn: warning: simulate: E = K + U drifted by ")
    percent = float(re.search(rf"J, ({NUMBER})% of the energy scale", warned[0])[1])
    assert percent == pytest.approx(100 * relative, abs=0.6)  # the same drift, as printed
    _run(["simulate", "planar-2r", "--q0", "0.5,0.3", "--duration", "1", "--dt", "0.002"],
         capsys)
    assert "warning" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_stiff_model_stops_at_once_and_radau_runs_it(tmp_path):
    """Viscous friction 1e9 with the default rk45 ran past 90 s without a word."""
    model = tmp_path / "stiff.yaml"
    model.write_text(rd.models.path("pendulum").read_text().replace("F: 0.1", "F: 1.0e9"))
    env = {**os.environ, "ROBODYN_BACKEND": "numpy"}
    command = [sys.executable, "-m", "robodyn.cli", "simulate", str(model), "--q0", "1",
               "--duration", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=90, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("robodyn: error: simulate: stiff system (step size fell to ")
    assert "try method='radau'" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(command + ["--method", "radau"], capture_output=True, text=True,
                          timeout=90, env=env)
    assert done.returncode == 0, done.stderr
    # overdamped: qd = -m g l sin(q) / F
    qd = _vector(re.search(r"qd = (\[.*?\])", done.stdout)[1])
    np.testing.assert_allclose(qd, -1.0 * 9.81 * 0.5 * np.sin(1.0) / 1e9, rtol=1e-4)


def test_vectors_take_commas_spaces_and_negative_numbers(tmp_path, capsys):
    finals = []
    for q0 in (["-0.5,-1e-1"], ["-0.5", "-0.1"], ["-0.5 -0.1"], ["-.5,", "-0.1"]):
        out = _run(["simulate", "planar-2r", "--q0", *q0, "--duration", "0.05"], capsys)
        assert "q0 = [-0.5, -0.1]" in out
        finals.append(re.search(r"final state: q = (\[.*?\])", out)[1])
    assert len(set(finals)) == 1


def test_negative_numbers_are_values_on_every_python(capsys):
    """A word that starts with a minus and a digit is a number, not an option, whatever the
    Python (3.11 and 3.12's argparse read only -1 and -0.5 so): the words are attached to
    their option with '=' (argparse's own syntax), a vector option taking all its words."""
    assert numbers_attached(["simulate", "m", "--q0", "-0.5,0.3", "--dt", "-1e-3", "--save",
                             "x.csv"]) == ["simulate", "m", "--q0=-0.5,0.3", "--dt=-1e-3",
                                           "--save", "x.csv"]
    assert numbers_attached(["torques", "m", "--from", "1", "-.5,", "-2", "--to", "1,2"]) == \
        ["torques", "m", "--from=1 -.5, -2", "--to", "1,2"]
    for unchanged in (["simulate", "m", "--q0", "1", "2", "--duration", "1"],
                      ["simulate", "m", "--q0=-1,2", "--", "-1"],
                      ["derive", "m", "--digits", "-1e3"], []):
        assert numbers_attached(unchanged) == unchanged
    # read through the parser: the value reaches its type, which names what is wrong
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--dt", "-1e-3"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --dt: '-1e-3' is not a time step in seconds (a number above 0" in err
    out = _run(["torques", "planar-2r", "--from", "-1e-1", "-2e-1", "--to", "0.5,-1e-3",
                "--duration", "1", "--samples", "3"], capsys)
    assert "along a quintic from [-0.1, -0.2] to [0.5, -0.001] in 1 s" in out


# -- torques ------------------------------------------------------------------------------------
def test_torques_saves_every_term_along_the_quintic(tmp_path, capsys):
    path = tmp_path / "torques.csv"
    q0, q1 = [0.2, -0.4], [1.1, 0.6]
    out = _run(["torques", "planar-2r", "--from", "0.2,-0.4", "--to", "1.1,0.6", "--duration",
                "2", "--samples", "41", "--save", str(path)], capsys)
    robot = rd.load("planar-2r")
    saved = _csv(path)
    t = np.linspace(0, 2, 41)
    q, qd, qdd = rd.trajectory.quintic(q0, q1, 2.0)(t)
    np.testing.assert_allclose(saved["t"], t, rtol=1e-15)
    tau = robot.inverse_dynamics(q, qd, qdd)
    for j in range(2):
        np.testing.assert_allclose(saved[f"q{j + 1}"], q[:, j], rtol=1e-14)
        np.testing.assert_allclose(saved[f"total{j + 1}"], tau[:, j], rtol=1e-12, atol=1e-12)
        parts = sum(saved[f"{name}{j + 1}"] for name in rd.TorqueParts.NAMES)
        np.testing.assert_allclose(parts, tau[:, j], rtol=1e-12, atol=1e-12)
        # gravity alone from the gravity kernel
        np.testing.assert_allclose(saved[f"gravity{j + 1}"], robot.gravity_torques(q)[:, j],
                                   rtol=1e-12, atol=1e-12)
    # the printed table: the peak |term| per joint
    for name in (*rd.TorqueParts.NAMES, "total"):
        row = re.search(rf"^  {name} +(.*)$", out, re.M)[1]
        peaks = [np.abs(saved[f"{name}{j + 1}"]).max() for j in range(2)]
        np.testing.assert_allclose(_vector(row), peaks, rtol=1e-5, atol=1e-12)


@pytest.mark.parametrize("profile", ["cubic", "trapezoidal"])
def test_torques_follows_the_chosen_profile(profile, tmp_path, capsys):
    path = tmp_path / "torques.csv"
    _run(["torques", "pendulum", "--from", "0", "--to", "1.5", "--duration", "1.5",
          "--profile", profile, "--samples", "31", "--save", str(path)], capsys)
    saved = _csv(path)
    q, qd, qdd = getattr(rd.trajectory, profile)([0.0], [1.5], 1.5)(saved["t"])
    np.testing.assert_allclose(saved["q1"], q[:, 0], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(saved["qdd1"], qdd[:, 0], rtol=1e-12, atol=1e-12)
    robot = rd.load("pendulum")
    np.testing.assert_allclose(saved["total1"], robot.inverse_dynamics(q, qd, qdd)[:, 0],
                               rtol=1e-12, atol=1e-12)


# -- energy -------------------------------------------------------------------------------------
def _energy_rows(block: str) -> dict[str, np.ndarray]:
    rows = {}
    for label in ("positive work", "net work", "effort"):
        rows[label] = _vector(re.search(rf"^  {label} \[[^\]]*\](.*)$", block, re.M)[1])
    return rows


def test_energy_prints_what_rd_energy_consumed_computes(capsys):
    out = _run(["energy", "planar-2r", "--from", "-1,1", "--to", "1,-1", "--duration", "1.5",
                "--samples", "101"], capsys)
    robot = rd.load("planar-2r")
    t = np.linspace(0, 1.5, 101)
    report = rd.energy.consumed(robot, rd.trajectory.Motion(
        t, *rd.trajectory.quintic([-1, 1], [1, -1], 1.5)(t)))
    rows = _energy_rows(out)
    for label, name in (("positive work", "positive_work"), ("net work", "net_work"),
                        ("effort", "effort")):
        expected = [*getattr(report, f"{name}_per_joint"), getattr(report, name)]
        np.testing.assert_allclose(rows[label], expected, rtol=1e-5, err_msg=label)
    # work-energy theorem, independently: no friction, so net work = U(q1) - U(q0)
    change = robot.potential_energy([1, -1]) - robot.potential_energy([-1, 1])
    assert rows["net work"][-1] == pytest.approx(float(change), rel=1e-5)


def test_energy_optimize_finds_a_cheaper_motion(capsys):
    out = _run(["energy", "planar-2r", "--from", "-1,1", "--to", "1,-1", "--duration", "1.5",
                "--samples", "61", "--optimize", "--objective", "effort", "--via-points", "2"],
               capsys)
    quintic_block, optimized_block = out.split("optimised for effort")
    before = _energy_rows(quintic_block)["effort"][-1]
    after = _energy_rows(optimized_block)["effort"][-1]
    best = rd.energy.optimize(rd.load("planar-2r"), [-1, 1], [1, -1], 1.5, via_points=2,
                              objective="effort", samples=61)
    assert before == pytest.approx(best.info["baseline_energy"], rel=1e-5)
    assert after == pytest.approx(best.info["energy"], rel=1e-5)
    assert after < before
    saving = float(re.search(r"\((\d+\.\d)% less\)", out)[1])
    assert saving == pytest.approx(100 * (1 - after / before), abs=0.06)


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("argv", "words"), [
    (["simulate", "planar-2r", "--q0", "1", "--duration", "1"],
     ["--q0: expected 2 numbers (one per joint of planar-2r), got 1"]),
    (["simulate", "planar-2r", "--q0", "1,2,3", "--duration", "1"], ["--q0", "got 3"]),
    (["simulate", "planar-2r", "--q0", "1,nan", "--duration", "1"],
     ["--q0", "'nan' is not a finite number"]),
    (["simulate", "planar-2r", "--q0", "1,abc", "--duration", "1"],
     ["--q0", "'abc' is not a number"]),
    (["simulate", "planar-2r", "--q0", ",", "--duration", "1"], ["--q0", "holds no numbers"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--qd0", "1e999,0", "--duration", "1"],
     ["--qd0", "not a finite number"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "0"],
     ["--duration", "'0' is not a duration"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "-2"], ["--duration", "'-2'"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "inf"], ["--duration", "'inf'"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "soon"],
     ["--duration", "'soon' is not a number"]),
    (["simulate", "planar-2r", "--q0", "0,0"], ["required", "--duration"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--dt", "0"], ["--dt"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "0.1", "--dt", "0.5"],
     ["--dt: 0.5 s is longer than the duration 0.1 s"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1000", "--dt", "1e-5"],
     ["100,000,000 steps; at most"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--method", "rk4"],
     ["--method rk4 is a fixed-step method: give --dt"]),
    # huge inputs used to overflow in the dynamics and blame the parameter g = 9.81
    (["simulate", "planar-2r", "--q0", "0,0", "--qd0", "1e200,0", "--duration", "1"],
     ["--qd0: a value of magnitude 1e+200 is out of range: at most 1e+10"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--tau", "1e300,0", "--duration", "1"],
     ["--tau: a value of magnitude 1e+300 is out of range"]),
    (["torques", "planar-2r", "--from", "1e200,0", "--to", "1,1", "--duration", "1"],
     ["--from: a value of magnitude 1e+200 is out of range"]),
    (["energy", "planar-2r", "--from", "0,0", "--to", "0,1e200", "--duration", "1"],
     ["--to: a value of magnitude 1e+200 is out of range"]),
    (["torques", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1e-300"],
     ["--duration: 1e-300 s is too short for this motion: its speeds or accelerations "
      "overflow float64"]),
    (["torques", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1e-6",
      "--profile", "trapezoidal"], ["--duration: 1e-06 s is too short for this motion: its "
                                    "speeds or accelerations reach "]),
    (["simulate", "planar-2r", "--q0", "0,1e11", "--duration", "1"],
     ["--q0: a value of magnitude 1e+11 is out of range"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--max-steps", "0"],
     ["--max-steps", "0 is not between 1 and 2000000"]),
    (["simulate", "planar-2r", "--q0", "0.5,0", "--duration", "1", "--max-steps", "3"],
     ["simulate: the step budget ran out: max_steps = 3 rk45 steps reached t = "]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--method",
      "implicit-euler"], ["--method implicit-euler is a fixed-step method: give --dt"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--method", "euler"],
     ["--method", "invalid choice"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--tau", "1,2,3"],
     ["--tau: expected 2 numbers"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--tau", "1,x"],
     ["--tau: 'x' is not a number", "CSV file"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--tau", "missing.csv"],
     ["--tau: no file 'missing.csv'"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--save", "run.txt"],
     ["--save: 'run.txt': use a file name ending in .csv or .npz"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--save", "no/dir/run.csv"],
     ["--save: the folder 'no/dir' does not exist"]),
    (["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--tip", "tool"],
     ["--tip applies to URDF files only"]),
    (["simulate", "no-such-arm", "--q0", "0,0", "--duration", "1"],
     ["cannot load 'no-such-arm'"]),
    (["torques", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1", "--profile",
      "linear"], ["--profile", "invalid choice: 'linear'"]),
    (["torques", "planar-2r", "--from", "0,0", "--to", "1", "--duration", "1"],
     ["--to: expected 2 numbers"]),
    (["torques", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1", "--samples",
      "1"], ["--samples", "1 is not between 2 and"]),
    (["torques", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1", "--save",
      "t.npz"], ["--save: 't.npz': use a file name ending in .csv"]),
    (["energy", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "nan"],
     ["--duration", "'nan'"]),
    (["energy", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1", "--objective",
      "speed"], ["--objective", "invalid choice: 'speed'"]),
    (["energy", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1", "--optimize",
      "--via-points", "0"], ["--via-points", "0 is not between 1 and 20"]),
    (["energy", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1", "--optimize",
      "--via-points", "10000"], ["--via-points", "10000 is not between 1 and 20"]),
])
def test_bad_arguments_are_clear_errors(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert re.search(r"robodyn(?: \w+)?: error: ", err)
    for word in words:
        assert word in err


@pytest.mark.parametrize(("content", "words"), [
    ("t,tau1,tau2\n0,1\n", ["line 2: 2 columns; expected 3 (t,tau1..tau2)"]),
    ("t,tau1,tau2\n0,1,x\n", ["line 2, column tau2: 'x' is not a number"]),
    ("0,1,2\n1,1,nan\n", ["line 2, column tau2: 'nan' is not a finite number"]),
    ("0,1,2\n0,1,2\n", ["the times (first column) must increase strictly"]),
    ("t,tau1,tau2\n", ["holds no rows"]),
])
def test_a_bad_torque_file_is_a_clear_error(content, words, tmp_path, capsys):
    table = tmp_path / "tau.csv"
    table.write_text(content)
    assert main(["simulate", "planar-2r", "--q0", "0,0", "--duration", "0.1", "--tau",
                 str(table)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("robodyn: error: --tau: ")
    for word in words:
        assert word in err


# -- the tour -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_demo_tour_runs_and_reports_the_physics(tmp_path, capsys):
    out_dir = tmp_path / "pictures"
    out = _run(["demo", "--out", str(out_dir)], capsys)
    # 1. the RP arm's closed forms (Lagrange-Euler, by hand: M11 = Izz1 + Izz2 + m1 l1^2 +
    # m2 q2^2, M22 = m2, g2 = m2 g sin q1)
    assert "M = [[Izz1 + Izz2 + l1**2*m1 + m2*q2**2, 0], [0, m2]]" in out
    assert "g*m2*sin(q1)" in out
    # 2. the dropped 2R arm: energy starts at U(q0) and is conserved
    robot = rd.load("planar-2r")
    start = float(re.search(rf"start ({NUMBER}) J", out)[1])
    assert start == pytest.approx(float(robot.potential_energy([1.0, -0.5])), rel=1e-9)
    assert float(re.search(rf"drift {NUMBER} J \(relative ({NUMBER})\)", out)[1]) < 1e-8
    # 3. computed torque with the exact model tracks the quintic
    assert float(re.search(rf"max tracking error ({NUMBER}) rad", out)[1]) < 1e-6
    # 4. the optimised motion costs less than the quintic, whose cost is rd.energy.consumed's
    before, after = (float(x) for x in re.search(
        rf"quintic ({NUMBER}) J, optimised spline ({NUMBER}) J", out).groups())
    t = np.linspace(0, 1.5, 201)
    quintic = rd.trajectory.Motion(t, *rd.trajectory.quintic([-1, 1], [1, -1], 1.5)(t))
    assert before == pytest.approx(rd.energy.consumed(robot, quintic).positive_work, rel=1e-3)
    assert after < before
    if importlib.util.find_spec("robodyn.plot") is None:
        assert not out_dir.exists() and "no pictures" in out
    else:
        pictures = sorted(p.name for p in out_dir.iterdir())
        assert "2r-drop-energy.png" in pictures and "2r-drop.gif" in pictures
        assert "puma-tracking.png" in pictures and "2r-energy-comparison.png" in pictures
        assert f"Pictures in {out_dir}/" in out


# -- pictures (rd.plot) -------------------------------------------------------------------------
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_simulate_draws_and_animates(tmp_path, capsys):
    pytest.importorskip("robodyn.plot")
    picture, animation = tmp_path / "sim.png", tmp_path / "sim.gif"
    out = _run(["simulate", "planar-2r", "--q0", "0.5,0", "--duration", "0.3", "--plot",
                str(picture), "--animate", str(animation)], capsys)
    assert picture.read_bytes().startswith(PNG)
    assert animation.read_bytes()[:6] in (b"GIF87a", b"GIF89a")
    assert f"wrote {picture}" in out and f"wrote {animation}" in out


def test_torques_and_energy_draw(tmp_path, capsys):
    pytest.importorskip("robodyn.plot")
    picture = tmp_path / "torques.png"
    _run(["torques", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1",
          "--samples", "21", "--plot", str(picture)], capsys)
    assert picture.read_bytes().startswith(PNG)
    picture = tmp_path / "energy.png"
    out = _run(["energy", "pendulum", "--from", "0", "--to", "1", "--duration", "1",
                "--samples", "21", "--optimize", "--plot", str(picture)], capsys)
    assert picture.read_bytes().startswith(PNG)
    assert (tmp_path / "energy-optimized.png").read_bytes().startswith(PNG)
    assert "energy-optimized.png" in out
    # the quintic and the optimised motion overlaid
    assert (tmp_path / "energy-comparison.png").read_bytes().startswith(PNG)
    assert "energy-comparison.png (the quintic and the optimised motion overlaid)" in out


def test_a_bad_picture_name_is_an_error_before_any_work(tmp_path, capsys):
    pytest.importorskip("robodyn.plot")
    assert main(["simulate", "planar-2r", "--q0", "0,0", "--duration", "1", "--animate",
                 str(tmp_path / "sim.png")]) == 2
    assert "--animate: 'sim.png': use a file name ending in .gif or .mp4" in \
        capsys.readouterr().err
    assert main(["torques", "planar-2r", "--from", "0,0", "--to", "1,1", "--duration", "1",
                 "--plot", str(tmp_path / "torques.xyz")]) == 2
    assert "--plot: 'torques.xyz': use a file name ending in" in capsys.readouterr().err


def test_an_mp4_without_ffmpeg_fails_before_the_simulation(tmp_path, monkeypatch, capsys):
    """The writer is checked first: no 100 s simulation to learn that ffmpeg is missing."""
    from matplotlib import animation

    monkeypatch.setattr(animation.FFMpegWriter, "isAvailable", classmethod(lambda cls: False))
    ran = []
    monkeypatch.setattr("robodyn.cli.simulate.simulate", lambda *a, **k: ran.append(1))
    code = main(["simulate", "planar-2r", "--q0", "0,0", "--duration", "100",
                 "--animate", str(tmp_path / "sim.mp4")])
    assert code == 2 and not ran and not list(tmp_path.iterdir())
    assert "--animate: 'sim.mp4': writing .mp4 needs ffmpeg" in capsys.readouterr().err


SATELLITE = """
    name: satellite
    floating: true
    gravity: [0, 0, -g]
    base: {mass: 10, com: [0, 0.05, 0.1], inertia: [0.5, 0.6, 0.7, 0.01, 0, 0.02]}
    links:
      - {joint: revolute, a: 0.4, alpha: pi/2, mass: 1.5, com: [-0.2, 0, 0],
         inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
    values: {g: 9.81}
    """


def test_simulate_takes_a_floating_model_and_its_nq_values(tmp_path, capsys):
    """A free-flying body let go at rest falls as one: the base's height is
    ``z0 - g t^2 / 2`` (RK4 integrates the parabola exactly), it does not turn, the joint
    stays; ``--q0`` takes the ``nq`` values, quaternion ``x y z w``."""
    from conftest import write_model

    model = write_model(tmp_path, SATELLITE)
    out = tmp_path / "fall.csv"
    assert main(["simulate", str(model), "--q0", "0,0,2,0,0,0,1,0.3", "--duration", "0.5",
                 "--dt", "0.01", "--save", str(out)]) == 0
    assert "satellite: 7 DOF simulated for 0.5 s" in capsys.readouterr().out
    run = np.genfromtxt(out, delimiter=",", names=True)
    np.testing.assert_allclose(run["q3"], 2 - 9.81 * run["t"] ** 2 / 2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(run["q7"], 1.0, rtol=0, atol=1e-15)  # the quaternion's w
    np.testing.assert_allclose(run["q8"], 0.3, rtol=0, atol=1e-12)  # the joint
    assert main(["simulate", str(model), "--q0", "0,0,2", "--duration", "0.5"]) == 2
    assert "--q0: expected 8 numbers (satellite's nq: the quaternions x y z w" in \
        capsys.readouterr().err


def test_torques_of_a_floating_model_along_a_translation_are_newtons_law(tmp_path, capsys):
    """``--from``/``--to`` of ``nq`` values: a base moved 0.5 m along x without turning,
    its joint held, needs the base force ``m_total x''`` along x and ``m_total g`` up
    (body axes = world axes here), and nothing about the other axes."""
    from conftest import write_model

    model = write_model(tmp_path, SATELLITE)
    out = tmp_path / "push.csv"
    assert main(["torques", str(model), "--from", "0,0,2,0,0,0,1,0.3", "--to",
                 "0.5,0,2,0,0,0,1,0.3", "--duration", "2", "--samples", "41",
                 "--save", str(out)]) == 0
    assert "satellite: inverse dynamics along a quintic" in capsys.readouterr().out
    run = np.genfromtxt(out, delimiter=",", names=True)
    mass = 10 + 1.5
    np.testing.assert_allclose(run["q1"][[0, -1]], [0.0, 0.5], atol=1e-15)
    np.testing.assert_allclose(run["total1"], mass * run["qdd1"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(run["total3"], mass * 9.81, rtol=1e-12)
    np.testing.assert_allclose(run["total2"], 0.0, atol=1e-12)


def test_energy_of_a_floating_model_is_the_change_of_potential_energy(tmp_path, capsys):
    """``energy`` takes ``nq`` values: rest to rest, with no friction, the net work of the
    body wrench and the joint torque is ``U(q1) - U(q0)`` (work-energy theorem); a column
    per velocity coordinate, the body twist's named; ``--optimize`` finds a motion with
    less positive work between the same poses."""
    from conftest import write_model

    model = write_model(tmp_path, SATELLITE)
    q0, q1 = [0, 0, 2, 0, 0, 0, 1, 0.3], [0.5, 0, 2.2, 0, 0, 0.3826834, 0.9238795, 1.0]
    assert main(["energy", str(model), "--from", ",".join(map(str, q0)), "--to",
                 ",".join(map(str, q1)), "--duration", "2", "--samples", "2001",
                 "--optimize"]) == 0
    out = capsys.readouterr().out
    robot = rd.load(str(model))
    drop = float(robot.potential_energy(robot.chain.normalized(q1))
                 - robot.potential_energy(np.array(q0, dtype=float)))
    lines = out.splitlines()
    assert lines[1].split() == ["j1", "v_x", "j1", "v_y", "j1", "v_z", "j1", "w_x", "j1", "w_y",
                                "j1", "w_z", "joint", "2", "total"]
    net = float(lines[3].split()[-1])
    assert net == pytest.approx(drop, rel=1e-5)
    before, after = (float(x) for x in out.split("positive work: ")[1].split()[0:3:2])
    assert after < before


def test_demo_of_a_free_body_prints_its_newton_euler_wrench(tmp_path, capsys):
    """``robodyn demo`` of a drone (one free joint): at each printed instant the wrench is
    the body's Newton-Euler equations in its own frame, ``f = m (v' + w x v) - m R^T g``,
    ``n = I w' + w x I w`` (by hand), along ``q = q0 ⊕ A (1 - cos(pi t)) / 2``."""
    from scipy.spatial.transform import Rotation

    from conftest import write_model

    model = write_model(tmp_path, """
        name: drone
        floating: true
        gravity: [0, 0, -9.81]
        base: {mass: 1.5, com: [0, 0, 0], inertia: [0.02, 0.03, 0.05, 0, 0, 0]}
        links: []
        """)
    assert main(["demo", str(model), "--samples", "5"]) == 0
    out = capsys.readouterr().out
    rows = np.array([line.split() for line in out.splitlines()[2:7]], dtype=float)
    t, tau = rows[:, 0], rows[:, 1:]
    A = np.linspace(0.5, 0.2, 6)
    u = A * (1 - np.cos(np.pi * t[:, None])) / 2
    v = A * np.pi * np.sin(np.pi * t[:, None]) / 2
    a = A * np.pi**2 * np.cos(np.pi * t[:, None]) / 2
    # the body turns about the fixed axis u[3:] (in its frame) and moves along R-rotated
    # exp of the twist; gravity in the body frame needs only the rotation
    R = Rotation.from_rotvec(u[:, 3:]).as_matrix()
    g = np.einsum("kji,j->ki", R, [0, 0, -9.81])
    inertia = np.diag([0.02, 0.03, 0.05])
    force = 1.5 * (a[:, :3] + np.cross(v[:, 3:], v[:, :3]) - g)
    torque = a[:, 3:] @ inertia + np.cross(v[:, 3:], v[:, 3:] @ inertia)
    np.testing.assert_allclose(tau, np.hstack([force, torque]), atol=1e-4)


def test_the_file_options_reach_the_mjcf_and_urdf_loaders(tmp_path, capsys):
    """``--mimic independent`` keeps a URDF <mimic> joint (and an MJCF <equality joint>)
    a coordinate of its own; ``--asset-root`` widens an MJCF file's mesh folder; each is
    refused, by name, for a file it does not apply to."""
    panda = str(rd.models.example_robot_data("panda_description/urdf/panda.urdf")) \
        if _has_erd() else None
    if panda is None:
        pytest.skip("example-robot-data is not installed")
    for flags, dof in (([], 8), (["--mimic", "independent"], 9)):
        assert main(["demo", panda, "--samples", "2", *flags]) == 0
        assert f": {dof} DOF," in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["demo", panda, "--asset-root", str(tmp_path), "--samples", "2"])
    assert "--asset-root applies to MJCF files only" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["demo", "planar-2r", "--mimic", "independent"])
    assert "--mimic applies to URDF and MJCF files only" in capsys.readouterr().err
    # an MJCF file whose mesh lies above its folder: refused, then read with --asset-root
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "box.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    (tmp_path / "model").mkdir()
    model = tmp_path / "model" / "arm.xml"
    model.write_text(
        '<mujoco><compiler meshdir="../meshes"/><asset><mesh name="m" file="box.obj"/>'
        '</asset><worldbody><body><joint type="hinge" axis="0 0 1"/>'
        '<geom type="mesh" mesh="m" mass="1"/></body></worldbody></mujoco>')
    assert main(["demo", str(model), "--samples", "2"]) == 2
    assert "--asset-root" in capsys.readouterr().err
    assert main(["demo", str(model), "--samples", "2", "--asset-root", str(tmp_path)]) == 0
    assert ": 1 DOF," in capsys.readouterr().out


def _has_erd() -> bool:
    import importlib.metadata

    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True
