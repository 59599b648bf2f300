"""Polynomials in the sines and cosines of the joint angles: the algebra of closed forms.

Every quantity of a rigid serial chain (poses, velocities, energies, torques) is a
polynomial in ``s_i = sin(q_i)``, ``c_i = cos(q_i)`` of the revolute joints, the
prismatic joint variables ``q_i``, the rates ``qd_i``, ``qdd_i`` and the model
parameters. Held in that form (SymPy's sparse polynomial rings,
:mod:`sympy.polys.rings`) and reduced with ``c_i^2 = 1 - s_i^2`` after every product,
an expression has exactly one representation: sums cancel as they are formed, zero is
recognised by looking, and there is no expression swell. This is what makes a 6-DOF
derivation take seconds where ``trigsimp`` on expanded matrices takes minutes.

The algebra is split by concern:

* :mod:`.trig_ring`: :class:`TrigRing`, the ring of one chain (generators, calculus,
  coefficients);
* :mod:`.from_sympy`: SymPy expressions into the ring (parameters, opaque atoms such as
  Floats and ``sqrt(3)``, sines and cosines of angle sums);
* :mod:`.normal_form`: the reduction modulo ``c^2 + s^2 - 1`` and ``sqrt(n)^2 - n``;
* :mod:`.back_to_sympy`: polynomials back into SymPy expressions;
* :mod:`.trig_scalar`: :class:`TrigScalar`, a polynomial with the arithmetic of a
  scalar, so that the core's algorithms run on the ring unchanged.

This module gathers their public names.
"""

from .from_sympy import chain_expressions
from .trig_ring import TrigRing, joint_symbols
from .trig_scalar import TrigScalar

__all__ = ["TrigRing", "TrigScalar", "joint_symbols", "chain_expressions"]
