"""Forward dynamics step by step (issue 33, "What else a course needs"): from tau to q'' and a
worked simulation step, checked against independent sources.

* Siciliano's pendulum (§7.1: mass m at distance l from the pivot, Izz about its centre,
  q = 0 hanging down, viscous friction F): ``(Izz + m l^2) q'' + F q' + m g l sin q = tau``,
  so by hand ``q'' = (tau - F q' - m g l sin q) / (Izz + m l^2)``.
* Any arm: ``q''`` equals :meth:`robodyn.Robot.forward_dynamics` (the recursive algorithms,
  themselves tested against Pinocchio's ABA); the closed-form ``adj(M) rhs / det(M)`` times
  ``M`` is ``rhs`` (the inverse's defining property); Euler's step is ``x + h x'`` by hand;
  RK4 equals an RK4 written here on ``Robot.forward_dynamics``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError
from robodyn.symbolic.forward_steps import forward_steps

STATE = {"q": [0.3, -0.5], "qd": [0.2, 0.1], "tau": [1.0, 0.5]}


@pytest.fixture(scope="module")
def arm():
    robot = rd.load("planar-2r")
    return robot, robot.equations()


def test_the_pendulums_acceleration_by_hand():
    robot = rd.load("pendulum")
    eq = robot.equations()
    steps = {lhs: value for lhs, _, value in forward_steps(eq).steps}
    names = {s.name: s for s in eq.params}
    q, qd, tau = eq.q[0], eq.qd[0], sp.Symbol("tau1")
    m, l, g, F, Izz = (names[n] for n in ("m", "l", "g", "F", "Izz"))
    by_hand = (tau - F * qd - m * g * l * sp.sin(q)) / (Izz + m * l ** 2)
    assert sp.simplify(steps["q''"][0] - by_hand) == 0


def test_the_closed_form_solve_is_the_inverse(arm):
    _, eq = arm
    steps = {lhs: value for lhs, _, value in forward_steps(eq).steps}
    residual = (eq.M * steps["q''"] - steps["tau - C q' - g - f"]).applyfunc(sp.simplify)
    assert residual == sp.zeros(2, 1)


def test_numbers_equal_the_recursive_forward_dynamics(arm):
    robot, eq = arm
    fs = forward_steps(eq, STATE, dt=0.01)
    want = robot.forward_dynamics(STATE["q"], STATE["qd"], STATE["tau"])
    assert np.allclose(fs.qdd, want, rtol=1e-12, atol=1e-12)
    # Euler by hand: q1 = q + h qd, qd1 = qd + h qdd
    assert np.allclose(fs.q1, np.add(STATE["q"], 0.01 * np.array(STATE["qd"])), atol=1e-15)
    assert np.allclose(fs.qd1, np.add(STATE["qd"], 0.01 * want), atol=1e-14)


def test_rk4_equals_an_rk4_on_the_recursive_dynamics(arm):
    robot, eq = arm
    h, tau = 0.02, np.array(STATE["tau"])

    def f(x):
        return np.concatenate([x[2:], robot.forward_dynamics(x[:2], x[2:], tau)])

    x0 = np.array(STATE["q"] + STATE["qd"])
    k1 = f(x0)
    k2 = f(x0 + h / 2 * k1)
    k3 = f(x0 + h / 2 * k2)
    k4 = f(x0 + h * k3)
    x1 = x0 + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    fs = forward_steps(eq, STATE, dt=h, integrator="rk4")
    assert np.allclose(np.concatenate([fs.q1, fs.qd1]), x1, rtol=1e-12, atol=1e-13)
    assert [lhs for lhs, _, _ in fs.steps if lhs.startswith("k")] == ["k1", "k2", "k3", "k4"]


def test_bad_states_are_named(arm):
    _, eq = arm
    with pytest.raises(InputError, match="qd needs 2 finite numbers"):
        forward_steps(eq, {"q": [0, 0], "qd": [0], "tau": [0, 0]})
    with pytest.raises(InputError, match="no tau"):
        forward_steps(eq, {"q": [0, 0], "qd": [0, 0]})
    with pytest.raises(InputError, match="integrator"):
        forward_steps(eq, STATE, integrator="leapfrog")
    with pytest.raises(InputError, match="dt"):
        forward_steps(eq, STATE, dt=-1.0)


@pytest.mark.parametrize("fmt, mark", [("text", "(q, q') after h = 0.01 s"),
                                       ("latex", "\\begin{align*}"),
                                       ("markdown", "$$"), ("html", "<math")])
def test_derive_forward_prints_each_format(capsys, fmt, mark):
    assert main(["derive", "planar-2r", "--forward", "--state",
                 "q=0.3,-0.5;qd=0.2,0.1;tau=1,0.5", "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert mark in out and "q''" in out.replace("q&#x27;&#x27;", "q''")


def test_derive_forward_refuses_a_bad_state(capsys):
    with pytest.raises(SystemExit) as info:
        main(["derive", "planar-2r", "--forward", "--state", "q=0.3;speed=1"])
    assert info.value.code == 2 and "q=..;qd=..;tau=.." in capsys.readouterr().err
