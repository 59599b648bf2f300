"""Inertia from geoms as MuJoCo's compiler derives it (issue 31): every primitive type
(sphere, capsule, ellipsoid, cylinder, box), every placement (``pos`` with ``quat``,
``axisangle``, ``euler``, ``xyaxes``, ``zaxis``; ``fromto``; geoms inside ``<frame>``),
``mass`` or ``density`` (a default class's too), on hinge and slide joints: the bodies'
masses, ``mj_fullM`` and ``qfrc_bias`` equal MuJoCo's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_mjcf_export import _full_mass_matrix

import robodyn as rd
from robodyn.model.mjcf_geoms import solid

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the reference (the dev extra)")

GEOMS = """<mujoco>
  <compiler angle="radian"/>
  <default><geom density="800"/><default class="heavy"><geom density="2500"/></default></default>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <body name="a" pos="0 0 1">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.4" size="0.05"/>
      <geom type="sphere" pos="0.3 0.1 -0.4" size="0.08" class="heavy"/>
      <body name="b" pos="0.3 0.1 -0.4" euler="0.3 -0.2 0.5">
        <joint name="j2" type="hinge" axis="1 0 0"/>
        <geom type="box" size="0.1 0.04 0.02" pos="0.1 0 0" quat="0.9 0.1 0.3 -0.2"/>
        <geom type="cylinder" size="0.03 0.15" pos="0 0.1 0" axisangle="1 1 0 0.7" mass="0.4"/>
        <frame pos="0 0 -0.1" zaxis="0 1 1">
          <geom type="ellipsoid" size="0.05 0.07 0.03" xyaxes="1 0 0 0 0.6 0.8"/>
        </frame>
        <body name="c" pos="0.2 0 0">
          <joint name="j3" type="slide" axis="0.6 0 0.8"/>
          <geom type="box" fromto="0 0 0 0.2 -0.1 0.05" size="0.03"/>
          <geom type="ellipsoid" fromto="0 0 0 0 0.2 0" size="0.02"/>
          <geom type="cylinder" fromto="0 0 0 0 0 -0.3" size="0.02"/>
          <geom type="capsule" size="0.01 0.05" euler="0.1 0.2 0.3" pos="0.05 0 0"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def test_every_primitive_and_placement_equals_mujoco(tmp_path):
    path = tmp_path / "geoms.xml"
    path.write_text(GEOMS)
    robot = rd.load(str(path))
    model = mujoco.MjModel.from_xml_string(GEOMS)
    data = mujoco.MjData(model)
    masses = [float(link.inertial.mass) for link in robot.numeric_chain.links]
    np.testing.assert_allclose(masses, model.body_mass[1:], rtol=1e-12)
    rng = np.random.default_rng(3)
    for _ in range(4):
        q, v = rng.normal(size=3), rng.normal(size=3)
        data.qpos[:], data.qvel[:] = q, v
        mujoco.mj_forward(model, data)
        np.testing.assert_allclose(robot.mass_matrix(q), _full_mass_matrix(model, data),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(robot.inverse_dynamics(q, v, 0 * v), data.qfrc_bias,
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind, size", [("sphere", "0.1"), ("capsule", "0.05 0.2"),
                                        ("ellipsoid", "0.1 0.05 0.2"),
                                        ("cylinder", "0.05 0.2"), ("box", "0.1 0.05 0.2")])
def test_each_solid_alone_has_mujocos_mass_and_principal_moments(kind, size):
    """One geom at the body's origin: the body's mass and principal moments
    (``body_inertia``) are the solid's, and agree with the closed forms of the module."""
    text = (f'<mujoco><worldbody><body><joint type="hinge"/><geom type="{kind}" '
            f'size="{size}" density="1200"/></body></worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(text)
    volume, unit = solid(kind, np.array([float(x) for x in size.split()]))
    assert math.isclose(1200 * volume, model.body_mass[1], rel_tol=1e-12)
    np.testing.assert_allclose(sorted(1200 * volume * unit), sorted(model.body_inertia[1]),
                               rtol=1e-12)


def test_a_height_field_geom_that_would_give_the_inertia_is_refused_naming_it(tmp_path):
    path = tmp_path / "hfield.xml"
    path.write_text('<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 1 1"/>'
                    '</asset><worldbody><body name="arm"><joint/><geom type="hfield" '
                    'hfield="h"/></body></worldbody></mujoco>')
    with pytest.raises(rd.ModelError, match="robodyn from sphere, capsule, ellipsoid, "
                                            "cylinder, box and mesh geoms only; add "
                                            "<inertial"):
        rd.load(str(path))
