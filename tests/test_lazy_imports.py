"""``import robodyn`` loads what every user needs and nothing else: SymPy (the closed forms,
the model files' expressions), SciPy (the identification's QR and optimiser, the adaptive
integrators, splines), Matplotlib, Numba, Dask, JAX and CasADi load on first use, so the
first number comes sooner (issue 32)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("sympy", "scipy", "matplotlib", "numba", "dask", "jax", "casadi")


def _heavy_after(code: str) -> str:
    """The heavy packages loaded once ``code`` ran in a fresh interpreter."""
    code += f"\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()


def test_importing_robodyn_loads_none_of_the_heavy_packages():
    assert _heavy_after("import robodyn as rd") == "[]"


#: Standard modules ``import robodyn`` leaves to their first use (issue 32, sixth session:
#: 0.02 s of the import): the background compiler's ``subprocess`` and ``json``, the thread
#: pool's ``concurrent.futures``, ``tempfile`` (the kernel cache writes its own temporary
#: files), ``importlib.resources`` (the trig digest reads the files beside its module),
#: ``html`` (notebooks' tables) and ``difflib`` (the "did you mean" of an unknown frame).
LATER = ("subprocess", "json", "concurrent.futures", "tempfile", "importlib.resources",
         "html", "difflib")


def test_importing_robodyn_leaves_the_standard_modules_of_later_work_unloaded():
    code = ("import sys, numpy\nbefore = set(sys.modules)\nimport robodyn\n"
            f"print(sorted(m for m in {LATER!r} if m in sys.modules and m not in before))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip()
    assert out == "[]"


def test_the_modules_left_to_later_load_when_their_work_comes(tmp_path):
    """The same modules arrive with their work: a frame that does not exist (difflib), a
    notebook's table (html), a batch on the thread pool (concurrent.futures), a first call
    in ``auto`` that starts the background compiler (subprocess, json)."""
    import os

    code = ("import sys, numpy as np, robodyn as rd\n"
            "from robodyn.codegen import threads, tiers\n"
            "r = rd.load('planar-2r')\n"
            "try:\n    r.jacobian(np.zeros(2), frame='linc2')\nexcept Exception as e:\n"
            "    print(type(e).__name__, 'did you mean' in str(e))\n"
            "r._repr_html_()\n"
            "threads.run_in_threads(max, [(1, 2), (3, 4)])\n"
            "r.inverse_dynamics(np.zeros(2), np.zeros(2), np.zeros(2))\n"
            "for _ in range(200):\n"
            "    if tiers.background_process() is not None: break\n"
            "    import time; time.sleep(0.05)\n"
            "bg = tiers.background_process()\n"
            "import os, signal\n"
            "if bg is not None: os.killpg(bg.pid, signal.SIGKILL)\n"
            f"print(*[m in sys.modules for m in {LATER[:3] + LATER[5:]!r}])\n")
    env = {**os.environ, "ROBODYN_TIER": "auto", "ROBODYN_CACHE_DIR": str(tmp_path / "c")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ModelError", "True"] + ["True"] * 5


def test_identification_loads_scipy_when_it_runs():
    code = ("import sys, robodyn as rd\n"
            "robot = rd.load('planar-2r')\n"
            "before = 'scipy.linalg' in sys.modules\n"
            "robot.base_parameters()\n"
            "print(before, 'scipy.linalg' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert out.split() == ["False", "True"]


def test_the_command_line_help_loads_none_of_the_heavy_packages():
    """``robodyn --help`` builds every command's parser (their choices: the export
    languages, the exercise sizes) from tables, not from the modules that do the work."""
    assert _heavy_after("from robodyn.cli.app import build_parser\n"
                        "build_parser().format_help()") == "[]"


@pytest.mark.slow
def test_a_first_result_from_a_compiled_kernel_needs_no_numba(tmp_path):
    """A kernel compiled before (ready in the cache) answers a short script's first calls
    from the NumPy tier: Numba's import (0.3-0.5 s) is paid only by a process that goes on
    calling (robodyn.codegen.tiers.LOAD_AFTER). Both tiers give the same doubles."""
    import os

    env = {**os.environ, "ROBODYN_TIER": "auto", "ROBODYN_CACHE_DIR": str(tmp_path / "c")}
    warm = subprocess.run([sys.executable, "-m", "robodyn", "compile", "planar-2r", "--kinds",
                           "inverse_dynamics"], capture_output=True, text=True, timeout=300,
                          env=env)
    assert warm.returncode == 0, warm.stderr
    code = ("import sys, numpy as np, robodyn as rd\n"
            "r = rd.load('planar-2r'); q = np.array([0.3, -0.7]); qd = np.array([0.2, 0.5])\n"
            "tau = r.inverse_dynamics(q, qd, np.array([1.0, -2.0]))\n"
            "print(r.runner._entries['inverse_dynamics'][0].tier, 'numba' in sys.modules,\n"
            "      *[x.hex() for x in tau])\n")
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120, env=env)
    assert first.returncode == 0, first.stderr
    tier, numba_loaded, *values = first.stdout.split()
    assert (tier, numba_loaded) == ("numpy", "False")
    compiled = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120, env={**env, "ROBODYN_TIER": "compiled"})
    assert compiled.returncode == 0, compiled.stderr
    assert compiled.stdout.split()[0] == "compiled"
    assert compiled.stdout.split()[2:] == values


def test_a_urdf_and_its_first_numbers_load_no_sympy(tmp_path):
    """A URDF's numbers are plain Python numbers and its gravity ``(0, 0, -g)`` a
    :class:`robodyn.core.lazy.Parameter`: loading the Panda and its first inverse dynamics,
    mass matrix, forward dynamics and Jacobian import no SymPy (0.2 s of a 0.25 s first
    result), and the closed forms still hold the symbol ``g`` (checked against the numbers)."""
    import os

    env = {**os.environ, "ROBODYN_TIER": "auto", "ROBODYN_CACHE_DIR": str(tmp_path / "c")}
    code = ("import sys, numpy as np, robodyn as rd\n"
            "r = rd.load(rd.models.example_robot_data('panda_description/urdf/panda.urdf'))\n"
            "q = np.linspace(-0.5, 0.5, r.nq); v = np.full(r.nv, 0.1)\n"
            "tau = r.inverse_dynamics(q, v, v); r.mass_matrix(q)\n"
            "r.forward_dynamics(q, v, tau); r.jacobian(q)\n"
            "print(r.symbols, r.values['g'], 'sympy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["('g',)", "9.81", "False"]


def test_a_urdf_gravity_is_the_symbol_g_in_its_closed_forms():
    """The URDF's gravity Parameter becomes SymPy's ``g`` when a derivation needs it: the
    planar 2R's gravity torques are linear in ``g`` and equal the numbers at g = 9.81 and
    at the Moon's 1.62 (``with_values``)."""
    from pathlib import Path

    import numpy as np
    import sympy as sp

    import robodyn as rd

    robot = rd.load(Path(__file__).parent / "data" / "urdf" / "planar_2r.urdf")
    q = np.array([0.4, -1.1])
    eq = robot.equations()
    g = sp.Symbol("g")
    assert g in sp.Matrix(eq.g).free_symbols
    for value in (9.81, 1.62):
        moon = robot.with_values(g=value)
        closed = sp.Matrix(eq.g).subs(dict(zip(eq.q, q))).subs(g, value)
        assert np.allclose(np.array(closed, dtype=float).ravel(),
                           moon.gravity_torques(q), rtol=1e-12, atol=1e-12)
