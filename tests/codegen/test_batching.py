"""Batched calls equal per-sample calls; shapes (dof,), (N, dof), (A, B, dof) work;
the NumPy backend runs the same generated programs as the Numba one."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from conftest import random_states
from robodyn.codegen.kernel import Kernel

FUNCTIONS = {
    "inverse_dynamics": (lambda r, q, qd, qdd: r.inverse_dynamics(q, qd, qdd), ()),
    "mass_matrix": (lambda r, q, qd, qdd: r.mass_matrix(q), ("dof",)),
    "coriolis_matrix": (lambda r, q, qd, qdd: r.coriolis_matrix(q, qd), ("dof",)),
    "gravity_torques": (lambda r, q, qd, qdd: r.gravity_torques(q), ()),
    "friction_torques": (lambda r, q, qd, qdd: r.friction_torques(qd), ()),
    "forward_dynamics": (lambda r, q, qd, qdd: r.forward_dynamics(q, qd, qdd), ()),
    "forward_kinematics": (lambda r, q, qd, qdd: r.forward_kinematics(q), (4,)),
    "jacobian": (lambda r, q, qd, qdd: r.jacobian(q), (6,)),
}


@pytest.fixture(scope="module")
def robot():
    return rd.load("planar-3r")


@pytest.mark.parametrize("fname", FUNCTIONS)
def test_batched_equals_per_sample_and_shapes(robot, fname):
    fn, _ = FUNCTIONS[fname]
    q, qd, qdd = random_states(robot, 6)
    single = np.stack([fn(robot, q[k], qd[k], qdd[k]) for k in range(6)])
    batched = fn(robot, q, qd, qdd)
    assert single.shape[0] == 6 and batched.shape == single.shape
    np.testing.assert_allclose(batched, single, rtol=1e-14, atol=1e-14)
    grid = fn(robot, q.reshape(2, 3, -1), qd.reshape(2, 3, -1), qdd.reshape(2, 3, -1))
    assert grid.shape == (2, 3) + single.shape[1:]
    np.testing.assert_allclose(grid.reshape(single.shape), single, rtol=1e-14, atol=1e-14)
    one = fn(robot, q[0], qd[0], qdd[0])
    assert one.shape == single.shape[1:]


def test_leading_axes_broadcast(robot):
    q, qd, qdd = random_states(robot, 4)
    tau = robot.inverse_dynamics(q, qd[0], qdd[0])
    expected = np.stack([robot.inverse_dynamics(q[k], qd[0], qdd[0]) for k in range(4)])
    np.testing.assert_allclose(tau, expected, rtol=1e-14)
    # (4, 1, dof) with (3, dof) -> (4, 3, dof)
    tau = robot.inverse_dynamics(q[:, None, :], qd[:3], qdd[:3])
    assert tau.shape == (4, 3, robot.dof)
    np.testing.assert_allclose(tau[2, 1], robot.inverse_dynamics(q[2], qd[1], qdd[1]), rtol=1e-14)


def test_lists_and_integer_arrays_are_accepted(robot):
    tau = robot.inverse_dynamics([0, 1, 2], [0, 0, 0], np.array([1, 1, 1]))
    np.testing.assert_allclose(tau, robot.inverse_dynamics(np.array([0.0, 1.0, 2.0]),
                                                           np.zeros(3), np.ones(3)))


def test_large_batch_is_split_across_threads_without_changing_results(robot):
    q, qd, qdd = random_states(robot, 10000, seed=3)
    tau = robot.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(tau[::997], np.stack(
        [robot.inverse_dynamics(q[k], qd[k], qdd[k]) for k in range(0, 10000, 997)]), rtol=1e-14)


@pytest.mark.parametrize("kind", ["inverse_dynamics", "mass_matrix", "coriolis_matrix",
                                  "forward_dynamics", "jacobian"])
def test_numpy_backend_equals_numba_backend(kind):
    pytest.importorskip("numba")
    robot = rd.load("puma560")
    q, qd, qdd = random_states(robot, 50, seed=9)
    inputs = {"inverse_dynamics": (q, qd, qdd), "mass_matrix": (q,),
              "coriolis_matrix": (q, qd), "forward_dynamics": (q, qd, qdd),
              "jacobian": (q,)}[kind]
    inputs = [np.ascontiguousarray(a) for a in inputs]
    names = tuple(str(s) for s in robot.symbols)
    p = robot.parameter_values
    a = Kernel(robot.chain, kind, names, which="numba")(p, *inputs)
    b = Kernel(robot.chain, kind, names, which="numpy")(p, *inputs)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_robots_pickle_without_their_compiled_kernels():
    import pickle

    robot = rd.load("planar-2r")
    q = np.array([0.1, 0.2])
    before = robot.mass_matrix(q)
    clone = pickle.loads(pickle.dumps(robot))
    np.testing.assert_allclose(clone.mass_matrix(q), before, rtol=1e-15)


def test_a_robot_stays_as_it_was_made_while_its_runner_compiles_and_caches():
    """The kernels, the numeric chain and the base parameters are the runner's, made with the
    robot: computing changes nothing the robot itself holds, nor what it pickles to."""
    import pickle

    robot = rd.load("planar-2r")
    held = dict(vars(robot))
    size = len(pickle.dumps(robot))
    q = np.array([0.3, -0.4])
    robot.mass_matrix(q)
    robot.forward_dynamics(q, q, q)
    robot.base_parameters()
    assert robot.runner.kernel("mass_matrix") is robot.runner.kernel("mass_matrix")
    assert vars(robot).keys() == held.keys()
    assert all(vars(robot)[k] is v for k, v in held.items())
    assert len(pickle.dumps(robot)) == size


def test_a_runner_pickles_without_its_caches_and_computes_the_same_numbers():
    import pickle

    robot = rd.load("planar-3r").with_values(m3=0.7)
    q, qd, qdd = random_states(robot, 5, seed=4)
    expected = robot.inverse_dynamics(q, qd, qdd)
    clone = pickle.loads(pickle.dumps(robot.runner))
    assert len(pickle.dumps(robot.runner)) < len(pickle.dumps(robot.chain)) + 1000
    np.testing.assert_array_equal(clone.run("inverse_dynamics", q, qd, qdd), expected)


def test_the_runner_names_an_unknown_kernel_and_a_wrong_number_of_arrays():
    runner = rd.load("planar-2r").runner
    q = np.zeros(2)
    with pytest.raises(rd.InputError, match="kind: 'nope' is not an entry of the kernel "
                                            "registry; the entries are inverse_dynamics, "):
        runner.run("nope", q)
    with pytest.raises(rd.InputError, match=r"inverse_dynamics: takes 3 arrays \(q, qd, qdd\), "
                                            "got 2"):
        runner.run("inverse_dynamics", q, q)
    with pytest.raises(rd.InputError, match=r"mass_matrix: takes 1 array \(q\), got 2"):
        runner.run("mass_matrix", q, q)
    with pytest.raises(rd.InputError, match=r"mass_matrix: takes 1 array \(q\), got 2"):
        runner.run("mass_matrix", np.zeros((4, 2)), q)
    np.testing.assert_array_equal(runner.run("mass_matrix", q),
                                  rd.load("planar-2r").mass_matrix(q))


def test_a_robot_pickled_with_its_caches_in_its_state_loads():
    """Older robodyn kept caches in the robot's own state; such a pickle still loads (the
    caches are dropped and the runner made afresh)."""
    robot = rd.load("planar-2r")
    state = {"name": robot.name, "chain": robot.chain, "_values": robot._values,
             "description": robot.description, "provenance": robot.provenance,
             "numeric_chain": None, "_kernels": {}, "_runners": {}, "_base": {}}
    old = rd.Robot.__new__(rd.Robot)
    old.__setstate__(state)
    q = np.array([0.1, 0.2])
    np.testing.assert_array_equal(old.mass_matrix(q), robot.mass_matrix(q))
    assert old.numeric_chain == robot.numeric_chain and "_kernels" not in vars(old)


def test_with_values_reuses_the_compiled_kernels_and_uses_the_new_numbers():
    """Parameters are inputs of the compiled program: a parameter sweep compiles once."""
    robot = rd.load("planar-2r")
    heavy = robot.with_values(m2=3.0, c2=0.25)
    assert heavy.runner.kernel("mass_matrix") is robot.runner.kernel("mass_matrix")
    q = np.array([0.2, 0.7])
    p = heavy.values
    # seed 003: M22 = I2 + m2 c2^2
    np.testing.assert_allclose(heavy.mass_matrix(q)[1, 1], p["I2"] + 3.0 * 0.25**2, rtol=1e-14)
    np.testing.assert_allclose(robot.mass_matrix(q)[1, 1],
                               robot.values["I2"] + robot.values["m2"] * robot.values["c2"] ** 2,
                               rtol=1e-14)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_symbolic_parameters_work_in_both_backends(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    robot = rd.load("planar-3r").with_values(m3=0.7)
    names = tuple(str(s) for s in robot.symbols)
    q, qd, qdd = random_states(robot, 7, seed=11)
    kernel = Kernel(robot.chain, "inverse_dynamics", names, which=backend)
    tau = kernel(robot.parameter_values, q, qd, qdd)
    np.testing.assert_allclose(tau, robot.inverse_dynamics(q, qd, qdd), rtol=1e-13)
