"""Closed forms of models with free (floating-base) and ball joints (issue 29): a drone (one
free body), a floating 2R arm (a free base and two revolute joints) and a chain with a ball
joint, every inertial parameter a symbol, by both routes (Newton–Euler; Lagrange in the
Boltzmann–Hamel form), against robodyn's numeric engine at random states (itself checked
against Pinocchio in tests/dynamics) and, where it is installed, against Pinocchio
directly; the routes proven identical in the ring; the properties (``M`` symmetric,
``dM/dt - 2C`` skew); the brackets of the velocity fields; the hand-written Newton–Euler
equations of a free body; every printed form and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.dynamics.kinematics import link_poses
from robodyn.model.chain import Chain, Inertial, Joint, Link, Transform, with_free_base
from robodyn.symbolic import derive, equations, verify
from robodyn.symbolic.derivation import make_ring, tidy_chain
from robodyn.symbolic.ring import TrigRing
from robodyn.symbolic.ring.coordinates import joint_coordinates

g, l1, l2 = sp.symbols("g l1 l2")


def _body(k: int) -> Inertial:
    """A body with every parameter a symbol: ``m{k}``, ``cx{k}``.., ``Ixx{k}``, ``Ixy{k}``.."""
    com = tuple(sp.Symbol(f"c{a}{k}") for a in "xyz")
    inertia = tuple(tuple(sp.Symbol(f"I{min(a, b)}{max(a, b)}{k}") for b in "xyz")
                    for a in "xyz")
    return Inertial(sp.Symbol(f"m{k}"), com, inertia)


def drone() -> Chain:
    return Chain((Link("drone", Joint("free"), _body(1)),), (0, 0, -g))


def floating_2r() -> Chain:
    arm = Chain((Link("link1", Joint("revolute", (0, 0, 1), 0, Transform.trans()), _body(2)),
                 Link("link2", Joint("revolute", (0, 1, 0), 0, Transform.trans(x=l2)),
                      _body(3))), (0, 0, -g))
    return with_free_base(arm, _body(1))


def ball_chain() -> Chain:
    """A revolute joint, a ball joint at ``l1`` along x, a revolute joint about x."""
    return Chain((Link("l1", Joint("revolute", (0, 0, 1), 0, Transform.trans()), _body(1)),
                  Link("l2", Joint("spherical", (0, 0, 1), 0, Transform.trans(x=l1)),
                       _body(2)),
                  Link("l3", Joint("revolute", (1, 0, 0), 0, Transform.trans(z=l2)),
                       _body(3))), (0, 0, -g))


MODELS = {"drone": drone, "floating-2r": floating_2r, "ball-chain": ball_chain}


def _values(chain: Chain, seed: int) -> dict[str, float]:
    """Random values of the chain's parameters with positive definite inertias."""
    rng = np.random.default_rng(seed)
    out = {}
    for s in sorted(chain.free_symbols(), key=str):
        name = str(s)
        if name[:3] in ("Ixx", "Iyy", "Izz"):
            out[name] = rng.uniform(1.0, 2.0)
        elif name[0] in "mlg":
            out[name] = rng.uniform(0.5, 2.0)
        else:  # a com or a product of inertia
            out[name] = rng.uniform(-0.3, 0.3)
    return out


def _numeric_robot(chain: Chain, values: dict) -> rd.Robot:
    return rd.Robot("numbers", chain.subs({sp.Symbol(k): sp.Float(v)
                                           for k, v in values.items()}))


def _states(robot: rd.Robot, seed: int, count: int = 6):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q = robot.integrate(robot.neutral(), rng.normal(size=robot.nv) * 1.5)
        yield q, rng.normal(size=robot.nv), rng.normal(size=robot.nv)


@pytest.fixture(scope="module", params=[
    "drone", pytest.param("floating-2r", marks=pytest.mark.slow),   # 2-6 s a test
    pytest.param("ball-chain", marks=pytest.mark.slow)])
def model(request):
    """``(name, chain, {method: equations})`` of one model, derived once."""
    chain = MODELS[request.param]()
    return request.param, chain, {m: equations(chain, method=m)
                                  for m in ("newton-euler", "lagrange")}


def test_the_coordinates_are_the_numeric_layout(model):
    name, chain, eqs = model
    eq = eqs["lagrange"]
    assert len(eq.q) == chain.nq and eq.dof == chain.nv == len(eq.qd) == len(eq.qdd)
    assert eq.M.shape == eq.C.shape == (chain.nv, chain.nv) and eq.g.shape == (chain.nv, 1)
    if name == "drone":
        assert [str(s) for s in eq.q] == ["x1", "y1", "z1", "qx1", "qy1", "qz1", "qw1"]
        assert [str(s) for s in eq.qd] == ["v_x1", "v_y1", "v_z1", "w_x1", "w_y1", "w_z1"]
        assert str(eq.qdd[3]) == "wd_x1"
    if name == "ball-chain":
        assert [str(s) for s in eq.q] == ["q1", "qx2", "qy2", "qz2", "qw2", "q3"]
        assert [str(s) for s in eq.qd] == ["qd1", "w_x2", "w_y2", "w_z2", "qd3"]


@pytest.mark.parametrize("method", ["newton-euler", "lagrange"])
def test_closed_forms_equal_the_numeric_engine(model, method):
    """``M``, ``C``, ``g`` and ``tau`` of the closed forms (their parameters given numbers)
    equal ``robot.mass_matrix``, ``coriolis_matrix`` (the spatial, Christoffel-consistent
    ``C``), ``gravity_torques`` and ``inverse_dynamics`` to 1e-12 at random states; the
    largest difference measured is 2e-14."""
    name, chain, eqs = model
    values = _values(chain, 1)
    robot = _numeric_robot(chain, values)
    num = eqs[method].numeric(values)
    worst = 0.0
    for q, v, a in _states(robot, 2):
        for got, ref in ((num.M(q), robot.mass_matrix(q)),
                         (num.C(q, v), robot.coriolis_matrix(q, v)),
                         (num.g(q), robot.gravity_torques(q)),
                         (num.tau(q, v, a), robot.inverse_dynamics(q, v, a))):
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
            worst = max(worst, float(np.abs(got - ref).max()))
    assert worst < 1e-12, f"{name} {method}: {worst:.1e}"


def test_both_routes_agree_exactly_and_the_structure_holds(model):
    """``verify`` derives both routes in one ring: ``M``, ``C``, ``g``, ``tau`` identical
    polynomials; each route's checks hold (``M`` symmetric, ``dM/dt - 2C`` skew-symmetric
    with ``dM/dt`` along the velocity fields, ``C qd`` the velocity terms, ``g = X U``,
    ``K = 1/2 qd^T M qd``, the printed forms the derived ones)."""
    name, chain, eqs = model
    agreement = verify(chain)
    assert agreement.holds and agreement.exact, str(agreement)
    assert list(agreement.difference) == [0] * chain.nv
    for method, eq in eqs.items():
        checks = eq.check()
        assert checks, f"{name} {method}: {checks.failed}"
        assert sp.expand(eq.M - eqs["newton-euler"].M) == sp.zeros(chain.nv, chain.nv)


def test_the_other_lagrange_routes_agree_too(model):
    """The energy route (``M`` the Hessian of ``K`` in the velocities, ``g_k = X_k U``) and
    the Jacobian route (each column of a ball or free joint a turn plus a shift) give the
    identical ``M``, ``g``, ``C`` and ``tau``."""
    _, chain, _ = model
    chain = tidy_chain(chain)
    ring = make_ring(chain)
    d = {route: derive(chain, "lagrange", route=route, ring=ring).derivation
         for route in ("euler-lagrange", "energy", "jacobian")}
    for route in ("energy", "jacobian"):
        assert d[route].M == d["euler-lagrange"].M and d[route].g == d["euler-lagrange"].g
        assert d[route].C == d["euler-lagrange"].C
        assert d[route].tau == d["euler-lagrange"].tau


def _pinocchio_model(chain: Chain):
    import pinocchio

    model, ids = pinocchio.Model(), []
    for link, parent in zip(chain.links, chain.parent_indices, strict=True):
        joint = link.joint
        axis = np.array(joint.axis, dtype=float)
        kind = {"free": pinocchio.JointModelFreeFlyer, "spherical": pinocchio.JointModelSpherical}
        jm = kind[joint.type]() if joint.type in kind else (
            pinocchio.JointModelRevoluteUnaligned(axis) if joint.type == "revolute"
            else pinocchio.JointModelPrismaticUnaligned(axis))
        place = pinocchio.SE3(np.array(joint.placement.rotation, dtype=float),
                              np.array(joint.placement.translation, dtype=float))
        jid = model.addJoint(0 if parent < 0 else ids[parent], jm, place, link.name)
        body = link.inertial
        model.appendBodyToJoint(jid, pinocchio.Inertia(
            float(body.mass), np.array(body.com, dtype=float),
            np.array(body.inertia, dtype=float)), pinocchio.SE3.Identity())
        ids.append(jid)
    model.gravity.linear[:] = np.array(chain.gravity, dtype=float)
    return model


def test_closed_forms_equal_pinocchio(model):
    """The same closed forms against Pinocchio's ``crba``, ``computeCoriolisMatrix``,
    ``computeGeneralizedGravity`` and ``rnea`` (its free-flyer and spherical joints use
    the same ``q`` and ``v``)."""
    pinocchio = pytest.importorskip("pinocchio", reason="Pinocchio is a dev dependency")
    name, chain, eqs = model
    values = _values(chain, 3)
    robot = _numeric_robot(chain, values)
    pm = _pinocchio_model(robot.chain)
    data = pm.createData()
    num = eqs["newton-euler"].numeric(values)
    for q, v, a in _states(robot, 4):
        M = pinocchio.crba(pm, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        np.testing.assert_allclose(num.M(q), M, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(num.C(q, v), pinocchio.computeCoriolisMatrix(pm, data, q, v),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(num.g(q), pinocchio.computeGeneralizedGravity(pm, data, q),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(num.tau(q, v, a), pinocchio.rnea(pm, data, q, v, a),
                                   rtol=1e-12, atol=1e-12)


def test_a_free_body_gives_the_newton_euler_equations_in_its_frame():
    """A body with its centre of mass at its origin: ``f = m (vd + w x v) - m R^T g0`` and
    Euler's ``n = I wd + w x I w`` (the transport term of Boltzmann–Hamel is ``w x p``,
    ``w x l + v x p``), by both routes, exactly."""
    m, ixx, iyy, izz = sp.symbols("m Ixx Iyy Izz")
    body = Inertial(m, (0, 0, 0), ((ixx, 0, 0), (0, iyy, 0), (0, 0, izz)))
    chain = Chain((Link("body", Joint("free"), body),), (0, 0, -g))
    for method in ("lagrange", "newton-euler"):
        eq = equations(chain, method=method)
        x, y, z, qx, qy, qz, qw = eq.q
        v, w, vd, wd = (sp.Matrix(eq.qd[:3]), sp.Matrix(eq.qd[3:]), sp.Matrix(eq.qdd[:3]),
                        sp.Matrix(eq.qdd[3:]))
        inertia = sp.diag(ixx, iyy, izz)
        # R^T e_z: the third row of R (unit quaternion, qw^2 written 1 - qx^2 - qy^2 - qz^2)
        up = sp.Matrix([2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx),
                        1 - 2 * (qx ** 2 + qy ** 2)])
        force = m * (vd + w.cross(v)) + m * g * up
        moment = inertia * wd + w.cross(inertia * w)
        assert sp.expand(eq.tau - sp.Matrix([*force, *moment])) == sp.zeros(6, 1), method
    transport = {s.lhs: s.expression for s in equations(chain).steps if s.lhs.startswith("h_")}
    vx, vy, vz, wx, wy, wz = eq.qd
    assert sp.expand(transport["h_v_x1"] - m * (wy * vz - wz * vy)) == 0
    assert sp.expand(transport["h_w_x1"] - (wy * izz * wz - wz * iyy * wy)) == 0


def test_the_brackets_of_the_velocity_fields_are_the_structure_constants():
    """``[X_a, X_b] f = X_a(X_b f) - X_b(X_a f) = sum_c c^c_ab X_c f`` on every
    configuration value ``f`` of a free, a ball and a revolute joint (the constants the
    Christoffel symbols and the transport term use: ``so(3)``'s and ``se(3)``'s)."""
    ring = TrigRing(["free", "spherical", "revolute"])
    gens = ring.ring.gens
    functions = [gens[k] for k in ring.q_index] + [gens[k] for k in ring.s_index.values()]
    n = ring.dof
    assert n == 10 and len(ring.structure) == 18 + 6
    for a in range(n):
        for b in range(n):
            terms = ring.structure.get((a, b), ())
            for f in functions:
                bracket = ring.diff_q(ring.diff_q(f, b), a) - ring.diff_q(ring.diff_q(f, a), b)
                expected = sum((ring.diff_q(f, c) * coef for c, coef in terms), ring.zero)
                assert ring.reduce(bracket - expected) == ring.zero, (a, b, f)


def test_the_unit_quaternion_is_reduced_and_rotations_are_polynomials():
    chain = Chain((Link("ball", Joint("spherical"), Inertial(1)),), (0, 0, -g))
    ring = make_ring(chain)
    x, y, z, w = (ring.gen(s) for s in ring.q)
    assert ring.reduce(x**2 + y**2 + z**2 + w**2) == ring.one
    assert ring.reduce(w**3) == ring.reduce(w * (1 - x**2 - y**2 - z**2))
    # the rotation of the unit quaternion: no division left, and R R^T = 1 exactly
    ((rot, _),) = link_poses(ring.chain(chain), ring.joint_arguments()[0], ring.ops())
    rows = [[ring.poly(x) for x in row] for row in rot]
    for i in range(3):
        for j in range(3):
            dot = ring.reduce(sum((rows[i][k] * rows[j][k] for k in range(3)), ring.zero))
            assert dot == (ring.one if i == j else ring.zero)
    assert rows[2][2] == ring.reduce(1 - 2 * x**2 - 2 * y**2)


def test_names_of_coordinates_clash_with_no_parameter():
    chain = Chain((Link("drone", Joint("free"), Inertial(sp.Symbol("x1"))),), (0, 0, -g))
    with pytest.raises(rd.ModelError, match="x1 have the name of a joint coordinate"):
        equations(chain)
    assert [str(s) for s in joint_coordinates(["spherical"])[0].qdd] == \
        ["wd_x1", "wd_y1", "wd_z1"]


def test_every_printed_form_of_a_drone():
    m, ixx, iyy, izz = sp.symbols("m Ixx Iyy Izz")
    body = Inertial(m, (0, 0, 0), ((ixx, 0, 0), (0, iyy, 0), (0, 0, izz)))
    eq = equations(Chain((Link("drone", Joint("free"), body),), (0, 0, -g)))
    text = eq.text(steps=True)
    assert "by Lagrange-Euler (Boltzmann-Hamel, quasi-velocities)" in text
    assert "x1, y1, z1, qx1, qy1, qz1, qw1 free (v: v_x1, v_y1, v_z1, w_x1, w_y1, w_z1)" in text
    assert "tau1..tau6: force and moment of free joint 1 (its link frame)" in text
    assert "h_w_x1 = -sum_(i,j) c^j_ik v_i dL/dv_j = -(ad_v^T dL/dv)_k" in text
    assert "T_1 = quaternion: 1/2 e ⊗ (w, 0); position: R(e) v" in text
    latex = eq.latex(steps=True, document=True)
    assert r"\dot{\omega}_{x,1}" in latex and r"q_{w,1}" in latex
    assert r"\mathrm{ad}_v^T" in latex
    assert "ω" in eq.pretty(steps=True)
    data = json.loads(eq.json(steps=True))
    assert data["q"] == [str(s) for s in eq.q] and data["dof"] == 6
    assert "No figure: the drawing takes revolute and prismatic joints" in eq.html()
    assert r"\omega_{x,1}" in eq.markdown()
    ne = equations(Chain((Link("drone", Joint("free"), body),), (0, 0, -g)),
                   method="newton-euler").text(steps=True)
    assert "vd_1 = R_1^T (vd_0 + wd_0 x r_1 + w_0 x (w_0 x r_1)) + [vd_x1, vd_y1, vd_z1]" in ne
    assert "tau1 = [f_1; n_1]" in ne


SATELLITE = """
name: satellite
floating: true
gravity: [0, 0, -g]
base: {mass: mB, com: [0, 0, 0.1], inertia: [0.5, 0.6, 0.7, 0, 0, 0]}
links:
  - {joint: revolute, a: l1, alpha: pi/2, mass: m1, com: [-0.2, 0, 0],
     inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
  - {joint: revolute, a: l1, alpha: 0, mass: m1, com: [-0.2, 0, 0],
     inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
values: {mB: 10, m1: 1.5, l1: 0.4, g: 9.81}
"""


@pytest.mark.slow  # 4 s
def test_the_command_line_derives_a_floating_base(tmp_path, capsys):
    """``robodyn derive`` on a model file with ``floating: true`` and on a URDF read with
    ``--floating``: both routes agree (``--verify``), and ``robot.equations()`` of the
    loaded model equals the numeric engine."""
    path = tmp_path / "satellite.yaml"
    path.write_text(SATELLITE)
    assert main(["derive", str(path), "--verify", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verify"]["agree"] and all(data["verify"]["checks"].values())
    assert data["q"][:7] == ["x1", "y1", "z1", "qx1", "qy1", "qz1", "qw1"]
    assert data["q"][7:] == ["q2", "q3"] and data["qd"][6:] == ["qd2", "qd3"]
    urdf = "tests/data/urdf/planar_2r.urdf"
    assert main(["derive", urdf, "--floating", "--values", "--method", "newton-euler",
                 "--format", "text"]) == 0
    assert "free (v: v_x1" in capsys.readouterr().out
    robot = rd.load(str(path))
    num = robot.equations(method="newton-euler", values=True).numeric()
    for q, v, a in _states(robot, 5, count=3):
        np.testing.assert_allclose(num.tau(q, v, a), robot.inverse_dynamics(q, v, a),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(num.C(q, v), robot.coriolis_matrix(q, v),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_closed_form_code_of_quaternion_models_takes_nq_values(tmp_path):
    """The closed forms of a floating 2R written as Python, C and C++ take ``q`` of ``nq``
    values (the header says so, C defines ``NAME_NQ``, C++ a ``Configuration`` type) and
    give the numeric engine's M, C, g and tau at random states, 1e-12."""
    import ctypes
    import importlib.util
    import shutil
    import subprocess

    from robodyn.codegen.export.files import write_files

    chain = floating_2r()
    values = _values(chain, 11)
    robot = _numeric_robot(chain, values)
    eq = equations(chain, method="newton-euler")
    files = eq.to_code("python", values=values)
    write_files(files, tmp_path)
    (name,) = (f[:-3] for f in files)
    assert "q has nq = 9 entries" in files[f"{name}.py"] and "NQ = 9" in files[f"{name}.py"]
    spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    states = list(_states(robot, 4, count=3))
    for q, v, a in states:
        np.testing.assert_allclose(module.inverse_dynamics(q, v, a),
                                   robot.inverse_dynamics(q, v, a), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(module.mass_matrix(q), robot.mass_matrix(q), atol=1e-12)
        np.testing.assert_allclose(module.coriolis_matrix(q, v), robot.coriolis_matrix(q, v),
                                   atol=1e-12)
        np.testing.assert_allclose(module.forward_dynamics(q, v, a),
                                   robot.forward_dynamics(q, v, a), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match=r"q: expected shape \(..., 9\)"):
        module.mass_matrix(states[0][0][:8])
    if shutil.which("gcc") is None or shutil.which("g++") is None:
        pytest.skip("no gcc/g++: the C and C++ closed forms of a floating base not checked")
    c = eq.to_code("c", values=values)
    write_files(c, tmp_path)
    assert f"#define {name.upper()}_NQ 9" in c[f"{name}.h"]
    cpp = eq.to_code("cpp", values=values)
    write_files(cpp, tmp_path)
    assert "using Configuration = Eigen::Matrix<double, nq, 1>;" in cpp[f"{name}.hpp"]
    (tmp_path / "shim.cpp").write_text(
        f'#include "{name}.hpp"\n'
        "using C = Eigen::Map<const Eigen::Matrix<double, 9, 1>>;\n"
        "using V = Eigen::Map<const Eigen::Matrix<double, 8, 1>>;\n"
        'extern "C" void shim_inverse_dynamics(const double *q, const double *qd, '
        "const double *qdd, double *o)\n"
        f"{{ Eigen::Map<Eigen::Matrix<double, 8, 1>> out(o); out = {name}::inverse_dynamics("
        "C(q), V(qd), V(qdd)); }\n")
    for cmd in (["gcc", "-O1", "-std=c99", "-Wall", "-Werror", "-shared", "-fPIC",
                 str(tmp_path / f"{name}.c"), "-o", str(tmp_path / "libc.so"), "-lm"],
                ["g++", "-O1", "-std=c++14", "-Wall", "-Werror", "-shared", "-fPIC",
                 "-I/usr/include/eigen3", str(tmp_path / "shim.cpp"), "-o",
                 str(tmp_path / "libcpp.so")]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[:2000]
    ptr = ctypes.POINTER(ctypes.c_double)
    for lib, symbol in ((ctypes.CDLL(str(tmp_path / "libc.so")), f"{name}_inverse_dynamics"),
                        (ctypes.CDLL(str(tmp_path / "libcpp.so")), "shim_inverse_dynamics")):
        fn = getattr(lib, symbol)
        fn.restype = None
        for q, v, a in states:
            args = [np.ascontiguousarray(x, dtype=float) for x in (q, v, a)]
            out = np.zeros(8)
            fn(*[x.ctypes.data_as(ptr) for x in args], out.ctypes.data_as(ptr))
            np.testing.assert_allclose(out, robot.inverse_dynamics(q, v, a), rtol=1e-12,
                                       atol=1e-12)
