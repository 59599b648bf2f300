"""Trajectories meet their boundary conditions, their derivatives are consistent,
and the trapezoidal profile respects its limits with all joints synchronised."""

from __future__ import annotations

import numpy as np
import pytest

from robodyn.core.errors import InputError
from robodyn.motion import trajectory as tr
from robodyn.motion.options import time_grid

Q0 = np.array([0.1, -0.5, 1.0])
Q1 = np.array([1.2, 0.5, 1.0])


def _derivatives_consistent(traj, t):
    h = 1e-6
    q_p, qd_p, _ = traj(t + h)
    q_m, qd_m, _ = traj(t - h)
    _, qd, qdd = traj(t)
    np.testing.assert_allclose((q_p - q_m) / (2 * h), qd, atol=1e-6)
    np.testing.assert_allclose((qd_p - qd_m) / (2 * h), qdd, atol=1e-5)


def test_cubic_meets_positions_and_velocities():
    traj = tr.cubic(Q0, Q1, 2.0, qd0=[0.1, 0.0, -0.2], qd1=0.3)
    q, qd, _ = traj(np.array([0.0, 2.0]))
    np.testing.assert_allclose(q, [Q0, Q1], atol=1e-14)
    np.testing.assert_allclose(qd, [[0.1, 0.0, -0.2], [0.3] * 3], atol=1e-14)
    _derivatives_consistent(traj, np.linspace(0.1, 1.9, 7))


def test_quintic_rest_to_rest_closed_form():
    # s(tau) = 10 tau^3 - 15 tau^4 + 6 tau^5 (Siciliano eq. 4.5 with zero end rates)
    T = 1.5
    traj = tr.quintic(Q0, Q1, T)
    t = np.linspace(0, T, 11)
    tau = t / T
    s = 10 * tau**3 - 15 * tau**4 + 6 * tau**5
    q, qd, qdd = traj(t)
    np.testing.assert_allclose(q, Q0 + s[:, None] * (Q1 - Q0), atol=1e-13)
    np.testing.assert_allclose(qd[[0, -1]], 0, atol=1e-13)
    np.testing.assert_allclose(qdd[[0, -1]], 0, atol=1e-12)


def test_quintic_with_end_rates():
    traj = tr.quintic(Q0, Q1, 2.0, qd0=0.5, qd1=-0.5, qdd0=1.0, qdd1=-2.0)
    q, qd, qdd = traj(np.array([0.0, 2.0]))
    np.testing.assert_allclose(q, [Q0, Q1], atol=1e-13)
    np.testing.assert_allclose(qd, [[0.5] * 3, [-0.5] * 3], atol=1e-13)
    np.testing.assert_allclose(qdd, [[1.0] * 3, [-2.0] * 3], atol=1e-12)
    _derivatives_consistent(traj, np.linspace(0.1, 1.9, 7))


def test_trapezoidal_shortest_respects_limits_and_synchronises():
    vmax, amax = np.array([1.0, 2.0, 1.0]), np.array([2.0, 2.0, 2.0])
    traj = tr.trapezoidal(Q0, Q1, vmax=vmax, amax=amax)
    t = np.linspace(0, traj.duration, 2001)
    q, qd, qdd = traj(t)
    assert (np.abs(qd) <= vmax + 1e-12).all() and (np.abs(qdd) <= amax + 1e-12).all()
    # joint 1 is the limiting one: its distance 1.1 at vmax 1, amax 2 takes 1.1/1 + 1/2 s
    assert traj.duration == pytest.approx(1.1 / 1.0 + 1.0 / 2.0)
    np.testing.assert_allclose(q[-1], Q1, atol=1e-12)
    # synchronised: every joint is at the same fraction of its way at every instant
    frac = (q[:, :2] - Q0[:2]) / (Q1[:2] - Q0[:2])
    np.testing.assert_allclose(frac[:, 0], frac[:, 1], atol=1e-12)


def test_trapezoidal_triangle_when_cruise_is_not_reached():
    traj = tr.trapezoidal([0.0], [0.5], vmax=10.0, amax=2.0)
    # triangle: duration 2 sqrt(D / a) = 2 sqrt(0.25) = 1
    assert traj.duration == pytest.approx(1.0)
    assert np.max(np.abs(traj(np.linspace(0, 1, 101))[1])) == pytest.approx(1.0, rel=1e-2)


def test_trapezoidal_with_duration_and_amax_ends_on_time():
    traj = tr.trapezoidal(Q0, Q1, duration=2.0, amax=3.0)
    q, qd, qdd = traj(np.linspace(0, 2, 4001))
    assert np.abs(qdd).max() <= 3.0 + 1e-12
    np.testing.assert_allclose(q[-1], Q1, atol=1e-12)
    np.testing.assert_allclose(qd[-1], 0, atol=1e-12)
    with pytest.raises(InputError, match="too short for amax"):
        tr.trapezoidal(Q0, Q1, duration=0.5, amax=3.0)


def test_spline_passes_through_via_points_clamped():
    times = [0.0, 1.0, 2.5, 4.0]
    points = np.array([[0, 0], [1, -1], [0.5, 0.3], [2, 1]], dtype=float)
    traj = tr.spline(times, points)
    q, qd, _ = traj(np.array(times))
    np.testing.assert_allclose(q, points, atol=1e-13)
    np.testing.assert_allclose(qd[[0, -1]], 0, atol=1e-13)
    _derivatives_consistent(traj, np.array([0.5, 1.0, 2.0, 2.5, 3.5]))


def test_sample_and_hold_outside():
    traj = tr.quintic([0.0, 1.0], [1.0, 0.0], 1.0)
    motion = traj.sample(0.3)
    np.testing.assert_allclose(motion.t, [0, 0.3, 0.6, 0.9, 1.0])
    assert motion.q.shape == (5, 2) and motion.dof == 2
    q, qd, qdd = traj([-1.0, 5.0])
    np.testing.assert_allclose(q, [[0, 1], [1, 0]], atol=1e-14)
    assert not qd.any() and not qdd.any()


def test_one_time_grid_for_sampling_and_fixed_steps():
    """traj.sample(dt) and simulate's fixed steps share one grid: 0, dt, 2 dt, ... and the
    duration after a shorter last step; a remainder within rounding is no extra step."""
    for T, dt in [(1.0, 0.1), (1.2, 1.2 / 100), (1.0, 0.3), (2.0, 1e-3), (0.7, 0.7 / 3)]:
        t = tr.quintic([0.0], [1.0], T).sample(dt).t
        np.testing.assert_array_equal(t, time_grid(T, dt))
        assert t[0] == 0 and abs(t[-1] - T) <= 1e-12 * T
        assert np.all(np.diff(t) <= dt * (1 + 1e-12)) and np.all(np.diff(t) > 0)
    assert len(tr.quintic([0.0], [1.0], 1.0).sample(0.1).t) == 11      # 1.0 / 0.1: 10 steps
    t = tr.quintic([0.0], [1.0], 1.0).sample(1.0 / 10.01).t             # 10 and a hundredth
    assert len(t) == 12 and t[-1] == 1.0 and t[-1] - t[-2] == pytest.approx(0.01 / 10.01)


def test_with_info_keeps_the_motion():
    traj = tr.quintic(Q0, Q1, 2.0)
    other = traj.with_info("mine", {"cost": 3.0})
    t = np.linspace(-0.5, 2.5, 13)
    for a, b in zip(traj(t), other(t), strict=True):
        np.testing.assert_array_equal(a, b)
    assert (other.kind, other.duration, other.dof) == ("mine", 2.0, 3)
    assert other.info == {**traj.info, "cost": 3.0} and "cost" not in traj.info
    assert traj.kind == "quintic"
    with pytest.raises(InputError, match="kind: expected a name"):
        traj.with_info(3)
    with pytest.raises(InputError, match="info: expected a mapping"):
        traj.with_info("mine", [("cost", 3.0)])


@pytest.mark.parametrize("call, message", [
    (lambda: tr.cubic([0, 0], [1, 1, 1], 1.0), "q1: expected 2 values"),
    (lambda: tr.quintic([0], [1], -1.0), "duration: expected a positive number"),
    (lambda: tr.quintic([0], [np.nan], 1.0), "q1: .* is not finite"),
    (lambda: tr.trapezoidal([0], [1]), "give duration, or both vmax and amax"),
    (lambda: tr.spline([0, 1, 1], [[0], [1], [2]]), "times: must increase strictly"),
    (lambda: tr.quintic([0], [1], 1.0).sample(0), "dt: expected a positive number"),
])
def test_bad_arguments_are_named(call, message):
    with pytest.raises(InputError, match=message):
        call()
