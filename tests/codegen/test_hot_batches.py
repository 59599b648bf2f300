"""A batch after the one-state path has gone hot: the compiled one-state function answers
an all-2-D call with -2 from its second signature (no Numba ``TypeError``, which costs
0.1-0.2 ms a call explaining the mismatch), so the robot's batched call goes on to the
batched kernel; the numbers are the rows' one-state calls, to the bit (a voltage-driven
batch relies on it: tests/motion/test_voltage_lockstep.py)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd

pytestmark = pytest.mark.usefixtures("compiled_tier")

pytest.importorskip("numba")


def test_a_hot_one_state_function_hands_a_batch_on():
    from robodyn.codegen.runner import HOT_CALLS

    robot = rd.load("planar-2r")
    rng = np.random.default_rng(7)
    q, qd, tau = rng.normal(size=(3, 2))
    for _ in range(HOT_CALLS + 1):
        robot.forward_dynamics(q, qd, tau)
    one, p, width, _ = robot.runner.hot["forward_dynamics"]
    for rows in (2, 5):  # 2 rows of a 2-DOF arm: as long as one state, still a batch
        Q, QD, TAU = rng.normal(size=(3, rows, 2))
        assert one(Q, QD, TAU, p, np.empty(width)) == -2
        batch = robot.forward_dynamics(Q, QD, TAU)
        alone = np.stack([robot.forward_dynamics(Q[k], QD[k], TAU[k]) for k in range(rows)])
        np.testing.assert_array_equal(batch, alone)
        assert not np.array_equal(batch[0], batch[1])
    with pytest.raises(TypeError):  # a mixed call is still Numba's to refuse
        one(Q, QD[0], TAU, p, np.empty(width))
