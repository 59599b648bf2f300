"""Code export of the traced kernels of a tree: the exported Python and C give the
kernels' values (which tests/dynamics/test_trees.py checks against Pinocchio)."""

from __future__ import annotations

import importlib.util
import shutil
import sys

import numpy as np
import pytest

from conftest import TESTS

sys.path.insert(0, str(TESTS / "dynamics"))
from tree_models import random_states, random_tree, robot_of, y_tree  # noqa: E402

FUNCTIONS = ["inverse_dynamics", "mass_matrix", "forward_dynamics", "coriolis_matrix",
             "jacobian", "regressor"]


def test_python_export_of_a_tree(numpy_backend, tmp_path):
    robot = robot_of(random_tree(31, n=4, frames=0), name="tree4")
    (fname, text), = robot.to_code("python", FUNCTIONS).items()
    path = tmp_path / fname
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("tree_export_py", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    q, qd, qdd = random_states(robot.chain, 3, 31)
    args = {"inverse_dynamics": (q, qd, qdd), "mass_matrix": (q,),
            "forward_dynamics": (q, qd, qdd), "coriolis_matrix": (q, qd), "jacobian": (q,),
            "regressor": (q, qd, qdd)}
    for kind in FUNCTIONS:
        want = robot.runner.run(kind, *args[kind])
        got = np.asarray(getattr(module, kind)(*args[kind]))
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-12, atol=1e-12,
                                   err_msg=kind)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc on PATH")
def test_compiled_c_of_a_tree(numpy_backend):
    robot = robot_of(y_tree(), name="y")
    k = robot.compile_c(["inverse_dynamics", "forward_dynamics"])
    q, qd, qdd = random_states(robot.chain, 4, 32)
    np.testing.assert_allclose(k.inverse_dynamics(q, qd, qdd),
                               robot.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(k.forward_dynamics(q, qd, qdd),
                               robot.forward_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)
