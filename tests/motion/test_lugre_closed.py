"""LuGre friction on a closed mechanism (motion/lugre_closed.py): the four-bar with a
bristle state at each of its three tree joints, the reduced model on the crank carried with
them through Radau.

Oracles: properties. The energy ``T + U + sum sigma0 z^2 / 2`` never increases (its rate is
``-(sigma0 z (qd - dz/dt) + sigma1 qd dz/dt + sigma2 qd^2)``, which is ``<= 0`` here) and
``T + U`` loses exactly the LuGre friction's work ``int F . qd dt`` (trapezoid on the
samples); a load inside the static friction band moves the crank by presliding only and the
tree's friction then balances it, ``S^T (tau - F - g(q)) = 0``; the loop stays closed
(``phi(q) = 0``, ``K qd = 0``, from the closed chain's own kinematics). And another route: the
tree's ``(q, qd, z)`` under the KKT system ``M qdd + h + F = K^T lambda``, ``K qdd + k = 0``
written here (multipliers, not the reduced model) and integrated by ``solve_ivp``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp, trapezoid

import robodyn as rd
from robodyn.motion.lugre import lugre_rates

SIGMA0, FS = 1.0e3, 0.4


@pytest.fixture(scope="module")
def four_bar(tmp_path_factory):
    text = (Path(rd.__file__).parent / "model" / "builtin" / "four-bar.yaml").read_text()
    path = tmp_path_factory.mktemp("lugre_closed") / "four_bar_lugre.yaml"
    path.write_text(text + f"\nlugre: {{sigma0: {SIGMA0}, sigma1: 1.0, sigma2: 0.01, Fc: 0.3, "
                    f"Fs: {FS}, vs: 0.1}}\n")
    robot = rd.load(path)
    chain = robot.closed_chain()
    return robot, chain, chain.assemble([0.5], robot.configurations["home"]).q


def _on_the_loops(chain, sim) -> None:
    assert np.abs(chain.residual(sim.q)).max() < 1e-9
    assert np.abs(np.einsum("kij,kj->ki", chain.constraint_jacobian(sim.q), sim.qd)).max() < 1e-9


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_four_bar_released_under_gravity_loses_the_frictions_work(four_bar):
    robot, chain, q0 = four_bar
    # the crank's gravity torque S^T g = 2.39 N m is beyond the band's sum |S_i| Fs = 1.13
    sim = rd.simulate(robot, q0, 0.0, duration=0.3, sample_dt=1e-3, rtol=1e-6, atol=1e-9,
                      progress=False)  # the default method of such a model
    assert sim.info["method"] == "lugre"
    assert sim.q[-1, 0] < q0[0] - 0.5  # it fell
    _on_the_loops(chain, sim)
    z, force = sim.info["lugre_z"], sim.info["lugre_friction"]
    assert z.shape == (len(sim.t), 3) and np.abs(force[:, 1:]).max() > 0.1  # passive joints too
    np.testing.assert_allclose(sim.info["applied_torque"], 0.0, atol=0)
    np.testing.assert_allclose(sim.tau, -force, atol=1e-12)
    mechanical = sim.kinetic + sim.potential
    energy = mechanical + 0.5 * SIGMA0 * (z ** 2).sum(axis=1)
    assert np.diff(energy).max() <= 1e-9  # never increases
    lost = mechanical[0] - mechanical[-1]
    work = trapezoid((force * sim.qd).sum(axis=1), sim.t)
    assert lost > 0.5  # 0.73 J
    assert abs(lost - work) < 1e-5 * lost  # 8e-7 J measured (the trapezoid's error)


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_four_bar_held_inside_the_static_band_stays(four_bar):
    robot, chain, q0 = four_bar
    S = chain.velocity_map(q0)[:, 0]
    gravity = S @ robot.inverse_dynamics(q0, np.zeros(3), np.zeros(3))
    tau = np.zeros(3)
    tau[0] = gravity - 0.3  # 0.3 N m short of holding it; |S_i| Fs sum to 1.13 N m
    sim = rd.simulate(robot, q0, 0.0, duration=0.25, tau=lambda t, q, qd: tau, rtol=1e-5,
                      atol=1e-9, sample_dt=1e-3, progress=False)
    assert np.abs(sim.q[:, 0] - q0[0]).max() < 1e-3  # presliding only (2e-4 rad)
    assert np.abs(sim.qd[-1]).max() < 1e-6
    _on_the_loops(chain, sim)
    force = sim.info["lugre_friction"][-1]
    assert np.abs(force).max() < FS  # every bristle inside its static level
    # at rest the tree's friction carries the crank's load: S^T (tau - F - g) = 0, to the
    # inertia of the bristles' last ringing (5.6e-6 N m of the 0.3 N m at 0.25 s)
    q = sim.q[-1]
    g = robot.inverse_dynamics(q, np.zeros(3), np.zeros(3))
    assert abs(chain.velocity_map(q)[:, 0] @ (tau - force - g)) < 1e-4


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_the_reduced_run_equals_the_kkt_route_on_the_tree(four_bar):
    robot, chain, q0 = four_bar
    lugre = robot.chain.lugre

    def tree(t, x):  # M qdd + h + F = K^T lambda, K qdd = -k (K's rank rows: planar loop)
        q, qd, z = x[:3], x[3:6], x[6:]
        rate, force = lugre_rates(lugre, qd, z)
        K, k = chain.constraint_jacobian(q), chain.drift(q, qd)
        U, sv, Vt = np.linalg.svd(K)
        r = int((sv > 1e-9 * sv[0]).sum())
        Kr, kr = sv[:r, None] * Vt[:r], U[:, :r].T @ k
        A = np.block([[robot.mass_matrix(q), Kr.T], [Kr, np.zeros((r, r))]])
        h = robot.inverse_dynamics(q, qd, np.zeros(3))
        qdd = np.linalg.solve(A, np.concatenate([-force - h, -kr]))[:3]
        return np.concatenate([qd, qdd, rate])

    ref = solve_ivp(tree, (0.0, 0.1), np.concatenate([q0, np.zeros(6)]), method="Radau",
                    rtol=1e-9, atol=1e-11)
    sim = rd.simulate(robot, q0, 0.0, duration=0.1, sample_dt=0.05, rtol=1e-7, atol=1e-10,
                      progress=False)
    assert abs(sim.q[-1, 0] - q0[0]) > 0.1  # it slides (z at the Coulomb level, 3e-4)
    np.testing.assert_allclose(sim.q[-1], ref.y[:3, -1], atol=1e-8)  # 7e-11 measured
    np.testing.assert_allclose(sim.qd[-1], ref.y[3:6, -1], atol=1e-7)  # 2e-10
    np.testing.assert_allclose(sim.info["lugre_z"][-1], ref.y[6:, -1], atol=1e-11)  # 6e-15


def test_closed_lugre_dispatch(four_bar, tmp_path):
    robot, _, q0 = four_bar
    with pytest.raises(rd.InputError, match="four-bar has no lugre parameters"):
        rd.simulate(rd.load("four-bar"), q0, 0.0, duration=0.01, method="lugre")
    with pytest.warns(UserWarning, match=r"left out of this run \(dt\)"):
        rd.simulate(robot, q0, 0.0, duration=0.01, dt=1e-3, progress=False)
