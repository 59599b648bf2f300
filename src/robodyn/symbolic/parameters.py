"""Deprecated: ``robodyn.symbolic.parameters`` is now ``robodyn.identification.parameters``."""

from ..core.deprecation import moved
from ..identification.parameters import *  # noqa: F403

moved("robodyn.symbolic.parameters", "robodyn.identification.parameters")
