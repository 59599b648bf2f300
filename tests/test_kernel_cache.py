"""The kernel cache never runs code it did not write, and survives damage.

Reproductions of issue 7: a shared ``/tmp`` fallback, a kernel file planted or
truncated in the cache, a broken Numba install, a stale thread pool after fork.
"""

from __future__ import annotations

import multiprocessing
import os
import stat
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from robodyn import robot as robot_module
from robodyn.codegen import kernels
from robodyn.errors import RobodynError

ROOT = Path(__file__).resolve().parents[1]


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A new cache directory, and no kernel kept in memory from earlier tests."""
    path = tmp_path / "cache"
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(path))
    monkeypatch.setattr(kernels, "_loaded", {})
    monkeypatch.setattr(robot_module, "_SHARED_KERNELS", type(robot_module._SHARED_KERNELS)())
    return path


def test_cache_directory_is_created_private(fresh_cache):
    assert kernels.cache_dir() == fresh_cache
    assert _mode(fresh_cache) == 0o700
    assert os.stat(fresh_cache).st_uid == os.getuid()


def test_an_open_cache_directory_is_emptied_and_made_private(fresh_cache):
    fresh_cache.mkdir()
    (fresh_cache / "kernels").mkdir()
    planted = fresh_cache / "kernels" / "k_0123.py"
    planted.write_text("raise SystemExit('planted')\n")
    os.chmod(fresh_cache, 0o777)
    assert kernels.cache_dir() == fresh_cache
    assert _mode(fresh_cache) == 0o700
    assert not planted.exists()


def test_a_cache_path_that_is_a_file_warns_once_and_uses_a_private_directory(tmp_path,
                                                                            monkeypatch):
    target = tmp_path / "not-a-dir"
    target.write_text("x")
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(target))
    with pytest.warns(RuntimeWarning, match="is not a directory"):
        path = kernels.cache_dir()
    assert path != target and _mode(path) == 0o700
    assert path.name != "robodyn-cache"  # the old shared fallback, $TMPDIR/robodyn-cache
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kernels.cache_dir() == path  # no second warning
    assert target.read_text() == "x"  # the user's file is left alone


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="needs root to give a directory to another user")
def test_a_cache_directory_of_another_user_is_never_used(tmp_path, monkeypatch):
    other = tmp_path / "theirs"
    other.mkdir(mode=0o700)
    os.chown(other, 12345, 12345)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(other))
    with pytest.warns(RuntimeWarning, match="belongs to another user"):
        path = kernels.cache_dir()
    assert path != other


@pytest.mark.skipif(hasattr(os, "getuid") and os.getuid() == 0,
                    reason="root writes into read-only directories")
def test_a_read_only_cache_directory_warns(tmp_path, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(ro))
    with pytest.warns(RuntimeWarning, match="not writable"):
        assert kernels.cache_dir() != ro


def test_cache_dir_never_falls_back_when_called_repeatedly(fresh_cache):
    # the old shared `.write-test` probe raced between processes and fell back to /tmp
    for _ in range(200):
        kernels._cache_dirs.clear()
        assert kernels.cache_dir() == fresh_cache
    assert not any(p.name.startswith(".write-test") for p in fresh_cache.iterdir())


def test_a_planted_kernel_file_is_never_run(fresh_cache, tmp_path):
    marker = tmp_path / "ran"
    source = "def kernel(*args):\n    return -1\n"
    digest = "feedfacefeedfacefeedface"
    folder = kernels.cache_dir() / "kernels"
    folder.mkdir(exist_ok=True)
    (folder / f"k_{digest}.py").write_text(
        f"open({str(marker)!r}, 'w').write('owned')\n" + source)
    fn = kernels._load_module(source, digest)
    assert fn() == -1
    assert not marker.exists()
    assert (folder / f"k_{digest}.py").read_text() == source  # repaired
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_truncated_kernel_file_is_detected_and_repaired(fresh_cache, monkeypatch, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    monkeypatch.setenv("ROBODYN_BACKEND", backend)
    robot = rd.load("puma560")
    rng = np.random.default_rng(1)
    q, qd, tau = rng.normal(size=(3, 20, 6))
    expected = robot.forward_dynamics(q, qd, tau)
    files = list((fresh_cache / "kernels").glob("k_*.py"))
    assert files
    for path in files:
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(lines[:-4] + lines[-1:]))  # three statements cut out
    monkeypatch.setattr(kernels, "_loaded", {})
    monkeypatch.setattr(robot_module, "_SHARED_KERNELS", type(robot_module._SHARED_KERNELS)())
    again = rd.load("puma560").forward_dynamics(q, qd, tau)
    np.testing.assert_array_equal(again, expected)


def _run(code: str, env: dict, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_a_corrupted_numba_cache_is_rebuilt_not_trusted(tmp_path):
    pytest.importorskip("numba")
    env = {**os.environ, "ROBODYN_CACHE_DIR": str(tmp_path / "cache")}
    code = """
        import numpy as np, robodyn as rd
        print(repr(rd.load("pendulum").mass_matrix(np.array([0.3])).item()))
    """
    first = _run(code, env)
    assert first.returncode == 0, first.stderr
    numba_files = list((tmp_path / "cache" / "kernels" / "__pycache__").glob("k_*"))
    assert numba_files, "Numba should cache next to the kernel file, in the private directory"
    for path in numba_files:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    second = _run(code, env)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout


def test_a_broken_numba_install_falls_back_to_numpy_with_one_warning(tmp_path):
    fake = tmp_path / "fake" / "numba"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        "raise ImportError('Numba needs NumPy 1.0 or older (simulated version mismatch)')\n")
    env = {**os.environ, "ROBODYN_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), str(ROOT / "src")])}
    code = """
        import warnings
        warnings.simplefilter("always")
        import numpy as np, robodyn as rd
        r = rd.load("planar-2r")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = r.mass_matrix(np.array([0.1, 0.7]))
            r.inverse_dynamics(np.zeros(2), np.zeros(2), np.zeros(2))
        print(len([w for w in caught if "Numba" in str(w.message)]))
        print(repr(m.tolist()))
    """
    result = _run(code, env)
    assert result.returncode == 0, result.stderr
    count, matrix = result.stdout.strip().splitlines()
    assert count == "1"
    # seed 003: M11 = I1 + m1 c1^2 + I2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2), M22 = I2 + m2 c2^2
    v = rd.load("planar-2r").values
    q2 = 0.7
    m11 = v["I1"] + v["m1"] * v["c1"] ** 2 + v["I2"] + v["m2"] * (
        v["l1"] ** 2 + v["c2"] ** 2 + 2 * v["l1"] * v["c2"] * np.cos(q2))
    m12 = v["I2"] + v["m2"] * (v["c2"] ** 2 + v["l1"] * v["c2"] * np.cos(q2))
    m22 = v["I2"] + v["m2"] * v["c2"] ** 2
    np.testing.assert_allclose(eval(matrix), [[m11, m12], [m12, m22]], rtol=1e-12)


def _batched_torques(n: int) -> float:
    robot = rd.load("planar-3r")
    q = np.linspace(0, 1, 3 * n).reshape(n, 3)
    return float(robot.inverse_dynamics(q, q, q).sum())


def test_a_forked_child_can_run_large_batches(monkeypatch):
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    monkeypatch.setenv("ROBODYN_NUM_THREADS", "2")
    parent = _batched_torques(kernels.THREAD_MIN_BATCH + 100)  # starts the thread pool
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map_async(_batched_torques, [kernels.THREAD_MIN_BATCH + 100] * 2)
        assert results.get(timeout=120) == [parent, parent]


@pytest.mark.parametrize("value", ["abc", "0", "-2", "1.5"])
def test_a_bad_thread_count_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv("ROBODYN_NUM_THREADS", value)
    robot = rd.load("planar-2r")
    q = np.zeros((kernels.THREAD_MIN_BATCH, 2))
    with pytest.raises(RobodynError, match="ROBODYN_NUM_THREADS=.* is not a positive integer"):
        robot.inverse_dynamics(q, q, q)


def test_an_unknown_backend_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("ROBODYN_BACKEND", "cuda")
    with pytest.raises(RobodynError, match="ROBODYN_BACKEND='cuda' is not a backend"):
        kernels.backend()
