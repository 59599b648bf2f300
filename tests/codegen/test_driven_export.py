"""Exported code of a model with a coupled transmission (``theta = N q``,
:mod:`robodyn.dynamics.driven_dynamics`): the inverse and forward dynamics, the mass
matrix, the friction and the kinetic energy include the motors, equal to the robot's own
methods (whose drives' terms are checked against a hand derivation in
tests/dynamics/test_transmission.py); what has no traced form yet is refused by name."""

from __future__ import annotations

import shutil
import types
import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError

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


def test_the_python_export_includes_the_motors(wrist, tmp_path):
    (fname, text), = wrist.to_code("python").items()
    module = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), module.__dict__)  # the file robodyn just wrote
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


def test_the_compiled_c_export_includes_the_motors(wrist):
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler (cc, gcc, clang) on PATH")
    c = wrist.compile_c(["inverse_dynamics", "forward_dynamics", "mass_matrix"])
    q, qd, qdd = _states(wrist, seed=4)
    tau = wrist.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(c.inverse_dynamics(q, qd, qdd), tau, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(c.forward_dynamics(q, qd, tau), qdd, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(c.mass_matrix(q), wrist.mass_matrix(q), rtol=1e-14)


def test_what_has_no_traced_form_with_the_drives_is_refused(wrist):
    names = set(wrist.to_code("python"))  # the default: the entries the drives' code has
    assert names
    for kind in ("torque_parts", "regressor", "inverse_dynamics_derivatives",
                 "inverse_dynamics_contact"):
        with pytest.raises(InputError, match=f"{kind} of a model with a coupled transmission"):
            wrist.to_code("c", functions=[kind])
