"""The optimised motion keeps the quintic's boundary conditions (issue 18 §5): it is a quintic
spline at rest with zero acceleration at both ends, and it still costs no more than the
quintic; and a simulation sampled on a uniform grid (``sample_dt``, what ``simulate
--save`` writes) is the same motion as the integrator's steps."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion import trajectory as tr


def _ends(traj):
    return [np.array(traj(t)) for t in (0.0, traj.duration)]  # (3, dof) each: q, qd, qdd


def test_rest_spline_interpolates_and_rests_with_zero_acceleration():
    rng = np.random.default_rng(3)
    times = np.array([0.2, 0.5, 0.9, 1.4, 1.7])  # shifted to start at 0
    points = rng.uniform(-1, 1, (5, 3))
    traj = tr.rest_spline(times, points)
    assert traj.duration == pytest.approx(1.5)
    np.testing.assert_allclose(traj(times - 0.2)[0], points, atol=1e-12)
    start, end = _ends(traj)
    np.testing.assert_allclose(start[0], points[0], atol=1e-12)
    np.testing.assert_allclose(end[0], points[-1], atol=1e-12)
    np.testing.assert_allclose(start[1:], 0.0, atol=1e-9)
    np.testing.assert_allclose(end[1:], 0.0, atol=1e-9)
    # continuous acceleration across a via point (one-sided limits meet)
    eps = 1e-7
    qdd_left, qdd_right = (traj(0.3 + s)[2] for s in (-eps, eps))
    np.testing.assert_allclose(qdd_left, qdd_right, atol=1e-4)


def test_a_rest_spline_through_points_of_a_quintic_is_that_quintic():
    """The interpolant is unique, and the quintic satisfies every condition."""
    quintic = tr.quintic([0.0, 1.0], [1.0, -2.0], 2.0)
    knots = np.linspace(0.0, 2.0, 5)
    spline = tr.rest_spline(knots, quintic(knots)[0])
    t = np.linspace(0.0, 2.0, 57)
    for a, b in zip(spline(t), quintic(t)):
        np.testing.assert_allclose(a, b, atol=1e-10)


@pytest.mark.parametrize(("objective", "maxiter"), [("positive_work", 10), ("effort", 100)])
def test_the_optimised_motion_has_the_quintics_boundary_conditions(objective, maxiter,
                                                                    numpy_backend):
    robot = rd.load("planar-2r")
    q0, q1, duration = np.array([-1.0, 1.0]), np.array([1.0, -1.0]), 1.5
    best = rd.energy.optimize(robot, q0, q1, duration, via_points=1, objective=objective,
                              samples=41, maxiter=maxiter)
    assert best.kind == "optimized"
    start, end = _ends(best)
    np.testing.assert_allclose(start[0], q0, atol=1e-9)
    np.testing.assert_allclose(end[0], q1, atol=1e-9)
    for state in (start, end):  # at rest, zero acceleration: as the quintic
        np.testing.assert_allclose(state[1:], 0.0, atol=1e-9)
    t = np.linspace(0.0, duration, 41)
    cost = rd.energy.consumed(robot, tr.Motion(t, *best(t))).value(objective)
    quintic = rd.energy.consumed(robot, tr.Motion(t, *tr.quintic(q0, q1, duration)(t)))
    assert cost == pytest.approx(best.info["energy"], rel=1e-12)
    assert cost <= quintic.value(objective)
    assert best.info["baseline_energy"] == pytest.approx(quintic.value(objective), rel=1e-12)


def test_a_uniform_grid_is_the_dense_output_of_the_same_run(numpy_backend):
    robot = rd.load("planar-2r")
    steps = rd.simulate(robot, [1.0, -0.5], duration=0.5)
    grid = rd.simulate(robot, [1.0, -0.5], duration=0.5, sample_dt=0.01)
    np.testing.assert_allclose(grid.t, np.linspace(0.0, 0.5, 51), atol=1e-14)
    assert grid.info["sample_dt"] == 0.01 and grid.info["steps"] == steps.info["steps"]
    # the same integration: the dense output of the stepped run at the grid's times
    y = steps.solution(grid.t)
    np.testing.assert_allclose(grid.q, y[:2].T, atol=1e-12)
    np.testing.assert_allclose(grid.qd, y[2:].T, atol=1e-12)
    # and the accelerations are the dynamics at those states (no torque)
    np.testing.assert_allclose(grid.qdd, robot.forward_dynamics(grid.q, grid.qd, 0 * grid.q),
                               atol=1e-10)
    assert grid.info["energy_balance"].relative < 1e-6


def test_a_grid_over_fixed_steps_keeps_every_kth_step(numpy_backend):
    robot = rd.load("pendulum")
    full = rd.simulate(robot, [0.3], duration=0.5, dt=0.01)
    every = rd.simulate(robot, [0.3], duration=0.5, dt=0.01, sample_dt=0.05)
    np.testing.assert_allclose(every.t, full.t[::5], atol=1e-14)
    np.testing.assert_allclose(every.q, full.q[::5], rtol=0, atol=0)
    with pytest.raises(InputError, match="sample_dt: 0.015 s is not a whole multiple of dt"):
        rd.simulate(robot, [0.3], duration=0.5, dt=0.01, sample_dt=0.015)
    with pytest.raises(InputError, match="sample_dt"):
        rd.simulate(robot, [0.3], duration=0.5, sample_dt=-1)
