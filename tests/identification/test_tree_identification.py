"""Identification of a tree (the Y of tests/dynamics/tree_models.py, with friction): from
noise-free torques of the model itself, the estimate is the model's base parameters."""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import pytest

import robodyn as rd
from conftest import TESTS
from robodyn.model.chain import Friction

sys.path.insert(0, str(TESTS / "dynamics"))
from tree_models import random_states, robot_of, y_tree  # noqa: E402


@pytest.mark.slow
def test_identify_recovers_the_base_parameters_of_a_tree(numpy_backend):
    chain = y_tree()
    links = tuple(replace(link, friction=Friction(0.2 + 0.1 * k, 0.05 * k))
                  for k, link in enumerate(chain.links))
    robot = robot_of(replace(chain, links=links))
    q, qd, qdd = random_states(robot.chain, 200, 41)
    tau = robot.inverse_dynamics(q, qd, qdd)
    result = rd.identify(robot, q, qd, qdd, tau)
    base = robot.base_parameters()
    np.testing.assert_allclose(result.estimate, base.values, rtol=1e-7, atol=1e-9)
    assert np.max(result.residual_rms) < 1e-9
