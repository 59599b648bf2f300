"""Deprecated: ``robodyn.symbolic.back_to_sympy`` is now ``robodyn.symbolic.ring.back_to_sympy``."""

from ..core.deprecation import moved
from ..symbolic.ring.back_to_sympy import *  # noqa: F403

moved("robodyn.symbolic.back_to_sympy", "robodyn.symbolic.ring.back_to_sympy")
