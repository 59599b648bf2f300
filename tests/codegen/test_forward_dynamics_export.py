"""``forward_dynamics(q, qd, tau)`` in the exported code of every language (seed 003's
implementations each have one): ``M(q) qdd = tau - inverse_dynamics(q, qd, 0)`` solved.

Oracle: the numeric core's ``robot.forward_dynamics`` (the articulated-body algorithm,
never the closed forms). Python, C (gcc) and Java (javac) are run here where the tool is
installed (absent tools skip); C++ (Eigen), MATLAB, Julia and Mathematica are read: the
function is there and solves rather than inverts.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess

import numpy as np
import pytest

import robodyn as rd
from conftest import random_states
from robodyn.codegen.export import write_files
from robodyn.codegen.export.program import identifier

RTOL = 1e-10
_EQS: dict = {}


def _equations(model: str, h_e: bool = False):
    key = (model, h_e)
    if key not in _EQS:
        _EQS[key] = rd.load(model).equations(h_e=h_e)
    return _EQS[key]


def _states(robot, n=4, seed=2):
    q, qd, _ = random_states(robot, n, seed=seed)
    tau = np.random.default_rng(seed).uniform(-3, 3, (n, robot.dof))
    return q, qd, tau


def _close(got, want, what):
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale, err_msg=what)


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("model, mode", [("planar-2r-payload", "baked"),
                                         ("rp-arm", "argument"), ("planar-3r", "argument")])
def test_python_forward_dynamics_is_the_cores(model, mode, tmp_path, numpy_backend):
    robot = rd.load(model)
    eq = _equations(model)
    files = eq.to_code("python", parameters=mode)
    write_files(files, tmp_path)
    module = _import(tmp_path / next(iter(files)), f"fd_{tmp_path.name}")
    q, qd, tau = _states(robot)
    p = [np.array([robot.values[str(s)] for s in eq.params])] if mode == "argument" else []
    want = robot.forward_dynamics(q, qd, tau)
    _close(module.forward_dynamics(*p, q, qd, tau), want, f"{model} batched")
    _close(module.forward_dynamics(*p, q[1], qd[1], tau[1]), want[1], f"{model} one state")
    # broadcast: one configuration, several torques
    _close(module.forward_dynamics(*p, q[0], qd[0], tau),
           robot.forward_dynamics(np.repeat(q[:1], len(tau), 0),
                                  np.repeat(qd[:1], len(tau), 0), tau), f"{model} broadcast")
    assert "inv(" not in files[next(iter(files))]


def test_python_forward_dynamics_with_a_wrench(tmp_path, numpy_backend):
    robot = rd.load("planar-2r")
    eq = _equations("planar-2r", h_e=True)
    files = eq.to_code("python")
    write_files(files, tmp_path)
    module = _import(tmp_path / next(iter(files)), f"fdh_{tmp_path.name}")
    q, qd, tau = _states(robot)
    h_e = np.random.default_rng(4).uniform(-1, 1, (len(q), 6))
    _close(module.forward_dynamics(q, qd, tau, h_e), robot.forward_dynamics(q, qd, tau, h_e),
           "with h_e")


def _compile(cmd, what):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{what} does not compile:\n{done.stderr[:3000]}"


@pytest.mark.parametrize("model, mode", [("planar-2r-payload", "argument"),
                                         ("planar-3r", "baked"), ("rp-arm", "baked")])
def test_c_forward_dynamics_is_the_cores(model, mode, tmp_path, numpy_backend):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the C export is not checked")
    robot = rd.load(model)
    eq = _equations(model)
    write_files(eq.to_code("c", parameters=mode), tmp_path)
    name = identifier(robot.name)
    lib_path = tmp_path / f"lib{name}.so"
    _compile(["gcc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-shared",
              "-fPIC", str(tmp_path / f"{name}.c"), "-o", str(lib_path), "-lm"], "C")
    fn = getattr(ctypes.CDLL(str(lib_path)), f"{name}_forward_dynamics")
    fn.restype = None
    ptr = ctypes.POINTER(ctypes.c_double)
    q, qd, tau = _states(robot, seed=6)
    want = robot.forward_dynamics(q, qd, tau)
    p = [np.array([robot.values[str(s)] for s in eq.params])] if mode == "argument" else []
    for k in range(len(q)):
        args = [np.ascontiguousarray(a, dtype=float) for a in (*p, q[k], qd[k], tau[k])]
        out = np.zeros(robot.dof)
        fn(*[a.ctypes.data_as(ptr) for a in args], out.ctypes.data_as(ptr))
        _close(out, want[k], f"C {model} #{k}")


def test_c_forward_dynamics_of_a_singular_mass_matrix_is_nan(tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the C export is not checked")
    eq = _equations("planar-2r")
    write_files(eq.to_code("c", parameters="argument"), tmp_path)
    lib_path = tmp_path / "libp.so"
    _compile(["gcc", "-O2", "-std=c99", "-shared", "-fPIC", str(tmp_path / "planar_2r.c"),
              "-o", str(lib_path), "-lm"], "C")
    fn = ctypes.CDLL(str(lib_path)).planar_2r_forward_dynamics
    fn.restype = None
    ptr = ctypes.POINTER(ctypes.c_double)
    p = np.zeros(len(eq.params))  # every mass and inertia 0: M = 0
    args = [np.ascontiguousarray(a, dtype=float) for a in (p, [0.1, 0.2], [0, 0], [1, 1])]
    out = np.zeros(2)
    fn(*[a.ctypes.data_as(ptr) for a in args], out.ctypes.data_as(ptr))
    assert np.isnan(out).all()


@pytest.mark.slow
@pytest.mark.parametrize("model", ["planar-2r-payload", "pendulum"])  # pendulum: M is 1 x 1
def test_java_forward_dynamics_is_the_cores(model, tmp_path, numpy_backend):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no javac/java: the Java export is not checked")
    robot = rd.load(model)
    eq = _equations(model)
    write_files(eq.to_code("java"), tmp_path)
    name = identifier(robot.name)
    q, qd, tau = _states(robot, n=3, seed=8)

    def lit(v):
        return "{" + ", ".join(repr(float(x)) for x in v) + "}"

    lines = ["public class Driver {", "  public static void main(String[] a) {"]
    for k in range(len(q)):
        lines += [f"    double[] r{k} = {name}.forward_dynamics({lit(q[k])}, {lit(qd[k])}, "
                  f"{lit(tau[k])}".replace("{", "new double[]{") + ");",
                  f"    for (double x : r{k}) System.out.print(Double.toString(x) + \" \");",
                  "    System.out.println();"]
    lines += ["  }", "}"]
    (tmp_path / "Driver.java").write_text("\n".join(lines) + "\n")
    done = subprocess.run(["javac", "-Xlint:all", "-Werror", "-d", str(tmp_path),
                           str(tmp_path / f"{name}.java"), str(tmp_path / "Driver.java")],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    out = subprocess.run(["java", "-cp", str(tmp_path), "Driver"], capture_output=True,
                         text=True, timeout=180, check=True).stdout
    got = np.array([[float(x) for x in line.split()] for line in out.splitlines()])
    _close(got, robot.forward_dynamics(q, qd, tau), "java")


@pytest.mark.parametrize("lang, needle", [
    ("cpp", ".ldlt().solve(tau - inverse_dynamics(q, qd, Vector::Zero()))"),
    ("matlab", "qdd = planar_2r_payload_mass_matrix(q) \\ rhs;"),
    ("julia", "return mass_matrix(q) \\ (tau - inverse_dynamics(q, qd, zeros(2)))"),
    ("mathematica", "LinearSolve[massMatrix[q], tau - inverseDynamics[q, qd, "
                    "ConstantArray[0, 2]]]"),
])
def test_every_language_has_forward_dynamics_as_a_solve(lang, needle):
    files = _equations("planar-2r-payload").to_code(lang)
    text = "\n".join(files.values())
    assert needle in text
    assert "inv(" not in text and "inverse()" not in text and "Inverse[" not in text
    if lang == "matlab":
        assert "planar_2r_payload_forward_dynamics.m" in files
