"""URDF import: hand-written files checked against closed forms, hand merges and each other,
and the errors a bad file gets. The real arms are checked against Pinocchio in
``test_pinocchio.py``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import TEST_DATA

DATA = TEST_DATA / "urdf"
G = 9.81


def _states(n: int, dof: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-math.pi, math.pi, (n, dof)), rng.normal(size=(n, dof)),
            rng.normal(size=(n, dof)))


# -- the planar 2R arm against its closed form ------------------------------------------------
# tests/data/urdf/planar_2r.urdf: link lengths l, centres of mass a, masses m, inertias I about
# the joint axis; the arm turns in the vertical x-z plane, angles measured from +x towards +z.
L1, A1, M1, I1 = 1.0, 0.4, 2.0, 0.15
L2, A2, M2, I2 = 0.8, 0.3, 1.5, 0.07


def planar_2r_closed_form(q, qd):
    """``M, C, g`` and the tool pose of a planar 2R arm (Siciliano §7.3.2, eqs. 7.82 with
    gravity along -z of the plane x-z)."""
    c1, s1 = np.cos(q[..., 0]), np.sin(q[..., 0])
    c2, s2 = np.cos(q[..., 1]), np.sin(q[..., 1])
    c12, s12 = np.cos(q[..., 0] + q[..., 1]), np.sin(q[..., 0] + q[..., 1])
    m11 = I1 + I2 + M1 * A1**2 + M2 * (L1**2 + A2**2 + 2 * L1 * A2 * c2)
    m12 = I2 + M2 * (A2**2 + L1 * A2 * c2)
    m22 = np.full_like(c2, I2 + M2 * A2**2)
    mass = np.stack([np.stack([m11, m12], -1), np.stack([m12, m22], -1)], -2)
    h = -M2 * L1 * A2 * s2
    qd1, qd2 = qd[..., 0], qd[..., 1]
    coriolis = np.stack([np.stack([h * qd2, h * (qd1 + qd2)], -1),
                         np.stack([-h * qd1, np.zeros_like(h)], -1)], -2)
    gravity = np.stack([(M1 * A1 + M2 * L1) * G * c1 + M2 * A2 * G * c12, M2 * A2 * G * c12], -1)
    zero = np.zeros_like(c1)
    position = np.stack([L1 * c1 + L2 * c12, zero, L1 * s1 + L2 * s12], -1)
    # rotation by q1 + q2 about -y: x -> (c, 0, s), z -> (-s, 0, c)
    rotation = np.stack([np.stack([c12, zero, -s12], -1),
                         np.stack([zero, zero + 1, zero], -1),
                         np.stack([s12, zero, c12], -1)], -2)
    jac = np.stack([
        np.stack([-(L1 * s1 + L2 * s12), -L2 * s12], -1),
        np.stack([zero, zero], -1),
        np.stack([L1 * c1 + L2 * c12, L2 * c12], -1),
        np.stack([zero, zero], -1),
        np.stack([zero - 1, zero - 1], -1),
        np.stack([zero, zero], -1),
    ], -2)
    return mass, coriolis, gravity, position, rotation, jac


@pytest.fixture(scope="module")
def planar():
    return rd.load(DATA / "planar_2r.urdf")


def test_planar_2r_matches_closed_form(planar):
    q, qd, qdd = _states(20, 2)
    mass, coriolis, gravity, position, rotation, jac = planar_2r_closed_form(q, qd)
    np.testing.assert_allclose(planar.mass_matrix(q), mass, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(planar.gravity_torques(q), gravity, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(planar.coriolis_matrix(q, qd), coriolis, rtol=1e-12, atol=1e-12)
    tau = np.einsum("nij,nj->ni", mass, qdd) + np.einsum("nij,nj->ni", coriolis, qd) + gravity
    np.testing.assert_allclose(planar.inverse_dynamics(q, qd, qdd), tau, rtol=1e-12, atol=1e-12)
    pose = planar.forward_kinematics(q)
    np.testing.assert_allclose(pose[:, :3, 3], position, atol=1e-12)
    np.testing.assert_allclose(pose[:, :3, :3], rotation, atol=1e-12)
    np.testing.assert_allclose(planar.jacobian(q), jac, atol=1e-12)


def test_planar_2r_description(planar):
    assert planar.name == "planar_2r"
    assert planar.dof == 2
    assert planar.source == str(DATA / "planar_2r.urdf")
    assert planar.convention is None
    assert planar.locked == ()
    assert planar.values == {"g": 9.81}
    assert [link.name for link in planar.links] == ["link1", "link2"]
    assert [link.joint.name for link in planar.links] == ["joint1", "joint2"]
    assert [link.joint.type for link in planar.links] == ["revolute", "revolute"]  # continuous
    assert planar.links[0].joint.limits == (-3.0, 3.0, 2.0, 50.0)
    assert planar.links[1].joint.limits == (-math.inf, math.inf, 3.0, 20.0)
    # the tool frame (fixed joint, no <inertial>) is the tip: a constant placement in link2
    assert tuple(float(x) for x in planar.chain.tip.translation) == (0.8, 0.0, 0.0)
    assert float(planar.numeric_chain.links[1].inertial.mass) == 1.5


def test_load_dispatches_urdf(planar):
    robot = rd.load(DATA / "planar_2r.urdf")
    q = np.array([0.3, -0.7])
    np.testing.assert_array_equal(robot.mass_matrix(q), planar.mass_matrix(q))
    at_link2 = rd.load(str(DATA / "planar_2r.urdf"), tip="link2")
    np.testing.assert_allclose(at_link2.forward_kinematics([0.0, 0.0])[:3, 3], [1.0, 0.0, 0.0])


# -- the same arm written another way ------------------------------------------------------
def test_rotated_joint_frames_and_axes_give_the_same_arm(planar):
    """planar_2r_rotated.urdf turns about z axes in joint frames rolled by 90 degrees (one
    axis written non-unit, "0 0 2"); it is the same robot as planar_2r.urdf."""
    rotated = rd.load(DATA / "planar_2r_rotated.urdf")
    assert tuple(float(a) for a in rotated.numeric_chain.links[1].joint.axis) == (0.0, 0.0, 1.0)
    q, qd, qdd = _states(20, 2, seed=1)
    for name, args in [("mass_matrix", (q,)), ("gravity_torques", (q,)),
                       ("coriolis_matrix", (q, qd)), ("inverse_dynamics", (q, qd, qdd)),
                       ("forward_kinematics", (q,)), ("jacobian", (q,))]:
        np.testing.assert_allclose(getattr(rotated, name)(*args), getattr(planar, name)(*args),
                                   rtol=1e-12, atol=1e-12, err_msg=name)


# -- merging fixed bodies ------------------------------------------------------------------
@pytest.mark.parametrize("tip", ["payload", "link2"])
def test_fixed_bodies_merge_like_the_hand_merged_model(tip):
    """payload_2r.urdf has bodies on fixed joints (one with rotated joint and inertial frames);
    payload_2r_merged.urdf has them merged by hand (parallel-axis theorem, in its comment).
    The payload is the tip or lies beyond it: either way it joins link2."""
    robot = rd.load(DATA / "payload_2r.urdf", tip=tip)
    merged = rd.load(DATA / "payload_2r_merged.urdf")
    for link, expected in zip(robot.numeric_chain.links, merged.numeric_chain.links, strict=True):
        assert link.inertial.mass == pytest.approx(expected.inertial.mass, rel=1e-14)
        np.testing.assert_allclose(link.inertial.com, expected.inertial.com, atol=1e-14)
        np.testing.assert_allclose(link.inertial.inertia, expected.inertial.inertia, atol=1e-14)
        np.testing.assert_allclose(link.joint.placement.translation,
                                   expected.joint.placement.translation, atol=1e-14)
    q, qd, qdd = _states(20, 2, seed=2)
    np.testing.assert_allclose(robot.mass_matrix(q), merged.mass_matrix(q), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd),
                               merged.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)
    if tip == "link2":
        np.testing.assert_allclose(robot.forward_kinematics(q), merged.forward_kinematics(q),
                                   atol=1e-12)
    else:  # the payload frame: 1 m along link2's x, yawed by 90 degrees
        expected = merged.forward_kinematics(q) @ np.array(
            [[0.0, -1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        np.testing.assert_allclose(robot.forward_kinematics(q), expected, atol=1e-12)


def test_locked_branches_are_named_and_merged():
    """Prismatic fingers beside the chain are held at 0 and their masses join link1."""
    robot = rd.load(DATA / "two_leaves.urdf", tip="link1")
    assert robot.locked == ("left_joint", "right_joint")
    assert robot.dof == 1
    link = robot.numeric_chain.links[0]
    assert link.inertial.mass == pytest.approx(3.0)
    # 1 kg at the origin and two 1 kg fingers at (0.3, 0, 0): centre of mass at 0.2; about z
    # each body adds its own 0.01 and m d^2 (parallel axes): 1 * 0.2^2 + 2 * 0.1^2
    np.testing.assert_allclose(link.inertial.com, [0.2, 0.0, 0.0], atol=1e-15)
    assert link.inertial.inertia[2][2] == pytest.approx(0.03 + 0.04 + 2 * 0.01)
    assert "locked at 0: left_joint, right_joint" in robot.description


# -- the default tip: decided on the tree of movable joints ---------------------------------
def _with_fixed_frames(tmp_path, name: str, extra: str) -> Path:
    """planar_2r.urdf with more links and joints before ``</robot>``."""
    path = tmp_path / name
    path.write_text((DATA / "planar_2r.urdf").read_text().replace("</robot>", extra + "</robot>"))
    return path


FLANGE_AND_CAMERA = """
  <link name="flange"/>
  <joint name="flange_joint" type="fixed">
    <parent link="link2"/><child link="flange"/><origin xyz="0.5 0 0" rpy="0 0 1.2"/>
  </joint>
  <link name="camera"><inertial><origin xyz="0.02 0 0"/><mass value="0.4"/>
    <inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial></link>
  <joint name="camera_joint" type="fixed">
    <parent link="flange"/><child link="camera"/><origin xyz="0.1 0 0.05"/>
  </joint>
  <link name="camera_optical"/>
  <joint name="optical_joint" type="fixed">
    <parent link="camera"/><child link="camera_optical"/><origin rpy="-1.5707963267948966 0 0"/>
  </joint>
"""


def test_leaves_on_fixed_joints_are_not_candidate_tips(tmp_path):
    """Leaves ``tool`` and ``camera_optical`` hang on fixed joints below link2 (as a UR's
    ``ee_link``, ``tool0``, ``base``): the movable joints form one chain, which ends at
    link2, the child of the last movable joint; its frame is the end frame."""
    path = _with_fixed_frames(tmp_path, "fixed_leaves.urdf", FLANGE_AND_CAMERA)
    robot = rd.load(path)
    assert robot.dof == 2 and robot.locked == ()
    assert robot.description.endswith("from 'base_link' to 'link2'")
    q, _, _ = _states(10, 2, seed=4)
    c1, s1 = np.cos(q[:, 0]), np.sin(q[:, 0])
    np.testing.assert_allclose(robot.forward_kinematics(q)[:, :3, 3],
                               np.stack([L1 * c1, 0 * c1, L1 * s1], -1), atol=1e-12)
    # the camera's 0.4 kg merges into link2 whichever frame ends the chain
    assert robot.numeric_chain.links[1].inertial.mass == pytest.approx(M2 + 0.4)
    # tip= a link behind fixed joints keeps working and puts the end frame there
    at_tool = rd.load(path, tip="tool")
    _, _, _, position, rotation, _ = planar_2r_closed_form(q, q)
    np.testing.assert_allclose(at_tool.forward_kinematics(q)[:, :3, 3], position, atol=1e-12)
    np.testing.assert_allclose(at_tool.forward_kinematics(q)[:, :3, :3], rotation, atol=1e-12)
    np.testing.assert_allclose(at_tool.mass_matrix(q), robot.mass_matrix(q), rtol=1e-14)
    # camera_optical: link2 -> flange (0.5 along x, yaw 1.2) -> camera (0.1, 0, 0.05) -> roll
    optical = rd.load(path, tip="camera_optical").forward_kinematics(q[0])
    yaw = np.array([[np.cos(1.2), -np.sin(1.2), 0], [np.sin(1.2), np.cos(1.2), 0], [0, 0, 1]])
    roll = np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]])
    link2 = robot.forward_kinematics(q[0])
    np.testing.assert_allclose(optical[:3, :3], link2[:3, :3] @ yaw @ roll, atol=1e-12)
    np.testing.assert_allclose(
        optical[:3, 3], link2[:3, :3] @ ([0.5, 0, 0] + yaw @ [0.1, 0, 0.05]) + link2[:3, 3],
        atol=1e-12)


def test_a_single_fixed_leaf_after_the_last_joint_is_the_tip():
    """planar_2r.urdf: one path of fixed joints (to ``tool``) follows the last movable
    joint; its leaf is the end frame (the arm's drawn tool), as before this rule."""
    robot = rd.load(DATA / "planar_2r.urdf")
    assert robot.description.endswith("to 'tool'")
    q, _, _ = _states(5, 2, seed=5)
    np.testing.assert_allclose(robot.forward_kinematics(q)[:, :3, 3],
                               planar_2r_closed_form(q, q)[3], atol=1e-12)


def test_branching_movable_joints_load_the_whole_tree_named_by_their_ends(tmp_path):
    """two_leaves.urdf's fingers move (prismatic): the movable tree branches, so the whole
    tree loads. Fixed pads below the fingers are not ends (the note names the fingers)
    but frames on them; tip= still selects one chain."""
    pads = "".join(f"""
  <link name="{side}_pad"/>
  <joint name="{side}_pad_joint" type="fixed">
    <parent link="{side}_finger"/><child link="{side}_pad"/></joint>""" for side in
                   ("left", "right"))
    path = tmp_path / "padded.urdf"
    path.write_text((DATA / "two_leaves.urdf").read_text().replace("</robot>", pads + "</robot>"))
    robot = rd.load(path)
    assert robot.dof == 3 and robot.chain.parents == (-1, 0, 0) and robot.locked == ()
    note = robot.provenance.notes[0]
    assert "branch into 2 chains (ending at left_finger, right_finger)" in note
    assert "_pad" not in note and "'right_finger'" in note
    frames = {f.name: f.link for f in robot.chain.frames}
    assert frames == {"base_link": -1, "left_pad": 1, "right_pad": 2}
    assert rd.load(path, tip="left_pad").dof == 2


def test_no_movable_joint_under_the_base(tmp_path):
    path = tmp_path / "rigid.urdf"
    path.write_text('<robot name="rigid"><link name="a"/><link name="b"/><joint name="j" '
                    'type="fixed"><parent link="a"/><child link="b"/></joint></robot>')
    message = _error(path)
    assert "no movable joint" in message and "'a'" in message


# -- friction ----------------------------------------------------------------------------------
def test_friction_from_dynamics_element():
    robot = rd.load(DATA / "payload_2r_merged.urdf")
    frictions = [(link.friction.viscous, link.friction.coulomb)
                 for link in robot.numeric_chain.links]
    assert frictions == [(0.5, 0.2), (0.1, 0.0)]
    q, qd, qdd = _states(10, 2, seed=3)
    expected = np.array([0.5, 0.1]) * qd + np.array([0.2, 0.0]) * np.sign(qd)
    np.testing.assert_allclose(robot.friction_torques(qd), expected, rtol=1e-15)
    rigid = (np.einsum("nij,nj->ni", robot.mass_matrix(q), qdd)
             + np.einsum("nij,nj->ni", robot.coriolis_matrix(q, qd), qd)
             + robot.gravity_torques(q))
    tau = robot.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(tau - rigid, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau), qdd, rtol=1e-9, atol=1e-9)


# -- errors ----------------------------------------------------------------------------------
def _error(path, **kwargs) -> str:
    with pytest.raises(rd.ModelError) as info:
        rd.load(path, **kwargs)
    return str(info.value)


def test_missing_inertial_is_an_error_unless_allowed():
    message = _error(DATA / "no_inertial.urdf")
    assert "link 'link2'" in message and "<inertial>" in message
    assert "joint2" in message and "allow_massless=True" in message
    robot = rd.load(DATA / "no_inertial.urdf", allow_massless=True)
    assert robot.numeric_chain.links[1].inertial.mass == 0.0


def test_kinematic_loop():
    message = _error(DATA / "loop.urdf")
    assert "link 'link3'" in message and "two parents" in message
    assert "joint3" in message and "joint4" in message


def test_loop_without_a_root():
    message = _error(DATA / "cycle.urdf")
    assert "kinematic loop" in message and "link1" in message and "link2" in message


def test_unknown_joint_type():
    message = _error(DATA / "unknown_joint.urdf")
    assert "joint 'joint2'" in message and "'spherical'" in message
    assert "revolute" in message  # lists the types it knows


def test_a_floating_joint_is_a_free_joint_as_pinocchios(tmp_path):
    """URDF's ``floating`` joint is a free joint (Pinocchio's ``JointModelFreeFlyer``): a body
    on a floating joint from the world carrying a 1R arm has ``nq = 8``, ``nv = 7`` and
    Pinocchio's rnea and crba of the same file; ``base="body"`` still starts after it."""
    robot = rd.load(DATA / "floating.urdf")
    assert [link.joint.type for link in robot.links] == ["free", "revolute"]
    assert (robot.nq, robot.nv, robot.joints) == (8, 7, ("free", "joint1"))
    assert rd.load(DATA / "floating.urdf", base="body").dof == 1
    pin = pytest.importorskip("pinocchio")
    path = tmp_path / "floating.urdf"  # urdfdom wants the revolute joint's limits
    path.write_text((DATA / "floating.urdf").read_text().replace(
        '<axis xyz="0 0 1"/>', '<axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" '
        'velocity="5"/>').replace('<joint name="free" type="floating">',
                                  '<joint name="free" type="floating"><origin xyz="0.1 0 0.2" '
                                  'rpy="0.3 0 0"/>'))
    robot = rd.load(path)
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    rng = np.random.default_rng(0)
    for _ in range(3):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        v, a = rng.normal(size=(2, model.nv))
        np.testing.assert_allclose(robot.inverse_dynamics(q, v, a), pin.rnea(model, data, q, v, a),
                                   rtol=0, atol=1e-10)
        m = pin.crba(model, data, q)
        np.testing.assert_allclose(robot.mass_matrix(q), np.triu(m) + np.triu(m, 1).T, rtol=0,
                                   atol=1e-12)


def test_a_branching_file_loads_whole_with_the_last_link_as_end_frame():
    robot = rd.load(DATA / "two_leaves.urdf")
    assert [link.name for link in robot.chain.links] == ["link1", "left_finger", "right_finger"]
    assert robot.description.endswith("end frame: the last link 'right_finger'")
    q = np.array([0.3, 0.01, 0.02])
    np.testing.assert_allclose(robot.forward_kinematics(q),
                               rd.load(DATA / "two_leaves.urdf", tip="right_finger")
                               .forward_kinematics(q[[0, 2]]), atol=1e-15)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"tip": "hand"}, ["tip='hand'", "not a link", "link1"]),
    ({"base": "ground"}, ["base='ground'", "not a link"]),
    ({"base": "link2", "tip": "link1"}, ["'link2'", "not an ancestor", "'link1'"]),
    ({"base": "link2", "tip": "tool"}, ["no revolute", "'link2'", "'tool'"]),
])
def test_bad_base_or_tip(kwargs, words):
    message = _error(DATA / "planar_2r.urdf", **kwargs)
    for word in words:
        assert word in message


def test_a_planar_style_inertia_loads_with_one_warning_naming_the_link():
    # principal moments 0.01, 0.01, 0.05: PSD but no rigid body (Pinocchio accepts it too)
    with pytest.warns(rd.PhysicalConsistencyWarning) as record:
        robot = rd.load(DATA / "bad_inertia.urdf")
    messages = [str(w.message) for w in record
                if issubclass(w.category, rd.PhysicalConsistencyWarning)]
    assert len(messages) == 1
    assert "links[0].inertia: moments 0.01 + 0.01 < 0.05" in messages[0]
    assert robot.mass_matrix(np.zeros(robot.dof)).shape == (robot.dof, robot.dof)


def test_zero_axis_names_the_joint():
    message = _error(DATA / "zero_axis.urdf")
    assert "joint 'joint1'" in message and "<axis xyz>" in message and "zero" in message


def test_malformed_xml():
    message = _error(DATA / "malformed.urdf")
    assert "malformed.urdf" in message and "not valid XML" in message and "line" in message


def test_not_a_robot_element():
    message = _error(DATA / "not_a_robot.urdf")
    assert "<sdf>" in message and "<robot>" in message


def test_missing_file():
    message = _error(DATA / "no_such_file.urdf")
    assert "no_such_file.urdf" in message and "cannot read" in message


def test_bad_number(tmp_path):
    text = (DATA / "planar_2r.urdf").read_text().replace('<mass value="1.5"/>',
                                                         '<mass value="heavy"/>')
    path = tmp_path / "bad_number.urdf"
    path.write_text(text)
    message = _error(path)
    assert "link 'link2'" in message and "<mass value>" in message and "'heavy'" in message
