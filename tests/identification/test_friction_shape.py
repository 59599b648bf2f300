"""The friction's shape fitted nonlinearly (Stribeck velocity and exponent, the smooth
sign's velocity) with its levels: data made from known parameters plus noise give them
back within the fit's own standard errors, and a held-out trajectory is predicted to the
noise."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.identification.friction_shape import validate_friction

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
    friction: {friction}
"""
NOISE = 0.02  # N m, the torque sensor's standard deviation


def _robot(tmp_path, name, friction):
    path = tmp_path / f"{name}.yaml"
    path.write_text(MODEL.format(friction=friction))
    return rd.load(path)


def _data(robot, seed, n=3000):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 20, n)
    # a chirp-like sweep: speeds from 0 to 1.2 rad/s in both directions, many near v_st
    qd = 1.2 * np.sin(0.4 * t) * np.abs(np.sin(1.3 * t)) + 0.05 * rng.normal(size=n)
    q = np.cumsum(qd) * (t[1] - t[0])
    qdd = rng.normal(scale=2.0, size=n)
    q, qd, qdd = q[:, None], qd[:, None], qdd[:, None]
    tau = robot.inverse_dynamics(q, qd, qdd) + rng.normal(scale=NOISE, size=(n, 1))
    return q, qd, qdd, tau


TRUE = {"viscous": 0.3, "coulomb": 1.0, "coulomb_negative": 0.8, "static": 1.6,
        "stribeck_velocity": 0.15, "stribeck_exponent": 2.0}


def test_stribeck_shape_is_recovered_within_its_standard_errors(tmp_path):
    truth = _robot(tmp_path, "truth", "{viscous: 0.3, coulomb: 1.0, coulomb_negative: 0.8, "
                   "static: 1.6, stribeck_velocity: 0.15, stribeck_exponent: 2}")
    start = _robot(tmp_path, "start", "{viscous: 0.1, coulomb: 0.5, static: 1.0, "
                   "stribeck_velocity: 0.05, stribeck_exponent: 1.2}")
    data = _data(truth, 0)
    linear = rd.identify_friction(start, *data)
    fit = rd.identify_friction(start, *data, shape=True)
    values, errors = fit.values[0], fit.errors[0]
    for key, true in TRUE.items():
        assert abs(values[key] - true) <= 3 * errors[key], (key, values[key], errors[key])
    assert errors["stribeck_velocity"] < 0.1 * TRUE["stribeck_velocity"]  # and informative
    # the residual is the noise, where the linear fit at the wrong shape was biased
    assert fit.rms[0] < 1.1 * NOISE < linear.rms[0]
    assert 0 < fit.info["nfev"][0] <= 400
    # a held-out trajectory, another seed: predicted to the noise
    held = _data(truth, 1)
    predicted, rms = validate_friction(fit, *held)
    assert rms[0] < 1.1 * NOISE
    np.testing.assert_allclose(predicted, truth.inverse_dynamics(*held[:3]), atol=5 * NOISE)


def test_smooth_sign_velocity_is_recovered(tmp_path):
    truth = _robot(tmp_path, "truth", "{viscous: 0.3, coulomb: 1.0, smooth_velocity: 0.08}")
    start = _robot(tmp_path, "start", "{viscous: 0.0, coulomb: 0.3, smooth_velocity: 0.02}")
    fit = rd.identify_friction(start, *_data(truth, 2), shape=True)
    for key, true in {"viscous": 0.3, "coulomb": 1.0, "smooth_velocity": 0.08}.items():
        assert abs(fit.values[0][key] - true) <= 3 * fit.errors[0][key], key
    assert fit.rms[0] < 1.1 * NOISE


def test_the_fit_has_a_budget(tmp_path):
    truth = _robot(tmp_path, "truth",
                   "{viscous: 0.3, coulomb: 1.0, static: 1.6, stribeck_velocity: 0.15}")
    start = _robot(tmp_path, "start", "{coulomb: 0.5, static: 1.0, stribeck_velocity: 0.05}")
    with pytest.raises(InputError, match="max_nfev"):
        rd.identify_friction(start, *_data(truth, 3), shape=True, max_nfev=100_000)
    with pytest.raises(InputError, match="evaluations without converging"):
        rd.identify_friction(start, *_data(truth, 3), shape=True, max_nfev=1)


def test_plot_of_predicted_against_measured_torque(tmp_path):
    truth = _robot(tmp_path, "truth", "{viscous: 0.3, coulomb: 1.0, static: 1.6, "
                   "stribeck_velocity: 0.15, stribeck_exponent: 2}")
    start = _robot(tmp_path, "start", "{viscous: 0.1, coulomb: 0.5, static: 1.0, "
                   "stribeck_velocity: 0.05}")
    fit = rd.identify_friction(start, *_data(truth, 4), shape=True)
    held = _data(truth, 5, n=800)
    path = tmp_path / "friction-fit.png"
    fig = rd.plot.friction_fit(fit, *held, t=np.linspace(0, 20, 800), path=path,
                               title="held-out trajectory")
    assert path.stat().st_size > 10_000
    left, right = fig.axes[:2]
    predicted = left.get_lines()[1].get_ydata()
    np.testing.assert_allclose(predicted, truth.inverse_dynamics(*held[:3])[:, 0],
                               atol=5 * NOISE)
    assert f"{np.sqrt(np.mean((held[3][:, 0] - predicted) ** 2)):.3g}" in left.get_title()
    # the fitted curve is the Stribeck curve: at rest-side speeds near F_st, far out F_c + F_v v
    v, f = right.get_lines()[1].get_data()
    far = v > 1.0
    np.testing.assert_allclose(f[far], 1.0 + 0.3 * v[far], atol=5 * NOISE)
