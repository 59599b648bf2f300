"""The compiled kernels exported as source (robodyn.codegen.export.traced) give the core's
numbers.

Oracle: robodyn's own kernels (``robot.runner.run(kind, ...)``, Numba or NumPy), which
run the same traced programs inside Python. Each language is run by its own tool (C
through ``robot.compile_c`` and ctypes, C++ with Eigen, Python with NumPy only) at random
states and compared to 1e-12 relative; a missing tool skips, never fails.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES, random_states
from robodyn.cli import main as cli_main
from robodyn.codegen.export import c as c_export
from robodyn.codegen.export.kernel_program import build
from robodyn.codegen.export.languages import KERNEL_LANGUAGES
from robodyn.codegen.export.traced import to_code
from robodyn.core.errors import InputError, RobodynError
from robodyn.dynamics.registry import KERNELS

RTOL = 1e-12
N = 4
EIGEN = Path("/usr/include/eigen3")


def _cc():
    for cc in ("cc", "gcc", "clang"):
        if shutil.which(cc):
            return cc
    pytest.skip("no C compiler (cc, gcc, clang) on PATH")


def example_robot(relative: str, tip: str):
    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return rd.load(rd.models.example_robot_data(relative), tip=tip)


def states(robot, kind: str, n: int = N, seed: int = 0) -> list[np.ndarray]:
    """Random inputs of registry entry ``kind``, in its order."""
    q, qd, qdd = random_states(robot, n, seed)
    h_e = np.random.default_rng(seed + 1).normal(size=(n, 6))
    pool = {"q": q, "qd": qd, "qdd": qdd, "tau": 10 * qdd, "h_e": h_e}
    return [pool[name] for name in KERNELS[kind].inputs]


def assert_close(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, what
    scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale, err_msg=what)


def check_compiled(robot, kernels, parameters):
    p = [robot.parameter_values] if parameters == "argument" else []
    for kind in kernels.names:
        arrays = states(robot, kind)
        assert_close(kernels[kind](*p, *arrays), robot.runner.run(kind, *arrays),
                     f"{robot.name} {kind} ({parameters})")


# -- C ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_c_is_warning_free_c99(mode, tmp_path, monkeypatch):
    cc = _cc()
    robot = rd.load("rp-arm")  # a prismatic and a revolute joint, friction: every op kind
    if mode == "argument":  # long programs in parts (the Panda's), here with short parts
        monkeypatch.setattr(c_export, "PART", 40)
    files = robot.to_code("c", parameters=mode)
    assert ("static void rp_arm_inverse_dynamics_derivatives_part1(" in files["rp_arm.c"]) \
        == (mode == "argument")
    assert sorted(files) == ["rp_arm.c", "rp_arm.h"]
    for fname, text in files.items():
        (tmp_path / fname).write_text(text)
    done = subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                           "-c", "rp_arm.c", "-o", "rp_arm.o"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    header = files["rp_arm.h"]
    # the closed-form export's signatures: inputs in order, p first in argument mode
    p = "const double *p, " if mode == "argument" else ""
    assert (f"void rp_arm_inverse_dynamics({p}const double *q, const double *qd, "
            "const double *qdd, double *tau);") in header
    assert f"void rp_arm_mass_matrix({p}const double *q, double *M);" in header
    assert "malloc" not in files["rp_arm.c"] and "#include <math.h>" in files["rp_arm.c"]
    if mode == "argument":
        names = robot.runner.parameter_names
        for i, name in enumerate(names):
            assert f"p[{i}] = {name} (default " in header
    assert f"robodyn {rd.__version__}" in header


def _cases():
    """Every built-in in both modes (the Delta's closed kernel is compiled in
    test_closed_export.py); the PUMA (6 joints, 20 s to build) and the argument
    mode of the small planar arms (the same code with ``p[j]`` loads) marked slow."""
    out = []
    for mode in ("baked", "argument"):
        for name in (m for m in MODEL_NAMES if m != "delta"):  # 15 joints: 8 s a mode
            slow = name == "puma560" or (mode == "argument" and name not in ("rp-arm",
                                                                             "pendulum"))
            out.append(pytest.param(name, mode, marks=pytest.mark.slow) if slow
                       else (name, mode))
    return out


@pytest.mark.parametrize("model,mode", _cases())
def test_compiled_c_equals_the_core_for_every_built_in(model, mode, numpy_backend):
    _cc()
    robot = rd.load(model)
    kernels = robot.compile_c(parameters=mode, flags=("-O0",))  # the values of -O2, faster
    assert kernels.names == tuple(KERNELS)
    check_compiled(robot, kernels, mode)


@pytest.fixture(scope="module")
def panda():
    return example_robot("panda_description/urdf/panda.urdf", "panda_hand")


@pytest.fixture(scope="module")
def ur5():
    return example_robot("ur_description/urdf/ur5_robot.urdf", "tool0")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["baked", "argument"])
@pytest.mark.parametrize("arm", ["panda", "ur5"])
def test_compiled_c_equals_the_core_for_urdf_arms(arm, mode, request, monkeypatch):
    monkeypatch.setenv("ROBODYN_BACKEND", "numpy")
    _cc()
    robot = request.getfixturevalue(arm)
    if arm == "panda":
        assert robot.dof == 7 and len(robot.locked) == 2  # the fingers
    kernels = robot.compile_c(parameters=mode, flags=("-O0",))
    check_compiled(robot, kernels, mode)


def test_compile_c_batches_and_broadcasts(numpy_backend, monkeypatch):
    _cc()
    robot = rd.load("planar-2r")
    monkeypatch.setattr(c_export, "PART", 7)  # values pass between parts through the scratch
    k = robot.compile_c(["inverse_dynamics", "kinetic_energy", "mass_matrix"])
    assert "planar_2r_inverse_dynamics_part2(" in k.files["planar_2r.c"]
    assert k.names == ("inverse_dynamics", "kinetic_energy", "mass_matrix")
    q = np.random.default_rng(3).normal(size=(2, 3, 2))
    qd = np.array([0.3, -0.2])  # one value for every sample
    assert_close(k.inverse_dynamics(q, qd, 0 * q), robot.inverse_dynamics(q, qd, 0 * q), "b")
    assert k.kinetic_energy(q[0, 0], qd).shape == ()
    assert_close(k.kinetic_energy(q, qd), robot.kinetic_energy(q, qd), "T")
    assert k.mass_matrix(np.zeros((0, 2))).shape == (0, 2, 2)
    with pytest.raises(InputError, match=r"q: expected shape \(\.\.\., 2\), got \(3,\)"):
        k.mass_matrix([1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="takes 3 arrays"):
        k.inverse_dynamics(q)
    with pytest.raises(AttributeError, match="'jacobian' was not compiled"):
        k.jacobian  # noqa: B018
    # the C code would turn these into numbers (True = 1.0) or NaN rows without a word
    with pytest.raises(InputError, match="q: expected real numbers, got an array of booleans"):
        k.mass_matrix(np.array([True, False]))
    bad = q.copy()
    bad[1, 2, 1] = np.nan
    with pytest.raises(InputError, match=r"q\[1, 2, 1\] = nan is not finite"):
        k.inverse_dynamics(bad, qd, 0 * q)
    with pytest.raises(InputError, match=r"qd\[0\] = inf is not finite"):
        k.kinetic_energy(q, [np.inf, 0.0])


def test_compile_c_errors_are_clear(monkeypatch, tmp_path):
    robot = rd.load("pendulum")
    with pytest.raises(InputError, match="functions: 'inverse' is not a function"):
        robot.compile_c(["inverse"])
    with pytest.raises(InputError, match="parameters: 'both' is not a mode"):
        robot.to_code("c", parameters="both")
    with pytest.raises(InputError, match="lang: 'cobol' is not a language"):
        robot.to_code("cobol")
    with pytest.raises(InputError, match="name: 'my arm' is not an identifier"):
        robot.to_code("c", name="my arm")
    with pytest.raises(InputError, match="flags: 'O2' is not a compiler option"):
        robot.compile_c(flags=["O2"])
    monkeypatch.setenv("PATH", str(tmp_path))  # no compiler at all
    with pytest.raises(RobodynError, match="no C compiler on PATH"):
        robot.compile_c()
    with pytest.raises(RobodynError, match="'gcc' is not an executable on PATH"):
        robot.compile_c(compiler="gcc")


def test_compile_c_leaves_nothing_behind(numpy_backend, monkeypatch, tmp_path):
    _cc()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    k = rd.load("pendulum").compile_c(["gravity_torques"])
    assert list(tmp_path.iterdir()) == []  # its private folder, emptied and removed
    assert np.isfinite(k.gravity_torques([0.4])).all()


# -- Python ----------------------------------------------------------------------------------
def _import(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("model", [pytest.param("puma560", marks=pytest.mark.slow), "rp-arm",
                                   "planar-2r-point-mass"])
@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_python_export_equals_the_core_batched(model, mode, numpy_backend, tmp_path):
    robot = rd.load(model)
    files = robot.to_code("python", parameters=mode)
    (fname, text), = files.items()
    (tmp_path / fname).write_text(text)
    module = _import(tmp_path / fname, f"traced_{fname[:-3]}_{mode}")
    assert "import robodyn" not in text
    p = [robot.parameter_values] if mode == "argument" else []
    for kind in KERNELS:
        arrays = states(robot, kind, n=6)
        batched = [a.reshape(2, 3, -1) for a in arrays]
        want = robot.runner.run(kind, *batched)
        assert_close(getattr(module, kind)(*p, *batched), want, f"{model} {kind}")
        assert_close(getattr(module, kind)(*p, *[a[0, 0] for a in batched]), want[0, 0], kind)


# -- C++ ----------------------------------------------------------------------------------------
CPP_WRAPPER = """
#include "{name}.hpp"
#include <cstring>
template <class T> static void put(const T &m, double *out) {{  // row-major
    for (int i = 0; i < m.rows(); ++i)
        for (int j = 0; j < m.cols(); ++j) *out++ = m(i, j);
}}
static void put(double x, double *out) {{ *out = x; }}
template <class T, std::size_t N> static void put(const std::array<T, N> &a, double *out) {{
    for (std::size_t k = 0; k < N; ++k) {{ put(a[k], out); out += a[k].size(); }}
}}
{wrappers}
"""


@pytest.mark.skipif(not (EIGEN / "Eigen" / "Core").exists(), reason="Eigen headers not at "
                    "/usr/include/eigen3 (apt-get install libeigen3-dev)")
@pytest.mark.parametrize("mode", [pytest.param("baked", marks=pytest.mark.slow), "argument"])
def test_cpp_export_equals_the_core(mode, numpy_backend, tmp_path, monkeypatch):
    if shutil.which("g++") is None:
        pytest.skip("no g++ on PATH")
    robot = rd.load("rp-arm")
    # every kind of result (vector, matrix, scalar, 6 x n, 3 indices), long ones in parts
    functions = ["inverse_dynamics_contact", "forward_dynamics", "mass_matrix",
                 "kinetic_energy", "jacobian", "inverse_dynamics_derivatives"]
    monkeypatch.setattr(c_export, "PART", 10)
    prog = build(robot.runner, functions, mode)
    for fname, text in to_code(robot.runner, "cpp", functions, parameters=mode).items():
        assert "namespace detail" in text
        (tmp_path / fname).write_text(text)
    wrappers = []
    for f in prog.functions:
        args = prog.args(f)
        widths = prog.widths(f)
        maps = ", ".join(f"Eigen::Map<const Eigen::Matrix<double, {widths[a]}, 1>>({a})"
                         for a in args)
        wrappers.append(f'extern "C" void w_{f.name}('
                        + "".join(f"const double *{a}, " for a in args) + "double *out) "
                        f"{{ put({prog.name}::{f.name}({maps}), out); }}")
    (tmp_path / "wrap.cpp").write_text(CPP_WRAPPER.format(name=prog.name,
                                                          wrappers="\n".join(wrappers)))
    done = subprocess.run(["g++", "-O0", "-std=c++17", "-Wall", "-Wextra", "-pedantic",
                           "-Werror", f"-I{EIGEN}", "-shared", "-fPIC", "wrap.cpp", "-o",
                           "libwrap.so"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lib = ctypes.CDLL(str(tmp_path / "libwrap.so"))
    ptr = ctypes.POINTER(ctypes.c_double)
    for f in prog.functions:
        fn = getattr(lib, f"w_{f.name}")
        fn.restype = None
        arrays = states(robot, f.name, n=1)
        want = robot.runner.run(f.name, *arrays)[0]
        one = ([robot.parameter_values] if mode == "argument" else []) + [a[0] for a in arrays]
        one = [np.ascontiguousarray(a, dtype=float) for a in one]
        out = np.empty(want.size)
        fn(*[a.ctypes.data_as(ptr) for a in one], out.ctypes.data_as(ptr))
        assert_close(out.reshape(want.shape), want, f"cpp {f.name}")


# -- every language: the text -----------------------------------------------------------------
@pytest.mark.parametrize("lang", KERNEL_LANGUAGES)
def test_every_language_names_the_model_and_its_parameters(lang):
    robot = rd.load("planar-2r")
    files = robot.to_code(lang, ["inverse_dynamics", "mass_matrix"], parameters="argument")
    for text in files.values():
        head = "\n".join(text.splitlines()[:12])
        assert "Model: 'planar-2r' (2 joints)" in head and "standard DH" in head
        assert f"robodyn {rd.__version__}" in head
        assert "p[0] = " + robot.runner.parameter_names[0] in head


# -- the command line -------------------------------------------------------------------------
def test_cli_exports_the_compiled_kernels_by_default(tmp_path, capsys):
    out = tmp_path / "gen"
    assert cli_main(["export", "planar-2r", "--lang", "c", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".robodyn-files.json", "planar_2r.c",
                                                   "planar_2r.h"]
    text = (out / "planar_2r.c").read_text()
    assert "traced straight-line programs" in text and "planar_2r_forward_dynamics" in text
    assert "gcc" in capsys.readouterr().err
    closed = tmp_path / "closed"
    assert cli_main(["export", "planar-2r", "--lang", "c", "--out", str(closed),
                     "--closed-form"]) == 0
    assert "closed forms" in (closed / "planar_2r.c").read_text()
    fn = tmp_path / "fn"
    assert cli_main(["export", "planar-2r", "--lang", "python", "--out", str(fn),
                     "--functions", "mass_matrix,jacobian"]) == 0
    text = (fn / "planar_2r.py").read_text()
    assert "def mass_matrix(q)" in text and "def jacobian(q)" in text
    assert "def inverse_dynamics" not in text


def test_cli_errors_are_one_line(tmp_path, capsys):
    out = tmp_path / "gen"
    assert cli_main(["export", "planar-2r", "--lang", "c", "--out", str(out), "--functions",
                     "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("robodyn: error: functions: 'nope' is not a function")
    assert err.count("\n") == 1 and not out.exists()
    with pytest.raises(SystemExit):  # a usage error, as argparse's own
        cli_main(["export", "planar-2r", "--lang", "mathematica", "--out", str(out)])
    assert "mathematica has the closed forms only: add --closed-form" in \
        capsys.readouterr().err


# -- Java ---------------------------------------------------------------------------------------
def _java_array(a) -> str:
    return "new double[] {" + ", ".join(repr(float(x)) for x in np.ravel(a)) + "}"


@pytest.mark.parametrize("mode", [pytest.param("baked", marks=pytest.mark.slow), "argument"])
def test_java_export_equals_the_core(mode, numpy_backend, tmp_path):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no javac/java on PATH (apt-get install default-jdk-headless)")
    robot = rd.load("rp-arm")
    prog = build(robot.runner, None, mode)
    for fname, text in to_code(robot.runner, "java", parameters=mode).items():
        (tmp_path / fname).write_text(text)
    calls, wants = [], []
    for f in prog.functions:
        arrays = states(robot, f.name, n=1)
        wants.append(robot.runner.run(f.name, *arrays)[0])
        args = ([robot.parameter_values] if mode == "argument" else []) + [a[0] for a in arrays]
        calls.append(f"        show({prog.name}.{f.name}("
                     + ", ".join(_java_array(a) for a in args) + "));")
    (tmp_path / "Main.java").write_text(
        "public final class Main {\n"
        "    static void show(double[] x) {\n"
        "        StringBuilder b = new StringBuilder();\n"
        "        for (double v : x) b.append(Double.toString(v)).append(' ');\n"
        "        System.out.println(b.toString().trim());\n    }\n"
        "    public static void main(String[] args) {\n" + "\n".join(calls) + "\n    }\n}\n")
    done = subprocess.run(["javac", "-Xlint:all", "-Werror", "-d", "classes",
                           f"{prog.name}.java", "Main.java"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = subprocess.run(["java", "-cp", "classes", "Main"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    lines = ran.stdout.splitlines()
    assert len(lines) == len(wants)
    for f, line, want in zip(prog.functions, lines, wants):
        got = np.array([float(x) for x in line.split()]).reshape(want.shape)
        assert_close(got, want, f"java {f.name}")


def test_java_splits_long_methods():
    """A method's bytecode is limited to 64 kB: long programs run in parts."""
    robot = rd.load("puma560")
    (text,) = robot.to_code("java", ["inverse_dynamics_derivatives"]).values()
    parts = re.findall(r"private static void inverse_dynamics_derivatives_part(\d+)\(", text)
    assert len(parts) > 1
    longest = max(len(chunk.splitlines()) for chunk in text.split("private static void")[1:])
    assert longest <= 1600


# -- Julia and MATLAB: written; run where the tool is installed ---------------------------------
@pytest.mark.parametrize("lang,tool", [("julia", "julia"), ("matlab", "octave")])
def test_julia_and_octave_export_equals_the_core(lang, tool, numpy_backend, tmp_path):
    robot = rd.load("rp-arm")
    files = robot.to_code(lang, ["inverse_dynamics", "mass_matrix", "kinetic_energy"])
    text = "\n".join(files.values())
    # balanced blocks: every function ends, and nothing but the generated statements
    opened = len(re.findall(r"^\s*(function|module)\b", text, re.M))
    closed = len(re.findall(r"^\s*end\b", text, re.M))
    assert opened == closed, (lang, opened, closed)
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed: the {lang} export is written but not run")
    for fname, body in files.items():
        (tmp_path / fname).write_text(body)
    q, qd, qdd = (a[0] for a in random_states(robot, 1, seed=4))
    want = robot.inverse_dynamics(q, qd, qdd)
    vec = "[" + "; ".join(repr(float(x)) for x in q) + "]"
    vd = "[" + "; ".join(repr(float(x)) for x in qd) + "]"
    vdd = "[" + "; ".join(repr(float(x)) for x in qdd) + "]"
    if lang == "julia":
        script = (f'include("rp_arm.jl"); t = rp_arm.inverse_dynamics({vec}, {vd}, {vdd}); '
                  "println(join(string.(t), \" \"))")
        command = ["julia", "--startup-file=no", "-e", script]
    else:
        script = (f"t = rp_arm_inverse_dynamics({vec}, {vd}, {vdd}); "
                  "printf('%.17g ', t); printf('\\n');")
        command = ["octave", "--no-gui", "--quiet", "--eval", script]
    ran = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert_close([float(x) for x in ran.stdout.split()], want, lang)
