"""Exported code of a model with LuGre friction (:mod:`robodyn.dynamics.lugre_dynamics`):
the inverse and forward dynamics, the friction and the torque parts take the bristle
deflections z, bristle_rate gives dz/dt, all equal to the numeric LuGre model
(robodyn.motion.lugre.lugre_rates, whose steady state and presliding are checked against
their closed forms in tests/motion/test_lugre.py) beside the robot's own methods; a run
integrated with the exported functions is simulate_lugre's; what has no traced form with z
is refused by name."""

from __future__ import annotations

import shutil
import types

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion.lugre import lugre_rates, simulate_lugre

# joint 2 without dry friction (Fc = Fs = 0: its bristles follow it); joint 1 with its own
# viscous and Coulomb friction beside LuGre's
MODEL = """
name: lugre_arm
dh: standard
gravity: [0, -9.81, 0]
lugre: {sigma0: [1.0e4, 2.0e3], sigma1: [100, 5], sigma2: [0.1, 0.3], Fc: [3, 0],
        Fs: [4, 0], vs: [0.1, 0.2]}
links:
  - {joint: revolute, a: 0.6, mass: 2.0, com: [-0.3, 0, 0], inertia: [0.03, 0.03, 0.06, 0, 0, 0],
     friction: {viscous: 0.2, coulomb: 0.5}}
  - {joint: revolute, a: 0.4, mass: 1.0, com: [-0.2, 0, 0], inertia: [0.01, 0.01, 0.02, 0, 0, 0]}
"""
C_FUNCTIONS = ["inverse_dynamics", "forward_dynamics", "bristle_rate", "friction_torques",
               "inverse_dynamics_derivatives", "forward_dynamics_derivatives",
               "bristle_rate_derivatives"]


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    path = tmp_path_factory.mktemp("lugre") / "arm.yaml"
    path.write_text(MODEL)
    return rd.load(path)


@pytest.fixture(scope="module")
def exported(arm):
    (fname, text), = arm.to_code("python").items()
    module = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), module.__dict__)  # the file robodyn just wrote
    return module


@pytest.fixture(scope="module")
def compiled(arm):
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler (cc, gcc, clang) on PATH")
    return arm.compile_c(C_FUNCTIONS)


def _states(n=8, seed=5):
    rng = np.random.default_rng(seed)
    q, qd, qdd, h_e = rng.normal(size=(n, 2)), rng.normal(size=(n, 2)) * 0.3, \
        rng.normal(size=(n, 2)), rng.normal(size=(n, 6))
    qd[0] = 0.0  # at rest: |qd| = 0
    z = rng.normal(size=(n, 2)) * 4e-4
    return q, qd, qdd, z, h_e


def _check(arm, kernels, contact: bool):
    lugre = arm.chain.lugre
    q, qd, qdd, z, h_e = _states()
    dz, force = lugre_rates(lugre, qd, z)
    tau = arm.inverse_dynamics(q, qd, qdd) + force
    np.testing.assert_allclose(kernels.inverse_dynamics(q, qd, qdd, z), tau, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(kernels.bristle_rate(qd, z), dz, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernels.friction_torques(qd, z),
                               arm.friction_torques(qd) + force, rtol=1e-12, atol=1e-12)
    # the forward dynamics: F acts against tau
    np.testing.assert_allclose(kernels.forward_dynamics(q, qd, tau, z), qdd, rtol=1e-10,
                               atol=1e-10)
    if contact:
        np.testing.assert_allclose(kernels.inverse_dynamics_contact(q, qd, qdd, h_e, z),
                                   arm.inverse_dynamics(q, qd, qdd, h_e) + force, rtol=1e-12,
                                   atol=1e-12)
        parts = kernels.torque_parts(q, qd, qdd, z)
        mine = arm.torque_parts(q, qd, qdd)
        np.testing.assert_allclose(parts[:, 3], mine.friction + force, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(parts[:, 5], tau, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(parts[:, 0], mine.inertial, rtol=1e-12, atol=1e-12)


def test_the_python_export_includes_lugre(arm, exported):
    _check(arm, exported, contact=True)


def test_the_compiled_c_export_includes_lugre(arm, compiled):
    _check(arm, compiled, contact=False)


def test_the_compiled_c_derivatives_are_the_python_ones(exported, compiled):
    # the values against hand derivatives and differences: test_lugre_derivatives_export.py
    q, qd, qdd, z, _ = _states()
    for name, args in (("inverse_dynamics_derivatives", (q, qd, qdd, z)),
                       ("bristle_rate_derivatives", (qd, z))):
        got = np.reshape(getattr(compiled, name)(*args), (len(q), -1))
        want = np.stack([np.ravel(getattr(exported, name)(*row)) for row in zip(*args)])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    tau = np.stack([np.ravel(exported.inverse_dynamics(*row)) for row in zip(q, qd, qdd, z)])
    got = np.reshape(compiled.forward_dynamics_derivatives(q, qd, tau, z), (len(q), -1))
    want = np.stack([np.ravel(exported.forward_dynamics_derivatives(*row))
                     for row in zip(q, qd, tau, z)])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_a_run_of_the_exported_functions_is_simulate_lugres(arm, exported):
    q0, duration, times = np.array([0.3, -0.2]), 0.1, np.linspace(0.0, 0.1, 11)
    reference = simulate_lugre(arm, None, q0=q0, duration=duration, sample_dt=0.01,
                               rtol=1e-8, atol=1e-10)

    def rhs(t, x):
        q, qd, z = x[:2], x[2:4], x[4:]
        return np.concatenate([qd, exported.forward_dynamics(q, qd, np.zeros(2), z),
                               exported.bristle_rate(qd, z)])

    sol = solve_ivp(rhs, (0.0, duration), np.concatenate([q0, [0, 0, 0, 0]]), method="Radau",
                    t_eval=times, rtol=1e-8, atol=1e-10)
    assert sol.success
    assert np.abs(reference.q).max() > 0  # it moves: gravity holds more than Fs
    np.testing.assert_allclose(sol.y[:2].T, reference.q, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sol.y[4:].T, reference.z, rtol=1e-6, atol=1e-10)


def test_the_regressor_is_refused_and_bristle_rate_needs_lugre(arm):
    # F(qd, z) is not linear in LuGre's parameters (g divides): no regressor columns
    with pytest.raises(InputError, match="regressor of a model with LuGre friction"):
        arm.to_code("c", functions=["regressor"])
    header = arm.to_code("c")["lugre_arm.h"]  # the default: LuGre's entries, no regressor
    assert "bristle_rate_derivatives" in header and "regressor" not in header
    for kind in ("bristle_rate", "bristle_rate_derivatives"):
        with pytest.raises(InputError, match="no lugre"):
            rd.load("planar-2r").to_code("python", functions=[kind])
