"""Exported code (robodyn.codegen.export) gives the core's numbers.

Oracle: the numeric core (``robot.inverse_dynamics``, ``mass_matrix``, ...), which
runs the recursive algorithms, never the closed forms the code is printed from. Each
language's output is run by its own tool (Python with NumPy only; C and C++ compiled
by the system compiler and called through ctypes; Java with javac; Octave; Julia) and
compared at random states to 1e-12 relative. Absent tools skip, never fail.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import random_states
from robodyn.cli import main as cli_main
from robodyn.codegen.export import LANGUAGES, export_code, program_of, write_files
from robodyn.codegen.export.program import identifier
from robodyn.symbolic import derive

RTOL = 1e-12
N_STATES = 5

# A 2R arm with friction (viscous and Coulomb) and parameter names that collide with
# the generated code's own names (M, p) or that Mathematica cannot spell (Fv_1).
FRICTION_2R = """
name: friction-2r
dh: standard
gravity: [0, -g, 0]
planar: true
links:
  - joint: revolute
    a: l1
    alpha: 0
    d: 0
    theta: 0
    mass: m1
    com: [c1 - l1, 0, 0]
    inertia: [0, 0, I1, 0, 0, 0]
    friction: {viscous: Fv_1, coulomb: p}
  - joint: revolute
    a: l2
    alpha: 0
    d: 0
    theta: 0
    mass: M
    com: [c2 - l2, 0, 0]
    inertia: [0, 0, I2, 0, 0, 0]
    friction: {viscous: Fv_2, coulomb: Fs2}
values: {m1: 2.0, M: 1.5, l1: 0.8, l2: 0.6, c1: 0.4, c2: 0.3, I1: 0.107, I2: 0.045, g: 9.81,
         Fv_1: 0.7, p: 0.25, Fv_2: 0.3, Fs2: 0.15}
"""

FUNCS = ("inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
         "friction_torques")


@pytest.fixture(scope="module")
def friction_2r(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "friction-2r.yaml"
    path.write_text(FRICTION_2R)
    return rd.load(path)


_ROBOTS: dict = {}
_EQS: dict = {}


def robot_of(name, friction_2r=None):
    if name == "friction-2r":
        return friction_2r
    if name not in _ROBOTS:
        _ROBOTS[name] = rd.load(name)
    return _ROBOTS[name]


def equations_of(robot):
    if robot.name not in _EQS:
        _EQS[robot.name] = robot.equations()
    return _EQS[robot.name]


def reference(robot, q, qd, qdd):
    """The core's values, one array per function, ``(n, ...)``."""
    return {
        "inverse_dynamics": robot.inverse_dynamics(q, qd, qdd),
        "mass_matrix": robot.mass_matrix(q),
        "coriolis_matrix": robot.coriolis_matrix(q, qd),
        "gravity_torques": robot.gravity_torques(q),
        "friction_torques": robot.friction_torques(qd),
    }


def assert_close(got, want, what):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, what
    scale = max(np.abs(want).max(), 1.0)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale, err_msg=what)


def parameters_of(robot, eq):
    return np.array([robot.values[str(s)] for s in eq.params])


def import_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- Python ------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("model", ["planar-2r", "rp-arm", "friction-2r", "puma560"])
@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_python_matches_core(model, mode, friction_2r, tmp_path):
    if model == "puma560" and mode == "argument":
        pytest.skip("the PUMA runs baked only (time); argument mode is checked on the small arms")
    robot = robot_of(model, friction_2r)
    eq = equations_of(robot)
    files = eq.to_code("python", parameters=mode)
    write_files(files, tmp_path)
    (fname,) = files
    module = import_module(tmp_path / fname, f"gen_{tmp_path.name}")
    assert "import robodyn" not in files[fname] and "sympy" not in files[fname]
    q, qd, qdd = random_states(robot, N_STATES, seed=3)
    if model != "puma560":
        qd[0] = 0.0  # sign(0) = 0, as the core's friction
    want = reference(robot, q, qd, qdd)
    extra = [parameters_of(robot, eq)] if mode == "argument" else []
    args = {"inverse_dynamics": (q, qd, qdd), "mass_matrix": (q,), "coriolis_matrix": (q, qd),
            "gravity_torques": (q,), "friction_torques": (qd,)}
    for f in FUNCS:
        assert_close(getattr(module, f)(*extra, *args[f]), want[f], f"{model} {mode} {f}")
        # one state at a time too (no batch axis)
        assert_close(getattr(module, f)(*extra, *(a[1] for a in args[f])), want[f][1], f)


def test_python_runs_without_robodyn_and_sympy(tmp_path):
    """The module imports with only NumPy: run it in a fresh interpreter that cannot
    import robodyn or sympy."""
    robot = robot_of("planar-2r")
    write_files(equations_of(robot).to_code("python"), tmp_path)
    q = np.array([0.3, -0.7])
    script = ("import sys; sys.modules['robodyn'] = None; sys.modules['sympy'] = None\n"
              f"sys.path.insert(0, {str(tmp_path)!r})\n"
              "import planar_2r\n"
              f"print(planar_2r.gravity_torques([{float(q[0])!r}, {float(q[1])!r}]).tolist())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": ""})
    assert_close(eval(out.stdout), robot.gravity_torques(q), "gravity in a bare interpreter")


# -- C -------------------------------------------------------------------------------------
def _compile(cmd, what):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        pytest.skip(f"{cmd[0]} not found: {what} not checked")
    assert done.returncode == 0, f"{what} does not compile:\n{done.stderr[:3000]}"


def _c_call(lib, symbol, arrays, out_size):
    fn = getattr(lib, symbol)
    fn.restype = None
    buffers = [np.ascontiguousarray(a, dtype=np.float64) for a in arrays]
    out = np.zeros(out_size)
    ptr = ctypes.POINTER(ctypes.c_double)
    fn(*[b.ctypes.data_as(ptr) for b in buffers], out.ctypes.data_as(ptr))
    return out


def _check_shared_library(lib, prefix, robot, eq, mode, model):
    n = robot.dof
    q, qd, qdd = random_states(robot, N_STATES, seed=5)
    if model != "puma560":
        qd[0, 0] = 0.0
    want = reference(robot, q, qd, qdd)
    p = [parameters_of(robot, eq)] if mode == "argument" else []
    for k in range(N_STATES):
        args = {"inverse_dynamics": (q[k], qd[k], qdd[k]), "mass_matrix": (q[k],),
                "coriolis_matrix": (q[k], qd[k]), "gravity_torques": (q[k],),
                "friction_torques": (qd[k],)}
        for f in FUNCS:
            size = n * n if f in ("mass_matrix", "coriolis_matrix") else n
            got = _c_call(lib, f"{prefix}{f}", p + list(args[f]), size)
            assert_close(got.reshape(want[f][k].shape), want[f][k], f"{model} {mode} {f} #{k}")


@pytest.mark.slow
@pytest.mark.parametrize("model,mode", [("planar-2r", "baked"), ("friction-2r", "argument"),
                                        ("rp-arm", "argument"), ("puma560", "baked")])
def test_c_matches_core(model, mode, friction_2r, tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the C export is not checked")
    robot = robot_of(model, friction_2r)
    eq = equations_of(robot)
    files = eq.to_code("c", parameters=mode)
    write_files(files, tmp_path)
    name = identifier(robot.name)
    assert set(files) == {f"{name}.h", f"{name}.c"}
    lib_path = tmp_path / f"lib{name}.so"
    # -O2 checks the small arms (its warnings are -O2's); the PUMA's 240 kB of closed forms
    # take gcc 26 s at -O2 and 1 s at -O0, the same values
    opt = "-O0" if model == "puma560" else "-O2"
    _compile(["gcc", opt, "-std=c99", "-Wall", "-Werror", "-pedantic", "-shared", "-fPIC",
              str(tmp_path / f"{name}.c"), "-o", str(lib_path), "-lm"], "the generated C")
    lib = ctypes.CDLL(str(lib_path))
    _check_shared_library(lib, f"{name}_", robot, eq, mode, model)
    if mode == "argument":
        count = len(eq.params)
        defaults = (ctypes.c_double * count).in_dll(lib, f"{name}_default_parameters")
        np.testing.assert_array_equal(np.array(defaults), parameters_of(robot, eq))


def _eigen_flags():
    try:
        out = subprocess.run(["pkg-config", "--cflags", "eigen3"], capture_output=True,
                             text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.split()
    except FileNotFoundError:
        pass
    return ["-I/usr/include/eigen3"] if Path("/usr/include/eigen3/Eigen").is_dir() else None


CPP_SHIM = """
#include "{name}.hpp"
using namespace {name};
using V = Eigen::Map<const Vector>;
static void put(const Eigen::MatrixXd &m, double *out) {{  /* row-major */
    for (int i = 0; i < m.rows(); ++i)
        for (int j = 0; j < m.cols(); ++j) out[i * m.cols() + j] = m(i, j);
}}
extern "C" {{
void shim_inverse_dynamics({P}const double *q, const double *qd, const double *qdd, double *o)
{{ put(inverse_dynamics({p}V(q), V(qd), V(qdd)), o); }}
void shim_mass_matrix({P}const double *q, double *o) {{ put(mass_matrix({p}V(q)), o); }}
void shim_coriolis_matrix({P}const double *q, const double *qd, double *o)
{{ put(coriolis_matrix({p}V(q), V(qd)), o); }}
void shim_gravity_torques({P}const double *q, double *o) {{ put(gravity_torques({p}V(q)), o); }}
void shim_friction_torques({P}const double *qd, double *o)
{{ put(friction_torques({p}V(qd)), o); }}
}}
"""


@pytest.mark.slow  # a C++ compile each (1.6 s); the C export is checked in the fast set
@pytest.mark.parametrize("model,mode", [("planar-2r", "argument"), ("friction-2r", "baked"),
                                        ("rp-arm", "baked")])
def test_cpp_matches_core(model, mode, friction_2r, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("no g++: the C++ export is not checked")
    flags = _eigen_flags()
    if flags is None:
        pytest.skip("Eigen not found (pkg-config eigen3, /usr/include/eigen3): C++ not checked")
    robot = robot_of(model, friction_2r)
    eq = equations_of(robot)
    files = eq.to_code("cpp", parameters=mode)
    write_files(files, tmp_path)
    name = identifier(robot.name)
    shim = CPP_SHIM.format(
        name=name, P="const double *p, " if mode == "argument" else "",
        p="Eigen::Map<const Parameters>(p), " if mode == "argument" else "")
    (tmp_path / "shim.cpp").write_text(shim)
    lib_path = tmp_path / "libshim.so"
    _compile(["g++", "-O2", "-std=c++14", "-Wall", "-Werror", "-shared", "-fPIC", *flags,
              f"-I{tmp_path}", str(tmp_path / "shim.cpp"), "-o", str(lib_path)],
             "the generated C++")
    _check_shared_library(ctypes.CDLL(str(lib_path)), "shim_", robot, eq, mode, model)


# -- Java, Octave, Julia: run the tool on a small driver that prints the values -------------
def _states_2r(robot):
    q, qd, qdd = random_states(robot, 2, seed=11)
    return q, qd, qdd


def _run(cmd, cwd, what):
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"{what} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _parse_lines(text):
    """``name k: v1 v2 ...`` lines -> {(name, k): array}."""
    out = {}
    for line in text.splitlines():
        if ":" not in line:
            continue
        key, values = line.split(":", 1)
        f, k = key.split()
        out[(f, int(k))] = np.array([float(v) for v in values.split()])
    return out


def _check_printed(values, robot, q, qd, qdd, what):
    want = reference(robot, q, qd, qdd)
    assert len(values) == len(FUNCS) * len(q), what
    for (f, k), got in values.items():
        assert_close(got.reshape(want[f][k].shape), want[f][k], f"{what} {f} #{k}")


def _literal(v, open_="{", close="}"):
    return open_ + ", ".join(repr(float(x)) for x in v) + close


@pytest.mark.slow
@pytest.mark.parametrize("model,mode", [("planar-2r", "baked"), ("friction-2r", "argument"),
                                        ("rp-arm", "baked")])
def test_java_matches_core(model, mode, friction_2r, tmp_path):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no javac/java: the Java export is not checked")
    robot = robot_of(model, friction_2r)
    eq = equations_of(robot)
    files = eq.to_code("java", parameters=mode)
    write_files(files, tmp_path)
    name = identifier(robot.name)
    q, qd, qdd = _states_2r(robot)
    p = "p, " if mode == "argument" else ""
    lines = ["public class Driver {", "  static void show(String f, int k, double[] v) {",
             "    StringBuilder s = new StringBuilder(f + \" \" + k + \":\");",
             "    for (double x : v) s.append(' ').append(Double.toString(x));",
             "    System.out.println(s);", "  }",
             "  static double[] flat(double[][] m) {",
             "    double[] out = new double[m.length * m[0].length];",
             "    for (int i = 0; i < m.length; i++) for (int j = 0; j < m[0].length; j++)",
             "      out[i * m[0].length + j] = m[i][j];", "    return out;", "  }",
             "  public static void main(String[] a) {"]
    if mode == "argument":
        lines.append(f"    double[] p = {_literal(parameters_of(robot, eq))};")
    for k in range(len(q)):
        lines += [f"    double[] q{k} = {_literal(q[k])}, qd{k} = {_literal(qd[k])}, "
                  f"qdd{k} = {_literal(qdd[k])};",
                  f'    show("inverse_dynamics", {k}, {name}.inverse_dynamics({p}q{k}, qd{k}, '
                  f"qdd{k}));",
                  f'    show("mass_matrix", {k}, flat({name}.mass_matrix({p}q{k})));',
                  f'    show("coriolis_matrix", {k}, flat({name}.coriolis_matrix({p}q{k}, '
                  f"qd{k})));",
                  f'    show("gravity_torques", {k}, {name}.gravity_torques({p}q{k}));',
                  f'    show("friction_torques", {k}, {name}.friction_torques({p}qd{k}));']
    lines += ["  }", "}"]
    (tmp_path / "Driver.java").write_text("\n".join(lines) + "\n")
    _run(["javac", "-Xlint:all", "-Werror", "-d", str(tmp_path), str(tmp_path / f"{name}.java"),
          str(tmp_path / "Driver.java")], tmp_path, "javac")
    out = _run(["java", "-cp", str(tmp_path), "Driver"], tmp_path, "java")
    _check_printed(_parse_lines(out), robot, q, qd, qdd, f"java {model}")


def _script_driver(lang, robot, eq, mode, name, q, qd, qdd):
    """An Octave or Julia script printing ``f k: values`` (matrices row-major)."""
    octave = lang == "matlab"
    vec = (lambda v: _literal(v, "[", "]'")) if octave else (lambda v: _literal(v, "[", "]"))
    p = "p, " if mode == "argument" else ""
    call = (lambda f: f"{name}_{f}") if octave else (lambda f: f"{name}.{f}")
    lines = [] if octave else [f'include("{name}.jl")', "using Printf"]
    if mode == "argument":
        lines.append(f"p = {vec(parameters_of(robot, eq))};")
    show = ("function show(f, k, v)\n  m = v'; fprintf('%s %d:', f, k); "
            "fprintf(' %.17g', m(:)); fprintf('\\n');\nend") if octave else (
        'show(f, k, v) = println(f, " ", k, ":", join([" " * @sprintf("%.17g", x) for x in '
        "vec(permutedims(v))]))")
    body = []
    for k in range(len(q)):
        body += [f"q = {vec(q[k])}; qd = {vec(qd[k])}; qdd = {vec(qdd[k])};",
                 f"show('inverse_dynamics', {k}, {call('inverse_dynamics')}({p}q, qd, qdd));",
                 f"show('mass_matrix', {k}, {call('mass_matrix')}({p}q));",
                 f"show('coriolis_matrix', {k}, {call('coriolis_matrix')}({p}q, qd));",
                 f"show('gravity_torques', {k}, {call('gravity_torques')}({p}q));",
                 f"show('friction_torques', {k}, {call('friction_torques')}({p}qd));"]
    if not octave:
        body = [b.replace("'", '"') for b in body]
        return "\n".join(lines + [show] + body) + "\n"
    return "1;\n" + show + "\n" + "\n".join(lines + body) + "\n"


@pytest.mark.parametrize("lang,tool", [("matlab", "octave"), ("julia", "julia")])
@pytest.mark.parametrize("model,mode", [("planar-2r", "baked"), ("friction-2r", "argument")])
def test_script_languages_match_core(lang, tool, model, mode, friction_2r, tmp_path):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed: the {lang} export is not checked")
    robot = robot_of(model, friction_2r)
    eq = equations_of(robot)
    write_files(eq.to_code(lang, parameters=mode), tmp_path)
    name = identifier(robot.name)
    q, qd, qdd = _states_2r(robot)
    script = tmp_path / ("driver.m" if lang == "matlab" else "driver.jl")
    script.write_text(_script_driver(lang, robot, eq, mode, name, q, qd, qdd))
    cmd = ["octave", "--no-gui", "--quiet", str(script)] if lang == "matlab" else \
        ["julia", "--startup-file=no", str(script)]
    out = _run(cmd, tmp_path, tool)
    _check_printed(_parse_lines(out), robot, q, qd, qdd, f"{lang} {model}")


def test_mathematica_expressions_read_back(friction_2r):
    """No Wolfram kernel here: SymPy's Mathematica parser reads each assignment of the
    generated inverse dynamics and friction back, and evaluating them in order gives the
    core's numbers (checks the printed syntax: Cos, Sign, lists, renamed locals)."""
    from sympy.parsing.mathematica import parse_mathematica

    robot = friction_2r
    eq = equations_of(robot)
    (text,) = eq.to_code("mathematica", parameters="argument").values()
    assert "FvU1" in text and "Fv_1" not in text.split("*)", 1)[1]  # no pattern underscores
    q, qd, qdd = _states_2r(robot)
    want = reference(robot, q, qd, qdd)
    p = parameters_of(robot, eq)
    for fname, camel in (("inverse_dynamics", "inverseDynamics"),
                         ("friction_torques", "frictionTorques")):
        block = text.split(f"\n{camel}[", 1)[1].split("\n];", 1)[0].splitlines()[1:]
        env = {"p": p, "q": q[0], "qd": qd[0], "qdd": qdd[0]}
        for line in block[:-1]:
            lhs, rhs = line.strip().rstrip(";").split(" = ", 1)
            if "[[" in rhs:  # an input: p[[k]], q[[k]], ...
                arr, k = rhs.rstrip("]").split("[[")
                env[lhs] = env[arr][int(k) - 1]
            else:
                expr = parse_mathematica(rhs)
                env[lhs] = float(expr.subs({s: env[str(s)] for s in expr.free_symbols}))
        result = parse_mathematica(block[-1].strip())
        got = [float(e.subs({s: env[str(s)] for s in e.free_symbols})) for e in result]
        assert_close(got, want[fname][0], f"mathematica {fname}")


# -- API and command line -------------------------------------------------------------
@pytest.mark.slow
def test_every_language_names_the_model_convention_and_symbols(friction_2r):
    program = program_of(equations_of(robot_of("planar-3r")))  # CSE once, seven printers
    for lang, language in LANGUAGES.items():
        for fname, text in language.closed_forms(program).items():
            head = text[:1500]
            assert "'planar-3r'" in head and "standard DH" in head, (lang, fname)
            assert "q = (q1, q2, q3)" in head, (lang, fname)
    program = program_of(equations_of(friction_2r), "argument")
    assert [str(s) for s in program.parameters] == sorted(friction_2r.values)
    header = equations_of(friction_2r).to_code("c", parameters="argument")["friction_2r.h"]
    assert "p[0] = Fs2" in header and "p[12] = p (default 0.25)" in header
    assert ("void friction_2r_inverse_dynamics(const double *p, const double *q, "
            "const double *qd, const double *qdd, double *tau);") in header


def test_c_signatures_without_parameters():
    files = equations_of(robot_of("planar-2r")).to_code("c")
    assert ("void planar_2r_inverse_dynamics(const double *q, const double *qd, "
            "const double *qdd, double *tau);") in files["planar_2r.h"]
    assert "void planar_2r_mass_matrix(const double *q, double *M);" in files["planar_2r.h"]
    assert "malloc" not in files["planar_2r.c"]


def test_regressor_is_exported_when_the_equations_have_one():
    """The exporter takes named matrices: any extra entry (the regressor) becomes one more
    function in every language."""
    import sympy as sp

    eq = equations_of(robot_of("planar-2r"))
    q1, q2 = eq.q
    extra = {"regressor": (sp.Matrix([[sp.cos(q1), 0], [0, sp.sin(q2)]]), ("q", "qd", "qdd"))}
    files = export_code(eq, "c", matrices=extra)
    assert ("void planar_2r_regressor(const double *q, const double *qd, const double *qdd, "
            "double *Y);") in files["planar_2r.h"]
    code = export_code(eq, "python", matrices=extra)["planar_2r.py"]
    namespace: dict = {}
    exec(compile(code, "planar_2r.py", "exec"), namespace)  # our own output
    Y = namespace["regressor"]([0.3, 0.4], [0, 0], [0, 0])
    np.testing.assert_allclose(Y, [[np.cos(0.3), 0], [0, np.sin(0.4)]], rtol=1e-15)


def test_bad_requests_get_clear_errors():
    eq = equations_of(robot_of("planar-2r"))
    with pytest.raises(rd.InputError, match="lang: 'fortran' is not a language"):
        eq.to_code("fortran")
    with pytest.raises(rd.InputError, match="parameters: 'inline' is not a mode"):
        eq.to_code("c", parameters="inline")
    with pytest.raises(rd.InputError, match="name: 'my robot' is not an identifier"):
        eq.to_code("c", name="my robot")
    with pytest.raises(rd.InputError, match="'zz' is not a parameter"):
        eq.to_code("c", values={"zz": 1.0})
    symbolic = derive(robot_of("planar-2r").chain, name="bare")  # no defaults
    with pytest.raises(rd.ModelError, match="no value for parameter"):
        symbolic.to_code("c")
    assert "bare_mass_matrix" in symbolic.to_code("c", parameters="argument")["bare.c"]


def test_cli_writes_the_files_and_says_how_to_use_them(tmp_path, capsys):
    out = tmp_path / "gen"
    code = cli_main(["export", "rp-arm", "--lang", "c", "--out", str(out), "--parameters",
                     "argument", "--method", "newton-euler", "--closed-form"])
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [".robodyn-files.json", "rp_arm.c",
                                                     "rp_arm.h"]
    assert "newton-euler" in (out / "rp_arm.c").read_text()[:400]
    err = capsys.readouterr().err
    assert "gcc" in err and "rp_arm_inverse_dynamics(p, q, qd, qdd, tau)" in err
    assert cli_main(["export", "rp-arm", "--lang", "python", "--out", str(out),
                     "--closed-form"]) == 0
    module = import_module(out / "rp_arm.py", "rp_arm_cli")
    robot = robot_of("rp-arm")
    q, qd, qdd = random_states(robot, 3, seed=2)
    assert_close(module.inverse_dynamics(q, qd, qdd), robot.inverse_dynamics(q, qd, qdd), "cli")


def test_cli_needs_urdf_or_lang(capsys):
    with pytest.raises(SystemExit):
        cli_main(["export", "rp-arm"])
    assert "give one of --urdf FILE, --mjcf FILE or --lang LANG --out DIR" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["export", "rp-arm", "--urdf", "a.urdf", "--mjcf", "a.xml"])
    assert "give one of --urdf FILE, --mjcf FILE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["export", "rp-arm", "--lang", "c"])
    assert "--out DIR" in capsys.readouterr().err


@pytest.mark.parametrize("model", ["planar-2r", "rp-arm"])
def test_exported_regressor_times_parameters_is_the_torque(model, tmp_path):
    """The exported ``regressor(q, qd, qdd)`` is ``eq.regressor()``'s ``Y``: times the
    standard parameters (``robot.inertial_parameters()``) it gives the core's torques."""
    robot = robot_of(model)
    eq = equations_of(robot)
    files = eq.to_code("python")
    write_files(files, tmp_path)
    (fname,) = files
    module = import_module(tmp_path / fname, f"gen_reg_{tmp_path.name}")
    q, qd, qdd = random_states(robot, N_STATES, seed=5)
    names, values = robot.inertial_parameters()
    _, pi = eq.regressor()
    assert [str(s) for s in pi] == [str(n) for n in names]
    Y = module.regressor(q, qd, qdd)
    assert_close(np.einsum("kij,j->ki", Y, np.asarray(values, dtype=float)),
                 robot.inverse_dynamics(q, qd, qdd), f"{model} regressor")
