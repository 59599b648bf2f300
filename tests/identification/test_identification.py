"""Identification from simulated data (issue 10): excitation, base parameters within
three standard errors, torque prediction on a fresh trajectory, the physically
consistent fit, and clear errors for bad data."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.identification.physical import consistency_problems

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


@pytest.mark.slow
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


# -- issue 15: exact recovery, the physical fit's own residual, strict inputs --------------
def _exact(name, samples=120, seed=3):
    robot = _load(name)
    ex = rd.excitation.fourier(robot, samples=samples, iterations=0, seed=seed)
    return robot, ex, robot.inverse_dynamics(ex.q, ex.qd, ex.qdd)


def _rms(err):
    return np.sqrt(np.mean(err ** 2, axis=0))


@pytest.mark.parametrize("name", ["planar-2r", "pendulum"])
def test_noiseless_data_give_the_exact_parameters_both_ways(name):
    """Torques of the model itself: least squares is exact to rounding, and so is the
    physical fit (the README's example stopped far from them: weights near 1e12 from a
    noise floor of 1e-12); each joint's weight is 1 / (NOISE_FLOOR * RMS of the torques)."""
    robot, ex, tau = _exact(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rd.identification.IdentificationWarning)
        result = rd.identify(robot, ex.q, ex.qd, ex.qdd, tau, physical=True)
    truth = robot.base_parameters().values
    scale = np.abs(truth).max()
    np.testing.assert_allclose(result.estimate, truth, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(result.physical_estimate, truth, rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(result.weights, 1.0 / (rd.identification.NOISE_FLOOR
                                                      * np.sqrt(np.mean(tau ** 2))))
    assert result.physical_converged
    assert result.physical_steps < rd.identification.PHYSICAL_MAX_STEPS
    assert consistency_problems(robot, result.standard) == []
    # the consistent robot it returns makes the measured torques
    np.testing.assert_allclose(result.robot_estimate().inverse_dynamics(ex.q, ex.qd, ex.qdd),
                               tau, rtol=0, atol=1e-7 * np.abs(tau).max())


def test_the_physical_fit_reports_its_own_residual_and_warns_when_much_worse(capsys, tmp_path):
    """Negated torques (the opposite sign convention): least squares gives exactly the
    negated parameters, which no physical robot has. The physical fit is no better than
    predicting 0 (masses toward 0 are physical) but said to be much worse than least
    squares; its printed RMS error is that of its robot, recomputed here."""
    robot, ex, tau = _exact("planar-2r")
    truth = robot.base_parameters().values
    with pytest.warns(rd.identification.IdentificationWarning,
                      match="much worse than least squares.*sign convention"):
        result = rd.identify(robot, ex.q, ex.qd, ex.qdd, -tau, physical=True)
    np.testing.assert_allclose(result.estimate, -truth, atol=1e-12)
    assert consistency_problems(robot, result.standard) == []
    again = result.robot_estimate().inverse_dynamics(ex.q, ex.qd, ex.qdd)
    per_joint = _rms(again + tau)
    np.testing.assert_allclose(result.physical_residual_rms, per_joint, rtol=1e-9)
    overall = np.sqrt(np.mean((again + tau) ** 2))
    assert overall <= np.sqrt(np.mean(tau ** 2))  # not worse than zero torques
    assert overall > rd.identification.PHYSICAL_ABS * np.sqrt(np.mean(tau ** 2))
    text = str(result)
    printed = re.search(r"physical fit: residual RMS per joint \[(.*?)\] \(overall (\S+), "
                        r"least squares (\S+)\)", text)
    np.testing.assert_allclose([float(x) for x in printed[1].split()], per_joint, rtol=1e-3)
    assert float(printed[2]) == pytest.approx(overall, rel=1e-3)
    assert float(printed[3]) == pytest.approx(np.sqrt(np.mean((
        robot.regressor_base(ex.q, ex.qd, ex.qdd) @ result.estimate + tau) ** 2)), abs=1e-12)
    assert "warning: identify: the physically consistent fit explains the torques much worse" \
        in text
    # the command line: the same numbers, the warning on stderr, exit 0
    path = tmp_path / "negated.csv"
    _write_csv(path, robot, ex, -tau)
    assert main(["identify", "planar-2r", str(path), "--physical"]) == 0
    captured = capsys.readouterr()
    assert printed[0] in captured.out
    assert captured.err.startswith("robodyn: warning: identify: the physically consistent fit "
                                   "explains the torques much worse")


def test_noisy_physical_fit_is_not_flagged(recwarn):
    robot = _load("planar-2r")
    ex = rd.excitation.fourier(robot, samples=150, iterations=0, seed=2)
    tau = _noisy(robot, ex, seed=4)
    result = rd.identify(robot, ex.q, ex.qd, ex.qdd, tau, physical=True)
    ident = [w for w in recwarn if issubclass(w.category,
                                               rd.identification.IdentificationWarning)]
    assert ident == []
    # its error is at least least squares' (the unconstrained minimum, equal weights here)
    # and within the warning's threshold
    # (to rounding: where the constraints are inactive the two are the same minimum)
    assert result.residual_rms_overall <= result.physical_residual_rms_overall * (1 + 1e-12)
    assert result.physical_residual_rms_overall \
        <= rd.identification.PHYSICAL_WORSE * result.residual_rms_overall
    np.testing.assert_allclose(result.residual_rms, _rms(
        robot.regressor_base(ex.q, ex.qd, ex.qdd) @ result.estimate - tau), rtol=1e-12)


def test_the_physical_fit_has_a_budget(monkeypatch):
    robot, ex, tau = _exact("pendulum")
    monkeypatch.setattr("robodyn.identification.physical.PHYSICAL_MAX_STEPS", 5)
    with pytest.warns(rd.identification.IdentificationWarning,
                      match="stopped at its budget of 5 Newton steps before converging"):
        result = rd.identify(robot, ex.q, ex.qd, ex.qdd, tau, physical=True)
    assert result.physical_steps == 5 and not result.physical_converged
    assert consistency_problems(robot, result.standard) == []  # feasible all the way
    assert "stopped at its budget" in str(result)


def test_json_output_is_strict_json(tmp_path, capsys):
    """All-zero torques: every estimate is exactly 0, so every relative std is 0/0; the
    JSON says null (it wrote NaN, which is not JSON)."""
    robot, ex, _ = _exact("pendulum", samples=40)
    path = tmp_path / "still.csv"
    _write_csv(path, robot, ex, np.zeros_like(ex.q))

    def reject(constant):
        raise ValueError(f"not JSON: {constant}")

    for physical in ([], ["--physical"]):
        assert main(["identify", "pendulum", str(path), "--format", "json", *physical]) == 0
        captured = capsys.readouterr()
        data = json.loads(captured.out, parse_constant=reject)
        assert all(p["estimate"] == 0.0 for p in data["parameters"])
        assert all(p["relative_std_percent"] is None for p in data["parameters"])
        assert data["residual_rms"] == [0.0]
    assert data["physical_converged"] is True
    assert consistency_problems(robot, list(data["standard"].values())) == []
    # a pendulum with mass needs torque to move as recorded: not physical, and said so
    assert "explains the torques much worse" in captured.err
    assert data["notes"][-1].startswith("warning: identify: the physically consistent fit")


def test_bad_python_inputs_are_named_errors():
    robot, ex, tau = _exact("planar-2r", samples=40)
    q, qd, qdd = ex.q, ex.qd, ex.qdd
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning would be an error here
        with pytest.raises(rd.InputError, match="^q: complex values"):
            rd.identify(robot, q + 1e-3j, qd, qdd, tau)
        with pytest.raises(rd.InputError, match="^tau: complex values"):
            rd.identify(robot, q, qd, qdd, tau.astype(object) + 0j)
        with pytest.raises(rd.InputError, match="^qd: expected real numbers.*text"):
            rd.identify(robot, q, qd.astype(str), qdd, tau)
        with pytest.raises(rd.InputError, match="^qdd: expected real numbers.*bool"):
            rd.identify(robot, q, qd, qdd > 0, tau)
        with pytest.raises(rd.InputError, match="^q: expected real numbers"):
            rd.identify(robot, np.array([["1_0", 1.0]] * 40, dtype=object), qd, qdd, tau)
        with pytest.raises(rd.InputError, match=r"^q: expected an array .*rows of equal"):
            rd.identify(robot, [[1.0, 2.0], [3.0]], qd, qdd, tau)
        with pytest.raises(rd.InputError, match="^weights: expected 2 positive finite"):
            rd.identify(robot, q, qd, qdd, tau, weights=[1 + 1j, 1])
        with pytest.raises(rd.InputError, match="^weights: expected 2 positive finite"):
            rd.identify(robot, q, qd, qdd, tau, weights=["1_0", "1"])
        with pytest.raises(rd.InputError, match="^physical: expected True or False"):
            rd.identify(robot, q, qd, qdd, tau, physical="no")
        with pytest.raises(rd.InputError, match="^robot: expected a robodyn Robot"):
            rd.identify("planar-2r", q, qd, qdd, tau)


def test_the_base_parameters_of_another_robot_are_refused():
    robot, ex, tau = _exact("planar-2r", samples=40)
    args = (ex.q, ex.qd, ex.qdd, tau)
    with pytest.raises(rd.InputError, match=r"^base: the base parameters of another robot "
                       r"\(36 standard parameters"):
        rd.identify(robot, *args, base=_load("planar-3r").base_parameters())
    with pytest.raises(rd.InputError, match="^base: expected the BaseParameters of this robot"):
        rd.identify(robot, *args, base=_load("planar-3r"))
    # the same names, another l1: its grouping ZZ1 + l1**2 m2 does not hold for this robot
    longer = robot.with_values(l1=1.3).base_parameters()
    with pytest.raises(rd.InputError, match="^base: these base parameters do not group "
                       "planar-2r's parameters"):
        rd.identify(robot, *args, base=longer)
    # its own base parameters, given, are fine (and the same as the default)
    own = rd.identify(robot, *args, base=robot.base_parameters())
    np.testing.assert_allclose(own.estimate, robot.base_parameters().values, atol=1e-12)


def test_huge_values_name_the_input_that_overflows(tmp_path):
    """1e300 once blamed g = 9.81 (the model's largest value); now the input is named."""
    robot, ex, tau = _exact("planar-2r", samples=40)
    for k, name, value, words in ((1, "qd", 1e300, "the regressor (products of the rates"),
                                  (1, "qd", 1e100, "squared overflows float64"),
                                  (2, "qdd", 1e200, "too large"),
                                  (3, "tau", 1e300, "its square overflows float64"),
                                  (0, "q", 1e300, "rad is too large for an angle")):
        arrays = [ex.q.copy(), ex.qd.copy(), ex.qdd.copy(), tau.copy()]
        arrays[k][17, 1] = value
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no RuntimeWarning: overflow
            with pytest.raises(rd.InputError) as info:
                rd.identify(robot, *arrays)
        message = str(info.value)
        assert message.startswith(f"{name}[17, 1] (sample 17, joint 2): {value:g}")
        assert words in message and "g =" not in message
        path = tmp_path / f"{name}.csv"
        rows = _write_csv(path, robot, ex, tau)
        cells = rows[18].split(",")  # sample 17 on file line 19; columns t, q1, q2, qd1, ...
        cells[1 + 2 * k + 1] = repr(value)
        rows[18] = ",".join(cells)
        path.write_text("\n".join(rows) + "\n")
        with pytest.raises(rd.InputError) as info:
            rd.identify(robot, path)
        assert str(info.value).startswith(f"{path}, line 19, column {name}2: {value:g}")


def test_the_excitation_says_when_its_iteration_budget_stopped_it():
    robot = rd.load("planar-2r")
    with pytest.warns(RuntimeWarning, match=r"used its 2 iterations \(condition number"):
        ex = rd.excitation.fourier(robot, harmonics=2, period=2.0, iterations=2,
                                   progress=False)
    assert ex.condition_after <= ex.condition_before
