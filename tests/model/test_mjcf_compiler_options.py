"""What MuJoCo's compiler does to bodies' inertias and default classes (issue 31), with
MuJoCo as the oracle: ``boundmass``, ``boundinertia`` and ``balanceinertia`` (on each MuJoCo
body before robodyn welds bodies together, a massless body included), ``inertiagrouprange``
on geoms, several top-level ``<default>`` blocks, ``childclass`` and ``<frame>``; a
``<deformable>`` section read past with a note."""

from __future__ import annotations

import numpy as np
import pytest
from test_mjcf_export import _full_mass_matrix

import robodyn as rd

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the reference (the dev extra)")

BODIES = """<mujoco><compiler angle="radian" {compiler}/>
<worldbody><body name="w"><geom size="0.01" mass="0.001"/></body>
<body name="a"><joint axis="0.3 1 0"/>
  <inertial pos="0.1 0 0" mass="0.01" quat="0.9 0.1 0.2 0.3" diaginertia="1e-3 5e-3 1e-2"/>
  <body name="b" pos="0 0.2 1"><geom type="box" size="0.1 0.03 0.3" mass="0.05" group="2"/>
    <geom type="sphere" size="0.2" pos="0.1 0 0" group="4"/></body>
  <frame pos="0.5 0 0" euler="0.3 0 0.2">
    <body name="c" pos="1 0 0"><joint type="slide" axis="1 0 1"/>
      <body name="d" pos="0 0 0.3"><joint axis="1 0 0"/></body></body></frame>
</body></worldbody></mujoco>"""


def _equal(tmp_path, text):
    path = tmp_path / "model.xml"
    path.write_text(text)
    model = mujoco.MjModel.from_xml_path(str(path))
    robot = rd.load(str(path))
    data = mujoco.MjData(model)
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, v = rng.normal(size=model.nv), rng.normal(size=model.nv)
        data.qpos[:], data.qvel[:] = q, v
        mujoco.mj_forward(model, data)
        full = _full_mass_matrix(model, data)
        np.testing.assert_allclose(robot.mass_matrix(q), full, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(robot.inverse_dynamics(q, v, 0 * v), data.qfrc_bias,
                                   rtol=1e-9, atol=1e-12)
    return model, robot


@pytest.mark.parametrize("compiler", [
    'boundmass="0.02" boundinertia="0.004" balanceinertia="true"',
    'boundmass="0.03" boundinertia="0.004" balanceinertia="true" inertiagrouprange="0 3"',
    'balanceinertia="true" inertiagrouprange="3 5" boundmass="0.5" boundinertia="1e-3"',
])
def test_bounds_balance_and_groups_equal_mujoco(tmp_path, compiler):
    model, robot = _equal(tmp_path, BODIES.format(compiler=compiler))
    # the welded body b's mass is added to a's; c and d's come from the bounds alone
    masses = [float(link.inertial.mass) for link in robot.numeric_chain.links]
    np.testing.assert_allclose(masses, [model.body_mass[2] + model.body_mass[3],
                                        model.body_mass[4], model.body_mass[5]], rtol=1e-12)
    assert model.body_mass[4] > 0 and model.body_mass[5] > 0  # massless in the file


def test_a_triangle_breaking_inertia_is_balanced_to_the_mean(tmp_path):
    """MuJoCo refuses ``1e-3 + 5e-3 < 1e-2`` unless ``balanceinertia``; then each moment is
    their mean."""
    text = BODIES.format(compiler='balanceinertia="true" boundmass="0.1" '
                                  'boundinertia="1e-4"')
    model, robot = _equal(tmp_path, text)
    np.testing.assert_allclose(model.body_inertia[2], [0.016 / 3] * 3, rtol=1e-12)


DEFAULTS = """<mujoco>
<default><joint damping="2"/><default class="x"><joint armature="3"/></default></default>
<default><joint damping="5" frictionloss="1"/><default class="y"><joint armature="4"/>
  </default></default>
<worldbody><body><joint class="x"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
  <body childclass="y"><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
    <body><joint class="main" axis="1 0 0"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 2"/>
    </body></body></body></worldbody>
<deformable><skin vertex="0 0 0 1 0 0 0 1 0" face="0 1 2"/></deformable>
</mujoco>"""


def test_several_top_level_defaults_merge_as_mujoco_merges_them(tmp_path):
    path = tmp_path / "model.xml"
    path.write_text(DEFAULTS.replace("<deformable>", "<!--").replace("</deformable>", "-->"))
    model = mujoco.MjModel.from_xml_path(str(path))
    robot = rd.load(str(path))
    links = robot.numeric_chain.links
    assert [float(link.friction.viscous) for link in links] == list(model.dof_damping)
    assert [float(link.friction.coulomb) for link in links] == list(model.dof_frictionloss)
    assert [float(link.motor.inertia) for link in links] == list(model.dof_armature)
    assert list(model.dof_armature) == [3, 4, 0]  # the oracle's own reading


def test_a_deformable_section_is_read_past_with_a_note(tmp_path):
    path = tmp_path / "model.xml"
    path.write_text(DEFAULTS)
    robot = rd.load(str(path))
    assert robot.provenance.notes == ("not read: <deformable> (1 <skin>): skins are drawn, "
                                      "flexes add passive forces beside M and the bias; the "
                                      "rigid bodies are read",)
    assert robot.dof == 3
