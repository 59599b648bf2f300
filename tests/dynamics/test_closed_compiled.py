"""The compiled closed forward dynamics (src/robodyn/codegen/closed_kernel.py): the traced
Schur-complement program of ``ClosedChain.forward_dynamics``, compiled by the kernel tiers
(``robot.compile(["closed_forward_dynamics"])`` here; ``auto`` builds it in the background).

Oracles: the NumPy KKT solve with the rank of ``K`` (``ClosedChain.forward_dynamics`` before
the kernel is built, itself checked against Pinocchio's ``constraintDynamics`` in
test_closed_chains.py and test_delta.py), the constrained equations ``M qdd + h = tau + K^T
lambda``, ``K qdd + Kdot qd = 0`` with the robot's own ``M``, ``h``, ``K``, and the rank of
``K`` from its singular values at the singular configurations. Numba compiles the four-bar's
and five-bar's programs (about a second each); the Delta's (15 joints, 14 s) is checked
through the same program's NumPy flavour, and compiled in one slow test.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import robodyn as rd
from robodyn.codegen.closed_kernel import PIVOT_RATIO, ClosedKernel
from robodyn.core.errors import ModelError

#: Actuated angles drawn for each model and the assembly's guess (the Delta's home is 0).
RANGES = {"delta": ((0.2, 1.0), 0.0)}


def _states(robot, count, seed=0):
    """Assembled ``q``, ``qd = S yd`` and the tree's torques (actuated joints only)."""
    cc = robot.closed_chain()
    rng = np.random.default_rng(seed)
    (low, high), guess = RANGES.get(robot.name, ((-0.8, 0.8), 0.3))
    na = len(cc.actuated)
    Q = np.stack([cc.assemble(rng.uniform(low, high, na), np.full(robot.nq, guess)).q
                  for _ in range(count)])
    QD = np.einsum("kia,ka->ki", cc.velocity_map(Q), rng.normal(size=(count, na)))
    return cc, Q, QD, rng.normal(size=(count, na))


def _close(got, want, rtol=1e-12):
    """Equal to ``rtol`` relative to the largest entry of ``want``."""
    assert np.abs(got - want).max() <= rtol * np.abs(want).max()


def _solves_the_constrained_equations(robot, cc, Q, QD, TAU, qdd, lam):
    tau = np.zeros(Q.shape)
    tau[:, cc.actuated] = TAU
    h = robot.inverse_dynamics(Q, QD, np.zeros_like(QD))
    K = cc.constraint_jacobian(Q)
    lhs = np.einsum("kij,kj->ki", robot.mass_matrix(Q), qdd) + h
    rhs = tau + np.einsum("kji,kj->ki", K, lam)
    assert np.abs(lhs - rhs).max() <= 1e-12 * max(1.0, np.abs(h).max(), np.abs(lhs).max())
    drift = np.einsum("kij,kj->ki", K, qdd) + cc.drift(Q, QD)
    assert np.abs(drift).max() <= 1e-12 * max(1.0, np.abs(qdd).max())


@pytest.mark.parametrize("name", ["four-bar", "five-bar"])
def test_the_compiled_program_equals_the_kkt_solve_batched_and_one_state(name):
    robot = rd.load(name)
    cc, Q, QD, TAU = _states(robot, 6)
    want = cc.forward_dynamics(Q, QD, TAU)  # the suite's NumPy tier: the KKT solve
    assert robot.runner.closed_forward_dynamics(Q, QD, np.zeros(Q.shape)) is None
    robot.compile(["closed_forward_dynamics"])
    out, ok = robot.runner.closed_forward_dynamics(Q, QD, np.zeros(Q.shape))
    assert ok.all() and out.shape == (6, robot.nv + 2 * cc.rows)
    got = cc.forward_dynamics(Q, QD, TAU)
    for g, w in zip(got, want):
        _close(g, w)
    _solves_the_constrained_equations(robot, cc, Q, QD, TAU, *got)
    for k in range(3):  # one state at a time: the same values
        qdd, lam = cc.forward_dynamics(Q[k], QD[k], TAU[k])
        assert qdd.shape == (robot.nv,) and lam.shape == (cc.rows,)
        _close(qdd, want[0][k])
        _close(lam, want[1][k])


def test_the_delta_program_equals_the_kkt_solve_in_its_numpy_flavour():
    """The statements the compiled Delta kernel runs, run by NumPy (no 14 s compile)."""
    robot = rd.load("delta")
    cc, Q, QD, TAU = _states(robot, 4, seed=3)
    want = cc.forward_dynamics(Q, QD, TAU)
    kernel = ClosedKernel(robot.runner.chain, robot.runner.parameter_names, which="numpy")
    tau = np.zeros(Q.shape)
    tau[:, cc.actuated] = TAU
    out, ok = kernel(robot.runner.parameter_values, Q, QD, tau)
    assert kernel.tier == "numpy" and ok.all()
    _close(out[:, :robot.nv], want[0])
    _close(out[:, robot.nv:robot.nv + cc.rows], want[1])
    _solves_the_constrained_equations(robot, cc, Q, QD, TAU, out[:, :robot.nv],
                                      out[:, robot.nv:robot.nv + cc.rows])
    one, ok = kernel(robot.runner.parameter_values, Q[2:3], QD[2:3], tau[2:3])
    assert ok.all()
    _close(one[0, :robot.nv], want[0][2])


@pytest.mark.slow  # Numba compiles the Delta's 10 000 statements: about 15 s
def test_the_compiled_delta_equals_the_kkt_solve():
    robot = rd.load("delta")
    cc, Q, QD, TAU = _states(robot, 5, seed=4)
    want = cc.forward_dynamics(Q, QD, TAU)
    robot.compile(["closed_forward_dynamics"])
    assert robot.runner.closed_forward_dynamics(Q, QD, np.zeros(Q.shape))[1].all()
    got = cc.forward_dynamics(Q, QD, TAU)
    _close(got[0], want[0])
    _close(got[1], want[1])
    _close(cc.forward_dynamics(Q[1], QD[1], TAU[1])[0], want[0][1])


def test_singular_states_fall_back_to_the_kkt_solve():
    """The five-bar stretched straight along its base line (not assembled): every column of
    ``K`` is along y, rank 1, and the Schur complement ``K M^-1 K^T`` singular: the compiled
    program's result is not finite, and a pose 1e-6 rad from it is finite but
    ill-conditioned (its pivot ratio, about 2e-12, below PIVOT_RATIO). Both are solved by
    the KKT path, mixed in a batch with regular states. At the edge of the workspace (the
    distal links in line, ``K_p`` singular: the reduced model's edge) ``K`` keeps its rank:
    the program answers there."""
    robot = rd.load("five-bar")
    cc, Q, QD, TAU = _states(robot, 2, seed=5)
    straight = np.zeros(4)
    near = straight + np.array([0.0, 1e-6, 0.0, -1e-6])
    # the edge: left crank at pi (elbow (-0.4, 0)), right elbow 2 a2 = 1.0 from it, the
    # effector half-way, both distal links on the line between the elbows
    c3 = (1.0 - 0.65) / 0.56  # |(0.7 + 0.4 c, 0.4 s)| = 1 (d = 0.3, a1 = a3 = 0.4)
    e_l, e_r = np.array([-0.4, 0.0]), np.array([0.3 + 0.4 * c3, 0.4 * np.sqrt(1 - c3 ** 2)])
    mid = (e_l + e_r) / 2
    q1, q3 = np.pi, np.arccos(c3)
    edge = np.array([q1, np.arctan2(*(mid - e_l)[::-1]) - q1,
                     q3, np.arctan2(*(mid - e_r)[::-1]) - q3])
    assert np.abs(cc.residual(edge)).max() < 1e-12
    assert np.linalg.svd(cc.constraint_jacobian(edge)[:, cc.passive],
                         compute_uv=False).min() < 1e-12  # K_p singular: the edge
    singular_values = np.linalg.svd(cc.constraint_jacobian(np.stack([straight, near, edge])),
                                    compute_uv=False)
    ratio = singular_values[:, -1] / singular_values[:, 0]
    assert ratio[0] < 1e-15 and 1e-8 < ratio[1] < 1e-5 and ratio[2] > 0.1
    Qs = np.stack([Q[0], straight, near, edge, Q[1]])
    QDs = np.stack([QD[0], np.zeros(4), np.zeros(4), np.zeros(4), QD[1]])
    TAUs = np.stack([TAU[0], [0.3, -0.2], [0.3, -0.2], [0.3, -0.2], TAU[1]])
    want = cc.forward_dynamics(Qs, QDs, TAUs)
    assert np.isfinite(want[0]).all() and np.isfinite(want[1]).all()
    robot.compile(["closed_forward_dynamics"])
    tau = np.zeros(Qs.shape)
    tau[:, cc.actuated] = TAUs
    out, ok = robot.runner.closed_forward_dynamics(Qs, QDs, tau)
    assert ok.tolist() == [True, False, False, True, True]
    assert not np.isfinite(out[1]).all() and np.isfinite(out[2]).all()
    assert 0 < out[2, robot.nv + cc.rows:].min() < PIVOT_RATIO
    got = cc.forward_dynamics(Qs, QDs, TAUs)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g[1:3], w[1:3])  # the KKT solve's own values
        _close(g[[0, 4]], w[[0, 4]])
        _close(g[3], w[3], rtol=1e-10)  # the edge: K_p singular, the KKT system is not
    one = cc.forward_dynamics(straight, np.zeros(4), [0.3, -0.2])
    np.testing.assert_array_equal(one[0], want[0][1])


@pytest.mark.parametrize("name", ["four-bar", "five-bar"])
def test_the_closed_simulation_steps_on_the_compiled_program(name, monkeypatch):
    """``rd.simulate`` (one run) and ``rd.rollout`` (a batch) of a model whose closed kernel
    is built equal the KKT path's runs: every stage's ``ydd`` comes from the program (its
    calls counted) and equals the reduced model's."""
    reference, compiled = rd.load(name), rd.load(name)
    cc, Q, QD, _ = _states(reference, 2, seed=6)
    tau = np.random.default_rng(7).normal(scale=0.5, size=(2, 4, reference.nv))
    options = {"duration": 0.05, "dt": 5e-3, "progress": False}
    want = [rd.simulate(reference, Q[0], QD[0], tau=tau[0], **options),
            rd.rollout(reference, Q, QD, tau=tau, **options)]
    compiled.compile(["closed_forward_dynamics"])
    calls = []
    original = ClosedKernel.__call__

    def counted(self, *args):
        result = original(self, *args)
        calls.append(int(result[1].sum()))
        return result

    monkeypatch.setattr(ClosedKernel, "__call__", counted)
    got = [rd.simulate(compiled, Q[0], QD[0], tau=tau[0], **options),
           rd.rollout(compiled, Q, QD, tau=tau, **options)]
    assert len(calls) >= 2 * 4 * 10 and min(calls) >= 1  # 10 steps of 4 stages, each run
    for g, w in zip(got, want):
        for a, b in ((g.q, w.q), (g.qd, w.qd), (g.qdd, w.qdd)):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-11 * max(1.0, np.abs(b).max()))


def test_a_model_the_program_does_not_describe_has_no_compiled_kernel():
    with pytest.raises(ModelError, match="no loop closures"):
        rd.load("planar-2r").compile(["closed_forward_dynamics"])


def test_auto_answers_by_the_kkt_solve_until_the_kernel_is_built(monkeypatch):
    """``ROBODYN_TIER=auto``: the first calls are the KKT solve's (the kernel is pending: a
    background process compiles it, or a thread loads it from the cache), later ones the
    program's; the values agree throughout."""
    monkeypatch.setenv("ROBODYN_TIER", "auto")
    robot = rd.load("four-bar")
    cc, Q, QD, TAU = _states(robot, 3, seed=8)
    first = cc.forward_dynamics(Q, QD, TAU)
    kernel = robot.runner.cached("closed_forward_dynamics", lambda: None)
    assert kernel is not None
    tiers = {kernel.tier}
    deadline = time.monotonic() + 120  # a compile on a busy machine; a cache load: 0.5 s
    while "compiled" not in tiers and time.monotonic() < deadline:
        time.sleep(0.1)
        cc.forward_dynamics(Q, QD, TAU)  # the calls poll for the compiled kernel
        tiers.add(kernel.tier)
    assert tiers == {"pending", "compiled"}
    assert robot.runner.closed_forward_dynamics(Q, QD, np.zeros(Q.shape))[1].all()
    got = cc.forward_dynamics(Q, QD, TAU)
    for g, w in zip(got, first):
        _close(g, w)
