"""The stick figure of a tree joins each link to its parent (not to the link before)."""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import robodyn as rd  # noqa: E402
from conftest import TESTS  # noqa: E402

sys.path.insert(0, str(TESTS / "dynamics"))
from tree_models import robot_of, y_tree  # noqa: E402


def test_a_tree_is_drawn_branch_by_branch(numpy_backend):
    robot = robot_of(y_tree())
    q = np.array([0.4, 0.9, -0.7])
    fig = rd.plot.arm(robot, q, frames=False)
    ax = fig.axes[0]
    assert ax.name != "3d"  # the Y is planar
    (links,) = [line for line in ax.get_lines() if line.get_label() == "links"]
    xy = links.get_xydata()
    pieces = np.split(xy, np.flatnonzero(np.isnan(xy[:, 0])))
    pieces = [p[~np.isnan(p[:, 0])] for p in pieces]
    origin = {name: robot.forward_kinematics(q, frame=name)[:2, 3] for name in robot.frames}
    want = [[origin["base"], origin["stem"], origin["left"]],
            [origin["stem"], origin["right"]],
            [origin["right"], robot.forward_kinematics(q)[:2, 3]]]
    assert len(pieces) == len(want)
    for got, expected in zip(pieces, want, strict=True):
        np.testing.assert_allclose(got, expected, atol=1e-12)
    assert np.all(np.isfinite(ax.get_xlim())) and np.all(np.isfinite(ax.get_ylim()))
