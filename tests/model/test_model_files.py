"""Model files: the schema, expressions, and clear errors that name the field."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import GOOD_MODEL as GOOD
from conftest import write_model as write
from robodyn.core.errors import InputError, ModelError
from robodyn.model.checks import PARALLEL_TOL, parallel
from robodyn.model.expressions import parse_expression


def test_a_good_file_loads_with_symbols_and_values(tmp_path):
    robot = rd.load(write(tmp_path, GOOD))
    assert robot.name == "test-arm" and robot.dof == 2
    assert {str(s) for s in robot.symbols} == {"m1", "m2", "l1", "Ixx1", "Fv1", "g"}
    assert robot.values["m1"] == 2.0
    link = robot.links[0]
    # standard DH: the COM given in DH frame 1 (distal) is carried to the joint frame
    assert sp.simplify(link.inertial.com[0] - sp.Symbol("l1") / 2) == 0


def test_a_file_never_executes_code(tmp_path):
    marker = tmp_path / "pwned"
    text = GOOD.replace("mass: m1", f"mass: __import__('os').system('touch {marker}')")
    with pytest.raises(ModelError, match=r"links\[0\]\.mass"):
        rd.load(write(tmp_path, text))
    assert not marker.exists()


@pytest.mark.parametrize("expr", [
    "__import__('os')", "m1.real", "m1[0]", "lambda: 1", "'text'", "m1 if g else m2",
    "exp(m1)", "m1 < 2", "sqrt(m1, 2)", "(lambda x: x)(1)", "True",
])
def test_expressions_outside_the_grammar_are_rejected(expr):
    with pytest.raises(ModelError, match=r"links\[3\]\.a"):
        parse_expression(expr, "links[3].a")


@pytest.mark.parametrize("text, expected", [
    ("m2*l2**2/12", sp.Symbol("m2") * sp.Symbol("l2") ** 2 / 12),
    ("pi/2", sp.pi / 2),
    ("-sqrt(2)*cos(pi/4)", -sp.Integer(1)),
    ("1e-3", sp.Float(1e-3)),
    ("(a + b) * 2", 2 * (sp.Symbol("a") + sp.Symbol("b"))),
    (3, sp.Integer(3)),
    (0.25, sp.Float(0.25)),
])
def test_allowed_expressions(text, expected):
    assert sp.simplify(parse_expression(text, "x") - expected) == 0


@pytest.mark.parametrize("old, new, field", [
    ("joint: revolute", "joint: spherical", r"links\[0\]\.joint: 'spherical' is not a joint type"),
    ("com: [-l1/2, 0, 0]", "com: [-l1/2, 0]", r"links\[0\]\.com: expected a list of 3"),
    ("inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]", "inertia: [1, 2, 3, 0, 0]",
     r"links\[0\]\.inertia: expected \[xx, yy, zz, xy, xz, yz\]"),
    ("gravity: [0, -g, 0]", "gravity: [0, -g]", r"gravity: expected a list of 3"),
    ("    mass: m1\n", "    mass: m1 +* 2\n", r"links\[0\]\.mass: cannot parse 'm1 \+\* 2'"),
    ("    mass: m1\n", "", r"links\[0\]\.mass: missing"),
    ("dh: standard", "dh: craig", r"dh: 'craig' is not a DH convention"),
    ("    a: l1\n", "    a: l1\n    lenght: 2\n", r"links\[0\]: unknown key\(s\) 'lenght'"),
    ("    a: l1\n", "    a: l1\n    lugre: {sigma0: 1}\n",
     r"links\[0\]: unknown key\(s\) 'lugre'.*lugre: is a key of the file's top level"),
    ("friction: {viscous: Fv1, coulomb: 0}", "friction: {viscose: Fv1}",
     r"links\[0\]\.friction: unknown key\(s\) 'viscose'"),
    ("m2: 1.0", "m2: heavy", r"values\.m2: 'heavy' must be a number"),
    ("    mass: m2\n", "    mass: q1\n", r"'q1' is reserved"),
])
def test_schema_errors_name_the_field(tmp_path, old, new, field):
    assert old in GOOD
    with pytest.raises(ModelError, match=field):
        rd.load(write(tmp_path, GOOD.replace(old, new, 1)))


@pytest.mark.parametrize("values, field", [
    ("m1: -2.0", r"links\[0\]\.mass: -2 is negative"),
    ("Ixx1: -0.5", r"links\[0\]\.inertia: not positive semi-definite \(eigenvalues"),
    ("Fv1: -1.0", r"links\[0\]\.friction\.viscous: -1 is negative"),
])
def test_non_physical_values_are_errors(tmp_path, values, field):
    key = values.split(":")[0]
    default = {"m1": "2.0", "Ixx1": "0.001", "Fv1": "0.1"}[key]
    text = GOOD.replace(f"{key}: {default}", values)
    assert text != GOOD
    with pytest.raises(ModelError, match=field):
        rd.load(write(tmp_path, text))


def test_a_tensor_breaking_the_triangle_inequality_loads_with_a_warning(tmp_path):
    text = GOOD.replace("Ixx1: 0.001", "Ixx1: 0.2")
    with pytest.warns(rd.PhysicalConsistencyWarning,
                      match=r"links\[0\]\.inertia: moments .* \+ .* < .* "
                            r"\(docs/defaults.md\)") as rec:
        robot = rd.load(write(tmp_path, text))
    message = str(rec[0].message)
    assert "\n" not in message and len(message.removeprefix(str(tmp_path))) <= 100
    assert robot.mass_matrix([0.1, 0.2]).shape == (2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rd.PhysicalConsistencyWarning)
        with pytest.raises(rd.PhysicalConsistencyWarning):
            rd.load(write(tmp_path, text))


def test_the_lecture_s_planar_inertia_gives_the_same_torques(tmp_path):
    # seed 003: a planar link is given by its one moment I about the joint axis, [0, 0, I];
    # link 1 only ever turns about z, so its moments about x and y never enter the dynamics
    planar = GOOD.replace("inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]",
                          "inertia: [0, 0, m1*l1**2/12, 0, 0, 0]")
    assert planar != GOOD
    with pytest.warns(rd.PhysicalConsistencyWarning, match=r"links\[0\]\.inertia"):
        flat = rd.load(write(tmp_path, planar, "planar.yaml"))
    rod = rd.load(write(tmp_path, GOOD))
    q, qd, qdd = np.random.default_rng(1).normal(size=(3, 5, 2))
    np.testing.assert_allclose(flat.inverse_dynamics(q, qd, qdd),
                               rod.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)


def test_inertia_as_a_3x3_list_must_be_symmetric(tmp_path):
    text = GOOD.replace("inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]",
                        "inertia: [[1, 0.1, 0], [0.2, 1, 0], [0, 0, 1]]")
    with pytest.raises(ModelError, match=r"links\[0\]\.inertia: not symmetric: \[0\]\[1\]"):
        rd.load(write(tmp_path, text))
    ok = GOOD.replace("inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]",
                      "inertia: [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.2]]")
    assert rd.load(write(tmp_path, ok)).dof == 2


def test_a_symbol_without_value_is_an_error_when_numbers_are_needed(tmp_path):
    robot = rd.load(write(tmp_path, GOOD.replace("m2: 1.0, ", "")))
    assert "m2" not in robot.values  # symbolic use is fine
    with pytest.raises(ModelError, match=r"no value for symbol\(s\) m2; pass them with "
                                         r"robot.with_values\(m2=...\)"):
        robot.mass_matrix(np.zeros(2))
    assert robot.with_values(m2=1.5).mass_matrix(np.zeros(2)).shape == (2, 2)


def test_with_values_returns_a_new_robot(tmp_path):
    robot = rd.load(write(tmp_path, GOOD))
    heavier = robot.with_values(m2=3.0)
    also = robot.with_values({"m2": 3.0})
    assert robot.values["m2"] == 1.0 and heavier.values["m2"] == 3.0
    q = np.array([0.3, 0.4])
    np.testing.assert_allclose(heavier.gravity_torques(q), also.gravity_torques(q))
    # the prismatic link's mass is carried along its axis: tau2 grows with m2
    assert not np.allclose(heavier.gravity_torques(q), robot.gravity_torques(q))
    with pytest.raises(ModelError, match=r"'m9' is not a parameter of this model"):
        robot.with_values(m9=1.0)
    with pytest.raises(ModelError, match=r"m1 = 'x' is not a number"):
        robot.with_values(m1="x")
    with pytest.raises(ModelError, match=r"links\[0\]\.mass"):
        robot.with_values(m1=-1.0).mass_matrix(q)


def test_file_level_errors(tmp_path):
    with pytest.raises(ModelError, match=r"no such model file"):
        rd.load(tmp_path / "missing.yaml")
    with pytest.raises(ModelError, match=r"not valid YAML at line 3"):
        rd.load(write(tmp_path, "name: x\nlinks: [\n  - {joint: revolute\n"))
    with pytest.raises(ModelError, match=r"links: expected a non-empty list"):
        rd.load(write(tmp_path, "name: x\nlinks: []\n"))
    with pytest.raises(ModelError, match=r"must be a mapping"):
        rd.load(write(tmp_path, "- 1\n- 2\n"))
    with pytest.raises(ModelError, match=r"not a built-in model"):
        rd.load("planar-9r")


@pytest.mark.parametrize("call, message", [
    (lambda r: r.mass_matrix(np.zeros(3)), r"q: expected shape \(\.\.\., 2\)"),
    (lambda r: r.inverse_dynamics(np.zeros((4, 2)), np.zeros((3, 2)), np.zeros(2)),
     r"batch shapes do not broadcast"),
    (lambda r: r.inverse_dynamics(np.zeros(2), np.zeros(2), [[1, 2], [3, np.nan]]),
     r"qdd\[1, 1\] is nan \(NaN or infinite\)"),
    (lambda r: r.gravity_torques([0.1, np.inf]), r"q\[1\] is inf"),
    (lambda r: r.forward_dynamics(np.zeros(2), np.zeros(2), ["a", "b"]),
     r"tau: expected real numbers, got an array of text"),
    (lambda r: r.inverse_dynamics(np.zeros(2), np.zeros(2), np.zeros(2), h_e=np.zeros(3)),
     r"h_e: expected shape \(\.\.\., 6\)"),
    (lambda r: r.mass_matrix([5.0]), r"q: expected shape"),  # one number broadcasts, [5] not
    (lambda r: r.inverse_dynamics(0.0, 0.0, 0.0, h_e=1.0), r"h_e: expected shape"),
])
def test_bad_numeric_input_gets_a_clear_error(call, message):
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match=message):
        call(robot)


def test_every_builtin_model_loads_and_is_described():
    for name in rd.models.names():
        robot = rd.load(name)
        assert robot.name == name
        assert robot.description, f"{name} has no description"
        assert set(robot.values) >= {str(s) for s in robot.symbols}


FLAT = """\
name: flat
dh: standard
planar: true
gravity: [0, -9.81, 0]
links:
  - joint: revolute
    a: 1
    alpha: {alpha}
    mass: 1
    com: [-0.5, 0, 0]
    inertia: [0.01, 0.1, 0.1, 0, 0, 0]
  - joint: revolute
    a: 1
    mass: 1
    com: [-0.5, 0, 0]
    inertia: [0.01, 0.1, 0.1, 0, 0, 0]
"""


@pytest.mark.parametrize("alpha, planar", [("0", True), ("1e-10", True), ("pi", True),
                                           ("1e-8", False), ("0.1", False)])
def test_planar_needs_parallel_axes(tmp_path, alpha, planar):
    """``planar: true`` holds when joint 2's axis, turned by alpha_1 about x, is parallel or
    opposite to joint 1's: |z x R_x(alpha) z| = |sin alpha| at most PARALLEL_TOL (1e-9)."""
    path = write(tmp_path, FLAT.format(alpha=alpha))
    if planar:
        assert rd.load(path).dof == 2
    else:
        with pytest.raises(ModelError, match="planar: true, but joint 2's axis .* is not "
                                             "parallel to joint 1's"):
            rd.load(path)


def test_parallel_is_the_sine_of_the_angle_within_its_tolerance():
    z = np.array([0.0, 0.0, 1.0])
    tilted = [[0.0, np.sin(a), np.cos(a)] for a in (0.0, 5e-10, 2e-9, np.pi, 0.3)]
    assert parallel(z, np.array(tilted)).tolist() == [True, True, False, True, False]
    assert PARALLEL_TOL == 1e-9


def test_a_joint_knows_its_units():
    joints = [link.joint for link in rd.load("rp-arm").links]  # revolute, then prismatic
    assert [(j.type, j.unit, j.torque_unit) for j in joints] == [
        ("revolute", "rad", "N m"), ("prismatic", "m", "N")]


def test_a_model_file_without_g_has_standard_gravity_as_from_dh(tmp_path):
    """The default gravity ``[0, 0, -g]`` with ``g = 9.81`` when ``values`` do not give it:
    the same in a model file and in ``Robot.from_dh`` (a file used to fail with "no value
    for symbol g")."""
    path = tmp_path / "nog.yaml"
    path.write_text("name: nog\nlinks:\n  - {joint: revolute, a: 0.4, mass: 1}\n")
    from_file = rd.load(str(path))
    from_table = rd.Robot.from_dh([[0.4, 0, 0, 0]], masses=[1])
    assert from_file.numeric_chain.gravity == from_table.numeric_chain.gravity == (0, 0, -9.81)
    assert from_file.values["g"] == 9.81
    tilted = tmp_path / "g.yaml"
    tilted.write_text("name: g\nlinks:\n  - {joint: revolute, a: 0.4, mass: 1}\n"
                      "values: {g: 1.62}\n")
    assert rd.load(str(tilted)).numeric_chain.gravity == (0, 0, -1.62)
