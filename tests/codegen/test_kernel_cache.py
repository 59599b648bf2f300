"""The kernel cache never runs code it did not write, and survives damage.

Reproductions of issue 7: a shared ``/tmp`` fallback, a kernel file planted or
truncated in the cache, a broken Numba install, a stale thread pool after fork. Of
issue 15: a shared directory (or ``/tmp``, as root) emptied and chmod-ed by the cache
setup; now it is never changed and the cache goes into a private ``robodyn-<uid>``.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import ROOT
from robodyn.codegen import cache, threads
from robodyn.codegen import kernel as kernels
from robodyn.codegen import runner as runner_module
from robodyn.core.errors import RobodynError

# Numba's cache and the compiled kernels' checks: compiled (the suite's default is NumPy)
pytestmark = pytest.mark.usefixtures("compiled_tier")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A new cache directory, and no kernel kept in memory from earlier tests."""
    path = tmp_path / "cache"
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(path))
    monkeypatch.setattr(cache, "_loaded", {})
    monkeypatch.setattr(runner_module, "_SHARED_KERNELS", type(runner_module._SHARED_KERNELS)())
    return path


def test_cache_directory_is_created_private(fresh_cache):
    assert cache.cache_dir() == fresh_cache
    assert _mode(fresh_cache) == 0o700
    assert os.stat(fresh_cache).st_uid == os.getuid()


def test_an_open_cache_directory_is_left_alone_and_a_private_subdirectory_used(fresh_cache):
    fresh_cache.mkdir()
    (fresh_cache / "kernels").mkdir()
    planted = fresh_cache / "kernels" / f"k_{'0' * 24}.py"
    planted.write_text("raise SystemExit('planted')\n")
    os.chmod(fresh_cache, 0o777)
    path = cache.cache_dir()
    assert path == fresh_cache / f"robodyn-{os.getuid()}"
    assert _mode(path) == 0o700 and not path.is_symlink()
    assert _mode(fresh_cache) == 0o777  # never chmod-ed
    assert planted.read_text() == "raise SystemExit('planted')\n"  # never read, never deleted


def test_a_cache_path_that_is_a_file_warns_once_and_uses_a_private_directory(tmp_path,
                                                                            monkeypatch):
    target = tmp_path / "not-a-dir"
    target.write_text("x")
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(target))
    with pytest.warns(RuntimeWarning, match="is not a directory"):
        path = cache.cache_dir()
    assert path != target and _mode(path) == 0o700
    assert path.name != "robodyn-cache"  # the old shared fallback, $TMPDIR/robodyn-cache
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.cache_dir() == path  # no second warning
    assert target.read_text() == "x"  # the user's file is left alone


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="needs root to give a directory to another user")
def test_a_cache_directory_of_another_user_is_never_used(tmp_path, monkeypatch):
    other = tmp_path / "theirs"
    other.mkdir(mode=0o700)
    os.chown(other, 12345, 12345)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(other))
    with pytest.warns(RuntimeWarning, match="belongs to another user"):
        path = cache.cache_dir()
    assert path != other


@pytest.mark.skipif(hasattr(os, "getuid") and os.getuid() == 0,
                    reason="root writes into read-only directories")
def test_a_read_only_cache_directory_warns(tmp_path, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(ro))
    with pytest.warns(RuntimeWarning, match="not writable"):
        assert cache.cache_dir() != ro


def test_cache_dir_never_falls_back_when_called_repeatedly(fresh_cache):
    # the old shared `.write-test` probe raced between processes and fell back to /tmp
    for _ in range(200):
        cache._cache_dirs.clear()
        assert cache.cache_dir() == fresh_cache
    assert not any(p.name.startswith(".write-test") for p in fresh_cache.iterdir())


def test_a_planted_kernel_file_is_never_run(fresh_cache, tmp_path):
    marker = tmp_path / "ran"
    source = "def kernel(*args):\n    return -1\n"
    digest = "feedfacefeedfacefeedface"
    folder = cache.cache_dir() / "kernels"
    folder.mkdir(exist_ok=True)
    (folder / f"k_{digest}.py").write_text(
        f"open({str(marker)!r}, 'w').write('owned')\n" + source)
    fn = cache._load_module(source, digest)
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
    monkeypatch.setattr(cache, "_loaded", {})
    monkeypatch.setattr(runner_module, "_SHARED_KERNELS", type(runner_module._SHARED_KERNELS)())
    again = rd.load("puma560").forward_dynamics(q, qd, tau)
    np.testing.assert_array_equal(again, expected)


def _run(code: str, env: dict, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_the_thread_pool_grows_to_the_threads_asked_for_and_is_reused(monkeypatch):
    import threading

    monkeypatch.setattr(threads, "_pool", None)
    monkeypatch.setattr(threads, "_pool_workers", 0)
    two = threads.shared_pool(2)
    assert threads.shared_pool(2) is two and threads.shared_pool(1) is two
    three = threads.shared_pool(3)
    assert three is not two and threads.shared_pool(3) is three
    # three tasks that wait for each other finish only if three threads run at once
    meet = threading.Barrier(3, timeout=20)
    futures = [three.submit(meet.wait) for _ in range(3)]
    assert sorted(f.result(timeout=30) for f in futures) == [0, 1, 2]
    two.shutdown()
    three.shutdown()


def test_an_unknown_backend_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("ROBODYN_BACKEND", "cuda")
    with pytest.raises(RobodynError, match="ROBODYN_BACKEND='cuda' is not a backend"):
        kernels.backend()


# -- issue 15: the cache never changes a directory robodyn did not make -------------------
DIGEST = "0123456789abcdef01234567"
SUB = f"robodyn-{os.getuid()}" if hasattr(os, "getuid") else None
IS_ROOT = hasattr(os, "getuid") and os.getuid() == 0
as_root = pytest.mark.skipif(not IS_ROOT, reason="needs root to give files to another user")
posix = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")


def _snapshot(root: Path, skip: str | None = None) -> dict:
    """Every entry under ``root`` (``root`` itself as '.'): its type, mode, owner and
    contents or link target, not following links; ``skip`` leaves out one top-level name."""
    found = {}
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root and skip in dirs:
            dirs.remove(skip)
        for name in [".", *dirs, *files] if Path(folder) == root else [*dirs, *files]:
            path = Path(folder) / name
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                content = ("link", os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                content = ("file", path.read_bytes())
            else:
                content = ("dir", None)
            found[str(path.relative_to(root))] = (content, st.st_mode, st.st_uid, st.st_gid)
    return found


def _user_files(root: Path) -> None:
    """A directory of someone's work, with names that look like robodyn's."""
    (root / "src" / "sub").mkdir(parents=True)
    (root / "thesis.tex").write_text("\\\\documentclass{article}\n")
    (root / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (root / f"k_{DIGEST}.py").write_text("# not robodyn's\n")
    (root / "kernels" / "__pycache__").mkdir(parents=True)
    (root / "kernels" / f"k_{DIGEST}.py").write_text("# not robodyn's either\n")
    (root / "kernels" / "__pycache__" / f"k_{DIGEST}.kernel-6.py311.nbi").write_bytes(b"\0")


def _check_pendulum_gravity() -> None:
    # I qdd + F qd + m g l sin q = tau: at rest the torque is m g l sin q
    robot = rd.load("pendulum")
    v = robot.values
    q = np.array([0.1, -0.7, 2.0])
    tau = robot.gravity_torques(q[:, None])
    np.testing.assert_allclose(tau[:, 0], v["m"] * v["g"] * v["l"] * np.sin(q), rtol=1e-12)


@pytest.fixture
def fresh_numpy(fresh_cache, monkeypatch):
    """``fresh_cache`` on the NumPy backend (these tests are about files, not Numba)."""
    monkeypatch.setenv("ROBODYN_BACKEND", "numpy")
    return fresh_cache


@posix
@pytest.mark.parametrize("mode", [0o2775, 0o777, 0o755], ids=oct)
def test_a_shared_directory_of_other_files_is_never_changed(fresh_numpy, monkeypatch, mode):
    # issue 15, 1: thesis.tex and src/ were deleted and the directory made 0700
    shared = fresh_numpy.parent / "shared"
    shared.mkdir()
    _user_files(shared)
    os.chmod(shared, mode)
    before = _snapshot(shared)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(shared))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _check_pendulum_gravity()
    assert cache.cache_dir() == shared / SUB
    assert _snapshot(shared, skip=SUB) == before
    # 0700 (a setgid parent passes its setgid bit on, harmless: the group has no access)
    assert _mode(shared / SUB) & 0o777 == 0o700 and not (shared / SUB).is_symlink()
    assert list((shared / SUB / "kernels").glob("k_*.py"))


@posix
@pytest.mark.parametrize("owner", ["self", "other"] if IS_ROOT else ["self"])
def test_a_sticky_tmp_is_never_emptied_or_chmod_ed(fresh_numpy, monkeypatch, owner):
    # issue 15, 1: as root, ROBODYN_CACHE_DIR=/tmp emptied /tmp for every user
    tmp = fresh_numpy.parent / "tmp"
    tmp.mkdir()
    _user_files(tmp)
    (tmp / "robodyn-12345").mkdir(mode=0o700)  # another user's cache
    if owner == "other":
        for path in [tmp / "robodyn-12345", *tmp.rglob("*")]:
            os.lchown(path, 12345, 12345)
    os.chmod(tmp, 0o1777)
    before = _snapshot(tmp)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(tmp))
    _check_pendulum_gravity()
    assert cache.cache_dir() == tmp / SUB
    assert _snapshot(tmp, skip=SUB) == before
    assert _mode(tmp) == 0o1777


@contextlib.contextmanager
def _fence(monkeypatch, allowed: Path):
    """Make every delete, rename and chmod outside ``allowed`` fail the test instead of
    happening: a regression of robodyn must not get to empty the real /tmp (the old code
    did, for every user, when run as root)."""
    allowed = Path(os.path.abspath(allowed))

    def inside(path) -> bool:
        return not isinstance(path, int) and Path(os.path.abspath(path)).is_relative_to(allowed)

    def guarded(patch, module, name, paths):
        real = getattr(module, name)

        def call(*args, **kwargs):
            if kwargs.get("dir_fd") is not None or not all(inside(a) for a in args[:paths]):
                raise AssertionError(f"{name}{args[:paths]!r} outside {allowed}")
            return real(*args, **kwargs)
        patch.setattr(module, name, call)

    with monkeypatch.context() as patch:
        for name, paths in (("unlink", 1), ("remove", 1), ("rmdir", 1), ("chmod", 1),
                            ("lchown", 1), ("chown", 1), ("replace", 2), ("rename", 2)):
            guarded(patch, os, name, paths)
        guarded(patch, shutil, "rmtree", 1)
        yield


def test_the_fence_stops_a_delete_outside(monkeypatch, tmp_path):
    keep = tmp_path / "keep"
    keep.write_text("x")
    with _fence(monkeypatch, tmp_path / "allowed"), pytest.raises(AssertionError):
        keep.unlink()
    assert keep.read_text() == "x"


@posix
def test_the_real_tmp_keeps_its_mode_and_files(fresh_numpy, monkeypatch):
    tmp = Path("/tmp")
    mine = tmp / SUB
    if (mine.exists() or mine.is_symlink()) and cache._private_problem(mine):
        pytest.skip(f"{mine} is left from elsewhere and is not private")
    existed = mine.exists()
    fd, sentinel = tempfile.mkstemp(dir=tmp, prefix="robodyn-test-sentinel-")
    os.write(fd, b"keep me")
    os.close(fd)
    mode = os.stat(tmp).st_mode
    try:
        monkeypatch.setenv("ROBODYN_CACHE_DIR", "/tmp")
        with _fence(monkeypatch, mine):
            _check_pendulum_gravity()
            assert cache.cache_dir() == mine
        assert os.stat(tmp).st_mode == mode
        assert Path(sentinel).read_bytes() == b"keep me"
    finally:
        os.unlink(sentinel)
        if not existed:
            cache._remove_own_files(mine)


@posix
@pytest.mark.parametrize("target", ["a directory of mine", "a file", "nothing"])
def test_a_planted_subdirectory_symlink_is_never_followed(fresh_numpy, monkeypatch, target):
    shared = fresh_numpy.parent / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    elsewhere = fresh_numpy.parent / "elsewhere"
    if target == "a directory of mine":
        elsewhere.mkdir(mode=0o700)
        (elsewhere / "notes.txt").write_text("mine\n")
    elif target == "a file":
        elsewhere.write_text("mine\n")
    os.symlink(elsewhere, shared / SUB)
    before = _snapshot(fresh_numpy.parent)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(shared))
    with pytest.warns(RuntimeWarning, match=f"{SUB} is a symbolic link"):
        path = cache.cache_dir()
    assert _mode(path) == 0o700 and not path.is_relative_to(fresh_numpy.parent)
    _check_pendulum_gravity()
    assert _snapshot(fresh_numpy.parent) == before  # nothing written through the link


@posix
@pytest.mark.parametrize("mode", [0o777, 0o755], ids=oct)
def test_a_stale_subdirectory_open_to_others_is_refused_untouched(fresh_numpy, monkeypatch,
                                                                  mode):
    # Decided: robodyn makes robodyn-<uid> 0700 (a umask only removes bits), so another
    # mode means someone else changed it and may have planted files in it; robodyn cannot
    # tell its files from planted ones, so it neither chmods nor empties it: it warns
    # (naming the fix) and caches in a private temporary directory.
    shared = fresh_numpy.parent / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    stale = shared / SUB
    (stale / "kernels").mkdir(parents=True)
    (stale / "kernels" / f"k_{DIGEST}.py").write_text("raise SystemExit('planted')\n")
    os.chmod(stale, mode)
    before = _snapshot(shared)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(shared))
    with pytest.warns(RuntimeWarning, match=f"{SUB} is open to other users .mode {mode:o}.*"
                                            "remove it"):
        path = cache.cache_dir()
    assert not path.is_relative_to(shared) and _mode(path) == 0o700
    _check_pendulum_gravity()
    assert _snapshot(shared) == before


@as_root
def test_a_subdirectory_of_another_user_is_refused(fresh_numpy, monkeypatch):
    shared = fresh_numpy.parent / "shared"
    (shared / SUB).mkdir(parents=True, mode=0o700)
    os.chown(shared / SUB, 12345, 12345)
    os.chmod(shared, 0o1777)
    before = _snapshot(shared)
    monkeypatch.setenv("ROBODYN_CACHE_DIR", str(shared))
    with pytest.warns(RuntimeWarning, match=f"{SUB} belongs to another user .uid 12345"):
        path = cache.cache_dir()
    assert not path.is_relative_to(shared)
    _check_pendulum_gravity()
    assert _snapshot(shared) == before


def _robodyn_files_and_others(root: Path, outside: Path) -> list[Path]:
    """Foreign entries in cache directory ``root`` (links to ``outside`` among them) beside
    robodyn's own; returns the foreign ones."""
    folder = root / "kernels"
    outside.write_text("outside\n")
    foreign = [root / "notes.txt", folder / "notes.py", folder / f"k_{DIGEST}.py",
               folder / "__pycache__" / f"k_{DIGEST}.kernel-6.py311.nbi",
               folder / "__pycache__" / f"k_{DIGEST}.notes", folder / "__pycache__" / "x.nbi"]
    for path in foreign:
        if path.name.startswith("k_") and path.suffix in (".py", ".nbi"):
            os.symlink(outside, path)  # robodyn's names, but links: never followed nor removed
        else:
            path.write_text("mine\n")
    return foreign


def test_the_temporary_cache_cleanup_removes_only_robodyn_files(fresh_numpy, tmp_path):
    _check_pendulum_gravity()
    ours = list((fresh_numpy / "kernels").glob("k_*.py"))
    assert ours
    (fresh_numpy / "kernels" / "__pycache__").mkdir()
    numba_file = fresh_numpy / "kernels" / "__pycache__" / f"{ours[0].stem}.kernel-6.py311.nbi"
    numba_file.write_bytes(b"index")
    cache._remove_temporary_cache(fresh_numpy, os.getpid() + 1)  # a forked child: no-op
    assert numba_file.exists()
    foreign = _robodyn_files_and_others(fresh_numpy, tmp_path / "outside.txt")
    cache._remove_temporary_cache(fresh_numpy, os.getpid())
    assert not numba_file.exists() and not any(p.exists() for p in ours)
    assert all(p.is_symlink() or p.exists() for p in foreign)
    assert (tmp_path / "outside.txt").read_text() == "outside\n"
    # with only robodyn's files in it, the whole directory goes
    for path in foreign:
        path.unlink()
    cache._remove_own_files(fresh_numpy)
    assert not fresh_numpy.exists()


@pytest.mark.slow
def test_the_temporary_cache_is_cleaned_at_exit(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "ROBODYN_CACHE_DIR": str(target), "ROBODYN_BACKEND": "numpy",
           "TMPDIR": str(tmp_path / "tmp")}
    code = """
        import warnings
        warnings.simplefilter("ignore")
        import numpy as np, robodyn as rd
        from robodyn.codegen import cache
        print(rd.load("pendulum").gravity_torques(np.array([[0.3]])).item())
        print(cache.cache_dir())
        (cache.cache_dir() / "kernels" / "mine.txt").write_text("mine")
    """
    result = _run(code, env, timeout=60)
    assert result.returncode == 0, result.stderr
    value, path = result.stdout.split()
    v = rd.load("pendulum").values
    assert float(value) == pytest.approx(v["m"] * v["g"] * v["l"] * np.sin(0.3), rel=1e-12)
    path = Path(path)
    assert path.is_relative_to(tmp_path / "tmp")
    assert [p.name for p in path.rglob("*")] == ["kernels", "mine.txt"]  # kernels gone
    assert target.read_text() == "x"


def test_a_numba_purge_removes_only_numba_files_of_that_kernel(tmp_path):
    folder = tmp_path / "kernels" / "__pycache__"
    folder.mkdir(parents=True)
    (tmp_path / "outside").write_text("outside\n")
    own = [folder / f"k_{DIGEST}.kernel-6.py311.nbi", folder / f"k_{DIGEST}.kernel-6.py311.1.nbc"]
    others = [folder / f"k_{DIGEST}.notes", folder / f"k_{'f' * 24}.kernel-6.py311.nbi"]
    for path in own + others:
        path.write_bytes(b"x")
    link = folder / f"k_{DIGEST}.kernel-7.py311.nbi"
    os.symlink(tmp_path / "outside", link)
    cache._purge_numba_cache(tmp_path / "kernels" / f"k_{DIGEST}.py")
    assert not any(p.exists() for p in own)
    assert all(p.exists() for p in others) and link.is_symlink()
    assert (tmp_path / "outside").read_text() == "outside\n"


_AS_NOBODY = """
    import json, os, sys, warnings
    from pathlib import Path
    import numpy as np, robodyn as rd
    from robodyn.codegen import cache
    v = rd.load("pendulum").values  # the loaders imported while the library is readable
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    out = {}
    for name in sys.argv[1:]:
        os.environ["ROBODYN_CACHE_DIR"] = name
        cache._cache_dirs.clear()
        cache._loaded.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tau = rd.load("pendulum").gravity_torques(np.array([[0.4]])).item()
        out[name] = [str(cache.cache_dir()), [str(w.message) for w in caught],
                     tau - v["m"] * v["g"] * v["l"] * np.sin(0.4)]
    print(json.dumps(out))
"""


@pytest.mark.slow
@as_root
def test_as_another_user_shared_and_sticky_directories_are_never_changed():
    try:
        import pwd  # POSIX only

        pwd.getpwuid(65534)
    except (ImportError, KeyError):
        pytest.skip("no user 'nobody' (uid 65534)")
    base = Path(tempfile.mkdtemp(prefix="robodyn-test-nobody-"))  # reachable by nobody
    try:
        os.chmod(base, 0o755)
        shared, tmp, planted, linked = (base / n for n in ("shared", "tmp", "planted", "linked"))
        _user_files(shared)
        for path in [shared, *shared.rglob("*")]:
            os.lchown(path, 65534, 65534)
        os.chmod(shared, 0o2775)
        for path in (tmp, planted, linked):
            _user_files(path)
            os.chmod(path, 0o1777)  # root's sticky directories, like /tmp
        (planted / "robodyn-65534").mkdir(mode=0o700)  # planted by root, not by nobody
        os.symlink(shared, linked / "robodyn-65534")
        (base / "t").mkdir()
        os.chown(base / "t", 65534, 65534)
        before = {p: _snapshot(p, skip="robodyn-65534") for p in (shared, tmp, planted, linked)}
        env = {**os.environ, "ROBODYN_BACKEND": "numpy", "TMPDIR": str(base / "t")}
        result = subprocess.run([sys.executable, "-c", textwrap.dedent(_AS_NOBODY), str(shared),
                                 str(tmp), str(planted), str(linked)], env=env,
                                capture_output=True, text=True, timeout=60, cwd=base)
        assert result.returncode == 0, result.stderr
        out = json.loads(result.stdout)
        for path in (shared, tmp, planted, linked):
            assert _snapshot(path, skip="robodyn-65534") == before[path]
            assert abs(out[str(path)][2]) < 1e-12
        for path in (shared, tmp):
            assert out[str(path)][0] == str(path / "robodyn-65534")
            assert out[str(path)][1] == []
            sub = path / "robodyn-65534"
            assert os.lstat(sub).st_uid == 65534 and _mode(sub) & 0o777 == 0o700
        for path, why in ((planted, "belongs to another user .uid 0."),
                          (linked, "is a symbolic link")):
            used, caught, _ = out[str(path)]
            assert Path(used).is_relative_to(base / "t")
            assert len(caught) == 1 and re.search(f"robodyn-65534 {why}", caught[0])
        assert not (shared / "robodyn-65534" / "robodyn-65534").exists()  # link not followed
        assert not list((base / "t").iterdir())  # the temporary caches went at exit
    finally:
        shutil.rmtree(base)


def test_an_atomic_write_is_private_whole_and_leaves_nothing_when_it_fails(tmp_path,
                                                                           monkeypatch):
    """The kernel cache writes through ``.<name>.<hex>.tmp`` (its own exclusive create, no
    tempfile import): the file appears whole with mode 0600, a failed rename leaves the old
    file as it was and no temporary file, and the temporary names are ones the cleanup
    knows as robodyn's (``_KERNEL_TEMP_NAME``)."""
    target = tmp_path / f"k_{'a' * 24}.py"
    cache._write_atomically(target, "x = 1\n")
    assert target.read_text() == "x = 1\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    seen = []

    def failing_replace(src, dst):
        seen.append(Path(src).name)
        raise OSError("disk full")

    monkeypatch.setattr(cache.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        cache._write_atomically(target, "x = 2\n")
    assert target.read_text() == "x = 1\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert len(seen) == 1 and cache._KERNEL_TEMP_NAME.fullmatch(seen[0]), seen
