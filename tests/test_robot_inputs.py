"""Names and numbers as a user passes them (issue 18, "quiet, correct defaults"):
``robot.symbols`` and the keys of ``robot.values`` are the same names; one number stands
for every joint wherever a state is expected, in every public numeric function."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.core.errors import InputError


def test_symbols_are_the_names_of_the_values():
    robot = rd.load("planar-2r")
    assert all(type(s) is str for s in robot.symbols)
    assert robot.symbols == tuple(sorted(robot.values))
    assert robot.symbols == ("I1", "I2", "c1", "c2", "g", "l1", "l2", "m1", "m2")
    # the SymPy symbols are the chain's, by name
    assert robot.parameter_symbols == tuple(sp.Symbol(s) for s in robot.symbols)
    assert set(robot.parameter_symbols) == robot.chain.free_symbols()
    # a SymPy symbol (what robot.symbols held before) finds its name's value
    g = sp.Symbol("g")
    values = robot.values
    assert values[g] == values["g"] == 9.81 and g in values and values.get(g) == 9.81
    assert values.get(sp.Symbol("nope")) is None and sp.Symbol("nope") not in values
    assert robot.with_values({g: 3.0}).values["g"] == 3.0


@pytest.mark.parametrize("name", ["planar-2r", "rp-arm", "cartesian-2p"])
def test_one_number_is_that_number_for_every_joint(name, numpy_backend):
    robot = rd.load(name)
    n = robot.dof
    rng = np.random.default_rng(3)
    q, qd = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    full = np.full(n, 0.7)
    zero = np.zeros(n)
    pairs = [
        (robot.inverse_dynamics(q, qd, 0.0), robot.inverse_dynamics(q, qd, zero)),
        (robot.inverse_dynamics(0.7, qd, 0), robot.inverse_dynamics(full, qd, zero)),
        (robot.mass_matrix(0.7), robot.mass_matrix(full)),
        (robot.gravity_torques(0.7), robot.gravity_torques(full)),
        (robot.coriolis_matrix(q, 0.7), robot.coriolis_matrix(q, full)),
        (robot.friction_torques(0.7), robot.friction_torques(full)),
        (robot.forward_dynamics(q, 0.0, 0.0), robot.forward_dynamics(q, zero, zero)),
        (robot.kinetic_energy(q, 0.7), robot.kinetic_energy(q, full)),
        (robot.potential_energy(0.7), robot.potential_energy(full)),
        (robot.forward_kinematics(0.7), robot.forward_kinematics(full)),
        (robot.jacobian(0.7), robot.jacobian(full)),
        (robot.torque_parts(q, qd, 0.0).total, robot.torque_parts(q, qd, zero).total),
        (robot.regressor(q, qd, 0.0), robot.regressor(q, qd, zero)),
        (robot.inverse_dynamics_derivatives(q, qd, 0.0)[0],
         robot.inverse_dynamics_derivatives(q, qd, zero)[0]),
        (robot.inverse_dynamics(q[None], qd, 0.0), robot.inverse_dynamics(q[None], qd, zero)),
    ]
    for got, want in pairs:
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    # the closed forms' numeric functions broadcast alike
    if n <= 3:
        num = robot.equations(values=True).numeric()
        np.testing.assert_allclose(num.M(0.7), robot.mass_matrix(full), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(num.tau(q, qd, 0.0), robot.inverse_dynamics(q, qd, zero),
                                   rtol=1e-12, atol=1e-12)


def test_a_one_joint_arm_takes_numbers(numpy_backend):
    pendulum = rd.load("pendulum")
    assert pendulum.dof == 1
    tau = pendulum.inverse_dynamics(0.3, 0.0, 1.0)
    assert tau.shape == (1,)
    np.testing.assert_array_equal(tau, pendulum.inverse_dynamics([0.3], [0.0], [1.0]))
    m = pendulum.mass_matrix(0.3)
    g = pendulum.gravity_torques(0.3)
    np.testing.assert_allclose(tau, m[:, 0] * 1.0 + g, rtol=1e-14)


@pytest.mark.parametrize("call, message", [
    (lambda r: r.mass_matrix([0.1]), r"q: expected shape \(\.\.\., 2\) \(one value per "
                                     r"joint, or one number for all\), got \(1,\)"),
    (lambda r: r.inverse_dynamics(0.0, 0.0, np.zeros(3)), r"qdd: expected shape \(\.\.\., 2\)"),
    (lambda r: r.inverse_dynamics(0.0, 0.0, 0.0, h_e=0.0), r"h_e: expected shape \(\.\.\., 6\)"),
    (lambda r: r.inverse_dynamics(0.0, np.nan, 0.0), r"qd"),
    (lambda r: r.mass_matrix(True), r"q: expected real numbers, got an array of booleans"),
    (lambda r: r.mass_matrix("0.1"), r"q: expected real numbers, got an array of text"),
])
def test_what_does_not_broadcast_is_still_a_clear_error(call, message, numpy_backend):
    with pytest.raises(InputError, match=message):
        call(rd.load("planar-2r"))
