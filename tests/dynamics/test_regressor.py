"""The regressor ``tau = Y(q, qd, qdd) pi`` and the base parameters (issue 10).

Oracles: the core's inverse dynamics (``Y pi`` must reproduce it, friction and armature
included), Pinocchio's ``computeJointTorqueRegressor`` (the rank of the rigid-body part),
and the textbook base set of the planar 2R.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import TEST_DATA
from robodyn.symbolic.base_parameters import random_states

DATA = TEST_DATA / "urdf"


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        return rd.load(name)


def _ur5():
    try:
        path = rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf")
    except rd.ModelError as exc:
        pytest.skip(str(exc))
    return rd.load(path, tip="tool0")


ROBOTS = {name: (lambda name=name: _load(name)) for name in rd.models.names()}
ROBOTS["ur5"] = _ur5
ROBOTS["rpc_branch"] = lambda: rd.load(DATA / "rpc_branch.urdf", tip="tool")


def _with_friction(robot):
    """Give every joint friction (the built-in models mostly have none)."""
    from dataclasses import replace

    from robodyn.model.chain import Friction

    links = tuple(replace(link, friction=Friction(0.3 + 0.1 * i, 0.2 + 0.05 * i))
                  for i, link in enumerate(robot.chain.links))
    return robot.with_chain(replace(robot.chain, links=links))


@pytest.mark.parametrize("name", list(ROBOTS))
def test_regressor_times_parameters_is_inverse_dynamics(name):
    robot = _with_friction(ROBOTS[name]())
    names, pi = robot.inertial_parameters()
    q, qd, qdd = random_states(robot.chain, 40, seed=3)
    Y = robot.regressor(q, qd, qdd)
    assert Y.shape == (40, robot.dof, len(names))
    tau = robot.inverse_dynamics(q, qd, qdd)
    scale = np.abs(tau).max()
    np.testing.assert_allclose(Y @ pi, tau, rtol=1e-10, atol=1e-10 * scale)
    # one state and a batch agree
    np.testing.assert_allclose(robot.regressor(q[5], qd[5], qdd[5]), Y[5], rtol=1e-14,
                               atol=1e-14 * np.abs(Y).max())


def test_parameter_names_and_values_follow_the_documented_order():
    robot = _load("puma560")
    names, pi = robot.inertial_parameters()
    assert names[:10] == ("m1", "mx1", "my1", "mz1", "XX1", "XY1", "XZ1", "YY1", "YZ1", "ZZ1")
    assert names[60:64] == ("Fv1", "Fs1", "Fv2", "Fs2")
    assert names[72:] == tuple(f"Ia{j}" for j in range(1, 7))
    link2 = robot.numeric_chain.links[1].inertial
    m, c = link2.mass, np.array(link2.com)
    d = dict(zip(names, pi))
    assert d["mx2"] == pytest.approx(m * c[0])
    # parallel axis: ZZ about the origin = Izz_c + m (cx^2 + cy^2); XY = Ixy_c - m cx cy
    assert d["ZZ2"] == pytest.approx(link2.inertia[2][2] + m * (c[0] ** 2 + c[1] ** 2))
    assert d["XY2"] == pytest.approx(link2.inertia[0][1] - m * c[0] * c[1])
    assert d["Ia1"] == pytest.approx(62.6111 ** 2 * 200e-6)
    # no motors: no armature columns
    assert not any(n.startswith("Ia") for n in _load("planar-2r").inertial_parameters()[0])


def test_with_inertial_parameters_round_trip_and_errors():
    robot = _with_friction(_load("planar-3r"))
    names, pi = robot.inertial_parameters()
    rng = np.random.default_rng(0)
    new_pi = pi.copy()
    new_pi[names.index("m2")] *= 1.5
    new_pi[names.index("mx2")] += 0.1
    new_pi[names.index("ZZ3")] += 0.05
    other = robot.with_inertial_parameters(new_pi)
    np.testing.assert_allclose(other.inertial_parameters().values, new_pi, rtol=1e-12,
                               atol=1e-14)
    q, qd, qdd = rng.normal(size=(3, 10, 3))
    np.testing.assert_allclose(other.inverse_dynamics(q, qd, qdd),
                               robot.regressor(q, qd, qdd) @ new_pi, rtol=1e-10, atol=1e-12)
    bad = pi.copy()
    bad[names.index("m1")] = 0.0
    bad[names.index("mx1")] = 0.3
    with pytest.raises(rd.ModelError, match="m1 = 0 but first moments"):
        robot.with_inertial_parameters(bad)
    with pytest.raises(rd.InputError, match="expected shape"):
        robot.with_inertial_parameters(pi[:-1])
    negative = pi.copy()
    negative[names.index("m2")] = -1.0
    with pytest.raises(rd.ModelError, match=r"links\[1\]\.mass"):
        robot.with_inertial_parameters(negative)


# -- base parameters ------------------------------------------------------------------------
def test_planar_2r_base_set_is_the_textbook_one():
    """Khalil & Dombre, *Modeling, Identification and Control of Robots* (2002), ch. 9
    (the grouping rules) and Gautier & Khalil, "Direct calculation of minimum set of
    inertial parameters of serial robots", IEEE Trans. Robotics and Automation 6(3),
    1990: for a revolute joint j, M_j is grouped into link j-1 as MX_{j-1}R = MX_{j-1} +
    d_j M_j and ZZ_{j-1}R = ZZ_{j-1} + Salpha_j^2 YY_j + (d_j^2 + r_j^2 Salpha_j^2) M_j
    (d_j the distance between the axes, here l1; alpha_j = r_j = 0). So a planar 2R arm
    with link lengths l1, l2 moving in a vertical plane has the rigid-body base parameters
    ZZ1R = ZZ1 + l1^2 m2, MX1R = MX1 + l1 m2, MY1, ZZ2, MX2, MY2 (6); without gravity MX1R
    and MY1 no longer act (4: ZZ1R, ZZ2, MX2, MY2). The mass m1 and every other parameter
    of link 1 never act. Friction adds Fv, Fs per joint."""
    robot = _load("planar-2r")
    base = robot.base_parameters()
    assert base.base_names == ("mx1R", "my1", "ZZ1R", "mx2", "my2", "ZZ2",
                               "Fv1", "Fs1", "Fv2", "Fs2")
    # the grouping coefficients in the model's symbols, exactly as the textbook writes them
    assert base.symbolic and base.note == ""
    mx1, my1, zz1, mx2, my2, zz2, m2, l1 = sp.symbols("mx1 my1 ZZ1 mx2 my2 ZZ2 m2 l1")
    expected = {"mx1R": mx1 + l1 * m2, "my1": my1, "ZZ1R": zz1 + l1 ** 2 * m2, "mx2": mx2,
                "my2": my2, "ZZ2": zz2}
    combos = dict(zip(base.base_names, base.combinations))
    for name, expr in expected.items():
        assert sp.expand(combos[name] - expr) == 0, (name, combos[name])
    assert "ZZ1R = ZZ1 + l1**2*m2" in str(base)
    # in the model's own parameters (COM of link i at c_i from joint i, I_i about it):
    # ZZ1 = I1 + m1 c1^2 by the parallel-axis theorem, MX1 = m1 c1 (seed 003's M11, M12)
    I1, c1, m1, c2, I2 = sp.symbols("I1 c1 m1 c2 I2")
    exprs = dict(zip(base.base_names, base.expressions))
    assert sp.expand(exprs["ZZ1R"] - (I1 + m1 * c1 ** 2 + m2 * l1 ** 2)) == 0
    assert sp.expand(exprs["mx1R"] - (m1 * c1 + m2 * l1)) == 0
    assert sp.expand(exprs["ZZ2"] - (I2 + m2 * c2 ** 2)) == 0
    # pi_b = K pi reproduces the torques with the base regressor
    q, qd, qdd = random_states(robot.chain, 30, seed=9)
    np.testing.assert_allclose(robot.regressor_base(q, qd, qdd) @ base.values,
                               robot.inverse_dynamics(q, qd, qdd), rtol=1e-10, atol=1e-10)
    flat = robot.regressor_base(q, qd, qdd).reshape(-1, base.count)
    assert np.linalg.matrix_rank(flat) == base.count
    # without gravity: four rigid-body base parameters; g = 0 is set before the exact solve
    level = robot.with_values(g=0.0).base_parameters()
    assert level.base_names[:4] == ("ZZ1R", "mx2", "my2", "ZZ2") and level.count == 8
    assert level.symbolic and "g = 0" in level.note
    assert sp.expand(level.combinations[0] - (zz1 + l1 ** 2 * m2)) == 0


def _numeric_beta(robot, base, seed=11):
    """``beta`` by least squares on the numeric regressor (independent of robodyn's
    solve): ``W_dep = W_ind beta`` over random states."""
    q, qd, qdd = random_states(robot.chain, 60, seed=seed)
    W = robot.regressor(q, qd, qdd).reshape(-1, len(base.names))
    return np.linalg.lstsq(W[:, list(base.independent)], W[:, list(base.dependent)],
                           rcond=None)[0]


@pytest.mark.parametrize("name", ["planar-3r", "rp-arm"])
def test_symbolic_combinations_evaluate_to_the_numeric_ones(name):
    """The combinations are linear in the standard parameters with coefficients in the
    model's symbols; at the model's values those coefficients are the least-squares
    ``beta`` of the numeric regressor, and the expressions give ``K pi``."""
    robot = _load(name)
    base = robot.base_parameters()
    assert base.symbolic
    values = {sp.Symbol(k): v for k, v in robot.values.items()}
    std = [sp.Symbol(n) for n in base.names]
    beta = _numeric_beta(robot, base)
    for row, (i, combo) in enumerate(zip(base.independent, base.combinations)):
        poly = sp.Poly(combo, *std)
        assert poly.total_degree() == 1
        assert poly.coeff_monomial(std[i]) == 1
        coeffs = [float(poly.coeff_monomial(std[d]).xreplace(values)) for d in base.dependent]
        np.testing.assert_allclose(coeffs, beta[row], rtol=1e-9, atol=1e-9)
    subs = {**values, **{sp.Symbol(k): v for k, v in robot.inertial_parameters()
                         .as_dict().items()}}
    at_values = [float(e.xreplace(subs)) for e in base.expressions]
    np.testing.assert_allclose(at_values, base.values, rtol=1e-12, atol=1e-12)


def test_planar_3r_grouping_is_khalils():
    """Khalil & Dombre (2002), ch. 9 (see the 2R test): the masses of links 3 and 2 are
    grouped into link 2 and then link 1, ZZ1R = ZZ1 + l1^2 (m2 + m3), MX1R = MX1 + l1 (m2 +
    m3), ZZ2R = ZZ2 + l2^2 m3, MX2R = MX2 + l2 m3."""
    base = _load("planar-3r").base_parameters()
    mx1, zz1, mx2, zz2, m2, m3, l1, l2 = sp.symbols("mx1 ZZ1 mx2 ZZ2 m2 m3 l1 l2")
    combos = dict(zip(base.base_names, base.combinations))
    expected = {"ZZ1R": zz1 + l1 ** 2 * (m2 + m3), "mx1R": mx1 + l1 * (m2 + m3),
                "ZZ2R": zz2 + l2 ** 2 * m3, "mx2R": mx2 + l2 * m3}
    for name, expr in expected.items():
        assert sp.expand(combos[name] - expr) == 0, (name, combos[name])


ARM4 = """
name: arm4
dh: standard
gravity: [0, 0, -g]
links:
  - {joint: revolute, a: 0, alpha: pi/2, d: d1, theta: 0, mass: m1, com: [0, 0, 0],
     inertia: [Ixx1, Iyy1, Izz1, 0, 0, 0]}
  - {joint: revolute, a: a2, alpha: 0, d: 0, theta: 0, mass: m2, com: [cx2, 0, 0],
     inertia: [Ixx2, Iyy2, Izz2, 0, 0, 0]}
  - {joint: revolute, a: a3, alpha: pi/2, d: 0, theta: 0, mass: m3, com: [cx3, 0, 0],
     inertia: [Ixx3, Iyy3, Izz3, 0, 0, 0]}
  - {joint: revolute, a: 0, alpha: 0, d: d4, theta: 0, mass: m4, com: [0, 0, cz4],
     inertia: [Ixx4, Iyy4, Izz4, 0, 0, 0]}
values: {d1: 0.3, a2: 0.4, a3: 0.05, d4: 0.35, m1: 3, m2: 2.5, m3: 1.5, m4: 1, cx2: -0.2,
         cx3: -0.02, cz4: -0.1, Ixx1: 0.02, Iyy1: 0.02, Izz1: 0.01, Ixx2: 0.01, Iyy2: 0.05,
         Izz2: 0.05, Ixx3: 0.01, Iyy3: 0.02, Izz3: 0.02, Ixx4: 0.01, Iyy4: 0.01, Izz4: 0.005,
         g: 9.81}
"""


def test_spatial_4r_grouping_follows_gautier_khalil_rules(tmp_path):
    """A spatial 4R arm (standard DH alpha = (90, 0, 90, 0) deg, a = (0, a2, a3, 0), first
    axis vertical along gravity). Its link frames are Khalil's modified-DH frames, with
    d_j = a_{j-1}, alpha_j = alpha_{j-1} and r_j = 0, so Gautier & Khalil's (1990) rules
    for a revolute joint j (YY_j, MZ_j, M_j grouped, applied for j = 4, 3, 2):
    XX_jR = XX_j - YY_j; XX_{j-1} += YY_j; XY_{j-1} += d_j Sa_j MZ_j;
    XZ_{j-1} -= d_j Ca_j MZ_j; YY_{j-1} += Ca_j^2 YY_j + d_j^2 M_j;
    ZZ_{j-1} += Sa_j^2 YY_j + d_j^2 M_j; MX_{j-1} += d_j M_j; MY_{j-1} -= Sa_j MZ_j;
    MZ_{j-1} += Ca_j MZ_j; M_{j-1} += M_j; and of link 1 only ZZ1R acts (axis along
    gravity). Worked by hand for this arm, they give the combinations below."""
    path = tmp_path / "arm4.yaml"
    path.write_text(ARM4)
    robot = rd.load(path)
    base = robot.base_parameters()
    assert base.symbolic
    S = sp.Symbol
    a2, a3, m3, m4 = S("a2"), S("a3"), S("m3"), S("m4")
    yy2, yy3, yy4 = S("YY2"), S("YY3"), S("YY4")
    expected = {
        "ZZ1R": S("ZZ1") + yy2 + yy3 + a3 ** 2 * m4 + a2 ** 2 * (m3 + m4),
        "mx2R": S("mx2") + a2 * (m3 + m4), "my2": S("my2"),
        "XX2R": S("XX2") - yy2 - a2 ** 2 * (m3 + m4), "XY2": S("XY2"),
        "XZ2R": S("XZ2") - a2 * S("mz3"), "YZ2": S("YZ2"),
        "ZZ2R": S("ZZ2") + a2 ** 2 * (m3 + m4),
        "mx3R": S("mx3") + a3 * m4, "my3R": S("my3") - S("mz4"),
        "XX3R": S("XX3") - yy3 + yy4 - a3 ** 2 * m4, "XY3R": S("XY3") + a3 * S("mz4"),
        "XZ3": S("XZ3"), "YZ3": S("YZ3"), "ZZ3R": S("ZZ3") + yy4 + a3 ** 2 * m4,
        "mx4": S("mx4"), "my4": S("my4"), "XX4R": S("XX4") - yy4, "XY4": S("XY4"),
        "XZ4": S("XZ4"), "YZ4": S("YZ4"), "ZZ4": S("ZZ4"),
    }
    combos = dict(zip(base.base_names, base.combinations))
    assert set(combos) == set(expected) | {f"F{k}{j}" for k in "vs" for j in range(1, 5)}
    for name, expr in expected.items():
        assert sp.expand(combos[name] - expr) == 0, (name, combos[name])
    q, qd, qdd = random_states(robot.chain, 20, seed=4)
    np.testing.assert_allclose(robot.regressor_base(q, qd, qdd) @ base.values,
                               robot.inverse_dynamics(q, qd, qdd), rtol=1e-10, atol=1e-10)


def test_symbolic_grouping_falls_back_to_numbers(monkeypatch):
    """Past the limits (joints, time) or for a numeric geometry the coefficients stay
    numeric (the short rational 16/25 = l1^2 at l1 = 0.8) and ``note`` says why."""
    import robodyn.symbolic.base_parameters as bp

    m2, zz1 = sp.symbols("m2 ZZ1")
    monkeypatch.setattr(bp, "SYMBOLIC_MAX_DOF", 1)
    arm = _load("planar-2r")
    base = bp.base_parameters(arm.model, arm.runner)
    assert not base.symbolic and "at most 1 joints" in base.note and base.note in str(base)
    assert sp.expand(dict(zip(base.base_names, base.combinations))["ZZ1R"]
                     - (zz1 + sp.Rational(16, 25) * m2)) == 0
    monkeypatch.setattr(bp, "SYMBOLIC_MAX_DOF", 4)
    monkeypatch.setattr(bp, "SYMBOLIC_TIME", 0.0)
    base = bp.base_parameters(arm.model, arm.runner)
    assert not base.symbolic and "took longer than 0 s" in base.note
    monkeypatch.setattr(bp, "SYMBOLIC_TIME", 10.0)
    numeric = _load("planar-2r").with_chain(_load("planar-2r").numeric_chain)
    base = bp.base_parameters(numeric.model, numeric.runner)
    assert not base.symbolic and "no symbols" in base.note


def test_rank_tolerance_edges():
    """A gravity of 1e-6 makes the gravity-only parameters mx1R, my1 act with a relative
    size ~1e-6: counted with tol 1e-8, not with tol 1e-4."""
    weak = _load("planar-2r").with_values(g=1e-6)
    assert weak.base_parameters(tol=1e-8).count == 10
    assert weak.base_parameters(tol=1e-4).count == 8
    rel = weak.base_parameters(tol=1e-8).R_diag
    names = weak.inertial_parameters().names
    assert 1e-8 < rel[names.index("mx1")] < 1e-4
    with pytest.raises(rd.InputError, match="tol"):
        weak.base_parameters(tol=2.0)


def _pinocchio_rank(model_builder, samples=60):
    pin = pytest.importorskip("pinocchio")
    model = model_builder()
    data = model.createData()
    rng = np.random.default_rng(5)
    rows = []
    for _ in range(samples):
        q = []
        for j in range(1, model.njoints):  # a continuous joint is (cos, sin)
            lo, hi = model.lowerPositionLimit[model.joints[j].idx_q], \
                model.upperPositionLimit[model.joints[j].idx_q]
            angle = rng.uniform(lo, hi) if model.joints[j].nq == 1 and np.isfinite([lo, hi]).all() \
                else rng.uniform(-np.pi, np.pi)
            q += [np.cos(angle), np.sin(angle)] if model.joints[j].nq == 2 else [angle]
        q = np.array(q)
        rows.append(pin.computeJointTorqueRegressor(model, data, q, rng.normal(size=model.nv),
                                                    rng.normal(size=model.nv)).copy())
    W = np.vstack(rows)
    s = np.linalg.svd(W, compute_uv=False)
    return int(np.sum(s > 1e-8 * s[0]))


def _pin_from_robot(robot):
    pin_ = pytest.importorskip("pinocchio")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = robot.to_urdf()
    model = pin_.buildModelFromXML(text)
    # to_urdf turns the base so that gravity is along world -z (Pinocchio's default)
    g = float(np.linalg.norm(robot.numeric_chain.gravity))
    model.gravity = pin_.Motion(np.array([0, 0, -g, 0, 0, 0]))
    return model


def _pin_panda():
    pin_ = pytest.importorskip("pinocchio")
    try:
        path = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    except rd.ModelError as exc:
        pytest.skip(str(exc))
    full = pin_.buildModelFromUrdf(str(path))
    ids = [full.getJointId(n) for n in ("panda_finger_joint1", "panda_finger_joint2")]
    return rd.load(path, tip="panda_hand"), pin_.buildReducedModel(full, ids, pin_.neutral(full))


@pytest.mark.parametrize("name", ["planar-2r", "planar-3r", "puma560", "panda"])
def test_base_parameter_count_is_pinocchio_rank(name):
    if name == "panda":
        robot, model = _pin_panda()
        builder = lambda: model  # noqa: E731
    else:
        robot = _load(name)
        builder = lambda: _pin_from_robot(robot)  # noqa: E731
    base = robot.base_parameters()
    rigid = sum(1 for i in base.independent if i < 10 * robot.dof)
    assert rigid == _pinocchio_rank(builder)


# -- closed forms ----------------------------------------------------------------------------
@pytest.mark.parametrize("name, method", [("planar-2r", "lagrange"), ("rp-arm", "newton-euler"),
                                          ("pendulum", "lagrange"),
                                          ("cartesian-2p", "lagrange")])
def test_symbolic_regressor_times_pi_is_tau_exactly(name, method):
    eq = _load(name).equations(method=method)
    reg = eq.regressor()
    Y, pi = reg
    assert Y.shape == (eq.dof, len(_load(name).inertial_parameters().names))
    assert reg.check()  # the ring's proof
    assert sp.expand(Y * pi.xreplace(reg.values) - eq.tau) == sp.zeros(eq.dof, 1)
    # Y does not depend on the inertial parameters: it evaluates to the numeric regressor
    robot = _load(name)
    q, qd, qdd = random_states(robot.chain, 1, seed=2)
    subs = {**{s: v for s, v in zip(eq.q, q[0])}, **{s: v for s, v in zip(eq.qd, qd[0])},
            **{s: v for s, v in zip(eq.qdd, qdd[0])},
            **{sp.Symbol(k): v for k, v in robot.values.items()}}
    numeric = np.array(Y.xreplace(subs).evalf(), dtype=float)
    np.testing.assert_allclose(numeric, robot.regressor(q[0], qd[0], qdd[0]), atol=1e-12)


def test_derive_regressor_command(capsys):
    from robodyn.cli import main

    assert main(["derive", "rp-arm", "--regressor"]) == 0
    out = capsys.readouterr().out
    assert "checked: Y pi == tau exactly" in out and "ZZ1 = Izz1 + l1**2*m1" in out
    assert main(["derive", "pendulum", "--regressor", "--format", "json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["regressor"]["Y pi == tau"] is True and data["regressor"]["pi"][0] == "m1"
