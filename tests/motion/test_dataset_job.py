"""``rd.dataset``: the Python entry point of the dataset job (robodyn.motion.dataset). The
stored torques are the inverse dynamics of the stored states, checked against a second
route (``M qdd + C qd + g + friction``); bad arguments are refused before anything is
written; an interrupted run resumes to the data of an uninterrupted one. The command's
own tests (files, locks, corruption, sizes) are tests/cli/test_dataset.py's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion.dataset import write_dataset


class Stop(Exception):
    pass


def load(out: Path) -> dict:
    with np.load(out) as data:
        return {name: data[name] for name in data.files}


def test_the_stored_torques_are_the_inverse_dynamics_of_the_stored_states(tmp_path,
                                                                          numpy_backend):
    robot = rd.load("planar-2r")
    out = tmp_path / "states.npz"
    assert rd.dataset(robot, out, 250, chunk=100, seed=3, mass_matrix=True) == 3  # chunks
    data = load(out)
    assert sorted(data) == ["M", "q", "qd", "qdd", "tau"]
    q, qd, qdd, tau = data["q"], data["qd"], data["qdd"], data["tau"]
    assert q.shape == qd.shape == qdd.shape == tau.shape == (250, 2)
    assert data["M"].shape == (250, 2, 2)
    assert all(a.dtype == np.float64 for a in data.values())
    np.testing.assert_array_equal(tau, robot.inverse_dynamics(q, qd, qdd))
    np.testing.assert_array_equal(data["M"], robot.mass_matrix(q))
    # a second route to the same torques: M qdd + C qd + g + friction, term by term
    terms = (np.einsum("nij,nj->ni", robot.mass_matrix(q), qdd)
             + np.einsum("nij,nj->ni", robot.coriolis_matrix(q, qd), qd)
             + robot.gravity_torques(q) + robot.friction_torques(qd))
    np.testing.assert_allclose(tau, terms, rtol=1e-10, atol=1e-10)
    # the documented recipe: chunk k from default_rng([seed, k]), q in [-pi, pi] here
    rng = np.random.default_rng([3, 1])
    np.testing.assert_array_equal(q[100:200], rng.uniform(-np.pi, np.pi, (100, 2)))
    np.testing.assert_array_equal(qd[100:200], rng.standard_normal((100, 2)))
    assert not (tmp_path / "states.npz.parts").exists()


@pytest.mark.parametrize("settings, message", [
    ({"samples": 0}, r"--samples: expected a positive integer, got 0"),
    ({"samples": -5}, r"--samples: expected a positive integer, got -5"),
    ({"samples": 2.5}, r"--samples: expected a positive integer, got 2.5"),
    ({"samples": True}, r"--samples: expected a positive integer, got True"),
    ({"chunk": 0}, r"--chunk: expected a positive integer, got 0"),
    ({"seed": -1}, r"--seed: expected an integer from 0 to 2\*\*64 - 1, got -1"),
    ({"seed": 2**64}, r"--seed: expected an integer from 0 to 2\*\*64 - 1"),
    ({"out": 3}, r"--out: expected a file name \(str or Path\), got 3"),
    ({"out": "states.csv"}, r"--out 'states.csv': give a file name ending in .npz or .zarr"),
])
def test_bad_arguments_are_input_errors_and_write_nothing(tmp_path, monkeypatch, settings,
                                                          message):
    monkeypatch.chdir(tmp_path)
    arguments = {"out": "states.npz", "samples": 20, **settings}
    with pytest.raises(InputError, match=message):
        rd.dataset(rd.load("planar-2r"), arguments.pop("out"), arguments.pop("samples"),
                   **arguments)
    assert list(tmp_path.iterdir()) == []


def test_a_file_of_the_users_at_out_is_refused_and_kept(tmp_path):
    out = tmp_path / "mine.npz"
    out.write_bytes(b"my data")
    with pytest.raises(InputError, match=r"mine.npz' already exists; delete it"):
        rd.dataset(rd.load("planar-2r"), out, 20)
    assert out.read_bytes() == b"my data"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.npz"]


def test_an_interrupted_run_resumes_to_the_data_of_an_uninterrupted_one(tmp_path,
                                                                       numpy_backend):
    robot = rd.load("planar-3r")
    assert rd.dataset(robot, tmp_path / "whole.npz", 95, chunk=20, seed=8) == 5

    out = tmp_path / "resumed.npz"

    def stop_after_two(k):
        if k == 1:
            raise Stop

    with pytest.raises(Stop):
        write_dataset(robot, out, 95, chunk=20, seed=8, on_chunk=stop_after_two)
    assert not out.exists()
    assert len(list((tmp_path / "resumed.npz.parts").glob("chunk-*.npz"))) == 2
    with pytest.raises(InputError, match=r"other settings: seed 8 \(now 9\)"):
        rd.dataset(robot, out, 95, chunk=20, seed=9)
    computed = []
    assert write_dataset(robot, out, 95, chunk=20, seed=8, on_chunk=computed.append) == 3
    assert computed == [2, 3, 4]
    resumed, reference = load(out), load(tmp_path / "whole.npz")
    assert sorted(resumed) == sorted(reference) == ["q", "qd", "qdd", "tau"]
    for name, value in reference.items():
        np.testing.assert_array_equal(resumed[name], value, err_msg=name)
    assert not (tmp_path / "resumed.npz.parts").exists()


def test_dataset_is_public():
    assert "dataset" in rd.__all__ and rd.dataset.__module__ == "robodyn.motion.dataset"


DRONE = """
    name: drone
    floating: true
    gravity: [0, 0, -9.81]
    base: {mass: 1.5, com: [0, 0, 0], inertia: [0.02, 0.03, 0.05, 0, 0, 0]}
    links: []
    """


def test_a_dataset_of_a_free_body_holds_unit_quaternions_and_newton_euler_wrenches(
        tmp_path, numpy_backend):
    """``robodyn dataset`` of a drone (one free joint): ``q`` of 7 values, the orientation
    uniform on SO(3) (the mean of the rotation matrices tends to 0), the position in
    ``[-1, 1]^3``, and each stored wrench the body's Newton-Euler equations in its own frame
    ``f = m (v' + w x v) - m R^T g``, ``n = I w' + w x I w`` (by hand, COM at the origin)."""
    from scipy.spatial.transform import Rotation

    from conftest import write_model
    from robodyn.cli import main

    model = write_model(tmp_path, DRONE)
    out = tmp_path / "drone.npz"
    assert main(["dataset", str(model), "--samples", "4000", "--chunk", "1500",
                 "--out", str(out)]) == 0
    data = load(out)
    q, v, a, tau = data["q"], data["qd"], data["qdd"], data["tau"]
    assert q.shape == (4000, 7) and v.shape == a.shape == tau.shape == (4000, 6)
    np.testing.assert_allclose(np.linalg.norm(q[:, 3:], axis=1), 1.0, atol=1e-14)
    assert np.abs(q[:, :3]).max() <= 1.0 and np.abs(q[:, :3]).max() > 0.99
    R = Rotation.from_quat(q[:, 3:]).as_matrix()  # scalar last, as robodyn's (x, y, z, w)
    assert np.abs(R.mean(axis=0)).max() < 0.05  # uniform on SO(3): E[R] = 0
    m, inertia = 1.5, np.diag([0.02, 0.03, 0.05])
    g = np.einsum("kji,j->ki", R, [0, 0, -9.81])  # R^T g
    force = m * (a[:, :3] + np.cross(v[:, 3:], v[:, :3]) - g)
    torque = a[:, 3:] @ inertia + np.cross(v[:, 3:], v[:, 3:] @ inertia)
    np.testing.assert_allclose(tau, np.hstack([force, torque]), rtol=1e-12, atol=1e-12)
