"""rd.plot.tracking and rd.plot.energy_comparison (issue 18 §5): the lines drawn are the
reference, the motion and their difference; the comparison's last work value is what
rd.energy.consumed computes."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion import trajectory as tr

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def tracked():
    """Computed torque with a model 20 % heavier than the arm: a visible tracking error."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ROBODYN_BACKEND", "numpy")  # values, not speed (conftest.numpy_backend)
        robot = rd.load("planar-2r")
        traj = tr.quintic([0.0, 0.0], [1.0, -0.5], 0.5)
        model = robot.with_values(m2=1.2 * robot.values["m2"])
        ctrl = rd.control.ComputedTorque(model, traj, kp=100.0, kd=20.0)
        sim = rd.simulate(robot, [0.0, 0.0], duration=0.5, tau=ctrl, dt=5e-3)
        yield robot, traj, ctrl, sim


def _line(ax, label):
    found = [line for line in ax.get_lines() if line.get_label() == label]
    assert len(found) == 1, [x.get_label() for x in ax.get_lines()]
    return found[0]


def test_tracking_draws_reference_actual_and_their_difference(tracked, tmp_path):
    robot, traj, ctrl, sim = tracked
    path = tmp_path / "tracking.png"
    fig = rd.plot.tracking(sim, traj, robot, path=path)
    assert path.read_bytes()[:8] == PNG_MAGIC
    axes = fig.axes
    assert len(axes) == robot.dof + 1
    q_ref = traj(sim.t)[0]
    for j in range(robot.dof):
        np.testing.assert_allclose(_line(axes[j], "reference").get_ydata(), q_ref[:, j])
        np.testing.assert_allclose(_line(axes[j], "actual").get_ydata(), sim.q[:, j])
        assert axes[j].get_ylabel() == f"q{j + 1} [rad]"
    error = q_ref - sim.q
    assert np.abs(error).max() > 1e-4  # the model error shows
    for j in range(robot.dof):
        np.testing.assert_allclose(_line(axes[-1], f"e{j + 1}").get_ydata(), error[:, j])
    # the controller itself, a Motion on another grid, and an array all give the same lines
    motion = traj.sample(1e-3)
    for reference in (ctrl, motion, q_ref):
        other = rd.plot.tracking(sim, reference, robot)
        np.testing.assert_allclose(_line(other.axes[-1], "e1").get_ydata(), error[:, 0],
                                   atol=1e-6)


def test_a_set_point_is_held(tracked):
    robot, _, _, sim = tracked
    pd = rd.control.PDGravity(robot, [1.0, -0.5], kp=10.0, kd=2.0)
    fig = rd.plot.tracking(sim, pd, robot)
    np.testing.assert_allclose(_line(fig.axes[0], "reference").get_ydata(), 1.0)
    np.testing.assert_allclose(_line(fig.axes[-1], "e2").get_ydata(), -0.5 - sim.q[:, 1])


@pytest.mark.parametrize(("reference", "message"), [
    (np.zeros((3, 2)), r"reference: expected a Trajectory, a Motion, a controller or an array"),
    (tr.quintic([0, 0, 0], [1, 1, 1], 1.0), "reference: has 3 joints, the simulation 2"),
    (tr.quintic([0, 0], [1, 1], 0.2).sample(0.01), r"reference.t: spans 0 .. 0.2 s"),
    (np.full(2, np.nan), "reference: every value must be finite"),
])
def test_a_bad_reference_is_a_clear_error(tracked, reference, message):
    robot, _, _, sim = tracked
    with pytest.raises(InputError, match=message):
        rd.plot.tracking(sim, reference, robot)


def test_energy_comparison_overlays_the_motions_and_their_work(tmp_path, numpy_backend):
    robot = rd.load("planar-2r")
    quintic = tr.quintic([-1.0, 1.0], [1.0, -1.0], 1.5)
    other = tr.trapezoidal([-1.0, 1.0], [1.0, -1.0], 1.5)
    path = tmp_path / "comparison.png"
    fig = rd.plot.energy_comparison(robot, {"quintic": quintic, "trapezoidal": other},
                                    path=path)
    assert path.read_bytes()[:8] == PNG_MAGIC
    q_ax, qd_ax, power_ax, work_ax = fig.axes
    for label, traj in (("quintic", quintic), ("trapezoidal", other)):
        motion = traj.sample(traj.duration / 500)
        report = rd.energy.consumed(robot, motion)
        np.testing.assert_allclose(_line(q_ax, f"q2 {label}").get_ydata(), motion.q[:, 1])
        np.testing.assert_allclose(_line(power_ax, label).get_ydata(), report.power.sum(axis=1))
        work = [line for line in work_ax.get_lines() if line.get_label().startswith(label)]
        assert work[0].get_ydata()[-1] == pytest.approx(report.positive_work, rel=1e-12)
        assert f"{report.positive_work:.4g} J" in work[0].get_label()
    assert qd_ax.get_ylabel() == "qd [rad/s]" and power_ax.get_ylabel() == "power [W]"
    with pytest.raises(InputError, match="motions: expected a dict"):
        rd.plot.energy_comparison(robot, [quintic])


def test_a_notebook_shows_the_figures_by_themselves():
    """Jupyter displays what a cell returns through its ``_repr_png_``: the figures of
    rd.plot carry one (no ``%matplotlib inline`` needed), a PNG of the figure itself."""
    import io

    import matplotlib.image as mpimg

    robot = rd.load("planar-2r")
    sim = rd.simulate(robot, [0.4, -0.2], duration=0.2, dt=0.01)
    for fig in (rd.plot.motion(sim, robot), rd.plot.energy(sim, robot),
                rd.plot.manipulability(robot, [0.3, 1.1])):
        png = fig._repr_png_()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        image = mpimg.imread(io.BytesIO(png), format="png")
        width, height = fig.get_size_inches() * 100
        assert image.shape[:2] == (round(height), round(width))
