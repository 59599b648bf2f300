"""A free-flying base (a ``free`` joint at the root, Pinocchio's ``JointModelFreeFlyer``)
against Pinocchio, live.

Oracles: Pinocchio's ``rnea``, ``crba``, ``aba``, ``computeGeneralizedGravity``, ``ccrba``,
``integrate`` and energies of

* URDFs of example-robot-data read by Pinocchio itself with a free-flyer root (the UR5, the
  Panda with its fingers locked); our side is the fixed-base chain of the same file on a
  floating base whose body is Pinocchio's ``model.inertias[1]`` (the root link with what is
  fixed to it), so both sides agree on the base body (:func:`with_free_base`);
* a hand-built tree (two branches on the base, one more on a link; revolute and prismatic
  joints on unaligned axes, rotated placements, point masses) and a model file with
  ``floating: true``, built in Pinocchio joint by joint from the same numbers.

Properties: ``M`` symmetric positive definite, forward dynamics inverts inverse dynamics,
batched = per sample, and a free-floating system without gravity keeps its centroidal
momentum in a simulation while its joints are driven (internal torques only).
"""

from __future__ import annotations

import importlib.metadata
import re
from dataclasses import replace

import numpy as np
import pytest

import robodyn as rd
from conftest import write_model
from robodyn.core.errors import InputError, ModelError
from robodyn.model.chain import (
    REVOLUTE,
    Chain,
    Inertial,
    Joint,
    Link,
    PointMass,
    Transform,
    rpy_rotation,
    with_free_base,
)

pin = pytest.importorskip("pinocchio")

pytestmark = pytest.mark.usefixtures("numpy_backend")

N = 12
RTOL = 1e-9


def _close(ours, reference, what: str) -> None:
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(ours, reference, rtol=RTOL, atol=RTOL * scale, err_msg=what)


def _example(relative: str):
    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return rd.models.example_robot_data(relative)


def base_body(model) -> Inertial:
    """Pinocchio's body of the free-flyer joint (mass, lever, inertia about the com)."""
    body = model.inertias[1]
    return Inertial(float(body.mass), tuple(map(float, body.lever)),
                    tuple(tuple(map(float, row)) for row in body.inertia))


def pinocchio_of(chain: Chain):
    """Pinocchio's model of a numeric chain on a free-flyer (its first link's free joint),
    joint by joint from the chain's numbers (placements, axes, bodies, point masses); joint
    offsets must be zero."""
    model = pin.Model()
    model.gravity = pin.Motion(np.array([*map(float, chain.gravity), 0.0, 0.0, 0.0]))
    ids = []
    for i, link in enumerate(chain.links):
        joint = link.joint
        assert float(joint.offset) == 0
        axis = np.array(joint.axis, dtype=float)
        kind = (pin.JointModelFreeFlyer() if joint.type == "free" else
                pin.JointModelRevoluteUnaligned(axis) if joint.type == REVOLUTE
                else pin.JointModelPrismaticUnaligned(axis))
        placement = pin.SE3(np.array(joint.placement.rotation, dtype=float),
                            np.array(joint.placement.translation, dtype=float))
        parent = ids[chain.parent(i)] if chain.parent(i) >= 0 else 0
        jid = model.addJoint(parent, kind, placement, joint.name or link.name)
        model.appendBodyToJoint(jid, _inertia(link.inertial), pin.SE3.Identity())
        for point in link.point_masses:
            model.appendBodyToJoint(jid, pin.Inertia(float(point.mass),
                                                     np.array(point.at, dtype=float),
                                                     np.zeros((3, 3))), pin.SE3.Identity())
        ids.append(jid)
    return model


def _inertia(body: Inertial):
    return pin.Inertia(float(body.mass), np.array(body.com, dtype=float),
                       np.array(body.inertia, dtype=float))


def random_inertial(rng) -> Inertial:
    """A box of random mass and sides, turned at random, its centre off the frame origin."""
    m = float(rng.uniform(0.5, 3))
    x, y, z = rng.uniform(0.05, 0.5, 3) ** 2
    rot = np.array(rpy_rotation(*rng.uniform(-np.pi, np.pi, 3)), dtype=float)
    inertia = rot @ np.diag([y + z, x + z, x + y]) * m / 12 @ rot.T
    return Inertial(m, tuple(rng.normal(scale=0.2, size=3)),
                    tuple(map(tuple, (inertia + inertia.T) / 2)))


def tree_chain(seed: int = 7) -> Chain:
    """Five links: 0 and 4 on the base, 1 and 3 on link 0 (a branch), 2 on link 1 (the
    links in depth-first order, as Pinocchio's models keep each subtree's velocities
    together)."""
    rng = np.random.default_rng(seed)
    links = []
    for i, kind in enumerate(["revolute", "revolute", "prismatic", "revolute", "revolute"]):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        rot = rpy_rotation(*rng.uniform(-np.pi, np.pi, 3))
        placement = Transform(tuple(map(tuple, np.array(rot, dtype=float))),
                              tuple(rng.normal(scale=0.3, size=3)))
        points = (PointMass(0.4, (0.1, -0.2, 0.05)),) if i == 3 else ()
        links.append(Link(f"l{i}", Joint(kind, tuple(axis), 0, placement, f"j{i}"),
                          random_inertial(rng), point_masses=points))
    return with_free_base(Chain(tuple(links), (0.0, 0.0, -9.81), parents=(-1, 0, 1, 0, -1)),
                          random_inertial(rng))


class Case:
    """Our floating robot and Pinocchio's model of it, with random states."""

    def __init__(self, robot, model):
        self.robot, self.model, self.data = robot, model, model.createData()
        assert (model.nq, model.nv) == (robot.nq, robot.nv)
        rng = np.random.default_rng(11)
        quat = rng.normal(size=(N, 4))
        joints = rng.uniform(-np.pi, np.pi, size=(N, robot.nv - 6))
        self.q = np.concatenate([rng.normal(size=(N, 3)),
                                 quat / np.linalg.norm(quat, axis=1, keepdims=True), joints], 1)
        self.v, self.a = rng.normal(size=(N, robot.nv)), rng.normal(size=(N, robot.nv))
        self.tau = rng.normal(size=(N, robot.nv)) * 5

    def pinocchio(self, fn):
        return np.array([fn(q, v, a, t) for q, v, a, t in zip(self.q, self.v, self.a, self.tau)])


def urdf_case(relative: str, tip=None, locked=()) -> Case:
    path = _example(relative)
    robot = rd.load(path, tip=tip).without_friction()
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    if locked:
        model = pin.buildReducedModel(model, [model.getJointId(n) for n in locked],
                                      pin.neutral(model))
    model.gravity = pin.Motion(np.array([0.0, 0, -9.81, 0, 0, 0]))
    assert [model.names[i] for i in range(2, model.njoints)] == \
        [link.joint.name for link in robot.links]
    base = next(f.name for f in robot.chain.frames if f.link == -1)  # the URDF's root link
    floating = robot.with_chain(with_free_base(robot.chain, base_body(model), name=base,
                                               joint_name=model.names[1]))
    return Case(floating, model)


CASES = {
    "ur5": lambda: urdf_case("ur_description/urdf/ur5_robot.urdf"),
    "panda": lambda: urdf_case("panda_description/urdf/panda.urdf", "panda_hand",
                               ("panda_finger_joint1", "panda_finger_joint2")),
    "tree": lambda: Case(rd.Robot("tree", tree_chain()), pinocchio_of(tree_chain())),
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    return CASES[request.param]()


def test_dynamics_match_pinocchio(case):
    """ID, M, g, FD, the bias, energies at 12 random states, one batched call each."""
    r, model, data = case.robot, case.model, case.data
    _close(r.inverse_dynamics(case.q, case.v, case.a),
           case.pinocchio(lambda q, v, a, t: pin.rnea(model, data, q, v, a).copy()), "rnea")
    m = r.mass_matrix(case.q)
    _close(m, case.pinocchio(lambda q, v, a, t: (lambda x: np.triu(x) + np.triu(x, 1).T)(
        pin.crba(model, data, q))), "crba")
    _close(r.gravity_torques(case.q), case.pinocchio(
        lambda q, v, a, t: pin.computeGeneralizedGravity(model, data, q).copy()), "gravity")
    _close(r.forward_dynamics(case.q, case.v, case.tau),
           case.pinocchio(lambda q, v, a, t: pin.aba(model, data, q, v, t).copy()), "aba")
    parts = r.torque_parts(case.q, case.v, case.a)
    _close(parts.coriolis + parts.gravity, case.pinocchio(
        lambda q, v, a, t: pin.nonLinearEffects(model, data, q, v).copy()), "bias b(q, v)")
    _close(parts.total, parts.inertial + parts.coriolis + parts.gravity, "parts")
    _close(r.kinetic_energy(case.q, case.v), case.pinocchio(
        lambda q, v, a, t: pin.computeKineticEnergy(model, data, q, v)), "kinetic")
    _close(r.potential_energy(case.q), case.pinocchio(
        lambda q, v, a, t: pin.computePotentialEnergy(model, data, q)), "potential")


def test_centroidal_terms_match_ccrba(case):
    r, model, data = case.robot, case.model, case.data

    def ccrba(q, v, a, t):
        ag = pin.ccrba(model, data, q, v).copy()
        return np.concatenate([ag.ravel(), data.hg.vector])

    reference = case.pinocchio(ccrba)
    _close(r.centroidal_matrix(case.q).reshape(N, -1), reference[:, :-6], "A_G")
    _close(r.centroidal_momentum(case.q, case.v), reference[:, -6:], "h_G")


def test_coriolis_matrix_matches_pinocchio(case):
    """``C(q, v)`` equals ``computeCoriolisMatrix`` (the same Christoffel-consistent ``C`` of
    the spatial form), ``C v`` is the bias less gravity, and ``dM/dt - 2C`` is skew-symmetric
    with ``dM/dt`` a central difference of ``M`` along ``q ⊕ v t`` (a property, independent of
    Pinocchio)."""
    r, model, data = case.robot, case.model, case.data
    c = r.coriolis_matrix(case.q, case.v)
    assert c.shape == (N, r.nv, r.nv)
    _close(c, case.pinocchio(lambda q, v, a, t: pin.computeCoriolisMatrix(model, data, q,
                                                                           v).copy()), "C")
    parts = r.torque_parts(case.q, case.v, case.a)
    _close(np.einsum("nij,nj->ni", c, case.v), parts.coriolis, "C v = b - g")
    h = 1e-6
    m_dot = (r.mass_matrix(r.integrate(case.q, case.v, h))
             - r.mass_matrix(r.integrate(case.q, case.v, -h))) / (2 * h)
    skew = m_dot - 2 * c
    np.testing.assert_allclose(skew, -np.swapaxes(skew, -1, -2),
                               atol=1e-6 * max(1.0, np.abs(m_dot).max()))
    np.testing.assert_allclose(r.coriolis_matrix(case.q[4], case.v[4]), c[4], rtol=1e-13,
                               atol=1e-12)


def _pinocchio_frames(case, q) -> dict:
    """``{name: (T_wf, J)}`` of Pinocchio's frames and joints at ``q``, ``J`` its
    ``LOCAL_WORLD_ALIGNED`` Jacobian (a joint's frame is its child link's)."""
    model, data = case.model, case.data
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    out = {model.names[j]: (data.oMi[j].homogeneous.copy(), pin.getJointJacobian(
        model, data, j, pin.LOCAL_WORLD_ALIGNED).copy()) for j in range(1, model.njoints)}
    for fid, frame in enumerate(model.frames):
        out[frame.name] = (data.oMf[fid].homogeneous.copy(),
                           pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED))
    return out


def test_frames_and_jacobians_match_pinocchio(case):
    """``forward_kinematics`` (world frame) and ``jacobian`` (``6 x nv``, world axes at the
    frame's origin) of every frame equal Pinocchio's ``oMf`` and ``getFrameJacobian``; a link
    of the hand-built tree is its joint's frame, ``base`` the free-flyer's."""
    r = case.robot
    names = {"base": case.model.names[1]}
    names.update({link.name: link.joint.name for link in r.links})
    reference = [_pinocchio_frames(case, q) for q in case.q[:4]]
    for frame in r.frames:
        theirs = frame if frame in reference[0] else names[frame]
        pose = np.array([ref[theirs][0] for ref in reference])
        jac = np.array([ref[theirs][1] for ref in reference])
        _close(r.forward_kinematics(case.q[:4], frame=frame), pose, f"pose of {frame}")
        _close(r.jacobian(case.q[:4], frame=frame), jac, f"Jacobian of {frame}")
    tip = r.jacobian(case.q[:4])  # the end effector: the last link's frame, or the tip
    np.testing.assert_array_equal(tip.shape, (4, 6, r.nv))
    # the Jacobian is the velocity of the frame: J v is d/dt of its position along q ⊕ v t
    h, frame = 1e-6, r.frames[-1]
    q0, v0 = case.q[0], case.v[0]
    rate = (r.forward_kinematics(r.integrate(q0, v0, h), frame=frame)
            - r.forward_kinematics(r.integrate(q0, v0, -h), frame=frame)) / (2 * h)
    np.testing.assert_allclose(r.jacobian(q0, frame=frame)[:3] @ v0, rate[:3, 3], atol=1e-6)


def test_wrenches_at_frames_match_pinocchio_external_forces(case):
    """``h_e={frame: wrench}`` (world axes, moment about the frame's origin, exerted BY the
    robot): ``inverse_dynamics`` equals ``rnea`` with ``fext`` the opposite force on each
    frame's joint, in its joint frame; ``forward_dynamics`` inverts it, and
    ``torque_parts.external`` is ``J^T h_e`` of the checked Jacobians."""
    r, model, data = case.robot, case.model, case.data
    names = {"base": model.names[1]}
    names.update({link.name: link.joint.name for link in r.links})
    frames = list(r.frames[-2:])
    rng = np.random.default_rng(4)
    wrenches = {frame: rng.normal(size=(N, 6)) * 3 for frame in frames}
    ours = r.inverse_dynamics(case.q, case.v, case.a, h_e=wrenches)

    def rnea(q, v, a, t, k=None):
        fext = [pin.Force.Zero() for _ in range(model.njoints)]
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        for frame in frames:
            theirs = frame if model.existFrame(frame) else names[frame]
            if model.existFrame(theirs):
                fid = model.getFrameId(theirs)
                joint, origin = model.frames[fid].parentJoint, data.oMf[fid].translation
            else:
                joint = model.getJointId(theirs)
                origin = data.oMi[joint].translation
            f, mu = wrenches[frame][k, :3], wrenches[frame][k, 3:]
            on_body = pin.Force(-f, -(mu + np.cross(origin, f)))  # about the world origin
            fext[joint] += data.oMi[joint].actInv(on_body)
        return pin.rnea(model, data, q, v, a, fext).copy()

    reference = np.array([rnea(*args, k=k) for k, args in enumerate(
        zip(case.q, case.v, case.a, case.tau))])
    _close(ours, reference, "rnea with fext")
    _close(r.forward_dynamics(case.q, case.v, ours, h_e=wrenches), case.a, "FD(ID) with h_e")
    parts = r.torque_parts(case.q, case.v, case.a, h_e=wrenches)
    expected = sum(np.einsum("nri,nr->ni", r.jacobian(case.q, frame=f), w)
                   for f, w in wrenches.items())
    _close(parts.external, expected, "J^T h_e")
    one = r.inverse_dynamics(case.q, case.v, case.a, h_e=wrenches[frames[-1]][0])
    _close(one[0], r.inverse_dynamics(case.q[0], case.v[0], case.a[0]) + r.jacobian(
        case.q[0]).T @ wrenches[frames[-1]][0], "h_e at the end effector")


def test_integrate_matches_pinocchio(case):
    """``q ⊕ v dt`` for large and tiny turns (the series branch near zero)."""
    model = case.model
    for dt in (0.7, 1e-7):
        ours = case.robot.integrate(case.q, case.v, dt)
        _close(ours, case.pinocchio(lambda q, v, a, t, dt=dt: pin.integrate(model, q, v * dt)),
               f"integrate dt={dt}")
        np.testing.assert_allclose(np.linalg.norm(ours[:, 3:7], axis=1), 1, atol=1e-15)


def test_properties(case):
    """``M`` symmetric positive definite, FD inverts ID, batched = per sample."""
    r = case.robot
    m = r.mass_matrix(case.q)
    np.testing.assert_array_equal(m, np.swapaxes(m, -1, -2))
    assert (np.linalg.eigvalsh(m) > 0).all()
    tau = r.inverse_dynamics(case.q, case.v, case.a)
    _close(r.forward_dynamics(case.q, case.v, tau), case.a, "FD(ID(a)) = a")
    np.testing.assert_allclose(r.inverse_dynamics(case.q[3], case.v[3], case.a[3]), tau[3],
                               rtol=1e-13, atol=1e-12)
    grid = r.mass_matrix(case.q[:6].reshape(2, 3, -1))
    assert grid.shape == (2, 3, r.nv, r.nv)
    np.testing.assert_allclose(grid.reshape(6, r.nv, r.nv), m[:6], rtol=1e-14, atol=1e-14)


def test_a_model_file_with_a_floating_base(tmp_path):
    """``floating: true`` and ``base:`` of a model file; a prismatic joint on the base."""
    path = write_model(tmp_path, """
        name: satellite
        floating: true
        gravity: [0, 0, -g]
        base: {mass: mB, com: [0, 0.05, 0.1], inertia: [0.5, 0.6, 0.7, 0.01, 0, 0.02]}
        links:
          - {joint: revolute, a: l1, alpha: pi/2, mass: m1, com: [-0.2, 0, 0],
             inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
          - {joint: prismatic, a: 0, alpha: 0, mass: m1, com: [0, 0.1, -0.1],
             inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
        values: {mB: 10, m1: 1.5, l1: 0.4, g: 9.81}
        """)
    robot = rd.load(path)
    assert robot.floating and (robot.nq, robot.nv) == (9, 8)
    body = robot.numeric_chain.links[0].inertial
    assert robot.links[0].joint.type == "free" and robot.links[0].name == "base"
    assert body.mass == 10 and body.inertia[0][1] == 0.01
    case = Case(robot, pinocchio_of(robot.numeric_chain))
    _close(robot.inverse_dynamics(case.q, case.v, case.a), case.pinocchio(
        lambda q, v, a, t: pin.rnea(case.model, case.data, q, v, a).copy()), "rnea")
    _close(robot.centroidal_momentum(case.q, case.v), case.pinocchio(
        lambda q, v, a, t: (pin.ccrba(case.model, case.data, q, v),
                            case.data.hg.vector.copy())[1]), "h_G")


@pytest.mark.parametrize("text, message", [
    ("floating: yes-please", "floating: expected true or false"),
    ("base: {mass: 1}", "base: the base body is for a free-flying base"),
    ("floating: true", "base: a floating base needs its body"),
    ("floating: true\nbase: {mass: 1, spin: 2}", "base: unknown key(s) 'spin'"),
    ("floating: true\nbase: {mass: -1}", "base.mass: -1 is negative"),
    ("floating: true\nbase: {mass: 1}\nlinks:\n  - {joint: revolute, mass: -2}",
     "links[0].mass: -2 is negative"),
])
def test_bad_floating_model_files_are_named(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    links = "" if "links:" in text else "\nlinks:\n  - {joint: revolute, mass: 1}"
    path.write_text(text + links + "\nvalues: {g: 9.81}\n")
    with pytest.raises(ModelError, match=re.escape(message)):
        rd.load(path)


@pytest.fixture(scope="module")
def tree():
    return rd.Robot("tree", tree_chain())


def test_wrong_shapes_name_nq_and_nv(tree):
    q = np.zeros(tree.nq)
    q[6] = 1
    v = np.zeros(tree.nv)
    with pytest.raises(InputError, match=r"q: expected shape \(\.\.\., nq\) with nq = 12"):
        tree.inverse_dynamics(q[:5], v, v)
    with pytest.raises(InputError, match=r"qdd: expected shape \(\.\.\., nv\) with nv = 11"):
        tree.inverse_dynamics(q, v, v[:5])
    with pytest.raises(InputError, match=r"tau: .* nv = 11"):
        tree.forward_dynamics(q, v, np.zeros((2, 5)))
    with pytest.raises(InputError, match=r"q\[1, 3:7\]: the quaternion .* norm 2"):
        tree.mass_matrix(np.stack([q, 2 * q]))
    with pytest.raises(InputError, match="q: expected shape"):
        tree.gravity_torques(0.0)  # one number is no configuration of a free-flyer
    assert tree.inverse_dynamics(q, 0.0, 0.0).shape == (11,)  # one number per velocity is


def test_derivatives_and_the_regressor_on_a_free_flyer_match_pinocchio(case):
    """``computeRNEADerivatives``, ``computeABADerivatives`` (the tangent space of the
    free-flyer), ``getFrameJacobianTimeVariation``, ``computeJointTorqueRegressor``-like
    ``Y pi = tau``, and the base parameters' ``Y_b pi_b = tau``."""
    r, model, data = case.robot, case.model, case.data

    def rnea_derivatives(q, v, a, t):
        pin.computeRNEADerivatives(model, data, q, v, a)
        return np.stack([data.dtau_dq.copy(), data.dtau_dv.copy()])

    def aba_derivatives(q, v, a, t):
        pin.computeABADerivatives(model, data, q, v, t)
        return np.stack([data.ddq_dq.copy(), data.ddq_dv.copy()])

    d_q, d_v, m = r.inverse_dynamics_derivatives(case.q, case.v, case.a)
    reference = case.pinocchio(rnea_derivatives)
    _close(d_q, reference[:, 0], "dtau/dq")
    _close(d_v, reference[:, 1], "dtau/dv")
    _close(m, r.mass_matrix(case.q), "M")
    f_q, f_v, m_inv = r.forward_dynamics_derivatives(case.q, case.v, case.tau)
    reference = case.pinocchio(aba_derivatives)
    _close(f_q, reference[:, 0], "dqdd/dq")
    _close(f_v, reference[:, 1], "dqdd/dv")
    _close(m_inv, np.linalg.inv(r.mass_matrix(case.q)), "M^-1")
    names = {"base": case.model.names[1]}
    names.update({link.name: link.joint.name for link in r.links})
    frame = r.frames[-1]
    theirs = frame if model.existFrame(frame) else names[frame]
    fid = model.getFrameId(theirs) if model.existFrame(theirs) else None

    def jacobian_rate(q, v, a, t):
        pin.computeJointJacobiansTimeVariation(model, data, q, v)
        pin.updateFramePlacements(model, data)
        if fid is None:
            return pin.getJointJacobianTimeVariation(model, data, model.getJointId(theirs),
                                                     pin.LOCAL_WORLD_ALIGNED).copy()
        return pin.getFrameJacobianTimeVariation(model, data, fid, pin.LOCAL_WORLD_ALIGNED)

    _close(r.jacobian_derivative(case.q, case.v, frame=frame), case.pinocchio(jacobian_rate),
           f"Jdot of {frame}")
    _, pi = r.inertial_parameters()
    tau = r.inverse_dynamics(case.q, case.v, case.a)
    y = r.regressor(case.q, case.v, case.a)
    _close(y @ pi, tau, "Y pi")
    # Pinocchio's joint torque regressor: ten columns per body, its order of the inertia
    # about the joint origin [m, mc, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] against ours [..., XX, XY,
    # XZ, YY, YZ, ZZ]; the links' columns come first in ours (friction, armature after)
    order = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]
    links = len(r.links)
    ours = y[..., :10 * links].reshape(N, r.nv, links, 10)[..., order].reshape(N, r.nv, -1)
    _close(ours, case.pinocchio(lambda q, v, a, t: pin.computeJointTorqueRegressor(
        model, data, q, v, a).copy()), "computeJointTorqueRegressor")
    base = r.base_parameters()
    _close(r.regressor_base(case.q, case.v, case.a) @ base.values, tau, "Y_b pi_b")


@pytest.mark.slow
def test_exported_code_of_a_floating_base_equals_the_core(tmp_path):
    """Solo-12 on its free-flyer: the exported C (compiled with gcc, called through ctypes)
    and Python kernels of inverse dynamics, M and forward dynamics equal the core's, q of
    nq = 19 values and the others of nv = 18."""
    import importlib.util
    import shutil

    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    solo = rd.load(_example("solo_description/robots/solo12.urdf"), floating=True)
    rng = np.random.default_rng(0)
    q = solo.integrate(solo.neutral(), rng.normal(size=(5, solo.nv)))
    v, a = rng.normal(size=(2, 5, solo.nv))
    tau = solo.inverse_dynamics(q, v, a)
    kernels = solo.compile_c(["inverse_dynamics", "mass_matrix", "forward_dynamics"])
    _close(kernels.inverse_dynamics(q, v, a), tau, "C inverse dynamics")
    _close(kernels.mass_matrix(q), solo.mass_matrix(q), "C M")
    _close(kernels.forward_dynamics(q, v, tau), a, "C forward dynamics")
    files = solo.to_code("python", ["inverse_dynamics"])
    (name, text), = ((n, t) for n, t in files.items() if n.endswith(".py"))
    assert "q has nq = 19 entries" in text
    (tmp_path / name).write_text(text)
    spec = importlib.util.spec_from_file_location("solo_kernels", tmp_path / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _close(module.inverse_dynamics(q, v, a), tau, "Python inverse dynamics")
    header = solo.to_code("c", ["inverse_dynamics"])
    assert any("#define SOLO_NQ 19" in t for t in header.values())
    base = solo.base_parameters()  # Solo-12's identifiable combinations on its free-flyer
    _close(solo.regressor_base(q, v, a) @ base.values, tau, "Y_b pi_b")


def test_the_command_line_takes_a_floating_base(tmp_path, capsys):
    """Every command takes a floating base: ``energy``, ``simulate``, ``torques`` take
    ``nq`` values (and name them when given one per joint), ``export`` writes them;
    ``derive`` and the symbolic equations take it (tests/symbolic/test_symbolic_floating.py
    checks their closed forms)."""
    from robodyn.cli import main
    from robodyn.symbolic import equations

    path = write_model(tmp_path, """
        name: flyer
        floating: true
        base: {mass: 2}
        links:
          - {joint: revolute, a: 0.3, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
        values: {g: 9.81}
        """)
    assert main(["derive", str(path), "--format", "text", "--values"]) == 0
    assert "x1, y1, z1, qx1, qy1, qz1, qw1 free (v: v_x1, v_y1, v_z1, w_x1, w_y1, w_z1)" in \
        capsys.readouterr().out
    for argv in (["simulate", str(path), "--q0", "0", "--duration", "0.1"],  # they take nq
                 ["torques", str(path), "--from", "0", "--to", "1", "--duration", "1"],
                 ["energy", str(path), "--from", "0", "--to", "1", "--duration", "1"]):
        assert main(argv) == 2
        assert "expected 8 numbers (flyer's nq: the quaternions x y z w" in \
            capsys.readouterr().err
    out = tmp_path / "kernels"
    assert main(["export", str(path), "--lang", "python", "--functions", "inverse_dynamics",
                 "--out", str(out)]) == 0
    (text,) = (p.read_text() for p in out.glob("*.py"))
    assert "q has nq = 8 entries" in text
    eq = equations(rd.load(path), values=True)
    assert eq.M.shape == (7, 7) and len(eq.q) == 8 and bool(eq.check())


def test_a_massless_system_is_a_singular_mass_matrix_named_at_a_coordinate():
    chain = with_free_base(Chain((Link("l", Joint("revolute")),), (0.0, 0.0, -9.81)),
                           Inertial(0.0))
    q = np.zeros(8)
    q[6] = 1
    # the factor runs from the last coordinate to the base: the joint's pivot is the first
    with pytest.raises(ModelError, match=r"mass matrix is singular: its pivot at joint 2 \(l\)"):
        rd.Robot("ghost", chain).forward_dynamics(q, np.zeros(7), np.zeros(7))
    body = Inertial(1.0, (0.1, 0, 0), ((0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1)))
    chain = replace(chain, links=(chain.links[0], Link("l", Joint("revolute"), body)))
    # the body moves, the base has none: singular along a base coordinate
    with pytest.raises(ModelError, match=r"pivot at joint 1 \(root_joint\) [vw]_[xyz]"):
        rd.Robot("ghost", chain).forward_dynamics(q, np.zeros(7), np.zeros(7))


def test_centroidal_terms_of_a_fixed_base_match_ccrba():
    """The momentum of the moving links of a fixed-base arm (Pinocchio's ``ccrba`` of the
    UR5 read without a free-flyer)."""
    path = _example("ur_description/urdf/ur5_robot.urdf")
    robot = rd.load(path)
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    rng = np.random.default_rng(2)
    q, v = rng.uniform(-np.pi, np.pi, size=(4, 6)), rng.normal(size=(4, 6))
    reference = []
    for qk, vk in zip(q, v):
        a_g = pin.ccrba(model, data, qk, vk).copy()
        reference.append((a_g, data.hg.vector.copy()))
    _close(robot.centroidal_matrix(q), np.array([r[0] for r in reference]), "A_G")
    _close(robot.centroidal_momentum(q, v), np.array([r[1] for r in reference]), "h_G")


@pytest.mark.slow
def test_free_floating_momentum_is_conserved_in_a_simulation():
    """No gravity, no base wrench, driven joints: linear and angular momentum about the
    centre of mass stay constant (world axes), the quaternion unit, the work-energy balance
    closed; RK4 and the adaptive method agree."""
    tree = tree_chain(3)
    chain = replace(tree, links=tuple(tree.links[i] for i in (0, 1, 2, 5)),
                    parents=(-1, 0, 1, 0), gravity=(0.0, 0.0, 0.0))  # two branches on the base
    robot = rd.Robot("drifter", chain)
    q0 = np.zeros(robot.nq)
    q0[3:7] = np.array([0.2, -0.1, 0.3, 0.9]) / np.linalg.norm([0.2, -0.1, 0.3, 0.9])
    v0 = np.random.default_rng(5).normal(scale=0.3, size=robot.nv)

    def tau(t, q, v):
        return np.concatenate([np.zeros(6), 0.2 * np.sin(3 * t + np.arange(robot.nv - 6))])

    adaptive = rd.simulate(robot, q0, v0, duration=0.25, tau=tau, rtol=1e-8, atol=1e-8,
                           progress=False)
    h = robot.centroidal_momentum(adaptive.q, adaptive.qd)
    np.testing.assert_allclose(h, np.broadcast_to(h[0], h.shape), atol=1e-6 * np.abs(h).max())
    np.testing.assert_allclose(np.linalg.norm(adaptive.q[:, 3:7], axis=1), 1, atol=1e-15)
    assert adaptive.info["energy_balance"].relative < 1e-3  # the trapezoid's error
    fixed = rd.simulate(robot, q0, v0, duration=0.25, dt=0.01, method="rk4", tau=tau,
                        progress=False)
    np.testing.assert_allclose(fixed.q[-1], adaptive.q[-1], atol=1e-3)
    euler = rd.simulate(robot, q0, v0, duration=0.25, dt=0.01, method="semi-implicit-euler",
                        tau=tau, progress=False)
    np.testing.assert_allclose(np.linalg.norm(euler.q[:, 3:7], axis=1), 1, atol=1e-15)
    assert np.abs(euler.q[-1] - adaptive.q[-1]).max() < 0.05  # first order, same motion


def test_simulate_options_a_floating_base_lacks_are_errors(tree):
    q = np.zeros(tree.nq)
    q[6] = 1
    with pytest.raises(InputError, match=r"trajectory: has 11 position and 11 velocity "
                                         r"values, the model 12 and 11; a model with "
                                         r"quaternion joints takes rd.trajectory.geodesic"):
        rd.control.ComputedTorque(tree, rd.trajectory.quintic(np.zeros(11), np.ones(11), 1.0),
                                  kp=1.0, kd=1.0)
    with pytest.raises(InputError, match=r"q0: expected 12 values \(nq = 12"):
        rd.simulate(tree, q[:6], duration=0.1)
    with pytest.raises(InputError, match="qd0: expected 11 values"):
        rd.simulate(tree, q, np.zeros(5), duration=0.1)


def test_the_implicit_methods_integrate_on_the_manifold(tree):
    """Implicit Euler in the velocity (q_{k+1} = q_k ⊕ dt v_{k+1}) converges at first order
    to a tight adaptive run, Radau agrees with it, and both keep the quaternion unit."""
    rng = np.random.default_rng(1)
    q0 = tree.integrate(tree.neutral(), rng.normal(size=tree.nv) * 0.5)
    v0 = rng.normal(size=tree.nv) * 0.3
    reference = rd.simulate(tree, q0, v0, duration=0.1, rtol=1e-11, atol=1e-11, progress=False)
    errors = []
    for dt in (0.01, 0.005):
        run = rd.simulate(tree, q0, v0, duration=0.1, dt=dt, method="implicit-euler",
                          progress=False)
        np.testing.assert_allclose(np.linalg.norm(run.q[:, 3:7], axis=1), 1, atol=1e-14)
        errors.append(np.abs(run.q[-1] - reference.q[-1]).max())
    assert 1.8 < errors[0] / errors[1] < 2.2  # first order
    radau = rd.simulate(tree, q0, v0, duration=0.1, method="radau", rtol=1e-10, atol=1e-10,
                        progress=False)
    np.testing.assert_allclose(radau.q[-1], reference.q[-1], atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(radau.q[:, 3:7], axis=1), 1, atol=1e-14)


@pytest.mark.slow
def test_floating_rollouts_and_wrenches_run_in_the_compiled_loop(tree, tmp_path):
    """The fixed-step loop integrates a free base on its manifold (the quaternion's rate and
    renormalisation, the SE(3) exponential): compiled, a batch of rollouts equals its single
    runs bit for bit, RK4 agrees with the adaptive method, a constant wrench h_e closes the
    work-energy balance, and the quaternions stay unit."""
    rng = np.random.default_rng(1)
    q0 = tree.integrate(tree.neutral(), rng.normal(size=tree.nv) * 0.5)
    v0 = rng.normal(size=tree.nv) * 0.3
    starts = np.stack([tree.integrate(q0, rng.normal(size=tree.nv) * 0.1) for _ in range(5)])
    batch = rd.simulate(tree, starts, v0, duration=0.1, dt=0.005, method="rk4", progress=False)
    singles = [rd.simulate(tree, q, v0, duration=0.1, dt=0.005, method="rk4", progress=False)
               for q in starts]
    np.testing.assert_array_equal(batch.q, np.stack([s.q for s in singles]))
    np.testing.assert_array_equal(batch.qd, np.stack([s.qd for s in singles]))
    fixed = rd.simulate(tree, q0, v0, duration=0.2, dt=0.002, method="rk4", progress=False)
    adaptive = rd.simulate(tree, q0, v0, duration=0.2, rtol=1e-10, atol=1e-10, progress=False)
    np.testing.assert_allclose(fixed.q[-1], adaptive.q[-1], atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(fixed.q[:, 3:7], axis=1), 1, atol=1e-15)
    # per-rollout parameter values: each rollout is the single run of its own model
    path = write_model(tmp_path, """
        name: flyer
        floating: true
        base: {mass: mB, com: [0, 0, 0.05], inertia: [0.5, 0.6, 0.7, 0, 0, 0]}
        links:
          - {joint: revolute, a: 0.3, alpha: pi/2, mass: 1, com: [-0.1, 0, 0],
             inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
        values: {mB: 5, g: 9.81}
        """)
    flyer = rd.load(path)
    start = flyer.integrate(flyer.neutral(), np.r_[0, 0, 0, 0.2, -0.1, 0.3, 0.5])
    masses = np.array([3.0, 5.0, 8.0])
    many = rd.simulate(flyer, start, 0.1, duration=0.05, dt=0.005, method="rk4",
                       values={"mB": masses}, progress=False)
    np.testing.assert_array_equal(many.q, np.stack([
        rd.simulate(flyer.with_values(mB=m), start, 0.1, duration=0.05, dt=0.005,
                    method="rk4", progress=False).q for m in masses]))
    push = np.array([0.0, 0.0, 5.0, 0.3, 0.0, 0.0])
    pushed = rd.simulate(tree, q0, v0, duration=0.2, dt=0.002, method="rk4", h_e=push,
                         progress=False)
    assert pushed.info["energy_balance"].relative < 1e-6
    assert np.abs(pushed.q[-1] - fixed.q[-1]).max() > 1e-4  # the wrench moved it


def test_load_urdf_with_floating_true_matches_pinocchio():
    """``rd.load(urdf, floating=True)``: the base body from the root link, as Pinocchio's
    free-flyer."""
    path = _example("ur_description/urdf/ur5_robot.urdf")
    robot = rd.load(path, floating=True).without_friction()
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    case = Case(robot, model)
    _close(robot.mass_matrix(case.q), case.pinocchio(lambda q, v, a, t: (
        lambda x: np.triu(x) + np.triu(x, 1).T)(pin.crba(model, case.data, q))), "crba")


@pytest.mark.slow
def test_one_compiled_case(monkeypatch):
    """The Numba kernels of the floating inverse dynamics, Coriolis matrix and Jacobian equal
    the NumPy ones (one link on the base: short programs to compile)."""
    pytest.importorskip("numba")
    chain = replace(tree_chain(), links=tree_chain().links[:2], parents=())
    q = np.zeros((3, 8))
    q[:, 6] = 1
    q[:, 7] = [0.3, -1.0, 2.0]
    v = np.random.default_rng(1).normal(size=(3, 7))
    plain = rd.Robot("one", chain)
    calls = {"inverse_dynamics": lambda r: r.inverse_dynamics(q, v, v),
             "coriolis_matrix": lambda r: r.coriolis_matrix(q, v),
             "jacobian": lambda r: r.jacobian(q, frame="l0")}
    expected = {kind: call(plain) for kind, call in calls.items()}
    monkeypatch.setenv("ROBODYN_BACKEND", "numba")
    compiled = rd.Robot("one", chain)
    for kind, call in calls.items():
        ours = call(compiled)
        assert compiled.runner.kernel(kind if kind != "jacobian" else "jacobian@1").backend \
            == "numba"
        np.testing.assert_allclose(ours, expected[kind], rtol=1e-12, atol=1e-12, err_msg=kind)


@pytest.mark.parametrize("relative", ["solo_description/robots/solo12.urdf",
                                      "panda_description/urdf/panda.urdf",
                                      "hyq_description/robots/hyq_no_sensors.urdf",
                                      "allegro_hand_description/urdf/allegro_right_hand.urdf"])
def test_example_robot_data_trees_on_a_free_flyer_match_pinocchio(relative):
    """``rd.load(urdf, floating=True)`` of whole trees (legs, an arm with fingers, a hand)
    against ``pin.buildModelFromUrdf(urdf, JointModelFreeFlyer())``: rnea, crba, aba,
    gravity, ccrba, the Coriolis matrix and every frame's pose and Jacobian (world axes),
    joints matched by name (robodyn lists them parents first in the
    file's order, Pinocchio depth first)."""
    import warnings

    path = _example(relative)
    with warnings.catch_warnings():  # the Panda's mimic finger: independent, as Pinocchio's
        warnings.simplefilter("ignore")
        robot = rd.load(path, floating=True, mimic="independent").without_friction()
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    data = model.createData()
    names = [model.names[j] for j in range(2, model.njoints)]
    assert all(model.joints[j].nq == 1 for j in range(2, model.njoints))
    perm = np.array([names.index(name) for name in robot.joints[1:]])  # ours k = theirs perm[k]
    case = Case(robot, model)

    def theirs(x, offset):  # robodyn's layout -> Pinocchio's
        out = np.array(x, dtype=float)
        out[..., offset + perm] = x[..., offset:]
        return out

    def ours(x, offset):  # Pinocchio's layout -> robodyn's
        return np.concatenate([x[..., :offset], x[..., offset:][..., perm]], axis=-1)

    rows = []
    for q, v, a, tau in zip(case.q, case.v, case.a, case.tau):
        qp, vp, ap, tp = theirs(q, 7), theirs(v, 6), theirs(a, 6), theirs(tau, 6)
        mass = pin.crba(model, data, qp)
        mass = np.triu(mass) + np.triu(mass, 1).T
        index = np.r_[0:6, 6 + perm]
        ag = pin.ccrba(model, data, qp, vp).copy()
        coriolis = pin.computeCoriolisMatrix(model, data, qp, vp)[np.ix_(index, index)]
        rows.append((ours(pin.rnea(model, data, qp, vp, ap), 6), mass[np.ix_(index, index)],
                     ours(pin.aba(model, data, qp, vp, tp), 6),
                     ours(pin.computeGeneralizedGravity(model, data, qp), 6),
                     ag[:, index], data.hg.vector.copy(), coriolis))
    rnea, crba, aba, gravity, a_g, h_g, coriolis = (np.array(x) for x in zip(*rows))
    _close(robot.coriolis_matrix(case.q, case.v), coriolis, "C")
    frames = [name for name in robot.frames if model.existFrame(name)]
    assert len(frames) >= len(robot.links) - 1  # every link at least
    for q in case.q[:2]:
        pin.computeJointJacobians(model, data, theirs(q, 7))
        pin.updateFramePlacements(model, data)
        for name in frames:
            fid = model.getFrameId(name)
            _close(robot.forward_kinematics(q, frame=name), data.oMf[fid].homogeneous,
                   f"pose of {name}")
            _close(robot.jacobian(q, frame=name), pin.getFrameJacobian(
                model, data, fid, pin.LOCAL_WORLD_ALIGNED)[:, index], f"Jacobian of {name}")
    _close(robot.inverse_dynamics(case.q, case.v, case.a), rnea, "rnea")
    _close(robot.mass_matrix(case.q), crba, "crba")
    m = crba
    tol = max(RTOL, 10 * np.finfo(float).eps * max(np.linalg.cond(x) for x in m))
    np.testing.assert_allclose(robot.forward_dynamics(case.q, case.v, case.tau), aba,
                               rtol=tol, atol=tol * max(1.0, np.abs(aba).max()), err_msg="aba")
    _close(robot.gravity_torques(case.q), gravity, "gravity")
    _close(robot.centroidal_matrix(case.q), a_g, "A_G")
    _close(robot.centroidal_momentum(case.q, case.v), h_g, "h_G")


def test_a_floating_simulation_saves_reads_and_prints_its_nq_and_nv_columns(tree, tmp_path):
    """``q`` has ``nq`` columns (the base's quaternion), ``qd``, ``qdd`` and ``tau`` ``nv``:
    the saved files, the columns and the summary count each as it is."""
    q0 = tree.neutral()
    sim = rd.simulate(tree, q0, np.zeros(tree.nv), duration=0.05, dt=0.01, method="rk4",
                      progress=False)
    assert sim.dof == tree.nv == 11 and sim.q.shape[1] == tree.nq == 12
    columns = sim.columns()
    assert [k for k in columns if k.startswith("q") and not k.startswith("qd")] == \
        [f"q{j + 1}" for j in range(12)]
    assert "qd11" in columns and "qd12" not in columns and "tau11" in columns
    saved = np.load(sim.save(tmp_path / "run.npz"))
    np.testing.assert_array_equal(saved["q7"], sim.q[:, 6])  # the quaternion's w
    table = np.genfromtxt(sim.save(tmp_path / "run.csv"), delimiter=",", names=True)
    np.testing.assert_array_equal(table["qd11"], sim.qd[:, 10])
    assert "Simulation: 11 DOF" in str(sim)
