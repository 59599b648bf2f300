"""Kernel tiers (robodyn.codegen.tiers): every tier gives the compiled kernels' answers,
big models answer without compiling, a background compile is picked up, a killed one
leaves nothing half-written that is read."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES, run_bounded
from robodyn.codegen import cache, tiers
from robodyn.codegen.kernel import compiled_source, traced_program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src")


def _results(source, tier, monkeypatch, rng_seed=0):
    monkeypatch.setenv("ROBODYN_TIER", tier)
    robot = rd.load(source)
    rng = np.random.default_rng(rng_seed)
    q = rng.uniform(-1.5, 1.5, (16, robot.nq))
    if robot.nq != robot.nv:
        pytest.skip("a quaternion joint")
    qd, qdd = rng.normal(size=(2, 16, robot.nv))
    tau = robot.inverse_dynamics(q, qd, qdd)
    # batches, and one state (the NumPy tier runs it on Python floats: the same doubles)
    out = (tau, robot.mass_matrix(q), robot.forward_dynamics(q, qd, tau),
           robot.inverse_dynamics(q[0], qd[0], qdd[0]), robot.jacobian(q),
           robot.mass_matrix(q[1]), robot.forward_dynamics(q[2], qd[2], tau[2]))
    assert robot.runner._entries["mass_matrix"][0].tier == tier
    return out


def _example(relative):
    import importlib.metadata

    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return rd.models.example_robot_data(relative)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", [*(m for m in MODEL_NAMES if m != "delta"), "ur5", "panda"])
def test_every_tier_gives_the_compiled_answer(name, monkeypatch):
    """The NumPy flavour runs the compiled program's statements in its order, sines and
    cosines included (trig_numpy): the same doubles. The generic kernel runs the
    algorithm itself: the same to rounding (1e-15 relative to the largest entry)."""
    source = {"ur5": lambda: _example("ur_description/urdf/ur5_robot.urdf"),
              "panda": lambda: _example("panda_description/urdf/panda.urdf")}.get(
                  name, lambda: name)()
    compiled = _results(source, "compiled", monkeypatch)
    for a, b in zip(compiled, _results(source, "numpy", monkeypatch)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(compiled, _results(source, "generic", monkeypatch)):
        assert np.max(np.abs(a - b)) <= 1e-15 * max(1.0, np.max(np.abs(a)))
    # and they are the dynamics: FD(ID(qdd)) gives qdd back, M symmetric
    tau, m, *_ = compiled
    np.testing.assert_allclose(m, np.swapaxes(m, -1, -2), rtol=0, atol=1e-12)


def test_trig_numpy_is_trig_bit_for_bit():
    """trig_numpy's sine and cosine are trig's (the compiled kernels'), argument for
    argument, large and special arguments included; both within 1 ulp of the C library."""
    from robodyn.codegen import trig, trig_numpy

    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-10, 10, 2000), rng.uniform(-1e6, 1e6, 500),
                        [0.0, -0.0, np.pi / 4, 1e7, -3e9, np.inf, -np.inf, np.nan]])
    s, c = trig_numpy.sincos(x)
    expected = np.array([trig.sincos(v) for v in x])
    np.testing.assert_array_equal(s, expected[:, 0])
    np.testing.assert_array_equal(c, expected[:, 1])
    finite = np.isfinite(x)
    assert np.all(np.abs(s[finite] - np.sin(x[finite])) <= np.spacing(np.abs(np.sin(x[finite]))))


def _chain_urdf(n: int) -> str:
    """A URDF chain of ``n`` revolute joints, axes z, y, x in turn, each link 0.1 m long
    with a mass of 1 kg and a diagonal inertia."""
    links = ['<link name="l0"/>']
    joints = []
    axes = ["0 0 1", "0 1 0", "1 0 0"]
    for i in range(1, n + 1):
        links.append(
            f'<link name="l{i}"><inertial><origin xyz="0.05 0.01 0" rpy="0 0 0"/>'
            f'<mass value="{1.0 + 0.01 * i}"/><inertia ixx="0.01" ixy="0" ixz="0" '
            'iyy="0.012" iyz="0" izz="0.014"/></inertial></link>')
        joints.append(
            f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
            f'<child link="l{i}"/><origin xyz="0.1 0 0.02" rpy="0 0 0"/>'
            f'<axis xyz="{axes[i % 3]}"/><limit lower="-3" upper="3" effort="1" '
            'velocity="1"/></joint>')
    return f'<robot name="chain{n}">' + "".join(links + joints) + "</robot>"


def test_a_150_joint_chain_answers_without_compiling_and_matches_pinocchio(tmp_path,
                                                                           monkeypatch):
    """Above COMPILE_MAX_DOF, auto runs the generic tier: no compile (a 150-joint M would
    compile for more than 850 s); ID, M and FD against Pinocchio on the same URDF."""
    pin = pytest.importorskip("pinocchio")
    monkeypatch.setenv("ROBODYN_TIER", "auto")
    path = tmp_path / "chain150.urdf"
    path.write_text(_chain_urdf(150))
    robot = rd.load(path)
    assert robot.dof == 150 > tiers.COMPILE_MAX_DOF
    model = pin.buildModelFromUrdf(str(path))
    model.gravity = pin.Motion(np.array([0.0, 0, -9.81, 0, 0, 0]))
    data = model.createData()
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.uniform(-1, 1, (3, 150))
    tau = robot.inverse_dynamics(q, qd, qdd)
    assert robot.runner._entries["inverse_dynamics"][0].tier == "generic"
    expected = pin.rnea(model, data, q, qd, qdd)
    np.testing.assert_allclose(tau, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())
    m = robot.mass_matrix(q)
    pm = pin.crba(model, data, q)
    pm = np.triu(pm) + np.triu(pm, 1).T
    np.testing.assert_allclose(m, pm, rtol=0, atol=1e-10 * np.abs(pm).max())
    # the articulated-body algorithm above ABA_MIN_DOF: against Pinocchio's aba, and
    # giving back the qdd the torques came from
    qdd_back = robot.forward_dynamics(q, qd, tau)
    np.testing.assert_allclose(qdd_back, pin.aba(model, data, q, qd, tau), rtol=0, atol=1e-7)
    np.testing.assert_allclose(qdd_back, qdd, rtol=0, atol=1e-7)
    assert not robot.runner._pending and tiers.background_process() is None


def test_a_200_joint_derive_is_refused_with_its_estimate_before_expanding():
    from robodyn.symbolic.estimate import MAX_ESTIMATED_TERMS, estimated_terms

    n = 200
    robot = rd.Robot.from_dh([(0.1, 1.2 * (i % 2), 0.05, 0.0) for i in range(n)],
                             masses=[1.0] * n, values={"g": 9.81}, name="chain200")
    # the lower bound of the module docstring: sum over depths d of d (d + 1) (2 d + 1) / 6
    expected = sum(sum(m * m for m in range(1, d + 1)) for d in range(1, n + 1))
    assert estimated_terms(robot.chain) == expected > MAX_ESTIMATED_TERMS
    start = time.perf_counter()
    with pytest.raises(rd.ModelError, match=rf"at least {expected:,} terms .*budget of "
                                            rf"{MAX_ESTIMATED_TERMS:,}"):
        robot.equations()
    assert time.perf_counter() - start < 5  # refused before expanding, not after


def test_the_estimate_is_a_lower_bound_of_a_small_chains_terms():
    """A 3-joint spatial chain: its derived M holds at least the estimated terms."""
    import sympy as sp

    from robodyn.symbolic.estimate import estimated_terms

    robot = rd.Robot.from_dh([(0.3, 1.5707963267948966, 0.1, 0.0)] * 3, masses=["m1", "m2", "m3"],
                             com=[("c1", 0, 0), ("c2", 0, 0), ("c3", 0, 0)],
                             values={"g": 9.81, "m1": 1, "m2": 1, "m3": 1, "c1": 0.1,
                                     "c2": 0.1, "c3": 0.1}, name="spatial3")
    eq = robot.equations()
    terms = sum(len(sp.Add.make_args(sp.expand(e))) for e in eq.M)
    assert estimated_terms(robot.chain) == 1 + 5 + 14 <= terms


def _job(robot, kind="inverse_dynamics"):
    traced = traced_program(robot.chain, kind, robot.runner.parameter_names)
    source = compiled_source(*traced, len(robot.runner.parameter_names))
    return source, {"source": source, "widths": [w for _, w in traced[1]],
                    "params": len(robot.runner.parameter_names), "width": len(traced[2])}


def _auto_run(script: str, tmp_path, timeout: float) -> list[str]:
    """The words ``script`` prints, run in the ``auto`` tier with an empty kernel cache."""
    env = {**os.environ, "ROBODYN_TIER": "auto", "ROBODYN_CACHE_DIR": str(tmp_path / "c"),
           "PYTHONPATH": SRC}
    done = run_bounded(["-c", script], timeout=timeout, memory_mb=4096, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.slow
def test_a_background_compile_is_picked_up_and_answers_the_same(tmp_path):
    """auto with an empty cache: the first call answers from the NumPy tier, the process
    switches to the compiled kernel once the background compiler marks it ready, and the
    answers are the same doubles."""
    script = (
        "import time, numpy as np, robodyn as rd\n"
        "r = rd.load('planar-2r')\n"
        "q = np.array([0.3, -0.7]); qd = np.array([0.2, 0.5]); qdd = np.array([1.0, -2.0])\n"
        "first = r.inverse_dynamics(q, qd, qdd)\n"
        "handle = r.kernel('inverse_dynamics')\n"
        "tiers = [r.runner._entries['inverse_dynamics'][0].tier, handle.kernel.tier]\n"
        "deadline = time.monotonic() + 240\n"
        "while tiers[-1] != 'compiled' and time.monotonic() < deadline:\n"
        "    time.sleep(0.2); last = handle(q, qd, qdd)\n"
        "    tiers.append(handle.kernel.tier)\n"
        "print(tiers[0], tiers[1], tiers[-1], handle.one is not None, (first == last).all(),\n"
        "      (first == r.inverse_dynamics(q, qd, qdd)).all())\n")
    # the handle made in the NumPy tier switches too, to the one-state compiled function
    assert _auto_run(script, tmp_path, 280) == ["numpy", "numpy", "compiled", "True", "True",
                                                "True"]


@pytest.mark.slow
def test_a_killed_background_compiler_leaves_nothing_read_and_the_next_run_goes_on(tmp_path):
    """Kill the background compiler in the middle of a compile: no ready mark, no lock
    held (flock dies with its process), and the next process answers at once from the
    NumPy tier, then compiles it in the foreground (ROBODYN_TIER=compiled) without
    waiting on the dead one."""
    robot = rd.load("puma560")
    source, job = _job(robot, "mass_matrix")
    cache_dir = tmp_path / "c"
    env = {**os.environ, "ROBODYN_CACHE_DIR": str(cache_dir), "PYTHONPATH": SRC}
    child = subprocess.Popen([sys.executable, "-m", "robodyn.codegen.background"],
                             stdin=subprocess.PIPE, text=True, env=env)
    child.stdin.write(json.dumps(job) + "\n")
    child.stdin.flush()
    digest = cache._digest(source)
    deadline = time.monotonic() + 60
    lock = None
    while time.monotonic() < deadline and lock is None:  # the compile has begun
        found = list(cache_dir.rglob(f"k_{digest}.lock"))
        lock = found[0] if found else None
        time.sleep(0.05)
    assert lock is not None
    time.sleep(0.5)
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    kernels = lock.parent
    assert not (kernels / f"k_{digest}.ok").exists()
    script = (
        "import time, numpy as np, robodyn as rd, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "r = rd.load('puma560'); q = np.linspace(-1, 1, 6)\n"
        "t = time.perf_counter(); m = r.mass_matrix(q)\n"
        "print(r.runner._entries['mass_matrix'][0].tier, time.perf_counter() - t < 20,\n"
        "      bool(np.allclose(m, m.T, atol=1e-12)), bool(np.all(np.linalg.eigvalsh(m) > 0)))\n")
    done = run_bounded(["-c", script], timeout=60, memory_mb=4096,
                       env={**env, "ROBODYN_TIER": "auto"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["numpy", "True", "True", "True"]
    # the foreground compile takes the lock at once (the dead compiler's lock is gone)
    script = ("import numpy as np, robodyn as rd, warnings\nwarnings.simplefilter('ignore')\n"
              "r = rd.load('puma560'); m = r.mass_matrix(np.linspace(-1, 1, 6))\n"
              "print(r.runner._entries['mass_matrix'][0].tier)\n")
    done = run_bounded(["-c", script], timeout=240, memory_mb=4096,
                       env={**env, "ROBODYN_TIER": "compiled"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["compiled"]
    assert (kernels / f"k_{digest}.ok").exists()


def test_an_unknown_tier_is_refused_with_the_choices(monkeypatch):
    monkeypatch.setenv("ROBODYN_TIER", "fast")
    with pytest.raises(rd.RobodynError, match="ROBODYN_TIER='fast'.*auto, compiled, numpy, "
                                              "generic"):
        rd.load("planar-2r").inverse_dynamics([0, 0], [0, 0], [0, 0])


@pytest.mark.slow
def test_robodyn_compile_builds_ahead_and_the_next_run_starts_compiled(tmp_path, monkeypatch,
                                                                        capsys):
    """``robodyn compile`` fills the cache and marks the kernel ready: a later process
    (auto) answers its first calls from the NumPy tier without importing Numba (a short
    script never pays for it), then loads the compiled kernel, with no background
    compiler."""

    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(tmp_path / "c"))
    # in a process of its own: this one may hold planar-2r's kernel already (compiled by
    # an earlier test into another cache), which compile would not write again
    compiled = run_bounded(["-m", "robodyn", "compile", "planar-2r", "--kinds",
                            "gravity_torques"], timeout=120, memory_mb=4096,
                           env={**os.environ, "PYTHONPATH": SRC})
    assert compiled.returncode == 0, compiled.stderr
    assert compiled.stdout.startswith("planar-2r: gravity_torques ")
    script = ("import sys, time, numpy as np, robodyn as rd\n"
              "from robodyn.codegen import tiers\n"
              "r = rd.load('planar-2r'); q = np.array([0.3, 0.2]); g = r.gravity_torques(q)\n"
              "first = r.runner._entries['gravity_torques'][0].tier, 'numba' in sys.modules\n"
              "deadline = time.monotonic() + 60\n"
              "while r.runner._entries['gravity_torques'][0].tier != 'compiled' "
              "and time.monotonic() < deadline:\n"
              "    time.sleep(0.05); later = r.gravity_torques(q)\n"
              "print(*first, r.runner._entries['gravity_torques'][0].tier, "
              "(later == g).all(), tiers.background_process() is None)\n")
    done = run_bounded(["-c", script], timeout=90, memory_mb=4096,
                       env={**os.environ, "ROBODYN_TIER": "auto", "PYTHONPATH": SRC})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["numpy", "False", "compiled", "True", "True"]


@pytest.mark.slow
def test_two_compilers_given_one_kernel_compile_it_once(tmp_path):
    """Two background compilers started on the same kernel at once: the lock lets one
    compile; the other waits, finds it ready and compiles nothing."""
    _, job = _job(rd.load("rp-arm"), "gravity_torques")
    env = {**os.environ, "ROBODYN_CACHE_DIR": str(tmp_path / "c"), "PYTHONPATH": SRC}
    children = [subprocess.Popen([sys.executable, "-m", "robodyn.codegen.background"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 env=env) for _ in range(2)]
    outputs = [child.communicate(json.dumps(job) + "\n", timeout=240)[0].split()
               for child in children]
    assert sorted(outputs) == [["compiled"], ["ready"]]


def test_robodyn_compile_leaves_a_model_above_the_limit_to_the_generic_tier(tmp_path, capsys):
    from robodyn.cli.app import main

    path = tmp_path / "chain70.urdf"
    path.write_text(_chain_urdf(tiers.COMPILE_MAX_DOF + 6))
    assert main(["compile", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"70 degrees of freedom, more than {tiers.COMPILE_MAX_DOF}: not compiled" in out
    assert "--large" in out


def _tree_urdf(n: int, seed: int = 0) -> str:
    """:func:`_chain_urdf` with each body on one of the 5 bodies before it (a deep tree:
    depth in the hundreds for 1 000 bodies)."""
    rng = np.random.default_rng(seed)
    text = _chain_urdf(n)
    for i in range(1, n + 1):
        p = int(rng.integers(max(0, i - 5), i))
        text = text.replace(f'<parent link="l{i - 1}"/><child link="l{i}"/>',
                            f'<parent link="l{p}"/><child link="l{i}"/>')
    return text


def test_a_200_body_tree_in_the_generic_tier_matches_pinocchio(tmp_path, monkeypatch):
    """A deep tree above COMPILE_MAX_DOF: the generic tier's ID, M and FD (the
    articulated-body algorithm) against Pinocchio on the same URDF (Pinocchio's data of a
    1 000-body tree needs more than 6 GB: 200 bodies, 0.6 GB)."""
    pin = pytest.importorskip("pinocchio")
    monkeypatch.setenv("ROBODYN_TIER", "auto")
    path = tmp_path / "tree200.urdf"
    path.write_text(_tree_urdf(200))
    robot = rd.load(path)
    model = pin.buildModelFromUrdf(str(path))
    assert robot.dof == model.nv == 200
    # Pinocchio numbers the joints depth first: robodyn's joint i is its coordinate perm[i]
    perm = np.array([model.idx_vs[model.getJointId(link.joint.name)] for link in robot.links])
    model.gravity = pin.Motion(np.array([0.0, 0, -9.81, 0, 0, 0]))
    data = model.createData()
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.uniform(-1, 1, (3, 200))

    def theirs(x):
        out = np.empty(200)
        out[perm] = x
        return out

    tau = robot.inverse_dynamics(q, qd, qdd)
    expected = pin.rnea(model, data, theirs(q), theirs(qd), theirs(qdd))[perm]
    np.testing.assert_allclose(tau, expected, rtol=0, atol=1e-9 * np.abs(expected).max())
    pm = pin.crba(model, data, theirs(q))
    pm = (np.triu(pm) + np.triu(pm, 1).T)[np.ix_(perm, perm)]
    np.testing.assert_allclose(robot.mass_matrix(q), pm, rtol=0, atol=1e-9 * np.abs(pm).max())
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau),
                               pin.aba(model, data, theirs(q), theirs(qd), theirs(tau))[perm],
                               rtol=0, atol=1e-7)
    assert robot.runner._entries["forward_dynamics"][0].tier == "generic"


@pytest.mark.slow
def test_a_1000_body_tree_answers_in_the_generic_tier(tmp_path, monkeypatch):
    """The tree that hit Numba's RecursionError (issue 30): ID, M and FD without a compile;
    M symmetric positive definite, FD undoes ID, M qdd = ID(q, 0, qdd) - ID(q, 0, 0)."""
    monkeypatch.setenv("ROBODYN_TIER", "auto")
    path = tmp_path / "tree1000.urdf"
    path.write_text(_tree_urdf(1000))
    robot = rd.load(path)
    rng = np.random.default_rng(6)
    q, qd, qdd = rng.uniform(-1, 1, (3, 1000))
    tau = robot.inverse_dynamics(q, qd, qdd)
    m = robot.mass_matrix(q)
    np.testing.assert_array_equal(m, m.T)
    assert np.linalg.eigvalsh(m).min() > 0
    zero = np.zeros(1000)
    np.testing.assert_allclose(m @ qdd, robot.inverse_dynamics(q, zero, qdd)
                               - robot.inverse_dynamics(q, zero, zero), rtol=0,
                               atol=1e-9 * np.abs(tau).max())
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau), qdd, rtol=0, atol=1e-6)
    assert {robot.runner._entries[k][0].tier for k in
            ("inverse_dynamics", "mass_matrix", "forward_dynamics")} == {"generic"}


def test_a_big_model_simulates_without_compiling(tmp_path, monkeypatch):
    """A simulation's compiled loop would compile the 100-joint forward dynamics (many
    minutes): above COMPILE_MAX_DOF the loop steps in Python on the generic tier. An
    unforced chain without gravity from rest stays at rest; one pushed keeps its energy
    (RK4's error)."""
    monkeypatch.setenv("ROBODYN_TIER", "auto")
    path = tmp_path / "chain100.urdf"
    path.write_text(_chain_urdf(100))
    robot = rd.load(path)
    assert robot.dof == 100 > tiers.COMPILE_MAX_DOF
    q0 = np.random.default_rng(1).uniform(-0.5, 0.5, 100)
    qd0 = np.zeros(100)
    qd0[:3] = 0.3
    sim = rd.simulate(robot, q0, qd0=qd0, duration=0.02, dt=0.005)
    energy = (robot.kinetic_energy(sim.q, sim.qd) + robot.potential_energy(sim.q))
    assert np.abs(energy - energy[0]).max() < 1e-6 * max(1.0, abs(energy[0]))
    assert robot.runner._entries["forward_dynamics"][0].tier == "generic"
    assert not robot.runner._pending and tiers.background_process() is None


@pytest.mark.slow
def test_auto_steps_a_short_first_simulation_in_python_and_compiles_a_long_one(tmp_path):
    """auto with an empty cache: a short simulation steps in Python on the NumPy tier
    (Numba not even imported) while the background compiler builds its kernels; one whose
    Python steps would take longer than compiling (LOOP_COMPILE_SECONDS) compiles its loop
    at once. Both loops give the same motion."""
    script = (
        "import sys, numpy as np, robodyn as rd\n"
        "from robodyn.codegen import tiers\n"
        "r = rd.load('planar-3r')\n"
        "run = lambda: rd.simulate(r, [0.3, -0.2, 0.1], duration=0.2, dt=1e-3,\n"
        "                          progress=False, check_limits=False)\n"
        "a = run()\n"
        "first = a.info['compiled'], 'numba' in sys.modules\n"
        "tiers.LOOP_COMPILE_SECONDS = 0.0  # every estimate exceeds it\n"
        "b = run()\n"
        "print(*first, b.info['compiled'], np.abs(a.q - b.q).max() < 1e-10)\n")
    assert _auto_run(script, tmp_path, 240) == ["False", "False", "True", "True"]


def test_the_sine_of_one_python_float_is_the_arrays_bit_for_bit():
    """A one-state call of the NumPy tier takes its sines on Python floats (14x faster
    than NumPy's scalars): the same statements on the same doubles, so the same bits as
    the array path (and so as the compiled kernels), signed zeros, large arguments,
    infinities and NaN included."""
    from robodyn.codegen import trig_numpy

    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(-10, 10, 20000), rng.uniform(-1e6, 1e6, 2000),
                         np.arange(-8, 9) * np.pi / 4,
                         [0.0, -0.0, 1e300, -1e300, np.inf, -np.inf, np.nan]])
    sines, cosines = trig_numpy.sincos(xs)
    one = np.array([trig_numpy.sincos(x) for x in xs.tolist()])
    assert one.dtype == np.float64
    small = [trig_numpy.sincos(xs[k:k + size].reshape(shape))  # small arrays: per value
             for k, (size, shape) in enumerate(((1, ()), (1, (1,)), (6, (2, 3)), (16, (16,))))]
    for k, (size, shape) in enumerate(((1, ()), (1, (1,)), (6, (2, 3)), (16, (16,)))):
        assert small[k][0].shape == shape
        np.testing.assert_array_equal(small[k][0].ravel(), sines[k:k + size])
        np.testing.assert_array_equal(small[k][1].ravel(), cosines[k:k + size])
    for got, want in ((one[:, 0], sines), (one[:, 1], cosines)):
        np.testing.assert_array_equal(got, want)  # NaN where NaN
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 kept
