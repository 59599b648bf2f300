"""``eq.regressor(parameters=[...])``: ``tau = Y pi`` in the model's own symbols.

Seed 004 (Siciliano 7.4) writes ``tau = y(q, qd, qdd) pi`` with ``pi = [m_l1, I_l1, m_l2,
I_l2]`` for its two-link planar arm (built-in ``planar-2r-dh``) and prints ``y`` entry by
entry; those entries are written out here by hand (the seed's ``y_111 .. y_222``, with its
``l_1, l_2`` the COM distances and ``a_1`` the first link length). The point-mass arm
(``planar-2r-payload``) is checked against ``Y`` differentiated by hand from its closed form.
"""

from __future__ import annotations

import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError

a1, l1, l2, g = sp.symbols("a1 l1 l2 g")
q1, q2, qd1, qd2, qdd1, qdd2 = sp.symbols("q1 q2 qd1 qd2 qdd1 qdd2")
c1, c2, c12, s2 = sp.cos(q1), sp.cos(q2), sp.cos(q1 + q2), sp.sin(q2)

# seed 004, "Parameterization": rows tau_1, tau_2; columns m_l1, I_l1, m_l2, I_l2
Y_SEED_004 = sp.Matrix([
    [l1**2 * qdd1 + g * l1 * c1,
     qdd1,
     (a1**2 + l2**2 + 2 * a1 * l2 * c2) * qdd1 + (a1 * l2 * c2 + l2**2) * qdd2
     - 2 * a1 * l2 * s2 * qd1 * qd2 - a1 * l2 * s2 * qd2**2 + g * (a1 * c1 + l2 * c12),
     qdd1 + qdd2],
    [0, 0,
     (a1 * l2 * c2 + l2**2) * qdd1 + l2**2 * qdd2 + a1 * l2 * s2 * qd1**2 + g * l2 * c12,
     qdd1 + qdd2]])


def _same(a: sp.Matrix, b: sp.Matrix) -> bool:
    return all(sp.simplify(sp.expand_trig(sp.expand(x))) == 0 for x in a - b)


def test_seed_004s_parameter_vector_gives_the_seeds_y():
    eq = rd.load("planar-2r-dh").equations()
    reg = eq.regressor(parameters=["ml1", "Il1", "ml2", "Il2"])
    Y, pi = reg
    assert list(pi) == list(sp.symbols("ml1 Il1 ml2 Il2"))
    assert _same(Y, Y_SEED_004)
    assert reg.rest == sp.zeros(2, 1)  # pi holds every term's parameter
    assert reg.check()
    assert _same(Y * pi, eq.tau)
    # the same from the Newton-Euler equations and from a comma-separated string
    ne = rd.load("planar-2r-dh").equations(method="newton-euler")
    assert _same(ne.regressor(parameters="ml1, Il1,ml2,Il2").Y, Y_SEED_004)


def test_the_point_mass_arm_in_its_masses_and_inertias():
    mL1, mL2, m2, mE, I1, I2, c1_, c2_ = sp.symbols("mL1 mL2 m2 mE I1 I2 c1 c2")
    pi = [mL1, mL2, m2, mE, I1, I2]
    # by hand from tau = M qdd + C qd + g of tests/model/test_point_masses.py:
    # d tau / d p for each mass and inertia
    Y = sp.Matrix([
        [c1_**2 * qdd1 + g * c1_ * c1,
         (l1**2 + c2_**2 + 2 * l1 * c2_ * c2) * qdd1 + (c2_**2 + l1 * c2_ * c2) * qdd2
         - l1 * c2_ * s2 * (2 * qd1 * qd2 + qd2**2) + g * l1 * c1 + g * c2_ * c12,
         l1**2 * qdd1 + g * l1 * c1,
         (l1**2 + l2**2 + 2 * l1 * l2 * c2) * qdd1 + (l2**2 + l1 * l2 * c2) * qdd2
         - l1 * l2 * s2 * (2 * qd1 * qd2 + qd2**2) + g * l1 * c1 + g * l2 * c12,
         qdd1, qdd1 + qdd2],
        [0,
         (c2_**2 + l1 * c2_ * c2) * qdd1 + c2_**2 * qdd2 + l1 * c2_ * s2 * qd1**2
         + g * c2_ * c12,
         0,
         (l2**2 + l1 * l2 * c2) * qdd1 + l2**2 * qdd2 + l1 * l2 * s2 * qd1**2 + g * l2 * c12,
         0, qdd1 + qdd2]])
    reg = rd.load("planar-2r-payload").equations().regressor(parameters=[str(p) for p in pi])
    assert _same(reg.Y, Y) and reg.rest == sp.zeros(2, 1) and reg.check()


def test_a_part_of_the_parameters_leaves_the_rest():
    eq = rd.load("planar-2r-dh").equations()
    reg = eq.regressor(parameters=["ml1"])
    assert _same(reg.Y, Y_SEED_004[:, 0])
    assert _same(reg.Y * reg.pi + reg.rest, eq.tau)
    assert not reg.rest.free_symbols & {sp.Symbol("ml1")}
    assert reg.check()


def test_friction_parameters_are_linear_too():
    # seed 002's pendulum: (Izz + m l^2) qdd + F qd + m g l sin(q) = tau; Y in (F, m, Izz)
    eq = rd.load("pendulum").equations()
    reg = eq.regressor(parameters=["F", "m", "Izz"])
    l = sp.Symbol("l")
    assert _same(reg.Y, sp.Matrix([[qd1, l**2 * qdd1 + g * l * sp.sin(q1), qdd1]]))
    assert reg.rest == sp.zeros(1, 1)
    assert reg.check() and _same(reg.Y * reg.pi + reg.rest, eq.tau)


@pytest.mark.parametrize("parameters, needle", [
    (["l1"], "not linear in l1: a term has l1**2"),
    (["ml2", "a1"], "not linear in ml2 and a1 together"),
    (["q1"], "'q1' is a joint variable"),
    (["qdd2"], "'qdd2' is a joint variable"),
    (["mass"], "'mass' is not a symbol of planar-2r-dh; its symbols: Il1, Il2, a1"),
    (["ml1", "ml1"], "'ml1' is listed twice"),
    ([], "give one or more"),
    ("ml1,,Il1", "give one or more"),
    (["x" * 500], "..."),
    (42, "expected a list"),
])
def test_bad_parameter_lists_are_clear_errors(parameters, needle):
    eq = rd.load("planar-2r-dh").equations()
    with pytest.raises(InputError) as err:
        eq.regressor(parameters=parameters)
    assert needle in str(err.value)
    assert len(str(err.value)) < 400


def test_a_symbolic_angle_inside_a_cosine_is_not_linear(tmp_path):
    from conftest import write_model

    path = write_model(tmp_path, """
        links:
          - {joint: revolute, a: l, alpha: al, mass: m, com: [0, 0, 0]}
          - {joint: revolute, a: l, mass: m, com: [0, 0, 0]}
        """)
    eq = rd.load(path).equations()
    with pytest.raises(InputError, match="not linear in al"):
        eq.regressor(parameters=["m", "al"])


def test_cli_derive_parameters(capsys):
    assert main(["derive", "planar-2r-dh", "--regressor", "--parameters", "ml1,Il1,ml2,Il2",
                 "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert "pi = [ml1, Il1, ml2, Il2]" in out and "checked: Y pi == tau exactly" in out
    row2 = [line for line in out.splitlines() if line.startswith("Y[2] = ")][0]
    assert row2.startswith("Y[2] = [0, 0, ")
    assert main(["derive", "planar-2r-dh", "--parameters", "ml1", "--format", "json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)["regressor"]
    assert data["pi"] == ["ml1"] and len(data["tau - Y pi"]) == 2


@pytest.mark.parametrize("value, needle", [("l1", "not linear in l1"),
                                           ("nope", "'nope' is not a symbol")])
def test_cli_bad_parameters_are_one_line_errors(capsys, value, needle):
    assert main(["derive", "planar-2r-dh", "--parameters", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("robodyn: error: --parameters: ") and needle in err
    assert len(err.strip().splitlines()) == 1
