"""URDF export (``robot.to_urdf``): the exported file, read by Pinocchio, gives robodyn's
dynamics and tip pose; read back by ``rd.load`` it gives the same robot.

Every built-in model, two DH models written here (standard and modified, prismatic and
revolute joints with offsets, full inertia tensors, friction, motors, gravity along an
odd direction) and two URDF round trips (the UR5 with tip ``tool0``, and
``data/urdf/rpc_branch.urdf``). Pinocchio applies neither friction nor (from a URDF)
armature: both are removed from robodyn's side, ``inverse_dynamics - friction_torques -
armature qdd`` and ``mass_matrix - diag(armature)``.
"""

from __future__ import annotations

import math
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES, TEST_DATA, random_states
from robodyn.cli import main
from robodyn.model.urdf import rpy_matrix
from robodyn.model.urdf_export import matrix_rpy, writable_chain

# values, not speed: new kernels run on the NumPy backend (no Numba compile time)
pytestmark = pytest.mark.usefixtures("numpy_backend")

pin = pytest.importorskip("pinocchio")

DATA = TEST_DATA / "urdf"
N = 20
RTOL = 1e-9

# Both DH conventions with everything the exporter must carry: revolute offsets (theta),
# a prismatic offset (d), twists, full inertia tensors, friction, motors, tilted gravity.
DH_MODEL = """
name: export-{convention}
dh: {convention}
gravity: [0.6 * g, -0.8 * g, 0]
links:
  - joint: revolute
    a: 0.1
    alpha: pi/2
    d: 0.2
    theta: 0.3
    mass: 2.0
    com: [0.05, -0.02, 0.1]
    inertia: [0.05, 0.04, 0.03, 0.002, -0.001, 0.003]
    friction: {{viscous: 0.4, coulomb: 0.1}}
    motor: {{inertia: 2e-4, gear_ratio: 50}}
  - joint: prismatic
    a: 0.05
    alpha: -0.7
    d: 0.25
    theta: 0.4
    mass: 1.2
    com: [0, 0.03, -0.05]
    inertia: [0.02, 0.025, 0.015, 0, 0.001, -0.002]
    friction: {{viscous: 2.0}}
  - joint: revolute
    a: 0.3
    alpha: 0.5
    d: 0.1
    theta: -1.1
    mass: 0.8
    com: [0.1, 0, 0.02]
    inertia: [0.004, 0.01, 0.009, 0.0005, 0, 0]
values: {{g: 9.81}}
"""


def _dh_model(tmp_path, convention: str) -> rd.Robot:
    path = tmp_path / f"export_{convention}.yaml"
    path.write_text(DH_MODEL.format(convention=convention))
    return rd.load(path)


def _robot(case: str, tmp_path) -> rd.Robot:
    if case in ("standard", "modified"):
        return _dh_model(tmp_path, case)
    if case == "ur5-tool0":
        try:
            path = rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf")
        except rd.ModelError as exc:
            pytest.skip(str(exc))
        return rd.load(path, tip="tool0")
    if case == "rpc_branch":
        return rd.load(DATA / "rpc_branch.urdf", tip="tool")
    return rd.load(case)


CASES = [*MODEL_NAMES, "standard", "modified", "ur5-tool0", "rpc_branch"]


def _export(robot: rd.Robot) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.UrdfWarning)  # armature left out: checked below
        return robot.to_urdf()


def _tip_frame(text: str, frames=()) -> str:
    """The exporter's end frame: the last link of the file (``tool`` or the last link),
    a tree's named ``frames`` (written after its links) left out."""
    return [link.get("name") for link in ET.fromstring(text).findall("link")
            if link.get("name") not in frames][-1]


def _gravity_turned(text: str) -> bool:
    """Whether the exporter's root holds the base turned so that gravity is along -z."""
    return "turned so that gravity points along" in text


def _base_frame(text: str) -> str:
    """The exporter's base link: the first link (``base_link``, or the name of the loaded
    file's base), or the child of the turned root's joint."""
    root = ET.fromstring(text)
    if _gravity_turned(text):
        return root.find("joint").find("child").get("link")
    return root.find("link").get("name")


def _armature(robot: rd.Robot) -> np.ndarray:
    return np.array([float(link.motor.armature) for link in robot.numeric_chain.links])


def _pin_q(model, q: np.ndarray) -> np.ndarray:
    """Pinocchio's configuration: a continuous joint is ``(cos q, sin q)``."""
    out = []
    for i in range(1, model.njoints):
        value = q[model.joints[i].idx_v]
        out.extend([np.cos(value), np.sin(value)] if model.joints[i].nq == 2 else [value])
    return np.array(out)


def _close(ours, reference, what: str) -> None:
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(ours, reference, rtol=RTOL, atol=RTOL * scale, err_msg=what)


@pytest.mark.parametrize("case", CASES)
def test_exported_urdf_gives_pinocchio_the_same_dynamics(case, tmp_path):
    robot = _robot(case, tmp_path)
    text = _export(robot)
    # the bodies as written: non-physical ones made physical (writable_chain); where the
    # dynamics feel it (the PUMA's link 3) tests/model/test_urdf_export_mujoco.py bounds it
    robot = robot.with_chain(writable_chain(robot.numeric_chain)[0])
    model = pin.buildModelFromXML(text)
    g = float(np.linalg.norm(robot.numeric_chain.gravity))
    model.gravity = pin.Motion(np.array([0.0, 0.0, -g, 0.0, 0.0, 0.0]))
    data = model.createData()
    assert model.nv == robot.dof
    assert [model.names[i] for i in range(1, model.njoints)] == \
        [link.joint.name for link in robot.links]
    # the joint types: revolute joints without position limits are continuous (nq = 2)
    for i, link in enumerate(robot.links, start=1):
        limits = link.joint.limits
        continuous = link.joint.type == "revolute" and (
            limits is None or not all(math.isfinite(x) for x in limits[:2]))
        assert model.joints[i].nq == (2 if continuous else 1), link.joint.name

    base, tip = model.getFrameId(_base_frame(text)), model.getFrameId(
        _tip_frame(text, () if robot.chain.is_serial else [f.name for f in robot.chain.frames]))
    q, qd, qdd = random_states(robot, N, seed=11)
    armature = _armature(robot)
    tau = robot.inverse_dynamics(q, qd, qdd) - robot.friction_torques(qd) - armature * qdd
    mass = robot.mass_matrix(q) - np.diag(armature)
    pose = robot.forward_kinematics(q)
    for k in range(N):
        qp = _pin_q(model, q[k])
        _close(tau[k], pin.rnea(model, data, qp, qd[k], qdd[k]), f"rnea, sample {k}")
        m = pin.crba(model, data, qp)
        _close(mass[k], np.triu(m) + np.triu(m, 1).T, f"crba, sample {k}")
        pin.framesForwardKinematics(model, data, qp)
        in_base = data.oMf[base].inverse() * data.oMf[tip]  # the root may be a turned world
        _close(pose[k], in_base.homogeneous, f"tip pose, sample {k}")
    # <dynamics damping friction> as Pinocchio reads them
    links = robot.numeric_chain.links
    np.testing.assert_array_equal(model.damping, [link.friction.viscous for link in links])
    np.testing.assert_array_equal(model.friction, [link.friction.coulomb for link in links])


@pytest.mark.parametrize("case", ["puma560", "planar-2r", "rp-arm", "standard", "modified",
                                  "ur5-tool0", "rpc_branch"])
def test_reloading_the_export_gives_the_same_robot(case, tmp_path):
    """``rd.load`` of the exported file with default arguments: same torques (friction
    included), mass matrix (armature excluded), tip pose (in the root frame, the base
    turned by the exported ``world`` joint when gravity is not along -z) and limits."""
    robot = _robot(case, tmp_path)
    path = tmp_path / "export.urdf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.UrdfWarning)
        text = robot.to_urdf(path)
    assert path.read_text() == text
    again = rd.load(path)
    robot = robot.with_chain(writable_chain(robot.numeric_chain)[0])  # the bodies as written
    assert again.dof == robot.dof and again.locked == ()
    assert [link.joint.name for link in again.links] == [link.joint.name for link in robot.links]
    if robot.provenance.loader == "urdf":  # limits read from a file come back unchanged
        assert [link.joint.limits for link in again.links] == \
            [link.joint.limits for link in robot.links]

    root = ET.fromstring(text)
    turn = np.eye(4)
    if _gravity_turned(text):  # the first joint turns the base link
        origin = root.find("joint").find("origin")
        turn[:3, :3] = rpy_matrix([float(x) for x in origin.get("rpy").split()])
    gravity = turn[:3, :3] @ np.array(robot.numeric_chain.gravity)
    np.testing.assert_allclose(gravity, [0.0, 0.0, -9.81], atol=1e-12)

    q, qd, qdd = random_states(robot, N, seed=12)
    armature = _armature(robot)
    _close(again.inverse_dynamics(q, qd, qdd),
           robot.inverse_dynamics(q, qd, qdd) - armature * qdd, "inverse_dynamics")
    _close(again.mass_matrix(q), robot.mass_matrix(q) - np.diag(armature), "mass_matrix")
    _close(again.forward_kinematics(q), turn @ robot.forward_kinematics(q), "tip pose")


def test_limits_and_joint_types_of_a_urdf_round_trip(tmp_path):
    """The UR5's joints are revolute with limits; rpc_branch.urdf has a continuous joint
    (no position limits) and a prismatic one: the export keeps each as it was read."""
    robot = _robot("rpc_branch", tmp_path)
    text = _export(robot)
    joints = {j.get("name"): j for j in ET.fromstring(text).findall("joint")}
    for link in robot.links:
        element = joints[link.joint.name]
        limits = link.joint.limits
        unlimited = limits is None or not all(math.isfinite(x) for x in limits[:2])
        expected = ("prismatic" if link.joint.type == "prismatic" else
                    "continuous" if unlimited else "revolute")
        assert element.get("type") == expected
        if limits is not None and not unlimited:
            limit = element.find("limit")
            assert [float(limit.get(k)) for k in ("lower", "upper")] == list(limits[:2])
    assert {j.get("type") for j in joints.values()} >= {"continuous", "prismatic"}


def test_offsets_are_folded_into_the_origins(tmp_path):
    """rp-arm's joint 1 has theta = pi/2: URDF's q = 0 must be robodyn's q = 0, so the
    offset turns the joint origin (yaw pi/2) and no joint variable is shifted; the
    pendulum's -pi/2 likewise."""
    for name, yaw in (("rp-arm", math.pi / 2), ("pendulum", -math.pi / 2)):
        text = _export(rd.load(name))
        joint = next(j for j in ET.fromstring(text).findall("joint") if j.get("name") == "joint1")
        rpy = [float(x) for x in joint.find("origin").get("rpy").split()]
        np.testing.assert_allclose(rpy, [0.0, 0.0, yaw], atol=1e-15)


def test_armature_is_left_out_with_a_warning(tmp_path):
    robot = _dh_model(tmp_path, "standard")
    with pytest.warns(rd.UrdfWarning, match="armature"):
        text = robot.to_urdf()
    assert "no motor (armature) inertia" in text and "joint1" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rd.load("planar-2r").to_urdf()  # no motor: no warning


# -- roll, pitch, yaw ---------------------------------------------------------------------
def _random_rotations(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        quat = rng.normal(size=4)
        w, x, y, z = quat / np.linalg.norm(quat)
        out.append(np.array([
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]))
    return out


@pytest.mark.parametrize("pitch", [math.pi / 2, -math.pi / 2, math.pi / 2 - 1e-9,
                                   -math.pi / 2 + 1e-7, math.pi / 2 - 1e-12])
def test_rpy_at_and_near_gimbal_lock(pitch):
    """Near |pitch| = pi/2 roll and yaw are ill-defined, but the rotation they give back
    must be the one given."""
    for roll, yaw in ((0.3, -1.2), (2.9, 3.0), (-0.4, 0.0)):
        rotation = rpy_matrix([roll, pitch, yaw])
        np.testing.assert_allclose(rpy_matrix(matrix_rpy(rotation)), rotation, rtol=0,
                                   atol=4e-16)


def test_rpy_of_random_rotations():
    for rotation in _random_rotations(200):
        rpy = matrix_rpy(rotation)
        np.testing.assert_allclose(rpy_matrix(rpy), rotation, rtol=0, atol=1e-15)
        assert abs(rpy[1]) <= math.pi / 2 + 1e-15
        np.testing.assert_allclose(matrix_rpy(rpy_matrix(rpy)), rpy, rtol=0, atol=1e-14)


# -- the command line ---------------------------------------------------------------------
def test_cli_export(tmp_path, capsys):
    out = tmp_path / "rp.urdf"
    assert main(["export", "rp-arm", "--urdf", str(out)]) == 0
    assert out.read_text() == rd.load("rp-arm").to_urdf()
    assert str(out) in capsys.readouterr().err

    # a URDF input with --tip: the chain ends at link2, not at the file's tool frame
    out = tmp_path / "planar.urdf"
    assert main(["export", str(DATA / "planar_2r.urdf"), "--tip", "link2",
                 "--urdf", str(out)]) == 0
    again = rd.load(out)
    assert [link.name for link in again.links] == ["link1", "link2"]
    np.testing.assert_allclose(again.forward_kinematics([0.0, 0.0])[:3, 3], [1.0, 0.0, 0.0],
                               atol=1e-15)

    # "-" writes to stdout
    assert main(["export", "planar-2r", "--urdf", "-"]) == 0
    assert capsys.readouterr().out == rd.load("planar-2r").to_urdf()


def test_cli_export_errors(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["export", "planar-2r", "--tip", "link2", "--urdf", str(tmp_path / "x.urdf")])
    assert "URDF files only" in capsys.readouterr().err
    assert main(["export", "no-such-model", "--urdf", str(tmp_path / "x.urdf")]) == 2
    assert "not a built-in model" in capsys.readouterr().err
    assert main(["export", "planar-2r", "--urdf", str(tmp_path / "no" / "dir.urdf")]) == 2
    assert "cannot write" in capsys.readouterr().err
