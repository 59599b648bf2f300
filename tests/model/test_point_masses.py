"""Point masses on a link (``point_masses: [{mass: mE, at: [l2, 0, 0]}]``): the arm of the
dynamics tutorial (seed 001), built in as ``planar-2r-payload``, against its closed form
derived by hand, against Pinocchio (each point mass a body of its own on the joint) and
through every consumer: the four symbolic routes, the numeric kernels, the regressor and
URDF export; and the model file's checks.

Hand derivation (planar, gravity -y0, link i: mass mLi at c_i from joint i, moment I_i
about it; m2 at the tip of link 1, mE at the tip of link 2). Positions:
p_c1 = c1 (c1, s1), p_m2 = l1 (c1, s1), p_c2 = l1 (c1, s1) + c2 (c12, s12),
p_E = l1 (c1, s1) + l2 (c12, s12). With |v|^2 of each and
K = sum 1/2 m |v|^2 + 1/2 I1 qd1^2 + 1/2 I2 (qd1 + qd2)^2::

    M11 = I1 + I2 + mL1 c1^2 + m2 l1^2 + mL2 (l1^2 + c2^2 + 2 l1 c2 cos q2)
          + mE (l1^2 + l2^2 + 2 l1 l2 cos q2)
    M12 = I2 + mL2 (c2^2 + l1 c2 cos q2) + mE (l2^2 + l1 l2 cos q2)
    M22 = I2 + mL2 c2^2 + mE l2^2

and U = g (mL1 y_c1 + m2 y_m2 + mL2 y_c2 + mE y_E), so::

    g1 = g (mL1 c1 + (m2 + mL2 + mE) l1) cos q1 + g (mL2 c2 + mE l2) cos(q1 + q2)
    g2 = g (mL2 c2 + mE l2) cos(q1 + q2)

With mL1 = mL2 = 0 these are the tutorial's Euler-Lagrange equations (seed 001, written
out below as the seed prints them, Coriolis term included).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import write_model
from robodyn.core.errors import ModelError

I1, I2, c1, c2, l1, l2, g, m2, mE, mL1, mL2 = sp.symbols(
    "I1 I2 c1 c2 l1 l2 g m2 mE mL1 mL2")
q1, q2, qd1, qd2, qdd1, qdd2 = sp.symbols("q1 q2 qd1 qd2 qdd1 qdd2")

M_HAND = sp.Matrix([
    [I1 + I2 + mL1 * c1**2 + m2 * l1**2 + mL2 * (l1**2 + c2**2 + 2 * l1 * c2 * sp.cos(q2))
     + mE * (l1**2 + l2**2 + 2 * l1 * l2 * sp.cos(q2)),
     I2 + mL2 * (c2**2 + l1 * c2 * sp.cos(q2)) + mE * (l2**2 + l1 * l2 * sp.cos(q2))],
    [I2 + mL2 * (c2**2 + l1 * c2 * sp.cos(q2)) + mE * (l2**2 + l1 * l2 * sp.cos(q2)),
     I2 + mL2 * c2**2 + mE * l2**2]])
G_HAND = sp.Matrix([
    g * (mL1 * c1 + (m2 + mL2 + mE) * l1) * sp.cos(q1) + g * (mL2 * c2 + mE * l2)
    * sp.cos(q1 + q2),
    g * (mL2 * c2 + mE * l2) * sp.cos(q1 + q2)])


def _zero(expr) -> bool:
    """Whether ``expr`` (an expression or a matrix) is identically 0."""
    entries = list(expr) if isinstance(expr, sp.MatrixBase) else [expr]
    return all(sp.simplify(sp.expand_trig(sp.expand(e))) == 0 for e in entries)


@pytest.fixture(scope="module")
def arm():
    return rd.load("planar-2r-payload")


@pytest.mark.parametrize("method, route", [("lagrange", "euler-lagrange"),
                                           ("lagrange", "energy"), ("lagrange", "jacobian"),
                                           ("newton-euler", None)])
def test_every_route_gives_the_hand_derived_m_and_g(arm, method, route):
    eq = arm.equations(method=method, route=route)
    assert _zero(eq.M - M_HAND)
    assert _zero(eq.g - G_HAND)


def test_without_link_masses_it_is_the_tutorials_arm(arm):
    # seed 001, "For Joint 1" and "For Joint 2", with chi -> q
    tau1 = ((I1 + I2 + (m2 + mE) * l1**2 + mE * l2**2 + 2 * mE * l1 * l2 * sp.cos(q2)) * qdd1
            + (I2 + mE * l2**2 + mE * l1 * l2 * sp.cos(q2)) * qdd2
            - mE * l1 * l2 * sp.sin(q2) * (2 * qd1 * qd2 + qd2**2)
            + (m2 + mE) * g * l1 * sp.cos(q1) + mE * g * l2 * sp.cos(q1 + q2))
    tau2 = ((I2 + mE * l2**2 + mE * l1 * l2 * sp.cos(q2)) * qdd1 + (I2 + mE * l2**2) * qdd2
            + mE * l1 * l2 * sp.sin(q2) * qd1**2 + mE * g * l2 * sp.cos(q1 + q2))
    eq = arm.equations().subs({"mL1": 0, "mL2": 0})
    assert _zero(eq.tau[0] - tau1) and _zero(eq.tau[1] - tau2)


@pytest.mark.slow
def test_the_steps_show_the_point_masses(arm):
    ne = " ".join(f"{s.lhs} {s.formula}" for s in arm.equations(method="newton-euler").steps)
    # the templates use the model's own names: the point mass mE, the COM vector c[2]
    # (the model's scalar c2 is taken)
    for needle in ("F_2,1 mE vdc_2,1", "c_2,1", "n_2 N_2 + c[2] x F_2 + c_2,1 x F_2,1"):
        assert needle in ne
    le = " ".join(f"{s.lhs} {s.formula}" for s in arm.equations().steps)
    assert "p_c2,1 o_2 + R_2 c_2,1" in le and "+ 1/2 mE v_c2,1^T v_c2,1" in le


def _state(seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2)


def _hand_numbers(values, q):
    table = {sp.Symbol(k): v for k, v in values.items()}
    table.update({q1: q[0], q2: q[1]})
    return (np.array(M_HAND.subs(table), dtype=float),
            np.array(G_HAND.subs(table), dtype=float).ravel())


def test_numeric_kernels_equal_the_hand_closed_form(arm, numpy_backend):
    q, qd, qdd = _state()
    M, gv = _hand_numbers(arm.values, q)
    np.testing.assert_allclose(arm.mass_matrix(q), M, rtol=1e-12)
    np.testing.assert_allclose(arm.gravity_torques(q), gv, rtol=1e-12)
    # kinetic energy 1/2 qd^T M qd; forward dynamics inverts inverse dynamics
    np.testing.assert_allclose(arm.kinetic_energy(q, qd), qd @ M @ qd / 2, rtol=1e-12)
    tau = arm.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(arm.forward_dynamics(q, qd, tau), qdd, rtol=1e-9)
    # C from Christoffel: M' - 2C skew (M' = dM/dq2 qd2 by hand: only q2 enters M)
    h = np.array(sp.diff(M_HAND, q2).subs({**{sp.Symbol(k): v for k, v in arm.values.items()},
                                           q2: q[1]}), dtype=float)
    N = h * qd[1] - 2 * arm.coriolis_matrix(q, qd)
    np.testing.assert_allclose(N, -N.T, atol=1e-12)


def test_numeric_kernels_equal_pinocchio(arm, numpy_backend):
    pin = pytest.importorskip("pinocchio")
    v = arm.values
    model = pin.Model()
    model.gravity.linear = np.array([0.0, -v["g"], 0.0])
    j1 = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "j1")
    j2 = model.addJoint(j1, pin.JointModelRZ(),
                        pin.SE3(np.eye(3), np.array([v["l1"], 0.0, 0.0])), "j2")

    def rod(mass, com, izz):
        return pin.Inertia(mass, np.array([com, 0.0, 0.0]), np.diag([0.0, 0.0, izz]))

    # Pinocchio sums the bodies appended to a joint itself: body, then the point mass
    model.appendBodyToJoint(j1, rod(v["mL1"], v["c1"], v["I1"]), pin.SE3.Identity())
    model.appendBodyToJoint(j1, rod(v["m2"], v["l1"], 0.0), pin.SE3.Identity())
    model.appendBodyToJoint(j2, rod(v["mL2"], v["c2"], v["I2"]), pin.SE3.Identity())
    model.appendBodyToJoint(j2, rod(v["mE"], v["l2"], 0.0), pin.SE3.Identity())
    data = model.createData()
    for seed in range(5):
        q, qd, qdd = _state(seed)
        np.testing.assert_allclose(arm.inverse_dynamics(q, qd, qdd),
                                   pin.rnea(model, data, q, qd, qdd), rtol=1e-10, atol=1e-12)
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        np.testing.assert_allclose(arm.mass_matrix(q), M, rtol=1e-10)
        np.testing.assert_allclose(arm.coriolis_matrix(q, qd),
                                   pin.computeCoriolisMatrix(model, data, q, qd), atol=1e-10)
        tau = np.array([0.3, -0.2])
        np.testing.assert_allclose(arm.forward_dynamics(q, qd, tau),
                                   pin.aba(model, data, q, qd, tau), rtol=1e-9)


def test_the_regressor_holds_the_point_masses_in_the_links_parameters(arm, numpy_backend):
    names, pi = arm.inertial_parameters()
    v = arm.values
    table = dict(zip(names, pi, strict=True))
    # link 2 about its frame origin (joint 2): hand sums of body and payload
    assert table["m2"] == pytest.approx(v["mL2"] + v["mE"])
    assert table["mx2"] == pytest.approx(v["mL2"] * v["c2"] + v["mE"] * v["l2"])
    assert table["ZZ2"] == pytest.approx(v["I2"] + v["mL2"] * v["c2"] ** 2
                                         + v["mE"] * v["l2"] ** 2)
    assert table["m1"] == pytest.approx(v["mL1"] + v["m2"])
    q, qd, qdd = _state(7)
    np.testing.assert_allclose(arm.regressor(q, qd, qdd) @ pi, arm.inverse_dynamics(q, qd, qdd),
                               rtol=1e-10)
    Y, p = arm.equations().regressor()
    assert arm.equations().regressor().check()
    assert sp.expand(arm.equations().regressor().values[sp.Symbol("mx2")]
                     - (mL2 * c2 + mE * l2)) == 0


def test_urdf_export_folds_the_point_masses_into_the_inertial(arm, tmp_path, numpy_backend):
    path = tmp_path / "payload.urdf"
    arm.to_urdf(path)
    import xml.etree.ElementTree as ET

    v = arm.values
    link2 = [e for e in ET.parse(path).getroot().iter("link") if e.get("name") == "link2"][0]
    total = v["mL2"] + v["mE"]
    com = (v["mL2"] * v["c2"] + v["mE"] * v["l2"]) / total
    izz = v["I2"] + v["mL2"] * (v["c2"] - com) ** 2 + v["mE"] * (v["l2"] - com) ** 2
    assert float(link2.find("inertial/mass").get("value")) == pytest.approx(total)
    assert [float(x) for x in link2.find("inertial/origin").get("xyz").split()] == \
        pytest.approx([com, 0, 0])
    assert float(link2.find("inertial/inertia").get("izz")) == pytest.approx(izz)
    back = rd.load(path)
    q, qd, qdd = _state(5)
    np.testing.assert_allclose(back.inverse_dynamics(q, qd, qdd), arm.inverse_dynamics(q, qd, qdd),
                               rtol=1e-9)


def test_standard_dh_positions_are_in_the_dh_frames(tmp_path, numpy_backend):
    # the same arm in standard DH: frame i at the tip of link i, so the COM at c_i - l_i
    # and the payload at the frame origin; it must give the same dynamics
    path = write_model(tmp_path, """
        name: std
        dh: standard
        gravity: [0, -g, 0]
        planar: true
        links:
          - {joint: revolute, a: l1, mass: mL1, com: [c1 - l1, 0, 0], inertia: [0, 0, I1, 0, 0, 0],
             point_masses: [{mass: m2, at: [0, 0, 0]}]}
          - {joint: revolute, a: l2, mass: mL2, com: [c2 - l2, 0, 0], inertia: [0, 0, I2, 0, 0, 0],
             point_masses: [{mass: mE, at: [0, 0, 0]}]}
        values: {mL1: 2.0, mL2: 1.2, m2: 0.8, mE: 0.5, l1: 0.7, l2: 0.5, c1: 0.35, c2: 0.25,
                 I1: 0.08, I2: 0.025, g: 9.81}
        """)
    std = rd.load(path)
    assert _zero(std.equations().M - M_HAND) and _zero(std.equations().g - G_HAND)
    q, qd, qdd = _state(9)
    np.testing.assert_allclose(std.inverse_dynamics(q, qd, qdd),
                               rd.load("planar-2r-payload").inverse_dynamics(q, qd, qdd),
                               rtol=1e-12)


LINK = "{joint: revolute, a: 1, mass: 1, %s}"


@pytest.mark.parametrize("field, needle", [
    ("point_masses: [{mass: -1, at: [1, 0, 0]}]", "point_masses[0].mass"),
    ("point_masses: [{mass: 1, at: [1, 0]}]", "point_masses[0].at: expected a list of 3"),
    ("point_masses: [{mass: 1, at: [1, 0, 0], inertia: 2}]", "unknown key(s) 'inertia'"),
    ("point_masses: [{at: [1, 0, 0]}]", "point_masses[0].mass: missing"),
    ("point_masses: [{mass: 1}]", "point_masses[0].at: missing"),
    ("point_masses: {mass: 1, at: [1, 0, 0]}", "point_masses: expected a list"),
    ("point_masses: [3]", "point_masses[0]: expected a mapping"),
    ("point_masses: [{mass: sqrt(-1), at: [1, 0, 0]}]", "point_masses[0].mass: 'sqrt(-1)'"),
    ("point_masses: [{mass: -1/2 - 1/2, at: [1, 0, 0]}]", "is not a mass (a finite number"),
    ("point_masses: [{mass: 1/0, at: [1, 0, 0]}]", "point_masses[0].mass"),
    ("point_masses: [{mass: 1, at: [__import__, 0, 0]}]", "point_masses[0].at[0]"),
    ("point_masses: [{mass: mp, at: [1, 0, 0]}]", "point_masses[0].mass: -2 is negative"),
    ("point_masses: [" + ", ".join(["{mass: 1, at: [0, 0, 0]}"] * 101) + "]",
     "at most 100 per link"),
])
def test_bad_point_masses_are_clear_errors(tmp_path, field, needle):
    path = write_model(tmp_path, "links:\n  - " + LINK % field
                       + "\nvalues: {mp: -2, g: 9.81}\n")
    with pytest.raises(ModelError) as err:
        robot = rd.load(path)
        robot.numeric_chain  # noqa: B018 - a symbolic mass is checked with its value
    assert needle in str(err.value), str(err.value)
    assert "links[0]" in str(err.value)


def test_identification_round_trips_the_point_masses(arm, numpy_backend):
    """The standard parameters hold body and point masses together: a robot rebuilt from
    them (point masses folded in) has the same dynamics, and so has the model with every
    inertial parameter a symbol at its defaults."""
    from robodyn.identification.parameters import with_symbolic_inertia

    rebuilt = arm.with_inertial_parameters(arm.inertial_parameters())
    assert all(not link.point_masses for link in rebuilt.chain.links)
    symbolic = with_symbolic_inertia(arm)
    q, qd, qdd = _state(11)
    want = arm.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(rebuilt.inverse_dynamics(q, qd, qdd), want, rtol=1e-10)
    np.testing.assert_allclose(symbolic.inverse_dynamics(q, qd, qdd), want, rtol=1e-10)
