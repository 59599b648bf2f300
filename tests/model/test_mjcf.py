"""MJCF files (issue 21, MJCF): robodyn's model of a MuJoCo file equals MuJoCo's.

MuJoCo is the oracle: for hand-written files covering each feature (angle units, every
orientation form, default classes and childclass, fullinertia, armature, damping,
frictionloss, several joints in one body, a branching tree, sites and frames) and for
example-robot-data URDFs converted to MJCF by MuJoCo itself (``mj_saveLastXML``), at
random states robodyn's ``inverse_dynamics`` equals ``mj_inverse``'s ``qfrc_inverse``
(damping is MuJoCo's passive force ``qfrc_passive = -damping qd``, which robodyn's viscous
friction equals; frictionloss is a MuJoCo constraint, disabled there and removed here),
``mass_matrix`` equals ``mj_fullM`` (armature included on both sides), and every frame
equals MuJoCo's site, body and joint-anchor poses. Hostile files fail fast in a bounded
subprocess.
"""

from __future__ import annotations

import math
import os
import re
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import robodyn as rd
from conftest import run_bounded
from robodyn.dynamics.kinematics import link_poses
from robodyn.model import mjcf_bodies, mjcf_xml
from robodyn.model.chain import split_free_base
from robodyn.model.mjcf import load_mjcf

mujoco = pytest.importorskip("mujoco")

pytestmark = pytest.mark.usefixtures("numpy_backend")
RTOL = 1e-9
OPS = SimpleNamespace(cos=math.cos, sin=math.sin)


def write(tmp_path: Path, text: str, name: str = "model.xml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def mj_model(path: Path):
    """MuJoCo's model of ``path`` with constraints (frictionloss, limits) off and RK4, so
    that ``mj_inverse`` has no Euler implicit-damping term."""
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    return m


def close(a, b, what: str):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.abs(b).max()))
    assert np.abs(a - b).max() <= RTOL * scale, f"{what}: {a} != {b}"


def check_against_mujoco(path: Path, samples: int = 3, seed: int = 0,
                         mimic: str = "coupled"):
    """robodyn's ID (without Coulomb friction), viscous friction, M and frames equal
    MuJoCo's at random states of a fixed-base model; returns the robot. ``mimic``:
    ``"independent"`` for a file with ``<equality joint>`` (MuJoCo's M is the tree's)."""
    robot = rd.load(path, mimic=mimic)
    m = mj_model(path)
    d = mujoco.MjData(m)
    assert robot.dof == m.nv == m.nq
    assert [j.name for j in (link.joint for link in robot.chain.links)] == \
        [m.joint(k).name or f"joint{k + 1}" for k in range(m.njnt)]
    no_coulomb = robot.without_friction(viscous=False)
    rng = np.random.default_rng(seed)
    for _ in range(samples):
        q, qd, qdd = (rng.uniform(-1.5, 1.5, m.nv) for _ in range(3))
        d.qpos[:], d.qvel[:] = q, qd
        mujoco.mj_forward(m, d)
        d.qacc[:] = qdd
        mujoco.mj_inverse(m, d)
        close(no_coulomb.inverse_dynamics(q, qd, qdd), d.qfrc_inverse, "inverse dynamics")
        close(no_coulomb.friction_torques(qd), -d.qfrc_passive, "damping = -qfrc_passive")
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        close(robot.mass_matrix(q), full, "mass matrix")
        check_frames(robot, m, d, q)
    close([float(link.friction.coulomb) for link in robot.chain.links], m.dof_frictionloss,
          "frictionloss")
    close([float(link.motor.armature) for link in robot.chain.links], m.dof_armature,
          "armature")
    return robot


def check_frames(robot, m, d, q):
    """Each frame is MuJoCo's site or body pose; each link frame origin is its joint's
    anchor, its rotation the body's; the tip is the last link's body frame."""
    chain = robot.numeric_chain
    poses = [(np.array(r, dtype=float), np.array(p, dtype=float))
             for r, p in link_poses(chain, list(q), OPS)]

    def world(link, placement):
        rot, pos = poses[link] if link >= 0 else (np.eye(3), np.zeros(3))
        return (rot @ np.array(placement.rotation, dtype=float),
                pos + rot @ np.array(placement.translation, dtype=float))

    for frame in chain.frames:
        rot, pos = world(frame.link, frame.placement)
        site = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, frame.name)
        if site >= 0:
            close(pos, d.site_xpos[site], f"site {frame.name}")
            close(rot, d.site_xmat[site].reshape(3, 3), f"site {frame.name} rotation")
        else:
            body = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, frame.name)
            assert body >= 0, frame.name
            close(pos, d.xpos[body], f"body {frame.name}")
            close(rot, d.xmat[body].reshape(3, 3), f"body {frame.name} rotation")
    for i, link in enumerate(chain.links):
        joint = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, link.joint.name)
        anchor = d.xanchor[joint]  # a slide's anchor is where the body is before it moves
        if link.joint.type == "prismatic":
            anchor = anchor + d.xaxis[joint] * (q[i] - m.qpos0[m.jnt_qposadr[joint]])
        close(poses[i][1], anchor, f"link {link.name} origin")
        if ":" not in link.name:
            body = m.jnt_bodyid[joint]
            close(poses[i][0], d.xmat[body].reshape(3, 3), f"link {link.name} rotation")
    last = m.jnt_bodyid[m.njnt - 1]
    rot, pos = world(len(chain.links) - 1, chain.tip)
    close(pos, d.xpos[last], "tip")
    close(rot, d.xmat[last].reshape(3, 3), "tip rotation")


# -- hand-written files ------------------------------------------------------------------------
FEATURES = """\
<mujoco model="features">
  <compiler eulerseq="zyX"/>
  <option gravity="0.3 -0.2 -9.7"/>
  <default>
    <joint damping="0.2" armature="0.05"/>
    <default class="light">
      <joint damping="0.1" frictionloss="0.3"/>
      <default class="slider">
        <joint type="slide" axis="1 0 0" armature="0.02"/>
      </default>
    </default>
  </default>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <site name="world_site" pos="0.1 0 0" euler="0 0 45"/>
    <body name="base" pos="0 0 0.2" euler="10 20 30">
      <inertial pos="0.01 0.02 0.03" euler="5 -10 15" mass="2" diaginertia="0.03 0.02 0.025"/>
      <joint name="j1" axis="0 0.3 1" pos="0.01 0 0.02" range="-90 90" ref="10"/>
      <body name="left" pos="0.1 0.2 0" quat="0.9 0.1 -0.2 0.3" childclass="light">
        <inertial pos="0 0 0.1" mass="1.2" fullinertia="0.02 0.03 0.025 0.001 -0.002 0.0015"/>
        <joint name="j2a" axis="1 0 0" pos="0 0 0.05"/>
        <joint name="j2b" axis="0 1 0.2" pos="0.01 0.02 0"/>
        <site name="left_tip" pos="0 0 0.2" zaxis="0 1 1"/>
        <body name="left_slide" pos="0 0 0.3" axisangle="0 1 0 30">
          <inertial pos="0.05 0 0" xyaxes="0 1 0 -1 0 0.2" mass="0.5"
                    diaginertia="0.004 0.005 0.006"/>
          <joint name="j3" class="slider" ref="0.05"/>
          <body name="welded" pos="0.1 0 0" zaxis="1 0 0">
            <inertial pos="0 0.02 0" mass="0.3" diaginertia="0.001 0.002 0.0015"/>
            <site name="welded_site" pos="0 0 0.05" xyaxes="1 1 0 0 0 1"/>
          </body>
        </body>
      </body>
      <frame pos="0 -0.1 0" euler="0 0 90">
        <body name="right" pos="0.1 0 0">
          <inertial pos="0 0 0.1" mass="0.8" diaginertia="0.01 0.012 0.011"/>
          <joint name="j4" axis="0 1 0" damping="0.4" frictionloss="0.1"/>
          <geom type="sphere" size="0.1" mass="0"/>
        </body>
      </frame>
    </body>
  </worldbody>
</mujoco>
"""


def test_a_branching_tree_with_every_feature_equals_mujoco(tmp_path):
    robot = check_against_mujoco(write(tmp_path, FEATURES))
    chain = robot.chain
    # left holds two hinges: the first is a massless link of its own
    assert [link.name for link in chain.links] == ["base", "left:j2a", "left", "left_slide",
                                                   "right"]
    assert chain.parents == (-1, 0, 1, 2, 0)
    assert float(chain.links[1].inertial.mass) == 0
    assert [f.name for f in chain.frames] == ["world_site", "left_tip", "welded",
                                              "welded_site"]
    # the welded body's mass joins its link; the limits are in radians
    assert float(chain.links[3].inertial.mass) == pytest.approx(0.8)
    assert chain.links[0].joint.limits[:2] == pytest.approx((-math.pi / 2, math.pi / 2))
    assert robot.values == {}  # gravity is not along -z: its numbers are the chain's
    # Coulomb friction is frictionloss: sign(qd) times it, beside the damping
    qd = np.array([0.3, -0.2, 0.1, -0.4, 0.5])
    close(robot.friction_torques(qd), [0.2 * 0.3, -0.1 * 0.2 - 0.3, 0.1 * 0.1 + 0.3,
                                       -0.1 * 0.4 - 0.3, 0.4 * 0.5 + 0.1], "friction")


def _two_links(orientation: str, units: str = "") -> str:
    """Two hinges, the orientation ``orientation`` on the bodies, inertials and a site."""
    return f"""\
<mujoco>
  <compiler {units}/>
  <worldbody>
    <body name="a" pos="0.1 0.2 0.3" {orientation}>
      <inertial pos="0.05 0.01 -0.02" {orientation} mass="1.5" diaginertia="0.01 0.02 0.015"/>
      <joint name="ja" axis="0.2 0.5 1"/>
      <body name="b" pos="0.3 -0.1 0.05" {orientation}>
        <inertial pos="0.1 0 0.02" {orientation} mass="0.7" diaginertia="0.003 0.004 0.006"/>
        <joint name="jb" axis="1 0 0" pos="0.02 0 0" range="-1 1"/>
        <site name="s" pos="0.2 0.01 0" {orientation}/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


ORIENTATIONS = {
    "quat": 'quat="0.8 0.2 -0.3 0.4"',
    "euler": 'euler="20 -35 50"',
    "axisangle": 'axisangle="1 2 -0.5 40"',
    "xyaxes": 'xyaxes="1 0.2 0 -0.1 1 0.3"',
    "zaxis": 'zaxis="0.3 -0.4 1"',
    "zaxis_down": 'zaxis="0 0 -1"',
}


@pytest.mark.parametrize("form", sorted(ORIENTATIONS))
def test_each_orientation_form_equals_mujoco(tmp_path, form):
    check_against_mujoco(write(tmp_path, _two_links(ORIENTATIONS[form])))


@pytest.mark.parametrize("seq", ["xyz", "XYZ", "zyx", "ZXy"])
def test_euler_sequences_equal_mujoco(tmp_path, seq):
    check_against_mujoco(write(tmp_path, _two_links('euler="20 -35 50"',
                                                    f'eulerseq="{seq}"')))


def test_degrees_are_the_default_and_radians_give_the_same_robot(tmp_path):
    degrees = _two_links('euler="20 -35 50"').replace('range="-1 1"', 'range="-60 30" ref="15"')
    radians = _two_links(f'euler="{math.radians(20)!r} {math.radians(-35)!r} '
                         f'{math.radians(50)!r}"', 'angle="radian"').replace(
        'range="-1 1"', f'range="{math.radians(-60)!r} {math.radians(30)!r}" '
                        f'ref="{math.radians(15)!r}"')
    a = check_against_mujoco(write(tmp_path, degrees, "deg.xml"))
    b = check_against_mujoco(write(tmp_path, radians, "rad.xml"))
    q = np.array([0.3, -0.7])
    close(a.mass_matrix(q), b.mass_matrix(q), "degrees vs radians")
    assert a.chain.links[1].joint.limits[:2] == pytest.approx((-math.pi / 3, math.pi / 6))
    assert float(a.chain.links[1].joint.offset) == pytest.approx(-math.pi / 12)


def test_childclass_and_nested_defaults_choose_each_joints_values(tmp_path):
    path = write(tmp_path, """\
        <mujoco>
          <default>
            <joint damping="1" armature="0.1" axis="0 1 0"/>
            <default class="arm">
              <joint damping="2"/>
              <default class="wrist"><joint armature="0.3" frictionloss="0.5"/></default>
            </default>
          </default>
          <worldbody>
            <body name="a" childclass="arm">
              <inertial pos="0 0 0.1" mass="1" diaginertia="0.01 0.01 0.01"/>
              <joint name="ja"/>
              <body name="b" pos="0 0 0.2">
                <inertial pos="0 0 0.1" mass="1" diaginertia="0.01 0.01 0.01"/>
                <joint name="jb" class="wrist" axis="1 0 0"/>
                <body name="c" pos="0 0 0.2" childclass="main">
                  <inertial pos="0 0 0.1" mass="1" diaginertia="0.01 0.01 0.01"/>
                  <joint name="jc"/>
                </body>
              </body>
            </body>
          </worldbody>
        </mujoco>""")
    robot = check_against_mujoco(path)
    links = robot.chain.links
    assert [float(link.friction.viscous) for link in links] == [2, 2, 1]
    assert [float(link.motor.armature) for link in links] == [0.1, 0.3, 0.1]
    assert [float(link.friction.coulomb) for link in links] == [0, 0.5, 0]
    assert [tuple(map(float, link.joint.axis)) for link in links] == \
        [(0, 1, 0), (1, 0, 0), (0, 1, 0)]


def test_an_include_in_the_models_folder_is_read(tmp_path):
    (tmp_path / "parts").mkdir()
    write(tmp_path, """\
        <mujoco>
          <body name="b" pos="0 0 0.2">
            <inertial pos="0 0 0.1" mass="1" diaginertia="0.01 0.02 0.03"/>
            <joint name="jb" axis="1 0 0"/>
          </body>
        </mujoco>""", "parts/arm.xml")
    path = write(tmp_path, """\
        <mujoco>
          <worldbody>
            <body name="a">
              <inertial pos="0 0 0.1" mass="1" diaginertia="0.01 0.01 0.01"/>
              <joint name="ja"/>
              <include file="parts/arm.xml"/>
            </body>
          </worldbody>
        </mujoco>""")
    assert check_against_mujoco(path).chain.links[1].name == "b"


def test_equality_and_tendons_are_left_out_with_a_note(tmp_path):
    text = _two_links("").replace("</mujoco>", """\
  <equality><tendon tendon1="t"/></equality>
  <tendon><fixed name="t"><joint joint="ja" coef="1"/></fixed></tendon>
</mujoco>""")
    robot = check_against_mujoco(write(tmp_path, text))
    assert robot.provenance.notes == (
        "not read: <equality> (1 <tendon>); <tendon> (1 <fixed>): robodyn's model is the "
        "unconstrained tree (coupled or tendon-driven joints move independently)",)


def test_geoms_without_inertial_count_only_where_mujoco_counts_them(tmp_path):
    # a body welded to "b" with a geom and no inertial: MuJoCo derives its inertia from the
    # geom by default (a 0.2 m box of density 1000: 8 kg more on link b), never with
    # inertiafromgeom="false" (massless)
    welded = '<body name="c" pos="0.1 0 0"><geom type="box" size="0.1 0.1 0.1"/></body>'
    text = _two_links("").replace('<site name="s"', welded + '<site name="s"')
    with_box = check_against_mujoco(write(tmp_path, text, "box.xml"))
    assert abs(float(with_box.chain.links[1].inertial.mass) - (0.7 + 8.0)) < 1e-12
    robot = check_against_mujoco(write(tmp_path, text.replace(
        "<compiler />", '<compiler inertiafromgeom="false"/>')))
    assert float(robot.chain.links[1].inertial.mass) == 0.7
    # geoms outside inertiagrouprange, or of mass 0, never count
    grouped = text.replace('<geom type="box"', '<geom group="4" type="box"').replace(
        "<compiler />", '<compiler inertiagrouprange="0 3"/>')
    assert rd.load(write(tmp_path, grouped, "grouped.xml")).chain == robot.chain
    massless = text.replace('<geom type="box"', '<geom mass="0" type="box"')
    assert rd.load(write(tmp_path, massless, "massless.xml")).chain == robot.chain


def test_gravity_along_minus_z_is_the_parameter_g(tmp_path):
    robot = rd.load(write(tmp_path, _two_links("").replace(
        "<compiler />", '<option gravity="0 0 -3.5"/>')))
    assert robot.values == {"g": 3.5}
    m = mj_model(tmp_path / "model.xml")
    close(m.opt.gravity, [0, 0, -3.5], "gravity")


ROBOT = """\
<mujoco model="arm">
  <compiler angle="radian" meshdir="assets" autolimits="true"/>
  <option integrator="implicitfast" timestep="0.002"/>
  <default>
    <default class="arm">
      <joint damping="0.5" armature="0.1" frictionloss="0.05"/>
      <default class="visual"><geom type="mesh" contype="0" conaffinity="0" group="2"/></default>
      <default class="collision"><geom type="mesh" group="3"/></default>
    </default>
  </default>
  <asset>
    <mesh name="link1" file="link1.stl"/>
    <mesh name="link2" file="link2.stl"/>
  </asset>
  <worldbody>
    <body name="link1" childclass="arm" pos="0 0 0.1">
      <inertial pos="0 0 0.1" quat="1 0 0 0" mass="2" diaginertia="0.02 0.02 0.003"/>
      <joint name="joint1" axis="0 0 1" range="-3 3"/>
      <geom class="visual" mesh="link1"/>
      <geom class="collision" mesh="link1"/>
      <body name="link2" pos="0 0 0.2" quat="0.707107 0.707107 0 0">
        <inertial pos="0.1 0 0" mass="1" diaginertia="0.002 0.01 0.01"/>
        <joint name="joint2" axis="0 0 1" range="-2 2"/>
        <geom class="visual" mesh="link2"/>
        <site name="attachment_site" pos="0.3 0 0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position class="arm" name="a1" joint="joint1" kp="100"/>
    <motor name="a2" joint="joint2" gear="10"/>
  </actuator>
  <sensor><jointpos joint="joint1"/></sensor>
  <contact><exclude body1="link1" body2="link2"/></contact>
  <keyframe><key name="home" qpos="0 0.5"/></keyframe>
</mujoco>
"""


def test_a_menagerie_style_scene_loads_without_its_meshes(tmp_path):
    """A scene that includes a robot file with meshes (not on disk), actuators, sensors,
    contacts and a keyframe: robodyn reads the bodies only; MuJoCo, which needs the
    meshes, compiles the same robot with the mesh geoms and assets taken out."""
    write(tmp_path, ROBOT, "arm.xml")
    scene = write(tmp_path, """\
        <mujoco model="scene">
          <include file="arm.xml"/>
          <visual><headlight diffuse="0.6 0.6 0.6"/></visual>
          <worldbody>
            <light pos="0 0 1.5" dir="0 0 -1"/>
            <geom name="floor" size="0 0 0.05" type="plane"/>
          </worldbody>
        </mujoco>""", "scene.xml")
    robot = rd.load(scene)
    assert robot.name == "scene" and robot.dof == 2
    stripped = re.sub(r"<asset>.*?</asset>|<geom class=\"(visual|collision)\"[^>]*/>", "",
                      ROBOT, flags=re.S)
    oracle = check_against_mujoco(write(tmp_path, stripped, "oracle.xml"))
    q = np.array([0.4, -1.1])
    close(robot.mass_matrix(q), oracle.mass_matrix(q), "scene vs oracle")
    assert robot.chain == oracle.chain


# -- floating base ----------------------------------------------------------------------------
FREE = """\
<mujoco>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <site name="origin"/>
    <body name="torso" pos="0 0 1" quat="0.9 0 0.3 0.1">
      <freejoint name="root"/>
      <inertial pos="0.02 -0.01 0.05" euler="10 20 -5" mass="5" diaginertia="0.2 0.3 0.25"/>
      BATTERY
      <body name="leg1" pos="0.1 0.1 -0.1">
        <inertial pos="0 0 -0.1" mass="1" diaginertia="0.01 0.012 0.005"/>
        <joint name="hip1" axis="1 0 0" armature="0.01"/>
        <body name="shin1" pos="0 0 -0.2">
          <inertial pos="0 0 -0.1" mass="0.5" diaginertia="0.004 0.004 0.001"/>
          <joint name="knee1" axis="0 1 0"/>
        </body>
      </body>
      <body name="leg2" pos="-0.1 0.1 -0.1">
        <inertial pos="0 0 -0.1" mass="1" diaginertia="0.01 0.012 0.005"/>
        <joint name="hip2" type="slide" axis="0 0 1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _mujoco_body(m, b):
    """MuJoCo's compiled body ``b``: mass, centre of mass and inertia (body frame)."""
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, m.body_iquat[b])
    rot = rot.reshape(3, 3)
    return m.body_mass[b], m.body_ipos[b].copy(), rot @ np.diag(m.body_inertia[b]) @ rot.T


def _joint_block_check(robot, m, seed=1):
    """MuJoCo's joint-joint block of M (which the base's motion does not enter) equals
    robodyn's M of the same tree on a fixed base."""
    _, on_base = split_free_base(robot.chain)
    fixed = rd.Robot(robot.name, on_base, tuple(robot.values.items()))
    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        quat = rng.normal(size=4)
        q = rng.uniform(-1, 1, fixed.dof)
        d.qpos[:] = [*rng.normal(size=3), *(quat / np.linalg.norm(quat)), *q]
        mujoco.mj_forward(m, d)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        close(fixed.mass_matrix(q), full[6:, 6:], "joint block of M")


def test_a_free_joint_makes_the_root_body_the_floating_base(tmp_path):
    path = write(tmp_path, FREE.replace("BATTERY", ""))
    robot = rd.load(path)
    chain = robot.chain
    m = mj_model(path)
    assert chain.floating and chain.parents == (-1, 0, 1, 0)
    assert [link.name for link in chain.links] == ["torso", "leg1", "shin1", "leg2"]
    mass, com, inertia = _mujoco_body(m, 1)
    base = chain.links[0].inertial
    close(float(base.mass), mass, "base mass")
    close(np.array(base.com, dtype=float), com, "base com")
    close(np.array(base.inertia, dtype=float), inertia, "base inertia")
    assert (chain.links[0].joint.type, chain.links[0].joint.name) == ("free", "root")
    assert "torso" in robot.frames and "origin" in robot.frames  # the world's site too
    _joint_block_check(robot, m)


def test_a_free_bodys_mass_matrix_and_gravity_are_mujocos_in_its_coordinates(tmp_path):
    """The whole floating model against MuJoCo. MuJoCo's free joint has ``qpos = [p, quat
    (w, x, y, z)]`` and ``qvel = [linear velocity in the world, angular velocity in the
    body]``; robodyn's (Pinocchio's) quaternion is ``(x, y, z, w)`` and its linear velocity
    is in the base frame: ``v = T v_mj`` with ``T = diag(R^T, 1, 1)``, so
    ``M_mj = T^T M T`` and ``g_mj = T^T g``."""
    path = write(tmp_path, FREE.replace("BATTERY", ""))
    robot = rd.load(path)
    m = mj_model(path)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(4)
    for _ in range(3):
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)  # (w, x, y, z), MuJoCo's order
        joints = rng.uniform(-1, 1, robot.nv - 6)
        position = rng.normal(size=3)
        d.qpos[:] = [*position, *quat, *joints]
        d.qvel[:] = 0
        mujoco.mj_forward(m, d)
        q = np.r_[position, quat[1:], quat[0], joints]
        rot = d.xmat[1].reshape(3, 3)  # the free body in the world
        t = np.eye(m.nv)
        t[:3, :3] = rot.T
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        close(t.T @ robot.mass_matrix(q) @ t, full, "M in MuJoCo's coordinates")
        close(t.T @ robot.gravity_torques(q), d.qfrc_bias, "g in MuJoCo's coordinates")


def test_a_body_welded_to_the_free_body_joins_the_floating_base(tmp_path):
    battery = ('<body name="battery" pos="0 0.05 0.1" euler="0 30 0"><inertial pos="0.01 0 0"'
               ' mass="2" diaginertia="0.01 0.02 0.03"/></body>')
    path = write(tmp_path, FREE.replace("BATTERY", battery))
    base = rd.load(path).chain.links[0].inertial
    m = mj_model(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    # MuJoCo's two bodies, merged here in the torso frame (parallel-axis theorem)
    torso, battery_id = 1, mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "battery")
    rot0 = d.xmat[torso].reshape(3, 3)
    total, first, parts = 0.0, np.zeros(3), []
    for b in (torso, battery_id):
        mass, _, _ = _mujoco_body(m, b)
        com = rot0.T @ (d.xipos[b] - d.xpos[torso])
        rot = rot0.T @ d.ximat[b].reshape(3, 3)
        parts.append((mass, com, rot @ np.diag(m.body_inertia[b]) @ rot.T))
        total, first = total + mass, first + mass * com
    c = first / total
    inertia = sum(i + mass * ((com - c) @ (com - c) * np.eye(3) - np.outer(com - c, com - c))
                  for mass, com, i in parts)
    close(float(base.mass), total, "merged mass")
    close(np.array(base.com, dtype=float), c, "merged com")
    close(np.array(base.inertia, dtype=float), inertia, "merged inertia")


# -- MJCF written by MuJoCo from example-robot-data URDFs -------------------------------------
def mujoco_mjcf(tmp_path: Path, rel: str, floating: bool = False) -> Path:
    """The URDF ``rel`` of example-robot-data converted to MJCF by MuJoCo, without its
    visual and collision geometry (the meshes are not needed); ``floating``: its root
    link kept as a body and given a free joint."""
    text = Path(rd.models.example_robot_data(rel)).read_text()
    text = re.sub(r"<(visual|collision)\b.*?</\1>", "", text, flags=re.S)
    text = re.sub(r"<(visual|collision)\b[^>]*/>", "", text)
    if floating:
        text = text.replace("</robot>", '<mujoco><compiler fusestatic="false"/></mujoco></robot>')
    urdf = tmp_path / (Path(rel).stem + ".urdf")
    urdf.write_text(text)
    out = tmp_path / (Path(rel).stem + ".xml")
    mujoco.mj_saveLastXML(str(out), mujoco.MjModel.from_xml_path(str(urdf)))
    return out


@pytest.mark.parametrize("rel, dof", [
    ("ur_description/urdf/ur5_robot.urdf", 6),
    ("panda_description/urdf/panda.urdf", 9),  # the fingers: a tree, and an <equality>
    ("xarm_description/urdf/xarm7.urdf", 7),
    ("baxter_description/urdf/baxter.urdf", 19),
    ("talos_data/robots/talos_full_v2.urdf", 44),  # a humanoid's whole tree
])
def test_mujocos_mjcf_of_example_robot_data_urdfs_equals_mujoco(tmp_path, rel, dof):
    # MuJoCo writes a URDF <mimic> as <equality joint>: its M is the tree's (the coupled
    # robot of such a file is test_mjcf_equality.py's)
    robot = check_against_mujoco(mujoco_mjcf(tmp_path, rel), samples=2, mimic="independent")
    assert robot.dof == dof


def test_solo12_with_a_free_joint_has_mujocos_floating_base(tmp_path):
    path = mujoco_mjcf(tmp_path, "solo_description/robots/solo12.urdf", floating=True)
    text = path.read_text()
    assert text.count('<body name="base_link">') == 1
    path.write_text(text.replace('<body name="base_link">',
                                 '<body name="base_link"><freejoint/>'))
    robot = rd.load(path)
    m = mj_model(path)
    assert robot.chain.floating and robot.dof == 18 == m.nv
    mass, com, inertia = _mujoco_body(m, 1)
    base = robot.chain.links[0].inertial
    close(float(base.mass), mass, "base mass")
    close(np.array(base.com, dtype=float), com, "base com")
    close(np.array(base.inertia, dtype=float), inertia, "base inertia")
    _joint_block_check(robot, m)


# -- what robodyn refuses, by name -------------------------------------------------------------
def error(tmp_path, text: str, name: str = "model.xml") -> str:
    with pytest.raises(rd.ModelError) as info:
        rd.load(write(tmp_path, text, name))
    return str(info.value)


def _one_body(inside: str, compiler: str = "") -> str:
    return f"""\
<mujoco>
  <compiler {compiler}/>
  <worldbody>
    <body name="arm" pos="0 0 0.1">
      {inside}
    </body>
  </worldbody>
</mujoco>
"""


INERTIAL = '<inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>'
REFUSED = {
    "mesh unknown": (_one_body('<joint/><geom type="mesh" mesh="m"/>'),
                     "model.xml:5: <geom> mesh: no <mesh name='m'> in <asset>; meshes: none"),
    "no size": (_one_body('<joint/><geom type="box" size="0.1 0.2"/>'),
                "a box geom needs 3 positive size value(s)"),
    "typo": (_one_body(f'{INERTIAL}<joint armture="0.1"/>'),
             "model.xml:5: <joint> armture: not an attribute of <joint>"),
    "class": (_one_body(f'{INERTIAL}<joint class="nope"/>'),
              "model.xml:5: <joint> class: no <default class='nope'>"),
    "two orientations": (_one_body(f'{INERTIAL}<joint/><site name="s" quat="1 0 0 0" '
                                   'euler="0 0 1"/>'), "orientation given twice (quat, euler)"),
    "zero quat": (_one_body('<inertial pos="0 0 0" quat="0 0 0 0" mass="1" '
                            'diaginertia="1 1 1"/><joint/>'), "the quaternion is zero"),
    "bad number": (_one_body('<inertial pos="0 0 nan" mass="1" diaginertia="1 1 1"/><joint/>'),
                   "model.xml:5: <inertial> pos: 'nan' is not a finite number"),
    "no mass": (_one_body('<inertial pos="0 0 0" diaginertia="1 1 1"/><joint/>'),
                "no mass=...; an inertial needs pos and mass"),
    "not physical": (_one_body('<inertial pos="0 0 0" mass="1" fullinertia="1 1 1 2 0 0"/>'
                               '<joint/>'), "not positive semi-definite"),
    "free below": (_one_body(f'{INERTIAL}<joint/><body>{INERTIAL}<freejoint/></body>'),
                   "a free joint in body 'body2', which is not a body of <worldbody>"),
    "free and hinge": (_one_body(f'{INERTIAL}<freejoint/><joint/>'),
                       "a free joint in body 'arm', which has other joints beside it"),
    "no joint": (_one_body(INERTIAL), "no body has a joint (hinge, slide, ball or free)"),
    "not mjcf": ("<robot/>", "the root element is <robot>, not <mujoco>; not an MJCF file"),
    "bad xml": ("<mujoco><worldbody></mujoco>", "not valid XML (mismatched tag"),
    "section": ("<mujoco><worldbdy/></mujoco>", "<worldbdy>: not an MJCF section"),
    "bad range": (_one_body(f'{INERTIAL}<joint range="30 10"/>'),
                  "range: the lower limit is not below the upper one"),
    "zero axis": (_one_body(f'{INERTIAL}<joint axis="0 0 0"/>'),
                  "model.xml:5: <joint> axis: the vector [0.0, 0.0, 0.0] has no direction"),
    "short pos": (_one_body(INERTIAL).replace('pos="0 0 0.1"', 'pos="1 2"'),
                  "model.xml:4: <body name='arm'> pos: expected 3 numbers separated by "
                  "spaces, got '1 2'"),
    "angle unit": (_one_body(INERTIAL, 'angle="grad"'), "angle: 'grad' is not degree or "
                   "radian"),
    "eulerseq": (_one_body(INERTIAL, 'eulerseq="xyw"'), "eulerseq: 'xyw' is not three of x, "
                 "y, z (rotating axes) or X, Y, Z (fixed axes)"),
    "compiler typo": (_one_body(INERTIAL, 'angel="radian"'),
                      "<compiler> angel: not a <compiler> attribute robodyn knows"),
    "limited without range": (_one_body(f'{INERTIAL}<joint limited="true"/>'),
                              "limited: a limited joint needs range=..."),
    "negative damping": (_one_body(f'{INERTIAL}<joint damping="-1"/>'),
                         "damping: -1 is negative; it must be >= 0"),
    "free damping": (_one_body(f'{INERTIAL}<joint type="free" damping="1"/>'),
                     "damping on a free joint is not modelled"),
    "two inertials": (_one_body(f'{INERTIAL}{INERTIAL}<joint/>'),
                      "model.xml:5: <inertial>: a second <inertial> in the body"),
    "composite": (_one_body(f'{INERTIAL}<joint/><composite type="grid"/>'),
                  "<composite>: not an element of <body> robodyn reads"),
    "world child": ("<mujoco><worldbody><joint/></worldbody></mujoco>",
                    "<joint>: not an element of <worldbody> robodyn reads"),
    "childclass": (_one_body(INERTIAL).replace('pos="0 0 0.1"', 'childclass="arm"'),
                   "childclass: no <default class='arm'>; classes: main"),
    "default twice": ('<mujoco><default><default class="a"/><default class="a"/></default>'
                      '</mujoco>', "class: class 'a' is defined twice"),
    "default unnamed": ("<mujoco><default><default/></default></mujoco>",
                        "a nested <default> needs class=..."),
    "include without file": ("<mujoco><include/></mujoco>", "<include>: no file attribute"),
    "mocap": (_one_body(INERTIAL).replace('pos="0 0 0.1"', 'mocap="true"'),
              "mocap bodies are not read by robodyn"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_robodyn_does_not_model_is_an_error_naming_the_element(tmp_path, case):
    text, expected = REFUSED[case]
    assert expected in error(tmp_path, text)


def test_gravity_compensation_is_read_past_with_a_note(tmp_path):
    """``gravcomp`` is a force MuJoCo adds to ``qfrc_passive``: M and the bias are MuJoCo's."""
    text = _two_links("").replace('<body name="a"', '<body name="a" gravcomp="0.5"', 1)
    assert 'gravcomp="0.5"' in text
    robot = rd.load(write(tmp_path, text))
    assert len(robot.provenance.notes) == 1
    assert "gravcomp (gravity compensation, a passive force" in robot.provenance.notes[0]
    m = mj_model(tmp_path / "model.xml")
    d = mujoco.MjData(m)
    q = np.array([0.4, -0.7])
    d.qpos[:] = q
    mujoco.mj_forward(m, d)
    close(robot.inverse_dynamics(q, 0 * q, 0 * q), d.qfrc_bias, "bias at rest")
    assert np.any(d.qfrc_passive != 0)  # MuJoCo's compensation is beside the bias


def test_springs_and_fluid_forces_are_read_past_with_a_note(tmp_path):
    """Passive forces MuJoCo adds beside M and the bias (qfrc_passive): the rigid-body model
    is MuJoCo's all the same, and the notes say what a simulation here lacks."""
    text = _two_links("").replace("<compiler />", '<option density="1.2" viscosity="0.1"/>')
    text = text.replace('name="ja"', 'name="ja" stiffness="3"', 1)
    robot = rd.load(write(tmp_path, text))
    assert robot.provenance.notes == (
        "not read: <option density viscosity> (fluid forces, passive forces MuJoCo adds "
        "beside M and the bias; a simulation here has none)",
        "not read: the springs (stiffness) of joint(s) 'ja': passive forces MuJoCo adds "
        "beside M and the bias; a simulation here has none")
    m = mj_model(tmp_path / "model.xml")
    d = mujoco.MjData(m)
    q = np.array([0.4, -0.7])
    d.qpos[:] = q
    mujoco.mj_forward(m, d)
    full = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, full)
    close(robot.mass_matrix(q), full, "mass matrix")
    close(robot.inverse_dynamics(q, 0 * q, 0 * q), d.qfrc_bias, "bias at rest")


@pytest.mark.parametrize("extra", [
    "",  # the legged body alone
    f'<body name="arm2" pos="1 0 0.5">{INERTIAL}<joint axis="0 1 0"/></body>',  # and an arm
    f'<body name="drone" pos="0 2 1">{INERTIAL}<freejoint/></body>',  # and a free object
])
def test_free_bodies_beside_other_moving_bodies_are_mujocos(tmp_path, extra):
    """Free joints are joints like any other: a free body beside an arm on the world, or
    two free bodies, give MuJoCo's ``M`` and bias in its coordinates (each free joint's
    linear velocity in the world, its quaternion ``(w, x, y, z)``)."""
    text = FREE.replace("BATTERY", "").replace("  </worldbody>", f"    {extra}\n  </worldbody>")
    path = write(tmp_path, text)
    robot = rd.load(path)
    m = mj_model(path)
    assert (robot.nq, robot.nv) == (m.nq, m.nv)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(9)
    for _ in range(3):
        mujoco.mj_resetData(m, d)
        mujoco.mj_integratePos(m, d.qpos, rng.normal(size=m.nv), 1.0)
        d.qvel[:] = rng.normal(size=m.nv)
        mujoco.mj_forward(m, d)
        q, t = np.array(d.qpos), np.eye(m.nv)
        for j in range(m.njnt):
            if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
                k, v = m.jnt_qposadr[j], m.jnt_dofadr[j]
                q[k + 3:k + 7] = np.r_[d.qpos[k + 4:k + 7], d.qpos[k + 3]]
                t[v:v + 3, v:v + 3] = d.xmat[m.jnt_bodyid[j]].reshape(3, 3).T
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        close(t.T @ robot.mass_matrix(q) @ t, full, "M in MuJoCo's coordinates")
        # v = T(q) v_mj, so a = T a_mj + dT/dt v_mj: a free joint's linear part gains
        # -w × v (dR^T/dt = -[w]x R^T, w in the body frame); MuJoCo's bias is T^T (M xi + b)
        v, xi = t @ d.qvel, np.zeros(m.nv)
        for j in range(m.njnt):
            if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
                k = m.jnt_dofadr[j]
                xi[k:k + 3] = -np.cross(v[k + 3:k + 6], v[k:k + 3])
        close(t.T @ robot.inverse_dynamics(q, v, xi), d.qfrc_bias,
              "bias in MuJoCo's coordinates")


def test_load_of_an_mjcf_file_takes_no_urdf_options(tmp_path):
    with pytest.raises(TypeError, match="MJCF file takes only mimic="):
        rd.load(write(tmp_path, _two_links("")), tip="b")


# -- hostile files, in one bounded subprocess ---------------------------------------------------
def _laughs(levels: int = 9) -> str:
    lines = ['<!ENTITY a0 "lol">']
    for k in range(1, levels + 1):
        lines.append(f'<!ENTITY a{k} "' + f"&a{k - 1};" * 10 + '">')
    return "<?xml version=\"1.0\"?>\n<!DOCTYPE mujoco [\n" + "\n".join(lines) + \
        f"\n]>\n<mujoco model=\"&a{levels};\"><worldbody/></mujoco>\n"


HOSTILE = {
    "billion_laughs": (_laughs(), "billion_laughs.xml:2: a document type declaration"),
    "external_entity": ('<?xml version="1.0"?>\n<!DOCTYPE mujoco [<!ENTITY x SYSTEM '
                        '"file:///etc/passwd">]>\n<mujoco model="&x;"/>\n',
                        "a document type declaration"),
    "deep_nesting": ("<mujoco><worldbody>" + "<body>" * 100_000 + "</body>" * 100_000
                     + "</worldbody></mujoco>",
                     f"is nested more than {mjcf_xml.MAX_MJCF_DEPTH} elements deep"),
    "many_elements": ("<mujoco><worldbody>" + "<site/>" * (mjcf_xml.MAX_MJCF_ELEMENTS + 1)
                      + "</worldbody></mujoco>",
                      f"more than {mjcf_xml.MAX_MJCF_ELEMENTS:,} XML elements"),
    "many_bodies": ("<mujoco><worldbody>" + "<body/>" * (mjcf_bodies.MAX_MJCF_BODIES + 1)
                    + "</worldbody></mujoco>", f"more than {mjcf_bodies.MAX_MJCF_BODIES:,} bodies"),
    "endless": (None, "/dev/zero: not a regular file (a device); an MJCF model is a file"),
    "fifo": (None, "fifo.xml: not a regular file"),
}


@pytest.mark.slow  # one subprocess that imports robodyn (seconds on a busy machine)
def test_hostile_files_fail_fast_with_a_clear_error(tmp_path):
    paths = {}
    for case, (text, _) in HOSTILE.items():
        paths[case] = "/dev/zero" if case == "endless" else str(tmp_path / "fifo.xml") \
            if text is None else str(write(tmp_path, text, case + ".xml"))
    os.mkfifo(tmp_path / "fifo.xml")  # no writer: a blocking open would wait for ever
    script = textwrap.dedent(f"""\
        from robodyn.core.errors import ModelError
        from robodyn.model.mjcf import load_mjcf
        for case, path in {paths!r}.items():
            try:
                load_mjcf(path)
                print(case, "|loaded")
            except ModelError as exc:
                print(case, "|" + str(exc)[:300].replace("\\n", " "))
        """)
    done = run_bounded(["-c", script], timeout=60, memory_mb=1024)
    assert done.returncode == 0, done.stderr[-2000:]
    said = dict(line.split(" |", 1) for line in done.stdout.splitlines())
    for case, (_, expected) in HOSTILE.items():
        assert expected in said[case], (case, said[case])


def test_a_file_over_the_size_limit_is_refused_and_one_at_it_is_read(tmp_path):
    head, tail = "<mujoco><worldbody>", "</worldbody></mujoco>"
    path = tmp_path / "big.xml"
    path.write_text(head + " " * (mjcf_xml.MAX_MJCF_BYTES + 1 - len(head) - len(tail)) + tail)
    with pytest.raises(rd.ModelError, match=f"larger than {mjcf_xml.MAX_MJCF_BYTES:,} bytes"):
        load_mjcf(path)
    path.write_text(head + " " * (mjcf_xml.MAX_MJCF_BYTES - len(head) - len(tail)) + tail)
    with pytest.raises(rd.ModelError, match="no body has a joint"):
        load_mjcf(path)


def test_a_missing_file_or_a_folder_is_named(tmp_path):
    with pytest.raises(rd.ModelError, match="nothing.xml: cannot read the MJCF file .No such"):
        rd.load(tmp_path / "nothing.xml")
    (tmp_path / "folder.xml").mkdir()
    with pytest.raises(rd.ModelError, match="folder.xml: not a regular file"):
        rd.load(tmp_path / "folder.xml")


def test_an_include_outside_the_models_folder_is_refused(tmp_path):
    (tmp_path / "model").mkdir()
    write(tmp_path, f"<mujoco><worldbody><body>{INERTIAL}<joint/></body></worldbody></mujoco>",
          "outside.xml")
    for name in ("../outside.xml", str(tmp_path / "outside.xml"), "/etc/passwd"):
        text = f'<mujoco>\n<include file="{name}"/>\n</mujoco>'
        message = error(tmp_path, text, "model/model.xml")
        assert f"model.xml:2: <include>: file={name!r} is outside the folder of model.xml" \
            in message
    (tmp_path / "model" / "link.xml").symlink_to(tmp_path / "outside.xml")
    assert "is outside the folder" in error(
        tmp_path, '<mujoco><include file="link.xml"/></mujoco>', "model/model.xml")


def test_nesting_is_limited_across_included_files(tmp_path):
    half = mjcf_xml.MAX_MJCF_DEPTH // 2 + 5
    write(tmp_path, "<mujoco>" + "<body>" * half + "</body>" * half + "</mujoco>", "inner.xml")
    text = ("<mujoco><worldbody>" + "<body>" * half + '<include file="inner.xml"/>'
            + "</body>" * half + "</worldbody></mujoco>")
    assert f"inner.xml:1: <body>: is nested more than {mjcf_xml.MAX_MJCF_DEPTH} elements deep " \
        "(with the files that include it)" in error(tmp_path, text)


def test_includes_nest_at_most_max_include_depth_deep(tmp_path):
    deepest = mjcf_xml.MAX_INCLUDE_DEPTH  # the main file includes f1.xml, f1 includes f2, ...
    for k in range(1, deepest + 1):
        write(tmp_path, f'<mujoco><include file="f{k + 1}.xml"/></mujoco>', f"f{k}.xml")
    write(tmp_path, "<mujoco/>", f"f{deepest + 1}.xml")
    message = error(tmp_path, '<mujoco><include file="f1.xml"/></mujoco>')
    assert f"f{deepest}.xml:1: <include>: includes nested more than {deepest} deep" in message


def test_an_include_loop_is_refused(tmp_path):
    write(tmp_path, '<mujoco><include file="a.xml"/></mujoco>', "b.xml")
    write(tmp_path, '<mujoco><include file="b.xml"/></mujoco>', "a.xml")
    assert "file='a.xml' is included twice (or includes itself)" in error(
        tmp_path, '<mujoco><include file="a.xml"/></mujoco>')


def test_load_mjcf_is_what_rd_load_reads(tmp_path):
    path = write(tmp_path, _two_links(""))
    assert load_mjcf(path).chain == rd.load(path).chain


# -- the command line ------------------------------------------------------------------------
def test_the_command_line_reads_mjcf_and_reports_its_errors_in_one_line(tmp_path, capsys):
    from robodyn.cli import main

    assert main(["demo", str(write(tmp_path, FEATURES)), "--samples", "2"]) == 0
    assert "features: 5 DOF" in capsys.readouterr().out
    bad = write(tmp_path, _one_body('<joint type="free" damping="0.1"/>'), "bad.xml")
    assert main(["demo", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"robodyn: error: {bad}:5: <joint> damping: damping on a free joint is "
                   "not modelled by robodyn's floating base; set it to 0 (or override it in "
                   "this joint: the default class may set it)"]


BALLS = """\
<mujoco>
  <option gravity="0.3 -0.2 -9.81"/>
  <worldbody>
    <body name="upper" pos="0.1 0 0.5" euler="10 -20 30">
      <inertial pos="0.02 0.01 -0.15" euler="5 10 15" mass="1.5" diaginertia="0.02 0.03 0.01"/>
      <joint name="shoulder" type="ball" pos="0 0 0.02"/>
      <body name="lower" pos="0 0.05 -0.3">
        <inertial pos="0 0 -0.12" mass="0.8" diaginertia="0.01 0.012 0.004"/>
        <joint name="elbow" axis="0.3 1 0" armature="0.02"/>
        <body name="hand" pos="0 0 -0.25" quat="0.9 0.1 0.2 -0.3">
          <inertial pos="0.01 0 -0.03" mass="0.3" diaginertia="0.002 0.001 0.0015"/>
          <joint name="wrist" type="ball"/>
        </body>
      </body>
      <body name="side" pos="0.1 0 0">
        <inertial pos="0.05 0 0" mass="0.4" diaginertia="0.001 0.002 0.002"/>
        <joint name="slider" type="slide" axis="1 0 0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _from_mujoco_qpos(m, qpos):
    """MuJoCo's ``qpos`` in robodyn's order: each quaternion ``(w, x, y, z)`` as
    ``(x, y, z, w)`` (Pinocchio's)."""
    q = np.array(qpos, dtype=float)
    for j in range(m.njnt):
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            k = m.jnt_qposadr[j]
            q[k:k + 4] = np.r_[qpos[k + 1:k + 4], qpos[k]]
    return q


def test_ball_joints_equal_mujoco(tmp_path):
    """MJCF ``ball`` joints are spherical joints (``nq = 4``, ``nv = 3``, the angular
    velocity in the body frame, as MuJoCo's ``qvel``): ``M`` is MuJoCo's ``mj_fullM`` and
    the bias ``C v + g`` its ``qfrc_bias``, at random states of a tree with two ball joints,
    a hinge and a slide; forward dynamics inverts inverse dynamics."""
    path = write(tmp_path, BALLS)
    robot = rd.load(path)
    m = mj_model(path)
    assert [link.joint.type for link in robot.links] == ["spherical", "revolute", "spherical",
                                                         "prismatic"]
    assert (robot.nq, robot.nv) == (m.nq, m.nv) == (10, 8)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(7)
    for _ in range(4):
        mujoco.mj_resetData(m, d)
        v = rng.normal(size=m.nv)
        mujoco.mj_integratePos(m, d.qpos, v, 1.0)  # a random configuration on the manifold
        d.qvel[:] = rng.normal(size=m.nv)
        mujoco.mj_forward(m, d)
        q = _from_mujoco_qpos(m, d.qpos)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        close(robot.mass_matrix(q), full, "M")
        close(robot.inverse_dynamics(q, d.qvel, np.zeros(m.nv)), d.qfrc_bias, "C v + g")
        a = rng.normal(size=m.nv)
        tau = robot.inverse_dynamics(q, d.qvel, a)
        close(robot.forward_dynamics(q, d.qvel, tau), a, "FD(ID)")
    step = robot.integrate(q, d.qvel, 0.01)
    mujoco.mj_integratePos(m, d.qpos, d.qvel, 0.01)
    close(step, _from_mujoco_qpos(m, d.qpos), "q + v dt")


def test_armature_and_damping_on_ball_joints_equal_mujoco(tmp_path):
    """MuJoCo applies a ball joint's ``armature`` and ``damping`` to each of its 3 dofs
    (``dof_armature``, ``dof_damping``): robodyn's ``M`` equals ``mj_fullM``, its friction
    torques ``-qfrc_passive``, its inverse dynamics ``mj_inverse``'s ``qfrc_inverse``, its
    forward dynamics MuJoCo's ``qacc`` under ``qfrc_applied``, its kinetic energy MuJoCo's
    (``energy`` flag), and ``dtau/dqd`` central differences of ``mj_inverse`` in ``qvel``
    (exact: ID is quadratic in ``qvel``), all to 1e-9; the regressor and the closed forms
    refuse such a model with the joint's name."""
    text = BALLS.replace('type="ball" pos="0 0 0.02"/>',
                        'type="ball" pos="0 0 0.02" armature="0.05" damping="0.7"/>')
    text = text.replace('<joint name="wrist" type="ball"/>',
                        '<joint name="wrist" type="ball" armature="0.003" damping="0.2"/>')
    text = text.replace('<option gravity="0.3 -0.2 -9.81"/>',
                        '<option gravity="0.3 -0.2 -9.81"><flag energy="enable"/></option>')
    path = write(tmp_path, text)
    robot = rd.load(path)
    m = mj_model(path)
    np.testing.assert_array_equal(m.dof_armature, [0.05] * 3 + [0.02] + [0.003] * 3 + [0])
    d = mujoco.MjData(m)
    rng = np.random.default_rng(17)
    for _ in range(3):
        mujoco.mj_resetData(m, d)
        mujoco.mj_integratePos(m, d.qpos, rng.normal(size=m.nv), 1.0)
        d.qvel[:] = v = rng.normal(size=m.nv)
        d.qfrc_applied[:] = tau = rng.normal(size=m.nv)
        mujoco.mj_forward(m, d)
        q = _from_mujoco_qpos(m, d.qpos)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        close(robot.mass_matrix(q), full, "M with the balls' armature")
        close(robot.friction_torques(v), -d.qfrc_passive, "damping = -qfrc_passive")
        close(robot.forward_dynamics(q, v, tau), d.qacc, "FD")
        close(robot.kinetic_energy(q, v), d.energy[1], "kinetic energy")
        a = rng.normal(size=m.nv)
        d.qacc[:] = a
        mujoco.mj_inverse(m, d)
        close(robot.inverse_dynamics(q, v, a), d.qfrc_inverse, "ID")
        h, rate = 1e-3, np.zeros((m.nv, m.nv))
        for k in range(m.nv):
            ends = []
            for sign in (1, -1):
                d.qvel[:] = v + sign * h * np.eye(m.nv)[k]
                d.qacc[:] = a
                mujoco.mj_inverse(m, d)
                ends.append(d.qfrc_inverse.copy())
            rate[:, k] = (ends[0] - ends[1]) / (2 * h)
        _, d_qd, d_qdd = robot.inverse_dynamics_derivatives(q, v, a)
        assert np.abs(d_qd - rate).max() <= 1e-8 * max(1.0, np.abs(rate).max())
        close(d_qdd, full, "dtau/dqdd = M")
    with pytest.raises(rd.ModelError, match="shoulder, wrist: armature, damping or dry friction"):
        robot.regressor(q, v, a)
    with pytest.raises(rd.InputError, match="ball or free joint.*shoulder, wrist"):
        robot.equations()


def test_frictionloss_and_stiffness_on_ball_joints_read_as_mujoco(tmp_path):
    """A ball joint's ``frictionloss`` is MuJoCo's dry friction on each of its 3 dofs (one
    friction row per dof): while every dof slides, MuJoCo's soft friction rows saturate at
    ``qfrc_constraint = -frictionloss sign(qvel)``, so robodyn's friction torques (Coulomb
    ``frictionloss sign(v)`` per dof) equal ``-(qfrc_passive + qfrc_constraint)`` and its
    forward dynamics MuJoCo's ``qacc`` (Newton solver, tolerance 1e-14), to 1e-9. A ball
    joint's ``stiffness`` is MuJoCo's spring in ``qfrc_spring``, beside ``M`` and the bias:
    read past (``M``, the bias equal MuJoCo's), named in the springs' note."""
    text = BALLS.replace('type="ball" pos="0 0 0.02"/>',
                        'type="ball" pos="0 0 0.02" frictionloss="0.4" damping="0.3"/>')
    text = text.replace('<joint name="wrist" type="ball"/>',
                        '<joint name="wrist" type="ball" frictionloss="0.02" stiffness="2"/>')
    text = text.replace('<option gravity="0.3 -0.2 -9.81"/>',
                        '<option gravity="0.3 -0.2 -9.81" solver="Newton" tolerance="1e-14" '
                        'iterations="200"/>')
    path = write(tmp_path, text)
    robot = rd.load(path)
    m = mujoco.MjModel.from_xml_path(str(path))  # with its constraints: the friction rows
    np.testing.assert_array_equal(m.dof_frictionloss, [0.4] * 3 + [0] + [0.02] * 3 + [0])
    assert any("springs (stiffness)" in n and "'wrist'" in n for n in robot.provenance.notes)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(31)
    for _ in range(3):
        mujoco.mj_resetData(m, d)
        mujoco.mj_integratePos(m, d.qpos, rng.normal(size=m.nv), 1.0)
        # every dof sliding (MuJoCo's reference acceleration -b v, b ~ 100/s, beyond what
        # frictionloss can give): the friction rows saturate against the velocity
        d.qvel[:] = v = rng.choice([-1, 1], size=m.nv) * rng.uniform(1, 2, size=m.nv)
        tau = 0.01 * rng.normal(size=m.nv)
        mujoco.mj_forward(m, d)
        d.qfrc_applied[:] = tau - d.qfrc_spring  # the spring (a function of q) held off
        mujoco.mj_forward(m, d)
        q = _from_mujoco_qpos(m, d.qpos)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        close(robot.mass_matrix(q), full, "M")
        close(robot.inverse_dynamics(q, v, np.zeros(m.nv)) - robot.friction_torques(v),
              d.qfrc_bias, "C v + g")
        assert np.abs(d.qfrc_spring[3:6]).max() > 0.01  # MuJoCo's spring, left out here
        passive = d.qfrc_passive - d.qfrc_spring  # MuJoCo's damping alone
        close(robot.friction_torques(v), -(passive + d.qfrc_constraint), "friction")
        np.testing.assert_allclose(np.abs(d.qfrc_constraint), m.dof_frictionloss, rtol=1e-9)
        close(robot.forward_dynamics(q, v, tau), d.qacc, "FD")


def test_custom_text_description_is_the_models_description(tmp_path):
    """MuJoCo's place for a model's text, ``<custom><text name="description" data=...>``,
    white space collapsed; without it the description says what the file is."""
    body = ('<worldbody><body name="b"><joint name="j" axis="0 0 1"/>'
            '<inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.01 0.01"/></body>'
            '</worldbody>')
    described = tmp_path / "described.xml"
    described.write_text('<mujoco><custom><text name="description" data="A one-link\n'
                         '   arm."/><text name="other" data="x"/></custom>' + body
                         + '</mujoco>')
    assert rd.load(described).description == "A one-link arm."
    plain = tmp_path / "plain.xml"
    plain.write_text(f"<mujoco>{body}</mujoco>")
    assert rd.load(plain).description.startswith("MJCF plain.xml: 1 joint (chain)")
