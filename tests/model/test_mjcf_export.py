"""``robot.to_mjcf()`` (issue 31, "MJCF out"): every built-in, and trees of ball, free,
revolute and prismatic joints, written as MJCF load in MuJoCo with the same dynamics
(``mj_fullM``, ``qfrc_bias``, the damping in ``qfrc_passive``), and read back by robodyn's
own MJCF reader with the same numbers (the round trip robodyn -> MJCF -> robodyn)."""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES
from dynamics.test_joint_models import random_chain
from robodyn.core.errors import ModelError
from robodyn.model.chain import Transform
from robodyn.model.joints import rotation_matrices
from robodyn.model.names import MARKER
from robodyn.model.urdf_export import writable_chain

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the reference (pip install mujoco, "
                             "in the dev extra)")

N = 6
RTOL = 1e-9


def _builtin(name: str) -> rd.Robot:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)  # the PUMA's data
        return rd.load(name)


def _full_mass_matrix(model, data) -> np.ndarray:
    out = np.zeros((model.nv, model.nv))
    try:
        mujoco.mj_fullM(model, data, out)
    except TypeError:
        mujoco.mj_fullM(model, out, data.qM)
    return out


def _close(actual, expected, what, rtol=RTOL):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale, err_msg=what)


def _states(robot: rd.Robot, seed: int):
    rng = np.random.default_rng(seed)
    q = robot.integrate(robot.neutral(), rng.normal(size=(N, robot.nv)))
    return q, rng.normal(size=(N, robot.nv)), rng.normal(size=(N, robot.nv))


def _to_mujoco(robot: rd.Robot, q: np.ndarray, v: np.ndarray):
    """MuJoCo's ``qpos``, ``qvel`` of robodyn's ``q``, ``v``; ``T`` with ``v_mj = T v`` (a
    free joint's linear velocity in the world frame, ``R v_body``; a quaternion stored ``w``
    first) and ``dT/dt v`` (``R (w × v_body)`` of a free joint), so that
    ``M = T^T M_mj T`` and the bias ``b = T^T (b_mj + M_mj dT/dt v)``."""
    qpos, qvel, blocks, rate = [], [], [], []
    for link, kq, kv in zip(robot.links, robot.chain.q_offsets(), robot.chain.v_offsets(),
                            strict=True):
        model = link.joint.model
        qj, vj = q[kq:kq + model.nq], v[kv:kv + model.nv]
        if link.joint.type == "free":
            rotation = rotation_matrices(qj[3:7])
            qpos += [*qj[:3], qj[6], *qj[3:6]]
            qvel += [*(rotation @ vj[:3]), *vj[3:]]
            rate += [*(rotation @ np.cross(vj[3:], vj[:3])), 0.0, 0.0, 0.0]
            block = np.eye(6)
            block[:3, :3] = rotation
            blocks.append(block)
        elif link.joint.type == "spherical":
            qpos += [qj[3], *qj[:3]]
            qvel += list(vj)
            rate += [0.0] * 3
            blocks.append(np.eye(3))
        else:
            qpos += list(qj)
            qvel += list(vj)
            rate += [0.0]
            blocks.append(np.eye(1))
    size = sum(b.shape[0] for b in blocks)
    T = np.zeros((size, size))
    k = 0
    for b in blocks:
        T[k:k + len(b), k:k + len(b)] = b
        k += len(b)
    return np.array(qpos), np.array(qvel), T, np.array(rate)


def _check_against_mujoco(robot: rd.Robot, text: str, seed: int, what: str):
    model = mujoco.MjModel.from_xml_string(text)
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT  # limits: not forces
    data = mujoco.MjData(model)
    assert (model.nq, model.nv) == (robot.nq, robot.nv)
    rigid = robot.without_friction()
    q, v, _ = _states(robot, seed)
    mass, bias = rigid.mass_matrix(q), rigid.inverse_dynamics(q, v, 0.0)
    damping = np.array([float(link.friction.viscous) for link in robot.numeric_chain.links])
    for k in range(N):
        data.qpos[:], data.qvel[:], T, rate = _to_mujoco(robot, q[k], v[k])
        mujoco.mj_forward(model, data)
        full = _full_mass_matrix(model, data)
        _close(T.T @ full @ T, mass[k], f"{what}: mj_fullM, sample {k}")
        _close(T.T @ (data.qfrc_bias + full @ rate), bias[k], f"{what}: qfrc_bias, sample {k}")
        if robot.chain.single_valued:
            _close(data.qfrc_passive, -damping * v[k], f"{what}: damping, sample {k}")


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_builtin_written_as_mjcf_is_the_same_in_mujoco(name):
    robot = _builtin(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = robot.to_mjcf()
    felt = [str(w.message) for w in caught if issubclass(w.category, rd.UrdfWarning)]
    assert felt == (["puma560: MJCF inertia made physical: link3 +0.0075 kg m^2 in M "
                     "(docs/defaults.md)"] if name == "puma560" else [])
    assert text.startswith(f"<!-- {MARKER} -->")
    written, changes = writable_chain(robot.numeric_chain)  # the PUMA's link 3: see urdf
    _check_against_mujoco(robot.with_chain(written), text, 5, name)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_a_builtin_read_back_from_its_mjcf_has_the_same_dynamics(name, tmp_path):
    robot = _builtin(name)
    path = tmp_path / f"{name}.xml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.UrdfWarning)  # said and checked above
        path.write_text(robot.to_mjcf(), encoding="utf-8")
    back = rd.load(str(path))
    written = robot.with_chain(writable_chain(robot.numeric_chain)[0])
    q, v, a = _states(robot, 7)
    _close(back.mass_matrix(q), written.mass_matrix(q), name, rtol=1e-12)
    _close(back.inverse_dynamics(q, v, a), written.inverse_dynamics(q, v, a), name, rtol=1e-12)


TREES = [
    (("free", "spherical", "revolute", "prismatic"), (-1, 0, 1, 1)),
    (("spherical", "revolute", "spherical", "prismatic"), (-1, 0, 1, 0)),
    (("free", "revolute", "free"), (-1, 0, -1)),  # an arm on a free base and a free object
]


@pytest.mark.parametrize("kinds, parents", TREES)
def test_trees_of_every_joint_type_written_as_mjcf_are_the_same_in_mujoco(kinds, parents,
                                                                          tmp_path):
    chain = random_chain(np.random.default_rng(len(kinds)), kinds, parents)
    # MJCF's free joints sit on bodies of the world, at its origin
    links = tuple(replace(link, joint=replace(link.joint, placement=Transform()))
                  if link.joint.type == "free" else link for link in chain.links)
    # random SPD tensors may break a + b >= c, which MuJoCo refuses: the bodies as written
    robot = rd.Robot("tree", writable_chain(replace(chain, links=links))[0])
    text = robot.to_mjcf()
    _check_against_mujoco(robot, text, 3, str(kinds))
    path = tmp_path / "tree.xml"
    path.write_text(text, encoding="utf-8")
    back = rd.load(str(path))
    q, v, a = _states(robot, 4)
    _close(back.mass_matrix(q), robot.mass_matrix(q), "read back", rtol=1e-12)
    _close(back.inverse_dynamics(q, v, a), robot.inverse_dynamics(q, v, a), "read back",
           rtol=1e-12)


def test_a_free_joint_below_a_link_is_a_clear_error():
    chain = random_chain(np.random.default_rng(0), ("revolute", "free"), (-1, 0))
    with pytest.raises(ModelError, match=r"to_mjcf: free joint 'joint1' moves link 'link1' "
                                         r"below another link; MJCF puts free joints on "
                                         r"bodies of <worldbody> only"):
        rd.Robot("arm", chain).to_mjcf()


def test_hostile_names_are_escaped_and_mujoco_loads_the_file():
    robot = _builtin("planar-2r")
    chain = robot.numeric_chain
    links = tuple(replace(link, name='a"<b>&c\u0007', joint=replace(link.joint, name="j--k"))
                  for link in chain.links)
    hostile = rd.Robot('x"><mujoco/>', replace(chain, links=links))
    text = hostile.to_mjcf()
    root = ET.fromstring(text.split("\n", 1)[1])  # well-formed: the names are attributes
    bodies = [b.get("name") for b in root.iter("body")]
    joints = [j.get("name") for j in root.iter("joint")]
    assert bodies == ['a"<b>&c<U+0007>', 'a"<b>&c<U+0007>_2']  # unique, visible
    assert joints == ["j--k", "j--k_2"]
    assert "--" not in "".join(c.text for c in root.iter(ET.Comment))
    model = mujoco.MjModel.from_xml_string(text)
    assert model.nbody == 3


def test_a_ball_joints_armature_damping_and_friction_are_written_and_mujoco_applies_them(
        tmp_path):
    """A ball joint's ``armature``, ``damping`` and Coulomb friction (``frictionloss``) are
    written on it; MuJoCo puts them on each of its 3 dofs as robodyn does: ``mj_fullM``
    (armature included) and ``qfrc_bias`` equal robodyn's, ``qfrc_passive = -damping v``,
    ``dof_frictionloss`` the Coulomb level, and the file reads back the same (inverse
    dynamics with the friction included)."""
    from robodyn.model.chain import Motor
    from robodyn.model.friction import Friction

    chain = random_chain(np.random.default_rng(9), ("spherical", "revolute", "spherical"),
                         (-1, 0, 1))
    extra = {0: (0.04, 0.5, 0.0), 2: (0.002, 0.1, 0.03)}
    links = tuple(replace(link, motor=Motor(inertia=extra[i][0], gear_ratio=1),
                          friction=Friction(viscous=extra[i][1], coulomb=extra[i][2]))
                  if i in extra else link for i, link in enumerate(chain.links))
    robot = rd.Robot("balls", writable_chain(replace(chain, links=links))[0])
    text = robot.to_mjcf()
    model = mujoco.MjModel.from_xml_string(text)
    np.testing.assert_array_equal(model.dof_armature, [0.04] * 3 + [0] + [0.002] * 3)
    np.testing.assert_array_equal(model.dof_damping, [0.5] * 3 + [0] + [0.1] * 3)
    np.testing.assert_array_equal(model.dof_frictionloss, [0] * 3 + [0] + [0.03] * 3)
    _check_against_mujoco(robot, text, 2, "balls with armature")
    data = mujoco.MjData(model)
    q, v, a = _states(robot, 6)
    data.qpos[:], data.qvel[:], _, _ = _to_mujoco(robot, q[0], v[0])
    mujoco.mj_forward(model, data)
    _close(data.qfrc_passive, -model.dof_damping * v[0], "damping = -qfrc_passive")
    dry = robot.friction_torques(v[0]) - model.dof_damping * v[0]
    _close(dry, model.dof_frictionloss * np.sign(v[0]), "frictionloss sign(v) per dof")
    path = tmp_path / "balls.xml"
    path.write_text(text, encoding="utf-8")
    back = rd.load(str(path))
    _close(back.mass_matrix(q), robot.mass_matrix(q), "read back", rtol=1e-12)
    _close(back.inverse_dynamics(q, v, a), robot.inverse_dynamics(q, v, a), "read back",
           rtol=1e-12)


def test_a_coupled_robot_is_written_with_equality_joints_and_reads_back_coupled(tmp_path):
    """The Panda's finger mimic is written as ``<equality><joint polycoef="0 1 0 0 0">``:
    MuJoCo reads it (its tree's ``mj_fullM`` reduced by the coupling written out by hand,
    ``finger2 = finger1``, is robodyn's ``M``) and robodyn reads the file back coupled,
    the same robot to 1e-12."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = rd.load(rd.models.example_robot_data("panda_description/urdf/panda.urdf"))
    assert robot.dof == 8
    text = robot.to_mjcf()
    model = mujoco.MjModel.from_xml_string(text)
    assert model.neq == 1 and model.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    np.testing.assert_array_equal(model.eq_data[0][:5], [0, 1, 0, 0, 0])
    assert [model.joint(model.eq_obj1id[0]).name, model.joint(model.eq_obj2id[0]).name] == \
        ["panda_finger_joint2", "panda_finger_joint1"]
    G = np.vstack([np.eye(8), np.eye(8)[7]])  # the tree's 9 joints from the 8 independent
    data = mujoco.MjData(model)
    rng = np.random.default_rng(3)
    for _ in range(3):
        y = rng.uniform(-1, 1, 8)
        data.qpos[:] = G @ y
        mujoco.mj_forward(model, data)
        _close(robot.mass_matrix(y), G.T @ _full_mass_matrix(model, data) @ G, "G^T M G")
    path = tmp_path / "panda.xml"
    path.write_text(text, encoding="utf-8")
    back = rd.load(str(path))
    assert back.dof == 8 and back.joints == robot.joints
    y, yd, ydd = rng.uniform(-1, 1, (3, 8))
    _close(back.mass_matrix(y), robot.mass_matrix(y), "read back", rtol=1e-12)
    _close(back.inverse_dynamics(y, yd, ydd), robot.inverse_dynamics(y, yd, ydd), "read back",
           rtol=1e-12)



def test_mujocos_stiff_joint_equality_moves_the_exported_panda_as_robodyn_coupled():
    """The Panda (its finger mimic a coupling, friction left out) written by ``to_mjcf``:
    MuJoCo's acceleration under its ``<equality joint>`` made stiff (``solref`` 2 timesteps
    of 1e-6 s, ``solimp`` ``d``; limits off) approaches robodyn's coupled forward dynamics
    ``G ydd`` as ``1 - d``: within 1e-3 relative at MuJoCo's stiffest ``d = 0.9999`` (3.9e-5
    measured; 3.9e-4 at 0.999, 3.9e-3 at 0.99), and
    at least 5 times closer than at ``d = 0.999``, at random states (``qpos = G y``, ``qvel
    = G yd``, the independent torques on the independent joints)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = rd.load(rd.models.example_robot_data("panda_description/urdf/panda.urdf"))
    robot = robot.without_friction()
    text = robot.to_mjcf()
    G = np.vstack([np.eye(8), np.eye(8)[7]])  # finger2 = finger1
    rng = np.random.default_rng(8)
    states = [rng.uniform(-1, 1, (3, 8)) for _ in range(3)]
    worst = {}
    for d in (0.999, 0.9999):
        model = mujoco.MjModel.from_xml_string(text)
        model.opt.timestep = 1e-6
        model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_LIMIT
        model.eq_solref[:] = [2e-6, 1]
        model.eq_solimp[:] = [d, d, 0.001, 0.5, 2]
        data = mujoco.MjData(model)
        worst[d] = 0.0
        for y, yd, tau in states:
            tau = 10 * tau
            ydd = robot.forward_dynamics(y, yd, tau)
            data.qpos[:], data.qvel[:] = G @ y, G @ yd
            data.qfrc_applied[:] = np.r_[tau, 0.0]  # G^T f = tau
            mujoco.mj_forward(model, data)
            worst[d] = max(worst[d], np.abs(data.qacc - G @ ydd).max() / np.abs(ydd).max())
    assert worst[0.9999] < 1e-3, f"MuJoCo's stiff joint equality vs robodyn: {worst}"
    assert worst[0.999] > 5 * worst[0.9999], f"no convergence: {worst}"

#: A configuration of each closed built-in's independent joints and a guess to assemble it.
CLOSED = {
    "four-bar": ([0.9], [0.5, 0.5, -1.0]),
    "parallelogram-arm": ([0.7, 1.4], None),
    "five-bar": ([1.9, 1.2], None),
}


@pytest.mark.parametrize("name", list(CLOSED))
def test_a_closed_mechanism_is_written_with_equality_connect_and_mujoco_moves_it_alike(
        tmp_path, name):
    """The loop closures of the closed built-ins (planar loops) are written as
    ``<equality connect site1 site2>`` and the actuated joints as motors. MuJoCo's
    acceleration of the exported file, its connect made stiff (``solref`` 2 timesteps of
    1e-6 s, ``solimp`` ``d``), tends to robodyn's rigid closed-chain forward dynamics as the
    soft constraint's ``1 - d`` does: with MuJoCo's stiffest ``d = 0.9999`` (it caps
    ``solimp`` there) within 1e-3 relative at assembled states with the loop's velocities
    (measured: four-bar 3.3e-5, five-bar 4.9e-6, parallelogram arm 3.7e-4), and at least 5
    times closer than with ``d = 0.999`` (measured: 7 to 14 times). The file read back by
    robodyn has the same closures (position ones: the planar loop's third row is constant)
    and its closed-chain forward dynamics equal the built-in's to 1e-9."""
    robot = rd.load(name)
    chain = robot.closed_chain()
    text = robot.to_mjcf()
    root = ET.fromstring(text)
    connects = root.findall("equality/connect")
    assert len(connects) == len(chain.loops) == 1
    assert [m.get("joint") for m in root.findall("actuator/motor")] == \
        [chain.joints[k] for k in chain.actuated]
    path = tmp_path / f"{name}.xml"
    path.write_text(text, encoding="utf-8")
    back = rd.load(str(path)).closed_chain()
    assert [loop.kind for loop in back.loops] == ["position"]
    y, guess = CLOSED[name]
    guess = robot.configurations["home"] if guess is None else guess
    q = chain.assemble(y, guess).q
    worst = {}
    for d in (0.999, 0.9999):
        model = mujoco.MjModel.from_xml_string(text)
        model.opt.timestep = 1e-6
        model.eq_solref[:] = [2e-6, 1]
        model.eq_solimp[:] = [d, d, 0.001, 0.5, 2]
        data = mujoco.MjData(model)
        rng = np.random.default_rng(4)
        worst[d] = 0.0
        for scale in (0.0, 1.0):
            yd = scale * rng.uniform(-1, 1, len(chain.actuated))
            tau_a = rng.uniform(-1, 1, len(chain.actuated))
            qd = chain.velocity_map(q) @ yd
            qdd, _ = chain.forward_dynamics(q, qd, tau_a)
            data.qpos[:], data.qvel[:], data.ctrl[:] = q, qd, tau_a
            mujoco.mj_forward(model, data)
            worst[d] = max(worst[d], np.abs(data.qacc - qdd).max() / np.abs(qdd).max())
            again, _ = back.forward_dynamics(q, qd, tau_a)
            _close(again, qdd, f"{name}: read back", rtol=1e-9)
    assert worst[0.9999] < 1e-3, f"{name}: MuJoCo's stiff connect vs robodyn: {worst}"
    assert worst[0.999] > 5 * worst[0.9999], f"{name}: no convergence: {worst}"


def test_a_pose_closure_is_written_as_a_weld_and_reads_back_as_one(tmp_path):
    """A ``pose`` loop closure (a weld) is written as ``<equality weld site1 site2>``, which
    MuJoCo loads as a weld of those two sites (``eq_type``, ``eq_objtype`` site), and
    robodyn reads back as the same ``pose`` closure; a loop end at a link's own frame gets a
    site at its body's origin (read back as the frame ``site:rocker``, a site named like
    its body, at the link's origin), a ``base`` end one at the world's."""
    from robodyn.model.loops import LoopClosure

    robot = rd.load("four-bar")
    chain = robot.numeric_chain
    closures = replace(chain.closures, loops=(LoopClosure("weld", "rocker", "base", "pose"),))
    welded = rd.Robot("welded", replace(chain, closures=closures))
    text = welded.to_mjcf()
    weld = ET.fromstring(text).find("equality/weld")
    assert weld is not None and (weld.get("site1"), weld.get("site2")) == ("rocker", "base")
    model = mujoco.MjModel.from_xml_string(text)
    assert model.eq_type[0] == mujoco.mjtEq.mjEQ_WELD
    assert model.eq_objtype[0] == mujoco.mjtObj.mjOBJ_SITE
    site = model.site("rocker")
    assert model.site_bodyid[site.id] == model.body("rocker").id
    np.testing.assert_array_equal(model.site_pos[site.id], 0)
    assert model.site_bodyid[model.site("base").id] == 0
    path = tmp_path / "welded.xml"
    path.write_text(text, encoding="utf-8")
    back = rd.load(str(path)).chain.closures
    assert [(loop.frame_a, loop.frame_b, loop.kind) for loop in back.loops] == \
        [("site:rocker", "base", "pose")]
