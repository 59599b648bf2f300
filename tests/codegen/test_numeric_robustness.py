"""Bad numbers in, clear errors out: NaN/inf and non-real inputs, a singular mass
matrix, parameter values that overflow (issue 7 reproductions)."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError, ModelError

TWO_LINK = """
name: two-link
dh: standard
gravity: [0, -g, 0]
links:
  - joint: revolute
    a: 1
    mass: 1
    com: [-0.5, 0, 0]
    inertia: [0, 0.1, 0.1, 0, 0, 0]
  - joint: {joint2}
    a: {a2}
    mass: {mass2}
    com: [0, 0, 0]
    inertia: [0, 0, 0, 0, 0, 0]
values: {{g: 9.81{values}}}
"""


def _model(tmp_path, name="two-link.yaml", joint2="revolute", a2=1, mass2=0, values=""):
    path = tmp_path / name
    path.write_text(TWO_LINK.format(joint2=joint2, a2=a2, mass2=mass2, values=values))
    return rd.load(path)


@pytest.fixture(scope="module")
def robot():
    return rd.load("planar-2r")


@pytest.mark.parametrize("call, message", [
    (lambda r: r.inverse_dynamics(np.zeros(2), np.zeros(2), np.zeros(2),
                                  h_e=[np.nan, 0, 0, 0, 0, 0]), r"h_e\[0\] is nan"),
    (lambda r: r.forward_dynamics(np.zeros(2), np.zeros(2), np.zeros(2),
                                  h_e=[0, 0, np.inf, 0, 0, 0]), r"h_e\[2\] is inf"),
    (lambda r: r.forward_dynamics(np.zeros((3, 2)), np.zeros(2), np.zeros(2),
                                  h_e=[[0, 0, 0, 0, 0, 0]] * 2 + [[0, 0, 0, 0, np.nan, 0]]),
     r"h_e\[2, 4\] is nan"),
    (lambda r: r.friction_torques([0.0, np.nan]), r"qd\[1\] is nan"),
    (lambda r: r.kinetic_energy([0.0, 0.0], [np.inf, 0.0]), r"qd\[0\] is inf"),
    (lambda r: r.mass_matrix(np.array([1 + 2j, 0])), r"q: expected real numbers, got an array "
                                                      r"of complex numbers"),
    (lambda r: r.gravity_torques([True, False]), r"q: expected real numbers, got an array of "
                                                 r"booleans"),
    (lambda r: r.gravity_torques(["1", "2"]), r"q: expected real numbers, got an array of text"),
    (lambda r: r.gravity_torques(np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]")),
     r"q: expected real numbers, got an array of dates"),
    (lambda r: r.gravity_torques([datetime.date(2024, 1, 1), 0.0]),
     r"q: expected real numbers, got an array of Python objects"),
    (lambda r: r.jacobian([[0.0, 0.0], [0.0]]), r"q: expected an array of real numbers"),
])
def test_bad_inputs_name_the_argument(robot, call, message):
    with pytest.raises(InputError, match=message):
        call(robot)


def test_h_e_with_wrong_width_is_named(robot):
    with pytest.raises(InputError, match=r"h_e: expected shape \(\.\.\., 6\)"):
        robot.forward_dynamics(np.zeros(2), np.zeros(2), np.zeros(2), h_e=np.zeros(5))


def test_contact_wrench_equals_jacobian_transpose(robot):
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.normal(size=(3, 7, 2))
    h = rng.normal(size=(7, 6))
    jac = robot.jacobian(q)
    expected = robot.inverse_dynamics(q, qd, qdd) + np.einsum("kij,ki->kj", jac, h)
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd, h_e=h), expected, rtol=1e-12)
    tau = robot.inverse_dynamics(q, qd, qdd, h_e=h)
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau, h_e=h), qdd, rtol=1e-9,
                               atol=1e-9)
    # one wrench for every sample broadcasts
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd, h_e=h[0]),
                               robot.inverse_dynamics(q, qd, qdd, h_e=np.tile(h[0], (7, 1))))


def test_a_massless_last_link_written_as_zero_is_a_model_error(tmp_path):
    robot = _model(tmp_path)
    assert robot.mass_matrix([0.1, 0.2]).shape == (2, 2)  # M itself is fine, just singular
    with pytest.raises(ModelError, match=r"mass matrix is singular.*joint 2"):
        robot.forward_dynamics([0.1, 0.2], [0.0, 0.0], [0.0, 0.0])


@pytest.mark.parametrize("shape", [(2,), (5, 2)])
def test_a_massless_last_link_given_by_a_parameter_is_a_model_error(tmp_path, shape):
    robot = _model(tmp_path, name="param.yaml", mass2="m2", values=", m2: 0.0")
    q = np.full(shape, 0.3)
    with pytest.raises(ModelError, match=r"mass matrix is singular \(Cholesky pivot 0 at "
                                         r"joint 2"):
        robot.forward_dynamics(q, np.zeros(shape), np.zeros(shape))
    heavy = robot.with_values(m2=2.0)
    assert np.isfinite(heavy.forward_dynamics(q, np.zeros(shape), np.zeros(shape))).all()


def test_parameter_values_that_overflow_are_a_model_error(robot):
    huge = robot.with_values(m2=1e308, l1=1e10)
    with pytest.raises(ModelError, match=r"not finite although the inputs are.*overflow"):
        huge.inverse_dynamics(np.ones(2), np.ones(2), np.ones(2))


def test_numpy_backend_reports_the_same_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBODYN_BACKEND", "numpy")
    robot = _model(tmp_path, name="numpy-backend.yaml", mass2="m2", values=", m2: 0.0")
    with pytest.raises(ModelError, match="mass matrix is singular"):
        robot.forward_dynamics(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(InputError, match=r"h_e\[1, 0\] is nan"):
        robot.with_values(m2=1.0).inverse_dynamics(
            np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2)),
            h_e=[[0.0] * 6, [np.nan] + [0.0] * 5])


def test_an_overflowing_input_is_named_not_a_parameter(numpy_backend):
    """tau is quadratic in qd: qd = 1e200 overflows float64 whatever the parameters are,
    so the error names qd (not the largest parameter, g = 9.81)."""
    robot = rd.load("planar-2r")
    with pytest.raises(rd.InputError, match=r"inverse_dynamics: qd\[1\] = 1e\+200 makes"):
        robot.inverse_dynamics([0.0, 0.0], [0.0, 1e200], [0.0, 0.0])
    heavy = robot.with_values(m2=1e300)  # here the parameter is what overflows
    with pytest.raises(rd.ModelError, match=r"the largest is m2 = 1e\+300"):
        heavy.inverse_dynamics([0.0, 0.0], [1e10, 1e10], [1.0, 1.0])
