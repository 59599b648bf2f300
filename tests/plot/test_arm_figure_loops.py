"""The stick figure of a closed mechanism draws its loop closures (issue 34): the two
frames each loop joins, a triangle at a frame fixed to the base (a ground pivot), and the
part of a link that carries a closure frame away from its link frame."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import robodyn as rd  # noqa: E402


def _lines(fig, label):
    return [line for line in fig.axes[0].get_lines() if line.get_label() == label]


def _assembled(name, y):
    robot = rd.load(name)
    cc = robot.closed_chain()
    return robot, cc.assemble(y, np.full(robot.nq, 0.3)).q


def test_the_four_bar_shows_its_ground_pivot_and_closed_loop():
    robot, q = _assembled("four-bar", [0.6])
    fig = rd.plot.arm(robot, q)
    (loop,) = _lines(fig, "loop closure")
    xy = np.column_stack(loop.get_data())
    d = robot.values["d"]  # the ground pivot, (d, 0) in the base plane
    np.testing.assert_allclose(xy, [[d, 0.0], [d, 0.0]], atol=1e-12)  # closed: one point
    triangles = [line for line in _lines(fig, "_end") if line.get_marker() == "^"]
    assert len(triangles) == 1
    np.testing.assert_allclose(np.column_stack(triangles[0].get_data()), [[d, 0.0]], atol=1e-12)


def test_a_closure_frame_on_a_link_is_joined_to_its_link_frame():
    """The parallelogram arm's closure point C3p sits on link 3' away from its frame: the
    figure draws that part of the link, from link 3''s origin to the point."""
    robot, q = _assembled("parallelogram-arm", [0.6, -0.4])
    fig = rd.plot.arm(robot, q)
    parts = [np.column_stack(line.get_data()) for line in _lines(fig, "_link part")]
    loop = robot.chain.closures.loops[0]
    point = robot.forward_kinematics(q, loop.frame_a)[:2, 3]
    assert any(np.allclose(p[1], point, atol=1e-12) for p in parts)
    assert not _lines(rd.plot.arm(rd.load("planar-2r"), [0.3, 0.4]), "loop closure")
