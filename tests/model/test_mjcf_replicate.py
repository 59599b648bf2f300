"""MuJoCo 3's ``<replicate>`` (issue 31): the copies, their poses and their names as
MuJoCo's compiler makes them. Oracle: MuJoCo's compiled model of the same file (its body
and joint names, ``mj_fullM`` and ``qfrc_bias`` at random states), to 1e-9; no corpus file
uses ``<replicate>``, so the files are written here."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import robodyn as rd

FILE = """\
<mujoco>
  <compiler angle="ANGLE" eulerseq="SEQ"/>
  <option gravity="0.2 -0.1 -9.81"/>
  <worldbody>
    <replicate count="3" offset="0.1 0 0.05" euler="EULER" sep="-">
      <body name="arm" pos="0 0.2 0" euler="EULER">
        <joint name="shoulder" axis="0 1 0"/>
        <geom name="upper" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <site name="tip" pos="0.3 0 0"/>
        <body name="fore" pos="0.3 0 0">
          <joint name="elbow" axis="0.3 0 1"/>
          <geom type="box" size="0.1 0.02 0.03" pos="0.1 0 0"/>
          <replicate count="2" offset="0.05 0.01 0" sep="_">
            <body name="finger" pos="0.2 0 0">
              <joint name="slide" type="slide" axis="1 0.2 0"/>
              <geom type="sphere" size="0.02" pos="0.01 0 0.02"/>
            </body>
          </replicate>
        </body>
      </body>
    </replicate>
    <body name="base" pos="0 0 -0.5">
      <joint name="turn" axis="0 0 1"/>
      <geom type="cylinder" size="0.1 0.05"/>
      <replicate count="11" euler="EULER">
        <body name="spoke" pos="0.2 0 0">
          <joint name="spin" axis="1 0 0"/>
          <geom type="ellipsoid" size="0.03 0.02 0.01" pos="0 0.01 0"/>
        </body>
      </replicate>
    </body>
  </worldbody>
</mujoco>
"""


def _file(tmp_path, angle="degree", seq="xyz", euler="10 -20 30"):
    path = tmp_path / "replicated.xml"
    path.write_text(FILE.replace("ANGLE", angle).replace("SEQ", seq).replace("EULER", euler),
                    encoding="utf-8")
    return path


def _close(a, b, what):
    scale = max(1.0, float(np.abs(b).max()))
    assert np.abs(np.asarray(a) - b).max() <= 1e-9 * scale, f"{what}: {a} != {b}"


@pytest.mark.parametrize("angle, seq, euler", [("degree", "xyz", "10 -20 30"),
                                               ("radian", "ZYX", "0.3 0.1 -0.4")])
def test_a_replicated_model_equals_mujocos_compiled_model(tmp_path, angle, seq, euler):
    """The copies' names (``sep`` and the index with as many digits as ``count``; nested:
    the inner suffix first), their poses (``T^i`` of ``offset`` and ``euler`` in the
    compiler's units and sequence) and so ``M`` and the bias equal MuJoCo's."""
    path = _file(tmp_path, angle, seq, euler)
    m = mujoco.MjModel.from_xml_path(str(path))
    robot = rd.load(str(path))
    bodies = [m.body(i).name for i in range(1, m.nbody)]
    assert bodies[:5] == ["arm-0", "fore-0", "finger_0-0", "finger_1-0", "arm-1"]
    assert "spoke10" in bodies and "spoke00" in bodies
    assert [link.name for link in robot.links] == bodies
    assert list(robot.joints) == [m.joint(i).name for i in range(m.njnt)]
    assert {"tip-0", "tip-1", "tip-2"} <= set(robot.frames)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(3)
    for _ in range(4):
        d.qpos[:] = rng.uniform(-1, 1, m.nq)
        d.qvel[:] = rng.normal(size=m.nv)
        mujoco.mj_forward(m, d)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        _close(robot.mass_matrix(d.qpos), full, "M")
        _close(robot.inverse_dynamics(d.qpos, d.qvel, np.zeros(m.nv)), d.qfrc_bias, "bias")
    for name in ("tip-0", "tip-1", "tip-2"):  # each copy's site where MuJoCo puts it
        pose = robot.forward_kinematics(d.qpos, frame=name)
        _close(pose[:3, 3], d.site_xpos[m.site(name).id], f"site {name}")
        _close(pose[:3, :3].ravel(), d.site_xmat[m.site(name).id], f"site {name}")


@pytest.mark.parametrize("attrs, message", [
    ('count="0"', r" count: '0' is not a positive whole number"),
    ('count="two"', r" count: 'two' is not a positive whole number"),
    ('', r": no count=; say how many copies"),
    ('count="2" scale="3"', r" scale: not an attribute of <replicate>"),
    ('count="400000"', r" count: 400000 copies .* make more than 100,000 elements"),
])
def test_a_bad_replicate_is_refused_naming_the_element_and_line(tmp_path, attrs, message):
    text = FILE.replace('<replicate count="3" offset="0.1 0 0.05" euler="EULER" sep="-">',
                        f"<replicate {attrs}>").replace("ANGLE", "degree").replace(
        "SEQ", "xyz").replace("EULER", "0 0 0")
    path = tmp_path / "bad.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(rd.ModelError, match=r"bad.xml:5: <replicate>" + message):
        rd.load(str(path))
