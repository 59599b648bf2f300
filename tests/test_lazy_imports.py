"""``import robodyn`` loads what every user needs and nothing else: SciPy (the identification's
QR and optimiser, the adaptive integrators, splines), Matplotlib, Numba, Dask, JAX and
CasADi load on first use, so the first number comes sooner (issue 32)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("scipy", "matplotlib", "numba", "dask", "jax", "casadi")


def test_importing_robodyn_loads_none_of_the_heavy_packages():
    code = ("import sys, robodyn as rd\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "[]"


def test_identification_loads_scipy_when_it_runs():
    code = ("import sys, robodyn as rd\n"
            "robot = rd.load('planar-2r')\n"
            "before = 'scipy.linalg' in sys.modules\n"
            "robot.base_parameters()\n"
            "print(before, 'scipy.linalg' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert out.split() == ["False", "True"]
