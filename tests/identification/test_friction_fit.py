"""Friction identified from torques (robodyn.identification.friction_fit): data made by the
model with every linear friction term and Gaussian noise gives back the levels within
three of their reported standard errors (the 95 % intervals are 1.96 of them), and a
held-out motion's torque within 1.1x the noise."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from conftest import FRICTION_ARM

TRUE = ({"viscous": 0.3, "coulomb": 0.5, "coulomb_negative": 0.35, "offset": 0.08,
         "static": 0.7, "stribeck_velocity": 0.1, "stribeck_exponent": 2},
        {"viscous": 0.15, "coulomb": 0.2, "coulomb_negative": 0.28, "offset": -0.04,
         "smooth_velocity": 0.02})


def _robot(tmp_path, fields):
    def text(f):
        return "{" + ", ".join(f"{k}: {v}" for k, v in f.items()) + "}"

    path = tmp_path / "fitarm.yaml"
    path.write_text(FRICTION_ARM.format(name="fitarm", f1=text(fields[0]),
                                        f2=text(fields[1])))
    return rd.load(path)


def _motion(seed, n):
    """Sums of sines (speeds from 0 to about 2 rad/s, both directions, slow passages
    through zero for the Stribeck hump)."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 20, n)
    a, w, phase = rng.uniform(0.1, 0.4, (3, 2)), rng.uniform(0.3, 2.0, (3, 2)), \
        rng.uniform(0, 6.28, (3, 2))
    q = sum(a[k] * np.sin(w[k] * t[:, None] + phase[k]) for k in range(3))
    qd = sum(a[k] * w[k] * np.cos(w[k] * t[:, None] + phase[k]) for k in range(3))
    qdd = sum(-a[k] * w[k] ** 2 * np.sin(w[k] * t[:, None] + phase[k]) for k in range(3))
    return q, qd, qdd


def test_the_levels_come_back_within_their_confidence_intervals(tmp_path):
    robot = _robot(tmp_path, TRUE)
    noise = 0.02
    rng = np.random.default_rng(11)
    q, qd, qdd = _motion(1, 4000)
    tau = robot.inverse_dynamics(q, qd, qdd) + rng.normal(0, noise, q.shape)
    fit = rd.identify_friction(robot, q, qd, qdd, tau)
    for j, truth in enumerate(TRUE):
        assert set(fit.values[j]) == ({"viscous", "coulomb", "coulomb_negative", "offset"}
                                      | ({"static"} if "static" in truth else set()))
        for level, value in fit.values[j].items():  # 3 standard errors: 99.7 % each
            error = fit.errors[j][level]
            assert abs(value - truth[level]) <= 3 * error, (j, level, truth[level], value, error)
            assert error < 0.01  # informative: the intervals are narrow
            low, high = fit.intervals[j][level]
            assert high - low == pytest.approx(2 * 1.96 * error)
    np.testing.assert_allclose(fit.rms, noise, rtol=0.1)
    # a held-out motion: the fitted robot predicts its torque to within 1.1x the noise
    q2, qd2, qdd2 = _motion(2, 2000)
    measured = robot.inverse_dynamics(q2, qd2, qdd2) + rng.normal(0, noise, q2.shape)
    error = measured - fit.robot.inverse_dynamics(q2, qd2, qdd2)
    assert np.all(np.sqrt(np.mean(error**2, axis=0)) <= 1.1 * noise)
    assert "joint 2: viscous" in str(fit)


def test_a_motion_in_one_direction_cannot_tell_the_levels_apart(tmp_path):
    robot = _robot(tmp_path, TRUE)
    q, qd, qdd = _motion(1, 500)
    qd = np.abs(qd) + 0.5  # only positive speeds: F_c- has no data
    with pytest.raises(rd.InputError, match="joint 1's velocities do not excite"):
        rd.identify_friction(robot, q, qd, qdd, robot.inverse_dynamics(q, qd, qdd))


def test_the_standard_errors_are_the_spread_of_repeated_fits(tmp_path):
    """The reported standard error is the scatter of the estimate over noise draws (40 fits:
    the sample standard deviation within 30 % of the reported one)."""
    robot = _robot(tmp_path, TRUE)
    q, qd, qdd = _motion(3, 1000)
    clean = robot.inverse_dynamics(q, qd, qdd)
    rng = np.random.default_rng(4)
    fits = [rd.identify_friction(robot, q, qd, qdd, clean + rng.normal(0, 0.05, q.shape))
            for _ in range(40)]
    for level in ("viscous", "coulomb", "coulomb_negative", "offset"):
        spread = np.std([f.values[1][level] for f in fits], ddof=1)
        reported = np.mean([f.errors[1][level] for f in fits])
        assert spread == pytest.approx(reported, rel=0.3), level


def test_with_an_exact_sign_the_offset_is_folded_into_the_coulomb_levels(tmp_path):
    """sign(qd) without a Stribeck term: F_c+ s>0 + tau_0 and -F_c- + tau_0 are all the
    moving data shows, so the fit returns F_c+ + tau_0 and F_c- - tau_0, offset 0, and
    predicts the torque as well."""
    plain = ({"viscous": 0.3, "coulomb": 0.5, "coulomb_negative": 0.35, "offset": 0.08},
             {"viscous": 0.1, "coulomb": 0.2})
    robot = _robot(tmp_path, plain)
    q, qd, qdd = _motion(5, 3000)
    tau = robot.inverse_dynamics(q, qd, qdd)  # no noise: exact levels
    fit = rd.identify_friction(robot, q, qd, qdd, tau)
    assert fit.folded == (0, 1)
    assert fit.values[0] == pytest.approx({"viscous": 0.3, "coulomb": 0.58,
                                           "coulomb_negative": 0.27}, abs=1e-10)
    assert fit.values[1] == pytest.approx({"viscous": 0.1, "coulomb": 0.2,
                                           "coulomb_negative": 0.2}, abs=1e-10)
    np.testing.assert_allclose(fit.robot.inverse_dynamics(q, qd, qdd), tau, atol=1e-9)
