"""``robodyn torques --limits --scale``: the motion slowed to fit the torque limits."""

from __future__ import annotations

import re

import numpy as np

import robodyn as rd
from robodyn.cli import main


def test_torques_scale_slows_to_the_limit(capsys):
    argv = ["torques", "planar-2r", "--from", "0,0", "--to", "1.5,-1", "--duration", "0.3",
            "--limits", "40,40"]
    assert main(argv) == 0
    assert "over a limit" in capsys.readouterr().out
    assert main(argv + ["--scale"]) == 0
    out = capsys.readouterr().out
    k = float(re.search(r"k = ([0-9.]+)", out).group(1))
    slow, k_api = rd.scale_trajectory(rd.load("planar-2r"),
                                      rd.trajectory.quintic([0, 0], [1.5, -1], 0.3), [40, 40],
                                      samples=201)
    assert np.isclose(k, k_api, rtol=1e-8)
    assert "(within the limits)" in out and f"in {slow.duration:g} s" in out


def test_torques_scale_needs_limits_and_says_gravity(capsys):
    base = ["torques", "planar-2r", "--from", "0,0", "--to", "1.5,-1", "--duration", "0.3"]
    assert main(base + ["--scale"]) != 0
    assert "--limits" in capsys.readouterr().err
    assert main(base + ["--limits", "5,5", "--scale"]) != 0
    assert "no slowing" in capsys.readouterr().err
