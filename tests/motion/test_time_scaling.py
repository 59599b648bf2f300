"""Dynamic scaling of trajectories (Siciliano §7.7, robodyn.motion.time_scaling): the slowed
motion's torques, computed independently by inverse dynamics along it, equal the scaling
law, and the peak sits at the limit."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from robodyn.motion.time_scaling import scaled


def _arm_with_friction(tmp_path):
    """The planar 2R arm of the course notes with viscous and Coulomb friction on both joints."""
    from robodyn.model import builtin

    source = Path(builtin.__file__).parent / "planar-2r.yaml"
    lines = source.read_text().splitlines()
    out = []
    for line in lines:
        out.append(line)
        if line.strip().startswith("inertia:"):
            j = sum(1 for x in out if x.strip().startswith("inertia:"))
            out.append(f"    friction: {{viscous: Fv{j}, coulomb: Fs{j}}}")
    text = "\n".join(out).replace("g: 9.81}", "g: 9.81, Fv1: 2.0, Fv2: 1.0, Fs1: 1.5, Fs2: 0.8}")
    path = tmp_path / "planar-2r-friction.yaml"
    path.write_text(text)
    return rd.load(path)


def _check(robot, fast, limits, friction):
    slow, k = rd.scale_trajectory(robot, fast, limits)
    assert k > 1 and np.isclose(slow.duration, k * fast.duration, rtol=1e-15)
    t = np.linspace(0.0, fast.duration, 1001)            # the grid the limits were checked on
    q, qd, qdd = fast(t)
    qs, qds, qdds = slow(k * t)
    np.testing.assert_allclose(qs, q, atol=1e-12)
    tau_slow = robot.inverse_dynamics(qs, qds, qdds)     # independent: along the slowed motion
    tau, g = robot.inverse_dynamics(q, qd, qdd), robot.gravity_torques(q)
    if not friction:  # the book's law
        law = (tau - g) / k**2 + g
    else:             # viscous friction with 1/k, Coulomb not at all
        fric = robot.friction_torques(qd)
        viscous = fric - robot.without_friction(viscous=True, coulomb=False).friction_torques(qd)
        coulomb = fric - viscous
        law = (tau - g - fric) / k**2 + viscous / k + coulomb + g
    np.testing.assert_allclose(tau_slow, law, rtol=1e-10, atol=1e-10)
    peak = np.max(np.abs(tau_slow) / limits)
    assert abs(peak - 1.0) < 1e-9, peak
    # a hair faster breaks a limit somewhere on the grid
    q2, qd2, qdd2 = scaled(fast, k * (1 - 1e-6))(k * (1 - 1e-6) * t)
    assert np.max(np.abs(robot.inverse_dynamics(q2, qd2, qdd2)) / limits) > 1
    return k, peak


def test_planar_2r_quintic_book_law():
    arm = rd.load("planar-2r")
    fast = rd.trajectory.quintic([0.0, 0.0], [1.5, -1.0], 0.3)
    k, peak = _check(arm, fast, np.array([40.0, 40.0]), friction=False)
    print(f"planar-2r: k = {k:.6f}, peak/limit - 1 = {peak - 1:.1e}")


def test_puma_trapezoid_book_law():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        puma = rd.load("puma560")
    fast = rd.trajectory.quintic(np.zeros(6), [1.0, -0.8, 0.9, 1.2, -1.0, 0.7], 0.4)
    _check(puma, fast, np.array([97.6, 186.4, 89.4, 24.2, 20.1, 21.3]), friction=False)


def test_friction_viscous_scales_with_1_over_k_coulomb_not(tmp_path):
    arm = _arm_with_friction(tmp_path)
    assert np.any(arm.friction_torques([1.0, -1.0]) != 0)
    fast = rd.trajectory.quintic([0.0, 0.0], [1.5, -1.0], 0.3)
    _check(arm, fast, np.array([40.0, 40.0]), friction=True)


def test_fits_already_and_gravity_alone():
    arm = rd.load("planar-2r")
    slow = rd.trajectory.quintic([0.0, 0.0], [0.1, 0.1], 5.0)
    same, k = rd.scale_trajectory(arm, slow, 100.0)
    assert k == 1.0 and same.duration == slow.duration
    with pytest.raises(rd.InputError, match="gravity.*no slowing"):
        rd.scale_trajectory(arm, slow, [5.0, 5.0])   # g1 at q = 0 is about 19 N m
