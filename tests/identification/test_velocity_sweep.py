"""The velocity sweep for friction identification (identification/velocity_sweep.py): each
joint in turn holds each speed both ways inside its range while the others stay still; its
``q, qd, qdd`` are one another's derivatives; the friction fitted from it gives the true
Stribeck curve back within its standard errors."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError


def _breaks(sweep):
    """Every time the profile's acceleration jumps."""
    _, t0, T, _, _, _, ta, tc = sweep.segments.T
    return np.concatenate([t0, t0 + ta, t0 + ta + tc, t0 + T])


def test_each_joint_holds_each_speed_both_ways_inside_its_range_the_others_still():
    robot = rd.load("planar-2r")
    speeds = [0.05, 0.2, 1.0]
    sweep = rd.excitation.velocity_sweep(robot, speeds, cruise=1.5, dt=1e-3)
    half = 0.9 * np.pi  # the default range [-pi, pi] times margin 0.9, about 0
    assert np.all(np.abs(sweep.q) <= half + 1e-12)
    for j in range(2):
        mine = sweep.segments[:, 0] == j
        start, end = sweep.segments[mine, 1].min(), (sweep.segments[mine, 1]
                                                       + sweep.segments[mine, 2]).max()
        during = (sweep.t >= start) & (sweep.t <= end)
        np.testing.assert_array_equal(sweep.q[during, 1 - j], 0.0)  # the other joint still
        for v in speeds:
            for sign in (1, -1):
                held = np.isclose(sweep.qd[during, j], sign * v, rtol=1e-12, atol=0)
                # each speed held for the cruise time (the strokes fit in the range)
                assert held.sum() * sweep.dt >= 1.5 - 2 * sweep.dt, (j, v, sign)
                assert np.all(sweep.qdd[during, j][held] == 0.0)
    assert np.abs(sweep.qd).max() <= 1.0 + 1e-12
    # it ends where it started, at rest
    np.testing.assert_allclose(sweep(sweep.duration)[0], sweep.q0, atol=1e-12)


def test_q_qd_qdd_are_derivatives_of_one_another():
    sweep = rd.excitation.velocity_sweep(rd.load("planar-2r"), [0.1, 0.8], cruise=0.5)
    t = np.random.default_rng(0).uniform(0, sweep.duration, 4000)
    h = 1e-5
    t = t[np.min(np.abs(t[:, None] - _breaks(sweep)[None]), axis=1) > 2 * h]
    q, qd, qdd = sweep(t)
    qp, qdp, _ = sweep(t + h)
    qm, qdm, _ = sweep(t - h)
    # q is piecewise quadratic and qd piecewise linear: central differences are exact
    np.testing.assert_allclose((qp - qm) / (2 * h), qd, atol=1e-8)
    np.testing.assert_allclose((qdp - qdm) / (2 * h), qdd, atol=1e-6)
    # and the samples are the profile at the grid
    np.testing.assert_array_equal(sweep(sweep.t)[0], sweep.q)
    assert sweep.trajectory().duration == sweep.duration


MODEL = """
name: rubbing-pendulum
dh: standard
gravity: [0, -9.81, 0]
links:
  - joint: revolute
    a: 0.5
    mass: 1.0
    com: [0, 0, 0]
    inertia: [1.0e-3, 1.0e-3, 1.0e-3, 0, 0, 0]
    limits: {{lower: -2, upper: 2, velocity: 1.5}}
    friction: {friction}
"""
TRUE = {"viscous": 0.3, "coulomb": 1.0, "coulomb_negative": 0.8, "static": 1.6,
        "stribeck_velocity": 0.15, "stribeck_exponent": 2.0}
NOISE = 0.02


def test_the_stribeck_curve_comes_back_from_a_sweep_whatever_the_inertias(tmp_path):
    """The arm has a rotor (armature 0.25 kg m^2, the link's m l^2) the fit's model leaves
    out: at constant speed ``M qdd = 0``, so the sweep's steady samples give the friction
    back within its standard errors and the residual is the noise; a Fourier excitation of
    as many samples, whose every sample accelerates, is biased by the missing inertia."""
    def robot(name, friction, motor=""):
        path = tmp_path / f"{name}.yaml"
        path.write_text(MODEL.format(friction=friction) + motor)
        return rd.load(path)

    truth = robot("truth", "{viscous: 0.3, coulomb: 1.0, coulomb_negative: 0.8, static: 1.6, "
                  "stribeck_velocity: 0.15, stribeck_exponent: 2}",
                  "    motor: {inertia: 1.0e-4, gear_ratio: 50}\n")
    start = robot("start", "{viscous: 0.1, coulomb: 0.5, static: 1.0, "
                  "stribeck_velocity: 0.05, stribeck_exponent: 1.2}")
    assert truth.mass_matrix([0.0])[0, 0] == pytest.approx(2 * start.mass_matrix([0.0])[0, 0],
                                                           rel=1e-2)
    sweep = rd.excitation.velocity_sweep(truth, cruise=1.0, dt=4e-3)  # 1 % .. 90 % of 1.5
    assert sweep.speeds[0, 0] == pytest.approx(0.015) and sweep.speeds[0, -1] == pytest.approx(1.35)
    rng = np.random.default_rng(0)
    steady = sweep.steady
    assert np.all(sweep.qdd[steady] == 0) and np.all(sweep.qd[steady] != 0)
    data = (sweep.q[steady], sweep.qd[steady], sweep.qdd[steady])
    tau = truth.inverse_dynamics(*data) + rng.normal(scale=NOISE, size=data[0].shape)
    fit = rd.identify_friction(start, *data, tau, shape=True)
    for key, true in TRUE.items():
        assert abs(fit.values[0][key] - true) <= 3 * fit.errors[0][key], (key, fit.values[0])
    assert fit.errors[0]["stribeck_velocity"] < 0.05 * TRUE["stribeck_velocity"]
    assert fit.rms[0] < 1.1 * NOISE
    ex = rd.excitation.fourier(truth.without_friction(), harmonics=5, period=sweep.duration,
                               samples=len(tau), iterations=0, progress=False)
    tau_f = truth.inverse_dynamics(ex.q, ex.qd, ex.qdd) + rng.normal(scale=NOISE,
                                                                     size=ex.q.shape)
    assert rd.identify_friction(start, ex.q, ex.qd, ex.qdd, tau_f, shape=True).rms[0] > 3 * NOISE


@pytest.mark.parametrize("kwargs, match", [
    ({"speeds": [0.5, 0.2]}, "ascending"),
    ({"speeds": [0.1, 3.0]}, "above its velocity limit 2"),
    ({"speeds": [0.1, np.nan]}, "positive, ascending"),
    ({"speeds": [[0.1, 0.2]]}, r"\(dof = 2, k\)"),
    ({"speeds": [1.5], "accel": 0.1}, "cannot reach 1.5 within its range"),
    ({"joints": [0, 0]}, "distinct joint indices"),
    ({"joints": [2]}, "distinct joint indices 0..1"),
    ({"accel": -1.0}, "accel"),
    ({"cruise": 0}, "cruise"),
    ({"dt": 1e-9}, "over max_samples"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(InputError, match=match):
        rd.excitation.velocity_sweep(rd.load("planar-2r"), **kwargs)
