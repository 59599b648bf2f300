"""Many rollouts in one call (robodyn.motion.rollouts): each rollout of a batch is the single
run with its own start, torques, controller, parameter values and wrench (the oracle: N
single runs); a rollout that fails is named with its step and the others stay readable;
bad batches are refused before anything runs."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError, ModelError
from robodyn.motion.rollouts import MAX_BATCH_VALUES, RolloutError

# the compiled rollout loops: the kernels compiled (the suite's default tier is NumPy's)
pytestmark = pytest.mark.usefixtures("compiled_tier")

ARRAYS = ("q", "qd", "qdd", "tau", "kinetic", "potential")


def _same(batch, r, one, tol=1e-12):
    for name in ARRAYS:
        np.testing.assert_allclose(getattr(batch, name)[r], getattr(one, name), rtol=tol,
                                   atol=tol, err_msg=f"rollout {r}: {name}")
    np.testing.assert_array_equal(batch.t, one.t)


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rd.simulate(*args, progress=False, **kwargs)


def _one(*args, **kwargs):
    """The single run a rollout is checked against, stepped by the Python loop on NumPy's
    kernels (no compile: each compiled loop costs 5-20 s on a cold cache; the compiled single
    loop equals the Python one in tests/motion/test_simulation.py)."""
    saved = os.environ.get("ROBODYN_TIER")
    os.environ["ROBODYN_TIER"] = "numpy"
    try:
        return _quiet(*args, **kwargs)
    finally:
        if saved is None:
            del os.environ["ROBODYN_TIER"]
        else:
            os.environ["ROBODYN_TIER"] = saved


@pytest.mark.parametrize("method", ["rk4", "semi-implicit-euler"])
@pytest.mark.slow  # Numba compiles the loops on a cold cache (10-40 s)
def test_batched_torque_tables_equal_single_rollouts(method):
    pytest.importorskip("numba")
    robot = rd.load("planar-2r")
    rng = np.random.default_rng(1)
    q0 = rng.uniform(-1, 1, (3, 2))
    qd0 = rng.uniform(-1, 1, (3, 2))
    tau = rng.uniform(-2, 2, (3, 7, 2))
    sim = _quiet(robot, q0, qd0=qd0, duration=0.3047, dt=1e-3, tau=tau, method=method)
    assert sim.info["compiled"] and sim.rollouts == 3
    assert sim.q.shape == sim.tau.shape == (3, len(sim.t), 2)
    assert sim.kinetic.shape == (3, len(sim.t))
    for r in range(3):
        one = _one(robot, q0[r], qd0=qd0[r], duration=0.3047, dt=1e-3, tau=tau[r],
                     method=method)
        _same(sim, r, one)
        assert sim.info["energy_balance"][r].error == pytest.approx(
            one.info["energy_balance"].error, rel=1e-9, abs=1e-12)
    # a (T, dof) table and one start are shared by every rollout of a batch of qd0
    shared = _quiet(robot, q0[0], qd0=qd0, duration=0.1, dt=1e-3, tau=tau[0], method=method)
    np.testing.assert_array_equal(shared.q[:, 0], np.tile(q0[0], (3, 1)))
    _same(shared, 2, _one(robot, q0[0], qd0=qd0[2], duration=0.1, dt=1e-3, tau=tau[0],
                            method=method))


@pytest.mark.slow  # Numba compiles the loops on a cold cache (10-40 s)
@pytest.mark.parametrize("kind", ["pd-gravity", "computed-torque"])  # two tests: xdist spreads them
def test_batched_controllers_with_their_own_targets_equal_single_rollouts(kind):
    pytest.importorskip("numba")
    robot = rd.load("planar-2r")
    if kind == "pd-gravity":
        controllers = [rd.control.PDGravity(robot, q_ref, kp=kp, kd=5.0) for q_ref, kp in
                       (([0.3, 0.2], 20.0), ([-0.5, 1.0], 40.0), ([0.0, 0.0], 10.0))]
    else:
        model = robot.with_values(m2=1.8)  # a wrong model for one rollout's controller
        controllers = [rd.control.ComputedTorque(m, rd.trajectory.quintic([0, 0], goal, 0.3),
                                                 kp=100.0, kd=20.0)
                       for m, goal in ((robot, [1.0, -0.5]), (model, [0.5, 0.5]),
                                       (robot, [-1.0, 0.2]))]
    sim = _quiet(robot, [0.05, 0.0], duration=0.3047, dt=1e-3, tau=controllers)
    assert sim.info["compiled"]
    for r, ctrl in enumerate(controllers):
        _same(sim, r, _one(robot, [0.05, 0.0], duration=0.3047, dt=1e-3, tau=ctrl))
    # they really differ: each rollout goes to its own set point (PD's gains are weak)
    assert np.abs(sim.q[0, -1] - sim.q[2, -1]).max() > (0.5 if kind == "computed-torque" else 0.05)


@pytest.mark.slow  # Numba compiles the loops on a cold cache (10-40 s)
def test_per_rollout_parameter_values_and_wrenches_equal_single_rollouts():
    pytest.importorskip("numba")
    robot = rd.load("planar-2r")
    m2 = np.array([0.5, 1.5, 3.0])
    h_e = np.array([[0, 0, 0, 0, 0, 0], [2.0, -1.0, 0, 0, 0, 0.5], [0, 3.0, 0, 0, 0, 0]])
    sim = _quiet(robot, [0.4, -0.3], duration=0.2, dt=1e-3, values={"m2": m2}, h_e=h_e)
    assert sim.info["compiled"]
    for r in range(3):
        one = _one(robot.with_values(m2=m2[r]), [0.4, -0.3], duration=0.2, dt=1e-3,
                     h_e=h_e[r])
        _same(sim, r, one)
    # each rollout's energy is its own model's: the potential at the start scales with m2
    u0 = [robot.with_values(m2=m).potential_energy(np.array([0.4, -0.3])) for m in m2]
    np.testing.assert_allclose(sim.potential[:, 0], u0, rtol=1e-14)


@pytest.mark.slow  # Numba compiles the loops and the blocked kernels on a cold cache
def test_blocks_of_rollouts_through_the_blocked_kernels_equal_single_rollouts(monkeypatch):
    """Rollouts that share the parameters run in lockstep blocks of 16, one SIMD lane each
    (the blocked forward dynamics, and the controller model's blocked inverse dynamics):
    each rollout is its single run bit for bit, in a full block and in the last, partial
    one; a NaN torque in the second block fails its rollout alone."""
    pytest.importorskip("numba")
    from robodyn.codegen import kernel as kernel_module

    monkeypatch.setattr(kernel_module, "BLOCKED_MIN_BATCH", 1)
    robot = rd.load("planar-2r")
    rng = np.random.default_rng(9)
    n, duration = 20, 0.1047  # a block of 16, then one of 4
    q0 = rng.uniform(-1, 1, (n, 2))
    tau = rng.uniform(-2, 2, (n, 7, 2))
    goals = rng.uniform(-1, 1, (n, 2))
    ct = [rd.control.ComputedTorque(robot, rd.trajectory.quintic([0, 0], goal, duration),
                                    kp=100.0, kd=20.0) for goal in goals]
    for batch, single in (((q0, tau), lambda r: (q0[r], tau[r])),
                          (([0.05, 0.0], ct), lambda r: ([0.05, 0.0], ct[r]))):
        sim = _quiet(robot, batch[0], duration=duration, dt=1e-3, tau=batch[1])
        assert sim.info["compiled"] and sim.rollouts == n
        for r in (0, 7, 15, 16, 19):
            start, torque = single(r)
            one = _quiet(robot, start, duration=duration, dt=1e-3, tau=torque)
            for name in ("q", "qd", "qdd", "tau"):
                np.testing.assert_array_equal(getattr(sim, name)[r], getattr(one, name),
                                              err_msg=f"rollout {r}: {name}")
    tau[17, 3, 1] = np.nan
    with pytest.raises(RolloutError, match=r"1 of 20 rollouts failed \(17\)") as caught:
        _quiet(robot, q0, duration=duration, dt=1e-3, tau=tau)
    for r in (16, 18):
        one = _quiet(robot, q0[r], duration=duration, dt=1e-3, tau=tau[r])
        np.testing.assert_array_equal(caught.value.simulation.q[r], one.q)


@pytest.mark.parametrize("method,options", [("implicit-euler", {"dt": 0.01}),
                                            ("rk45", {"sample_dt": 0.05})])
def test_methods_that_run_rollout_by_rollout_equal_single_runs(method, options,
                                                              numpy_backend):
    robot = rd.load("planar-2r")
    q0 = np.array([[0.3, 0.1], [-0.2, 0.5]])
    sim = _quiet(robot, q0, duration=0.3, method=method, **options)
    for r in range(2):
        _same(sim, r, _quiet(robot, q0[r], duration=0.3, method=method, **options))


def test_an_adaptive_batch_without_a_common_grid_is_refused(numpy_backend):
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match="needs one time grid; give sample_dt"):
        rd.simulate(robot, np.zeros((2, 2)), duration=0.3)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_nan_torque_fails_its_rollout_by_step_and_the_others_finish(compiled, monkeypatch):
    if compiled:
        pytest.importorskip("numba")
    else:
        monkeypatch.setenv("ROBODYN_BACKEND", "numpy")
    robot = rd.load("planar-2r")
    tau = np.zeros((3, 11, 2))
    tau[1, 6, 0] = np.nan  # at t = 0.06 s of 0.1 s
    with pytest.raises(RolloutError, match=r"1 of 3 rollouts failed \(1\)") as caught:
        _quiet(robot, [0.4, -0.3], duration=0.1, dt=1e-3, tau=tau)
    err = caught.value
    assert list(err.failed) == [1]
    if compiled:  # linear in between: NaN from just after 0.05 s, step 50's midpoint
        assert "rollout 1: step 50 (t = 0.05 s): its torque table is not finite at t = " \
               "0.0505 s" in str(err)
    else:
        assert "not finite at t = 0.06 s" in err.failed[1]
    sim = err.simulation
    assert np.isnan(sim.q[1, -1]).all()
    if compiled:
        assert np.isfinite(sim.q[1, :51]).all() and np.isnan(sim.q[1, 51:]).all()
    one = _quiet(robot, [0.4, -0.3], duration=0.1, dt=1e-3, tau=tau[0])
    _same(sim, 0, one)
    _same(sim, 2, one)
    assert sim.info["energy_balance"][1] is None


def test_a_diverging_rollout_is_named_and_the_others_finish():
    pytest.importorskip("numba")
    robot = rd.load("planar-2r")
    tau = np.zeros((2, 2, 2))
    tau[1] = 1e9  # drives the arm past the state bound
    with pytest.raises(RolloutError, match=r"rollout 1: step \d+ .*diverged") as caught:
        _quiet(robot, [0.4, -0.3], duration=0.5, dt=1e-3, tau=tau)
    assert list(caught.value.failed) == [1]
    assert np.isfinite(caught.value.simulation.q[0]).all()


def test_one_rollout_of_a_batch_and_its_files(tmp_path, numpy_backend):
    robot = rd.load("planar-2r")
    sim = _quiet(robot, [[0.3, 0.1], [-0.2, 0.5]], duration=0.05, dt=0.01)
    one = sim.rollout(1)
    assert one.rollouts is None and one.q.shape == (6, 2)
    np.testing.assert_array_equal(one.q, sim.q[1])
    assert one.info["energy_balance"] is sim.info["energy_balance"][1]
    assert "2 rollouts of 2 DOF" in str(sim) and "rollouts=2" in repr(sim)
    with np.load(sim.save(tmp_path / "batch.npz")) as data:
        np.testing.assert_array_equal(data["q2"], sim.q[..., 1])
    with pytest.raises(InputError, match=r"for .csv save one, sim.rollout\(i\)"):
        sim.save(tmp_path / "batch.csv")
    with pytest.raises(InputError, match="rollout: expected an index from 0 to 1"):
        sim.rollout(2)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"q0": np.zeros((3, 3))}, InputError, r"q0: expected shape \(3, 2\) .*got \(3, 3\)"),
    ({"q0": np.zeros((3, 2)), "tau": np.zeros((4, 5, 2))}, InputError,
     r"disagree on the number of rollouts \(q0 3, tau 4\); give each N rows, or one "
     r"unbatched value for all"),
    ({"q0": np.zeros((1, 2)), "tau": np.zeros((3, 5, 2))}, InputError,
     r"\(q0 1, tau 3\); give each N rows, or one unbatched value for all \(q0 of dof values"),
    ({"tau": np.zeros((2, 5, 3))}, InputError, r"tau: expected shape \(2, T, 2\)"),
    ({"q0": np.zeros((2, 2)), "h_e": np.zeros((2, 5))}, InputError,
     r"h_e: expected shape \(2, 6\)"),
    ({"values": {"m2": [1.0, 2.0]}, "qd0": np.zeros((3, 2))}, InputError,
     r"values\['m2'\] 2, qd0 3|qd0 3, .*values\['m2'\] 2"),
    ({"values": {"m2": 1.0}}, InputError, r"values\['m2'\]: expected N values"),
    ({"values": {"mass": [1.0, 2.0]}}, ModelError, r"with_values: 'mass' is not a parameter"),
    ({"values": {"m2": [1.0, np.nan]}}, InputError, r"values\['m2'\]\[1\] = nan is not finite"),
    ({"values": {"m2": np.r_[np.ones(40), -1.0, np.ones(20)]}}, ModelError,
     r"values, rollout 40: "),
    ({"values": {"m2": [1.0, -2.0]}}, ModelError, r"values, rollout 1: "),
    ({"q0": [[0.0, 0.0], [np.nan, 0.0]]}, InputError, r"q0\[1\]: \[nan, 0.0\] is not finite"),
    ({"q0": np.zeros((0, 2))}, InputError, "a batch has 1 to"),
    ({"q0": np.zeros((2000, 2)), "duration": 100.0}, InputError,
     rf"2,000 rollouts x 100,001 samples x 2 joints .* more than {MAX_BATCH_VALUES:,}"),
])
def test_bad_batches_are_refused_naming_the_argument(kwargs, error, message, numpy_backend):
    robot = rd.load("planar-2r")
    kwargs = {"q0": [0.1, 0.2], "duration": 0.05, "dt": 1e-3, **kwargs}
    with pytest.raises(error, match=message):
        rd.simulate(robot, kwargs.pop("q0"), progress=False, **kwargs)


def test_one_rollout_of_a_batch_prints_as_a_run_on_either_path(numpy_backend):
    """Rollouts run one by one (the NumPy backend) keep their step counts per rollout;
    ``sim.rollout(i)`` is then a run of its own that prints (its steps, its balance)."""
    robot = rd.load("planar-2r")
    q0 = np.random.default_rng(0).uniform(-1, 1, (3, 2))
    sim = rd.simulate(robot, q0, duration=0.05, dt=1e-3, progress=False, check_limits=False)
    one = sim.rollout(1)
    assert one.q.shape == (51, 2) and np.array_equal(one.q, sim.q[1])
    text = str(one)
    assert "50 steps" in text and "energy K+U" in text


def test_rollout_takes_simulate_s_arguments_and_always_returns_a_batch(numpy_backend):
    """rd.rollout is the explicit entry of the batch path: rd.simulate's parameters (the same
    names and defaults), a batch of one when nothing is batched, and the same numbers as
    rd.simulate, bit for bit, single or batched."""
    import inspect

    assert list(inspect.signature(rd.rollout).parameters.values()) == \
        list(inspect.signature(rd.simulate).parameters.values())
    robot = rd.load("planar-2r")
    one = rd.rollout(robot, [0.5, 0.2], duration=0.05, dt=1e-3, progress=False)
    single = rd.simulate(robot, [0.5, 0.2], duration=0.05, dt=1e-3, progress=False)
    assert one.rollouts == 1 and one.q.shape == (1, 51, 2)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(one, name)[0], getattr(single, name))
    starts = np.array([[0.5, 0.2], [0.4, -0.3]])
    batch = rd.rollout(robot, starts, duration=0.05, dt=1e-3, sample_dt=0.01, progress=False)
    same = rd.simulate(robot, starts, duration=0.05, dt=1e-3, sample_dt=0.01, progress=False)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(batch, name), getattr(same, name))
    assert batch.info["sample_dt"] == 0.01 and batch.q.shape == (2, 6, 2)
    with pytest.raises(InputError, match="q0: expected 2 values"):
        rd.rollout(robot, [0.0, 0.0, 0.0], dt=1e-3)
    with pytest.raises(InputError, match="a batch of rollouts needs one time grid"):
        rd.rollout(robot, [0.0, 0.0])
