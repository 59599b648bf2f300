"""A registry entry recorded on a tape: the straight-line program every backend runs.

:func:`trace` runs ``spec.algorithm(chain, ops=tape, **inputs)`` with a
:class:`~robodyn.codegen.tape.Tape` as the arithmetic, so the scalar algorithm of
:mod:`robodyn.dynamics` becomes a list of instructions: the compiled kernels
(:mod:`robodyn.codegen.kernel`) and the exporters (:mod:`robodyn.codegen.export`) start
from it. The chain's parameters (``m1``, ``l1``, ``g``) become inputs ``p0, p1, ...``;
its plain numbers are folded in as constants.
"""

from __future__ import annotations

import numpy as np

from ..core.lazy import is_parameter, is_sympy, sp
from ..dynamics.registry import KernelSpec, input_width, output_shape
from ..model.chain import Chain, snap_rotations
from .tape import Tape

__all__ = ["trace", "traced_chain"]


def traced_chain(chain: Chain, params: tuple[str, ...], tape: Tape) -> Chain:
    """The chain with each parameter an input ``p0, p1, ...`` of ``tape`` (in the order of
    ``params``) and every other number a float, rotations snapped as in
    :meth:`Chain.evaluate`."""
    inputs = {name: tape.input(f"p{j}") for j, name in enumerate(params)}
    # SymPy's names only for a chain of SymPy expressions (a URDF's numbers are plain)
    symbols = ({sp.Symbol(name): var for name, var in inputs.items()}
               if chain.holds_sympy() else {})

    def traced(x):
        if is_parameter(x):  # factor * name, as SymPy's Mul(factor, name) is recorded
            var = inputs[x.name]
            return var if x.factor == 1 else tape.mul(float(x.factor), var)
        return tape.from_sympy(x, symbols) if is_sympy(x) else float(x)

    return snap_rotations(chain.map(traced))


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [value]


def trace(chain: Chain, spec: KernelSpec, params: tuple[str, ...] = ()):
    """Record ``spec``'s algorithm on a fresh tape: ``(tape, input groups, outputs)``,
    the groups ``(input name, width)`` in the order of ``spec.inputs``."""
    tape = Tape()
    chain = traced_chain(chain, params, tape)
    groups = [(name, input_width(name, chain, spec.wrenches)) for name in spec.inputs]
    args = {name: tape.inputs_vector(name, width) for name, width in groups}
    outputs = _flatten(spec.algorithm(chain, ops=tape, **args))
    assert len(outputs) == int(np.prod(output_shape(spec, chain), dtype=int))
    return tape, groups, outputs
