"""Khatib's operational-space controller (``rd.control.OperationalSpaceControl``): with the
exact model the task error obeys ``e'' + K_D e' + K_P e = 0``, so from an initial error
``e0`` at rest relative to the reference and critically damped gains (``K_P = w^2``, ``K_D =
2 w``) it is ``e(t) = e0 (1 + w t) exp(-w t)`` (the closed form of the second-order
system), whatever the posture torque does in the null space of a redundant arm."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError


def _critically_damped(e0, w, t):
    return np.asarray(e0) * ((1 + w * t) * np.exp(-w * t))[:, None]


@pytest.mark.slow
def test_a_planar_arm_tracks_a_line_with_the_error_of_a_second_order_system():
    arm = rd.load("planar-2r")
    q0 = np.array([0.3, 1.2])
    x0 = arm.forward_kinematics(q0)[:2, 3]
    e0 = np.array([0.05, 0.02])
    ref = rd.trajectory.quintic(x0 + e0, x0 + [0.2, -0.1], 1.0)
    w = 20.0
    ctl = rd.control.OperationalSpaceControl(arm, ref, kp=w * w, kd=2 * w, rows=(0, 1))
    sim = rd.simulate(arm, q0, duration=1.0, dt=1e-3, tau=ctl)
    e = np.array([ctl.task_error(t, q) for t, q in zip(sim.t, sim.q, strict=True)])
    np.testing.assert_allclose(e, _critically_damped(e0, w, sim.t), atol=1e-8)
    assert "Operational-space control" in str(ctl) and "rows=(0, 1)" in repr(ctl)


@pytest.mark.slow
def test_the_panda_tracks_position_and_orientation_with_its_null_space_bounded():
    """Seven joints, six task rows (position and ZYX angles, the analytical Jacobian): the
    error is the closed form's; the posture torque keeps the null-space motion bounded
    (the elbow settles; without it the joint speeds are not damped)."""
    try:
        urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    except rd.ModelError as exc:
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        panda = rd.load(urdf, tip="panda_hand")  # the arm to the hand, fingers not moving
    assert panda.dof == 7
    q0 = np.array([0.0, -0.4, 0.0, -2.0, 0.0, 1.6, 0.8])
    pose = panda.forward_kinematics(q0)
    from robodyn.dynamics.operational_space import zyx_angles

    x0 = np.concatenate([pose[:3, 3], zyx_angles(pose[:3, :3])])
    e0 = np.array([0.02, -0.01, 0.015, 0.03, -0.02, 0.01])
    ref = rd.trajectory.quintic(x0 + e0, x0 + [0.1, 0.1, -0.05, 0.2, 0.1, -0.1], 1.0)
    w = 15.0
    ctl = rd.control.OperationalSpaceControl(
        panda, ref, kp=w * w, kd=2 * w, rows=range(6), jacobian="analytical", q_null=q0,
        kp_null=5.0, kd_null=2.0)
    sim = rd.simulate(panda, q0, duration=1.0, dt=1e-3, tau=ctl)
    e = np.array([ctl.task_error(t, q) for t, q in zip(sim.t, sim.q, strict=True)])
    np.testing.assert_allclose(e, _critically_damped(e0, w, sim.t), atol=1e-7)
    assert np.abs(sim.qd).max() < 3.0  # the null space moves, bounded
    assert np.abs(sim.q - q0).max() < 1.0


def test_bad_arguments_are_named():
    arm = rd.load("planar-2r")
    ref = rd.trajectory.quintic([0.5, 0.5], [0.6, 0.4], 1.0)
    with pytest.raises(InputError, match="rows: the geometric Jacobian's rows 3-5"):
        rd.control.OperationalSpaceControl(arm, ref, 1, 1, rows=(0, 5))
    with pytest.raises(InputError, match=r"trajectory: has 2 values, the task 3"):
        rd.control.OperationalSpaceControl(arm, ref, 1, 1)
    with pytest.raises(InputError, match="kd: gains must be finite and >= 0"):
        rd.control.OperationalSpaceControl(arm, ref, 1, -1, rows=(0, 1))
    with pytest.raises(InputError, match="q_null: expected 2 finite values"):
        rd.control.OperationalSpaceControl(arm, ref, 1, 1, rows=(0, 1), q_null=[0, np.nan])
    with pytest.raises(InputError, match="jacobian: 'body' is not"):
        rd.control.OperationalSpaceControl(arm, ref, 1, 1, rows=(0, 1), jacobian="body")


def test_a_singular_configuration_is_an_error_or_damped():
    """The stretched-out 2R arm cannot move its tip along its length: an error naming the
    rank, or with ``damping`` a finite torque."""
    arm = rd.load("planar-2r")
    ref = rd.trajectory.quintic([1.0, 0.0], [0.9, 0.1], 1.0)
    ctl = rd.control.OperationalSpaceControl(arm, ref, 100, 20, rows=(0, 1))
    with pytest.raises(rd.ModelError, match="rank 1 < 2"):
        ctl(0.0, np.zeros(2), np.zeros(2))
    damped = rd.control.OperationalSpaceControl(arm, ref, 100, 20, rows=(0, 1), damping=0.05)
    assert np.isfinite(damped(0.0, np.zeros(2), np.zeros(2))).all()


def test_the_tracking_figure_draws_the_task_coordinates(tmp_path):
    """``rd.plot.tracking(sim, controller)`` of a task-space run: an axes per task row with
    the reference and the actual ``x(q)``, and the error ``x_ref - x`` below (its lines are
    the controller's ``task_error``)."""
    arm = rd.load("planar-2r")
    q0 = np.array([0.3, 1.2])
    x0 = arm.forward_kinematics(q0)[:2, 3]
    ref = rd.trajectory.quintic(x0 + [0.05, 0.0], x0 + [0.1, -0.1], 0.5)
    ctl = rd.control.OperationalSpaceControl(arm, ref, kp=400.0, kd=40.0, rows=(0, 1))
    sim = rd.simulate(arm, q0, duration=0.5, dt=2e-3, tau=ctl)
    fig = rd.plot.tracking(sim, ctl, arm, path=tmp_path / "task.png")
    assert (tmp_path / "task.png").stat().st_size > 0
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels[:2] == ["x [m]", "y [m]"]
    (line,) = [ln for ln in fig.axes[-1].get_lines() if ln.get_label() == "e_x"]
    np.testing.assert_allclose(line.get_ydata(), ctl.task_error(sim.t, sim.q)[:, 0])
    assert "x_ref - x" in fig.axes[-1].get_title()


def test_computed_torque_tracks_an_excitation_in_the_compiled_loop():
    """An rd.excitation.fourier excitation is a trajectory for ComputedTorque (it ran the
    slow Python path before, or was refused): with the exact model the run follows it to
    the integrator's error."""
    arm = rd.load("planar-2r")
    ex = rd.excitation.fourier(arm, harmonics=2, period=2.0, progress=False)
    controller = rd.control.ComputedTorque(arm, ex, 100.0, 20.0)
    assert controller.kind == "computed_torque"     # the compiled loop runs it
    q0, qd0, _ = ex(0.0)
    sim = rd.simulate(arm, q0, qd0=qd0, duration=2.0, dt=1e-3, tau=controller)
    np.testing.assert_allclose(sim.q, ex(sim.t)[0], atol=1e-8)
    assert ex.trajectory(cycles=3).duration == pytest.approx(6.0)
