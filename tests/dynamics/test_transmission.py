"""Coupled transmissions (theta = N q): the reflected inertia N^T Jm N, the motor torques
N^-T tau and the motors' friction, against a hand derivation of a two-joint coupled wrist
and against today's per-joint motors (G^2 Jm) for a diagonal N."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import ModelError
from robodyn.dynamics import transmission as drives
from robodyn.model.transmission import transmission_of

# A coupled wrist (Spong §6.4): motor 2's gear train passes through joint 1, so
# theta1 = G1 q1, theta2 = G2 (q2 + c q1).
G1, G2, C, J1, J2 = 50.0, 30.0, 0.8, 2.0e-4, 1.0e-4
WRIST = {"matrix": [[G1, 0.0], [C * G2, G2]], "motor_inertia": [J1, J2]}


def test_coupled_wrist_reflected_inertia_equals_the_hand_derivation():
    # T_m = 1/2 J1 (G1 q1')^2 + 1/2 J2 G2^2 (q2' + c q1')^2, so d2T/dqd2 is
    tr = transmission_of(WRIST, 2)
    hand = np.array([[G1**2 * J1 + C**2 * G2**2 * J2, C * G2**2 * J2],
                     [C * G2**2 * J2, G2**2 * J2]])
    np.testing.assert_allclose(drives.reflected_inertia(tr), hand, rtol=1e-14)


def test_coupled_wrist_motor_torques_equal_the_hand_derivation():
    # power: tau1 q1' + tau2 q2' = tm1 G1 q1' + tm2 G2 (q2' + c q1') for all qd, so
    # tau2 = G2 tm2 and tau1 = G1 tm1 + c G2 tm2: tm2 = tau2 / G2, tm1 = (tau1 - c tau2) / G1
    tr = transmission_of(WRIST, 2)
    tau = np.random.default_rng(1).normal(size=(5, 2))
    hand = np.stack([(tau[:, 0] - C * tau[:, 1]) / G1, tau[:, 1] / G2], axis=-1)
    np.testing.assert_allclose(drives.motor_torques(tr, tau), hand, rtol=1e-13)
    np.testing.assert_allclose(drives.joint_torques(tr, hand), tau, rtol=1e-13, atol=1e-15)


def test_motor_power_equals_joint_power():
    tr = transmission_of(WRIST, 2)
    rng = np.random.default_rng(2)
    tau, qd = rng.normal(size=(2, 7, 2))
    p_motor = np.sum(drives.motor_torques(tr, tau) * drives.motor_angles(tr, qd), axis=-1)
    np.testing.assert_allclose(p_motor, np.sum(tau * qd, axis=-1), rtol=1e-12)


def test_motor_friction_reflects_and_dissipates():
    tr = transmission_of({**WRIST, "motor_viscous": [1e-3, 2e-3],
                          "motor_coulomb": [0.01, 0.02]}, 2)
    qd = np.array([0.3, -0.5])
    thetad = np.array([G1 * 0.3, G2 * (-0.5 + C * 0.3)])
    tm = np.array([1e-3, 2e-3]) * thetad + np.array([0.01, 0.02]) * np.sign(thetad)
    hand = np.array([G1 * tm[0] + C * G2 * tm[1], G2 * tm[1]])
    np.testing.assert_allclose(drives.motor_friction(tr, qd), hand, rtol=1e-14)
    qds = np.random.default_rng(3).normal(size=(50, 2))
    assert np.all(np.sum(drives.motor_friction(tr, qds) * qds, axis=-1) >= 0)


MODEL = """
name: 2r
dh: standard
gravity: [0, -9.81, 0]
links:
  - joint: revolute
    a: 0.7
    mass: 2
    com: [0.35, 0, 0]
    inertia: [0.01, 0.08, 0.08, 0, 0, 0]
    {m1}
  - joint: revolute
    a: 0.5
    mass: 1.2
    com: [0.25, 0, 0]
    inertia: [0.02, 0.03, 0.04, 0, 0, 0]
    {m2}
"""


def _robot(tmp_path, motors):
    m1, m2 = ((f"motor: {{inertia: {J1}, gear_ratio: {G1}}}",
               f"motor: {{inertia: {J2}, gear_ratio: {G2}}}") if motors else ("", ""))
    path = tmp_path / f"m{motors}.yaml"
    path.write_text(MODEL.format(m1=m1, m2=m2))
    return rd.load(path)


def test_diagonal_matrix_equals_todays_per_joint_motors(tmp_path):
    motors, plain = _robot(tmp_path, True), _robot(tmp_path, False)
    tr = transmission_of({"matrix": [[G1, 0], [0, G2]], "motor_inertia": [J1, J2]}, 2)
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.normal(size=(3, 6, 2))
    np.testing.assert_allclose(drives.mass_matrix(tr, plain.mass_matrix(q)),
                               motors.mass_matrix(q), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(drives.inverse_dynamics(tr, plain.inverse_dynamics(q, qd, qdd),
                                                       qd, qdd),
                               motors.inverse_dynamics(q, qd, qdd), rtol=1e-13, atol=1e-13)
    tau = motors.inverse_dynamics(q, qd, qdd)
    bias = plain.inverse_dynamics(q, qd, np.zeros_like(qdd))
    np.testing.assert_allclose(drives.forward_dynamics(tr, plain.mass_matrix(q), bias, qd, tau),
                               qdd, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(drives.motor_torques(tr, tau), tau / np.array([G1, G2]),
                               rtol=1e-14)


def test_coupled_forward_dynamics_inverts_inverse_dynamics(tmp_path):
    plain = _robot(tmp_path, False)
    tr = transmission_of({**WRIST, "motor_viscous": [1e-3, 2e-3]}, 2)
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.normal(size=(3, 6, 2))
    tau = drives.inverse_dynamics(tr, plain.inverse_dynamics(q, qd, qdd), qd, qdd)
    bias = plain.inverse_dynamics(q, qd, np.zeros_like(qdd))
    np.testing.assert_allclose(drives.forward_dynamics(tr, plain.mass_matrix(q), bias, qd, tau),
                               qdd, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("data", "field"), [
    ({"matrix": [[1, 2], [2, 4]], "motor_inertia": [1, 1]}, "transmission.matrix: singular"),
    ({"matrix": [[1, 0]], "motor_inertia": [1, 1]}, "transmission.matrix: 1 rows"),
    ({"matrix": [[1, 0], [0]], "motor_inertia": [1, 1]}, "transmission.matrix[1]: 1 entries"),
    ({"matrix": [[1, 0], [0, 1]], "motor_inertia": [1, -1]}, "transmission.motor_inertia[1]"),
    ({"matrix": [[1, 0], [0, 1]]}, "missing motor_inertia"),
    ({"matrix": [[1, 0], [0, "x"]], "motor_inertia": [1, 1]}, "transmission.matrix[1][1]"),
    ({"matrix": [[1, 0], [0, 1]], "motor_inertia": [1, 1], "gear": 2}, "unknown key"),
    ({"matrix": [[1, 0], [0, float("nan")]], "motor_inertia": [1, 1]}, "not finite"),
])
def test_bad_transmissions_are_refused_naming_the_field(data, field):
    with pytest.raises(ModelError, match=field.replace("[", r"\[").replace("]", r"\]")):
        transmission_of(data, 2)


def _with_transmission(tmp_path, matrix, extra=""):
    path = tmp_path / "t.yaml"
    path.write_text(MODEL.format(m1="", m2="") + f"transmission:\n  matrix: {matrix}\n"
                    f"  motor_inertia: [{J1}, {J2}]\n{extra}")
    return rd.load(path)


def test_model_file_diagonal_transmission_is_todays_motors_in_every_function(tmp_path):
    motors = _robot(tmp_path, True)
    robot = _with_transmission(tmp_path, f"[[{G1}, 0], [0, {G2}]]",
                               "  motor_viscous: [1.0e-3, 2.0e-3]\n  motor_coulomb: [0.01, 0]\n")
    assert robot.chain.transmission is None  # folded into the links' motors
    rng = np.random.default_rng(6)
    q, qd, qdd = rng.normal(size=(3, 6, 2))
    # the motors' friction reflected by hand: G^2 Bm qd + |G| Fm sign(qd)
    friction = (np.array([G1**2 * 1e-3, G2**2 * 2e-3]) * qd
                + np.array([G1 * 0.01, 0.0]) * np.sign(qd))
    np.testing.assert_allclose(robot.mass_matrix(q), motors.mass_matrix(q), rtol=1e-14)
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd),
                               motors.inverse_dynamics(q, qd, qdd) + friction,
                               rtol=1e-12, atol=1e-12)
    tau = rng.normal(size=(6, 2))
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau),
                               motors.forward_dynamics(q, qd, tau - friction),
                               rtol=1e-10, atol=1e-10)


def _coupled(tmp_path, extra=""):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a coupled transmission is in every form: no warning
        return _with_transmission(tmp_path, f"[[{G1}, 0], [{C * G2}, {G2}]]", extra)


def test_model_file_coupled_transmission_enters_the_robots_methods(tmp_path):
    robot = _coupled(tmp_path, "  motor_viscous: [1.0e-3, 2.0e-3]\n")
    plain = _robot(tmp_path, False)
    np.testing.assert_array_equal(robot.chain.transmission.N, np.array(WRIST["matrix"]))
    R = np.array([[G1**2 * J1 + C**2 * G2**2 * J2, C * G2**2 * J2],
                  [C * G2**2 * J2, G2**2 * J2]])  # the hand derivation above
    N = np.array(WRIST["matrix"])
    BR = N.T @ np.diag([1e-3, 2e-3]) @ N
    rng = np.random.default_rng(7)
    q, qd, qdd = rng.normal(size=(3, 4, 2))
    np.testing.assert_allclose(robot.mass_matrix(q), plain.mass_matrix(q) + R, rtol=1e-13)
    tau = plain.inverse_dynamics(q, qd, qdd) + qdd @ R + qd @ BR
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd), tau, rtol=1e-12, atol=1e-12)
    for k in range(len(q)):  # one state at a time too (the robot's one-state shortcut)
        for _ in range(3):
            np.testing.assert_allclose(robot.inverse_dynamics(q[k], qd[k], qdd[k]), tau[k],
                                       rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(robot.forward_dynamics(q[k], qd[k], tau[k]), qdd[k],
                                       rtol=1e-9, atol=1e-9)
    parts = robot.torque_parts(q, qd, qdd)
    np.testing.assert_allclose(parts.total, tau, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(parts.inertial, plain.torque_parts(q, qd, qdd).inertial + qdd @ R,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(robot.kinetic_energy(q, qd),
                               0.5 * np.einsum("...i,...ij,...j", qd, robot.mass_matrix(q), qd),
                               rtol=1e-12)
    d_q, d_qd, d_qdd = robot.inverse_dynamics_derivatives(q, qd, qdd)
    np.testing.assert_allclose(d_qdd, robot.mass_matrix(q), rtol=1e-12)
    eps = 1e-6  # central differences of the driven inverse dynamics in qd
    fd = np.stack([(robot.inverse_dynamics(q, qd + eps * e, qdd)
                    - robot.inverse_dynamics(q, qd - eps * e, qdd)) / (2 * eps)
                   for e in np.eye(2)], axis=-1)
    np.testing.assert_allclose(d_qd, fd, rtol=1e-6, atol=1e-6)
    f_q, f_qd, f_tau = robot.forward_dynamics_derivatives(q, qd, tau)
    eye = np.broadcast_to(np.eye(2), f_tau.shape)
    np.testing.assert_allclose(f_tau @ robot.mass_matrix(q), eye, atol=1e-9)
    fd = np.stack([(robot.forward_dynamics(q + eps * e, qd, tau)
                    - robot.forward_dynamics(q - eps * e, qd, tau)) / (2 * eps)
                   for e in np.eye(2)], axis=-1)
    np.testing.assert_allclose(f_q, fd, rtol=1e-5, atol=1e-5)


def test_coupled_transmission_simulation_keeps_its_energy(tmp_path):
    # no friction, no torque: T + U of links and rotors is constant (the rotors' T included)
    robot = _coupled(tmp_path)
    sim = rd.simulate(robot, q0=[0.4, -0.3], qd0=[0.0, 0.0], duration=1.0)
    energy = robot.kinetic_energy(sim.q, sim.qd) + robot.potential_energy(sim.q)
    assert np.ptp(energy) < 1e-6 * max(1.0, np.abs(energy).max())
    # and it is not the rigid arm's motion: the rotors slow the fall
    plain = rd.simulate(_robot(tmp_path, False), q0=[0.4, -0.3], qd0=[0.0, 0.0],
                        duration=1.0)
    assert np.abs(sim.q[-1] - plain.q[-1]).max() > 1e-2


def test_coupled_transmission_refuses_the_raw_kernels(tmp_path):
    robot = _coupled(tmp_path)
    with pytest.raises(ModelError, match="coupled transmission"):
        robot.kernel("inverse_dynamics")


@pytest.mark.parametrize(("matrix", "extra", "match"), [
    ("[[1, 2], [2, 4]]", "", "transmission.matrix: singular"),
    ("[[1, 0], [0, 1], [0, 0]]", "", "transmission.matrix: 3 rows for 2 joints"),
    ("[[1, 0], [0, 1]]", "  motor_coulomb: [0, -1]\n", r"motor_coulomb\[1\]: -1 is negative"),
    ("[[1, 0], [0, 1]]", "  motor_viscous: [a, 1]\n", r"motor_viscous\[0\]: expected a number"),
])
def test_model_file_bad_transmission_names_the_field(tmp_path, matrix, extra, match):
    with pytest.raises(ModelError, match=match):
        _with_transmission(tmp_path, matrix, extra)


def test_model_file_motor_and_transmission_together_are_refused(tmp_path):
    path = tmp_path / "both.yaml"
    path.write_text(MODEL.format(m1="motor: {inertia: 1.0e-4, gear_ratio: 10}", m2="")
                    + "transmission: {matrix: [[1, 0], [0, 1]], motor_inertia: [0, 0]}\n")
    with pytest.raises(ModelError, match=r"links\[0\] already has a motor"):
        rd.load(path)


def test_urdf_and_mjcf_exports_say_the_coupled_transmission_is_left_out(tmp_path):
    robot = _coupled(tmp_path)
    assert "coupled transmission (theta = N q, N^T Jm N) is left out" in robot.to_urdf()
    assert "coupled transmission (theta = N q, N^T Jm N) is left out" in robot.to_mjcf()
    assert "coupled transmission" not in _robot(tmp_path, False).to_urdf()


def test_coupled_transmission_with_an_end_effector_wrench(tmp_path):
    robot, plain = _coupled(tmp_path), _robot(tmp_path, False)
    rng = np.random.default_rng(8)
    q, qd, qdd = rng.normal(size=(3, 2))
    h = rng.normal(size=6)
    tau = robot.inverse_dynamics(q, qd, qdd, h_e=h)
    R = drives.reflected_inertia(transmission_of(WRIST, 2))
    np.testing.assert_allclose(tau, plain.inverse_dynamics(q, qd, qdd, h_e=h) + R @ qdd,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau, h_e=h), qdd, rtol=1e-9,
                               atol=1e-9)


def test_coupled_regressor_times_the_parameters_is_the_inverse_dynamics(tmp_path):
    """The regressor of a model with a coupled transmission has the tree's columns, then
    ``Jm_k, Bm_k, Fm_k`` per motor (columns ``n_k^T (n_k . qdd)``, ``n_k^T (n_k . qd)``,
    ``n_k^T sign(n_k . qd)``): ``Y pi = tau`` with the drives' torques, whose hand
    derivation (the coupled wrist above) this checks column by column."""
    robot = _with_transmission(tmp_path, f"[[{G1}, 0], [{C * G2}, {G2}]]",
                               "  motor_viscous: [1.0e-3, 2.0e-3]\n"
                               "  motor_coulomb: [0.01, 0.02]\n")
    names, values = robot.inertial_parameters()
    assert names[-6:] == ("Jm1", "Jm2", "Bm1", "Bm2", "Fm1", "Fm2")
    np.testing.assert_allclose(values[-6:], [J1, J2, 1e-3, 2e-3, 0.01, 0.02], rtol=1e-15)
    rng = np.random.default_rng(9)
    q, qd, qdd = rng.normal(size=(3, 8, 2))
    Y = robot.regressor(q, qd, qdd)
    np.testing.assert_allclose(Y @ values, robot.inverse_dynamics(q, qd, qdd), rtol=1e-12,
                               atol=1e-12)
    # motor 2 (row n_2 = (c G2, G2)): its inertia column is n_2^T (n_2 . qdd)
    n2 = np.array([C * G2, G2])
    np.testing.assert_allclose(Y[..., names.index("Jm2")], (qdd @ n2)[:, None] * n2,
                               rtol=1e-14)
    np.testing.assert_allclose(Y[..., names.index("Fm2")], np.sign(qd @ n2)[:, None] * n2,
                               rtol=1e-14)


def test_identification_of_a_coupled_wrist_gives_back_its_drives(tmp_path):
    """Noise-free torques of the coupled arm along random states: the base parameters
    estimated by least squares give the torques back (1e-9), and the drives' parameters
    come back (1e-8 relative), motor 1's grouped with joint 1's friction by hand."""
    robot = _with_transmission(tmp_path, f"[[{G1}, 0], [{C * G2}, {G2}]]",
                               "  motor_viscous: [1.0e-3, 2.0e-3]\n"
                               "  motor_coulomb: [0.01, 0.02]\n")
    rng = np.random.default_rng(10)
    q, qd, qdd = rng.uniform(-2, 2, size=(3, 400, 2))
    tau = robot.inverse_dynamics(q, qd, qdd)
    result = rd.identify(robot, q, qd, qdd, tau, weights=[1.0, 1.0])
    np.testing.assert_allclose(robot.regressor_base(q, qd, qdd) @ result.estimate, tau,
                               atol=1e-9)
    assert result.residual_rms.max() < 1e-9
    found = dict(zip(result.names, result.estimate, strict=True))
    # motor 1 drives joint 1 alone (row (G1, 0)): its friction columns are G1^2 qd1 and
    # G1 sign(qd1) on joint 1, the joint's own viscous and Coulomb columns scaled, so the
    # base parameters group them (the links have no friction of their own); motor 2's
    # row (c G2, G2) makes its parameters identifiable on their own
    for name, want in (("Fv1R", G1**2 * 1e-3), ("Fs1R", G1 * 0.01), ("Jm2", J2),
                       ("Bm2", 2e-3), ("Fm2", 0.02)):
        assert found[name] == pytest.approx(want, rel=1e-8), name


def test_with_inertial_parameters_sets_the_drives(tmp_path):
    robot = _with_transmission(tmp_path, f"[[{G1}, 0], [{C * G2}, {G2}]]")
    names, values = robot.inertial_parameters()
    changed = values.copy()
    changed[names.index("Jm2")] = 3e-4
    other = robot.with_inertial_parameters(changed)
    assert other.chain.transmission.motor_inertia == (J1, 3e-4)
    rng = np.random.default_rng(12)
    q, qd, qdd = rng.normal(size=(3, 4, 2))
    np.testing.assert_allclose(other.inverse_dynamics(q, qd, qdd),
                               robot.regressor(q, qd, qdd) @ changed, rtol=1e-12, atol=1e-12)
    changed[names.index("Fm1")] = -1.0
    with pytest.raises(rd.ModelError, match="negative"):
        robot.with_inertial_parameters(changed)


def test_the_closed_forms_of_a_coupled_wrist_hold_its_motors(tmp_path):
    """Both routes' closed forms add the rotors' ``R = N^T J_m N`` (the hand derivation
    above) to ``M`` and the motors' friction ``N^T (B_m N qd + F_m sign(N qd))`` to the
    friction; Lagrange-Euler and Newton-Euler agree exactly, and the closed forms' numbers
    are the robot's."""
    from robodyn.symbolic import equations, verify

    robot = _coupled(tmp_path, "  motor_viscous: [1.0e-3, 2.0e-3]\n"
                               "  motor_coulomb: [0.01, 0.02]\n")
    plain = _robot(tmp_path, False)
    R = np.array([[G1**2 * J1 + C**2 * G2**2 * J2, C * G2**2 * J2],
                  [C * G2**2 * J2, G2**2 * J2]])
    rng = np.random.default_rng(13)
    q, qd, qdd = rng.normal(size=(3, 5, 2))
    assert verify(robot).holds
    for method in ("lagrange", "newton-euler"):
        numeric = equations(robot, method=method).numeric()
        np.testing.assert_allclose(numeric.M(q), plain.mass_matrix(q) + R, rtol=1e-12)
        np.testing.assert_allclose(numeric.tau(q, qd, qdd), robot.inverse_dynamics(q, qd, qdd),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(numeric.friction(qd), robot.friction_torques(qd),
                                   rtol=1e-12, atol=1e-12)
