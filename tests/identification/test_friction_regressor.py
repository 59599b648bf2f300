"""The regressor's columns for friction per direction and an offset
(robodyn.dynamics.regressor: Fs the mean Coulomb level, Fd half the difference, Fo the
offset): Y pi is the inverse dynamics, the base parameters group Fd + Fo (equal columns
wherever the joint moves), the symbolic regressor and the exact grouping agree, rd.identify
gives the levels back, and what the columns cannot hold is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from conftest import FRICTION_ARM
from robodyn.dynamics.regressor import parameter_columns

#: The friction tests' arm (tests/conftest.py) with a symbolic gravity and first length, so
#: the symbolic regressor has symbols to group
VALUES = "values: {g: 9.81, l1: 0.4, Fv1: 0.3, Fp1: 0.5, Fn1: 0.35, To1: 0.08, Fv2: 0.1, " \
         "Fc2: 0.2}\n"
ASYMMETRIC = ("{viscous: Fv1, coulomb: Fp1, coulomb_negative: Fn1, offset: To1}",
              "{viscous: Fv2, coulomb: Fc2}")


def _robot(tmp_path, f1, f2, name="regarm") -> rd.Robot:
    path = tmp_path / f"{name}.yaml"
    text = FRICTION_ARM.format(name=name, f1=f1, f2=f2)
    text = text.replace("gravity: [0, 0, -9.81]", "gravity: [0, 0, -g]")
    path.write_text(text.replace("a: 0.4", "a: l1", 1) + VALUES)
    return rd.load(path)


def test_y_pi_is_the_inverse_dynamics_with_per_direction_levels_and_an_offset(tmp_path):
    robot = _robot(tmp_path, *ASYMMETRIC)
    params = robot.inertial_parameters()
    assert params.names[-6:] == ("Fv1", "Fs1", "Fv2", "Fs2", "Fd1", "Fo1")
    named = params.as_dict()
    assert named["Fs1"] == pytest.approx((0.5 + 0.35) / 2)
    assert named["Fd1"] == pytest.approx((0.5 - 0.35) / 2) and named["Fo1"] == 0.08
    assert "Fd2" not in named and "Fo2" not in named  # joint 2: one level, no offset
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.normal(size=(3, 30, 2))
    tau = robot.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(robot.regressor(q, qd, qdd) @ params.values, tau,
                               rtol=1e-13, atol=1e-13)
    back = robot.with_inertial_parameters(params)
    np.testing.assert_allclose(back.inverse_dynamics(q, qd, qdd), tau, rtol=1e-12, atol=1e-12)


def test_the_base_parameters_group_the_half_difference_with_the_offset(tmp_path):
    """sign(qd)^2 = 1 = the offset's column wherever qd != 0: only Fd1 + Fo1 is seen, in
    the exact (symbolic) grouping and in the numeric one alike."""
    robot = _robot(tmp_path, *ASYMMETRIC)
    base = robot.base_parameters()
    text = str(base)
    assert "Fd1 + Fo1" in text
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.normal(size=(3, 20, 2))
    np.testing.assert_allclose(robot.regressor_base(q, qd, qdd) @ base.values,
                               robot.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)
    symbolic = robot.equations(method="newton-euler").regressor()
    assert symbolic.check()


def test_identify_gives_back_the_levels_from_noisy_torques(tmp_path):
    robot = _robot(tmp_path, *ASYMMETRIC)
    data = rd.excitation.fourier(robot, harmonics=3, period=8.0)
    rng = np.random.default_rng(7)
    noise = 0.01
    tau = robot.inverse_dynamics(data.q, data.qd, data.qdd) + rng.normal(0, noise,
                                                                          data.q.shape)
    fit = rd.identify(robot, data.q, data.qd, data.qdd, tau)
    names = list(fit.base.base_names)
    truth = dict(zip(names, fit.base.values, strict=True))
    for name in ("Fs1", "Fv1", "Fd1R"):
        k = names.index(name)
        assert abs(fit.estimate[k] - truth[name]) <= 4 * fit.std_errors[k], name
    assert truth["Fd1R"] == pytest.approx(0.075 + 0.08)
    np.testing.assert_allclose(fit.residual_rms, noise, rtol=0.15)


def test_what_the_columns_cannot_hold_is_refused(tmp_path):
    stribeck = _robot(tmp_path, "{coulomb: 0.3, static: 0.5, stribeck_velocity: 0.1}",
                      "{}", name="stribeck")
    with pytest.raises(rd.ModelError, match=r"links\[0\]\.friction: a Stribeck term.*"
                                            "identify_friction"):
        stribeck.inertial_parameters()
    robot = _robot(tmp_path, *ASYMMETRIC)
    data = rd.excitation.fourier(robot, harmonics=2, period=6.0)
    tau = robot.inverse_dynamics(data.q, data.qd, data.qdd)
    with pytest.raises(rd.InputError, match="Fd1, Fo1"):
        rd.identify(robot, data.q, data.qd, data.qdd, tau, physical=True, progress=False)


def test_the_extra_columns_cost_nothing_without_them_and_export_with_them(tmp_path):
    """The full regressor keeps 13 columns a joint for models without Fd/Fo (the kernels of
    every other model are unchanged), 15 with them; the exported program's full regressor,
    at the model's columns, times ``pi`` is its inverse dynamics too."""
    import importlib.util

    plain = _robot(tmp_path, "{viscous: Fv1, coulomb: Fp1}", "{}", name="plain")
    robot = _robot(tmp_path, *ASYMMETRIC)
    q, qd, qdd = np.random.default_rng(2).normal(size=(3, 4, 2))
    assert plain.runner.run("regressor", q, qd, qdd).shape == (4, 2, 26)
    assert robot.runner.run("regressor", q, qd, qdd).shape == (4, 2, 30)
    files = robot.to_code("python", ["regressor"])
    (name, text), = ((n, t) for n, t in files.items() if n.endswith(".py"))
    (tmp_path / name).write_text(text)
    spec = importlib.util.spec_from_file_location("regarm_kernels", tmp_path / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    full = np.asarray(module.regressor(q, qd, qdd))  # every column, as the kernel's
    assert full.shape == (4, 2, 30)
    columns, _ = parameter_columns(robot.chain)
    np.testing.assert_allclose(full[..., columns] @ robot.inertial_parameters().values,
                               robot.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)
