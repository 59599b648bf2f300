"""rd.plot: every picture is written headless, labelled with units, and shows the data it
was given (line data against the inputs, the arm's points against forward kinematics)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion import trajectory as tr

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def two_r():
    return rd.load("planar-2r")


@pytest.fixture(scope="module")
def puma():
    return rd.load("puma560")


def _is_png(path: Path) -> bool:
    return path.is_file() and path.read_bytes()[:8] == PNG_MAGIC


def _line(ax, label: str):
    found = [line for line in ax.get_lines() if line.get_label() == label]
    assert len(found) == 1, f"no single line {label!r} in {[x.get_label() for x in ax.lines]}"
    return found[0]


@pytest.mark.slow
def test_import_robodyn_leaves_matplotlib_until_rd_plot():
    src = str(Path(rd.__file__).parents[1])
    code = ("import sys, robodyn as rd; assert 'matplotlib' not in sys.modules; "
            "rd.plot.motion; assert 'matplotlib' in sys.modules; "
            "assert 'plot' in dir(rd)")
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    with pytest.raises(AttributeError):
        rd.no_such_name  # noqa: B018


# -- motion ------------------------------------------------------------------------------------
def test_motion_of_a_simulation_draws_its_samples(two_r, tmp_path):
    sim = rd.simulate(two_r, [0.5, 0.2], duration=0.2, dt=1e-3)
    fig = rd.plot.motion(sim, two_r, path=tmp_path / "motion.png")
    assert isinstance(fig, Figure) and _is_png(tmp_path / "motion.png")
    assert [ax.get_ylabel() for ax in fig.axes] == ["q [rad]", "qd [rad/s]", "qdd [rad/s²]"]
    assert fig.axes[2].get_xlabel() == "t [s]"
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["q1", "q2"]
    for ax, name in zip(fig.axes, ("q", "qd", "qdd")):
        for j in range(2):
            x, y = _line(ax, f"{name}{j + 1}").get_data()
            np.testing.assert_array_equal(x, sim.t)
            np.testing.assert_array_equal(y, getattr(sim, name)[:, j])


def test_motion_of_a_trajectory_samples_it_and_names_mixed_units(tmp_path):
    robot = rd.load("rp-arm")  # revolute then prismatic
    traj = tr.cubic([0.1, 0.3], [1.2, 0.5], 2.0)
    fig = rd.plot.motion(traj, robot, path=tmp_path / "traj.png")
    assert _is_png(tmp_path / "traj.png")
    assert fig.axes[0].get_ylabel() == "q [rad, m]"
    assert fig.axes[1].get_ylabel() == "qd [rad/s, m/s]"
    x, y = _line(fig.axes[2], "qdd2").get_data()
    assert x[0] == 0 and x[-1] == pytest.approx(2.0) and len(x) == rd.plot.TRAJECTORY_SAMPLES
    # the cubic's acceleration is linear: a2 = 6 (q1 - q0) / T^2 (1 - 2 t / T)
    np.testing.assert_allclose(y, 6 * 0.2 / 4 * (1 - x), atol=1e-12)
    generic = rd.plot.motion(traj.sample(0.1))
    assert generic.axes[0].get_ylabel() == "q [rad or m]"


def test_motion_rejects_what_is_not_a_motion(two_r, puma):
    with pytest.raises(InputError, match="Simulation, a Motion or a Trajectory"):
        rd.plot.motion(42)
    with pytest.raises(InputError, match="2 joints"):
        rd.plot.motion(tr.quintic([0, 0], [1, 1], 1.0), puma)
    bad = tr.Motion(np.array([0.0, 1.0]), np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(InputError, match="motion.q"):
        rd.plot.motion(bad)
    with pytest.raises(InputError, match="suffix"):
        rd.plot.motion(tr.quintic([0, 0], [1, 1], 1.0), path="motion.txt")


# -- torques -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_torques_of_a_puma_quintic_total_is_inverse_dynamics(puma, tmp_path):
    motion = tr.quintic([0, 0.3, -0.5, 0.1, 0.4, 0], [1.0, -0.4, 0.6, 0.8, -0.3, 1.2],
                        1.0).sample(0.02)
    fig = rd.plot.torques(puma, motion, path=tmp_path / "torques.png")
    assert _is_png(tmp_path / "torques.png")
    assert len(fig.axes) == 6
    tau = puma.inverse_dynamics(motion.q, motion.qd, motion.qdd)
    parts = puma.torque_parts(motion.q, motion.qd, motion.qdd)
    for j, ax in enumerate(fig.axes):
        assert ax.get_ylabel() == f"tau{j + 1} [N m]"
        x, y = _line(ax, "total").get_data()
        np.testing.assert_array_equal(x, motion.t)
        np.testing.assert_allclose(y, tau[:, j], rtol=1e-12, atol=1e-12)
        # the signed stacks reach the sums of the positive and of the negative parts
        values = np.stack([getattr(parts, n)[:, j] for n in parts.NAMES])
        heights = np.concatenate([p.vertices[:, 1] for c in ax.collections
                                  for p in c.get_paths()])
        assert heights.max() == pytest.approx(np.maximum(values, 0).sum(axis=0).max())
        assert heights.min() == pytest.approx(np.minimum(values, 0).sum(axis=0).min())
    assert fig.axes[4].get_xlabel() == fig.axes[5].get_xlabel() == "t [s]"
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["inertial", "coriolis", "gravity", "total"]  # no friction, no h_e


def test_torques_of_a_prismatic_arm_with_a_wrench_are_in_newtons(tmp_path):
    robot = rd.load("cartesian-2p")
    traj = tr.quintic([0.2, 0.1], [0.5, 0.4], 1.0)
    h_e = np.array([3.0, 0.0, -5.0, 0.0, 0.0, 0.0])
    fig = rd.plot.torques(robot, traj, h_e=h_e, path=tmp_path / "cart.png")
    assert [ax.get_ylabel() for ax in fig.axes] == ["tau1 [N]", "tau2 [N]"]
    motion = traj.sample(traj.duration / (rd.plot.TRAJECTORY_SAMPLES - 1))
    tau = robot.inverse_dynamics(motion.q, motion.qd, motion.qdd, h_e=h_e)
    for j, ax in enumerate(fig.axes):
        np.testing.assert_allclose(_line(ax, "total").get_ydata(), tau[:, j], atol=1e-12)
    assert "external" in [t.get_text() for t in fig.legends[0].get_texts()]


# -- energy -------------------------------------------------------------------------------------
def test_energy_of_a_swinging_pendulum_balances_with_the_friction_loss(tmp_path):
    robot = rd.load("pendulum")  # viscous friction F
    sim = rd.simulate(robot, [1.0], duration=2.0, dt=1e-3)
    fig = rd.plot.energy(sim, robot, path=tmp_path / "energy.png")
    assert _is_png(tmp_path / "energy.png")
    top, bottom = fig.axes
    assert top.get_ylabel() == "energy [J]" and bottom.get_ylabel() == "balance [J]"
    assert bottom.get_xlabel() == "t [s]"
    np.testing.assert_array_equal(_line(top, "kinetic K").get_ydata(), sim.kinetic)
    np.testing.assert_array_equal(_line(top, "potential U").get_ydata(), sim.potential)
    np.testing.assert_array_equal(_line(top, "total E = K + U").get_ydata(), sim.total)
    # loss from the friction law F qd^2, integrated independently
    density = robot.values["F"] * sim.qd[:, 0] ** 2
    loss = np.concatenate([[0], np.cumsum(np.diff(sim.t) * (density[1:] + density[:-1]) / 2)])
    np.testing.assert_allclose(_line(top, "friction loss L").get_ydata(), loss, atol=1e-12)
    assert loss[-1] > 0.05 * sim.kinetic.max()  # friction took a visible share
    # work-energy theorem: E + L stays at E(0) up to the integration error
    balance = bottom.get_lines()[0].get_ydata()
    assert np.max(np.abs(balance)) < 1e-5 * sim.kinetic.max()


def test_energy_counts_the_work_of_applied_torques():
    robot = rd.load("pendulum")
    sim = rd.simulate(robot, [0.3], duration=1.0, dt=1e-3, tau=np.full((2, 1), 2.0))
    fig = rd.plot.energy(sim, robot)
    top, bottom = fig.axes
    work = _line(top, "work of tau W").get_ydata()
    expected = 2.0 * (sim.q[:, 0] - sim.q[0, 0])  # constant torque: W = tau (q - q0)
    np.testing.assert_allclose(work, expected, atol=1e-6)
    assert np.max(np.abs(bottom.get_lines()[0].get_ydata())) < 1e-5 * np.ptp(work)


def test_energy_without_a_robot_needs_the_energies(two_r):
    motion = tr.quintic([0, 0], [1, 1], 1.0).sample(0.1)
    with pytest.raises(InputError, match="robot="):
        rd.plot.energy(motion)
    fig = rd.plot.energy(motion, two_r)  # a Motion: energies from the robot
    np.testing.assert_allclose(_line(fig.axes[0], "kinetic K").get_ydata(),
                               two_r.kinetic_energy(motion.q, motion.qd))


# -- the arm ---------------------------------------------------------------------------------------
def test_arm_of_the_2r_is_planar_and_follows_its_closed_form(two_r, tmp_path):
    q = np.array([0.5, 0.2])
    fig = rd.plot.arm(two_r, q, path=tmp_path / "arm.png")
    assert _is_png(tmp_path / "arm.png")
    ax = fig.axes[0]
    assert ax.name != "3d" and ax.get_aspect() == 1.0
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x [m]", "y [m]")
    points = _line(ax, "links").get_xydata()
    distinct = points[np.r_[True, np.any(np.diff(points, axis=0) != 0, axis=1)]]
    v = two_r.values
    elbow = v["l1"] * np.array([np.cos(q[0]), np.sin(q[0])])
    tip = elbow + v["l2"] * np.array([np.cos(q.sum()), np.sin(q.sum())])
    np.testing.assert_allclose(distinct, [[0, 0], elbow, tip], atol=1e-12)
    np.testing.assert_allclose(_line(ax, "end effector").get_xydata()[0],
                               two_r.forward_kinematics(q)[:2, 3], atol=1e-12)
    # the end effector's x axis (red) points along the last link
    x_axis = _line(ax, "_frame3x").get_xydata()
    direction = x_axis[1] - x_axis[0]
    np.testing.assert_allclose(direction / np.linalg.norm(direction),
                               [np.cos(q.sum()), np.sin(q.sum())], atol=1e-12)
    assert _line(ax, "_frame3x").get_color() == "#d62728"


@pytest.mark.parametrize("name, axes", [("cartesian-2p", ("x [m]", "z [m]")),
                                        ("rp-arm", ("x [m]", "y [m]")),
                                        ("pendulum", ("x [m]", "y [m]"))])
def test_arm_draws_planar_models_in_their_plane(name, axes):
    robot = rd.load(name)
    fig = rd.plot.arm(robot, np.full(robot.dof, 0.4), frames=False)
    ax = fig.axes[0]
    assert ax.name != "3d" and (ax.get_xlabel(), ax.get_ylabel()) == axes
    assert not [line for line in ax.get_lines() if line.get_label().startswith("_frame")]


def test_arm_of_the_puma_is_3d_with_rigid_links(puma, tmp_path):
    qa = np.array([0.3, -0.4, 0.6, 0.8, -0.3, 1.2])
    qb = np.array([-1.1, 0.7, -0.2, 2.0, 1.0, -0.5])
    figs = [rd.plot.arm(puma, q, path=tmp_path / f"puma{k}.png") for k, q in enumerate((qa, qb))]
    assert _is_png(tmp_path / "puma0.png")
    points = []
    for fig, q in zip(figs, (qa, qb)):
        ax = fig.axes[0]
        assert ax.name == "3d"
        assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("x [m]", "y [m]", "z [m]")
        spans = [np.ptp(lim) for lim in (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())]
        np.testing.assert_allclose(spans, spans[0])  # equal scale
        xyz = np.array(_line(ax, "links").get_data_3d()).T
        np.testing.assert_allclose(xyz[-1], puma.forward_kinematics(q)[:3, 3], atol=1e-12)
        points.append(xyz)
        assert len([x for x in ax.get_lines() if x.get_label().startswith("_frame")]) == 3 * 7
    # revolute joints turn about axes through the frame origins: the links keep their lengths
    lengths = [np.linalg.norm(np.diff(p, axis=0), axis=1) for p in points]
    np.testing.assert_allclose(lengths[0], lengths[1], atol=1e-12)
    assert not np.allclose(points[0], points[1])


def test_arm_checks_q_and_the_axes(two_r, puma):
    with pytest.raises(InputError, match="2 joint values"):
        rd.plot.arm(two_r, [0.1, 0.2, 0.3])
    fig = Figure()
    flat = fig.add_subplot()
    with pytest.raises(InputError, match="3D Axes"):
        rd.plot.arm(puma, np.zeros(6), ax=flat)
    assert rd.plot.arm(two_r, [0.1, 0.2], ax=flat) is fig


# -- animation -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_animate_writes_a_gif_at_the_frame_rate(two_r, tmp_path):
    traj = tr.quintic([0.0, 0.0], [1.0, -0.5], 1.0)
    fig = rd.plot.animate(two_r, traj, tmp_path / "arm.gif", fps=8)
    with Image.open(tmp_path / "arm.gif") as gif:
        assert gif.n_frames == 9 and gif.info["duration"] == pytest.approx(125, abs=10)
    # the figure shows the last frame: the arm at the trajectory's end
    tip = _line(fig.axes[0], "end effector").get_xydata()[0]
    np.testing.assert_allclose(tip, two_r.forward_kinematics(traj.q1)[:2, 3], atol=1e-9)
    rd.plot.animate(two_r, traj, tmp_path / "few.gif", fps=30, max_frames=4)
    with Image.open(tmp_path / "few.gif") as gif:  # bounded: 4 frames, still real time
        assert gif.n_frames == 4 and gif.info["duration"] == pytest.approx(333, abs=10)


def test_animate_needs_ffmpeg_for_mp4_and_a_known_suffix(two_r, tmp_path, monkeypatch):
    from matplotlib import animation

    traj = tr.quintic([0.0, 0.0], [1.0, -0.5], 1.0)
    monkeypatch.setattr(animation.FFMpegWriter, "isAvailable", classmethod(lambda cls: False))
    with pytest.raises(InputError, match="ffmpeg"):
        rd.plot.animate(two_r, traj, tmp_path / "arm.mp4")
    with pytest.raises(InputError, match=r"\.gif or \.mp4"):
        rd.plot.animate(two_r, traj, tmp_path / "arm.avi")
    with pytest.raises(InputError, match="fps"):
        rd.plot.animate(two_r, traj, tmp_path / "arm.gif", fps=0)
    assert not list(tmp_path.iterdir())


def test_animate_a_spatial_arm_in_3d(puma, tmp_path):
    traj = tr.quintic(np.zeros(6), [1.0, -0.4, 0.6, 0.8, -0.3, 1.2], 2.0)
    fig = rd.plot.animate(puma, traj, tmp_path / "puma.gif", max_frames=3, frames=False)
    with Image.open(tmp_path / "puma.gif") as gif:
        assert gif.n_frames == 3
    ax = fig.axes[0]
    assert ax.name == "3d"
    xyz = np.array(_line(ax, "links").get_data_3d()).T
    np.testing.assert_allclose(xyz[-1], puma.forward_kinematics(traj.q1)[:3, 3], atol=1e-9)
