"""LuGre friction in the closed forms: the bristle deflections z_i are state symbols, the
friction step reads them, every route gives the same equations, the numbers equal the
numeric model (robodyn.motion.lugre.lugre_rates), and a pendulum's equation equals the
one written by hand from the paper (Canudas de Wit et al., IEEE TAC 40(3), 1995)."""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
import types

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.codegen.export import write_files
from robodyn.core.errors import InputError
from robodyn.motion.lugre import lugre_rates

PARAMS = {"sigma0": 1.0e4, "sigma1": 100.0, "sigma2": 0.1, "Fc": 3.0, "Fs": 4.0, "vs": 0.1}
M, A, G0, IZZ = 1.0, 0.5, 9.81, 1.0e-6

PENDULUM = f"""
name: pendulum
dh: standard
gravity: [0, -{G0}, 0]
lugre: {{sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, Fs: 4, vs: 0.1}}
links:
  - joint: revolute
    a: {A}
    mass: {M}
    com: [0, 0, 0]
    inertia: [{IZZ}, {IZZ}, {IZZ}, 0, 0, 0]
"""

# two joints, one per-joint set each; joint 2 without dry friction (Fc = Fs = 0: g = 0)
TWO_LINK = """
name: two_link
dh: standard
gravity: [0, -9.81, 0]
lugre: {sigma0: [1.0e4, 2.0e3], sigma1: [100, 5], sigma2: [0.1, 0.3], Fc: [3, 0],
        Fs: [4, 0], vs: [0.1, 0.2]}
links:
  - joint: revolute
    a: 0.6
    mass: 2.0
    com: [-0.3, 0, 0]
    inertia: [0.03, 0.03, 0.06, 0, 0, 0]
    friction: {viscous: 0.2, coulomb: 0.5}
  - joint: revolute
    a: 0.4
    mass: 1.0
    com: [-0.2, 0, 0]
    inertia: [0.01, 0.01, 0.02, 0, 0, 0]
"""


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory):
    path = tmp_path_factory.mktemp("lugre") / "p.yaml"
    path.write_text(PENDULUM)
    return rd.load(path)


@pytest.fixture(scope="module")
def two_link(tmp_path_factory):
    path = tmp_path_factory.mktemp("lugre") / "two.yaml"
    path.write_text(TWO_LINK)
    return rd.load(path)


def test_pendulum_equals_the_hand_derivation(pendulum):
    eq = pendulum.equations()
    q, qd, qdd, z = sp.symbols("q1 qd1 qdd1 z1")
    assert eq.z == (z,)
    # by hand: the mass at the DH frame's origin, a from the axis; U = m g0 a sin q
    g = 3 + (4 - 3) * sp.exp(-(qd / 0.1) ** 2)
    zdot = qd - 1.0e4 * sp.Abs(qd) * z / g
    friction = 1.0e4 * z + 100 * zdot + 0.1 * qd
    tau = (M * A ** 2 + IZZ) * qdd + M * G0 * A * sp.cos(q) + friction
    rng = np.random.default_rng(3)
    for _ in range(20):
        point = dict(zip((q, qd, qdd, z), rng.normal(size=4) * [1, 0.2, 1, 3e-4],
                         strict=True))
        for mine, hand in ((eq.tau[0], tau), (eq.bristle_rate[0], zdot),
                           (eq.friction[0], friction)):
            assert float(mine.subs(point)) == pytest.approx(float(hand.subs(point)),
                                                            rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("route", ["euler-lagrange", "energy", "jacobian"])
def test_every_route_gives_the_same_equations(two_link, route):
    ne = two_link.equations(method="newton-euler")
    le = two_link.equations(method="lagrange", route=route)
    assert ne.z == le.z == sp.symbols("z1 z2")
    assert sp.expand(ne.tau - le.tau) == sp.zeros(2, 1)
    assert sp.expand(ne.friction - le.friction) == sp.zeros(2, 1)
    assert ne.bristle_rate == le.bristle_rate
    # the Lagrange route's step tau_k = xi_k + friction_k includes LuGre's torque
    if route == "euler-lagrange":
        actuation = [s for s in le.steps if s.lhs == "tau1"][-1].expression
        assert sp.expand(actuation - le.tau[0]) == 0


def test_closed_form_equals_the_numeric_model(two_link):
    eq = two_link.equations(method="newton-euler")
    num = eq.numeric({})
    rng = np.random.default_rng(7)
    qd = np.concatenate([rng.normal(size=(40, 2)) * 0.3, [[0.0, 0.0], [1e-3, -2.0]]])
    z = rng.normal(size=qd.shape) * 4e-4
    dz, force = lugre_rates(two_link.chain.lugre, qd, z)
    model = np.stack([0.2 * qd[:, 0] + 0.5 * np.sign(qd[:, 0]), 0 * qd[:, 1]], axis=-1)
    # LuGre's torque beside joint 1's own viscous 0.2 and Coulomb 0.5
    np.testing.assert_allclose(num.friction(qd, z), force + model, rtol=1e-12, atol=1e-12)
    rates = sp.lambdify([eq.qd, eq.z], list(eq.bristle_rate), "numpy")
    np.testing.assert_allclose(np.stack(rates(qd.T, z.T), axis=-1), dz, rtol=1e-12,
                               atol=1e-12)
    # tau = the numeric inverse dynamics plus the LuGre torque
    q, qdd = rng.normal(size=(2, 2))
    np.testing.assert_allclose(num.tau(q, qd[0], qdd, z=z[0]),
                               two_link.inverse_dynamics(q, qd[0], qdd) + force[0], rtol=1e-12)
    with pytest.raises(InputError, match="bristle"):
        num.friction(qd)


def test_printed_forms_show_the_bristle_equation(pendulum):
    eq = pendulum.equations()
    text = eq.text()
    assert "friction(qd, z)" in text and "dz1/dt = qd1 - " in text
    assert r"\dot z_{1}" in eq.latex() and r"\dot z_{1}" in eq.markdown()
    data = json.loads(eq.json())
    assert data["z"] == ["z1"] and "z1" in data["symbols"]
    point = {"qd1": 0.05, "z1": 2e-4}
    expected = lugre_rates(pendulum.chain.lugre, [0.05], [2e-4])[0][0]
    assert float(sp.sympify(data["dz/dt"][0]).subs(point)) == pytest.approx(expected,
                                                                             rel=1e-12)
    steps = [s.lhs for s in eq.steps]
    assert steps.index("dz/dt") == steps.index("friction") - 1


def test_refused_by_name(pendulum):
    no_lugre = rd.load("planar-2r")
    with pytest.raises(InputError, match="no LuGre"):
        no_lugre.equations(values=True).numeric({}).friction([0.0, 0.0], z=[0.0, 0.0])


def _lugre_states(robot, seed=4, n=4):
    rng = np.random.default_rng(seed)
    q, qd, qdd = rng.normal(size=(3, n, robot.dof))
    z = rng.normal(size=(n, robot.dof)) * 4e-4
    qd[0, 0] = 0.0  # at rest: |qd| = 0
    dz, force = lugre_rates(robot.chain.lugre, qd, z)
    return q, qd, qdd, z, dz, robot.inverse_dynamics(q, qd, qdd) + force, force


def test_the_closed_forms_python_code_takes_z(two_link):
    # the closed forms' own code (eq.to_code): tau, the friction and the forward dynamics
    # read the bristle deflections z, bristle_rate is exported, equal to the numeric model
    (fname, text), = two_link.equations().to_code("python").items()
    module = types.ModuleType(fname[:-3])
    exec(compile(text, fname, "exec"), module.__dict__)  # the file robodyn just wrote
    assert "def regressor" not in text  # F(qd, z) is not linear in LuGre's parameters
    q, qd, qdd, z, dz, tau, force = _lugre_states(two_link)
    np.testing.assert_allclose(module.inverse_dynamics(q, qd, qdd, z), tau, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(module.friction_torques(qd, z),
                               two_link.friction_torques(qd) + force, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(module.bristle_rate(qd, z), dz, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(module.forward_dynamics(q, qd, tau, z), qdd, rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(module.mass_matrix(q), two_link.mass_matrix(q), rtol=1e-12)


def test_the_closed_forms_c_code_takes_z(two_link, tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the C export is not checked")
    write_files(two_link.equations().to_code("c", parameters="argument"), tmp_path)
    done = subprocess.run(["gcc", "-O0", "-std=c99", "-Wall", "-Wextra", "-Werror",
                           "-pedantic", "-shared", "-fPIC", str(tmp_path / "two_link.c"),
                           "-o", str(tmp_path / "libtwo.so"), "-lm"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[:3000]
    lib = ctypes.CDLL(str(tmp_path / "libtwo.so"))
    ptr = ctypes.POINTER(ctypes.c_double)
    eq = two_link.equations()
    p = np.array([two_link.values[str(s)] for s in eq.params])
    q, qd, qdd, z, dz, tau, _ = _lugre_states(two_link, seed=5)

    def call(name, *args):
        out = np.zeros(two_link.dof)
        fn = getattr(lib, f"two_link_{name}")
        fn.restype = None
        arrays = [np.ascontiguousarray(a, dtype=float) for a in args]
        fn(*[a.ctypes.data_as(ptr) for a in arrays], out.ctypes.data_as(ptr))
        return out

    for k in range(len(q)):
        np.testing.assert_allclose(call("inverse_dynamics", p, q[k], qd[k], qdd[k], z[k]),
                                   tau[k], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(call("forward_dynamics", p, q[k], qd[k], tau[k], z[k]),
                                   qdd[k], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(call("bristle_rate", p, qd[k], z[k]), dz[k], rtol=1e-12,
                                   atol=1e-12)


def test_the_regressor_refuses_lugre_by_name(pendulum):
    from robodyn.core.errors import ModelError

    with pytest.raises(ModelError, match="regressor: LuGre friction"):
        pendulum.equations().regressor()


def test_forward_step_of_the_pendulum_is_backward_euler_in_z_by_hand(pendulum):
    # z_1 = z + h (qd - a z_1), a = sigma0 |qd| / g(qd), solved by hand; F at z_1 with
    # dz/dt = (z_1 - z) / h; (M A^2 + Izz) qdd = tau - M g0 A cos q - F; Euler for (q, qd)
    from robodyn.symbolic.forward_steps import forward_steps

    eq = pendulum.equations()
    assert "z1" in str(forward_steps(eq).steps[0][2])  # the symbolic steps read z
    h = 0.01
    for q, v, tau, z in ((0.3, 0.05, 1.0, 2e-4), (-1.0, -0.4, 0.0, -3e-4), (0.2, 0.0, 2.0, 1e-4)):
        fs = forward_steps(eq, {"q": [q], "qd": [v], "tau": [tau], "z": [z]}, dt=h)
        a = 1.0e4 * abs(v) / (3 + np.exp(-(v / 0.1) ** 2))
        z1 = (z + h * v) / (1 + h * a)
        force = 1.0e4 * z1 + 100 * (z1 - z) / h + 0.1 * v
        qdd = (tau - M * G0 * A * np.cos(q) - force) / (M * A ** 2 + IZZ)
        np.testing.assert_allclose(fs.z1, [z1], rtol=1e-13, atol=1e-18)
        np.testing.assert_allclose(fs.qdd, [qdd], rtol=1e-10)
        np.testing.assert_allclose(fs.q1, [q + h * v], rtol=1e-15)
        np.testing.assert_allclose(fs.qd1, [v + h * qdd], rtol=1e-10)
    # stiff: the explicit step z + h dz/dt would overshoot the Stribeck level by far; the
    # implicit one stays below sigma0 z = g (|v| = 0.4: g = Fc = 3)
    assert abs(1.0e4 * forward_steps(eq, {"q": [0.0], "qd": [0.4], "tau": [0.0]}).z1[0]) < 3
    relaxed = forward_steps(eq, {"q": [0.3], "qd": [0.05], "tau": [1.0]})  # z left out: 0
    np.testing.assert_allclose(relaxed.z1, [0.01 * 0.05 / (1 + 0.01 * 500 / (3 + np.exp(-0.25)))])


def test_forward_step_of_two_joints_meets_the_numeric_model(two_link):
    # joint 1 with the model's own friction beside LuGre, joint 2 without dry friction (Fs =
    # 0: dz/dt = qd, z_1 = z + h qd): z_1 solves backward Euler on lugre_rates, and q'' is
    # the recursive forward dynamics under tau - F(qd, z_1)
    from robodyn.symbolic.forward_steps import forward_steps

    h, q, qd, tau, z = 0.005, [0.4, -0.7], [0.3, -0.2], [5.0, 1.0], [1e-4, -2e-4]
    fs = forward_steps(two_link.equations(), {"q": q, "qd": qd, "tau": tau, "z": z}, dt=h)
    rate, force = lugre_rates(two_link.chain.lugre, qd, fs.z1)
    np.testing.assert_allclose(fs.z1 - np.array(z) - h * rate, 0, atol=1e-15)
    assert fs.z1[1] == pytest.approx(z[1] + h * qd[1], rel=1e-14)
    np.testing.assert_allclose(fs.qdd, two_link.forward_dynamics(q, qd, np.subtract(tau, force)),
                               rtol=1e-10, atol=1e-10)


def test_forward_step_refusals_and_cli(pendulum, tmp_path, capsys):
    from robodyn.cli import main
    from robodyn.symbolic.forward_steps import forward_steps

    state = {"q": [0.0], "qd": [0.1], "tau": [0.0]}
    with pytest.raises(InputError, match="integrator: pendulum has LuGre friction.*backward Euler"):
        forward_steps(pendulum.equations(), state, integrator="rk4")
    with pytest.raises(InputError, match="state: z: pendulum has no LuGre friction"):
        forward_steps(rd.load("pendulum").equations(), {**state, "z": [0.0]})
    path = tmp_path / "p.yaml"
    path.write_text(PENDULUM)
    assert main(["derive", str(path), "--forward", "--state",
                 "q=0.3;qd=0.05;tau=1;z=2e-4"]) == 0
    out = capsys.readouterr().out
    z1 = (2e-4 + 0.01 * 0.05) / (1 + 0.01 * 500 / (3 + np.exp(-0.25)))
    assert "backward Euler" in out and f"{z1:.5g}"[:6] in out
