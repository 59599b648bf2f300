"""``rd.simulate`` and ``robodyn simulate`` of a closed mechanism (docs/closed-chains.md):
projected RK4 on the actuated coordinates keeps the loops closed and the energy of a passive
run to RK4's order.

Oracles: properties only (the closure ``phi(q) = 0`` and ``K qd = 0`` computed by the closed
chain's own kinematics, independent of the integrator; conservation of ``T + U`` for a
passive frictionless mechanism and its fall with ``dt^4``; the parallelogram's geometry,
``theta_2' = theta_1'' - theta_1'`` on its branch; the work-energy balance of a driven run).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError


@pytest.fixture(scope="module")
def arm():
    robot = rd.load("parallelogram-arm")
    chain = robot.closed_chain()
    # hanging from both motors' angles -2.0 and -0.6 rad at rest: it swings through the
    # flat (singular) parallelogram several times in 10 s
    q0 = chain.assemble([-2.0, -0.6], robot.configurations["home"]).q
    return robot, chain, q0


def _wrapped(a):
    return np.angle(np.exp(1j * a))


@pytest.mark.slow
def test_ten_seconds_of_the_passive_parallelogram_stay_closed_and_keep_energy(arm):
    robot, chain, q0 = arm
    drift = {}
    for dt in (1e-2, 5e-3):
        sim = rd.simulate(robot, q0, 0.0, duration=10.0, dt=dt, progress=False)
        assert sim.t[-1] == pytest.approx(10.0)
        closure = np.array([np.abs(chain.residual(q)).max() for q in sim.q])
        assert closure.max() < 1e-9  # 1e-15 measured
        np.testing.assert_allclose(closure, sim.info["closure"], atol=1e-15)
        velocity = max(np.abs(chain.constraint_jacobian(q) @ qd).max()
                       for q, qd in zip(sim.q, sim.qd))
        assert velocity < 1e-9
        # on the parallelogram's own branch throughout (through the flat configurations)
        psi = sim.q[:, 3] - sim.q[:, 0]
        assert np.abs(np.sin(psi)).min() < 0.02  # it does pass near the singular ones
        np.testing.assert_allclose(_wrapped(sim.q[:, 1] - psi), 0, atol=1e-9)
        energy = sim.total
        drift[dt] = np.abs(energy - energy[0]).max()
        assert drift[dt] < 1e-6 * np.abs(energy).max()  # 1.1e-6 J of 38 J measured at 1e-2
    # RK4: a half step divides the drift by 2^4 = 16 (18.6 measured); at least 8
    assert drift[5e-3] * 8 < drift[1e-2]


def test_a_driven_closed_run_balances_work_and_energy(arm):
    robot, chain, q0 = arm
    tau = lambda t, q, qd: np.array([2.0 * np.cos(3 * t), 0.0, 0.0, -1.0])  # noqa: E731
    sim = rd.simulate(robot, q0, 0.0, duration=0.5, dt=2e-3, tau=tau, progress=False)
    balance = sim.info["energy_balance"]
    assert abs(balance.work) > 1e-2  # the motors do work
    # the loop forces do no work (K qd = 0): the balance is off by the trapezoid rule's
    # error in the motors' work only (3.9e-7 of the scale measured), within its estimate
    assert abs(balance.error) < 1e-6 * balance.scale
    assert abs(balance.error) < 3 * balance.uncertainty + 1e-9 * balance.scale
    # the accelerations returned are those of the closed chain at the samples
    k = len(sim.t) // 2
    qdd, _ = chain.forward_dynamics(sim.q[k], sim.qd[k], sim.tau[k][chain.actuated])
    np.testing.assert_allclose(sim.qdd[k], qdd, atol=1e-8)


def test_closed_simulation_refuses_what_it_cannot_do(arm):
    robot, chain, q0 = arm
    with pytest.raises(InputError, match="projected RK4.*'rk45' or 'dop853'"):
        rd.simulate(robot, q0, duration=0.1, method="radau", progress=False)
    with pytest.raises(InputError, match="projected RK4"):
        rd.simulate(robot, q0, duration=0.1, dt=1e-3, method="semi-implicit-euler")
    with pytest.raises(InputError, match="qd0 = S yd"):
        rd.simulate(robot, q0, [1.0, 0, 0, 0], duration=0.1, dt=1e-3, progress=False)


def test_cli_simulate_of_a_closed_mechanism(arm, capsys):
    robot, chain, q0 = arm
    argv = ["simulate", "parallelogram-arm", "--q0", ",".join(f"{v:.17g}" for v in q0),
            "--duration", "0.2", "--dt", "0.01"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    sim = rd.simulate(robot, q0, duration=0.2, dt=0.01, progress=False)
    final = re.search(r"final state: q = \[(.*?)\]", out)[1]
    np.testing.assert_allclose([float(x) for x in final.replace(",", " ").split()], sim.q[-1],
                               rtol=1e-5, atol=1e-6)
    assert np.abs(chain.residual(sim.q[-1])).max() < 1e-12
