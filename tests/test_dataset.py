"""``robodyn dataset``: random states within the joint limits and their torques, written
in chunks, resumable after an interruption (issue 11)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.cli_dataset import write_dataset
from robodyn.errors import InputError

URDF = Path(__file__).parent / "data" / "urdf" / "rpc_branch.urdf"


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
        import zarr  # noqa: F401, PLC0415
    except ImportError:
        assert main(["dataset", "planar-2r", "--samples", "5", "--out",
                     str(tmp_path / "d.zarr")]) == 2
        assert "needs the zarr package" in capsys.readouterr().err
    else:
        write_dataset(robot, tmp_path / "d.zarr", 25, chunk=10)

