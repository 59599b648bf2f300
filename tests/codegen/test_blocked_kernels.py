"""The blocked Numba kernels (SIMD across samples, codegen/emit.py numba_block_source)
equal the per-sample kernels bit for bit, for batches that are not whole blocks, and
still name the first non-finite row. The per-sample kernel is the oracle: the program
the batched calls ran before the blocks (and that single states still run); its values
are checked against Pinocchio in tests/dynamics/test_pinocchio.py."""

from __future__ import annotations

import importlib.metadata

import numpy as np
import pytest

import robodyn as rd
from conftest import random_states
from robodyn.codegen.emit import BLOCK
from robodyn.codegen.kernel import THREAD_MIN_BATCH, backend

pytestmark = pytest.mark.skipif(backend() != "numba", reason="the blocked kernels are Numba's")

KINDS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "coriolis_matrix",
         "gravity_torques")
SIZES = (1, BLOCK - 1, BLOCK, BLOCK + 1, 1000 + 3)
#: How closely the compiled kernels match the NumPy flavour (check_blocked_equals_per_sample).
AGREEMENT = {"inverse_dynamics": 4e-15, "mass_matrix": 4e-15, "gravity_torques": 4e-15,
             "coriolis_matrix": 2e-14, "forward_dynamics": 1e-13}


def arguments(robot, kind: str, n: int, seed: int = 0) -> list[np.ndarray]:
    """Random inputs of kernel ``kind`` for ``n`` samples, C-contiguous float64."""
    q, qd, qdd = random_states(robot, n, seed)
    values = {"q": q, "qd": qd, "qdd": qdd, "tau": 10 * qdd}
    names = rd.dynamics.registry.KERNELS[kind].inputs
    return [np.ascontiguousarray(values[name]) for name in names]


def per_sample(kernel, p, args) -> np.ndarray:
    """The per-sample kernel on all rows: the reference."""
    out = np.empty((args[0].shape[0], kernel.width))
    assert kernel.fn(*args, p, out, 0, args[0].shape[0]) == -1
    return out


def check_blocked_equals_per_sample(robot, kind: str, sizes=SIZES) -> None:
    """The blocked kernel equals the per-sample one bit for bit, and both equal the NumPy
    flavour (the same program on NumPy's own sine and cosine, not robodyn.codegen.trig's)
    to rounding, relative to each state's largest result (at least 1): 4e-15 for the
    inverse dynamics, M and g (measured: up to 1.2e-15), 2e-14 for C (its Christoffel sums
    cancel; up to 5e-15) and 1e-13 for the forward dynamics (the solve multiplies a last-bit
    difference by M's condition; up to 1.6e-14)."""
    from robodyn.codegen.kernel import Kernel

    kernel = robot.runner.kernel(kind)
    p = robot.runner.parameter_values
    blocked = kernel._blocked()
    assert blocked is not kernel.fn  # it compiled
    numpy = Kernel(robot.runner.chain, kind, robot.runner.parameter_names, which="numpy")
    for n in sizes:
        args = arguments(robot, kind, n, seed=n)
        ref = per_sample(kernel, p, args)
        assert np.isfinite(ref).all()
        other = numpy(p, *args)
        scale = np.maximum(np.abs(other).max(axis=1, keepdims=True), 1.0)
        assert (np.abs(ref - other) / scale).max() < AGREEMENT[kind], (kind, n)
        out = np.full_like(ref, 7.0)
        assert blocked(*args, p, out, 0, n) == -1
        assert np.array_equal(out, ref), (kind, n)
        assert np.array_equal(kernel(p, *args), ref), (kind, n)  # the public batched path
        if n > 3:  # a range that starts inside a block leaves the rows before it alone
            out = np.full_like(ref, 7.0)
            assert blocked(*args, p, out, 3, n) == -1
            assert (out[:3] == 7.0).all() and np.array_equal(out[3:], ref[3:])


@pytest.mark.parametrize("kind", KINDS)
def test_blocked_kernels_equal_the_per_sample_ones_bit_for_bit(kind):
    check_blocked_equals_per_sample(rd.load("planar-3r"), kind)


def test_blocked_kernels_split_over_threads_equal_the_per_sample_ones():
    check_blocked_equals_per_sample(rd.load("planar-3r"), "inverse_dynamics",
                                    sizes=(THREAD_MIN_BATCH + 3, 3 * THREAD_MIN_BATCH + 5))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["builtins", "ur5"])
def test_blocked_kernels_of_builtins_of_every_shape_and_the_ur5(name):
    if name == "builtins":
        # the blocked loop wraps each model's program the same way: built-ins of every
        # shape it meets (1 DOF, a prismatic joint, a branching tree, a loop's open tree,
        # six joints with motors and friction) are its cases, each kernel compiled twice
        # (the suite's cold run: 115 s for all 15 built-ins)
        robots = [rd.load(model) for model in ("pendulum", "cartesian-2p", "rp-arm",
                                               "planar-2r-gripper", "five-bar", "puma560")]
    else:
        try:
            importlib.metadata.distribution("example-robot-data")
        except importlib.metadata.PackageNotFoundError:
            pytest.skip("example-robot-data is not installed")
        # a real arm's six joints (the Panda's seven were one more 40 s compile, the same
        # loop: the branching tree is among the built-ins)
        file, tip = {"ur5": ("ur_description/urdf/ur5_robot.urdf", "tool0")}[name]
        robots = [rd.load(rd.models.example_robot_data(file), tip=tip)]
    for robot in robots:
        for kind in KINDS:
            check_blocked_equals_per_sample(robot, kind)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [BLOCK + 1, 1000 + 3])
def test_the_blocked_kernel_returns_the_first_non_finite_row(kind, n):
    robot = rd.load("planar-3r")
    kernel = robot.runner.kernel(kind)
    p = robot.runner.parameter_values
    blocked = kernel._blocked()
    for rows in ([0], [n // 2, n - 1], [n - 1], [BLOCK - 1, BLOCK]):
        args = arguments(robot, kind, n)
        for row in rows:
            args[0][row, 1] = np.nan
        out = np.empty((n, kernel.width))
        assert blocked(*args, p, out, 0, n) == rows[0]
        ref = np.empty_like(out)
        assert kernel.fn(*args, p, ref, 0, n) == rows[0]  # as the per-sample kernel says
        # every other row is still computed
        good = np.ones(n, bool)
        good[rows] = False
        assert np.array_equal(out[good], ref[good])


@pytest.mark.parametrize("n", [1000 + 3, 2 * THREAD_MIN_BATCH + 3])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_nan_row_of_a_batch_is_named_first(n, where):
    robot = rd.load("planar-3r")
    q, qd, qdd = random_states(robot, n)
    row = {"first": 0, "middle": n // 2 + 1, "last": n - 1}[where]
    q[row, 2] = np.nan
    if row + 1 < n:
        qd[n - 1, 0] = np.inf  # a later bad row, in the other thread for the large batch
    with pytest.raises(rd.InputError, match=rf"q\[{row}, 2\] is nan"):
        robot.inverse_dynamics(q, qd, qdd)
    with pytest.raises(rd.InputError, match=rf"q\[{row}, 2\] is nan"):
        robot.mass_matrix(q)


def test_an_overflow_in_a_batch_is_reported_for_its_first_row():
    robot = rd.load("planar-3r")
    q, qd, qdd = random_states(robot, 1003)
    qd[700, 0] = 2e200  # finite inputs whose torques overflow float64
    qd[900, 1] = 3e200
    with pytest.raises(rd.InputError, match=r"qd\[0\] = 2e\+200 makes the result overflow"):
        robot.inverse_dynamics(q, qd, qdd)


def test_kernels_of_many_outputs_write_them_through_a_table_with_the_same_values():
    """A kernel of more than GATHER_MIN_OUTPUTS outputs (a regressor, a 12-joint M) keeps
    each distinct value once and copies them out through a table (its compile time is
    otherwise quadratic in the outputs). Its values equal the NumPy flavour of the same
    program (an independent emitter), the blocked kernel equals it bit for bit, and the
    first non-finite row is still the one named."""
    from robodyn.codegen.emit import GATHER_MIN_OUTPUTS
    from robodyn.codegen.kernel import Kernel

    solo = rd.load(rd.models.example_robot_data("solo_description/robots/solo12.urdf"))
    for robot, kind in ((rd.load("planar-3r"), "regressor"), (solo, "mass_matrix")):
        kernel = robot.runner.kernel(kind)
        assert kernel.width > GATHER_MIN_OUTPUTS
        assert "IDX_kernel" in kernel.source and "ROWS_kernel_block" in kernel.source
        p = robot.runner.parameter_values
        n = 1000 + 3
        args = arguments(robot, kind, n, seed=5)
        ref = per_sample(kernel, p, args)
        numpy = Kernel(robot.runner.chain, kind, robot.runner.parameter_names, which="numpy")
        assert np.allclose(numpy(p, *args), ref, rtol=1e-13, atol=1e-13)
        if kind == "mass_matrix":  # the tree's zeros exact, M symmetric exactly
            m = ref.reshape(n, robot.dof, robot.dof)
            assert np.array_equal(m, m.transpose(0, 2, 1))
            assert (m[:, 0, 5] == 0.0).all()  # two legs: no coupling
        blocked = kernel._blocked()
        out = np.full_like(ref, 7.0)
        assert blocked(*args, p, out, 0, n) == -1
        assert np.array_equal(out, ref)
        args[0][n // 2, 1] = np.nan
        args[0][n - 1, 0] = np.inf
        for fn in (kernel.fn, blocked):
            assert fn(*args, p, np.empty_like(ref), 0, n) == n // 2
