"""Shared helpers for the tests."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd

# The suite checks values in the NumPy tier: the compiled kernels' own programs, statement
# for statement, giving the same doubles (tests/codegen/test_kernel_tiers.py checks every
# built-in, the UR5, the Panda and TALOS), without Numba's compile of each (a second to a
# minute per kernel: the suite took 29 minutes with an empty cache, most of it compiling).
# Tests of the compiled kernels themselves (their one-state functions, the compiled
# simulation loops, Numba's cache) ask for them: the ``compiled_tier`` fixture.
os.environ.setdefault("ROBODYN_TIER", "numpy")

MODEL_NAMES = rd.models.names()
#: The built-ins the symbolic tests derive in closed form: the YAML models (the Delta robot,
#: an MJCF file, is a 15-joint tree whose closed forms are out of a test's time).
SYMBOLIC_MODELS = [m for m in MODEL_NAMES if rd.models.path(m).suffix == ".yaml"]

#: The tests folder (it mirrors src/robodyn: tests/model/, tests/dynamics/, ...), the
#: repository root, and the test data (URDF files).
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
TEST_DATA = TESTS / "data"

def random_states(robot, n: int, seed: int = 0):
    """``n`` random ``(q, qd, qdd)`` of a robot, shape ``(n, dof)`` each."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, size=(n, robot.dof))
    for j, link in enumerate(robot.links):
        if link.joint.type == "prismatic":
            q[:, j] = rng.uniform(0.1, 1.0, size=n)
    qd = rng.normal(size=(n, robot.dof))
    qdd = rng.normal(size=(n, robot.dof))
    return q, qd, qdd


@pytest.fixture(scope="session")
def robots():
    return {name: rd.load(name) for name in MODEL_NAMES}


@pytest.fixture
def compiled_tier(monkeypatch):
    """Run a test's new kernels compiled by Numba in the foreground (``ROBODYN_TIER=
    compiled``): for tests of the compiled kernels and loops themselves, not of values."""
    monkeypatch.setenv("ROBODYN_TIER", "compiled")


@pytest.fixture
def numpy_backend(monkeypatch):
    """Run a test's new kernels on the NumPy backend: the same generated programs without
    Numba's compile time (about a second per kernel, half a minute for a 7-DOF regressor).
    For tests of values, not speed; the backends are checked equal in test_batching.py."""
    monkeypatch.setenv("ROBODYN_BACKEND", "numpy")


def run_bounded(args, *, timeout: float = 30, memory_mb: int = 1024, env=None):
    """Run ``python *args`` in a subprocess under a wall-clock ``timeout`` (seconds) and an
    address-space limit of ``memory_mb`` (``resource.RLIMIT_AS``), so that a hang or a
    runaway allocation fails the test instead of stalling the machine; the completed
    process (text output) is returned."""
    import resource  # POSIX only, as the tests that use it
    import subprocess
    import sys

    limit = memory_mb * 2**20

    def bound():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=bound, env=env)


#: A small valid model file (a revolute and a prismatic joint), for tests that break it.
GOOD_MODEL = """\
name: test-arm
dh: standard
gravity: [0, -g, 0]
links:
  - joint: revolute
    a: l1
    mass: m1
    com: [-l1/2, 0, 0]
    inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]
    friction: {viscous: Fv1, coulomb: 0}
  - joint: prismatic
    alpha: pi/2
    mass: m2
    com: [0, 0, 0]
values: {m1: 2.0, m2: 1.0, l1: 0.5, Ixx1: 0.001, Fv1: 0.1, g: 9.81}
"""


def write_model(tmp_path, text, name="arm.yaml"):
    """``text`` (dedented) as the model file ``name`` in ``tmp_path``."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


#: A spatial 2R arm whose joints take friction fields ``{f1}``, ``{f2}`` (and ``{name}``):
#: the model of the friction tests (tests/dynamics/test_friction_models.py,
#: tests/identification/test_friction_fit.py).
FRICTION_ARM = """\
name: {name}
dh: standard
gravity: [0, 0, -9.81]
links:
  - joint: revolute
    a: 0.4
    alpha: pi/2
    d: 0.1
    theta: 0
    mass: 2.0
    com: [-0.2, 0, 0.01]
    inertia: [0.02, 0.03, 0.04, 0.001, 0, 0.002]
    friction: {f1}
  - joint: revolute
    a: 0.3
    alpha: 0
    d: 0
    theta: 0
    mass: 1.2
    com: [-0.15, 0.01, 0]
    inertia: [0.01, 0.012, 0.015, 0, 0.001, 0]
    friction: {f2}
"""
