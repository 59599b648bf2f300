"""The implicit integrators of ``simulate`` (issue 11): ``"radau"`` (SciPy's Radau IIA with
the exact Jacobian from the dynamics' derivatives) and ``"implicit-euler"`` (Newton)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError, RobodynError
from robodyn.motion.checks import ENERGY_TOLERANCE
from robodyn.motion.implicit import state_jacobian

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
    with warnings.catch_warnings():  # implicit Euler damps the motion: said below
        warnings.simplefilter("ignore", rd.EnergyBalanceWarning)
        runs = [rd.simulate(arm, Q0, duration=1.0, method="implicit-euler", dt=dt)
                for dt in (2e-3, 1e-3)]
    errors = [np.abs(run.q[-1] - reference.q[-1]).max() for run in runs]
    assert 1.8 < errors[0] / errors[1] < 2.2  # halving dt halves the error
    # and the energy it damps away (the passive arm keeps K + U): the drift halves too
    drifts = [run.info["energy_balance"].relative for run in runs]
    assert 1.8 < drifts[0] / drifts[1] < 2.2
    assert drifts[0] > ENERGY_TOLERANCE  # so that run warned


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
    with pytest.raises(RobodynError, match=r"diverged on the step from t = \S+ s to \S+ s: the "
                                           r"state stopped being finite or passed 1e\+10 .* "
                                           "too fast for dt") as caught:
        rd.simulate(p, [1.0], duration=1.0, dt=0.01, method="rk4")
    # the fastest rate of I qdd + F qd + m g l sin q = 0 is about F / I
    v = p.values
    rate = float(re.search(r"fastest rate is (\S+) 1/s", str(caught.value))[1])
    assert rate == pytest.approx(1000.0 / (v["Izz"] + v["m"] * v["l"] ** 2), rel=0.01)
    assert "use method='implicit-euler' or 'radau'" in str(caught.value)
    euler = rd.simulate(p, [1.0], duration=1.0, dt=0.01, method="implicit-euler")
    radau = rd.simulate(p, [1.0], duration=1.0, method="radau", rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(euler.q[-1], radau.q[-1], atol=1e-4)
    slow = -1.0 * 9.81 * 0.5 * np.sin(radau.q[-1]) / 1000.0
    np.testing.assert_allclose(radau.qd[-1], slow, rtol=1e-3)
    assert radau.info["steps"] < 100


def test_implicit_euler_needs_dt(arm):
    with pytest.raises(InputError, match="give dt"):
        rd.simulate(arm, Q0, method="implicit-euler")


def test_implicit_euler_diverges_only_under_an_unbounded_torque(numpy_backend):
    """Implicit Euler is stable for any dt; a state past MAX_MAGNITUDE means the torques
    drive the arm without bound, and the error says so, at the step where q = a t (t + dt)
    / 2 (implicit Euler on qdd = a) passes it."""
    pendulum = rd.load("pendulum").with_values(F=0.0)
    v = pendulum.values
    accel = 1e8 / (v["Izz"] + v["m"] * v["l"] ** 2)
    with pytest.raises(RobodynError, match=r"the motion diverged: the state stopped being "
                                           r"finite or passed 1e\+10 by t = (\S+) s \(implicit "
                                           "Euler is stable for any dt") as caught:
        rd.simulate(pendulum, [0.0], duration=20.0, dt=0.1, method="implicit-euler",
                    tau=np.full((2, 1), 1e8))
    t = np.arange(1, 201) * 0.1
    first = t[np.argmax(accel * t * (t + 0.1) / 2 > 1e10)]
    assert float(re.search(r"by t = (\S+) s", str(caught.value))[1]) == pytest.approx(first)
