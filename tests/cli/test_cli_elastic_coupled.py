"""``robodyn simulate`` of elastic drives behind a coupled transmission, ``--method bdf``,
``--save-dt`` and the energy line with the springs' energy: held by its weight's torques
the saved motors sit at ``N q0 + K_m^-1 N^-T g(q0)`` (by hand) on the ``--save-dt`` grid;
free, undamped and without friction the energy ``T + U + 1/2 d^T K d`` stays put; the two
implicit methods agree on Spong's per-joint model."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import write_model
from robodyn.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "yaml" / "elastic_2r.yaml"

WRIST = """\
name: coupled-wrist
planar: true
gravity: [0, -9.81, 0]
links:
  - {{joint: revolute, a: 0.7, mass: 1.3, com: [0, 0, 0]}}
  - {{joint: revolute, a: 0.5, mass: 0.8, com: [0, 0, 0]}}
transmission:
  matrix: [[40, 0], [25, 50]]
  motor_inertia: [1.0e-4, 5.0e-5]
  stiffness: [2.0, 1.5]
  spring_damping: [{d1}, {d2}]
"""


@pytest.fixture(autouse=True)
def _numpy(numpy_backend):
    """Values, not speed: no Numba compile time."""


def _run(argv, capsys) -> str:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr().out


def _gravity(q):
    """The 2R of point masses' weight torques by hand (m 1.3, 0.8 at 0.7, 0.5)."""
    g12 = 9.81 * 0.8 * 0.5 * np.cos(q[0] + q[1])
    return np.array([9.81 * (1.3 + 0.8) * 0.7 * np.cos(q[0]) + g12, g12])


def test_held_by_its_weight_the_motors_sit_at_the_static_deflection(capsys, tmp_path):
    """``tau = g(q0)`` (joint torques): ``theta_m = N q0 + d`` with ``G2 K2 d2 = g2`` and
    ``G1 K1 d1 + c K2 d2 = g1`` in every saved row, the rows every ``--save-dt``."""
    path = write_model(tmp_path, WRIST.format(d1=1e-3, d2=5e-4))
    q0 = np.array([0.3, 0.2])
    g = _gravity(q0)
    out = _run(["simulate", path, "--q0", *q0, "--duration", "0.2", "--dt", "0.01",
                "--method", "bdf", "--tau", repr(float(g[0])), repr(float(g[1])), "--save",
                tmp_path / "run.csv", "--save-dt", "0.05"], capsys)
    assert "elastic drives behind the coupled transmission N = [40, 0, 25, 50]" in out
    assert "(BDF, samples every 0.01 s)" in out and "(5 samples every 0.05 s" in out
    rows = np.genfromtxt(tmp_path / "run.csv", delimiter=",", names=True)
    np.testing.assert_allclose(rows["t"], [0, 0.05, 0.1, 0.15, 0.2], atol=1e-15)
    d2 = g[1] / (50 * 1.5)
    d1 = (g[0] - 25 * 1.5 * d2) / (40 * 2.0)
    np.testing.assert_allclose(rows["theta1"], 40 * q0[0] + d1, atol=1e-8)
    np.testing.assert_allclose(rows["theta2"], 25 * q0[0] + 50 * q0[1] + d2, atol=1e-8)
    np.testing.assert_allclose(rows["q1"], q0[0], atol=1e-8)
    assert "work of tau" in out     # tau and damping: the balance, not the drift


def test_a_free_undamped_swing_keeps_the_energy_with_the_springs(capsys, tmp_path):
    path = write_model(tmp_path, WRIST.format(d1=0, d2=0))
    out = _run(["simulate", path, "--q0", "0.3", "0.2", "--qd0", "0.5", "0",
                "--duration", "0.1", "--dt", "0.01"], capsys)
    line = re.search(r"energy T\+U\+1/2 d\^T K d: start (\S+) J, end (\S+) J, drift (\S+) J "
                     r"\(largest (\S+) J, relative (\S+)\)", out)
    assert line, out
    assert float(line[5]) < 1e-6, line[0]     # measured: 3.8e-10


def test_bdf_and_radau_agree_on_the_per_joint_springs(capsys):
    """Two implicit methods, one model (tests/data/yaml/elastic_2r.yaml): the same final
    state within their tolerances; the report names the method."""
    finals = []
    for method in ("radau", "bdf"):
        out = _run(["simulate", FIXTURE, "--q0", "0.3", "0.2", "--duration", "0.1",
                    "--dt", "0.01", "--method", method], capsys)
        assert ("Radau IIA" if method == "radau" else "(BDF,") in out
        finals.append([float(x) for x in re.search(
            r"final state: q = \[(\S+), (\S+)\]", out).groups()])
        assert "work of tau 0 J, damping and friction loss" in out
    np.testing.assert_allclose(finals[0], finals[1], atol=1e-6)


def test_derive_writes_both_sides_of_the_coupled_springs(capsys, tmp_path):
    """The motor rows equal the motors' torques; the first one is ``J_m1 theta1'' + (B_m1 +
    D_m1) theta1' + K_m1 theta1 - K_m1 G1 q1 - D_m1 G1 q1'`` (2 40 = 80, 1e-3 40 = 0.04)."""
    import json

    path = write_model(tmp_path, WRIST.format(d1=1e-3, d2=5e-4))
    out = _run(["derive", path], capsys)
    assert ("-80.0*q1 - 0.04*qd1 + 2.0*theta1 + 0.001*thetad1 + 0.0001*thetadd1 = tau_m1"
            in out), out
    data = json.loads(_run(["derive", path, "--format", "json"], capsys))
    assert data["elastic"]["coupling"] == [[40.0, 0.0], [25.0, 50.0]]


def test_the_plot_shows_the_motors_at_the_joints_and_the_springs_own_deflection():
    """Behind ``N``: each joint's dashed line is ``(N^-1 theta_m)_j`` (``theta_m2 = 25 q1 +
    50 q2`` when rigid: here ``q`` itself plus a known offset), the bottom lines ``1e3
    (theta_m - N q)``."""
    from robodyn.motion.elastic import ElasticSimulation
    from robodyn.plot.elastic import elastic_motion

    t = np.linspace(0.0, 1.0, 5)
    q = np.stack([0.1 * t, -0.2 * t], axis=1)
    N = np.array([[40.0, 0.0], [25.0, 50.0]])
    d = np.array([0.02, -0.01])                          # the springs' deflection, motors
    theta = q @ N.T + d
    run = ElasticSimulation(t, q, theta, 0 * q, 0 * q, 0 * q, 0, None, N, "bdf")
    fig = elastic_motion(run)
    joint1, joint2, bottom = fig.axes
    dashed = joint2.get_lines()[1].get_ydata()
    np.testing.assert_allclose(dashed, q[:, 1] + (d[1] - 25 * d[0] / 40) / 50, rtol=1e-12)
    np.testing.assert_allclose(bottom.get_lines()[0].get_ydata(), 1e3 * d[0], rtol=1e-12)
    np.testing.assert_allclose(bottom.get_lines()[1].get_ydata(), 1e3 * d[1], rtol=1e-12)
    assert "theta_m - N q at the motors" in bottom.get_title()
