"""The seeds' other Lagrange routes (``route="energy"``: M the Hessian of K, seed 003;
``route="jacobian"``: M and g from the link Jacobians, seeds 002 and 004), the full table
of Christoffel symbols and the skew-symmetry steps ``dM/dt``, ``N = dM/dt - 2C``,
``N + N^T``.

The routes are checked against the default route exactly: all three are derived in one
polynomial ring, where equal closed forms are equal polynomials (normal form), for every
built-in model. The steps are checked against seed 004 written out by hand.
"""

from __future__ import annotations

import warnings

import pytest
import sympy as sp

import robodyn as rd
from conftest import SYMBOLIC_MODELS
from robodyn.cli import main
from robodyn.core.errors import InputError
from robodyn.symbolic import derive, equations
from robodyn.symbolic.derivation import make_ring, tidy_chain


def _ring_derivations(name: str, h_e: bool = False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # puma560's published inertias warn
        robot = rd.load(name)
    chain = tidy_chain(robot.chain)
    ring = make_ring(chain, wrench=h_e)
    return {route: derive(chain, "lagrange", route=route, ring=ring, h_e=h_e).derivation
            for route in ("euler-lagrange", "energy", "jacobian")}


@pytest.mark.parametrize("name", SYMBOLIC_MODELS)
def test_routes_give_identical_M_and_g(name):
    """M and g of the energy route and the Jacobian route equal those of
    tau = d/dt dL/dqd - dL/dq as polynomials in normal form (identical for all q and all
    parameter values), and so do C and tau. puma560 takes about a second per route."""
    d = _ring_derivations(name)
    ref = d["euler-lagrange"]
    for route in ("energy", "jacobian"):
        other = d[route]
        assert other.route == route
        assert other.M == ref.M, f"{name}: M of route {route}"
        assert other.g == ref.g, f"{name}: g of route {route}"
        assert other.C == ref.C and other.tau == ref.tau, f"{name}: C, tau of route {route}"
        assert any(x for row in ref.M for x in row)  # not trivially equal


def test_routes_keep_the_wrench_term():
    d = _ring_derivations("rp-arm", h_e=True)
    assert d["energy"].wrench == d["jacobian"].wrench == d["euler-lagrange"].wrench
    assert any(d["jacobian"].wrench)


def test_jacobian_route_steps_follow_seed_004():
    """Seed 004 (Siciliano §7.4), planar 2R with the model's names (l1 = a_1, c2 = l_2
    of the seed): J_P^(2) = [[-l1 s1 - c2 s12, -c2 s12], [l1 c1 + c2 c12, c2 c12],
    [0, 0]], J_theta^(2) = [[0, 0], [0, 0], [1, 1]], B_2 = m2 J_P^T J_P + I2 [[1, 1], [1, 1]],
    g_2 = m2 g c2 c12."""
    eq = rd.load("planar-2r").equations(route="jacobian")
    steps = {s.lhs: s.expression for s in eq.steps}
    q1, q2 = eq.q
    l1, c2, m2, g, I2 = sp.symbols("l1 c2 m2 g I2")
    s1, c1, s12, c12 = sp.sin(q1), sp.cos(q1), sp.sin(q1 + q2), sp.cos(q1 + q2)
    JP2 = sp.Matrix([[-l1 * s1 - c2 * s12, -c2 * s12], [l1 * c1 + c2 * c12, c2 * c12], [0, 0]])
    assert sp.simplify(steps["J_P^(l2)"] - JP2) == sp.zeros(3, 2)
    assert steps["J_theta^(l2)"] == sp.Matrix([[0, 0], [0, 0], [1, 1]])
    assert steps["J_P^(l1)"][:, 1] == sp.zeros(3, 1)  # columns beyond the link are zero
    # seed 004's indices: joint j turns about z_{j-1} through p_{j-1}, the origin of
    # DH frame j-1 (p_1 = [l1 c1, l1 s1, 0], the seed's P_1 = [a1 c1, a1 s1, 0])
    assert steps["z_0"] == steps["z_1"] == sp.Matrix([0, 0, 1])
    assert steps["p_0"] == sp.zeros(3, 1) and steps["p_1"] == sp.Matrix([l1 * c1, l1 * s1, 0])
    assert "z_2" not in steps and "p_2" not in steps
    B2 = m2 * JP2.T * JP2 + I2 * sp.ones(2, 2)
    assert sp.simplify(steps["B_2"] - B2) == sp.zeros(2, 2)
    assert sp.simplify(steps["g_2"] - m2 * g * c2 * c12) == 0
    titles = [s.section for s in eq.steps]
    assert titles.index("Jacobians of the centres of mass (base frame)") \
        < titles.index("Inertia matrix from the Jacobians") \
        < titles.index("Gravity from the Jacobians") < titles.index("Collecting M, C, g")


def test_energy_route_reads_M_off_K_as_seed_003():
    """Seed 003: M_12 = I2 + m2 (c2^2 + l1 c2 cos q2) as d^2 K / dqd1 dqd2, and K is the
    K the steps show (so the Hessian of the shown K is the shown M_12)."""
    eq = rd.load("planar-2r").equations(route="energy")
    steps = {s.lhs: s for s in eq.steps}
    l1, c2, m2, I2 = sp.symbols("l1 c2 m2 I2")
    q2 = eq.q[1]
    m12 = steps["M_12"].expression
    assert sp.simplify(m12 - (I2 + m2 * (c2**2 + l1 * c2 * sp.cos(q2)))) == 0
    K = steps["K"].expression
    assert sp.simplify(sp.diff(K, eq.qd[0], eq.qd[1]) - m12) == 0
    assert "d^2 K" in steps["M_12"].formula


def test_christoffel_table_and_skew_symmetry_steps_planar_2r():
    """Every c_ijk (zeros included) in the order 111, 112, ..., 222, with seed 004's
    values for h = -m2 l1 c2 sin q2: c112 = c121 = c122 = h, c211 = -h, the rest 0 (the
    seed prints C122 = 0; dM12/dq2 = h is right). Then dM/dt = [[2h qd2, h qd2],
    [h qd2, 0]], N = [[0, -2h qd1 - h qd2], [2h qd1 + h qd2, 0]] (the seed's N has
    -2h qd2 - h qd2; the physics gives qd1), N + N^T = 0."""
    eq = rd.load("planar-2r").equations()
    names = [s.lhs for s in eq.steps if s.title.startswith("Christoffel symbol")]
    assert names == [f"c_{i}{j}{k}" for i in (1, 2) for j in (1, 2) for k in (1, 2)]
    steps = {s.lhs: s.expression for s in eq.steps}
    l1, c2, m2 = sp.symbols("l1 c2 m2")
    (_q1, q2), (qd1, qd2) = eq.q, eq.qd
    h = -m2 * l1 * c2 * sp.sin(q2)
    expected = {"c_112": h, "c_121": h, "c_122": h, "c_211": -h}
    for name in names:
        assert sp.simplify(steps[name] - expected.get(name, 0)) == 0, name
    Mdot = sp.Matrix([[2 * h * qd2, h * qd2], [h * qd2, 0]])
    N = sp.Matrix([[0, -2 * h * qd1 - h * qd2], [2 * h * qd1 + h * qd2, 0]])
    assert sp.simplify(steps["dM/dt"] - Mdot) == sp.zeros(2, 2)
    assert sp.simplify(steps["N"] - N) == sp.zeros(2, 2)
    assert steps["N + N^T"] == sp.zeros(2, 2)
    assert sp.simplify(eq.Mdot - Mdot) == sp.zeros(2, 2)
    assert sp.simplify(eq.N - N) == sp.zeros(2, 2)
    assert eq.steps[-1].section == "Skew-symmetry of dM/dt - 2C"


def test_steps_output_holds_the_table_and_the_skew_check(capsys):
    code = main(["derive", "planar-2r", "--steps", "--format", "text"])
    out = capsys.readouterr().out
    assert code == 0
    for k in ("c_111", "c_122", "c_222", "Skew-symmetry of dM/dt - 2C", "N = dM/dt - 2C",
              "N + N^T (all zero: N is skew-symmetric)"):
        assert k in out, k


@pytest.mark.parametrize("argv, heading", [
    (["--route", "jacobian"], "by Lagrange-Euler (M and g from the Jacobians)"),
    (["--mass-matrix-from", "energy"], "by Lagrange-Euler (M from the kinetic energy)"),
    (["--route", "energy"], "Inertia matrix from the kinetic energy"),
])
def test_cli_route_options(capsys, argv, heading):
    code = main(["derive", "rp-arm", "--steps", "--format", "text", *argv])
    out = capsys.readouterr().out
    assert code == 0 and heading in out
    assert "M11 = Izz1 + Izz2 + l1**2*m1 + m2*q2**2" in out


@pytest.mark.parametrize("argv", [["--route", "jacobian", "--method", "newton-euler"],
                                  ["--route", "jacobian", "--mass-matrix-from", "energy"]])
def test_cli_rejects_conflicting_routes(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(["derive", "rp-arm", *argv])
    assert exc.value.code == 2
    assert "route" in capsys.readouterr().err


def test_route_errors_and_subs_keeps_the_route():
    robot = rd.load("rp-arm")
    with pytest.raises(InputError, match="Lagrange route"):
        equations(robot, method="newton-euler", route="jacobian")
    with pytest.raises(InputError, match="not a route"):
        equations(robot, route="hamilton")
    eq = equations(robot, route="jacobian").subs({"g": 9.81})
    assert eq.route == "jacobian"
    assert any(s.section == "Gravity from the Jacobians" for s in eq.steps)


def test_planar_3r_mass_matrix_splits_by_cosines_as_seed_003_writes_it():
    """Seed 003 (3R arm): M = M_0 + M_1 cos q2 + M_2 cos q3 + M_3 cos(q2 + q3) with constant
    matrices; the coefficient of cos q2 in M11 is 2 l1 (m2 c2 + m3 l2), of cos(q2 + q3) in
    M11 is 2 m3 l1 c3, of cos q3 in M33 is 0 (hand derivation of K_3)."""
    eq = rd.load("planar-3r").equations()
    split = eq.mass_matrix_split()
    q1, q2, q3 = eq.q
    factors = [f for f, _ in split]
    assert factors == [1, sp.cos(q2), sp.cos(q3), sp.cos(q2 + q3)]
    total = sum((f * m for f, m in split), sp.zeros(3, 3))
    assert sp.expand(total - eq.M) == sp.zeros(3, 3)
    parts = dict(split)
    l1, l2, c2, c3, m2, m3 = sp.symbols("l1 l2 c2 c3 m2 m3")
    assert sp.expand(parts[sp.cos(q2)][0, 0] - 2 * l1 * (m2 * c2 + m3 * l2)) == 0
    assert sp.expand(parts[sp.cos(q2 + q3)][0, 0] - 2 * m3 * l1 * c3) == 0
    assert parts[sp.cos(q3)][2, 2] == 0
    assert all(not m.free_symbols & set(eq.q) for _, m in split)
    assert rd.load("rp-arm").equations().mass_matrix_split() is None  # M has q2**2
