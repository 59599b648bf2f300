"""MJCF files as they ship (issue 31): every model in Gymnasium's MuJoCo environments
(``gymnasium/envs/mujoco/assets``), in dm_control's suite (``dm_control/suite``, meshes
included: the dog's 200-odd STL bones), dm_control's arms and walkers (:data:`OTHERS`:
the Jaco arm and hand, the rodent, the fruit flies) and in the ``mujoco`` package (files no
one here wrote) either loads with MuJoCo's numbers (``mj_fullM``, and ``qfrc_bias`` plus the damping
in ``qfrc_passive``, at random states, free joints mapped to robodyn's layout; each moving
body's mass, its welded bodies' added, equal to MuJoCo's ``body_mass``) or is listed in
:data:`NOT_MODELLED` with the reason. What they hold beyond the rigid bodies (joint
springs, fluid forces, tendons, gravity compensation) MuJoCo puts beside ``M`` and the bias,
and robodyn reads past it with a note."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_mjcf_export import _full_mass_matrix, _to_mujoco

import robodyn as rd

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the reference (the dev extra)")
# values, not speed: the corpus's big models (the dog's 85 joints, the fruit fly's 132) run on
# the NumPy backend, the same generated programs without minutes of Numba compiling in CI
pytestmark = pytest.mark.usefixtures("numpy_backend")

_spec = importlib.util.find_spec("gymnasium")
ASSETS = (Path(list(_spec.submodule_search_locations)[0]) / "envs" / "mujoco" / "assets"
          if _spec is not None and _spec.submodule_search_locations else None)
FILES = sorted(ASSETS.glob("*.xml")) if ASSETS is not None and ASSETS.is_dir() else []
_dmc = importlib.util.find_spec("dm_control")
SUITE = (sorted((Path(list(_dmc.submodule_search_locations)[0]) / "suite").glob("*.xml"))
         if _dmc is not None and _dmc.submodule_search_locations else [])
_DMC_ROOT = SUITE[0].parent.parent if SUITE else None
#: dm_control's other whole models (the rest of its files are pieces that Python assembles):
#: the Jaco arm and hand (two top-level <default> blocks), the walkers.
OTHERS = [_DMC_ROOT / name for name in (
    "third_party/kinova/jaco_arm.xml", "third_party/kinova/jaco_hand.xml",
    "third_party/ant/ant.xml", "locomotion/walkers/assets/rodent.xml",
    "locomotion/walkers/assets/humanoid_CMU_V2020.xml",
    "locomotion/walkers/assets/fruitfly_v2/fruitfly.xml",
    "locomotion/walkers/assets/build_fruitfly/assets/drosophila_fused.xml",
    "locomotion/soccer/assets/boxhead/boxhead.xml", "mjcf/test_assets/robot_arm.xml",
    "locomotion/walkers/assets/dog_v2/dog.xml",
)] if _DMC_ROOT is not None else []
#: Files whose meshes lie above their folder, and the asset_root they load with: dog_v2 reads
#: its bones from ../../../../suite/dog_assets, inside the dm_control package.
ASSET_ROOTS = {"dog_v2/dog.xml": _DMC_ROOT}
BUNDLED = sorted((Path(mujoco.__file__).parent).rglob("*.xml"))
#: The files that are not a model robodyn can hold, and why (none for a dynamics robodyn
#: lacks).
NOT_MODELLED = {
    "lqr.xml": "a template: dm_control's lqr.py adds the bodies and joints in Python; as "
               "shipped no body moves",
    "msh.xml": "MuJoCo's test of .msh meshes: no body moves (no joint)",
}
#: Large models: 5 s to 2 min each (compiling their kernels).
HEAVY = {"dog.xml", "humanoid_CMU.xml", "humanoid.xml", "quadruped.xml", "stacker.xml",
         "rodent.xml", "humanoid_CMU_V2020.xml", "fruitfly.xml", "drosophila_fused.xml",
         "robot_arm.xml", "jaco_arm.xml"}

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
    _equals_mujoco(robot, path, check_passive=path.name not in NOTED)


def _corpus(paths):
    return [pytest.param(p, id=f"{p.parent.name}/{p.name}",
                         marks=[pytest.mark.slow] if p.name in HEAVY else [])
            for p in paths]


@pytest.mark.skipif(not SUITE, reason="dm_control (a test-only corpus: pip install dm_control) "
                                      "is not installed")
@pytest.mark.parametrize("path", _corpus(SUITE), ids=str)
def test_a_dm_control_suite_model_loads_as_mujoco_compiles_it(path):
    _corpus_file(path)


@pytest.mark.skipif(not OTHERS, reason="dm_control (a test-only corpus: pip install "
                                       "dm_control) is not installed")
@pytest.mark.parametrize("path", _corpus(OTHERS), ids=str)
def test_dm_control_arms_and_walkers_load_as_mujoco_compiles_them(path):
    _corpus_file(path)


@pytest.mark.parametrize("path", _corpus(BUNDLED), ids=str)
def test_a_model_bundled_with_mujoco_loads_as_mujoco_compiles_it(path):
    _corpus_file(path)


def _corpus_file(path):
    if path.name in NOT_MODELLED:
        with pytest.raises(rd.ModelError, match="no body has a joint"):
            rd.load(str(path))
        return
    asset_root = ASSET_ROOTS.get(f"{path.parent.name}/{path.name}")
    if asset_root is not None:  # without it: refused, naming the folder to allow
        with pytest.raises(rd.ModelError, match="is outside the folder of.*asset_root="):
            rd.load(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        robot = rd.load(str(path), asset_root=asset_root)
    _equals_mujoco(robot, path, check_passive=False)


def _moving_body_masses(model) -> tuple[list[float], list[int]]:
    """MuJoCo's mass of each body with joints, those of the bodies welded below it added, and
    its number of joints, in body order (robodyn's links: one per joint, the body's last
    carries its mass)."""
    masses = np.zeros(model.nbody)
    for b in range(1, model.nbody):
        o = b
        while o != 0 and model.body_jntnum[o] == 0:
            o = model.body_parentid[o]
        masses[o] += model.body_mass[b] if o != 0 else 0.0
    moving = [b for b in range(1, model.nbody) if model.body_jntnum[b] > 0]
    return [masses[b] for b in moving], [int(model.body_jntnum[b]) for b in moving]


def _equals_mujoco(robot, path, check_passive):
    model = mujoco.MjModel.from_xml_path(str(path))
    expected, joints = _moving_body_masses(model)
    links = robot.numeric_chain.links
    assert len(links) == sum(joints)
    last = np.cumsum(joints) - 1
    np.testing.assert_allclose([float(links[k].inertial.mass) for k in last], expected,
                               rtol=1e-9)
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
        if check_passive and robot.chain.single_valued:  # no springs nor fluid
            np.testing.assert_allclose(data.qfrc_passive, -damping * v, rtol=1e-9, atol=1e-12)
