"""A closed mechanism driven by DC motors with an inductance (robodyn.motion.voltage_closed,
issue 36): the currents of the actuated joints' motors are states of the adaptive run
beside the reduced model. Oracles by hand: the stall voltage ``V = R (S^T g)(q0) / k_t``
holds the four-bar at ``q0`` with ``i = V / R`` once the current has risen (the back-EMF
damps the sag while it does); the energy drawn ``∫ V i dt`` is ``Δ(T + U)`` + the copper
loss ``∫ R i^2 dt`` + the inductance's ``L i^2 / 2`` (no friction; the current starts at 0);
as ``L -> 0`` the run tends to the ``L = 0`` run, its error ``O(L / R)`` (halved with
``L``)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.motion.electrics import DCMotor

Q0 = np.array([0.5, 0.09085012, -2.52122048])  # the four-bar's home, assembled
# k_t^2 / R = 0.5 N m s: about the critical damping 2 sqrt(J K) of the crank's coordinate
# at Q0 (J = S^T M S = 0.038 kg m^2, K = d(S^T g)/dy = 1.65 N m), settling in about 1 s
R, KT = 2.0, 1.0


@pytest.fixture(scope="module")
def four_bar():
    robot = rd.load("four-bar")
    S, _ = robot.closed_chain().velocity_terms(Q0, np.zeros(1))
    return robot, float((S.T @ robot.gravity_torques(Q0))[0])  # S^T g: the crank's load


def test_held_by_its_stall_voltage_the_current_rises_and_it_settles(four_bar):
    """L / R = 10 ms: from i = 0 the crank sags while the current rises, then returns; at
    1.5 s the current is the stall current V / R and the mechanism is back at Q0, and the
    energy drawn balances to the solver's tolerance."""
    robot, load = four_bar
    V, L = R * load / KT, 0.02
    sim = rd.simulate(robot, Q0, 0.0, 1.5, voltage=V, sample_dt=0.05, progress=False,
                      motors=DCMotor(resistance=R, torque_constant=KT, inductance=L),
                      rtol=1e-6, atol=1e-8)
    i = sim.info["current"][:, 0]
    assert i[0] == 0.0 and abs(i[-1] / (V / R) - 1) < 1e-3
    assert np.abs(sim.q - Q0).max() > 1e-2  # it sagged on the way
    assert np.abs(sim.q[-1] - Q0).max() < 1e-3 and np.abs(sim.qd[-1]).max() < 1e-2
    assert np.abs(sim.tau[:, 1:]).max() == 0  # the passive joints have no motor
    assert np.allclose(sim.tau[:, 0], KT * i, rtol=1e-12)
    drawn, copper = sim.info["electric_energy"][0], sim.info["copper_loss"][0]
    stored = L * i[-1] ** 2 / 2
    assert abs(drawn - (sim.total[-1] - sim.total[0]) - copper - stored) < 1e-6 * drawn
    assert stored > 0.05 and copper > 10


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_a_small_inductance_tends_to_the_run_without_one(four_bar):
    """Under V(t) = V_hold + 3 sin(8 t) the motion with L / R = 2 ms and 1 ms differs from
    the L = 0 run by O(L / R): the difference halves with L (first order), and is small
    beside the motion."""
    robot, load = four_bar

    def law(t, q, qd):
        return R * load / KT + 3 * np.sin(8 * t)

    runs = {L: rd.simulate(robot, Q0, 0.0, 0.15, voltage=law, sample_dt=0.01, progress=False,
                           motors=DCMotor(resistance=R, torque_constant=KT, inductance=L),
                           rtol=1e-6, atol=1e-8)
            for L in (0.0, 4e-3, 2e-3)}
    errors = [np.abs(runs[L].q - runs[0.0].q).max() for L in (4e-3, 2e-3)]
    assert 1.8 < errors[0] / errors[1] < 2.2
    assert errors[1] < 0.1 * np.ptp(runs[0.0].q[:, 0])
    lag = [np.abs(runs[L].info["current"] - runs[0.0].info["current"])[5:].max()
           for L in (4e-3, 2e-3)]  # after the first 50 ms (the current's rise from 0)
    assert 1.8 < lag[0] / lag[1] < 2.2


def test_an_inductance_at_fixed_steps_and_a_voltage_per_tree_joint_are_refused(four_bar):
    robot, _ = four_bar
    motor = DCMotor(resistance=R, torque_constant=KT, inductance=1e-3)
    with pytest.raises(rd.InputError, match=r"dt: the motors of this closed mechanism"):
        rd.simulate(robot, Q0, 0.0, 0.1, voltage=1.0, dt=0.01, progress=False, motors=motor)
    with pytest.raises(rd.InputError, match=r"voltage: expected one number or 1 \(one per "
                                            r"actuated joint\), got shape \(3,\)"):
        rd.simulate(robot, Q0, 0.0, 0.1, voltage=[1.0, 2.0, 3.0], progress=False, motors=motor)
    with pytest.raises(rd.InputError, match=r"expected 1 finite numbers \(volts, one per "
                                            r"actuated joint\)"):
        rd.simulate(robot, Q0, 0.0, 0.1, voltage=lambda t, q, qd: q, progress=False,
                    motors=motor)
