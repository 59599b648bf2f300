"""A new registry entry is exported with nothing else to add (issue 29: one list of
functions).

A toy :class:`~robodyn.dynamics.registry.KernelSpec` is put into the registry for one test
and taken out after; ``robot.to_code`` (C and Python), ``robot.to_jax`` and
``robot.to_casadi`` export it, named as its entry says, and the exported code gives what
the algorithm gives when it is run directly on the model's numbers. A name that is not in
the registry is an :class:`InputError` listing the names that are.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.dynamics.registry import KERNELS, KernelSpec

N = 5


def weighted_squares(chain, q, ops):
    """``sum_i m_i q_i^2``: a scalar that depends on the model's parameters."""
    total = 0.0
    for link, x in zip(chain.links, q):
        total = total + link.inertial.mass * x * x
    return total


def twice(chain, q, ops):
    """``2 q``: a vector."""
    return [2.0 * x for x in q]


TOYS = {
    "toy_weighted_squares": KernelSpec(weighted_squares, ("q",), lambda n, links: (),
                                       "toy_weighted_squares", "sum_i m_i q_i^2",
                                       output="s"),
    "toy_twice": KernelSpec(twice, ("q",), lambda n, links: (n,), "toy_twice", "2 q"),
}


@pytest.fixture
def toys():
    """The toy entries in the registry for one test (the exporters read it at call time)."""
    assert not set(TOYS) & set(KERNELS)
    KERNELS.update(TOYS)
    try:
        yield TOYS
    finally:
        for name in TOYS:
            KERNELS.pop(name, None)


@pytest.fixture(scope="module")
def robot():
    return rd.load("rp-arm")


def direct(robot, name: str, q: np.ndarray) -> np.ndarray:
    """The toy's algorithm run on the model's numbers, one state at a time."""
    spec = TOYS[name]
    rows = [np.asarray(spec.algorithm(robot.numeric_chain, q=list(row), ops=None), dtype=float)
            for row in q]
    return np.stack(rows)


def _states(robot) -> np.ndarray:
    return np.random.default_rng(7).uniform(-2, 2, size=(N, robot.dof))


@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_a_new_entry_exports_to_python(toys, robot, mode, tmp_path):
    files = robot.to_code("python", list(toys), parameters=mode)
    (name, text), = files.items()
    assert "def toy_weighted_squares(" in text and "s = np.empty(" in text  # its output name
    assert "out = np.empty(" in text  # an entry without one: "out"
    (tmp_path / name).write_text(text)
    spec = importlib.util.spec_from_file_location("toy_export", tmp_path / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    q = _states(robot)
    p = [robot.parameter_values] if mode == "argument" else []
    for kind in toys:
        got = getattr(module, kind)(*p, q)
        np.testing.assert_allclose(got, direct(robot, kind, q), rtol=1e-13, atol=0)
        np.testing.assert_allclose(got, robot.runner.run(kind, q), rtol=1e-13, atol=0)


@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_a_new_entry_exports_to_c(toys, robot, mode, tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (cc, gcc, clang) on PATH")
    files = robot.to_code("c", list(toys), parameters=mode, name="toy")
    p = "const double *p, " if mode == "argument" else ""
    assert f"void toy_toy_weighted_squares({p}const double *q, double *s);" in files["toy.h"]
    assert f"void toy_toy_twice({p}const double *q, double *out);" in files["toy.h"]
    for fname, text in files.items():
        (tmp_path / fname).write_text(text)
    done = subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-shared",
                           "-fPIC", "-o", "libtoy.so", "toy.c", "-lm"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    library = ctypes.CDLL(str(tmp_path / "libtoy.so"))
    q = _states(robot)
    params = np.ascontiguousarray(robot.parameter_values, dtype=float)
    pointer = ctypes.POINTER(ctypes.c_double)
    for kind, width in (("toy_weighted_squares", 1), ("toy_twice", robot.dof)):
        fn = getattr(library, f"toy_{kind}")
        got = []
        for row in q:
            row = np.ascontiguousarray(row)
            out = np.empty(width)
            args = [params.ctypes.data_as(pointer)] if mode == "argument" else []
            fn(*args, row.ctypes.data_as(pointer), out.ctypes.data_as(pointer))
            got.append(out if width > 1 else out[0])
        np.testing.assert_allclose(np.array(got), direct(robot, kind, q), rtol=1e-13, atol=0)


def test_a_new_entry_exports_to_jax(toys, robot):
    jax = pytest.importorskip("jax", reason="JAX is not installed (pip install 'robodyn[jax]')")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        fns = robot.to_jax(list(toys))
        q = _states(robot)
        for kind in toys:
            np.testing.assert_allclose(np.asarray(fns[kind](q)), direct(robot, kind, q),
                                       rtol=1e-13, atol=0)
    finally:
        jax.config.update("jax_enable_x64", old)


def test_a_new_entry_exports_to_casadi(toys, robot):
    pytest.importorskip("casadi", reason="CasADi is not installed (pip install 'robodyn[casadi]')")
    fns = robot.to_casadi(list(toys))
    assert fns.toy_weighted_squares.name_out() == ["s"]
    assert fns.toy_twice.name_out() == ["out"]
    q = _states(robot)
    for kind in toys:
        got = np.array([np.array(fns[kind](row)).ravel() for row in q])
        want = direct(robot, kind, q).reshape(N, -1)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("export", ["to_code", "to_jax", "to_casadi"])
def test_a_name_not_in_the_registry_is_a_clear_error(robot, export):
    args = ("c",) if export == "to_code" else ()
    with pytest.raises(InputError, match="'no_such_function' is not a function") as caught:
        getattr(robot, export)(*args, ["inverse_dynamics", "no_such_function"])
    assert f"use names of {', '.join(KERNELS)}" in str(caught.value)


def test_an_entry_taken_out_is_no_longer_exported(robot):
    """The fixture leaves the registry as it found it."""
    assert not set(TOYS) & set(KERNELS)
    with pytest.raises(InputError, match="'toy_twice' is not a function"):
        robot.to_code("python", ["toy_twice"])
