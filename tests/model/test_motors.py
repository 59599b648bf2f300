"""Motor (armature) inertia: the reflected rotor inertia G^2 Jm adds to M[i, i] and
enters every numeric function (Robotics Toolbox / Pinocchio armature convention)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import ModelError

MODEL = """
name: 2r-motors
dh: {dh}
gravity: [0, -g, 0]
links:
  - joint: revolute
    a: 0.7
    mass: 2
    com: [0.35, 0, 0]
    inertia: [0.01, 0.08, 0.08, 0, 0, 0]
    {motor1}
  - joint: prismatic
    alpha: pi/2
    mass: 1.2
    com: [0, 0.1, 0.2]
    inertia: [0.02, 0.03, 0.04, 0, 0, 0]
    {motor2}
values: {{g: 9.81, Jm1: 2.0e-4, G1: -62.6, Jm2: 1.0e-4, G2: 30.0}}
"""


def _load(tmp_path, dh="standard", motors=True):
    m1 = "motor: {inertia: Jm1, gear_ratio: G1}" if motors else "theta: 0"
    m2 = "motor: {inertia: Jm2, gear_ratio: G2}" if motors else "theta: 0"
    path = tmp_path / f"{dh}-{motors}.yaml"
    text = MODEL.format(dh=dh, motor1=m1, motor2=m2)
    if not motors:  # the same symbols must exist for with_values to be comparable
        text = text.replace(", Jm1: 2.0e-4, G1: -62.6, Jm2: 1.0e-4, G2: 30.0", "")
    path.write_text(text)
    return rd.load(path)


@pytest.mark.parametrize("dh", ["standard", "modified"])
def test_armature_adds_g2_jm_on_the_diagonal_of_M_and_to_tau(tmp_path, dh):
    with_motors, plain = _load(tmp_path, dh), _load(tmp_path, dh, motors=False)
    armature = np.array([(-62.6) ** 2 * 2.0e-4, 30.0**2 * 1.0e-4])
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.normal(size=(3, 10, 2))
    np.testing.assert_allclose(with_motors.mass_matrix(q) - plain.mass_matrix(q),
                               np.broadcast_to(np.diag(armature), (10, 2, 2)), atol=1e-12)
    np.testing.assert_allclose(with_motors.inverse_dynamics(q, qd, qdd)
                               - plain.inverse_dynamics(q, qd, qdd), armature * qdd, atol=1e-12)
    # no effect on C, g
    np.testing.assert_allclose(with_motors.coriolis_matrix(q, qd), plain.coriolis_matrix(q, qd),
                               atol=1e-12)
    np.testing.assert_allclose(with_motors.gravity_torques(q), plain.gravity_torques(q),
                               atol=1e-12)
    tau = with_motors.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(with_motors.forward_dynamics(q, qd, tau), qdd, atol=1e-9)
    np.testing.assert_allclose(with_motors.kinetic_energy(q, qd) - plain.kinetic_energy(q, qd),
                               0.5 * (armature * qd**2).sum(axis=1), atol=1e-12)
    zero = with_motors.with_values(Jm1=0.0, Jm2=0.0)
    np.testing.assert_allclose(zero.inverse_dynamics(q, qd, qdd), plain.inverse_dynamics(q, qd,
                                                                                        qdd))


def test_motor_field_errors(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(MODEL.format(dh="standard", motor1="motor: {inertia: -1}",
                                 motor2="motor: {gear: 3}"))
    with pytest.raises(ModelError, match=r"links\[1\]\.motor: unknown key\(s\) 'gear'"):
        rd.load(path)
    path.write_text(MODEL.format(dh="standard", motor1="motor: {inertia: -1}", motor2=""))
    with pytest.raises(ModelError, match=r"links\[0\]\.motor\.inertia: -1 is negative"):
        rd.load(path)


@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
def test_symbolic_equations_carry_the_motor_term(tmp_path, method):
    import sympy as sp

    robot = _load(tmp_path)
    eq = robot.equations(method=method)
    G1, Jm1, G2, Jm2 = sp.symbols("G1 Jm1 G2 Jm2")
    plain = _load(tmp_path, motors=False).equations(method=method)
    diff = sp.simplify(eq.M - plain.M)
    assert diff == sp.diag(G1**2 * Jm1, G2**2 * Jm2)
    # and the closed form agrees with the kernels
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.normal(size=(3, 4, 2))
    np.testing.assert_allclose(eq.numeric().tau(q, qd, qdd), robot.inverse_dynamics(q, qd, qdd),
                               rtol=1e-10, atol=1e-10)
