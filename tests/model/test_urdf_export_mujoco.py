"""``to_urdf`` that other tools load as they are (issue 18): every built-in model's export
loads in MuJoCo (which reads URDF itself and refuses bodies that are not physical), and
MuJoCo's inverse dynamics (``mj_inverse``) and mass matrix (``mj_fullM``) equal
robodyn's, friction and armature off, gravity the same.

Planar inertias ``[0, 0, I]`` are written with ``I/2`` about the axes normal to the joint
axis: no effect on the dynamics, so MuJoCo equals the model itself. The PUMA 560's link
3 (0.066 + 0.0125 < 0.086) is felt in every direction: it is written with 0.0075 kg m^2
more about its axis of least moment, which changes M (by at most that much an entry) and
not g; MuJoCo equals the model with the inertia as written."""

from __future__ import annotations

import math
import warnings
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES, random_states
from robodyn.model.chain import Motor, folded
from robodyn.model.urdf_export import MIN_INERTIA, UNBOUNDED, writable_chain

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the reference (pip install mujoco, "
                             "in the dev extra)")

pytestmark = pytest.mark.usefixtures("numpy_backend")

N = 8
RTOL = 1e-9


def _rigid(name: str) -> rd.Robot:
    """The built-in model without friction and without motor (armature) inertia."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)  # the PUMA's data
        robot = rd.load(name).without_friction()
    chain = replace(robot.chain, links=tuple(replace(link, motor=Motor())
                                             for link in robot.chain.links))
    return robot.with_chain(chain)


def _mujoco(robot: rd.Robot, text: str):
    model = mujoco.MjModel.from_xml_string(text)
    g = float(np.linalg.norm(robot.numeric_chain.gravity))
    model.opt.gravity[:] = [0.0, 0.0, -g]  # the export turns the base so gravity is -z
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT  # limits: not forces
    return model, mujoco.MjData(model)


def _full_mass_matrix(model, data, out) -> None:
    """``mj_fullM``: ``(model, data, dst)`` in MuJoCo 4, ``(model, dst, qM)`` before."""
    try:
        mujoco.mj_fullM(model, data, out)
    except TypeError:
        mujoco.mj_fullM(model, out, data.qM)


def _close(actual, expected, what):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=RTOL * scale, err_msg=what)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_builtin_export_loads_in_mujoco_with_the_same_dynamics(name):
    robot = _rigid(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = robot.to_urdf()
    felt = [str(w.message) for w in caught if issubclass(w.category, rd.UrdfWarning)]
    model, data = _mujoco(robot, text)
    assert model.nq == model.nv == robot.dof  # a continuous or revolute joint: one qpos
    assert [model.joint(j).name for j in range(model.njnt)] == \
        [link.joint.name for link in robot.links]
    kinds = {"revolute": mujoco.mjtJoint.mjJNT_HINGE, "prismatic": mujoco.mjtJoint.mjJNT_SLIDE}
    assert list(model.jnt_type) == [kinds[link.joint.type] for link in robot.links]

    written, changes = writable_chain(robot.numeric_chain)
    as_written = robot.with_chain(written)
    q, qd, qdd = random_states(robot, N, seed=5)
    tau, mass = as_written.inverse_dynamics(q, qd, qdd), as_written.mass_matrix(q)
    full = np.zeros((robot.dof, robot.dof))
    for k in range(N):
        data.qpos[:], data.qvel[:], data.qacc[:] = q[k], qd[k], qdd[k]
        mujoco.mj_inverse(model, data)
        _close(data.qfrc_inverse, tau[k], f"{name}: mj_inverse, sample {k}")
        _full_mass_matrix(model, data, full)
        _close(full, mass[k], f"{name}: mj_fullM, sample {k}")

    # what the written bodies change: nothing where the arm cannot feel it
    effects = {i: effect for i, (_, effect) in changes.items()}
    np.testing.assert_allclose(as_written.gravity_torques(q), robot.gravity_torques(q),
                               rtol=0, atol=1e-10)
    change = np.abs(as_written.mass_matrix(q) - robot.mass_matrix(q)).max()
    if name == "puma560":
        assert [round(e, 12) for e in effects.values() if e > 1e-9] == [0.0075]
        assert 1e-3 < change <= 0.0075 * (1 + 1e-9)  # felt, and at most as said
        assert felt == ["puma560: URDF inertia made physical: link3 +0.0075 kg m^2 in M "
                        "(docs/defaults.md)"]  # one line, of at most 100 with "robodyn: warning: "
    else:
        assert all(e <= MIN_INERTIA for e in effects.values()), effects
        assert change <= 10 * MIN_INERTIA
        assert not felt
    if name.startswith("planar") and name != "planar-2r-point-mass":
        assert changes and all(e == 0.0 for e in effects.values())  # [0, 0, I] -> [I/2, I/2, I]
        for i in changes:
            tensor = np.array(written.links[i].inertial.inertia)
            link = robot.numeric_chain.links[i]
            # the planar moment: about the plane's normal, z of an arm link, y of a finger
            # turned by alpha = -+pi/2 (point masses folded into the one body)
            moments = np.diag(np.array(folded(link).inertial.inertia, dtype=float))
            k = int(np.argmax(np.abs(moments)))
            assert tensor[k, k] == pytest.approx(moments[k], rel=1e-15)
            if not link.point_masses:
                expected = np.full(3, moments[k] / 2)
                expected[k] = moments[k]
                np.testing.assert_array_equal(tensor, np.diag(expected))
            xx, yy, zz = np.diag(tensor)  # physical: the triangle inequality holds
            assert xx + yy >= zz and xx + zz >= yy and yy + zz >= xx
        comments = [c for c in text.splitlines() if "written as" in c]
        assert len(comments) == len(changes) and all("no effect" in c for c in comments)


def test_unlimited_revolute_joints_are_continuous_or_wide_revolute():
    pin = pytest.importorskip("pinocchio")
    robot = _rigid("planar-2r")
    continuous = ET.fromstring(robot.to_urdf())
    assert [j.get("type") for j in continuous.findall("joint") if j.get("type") != "fixed"] \
        == ["continuous", "continuous"]
    assert pin.buildModelFromXML(robot.to_urdf()).nq == 4  # (cos q, sin q) per joint
    text = robot.to_urdf(unlimited="revolute")
    joints = [j for j in ET.fromstring(text).findall("joint") if j.get("type") != "fixed"]
    assert [j.get("type") for j in joints] == ["revolute", "revolute"]
    for joint in joints:
        limit = joint.find("limit")
        assert float(limit.get("lower")) == -UNBOUNDED and float(limit.get("upper")) == UNBOUNDED
    assert "no position, velocity, effort limit" in text
    assert pin.buildModelFromXML(text).nq == 2
    model, data = _mujoco(robot, text)
    assert model.nq == 2 and list(model.jnt_range[:, 1]) == [UNBOUNDED, UNBOUNDED]
    # a joint with limits keeps them either way
    with pytest.warns(rd.UrdfWarning, match="link3"):
        puma = ET.fromstring(_rigid("puma560").to_urdf(unlimited="revolute"))
    first = next(j for j in puma.findall("joint") if j.get("name") == "joint1")
    assert float(first.find("limit").get("upper")) == pytest.approx(math.radians(160), rel=1e-15)
    with pytest.raises(rd.InputError, match=r"unlimited: 'hinge' is not 'continuous' or "
                                            r"'revolute'"):
        robot.to_urdf(unlimited="hinge")


TWO_LINK = [(1.0, 0, 0, 0), (0.5, 0, 0, 0)]


@pytest.mark.parametrize("rows, masses, inertia, felt", [
    # planar, one tensor with a product of inertia about the in-plane axes: no effect
    (TWO_LINK, [1.0, 1.0], [[0, 0, 0.2, 0, 0, 0], [0.01, 0.01, 0.05, 0.004, 0, 0]], False),
    # a massless, inertia-free first link: the floors only
    (TWO_LINK, [0.0, 1.0], [None, [0.1, 0.1, 0.1, 0, 0, 0]], False),
    # axes not parallel and a full tensor breaking a + b >= c: felt, and bounded as said
    ([(0, "pi/2", 0, 0), (0.5, 0, 0, 0)], [1.0, 1.0],
     [[0.1, 0.1, 0.1, 0, 0, 0], [0.01, 0.01, 0.05, 0.003, 0.002, 0.001]], True),
])
def test_bodies_made_physical_change_the_dynamics_as_said(rows, masses, inertia, felt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        robot = rd.Robot.from_dh(rows, masses=masses, inertia=inertia, gravity=(0, -9.81, 0),
                                 com=[[-0.5, 0.1, 0], [-0.25, 0, 0.05]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = robot.to_urdf()
    assert any(issubclass(w.category, rd.UrdfWarning) for w in caught) == felt
    model, data = _mujoco(robot, text)
    written, changes = writable_chain(robot.numeric_chain)
    as_written = robot.with_chain(written)
    bound = max(effect for _, effect in changes.values())
    q, qd, qdd = random_states(robot, N, seed=9)
    full = np.zeros((2, 2))
    for k in range(N):
        data.qpos[:], data.qvel[:], data.qacc[:] = q[k], qd[k], qdd[k]
        mujoco.mj_inverse(model, data)
        _close(data.qfrc_inverse, as_written.inverse_dynamics(q[k], qd[k], qdd[k]), "tau")
        _full_mass_matrix(model, data, full)
        _close(full, as_written.mass_matrix(q[k]), "M")
    added = sum(float(a.inertial.mass) - float(b.inertial.mass)
                for a, b in zip(written.links, robot.numeric_chain.links, strict=True))
    reach = 1.0 + 0.5 + 0.6  # the links' lengths and the centres of mass' offsets, at most
    change = np.abs(as_written.mass_matrix(q) - robot.mass_matrix(q)).max()
    assert change <= bound * (1 + 1e-9) + added * reach**2  # the tensor's and the mass's
    assert (change > 1e-3) == felt
    g_change = np.abs(as_written.gravity_torques(q) - robot.gravity_torques(q)).max()
    assert g_change <= added * 9.81 * reach + 1e-15
