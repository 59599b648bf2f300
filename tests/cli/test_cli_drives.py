"""``robodyn simulate`` and ``robodyn energy`` of a model with elastic joints and DC motors
(tests/data/yaml/elastic_2r.yaml): held by the motor torques that carry the weight, the arm
stays put with the springs deflected by ``K^-1 g(q0)`` (by hand); the controller reaches its
goal; ``--rigid`` is the rigid limit; the energy drawn is the joints' work plus the copper
loss (ideal gears, by hand); the options not yet taken are refused in one line."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import write_model
from robodyn.cli import main

FIXTURE = str(Path(__file__).resolve().parents[1] / "data" / "yaml" / "elastic_2r.yaml")


@pytest.fixture(autouse=True)
def _numpy(numpy_backend):
    """Values, not speed: no Numba compile time."""


def _run(argv, capsys) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def _vector(text: str) -> np.ndarray:
    return np.array([float(x) for x in text.split(",")])


def _gravity(q):
    """The 2R's gravity torques by hand (masses 1, 0.6; centres 0.5, 0.4 from the joints;
    link 1 of length 1; gravity -9.81 along y)."""
    g = 9.81
    g2 = g * 0.6 * 0.4 * np.cos(q[0] + q[1])
    return np.array([g * (1.0 * 0.5 + 0.6 * 1.0) * np.cos(q[0]) + g2, g2])


def test_held_by_its_weights_torque_the_arm_stays_with_the_springs_deflected(capsys):
    """``tau = g(q0)`` on the motors, ``theta0 = q0 + K^-1 g(q0)``: an equilibrium of both
    sides, so ``q`` stays ``q0`` and ``theta - q = g(q0) / K`` (K = 5000, 3000)."""
    q0 = np.array([0.3, 0.2])
    tau = _gravity(q0)
    out = _run(["simulate", FIXTURE, "--q0", "0.3", "0.2", "--duration", "0.2", "--dt", "0.01",
                "--tau", repr(float(tau[0])), repr(float(tau[1]))], capsys)
    assert "2 DOF with elastic joints (K = [5000, 3000], B = G^2 J_m = [0.25, 0.08]" in out
    final = _vector(re.search(r"final state: q = \[([^\]]+)\]", out)[1])
    np.testing.assert_allclose(final, q0, atol=1e-5)
    per_joint = _vector(re.search(r"per joint \[([^\]]+)\]", out)[1])
    np.testing.assert_allclose(per_joint, tau / np.array([5000.0, 3000.0]), rtol=1e-5)


def test_the_controller_brings_the_elastic_arm_to_its_goal(capsys):
    out = _run(["simulate", FIXTURE, "--q0", "0", "0.5", "--duration", "1.2",
                "--controller", "computed-torque", "--to", "0.8", "-0.2"], capsys)
    assert "kv = 2 sqrt(K B) = [70.7107, 30.9839]" in out   # 2 sqrt(5000 0.25), 2 sqrt(3000 0.08)
    final = float(re.search(r"final error max \|q_goal - q\| = (\S+) rad", out)[1])
    assert final < 2e-3


def test_rigid_is_the_rigid_limit(capsys):
    out = _run(["simulate", FIXTURE, "--q0", "0.3", "0.2", "--duration", "0.5", "--rigid"],
               capsys)
    assert "elastic joints" not in out
    drift = float(re.search(r"relative (\S+)\)", out)[1])
    assert abs(drift) < 1e-8          # K + U kept: the rigid arm with no torque


@pytest.mark.parametrize("extra, message", [
    (["--method", "rk4", "--dt", "0.01"], "--method: 'rk4' is not for elastic joints"),
    (["--save", "run.csv", "--save-steps"], "--save-steps: not yet for elastic joints"),
    (["--save", "run.csv", "--dt", "0.02", "--save-dt", "0.03"],
     "--save-dt: 0.03 s is not a whole multiple of the samples' step 0.02 s"),
])
def test_what_elastic_runs_do_not_take_yet_is_refused(capsys, tmp_path, monkeypatch, extra,
                                                      message):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", FIXTURE, "--q0", "0", "0", "--duration", "0.1", *extra]) == 2
    assert message in capsys.readouterr().err


IDEAL = """\
name: ideal-drives
planar: true
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 1.0, mass: 1.0, com: [-0.5, 0, 0], inertia: [0, 0, 0.08, 0, 0, 0],
     motor: {gear_ratio: 50, resistance: 1.2, torque_constant: 0.05}}
  - {joint: revolute, a: 0.8, mass: 0.6, com: [-0.4, 0, 0], inertia: [0, 0, 0.03, 0, 0, 0],
     motor: {gear_ratio: 40, resistance: 2.0, torque_constant: 0.04}}
"""


def test_energy_reports_the_energy_drawn_and_the_copper_loss(capsys, tmp_path):
    """Ideal gears, no rotor, no inductance, ``k_b = k_t``: ``P = tau qd + R (tau / (G
    k_t))^2``; held still (``--from`` = ``--to``) the joints do no work, so the energy drawn
    is the copper loss ``R i^2 T`` of the weight's torque at ``q``, by hand."""
    path = write_model(tmp_path, IDEAL)
    out = _run(["energy", str(path), "--from", "0.4", "0.7", "--to", "0.4", "0.7",
                "--duration", "2"], capsys)
    i = _gravity(np.array([0.4, 0.7])) / np.array([50 * 0.05, 40 * 0.04])
    loss = np.array([1.2, 2.0]) * i * i * 2.0
    drawn = float(re.search(r"DC motors: drawn from the supply (\S+) J", out)[1])
    assert drawn == pytest.approx(loss.sum(), rel=1e-5)
    row = re.search(r"copper loss \[J\]\s+(\S+)\s+(\S+)\s+(\S+)", out)
    np.testing.assert_allclose([float(x) for x in row.groups()], [*loss, loss.sum()],
                               rtol=1e-5)
    peak = re.search(r"peak \|current\| \[A\]\s+(\S+)\s+(\S+)", out)
    np.testing.assert_allclose([float(x) for x in peak.groups()], np.abs(i), rtol=1e-5)


def test_energy_of_a_model_without_dc_motors_says_nothing_of_them(capsys):
    out = _run(["energy", "planar-2r", "--from", "0", "0", "--to", "1", "0.5", "--duration",
                "1"], capsys)
    assert "DC motors" not in out


def test_a_sample_count_past_the_budget_is_refused_before_the_work(capsys):
    assert main(["simulate", FIXTURE, "--q0", "0", "0", "--duration", "1000", "--dt",
                 "1e-5"]) == 2
    assert "--duration / --dt: 100,000,000 steps; at most 2,000,000" in capsys.readouterr().err


def test_derive_of_an_elastic_model_adds_both_sides_of_the_springs(capsys):
    """``robodyn derive`` of a model with springs: after the rigid equations, Spong's link
    and motor sides with the file's K, D and rotor B = G^2 J_m (the armature moved off the
    link side: joint 1's inertia 1.306 -> 1.056, its rotor 0.25 = 50^2 1e-4 on the motor
    side), in every format."""
    import json

    assert main(["derive", FIXTURE, "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert "Elastic joints of elastic-2r (Spong 1987)" in out
    link, motor = out.split("(1) link side")[1].split("(2) motor side")
    assert "1.056*qdd1" in link and "0.25*thetadd1" in motor and "0.08*thetadd2" in motor
    assert "3000*theta2" in link and "= tau2" in motor
    assert main(["derive", FIXTURE, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["elastic"]["link"]) == len(data["elastic"]["motor"]) == 2
    assert main(["derive", FIXTURE, "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert "Elastic joints" in latex and latex.rstrip().endswith("\\end{document}")
    assert main(["derive", FIXTURE, "--format", "markdown"]) == 0
    assert "## Elastic joints" in capsys.readouterr().out
    assert main(["derive", "planar-2r", "--format", "text"]) == 0
    assert "Elastic" not in capsys.readouterr().out  # a rigid model: as before
