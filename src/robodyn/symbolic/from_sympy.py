"""Deprecated: ``robodyn.symbolic.from_sympy`` is now ``robodyn.symbolic.ring.from_sympy``."""

from ..core.deprecation import moved
from ..symbolic.ring.from_sympy import *  # noqa: F403

moved("robodyn.symbolic.from_sympy", "robodyn.symbolic.ring.from_sympy")
