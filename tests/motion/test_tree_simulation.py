"""Simulation of kinematic trees: a passive tree keeps its energy, and wrenches at named
frames do the work the energy balance books (the Y tree and a random tree of
tests/dynamics/tree_models.py)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import robodyn as rd
from conftest import TESTS

sys.path.insert(0, str(TESTS / "dynamics"))
from tree_models import random_tree, robot_of, y_tree  # noqa: E402


@pytest.mark.parametrize("chain", [y_tree(), random_tree(21, n=4, frames=1)],
                         ids=["y", "random"])
def test_a_passive_tree_keeps_its_energy(chain, numpy_backend):
    robot = robot_of(chain)
    q0 = np.linspace(0.3, -0.5, robot.dof)
    sim = rd.simulate(robot, q0, duration=1.0, method="dop853", rtol=1e-11, atol=1e-11)
    assert np.ptp(sim.kinetic) > 0.1  # it moved
    scale = max(1.0, float(np.max(np.abs(sim.total))))
    assert np.ptp(sim.total) / scale < 1e-7


def test_wrenches_at_named_frames_do_the_booked_work(numpy_backend):
    """With constant wrenches at the two hands, E(end) - E(0) equals the work the wrenches
    did (-∫ sum_f (J_f qd)·h_f dt) within the integration error, and the fixed-step loop
    follows the adaptive motion."""
    robot = robot_of(y_tree())
    h_e = {"left_hand": [0.0, 2.0, 0.0, 0.0, 0.0, 0.1], "right_hand": [1.0, -3.0, 0.0, 0, 0, 0]}
    sim = rd.simulate(robot, [0.2, 0.4, -0.6], duration=0.5, h_e=h_e, method="dop853",
                      rtol=1e-11, atol=1e-11)
    balance = sim.info["energy_balance"]
    assert abs(balance.external) > 0.05  # the wrenches worked
    assert not balance.off
    assert abs(balance.error) < 1e-6 * balance.scale + balance.uncertainty
    fixed = rd.simulate(robot, [0.2, 0.4, -0.6], duration=0.5, h_e=h_e, dt=1e-3)
    np.testing.assert_allclose(fixed.q[-1], sim.q[-1], atol=1e-6)


def test_a_tree_held_by_its_hands(numpy_backend):
    """Wrenches at the hands that balance gravity hold the Y at rest: the hands' forces
    that make J^T h = g at q0 (least squares over the two hands' forces)."""
    robot = robot_of(y_tree())
    q0 = np.array([0.3, 0.5, -0.4])
    g = robot.gravity_torques(q0)
    jl = robot.jacobian(q0, frame="left_hand")[:3]
    jr = robot.jacobian(q0, frame="right_hand")[:3]
    forces, *_ = np.linalg.lstsq(np.hstack([jl.T, jr.T]), -g, rcond=None)
    h_e = {"left_hand": [*forces[:3], 0, 0, 0], "right_hand": [*forces[3:], 0, 0, 0]}
    np.testing.assert_allclose(robot.forward_dynamics(q0, 0.0, 0.0, h_e=h_e), 0.0, atol=1e-10)
    sim = rd.simulate(robot, q0, duration=0.3, h_e=h_e, dt=1e-3)
    np.testing.assert_allclose(sim.q, np.broadcast_to(q0, sim.q.shape), atol=1e-9)


def test_bad_frame_wrenches_are_named(numpy_backend):
    robot = robot_of(y_tree())
    with pytest.raises(rd.ModelError, match="'left_hnd' is not a frame.*'left_hand'"):
        rd.simulate(robot, [0, 0, 0], duration=0.1, h_e={"left_hnd": np.zeros(6)})
    with pytest.raises(rd.InputError, match=r"h_e\['left_hand'\]: expected 6 finite"):
        rd.simulate(robot, [0, 0, 0], duration=0.1, h_e={"left_hand": [1, 2]})
    with pytest.raises(rd.InputError, match="one simulation at a time"):
        rd.simulate(robot, np.zeros((2, 3)), duration=0.1, dt=0.01,
                    h_e={"left_hand": np.zeros(6)})
