"""The implicit integrators of ``simulate`` (issue 11): ``"radau"`` (SciPy's Radau IIA with
the exact Jacobian from the dynamics' derivatives) and ``"implicit-euler"`` (Newton)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.errors import InputError, RobodynError
from robodyn.implicit import state_jacobian

Q0 = [0.3, -0.5]


@pytest.fixture(scope="module")
def arm():
    return rd.load("planar-2r")


@pytest.fixture(scope="module")
def reference(arm):
    return rd.simulate(arm, Q0, duration=1.0, method="dop853", rtol=1e-12, atol=1e-12)


def test_radau_matches_a_tight_explicit_reference(arm, reference):
    sim = rd.simulate(arm, Q0, duration=1.0, method="radau", rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(sim.q[-1], reference.q[-1], atol=1e-7)
    np.testing.assert_allclose(sim.qd[-1], reference.qd[-1], atol=1e-7)
    assert sim.info["method"] == "radau" and sim.info["jacobians"] >= 1


def test_implicit_euler_is_first_order(arm, reference):
    errors = [np.abs(rd.simulate(arm, Q0, duration=1.0, method="implicit-euler", dt=dt).q[-1]
                     - reference.q[-1]).max() for dt in (2e-3, 1e-3)]
    assert 1.8 < errors[0] / errors[1] < 2.2  # halving dt halves the error


def test_state_jacobian_matches_finite_differences(arm):
    """The Jacobian handed to the solvers, a PD controller included (its state dependence
    enters through M^-1 dtau/dy)."""
    def pd(t, q, qd):
        return -50 * (q - 0.2) - 5 * qd + np.sin(t)

    def wrench(t, q, qd):
        return None

    q, qd = np.array([0.4, -0.7]), np.array([0.9, 0.3])
    f, jac = state_jacobian(arm, pd, wrench, 0.3, q, qd)

    def flow(y):
        return np.concatenate([y[2:], arm.forward_dynamics(y[:2], y[2:], pd(0.3, y[:2], y[2:]))])

    y, h = np.concatenate([q, qd]), 1e-6
    ref = np.stack([(flow(y + h * e) - flow(y - h * e)) / (2 * h) for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(f, flow(y), rtol=1e-14)
    np.testing.assert_allclose(jac, ref, rtol=1e-6, atol=1e-6)


def test_stiff_friction_explicit_fails_implicit_does_not():
    """A pendulum with viscous friction F = 1000 (time constant I/F ~ 0.3 ms): RK4 at
    dt = 10 ms blows up, implicit Euler and Radau settle on the slow overdamped motion
    ``qd ~ -m g l sin(q) / F``."""
    p = rd.load("pendulum").with_values(F=1000.0)
    with pytest.raises(RobodynError, match="finite"):
        rd.simulate(p, [1.0], duration=1.0, dt=0.01, method="rk4")
    euler = rd.simulate(p, [1.0], duration=1.0, dt=0.01, method="implicit-euler")
    radau = rd.simulate(p, [1.0], duration=1.0, method="radau", rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(euler.q[-1], radau.q[-1], atol=1e-4)
    slow = -1.0 * 9.81 * 0.5 * np.sin(radau.q[-1]) / 1000.0
    np.testing.assert_allclose(radau.qd[-1], slow, rtol=1e-3)
    assert radau.info["steps"] < 100


def test_implicit_euler_needs_dt(arm):
    with pytest.raises(InputError, match="give dt"):
        rd.simulate(arm, Q0, method="implicit-euler")
