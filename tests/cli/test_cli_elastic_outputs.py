"""``robodyn simulate`` of a model with springs writes, draws, reads torque tables and runs
PD with gravity compensation (tests/data/yaml/elastic_2r.yaml, and the same arm with only
joint 2 elastic): held by the weight's torques the saved motors sit at ``q0 + g(q0) / K``
(by hand) in named columns; a torque table is linear in between its rows (the run equals
one driven by the interpolation written in the test); Tomei's PD settles at the goal with
the motors at ``q_d + g(q_d) / K`` (by hand)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import write_model
from robodyn.cli import main
from robodyn.motion.elastic import simulate_elastic

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "yaml" / "elastic_2r.yaml"
K = np.array([5000.0, 3000.0])


@pytest.fixture(autouse=True)
def _numpy(numpy_backend):
    """Values, not speed: no Numba compile time."""


def _run(argv, capsys) -> str:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr().out


def _gravity(q):
    """The 2R's gravity torques by hand (masses 1, 0.6; centres 0.5, 0.4 from the joints;
    link 1 of length 1; gravity -9.81 along y)."""
    g = 9.81
    g2 = g * 0.6 * 0.4 * np.cos(q[0] + q[1])
    return np.array([g * (1.0 * 0.5 + 0.6 * 1.0) * np.cos(q[0]) + g2, g2])


def _partial(tmp_path) -> Path:
    """The fixture with joint 1 rigid (its stiffness and spring damping taken out)."""
    text = FIXTURE.read_text().replace("stiffness: K1,", "").replace(
        "spring_damping: 2.0, ", "").replace("values: {K1: 5000}", "")
    assert "K1" not in text.split("\n", 3)[3]
    return write_model(tmp_path, text, "partial.yaml")


def test_save_writes_named_columns_and_plot_a_picture(capsys, tmp_path):
    """Held at ``q0`` by ``tau = g(q0)``: ``theta_j = q0_j + g_j(q0) / K_j`` in every row of
    the CSV and of the npz (the same columns); the picture is a PNG, the animation a GIF."""
    q0 = np.array([0.3, 0.2])
    tau = _gravity(q0)
    out = _run(["simulate", FIXTURE, "--q0", *q0, "--duration", "0.1", "--dt", "0.02",
                "--tau", repr(float(tau[0])), repr(float(tau[1])), "--save",
                tmp_path / "run.csv", "--plot", tmp_path / "run.png"], capsys)
    assert "wrote" in out and "(6 samples every 0.02 s: t, q, theta, qd, thetad, tau)" in out
    header = (tmp_path / "run.csv").read_text().splitlines()[0].split(",")
    assert header == ["t", "q1", "q2", "theta1", "theta2", "qd1", "qd2", "thetad1", "thetad2",
                      "tau1", "tau2"]
    table = np.loadtxt(tmp_path / "run.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(table[:, 0], np.arange(6) * 0.02, atol=1e-12)
    np.testing.assert_allclose(table[:, 3:5], np.tile(q0 + tau / K, (6, 1)), atol=1e-7)
    np.testing.assert_allclose(table[:, 9:11], np.tile(tau, (6, 1)), rtol=1e-15)
    assert (tmp_path / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    _run(["simulate", FIXTURE, "--q0", *q0, "--duration", "0.1", "--dt", "0.02", "--tau",
          repr(float(tau[0])), repr(float(tau[1])), "--save", tmp_path / "run.npz",
          "--animate", tmp_path / "run.gif"], capsys)
    assert (tmp_path / "run.gif").read_bytes()[:6] == b"GIF89a"
    with np.load(tmp_path / "run.npz") as data:
        assert list(data.keys()) == header
        np.testing.assert_array_equal(np.column_stack([data[k] for k in header]), table)


def test_a_torque_table_is_linear_between_its_rows(capsys, tmp_path):
    """Rows ``g(q0)`` at 0 and ``g(q0) + (2, -1)`` at 0.1 s, held after: the run is the one
    driven by that ramp written here (``np.interp`` by hand), on joint 2 only elastic."""
    partial = _partial(tmp_path)
    q0 = np.array([0.3, 0.2])
    g0 = _gravity(q0)
    rows = np.array([[0.0, *g0], [0.1, *(g0 + [2.0, -1.0])]])
    np.savetxt(tmp_path / "tau.csv", rows, delimiter=",", header="t,tau1,tau2", comments="",
               fmt="%.17g")
    out = _run(["simulate", partial, "--q0", *q0, "--duration", "0.2", "--dt", "0.02", "--tau",
                tmp_path / "tau.csv", "--save", tmp_path / "run.csv"], capsys)
    assert "elastic joint 2 and rigid joint 1 (K = [3000]" in out
    table = np.loadtxt(tmp_path / "run.csv", delimiter=",", skiprows=1)

    def ramp(t, *state):
        return g0 + np.array([2.0, -1.0]) * min(t / 0.1, 1.0)

    want = simulate_elastic(rd.load(str(partial)), None, q0, duration=0.2, dt=0.02, tau=ramp)
    np.testing.assert_allclose(table[:, 1:3], want.q, atol=1e-7)
    np.testing.assert_allclose(table[:, 3], want.theta[:, 0], atol=1e-7)
    assert np.abs(table[-1, 1:3] - q0).max() > 1e-3      # the ramp moved the arm


@pytest.mark.parametrize("partial", [False, True])
def test_pd_gravity_settles_at_the_goal_with_the_motors_deflected(capsys, tmp_path, partial):
    """Tomei's law with ``theta_d = q_d + K^-1 g(q_d)``: at the end ``q = q_d`` and each
    motor at ``q_d + g(q_d) / K`` (all joints elastic, and joint 2 only)."""
    model = _partial(tmp_path) if partial else FIXTURE
    goal = np.array([0.8, -0.2])
    out = _run(["simulate", model, "--q0", "0", "0.5", "--duration", "2", "--dt", "0.02",
                "--controller", "pd-gravity", "--to", *goal], capsys)
    final = re.search(r"final state: q = \[([^\]]+)\], theta = \[([^\]]+)\]", out)
    q = np.array([float(x) for x in final[1].split(",")])
    theta = np.array([float(x) for x in final[2].split(",")])
    np.testing.assert_allclose(q, goal, atol=1e-3)
    held = goal + _gravity(goal) / K
    np.testing.assert_allclose(theta, held[1:] if partial else held, atol=1e-3)
    assert "PD on the motors with gravity compensation" in out
    assert float(re.search(r"final error max \|q_goal - q\| = (\S+) rad", out)[1]) < 1e-3
    # the energy with the springs' changes by the law's work (on the motors, and on the rigid
    # joint's link) less the losses: a wrong power on either side breaks the balance
    assert float(re.search(r"balance \S+ J \(relative (\S+), integrated", out)[1]) < 1e-5


def test_derive_of_a_partly_elastic_model_keeps_the_rigid_joints_rotor(capsys, tmp_path):
    """Joint 1 rigid: its link row keeps the armature ``50^2 1e-4 = 0.25`` on ``qdd1``
    (``M11 = 0.25 + 0.08 + 0.6 (1 + 0.4^2) + 0.03 + 0.25 + 2 0.6 0.4 cos q2 = 1.306 + 0.48
    cos q2``, by hand) and equals ``tau1``; joint 2 alone has a motor row
    (``0.08 thetadd2``, the armature ``40^2 5e-5`` moved off its link row)."""
    import json

    partial = _partial(tmp_path)
    out = _run(["derive", partial, "--format", "text"], capsys)
    link, motor = out.split("(1) link side")[1].split("(2) motor side")
    rows = link.strip().splitlines()[1:]
    assert "qdd1*(0.48*cos(q2) + 1.306)" in rows[0] and rows[0].endswith("= tau1")
    assert "3000*theta2" in rows[1] and rows[1].endswith("= 0")
    assert "0.08*thetadd2" in motor and "= tau2" in motor and "theta1" not in out
    data = json.loads(_run(["derive", partial, "--format", "json"], capsys))
    assert data["elastic"]["joints"] == [2] and len(data["elastic"]["motor"]) == 1


def test_the_picture_draws_links_motors_and_the_deflection(tmp_path):
    """Joint 1 rigid has one line (its link), joint 2 two (link, motor); the bottom axes
    hold ``1000 (theta2 - q2)`` in mrad."""
    from robodyn.plot.elastic import elastic_motion

    robot = rd.load(str(_partial(tmp_path)))
    run = simulate_elastic(robot, None, [0.3, 0.2], duration=0.05, dt=0.01)
    fig = elastic_motion(run, robot, reference=[0.3, 0.2])
    top, middle, bottom = fig.axes
    assert top.get_title(loc="left") == "joint 1: rigid" and len(top.lines) == 2
    assert middle.get_title(loc="left") == "joint 2: elastic" and len(middle.lines) == 3
    np.testing.assert_allclose(bottom.lines[0].get_ydata(),
                               1e3 * (run.theta[:, 0] - run.q[:, 1]), rtol=1e-12)
    assert bottom.get_ylabel() == "deflection [mrad]"
