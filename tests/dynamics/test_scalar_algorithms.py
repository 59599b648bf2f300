"""Each algorithm of :mod:`robodyn.dynamics`, run directly on plain Python floats, gives
the numbers of the compiled kernel.

The kernels are those algorithms traced onto a tape, turned into source code and compiled
(Numba, or NumPy), with the model's parameters as inputs. Here the same functions run
untraced on ``robot.numeric_chain`` (every number a float) with ``math`` for the few
non-arithmetic functions, so any error added by tracing, constant folding, code
generation or compilation shows as a difference. Relative tolerance 1e-12 (of the
largest entry of each result: reassociated sums differ in the last bits).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import robodyn as rd
from conftest import TEST_DATA
from robodyn.dynamics.coriolis import coriolis_matrix
from robodyn.dynamics.crba import mass_matrix
from robodyn.dynamics.energy import kinetic_energy, potential_energy
from robodyn.dynamics.forward_dynamics import forward_dynamics
from robodyn.dynamics.friction import friction_torques
from robodyn.dynamics.inverse_dynamics import contact_torques, inverse_dynamics
from robodyn.dynamics.kinematics import jacobian, link_poses, tip_pose
from robodyn.dynamics.rnea import rnea

try:
    from conftest import MODEL_NAMES, random_states
except ImportError:  # tests/ collected as a package
    from .conftest import MODEL_NAMES, random_states

#: The scalar functions the algorithms need, for Python floats (defined here, on purpose).
FLOATS = SimpleNamespace(
    sin=math.sin, cos=math.cos, sqrt=math.sqrt,
    sign=lambda x: float((x > 0) - (x < 0)), name="math",
)
RTOL = 1e-12
N_STATES = 3
URDF = TEST_DATA / "urdf" / "rpc_branch.urdf"


@pytest.fixture(scope="module")
def urdf_robot():
    """A URDF chain (prismatic, continuous and unaligned joints, rotated inertias)."""
    return rd.load(URDF, tip="tool")


def _robot(name, robots, urdf_robot):
    return urdf_robot if name == "rpc_branch" else robots[name]


def _close(actual, expected, what):
    expected = np.asarray(expected, dtype=float)
    scale = max(1e-300, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=RTOL * scale, err_msg=what)


def _floats(row) -> list[float]:
    return [float(x) for x in row]


CASES = [*MODEL_NAMES, "rpc_branch"]


@pytest.mark.parametrize("name", CASES)
def test_every_algorithm_on_floats_equals_the_compiled_kernel(name, robots, urdf_robot):
    robot = _robot(name, robots, urdf_robot)
    chain = robot.numeric_chain
    n = robot.dof
    q_all, qd_all, qdd_all = random_states(robot, N_STATES, seed=17)
    tau_all = np.random.default_rng(5).normal(scale=3.0, size=(N_STATES, n))
    for k in range(N_STATES):
        q, qd, qdd, tau = (_floats(a[k]) for a in (q_all, qd_all, qdd_all, tau_all))
        q_arr, qd_arr = q_all[k], qd_all[k]
        zeros = [0.0] * n
        where = f"{name}, state {k}"

        fric = friction_torques(chain, qd, FLOATS)
        _close(robot.friction_torques(qd_arr), fric, f"{where}: friction_torques")
        tau_id = [t + f for t, f in zip(rnea(chain, q, qd, qdd, FLOATS), fric, strict=True)]
        _close(robot.inverse_dynamics(q_arr, qd_arr, qdd_all[k]), tau_id,
               f"{where}: rnea + friction vs inverse_dynamics")
        _close(robot.gravity_torques(q_arr), rnea(chain, q, zeros, zeros, FLOATS),
               f"{where}: rnea(q, 0, 0) vs gravity_torques")
        _close(robot.mass_matrix(q_arr), mass_matrix(chain, q, FLOATS),
               f"{where}: mass_matrix (CRBA)")
        _close(robot.coriolis_matrix(q_arr, qd_arr), coriolis_matrix(chain, q, qd, FLOATS),
               f"{where}: coriolis_matrix")
        _close(robot.forward_dynamics(q_arr, qd_arr, tau_all[k]),
               forward_dynamics(chain, q, qd, tau, FLOATS), f"{where}: forward_dynamics")
        h = [0.3, -1.0, 2.0, 0.1, 0.2, -0.4]
        _close(robot.inverse_dynamics(q_arr, qd_arr, qdd_all[k], h_e=h),
               inverse_dynamics(chain, q, qd, qdd, FLOATS, h_e=h), f"{where}: with h_e")
        _close(robot.inverse_dynamics(q_arr, qd_arr, qdd_all[k], h_e=h)
               - robot.inverse_dynamics(q_arr, qd_arr, qdd_all[k]),
               contact_torques(chain, q, h, FLOATS), f"{where}: J^T h_e")
        _close(robot.forward_dynamics(q_arr, qd_arr, tau_all[k], h_e=h),
               forward_dynamics(chain, q, qd, tau, FLOATS, h_e=h), f"{where}: FD with h_e")
        _close(robot.kinetic_energy(q_arr, qd_arr), [kinetic_energy(chain, q, qd, FLOATS)],
               f"{where}: kinetic_energy")
        _close(robot.potential_energy(q_arr), [potential_energy(chain, q, FLOATS)],
               f"{where}: potential_energy")
        poses = link_poses(chain, q, FLOATS)
        rot, pos = tip_pose(chain, poses)
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = rot, pos
        _close(robot.forward_kinematics(q_arr), pose, f"{where}: link_poses + tip_pose")
        _close(robot.jacobian(q_arr), jacobian(chain, q, FLOATS), f"{where}: jacobian")
        _close(robot.jacobian(q_arr), jacobian(chain, q, FLOATS, poses),
               f"{where}: jacobian from given poses")


def test_the_scalar_run_is_not_trivially_equal():
    """The comparison can fail: a perturbed state changes every algorithm's result by far
    more than the tolerance."""
    robot = rd.load("puma560")
    chain = robot.numeric_chain
    q, qd, qdd = (a[0] for a in random_states(robot, 1, seed=3))
    moved = _floats(q + 1e-6)
    with pytest.raises(AssertionError):
        _close(robot.mass_matrix(q), mass_matrix(chain, moved, FLOATS), "perturbed")
    with pytest.raises(AssertionError):
        _close(robot.inverse_dynamics(q, qd, qdd),
               rnea(chain, moved, _floats(qd), _floats(qdd), FLOATS), "perturbed")
