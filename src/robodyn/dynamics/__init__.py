"""The algorithms. Each is written once, on scalars (see :mod:`robodyn.core.linalg3`),
and reads a :class:`~robodyn.model.chain.Chain`; ``ops`` supplies ``sin``,
``cos``, ``sqrt`` and ``sign`` for the scalar type in use (:mod:`robodyn.dynamics.ops`).
"""
