"""Adaptive simulation of a closed mechanism (``method="rk45"``, ``"dop853"``;
motion/closed_adaptive.py, docs/closed-chains.md): the reduced model on the actuated
coordinates under SciPy's error control.

Oracles: properties (the closure ``phi(q) = 0`` and ``K qd = 0`` from the closed chain's own
kinematics; the energy ``T + U`` of a passive frictionless mechanism; the parallelogram's
geometry ``theta_2' = theta_1'' - theta_1'`` on its branch; the work-energy balance of a
driven run) and another integrator: the fixed-step projected RK4 at a fine step.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import robodyn as rd


@pytest.fixture(scope="module")
def arm():
    robot = rd.load("parallelogram-arm")
    chain = robot.closed_chain()
    # released from rest at the motors' angles -2.0 and -0.6 rad: it swings through the flat
    # (singular) parallelogram several times in 10 s
    q0 = chain.assemble([-2.0, -0.6], robot.configurations["home"]).q
    return robot, chain, q0


def _on_the_loops(chain, sim) -> None:
    assert np.abs(chain.residual(sim.q)).max() < 1e-9
    assert np.abs(np.einsum("kij,kj->ki", chain.constraint_jacobian(sim.q), sim.qd)).max() < 1e-9
    np.testing.assert_allclose(sim.info["closure"], np.abs(chain.residual(sim.q)).max(axis=1),
                               atol=1e-15)


@pytest.mark.slow
def test_three_seconds_of_the_passive_parallelogram_keep_energy_at_rtol_1e_10(arm):
    """Three seconds, through the flat parallelogram (10 s: the fixed-step test's, and
    docs/closed-chains.md's measurement, 1.7e-9 over 795 steps)."""
    robot, chain, q0 = arm
    sim = rd.simulate(robot, q0, 0.0, duration=3.0, method="rk45", rtol=1e-10, atol=1e-10,
                      progress=False)
    assert sim.t[-1] == pytest.approx(3.0)
    _on_the_loops(chain, sim)
    psi = sim.q[:, 3] - sim.q[:, 0]
    assert np.abs(np.sin(psi)).min() < 0.02  # it passes near the flat parallelogram
    np.testing.assert_allclose(np.angle(np.exp(1j * (sim.q[:, 1] - psi))), 0, atol=1e-9)
    energy = sim.total
    # 4.7e-10 measured
    assert np.abs(energy - energy[0]).max() < 1e-8 * np.abs(energy).max()


@pytest.mark.slow
def test_the_passive_four_bar_keeps_energy_at_rtol_1e_10():
    robot = rd.load("four-bar")
    chain = robot.closed_chain()
    q0 = chain.assemble([0.4], np.full(3, 0.3)).q
    qd0 = chain.velocity_map(q0) @ [3.0]  # the crank turns round
    sim = rd.simulate(robot, q0, qd0, duration=1.0, method="rk45", rtol=1e-10, atol=1e-10,
                      progress=False)
    _on_the_loops(chain, sim)
    assert np.ptp(sim.q[:, 0]) > 2.0  # the crank swings through 4.2 rad (4.0e-11 drift)
    energy = sim.total
    assert np.abs(energy - energy[0]).max() < 1e-8 * np.abs(energy).max()


def test_rk45_matches_a_fine_fixed_step_rk4(arm):
    robot, chain, q0 = arm
    adaptive = rd.simulate(robot, q0, 0.0, duration=0.5, method="rk45", rtol=1e-10,
                           atol=1e-10, sample_dt=0.01, progress=False)
    fixed = rd.simulate(robot, q0, 0.0, duration=0.5, dt=2e-3, sample_dt=0.01, progress=False)
    np.testing.assert_allclose(adaptive.t, fixed.t)
    _on_the_loops(chain, adaptive)
    # RK4 at 2 ms is within 2e-9 rad of itself at 1 ms; rk45 at 1e-10 within 1.6e-9 of both
    np.testing.assert_allclose(adaptive.q, fixed.q, rtol=0, atol=1e-8)
    np.testing.assert_allclose(adaptive.qd, fixed.qd, rtol=0, atol=1e-7)
    np.testing.assert_allclose(adaptive.qdd, fixed.qdd, rtol=0, atol=1e-6)


def test_dop853_and_the_samples_at_its_steps(arm):
    robot, chain, q0 = arm
    tau = lambda t, q, qd: np.array([2.0 * np.cos(3 * t), 0.0, 0.0, -1.0])  # noqa: E731
    sim = rd.simulate(robot, q0, 0.0, duration=0.3, method="dop853", rtol=1e-9, atol=1e-9,
                      tau=tau, progress=False)
    assert sim.info["method"] == "dop853" and sim.info["steps"] == len(sim.t) - 1
    _on_the_loops(chain, sim)
    # the motors' work balances the energy (the loop forces do no work)
    balance = sim.info["energy_balance"]
    assert abs(balance.work) > 1e-2
    assert abs(balance.error) < 3 * balance.uncertainty + 1e-8 * balance.scale
    k = len(sim.t) // 2  # the recorded accelerations are the KKT system's
    qdd, _ = chain.forward_dynamics(sim.q[k], sim.qd[k], sim.tau[k][chain.actuated])
    np.testing.assert_allclose(sim.qdd[k], qdd, atol=1e-9)


def test_an_adaptive_batch_runs_its_rollouts_one_by_one(arm):
    robot, chain, q0 = arm
    starts = np.stack([q0, chain.assemble([-1.9, -0.5], q0).q])
    sim = rd.rollout(robot, starts, 0.0, duration=0.1, method="rk45", sample_dt=0.02,
                     progress=False)
    alone = rd.simulate(robot, starts[1], 0.0, duration=0.1, method="rk45", sample_dt=0.02,
                        progress=False)
    np.testing.assert_array_equal(sim.q[1], alone.q)
    assert np.abs(chain.residual(sim.q.reshape(-1, robot.dof))).max() < 1e-9


def test_cli_simulate_of_a_closed_mechanism_with_rk45(capsys):
    from robodyn.cli import main

    robot = rd.load("four-bar")
    chain = robot.closed_chain()
    q0 = chain.assemble([0.4], np.full(3, 1.0)).q
    argv = ["simulate", "four-bar", "--q0", ",".join(f"{v:.17g}" for v in q0),
            "--duration", "0.1", "--method", "rk45"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "rk45" in out
    final = re.search(r"final state: q = \[(.*?)\]", out)[1]
    q_end = np.array([float(x) for x in final.replace(",", " ").split()])
    assert np.abs(chain.residual(q_end)).max() < 1e-5  # printed to 6 digits
    sim = rd.simulate(robot, q0, duration=0.1, method="rk45", progress=False)
    np.testing.assert_allclose(q_end, sim.q[-1], rtol=1e-5, atol=1e-6)
