"""The few non-arithmetic functions the algorithms need, for SymPy expressions.

An algorithm takes an ``ops`` namespace with ``sin``, ``cos``, ``sqrt`` and
``sign`` (and, for friction, ``exp``, ``tanh`` and ``pow``)
for its scalar type: :data:`SYMPY` for closed forms, a
:class:`~robodyn.codegen.tape.Tape` for generated code.
"""

from __future__ import annotations

from types import SimpleNamespace

import sympy as sp

#: SymPy expressions (closed forms).
SYMPY = SimpleNamespace(sin=sp.sin, cos=sp.cos, sqrt=sp.sqrt, sign=sp.sign, exp=sp.exp,
                        tanh=sp.tanh, pow=lambda a, c: a**c, name="sympy")
