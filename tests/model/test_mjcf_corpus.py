"""MJCF files as they ship (issue 31): every model in Gymnasium's MuJoCo environments
(``gymnasium/envs/mujoco/assets``, files no one here wrote) either loads with MuJoCo's
numbers (``mj_fullM``, and ``qfrc_bias`` plus the damping in ``qfrc_passive``, at random
states, free joints mapped to robodyn's layout): all 14 do. What they hold beyond the rigid
bodies (joint springs, fluid forces, tendons) MuJoCo puts beside ``M`` and the bias, and
robodyn reads past it with a note."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_mjcf_export import _full_mass_matrix, _to_mujoco

import robodyn as rd

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the reference (the dev extra)")
_spec = importlib.util.find_spec("gymnasium")
ASSETS = (Path(list(_spec.submodule_search_locations)[0]) / "envs" / "mujoco" / "assets"
          if _spec is not None and _spec.submodule_search_locations else None)
FILES = sorted(ASSETS.glob("*.xml")) if ASSETS is not None and ASSETS.is_dir() else []

#: What robodyn notes it leaves out of the files that hold more than rigid bodies.
NOTED = {
    "half_cheetah.xml": ("the springs (stiffness)", "settotalmass: every body's mass"),
    "humanoid.xml": ("<tendon>", "the springs (stiffness)"),
    "humanoidstandup.xml": ("<tendon>", "the springs (stiffness)"),
    "swimmer.xml": ("<option density viscosity> (fluid forces",),
}


@pytest.mark.skipif(not FILES, reason="gymnasium (the dev extra) is not installed")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_gymnasium_model_loads_as_mujoco_compiles_it(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        robot = rd.load(str(path))
    notes = robot.provenance.notes
    assert len(notes) == len(NOTED.get(path.name, ()))
    for note, start in zip(notes, NOTED.get(path.name, ()), strict=True):
        assert start in note
    model = mujoco.MjModel.from_xml_path(str(path))
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT  # limits: not forces
    data = mujoco.MjData(model)
    assert (robot.nq, robot.nv) == (model.nq, model.nv)
    rigid = robot.without_friction()
    damping = np.array([float(link.friction.viscous) for link in robot.numeric_chain.links
                        for _ in range(link.joint.nv)])
    rng = np.random.default_rng(len(path.name))
    for _ in range(3):
        q = robot.integrate(robot.neutral(), rng.normal(size=robot.nv))
        v = rng.normal(size=robot.nv)
        data.qpos[:], data.qvel[:], T, rate = _to_mujoco(robot, q, v)
        mujoco.mj_forward(model, data)
        full = _full_mass_matrix(model, data)
        scale = max(1.0, float(np.abs(full).max()))
        np.testing.assert_allclose(T.T @ full @ T, robot.mass_matrix(q), rtol=1e-9,
                                   atol=1e-9 * scale)
        bias = T.T @ (data.qfrc_bias + full @ rate)
        np.testing.assert_allclose(bias, rigid.inverse_dynamics(q, v, 0 * v), rtol=1e-9,
                                   atol=1e-9 * max(1.0, float(np.abs(bias).max())))
        if robot.chain.single_valued and path.name not in NOTED:  # no springs nor fluid
            np.testing.assert_allclose(data.qfrc_passive, -damping * v, rtol=1e-9, atol=1e-12)
