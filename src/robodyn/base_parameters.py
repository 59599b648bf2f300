"""Deprecated: ``robodyn.base_parameters`` is now ``robodyn.symbolic.base_parameters``."""

from .core.deprecation import moved
from .symbolic.base_parameters import *  # noqa: F403

moved("robodyn.base_parameters", "robodyn.symbolic.base_parameters")
