"""The NumPy tier's first one-state calls evaluate the traced program from its tape
(:mod:`robodyn.codegen.tape_eval`): the same doubles as the generated kernel, the values of
Pinocchio, and the generated source compiled only after
:data:`~robodyn.codegen.kernel.INTERPRETED_CALLS` calls (issue 32, the first number)."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.codegen.emit import numpy_function
from robodyn.codegen.kernel import INTERPRETED_CALLS, Kernel
from robodyn.codegen.tape import Tape
from robodyn.codegen.tape_eval import one_state, program

PANDA = "panda_description/urdf/panda.urdf"
KINDS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "jacobian", "gravity_torques",
         "coriolis_matrix")


@pytest.mark.parametrize("name", ["puma560", "planar-2r-payload", "rp-arm", "planar-y", PANDA])
def test_the_tape_gives_the_generated_kernels_doubles(name):
    """Every instruction is the generated line's function on the same operands: 30 random
    states (and the zero state) of six kernels agree to the last bit."""
    robot = rd.load(rd.models.example_robot_data(name) if name == PANDA else name)  # its
    # chain: the Panda's has the mimic finger joint too (nine inputs of each group)
    runner = robot.runner
    p = [float(x) for x in runner.parameter_values]
    rng = np.random.default_rng(7)
    for kind in KINDS:
        k = Kernel(runner.chain, kind, runner.parameter_names, which="numpy")
        prog = program(*k._traced)
        for trial in range(31):
            rows = [(rng.standard_normal(w) * 3 * (trial > 0)).tolist() for _, w in k.groups]
            mine = one_state(prog, rows, p)
            generated = [0.0] * k.width
            with np.errstate(all="ignore"):
                k.fn(*rows, p, generated)
            assert [float(x).hex() for x in mine] == [float(x).hex() for x in generated], (kind,
                                                                                      trial)


def test_the_first_calls_equal_pinocchio_and_compile_after_the_budget():
    """The UR5's inverse dynamics from the tape equals Pinocchio's ``rnea``; the kernel
    generates and compiles its source at call ``INTERPRETED_CALLS + 1``, not before, and
    then gives the same doubles."""
    pin = pytest.importorskip("pinocchio", reason="Pinocchio is the reference (pip install pin)")
    path = str(rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf"))
    robot = rd.load(path)
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    k = Kernel(robot.runner.chain, "inverse_dynamics", robot.runner.parameter_names,
               which="numpy")
    p = np.asarray(robot.runner.parameter_values, dtype=float)
    rng = np.random.default_rng(3)
    first = None
    for call in range(INTERPRETED_CALLS):
        q, v, a = (rng.uniform(-1, 1, robot.nv) for _ in range(3))
        tau = k.single(p, q[None], v[None], a[None])[0]
        np.testing.assert_allclose(tau, pin.rnea(model, data, q, v, a), rtol=1e-10,
                                   atol=1e-10)
        if call == 0:
            first = (q, v, a, tau)
        assert "fn" not in k.__dict__  # still answered from the tape
    q, v, a, tau = first
    again = k.single(p, q[None], v[None], a[None])[0]
    assert "fn" in k.__dict__ and "def kernel(" in k.source
    assert [x.hex() for x in again] == [x.hex() for x in tau]


def test_a_batch_compiles_the_source_at_once():
    robot = rd.load("planar-2r")
    k = Kernel(robot.runner.chain, "mass_matrix", robot.runner.parameter_names,
               which="numpy")
    p = np.asarray(robot.runner.parameter_values, dtype=float)
    q = np.array([[0.1, 0.2], [0.3, -0.4]])
    m = k(p, q)
    assert "fn" in k.__dict__ and k._traced is None
    for row, qi in zip(m, q):
        assert [x.hex() for x in row] == [x.hex() for x in k.single(p, qi[None])[0]]


def test_constants_keep_their_sign_and_a_division_by_zero_raises_as_the_kernel_does():
    """-0.0 and 0.0 are two constants (an output of -0.0 stays -0.0); 1/x at x = 0 raises
    ZeroDivisionError in both the tape and the generated code (the kernel then takes its
    arrays' path: inf, reported as a non-finite result)."""
    tape = Tape()
    x = tape.input("q0")
    y = tape.div(1.0, x)
    outputs = [y, -0.0, 0.0, float("inf")]
    prog = program(tape, [("q", 1)], outputs)
    out = one_state(prog, [[4.0]], [])
    assert out[0] == 0.25 and np.signbit(out[1]) and not np.signbit(out[2])
    assert out[3] == float("inf")
    with pytest.raises(ZeroDivisionError):
        one_state(prog, [[0.0]], [])
    generated = numpy_function(tape, [("q", 1)], outputs)
    assert generated([4.0], [], [0.0] * 4) == out
    with pytest.raises(ZeroDivisionError):
        generated([0.0], [], [0.0] * 4)

