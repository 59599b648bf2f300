"""``robodyn simulate --controller`` and the grid ``--save`` writes (issue 18 §2, §5): PD with
gravity compensation settles at the goal as Lyapunov says, computed torque with the exact
model obeys its error equation in closed form, the saved samples lie on a uniform grid
unless --save-steps, and every misuse is one clear line."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.cli.simulate import default_save_step


@pytest.fixture(autouse=True)
def _numpy(numpy_backend):
    """Values, not speed: no Numba compile time."""


def _run(argv, capsys) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def _csv(path) -> dict[str, np.ndarray]:
    data = np.genfromtxt(path, delimiter=",", names=True)
    return {name: data[name] for name in data.dtype.names}


def _columns(saved, name, dof):
    return np.stack([saved[f"{name}{j + 1}"] for j in range(dof)], axis=-1)


def test_pd_gravity_settles_at_the_goal_and_its_lyapunov_function_never_grows(tmp_path,
                                                                              capsys):
    """``V = 1/2 qd^T M qd + 1/2 kp |q_goal - q|^2`` has ``dV/dt = -kd |qd|^2 <= 0`` under
    ``tau = kp e - kd qd + g(q)`` (Siciliano §8.5.2), and ``V -> 0``."""
    path = tmp_path / "pd.csv"
    goal, kp, kd = np.array([1.0, -0.5]), 40.0, 12.0
    out = _run(["simulate", "planar-2r", "--q0", "0,0", "--duration", "3", "--dt", "0.01",
                "--controller", "pd-gravity", "--to", "1,-0.5", "--kp", str(kp), "--kd",
                str(kd), "--save", str(path)], capsys)
    robot = rd.load("planar-2r")
    saved = _csv(path)
    q, qd = _columns(saved, "q", 2), _columns(saved, "qd", 2)
    V = robot.kinetic_energy(q, qd) + 0.5 * kp * np.sum((goal - q) ** 2, axis=1)
    assert V[0] == pytest.approx(0.5 * kp * np.sum(goal ** 2))
    assert np.all(np.diff(V) <= 1e-9 * V[0])
    assert V[-1] < 1e-6 * V[0]
    assert np.abs(goal - q[-1]).max() < 1e-3
    # the torque saved is the control law
    tau = kp * (goal - q) - kd * qd + robot.gravity_torques(q)
    np.testing.assert_allclose(_columns(saved, "tau", 2), tau, atol=1e-9)
    final = float(re.search(r"final error max \|q_goal - q\| = (\S+) rad", out)[1])
    assert final == pytest.approx(np.abs(goal - q[-1]).max(), rel=1e-2)
    assert "PD with gravity compensation to q = [1, -0.5] (kp = 40, kd = 12)" in out


def test_computed_torque_error_is_the_critically_damped_closed_form(tmp_path, capsys):
    """Exact model, ``kp = 100``, ``kd = 20``: ``e'' + 20 e' + 100 e = 0`` with ``e(0) = 0``,
    ``e'(0) = -qd0`` (the reference starts at rest), so ``q = q_ref + qd0 t exp(-10 t)``."""
    path = tmp_path / "ct.npz"
    qd0 = np.array([0.4, -0.2])
    out = _run(["simulate", "planar-2r", "--q0", "0.1,0.2", "--qd0", "0.4,-0.2", "--duration",
                "1", "--controller", "computed-torque", "--to", "1,-0.5", "--save", str(path),
                "--save-dt", "0.01"], capsys)
    saved = np.load(path)
    t = saved["t"]
    np.testing.assert_allclose(t, np.linspace(0, 1, 101), atol=1e-12)
    q_ref = rd.trajectory.quintic([0.1, 0.2], [1.0, -0.5], 1.0)(t)[0]
    expected = q_ref + np.outer(t * np.exp(-10 * t), qd0)
    np.testing.assert_allclose(_columns(saved, "q", 2), expected, atol=1e-7)
    assert "computed torque along a quintic to q = [1, -0.5] in 1 s (kp = 100, kd = 20)" in out
    assert "max tracking error" in out


def test_save_writes_a_uniform_grid_by_default_and_the_steps_on_request(tmp_path, capsys):
    argv = ["simulate", "pendulum", "--q0", "1.0", "--duration", "0.5"]
    robot = rd.load("pendulum")
    grid, steps = tmp_path / "grid.csv", tmp_path / "steps.csv"
    out = _run([*argv, "--save", str(grid)], capsys)
    dt = default_save_step(0.5)
    assert dt == 0.001
    saved = _csv(grid)
    np.testing.assert_allclose(saved["t"], np.linspace(0, 0.5, 501), atol=1e-12)
    assert f"wrote {grid} (501 samples every 0.001 s)" in out
    sim = rd.simulate(robot, [1.0], duration=0.5, sample_dt=dt)
    for name, values in sim.columns().items():
        np.testing.assert_allclose(saved[name], values, rtol=1e-13, atol=1e-13, err_msg=name)
    out = _run([*argv, "--save", str(steps), "--save-steps"], capsys)
    sim = rd.simulate(robot, [1.0], duration=0.5)
    np.testing.assert_allclose(_csv(steps)["t"], sim.t, rtol=1e-14)
    assert "at the integrator's steps" in out
    assert len(sim.t) < 200  # the steps are not the grid


@pytest.mark.parametrize("duration, step", [(2, 0.001), (5, 0.01), (10, 0.01), (1e5, 100)])
def test_the_default_grid_has_500_to_5000_intervals(duration, step):
    assert default_save_step(duration) == pytest.approx(step)
    assert 500 <= duration / step <= 5000


BASE = ["simulate", "planar-2r", "--q0", "0,0", "--duration", "1"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--to", "1,1"], "--to is for a controller: add --controller computed-torque or "
                      "pd-gravity"),
    (["--kp", "10"], "--kp is for a controller"),
    (["--controller", "pd-gravity"], "--controller pd-gravity: give the goal with --to"),
    (["--controller", "pd-gravity", "--to", "1"], "--to: expected 2 numbers (one per joint of "
                                                  "planar-2r), got 1"),
    (["--controller", "pd-gravity", "--to", "1,2,3"], "--to: expected 2 numbers"),
    (["--controller", "pd-gravity", "--to", "1,x"], "--to: 'x' is not a number"),
    (["--controller", "pd-gravity", "--to", "qr"], "--to: 'qr' is not a configuration of "
                                                   "planar-2r"),
    (["--controller", "pd-gravity", "--to", "1,nan"], "--to: 'nan' is not a finite number"),
    (["--controller", "pd-gravity", "--to", "1,1", "--kp", "-5"],
     "--kp: gains must be >= 0"),
    (["--controller", "computed-torque", "--to", "1,1", "--kd", "1", "-2"],
     "--kd: gains must be >= 0"),
    (["--controller", "pd-gravity", "--to", "1,1", "--kd", "1,2,3"],
     "--kd: expected one number or 2"),
    (["--controller", "pd-gravity", "--to", "1,1", "--tau", "1,1"],
     "--tau and --controller pd-gravity"),
    (["--controller", "pid", "--to", "1,1"], "invalid choice: 'pid'"),
    (["--controller", "computed-torque", "--to", "1e12,0"], "--to: a value of magnitude"),
    (["--save-dt", "0.1"], "--save-dt sets what --save writes: add --save FILE"),
    (["--save-steps"], "--save-steps sets what --save writes"),
    (["--save", "x.csv", "--save-dt", "0.1", "--save-steps"], "--save-dt and --save-steps"),
    (["--save", "x.csv", "--save-dt", "0.015", "--dt", "0.01"],
     "--save-dt: 0.015 s is not a whole multiple of --dt 0.01 s"),
    (["--save", "x.csv", "--save-dt", "2"], "--save-dt: 2 s is longer than the duration"),
    (["--save", "x.csv", "--save-dt", "0"], "--save-dt"),
])
def test_misuse_is_one_clear_line(extra, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        status = main([*BASE, *extra])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and re.search(r"robodyn(?: \w+)?: error: ", err)
    assert message in err
    assert not (tmp_path / "x.csv").exists()


def test_to_takes_a_named_configuration_of_the_model(monkeypatch, capsys):
    """``robot.configurations`` (the PUMA's ``qr``, ``qz``, ... where a model has them)
    name goals; a stand-in mapping here, so the test does not depend on a model's data."""
    monkeypatch.setattr(rd.Robot, "configurations",
                        property(lambda self: {"up": (0.5, -0.25)}), raising=False)
    out = _run([*BASE, "--dt", "0.01", "--controller", "pd-gravity", "--to", "up"], capsys)
    assert "PD with gravity compensation to q = [0.5, -0.25]" in out
    named = dataclasses.replace(rd.load("planar-2r"), _configurations=(("up", (0.5, -0.25)),))
    assert "configurations: up" in str(named)
    assert main([*BASE, "--controller", "pd-gravity", "--to", "down"]) == 2
    assert "'down' is not a configuration of planar-2r (its configurations are up)" \
        in capsys.readouterr().err
