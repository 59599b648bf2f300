"""The generic kernel tier: a registry entry's algorithm run on the model as data, in NumPy.

A compiled kernel (:mod:`robodyn.codegen.kernel`) is the algorithm traced into a
straight-line program and compiled, which costs time that grows faster than the model
(measured on a DH chain, one process, this 2-core machine: inverse dynamics compiles in
3.3 s at 10 joints, 5.2 s at 20, 9.6 s at 40, 49 s at 150; the mass matrix in 2.6 s,
10.0 s, 40.9 s, and more than 850 s at 150). Even the NumPy flavour of the traced
program must first trace and execute a program as long as the unrolled algorithm: the
forward dynamics of a 150-joint chain is a Cholesky factorisation of ``n^3 / 6``
statements, 38 s before its first answer.

This tier traces nothing: it runs the registry entry's scalar algorithm
(``spec.algorithm(chain, ops, **inputs)``, the recursions of :mod:`robodyn.dynamics`:
RNEA, CRBA, the Cholesky or ``L^T D L`` solve, the articulated-body algorithm for the
forward dynamics of big models; Featherstone, *Rigid Body Dynamics Algorithms*, 2008,
ch. 5-7) on the numeric chain, each scalar a NumPy column of the
batch's samples, so one call costs the algorithm's own operation count in NumPy calls:
a 150-joint chain's first ID, M and FD answer in 0.05, 0.7 and 1.1 s (measured), and any
model the loaders accept answers in time polynomial in its size, with no compile. The
same arithmetic as the traced programs, in another order (the tape folds constants and
shares common subexpressions): results agree to rounding, not bit for bit.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..dynamics.aba import articulated_body
from ..dynamics.forward_dynamics import forward_dynamics
from ..dynamics.registry import input_width, lookup, output_shape
from ..model.chain import Chain
from . import trig_numpy
from .kernel import Kernel

__all__ = ["GenericKernel", "NUMPY_OPS", "ABA_MIN_DOF"]

#: From this many degrees of freedom on, the generic forward dynamics of a model of
#: one-value joints is the articulated-body algorithm (:mod:`robodyn.dynamics.aba`,
#: ``O(n)``), not ``M`` and its factorisation (``O(n^3)`` for a chain, ``O(n d^2)`` for a
#: tree of depth ``d``): a 1 000-body tree 8 links wide (depth about 330) answers in 1.5 s
#: instead of 41 s (measured). Below, the factorisation, as the traced programs do it.
ABA_MIN_DOF = 33

#: The scalar functions of the algorithms, for NumPy columns (the sines and cosines of the
#: compiled kernels, :mod:`robodyn.codegen.trig_numpy`).
NUMPY_OPS = SimpleNamespace(sin=trig_numpy.sin, cos=trig_numpy.cos, sqrt=np.sqrt,
                            sign=np.sign, name="numpy")


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [value]


class GenericKernel(Kernel):
    """Registry entry ``kind`` of a numeric ``chain`` (every number a float: the
    parameters' values are in it, so the ``p`` a call passes is not read), called like a
    NumPy :class:`~robodyn.codegen.kernel.Kernel`: same inputs, outputs and checks of
    non-finite inputs and results."""

    tier = "generic"

    def __init__(self, chain: Chain, kind: str, params: tuple[str, ...] = ()):
        spec = lookup(kind)
        self.kind = kind
        self.params = tuple(params)
        self.backend = "numpy"
        self.source = ""
        self._block_fn = None
        self.groups = [(name, input_width(name, chain, spec.wrenches)) for name in spec.inputs]
        self.width = int(np.prod(output_shape(spec, chain), dtype=int))
        algorithm = spec.algorithm
        if algorithm is forward_dynamics and chain.single_valued and chain.nv >= ABA_MIN_DOF:
            algorithm = articulated_body

        def run(*args):
            """``run(*columns, p, block)``: the kernel's NumPy calling convention
            (inputs ``(k, N)``, result into ``block`` of shape ``(m, N)``)."""
            *columns, _p, block = args
            given = {name: list(col) for (name, _), col in zip(self.groups, columns)}
            for i, value in enumerate(_flatten(algorithm(chain, ops=NUMPY_OPS, **given))):
                block[i] = value  # a constant entry (a zero of M's pattern) broadcasts
        self.fn = run
