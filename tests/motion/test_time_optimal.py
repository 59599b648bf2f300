"""Time-varying scaling (robodyn.motion.time_optimal): the fastest rest-to-rest motion
along a path within torque limits. Checked against the bang-bang closed form of a mass
pushed a distance D by a force of at most F (``T* = 2 sqrt(D m / F)``, half the way at
``+F``, half at ``-F``), and against uniform scaling (Siciliano §7.7), which it never loses
to."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError


@pytest.mark.slow
def test_a_pushed_mass_takes_the_bang_bang_time():
    """The Cartesian arm's second joint slides link 2 (mass ml2) horizontally; joint 1 holds
    the weight. At most F on joint 2: ``T* = 2 sqrt(D ml2 / F)``."""
    arm = rd.load("cartesian-2p")
    D, F = 0.4, 2.0
    path = rd.trajectory.quintic([0.1, 0.0], [0.1, D], 1.0)
    fastest, k = rd.scale_trajectory(arm, path, [100.0, F], method="time-optimal",
                                     samples=2001)
    m = arm.values["ml2"]
    assert fastest.duration == pytest.approx(2 * np.sqrt(D * m / F), rel=2e-3)
    assert k == pytest.approx(fastest.duration / path.duration)
    # the limits hold at the grid; the torque is at +F, then at -F (bang-bang)
    t = fastest.info["t"]
    q, qd, qdd = fastest(t)
    tau = arm.inverse_dynamics(q, qd, qdd)[:, 1]
    assert np.abs(tau).max() <= F * (1 + 1e-9)
    middle = (t > 0.1 * t[-1]) & (t < 0.9 * t[-1])
    assert np.isclose(np.abs(tau[middle]), F, rtol=5e-3).mean() > 0.95
    np.testing.assert_allclose(fastest(0.0)[0], [0.1, 0.0], atol=1e-12)
    np.testing.assert_allclose(fastest(fastest.duration)[0], [0.1, D], atol=1e-9)
    np.testing.assert_allclose(fastest(fastest.duration)[1], 0.0, atol=1e-9)


@pytest.mark.slow
def test_never_slower_than_uniform_scaling_and_within_the_limits():
    arm = rd.load("planar-2r")
    fast = rd.trajectory.quintic([0.0, 0.0], [1.5, -1.0], 0.3)
    limits = np.array([40.0, 40.0])
    uniform, k = rd.scale_trajectory(arm, fast, limits)
    fastest, k_opt = rd.scale_trajectory(arm, fast, limits, method="time-optimal")
    assert fastest.duration < uniform.duration and k_opt < k
    m = fastest.sample(fastest.duration / 4000)
    ratio = np.abs(arm.inverse_dynamics(m.q, m.qd, m.qdd)) / limits
    assert ratio.max() <= 1.0 + 1e-3   # at the grid exactly; between, the sampling error
    assert ratio.max() > 0.999         # a limit is reached


def test_a_path_gravity_alone_cannot_hold_is_refused():
    arm = rd.load("planar-2r")
    path = rd.trajectory.quintic([0.0, 0.0], [0.5, 0.0], 1.0)
    with pytest.raises(InputError, match="no motion along the path fits the limits"):
        rd.scale_trajectory(arm, path, [1.0, 1.0], method="time-optimal")
    with pytest.raises(InputError, match="method: 'fast'"):
        rd.scale_trajectory(arm, path, [50.0, 50.0], method="fast")
