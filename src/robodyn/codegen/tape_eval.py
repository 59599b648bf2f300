"""One state of a traced program, evaluated straight from its tape: the first calls of the
NumPy tier, with no source to generate and compile.

The NumPy flavour of a kernel (:func:`robodyn.codegen.emit.numpy_source`) is Python source
that Python compiles before its first call: 3-11 ms for each of the Panda's first kernels,
ten to forty times what one state costs to evaluate. :func:`one_state` runs the same program
on Python floats without that text: the live instructions (:func:`~robodyn.codegen.emit.
live_ops`) in tape order, each the same function the generated line calls (Python's float
operators for ``+ - * /`` and negation, :mod:`robodyn.codegen.trig_numpy` for sines and
cosines, NumPy's ``sign``, ``power`` and the other functions), on the same operands in the same
order: the same IEEE operations, so the same doubles as the generated kernel (a division by
zero raises :class:`ZeroDivisionError` in both). :class:`~robodyn.codegen.kernel.Kernel`
answers its first :data:`~robodyn.codegen.kernel.INTERPRETED_CALLS` one-state calls this
way, then compiles its source.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from . import trig_numpy
from .emit import live_ops
from .tape import Tape, Var

__all__ = ["Program", "program", "one_state"]

_FUNCTIONS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
              "div": operator.truediv, "neg": operator.neg, "pow": np.power,
              "sin": trig_numpy.sin, "cos": trig_numpy.cos}


class Program:
    """A tape made ready to evaluate: ``inputs`` ``(slot, group, index)``, ``steps``
    ``(slot, function, argument slots)``, ``outputs`` slots, and ``size`` slots in all (the
    tape's values, then its constants)."""

    __slots__ = ("inputs", "steps", "outputs", "size", "constants")

    def __init__(self, inputs, steps, outputs, size, constants):
        self.inputs, self.steps, self.outputs = inputs, steps, outputs
        self.size, self.constants = size, constants


def program(tape: Tape, groups: Sequence[tuple[str, int]], outputs: Sequence) -> Program:
    """The :class:`Program` of ``tape``'s ``outputs``, its inputs named by ``groups``
    (``(prefix, width)``, the kernel's input order; prefix ``p``: the parameter values)."""
    live = live_ops(tape, outputs)
    group_of = {prefix: k for k, (prefix, _) in enumerate(groups)}
    group_of["p"] = len(groups)
    constants: dict[str, int] = {}
    size = len(tape.ops)

    def slot(arg: tuple) -> int:
        nonlocal size
        if arg[0] == "v":
            return arg[1]
        key = float(arg[1]).hex()  # exact, and tells -0.0 from 0.0
        if key not in constants:
            constants[key] = size
            size += 1
        return constants[key]

    inputs, steps = [], []
    for i, op in enumerate(tape.ops):
        if not live[i]:
            continue
        if op[0] == "in":
            prefix = op[1].rstrip("0123456789")
            inputs.append((i, group_of[prefix], int(op[1][len(prefix):])))
            continue
        fn = _FUNCTIONS.get(op[0]) or getattr(np, op[0])
        steps.append((i, fn, tuple(slot(a) for a in op[1:])))
    out = [out.i if isinstance(out, Var) else slot(("c", out)) for out in outputs]
    values = {s: float.fromhex(k) for k, s in constants.items()}
    return Program(inputs, steps, out, size, values)


def one_state(prog: Program, rows: Sequence[Sequence[float]], p: Sequence[float]) -> list:
    """The outputs of ``prog`` (a list of floats) for one state: ``rows`` the inputs' values
    (one sequence per group) and ``p`` the parameter values, as the generated kernel's
    ``kernel(*rows, p, out)`` computes them."""
    v = [0.0] * prog.size
    for s, value in prog.constants.items():
        v[s] = value
    groups = (*rows, p)
    for s, g, k in prog.inputs:
        v[s] = groups[g][k]
    for s, fn, args in prog.steps:
        if len(args) == 2:
            v[s] = fn(v[args[0]], v[args[1]])
        else:
            v[s] = fn(v[args[0]])
    return [v[s] for s in prog.outputs]
