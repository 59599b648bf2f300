"""Khatib's operational-space model (robodyn.dynamics.operational_space) against Pinocchio
(live: computeMinverse, as computeJMinvJt is not bound in Python; the frame Jacobian in
LOCAL_WORLD_ALIGNED and its time variation) and against its own properties: Lambda SPD,
J J_bar = 1, task-space forward dynamics equals the joint-space one, and the analytical
Jacobian equals finite differences of the ZYX angles."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.dynamics.operational_space import zyx_angles, zyx_rate_matrix

RNG = np.random.default_rng(35)


def _example(path, tip, drop=()):
    pin = pytest.importorskip("pinocchio")
    try:
        urdf = rd.models.example_robot_data(path)
    except rd.ModelError as exc:
        pytest.skip(str(exc))
    full = pin.buildModelFromUrdf(str(urdf))
    model = full
    if drop:
        ids = [full.getJointId(n) for n in drop]
        model = pin.buildReducedModel(full, ids, pin.neutral(full))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        robot = rd.load(urdf, tip=tip).without_friction()
    g = float(np.linalg.norm(robot.numeric_chain.gravity))
    model.gravity = pin.Motion(np.array([0, 0, -g, 0, 0, 0]))
    return pin, robot, model


ARMS = {
    "panda": lambda: _example("panda_description/urdf/panda.urdf", "panda_hand",
                              ("panda_finger_joint1", "panda_finger_joint2")) + ("panda_hand",),
    "ur5": lambda: _example("ur_description/urdf/ur5_robot.urdf", "tool0") + ("tool0",),
}


def _pinocchio_terms(pin, model, frame, q, qd, rows=slice(None)):
    """Lambda, mu, p, J_bar from Pinocchio's own pieces (no robodyn number enters)."""
    data = model.createData()
    fid = model.getFrameId(frame)
    pin.computeJointJacobians(model, data, q)
    pin.forwardKinematics(model, data, q, qd, 0 * qd)
    pin.updateFramePlacements(model, data)
    J = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
    pin.computeJointJacobiansTimeVariation(model, data, q, qd)
    Jdot = pin.getFrameJacobianTimeVariation(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
    J, Jdot = J[rows], Jdot[rows]
    # computeJMinvJt is not in Pinocchio's Python bindings (3.x): its M^-1 (ABA-based)
    Minv = pin.computeMinverse(model, data, q).copy()
    Minv = np.triu(Minv) + np.triu(Minv, 1).T
    JMinvJt = J @ Minv @ J.T
    Lambda = np.linalg.inv(JMinvJt)
    g = pin.computeGeneralizedGravity(model, data, q).copy()
    c = pin.rnea(model, data, q, qd, 0 * qd) - g
    # Jdot from Pinocchio is the time variation of the LOCAL_WORLD_ALIGNED Jacobian; the
    # frame origin's classical acceleration at qdd = 0 is Jdot qd (Pinocchio's docs)
    mu = Lambda @ (J @ Minv @ c - Jdot @ qd)
    p = Lambda @ J @ Minv @ g
    J_bar = Minv @ J.T @ Lambda
    return Lambda, mu, p, J_bar, JMinvJt


@pytest.mark.parametrize("name", sorted(ARMS))
def test_equals_pinocchio(name):
    pin, robot, model, frame = ARMS[name]()
    n = robot.dof
    worst = 0.0
    for _ in range(5):
        q = RNG.uniform(-1.5, 1.5, n)
        qd = RNG.uniform(-1.0, 1.0, n)
        ours = robot.operational_space(q, qd, frame=frame)
        Lambda, mu, p, J_bar, JMinvJt = _pinocchio_terms(pin, model, frame, q, qd)
        scale = np.linalg.norm(Lambda)
        for mine, theirs, size in ((ours.Lambda, Lambda, scale), (ours.mu, mu, scale),
                                   (ours.p, p, scale), (ours.J_bar, J_bar, 1.0),
                                   (np.linalg.inv(ours.Lambda), JMinvJt, 1.0)):
            err = np.max(np.abs(mine - theirs)) / max(size, 1.0)
            worst = max(worst, err)
            assert err < 1e-9, (name, err)
    print(f"{name}: worst relative error vs Pinocchio {worst:.1e}")


@pytest.mark.parametrize(("name", "frame"), [("ur5", "wrist_1_link"), ("panda", "panda_link5")])
def test_an_inner_frame_position_rows_equal_pinocchio(name, frame):
    """A frame the first joints move: 6 rows are rank deficient (an error), the 3 position
    rows are not."""
    pin, robot, model, _ = ARMS[name]()
    q = RNG.uniform(-1.5, 1.5, robot.dof)
    qd = RNG.uniform(-1.0, 1.0, robot.dof)
    with pytest.raises(rd.ModelError, match="rank"):
        robot.operational_space(q, qd, frame=frame)
    ours = robot.operational_space(q, qd, frame=frame, rows=(0, 1, 2))
    Lambda, mu, p, J_bar, _ = _pinocchio_terms(pin, model, frame, q, qd, rows=slice(0, 3))
    scale = np.linalg.norm(Lambda)
    for mine, theirs in ((ours.Lambda, Lambda), (ours.mu, mu), (ours.p, p)):
        np.testing.assert_allclose(mine, theirs, atol=1e-9 * scale)
    np.testing.assert_allclose(ours.J_bar, J_bar, atol=1e-9)


@pytest.mark.parametrize("name", sorted(ARMS))
def test_properties_and_batch(name):
    _, robot, _, frame = ARMS[name]()
    n = robot.dof
    q = RNG.uniform(-1.5, 1.5, (4, n))
    qd = RNG.uniform(-1.0, 1.0, (4, n))
    ops = robot.operational_space(q, qd, frame=frame)
    assert ops.Lambda.shape == (4, 6, 6) and ops.J_bar.shape == (4, n, 6)
    np.testing.assert_allclose(ops.Lambda, np.swapaxes(ops.Lambda, -1, -2), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(ops.Lambda) > 0)
    np.testing.assert_allclose(ops.J @ ops.J_bar, np.broadcast_to(np.eye(6), (4, 6, 6)),
                               atol=1e-9)
    one = robot.operational_space(q[2], qd[2], frame=frame)
    np.testing.assert_allclose(one.mu, ops.mu[2], rtol=1e-12, atol=1e-12)
    # task-space forward dynamics: tau = J^T F through robot.forward_dynamics
    F = RNG.normal(size=(4, 6)) * 20
    tau = (np.swapaxes(ops.J, -1, -2) @ F[..., None])[..., 0]
    qdd = robot.forward_dynamics(q, qd, tau)
    x_dd = (ops.J @ qdd[..., None])[..., 0] + ops.Jdot_qd
    np.testing.assert_allclose(x_dd, ops.task_acceleration(F), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ops.task_force(x_dd), F, rtol=1e-9, atol=1e-8)


def test_puma_analytical_jacobian_is_the_rate_of_zyx_angles():
    robot = rd.load("puma560").without_friction()
    q = np.array([0.3, -0.7, 0.4, 0.9, -0.6, 0.5])
    qd = np.array([0.4, -0.3, 0.8, -0.5, 0.6, 0.2])

    def pose(qq):
        T = robot.forward_kinematics(qq)
        return np.concatenate([T[:3, 3], zyx_angles(T[:3, :3])])

    ops = robot.operational_space(q, qd, jacobian="analytical")
    h = 1e-6
    J_fd = np.stack([(pose(q + h * e) - pose(q - h * e)) / (2 * h) for e in np.eye(6)], -1)
    np.testing.assert_allclose(ops.J, J_fd, atol=1e-7)
    h = 1e-4  # d^2/dt^2 x_A(q + t qd) at t = 0 is J_A' qd
    second = (pose(q + h * qd) - 2 * pose(q) + pose(q - h * qd)) / h**2
    np.testing.assert_allclose(ops.Jdot_qd, second, atol=1e-5)
    # the task-space forward dynamics holds in the analytical coordinates too
    F = RNG.normal(size=6) * 10
    qdd = robot.forward_dynamics(q, qd, ops.J.T @ F)
    np.testing.assert_allclose(ops.J @ qdd + ops.Jdot_qd, ops.task_acceleration(F),
                               rtol=1e-9, atol=1e-9)
    T = zyx_rate_matrix(zyx_angles(robot.forward_kinematics(q)[:3, :3]))
    assert np.isclose(np.linalg.det(T), -np.cos(zyx_angles(robot.forward_kinematics(q)[:3, :3])[1]))


def test_puma_against_robotics_toolbox():
    """inertia_x, coriolis_x, gravload_x of Corke's Robotics Toolbox (the same published PUMA
    560, friction off). Geometric: ``representation=None``. Analytical: its ``rpy/zyx``,
    whose angle rates are ordered (roll, pitch, yaw), ours (phi, theta, psi) = (yaw, pitch,
    roll). Its ``jacob0_dot`` for the analytical Jacobian differs from ours by ~4e-9 (ours
    equals a Richardson finite difference to 6e-10), hence mu's looser bound there."""
    rtb = pytest.importorskip("roboticstoolbox", reason="roboticstoolbox not installed")
    toolbox = rtb.models.DH.Puma560().nofriction(coulomb=True, viscous=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        robot = rd.load("puma560")
    swap = np.eye(6)[[0, 1, 2, 5, 4, 3]]
    for _ in range(5):
        q = RNG.uniform(-1.2, 1.2, 6)
        qd = RNG.uniform(-1.0, 1.0, 6)
        for jacobian, rep, P, mu_tol in (("geometric", None, np.eye(6), 1e-9),
                                         ("analytical", "rpy/zyx", swap, 1e-6)):
            ops = robot.operational_space(q, qd, jacobian=jacobian)
            J = toolbox.jacob0_analytical(q, representation=rep) if rep else toolbox.jacob0(q)
            Lambda = toolbox.inertia_x(q, representation=rep)
            scale = np.abs(Lambda).max()
            np.testing.assert_allclose(P @ ops.J, J, atol=1e-12)
            np.testing.assert_allclose(P @ ops.Lambda @ P.T, Lambda, atol=1e-9 * scale)
            np.testing.assert_allclose(P @ ops.p, toolbox.gravload_x(q, representation=rep),
                                       atol=1e-9 * scale)
            mu = toolbox.coriolis_x(q, qd, representation=rep) @ (J @ qd)
            np.testing.assert_allclose(P @ ops.mu, mu, atol=mu_tol * scale)


def test_planar_2r_rows_and_singularity():
    arm = rd.load("planar-2r")
    ops = arm.operational_space([0.3, 1.2], [0.5, -1.0], rows=(0, 1))
    np.testing.assert_allclose(ops.J_bar, np.linalg.inv(ops.J), atol=1e-12)
    with pytest.raises(rd.ModelError, match="rank 2 < 6"):
        arm.operational_space([0.3, 1.2], [0.5, -1.0])
    with pytest.raises(rd.ModelError, match="rank 1 < 2"):  # stretched out: q2 = 0
        arm.operational_space([0.3, 0.0], [0.5, -1.0], rows=(0, 1))
    damped = arm.operational_space([0.3, 0.0], [0.5, -1.0], rows=(0, 1), damping=0.1)
    assert np.all(np.isfinite(damped.Lambda)) and np.all(np.linalg.eigvalsh(damped.Lambda) > 0)
    # damped least squares: J J_bar = 1 - lambda^2 Lambda
    np.testing.assert_allclose(damped.J @ damped.J_bar, np.eye(2) - 0.01 * damped.Lambda,
                               atol=1e-12)
    with pytest.raises(ValueError, match="jacobian"):
        arm.operational_space([0.3, 1.2], [0.5, -1.0], jacobian="body")


def test_floating_base_task_space_forward_dynamics():
    """A free-flying UR5 (nq 13, nv 12): the model of the tool frame, with ``J`` over the base
    twist and the joint rates, moves the tool as robot.forward_dynamics does."""
    try:
        urdf = rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf")
    except rd.ModelError as exc:
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        robot = rd.load(urdf, tip="tool0", floating=True).without_friction()
    q = robot.neutral()
    q[7:] = [0.3, -0.5, 0.8, 0.2, 0.4, 0.1]
    qd = np.linspace(-0.5, 0.5, robot.nv)
    ops = robot.operational_space(q, qd, frame="tool0")
    assert ops.J_bar.shape == (12, 6)
    np.testing.assert_allclose(ops.J @ ops.J_bar, np.eye(6), atol=1e-12)
    F = np.arange(6.0)
    qdd = robot.forward_dynamics(q, qd, ops.J.T @ F)
    np.testing.assert_allclose(ops.J @ qdd + ops.Jdot_qd, ops.task_acceleration(F), atol=1e-9)
