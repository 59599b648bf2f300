"""The gears' efficiency from motor currents (robodyn.identification.efficiency): currents
made by the drive model of robodyn.motion.electrics with known ``eta`` and ``eta_b`` along
an excitation of a 2R arm under gravity, with and without noise, are fitted back; the
estimates fall within their standard errors of the truth (the noise's confidence
intervals), and bad data is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.motion.electrics import DCMotor, electrics
from robodyn.motion.trajectory import Motion

ARM = """\
name: geared_2r
dh: standard
planar: true
gravity: [0, -9.81, 0]
links:
  - {{joint: revolute, a: 0.5, mass: 2.0, com: [-0.25, 0, 0], inertia: [0, 0, 0.05, 0, 0, 0],
     motor: {{inertia: 2.0e-5, gear_ratio: 80, efficiency: {e1}, efficiency_back: {b1}}}}}
  - {{joint: revolute, a: 0.4, mass: 1.0, com: [-0.2, 0, 0], inertia: [0, 0, 0.02, 0, 0, 0],
     motor: {{inertia: 1.0e-5, gear_ratio: 50, efficiency: {e2}, efficiency_back: {b2}}}}}
"""
MOTOR = DCMotor(resistance=1.0, torque_constant=0.05)


def _arm(tmp_path, e1=1.0, b1=1.0, e2=1.0, b2=1.0):
    path = tmp_path / f"arm_{e1}_{b1}.yaml"
    path.write_text(ARM.format(e1=e1, b1=b1, e2=e2, b2=b2))
    return rd.load(path)


def _motion():
    """A periodic excitation: each joint lifts and lowers, speeds up and brakes."""
    t = np.linspace(0, 4, 2001)
    w = 2 * np.pi / 4
    q = np.stack([0.8 * np.sin(w * t) + 0.3 * np.sin(3 * w * t),
                  0.6 * np.cos(2 * w * t) - 0.2 * np.sin(w * t)], axis=1)
    qd = np.gradient(q, t, axis=0, edge_order=2)
    qdd = np.gradient(qd, t, axis=0, edge_order=2)
    return Motion(t, q, qd, qdd)


def test_noise_free_currents_give_the_efficiencies_back(tmp_path):
    truth = dict(e1=0.85, b1=0.7, e2=0.9, b2=0.75)
    motion = _motion()
    current = electrics(_arm(tmp_path, **truth), motion, MOTOR).current
    fit = rd.identify_efficiency(_arm(tmp_path), motion, current, MOTOR)
    np.testing.assert_allclose(fit.eta, [0.85, 0.9], rtol=1e-10)
    np.testing.assert_allclose(fit.eta_back, [0.7, 0.75], rtol=1e-10)
    assert fit.residual_rms.max() < 1e-10 and min(fit.driving.min(), fit.driven.min()) > 100


def test_noisy_currents_fall_within_their_confidence_intervals(tmp_path):
    truth = dict(e1=0.85, b1=0.7, e2=0.9, b2=0.75)
    motion = _motion()
    clean = electrics(_arm(tmp_path, **truth), motion, MOTOR).current
    rng = np.random.default_rng(7)
    sigma = 0.02 * np.abs(clean).max(axis=0)  # 2 % of each joint's peak current
    fit = rd.identify_efficiency(_arm(tmp_path), motion, clean + sigma * rng.normal(
        size=clean.shape), MOTOR)
    for est, std, want in ((fit.eta, fit.eta_std, [0.85, 0.9]),
                           (fit.eta_back, fit.eta_back_std, [0.7, 0.75])):
        assert np.all(std > 0) and np.all(std < 0.05)
        assert np.all(np.abs(est - want) < 4 * std), (est, std)  # 4 sigma: 1 in 16,000
    assert "eta = 0.8" in str(fit) and "samples" in str(fit)


def test_bad_data_is_refused_by_name(tmp_path):
    motion = _motion()
    robot = _arm(tmp_path)
    current = electrics(robot, motion, MOTOR).current
    with pytest.raises(rd.InputError, match=r"current: expected shape \(2001, 2\)"):
        rd.identify_efficiency(robot, motion, current[:10], MOTOR)
    with pytest.raises(rd.InputError, match="current: not finite"):
        rd.identify_efficiency(robot, motion, current * np.nan, MOTOR)
    with pytest.raises(rd.InputError, match="motors: the model gives its joints no DC motors"):
        rd.identify_efficiency(robot, motion, current)
    t = motion.t[:50]  # held at rest: no power flows, neither direction can be fitted
    rest = Motion(t, np.full((50, 2), 0.3), np.zeros((50, 2)), np.zeros((50, 2)))
    with pytest.raises(rd.InputError, match="joint 1's motor drives its joint in 0 samples"):
        rd.identify_efficiency(robot, rest, np.ones((50, 2)), MOTOR)
