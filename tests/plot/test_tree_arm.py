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


def test_the_viewer_draws_each_link_from_its_parent(numpy_backend):
    """In the 3D viewer, the right branch's cylinder runs from the stem's origin (its
    parent), not from the left branch's."""
    import pytest

    pytest.importorskip("viser")
    import socket

    from robodyn.plot import viewer as V

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    robot = robot_of(y_tree())
    q = np.array([0.4, 0.9, -0.7])
    with V.show(robot, q=q, port=port) as view:
        poses = view._poses(q)  # base, stem, left, right, tip
        np.testing.assert_allclose(view._links[2].position, (poses[1][1] + poses[3][1]) / 2)
        np.testing.assert_allclose(view._links[1].position, (poses[1][1] + poses[2][1]) / 2)


def test_a_floating_tree_is_drawn_where_its_frames_are_and_its_motion_plotted(
        numpy_backend, tmp_path):
    """A free-flying base: the stick figure starts at the base body (no line from the
    world's origin), each link's origin where ``forward_kinematics`` puts it; the motion plot
    draws ``q``'s nq values and the nv rates; the animation runs on the quaternions."""
    from test_floating import tree_chain

    robot = rd.Robot("tree", tree_chain())
    q = robot.integrate(robot.neutral(), np.r_[0.3, -0.2, 0.5, 0.4, 0.2, -0.3,
                                               np.linspace(-0.5, 0.5, robot.nv - 6)])
    fig = rd.plot.arm(robot, q, frames=False)
    (links,) = [line for line in fig.axes[0].get_lines() if line.get_label() == "links"]
    xyz = np.array(links.get_data_3d()).T
    points = xyz[~np.isnan(xyz[:, 0])]
    origins = [robot.forward_kinematics(q, frame=link.name)[:3, 3] for link in robot.links]
    for point in points[:-1]:  # the last point is the end effector
        assert min(np.linalg.norm(point - o) for o in origins) < 1e-12
    assert np.linalg.norm(points[0] - origins[0]) < 1e-12  # from the base body, not (0, 0, 0)
    sim = rd.simulate(robot, q, np.zeros(robot.nv), duration=0.1, dt=0.01, method="rk4",
                      progress=False)
    fig = rd.plot.motion(sim, robot)
    assert [len(ax.get_lines()) for ax in fig.axes] == [robot.nq, robot.nv, robot.nv]
    rd.plot.animate(robot, sim, tmp_path / "fall.gif", max_frames=4)
    assert (tmp_path / "fall.gif").read_bytes()[:6] == b"GIF89a"
