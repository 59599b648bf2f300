"""Hostile and broken model input fails fast with a clear ModelError (issue 7).

Each test reproduces a measured defect: alias bombs, huge error messages,
exponent towers, deep expressions, simplify on user input, non-integer powers
that did not compile, NaN/inf/complex numbers passing silently, and parameter
names that SymPy reads as its own objects.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import GOOD_MODEL as GOOD
from conftest import SYMBOLIC_MODELS
from conftest import write_model as write
from robodyn.core.errors import ModelError, excerpt
from robodyn.model import expressions, yaml_file
from robodyn.model.chain import Inertial
from robodyn.model.checks import check_physical
from robodyn.model.expressions import check_parameter_name, parse_expression


def load_error(tmp_path, text) -> str:
    with pytest.raises(ModelError) as info:
        rd.load(write(tmp_path, text))
    return str(info.value)


def replaced(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


# -- 1. error messages quote a bounded excerpt -----------------------------------------
def test_excerpt_quotes_a_prefix_and_the_size():
    assert excerpt("m1") == "'m1'"
    long = "x" * 1_000_000
    text = excerpt(long)
    assert text.startswith("'xxx") and "(1,000,000 characters)" in text and len(text) < 120
    nested: list = ["x"] * 9
    for _ in range(8):  # 9**9 leaves, as YAML aliases build them (shared references)
        nested = [nested] * 9
    text = excerpt(nested)
    assert "list of 9 items, over 100,000 values nested" in text and len(text) < 200
    assert excerpt(10**5000).startswith("<int")  # too long for str(), still an excerpt


def alias_bomb(levels: int, key: str = "name") -> str:
    """A YAML file whose ``key`` holds 9**levels strings through nested aliases."""
    lines = [f"{key}:", '  - &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for anchor in "bcdefghi"[: levels - 1]:
        lines.append(f"  - &{anchor} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = anchor
    return "\n".join(lines + ["links: []"]) + "\n"


@pytest.mark.parametrize("levels, key", [(8, "name"), (9, "links"), (9, "values")])
def test_an_alias_bomb_is_a_short_error(tmp_path, levels, key):
    text = alias_bomb(levels, key)
    assert len(text) < 500  # the files: 345 and 483 bytes
    message = load_error(tmp_path, text)
    assert "more than 10,000 values with aliases expanded" in message
    assert len(message) < 1000


def test_a_recursive_alias_is_an_error(tmp_path):
    message = load_error(tmp_path, "name: &a [x, *a]\nlinks: []\n")
    assert "an alias refers to a value that contains it" in message


def test_large_values_are_quoted_as_excerpts(tmp_path):
    # below the node cap, the message still quotes only a prefix
    message = load_error(tmp_path, f"name: robot\nlinks: {'x' * 200_000}\n")
    assert "links: expected a non-empty list" in message and "(200,000 characters)" in message
    assert len(message) < 1000
    many = "[" + ", ".join(["[1, 2, 3]"] * 2000) + "]"
    message = load_error(tmp_path, replaced("com: [-l1/2, 0, 0]", f"com: {many}"))
    assert "links[0].com: expected a list of 3 numbers" in message and len(message) < 1000
    unknown = "\n".join(f"    key{i}: 1" for i in range(500))
    message = load_error(tmp_path, replaced("    mass: m1\n", f"    mass: m1\n{unknown}\n"))
    assert "unknown key(s) 'key0'" in message and "and 495 more" in message


# -- 2. the YAML reader: duplicate keys, size, depth ------------------------------------
def test_duplicate_keys_are_errors(tmp_path):
    text = replaced("    mass: m1\n", "    mass: m1\n    mass: 5\n")
    message = load_error(tmp_path, text)
    assert "line 8: duplicate key 'mass' (first at line 7)" in message
    message = load_error(tmp_path, GOOD + "links: []\n")
    assert "duplicate key 'links'" in message
    message = load_error(tmp_path, replaced("m2: 1.0", "m2: 1.0, m2: 3.0"))
    assert "duplicate key 'm2'" in message


def test_merge_keys_may_override(tmp_path):
    """``<<: *base`` then an explicit key is YAML's way of overriding, not a duplicate."""
    text = GOOD.replace("  - joint: prismatic\n    alpha: pi/2\n    mass: m2\n    com: [0, 0, 0]",
                        "  - &p {joint: prismatic, alpha: pi/2, mass: m1, com: [0, 0, 0]}\n"
                        "  - <<: *p\n    mass: m2")
    robot = rd.load(write(tmp_path, text))
    assert robot.dof == 3 and robot.links[2].inertial.mass == sp.Symbol("m2")


def test_file_size_depth_and_long_integers_are_bounded(tmp_path):
    big = GOOD + "#" + "x" * yaml_file.MAX_FILE_BYTES + "\n"
    assert f"larger than {yaml_file.MAX_FILE_BYTES:,} bytes" in load_error(tmp_path, big)
    deep = "name: " + "[" * 1000 + "]" * 1000 + "\nlinks: []\n"
    assert "nested too deeply" in load_error(tmp_path, deep)
    many = "name: [" + ", ".join(["1"] * 20_000) + "]\nlinks: []\n"
    assert "too many values" in load_error(tmp_path, many)
    long_int = replaced("m2: 1.0", "m2: " + "1" * 5000)
    assert "integer too long" in load_error(tmp_path, long_int)


# -- 3. expressions: bounded before they are built ---------------------------------------
@pytest.mark.parametrize("text, message", [
    ("9**9**9**9", r"the exponent 387420489 .* exponents must be within \+-64"),
    ("m**100000", r"the exponent 100000 .* exponents must be within \+-64"),
    ("(m**64)**64", r"has the exponent 4096"),
    ("((10**60)**60)**60", r"too large a number"),
    ("2**m", r"not a constant; exponents must be numbers"),
    ("-" * 100_000 + "m", r"too long \(at most 10000 characters\)"),
    ("-" * 1999 + "m", r"nested too deeply"),
    ("sin(" * 60 + "m" + ")" * 60, r"nested too deeply"),
    ("(" * 300 + "m" + ")" * 300, r"cannot parse"),
    ("+".join(["m"] * 2000), r"too large \(more than 3000 terms\)"),
    ("1" * 2000, r"holds a number too large"),
    ("m\x00", r"cannot parse"),
])
def test_hostile_expressions_are_model_errors(text, message):
    with pytest.raises(ModelError, match=r"links\[0\]\.mass: .*" + message) as info:
        parse_expression(text, "links[0].mass")
    assert len(str(info.value)) < 1000


@pytest.mark.slow
def test_long_sums_and_sign_chains_work():
    m = sp.Symbol("m")
    assert parse_expression("+".join(["m"] * 1000), "x") == 1000 * m
    terms = [f"m{i}" for i in range(1000)]
    assert parse_expression(" - ".join(terms), "x") == sp.Symbol("m0") - sum(
        sp.Symbol(t) for t in terms[1:])
    assert parse_expression("*".join(["2"] * 500), "x") == sp.Integer(2) ** 500
    assert parse_expression("-" * 30 + "m", "x") == m  # 30 minus signs: +m
    assert parse_expression("-" * 31 + "m", "x") == -m
    assert parse_expression("m/2/2*4", "x") == m


# -- 4. no simplify on user input --------------------------------------------------------
SLOW_INERTIA = """[[1, (a+b+c+d+e)**9*sin(t)*cos(t), (a+b+c+d+f)**9*sin(t)*cos(t)],
              [(a+b+c+d+e)**9*sin(2*t)/2, 1, (a+b+c+d+g)**9*sin(t)*cos(t)],
              [(a+b+c+d+f)**9*sin(2*t)/2, (a+b+c+d+g)**9*sin(2*t)/2, 1]]"""


def test_a_3x3_inertia_is_compared_without_simplify(tmp_path):
    """Each off-diagonal pair took ``sp.simplify`` about 5 s (16 s for the file, measured);
    the comparison is now structural: the same expression must be written twice."""
    text = replaced("inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]",
                    f"inertia: {SLOW_INERTIA}")
    message = load_error(tmp_path, text)
    assert "links[0].inertia: not symmetric: [0][1]" in message
    assert "write the same expression in both places" in message
    # the same expression in another order is the same canonical SymPy form
    same = replaced("inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]",
                    "inertia: [[Ixx1, 0, k*m1*l1], [0, Ixx1, 0], [l1*m1*k, 0, Ixx1]]")
    robot = rd.load(write(tmp_path, same.replace("g: 9.81", "g: 9.81, k: 0.0001")))
    k, m1, l1 = sp.symbols("k m1 l1")
    assert robot.links[0].inertial.inertia[0][2] == k * m1 * l1


# -- 5. non-integer powers compile ---------------------------------------------------------
PENDULUM = """\
name: pendulum-{tag}
gravity: [0, -g, 0]
links:
  - joint: revolute
    a: l
    d: {d}
    mass: {mass}
    inertia: [{inertia}, {inertia}, {inertia}, 0, 0, 0]
values: {{m: {m}, J: {J}, l: 0.5, g: 9.81}}
"""


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("mass, m, mass_value", [
    ("m**0.5", 4.0, 2.0),
    ("m**(3/2)", 4.0, 8.0),
    ("sqrt(m)", 9.0, 3.0),
    ("m**(1/3)", 8.0, 2.0),
    ("m**-0.5", 4.0, 0.5),
])
def test_non_integer_powers_compile(tmp_path, monkeypatch, backend, mass, m, mass_value):
    """A point mass ``mass`` at distance ``l`` from the joint with inertia ``J**1.5``
    (diagonal) about it: ``tau = (I + mass l^2) qdd + mass g l cos(q)``."""
    if backend == "numba":
        pytest.importorskip("numba")
    monkeypatch.setenv("ROBODYN_BACKEND", backend)
    # d moves the point along the joint axis: no effect on tau, but a chain (and so a
    # kernel, which robots with equal chains share) of its own for each backend
    d = {"numba": 0.125, "numpy": 0.25}[backend]
    text = PENDULUM.format(tag=backend, d=d, mass=mass, inertia="J**1.5", m=m, J=0.04)
    robot = rd.load(write(tmp_path, text))
    q = np.array([0.3, -1.1, 2.0])
    qd = np.array([0.2, 0.5, -1.0])
    qdd = np.array([0.7, -0.4, 1.5])

    def closed_form(mass_value, inertia):
        return (inertia + mass_value * 0.25) * qdd + mass_value * 9.81 * 0.5 * np.cos(q)

    tau = robot.inverse_dynamics(q[:, None], qd[:, None], qdd[:, None])[:, 0]
    np.testing.assert_allclose(tau, closed_form(mass_value, 0.04**1.5), rtol=1e-12)
    one = robot.inverse_dynamics(q[:1], qd[:1], qdd[:1])
    np.testing.assert_allclose(one, closed_form(mass_value, 0.04**1.5)[:1], rtol=1e-12)
    # the parameters are kernel inputs: new values, same kernel, still the closed form
    heavier = robot.with_values(m=2 * m, J=0.09)
    expected_mass = float(parse_expression(mass, "x").subs(sp.Symbol("m"), heavier.values["m"]))
    tau = heavier.inverse_dynamics(q[:, None], qd[:, None], qdd[:, None])[:, 0]
    np.testing.assert_allclose(tau, closed_form(expected_mass, 0.09**1.5), rtol=1e-12)
    np.testing.assert_allclose(robot.mass_matrix(q[:1]), [[0.04**1.5 + mass_value * 0.25]])


# -- 6. every number finite and real, named by its field ------------------------------------
@pytest.mark.parametrize("old, new, message", [
    ("com: [-l1/2, 0, 0]", 'com: ["0/0", 0, 0]',
     r"links\[0\]\.com\[0\]: '0/0' is not a finite number \(0/0 is undefined\)"),
    ("    a: l1\n", "    a: 0/0\n", r"links\[0\]\.a: '0/0' is not a finite number"),
    ("gravity: [0, -g, 0]", "gravity: [0, 0, 0/0]", r"gravity\[2\]: '0/0' is not a finite"),
    ("g: 9.81", "g: 0/0", r"values\.g: '0/0' is not a finite number"),
    ("    mass: m2\n", "    mass: 1e200*1e200\n",
     r"links\[1\]\.mass: '1e200\*1e200' is not a finite number \(it overflows"),
    ("    mass: m2\n", "    mass: 1/0\n", r"links\[1\]\.mass: '1/0' is not a finite number "
                                          r"\(division by zero\)"),
    ("    mass: m2\n", "    mass: m2/0\n", r"links\[1\]\.mass: 'm2/0' is not a finite"),
    ("    mass: m2\n", "    mass: .nan\n", r"links\[1\]\.mass: nan is not a finite number"),
    ("    mass: m2\n", "    mass: -.inf\n", r"links\[1\]\.mass: -inf is not a finite number"),
    ("    mass: m2\n", "    mass: 1e999\n", r"links\[1\]\.mass: '1e999' is not a finite"),
    ("    mass: m2\n", "    mass: sqrt(-1)*m2\n", r"links\[1\]\.mass: .* is not a real number"),
    ("    mass: m2\n", "    mass: (-8)**(1/3)\n", r"links\[1\]\.mass: .* is not a real number"),
    # with symbols, found when the values are substituted
    ("    mass: m1\n", "    mass: m1/(l1 - 0.5)\n",
     r"links\[0\]\.mass: m1/\(l1 - 0.5\) with these values is not a finite number "
     r"\(a division by zero\)"),
    ("    mass: m2\n", "    mass: (m2 - 2)**0.5\n",
     r"links\[1\]\.mass: .* with these values is not a real number"),
    ("gravity: [0, -g, 0]", "gravity: [0, -g*1e308, 0]",
     r"gravity\[1\]: .* with these values is not a finite number \(it is infinite"),
    ("friction: {viscous: Fv1, coulomb: 0}", "friction: {viscous: Fv1*1e308*100, coulomb: 0}",
     r"links\[0\]\.friction\.viscous: .* with these values is not a finite number"),
])
def test_not_finite_numbers_are_named_errors(tmp_path, old, new, message):
    with pytest.raises(ModelError, match=message):
        rd.load(write(tmp_path, replaced(old, new)))


def test_values_that_overflow_an_expression_are_named(tmp_path):
    robot = rd.load(write(tmp_path, GOOD))
    # inertia yy = m1*l1**2/12 = 2e400/12: beyond the float range
    with pytest.raises(ModelError, match=r"links\[0\]\.inertia\.yy: .* with these values is not "
                                         r"a finite number"):
        robot.with_values(l1=1e200).mass_matrix(np.zeros(2))
    with pytest.raises(ModelError, match=r"values\.g: nan is not a finite number"):
        robot.chain.evaluate({**robot.values, "g": math.nan})


def test_an_overflowed_float_inertia_is_named():
    """A URDF gives floats; a merged inertia that overflowed is ``inf``."""
    robot = rd.load("planar-2r")
    link = robot.chain.links[1]
    inf_link = dataclasses.replace(link, inertial=Inertial(
        1.0, (0.0, 0.0, 0.0), ((math.inf, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))))
    chain = dataclasses.replace(robot.chain, links=(robot.chain.links[0], inf_link))
    with pytest.raises(ModelError, match=r"links\[1\]\.inertia\.xx: inf is not a finite number"):
        chain.evaluate(robot.values)


def test_check_physical_says_nan_is_not_finite():
    robot = rd.load("planar-2r")
    numeric = robot.numeric_chain
    link = numeric.links[0]
    bad = dataclasses.replace(link, inertial=dataclasses.replace(link.inertial, mass=math.nan))
    chain = dataclasses.replace(numeric, links=(bad, *numeric.links[1:]))
    with pytest.raises(ModelError, match=r"links\[0\]\.mass: nan is not a finite number"):
        check_physical(chain)


# -- 7. parameter names that SymPy reads as its own objects -------------------------------
SYMPY_NAMES = ["I", "E", "N", "S", "O", "Q", "gamma", "beta", "zeta", "oo", "nan", "zoo",
               "Matrix", "exp", "print"]


@pytest.mark.parametrize("name", SYMPY_NAMES)
def test_sympy_names_are_rejected_everywhere(tmp_path, name):
    rename = rf"rename the parameter, e\.g\. {name}_1"
    with pytest.raises(ModelError, match=rf"values: '{name}' is .*{rename}"):
        rd.load(write(tmp_path, replaced("m2: 1.0", f"m2: 1.0, {name}: 1.0")))
    with pytest.raises(ModelError, match=rf"links\[1\]\.mass: '{name}' is .*{rename}"):
        rd.load(write(tmp_path, replaced("    mass: m2\n", f"    mass: m2*{name}\n")))
    with pytest.raises(ModelError, match=rf"with_values: '{name}' is .*{rename}"):
        rd.load(write(tmp_path, GOOD)).with_values(**{name: 1.0})
    # the suggested name is fine
    assert check_parameter_name(f"{name}_1", "x") == f"{name}_1"


def test_imaginary_unit_message():
    with pytest.raises(ModelError, match=r"'I' is SymPy's imaginary unit"):
        check_parameter_name("I", "values")
    with pytest.raises(ModelError, match=r"'lambda' is a Python keyword"):
        check_parameter_name("lambda", "values")
    with pytest.raises(ModelError, match=r"too long"):
        check_parameter_name("m" * 1000, "values")


def test_every_accepted_name_reads_back_as_its_symbol():
    """The other way round: every identifier SymPy's namespace defines is either
    rejected or read back by ``parse_expr`` as the plain symbol of that name."""
    names = {n for n in dir(sp) if expressions._NAME.match(n)} | set(SYMPY_NAMES)
    accepted = 0
    for name in sorted(names):
        try:
            check_parameter_name(name, "x")
        except ModelError:
            continue
        accepted += 1
        assert sp.parse_expr(name) == sp.Symbol(name), name
    assert accepted > 0  # e.g. names of SymPy's submodules, which parse_expr does not see


def _parse_doubles(text: str):
    """``parse_expr(text)`` with each number the double it stands for: JSON writes plain
    decimals (``0.30000000000000004``, issue 18), which SymPy reads at 17 digits."""
    return sp.parse_expr(text).replace(lambda x: x.is_Float,
                                       lambda x: sp.Float(float(x), precision=53))


@pytest.mark.slow
@pytest.mark.parametrize("name", SYMBOLIC_MODELS)
def test_derived_json_parses_back_exactly(name):
    eq = rd.load(name).equations()
    data = json.loads(eq.json())
    for key in ("M", "C"):
        parsed = sp.Matrix([[_parse_doubles(x) for x in row] for row in data[key]])
        assert parsed == getattr(eq, key), key
    for key in ("g", "friction", "Cqd", "tau"):
        assert sp.Matrix([_parse_doubles(x) for x in data[key]]) == getattr(eq, key), key
    for key in ("kinetic_energy", "potential_energy"):
        # printed from an unevaluated product, so parse_expr's result is equal, not identical
        assert sp.expand(_parse_doubles(data[key]) - getattr(eq, key)) == 0, key
    assert [sp.parse_expr(p) for p in data["parameters"]] == list(eq.params)


def test_renamed_parameters_read_back(tmp_path):
    """A model using the suggested names (``I_1``, ``E_1``, ``gamma_1``) derives equations
    whose JSON reads back exactly (``I`` made tau ``1.609 + 1.0*I`` before)."""
    text = (GOOD.replace("Ixx1", "I_1").replace("Fv1", "gamma_1").replace("m2", "E_1"))
    eq = rd.load(write(tmp_path, text)).equations()
    data = json.loads(eq.json())
    assert sp.Matrix([sp.parse_expr(x) for x in data["tau"]]) == eq.tau
    assert {"I_1", "gamma_1", "E_1"} <= {str(s) for s in eq.params}
