"""The source of the compiled simulation loops: generated from the step functions' own
source (one copy of the step), and nothing but robodyn's module names goes into it."""

from __future__ import annotations

import ast
import inspect

import pytest

from robodyn.motion import steps
from robodyn.motion.loops import CONTROLLERS, loop_source

FD = "robodyn_kernel_0123456789abcdef01234567"
CK = "robodyn_kernel_89abcdef0123456789abcdef"


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_the_loop_module_runs_the_step_functions_own_source(controller):
    source = loop_source(FD, controller, CK, contact=controller == "pd_gravity")
    for fn in steps.LOOP_FUNCTIONS:
        assert inspect.getsource(fn) in source
    tree = ast.parse(source)
    defined = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    # the step functions once each, and only the stage and a row helper of its own
    assert sorted(defined) == sorted([fn.__name__ for fn in steps.LOOP_FUNCTIONS]
                                     + ["row", "stage"])
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert {node.module for node in imports} == {"numba", FD} | (
        {CK} if controller != "table" else set())


@pytest.mark.parametrize("name", ["os; import shutil", "x\nimport os", "a.b c", "", "1abc"])
def test_a_module_name_that_is_not_a_dotted_name_never_reaches_the_source(name):
    with pytest.raises(ValueError, match="not a module name"):
        loop_source(name, "table", None, contact=False)
    with pytest.raises(ValueError, match="not a module name"):
        loop_source(FD, "computed_torque", name, contact=False)


def test_an_unknown_controller_is_refused():
    with pytest.raises(ValueError, match="unknown controller 'pid'"):
        loop_source(FD, "pid", CK, contact=False)
