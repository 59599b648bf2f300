"""Every numeric function on kinematic trees (Chains with ``parents``), against Pinocchio
built from the same random tree and against properties that hold for any tree.

Random trees (tests/dynamics/tree_models.py): random parent arrays, revolute and
prismatic joints about random axes, random placements and physical inertias, named
frames on random links. Pinocchio's ``crba`` and Coriolis matrix assume depth-first
numbering (its ``nvSubtree``), so the oracle trees are depth-first; the property tests
take any parent array (parents listed before children).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tree_models import pinocchio_model, random_states, random_tree, robot_of, y_tree

import robodyn as rd
from robodyn.dynamics.kinematics import frame_table
from robodyn.model.chain import Chain, Frame, Inertial, Transform

RTOL = 1e-9
SEEDS = (1, 2)


def close(a, b, rtol=RTOL):
    """``a == b`` to ``rtol`` relative to the larger of the two's magnitude (and 1e-12)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


def supports(chain: Chain) -> np.ndarray:
    """``S[i, j]``: joint ``i`` supports joint ``j`` or ``j`` supports ``i`` (or ``i == j``)."""
    n = chain.dof
    s = np.zeros((n, n), dtype=bool)
    for j in range(n):
        for i in chain.ancestors(j):
            s[i, j] = s[j, i] = True
    return s


# -- Pinocchio, the independent oracle -------------------------------------------------------
pin = pytest.importorskip("pinocchio")


@pytest.mark.parametrize("seed", SEEDS)
def test_tree_equals_pinocchio(seed, numpy_backend):
    """rnea, crba, aba, the generalized gravity, the Coriolis matrix, and the pose and
    Jacobian of every named frame (base, links, fixed frames) equal Pinocchio's."""
    chain = random_tree(seed, n=7, depth_first=True, frames=3)
    assert not chain.is_serial
    robot = robot_of(chain)
    model, frame_ids = pinocchio_model(chain)
    data = model.createData()
    q, qd, qdd = random_states(chain, 4, seed)
    tau = robot.inverse_dynamics(q, qd, qdd)
    mass = robot.mass_matrix(q)
    fd = robot.forward_dynamics(q, qd, qdd)  # qdd as torques
    coriolis = robot.coriolis_matrix(q, qd)
    gravity = robot.gravity_torques(q)
    names = robot.frames
    poses = {name: robot.forward_kinematics(q, frame=name) for name in names}
    jacobians = {name: robot.jacobian(q, frame=name) for name in names}
    for k in range(len(q)):
        close(tau[k], pin.rnea(model, data, q[k], qd[k], qdd[k]))
        m = pin.crba(model, data, q[k])
        close(mass[k], np.triu(m) + np.triu(m, 1).T)
        close(fd[k], pin.aba(model, data, q[k], qd[k], qdd[k]))
        close(gravity[k], pin.computeGeneralizedGravity(model, data, q[k]))
        close(coriolis[k], pin.computeCoriolisMatrix(model, data, q[k], qd[k]))
        pin.computeJointJacobians(model, data, q[k])
        pin.updateFramePlacements(model, data)
        for name, fid in zip(names, frame_ids, strict=True):
            close(poses[name][k], data.oMf[fid].homogeneous)
            close(jacobians[name][k],
                  pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED))


def test_tree_derivatives_equal_pinocchio(numpy_backend):
    """dtau/dq, dtau/dqd of the inverse dynamics and dqdd/dq, dqdd/dqd, dqdd/dtau of the
    forward dynamics equal Pinocchio's computeRNEADerivatives / computeABADerivatives."""
    chain = random_tree(4, n=6, depth_first=True)
    robot = robot_of(chain)
    model, _ = pinocchio_model(chain)
    data = model.createData()
    q, qd, qdd = random_states(chain, 2, 4)
    d_q, d_qd, d_qdd = robot.inverse_dynamics_derivatives(q, qd, qdd)
    f_q, f_qd, f_tau = robot.forward_dynamics_derivatives(q, qd, qdd)
    for k in range(len(q)):
        r_q, r_v, r_a = pin.computeRNEADerivatives(model, data, q[k], qd[k], qdd[k])
        close(d_q[k], r_q)
        close(d_qd[k], r_v)
        close(d_qdd[k], np.triu(r_a) + np.triu(r_a, 1).T)
        a_q, a_v, a_tau = pin.computeABADerivatives(model, data, q[k], qd[k], qdd[k])
        close(f_q[k], a_q)
        close(f_qd[k], a_v)
        close(f_tau[k], a_tau)


@pytest.mark.slow
def test_tree_on_the_compiled_backend():
    """The Numba kernels give the same tree dynamics as Pinocchio (the backend the users
    run; the other tests use the NumPy backend)."""
    chain = random_tree(5, n=4, depth_first=True)
    robot = robot_of(chain)
    model, frame_ids = pinocchio_model(chain)
    data = model.createData()
    q, qd, qdd = random_states(chain, 3, 5)
    fd = robot.forward_dynamics(q, qd, qdd)
    jac = robot.jacobian(q, frame="frame0")
    for k in range(len(q)):
        close(fd[k], pin.aba(model, data, q[k], qd[k], qdd[k]))
        pin.computeJointJacobians(model, data, q[k])
        pin.updateFramePlacements(model, data)
        close(jac[k], pin.getFrameJacobian(model, data, frame_ids[robot.frame_index("frame0")],
                                           pin.LOCAL_WORLD_ALIGNED))


# -- properties on any tree ------------------------------------------------------------------
#: The property tests draw from a pool of random trees (any parent order, friction on),
#: shared so that each tree's kernels are traced once for all the tests and examples.
POOL_SPECS = ((101, 3), (102, 4), (103, 5), (104, 6))
_POOL: dict = {}


def pooled(k: int) -> rd.Robot:
    if k not in _POOL:
        seed, n = POOL_SPECS[k]
        _POOL[k] = robot_of(random_tree(seed, n=n, friction=True, frames=2))
    return _POOL[k]


TREES = st.sampled_from(range(len(POOL_SPECS)))
SMALL_TREES = st.sampled_from(range(2))
PROPERTY = settings(max_examples=4, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY
@given(chain=TREES, seed=st.integers(0, 1000))
def test_mass_matrix_is_spd_with_the_tree_zeros(chain, seed, numpy_backend):
    """``M`` is symmetric positive definite, and ``M_ij`` is exactly zero where neither
    joint supports the other; so are ``C`` and ``dM/dq``."""
    robot = pooled(chain)
    chain = robot.chain
    q, qd, _ = random_states(chain, 3, seed)
    mass = robot.mass_matrix(q)
    zeros = ~supports(chain)
    assert np.all(mass[:, zeros] == 0.0)
    assert np.all(robot.coriolis_matrix(q, qd)[:, zeros] == 0.0)
    assert np.all(robot.mass_matrix_derivatives(q)[:, zeros, :] == 0.0)
    np.testing.assert_array_equal(mass, np.swapaxes(mass, -1, -2))
    assert np.all(np.linalg.eigvalsh(mass) > 0)


@PROPERTY
@given(chain=TREES, seed=st.integers(0, 1000))
def test_mdot_minus_2c_is_skew(chain, seed, numpy_backend):
    """``dM/dt - 2 C`` is skew-symmetric, ``dM/dt = sum_k dM/dq_k qd_k`` from the derivative
    kernel and from central differences of ``M`` along ``qd``."""
    robot = pooled(chain)
    chain = robot.chain
    q, qd, _ = random_states(chain, 2, seed)
    mdot = np.einsum("...ijk,...k->...ij", robot.mass_matrix_derivatives(q), qd)
    h = 1e-6
    numeric = (robot.mass_matrix(q + h * qd) - robot.mass_matrix(q - h * qd)) / (2 * h)
    close(mdot, numeric, 1e-6)
    skew = mdot - 2 * robot.coriolis_matrix(q, qd)
    close(skew, -np.swapaxes(skew, -1, -2), 1e-12)
    # and C qd is the velocity term of the inverse dynamics
    close(np.einsum("...ij,...j->...i", robot.coriolis_matrix(q, qd), qd),
          robot.inverse_dynamics(q, qd, 0.0) - robot.friction_torques(qd)
          - robot.gravity_torques(q), 1e-12)


@PROPERTY
@given(chain=TREES, seed=st.integers(0, 1000))
def test_forward_dynamics_inverts_inverse_dynamics(chain, seed, numpy_backend):
    """``FD(q, qd, ID(q, qd, qdd)) = qdd`` (friction included), with and without wrenches
    at named frames, and the sparse ``L^T D L`` solve equals a dense solve of ``M``."""
    robot = pooled(chain)
    chain = robot.chain
    q, qd, qdd = random_states(chain, 3, seed)
    close(robot.forward_dynamics(q, qd, robot.inverse_dynamics(q, qd, qdd)), qdd, 1e-9)
    rng = np.random.default_rng(seed)
    names = robot.frames
    h_e = {names[-1]: rng.normal(size=6), names[1]: rng.normal(size=(3, 6))}
    tau = robot.inverse_dynamics(q, qd, qdd, h_e=h_e)
    close(robot.forward_dynamics(q, qd, tau, h_e=h_e), qdd, 1e-9)
    bias = robot.inverse_dynamics(q, qd, 0.0)  # C qd + g + friction
    dense = np.linalg.solve(robot.mass_matrix(q), (qdd - bias)[..., None])[..., 0]
    close(robot.forward_dynamics(q, qd, qdd), dense, 1e-10)


@PROPERTY
@given(chain=TREES, seed=st.integers(0, 1000))
def test_batched_equals_per_sample(chain, seed, numpy_backend):
    """A batch gives each sample's result (one state at a time) exactly."""
    robot = pooled(chain)
    chain = robot.chain
    q, qd, qdd = random_states(chain, 3, seed)
    frame = robot.frames[-1]
    for fn, args in ((robot.inverse_dynamics, (q, qd, qdd)), (robot.mass_matrix, (q,)),
                     (robot.forward_dynamics, (q, qd, qdd)),
                     (robot.coriolis_matrix, (q, qd)),
                     (lambda x: robot.jacobian(x, frame=frame), (q,)),
                     (lambda x: robot.forward_kinematics(x, frame=frame), (q,)),
                     (robot.regressor, (q, qd, qdd))):
        batch = fn(*args)
        for k in range(len(q)):
            np.testing.assert_array_equal(batch[k], fn(*(a[k] for a in args)))


@pytest.mark.parametrize("seed", (6,))
def test_frame_jacobians_are_derivatives_of_the_poses(seed, numpy_backend):
    """For every named frame, ``J qd`` is the frame's velocity: central differences of
    its position along ``qd`` and of its rotation (``omega^ = dR/dt R^T``); the columns of
    the joints that do not support the frame's link are exactly zero."""
    chain = random_tree(seed, n=6, frames=4)
    robot = robot_of(chain)
    q, qd, _ = random_states(chain, 2, seed)
    h = 1e-6
    for name, link, _ in frame_table(chain):
        jac = robot.jacobian(q, frame=name)
        ahead = robot.forward_kinematics(q + h * qd, frame=name)
        behind = robot.forward_kinematics(q - h * qd, frame=name)
        rot = robot.forward_kinematics(q, frame=name)[..., :3, :3]
        v = (ahead[..., :3, 3] - behind[..., :3, 3]) / (2 * h)
        spin = (ahead[..., :3, :3] - behind[..., :3, :3]) / (2 * h) @ np.swapaxes(rot, -1, -2)
        w = np.stack([spin[..., 2, 1], spin[..., 0, 2], spin[..., 1, 0]], axis=-1)
        twist = np.einsum("...ij,...j->...i", jac, qd)
        close(twist[..., :3], v, 1e-7)
        close(twist[..., 3:], w, 1e-7)
        off = [j for j in range(chain.dof) if link < 0 or j not in chain.ancestors(link)]
        assert np.all(jac[..., off] == 0.0)
        # Jdot is the derivative of J along qd
        jdot = robot.jacobian_derivative(q, qd, frame=name)
        numeric = (robot.jacobian(q + h * qd, frame=name)
                   - robot.jacobian(q - h * qd, frame=name)) / (2 * h)
        close(jdot, numeric, 1e-6)


def test_wrenches_at_named_frames(numpy_backend):
    """``h_e={frame: wrench}`` adds ``sum_f J_f^T h_f`` to the torques (each frame's own
    Jacobian); an array keeps meaning the end effector; torque_parts and the derivatives
    take the dict too."""
    chain = random_tree(8, n=5, frames=2, parents=(-1, 0, -1, 2, 3))
    robot = robot_of(chain)
    q, qd, qdd = random_states(chain, 2, 8)
    rng = np.random.default_rng(8)
    w1, w2 = rng.normal(size=(2, 6)), rng.normal(size=6)
    h_e = {"frame1": w1, "link3": w2}
    expected = (robot.inverse_dynamics(q, qd, qdd)
                + np.einsum("...ji,...j->...i", robot.jacobian(q, frame="frame1"), w1)
                + np.einsum("...ji,...j->...i", robot.jacobian(q, frame="link3"), w2))
    close(robot.inverse_dynamics(q, qd, qdd, h_e=h_e), expected, 1e-12)
    parts = robot.torque_parts(q, qd, qdd, h_e=h_e)
    close(parts.total, expected, 1e-12)
    close(parts.external, expected - robot.inverse_dynamics(q, qd, qdd), 1e-12)
    tip = rng.normal(size=6)
    close(robot.inverse_dynamics(q, qd, qdd, h_e=tip),
          robot.inverse_dynamics(q, qd, qdd)
          + np.einsum("...ji,...j->...i", robot.jacobian(q), tip), 1e-12)
    # d/dq of sum J_f^T h_f is in dtau/dq: central differences
    one = {"frame1": w1[0], "link3": w2}
    d_q = robot.inverse_dynamics_derivatives(q[0], qd[0], qdd[0], h_e=one)[0]
    h = 1e-6
    for j in range(chain.dof):
        e = np.eye(chain.dof)[j] * h
        numeric = (robot.inverse_dynamics(q[0] + e, qd[0], qdd[0], h_e=one)
                   - robot.inverse_dynamics(q[0] - e, qd[0], qdd[0], h_e=one)) / (2 * h)
        close(d_q[:, j], numeric, 1e-6)
    f_tau = robot.forward_dynamics_derivatives(q[0], qd[0], expected[0], h_e=one)[2]
    close(f_tau, np.linalg.inv(robot.mass_matrix(q[0])), 1e-9)


@pytest.mark.parametrize("seed", (9,))
def test_energy_balance_in_free_motion(seed, numpy_backend):
    """With joint torques ``tau`` and no friction, ``d/dt (T + U) = qd · tau`` along the
    forward dynamics' motion (central differences along ``(qd, qdd)``)."""
    chain = random_tree(seed, n=5)
    robot = robot_of(chain)
    q, qd, tau = random_states(chain, 3, seed)
    qdd = robot.forward_dynamics(q, qd, tau)
    h = 1e-6

    def energy(q_, qd_):
        return robot.kinetic_energy(q_, qd_) + robot.potential_energy(q_)

    rate = (energy(q + h * qd, qd + h * qdd) - energy(q - h * qd, qd - h * qdd)) / (2 * h)
    close(rate, np.sum(qd * tau, axis=-1), 1e-6)
    close(robot.kinetic_energy(q, qd),
          0.5 * np.einsum("...i,...ij,...j->...", qd, robot.mass_matrix(q), qd), 1e-12)
    # g = dU/dq
    for j in range(chain.dof):
        e = np.eye(chain.dof)[j] * h
        close(robot.gravity_torques(q)[..., j],
              (robot.potential_energy(q + e) - robot.potential_energy(q - e)) / (2 * h), 1e-6)


@PROPERTY
@given(chain=SMALL_TREES, seed=st.integers(0, 1000))
def test_regressor_times_parameters_is_inverse_dynamics(chain, seed, numpy_backend):
    """``Y(q, qd, qdd) pi = ID(q, qd, qdd)`` with friction, and the base regressor
    reproduces it with the base parameters; a link's columns are zero on the rows of the
    joints that do not support it."""
    robot = pooled(chain)
    chain = robot.chain
    q, qd, qdd = random_states(chain, 3, seed)
    _, pi = robot.inertial_parameters()
    y = robot.regressor(q, qd, qdd)
    close(y @ np.asarray(pi, dtype=float), robot.inverse_dynamics(q, qd, qdd), 1e-10)
    for k in range(chain.dof):
        rows = [j for j in range(chain.dof) if j not in chain.ancestors(k)]
        assert np.all(y[..., rows, 10 * k:10 * k + 10] == 0.0)


@pytest.mark.slow
def test_base_parameters_of_a_tree(numpy_backend):
    """The base parameters of a tree (the Y: two branches on one joint) reproduce the
    inverse dynamics, and least squares on noise-free data recovers them."""
    robot = robot_of(y_tree())
    chain = robot.chain
    base = robot.base_parameters()
    q, qd, qdd = random_states(chain, 40, 11)
    yb = robot.regressor_base(q, qd, qdd)
    assert np.linalg.matrix_rank(yb.reshape(-1, yb.shape[-1])) == yb.shape[-1]
    tau = robot.inverse_dynamics(q, qd, qdd)
    fit, *_ = np.linalg.lstsq(yb.reshape(-1, yb.shape[-1]), tau.reshape(-1), rcond=None)
    close(yb @ fit, tau, 1e-9)
    close(fit, base.values, 1e-7)


def test_serial_chain_frames_are_unchanged(numpy_backend):
    """On a serial chain, the default frame is the end effector as before; the last link
    named as a frame is the tip without the tool transform; ``robot.joints`` is the q
    order."""
    robot = rd.load("puma560")
    q = np.array([0.3, -0.7, 0.2, 0.5, -0.4, 1.1])
    last = robot.links[-1].name
    assert robot.frames == ("base", *[link.name for link in robot.links])
    assert robot.joints == tuple(link.joint.name or link.name for link in robot.links)
    tip = robot.forward_kinematics(q)
    tool = np.eye(4)
    tool[:3, :3] = np.array(robot.numeric_chain.tip.rotation, dtype=float)
    tool[:3, 3] = np.array(robot.numeric_chain.tip.translation, dtype=float)
    close(robot.forward_kinematics(q, frame=last) @ tool, tip, 1e-14)
    np.testing.assert_array_equal(robot.forward_kinematics(q, frame="base"), np.eye(4))
    np.testing.assert_array_equal(robot.jacobian(q, frame="base"), np.zeros((6, 6)))
    if np.allclose(tool[:3, 3], 0):  # the tip at the last link's origin: the same Jacobian
        close(robot.jacobian(q, frame=last), robot.jacobian(q), 1e-14)


def test_bad_frames_are_named(numpy_backend):
    chain = random_tree(12, n=3, frames=1)
    robot = robot_of(chain)
    q = np.zeros(3)
    with pytest.raises(rd.ModelError, match=r"'lnk1' is not a frame.*did you mean 'link1'"):
        robot.jacobian(q, frame="lnk1")
    with pytest.raises(rd.ModelError, match="robot.frames: base, link0"):
        robot.forward_kinematics(q, frame="nowhere")
    with pytest.raises(rd.InputError, match="frame: expected a frame name"):
        robot.jacobian(q, frame=3)
    with pytest.raises(rd.InputError, match="h_e: an empty dict"):
        robot.inverse_dynamics(q, q, q, h_e={})
    with pytest.raises(rd.InputError, match=r"h_e\['link1'\]: expected a wrench of shape"):
        robot.inverse_dynamics(q, q, q, h_e={"link1": [1.0, 2.0]})
    with pytest.raises(rd.InputError, match=r"h_e\['link1'\]: expected real numbers"):
        robot.inverse_dynamics(q, q, q, h_e={"link1": ["a"] * 6})
    with pytest.raises(rd.InputError, match=r"h_e\['link1'\]: a value is NaN or infinite"):
        robot.inverse_dynamics(q, q, q, h_e={"link1": [0, np.nan, 0, 0, 0, 0]})
    with pytest.raises(rd.InputError, match="frame: expected a frame name"):
        robot.inverse_dynamics(q, q, q, h_e={3: np.zeros(6)})
    with pytest.raises(rd.ModelError, match="'hand' is not a frame"):
        robot.forward_dynamics(q, q, q, h_e={"hand": np.zeros(6)})
    with pytest.raises(rd.InputError, match="batch shapes do not broadcast"):
        robot.inverse_dynamics(q, q, q, h_e={"link1": np.zeros((2, 6)),
                                             "link2": np.zeros((3, 6))})


def test_a_frame_on_no_link_is_named(numpy_backend):
    chain = random_tree(16, n=3, frames=1)
    bad = replace(chain, frames=(Frame("hand", 7, Transform()),))
    with pytest.raises(rd.ModelError, match=r"frames\[0\] \('hand'\): link 7 is not the index"):
        robot_of(bad).frames  # noqa: B018


def test_a_joint_that_moves_no_mass_is_named(numpy_backend):
    """A tree whose leaf link is massless has a singular ``M``: the sparse factorisation
    names that joint."""
    chain = random_tree(13, n=4, parents=(-1, 0, 0, 1), prismatic=0.0, frames=0)
    links = list(chain.links)
    links[2] = type(links[2])(links[2].name, links[2].joint, Inertial())
    robot = robot_of(Chain(tuple(links), chain.gravity, parents=chain.parents))
    with pytest.raises(rd.ModelError, match=r"joint 3 \(j2\)"):
        robot.forward_dynamics(np.zeros(4), np.zeros(4), np.zeros(4))


def test_articulated_body_algorithm_equals_pinocchio():
    """ABA (robodyn.dynamics.aba, the alternative measured in benchmarks/bench_trees.py)
    on floats equals Pinocchio's aba, and the kernels' forward dynamics."""
    import math
    from types import SimpleNamespace

    from robodyn.dynamics.aba import articulated_body

    ops = SimpleNamespace(sin=math.sin, cos=math.cos, sqrt=math.sqrt, name="float",
                          sign=lambda x: float(np.sign(x)))
    chain = random_tree(14, n=7, depth_first=True)
    model, _ = pinocchio_model(chain)
    data = model.createData()
    q, qd, tau = random_states(chain, 3, 14)
    for k in range(len(q)):
        qdd = articulated_body(chain, list(q[k]), list(qd[k]), list(tau[k]), ops)
        close(qdd, pin.aba(model, data, q[k], qd[k], tau[k]))


@pytest.mark.parametrize("kind", ["jacobian@99", "jacobian@-1", "jacobian@01", "jacobian@",
                                  "jacobian@1,2", "mass_matrix@1", "inverse_dynamics_contact@1,1",
                                  "inverse_dynamics_contact@x", "inverse_dynamics@1"])
def test_a_kind_that_is_no_frame_kernel_is_named(kind, numpy_backend):
    """The runner's per-frame kinds (``"jacobian@3"``) are checked against the model's
    frames before anything is traced."""
    robot = robot_of(random_tree(15, n=3, frames=1))
    with pytest.raises(rd.InputError, match="is not an entry of the kernel registry"):
        robot.runner.run(kind, np.zeros(3))
