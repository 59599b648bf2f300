"""The built-in Delta robot (``rd.load("delta")``, an MJCF file with two ``<weld>`` loops)
against the Delta's own geometry, written here from its design numbers (R. Clavel's
kinematics: each forearm keeps its length ``l`` between the elbow of its arm and the
platform's joint, the platform only translates), MuJoCo's stiff welds and the virtual work
of gravity."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd

#: The design the built-in's comment states: base and platform radii, upper arm and forearm
#: lengths (m), the arms' home angle below the horizontal (rad), masses (kg).
R, r, L, l, TH0 = 0.2, 0.05, 0.3, 0.8, 0.6
M_ARM, M_FORE, M_PLATFORM, G = 0.5, 0.2, 0.3, 9.81
PHI = 2 * np.pi * np.arange(3) / 3
E_R = np.stack([np.cos(PHI), np.sin(PHI), np.zeros(3)], axis=1)  # each arm's radial axis
E_Z = np.array([0.0, 0.0, 1.0])


def elbows(theta):
    """Each arm's elbow for the arm angles ``theta`` (down from the horizontal)."""
    theta = np.asarray(theta, float)[:, None]
    return (R + L * np.cos(theta)) * E_R - L * np.sin(theta) * E_Z


def platform_position(theta):
    """Clavel's forward kinematics: the platform centre ``p`` with ``|p + r e_r,i - E_i| =
    l`` for the three legs: three spheres of radius ``l`` about ``C_i = E_i - r e_r,i``,
    intersected (the lower of the two points)."""
    c = elbows(theta) - r * E_R
    # |p - c_i|^2 = l^2: differences of the equations are linear in p
    a = 2 * (c[1:] - c[0])
    b = (c[1:] ** 2).sum(1) - (c[0] ** 2).sum()
    # p = p0 + s n on the line the two planes share, then the sphere about c_0
    n = np.cross(a[0], a[1])
    p0 = np.linalg.lstsq(a, b, rcond=None)[0]
    d = p0 - c[0]
    k2, k1, k0 = n @ n, 2 * n @ d, d @ d - l * l
    roots = (-k1 + np.array([-1, 1]) * np.sqrt(k1 * k1 - 4 * k2 * k0)) / (2 * k2)
    points = p0 + roots[:, None] * n
    return points[np.argmin(points[:, 2])]


def potential(theta):
    """``U = g sum m z_com``: arms (centre at mid-length), forearms (mid-way between elbow
    and wrist), the platform (its centre: it only translates)."""
    e, p = elbows(theta), platform_position(theta)
    arm = (-L / 2 * np.sin(np.asarray(theta, float))).sum()
    fore = ((e[:, 2] + p[2]) / 2).sum()
    return G * (M_ARM * arm + M_FORE * fore + M_PLATFORM * p[2])


@pytest.fixture(scope="module")
def delta():
    robot = rd.load("delta")
    return robot, robot.closed_chain()


def _assemble(chain, theta):
    return chain.assemble(theta, np.zeros(len(chain.joints))).q


def test_the_home_pose_is_assembled_and_the_platform_hangs_below_the_centre(delta):
    robot, chain = delta
    assert chain.actuated.tolist() == [0, 5, 10] and chain.rows == 12
    assert np.abs(chain.residual(np.zeros(robot.dof))).max() < 1e-12
    tool = robot.forward_kinematics(np.zeros(robot.dof), "tool")
    np.testing.assert_allclose(tool[:3, 3], platform_position([TH0] * 3), atol=1e-12)


def test_assembly_is_clavels_kinematics_and_the_platform_only_translates(delta):
    robot, chain = delta
    rng = np.random.default_rng(3)
    for theta in rng.uniform(-0.2, 1.2, (6, 3)):
        q = _assemble(chain, theta - TH0)  # joint angles count from the home pose
        tool = robot.forward_kinematics(q, "tool")
        np.testing.assert_allclose(tool[:3, 3], platform_position(theta), atol=1e-11)
        np.testing.assert_allclose(tool[:3, :3], np.eye(3), atol=1e-11)
        # each forearm spans elbow to wrist at its length
        wrist = tool[:3, 3] + r * E_R
        np.testing.assert_allclose(np.linalg.norm(wrist - elbows(theta), axis=1), l,
                                   atol=1e-11)


def test_holding_torques_are_the_virtual_work_of_gravity(delta):
    """At rest the actuators hold ``tau = dU/dtheta`` (the closed form's potential,
    differentiated by central differences): the reduced model's gravity."""
    _, chain = delta
    for theta in ([0.6, 0.6, 0.6], [0.3, 0.9, 0.5], [1.0, 0.2, 0.7]):
        q = _assemble(chain, np.subtract(theta, TH0))
        tau, _ = chain.inverse_dynamics(q, np.zeros(3), np.zeros(3))
        h = 1e-6
        want = [(potential(np.add(theta, h * e)) - potential(np.subtract(theta, h * e)))
                / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(tau, want, rtol=1e-7, atol=1e-8)


@pytest.mark.slow
def test_released_delta_falls_with_its_loops_closed_and_its_energy_kept(delta):
    """No torques, no friction: the platform falls, ``T + U`` constant to RK4's error, the
    loops closed at every step (projection), the platform level throughout."""
    robot, chain = delta
    q0 = _assemble(chain, [0.1, -0.2, 0.3])
    run = chain.simulate(q0, [0.5, -0.5, 0.2], duration=0.05, dt=1e-3)
    assert run["residual"].max() < 1e-11
    energy = run["energy"]
    assert np.abs(energy - energy[0]).max() < 1e-10 * np.abs(energy).max()  # 6.5e-13 (0.1 s)
    for q in run["q"][::10]:
        np.testing.assert_allclose(robot.forward_kinematics(q, "tool")[:3, :3], np.eye(3),
                                   atol=1e-10)


def test_acceleration_approaches_mujocos_welds_as_they_are_made_stiff(delta):
    """The same file in MuJoCo, its welds' impedance ``d`` raised to MuJoCo's stiffest
    (0.9999; ``solref`` two steps of 1e-6 s): MuJoCo's soft constraint leaves an error of
    order ``1 - d`` times the conditioning of the Delta's tree (its wrists' inertias are
    small). The actuated arms' accelerations: 0.134 relative at ``d = 0.999``, 0.022 at
    0.9999 (measured), falling with ``1 - d`` towards robodyn's rigid closure."""
    mujoco = pytest.importorskip("mujoco")
    _, chain = delta
    q = _assemble(chain, [0.2, -0.1, 0.3])
    qd = chain.velocity_map(q) @ [0.5, -1.0, 0.8]
    tau = [1.0, -0.5, 0.3]
    qdd, _ = chain.forward_dynamics(q, qd, tau)
    errors = []
    for d in ("0.999", "0.9999"):
        xml = rd.models.path("delta").read_text().replace(
            "<weld site1", f'<weld solref="2e-6 1" solimp="{d} {d} 0.001" site1').replace(
            '<compiler angle="radian"/>', '<compiler angle="radian"/><option timestep="1e-6"/>')
        model = mujoco.MjModel.from_xml_string(xml)
        data = mujoco.MjData(model)
        data.qpos[:], data.qvel[:], data.ctrl[:] = q, qd, tau
        mujoco.mj_forward(model, data)
        arms = chain.actuated
        errors.append(np.abs(data.qacc[arms] - qdd[arms]).max() / np.abs(qdd[arms]).max())
    assert errors[1] < errors[0] / 4 and errors[1] < 0.05, errors
