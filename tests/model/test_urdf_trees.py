"""URDF trees: a branching file loads whole (issue 21). A small tree against its hand
derivation; the order of the links, mimic joints, frames and the floating base's body; and
every example-robot-data URDF with movable joints against Pinocchio (``rnea``, ``crba``,
``aba``, ``computeGeneralizedGravity``, ``framesForwardKinematics``), fixed base, joints
matched by name."""

from __future__ import annotations

import math
import types
import warnings
import xml.etree.ElementTree as ET
import zlib
from dataclasses import replace

import numpy as np
import pytest

import robodyn as rd
from conftest import TEST_DATA
from robodyn.dynamics.crba import mass_matrix
from robodyn.dynamics.forward_dynamics import forward_dynamics
from robodyn.dynamics.inverse_dynamics import gravity_torques, inverse_dynamics
from robodyn.dynamics.kinematics import link_poses
from robodyn.model.chain import Friction
from robodyn.model.urdf import UrdfWarning, load_urdf
from robodyn.model.urdf_export import writable_chain

DATA = TEST_DATA / "urdf"
G = 9.81
FLOAT_OPS = types.SimpleNamespace(cos=math.cos, sin=math.sin, sqrt=math.sqrt,
                                  sign=np.sign, name="float")
BODY = ('<inertial><origin xyz="{c}"/><mass value="{m}"/><inertia ixx="0.01" ixy="0" ixz="0" '
        'iyy="0.01" iyz="0" izz="0.01"/></inertial>')


def _urdf(tmp_path, links: dict[str, tuple[float, str] | None], joints: list[tuple],
          name: str = "tree"):
    """A URDF file: ``links`` name -> (mass, com) or None (no inertial); ``joints``
    (name, type, parent, child, xyz, axis, extra)."""
    parts = [f'<robot name="{name}">']
    for link, body in links.items():
        inner = "" if body is None else BODY.format(m=body[0], c=body[1])
        parts.append(f'<link name="{link}">{inner}</link>')
    for jname, kind, parent, child, xyz, axis, *extra in joints:
        parts.append(f'<joint name="{jname}" type="{kind}"><parent link="{parent}"/>'
                     f'<child link="{child}"/><origin xyz="{xyz}"/><axis xyz="{axis}"/>'
                     f'{"".join(extra)}</joint>')
    parts.append("</robot>")
    path = tmp_path / f"{name}.urdf"
    path.write_text("\n".join(parts))
    return path


def _pose(poses, frame):
    """A frame's rotation and origin in the base frame from the link poses."""
    rot, origin = (np.eye(3), np.zeros(3)) if frame.link < 0 else map(np.array,
                                                                       poses[frame.link])
    placement = frame.placement
    return (rot @ np.array(placement.rotation, dtype=float),
            rot @ np.array(placement.translation, dtype=float) + origin)


# -- a small tree by hand ----------------------------------------------------------------------
def test_two_fingers_on_a_turntable_match_the_hand_derivation(numpy_backend):
    """two_leaves.urdf: joint1 turns link1 (1 kg at its origin, 0.01 kg m^2 about z) about
    z; two 1 kg fingers slide from (0.3, 0, 0) along +y (q2) and -y (q3). A finger at
    (0.3, +-d, 0) has velocity qd1 (-+d, 0.3, 0) +- dd (0, 1, 0), so
    ``M = [[0.21 + q2^2 + q3^2, 0.3, -0.3], [0.3, 1, 0], [-0.3, 0, 1]]`` (the fingers are
    siblings: M[1, 2] is an exact zero), ``C qd = [2 qd1 (q2 qd2 + q3 qd3), -q2 qd1^2,
    -q3 qd1^2]`` and no gravity torque (everything moves in the horizontal plane)."""
    robot = rd.load(DATA / "two_leaves.urdf")
    assert robot.chain.parents == (-1, 0, 0)
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.normal(size=(3, 8, 3))
    q1, q2, q3 = q.T
    mass = np.zeros((8, 3, 3))
    mass[:, 0, 0] = 0.21 + q2**2 + q3**2
    mass[:, 0, 1] = mass[:, 1, 0] = 0.3
    mass[:, 0, 2] = mass[:, 2, 0] = -0.3
    mass[:, 1, 1] = mass[:, 2, 2] = 1.0
    bias = np.stack([2 * qd[:, 0] * (q2 * qd[:, 1] + q3 * qd[:, 2]), -q2 * qd[:, 0]**2,
                     -q3 * qd[:, 0]**2], -1)
    m = robot.mass_matrix(q)
    np.testing.assert_allclose(m, mass, rtol=1e-13, atol=1e-14)
    assert (m[:, 1, 2] == 0).all()
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd),
                               np.einsum("nij,nj->ni", mass, qdd) + bias, atol=1e-12)
    np.testing.assert_allclose(robot.gravity_torques(q), 0, atol=1e-15)
    tau = robot.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau), qdd, atol=1e-10)
    # the end frame is the last link's: the right finger at (0.3, -q3, 0) turned by q1
    c, s = np.cos(q1), np.sin(q1)
    np.testing.assert_allclose(robot.forward_kinematics(q)[:, :3, 3],
                               np.stack([0.3 * c + q3 * s, 0.3 * s - q3 * c, 0 * c], -1),
                               atol=1e-14)


def test_links_are_in_file_order_where_parents_allow(tmp_path):
    """Joints listed before their parent's joint move after it; the rest keep file order."""
    one = (1, "0 0 0")
    path = _urdf(tmp_path, {"base": None, "a": one, "b": one, "c": one, "d": one}, [
        ("jc", "revolute", "b", "c", "0.1 0 0", "0 0 1"),
        ("ja", "revolute", "base", "a", "0 0 0", "0 0 1"),
        ("jb", "revolute", "base", "b", "0 0 0", "1 0 0"),
        ("jd", "continuous", "a", "d", "0 0.2 0", "0 1 0"),
    ])
    chain = load_urdf(path).chain
    assert [link.joint.name for link in chain.links] == ["ja", "jb", "jc", "jd"]
    assert chain.parents == (-1, -1, 1, 0)
    assert [f.name for f in chain.frames] == ["base"]


def test_every_link_under_the_base_is_a_link_or_a_frame(tmp_path):
    """Fixed bodies become frames on the link they merge into (placed in its frame), the
    base's fixed children frames of the base (-1); bodies on the base are left out."""
    one = (1, "0 0 0")
    path = _urdf(tmp_path, {"base": None, "plate": (5, "0 0 0"), "arm": one, "tool": None,
                            "cam": (0.5, "0.1 0 0"), "finger": one}, [
        ("plate_joint", "fixed", "base", "plate", "0 0 0.5", "1 0 0"),
        ("j1", "revolute", "plate", "arm", "0 0 0.1", "0 0 1"),
        ("tool_joint", "fixed", "arm", "tool", "0.4 0 0", "1 0 0"),
        ("cam_joint", "fixed", "tool", "cam", "0 0.1 0", "1 0 0"),
        ("j2", "prismatic", "arm", "finger", "0.2 0 0", "0 1 0"),
        ("j3", "prismatic", "base", "finger2", "0 0 0", "0 1 0"),
    ])
    text = path.read_text().replace("</robot>", '<link name="finger2">'
                                    + BODY.format(m=1, c="0 0 0") + "</link></robot>")
    path.write_text(text)
    chain = load_urdf(path).chain
    assert [link.name for link in chain.links] == ["arm", "finger", "finger2"]
    frames = {f.name: (f.link, tuple(float(x) for x in f.placement.translation))
              for f in chain.frames}
    assert frames == {"base": (-1, (0, 0, 0)), "plate": (-1, (0, 0, 0.5)),
                      "tool": (0, (0.4, 0, 0)), "cam": (0, (0.4, 0.1, 0))}
    # the camera's 0.5 kg at (0.5, 0.1, 0) joins the arm's 1 kg at its origin
    arm = chain.links[0].inertial
    assert float(arm.mass) == 1.5
    np.testing.assert_allclose([float(x) for x in arm.com], [0.5 / 3, 0.1 / 3, 0], atol=1e-15)
    assert not chain.floating


def test_mimic_joints_of_a_tree_are_independent_with_a_warning_naming_them(tmp_path):
    text = (DATA / "two_leaves.urdf").read_text().replace(
        '<axis xyz="0 -1 0"/>', '<axis xyz="0 -1 0"/><mimic joint="left_joint"/>')
    path = tmp_path / "mimic.urdf"
    path.write_text(text)
    with pytest.warns(UrdfWarning, match=r"mimic\.urdf: 1 <mimic> joint\(s\) loaded as "
                                         r"independent joints .*: right_joint"):
        source = load_urdf(path, mimic="independent")
    assert source.chain.dof == 3
    assert any("right_joint" in note and "independent" in note
               for note in source.provenance.notes)
    # on a chosen chain a mimic joint stays an error
    with pytest.raises(rd.ModelError, match="'right_joint': a <mimic> joint on the chain"):
        load_urdf(path, tip="right_finger")


def test_an_unsupported_joint_in_a_tree_is_named(tmp_path):
    text = (DATA / "two_leaves.urdf").read_text().replace(
        '<joint name="left_joint" type="prismatic">', '<joint name="left_joint" type="planar">')
    path = tmp_path / "planar_finger.urdf"
    path.write_text(text.replace("</robot>", """<link name="thumb">""" + BODY.format(
        m=1, c="0 0 0") + """</link><joint name="thumb_joint" type="revolute">
        <parent link="link1"/><child link="thumb"/><axis xyz="0 0 1"/></joint></robot>"""))
    with pytest.raises(rd.ModelError) as info:
        load_urdf(path)
    message = str(info.value)
    assert "joint 'left_joint'" in message and "'planar'" in message and "tip=" in message


def test_a_floating_base_keeps_the_root_body_and_its_fixed_children(tmp_path):
    """floating=True: the base's 2 kg at its origin and the plate's 5 kg fixed 0.5 above
    it are one body of 7 kg, centre of mass at z = 2.5/7, about which the inertia adds the
    parallel-axis terms ``2 (2.5/7)^2 + 5 (0.5 - 2.5/7)^2`` about x and y."""
    one = (1, "0 0 0")
    path = _urdf(tmp_path, {"base": (2, "0 0 0"), "plate": (5, "0 0 0"), "a": one, "b": one}, [
        ("plate_joint", "fixed", "base", "plate", "0 0 0.5", "1 0 0"),
        ("ja", "revolute", "plate", "a", "0.1 0 0", "0 0 1"),
        ("jb", "revolute", "base", "b", "-0.1 0 0", "0 0 1"),
    ])
    fixed = load_urdf(path)
    assert not fixed.chain.floating
    source = load_urdf(path, floating=True)
    root = source.chain.links[0]
    assert (root.name, root.joint.type, root.joint.name) == ("base", "free", "root_joint")
    body = root.inertial
    z = 2.5 / 7
    assert float(body.mass) == 7
    np.testing.assert_allclose([float(x) for x in body.com], [0, 0, z], atol=1e-15)
    shift = 2 * z**2 + 5 * (0.5 - z) ** 2
    np.testing.assert_allclose(np.array(body.inertia, dtype=float),
                               np.diag([0.02 + shift, 0.02 + shift, 0.02]), atol=1e-14)
    assert source.chain.links[1:] == fixed.chain.links and source.chain.parents == (-1, 0, 0)
    assert "floating base 'base'" in source.description
    # a chain on a floating base: jb, locked at 0 off the chain to a, is rigid with the
    # base, so b's 1 kg at (-0.1, 0, 0) joins the body
    locked = load_urdf(path, tip="a", floating=True).chain.links[0].inertial
    assert float(locked.mass) == 8
    np.testing.assert_allclose([float(x) for x in locked.com], [-0.1 / 8, 0, 2.5 / 8],
                               atol=1e-15)
    for bad in ("yes", 1, None):
        with pytest.raises(rd.ModelError, match="floating="):
            load_urdf(path, floating=bad)


def test_a_non_physical_base_body_is_an_error_only_when_floating(tmp_path):
    one = (1, "0 0 0")
    path = _urdf(tmp_path, {"base": (-2, "0 0 0"), "a": one, "b": one}, [
        ("ja", "revolute", "base", "a", "0.1 0 0", "0 0 1"),
        ("jb", "revolute", "base", "b", "-0.1 0 0", "0 0 1"),
    ])
    with pytest.warns(UrdfWarning, match="outside the tree under 'base'"):
        assert load_urdf(path).chain.dof == 2
    with pytest.raises(rd.ModelError, match="link 'base' <inertial> <mass value>"):
        load_urdf(path, floating=True)


# -- example-robot-data against Pinocchio ---------------------------------------------------
#: Files with movable joints that need an option: human.urdf's hips, shoulders and neck are
#: revolute joints through massless "virtual" links without <inertial>.
OPTIONS = {"human.urdf": {"allow_massless": True}}
#: Files with movable joints that cannot load, and why: romeo_laas_small.urdf's
#: LHipPitch_link has an indefinite inertia tensor (eigenvalue -0.0027), no rigid body.
CANNOT_LOAD = {"romeo_laas_small.urdf": "not positive semi-definite"}
#: The files whose compiled kernels are checked in the fast run (``-m "not slow"``): a
#: branching arm, a hand, legs, a mobile manipulator with prismatic and continuous joints
#: (Pinocchio's nq = 2), a chain of continuous joints. Every file is checked through the
#: dynamics functions the kernels are traced from; tracing a robot's programs takes 0.3 s
#: (a quadruped) to 8 s (TIAGo dual's 101 joints) on the NumPy backend.
FAST = {"panda.urdf", "solo12.urdf", "allegro_right_hand.urdf", "hyq_no_sensors.urdf",
        "tiago_no_hand.urdf", "kinova.urdf", "double_pendulum_continuous.urdf", "TwoDofs.urdf"}
#: ... and in the slow run: two humanoids (TALOS's 44 joints; Romeo, whose LHand moves no
#: mass, so the kernels' forward dynamics must refuse), Baxter's arms and mimic fingers,
#: the iCub's ill-conditioned M.
SLOW_KERNELS = {"talos_full_v2.urdf", "romeo.urdf", "baxter.urdf", "icub.urdf"}


def _movable(path) -> int:
    root = ET.parse(path).getroot()
    return sum(j.get("type") in ("revolute", "continuous", "prismatic")
               for j in root.findall("joint"))


#: The dynamics functions on floats take about 20 ms a joint per file: robots of more joints
#: than this are slow, but for TALOS (44 joints).
FAST_FUNCTIONS_DOF = 40


def _erd_cases(fast, wanted=lambda path: True) -> list:
    """A case per example-robot-data file with movable joints (and ``wanted``), marked
    slow unless ``fast(path, number of movable joints)``."""
    cases = []
    for path in rd.models.example_robot_data_urdfs():
        dof = _movable(path)
        if dof == 0 or not wanted(path):
            continue  # nothing moves: quadrotor_base, iris_simple, the empty ur3.urdf
        marks = [] if fast(path, dof) else [pytest.mark.slow]
        cases.append(pytest.param(path, id=f"{path.parent.parent.name}/{path.name}",
                                  marks=marks))
    return cases


KERNEL_CASES = _erd_cases(lambda path, dof: path.name in FAST,
                          lambda path: path.name in FAST | SLOW_KERNELS)
FUNCTION_CASES = _erd_cases(lambda path, dof: dof <= FAST_FUNCTIONS_DOF
                            or path.name == "talos_full_v2.urdf")


def _pin_state(model, robot, q, v, a):
    """Pinocchio's ``(q, v, a)`` from robodyn's, joints matched by name; a continuous
    joint has ``nq = 2`` (cos, sin). Also the velocity index of each robodyn joint."""
    import pinocchio as pin

    qp, vp, ap = pin.neutral(model), np.zeros(model.nv), np.zeros(model.nv)
    index = []
    for k, link in enumerate(robot.chain.links):
        joint_id = model.getJointId(link.joint.name)
        assert joint_id < model.njoints, link.joint.name
        joint = model.joints[joint_id]
        assert joint.nv == 1, link.joint.name
        if joint.nq == 2:
            qp[joint.idx_q:joint.idx_q + 2] = math.cos(q[k]), math.sin(q[k])
        else:
            qp[joint.idx_q] = q[k]
        vp[joint.idx_v], ap[joint.idx_v] = v[k], a[k]
        index.append(joint.idx_v)
    return qp, vp, ap, np.array(index)


def _relative(x, reference) -> float:
    """``max |x - reference| / max |reference|``."""
    return float(np.abs(np.asarray(x) - reference).max() / max(np.abs(reference).max(), 1e-300))


def _load_erd(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UrdfWarning)  # mimic joints, unused bodies
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        # mimic joints independent, as pin.buildModelFromUrdf(path) without mimic=True
        # (coupled: tests/model/test_mimic.py)
        return rd.load(path, mimic="independent", **OPTIONS.get(path.name, {}))


def _by_the_functions(robot, q, v, a):
    """``(tau, M, g, qdd)`` of robodyn's dynamics functions on floats, per state (``qdd``
    None where ``M`` is singular: robodyn's Cholesky then raises or divides by rounding)."""
    # URDF friction is not in Pinocchio's rnea
    chain = robot.numeric_chain
    chain = replace(chain, links=tuple(replace(link, friction=Friction())
                                       for link in chain.links))
    out = []
    for qs, vs, as_ in zip(q, v, a, strict=True):
        qs, vs, as_ = (list(map(float, x)) for x in (qs, vs, as_))
        mass = np.array(mass_matrix(chain, qs, FLOAT_OPS), dtype=float)
        fd = None
        if np.linalg.eigvalsh(mass)[0] > 1e-12 * np.abs(mass).max():
            fd = forward_dynamics(chain, qs, vs, as_, FLOAT_OPS)
        out.append((inverse_dynamics(chain, qs, vs, as_, FLOAT_OPS), mass,
                    gravity_torques(chain, qs, FLOAT_OPS), fd))
    return out


def _by_the_kernels(robot, q, v, a):
    """``(tau, M, g, qdd)`` of the robot's compiled kernels (NumPy backend), per state."""
    robot = robot.without_friction()  # URDF friction is not in Pinocchio's rnea
    try:
        fd = robot.forward_dynamics(q, v, a)
    except rd.ModelError as exc:  # romeo.urdf's LHand moves no mass: M is singular
        assert "the mass matrix is singular" in str(exc)
        fd = [None] * len(q)
    return list(zip(robot.inverse_dynamics(q, v, a), robot.mass_matrix(q),
                    robot.gravity_torques(q), fd, strict=True))


def _check_against_pinocchio(path, values) -> None:
    """robodyn's ``(tau, M, g, qdd)`` of three random states (``values(robot, q, v, a)``)
    equal Pinocchio's ``rnea``, ``crba``, ``computeGeneralizedGravity`` and ``aba`` to
    1e-9 relative (forward dynamics: to ``10 cond(M) eps`` where that is more), and the
    pose of every link and frame equals ``framesForwardKinematics``'s, fixed base."""
    pin = pytest.importorskip("pinocchio", reason="Pinocchio is the reference (pip install pin)")
    if path.name in CANNOT_LOAD:
        with pytest.raises(rd.ModelError, match=CANNOT_LOAD[path.name]):
            rd.load(path)
        return
    robot = _load_erd(path)  # neither side has armature (URDF has none)
    model = pin.buildModelFromUrdf(str(path))  # mimic joints independent, as _load_erd's
    data = model.createData()
    assert model.nv == robot.dof
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    q, v, a = rng.uniform(-1, 1, (3, 3, robot.dof))  # three states of each
    chain = robot.numeric_chain
    for s, (tau, mass, gravity, fd) in enumerate(values(robot, q, v, a)):
        qp, vp, ap, iv = _pin_state(model, robot, q[s], v[s], a[s])
        assert _relative(tau, pin.rnea(model, data, qp, vp, ap)[iv]) < 1e-9
        m_pin = pin.crba(model, data, qp)
        m_pin = (np.triu(m_pin) + np.triu(m_pin, 1).T)[np.ix_(iv, iv)]
        assert _relative(mass, m_pin) < 1e-9
        assert _relative(gravity, pin.computeGeneralizedGravity(model, data, qp)[iv]) < 1e-9
        torque = np.zeros(model.nv)
        torque[iv] = a[s]
        if fd is None:
            assert np.linalg.eigvalsh(m_pin)[0] < 1e-12 * np.abs(m_pin).max()
        else:
            # two exact solvers of M x = b agree to about cond(M) eps (iCub's M: 4e7)
            tol = max(1e-9, 10 * np.finfo(float).eps * np.linalg.cond(m_pin))
            assert _relative(fd, pin.aba(model, data, qp, vp, torque)[iv]) < tol
        # forward kinematics of every link and frame, by name (Pinocchio's BODY frames)
        pin.framesForwardKinematics(model, data, qp)
        poses = link_poses(chain, [float(x) for x in q[s]], FLOAT_OPS)
        named = [(link.name, (np.array(p[0]), np.array(p[1])))
                 for link, p in zip(chain.links, poses, strict=True)]
        named += [(frame.name, _pose(poses, frame)) for frame in chain.frames]
        for name, (rot, origin) in named:
            frame_id = model.getFrameId(name, pin.BODY)
            assert frame_id < model.nframes, name
            placement = data.oMf[frame_id]
            assert np.abs(rot - placement.rotation).max() < 1e-9, name
            assert np.abs(origin - placement.translation).max() < 1e-9, name
    # every URDF link is a link or a frame, once
    links = [el.get("name") for el in ET.parse(path).getroot().findall("link")]
    assert sorted(name for name, _ in named) == sorted(links)


@pytest.mark.parametrize("path", FUNCTION_CASES)
def test_example_robot_data_tree_equals_pinocchio(path):
    """robodyn's dynamics functions (the code the kernels are traced from) on floats."""
    _check_against_pinocchio(path, _by_the_functions)


@pytest.mark.parametrize("path", KERNEL_CASES)
def test_example_robot_data_tree_kernels_equal_pinocchio(path, numpy_backend):
    """The robot's compiled kernels (``inverse_dynamics``, ``mass_matrix``,
    ``gravity_torques``, ``forward_dynamics``), as a user calls them."""
    _check_against_pinocchio(path, _by_the_kernels)


@pytest.mark.parametrize("name", ["panda_description/urdf/panda.urdf",
                                  "solo_description/robots/solo12.urdf",
                                  "allegro_hand_description/urdf/allegro_right_hand.urdf"])
def test_the_jacobian_of_every_frame_is_pinocchios(name, numpy_backend):
    """``robot.jacobian(q, frame=f)`` and ``forward_kinematics(q, frame=f)`` of every link
    and fixed frame of a tree (the arm and its fingers, four legs, a hand) equal
    Pinocchio's ``getFrameJacobian`` (``LOCAL_WORLD_ALIGNED``: the frame origin's velocity
    and the angular velocity, world axes) and ``oMf``, joints matched by name."""
    pin = pytest.importorskip("pinocchio", reason="Pinocchio is the reference (pip install pin)")
    try:
        path = rd.models.example_robot_data(name)
    except rd.ModelError:
        pytest.skip(f"example-robot-data has no {name}")
    robot = _load_erd(path)
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    q = np.random.default_rng(7).uniform(-1, 1, robot.dof)
    qp, _, _, iv = _pin_state(model, robot, q, q, q)
    pin.computeJointJacobians(model, data, qp)
    pin.framesForwardKinematics(model, data, qp)
    checked = 0
    for frame in robot.frames:
        frame_id = model.getFrameId(frame, pin.BODY)
        if frame_id >= model.nframes:  # robodyn's own name for the base
            assert frame == robot.frames[0]
            continue
        expected = pin.getFrameJacobian(model, data, frame_id, pin.LOCAL_WORLD_ALIGNED)[:, iv]
        jac = robot.jacobian(q, frame=frame)
        assert _relative(jac, expected) < 1e-9 if np.abs(expected).max() > 0 \
            else np.abs(jac).max() == 0, frame
        np.testing.assert_allclose(robot.forward_kinematics(q, frame=frame),
                                   data.oMf[frame_id].homogeneous, atol=1e-9, err_msg=frame)
        checked += 1
    assert checked >= robot.dof  # every link at least, and the merged frames


def test_the_floating_body_is_pinocchios_free_flyer_body():
    """Solo-12 and TALOS with ``floating=True``: the base body (with the bodies fixed to
    it) and the placements of the joints on it are Pinocchio's with JointModelFreeFlyer."""
    pin = pytest.importorskip("pinocchio", reason="Pinocchio is the reference (pip install pin)")
    for rel in ("solo_description/robots/solo12.urdf", "talos_data/robots/talos_reduced.urdf"):
        try:
            path = rd.models.example_robot_data(rel)
        except rd.ModelError:
            pytest.skip(f"example-robot-data has no {rel}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UrdfWarning)
            chain = load_urdf(path, floating=True).chain
        model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
        body, inertia = chain.links[0].inertial, model.inertias[1]
        assert float(body.mass) == pytest.approx(inertia.mass, rel=1e-12)
        np.testing.assert_allclose(np.array(body.com, dtype=float), inertia.lever, atol=1e-12)
        np.testing.assert_allclose(np.array(body.inertia, dtype=float), inertia.inertia,
                                   atol=1e-12)
        for k in chain.children(0):
            link = chain.links[k]
            placement = model.jointPlacements[model.getJointId(link.joint.name)]
            assert model.parents[model.getJointId(link.joint.name)] == 1
            np.testing.assert_allclose(np.array(link.joint.placement.translation, dtype=float),
                                       placement.translation, atol=1e-12)
            np.testing.assert_allclose(np.array(link.joint.placement.rotation, dtype=float),
                                       placement.rotation, atol=1e-11)


def test_every_example_robot_data_file_with_movable_joints_is_checked():
    if not FUNCTION_CASES:
        pytest.skip("example-robot-data is not installed")
    names = {case.values[0].name for case in FUNCTION_CASES}
    assert {"panda.urdf", "solo12.urdf", "talos_full_v2.urdf", "baxter.urdf",
            "allegro_left_hand.urdf", "tiago.urdf", "hyq_no_sensors.urdf",
            "romeo.urdf"} <= names
    assert len(FUNCTION_CASES) >= 60  # 66 of example-robot-data 6.0's 69 files move
    assert {case.values[0].name for case in KERNEL_CASES} == FAST | SLOW_KERNELS


# -- export ------------------------------------------------------------------------------------
def _assert_same_model(a, b):
    """Two numeric chains with the same structure (links, joints, parents, frames by name)
    and the same numbers to rounding (URDF's rpy text round trip)."""
    assert [(link.name, link.joint.name, link.joint.type, link.joint.limits)
            for link in a.links] == [(link.name, link.joint.name, link.joint.type,
                                      link.joint.limits) for link in b.links]
    assert a.parents == b.parents
    assert [(f.name, f.link) for f in a.frames] == [(f.name, f.link) for f in b.frames]
    assert a.floating == b.floating
    np.testing.assert_allclose(np.array(a.numbers(), dtype=float),
                               np.array(b.numbers(), dtype=float), rtol=1e-12, atol=1e-12)


def test_a_tree_exports_to_urdf_and_reloads_to_the_same_model(tmp_path, numpy_backend):
    """two_leaves.urdf with pads on the fingers, a turned tool frame and a camera on the
    base: to_urdf writes each link's joint on its parent and each frame on a fixed joint;
    rd.load reads back the same tree, frames, masses and dynamics."""
    extra = """
  <link name="left_pad"/><joint name="left_pad_joint" type="fixed">
    <parent link="left_finger"/><child link="left_pad"/><origin xyz="0 0.02 0"/></joint>
  <link name="tool"/><joint name="tool_joint" type="fixed">
    <parent link="link1"/><child link="tool"/><origin xyz="0.5 0 0.1" rpy="0.3 -0.2 1.1"/></joint>
  <link name="camera"/><joint name="camera_joint" type="fixed">
    <parent link="base_link"/><child link="camera"/><origin xyz="0 0 1" rpy="0 1.2 0"/></joint>
"""
    path = tmp_path / "tree.urdf"
    path.write_text((DATA / "two_leaves.urdf").read_text().replace("</robot>",
                                                                    extra + "</robot>"))
    robot = rd.load(path)
    exported = tmp_path / "exported.urdf"
    robot.to_urdf(exported)
    again = rd.load(exported)
    _assert_same_model(robot.numeric_chain, again.numeric_chain)
    assert [f.name for f in again.chain.frames] == ["base_link", "left_pad", "tool", "camera"]
    q, qd, qdd = np.random.default_rng(3).normal(size=(3, 5, 3))
    np.testing.assert_allclose(again.inverse_dynamics(q, qd, qdd),
                               robot.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)
    # the floating base's body is the base link's <inertial>
    floating = rd.load(path, floating=True)
    text = floating.to_urdf()
    assert "free-flying base: load with floating=True" in text
    exported.unlink()
    exported.write_text(text)
    _assert_same_model(floating.numeric_chain, rd.load(exported, floating=True).numeric_chain)


@pytest.mark.parametrize("rel", ["panda_description/urdf/panda.urdf",
                                 "solo_description/robots/solo12.urdf"])
def test_example_robot_data_trees_round_trip(rel, tmp_path):
    try:
        path = rd.models.example_robot_data(rel)
    except rd.ModelError:
        pytest.skip(f"example-robot-data has no {rel}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UrdfWarning)
        robot = rd.load(path, mimic="independent")  # URDF export writes no <mimic> yet
        chain = robot.numeric_chain
        assert writable_chain(chain)[1] == {}  # written as it is: no body made physical
        exported = tmp_path / path.name
        robot.to_urdf(exported)
        _assert_same_model(chain, rd.load(exported).numeric_chain)
