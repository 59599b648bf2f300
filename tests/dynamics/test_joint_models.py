"""Every joint type under every algorithm: trees mixing free, spherical (ball), revolute and
prismatic joints, against Pinocchio's joint models (``JointModelFreeFlyer``,
``JointModelSpherical``, the unaligned revolute and prismatic joints) and against the
properties of the equation of motion (``M`` symmetric positive definite, ``dM/dt - 2C``
skew, forward dynamics inverting inverse dynamics), on the scalar algorithms run on floats."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robodyn.core.errors import ModelError
from robodyn.dynamics.coriolis import coriolis_matrix
from robodyn.dynamics.crba import mass_matrix
from robodyn.dynamics.derivatives import (
    dual_id_jacobians,
    forward_dynamics_derivatives,
    jacobian_derivative,
    mass_matrix_derivatives,
)
from robodyn.dynamics.energy import kinetic_energy, potential_energy
from robodyn.dynamics.forward_dynamics import forward_dynamics
from robodyn.dynamics.kinematics import frame_names, jacobian
from robodyn.dynamics.regressor import parameter_columns, regressor_full, standard_parameters
from robodyn.dynamics.rnea import rnea
from robodyn.dynamics.rnea_derivatives import rnea_derivatives
from robodyn.model.chain import Chain, Inertial, Joint, Link, Transform, rpy_rotation
from robodyn.model.joints import JOINT_TYPES, joint_model

FLOATS = SimpleNamespace(sin=math.sin, cos=math.cos, sqrt=math.sqrt, sign=np.sign,
                         name="float")


def random_chain(rng, kinds, parents) -> Chain:
    """A tree of links with the joint types ``kinds``, random placements, axes and bodies."""
    links = []
    for k, kind in enumerate(kinds):
        axis = rng.normal(size=3)
        axis = tuple(axis / np.linalg.norm(axis))
        placement = Transform(rpy_rotation(*rng.normal(size=3)), tuple(rng.normal(size=3) * 0.3))
        root = rng.normal(size=(3, 3))
        inertia = root @ root.T + 0.05 * np.eye(3)
        body = Inertial(float(rng.uniform(0.5, 2.0)), tuple(rng.normal(size=3) * 0.2),
                        tuple(map(tuple, inertia)))
        links.append(Link(f"link{k}", Joint(kind, axis, 0, placement, name=f"joint{k}"), body))
    return Chain(tuple(links), (0.0, 0.0, -9.81), parents=tuple(parents))


def random_state(rng, chain: Chain):
    q = chain.integrate(chain.neutral(), rng.normal(size=chain.nv))
    return q, rng.normal(size=chain.nv), rng.normal(size=chain.nv)


def test_the_joint_models_count_their_values():
    assert set(JOINT_TYPES) >= {"revolute", "prismatic", "spherical", "free"}
    assert (joint_model("spherical").nq, joint_model("spherical").nv) == (4, 3)
    assert (joint_model("free").nq, joint_model("free").nv) == (7, 6)
    chain = random_chain(np.random.default_rng(0), ["free", "revolute", "spherical"], [-1, 0, 1])
    assert (chain.nq, chain.nv) == (12, 10)
    assert chain.q_offsets() == (0, 7, 8) and chain.v_offsets() == (0, 6, 7)
    assert chain.velocity_parents() == (-1, 0, 1, 2, 3, 4, 5, 6, 7, 8)
    assert chain.neutral().tolist() == [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]


def test_an_unknown_joint_type_is_a_clear_error():
    with pytest.raises(ModelError, match="not a joint type; one of revolute, prismatic"):
        Joint("helical")


pin = pytest.importorskip("pinocchio", reason="Pinocchio (the oracle) is a dev dependency")


def pinocchio_model(chain: Chain):
    model, ids = pin.Model(), []
    for link, parent in zip(chain.links, chain.parent_indices, strict=True):
        joint = link.joint
        axis = np.array(joint.axis, dtype=float)
        kind = {"free": pin.JointModelFreeFlyer, "spherical": pin.JointModelSpherical}
        jm = kind[joint.type]() if joint.type in kind else (
            pin.JointModelRevoluteUnaligned(axis) if joint.type == "revolute"
            else pin.JointModelPrismaticUnaligned(axis))
        place = pin.SE3(np.array(joint.placement.rotation, dtype=float),
                        np.array(joint.placement.translation, dtype=float))
        jid = model.addJoint(0 if parent < 0 else ids[parent], jm, place, joint.name)
        body = link.inertial
        model.appendBodyToJoint(jid, pin.Inertia(body.mass, np.array(body.com),
                                                 np.array(body.inertia)), pin.SE3.Identity())
        ids.append(jid)
    model.gravity.linear[:] = chain.gravity
    return model, ids


TREES = [
    (["free", "revolute", "spherical", "prismatic", "spherical", "revolute"],
     [-1, 0, 1, 2, 0, 4]),
    (["spherical", "spherical", "revolute"], [-1, 0, 1]),      # a fixed base, ball joints
    (["free"], [-1]),                                           # one free body (a drone)
    (["free", "revolute", "free", "prismatic"], [-1, 0, -1, 2]),  # an arm and a free object
]


def _sym(m):
    return np.triu(m) + np.triu(m, 1).T


@pytest.mark.parametrize("kinds, parents", TREES)
def test_every_algorithm_equals_pinocchio_on_every_joint_type(kinds, parents):
    rng = np.random.default_rng(len(kinds))
    chain = random_chain(rng, kinds, parents)
    model, ids = pinocchio_model(chain)
    data = model.createData()
    q, v, a = random_state(rng, chain)
    assert chain.nq == model.nq and chain.nv == model.nv
    tau = pin.rnea(model, data, q, v, a).copy()
    args = (list(q), list(v), list(a))
    np.testing.assert_allclose(rnea(chain, *args, FLOATS), tau, rtol=0, atol=1e-11)
    m = _sym(pin.crba(model, data, q))
    np.testing.assert_allclose(mass_matrix(chain, list(q), FLOATS), m, rtol=0, atol=1e-11)
    np.testing.assert_allclose(coriolis_matrix(chain, list(q), list(v), FLOATS),
                               pin.computeCoriolisMatrix(model, data, q, v), rtol=0, atol=1e-11)
    np.testing.assert_allclose(forward_dynamics(chain, list(q), list(v), list(tau), FLOATS), a,
                               rtol=0, atol=1e-10)
    assert kinetic_energy(chain, list(q), list(v), FLOATS) == pytest.approx(
        pin.computeKineticEnergy(model, data, q, v), rel=1e-12)
    assert potential_energy(chain, list(q), FLOATS) == pytest.approx(
        pin.computePotentialEnergy(model, data, q), rel=1e-12, abs=1e-12)
    d_q, d_v, m2 = rnea_derivatives(chain, *args, FLOATS)
    pin.computeRNEADerivatives(model, data, q, v, a)
    np.testing.assert_allclose(d_q, data.dtau_dq, rtol=0, atol=1e-10)
    np.testing.assert_allclose(d_v, data.dtau_dv, rtol=0, atol=1e-10)
    np.testing.assert_allclose(m2, m, rtol=0, atol=1e-11)
    dual_q, dual_v = dual_id_jacobians(chain, *args, FLOATS, h_e=[0.0] * 6)
    np.testing.assert_allclose(dual_q, data.dtau_dq, rtol=0, atol=1e-10)
    np.testing.assert_allclose(dual_v, data.dtau_dv, rtol=0, atol=1e-10)
    pin.computeABADerivatives(model, data, q, v, tau)
    fd_q, fd_v, fd_tau = forward_dynamics_derivatives(chain, list(q), list(v), list(tau), FLOATS)
    np.testing.assert_allclose(fd_q, data.ddq_dq, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fd_v, data.ddq_dv, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fd_tau, _sym(data.Minv), rtol=0, atol=1e-9)
    y = np.array(regressor_full(chain, *args, FLOATS))
    cols, _ = parameter_columns(chain)
    np.testing.assert_allclose(y[:, cols] @ np.array(standard_parameters(chain), dtype=float),
                               tau, rtol=0, atol=1e-10)
    pin.computeJointJacobians(model, data, q)
    pin.computeJointJacobiansTimeVariation(model, data, q, v)
    names = frame_names(chain)
    for k, jid in enumerate(ids):
        frame = names.index(f"link{k}")
        np.testing.assert_allclose(
            jacobian(chain, list(q), FLOATS, frame=frame),
            pin.getJointJacobian(model, data, jid, pin.LOCAL_WORLD_ALIGNED), rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            jacobian_derivative(chain, list(q), list(v), FLOATS, frame=frame),
            pin.getJointJacobianTimeVariation(model, data, jid, pin.LOCAL_WORLD_ALIGNED),
            rtol=0, atol=1e-11)
    # dM/dq along each velocity coordinate, against central differences on the manifold
    dm = np.array(mass_matrix_derivatives(chain, list(q), FLOATS))
    for k in range(chain.nv):
        step = np.zeros(chain.nv)
        step[k] = 1e-6
        plus = _sym(pin.crba(model, data, pin.integrate(model, q, step)))
        minus = _sym(pin.crba(model, data, pin.integrate(model, q, -step)))
        np.testing.assert_allclose(dm[:, :, k], (plus - minus) / 2e-6, rtol=0, atol=1e-7)
    np.testing.assert_allclose(chain.integrate(q, v, 0.3), pin.integrate(model, q, 0.3 * v),
                               rtol=0, atol=1e-14)


@st.composite
def trees(draw):
    n = draw(st.integers(1, 6))
    kinds = [draw(st.sampled_from(JOINT_TYPES)) for _ in range(n)]
    parents = [draw(st.integers(-1, i - 1)) for i in range(n)]
    return kinds, parents, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=40, deadline=None)
@given(trees())
def test_mixed_trees_keep_the_properties_of_the_equation_of_motion(tree):
    kinds, parents, seed = tree
    rng = np.random.default_rng(seed)
    chain = random_chain(rng, kinds, parents)
    q, v, a = random_state(rng, chain)
    m = np.array(mass_matrix(chain, list(q), FLOATS), dtype=float)
    np.testing.assert_array_equal(m, m.T)
    assert np.linalg.eigvalsh(m).min() > 0
    # dM/dt along the motion (central differences of M(q ⊕ v t)) minus 2C is skew-symmetric
    h = 1e-6
    m_dot = (np.array(mass_matrix(chain, list(chain.integrate(q, v, h)), FLOATS))
             - np.array(mass_matrix(chain, list(chain.integrate(q, v, -h)), FLOATS))) / (2 * h)
    c = np.array(coriolis_matrix(chain, list(q), list(v), FLOATS))
    skew = m_dot - 2 * c
    np.testing.assert_allclose(skew, -skew.T, rtol=0, atol=1e-6 * max(1.0, np.abs(m).max()))
    # C v is the velocity term of inverse dynamics; forward dynamics inverts inverse dynamics
    zeros = [0.0] * chain.nv
    bias = np.array(rnea(chain, list(q), list(v), zeros, FLOATS)) \
        - np.array(rnea(chain, list(q), zeros, zeros, FLOATS))
    np.testing.assert_allclose(c @ v, bias, rtol=0, atol=1e-9 * max(1.0, np.abs(bias).max()))
    tau = rnea(chain, list(q), list(v), list(a), FLOATS)
    np.testing.assert_allclose(forward_dynamics(chain, list(q), list(v), tau, FLOATS), a,
                               rtol=0, atol=1e-8)
    # the kinetic energy is 1/2 v^T M v
    assert kinetic_energy(chain, list(q), list(v), FLOATS) == pytest.approx(v @ m @ v / 2,
                                                                           rel=1e-10)
