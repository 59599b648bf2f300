"""The command line: ``robodyn models`` and ``robodyn demo``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

import robodyn as rd
from robodyn.cli import main


def test_models_lists_every_builtin(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for name in rd.models.names():
        assert name in out
    assert "puma560" in out and "6 DOF" in out


def test_demo_prints_the_inverse_dynamics_of_the_motion(capsys):
    assert main(["demo", "planar-2r", "--samples", "3"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("  0.") or
            line.startswith("  1.")]
    assert len(rows) == 3
    # t = 0: at rest at q = 0 with qdd = A pi^2 / 2 (the demo's motion)
    robot = rd.load("planar-2r")
    amplitude = np.array([0.5, 0.2])
    tau0 = robot.inverse_dynamics(np.zeros(2), np.zeros(2), amplitude * np.pi**2 / 2)
    np.testing.assert_allclose([float(x) for x in rows[0][1:]], tau0, atol=1e-4)


def test_errors_are_reported_without_a_traceback():
    result = subprocess.run([sys.executable, "-m", "robodyn.cli", "demo", "no-such-arm"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "robodyn: error: cannot load 'no-such-arm'" in result.stderr
    assert "Traceback" not in result.stderr
