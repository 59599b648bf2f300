"""The fixed-step loop and the control laws of ``robodyn.motion.steps`` run as Python
(``bind``), against closed forms: RK4 and semi-implicit Euler on the harmonic oscillator
(their amplification matrices), the stage times each method evaluates, a diverging motion
stopped at the step that passes the limit, a failing stage, and the laws by hand."""

from __future__ import annotations

import numpy as np
import pytest

from robodyn.model.chain import Chain, Joint, Link
from robodyn.motion import steps

#: The joint table of joints of one value each (no rows).
JT = np.zeros((0, 3), dtype=np.int64)


def _oscillator(omega2: float, seen: list | None = None):
    """A stage for ``qdd = -omega2 q`` (two uncoupled joints), noting the stages it saw."""

    def stage(data, s, q, qd, tau, acc):
        if seen is not None:
            seen.append(s)
        tau[0] = 0.0
        acc[0] = -omega2 * q[0]
        return -1

    return stage


def _records(steps_count: int, q0, qd0):
    rows = [np.full((steps_count + 1, len(q0)), np.nan) for _ in range(4)]
    rows[0][0], rows[1][0] = q0, qd0
    return rows


def _one(*records):
    """The loop's records of one motion: ``(1, T, n)`` views of ``(T, n)`` arrays."""
    return [r[None] for r in records]


@pytest.mark.parametrize("method", [steps.RK4, steps.SEMI_IMPLICIT_EULER])
def test_the_loop_applies_each_method_s_amplification_matrix(method):
    """``y' = A y`` with ``A = [[0, 1], [-w^2, 0]]``: RK4 maps ``y`` to ``P(hA) y``,
    ``P(z) = 1 + z + z^2/2 + z^3/6 + z^4/24``; semi-implicit Euler by ``[[1 - h^2 w^2, h],
    [-h w^2, 1]]``."""
    omega2, h, count = 4.0, 0.05, 40
    a = np.array([[0.0, 1.0], [-omega2, 0.0]])
    if method == steps.RK4:
        z = h * a
        step = np.eye(2) + z + z @ z / 2 + z @ z @ z / 6 + z @ z @ z @ z / 24
    else:
        step = np.array([[1 - h * h * omega2, h], [-h * omega2, 1.0]])
    q0, qd0 = np.array([1.0, -0.3]), np.array([0.0, 0.7])
    Q, QD, QDD, TAU = _records(count, q0, qd0)
    run = steps.bind(_oscillator(omega2))
    assert run(None, JT, method, h, 1e10, 0, count, *_one(Q, QD, QDD, TAU)) == -1
    for j in range(2):
        y = np.array([q0[j], qd0[j]])
        expected = [y := step @ y if k else y for k in range(count + 1)]
        np.testing.assert_allclose(np.column_stack([Q[:, j], QD[:, j]]), expected,
                                   rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(QDD[:-1], -omega2 * Q[:-1], rtol=1e-15)
    assert (TAU[:-1] == 0).all() and np.isnan(TAU[-1]).all()  # the last row is the caller's


def test_rk4_evaluates_the_start_the_midpoint_twice_and_the_end_and_euler_the_start():
    for method, per_step in ((steps.RK4, [0, 1, 1, 2]), (steps.SEMI_IMPLICIT_EULER, [0])):
        seen = []
        Q, QD, QDD, TAU = _records(5, [0.1], [0.0])
        Q[2], QD[2] = 0.1, 0.0  # steps 2 to 4, from row 2
        steps.bind(_oscillator(1.0, seen))(None, JT, method, 0.1, 1e10, 2, 5,
                                               *_one(Q, QD, QDD, TAU))
        assert seen == [2 * k + d for k in range(2, 5) for d in per_step]


def test_bound_loops_keep_their_own_stage():
    """Two loops bound at once each run their own stage (and the module's ``run`` none)."""
    fast, slow = steps.bind(_oscillator(100.0)), steps.bind(_oscillator(1.0))
    results = []
    for run in (fast, slow, fast):
        Q, QD, QDD, TAU = _records(1, [1.0], [0.0])
        run(None, JT, steps.SEMI_IMPLICIT_EULER, 0.01, 1e10, 0, 1, *_one(Q, QD, QDD, TAU))
        results.append(QD[1, 0])
    assert results == [pytest.approx(-1.0), pytest.approx(-0.01), pytest.approx(-1.0)]
    with pytest.raises(NotImplementedError):
        steps.run(None, JT, steps.RK4, 0.01, 1e10, 0, 1, *_one(*_records(1, [1.0], [0.0])))


def test_the_loop_stops_on_the_step_that_passes_the_limit():
    """A constant acceleration 1 at h = 1, semi-implicit Euler: after step k, qd = k + 1 and
    q = (k + 1)(k + 2)/2, which first passes 10 on step 4 (q = 15); rows up to 4 are kept."""

    def push(data, s, q, qd, tau, acc):
        tau[0, 0], acc[0, 0] = 0.0, 1.0
        return -1

    Q, QD, QDD, TAU = _records(8, [0.0], [0.0])
    assert steps.bind(push)(None, JT, steps.SEMI_IMPLICIT_EULER, 1.0, 10.0, 0, 8,
                                *_one(Q, QD, QDD, TAU)) == 4
    np.testing.assert_array_equal(Q[:5, 0], [0, 1, 3, 6, 10])
    np.testing.assert_array_equal(QD[:5, 0], [0, 1, 2, 3, 4])
    assert np.isnan(Q[5:]).all()


def test_a_failing_stage_ends_the_loop_on_its_step():
    """The RK4 stage at s = 5 (the midpoint of step 2) fails: the loop returns 2, the state
    of step 2 is not recorded, its start's torque and acceleration are."""

    def stage(data, s, q, qd, tau, acc):
        tau[0, 0], acc[0, 0] = float(s), -q[0, 0]
        return 0 if s == 5 else -1

    Q, QD, QDD, TAU = _records(6, [1.0], [0.0])
    assert steps.bind(stage)(None, JT, steps.RK4, 0.1, 1e10, 0, 6, *_one(Q, QD, QDD, TAU)) == 2
    assert not np.isnan(Q[:3]).any() and np.isnan(Q[3:]).all()
    np.testing.assert_array_equal(TAU[:3, 0], [0.0, 2.0, 4.0])


def test_the_control_laws_by_hand_on_scalars_and_element_wise():
    # kp (q_ref - q) - kd qd + g = 2 * 0.5 - 3 * 0.25 + 4
    assert steps.pd_gravity(0.5, 0.25, 1.0, 2.0, 3.0, 4.0) == 4.25
    # qdd_ref + kd (qd_ref - qd) + kp (q_ref - q) = 1 + 3 * 0.25 + 2 * 0.5
    assert steps.computed_torque_acceleration(0.5, 0.25, 1.0, 0.5, 1.0, 2.0, 3.0) == 2.75
    q, qd = np.array([0.5, -1.0]), np.array([0.25, 2.0])
    np.testing.assert_array_equal(
        steps.pd_gravity(q, qd, np.array([1.0, 0.0]), np.array([2.0, 1.0]), 3.0,
                         np.array([4.0, 0.0])),
        [4.25, 1.0 - 6.0])


def test_the_manifold_steps_are_the_joint_models():
    """On a chain of free, ball and revolute joints, the loop's joint-table steps equal the
    joint models (:mod:`robodyn.model.joints`): ``advance`` is ``Chain.integrate`` (the SE(3)
    and quaternion exponentials, tiny and large turns), ``configuration_rate`` is
    ``Chain.configuration_rate``, ``renormalize`` gives unit quaternions; and the table of a
    chain of one-value joints has no rows."""
    chain = Chain((Link("base", Joint("free")), Link("arm", Joint("revolute")),
                   Link("wrist", Joint("spherical"))), (0.0, 0.0, -9.81))
    table = steps.joint_table(chain)
    assert table.tolist() == [[steps.FREE, 0, 0], [steps.ONE_VALUE, 7, 6],
                              [steps.SPHERICAL, 8, 7]]
    rng = np.random.default_rng(3)
    q = chain.integrate(chain.neutral(), rng.normal(size=(4, chain.nv)))
    for scale in (1.0, 1e-6):
        v = rng.normal(size=(4, chain.nv)) * scale
        moved = q.copy()
        steps.advance(table, moved, v, 0.3)
        np.testing.assert_allclose(moved, chain.integrate(q, v, 0.3), rtol=0, atol=1e-14)
    rate = np.empty_like(q)
    steps.configuration_rate(table, q, v, rate)
    np.testing.assert_allclose(rate, chain.configuration_rate(q, v), rtol=0, atol=1e-15)
    scaled = q * 1.5
    steps.renormalize(table, scaled)
    np.testing.assert_allclose(scaled[:, :3], 1.5 * q[:, :3])  # positions stay
    np.testing.assert_allclose(scaled, chain.normalized(q * 1.5), rtol=0, atol=1e-15)
    arm = Chain((Link("a", Joint("revolute")), Link("b", Joint("prismatic"))), (0.0, 0.0, 0.0))
    assert steps.joint_table(arm).shape == (0, 3)
