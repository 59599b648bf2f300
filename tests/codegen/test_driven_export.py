"""Exported code of a model with a coupled transmission (``theta = N q``,
:mod:`robodyn.dynamics.driven_dynamics`): the inverse and forward dynamics, the mass
matrix, the friction, the kinetic energy, the torque parts, the derivatives, the regressor
and the ``h_e`` variants include the motors, equal to the robot's own methods (whose
drives' terms are checked against a hand derivation in tests/dynamics/test_transmission.py);
the derivatives also against central differences, the regressor against ``Y pi = tau``."""

from __future__ import annotations

import shutil
import types
import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.dynamics.regressor import standard_columns

MODEL = """
name: coupled_wrist
dh: standard
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 0.7, mass: 2, com: [-0.35, 0, 0], inertia: [0.01, 0.08, 0.08, 0, 0, 0],
     friction: {viscous: 0.1, coulomb: 0.2}}
  - {joint: revolute, a: 0.5, mass: 1.2, com: [-0.25, 0, 0], inertia: [0.02, 0.03, 0.04, 0, 0, 0]}
transmission:
  matrix: [[50.0, 0.0], [24.0, 30.0]]
  motor_inertia: [2.0e-4, 1.0e-4]
  motor_viscous: [1.0e-3, 2.0e-3]
  motor_coulomb: [0.01, 0.02]
"""


@pytest.fixture(scope="module")
def wrist(tmp_path_factory):
    path = tmp_path_factory.mktemp("driven") / "wrist.yaml"
    path.write_text(MODEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the closed forms leave the drives out: said once
        return rd.load(path)


def _states(robot, seed=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(3, 6, robot.dof))


@pytest.fixture(scope="module")
def module(wrist):
    """The Python export of every function (the default), loaded."""
    (fname, text), = wrist.to_code("python").items()
    out = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), out.__dict__)  # the file robodyn just wrote
    return out


@pytest.fixture(scope="module")
def compiled(wrist):
    """The C export, compiled once for the module's tests."""
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler (cc, gcc, clang) on PATH")
    return wrist.compile_c(["inverse_dynamics", "forward_dynamics", "mass_matrix",
                            "torque_parts", "inverse_dynamics_derivatives_contact",
                            "forward_dynamics_derivatives", "regressor"])


def test_the_python_export_includes_the_motors(wrist, module, tmp_path):
    for q, qd, qdd in zip(*_states(wrist), strict=True):
        tau = wrist.inverse_dynamics(q, qd, qdd)
        np.testing.assert_allclose(np.ravel(module.inverse_dynamics(q, qd, qdd)), tau,
                                   rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(np.reshape(module.mass_matrix(q), (2, 2)),
                                   wrist.mass_matrix(q), rtol=1e-14)
        np.testing.assert_allclose(np.ravel(module.forward_dynamics(q, qd, tau)), qdd,
                                   rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(np.ravel(module.friction_torques(qd)),
                                   wrist.friction_torques(qd), rtol=1e-14, atol=1e-15)
        assert float(np.ravel(module.kinetic_energy(q, qd))[0]) == pytest.approx(
            wrist.kinetic_energy(q, qd), rel=1e-14)
    # the exported M is the links' plus the rotors' N^T J_m N, by hand for this N
    links = rd.load(_links_only(tmp_path))
    hand = np.array([[50**2 * 2e-4 + 24**2 * 1e-4, 24 * 30 * 1e-4],
                     [24 * 30 * 1e-4, 30**2 * 1e-4]])
    q = np.array([0.3, -0.7])
    np.testing.assert_allclose(np.reshape(module.mass_matrix(q), (2, 2)) - links.mass_matrix(q),
                               hand, rtol=1e-12)


def _links_only(folder):
    path = folder / "links.yaml"
    path.write_text(MODEL.split("transmission:")[0])
    return path


def test_the_compiled_c_export_includes_the_motors(wrist, compiled):
    c = compiled
    q, qd, qdd = _states(wrist, seed=4)
    tau = wrist.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(c.inverse_dynamics(q, qd, qdd), tau, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(c.forward_dynamics(q, qd, tau), qdd, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(c.mass_matrix(q), wrist.mass_matrix(q), rtol=1e-14)
    parts = wrist.torque_parts(q, qd, qdd)
    np.testing.assert_allclose(c.torque_parts(q, qd, qdd),
                               np.stack([parts.as_dict()[k] for k in PARTS], axis=-2),
                               rtol=1e-12, atol=1e-12)
    h_e = np.random.default_rng(5).normal(size=(6, 6))
    np.testing.assert_allclose(c.inverse_dynamics_derivatives_contact(q, qd, qdd, h_e),
                               np.stack(wrist.inverse_dynamics_derivatives(q, qd, qdd, h_e),
                                        axis=-3), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c.forward_dynamics_derivatives(q, qd, tau),
                               np.stack(wrist.forward_dynamics_derivatives(q, qd, tau),
                                        axis=-3), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(standard_columns(wrist.chain, c.regressor(q, qd, qdd)),
                               wrist.regressor(q, qd, qdd), rtol=1e-12, atol=1e-12)


PARTS = ("inertial", "coriolis", "gravity", "friction", "external", "total")


def test_every_function_is_exported_with_the_drives(wrist, module):
    # the default export has every registry entry (none is left out for the drives)
    from robodyn.dynamics.registry import KERNELS

    assert all(callable(getattr(module, kind, None)) for kind in KERNELS)


def test_the_exported_torque_parts_and_wrench_variants_equal_the_robots(wrist, module):
    # the rotors' R qdd is in the inertial part, the motors' friction in the friction part
    rng = np.random.default_rng(6)
    for q, qd, qdd in zip(*_states(wrist, seed=7), strict=True):
        h_e = rng.normal(size=6)
        parts = wrist.torque_parts(q, qd, qdd, h_e)
        got = np.reshape(module.torque_parts_contact(q, qd, qdd, h_e), (6, 2))
        np.testing.assert_allclose(got, [parts.as_dict()[k] for k in PARTS], rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(got[-1], got[:-1].sum(axis=0), rtol=1e-12, atol=1e-12)
        # the inertial part is M_d qdd (the rotors' N^T J_m N in M), the friction part the
        # joints' and the motors' friction (both checked by hand in test_transmission.py)
        np.testing.assert_allclose(got[0], wrist.mass_matrix(q) @ qdd, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[3], wrist.friction_torques(qd), rtol=1e-12, atol=1e-12)
        tau = wrist.inverse_dynamics(q, qd, qdd, h_e)
        np.testing.assert_allclose(np.ravel(module.inverse_dynamics_contact(q, qd, qdd, h_e)),
                                   tau, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.ravel(module.forward_dynamics_contact(q, qd, tau, h_e)),
                                   qdd, rtol=1e-10, atol=1e-10)


def _central(f, args, h_e, h=1e-6) -> list:
    """``df/dargs[k]`` for each argument by central differences, ``[i][j] = df_i/dx_j``."""
    out = []
    for k, x in enumerate(args):
        cols = []
        for j in range(len(x)):
            step = [np.array(a, dtype=float) for a in args]
            step[k][j] += h
            ahead = np.asarray(f(*step, h_e))
            step[k][j] -= 2 * h
            cols.append((ahead - np.asarray(f(*step, h_e))) / (2 * h))
        out.append(np.stack(cols, axis=-1))
    return out


def test_the_exported_derivatives_equal_central_differences(wrist, module):
    rng = np.random.default_rng(8)
    differenced = 0
    for q, qd, qdd in zip(*_states(wrist, seed=9), strict=True):
        h_e = rng.normal(size=6)
        tau = wrist.inverse_dynamics(q, qd, qdd, h_e)
        d_id = np.reshape(module.inverse_dynamics_derivatives_contact(q, qd, qdd, h_e),
                          (3, 2, 2))
        d_fd = np.reshape(module.forward_dynamics_derivatives_contact(q, qd, tau, h_e),
                          (3, 2, 2))
        np.testing.assert_allclose(d_id, np.stack(wrist.inverse_dynamics_derivatives(
            q, qd, qdd, h_e)), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(d_fd, np.stack(wrist.forward_dynamics_derivatives(
            q, qd, tau, h_e)), rtol=1e-10, atol=1e-10)
        if np.min(np.abs(np.concatenate([qd, wrist.chain.transmission.N @ qd]))) < 1e-3:
            continue  # a Coulomb sign would switch inside the differences
        for exact, approx in zip(d_id, _central(wrist.inverse_dynamics, (q, qd, qdd), h_e),
                                 strict=True):
            np.testing.assert_allclose(exact, approx, rtol=1e-6, atol=1e-6)
        for exact, approx in zip(d_fd, _central(wrist.forward_dynamics, (q, qd, tau), h_e),
                                 strict=True):
            np.testing.assert_allclose(exact, approx, rtol=1e-5, atol=1e-5)
        differenced += 1
    assert differenced >= 4


def test_the_exported_regressor_has_the_motors_columns(wrist, module):
    names, pi = wrist.inertial_parameters()
    assert names[-6:] == ("Jm1", "Jm2", "Bm1", "Bm2", "Fm1", "Fm2")
    np.testing.assert_allclose(pi[-6:], [2e-4, 1e-4, 1e-3, 2e-3, 0.01, 0.02])
    width = len(np.ravel(module.regressor(*np.zeros((3, 2))))) // 2
    for q, qd, qdd in zip(*_states(wrist, seed=10), strict=True):
        Y = standard_columns(wrist.chain, np.reshape(module.regressor(q, qd, qdd), (2, width)))
        np.testing.assert_allclose(Y, wrist.regressor(q, qd, qdd), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(Y @ pi, wrist.inverse_dynamics(q, qd, qdd), rtol=1e-12,
                                   atol=1e-12)
        # motor k's columns by hand: n_k^T (n_k . qdd), n_k^T (n_k . qd), n_k^T sign(n_k . qd)
        N = wrist.chain.transmission.N
        hand = np.concatenate([N.T * rate for rate in (N @ qdd, N @ qd, np.sign(N @ qd))],
                              axis=-1)
        np.testing.assert_allclose(Y[:, -6:], hand, rtol=1e-13, atol=1e-15)


def test_the_autodiff_programs_include_the_motors(wrist):
    # JAX and CasADi (not needed here) walk these programs with their operations; walked
    # with NumPy they are the robot's numbers, the regressor its standard columns
    from robodyn.codegen.export.autodiff import build_program, evaluate

    lib = types.SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, exp=np.exp,
                                tanh=np.tanh, pow=np.power)
    q, qd, qdd = _states(wrist, seed=11)[:, 0]
    args = {"q": q, "qd": qd, "qdd": qdd}
    for kind, want in (("inverse_dynamics", wrist.inverse_dynamics(q, qd, qdd)),
                       ("mass_matrix", wrist.mass_matrix(q)),
                       ("regressor", wrist.regressor(q, qd, qdd))):
        program = build_program(wrist.runner, kind, "baked")
        flat = evaluate(program, args, lib)
        (out,) = program.results
        got = np.reshape([flat[i] for i in out.items], out.shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


THREE = """
name: differential_3r
dh: standard
gravity: [0, 0, -9.81]
links:
  - {joint: revolute, a: 0.4, alpha: 1.5707963267948966, mass: 3, com: [-0.2, 0, 0],
     inertia: [0.02, 0.05, 0.05, 0, 0, 0]}
  - {joint: revolute, a: 0.3, mass: 1.5, com: [-0.15, 0.01, 0],
     inertia: [0.01, 0.02, 0.02, 0, 0, 0], friction: {viscous: 0.05, coulomb: 0.1}}
  - {joint: revolute, a: 0.1, alpha: -1.5707963267948966, mass: 0.8, com: [-0.05, 0, 0.02],
     inertia: [0.003, 0.004, 0.005, 0, 0, 0]}
transmission:
  matrix: [[40.0, 0.0, 0.0], [12.0, -30.0, 6.0], [-5.0, 15.0, 25.0]]
  motor_inertia: [3.0e-4, 2.0e-4, 1.0e-4]
  motor_viscous: [2.0e-3, 1.0e-3, 3.0e-3]
  motor_coulomb: [0.02, 0.01, 0.03]
"""


def test_a_three_joint_differential_exports_with_its_motors(tmp_path):
    # every entry of N coupled, negative ones too: the exported torque parts, derivatives
    # and regressor equal the robot's
    path = tmp_path / "differential.yaml"
    path.write_text(THREE)
    robot = rd.load(path)
    kinds = ["torque_parts", "inverse_dynamics_derivatives", "forward_dynamics_derivatives",
             "regressor"]
    (fname, text), = robot.to_code("python", functions=kinds).items()
    module = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), module.__dict__)  # the file robodyn just wrote
    _, pi = robot.inertial_parameters()
    for q, qd, qdd in np.random.default_rng(12).normal(size=(3, 3, 3)):
        tau = robot.inverse_dynamics(q, qd, qdd)
        parts = np.reshape(module.torque_parts(q, qd, qdd), (6, 3))
        np.testing.assert_allclose(parts, [robot.torque_parts(q, qd, qdd).as_dict()[k]
                                           for k in PARTS], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.reshape(module.inverse_dynamics_derivatives(q, qd, qdd),
                                              (3, 3, 3)),
                                   np.stack(robot.inverse_dynamics_derivatives(q, qd, qdd)),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.reshape(module.forward_dynamics_derivatives(q, qd, tau),
                                              (3, 3, 3)),
                                   np.stack(robot.forward_dynamics_derivatives(q, qd, tau)),
                                   rtol=1e-10, atol=1e-10)
        Y = standard_columns(robot.chain, np.reshape(module.regressor(q, qd, qdd), (3, -1)))
        np.testing.assert_allclose(Y @ pi, tau, rtol=1e-12, atol=1e-12)
