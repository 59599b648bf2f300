"""``robodyn dataset``: random states within the joint limits and their torques, written
in chunks, resumable after an interruption (issue 11)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import TEST_DATA
from robodyn.cli import main
from robodyn.core.errors import InputError, RobodynError
from robodyn.motion.dataset import write_dataset

URDF = TEST_DATA / "urdf" / "rpc_branch.urdf"


class Stop(Exception):
    pass


def test_dataset_values_and_limits(tmp_path, capsys):
    out = tmp_path / "d.npz"
    assert main(["dataset", str(URDF), "--tip", "tool", "--samples", "250", "--chunk", "100",
                 "--out", str(out), "--mass-matrix"]) == 0
    assert "3 chunks computed now" in capsys.readouterr().err
    robot = rd.load(URDF, tip="tool")
    with np.load(out) as d:
        data = {k: d[k] for k in d.files}
    assert sorted(data) == ["M", "q", "qd", "qdd", "tau"]
    assert data["q"].shape == (250, robot.dof) and data["M"].shape == (250, robot.dof, robot.dof)
    np.testing.assert_array_equal(data["tau"], robot.inverse_dynamics(data["q"], data["qd"],
                                                                       data["qdd"]))
    np.testing.assert_array_equal(data["M"], robot.mass_matrix(data["q"]))
    finite = 0
    for j, link in enumerate(robot.links):  # limits where known, else [-pi, pi]
        lo, hi = link.joint.limits[:2] if link.joint.limits else (-np.inf, np.inf)
        if not np.isfinite([lo, hi]).all():
            lo, hi = -np.pi, np.pi
        else:
            finite += 1
        assert lo <= data["q"][:, j].min() and data["q"][:, j].max() <= hi
        assert data["q"][:, j].max() - data["q"][:, j].min() > 0.8 * (hi - lo)  # spread
    assert finite >= 2  # the file has limited joints (and a continuous one)
    assert not (tmp_path / "d.npz.parts").exists()


def test_interrupted_run_resumes_and_gives_the_same_data(tmp_path, capsys):
    robot = rd.load("planar-3r")
    whole = tmp_path / "whole.npz"
    write_dataset(robot, whole, 1000, chunk=128, seed=4)

    out = tmp_path / "resumed.npz"
    seen = []

    def interrupt(k):
        seen.append(k)
        if len(seen) == 3:
            raise Stop

    with pytest.raises(Stop):
        write_dataset(robot, out, 1000, chunk=128, seed=4, on_chunk=interrupt)
    parts = sorted(p.name for p in (tmp_path / "resumed.npz.parts").glob("chunk-*.npz"))
    assert parts == ["chunk-000000.npz", "chunk-000001.npz", "chunk-000002.npz"]
    assert not out.exists()

    computed = []
    assert write_dataset(robot, out, 1000, chunk=128, seed=4, on_chunk=computed.append) == 5
    assert computed == [3, 4, 5, 6, 7]  # the finished chunks were skipped
    with np.load(whole) as a, np.load(out) as b:
        assert a.files == b.files
        for name in a.files:
            np.testing.assert_array_equal(a[name], b[name])


def test_resume_with_other_settings_is_refused(tmp_path):
    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    with pytest.raises(Stop):
        write_dataset(robot, out, 100, chunk=10, on_chunk=lambda k: (_ for _ in ()).throw(Stop))
    with pytest.raises(InputError, match=r"other settings: chunk 10 \(now 20\)"):
        write_dataset(robot, out, 100, chunk=20)


def test_bad_output_names_are_clear_errors(tmp_path, capsys):
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match="ending in .npz or .zarr"):
        write_dataset(robot, tmp_path / "d.csv", 10)
    with pytest.raises(InputError, match="--samples"):
        write_dataset(robot, tmp_path / "d.npz", 0)
    (tmp_path / "old.npz").write_bytes(b"")
    with pytest.raises(InputError, match="already exists"):
        write_dataset(robot, tmp_path / "old.npz", 10)
    try:
        import zarr  # noqa: F401
    except ImportError:
        assert main(["dataset", "planar-2r", "--samples", "5", "--out",
                     str(tmp_path / "d.zarr")]) == 2
        assert "needs the zarr package" in capsys.readouterr().err
    else:
        write_dataset(robot, tmp_path / "d.zarr", 25, chunk=10)



# -- issue 15: resume verifies what it finds, never loses or mixes data ------------------

SRC = Path(rd.__file__).resolve().parents[1]


def drawn(robot, samples: int, chunk: int, seed: int) -> dict:
    """The dataset an uninterrupted run must give, drawn here from the documented recipe
    (chunk ``k`` from ``default_rng([seed, k])``: q uniform in [-pi, pi] for these models
    without limits, qd and qdd standard normal), torques from the inverse dynamics."""
    assert all(link.joint.limits is None for link in robot.links)
    parts = []
    for k in range(-(-samples // chunk)):
        size = min(chunk, samples - k * chunk)
        rng = np.random.default_rng([seed, k])
        parts.append((rng.uniform(-np.pi, np.pi, (size, robot.dof)),
                      rng.standard_normal((size, robot.dof)),
                      rng.standard_normal((size, robot.dof))))
    q, qd, qdd = (np.concatenate(x) for x in zip(*parts))
    return {"q": q, "qd": qd, "qdd": qdd, "tau": robot.inverse_dynamics(q, qd, qdd)}


def assert_dataset(out: Path, robot, samples: int, chunk: int, seed: int) -> None:
    """``out`` holds exactly the data of the run, and the parts are gone."""
    want = drawn(robot, samples, chunk, seed)
    with np.load(out) as d:
        assert sorted(d.files) == sorted(want)
        for name, value in want.items():
            assert d[name].dtype == np.float64
            np.testing.assert_array_equal(d[name], value, err_msg=name)
    assert not out.with_name(out.name + ".parts").exists()


def interrupted(robot, out: Path, samples: int, chunk: int, seed: int, after: int) -> Path:
    """Stop a run after ``after`` finished chunks; return its parts directory."""
    seen = []

    def stop(k):
        seen.append(k)
        if len(seen) == after:
            raise Stop

    with pytest.raises(Stop):
        write_dataset(robot, out, samples, chunk=chunk, seed=seed, on_chunk=stop)
    return out.with_name(out.name + ".parts")


def error_line(capsys) -> str:
    """The command's standard error, which must be one line ``robodyn: error: ...``."""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("robodyn: error: "), err
    return err


def _five_rows(path: Path) -> None:
    with np.load(path) as d:
        arrays = {k: d[k][:5] for k in d.files}
    np.savez(path, **arrays)


def _float32(path: Path) -> None:
    with np.load(path) as d:
        arrays = {k: d[k].astype(np.float32) for k in d.files}
    np.savez(path, **arrays)


def _other_values(path: Path) -> None:
    with np.load(path) as d:
        arrays = {k: d[k] + 1.0 for k in d.files}
    np.savez(path, **arrays)


def _bit_flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


CORRUPTIONS = {
    "five rows": _five_rows,
    "float32": _float32,
    "other values": _other_values,
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
    "bit flip": _bit_flip,
    "empty file": lambda p: p.write_bytes(b""),
    "not a zip": lambda p: p.write_bytes(b"these are not the chunks you are looking for\n" * 9),
    "no record": lambda p: p.with_suffix(".json").unlink(),
    "garbage record": lambda p: p.with_suffix(".json").write_bytes(b"{\x00garbage"),
    "another chunk's record": lambda p: p.with_suffix(".json").write_bytes(
        p.with_name("chunk-000002.json").read_bytes()),
    "file missing": lambda p: p.unlink(),
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS)
def test_a_bad_finished_chunk_is_computed_again(tmp_path, capsys, numpy_backend, corrupt):
    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    parts = interrupted(robot, out, 50, 10, 3, after=3)
    CORRUPTIONS[corrupt](parts / "chunk-000001.npz")
    assert main(["dataset", "planar-2r", "--samples", "50", "--chunk", "10", "--seed", "3",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "chunk-000001.npz in" in err and "computing it again" in err, err
    assert "chunk-000000" not in err and "chunk-000002" not in err
    assert "(3 chunks computed now)" in err  # chunk 1 again, chunks 3 and 4
    assert_dataset(out, robot, 50, 10, 3)


def test_the_records_give_shapes_dtypes_and_the_hash(tmp_path, numpy_backend):
    robot = rd.load("planar-3r")
    parts = interrupted(robot, tmp_path / "d.npz", 25, 10, 0, after=3)
    manifest = json.loads((parts / "manifest.json").read_text())
    assert {k: manifest[k] for k in ("samples", "chunk", "seed", "dof", "model")} == \
        {"samples": 25, "chunk": 10, "seed": 0, "dof": 3, "model": "planar-3r"}
    for k, rows in enumerate([10, 10, 5]):
        path = parts / f"chunk-{k:06d}.npz"
        record = json.loads(path.with_suffix(".json").read_text())
        assert record["rows"] == rows and record["chunk"] == k
        assert record["arrays"] == {name: {"shape": [rows, 3], "dtype": "<f8"}
                                    for name in ("q", "qd", "qdd", "tau")}
        assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert sorted(p.name for p in parts.iterdir()) == [
        "chunk-000000.json", "chunk-000000.npz", "chunk-000001.json", "chunk-000001.npz",
        "chunk-000002.json", "chunk-000002.npz", "manifest.json", "robodyn.lock"]


MANIFESTS = {
    "deleted": None,
    "not json": b"{not json",
    "a list": b"[]",
    "null": b"null",
    "format null": b'{"format": null, "seed": 0}',
    "not utf-8": b"\xff\xfe\x00{",
    "an older format": b'{"format": "robodyn-dataset-1", "seed": 0}',
}


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_a_missing_or_unreadable_manifest_is_an_error_and_the_parts_stay(
        tmp_path, capsys, numpy_backend, manifest):
    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    parts = interrupted(robot, out, 40, 10, 0, after=2)
    if MANIFESTS[manifest] is None:
        (parts / "manifest.json").unlink()
    else:
        (parts / "manifest.json").write_bytes(MANIFESTS[manifest])
    before = {p.name: p.read_bytes() for p in parts.iterdir() if p.name.startswith("chunk")}
    # resuming with another seed must not mix seed-0 chunks into a seed-1 set
    assert main(["dataset", "planar-2r", "--samples", "40", "--chunk", "10", "--seed", "1",
                 "--out", str(out)]) == 2
    err = error_line(capsys)
    assert "format None" not in err
    if manifest == "deleted":
        assert "4 chunk files but no manifest.json" in err
    else:
        assert "manifest unreadable" in err
    assert "delete" in err and "d.npz.parts" in err  # what to do
    assert {p.name: p.read_bytes() for p in parts.iterdir() if p.name.startswith("chunk")} \
        == before
    assert not out.exists()


@pytest.mark.parametrize("change, message", [
    ({"seed": 1}, r"seed 0 \(now 1\)"),
    ({"samples": 50}, r"samples 40 \(now 50\)"),
    ({"chunk": 20}, r"chunk 10 \(now 20\)"),
    ({"model": "my-arm"}, r"model 'planar-2r' \(now 'my-arm'\)"),
    ({"mass_matrix": True}, r"arrays \['q', 'qd', 'qdd', 'tau'\] \(now \['q', 'qd', 'qdd',"),
    ({"robot": rd.load("planar-2r").with_values(m2=3.0)}, r"the model's dynamics"),
])
def test_resuming_with_other_settings_names_the_difference(tmp_path, numpy_backend, change,
                                                           message):
    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    interrupted(robot, out, 40, 10, 0, after=2)
    settings = {"robot": robot, "samples": 40, "chunk": 10, "seed": 0, "model": "planar-2r",
                **change}
    with pytest.raises(InputError, match="other settings: " + message):
        write_dataset(settings.pop("robot"), out, settings.pop("samples"), **settings)
    assert len(list(out.with_name("d.npz.parts").glob("chunk-*.npz"))) == 2


def test_a_resumed_run_accepts_the_model_within_rounding(tmp_path, monkeypatch, numpy_backend):
    """Another backend may compute the model's fingerprint in the manifest a few ulps
    apart: that is the same model, and the finished chunks are kept."""
    import robodyn.motion.dataset as cd

    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    interrupted(robot, out, 40, 10, 1, after=2)
    real = cd._dynamics_probe
    monkeypatch.setattr(cd, "_dynamics_probe",
                        lambda r: [v * (1 + 4e-16) + 1e-300 for v in real(r)])
    assert write_dataset(robot, out, 40, chunk=10, seed=1) == 2
    assert_dataset(out, robot, 40, 10, 1)


def test_the_parts_are_deleted_only_after_the_final_file_reads_back(tmp_path, monkeypatch,
                                                                    numpy_backend):
    import robodyn.motion.dataset_files as files

    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    real = files._npz_problem
    # the merged file fails its check (as a disk that lost a write would make it)
    monkeypatch.setattr(files, "_npz_problem", lambda path, shapes, digests=None:
                        "simulated" if digests else real(path, shapes, digests))
    with pytest.raises(RobodynError, match="does not read back .simulated.; the parts are kept"):
        write_dataset(robot, out, 30, chunk=10, seed=2)
    parts = tmp_path / "d.npz.parts"
    assert not out.exists() and len(list(parts.glob("chunk-*.npz"))) == 3
    assert not [p for p in parts.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.setattr(files, "_npz_problem", real)
    assert write_dataset(robot, out, 30, chunk=10, seed=2) == 0  # merged from the parts
    assert_dataset(out, robot, 30, 10, 2)


def test_a_chunk_that_changes_during_the_run_stops_the_merge(tmp_path, numpy_backend):
    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    parts = tmp_path / "d.npz.parts"

    def spoil(k):  # after the last chunk, before the merge
        if k == 2:
            _five_rows(parts / "chunk-000000.npz")

    with pytest.raises(InputError, match=r"chunk-000000.npz changed while the run was going "
                                         r"\(q is float64 of shape \(5, 2\), expected \(10, 2\)"):
        write_dataset(robot, out, 30, chunk=10, seed=2, on_chunk=spoil)
    assert not out.exists() and len(list(parts.glob("chunk-*.npz"))) == 3
    with pytest.warns(RuntimeWarning, match="chunk-000000.npz .*differ from those recorded"):
        assert write_dataset(robot, out, 30, chunk=10, seed=2) == 1
    assert_dataset(out, robot, 30, 10, 2)


def test_a_run_stopped_after_the_merge_completes_on_the_next_run(tmp_path, monkeypatch,
                                                                 numpy_backend):
    import robodyn.motion.dataset_files as files

    robot = rd.load("planar-2r")
    out = tmp_path / "d.npz"
    parts = tmp_path / "d.npz.parts"
    with monkeypatch.context() as m:  # killed between placing OUT and deleting the parts
        m.setattr(files.NpzStore, "_remove_parts", lambda self: (_ for _ in ()).throw(Stop))
        with pytest.raises(Stop):
            write_dataset(robot, out, 30, chunk=10, seed=5)
    assert out.exists() and parts.exists()
    assert write_dataset(robot, out, 30, chunk=10, seed=5) == 0
    assert_dataset(out, robot, 30, 10, 5)

    # a file of the user's at OUT is never taken for the merged one: an error, all kept
    with monkeypatch.context() as m:
        m.setattr(files.NpzStore, "_remove_parts", lambda self: (_ for _ in ()).throw(Stop))
        with pytest.raises(Stop):
            write_dataset(robot, tmp_path / "e.npz", 30, chunk=10, seed=5)
    mine = {"q": np.zeros((30, 2)), "qd": np.zeros((30, 2)), "qdd": np.zeros((30, 2)),
            "tau": np.zeros((30, 2))}
    np.savez(tmp_path / "e.npz", **mine)
    with pytest.raises(InputError, match="e.npz' already exists"):
        write_dataset(robot, tmp_path / "e.npz", 30, chunk=10, seed=5)
    with np.load(tmp_path / "e.npz") as d:
        assert not d["q"].any()
    assert len(list((tmp_path / "e.npz.parts").glob("chunk-*"))) == 6


def test_a_run_killed_during_the_cleanup_says_out_is_complete(tmp_path, monkeypatch,
                                                              numpy_backend):
    """Issue 30 section 5: killed while deleting the parts, the rerun finishes (the manifest
    goes last); with the manifest already gone (an older robodyn), it says OUT is complete."""
    import robodyn.motion.dataset_files as files

    robot = rd.load("planar-2r")
    out, parts = tmp_path / "d.npz", tmp_path / "d.npz.parts"
    real_unlink = Path.unlink
    deleted = []

    def unlink_once(self, missing_ok=False):  # killed after the cleanup deleted one file
        if self.parent == parts and out.exists():
            if deleted:
                raise Stop
            deleted.append(self)
        return real_unlink(self, missing_ok=missing_ok)

    with monkeypatch.context() as m:
        m.setattr(Path, "unlink", unlink_once)
        with pytest.raises(Stop):
            write_dataset(robot, out, 30, chunk=10, seed=5)
    assert (parts / "manifest.json").exists() and out.exists()
    assert write_dataset(robot, out, 30, chunk=10, seed=5) == 0
    assert not parts.exists()
    assert_dataset(out, robot, 30, 10, 5)

    with monkeypatch.context() as m:  # the state an older cleanup order could leave
        m.setattr(files.NpzStore, "_remove_parts", lambda self: (_ for _ in ()).throw(Stop))
        with pytest.raises(Stop):
            write_dataset(robot, tmp_path / "e.npz", 30, chunk=10, seed=5)
    (tmp_path / "e.npz.parts" / "manifest.json").unlink()
    with pytest.raises(InputError, match=r"e.npz' is complete .* delete .*e.npz.parts"):
        write_dataset(robot, tmp_path / "e.npz", 30, chunk=10, seed=5)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_the_final_file_respects_the_umask(tmp_path, numpy_backend, umask):
    old = os.umask(umask)
    try:
        write_dataset(rd.load("planar-2r"), tmp_path / "d.npz", 20, chunk=10)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "d.npz").stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_the_chunk_files_respect_the_umask(tmp_path, numpy_backend, umask):
    """The parts of an interrupted run (chunks, records, manifest) are the user's files
    too: mode 0o666 less the umask, as ``open()`` makes them (not mkstemp's 0o600)."""
    old = os.umask(umask)
    try:
        with pytest.raises(Stop):
            write_dataset(rd.load("planar-2r"), tmp_path / "d.npz", 30, chunk=10,
                          on_chunk=lambda k: (_ for _ in ()).throw(Stop) if k == 1 else None)
    finally:
        os.umask(old)
    parts = tmp_path / "d.npz.parts"
    files = [p for p in parts.iterdir() if p.name != "robodyn.lock"]
    assert sorted(p.name for p in files) == ["chunk-000000.json", "chunk-000000.npz",
                                             "chunk-000001.json", "chunk-000001.npz",
                                             "manifest.json"]
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask, p.name


# -- runs in other processes: a second run, a killed run ----------------------------------

def start(code: str, tmp_path: Path) -> subprocess.Popen:
    """``code`` in a fresh Python (NumPy backend, 4 GiB of address space and files of
    256 MiB at most)."""
    env = {**os.environ, "ROBODYN_BACKEND": "numpy",
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))

    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path,
                            env=env, preexec_fn=limit, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the other run did not get there: {proc.communicate()}")
        time.sleep(0.02)


@pytest.mark.slow
def test_a_second_run_into_the_same_output_fails_at_once(tmp_path, capsys, numpy_backend):
    first = start("""
        import pathlib, time, robodyn as rd
        from robodyn.motion.dataset import write_dataset

        def hold(k):
            if k == 0:
                pathlib.Path("ready").touch()
                for _ in range(3000):  # 60 s at most
                    if pathlib.Path("go").exists():
                        break
                    time.sleep(0.02)

        write_dataset(rd.load("planar-2r"), "d.npz", 30, chunk=10, seed=7, on_chunk=hold)
        """, tmp_path)
    try:
        wait_for(tmp_path / "ready", first)
        assert main(["dataset", "planar-2r", "--samples", "30", "--chunk", "10", "--seed", "7",
                     "--out", str(tmp_path / "d.npz")]) == 2
        err = error_line(capsys)
        assert f"another robodyn dataset run (pid {first.pid}) is writing it now" in err
    finally:
        (tmp_path / "go").touch()
        stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    assert_dataset(tmp_path / "d.npz", rd.load("planar-2r"), 30, 10, 7)


@pytest.mark.slow
@pytest.mark.parametrize("when", ["computing", "merging"])
def test_a_killed_run_leaves_no_stale_lock_and_no_temporary_file(tmp_path, numpy_backend, when):
    killed = start(f"""
        import os, signal, robodyn as rd
        import robodyn.motion.dataset as cd
        import robodyn.motion.dataset_files as files

        def kill(*args):
            os.kill(os.getpid(), signal.SIGKILL)

        if {when!r} == "merging":  # once the merged file is written, before it is checked
            real = files._npz_problem
            files._npz_problem = lambda p, s, d=None: kill() if d else real(p, s, d)
        cd.write_dataset(rd.load("planar-2r"), "d.npz", 30, chunk=10, seed=9,
                         on_chunk=lambda k: kill() if {when!r} == "computing" and k == 1
                         else None)
        """, tmp_path)
    killed.communicate(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    parts = tmp_path / "d.npz.parts"
    temps = [p.name for p in parts.iterdir() if p.name.endswith(".tmp")]
    assert len(temps) == (when == "merging")
    # files of the user's that look alike are not robodyn's to delete
    (parts / "notes.txt").write_text("mine")
    (tmp_path / ".final.npz.abcdefgh.tmp").write_text("mine too")
    robot = rd.load("planar-2r")
    with pytest.warns(RuntimeWarning, match="kept .*d.npz.parts.*files robodyn did not write"):
        computed = write_dataset(robot, tmp_path / "d.npz", 30, chunk=10, seed=9)
    assert computed == (1 if when == "computing" else 0)
    assert sorted(p.name for p in parts.iterdir()) == ["notes.txt"]
    assert (tmp_path / ".final.npz.abcdefgh.tmp").read_text() == "mine too"
    parts.joinpath("notes.txt").unlink()
    parts.rmdir()
    assert_dataset(tmp_path / "d.npz", robot, 30, 10, 9)


# -- sizes: checked before anything is written ---------------------------------------------

def bounded(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run ``code`` (see :func:`start`) to its end, a minute at most."""
    proc = start(code, tmp_path)
    try:
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


# the runs must stop before their first chunk: were a check missing, this stops them
NO_CHUNKS = """
    import shutil, sys
    import robodyn.motion.dataset as cd
    import robodyn.motion.dataset_files as files
    from robodyn.cli import main

    def never(*args):
        raise AssertionError("the run started")

    cd.sample_chunk = never
"""


@pytest.mark.slow
def test_a_huge_sample_count_is_checked_against_the_free_disk_space(tmp_path):
    done = bounded(NO_CHUNKS + """
    shutil.disk_usage = lambda p: shutil._ntuple_diskusage(2 * 10**9, 10**9, 10**9)
    sys.exit(main(["dataset", "planar-2r", "--samples", "1000000000000", "--out", "d.npz"]))
    """, tmp_path)
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert err.count("\n") == 1 and err.startswith("robodyn: error: "), err
    # 10**12 states of 4 x 2 floats, in the chunks and again in the final file
    assert re.search(r"--samples 1000000000000 .* needs about 128\.\d TB on disk", err), err
    assert "only 1.0 GB are free" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_huge_sample_count_starts_at_once_where_it_fits(tmp_path):
    """The to-do list is not built: the first of 10**11 chunks is written at once."""
    run = start("""
        import shutil, robodyn as rd
        from robodyn.motion.dataset import write_dataset

        shutil.disk_usage = lambda p: shutil._ntuple_diskusage(10**18, 0, 10**18)

        def stop(k):
            print("wrote chunk", k)
            raise SystemExit(0)

        write_dataset(rd.load("planar-2r"), "d.npz", 10**12, chunk=10, on_chunk=stop)
        """, tmp_path)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 0 and stdout == "wrote chunk 0\n", stderr
    assert (tmp_path / "d.npz.parts" / "chunk-000000.npz").exists()


@pytest.mark.slow
def test_the_chunk_size_is_capped_by_the_memory(tmp_path):
    # planar-2r: q, qd, qdd, tau, M: 4 x 2 + 4 floats = 96 bytes a state, held twice
    most = 10**9 // (2 * 96)
    done = bounded(NO_CHUNKS + f"""
    import robodyn as rd
    files._available_memory = lambda: 10**9
    robot = rd.load("planar-2r")
    for samples, chunk in [(10**12, {most} + 1), (10**30, {most})]:
        try:
            cd.write_dataset(robot, "d.npz", samples, chunk=chunk, mass_matrix=True)
        except rd.InputError as exc:
            print(exc)
    sys.exit(main(["dataset", "planar-2r", "--samples", str(10**12), "--chunk", str(10**12),
                   "--mass-matrix", "--out", "d.npz"]))
    """, tmp_path)
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert err.count("\n") == 1 and err.startswith("robodyn: error: "), err
    assert "--chunk 1000000000000" in err and f"use --chunk {most} or less" in err, err
    too_big, largest = done.stdout.splitlines()
    assert too_big.startswith(f"--chunk {most + 1}: ")
    assert "on disk" in largest  # the largest chunk passes the memory check
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, option", [
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**64)], "--seed"),
    (["--samples", str(10**29), "--chunk", str(10**29)], "--chunk"),
    (["--samples", "0"], "--samples"),
    (["--chunk", "-3"], "--chunk"),
    (["--out", "/proc/x.npz"], "'/proc/x.npz'"),
    (["--out", "/proc/nowhere/x.npz"], "'/proc/nowhere/x.npz'"),
])
def test_bad_options_are_one_line_and_write_nothing(tmp_path, capsys, monkeypatch,
                                                    numpy_backend, argv, option):
    monkeypatch.chdir(tmp_path)
    options = {"--samples": "20", "--chunk": "10", "--out": "d.npz",
               **dict(zip(argv[::2], argv[1::2]))}
    assert main(["dataset", "planar-2r", *[x for kv in options.items() for x in kv]]) == 2
    err = error_line(capsys)
    assert option in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_directory_where_writing_fails_is_a_clean_error(tmp_path, capsys, numpy_backend):
    """Root writes anywhere mode bits forbid; an immutable directory (chattr +i) refuses
    even root."""
    locked = tmp_path / "ro"
    locked.mkdir()
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(locked)],
                                        capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        assert main(["dataset", "planar-2r", "--samples", "20", "--chunk", "10", "--out",
                     str(locked / "d.npz")]) == 2
        err = error_line(capsys)
        assert f"cannot write '{locked / 'd.npz.parts'}': Operation not permitted" in err, err
        assert list(locked.iterdir()) == []
    finally:
        subprocess.run([chattr, "-i", str(locked)], check=True)


@pytest.mark.parametrize("error, hint", [
    (OSError(errno.EACCES, "Permission denied"), "choose a directory you can write to"),
    (OSError(errno.EROFS, "Read-only file system"), "choose a directory you can write to"),
    (OSError(errno.ENOSPC, "No space left on device"), "free some space, then rerun"),
])
def test_a_write_that_fails_midway_is_a_clean_error_and_resumes(tmp_path, capsys, monkeypatch,
                                                                numpy_backend, error, hint):
    import robodyn.motion.dataset_files as files

    robot = rd.load("planar-2r")
    calls = []
    real = np.savez

    def savez(file, **arrays):  # the third chunk fails to be written
        calls.append(1)
        if len(calls) == 3:
            raise OSError(error.errno, error.strerror)  # as a failed write says it
        real(file, **arrays)

    monkeypatch.setattr(files.np, "savez", savez)
    assert main(["dataset", "planar-2r", "--samples", "40", "--chunk", "10", "--out",
                 str(tmp_path / "d.npz")]) == 2
    err = error_line(capsys)
    assert f"d.npz.parts/chunk-000002.npz': {error.strerror}; {hint}" in err, err
    parts = tmp_path / "d.npz.parts"
    assert not [p for p in parts.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.setattr(files.np, "savez", real)
    assert write_dataset(robot, tmp_path / "d.npz", 40, chunk=10) == 2
    assert_dataset(tmp_path / "d.npz", robot, 40, 10, 0)


def test_a_zarr_run_resumes_locked_and_counts_what_it_computed(tmp_path, numpy_backend):
    zarr = pytest.importorskip("zarr")
    robot = rd.load("planar-2r")
    out = tmp_path / "d.zarr"
    interrupted(robot, out, 35, 10, 6, after=2)
    assert (tmp_path / "d.zarr.lock").exists()  # the lock file of the stopped run, unlocked
    with pytest.raises(InputError, match=r"other settings: seed 6 \(now 7\)"):
        write_dataset(robot, out, 35, chunk=10, seed=7)
    assert write_dataset(robot, out, 35, chunk=10, seed=6) == 2
    group = zarr.open_group(str(out), mode="r")
    want = drawn(robot, 35, 10, 6)
    for name, value in want.items():
        np.testing.assert_array_equal(np.asarray(group[name]), value, err_msg=name)
    assert not (tmp_path / "d.zarr.lock").exists()


@pytest.mark.parametrize("plant, message", [
    (lambda parts: (parts / "robodyn.lock").symlink_to("/etc/hostname"),
     "robodyn.lock': Too many levels of symbolic links; a symbolic link is in the way"),
    (lambda parts: (parts / "robodyn.lock").write_text("my notes"),
     "robodyn.lock' is not robodyn's lock file; move it away"),
    (lambda parts: parts.rmdir() or parts.write_text("mine"), "d.npz.parts' is in the way"),
])
def test_a_file_in_the_way_is_named_and_left_alone(tmp_path, capsys, numpy_backend, plant,
                                                   message):
    parts = tmp_path / "d.npz.parts"
    parts.mkdir()
    plant(parts)
    before = {p: p.read_bytes() for p in [parts, *(parts.iterdir() if parts.is_dir() else [])]
              if p.is_file()}
    hostname = Path("/etc/hostname").read_bytes() if Path("/etc/hostname").exists() else None
    assert main(["dataset", "planar-2r", "--samples", "20", "--out", str(tmp_path / "d.npz")]) == 2
    assert message in error_line(capsys)
    assert {p: p.read_bytes() for p in before} == before
    if hostname is not None:
        assert Path("/etc/hostname").read_bytes() == hostname
