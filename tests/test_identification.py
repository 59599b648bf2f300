"""Identification from simulated data (issue 10): excitation, base parameters within
three standard errors, torque prediction on a fresh trajectory, the physically
consistent fit, and clear errors for bad data."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.identification import consistency_problems

# values, not speed: new kernels run on the NumPy backend (no Numba compile time)
pytestmark = pytest.mark.usefixtures("numpy_backend")


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        return rd.load(name)


def _noisy(robot, ex, seed):
    """Simulated measurements: the core's torques plus 1 % (of each joint's spread) noise."""
    tau = robot.inverse_dynamics(ex.q, ex.qd, ex.qdd)
    rng = np.random.default_rng(seed)
    return tau + 0.01 * tau.std(axis=0) * rng.normal(size=tau.shape)


@pytest.mark.parametrize("name, iterations", [("planar-2r", 5), ("planar-3r", 2),
                                              ("puma560", 0)])
def test_identification_recovers_base_parameters(name, iterations):
    robot = _load(name)
    ex = rd.excitation.fourier(robot, harmonics=5, period=10, samples=400,
                               iterations=iterations)
    result = rd.identify(robot, ex.q, ex.qd, ex.qdd, _noisy(robot, ex, seed=0))
    truth = robot.base_parameters().values
    assert result.names == robot.base_parameters().base_names
    # the errors in units of the standard errors are ~N(0, 1): all within 3 (the noise is
    # drawn once, seed 0; over 52 parameters a |z| > 3 happens for some noise draws), and
    # their RMS near 1 (the standard errors are neither too small nor too large)
    z = (result.estimate - truth) / result.std_errors
    assert np.all(np.abs(z) < 3), dict(zip(result.names, np.round(z, 2)))
    assert 0.4 < np.sqrt(np.mean(z ** 2)) < 1.6
    # a fresh trajectory: predicted torques within 2 % RMS
    fresh = rd.excitation.fourier(robot, iterations=0, seed=11, period=7)
    tau = robot.inverse_dynamics(fresh.q, fresh.qd, fresh.qdd)
    err = result.predict(fresh.q, fresh.qd, fresh.qdd) - tau
    assert np.sqrt(np.mean(err ** 2)) / np.sqrt(np.mean(tau ** 2)) < 0.02
    assert np.isfinite(result.condition_number) and result.condition_number > 1


def test_excitation_is_periodic_within_limits_and_better_conditioned():
    robot = _load("planar-2r")
    limits = {"q_min": -1.0, "q_max": 1.5, "qd_max": 1.2}
    ex = rd.excitation.fourier(robot, harmonics=3, period=4, limits=limits, iterations=8)
    assert ex.condition_after < ex.condition_before
    assert np.all(ex.q >= -1.0) and np.all(ex.q <= 1.5) and np.all(np.abs(ex.qd) <= 1.2)
    q0, qd0, qdd0 = ex(0.0)
    qT, qdT, qddT = ex(4.0)
    np.testing.assert_allclose([q0, qd0, qdd0], [qT, qdT, qddT], atol=1e-12)
    # qd and qdd are the derivatives of q (central differences)
    h = 1e-5
    t = np.array([0.3, 1.7, 2.9])
    np.testing.assert_allclose((ex(t + h)[0] - ex(t - h)[0]) / (2 * h), ex(t)[1], atol=1e-7)
    np.testing.assert_allclose((ex(t + h)[1] - ex(t - h)[1]) / (2 * h), ex(t)[2], atol=1e-6)


def test_physical_estimate_is_consistent_where_the_plain_one_is_not():
    """The planar 2R has no friction: its true Fv, Fs are 0, so the plain least-squares
    estimates scatter around 0 and some come out negative (no physical joint has
    negative friction). The physical fit keeps every link's mass positive and
    pseudo-inertia positive definite and friction >= 0, and still fits the base
    parameters within their standard errors."""
    robot = _load("planar-2r")
    ex = rd.excitation.fourier(robot, samples=300, iterations=0, seed=2)
    result = rd.identify(robot, ex.q, ex.qd, ex.qdd, _noisy(robot, ex, seed=4), physical=True)
    plain = dict(zip(result.names, result.estimate))
    assert min(plain[k] for k in ("Fv1", "Fs1", "Fv2", "Fs2")) < 0
    assert consistency_problems(robot, result.standard) == []
    truth = robot.base_parameters().values
    assert np.all(np.abs(result.physical_estimate - truth) < 3 * result.std_errors + 1e-9)
    again = result.robot_estimate()  # a loadable, physical robot
    np.testing.assert_allclose(again.inverse_dynamics(ex.q, ex.qd, ex.qdd),
                               result.predict(ex.q, ex.qd, ex.qdd, physical=True),
                               rtol=1e-9, atol=1e-9)
    # the model's own standard parameters of the PUMA are not consistent (link 1 mass 0)
    assert any("link 1" in p for p in consistency_problems(_load("puma560"),
                                                          _load("puma560")
                                                          .inertial_parameters().values))


def _write_csv(path, robot, ex, tau, header=None):
    n = robot.dof
    cols = ["t"] + [f"{k}{j}" for k in ("q", "qd", "qdd", "tau") for j in range(1, n + 1)]
    data = np.column_stack([ex.t, ex.q, ex.qd, ex.qdd, tau])
    lines = [",".join(header or cols)] + [",".join(repr(float(x)) for x in row) for row in data]
    path.write_text("\n".join(lines) + "\n")
    return lines


def test_csv_input_cli_and_clear_errors(tmp_path, capsys):
    robot = _load("planar-2r")
    ex = rd.excitation.fourier(robot, samples=150, iterations=0, seed=3)
    tau = _noisy(robot, ex, seed=5)
    good = tmp_path / "data.csv"
    lines = _write_csv(good, robot, ex, tau)
    from_file = rd.identify(robot, good)
    from_arrays = rd.identify(robot, ex.q, ex.qd, ex.qdd, tau)
    np.testing.assert_allclose(from_file.estimate, from_arrays.estimate, rtol=1e-12)
    assert main(["identify", "planar-2r", str(good), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in out["parameters"]] == list(from_file.names)
    assert main(["identify", "planar-2r", str(good)]) == 0
    assert "ZZ1R" in capsys.readouterr().out

    bad = tmp_path / "nan.csv"
    rows = list(lines)
    cells = rows[8].split(",")
    cells[4] = "nan"  # columns t, q1, q2, qd1, qd2: qd2 of data row 8 (file line 9)
    rows[8] = ",".join(cells)
    bad.write_text("\n".join(rows) + "\n")
    with pytest.raises(rd.InputError, match=r"nan.csv, line 9, column qd2: 'nan' is not a "
                       "finite number"):
        rd.identify(robot, bad)
    assert main(["identify", "planar-2r", str(bad)]) == 2
    assert "line 9, column qd2: 'nan'" in capsys.readouterr().err

    wrong = tmp_path / "wrong.csv"
    header = lines[0].replace("tau2", "torque2").split(",")
    _write_csv(wrong, robot, ex, tau, header=header)
    with pytest.raises(rd.InputError, match="lacks the column.*tau2"):
        rd.identify(robot, wrong)
    arr = ex.q.copy()
    arr[3, 1] = np.nan
    with pytest.raises(rd.InputError, match=r"q\[3, 1\] \(sample 3, joint 2\)"):
        rd.identify(robot, arr, ex.qd, ex.qdd, tau)
    with pytest.raises(rd.InputError, match="singular"):
        still = np.zeros_like(ex.q)
        rd.identify(robot, still, still, still, tau)
