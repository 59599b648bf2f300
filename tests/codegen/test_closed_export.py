"""The forward dynamics of a closed mechanism as an exported kernel
(``functions=["closed_forward_dynamics"]``, :mod:`robodyn.dynamics.closed_forward_dynamics`):
the Schur-complement program, printed in Python and C, solves the constrained equations
``M qdd + h = tau + K^T lambda``, ``K qdd + Kdot qd = 0`` (checked on the residuals with the
robot's own M, h, K) and equals the KKT solve of ``ClosedChain.forward_dynamics`` (which finds
the rank of K numerically) at random assembled states of every closed built-in."""

from __future__ import annotations

import shutil
import types

import numpy as np
import pytest

import robodyn as rd
from robodyn.codegen.export.traced import to_code
from robodyn.core.errors import InputError

CLOSED = ("four-bar", "five-bar", "parallelogram-arm", "delta")
#: Where each built-in's actuated angles are drawn and the guess its assembly starts from
#: (the Delta's q = 0 is its home pose, its arms 0.6 rad below the horizontal).
RANGES = {"delta": ((0.2, 1.0), 0.0)}


def _states(robot, count=5, seed=3):
    """Assembled ``(q, qd, tau)`` of ``robot``'s closed chain: random actuated angles,
    velocities on the constraint (``qd = S yd``), torques at the actuated joints only."""
    cc = robot.closed_chain()
    rng = np.random.default_rng(seed)
    out = []
    (low, high), guess = RANGES.get(robot.name, ((-0.8, 0.8), 0.3))
    for _ in range(count):
        q = cc.assemble(rng.uniform(low, high, len(cc.actuated)), np.full(robot.nq, guess)).q
        qd = cc.velocity_map(q) @ rng.normal(size=len(cc.actuated))
        tau = np.zeros(robot.nv)
        tau[cc.actuated] = rng.normal(size=len(cc.actuated))
        out.append((q, qd, tau))
    return cc, out


def _python_kernel(robot):
    (fname, text), = to_code(robot.runner, "python", ["closed_forward_dynamics"]).items()
    module = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), module.__dict__)  # the file robodyn just wrote
    return module.closed_forward_dynamics


@pytest.mark.parametrize("name", CLOSED)
def test_the_exported_program_solves_the_constrained_equations(name):
    robot = rd.load(name)
    kernel = _python_kernel(robot)
    cc, states = _states(robot)
    n = robot.nv
    for q, qd, tau in states:
        out = np.asarray(kernel(q, qd, tau), dtype=float).ravel()
        qdd, lam = out[:n], out[n:]
        K, k = cc.constraint_jacobian(q), cc.drift(q, qd)
        h = robot.inverse_dynamics(q, qd, np.zeros(n))
        scale = max(1.0, np.abs(tau).max(), np.abs(h).max())
        np.testing.assert_allclose(robot.mass_matrix(q) @ qdd + h, tau + K.T @ lam,
                                   atol=1e-12 * scale)
        # K's rows are lever arms of order 1: K qdd rounds relative to qdd (the Delta's
        # 2.5e-12 at |qdd| = 54, its small platform inertias put M's condition near 1e5)
        np.testing.assert_allclose(K @ qdd, -k, atol=1e-12 * max(1.0, np.abs(k).max(),
                                                                 np.abs(qdd).max()))
        want_qdd, want_lam = cc.forward_dynamics(q, qd, tau[cc.actuated])
        np.testing.assert_allclose(qdd, want_qdd, rtol=1e-12,
                                   atol=1e-12 * max(scale, np.abs(want_qdd).max()))
        np.testing.assert_allclose(lam, want_lam, rtol=1e-11, atol=1e-11 * scale)


@pytest.mark.parametrize("name", CLOSED)
def test_the_c_kernel_equals_the_core_and_batches(name):
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler (cc, gcc, clang) on PATH")
    robot = rd.load(name)
    c = robot.compile_c(["closed_forward_dynamics"])
    cc, states = _states(robot, seed=5)
    q, qd, tau = (np.stack(a) for a in zip(*states))
    batch = c.closed_forward_dynamics(q, qd, tau)
    assert batch.shape == (len(states), robot.nv + cc.rows)
    for row, (qi, qdi, taui) in zip(batch, states):
        want_qdd, want_lam = cc.forward_dynamics(qi, qdi, taui[cc.actuated])
        np.testing.assert_allclose(row, np.concatenate([want_qdd, want_lam]),
                                   rtol=1e-11, atol=1e-11 * max(1.0, np.abs(row).max()))


def test_a_tree_without_loops_has_no_closed_kernel():
    with pytest.raises(InputError, match="no loop closures"):
        to_code(rd.load("planar-2r").runner, "c", ["closed_forward_dynamics"])
    with pytest.raises(InputError, match="closed_forward_dynamics of a closed mechanism"):
        to_code(rd.load("planar-2r").runner, "c", ["closed_dynamics"])
