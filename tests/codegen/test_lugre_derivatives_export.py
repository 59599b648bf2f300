"""Derivatives of the exported code of a model with LuGre friction
(:mod:`robodyn.dynamics.lugre_dynamics`): dtau/d(q, qd, qdd, z), dqdd/d(q, qd, tau, z) and
the bristle rates' Jacobian d(dz/dt)/d(qd, z), against central differences of the exported
functions, against the hand derivatives of LuGre's equations (dF/dz = sigma0 - sigma1
sigma0 |qd| / g; the Stribeck slope g') and the links' own derivatives, in Python (the C
functions equal them: tests/codegen/test_lugre_export.py); the JAX/CasADi programs (walked
with NumPy) with z; and LuGre behind a coupled transmission, equal to the numeric robot
(its drives, robodyn.motion.lugre.lugre_rates for F)."""

from __future__ import annotations

import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_lugre_export import MODEL, _states

import robodyn as rd
from robodyn.codegen.export.autodiff import build_program, evaluate
from robodyn.core.errors import InputError
from robodyn.motion.lugre import lugre_rates

NUMPY = types.SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, exp=np.exp,
                              tanh=np.tanh, pow=np.power)


def _load(tmp_path_factory, text: str):
    path = tmp_path_factory.mktemp("lugre") / "arm.yaml"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the closed forms leave the drives out: said once
        return rd.load(path)


def _module(robot):
    return _module_of(robot, None)


def _module_of(robot, functions):
    (fname, text), = robot.to_code("python", functions=functions).items()
    module = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), module.__dict__)  # the file robodyn just wrote
    return module


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    return _load(tmp_path_factory, MODEL)


@pytest.fixture(scope="module")
def exported(arm):
    return _module(arm)


def _moving(n=6, seed=11):
    """States with every |qd| >= 0.05 (the sign of qd fixed inside the differences)."""
    q, qd, qdd, z, h_e = _states(n, seed)
    qd = np.where(np.abs(qd) < 0.05, 0.05 * np.sign(qd + 1e-300), qd)
    qd[0] = [0.02, -0.15]  # inside the Stribeck velocity, where g' is largest
    return q, qd, qdd, z, h_e


def _central(f, args, k, h):
    """d f / d args[k] by central differences, [i][j] = df_i/dx_j."""
    cols = []
    for j in range(len(args[k])):
        ahead = [np.array(a, dtype=float) for a in args]
        back = [np.array(a, dtype=float) for a in args]
        ahead[k][j] += h
        back[k][j] -= h
        cols.append((np.ravel(f(*ahead)) - np.ravel(f(*back))) / (2 * h))
    return np.stack(cols, axis=-1)


def _hand(lugre, qd, z):
    """LuGre's Jacobians by hand (module docstring of lugre_dynamics), per joint:
    d(dz/dt)/dqd, d(dz/dt)/dz, dF/dqd, dF/dz."""
    s0, s1, s2 = (lugre.array(k) for k in ("sigma0", "sigma1", "sigma2"))
    fc, fs, vs = (lugre.array(k) for k in ("Fc", "Fs", "vs"))
    g = fc + (fs - fc) * np.exp(-(qd / vs) ** 2)
    dg = -2 * qd / vs**2 * (fs - fc) * np.exp(-(qd / vs) ** 2)
    dry = fs > 0
    safe = np.where(dry, g, 1.0)
    rate_z = np.where(dry, -s0 * np.abs(qd) / safe, 0.0)
    rate_qd = np.where(dry, 1 - s0 * z * (np.sign(qd) * g - np.abs(qd) * dg) / safe**2, 1.0)
    return rate_qd, rate_z, s1 * rate_qd + s2, s0 + s1 * rate_z


def test_the_exported_derivatives_are_the_hand_derivatives_and_central_differences(arm,
                                                                                   exported):
    lugre = arm.chain.lugre
    for q, qd, qdd, z, _ in zip(*_moving(), strict=True):
        rate_qd, rate_z, f_qd, f_z = _hand(lugre, qd, z)
        d_id = np.reshape(exported.inverse_dynamics_derivatives(q, qd, qdd, z), (4, 2, 2))
        links = arm.inverse_dynamics_derivatives(q, qd, qdd)  # the robot without LuGre
        np.testing.assert_allclose(d_id[0], links[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(d_id[1], links[1] + np.diag(f_qd), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(d_id[2], arm.mass_matrix(q), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(d_id[3], np.diag(f_z), rtol=1e-12, atol=1e-9)
        d_zd = np.reshape(exported.bristle_rate_derivatives(qd, z), (2, 2, 2))
        np.testing.assert_allclose(d_zd[0], np.diag(rate_qd), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(d_zd[1], np.diag(rate_z), rtol=1e-12, atol=1e-12)
        # and against differences of the numeric model and of the exported functions
        args, steps = (q, qd, qdd, z), (1e-6, 1e-6, 1e-6, 1e-9)
        for k in range(4):
            np.testing.assert_allclose(
                d_id[k], _central(exported.inverse_dynamics, args, k, steps[k]),
                rtol=1e-6, atol=1e-5 * max(1.0, np.abs(d_id[k]).max()))
        for k, h in ((0, 1e-7), (1, 1e-10)):
            np.testing.assert_allclose(
                d_zd[k], _central(lambda v, x: lugre_rates(lugre, v, x)[0], (qd, z), k, h),
                rtol=1e-6, atol=1e-6 * np.abs(d_zd[k]).max())
        tau = arm.inverse_dynamics(q, qd, qdd) + lugre_rates(lugre, qd, z)[1]
        d_fd = np.reshape(exported.forward_dynamics_derivatives(q, qd, tau, z), (4, 2, 2))
        np.testing.assert_allclose(d_fd[2], np.linalg.inv(arm.mass_matrix(q)), rtol=1e-10)
        np.testing.assert_allclose(d_fd[3], -np.linalg.inv(arm.mass_matrix(q)) * f_z,
                                   rtol=1e-10, atol=1e-8)
        for k in range(4):
            np.testing.assert_allclose(
                d_fd[k], _central(exported.forward_dynamics, (q, qd, tau, z), k, steps[k]),
                rtol=1e-5, atol=1e-5 * np.abs(d_fd[k]).max())


def test_the_contact_derivatives_take_the_wrench_and_z(arm, exported):
    q, qd, qdd, z, h_e = (x[1] for x in _moving())
    d = np.reshape(exported.inverse_dynamics_derivatives_contact(q, qd, qdd, h_e, z),
                   (4, 2, 2))
    links = arm.inverse_dynamics_derivatives(q, qd, qdd, h_e)
    f_qd, f_z = _hand(arm.chain.lugre, qd, z)[2:]
    np.testing.assert_allclose(d[0], links[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d[1], links[1] + np.diag(f_qd), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d[3], np.diag(f_z), rtol=1e-12, atol=1e-9)


def test_the_jax_and_casadi_programs_take_z(arm):
    # JAX and CasADi (not installed here) walk these programs with their operations;
    # walked with NumPy they are the numeric model's numbers, z their last input
    lugre = arm.chain.lugre
    q, qd, qdd, z, h_e = (x[1] for x in _moving())
    dz, force = lugre_rates(lugre, qd, z)
    tau = arm.inverse_dynamics(q, qd, qdd) + force
    rate_qd, rate_z, f_qd, f_z = _hand(lugre, qd, z)
    links = arm.inverse_dynamics_derivatives(q, qd, qdd)
    cases = {
        "inverse_dynamics": ({"qdd": qdd}, [tau]),
        "forward_dynamics_contact": ({"tau": arm.inverse_dynamics(q, qd, qdd, h_e) + force,
                                      "h_e": h_e}, [qdd]),
        "bristle_rate": ({}, [dz]),
        "bristle_rate_derivatives": ({}, [np.diag(rate_qd), np.diag(rate_z)]),
        "inverse_dynamics_derivatives": ({"qdd": qdd}, [links[0], links[1] + np.diag(f_qd),
                                                        arm.mass_matrix(q), np.diag(f_z)])}
    for kind, (extra, want) in cases.items():
        program = build_program(arm.runner, kind, "baked")
        assert program.inputs[-1] == ("z", 2)
        flat = evaluate(program, {"q": q, "qd": qd, "z": z, **extra}, NUMPY)
        assert len(program.results) == len(want)
        for out, value in zip(program.results, want, strict=True):
            got = np.reshape([flat[i] if isinstance(i, int) else i for i in out.items],
                             out.shape)
            np.testing.assert_allclose(got, value, rtol=1e-10, atol=1e-9)
    assert [o.name for o in build_program(arm.runner, "forward_dynamics_derivatives",
                                          "baked").results][-1] == "dqdd_dz"
    with pytest.raises(InputError, match="regressor of a model with LuGre friction"):
        build_program(arm.runner, "regressor", "baked")
    with pytest.raises(InputError, match="only a model with LuGre"):
        build_program(rd.load("planar-2r").runner, "bristle_rate", "baked")


COUPLED = MODEL.replace("name: lugre_arm", "name: coupled_lugre") + """transmission:
  matrix: [[50.0, 0.0], [24.0, 30.0]]
  motor_inertia: [2.0e-4, 1.0e-4]
  motor_viscous: [1.0e-3, 2.0e-3]
  motor_coulomb: [0.01, 0.02]
"""


def test_lugre_behind_a_coupled_transmission_is_the_numeric_robots(tmp_path_factory):
    robot = _load(tmp_path_factory, COUPLED)
    assert robot.chain.transmission is not None
    module = _module(robot)
    lugre = robot.chain.lugre
    for q, qd, qdd, z, _ in zip(*_moving(4, seed=12), strict=True):
        dz, force = lugre_rates(lugre, qd, z)
        tau = robot.inverse_dynamics(q, qd, qdd) + force  # the robot's drives, LuGre's F
        np.testing.assert_allclose(np.ravel(module.inverse_dynamics(q, qd, qdd, z)), tau,
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.ravel(module.forward_dynamics(q, qd, tau, z)), qdd,
                                   rtol=1e-10, atol=1e-10)
        parts = np.reshape(module.torque_parts(q, qd, qdd, z), (6, 2))
        mine = robot.torque_parts(q, qd, qdd)
        np.testing.assert_allclose(parts[0], mine.inertial, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(parts[3], mine.friction + force, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.ravel(module.friction_torques(qd, z)),
                                   robot.friction_torques(qd) + force, rtol=1e-12, atol=1e-12)
        d = np.reshape(module.inverse_dynamics_derivatives(q, qd, qdd, z), (4, 2, 2))
        np.testing.assert_allclose(d[2], robot.mass_matrix(q), rtol=1e-12)
        f_qd, f_z = _hand(lugre, qd, z)[2:]
        np.testing.assert_allclose(d[1], robot.inverse_dynamics_derivatives(q, qd, qdd)[1]
                                   + np.diag(f_qd), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(d[3], np.diag(f_z), rtol=1e-12, atol=1e-9)
        d_fd = np.reshape(module.forward_dynamics_derivatives(q, qd, tau, z), (4, 2, 2))
        for k, h in ((1, 1e-6), (3, 1e-9)):
            np.testing.assert_allclose(
                d_fd[k], _central(module.forward_dynamics, (q, qd, tau, z), k, h),
                rtol=1e-5, atol=1e-5 * np.abs(d_fd[k]).max())


def test_the_cli_exports_lugres_functions(tmp_path, capsys):
    from robodyn.cli import main

    path = tmp_path / "arm.yaml"
    path.write_text(MODEL)
    assert main(["export", str(path), "--lang", "python", "--out", str(tmp_path / "k"),
                 "--functions", "inverse_dynamics_derivatives,bristle_rate_derivatives"]) == 0
    text = (tmp_path / "k" / "lugre_arm.py").read_text()
    assert "def inverse_dynamics_derivatives(q, qd, qdd, z)" in text
    assert "def bristle_rate_derivatives(qd, z)" in text
    assert main(["export", str(path), "--lang", "python", "--out", str(tmp_path / "c"),
                 "--closed-form"]) == 0
    closed = (tmp_path / "c" / "lugre_arm.py").read_text()
    assert "def inverse_dynamics(q, qd, qdd, z)" in closed
    assert "def bristle_rate(qd, z)" in closed


def test_a_closed_mechanisms_forward_dynamics_takes_z(tmp_path):
    # the four-bar with LuGre on its joints: the exported Schur-complement program solves
    # M qdd + h + F(qd, z) = tau + K^T lambda, K qdd + Kdot qd = 0 (the robot's own M, h, K
    # and lugre_rates' F), where it left F out before
    text = (Path(rd.__file__).parent / "model" / "builtin" / "four-bar.yaml").read_text()
    path = tmp_path / "four_bar_lugre.yaml"
    path.write_text(text + "\nlugre: {sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, Fs: 4, "
                    "vs: 0.1}\n")
    robot = rd.load(path)
    module = _module_of(robot, ["closed_forward_dynamics"])
    cc, n = robot.closed_chain(), robot.nv
    rng = np.random.default_rng(4)
    for _ in range(3):
        q = cc.assemble(rng.uniform(-0.8, 0.8, len(cc.actuated)), np.full(robot.nq, 0.3)).q
        qd = cc.velocity_map(q) @ rng.normal(size=len(cc.actuated))
        tau = np.zeros(n)
        tau[cc.actuated] = rng.normal(size=len(cc.actuated)) * 5
        z = rng.normal(size=n) * 3e-4
        force = lugre_rates(robot.chain.lugre, qd, z)[1]
        assert np.abs(force).max() > 0.1  # F matters here
        out = np.ravel(module.closed_forward_dynamics(q, qd, tau, z))
        qdd, lam = out[:n], out[n:]
        K, k = cc.constraint_jacobian(q), cc.drift(q, qd)
        h = robot.inverse_dynamics(q, qd, np.zeros(n))
        scale = max(1.0, np.abs(tau).max(), np.abs(h).max(), np.abs(force).max())
        np.testing.assert_allclose(robot.mass_matrix(q) @ qdd + h + force, tau + K.T @ lam,
                                   atol=1e-12 * scale)
        np.testing.assert_allclose(K @ qdd, -k, atol=1e-12 * max(1.0, np.abs(k).max(),
                                                                 np.abs(qdd).max()))
