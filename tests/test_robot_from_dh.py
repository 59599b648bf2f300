"""``rd.Robot.from_dh``: a robot from a DH table in Python (issue 18), the model the YAML
reader builds from the same fields, checked the same way."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import random_states
from robodyn.core.errors import ModelError

pytestmark = pytest.mark.usefixtures("numpy_backend")


def _same_dynamics(ours, theirs, n=12, seed=3):
    q, qd, qdd = random_states(theirs, n, seed=seed)
    for method, args in (("mass_matrix", (q,)), ("coriolis_matrix", (q, qd)),
                         ("gravity_torques", (q,)), ("inverse_dynamics", (q, qd, qdd)),
                         ("forward_kinematics", (q,))):
        np.testing.assert_allclose(getattr(ours, method)(*args), getattr(theirs, method)(*args),
                                   rtol=1e-13, atol=1e-13, err_msg=method)


def test_the_planar_2r_table_gives_the_builtin_model():
    builtin = rd.load("planar-2r-dh")
    robot = rd.Robot.from_dh(
        [("a1", 0, 0, 0), ("a2", 0, 0, 0)], "RR",
        masses=["ml1", "ml2"], com=[["l1 - a1", 0, 0], ["l2 - a2", 0, 0]],
        inertia=[[0, 0, "Il1", 0, 0, 0], [0, 0, "Il2", 0, 0, 0]],
        gravity=[0, "-g", 0], planar=True, name="planar-2r-dh",
        values={"a1": 0.9, "a2": 0.7, "l1": 0.45, "l2": 0.35, "ml1": 3.0, "ml2": 2.0,
                "Il1": 0.2, "Il2": 0.08, "g": 9.81})
    assert robot.dof == 2 and robot.name == "planar-2r-dh"
    assert robot.symbols == builtin.symbols and robot.values == builtin.values
    assert robot.convention == "standard" and len(robot.dh_rows) == 2
    assert robot.chain == builtin.chain  # the same symbolic model
    _same_dynamics(robot, builtin)
    # numbers instead of symbols: the same numeric model
    numbers = rd.Robot.from_dh(np.array([[0.9, 0, 0, 0], [0.7, 0, 0, 0]]), masses=[3.0, 2.0],
                               com=np.array([[-0.45, 0, 0], [-0.35, 0, 0]]),
                               inertia=[[0, 0, 0.2, 0, 0, 0], [0, 0, 0.08, 0, 0, 0]],
                               gravity=[0, -9.81, 0], planar=True)
    assert numbers.symbols == () and numbers.name == "robot"
    # values keyed by SymPy symbols, as robot.symbols were before they became names
    by_symbol = rd.Robot.from_dh([("a1", 0, 0, 0)], masses=[1.0],
                                 values={sp.Symbol("a1"): 0.5})
    assert by_symbol.values == {"a1": 0.5, "g": 9.81}
    _same_dynamics(numbers, builtin)


def test_a_prismatic_joint_gives_the_rp_arm():
    builtin = rd.load("rp-arm")
    robot = rd.Robot.from_dh(
        [(0, "pi/2", 0, "pi/2"), (0, 0, 0, 0)], joints="RP", masses=["m1", "m2"],
        com=[[0, 0, "l1"], None], inertia=[["Iyy1", "Izz1", "Ixx1", 0, 0, 0],
                                           ["Iyy2", "Izz2", "Ixx2", 0, 0, 0]],
        gravity=[0, "-g", 0], values=builtin.values, name="rp-arm")
    assert robot.chain == builtin.chain
    _same_dynamics(robot, builtin)


def test_friction_motors_limits_tool_and_configurations_as_in_a_model_file(tmp_path):
    path = tmp_path / "arm.yaml"
    path.write_text("""\
name: arm
dh: modified
gravity: [0, 0, -9.81]
tool: {xyz: [0.1, 0, 0], rpy: [0, 0, 0.3]}
links:
  - joint: revolute
    a: 0
    alpha: 0
    d: 0.3
    theta: 0.1
    mass: 2
    com: [0.1, 0, 0.05]
    inertia: [0.02, 0.03, 0.025, 0.001, 0, 0]
    friction: {viscous: 0.4, coulomb: 0.1}
    motor: {inertia: 1e-4, gear_ratio: 30}
    limits: {lower: -2, upper: 2}
  - joint: prismatic
    a: 0.2
    alpha: pi/2
    d: 0.05
    theta: 0
    mass: 1
    com: [0, 0.02, 0]
    inertia: [0.01, 0.01, 0.004, 0, 0, 0]
    friction: {viscous: 1.5, coulomb: 0}
    limits: {lower: 0, upper: 0.5, velocity: 1, effort: 100}
configurations:
  home: [0, 0.2]
""")
    from_file = rd.load(path)
    robot = rd.Robot.from_dh(
        [{"a": 0, "alpha": 0, "d": 0.3, "theta": 0.1}, (0.2, "pi/2", 0.05, 0)], "RP",
        masses=[2, 1], com=[(0.1, 0, 0.05), (0, 0.02, 0)],
        inertia=[(0.02, 0.03, 0.025, 0.001, 0, 0), (0.01, 0.01, 0.004, 0, 0, 0)],
        friction=[(0.4, 0.1), {"viscous": 1.5}], motor=[(1e-4, 30), None],
        limits=[(-2, 2), {"lower": 0, "upper": 0.5, "velocity": 1, "effort": 100}],
        gravity=(0, 0, -9.81), convention="modified", tool={"xyz": [0.1, 0, 0],
                                                            "rpy": [0, 0, 0.3]},
        configurations={"home": [0, 0.2]}, name="arm")
    assert robot.chain == from_file.chain
    assert [link.joint.limits for link in robot.links] == \
        [link.joint.limits for link in from_file.links]
    np.testing.assert_array_equal(robot.configurations["home"], [0, 0.2])
    _same_dynamics(robot, from_file)
    qd = np.array([0.5, -0.3])
    np.testing.assert_allclose(robot.friction_torques(qd), [0.4 * 0.5 + 0.1, 1.5 * -0.3],
                               rtol=1e-15)


@pytest.mark.parametrize("kwargs, message", [
    ({"rows": []}, r"rows: expected a list of DH rows"),
    ({"rows": [(0, 0, 0, 0)] * 100_000}, r"rows: 100,000 DH rows; at most 1,000"),
    ({"rows": "a1"}, r"rows: expected a list of DH rows"),
    ({"rows": [(0, 0, 0), (0, 0, 0, 0)]}, r"rows\[0\]: expected \(a, alpha, d, theta\)"),
    ({"masses": None}, r"masses: missing; every link needs a mass"),
    ({"masses": [1.0]}, r"masses: expected a list of one entry per joint \(2\), got 1 "),
    ({"joints": "RX"}, r"joints: 'RX' is not a string of R \(revolute\) and P"),
    ({"joints": "RRP"}, r"joints: 3 joint type\(s\) for 2 DH row\(s\)"),
    ({"joints": ["revolute", "spherical"]}, r"links\[1\]\.joint: 'spherical' is not a joint"),
    ({"joints": 3}, r"joints: expected a string such as 'RRP'"),
    ({"com": [[0, 0]]}, r"com: expected a list of one entry per joint"),
    ({"com": [[0, 0], [0, 0, 0]]}, r"links\[0\]\.com: expected a list of 3 numbers"),
    ({"masses": [1.0, -2.0]}, r"links\[1\]\.mass: -2 is negative"),
    ({"masses": [1.0, "m2"]}, r"no value for symbol\(s\) m2"),
    ({"masses": [1.0, "__import__('os')"]}, r"links\[1\]\.mass"),
    ({"inertia": [[1, 2, 3], None]}, r"links\[0\]\.inertia: expected \[xx, yy, zz, xy, xz, yz\]"),
    ({"inertia": [[-1, 1, 1, 0, 0, 0], None]}, r"links\[0\]\.inertia: not positive semi"),
    ({"friction": [(-0.1, 0), None]}, r"links\[0\]\.friction\.viscous: -0\.1 is negative"),
    ({"limits": [(2, 1), None]}, r"links\[0\]\.limits: lower 2 is above upper 1"),
    ({"convention": "craig"}, r"dh: 'craig' is not a DH convention"),
    ({"gravity": [0, 0]}, r"gravity: expected a list of 3 numbers"),
    ({"values": {"g": float("nan")}}, r"values\.g"),
    ({"name": "a\nb"}, r"name"),
    ({"configurations": {"home": [0]}}, r"configurations\.home: expected a list of 2"),
    ({"rows": [(0, 0, 0, 0), {"a": 1, "alfa": 0}]}, r"links\[1\]: unknown key\(s\) 'alfa'"),
])
def test_bad_tables_are_clear_errors(kwargs, message):
    args = {"rows": [(1.0, 0, 0, 0), (0.5, 0, 0, 0)], "masses": [1.0, 1.0]}
    args.update(kwargs)
    rows = args.pop("rows")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        with pytest.raises(ModelError, match=message):
            rd.Robot.from_dh(rows, **args).numeric_chain  # noqa: B018
