"""``import robodyn`` loads what every user needs and nothing else: SymPy (the closed forms,
the model files' expressions), SciPy (the identification's QR and optimiser, the adaptive
integrators, splines), Matplotlib, Numba, Dask, JAX and CasADi load on first use, so the
first number comes sooner (issue 32)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("sympy", "scipy", "matplotlib", "numba", "dask", "jax", "casadi")


def _heavy_after(code: str) -> str:
    """The heavy packages loaded once ``code`` ran in a fresh interpreter."""
    code += f"\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()


def test_importing_robodyn_loads_none_of_the_heavy_packages():
    assert _heavy_after("import robodyn as rd") == "[]"


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
