"""URDF ``<mimic>`` joints and model-file ``couplings:`` as an exact reduction ``q = G y + b``.

Oracle: Pinocchio 4's ``buildModelFromUrdf(path, mimic=True)`` (``JointModelMimic``): its
``crba``, ``rnea``, ``computeGeneralizedGravity``, the forward dynamics
``crba^-1 (tau - nonLinearEffects)`` (its ``aba`` refuses mimic joints) and the frame
Jacobians, on the example-robot-data URDFs with ``<mimic>`` that Pinocchio reads and on
hand-written files (a multiplier and an offset, a prismatic mimic), to 1e-9 relative.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import robodyn as rd
from robodyn.model.loops import Closures, Coupling, checked_closures

pin = pytest.importorskip("pinocchio", reason="Pinocchio is the reference (pip install pin)")

#: example-robot-data files with <mimic> that Pinocchio 4.1 reads with mimic=True (it refuses
#: alex_psyonic_hands, romeo and talos_full_v2*: "the parent joint of the mimic joint is not
#: in the kinematic tree"); the Panda in the fast run.
ERD_MIMIC = [
    pytest.param("panda_description/urdf/panda.urdf", id="panda"),
    *(pytest.param(f, id=f.rsplit("/", 1)[1], marks=pytest.mark.slow) for f in (
        "baxter_description/urdf/baxter.urdf", "pr2_description/urdf/pr2.urdf",
        "talos_data/robots/talos_left_arm.urdf", "talos_data/robots/talos_reduced.urdf",
        "tiago_pro_description/robots/tiago_pro.urdf")),
]

HAND_WRITTEN = """<robot name="coupled">
  <link name="base"/>
  <link name="a"><inertial><mass value="1.2"/><origin xyz="0.2 0.05 0"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0.001" ixz="0" iyz="0.002"/></inertial></link>
  <link name="b"><inertial><mass value="0.7"/><origin xyz="0.1 0 0.03"/>
    <inertia ixx="0.004" iyy="0.005" izz="0.006" ixy="0" ixz="0.0005" iyz="0"/></inertial></link>
  <link name="c"><inertial><mass value="0.4"/><origin xyz="0 0.1 0"/>
    <inertia ixx="0.002" iyy="0.003" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="d"><inertial><mass value="0.3"/><origin xyz="0.02 0 0.05"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.002" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="0.4 0 0" rpy="0.3 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="a"/><child link="c"/>
    <origin xyz="0.4 0.1 0"/><axis xyz="1 0 0"/><mimic joint="j2" multiplier="-2" offset="0.3"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j4" type="prismatic"><parent link="b"/><child link="d"/>
    <origin xyz="0.2 0 0"/><axis xyz="0 0 1"/><mimic joint="j1" multiplier="0.5"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""


def _relative(x, reference) -> float:
    return float(np.abs(np.asarray(x) - reference).max() / max(np.abs(reference).max(), 1e-300))


def _check_against_pinocchio(path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = rd.load(path).without_friction()  # URDF friction is not in Pinocchio's rnea
    model = pin.buildModelFromUrdf(str(path), mimic=True)
    data = model.createData()
    assert model.nv == robot.dof
    # Pinocchio's independent coordinates, matched to robodyn's by name (a continuous
    # joint has nq = 2: cos, sin)
    joints = [model.joints[model.getJointId(n)] for n in robot.joints]
    index = np.array([j.idx_v for j in joints])
    assert sorted(index) == list(range(robot.dof))
    rng = np.random.default_rng(len(robot.joints))
    for _ in range(3):
        y, yd, ydd = rng.uniform(-1, 1, (3, robot.dof))
        qp, vp, ap = pin.neutral(model), np.zeros(model.nv), np.zeros(model.nv)
        vp[index], ap[index] = yd, ydd
        for j, value in zip(joints, y, strict=True):
            qp[j.idx_q:j.idx_q + j.nq] = (np.cos(value), np.sin(value))[:j.nq] \
                if j.nq == 2 else value
        assert _relative(robot.inverse_dynamics(y, yd, ydd),
                         pin.rnea(model, data, qp, vp, ap)[index]) < 1e-9
        m_pin = pin.crba(model, data, qp)
        m_pin = np.triu(m_pin) + np.triu(m_pin, 1).T
        assert _relative(robot.mass_matrix(y), m_pin[np.ix_(index, index)]) < 1e-9
        assert _relative(robot.gravity_torques(y),
                         pin.computeGeneralizedGravity(model, data, qp)[index]) < 1e-9
        tau = rng.uniform(-1, 1, robot.dof)
        tp = np.zeros(model.nv)
        tp[index] = tau
        fd = np.linalg.solve(m_pin, tp - pin.nonLinearEffects(model, data, qp, vp))
        assert _relative(robot.forward_dynamics(y, yd, tau), fd[index]) < 1e-9
        # the Jacobian of every link frame moved by a mimic joint: J G
        pin.computeJointJacobians(model, data, qp)
        pin.updateFramePlacements(model, data)
        for name in robot.frames[1:]:
            if not model.existFrame(name):
                continue
            fid = model.getFrameId(name)
            j_pin = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
            assert _relative(robot.jacobian(y, name), j_pin[:, index]) < 1e-9, name


@pytest.mark.parametrize("relative", ERD_MIMIC)
def test_example_robot_data_mimic_equals_pinocchio_mimic_true(relative):
    _check_against_pinocchio(rd.models.example_robot_data(relative))


def test_hand_written_mimic_with_multiplier_offset_and_a_prismatic_joint(tmp_path):
    path = tmp_path / "coupled.urdf"
    path.write_text(HAND_WRITTEN)
    robot = rd.load(path)
    assert robot.dof == 2 and robot.joints == ("j1", "j2")
    _check_against_pinocchio(path)
    # the offset: at y = 0 the coupled joint j3 sits at 0.3 rad, so its link's pose is the
    # tree's at q = (0, 0, 0.3, 0)
    tree = rd.load(path, mimic="independent")
    assert tree.dof == 4
    np.testing.assert_allclose(robot.forward_kinematics([0.0, 0.0], "c"),
                               tree.forward_kinematics([0, 0, 0.3, 0], "c"), atol=1e-15)


def test_a_coupled_robot_pickles_and_refuses_a_tree_kernel_handle(tmp_path):
    path = tmp_path / "coupled.urdf"
    path.write_text(HAND_WRITTEN)
    robot = rd.load(path)
    again = pickle.loads(pickle.dumps(robot))
    assert again.dof == 2
    np.testing.assert_array_equal(again.mass_matrix([0.2, 0.4]), robot.mass_matrix([0.2, 0.4]))
    with pytest.raises(rd.ModelError, match="robot.kernel.*coupled joints.*mimic='independent'"):
        robot.kernel("mass_matrix")


def test_independent_keeps_the_tree_and_warns(tmp_path):
    path = tmp_path / "coupled.urdf"
    path.write_text(HAND_WRITTEN)
    with pytest.warns(rd.UrdfWarning,
                      match="mimic='independent'"):
        tree = rd.load(path, mimic="independent")
    assert tree.joints == ("j1", "j2", "j3", "j4")
    with pytest.raises(rd.ModelError, match="mimic='loose'.*'coupled'.*'independent'"):
        rd.load(path, mimic="loose")
    with pytest.raises(rd.ModelError, match=r"'j3' <mimic joint='nope'>.*mimic='independent'"):
        bad = tmp_path / "bad.urdf"
        bad.write_text(HAND_WRITTEN.replace('mimic joint="j2"', 'mimic joint="nope"'))
        rd.load(bad)


def test_simulation_of_a_coupled_gripper_conserves_energy(tmp_path):
    """Without friction and torque the reduced system is conservative: its energy (the
    tree's, at ``q = G y + b``) stays constant to the integrator's tolerance."""
    path = tmp_path / "coupled.urdf"
    path.write_text(HAND_WRITTEN)
    robot = rd.load(path)
    result = rd.simulate(robot, [0.3, -0.2], [0.5, 1.0], duration=1.0)
    q, qd = result.q, result.qd
    energy = robot.kinetic_energy(q, qd) + robot.potential_energy(q)
    assert q.shape[1] == 2
    assert np.abs(energy - energy[0]).max() < 1e-6 * max(1.0, abs(energy[0]))


def test_couplings_are_checked():
    chain = rd.load("planar-2r").chain
    with pytest.raises(rd.ModelError, match="couplings.*cycle"):
        checked_closures(chain, Closures(couplings=(Coupling("joint1", "joint2"),
                                                    Coupling("joint2", "joint1"))), "m")
    with pytest.raises(rd.ModelError, match=r"couplings\[0\]\.source: 'elbow' is not a joint"):
        checked_closures(chain, Closures(couplings=(Coupling("joint1", "elbow"),)), "m")
    with pytest.raises(rd.ModelError, match="actuated: joint 'joint2' is coupled"):
        checked_closures(chain, Closures(couplings=(Coupling("joint2", "joint1"),),
                                         actuated=("joint2",)), "m")


def test_derivatives_of_a_coupled_robot_are_finite_differences_of_its_dynamics(tmp_path):
    """``dtau_y/dy = G^T (dtau/dq) G`` and ``dM_y/dy``: central differences of the coupled
    robot's own ``inverse_dynamics`` and ``mass_matrix`` (on the independent coordinates)."""
    path = tmp_path / "coupled.urdf"
    path.write_text(HAND_WRITTEN)
    robot = rd.load(path).without_friction()
    y, yd, ydd = np.array([0.3, -0.4]), np.array([0.7, 0.2]), np.array([-0.5, 1.1])
    d_q, d_qd, d_qdd = robot.inverse_dynamics_derivatives(y, yd, ydd)
    dm = robot.mass_matrix_derivatives(y)
    h = 1e-6
    for k, e in enumerate(np.eye(2)):
        np.testing.assert_allclose(d_q[:, k], (robot.inverse_dynamics(y + h * e, yd, ydd)
                                               - robot.inverse_dynamics(y - h * e, yd, ydd))
                                   / (2 * h), atol=1e-7)
        np.testing.assert_allclose(d_qd[:, k], (robot.inverse_dynamics(y, yd + h * e, ydd)
                                                - robot.inverse_dynamics(y, yd - h * e, ydd))
                                   / (2 * h), atol=1e-7)
        np.testing.assert_allclose(dm[:, :, k], (robot.mass_matrix(y + h * e)
                                                 - robot.mass_matrix(y - h * e)) / (2 * h),
                                   atol=1e-8)
    np.testing.assert_allclose(d_qdd, robot.mass_matrix(y), atol=1e-13)
    with pytest.raises(rd.ModelError, match="forward_dynamics_derivatives of a model with "
                                            "coupled joints"):
        robot.forward_dynamics_derivatives(y, yd, ydd)


def test_a_coupled_robot_writes_its_mimic_joints_to_urdf(tmp_path):
    """``to_urdf`` of a robot with coupled joints writes ``<mimic>``: read back, the same
    independent coordinates and the same mass matrix."""
    try:
        urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    except rd.ModelError as exc:
        pytest.skip(str(exc))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panda = rd.load(urdf)
        path = tmp_path / "panda.urdf"
        path.write_text(panda.to_urdf())
        again = rd.load(path)
    assert '<mimic joint="panda_finger_joint1" multiplier="1" offset="0"' in path.read_text()
    assert again.dof == panda.dof == 8
    q = np.random.default_rng(0).uniform(-1, 1, 8)
    np.testing.assert_allclose(again.mass_matrix(q), panda.mass_matrix(q), rtol=1e-12)
