"""Elastic joints (Spong's model, robodyn.motion.elastic):
a link and a motor joined by a spring oscillate at ``w^2 = K (1/I + 1/B)`` (two inertias
on a spring, by hand); as ``K -> inf`` the motion is the rigid arm's with the motor
inertia added, within O(1/K); the closed forms are the rigid model's plus the spring."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion.elastic import (
    ElasticComputedTorque,
    ElasticJoints,
    simulate_elastic,
    static_deflection,
)

pytestmark = pytest.mark.usefixtures("numpy_backend")


@pytest.mark.slow
def test_a_link_and_its_motor_oscillate_at_the_two_inertia_frequency():
    """No gravity, no torque: ``I q'' = K (theta - q)``, ``B theta'' = -K (theta - q)``, so
    ``theta - q = delta cos(w t)`` with ``w^2 = K (1/I + 1/B)`` and the centre of inertia
    ``I q + B theta`` at rest."""
    pendulum = rd.load("pendulum").with_values({"g": 0.0}).without_friction()
    inertia = float(pendulum.mass_matrix([0.0])[0, 0])
    K, B, delta = 400.0, 0.3, 0.02
    springs = ElasticJoints.of(pendulum, K, B)
    run = simulate_elastic(pendulum, springs, [0.0], theta0=[delta], duration=1.0, dt=1e-3,
                           rtol=1e-10, atol=1e-12)
    w = np.sqrt(K * (1 / inertia + 1 / B))
    np.testing.assert_allclose((run.theta - run.q)[:, 0], delta * np.cos(w * run.t),
                               atol=1e-7)
    np.testing.assert_allclose(inertia * run.q[:, 0] + B * run.theta[:, 0], B * delta,
                               atol=1e-9)


def _rigid_with_motors(robot, B, q0, torque, times):
    """The rigid arm with the motors' inertia, ``(M + B) q'' + bias = tau``, by SciPy's
    RK45 (a path of its own, not robodyn's simulators)."""
    from scipy.integrate import solve_ivp

    n = robot.dof

    def rhs(t, x):
        q, qd = x[:n], x[n:]
        M = robot.mass_matrix(q) + np.diag(B)
        bias = robot.inverse_dynamics(q, qd, np.zeros(n))
        return np.concatenate([qd, np.linalg.solve(M, torque(t) - bias)])

    sol = solve_ivp(rhs, (times[0], times[-1]), np.concatenate([q0, np.zeros(n)]),
                    t_eval=times, rtol=1e-11, atol=1e-12)
    return sol.y[:n].T


def test_stiff_joints_move_as_the_rigid_arm_with_its_motors_within_one_over_k():
    arm = rd.load("planar-2r").without_friction()
    q0 = np.array([0.3, 0.6])
    B = np.array([0.2, 0.1])
    g0 = arm.gravity_torques(q0)

    def torque(t):
        return g0 + np.array([2.0, -1.0]) * np.sin(3.0 * t)

    times = np.arange(0.0, 1.0 + 1e-9, 1e-2)
    rigid = _rigid_with_motors(arm, B, q0, torque, times)
    errors = []
    for K in (1e3, 1e4, 1e5):
        springs = ElasticJoints.of(arm, K, B, damping=2 * 0.7 * np.sqrt(K * B))
        run = simulate_elastic(arm, springs, q0, duration=1.0, dt=1e-2,
                               tau=lambda t, *_: torque(t))
        errors.append(np.abs(run.q - rigid).max())
    assert errors[2] < 1e-3
    assert errors[1] / errors[2] > 5 and errors[0] / errors[1] > 5   # O(1/K)


def test_the_controller_tracks_with_an_error_that_shrinks_with_stiffness():
    arm = rd.load("planar-2r").without_friction()
    q0 = np.array([0.0, 0.5])
    ref = rd.trajectory.quintic(q0, [0.8, -0.2], 1.0)
    peaks = []
    for K in (2e3, 2e4):
        springs = ElasticJoints.of(arm, K, 0.2, damping=0.0)
        ctl = ElasticComputedTorque(arm, springs, ref, kp=100.0, kd=20.0,
                                    kv=2 * np.sqrt(K * 0.2))
        run = simulate_elastic(arm, springs, q0, duration=1.2, dt=1e-2, tau=ctl)
        peaks.append(np.abs(run.q - ref(run.t)[0]).max())
    assert peaks[1] < 0.01 and peaks[1] < peaks[0] / 3


def test_the_closed_forms_are_the_rigid_model_and_the_spring():
    """The pendulum by hand: link ``(Izz + m l^2) q'' + m g l sin q = K (theta - q) + D
    (theta' - q')`` (here with the model's own rigid terms), motor ``B theta'' + K (theta
    - q) + D (theta' - q') = tau``."""
    from robodyn.symbolic.elastic import elastic_equations

    eq = rd.load("pendulum").equations()
    el = elastic_equations(eq)
    (q,), (qd,) = eq.q, eq.qd
    K, B, D = sp.symbols("K1 B1 D1")
    th, thd, thdd = sp.symbols("theta1 thetad1 thetadd1")
    rigid = eq.tau[0]
    assert sp.simplify(el.link[0] - (rigid - K * (th - q) - D * (thd - qd))) == 0
    assert sp.simplify(el.motor[0] - (B * thdd + K * (th - q) + D * (thd - qd))) == 0
    assert "K1*(-q1 + theta1)" in el.text() or "K1*(theta1 - q1)" in el.text()


def test_bad_springs_and_budgets_are_named():
    arm = rd.load("planar-2r")
    with pytest.raises(InputError, match=r"stiffness\[1\]: 0; give a finite number > 0"):
        ElasticJoints.of(arm, [100.0, 0.0], 0.1)
    with pytest.raises(InputError, match=r"motor_inertia\[0\]: -1"):
        ElasticJoints.of(arm, 100.0, -1.0)
    with pytest.raises(InputError, match=r"damping\[0\]: nan"):
        ElasticJoints.of(arm, 100.0, 0.1, damping=np.nan)
    springs = ElasticJoints.of(arm, 1e6, 0.1)
    with pytest.raises(InputError, match="evaluated 50 times"):
        simulate_elastic(arm, springs, [0.1, 0.2], duration=1.0, dt=0.01, max_evaluations=50)
    np.testing.assert_allclose(static_deflection(arm, springs, [0.1, 0.2]),
                               np.array([0.1, 0.2]) + arm.gravity_torques([0.1, 0.2]) / 1e6)
