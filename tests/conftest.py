"""Shared helpers for the tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robodyn as rd

MODEL_NAMES = rd.models.names()

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
