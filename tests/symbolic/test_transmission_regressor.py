"""The closed-form regressor of a coupled transmission (``theta = N q``): the motors'
columns ``Jm_k, Bm_k, Fm_k`` are ``n_k^T (n_k . qdd)``, ``n_k^T (n_k . qd)`` and
``n_k^T sign(n_k . qd)`` (``n_k`` row ``k`` of ``N``; Spong, Hutchinson & Vidyasagar §6.4),
``Y pi = tau`` exactly, ``Y`` equals the numeric regressor, and the base parameters group a
motor that drives one joint alone with that joint's ``ZZ``, ``Fv`` and ``Fs`` (its columns
are theirs times ``G^2``, ``G^2`` and ``|G|``), in the geometry's symbols."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd

# the planar 2R arm of the course notes, symbols l1, c1, ... with values; motor 1 drives
# joint 1 alone (row (50, 0)), motor 2's gear train passes through joint 1 (row (24, 30))
MODEL = """
name: coupled-2r
dh: standard
planar: true
gravity: [0, -g, 0]
links:
  - {joint: revolute, a: l1, mass: m1, com: [c1 - l1, 0, 0], inertia: [0, 0, I1, 0, 0, 0],
     friction: {viscous: 0.1, coulomb: 0.2}}
  - {joint: revolute, a: l2, mass: m2, com: [c2 - l2, 0, 0], inertia: [0, 0, I2, 0, 0, 0]}
values: {m1: 2.0, m2: 1.5, l1: 0.8, l2: 0.6, c1: 0.4, c2: 0.3, I1: 0.107, I2: 0.045, g: 9.81}
transmission:
  matrix: [[50.0, 0.0], [24.0, 30.0]]
  motor_inertia: [2.0e-4, 1.0e-4]
  motor_viscous: [1.0e-3, 2.0e-3]
  motor_coulomb: [0.01, 0.02]
"""
N = np.array([[50.0, 0.0], [24.0, 30.0]])


@pytest.fixture(scope="module")
def robot(tmp_path_factory):
    path = tmp_path_factory.mktemp("coupled") / "coupled-2r.yaml"
    path.write_text(MODEL)
    return rd.load(path)


@pytest.fixture(scope="module")
def reg(robot):
    return robot.equations().regressor()


def test_the_motors_columns_are_the_hand_forms(robot, reg):
    Y, pi = reg
    names = [str(p) for p in pi]
    assert names == list(robot.inertial_parameters()[0])
    eq = reg._eq
    qd1, qd2 = eq.qd
    qdd1, qdd2 = eq.qdd
    rate = {"Jm": (50 * qdd1, 24 * qdd1 + 30 * qdd2), "Bm": (50 * qd1, 24 * qd1 + 30 * qd2),
            "Fm": (sp.sign(qd1), sp.sign(24 * qd1 + 30 * qd2))}
    rates = [*eq.qd, *eq.qdd]
    points = np.random.default_rng(0).normal(size=(5, 4))
    for kind, (r1, r2) in rate.items():
        for i in range(2):  # rows n_1 = (50, 0), n_2 = (24, 30)
            for k, r in ((0, r1), (1, r2)):
                difference = sp.lambdify(rates, Y[i, names.index(f"{kind}{k + 1}")] - N[k, i] * r)
                assert max(abs(float(difference(*x))) for x in points) < 1e-12, (kind, i, k)


def test_y_pi_is_tau_exactly_and_equals_the_numeric_regressor(robot, reg):
    assert reg.check()  # Y pi == tau in the ring, the friction columns as SymPy
    Y, pi = reg
    eq = reg._eq
    values = {sp.Symbol(k): v for k, v in robot.values.items()}
    numeric = sp.lambdify([*eq.q, *eq.qd, *eq.qdd], Y.subs(values), "numpy")
    _, pi_values = robot.inertial_parameters()
    np.testing.assert_allclose([float(reg.values[p].subs(values)) for p in pi], pi_values,
                               rtol=1e-14)
    rng = np.random.default_rng(1)
    for q, qd, qdd in rng.normal(size=(6, 3, 2)):
        got = np.array(numeric(*q, *qd, *qdd), dtype=float)
        want = robot.regressor(q, qd, qdd)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
        np.testing.assert_allclose(got @ pi_values, robot.inverse_dynamics(q, qd, qdd),
                                   rtol=1e-12, atol=1e-12)


def test_the_base_parameters_group_the_lone_motor_with_its_joint(robot):
    bp = robot.base_parameters()
    assert bp.symbolic, bp.note
    combos = {str(n): c for n, c in zip(bp.base_names, bp.combinations, strict=True)}
    Jm1, Bm1, Fm1, ZZ1, Fv1, Fs1, l1, m2 = sp.symbols("Jm1 Bm1 Fm1 ZZ1 Fv1 Fs1 l1 m2")
    # motor 1's columns are joint 1's ZZ1, Fv1, Fs1 columns times 50^2, 50^2, |50|
    assert sp.expand(combos["ZZ1R"] - (ZZ1 + l1**2 * m2 + 2500 * Jm1)) == 0
    assert sp.expand(combos["Fv1R"] - (Fv1 + 2500 * Bm1)) == 0
    assert sp.expand(combos["Fs1R"] - (Fs1 + 50 * Fm1)) == 0
    for name in ("Jm2", "Bm2", "Fm2"):  # motor 2 moves both joints: identifiable alone
        assert combos[name] == sp.Symbol(name)
    # the numeric regressor says the same: its Jm1, Bm1, Fm1 columns are those multiples
    names = list(robot.inertial_parameters()[0])
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.normal(size=(3, 40, 2))
    Y = robot.regressor(q, qd, qdd).reshape(-1, len(names))
    for motor, joint, factor in (("Jm1", "ZZ1", 2500), ("Bm1", "Fv1", 2500), ("Fm1", "Fs1", 50)):
        np.testing.assert_allclose(Y[:, names.index(motor)], factor * Y[:, names.index(joint)],
                                   rtol=1e-13, atol=1e-13)
    # and Y pi = Y_b pi_b with the base values
    _, pi = robot.inertial_parameters()
    np.testing.assert_allclose(robot.regressor_base(q, qd, qdd) @ bp.values,
                               robot.regressor(q, qd, qdd) @ pi, rtol=1e-12, atol=1e-12)


def test_the_closed_form_export_has_the_motors_regressor(robot):
    # the exported closed forms (eq.to_code) write the regressor now that it has the
    # motors' columns: Y pi is the robot's torque
    import types

    (fname, text), = robot.equations().to_code("python").items()
    module = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), module.__dict__)  # the file robodyn just wrote
    _, pi = robot.inertial_parameters()
    for q, qd, qdd in np.random.default_rng(3).normal(size=(4, 3, 2)):
        np.testing.assert_allclose(np.asarray(module.regressor(q, qd, qdd)) @ pi,
                                   robot.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)
