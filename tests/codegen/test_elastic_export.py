"""The exported ``elastic_forward_dynamics(q, theta, qd, thetad, tau)`` of a partly elastic
model (``theta`` one entry per spring, the rigid joints' rotors in ``M``), in Python and C,
equal to robodyn.motion.elastic's numeric model (itself checked against the equations
written by hand in tests/motion/test_partial_elastic.py); and the programs the JAX and
CasADi functions walk (neither is installed here: walked with NumPy's operations, as
JAX and CasADi walk them with theirs), per joint, partly elastic and behind a coupled
transmission."""

from __future__ import annotations

import importlib.util
import shutil
import types
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import write_model
from robodyn.codegen.export.autodiff import build_program, evaluate, function_names
from robodyn.core.errors import InputError
from robodyn.motion.elastic import elastic_forward_dynamics, springs_of

pytestmark = pytest.mark.usefixtures("numpy_backend")

#: Joints 1 and 3 elastic (joint 3's stiffness a parameter), joint 2 rigid with a rotor
#: (its armature 50^2 5e-5 = 0.125 in M) and Coulomb friction on its link.
PARTIAL = """\
name: partial-3r
planar: true
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 0.7, mass: 1.3, com: [-0.3, 0, 0], inertia: [0, 0, 0.02, 0, 0, 0],
     friction: {viscous: 0.2},
     motor: {inertia: 1.0e-4, gear_ratio: 40, stiffness: 3000, spring_damping: 0.5}}
  - {joint: revolute, a: 0.5, mass: 0.8, com: [-0.2, 0, 0],
     friction: {viscous: 0.1, coulomb: 0.3}, motor: {inertia: 5.0e-5, gear_ratio: 50}}
  - {joint: revolute, a: 0.3, mass: 0.4, com: [-0.1, 0, 0],
     motor: {inertia: 2.0e-5, gear_ratio: 30, stiffness: K3}}
values: {K3: 800}
"""

WRIST = """\
name: elastic-wrist
planar: true
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 0.7, mass: 1.3, com: [0, 0, 0], friction: {viscous: 0.2}}
  - {joint: revolute, a: 0.5, mass: 0.8, com: [0, 0, 0], friction: {viscous: 0.1}}
transmission: {matrix: [[40, 0], [25, 50]], motor_inertia: [1.0e-4, 5.0e-5],
               motor_viscous: [1.0e-4, 2.0e-4], motor_coulomb: [1.0e-3, 0],
               stiffness: [2.0, 1.5], spring_damping: [1.0e-3, 5.0e-4]}
"""

NUMPY = types.SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, exp=np.exp,
                              tanh=np.tanh, pow=np.power)


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    return rd.load(str(write_model(tmp_path_factory.mktemp("partial"), PARTIAL)))


def _states(robot, springs, count, seed):
    """``count`` states ``(q, theta, qd, thetad, tau)`` with the motors near ``S q``."""
    rng = np.random.default_rng(seed)
    n, m = robot.dof, springs.dof
    q, qd, tau = (rng.uniform(-2, 2, (count, n)) for _ in range(3))
    near = springs.deflection(q, np.zeros((count, m)))  # -S q
    theta = -near + rng.uniform(-0.02, 0.02, (count, m))
    return q, theta, qd, rng.uniform(-3, 3, (count, m)), tau


def _python_module(robot, tmp_path, parameters):
    files = robot.to_code("python", ["elastic_forward_dynamics"], parameters=parameters)
    (name, text), = files.items()
    (tmp_path / name).write_text(text)
    spec = importlib.util.spec_from_file_location(f"{name[:-3]}_elastic", tmp_path / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, text


def test_the_partly_elastic_export_is_the_numeric_model(arm, tmp_path):
    """Python (``p`` holding ``K3``) and C (one compile, baked) at 6 states: ``[qdd (3),
    thetadd (2)]`` equal to robodyn.motion.elastic's (1e-12); ``theta`` of 3 entries is
    refused; the header names the motors' joints."""
    springs = springs_of(arm.numeric_chain)
    assert springs.joints == (0, 2)
    q, th, qd, thd, tau = _states(arm, springs, 6, seed=3)
    qdd, thdd = elastic_forward_dynamics(arm, springs, q, th, qd, thd, tau)
    # far from rest: the springs pull hard (a wrong sign or index shows)
    assert np.abs(thdd).max() > 10.0 and np.abs(qdd).max() > 1.0
    module, text = _python_module(arm, tmp_path, "argument")
    assert "theta, thetad: 2 entries, the motors of joints 1, 3" in text
    acc = module.elastic_forward_dynamics(arm.runner.parameter_values, q, th, qd, thd, tau)
    assert acc.shape == (6, 5)
    np.testing.assert_allclose(acc[:, :3], qdd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(acc[:, 3:], thdd, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"theta: expected shape \(\.\.\., 2\)"):
        module.elastic_forward_dynamics(arm.runner.parameter_values, q, q, qd, thd, tau)
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler (cc, gcc, clang) on PATH")
    c = arm.compile_c(["elastic_forward_dynamics"], flags=("-O0",))
    acc = c.elastic_forward_dynamics(q, th, qd, thd, tau)
    assert acc.shape == (6, 5)
    np.testing.assert_allclose(acc[:, :3], qdd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(acc[:, 3:], thdd, rtol=1e-12, atol=1e-12)
    with pytest.raises(InputError, match=r"thetad: expected shape \(\.\.\., 2\)"):
        c.elastic_forward_dynamics(q, th, qd, qd, tau)


def test_a_partly_elastic_model_exports_it_among_every_function(arm):
    assert "def elastic_forward_dynamics(q, theta, qd, thetad, tau)" in "".join(
        arm.to_code("python").values())
    assert function_names(arm.runner.chain, None, "x")[-1] == "elastic_forward_dynamics"
    assert "elastic_forward_dynamics" not in function_names(rd.load("planar-2r").runner.chain,
                                                            None, "x")


def _walked(robot, mode, state):
    program = build_program(robot.runner, "elastic_forward_dynamics", mode)
    args = dict(zip(("q", "theta", "qd", "thetad", "tau"), state, strict=True))
    if mode == "argument":
        args["p"] = robot.runner.parameter_values
    flat = evaluate(program, args, NUMPY)
    return program, [np.reshape([flat[i] if isinstance(i, int) else i for i in out.items],
                                out.shape) for out in program.results]


@pytest.mark.parametrize("which", ["partial", "every joint", "coupled"])
def test_the_jax_and_casadi_programs_are_the_numeric_model(arm, tmp_path, which):
    """The program JAX and CasADi walk gives ``(qdd (n), thetadd (m))`` equal to
    robodyn.motion.elastic's (1e-12), in both parameter modes; its inputs are ``theta``
    and ``thetad`` of one entry per spring."""
    data = Path(__file__).parents[1] / "data" / "yaml"
    robot = {"partial": lambda: arm,
             "every joint": lambda: rd.load(str(data / "elastic_2r.yaml")),
             "coupled": lambda: rd.load(str(write_model(tmp_path, WRIST)))}[which]()
    springs = springs_of(robot.numeric_chain)
    states = _states(robot, springs, 3, seed=7)
    want = elastic_forward_dynamics(robot, springs, *states)
    for mode in ("baked", "argument"):
        for k in range(3):
            program, got = _walked(robot, mode, [x[k] for x in states])
            assert dict(program.inputs)["theta"] == springs.dof
            assert [out.name for out in program.results] == ["qdd", "thetadd"]
            for value, expected in zip(got, want, strict=True):
                np.testing.assert_allclose(value, expected[k], rtol=1e-12, atol=1e-12)


def test_the_programs_refuse_what_has_no_springs():
    with pytest.raises(InputError, match="is for a model with elastic joints"):
        build_program(rd.load("planar-2r").runner, "elastic_forward_dynamics", "baked")
