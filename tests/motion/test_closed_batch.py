"""``rd.rollout`` / ``rd.simulate`` of many runs of a closed mechanism at once
(motion/closed_batch.py, docs/closed-chains.md): the runs vectorised over ``N``.

Oracles: each run alone (``rd.simulate`` of one start state, the batch of one, where every
run's Newton iteration is its own); the closure ``phi(q) = 0`` and ``K qd = 0`` from the
closed chain's own kinematics; the accelerations at the samples against the KKT route
(``ClosedChain.forward_dynamics``, a different linear system from the reduced model the
integrator solves); the energy of a passive frictionless run.
"""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError, ModelError
from robodyn.motion.rollouts import RolloutError


def _starts(name: str, n: int, seed: int = 0, spread: float = 0.4):
    """``n`` assembled start states near the model's home and velocities on the loops."""
    robot = rd.load(name)
    chain = robot.closed_chain()
    rng = np.random.default_rng(seed)
    guess = np.asarray(robot.configurations.get("home", np.full(robot.dof, 0.3)), float)
    base = chain.assemble(guess[chain.actuated], guess).q
    na = len(chain.actuated)
    q0 = np.stack([chain.assemble(base[chain.actuated] + rng.uniform(-spread, spread, na),
                                  base).q for _ in range(n)])
    qd0 = np.stack([chain.velocity_map(q) @ rng.normal(size=na) for q in q0])
    return robot, chain, q0, qd0


@pytest.mark.parametrize("name", ["four-bar", "parallelogram-arm", "five-bar"])
def test_a_batch_equals_its_runs_one_by_one_and_keeps_the_loops_closed(name):
    robot, chain, q0, qd0 = _starts(name, 3)
    n, dof = q0.shape
    # a torque table per run on the actuated joints (and a small one at a passive joint,
    # which acts through its virtual work S^T tau)
    rng = np.random.default_rng(1)
    tau = rng.normal(scale=0.5, size=(n, 4, dof))
    sim = rd.rollout(robot, q0, qd0, duration=0.1, dt=5e-3, tau=tau, progress=False)
    assert sim.q.shape == (n, 21, dof)
    for r in range(n):
        one = rd.simulate(robot, q0[r], qd0[r], duration=0.1, dt=5e-3, tau=tau[r],
                          progress=False)
        for a, b in ((sim.q[r], one.q), (sim.qd[r], one.qd), (sim.qdd[r], one.qdd),
                     (sim.tau[r], one.tau)):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    Q, QD = sim.q.reshape(-1, dof), sim.qd.reshape(-1, dof)
    assert np.abs(chain.residual(Q)).max() < 1e-9
    assert np.abs(np.einsum("kij,kj->ki", chain.constraint_jacobian(Q), QD)).max() < 1e-9
    np.testing.assert_allclose(sim.info["closure"].reshape(-1),
                               np.abs(chain.residual(Q)).max(axis=1), atol=1e-15)
    # the recorded accelerations are the KKT system's (the loop forces included), with the
    # passive joints' torques moved to the actuated ones by virtual work
    assert np.abs(sim.tau.reshape(-1, dof)[:, chain.passive]).max() > 0
    S = chain.velocity_map(Q)
    tau_y = np.einsum("kia,ki->ka", S, sim.tau.reshape(-1, dof))
    qdd, _ = chain.forward_dynamics(Q, QD, tau_y)  # S^T B tau_a = tau_a: the same force on y
    np.testing.assert_allclose(sim.qdd.reshape(-1, dof), qdd, rtol=1e-9,
                               atol=1e-9 * np.abs(qdd).max())


def test_simulate_with_a_batch_of_start_states_runs_them_together():
    robot, chain, q0, qd0 = _starts("four-bar", 3)
    sim = rd.simulate(robot, q0, qd0, duration=0.05, dt=1e-2, progress=False)
    assert sim.rollouts == 3
    alone = rd.simulate(robot, q0[1], qd0[1], duration=0.05, dt=1e-2, progress=False)
    np.testing.assert_allclose(sim.rollout(1).q, alone.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sim.rollout(1).info["closure"], alone.info["closure"],
                               atol=1e-15)


def test_a_shared_table_and_a_list_of_controllers_drive_a_closed_batch():
    robot, chain, q0, qd0 = _starts("five-bar", 2)
    table = np.array([[0.5, 0.0, -0.3, 0.0], [-0.2, 0.0, 0.4, 0.0]])  # one for both runs
    laws = [lambda t, q, qd, k=k: -k * qd for k in (0.5, 2.0)]  # damping at every joint
    for tau, per_run in ((table, [table, table]), (laws, laws)):
        sim = rd.rollout(robot, q0, qd0, duration=0.05, dt=1e-2, tau=tau, progress=False)
        for r in range(2):
            alone = rd.simulate(robot, q0[r], qd0[r], duration=0.05, dt=1e-2, tau=per_run[r],
                                progress=False)
            np.testing.assert_allclose(sim.q[r], alone.q, rtol=0, atol=1e-12)
            np.testing.assert_allclose(sim.tau[r], alone.tau, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_a_passive_batch_keeps_its_energy_to_rk4s_order():
    robot, chain, q0, qd0 = _starts("four-bar", 4, seed=3)
    drift = {}
    for dt in (1e-2, 5e-3):
        sim = rd.rollout(robot, q0, qd0, duration=0.5, dt=dt, progress=False)
        energy = sim.total
        drift[dt] = np.abs(energy - energy[:, :1]).max(axis=1) / np.abs(energy).max(axis=1)
        assert all(b.error < 1e-5 * b.scale for b in sim.info["energy_balance"])
    assert drift[5e-3].max() < 5e-5  # 1.1e-5 measured (its fastest run)
    # each run's drift falls with dt^4 (16 for a half step; at least 8)
    assert (drift[5e-3] * 8 < drift[1e-2]).all()


def test_a_bad_start_names_its_run():
    robot, chain, q0, qd0 = _starts("four-bar", 4)
    bad = qd0.copy()
    bad[2, 1] += 1.0  # the coupler's rate no longer follows the crank's
    with pytest.raises(InputError, match=r"qd0\[2\]: the start velocity breaks the loops"):
        rd.rollout(robot, q0, bad, duration=0.05, dt=1e-2, progress=False)
    five, chain5, p0, pd0 = _starts("five-bar", 3)
    p0 = p0.copy()
    p0[1, chain5.actuated] = [np.pi, 0.0]  # cranks pointing apart: the distal links fall short
    with pytest.raises(ModelError, match=r"q0\[1\]: its loops do not close"):
        rd.rollout(five, p0, np.zeros_like(p0), duration=0.05, dt=1e-2, progress=False)


def test_a_run_that_fails_stops_alone():
    robot, chain, q0, qd0 = _starts("parallelogram-arm", 3)
    tau = np.zeros((3, 5, robot.dof))
    tau[1, 3, 0] = np.nan  # run 1's table is not finite from t = 0.075 s
    with pytest.raises(RolloutError, match="rollout 1") as info:
        rd.rollout(robot, q0, qd0, duration=0.1, dt=1e-2, tau=tau, progress=False)
    sim, failed = info.value.simulation, info.value.failed
    assert list(failed) == [1] and "not finite" in failed[1]
    assert np.isnan(sim.q[1, -1]).all() and np.isfinite(sim.q[1, 0]).all()
    for r in (0, 2):
        alone = rd.simulate(robot, q0[r], qd0[r], duration=0.1, dt=1e-2, tau=tau[r],
                            progress=False)
        np.testing.assert_allclose(sim.q[r], alone.q, rtol=0, atol=1e-12)


def test_what_a_closed_batch_does_not_take():
    robot, chain, q0, qd0 = _starts("four-bar", 2)
    with pytest.raises(InputError, match="values: per-run parameter values"):
        rd.rollout(robot, q0, qd0, duration=0.05, dt=1e-2, values={"m2": [2.0, 2.5]},
                   progress=False)
    with pytest.raises(InputError, match="projected RK4"):
        rd.rollout(robot, q0, qd0, duration=0.05, dt=1e-2, method="semi-implicit-euler",
                   progress=False)


@pytest.mark.slow  # 9 s: the Newton iterations that fail take all their steps
def test_a_five_bar_driven_to_the_edge_of_its_workspace_stops_with_a_clear_error():
    """Cranks driven apart straighten the distal links (falling under gravity alone does too,
    at 0.32 s): the loop cannot follow (a singular configuration, then no assembly). The run
    stops there naming the step and the loop; in a batch the run alone fails and the other
    finishes."""
    robot = rd.load("five-bar")
    chain = robot.closed_chain()
    home = np.asarray(robot.configurations["home"], float)
    q0 = chain.assemble(home[chain.actuated], home).q
    apart = np.tile([3.0, 0.0, -3.0, 0.0], (2, 1))
    with pytest.raises(ModelError, match=r"step \d+ \(t = .*\): .*loop 'effector'"):
        rd.simulate(robot, q0, 0.0, duration=0.3, dt=1e-2, tau=apart, progress=False)
    with pytest.raises(ModelError, match="rk45 could not follow the loops at t = .*effector"):
        rd.simulate(robot, q0, 0.0, duration=0.3, method="rk45", tau=apart, progress=False)
    along = np.tile([2.0, 0.0, 2.0, 0.0], (2, 1))  # both cranks turn the same way: it stays
    tau = np.stack([apart, along])
    with pytest.raises(RolloutError) as info:
        rd.rollout(robot, q0, 0.0, duration=0.3, dt=1e-2, tau=tau, progress=False)
    assert list(info.value.failed) == [0] and "effector" in info.value.failed[0]
    sim = info.value.simulation
    assert np.isfinite(sim.q[1]).all()
    assert np.abs(chain.residual(sim.q[1])).max() < 1e-9
