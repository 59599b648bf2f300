"""The end-effector (tool) frame: forward kinematics, Jacobian and contact wrench at
the frame a model file names with ``tool: {xyz, rpy}``."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.model.urdf import rpy_matrix

# values, not speed: new kernels run on the NumPy backend (no Numba compile time)
pytestmark = pytest.mark.usefixtures("numpy_backend")

ARM = """
name: tool-arm
dh: {dh}
gravity: [0.3, -9.81, 0.5]
links:
  - {{joint: revolute, a: 0.3, alpha: 0.4, d: 0.1, mass: 1.3, com: [0.1, 0.02, -0.03],
     inertia: [0.02, 0.03, 0.025, 0.001, 0, 0]}}
  - {{joint: prismatic, a: 0.2, alpha: -0.7, theta: 0.3, mass: 0.8, com: [0, 0.1, 0.05],
     inertia: [0.01, 0.012, 0.015, 0, 0, 0]}}
  - {{joint: revolute, a: 0.25, alpha: 1.1, d: -0.05, mass: 0.5, com: [0.05, 0, 0.01],
     inertia: [0.004, 0.005, 0.006, 0, 0, 0]}}
{tool}
values: {{}}
"""
TOOL = "tool: {xyz: [0.1, -0.05, 0.2], rpy: [0.3, -0.6, 1.2]}"


def _arm(tmp_path, dh, tool):
    path = tmp_path / f"{dh}-{bool(tool)}.yaml"
    path.write_text(ARM.format(dh=dh, tool=tool))
    return rd.load(path)


@pytest.mark.parametrize("dh", ["standard", "modified"])
def test_tool_frame_kinematics_and_virtual_work(tmp_path, dh):
    bare, tooled = _arm(tmp_path, dh, ""), _arm(tmp_path, dh, TOOL)
    tool = np.eye(4)
    tool[:3, :3] = rpy_matrix([0.3, -0.6, 1.2])
    tool[:3, 3] = [0.1, -0.05, 0.2]
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.normal(size=(3, 6, 3))
    q[:, 1] = rng.uniform(0.1, 0.5, 6)
    np.testing.assert_allclose(tooled.forward_kinematics(q), bare.forward_kinematics(q) @ tool,
                               atol=1e-12)
    # the Jacobian is the velocity of the tool frame: finite differences of its pose
    h = 1e-6
    jac = tooled.jacobian(q)
    for k in range(6):
        plus = tooled.forward_kinematics(q[k] + h * qd[k])
        minus = tooled.forward_kinematics(q[k] - h * qd[k])
        v = (plus[:3, 3] - minus[:3, 3]) / (2 * h)
        rdot = (plus[:3, :3] - minus[:3, :3]) / (2 * h)
        w_hat = rdot @ tooled.forward_kinematics(q[k])[:3, :3].T
        w = np.array([w_hat[2, 1], w_hat[0, 2], w_hat[1, 0]])
        np.testing.assert_allclose(jac[k] @ qd[k], np.concatenate([v, w]), atol=1e-7)
    # virtual work: the torques that balance a wrench at the tool frame are J^T h_e, and the
    # dynamics without a wrench do not depend on where the tool frame is
    wrench = rng.normal(size=(6, 6))
    np.testing.assert_allclose(tooled.inverse_dynamics(q, qd, qdd),
                               bare.inverse_dynamics(q, qd, qdd), atol=1e-12)
    np.testing.assert_allclose(
        tooled.inverse_dynamics(q, qd, qdd, h_e=wrench) - tooled.inverse_dynamics(q, qd, qdd),
        np.einsum("kij,ki->kj", jac, wrench), atol=1e-12)


def test_planar_2r_point_mass_force_at_the_tip_has_the_l2_terms():
    # seed 000 example 2 (Newton-Euler, Craig's frames): f_3 acts at frame 3, the tip
    robot = rd.load("planar-2r-point-mass")
    v = robot.values
    l1, l2 = v["l1"], v["l2"]
    rng = np.random.default_rng(7)
    q, qd, qdd = rng.normal(size=(3, 5, 2))
    f = rng.normal(size=(5, 2))
    h_e = np.column_stack([f, np.zeros((5, 4))])
    s1, c1 = np.sin(q[:, 0]), np.cos(q[:, 0])
    s12, c12 = np.sin(q.sum(axis=1)), np.cos(q.sum(axis=1))
    # tip Jacobian by hand: p = (l1 c1 + l2 c12, l1 s1 + l2 s12)
    jx = np.stack([-l1 * s1 - l2 * s12, -l2 * s12], axis=-1)
    jy = np.stack([l1 * c1 + l2 * c12, l2 * c12], axis=-1)
    expected = robot.inverse_dynamics(q, qd, qdd) + f[:, :1] * jx + f[:, 1:] * jy
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd, h_e=h_e), expected,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(robot.forward_kinematics(q)[:, :2, 3],
                               np.stack([l1 * c1 + l2 * c12, l1 * s1 + l2 * s12], axis=-1),
                               atol=1e-12)


def test_tool_errors_name_the_field(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(ARM.format(dh="standard", tool="tool: {xyz: [0, 0], rpy: [0, 0, 0]}"))
    with pytest.raises(rd.ModelError, match=r"tool\.xyz: expected a list of 3"):
        rd.load(path)
    path.write_text(ARM.format(dh="standard", tool="tool: {xyz: [0, 0, 0], pose: 1}"))
    with pytest.raises(rd.ModelError, match=r"tool: unknown key"):
        rd.load(path)
