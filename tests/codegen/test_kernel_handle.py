"""The one-state path and ``robot.kernel(kind)``: the same numbers as the batched kernels,
the same errors for values that are not finite, and a clear error for every array the
handle does not take as it is."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError

# the handles' compiled one-state functions: compiled (the suite's default is NumPy)
pytestmark = pytest.mark.usefixtures("compiled_tier")

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def arm():
    robot = rd.load("planar-3r")
    rng = np.random.default_rng(3)
    return robot, rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))


def test_one_state_equals_its_row_of_a_batch(arm):
    robot, q, qd, qdd = arm
    batch = tau = robot.inverse_dynamics(q, qd, qdd)
    accelerations = robot.forward_dynamics(q, qd, tau)
    for k in range(4):
        np.testing.assert_array_equal(robot.inverse_dynamics(q[k], qd[k], qdd[k]), batch[k])
        np.testing.assert_array_equal(robot.forward_dynamics(q[k], qd[k], tau[k]),
                                      accelerations[k])
        # a strided view takes the general path: the same numbers
        np.testing.assert_array_equal(robot.inverse_dynamics(q.T[:, k], qd[k], qdd[k]),
                                      batch[k])
    # forward dynamics inverts inverse dynamics (an independent property)
    np.testing.assert_allclose(robot.forward_dynamics(q[0], qd[0], tau[0]), qdd[0], rtol=1e-9,
                               atol=1e-9)


def test_a_nan_in_one_state_is_named(arm):
    robot, q, qd, qdd = arm
    bad = q[0].copy()
    bad[1] = np.nan
    with pytest.raises(InputError, match=r"q\[1\] is nan"):
        robot.inverse_dynamics(bad, qd[0], qdd[0])
    with pytest.raises(InputError, match=r"q\[1\] is nan"):
        robot.kernel("inverse_dynamics")(bad, qd[0], qdd[0])


@pytest.mark.parametrize("kind", ["inverse_dynamics", "forward_dynamics", "mass_matrix"])
def test_the_kernel_handle_equals_the_robots_method(arm, kind):
    robot, q, qd, qdd = arm
    handle = robot.kernel(kind)
    assert handle is robot.kernel(kind)
    inputs = {"inverse_dynamics": (q, qd, qdd), "forward_dynamics": (q, qd, qdd),
              "mass_matrix": (q,)}[kind]
    expected = getattr(robot, kind)(*inputs)
    out = np.empty(expected.shape)
    assert handle(*inputs, out=out) is out
    np.testing.assert_array_equal(out, expected)
    one = np.empty(expected.shape[1:])
    assert handle(*(a[2] for a in inputs), out=one) is one
    np.testing.assert_array_equal(one, expected[2])
    np.testing.assert_array_equal(handle(*(a[1] for a in inputs)), expected[1])
    # out as the last positional argument: the same call, one state and a batch
    last = np.empty(expected.shape[1:])
    assert handle(*(a[3] for a in inputs), last) is last
    np.testing.assert_array_equal(last, expected[3])
    batch = np.empty(expected.shape)
    assert handle(*inputs, batch) is batch
    np.testing.assert_array_equal(batch, expected)


@pytest.mark.parametrize("kind,inputs", [("mass_matrix", 1), ("gravity_torques", 1),
                                         ("coriolis_matrix", 2), ("inverse_dynamics", 3),
                                         ("inverse_dynamics_contact", 4)])
def test_a_wrong_number_of_arguments_is_named(arm, kind, inputs):
    """The handle's call has the kernel's own arity: one input too few or one argument too
    many (beyond ``out``) is the InputError that counts them, not Python's TypeError."""
    handle = arm[0].kernel(kind)
    width = handle.widths
    arrays = [np.zeros(w) for w in width]
    assert len(arrays) == inputs
    with pytest.raises(InputError, match=rf"takes {inputs} arrays? .*got {inputs - 1}"):
        handle(*arrays[:-1])
    out = np.empty(handle.shape)
    with pytest.raises(InputError, match=rf"takes {inputs} arrays? .*got {inputs + 2}"):
        handle(*arrays, out, np.zeros(3))


def test_a_large_batch_through_the_handle_runs_as_the_robots_method(arm, monkeypatch):
    """A batch of more than THREAD_MIN_BATCH states into ``out=`` takes the blocked kernel
    on every thread the robot's method uses: the same bits, and a NaN is named by its row."""
    from robodyn.codegen import kernel as kernel_module

    monkeypatch.setattr(kernel_module, "BLOCKED_MIN_BATCH", 256)
    monkeypatch.setattr(kernel_module, "THREAD_MIN_BATCH", 1024)
    robot = arm[0]
    rng = np.random.default_rng(8)
    q, qd, qdd = rng.normal(size=(3, 3000, 3))
    expected = robot.inverse_dynamics(q, qd, qdd)
    handle = robot.kernel("inverse_dynamics")
    out = np.empty_like(expected)
    assert handle(q, qd, qdd, out=out) is out
    np.testing.assert_array_equal(out, expected)
    qd[2345, 2] = np.nan
    with pytest.raises(InputError, match=r"qd\[2345, 2\] is nan"):
        handle(q, qd, qdd, out=out)


@pytest.mark.parametrize("args,out,message", [
    (lambda q: (q.astype(np.float32), q, q), None, r"q must be a C-contiguous float64 array "
                                                   r"of shape \(3,\) or \(N, 3\), got float32"),
    (lambda q: ([0.0, 0.0, 0.0], q, q), None, "got list; pass np.ascontiguousarray"),
    (lambda q: (np.ones((3, 2)).T, q, q), None, r"not C-contiguous"),
    (lambda q: (q, np.ones((2, 3)), q), None, r"qd has shape \(2, 3\), q \(3,\)"),
    (lambda q: (q, q), None, r"takes 3 arrays \(q, qd, qdd\), got 2"),
    (lambda q: (q, q, q), np.empty(4), r"out must be a writeable C-contiguous float64 array "
                                       r"of shape \(3,\), got float64 array of shape \(4,\)"),
    (lambda q: (q, q, q), np.empty(3, dtype=np.float32), r"out must be .* got float32"),
])
def test_the_handle_refuses_what_it_would_have_to_convert(arm, args, out, message):
    robot = arm[0]
    with pytest.raises(InputError, match=message):
        robot.kernel("inverse_dynamics")(*args(np.zeros(3)), out=out)


def test_an_unknown_kernel_is_named():
    with pytest.raises(InputError, match="'rnea' is not an entry of the kernel registry"):
        rd.load("planar-2r").kernel("rnea")


def test_a_hot_one_state_path_keeps_every_check():
    """After HOT_CALLS one-state calls a compiled one-state function takes over: the same
    numbers, and the same errors for what it does not take."""
    from robodyn.codegen.runner import HOT_CALLS

    robot = rd.load("planar-2r")
    robot.kernel("inverse_dynamics")  # a handle made first shares the one-state function
    q, qd, qdd = np.array([0.3, -0.2]), np.array([0.5, 0.1]), np.array([1.0, -1.0])
    expected = robot.inverse_dynamics(q[None], qd[None], qdd[None])[0]
    for _ in range(HOT_CALLS + 1):
        np.testing.assert_array_equal(robot.inverse_dynamics(q, qd, qdd), expected)
    assert robot.runner.hot.get("inverse_dynamics") is not None
    np.testing.assert_array_equal(robot.inverse_dynamics(list(q), qd.astype(np.float32), qdd),
                                  robot.inverse_dynamics(q, qd.astype(np.float32), qdd))
    with pytest.raises(InputError, match=r"qd: expected shape \(\.\.\., 2\)"):
        robot.inverse_dynamics(q, np.zeros(3), qdd)
    bad = qdd.copy()
    bad[0] = np.inf
    with pytest.raises(InputError, match=r"qdd\[0\] is inf"):
        robot.inverse_dynamics(q, qd, bad)
    np.testing.assert_array_equal(robot.inverse_dynamics(q, qd, 1.0),
                                  robot.inverse_dynamics(q, qd, np.ones(2)))
    # forward dynamics takes the same inline path once hot
    tau = robot.inverse_dynamics(q, qd, qdd)
    for _ in range(HOT_CALLS + 1):
        np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau), qdd, rtol=1e-12)
    assert robot.runner.hot.get("forward_dynamics") is not None
    with pytest.raises(InputError, match=r"tau\[1\] is nan"):
        robot.forward_dynamics(q, qd, np.array([1.0, np.nan]))
    with pytest.raises(InputError, match=r"tau: expected shape \(\.\.\., 2\)"):
        robot.forward_dynamics(q, qd, np.zeros(5))
    batch = robot.forward_dynamics(np.tile(q, (3, 1)), qd, tau)  # 2-D: not the one-state path
    np.testing.assert_allclose(batch, np.tile(qdd, (3, 1)), rtol=1e-12)
