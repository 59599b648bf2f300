"""Real arms from URDF against Pinocchio, live: the same file read by both, compared at
50 random states on every numeric function.

Robots: the Franka Panda (fingers locked at 0, tip ``panda_hand``), the UR5 (tip ``tool0``)
and the double pendulum of example-robot-data, and ``data/urdf/rpc_branch.urdf`` (prismatic,
continuous and unaligned joints, rotated inertial frames, a locked side branch); with default
arguments (the chain's end is the last movable joint's child) the UR5, the UR10, the Kinova
Jaco (fingers on fixed joints) and the TALOS left arm (six arm joints and the gripper).

Pinocchio applies no joint friction, so ours is removed (``inverse_dynamics -
friction_torques``, ``forward_dynamics`` given ``tau + friction_torques``) and friction is
checked on its own against the ``damping``/``friction`` Pinocchio reads from the same files.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import TEST_DATA
from robodyn.model import builtin as models

pin = pytest.importorskip("pinocchio")

DATA = TEST_DATA / "urdf"
N = 50
RTOL = 1e-9


def example_robot_data(relative: str) -> Path:
    """A URDF of example-robot-data (:func:`robodyn.model.builtin.example_robot_data`); the test
    is skipped when the package is not installed."""
    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return models.example_robot_data(relative)


def pinocchio_locked(full, frame: str) -> tuple[str, ...]:
    """The joints of Pinocchio's full model of a file that do not move the frame ``frame``
    (not in the support of its parent joint): those a chain from the base to that frame
    must lock. Pinocchio's own answer, from the same URDF."""
    fid = full.getFrameId(frame)
    assert fid < full.nframes, f"Pinocchio has no frame {frame!r}"
    support = set(full.supports[full.frames[fid].parentJoint])
    return tuple(full.names[j] for j in range(1, full.njoints) if j not in support)


def locked_of(robot) -> tuple[str, ...]:
    """The joints the URDF loader locked (``robot.locked``, or in the provenance record
    where the loader-specific fields are moving)."""
    provenance = getattr(robot, "provenance", None)
    if provenance is not None and hasattr(provenance, "locked"):
        return tuple(provenance.locked)
    return tuple(robot.locked)


@dataclass(frozen=True)
class Case:
    file: str  # under example-robot-data's robots/, or "data/..." for ours
    tip: str | None
    frame: str  # Pinocchio's name of the tip frame


CASES = {
    "panda": Case("panda_description/urdf/panda.urdf", "panda_hand", "panda_hand"),
    "ur5": Case("ur_description/urdf/ur5_robot.urdf", "tool0", "tool0"),
    "double_pendulum": Case("double_pendulum_description/urdf/double_pendulum.urdf", None,
                            "link2"),
    "rpc_branch": Case("data/rpc_branch.urdf", "tool", "tool"),
    # default arguments: the chain ends at the last movable joint's child (issue 8, part 3)
    "ur5_default": Case("ur_description/urdf/ur5_robot.urdf", None, "wrist_3_link"),
    "ur10_default": Case("ur_description/urdf/ur10_robot.urdf", None, "wrist_3_link"),
    "kinova_default": Case("kinova_description/robots/kinova.urdf", None, "j2s6s200_link_6"),
    "talos_left_arm_default": Case("talos_data/robots/talos_left_arm.urdf", None,
                                   "gripper_left_motor_double_link"),
}


class Pair:
    """Our robot and Pinocchio's reduced model of the same file, with random states."""

    def __init__(self, case: Case):
        self.case = case
        path = DATA / case.file[5:] if case.file.startswith("data/") \
            else example_robot_data(case.file)
        self.robot = rd.load(path, tip=case.tip)
        if case.tip is None:  # the default end: the frame Pinocchio is compared at
            assert f"to {case.frame!r}" in self.robot.description
        full = pin.buildModelFromUrdf(str(path))
        # Pinocchio decides which joints leave the chain; ours must be the same ones
        self.pin_locked = pinocchio_locked(full, case.frame)
        model = full
        if self.pin_locked:
            ids = [full.getJointId(name) for name in self.pin_locked]
            model = pin.buildReducedModel(full, ids, pin.neutral(full))
        model.gravity = pin.Motion(np.array([0.0, 0, -9.81, 0, 0, 0]))
        self.model, self.data = model, model.createData()
        self.frame = model.getFrameId(case.frame)
        assert self.frame < model.nframes, case.frame
        assert model.nv == self.robot.dof
        assert [model.names[i] for i in range(1, model.njoints)] == \
            [link.joint.name for link in self.robot.links]

        rng = np.random.default_rng(2024)
        dof = self.robot.dof
        q = rng.normal(size=(N, dof))
        for j, link in enumerate(self.robot.links):
            limits = link.joint.limits
            if limits is not None and np.isfinite(limits[:2]).all() and limits[0] < limits[1]:
                q[:, j] = rng.uniform(limits[0], limits[1], N)
        self.q, self.qd, self.qdd = q, rng.normal(size=(N, dof)), rng.normal(size=(N, dof))
        self.tau = rng.normal(size=(N, dof)) * 5

    def pin_q(self, q: np.ndarray) -> np.ndarray:
        """Pinocchio's configuration: a continuous joint is ``(cos q, sin q)``."""
        out = []
        for i in range(1, self.model.njoints):
            value = q[self.model.joints[i].idx_v]
            nq = self.model.joints[i].nq
            out.extend([np.cos(value), np.sin(value)] if nq == 2 else [value])
        return np.array(out)

    def reference(self, name: str) -> np.ndarray:
        """Pinocchio's result for every sample, stacked."""
        model, data = self.model, self.data
        out = []
        for q, qd, qdd, tau in zip(self.q, self.qd, self.qdd, self.tau, strict=True):
            qp = self.pin_q(q)
            if name == "inverse_dynamics":
                out.append(pin.rnea(model, data, qp, qd, qdd).copy())
            elif name == "mass_matrix":
                m = pin.crba(model, data, qp)
                out.append(np.triu(m) + np.triu(m, 1).T)
            elif name == "coriolis_matrix":
                out.append(pin.computeCoriolisMatrix(model, data, qp, qd).copy())
            elif name == "gravity_torques":
                out.append(pin.computeGeneralizedGravity(model, data, qp).copy())
            elif name == "forward_dynamics":
                out.append(pin.aba(model, data, qp, qd, tau).copy())
            elif name == "forward_kinematics":
                pin.framesForwardKinematics(model, data, qp)
                out.append(data.oMf[self.frame].homogeneous.copy())
            elif name == "jacobian":
                out.append(pin.computeFrameJacobian(model, data, qp, self.frame,
                                                    pin.LOCAL_WORLD_ALIGNED).copy())
        return np.array(out)

    def ours(self, name: str, sample=slice(None)) -> np.ndarray:
        """Our result (one batched call), friction removed where Pinocchio has none."""
        r = self.robot
        q, qd, qdd, tau = self.q[sample], self.qd[sample], self.qdd[sample], self.tau[sample]
        if name == "inverse_dynamics":
            return r.inverse_dynamics(q, qd, qdd) - r.friction_torques(qd)
        if name == "forward_dynamics":
            return r.forward_dynamics(q, qd, tau + r.friction_torques(qd))
        if name == "coriolis_matrix":
            return r.coriolis_matrix(q, qd)
        return getattr(r, name)(q)


FUNCTIONS = ["inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
             "forward_dynamics", "forward_kinematics", "jacobian"]


@pytest.fixture(scope="module", params=list(CASES))
def pair(request):
    return Pair(CASES[request.param])


def _assert_close(ours: np.ndarray, reference: np.ndarray, what: str) -> None:
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(ours, reference, rtol=RTOL, atol=RTOL * scale, err_msg=what)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_batch_matches_pinocchio(pair, name):
    """One ``(50, dof)`` call against Pinocchio sample by sample."""
    ours = pair.ours(name)
    assert ours.shape[0] == N
    _assert_close(ours, pair.reference(name), name)


def test_single_state_matches_the_batch(pair):
    for name in FUNCTIONS:
        np.testing.assert_allclose(pair.ours(name, 7), pair.ours(name)[7], rtol=1e-14,
                                   atol=1e-14, err_msg=name)


def test_locked_joints_are_those_pinocchio_removes(pair):
    """The joints we lock are exactly those that do not move the tip frame in Pinocchio's
    model of the same file (the fingers of the Panda, the side branch of rpc_branch)."""
    assert sorted(locked_of(pair.robot)) == sorted(pair.pin_locked)


def test_friction_as_pinocchio_reads_it(pair):
    """``<dynamics damping friction>``: Pinocchio keeps them in ``model.damping`` and
    ``model.friction`` (and applies neither); ours become the friction torques."""
    links = pair.robot.numeric_chain.links
    np.testing.assert_array_equal([link.friction.viscous for link in links], pair.model.damping)
    np.testing.assert_array_equal([link.friction.coulomb for link in links], pair.model.friction)
    expected = pair.model.damping * pair.qd + pair.model.friction * np.sign(pair.qd)
    np.testing.assert_allclose(pair.robot.friction_torques(pair.qd), expected, rtol=1e-15)
