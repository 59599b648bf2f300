"""Deprecated: ``robodyn.symbolic.readable`` is now ``robodyn.symbolic.printing.readable``."""

from ..core.deprecation import moved
from ..symbolic.printing.readable import *  # noqa: F403

moved("robodyn.symbolic.readable", "robodyn.symbolic.printing.readable")
