"""The PUMA 560 against Peter Corke's Robotics Toolbox for Python (an independent
implementation of the same published model): rne, inertia and gravload, with and
without motor inertia, friction off; and rne with the Toolbox's motor friction on."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robodyn as rd

rtb = pytest.importorskip("roboticstoolbox")

RTOL = 1e-9


@pytest.fixture(scope="module")
def pair():
    toolbox = rtb.models.DH.Puma560().nofriction(coulomb=True, viscous=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)  # published inertias
        robot = rd.load("puma560")
    return toolbox, robot


def _states(n=20, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (n, 6)), rng.normal(size=(n, 6)), rng.normal(size=(n, 6))


def _close(actual, expected):
    scale = np.abs(expected).max()
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=RTOL * scale)


def test_published_parameters_are_the_toolbox_s(pair):
    toolbox, robot = pair
    for k, (link, theirs) in enumerate(zip(robot.numeric_chain.links, toolbox.links,
                                           strict=True)):
        assert link.inertial.mass == pytest.approx(theirs.m)
        assert link.motor.inertia == pytest.approx(theirs.Jm)
        assert link.motor.gear_ratio == pytest.approx(theirs.G)
        assert robot.values[f"Jm{k + 1}"] == theirs.Jm


@pytest.mark.parametrize("motors", [True, False])
def test_puma_tau_M_g_equal_the_toolbox(pair, motors):
    toolbox, robot = pair
    if not motors:
        toolbox = toolbox.copy() if hasattr(toolbox, "copy") else toolbox
        for link in toolbox.links:
            link.Jm = 0.0
        robot = robot.with_values({f"Jm{k}": 0.0 for k in range(1, 7)})
    try:
        q, qd, qdd = _states()
        for k in range(len(q)):
            _close(robot.inverse_dynamics(q[k], qd[k], qdd[k]), toolbox.rne(q[k], qd[k], qdd[k]))
            _close(robot.mass_matrix(q[k]), toolbox.inertia(q[k]))
            _close(robot.gravity_torques(q[k]), toolbox.gravload(q[k]))
    finally:
        if not motors:
            for link, jm in zip(toolbox.links, (200e-6,) * 3 + (33e-6,) * 3, strict=True):
                link.Jm = jm


def test_motor_inertia_changes_only_the_diagonal_of_M(pair):
    _, robot = pair
    q, _, _ = _states(4, seed=1)
    bare = robot.with_values({f"Jm{k}": 0.0 for k in range(1, 7)})
    v = robot.values
    armature = [v[f"G{k}"] ** 2 * v[f"Jm{k}"] for k in range(1, 7)]
    np.testing.assert_allclose(robot.mass_matrix(q) - bare.mass_matrix(q),
                               np.broadcast_to(np.diag(armature), (4, 6, 6)), atol=1e-12)


def test_the_puma_has_the_toolbox_limits_and_configurations(pair, numpy_backend):
    toolbox, robot = pair
    reference = rtb.models.DH.Puma560()  # qlim and the configurations as published
    lower = [link.joint.limits[0] for link in robot.links]
    upper = [link.joint.limits[1] for link in robot.links]
    np.testing.assert_allclose(lower, reference.qlim[0], rtol=1e-15, atol=0)
    np.testing.assert_allclose(upper, reference.qlim[1], rtol=1e-15, atol=0)
    assert sorted(robot.configurations) == ["qn", "qr", "qs", "qz"]
    for name, q in robot.configurations.items():
        assert isinstance(q, np.ndarray) and q.shape == (6,)
        np.testing.assert_allclose(q, getattr(reference, name), rtol=1e-15, atol=0)
        assert (np.array(lower) <= q).all() and (q <= np.array(upper)).all()
        _close(robot.inverse_dynamics(q, 0.0, 0.0), toolbox.rne(q, 0 * q, 0 * q))


def test_puma_with_the_toolbox_friction_equals_rne(pair):
    """The PUMA 560 with the Toolbox's published motor friction (viscous ``B``, Coulomb
    ``Tc = (Tc+, Tc-)``, referred to the motor): at the joint, ``F_v = G^2 B``,
    ``F_c+ = |G| Tc+`` and ``F_c- = -|G| Tc-`` (robodyn's asymmetric levels), with the
    motor inertia ``G^2 J_m``; ``rne`` with friction on equals robodyn's inverse dynamics
    to 1e-12 of the torque scale."""
    from dataclasses import replace

    from robodyn.model.friction import Friction

    full = rtb.models.DH.Puma560()  # friction on
    _, robot = pair
    chain = robot.chain
    links = []
    for link, theirs in zip(chain.links, full.links, strict=True):
        g = abs(float(theirs.G))
        friction = Friction(
            viscous=float(theirs.G) ** 2 * float(theirs.B), coulomb=g * float(theirs.Tc[0]),
            coulomb_negative=-g * float(theirs.Tc[1]))
        links.append(replace(link, friction=friction))
    assert any(f.friction.coulomb != f.friction.coulomb_negative for f in links)
    rough = robot.with_chain(replace(chain, links=tuple(links)))
    q, qd, qdd = _states(20, seed=3)
    for k in range(len(q)):
        expected = full.rne(q[k], qd[k], qdd[k])
        scale = np.abs(expected).max()
        np.testing.assert_allclose(rough.inverse_dynamics(q[k], qd[k], qdd[k]), expected,
                                   rtol=1e-12, atol=1e-12 * scale)
    assert np.abs(rough.friction_torques(qd)).max() > 1  # the friction is really there
